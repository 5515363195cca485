/* Unit tests for the task-topology plugin (docs/volcano/scheduler.md §4.10). */
#include "vc_prelude.h"

#include <math.h>
#include <setjmp.h>
#include <cmocka.h>

#include "scheduler/plugin_tasktopology.h"
#include "vc_alloc.h"

#define GIB (1024.0 * 1024 * 1024)
#define MIB (1024.0 * 1024)
#define GPU "nvidia.com/gpu"

/* A job ns/job1 whose PodGroup view carries annotations (NULL: no view). */
struct fixture {
	struct sched_job_info job;
	struct vc_podgroup pg;
	json_t *ann;
};

static void fx_init(struct fixture *f, const char *ns, const char *aff, const char *anti,
		    const char *order)
{
	memset(f, 0, sizeof(*f));
	assert_int_equal(sched_job_init(&f->job, ns, "job1", NULL, 1), 0);
	f->ann = json_object();
	assert_non_null(f->ann);
	if (aff)
		assert_int_equal(
			json_object_set_new(f->ann, TASKTOPO_ANN_AFFINITY, json_string(aff)), 0);
	if (anti)
		assert_int_equal(
			json_object_set_new(f->ann, TASKTOPO_ANN_ANTI_AFFINITY, json_string(anti)),
			0);
	if (order)
		assert_int_equal(
			json_object_set_new(f->ann, TASKTOPO_ANN_TASK_ORDER, json_string(order)),
			0);
	f->pg.meta.annotations = f->ann;
	f->job.pg = &f->pg;
}

static void fx_release(struct fixture *f)
{
	sched_job_release(&f->job);
	json_decref(f->ann);
}

/* A heap task job1-<role>-<i>, of role, cpu millicores (memory, GPU optional). */
static struct sched_task_info *task_full(struct sched_job_info *j, const char *role, int i,
					 double cpu, double mem, double gpu,
					 struct sched_node_info *n)
{
	struct sched_task_info *t = vc_malloc(sizeof(*t));
	struct vc_resource r;
	char name[64];

	assert_non_null(t);
	vc_resource_init(&r);
	r.milli_cpu = cpu;
	r.memory = mem;
	if (gpu > 0)
		assert_int_equal(vc_resource_set_scalar(&r, GPU, gpu), 0);
	snprintf(name, sizeof(name), "job1-%s-%d", role, i);
	assert_int_equal(sched_task_init(t, j->ns, name, &r), 0);
	vc_resource_release(&r);
	vc_free(t->role);
	t->role = vc_strdup(role);
	assert_non_null(t->role);
	if (n) {
		t->status = SCHED_TASK_RUNNING;
		assert_int_equal(sched_task_set_node(t, n->name), 0);
		assert_int_equal(sched_node_add_task(n, t), 0);
	}
	assert_int_equal(sched_job_add_task(j, t), 0);
	return t;
}

static struct sched_task_info *task(struct sched_job_info *j, const char *role, int i, double cpu)
{
	return task_full(j, role, i, cpu, 0, 0, NULL);
}

static void node_init(struct sched_node_info *n, const char *name, double cpu)
{
	struct vc_resource r;

	vc_resource_init(&r);
	r.milli_cpu = cpu;
	r.memory = 64 * GIB;
	assert_int_equal(sched_node_init(n, name, &r), 0);
	vc_resource_release(&r);
}

/* Place t on n as the allocate action would, and tell the plugin. */
static void allocate(struct tasktopo_session *s, struct sched_task_info *t,
		     struct sched_node_info *n)
{
	assert_int_equal(sched_job_set_status(t->job, t, SCHED_TASK_ALLOCATED), 0);
	assert_int_equal(sched_task_set_node(t, n->name), 0);
	assert_int_equal(sched_node_add_task(n, t), 0);
	assert_int_equal(tasktopo_session_allocated(s, t, n->name), 0);
}

static double score(const struct tasktopo_session *s, const struct sched_task_info *t,
		    const struct sched_node_info *n)
{
	double v = -1;

	assert_int_equal(tasktopo_node_score(s, t, n, &v), 0);
	return v;
}

static void assert_group(const struct tasktopo_group *g, size_t n, const char *const *names)
{
	size_t i;

	assert_int_equal(g->n, n);
	for (i = 0; i < n; i++)
		assert_string_equal(g->names[i], names[i]);
}

