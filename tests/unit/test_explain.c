/* test_explain.c - vc_explain: the first reason that holds a job, from the objects involved. */
#include "vc_explain.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "support/capture.h"
#include "support/json_test.h"

#include "vc_time.h"

#define NOW_NS (INT64_C(1717243200) * VC_NSEC_PER_SEC) /* 2024-06-01T12:00:00Z */

/* A Job in namespace ml: tasks ps (1) and worker (2), minAvailable 3, queue q1, uid u1. */
static json_t *ex_job(const char *status)
{
	char text[4096];

	snprintf(text, sizeof(text),
		 "{\"metadata\":{\"name\":\"tf\",\"namespace\":\"ml\",\"uid\":\"u1\"},"
		 "\"spec\":{\"minAvailable\":3,\"queue\":\"q1\",\"maxRetry\":3,"
		 "\"policies\":[{\"event\":\"PodEvicted\",\"action\":\"RestartJob\"},"
		 "{\"event\":\"PodFailed\",\"action\":\"AbortJob\"}],"
		 "\"tasks\":[{\"name\":\"ps\",\"replicas\":1,\"minAvailable\":1,"
		 "\"policies\":[{\"exitCode\":3,\"action\":\"RestartJob\"}]},"
		 "{\"name\":\"worker\",\"replicas\":2,"
		 "\"dependsOn\":{\"name\":[\"ps\"]}}]}%s%s}",
		 status ? ",\"status\":" : "", status ? status : "");
	return parse(text);
}

static const char EX_QUEUE[] = "{\"metadata\":{\"name\":\"q1\"},\"spec\":{\"weight\":1,"
			       "\"capability\":{\"cpu\":\"4\"},\"deserved\":{\"cpu\":\"2\"}},"
			       "\"status\":{\"state\":\"Open\",\"allocated\":{\"cpu\":\"1\"}}}";

/* A PodGroup of tf with that status; minMember 3, minResources cpu 2. */
static json_t *ex_pg(const char *status)
{
	char text[4096];

	snprintf(text, sizeof(text),
		 "{\"metadata\":{\"name\":\"tf-u1\",\"namespace\":\"ml\","
		 "\"ownerReferences\":[{\"uid\":\"u1\"}]},"
		 "\"spec\":{\"minMember\":3,\"queue\":\"q1\",\"minResources\":{\"cpu\":\"2\"}},"
		 "\"status\":%s}",
		 status);
	return parse(text);
}

struct ex_case {
	json_t *job, *queue, *pg, *pods, *events;
};

static enum vc_explain_why run_explain(struct ex_case *c, struct capture *cap)
{
	struct vc_explain_in in = { 0 };
	char reason[VC_EXPLAIN_REASON_MAX], quiet[VC_EXPLAIN_REASON_MAX];
	const char *why;
	enum vc_explain_why w;

	in.ns = "ml";
	in.name = "tf";
	in.job = c->job;
	in.queue = c->queue;
	in.podgroup = c->pg;
	in.pods = json_object_get(c->pods, "items");
	in.events = json_object_get(c->events, "items");
	in.now_ns = NOW_NS;
	w = vc_explain(&in, cap_open(cap), reason, sizeof(reason));
	cap_text(cap);
	/* The reason sentence is the Why line's text, and the same without an output. */
	assert_int_equal(vc_explain(&in, NULL, quiet, sizeof(quiet)), w);
	assert_string_equal(quiet, reason);
	why = strstr(cap->buf, "\nWhy: ");
	assert_non_null(why);
	why += strlen("\nWhy: ");
	assert_int_equal(strcspn(why, "\n"), strlen(reason));
	assert_memory_equal(why, reason, strlen(reason));
	return w;
}

static void ex_free(struct ex_case *c)
{
	json_decref(c->job);
	json_decref(c->queue);
	json_decref(c->pg);
	json_decref(c->pods);
	json_decref(c->events);
	memset(c, 0, sizeof(*c));
}

