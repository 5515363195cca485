/* Unit tests for vc_flags: pflag syntax, defaults, ranges, errors, klog compatibility. */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_flags.h"
#include "vc_log.h"

struct cfg {
	const char *kubeconfig;
	const char *master;
	int workers;
	double qps;
	bool leader_elect;
	int64_t period;
	int verbosity;
};

static const struct vc_flag table[] = {
	{ "kubeconfig", VC_FLAG_STRING, NULL, 0, 0, offsetof(struct cfg, kubeconfig), "path" },
	{ "master", VC_FLAG_STRING, "", 0, 0, offsetof(struct cfg, master), "server" },
	{ "worker-threads", VC_FLAG_INT, "3", 1, 100, offsetof(struct cfg, workers), "workers" },
	{ "kube-api-qps", VC_FLAG_DOUBLE, "50", 0, 0, offsetof(struct cfg, qps), "qps" },
	{ "leader-elect", VC_FLAG_BOOL, "true", 0, 0, offsetof(struct cfg, leader_elect), "elect" },
	{ "schedule-period", VC_FLAG_DURATION, "1s", 0.001, 3600, offsetof(struct cfg, period),
	  "period" },
	{ "v", VC_FLAG_INT, "0", 0, 10, offsetof(struct cfg, verbosity), "verbosity" },
};

static int parse(struct cfg *c, struct vc_error *err, int *first, int argc, const char **argv)
{
	return vc_flags_parse(table, VC_ARRAY_SIZE(table), c, argc, (char **)argv, first, err);
}

static void test_defaults(void **state)
{
	const char *argv[] = { "prog" };
	struct vc_error err;
	struct cfg c;
	int first;

	(void)state;
	memset(&c, 0xff, sizeof(c));
	assert_int_equal(parse(&c, &err, &first, 1, argv), 0);
	assert_null(c.kubeconfig);
	assert_string_equal(c.master, "");
	assert_int_equal(c.workers, 3);
	assert_true(c.qps == 50.0);
	assert_true(c.leader_elect);
	assert_int_equal(c.period, 1000000000LL);
	assert_int_equal(first, 1);
}

static void test_all_syntaxes(void **state)
{
	const char *argv[] = { "prog",
			       "--kubeconfig=/tmp/kc",
			       "-master",
			       "https://1.2.3.4:6443",
			       "--worker-threads",
			       "7",
			       "--leader-elect=false",
			       "--schedule-period=1m30s",
			       "--logtostderr",
			       "--log_dir",
			       "/x",
			       "-v=3",
			       "rest" };
	struct vc_error err;
	struct cfg c;
	int first;

	(void)state;
	assert_int_equal(parse(&c, &err, &first, (int)VC_ARRAY_SIZE(argv), argv), 0);
	assert_string_equal(c.kubeconfig, "/tmp/kc");
	assert_string_equal(c.master, "https://1.2.3.4:6443");
	assert_int_equal(c.workers, 7);
	assert_false(c.leader_elect);
	assert_int_equal(c.period, 90LL * 1000000000LL);
	assert_int_equal(c.verbosity, 3);
	assert_int_equal(vc_log_threshold, VC_LOG_V(3));
	assert_int_equal(first, 12);
	assert_string_equal(argv[first], "rest");
	vc_log_set_verbosity(0);
}

static void test_double_dash_ends_flags(void **state)
{
	const char *argv[] = { "prog", "--", "--kubeconfig=x" };
	struct cfg c;
	int first;

	(void)state;
	assert_int_equal(parse(&c, NULL, &first, 3, argv), 0);
	assert_int_equal(first, 2);
	assert_null(c.kubeconfig);
}

static void expect_error(int argc, const char **argv, const char *text)
{
	struct vc_error err;
	struct cfg c;

	vc_error_clear(&err);
	assert_int_equal(parse(&c, &err, NULL, argc, argv), VC_EINVAL);
	assert_string_equal(err.text, text);
}

