/* Unit tests for vc-nodesim's kubelet model: the whole pod life cycle on a fake clock. */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>

#include "kubelet.h"
#include "vc_json.h"

#define S  1000000000LL
#define T0 (1700000000LL * S)

static json_t *pod(const char *policy, const char *run, const char *exit_code, int ncontainers)
{
	json_t *p = json_pack("{s:{s:s, s:s, s:s, s:{}}, s:{s:s, s:s, s:[]}}", "metadata", "name",
			      "job-worker-0", "namespace", "ns", "uid", "u-1", "annotations",
			      "spec", "nodeName", "sim-0", "restartPolicy", policy, "containers");
	json_t *ann = json_object_get(json_object_get(p, "metadata"), "annotations");
	json_t *cs = json_object_get(json_object_get(p, "spec"), "containers");
	int i;

	for (i = 0; i < ncontainers; i++) {
		char name[16];

		snprintf(name, sizeof(name), "c%d", i);
		json_array_append_new(cs,
				      json_pack("{s:s, s:s}", "name", name, "image", "busybox"));
	}
	if (run)
		json_object_set_new(ann, SIM_ANN_RUN_SECONDS, json_string(run));
	if (exit_code)
		json_object_set_new(ann, SIM_ANN_EXIT_CODE, json_string(exit_code));
	return p;
}

static struct sim_pod *sim(const json_t *p)
{
	struct sim_pod *sp = NULL;

	assert_int_equal(sim_pod_new(p, "sim-0", "10.64.0.2", "172.16.0.1", &sp, NULL), 0);
	return sp;
}

static const char *phase(const struct sim_action *a)
{
	return vc_json_get_str(a->status, "phase");
}

static const json_t *cstatus(const struct sim_action *a, size_t i)
{
	return json_array_get(json_object_get(a->status, "containerStatuses"), i);
}

static void test_runs_then_succeeds(void **state)
{
	struct sim_config cfg = { .default_run_ns = -1 };
	json_t *p = pod("Never", "10", NULL, 1);
	struct sim_pod *sp = sim(p);
	struct sim_action a;

	(void)state;
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0, &a, NULL), 0);
	assert_string_equal(phase(&a), "Running");
	assert_string_equal(vc_json_get_str(a.status, "podIP"), "10.64.0.2");
	assert_string_equal(vc_json_get_str(a.status, "hostIP"), "172.16.0.1");
	assert_string_equal(vc_json_get_str(a.status, "startTime"), "2023-11-14T22:13:20Z");
	assert_non_null(vc_json_path(cstatus(&a, 0), "state.running.startedAt"));
	assert_true(json_is_true(json_object_get(cstatus(&a, 0), "ready")));
	assert_int_equal(a.wake_ns, T0 + 10 * S);
	json_decref(a.status);

	/* Nothing to do before the run time is up. */
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 5 * S, &a, NULL), 0);
	assert_null(a.status);
	assert_int_equal(a.wake_ns, T0 + 10 * S);

	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 10 * S, &a, NULL), 0);
	assert_string_equal(phase(&a), "Succeeded");
	assert_null(vc_json_path(cstatus(&a, 0), "state.running"));
	assert_int_equal((int)vc_json_get_int(vc_json_path(cstatus(&a, 0), "state.terminated"),
					      "exitCode", -1),
			 0);
	assert_string_equal(
		vc_json_get_str(vc_json_path(cstatus(&a, 0), "state.terminated"), "reason"),
		"Completed");
	assert_int_equal(a.wake_ns, 0);
	json_decref(a.status);
	/* A finished pod stays as it is. */
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 99 * S, &a, NULL), 0);
	assert_null(a.status);
	sim_pod_free(sp);
	json_decref(p);
}

static void test_runs_forever_without_run_time(void **state)
{
	struct sim_config cfg = { .default_run_ns = -1 };
	json_t *p = pod("Never", NULL, NULL, 1);
	struct sim_pod *sp = sim(p);
	struct sim_action a;

	(void)state;
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0, &a, NULL), 0);
	assert_string_equal(phase(&a), "Running");
	assert_int_equal(a.wake_ns, 0);
	json_decref(a.status);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 1000000 * S, &a, NULL), 0);
	assert_null(a.status);
	sim_pod_free(sp);
	json_decref(p);
}

static void test_default_run_time_and_failure(void **state)
{
	struct sim_config cfg = { .default_run_ns = 3 * S };
	json_t *p = pod("Never", NULL, "c0=0,c1=7", 2);
	struct sim_pod *sp = sim(p);
	struct sim_action a;

	(void)state;
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0, &a, NULL), 0);
	json_decref(a.status);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 3 * S, &a, NULL), 0);
	assert_string_equal(phase(&a), "Failed");
	assert_int_equal((int)vc_json_get_int(vc_json_path(cstatus(&a, 1), "state.terminated"),
					      "exitCode", -1),
			 7);
	assert_string_equal(
		vc_json_get_str(vc_json_path(cstatus(&a, 1), "state.terminated"), "reason"),
		"Error");
	assert_string_equal(
		vc_json_get_str(json_array_get(json_object_get(a.status, "conditions"), 1),
				"status"),
		"False");
	json_decref(a.status);
	sim_pod_free(sp);
	json_decref(p);
}