/* The Why and From lines of the explanation, which must start with head. */
static void assert_explained(struct capture *cap, const char *head, const char *why_line,
			     const char *from_line)
{
	char want[1024];

	snprintf(want, sizeof(want), "%s\nWhy: %s\nFrom: %s\n", head, why_line, from_line);
	if (strncmp(cap->buf, want, strlen(want)))
		print_error("got:\n%s\nwant a start of:\n%s\n", cap->buf, want);
	assert_true(!strncmp(cap->buf, want, strlen(want)));
}

static void test_explain_job_states(void **state)
{
	struct ex_case c = { 0 };
	struct capture cap;

	(void)state;
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_NOT_FOUND);
	assert_string_equal(cap.buf, "Job ml/tf: not found\nWhy: the job does not exist\n"
				     "From: Job ml/tf (the API server answers NotFound)\n");
	cap_close(&cap);

	c.job = ex_job("{\"state\":{\"phase\":\"Running\"},\"running\":3}");
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_RUNNING);
	assert_string_equal(cap.buf, "Job ml/tf: Running\n"
				     "Why: the job is Running: 3 of 3 pods running "
				     "(minAvailable 3)\n"
				     "From: Job ml/tf status.state.phase\n");
	cap_close(&cap);
	ex_free(&c);

	c.job = ex_job("{\"state\":{\"phase\":\"Completed\"},\"succeeded\":3}");
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_COMPLETED);
	assert_explained(&cap, "Job ml/tf: Completed", "the job is Completed: 3 pods succeeded",
			 "Job ml/tf status.state.phase");
	cap_close(&cap);
	ex_free(&c);

	/* Restarting: the last action event, and the policies that lead to that action. */
	c.job = ex_job("{\"state\":{\"phase\":\"Restarting\"},\"retryCount\":1}");
	c.events =
		parse("{\"items\":[{\"metadata\":{\"name\":\"tf.1\",\"namespace\":\"ml\"},"
		      "\"involvedObject\":{\"kind\":\"Job\",\"name\":\"tf\"},\"type\":\"Normal\","
		      "\"reason\":\"ExecuteAction\",\"message\":\"Start to execute action "
		      "SyncJob \",\"lastTimestamp\":\"2024-06-01T11:50:00Z\"},"
		      "{\"metadata\":{\"name\":\"tf.2\",\"namespace\":\"ml\"},"
		      "\"involvedObject\":{\"kind\":\"Job\",\"name\":\"tf\"},\"type\":\"Normal\","
		      "\"reason\":\"ExecuteAction\",\"message\":\"Start to execute action "
		      "RestartJob \",\"lastTimestamp\":\"2024-06-01T11:59:50Z\"},"
		      "{\"metadata\":{\"name\":\"tf-u1.3\",\"namespace\":\"ml\"},"
		      "\"involvedObject\":{\"kind\":\"PodGroup\",\"name\":\"tf-u1\"},"
		      "\"type\":\"Normal\",\"reason\":\"ExecuteAction\",\"message\":\"Start to "
		      "execute action AbortJob \",\"lastTimestamp\":\"2024-06-01T11:59:59Z\"}]}");
	c.pods =
		parse("{\"items\":[{\"metadata\":{\"name\":\"tf-ps-0\"},\"status\":{\"phase\":"
		      "\"Failed\",\"containerStatuses\":[{\"name\":\"c\",\"state\":{\"terminated\":"
		      "{\"exitCode\":3}}}]}},{\"metadata\":{\"name\":\"tf-worker-0\"},"
		      "\"status\":{\"phase\":\"Running\"}}]}");
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_PHASE);
	assert_string_equal(cap.buf,
			    "Job ml/tf: Restarting\n"
			    "Why: the job is Restarting: the controller ran the action RestartJob\n"
			    "From: Event ml/tf.2 (Normal ExecuteAction, 10s ago) message\n"
			    "  Job ml/tf status.state.phase: Restarting\n"
			    "  Job ml/tf spec.policies[0]: PodEvicted -> RestartJob\n"
			    "  Job ml/tf spec.tasks[0].policies[0]: exitCode 3 -> RestartJob (task "
			    "ps)\n"
			    "  Pod ml/tf-ps-0 status.phase: Failed (c exit code 3)\n"
			    "  Job ml/tf status.retryCount: 1 (spec.maxRetry 3)\n");
	cap_close(&cap);
	ex_free(&c);
}

