/*
 * Unit tests for nodeorder's NodeAffinity (preferred terms) and TaintToleration
 * (PreferNoSchedule) scores (docs/volcano/scheduler.md §4.8) and for scheduling gates
 * (docs/volcano/scheduler.md §3.2, §4.1): the batch callback as the scheduler calls it, in a
 * session opened on a small snapshot, and whole cycles (sched_session_run) over nodes and pods
 * built from JSON.
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "support/sched_fixture.h"

#include "scheduler/sched_internal.h"
#include "scheduler/sched_session.h"
#include "vc_alloc.h"

#define MAX_OBJS 32

/* A snapshot of nodes and pods made from JSON, and what the cycle or session needs. */
struct world {
	struct sched_snapshot snap;
	struct sched_conf conf;
	struct sched_result res;
	struct sched_session ssn;
	json_t *objs[MAX_OBJS];
	size_t nobjs;
	struct vc_pod pods[MAX_OBJS];
	size_t npods;
	struct vc_node nodes[MAX_OBJS];
	size_t nnodes;
};

static void w_init(struct world *w)
{
	memset(w, 0, sizeof(*w));
	assert_int_equal(sched_snapshot_init(&w->snap), 0);
}

static void w_release(struct world *w)
{
	size_t i;

	sched_snapshot_release(&w->snap);
	for (i = 0; i < w->npods; i++)
		vc_pod_view_release(&w->pods[i]);
	for (i = 0; i < w->nnodes; i++)
		vc_node_view_release(&w->nodes[i]);
	for (i = 0; i < w->nobjs; i++)
		json_decref(w->objs[i]);
}

static json_t *w_json(struct world *w, const char *text)
{
	json_error_t jerr;
	json_t *o = json_loads(text, 0, &jerr);

	if (!o)
		fail_msg("json: %s: %s", jerr.text, text);
	assert_true(w->nobjs < MAX_OBJS);
	w->objs[w->nobjs++] = o;
	return o;
}

/* A node of 4 CPU and 16 Gi with labels (a JSON object) and taints (a JSON array). */
static struct sched_node_info *w_node(struct world *w, const char *name, const char *labels,
				      const char *taints)
{
	char text[1024];
	struct sched_node_info *n = vc_malloc(sizeof(*n));

	snprintf(
		text, sizeof(text),
		"{\"metadata\":{\"name\":\"%s\",\"labels\":%s},\"spec\":{\"taints\":%s},"
		"\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"16Gi\",\"pods\":\"110\"}}}",
		name, labels, taints);
	assert_non_null(n);
	assert_int_equal(vc_node_view(w_json(w, text), &w->nodes[w->nnodes], NULL), 0);
	assert_int_equal(sched_node_from_view(n, &w->nodes[w->nnodes++]), 0);
	assert_int_equal(sched_snapshot_add_node(&w->snap, n), 0);
	return n;
}

static struct sched_job_info *w_job(struct world *w, const char *name, int32_t min)
{
	struct sched_job_info *j = vc_malloc(sizeof(*j));

	assert_non_null(j);
	assert_int_equal(sched_job_init(j, "ns", name, "default", min), 0);
	j->phase = VC_PG_INQUEUE;
	assert_int_equal(sched_snapshot_add_job(&w->snap, j), 0);
	return j;
}

/*
 * A pending pod of job j whose spec has the given extra members (text after a comma, or "")
 * and asks for 1 CPU and 1 Gi (none at all when best_effort).
 */
static struct sched_task_info *w_pod(struct world *w, struct sched_job_info *j, const char *name,
				     const char *extra, bool best_effort)
{
	char text[2048];
	struct sched_task_info *t = vc_malloc(sizeof(*t));

	snprintf(text, sizeof(text),
		 "{\"metadata\":{\"namespace\":\"ns\",\"name\":\"%s\",\"uid\":\"%s\"},"
		 "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":%s}}]%s%s},"
		 "\"status\":{\"phase\":\"Pending\"}}",
		 name, name, best_effort ? "{}" : "{\"cpu\":\"1\",\"memory\":\"1Gi\"}",
		 extra[0] ? "," : "", extra);
	assert_non_null(t);
	assert_int_equal(vc_pod_view(w_json(w, text), &w->pods[w->npods], NULL), 0);
	assert_int_equal(sched_task_from_pod(t, &w->pods[w->npods++], NULL), 0);
	assert_int_equal(sched_job_add_task(j, t), 0);
	return t;
}