/* The bucket's unplaced members, names joined by ','. */
static void assert_bucket(const struct tasktopo_bucket *b, const char *want)
{
	char got[512] = "";
	size_t i, len = 0;

	for (i = 0; i < b->ntasks; i++)
		len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%s", i ? "," : "",
					b->tasks[i]->name);
	assert_string_equal(got, want);
}

/* ---- annotations ----------------------------------------------------------------------------- */

static void add_roles(struct fixture *f, bool chief, bool evaluator)
{
	task(&f->job, "ps", 0, 1000);
	task(&f->job, "ps", 1, 1000);
	task(&f->job, "worker", 0, 1000);
	task(&f->job, "worker", 1, 1000);
	if (chief)
		task(&f->job, "chief", 0, 1000);
	if (evaluator)
		task(&f->job, "evaluator", 0, 1000);
}

static void test_parse_valid(void **state)
{
	static const char *const g_ps_worker[] = { "ps", "worker" };
	static const char *const g_ps_chief[] = { "ps", "chief" };
	static const char *const g_ps[] = { "ps" };
	static const char *const g_worker_chief[] = { "worker", "chief" };
	static const char *const order[] = { "ps", "worker", "chief", "evaluator" };
	struct fixture f;
	struct tasktopo_spec s;
	struct vc_error err;

	(void)state;
	fx_init(&f, "default", "ps,worker;ps,chief", "ps;worker,chief",
		"ps,worker,chief,evaluator");
	add_roles(&f, true, true);
	vc_error_clear(&err);
	assert_int_equal(tasktopo_spec_parse(f.ann, &f.job, &s, &err), 0);
	assert_true(s.present);
	assert_int_equal(s.naffinity, 2);
	assert_group(&s.affinity[0], 2, g_ps_worker);
	assert_group(&s.affinity[1], 2, g_ps_chief);
	assert_int_equal(s.nanti_affinity, 2);
	assert_group(&s.anti_affinity[0], 1, g_ps);
	assert_group(&s.anti_affinity[1], 2, g_worker_chief);
	assert_true(s.has_order);
	assert_group(&s.order, 4, order);
	tasktopo_spec_release(&s);
	assert_null(s.affinity);
	tasktopo_spec_release(NULL);
	fx_release(&f);
}

/* Volcano keeps empty names from doubled or trailing separators and does not check them. */
static void test_parse_redundant_punctuation(void **state)
{
	static const char *const g0[] = { "ps", "worker" };
	static const char *const g1[] = { "ps", "", "chief", "" };
	static const char *const empty[] = { "" };
	static const char *const g_worker_chief[] = { "worker", "chief" };
	static const char *const order[] = { "ps", "worker", "chief", "evaluator", "", "", "" };
	struct fixture f;
	struct tasktopo_spec s;

	(void)state;
	fx_init(&f, "default", "ps,worker;ps,,chief,;", "ps;worker,chief;;;",
		"ps,worker,chief,evaluator,,,");
	add_roles(&f, true, true);
	assert_int_equal(tasktopo_spec_parse(f.ann, &f.job, &s, NULL), 0);
	assert_int_equal(s.naffinity, 3);
	assert_group(&s.affinity[0], 2, g0);
	assert_group(&s.affinity[1], 4, g1);
	assert_group(&s.affinity[2], 1, empty);
	assert_int_equal(s.nanti_affinity, 5);
	assert_group(&s.anti_affinity[1], 2, g_worker_chief);
	assert_group(&s.anti_affinity[2], 1, empty);
	assert_group(&s.anti_affinity[4], 1, empty);
	assert_group(&s.order, 7, order);
	tasktopo_spec_release(&s);
	fx_release(&f);
}

static void parse_fails(const char *aff, const char *anti, const char *order, bool chief,
			const char *want)
{
	struct fixture f;
	struct tasktopo_spec s;
	struct vc_error err;

	fx_init(&f, "default", aff, anti, order);
	add_roles(&f, chief, chief);
	vc_error_clear(&err);
	assert_int_equal(tasktopo_spec_parse(f.ann, &f.job, &s, &err), VC_EINVALID);
	assert_int_equal(err.code, VC_EINVALID);
	assert_string_equal(err.text, want);
	assert_false(s.present);
	assert_null(s.affinity);
	assert_null(s.anti_affinity);
	assert_null(s.order.names);
	fx_release(&f);
}

