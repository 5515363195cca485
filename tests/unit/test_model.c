/* Unit tests for vc_model: typed views with Volcano's names and defaults. */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>

#include "vc_alloc.h"
#include "vc_model.h"

static json_t *load(const char *text)
{
	json_error_t jerr;
	json_t *v = json_loads(text, 0, &jerr);

	if (!v)
		fail_msg("bad test JSON at line %d: %s", jerr.line, jerr.text);
	return v;
}

/* The tensorflow-benchmark job as a user writes it, before any webhook defaulting. */
static const char *const tf_job =
	"{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
	"\"metadata\":{\"name\":\"tensorflow-benchmark\",\"namespace\":\"default\","
	"\"uid\":\"u-1\",\"resourceVersion\":\"42\",\"generation\":2,"
	"\"labels\":{\"app\":\"tf\"},\"annotations\":{\"volcano.sh/preemptable\":\"true\"}},"
	"\"spec\":{\"plugins\":{\"env\":[],\"svc\":[]},"
	"\"policies\":[{\"event\":\"PodEvicted\",\"action\":\"RestartJob\"},"
	"{\"events\":[\"PodFailed\",\"PodEvicted\"],\"event\":\"PodFailed\",\"action\":\"AbortJob\","
	"\"timeout\":\"1m30s\"}],"
	"\"tasks\":[{\"replicas\":1,\"name\":\"ps\",\"template\":{\"spec\":{\"containers\":[]}}},"
	"{\"replicas\":2,\"template\":{},\"minAvailable\":1,\"maxRetry\":5,"
	"\"policies\":[{\"exitCode\":3,\"action\":\"RestartTask\"}],"
	"\"dependsOn\":{\"name\":[\"ps\"],\"iteration\":\"all\"}}]},"
	"\"status\":{\"state\":{\"phase\":\"Running\"},\"running\":3,\"version\":1,"
	"\"retryCount\":2,\"minAvailable\":2}}";

static void test_job_defaults_and_fields(void **state)
{
	struct vc_error err;
	struct vc_job job;
	json_t *obj = load(tf_job);
	const struct vc_task *t;

	(void)state;
	assert_int_equal(vc_job_view(obj, &job, &err), 0);
	json_decref(obj); /* the view holds its own reference */
	assert_string_equal(job.meta.name, "tensorflow-benchmark");
	assert_string_equal(job.meta.ns, "default");
	assert_string_equal(job.meta.uid, "u-1");
	assert_int_equal(job.meta.generation, 2);
	assert_string_equal(vc_meta_label(&job.meta, "app"), "tf");
	assert_string_equal(vc_meta_annotation(&job.meta, "volcano.sh/preemptable"), "true");
	assert_null(vc_meta_label(&job.meta, "nope"));
	/* Defaults of docs/volcano/job-controller.md §6.1: queue, schedulerName, maxRetry,
	 * minAvailable = Σ task minAvailable. */
	assert_string_equal(job.queue, "default");
	assert_string_equal(job.scheduler_name, "volcano");
	assert_int_equal(job.max_retry, 3);
	assert_int_equal(job.min_available, 2);
	assert_true(job.min_available_defaulted);
	assert_int_equal(job.total_replicas, 3);
	assert_false(job.has_ttl);
	assert_false(job.has_min_success);
	assert_non_null(job.plugins);

	assert_int_equal(job.ntasks, 2);
	assert_string_equal(job.tasks[0].name, "ps");
	assert_int_equal(job.tasks[0].min_available, 1);
	assert_false(job.tasks[0].has_min_available);
	assert_int_equal(job.tasks[0].max_retry, 3);
	assert_non_null(job.tasks[0].template);
	/* A nameless task is called default<position>. */
	assert_string_equal(job.tasks[1].name, "default1");
	assert_true(job.tasks[1].name_defaulted);
	assert_int_equal(job.tasks[1].min_available, 1);
	assert_int_equal(job.tasks[1].max_retry, 5);
	assert_int_equal(job.tasks[1].ndepends_on, 1);
	assert_string_equal(job.tasks[1].depends_on[0], "ps");
	assert_int_equal(job.tasks[1].depends_iteration, VC_DEPENDS_ALL);
	assert_int_equal(job.tasks[1].policies.count, 1);
	assert_true(job.tasks[1].policies.items[0].has_exit_code);
	assert_int_equal(job.tasks[1].policies.items[0].exit_code, 3);
	assert_int_equal(job.tasks[1].policies.items[0].action, VC_ACTION_RESTART_TASK);
	t = vc_job_task(&job, "default1");
	assert_ptr_equal(t, &job.tasks[1]);
	assert_null(vc_job_task(&job, "worker"));

	/* Policies: event and events merged, duplicates dropped, timeout parsed. */
	assert_int_equal(job.policies.count, 2);
	assert_int_equal(job.policies.items[0].nevents, 1);
	assert_int_equal(job.policies.items[0].events[0], VC_EVENT_POD_EVICTED);
	assert_int_equal(job.policies.items[0].action, VC_ACTION_RESTART_JOB);
	assert_false(job.policies.items[0].has_timeout);
	assert_int_equal(job.policies.items[1].nevents, 2);
	assert_int_equal(job.policies.items[1].events[0], VC_EVENT_POD_FAILED);
	assert_int_equal(job.policies.items[1].events[1], VC_EVENT_POD_EVICTED);
	assert_true(job.policies.items[1].has_timeout);
	assert_int_equal(job.policies.items[1].timeout_ns, 90LL * 1000000000LL);

	assert_int_equal(job.status.phase, VC_JOB_RUNNING);
	assert_int_equal(job.status.running, 3);
	assert_int_equal(job.status.version, 1);
	assert_int_equal(job.status.retry_count, 2);
	vc_job_view_release(&job);
	vc_job_view_release(&job); /* releasing twice is harmless */

	/* A negative timeout is due at once, as Go's AddAfter takes it (found by fuzz_model). */
	obj = load("{\"spec\":{\"policies\":[{\"event\":\"PodFailed\",\"action\":"
		   "\"AbortJob\",\"timeout\":\"-10ms\"}]}}");
	assert_int_equal(vc_job_view(obj, &job, &err), 0);
	json_decref(obj);
	assert_true(job.policies.items[0].has_timeout);
	assert_int_equal(job.policies.items[0].timeout_ns, 0);
	vc_job_view_release(&job);
}

