/*
 * Unit tests for the gc controller (docs/volcano/job-controller.md §4.11): finished Jobs with
 * ttlSecondsAfterFinished are deleted (Foreground, UID precondition) once the TTL counted from
 * status.state.lastTransitionTime has passed, after a fresh read; the clock is injected.
 */
#include "support/fake_api.h"

#include "gc_controller.h"

/* 2023-11-14T22:13:20Z */
#define T0    INT64_C(1700000000)
#define T0STR "2023-11-14T22:13:20Z"

#define JOB_PATH "/apis/batch.volcano.sh/v1alpha1/namespaces/ns/jobs/j1"
#define GET_J1	 "GET " JOB_PATH "\n"
#define DEL_J1	 "DELETE " JOB_PATH " propagation=Foreground uid=u1\n"

struct env {
	struct fake f;
	struct vc_kube *kube;
	struct vc_ctrl_ctx ctx;
	struct gcctl *gc;
};

/* A Job; ttl < 0 leaves ttlSecondsAfterFinished out, lt NULL leaves lastTransitionTime out. */
static json_t *job(const char *name, const char *phase, int ttl, const char *lt)
{
	json_t *j =
		json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:{}, s:{s:{s:s}}}", "apiVersion",
			  "batch.volcano.sh/v1alpha1", "kind", "Job", "metadata", "namespace", "ns",
			  "name", name, "uid", "u1", "spec", "status", "state", "phase", phase);

	assert_non_null(j);
	if (ttl >= 0)
		assert_int_equal(json_object_set_new(json_object_get(j, "spec"),
						     "ttlSecondsAfterFinished", json_integer(ttl)),
				 0);
	if (lt)
		assert_int_equal(json_object_set_new(vc_json_path(j, "status.state"),
						     "lastTransitionTime", json_string(lt)),
				 0);
	return j;
}

static void env_start(struct env *e, int workers)
{
	struct ctx_opts o = { .jobs = true };
	struct gcctl_config cfg;
	struct vc_error err;

	fake_ctx_init(&e->f, &e->kube, &e->ctx, &o);
	gcctl_config_defaults(&cfg);
	assert_int_equal(cfg.workers, 1);
	cfg.workers = workers;
	assert_int_equal(gcctl_new(&e->ctx, &cfg, &e->gc, &err), 0);
	fake_ctx_start(&e->ctx);
}

static void env_stop(struct env *e)
{
	gcctl_stop(e->gc);
	ctx_stop(&e->ctx);
	gcctl_free(e->gc);
	fake_ctx_release(&e->f, e->kube, &e->ctx);
}

static void env_init(struct env *e)
{
	memset(e, 0, sizeof(*e));
	fake_init(&e->f);
	fake_clock_set(T0);
}

static void test_deleted_when_ttl_expires(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	fake_clock_advance(40 * VC_NSEC_PER_SEC);
	fake_put(&e.f, &vc_gvr_jobs, job("j1", "Completed", 100, T0STR));
	env_start(&e, 1);
	/* 60 s are left: the key waits. */
	assert_int_equal(gcctl_run_once(e.gc), 1);
	fake_expect(&e.f, "");
	assert_int_equal(gcctl_run_once(e.gc), 0);
	fake_clock_advance(60 * VC_NSEC_PER_SEC - 1);
	assert_int_equal(gcctl_run_once(e.gc), 0);
	fake_clock_advance(1);
	assert_int_equal(gcctl_run_once(e.gc), 1);
	fake_expect(&e.f, GET_J1 DEL_J1);
	assert_false(fake_has(&e.f, &vc_gvr_jobs, "ns/j1"));
	assert_int_equal(gcctl_run_once(e.gc), 0);
	env_stop(&e);
}

static void test_finished_phases(void **state)
{
	static const char *const phases[] = { "Completed", "Failed", "Terminated" };
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(phases); i++) {
		struct env e;

		env_init(&e);
		fake_put(&e.f, &vc_gvr_jobs, job("j1", phases[i], 0, T0STR));
		env_start(&e, 1);
		assert_int_equal(gcctl_run_once(e.gc), 1);
		fake_expect(&e.f, GET_J1 DEL_J1);
		env_stop(&e);
	}
}