static void test_parse_invalid(void **state)
{
	(void)state;
	parse_fails("$%GF$^trtqwrg^", "ps;worker,chief;#@FGEW^vfa897bgs;;",
		    "ps,worker,chief,evaluator,,,", true,
		    "task $%GF$^trtqwrg^ do not exist in job <default/job1>");
	/* The anti-affinity is checked after the affinity. */
	parse_fails("ps,worker", "ps;worker,chief;#@FGEW^vfa897bgs;;", NULL, true,
		    "task #@FGEW^vfa897bgs do not exist in job <default/job1>");
	parse_fails("ps,worker", "ps", "ps,worker,chief", false,
		    "task chief do not exist in job <default/job1>");
	parse_fails("ps,worker", "ps,ps", "ps,worker", false,
		    "task ps is duplicated in job <default/job1>");
	parse_fails("ps,worker", NULL, "worker,ps,worker", false,
		    "task worker is duplicated in job <default/job1>");
	/* Names are roles, not pod names. */
	parse_fails("job1-ps-0", NULL, NULL, false,
		    "task job1-ps-0 do not exist in job <default/job1>");
}

static void test_parse_absent_and_types(void **state)
{
	struct fixture f;
	struct tasktopo_spec s;
	struct vc_error err;
	json_t *ann;

	(void)state;
	fx_init(&f, "default", NULL, NULL, NULL);
	add_roles(&f, false, false);
	assert_int_equal(tasktopo_spec_parse(f.ann, &f.job, &s, NULL), 0);
	assert_false(s.present);
	assert_int_equal(tasktopo_spec_parse(NULL, &f.job, &s, NULL), 0);
	assert_false(s.present);

	/* An empty value is one group of one empty name: present, and valid. */
	assert_int_equal(json_object_set_new(f.ann, TASKTOPO_ANN_TASK_ORDER, json_string("")), 0);
	assert_int_equal(tasktopo_spec_parse(f.ann, &f.job, &s, NULL), 0);
	assert_true(s.present && s.has_order);
	assert_null(s.affinity);
	assert_int_equal(s.order.n, 1);
	assert_string_equal(s.order.names[0], "");
	tasktopo_spec_release(&s);

	ann = json_pack("{s:i}", TASKTOPO_ANN_ANTI_AFFINITY, 3);
	assert_non_null(ann);
	vc_error_clear(&err);
	assert_int_equal(tasktopo_spec_parse(ann, &f.job, &s, &err), VC_EINVALID);
	assert_string_equal(err.text,
			    "annotation 'volcano.sh/task-topology-anti-affinity' is not a string");
	json_decref(ann);
	fx_release(&f);
}

static void test_parse_alloc_failures(void **state)
{
	struct fixture f;
	int n, rc;

	(void)state;
	fx_init(&f, "default", "ps,worker;ps,,chief,;", "ps;worker,chief", "ps,worker,chief");
	add_roles(&f, true, false);
	for (n = 0;; n++) {
		struct tasktopo_spec s;
		struct vc_error err;

		vc_error_clear(&err);
		vc_alloc_fail_after(n);
		rc = tasktopo_spec_parse(f.ann, &f.job, &s, &err);
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_int_equal(s.naffinity, 3);
			tasktopo_spec_release(&s);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
		assert_false(s.present);
	}
	assert_true(n > 10);
	fx_release(&f);
}

/* ---- roles and buckets ----------------------------------------------------------------------- */

static struct tasktopo_job *build(struct fixture *f)
{
	struct tasktopo_spec s;
	struct tasktopo_job *m = NULL;

	assert_int_equal(tasktopo_spec_parse(f->ann, &f->job, &s, NULL), 0);
	assert_int_equal(tasktopo_job_new(&f->job, &s, &m), 0);
	assert_null(s.affinity);
	return m;
}

static const struct tasktopo_role *role(const struct tasktopo_job *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nroles; i++)
		if (strcmp(m->roles[i].name, name) == 0)
			return &m->roles[i];
	fail_msg("no role %s", name);
	return NULL;
}