static void test_errors(void **state)
{
	const char *unknown[] = { "prog", "--nope=1" };
	const char *missing[] = { "prog", "--kubeconfig" };
	const char *badint[] = { "prog", "--worker-threads=x" };
	const char *range[] = { "prog", "--worker-threads=0" };
	const char *badbool[] = { "prog", "--leader-elect=maybe" };
	const char *baddur[] = { "prog", "--schedule-period=10" };
	const char *durrange[] = { "prog", "--schedule-period=2h" };

	(void)state;
	expect_error(2, unknown, "unknown flag: --nope");
	expect_error(2, missing, "flag needs an argument: --kubeconfig");
	expect_error(2, badint,
		     "invalid argument \"x\" for \"--worker-threads\" flag: strconv.ParseInt: "
		     "parsing \"x\": invalid syntax");
	expect_error(
		2, range,
		"invalid argument \"0\" for \"--worker-threads\" flag: must be between 1 and 100");
	expect_error(2, badbool,
		     "invalid argument \"maybe\" for \"--leader-elect\" flag: strconv.ParseBool: "
		     "parsing \"maybe\": invalid syntax");
	expect_error(
		2, baddur,
		"invalid argument \"10\" for \"--schedule-period\" flag: time: missing unit in "
		"duration \"10\"");
	expect_error(2, durrange,
		     "invalid argument \"2h\" for \"--schedule-period\" flag: must be between "
		     "0.001s and 3600s");
}

static const struct vc_flag small[] = {
	{ "port", VC_FLAG_INT, "8443", 1, 65535, offsetof(struct cfg, workers), "port" },
};

static void test_klog_flags_always_accepted(void **state)
{
	const char *argv[] = {
		"prog", "--logtostderr", "-v=4", "--alsologtostderr=true", "--stderrthreshold",
		"INFO", "--port=9443"
	};
	const char *bad[] = { "prog", "-v=x" };
	struct vc_error err;
	struct cfg c;

	(void)state;
	assert_int_equal(vc_flags_parse(small, 1, &c, 7, (char **)argv, NULL, &err), 0);
	assert_int_equal(c.workers, 9443);
	assert_int_equal(vc_log_threshold, VC_LOG_V(4));
	vc_error_clear(&err);
	assert_int_equal(vc_flags_parse(small, 1, &c, 2, (char **)bad, NULL, &err), VC_EINVAL);
	assert_string_equal(err.text, "invalid argument \"x\" for \"--v\" flag: must be an integer "
				      "between 0 and 10");
	vc_log_set_verbosity(0);
}

/* The log lines of a test, joined by "\n". */
static char logged[2048];

static void capture(void *ctx, int level, const char *line)
{
	size_t n = strlen(logged);

	(void)ctx;
	(void)level;
	snprintf(logged + n, sizeof(logged) - n, "%s\n", line);
}

static const struct vc_flag noeffect_table[] = {
	{ "port", VC_FLAG_INT, "8443", 1, 65535, offsetof(struct cfg, workers), "port" },
	{ "sharding-configmap", VC_FLAG_NOEFFECT, NULL, 0, 0, 0, "no effect" },
	{ "csi-storage", VC_FLAG_NOEFFECT_BOOL, NULL, 0, 0, 0, "no effect" },
};

