/*
 * The task-topology plugin inside a whole cycle (sched_session_run): registration through the
 * session framework, the weight argument, TaskOrder and NodeOrder against other plugins.
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "scheduler/plugin_tasktopology.h"
#include "scheduler/sched_framework.h"
#include "scheduler/sched_session.h"
#include "vc_alloc.h"

#define GIB (1024.0 * 1024 * 1024)

struct world {
	struct sched_snapshot snap;
	json_t *pg_obj;
	struct vc_podgroup pg;
	struct sched_conf conf;
	struct sched_result res;
};

/* A PodGroup ns/job1 (Inqueue, minMember min) with the given annotations object text. */
static void world_init(struct world *w, const char *annotations, int min, const char *conf)
{
	struct sched_queue_info *q = vc_malloc(sizeof(*q));
	struct sched_job_info *j = vc_malloc(sizeof(*j));
	struct vc_error err;
	char text[1024];

	memset(w, 0, sizeof(*w));
	snprintf(
		text, sizeof(text),
		"{\"metadata\":{\"namespace\":\"ns\",\"name\":\"job1\",\"uid\":\"u1\","
		"\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"annotations\":%s},"
		"\"spec\":{\"minMember\":%d,\"queue\":\"default\"},\"status\":{\"phase\":\"Inqueue\"}}",
		annotations, min);
	w->pg_obj = json_loads(text, 0, NULL);
	assert_non_null(w->pg_obj);
	vc_error_clear(&err);
	assert_int_equal(vc_podgroup_view(w->pg_obj, &w->pg, &err), 0);
	assert_int_equal(sched_snapshot_init(&w->snap), 0);
	assert_non_null(q);
	assert_int_equal(sched_queue_init(q, "default", 1), 0);
	assert_int_equal(sched_snapshot_add_queue(&w->snap, q), 0);
	assert_non_null(j);
	assert_int_equal(sched_job_from_podgroup(j, &w->pg, 0), 0);
	assert_int_equal(sched_snapshot_add_job(&w->snap, j), 0);
	if (sched_conf_parse(conf, strlen(conf), &w->conf, &err) != 0)
		fail_msg("conf: %s", err.text);
}

static void world_release(struct world *w)
{
	sched_result_release(&w->res);
	sched_snapshot_release(&w->snap);
	sched_conf_release(&w->conf);
	vc_podgroup_view_release(&w->pg);
	json_decref(w->pg_obj);
}

static void add_node(struct world *w, const char *name, double cpu)
{
	struct sched_node_info *n = vc_malloc(sizeof(*n));
	struct vc_resource r;

	vc_resource_init(&r);
	r.milli_cpu = cpu;
	r.memory = 64 * GIB;
	assert_non_null(n);
	assert_int_equal(sched_node_init(n, name, &r), 0);
	assert_int_equal(sched_snapshot_add_node(&w->snap, n), 0);
	vc_resource_release(&r);
}

static void add_task(struct world *w, const char *role, int i)
{
	struct sched_task_info *t = vc_malloc(sizeof(*t));
	struct vc_resource r;
	char name[64];

	vc_resource_init(&r);
	r.milli_cpu = 1000;
	r.memory = GIB;
	snprintf(name, sizeof(name), "job1-%s-%d", role, i);
	assert_non_null(t);
	assert_int_equal(sched_task_init(t, "ns", name, &r), 0);
	vc_free(t->role);
	t->role = vc_strdup(role);
	assert_non_null(t->role);
	assert_int_equal(sched_job_add_task(w->snap.jobs[0], t), 0);
	vc_resource_release(&r);
}

static void run(struct world *w, uint64_t seed)
{
	struct vc_error err;

	vc_error_clear(&err);
	assert_int_equal(sched_snapshot_place(&w->snap), 0);
	assert_int_equal(sched_session_run(&w->conf, &w->snap, "ssn-1", "2026-01-01T00:00:10Z",
					   seed, &w->res, &err),
			 0);
}

static const char *node_of(const struct world *w, const char *task)
{
	size_t i;

	for (i = 0; i < w->res.nbinds; i++)
		if (strcmp(w->res.binds[i].task->name, task) == 0)
			return w->res.binds[i].node;
	fail_msg("%s was not bound", task);
	return NULL;
}

