/*
 * Unit tests for the scheduler runtime (sched_runtime*.c): the snapshot built from the informer
 * caches, the exact requests of the write-back (binds, bind failures, evictions, PodGroup and
 * Queue status, pod conditions, events), the only-on-change rules, the default queues, the
 * configuration reload, the loop and allocation failures.
 *
 * The API server is the call recorder of support/fake_api.h, which records every call; the
 * caches are filled directly (the informers are never started). Most tests give a scripted
 * session through cfg.session_run, so they do not depend on the actions and plugins; the "real
 * session" tests run sched_session_run itself on the snapshot the runtime built.
 */
#include "vc_prelude.h"

#include <malloc.h>
#include <pthread.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "ctx.h"
#include "scheduler/sched_framework.h"
#include "scheduler/sched_runtime_internal.h"
#include "support/fake_api.h"
#include "support/threads.h"
#include "vc_alloc.h"
#include "vc_cache.h"
#include "vc_events.h"
#include "vc_json.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

/* ---- clock (fake_clock_set_ns) ------------------------------------------------------------- */

#define SEC   INT64_C(1000000000)
#define WALL0 (INT64_C(1700000000) * SEC) /* 2023-11-14T22:13:20Z */
#define NOW0  "2023-11-14T22:13:20Z"

/* ---- the fake API server (the call recorder of support/fake_api.h) --------------------------- */

static struct fake fk;

/* The calls other than events, in order, as summaries joined by "; ". */
static void api_calls(char *buf, size_t len)
{
	char one[256];
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < fk.ncalls; i++) {
		if (strcmp(fk.calls[i].resource, "events") == 0)
			continue;
		fake_call_str(&fk, i, one, sizeof(one));
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "; " : "", one);
		if (off >= len)
			break;
	}
}

static void expect_json(const json_t *got, const char *want_text)
{
	json_error_t jerr;
	json_t *want = json_loads(want_text, 0, &jerr);
	char *g;

	if (!want)
		fail_msg("bad expected JSON: %s", jerr.text);
	if (!json_equal((json_t *)got, want)) {
		g = json_dumps(got, JSON_SORT_KEYS);
		print_error("got  %s\nwant %s\n", g, want_text);
		free(g);
		json_decref(want);
		fail();
	}
	json_decref(want);
}

/* The Events written: "type reason kind/name: message" joined by "; ". */
static struct vc_events *rec;

static void events_str(char *buf, size_t len)
{
	size_t off = 0;
	int i;

	(void)vc_events_process(rec);
	buf[0] = '\0';
	for (i = 0; i < fk.ncalls; i++) {
		const json_t *b = fk.calls[i].body;

		if (strcmp(fk.calls[i].resource, "events") != 0 || fk.calls[i].verb != 'C')
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s %s %s/%s: %s", off ? "; " : "",
					vc_json_get_str(b, "type"), vc_json_get_str(b, "reason"),
					json_string_value(vc_json_path(b, "involvedObject.kind")),
					json_string_value(vc_json_path(b, "involvedObject.name")),
					vc_json_get_str(b, "message"));
		if (off >= len)
			break;
	}
}

/* Repeated Events the recorder folded into an existing one: "count=N message" joined by "; ". */
static void event_patches_str(char *buf, size_t len)
{
	size_t off = 0;
	int i;

	(void)vc_events_process(rec);
	buf[0] = '\0';
	for (i = 0; i < fk.ncalls; i++) {
		const json_t *b = fk.calls[i].body;

		if (strcmp(fk.calls[i].resource, "events") != 0 || fk.calls[i].verb != 'P')
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%scount=%lld %s", off ? "; " : "",
					(long long)json_integer_value(json_object_get(b, "count")),
					vc_json_get_str(b, "message"));
		if (off >= len)
			break;
	}
}

/* ---- objects --------------------------------------------------------------------------------- */

static struct vc_kube *kube;
static struct vc_ctrl_ctx ctx;

static struct sched_runtime *rt;

/*
 * Cache obj in inf as the informer would, and tell the runtime's pod handlers (they keep the
 * scheduler's pod views) as the informer's delivery would.
 */
static void put(struct vc_informer *inf, json_t *obj)
{
	json_t *old = NULL;

	assert_non_null(obj);
	assert_int_equal(vc_cache_upsert(vc_informer_cache(inf), obj, &old), 0);
	if (rt && inf == ctx.pods) {
		if (old)
			srt_on_pod_update(rt, old, obj);
		else
			srt_on_pod_add(rt, obj);
	}
	json_decref(old);
	json_decref(obj);
}

static void del(struct vc_informer *inf, const char *key)
{
	json_t *old = NULL;

	assert_int_equal(vc_cache_delete(vc_informer_cache(inf), key, &old), 0);
	if (rt && inf == ctx.pods)
		srt_on_pod_delete(rt, old, false);
	json_decref(old);
}

static json_t *node_obj(const char *name, const char *zone, const char *cpu)
{
	return json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:{s:{s:s, s:s, s:s}, s:{s:s, s:s, "
			 "s:s}}}",
			 "apiVersion", "v1", "kind", "Node", "metadata", "name", name,
			 "resourceVersion", "1", "labels", "zone", zone, "status", "allocatable",
			 "cpu", cpu, "memory", "8Gi", "pods", "110", "capacity", "cpu", cpu,
			 "memory", "8Gi", "pods", "110");
}

static json_t *queue_obj(const char *name, const char *rv)
{
	return json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:i}, s:{s:s}}", "apiVersion",
			 "scheduling.volcano.sh/v1beta1", "kind", "Queue", "metadata", "name", name,
			 "resourceVersion", rv, "spec", "weight", 1, "status", "state", "Open");
}

static json_t *pc_obj(const char *name, int value, bool global_default)
{
	return json_pack("{s:s, s:s, s:{s:s}, s:i, s:b}", "apiVersion", "scheduling.k8s.io/v1",
			 "kind", "PriorityClass", "metadata", "name", name, "value", value,
			 "globalDefault", global_default);
}

static json_t *pg_obj(const char *name, const char *queue, const char *pc, const char *phase,
		      const char *rv)
{
	json_t *pg = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s}, s:{s:i}, s:{s:s}}", "apiVersion",
			       "scheduling.volcano.sh/v1beta1", "kind", "PodGroup", "metadata",
			       "name", name, "namespace", "ns", "uid", name, "resourceVersion", rv,
			       "spec", "minMember", 1, "status", "phase", phase);

	assert_non_null(pg);
	if (queue)
		assert_int_equal(vc_json_set_path_new(pg, "spec.queue", json_string(queue)), 0);
	if (pc)
		assert_int_equal(
			vc_json_set_path_new(pg, "spec.priorityClassName", json_string(pc)), 0);
	return pg;
}

/* A pod of ns with one container asking for cpu; sched, group, node may be NULL. */
static json_t *pod_obj(const char *name, const char *sched, const char *group, const char *node,
		       const char *phase, const char *cpu)
{
	json_t *p =
		json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s}, s:{s:[{s:s, s:{s:{s:s}}}]}, "
			  "s:{s:s}}",
			  "apiVersion", "v1", "kind", "Pod", "metadata", "name", name, "namespace",
			  "ns", "uid", name, "resourceVersion", "5", "spec", "containers", "name",
			  "c", "resources", "requests", "cpu", cpu, "status", "phase", phase);

	assert_non_null(p);
	if (sched)
		assert_int_equal(vc_json_set_path_new(p, "spec.schedulerName", json_string(sched)),
				 0);
	if (node)
		assert_int_equal(vc_json_set_path_new(p, "spec.nodeName", json_string(node)), 0);
	if (group)
		assert_int_equal(vc_json_set_path_new(
					 p,
					 "metadata.annotations[\"scheduling.k8s.io/group-name\"]",
					 json_string(group)),
				 0);
	return p;
}

/* ---- the scripted session -------------------------------------------------------------------- */

typedef void script_fn(struct sched_snapshot *snap, struct sched_result *out);

static script_fn *script;
static int runs;
static const struct sched_conf *last_conf;
static char last_uid[64], last_now[64];
static pthread_mutex_t runs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t runs_cond = PTHREAD_COND_INITIALIZER;

static int fake_run(const struct sched_conf *conf, struct sched_snapshot *snap,
		    const char *session_uid, const char *now, uint64_t seed,
		    struct sched_result *out, struct vc_error *err)
{
	(void)seed;
	(void)err;
	memset(out, 0, sizeof(*out));
	last_conf = conf;
	snprintf(last_uid, sizeof(last_uid), "%s", session_uid);
	snprintf(last_now, sizeof(last_now), "%s", now);
	if (script)
		script(snap, out);
	pthread_mutex_lock(&runs_lock);
	runs++;
	pthread_cond_broadcast(&runs_cond);
	pthread_mutex_unlock(&runs_lock);
	return 0;
}

static struct sched_task_info *task_named(const struct sched_snapshot *snap, const char *name)
{
	size_t i, k;

	for (i = 0; i < snap->njobs; i++)
		for (k = 0; k < snap->jobs[i]->ntasks; k++)
			if (strcmp(snap->jobs[i]->tasks[k]->name, name) == 0)
				return snap->jobs[i]->tasks[k];
	return NULL;
}

static void add_bind(struct sched_result *r, struct sched_task_info *t, const char *node)
{
	struct sched_bind *b;

	/* Allocation failures (test_alloc_failures) just leave the result shorter. */
	assert_non_null(t);
	if (sched_task_set_node(t, node))
		return;
	t->status = SCHED_TASK_ALLOCATED;
	b = vc_realloc(r->binds, (r->nbinds + 1) * sizeof(*r->binds));
	if (!b)
		return;
	r->binds = b;
	r->binds[r->nbinds++] = (struct sched_bind){ t, t->node_name, NULL };
}

static void add_job_result(struct sched_result *r, struct sched_job_info *j, enum vc_pg_phase phase,
			   const char *conditions, int32_t running, const char *ev_type,
			   const char *ev_reason, const char *ev_message)
{
	struct sched_job_result *jr = vc_realloc(r->jobs, (r->njobs + 1) * sizeof(*r->jobs));

	if (!jr)
		return;
	r->jobs = jr;
	jr = &r->jobs[r->njobs++];
	memset(jr, 0, sizeof(*jr));
	jr->job = j;
	jr->phase = phase;
	jr->conditions = conditions ? json_loads(conditions, 0, NULL) : json_array();
	jr->running = running;
	jr->event_type = ev_type;
	jr->event_reason = ev_reason;
	jr->event_message = ev_message ? vc_strdup(ev_message) : NULL;
}

static void add_task_result(struct sched_result *r, struct sched_task_info *t, const char *reason,
			    const char *message, const char *nominated)
{
	struct sched_task_result *tr = vc_realloc(r->tasks, (r->ntasks + 1) * sizeof(*r->tasks));

	assert_non_null(t);
	if (!tr)
		return;
	r->tasks = tr;
	tr = &r->tasks[r->ntasks++];
	tr->task = t;
	tr->reason = reason;
	tr->message = vc_strdup(message);
	tr->nominated_node = nominated ? vc_strdup(nominated) : NULL;
}

/* ---- fixtures -------------------------------------------------------------------------------- */

static struct sched_runtime_config cfg;

/* Which informers have not synced (srt_prepare), and the bound pods' list (fake_list_bound). */
static bool unsynced_pods, unsynced_pgs, unsynced_nodes;
static int list_bound_calls;
static json_t *bound_list; /* the pods the bound pods' list answers; NULL: it fails */

static void quiet_sink(void *c, int level, const char *line)
{
	(void)c;
	(void)level;
	(void)line;
}

static int setup(void **state)
{
	struct ctx_opts opts = { .pods = true,
				 .podgroups = true,
				 .queues = true,
				 .priorityclasses = true,
				 .nodes = true,
				 .pvcs = true,
				 .pvs = true,
				 .storageclasses = true,
				 .csinodes = true };
	struct vc_events_config ecfg = { .component = "volcano" };

	(void)state;
	fake_init(&fk);
	fk.record_failed = true;
	fk.nomem_recorded = true;
	fake_clock_set_ns(WALL0, WALL0);
	vc_log_set_sink(quiet_sink, NULL);
	kube = fake_recorder(&fk);
	assert_non_null(kube);
	assert_int_equal(vc_events_new(kube, &ecfg, &rec, NULL), 0);
	assert_int_equal(ctx_init(&ctx, kube, rec, &opts, NULL), 0);
	/* The default queues exist unless a test removes them. */
	put(ctx.queues, queue_obj("default", "1"));
	put(ctx.queues, queue_obj("root", "1"));
	sched_runtime_config_defaults(&cfg);
	cfg.session_run = fake_run;
	cfg.seed = 42;
	script = NULL;
	runs = 0;
	rt = NULL;
	unsynced_pods = unsynced_pgs = unsynced_nodes = false;
	list_bound_calls = 0;
	bound_list = NULL;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	/* A test that failed while writes hang: let them finish. */
	fake_hold(&fk, "pods", "status", false);
	sched_runtime_free(rt);
	rt = NULL;
	json_decref(bound_list);
	bound_list = NULL;
	ctx_release(&ctx);
	vc_events_free(rec);
	rec = NULL;
	fake_reset_calls(&fk);
	vc_kube_free(kube);
	fake_release(&fk);
	vc_time_set_source(NULL, NULL, NULL);
	vc_log_set_sink(NULL, NULL);
	return 0;
}

/*
 * The informers are never started here: a test says which have synced (srt_prepare). By
 * default all have, and the bound pods' list (never needed then) fails the test.
 */

static bool fake_synced(struct sched_runtime *s, struct vc_informer *inf)
{
	(void)s;
	return !((inf == ctx.pods && unsynced_pods) || (inf == ctx.podgroups && unsynced_pgs) ||
		 (inf == ctx.nodes && unsynced_nodes));
}

static int fake_list_bound(struct sched_runtime *s, struct vc_error *err)
{
	size_t i;
	json_t *p;

	list_bound_calls++;
	if (!bound_list)
		return vc_error_set(err, VC_EIO, "injected");
	json_array_foreach (bound_list, i, p)
		if (srt_pod_view_put_new(s, p) < 0)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
	return 0;
}

static void new_runtime(void)
{
	struct vc_error err;
	int rc = sched_runtime_new(&ctx, &cfg, &rt, &err);

	if (rc)
		fail_msg("sched_runtime_new: %d %s", rc, err.text);
	rt->synced = fake_synced;
	rt->list_bound = fake_list_bound;
}

static void cycle(void)
{
	struct vc_error err;

	assert_int_equal(sched_runtime_cycle(rt, &err), 0);
	(void)sched_runtime_drain(rt);
}

/* ---- snapshot -------------------------------------------------------------------------------- */

static struct {
	size_t njobs, nnodes, nqueues;
	char jobs[512];
	char nodes[512];
} seen;

static void describe_snapshot(struct sched_snapshot *snap, struct sched_result *out)
{
	size_t i, k, off = 0;

	(void)out;
	seen.njobs = snap->njobs;
	seen.nnodes = snap->nnodes;
	seen.nqueues = snap->nqueues;
	seen.jobs[0] = '\0';
	seen.nodes[0] = '\0';
	for (i = 0; i < snap->njobs; i++) {
		const struct sched_job_info *j =
			sched_snapshot_job(snap, i == 0 ? "ns/pg-a" : "ns/pg-b");

		assert_non_null(j);
		off += (size_t)snprintf(seen.jobs + off, sizeof(seen.jobs) - off,
					"%s%s q=%s prio=%d:", i ? "; " : "", j->uid, j->queue,
					j->priority);
		/* tasks by name in a fixed order */
		{
			static const char *const names[] = { "a-0", "a-1", "b-0" };
			size_t n;

			for (n = 0; n < VC_ARRAY_SIZE(names); n++)
				for (k = 0; k < j->ntasks; k++)
					if (strcmp(j->tasks[k]->name, names[n]) == 0)
						off += (size_t)snprintf(
							seen.jobs + off, sizeof(seen.jobs) - off,
							" %s=%s@%s", names[n],
							sched_task_status_name(j->tasks[k]->status),
							j->tasks[k]->node_name
								? j->tasks[k]->node_name
								: "-");
		}
	}
	off = 0;
	for (i = 0; i < snap->nnodes; i++) {
		const char *name = i == 0 ? "n1" : "n2";
		const struct sched_node_info *n = sched_snapshot_node(snap, name);

		assert_non_null(n);
		off += (size_t)snprintf(seen.nodes + off, sizeof(seen.nodes) - off,
					"%s%s used=%.0f tasks=%zu", i ? "; " : "", name,
					n->used.milli_cpu, n->ntasks);
	}
}

