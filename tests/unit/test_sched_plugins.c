/*
 * Unit tests for the scheduler's data model and the built-in plugins (docs/volcano/scheduler.md
 * §4). The plugins are exercised as the scheduler runs them: through their session callbacks in a
 * session opened on a small snapshot (sched_session_begin), or through the formulas those
 * callbacks call (plugins.h).
 */
#include "vc_prelude.h"

#include <math.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support/sched_fixture.h"

#include "scheduler/plugins.h"
#include "scheduler/sched_internal.h"
#include "vc_alloc.h"

#define GIB (1024.0 * 1024 * 1024)
#define MIB (1024.0 * 1024)
#define GPU SCHED_FIXTURE_GPU

/* A heap task added to job j, in status s, placed on node n when n is non-NULL. */
static struct sched_task_info *add_task(struct sched_job_info *j, const char *name, double cpu,
					double mem, double gpu, enum sched_task_status s,
					struct sched_node_info *n)
{
	struct sched_task_info *t = vc_malloc(sizeof(*t));
	struct vc_resource r;

	assert_non_null(t);
	sched_fixture_res(&r, cpu, mem, gpu);
	assert_int_equal(sched_task_init(t, "ns", name, &r), 0);
	vc_resource_release(&r);
	t->status = s;
	assert_int_equal(sched_job_add_task(j, t), 0);
	if (n) {
		assert_int_equal(sched_task_set_node(t, n->name), 0);
		assert_int_equal(sched_node_add_task(n, t), 0);
	}
	return t;
}

static void node_init(struct sched_node_info *n, const char *name, double cpu, double mem,
		      double gpu)
{
	struct vc_resource r;

	sched_fixture_res(&r, cpu, mem, gpu);
	assert_int_equal(sched_node_init(n, name, &r), 0);
	vc_resource_release(&r);
}

/* ---- data model ------------------------------------------------------------------------------ */

static void test_model_job_node_accounting(void **state)
{
	struct sched_job_info j;
	struct sched_node_info n;
	struct sched_task_info *t1, *t2;
	struct vc_resource fi = VC_RESOURCE_INIT;

	(void)state;
	assert_int_equal(sched_job_init(&j, "ns", "pg", NULL, 3), 0);
	assert_string_equal(j.uid, "ns/pg");
	assert_string_equal(j.queue, "default");
	node_init(&n, "n1", 4000, 8 * GIB, 2000);
	t1 = add_task(&j, "a-0", 1000, GIB, 1000, SCHED_TASK_RUNNING, &n);
	add_task(&j, "a-1", 500, GIB, 0, SCHED_TASK_RELEASING, &n);
	add_task(&j, "a-2", 1000, 0, 1000, SCHED_TASK_PIPELINED, &n);
	t2 = add_task(&j, "a-3", 0, 0, 0, SCHED_TASK_PENDING, NULL);
	add_task(&j, "a-4", 100, 0, 0, SCHED_TASK_SUCCEEDED, NULL);
	assert_true(t2->best_effort);
	assert_false(t1->best_effort);
	assert_int_equal(j.ntasks, 5);
	assert_int_equal(sched_job_ready_count(&j), 2); /* Running + Succeeded */
	assert_int_equal(sched_job_waiting_count(&j), 1);
	assert_int_equal(sched_job_pending_best_effort_count(&j), 1);
	assert_true(j.allocated.milli_cpu == 1000);
	assert_true(j.request.milli_cpu == 2600);
	assert_true(n.used.milli_cpu == 1500 && n.used.memory == 2 * GIB);
	assert_true(n.idle.milli_cpu == 2500 && vc_resource_get(&n.idle, GPU) == 1000);
	assert_true(n.releasing.milli_cpu == 500 && n.pipelined.milli_cpu == 1000);
	assert_int_equal(sched_node_future_idle(&n, &fi), 0);
	assert_true(fi.milli_cpu == 2000 && vc_resource_get(&fi, GPU) == 0);
	/* Status changes keep allocated right. */
	assert_int_equal(sched_job_set_status(&j, t2, SCHED_TASK_ALLOCATED), 0);
	assert_int_equal(sched_job_set_status(&j, t1, SCHED_TASK_FAILED), 0);
	assert_true(j.allocated.milli_cpu == 0 && vc_resource_get(&j.allocated, GPU) == 0);
	assert_int_equal(sched_job_ready_count(&j), 2);
	assert_string_equal(sched_task_status_name(SCHED_TASK_PIPELINED), "Pipelined");
	assert_string_equal(sched_task_status_name(SCHED_TASK_STATUS_COUNT), "Unknown");
	vc_resource_release(&fi);
	sched_node_release(&n);
	sched_job_release(&j);
}

static void pod_from(struct vc_pod *pod, json_t **obj, const char *text)
{
	struct vc_error err;

	*obj = json_loads(text, 0, NULL);
	assert_non_null(*obj);
	vc_error_clear(&err);
	assert_int_equal(vc_pod_view(*obj, pod, &err), 0);
}

static void test_model_task_from_pod(void **state)
{
	struct vc_pod pod;
	struct sched_task_info t;
	struct vc_error err;
	json_t *obj;

	(void)state;
	pod_from(
		&pod, &obj,
		"{\"metadata\":{\"namespace\":\"ns\",\"name\":\"p-0\",\"uid\":\"u1\","
		"\"annotations\":{\"volcano.sh/task-spec\":\"ps\",\"volcano.sh/task-priority\":\"7\","
		"\"volcano.sh/preemptable\":\"false\"}},"
		"\"spec\":{\"nodeName\":\"n1\",\"priority\":3,\"containers\":[{\"name\":\"c\","
		"\"resources\":{\"requests\":{\"cpu\":\"2\",\"nvidia.com/gpu\":\"1\"}}}]},"
		"\"status\":{\"phase\":\"Pending\"}}");
	assert_int_equal(sched_task_from_pod(&t, &pod, NULL), 0);
	assert_string_equal(t.uid, "u1");
	assert_string_equal(t.role, "ps");
	assert_int_equal(t.priority, 7);
	assert_false(t.preemptable);
	assert_int_equal(t.status, SCHED_TASK_BOUND);
	assert_string_equal(t.node_name, "n1");
	assert_true(t.req.milli_cpu == 2000 && vc_resource_get(&t.req, GPU) == 1000);
	sched_task_release(&t);
	vc_pod_view_release(&pod);
	json_decref(obj);

	pod_from(&pod, &obj,
		 "{\"metadata\":{\"namespace\":\"ns\",\"name\":\"p-1\",\"annotations\":"
		 "{\"volcano.sh/task-priority\":\"x\"}},\"spec\":{\"containers\":[]}}");
	vc_error_clear(&err);
	assert_int_equal(sched_task_from_pod(&t, &pod, &err), VC_EINVALID);
	assert_string_equal(err.text, "invalid task priority 'x' of pod ns/p-1");
	vc_pod_view_release(&pod);
	json_decref(obj);
}

