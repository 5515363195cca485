/*
 * Unit tests for the scheduler's metrics (sched_metrics.h) fed by a real session: the series a
 * cycle over a snapshot built in code leaves in a registry, their names, labels and values, the
 * per-job switch and the deletion of a job's and a queue's series.
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "support/sched_fixture.h"

#include "scheduler/sched_metrics.h"
#include "scheduler/sched_session.h"
#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_time.h"

#define GIB	(1024.0 * 1024 * 1024)
#define CREATED INT64_C(1767225600) /* 2026-01-01T00:00:00Z */

static int64_t mono;

/* The PodGroups were created 1.5 s ago; the monotonic clock ticks 1 ms per read. */
static int64_t fake_real(void *ctx)
{
	(void)ctx;
	return CREATED * 1000000000 + 1500 * INT64_C(1000000);
}

static int64_t fake_mono(void *ctx)
{
	(void)ctx;
	return mono += 1000000;
}

struct fixture {
	struct sched_snapshot snap;
	struct sched_conf conf;
	struct vc_podgroup pg[2];
	json_t *obj[2];
};

static struct sched_job_info *add_job(struct fixture *f, int i, const char *name, int min)
{
	struct sched_job_info *j = vc_malloc(sizeof(*j));
	char text[512];
	struct vc_error err;

	snprintf(
		text, sizeof(text),
		"{\"metadata\":{\"namespace\":\"ns\",\"name\":\"%s\","
		"\"creationTimestamp\":\"2026-01-01T00:00:00Z\"},"
		"\"spec\":{\"minMember\":%d,\"queue\":\"default\"},\"status\":{\"phase\":\"Inqueue\"}}",
		name, min);
	f->obj[i] = json_loads(text, 0, NULL);
	assert_non_null(f->obj[i]);
	vc_error_clear(&err);
	assert_int_equal(vc_podgroup_view(f->obj[i], &f->pg[i], &err), 0);
	assert_non_null(j);
	assert_int_equal(sched_job_from_podgroup(j, &f->pg[i], 0), 0);
	assert_int_equal(sched_snapshot_add_job(&f->snap, j), 0);
	return j;
}

static void add_task(struct sched_job_info *j, const char *name, double cpu,
		     enum sched_task_status st, const char *node)
{
	struct sched_task_info *t = vc_malloc(sizeof(*t));
	struct vc_resource r;

	assert_non_null(t);
	sched_fixture_res(&r, cpu, 0, 0);
	assert_int_equal(sched_task_init(t, "ns", name, &r), 0);
	vc_resource_release(&r);
	t->status = st;
	if (node)
		assert_int_equal(sched_task_set_node(t, node), 0);
	assert_int_equal(sched_job_add_task(j, t), 0);
}

/* Node n1 (8 cpus); job "a" (2 × 1 cpu) fits, job "b" (min 2, 1 × 100 cpus) does not. */
static void setup_cycle(struct fixture *f, const char *actions)
{
	struct sched_node_info *n = vc_malloc(sizeof(*n));
	struct sched_queue_info *q = vc_malloc(sizeof(*q));
	struct sched_job_info *a, *b;
	struct vc_resource r;
	struct vc_error err;
	char text[2048];

	memset(f, 0, sizeof(*f));
	snprintf(text, sizeof(text), "actions: \"%s\"\n" SCHED_CONF_DEFAULT_TIERS_YAML, actions);
	vc_error_clear(&err);
	assert_int_equal(sched_conf_parse(text, strlen(text), &f->conf, &err), 0);
	assert_int_equal(sched_snapshot_init(&f->snap), 0);
	assert_non_null(n);
	sched_fixture_res(&r, 8000, 64 * GIB, 0);
	r.max_task_num = 110;
	assert_int_equal(sched_node_init(n, "n1", &r), 0);
	vc_resource_release(&r);
	assert_int_equal(sched_snapshot_add_node(&f->snap, n), 0);
	assert_non_null(q);
	assert_int_equal(sched_queue_init(q, "default", 3), 0);
	assert_int_equal(sched_snapshot_add_queue(&f->snap, q), 0);
	a = add_job(f, 0, "a", 2);
	add_task(a, "a-0", 1000, SCHED_TASK_PENDING, NULL);
	add_task(a, "a-1", 1000, SCHED_TASK_PENDING, NULL);
	b = add_job(f, 1, "b", 2);
	add_task(b, "b-0", 100000, SCHED_TASK_PENDING, NULL);
	assert_int_equal(sched_snapshot_place(&f->snap), 0);
}