static void test_role_priorities(void **state)
{
	struct fixture f;
	struct tasktopo_job *m;

	(void)state;
	fx_init(&f, "default", "ps,worker;ps,chief;evaluator", "ps;worker,chief",
		"ps,worker,chief,evaluator");
	add_roles(&f, true, true);
	task(&f.job, "other", 0, 1000);
	m = build(&f);
	assert_int_equal(m->nroles, 4);
	assert_int_equal(role(m, "ps")->priority, TASKTOPO_PRIO_SELF_ANTI_AFFINITY);
	assert_int_equal(role(m, "worker")->priority, TASKTOPO_PRIO_INTER_AFFINITY);
	assert_int_equal(role(m, "chief")->priority, TASKTOPO_PRIO_INTER_AFFINITY);
	assert_int_equal(role(m, "evaluator")->priority, TASKTOPO_PRIO_SELF_AFFINITY);
	assert_int_equal(role(m, "ps")->order, 4);
	assert_int_equal(role(m, "worker")->order, 3);
	assert_int_equal(role(m, "chief")->order, 2);
	assert_int_equal(role(m, "evaluator")->order, 1);
	assert_true(role(m, "ps")->self_anti_affinity);
	assert_false(role(m, "ps")->self_affinity);
	assert_true(role(m, "evaluator")->self_affinity);
	/* ps(0) worker(1) chief(2) evaluator(3) in order of first mention. */
	assert_int_equal(m->inter_affinity[0 * 4 + 1], 1);
	assert_int_equal(m->inter_affinity[1 * 4 + 0], 1);
	assert_int_equal(m->inter_affinity[2 * 4 + 0], 1);
	assert_int_equal(m->inter_affinity[1 * 4 + 2], 0);
	assert_int_equal(m->inter_anti_affinity[1 * 4 + 2], 1);
	assert_int_equal(m->inter_anti_affinity[2 * 4 + 1], 1);
	assert_int_equal(m->inter_anti_affinity[0 * 4 + 1], 0);
	/* Affinity score of ps against {ps:1, worker:2, chief:1}: -1 + 2 + 1. */
	{
		size_t counts[4] = { 1, 2, 1, 0 };

		assert_int_equal(tasktopo_affinity_score(m, 0, counts, false), 2);
		assert_int_equal(tasktopo_affinity_score(m, 0, counts, true), -1);
		assert_int_equal(tasktopo_affinity_score(m, 1, counts, false),
				 0); /* +1 ps -1 chief */
		assert_int_equal(tasktopo_affinity_score(m, 1, counts, true), -1);
		assert_int_equal(tasktopo_affinity_score(m, -1, counts, false), 0);
	}
	/* The role without any relation ("other") and the unnamed stay out of buckets. */
	assert_null(tasktopo_job_bucket_of(m, f.job.tasks[6]));
	assert_int_equal(tasktopo_job_role_of(m, f.job.tasks[6]), -1);
	tasktopo_job_free(m);
	tasktopo_job_free(NULL);
	fx_release(&f);
}

/*
 * The design example (docs/design/task-topology-plugin.md): 2 ps + 4 workers of 1 CPU,
 * affinity "ps,worker", anti-affinity "ps"; nodes of 2, 1 and 4 CPUs.
 */
