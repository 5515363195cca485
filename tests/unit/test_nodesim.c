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

static void set_deleting(json_t *p, int grace)
{
	json_t *md = json_object_get(p, "metadata");

	json_object_set_new(md, "deletionTimestamp", json_string("2023-11-14T22:14:00Z"));
	json_object_set_new(md, "deletionGracePeriodSeconds", json_integer(grace));
}

/* ---- CrashLoopBackOff --------------------------------------------------------------------- */

/* The string at path ("a.b.c") in container status i, "(absent)" when there is none. */
static const char *cstr(const struct sim_action *a, size_t i, const char *path)
{
	const char *dot = strrchr(path, '.');
	char parent[64];
	const char *v;

	snprintf(parent, sizeof(parent), "%.*s", (int)(dot - path), path);
	v = vc_json_get_str(vc_json_path(cstatus(a, i), parent), dot + 1);
	return v ? v : "(absent)";
}

/* The pod condition of this type in the status written. */
static const json_t *cond(const struct sim_action *a, const char *type)
{
	const json_t *c;
	size_t i;

	json_array_foreach (json_object_get(a->status, "conditions"), i, c) {
		if (!strcmp(vc_json_get_str(c, "type"), type))
			return c;
	}
	return NULL;
}

static void set_annotation(json_t *p, const char *key, const char *value)
{
	json_object_set_new(json_object_get(json_object_get(p, "metadata"), "annotations"), key,
			    json_string(value));
}

/* Step at now; the container's restartCount must then be restarts and it must be waiting out
 * a back-off printed as delay, due at now + delay_s. */
static void expect_backoff(struct sim_pod *sp, const struct sim_config *cfg, json_t *p, int64_t now,
			   int restarts, const char *delay, int64_t delay_s)
{
	char msg[160];
	struct sim_action a;

	assert_int_equal(sim_pod_step(sp, cfg, p, now, &a, NULL), 0);
	assert_non_null(a.status);
	assert_string_equal(phase(&a), "Running");
	assert_int_equal(vc_json_get_int(cstatus(&a, 0), "restartCount", -1), restarts);
	assert_string_equal(cstr(&a, 0, "state.waiting.reason"), "CrashLoopBackOff");
	snprintf(msg, sizeof(msg),
		 "back-off %s restarting failed container=c0 pod=job-worker-0_ns(u-1)", delay);
	assert_string_equal(cstr(&a, 0, "state.waiting.message"), msg);
	assert_null(vc_json_path(cstatus(&a, 0), "state.running"));
	assert_true(json_is_false(json_object_get(cstatus(&a, 0), "ready")));
	assert_true(json_is_false(json_object_get(cstatus(&a, 0), "started")));
	assert_int_equal(a.wake_ns, now + delay_s * S);
	json_decref(a.status);
	/* Nothing to write while the back-off runs. */
	assert_int_equal(sim_pod_step(sp, cfg, p, now + delay_s * S - 1, &a, NULL), 0);
	assert_null(a.status);
	assert_int_equal(a.wake_ns, now + delay_s * S);
}

/*
 * A container that exits at once under restartPolicy Always: the kubelet restarts it at once the
 * first time, then waits 10 s, doubling per restart up to 5 minutes (kubelet.go backOffPeriod,
 * MaxContainerBackOff; flowcontrol.Backoff), printing the wait as Go prints a Duration.
 */