static void test_model_alloc_failures(void **state)
{
	int n, rc;

	(void)state;
	for (n = 0;; n++) {
		struct sched_job_info j;
		struct sched_node_info node;
		struct sched_task_info *t;
		struct vc_resource r;

		sched_fixture_res(&r, 1000, GIB, 1000);
		vc_alloc_fail_after(n);
		rc = sched_job_init(&j, "ns", "pg", "q", 1);
		if (rc == 0) {
			rc = sched_node_init(&node, "n", &r);
			if (rc < 0) {
				sched_job_release(&j);
			}
		}
		if (rc == 0) {
			t = vc_malloc(sizeof(*t));
			rc = t ? sched_task_init(t, "ns", "t", &r) : VC_ENOMEM;
			if (rc == 0) {
				t->status = SCHED_TASK_RUNNING;
				rc = sched_job_add_task(&j, t);
				if (rc < 0)
					sched_task_release(t);
			}
			if (rc < 0)
				vc_free(t);
			if (rc == 0)
				rc = sched_node_add_task(&node, t);
			sched_node_release(&node);
			sched_job_release(&j);
		}
		vc_alloc_fail_reset();
		vc_resource_release(&r);
		if (rc == 0)
			break;
		assert_int_equal(rc, VC_ENOMEM);
	}
	assert_true(n > 5);
}

/* ---- a session over a small snapshot ----------------------------------------------------------
 */

struct harness {
	struct sched_snapshot snap;
	struct sched_conf conf;
	struct sched_result res;
	struct sched_session ssn;
	struct vc_buf text;
};

static void h_init(struct harness *h)
{
	memset(h, 0, sizeof(*h));
	assert_int_equal(sched_snapshot_init(&h->snap), 0);
	vc_buf_init(&h->text, 4096);
}

static void h_release(struct harness *h)
{
	sched_snapshot_release(&h->snap);
	vc_buf_release(&h->text);
}

static struct sched_node_info *h_node(struct harness *h, const char *name, double cpu, double mem,
				      double gpu)
{
	struct sched_node_info *n = vc_malloc(sizeof(*n));

	assert_non_null(n);
	node_init(n, name, cpu, mem, gpu);
	assert_int_equal(sched_snapshot_add_node(&h->snap, n), 0);
	return n;
}

static struct sched_queue_info *h_queue(struct harness *h, const char *name, int weight,
					double guarantee)
{
	struct sched_queue_info *q = vc_malloc(sizeof(*q));

	assert_non_null(q);
	assert_int_equal(sched_queue_init(q, name, weight), 0);
	q->guarantee.milli_cpu = guarantee * 1000;
	assert_int_equal(sched_snapshot_add_queue(&h->snap, q), 0);
	return q;
}

static struct sched_job_info *h_job(struct harness *h, const char *name, const char *queue, int min)
{
	struct sched_job_info *j = vc_malloc(sizeof(*j));

	assert_non_null(j);
	assert_int_equal(sched_job_init(j, "ns", name, queue, min), 0);
	assert_int_equal(sched_snapshot_add_job(&h->snap, j), 0);
	return j;
}

/*
 * Open a session with one tier holding plugin, its arguments the YAML block lines args (each
 * "      key: value\n") or none; returns the plugin's slot.
 */
static struct sched_plugin_slot *h_open(struct harness *h, const char *plugin, const char *args)
{
	char text[1024];
	struct vc_error err;

	snprintf(text, sizeof(text), "actions: \"\"\ntiers:\n- plugins:\n  - name: %s\n%s%s",
		 plugin, args ? "    arguments:\n" : "", args ? args : "");
	vc_error_clear(&err);
	if (sched_conf_parse(text, strlen(text), &h->conf, &err) != 0)
		fail_msg("conf: %s", err.text);
	if (sched_session_begin(&h->ssn, &h->conf, &h->snap, "uid-1", "2026-01-01T00:00:00Z", 7,
				&h->res, &err) != 0)
		fail_msg("open: %s", err.text);
	assert_int_equal(h->ssn.priv->nslots, 1);
	return &h->ssn.priv->slots[0];
}

