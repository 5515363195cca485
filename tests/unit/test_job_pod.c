/* Unit tests for controller/job_pod: pods and PodGroups built from a Job
 * (docs/volcano/job-controller.md §2.1, §2.2). */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>

#include "job_pod.h"
#include "support/fake_api.h"
#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_model.h"

static void view(const char *text, struct vc_job *job)
{
	struct vc_error err;
	json_t *obj = J(text);

	vc_error_clear(&err);
	assert_int_equal(vc_job_view(obj, job, &err), 0);
	json_decref(obj);
}

/* Compare v (a new reference, consumed) with the expected JSON text. */
static void expect_json(json_t *v, const char *expected)
{
	json_t *e = J(expected);

	if (!json_equal(v, e)) {
		char *a = json_dumps(v, JSON_SORT_KEYS), *b = json_dumps(e, JSON_SORT_KEYS);

		print_error("got      %s\nexpected %s\n", a, b);
		free(a);
		free(b);
		json_decref(e);
		json_decref(v);
		fail();
	}
	json_decref(e);
	json_decref(v);
}

static const char *const job1 = "{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job',"
				"'metadata':{'name':'job1','namespace':'ns1','uid':'U'},"
				"'spec':{'tasks':[{'name':'worker','replicas':2,'template':{"
				"'metadata':{'name':'ignored'},"
				"'spec':{'containers':[{'name':'c','image':'busybox'}]}}}]}}";

static void test_spec_example_pod(void **state)
{
	struct vc_job job;
	json_t *pod = NULL;

	(void)state;
	view(job1, &job);
	assert_int_equal(job_pod_build(&job, 0, 1, NULL, &pod, NULL), 0);
	expect_json(pod,
		    "{'apiVersion':'v1','kind':'Pod','metadata':{'name':'job1-worker-1',"
		    "'namespace':'ns1',"
		    "'labels':{'volcano.sh/task-index':'1','volcano.sh/job-name':'job1',"
		    "'volcano.sh/task-spec':'worker','volcano.sh/job-namespace':'ns1',"
		    "'volcano.sh/queue-name':'default'},"
		    "'annotations':{'volcano.sh/task-index':'1','volcano.sh/task-spec':'worker',"
		    "'scheduling.k8s.io/group-name':'job1-U','volcano.sh/job-name':'job1',"
		    "'volcano.sh/queue-name':'default','volcano.sh/job-version':'0',"
		    "'volcano.sh/template-uid':'job1-worker','volcano.sh/job-retry-count':'0'},"
		    "'ownerReferences':[{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job',"
		    "'name':'job1','uid':'U','controller':true,'blockOwnerDeletion':true}]},"
		    "'spec':{'containers':[{'name':'c','image':'busybox'}],"
		    "'schedulerName':'volcano'}}");
	vc_job_view_release(&job);
}

static const char *const job_full =
	"{'metadata':{'name':'j','namespace':'n','uid':'u9',"
	"'labels':{'volcano.sh/preemptable':'true','volcano.sh/cooldown-time':'60s','other':'x'},"
	"'annotations':{'volcano.sh/preemptable':'false','volcano.sh/revocable-zone':'*',"
	"'volcano.sh/jdb-min-available':'1','volcano.sh/jdb-max-unavailable':'2'}},"
	"'spec':{'queue':'q1','schedulerName':'mysched','priorityClassName':'high',"
	"'volumes':[{'mountPath':'/data','volumeClaimName':'pvc-a'},"
	"{'mountPath':'/again','volumeClaimName':'pvc-a'},"
	"{'mountPath':'/scratch','volumeClaimName':'j-pvc-abc'}],"
	"'tasks':[{'name':'ps','replicas':1,'topologyPolicy':'best-effort','template':{"
	"'metadata':{'labels':{'volcano.sh/task-index':'x','app':'a'},"
	"'annotations':{'keep':'me'}},"
	"'spec':{'schedulerName':'own','priorityClassName':'low',"
	"'volumes':[{'name':'tmp','emptyDir':{}}],"
	"'initContainers':[{'name':'i'}],"
	"'containers':[{'name':'a','volumeMounts':[{'name':'tmp','mountPath':'/tmp'}]},"
	"{'name':'b'}]}}},"
	"{'name':'w','replicas':6,'partitionPolicy':{'totalPartitions':3,'partitionSize':2},"
	"'template':{'spec':{'containers':[{'name':'c'}]}}}]},"
	"'status':{'version':3,'retryCount':2}}";

