/*
 * Unit tests for controller/job_state: the per-state action table (docs/volcano/job-controller.md
 * §4.3), the status functions (docs/volcano/job-controller.md §4.5, §4.6), policy resolution
 * (docs/volcano/job-controller.md §3.5) and the status value helpers.
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>

#include "job_state.h"
#include "support/fake_api.h"
#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_model.h"

static void view(const char *text, struct vc_job *job)
{
	struct vc_error err;
	json_t *obj = J(text);

	vc_error_clear(&err);
	if (vc_job_view(obj, job, &err))
		fail_msg("job view: %s", err.text);
	json_decref(obj);
}

/* ---- docs/volcano/job-controller.md §4.3: every (phase, action) pair ------------------------- */

struct row {
	enum vc_job_phase phase;
	enum vc_bus_action action;
	enum job_prim prim;
	enum job_retain retain;
	enum job_status_fn fn;
};

#define P  JOB_PRIM_SYNC
#define K  JOB_PRIM_KILL
#define KT JOB_PRIM_KILL_TARGET
#define NO JOB_RETAIN_NONE
#define SO JOB_RETAIN_SOFT

static void check_phase(enum vc_job_phase ph, const struct row *rows, size_t n)
{
	int a;

	for (a = VC_ACTION_INVALID; a < VC_ACTION_COUNT; a++) {
		struct job_decision d;
		const struct row *want = NULL;
		size_t i;

		for (i = 0; i < n; i++)
			if (rows[i].action == (enum vc_bus_action)a)
				want = &rows[i];
		if (!want)
			want = &rows[n - 1]; /* the "anything else" row */
		job_state_decide(ph, (enum vc_bus_action)a, &d);
		if (d.prim != want->prim || (d.prim == K && d.retain != want->retain) ||
		    d.fn != want->fn)
			fail_msg("phase %d action %s: got prim %d retain %d fn %d, want %d %d %d",
				 (int)ph, a < 0 ? "(unknown)" : vc_bus_action_name(a), (int)d.prim,
				 (int)d.retain, (int)d.fn, (int)want->prim, (int)want->retain,
				 (int)want->fn);
	}
}

static void test_table_pending_running(void **state)
{
	static const struct row pending[] = {
		{ 0, VC_ACTION_RESTART_JOB, K, NO, JOB_FN_RESTART },
		{ 0, VC_ACTION_RESTART_TASK, KT, NO, JOB_FN_RESTART },
		{ 0, VC_ACTION_RESTART_POD, KT, NO, JOB_FN_RESTART },
		{ 0, VC_ACTION_RESTART_PARTITION, KT, NO, JOB_FN_RESTART },
		{ 0, VC_ACTION_ABORT_JOB, K, SO, JOB_FN_TO_ABORTING },
		{ 0, VC_ACTION_COMPLETE_JOB, K, SO, JOB_FN_TO_COMPLETING },
		{ 0, VC_ACTION_TERMINATE_JOB, K, SO, JOB_FN_TO_TERMINATING },
		{ 0, VC_ACTION_SYNC_JOB, P, NO, JOB_FN_PENDING },
	};
	static const struct row running[] = {
		{ 0, VC_ACTION_RESTART_JOB, K, NO, JOB_FN_RESTART },
		{ 0, VC_ACTION_RESTART_TASK, KT, NO, JOB_FN_RESTART },
		{ 0, VC_ACTION_RESTART_POD, KT, NO, JOB_FN_RESTART },
		{ 0, VC_ACTION_RESTART_PARTITION, KT, NO, JOB_FN_RESTART },
		{ 0, VC_ACTION_ABORT_JOB, K, SO, JOB_FN_TO_ABORTING },
		{ 0, VC_ACTION_COMPLETE_JOB, K, SO, JOB_FN_TO_COMPLETING },
		{ 0, VC_ACTION_TERMINATE_JOB, K, SO, JOB_FN_TO_TERMINATING },
		{ 0, VC_ACTION_SYNC_JOB, P, NO, JOB_FN_RUNNING },
	};

	(void)state;
	check_phase(VC_JOB_PHASE_NONE, pending, VC_ARRAY_SIZE(pending));
	check_phase(VC_JOB_PENDING, pending, VC_ARRAY_SIZE(pending));
	check_phase(VC_JOB_PHASE_UNKNOWN, pending, VC_ARRAY_SIZE(pending));
	check_phase(VC_JOB_RUNNING, running, VC_ARRAY_SIZE(running));
}

