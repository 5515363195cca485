/* Unit tests for the scheduler configuration file (docs/volcano/scheduler.md §1.3). */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "scheduler/sched_conf.h"
#include "vc_alloc.h"

static int parse(const char *text, struct sched_conf *c, struct vc_error *err)
{
	vc_error_clear(err);
	return sched_conf_parse(text, strlen(text), c, err);
}

static void test_default(void **state)
{
	struct sched_conf c;
	const struct sched_plugin_conf *p;
	size_t f;

	(void)state;
	assert_int_equal(sched_conf_default(&c), 0);
	assert_int_equal(c.nactions, 3);
	assert_string_equal(c.actions[0], "enqueue");
	assert_string_equal(c.actions[1], "allocate");
	assert_string_equal(c.actions[2], "backfill");
	assert_int_equal(c.ntiers, 2);
	assert_int_equal(c.tiers[0].nplugins, 3);
	assert_string_equal(c.tiers[0].plugins[0].name, "priority");
	assert_string_equal(c.tiers[0].plugins[1].name, "gang");
	assert_string_equal(c.tiers[0].plugins[2].name, "conformance");
	assert_int_equal(c.tiers[1].nplugins, 5);
	assert_string_equal(c.tiers[1].plugins[0].name, "overcommit");
	assert_string_equal(c.tiers[1].plugins[4].name, "nodeorder");
	p = sched_conf_plugin(&c, "proportion");
	assert_non_null(p);
	for (f = 0; f < SCHED_PLUGIN_FLAG_COUNT; f++)
		assert_true(p->enabled[f]);
	assert_int_equal(json_object_size(p->arguments), 0);
	assert_null(sched_conf_plugin(&c, "binpack"));
	assert_true(sched_conf_has_action(&c, "backfill"));
	assert_false(sched_conf_has_action(&c, "preempt"));
	sched_conf_release(&c);
}

static const char helm_conf[] = "actions: \"enqueue, allocate, backfill\"\n"
				"tiers:\n"
				"- plugins:\n"
				"  - name: priority\n"
				"  - name: gang\n"
				"    enablePreemptable: false\n"
				"  - name: conformance\n"
				"- plugins:\n"
				"  - name: overcommit\n"
				"  - name: drf\n"
				"    enablePreemptable: false\n"
				"  - name: predicates\n"
				"  - name: proportion\n"
				"  - name: nodeorder\n"
				"  - name: binpack\n"
				"    arguments:\n"
				"      binpack.weight: 10\n"
				"      binpack.cpu: \"2\"\n"
				"      binpack.resources: nvidia.com/gpu\n"
				"      binpack.resources.nvidia.com/gpu: 5.0\n"
				"      overcommit-factor: 1.5\n"
				"      flag: \"true\"\n"
				"configurations:\n"
				"- name: allocate\n"
				"  arguments:\n"
				"    predicateErrorCacheEnable: false\n";

static void test_helm(void **state)
{
	struct sched_conf c;
	struct vc_error err;
	const struct sched_plugin_conf *gang, *bp;

	(void)state;
	assert_int_equal(parse(helm_conf, &c, &err), 0);
	assert_int_equal(c.ntiers, 2);
	assert_int_equal(c.tiers[1].nplugins, 6);
	gang = sched_conf_plugin(&c, "gang");
	assert_false(gang->enabled[SCHED_ENABLE_PREEMPTABLE]);
	assert_true(gang->enabled[SCHED_ENABLE_JOB_READY]);
	assert_false(sched_conf_plugin(&c, "drf")->enabled[SCHED_ENABLE_PREEMPTABLE]);
	bp = sched_conf_plugin(&c, "binpack");
	assert_int_equal(sched_arg_int(bp, "binpack.weight", 1), 10);
	assert_int_equal(sched_arg_int(bp, "binpack.cpu", 1), 2);
	assert_int_equal(sched_arg_int(bp, "binpack.resources.nvidia.com/gpu", 1), 5);
	assert_int_equal(sched_arg_int(bp, "binpack.memory", 7), 7);
	assert_true(sched_arg_float(bp, "overcommit-factor", 1.2) == 1.5);
	assert_true(sched_arg_float(bp, "missing", 1.2) == 1.2);
	assert_string_equal(sched_arg_string(bp, "binpack.resources", ""), "nvidia.com/gpu");
	assert_string_equal(sched_arg_string(bp, "binpack.weight", "d"), "d");
	assert_true(sched_arg_bool(bp, "flag", false));
	assert_false(sched_arg_bool(bp, "binpack.resources", false));
	assert_true(json_is_false(json_object_get(json_object_get(c.configurations, "allocate"),
						  "predicateErrorCacheEnable")));
	assert_string_equal(sched_plugin_flag_key(SCHED_ENABLE_OVERUSED), "enabledOverused");
	assert_string_equal(sched_plugin_flag_key(SCHED_PLUGIN_FLAG_COUNT), "");
	sched_conf_release(&c);
}