static void test_job_explicit_values_win(void **state)
{
	json_t *obj = load("{\"metadata\":{\"name\":\"j\"},\"spec\":{\"queue\":\"q1\","
			   "\"schedulerName\":\"other\",\"maxRetry\":7,\"minAvailable\":5,"
			   "\"ttlSecondsAfterFinished\":0,\"minSuccess\":2,"
			   "\"tasks\":[{\"name\":\"a\",\"replicas\":4,\"partitionPolicy\":"
			   "{\"totalPartitions\":2,\"partitionSize\":2,\"minPartitions\":1}}]}}");
	struct vc_job job;

	(void)state;
	assert_int_equal(vc_job_view(obj, &job, NULL), 0);
	assert_string_equal(job.queue, "q1");
	assert_string_equal(job.scheduler_name, "other");
	assert_int_equal(job.max_retry, 7);
	assert_int_equal(job.min_available, 5);
	assert_false(job.min_available_defaulted);
	assert_true(job.has_ttl);
	assert_int_equal(job.ttl_seconds_after_finished, 0);
	assert_true(job.has_min_success);
	assert_int_equal(job.min_success, 2);
	/* With minPartitions, the webhook's minAvailable is minPartitions × partitionSize. */
	assert_true(job.tasks[0].has_partition);
	assert_int_equal(job.tasks[0].min_available, 2);
	assert_int_equal(job.status.phase, VC_JOB_PHASE_NONE);
	assert_string_equal(job.status.phase_str, "");
	vc_job_view_release(&job);
	json_decref(obj);
}

static void expect_job_error(const char *text, const char *message)
{
	json_t *obj = load(text);
	struct vc_error err;
	struct vc_job job;

	vc_error_clear(&err);
	assert_int_equal(vc_job_view(obj, &job, &err), VC_EINVALID);
	assert_string_equal(err.text, message);
	assert_null(job.obj);
	assert_null(job.tasks);
	json_decref(obj);
}