static void test_table_other_states(void **state)
{
	static const struct row restarting[] = {
		{ 0, VC_ACTION_SYNC_JOB, P, NO, JOB_FN_RS },
		{ 0, VC_ACTION_RESTART_TASK, KT, NO, JOB_FN_RS },
		{ 0, VC_ACTION_RESTART_POD, KT, NO, JOB_FN_RS },
		{ 0, VC_ACTION_RESTART_PARTITION, KT, NO, JOB_FN_RS },
		{ 0, VC_ACTION_RESTART_JOB, K, NO, JOB_FN_RS },
	};
	static const struct row aborting[] = {
		{ 0, VC_ACTION_RESUME_JOB, K, SO, JOB_FN_RESTART },
		{ 0, VC_ACTION_SYNC_JOB, K, SO, JOB_FN_ABORTED_IF_DEAD },
	};
	static const struct row aborted[] = {
		{ 0, VC_ACTION_RESUME_JOB, K, SO, JOB_FN_RESTART },
		{ 0, VC_ACTION_SYNC_JOB, K, SO, JOB_FN_NONE },
	};
	static const struct row completing[] = { { 0, VC_ACTION_SYNC_JOB, K, SO,
						   JOB_FN_COMPLETED_IF_DEAD } };
	static const struct row terminating[] = { { 0, VC_ACTION_SYNC_JOB, K, SO,
						    JOB_FN_TERMINATED_IF_DEAD } };
	static const struct row finished[] = { { 0, VC_ACTION_SYNC_JOB, K, SO, JOB_FN_NONE } };

	(void)state;
	check_phase(VC_JOB_RESTARTING, restarting, VC_ARRAY_SIZE(restarting));
	check_phase(VC_JOB_ABORTING, aborting, VC_ARRAY_SIZE(aborting));
	check_phase(VC_JOB_ABORTED, aborted, VC_ARRAY_SIZE(aborted));
	check_phase(VC_JOB_COMPLETING, completing, VC_ARRAY_SIZE(completing));
	check_phase(VC_JOB_TERMINATING, terminating, VC_ARRAY_SIZE(terminating));
	check_phase(VC_JOB_COMPLETED, finished, VC_ARRAY_SIZE(finished));
	check_phase(VC_JOB_FAILED, finished, VC_ARRAY_SIZE(finished));
	check_phase(VC_JOB_TERMINATED, finished, VC_ARRAY_SIZE(finished));
}

/* ---- status functions ---------------------------------------------------------------------- */

/* Two tasks: a (2 replicas, minAvailable 1), b (2 replicas); job minAvailable 3, maxRetry 3. */
static const char *const job_ab =
	"{'metadata':{'name':'j','namespace':'ns','uid':'U'},'spec':{'minAvailable':3,"
	"'tasks':[{'name':'a','replicas':2,'minAvailable':1,'template':{}},"
	"{'name':'b','replicas':2,'template':{}}]},'status':{'version':2}}";

static void st_init(struct job_status *st, enum vc_job_phase ph)
{
	memset(st, 0, sizeof(*st));
	assert_int_equal(job_status_set_phase(st, ph), 0);
}

static bool apply(enum job_status_fn fn, const struct vc_job *job, struct job_status *st)
{
	int rc;
	bool r = job_status_fn_apply(fn, job, st, &rc);

	assert_int_equal(rc, 0);
	return r;
}