static void expect_error(const char *text, int code, const char *msg)
{
	struct sched_conf c;
	struct vc_error err;

	assert_int_equal(parse(text, &c, &err), code);
	assert_string_equal(err.text, msg);
	assert_int_equal(c.nactions, 0);
	assert_int_equal(c.ntiers, 0);
	assert_null(c.configurations);
}

static void test_errors(void **state)
{
	struct sched_conf c;
	struct vc_error err;

	(void)state;
	expect_error("actions: allocate\ntiers:\n- plugins: []\n", VC_EINVALID,
		     "tiers[0] has no plugins");
	expect_error("tiers:\n- plugins:\n  - name: gang\n    enableJobReady: maybe\n", VC_EINVALID,
		     "plugin 'gang': enableJobReady must be a boolean");
	expect_error("tiers:\n- plugins:\n  - name: gang\n    arguments: 3\n", VC_EINVALID,
		     "plugin 'gang': arguments must be a mapping");
	expect_error("actions: [allocate]\n", VC_EINVALID, "actions must be a string");
	expect_error("- a\n", VC_EINVALID, "scheduler configuration must be a mapping");
	expect_error("configurations:\n- arguments: {}\n", VC_EINVALID,
		     "configurations[0] needs a name");
	/* Malformed YAML: a parse error with its position. */
	assert_int_equal(parse("actions: \"allocate\ntiers: [\n", &c, &err), VC_EPARSE);
	assert_true(err.line > 0);
	/* An empty file is Volcano's default. */
	assert_int_equal(parse("", &c, &err), 0);
	assert_int_equal(c.nactions, 3);
	assert_int_equal(c.ntiers, 2);
	sched_conf_release(&c);
	/* Other Volcano switches are accepted, and the enabled ones kept. */
	assert_int_equal(parse("actions: \" allocate ,, preempt \"\ntiers:\n- plugins:\n"
			       "  - name: drf\n    enableHierarchy: true\n"
			       "    enabledOverused: false\n",
			       &c, &err),
			 0);
	assert_int_equal(c.nactions, 2);
	assert_string_equal(c.actions[1], "preempt");
	assert_false(c.tiers[0].plugins[0].enabled[SCHED_ENABLE_OVERUSED]);
	sched_conf_release(&c);
}

/* Parse text, which must succeed, and compare the skipped entries with want (NULL-terminated). */
static void expect_skipped(const char *text, const char *const *want, struct sched_conf *c)
{
	struct vc_error err;
	size_t i;

	assert_int_equal(parse(text, c, &err), 0);
	for (i = 0; want[i]; i++) {
		assert_true(i < c->nskipped);
		assert_string_equal(c->skipped[i], want[i]);
	}
	assert_int_equal(c->nskipped, i);
}

/*
 * Volcano's leniency: what this scheduler does not know is skipped and listed, the rest is
 * used. (These were errors before; each former case is here.)
 */
