/*
 * Unit tests for vc_resource. The comparison tables are ports of Volcano's
 * pkg/scheduler/api/resource_info_test.go (TestNewResource, TestAddResource, TestSubResource,
 * TestSetMaxResource, TestLess, TestLessEqual, TestLessPartly, TestLessEqualPartly, ...).
 */
#include "vc_prelude.h"

#include <math.h>
#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_err.h"
#include "vc_quantity.h"
#include "vc_resource.h"

#define ZERO VC_RESOURCE_ZERO
#define INF  VC_RESOURCE_INFINITY

static const char *expand(const char *name)
{
	if (strcmp(name, "s1") == 0)
		return "scalar.test/scalar1";
	if (strcmp(name, "hp") == 0)
		return "hugepages-test";
	if (strcmp(name, "gpu") == 0)
		return "nvidia.com/gpu";
	return name;
}

/*
 * Build a resource from "cpu=4000 mem=2000 s1=1000 hp=2000" (s1, hp and gpu are short for
 * Volcano's test names). "" is the empty resource.
 */
static void res(struct vc_resource *r, const char *spec)
{
	char buf[512], *p = buf;

	vc_resource_init(r);
	snprintf(buf, sizeof(buf), "%s", spec);
	while (*p) {
		char *sp = strchr(p, ' '), *eq;
		double v;

		if (sp)
			*sp = '\0';
		eq = strchr(p, '=');
		assert_non_null(eq);
		*eq = '\0';
		v = strtod(eq + 1, NULL);
		if (strcmp(p, "cpu") == 0)
			r->milli_cpu = v;
		else if (strcmp(p, "mem") == 0)
			r->memory = v;
		else
			assert_int_equal(vc_resource_set_scalar(r, expand(p), v), 0);
		p = sp ? sp + 1 : p + strlen(p);
	}
}

static const char *str(const struct vc_resource *r, char *buf, size_t len)
{
	vc_resource_snprint(buf, len, r);
	return buf;
}

/* r prints as the resource built from spec (exact dimensions and values). */
static void assert_res(const struct vc_resource *r, const char *spec)
{
	struct vc_resource want;
	char a[512], b[512];

	res(&want, spec);
	assert_string_equal(str(r, a, sizeof(a)), str(&want, b, sizeof(b)));
	vc_resource_release(&want);
}

static json_t *load(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, 0, &jerr);

	if (!j)
		print_error("bad test JSON %s: %s\n", text, jerr.text);
	assert_non_null(j);
	return j;
}

static void test_name_rules(void **state)
{
	static const struct {
		const char *name;
		bool extended, scalar, integer, native;
	} table[] = {
		{ "cpu", false, false, false, true },
		{ "memory", false, false, false, true },
		{ "pods", false, false, true, true },
		{ "ephemeral-storage", false, false, false, true },
		{ "services.nodeports", false, false, true, true },
		{ "services.loadbalancers", false, false, true, true },
		{ "configmaps", false, false, true, true },
		{ "secrets", false, false, true, true },
		{ "resourcequotas", false, false, true, true },
		{ "replicationcontrollers", false, false, true, true },
		{ "persistentvolumeclaims", false, false, true, true },
		{ "services", false, false, true, true },
		{ "nvidia.com/gpu", true, true, true, false },
		{ "scalar.test/scalar1", true, true, true, false },
		{ "example.com/my_res.v1", true, true, true, false },
		{ "a/b", true, true, true, false },
		{ "hugepages-2Mi", false, true, false, true },
		{ "hugepages-test", false, true, false, true },
		{ "attachable-volumes-aws-ebs", false, true, false, true },
		{ "kubernetes.io/foo", false, true, false, true },
		{ "example.kubernetes.io/foo", false, true, false, true },
		{ "requests.nvidia.com/gpu", false, false, false, false },
		{ "count/pods", true, true, true, false }, /* hence Volcano's count/ check */
		{ "foo", false, false, false, true },
		{ "/gpu", false, false, false, false },
		{ "nvidia.com/", false, false, false, false },
		{ "nvidia.com/gpu/x", false, false, false, false },
		{ "Nvidia.com/gpu", false, false, false, false },
		{ "nvidia.com/-gpu", false, false, false, false },
		{ "nvidia.com/gpu-", false, false, false, false },
		{ "nvidia..com/gpu", false, false, false, false },
		{ "nvidia.com./gpu", false, false, false, false },
		{ "-nvidia.com/gpu", false, false, false, false },
		{ "nvidia.com/g_p.u-1", true, true, true, false },
		{ "nvidia.com/0123456789012345678901234567890123456789012345678901234567890123",
		  false, false, false, false },
		{ "nvidia.com/012345678901234567890123456789012345678901234567890123456789012",
		  true, true, true, false },
	};
	char longprefix[300];
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(table); i++) {
		if (vc_resource_is_extended(table[i].name) != table[i].extended)
			print_error("extended('%s')\n", table[i].name);
		assert_int_equal(vc_resource_is_extended(table[i].name), table[i].extended);
		assert_int_equal(vc_resource_is_scalar(table[i].name), table[i].scalar);
		assert_int_equal(vc_resource_is_integer_resource(table[i].name), table[i].integer);
		assert_int_equal(vc_resource_is_native(table[i].name), table[i].native);
	}
	assert_true(vc_resource_is_hugepages("hugepages-1Gi"));
	assert_false(vc_resource_is_hugepages("hugepage-1Gi"));
	assert_true(vc_resource_is_prefixed_native("kubernetes.io/x"));
	assert_false(vc_resource_is_extended(NULL));
	assert_false(vc_resource_is_scalar(NULL));
	assert_false(vc_resource_is_integer_resource(NULL));
	assert_false(vc_resource_is_native(NULL));
	/* "requests." + prefix may be at most 253 bytes. */
	memset(longprefix, 'a', sizeof(longprefix));
	memcpy(longprefix + 244, "/gpu", 5);
	assert_true(vc_resource_is_extended(longprefix)); /* 9 + 244 = 253 */
	memset(longprefix, 'a', sizeof(longprefix));
	memcpy(longprefix + 245, "/gpu", 5);
	assert_false(vc_resource_is_extended(longprefix));
	memset(longprefix, 'a', sizeof(longprefix));
	memcpy(longprefix + 290, "/gpu", 5);
	assert_false(vc_resource_is_extended(longprefix));
}