static void test_job_malformed(void **state)
{
	(void)state;
	expect_job_error("[]", "job: must be an object");
	expect_job_error("{\"spec\":{\"tasks\":{}}}", "spec.tasks: must be an array");
	expect_job_error("{\"spec\":{\"tasks\":[{\"replicas\":\"2\"}]}}",
			 "spec.tasks[0].replicas: must be an integer");
	expect_job_error("{\"spec\":{\"tasks\":[1]}}", "spec.tasks[0]: must be an object");
	expect_job_error("{\"spec\":{\"maxRetry\":4294967296}}",
			 "spec.maxRetry: value 4294967296 is out of range for int32");
	expect_job_error("{\"spec\":{\"policies\":[{\"event\":\"Nope\",\"action\":\"AbortJob\"}]}}",
			 "spec.policies[0].event: unknown event \"Nope\"");
	expect_job_error("{\"spec\":{\"policies\":[{\"events\":[3]}]}}",
			 "spec.policies[0].events[0]: must be a string");
	expect_job_error(
		"{\"spec\":{\"tasks\":[{\"name\":\"a\",\"policies\":[{\"event\":\"*\","
		"\"timeout\":\"10\"}]}]}}",
		"spec.tasks[0].policies[0].timeout: time: missing unit in duration \"10\"");
	expect_job_error("{\"spec\":{\"tasks\":[{\"dependsOn\":{\"name\":[1]}}]}}",
			 "spec.tasks[0].dependsOn.name[0]: must be a string");
	expect_job_error("{\"status\":{\"running\":true}}", "status.running: must be an integer");
}

static void test_job_allocation_failures(void **state)
{
	json_t *obj = load(tf_job);
	struct vc_job job;
	long n;
	int rc;

	(void)state;
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = vc_job_view(obj, &job, NULL);
		vc_alloc_fail_reset();
		if (!rc)
			break;
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(job.obj);
	}
	assert_true(n > 0);
	vc_job_view_release(&job);
	json_decref(obj);
}

static void test_enum_names_round_trip(void **state)
{
	int i;

	(void)state;
	for (i = VC_JOB_PHASE_NONE; i < VC_JOB_PHASE_UNKNOWN; i++)
		assert_int_equal(vc_job_phase_parse(vc_job_phase_name(i)), i);
	for (i = 0; i < VC_EVENT_COUNT; i++)
		assert_int_equal(vc_bus_event_parse(vc_bus_event_name(i)), i);
	for (i = 0; i < VC_ACTION_COUNT; i++)
		assert_int_equal(vc_bus_action_parse(vc_bus_action_name(i)), i);
	assert_string_equal(vc_job_phase_name(VC_JOB_COMPLETING), "Completing");
	assert_string_equal(vc_bus_event_name(VC_EVENT_JOB_UNKNOWN), "Unknown");
	assert_string_equal(vc_bus_action_name(VC_ACTION_RESTART_PARTITION), "RestartPartition");
	assert_int_equal(vc_job_phase_parse("Weird"), VC_JOB_PHASE_UNKNOWN);
	assert_int_equal(vc_bus_event_parse("Weird"), VC_EVENT_INVALID);
	assert_int_equal(vc_bus_action_parse(NULL), VC_ACTION_INVALID);
	assert_int_equal(vc_queue_state_parse(""), VC_QUEUE_OPEN);
	assert_int_equal(vc_queue_state_parse("Closing"), VC_QUEUE_CLOSING);
	assert_int_equal(vc_queue_state_parse("Bogus"), VC_QUEUE_STATE_UNKNOWN);
	assert_int_equal(vc_pg_phase_parse("Inqueue"), VC_PG_INQUEUE);
	assert_int_equal(vc_pg_phase_parse("Bogus"), VC_PG_PHASE_OTHER);
	assert_int_equal(vc_pod_phase_parse(NULL), VC_POD_PENDING);
	assert_int_equal(vc_pod_phase_parse("Succeeded"), VC_POD_SUCCEEDED);
	for (i = 0; i < VC_JOB_PLUGIN_COUNT; i++)
		assert_int_equal(vc_job_plugin_parse(vc_job_plugin_name(i)), i);
	assert_string_equal(vc_job_plugin_name(VC_JOB_PLUGIN_ENV), "env");
	assert_string_equal(vc_job_plugin_name(VC_JOB_PLUGIN_HCCLRANK), "hcclrank");
	assert_string_equal(vc_job_plugin_name(VC_JOB_PLUGIN_COUNT), "");
	assert_int_equal(vc_job_plugin_parse("tensorflow"), VC_JOB_PLUGIN_TENSORFLOW);
	assert_int_equal(vc_job_plugin_parse("gang"), VC_JOB_PLUGIN_INVALID);
	assert_int_equal(vc_job_plugin_parse(NULL), VC_JOB_PLUGIN_INVALID);

	assert_true(vc_job_phase_is_finished(VC_JOB_COMPLETED));
	assert_true(vc_job_phase_is_finished(VC_JOB_TERMINATED));
	assert_false(vc_job_phase_is_finished(VC_JOB_ABORTED));
	assert_true(vc_bus_action_is_external(VC_ACTION_RESUME_JOB));
	assert_false(vc_bus_action_is_external(VC_ACTION_SYNC_JOB));
	assert_false(vc_bus_action_is_external(VC_ACTION_OPEN_QUEUE));
	assert_true(vc_bus_event_is_user(VC_EVENT_ANY));
	assert_true(vc_bus_event_is_user(VC_EVENT_JOB_UPDATED));
	assert_false(vc_bus_event_is_user(VC_EVENT_POD_RUNNING));
	assert_false(vc_bus_event_is_user(VC_EVENT_OUT_OF_SYNC));
}