static void h_close(struct harness *h)
{
	sched_session_end(&h->ssn);
	sched_result_release(&h->res);
	sched_conf_release(&h->conf);
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

static struct sched_ssn_node *h_n(struct harness *h, const struct sched_node_info *n)
{
	size_t i;

	for (i = 0; i < h->ssn.nnodes; i++)
		if (h->ssn.nodes[i].n == n)
			return &h->ssn.nodes[i];
	fail_msg("node %s not in the session", n->name);
	return NULL;
}

static struct sched_ssn_queue *h_q(struct harness *h, const struct sched_queue_info *q)
{
	size_t i;

	for (i = 0; i < h->ssn.nqueues; i++)
		if (h->ssn.queues[i].q == q)
			return &h->ssn.queues[i];
	fail_msg("queue %s not in the session", q->name);
	return NULL;
}

/* One victim filter call over a single candidate: whether it stays a victim. */
static bool victim(enum sched_vote (*fn)(void *, const struct sched_ssn_task *,
					 struct sched_ssn_task *const *, size_t, bool *),
		   void *state, struct sched_ssn_task *preemptor, struct sched_ssn_task *cand)
{
	bool keep = true;

	fn(state, preemptor, &cand, 1, &keep);
	return keep;
}

/* The node_order score of plugin (with args) for task t on node n, in a session of its own. */
static double h_score(struct harness *h, const char *plugin, const char *args,
		      const struct sched_task_info *t, const struct sched_node_info *n)
{
	struct sched_plugin_slot *s = h_open(h, plugin, args);
	double score;

	assert_non_null(s->cb.node_order);
	score = s->cb.node_order(s->state, h_t(h, t), h_n(h, n));
	h_close(h);
	return score;
}

/* ---- proportion ------------------------------------------------------------------------------ */

/* An active queue with a CPU-only request (cores) and optional capability/guarantee (0 = none). */
static void queue(struct sched_queue_info *q, const char *name, int weight, double request,
		  double capability, double guarantee)
{
	assert_int_equal(sched_queue_init(q, name, weight), 0);
	q->active = request > 0;
	q->request.milli_cpu = request * 1000;
	if (capability > 0) {
		q->has_capability = true;
		q->capability.milli_cpu = capability * 1000;
	}
	q->guarantee.milli_cpu = guarantee * 1000;
}

/* proportion's water-filling (what its session open runs) over the n queues of qs. */
static int compute(struct sched_queue_info *qs, size_t n, const struct vc_resource *total)
{
	struct sched_queue_info *ptrs[4];
	size_t i;

	assert_true(n <= 4);
	for (i = 0; i < n; i++)
		ptrs[i] = &qs[i];
	return proportion_compute_ptrs(ptrs, n, total);
}

static void run_proportion(struct sched_queue_info *qs, size_t n, double cpu)
{
	struct vc_resource total;

	sched_fixture_res(&total, cpu * 1000, 0, 0);
	assert_int_equal(compute(qs, n, &total), 0);
	vc_resource_release(&total);
}
static void release_queues(struct sched_queue_info *qs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sched_queue_release(&qs[i]);
}

static void test_proportion_weights(void **state)
{
	struct sched_queue_info qs[2];

	(void)state;
	/* weights 1:2, both request 10 of 12 → 4 and 8 in one round. */
	queue(&qs[0], "q1", 1, 10, 0, 0);
	queue(&qs[1], "q2", 2, 10, 0, 0);
	run_proportion(qs, 2, 12);
	assert_true(qs[0].deserved.milli_cpu == 4000);
	assert_true(qs[1].deserved.milli_cpu == 8000);
	release_queues(qs, 2);

	/* weights 1:1, requests 2 and 10 → q1 met at 2, q2 gets the rest up to 10. */
	queue(&qs[0], "q1", 1, 2, 0, 0);
	queue(&qs[1], "q2", 1, 10, 0, 0);
	run_proportion(qs, 2, 12);
	assert_true(qs[0].deserved.milli_cpu == 2000);
	assert_true(qs[1].deserved.milli_cpu == 10000);
	release_queues(qs, 2);

	/* Both requests below their half: every queue met in round 1, the loop ends on W == 0. */
	queue(&qs[0], "q1", 1, 2, 0, 0);
	queue(&qs[1], "q2", 1, 3, 0, 0);
	run_proportion(qs, 2, 12);
	assert_true(qs[0].deserved.milli_cpu == 2000);
	assert_true(qs[1].deserved.milli_cpu == 3000);
	release_queues(qs, 2);
}

static void test_proportion_capability(void **state)
{
	struct sched_queue_info qs[2];

	(void)state;
	/* q1 capability 3: 3 | 6, then 3 | 7.5, then 3 | 9 (what q1 could not take flows to q2). */
	queue(&qs[0], "q1", 1, 10, 3, 0);
	queue(&qs[1], "q2", 1, 10, 0, 0);
	run_proportion(qs, 2, 12);
	assert_true(qs[0].real_capability.milli_cpu == 3000);
	assert_true(qs[1].real_capability.milli_cpu == 12000);
	assert_true(qs[0].deserved.milli_cpu == 3000);
	assert_true(qs[1].deserved.milli_cpu == 9000);
	release_queues(qs, 2);
}

static void test_proportion_guarantee(void **state)
{
	struct sched_queue_info qs[3];
	struct harness h;
	struct sched_plugin_slot *s;
	struct sched_queue_info *q1, *q2, *q3;
	struct sched_job_info *j1, *j2;

	(void)state;
	/*
	 * 12 CPU; q1 weight 1 guarantee 4, q2 weight 3, q3 inactive with guarantee 2.
	 * totalGuarantee 6: realCapability q1 = 6 + 4 = 10, q2 = 6.
	 * round 1: q1 = max(3, 4) = 4, q2 = min(9, 6) = 6, remaining 2;
	 * round 2: q1 = 4.5, q2 unchanged (met), remaining 1.5; round 3: q1 = 6, remaining 0.
	 */
	queue(&qs[0], "q1", 1, 12, 0, 4);
	queue(&qs[1], "q2", 3, 12, 0, 0);
	queue(&qs[2], "q3", 1, 0, 0, 2);
	qs[0].allocated.milli_cpu = 3000;
	qs[1].allocated.milli_cpu = 6000;
	run_proportion(qs, 3, 12);
	assert_true(qs[0].real_capability.milli_cpu == 10000);
	assert_true(qs[1].real_capability.milli_cpu == 6000);
	assert_true(qs[0].deserved.milli_cpu == 6000);
	assert_true(qs[1].deserved.milli_cpu == 6000);
	assert_true(qs[2].deserved.milli_cpu == 0);
	assert_true(qs[0].share == 0.5);
	assert_true(qs[1].share == 1.0);
	release_queues(qs, 3);

	/*
	 * The same queues in a session (allocated and request from the jobs' tasks): the shares,
	 * Overused and QueueOrder as the proportion plugin's callbacks see them.
	 */
	h_init(&h);
	h_node(&h, "n1", 12000, 0, 0);
	q1 = h_queue(&h, "q1", 1, 4);
	q2 = h_queue(&h, "q2", 3, 0);
	q3 = h_queue(&h, "q3", 1, 2);
	j1 = h_job(&h, "j1", "q1", 1);
	j2 = h_job(&h, "j2", "q2", 1);
	add_task(j1, "j1-0", 3000, 0, 0, SCHED_TASK_RUNNING, h.snap.nodes[0]);
	add_task(j1, "j1-1", 9000, 0, 0, SCHED_TASK_PENDING, NULL);
	add_task(j2, "j2-0", 6000, 0, 0, SCHED_TASK_RUNNING, h.snap.nodes[0]);
	add_task(j2, "j2-1", 6000, 0, 0, SCHED_TASK_PENDING, NULL);
	s = h_open(&h, "proportion", NULL);
	assert_true(q1->real_capability.milli_cpu == 10000);
	assert_true(q2->real_capability.milli_cpu == 6000);
	assert_true(q1->deserved.milli_cpu == 6000);
	assert_true(q2->deserved.milli_cpu == 6000);
	assert_true(q3->deserved.milli_cpu == 0);
	assert_true(s->cb.overused(s->state, h_q(&h, q2)));
	assert_false(s->cb.overused(s->state, h_q(&h, q1)));
	assert_true(s->cb.queue_order(s->state, h_q(&h, q1), h_q(&h, q2)) < 0);
	q2->priority = 1;
	assert_true(s->cb.queue_order(s->state, h_q(&h, q1), h_q(&h, q2)) > 0);
	h_close(&h);
	assert_true(q1->share == 0.5);
	assert_true(q2->share == 1.0);
	h_release(&h);

	/*
	 * A guarantee above the request still sets deserved (max after the request bound):
	 * q1 guarantee 8 request 2 → 8; q2 is held to its realCapability 12 − 8 = 4.
	 */
	queue(&qs[0], "q1", 1, 2, 0, 8);
	queue(&qs[1], "q2", 1, 12, 0, 0);
	run_proportion(qs, 2, 12);
	assert_true(qs[0].deserved.milli_cpu == 8000);
	assert_true(qs[1].real_capability.milli_cpu == 4000);
	assert_true(qs[1].deserved.milli_cpu == 4000);
	release_queues(qs, 2);
}

static void test_proportion_allocatable(void **state)
{
	struct harness h;
	struct sched_plugin_slot *s;
	struct sched_queue_info *q;
	struct sched_job_info *j, *x;
	struct sched_task_info *both, *gpu_only, *cpu_only;

	(void)state;
	/*
	 * 8 CPU and 8 GPU; the queue asks 8 CPU and 4 GPU (7 and 3 allocated, one task asking 1
	 * and 1 pending), so deserved is 8 CPU, 4 GPU. The other probes belong to a job whose
	 * queue is not in the snapshot (they do not add to the queue's request).
	 */
	h_init(&h);
	h_node(&h, "n1", 8000, 0, 8000);
	q = h_queue(&h, "q", 1, 0);
	j = h_job(&h, "j", "q", 1);
	x = h_job(&h, "x", "elsewhere", 1);
	add_task(j, "j-0", 7000, 0, 3000, SCHED_TASK_RUNNING, h.snap.nodes[0]);
	both = add_task(j, "j-1", 1000, 0, 1000, SCHED_TASK_PENDING, NULL);
	gpu_only = add_task(x, "x-0", 0, 0, 2000, SCHED_TASK_PENDING, NULL);
	cpu_only = add_task(x, "x-1", 1000, 0, 0, SCHED_TASK_PENDING, NULL);
	s = h_open(&h, "proportion", NULL);
	assert_true(q->deserved.milli_cpu == 8000 && vc_resource_get(&q->deserved, GPU) == 4000);
	assert_true(
		s->cb.allocatable(s->state, h_q(&h, q), h_t(&h, both))); /* exactly at deserved */
	assert_false(s->cb.allocatable(s->state, h_q(&h, q),
				       h_t(&h, gpu_only))); /* GPU above, cpu not asked */
	q->state = VC_QUEUE_CLOSED;
	assert_false(s->cb.allocatable(s->state, h_q(&h, q), h_t(&h, cpu_only)));
	h_close(&h);
	h_release(&h);
}

static void test_proportion_alloc_failures(void **state)
{
	int n, rc;

	(void)state;
	for (n = 0;; n++) {
		struct sched_queue_info qs[2];
		struct vc_resource total;

		queue(&qs[0], "q1", 1, 10, 3, 1);
		queue(&qs[1], "q2", 1, 10, 0, 0);
		assert_int_equal(vc_resource_set_scalar(&qs[1].request, GPU, 2000), 0);
		sched_fixture_res(&total, 12000, 0, 4000);
		vc_alloc_fail_after(n);
		rc = compute(qs, 2, &total);
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_true(qs[0].deserved.milli_cpu == 3000);
			assert_true(qs[1].deserved.milli_cpu == 9000);
			assert_true(vc_resource_get(&qs[1].deserved, GPU) == 2000);
		}
		vc_resource_release(&total);
		release_queues(qs, 2);
		if (rc == 0)
			break;
		assert_int_equal(rc, VC_ENOMEM);
	}
	assert_true(n > 3);
}