static void test_from_list(void **state)
{
	struct vc_resource r = VC_RESOURCE_INIT;
	struct vc_error err;
	json_t *list;
	char buf[512];

	(void)state;
	/* The task's example. */
	list = load("{\"cpu\":\"2\",\"memory\":\"4Gi\",\"nvidia.com/gpu\":\"1\"}");
	assert_int_equal(vc_resource_from_list(&r, list, &err), 0);
	json_decref(list);
	assert_true(r.milli_cpu == 2000);
	assert_true(r.memory == 4294967296.0);
	assert_int_equal(r.nscalars, 1);
	assert_string_equal(r.scalars[0].name, "nvidia.com/gpu");
	assert_true(r.scalars[0].value == 1000);
	assert_string_equal(str(&r, buf, sizeof(buf)),
			    "cpu 2000.00, memory 4294967296.00, nvidia.com/gpu 1000.00");

	/* TestNewResource, plus every dispatch rule. */
	list = load("{\"cpu\":\"4m\",\"memory\":\"2000\",\"scalar.test/scalar1\":\"1\","
		    "\"hugepages-test\":\"2\",\"ephemeral-storage\":\"3\",\"pods\":\"110\","
		    "\"count/pods\":\"5\",\"foo\":\"7\",\"requests.nvidia.com/gpu\":\"1\","
		    "\"attachable-volumes-aws-ebs\":\"39\",\"example.kubernetes.io/x\":\"250m\"}");
	assert_int_equal(vc_resource_from_list(&r, list, &err), 0);
	json_decref(list);
	assert_string_equal(str(&r, buf, sizeof(buf)),
			    "cpu 4.00, memory 2000.00, attachable-volumes-aws-ebs 39000.00, "
			    "ephemeral-storage 3000.00, example.kubernetes.io/x 250.00, "
			    "hugepages-test 2000.00, pods 110.00, scalar.test/scalar1 1000.00");
	assert_int_equal(r.max_task_num, 110);

	/* Rounding: cpu is MilliValue, memory Value, both away from zero. */
	list = load("{\"cpu\":\"0.0001\",\"memory\":\"1.5\",\"pods\":\"1.5\",\"nvidia.com/gpu\":"
		    "\"0.5\"}");
	assert_int_equal(vc_resource_from_list(&r, list, &err), 0);
	json_decref(list);
	assert_string_equal(str(&r, buf, sizeof(buf)),
			    "cpu 1.00, memory 2.00, nvidia.com/gpu 500.00, pods 2.00");
	assert_int_equal(r.max_task_num, 2);

	/* Numbers and null as Kubernetes accepts them in JSON. */
	list = load("{\"cpu\":1.5,\"memory\":1024,\"nvidia.com/gpu\":null}");
	assert_int_equal(vc_resource_from_list(&r, list, &err), 0);
	json_decref(list);
	assert_string_equal(str(&r, buf, sizeof(buf)),
			    "cpu 1500.00, memory 1024.00, nvidia.com/gpu 0.00");

	/* add_list sums, including the pods count. */
	list = load("{\"cpu\":\"500m\",\"pods\":\"1\",\"nvidia.com/gpu\":\"2\"}");
	assert_int_equal(vc_resource_add_list(&r, list, &err), 0);
	assert_int_equal(vc_resource_add_list(&r, list, &err), 0);
	json_decref(list);
	assert_string_equal(str(&r, buf, sizeof(buf)),
			    "cpu 2500.00, memory 1024.00, nvidia.com/gpu 4000.00, pods 2.00");
	assert_int_equal(r.max_task_num, 2);

	/* An empty list gives an empty resource. */
	list = load("{}");
	assert_int_equal(vc_resource_from_list(&r, list, &err), 0);
	json_decref(list);
	assert_res(&r, "");
	assert_int_equal(r.max_task_num, 0);
	vc_resource_release(&r);
}