static void test_fn_pending_and_restart(void **state)
{
	struct vc_job job;
	struct job_status st;

	(void)state;
	view(job_ab, &job);
	st_init(&st, VC_JOB_PENDING);
	st.running = 1;
	st.succeeded = 1;
	st.pending = 2;
	assert_false(apply(JOB_FN_PENDING, &job, &st));
	assert_int_equal(st.phase, VC_JOB_PENDING);
	st.failed = 1; /* running + succeeded + failed = 3 >= minAvailable */
	assert_true(apply(JOB_FN_PENDING, &job, &st));
	assert_int_equal(st.phase, VC_JOB_RUNNING);
	assert_string_equal(st.phase_str, "Running");

	assert_true(apply(JOB_FN_RESTART, &job, &st));
	assert_int_equal(st.phase, VC_JOB_RESTARTING);
	assert_int_equal(st.retry_count, 1);

	/* RS: total (4) - terminating >= status.minAvailable -> Pending. */
	st.min_available = 3;
	st.terminating = 2;
	assert_false(apply(JOB_FN_RS, &job, &st));
	assert_int_equal(st.phase, VC_JOB_RESTARTING);
	st.terminating = 1;
	assert_true(apply(JOB_FN_RS, &job, &st));
	assert_int_equal(st.phase, VC_JOB_PENDING);
	/* retryCount >= maxRetry (3) -> Failed, whatever the pods. */
	assert_int_equal(job_status_set_phase(&st, VC_JOB_RESTARTING), 0);
	st.retry_count = 3;
	st.terminating = 4;
	assert_true(apply(JOB_FN_RS, &job, &st));
	assert_int_equal(st.phase, VC_JOB_FAILED);
	assert_false(apply(JOB_FN_NONE, &job, &st));
	job_status_release(&st);
	vc_job_view_release(&job);
}

static void test_fn_alive(void **state)
{
	static const struct {
		enum job_status_fn fn;
		enum vc_job_phase to;
	} cases[] = {
		{ JOB_FN_ABORTED_IF_DEAD, VC_JOB_ABORTED },
		{ JOB_FN_COMPLETED_IF_DEAD, VC_JOB_COMPLETED },
		{ JOB_FN_TERMINATED_IF_DEAD, VC_JOB_TERMINATED },
	};
	struct vc_job job;
	struct job_status st;
	size_t i;

	(void)state;
	view(job_ab, &job);
	for (i = 0; i < VC_ARRAY_SIZE(cases); i++) {
		st_init(&st, VC_JOB_ABORTING);
		st.terminating = 1;
		assert_false(apply(cases[i].fn, &job, &st));
		st.terminating = 0;
		st.pending = 1;
		assert_false(apply(cases[i].fn, &job, &st));
		st.pending = 0;
		st.running = 1;
		assert_false(apply(cases[i].fn, &job, &st));
		st.running = 0;
		st.succeeded = 3; /* finished pods are not alive */
		st.failed = 1;
		assert_true(apply(cases[i].fn, &job, &st));
		assert_int_equal(st.phase, cases[i].to);
		job_status_release(&st);
	}
	st_init(&st, VC_JOB_RUNNING);
	assert_true(apply(JOB_FN_TO_ABORTING, &job, &st));
	assert_string_equal(st.phase_str, "Aborting");
	assert_true(apply(JOB_FN_TO_COMPLETING, &job, &st));
	assert_string_equal(st.phase_str, "Completing");
	assert_true(apply(JOB_FN_TO_TERMINATING, &job, &st));
	assert_string_equal(st.phase_str, "Terminating");
	job_status_release(&st);
	vc_job_view_release(&job);
}

static void count(struct job_status *st, const char *task, const char *phase, int n)
{
	while (n-- > 0)
		assert_int_equal(job_status_count_pod(st, task, phase), 0);
}