/* ---- drf ------------------------------------------------------------------------------------- */

static void test_drf_shares(void **state)
{
	struct harness h;
	struct sched_plugin_slot *s;
	struct sched_node_info *n;
	struct sched_job_info *a, *b;
	const double alloc[3] = { 2000, 8 * GIB, 0 }, zero[3] = { 0, 0, 0 };

	(void)state;
	h_init(&h);
	n = h_node(&h, "n1", 10000, 20 * GIB, 4000);
	a = h_job(&h, "a", NULL, 1);
	b = h_job(&h, "b", NULL, 1);
	add_task(a, "a-0", 2000, 8 * GIB, 0, SCHED_TASK_RUNNING, n);
	add_task(a, "a-1", 5000, 0, 0, SCHED_TASK_PENDING, NULL); /* not allocated: no share */
	add_task(b, "b-0", 1000, GIB, 1000, SCHED_TASK_BOUND, n);
	s = h_open(&h, "drf", NULL);
	assert_true(s->cb.job_order(s->state, h_j(&h, b), h_j(&h, a)) < 0);
	assert_true(s->cb.job_order(s->state, h_j(&h, a), h_j(&h, b)) > 0);
	assert_int_equal(s->cb.job_order(s->state, h_j(&h, a), h_j(&h, a)), 0);
	h_close(&h); /* leaves the shares in the model */
	assert_true(a->share == 0.4);
	assert_true(b->share == 0.25);
	h_release(&h);
	/* A dimension missing from the total does not count; a zero total gives 0. */
	assert_true(drf_dense_share(3, alloc, zero) == 0);
	assert_true(sched_share(1, 0) == 1 && sched_share(0, 0) == 0);
}

/* ---- binpack --------------------------------------------------------------------------------- */

#define BINPACK_WEIGHT_2 "      binpack.weight: 2\n"
#define BINPACK_GPU_23                              \
	"      binpack.resources: nvidia.com/gpu\n" \
	"      binpack.resources.nvidia.com/gpu: 23\n"

static void test_binpack_scores(void **state)
{
	struct harness h;
	struct sched_job_info *j;
	struct sched_node_info *n1, *n2, *n3;
	struct sched_task_info *t, *g, *big;

	(void)state;
	h_init(&h);
	j = h_job(&h, "j", NULL, 1);
	n1 = h_node(&h, "n1", 2000, 4 * GIB, 0);
	n2 = h_node(&h, "n2", 4000, 16 * GIB, 0);
	n3 = h_node(&h, "n3", 4000, 16 * GIB, 4000);
	add_task(j, "used", 1000, GIB, 0, SCHED_TASK_RUNNING, n1);
	t = add_task(j, "t", 1000, GIB, 0, SCHED_TASK_PENDING, NULL);
	g = add_task(j, "g", 2000, 10 * GIB, 2000, SCHED_TASK_PENDING, NULL);
	big = add_task(j, "big", 2000, GIB, 0, SCHED_TASK_PENDING, NULL);
	assert_true(h_score(&h, "binpack", NULL, t, n1) == 75.0);
	assert_true(h_score(&h, "binpack", NULL, t, n2) == 15.625);
	assert_true(h_score(&h, "binpack", BINPACK_WEIGHT_2, t, n2) == 31.25);
	assert_true(fabs(h_score(&h, "binpack", BINPACK_GPU_23, g, n3) - 50.5) < 1e-9);
	/* The GPU has no weight without binpack.resources: (0.5 + 0.625) / 2 × 100. */
	assert_true(h_score(&h, "binpack", NULL, g, n3) == 56.25);
	/* A node without the GPU contributes 0 for it but its weight still counts. */
	assert_true(fabs(h_score(&h, "binpack", BINPACK_GPU_23, g, n2) - 4.5) < 1e-9);
	/* Over capacity on any dimension: score 0. */
	assert_true(h_score(&h, "binpack", BINPACK_GPU_23, big, n1) == 0);
	h_release(&h);
}