static void run_cycle(struct fixture *f, const struct sched_metrics *m, struct sched_result *r)
{
	struct vc_error err;

	f->snap.metrics = m;
	vc_error_clear(&err);
	if (sched_session_run(&f->conf, &f->snap, "uid", "2026-01-01T00:00:01Z", 7, r, &err))
		fail_msg("run: %s", err.text);
}

static void teardown_cycle(struct fixture *f, struct sched_result *r)
{
	sched_result_release(r);
	sched_snapshot_release(&f->snap);
	sched_conf_release(&f->conf);
	for (int i = 0; i < 2; i++) {
		vc_podgroup_view_release(&f->pg[i]);
		json_decref(f->obj[i]);
	}
}

static double value(struct vc_metric *m, const char *a, const char *b, const char *c)
{
	const char *v[] = { a, b, c, NULL };
	double d = -1;

	assert_int_equal(vc_metric_value(m, a ? v : NULL, &d), 0);
	return d;
}

static void test_cycle_feeds_metrics(void **state)
{
	struct vc_metrics *reg = vc_metrics_new();
	struct sched_metrics m;
	struct sched_result r;
	struct fixture f;
	struct vc_buf out;

	(void)state;
	mono = 0;
	vc_time_set_source(fake_real, fake_mono, NULL);
	assert_int_equal(sched_metrics_register(reg, true, &m, NULL), 0);
	setup_cycle(&f, "enqueue, allocate, backfill");
	run_cycle(&f, &m, &r);
	assert_int_equal(r.nbinds, 2);

	/* One observation per action and per plugin callback, as Volcano's runOnce. */
	assert_true(value(m.action, "enqueue", NULL, NULL) == 1);
	assert_true(value(m.action, "allocate", NULL, NULL) == 1);
	assert_true(value(m.action, "backfill", NULL, NULL) == 1);
	assert_true(value(m.action, "preempt", NULL, NULL) == 0);
	assert_true(value(m.plugin, "gang", "OnSessionOpen", NULL) == 1);
	assert_true(value(m.plugin, "proportion", "OnSessionClose", NULL) == 1);
	assert_true(r.open_ns > 0);
	/* Job "a" was assumed 1.5 s after its PodGroup's creation; "b" was not. */
	assert_true(value(m.e2e_job, NULL, NULL, NULL) == 1);
	assert_true(value(m.job_duration, "a", "default", "ns") == 1500);
	assert_true(value(m.job_last, "a", "default", "ns") == (double)CREATED + 1);
	assert_true(value(m.job_duration, "b", "default", "ns") == 0);
	/* Two predicate and two scoring stages: one per task placed. */
	assert_true(value(m.stage_duration, SCHED_STAGE_PREDICATE, NULL, NULL) >= 2);
	assert_true(value(m.stage_duration, SCHED_STAGE_SCORING, NULL, NULL) == 2);
	/* gang: b misses 2 tasks and is retried; a is ready. */
	assert_true(value(m.unsched_tasks, "b", NULL, NULL) == 2);
	assert_true(value(m.unsched_tasks, "a", NULL, NULL) == 0);
	assert_true(value(m.job_retries, "b", NULL, NULL) == 1);
	assert_true(value(m.unsched_jobs, NULL, NULL, NULL) == 1);
	/* drf: a holds 2 of 8 cpus. */
	assert_true(value(m.job_share, "ns", "a", NULL) == 0.25);
	assert_true(value(m.ns_share, "ns", NULL, NULL) == 0.25);
	assert_true(value(m.ns_weight, "ns", NULL, NULL) == 1);
	assert_true(value(m.ns_weighted_share, "ns", NULL, NULL) == 0.25);
	/* proportion: what the queue holds after the cycle, what it asked for, its attributes. */
	assert_true(value(m.queue[SCHED_MQ_ALLOCATED][0], "default", NULL, NULL) == 2000);
	assert_true(value(m.queue[SCHED_MQ_REQUEST][0], "default", NULL, NULL) == 102000);
	assert_true(value(m.queue[SCHED_MQ_DESERVED][0], "default", NULL, NULL) == 8000);
	assert_true(value(m.queue_weight, "default", NULL, NULL) == 3);
	assert_true(value(m.queue_overused, "default", NULL, NULL) == 0);
	assert_int_equal(vc_metric_series_count(m.queue_share), 1);

	/* The job's series go with it; the queue's with the queue. */
	sched_metrics_job_delete(&m, "ns", "b", "default");
	assert_int_equal(vc_metric_series_count(m.unsched_tasks), 1);
	assert_int_equal(vc_metric_series_count(m.job_retries), 0);
	sched_metrics_job_delete(&m, "ns", "a", "default");
	assert_int_equal(vc_metric_series_count(m.job_duration), 0);
	assert_int_equal(vc_metric_series_count(m.job_share), 0);
	sched_metrics_queue_delete(&m, "default");
	assert_int_equal(vc_metric_series_count(m.queue[SCHED_MQ_ALLOCATED][0]), 0);
	assert_int_equal(vc_metric_series_count(m.queue_weight), 0);
	/* The histogram of all jobs stays. */
	assert_true(value(m.e2e_job, NULL, NULL, NULL) == 1);

	vc_buf_init(&out, 1 << 20);
	assert_int_equal(vc_metrics_render(reg, &out), 0);
	assert_non_null(strstr(out.data, "# HELP volcano_action_scheduling_latency_milliseconds "
					 "Action scheduling latency in milliseconds\n"));
	assert_non_null(strstr(out.data, "volcano_plugin_scheduling_latency_milliseconds_count{"
					 "plugin=\"drf\",OnSession=\"OnSessionOpen\"} 1\n"));
	assert_non_null(strstr(out.data, "volcano_e2e_job_scheduling_latency_milliseconds_bucket"
					 "{le=\"100\"} 0\n"));
	vc_buf_release(&out);
	teardown_cycle(&f, &r);
	vc_metrics_free(reg);
	vc_time_set_source(NULL, NULL, NULL);
}