static void fill_cluster(void)
{
	put(ctx.nodes, node_obj("n1", "a", "4"));
	put(ctx.nodes, node_obj("n2", "b", "4"));
	put(ctx.queues, queue_obj("q1", "1"));
	put(ctx.priorityclasses, pc_obj("high", 100, false));
	put(ctx.priorityclasses, pc_obj("def", 7, true));
	put(ctx.priorityclasses, pc_obj("def-low", 3, true));
	put(ctx.podgroups, pg_obj("pg-a", "q1", "high", "Inqueue", "1"));
	put(ctx.podgroups, pg_obj("pg-b", NULL, NULL, "Running", "1"));
	put(ctx.podgroups, pg_obj("pg-c", "missing", NULL, "Running", "1"));
	put(ctx.pods, pod_obj("a-0", "volcano", "pg-a", NULL, "Pending", "1"));
	put(ctx.pods, pod_obj("a-1", "volcano", "pg-a", "n1", "Running", "1"));
	put(ctx.pods, pod_obj("b-0", "volcano", "pg-b", "n1", "Succeeded", "2"));
	put(ctx.pods, pod_obj("c-0", "volcano", "pg-c", "n2", "Running", "500m"));
	put(ctx.pods, pod_obj("x-0", NULL, NULL, "n1", "Running", "250m"));
	put(ctx.pods, pod_obj("y-0", NULL, NULL, NULL, "Pending", "1"));
	put(ctx.pods, pod_obj("z-0", "volcano", NULL, NULL, "Pending", "1"));
	put(ctx.pods, pod_obj("m-0", "volcano", "no-such-pg", "n2", "Running", "100m"));
}

static void test_snapshot(void **state)
{
	(void)state;
	fill_cluster();
	script = describe_snapshot;
	new_runtime();
	cycle();
	assert_int_equal(seen.nqueues, 3);
	assert_int_equal(seen.njobs, 2); /* pg-c's queue does not exist */
	/* pg-a: PriorityClass high; pg-b: the highest globalDefault; Succeeded b-0 not placed */
	assert_string_equal(seen.jobs, "ns/pg-a q=q1 prio=100: a-0=Pending@- a-1=Running@n1; "
				       "ns/pg-b q=default prio=7: b-0=Succeeded@n1");
	/* n1: a-1 (1 cpu) + x-0 (another scheduler's pod); n2: c-0 and m-0, in no job */
	assert_string_equal(seen.nodes, "n1 used=1250 tasks=2; n2 used=600 tasks=2");
	assert_string_equal(last_now, NOW0);
	assert_int_equal(strlen(last_uid), 36);
	assert_int_equal(last_uid[14], '4');
	/* Nothing to write: no calls at all. */
	assert_int_equal(fk.ncalls, 0);
}

/*
 * What a PodGroup costs the scheduler between cycles: its cached copy (the podgroups informer's
 * cache) and the view the runtime keeps of it. 2,000 PodGroups shaped like those of
 * bench_sched_e2e.sh (one-pod groups: 312 bytes of JSON once the scheduler has written a
 * status), each with a version of its own and a status shared with its session's others.
 * Measured (gcc -O2, glibc 2.36, jansson 2.14): 4,753 bytes per PodGroup with the cache holding
 * jansson objects and the views borrowing them, 1,303 with the cache packed (ctx.c) and the
 * views detached (srt_pg_view_make: spec and status shared, metadata strings in one block).
 */
static void test_podgroup_memory(void **state)
{
	const size_t n = 2000;
	struct vc_cache *c = vc_informer_cache(ctx.podgroups);
	size_t before, after, kept, per;
	char text[1024];
	json_t *pg;
	size_t i;

	(void)state;
	new_runtime();
	cycle();
	before = mallinfo2().uordblks;
	for (i = 0; i < n; i++) {
		snprintf(
			text, sizeof(text),
			"{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"PodGroup\","
			"\"metadata\":{\"creationTimestamp\":\"2026-11-28T10:21:46Z\","
			"\"generation\":2,\"name\":\"p-g%d\",\"namespace\":\"bench\","
			"\"resourceVersion\":\"%d\",\"uid\":\"5284d39a-74d8-4dd1-ba43-%012d\"},"
			"\"spec\":{\"minMember\":1,\"queue\":\"default\"},\"status\":{"
			"\"conditions\":[{\"lastTransitionTime\":\"2026-11-28T10:22:04Z\","
			"\"reason\":\"tasks in gang are ready to be scheduled\",\"status\":\"True\","
			"\"transitionID\":\"9e43833b-fb70-40b6-a74e-339decce1479\","
			"\"type\":\"Scheduled\"}],\"phase\":\"Inqueue\"}}",
			(int)i, 30000 + (int)i, (int)i);
		pg = json_loads(text, 0, NULL);
		assert_non_null(pg);
		put(ctx.podgroups, pg);
	}
	cycle();
	assert_int_equal(vc_cache_count(c), n);
	assert_int_equal(rt->pg_views.count, n);
	cycle(); /* unchanged versions: the views stay */
	assert_int_equal(rt->pg_views.count, n);
	assert_int_equal(rt->nkept, n);
	kept = mallinfo2().uordblks;
	/* The jobs kept for the next snapshot (struct srt_kept) are counted apart: a cycle's
	 * snapshot holds them anyway, so they add to the heap between cycles, not to its peak. */
	srt_kept_release(rt);
	after = mallinfo2().uordblks;
	per = after > before ? (after - before) / n : 0;
	print_message("heap per PodGroup (cache and view): %zu bytes; kept job: %zu bytes\n", per,
		      kept > after ? (kept - after) / n : 0);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	/* Sanitizers replace malloc: mallinfo2 does not see their heap. */
	assert_true(per > 312);
	assert_true(per < 1536);
#endif
}

/* Every job of the snapshot Inqueue with COND_T1's condition and the "ready" Event. */
static void all_inqueue(struct sched_snapshot *snap, struct sched_result *out)
{
	size_t i;

	for (i = 0; i < snap->njobs; i++)
		add_job_result(out, snap->jobs[i], VC_PG_INQUEUE,
			       "[{\"type\":\"Scheduled\",\"status\":\"True\",\"transitionID\":"
			       "\"uid-1\",\"lastTransitionTime\":\"2023-11-14T22:13:20Z\","
			       "\"reason\":\"tasks in gang are ready to be scheduled\","
			       "\"message\":\"\"}]",
			       0, "Normal", "Scheduled", "pod group is ready");
}

/*
 * What a queued PodGroup status write holds until a worker takes it: a cycle that admits 200
 * PodGroups queues 200 writes at once (bench_sched_e2e's first cycle queues 10,000). Measured
 * (gcc -O2, glibc 2.36, jansson 2.14), the new status, its conditions from the result and the
 * write's tracking entry included: 3,019 bytes per write when the cache held jansson objects
 * and each write its body (a copy of the cached PodGroup's members); 3,918 with the cache
 * packed and the body parsed from it at queueing; 2,516 now (the status, the view's shared
 * object, the uid and the version: the worker makes the body and the Event's object).
 */
static void test_podgroup_write_queued_memory(void **state)
{
	const size_t n = 200; /* the fake records 256 calls */
	struct vc_error err;
	size_t before, after, per, i;

	(void)state;
	for (i = 0; i < n; i++) {
		char name[32], rv[32];

		snprintf(name, sizeof(name), "pg-%zu", i);
		snprintf(rv, sizeof(rv), "%zu", 100 + i);
		put(ctx.podgroups, pg_obj(name, NULL, NULL, "Pending", rv));
	}
	new_runtime();
	cycle(); /* the views */
	script = all_inqueue;
	before = mallinfo2().uordblks;
	assert_int_equal(sched_runtime_cycle(rt, &err), 0);
	after = mallinfo2().uordblks;
	per = after > before ? (after - before) / n : 0;
	print_message("heap per queued PodGroup write: %zu bytes\n", per);
	assert_int_equal(sched_runtime_drain(rt), n);
	assert_int_equal(fake_ncalls(&fk), (int)n);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	assert_true(per < 2816);
#endif
}

/* JSON allocations (json_set_alloc_funcs), for counting a cycle's. */
static long json_allocs;

static void *counting_json_malloc(size_t size)
{
	json_allocs++;
	return vc_malloc(size);
}

/*
 * A PodGroup whose status write is still in flight (or waiting for the informer to show it) is
 * not written again, whatever the cycle wants: the cycle builds no status for it either. With
 * 10,000 new PodGroups in a stream, serialising each one's status again in every cycle only to
 * skip the write cost a tenth of the cycle. Counted here as JSON allocations: the second cycle,
 * all writes in flight, makes no more than the scripted results themselves (measured: 31 per
 * PodGroup for the results, 37 more when each skipped status was built and serialised).
 */
static void test_podgroup_in_flight_not_rebuilt(void **state)
{
	const size_t n = 100;
	struct vc_error err;
	long first, second;
	size_t i;

	(void)state;
	for (i = 0; i < n; i++) {
		char name[32], rv[32];

		snprintf(name, sizeof(name), "pg-%zu", i);
		snprintf(rv, sizeof(rv), "%zu", 100 + i);
		put(ctx.podgroups, pg_obj(name, NULL, NULL, "Pending", rv));
	}
	new_runtime();
	cycle(); /* the views */
	script = all_inqueue;
	json_set_alloc_funcs(counting_json_malloc, vc_free);
	json_allocs = 0;
	assert_int_equal(sched_runtime_cycle(rt, &err), 0); /* n writes queued, in flight */
	first = json_allocs;
	json_allocs = 0;
	assert_int_equal(sched_runtime_cycle(rt, &err), 0); /* the same wishes, not written */
	second = json_allocs;
	vc_alloc_install_json();
	print_message("JSON allocations per PodGroup: %ld queueing, %ld in flight\n",
		      first / (long)n, second / (long)n);
	assert_int_equal(sched_runtime_drain(rt), n);
	assert_int_equal(fake_ncalls(&fk), (int)n);
	assert_true(second < first);
	assert_true(second / (long)n < 50);
}

static void test_snapshot_node_selector_and_default_queue(void **state)
{
	(void)state;
	fill_cluster();
	put(ctx.queues, queue_obj("batch", "1"));
	cfg.node_selectors[0] = "zone:a";
	cfg.nnode_selectors = 1;
	cfg.default_queue = "batch";
	script = describe_snapshot;
	new_runtime();
	cycle();
	assert_int_equal(seen.nnodes, 1);
	assert_string_equal(seen.nodes, "n1 used=1250 tasks=2");
	assert_string_equal(seen.jobs, "ns/pg-a q=q1 prio=100: a-0=Pending@- a-1=Running@n1; "
				       "ns/pg-b q=batch prio=7: b-0=Succeeded@n1");
}

static void test_snapshot_no_default_priority(void **state)
{
	(void)state;
	fill_cluster();
	del(ctx.priorityclasses, "def");
	del(ctx.priorityclasses, "def-low");
	script = describe_snapshot;
	new_runtime();
	cycle();
	assert_string_equal(seen.jobs, "ns/pg-a q=q1 prio=100: a-0=Pending@- a-1=Running@n1; "
				       "ns/pg-b q=default prio=0: b-0=Succeeded@n1");
}

/* The tasks of every job, then of every node, by name in snapshot order. */
static void describe_task_order(struct sched_snapshot *snap, struct sched_result *out)
{
	size_t i, k, off = 0;

	(void)out;
	seen.jobs[0] = '\0';
	for (i = 0; i < snap->njobs; i++)
		for (k = 0; k < snap->jobs[i]->ntasks; k++)
			off += (size_t)snprintf(seen.jobs + off, sizeof(seen.jobs) - off, "%s%s",
						off ? "," : "", snap->jobs[i]->tasks[k]->name);
	off = 0;
	seen.nodes[0] = '\0';
	for (i = 0; i < snap->nnodes; i++)
		for (k = 0; k < snap->nodes[i]->ntasks; k++)
			off += (size_t)snprintf(seen.nodes + off, sizeof(seen.nodes) - off, "%s%s",
						off ? "," : "", snap->nodes[i]->tasks[k]->name);
}

/*
 * The snapshot's tasks come in the order of their pods' cache keys, whatever the order the
 * informer saw them in: the order of each job's and node's tasks is that of the session's
 * results and writes.
 */
static void test_snapshot_task_order(void **state)
{
	(void)state;
	put(ctx.nodes, node_obj("n1", "a", "4"));
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Running", "1"));
	put(ctx.pods, pod_obj("p-2", "volcano", "pg", NULL, "Pending", "1"));
	put(ctx.pods, pod_obj("x-1", NULL, NULL, "n1", "Running", "100m"));
	put(ctx.pods, pod_obj("p-10", "volcano", "pg", "n1", "Running", "1"));
	put(ctx.pods, pod_obj("p-1", "volcano", "pg", NULL, "Pending", "1"));
	put(ctx.pods, pod_obj("b-0", "volcano", "pg", "n1", "Running", "1"));
	put(ctx.pods, pod_obj("a-0", NULL, NULL, "n1", "Running", "100m"));
	script = describe_task_order;
	new_runtime();
	cycle();
	assert_string_equal(seen.jobs, "b-0,p-1,p-10,p-2");
	/* The job's bound tasks first (in the job's order), then pods in no job. */
	assert_string_equal(seen.nodes, "b-0,p-10,a-0,x-1");

	/* Deleted and added again, changed, or new: still in key order. */
	del(ctx.pods, "ns/p-1");
	put(ctx.pods, pod_obj("p-1", "volcano", "pg", NULL, "Pending", "1"));
	put(ctx.pods, pod_obj("b-0", "volcano", "pg", "n1", "Running", "2"));
	put(ctx.pods, pod_obj("p-0", "volcano", "pg", NULL, "Pending", "1"));
	cycle();
	assert_string_equal(seen.jobs, "b-0,p-0,p-1,p-10,p-2");
	assert_string_equal(seen.nodes, "b-0,p-10,a-0,x-1");
}

/* ---- snapshots kept from one cycle to the next (struct srt_kept) ---------------------------- */

static char snap_text[8192];
static void (*snap_mutate)(struct sched_snapshot *snap, struct sched_result *out);

static void res_text(char *buf, size_t len, size_t *off, const struct vc_resource *r)
{
	size_t i;

	*off += (size_t)snprintf(buf + *off, len - *off, "(%.17g,%.17g", r->milli_cpu, r->memory);
	for (i = 0; i < r->nscalars; i++)
		*off += (size_t)snprintf(buf + *off, len - *off, ",%s=%.17g", r->scalars[i].name,
					 r->scalars[i].value);
	*off += (size_t)snprintf(buf + *off, len - *off, ")");
}

/* Everything of the snapshot the session reads, in its order, into snap_text; then snap_mutate. */
static void dump_snapshot(struct sched_snapshot *snap, struct sched_result *out)
{
	const size_t len = sizeof(snap_text);
	size_t i, k, off = 0;

	snap_text[0] = '\0';
	for (i = 0; i < snap->njobs; i++) {
		const struct sched_job_info *j = snap->jobs[i];

		off += (size_t)snprintf(snap_text + off, len - off,
					"job %s q=%s prio=%d min=%d phase=%d share=%g pg=%d alloc=",
					j->uid, j->queue, j->priority, j->min_member, (int)j->phase,
					j->share, j->pg != NULL);
		res_text(snap_text, len, &off, &j->allocated);
		off += (size_t)snprintf(snap_text + off, len - off, " req=");
		res_text(snap_text, len, &off, &j->request);
		for (k = 0; k < j->ntasks; k++) {
			const struct sched_task_info *t = j->tasks[k];

			assert_ptr_equal(t->job, j);
			assert_null(t->ssn);
			off += (size_t)snprintf(
				snap_text + off, len - off,
				"\n  task %s uid=%s role=%s prio=%d pre=%d be=%d %s@%s "
				"pod=%s req=",
				t->name, t->uid, t->role, t->priority, t->preemptable,
				t->best_effort, sched_task_status_name(t->status),
				t->node_name ? t->node_name : "-",
				t->pod ? t->pod->meta.resource_version : "-");
			res_text(snap_text, len, &off, &t->req);
		}
		off += (size_t)snprintf(snap_text + off, len - off, "\n");
	}
	for (i = 0; i < snap->nnodes; i++) {
		const struct sched_node_info *n = snap->nodes[i];

		off += (size_t)snprintf(snap_text + off, len - off, "node %s used=", n->name);
		res_text(snap_text, len, &off, &n->used);
		off += (size_t)snprintf(snap_text + off, len - off, " idle=");
		res_text(snap_text, len, &off, &n->idle);
		off += (size_t)snprintf(snap_text + off, len - off, " releasing=");
		res_text(snap_text, len, &off, &n->releasing);
		for (k = 0; k < n->ntasks; k++)
			off += (size_t)snprintf(snap_text + off, len - off, " %s",
						n->tasks[k]->name);
		off += (size_t)snprintf(snap_text + off, len - off, "\n");
	}
	assert_true(off < len);
	if (snap_mutate)
		snap_mutate(snap, out);
}

static void bind_if_pending(struct sched_snapshot *snap, struct sched_result *out, const char *name)
{
	struct sched_task_info *t = task_named(snap, name);

	if (t && t->status == SCHED_TASK_PENDING)
		add_bind(out, t, "n1");
}

