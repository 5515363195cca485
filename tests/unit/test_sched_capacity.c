/*
 * Unit tests for the capacity plugin (docs/volcano/scheduler.md §4.5): its arithmetic through the
 * very callbacks the scheduler runs, in sessions opened on small snapshots whose queues come from
 * Queue objects (spec.deserved, capability, guarantee, parent), then whole cycles: a queue borrows
 * idle GPUs above its deserved and gives them back to a reclaiming queue.
 */
#include "vc_prelude.h"

#include <math.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

#include "support/sched_fixture.h"

#include "scheduler/plugins.h"
#include "scheduler/sched_internal.h"
#include "vc_alloc.h"

#define GPU	  SCHED_FIXTURE_GPU
#define MAXQUEUES 8

struct harness {
	struct sched_snapshot snap;
	struct sched_conf conf;
	struct sched_result res;
	struct sched_session ssn;
	struct sched_fixture_queue views[MAXQUEUES];
	size_t nviews;
	bool open;
};

static void h_init(struct harness *h)
{
	memset(h, 0, sizeof(*h));
	assert_int_equal(sched_snapshot_init(&h->snap), 0);
}

static void h_close(struct harness *h)
{
	if (!h->open)
		return;
	sched_session_end(&h->ssn);
	sched_result_release(&h->res);
	sched_conf_release(&h->conf);
	h->open = false;
}

static void h_release(struct harness *h)
{
	size_t i;

	h_close(h);
	sched_snapshot_release(&h->snap);
	for (i = 0; i < h->nviews; i++)
		sched_fixture_queue_release(&h->views[i]);
}

/* A node with cpu cores and GPUs. */
static struct sched_node_info *h_node(struct harness *h, const char *name, double cpu, double gpus)
{
	struct sched_node_info *n = vc_malloc(sizeof(*n));
	struct vc_resource r;

	assert_non_null(n);
	sched_fixture_res(&r, cpu * 1000, 0, gpus * 1000);
	assert_int_equal(sched_node_init(n, name, &r), 0);
	vc_resource_release(&r);
	assert_int_equal(sched_snapshot_add_node(&h->snap, n), 0);
	return n;
}

/* A queue from its spec's JSON text (the object's "spec"), e.g. {"deserved":{...}}. */
static struct sched_queue_info *h_queue(struct harness *h, const char *name, const char *spec)
{
	struct sched_queue_info *q = vc_malloc(sizeof(*q));
	char text[1024];

	assert_non_null(q);
	assert_true(h->nviews < MAXQUEUES);
	snprintf(text, sizeof(text), "{\"metadata\":{\"name\":\"%s\"},\"spec\":%s}", name, spec);
	sched_fixture_queue_parse(&h->views[h->nviews], text);
	assert_int_equal(sched_queue_from_view(q, &h->views[h->nviews].view), 0);
	h->nviews++;
	assert_int_equal(sched_snapshot_add_queue(&h->snap, q), 0);
	return q;
}

static struct sched_job_info *h_job(struct harness *h, const char *name, const char *queue, int min,
				    enum vc_pg_phase phase)
{
	struct sched_job_info *j = vc_malloc(sizeof(*j));

	assert_non_null(j);
	assert_int_equal(sched_job_init(j, "ns", name, queue, min), 0);
	j->phase = phase;
	assert_int_equal(sched_snapshot_add_job(&h->snap, j), 0);
	return j;
}

/*
 * n tasks "<prefix>-<i>" of 100m CPU and gpus GPUs each, in status st, bound to node (or none):
 * sched_snapshot_place puts them on it when the session opens.
 */
static struct sched_task_info *h_tasks(struct sched_job_info *j, const char *prefix, int n,
				       double gpus, enum sched_task_status st,
				       struct sched_node_info *node)
{
	struct sched_task_info *t = NULL;
	int i;

	for (i = 0; i < n; i++) {
		struct vc_resource r;
		char name[64];

		t = vc_malloc(sizeof(*t));
		assert_non_null(t);
		snprintf(name, sizeof(name), "%s-%d", prefix, i);
		sched_fixture_res(&r, 100, 0, gpus * 1000);
		assert_int_equal(sched_task_init(t, "ns", name, &r), 0);
		vc_resource_release(&r);
		t->status = st;
		assert_int_equal(sched_job_add_task(j, t), 0);
		if (node)
			assert_int_equal(sched_task_set_node(t, node->name), 0);
	}
	return t;
}