static void test_design_example(void **state)
{
	struct fixture f;
	struct tasktopo_session s;
	struct sched_job_info *jobs[1];
	struct sched_task_info *ps0, *ps1, *w0, *w1, *w2, *w3;
	struct sched_node_info n1, n2, n3;
	const struct tasktopo_job *m;
	const struct tasktopo_bucket *b0, *b1;

	(void)state;
	fx_init(&f, "default", "ps,worker", "ps", NULL);
	/* Added out of order: the build sorts. */
	w3 = task(&f.job, "worker", 3, 1000);
	ps1 = task(&f.job, "ps", 1, 1000);
	w0 = task(&f.job, "worker", 0, 1000);
	w2 = task(&f.job, "worker", 2, 1000);
	ps0 = task(&f.job, "ps", 0, 1000);
	w1 = task(&f.job, "worker", 1, 1000);
	jobs[0] = &f.job;
	assert_int_equal(tasktopo_session_open(&s, jobs, 1, 1), 0);
	m = tasktopo_session_job(&s, &f.job);
	assert_non_null(m);
	assert_int_equal(m->nbuckets, 2);
	b0 = m->buckets[0];
	b1 = m->buckets[1];
	assert_bucket(b0, "job1-ps-0,job1-worker-0,job1-worker-2");
	assert_bucket(b1, "job1-ps-1,job1-worker-1,job1-worker-3");
	assert_ptr_equal(tasktopo_job_bucket_of(m, w2), b0);
	assert_ptr_equal(tasktopo_job_bucket_of(m, w3), b1);
	assert_true(b0->req_score == 3000 && b1->req_score == 3000);
	assert_true(b0->request.milli_cpu == 3000);
	assert_int_equal(m->max_bucket_size, 3);

	/* TaskOrder: ps0, worker0, worker2, ps1, worker1, worker3. */
	assert_true(tasktopo_task_order(&s, ps0, w0) < 0);
	assert_true(tasktopo_task_order(&s, w0, ps0) > 0);
	assert_int_equal(tasktopo_task_order(&s, w0, w2), 0);
	assert_true(tasktopo_task_order(&s, w2, ps1) < 0);
	assert_true(tasktopo_task_order(&s, ps1, w1) < 0);
	assert_true(tasktopo_task_order(&s, w3, ps0) > 0);

	node_init(&n1, "node1", 2000);
	node_init(&n2, "node2", 1000);
	node_init(&n3, "node3", 4000);
	/* ps0: its bucket fits whole on node3 only; one worker must go on node1, two on node2. */
	assert_true(score(&s, ps0, &n3) == 100);
	assert_true(fabs(score(&s, ps0, &n1) - 200.0 / 3) < 1e-9);
	assert_true(fabs(score(&s, ps0, &n2) - 100.0 / 3) < 1e-9);
	allocate(&s, ps0, &n3);
	assert_bucket(b0, "job1-worker-0,job1-worker-2");
	assert_int_equal(b0->bound, 1);
	assert_true(b0->req_score == 2000 && b0->request.milli_cpu == 2000);
	assert_int_equal(m->max_bucket_size, 3);

	/* worker0 follows ps0: 1 placed + 2 unplaced on node3. */
	assert_true(score(&s, w0, &n3) == 100);
	assert_true(fabs(score(&s, w0, &n1) - 200.0 / 3) < 1e-9);
	assert_true(fabs(score(&s, w0, &n2) - 100.0 / 3) < 1e-9);
	allocate(&s, w0, &n3);
	assert_true(score(&s, w2, &n3) == 100);
	allocate(&s, w2, &n3);

	/* TaskOrder now: the full bucket (3 unplaced) before the emptied one. */
	assert_true(tasktopo_task_order(&s, w1, w2) < 0);

	/* ps1: node3 has ps0 (self anti-affinity, -1) and 1 CPU free (two members dropped). */
	assert_true(score(&s, ps1, &n3) == 0);
	assert_true(fabs(score(&s, ps1, &n1) - 200.0 / 3) < 1e-9);
	assert_true(fabs(score(&s, ps1, &n2) - 100.0 / 3) < 1e-9);
	allocate(&s, ps1, &n1);
	assert_true(fabs(score(&s, w1, &n1) - 200.0 / 3) < 1e-9);
	assert_true(fabs(score(&s, w1, &n2) - 100.0 / 3) < 1e-9);
	assert_true(fabs(score(&s, w1, &n3) - 100.0 / 3) < 1e-9);
	allocate(&s, w1, &n1);
	/* worker3: node1 is full; node2 and node3 tie, other plugins decide. */
	assert_true(score(&s, w3, &n1) == 0);
	assert_true(fabs(score(&s, w3, &n2) - 100.0 / 3) < 1e-9);
	assert_true(fabs(score(&s, w3, &n3) - 100.0 / 3) < 1e-9);

	sched_node_release(&n1);
	sched_node_release(&n2);
	sched_node_release(&n3);
	tasktopo_session_close(&s);
	tasktopo_session_close(NULL);
	fx_release(&f);
}