/* What a session does to a snapshot's model: binds a pending task, moves phases, evicts. */
static void session_like(struct sched_snapshot *snap, struct sched_result *out)
{
	size_t i, k;

	for (i = 0; i < snap->njobs; i++) {
		struct sched_job_info *j = snap->jobs[i];

		if (strcmp(j->name, "pg-b") == 0)
			j->phase = VC_PG_UNKNOWN; /* as the close does */
		if (strcmp(j->name, "pg-d") == 0)
			j->share = 0.5; /* as drf's close does */
		for (k = 0; k < j->ntasks; k++) {
			struct sched_task_info *t = j->tasks[k];

			if (strcmp(t->name, "e-0") == 0 && t->status == SCHED_TASK_RUNNING)
				t->status = SCHED_TASK_RELEASING; /* a victim, never evicted */
			if (strcmp(t->name, "f-0") == 0 && t->status == SCHED_TASK_RUNNING) {
				/* allocated and discarded: rounding left in the sum */
				j->allocated.milli_cpu += 0.1;
				j->allocated.milli_cpu -= 0.1;
				j->allocated.milli_cpu += 1e-9;
			}
		}
	}
	bind_if_pending(snap, out, "a-0");
}

/* The snapshot a runtime started on the caches as they are now makes (a fresh build). */
static void fresh_snapshot(char *buf, size_t len)
{
	struct sched_runtime *kept_rt = rt;

	rt = NULL;
	snap_mutate = NULL;
	new_runtime();
	cycle();
	snprintf(buf, len, "%s", snap_text);
	assert_int_equal(rt->stats.jobs_reused, 0);
	sched_runtime_free(rt);
	rt = kept_rt;
}

static void settled_cluster(void)
{
	static const char *const groups[] = { "pg-a", "pg-b", "pg-c", "pg-d", "pg-e", "pg-f" };
	char name[32];
	size_t i;

	put(ctx.nodes, node_obj("n1", "a", "8"));
	put(ctx.nodes, node_obj("n2", "b", "8"));
	put(ctx.queues, queue_obj("q1", "1"));
	put(ctx.priorityclasses, pc_obj("high", 200, false));
	for (i = 0; i < VC_ARRAY_SIZE(groups); i++)
		put(ctx.podgroups, pg_obj(groups[i], i % 2 ? "q1" : NULL, i % 2 ? NULL : "high",
					  i == 0 ? "Inqueue" : "Running", "1"));
	put(ctx.pods, pod_obj("a-0", "volcano", "pg-a", NULL, "Pending", "1"));
	for (i = 1; i < VC_ARRAY_SIZE(groups); i++) {
		snprintf(name, sizeof(name), "%c-0", (char)('a' + i));
		put(ctx.pods, pod_obj(name, "volcano", groups[i], i % 2 ? "n1" : "n2", "Running",
				      i == 3 ? "1500m" : "500m"));
	}
	put(ctx.pods, pod_obj("c-1", "volcano", "pg-c", "n1", "Running", "250m"));
	put(ctx.pods, pod_obj("x-0", NULL, NULL, "n1", "Running", "100m"));
}

/* The snapshot of the cycle just run is the one a fresh build of the same caches makes. */
static void assert_as_fresh(void)
{
	static char got[sizeof(snap_text)], fresh[sizeof(snap_text)];

	snprintf(got, sizeof(got), "%s", snap_text);
	fresh_snapshot(fresh, sizeof(fresh));
	assert_string_equal(got, fresh);
}

/*
 * A cycle takes whole the jobs of the last snapshot whose PodGroup and pods did not change and
 * that its session left as built; each snapshot is the one a fresh build of the same caches
 * makes, byte for byte in everything the session reads.
 */
static void test_snapshot_kept_jobs(void **state)
{
	(void)state;
	settled_cluster();
	script = dump_snapshot;
	snap_mutate = session_like;
	new_runtime();
	cycle();
	assert_int_equal(rt->stats.jobs_reused, 0);
	/* The session bound a-0 (pg-a), chose a victim in pg-e: those are built again; pg-b's
	 * phase is the PodGroup's again, pg-d's share cleared, pg-f's sum made again, as a build
	 * makes them. */
	assert_int_equal(rt->nkept, 4);

	/* Nothing changed in the caches: pg-b, pg-c, pg-d, pg-f come whole; pg-a has a bind
	 * assumed. */
	snap_mutate = NULL;
	cycle();
	assert_int_equal(rt->stats.jobs_reused, 4);
	assert_non_null(strstr(snap_text, "task a-0 uid=a-0 role= prio=1 pre=1 be=0 Binding@n1"));
	assert_int_equal(rt->nkept, 5);
	/* The informer shows the bind: the assumption is dropped, pg-a is built again. */
	put(ctx.pods, pod_obj("a-0", "volcano", "pg-a", "n1", "Pending", "1"));
	cycle();
	assert_int_equal(rt->stats.jobs_reused, 4 + 5);
	assert_as_fresh();

	/* A pod changes, one is deleted, one is added to a kept job; a PodGroup changes, one is
	 * deleted; a PriorityClass changes (pg-a's, kept: its priority follows). */
	put(ctx.pods, pod_obj("b-0", "volcano", "pg-b", "n1", "Running", "700m"));
	del(ctx.pods, "ns/c-1");
	put(ctx.pods, pod_obj("d-1", "volcano", "pg-d", "n2", "Running", "100m"));
	put(ctx.podgroups, pg_obj("pg-e", "q1", NULL, "Unknown", "2"));
	del(ctx.podgroups, "ns/pg-f");
	put(ctx.priorityclasses, pc_obj("high", 300, false));
	cycle();
	assert_int_equal(rt->stats.jobs_reused, 4 + 5 + 1); /* pg-a alone */
	assert_non_null(strstr(snap_text, "job ns/pg-a q=default prio=300"));
	assert_as_fresh();
	cycle();
	assert_int_equal(rt->stats.jobs_reused, 4 + 5 + 1 + 5);
	assert_as_fresh();

	/* An eviction the runtime assumes: pg-d is built again, its task Releasing. */
	pthread_mutex_lock(&rt->mu);
	{
		struct srt_evicted *e = vc_calloc(1, sizeof(*e));

		assert_non_null(e);
		e->in_flight = true;
		assert_int_equal(srt_map_put(&rt->evicted, "d-0", e), 0);
	}
	pthread_mutex_unlock(&rt->mu);
	cycle();
	assert_int_equal(rt->stats.jobs_reused, 4 + 5 + 1 + 5 + 4);
	assert_non_null(strstr(snap_text, "task d-0 uid=d-0 role= prio=1 pre=1 be=0 Releasing@n1"));
}

/* The calling thread's CPU time: the cycle runs on it (no workers), and a shared machine's
 * load moves wall times far more than the differences measured here. */
static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * What the kept jobs save in a stream (issue 18): VC_BENCH_KEPT=N runs N settled one-pod jobs on
 * 500 nodes, then cycles of the real session (Volcano's default configuration) that each see 20
 * new one-pod jobs arrive and the last cycle's binds show in the cache, alternating a cycle that
 * takes the kept jobs with one that builds every job again (srt_kept_release first), and prints
 * the median CPU time of each (sched_runtime_cycle, without running the writes). Skipped
 * without VC_BENCH_KEPT: `VC_BENCH_KEPT=10000 build/tests/test_sched_runtime`.
 */
static void test_bench_kept_jobs(void **state)
{
	const char *env = getenv("VC_BENCH_KEPT");
	enum {
		REPS = 10,
		NEW = 20
	};
	int64_t n, times[2][REPS];
	struct vc_error err;
	json_t *pg, *conds;
	char name[80], group[64], node[32];
	int64_t i, k;
	int rep;

	(void)state;
	if (!env || vc_parse_int64(env, &n) < 0 || n <= 0)
		skip();
	conds = json_loads("[{\"type\":\"Scheduled\",\"status\":\"True\",\"transitionID\":"
			   "\"uid-1\",\"lastTransitionTime\":\"2023-11-14T22:13:20Z\","
			   "\"reason\":\"tasks in gang are ready to be scheduled\"}]",
			   0, NULL);
	assert_non_null(conds);
	for (i = 0; i < 500; i++) {
		snprintf(node, sizeof(node), "n%lld", (long long)i);
		put(ctx.nodes, node_obj(node, "a", "64"));
	}
	for (i = 0; i < n; i++) {
		snprintf(group, sizeof(group), "s-%lld", (long long)i);
		snprintf(name, sizeof(name), "s-%lld-0", (long long)i);
		snprintf(node, sizeof(node), "n%lld", (long long)(i % 500));
		pg = pg_obj(group, NULL, NULL, "Running", "1");
		/* The status the session wants: nothing to write for a settled job. */
		assert_int_equal(vc_json_set_path_new(pg, "status.running", json_integer(1)), 0);
		assert_int_equal(vc_json_set_path_new(pg, "status.conditions", json_incref(conds)),
				 0);
		put(ctx.podgroups, pg);
		put(ctx.pods, pod_obj(name, "volcano", group, node, "Running", "100m"));
	}
	json_decref(conds);
	cfg.session_run = NULL;
	new_runtime();
	cycle();
	fake_reset_calls(&fk);
	for (rep = 0; rep < 2 * REPS; rep++) {
		int64_t t0;

		for (k = 0; k < NEW; k++) {
			struct srt_assumed *a;

			/* The last cycle's new pods, bound where it sent them. */
			if (rep > 0) {
				snprintf(group, sizeof(group), "p-%d-%lld", rep - 1, (long long)k);
				snprintf(name, sizeof(name), "%s-0", group);
				a = srt_map_get(&rt->assumed, name);
				if (a)
					put(ctx.pods, pod_obj(name, "volcano", group, a->node,
							      "Running", "100m"));
			}
			snprintf(group, sizeof(group), "p-%d-%lld", rep, (long long)k);
			snprintf(name, sizeof(name), "%s-0", group);
			put(ctx.podgroups, pg_obj(group, NULL, NULL, "Pending", "1"));
			put(ctx.pods, pod_obj(name, "volcano", group, NULL, "Pending", "100m"));
		}
		if (rep % 2)
			srt_kept_release(rt);
		t0 = cpu_ns();
		assert_int_equal(sched_runtime_cycle(rt, &err), 0);
		times[rep % 2][rep / 2] = cpu_ns() - t0;
		(void)sched_runtime_drain(rt);
		if (rep == 1)
			print_message("calls of a stream cycle: %d\n", fk.ncalls);
		fake_reset_calls(&fk);
	}
	qsort(times[0], REPS, sizeof(int64_t), cmp_i64);
	qsort(times[1], REPS, sizeof(int64_t), cmp_i64);
	print_message(
		"settled jobs %lld, %d new per cycle: cycle CPU median %.1f ms with the kept jobs, "
		"%.1f ms building every job (x%.2f); reused %llu\n",
		(long long)n, NEW, (double)times[0][REPS / 2] / 1e6,
		(double)times[1][REPS / 2] / 1e6,
		(double)times[0][REPS / 2] / (double)times[1][REPS / 2],
		(unsigned long long)rt->stats.jobs_reused);
}

/* ---- binds ----------------------------------------------------------------------------------- */

static char seen_status[64];
static char seen_tasks[256];

/* The names of the tasks of every job, in job order, joined by ",". */
static void describe_tasks(struct sched_snapshot *snap, struct sched_result *out)
{
	size_t i, k, off = 0;

	(void)out;
	seen_tasks[0] = '\0';
	for (i = 0; i < snap->njobs; i++)
		for (k = 0; k < snap->jobs[i]->ntasks; k++)
			off += (size_t)snprintf(seen_tasks + off, sizeof(seen_tasks) - off, "%s%s",
						off ? "," : "", snap->jobs[i]->tasks[k]->name);
}

static void bind_pending(struct sched_snapshot *snap, struct sched_result *out)
{
	struct sched_task_info *t = task_named(snap, "p-0");

	assert_non_null(t);
	snprintf(seen_status, sizeof(seen_status), "%s@%s", sched_task_status_name(t->status),
		 t->node_name ? t->node_name : "-");
	if (t->status == SCHED_TASK_PENDING)
		add_bind(out, t, "n1");
}

static void one_pending_pod(void)
{
	put(ctx.nodes, node_obj("n1", "a", "4"));
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Inqueue", "1"));
	put(ctx.pods, pod_obj("p-0", "volcano", "pg", NULL, "Pending", "1"));
}

static void test_bind(void **state)
{
	char buf[1024];
	int i;

	(void)state;
	one_pending_pod();
	script = bind_pending;
	new_runtime();
	cycle();
	assert_string_equal(seen_status, "Pending@-");
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "C pods ns/p-0/binding");
	i = fake_find_call(&fk, 'C', "pods", "p-0", "binding");
	expect_json(fk.calls[i].body,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Binding\","
		    "\"metadata\":{\"name\":\"p-0\",\"namespace\":\"ns\","
		    "\"uid\":\"p-0\"},\"target\":{\"kind\":\"Node\",\"name\":\"n1\"}}");
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "Normal Scheduled Pod/p-0: Successfully assigned ns/p-0 to n1");
	fake_reset_calls(&fk);

	/* The cache still shows the pod unbound: the task stays Binding on n1
	 * (docs/volcano/scheduler.md §1.1). */
	cycle();
	assert_string_equal(seen_status, "Binding@n1");
	assert_int_equal(fk.ncalls, 0);

	/* The informer shows the binding: the assumption is dropped. */
	put(ctx.pods, pod_obj("p-0", "volcano", "pg", "n1", "Pending", "1"));
	cycle();
	assert_string_equal(seen_status, "Bound@n1");
	assert_int_equal(rt->assumed.count, 0);
	assert_int_equal(fk.ncalls, 0);
}

static void test_bind_assumption_expires(void **state)
{
	(void)state;
	one_pending_pod();
	script = bind_pending;
	new_runtime();
	cycle();
	fake_reset_calls(&fk);
	fake_clock_advance(SRT_ASSUME_TTL_NS - SEC);
	cycle();
	assert_string_equal(seen_status, "Binding@n1");
	fake_clock_advance(2 * SEC);
	cycle(); /* seen stale: swept after this snapshot */
	assert_string_equal(seen_status, "Binding@n1");
	assert_int_equal(rt->assumed.count, 0);
	fake_reset_calls(&fk);
	cycle(); /* pending again: bound anew */
	assert_string_equal(seen_status, "Pending@-");
	assert_int_equal(fake_find_call(&fk, 'C', "pods", "p-0", "binding"), 0);
}

static void test_bind_failure(void **state)
{
	struct sched_runtime_stats st;
	char buf[1024];
	int i;

	(void)state;
	one_pending_pod();
	script = bind_pending;
	new_runtime();
	fake_fail_call(&fk, 'C', "pods", "binding", VC_ECONFLICT,
		       "Operation cannot be fulfilled on pods/binding \"p-0\": pod p-0 is already "
		       "assigned to node \"n2\"");
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "C pods ns/p-0/binding; P pods ns/p-0/status");
	i = fake_find_call(&fk, 'P', "pods", "p-0", "status");
	assert_int_equal(fk.calls[i].type, VC_PATCH_STRATEGIC);
	expect_json(fk.calls[i].body,
		    "{\"status\":{\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\","
		    "\"reason\":\"SchedulerError\",\"message\":\"failed to bind to node n1: "
		    "Operation cannot be fulfilled on pods/binding \\\"p-0\\\": pod p-0 is already "
		    "assigned to node \\\"n2\\\"\",\"lastTransitionTime\":\"" NOW0 "\"}]}}");
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "Warning FailedScheduling Pod/p-0: failed to bind to node n1: "
				 "Operation cannot be fulfilled on pods/binding \"p-0\": pod p-0 "
				 "is already assigned to node \"n2\"");
	sched_runtime_stats(rt, &st);
	assert_int_equal(st.binds, 0);
	assert_int_equal(st.bind_errors, 1);
	assert_int_equal(rt->assumed.count, 0);
	assert_int_not_equal(rt->kick_at, 0);
	fake_reset_calls(&fk);

	/* Back to Pending: the next cycle binds it again. */
	cycle();
	assert_string_equal(seen_status, "Pending@-");
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "C pods ns/p-0/binding");
}

static void test_bind_pod_gone(void **state)
{
	char buf[512];

	(void)state;
	one_pending_pod();
	script = bind_pending;
	new_runtime();
	fake_fail_call(&fk, 'C', "pods", "binding", VC_ENOTFOUND, "pods \"p-0\" not found");
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "C pods ns/p-0/binding");
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "");
}

/* ---- PodGroup status ------------------------------------------------------------------------- */

static enum vc_pg_phase want_phase;
static int32_t want_running;
static const char *want_conditions;

static void pg_result(struct sched_snapshot *snap, struct sched_result *out)
{
	struct sched_job_info *j = sched_snapshot_job(snap, "ns/pg");

	assert_non_null(j);
	add_job_result(out, j, want_phase, want_conditions, want_running,
		       want_phase == VC_PG_RUNNING ? "Normal" : "Warning",
		       want_phase == VC_PG_RUNNING ? "Scheduled" : "Unschedulable",
		       want_phase == VC_PG_RUNNING ? "pod group is ready"
						   : "0/0 tasks in gang unschedulable: x");
}