/* ---- the batch callback ------------------------------------------------------------------- */

/*
 * Open a session whose only plugin is nodeorder with the resource scorers off and these extra
 * arguments (YAML lines); returns its slot.
 */
static struct sched_plugin_slot *w_open(struct world *w, const char *args)
{
	char text[1024];
	struct vc_error err;

	snprintf(text, sizeof(text),
		 "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: nodeorder\n    arguments:\n"
		 "      leastrequested.weight: 0\n      balancedresource.weight: 0\n%s",
		 args);
	vc_error_clear(&err);
	if (sched_conf_parse(text, strlen(text), &w->conf, &err) != 0)
		fail_msg("conf: %s", err.text);
	if (sched_session_begin(&w->ssn, &w->conf, &w->snap, "uid-1", "2026-01-01T00:00:00Z", 7,
				&w->res, &err) != 0)
		fail_msg("open: %s", err.text);
	assert_int_equal(w->ssn.priv->nslots, 1);
	return &w->ssn.priv->slots[0];
}

static void w_close(struct world *w)
{
	sched_session_end(&w->ssn);
	sched_result_release(&w->res);
	sched_conf_release(&w->conf);
}

/* The batch scores of t over the session's nodes named in names (NULL-terminated) into out. */
static void batch(struct world *w, struct sched_plugin_slot *s, const struct sched_task_info *t,
		  const char *const *names, double *out)
{
	uint32_t idx[8];
	size_t n = 0, i;

	for (; names[n]; n++) {
		assert_true(n < 8);
		idx[n] = sched_ssn_find_node(&w->ssn, names[n])->index;
		out[n] = 0;
	}
	assert_non_null(s->cb.batch_node_order);
	s->cb.batch_node_order(s->state, sched_ssn_task_of(&w->ssn, t), idx, n, out);
	for (i = 0; i < n; i++)
		print_message("      %s %s: %g\n", t->name, names[i], out[i]);
}

#define PREFER(terms)                                                                                \
	"\"affinity\":{\"nodeAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":" terms \
	"}}"
#define ZONE_TERM(w, zone)                                                                         \
	"{\"weight\":" #w ",\"preference\":{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":" \
	"\"In\",\"values\":[\"" zone "\"]}]}}"

static void test_affinity_scores(void **state)
{
	static const char *const all[] = { "na", "nb", "nc", NULL };
	static const char *const some[] = { "nb", "nc", NULL };
	struct world w;
	struct sched_plugin_slot *s;
	struct sched_task_info *t, *plain;
	struct sched_job_info *j;
	double sc[8];

	(void)state;
	w_init(&w);
	w_node(&w, "na", "{\"zone\":\"a\"}", "[]");
	w_node(&w, "nb", "{\"zone\":\"b\"}", "[]");
	w_node(&w, "nc", "{}", "[]");
	j = w_job(&w, "j", 1);
	t = w_pod(&w, j, "t", PREFER("[" ZONE_TERM(80, "a") "," ZONE_TERM(20, "b") "]"), false);
	plain = w_pod(&w, j, "plain", "", false);

	/* 80, 20, 0 normalised to 100, 25, 0, times nodeaffinity.weight (2 by default). */
	s = w_open(&w, "");
	batch(&w, s, t, all, sc);
	assert_true(sc[0] == 200 && sc[1] == 50 && sc[2] == 0);
	/* Normalised over the candidates given: without na, nb has the highest weight. */
	batch(&w, s, t, some, sc);
	assert_true(sc[0] == 200 && sc[1] == 0);
	/* A pod without preferred terms scores nothing. */
	batch(&w, s, plain, all, sc);
	assert_true(sc[0] == 0 && sc[1] == 0 && sc[2] == 0);
	w_close(&w);

	s = w_open(&w, "      nodeaffinity.weight: 1\n");
	batch(&w, s, t, all, sc);
	assert_true(sc[0] == 100 && sc[1] == 25 && sc[2] == 0);
	w_close(&w);

	/* Weight 0 and no PreferNoSchedule taint anywhere: no batch score at all. */
	s = w_open(&w, "      nodeaffinity.weight: 0\n");
	assert_null(s->cb.batch_node_order);
	assert_int_equal(w.ssn.priv->nbatch, 0);
	w_close(&w);
	w_release(&w);
}

#define SOFT(key) "{\"key\":\"" key "\",\"value\":\"1\",\"effect\":\"PreferNoSchedule\"}"

