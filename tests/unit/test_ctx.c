/* Unit tests for the controller context: the slim pod transform (claim volumes kept for the
 * scheduler's volume predicates), the selector transform, and which informers list first from
 * the API server's watch cache. */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "ctx.h"
#include "support/fake_api.h"
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

/* fn on an owned copy of in reduces it in place, to exactly the bytes of want (fn's copy). */
static void assert_owned_same(vc_informer_transform_fn *fn, json_t *in, const json_t *want)
{
	json_t *out = NULL;
	char *a, *b;

	assert_non_null(in);
	assert_int_equal(fn(NULL, in, true, &out), 0);
	assert_ptr_equal(out, in);
	a = json_dumps(out, JSON_COMPACT);
	b = json_dumps(want, JSON_COMPACT);
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a, b);
	free(a);
	free(b);
	json_decref(out);
	json_decref(in);
}

static void test_slim_pod(void **state)
{
	json_t *in = json_loads(full_pod, 0, NULL), *want = json_loads(slim_pod, 0, NULL);
	json_t *out = NULL;

	(void)state;
	assert_non_null(in);
	assert_non_null(want);
	assert_int_equal(ctx_slim_pod(NULL, in, false, &out), 0);
	assert_non_null(out);
	if (!json_equal(out, want)) {
		char *s = json_dumps(out, JSON_SORT_KEYS);

		fprintf(stderr, "got %s\n", s);
		free(s);
		fail();
	}
	/* The input is left as it was (a listed object is borrowed). */
	assert_non_null(json_object_get(json_object_get(in, "spec"), "volumes"));
	json_decref(in);
	/* Owned (a watched event's object): reduced in place to the same bytes, keys in order. */
	in = json_loads(full_pod, 0, NULL);
	assert_owned_same(ctx_slim_pod, in, out);
	json_decref(out);
	json_decref(want);
}

static void test_slim_pod_errors(void **state)
{
	json_t *in = json_loads(full_pod, 0, NULL), *arr = json_array(), *out = NULL;
	int n;

	(void)state;
	assert_int_equal(ctx_slim_pod(NULL, arr, false, &out), VC_EINVAL);
	assert_null(out);
	assert_int_equal(ctx_slim_pod(NULL, arr, true, &out), VC_EINVAL);
	assert_null(out);
	for (n = 0; n < 400; n++) {
		int rc;

		vc_alloc_fail_after(n);
		rc = ctx_slim_pod(NULL, in, false, &out);
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
	assert_int_equal(ctx_slim_selector(NULL, in, false, &out), 0);
	assert_true(json_equal(out, want));
	assert_non_null(json_object_get(in, "status"));
	assert_owned_same(ctx_slim_selector, json_deep_copy(in), out);
	json_decref(out);
	json_decref(in);
	json_decref(want);
}

/* ---- the first lists ------------------------------------------------------------------------ */

static struct fake fk;
/* The resourceVersion the first list of jobs, nodes and pods asked for ("-" not yet, "" none). */
static char first_rv[3][8];

static int rv_slot(const char *resource)
{
	if (!strcmp(resource, "jobs"))
		return 0;
	if (!strcmp(resource, "nodes"))
		return 1;
	return !strcmp(resource, "pods") ? 2 : -1;
}

static int recording_list(void *ctx, const struct vc_gvr *r, const char *ns,
			  const struct vc_list_opts *opts, json_t **out, struct vc_error *err)
{
	int k = rv_slot(r->resource);

	pthread_mutex_lock(&fk.lock);
	if (k >= 0 && !strcmp(first_rv[k], "-"))
		snprintf(first_rv[k], sizeof(first_rv[k]), "%s",
			 opts->resource_version ? opts->resource_version : "");
	pthread_mutex_unlock(&fk.lock);
	return fake_ops.list(ctx, r, ns, opts, out, err);
}

/*
 * The Jobs and the nodes are listed first from the watch cache (resourceVersion "0"): every
 * controller waits for the Jobs, the scheduler's first session for the nodes. Pods are listed
 * from etcd, a page at a time.
 */
static void test_first_lists(void **state)
{
	static struct vc_kube_ops ops;
	const struct ctx_opts opts = { .jobs = true, .pods = true, .nodes = true };
	struct vc_ctrl_ctx ctx;
	struct vc_kube *kube;
	struct vc_error err;
	int k;

	(void)state;
	fake_init(&fk);
	for (k = 0; k < 3; k++)
		snprintf(first_rv[k], sizeof(first_rv[k]), "-");
	ops = fake_ops;
	ops.list = recording_list;
	kube = vc_kube_new_with_ops(&ops, &fk);
	assert_non_null(kube);
	assert_int_equal(ctx_init(&ctx, kube, NULL, &opts, &err), 0);
	assert_int_equal(ctx_start(&ctx), 0);
	assert_int_equal(ctx_wait_synced(&ctx, 10 * VC_NSEC_PER_SEC), 0);
	ctx_stop(&ctx);
	ctx_release(&ctx);
	vc_kube_free(kube);
	fake_release(&fk);
	assert_string_equal(first_rv[0], "0");
	assert_string_equal(first_rv[1], "0");
	assert_string_equal(first_rv[2], "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slim_pod),
		cmocka_unit_test(test_slim_pod_errors),
		cmocka_unit_test(test_slim_selector),
		cmocka_unit_test(test_first_lists),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