static void test_explain_queue(void **state)
{
	struct ex_case c = { 0 };
	struct capture cap;

	(void)state;
	/* The queue first: a job whose queue is gone or closed waits whatever else holds. */
	c.job = ex_job("{\"state\":{\"phase\":\"Pending\"}}");
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_QUEUE_MISSING);
	assert_explained(&cap, "Job ml/tf: Pending", "queue \"q1\" does not exist",
			 "Job ml/tf spec.queue");
	assert_non_null(strstr(cap.buf, "\n  Queue q1: not found\n"));
	cap_close(&cap);

	c.queue = parse("{\"metadata\":{\"name\":\"q1\"},\"status\":{\"state\":\"Closed\"}}");
	c.pg = ex_pg("{\"phase\":\"Pending\"}");
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_QUEUE_CLOSED);
	assert_string_equal(cap.buf, "Job ml/tf: Pending\n"
				     "Why: queue \"q1\" is Closed: it admits no job\n"
				     "From: Queue q1 status.state\n"
				     "  Job ml/tf spec.queue: q1\n"
				     "  PodGroup ml/tf-u1 status.phase: Pending\n");
	cap_close(&cap);
	ex_free(&c);

	/* Never synced: no status at all. */
	c.job = ex_job(NULL);
	c.queue = parse(EX_QUEUE);
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_NO_STATUS);
	assert_explained(&cap, "Job ml/tf: (no status)",
			 "the job was never admitted: it has no status (the job controller has "
			 "not synced it)",
			 "Job ml/tf status.state.phase");
	cap_close(&cap);
	ex_free(&c);

	c.job = ex_job("{\"state\":{\"phase\":\"Pending\"}}");
	c.queue = parse(EX_QUEUE);
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_NO_PODGROUP);
	assert_explained(&cap, "Job ml/tf: Pending",
			 "the job has no PodGroup: the job controller has not created it",
			 "PodGroup ml/tf-u1 (not found)");
	cap_close(&cap);
	ex_free(&c);
}

static void test_explain_enqueue(void **state)
{
	struct ex_case c = { 0 };
	struct capture cap;

	(void)state;
	/* Over capability: allocated 3 + the job's 2 > 4. */
	c.job = ex_job("{\"state\":{\"phase\":\"Pending\"}}");
	c.queue = parse("{\"metadata\":{\"name\":\"q1\"},\"spec\":{\"capability\":{\"cpu\":\"4\","
			"\"memory\":\"1Gi\"}},\"status\":{\"state\":\"Open\",\"allocated\":"
			"{\"cpu\":\"3\",\"memory\":\"0\"}}}");
	c.pg = ex_pg("{\"phase\":\"Pending\"}");
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_QUEUE_CAPABILITY);
	assert_string_equal(cap.buf,
			    "Job ml/tf: Pending\n"
			    "Why: queue \"q1\" is over its capability: cpu 3 allocated + 2 > 4\n"
			    "From: Queue q1 spec.capability, status.allocated; PodGroup ml/tf-u1 "
			    "spec.minResources\n"
			    "  PodGroup ml/tf-u1 status.phase: Pending\n"
			    "  PodGroup ml/tf-u1 spec.minResources: cpu 2\n"
			    "  Queue q1 spec.capability: cpu 4, memory 1Gi\n"
			    "  Queue q1 status.allocated: cpu 3, memory 0\n");
	cap_close(&cap);
	ex_free(&c);

	/* Within capability, rejected by overcommit: the PodGroup's Unschedulable event. */
	c.job = ex_job("{\"state\":{\"phase\":\"Pending\"}}");
	c.queue = parse(EX_QUEUE);
	c.pg = ex_pg("{\"phase\":\"Pending\"}");
	c.events = parse("{\"items\":[{\"metadata\":{\"name\":\"tf-u1.1\",\"namespace\":\"ml\"},"
			 "\"involvedObject\":{\"kind\":\"PodGroup\",\"name\":\"tf-u1\"},"
			 "\"type\":\"Normal\",\"reason\":\"Unschedulable\",\"count\":4,"
			 "\"message\":\"resource in cluster is overused: overused cpu\","
			 "\"lastTimestamp\":\"2024-06-01T11:59:58Z\"}]}");
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_ENQUEUE_REJECTED);
	assert_explained(&cap, "Job ml/tf: Pending",
			 "the scheduler does not admit the PodGroup: resource in cluster is "
			 "overused: overused cpu",
			 "Event ml/tf-u1.1 (Normal Unschedulable, x4, 2s ago) message");
	cap_close(&cap);
	json_decref(c.events);
	c.events = NULL;

	/* No rejection recorded, past the deserved share: 1 + 2 > 2. */
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_QUEUE_DESERVED);
	assert_explained(&cap, "Job ml/tf: Pending",
			 "queue \"q1\" is past its deserved share: cpu 1 allocated + 2 > 2; it "
			 "can only borrow what other queues leave idle",
			 "Queue q1 spec.deserved, status.allocated; PodGroup ml/tf-u1 "
			 "spec.minResources");
	cap_close(&cap);
	json_decref(c.queue);
	c.queue = parse("{\"metadata\":{\"name\":\"q1\"},\"status\":{\"state\":\"Open\"}}");
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_NOT_ENQUEUED);
	assert_explained(&cap, "Job ml/tf: Pending",
			 "the PodGroup is Pending: the scheduler has not admitted it (enqueue) "
			 "yet",
			 "PodGroup ml/tf-u1 status.phase");
	cap_close(&cap);
	ex_free(&c);
}