/* ---- nodeorder ------------------------------------------------------------------------------- */

/* One scorer alone (weight 1, the others 0), or mostrequested at weight 2 with the defaults. */
#define NO_LEAST                                                          \
	"      leastrequested.weight: 1\n      mostrequested.weight: 0\n" \
	"      balancedresource.weight: 0\n"
#define NO_MOST                                                           \
	"      leastrequested.weight: 0\n      mostrequested.weight: 1\n" \
	"      balancedresource.weight: 0\n"
#define NO_BALANCED                                                       \
	"      leastrequested.weight: 0\n      mostrequested.weight: 0\n" \
	"      balancedresource.weight: 1\n"
#define NO_MOST_2 "      mostrequested.weight: 2\n"

static void test_nodeorder_scores(void **state)
{
	struct harness h;
	struct sched_job_info *j;
	struct sched_node_info *n1, *n2, *n3;
	struct sched_task_info *t, *be, *g, *big;

	(void)state;
	h_init(&h);
	j = h_job(&h, "j", NULL, 1);
	n1 = h_node(&h, "n1", 4000, 8 * GIB, 0);
	n2 = h_node(&h, "n2", 1000, GIB, 0);
	n3 = h_node(&h, "n3", 4000, 8 * GIB, 4000);
	add_task(j, "used", 1000, 2 * GIB, 0, SCHED_TASK_RUNNING, n1);
	add_task(j, "pipe", 3000, 6 * GIB, 0, SCHED_TASK_PIPELINED, n1); /* not counted */
	t = add_task(j, "t", 1000, 2 * GIB, 0, SCHED_TASK_PENDING, NULL);
	be = add_task(j, "be", 0, 0, 0, SCHED_TASK_PENDING, NULL);
	big = add_task(j, "big", 2000, 512 * MIB, 0, SCHED_TASK_PENDING, NULL);
	g = add_task(j, "g", 1000, 2 * GIB, 4000, SCHED_TASK_PENDING, NULL);
	assert_true(h_score(&h, "nodeorder", NO_LEAST, t, n1) == 50);
	assert_true(h_score(&h, "nodeorder", NO_MOST, t, n1) == 50);
	assert_true(h_score(&h, "nodeorder", NO_BALANCED, t, n1) == 100);
	assert_true(h_score(&h, "nodeorder", NULL, t, n1) == 150);
	/* A request-less task counts as 100m / 200 MiB: cpu 90, memory 80 (82400 / 1024). */
	assert_true(h_score(&h, "nodeorder", NO_LEAST, be, n2) == 85);
	assert_true(h_score(&h, "nodeorder", NO_MOST, be, n2) == 14);
	/* fractions 0.1 and 0.1953125: (1 − 0.04765625) × 100 = 95.23 → 95. */
	assert_true(h_score(&h, "nodeorder", NO_BALANCED, be, n2) == 95);
	assert_true(h_score(&h, "nodeorder", NO_MOST_2, be, n2) == 85 + 2 * 14 + 95);
	/* Over capacity: least 0 for that dimension, most capped at 100. */
	assert_true(h_score(&h, "nodeorder", NO_LEAST, big, n2) == 25);
	assert_true(h_score(&h, "nodeorder", NO_MOST, big, n2) == 75);
	/* The GPU joins balanced when requested: fractions 0.25, 0.25, 1 → std 0.3536 → 64. */
	assert_true(h_score(&h, "nodeorder", NO_BALANCED, g, n3) == 64);
	h_release(&h);
}

/* ---- predicates ------------------------------------------------------------------------------ */

struct fixture {
	json_t *objs[8];
	struct vc_pod pods[8];
	size_t npods;
	json_t *node_obj;
	struct vc_node view;
	struct harness h;
	struct sched_node_info *node;
	struct sched_job_info *job;
};

/* A node from JSON (labels, taints, unschedulable); allocatable 4 CPU, 8 Gi, 2 GPU, 110 pods. */
static void fixture_node(struct fixture *f, const char *meta, const char *spec)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "{\"metadata\":%s,\"spec\":%s,\"status\":{\"allocatable\":{\"cpu\":\"4\","
		 "\"memory\":\"8Gi\",\"nvidia.com/gpu\":\"2\",\"pods\":\"110\"}}}",
		 meta, spec);
	f->node_obj = json_loads(text, 0, NULL);
	assert_non_null(f->node_obj);
	assert_int_equal(vc_node_view(f->node_obj, &f->view, NULL), 0);
	h_init(&f->h);
	f->node = vc_malloc(sizeof(*f->node));
	assert_non_null(f->node);
	assert_int_equal(sched_node_from_view(f->node, &f->view), 0);
	assert_int_equal(sched_snapshot_add_node(&f->h.snap, f->node), 0);
	f->job = h_job(&f->h, "j", NULL, 1);
}

/* A task of the pod whose spec is given (containers default to one asking 1 CPU). */
static struct sched_task_info *fixture_task(struct fixture *f, const char *name, const char *spec,
					    bool on_node)
{
	char text[2048];
	struct sched_task_info *t;
	struct vc_pod *pod = &f->pods[f->npods];

	assert_true(f->npods < 8);
	snprintf(text, sizeof(text),
		 "{\"metadata\":{\"namespace\":\"ns\",\"name\":\"%s\"},"
		 "\"spec\":%s}",
		 name, spec);
	f->objs[f->npods] = json_loads(text, 0, NULL);
	assert_non_null(f->objs[f->npods]);
	assert_int_equal(vc_pod_view(f->objs[f->npods], pod, NULL), 0);
	f->npods++;
	t = vc_malloc(sizeof(*t));
	assert_non_null(t);
	assert_int_equal(sched_task_from_pod(t, pod, NULL), 0);
	assert_int_equal(sched_job_add_task(f->job, t), 0);
	if (on_node) {
		t->status = SCHED_TASK_RUNNING;
		assert_int_equal(sched_task_set_node(t, f->node->name), 0);
		assert_int_equal(sched_node_add_task(f->node, t), 0);
	}
	return t;
}

static void fixture_release(struct fixture *f)
{
	size_t i;

	h_release(&f->h);
	vc_node_view_release(&f->view);
	json_decref(f->node_obj);
	for (i = 0; i < f->npods; i++) {
		vc_pod_view_release(&f->pods[i]);
		json_decref(f->objs[i]);
	}
}