static void test_from_list_errors(void **state)
{
	static const struct {
		const char *json;
		int code;
		const char *text;
	} table[] = {
		{ "{\"cpu\":\"abc\"}", VC_EPARSE, "resource 'cpu': " VC_QUANTITY_ERR_FORMAT },
		{ "{\"memory\":\"1Mii\"}", VC_EPARSE,
		  "resource 'memory': unable to parse quantity's suffix" },
		{ "{\"count/pods\":\"x\"}", VC_EPARSE,
		  "resource 'count/pods': " VC_QUANTITY_ERR_FORMAT },
		{ "{\"cpu\":\"1e30\"}", VC_ERANGE,
		  "resource 'cpu': quantity '1e30' is out of range: its magnitude must be below "
		  "1e29" },
		{ "{\"cpu\":{}}", VC_EINVAL,
		  "resource 'cpu': a quantity must be a string or a number" },
		{ "{\"cpu\":true}", VC_EINVAL,
		  "resource 'cpu': a quantity must be a string or a number" },
		{ "[]", VC_EINVAL, "a resource list must be a JSON object" },
		{ "\"cpu\"", VC_EINVAL, "a resource list must be a JSON object" },
	};
	struct vc_resource r = VC_RESOURCE_INIT;
	struct vc_error err;
	char before[512], after[512];
	json_t *list;
	size_t i;

	(void)state;
	res(&r, "cpu=1 mem=2 gpu=3");
	str(&r, before, sizeof(before));
	for (i = 0; i < VC_ARRAY_SIZE(table); i++) {
		json_error_t jerr;

		list = json_loads(table[i].json, JSON_DECODE_ANY, &jerr);
		assert_non_null(list);
		vc_error_clear(&err);
		assert_int_equal(vc_resource_from_list(&r, list, &err), table[i].code);
		assert_string_equal(err.text, table[i].text);
		assert_int_equal(vc_resource_add_list(&r, list, &err), table[i].code);
		assert_string_equal(err.text, table[i].text);
		/* r is untouched on failure. */
		assert_string_equal(str(&r, after, sizeof(after)), before);
		json_decref(list);
	}
	vc_resource_release(&r);
}

static void test_add_sub(void **state)
{
	static const char *const add[][3] = {
		{ "", "cpu=4000 mem=2000 s1=1 hp=2", "cpu=4000 mem=2000 s1=1 hp=2" },
		{ "cpu=4000 mem=4000 s1=1 hp=2", "cpu=4000 mem=2000 s1=4 hp=5",
		  "cpu=8000 mem=6000 s1=5 hp=7" },
		{ "cpu=4000 mem=4000 s1=1", "cpu=4000 mem=2000 s1=4 hp=5",
		  "cpu=8000 mem=6000 s1=5 hp=5" },
	};
	static const char *const sub[][3] = {
		{ "cpu=4000 mem=2000 s1=1 hp=2", "", "cpu=4000 mem=2000 s1=1 hp=2" },
		{ "cpu=4000 mem=4000 s1=1000 hp=2000", "cpu=3000 mem=2000 s1=500 hp=1000",
		  "cpu=1000 mem=2000 s1=500 hp=1000" },
		/* unchecked: values go negative and new names appear */
		{ "cpu=1000 mem=1000 hp=1", "cpu=2000 mem=500 gpu=1000",
		  "cpu=-1000 mem=500 gpu=-1000 hp=1" },
		/* no scalars in r (Go: nil map): rr's scalars are not subtracted */
		{ "cpu=1000 mem=1000", "cpu=500 gpu=1000", "cpu=500 mem=1000" },
	};
	struct vc_resource a, b;
	struct vc_error err;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(add); i++) {
		res(&a, add[i][0]);
		res(&b, add[i][1]);
		assert_int_equal(vc_resource_add(&a, &b), 0);
		assert_res(&a, add[i][2]);
		vc_resource_release(&a);
		vc_resource_release(&b);
	}
	for (i = 0; i < VC_ARRAY_SIZE(sub); i++) {
		res(&a, sub[i][0]);
		res(&b, sub[i][1]);
		assert_int_equal(vc_resource_sub(&a, &b), 0);
		assert_res(&a, sub[i][2]);
		vc_resource_release(&a);
		vc_resource_release(&b);
	}
	/* The checked variant refuses, with Volcano's message, and leaves r alone. */
	res(&a, "cpu=1000 mem=1000 gpu=1000");
	res(&b, "cpu=2000 mem=500");
	vc_error_clear(&err);
	assert_int_equal(vc_resource_sub_checked(&a, &b, &err), VC_EINVAL);
	assert_string_equal(err.text,
			    "resource is not sufficient to do operation: <cpu 1000.00, memory "
			    "1000.00, nvidia.com/gpu 1000.00> sub <cpu 2000.00, memory 500.00>");
	assert_res(&a, "cpu=1000 mem=1000 gpu=1000");
	vc_resource_release(&b);
	/* Within the 0.1 tolerance is sufficient. */
	res(&b, "cpu=1000.05 mem=1000 gpu=1000.09");
	assert_int_equal(vc_resource_sub_checked(&a, &b, &err), 0);
	assert_true(fabs(a.milli_cpu + 0.05) < 1e-9);
	vc_resource_release(&b);
	res(&b, "s1=1");
	assert_int_equal(vc_resource_sub_checked(&a, &b, &err), VC_EINVAL);
	vc_resource_release(&a);
	vc_resource_release(&b);
}

