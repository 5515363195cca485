/*
 * Unit tests for one scheduling cycle (docs/volcano/scheduler.md §1.2-§1.8, §3, §6): snapshots
 * built in code, sched_session_run, exact binds, evictions, PodGroup statuses and messages.
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>

#include "support/sched_fixture.h"

#include "scheduler/sched_session.h"
#include "vc_alloc.h"
#include "vc_time.h"

#define GIB (1024.0 * 1024 * 1024)
#define GPU SCHED_FIXTURE_GPU

/* ---- snapshot builders ------------------------------------------------------------------------
 */

static struct sched_node_info *add_node(struct sched_snapshot *s, const char *name, double cpu,
					double gpus, int64_t pods)
{
	struct sched_node_info *n = vc_malloc(sizeof(*n));
	struct vc_resource r;

	assert_non_null(n);
	sched_fixture_res(&r, cpu, 64 * GIB, gpus * 1000);
	r.max_task_num = pods;
	assert_int_equal(sched_node_init(n, name, &r), 0);
	vc_resource_release(&r);
	assert_int_equal(sched_snapshot_add_node(s, n), 0);
	return n;
}

static struct sched_queue_info *add_queue(struct sched_snapshot *s, const char *name,
					  int32_t weight)
{
	struct sched_queue_info *q = vc_malloc(sizeof(*q));

	assert_non_null(q);
	assert_int_equal(sched_queue_init(q, name, weight), 0);
	assert_int_equal(sched_snapshot_add_queue(s, q), 0);
	return q;
}

static struct sched_job_info *add_job(struct sched_snapshot *s, const char *name, const char *queue,
				      int32_t min, enum vc_pg_phase phase)
{
	struct sched_job_info *j = vc_malloc(sizeof(*j));

	assert_non_null(j);
	assert_int_equal(sched_job_init(j, "ns", name, queue, min), 0);
	j->phase = phase;
	assert_int_equal(sched_snapshot_add_job(s, j), 0);
	return j;
}

static void set_min_res(struct sched_job_info *j, double cpu, double gpus)
{
	struct vc_resource r;

	sched_fixture_res(&r, cpu, 0, gpus * 1000);
	assert_int_equal(vc_resource_copy(&j->min_resources, &r), 0);
	vc_resource_release(&r);
}

/* A task of j named "<job>-<i>" (or `name`), asking cpu millicores and whole GPUs. */
static struct sched_task_info *add_task(struct sched_job_info *j, const char *name, double cpu,
					double gpus, enum sched_task_status st, const char *node)
{
	struct sched_task_info *t = vc_malloc(sizeof(*t));
	struct vc_resource r;

	assert_non_null(t);
	sched_fixture_res(&r, cpu, 0, gpus * 1000);
	assert_int_equal(sched_task_init(t, "ns", name, &r), 0);
	vc_resource_release(&r);
	t->status = st;
	if (node)
		assert_int_equal(sched_task_set_node(t, node), 0);
	assert_int_equal(sched_job_add_task(j, t), 0);
	return t;
}

static void add_tasks(struct sched_job_info *j, const char *prefix, int n, double cpu, double gpus,
		      enum sched_task_status st, const char *node)
{
	char name[64];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s-%d", prefix, i);
		add_task(j, name, cpu, gpus, st, node);
	}
}

static void conf_of(struct sched_conf *c, const char *text)
{
	struct vc_error err;

	vc_error_clear(&err);
	if (sched_conf_parse(text, strlen(text), c, &err) != 0)
		fail_msg("conf: %s", err.text);
}

static void run(struct sched_conf *c, struct sched_snapshot *s, struct sched_result *r)
{
	struct vc_error err;

	vc_error_clear(&err);
	assert_int_equal(sched_snapshot_place(s), 0);
	if (sched_session_run(c, s, "uid-1", "2026-01-01T00:00:00Z", 7, r, &err) != 0)
		fail_msg("run: %s", err.text);
}

static size_t binds_of(const struct sched_result *r, const struct sched_job_info *j)
{
	size_t i, n = 0;

	for (i = 0; i < r->nbinds; i++)
		n += r->binds[i].task->job == j;
	return n;
}

static const struct sched_job_result *jr_of(const struct sched_result *r,
					    const struct sched_job_info *j)
{
	size_t i;

	for (i = 0; i < r->njobs; i++)
		if (r->jobs[i].job == j)
			return &r->jobs[i];
	fail_msg("no result for job %s", j->uid);
	return NULL;
}

static const struct sched_task_result *tr_of(const struct sched_result *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->ntasks; i++)
		if (strcmp(r->tasks[i].task->name, name) == 0)
			return &r->tasks[i];
	return NULL;
}

/* The condition of a type in a job result, or NULL. */
static const json_t *cond_of(const struct sched_job_result *jr, const char *type)
{
	size_t i;

	for (i = 0; i < json_array_size(jr->conditions); i++) {
		const json_t *c = json_array_get(jr->conditions, i);

		if (strcmp(json_string_value(json_object_get(c, "type")), type) == 0)
			return c;
	}
	return NULL;
}

static const char *cond_str(const struct sched_job_result *jr, const char *type, const char *key)
{
	const json_t *c = cond_of(jr, type);

	assert_non_null(c);
	return json_string_value(json_object_get(c, key));
}

/* Configurations used below. */
static const char conf_no_proportion[] = "actions: \"enqueue, allocate, backfill\"\n"
					 "tiers:\n"
					 "- plugins:\n"
					 "  - name: priority\n"
					 "  - name: gang\n"
					 "  - name: conformance\n"
					 "- plugins:\n"
					 "  - name: overcommit\n"
					 "  - name: drf\n"
					 "  - name: predicates\n"
					 "  - name: nodeorder\n";

static void conf_default_with(const char *actions, char *buf, size_t len)
{
	snprintf(buf, len, "actions: \"%s\"\n" SCHED_CONF_DEFAULT_TIERS_YAML, actions);
}

/* ---- allocate: gangs ----------------------------------------------------------------------------
 */

