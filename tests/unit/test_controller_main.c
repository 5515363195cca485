/*
 * Unit tests for vc-controller's busybox-style dispatch: the name it is invoked as chooses the
 * flag table and the parts (controller/main.c, included here with its main renamed).
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#define main vc_controller_main
int vc_controller_main(int argc, char **argv);
#include "../../controller/main.c" /* NOLINT(bugprone-suspicious-include) */
#undef main

/* The table of p has a row called name. */
static bool has_flag(const struct personality *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nflags; i++)
		if (!strcmp(p->flags[i].name, name))
			return true;
	return false;
}

static void test_personality_by_name(void **state)
{
	(void)state;
	assert_string_equal(personality_of("vc-controller")->name, "vc-controller");
	assert_string_equal(personality_of("/usr/local/bin/vc-scheduler")->name, "vc-scheduler");
	assert_int_equal(personality_of("vc-scheduler")->role, ROLE_SCHEDULER);
	assert_int_equal(personality_of("./build/vc-controller-manager")->role, ROLE_CONTROLLERS);
	assert_int_equal(personality_of("vc-controller")->role, ROLE_ALL);
	/* Any other name (a renamed copy, none at all) is vc-controller. */
	assert_int_equal(personality_of("caldera")->role, ROLE_ALL);
	assert_int_equal(personality_of(NULL)->role, ROLE_ALL);
	assert_int_equal(personality_of("vc-scheduler-x")->role, ROLE_ALL);
}

static void test_flag_tables(void **state)
{
	const struct personality *all = personality_of("vc-controller");
	const struct personality *cm = personality_of("vc-controller-manager");
	const struct personality *sc = personality_of("vc-scheduler");

	(void)state;
	/* The scheduler's flags only where a scheduler runs, and the controllers' likewise. */
	assert_true(has_flag(all, "scheduler-conf") && has_flag(all, "worker-threads"));
	assert_true(has_flag(all, "enable-scheduler"));
	assert_false(has_flag(cm, "scheduler-conf") || has_flag(cm, "enable-scheduler"));
	assert_true(has_flag(cm, "worker-threads") && has_flag(cm, "controllers"));
	assert_false(has_flag(sc, "worker-threads") || has_flag(sc, "controllers"));
	assert_true(has_flag(sc, "scheduler-conf") && has_flag(sc, "schedule-period"));
	/* Volcano's flags of each binary, accepted (some with no effect). */
	assert_true(has_flag(cm, "sharding-configmap") &&
		    has_flag(cm, "inherit-owner-annotations"));
	assert_true(has_flag(sc, "node-worker-threads") &&
		    has_flag(sc, "percentage-nodes-to-find"));
	assert_true(has_flag(sc, "enable-cache-dumper") && has_flag(sc, "csi-storage"));
	assert_true(has_flag(all, "sharding-configmap") && has_flag(all, "plugins-dir"));
}

/* Parse argv with the table of the personality called name; 0 or the parse's error. */
static int parse_as(const char *name, struct config *cfg, int argc, const char **argv)
{
	const struct personality *p = personality_of(name);
	struct vc_error err;

	memset(cfg, 0, sizeof(*cfg));
	return vc_flags_parse(p->flags, p->nflags, cfg, argc, (char **)argv, NULL, &err);
}

static void test_defaults_by_name(void **state)
{
	const char *none[] = { "x" };
	const char *cm_flag[] = { "x", "--scheduler-conf=/a" };
	struct config cfg;

	(void)state;
	assert_int_equal(parse_as("vc-scheduler", &cfg, 1, none), 0);
	assert_string_equal(cfg.leader.resource_name, "vc-scheduler");
	assert_string_equal(cfg.listen_address, ":8080");
	assert_string_equal(cfg.healthz_address, ":11251");
	assert_int_equal(parse_as("vc-controller-manager", &cfg, 1, none), 0);
	assert_string_equal(cfg.leader.resource_name, "vc-controller-manager");
	assert_string_equal(cfg.listen_address, ":8081");
	assert_false(cfg.enable_scheduler);
	assert_int_equal(parse_as("vc-controller", &cfg, 1, none), 0);
	assert_string_equal(cfg.leader.resource_name, "vc-controller-manager");
	assert_true(cfg.enable_scheduler);
	/* A scheduler flag is unknown to the controller manager, as in Volcano. */
	assert_int_equal(parse_as("vc-controller-manager", &cfg, 2, cm_flag), VC_EINVAL);
}

static void test_parts_by_role(void **state)
{
	struct config cfg;
	struct vc_error err;
	bool on[PART_COUNT];
	int i;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.enable_scheduler = true;
	assert_int_equal(parse_controllers("*", &cfg, on, &err), 0);
	apply_role(ROLE_ALL, on);
	for (i = 0; i < PART_COUNT; i++)
		assert_true(on[i]);
	assert_string_equal(parts[SCHED_PART].name, "scheduler");
	assert_int_equal(parse_controllers("*", &cfg, on, &err), 0);
	apply_role(ROLE_CONTROLLERS, on);
	for (i = 0; i < PART_COUNT; i++)
		assert_int_equal(on[i], i != SCHED_PART);
	/* vc-scheduler: the scheduler alone, whatever --controllers would say. */
	cfg.enable_scheduler = false;
	assert_int_equal(parse_controllers(NULL, &cfg, on, &err), 0);
	apply_role(ROLE_SCHEDULER, on);
	for (i = 0; i < PART_COUNT; i++)
		assert_int_equal(on[i], i == SCHED_PART);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_personality_by_name),
		cmocka_unit_test(test_flag_tables),
		cmocka_unit_test(test_defaults_by_name),
		cmocka_unit_test(test_parts_by_role),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