static void test_taint_scores(void **state)
{
	static const char *const all[] = { "t2", "t1", "t0", NULL };
	struct world w;
	struct sched_plugin_slot *s;
	struct sched_task_info *none, *tol_a, *tol_a_hard, *tol_all;
	struct sched_job_info *j;
	double sc[8];

	(void)state;
	w_init(&w);
	w_node(&w, "t2", "{}", "[" SOFT("a") "," SOFT("b") "]");
	w_node(&w, "t1", "{}", "[" SOFT("a") ",{\"key\":\"x\",\"effect\":\"NoSchedule\"}]");
	w_node(&w, "t0", "{}", "[]");
	j = w_job(&w, "j", 1);
	none = w_pod(&w, j, "none", "", false);
	tol_a = w_pod(&w, j, "tol-a", "\"tolerations\":[{\"key\":\"a\",\"operator\":\"Exists\"}]",
		      false);
	tol_a_hard = w_pod(&w, j, "tol-a-hard",
			   "\"tolerations\":[{\"key\":\"a\",\"operator\":\"Exists\","
			   "\"effect\":\"NoSchedule\"}]",
			   false);
	tol_all = w_pod(&w, j, "tol-all", "\"tolerations\":[{\"operator\":\"Exists\"}]", false);

	s = w_open(&w, "");
	/* Intolerable PreferNoSchedule taints 2, 1, 0: 0, 50, 100 reversed, times 3. */
	batch(&w, s, none, all, sc);
	assert_true(sc[0] == 0 && sc[1] == 150 && sc[2] == 300);
	batch(&w, s, tol_a, all, sc);
	assert_true(sc[0] == 0 && sc[1] == 300 && sc[2] == 300);
	/* A toleration of another effect does not tolerate a PreferNoSchedule taint. */
	batch(&w, s, tol_a_hard, all, sc);
	assert_true(sc[0] == 0 && sc[1] == 150 && sc[2] == 300);
	/* Every taint tolerated: the same score everywhere, which is not added. */
	batch(&w, s, tol_all, all, sc);
	assert_true(sc[0] == 0 && sc[1] == 0 && sc[2] == 0);
	w_close(&w);

	s = w_open(&w, "      tainttoleration.weight: 1\n");
	batch(&w, s, none, all, sc);
	assert_true(sc[0] == 0 && sc[1] == 50 && sc[2] == 100);
	w_close(&w);
	s = w_open(&w, "      tainttoleration.weight: 0\n");
	assert_null(s->cb.batch_node_order);
	w_close(&w);
	w_release(&w);
}

/* ---- whole cycles ---------------------------------------------------------------------------- */

static void run(struct world *w)
{
	struct vc_error err;

	vc_error_clear(&err);
	assert_int_equal(sched_conf_default(&w->conf), 0);
	assert_int_equal(sched_snapshot_place(&w->snap), 0);
	if (sched_session_run(&w->conf, &w->snap, "uid-1", "2026-01-01T00:00:00Z", 7, &w->res,
			      &err) != 0)
		fail_msg("run: %s", err.text);
}

static void run_release(struct world *w)
{
	sched_result_release(&w->res);
	sched_conf_release(&w->conf);
}

/* The node t was bound to in the last cycle, or NULL. */
static const char *bound(const struct world *w, const struct sched_task_info *t)
{
	size_t i;

	for (i = 0; i < w->res.nbinds; i++)
		if (w->res.binds[i].task == t)
			return w->res.binds[i].node;
	return NULL;
}

static void w_queue(struct world *w)
{
	struct sched_queue_info *q = vc_malloc(sizeof(*q));

	assert_non_null(q);
	assert_int_equal(sched_queue_init(q, "default", 1), 0);
	assert_int_equal(sched_snapshot_add_queue(&w->snap, q), 0);
}

/*
 * Preferred node affinity steers pods that the resource scores alone would spread: two jobs of
 * the same request (one equivalence class) preferring different zones each land in theirs.
 */