static void test_scalar_ops(void **state)
{
	struct vc_resource a, b;

	(void)state;
	/* TestResourceAddScalar */
	res(&a, "");
	assert_int_equal(vc_resource_add_scalar(&a, "scalar1", 100), 0);
	assert_res(&a, "scalar1=100");
	vc_resource_release(&a);
	res(&a, "cpu=4000 mem=8000 hp=2");
	assert_int_equal(vc_resource_add_scalar(&a, "scalar2", 200), 0);
	assert_int_equal(vc_resource_add_scalar(&a, "scalar2", 1), 0);
	assert_res(&a, "cpu=4000 mem=8000 hp=2 scalar2=201");
	assert_true(vc_resource_get(&a, "scalar2") == 201);
	assert_true(vc_resource_get(&a, "cpu") == 4000);
	assert_true(vc_resource_get(&a, "memory") == 8000);
	assert_true(vc_resource_get(&a, "missing") == 0);
	assert_true(vc_resource_has_scalar(&a, "scalar2"));
	assert_false(vc_resource_has_scalar(&a, "missing"));
	assert_int_equal(vc_resource_set_scalar(&a, "scalar2", 0), 0);
	assert_true(vc_resource_has_scalar(&a, "scalar2"));
	/* Insertion keeps name order. */
	assert_int_equal(vc_resource_set_scalar(&a, "a", 1), 0);
	assert_int_equal(vc_resource_set_scalar(&a, "z", 1), 0);
	assert_int_equal(vc_resource_set_scalar(&a, "m", 1), 0);
	assert_string_equal(a.scalars[0].name, "a");
	assert_string_equal(a.scalars[1].name, "hugepages-test");
	assert_string_equal(a.scalars[2].name, "m");
	assert_string_equal(a.scalars[3].name, "scalar2");
	assert_string_equal(a.scalars[4].name, "z");
	/* copy is deep */
	vc_resource_init(&b);
	assert_int_equal(vc_resource_copy(&b, &a), 0);
	assert_int_equal(vc_resource_set_scalar(&a, "z", 9), 0);
	assert_true(vc_resource_get(&b, "z") == 1);
	assert_true(a.scalars[4].name != b.scalars[4].name);
	/* multi */
	vc_resource_multi(&b, 2.5);
	assert_res(&b, "cpu=10000 mem=20000 a=2.5 hp=5 m=2.5 scalar2=0 z=2.5");
	/* clear */
	vc_resource_clear(&b);
	assert_res(&b, "");
	assert_int_equal(b.nscalars, 0);
	vc_resource_release(&a);
	vc_resource_release(&b);
	vc_resource_release(NULL);
	vc_resource_free(NULL);
	{
		struct vc_resource *h = vc_resource_new();

		assert_non_null(h);
		assert_int_equal(vc_resource_set_scalar(h, "x", 1), 0);
		vc_resource_free(h);
	}
}

static void test_max_min_fit(void **state)
{
	static const char *const max[][3] = {
		{ "", "cpu=4000 mem=2000 s1=1 hp=2", "cpu=4000 mem=2000 s1=1 hp=2" },
		{ "cpu=4000 mem=4000 s1=1 hp=2", "cpu=4000 mem=2000 s1=4 hp=5",
		  "cpu=4000 mem=4000 s1=4 hp=5" },
		{ "cpu=1 s1=5", "cpu=2 s1=1 hp=-3", "cpu=2 s1=5 hp=-3" },
	};
	static const struct {
		const char *r, *rr;
		enum vc_resource_default dflt;
		const char *want;
	} min[] = {
		{ "cpu=2000 mem=4047845376 hugepages-2Mi=0 hugepages-1Gi=0", "cpu=3000 mem=1000",
		  ZERO, "cpu=2000 mem=1000 hugepages-2Mi=0 hugepages-1Gi=0" },
		{ "cpu=2000 mem=10 s1=5 hp=7", "cpu=3000 mem=1 hp=3", ZERO,
		  "cpu=2000 mem=1 s1=0 hp=3" },
		{ "cpu=2000 mem=10 s1=5 hp=7", "cpu=3000 mem=1 hp=3", INF,
		  "cpu=2000 mem=1 s1=5 hp=3" },
		{ "cpu=2000 s1=5", "", INF, "cpu=0 s1=5" },
		{ "cpu=2000 s1=5", "", ZERO, "cpu=0 s1=0" },
		{ "cpu=1", "s1=5", ZERO, "cpu=0" },
	};
	static const char *const fit[][3] = {
		{ "cpu=4000 mem=4000 s1=1000", "cpu=1000 mem=0 s1=1000 hp=0",
		  "cpu=2999.9 mem=4000 s1=-0.1" },
		{ "cpu=4000", "gpu=2000 hp=0", "cpu=4000 gpu=-2000.1" },
		{ "", "", "" },
	};
	struct vc_resource a, b;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(max); i++) {
		res(&a, max[i][0]);
		res(&b, max[i][1]);
		assert_int_equal(vc_resource_set_max(&a, &b), 0);
		assert_res(&a, max[i][2]);
		vc_resource_release(&a);
		vc_resource_release(&b);
	}
	for (i = 0; i < VC_ARRAY_SIZE(min); i++) {
		res(&a, min[i].r);
		res(&b, min[i].rr);
		vc_resource_min_dimension(&a, &b, min[i].dflt);
		assert_res(&a, min[i].want);
		vc_resource_release(&a);
		vc_resource_release(&b);
	}
	for (i = 0; i < VC_ARRAY_SIZE(fit); i++) {
		res(&a, fit[i][0]);
		res(&b, fit[i][1]);
		assert_int_equal(vc_resource_fit_delta(&a, &b), 0);
		assert_res(&a, fit[i][2]);
		vc_resource_release(&a);
		vc_resource_release(&b);
	}
	/* Go's math.Min on the odd values. */
	res(&a, "s1=nan hp=1 x=-0 y=5");
	res(&b, "s1=1 hp=nan x=0 y=-inf");
	vc_resource_min_dimension(&a, &b, ZERO);
	assert_true(isnan(vc_resource_get(&a, "scalar.test/scalar1")));
	assert_true(isnan(vc_resource_get(&a, "hugepages-test")));
	assert_true(signbit(vc_resource_get(&a, "x")));
	assert_true(isinf(vc_resource_get(&a, "y")));
	vc_resource_release(&a);
	vc_resource_release(&b);
}