static void test_not_qualified(void **state)
{
	struct env e;
	json_t *j;

	(void)state;
	env_init(&e);
	fake_clock_advance(1000 * VC_NSEC_PER_SEC);
	/* Not finished, Aborted (not finished), no TTL, being deleted. */
	fake_put(&e.f, &vc_gvr_jobs, job("run", "Running", 0, T0STR));
	fake_put(&e.f, &vc_gvr_jobs, job("abo", "Aborted", 0, T0STR));
	fake_put(&e.f, &vc_gvr_jobs, job("nottl", "Completed", -1, T0STR));
	j = job("del", "Completed", 0, T0STR);
	assert_int_equal(json_object_set_new(json_object_get(j, "metadata"), "deletionTimestamp",
					     json_string(T0STR)),
			 0);
	fake_put(&e.f, &vc_gvr_jobs, j);
	env_start(&e, 1);
	/* Only the one being deleted is queued (it qualifies but is skipped in processTTL). */
	assert_int_equal(gcctl_run_once(e.gc), 1);
	assert_int_equal(gcctl_run_once(e.gc), 0);
	fake_expect(&e.f, "");

	/* The running Job finishes: it is deleted at once (its TTL is long gone). */
	fake_emit(&e.f, &vc_gvr_jobs, VC_WATCH_MODIFIED, job("run", "Failed", 10, T0STR));
	assert_int_equal(gcctl_run_once(e.gc), 1);
	fake_expect(&e.f, "GET /apis/batch.volcano.sh/v1alpha1/namespaces/ns/jobs/run\n"
			  "DELETE /apis/batch.volcano.sh/v1alpha1/namespaces/ns/jobs/run "
			  "propagation=Foreground uid=u1\n");
	env_stop(&e);
}

static void test_fresh_object_rechecked(void **state)
{
	struct env e;
	json_t *j;

	(void)state;
	env_init(&e);
	fake_clock_advance(10 * VC_NSEC_PER_SEC);
	fake_put(&e.f, &vc_gvr_jobs, job("j1", "Completed", 5, T0STR));
	env_start(&e, 1);
	/* The API server's copy has a longer TTL (the cache is stale): wait 20 s more. */
	fake_put(&e.f, &vc_gvr_jobs, job("j1", "Completed", 30, T0STR));
	assert_int_equal(gcctl_run_once(e.gc), 1);
	fake_expect(&e.f, GET_J1);
	fake_clock_advance(20 * VC_NSEC_PER_SEC - 1);
	assert_int_equal(gcctl_run_once(e.gc), 0);
	/* Meanwhile the Job is being deleted by someone else: nothing to do. */
	j = job("j1", "Completed", 30, T0STR);
	assert_int_equal(json_object_set_new(json_object_get(j, "metadata"), "deletionTimestamp",
					     json_string(T0STR)),
			 0);
	fake_put(&e.f, &vc_gvr_jobs, j);
	fake_clock_advance(1);
	assert_int_equal(gcctl_run_once(e.gc), 1);
	fake_expect(&e.f, GET_J1);
	assert_int_equal(gcctl_run_once(e.gc), 0);
	env_stop(&e);
}

static void test_gone_and_errors(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	fake_put(&e.f, &vc_gvr_jobs, job("j1", "Completed", 0, T0STR));
	env_start(&e, 1);

	/* The fresh read fails: retried after the rate limiter's 5 ms. */
	fake_fail(&e.f, "GET", JOB_PATH, VC_ESERVER, 1);
	assert_int_equal(gcctl_run_once(e.gc), 1);
	fake_expect(&e.f, GET_J1);
	assert_int_equal(gcctl_run_once(e.gc), 0);
	fake_clock_advance(5 * VC_NSEC_PER_MSEC);
	/* Then the delete fails: retried after 10 ms. */
	fake_fail(&e.f, "DELETE", JOB_PATH, VC_ESERVER, 1);
	assert_int_equal(gcctl_run_once(e.gc), 1);
	fake_expect(&e.f, GET_J1 DEL_J1);
	fake_clock_advance(10 * VC_NSEC_PER_MSEC - 1);
	assert_int_equal(gcctl_run_once(e.gc), 0);
	fake_clock_advance(1);
	/* Deleted meanwhile through someone else (NotFound on the delete is fine). */
	fake_fail(&e.f, "DELETE", JOB_PATH, VC_ENOTFOUND, 1);
	assert_int_equal(gcctl_run_once(e.gc), 1);
	fake_expect(&e.f, GET_J1 DEL_J1);
	assert_int_equal(gcctl_run_once(e.gc), 0);

	/* Gone from the API server but still cached: the GET says NotFound, nothing else. */
	fake_emit(&e.f, &vc_gvr_jobs, VC_WATCH_ADDED, job("j2", "Failed", 0, T0STR));
	fake_fail(&e.f, "GET", "/apis/batch.volcano.sh/v1alpha1/namespaces/ns/jobs/j2",
		  VC_ENOTFOUND, 1);
	assert_int_equal(gcctl_run_once(e.gc), 1);
	fake_expect(&e.f, "GET /apis/batch.volcano.sh/v1alpha1/namespaces/ns/jobs/j2\n");
	fake_clock_advance(VC_NSEC_PER_SEC);
	assert_int_equal(gcctl_run_once(e.gc), 0);
	env_stop(&e);
}