/* Pods of tf: the ps pod pending with that PodScheduled message. */
static json_t *ex_pods(const char *ps_phase, const char *msg)
{
	char text[4096];

	snprintf(text, sizeof(text),
		 "{\"items\":[{\"metadata\":{\"name\":\"tf-ps-0\",\"namespace\":\"ml\"},"
		 "\"spec\":{},\"status\":{\"phase\":\"%s\",\"conditions\":[{\"type\":"
		 "\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\","
		 "\"message\":\"%s\"}]}}]}",
		 ps_phase, msg);
	return parse(text);
}

static void test_explain_gang(void **state)
{
	struct ex_case c = { 0 };
	struct capture cap;

	(void)state;
	/* Admitted, the gang does not fit: minMember 3, 2 unschedulable, the node histogram. */
	c.job = ex_job("{\"state\":{\"phase\":\"Pending\"}}");
	c.queue = parse(EX_QUEUE);
	c.pg = ex_pg("{\"phase\":\"Inqueue\",\"conditions\":[{\"type\":\"Unschedulable\","
		     "\"status\":\"True\",\"reason\":\"NotEnoughResources\",\"message\":\"2/3 "
		     "tasks in gang unschedulable: pod group is not ready, 1 Bound, 2 Pending, "
		     "3 minAvailable; Pending: 2 Unschedulable. Origin reason is tf-worker-0: "
		     "0/4 nodes are unavailable: 3 Insufficient cpu, 1 node(s) pod number "
		     "exceeded.\"}]}");
	c.pods = parse("{\"items\":[{\"metadata\":{\"name\":\"tf-ps-0\"},\"status\":{\"phase\":"
		       "\"Running\",\"containerStatuses\":[{\"ready\":true}]}},"
		       "{\"metadata\":{\"name\":\"tf-worker-0\",\"namespace\":\"ml\"},\"status\":"
		       "{\"phase\":\"Pending\",\"conditions\":[{\"type\":\"PodScheduled\","
		       "\"status\":\"False\",\"reason\":\"Unschedulable\",\"message\":\"0/4 nodes "
		       "are unavailable: 4 Insufficient cpu.\"}]}}]}");
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_GANG);
	assert_string_equal(
		cap.buf,
		"Job ml/tf: Pending\n"
		"Why: the gang needs 3 tasks and only 1 fit\n"
		"From: PodGroup ml/tf-u1 status.conditions[type=Unschedulable].message\n"
		"  PodGroup ml/tf-u1 status.phase: Inqueue\n"
		"  PodGroup ml/tf-u1 spec.minMember: 3\n"
		"  PodGroup ml/tf-u1 status.conditions[type=Unschedulable]: NotEnoughResources: "
		"2/3 tasks in gang unschedulable: pod group is not ready, 1 Bound, 2 Pending, 3 "
		"minAvailable; Pending: 2 Unschedulable. Origin reason is tf-worker-0: 0/4 nodes "
		"are unavailable: 3 Insufficient cpu, 1 node(s) pod number exceeded.\n"
		"      3 Insufficient cpu\n"
		"      1 node(s) pod number exceeded\n"
		"  Pod ml/tf-worker-0 status.conditions[type=PodScheduled]: Unschedulable: 0/4 "
		"nodes are unavailable: 4 Insufficient cpu.\n"
		"      4 Insufficient cpu\n");
	cap_close(&cap);
	ex_free(&c);
}