static void test_gang_deadlock(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *a, *b;
	const struct sched_job_result *jb;
	const struct sched_task_result *tr;
	const char *want = "4/4 tasks in gang unschedulable: pod group is not ready, 4 Pending, "
			   "4 minAvailable; Pending: 4 Unschedulable. Origin reason is "
			   "train-worker-0: 0/2 nodes are unavailable: 2 Insufficient "
			   "nvidia.com/gpu.";

	(void)state;
	conf_of(&c, conf_no_proportion);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 8000, 2, 110);
	add_node(&s, "n2", 8000, 2, 110);
	add_queue(&s, "default", 1);
	a = add_job(&s, "alpha", "default", 4, VC_PG_PENDING);
	add_tasks(a, "alpha-worker", 4, 1000, 1, SCHED_TASK_PENDING, NULL);
	b = add_job(&s, "train", "default", 4, VC_PG_PENDING);
	add_tasks(b, "train-worker", 4, 1000, 1, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);

	assert_int_equal(binds_of(&r, a), 4);
	assert_int_equal(binds_of(&r, b), 0);
	assert_int_equal(r.nbinds, 4);
	assert_int_equal(r.nevicts, 0);
	jb = jr_of(&r, b);
	assert_string_equal(cond_str(jb, "Unschedulable", "message"), want);
	assert_string_equal(cond_str(jb, "Unschedulable", "reason"), "NotEnoughResources");
	assert_string_equal(cond_str(jb, "Unschedulable", "status"), "True");
	assert_string_equal(cond_str(jb, "Unschedulable", "transitionID"), "uid-1");
	assert_string_equal(cond_str(jb, "Unschedulable", "lastTransitionTime"),
			    "2026-01-01T00:00:00Z");
	assert_null(cond_of(jb, "Scheduled"));
	assert_int_equal(jb->phase, VC_PG_INQUEUE);
	assert_string_equal(jb->event_type, "Warning");
	assert_string_equal(jb->event_reason, "Unschedulable");
	assert_string_equal(jb->event_message,
			    "4/4 tasks in gang unschedulable: pod group is not ready, 4 Pending, "
			    "4 minAvailable; Pending: 4 Unschedulable. Origin reason is "
			    "train-worker-0: 0/2 nodes are unavailable: 2 Insufficient "
			    "nvidia.com/gpu.");
	/* Pods: the one that was tried names the nodes, the others carry the gang's message. */
	tr = tr_of(&r, "train-worker-0");
	assert_non_null(tr);
	assert_string_equal(tr->reason, "Unschedulable");
	assert_string_equal(tr->message,
			    "0/2 nodes are unavailable: 2 Insufficient nvidia.com/gpu.");
	assert_null(tr->nominated_node);
	tr = tr_of(&r, "train-worker-3");
	assert_string_equal(tr->message, want);
	/* The winner: ready, Scheduled condition, still Inqueue until its pods are bound. */
	assert_string_equal(cond_str(jr_of(&r, a), "Scheduled", "reason"),
			    "tasks in gang are ready to be scheduled");
	assert_null(json_object_get(cond_of(jr_of(&r, a), "Scheduled"), "message"));
	assert_null(tr_of(&r, "alpha-worker-0"));
	assert_int_equal(a->tasks[0]->status, SCHED_TASK_BINDING);
	assert_non_null(a->tasks[0]->node_name);
	/* Two per node, queue allocation reported. */
	assert_int_equal(r.nqueues, 1);
	assert_true(vc_resource_get(&r.queues[0].allocated, GPU) == 4000);
	assert_true(r.queues[0].allocated.milli_cpu == 4000);
	assert_true(vc_resource_get(&s.nodes[0]->used, GPU) == 2000);
	assert_true(vc_resource_get(&s.nodes[1]->used, GPU) == 2000);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

static void test_gang_deadlock_default_conf(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *a, *b;

	(void)state;
	assert_int_equal(sched_conf_default(&c), 0);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 8000, 2, 110);
	add_node(&s, "n2", 8000, 2, 110);
	add_queue(&s, "default", 1);
	a = add_job(&s, "alpha", "default", 4, VC_PG_PENDING);
	add_tasks(a, "alpha-worker", 4, 1000, 1, SCHED_TASK_PENDING, NULL);
	b = add_job(&s, "train", "default", 4, VC_PG_PENDING);
	add_tasks(b, "train-worker", 4, 1000, 1, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	assert_int_equal(binds_of(&r, a), 4);
	assert_int_equal(binds_of(&r, b), 0);
	/* The queue reached its deserved share: train was never tried, so no origin. */
	assert_string_equal(cond_str(jr_of(&r, b), "Unschedulable", "message"),
			    "4/4 tasks in gang unschedulable: pod group is not ready, 4 Pending, "
			    "4 minAvailable; Pending: 4 Unschedulable");
	assert_string_equal(tr_of(&r, "train-worker-0")->message,
			    "4/4 tasks in gang unschedulable: pod group is not ready, 4 Pending, "
			    "4 minAvailable; Pending: 4 Unschedulable");
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

static void test_five_groups(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *j[5];
	char name[16];
	int i;

	(void)state;
	assert_int_equal(sched_conf_default(&c), 0);
	assert_int_equal(sched_snapshot_init(&s), 0);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		add_node(&s, name, 16000, 4, 110);
	}
	add_queue(&s, "default", 1);
	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		j[i] = add_job(&s, name, "default", 4, VC_PG_INQUEUE);
		add_tasks(j[i], name, 4, 1000, 1, SCHED_TASK_PENDING, NULL);
	}
	run(&c, &s, &r);
	for (i = 0; i < 4; i++)
		assert_int_equal(binds_of(&r, j[i]), 4);
	assert_int_equal(binds_of(&r, j[4]), 0);
	assert_int_equal(jr_of(&r, j[4])->phase, VC_PG_INQUEUE);
	assert_non_null(cond_of(jr_of(&r, j[4]), "Unschedulable"));
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