/*
 * The allocate action's node search for t with the predicates plugin (resource fit on
 * FutureIdle, then the plugin's filters): "" when the node fits, else the task's fit error.
 */
static const char *search(struct fixture *f, struct sched_task_info *t)
{
	struct harness *h = &f->h;
	struct sched_ssn_task *st;
	size_t n;

	h_open(h, "predicates", NULL);
	st = h_t(h, t);
	vc_buf_reset(&h->text);
	assert_int_equal(sched_predicate_nodes(&h->ssn, st, SCHED_SEARCH_ALLOCATE, false, &n), 0);
	if (n == 0) {
		assert_non_null(st->fit);
		assert_int_equal(sched_fit_format(&h->ssn, st->fit, &h->text), 0);
	}
	h_close(h);
	return vc_buf_str(&h->text);
}

#define C1		  "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]"
#define FIT_ERROR(reason) "0/1 nodes are unavailable: 1 " reason "."

static void test_pred_resource_fit(void **state)
{
	struct fixture f = { 0 };
	struct sched_task_info *t;

	(void)state;
	fixture_node(&f, "{\"name\":\"n1\"}", "{}");
	fixture_task(&f, "old", "{" C1 "}", true);
	t = fixture_task(&f, "new",
			 "{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
			 "{\"cpu\":\"3\",\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"2\"}}}]}",
			 false);
	assert_string_equal(search(&f, t), "");
	t = fixture_task(&f, "big",
			 "{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
			 "{\"cpu\":\"3100m\",\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"3\"}}}]}",
			 false);
	assert_string_equal(search(&f, t), FIT_ERROR("Insufficient cpu"));
	/* Only the GPU short: memory fits exactly up to the 0.1 tolerance. */
	t = fixture_task(&f, "gpu",
			 "{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
			 "{\"memory\":\"8Gi\",\"nvidia.com/gpu\":\"3\"}}}]}",
			 false);
	assert_string_equal(search(&f, t), FIT_ERROR("Insufficient nvidia.com/gpu"));
	fixture_release(&f);
}

static void test_pred_pod_count(void **state)
{
	struct fixture f = { 0 };
	struct sched_task_info *t;

	(void)state;
	fixture_node(&f, "{\"name\":\"n1\"}", "{}");
	t = fixture_task(&f, "a", "{" C1 "}", false);
	f.node->allocatable.max_task_num = 1;
	assert_string_equal(search(&f, t), "");
	fixture_task(&f, "b", "{" C1 "}", true);
	assert_string_equal(search(&f, t), FIT_ERROR("node(s) pod number exceeded"));
	assert_string_equal(search(&f, t), FIT_ERROR(PRED_REASON_POD_NUMBER));
	fixture_release(&f);
}

static void test_pred_unschedulable(void **state)
{
	struct fixture f = { 0 };
	struct sched_task_info *t, *tol;
	struct pred_result r;

	(void)state;
	fixture_node(&f, "{\"name\":\"n1\"}", "{\"unschedulable\":true}");
	t = fixture_task(&f, "a", "{" C1 "}", false);
	tol = fixture_task(&f, "b",
			   "{" C1 ",\"tolerations\":[{\"key\":\"node.kubernetes.io/unschedulable\","
			   "\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]}",
			   false);
	pred_node_unschedulable(t, f.node, &r);
	assert_false(r.fit);
	assert_string_equal(r.reason, "node(s) were unschedulable");
	pred_node_unschedulable(tol, f.node, &r);
	assert_true(r.fit);
	assert_string_equal(search(&f, t), FIT_ERROR(PRED_REASON_UNSCHEDULABLE));
	assert_string_equal(search(&f, tol), "");
	fixture_release(&f);
}
static void test_pred_node_affinity(void **state)
{
	struct fixture f = { 0 };
	struct sched_task_info *sel_ok, *sel_bad, *sel_missing, *aff_ok, *aff_bad, *aff_bad_op;
	struct pred_result r;

	(void)state;
	fixture_node(&f, "{\"name\":\"n1\",\"labels\":{\"zone\":\"a\",\"gpu\":\"v100\"}}", "{}");
	sel_ok = fixture_task(&f, "s1", "{" C1 ",\"nodeSelector\":{\"zone\":\"a\"}}", false);
	sel_bad = fixture_task(&f, "s2", "{" C1 ",\"nodeSelector\":{\"zone\":\"b\"}}", false);
	sel_missing = fixture_task(&f, "s3", "{" C1 ",\"nodeSelector\":{\"rack\":\"1\"}}", false);
	aff_ok = fixture_task(
		&f, "a1",
		"{" C1 ",\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuring"
		"Execution\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"gpu\","
		"\"operator\":\"In\",\"values\":[\"a100\"]}]},{\"matchExpressions\":[{\"key\":"
		"\"gpu\",\"operator\":\"In\",\"values\":[\"v100\",\"t4\"]}]}]}}}}",
		false);
	aff_bad = fixture_task(
		&f, "a2",
		"{" C1 ",\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuring"
		"Execution\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"gpu\","
		"\"operator\":\"NotIn\",\"values\":[\"v100\"]}]}]}}}}",
		false);
	aff_bad_op = fixture_task(
		&f, "a3",
		"{" C1 ",\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuring"
		"Execution\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"gpu\","
		"\"operator\":\"Foo\",\"values\":[\"v100\"]}]}]}}}}",
		false);
	assert_int_equal(pred_node_affinity(sel_ok, f.node, &r), 0);
	assert_true(r.fit);
	assert_int_equal(pred_node_affinity(sel_bad, f.node, &r), 0);
	assert_false(r.fit);
	assert_string_equal(r.reason, "node(s) didn't match Pod's node affinity/selector");
	assert_int_equal(pred_node_affinity(sel_missing, f.node, &r), 0);
	assert_false(r.fit);
	assert_int_equal(pred_node_affinity(aff_ok, f.node, &r), 0);
	assert_true(r.fit);
	assert_int_equal(pred_node_affinity(aff_bad, f.node, &r), 0);
	assert_false(r.fit);
	assert_string_equal(r.reason, PRED_REASON_NODE_AFFINITY);
	assert_int_equal(pred_node_affinity(aff_bad_op, f.node, &r), 0);
	assert_false(r.fit);
	assert_string_equal(search(&f, aff_bad), FIT_ERROR(PRED_REASON_NODE_AFFINITY));
	fixture_release(&f);
}