static void test_command(void **state)
{
	json_t *obj = load("{\"metadata\":{\"name\":\"j-abortjob-x\",\"namespace\":\"ns\"},"
			   "\"action\":\"AbortJob\",\"reason\":\"r\",\"target\":{\"apiVersion\":"
			   "\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\",\"name\":\"j\","
			   "\"uid\":\"u\"}}");
	json_t *other =
		load("{\"action\":\"OpenQueue\",\"target\":{\"apiVersion\":"
		     "\"scheduling.volcano.sh/v1beta1\",\"kind\":\"Queue\",\"name\":\"q\"}}");
	struct vc_command cmd;

	(void)state;
	assert_int_equal(vc_command_view(obj, &cmd, NULL), 0);
	assert_int_equal(cmd.action, VC_ACTION_ABORT_JOB);
	assert_string_equal(cmd.target_name, "j");
	assert_string_equal(cmd.target_uid, "u");
	assert_string_equal(cmd.reason, "r");
	assert_string_equal(cmd.message, "");
	assert_true(vc_command_targets_job(&cmd));
	vc_command_view_release(&cmd);
	assert_int_equal(vc_command_view(other, &cmd, NULL), 0);
	assert_int_equal(cmd.action, VC_ACTION_OPEN_QUEUE);
	assert_false(vc_command_targets_job(&cmd));
	vc_command_view_release(&cmd);
	json_decref(obj);
	json_decref(other);
}

static void test_podgroup(void **state)
{
	json_t *obj = load("{\"metadata\":{\"name\":\"tf-u1\",\"namespace\":\"default\"},"
			   "\"spec\":{\"minMember\":3,\"minTaskMember\":{\"ps\":1,\"worker\":2},"
			   "\"minResources\":{\"cpu\":\"3\",\"memory\":\"6Gi\","
			   "\"nvidia.com/gpu\":\"4\"}},"
			   "\"status\":{\"phase\":\"Inqueue\",\"running\":1}}");
	struct vc_error err;
	struct vc_podgroup pg;
	json_t *bad;

	(void)state;
	assert_int_equal(vc_podgroup_view(obj, &pg, &err), 0);
	assert_int_equal(pg.min_member, 3);
	assert_string_equal(pg.queue, "default");
	assert_int_equal(vc_podgroup_min_task_member(&pg, "worker"), 2);
	assert_int_equal(vc_podgroup_min_task_member(&pg, "chief"), -1);
	assert_true(pg.has_min_resources);
	assert_true(pg.min_resources.milli_cpu == 3000.0);
	assert_true(pg.min_resources.memory == 6.0 * 1024 * 1024 * 1024);
	assert_true(vc_resource_get(&pg.min_resources, "nvidia.com/gpu") == 4000.0);
	assert_int_equal(pg.phase, VC_PG_INQUEUE);
	assert_int_equal(pg.running, 1);
	vc_podgroup_view_release(&pg);
	json_decref(obj);

	bad = load("{\"spec\":{\"minResources\":{\"cpu\":\"x\"}}}");
	vc_error_clear(&err);
	assert_int_equal(vc_podgroup_view(bad, &pg, &err), VC_EINVALID);
	assert_non_null(strstr(err.text, "spec.minResources"));
	assert_non_null(strstr(err.text, "cpu"));
	json_decref(bad);
}