static void test_fn_running(void **state)
{
	struct vc_job job;
	struct job_status st;

	(void)state;
	view(job_ab, &job);
	/* All finished, jobMin (3) >= sum task min (1 + 2): task a has 0 Succeeded < 1 -> Failed.
	 */
	st_init(&st, VC_JOB_RUNNING);
	count(&st, "a", "Failed", 2);
	count(&st, "b", "Succeeded", 2);
	assert_true(apply(JOB_FN_RUNNING, &job, &st));
	assert_int_equal(st.phase, VC_JOB_FAILED);
	job_status_release(&st);
	/* All finished, every task at its minimum, succeeded 3 >= 3 -> Completed. */
	st_init(&st, VC_JOB_RUNNING);
	count(&st, "a", "Succeeded", 1);
	count(&st, "a", "Failed", 1);
	count(&st, "b", "Succeeded", 2);
	assert_int_equal(st.succeeded, 3);
	assert_true(apply(JOB_FN_RUNNING, &job, &st));
	assert_int_equal(st.phase, VC_JOB_COMPLETED);
	job_status_release(&st);
	/* Not finished; pending 2 > total 4 - min 3 -> Pending. */
	st_init(&st, VC_JOB_RUNNING);
	count(&st, "a", "Pending", 2);
	count(&st, "b", "Running", 2);
	assert_true(apply(JOB_FN_RUNNING, &job, &st));
	assert_int_equal(st.phase, VC_JOB_PENDING);
	job_status_release(&st);
	/* pending 1 -> no change. */
	st_init(&st, VC_JOB_RUNNING);
	count(&st, "a", "Pending", 1);
	count(&st, "b", "Running", 3);
	assert_false(apply(JOB_FN_RUNNING, &job, &st));
	assert_int_equal(st.phase, VC_JOB_RUNNING);
	job_status_release(&st);
	vc_job_view_release(&job);

	/* minSuccess reached -> Completed at once; all finished below minSuccess -> Failed. */
	view("{'metadata':{'name':'j'},'spec':{'minAvailable':1,'minSuccess':2,"
	     "'tasks':[{'name':'t','replicas':3,'minAvailable':1,'template':{}}]}}",
	     &job);
	st_init(&st, VC_JOB_RUNNING);
	count(&st, "t", "Succeeded", 2);
	count(&st, "t", "Running", 1);
	assert_true(apply(JOB_FN_RUNNING, &job, &st));
	assert_int_equal(st.phase, VC_JOB_COMPLETED);
	job_status_release(&st);
	st_init(&st, VC_JOB_RUNNING);
	count(&st, "t", "Succeeded", 1);
	count(&st, "t", "Failed", 2);
	assert_true(apply(JOB_FN_RUNNING, &job, &st));
	assert_int_equal(st.phase, VC_JOB_FAILED);
	job_status_release(&st);
	vc_job_view_release(&job);

	/* jobMin < sum task min: per-task checks skipped; succeeded >= min -> Completed. */
	view("{'metadata':{'name':'j'},'spec':{'minAvailable':1,"
	     "'tasks':[{'name':'a','replicas':1,'template':{}},"
	     "{'name':'b','replicas':1,'template':{}}]}}",
	     &job);
	st_init(&st, VC_JOB_RUNNING);
	count(&st, "a", "Failed", 1);
	count(&st, "b", "Succeeded", 1);
	assert_true(apply(JOB_FN_RUNNING, &job, &st));
	assert_int_equal(st.phase, VC_JOB_COMPLETED);
	job_status_release(&st);
	vc_job_view_release(&job);

	/* Scaled to zero: no change. */
	view("{'metadata':{'name':'j'},'spec':{'tasks':[{'name':'a','replicas':0,'template':{}}]}}",
	     &job);
	st_init(&st, VC_JOB_RUNNING);
	assert_false(apply(JOB_FN_RUNNING, &job, &st));
	/* minAvailable 0: Pending becomes Running with no pods. */
	assert_int_equal(job_status_set_phase(&st, VC_JOB_PENDING), 0);
	assert_true(apply(JOB_FN_PENDING, &job, &st));
	job_status_release(&st);
	vc_job_view_release(&job);
}

/* ---- docs/volcano/job-controller.md §3.5 policy resolution --------------------------------------
 */