static void test_pod_full(void **state)
{
	static const char *const names[] = { "j-aaaaaaaaaaaa", "j-bbbbbbbbbbbb", "j-cccccccccccc" };
	struct job_pod_opts opts = { .volume_names = names, .forwarded = true };
	struct vc_job job;
	json_t *pod = NULL;

	(void)state;
	view(job_full, &job);
	assert_int_equal(job_pod_build(&job, 0, 0, &opts, &pod, NULL), 0);
	expect_json(
		pod,
		"{'apiVersion':'v1','kind':'Pod','metadata':{'name':'j-ps-0','namespace':'n',"
		"'labels':{'volcano.sh/task-index':'0','app':'a','volcano.sh/job-name':'j',"
		"'volcano.sh/task-spec':'ps','volcano.sh/job-namespace':'n',"
		"'volcano.sh/queue-name':'q1','volcano.sh/preemptable':'true',"
		"'volcano.sh/cooldown-time':'60s','volcano.sh/job-forwarding':'true'},"
		"'annotations':{'keep':'me','volcano.sh/task-index':'0','volcano.sh/task-spec':'ps',"
		"'scheduling.k8s.io/group-name':'j-u9','volcano.sh/job-name':'j',"
		"'volcano.sh/queue-name':'q1','volcano.sh/job-version':'3',"
		"'volcano.sh/template-uid':'j-ps','volcano.sh/job-retry-count':'2',"
		"'volcano.sh/numa-topology-policy':'best-effort','volcano.sh/preemptable':'false',"
		"'volcano.sh/revocable-zone':'*','volcano.sh/jdb-min-available':'1',"
		"'volcano.sh/job-forwarding':'true'},"
		"'ownerReferences':[{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job',"
		"'name':'j','uid':'u9','controller':true,'blockOwnerDeletion':true}]},"
		"'spec':{'schedulerName':'own','priorityClassName':'low',"
		"'volumes':[{'name':'tmp','emptyDir':{}},"
		"{'name':'j-aaaaaaaaaaaa','persistentVolumeClaim':{'claimName':'pvc-a'}},"
		"{'name':'j-cccccccccccc','persistentVolumeClaim':{'claimName':'j-pvc-abc'}}],"
		"'initContainers':[{'name':'i'}],"
		"'containers':[{'name':'a','volumeMounts':[{'name':'tmp','mountPath':'/tmp'},"
		"{'name':'j-aaaaaaaaaaaa','mountPath':'/data'},"
		"{'name':'j-cccccccccccc','mountPath':'/scratch'}]},"
		"{'name':'b','volumeMounts':[{'name':'j-aaaaaaaaaaaa','mountPath':'/data'},"
		"{'name':'j-cccccccccccc','mountPath':'/scratch'}]}]}}");

	/* Job defaults for schedulerName/priorityClassName; partition id = 5 / 2. */
	assert_int_equal(job_pod_build(&job, 1, 5, &opts, &pod, NULL), 0);
	assert_string_equal(
		vc_json_get_str(vc_json_path(pod, "metadata.labels"), "volcano.sh/partition-id"),
		"2");
	assert_string_equal(vc_json_get_str(json_object_get(pod, "spec"), "schedulerName"),
			    "mysched");
	assert_string_equal(vc_json_get_str(json_object_get(pod, "spec"), "priorityClassName"),
			    "high");
	assert_string_equal(vc_json_get_str(vc_json_path(pod, "metadata"), "name"), "j-w-5");
	json_decref(pod);
	vc_job_view_release(&job);
}