/* The weight scales; a deallocation gives the scores back. */
static void test_weight_and_deallocate(void **state)
{
	struct fixture f;
	struct tasktopo_session s;
	struct sched_job_info *jobs[1];
	struct sched_task_info *ps0, *ps1, *w0, *w1;
	struct sched_node_info n1, n2;
	const struct tasktopo_job *m;

	(void)state;
	fx_init(&f, "default", "ps,worker", "ps", NULL);
	ps0 = task(&f.job, "ps", 0, 1000);
	ps1 = task(&f.job, "ps", 1, 1000);
	w0 = task(&f.job, "worker", 0, 1000);
	w1 = task(&f.job, "worker", 1, 1000);
	jobs[0] = &f.job;
	assert_int_equal(tasktopo_session_open(&s, jobs, 1, 3), 0);
	m = tasktopo_session_job(&s, &f.job);
	assert_int_equal(m->max_bucket_size, 2);
	node_init(&n1, "n1", 8000);
	node_init(&n2, "n2", 8000);
	assert_true(score(&s, ps1, &n1) == 300); /* 2 × 3 × 100 / 2 */
	allocate(&s, ps0, &n1);
	assert_true(score(&s, ps1, &n1) == 150); /* (2 − 1) × 3 × 100 / 2 */
	assert_true(score(&s, w0, &n1) == 300);	 /* (1 + 1) × 3 × 100 / 2 */
	assert_true(score(&s, w0, &n2) == 150);
	allocate(&s, w0, &n1);
	assert_int_equal(m->buckets[0]->ntasks, 0);
	assert_int_equal(m->buckets[0]->bound, 2);

	/* Take both back (as a discarded statement would): the first state returns. */
	assert_int_equal(tasktopo_session_deallocated(&s, w0), 0);
	assert_int_equal(tasktopo_session_deallocated(&s, ps0), 0);
	assert_int_equal(tasktopo_session_deallocated(&s, ps0), 0); /* once only */
	assert_bucket(m->buckets[0], "job1-ps-0,job1-worker-0");
	assert_int_equal(m->buckets[0]->bound, 0);
	assert_true(m->buckets[0]->req_score == 2000);
	assert_true(m->buckets[0]->request.milli_cpu == 2000);
	/* n1's usage is the test's: reset it to compare scores. */
	sched_node_release(&n1);
	node_init(&n1, "n1", 8000);
	assert_true(score(&s, ps1, &n1) == 300);
	assert_true(score(&s, w1, &n1) == 300);
	/* Unknown placements are ignored. */
	assert_int_equal(tasktopo_session_deallocated(&s, w1), 0);
	assert_bucket(m->buckets[1], "job1-ps-1,job1-worker-1");
	sched_node_release(&n1);
	sched_node_release(&n2);
	tasktopo_session_close(&s);
	fx_release(&f);
}

/* Tasks already placed form one bucket per node; unplaced ones may join them. */
static void test_placed_tasks(void **state)
{
	struct fixture f;
	struct tasktopo_session s;
	struct sched_job_info *jobs[1];
	struct sched_task_info *ps0, *ps1, *w2;
	struct sched_node_info n1, n2;
	const struct tasktopo_job *m;

	(void)state;
	node_init(&n1, "n1", 4000);
	node_init(&n2, "n2", 4000);
	fx_init(&f, "default", "ps,worker", "ps", NULL);
	task_full(&f.job, "worker", 1, 1000, 0, 0, &n2);
	task_full(&f.job, "worker", 0, 1000, 0, 0, &n1);
	ps0 = task_full(&f.job, "ps", 0, 1000, 0, 0, &n1);
	ps1 = task(&f.job, "ps", 1, 1000);
	w2 = task(&f.job, "worker", 2, 1000);
	jobs[0] = &f.job;
	assert_int_equal(tasktopo_session_open(&s, jobs, 1, 1), 0);
	m = tasktopo_session_job(&s, &f.job);
	assert_int_equal(m->nbuckets, 2);
	/* n1's bucket {ps0, worker0}; n2's {worker1}; ps1 scores 0 against n1's, +1 against n2's.
	 */
	assert_int_equal(m->buckets[0]->bound, 2);
	assert_int_equal(m->buckets[1]->bound, 1);
	assert_bucket(m->buckets[1], "job1-ps-1");
	/* worker2 scores +1 on both; n1's bucket has the smaller request score (0). */
	assert_bucket(m->buckets[0], "job1-worker-2");
	assert_true(m->buckets[0]->req_score == 0 + 1000);
	assert_int_equal(m->max_bucket_size, 3);
	assert_string_equal(m->slots[0].name, "n1");
	assert_int_equal(m->slots[0].bucket, 0);
	assert_int_equal(m->slots[1].bucket, 1);
	/* Equal unplaced counts: the older bucket first. */
	assert_true(tasktopo_task_order(&s, w2, ps1) < 0);
	assert_true(score(&s, w2, &n1) == 100); /* 2 placed + 1 */
	assert_true(fabs(score(&s, w2, &n2) - 100.0 / 3) < 1e-9);
	/* Placed tasks of earlier cycles are not anti-affinity conflicts (only this session's). */
	assert_true(fabs(score(&s, ps1, &n1) - 100.0 / 3) < 1e-9);
	assert_true(fabs(score(&s, ps1, &n2) - 200.0 / 3) < 1e-9);
	/* An allocation event for a task placed before (an undone eviction) changes nothing. */
	assert_int_equal(tasktopo_session_allocated(&s, ps0, "n2"), 0);
	assert_true(fabs(score(&s, ps1, &n2) - 200.0 / 3) < 1e-9);
	assert_int_equal(m->buckets[0]->bound, 2);
	/* A second allocation event for one task counts once. */
	assert_int_equal(tasktopo_session_allocated(&s, w2, "n2"), 0);
	assert_int_equal(tasktopo_session_allocated(&s, w2, "n1"), 0);
	assert_int_equal(m->buckets[0]->bound, 3);
	assert_int_equal(m->buckets[0]->ntasks, 0);
	assert_int_equal(m->slots[1].role_count[1], 1); /* worker on n2 */
	assert_int_equal(m->slots[0].role_count[1], 0);
	assert_int_equal(tasktopo_session_deallocated(&s, w2), 0);
	assert_int_equal(m->slots[1].role_count[1], 0);
	assert_bucket(m->buckets[0], "job1-worker-2");
	tasktopo_session_close(&s);
	fx_release(&f);
	sched_node_release(&n1);
	sched_node_release(&n2);
}