/* A task asking cpu millicores and gpus GPUs, for probes (a job of its own queue). */
static struct sched_task_info *h_probe(struct sched_job_info *j, const char *name, double cpu,
				       double gpus)
{
	struct sched_task_info *t = vc_malloc(sizeof(*t));
	struct vc_resource r;

	assert_non_null(t);
	sched_fixture_res(&r, cpu, 0, gpus * 1000);
	assert_int_equal(sched_task_init(t, "ns", name, &r), 0);
	vc_resource_release(&r);
	t->status = SCHED_TASK_PENDING;
	assert_int_equal(sched_job_add_task(j, t), 0);
	return t;
}

static void set_min_gpus(struct sched_job_info *j, double gpus)
{
	struct vc_resource r;

	sched_fixture_res(&r, 0, 0, gpus * 1000);
	assert_int_equal(vc_resource_copy(&j->min_resources, &r), 0);
	vc_resource_release(&r);
}

/* Open a session whose only plugin is capacity with the given plugin lines (or none). */
static struct sched_plugin_slot *h_open(struct harness *h, const char *extra)
{
	char text[1024];
	struct vc_error err;

	snprintf(text, sizeof(text), "actions: \"\"\ntiers:\n- plugins:\n  - name: capacity\n%s",
		 extra ? extra : "");
	vc_error_clear(&err);
	if (sched_conf_parse(text, strlen(text), &h->conf, &err) != 0)
		fail_msg("conf: %s", err.text);
	assert_int_equal(h->conf.nskipped, 0);
	assert_int_equal(sched_snapshot_place(&h->snap), 0);
	if (sched_session_begin(&h->ssn, &h->conf, &h->snap, "uid-1", "2026-01-01T00:00:00Z", 7,
				&h->res, &err) != 0)
		fail_msg("open: %s", err.text);
	h->open = true;
	assert_int_equal(h->ssn.priv->nslots, 1);
	return &h->ssn.priv->slots[0];
}

static struct sched_ssn_queue *h_q(struct harness *h, const struct sched_queue_info *q)
{
	struct sched_ssn_queue *sq = sched_ssn_find_queue(&h->ssn, q->name);

	assert_non_null(sq);
	return sq;
}

static struct sched_ssn_task *h_t(struct harness *h, const struct sched_task_info *t)
{
	struct sched_ssn_task *st = sched_ssn_task_of(&h->ssn, t);

	assert_non_null(st);
	return st;
}

static struct sched_ssn_job *h_j(struct harness *h, const struct sched_job_info *j)
{
	size_t i;

	for (i = 0; i < h->ssn.njobs; i++)
		if (h->ssn.jobs[i].j == j)
			return &h->ssn.jobs[i];
	fail_msg("job %s not in the session", j->uid);
	return NULL;
}

static double gpus(const struct vc_resource *r)
{
	return vc_resource_get(r, GPU) / 1000;
}

/* ---- flat: deserved, realCapability, share, order ---------------------------------------------
 */

static void test_capacity_flat_attributes(void **state)
{
	struct harness h;
	struct sched_plugin_slot *s;
	struct sched_queue_info *qa, *qb, *qc, *qd;
	struct sched_job_info *ja, *jb, *jd;

	(void)state;
	/*
	 * 16 GPUs. Guarantees: qa 2, qc 4 (no jobs, still counted): 6 in all. realCapability qa =
	 * (16 − 6) + 2 = 12; qb = min(10, capability 8) = 8; qd = 10.
	 * deserved qa = max(min(6, 12), 2) = 6; qb = min(10, 8) = 8 (capability bounds it).
	 */
	h_init(&h);
	h_node(&h, "n1", 64, 8);
	h_node(&h, "n2", 64, 8);
	qa = h_queue(&h, "qa",
		     "{\"deserved\":{\"nvidia.com/gpu\":6},"
		     "\"guarantee\":{\"resource\":{\"nvidia.com/gpu\":2}}}");
	qb = h_queue(
		&h, "qb",
		"{\"deserved\":{\"nvidia.com/gpu\":10},\"capability\":{\"nvidia.com/gpu\":8}}");
	qc = h_queue(&h, "qc", "{\"guarantee\":{\"resource\":{\"nvidia.com/gpu\":4}}}");
	qd = h_queue(&h, "qd", "{}");
	ja = h_job(&h, "ja", "qa", 1, VC_PG_RUNNING);
	h_tasks(ja, "ja", 3, 1, SCHED_TASK_RUNNING, h.snap.nodes[0]);
	jb = h_job(&h, "jb", "qb", 1, VC_PG_INQUEUE);
	h_tasks(jb, "jb", 4, 1, SCHED_TASK_PENDING, NULL);
	jd = h_job(&h, "jd", "qd", 1, VC_PG_RUNNING);
	h_tasks(jd, "jd", 1, 1, SCHED_TASK_RUNNING, h.snap.nodes[1]);
	s = h_open(&h, NULL);
	assert_true(gpus(&qa->real_capability) == 12);
	assert_true(gpus(&qb->real_capability) == 8);
	assert_true(gpus(&qd->real_capability) == 10);
	assert_true(qa->real_capability.milli_cpu == 128000);
	assert_true(gpus(&qa->deserved) == 6);
	assert_true(gpus(&qb->deserved) == 8);
	assert_true(qa->deserved.milli_cpu == 0);
	assert_true(gpus(&qa->allocated) == 3);
	/* qc has no job: no attributes. */
	assert_true(vc_resource_is_empty(&qc->real_capability));
	/* share: allocated / deserved over deserved's names; none deserved (qd): 1. */
	assert_true(qa->share == 0.5);
	assert_true(qb->share == 0);
	assert_true(qd->share == 1);
	assert_true(s->cb.queue_order(s->state, h_q(&h, qb), h_q(&h, qa)) < 0);
	assert_true(s->cb.queue_order(s->state, h_q(&h, qa), h_q(&h, qd)) < 0);
	qd->priority = 1;
	assert_true(s->cb.queue_order(s->state, h_q(&h, qa), h_q(&h, qd)) > 0);
	/* capacity has no Overused: queues above deserved still allocate (they borrow). */
	assert_null(s->cb.overused);
	h_release(&h);
}