static void test_restart_policies(void **state)
{
	struct sim_config cfg = { .default_run_ns = -1 };
	json_t *onfail = pod("OnFailure", "2", "1", 1);
	json_t *always = pod("Always", "2", NULL, 1);
	struct sim_pod *sp;
	struct sim_action a;

	(void)state;
	/* OnFailure: a non-zero exit restarts the container, counting restarts. */
	sp = sim(onfail);
	assert_int_equal(sim_pod_step(sp, &cfg, onfail, T0, &a, NULL), 0);
	json_decref(a.status);
	assert_int_equal(sim_pod_step(sp, &cfg, onfail, T0 + 2 * S, &a, NULL), 0);
	assert_string_equal(phase(&a), "Running");
	assert_int_equal(vc_json_get_int(cstatus(&a, 0), "restartCount", -1), 1);
	assert_int_equal((int)vc_json_get_int(vc_json_path(cstatus(&a, 0), "lastState.terminated"),
					      "exitCode", -1),
			 1);
	assert_int_equal(a.wake_ns, T0 + 4 * S);
	json_decref(a.status);
	sim_pod_free(sp);

	/* Always: even a clean exit restarts. */
	sp = sim(always);
	assert_int_equal(sim_pod_step(sp, &cfg, always, T0, &a, NULL), 0);
	json_decref(a.status);
	assert_int_equal(sim_pod_step(sp, &cfg, always, T0 + 5 * S, &a, NULL), 0);
	assert_string_equal(phase(&a), "Running");
	assert_int_equal(vc_json_get_int(cstatus(&a, 0), "restartCount", -1), 1);
	json_decref(a.status);
	sim_pod_free(sp);
	json_decref(onfail);
	json_decref(always);
}

static void test_exit_code_set_on_running_pod_ends_it(void **state)
{
	struct sim_config cfg = { .default_run_ns = -1 };
	json_t *p = pod("Never", NULL, NULL, 1);
	struct sim_pod *sp = sim(p);
	struct sim_action a;

	(void)state;
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0, &a, NULL), 0);
	json_decref(a.status);
	json_object_set_new(json_object_get(json_object_get(p, "metadata"), "annotations"),
			    SIM_ANN_EXIT_CODE, json_string("42"));
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 7 * S, &a, NULL), 0);
	assert_string_equal(phase(&a), "Failed");
	assert_int_equal((int)vc_json_get_int(vc_json_path(cstatus(&a, 0), "state.terminated"),
					      "exitCode", -1),
			 42);
	assert_string_equal(
		vc_json_get_str(vc_json_path(cstatus(&a, 0), "state.terminated"), "finishedAt"),
		"2023-11-14T22:13:27Z");
	json_decref(a.status);
	sim_pod_free(sp);
	json_decref(p);
}

static void set_deleting(json_t *p, int grace)
{
	json_t *md = json_object_get(p, "metadata");

	json_object_set_new(md, "deletionTimestamp", json_string("2023-11-14T22:14:00Z"));
	json_object_set_new(md, "deletionGracePeriodSeconds", json_integer(grace));
}

static void test_graceful_and_fast_delete(void **state)
{
	struct sim_config cfg = { .default_run_ns = -1 };
	struct sim_config fast = { .default_run_ns = -1, .fast_delete = true };
	json_t *p = pod("Always", NULL, NULL, 1);
	struct sim_pod *sp = sim(p);
	struct sim_action a;

	(void)state;
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0, &a, NULL), 0);
	json_decref(a.status);
	set_deleting(p, 30);
	/* The containers are shown terminated; the pod goes when the grace period is over. */
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + S, &a, NULL), 0);
	assert_non_null(a.status);
	assert_non_null(vc_json_path(cstatus(&a, 0), "state.terminated"));
	assert_false(a.delete_now);
	assert_int_equal(a.wake_ns, T0 + 31 * S);
	json_decref(a.status);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 20 * S, &a, NULL), 0);
	assert_false(a.delete_now);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 31 * S, &a, NULL), 0);
	assert_true(a.delete_now);
	assert_null(a.status);
	/* Exactly one delete. */
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 40 * S, &a, NULL), 0);
	assert_false(a.delete_now);
	sim_pod_free(sp);

	/* --fast-delete removes at once. */
	json_decref(p);
	p = pod("Always", NULL, NULL, 1);
	sp = sim(p);
	assert_int_equal(sim_pod_step(sp, &fast, p, T0, &a, NULL), 0);
	json_decref(a.status);
	set_deleting(p, 30);
	assert_int_equal(sim_pod_step(sp, &fast, p, T0 + S, &a, NULL), 0);
	assert_true(a.delete_now);
	sim_pod_free(sp);
	json_decref(p);
}