/* The explicit task order wins over role priorities; inter anti-affinity splits buckets. */
static void test_task_order_and_anti(void **state)
{
	struct fixture f, g;
	struct tasktopo_session s;
	struct sched_job_info *jobs[2];
	struct sched_task_info *ps, *w0, *w1, *chief, *ev, *x;
	const struct tasktopo_job *m;

	(void)state;
	fx_init(&f, "default", "ps,worker", "worker,chief", "worker,ps");
	ps = task(&f.job, "ps", 0, 1000);
	w0 = task(&f.job, "worker", 0, 1000);
	w1 = task(&f.job, "worker", 1, 1000);
	chief = task(&f.job, "chief", 0, 1000);
	ev = task(&f.job, "evaluator", 0, 1000);
	fx_init(&g, "default", NULL, NULL, NULL);
	x = task(&g.job, "ps", 0, 1000);
	jobs[0] = &f.job;
	jobs[1] = &g.job;
	assert_int_equal(tasktopo_session_open(&s, jobs, 2, 1), 0);
	assert_int_equal(s.njobs, 1);
	assert_null(tasktopo_session_job(&s, &g.job));
	m = tasktopo_session_job(&s, &f.job);
	/* Build order worker0, worker1 (order 2), ps (order 1), chief (no order, priority 1). */
	assert_int_equal(m->nbuckets, 2);
	assert_bucket(m->buckets[0], "job1-worker-0,job1-worker-1,job1-ps-0");
	assert_bucket(m->buckets[1], "job1-chief-0");
	assert_null(tasktopo_job_bucket_of(m, ev));
	/* Inside the bucket the task order; bigger bucket before smaller; bucketed before not. */
	assert_true(tasktopo_task_order(&s, w0, ps) < 0);
	assert_true(tasktopo_task_order(&s, ps, w1) > 0);
	assert_true(tasktopo_task_order(&s, chief, ps) > 0);
	assert_true(tasktopo_task_order(&s, ev, chief) > 0);
	assert_true(tasktopo_task_order(&s, chief, ev) < 0);
	/* Another job without buckets: no opinion. */
	assert_int_equal(tasktopo_task_order(&s, x, ps), 0);
	assert_int_equal(tasktopo_task_order(&s, ps, x), 0);
	{
		struct sched_node_info n;

		node_init(&n, "n", 8000);
		assert_true(score(&s, ev, &n) == 0);
		assert_true(score(&s, x, &n) == 0);
		sched_node_release(&n);
	}
	tasktopo_session_close(&s);
	fx_release(&f);
	fx_release(&g);
}