/* --metrics-per-job=false: the same cycle leaves no series labelled by job. */
static void test_per_job_off(void **state)
{
	struct vc_metrics *reg = vc_metrics_new();
	struct sched_metrics m;
	struct sched_result r;
	struct fixture f;

	(void)state;
	vc_time_set_source(fake_real, fake_mono, NULL);
	assert_int_equal(sched_metrics_register(reg, false, &m, NULL), 0);
	setup_cycle(&f, "enqueue, allocate, backfill");
	run_cycle(&f, &m, &r);
	assert_int_equal(vc_metric_series_count(m.job_duration), 0);
	assert_int_equal(vc_metric_series_count(m.job_last), 0);
	assert_int_equal(vc_metric_series_count(m.unsched_tasks), 0);
	assert_int_equal(vc_metric_series_count(m.job_share), 0);
	assert_int_equal(vc_metric_series_count(m.job_retries), 0);
	sched_metrics_job_seen(&m, "ns", "a", "default", CREATED * 1000000000);
	assert_int_equal(vc_metric_series_count(m.job_start), 0);
	/* The aggregates are still there. */
	assert_true(value(m.e2e_job, NULL, NULL, NULL) == 1);
	assert_true(value(m.unsched_jobs, NULL, NULL, NULL) == 1);
	teardown_cycle(&f, &r);
	vc_metrics_free(reg);
	vc_time_set_source(NULL, NULL, NULL);
}

/* Preemption: victims chosen, one attempt, one committed eviction by action. */
static void test_preempt_metrics(void **state)
{
	struct vc_metrics *reg = vc_metrics_new();
	struct sched_metrics m;
	struct sched_result r;
	struct fixture f;
	struct sched_job_info *low;

	(void)state;
	vc_time_set_source(fake_real, fake_mono, NULL);
	assert_int_equal(sched_metrics_register(reg, true, &m, NULL), 0);
	memset(&f, 0, sizeof(f));
	setup_cycle(&f, "enqueue, allocate, preempt");
	/* A low-priority job fills the node; a (priority 10) must preempt to fit. */
	low = vc_malloc(sizeof(*low));
	assert_non_null(low);
	assert_int_equal(sched_job_init(low, "ns", "low", "default", 1), 0);
	low->phase = VC_PG_RUNNING;
	low->priority = 1;
	assert_int_equal(sched_snapshot_add_job(&f.snap, low), 0);
	for (int i = 0; i < 8; i++) {
		char name[16];

		snprintf(name, sizeof(name), "low-%d", i);
		add_task(low, name, 1000, SCHED_TASK_RUNNING, "n1");
	}
	f.snap.jobs[0]->priority = 10;
	/* sched_snapshot_place ran already for the first tasks: place the new ones. */
	for (int i = 0; i < 8; i++)
		assert_int_equal(sched_node_add_task(f.snap.nodes[0], low->tasks[i]), 0);
	run_cycle(&f, &m, &r);
	assert_true(r.nevicts >= 1);
	assert_true(value(m.evictions, "preempt", NULL, NULL) == (double)r.nevicts);
	assert_true(value(m.preempt_attempts, NULL, NULL, NULL) >= 1);
	assert_true(value(m.preempt_victims, NULL, NULL, NULL) >= 1);
	assert_true(value(m.evictions, "reclaim", NULL, NULL) == 0);
	teardown_cycle(&f, &r);
	vc_metrics_free(reg);
	vc_time_set_source(NULL, NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cycle_feeds_metrics),
		cmocka_unit_test(test_per_job_off),
		cmocka_unit_test(test_preempt_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