static void test_crashloop_backoff_schedule(void **state)
{
	static const struct {
		const char *text;
		int64_t s;
	} delays[] = { { "10s", 10 },	 { "20s", 20 },	  { "40s", 40 },  { "1m20s", 80 },
		       { "2m40s", 160 }, { "5m0s", 300 }, { "5m0s", 300 } };
	struct sim_config cfg = { .default_run_ns = -1 };
	json_t *p = pod("Always", "0", NULL, 1);
	struct sim_pod *sp = sim(p);
	struct sim_action a;
	const json_t *c;
	int64_t t = T0;
	size_t i;

	(void)state;
	/* The first status: started, exited, restarted once, exited again: now backing off. */
	assert_int_equal(sim_pod_step(sp, &cfg, p, t, &a, NULL), 0);
	assert_int_equal(vc_json_get_int(cstatus(&a, 0), "restartCount", -1), 1);
	assert_string_equal(cstr(&a, 0, "state.waiting.reason"), "CrashLoopBackOff");
	assert_string_equal(cstr(&a, 0, "state.waiting.message"),
			    "back-off 10s restarting failed container=c0 pod=job-worker-0_ns(u-1)");
	assert_int_equal((int)vc_json_get_int(vc_json_path(cstatus(&a, 0), "lastState.terminated"),
					      "exitCode", -1),
			 0);
	assert_string_equal(cstr(&a, 0, "lastState.terminated.reason"), "Completed");
	assert_string_equal(cstr(&a, 0, "lastState.terminated.startedAt"), "2023-11-14T22:13:20Z");
	assert_string_equal(cstr(&a, 0, "lastState.terminated.finishedAt"), "2023-11-14T22:13:20Z");
	/* The kubelet's Ready and ContainersReady conditions (status/generate.go). */
	c = cond(&a, "Ready");
	assert_string_equal(vc_json_get_str(c, "status"), "False");
	assert_string_equal(vc_json_get_str(c, "reason"), "ContainersNotReady");
	assert_string_equal(vc_json_get_str(c, "message"), "containers with unready status: [c0]");
	c = cond(&a, "ContainersReady");
	assert_string_equal(vc_json_get_str(c, "status"), "False");
	assert_string_equal(vc_json_get_str(c, "reason"), "ContainersNotReady");
	assert_string_equal(vc_json_get_str(c, "message"), "containers with unready status: [c0]");
	assert_string_equal(phase(&a), "Running");
	assert_int_equal(a.wake_ns, t + 10 * S);
	json_decref(a.status);

	/* Each restart comes when its back-off is over and doubles the next one, up to 5m0s. */
	for (i = 0; i + 1 < VC_ARRAY_SIZE(delays); i++) {
		t += delays[i].s * S;
		expect_backoff(sp, &cfg, p, t, (int)i + 2, delays[i + 1].text, delays[i + 1].s);
	}
	/* A late step catches up on the restarts it missed, in one status write. */
	t += 3 * 300 * S;
	assert_int_equal(sim_pod_step(sp, &cfg, p, t + 5 * S, &a, NULL), 0);
	assert_int_equal(vc_json_get_int(cstatus(&a, 0), "restartCount", -1), (int)i + 4);
	assert_int_equal(t, T0 + 1510 * S);
	assert_string_equal(cstr(&a, 0, "lastState.terminated.finishedAt"), "2023-11-14T22:38:30Z");
	assert_int_equal(a.wake_ns, t + 300 * S);
	json_decref(a.status);
	sim_pod_free(sp);
	json_decref(p);
}

/*
 * The back-off is forgotten once the container ran more than 2 x the maximum (10 minutes)
 * since its last restart (flowcontrol.Backoff's hasExpired): the next exit restarts at once and
 * the one after waits 10 s again. A run of exactly 10 minutes keeps it.
 */
static void test_crashloop_backoff_reset(void **state)
{
	struct sim_config cfg = { .default_run_ns = -1 };
	json_t *p = pod("Always", NULL, NULL, 1);
	struct sim_pod *sp = sim(p);
	struct sim_action a;

	(void)state;
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0, &a, NULL), 0);
	json_decref(a.status);
	/* The first exit restarts at once. */
	set_annotation(p, SIM_ANN_EXIT_CODE, "1");
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 1 * S, &a, NULL), 0);
	assert_int_equal(vc_json_get_int(cstatus(&a, 0), "restartCount", -1), 1);
	assert_string_equal(cstr(&a, 0, "state.running.startedAt"), "2023-11-14T22:13:21Z");
	assert_string_equal(cstr(&a, 0, "lastState.terminated.reason"), "Error");
	assert_true(json_is_true(json_object_get(cstatus(&a, 0), "ready")));
	assert_string_equal(vc_json_get_str(cond(&a, "Ready"), "status"), "True");
	assert_int_equal(a.wake_ns, 0);
	json_decref(a.status);
	/* Then 10 s, then 20 s, then 40 s after a run of exactly 10 minutes. */
	set_annotation(p, SIM_ANN_EXIT_CODE, "2");
	expect_backoff(sp, &cfg, p, T0 + 2 * S, 1, "10s", 10);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 12 * S, &a, NULL), 0);
	assert_int_equal(vc_json_get_int(cstatus(&a, 0), "restartCount", -1), 2);
	assert_string_equal(cstr(&a, 0, "state.running.startedAt"), "2023-11-14T22:13:32Z");
	assert_int_equal(a.wake_ns, 0);
	json_decref(a.status);
	set_annotation(p, SIM_ANN_EXIT_CODE, "3");
	expect_backoff(sp, &cfg, p, T0 + 13 * S, 2, "20s", 20);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 33 * S, &a, NULL), 0);
	assert_int_equal(vc_json_get_int(cstatus(&a, 0), "restartCount", -1), 3);
	json_decref(a.status);
	set_annotation(p, SIM_ANN_EXIT_CODE, "4");
	expect_backoff(sp, &cfg, p, T0 + 633 * S, 3, "40s", 40);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 673 * S, &a, NULL), 0);
	assert_int_equal(vc_json_get_int(cstatus(&a, 0), "restartCount", -1), 4);
	json_decref(a.status);
	/* 601 s of running: the back-off starts over. */
	set_annotation(p, SIM_ANN_EXIT_CODE, "5");
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 1274 * S, &a, NULL), 0);
	assert_int_equal(vc_json_get_int(cstatus(&a, 0), "restartCount", -1), 5);
	assert_non_null(vc_json_path(cstatus(&a, 0), "state.running"));
	assert_int_equal((int)vc_json_get_int(vc_json_path(cstatus(&a, 0), "lastState.terminated"),
					      "exitCode", -1),
			 5);
	json_decref(a.status);
	set_annotation(p, SIM_ANN_EXIT_CODE, "6");
	expect_backoff(sp, &cfg, p, T0 + 1275 * S, 5, "10s", 10);
	sim_pod_free(sp);
	json_decref(p);
}