static void test_capacity_share_ties(void **state)
{
	struct harness h;
	struct sched_plugin_slot *s;
	struct sched_queue_info *qa, *qb;
	struct sched_job_info *ja, *jb;

	(void)state;
	/* qa at its deserved (share 1) and qb without one (share 1): the one with deserved first.
	 */
	h_init(&h);
	h_node(&h, "n1", 64, 8);
	qa = h_queue(&h, "qa", "{\"deserved\":{\"nvidia.com/gpu\":2}}");
	qb = h_queue(&h, "qb", "{}");
	ja = h_job(&h, "ja", "qa", 1, VC_PG_RUNNING);
	h_tasks(ja, "ja", 2, 1, SCHED_TASK_RUNNING, h.snap.nodes[0]);
	jb = h_job(&h, "jb", "qb", 1, VC_PG_INQUEUE);
	h_tasks(jb, "jb", 1, 1, SCHED_TASK_PENDING, NULL);
	s = h_open(&h, NULL);
	assert_true(qa->share == 1 && qb->share == 1);
	assert_true(s->cb.queue_order(s->state, h_q(&h, qa), h_q(&h, qb)) < 0);
	assert_true(s->cb.queue_order(s->state, h_q(&h, qb), h_q(&h, qa)) > 0);
	/* Events move the share: one more GPU for qa (share 1.5), then back. */
	s->cb.on_allocate(s->state, h_t(&h, ja->tasks[0]));
	h_close(&h);
	assert_true(qa->share == 1.5);
	h_release(&h);
}

static void test_capacity_allocatable_borrows(void **state)
{
	struct harness h;
	struct sched_plugin_slot *s;
	struct sched_queue_info *qa;
	struct sched_job_info *ja, *x;
	struct sched_task_info *one, *two;

	(void)state;
	/*
	 * qa deserves 2 GPUs and runs 10 of the 16; realCapability 16. A 1-GPU task still fits
	 * (borrowing: 11 ≤ 16, proportion would stop at deserved); 7 GPUs do not (17 > 16).
	 */
	h_init(&h);
	h_node(&h, "n1", 64, 16);
	qa = h_queue(&h, "qa", "{\"deserved\":{\"nvidia.com/gpu\":2}}");
	ja = h_job(&h, "ja", "qa", 1, VC_PG_RUNNING);
	h_tasks(ja, "ja", 10, 1, SCHED_TASK_RUNNING, h.snap.nodes[0]);
	x = h_job(&h, "x", "elsewhere", 1, VC_PG_INQUEUE);
	one = h_probe(x, "one", 100, 1);
	two = h_probe(x, "seven", 100, 7);
	s = h_open(&h, NULL);
	assert_true(gpus(&qa->deserved) == 2 && gpus(&qa->real_capability) == 16);
	assert_true(s->cb.allocatable(s->state, h_q(&h, qa), h_t(&h, one)));
	assert_false(s->cb.allocatable(s->state, h_q(&h, qa), h_t(&h, two)));
	/* Above deserved, qa may not reclaim for more. */
	assert_false(s->cb.preemptive(s->state, h_q(&h, qa), h_t(&h, one)));
	qa->state = VC_QUEUE_CLOSED;
	assert_false(s->cb.allocatable(s->state, h_q(&h, qa), h_t(&h, one)));
	h_release(&h);
}