#define COND_T1                                                                                       \
	"[{\"type\":\"Scheduled\",\"status\":\"True\",\"transitionID\":\"uid-1\","                    \
	"\"lastTransitionTime\":\"2023-11-14T22:13:20Z\",\"reason\":\"tasks in gang are ready to be " \
	"scheduled\",\"message\":\"\"}]"
#define COND_T2                                                                                       \
	"[{\"type\":\"Scheduled\",\"status\":\"True\",\"transitionID\":\"uid-2\","                    \
	"\"lastTransitionTime\":\"2023-11-14T22:13:29Z\",\"reason\":\"tasks in gang are ready to be " \
	"scheduled\",\"message\":\"\"}]"

static void test_podgroup_status(void **state)
{
	struct sched_runtime_stats st;
	char buf[1024];
	json_t *pg;
	int i;

	(void)state;
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Pending", "10"));
	script = pg_result;
	want_phase = VC_PG_INQUEUE;
	want_conditions = COND_T1;
	want_running = 0;
	new_runtime();
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "U podgroups ns/pg");
	i = fake_find_call(&fk, 'U', "podgroups", "pg", NULL);
	/* The whole object, the cached resourceVersion, the new status. */
	expect_json(fk.calls[i].body,
		    "{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"PodGroup\","
		    "\"metadata\":{\"name\":\"pg\",\"namespace\":\"ns\",\"uid\":\"pg\","
		    "\"resourceVersion\":\"10\"},\"spec\":{\"minMember\":1},"
		    "\"status\":{\"phase\":\"Inqueue\",\"conditions\":" COND_T1 "}}");
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "Warning Unschedulable PodGroup/pg: 0/0 tasks in gang "
				 "unschedulable: x");
	fake_reset_calls(&fk);

	/* The cache has not caught up: the same write is not repeated; the event is throttled. */
	want_conditions = COND_T2;
	cycle();
	cycle();
	assert_int_equal(fk.ncalls, 0);
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "");

	/* The cache shows the write: equal but for transitionID and time, nothing to write. */
	pg = pg_obj("pg", NULL, NULL, "Inqueue", "11");
	assert_int_equal(json_object_set_new(json_object_get(pg, "status"), "conditions",
					     json_loads(COND_T1, 0, NULL)),
			 0);
	put(ctx.podgroups, pg);
	cycle();
	assert_int_equal(fk.ncalls, 0);
	/* Kept only to pace message-only rewrites (SRT_PG_MESSAGE_NS). */
	assert_int_equal(rt->track.count, 1);
	assert_true(((struct srt_track *)srt_map_get(&rt->track, "pg/ns/pg"))->settled);

	/* Running: written, with "pod group is ready". */
	want_phase = VC_PG_RUNNING;
	want_running = 1;
	cycle();
	i = fake_find_call(&fk, 'U', "podgroups", "pg", NULL);
	expect_json(json_object_get(fk.calls[i].body, "status"),
		    "{\"phase\":\"Running\",\"running\":1,\"conditions\":" COND_T2 "}");
	assert_string_equal(
		json_string_value(vc_json_path(fk.calls[i].body, "metadata.resourceVersion")),
		"11");
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "Normal Scheduled PodGroup/pg: pod group is ready");
	sched_runtime_stats(rt, &st);
	assert_int_equal(st.pg_writes, 2);
}

static void test_podgroup_conflict(void **state)
{
	struct sched_runtime_stats st;
	char buf[512];

	(void)state;
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Pending", "10"));
	script = pg_result;
	want_phase = VC_PG_INQUEUE;
	want_conditions = NULL;
	want_running = 0;
	new_runtime();
	fake_fail_call(
		&fk, 'U', "podgroups", NULL, VC_ECONFLICT,
		"Operation cannot be fulfilled on podgroups.scheduling.volcano.sh \"pg\": the "
		"object has been modified; please apply your changes to the latest version and "
		"try again");
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "U podgroups ns/pg");
	sched_runtime_stats(rt, &st);
	assert_int_equal(st.pg_conflicts, 1);
	assert_int_not_equal(rt->kick_at, 0);
	fake_reset_calls(&fk);
	/* Same stale version in the cache: wait for the informer. */
	cycle();
	assert_int_equal(fk.ncalls, 0);
	/* A newer version (someone else's write): decide again from it. */
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Pending", "12"));
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "U podgroups ns/pg");
	assert_string_equal(
		json_string_value(vc_json_path(fk.calls[0].body, "metadata.resourceVersion")),
		"12");
	expect_json(json_object_get(fk.calls[0].body, "status"), "{\"phase\":\"Inqueue\"}");
}

static void test_podgroup_error_retried_later(void **state)
{
	char buf[512];

	(void)state;
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Pending", "10"));
	script = pg_result;
	want_phase = VC_PG_INQUEUE;
	want_conditions = NULL;
	new_runtime();
	fake_fail_call(&fk, 'U', "podgroups", NULL, VC_ESERVER, "etcdserver: request timed out");
	cycle();
	fake_reset_calls(&fk);
	cycle(); /* within SRT_RETRY_NS: identical failed write not repeated */
	assert_int_equal(fk.ncalls, 0);
	fake_clock_advance(SRT_RETRY_NS);
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "U podgroups ns/pg");
}

/* ---- pod conditions -------------------------------------------------------------------------- */

static const char *want_message;
static const char *want_nominated;

static void task_result(struct sched_snapshot *snap, struct sched_result *out)
{
	add_task_result(out, task_named(snap, "p-0"), "Unschedulable", want_message,
			want_nominated);
}

static void test_pod_condition(void **state)
{
	char buf[1024];
	json_t *pod;

	(void)state;
	one_pending_pod();
	script = task_result;
	want_message = "0/1 nodes are unavailable: 1 Insufficient cpu.";
	want_nominated = NULL;
	new_runtime();
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "P pods ns/p-0/status");
	assert_int_equal(fk.calls[0].type, VC_PATCH_STRATEGIC);
	expect_json(fk.calls[0].body,
		    "{\"status\":{\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\","
		    "\"reason\":\"Unschedulable\",\"message\":\"0/1 nodes are unavailable: 1 "
		    "Insufficient cpu.\",\"lastTransitionTime\":\"" NOW0 "\"}]}}");
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "Warning FailedScheduling Pod/p-0: 0/1 nodes are unavailable: 1 "
				 "Insufficient cpu.");
	fake_reset_calls(&fk);

	/* Repeated before the informer shows it: not written again. */
	cycle();
	assert_int_equal(fk.ncalls, 0);

	/* The cache shows it: nothing to do. */
	pod = pod_obj("p-0", "volcano", "pg", NULL, "Pending", "1");
	assert_int_equal(vc_json_set_path_new(pod, "metadata.resourceVersion", json_string("6")),
			 0);
	assert_int_equal(
		vc_json_set_path_new(pod, "status.conditions",
				     json_pack("[{s:s, s:s, s:s, s:s, s:s}]", "type",
					       "PodScheduled", "status", "False", "reason",
					       "Unschedulable", "message", want_message,
					       "lastTransitionTime", "2023-11-14T20:00:00Z")),
		0);
	put(ctx.pods, pod);
	fake_clock_advance(5 * SEC);
	cycle();
	assert_int_equal(fk.ncalls, 0);

	/* A new message, with nominatedNodeName: lastTransitionTime kept (status unchanged). */
	want_message = "Pod ns/p-0 can possibly be assigned to n1, once resource is released and "
		       "minAvailable is satisfied";
	want_nominated = "n1";
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "P pods ns/p-0/status");
	expect_json(fk.calls[0].body,
		    "{\"status\":{\"nominatedNodeName\":\"n1\",\"conditions\":[{\"type\":"
		    "\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\","
		    "\"message\":\"Pod ns/p-0 can possibly be assigned to n1, once resource is "
		    "released and minAvailable is satisfied\",\"lastTransitionTime\":"
		    "\"2023-11-14T20:00:00Z\"}]}}");
}

/*
 * Volcano's RBAC (pods/status: update only): the condition is PUT into the pod as the API server
 * has it. A PUT of pods/status also writes labels and annotations, and the scheduler's cached pod
 * is a slim view: a PUT of that stripped a Job's pod of its volcano.sh annotations, and the job
 * controller lost sight of it (seen in test_volcano_install).
 */
static void test_pod_condition_forbidden_patch(void **state)
{
	json_t *live = pod_obj("p-0", "volcano", "pg", NULL, "Pending", "1");
	const json_t *b;
	char buf[1024];

	(void)state;
	one_pending_pod();
	assert_int_equal(vc_json_set_path_new(live,
					      "metadata.annotations[\"volcano.sh/job-version\"]",
					      json_string("3")),
			 0);
	fake_put(&fk, &vc_gvr_pods, live);
	script = task_result;
	want_message = "0/1 nodes are unavailable: 1 Insufficient cpu.";
	want_nominated = "n1";
	fake_fail_call(&fk, 'P', "pods", "status", VC_EFORBIDDEN, "pods \"p-0\" is forbidden");
	new_runtime();
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "P pods ns/p-0/status; G pods ns/p-0; U pods ns/p-0/status");
	b = fk.calls[2].body;
	assert_string_equal(vc_json_get_str(b, "kind"), "Pod");
	{
		json_t *stored = fake_stored(&fk, &vc_gvr_pods, "ns/p-0");

		/* The API server's resourceVersion, not the cached "5". */
		assert_string_equal(
			json_string_value(vc_json_path(b, "metadata.resourceVersion")),
			json_string_value(vc_json_path(stored, "metadata.resourceVersion")));
		assert_string_not_equal(
			json_string_value(vc_json_path(b, "metadata.resourceVersion")), "5");
		json_decref(stored);
	}
	assert_string_equal(json_string_value(vc_json_path(
				    b, "metadata.annotations[\"volcano.sh/job-version\"]")),
			    "3");
	assert_string_equal(json_string_value(vc_json_path(b, "status.phase")), "Pending");
	assert_string_equal(json_string_value(vc_json_path(b, "status.nominatedNodeName")), "n1");
	expect_json(vc_json_path(b, "status.conditions"),
		    "[{\"type\":\"PodScheduled\",\"status\":\"False\",\"reason\":"
		    "\"Unschedulable\",\"message\":\"0/1 nodes are unavailable: 1 Insufficient "
		    "cpu.\",\"lastTransitionTime\":\"" NOW0 "\"}]");
	assert_non_null(vc_json_path(b, "spec.containers"));
}

static void test_pod_condition_gated(void **state)
{
	json_t *pod = pod_obj("p-0", "volcano", "pg", NULL, "Pending", "1");

	(void)state;
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Inqueue", "1"));
	assert_int_equal(vc_json_set_path_new(pod, "spec.schedulingGates",
					      json_pack("[{s:s}]", "name", "gate")),
			 0);
	put(ctx.pods, pod);
	script = task_result;
	want_message = "x";
	want_nominated = NULL;
	new_runtime();
	cycle();
	assert_int_equal(fk.ncalls, 0);
}

/* ---- queue status ---------------------------------------------------------------------------- */

static double want_cpu, want_gpu;

static void queue_result(struct sched_snapshot *snap, struct sched_result *out)
{
	struct sched_queue_info *q = sched_snapshot_queue(snap, "default");

	assert_non_null(q);
	out->queues = vc_calloc(1, sizeof(*out->queues));
	if (!out->queues)
		return;
	out->nqueues = 1;
	out->queues[0].queue = q;
	vc_resource_init(&out->queues[0].allocated);
	out->queues[0].allocated.milli_cpu = want_cpu;
	out->queues[0].allocated.memory = 1024.0 * 1024 * 1024;
	if (want_gpu > 0 &&
	    vc_resource_set_scalar(&out->queues[0].allocated, "nvidia.com/gpu", want_gpu))
		out->queues[0].allocated.milli_cpu = -1; /* noticed by the exact tests */
}

static void test_queue_status(void **state)
{
	json_t *q = queue_obj("default", "3");
	char buf[512];

	(void)state;
	assert_int_equal(vc_json_set_path_new(q, "status.allocated",
					      json_pack("{s:s, s:s, s:s}", "cpu", "1", "memory",
							"1Gi", "example.com/foo", "2")),
			 0);
	put(ctx.queues, q);
	script = queue_result;
	want_cpu = 2000;
	want_gpu = 1000;
	new_runtime();
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "P queues default/status");
	assert_int_equal(fk.calls[0].type, VC_PATCH_MERGE);
	expect_json(fk.calls[0].body,
		    "{\"status\":{\"allocated\":{\"cpu\":\"2\",\"memory\":"
		    "\"1Gi\",\"nvidia.com/gpu\":\"1\",\"example.com/foo\":null}}}");
	fake_reset_calls(&fk);
	cycle();
	assert_int_equal(fk.ncalls, 0);

	/* Semantically equal ("1000m" vs 1 cpu): nothing written. */
	q = queue_obj("default", "4");
	assert_int_equal(
		vc_json_set_path_new(q, "status.allocated",
				     json_pack("{s:s, s:s}", "cpu", "1000m", "memory", "1024Mi")),
		0);
	put(ctx.queues, q);
	want_cpu = 1000;
	want_gpu = 0;
	cycle();
	assert_int_equal(fk.ncalls, 0);
}

/*
 * Volcano's ClusterRole volcano-scheduler grants queues/status `update` only: a Forbidden patch
 * turns Queue status writes into PUTs of the cached Queue, from then on.
 */
static void test_queue_status_forbidden_patch(void **state)
{
	json_t *q = queue_obj("default", "3");
	char buf[512];

	(void)state;
	assert_int_equal(
		vc_json_set_path_new(q, "status.allocated",
				     json_pack("{s:s, s:s}", "cpu", "1", "example.com/foo", "2")),
		0);
	put(ctx.queues, q);
	script = queue_result;
	want_cpu = 2000;
	want_gpu = 0;
	fake_fail_call(&fk, 'P', "queues", "status", VC_EFORBIDDEN,
		       "queues.scheduling.volcano.sh \"default\" is forbidden");
	new_runtime();
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "P queues default/status; U queues default/status");
	assert_string_equal(vc_json_get_str(fk.calls[1].body, "kind"), "Queue");
	assert_string_equal(
		json_string_value(vc_json_path(fk.calls[1].body, "metadata.resourceVersion")), "3");
	expect_json(vc_json_path(fk.calls[1].body, "status.allocated"),
		    "{\"cpu\":\"2\",\"memory\":\"1Gi\"}");

	/* The next change goes straight to a PUT. */
	fake_reset_calls(&fk);
	q = queue_obj("default", "4");
	assert_int_equal(vc_json_set_path_new(q, "status.allocated",
					      json_pack("{s:s, s:s}", "cpu", "2", "memory", "1Gi")),
			 0);
	put(ctx.queues, q);
	want_cpu = 3000;
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "U queues default/status");
}

/* ---- evictions ------------------------------------------------------------------------------- */

static void evict_result(struct sched_snapshot *snap, struct sched_result *out)
{
	struct sched_task_info *t = task_named(snap, "r-0");

	assert_non_null(t);
	snprintf(seen_status, sizeof(seen_status), "%s", sched_task_status_name(t->status));
	if (t->status != SCHED_TASK_RUNNING)
		return;
	out->evicts = vc_calloc(1, sizeof(*out->evicts));
	assert_non_null(out->evicts);
	out->nevicts = 1;
	out->evicts[0].task = t;
	out->evicts[0].reason = "preempt";
}

static void test_evict(void **state)
{
	char buf[1024];
	json_t *pod;
	int i;

	(void)state;
	put(ctx.nodes, node_obj("n1", "a", "4"));
	put(ctx.podgroups, pg_obj("low", NULL, NULL, "Running", "1"));
	put(ctx.pods, pod_obj("r-0", "volcano", "low", "n1", "Running", "1"));
	script = evict_result;
	new_runtime();
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "P pods ns/r-0/status; D pods ns/r-0");
	i = fake_find_call(&fk, 'P', "pods", "r-0", "status");
	assert_int_equal(fk.calls[i].type, VC_PATCH_STRATEGIC);
	expect_json(fk.calls[i].body,
		    "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\","
		    "\"reason\":\"Evict\",\"message\":\"Pod is evicted, because of preempt\","
		    "\"lastTransitionTime\":\"" NOW0 "\"},{\"type\":\"DisruptionTarget\","
		    "\"status\":\"True\",\"reason\":\"PreemptionByScheduler\",\"message\":"
		    "\"volcano: preempting to accommodate a higher priority pod\","
		    "\"lastTransitionTime\":\"" NOW0 "\"}]}}");
	i = fake_find_call(&fk, 'D', "pods", "r-0", NULL);
	assert_string_equal(fk.calls[i].precondition, "r-0");
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "Normal Evict PodGroup/low: preempt; "
				 "Warning Evict Pod/r-0: Pod is evicted, because of preempt");
	fake_reset_calls(&fk);
	/* Until the pod shows its deletion it is Releasing, and not evicted twice. */
	cycle();
	assert_string_equal(seen_status, "Releasing");
	assert_int_equal(fk.ncalls, 0);
	pod = pod_obj("r-0", "volcano", "low", "n1", "Running", "1");
	assert_int_equal(vc_json_set_path_new(pod, "metadata.deletionTimestamp", json_string(NOW0)),
			 0);
	put(ctx.pods, pod);
	cycle();
	assert_string_equal(seen_status, "Releasing");
	assert_int_equal(rt->evicted.count, 0);
}