struct cmp_case {
	const char *r, *rr;
	bool want;
};

static void run_cmp(const struct cmp_case *t, size_t n, enum vc_resource_default dflt,
		    bool (*fn)(const struct vc_resource *, const struct vc_resource *,
			       enum vc_resource_default),
		    const char *what)
{
	struct vc_resource a, b;
	size_t i;

	for (i = 0; i < n; i++) {
		res(&a, t[i].r);
		res(&b, t[i].rr);
		if (fn(&a, &b, dflt) != t[i].want)
			print_error("%s case %zu: <%s> vs <%s>\n", what, i, t[i].r, t[i].rr);
		assert_int_equal(fn(&a, &b, dflt), t[i].want);
		vc_resource_release(&a);
		vc_resource_release(&b);
	}
}

#define FULL_A "cpu=4000 mem=4000 s1=1000 hp=2000"
#define FULL_B "cpu=8000 mem=8000 s1=4000 hp=5000"

static void test_less(void **state)
{
	static const struct cmp_case zero[] = {
		{ "", "", false },
		{ "", "cpu=4000 mem=2000 s1=1000 hp=2000", true },
		{ FULL_A, FULL_B, true },
		{ "cpu=4000 mem=4000 s1=5000 hp=2000", FULL_B, false },
		{ "cpu=9000 mem=4000 s1=1000 hp=2000", FULL_B, false },
		{ "cpu=1 mem=1 s1=1", "cpu=2 mem=2", false },
		{ "cpu=1 mem=1 s1=-1", "cpu=2 mem=2", true },
	};
	static const struct cmp_case inf[] = {
		{ "cpu=1000 mem=1000 s1=1000 hp=2000", "cpu=2000 mem=2000 hp=3000", true },
		{ "cpu=1000 mem=1000 hp=1000", "cpu=2000 mem=2000 s1=1000 hp=2000", false },
		{ "cpu=1000 mem=1000 hp=2000", "cpu=2000 mem=2000 s1=1000 hp=2000", false },
	};

	(void)state;
	run_cmp(zero, VC_ARRAY_SIZE(zero), ZERO, vc_resource_less, "less/zero");
	run_cmp(inf, VC_ARRAY_SIZE(inf), INF, vc_resource_less, "less/inf");
}

static void test_less_equal(void **state)
{
	static const struct cmp_case zero[] = {
		{ "", "", true },
		{ "", "cpu=4000 mem=2000 s1=1000 hp=2000", true },
		{ "cpu=4000 mem=2000 s1=1000 hp=2000", "", false },
		{ FULL_A, FULL_B, true },
		{ "cpu=4000 mem=8000 s1=1000 hp=2000", FULL_B, true },
		{ "cpu=4000 mem=4000 s1=4000 hp=2000", FULL_B, true },
		{ "cpu=4000 mem=4000 s1=5000 hp=2000", FULL_B, false },
		{ "cpu=9000 mem=4000 s1=1000 hp=2000", FULL_B, false },
		/* the 0.1 tolerance */
		{ "cpu=1000.09", "cpu=1000", true },
		{ "cpu=1000.1", "cpu=1000", false },
		{ "s1=0.09", "", true },
	};
	static const struct cmp_case inf[] = {
		{ "", "", true },
		{ "", "cpu=4000 mem=2000 s1=1000 hp=2000", false },
		{ "cpu=4000 mem=2000 s1=1000 hp=2000", "", false },
		{ "cpu=4000 mem=2000", "cpu=4000 mem=2000 s1=1000 hp=2000", false },
		{ "cpu=4000 mem=2000 s1=1000 hp=2000", "cpu=4000 mem=2000", true },
	};

	(void)state;
	run_cmp(zero, VC_ARRAY_SIZE(zero), ZERO, vc_resource_less_equal, "less_equal/zero");
	run_cmp(inf, VC_ARRAY_SIZE(inf), INF, vc_resource_less_equal, "less_equal/inf");
}