static void test_capacity_preemptive(void **state)
{
	struct harness h;
	struct sched_plugin_slot *s;
	struct sched_queue_info *qa, *qb;
	struct sched_job_info *ja, *jb;
	struct sched_task_info *pa, *pb;

	(void)state;
	/* qb deserves 4 and holds 3: one more GPU is within deserved; qa deserves 2 and holds 2. */
	h_init(&h);
	h_node(&h, "n1", 64, 8);
	qa = h_queue(&h, "qa", "{\"deserved\":{\"nvidia.com/gpu\":2}}");
	qb = h_queue(&h, "qb",
		     "{\"deserved\":{\"nvidia.com/gpu\":4},"
		     "\"capability\":{\"nvidia.com/gpu\":4}}");
	ja = h_job(&h, "ja", "qa", 1, VC_PG_RUNNING);
	h_tasks(ja, "ja", 2, 1, SCHED_TASK_RUNNING, h.snap.nodes[0]);
	pa = h_probe(ja, "pa", 100, 1);
	jb = h_job(&h, "jb", "qb", 1, VC_PG_RUNNING);
	h_tasks(jb, "jb", 3, 1, SCHED_TASK_RUNNING, h.snap.nodes[0]);
	pb = h_probe(jb, "pb", 100, 1);
	s = h_open(&h, NULL);
	assert_true(s->cb.preemptive(s->state, h_q(&h, qb), h_t(&h, pb)));
	assert_false(s->cb.preemptive(s->state, h_q(&h, qa), h_t(&h, pa)));
	/* Holding 4, one more would pass qb's capability 4: no reclaim either. */
	s->cb.on_allocate(s->state, h_t(&h, jb->tasks[0]));
	assert_false(s->cb.preemptive(s->state, h_q(&h, qb), h_t(&h, pb)));
	h_release(&h);
}

/* ---- reclaim victims ------------------------------------------------------------------------- */

/* How many of cands the reclaim filter keeps for reclaimer r (cands in victim order). */
static size_t reclaim_victims(struct sched_plugin_slot *s, struct sched_ssn_task *r,
			      struct sched_ssn_task **cands, size_t n, bool *keep)
{
	size_t i, kept = 0;

	for (i = 0; i < n; i++)
		keep[i] = true;
	assert_int_equal(s->cb.reclaimable(s->state, r, cands, n, keep), SCHED_PERMIT);
	for (i = 0; i < n; i++)
		kept += keep[i];
	return kept;
}

static void test_capacity_reclaimable(void **state)
{
	struct harness h;
	struct sched_plugin_slot *s;
	struct sched_job_info *ja, *jb, *jc;
	struct sched_task_info *r, *gpu_only, *cpu_task;
	struct sched_ssn_task *cands[6];
	bool keep[6];
	size_t i;

	(void)state;
	/*
	 * qa deserves 3 GPUs and runs 6: victims while its running total stays above 3 → 3 of
	 * them. With guarantee 4, never below it → 2.
	 */
	for (i = 0; i < 2; i++) {
		h_init(&h);
		h_node(&h, "n1", 64, 8);
		h_queue(&h, "qa",
			i == 0 ? "{\"deserved\":{\"nvidia.com/gpu\":3}}"
			       : "{\"deserved\":{\"nvidia.com/gpu\":3},"
				 "\"guarantee\":{\"resource\":{\"nvidia.com/gpu\":4}}}");
		h_queue(&h, "qb", "{\"deserved\":{\"nvidia.com/gpu\":5}}");
		ja = h_job(&h, "ja", "qa", 1, VC_PG_RUNNING);
		h_tasks(ja, "ja", 6, 1, SCHED_TASK_RUNNING, h.snap.nodes[0]);
		jb = h_job(&h, "jb", "qb", 1, VC_PG_INQUEUE);
		r = h_tasks(jb, "jb", 1, 1, SCHED_TASK_PENDING, NULL);
		s = h_open(&h, NULL);
		for (size_t k = 0; k < 6; k++)
			cands[k] = h_t(&h, ja->tasks[5 - k]);
		assert_int_equal(reclaim_victims(s, h_t(&h, r), cands, 6, keep), i == 0 ? 3 : 2);
		assert_true(keep[0] && keep[1] && !keep[5]);
		/* The running totals start afresh for each call. */
		assert_int_equal(reclaim_victims(s, h_t(&h, r), cands, 6, keep), i == 0 ? 3 : 2);
		h_release(&h);
	}

	/*
	 * qc deserves GPUs only: a CPU-only task of qc holds nothing qc deserves, a victim at once;
	 * a reclaimer asking only GPUs passes over it (no common dimension).
	 */
	h_init(&h);
	h_node(&h, "n1", 64, 8);
	h_queue(&h, "qc", "{\"deserved\":{\"nvidia.com/gpu\":8}}");
	h_queue(&h, "qb", "{\"deserved\":{\"nvidia.com/gpu\":5}}");
	jc = h_job(&h, "jc", "qc", 1, VC_PG_RUNNING);
	cpu_task = h_probe(jc, "cpu", 1000, 0);
	cpu_task->status = SCHED_TASK_RUNNING;
	jb = h_job(&h, "jb", "qb", 1, VC_PG_INQUEUE);
	r = h_probe(jb, "both", 1000, 1);
	gpu_only = h_probe(jb, "gpu", 0, 1);
	s = h_open(&h, NULL);
	cands[0] = h_t(&h, cpu_task);
	assert_int_equal(reclaim_victims(s, h_t(&h, r), cands, 1, keep), 1);
	assert_int_equal(reclaim_victims(s, h_t(&h, gpu_only), cands, 1, keep), 0);
	h_release(&h);
}