static void test_explain_depends_on(void **state)
{
	struct ex_case c = { 0 };
	struct capture cap;

	(void)state;
	/*
	 * worker depends on ps (minAvailable 1), whose pod cannot be placed because the gang of 3
	 * has only 1 pod: the job waits for itself. dependsOn is the first reason.
	 */
	c.job = ex_job("{\"state\":{\"phase\":\"Pending\"}}");
	c.queue = parse(EX_QUEUE);
	c.pg = ex_pg("{\"phase\":\"Inqueue\",\"conditions\":[{\"type\":\"Unschedulable\","
		     "\"status\":\"True\",\"reason\":\"NotEnoughTasks\",\"message\":\"Not "
		     "enough valid tasks for gang-scheduling, valid: 1, min: 3\"}]}");
	c.pods = ex_pods("Pending", "all nodes are unavailable");
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_DEPENDS_ON);
	assert_string_equal(cap.buf,
			    "Job ml/tf: Pending\n"
			    "Why: task \"worker\" waits for the task it depends on (dependsOn): no "
			    "pod of it is created until that one is ready\n"
			    "From: Job ml/tf spec.tasks[1].dependsOn\n"
			    "  Job ml/tf task ps: 0/1 pods ready, minAvailable 1\n"
			    "  PodGroup ml/tf-u1 status.conditions[type=Unschedulable]: "
			    "NotEnoughTasks: Not enough valid tasks for gang-scheduling, valid: 1, "
			    "min: 3\n"
			    "  Pod ml/tf-ps-0 status.conditions[type=PodScheduled]: Unschedulable: "
			    "all nodes are unavailable\n");
	cap_close(&cap);

	/* Once ps runs with its containers ready, worker is free to start. */
	json_decref(c.pods);
	c.pods = parse("{\"items\":[{\"metadata\":{\"name\":\"tf-ps-0\"},\"status\":{\"phase\":"
		       "\"Running\",\"containerStatuses\":[{\"ready\":true}]}}]}");
	json_decref(c.pg);
	c.pg = ex_pg("{\"phase\":\"Inqueue\"}");
	assert_int_equal(run_explain(&c, &cap), VC_EXPLAIN_STARTING);
	assert_explained(&cap, "Job ml/tf: Pending",
			 "the job controller is creating the pods: 1 of 3 exist",
			 "Pods ml/tf-* (label volcano.sh/job-name)");
	cap_close(&cap);
	ex_free(&c);
}

static void test_explain_holds(void **state)
{
	(void)state;
	assert_false(vc_explain_holds(VC_EXPLAIN_NOT_FOUND));
	assert_false(vc_explain_holds(VC_EXPLAIN_RUNNING));
	assert_false(vc_explain_holds(VC_EXPLAIN_COMPLETED));
	assert_false(vc_explain_holds(VC_EXPLAIN_UNKNOWN));
	assert_true(vc_explain_holds(VC_EXPLAIN_GANG));
	assert_true(vc_explain_holds(VC_EXPLAIN_QUEUE_CLOSED));
	assert_true(vc_explain_holds(VC_EXPLAIN_PHASE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_explain_job_states), cmocka_unit_test(test_explain_queue),
		cmocka_unit_test(test_explain_enqueue),	   cmocka_unit_test(test_explain_gang),
		cmocka_unit_test(test_explain_depends_on), cmocka_unit_test(test_explain_holds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