#define CONF_HEAD                 \
	"actions: \"allocate\"\n" \
	"configurations: []\n"    \
	"tiers:\n"                \
	"- plugins:\n"            \
	"  - name: gang\n"        \
	"- plugins:\n"            \
	"  - name: predicates\n"

static const char conf_binpack_topo[] = CONF_HEAD "  - name: binpack\n"
						  "  - name: task-topology\n"
						  "    arguments:\n"
						  "      task-topology.weight: 2\n";
static const char conf_binpack[] = CONF_HEAD "  - name: binpack\n";
static const char conf_spread_topo[] = CONF_HEAD "  - name: nodeorder\n"
						 "  - name: task-topology\n"
						 "    arguments:\n"
						 "      task-topology.weight: 10\n";
static const char conf_spread[] = CONF_HEAD "  - name: nodeorder\n";

/* Self anti-affinity keeps the two ps apart although binpack would stack them. */
static void test_anti_affinity_beats_binpack(void **state)
{
	uint64_t seed;

	(void)state;
	assert_non_null(sched_plugin_find(TASKTOPO_PLUGIN_NAME));
	for (seed = 1; seed <= 4; seed++) {
		struct world w;

		world_init(&w, "{\"volcano.sh/task-topology-anti-affinity\":\"ps\"}", 2,
			   conf_binpack_topo);
		add_node(&w, "n1", 8000);
		add_node(&w, "n2", 8000);
		add_task(&w, "ps", 0);
		add_task(&w, "ps", 1);
		run(&w, seed);
		assert_int_equal(w.res.nbinds, 2);
		assert_string_not_equal(node_of(&w, "job1-ps-0"), node_of(&w, "job1-ps-1"));
		world_release(&w);

		/* Control: without the plugin binpack puts them together. */
		world_init(&w, "{\"volcano.sh/task-topology-anti-affinity\":\"ps\"}", 2,
			   conf_binpack);
		add_node(&w, "n1", 8000);
		add_node(&w, "n2", 8000);
		add_task(&w, "ps", 0);
		add_task(&w, "ps", 1);
		run(&w, seed);
		assert_int_equal(w.res.nbinds, 2);
		assert_string_equal(node_of(&w, "job1-ps-0"), node_of(&w, "job1-ps-1"));
		world_release(&w);
	}
}

/* Inter affinity keeps ps and worker together although least-requested would spread them. */
static void test_affinity_beats_spreading(void **state)
{
	uint64_t seed;

	(void)state;
	for (seed = 1; seed <= 4; seed++) {
		struct world w;

		world_init(&w, "{\"volcano.sh/task-topology-affinity\":\"ps,worker\"}", 2,
			   conf_spread_topo);
		add_node(&w, "n1", 8000);
		add_node(&w, "n2", 8000);
		add_task(&w, "worker", 0);
		add_task(&w, "ps", 0);
		run(&w, seed);
		assert_int_equal(w.res.nbinds, 2);
		assert_string_equal(node_of(&w, "job1-ps-0"), node_of(&w, "job1-worker-0"));
		world_release(&w);

		world_init(&w, "{\"volcano.sh/task-topology-affinity\":\"ps,worker\"}", 2,
			   conf_spread);
		add_node(&w, "n1", 8000);
		add_node(&w, "n2", 8000);
		add_task(&w, "worker", 0);
		add_task(&w, "ps", 0);
		run(&w, seed);
		assert_int_equal(w.res.nbinds, 2);
		assert_string_not_equal(node_of(&w, "job1-ps-0"), node_of(&w, "job1-worker-0"));
		world_release(&w);
	}
}

/* Invalid annotations leave the job to the other plugins; nothing fails. */
static void test_invalid_annotations_ignored(void **state)
{
	struct world w;

	(void)state;
	world_init(&w, "{\"volcano.sh/task-topology-anti-affinity\":\"ps;chief\"}", 2,
		   conf_binpack_topo);
	add_node(&w, "n1", 8000);
	add_node(&w, "n2", 8000);
	add_task(&w, "ps", 0);
	add_task(&w, "ps", 1);
	run(&w, 1);
	assert_int_equal(w.res.nbinds, 2);
	assert_string_equal(node_of(&w, "job1-ps-0"), node_of(&w, "job1-ps-1"));
	world_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anti_affinity_beats_binpack),
		cmocka_unit_test(test_affinity_beats_spreading),
		cmocka_unit_test(test_invalid_annotations_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