/* ---- enqueue -----------------------------------------------------------------------------------
 */

static void test_capacity_enqueue(void **state)
{
	struct harness h;
	struct sched_plugin_slot *s;
	struct sched_job_info *big, *fits, *run;
	char *msg = NULL;

	(void)state;
	/*
	 * qb capability 8 GPUs, running 3 of a job whose minResources are 2 GPUs (1 elastic):
	 * minReq + allocated 3 + inqueue 0 − elastic 1 ≤ 8 → 6 GPUs fit, 7 do not.
	 */
	h_init(&h);
	h_node(&h, "n1", 64, 16);
	h_queue(&h, "qb",
		"{\"deserved\":{\"nvidia.com/gpu\":4},\"capability\":{\"nvidia.com/gpu\":8}}");
	run = h_job(&h, "run", "qb", 2, VC_PG_RUNNING);
	set_min_gpus(run, 2);
	h_tasks(run, "run", 3, 1, SCHED_TASK_RUNNING, h.snap.nodes[0]);
	big = h_job(&h, "big", "qb", 7, VC_PG_PENDING);
	set_min_gpus(big, 7);
	h_tasks(big, "big", 7, 1, SCHED_TASK_PENDING, NULL);
	fits = h_job(&h, "fits", "qb", 6, VC_PG_PENDING);
	set_min_gpus(fits, 6);
	h_tasks(fits, "fits", 6, 1, SCHED_TASK_PENDING, NULL);
	s = h_open(&h, NULL);
	assert_int_equal(s->cb.job_enqueueable(s->state, h_j(&h, big), &msg), SCHED_REJECT);
	assert_non_null(msg);
	assert_string_equal(msg, "queue resource quota insufficient: insufficient nvidia.com/gpu");
	vc_free(msg);
	msg = NULL;
	assert_int_equal(s->cb.job_enqueueable(s->state, h_j(&h, fits), &msg), SCHED_PERMIT);
	/* Once admitted, its minResources count as inqueue: nothing else fits. */
	s->cb.job_enqueued(s->state, h_j(&h, fits));
	assert_int_equal(s->cb.job_enqueueable(s->state, h_j(&h, fits), &msg), SCHED_REJECT);
	vc_free(msg);
	h_release(&h);
}

/* ---- hierarchy --------------------------------------------------------------------------------
 */

/*
 * root → team-a (deserved 6, capability 12) → a1 (deserved 3, guarantee g1), a2 (deserved 3);
 * root → team-b (deserved 10). 16 GPUs; a1 runs `a1_running` GPUs.
 */
static void tree(struct harness *h, struct sched_queue_info **q, int a1_running, const char *g1,
		 struct sched_job_info **ja1)
{
	char spec[256];