static void test_evict_failure(void **state)
{
	struct sched_runtime_stats st;
	char buf[512];

	(void)state;
	put(ctx.nodes, node_obj("n1", "a", "4"));
	put(ctx.podgroups, pg_obj("low", NULL, NULL, "Running", "1"));
	put(ctx.pods, pod_obj("r-0", "volcano", "low", "n1", "Running", "1"));
	script = evict_result;
	new_runtime();
	fake_fail_call(&fk, 'P', "pods", "status", VC_EFORBIDDEN, "forbidden");
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "P pods ns/r-0/status"); /* no DELETE after a failed update */
	sched_runtime_stats(rt, &st);
	assert_int_equal(st.eviction_errors, 1);
	fake_reset_calls(&fk);
	cycle();
	assert_string_equal(seen_status, "Running");
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "P pods ns/r-0/status; D pods ns/r-0");
}

/* ---- default queues -------------------------------------------------------------------------- */

static void test_default_queues(void **state)
{
	char buf[512];
	int i;

	(void)state;
	del(ctx.queues, "default");
	del(ctx.queues, "root");
	new_runtime();
	fake_fail_call(&fk, 'C', "queues", NULL, VC_EALREADYEXISTS,
		       "queues.scheduling.volcano.sh \"root\" already exists");
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "C queues root; C queues default; P queues default/status");
	i = fake_find_call(&fk, 'C', "queues", "root", NULL);
	expect_json(fk.calls[i].body, "{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\","
				      "\"kind\":\"Queue\",\"metadata\":{\"name\":\"root\"},"
				      "\"spec\":{\"weight\":1,\"reclaimable\":false}}");
	i = fake_find_call(&fk, 'C', "queues", "default", NULL);
	expect_json(fk.calls[i].body, "{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\","
				      "\"kind\":\"Queue\",\"metadata\":{\"name\":\"default\"},"
				      "\"spec\":{\"weight\":1,\"reclaimable\":true}}");
	i = fake_find_call(&fk, 'P', "queues", "default", "status");
	assert_int_equal(fk.calls[i].type, VC_PATCH_MERGE);
	expect_json(fk.calls[i].body, "{\"status\":{\"state\":\"Open\"}}");
	fake_reset_calls(&fk);
	cycle();
	assert_int_equal(fk.ncalls, 0);
}

/* Volcano's RBAC (queues/status: update only): the new queue is opened by a PUT. */
static void test_default_queues_forbidden_patch(void **state)
{
	char buf[512];
	int i;

	(void)state;
	del(ctx.queues, "default");
	new_runtime();
	fake_fail_call(&fk, 'P', "queues", "status", VC_EFORBIDDEN,
		       "queues.scheduling.volcano.sh \"default\" is forbidden");
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "C queues default; P queues default/status; "
				 "U queues default/status");
	i = fake_find_call(&fk, 'U', "queues", "default", "status");
	assert_string_equal(json_string_value(vc_json_path(fk.calls[i].body, "status.state")),
			    "Open");
	assert_string_equal(vc_json_get_str(fk.calls[i].body, "kind"), "Queue");
}

static void test_default_queues_retried(void **state)
{
	char buf[512];

	(void)state;
	del(ctx.queues, "root");
	new_runtime();
	fake_fail_call(&fk, 'C', "queues", NULL, VC_ESERVER, "the server is down");
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "C queues root");
	fake_reset_calls(&fk);
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "C queues root; P queues root/status");
}

/* ---- configuration --------------------------------------------------------------------------- */

static char conf_path[64];

static void write_conf(const char *text)
{
	FILE *f = fopen(conf_path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_conf_reload(void **state)
{
	struct sched_runtime_stats st;
	struct vc_error err;
	int fd;

	(void)state;
	snprintf(conf_path, sizeof(conf_path), "/tmp/test_sched_runtime_XXXXXX");
	fd = mkstemp(conf_path);
	assert_true(fd >= 0);
	close(fd);
	write_conf("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n");
	cfg.conf_path = conf_path;
	new_runtime();
	cycle();
	assert_int_equal(last_conf->nactions, 2);
	assert_string_equal(last_conf->actions[1], "allocate");

	/* A new file (a different size, so the change is seen whatever the mtime resolution). */
	write_conf(
		"actions: \"enqueue, allocate, backfill\"\ntiers:\n- plugins:\n  - name: gang\n");
	cycle();
	assert_int_equal(last_conf->nactions, 3);
	sched_runtime_stats(rt, &st);
	assert_int_equal(st.conf_reloads, 1);

	/* Invalid (an unknown key is only skipped; a value of the wrong type does not parse):
	 * logged, the previous configuration stays. */
	write_conf("actions: [enqueue, allocate, backfill]\nbogus: 1\n");
	cycle();
	cycle();
	assert_int_equal(last_conf->nactions, 3);
	sched_runtime_stats(rt, &st);
	assert_int_equal(st.conf_errors, 1);
	assert_int_equal(st.conf_reloads, 1);

	/* Unreadable at start: new fails and names the file. */
	sched_runtime_free(rt);
	rt = NULL;
	unlink(conf_path);
	assert_int_equal(sched_runtime_new(&ctx, &cfg, &rt, &err), -ENOENT);
	assert_null(rt);
	assert_non_null(strstr(err.text, conf_path));
}

static void test_conf_invalid_at_start(void **state)
{
	struct sched_runtime_stats st;
	struct vc_error err;
	int fd;

	(void)state;
	snprintf(conf_path, sizeof(conf_path), "/tmp/test_sched_runtime_XXXXXX");
	fd = mkstemp(conf_path);
	assert_true(fd >= 0);
	close(fd);
	write_conf("actions: [allocate]\n");
	cfg.conf_path = conf_path;
	/* As Volcano: a file that does not parse at start leaves Volcano's default in use. */
	assert_int_equal(sched_runtime_new(&ctx, &cfg, &rt, &err), 0);
	assert_non_null(rt);
	sched_runtime_stats(rt, &st);
	assert_int_equal(st.conf_errors, 1);
	cycle();
	assert_int_equal(last_conf->nactions, 3);
	assert_string_equal(last_conf->actions[0], "enqueue");
	unlink(conf_path);
}

/*
 * Skipped entries and a file that does not parse are reported: a gauge, a counter and a Warning
 * Event on the scheduler's Pod, written by the scheduler's own recorder (source volcano, as
 * Volcano's scheduler Events) rather than ctx's.
 */
static void test_conf_reported(void **state)
{
	struct vc_events_config ecfg = { .component = "volcano" };
	struct vc_events *own = NULL;
	struct vc_metrics *m = vc_metrics_new();
	double v = -1;
	const json_t *b = NULL;
	int fd, i;

	(void)state;
	assert_non_null(m);
	setenv("POD_NAME", "volcano-scheduler-0", 1);
	setenv("POD_NAMESPACE", "volcano-system", 1);
	assert_int_equal(vc_events_new(kube, &ecfg, &own, NULL), 0);
	snprintf(conf_path, sizeof(conf_path), "/tmp/test_sched_runtime_XXXXXX");
	fd = mkstemp(conf_path);
	assert_true(fd >= 0);
	close(fd);
	write_conf("actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n"
		   "  - name: sla\n  - name: deviceshare\n");
	cfg.conf_path = conf_path;
	cfg.metrics = m;
	cfg.events = own;
	new_runtime();
	assert_int_equal(vc_metric_value(rt->m_conf_skipped, NULL, &v), 0);
	assert_true(v == 2);
	(void)vc_events_process(own);
	for (i = 0; i < fk.ncalls; i++)
		if (!strcmp(fk.calls[i].resource, "events") && fk.calls[i].verb == 'C')
			b = fk.calls[i].body;
	assert_non_null(b);
	assert_string_equal(vc_json_get_str(b, "reason"), "ConfigurationSkipped");
	assert_string_equal(vc_json_get_str(b, "type"), "Warning");
	assert_string_equal(json_string_value(vc_json_path(b, "source.component")), "volcano");
	assert_string_equal(json_string_value(vc_json_path(b, "involvedObject.name")),
			    "volcano-scheduler-0");
	assert_string_equal(json_string_value(vc_json_path(b, "metadata.namespace")),
			    "volcano-system");
	assert_non_null(strstr(vc_json_get_str(b, "message"),
			       "2 entries skipped: unknown plugin 'sla'; unknown plugin "
			       "'deviceshare'"));
	cycle();
	assert_int_equal(last_conf->nactions, 2);

	/* A file that does not parse: counted, the configuration stays. */
	write_conf("actions: [enqueue]\n");
	cycle();
	assert_int_equal(last_conf->nactions, 2);
	assert_int_equal(vc_metric_value(rt->m_conf_errors, NULL, &v), 0);
	assert_true(v == 1);
	(void)vc_events_process(own);
	assert_string_equal(vc_json_get_str(fk.calls[fk.ncalls - 1].body, "reason"),
			    "InvalidConfiguration");

	sched_runtime_free(rt);
	rt = NULL;
	vc_events_free(own);
	vc_metrics_free(m);
	cfg.metrics = NULL;
	cfg.events = NULL;
	unsetenv("POD_NAME");
	unsetenv("POD_NAMESPACE");
	unlink(conf_path);
}

/* ---- the loop and the workers ---------------------------------------------------------------- */

static void wait_runs(int n)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	pthread_mutex_lock(&runs_lock);
	while (runs < n)
		if (pthread_cond_timedwait(&runs_cond, &runs_lock, &ts))
			break;
	pthread_mutex_unlock(&runs_lock);
	assert_true(runs >= n);
}

static void test_loop(void **state)
{
	char buf[512];

	(void)state;
	one_pending_pod();
	script = bind_pending;
	cfg.period_ns = 3600 * SEC; /* only the first cycle and kicks run */
	cfg.bind_workers = 4;
	new_runtime();
	assert_int_equal(sched_runtime_start(rt), 0);
	assert_int_equal(sched_runtime_start(rt), VC_EINVAL);
	wait_runs(1);
	fake_wait_calls(&fk, 1); /* the bind, made by a worker */
	(void)sched_runtime_drain(rt);
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "C pods ns/p-0/binding");
	sched_runtime_kick(rt);
	wait_runs(2);
	sched_runtime_stop(rt);
	assert_string_equal(seen_status, "Binding@n1");
	assert_int_equal(runs, 2);
}

/* ---- sessions before the pods and PodGroups are listed (srt_prepare) ------------------------ */

/* Hand pod or PodGroup obj (stolen) over as the informer's first list does, page by page. */
static void listed(struct vc_informer *inf, json_t *obj)
{
	assert_non_null(obj);
	if (inf == ctx.pods)
		srt_on_pod_listed(rt, obj);
	else
		srt_on_pg_listed(rt, obj);
	json_decref(obj);
}

/*
 * A session runs once the nodes (and every cache but the pods' and PodGroups') are in and the
 * bound pods are listed, over the pending pods and PodGroups listed so far: n1 is full with a
 * pod that only the bound pods' list showed, so the pod goes to n2. It writes the bind alone
 * (no PodGroup or Queue status from a partial view); once the lists are complete, the whole
 * view's writes follow.
 */
static void test_partial_view_after_bound_pods(void **state)
{
	char buf[1024];

	(void)state;
	put(ctx.nodes, node_obj("n1", "a", "2"));
	put(ctx.nodes, node_obj("n2", "a", "2"));
	cfg.session_run = NULL;
	new_runtime();
	unsynced_pods = unsynced_pgs = unsynced_nodes = true;
	bound_list = json_array();
	assert_int_equal(
		json_array_append_new(bound_list, pod_obj("b-0", NULL, NULL, "n1", "Running", "2")),
		0);
	listed(ctx.podgroups, pg_obj("pg", NULL, NULL, "Pending", "10"));
	listed(ctx.pods, pod_obj("p-0", "volcano", "pg", NULL, "Pending", "1"));
	/* The nodes are not in: no session; the bound pods are listed meanwhile, once. */
	assert_false(srt_prepare(rt));
	assert_int_equal(list_bound_calls, 1);
	unsynced_nodes = false;
	assert_true(srt_prepare(rt));
	assert_int_equal(list_bound_calls, 1);
	assert_true(rt->pods_partial);
	assert_true(rt->pgs_partial);
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "C pods ns/p-0/binding");
	assert_string_equal(json_string_value(vc_json_path(fk.calls[0].body, "target.name")), "n2");
	fake_reset_calls(&fk);

	/* The lists complete: the caches hold what was handed over (b-0 has since gone). */
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Pending", "10"));
	put(ctx.pods, pod_obj("p-0", "volcano", "pg", "n2", "Pending", "1"));
	unsynced_pods = unsynced_pgs = false;
	assert_true(srt_prepare(rt));
	assert_false(rt->pods_partial);
	assert_false(rt->pgs_partial);
	assert_null(srt_map_get(&rt->pod_views, "ns/b-0"));
	assert_int_equal(rt->early_pgs.count, 0);
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf,
			    "U podgroups ns/pg; P queues default/status; P queues root/status");
}

/* Without the bound pods (their list failed), no session before the pods informer syncs. */
static void test_no_session_without_bound_pods(void **state)
{
	(void)state;
	cfg.session_run = NULL;
	new_runtime();
	unsynced_pods = unsynced_pgs = true;
	assert_false(srt_prepare(rt));
	assert_false(srt_prepare(rt));
	assert_int_equal(list_bound_calls, 1); /* not retried: the pods cache comes anyway */
	unsynced_pods = false;
	assert_true(srt_prepare(rt));
	assert_false(rt->pods_partial);
	assert_true(rt->pgs_partial);
}

/*
 * Over a partial view a queue gets at most its weight's share of the cluster: default, root
 * and other weigh 1 each, so default binds 2 of its 6 one-CPU pods on the 6 CPUs, although
 * the other queues ask for nothing so far; with the whole view it takes the rest.
 */
static void test_partial_view_caps_queue_share(void **state)
{
	char name[16];
	size_t i, binds = 0;
	int k;

	(void)state;
	put(ctx.queues, queue_obj("other", "1"));
	put(ctx.nodes, node_obj("n1", "a", "6"));
	cfg.session_run = NULL;
	new_runtime();
	unsynced_pods = unsynced_pgs = true;
	bound_list = json_array();
	for (k = 0; k < 6; k++) {
		snprintf(name, sizeof(name), "pg%d", k);
		listed(ctx.podgroups, pg_obj(name, NULL, NULL, "Pending", "10"));
	}
	/* Each pod in its own PodGroup. */
	for (k = 0; k < 6; k++) {
		char pg[16];

		snprintf(name, sizeof(name), "p-%d", k);
		snprintf(pg, sizeof(pg), "pg%d", k);
		listed(ctx.pods, pod_obj(name, "volcano", pg, NULL, "Pending", "1"));
	}
	assert_true(srt_prepare(rt));
	cycle();
	for (i = 0; i < (size_t)fk.ncalls; i++)
		binds += strcmp(fk.calls[i].sub, "binding") == 0;
	assert_int_equal(binds, 2);
	assert_int_equal(fk.ncalls, 2);
	fake_reset_calls(&fk);
	/* The whole view (the binds not shown yet): the rest. */
	unsynced_pods = unsynced_pgs = false;
	for (k = 0; k < 6; k++) {
		char pg[16];

		snprintf(pg, sizeof(pg), "pg%d", k);
		put(ctx.podgroups, pg_obj(pg, NULL, NULL, "Pending", "10"));
		snprintf(name, sizeof(name), "p-%d", k);
		put(ctx.pods, pod_obj(name, "volcano", pg, NULL, "Pending", "1"));
	}
	assert_true(srt_prepare(rt));
	cycle();
	binds = 0;
	for (i = 0; i < (size_t)fk.ncalls; i++)
		binds += strcmp(fk.calls[i].sub, "binding") == 0;
	assert_int_equal(binds, 4);
}

/* ---- enqueue's rejections -------------------------------------------------------------------- */

static const char *reject_message;

static void reject_result(struct sched_snapshot *snap, struct sched_result *out)
{
	struct sched_job_info *j = sched_snapshot_job(snap, "ns/pg");

	assert_non_null(j);
	add_job_result(out, j, VC_PG_PENDING, NULL, 0, NULL, NULL, NULL);
	if (reject_message)
		out->jobs[0].reject_message = vc_strdup(reject_message);
}