static void test_less_partly(void **state)
{
	static const struct cmp_case zero[] = {
		{ "", "", false },
		{ "", "cpu=2000 mem=2000 s1=1000 hp=2000", true },
		{ "cpu=2000 mem=2000 s1=1000 hp=2000", "", false },
		{ "cpu=2000 mem=2000 s1=1000 hp=2000", "cpu=4000 mem=2000 s1=1000 hp=2000", true },
		{ "cpu=2000 mem=2000 s1=1000 hp=2000", "cpu=2000 mem=4000 s1=1000 hp=2000", true },
		{ "cpu=2000 mem=2000 s1=1000 hp=2000", "cpu=2000 mem=2000 s1=2000 hp=2000", true },
		{ "cpu=2000 mem=2000 hp=2000", "cpu=2000 mem=2000 s1=1000 hp=2000", true },
		{ "cpu=4000 mem=4000 s1=1000 hp=2000", "cpu=2000 mem=2000 s1=1000 hp=2000", false },
		{ "cpu=2000 mem=2000 s1=1000 hp=2000", "cpu=2000 mem=2000 hp=2000", false },
		/* webhooks 9.2: a key only in B counts whatever its value, even 0 */
		{ "cpu=2 mem=2", "cpu=1 mem=1 s1=0", true },
		{ "cpu=2 mem=2 s1=-1", "cpu=1 mem=1", true },
	};
	static const struct cmp_case inf[] = {
		{ "cpu=2000 mem=2000 hp=2000", "cpu=2000 mem=2000 s1=1000 hp=2000", false },
		{ "cpu=2000 mem=2000 s1=1000 hp=2000", "cpu=2000 mem=2000 hp=2000", true },
	};

	(void)state;
	run_cmp(zero, VC_ARRAY_SIZE(zero), ZERO, vc_resource_less_partly, "less_partly/zero");
	run_cmp(inf, VC_ARRAY_SIZE(inf), INF, vc_resource_less_partly, "less_partly/inf");
}

static void test_less_equal_partly_and_equal(void **state)
{
	static const struct cmp_case lep_zero[] = {
		{ "", "", true },
		{ "", "cpu=2000 mem=2000 s1=1000 hp=2000", true },
		{ "cpu=2000 mem=2000 s1=1000 hp=2000", "", false },
		{ "cpu=2000 mem=2000 s1=1000 hp=2000", "cpu=4000 mem=2000 s1=1000 hp=2000", true },
		{ "cpu=2000 mem=2000 hp=2000", "cpu=2000 mem=2000 s1=1000 hp=2000", true },
		{ "cpu=4000 mem=4000 s1=1000 hp=2000", "cpu=2000 mem=2000 s1=1000 hp=2000", true },
		{ "cpu=4000 mem=4000 s1=2000 hp=3000", "cpu=2000 mem=2000 s1=1000 hp=2000", false },
	};
	static const struct cmp_case lep_inf[] = {
		{ "cpu=4000 mem=4000 s1=2000", "cpu=2000 mem=2000", true },
		{ "cpu=4000 mem=4000", "cpu=2000 mem=2000 s1=1000", false },
	};
	static const struct cmp_case eq[] = {
		{ "", "", true },
		{ "cpu=1 mem=2 s1=3", "cpu=1 mem=2 s1=3", true },
		{ "cpu=1 mem=2 s1=3", "cpu=1.05 mem=2 s1=3.09", true },
		{ "cpu=1 mem=2 s1=3", "cpu=1 mem=2 s1=3.1", false },
		{ "cpu=1 mem=2 s1=0", "cpu=1 mem=2", true },
		/* as in Volcano, names only on the right are not compared */
		{ "cpu=1 mem=2", "cpu=1 mem=2 s1=5", true },
		{ "cpu=1 mem=2 s1=5", "cpu=1 mem=2", false },
		{ "cpu=inf", "cpu=inf", true },
	};

	(void)state;
	run_cmp(lep_zero, VC_ARRAY_SIZE(lep_zero), ZERO, vc_resource_less_equal_partly, "lep/zero");
	run_cmp(lep_inf, VC_ARRAY_SIZE(lep_inf), INF, vc_resource_less_equal_partly, "lep/inf");
	run_cmp(eq, VC_ARRAY_SIZE(eq), ZERO, vc_resource_equal, "equal/zero");
	run_cmp(eq, VC_ARRAY_SIZE(eq), INF, vc_resource_equal, "equal/inf");
}