static const char *const job_pol =
	"{'metadata':{'name':'j','namespace':'ns','uid':'U'},'spec':{"
	"'policies':[{'event':'PodEvicted','action':'RestartJob'},"
	"{'exitCode':3,'action':'AbortJob'},"
	"{'event':'PodPending','action':'TerminateJob'},"
	"{'events':['Unknown','TaskCompleted'],'action':'CompleteJob'}],"
	"'tasks':[{'name':'a','replicas':1,'template':{},'policies':["
	"{'event':'PodEvicted','action':'RestartTask'},"
	"{'event':'PodPending','action':'RestartPod','timeout':'10m'}]},"
	"{'name':'b','replicas':1,'template':{},'policies':[{'event':'*','action':'RestartPod'}]},"
	"{'name':'c','replicas':1,'template':{}}]},"
	"'status':{'version':1}}";

static void req_init(struct job_request *r, int event, const char *task, int32_t version)
{
	memset(r, 0, sizeof(*r));
	r->event = event;
	r->action = VC_ACTION_INVALID;
	r->task = (char *)task;
	r->job_version = version;
}

static void resolve(const struct vc_job *job, const struct job_request *r, enum vc_bus_action want,
		    int64_t delay)
{
	struct job_resolution res;

	job_resolve(job, r, &res);
	if (res.action != want || res.delay_ns != delay)
		fail_msg("event %d task %s: got %s/%lld, want %s/%lld", r->event,
			 r->task ? r->task : "-", vc_bus_action_name(res.action),
			 (long long)res.delay_ns, vc_bus_action_name(want), (long long)delay);
	assert_string_equal(res.action_str, vc_bus_action_name(want));
}

static void test_resolve(void **state)
{
	struct vc_job job;
	struct job_request r;
	struct job_resolution res;

	(void)state;
	view(job_pol, &job);
	/* Task-level shadows job-level. */
	req_init(&r, VC_EVENT_POD_EVICTED, "a", 1);
	resolve(&job, &r, VC_ACTION_RESTART_TASK, 0);
	/* No task-level match: job level. */
	req_init(&r, VC_EVENT_POD_EVICTED, "c", 1);
	resolve(&job, &r, VC_ACTION_RESTART_JOB, 0);
	/* No task name (PodGroup request): job level only. */
	req_init(&r, VC_EVENT_JOB_UNKNOWN, NULL, 1);
	resolve(&job, &r, VC_ACTION_COMPLETE_JOB, 0);
	/* `*` matches every user event of task b, never internal ones. */
	req_init(&r, VC_EVENT_TASK_COMPLETED, "b", 1);
	resolve(&job, &r, VC_ACTION_RESTART_POD, 0);
	req_init(&r, VC_EVENT_POD_FAILED, "b", 1);
	resolve(&job, &r, VC_ACTION_RESTART_POD, 0);
	req_init(&r, VC_EVENT_POD_RUNNING, "b", 1);
	resolve(&job, &r, VC_ACTION_SYNC_JOB, 0);
	req_init(&r, VC_EVENT_OUT_OF_SYNC, "b", 1);
	resolve(&job, &r, VC_ACTION_SYNC_JOB, 0);
	req_init(&r, VC_EVENT_COMMAND_ISSUED, "b", 1);
	resolve(&job, &r, VC_ACTION_SYNC_JOB, 0);
	/* `*` does not fire for PodPending without timeout: falls to the job level, whose
	 * PodPending policy has no timeout either -> SyncJob. */
	req_init(&r, VC_EVENT_POD_PENDING, "b", 1);
	resolve(&job, &r, VC_ACTION_SYNC_JOB, 0);
	/* PodPending with a timeout: delayed. */
	req_init(&r, VC_EVENT_POD_PENDING, "a", 1);
	resolve(&job, &r, VC_ACTION_RESTART_POD, 10 * 60 * INT64_C(1000000000));
	/* exitCode: on PodFailed with that code, from any task without a match. */
	req_init(&r, VC_EVENT_POD_FAILED, "c", 1);
	r.exit_code = 3;
	resolve(&job, &r, VC_ACTION_ABORT_JOB, 0);
	r.exit_code = 2;
	resolve(&job, &r, VC_ACTION_SYNC_JOB, 0);
	/* Stale version: policies ignored. */
	req_init(&r, VC_EVENT_POD_EVICTED, "a", 0);
	resolve(&job, &r, VC_ACTION_SYNC_JOB, 0);
	/* A PodGroup request carries version 0: stale once version >= 1
	 * (docs/volcano/job-controller.md §8.11). */
	req_init(&r, VC_EVENT_JOB_UNKNOWN, NULL, 0);
	resolve(&job, &r, VC_ACTION_SYNC_JOB, 0);
	/* Empty event: nothing matches. */
	req_init(&r, JOB_EVENT_NONE, NULL, 1);
	resolve(&job, &r, VC_ACTION_SYNC_JOB, 0);
	/* uid mismatch: a pod of an older job with the same name. */
	req_init(&r, VC_EVENT_POD_EVICTED, "a", 1);
	r.job_uid = (char *)"OLD";
	resolve(&job, &r, VC_ACTION_SYNC_JOB, 0);
	r.job_uid = (char *)"U";
	resolve(&job, &r, VC_ACTION_RESTART_TASK, 0);
	/* Explicit action wins over everything, unknown strings kept for messages. */
	req_init(&r, VC_EVENT_COMMAND_ISSUED, NULL, 0);
	r.has_action = true;
	r.action = VC_ACTION_ABORT_JOB;
	resolve(&job, &r, VC_ACTION_ABORT_JOB, 0);
	r.action = VC_ACTION_INVALID;
	r.action_str = (char *)"Frobnicate";
	job_resolve(&job, &r, &res);
	assert_int_equal(res.action, VC_ACTION_INVALID);
	assert_string_equal(res.action_str, "Frobnicate");
	vc_job_view_release(&job);
}