	h_node(h, "n1", 64, 8);
	h_node(h, "n2", 64, 8);
	q[0] = h_queue(h, "root", "{}");
	q[1] = h_queue(
		h, "team-a",
		"{\"deserved\":{\"nvidia.com/gpu\":6},\"capability\":{\"nvidia.com/gpu\":12}}");
	snprintf(spec, sizeof(spec),
		 "{\"parent\":\"team-a\",\"deserved\":{\"nvidia.com/gpu\":3}%s%s%s}",
		 g1 ? ",\"guarantee\":{\"resource\":{\"nvidia.com/gpu\":" : "", g1 ? g1 : "",
		 g1 ? "}}" : "");
	q[2] = h_queue(h, "a1", spec);
	q[3] = h_queue(h, "a2", "{\"parent\":\"team-a\",\"deserved\":{\"nvidia.com/gpu\":3}}");
	q[4] = h_queue(h, "team-b", "{\"parent\":\"root\",\"deserved\":{\"nvidia.com/gpu\":10}}");
	*ja1 = h_job(h, "ja1", "a1", 1, VC_PG_RUNNING);
	h_tasks(*ja1, "ja1", a1_running > 8 ? 8 : a1_running, 1, SCHED_TASK_RUNNING,
		h->snap.nodes[0]);
	if (a1_running > 8)
		h_tasks(*ja1, "ja1b", a1_running - 8, 1, SCHED_TASK_RUNNING, h->snap.nodes[1]);
}

static void test_capacity_hierarchy(void **state)
{
	struct harness h;
	struct sched_plugin_slot *s;
	struct sched_queue_info *q[5];
	struct sched_job_info *ja1, *ja2, *jb;
	struct sched_task_info *p1, *p2, *pb;

	(void)state;
	h_init(&h);
	tree(&h, q, 11, NULL, &ja1);
	ja2 = h_job(&h, "ja2", "a2", 1, VC_PG_INQUEUE);
	p2 = h_probe(ja2, "p2", 100, 1);
	jb = h_job(&h, "jb", "team-b", 1, VC_PG_INQUEUE);
	pb = h_probe(jb, "pb", 100, 1);
	p1 = h_probe(ja1, "p1", 100, 1);
	s = h_open(&h, "    enableHierarchy: true\n");
	assert_true(h.conf.tiers[0].plugins[0].hierarchy);
	/* root: unlimited, deserving the sum of its children; team-a bounded by its capability;
	 * a1 inherits it. */
	assert_true(isinf(gpus(&q[0]->real_capability)));
	assert_true(gpus(&q[0]->deserved) == 16);
	assert_true(gpus(&q[1]->real_capability) == 12);
	assert_true(gpus(&q[2]->real_capability) == 12);
	assert_true(isinf(gpus(&q[4]->real_capability)));
	/* A parent's allocated is its subtree's. */
	assert_true(gpus(&q[1]->allocated) == 11 && gpus(&q[0]->allocated) == 11);
	/* a1 may borrow one more (12 ≤ team-a's 12), not two: the parent bounds the child. */
	assert_true(s->cb.allocatable(s->state, h_q(&h, q[2]), h_t(&h, p1)));
	s->cb.on_allocate(s->state, h_t(&h, p1));
	assert_false(s->cb.allocatable(s->state, h_q(&h, q[2]), h_t(&h, p1)));
	/* ... and so is a2, its sibling, though it holds nothing; team-b is not. */
	assert_false(s->cb.allocatable(s->state, h_q(&h, q[3]), h_t(&h, p2)));
	assert_true(s->cb.allocatable(s->state, h_q(&h, q[4]), h_t(&h, pb)));
	/* Only leaves run jobs. */
	assert_false(s->cb.allocatable(s->state, h_q(&h, q[1]), h_t(&h, pb)));
	/* Order: leaves first; team-b (share 0) before a1 (team-a's share 11/6); a2 before a1. */
	assert_true(s->cb.queue_order(s->state, h_q(&h, q[4]), h_q(&h, q[2])) < 0);
	assert_true(s->cb.queue_order(s->state, h_q(&h, q[3]), h_q(&h, q[2])) < 0);
	assert_true(s->cb.queue_order(s->state, h_q(&h, q[2]), h_q(&h, q[1])) < 0);
	/* Victims for a2's tasks come from its sibling a1 before team-b. */
	assert_non_null(s->cb.victim_queue_order);
	assert_true(s->cb.victim_queue_order(s->state, h_q(&h, q[2]), h_q(&h, q[4]),
					     h_q(&h, q[3])) < 0);
	assert_true(s->cb.victim_queue_order(s->state, h_q(&h, q[4]), h_q(&h, q[2]),
					     h_q(&h, q[3])) > 0);
	/* team-b reclaims (below its deserved 10); a1's GPUs above 3 are victims. */
	assert_true(s->cb.preemptive(s->state, h_q(&h, q[4]), h_t(&h, pb)));
	assert_false(s->cb.preemptive(s->state, h_q(&h, q[2]), h_t(&h, p1)));
	h_release(&h);

	/* A guarantee of 2 in a1 is kept from a2: a2's realCapability is 12 − 2 = 10. */
	h_init(&h);
	tree(&h, q, 0, "2", &ja1);
	s = h_open(&h, "    enableHierarchy: true\n");
	assert_true(gpus(&q[3]->real_capability) == 10);
	assert_true(gpus(&q[2]->real_capability) == 12);
	assert_true(gpus(&q[1]->guarantee) == 0);
	assert_true(gpus(&q[0]->deserved) == 16);
	h_release(&h);
}