static void test_pred_node_ports(void **state)
{
	struct fixture f = { 0 };
	struct sched_task_info *same, *other, *udp, *ip_a, *ip_b;
	struct pred_result r;

	(void)state;
	fixture_node(&f, "{\"name\":\"n1\"}", "{}");
	fixture_task(&f, "old",
		     "{\"containers\":[{\"name\":\"c\",\"ports\":[{\"containerPort\":80,"
		     "\"hostPort\":8080}]},{\"name\":\"d\",\"ports\":[{\"containerPort\":90,"
		     "\"hostPort\":9090,\"hostIP\":\"10.0.0.1\"}]}]}",
		     true);
	same = fixture_task(&f, "same",
			    "{\"initContainers\":[{\"name\":\"i\",\"ports\":[{\"containerPort\":1,"
			    "\"hostPort\":8080,\"protocol\":\"TCP\"}]}],\"containers\":[]}",
			    false);
	other = fixture_task(&f, "other",
			     "{\"containers\":[{\"name\":\"c\",\"ports\":[{\"containerPort\":80,"
			     "\"hostPort\":8081},{\"containerPort\":81}]}]}",
			     false);
	udp = fixture_task(&f, "udp",
			   "{\"containers\":[{\"name\":\"c\",\"ports\":[{\"containerPort\":80,"
			   "\"hostPort\":8080,\"protocol\":\"UDP\"}]}]}",
			   false);
	ip_a = fixture_task(&f, "ipa",
			    "{\"containers\":[{\"name\":\"c\",\"ports\":[{\"containerPort\":90,"
			    "\"hostPort\":9090,\"hostIP\":\"10.0.0.2\"}]}]}",
			    false);
	ip_b = fixture_task(&f, "ipb",
			    "{\"containers\":[{\"name\":\"c\",\"ports\":[{\"containerPort\":90,"
			    "\"hostPort\":9090}]}]}",
			    false);
	pred_node_ports(same, f.node, &r);
	assert_false(r.fit);
	assert_string_equal(r.reason, "node(s) didn't have free ports for the requested pod ports");
	pred_node_ports(other, f.node, &r);
	assert_true(r.fit);
	pred_node_ports(udp, f.node, &r);
	assert_true(r.fit);
	pred_node_ports(ip_a, f.node, &r); /* different specific IPs */
	assert_true(r.fit);
	pred_node_ports(ip_b, f.node, &r); /* 0.0.0.0 conflicts with any IP */
	assert_false(r.fit);
	assert_string_equal(search(&f, same), FIT_ERROR(PRED_REASON_NODE_PORTS));
	fixture_release(&f);
}

static void test_pred_taints(void **state)
{
	struct fixture f = { 0 };
	struct sched_task_info *none, *eq, *exists_key, *exists_all, *wrong_value, *wrong_effect;
	struct pred_result r;

	(void)state;
	fixture_node(
		&f, "{\"name\":\"n1\"}",
		"{\"taints\":[{\"key\":\"soft\",\"value\":\"x\",\"effect\":\"PreferNoSchedule\"},"
		"{\"key\":\"gpu\",\"value\":\"true\",\"effect\":\"NoSchedule\"},"
		"{\"key\":\"drain\",\"effect\":\"NoExecute\"}]}");
	none = fixture_task(&f, "none", "{" C1 "}", false);
	eq = fixture_task(&f, "eq",
			  "{" C1 ",\"tolerations\":[{\"key\":\"gpu\",\"operator\":\"Equal\","
			  "\"value\":\"true\",\"effect\":\"NoSchedule\"},{\"key\":\"drain\","
			  "\"operator\":\"Exists\"}]}",
			  false);
	exists_key = fixture_task(&f, "ek",
				  "{" C1 ",\"tolerations\":[{\"key\":\"gpu\",\"operator\":"
				  "\"Exists\"}]}",
				  false);
	exists_all = fixture_task(&f, "ea", "{" C1 ",\"tolerations\":[{\"operator\":\"Exists\"}]}",
				  false);
	wrong_value = fixture_task(
		&f, "wv", "{" C1 ",\"tolerations\":[{\"key\":\"gpu\",\"value\":\"false\"}]}",
		false);
	wrong_effect = fixture_task(&f, "we",
				    "{" C1 ",\"tolerations\":[{\"key\":\"gpu\",\"operator\":"
				    "\"Exists\",\"effect\":\"NoExecute\"}]}",
				    false);
	pred_taint_toleration(none, f.node, &r);
	assert_false(r.fit);
	assert_string_equal(r.reason, "node(s) had untolerated taint {gpu: true}");
	pred_taint_toleration(eq, f.node, &r);
	assert_true(r.fit);
	pred_taint_toleration(exists_key, f.node, &r);
	assert_false(r.fit);
	assert_string_equal(r.reason, "node(s) had untolerated taint {drain: }");
	pred_taint_toleration(exists_all, f.node, &r);
	assert_true(r.fit);
	pred_taint_toleration(wrong_value, f.node, &r);
	assert_string_equal(r.reason, "node(s) had untolerated taint {gpu: true}");
	pred_taint_toleration(wrong_effect, f.node, &r);
	assert_string_equal(r.reason, "node(s) had untolerated taint {gpu: true}");
	assert_string_equal(search(&f, none),
			    FIT_ERROR("node(s) had untolerated taint {gpu: true}"));
	assert_string_equal(search(&f, eq), "");
	fixture_release(&f);
}

/* ---- gang and priority ----------------------------------------------------------------------- */

static struct sched_task_info *role_task(struct sched_job_info *j, const char *name,
					 const char *role, double cpu, enum sched_task_status s)
{
	struct sched_task_info *t = add_task(j, name, cpu, 0, 0, s, NULL);

	vc_free(t->role);
	t->role = vc_strdup(role);
	assert_non_null(t->role);
	return t;
}

/* How many of j's tasks gang's reclaim filter keeps as victims (its surplus over minMember). */
static size_t gang_allowance(struct harness *h, struct sched_plugin_slot *s,
			     struct sched_job_info *j, struct sched_task_info *preemptor)
{
	struct sched_ssn_task *cands[8];
	bool keep[8];
	size_t i, n = 0;

	assert_true(j->ntasks <= 8);
	for (i = 0; i < j->ntasks; i++) {
		cands[i] = h_t(h, j->tasks[i]);
		keep[i] = true;
	}
	s->cb.reclaimable(s->state, h_t(h, preemptor), cands, j->ntasks, keep);
	for (i = 0; i < j->ntasks; i++)
		n += keep[i];
	return n;
}

