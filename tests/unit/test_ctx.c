/* Unit tests for the controller context: the slim pod transform (claim volumes kept for the
 * scheduler's volume predicates) and the selector transform. */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "ctx.h"
#include "vc_alloc.h"

static const char *full_pod =
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
	"\"metadata\":{\"name\":\"j-w-0\",\"namespace\":\"ns\",\"uid\":\"u1\","
	"\"annotations\":{\"scheduling.k8s.io/group-name\":\"pg\"},"
	"\"managedFields\":[{\"manager\":\"kubectl\"}]},"
	"\"spec\":{\"schedulerName\":\"volcano\",\"nodeName\":\"n1\",\"priority\":5,"
	"\"volumes\":[{\"name\":\"v\"},{\"name\":\"cm\",\"configMap\":{\"name\":\"x\"}},"
	"{\"name\":\"data\",\"persistentVolumeClaim\":{\"claimName\":\"c1\"}},"
	"{\"name\":\"e\",\"ephemeral\":{\"volumeClaimTemplate\":{\"spec\":{}}}}],"
	"\"serviceAccountName\":\"default\","
	"\"resources\":{\"requests\":{\"cpu\":\"2\"}},"
	"\"tolerations\":[{\"key\":\"k\",\"operator\":\"Exists\"}],"
	"\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"zone\"}],"
	"\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"env\":[{\"name\":\"A\"}],"
	"\"resources\":{\"requests\":{\"cpu\":\"1\"}},\"ports\":[{\"hostPort\":80}]}],"
	"\"initContainers\":[{\"name\":\"i\",\"image\":\"x\",\"restartPolicy\":\"Always\"}]},"
	"\"status\":{\"phase\":\"Failed\",\"hostIP\":\"10.0.0.1\",\"podIP\":\"10.1.0.1\","
	"\"qosClass\":\"Burstable\",\"conditions\":[{\"type\":\"PodScheduled\"}],"
	"\"containerStatuses\":[{\"name\":\"c\",\"image\":\"busybox\",\"imageID\":\"x\","
	"\"restartCount\":2,\"ready\":false,\"lastState\":{},"
	"\"state\":{\"terminated\":{\"exitCode\":3,\"reason\":\"Error\",\"startedAt\":\"t\"}}}]}}";

static const char *slim_pod =
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
	"\"metadata\":{\"name\":\"j-w-0\",\"namespace\":\"ns\",\"uid\":\"u1\","
	"\"annotations\":{\"scheduling.k8s.io/group-name\":\"pg\"}},"
	"\"spec\":{\"schedulerName\":\"volcano\",\"nodeName\":\"n1\",\"priority\":5,"
	"\"volumes\":[{\"name\":\"data\",\"persistentVolumeClaim\":{\"claimName\":\"c1\"}},"
	"{\"name\":\"e\",\"ephemeral\":{}}],"
	"\"resources\":{\"requests\":{\"cpu\":\"2\"}},"
	"\"tolerations\":[{\"key\":\"k\",\"operator\":\"Exists\"}],"
	"\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"zone\"}],"
	"\"containers\":[{\"name\":\"c\","
	"\"resources\":{\"requests\":{\"cpu\":\"1\"}},\"ports\":[{\"hostPort\":80}]}],"
	"\"initContainers\":[{\"name\":\"i\",\"restartPolicy\":\"Always\"}]},"
	"\"status\":{\"phase\":\"Failed\",\"conditions\":[{\"type\":\"PodScheduled\"}],"
	"\"containerStatuses\":[{\"name\":\"c\",\"restartCount\":2,\"ready\":false,"
	"\"state\":{\"terminated\":{\"exitCode\":3,\"reason\":\"Error\"}}}]}}";

static void test_slim_pod(void **state)
{
	json_t *in = json_loads(full_pod, 0, NULL), *want = json_loads(slim_pod, 0, NULL);
	json_t *out = NULL;

	(void)state;
	assert_non_null(in);
	assert_non_null(want);
	assert_int_equal(ctx_slim_pod(NULL, in, &out), 0);
	assert_non_null(out);
	if (!json_equal(out, want)) {
		char *s = json_dumps(out, JSON_SORT_KEYS);

		fprintf(stderr, "got %s\n", s);
		free(s);
		fail();
	}
	/* The input is left as it was (the informer's object is borrowed). */
	assert_non_null(json_object_get(json_object_get(in, "spec"), "volumes"));
	json_decref(out);
	json_decref(in);
	json_decref(want);
}

static void test_slim_pod_errors(void **state)
{
	json_t *in = json_loads(full_pod, 0, NULL), *arr = json_array(), *out = NULL;
	int n;

	(void)state;
	assert_int_equal(ctx_slim_pod(NULL, arr, &out), VC_EINVAL);
	assert_null(out);
	for (n = 0; n < 400; n++) {
		int rc;

		vc_alloc_fail_after(n);
		rc = ctx_slim_pod(NULL, in, &out);
		vc_alloc_fail_after(-1);
		if (!rc) {
			json_decref(out);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(out);
	}
	assert_true(n < 400);
	json_decref(arr);
	json_decref(in);
}

/* A Service keeps its identity, labels and selector: what the scheduler's default spread reads. */
static void test_slim_selector(void **state)
{
	json_t *in = json_loads(
		"{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"s\","
		"\"namespace\":\"ns\",\"uid\":\"u\",\"resourceVersion\":\"7\",\"labels\":{\"a\":\"b\"},"
		"\"annotations\":{\"big\":\"x\"},\"managedFields\":[{}]},\"spec\":{\"ports\":[{}],"
		"\"selector\":{\"app\":\"web\"},\"clusterIP\":\"None\"},\"status\":{}}",
		0, NULL);
	json_t *want = json_loads(
		"{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"s\","
		"\"namespace\":\"ns\",\"uid\":\"u\",\"resourceVersion\":\"7\",\"labels\":{\"a\":\"b\"}},"
		"\"spec\":{\"selector\":{\"app\":\"web\"}}}",
		0, NULL);
	json_t *out = NULL;

	(void)state;
	assert_non_null(in);
	assert_non_null(want);
	assert_int_equal(ctx_slim_selector(NULL, in, &out), 0);
	assert_true(json_equal(out, want));
	assert_non_null(json_object_get(in, "status"));
	json_decref(out);
	json_decref(in);
	json_decref(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slim_pod),
		cmocka_unit_test(test_slim_pod_errors),
		cmocka_unit_test(test_slim_selector),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