static void test_reject_event(void **state)
{
	char buf[512];

	(void)state;
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Pending", "10"));
	script = reject_result;
	reject_message = "queue resource quota insufficient: insufficient cpu";
	new_runtime();
	cycle();
	cycle();
	assert_int_equal(fk.ncalls, 0); /* Pending already: no status write */
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "Normal Unschedulable PodGroup/pg: queue resource quota "
				 "insufficient: insufficient cpu");
	fake_reset_calls(&fk);

	/* A different rejection is news at once. */
	reject_message = "resource in cluster is overused: overused nvidia.com/gpu";
	cycle();
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "Normal Unschedulable PodGroup/pg: resource in cluster is "
				 "overused: overused nvidia.com/gpu");
	fake_reset_calls(&fk);

	/* The same one again: only once the throttle window has passed. */
	fake_clock_advance(SRT_EVENT_THROTTLE_NS - SEC);
	cycle();
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "");
	fake_clock_advance(SEC);
	cycle();
	/* The recorder folds the repeat into the Event it made (Kubernetes' correlator). */
	event_patches_str(buf, sizeof(buf));
	assert_string_equal(buf,
			    "count=2 resource in cluster is overused: overused nvidia.com/gpu");
	fake_reset_calls(&fk);

	/* Admitted: no rejection, no event. */
	reject_message = NULL;
	fake_clock_advance(SRT_EVENT_THROTTLE_NS);
	cycle();
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "");
}

/* ---- "pod group is ready" only with a status write (docs/volcano/scheduler.md §1.8 item 4) ------
 */

static void test_ready_event_needs_write(void **state)
{
	struct sched_runtime_stats st;
	char buf[512];
	json_t *pg;

	(void)state;
	/* The cache already shows what the cycle computes: no write, no event. */
	pg = pg_obj("pg", NULL, NULL, "Running", "10");
	assert_int_equal(vc_json_set_path_new(pg, "status.running", json_integer(1)), 0);
	assert_int_equal(
		vc_json_set_path_new(pg, "status.conditions", json_loads(COND_T1, 0, NULL)), 0);
	put(ctx.podgroups, pg);
	script = pg_result;
	want_phase = VC_PG_RUNNING;
	want_running = 1;
	want_conditions = COND_T2; /* equal but for transitionID and time */
	new_runtime();
	cycle();
	assert_int_equal(fk.ncalls, 0);
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "");

	/* A write that fails (conflict, then a server error): still no event. */
	want_running = 2;
	fake_fail_call(&fk, 'U', "podgroups", NULL, VC_ECONFLICT, "the object has been modified");
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "U podgroups ns/pg");
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "");
	fake_reset_calls(&fk);
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Inqueue", "11"));
	fake_fail_call(&fk, 'U', "podgroups", NULL, VC_ESERVER, "etcdserver: request timed out");
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "U podgroups ns/pg");
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "");
	fake_reset_calls(&fk);

	/* The retry succeeds: the write, then the event, once. */
	fake_clock_advance(SRT_RETRY_NS);
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "U podgroups ns/pg");
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "Normal Scheduled PodGroup/pg: pod group is ready");
	fake_reset_calls(&fk);
	/* The informer has not shown the write yet: nothing written, nothing said. */
	cycle();
	assert_int_equal(fk.ncalls, 0);
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "");
	sched_runtime_stats(rt, &st);
	assert_int_equal(st.pg_writes, 1);
	assert_int_equal(st.pg_conflicts, 1);
	assert_int_equal(st.pg_errors, 1);
}

/* ---- malformed objects ----------------------------------------------------------------------- */

static int warnings;

static void count_warnings(void *c, int level, const char *line)
{
	(void)c;
	if (level <= VC_LOG_WARN && strstr(line, "skipping malformed object"))
		warnings++;
}

static void test_malformed_pod(void **state)
{
	(void)state;
	put(ctx.nodes, node_obj("n1", "a", "4"));
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Inqueue", "1"));
	put(ctx.pods, pod_obj("p-0", "volcano", "pg", NULL, "Pending", "1"));
	put(ctx.pods, pod_obj("bad", "volcano", "pg", NULL, "Pending", "one cpu"));
	script = describe_tasks;
	warnings = 0;
	vc_log_set_sink(count_warnings, NULL);
	new_runtime();
	cycle();
	cycle();
	assert_string_equal(seen_tasks, "p-0");
	assert_int_equal(warnings, 1); /* once per version of the object */
	assert_int_equal(rt->pod_views.count, 2);
	/* A new version is looked at again; a pod that is gone leaves the view map. */
	put(ctx.pods, pod_obj("bad", "volcano", "pg", NULL, "Pending", "2"));
	del(ctx.pods, "ns/p-0");
	cycle();
	assert_string_equal(seen_tasks, "bad");
	assert_int_equal(warnings, 1);
	assert_int_equal(rt->pod_views.count, 1);
}

/* ---- pod views --------------------------------------------------------------------------------
 */

static struct srt_view *pod_view(const char *key)
{
	return srt_map_get(&rt->pod_views, key);
}

/*
 * A pod view keeps its own metadata strings and shares the spec, status, the labels (every one
 * but volcano.sh/task-index: pod affinity selects by any label) and the annotations the
 * scheduler reads with every pod that has the same ones; hostname, subdomain and the task index
 * (one per pod) are left out, and so are unbound pods of other schedulers.
 * srt_pod_obj gives requests and Events the whole identity back.
 */
static void test_pod_views(void **state)
{
	struct srt_view *a, *b, *c;
	json_t *p, *full;
	char name[32];
	int i;

	(void)state;
	new_runtime();
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "p-%d", i);
		p = pod_obj(name, "volcano", "pg", NULL, "Pending", "1");
		assert_int_equal(vc_json_set_path_new(p, "spec.hostname", json_string(name)), 0);
		assert_int_equal(vc_json_set_path_new(p, "spec.subdomain", json_string("pg")), 0);
		assert_int_equal(vc_json_set_path_new(p,
						      "metadata.labels[\"volcano.sh/task-spec\"]",
						      json_string("w")),
				 0);
		/* Any label may be selected by a pod affinity term: kept. */
		assert_int_equal(
			vc_json_set_path_new(p, "metadata.labels[\"app\"]", json_string("web")), 0);
		/* Per pod, and read by nobody in the scheduler: left out. */
		assert_int_equal(vc_json_set_path_new(p,
						      "metadata.labels[\"volcano.sh/task-index\"]",
						      json_string(name + 2)),
				 0);
		put(ctx.pods, p);
	}
	put(ctx.pods, pod_obj("other", "default-scheduler", NULL, NULL, "Pending", "1"));
	put(ctx.pods, pod_obj("bound", "default-scheduler", NULL, "n1", "Running", "1"));
	assert_int_equal(rt->pod_views.count, 4); /* p-0..2 and the bound pod */
	assert_null(pod_view("ns/other"));
	a = pod_view("ns/p-0");
	b = pod_view("ns/p-1");
	c = pod_view("ns/bound");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_ptr_equal(a->v.pod.obj, b->v.pod.obj);
	assert_ptr_not_equal(a->v.pod.obj, c->v.pod.obj);
	assert_non_null(a->labels);
	assert_ptr_equal(a->labels, b->labels);
	assert_ptr_equal(a->annotations, b->annotations);
	assert_string_equal(a->v.pod.meta.name, "p-0");
	assert_string_equal(b->v.pod.meta.name, "p-1");
	assert_string_equal(b->v.pod.meta.uid, "p-1");
	assert_string_equal(b->v.pod.group_name, "pg");
	assert_string_equal(c->v.pod.node_name, "n1");
	assert_null(vc_json_path(a->v.pod.obj, "spec.hostname"));
	assert_null(vc_json_path(a->v.pod.obj, "spec.subdomain"));
	assert_string_equal(json_string_value(vc_json_path(a->v.pod.obj, "spec.schedulerName")),
			    "volcano");
	assert_null(vc_json_path(a->v.pod.obj, "metadata"));

	full = srt_pod_obj(&b->v.pod);
	assert_non_null(full);
	assert_string_equal(json_string_value(json_object_get(full, "kind")), "Pod");
	assert_string_equal(json_string_value(json_object_get(full, "apiVersion")), "v1");
	assert_string_equal(json_string_value(vc_json_path(full, "metadata.name")), "p-1");
	assert_string_equal(json_string_value(vc_json_path(full, "metadata.namespace")), "ns");
	assert_string_equal(json_string_value(vc_json_path(full, "metadata.uid")), "p-1");
	assert_string_equal(json_string_value(vc_json_path(full, "metadata.resourceVersion")), "5");
	assert_string_equal(
		json_string_value(vc_json_path(full, "metadata.labels[\"volcano.sh/task-spec\"]")),
		"w");
	assert_null(vc_json_path(full, "metadata.labels[\"volcano.sh/task-index\"]"));
	assert_string_equal(json_string_value(vc_json_path(full, "metadata.labels[\"app\"]")),
			    "web");
	assert_string_equal(json_string_value(vc_json_path(full, "status.phase")), "Pending");
	json_decref(full);

	/* A new version gets a new view; a deleted pod loses its view. */
	p = pod_obj("p-1", "volcano", "pg", "n1", "Running", "1");
	put(ctx.pods, p);
	b = pod_view("ns/p-1");
	assert_string_equal(b->v.pod.node_name, "n1");
	assert_ptr_not_equal(a->v.pod.obj, b->v.pod.obj);
	del(ctx.pods, "ns/p-0");
	assert_null(pod_view("ns/p-0"));
	assert_int_equal(rt->pod_views.count, 3);
}

/*
 * A pod view keeps the pod's controller reference when Kubernetes' default spread reads it (a
 * ReplicaSet here: sched_objects.h), and none for a Volcano Job's pod or other owners.
 */
static void test_pod_view_controller(void **state)
{
	static const char rs_ref[] =
		"[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"c\",\"uid\":\"c\"},"
		"{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"web-1\","
		"\"uid\":\"r\",\"controller\":true}]";
	static const char job_ref[] =
		"[{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
		"\"name\":\"j\",\"uid\":\"j\",\"controller\":true}]";
	const json_t *refs;
	json_t *p;

	(void)state;
	new_runtime();
	p = pod_obj("rs", "volcano", "pg", NULL, "Pending", "1");
	assert_int_equal(
		vc_json_set_path_new(p, "metadata.ownerReferences", json_loads(rs_ref, 0, NULL)),
		0);
	put(ctx.pods, p);
	p = pod_obj("job", "volcano", "pg", NULL, "Pending", "1");
	assert_int_equal(
		vc_json_set_path_new(p, "metadata.ownerReferences", json_loads(job_ref, 0, NULL)),
		0);
	put(ctx.pods, p);
	refs = pod_view("ns/rs")->v.pod.meta.owner_references;
	assert_int_equal(json_array_size(refs), 1);
	assert_string_equal(json_string_value(vc_json_path(json_array_get(refs, 0), "name")),
			    "web-1");
	assert_null(pod_view("ns/job")->v.pod.meta.owner_references);
}

/* Out of memory while making a view: no view (the old one is dropped too), nothing leaks. */
static void test_pod_view_alloc_failures(void **state)
{
	json_t *p;
	long n;
	int rc;

	(void)state;
	new_runtime();
	put(ctx.pods, pod_obj("p", "volcano", "pg", NULL, "Pending", "1"));
	assert_non_null(pod_view("ns/p"));
	for (n = 0;; n++) {
		p = pod_obj("p", "volcano", "pg", "n1", "Running", "1");
		vc_alloc_fail_after(n);
		rc = srt_pod_view_put(rt, p);
		vc_alloc_fail_reset();
		json_decref(p);
		if (rc == 0)
			break;
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(pod_view("ns/p"));
	}
	assert_true(n > 3);
	assert_string_equal(pod_view("ns/p")->v.pod.node_name, "n1");
}

/* Shared copies nothing uses any more are dropped: the table does not grow with churn. */
static void test_pod_views_intern_sweep(void **state)
{
	char name[32], cpu[16];
	int i;

	(void)state;
	new_runtime();
	for (i = 0; i < 2000; i++) {
		/* One pod whose spec changes every time: each version's spec is new. */
		snprintf(cpu, sizeof(cpu), "%dm", i + 1);
		put(ctx.pods, pod_obj("p", "volcano", "pg", NULL, "Pending", cpu));
	}
	for (i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "q-%d", i);
		put(ctx.pods, pod_obj(name, "volcano", "pg", NULL, "Pending", "1"));
	}
	assert_int_equal(rt->pod_views.count, 101);
	/* Live: 2 specs, 1 status, 1 annotations, 2 pairs; the rest is swept when the table
	 * doubles, so it never holds more than twice what was live at the last sweep + 256. */
	assert_true(rt->intern.count <= 2 * rt->intern_swept + 256);
	assert_true(rt->intern.count < 600);
}

/* ---- informer handlers ----------------------------------------------------------------------- */

static bool kicked(void)
{
	bool k = rt->kick_at != 0;

	rt->kick_at = 0;
	return k;
}

static json_t *with(json_t *obj, const char *path, json_t *value)
{
	json_t *c = json_deep_copy(obj);

	assert_non_null(c);
	assert_int_equal(vc_json_set_path_new(c, path, value), 0);
	return c;
}

static void test_handlers(void **state)
{
	json_t *waiting = pod_obj("p", "volcano", "pg", NULL, "Pending", "1");
	json_t *other = pod_obj("o", "default-scheduler", NULL, NULL, "Pending", "1");
	json_t *nogroup = pod_obj("n", "volcano", NULL, NULL, "Pending", "1");
	json_t *bound = with(waiting, "spec.nodeName", json_string("n1"));
	json_t *running = with(bound, "status.phase", json_string("Running"));
	json_t *done = with(running, "status.phase", json_string("Succeeded"));
	json_t *deleting = with(running, "metadata.deletionTimestamp", json_string(NOW0));
	json_t *relabelled = with(running, "metadata.labels", json_pack("{s:s}", "a", "b"));
	json_t *grouped = with(nogroup, "metadata.annotations",
			       json_pack("{s:s}", "scheduling.k8s.io/group-name", "pg"));
	json_t *pg = pg_obj("pg", NULL, NULL, "Pending", "1");
	json_t *pg_status = with(pg, "status.phase", json_string("Inqueue"));
	json_t *pg_spec = with(pg, "spec.minMember", json_integer(3));
	json_t *node = node_obj("n1", "a", "4");
	json_t *heartbeat = with(node, "status.conditions",
				 json_pack("[{s:s, s:s}]", "type", "Ready", "status", "True"));
	json_t *bigger = with(node, "status.allocatable.cpu", json_string("8"));
	json_t *cordoned = with(node, "spec.unschedulable", json_true());
	json_t *q = queue_obj("q", "1");
	json_t *q_status = with(q, "status.allocated", json_pack("{s:s}", "cpu", "1"));
	json_t *q_closed = with(q, "status.state", json_string("Closed"));

	(void)state;
	new_runtime();
	(void)kicked(); /* the handlers were given the cached queues on registration */
	assert_false(kicked());
	srt_on_pod_add(rt, waiting);
	assert_true(kicked());
	srt_on_pod_add(rt, other);
	srt_on_pod_add(rt, nogroup);
	srt_on_pod_add(rt, running);
	assert_false(kicked());
	srt_on_pod_update(rt, nogroup, grouped); /* the PodGroup controller annotated it */
	assert_true(kicked());
	srt_on_pod_update(rt, waiting, bound); /* the echo of a bind */
	srt_on_pod_update(rt, bound, running);
	srt_on_pod_update(rt, running, relabelled);
	srt_on_pod_update(rt, running, running); /* resync */
	assert_false(kicked());
	srt_on_pod_update(rt, running, done);
	assert_true(kicked());
	srt_on_pod_update(rt, running, deleting);
	assert_true(kicked());
	srt_on_pod_delete(rt, running, false);
	assert_true(kicked());
	srt_on_pod_delete(rt, done, false);
	srt_on_pod_delete(rt, waiting, false);
	assert_false(kicked());

	srt_on_pg_update(rt, pg, pg_status); /* the scheduler's own status write */
	assert_false(kicked());
	srt_on_pg_update(rt, pg, pg_spec);
	assert_true(kicked());

	srt_on_node_update(rt, node, heartbeat);
	assert_false(kicked());
	srt_on_node_update(rt, node, bigger);
	assert_true(kicked());
	srt_on_node_update(rt, node, cordoned);
	assert_true(kicked());

	srt_on_queue_update(rt, q, q_status);
	assert_false(kicked());
	srt_on_queue_update(rt, q, q_closed);
	assert_true(kicked());

	json_decref(waiting);
	json_decref(other);
	json_decref(nogroup);
	json_decref(bound);
	json_decref(running);
	json_decref(done);
	json_decref(deleting);
	json_decref(relabelled);
	json_decref(grouped);
	json_decref(pg);
	json_decref(pg_status);
	json_decref(pg_spec);
	json_decref(node);
	json_decref(heartbeat);
	json_decref(bigger);
	json_decref(cordoned);
	json_decref(q);
	json_decref(q_status);
	json_decref(q_closed);
}

/* ---- with the real session ---------------------------------------------------------------- */