static void test_missing_finish_time(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	fake_put(&e.f, &vc_gvr_jobs, job("j1", "Completed", 0, NULL));
	fake_put(&e.f, &vc_gvr_jobs, job("j2", "Completed", 0, "yesterday"));
	env_start(&e, 1);
	assert_int_equal(gcctl_run_once(e.gc), 1);
	assert_int_equal(gcctl_run_once(e.gc), 1);
	assert_int_equal(gcctl_run_once(e.gc), 0);
	fake_expect(&e.f, "");
	/* Both are retried with the rate limiter, and deleted once the time is there. */
	fake_emit(&e.f, &vc_gvr_jobs, VC_WATCH_MODIFIED, job("j1", "Completed", 0, T0STR));
	fake_clock_advance(5 * VC_NSEC_PER_MSEC);
	assert_int_equal(gcctl_run_once(e.gc), 1);
	assert_int_equal(gcctl_run_once(e.gc), 1);
	assert_int_equal(gcctl_run_once(e.gc), 0);
	fake_expect(&e.f, GET_J1 DEL_J1);
	env_stop(&e);
}

static void test_future_finish_time(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	/* Time skew: finished 30 s in the future with a TTL of 10 s: 40 s to wait. */
	fake_put(&e.f, &vc_gvr_jobs, job("j1", "Completed", 10, "2023-11-14T22:13:50Z"));
	env_start(&e, 1);
	assert_int_equal(gcctl_run_once(e.gc), 1);
	fake_clock_advance(40 * VC_NSEC_PER_SEC - 1);
	assert_int_equal(gcctl_run_once(e.gc), 0);
	fake_clock_advance(1);
	assert_int_equal(gcctl_run_once(e.gc), 1);
	fake_expect(&e.f, GET_J1 DEL_J1);
	env_stop(&e);
}

static void test_threads(void **state)
{
	struct env e;
	int i;

	(void)state;
	env_init(&e);
	fake_put(&e.f, &vc_gvr_jobs, job("j1", "Completed", 0, T0STR));
	env_start(&e, 2);
	assert_int_equal(gcctl_start(e.gc), 0);
	assert_int_equal(gcctl_start(e.gc), VC_EINVAL);
	for (i = 0; i < 5000 && fake_has(&e.f, &vc_gvr_jobs, "ns/j1"); i++) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
	gcctl_stop(e.gc);
	gcctl_stop(e.gc);
	fake_expect(&e.f, GET_J1 DEL_J1);
	env_stop(&e);
}

static void test_new_errors(void **state)
{
	struct vc_ctrl_ctx ctx;
	struct gcctl_config cfg;
	struct gcctl *gc = (struct gcctl *)1;
	struct vc_error err;

	(void)state;
	memset(&ctx, 0, sizeof(ctx));
	gcctl_config_defaults(&cfg);
	assert_int_equal(gcctl_new(&ctx, &cfg, &gc, &err), VC_EINVAL);
	assert_null(gc);
	assert_string_equal(err.text, "gc controller needs the jobs informer");
	gcctl_free(NULL);
	gcctl_stop(NULL);
}

/* Every allocation failure on the way to the delete unwinds and is retried later. */
static void test_alloc_failures(void **state)
{
	long n;

	(void)state;
	for (n = 0; n < 400; n++) {
		struct env e;
		long failures;
		int i;

		env_init(&e);
		fake_put(&e.f, &vc_gvr_jobs, job("j1", "Completed", 0, T0STR));
		env_start(&e, 1);
		vc_alloc_fail_after(n);
		assert_int_equal(gcctl_run_once(e.gc), 1);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		/*
		 * The retry itself may have failed for lack of memory: then the next event (here a
		 * resync-like MODIFIED) queues the Job again.
		 */
		for (i = 0; i < 10 && fake_has(&e.f, &vc_gvr_jobs, "ns/j1"); i++) {
			fake_clock_advance(VC_NSEC_PER_SEC);
			if (!gcctl_run_once(e.gc))
				fake_touch(&e.f, &vc_gvr_jobs, "ns/j1");
		}
		assert_false(fake_has(&e.f, &vc_gvr_jobs, "ns/j1"));
		env_stop(&e);
		if (!failures)
			break;
	}
	assert_true(n < 400);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deleted_when_ttl_expires),
		cmocka_unit_test(test_finished_phases),
		cmocka_unit_test(test_not_qualified),
		cmocka_unit_test(test_fresh_object_rechecked),
		cmocka_unit_test(test_gone_and_errors),
		cmocka_unit_test(test_missing_finish_time),
		cmocka_unit_test(test_future_finish_time),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_new_errors),
		cmocka_unit_test(test_alloc_failures),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