static void test_weights_1_3(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *a, *b;

	(void)state;
	assert_int_equal(sched_conf_default(&c), 0);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 64000, 4, 110);
	add_node(&s, "n2", 64000, 4, 110);
	add_queue(&s, "q1", 1);
	add_queue(&s, "q3", 3);
	a = add_job(&s, "a", "q1", 1, VC_PG_INQUEUE);
	add_tasks(a, "a", 8, 100, 1, SCHED_TASK_PENDING, NULL);
	b = add_job(&s, "b", "q3", 1, VC_PG_INQUEUE);
	add_tasks(b, "b", 8, 100, 1, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	assert_int_equal(binds_of(&r, a), 2);
	assert_int_equal(binds_of(&r, b), 6);
	assert_true(vc_resource_get(&r.queues[0].allocated, GPU) == 2000);
	assert_true(vc_resource_get(&r.queues[1].allocated, GPU) == 6000);
	/* Ready jobs with pods left over: Scheduled, and the leftovers' pods say why. */
	assert_non_null(cond_of(jr_of(&r, a), "Scheduled"));
	assert_null(cond_of(jr_of(&r, a), "Unschedulable"));
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

static void test_elastic_one_per_pop(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *a, *b;
	const char *order;
	char got[64] = "";
	size_t i, len = 0;

	(void)state;
	conf_of(&c, conf_no_proportion);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 64000, 6, 110);
	add_queue(&s, "default", 1);
	a = add_job(&s, "a", "default", 2, VC_PG_INQUEUE);
	add_tasks(a, "a", 4, 100, 1, SCHED_TASK_PENDING, NULL);
	b = add_job(&s, "b", "default", 2, VC_PG_INQUEUE);
	add_tasks(b, "b", 4, 100, 1, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	assert_int_equal(binds_of(&r, a), 3);
	assert_int_equal(binds_of(&r, b), 3);
	/* Gangs first (2 + 2), then one elastic pod per pop, alternating by drf share. */
	for (i = 0; i < r.nbinds; i++)
		len += (size_t)snprintf(got + len, sizeof(got) - len, "%s", r.binds[i].task->name);
	order = "a-0a-1b-0b-1a-2b-2";
	assert_string_equal(got, order);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

static void set_min_task_member(struct sched_job_info *j, json_t **holder, const char *text)
{
	*holder = json_loads(text, 0, NULL);
	assert_non_null(*holder);
	j->min_task_member = *holder;
}

static void test_min_task_member(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *j;
	struct sched_task_info *t;
	json_t *mtm;
	const char *roles[4] = { "ps", "worker", "worker", "worker" };
	const char *names[4] = { "job-ps-0", "job-worker-0", "job-worker-1", "job-worker-2" };
	int i, round;

	(void)state;
	conf_of(&c, conf_no_proportion);
	for (round = 0; round < 2; round++) {
		assert_int_equal(sched_snapshot_init(&s), 0);
		add_node(&s, "n1", 64000, round == 0 ? 3 : 4, 110);
		add_queue(&s, "default", 1);
		j = add_job(&s, "job", "default", 3, VC_PG_INQUEUE);
		set_min_task_member(j, &mtm, "{\"ps\":1,\"worker\":2}");
		for (i = 0; i < 4; i++) {
			/* Round 0: ps needs 4 GPUs, which no node has. */
			t = add_task(j, names[i], 100, i == 0 && round == 0 ? 4 : 1,
				     SCHED_TASK_PENDING, NULL);
			vc_free(t->role);
			t->role = vc_strdup(roles[i]);
		}
		run(&c, &s, &r);
		if (round == 0) {
			/* Three workers would fit, but the ps role is short: nothing binds. */
			assert_int_equal(r.nbinds, 0);
			assert_string_equal(
				cond_str(jr_of(&r, j), "Unschedulable", "message"),
				"3/4 tasks in gang unschedulable: pod group is not ready, "
				"3 minAvailable, 4 Pending; Pending: 4 Unschedulable. Origin reason is "
				"job-ps-0: 0/1 nodes are unavailable: 1 Insufficient "
				"nvidia.com/gpu.");
		} else {
			/* ps-0, worker-0, worker-1 make the gang; worker-2 follows alone. */
			assert_int_equal(r.nbinds, 4);
			assert_string_equal(r.binds[0].task->name, "job-ps-0");
			assert_string_equal(r.binds[3].task->name, "job-worker-2");
		}
		sched_result_release(&r);
		sched_snapshot_release(&s);
		json_decref(mtm);
	}
	sched_conf_release(&c);
}

/* ---- enqueue ----------------------------------------------------------------------------------
 */

static void test_enqueue(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *big, *quota, *empty, *nomin;
	const struct sched_job_result *jr;

	(void)state;
	assert_int_equal(sched_conf_default(&c), 0);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 4000, 4, 110);
	add_queue(&s, "default", 1);
	/* 5 GPUs > 4 × 1.2: overcommit rejects first. */
	big = add_job(&s, "big", "default", 1, VC_PG_PENDING);
	set_min_res(big, 1000, 5);
	add_tasks(big, "big", 1, 1000, 5, SCHED_TASK_PENDING, NULL);
	/* 4.5 GPUs ≤ 4.8 but > the queue's 4: proportion rejects. */
	quota = add_job(&s, "quota", "default", 1, VC_PG_PENDING);
	set_min_res(quota, 1000, 4.5);
	add_tasks(quota, "quota", 1, 1000, 4.5, SCHED_TASK_PENDING, NULL);
	/* A PodGroup without pods (training-operator style) fits and is admitted. */
	empty = add_job(&s, "empty", "default", 2, VC_PG_PHASE_NONE);
	set_min_res(empty, 2000, 0);
	/* No minResources: admitted unconditionally. */
	nomin = add_job(&s, "nomin", "default", 1, VC_PG_PENDING);
	run(&c, &s, &r);

	jr = jr_of(&r, big);
	assert_int_equal(jr->phase, VC_PG_PENDING);
	assert_string_equal(jr->reject_message,
			    "resource in cluster is overused: overused nvidia.com/gpu");
	jr = jr_of(&r, quota);
	assert_int_equal(jr->phase, VC_PG_PENDING);
	assert_string_equal(jr->reject_message,
			    "queue resource quota insufficient: insufficient nvidia.com/gpu");
	jr = jr_of(&r, empty);
	assert_int_equal(jr->phase, VC_PG_INQUEUE);
	assert_null(jr->reject_message);
	assert_int_equal(json_array_size(jr->conditions), 0); /* gang skips jobs without tasks */
	assert_string_equal(jr->event_message,
			    "0/0 tasks in gang unschedulable: pod group is not ready, "
			    "2 minAvailable");
	assert_int_equal(jr_of(&r, nomin)->phase, VC_PG_INQUEUE);
	assert_int_equal(r.nbinds, 0);
	/* Pending jobs are not allocated. */
	assert_int_equal(big->tasks[0]->status, SCHED_TASK_PENDING);
	assert_string_equal(tr_of(&r, "big-0")->message,
			    "1/1 tasks in gang unschedulable: pod group is not ready, 1 Pending, "
			    "1 minAvailable; Pending: 1 Unschedulable");
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

static void test_no_enqueue_promotes(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *j, *orphan;

	(void)state;
	conf_of(&c, "actions: allocate\n"
		    "tiers:\n- plugins:\n  - name: gang\n  - name: predicates\n");
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 4000, 4, 110);
	add_queue(&s, "default", 1);
	j = add_job(&s, "j", "default", 1, VC_PG_PENDING);
	add_tasks(j, "j", 1, 1000, 1, SCHED_TASK_PENDING, NULL);
	/* A job whose queue is missing is left alone. */
	orphan = add_job(&s, "orphan", "nowhere", 1, VC_PG_INQUEUE);
	add_tasks(orphan, "orphan", 1, 1000, 1, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	assert_int_equal(binds_of(&r, j), 1);
	assert_int_equal(binds_of(&r, orphan), 0);
	assert_int_equal(jr_of(&r, j)->phase, VC_PG_INQUEUE);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

/* ---- backfill -----------------------------------------------------------------------------------
 */

static void test_backfill_best_effort(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *j;

	(void)state;
	assert_int_equal(sched_conf_default(&c), 0);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 4000, 0, 110);
	add_queue(&s, "default", 1);
	j = add_job(&s, "be", "default", 2, VC_PG_INQUEUE);
	add_tasks(j, "be", 2, 0, 0, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	assert_int_equal(binds_of(&r, j), 2);
	assert_string_equal(r.binds[0].node, "n1");
	assert_int_equal(j->tasks[1]->status, SCHED_TASK_BINDING);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

/* The snapshot's on_bind sees every bind as the session decides it, before the session closes. */
struct bind_spy {
	const struct sched_result *r;
	size_t calls;
	size_t nbinds_at_first; /* r->nbinds when the first bind was handed over */
	size_t njobs_max;	/* r->njobs seen by any call: job results are made at the close */
	bool in_order;		/* each call's bind is r->binds[calls] */
};

static void spy_bind(void *ctx, const struct sched_bind *b)
{
	struct bind_spy *spy = ctx;

	if (spy->calls == 0)
		spy->nbinds_at_first = spy->r->nbinds;
	spy->in_order &= b == &spy->r->binds[spy->calls];
	spy->njobs_max = VC_MAX(spy->njobs_max, spy->r->njobs);
	spy->calls++;
}

static void test_on_bind_before_close(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *j;
	struct bind_spy spy = { .r = &r, .in_order = true };
	char name[16];
	int i;

	(void)state;
	assert_int_equal(sched_conf_default(&c), 0);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 16000, 0, 110);
	add_queue(&s, "default", 1);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "g%d", i);
		j = add_job(&s, name, "default", 2, VC_PG_INQUEUE);
		add_tasks(j, name, 2, 1000, 0, SCHED_TASK_PENDING, NULL);
	}
	/* backfill's binds too: a best-effort job */
	j = add_job(&s, "be", "default", 1, VC_PG_INQUEUE);
	add_tasks(j, "be", 1, 0, 0, SCHED_TASK_PENDING, NULL);
	s.on_bind = spy_bind;
	s.on_bind_ctx = &spy;
	run(&c, &s, &r);
	assert_int_equal(r.nbinds, 7);
	assert_int_equal(spy.calls, 7);
	assert_true(spy.in_order);
	/* The first gang's first task is handed over before anything else is placed. */
	assert_int_equal(spy.nbinds_at_first, 1);
	assert_int_equal(spy.njobs_max, 0);
	assert_true(r.njobs > 0);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

/* ---- pipelining, phases, conditions ------------------------------------------------------------
 */

static void test_pipeline_on_releasing(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *old, *j;
	const struct sched_task_result *tr;

	(void)state;
	conf_of(&c, conf_no_proportion);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 4000, 1, 110);
	add_queue(&s, "default", 1);
	old = add_job(&s, "old", "default", 1, VC_PG_RUNNING);
	add_tasks(old, "old", 1, 1000, 1, SCHED_TASK_RELEASING, "n1");
	j = add_job(&s, "new", "default", 1, VC_PG_INQUEUE);
	add_tasks(j, "new", 1, 1000, 1, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	assert_int_equal(r.nbinds, 0);
	assert_int_equal(j->tasks[0]->status, SCHED_TASK_PIPELINED);
	tr = tr_of(&r, "new-0");
	assert_string_equal(tr->reason, "Unschedulable");
	assert_string_equal(tr->message, "Pod ns/new-0 can possibly be assigned to n1, once "
					 "resource is released and minAvailable is satisfied");
	assert_null(tr->nominated_node);
	assert_string_equal(cond_str(jr_of(&r, j), "Unschedulable", "message"),
			    "1/1 tasks in gang unschedulable: pod group is not ready, "
			    "1 Pipelined, 1 minAvailable");
	/* The releasing pod still counts as scheduled for its own group. */
	assert_int_equal(jr_of(&r, old)->phase, VC_PG_RUNNING);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

static void test_phases(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *run2, *done, *inq, *unknown, *pend, *mixed;
	const struct sched_job_result *jr;

	(void)state;
	conf_of(&c, conf_no_proportion);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 4000, 1, 110);
	add_queue(&s, "default", 1);
	run2 = add_job(&s, "run2", "default", 2, VC_PG_INQUEUE);
	add_tasks(run2, "run2", 2, 100, 0, SCHED_TASK_RUNNING, "n1");
	done = add_job(&s, "done", "default", 2, VC_PG_RUNNING);
	add_tasks(done, "done", 2, 100, 0, SCHED_TASK_SUCCEEDED, "n1");
	inq = add_job(&s, "inq", "default", 1, VC_PG_INQUEUE);
	add_tasks(inq, "inq", 1, 100, 5, SCHED_TASK_PENDING, NULL);
	unknown = add_job(&s, "unknown", "default", 2, VC_PG_RUNNING);
	add_task(unknown, "unknown-0", 100, 0, SCHED_TASK_RUNNING, "n1");
	add_task(unknown, "unknown-1", 100, 5, SCHED_TASK_PENDING, NULL);
	pend = add_job(&s, "pend", "default", 1, VC_PG_RUNNING);
	add_tasks(pend, "pend", 1, 100, 5, SCHED_TASK_PENDING, NULL);
	mixed = add_job(&s, "mixed", "default", 2, VC_PG_RUNNING);
	add_task(mixed, "mixed-0", 100, 0, SCHED_TASK_SUCCEEDED, "n1");
	add_task(mixed, "mixed-1", 100, 0, SCHED_TASK_FAILED, "n1");
	add_task(mixed, "mixed-2", 100, 0, SCHED_TASK_RELEASING, "n1");
	run(&c, &s, &r);

	jr = jr_of(&r, run2);
	assert_int_equal(jr->phase, VC_PG_RUNNING);
	assert_int_equal(jr->running, 2);
	assert_null(jr->fit_error);
	assert_string_equal(jr->event_type, "Normal");
	assert_string_equal(jr->event_message, "pod group is ready");
	jr = jr_of(&r, done);
	assert_int_equal(jr->phase, VC_PG_COMPLETED);
	assert_int_equal(jr->succeeded, 2);
	assert_int_equal(jr_of(&r, inq)->phase, VC_PG_INQUEUE);
	jr = jr_of(&r, unknown);
	assert_int_equal(jr->phase, VC_PG_UNKNOWN);
	assert_string_equal(cond_str(jr, "Unschedulable", "message"),
			    "1/2 tasks in gang unschedulable: pod group is not ready, 1 Pending, "
			    "1 Running, 2 minAvailable; Pending: 1 Unschedulable. Origin reason is "
			    "unknown-1: 0/1 nodes are unavailable: 1 Insufficient "
			    "nvidia.com/gpu.");
	assert_int_equal(jr_of(&r, pend)->phase, VC_PG_PENDING);
	jr = jr_of(&r, mixed);
	assert_int_equal(jr->phase, VC_PG_RUNNING); /* 3 scheduled, one still releasing */
	assert_int_equal(jr->failed, 1);
	assert_int_equal(jr->succeeded, 1);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

static void test_conditions_replaced(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *j = vc_malloc(sizeof(*j));
	struct vc_podgroup pg;
	struct vc_error err;
	const struct sched_job_result *jr;
	json_t *obj;

	(void)state;
	obj = json_loads("{\"metadata\":{\"namespace\":\"ns\",\"name\":\"pg\","
			 "\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},"
			 "\"spec\":{\"minMember\":1,\"queue\":\"default\"},"
			 "\"status\":{\"phase\":\"Inqueue\",\"conditions\":["
			 "{\"type\":\"Unschedulable\",\"status\":\"True\",\"transitionID\":\"old\","
			 "\"reason\":\"NotEnoughResources\",\"message\":\"1/1 earlier\"},"
			 "{\"type\":\"Scheduled\",\"status\":\"True\",\"transitionID\":\"old\","
			 "\"reason\":\"old\"}]}}",
			 0, NULL);
	assert_non_null(obj);
	vc_error_clear(&err);
	assert_int_equal(vc_podgroup_view(obj, &pg, &err), 0);
	conf_of(&c, conf_no_proportion);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 4000, 1, 110);
	add_queue(&s, "default", 1);
	assert_int_equal(sched_job_from_podgroup(j, &pg, 0), 0);
	assert_int_equal(sched_snapshot_add_job(&s, j), 0);
	add_tasks(j, "pg", 1, 100, 1, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	jr = jr_of(&r, j);
	assert_int_equal(binds_of(&r, j), 1);
	assert_int_equal(json_array_size(jr->conditions), 2);
	/* Scheduled replaced in place; Unschedulable left as it was. */
	assert_string_equal(cond_str(jr, "Scheduled", "transitionID"), "uid-1");
	assert_string_equal(cond_str(jr, "Scheduled", "reason"),
			    "tasks in gang are ready to be scheduled");
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(jr->conditions, 1), "type")),
		"Scheduled");
	assert_string_equal(cond_str(jr, "Unschedulable", "transitionID"), "old");
	/* The cached PodGroup is untouched. */
	assert_string_equal(json_string_value(json_object_get(json_array_get(pg.conditions, 1),
							      "transitionID")),
			    "old");
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
	vc_podgroup_view_release(&pg);
	json_decref(obj);
}