/*
 * One pending one-pod gang, one node, Volcano's default configuration, the real
 * sched_session_run: the exact requests of a first cycle and of the one after the informer
 * showed the binding.
 */
static void test_real_session(void **state)
{
	char buf[1024];
	json_t *pg;

	(void)state;
	put(ctx.nodes, node_obj("n1", "a", "4"));
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Pending", "10"));
	put(ctx.pods, pod_obj("p-0", "volcano", "pg", NULL, "Pending", "1"));
	cfg.session_run = NULL;
	new_runtime();
	cycle();
	api_calls(buf, sizeof(buf));
	/* Binds first, then the PodGroup (Inqueue), then the queues' allocated (rolled up). */
	assert_string_equal(buf, "C pods ns/p-0/binding; U podgroups ns/pg; "
				 "P queues default/status; P queues root/status");
	pg = fk.calls[fake_find_call(&fk, 'U', "podgroups", "pg", NULL)].body;
	assert_string_equal(json_string_value(vc_json_path(pg, "status.phase")), "Inqueue");
	pg = json_deep_copy(pg);
	assert_non_null(pg);
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "Warning Unschedulable PodGroup/pg: 0/1 tasks in gang "
				 "unschedulable: pod group is ready, 1 Binding, 1 minAvailable; "
				 "Normal Scheduled Pod/p-0: Successfully assigned ns/p-0 to n1");
	fake_reset_calls(&fk);

	/* The informer shows the binding and the PodGroup write: Running. */
	put(ctx.pods, pod_obj("p-0", "volcano", "pg", "n1", "Pending", "1"));
	assert_int_equal(vc_json_set_path_new(pg, "metadata.resourceVersion", json_string("11")),
			 0);
	put(ctx.podgroups, pg);
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "U podgroups ns/pg");
	assert_string_equal(json_string_value(vc_json_path(fk.calls[0].body, "status.phase")),
			    "Running");
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "Normal Scheduled PodGroup/pg: pod group is ready");
	fake_reset_calls(&fk);
	/* Not seen yet by the informer: no second write, so no second "pod group is ready". */
	cycle();
	assert_int_equal(fk.ncalls, 0);
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "");
	assert_int_equal(fk.ncalls, 0);
}

/*
 * The real session hands each bind over as it decides it: the first gang's bind is queued
 * while the session still has the second gang to place (not after its close), and the result's
 * list does not queue it a second time.
 */
static size_t spy_binds, spy_queued_at_first;
static void (*spy_next)(void *ctx, const struct sched_bind *b);

static void spy_on_bind(void *c, const struct sched_bind *b)
{
	spy_next(c, b);
	if (spy_binds++ == 0) {
		pthread_mutex_lock(&rt->pool_mu);
		spy_queued_at_first = rt->queued;
		pthread_mutex_unlock(&rt->pool_mu);
	}
}

static int spy_run(const struct sched_conf *conf, struct sched_snapshot *snap,
		   const char *session_uid, const char *now, uint64_t seed,
		   struct sched_result *out, struct vc_error *err)
{
	spy_next = snap->on_bind;
	if (!spy_next)
		fail_msg("the runtime gave the session no on_bind");
	snap->on_bind = spy_on_bind;
	return sched_session_run(conf, snap, session_uid, now, seed, out, err);
}

static void test_real_session_binds_before_close(void **state)
{
	char buf[1024];

	(void)state;
	put(ctx.nodes, node_obj("n1", "a", "4"));
	put(ctx.podgroups, pg_obj("pg-a", NULL, NULL, "Inqueue", "10"));
	put(ctx.podgroups, pg_obj("pg-b", NULL, NULL, "Inqueue", "10"));
	put(ctx.pods, pod_obj("p-a", "volcano", "pg-a", NULL, "Pending", "1"));
	put(ctx.pods, pod_obj("p-b", "volcano", "pg-b", NULL, "Pending", "1"));
	spy_binds = spy_queued_at_first = 0;
	cfg.session_run = spy_run;
	new_runtime();
	cycle();
	assert_int_equal(spy_binds, 2);
	/* The first bind was queued before the session placed the second gang. */
	assert_int_equal(spy_queued_at_first, 1);
	api_calls(buf, sizeof(buf));
	/* Each pod bound once; then the PodGroups and the queues, as after any cycle. */
	assert_string_equal(buf, "C pods ns/p-a/binding; C pods ns/p-b/binding; "
				 "U podgroups ns/pg-b; U podgroups ns/pg-a; "
				 "P queues default/status; P queues root/status");
}

/*
 * enqueue's rejection through the real session: a gang whose minResources the cluster cannot
 * hold stays Pending (no status write) and its PodGroup gets overcommit's Normal Unschedulable
 * event, once while the message stays the same.
 */
static void test_real_session_reject(void **state)
{
	char buf[1024];
	json_t *pg;

	(void)state;
	put(ctx.nodes, node_obj("n1", "a", "4"));
	pg = pg_obj("pg", NULL, NULL, "Pending", "10");
	assert_int_equal(vc_json_set_path_new(pg, "spec.minResources",
					      json_pack("{s:s, s:s}", "cpu", "8", "memory", "1Gi")),
			 0);
	put(ctx.podgroups, pg);
	cfg.session_run = NULL;
	new_runtime();
	cycle();
	api_calls(buf, sizeof(buf));
	/* Only the queues' totals (zero) would change; they are absent, so nothing at all. */
	assert_string_equal(buf, "");
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "Warning Unschedulable PodGroup/pg: 0/0 tasks in gang "
				 "unschedulable: pod group is not ready, 1 minAvailable; "
				 "Normal Unschedulable PodGroup/pg: resource in cluster is "
				 "overused: overused cpu");
	fake_reset_calls(&fk);
	cycle();
	assert_int_equal(fk.ncalls, 0);
	events_str(buf, sizeof(buf));
	assert_string_equal(buf, "");
	assert_int_equal(fk.ncalls, 0); /* no creates, no patches: throttled */
}

/* ---- allocation failures --------------------------------------------------------------------- */

static void everything(struct sched_snapshot *snap, struct sched_result *out)
{
	struct sched_task_info *p = task_named(snap, "p-0"), *r = task_named(snap, "r-0");
	struct sched_job_info *j = sched_snapshot_job(snap, "ns/pg");

	if (p && p->status == SCHED_TASK_PENDING)
		add_bind(out, p, "n1");
	if (r && r->status == SCHED_TASK_RUNNING) {
		out->evicts = vc_calloc(1, sizeof(*out->evicts));
		if (out->evicts) {
			out->nevicts = 1;
			out->evicts[0].task = r;
			out->evicts[0].reason = "reclaim";
		}
	}
	if (j)
		add_job_result(out, j, VC_PG_INQUEUE, COND_T1, 0, "Warning", "Unschedulable", "m");
	if (p)
		add_task_result(out, p, "Schedulable", "maybe", NULL);
	want_cpu = 500;
	want_gpu = 0;
	queue_result(snap, out);
}

static void test_alloc_failures(void **state)
{
	struct vc_error err;
	long n, failures;
	int rc;

	(void)state;
	fill_cluster();
	one_pending_pod();
	put(ctx.pods, pod_obj("r-0", "volcano", "pg", "n1", "Running", "1"));
	script = everything;
	for (n = 0;; n++) {
		rt = NULL;
		fake_reset_calls(&fk);
		vc_alloc_fail_after(n);
		rc = sched_runtime_new(&ctx, &cfg, &rt, &err);
		if (rc == 0) {
			int c1 = sched_runtime_cycle(rt, &err);

			(void)sched_runtime_drain(rt);
			c1 |= sched_runtime_cycle(rt, &err);
			(void)sched_runtime_drain(rt);
			assert_true(c1 == 0 || c1 == VC_ENOMEM);
			(void)vc_events_process(rec);
		} else {
			assert_int_equal(rc, VC_ENOMEM);
			assert_null(rt);
		}
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		/* handlers registered by a runtime that is freed stay on the informers, harmless
		 * here because no informer runs */
		sched_runtime_free(rt);
		rt = NULL;
		if (failures == 0 && rc == 0)
			break;
		assert_true(n < 200000);
	}
}

/* ---- pacing of the informational writes ------------------------------------------------------ */

#define UNSCHED_MSG "0/1 nodes are unavailable: 1 Insufficient cpu."

static int npods; /* pending pods p-0 ... p-<npods-1> of PodGroup pg */

static void pending_pods(int n)
{
	char name[16];
	int i;

	put(ctx.nodes, node_obj("n1", "a", "4"));
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Inqueue", "1"));
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p-%d", i);
		put(ctx.pods, pod_obj(name, "volcano", "pg", NULL, "Pending", "1"));
	}
	npods = n;
}

/* Every pod Unschedulable with want_message. */
static void all_unschedulable(struct sched_snapshot *snap, struct sched_result *out)
{
	char name[16];
	int i;

	for (i = 0; i < npods; i++) {
		snprintf(name, sizeof(name), "p-%d", i);
		add_task_result(out, task_named(snap, name), "Unschedulable", want_message, NULL);
	}
}

/* The names of the pods/status patches made, in order, joined by ","; returns how many. */
static int pod_status_patches(char *buf, size_t len)
{
	size_t off = 0;
	int i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < fk.ncalls; i++) {
		if (fk.calls[i].verb != 'P' || strcmp(fk.calls[i].resource, "pods") != 0 ||
		    strcmp(fk.calls[i].sub, "status") != 0)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", n ? "," : "",
					fk.calls[i].name);
		n++;
		if (off >= len)
			break;
	}
	return n;
}

/* How many Events of reason were created. */
static int events_of(const char *reason)
{
	int i, n = 0;

	(void)vc_events_process(rec);
	for (i = 0; i < fk.ncalls; i++)
		if (fk.calls[i].verb == 'C' && strcmp(fk.calls[i].resource, "events") == 0 &&
		    vc_str_eq(vc_json_get_str(fk.calls[i].body, "reason"), reason))
			n++;
	return n;
}

static void test_pod_condition_budget(void **state)
{
	struct sched_runtime_stats st;
	char buf[512];

	(void)state;
	pending_pods(25);
	script = all_unschedulable;
	want_message = UNSCHED_MSG;
	cfg.pod_condition_qps = 5;
	cfg.pod_condition_burst = 10;
	new_runtime();

	/* The burst: exactly 10 writes, each with its event; the other 15 are left for later. */
	cycle();
	assert_int_equal(pod_status_patches(buf, sizeof(buf)), 10);
	assert_string_equal(buf, "p-0,p-1,p-2,p-3,p-4,p-5,p-6,p-7,p-8,p-9");
	assert_int_equal(events_of("FailedScheduling"), 10);
	assert_int_equal(fk.ncalls, 20);
	sched_runtime_stats(rt, &st);
	assert_int_equal(st.pod_cond_writes, 10);
	assert_int_equal(st.pod_cond_deferred, 15);
	/* Nothing recorded for the pods left out: they are not "written". */
	assert_int_equal(rt->track.count, 10);
	assert_null(srt_map_get(&rt->track, "pod/p-10"));
	fake_reset_calls(&fk);

	/* No time has passed: no token. */
	cycle();
	assert_int_equal(fk.ncalls, 0);

	/* 5 per second: 2.5 tokens after half a second, then the half left over and 2.5 more. */
	fake_clock_advance(SEC / 2);
	cycle();
	assert_int_equal(pod_status_patches(buf, sizeof(buf)), 2);
	assert_string_equal(buf, "p-10,p-11");
	assert_int_equal(events_of("FailedScheduling"), 2);
	fake_reset_calls(&fk);
	fake_clock_advance(SEC / 2);
	cycle();
	assert_int_equal(pod_status_patches(buf, sizeof(buf)), 3);
	assert_string_equal(buf, "p-12,p-13,p-14");
	assert_int_equal(events_of("FailedScheduling"), 3);
	fake_reset_calls(&fk);
	fake_clock_advance(SEC);
	cycle();
	assert_int_equal(pod_status_patches(buf, sizeof(buf)), 5);
	assert_string_equal(buf, "p-15,p-16,p-17,p-18,p-19");
	assert_int_equal(events_of("FailedScheduling"), 5);
	fake_reset_calls(&fk);
	fake_clock_advance(SEC);
	cycle();
	assert_int_equal(pod_status_patches(buf, sizeof(buf)), 5);
	assert_string_equal(buf, "p-20,p-21,p-22,p-23,p-24");
	assert_int_equal(events_of("FailedScheduling"), 5);
	fake_reset_calls(&fk);

	/* All written (the cache has not caught up yet): nothing again, no token spent. */
	fake_clock_advance(10 * SEC);
	cycle();
	assert_int_equal(fk.ncalls, 0);
	sched_runtime_stats(rt, &st);
	assert_int_equal(st.pod_cond_writes, 25);
	assert_int_equal(rt->pc_tokens, 10);
}

static void test_pod_condition_unlimited(void **state)
{
	char buf[512];

	(void)state;
	pending_pods(25);
	script = all_unschedulable;
	want_message = UNSCHED_MSG;
	cfg.pod_condition_qps = 0;
	cfg.pod_condition_burst = 10; /* ignored without a rate */
	new_runtime();
	cycle();
	assert_int_equal(pod_status_patches(buf, sizeof(buf)), 25);
	assert_int_equal(events_of("FailedScheduling"), 25);
}

/* The default burst is twice the rate. */
static void test_pod_condition_default_burst(void **state)
{
	char buf[512];

	(void)state;
	pending_pods(25);
	script = all_unschedulable;
	want_message = UNSCHED_MSG;
	cfg.pod_condition_qps = 7.5;
	new_runtime();
	cycle();
	assert_int_equal(pod_status_patches(buf, sizeof(buf)), 15);
}

/* Cache pod name with PodScheduled=False reason/message and resourceVersion rv. */
static void pod_with_condition(const char *name, const char *rv, const char *reason,
			       const char *message)
{
	json_t *pod = pod_obj(name, "volcano", "pg", NULL, "Pending", "1");

	assert_int_equal(vc_json_set_path_new(pod, "metadata.resourceVersion", json_string(rv)), 0);
	assert_int_equal(vc_json_set_path_new(
				 pod, "status.conditions",
				 json_pack("[{s:s, s:s, s:s, s:s, s:s}]", "type", "PodScheduled",
					   "status", "False", "reason", "Unschedulable", "message",
					   message, "lastTransitionTime", "2023-11-14T20:00:00Z")),
			 0);
	if (strcmp(reason, "Unschedulable") != 0)
		assert_int_equal(vc_json_set_path_new(pod, "status.conditions[0].reason",
						      json_string(reason)),
				 0);
	put(ctx.pods, pod);
}

static const char *want_reason;

static void task_result_reason(struct sched_snapshot *snap, struct sched_result *out)
{
	char name[16];
	int i;

	for (i = 0; i < npods; i++) {
		snprintf(name, sizeof(name), "p-%d", i);
		add_task_result(out, task_named(snap, name), want_reason, want_message, NULL);
	}
}

static void test_pod_condition_message_paced(void **state)
{
	struct sched_runtime_stats st;
	char buf[512];
	int i;

	(void)state;
	pending_pods(2);
	/* p-1 shows a condition written before this runtime started (say, a restart). */
	pod_with_condition("p-1", "6", "Unschedulable", "0/1 nodes are unavailable: old.");
	script = task_result_reason;
	want_reason = "Unschedulable";
	want_message = "0/1 nodes are unavailable: 1 Insufficient cpu.";
	new_runtime();

	/* First writes: at once, p-1's too (this runtime never wrote it). */
	cycle();
	assert_int_equal(pod_status_patches(buf, sizeof(buf)), 2);
	assert_string_equal(buf, "p-0,p-1");
	assert_int_equal(events_of("FailedScheduling"), 2);
	fake_reset_calls(&fk);

	/* The cache shows them; 5 s later only the message changes: held back... */
	pod_with_condition("p-0", "7", "Unschedulable", want_message);
	pod_with_condition("p-1", "7", "Unschedulable", want_message);
	fake_clock_advance(5 * SEC);
	want_message = "0/2 nodes are unavailable: 2 Insufficient cpu.";
	cycle();
	assert_int_equal(events_of("FailedScheduling"), 0);
	assert_int_equal(fk.ncalls, 0);
	sched_runtime_stats(rt, &st);
	assert_int_equal(st.paced_writes, 2);
	/* ... until SRT_POD_MESSAGE_NS after the last write, with the message of that cycle. */
	fake_clock_advance(SRT_POD_MESSAGE_NS - 5 * SEC - 1);
	cycle();
	assert_int_equal(fk.ncalls, 0);
	fake_clock_advance(1);
	cycle();
	assert_int_equal(pod_status_patches(buf, sizeof(buf)), 2);
	assert_string_equal(buf, "p-0,p-1");
	for (i = 0; i < 2; i++)
		assert_string_equal(json_string_value(vc_json_path(
					    fk.calls[fake_find_call(&fk, 'P', "pods",
								    i ? "p-1" : "p-0", "status")]
						    .body,
					    "status.conditions[0].message")),
				    "0/2 nodes are unavailable: 2 Insufficient cpu.");
	assert_int_equal(events_of("FailedScheduling"), 2);
	fake_reset_calls(&fk);

	/* A new reason is written at once, whatever the time since the last write. */
	pod_with_condition("p-0", "8", "Unschedulable", want_message);
	pod_with_condition("p-1", "8", "Unschedulable", want_message);
	fake_clock_advance(SEC);
	want_reason = "Schedulable";
	want_message = "Pod ns/p-0 can possibly be assigned to n1, once minAvailable is satisfied";
	cycle();
	assert_int_equal(pod_status_patches(buf, sizeof(buf)), 2);
	assert_int_equal(events_of("FailedScheduling"), 2);
	fake_reset_calls(&fk);

	/* Settled entries are forgotten once they no longer pace anything. */
	pod_with_condition("p-0", "9", "Schedulable", want_message);
	pod_with_condition("p-1", "9", "Schedulable", want_message);
	cycle();
	assert_int_equal(rt->track.count, 2);
	fake_clock_advance(SRT_POD_MESSAGE_NS);
	cycle();
	assert_int_equal(rt->track.count, 0);
	assert_int_equal(fk.ncalls, 0);
}