/* OnFailure: a failing container backs off, a clean one is done; both are unready. */
static void test_crashloop_onfailure_two_containers(void **state)
{
	struct sim_config cfg = { .default_run_ns = -1 };
	json_t *p = pod("OnFailure", "0", "c1=1", 2);
	struct sim_pod *sp = sim(p);
	struct sim_action a;

	(void)state;
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0, &a, NULL), 0);
	assert_string_equal(phase(&a), "Running");
	assert_string_equal(cstr(&a, 0, "state.terminated.reason"), "Completed");
	assert_int_equal(vc_json_get_int(cstatus(&a, 0), "restartCount", -1), 0);
	assert_string_equal(cstr(&a, 1, "state.waiting.reason"), "CrashLoopBackOff");
	assert_int_equal(vc_json_get_int(cstatus(&a, 1), "restartCount", -1), 1);
	assert_string_equal(vc_json_get_str(cond(&a, "ContainersReady"), "message"),
			    "containers with unready status: [c0 c1]");
	assert_int_equal(a.wake_ns, T0 + 10 * S);
	json_decref(a.status);
	sim_pod_free(sp);
	json_decref(p);
}

/*
 * --crash-backoff 2s --crash-backoff-max 8s: 2s, 4s, 8s, 8s; the back-off is forgotten after a
 * run of more than 16 s. A pod that is only backing off has nothing to kill: deleted at once.
 */
static void test_crashloop_configured_backoff(void **state)
{
	struct sim_config cfg = { .default_run_ns = -1,
				  .backoff_ns = 2 * S,
				  .backoff_max_ns = 8 * S };
	json_t *p = pod("Always", "0", NULL, 1);
	struct sim_pod *sp = sim(p);
	struct sim_action a;

	(void)state;
	expect_backoff(sp, &cfg, p, T0, 1, "2s", 2);
	expect_backoff(sp, &cfg, p, T0 + 2 * S, 2, "4s", 4);
	expect_backoff(sp, &cfg, p, T0 + 6 * S, 3, "8s", 8);
	expect_backoff(sp, &cfg, p, T0 + 14 * S, 4, "8s", 8);
	set_deleting(p, 30);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 15 * S, &a, NULL), 0);
	assert_true(a.delete_now);
	assert_null(a.status);
	sim_pod_free(sp);
	json_decref(p);

	/* 17 s of running since the last restart: at once, then 2 s again. */
	p = pod("OnFailure", "17", "1", 1);
	sp = sim(p);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0, &a, NULL), 0);
	json_decref(a.status);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 17 * S, &a, NULL), 0);
	assert_int_equal(vc_json_get_int(cstatus(&a, 0), "restartCount", -1), 1);
	assert_non_null(vc_json_path(cstatus(&a, 0), "state.running"));
	assert_int_equal(a.wake_ns, T0 + 34 * S);
	json_decref(a.status);
	assert_int_equal(sim_pod_step(sp, &cfg, p, T0 + 34 * S, &a, NULL), 0);
	assert_int_equal(vc_json_get_int(cstatus(&a, 0), "restartCount", -1), 2);
	assert_non_null(vc_json_path(cstatus(&a, 0), "state.running"));
	json_decref(a.status);
	sim_pod_free(sp);
	json_decref(p);
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
		cmocka_unit_test(test_crashloop_backoff_schedule),
		cmocka_unit_test(test_crashloop_backoff_reset),
		cmocka_unit_test(test_crashloop_onfailure_two_containers),
		cmocka_unit_test(test_crashloop_configured_backoff),
		cmocka_unit_test(test_exit_code_set_on_running_pod_ends_it),
		cmocka_unit_test(test_graceful_and_fast_delete),
		cmocka_unit_test(test_finished_pod_deleted_at_once),
		cmocka_unit_test(test_init_containers_complete_first),
		cmocka_unit_test(test_annotation_parsing),
		cmocka_unit_test(test_bad_annotation_runs_with_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