static void test_queue(void **state)
{
	json_t *obj = load("{\"metadata\":{\"name\":\"q1\"},\"spec\":{\"weight\":4,"
			   "\"capability\":{\"cpu\":\"10\"},\"guarantee\":{\"resource\":"
			   "{\"memory\":\"1Gi\"}},\"reclaimable\":false,\"parent\":\"root\"},"
			   "\"status\":{\"state\":\"Closed\",\"inqueue\":2}}");
	json_t *bare = load("{\"metadata\":{\"name\":\"default\"}}");
	struct vc_queue q;

	(void)state;
	assert_int_equal(vc_queue_view(obj, &q, NULL), 0);
	assert_string_equal(q.meta.ns, "");
	assert_int_equal(q.weight, 4);
	assert_false(q.reclaimable);
	assert_string_equal(q.parent, "root");
	assert_true(q.has_capability);
	assert_true(q.capability.milli_cpu == 10000.0);
	assert_true(q.has_guarantee);
	assert_true(q.guarantee.memory == 1024.0 * 1024 * 1024);
	assert_false(q.has_deserved);
	assert_int_equal(q.state, VC_QUEUE_CLOSED);
	assert_int_equal(q.inqueue, 2);
	vc_queue_view_release(&q);

	/* Defaults: weight 1, reclaimable true, an empty state is Open. */
	assert_int_equal(vc_queue_view(bare, &q, NULL), 0);
	assert_int_equal(q.weight, 1);
	assert_true(q.reclaimable);
	assert_int_equal(q.state, VC_QUEUE_OPEN);
	assert_string_equal(q.parent, "");
	vc_queue_view_release(&q);
	json_decref(obj);
	json_decref(bare);
}

static void test_pod_request_rules(void **state)
{
	/*
	 * Regular: 1 + 0.5 cpu, 1Gi. Sidecar (restartable init): 0.25 cpu. Ordinary init: 2 cpu,
	 * started after the sidecar so it needs 2.25 cpu. Effective cpu = max(1.5 + 0.25, 2.25)
	 * = 2.25, plus 0.1 overhead = 2.35 cpu. GPUs: regular 1, init 2 -> 2 (2000 milli).
	 */
	json_t *obj = load(
		"{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\",\"annotations\":"
		"{\"scheduling.k8s.io/group-name\":\"pg1\"}},"
		"\"spec\":{\"nodeName\":\"node-1\",\"priority\":100,\"schedulerName\":\"volcano\","
		"\"overhead\":{\"cpu\":\"100m\"},"
		"\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"1\","
		"\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"1\"}}},{\"name\":\"b\",\"resources\":"
		"{\"requests\":{\"cpu\":\"500m\"}}}],"
		"\"initContainers\":[{\"name\":\"side\",\"restartPolicy\":\"Always\",\"resources\":"
		"{\"requests\":{\"cpu\":\"250m\"}}},{\"name\":\"init\",\"resources\":{\"requests\":"
		"{\"cpu\":\"2\",\"nvidia.com/gpu\":\"2\"}}}]},"
		"\"status\":{\"phase\":\"Running\"}}");
	struct vc_pod pod;

	(void)state;
	assert_int_equal(vc_pod_view(obj, &pod, NULL), 0);
	assert_string_equal(pod.node_name, "node-1");
	assert_string_equal(pod.scheduler_name, "volcano");
	assert_string_equal(pod.group_name, "pg1");
	assert_true(pod.has_priority);
	assert_int_equal(pod.priority, 100);
	assert_int_equal(pod.phase, VC_POD_RUNNING);
	assert_string_equal(pod.restart_policy, "Always");
	assert_true(pod.request.milli_cpu == 2350.0);
	assert_true(pod.request.memory == 1024.0 * 1024 * 1024);
	assert_true(vc_resource_get(&pod.request, "nvidia.com/gpu") == 2000.0);
	vc_pod_view_release(&pod);
	json_decref(obj);
}

/*
 * Pod-level resources (spec.resources, KEP-2837: component-helpers' PodRequests): a cpu, memory
 * or hugepages-* request of the pod replaces the containers' aggregate for that resource;
 * other resources and pod-level limits leave it alone; the overhead is added after.
 */