static char pg_conds[512];

/* The gang's Unschedulable condition with message. */
static const char *unsched_conds(const char *message)
{
	snprintf(pg_conds, sizeof(pg_conds),
		 "[{\"type\":\"Unschedulable\",\"status\":\"True\",\"transitionID\":\"uid-1\","
		 "\"lastTransitionTime\":\"2023-11-14T22:13:20Z\",\"reason\":"
		 "\"NotEnoughResources\",\"message\":\"%s\"}]",
		 message);
	return pg_conds;
}

static void put_pg(const char *phase, const char *rv, const char *conditions, int running)
{
	json_t *pg = pg_obj("pg", NULL, NULL, phase, rv);

	assert_int_equal(json_object_set_new(json_object_get(pg, "status"), "conditions",
					     json_loads(conditions, 0, NULL)),
			 0);
	if (running)
		assert_int_equal(json_object_set_new(json_object_get(pg, "status"), "running",
						     json_integer(running)),
				 0);
	put(ctx.podgroups, pg);
}

static void test_podgroup_message_coalesced(void **state)
{
	struct sched_runtime_stats st;
	char buf[512];
	int i;

	(void)state;
	put(ctx.podgroups, pg_obj("pg", NULL, NULL, "Pending", "10"));
	script = pg_result;
	want_phase = VC_PG_INQUEUE;
	want_running = 0;
	want_conditions = unsched_conds("0/0 tasks in gang unschedulable: a");
	new_runtime();

	/* Pending -> Inqueue: at once. */
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "U podgroups ns/pg");
	fake_reset_calls(&fk);
	put_pg("Inqueue", "11", pg_conds, 0);

	/* Pods appear: only the message changes, twice; held back. */
	fake_clock_advance(SEC);
	want_conditions = unsched_conds("3/3 tasks in gang unschedulable: b");
	cycle();
	fake_clock_advance(SEC);
	want_conditions = unsched_conds("10/10 tasks in gang unschedulable: c");
	cycle();
	fake_clock_advance(SRT_PG_MESSAGE_NS - 2 * SEC - 1);
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "");
	sched_runtime_stats(rt, &st);
	assert_int_equal(st.paced_writes, 3);

	/* SRT_PG_MESSAGE_NS after the last write: the latest message, once. */
	fake_clock_advance(1);
	cycle();
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "U podgroups ns/pg");
	i = fake_find_call(&fk, 'U', "podgroups", "pg", NULL);
	assert_string_equal(
		json_string_value(vc_json_path(fk.calls[i].body, "status.conditions[0].message")),
		"10/10 tasks in gang unschedulable: c");
	fake_reset_calls(&fk);
	put_pg("Inqueue", "12", pg_conds, 0);

	/* A phase change right after: at once. */
	fake_clock_advance(SEC);
	want_phase = VC_PG_RUNNING;
	want_running = 1;
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "U podgroups ns/pg");
	fake_reset_calls(&fk);

	/* A count change with a new message: at once too. */
	put_pg("Running", "13", pg_conds, 1);
	fake_clock_advance(SEC);
	want_running = 2;
	want_conditions = unsched_conds("1/10 tasks in gang unschedulable: d");
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf, "U podgroups ns/pg");
	sched_runtime_stats(rt, &st);
	assert_int_equal(st.pg_writes, 4);
}

/* A bind, a PodGroup status, a Queue status and two pod conditions in one cycle. */
static void mixed_result(struct sched_snapshot *snap, struct sched_result *out)
{
	add_task_result(out, task_named(snap, "p-1"), "Unschedulable", UNSCHED_MSG, NULL);
	add_task_result(out, task_named(snap, "p-2"), "Unschedulable", UNSCHED_MSG, NULL);
	add_bind(out, task_named(snap, "p-0"), "n1");
	add_job_result(out, sched_snapshot_job(snap, "ns/pg"), VC_PG_RUNNING, NULL, 1, NULL, NULL,
		       NULL);
	queue_result(snap, out);
}

static void test_pod_conditions_last(void **state)
{
	char buf[512];

	(void)state;
	pending_pods(3);
	script = mixed_result;
	want_cpu = 1000;
	want_gpu = 0;
	new_runtime();
	cycle();
	api_calls(buf, sizeof(buf));
	assert_string_equal(buf,
			    "C pods ns/p-0/binding; U podgroups ns/pg; P queues default/status; "
			    "P pods ns/p-1/status; P pods ns/p-2/status");
}

/*
 * With workers: pod condition writes take at most a quarter of them, so a bind and a PodGroup
 * write queued while every condition write hangs still go out at once.
 */
static bool bind_now;

static void conditions_then_bind(struct sched_snapshot *snap, struct sched_result *out)
{
	char name[16];
	int i;

	if (bind_now) {
		add_bind(out, task_named(snap, "p-7"), "n1");
		add_job_result(out, sched_snapshot_job(snap, "ns/pg"), VC_PG_RUNNING, NULL, 1, NULL,
			       NULL, NULL);
		return;
	}
	for (i = 0; i < 7; i++) {
		snprintf(name, sizeof(name), "p-%d", i);
		add_task_result(out, task_named(snap, name), "Unschedulable", UNSCHED_MSG, NULL);
	}
}

static void test_bind_not_behind_pod_conditions(void **state)
{
	struct vc_error err;
	char buf[512];
	int i, n;

	(void)state;
	pending_pods(8);
	script = conditions_then_bind;
	bind_now = false;
	cfg.bind_workers = 4; /* one may write pod conditions */
	new_runtime();
	fake_hold(&fk, "pods", "status", true);
	assert_int_equal(srt_pool_start(rt), 0);
	assert_int_equal(sched_runtime_cycle(rt, &err), 0);
	fake_wait_calls(&fk, 1); /* one condition write, hanging */
	usleep(50 * 1000);	 /* time for a second worker to take a condition write, wrongly */
	n = fake_ncalls(&fk);
	assert_int_equal(n, 1);

	bind_now = true;
	assert_int_equal(sched_runtime_cycle(rt, &err), 0);
	fake_wait_calls(&fk, 3);
	for (i = 0; i < 3; i++)
		fake_call_str(&fk, i, buf + 64 * (size_t)i, 64);
	/* Two free workers take them, in either order. */
	if (strcmp(buf + 64, "U podgroups ns/pg") == 0) {
		assert_string_equal(buf + 128, "C pods ns/p-7/binding");
	} else {
		assert_string_equal(buf + 64, "C pods ns/p-7/binding");
		assert_string_equal(buf + 128, "U podgroups ns/pg");
	}

	fake_hold(&fk, "pods", "status", false);
	(void)sched_runtime_drain(rt);
	assert_int_equal(pod_status_patches(buf, sizeof(buf)), 7);
	srt_pool_stop(rt);
}

/*
 * The workers start when writes are queued and end once idle: after a burst of status writes
 * no thread is left holding its stack, malloc cache and libcurl handle (bench/README.md, "Memory
 * after the pod storm", fourth pass). The next writes start workers again.
 */
static void test_workers_end_when_idle(void **state)
{
	struct vc_error err;
	char buf[512];
	int before;

	(void)state;
	pending_pods(8);
	script = all_unschedulable;
	want_message = UNSCHED_MSG;
	cfg.bind_workers = 8;
	new_runtime();
	before = threads_now();
	assert_int_equal(srt_pool_start(rt), 0);
	assert_int_equal(threads_now(), before); /* none before a write is queued */
	fake_hold(&fk, "pods", "status", true);
	assert_int_equal(sched_runtime_cycle(rt, &err), 0);
	fake_wait_calls(&fk, 2); /* a quarter of 8 workers on pod conditions, hanging */
	assert_true(srt_pool_threads(rt) >= 2);
	assert_true(threads_now() >= before + 2);
	fake_hold(&fk, "pods", "status", false);
	(void)sched_runtime_drain(rt);
	assert_int_equal(pod_status_patches(buf, sizeof(buf)), 8);
	/* Idle workers end. */
	assert_int_equal(threads_settle(before), before);
	assert_int_equal(srt_pool_threads(rt), 0);
	/* and come back for the next writes. */
	put(ctx.pods, pod_obj("p-8", "volcano", "pg", NULL, "Pending", "1"));
	npods = 9;
	fake_reset_calls(&fk);
	assert_int_equal(sched_runtime_cycle(rt, &err), 0);
	(void)sched_runtime_drain(rt);
	assert_int_equal(pod_status_patches(buf, sizeof(buf)), 1);
	srt_pool_stop(rt);
	assert_int_equal(threads_now(), before);
}

/* ---- volumes (sched_runtime_vol.c) ----------------------------------------------------------- */

static json_t *load(const char *text)
{
	json_error_t jerr;
	json_t *o = json_loads(text, 0, &jerr);

	if (!o)
		fail_msg("json: %s", jerr.text);
	return o;
}

/* A pod of the gang pg naming claim (NULL: none). */
static json_t *vol_pod(const char *name, const char *claim, const char *node)
{
	json_t *p = pod_obj(name, "volcano", "pg", node, "Pending", "1");

	if (claim)
		assert_int_equal(vc_json_set_path_new(p, "spec.volumes",
						      json_pack("[{s:s, s:{s:s}}]", "name", "data",
								"persistentVolumeClaim",
								"claimName", claim)),
				 0);
	return p;
}

/*
 * The volume binder through the real session: a gang of two, one member with a
 * WaitForFirstConsumer claim that a local PV of n1 can take. The cycle PUTs the PV pre-bound to
 * the claim (kube's bindAPIUpdate) and binds neither pod: the claim is not bound yet. Once the
 * PV controller has bound it, both pods are bound. A failed PV write binds nobody either; a cycle
 * before the informer shows the write takes the written PV as the truth (no second write).
 */
static void test_volume_binding(void **state)
{
	char buf[1024];
	json_t *pg, *body;
	int i;

	(void)state;
	put(ctx.nodes, node_obj("n1", "a", "4"));
	pg = pg_obj("pg", NULL, NULL, "Inqueue", "10");
	assert_int_equal(vc_json_set_path_new(pg, "spec.minMember", json_integer(2)), 0);
	put(ctx.podgroups, pg);
	put(ctx.storageclasses,
	    load("{\"metadata\":{\"name\":\"local\"},\"provisioner\":"
		 "\"kubernetes.io/no-provisioner\",\"volumeBindingMode\":\"WaitForFirstConsumer\"}"));
	put(ctx.pvs, load("{\"metadata\":{\"name\":\"pv1\",\"resourceVersion\":\"3\"},\"spec\":{"
			  "\"capacity\":{\"storage\":\"10Gi\"},\"accessModes\":[\"ReadWriteOnce\"],"
			  "\"storageClassName\":\"local\",\"nodeAffinity\":{\"required\":{"
			  "\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\","
			  "\"operator\":\"In\",\"values\":[\"a\"]}]}]}}},"
			  "\"status\":{\"phase\":\"Available\"}}"));
	put(ctx.pvcs,
	    load("{\"metadata\":{\"name\":\"c1\",\"namespace\":\"ns\",\"uid\":\"u-c1\","
		 "\"resourceVersion\":\"4\"},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],"
		 "\"storageClassName\":\"local\",\"resources\":{\"requests\":{"
		 "\"storage\":\"1Gi\"}}}}"));
	put(ctx.pods, vol_pod("p-0", "c1", NULL));
	put(ctx.pods, vol_pod("p-1", NULL, NULL));
	cfg.session_run = NULL;
	new_runtime();

	fake_fail_call(&fk, 'U', "persistentvolumes", NULL, VC_ECONFLICT,
		       "the object has been "
		       "modified");
	cycle();
	api_calls(buf, sizeof(buf));
	assert_non_null(strstr(buf, "U persistentvolumes pv1"));
	assert_null(strstr(buf, "binding"));
	assert_int_equal(rt->assumed.count, 0);
	fake_reset_calls(&fk);

	cycle();
	api_calls(buf, sizeof(buf));
	assert_null(strstr(buf, "binding"));
	i = fake_find_call(&fk, 'U', "persistentvolumes", "pv1", NULL);
	body = fk.calls[i].body;
	assert_string_equal(json_string_value(vc_json_path(body, "spec.claimRef.name")), "c1");
	assert_string_equal(json_string_value(vc_json_path(body, "spec.claimRef.namespace")), "ns");
	assert_string_equal(json_string_value(vc_json_path(body, "spec.claimRef.uid")), "u-c1");
	assert_string_equal(json_string_value(vc_json_path(body, "metadata.resourceVersion")), "3");
	assert_string_equal(
		json_string_value(json_object_get(vc_json_path(body, "metadata.annotations"),
						  "pv.kubernetes.io/bound-by-controller")),
		"yes");
	assert_int_equal(rt->assumed.count, 0);
	body = json_deep_copy(body);
	assert_non_null(body);
	/* The informer does not show the write yet: the written PV stands in for the cached one
	 * (nothing to write again), still waiting. */
	fake_reset_calls(&fk);
	cycle();
	api_calls(buf, sizeof(buf));
	assert_null(strstr(buf, "binding"));
	assert_null(strstr(buf, "persistentvolumes"));
	assert_int_equal(rt->vol_assumed.count, 1);
	/* The informer shows the pre-bound PV: the remembered write is dropped. */
	assert_int_equal(vc_json_set_path_new(body, "metadata.resourceVersion", json_string("8")),
			 0);
	put(ctx.pvs, body);
	fake_reset_calls(&fk);
	cycle();
	assert_int_equal(rt->vol_assumed.count, 0);
	api_calls(buf, sizeof(buf));
	assert_null(strstr(buf, "binding"));
	assert_null(strstr(buf, "persistentvolumes"));
	fake_reset_calls(&fk);

	/* The PV controller binds the claim: the gang is bound. */
	put(ctx.pvcs,
	    load("{\"metadata\":{\"name\":\"c1\",\"namespace\":\"ns\",\"uid\":\"u-c1\","
		 "\"resourceVersion\":\"6\",\"annotations\":{"
		 "\"pv.kubernetes.io/bind-completed\":\"yes\"}},\"spec\":{\"accessModes\":"
		 "[\"ReadWriteOnce\"],\"storageClassName\":\"local\",\"volumeName\":\"pv1\","
		 "\"resources\":{\"requests\":{\"storage\":\"1Gi\"}}},\"status\":{"
		 "\"phase\":\"Bound\"}}"));
	cycle();
	assert_true(fake_find_call(&fk, 'C', "pods", "p-0", "binding") >= 0);
	assert_true(fake_find_call(&fk, 'C', "pods", "p-1", "binding") >= 0);
	api_calls(buf, sizeof(buf));
	assert_null(strstr(buf, "persistentvolumes"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_snapshot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_podgroup_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_podgroup_write_queued_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_podgroup_in_flight_not_rebuilt, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_node_selector_and_default_queue,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_no_default_priority, setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_task_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_kept_jobs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bench_kept_jobs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_assumption_expires, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_pod_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_podgroup_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_podgroup_conflict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_podgroup_error_retried_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pod_condition, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pod_condition_forbidden_patch, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pod_condition_gated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_status_forbidden_patch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evict, setup, teardown),
		cmocka_unit_test_setup_teardown(test_evict_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_queues, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_queues_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_queues_forbidden_patch, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_conf_reload, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conf_invalid_at_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conf_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reject_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ready_event_needs_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_pod, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pod_views, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pod_views_intern_sweep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pod_view_controller, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pod_view_alloc_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handlers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_volume_binding, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_session, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_session_binds_before_close, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_real_session_reject, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_view_after_bound_pods, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_session_without_bound_pods, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_partial_view_caps_queue_share, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_alloc_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pod_condition_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pod_condition_unlimited, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pod_condition_default_burst, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pod_condition_message_paced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_podgroup_message_coalesced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pod_conditions_last, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_not_behind_pod_conditions, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_workers_end_when_idle, setup, teardown),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