static void test_pod_errors(void **state)
{
	struct vc_error err;
	struct vc_job job;
	json_t *pod = NULL;

	(void)state;
	view(job_full, &job);
	vc_error_clear(&err);
	assert_int_equal(job_pod_build(&job, 2, 0, NULL, &pod, &err), VC_EINVAL);
	assert_string_equal(err.text, "job 'j' has no task 2");
	assert_int_equal(job_pod_build(&job, 1, 6, NULL, &pod, &err), VC_EINVAL);
	assert_string_equal(err.text, "task 'w' has no replica 6");
	assert_int_equal(job_pod_build(&job, 1, -1, NULL, &pod, &err), VC_EINVAL);
	assert_int_equal(job_pod_build(&job, 1, 0, NULL, &pod, &err), VC_EINVAL);
	assert_string_equal(err.text, "job 'j' has volumes but no volume names given");
	assert_null(pod);
	vc_job_view_release(&job);

	view("{'metadata':{'name':'j'},'spec':{'tasks':[{'name':'t','replicas':1}]}}", &job);
	assert_int_equal(job_pod_build(&job, 0, 0, NULL, &pod, &err), VC_EINVALID);
	assert_string_equal(err.text, "task 't': template.spec is missing");
	vc_job_view_release(&job);

	view("{'metadata':{'name':'j'},'spec':{'volumes':[{'mountPath':'/x'}],"
	     "'tasks':[{'name':'t','replicas':1,'template':{'spec':{'containers':[]}}}]}}",
	     &job);
	{
		static const char *const names[] = { "v" };
		struct job_pod_opts opts = { .volume_names = names };

		assert_int_equal(job_pod_build(&job, 0, 0, &opts, &pod, &err), VC_EINVALID);
		assert_string_equal(err.text,
				    "spec.volumes[0]: volumeClaimName and mountPath are required");
	}
	assert_null(pod);
	vc_job_view_release(&job);
}

/* The master/worker jobs of docs/volcano/job-controller.md §2.2.1's table: master 2 x 50m, worker 2
 * x 100m. */
static char *mw_job(int master_min, int worker_min, int job_min)
{
	char m[32] = "", w[32] = "";

	if (master_min >= 0)
		snprintf(m, sizeof(m), "'minAvailable':%d,", master_min);
	if (worker_min >= 0)
		snprintf(w, sizeof(w), "'minAvailable':%d,", worker_min);
	return vc_asprintf(
		"{'metadata':{'name':'mw','namespace':'n','uid':'1'},'spec':{'minAvailable':%d,"
		"'tasks':[{'name':'master','replicas':2,%s'template':{'spec':{'containers':[{'name':"
		"'c','resources':{'requests':{'cpu':'50m'}}}]}}},"
		"{'name':'worker','replicas':2,%s'template':{'spec':{'containers':[{'name':'c',"
		"'resources':{'requests':{'cpu':'100m'}}}]}}}]}}",
		job_min, m, w);
}