static void test_capacity_hierarchy_broken(void **state)
{
	struct harness h;
	struct sched_plugin_slot *s;
	struct sched_queue_info *q[5];
	struct sched_job_info *ja1, *bad;
	struct sched_task_info *p1;
	char *msg = NULL;

	(void)state;
	/* A job in team-a (not a leaf): the plugin refuses everything, everywhere. */
	h_init(&h);
	tree(&h, q, 2, NULL, &ja1);
	p1 = h_probe(ja1, "p1", 100, 1);
	bad = h_job(&h, "bad", "team-a", 1, VC_PG_PENDING);
	h_probe(bad, "x", 100, 1);
	s = h_open(&h, "    enableHierarchy: true\n");
	assert_false(s->cb.allocatable(s->state, h_q(&h, q[2]), h_t(&h, p1)));
	assert_int_equal(s->cb.job_enqueueable(s->state, h_j(&h, ja1), &msg), SCHED_REJECT);
	assert_null(s->cb.queue_order);
	h_release(&h);

	/* Without root there is no tree either. */
	h_init(&h);
	h_node(&h, "n1", 64, 8);
	h_queue(&h, "a", "{\"deserved\":{\"nvidia.com/gpu\":3}}");
	ja1 = h_job(&h, "j", "a", 1, VC_PG_INQUEUE);
	p1 = h_probe(ja1, "p", 100, 1);
	s = h_open(&h, "    enableHierarchy: true\n");
	assert_false(s->cb.allocatable(s->state, h_q(&h, h.snap.queues[0]), h_t(&h, p1)));
	h_release(&h);
}

/* ---- whole cycles: borrow, then give back --------------------------------------------------- */

static const char conf_tree[] = "actions: \"enqueue, allocate, backfill, reclaim\"\n"
				"tiers:\n"
				"- plugins:\n"
				"  - name: priority\n"
				"  - name: gang\n"
				"    enablePreemptable: false\n"
				"  - name: conformance\n"
				"- plugins:\n"
				"  - name: overcommit\n"
				"  - name: drf\n"
				"    enablePreemptable: false\n"
				"  - name: predicates\n"
				"  - name: capacity\n"
				"    enableHierarchy: true\n"
				"  - name: nodeorder\n";

static void cycle(struct harness *h, struct sched_result *r)
{
	struct vc_error err;

	vc_error_clear(&err);
	if (sched_conf_parse(conf_tree, strlen(conf_tree), &h->conf, &err) != 0)
		fail_msg("conf: %s", err.text);
	assert_int_equal(h->conf.nskipped, 0);
	assert_int_equal(sched_snapshot_place(&h->snap), 0);
	if (sched_session_run(&h->conf, &h->snap, "uid-1", "2026-01-01T00:00:00Z", 7, r, &err) != 0)
		fail_msg("run: %s", err.text);
	sched_conf_release(&h->conf);
}

/*
 * A broken tree (no root queue, or spec.parent going round in a circle) with a best-effort task:
 * backfill places it without asking allocatable, and the allocate event must not walk a parent
 * link that does not exist (found by fuzz_sched_conf: the walk never ended). alarm() turns a
 * hang into a failure.
 */
static void test_capacity_hierarchy_broken_cycle(void **state)
{
	static const char *const specs[][2] = {
		{ "{}", "{\"parent\":\"b\"}" },			/* a's parent, root, is missing */
		{ "{\"parent\":\"b\"}", "{\"parent\":\"a\"}" }, /* a -> b -> a */
	};
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		struct harness h;
		struct sched_result r;
		struct sched_job_info *j;

		h_init(&h);
		h_node(&h, "n1", 8, 0);
		h_queue(&h, "a", specs[k][0]);
		h_queue(&h, "b", specs[k][1]);
		if (k == 1)
			h_queue(&h, "root", "{}");
		j = h_job(&h, "be", "a", 1, VC_PG_INQUEUE);
		h_probe(j, "be-0", 0, 0);
		alarm(20);
		cycle(&h, &r);
		alarm(0);
		assert_int_equal(r.nbinds, 1);
		sched_result_release(&r);
		h_release(&h);
	}
}