/* ---- status values ------------------------------------------------------------------------------
 */

static void test_status_json(void **state)
{
	json_t *in = J("{'state':{'phase':'Running','lastTransitionTime':'2024-01-01T00:00:00Z'},"
		       "'minAvailable':2,'running':2,'version':1,'retryCount':0,"
		       "'runningDuration':'1m0s','controlledResources':{'plugin-env':'env'},"
		       "'conditions':[{'status':'Pending','lastTransitionTime':'x'},"
		       "{'status':'Running','lastTransitionTime':'y'}]}");
	struct job_status st, cp;
	json_t *out, *want;
	char *s;

	(void)state;
	assert_int_equal(job_status_from_json(in, &st), 0);
	assert_int_equal(st.phase, VC_JOB_RUNNING);
	assert_int_equal(st.running, 2);
	assert_int_equal(st.version, 1);
	assert_string_equal(st.running_duration, "1m0s");
	out = job_status_to_json(&st);
	assert_non_null(out);
	/* retryCount 0 is omitted, as Go's omitempty does. */
	assert_null(json_object_get(out, "retryCount"));
	assert_false(json_equal(out, in));
	assert_true(job_status_json_equal(out, in));
	assert_int_equal(json_object_del(in, "retryCount"), 0);
	assert_true(json_equal(out, in));
	json_decref(out);
	/* Absent and empty members compare equal, different values do not. */
	want = J("{'state':{'phase':'Running','lastTransitionTime':'2024-01-01T00:00:00Z'},"
		 "'minAvailable':2,'running':2,'version':1,'pending':0,'taskStatusCount':{},"
		 "'runningDuration':'1m0s','controlledResources':{'plugin-env':'env'},"
		 "'conditions':[{'status':'Pending','lastTransitionTime':'x'},"
		 "{'status':'Running','lastTransitionTime':'y'}]}");
	assert_true(job_status_json_equal(in, want));
	assert_int_equal(json_object_set_new(want, "pending", json_integer(1)), 0);
	assert_false(job_status_json_equal(in, want));
	json_decref(want);

	/* A transition: lastTransitionTime and the Running condition moved to the end. */
	assert_int_equal(job_status_copy(&cp, &st), 0);
	assert_int_equal(job_status_set_phase(&cp, VC_JOB_PENDING), 0);
	assert_int_equal(job_status_add_condition(&cp, "2024-02-02T00:00:00Z"), 0);
	s = vc_json_dumps_sorted(cp.conditions);
	assert_string_equal(s, "[{\"lastTransitionTime\":\"y\",\"status\":\"Running\"},"
			       "{\"lastTransitionTime\":\"2024-02-02T00:00:00Z\",\"status\":"
			       "\"Pending\"}]");
	vc_free(s);
	assert_string_equal(json_string_value(json_object_get(cp.state, "lastTransitionTime")),
			    "2024-02-02T00:00:00Z");
	/* Counting: raw phase keys; empty phase counts as unknown. */
	assert_int_equal(job_status_count_pod(&cp, "w", "Pending"), 0);
	assert_int_equal(job_status_count_pod(&cp, "w", "Pending"), 0);
	assert_int_equal(job_status_count_pod(&cp, "w", ""), 0);
	assert_int_equal(job_status_count_pod(&cp, NULL, "Weird"), 0);
	assert_int_equal(cp.pending, 2);
	assert_int_equal(cp.unknown, 2);
	s = vc_json_dumps_sorted(cp.task_status_count);
	assert_string_equal(s, "{\"w\":{\"phase\":{\"\":1,\"Pending\":2}}}");
	vc_free(s);
	job_status_release(&cp);
	job_status_release(&st);
	json_decref(in);
}