static void test_min_resources_table(void **state)
{
	/* -1 = dflt; weights: 0 equal, 1 master higher, 2 worker higher. */
	static const struct {
		int m, w, jmin, prio;
		const char *cpu;
		int pods;
	} rows[] = {
		{ 1, -1, 2, 0, "100m", 2 }, { -1, 1, 2, 0, "100m", 2 }, { -1, -1, 3, 0, "200m", 3 },
		{ 1, 1, 2, 0, "150m", 2 },  { 1, -1, 3, 0, "250m", 3 }, { -1, 1, 3, 1, "200m", 3 },
		{ 1, 1, 3, 0, "200m", 3 },  { 1, 1, 3, 1, "200m", 3 },	{ 1, 1, 3, 2, "250m", 3 },
		{ 0, 1, 3, 2, "250m", 3 },  { -1, 1, 4, 2, "300m", 4 }, { 1, 1, 4, 2, "300m", 4 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int32_t weights[2] = { rows[i].prio == 1 ? 100 : 0, rows[i].prio == 2 ? 100 : 0 };
		char *text = mw_job(rows[i].m, rows[i].w, rows[i].jmin);
		char expected[256];
		struct vc_job job;
		json_t *res = NULL;

		assert_non_null(text);
		view(text, &job);
		vc_free(text);
		assert_int_equal(job_min_resources(&job, weights, &res, NULL), 0);
		snprintf(expected, sizeof(expected),
			 "{'count/pods':'%d','pods':'%d','cpu':'%s','requests.cpu':'%s'}",
			 rows[i].pods, rows[i].pods, rows[i].cpu, rows[i].cpu);
		print_message("row %zu\n", i);
		expect_json(res, expected);
		vc_job_view_release(&job);
	}
}

static const char *const gpu_job =
	"{'metadata':{'name':'gpu','namespace':'n','uid':'g1','labels':{'a':'b'},"
	"'annotations':{'c':'d'}},"
	"'spec':{'minAvailable':2,'queue':'q','priorityClassName':'pc',"
	"'networkTopology':{'mode':'hard','highestTierAllowed':2,'highestTierName':'x'},"
	"'tasks':[{'name':'a','replicas':1,'template':{'spec':{'containers':[{'name':'c',"
	"'resources':{'requests':{'cpu':'1','memory':'1000Mi','nvidia.com/gpu':'1'},"
	"'limits':{'cpu':'1','memory':'1000Mi','nvidia.com/gpu':'1'}}}]}}},"
	"{'name':'b','replicas':1,'template':{'spec':{'containers':[{'name':'c',"
	"'resources':{'requests':{'cpu':'1','memory':'1000Mi','nvidia.com/gpu':'1'},"
	"'limits':{'cpu':'1','memory':'1000Mi','nvidia.com/gpu':'1'}}}]}}}]}}";

static void test_podgroup_gpu_example(void **state)
{
	struct vc_job job;
	json_t *pg = NULL;

	(void)state;
	view(gpu_job, &job);
	assert_int_equal(job_podgroup_build(&job, NULL, &pg, NULL), 0);
	expect_json(pg,
		    "{'apiVersion':'scheduling.volcano.sh/v1beta1','kind':'PodGroup',"
		    "'metadata':{'name':'gpu-g1','namespace':'n','labels':{'a':'b'},"
		    "'annotations':{'c':'d'},"
		    "'ownerReferences':[{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job',"
		    "'name':'gpu','uid':'g1','controller':true,'blockOwnerDeletion':true}]},"
		    "'spec':{'minMember':2,'minTaskMember':{'a':1,'b':1},'queue':'q',"
		    "'priorityClassName':'pc',"
		    "'minResources':{'count/pods':'2','pods':'2','cpu':'2','requests.cpu':'2',"
		    "'limits.cpu':'2','memory':'2000Mi','requests.memory':'2000Mi',"
		    "'limits.memory':'2000Mi','nvidia.com/gpu':'2','requests.nvidia.com/gpu':'2'},"
		    "'networkTopology':{'mode':'hard','highestTierAllowed':2}}}");
	vc_job_view_release(&job);
}

static void test_podgroup_partitions(void **state)
{
	struct vc_job job;
	json_t *pg = NULL;

	(void)state;
	view("{'metadata':{'name':'p','namespace':'n','uid':'1'},'spec':{"
	     "'networkTopology':{'highestTierName':'rack'},"
	     "'tasks':[{'name':'t','replicas':4,'partitionPolicy':{'totalPartitions':2,"
	     "'partitionSize':2,'minPartitions':1,'networkTopology':{'mode':'soft',"
	     "'highestTierAllowed':1,'highestTierName':'z'}},"
	     "'template':{'spec':{'containers':[]}}},"
	     "{'name':'u','replicas':1,'template':{'spec':{'containers':[]}}}]}}",
	     &job);
	assert_int_equal(job_podgroup_build(&job, NULL, &pg, NULL), 0);
	expect_json(json_incref(json_object_get(pg, "spec")),
		    "{'minMember':3,'minTaskMember':{'t':2,'u':1},'queue':'default',"
		    "'minResources':{'count/pods':'3','pods':'3'},"
		    "'networkTopology':{'highestTierName':'rack'},"
		    "'subGroupPolicy':[{'name':'t','subGroupSize':2,'minSubGroups':1,"
		    "'labelSelector':{'matchLabels':{'volcano.sh/task-spec':'t'}},"
		    "'matchLabelKeys':['volcano.sh/partition-id'],"
		    "'networkTopology':{'mode':'soft','highestTierAllowed':1,"
		    "'highestTierName':'z'}}]}");
	json_decref(pg);
	vc_job_view_release(&job);
}

static void test_pod_usage_rules(void **state)
{
	json_t *spec, *res = NULL;
	struct vc_error err;

	(void)state;
	/* Regular 1+2 cpu; init 4 cpu; sidecar 1 cpu started before the init: max(3+1, 4+1)=5. */
	spec = J(
		"{'containers':[{'resources':{'requests':{'cpu':'1','hugepages-2Mi':'4Mi',"
		"'example.com/foo':'3','ephemeral-storage':'1Gi'}}},"
		"{'resources':{'requests':{'cpu':'2'},'limits':{'memory':'1Gi'}}}],"
		"'initContainers':[{'restartPolicy':'Always','resources':{'requests':{'cpu':'1'}}},"
		"{'resources':{'requests':{'cpu':'4'}}}],"
		"'overhead':{'cpu':'100m'}}");
	assert_int_equal(job_pod_usage(spec, &res, NULL), 0);
	expect_json(res, "{'count/pods':'1','pods':'1','cpu':'5100m','requests.cpu':'5100m',"
			 "'limits.memory':'1Gi','ephemeral-storage':'1Gi',"
			 "'requests.ephemeral-storage':'1Gi','hugepages-2Mi':'4Mi',"
			 "'requests.hugepages-2Mi':'4Mi','example.com/foo':'3',"
			 "'requests.example.com/foo':'3'}");
	json_decref(spec);

	spec = J("{'containers':[{'resources':{'requests':{'cpu':'x1'}}}]}");
	vc_error_clear(&err);
	res = NULL;
	assert_int_equal(job_pod_usage(spec, &res, &err), VC_EINVALID);
	assert_string_equal(err.text,
			    "containers[0].resources.requests[cpu]: cannot parse quantity");
	assert_null(res);
	json_decref(spec);
}

static void test_allocation_failures(void **state)
{
	static const char *const names[] = { "j-aaaaaaaaaaaa", "j-bbbbbbbbbbbb", "j-cccccccccccc" };
	struct job_pod_opts opts = { .volume_names = names, .forwarded = true };
	struct vc_job job, gjob;
	json_t *good_pod = NULL, *good_pg = NULL;
	long n;
	int rc;

	(void)state;
	view(job_full, &job);
	view(gpu_job, &gjob);
	assert_int_equal(job_pod_build(&job, 0, 0, &opts, &good_pod, NULL), 0);
	assert_int_equal(job_podgroup_build(&gjob, NULL, &good_pg, NULL), 0);
	for (n = 0;; n++) {
		json_t *pod = NULL;

		vc_alloc_fail_after(n);
		rc = job_pod_build(&job, 0, 0, &opts, &pod, NULL);
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_true(json_equal(pod, good_pod));
			json_decref(pod);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(pod);
	}
	assert_true(n > 10);
	for (n = 0;; n++) {
		json_t *pg = NULL;

		vc_alloc_fail_after(n);
		rc = job_podgroup_build(&gjob, NULL, &pg, NULL);
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_true(json_equal(pg, good_pg));
			json_decref(pg);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(pg);
	}
	assert_true(n > 10);
	json_decref(good_pod);
	json_decref(good_pg);
	vc_job_view_release(&job);
	vc_job_view_release(&gjob);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_example_pod),
		cmocka_unit_test(test_pod_full),
		cmocka_unit_test(test_pod_errors),
		cmocka_unit_test(test_min_resources_table),
		cmocka_unit_test(test_podgroup_gpu_example),
		cmocka_unit_test(test_podgroup_partitions),
		cmocka_unit_test(test_pod_usage_rules),
		cmocka_unit_test(test_allocation_failures),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