static void test_pod_level_request(void **state)
{
	json_t *obj =
		load("{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\"},"
		     "\"spec\":{\"overhead\":{\"cpu\":\"100m\"},"
		     "\"resources\":{\"requests\":{\"cpu\":\"3\",\"hugepages-2Mi\":\"4Mi\","
		     "\"nvidia.com/gpu\":\"7\"},\"limits\":{\"memory\":\"8Gi\"}},"
		     "\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"1\","
		     "\"memory\":\"1Gi\",\"nvidia.com/gpu\":\"1\",\"hugepages-2Mi\":\"2Mi\"}}},"
		     "{\"name\":\"b\",\"resources\":{\"requests\":{\"cpu\":\"500m\"}}}]}}");
	json_t *mem_only = load("{\"spec\":{\"resources\":{\"requests\":{\"memory\":\"2Gi\"}},"
				"\"containers\":[{\"name\":\"a\"}]}}");
	json_t *bad = load("{\"spec\":{\"resources\":{\"requests\":{\"cpu\":\"x\"}},"
			   "\"containers\":[{\"name\":\"a\"}]}}");
	struct vc_error err;
	struct vc_pod pod;

	(void)state;
	assert_int_equal(vc_pod_view(obj, &pod, NULL), 0);
	assert_true(pod.request.milli_cpu == 3100.0);
	assert_true(pod.request.memory == 1024.0 * 1024 * 1024);
	assert_true(vc_resource_get(&pod.request, "nvidia.com/gpu") == 1000.0);
	assert_true(vc_resource_get(&pod.request, "hugepages-2Mi") == 4.0 * 1024 * 1024 * 1000);
	vc_pod_view_release(&pod);
	/* Containers without requests: the pod's memory alone; cpu stays 0 (best-effort cpu). */
	assert_int_equal(vc_pod_view(mem_only, &pod, NULL), 0);
	assert_true(pod.request.milli_cpu == 0);
	assert_true(pod.request.memory == 2.0 * 1024 * 1024 * 1024);
	vc_pod_view_release(&pod);
	vc_error_clear(&err);
	assert_int_equal(vc_pod_view(bad, &pod, &err), VC_EINVALID);
	assert_non_null(strstr(err.text, "resources"));
	json_decref(obj);
	json_decref(mem_only);
	json_decref(bad);
}

static void test_pod_bad_request(void **state)
{
	json_t *obj = load("{\"spec\":{\"containers\":[{\"name\":\"main\",\"resources\":"
			   "{\"requests\":{\"memory\":\"lots\"}}}]}}");
	json_t *bare = load("{\"metadata\":{\"name\":\"p\"}}");
	struct vc_error err;
	struct vc_pod pod;

	(void)state;
	vc_error_clear(&err);
	assert_int_equal(vc_pod_view(obj, &pod, &err), VC_EINVALID);
	assert_non_null(strstr(err.text, "spec: containers[0] (main)"));
	assert_non_null(strstr(err.text, "memory"));
	assert_null(pod.obj);
	/* A pod without spec is a best-effort, unbound, default-scheduler pod. */
	assert_int_equal(vc_pod_view(bare, &pod, NULL), 0);
	assert_string_equal(pod.scheduler_name, "default-scheduler");
	assert_string_equal(pod.node_name, "");
	assert_null(pod.group_name);
	assert_true(vc_resource_is_empty(&pod.request));
	vc_pod_view_release(&pod);
	json_decref(obj);
	json_decref(bare);
}

static void test_node(void **state)
{
	json_t *obj =
		load("{\"metadata\":{\"name\":\"n1\",\"labels\":{\"zone\":\"a\"}},"
		     "\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]},"
		     "\"status\":{\"allocatable\":{\"cpu\":\"8\",\"memory\":\"32Gi\","
		     "\"nvidia.com/gpu\":\"4\",\"pods\":\"110\"},\"capacity\":{\"cpu\":\"8\"},"
		     "\"conditions\":[{\"type\":\"MemoryPressure\",\"status\":\"False\"},"
		     "{\"type\":\"Ready\",\"status\":\"True\"}]}}");
	struct vc_node node;

	(void)state;
	assert_int_equal(vc_node_view(obj, &node, NULL), 0);
	assert_true(node.ready);
	assert_false(node.unschedulable);
	assert_int_equal(json_array_size(node.taints), 1);
	assert_true(node.allocatable.milli_cpu == 8000.0);
	assert_true(vc_resource_get(&node.allocatable, "nvidia.com/gpu") == 4000.0);
	assert_int_equal(node.allocatable.max_task_num, 110);
	assert_string_equal(vc_meta_label(&node.meta, "zone"), "a");
	vc_node_view_release(&node);
	json_decref(obj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_defaults_and_fields),
		cmocka_unit_test(test_job_explicit_values_win),
		cmocka_unit_test(test_job_malformed),
		cmocka_unit_test(test_job_allocation_failures),
		cmocka_unit_test(test_enum_names_round_trip),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_podgroup),
		cmocka_unit_test(test_queue),
		cmocka_unit_test(test_pod_request_rules),
		cmocka_unit_test(test_pod_level_request),
		cmocka_unit_test(test_pod_bad_request),
		cmocka_unit_test(test_node),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