/* Volcano's flags Caldera does not implement: accepted, one warning each, values still checked. */
static void test_noeffect_flags(void **state)
{
	const char *argv[] = { "prog",		"--sharding-configmap=a", "--csi-storage",
			       "--port=9443",	"--sharding-configmap",	  "b",
			       "--vmodule=x=2", "--skip_headers=false" };
	const char *bad[] = { "prog", "--csi-storage=maybe" };
	const char *missing[] = { "prog", "--sharding-configmap" };
	struct vc_error err;
	struct cfg c;

	(void)state;
	logged[0] = '\0';
	vc_log_set_sink(capture, NULL);
	assert_int_equal(vc_flags_parse(noeffect_table, VC_ARRAY_SIZE(noeffect_table), &c,
					(int)VC_ARRAY_SIZE(argv), (char **)argv, NULL, &err),
			 0);
	vc_log_set_sink(NULL, NULL);
	assert_int_equal(c.workers, 9443);
	/* Once per flag, in the order given; klog's rarer flags too. */
	assert_non_null(strstr(logged,
			       "msg=\"flag --sharding-configmap has no effect in Caldera\"\n"
			       "ts="));
	assert_null(strstr(strstr(logged, "--sharding-configmap") + 1, "--sharding-configmap"));
	assert_non_null(strstr(logged, "msg=\"flag --csi-storage has no effect in Caldera\""));
	assert_non_null(strstr(logged, "msg=\"flag --vmodule has no effect in Caldera\""));
	assert_non_null(strstr(logged, "msg=\"flag --skip_headers has no effect in Caldera\""));
	vc_error_clear(&err);
	assert_int_equal(vc_flags_parse(noeffect_table, VC_ARRAY_SIZE(noeffect_table), &c, 2,
					(char **)bad, NULL, &err),
			 VC_EINVAL);
	assert_string_equal(err.text, "invalid argument \"maybe\" for \"--csi-storage\" flag: "
				      "strconv.ParseBool: parsing \"maybe\": invalid syntax");
	assert_int_equal(vc_flags_parse(noeffect_table, VC_ARRAY_SIZE(noeffect_table), &c, 2,
					(char **)missing, NULL, &err),
			 VC_EINVAL);
	assert_string_equal(err.text, "flag needs an argument: --sharding-configmap");
	/* Unknown flags still fail. */
	assert_int_equal(vc_flags_parse(noeffect_table, VC_ARRAY_SIZE(noeffect_table), &c, 2,
					(char **)(const char *[]){ "prog", "--sharding-config" },
					NULL, &err),
			 VC_EINVAL);
	assert_string_equal(err.text, "unknown flag: --sharding-config");
}

/* Positional arguments (Volcano's Deployments pass "2>&1"): ignored with a warning each. */
static void test_positional(void **state)
{
	const char *argv[] = { "prog", "--port=1", "2>&1", "x" };
	const char *late[] = { "prog", "2>&1", "--port=2" };
	struct vc_error err;
	struct cfg c;
	int first;

	(void)state;
	logged[0] = '\0';
	vc_log_set_sink(capture, NULL);
	assert_int_equal(vc_flags_parse(small, 1, &c, 4, (char **)argv, &first, &err), 0);
	assert_int_equal(first, 2);
	assert_int_equal(vc_flags_positional(4, (char **)argv, first, &err), 2);
	assert_int_equal(vc_flags_positional(4, (char **)argv, 4, &err), 0);
	vc_log_set_sink(NULL, NULL);
	assert_non_null(strstr(logged, "level=warn"));
	assert_non_null(strstr(logged, "msg=\"ignoring an argument\" arg=\"2>&1\"\n"));
	assert_non_null(strstr(logged, "msg=\"ignoring an argument\" arg=\"x\"\n"));
	/* A flag after an argument is refused. */
	assert_int_equal(vc_flags_parse(small, 1, &c, 3, (char **)late, &first, &err), 0);
	assert_int_equal(first, 1);
	vc_error_clear(&err);
	assert_int_equal(vc_flags_positional(3, (char **)late, first, &err), VC_EINVAL);
	assert_string_equal(err.text, "flags must come before arguments: --port=2");
}

struct listcfg {
	struct vc_flag_list nodes;
};

static const struct vc_flag list_table[] = {
	{ "nodes", VC_FLAG_LIST, NULL, 0, 0, offsetof(struct listcfg, nodes), "node groups" },
};