static void test_capacity_borrow_and_reclaim(void **state)
{
	struct harness h;
	struct sched_result r;
	struct sched_queue_info *q[5];
	struct sched_job_info *ja1, *jb;
	size_t i, n;

	(void)state;
	/* An idle cluster: a1 (deserved 3) asks 16 GPUs and gets 12, team-a's capability. */
	h_init(&h);
	tree(&h, q, 0, NULL, &ja1);
	h_tasks(ja1, "w", 16, 1, SCHED_TASK_PENDING, NULL);
	ja1->phase = VC_PG_INQUEUE;
	cycle(&h, &r);
	assert_int_equal(r.nbinds, 12);
	assert_int_equal(r.nevicts, 0);
	sched_result_release(&r);
	h_release(&h);

	/*
	 * a1 runs 12 (9 above its deserved); team-b's gang of 6 finds 4 free GPUs and reclaims 2
	 * of a1's borrowed ones: evicted, and team-b's 6 pipelined onto what they free.
	 */
	h_init(&h);
	tree(&h, q, 12, NULL, &ja1);
	jb = h_job(&h, "jb", "team-b", 6, VC_PG_INQUEUE);
	h_tasks(jb, "jb", 6, 1, SCHED_TASK_PENDING, NULL);
	cycle(&h, &r);
	assert_int_equal(r.nevicts, 2);
	for (i = 0; i < r.nevicts; i++) {
		assert_ptr_equal(r.evicts[i].task->job, ja1);
		assert_string_equal(r.evicts[i].reason, "reclaim");
	}
	n = sched_job_count(jb, SCHED_TASK_PIPELINED) + sched_job_count(jb, SCHED_TASK_ALLOCATED) +
	    sched_job_count(jb, SCHED_TASK_BINDING);
	assert_int_equal(n, 6);
	sched_result_release(&r);
	h_release(&h);
}

/* ---- configuration and failures ---------------------------------------------------------------
 */

static void test_capacity_conf(void **state)
{
	struct sched_conf c;
	struct vc_error err;
	const char text[] = "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: capacity\n"
			    "    arguments:\n      ancestorReclaimLevel: 1\n  - name: gang\n";

	(void)state;
	vc_error_clear(&err);
	assert_int_equal(sched_conf_parse(text, strlen(text), &c, &err), 0);
	assert_int_equal(c.nskipped, 0);
	assert_false(c.tiers[0].plugins[0].hierarchy);
	assert_int_equal(sched_arg_int(&c.tiers[0].plugins[0], "ancestorReclaimLevel", 0), 1);
	sched_conf_release(&c);
}

static void test_capacity_alloc_failures(void **state)
{
	int n;

	(void)state;
	for (n = 0;; n++) {
		struct harness h;
		struct sched_queue_info *q[5];
		struct sched_job_info *ja1;
		struct vc_error err;
		int rc;

		h_init(&h);
		tree(&h, q, 3, NULL, &ja1);
		vc_error_clear(&err);
		assert_int_equal(sched_conf_parse(conf_tree, strlen(conf_tree), &h.conf, &err), 0);
		assert_int_equal(sched_snapshot_place(&h.snap), 0);
		vc_alloc_fail_after(n);
		rc = sched_session_begin(&h.ssn, &h.conf, &h.snap, "uid-1", "2026-01-01T00:00:00Z",
					 7, &h.res, &err);
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_true(gpus(&q[1]->allocated) == 3);
			sched_session_end(&h.ssn);
		}
		sched_result_release(&h.res);
		sched_conf_release(&h.conf);
		h_release(&h);
		if (rc == 0)
			break;
		assert_int_equal(rc, VC_ENOMEM);
	}
	assert_true(n > 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capacity_flat_attributes),
		cmocka_unit_test(test_capacity_share_ties),
		cmocka_unit_test(test_capacity_allocatable_borrows),
		cmocka_unit_test(test_capacity_preemptive),
		cmocka_unit_test(test_capacity_reclaimable),
		cmocka_unit_test(test_capacity_enqueue),
		cmocka_unit_test(test_capacity_hierarchy),
		cmocka_unit_test(test_capacity_hierarchy_broken),
		cmocka_unit_test(test_capacity_hierarchy_broken_cycle),
		cmocka_unit_test(test_capacity_borrow_and_reclaim),
		cmocka_unit_test(test_capacity_conf),
		cmocka_unit_test(test_capacity_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