static void test_status_alloc_failures(void **state)
{
	json_t *in = J("{'state':{'phase':'Running'},'taskStatusCount':{'a':{'phase':"
		       "{'Running':1}}},'controlledResources':{'k':'v'},'conditions':[{"
		       "'status':'Running'}],'runningDuration':'1s'}");
	struct job_status st, cp;
	json_t *out;
	long n, fails;
	int rc;

	(void)state;
	for (n = 0; n < 200; n++) {
		vc_alloc_fail_after(n);
		rc = job_status_from_json(in, &st);
		if (!rc) {
			rc = job_status_copy(&cp, &st);
			if (!rc) {
				if (!job_status_add_condition(&cp, "t") &&
				    !job_status_count_pod(&cp, "a", "Pending") &&
				    (out = job_status_to_json(&cp)))
					json_decref(out);
				job_status_release(&cp);
			}
			job_status_release(&st);
		}
		fails = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (!fails && !rc)
			break;
	}
	assert_true(n < 200);
	assert_true(n > 10);
	json_decref(in);
}

static void test_request_helpers(void **state)
{
	struct job_request *a = job_request_new(), *b;

	(void)state;
	assert_non_null(a);
	assert_int_equal(a->event, JOB_EVENT_NONE);
	a->event = VC_EVENT_POD_FAILED;
	assert_int_equal(job_request_set_str(&a->pod, "p"), 0);
	assert_int_equal(job_request_set_str(&a->task, "t"), 0);
	a->exit_code = 2;
	b = job_request_dup(a);
	assert_non_null(b);
	assert_true(job_request_equal(a, b));
	b->exit_code = 3;
	assert_false(job_request_equal(a, b));
	b->exit_code = 2;
	assert_int_equal(job_request_set_str(&b->pod, NULL), 0);
	assert_false(job_request_equal(a, b));
	assert_int_equal(job_action_level(VC_ACTION_RESTART_POD), JOB_LEVEL_POD);
	assert_int_equal(job_action_level(VC_ACTION_RESTART_TASK), JOB_LEVEL_TASK);
	assert_int_equal(job_action_level(VC_ACTION_RESTART_PARTITION), JOB_LEVEL_PARTITION);
	assert_int_equal(job_action_level(VC_ACTION_ABORT_JOB), JOB_LEVEL_JOB);
	assert_true(job_action_is_internal(VC_ACTION_ENQUEUE_JOB));
	assert_false(job_action_is_internal(VC_ACTION_RESUME_JOB));
	assert_string_equal(job_state_name(VC_JOB_PHASE_NONE), "Pending");
	job_request_free(a);
	job_request_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_pending_running),
		cmocka_unit_test(test_table_other_states),
		cmocka_unit_test(test_fn_pending_and_restart),
		cmocka_unit_test(test_fn_alive),
		cmocka_unit_test(test_fn_running),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_status_json),
		cmocka_unit_test(test_status_alloc_failures),
		cmocka_unit_test(test_request_helpers),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