static void test_fit_errors_histogram(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *busy, *j;

	(void)state;
	conf_of(&c, conf_no_proportion);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "a", 4000, 0, 110);
	add_node(&s, "b", 500, 2, 110);
	add_node(&s, "c", 4000, 2, 1);
	add_queue(&s, "default", 1);
	busy = add_job(&s, "busy", "default", 1, VC_PG_RUNNING);
	add_tasks(busy, "busy", 1, 100, 0, SCHED_TASK_RUNNING, "c");
	j = add_job(&s, "j", "default", 1, VC_PG_INQUEUE);
	add_tasks(j, "j", 1, 1000, 1, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	assert_int_equal(r.nbinds, 0);
	assert_string_equal(tr_of(&r, "j-0")->message,
			    "0/3 nodes are unavailable: 1 Insufficient cpu, 1 Insufficient "
			    "nvidia.com/gpu, 1 node(s) pod number exceeded.");
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

/* ---- preempt and reclaim
 * -------------------------------------------------------------------------- */

static void test_preempt_priority(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *low, *high;
	const struct sched_task_result *tr;
	char buf[1024];

	(void)state;
	conf_default_with("enqueue, allocate, preempt", buf, sizeof(buf));
	conf_of(&c, buf);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 8000, 4, 110);
	add_queue(&s, "default", 1);
	low = add_job(&s, "low", "default", 1, VC_PG_RUNNING);
	low->priority = 1;
	add_tasks(low, "low-t", 4, 1000, 1, SCHED_TASK_RUNNING, "n1");
	high = add_job(&s, "high", "default", 1, VC_PG_INQUEUE);
	high->priority = 10;
	add_tasks(high, "high-t", 1, 1000, 1, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	assert_int_equal(r.nevicts, 1);
	assert_string_equal(r.evicts[0].task->name, "low-t-3");
	assert_string_equal(r.evicts[0].reason, "preempt");
	assert_int_equal(low->tasks[3]->status, SCHED_TASK_RELEASING);
	assert_int_equal(high->tasks[0]->status, SCHED_TASK_PIPELINED);
	assert_int_equal(r.nbinds, 0);
	tr = tr_of(&r, "high-t-0");
	assert_string_equal(tr->message, "Pod ns/high-t-0 can possibly be assigned to n1, once "
					 "resource is released and minAvailable is satisfied");
	assert_string_equal(tr->nominated_node, "n1");
	sched_result_release(&r);
	sched_snapshot_release(&s);

	/* Same priorities and no surplus: nothing is preempted. */
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 8000, 4, 110);
	add_queue(&s, "default", 1);
	low = add_job(&s, "low", "default", 4, VC_PG_RUNNING);
	add_tasks(low, "low-t", 4, 1000, 1, SCHED_TASK_RUNNING, "n1");
	high = add_job(&s, "high", "default", 1, VC_PG_INQUEUE);
	add_tasks(high, "high-t", 1, 1000, 1, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	assert_int_equal(r.nevicts, 0);
	assert_int_equal(high->tasks[0]->status, SCHED_TASK_PENDING);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

static void test_preempt_whole_gang(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *low, *high;
	char buf[1024];
	size_t i;

	(void)state;
	conf_default_with("allocate, preempt", buf, sizeof(buf));
	conf_of(&c, buf);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 8000, 2, 110);
	add_node(&s, "n2", 8000, 2, 110);
	add_queue(&s, "default", 1);
	/* A ready gang of 4 (min 4) across both nodes; a higher priority pod needs one GPU. */
	low = add_job(&s, "low", "default", 4, VC_PG_RUNNING);
	low->priority = 1;
	add_task(low, "low-t-0", 100, 1, SCHED_TASK_RUNNING, "n1");
	add_task(low, "low-t-1", 100, 1, SCHED_TASK_RUNNING, "n1");
	add_task(low, "low-t-2", 100, 1, SCHED_TASK_RUNNING, "n2");
	add_task(low, "low-t-3", 100, 1, SCHED_TASK_RUNNING, "n2");
	high = add_job(&s, "high", "default", 1, VC_PG_INQUEUE);
	high->priority = 10;
	add_tasks(high, "high-t", 1, 100, 1, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	/* Breaking the gang evicts all of it (REC (d)), not a lone member. */
	assert_int_equal(r.nevicts, 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(low->tasks[i]->status, SCHED_TASK_RELEASING);
	assert_int_equal(high->tasks[0]->status, SCHED_TASK_PIPELINED);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

static void elastic_snapshot(struct sched_snapshot *s, struct sched_job_info **j11,
			     struct sched_job_info **j2, const char *q2, bool reclaimable,
			     int32_t min1)
{
	assert_int_equal(sched_snapshot_init(s), 0);
	add_node(s, "n1", 64000, 10, 110);
	add_queue(s, "queue1", 1)->reclaimable = reclaimable;
	if (strcmp(q2, "queue1") != 0)
		add_queue(s, q2, 1);
	*j11 = add_job(s, "job1-1", "queue1", min1, VC_PG_RUNNING);
	set_min_res(*j11, 100 * min1, min1);
	add_tasks(*j11, "job1-1-worker", 10, 100, 1, SCHED_TASK_RUNNING, "n1");
	*j2 = add_job(s, "job2", q2, 5, VC_PG_PENDING);
	set_min_res(*j2, 500, 5);
	add_tasks(*j2, "job2-worker", 10, 100, 1, SCHED_TASK_PENDING, NULL);
}

static void test_preempt_equal_priority_elastic(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *j11, *j2;
	char buf[1024];
	size_t i;

	(void)state;
	conf_default_with("enqueue, allocate, preempt", buf, sizeof(buf));
	conf_of(&c, buf);
	elastic_snapshot(&s, &j11, &j2, "queue1", true, 5);
	run(&c, &s, &r);
	/* Admitted although the cluster is full (its elastic pods count as free). */
	assert_int_equal(jr_of(&r, j2)->phase, VC_PG_INQUEUE);
	assert_int_equal(r.nevicts, 5);
	for (i = 0; i < 5; i++) {
		char want[32];

		snprintf(want, sizeof(want), "job1-1-worker-%zu", 9 - i);
		assert_string_equal(r.evicts[i].task->name, want);
	}
	assert_int_equal(sched_job_count(j2, SCHED_TASK_PIPELINED), 5);
	assert_int_equal(sched_job_count(j11, SCHED_TASK_RUNNING), 5);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

/*
 * The Helm chart's tiers (gang and drf leave victims to priority) with preempt: the
 * configuration of docs/volcano/scheduler.md §3.4's pod-slot case.
 */
static const char conf_preempt_helm[] = "actions: \"enqueue, allocate, backfill, preempt\"\n"
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
					"  - name: proportion\n"
					"  - name: nodeorder\n";

/*
 * One node with a single pod slot, taken by a low-priority best-effort pod; a high-priority
 * preemptor (cpu_req 0: best-effort itself) with victim (cpu 0: best-effort) asking victim_cpu.
 * Returns the number of evictions; *placed says whether the preemptor was pipelined on n1.
 */
static size_t preempt_for_slot(double preemptor_cpu, double victim_cpu, bool *placed)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *low, *high;
	const struct sched_task_result *tr;
	size_t nevicts;

	conf_of(&c, conf_preempt_helm);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 8000, 0, 1);
	add_queue(&s, "default", 1);
	low = add_job(&s, "low", "default", 1, VC_PG_RUNNING);
	low->priority = 1;
	add_task(low, "low-0", victim_cpu, 0, SCHED_TASK_RUNNING, "n1");
	high = add_job(&s, "high", "default", 1, VC_PG_INQUEUE);
	high->priority = 10;
	add_task(high, "high-0", preemptor_cpu, 0, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	nevicts = r.nevicts;
	*placed = high->tasks[0]->status == SCHED_TASK_PIPELINED;
	if (nevicts) {
		assert_int_equal(nevicts, 1);
		assert_string_equal(r.evicts[0].task->name, "low-0");
		assert_string_equal(r.evicts[0].reason, "preempt");
		assert_int_equal(low->tasks[0]->status, SCHED_TASK_RELEASING);
	}
	if (*placed) {
		tr = tr_of(&r, "high-0");
		assert_non_null(tr);
		assert_string_equal(
			tr->message,
			"Pod ns/high-0 can possibly be assigned to n1, once resource is "
			"released and minAvailable is satisfied");
		assert_non_null(tr->nominated_node);
		assert_string_equal(tr->nominated_node, "n1");
	}
	assert_int_equal(r.nbinds, 0);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
	return nevicts;
}

/*
 * docs/volcano/scheduler.md §3.4, §4.7: when the node's pod slots, not its CPU, are what is
 * missing, the preemptor fits only once a victim is evicted (the pod count is one of the
 * predicates that the fit after each eviction checks); a best-effort preemptor takes
 * best-effort victims only.
 */
static void test_preempt_pod_slots(void **state)
{
	bool placed;

	(void)state;
	/* A preemptor with requests evicts the best-effort pod holding the only slot. */
	assert_int_equal(preempt_for_slot(1000, 0, &placed), 1);
	assert_true(placed);
	/* So does a best-effort preemptor. */
	assert_int_equal(preempt_for_slot(0, 0, &placed), 1);
	assert_true(placed);
	/* A best-effort preemptor never takes a pod that has requests, nor waits for its slot. */
	assert_int_equal(preempt_for_slot(0, 1000, &placed), 0);
	assert_false(placed);
}

static void test_reclaim(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *j11, *j2;
	char buf[1024];
	int round;

	(void)state;
	conf_default_with("enqueue, allocate, reclaim", buf, sizeof(buf));
	conf_of(&c, buf);
	/* Round 0: queue1 reclaimable; 1: reclaimable false (elastic surplus still goes);
	 * 2: reclaimable false and no surplus (min 10): nothing. */
	for (round = 0; round < 3; round++) {
		elastic_snapshot(&s, &j11, &j2, "queue2", round == 0, round == 2 ? 10 : 5);
		run(&c, &s, &r);
		assert_int_equal(jr_of(&r, j2)->phase, round == 2 ? VC_PG_PENDING : VC_PG_INQUEUE);
		if (round < 2) {
			assert_int_equal(r.nevicts, 5);
			assert_string_equal(r.evicts[0].task->name, "job1-1-worker-9");
			assert_string_equal(r.evicts[4].task->name, "job1-1-worker-5");
			assert_string_equal(r.evicts[0].reason, "reclaim");
			assert_int_equal(sched_job_count(j2, SCHED_TASK_PIPELINED), 5);
		} else {
			assert_int_equal(r.nevicts, 0);
		}
		sched_result_release(&r);
		sched_snapshot_release(&s);
	}
	sched_conf_release(&c);
}

static void test_reclaim_respects_deserved(void **state)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct sched_job_info *j1, *j2;
	char buf[1024];

	(void)state;
	conf_default_with("allocate, reclaim", buf, sizeof(buf));
	conf_of(&c, buf);
	assert_int_equal(sched_snapshot_init(&s), 0);
	add_node(&s, "n1", 64000, 10, 110);
	add_queue(&s, "queue1", 1);
	add_queue(&s, "queue2", 1);
	/* queue1 holds 5 = its deserved share: nothing to take back. */
	j1 = add_job(&s, "j1", "queue1", 1, VC_PG_RUNNING);
	add_tasks(j1, "j1", 5, 100, 1, SCHED_TASK_RUNNING, "n1");
	j2 = add_job(&s, "j2", "queue2", 6, VC_PG_INQUEUE);
	add_tasks(j2, "j2", 10, 100, 1, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	assert_int_equal(r.nevicts, 0);
	assert_int_equal(r.nbinds, 0);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

/* ---- failure injection and a sanity timing
 * --------------------------------------------------------- */

static void build_mixed(struct sched_snapshot *s)
{
	struct sched_job_info *j11, *j2, *be, *g;

	elastic_snapshot(s, &j11, &j2, "queue2", false, 5);
	add_node(s, "n2", 4000, 2, 110);
	be = add_job(s, "be", "queue1", 1, VC_PG_INQUEUE);
	add_tasks(be, "be", 1, 0, 0, SCHED_TASK_PENDING, NULL);
	g = add_job(s, "g", "queue2", 3, VC_PG_INQUEUE);
	add_tasks(g, "g", 3, 100, 1, SCHED_TASK_PENDING, NULL);
}

static void test_alloc_failures(void **state)
{
	struct sched_conf c;
	char buf[1024];
	long n;

	(void)state;
	conf_default_with("enqueue, allocate, backfill, reclaim, preempt", buf, sizeof(buf));
	conf_of(&c, buf);
	for (n = 0;; n++) {
		struct sched_snapshot s;
		struct sched_result r;
		struct vc_error err;
		int rc;

		build_mixed(&s);
		assert_int_equal(sched_snapshot_place(&s), 0);
		vc_alloc_fail_after(n);
		rc = sched_session_run(&c, &s, "uid", "2026-01-01T00:00:00Z", 1, &r, &err);
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_true(r.nevicts > 0);
			sched_result_release(&r);
			sched_snapshot_release(&s);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
		assert_int_equal(r.nbinds, 0);
		assert_null(r.jobs);
		sched_snapshot_release(&s);
	}
	assert_true(n > 20);
	sched_conf_release(&c);
}

static void test_unknown_action(void **state)
{
	struct sched_conf c;
	struct sched_snapshot s;
	struct sched_result r;
	struct vc_error err;
	char *saved;

	(void)state;
	assert_int_equal(sched_conf_default(&c), 0);
	saved = c.actions[1];
	c.actions[1] = (char *)"shuffle";
	assert_int_equal(sched_snapshot_init(&s), 0);
	vc_error_clear(&err);
	assert_int_equal(sched_session_run(&c, &s, "u", "t", 1, &r, &err), VC_EINVAL);
	assert_string_equal(err.text, "unknown action 'shuffle'");
	c.actions[1] = saved;
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

/*
 * The equivalence-class cache: pods of the same shape but with different node selectors are
 * different classes (no shared verdicts), pods of one class share them (most predicate and
 * score results come from the cache), and every placement still respects its selector.
 */
static void test_class_cache(void **state)
{
	static const char *const zones[] = { "a", "a", "b", "b" };
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct vc_pod pods[8];
	json_t *objs[8], *labels[4];
	struct sched_job_info *ja, *jb, *jc;
	size_t i;

	(void)state;
	assert_int_equal(sched_conf_default(&c), 0);
	assert_int_equal(sched_snapshot_init(&s), 0);
	for (i = 0; i < 4; i++) {
		char name[8];
		struct sched_node_info *n;

		snprintf(name, sizeof(name), "n%zu", i + 1);
		n = add_node(&s, name, 2000, 0, 110);
		labels[i] = json_pack("{s:s}", "zone", zones[i]);
		assert_non_null(labels[i]);
		n->labels = labels[i];
	}
	add_queue(&s, "default", 1);
	ja = add_job(&s, "ja", "default", 4, VC_PG_INQUEUE);
	jb = add_job(&s, "jb", "default", 4, VC_PG_INQUEUE);
	jc = add_job(&s, "jc", "default", 2, VC_PG_INQUEUE);
	for (i = 0; i < 8; i++) {
		struct sched_task_info *t = vc_malloc(sizeof(*t));
		char name[16];

		snprintf(name, sizeof(name), "%s-%zu", i < 4 ? "ja" : "jb", i % 4);
		objs[i] = json_pack("{s:{s:s, s:s, s:s}, s:{s:{s:s}, s:[{s:s, s:{s:{s:s}}}]}, "
				    "s:{s:s}}",
				    "metadata", "namespace", "ns", "name", name, "uid", name,
				    "spec", "nodeSelector", "zone", i < 4 ? "a" : "b", "containers",
				    "name", "c", "resources", "requests", "cpu", "500m", "status",
				    "phase", "Pending");
		assert_non_null(objs[i]);
		assert_int_equal(vc_pod_view(objs[i], &pods[i], NULL), 0);
		assert_non_null(t);
		assert_int_equal(sched_task_from_pod(t, &pods[i], NULL), 0);
		assert_int_equal(sched_job_add_task(i < 4 ? ja : jb, t), 0);
	}
	add_tasks(jc, "jc", 2, 500, 0, SCHED_TASK_PENDING, NULL);
	run(&c, &s, &r);
	assert_int_equal(r.nbinds, 10);
	for (i = 0; i < r.nbinds; i++) {
		const struct sched_task_info *t = r.binds[i].task;
		const char *node = r.binds[i].node;

		if (t->job == ja)
			assert_true(strcmp(node, "n1") == 0 || strcmp(node, "n2") == 0);
		else if (t->job == jb)
			assert_true(strcmp(node, "n3") == 0 || strcmp(node, "n4") == 0);
	}
	assert_int_equal(binds_of(&r, jc), 2);
	/*
	 * Asked: 10 tasks × 4 nodes (all fit); scores where a task had two or more nodes: ja and
	 * jb 4 × 2, jc 2 × 4. Computed: a class's first task asks every node, each later task
	 * only the node the previous placement changed: predicates ja 4+3, jb 4+3, jc 4+1; scores
	 * ja 2+1+1+1, jb the same, jc 4+1.
	 */
	assert_int_equal(r.predicate_calls, 40);
	assert_int_equal(r.score_calls, 24);
	assert_int_equal(r.predicate_evals, 19);
	assert_int_equal(r.score_evals, 15);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
	for (i = 0; i < 8; i++) {
		vc_pod_view_release(&pods[i]);
		json_decref(objs[i]);
	}
	for (i = 0; i < 4; i++)
		json_decref(labels[i]);
}

/* Not a timed test: prints how long a big cycle took, for the author's sanity. */
static void scale_case(int nodes, int groups, int per_group)
{
	struct sched_snapshot s;
	struct sched_conf c;
	struct sched_result r;
	struct timespec t0, t1;
	char name[32];
	int i, k;

	assert_int_equal(sched_conf_default(&c), 0);
	assert_int_equal(sched_snapshot_init(&s), 0);
	for (i = 0; i < nodes; i++) {
		snprintf(name, sizeof(name), "node-%d", i);
		add_node(&s, name, 4000, 0, 110);
		vc_resource_release(&s.nodes[i]->allocatable);
		sched_fixture_res(&s.nodes[i]->allocatable, 4000, 32 * GIB, 0);
		s.nodes[i]->allocatable.max_task_num = 110;
	}
	add_queue(&s, "default", 1);
	for (i = 0; i < groups; i++) {
		struct sched_job_info *j;

		snprintf(name, sizeof(name), "pg-%d", i);
		j = add_job(&s, name, "default", per_group, VC_PG_INQUEUE);
		for (k = 0; k < per_group; k++) {
			struct sched_task_info *t;

			snprintf(name, sizeof(name), "pg-%d-pod-%d", i, k);
			t = add_task(j, name, 100, 0, SCHED_TASK_PENDING, NULL);
			t->req.memory = 500 * 1024 * 1024;
			j->request.memory += t->req.memory;
		}
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	run(&c, &s, &r);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	assert_int_equal(r.nbinds, (size_t)(groups * per_group));
	print_message(
		"      %d nodes, %d groups x %d pods: %.1f ms (%.1f ms CPU), %llu predicates, "
		"%llu scores\n",
		nodes, groups, per_group, (double)r.duration_ns / 1e6,
		(double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6,
		(unsigned long long)r.predicate_calls, (unsigned long long)r.score_calls);
	sched_result_release(&r);
	sched_snapshot_release(&s);
	sched_conf_release(&c);
}

static void test_scale_sanity(void **state)
{
	(void)state;
	if (getenv("CALDERA_SCHED_SCALE")) {
		scale_case(5000, 10000, 1);
		scale_case(5000, 100, 100);
	} else {
		scale_case(500, 1000, 1);
		scale_case(500, 10, 100);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gang_deadlock),
		cmocka_unit_test(test_gang_deadlock_default_conf),
		cmocka_unit_test(test_five_groups),
		cmocka_unit_test(test_weights_1_3),
		cmocka_unit_test(test_elastic_one_per_pop),
		cmocka_unit_test(test_min_task_member),
		cmocka_unit_test(test_enqueue),
		cmocka_unit_test(test_no_enqueue_promotes),
		cmocka_unit_test(test_backfill_best_effort),
		cmocka_unit_test(test_on_bind_before_close),
		cmocka_unit_test(test_pipeline_on_releasing),
		cmocka_unit_test(test_phases),
		cmocka_unit_test(test_conditions_replaced),
		cmocka_unit_test(test_fit_errors_histogram),
		cmocka_unit_test(test_class_cache),
		cmocka_unit_test(test_preempt_priority),
		cmocka_unit_test(test_preempt_whole_gang),
		cmocka_unit_test(test_preempt_equal_priority_elastic),
		cmocka_unit_test(test_preempt_pod_slots),
		cmocka_unit_test(test_reclaim),
		cmocka_unit_test(test_reclaim_respects_deserved),
		cmocka_unit_test(test_alloc_failures),
		cmocka_unit_test(test_unknown_action),
		cmocka_unit_test(test_scale_sanity),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