static void test_empty_zero_names(void **state)
{
	struct vc_resource r;
	const char *names[8];

	(void)state;
	res(&r, "");
	assert_true(vc_resource_is_empty(&r));
	assert_true(vc_resource_is_zero(&r, "cpu"));
	assert_true(vc_resource_is_zero(&r, "nvidia.com/gpu"));
	assert_int_equal(vc_resource_names(&r, names, 8), 0);
	vc_resource_release(&r);

	/* pods does not make a request non-empty (Volcano's ignoredScalarResources). */
	res(&r, "cpu=0.09 mem=0.09 pods=1 s1=0.05");
	assert_true(vc_resource_is_empty(&r));
	assert_true(vc_resource_is_zero(&r, "memory"));
	assert_false(vc_resource_is_zero(&r, "pods"));
	assert_true(vc_resource_is_zero(&r, "scalar.test/scalar1"));
	assert_int_equal(vc_resource_names(&r, names, 8), 1);
	assert_string_equal(names[0], "pods");
	vc_resource_release(&r);

	res(&r, "cpu=0.1 mem=0 s1=0.1");
	assert_false(vc_resource_is_empty(&r));
	vc_resource_release(&r);
	res(&r, "cpu=0 mem=0 s1=0.1");
	assert_false(vc_resource_is_empty(&r));
	vc_resource_release(&r);

	/* TestIsZero */
	res(&r, "cpu=4000 mem=4000 s1=0 hp=5");
	assert_false(vc_resource_is_zero(&r, "cpu"));
	assert_true(vc_resource_is_zero(&r, "scalar.test/scalar1"));
	assert_false(vc_resource_is_zero(&r, "hugepages-test"));
	assert_false(vc_resource_is_empty(&r));
	/* ResourceNames: cpu, memory, then scalars >= 0.1 in name order; count beyond cap. */
	assert_int_equal(vc_resource_names(&r, names, 8), 3);
	assert_string_equal(names[0], "cpu");
	assert_string_equal(names[1], "memory");
	assert_string_equal(names[2], "hugepages-test");
	names[1] = NULL;
	assert_int_equal(vc_resource_names(&r, names, 1), 3);
	assert_null(names[1]);
	assert_int_equal(vc_resource_names(&r, NULL, 0), 3);
	vc_resource_release(&r);
}

static void test_format(void **state)
{
	struct vc_resource r;
	struct vc_buf b;
	char small[12];

	(void)state;
	/* The webhook spec's example (8.2). */
	res(&r, "cpu=9000 mem=19327352832");
	vc_buf_init(&b, 0);
	assert_int_equal(vc_resource_format(&r, &b), 0);
	assert_string_equal(vc_buf_str(&b), "cpu 9000.00, memory 19327352832.00");
	vc_resource_release(&r);

	res(&r, "cpu=0.125 mem=-0.001 gpu=4000 hp=1e20 pods=1");
	vc_buf_reset(&b);
	assert_int_equal(vc_resource_format(&r, &b), 0);
	assert_string_equal(vc_buf_str(&b),
			    "cpu 0.12, memory -0.00, hugepages-test 100000000000000000000.00, "
			    "nvidia.com/gpu 4000.00, pods 1.00");
	vc_resource_release(&r);

	/* Go prints non-finite floats as +Inf, -Inf and NaN. */
	res(&r, "cpu=inf mem=-inf s1=nan");
	vc_buf_reset(&b);
	assert_int_equal(vc_resource_format(&r, &b), 0);
	assert_string_equal(vc_buf_str(&b), "cpu +Inf, memory -Inf, scalar.test/scalar1 NaN");

	/* snprint truncates and tells the full length. */
	assert_int_equal(vc_resource_snprint(small, sizeof(small), &r), 46);
	assert_string_equal(small, "cpu +Inf, m");
	assert_int_equal(vc_resource_snprint(NULL, 0, &r), 46);
	vc_buf_release(&b);

	/* A capped buffer refuses and stays as it was. */
	vc_buf_init(&b, 16);
	assert_int_equal(vc_buf_adds(&b, "x"), 0);
	assert_int_equal(vc_resource_format(&r, &b), VC_E2BIG);
	assert_string_equal(vc_buf_str(&b), "x");
	vc_buf_release(&b);
	vc_resource_release(&r);
}