static void test_soft_fail(void **state)
{
	static const char *const bogus_key[] = { "unknown key 'bogus' in scheduler configuration",
						 NULL };
	static const char *const shuffle[] = { "unknown action 'shuffle'", NULL };
	static const char *const sla[] = { "unknown plugin 'sla'", NULL };
	static const char *const argument[] = { "plugin 'gang': unknown key 'argument'", NULL };
	static const char *const volcano_head[] = {
		"unknown plugin 'deviceshare'",
		"unknown plugin 'network-topology-aware'",
		"plugin 'binpack': argument 'binpack.nosuch' is not used",
		"plugin 'nodeorder': argument 'imagelocality.weight' is not used",
		NULL,
	};
	static const char *const none[] = { NULL };
	struct sched_conf c;

	(void)state;
	expect_skipped("actions: allocate\nbogus: 1\n", bogus_key, &c);
	assert_int_equal(c.nactions, 1);
	sched_conf_release(&c);

	/* An unknown action: the others run, in order. */
	expect_skipped("actions: \"enqueue, shuffle, allocate\"\n", shuffle, &c);
	assert_int_equal(c.nactions, 2);
	assert_string_equal(c.actions[0], "enqueue");
	assert_string_equal(c.actions[1], "allocate");
	sched_conf_release(&c);

	/* An unknown plugin alone in its tier: the tier goes too. */
	expect_skipped("actions: allocate\ntiers:\n- plugins:\n  - name: sla\n"
		       "- plugins:\n  - name: gang\n",
		       sla, &c);
	assert_int_equal(c.ntiers, 1);
	assert_string_equal(c.tiers[0].plugins[0].name, "gang");
	sched_conf_release(&c);

	expect_skipped("tiers:\n- plugins:\n  - name: gang\n    argument: {}\n", argument, &c);
	assert_int_equal(c.ntiers, 1);
	assert_non_null(sched_conf_plugin(&c, "gang"));
	sched_conf_release(&c);

	/* Volcano HEAD's plugins and arguments this scheduler lacks, beside ones it has (capacity
	 * with its hierarchy switch among them). */
	expect_skipped("actions: \"enqueue, allocate, backfill\"\n"
		       "tiers:\n"
		       "- plugins:\n"
		       "  - name: priority\n"
		       "  - name: gang\n"
		       "    enablePreemptable: false\n"
		       "  - name: capacity\n"
		       "    enableHierarchy: true\n"
		       "- plugins:\n"
		       "  - name: deviceshare\n"
		       "    arguments:\n"
		       "      deviceshare.VGPUEnable: true\n"
		       "  - name: network-topology-aware\n"
		       "    arguments:\n"
		       "      weight: 10\n"
		       "  - name: binpack\n"
		       "    arguments:\n"
		       "      binpack.weight: 10\n"
		       "      binpack.resources: nvidia.com/gpu\n"
		       "      binpack.resources.nvidia.com/gpu: 2\n"
		       "      binpack.nosuch: 1\n"
		       "  - name: nodeorder\n"
		       "    arguments:\n"
		       "      leastrequested.weight: 1\n"
		       "      imagelocality.weight: 1\n",
		       volcano_head, &c);
	assert_int_equal(c.nactions, 3);
	assert_int_equal(c.ntiers, 2);
	assert_int_equal(c.tiers[0].nplugins, 3);
	assert_int_equal(c.tiers[1].nplugins, 2);
	assert_false(sched_conf_plugin(&c, "gang")->enabled[SCHED_ENABLE_PREEMPTABLE]);
	assert_int_equal(sched_arg_int(sched_conf_plugin(&c, "binpack"), "binpack.weight", 1), 10);
	assert_true(sched_conf_plugin(&c, "capacity")->hierarchy);
	assert_false(sched_conf_plugin(&c, "gang")->hierarchy);
	sched_conf_release(&c);

	/* Every argument a plugin here reads is known: nothing skipped. */
	expect_skipped("tiers:\n- plugins:\n  - name: overcommit\n    arguments:\n"
		       "      overcommit-factor: 1.5\n  - name: task-topology\n    arguments:\n"
		       "      task-topology.weight: 3\n  - name: nodeorder\n    arguments:\n"
		       "      podaffinity.weight: 2\n      podtopologyspread.weight: 2\n"
		       "      nodeaffinity.weight: 2\n      tainttoleration.weight: 3\n",
		       none, &c);
	sched_conf_release(&c);
}

static void test_alloc_failures(void **state)
{
	long n;

	(void)state;
	for (n = 0;; n++) {
		struct sched_conf c;
		struct vc_error err;
		int rc;

		vc_alloc_fail_after(n);
		rc = parse(helm_conf, &c, &err);
		vc_alloc_fail_reset();
		if (rc == 0) {
			sched_conf_release(&c);
			break;
		}
		assert_true(rc == VC_ENOMEM || rc == VC_EPARSE);
		assert_int_equal(c.ntiers, 0);
	}
	assert_true(n > 10);
	for (n = 0;; n++) {
		struct sched_conf c;
		int rc;

		vc_alloc_fail_after(n);
		rc = sched_conf_default(&c);
		vc_alloc_fail_reset();
		if (rc == 0) {
			sched_conf_release(&c);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),	       cmocka_unit_test(test_helm),
		cmocka_unit_test(test_errors),	       cmocka_unit_test(test_soft_fail),
		cmocka_unit_test(test_alloc_failures),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