/* Request scores weigh 1 m CPU, 1 MiB and a GPU milli-unit alike; a task that cannot fit gets 0. */
static void test_request_score_and_fit(void **state)
{
	struct fixture f;
	struct tasktopo_session s;
	struct sched_job_info *jobs[1];
	struct sched_task_info *a, *b, *c;
	struct sched_node_info n;
	const struct tasktopo_job *m;

	(void)state;
	fx_init(&f, "default", "a", NULL, NULL);
	a = task_full(&f.job, "a", 0, 500, GIB, 1000, NULL);
	b = task_full(&f.job, "a", 1, 100, 0, 0, NULL);
	c = task_full(&f.job, "a", 2, 100, 0, 0, NULL);
	jobs[0] = &f.job;
	assert_int_equal(tasktopo_session_open(&s, jobs, 1, 1), 0);
	m = tasktopo_session_job(&s, &f.job);
	assert_int_equal(m->nbuckets, 1);
	assert_true(m->buckets[0]->req_score == 500 + 1024 + 1000 + 200);
	node_init(&n, "n", 8000); /* no GPU */
	assert_true(score(&s, a, &n) == 0);
	/* b fits; the bucket does once a (the GPU) is dropped: (3 − 1) × 100 / 3. */
	assert_true(fabs(score(&s, b, &n) - 200.0 / 3) < 1e-9);
	assert_true(fabs(score(&s, c, &n) - 200.0 / 3) < 1e-9);
	sched_node_release(&n);
	tasktopo_session_close(&s);
	fx_release(&f);
}

/* Jobs without pending tasks, without a PodGroup view, or with invalid annotations are left out. */
static void test_session_skips(void **state)
{
	struct fixture f, g, h;
	struct tasktopo_session s;
	struct sched_job_info *jobs[3];
	struct sched_task_info *t;

	(void)state;
	fx_init(&f, "default", "ps,worker", NULL, NULL);
	t = task(&f.job, "ps", 0, 1000);
	assert_int_equal(sched_job_set_status(&f.job, t, SCHED_TASK_RUNNING), 0);
	task(&f.job, "worker", 0, 1000)->status = SCHED_TASK_SUCCEEDED;
	fx_init(&g, "default", "ps,chief", NULL, NULL);
	task(&g.job, "ps", 0, 1000);
	fx_init(&h, "default", "ps", NULL, NULL);
	task(&h.job, "ps", 0, 1000);
	h.job.pg = NULL;
	jobs[0] = &f.job;
	jobs[1] = &g.job;
	jobs[2] = &h.job;
	assert_int_equal(tasktopo_session_open(&s, jobs, 3, 1), 0);
	assert_int_equal(s.njobs, 0);
	tasktopo_session_close(&s);
	fx_release(&f);
	fx_release(&g);
	fx_release(&h);
}

static void test_alloc_failures(void **state)
{
	struct fixture f;
	struct sched_job_info *jobs[1];
	struct sched_node_info n1, n3;
	int n, rc;

	(void)state;
	fx_init(&f, "default", "ps,worker", "ps", "ps,worker");
	task(&f.job, "ps", 0, 1000);
	task(&f.job, "ps", 1, 1000);
	task_full(&f.job, "worker", 0, 1000, 0, 500, NULL);
	task(&f.job, "worker", 1, 1000);
	task(&f.job, "worker", 2, 1000);
	jobs[0] = &f.job;
	node_init(&n1, "node1", 2000);
	node_init(&n3, "node3", 4000);
	for (n = 0;; n++) {
		struct tasktopo_session s;
		struct sched_task_info *t0 = f.job.tasks[0], *t2 = f.job.tasks[2];
		double v = 0;

		vc_alloc_fail_after(n);
		rc = tasktopo_session_open(&s, jobs, 1, 1);
		if (rc == 0) {
			rc = tasktopo_session_allocated(&s, t0, "node3");
			if (rc == 0)
				rc = tasktopo_node_score(&s, t2, &n1, &v);
			if (rc == 0)
				rc = tasktopo_session_deallocated(&s, t0);
			if (rc == 0)
				rc = tasktopo_node_score(&s, t0, &n3, &v);
			tasktopo_session_close(&s);
		} else {
			assert_int_equal(s.njobs, 0);
			assert_null(s.jobs);
		}
		vc_alloc_fail_reset();
		if (rc == 0)
			break;
		assert_int_equal(rc, VC_ENOMEM);
	}
	assert_true(n > 15);
	sched_node_release(&n1);
	sched_node_release(&n3);
	fx_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_valid),
		cmocka_unit_test(test_parse_redundant_punctuation),
		cmocka_unit_test(test_parse_invalid),
		cmocka_unit_test(test_parse_absent_and_types),
		cmocka_unit_test(test_parse_alloc_failures),
		cmocka_unit_test(test_role_priorities),
		cmocka_unit_test(test_design_example),
		cmocka_unit_test(test_weight_and_deallocate),
		cmocka_unit_test(test_placed_tasks),
		cmocka_unit_test(test_task_order_and_anti),
		cmocka_unit_test(test_request_score_and_fit),
		cmocka_unit_test(test_session_skips),
		cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