static void test_finished_pod_deleted_at_once(void **state)
{
	struct sim_config cfg = { .default_run_ns = -1 };
	json_t *p = pod("Never", "1", NULL, 1);
	struct sim_pod *sp = sim(p);
	struct sim_action a;

	(void)state;
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0, &a, NULL), 0);
	json_decref(a.status);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + S, &a, NULL), 0);
	json_decref(a.status);
	set_deleting(p, 30);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 2 * S, &a, NULL), 0);
	assert_true(a.delete_now);
	sim_pod_free(sp);
	json_decref(p);
}

static void test_init_containers_complete_first(void **state)
{
	struct sim_config cfg = { .default_run_ns = -1 };
	json_t *p = pod("Never", NULL, NULL, 1);
	struct sim_pod *sp;
	struct sim_action a;
	const json_t *ics;

	(void)state;
	json_object_set_new(json_object_get(p, "spec"), "initContainers",
			    json_pack("[{s:s, s:s}]", "name", "init", "image", "alpine"));
	sp = sim(p);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0, &a, NULL), 0);
	ics = json_object_get(a.status, "initContainerStatuses");
	assert_int_equal(json_array_size(ics), 1);
	assert_string_equal(vc_json_get_str(json_array_get(ics, 0), "name"), "init");
	assert_int_equal(
		(int)vc_json_get_int(vc_json_path(json_array_get(ics, 0), "state.terminated"),
				     "exitCode", -1),
		0);
	assert_string_equal(phase(&a), "Running");
	json_decref(a.status);
	sim_pod_free(sp);
	json_decref(p);
}

static void test_annotation_parsing(void **state)
{
	struct vc_error err;
	int64_t ns;
	int code;

	(void)state;
	assert_int_equal(sim_run_ns("1.5", -1, &ns, NULL), 0);
	assert_int_equal(ns, 1500000000LL);
	assert_int_equal(sim_run_ns(NULL, 7, &ns, NULL), 0);
	assert_int_equal(ns, 7);
	vc_error_clear(&err);
	assert_int_equal(sim_run_ns("soon", 7, &ns, &err), VC_EINVALID);
	assert_int_equal(ns, 7);
	assert_string_equal(err.text, "annotation sandbox.caldera.dev/run-seconds: \"soon\" is not "
				      "a non-negative number of seconds");
	assert_int_equal(sim_run_ns("-1", 7, &ns, NULL), VC_EINVALID);

	assert_int_equal(sim_exit_code_for("3", "any", &code, NULL), 0);
	assert_int_equal(code, 3);
	assert_int_equal(sim_exit_code_for("a=1,b=2", "b", &code, NULL), 0);
	assert_int_equal(code, 2);
	assert_int_equal(sim_exit_code_for("a=1,b=2", "c", &code, NULL), 0);
	assert_int_equal(code, 0);
	assert_int_equal(sim_exit_code_for(NULL, "c", &code, NULL), 0);
	assert_int_equal(code, 0);
	assert_int_equal(sim_exit_code_for("256", "c", &code, NULL), VC_EINVALID);
	assert_int_equal(sim_exit_code_for("a=x", "a", &code, NULL), VC_EINVALID);
	assert_int_equal(sim_exit_code_for("a=1,,b=2", "a", &code, NULL), VC_EINVALID);
	assert_int_equal(sim_exit_code_for("=1", "a", &code, NULL), VC_EINVALID);
}

static void test_bad_annotation_runs_with_defaults(void **state)
{
	struct sim_config cfg = { .default_run_ns = 2 * S };
	json_t *p = pod("Never", "later", NULL, 1);
	struct sim_pod *sp = sim(p);
	struct vc_error err;
	struct sim_action a;

	(void)state;
	vc_error_clear(&err);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0, &a, &err), VC_EINVALID);
	assert_string_equal(phase(&a), "Running");
	assert_int_equal(a.wake_ns, T0 + 2 * S);
	json_decref(a.status);
	sim_pod_free(sp);
	json_decref(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_then_succeeds),
		cmocka_unit_test(test_runs_forever_without_run_time),
		cmocka_unit_test(test_default_run_time_and_failure),
		cmocka_unit_test(test_restart_policies),
		cmocka_unit_test(test_exit_code_set_on_running_pod_ends_it),
		cmocka_unit_test(test_graceful_and_fast_delete),
		cmocka_unit_test(test_finished_pod_deleted_at_once),
		cmocka_unit_test(test_init_containers_complete_first),
		cmocka_unit_test(test_annotation_parsing),
		cmocka_unit_test(test_bad_annotation_runs_with_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