static void test_repeatable_flag(void **state)
{
	const char *argv[] = { "prog", "--nodes", "4:cpu=8,memory=32Gi", "--nodes=2:cpu=1" };
	struct vc_error err;
	struct listcfg c;
	int i;

	(void)state;
	memset(&c, 0xff, sizeof(c));
	assert_int_equal(vc_flags_parse(list_table, 1, &c, 4, (char **)argv, NULL, &err), 0);
	assert_int_equal(c.nodes.n, 2);
	assert_string_equal(c.nodes.items[0], "4:cpu=8,memory=32Gi");
	assert_string_equal(c.nodes.items[1], "2:cpu=1");
	/* More than VC_FLAG_LIST_MAX values is an error, not an overflow. */
	{
		const char *many[2 + 2 * VC_FLAG_LIST_MAX];

		many[0] = "prog";
		for (i = 0; i <= VC_FLAG_LIST_MAX; i++)
			many[1 + i] = "--nodes=1:cpu=1";
		vc_error_clear(&err);
		assert_int_equal(vc_flags_parse(list_table, 1, &c, VC_FLAG_LIST_MAX + 2,
						(char **)many, NULL, &err),
				 VC_EINVAL);
		assert_string_equal(err.text, "invalid argument \"1:cpu=1\" for \"--nodes\" flag: "
					      "more than 32 values");
	}
}

static void test_help_and_usage(void **state)
{
	const char *argv[] = { "prog", "--help" };
	const char *argv2[] = { "prog", "-h" };
	char out[4096] = { 0 };
	struct cfg c;
	FILE *f;

	(void)state;
	assert_int_equal(parse(&c, NULL, NULL, 2, argv), VC_FLAGS_HELP);
	assert_int_equal(parse(&c, NULL, NULL, 2, argv2), VC_FLAGS_HELP);
	f = fmemopen(out, sizeof(out) - 1, "w");
	assert_non_null(f);
	vc_flags_usage(table, VC_ARRAY_SIZE(table), "vc-test", f);
	fclose(f);
	assert_non_null(strstr(out, "Usage: vc-test [flags]"));
	assert_non_null(strstr(out, "--worker-threads int"));
	assert_non_null(strstr(out, "workers (default 3)"));
	assert_non_null(strstr(out, "elect (default true)"));
	assert_non_null(strstr(out, "--schedule-period duration"));
	assert_non_null(strstr(out, "klog flags:"));
	assert_non_null(strstr(out, "--logtostderr"));
}

/* vc_flag_list_split: the form controller and webhook give --scheduler-name and its kin. */
static void test_flag_list_split(void **state)
{
	struct vc_flag_list l = { { "a,b", ",,c,", "", "d" }, 4 };
	char *store[8];
	const char *out[8];
	size_t n, i;

	(void)state;
	assert_int_equal(vc_flag_list_split(&l, store, out, 8, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(out[0], "a");
	assert_string_equal(out[1], "b");
	assert_string_equal(out[2], "c");
	assert_string_equal(out[3], "d");
	for (i = 0; i < n; i++) {
		assert_ptr_equal(out[i], store[i]);
		vc_free(store[i]);
	}
	assert_int_equal(vc_flag_list_split(&l, store, out, 3, &n), VC_E2BIG);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++)
		vc_free(store[i]);
	l.n = 0;
	assert_int_equal(vc_flag_list_split(&l, store, out, 3, &n), 0);
	assert_int_equal(n, 0);
	l.items[0] = "x,y";
	l.n = 1;
	vc_alloc_fail_after(1);
	assert_int_equal(vc_flag_list_split(&l, store, out, 3, &n), VC_ENOMEM);
	vc_alloc_fail_reset();
	assert_int_equal(n, 1);
	vc_free(store[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_syntaxes),
		cmocka_unit_test(test_double_dash_ends_flags),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_klog_flags_always_accepted),
		cmocka_unit_test(test_noeffect_flags),
		cmocka_unit_test(test_positional),
		cmocka_unit_test(test_repeatable_flag),
		cmocka_unit_test(test_help_and_usage),
		cmocka_unit_test(test_flag_list_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