static void test_gang_ready_valid(void **state)
{
	struct harness h;
	struct sched_plugin_slot *s;
	struct sched_job_info *j, *k;
	struct gang_validity v;
	struct sched_task_info *w1, *k0;
	json_t *mtm;

	(void)state;
	h_init(&h);
	j = h_job(&h, "tf", NULL, 4);
	k = h_job(&h, "k", NULL, 2);
	k0 = add_task(k, "k-0", 1000, 0, 0, SCHED_TASK_PENDING, NULL);
	role_task(j, "tf-ps-0", "ps", 1000, SCHED_TASK_ALLOCATED);
	w1 = role_task(j, "tf-worker-0", "worker", 1000, SCHED_TASK_BOUND);
	role_task(j, "tf-worker-1", "worker", 1000, SCHED_TASK_PIPELINED);
	gang_job_valid(j, &v);
	assert_false(v.valid);
	assert_string_equal(v.reason, "NotEnoughTasks");
	assert_string_equal(v.message,
			    "Not enough valid tasks for gang-scheduling, valid: 3, min: 4");
	role_task(j, "tf-worker-2", "worker", 0, SCHED_TASK_PENDING); /* best-effort */
	role_task(j, "tf-worker-3", "worker", 0, SCHED_TASK_FAILED);  /* not valid */
	gang_job_valid(j, &v);
	assert_true(v.valid);
	assert_null(v.reason);
	/* Ready 2 + best-effort 1 = 3 < 4; with the pipelined one 4. */
	s = h_open(&h, "gang", NULL);
	assert_false(s->cb.job_ready(s->state, h_j(&h, j)));
	assert_int_equal(s->cb.job_pipelined(s->state, h_j(&h, j)), SCHED_PERMIT);
	assert_true(s->cb.job_starving(s->state, h_j(&h, j))); /* waiting 1 + ready 2 = 3 < 4 */
	assert_int_equal(gang_allowance(&h, s, j, k0), 0);
	h_close(&h);

	/* minTaskMember: ps 2 is more than the one ps → invalid, not ready. */
	mtm = json_pack("{s:i, s:i}", "ps", 2, "worker", 1);
	assert_non_null(mtm);
	j->min_task_member = mtm;
	gang_job_valid(j, &v);
	assert_string_equal(v.reason, "NotEnoughPodsOfTask");
	assert_string_equal(v.message, "Not enough valid pods of each task for gang-scheduling");
	s = h_open(&h, "gang", NULL);
	assert_int_equal(s->cb.job_pipelined(s->state, h_j(&h, j)), SCHED_REJECT);
	h_close(&h);
	/* minMember 2 < Σ minTaskMember 3: the per-role checks are skipped. */
	j->min_member = 2;
	gang_job_valid(j, &v);
	assert_true(v.valid);
	s = h_open(&h, "gang", NULL);
	assert_true(s->cb.job_ready(s->state, h_j(&h, j)));
	assert_int_equal(gang_allowance(&h, s, j, k0), 0);
	h_close(&h);
	assert_int_equal(sched_job_set_status(j, w1, SCHED_TASK_RUNNING), 0);
	j->min_member = 1;
	s = h_open(&h, "gang", NULL);
	assert_int_equal(gang_allowance(&h, s, j, k0), 1);
	h_close(&h);
	j->min_task_member = NULL;
	json_decref(mtm);

	/* Order: not-ready before ready. */
	s = h_open(&h, "gang", NULL);
	assert_true(s->cb.job_order(s->state, h_j(&h, k), h_j(&h, j)) < 0);
	assert_true(s->cb.job_order(s->state, h_j(&h, j), h_j(&h, k)) > 0);
	assert_int_equal(s->cb.job_order(s->state, h_j(&h, k), h_j(&h, k)), 0);
	assert_true(s->cb.job_starving(s->state, h_j(&h, k)));
	h_close(&h);
	h_release(&h);
}

static void test_priority(void **state)
{
	struct harness h;
	struct sched_plugin_slot *s;
	struct sched_job_info *hi, *lo;
	struct sched_task_info *h0, *h1, *l0;

	(void)state;
	h_init(&h);
	hi = h_job(&h, "hi", NULL, 1);
	lo = h_job(&h, "lo", NULL, 1);
	hi->priority = 100;
	lo->priority = 10;
	h0 = add_task(hi, "hi-0", 1000, 0, 0, SCHED_TASK_PENDING, NULL);
	h1 = add_task(hi, "hi-1", 1000, 0, 0, SCHED_TASK_RUNNING, NULL);
	l0 = add_task(lo, "lo-0", 1000, 0, 0, SCHED_TASK_RUNNING, NULL);
	h0->priority = 5;
	l0->priority = 50; /* task priority does not matter across jobs */
	s = h_open(&h, "priority", NULL);
	assert_true(s->cb.job_order(s->state, h_j(&h, hi), h_j(&h, lo)) < 0);
	assert_true(s->cb.job_order(s->state, h_j(&h, lo), h_j(&h, hi)) > 0);
	assert_int_equal(s->cb.job_order(s->state, h_j(&h, hi), h_j(&h, hi)), 0);
	assert_true(victim(s->cb.preemptable, s->state, h_t(&h, h0), h_t(&h, l0)));
	assert_false(victim(s->cb.preemptable, s->state, h_t(&h, l0), h_t(&h, h1)));
	/* Same job: by task priority (h1 has the default 1). */
	assert_true(victim(s->cb.preemptable, s->state, h_t(&h, h0), h_t(&h, h1)));
	assert_false(victim(s->cb.preemptable, s->state, h_t(&h, h1), h_t(&h, h0)));
	assert_true(s->cb.task_order(s->state, h_t(&h, h0), h_t(&h, h1)) < 0);
	assert_int_equal(s->cb.task_order(s->state, h_t(&h, h1), h_t(&h, h1)), 0);
	assert_true(s->cb.job_starving(s->state, h_j(&h, hi)));
	assert_false(s->cb.job_starving(s->state, h_j(&h, lo)));
	h_close(&h);
	h_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_job_node_accounting),
		cmocka_unit_test(test_model_task_from_pod),
		cmocka_unit_test(test_model_alloc_failures),
		cmocka_unit_test(test_proportion_weights),
		cmocka_unit_test(test_proportion_capability),
		cmocka_unit_test(test_proportion_guarantee),
		cmocka_unit_test(test_proportion_allocatable),
		cmocka_unit_test(test_proportion_alloc_failures),
		cmocka_unit_test(test_drf_shares),
		cmocka_unit_test(test_binpack_scores),
		cmocka_unit_test(test_nodeorder_scores),
		cmocka_unit_test(test_pred_resource_fit),
		cmocka_unit_test(test_pred_pod_count),
		cmocka_unit_test(test_pred_unschedulable),
		cmocka_unit_test(test_pred_node_affinity),
		cmocka_unit_test(test_pred_node_ports),
		cmocka_unit_test(test_pred_taints),
		cmocka_unit_test(test_gang_ready_valid),
		cmocka_unit_test(test_priority),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