static void test_list_canonical_and_back(void **state)
{
	struct vc_resource r, back;
	struct vc_error err;
	json_t *list, *out;
	char *dump;

	(void)state;
	list = load("{\"cpu\":\"1.5\",\"memory\":\"1024Mi\",\"nvidia.com/gpu\":\"+1\","
		    "\"ephemeral-storage\":\"0.5Ki\",\"pods\":110,\"x\":\"1.5Gi\"}");
	assert_int_equal(vc_resource_list_canonical(list, &out, &err), 0);
	dump = json_dumps(out, JSON_SORT_KEYS | JSON_COMPACT);
	assert_string_equal(dump, "{\"cpu\":\"1500m\",\"ephemeral-storage\":\"512\",\"memory\":"
				  "\"1Gi\",\"nvidia.com/gpu\":\"+1\",\"pods\":\"110\",\"x\":"
				  "\"1536Mi\"}");
	free(dump);
	json_decref(out);
	json_decref(list);

	list = load("{\"cpu\":\"1.5.5\"}");
	out = (json_t *)&err; /* must be reset to NULL */
	assert_int_equal(vc_resource_list_canonical(list, &out, &err), VC_EPARSE);
	assert_null(out);
	assert_string_equal(err.text, "resource 'cpu': " VC_QUANTITY_ERR_FORMAT);
	json_decref(list);
	list = json_array();
	assert_int_equal(vc_resource_list_canonical(list, &out, &err), VC_EINVAL);
	json_decref(list);

	/* A resource back to a ResourceList, and round trip. */
	res(&r, "cpu=2500 mem=4294967296 gpu=4000 pods=110 ephemeral-storage=512000 hp=1.9");
	assert_int_equal(vc_resource_to_list(&r, &out), 0);
	dump = json_dumps(out, JSON_SORT_KEYS | JSON_COMPACT);
	assert_string_equal(dump, "{\"cpu\":\"2500m\",\"ephemeral-storage\":\"512\","
				  "\"hugepages-test\":\"1m\",\"memory\":\"4Gi\","
				  "\"nvidia.com/gpu\":\"4\",\"pods\":\"110\"}");
	free(dump);
	vc_resource_init(&back);
	assert_int_equal(vc_resource_from_list(&back, out, &err), 0);
	json_decref(out);
	assert_res(&back,
		   "cpu=2500 mem=4294967296 gpu=4000 pods=110 ephemeral-storage=512000 hp=1");
	vc_resource_release(&back);
	vc_resource_release(&r);

	/* Values that do not fit an int64 saturate; NaN is 0. */
	res(&r, "cpu=1e300 mem=-1e300 s1=nan");
	assert_int_equal(vc_resource_to_list(&r, &out), 0);
	dump = json_dumps(out, JSON_SORT_KEYS | JSON_COMPACT);
	assert_string_equal(dump, "{\"cpu\":\"9223372036854775807m\",\"memory\":"
				  "\"-8Ei\",\"scalar.test/scalar1\":\"0\"}");
	free(dump);
	json_decref(out);
	vc_resource_release(&r);
}

/* Snapshot of r as text, to prove a failed call left it unchanged. */
static void snap(const struct vc_resource *r, char *buf)
{
	vc_resource_snprint(buf, 512, r);
}

/*
 * Every allocating operation, with allocation n failing for n = 0, 1, ...: each attempt either
 * succeeds or returns VC_ENOMEM with the target unchanged, and nothing leaks (ASan).
 */
static void test_alloc_failure(void **state)
{
	const char *list_text = "{\"cpu\":\"2\",\"memory\":\"4Gi\",\"nvidia.com/gpu\":\"1\","
				"\"pods\":\"3\",\"hugepages-2Mi\":\"1Mi\",\"a.b/c\":\"5\"}";
	char before[512], after[512];
	struct vc_resource r, rr;
	struct vc_error err;
	json_t *list, *out;
	long n;
	int op, rc;

	(void)state;
	vc_alloc_install_json();
	list = load(list_text);
	for (op = 0; op < 10; op++) {
		for (n = 0;; n++) {
			res(&r, "cpu=1 zz=1 b=2");
			res(&rr, "cpu=1 a=1 c=3 d=4 zz=5");
			snap(&r, before);
			out = NULL;
			vc_alloc_fail_after(n);
			switch (op) {
			case 0:
				rc = vc_resource_from_list(&r, list, &err);
				break;
			case 1:
				rc = vc_resource_add_list(&r, list, &err);
				break;
			case 2:
				rc = vc_resource_add(&r, &rr);
				break;
			case 3:
				rc = vc_resource_sub(&r, &rr);
				break;
			case 4:
				rc = vc_resource_set_max(&r, &rr);
				break;
			case 5:
				rc = vc_resource_fit_delta(&r, &rr);
				break;
			case 6:
				rc = vc_resource_copy(&r, &rr);
				break;
			case 7:
				rc = vc_resource_set_scalar(&r, "new", 1);
				break;
			case 8:
				rc = vc_resource_list_canonical(list, &out, &err);
				break;
			default:
				rc = vc_resource_to_list(&rr, &out);
				break;
			}
			vc_alloc_fail_reset();
			if (rc == 0) {
				json_decref(out);
				vc_resource_release(&r);
				vc_resource_release(&rr);
				break;
			}
			assert_int_equal(rc, VC_ENOMEM);
			assert_null(out);
			snap(&r, after);
			assert_string_equal(after, before);
			vc_resource_release(&r);
			vc_resource_release(&rr);
			assert_true(n < 1000);
		}
		/* Every operation allocates at least once, so the loop did test failures. */
		assert_true(n > 0);
	}
	/* format fails cleanly too */
	res(&r, "cpu=1");
	{
		struct vc_buf b;

		vc_buf_init(&b, 0);
		vc_alloc_fail_after(0);
		assert_int_equal(vc_resource_format(&r, &b), VC_ENOMEM);
		vc_alloc_fail_reset();
		assert_int_equal(b.len, 0);
		vc_buf_release(&b);
	}
	vc_resource_release(&r);
	json_decref(list);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_rules),
		cmocka_unit_test(test_from_list),
		cmocka_unit_test(test_from_list_errors),
		cmocka_unit_test(test_add_sub),
		cmocka_unit_test(test_scalar_ops),
		cmocka_unit_test(test_max_min_fit),
		cmocka_unit_test(test_less),
		cmocka_unit_test(test_less_equal),
		cmocka_unit_test(test_less_partly),
		cmocka_unit_test(test_less_equal_partly_and_equal),
		cmocka_unit_test(test_empty_zero_names),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_list_canonical_and_back),
		cmocka_unit_test(test_alloc_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