static void test_affinity_steers(void **state)
{
	struct world w;
	struct sched_task_info *a[3], *b[2];
	struct sched_job_info *ja, *jb;
	char name[16];
	size_t i;

	(void)state;
	w_init(&w);
	w_queue(&w);
	w_node(&w, "n1", "{\"zone\":\"a\"}", "[]");
	w_node(&w, "n2", "{\"zone\":\"b\"}", "[]");
	w_node(&w, "n3", "{}", "[]");
	ja = w_job(&w, "ja", 3);
	jb = w_job(&w, "jb", 2);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "ja-%zu", i);
		a[i] = w_pod(&w, ja, name, PREFER("[" ZONE_TERM(10, "a") "]"), false);
	}
	for (i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "jb-%zu", i);
		b[i] = w_pod(&w, jb, name, PREFER("[" ZONE_TERM(10, "b") "]"), false);
	}
	run(&w);
	assert_int_equal(w.res.nbinds, 5);
	for (i = 0; i < 3; i++)
		assert_string_equal(bound(&w, a[i]), "n1");
	for (i = 0; i < 2; i++)
		assert_string_equal(bound(&w, b[i]), "n2");
	run_release(&w);
	w_release(&w);
}

/* PreferNoSchedule steers pods away while other nodes have room; tolerating pods may go. */
static void test_taint_steers(void **state)
{
	struct world w;
	struct sched_task_info *t[6];
	struct sched_job_info *j;
	char name[16];
	size_t i, on_soft = 0;

	(void)state;
	w_init(&w);
	w_queue(&w);
	w_node(&w, "n1", "{}", "[" SOFT("soft") "]");
	w_node(&w, "n2", "{}", "[]");
	w_node(&w, "n3", "{}", "[]");
	j = w_job(&w, "j", 6);
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "j-%zu", i);
		t[i] = w_pod(&w, j, name, "", false);
	}
	run(&w);
	assert_int_equal(w.res.nbinds, 6);
	for (i = 0; i < 6; i++)
		assert_string_not_equal(bound(&w, t[i]), "n1");
	run_release(&w);
	w_release(&w);

	/* Ten pods do not fit on n2 and n3 (4 CPU each): the tainted node takes the rest. */
	w_init(&w);
	w_queue(&w);
	w_node(&w, "n1", "{}", "[" SOFT("soft") "]");
	w_node(&w, "n2", "{}", "[]");
	w_node(&w, "n3", "{}", "[]");
	j = w_job(&w, "j", 10);
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "j-%zu", i);
		w_pod(&w, j, name, "", false);
	}
	run(&w);
	assert_int_equal(w.res.nbinds, 10);
	for (i = 0; i < w.res.nbinds; i++)
		on_soft += strcmp(w.res.binds[i].node, "n1") == 0;
	assert_int_equal(on_soft, 2);
	run_release(&w);
	w_release(&w);
}

/* ---- scheduling gates ------------------------------------------------------------------------ */

#define GATED "\"schedulingGates\":[{\"name\":\"example.com/wait\"}]"

/*
 * A gated pod is never bound and cannot make its gang ready: not when it asks for resources
 * (allocate skips it), nor when it is best-effort (backfill skips it and it does not count as
 * a pending best-effort task toward minMember).
 */
static void test_gated_pods(void **state)
{
	struct world w;
	struct sched_job_info *j1, *j2, *j3;
	struct sched_task_info *g1, *u1, *g2, *u2, *g3, *u3;

	(void)state;
	w_init(&w);
	w_queue(&w);
	w_node(&w, "n1", "{}", "[]");
	w_node(&w, "n2", "{}", "[]");
	/* minMember 2: one gated pod keeps the whole gang unbound. */
	j1 = w_job(&w, "j1", 2);
	u1 = w_pod(&w, j1, "j1-0", "", false);
	g1 = w_pod(&w, j1, "j1-1", GATED, false);
	/* minMember 1: the ungated pod binds, the gated one does not. */
	j2 = w_job(&w, "j2", 1);
	u2 = w_pod(&w, j2, "j2-0", "", false);
	g2 = w_pod(&w, j2, "j2-1", GATED, false);
	/* Best-effort, minMember 2: the gated pod must not count as placeable. */
	j3 = w_job(&w, "j3", 2);
	u3 = w_pod(&w, j3, "j3-0", "", true);
	g3 = w_pod(&w, j3, "j3-1", GATED, true);
	run(&w);
	assert_null(bound(&w, u1));
	assert_null(bound(&w, g1));
	assert_non_null(bound(&w, u2));
	assert_null(bound(&w, g2));
	assert_null(bound(&w, u3));
	assert_null(bound(&w, g3));
	assert_int_equal(w.res.nbinds, 1);
	run_release(&w);
	w_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_affinity_scores), cmocka_unit_test(test_taint_scores),
		cmocka_unit_test(test_affinity_steers), cmocka_unit_test(test_taint_steers),
		cmocka_unit_test(test_gated_pods),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
