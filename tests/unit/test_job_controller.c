/*
 * Unit tests for the Job lifecycle controller (docs/volcano/job-controller.md §2-§4) against a fake
 * API server. The fake keeps a store of objects, applies every write to it and logs the call; the
 * test then "delivers" the store to the informer caches (as the watches would) and calls the
 * controller's handlers, and runs the queues in its own thread (jobctl_run_pending). Informers
 * are never started, the clocks are injected, nothing sleeps.
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <time.h>
#include <cmocka.h>
#include <jansson.h>

#include "ctx.h"
#include "job_internal.h"
#include "support/fake_api.h"
#include "vc_alloc.h"
#include "vc_ctlrun.h"
#include "vc_json.h"
#include "vc_jsonpatch.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_time.h"

#define T0 INT64_C(1704067200) /* 2024-01-01T00:00:00Z */

/*
 * ---- the fake API server ----------------------------------------------------------------------
 * Its own store, not support/fake_api.h's: it behaves more like kube-apiserver (uids and
 * creationTimestamp on create, conflicts on a stale resourceVersion, the status subresource)
 * and logs "verb resource[/sub] ns/name". J() and the clock come from support/fake_api.h.
 */

struct fail_rule {
	char call[160];
	int rc;
	int times;
};

struct job_fake {
	pthread_mutex_t lock;
	json_t *store; /* "<resource>/<ns>/<name>" -> object */
	json_t *calls; /* ["<verb> <resource>[/<sub>] <ns>/<name>", ...] */
	json_t *gone;  /* store key -> the object as deleted: a watch's DELETED shows it */
	long rv, uid;
	struct fail_rule rules[8];
	size_t nrules;
};

static void skey(char *buf, size_t len, const struct vc_gvr *r, const char *ns, const char *name)
{
	snprintf(buf, len, "%s/%s/%s", r->resource, ns ? ns : "", name ? name : "");
}

/* Log the call; 0 or the rc of a matching failure rule (err filled). */
static int record(struct job_fake *f, const char *verb, const struct vc_gvr *r, const char *sub,
		  const char *ns, const char *name, struct vc_error *err)
{
	char line[256];
	size_t i;

	snprintf(line, sizeof(line), "%s %s%s%s %s/%s", verb, r->resource, sub ? "/" : "",
		 sub ? sub : "", ns ? ns : "", name ? name : "");
	json_array_append_new(f->calls, json_string(line));
	for (i = 0; i < f->nrules; i++)
		if (f->rules[i].times && !strcmp(f->rules[i].call, line)) {
			if (f->rules[i].times > 0)
				f->rules[i].times--;
			return vc_error_set(err, f->rules[i].rc, "injected failure of %s", line);
		}
	return 0;
}

static void stamp(struct job_fake *f, json_t *obj, bool fresh)
{
	json_t *md = json_object_get(obj, "metadata");
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", ++f->rv);
	json_object_set_new(md, "resourceVersion", json_string(buf));
	if (fresh) {
		if (!json_object_get(md, "uid")) {
			snprintf(buf, sizeof(buf), "uid-%ld", ++f->uid);
			json_object_set_new(md, "uid", json_string(buf));
		}
		json_object_set_new(md, "creationTimestamp", json_string("2024-01-01T00:00:00Z"));
	}
}

/* An update without resourceVersion, or with the stored one, goes through. */
static bool vc_str_eq_rv(const json_t *cur, const json_t *obj)
{
	const char *want = json_string_value(vc_json_path(obj, "metadata.resourceVersion"));

	return !want ||
	       !strcmp(want, json_string_value(vc_json_path(cur, "metadata.resourceVersion")));
}

static int fake_get(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		    const char *sub, json_t **out, struct vc_error *err)
{
	struct job_fake *f = ctx;
	char k[512];
	json_t *o;
	int rc;

	pthread_mutex_lock(&f->lock);
	rc = record(f, "get", r, sub, ns, name, err);
	skey(k, sizeof(k), r, ns, name);
	o = json_object_get(f->store, k);
	if (!rc && !o)
		rc = vc_error_set(err, VC_ENOTFOUND, "%s \"%s\" not found", r->resource, name);
	if (!rc && out)
		*out = json_deep_copy(o);
	pthread_mutex_unlock(&f->lock);
	return rc;
}

static int fake_create(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		       const char *sub, const json_t *obj, json_t **out, struct vc_error *err)
{
	struct job_fake *f = ctx;
	const char *n = json_string_value(vc_json_path(obj, "metadata.name"));
	char k[512];
	json_t *o;
	int rc;

	(void)name;
	pthread_mutex_lock(&f->lock);
	rc = record(f, "create", r, sub, ns, n, err);
	skey(k, sizeof(k), r, ns, n);
	if (!rc && json_object_get(f->store, k))
		rc = vc_error_set(err, VC_EALREADYEXISTS, "%s \"%s\" already exists", r->resource,
				  n);
	if (!rc) {
		o = json_deep_copy(obj);
		json_object_set_new(json_object_get(o, "metadata"), "namespace", json_string(ns));
		stamp(f, o, true);
		if (r == &vc_gvr_pods && !vc_json_path(o, "status.phase"))
			json_object_set_new(o, "status", json_pack("{s:s}", "phase", "Pending"));
		json_object_set_new(f->store, k, o);
		if (out)
			*out = json_deep_copy(o);
	}
	pthread_mutex_unlock(&f->lock);
	return rc;
}

static int fake_update(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		       const char *sub, const json_t *obj, json_t **out, struct vc_error *err)
{
	struct job_fake *f = ctx;
	char k[512];
	json_t *cur, *o;
	int rc;

	pthread_mutex_lock(&f->lock);
	rc = record(f, "update", r, sub, ns, name, err);
	skey(k, sizeof(k), r, ns, name);
	cur = json_object_get(f->store, k);
	if (!rc && !cur)
		rc = vc_error_set(err, VC_ENOTFOUND, "%s \"%s\" not found", r->resource, name);
	if (!rc && !vc_str_eq_rv(cur, obj))
		rc = vc_error_set(err, VC_ECONFLICT, "the object has been modified");
	if (!rc) {
		if (sub) { /* status: only the status changes */
			o = json_deep_copy(cur);
			json_object_set_new(o, "status",
					    json_deep_copy(json_object_get(obj, "status")));
		} else {
			o = json_deep_copy(obj);
			if (r == &vc_gvr_jobs && json_object_get(cur, "status"))
				json_object_set_new(o, "status",
						    json_deep_copy(json_object_get(cur, "status")));
		}
		stamp(f, o, false);
		json_object_set_new(f->store, k, o);
		if (out)
			*out = json_deep_copy(o);
	}
	pthread_mutex_unlock(&f->lock);
	return rc;
}

static int fake_patch(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		      const char *sub, enum vc_patch_type type, const json_t *patch, json_t **out,
		      struct vc_error *err)
{
	struct job_fake *f = ctx;
	char k[512];
	json_t *cur, *o = NULL;
	int rc;

	pthread_mutex_lock(&f->lock);
	rc = record(f, "patch", r, sub, ns, name, err);
	skey(k, sizeof(k), r, ns, name);
	cur = json_object_get(f->store, k);
	if (!rc && !cur)
		rc = vc_error_set(err, VC_ENOTFOUND, "%s \"%s\" not found", r->resource, name);
	if (!rc)
		rc = type == VC_PATCH_JSON ? vc_json_patch_apply(cur, patch, &o, err)
					   : vc_json_merge_patch_apply(cur, patch, &o, err);
	if (!rc) {
		stamp(f, o, false);
		json_object_set(f->store, k, o);
		if (out)
			*out = json_deep_copy(o);
		json_decref(o);
	}
	pthread_mutex_unlock(&f->lock);
	return rc;
}

static int fake_del(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		    const struct vc_delete_opts *opts, struct vc_error *err)
{
	struct job_fake *f = ctx;
	char k[512];
	int rc;

	(void)opts;
	pthread_mutex_lock(&f->lock);
	rc = record(f, "delete", r, NULL, ns, name, err);
	skey(k, sizeof(k), r, ns, name);
	if (!rc && json_object_get(f->store, k))
		json_object_set(f->gone, k, json_object_get(f->store, k));
	if (!rc && json_object_del(f->store, k))
		rc = vc_error_set(err, VC_ENOTFOUND, "%s \"%s\" not found", r->resource, name);
	pthread_mutex_unlock(&f->lock);
	return rc;
}

static const struct vc_kube_ops job_ops = {
	.get = fake_get,
	.create = fake_create,
	.update = fake_update,
	.patch = fake_patch,
	.del = fake_del,
};

/* ---- fixture ------------------------------------------------------------------------------------
 */

struct fx {
	struct job_fake f;
	struct vc_kube *kube;
	struct vc_ctrl_ctx ctx;
	struct jobctl *jc;
	struct vc_informer_handler hj, hp, hpg, hc;
	json_t *events; /* ["Type Reason Message", ...] */
	uint64_t rand;
	int max_requeue, pool;
};

static uint64_t fake_rand(void *ctx)
{
	return ++((struct fx *)ctx)->rand;
}

static void event_sink(void *ctx, const char *key, const char *type, const char *reason,
		       const char *msg)
{
	struct fx *x = ctx;
	char *s = vc_asprintf("%s %s %s", type, reason, msg);

	(void)key;
	json_array_append_new(x->events, json_string(s));
	vc_free(s);
}

static int keygen(void *ctx, char **priv, char **pub, struct vc_error *err)
{
	(void)ctx;
	(void)err;
	*priv = vc_strdup("PRIVATE");
	*pub = vc_strdup("ssh-rsa PUBLIC\n");
	return 0;
}

static const struct job_keygen test_keygen = { keygen, NULL };

/* The controller (its client, informer caches and per-job state) against x's store. */
static void fx_start(struct fx *x)
{
	struct ctx_opts o = { .jobs = true,
			      .pods = true,
			      .podgroups = true,
			      .queues = true,
			      .commands = true,
			      .priorityclasses = true,
			      .pvcs = true };
	struct jobctl_config cfg;
	struct jobctl_hooks hooks = { 0 };
	struct vc_error err;

	x->kube = vc_kube_new_with_ops(&job_ops, &x->f);
	assert_non_null(x->kube);
	assert_int_equal(ctx_init(&x->ctx, x->kube, NULL, &o, &err), 0);
	jobctl_config_defaults(&cfg);
	assert_int_equal(cfg.workers, 3);
	assert_int_equal(cfg.max_requeue, 15);
	cfg.max_requeue = x->max_requeue;
	hooks.keygen = &test_keygen;
	hooks.rand = fake_rand;
	hooks.rand_ctx = x;
	hooks.event_sink = event_sink;
	hooks.event_ctx = x;
	hooks.pool_threads = x->pool;
	assert_int_equal(jobctl_new_with(&x->ctx, &cfg, &hooks, &x->jc, &err), 0);
	jobctl_test_handlers(x->jc, &x->hj, &x->hp, &x->hpg, &x->hc);
}

static void fx_stop(struct fx *x)
{
	jobctl_free(x->jc);
	ctx_release(&x->ctx);
	vc_kube_free(x->kube);
	x->jc = NULL;
	x->kube = NULL;
}

static void fx_init(struct fx *x, int max_requeue, int pool)
{
	memset(x, 0, sizeof(*x));
	pthread_mutex_init(&x->f.lock, NULL);
	x->f.store = json_object();
	x->f.calls = json_array();
	x->f.gone = json_object();
	x->events = json_array();
	x->max_requeue = max_requeue;
	x->pool = pool;
	fake_clock_set(T0);
	fx_start(x);
}

/*
 * The controller is killed and a new one starts against the same API server (a new leader): its
 * informers list everything afresh (the next deliver is all adds), it knows nothing of the old
 * one's requests, overlay or expectations. What changed in the store meanwhile, it first sees in
 * that list.
 */
static void fx_restart(struct fx *x)
{
	fx_stop(x);
	fx_start(x);
}

static void fx_release(struct fx *x)
{
	fx_stop(x);
	json_decref(x->f.store);
	json_decref(x->f.calls);
	json_decref(x->f.gone);
	json_decref(x->events);
	pthread_mutex_destroy(&x->f.lock);
	vc_time_set_source(NULL, NULL, NULL);
}

/* Put obj (stolen) into the store as a user would create it. */
static void put(struct fx *x, const struct vc_gvr *r, json_t *obj)
{
	char k[512];

	skey(k, sizeof(k), r, json_string_value(vc_json_path(obj, "metadata.namespace")),
	     json_string_value(vc_json_path(obj, "metadata.name")));
	stamp(&x->f, obj, !vc_json_path(obj, "metadata.resourceVersion"));
	json_object_set_new(x->f.store, k, obj);
}

/* The stored object (borrowed) or NULL. */
static json_t *stored(struct fx *x, const struct vc_gvr *r, const char *ns_name)
{
	char k[512];

	snprintf(k, sizeof(k), "%s/%s", r->resource, ns_name);
	return json_object_get(x->f.store, k);
}

/* Replace a stored object by a copy with value set at path (a write by someone else). */
static void set(struct fx *x, const struct vc_gvr *r, const char *ns_name, const char *path,
		json_t *value)
{
	json_t *o = json_deep_copy(stored(x, r, ns_name));

	assert_non_null(o);
	assert_int_equal(vc_json_set_path_new(o, path, value), 0);
	put(x, r, o);
}

/* Deliver the store of one resource to its informer cache, calling h. Returns the changes. */
static int deliver_one(struct fx *x, const struct vc_gvr *r, struct vc_informer *inf,
		       const struct vc_informer_handler *h)
{
	struct vc_cache *c = vc_informer_cache(inf);
	size_t plen = strlen(r->resource) + 1, i;
	struct vc_objs all = { 0 };
	const char *k;
	json_t *o, *old;
	char ck[VC_CACHE_KEY_MAX];
	int n = 0;

	json_object_foreach (x->f.store, k, o) {
		if (strncmp(k, r->resource, plen - 1) || k[plen - 1] != '/')
			continue;
		snprintf(ck, sizeof(ck), "%s", k[plen] == '/' ? k + plen + 1 : k + plen);
		old = vc_cache_get(c, ck);
		if (old && vc_json_equal(vc_json_path(old, "metadata.resourceVersion"),
					 vc_json_path(o, "metadata.resourceVersion"))) {
			json_decref(old);
			continue;
		}
		json_decref(old);
		o = json_deep_copy(o);
		assert_int_equal(vc_cache_upsert(c, o, &old), 0);
		if (h && old && h->on_update)
			h->on_update(h->ctx, old, o);
		else if (h && !old && h->on_add)
			h->on_add(h->ctx, o);
		json_decref(old);
		json_decref(o);
		n++;
	}
	assert_int_equal(vc_cache_list(c, &all), 0);
	for (i = 0; i < all.count; i++) {
		char sk[512];

		assert_int_equal(vc_cache_key(all.items[i], ck, sizeof(ck)), 0);
		snprintf(sk, sizeof(sk), "%s/%s%s", r->resource, strchr(ck, '/') ? "" : "/", ck);
		if (json_object_get(x->f.store, sk))
			continue;
		assert_int_equal(vc_cache_delete(c, ck, &old), 0);
		/* Deleted through the fake: the final state, as a watch gives it; else the cached.
		 */
		if ((o = json_object_get(x->f.gone, sk))) {
			json_incref(o);
			json_object_del(x->f.gone, sk);
			json_decref(old);
			old = o;
		}
		if (h && h->on_delete)
			h->on_delete(h->ctx, old, false);
		json_decref(old);
		n++;
	}
	vc_objs_release(&all);
	return n;
}

static int deliver(struct fx *x)
{
	return deliver_one(x, &vc_gvr_queues, x->ctx.queues, NULL) +
	       deliver_one(x, &vc_gvr_pvcs, x->ctx.pvcs, NULL) +
	       deliver_one(x, &vc_gvr_jobs, x->ctx.jobs, &x->hj) +
	       deliver_one(x, &vc_gvr_podgroups, x->ctx.podgroups, &x->hpg) +
	       deliver_one(x, &vc_gvr_pods, x->ctx.pods, &x->hp) +
	       deliver_one(x, &vc_gvr_commands, x->ctx.commands, &x->hc);
}

/* Deliver and run until nothing changes; rate-limited retries wait on the advancing clock. */
static void settle(struct fx *x)
{
	int round, quiet = 0;

	for (round = 0; round < 200 && quiet < 3; round++) {
		int n = deliver(x);

		n += (int)jobctl_run_pending(x->jc);
		fake_clock_advance(VC_NSEC_PER_SEC);
		quiet = n ? 0 : quiet + 1;
	}
	assert_true(quiet >= 3);
}

static size_t count_calls(struct fx *x, const char *prefix)
{
	size_t i, n = 0;
	json_t *c;

	json_array_foreach (x->f.calls, i, c)
		n += !strncmp(json_string_value(c), prefix, strlen(prefix));
	return n;
}

/* Index of the first call with prefix, or -1. */
static long first_call(struct fx *x, const char *prefix)
{
	size_t i;
	json_t *c;

	json_array_foreach (x->f.calls, i, c)
		if (!strncmp(json_string_value(c), prefix, strlen(prefix)))
			return (long)i;
	return -1;
}

static bool has_event(struct fx *x, const char *text)
{
	size_t i;
	json_t *e;

	json_array_foreach (x->events, i, e)
		if (!strcmp(json_string_value(e), text))
			return true;
	return false;
}

static size_t count_events(struct fx *x, const char *text)
{
	size_t i, n = 0;
	json_t *e;

	json_array_foreach (x->events, i, e)
		n += !strcmp(json_string_value(e), text);
	return n;
}

static void clear_calls(struct fx *x)
{
	json_array_clear(x->f.calls);
	json_array_clear(x->events);
}

static size_t count_stored(struct fx *x, const char *prefix)
{
	const char *k;
	json_t *o;
	size_t n = 0;

	json_object_foreach (x->f.store, k, o)
		n += !strncmp(k, prefix, strlen(prefix));
	return n;
}

static const char *jstr(const json_t *o, const char *path)
{
	const char *s = json_string_value(vc_json_path(o, path));

	return s ? s : "(absent)";
}

static int64_t jint(const json_t *o, const char *path)
{
	return json_integer_value(vc_json_path(o, path));
}

#define JOB(x) stored((x), &vc_gvr_jobs, "ns/j")

/* ---- scenarios
 * ------------------------------------------------------------------------------------ */

static const char *const job_text =
	"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
	"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':3,'plugins':{'env':[],'svc':[]},"
	"'policies':[{'event':'PodFailed','action':'RestartJob'}],"
	"'tasks':[{'name':'w','replicas':3,'template':{'spec':{'containers':[{'name':'c',"
	"'image':'busybox'}]}}}]}}";

static const char *const evicted_restart_text =
	"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
	"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':3,'plugins':{'svc':[]},"
	"'policies':[{'event':'PodEvicted','action':'RestartJob'}],"
	"'tasks':[{'name':'w','replicas':3,'template':{'spec':{'containers':[{'name':'c',"
	"'image':'busybox'}]}}}]}}";

static void start_job(struct fx *x, const char *text)
{
	put(x, &vc_gvr_queues, J("{'metadata':{'name':'default'},'spec':{'weight':1}}"));
	put(x, &vc_gvr_jobs, J(text));
	settle(x);
}

static void set_pg_phase(struct fx *x, const char *phase)
{
	set(x, &vc_gvr_podgroups, "ns/j-U1", "status", json_pack("{s:s}", "phase", phase));
}

static void set_pod_phase(struct fx *x, const char *pod, const char *phase, int exit_code)
{
	char k[128];
	json_t *st = json_pack("{s:s}", "phase", phase);

	if (exit_code >= 0)
		json_object_set_new(st, "containerStatuses",
				    json_pack("[{s:s, s:{s:{s:i}}}]", "name", "c", "state",
					      "terminated", "exitCode", exit_code));
	snprintf(k, sizeof(k), "ns/%s", pod);
	set(x, &vc_gvr_pods, k, "status", st);
}

static void all_pods(struct fx *x, const char *phase, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		char k[40];

		snprintf(k, sizeof(k), "ns/j-w-%d", i);
		if (stored(x, &vc_gvr_pods, k))
			set_pod_phase(x, k + 3, phase, -1);
	}
}

/* A job runs to Running with 3 pods. */
static void run_to_running(struct fx *x, const char *text)
{
	start_job(x, text);
	set_pg_phase(x, "Inqueue");
	settle(x);
	all_pods(x, "Running", 3);
	settle(x);
	assert_string_equal(jstr(JOB(x), "status.state.phase"), "Running");
}

static void test_init_then_pods(void **state)
{
	struct fx x;
	json_t *job, *pg, *pod, *env;

	(void)state;
	fx_init(&x, 15, 0);
	start_job(&x, job_text);
	job = JOB(&x);
	assert_string_equal(jstr(job, "status.state.phase"), "Pending");
	assert_string_equal(jstr(job, "status.state.lastTransitionTime"), "2024-01-01T00:00:00Z");
	assert_int_equal(jint(job, "status.minAvailable"), 3);
	assert_string_equal(jstr(job, "status.conditions[0].status"), "Pending");
	assert_string_equal(jstr(job, "status.controlledResources[\"plugin-env\"]"), "env");
	assert_string_equal(jstr(job, "status.controlledResources[\"plugin-svc\"]"), "svc");
	/* Status through the status subresource only; the PodGroup created; no pods. */
	assert_int_equal(count_calls(&x, "update jobs ns/"), 0);
	assert_true(count_calls(&x, "update jobs/status ns/j") >= 1);
	assert_int_equal(count_calls(&x, "create podgroups ns/j-U1"), 1);
	assert_int_equal(count_calls(&x, "create pods"), 0);
	pg = stored(&x, &vc_gvr_podgroups, "ns/j-U1");
	assert_non_null(pg);
	assert_int_equal(jint(pg, "spec.minMember"), 3);
	assert_int_equal(jint(pg, "spec.minTaskMember.w"), 3);
	assert_string_equal(jstr(pg, "spec.queue"), "default");
	assert_string_equal(jstr(pg, "metadata.ownerReferences[0].uid"), "U1");
	assert_true(json_is_true(vc_json_path(pg, "metadata.ownerReferences[0].controller")));
	/* svc objects carry the controller reference too. */
	assert_string_equal(
		jstr(stored(&x, &vc_gvr_configmaps, "ns/j-svc"), "metadata.ownerReferences[0].uid"),
		"U1");
	assert_string_equal(jstr(stored(&x, &vc_gvr_services, "ns/j"), "spec.clusterIP"), "None");

	/* PodGroup Pending: still no pods. */
	set_pg_phase(&x, "Pending");
	settle(&x);
	assert_int_equal(count_calls(&x, "create pods"), 0);

	/* Inqueue: exactly the 3 pods. */
	clear_calls(&x);
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	assert_int_equal(count_calls(&x, "create pods"), 3);
	assert_int_equal(count_calls(&x, "create pods ns/j-w-0"), 1);
	assert_int_equal(count_calls(&x, "create pods ns/j-w-2"), 1);
	assert_int_equal(count_stored(&x, "pods/"), 3);
	pod = stored(&x, &vc_gvr_pods, "ns/j-w-1");
	assert_non_null(pod);
	assert_string_equal(jstr(pod, "metadata.labels[\"volcano.sh/task-index\"]"), "1");
	assert_string_equal(jstr(pod, "metadata.labels[\"volcano.sh/job-name\"]"), "j");
	assert_string_equal(jstr(pod, "metadata.labels[\"volcano.sh/job-namespace\"]"), "ns");
	assert_string_equal(jstr(pod, "metadata.labels[\"volcano.sh/queue-name\"]"), "default");
	assert_string_equal(jstr(pod, "metadata.annotations[\"scheduling.k8s.io/group-name\"]"),
			    "j-U1");
	assert_string_equal(jstr(pod, "metadata.annotations[\"volcano.sh/job-version\"]"), "0");
	assert_string_equal(jstr(pod, "metadata.annotations[\"volcano.sh/template-uid\"]"), "j-w");
	assert_string_equal(jstr(pod, "metadata.ownerReferences[0].kind"), "Job");
	assert_string_equal(jstr(pod, "spec.schedulerName"), "volcano");
	assert_string_equal(jstr(pod, "spec.hostname"), "j-w-1");
	assert_string_equal(jstr(pod, "spec.subdomain"), "j");
	env = vc_json_path(pod, "spec.containers[0].env");
	assert_string_equal(jstr(env, "[0].name"), "VK_TASK_INDEX");
	assert_string_equal(jstr(env, "[0].value"), "1");
	assert_string_equal(jstr(pod, "spec.volumes[0].name"), "j-svc");
	job = JOB(&x);
	assert_int_equal(jint(job, "status.pending"), 3);
	assert_int_equal(jint(job, "status.taskStatusCount.w.phase.Pending"), 3);
	assert_string_equal(jstr(job, "status.state.phase"), "Pending");

	/* Pods run: Running, and later syncs write nothing new. */
	all_pods(&x, "Running", 3);
	settle(&x);
	job = JOB(&x);
	assert_string_equal(jstr(job, "status.state.phase"), "Running");
	assert_int_equal(jint(job, "status.running"), 3);
	assert_int_equal(jint(job, "status.pending"), 0);
	assert_string_equal(jstr(job, "status.conditions[1].status"), "Running");
	clear_calls(&x);
	assert_int_equal(x.hj.on_add != NULL, 1);
	x.hj.on_add(x.hj.ctx, job); /* an OutOfSync request: nothing changed, nothing written */
	assert_true(jobctl_run_pending(x.jc) >= 1);
	assert_int_equal(count_calls(&x, "update jobs/status"), 0);
	assert_int_equal(count_calls(&x, "create pods"), 0);
	fx_release(&x);
}

static void test_restart_and_max_retry(void **state)
{
	struct fx x;
	json_t *job;

	(void)state;
	fx_init(&x, 15, 0);
	run_to_running(&x, job_text);
	clear_calls(&x);
	/* PodFailed -> RestartJob: all pods marked and deleted, version and retryCount bumped. */
	set_pod_phase(&x, "j-w-0", "Failed", 1);
	settle(&x);
	assert_true(has_event(&x, "Normal ExecuteAction Start to execute action RestartJob "));
	assert_int_equal(count_calls(&x, "patch pods ns/j-w-"), 3);
	assert_int_equal(count_calls(&x, "delete pods ns/j-w-"), 3);
	assert_true(first_call(&x, "patch pods ns/j-w-0") < first_call(&x, "delete pods ns/j-w-0"));
	assert_int_equal(count_calls(&x, "delete podgroups ns/j-U1"), 1);
	assert_int_equal(count_calls(&x, "delete configmaps ns/j-svc"), 1);
	job = JOB(&x);
	assert_int_equal(jint(job, "status.version"), 1);
	assert_int_equal(jint(job, "status.retryCount"), 1);
	/*
	 * Restarting until the new PodGroup is Inqueue: RS runs on the stored counters, which
	 * still count the killed pods as terminating (docs/volcano/job-controller.md §4.13).
	 */
	assert_string_equal(jstr(job, "status.state.phase"), "Restarting");
	assert_int_equal(jint(job, "status.terminating"), 3);
	assert_int_equal(count_stored(&x, "pods/"), 0);
	assert_non_null(stored(&x, &vc_gvr_podgroups, "ns/j-U1"));

	/* Inqueue: pods re-created with version 1, RS -> Pending, then Running. */
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Pending");
	assert_string_equal(jstr(stored(&x, &vc_gvr_pods, "ns/j-w-2"),
				 "metadata.annotations[\"volcano.sh/job-version\"]"),
			    "1");
	assert_string_equal(jstr(stored(&x, &vc_gvr_pods, "ns/j-w-2"),
				 "metadata.annotations[\"volcano.sh/job-retry-count\"]"),
			    "1");
	all_pods(&x, "Running", 3);
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");
	/* Second failure (the pod has the current version 1): restart again. */
	set_pod_phase(&x, "j-w-1", "Failed", 1);
	settle(&x);
	job = JOB(&x);
	assert_int_equal(jint(job, "status.retryCount"), 2);
	assert_int_equal(jint(job, "status.version"), 2);
	assert_string_equal(jstr(job, "status.state.phase"), "Restarting");
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	all_pods(&x, "Running", 3);
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");

	/* Third failure: the last retry keeps finished pods; retryCount 3 >= maxRetry -> Failed. */
	clear_calls(&x);
	set_pod_phase(&x, "j-w-2", "Failed", 7);
	settle(&x);
	job = JOB(&x);
	assert_string_equal(jstr(job, "status.state.phase"), "Failed");
	assert_int_equal(jint(job, "status.retryCount"), 3);
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-w-2")); /* retained */
	assert_null(stored(&x, &vc_gvr_pods, "ns/j-w-0"));
	assert_null(stored(&x, &vc_gvr_podgroups, "ns/j-U1"));
	/* The retained pod is counted, as Volcano v1.7's KillJob counts it (compatibility.md). */
	assert_int_equal(jint(job, "status.failed"), 1);
	assert_int_equal(jint(job, "status.running"), 0);
	assert_int_equal(jint(job, "status.taskStatusCount.w.phase.Failed"), 1);
	assert_int_equal(json_object_size(vc_json_path(job, "status.taskStatusCount")), 1);
	fx_release(&x);
}

/*
 * After a restart, a killed pod that is still terminating keeps the job in Restarting; no pod is
 * created until RS moves it to Pending, so no new pod can fail while a RestartJob would consume
 * no retry (docs/volcano/job-controller.md §4.3; compatibility.md).
 */
static void test_restarting_waits_for_terminating(void **state)
{
	struct fx x;
	json_t *slow;

	(void)state;
	fx_init(&x, 15, 0);
	run_to_running(&x, job_text);
	slow = json_deep_copy(stored(&x, &vc_gvr_pods, "ns/j-w-1"));
	set_pod_phase(&x, "j-w-0", "Failed", 1);
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Restarting");
	assert_int_equal(jint(JOB(&x), "status.retryCount"), 1);
	/* The kubelet has not removed j-w-1 yet: it shows with a deletionTimestamp. */
	json_object_set_new(json_object_get(slow, "metadata"), "deletionTimestamp",
			    json_string("2024-01-01T00:00:10Z"));
	put(&x, &vc_gvr_pods, slow);
	clear_calls(&x);
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Restarting");
	assert_int_equal(jint(JOB(&x), "status.terminating"), 1);
	assert_int_equal(count_calls(&x, "create pods"), 0);
	/* Gone: the restart ends and every pod comes back at version 1. */
	json_object_del(x.f.store, "pods/ns/j-w-1");
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Pending");
	assert_int_equal(count_calls(&x, "create pods"), 3);
	assert_string_equal(jstr(stored(&x, &vc_gvr_pods, "ns/j-w-1"),
				 "metadata.annotations[\"volcano.sh/job-version\"]"),
			    "1");
	fx_release(&x);
}

static json_t *command(const char *name, const char *action)
{
	json_t *c = json_pack("{s:s, s:s, s:{s:s, s:s}, s:s, s:{s:s, s:s, s:s, s:s}}", "apiVersion",
			      "bus.volcano.sh/v1alpha1", "kind", "Command", "metadata", "namespace",
			      "ns", "name", name, "action", action, "target", "apiVersion",
			      "batch.volcano.sh/v1alpha1", "kind", "Job", "name", "j", "uid", "U1");

	assert_non_null(c);
	return c;
}

static void test_commands_abort_resume(void **state)
{
	struct fx x;
	json_t *job;

	(void)state;
	fx_init(&x, 15, 0);
	run_to_running(&x, job_text);
	set_pod_phase(&x, "j-w-2", "Succeeded", -1);
	settle(&x);
	clear_calls(&x);
	put(&x, &vc_gvr_commands, command("c1", "AbortJob"));
	settle(&x);
	/* The Command is deleted before anything is done. */
	assert_int_equal(first_call(&x, "delete commands ns/c1"), 0);
	assert_true(has_event(&x, "Normal CommandIssued Start to execute command AbortJob, and "
				  "clean it up to make sure executed not more than once."));
	assert_true(has_event(&x, "Normal ExecuteAction Start to execute action AbortJob "));
	job = JOB(&x);
	assert_string_equal(jstr(job, "status.state.phase"), "Aborted");
	assert_int_equal(jint(job, "status.retryCount"), 0);
	assert_true(jint(job, "status.version") >= 1);
	assert_null(stored(&x, &vc_gvr_pods, "ns/j-w-0"));
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-w-2")); /* Succeeded: soft retain */
	assert_null(stored(&x, &vc_gvr_podgroups, "ns/j-U1"));
	assert_null(stored(&x, &vc_gvr_commands, "ns/c1"));
	assert_int_equal(jint(job, "status.succeeded"), 1); /* the retained pod is counted */
	assert_int_equal(jint(job, "status.taskStatusCount.w.phase.Succeeded"), 1);

	/* A Command whose deletion finds it gone is not executed. */
	clear_calls(&x);
	x.f.rules[0] = (struct fail_rule){ "delete commands ns/c2", VC_ENOTFOUND, 1 };
	x.f.nrules = 1;
	put(&x, &vc_gvr_commands, command("c2", "ResumeJob"));
	settle(&x);
	assert_false(has_event(&x, "Normal ExecuteAction Start to execute action ResumeJob "));
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Aborted");
	x.f.nrules = 0;
	json_object_del(x.f.store, "commands/ns/c2");

	/* ResumeJob: Restarting with retryCount 1, then Pending; the succeeded pod is kept. */
	put(&x, &vc_gvr_commands, command("c3", "ResumeJob"));
	settle(&x);
	assert_true(has_event(&x, "Normal ExecuteAction Start to execute action ResumeJob "));
	job = JOB(&x);
	assert_int_equal(jint(job, "status.retryCount"), 1);
	assert_string_equal(jstr(job, "status.state.phase"), "Pending");
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-w-0"));
	assert_string_equal(jstr(stored(&x, &vc_gvr_pods, "ns/j-w-2"), "status.phase"),
			    "Succeeded");
	fx_release(&x);
}

/*
 * runningDuration as Volcano computes it: a kill that makes the transition measures to the
 * nanosecond (Volcano v1.7 on the local cluster showed `runningDuration: 7.71871174s` for the
 * seed MPI job, where Caldera wrote `7s`); a kill without one has the stored seconds.
 */
static void test_running_duration(void **state)
{
	char buf[VC_DURATION_STR_MAX];

	(void)state;
	assert_int_equal(job_running_duration("2024-01-01T00:00:00Z", "2024-01-01T00:00:05Z",
					      T0 * VC_NSEC_PER_SEC + 7718711740, buf),
			 0);
	assert_string_equal(buf, "7.71871174s");
	assert_int_equal(
		job_running_duration("2024-01-01T00:00:00Z", "2024-01-01T00:01:05Z", 0, buf), 0);
	assert_string_equal(buf, "1m5s");
	assert_int_equal(job_running_duration("2024-01-01T00:00:00Z", NULL, 0, buf), VC_EINVAL);
	assert_string_equal(buf, "");
	assert_int_equal(job_running_duration(NULL, "2024-01-01T00:00:05Z", 0, buf), VC_EINVAL);
	assert_int_equal(job_running_duration("yesterday", NULL, T0 * VC_NSEC_PER_SEC, buf),
			 VC_EINVAL);
}

/* Task w (2 workers) with TaskCompleted -> CompleteJob, task ps (1) without policies. */
static const char *const two_tasks =
	"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
	"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':3,"
	"'tasks':[{'name':'w','replicas':2,'policies':[{'event':'TaskCompleted',"
	"'action':'CompleteJob'}],'template':{'spec':{'containers':[{'name':'c'}]}}},"
	"{'name':'ps','replicas':1,'template':{'spec':{'containers':[{'name':'c'}]}}}]}}";

/* two_tasks with TaskCompleted -> ResumeJob: a sync in Running that leaves the job Running. */
static const char *const two_tasks_resume =
	"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
	"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':3,"
	"'tasks':[{'name':'w','replicas':2,'policies':[{'event':'TaskCompleted',"
	"'action':'ResumeJob'}],'template':{'spec':{'containers':[{'name':'c'}]}}},"
	"{'name':'ps','replicas':1,'template':{'spec':{'containers':[{'name':'c'}]}}}]}}";

static void test_task_completed_and_min_success(void **state)
{
	static const char *const min_success =
		"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
		"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':3,'minSuccess':2,"
		"'tasks':[{'name':'w','replicas':3,'template':{'spec':{'containers':[{'name':"
		"'c'}]}}}]}}";
	struct fx x;
	json_t *job, *tsc;

	(void)state;
	fx_init(&x, 15, 0);
	start_job(&x, two_tasks);
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	assert_int_equal(count_stored(&x, "pods/"), 3);
	set_pod_phase(&x, "j-ps-0", "Running", -1);
	all_pods(&x, "Running", 2);
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");
	set_pod_phase(&x, "j-w-0", "Succeeded", -1);
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");
	set_pod_phase(&x, "j-w-1", "Succeeded", -1);
	settle(&x);
	assert_true(has_event(&x, "Normal ExecuteAction Start to execute action CompleteJob "));
	job = JOB(&x);
	assert_string_equal(jstr(job, "status.state.phase"), "Completed");
	assert_null(stored(&x, &vc_gvr_pods, "ns/j-ps-0"));
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-w-1"));
	/*
	 * Completing -> Completed through kills: the pods they keep are counted (Volcano v1.7's
	 * KillJob; compatibility.md), the one they deleted is not.
	 */
	assert_int_equal(jint(job, "status.succeeded"), 2);
	assert_int_equal(jint(job, "status.terminating"), 0);
	assert_int_equal(jint(job, "status.running"), 0);
	tsc = J("{'w':{'phase':{'Succeeded':2}}}");
	assert_true(vc_json_equal(vc_json_path(job, "status.taskStatusCount"), tsc));
	json_decref(tsc);
	/* A later request in Completed counts the same again. */
	x.hj.on_add(x.hj.ctx, job);
	assert_int_equal(jobctl_run_pending(x.jc), 1);
	assert_int_equal(jint(JOB(&x), "status.succeeded"), 2);
	fx_release(&x);

	fx_init(&x, 15, 0);
	run_to_running(&x, min_success);
	set_pod_phase(&x, "j-w-0", "Succeeded", -1);
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");
	set_pod_phase(&x, "j-w-1", "Succeeded", -1);
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Completed");
	/* The finished state's soft kill removes the pod still running. */
	assert_null(stored(&x, &vc_gvr_pods, "ns/j-w-2"));
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-w-0"));
	fx_release(&x);
}

static void test_scale_up_down(void **state)
{
	struct fx x;
	json_t *cm;

	(void)state;
	fx_init(&x, 15, 0);
	run_to_running(&x, job_text);
	clear_calls(&x);
	set(&x, &vc_gvr_jobs, "ns/j", "spec.tasks[0].replicas", json_integer(5));
	set(&x, &vc_gvr_jobs, "ns/j", "spec.minAvailable", json_integer(4));
	settle(&x);
	assert_int_equal(count_calls(&x, "create pods"), 2);
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-w-4"));
	assert_int_equal(jint(stored(&x, &vc_gvr_podgroups, "ns/j-U1"), "spec.minMember"), 4);
	assert_int_equal(jint(stored(&x, &vc_gvr_podgroups, "ns/j-U1"), "spec.minTaskMember.w"), 5);
	cm = stored(&x, &vc_gvr_configmaps, "ns/j-svc");
	assert_string_equal(jstr(cm, "data.VC_W_NUM"), "5");

	clear_calls(&x);
	set(&x, &vc_gvr_jobs, "ns/j", "spec.tasks[0].replicas", json_integer(2));
	set(&x, &vc_gvr_jobs, "ns/j", "spec.minAvailable", json_integer(2));
	settle(&x);
	assert_int_equal(count_calls(&x, "delete pods"), 3);
	assert_int_equal(count_stored(&x, "pods/"), 2);
	assert_null(stored(&x, &vc_gvr_pods, "ns/j-w-2"));
	cm = stored(&x, &vc_gvr_configmaps, "ns/j-svc");
	assert_string_equal(jstr(cm, "data.VC_W_NUM"), "2");
	assert_int_equal(jint(stored(&x, &vc_gvr_podgroups, "ns/j-U1"), "spec.minMember"), 2);
	fx_release(&x);

	/*
	 * A scale-down is not an eviction: the surplus pods are marked out-of-sync before their
	 * delete, so a PodEvicted -> RestartJob policy does not restart the job (Volcano issue
	 * #4072; docs/compatibility.md).
	 */
	fx_init(&x, 15, 0);
	run_to_running(&x, evicted_restart_text);
	clear_calls(&x);
	set(&x, &vc_gvr_jobs, "ns/j", "spec.tasks[0].replicas", json_integer(2));
	set(&x, &vc_gvr_jobs, "ns/j", "spec.minAvailable", json_integer(2));
	settle(&x);
	assert_int_equal(count_calls(&x, "patch pods ns/j-w-2"), 1);
	assert_true(first_call(&x, "patch pods ns/j-w-2") < first_call(&x, "delete pods ns/j-w-2"));
	assert_int_equal(count_calls(&x, "delete pods"), 1);
	assert_false(has_event(&x, "Normal ExecuteAction Start to execute action RestartJob "));
	assert_int_equal(jint(JOB(&x), "status.version"), 0);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");
	assert_int_equal(count_stored(&x, "pods/"), 2);
	/* A pod deleted by someone else is still an eviction. */
	json_object_del(x.f.store, "pods/ns/j-w-0");
	settle(&x);
	assert_true(has_event(&x, "Normal ExecuteAction Start to execute action RestartJob "));
	fx_release(&x);
}

static void test_retry_limit_terminates(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x, 2, 0);
	/* No queue: every sync fails. */
	put(&x, &vc_gvr_jobs, J(job_text));
	settle(&x);
	assert_true(has_event(&x, "Normal ExecuteAction Job failed on action SyncJob for retry "
				  "limit reached"));
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Terminated");
	fx_release(&x);
}

static void test_create_errors_and_crash_resume(void **state)
{
	static const char *const ten =
		"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
		"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':10,'tasks':[{'name':'w',"
		"'replicas':10,'template':{'spec':{'containers':[{'name':'c'}]}}}]}}";
	struct fx x;
	json_t *pod;
	char k[32];
	int i;

	(void)state;
	fx_init(&x, 15, 0);
	start_job(&x, ten);
	/* A create error: event, retry; the pod is created on the retry. */
	x.f.rules[0] = (struct fail_rule){ "create pods ns/j-w-3", VC_EFORBIDDEN, 1 };
	x.f.nrules = 1;
	set_pg_phase(&x, "Inqueue");
	deliver(&x);
	jobctl_run_pending(x.jc);
	assert_true(has_event(&x, "Warning FailedCreate Error creating pods: [failed to create pod "
				  "j-w-3, err: injected failure of create pods ns/j-w-3]"));
	settle(&x);
	assert_int_equal(count_stored(&x, "pods/"), 10);
	fx_release(&x);

	/* A restart after a crash: 5 pods cached, 2 more already on the server (watch lag). */
	fx_init(&x, 15, 0);
	start_job(&x, ten);
	set_pg_phase(&x, "Inqueue");
	for (i = 0; i < 7; i++) {
		snprintf(k, sizeof(k), "ns/j-w-%d", i);
		pod = J("{'metadata':{'namespace':'ns','annotations':{'volcano.sh/job-name':'j',"
			"'volcano.sh/job-version':'0','volcano.sh/task-spec':'w'},"
			"'ownerReferences':[{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job',"
			"'name':'j','uid':'U1','controller':true}]},'status':{'phase':'Running'}}");
		json_object_set_new(json_object_get(pod, "metadata"), "name", json_string(k + 3));
		put(&x, &vc_gvr_pods, pod);
		if (i == 4)
			deliver(&x);
	}
	clear_calls(&x);
	jobctl_run_pending(x.jc);
	assert_int_equal(count_calls(&x, "create pods"), 5);
	assert_int_equal(count_stored(&x, "pods/"), 10);
	settle(&x);
	assert_int_equal(count_stored(&x, "pods/"), 10);
	assert_int_equal(count_calls(&x, "create pods"), 5);
	fx_release(&x);
}

static void test_delayed_action(void **state)
{
	static const char *const pending_policy =
		"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
		"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':3,'tasks':[{'name':'w',"
		"'replicas':3,'policies':[{'event':'PodPending','action':'RestartPod',"
		"'timeout':'10m'}],'template':{'spec':{'containers':[{'name':'c'}]}}}]}}";
	struct fx x;

	(void)state;
	fx_init(&x, 15, 0);
	start_job(&x, pending_policy);
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	assert_true(has_event(&x, "Normal ExecuteAction Execute action RestartPod after 10m0s"));
	assert_int_equal(jobctl_delayed_count(x.jc, "ns/j"), 3);
	/* Pod 0 starts running: its delayed action is cancelled. */
	set_pod_phase(&x, "j-w-0", "Running", -1);
	settle(&x);

	assert_int_equal(jobctl_delayed_count(x.jc, "ns/j"), 2);
	assert_false(has_event(&x, "Normal ExecuteAction Start to execute action RestartPod "));
	clear_calls(&x);
	fake_clock_advance(10 * VC_NSEC_PER_MIN);
	deliver(&x);
	jobctl_run_pending(x.jc);
	assert_true(has_event(&x, "Normal ExecuteAction Start to execute action RestartPod "));
	assert_int_equal(count_calls(&x, "delete pods ns/j-w-1"), 1);
	assert_int_equal(count_calls(&x, "delete pods ns/j-w-2"), 1);
	assert_int_equal(count_calls(&x, "delete pods ns/j-w-0"), 0);
	assert_int_equal(jobctl_delayed_count(x.jc, "ns/j"), 0);
	/* The first RestartPod ran in Pending (R+), the second in Restarting (RS, no R+). */
	assert_int_equal(jint(JOB(&x), "status.retryCount"), 1);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Restarting");
	fx_release(&x);
}

static void test_pool_parallel_create(void **state)
{
	static const char *const many =
		"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
		"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':60,'tasks':[{'name':'w',"
		"'replicas':60,'template':{'spec':{'containers':[{'name':'c'}]}}}]}}";
	struct fx x;

	(void)state;
	fx_init(&x, 15, 4);
	start_job(&x, many);
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	assert_int_equal(count_calls(&x, "create pods"), 60);
	assert_int_equal(count_stored(&x, "pods/"), 60);
	assert_int_equal(jint(JOB(&x), "status.pending"), 60);
	fx_release(&x);
}

/* Deliver under the fake's lock until cond holds (workers run on their own threads). */
static bool wait_until(struct fx *x, bool (*cond)(struct fx *x))
{
	struct timespec ms = { 0, 1000000 };
	bool ok = false;
	int i;

	for (i = 0; i < 10000 && !ok; i++) {
		pthread_mutex_lock(&x->f.lock);
		deliver(x);
		ok = cond(x);
		pthread_mutex_unlock(&x->f.lock);
		if (!ok)
			nanosleep(&ms, NULL);
	}
	return ok;
}

static bool has_pg(struct fx *x)
{
	return stored(x, &vc_gvr_podgroups, "ns/j-U1") != NULL;
}

static bool has_pods(struct fx *x)
{
	return count_stored(x, "pods/") == 3 && jint(JOB(x), "status.pending") == 3;
}

/* The real thing: worker threads, the command thread and the pool. */
static void test_workers_threads(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x, 15, 4);
	assert_int_equal(jobctl_start(x.jc), 0);
	assert_int_equal(jobctl_start(x.jc), VC_EINVAL);
	pthread_mutex_lock(&x.f.lock);
	put(&x, &vc_gvr_queues, J("{'metadata':{'name':'default'},'spec':{'weight':1}}"));
	put(&x, &vc_gvr_jobs, J(job_text));
	pthread_mutex_unlock(&x.f.lock);
	assert_true(wait_until(&x, has_pg));
	pthread_mutex_lock(&x.f.lock);
	set_pg_phase(&x, "Inqueue");
	pthread_mutex_unlock(&x.f.lock);
	assert_true(wait_until(&x, has_pods));
	jobctl_stop(x.jc);
	jobctl_stop(x.jc);
	/*
	 * Never a duplicate pod. Syncs that run before the watch shows the new pods should not
	 * create them again: with real threads one extra create (answered AlreadyExists) was seen
	 * once under ASan on a loaded machine, a race of the expectations still to be found
	 * (docs/roadmap.md); the single-threaded tests check the exact count.
	 */
	assert_int_equal(count_stored(&x, "pods/"), 3);
	assert_in_range(count_calls(&x, "create pods"), 3, 4);
	fx_release(&x);
}

/*
 * A backlog of new jobs (the controller starting on jobs created while it was down): the request
 * that follows one job's initiation, its PodGroup turning Inqueue (docs/volcano/job-controller.md
 * §2.5), is not queued behind every other job's initiation, so that job's pods are created
 * before the last job of the backlog is initiated. The order within the job is Volcano's: the
 * PodGroup first, pods once it is Inqueue.
 */
static void test_backlog_first_pods_early(void **state)
{
	struct fx x;
	char text[512], pg[64];
	const char *call;
	long first_pods, last_pg;
	int i;

	(void)state;
	fx_init(&x, 15, 0);
	put(&x, &vc_gvr_queues, J("{'metadata':{'name':'default'},'spec':{'weight':1}}"));
	for (i = 0; i < 20; i++) {
		snprintf(text, sizeof(text),
			 "{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{"
			 "'name':'b%02d','namespace':'ns','uid':'B%02d'},'spec':{'minAvailable':2,"
			 "'tasks':[{'name':'w','replicas':2,'template':{'spec':{'containers':["
			 "{'name':'c','image':'busybox'}]}}}]}}",
			 i, i);
		put(&x, &vc_gvr_jobs, J(text));
	}
	assert_int_equal(deliver(&x), 21);
	/* One worker step: the first job's initiation; the scheduler admits its PodGroup. */
	assert_int_equal(vc_ctlrun_run_once(x.jc->rt), 1);
	assert_int_equal(count_calls(&x, "create podgroups"), 1);
	call = json_string_value(
		json_array_get(x.f.calls, (size_t)first_call(&x, "create podgroups")));
	snprintf(pg, sizeof(pg), "ns/%s", strrchr(call, '/') + 1);
	set(&x, &vc_gvr_podgroups, pg, "status", json_pack("{s:s}", "phase", "Inqueue"));
	settle(&x);
	assert_int_equal(count_calls(&x, "create podgroups"), 20);
	assert_int_equal(count_calls(&x, "create pods"), 2);
	first_pods = first_call(&x, "create pods");
	for (last_pg = (long)json_array_size(x.f.calls) - 1; last_pg >= 0; last_pg--)
		if (!strncmp(json_string_value(json_array_get(x.f.calls, (size_t)last_pg)),
			     "create podgroups", 16))
			break;
	assert_true(first_pods >= 0);
	assert_true(first_pods < last_pg);
	fx_release(&x);
}

/*
 * The job object a status write leaves behind (the overlay that hides a watch not caught up yet)
 * goes when the watch shows that version, not only at the job's next sync: a write that does not
 * change the phase queues no sync, and after a pod storm a thousand full Job objects stayed.
 */
static void test_overlay_dropped_by_watch(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x, 15, 0);
	start_job(&x, job_text);
	assert_int_equal(jobctl_test_entries(x.jc), 0);
	set_pg_phase(&x, "Inqueue");
	deliver_one(&x, &vc_gvr_podgroups, x.ctx.podgroups, &x.hpg);
	jobctl_run_pending(x.jc); /* the pods and the status write (pending 3, still Pending) */
	assert_int_equal(count_stored(&x, "pods/"), 3);
	assert_int_equal(jint(JOB(&x), "status.pending"), 3);
	deliver_one(&x, &vc_gvr_pods, x.ctx.pods, &x.hp); /* the pods first, as in a storm */
	jobctl_run_pending(x.jc);
	assert_int_equal(jobctl_test_entries(x.jc), 1); /* the overlay */
	deliver_one(&x, &vc_gvr_jobs, x.ctx.jobs, &x.hj);
	assert_int_equal(jobctl_run_pending(x.jc), 0); /* the phase did not change: no sync */
	assert_int_equal(jobctl_test_entries(x.jc), 0);
	fx_release(&x);
}

/* ---- PVCs (docs/volcano/job-controller.md §2.3) -------------------------------------------------
 */

static const char *const pvc_job =
	"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
	"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':1,"
	"'volumes':[{'mountPath':'/data','volumeClaimName':'existing'},"
	"{'mountPath':'/scratch','volumeClaim':{'accessModes':['ReadWriteOnce'],"
	"'resources':{'requests':{'storage':'1Gi'}}}}],"
	"'tasks':[{'name':'w','replicas':1,'template':{'spec':{'containers':[{'name':'c'},"
	"{'name':'d'}],'initContainers':[{'name':'i'}]}}}]}}";

static void test_pvcs(void **state)
{
	struct fx x;
	json_t *job, *pvc, *pod;

	(void)state;
	fx_init(&x, 15, 0);
	put(&x, &vc_gvr_pvcs,
	    J("{'apiVersion':'v1','kind':'PersistentVolumeClaim','metadata':{'name':'existing',"
	      "'namespace':'ns'}}"));
	/* The first random name (suffix from rand 1..12) is taken: the next one is used. */
	put(&x, &vc_gvr_pvcs,
	    J("{'apiVersion':'v1','kind':'PersistentVolumeClaim','metadata':{'name':"
	      "'j-pvc-123456789abc','namespace':'ns'}}"));
	start_job(&x, pvc_job);
	job = JOB(&x);
	assert_string_equal(jstr(job, "spec.volumes[0].volumeClaimName"), "existing");
	assert_string_equal(jstr(job, "spec.volumes[1].volumeClaimName"), "j-pvc-defghijklmno");
	assert_string_equal(jstr(job, "status.controlledResources[\"volume-pvc-existing\"]"),
			    "existing");
	assert_string_equal(
		jstr(job, "status.controlledResources[\"volume-pvc-j-pvc-defghijklmno\"]"),
		"j-pvc-defghijklmno");
	/* The name is written with a Job update, the PVC created once, the existing one not. */
	assert_int_equal(count_calls(&x, "update jobs ns/j"), 1);
	assert_int_equal(count_calls(&x, "create persistentvolumeclaims"), 1);
	assert_int_equal(count_calls(&x, "create persistentvolumeclaims ns/j-pvc-defghijklmno"), 1);
	pvc = stored(&x, &vc_gvr_pvcs, "ns/j-pvc-defghijklmno");
	assert_non_null(pvc);
	assert_string_equal(jstr(pvc, "spec.resources.requests.storage"), "1Gi");
	assert_string_equal(jstr(pvc, "spec.accessModes[0]"), "ReadWriteOnce");
	assert_string_equal(jstr(pvc, "metadata.ownerReferences[0].kind"), "Job");
	assert_string_equal(jstr(pvc, "metadata.ownerReferences[0].uid"), "U1");
	assert_true(json_is_true(vc_json_path(pvc, "metadata.ownerReferences[0].controller")));
	assert_false(has_event(&x, "Warning PVCError"));

	/* The pod mounts both claims in its regular containers, under random volume names. */
	clear_calls(&x);
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	assert_int_equal(count_calls(&x, "create persistentvolumeclaims"), 0);
	pod = stored(&x, &vc_gvr_pods, "ns/j-w-0");
	assert_non_null(pod);
	assert_int_equal(json_array_size(vc_json_path(pod, "spec.volumes")), 2);
	assert_string_equal(jstr(pod, "spec.volumes[0].persistentVolumeClaim.claimName"),
			    "existing");
	assert_string_equal(jstr(pod, "spec.volumes[1].persistentVolumeClaim.claimName"),
			    "j-pvc-defghijklmno");
	assert_int_equal(strlen(jstr(pod, "spec.volumes[0].name")), strlen("j-") + 12);
	assert_int_equal(strncmp(jstr(pod, "spec.volumes[0].name"), "j-", 2), 0);
	assert_string_not_equal(jstr(pod, "spec.volumes[0].name"),
				jstr(pod, "spec.volumes[1].name"));
	assert_string_equal(jstr(pod, "spec.containers[0].volumeMounts[0].name"),
			    jstr(pod, "spec.volumes[0].name"));
	assert_string_equal(jstr(pod, "spec.containers[0].volumeMounts[0].mountPath"), "/data");
	assert_string_equal(jstr(pod, "spec.containers[1].volumeMounts[1].mountPath"), "/scratch");
	assert_null(vc_json_path(pod, "spec.initContainers[0].volumeMounts"));
	fx_release(&x);
}

static void test_pvc_missing(void **state)
{
	static const char *const missing =
		"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
		"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':1,"
		"'volumes':[{'mountPath':'/data','volumeClaimName':'later'}],"
		"'tasks':[{'name':'w','replicas':1,'template':{'spec':{'containers':[{'name':"
		"'c'}]}}}]}}";
	struct fx x;

	(void)state;
	fx_init(&x, -1, 0);
	start_job(&x, missing);
	assert_true(has_event(&x, "Warning PVCError pvc later is not found, the job will be in "
				  "the Pending state until the PVC is created"));
	/* The job waits in Pending; no PodGroup before the volumes are there. */
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Pending");
	assert_null(stored(&x, &vc_gvr_podgroups, "ns/j-U1"));
	assert_int_equal(count_calls(&x, "create persistentvolumeclaims"), 0);
	put(&x, &vc_gvr_pvcs,
	    J("{'apiVersion':'v1','kind':'PersistentVolumeClaim','metadata':{'name':'later',"
	      "'namespace':'ns'}}"));
	deliver(&x);
	x.hj.on_add(x.hj.ctx, JOB(&x));
	settle(&x);
	assert_non_null(stored(&x, &vc_gvr_podgroups, "ns/j-U1"));
	assert_string_equal(jstr(JOB(&x), "status.controlledResources[\"volume-pvc-later\"]"),
			    "later");

	/* With the retry limit, a PVC that never comes terminates the job
	 * (docs/volcano/job-controller.md §8.20). */
	fx_release(&x);
	fx_init(&x, 3, 0);
	start_job(&x, missing);
	assert_true(has_event(&x, "Normal ExecuteAction Job failed on action SyncJob for retry "
				  "limit reached"));
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Terminated");
	fx_release(&x);
}

/* ---- dependsOn (docs/volcano/job-controller.md §4.10) -------------------------------------------
 */

static void set_pod_status(struct fx *x, const char *pod, json_t *status)
{
	char k[128];

	snprintf(k, sizeof(k), "ns/%s", pod);
	set(x, &vc_gvr_pods, k, "status", status);
}

static json_t *running_ready(bool ready, int restarts)
{
	json_t *s = json_pack("{s:s, s:[{s:s, s:b, s:i}]}", "phase", "Running", "containerStatuses",
			      "name", "c", "ready", ready, "restartCount", restarts);

	assert_non_null(s);
	return s;
}

static void test_depends_on(void **state)
{
	static const char *const all =
		"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
		"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':1,'tasks':["
		"{'name':'a','replicas':1,'minAvailable':1,'template':{'spec':{'containers':[{"
		"'name':'c'}]}}},"
		"{'name':'b','replicas':2,'dependsOn':{'name':['a']},'template':{'spec':{"
		"'containers':[{'name':'c'}]}}}]}}";
	static const char *const any =
		"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
		"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':1,'tasks':["
		"{'name':'a','replicas':1,'minAvailable':1,'template':{'spec':{'containers':[{"
		"'name':'c'}]}}},"
		"{'name':'c','replicas':2,'minAvailable':2,'template':{'spec':{'containers':[{"
		"'name':'c'}]}}},"
		"{'name':'b','replicas':1,'dependsOn':{'name':['c','a'],'iteration':'any'},"
		"'template':{'spec':{'containers':[{'name':'c'}]}}},"
		"{'name':'d','replicas':1,'dependsOn':{'name':['c','a']},"
		"'template':{'spec':{'containers':[{'name':'c'}]}}}]}}";
	static const char *const unset =
		"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
		"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':1,'tasks':["
		"{'name':'a','replicas':2,'template':{'spec':{'containers':[{'name':'c'}]}}},"
		"{'name':'b','replicas':1,'dependsOn':{'name':['a']},'template':{'spec':{"
		"'containers':[{'name':'c'}]}}}]}}";
	struct fx x;

	(void)state;
	fx_init(&x, 15, 0);
	start_job(&x, all);
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	assert_int_equal(count_stored(&x, "pods/"), 1);
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-a-0"));
	/* Running but not ready: not yet. */
	set_pod_status(&x, "j-a-0", running_ready(false, 0));
	settle(&x);
	assert_int_equal(count_stored(&x, "pods/"), 1);
	set_pod_status(&x, "j-a-0", running_ready(true, 0));
	settle(&x);
	assert_int_equal(count_stored(&x, "pods/"), 3);
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-b-1"));
	fx_release(&x);

	/* iteration any: b starts with a alone; d (all) waits for c too. */
	fx_init(&x, 15, 0);
	start_job(&x, any);
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	assert_int_equal(count_stored(&x, "pods/"), 3); /* a-0, c-0, c-1 */
	set_pod_status(&x, "j-a-0", running_ready(true, 0));
	set_pod_status(&x, "j-c-0", running_ready(true, 0));
	settle(&x);
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-b-0"));
	assert_null(stored(&x, &vc_gvr_pods, "ns/j-d-0"));
	/* A Succeeded pod counts as ready. */
	set_pod_status(&x, "j-c-1", json_pack("{s:s}", "phase", "Succeeded"));
	settle(&x);
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-d-0"));
	fx_release(&x);

	/* A depended-on task without minAvailable is always ready (docs/volcano/job-controller.md
	 * §4.10). */
	fx_init(&x, 15, 0);
	start_job(&x, unset);
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	assert_int_equal(count_stored(&x, "pods/"), 3);
	fx_release(&x);
}

/* ---- TaskFailed (docs/volcano/job-controller.md §3.1) -------------------------------------------
 */

static void test_task_failed(void **state)
{
	static const char *const text =
		"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
		"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':3,"
		"'policies':[{'event':'TaskFailed','action':'TerminateJob'}],"
		"'tasks':[{'name':'w','replicas':3,'maxRetry':3,'template':{'spec':{'containers':"
		"[{'name':'c'}]}}}]}}";
	struct fx x;

	(void)state;
	fx_init(&x, 15, 0);
	run_to_running(&x, text);
	/* Restarts summed over the task's Running and Pending pods: 1 + 1 < 3. */
	set_pod_status(&x, "j-w-0", running_ready(true, 1));
	set_pod_status(&x, "j-w-1", running_ready(true, 1));
	settle(&x);
	assert_false(has_event(&x, "Normal ExecuteAction Start to execute action TerminateJob "));
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");
	/* A Failed pod's restarts do not count. */
	set_pod_status(&x, "j-w-2",
		       json_pack("{s:s, s:[{s:s, s:i}]}", "phase", "Failed", "containerStatuses",
				 "name", "c", "restartCount", 5));
	settle(&x);
	assert_false(has_event(&x, "Normal ExecuteAction Start to execute action TerminateJob "));
	/* 1 + 2 = 3 >= maxRetry: TaskFailed, an update that keeps the phase Running. */
	set_pod_status(&x, "j-w-1", running_ready(true, 2));
	settle(&x);
	assert_true(has_event(&x, "Normal ExecuteAction Start to execute action TerminateJob "));
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Terminated");
	assert_null(stored(&x, &vc_gvr_pods, "ns/j-w-0"));
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-w-2")); /* Failed: soft retain */
	fx_release(&x);
}

/* ---- pod events while no controller ran (docs/volcano/job-controller.md §8.40) -----------------
 */

/* A Succeeded status whose container finished at `at` (new reference). */
static json_t *succeeded_at(const char *at)
{
	return json_pack("{s:s, s:[{s:s, s:{s:{s:i, s:s}}}]}", "phase", "Succeeded",
			 "containerStatuses", "name", "c", "state", "terminated", "exitCode", 0,
			 "finishedAt", at);
}

/* The job of two_tasks, Running with its three pods. */
static void run_two_tasks(struct fx *x, const char *text)
{
	start_job(x, text);
	set_pg_phase(x, "Inqueue");
	settle(x);
	set_pod_phase(x, "j-ps-0", "Running", -1);
	all_pods(x, "Running", 2);
	settle(x);
	assert_string_equal(jstr(JOB(x), "status.state.phase"), "Running");
}

static void test_task_completed_while_away(void **state)
{
	static const char *const complete =
		"Normal ExecuteAction Start to execute action CompleteJob ";
	static const char *const resume = "Normal ExecuteAction Start to execute action ResumeJob ";
	struct fx x;

	(void)state;
	/* Both workers succeed while no controller runs: the next one completes the job, once. */
	fx_init(&x, 15, 0);
	run_two_tasks(&x, two_tasks);
	set_pod_phase(&x, "j-w-0", "Succeeded", 0);
	set_pod_phase(&x, "j-w-1", "Succeeded", 0);
	fx_restart(&x);
	clear_calls(&x);
	settle(&x);
	assert_int_equal(count_events(&x, complete), 1);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Completed");
	assert_null(stored(&x, &vc_gvr_pods, "ns/j-ps-0"));
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-w-1"));
	/* The controller after it finds the job Completed: nothing is acted on again. */
	fx_restart(&x);
	clear_calls(&x);
	settle(&x);
	assert_int_equal(count_events(&x, complete), 0);
	assert_int_equal(count_calls(&x, "delete pods"), 0);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Completed");
	fx_release(&x);

	/* One worker succeeded under the old controller, the other while none ran. */
	fx_init(&x, 15, 0);
	run_two_tasks(&x, two_tasks);
	set_pod_phase(&x, "j-w-1", "Succeeded", 0);
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");
	set_pod_phase(&x, "j-w-0", "Succeeded", 0);
	fx_restart(&x);
	settle(&x);
	assert_int_equal(count_events(&x, complete), 1);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Completed");
	fx_release(&x);

	/*
	 * Half the task succeeded while away: the task is not complete, so no TaskCompleted (the
	 * update would not give one either); the other worker's success, seen, completes the job.
	 */
	fx_init(&x, 15, 0);
	run_two_tasks(&x, two_tasks);
	set_pod_phase(&x, "j-w-0", "Succeeded", 0);
	fx_restart(&x);
	settle(&x);
	assert_int_equal(count_events(&x, complete), 0);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");
	set_pod_phase(&x, "j-w-1", "Succeeded", 0);
	settle(&x);
	assert_int_equal(count_events(&x, complete), 1);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Completed");
	fx_release(&x);

	/*
	 * An action that leaves the job Running (ResumeJob is a sync there) runs once for the task,
	 * not once per Succeeded pod: the update gives TaskCompleted only for the pod that
	 * completed the task.
	 */
	fx_init(&x, 15, 0);
	run_two_tasks(&x, two_tasks_resume);
	set_pod_phase(&x, "j-w-0", "Succeeded", 0);
	set_pod_phase(&x, "j-w-1", "Succeeded", 0);
	fx_restart(&x);
	clear_calls(&x);
	settle(&x);
	assert_int_equal(count_events(&x, resume), 1);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");
	fx_release(&x);

	/*
	 * A relist: j-w-1 succeeded in view; j-w-0, re-created after an eviction, succeeded within
	 * a watch gap, later (finishedAt), so it is the pod whose update completed the task though
	 * its name sorts first.
	 */
	fx_init(&x, 15, 0);
	run_two_tasks(&x, two_tasks);
	set_pod_status(&x, "j-w-1", succeeded_at("2024-01-01T00:00:05Z"));
	settle(&x);
	json_object_del(x.f.store, "pods/ns/j-w-0");
	deliver(&x);
	jobctl_run_pending(x.jc);
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-w-0"));
	set_pod_status(&x, "j-w-0", succeeded_at("2024-01-01T00:01:00Z"));
	settle(&x);
	assert_int_equal(count_events(&x, complete), 1);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Completed");
	fx_release(&x);
}

/*
 * A kill cut short after its pods are deleted (here the svc plugin's cleanup fails, then the
 * controller is gone): the version it bumps is written before the first delete, so the next
 * controller re-creates the pods under a new version, never a second pod for (task, index,
 * version) (bench/soak.sh's created-twice invariant; docs/compatibility.md).
 */
static void test_kill_interrupted(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x, 15, 0);
	run_to_running(&x, job_text);
	x.f.rules[0] = (struct fail_rule){ "delete configmaps ns/j-svc", VC_EIO, -1 };
	x.f.nrules = 1;
	clear_calls(&x);
	set_pod_phase(&x, "j-w-0", "Failed", 1);
	deliver(&x);
	jobctl_run_pending(x.jc);
	assert_int_equal(count_calls(&x, "delete pods ns/j-w-"), 3);
	assert_int_equal(count_stored(&x, "pods/"), 0);
	/* One status write, before the first delete: the version only. */
	assert_int_equal(count_calls(&x, "update jobs/status ns/j"), 1);
	assert_true(first_call(&x, "update jobs/status ns/j") <
		    first_call(&x, "delete pods ns/j-w-"));
	assert_int_equal(jint(JOB(&x), "status.version"), 1);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");
	assert_int_equal(jint(JOB(&x), "status.retryCount"), 0);

	/* The next controller: the pods come back at version 1. */
	x.f.nrules = 0;
	fx_restart(&x);
	clear_calls(&x);
	settle(&x);
	assert_int_equal(count_calls(&x, "create pods ns/j-w-"), 3);
	assert_string_equal(jstr(stored(&x, &vc_gvr_pods, "ns/j-w-0"),
				 "metadata.annotations[\"volcano.sh/job-version\"]"),
			    "1");
	assert_int_equal(jint(JOB(&x), "status.version"), 1);

	/* A kill that goes through: the version, then the status the kill leads to. */
	all_pods(&x, "Running", 3);
	settle(&x);
	clear_calls(&x);
	set_pod_phase(&x, "j-w-1", "Failed", 1);
	deliver(&x);
	jobctl_run_pending(x.jc);
	assert_int_equal(count_calls(&x, "update jobs/status ns/j"), 2);
	assert_int_equal(jint(JOB(&x), "status.version"), 2);
	assert_int_equal(jint(JOB(&x), "status.retryCount"), 1);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Restarting");
	fx_release(&x);
}

static void test_pod_failed_while_away(void **state)
{
	static const char *const restart =
		"Normal ExecuteAction Start to execute action RestartJob ";
	static const char *const exit_code =
		"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
		"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':3,"
		"'policies':[{'exitCode':7,'action':'AbortJob'}],"
		"'tasks':[{'name':'w','replicas':3,'template':{'spec':{'containers':[{'name':"
		"'c'}]}}}]}}";
	struct fx x;
	json_t *job;

	(void)state;
	fx_init(&x, 15, 0);
	run_to_running(&x, job_text);
	/* Two pods fail while no controller runs: one restart, one retry counted. */
	set_pod_phase(&x, "j-w-0", "Failed", 1);
	set_pod_phase(&x, "j-w-2", "Failed", 1);
	fx_restart(&x);
	clear_calls(&x);
	settle(&x);
	assert_int_equal(count_events(&x, restart), 1);
	job = JOB(&x);
	assert_int_equal(jint(job, "status.version"), 1);
	assert_int_equal(jint(job, "status.retryCount"), 1);
	assert_string_equal(jstr(job, "status.state.phase"), "Restarting");
	assert_int_equal(count_calls(&x, "delete pods ns/j-w-"), 3);
	/* The controller after it acts on nothing again. */
	fx_restart(&x);
	clear_calls(&x);
	settle(&x);
	assert_int_equal(count_events(&x, restart), 0);
	assert_int_equal(jint(JOB(&x), "status.retryCount"), 1);

	/*
	 * A pod the informer first sees Failed (created and failed within a watch gap, then a
	 * relist): the same event as an update to Failed.
	 */
	set_pg_phase(&x, "Inqueue");
	deliver(&x);
	jobctl_run_pending(x.jc);
	assert_int_equal(count_stored(&x, "pods/"), 3);
	set_pod_phase(&x, "j-w-1", "Failed", 1);
	settle(&x);
	assert_int_equal(count_events(&x, restart), 1);
	job = JOB(&x);
	assert_int_equal(jint(job, "status.version"), 2);
	assert_int_equal(jint(job, "status.retryCount"), 2);

	/* The last retry while away: Failed, the finished pod retained; after that, nothing. */
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	all_pods(&x, "Running", 3);
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");
	set_pod_phase(&x, "j-w-2", "Failed", 1);
	fx_restart(&x);
	settle(&x);
	job = JOB(&x);
	assert_string_equal(jstr(job, "status.state.phase"), "Failed");
	assert_int_equal(jint(job, "status.retryCount"), 3);
	assert_non_null(stored(&x, &vc_gvr_pods, "ns/j-w-2"));
	fx_restart(&x);
	clear_calls(&x);
	settle(&x);
	assert_int_equal(count_events(&x, restart), 0);
	assert_int_equal(count_calls(&x, "delete pods"), 0);
	assert_int_equal(jint(JOB(&x), "status.retryCount"), 3);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Failed");
	fx_release(&x);

	/* The exit code of the first container goes with the event, as in the update's. */
	fx_init(&x, 15, 0);
	run_to_running(&x, exit_code);
	set_pod_phase(&x, "j-w-1", "Failed", 7);
	fx_restart(&x);
	settle(&x);
	assert_true(has_event(&x, "Normal ExecuteAction Start to execute action AbortJob "));
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Aborted");
	fx_release(&x);
}

/* ---- RestartTask / RestartPod through policies ------------------------------------------------
 */

static void test_restart_task_and_pod(void **state)
{
	static const char *const task_policy =
		"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
		"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':3,'plugins':{'svc':[]},"
		"'tasks':[{'name':'w','replicas':2,'policies':[{'event':'PodFailed',"
		"'action':'RestartTask'}],'template':{'spec':{'containers':[{'name':'c'}]}}},"
		"{'name':'ps','replicas':1,'template':{'spec':{'containers':[{'name':'c'}]}}}]}}";
	static const char *const pod_policy =
		"{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','metadata':{'name':'j',"
		"'namespace':'ns','uid':'U1'},'spec':{'minAvailable':3,"
		"'policies':[{'exitCode':3,'action':'RestartPod'}],"
		"'tasks':[{'name':'w','replicas':3,'template':{'spec':{'containers':[{'name':"
		"'c'}]}}}]}}";
	struct fx x;
	json_t *job;

	(void)state;
	fx_init(&x, 15, 0);
	start_job(&x, task_policy);
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	set_pod_phase(&x, "j-ps-0", "Running", -1);
	set_pod_phase(&x, "j-w-0", "Running", -1);
	set_pod_phase(&x, "j-w-1", "Succeeded", 0);
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");
	clear_calls(&x);
	set_pod_phase(&x, "j-w-0", "Failed", 1);
	settle(&x);
	assert_true(has_event(&x, "Normal ExecuteAction Start to execute action RestartTask "));
	/* Every pod of the task, the Succeeded one too; not the other task's; PodGroup kept. */
	assert_int_equal(count_calls(&x, "patch pods ns/j-w-0"), 1);
	assert_int_equal(count_calls(&x, "patch pods ns/j-w-1"), 1);
	assert_int_equal(count_calls(&x, "delete pods ns/j-w-0"), 1);
	assert_int_equal(count_calls(&x, "delete pods ns/j-w-1"), 1);
	assert_int_equal(count_calls(&x, "patch pods ns/j-ps-0"), 0);
	assert_int_equal(count_calls(&x, "delete pods ns/j-ps-0"), 0);
	assert_int_equal(count_calls(&x, "delete podgroups"), 0);
	/* Plugin objects go with every kill (docs/volcano/job-controller.md §8.29) and come back
	 * through Pending. */
	assert_int_equal(count_calls(&x, "delete configmaps ns/j-svc"), 1);
	job = JOB(&x);
	assert_int_equal(jint(job, "status.retryCount"), 1);
	assert_int_equal(jint(job, "status.version"), 0);
	/* The PodGroup is still Inqueue: re-created at once, same version; RS -> Pending. */
	assert_string_equal(jstr(job, "status.state.phase"), "Pending");
	assert_string_equal(jstr(stored(&x, &vc_gvr_pods, "ns/j-w-1"),
				 "metadata.annotations[\"volcano.sh/job-version\"]"),
			    "0");
	assert_string_equal(jstr(stored(&x, &vc_gvr_pods, "ns/j-w-1"),
				 "metadata.annotations[\"volcano.sh/job-retry-count\"]"),
			    "1");
	assert_string_equal(jstr(stored(&x, &vc_gvr_pods, "ns/j-w-1"), "status.phase"), "Pending");
	assert_non_null(stored(&x, &vc_gvr_configmaps, "ns/j-svc"));
	fx_release(&x);

	/* exitCode 3 -> RestartPod: that pod only; exit code 1 does nothing. */
	fx_init(&x, 15, 0);
	run_to_running(&x, pod_policy);
	clear_calls(&x);
	set_pod_phase(&x, "j-w-0", "Failed", 1);
	settle(&x);
	assert_int_equal(count_calls(&x, "delete pods"), 0);
	assert_int_equal(jint(JOB(&x), "status.retryCount"), 0);
	set_pod_phase(&x, "j-w-1", "Failed", 3);
	settle(&x);
	assert_true(has_event(&x, "Normal ExecuteAction Start to execute action RestartPod "));
	assert_int_equal(count_calls(&x, "delete pods"), 1);
	assert_int_equal(count_calls(&x, "delete pods ns/j-w-1"), 1);
	assert_int_equal(count_calls(&x, "delete podgroups"), 0);
	job = JOB(&x);
	assert_int_equal(jint(job, "status.retryCount"), 1);
	assert_int_equal(jint(job, "status.version"), 0);
	assert_string_equal(jstr(stored(&x, &vc_gvr_pods, "ns/j-w-1"), "status.phase"), "Pending");
	assert_string_equal(jstr(stored(&x, &vc_gvr_pods, "ns/j-w-0"), "status.phase"), "Failed");
	fx_release(&x);
}

/* ---- PodGroupPending (docs/volcano/job-controller.md §1.5) --------------------------------------
 */

static void test_pg_pending_event(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x, 15, 0);
	start_job(&x, job_text);
	set(&x, &vc_gvr_podgroups, "ns/j-U1", "status",
	    J("{'phase':'Pending','conditions':[{'type':'Scheduled','status':'True',"
	      "'lastTransitionTime':'2024-01-01T00:00:01Z'},{'type':'Unschedulable',"
	      "'status':'True','message':'3/3 tasks in gang unschedulable: pod group is not ready',"
	      "'lastTransitionTime':'2024-01-01T00:00:05Z'},{'type':'Unschedulable','status':"
	      "'False','message':'old','lastTransitionTime':'2024-01-01T00:00:09Z'}]}"));
	settle(&x);
	/* Volcano's text, then the first reason vcctl job explain gives (common/vc_explain.h). */
	assert_true(has_event(
		&x, "Warning PodGroupPending PodGroup ns:j unschedulable, reason: "
		    "3/3 tasks in gang unschedulable: pod group is not ready; why: the "
		    "PodGroup is Pending: the scheduler has not admitted it (enqueue) yet"));
	assert_false(has_event(&x, "Warning PodGroupPending PodGroup ns:j unschedulable, reason: "
				   "old"));
	/* The same warning again is not sent again. */
	clear_calls(&x);
	x.hj.on_add(x.hj.ctx, JOB(&x));
	assert_int_equal(jobctl_run_pending(x.jc), 1);
	assert_int_equal(json_array_size(x.events), 0);
	/* The newest True condition is Scheduled: no warning. */
	clear_calls(&x);
	set(&x, &vc_gvr_podgroups, "ns/j-U1", "status",
	    J("{'phase':'Inqueue','conditions':[{'type':'Unschedulable','status':'True',"
	      "'message':'m','lastTransitionTime':'2024-01-01T00:00:05Z'},{'type':'Scheduled',"
	      "'status':'True','lastTransitionTime':'2024-01-01T00:00:06Z'}]}"));
	settle(&x);
	assert_int_equal(json_array_size(x.events), 0);
	assert_int_equal(count_stored(&x, "pods/"), 3);
	fx_release(&x);
}

/*
 * A gang that cannot fit: the PodGroup stays Inqueue and the scheduler adds an Unschedulable
 * condition. That write alone wakes the job, which records PodGroupPending
 * (docs/volcano/job-controller.md §1.5); a write that changes neither phase nor warning does not.
 */
static void test_pg_condition_wakes_job(void **state)
{
	static const char *const want =
		"Warning PodGroupPending PodGroup ns:j unschedulable, reason: 3/3 tasks in gang "
		"unschedulable: pod group is not ready, 3 Pending, 3 minAvailable; why: the gang "
		"needs 3 tasks and only 0 fit";
	struct fx x;

	(void)state;
	fx_init(&x, 15, 0);
	start_job(&x, job_text);
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	assert_int_equal(count_stored(&x, "pods/"), 3);
	clear_calls(&x);
	set(&x, &vc_gvr_podgroups, "ns/j-U1", "status",
	    J("{'phase':'Inqueue','conditions':[{'type':'Unschedulable','status':'True',"
	      "'reason':'NotEnoughResources','message':'3/3 tasks in gang unschedulable: pod "
	      "group is not ready, 3 Pending, 3 minAvailable',"
	      "'lastTransitionTime':'2024-01-01T00:00:05Z'}]}"));
	assert_int_equal(deliver(&x), 1);
	assert_int_equal(jobctl_run_pending(x.jc), 1);
	assert_true(has_event(&x, want));
	assert_int_equal(json_array_size(x.events), 1);
	/* Only the transition time moves: nothing is queued. */
	clear_calls(&x);
	set(&x, &vc_gvr_podgroups, "ns/j-U1", "status.conditions[0].lastTransitionTime",
	    json_string("2024-01-01T00:00:06Z"));
	assert_int_equal(deliver(&x), 1);
	assert_int_equal(jobctl_run_pending(x.jc), 0);
	fx_release(&x);
}

/* ---- pod expectations -------------------------------------------------------------------------
 */

static void test_expectations(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x, 15, 0);
	start_job(&x, job_text);
	set_pg_phase(&x, "Inqueue");
	clear_calls(&x);
	deliver_one(&x, &vc_gvr_podgroups, x.ctx.podgroups, &x.hpg);
	jobctl_run_pending(x.jc);
	assert_int_equal(count_calls(&x, "create pods"), 3);
	assert_int_equal(count_calls(&x, "update jobs/status"), 1);
	assert_int_equal(jobctl_expectations(x.jc, "ns/j"), 3);
	/* A sync before the watch shows the pods: no creations, no status write. */
	clear_calls(&x);
	x.hj.on_add(x.hj.ctx, JOB(&x));
	assert_int_equal(jobctl_run_pending(x.jc), 1);
	assert_int_equal(json_array_size(x.f.calls), 0);
	assert_int_equal(jint(JOB(&x), "status.pending"), 3);
	/* Two show up; the third was deleted before the informer saw it (no event at all). */
	json_object_del(x.f.store, "pods/ns/j-w-0");
	deliver_one(&x, &vc_gvr_pods, x.ctx.pods, &x.hp);
	assert_int_equal(jobctl_expectations(x.jc, "ns/j"), 1);
	jobctl_run_pending(x.jc);
	assert_int_equal(count_calls(&x, "create pods"), 0);
	fake_clock_advance(JOB_EXPECT_TIMEOUT_NS - VC_NSEC_PER_SEC);
	x.hj.on_add(x.hj.ctx, JOB(&x));
	jobctl_run_pending(x.jc);
	assert_int_equal(count_calls(&x, "create pods"), 0);
	/* Expired: the re-check queued by the sync that relied on it creates the pod. */
	fake_clock_advance(2 * VC_NSEC_PER_SEC);
	jobctl_run_pending(x.jc);
	assert_int_equal(count_calls(&x, "create pods ns/j-w-0"), 1);
	settle(&x);
	assert_int_equal(jobctl_expectations(x.jc, "ns/j"), 0);
	assert_int_equal(count_stored(&x, "pods/"), 3);

	/* Someone else deletes a pod the informer has shown: re-created at once. */
	clear_calls(&x);
	json_object_del(x.f.store, "pods/ns/j-w-1");
	settle(&x);
	assert_int_equal(count_calls(&x, "create pods ns/j-w-1"), 1);
	all_pods(&x, "Running", 3);
	settle(&x);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Running");

	/* Deletions: RestartJob kills the 3 pods; the watch lags behind. */
	clear_calls(&x);
	set_pod_phase(&x, "j-w-0", "Failed", 1);
	deliver_one(&x, &vc_gvr_pods, x.ctx.pods, &x.hp);
	jobctl_run_pending(x.jc);
	assert_int_equal(count_calls(&x, "delete pods"), 3);
	assert_int_equal(jobctl_expectations(x.jc, "ns/j"), 3);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Restarting");
	/*
	 * A sync that still sees the old pods (and the old PodGroup, Inqueue) counts them as
	 * terminating: no second deletion, no creation, and the job stays Restarting.
	 */
	clear_calls(&x);
	x.hj.on_add(x.hj.ctx, JOB(&x));
	jobctl_run_pending(x.jc);
	assert_int_equal(count_calls(&x, "patch pods"), 0);
	assert_int_equal(count_calls(&x, "delete pods"), 0);
	assert_int_equal(count_calls(&x, "create pods"), 0);
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Restarting");
	assert_int_equal(jint(JOB(&x), "status.terminating"), 3);
	/* A kill (AbortJob in Restarting is a KillJob) skips them too. */
	put(&x, &vc_gvr_commands, command("c1", "AbortJob"));
	deliver_one(&x, &vc_gvr_commands, x.ctx.commands, &x.hc);
	jobctl_run_pending(x.jc);
	assert_true(has_event(&x, "Normal ExecuteAction Start to execute action AbortJob "));
	assert_int_equal(count_calls(&x, "patch pods"), 0);
	assert_int_equal(count_calls(&x, "delete pods"), 0);
	/* The watch catches up: nothing is expected any more. */
	deliver_one(&x, &vc_gvr_pods, x.ctx.pods, &x.hp);
	assert_int_equal(jobctl_expectations(x.jc, "ns/j"), 0);
	fx_release(&x);
}

/* The first status write and the PodGroup creation go out together; each can fail alone. */
static void test_first_writes_errors(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x, 15, 2);
	x.f.rules[0] = (struct fail_rule){ "update jobs/status ns/j", VC_EFORBIDDEN, 1 };
	x.f.nrules = 1;
	start_job(&x, job_text);
	assert_true(has_event(&x, "Warning JobStatusError injected failure of update jobs/status "
				  "ns/j"));
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Pending");
	assert_non_null(stored(&x, &vc_gvr_podgroups, "ns/j-U1"));
	fx_release(&x);

	fx_init(&x, 15, 2);
	x.f.rules[0] = (struct fail_rule){ "create podgroups ns/j-U1", VC_EFORBIDDEN, 1 };
	x.f.nrules = 1;
	start_job(&x, job_text);
	assert_true(has_event(&x, "Warning PodGroupError injected failure of create podgroups "
				  "ns/j-U1"));
	assert_int_equal(count_calls(&x, "create podgroups ns/j-U1"), 2);
	assert_non_null(stored(&x, &vc_gvr_podgroups, "ns/j-U1"));
	assert_string_equal(jstr(JOB(&x), "status.state.phase"), "Pending");
	set_pg_phase(&x, "Inqueue");
	settle(&x);
	assert_int_equal(count_stored(&x, "pods/"), 3);
	fx_release(&x);
}

/* An update that changes only what no sync reads (a condition, the node) queues nothing. */
static void test_pod_update_filter(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x, 15, 0);
	run_to_running(&x, job_text);
	clear_calls(&x);
	set(&x, &vc_gvr_pods, "ns/j-w-0", "status.conditions",
	    J("[{'type':'PodScheduled','status':'True'}]"));
	set(&x, &vc_gvr_pods, "ns/j-w-0", "spec.nodeName", json_string("n1"));
	assert_int_equal(deliver(&x), 1);
	assert_int_equal(jobctl_run_pending(x.jc), 0);
	/* A restart count does change something (TaskFailed, docs/volcano/job-controller.md §3.1).
	 */
	set_pod_status(&x, "j-w-0", running_ready(true, 1));
	deliver(&x);
	assert_int_equal(jobctl_run_pending(x.jc), 1);
	/* The svc plugin's OnJobUpdate reads its ConfigMap; nothing is written. */
	assert_int_equal(json_array_size(x.f.calls), 1);
	assert_int_equal(count_calls(&x, "get configmaps ns/j-svc"), 1);
	fx_release(&x);
}

/* A PodGroup deleted under a running job is created again at once. */
static void test_pg_deleted(void **state)
{
	struct fx x;

	(void)state;
	fx_init(&x, 15, 0);
	run_to_running(&x, job_text);
	clear_calls(&x);
	json_object_del(x.f.store, "podgroups/ns/j-U1");
	assert_int_equal(deliver(&x), 1);
	assert_int_equal(jobctl_run_pending(x.jc), 1);
	assert_int_equal(count_calls(&x, "create podgroups ns/j-U1"), 1);
	fx_release(&x);
}

/* Every allocation of a full sync fails in turn; the controller recovers afterwards. */
static void test_alloc_failures(void **state)
{
	struct fx x;
	long n;
	bool clean = false;

	(void)state;
	for (n = 0; n < 5000 && !clean; n++) {
		fx_init(&x, -1, 0);
		start_job(&x, job_text);
		set_pg_phase(&x, "Inqueue");
		deliver(&x);
		vc_alloc_fail_after(n);
		jobctl_run_pending(x.jc);
		clean = vc_alloc_failures() == 0;
		vc_alloc_fail_reset();
		x.hj.on_add(x.hj.ctx, JOB(&x));
		settle(&x);
		/*
		 * The fake may have "created" a pod it could not store (its own allocation
		 * failed): that pod is expected until the expectation expires, then created.
		 */
		fake_clock_advance(JOB_EXPECT_TIMEOUT_NS);
		settle(&x);
		assert_int_equal(count_stored(&x, "pods/"), 3);
		assert_int_equal(jobctl_expectations(x.jc, "ns/j"), 0);
		fx_release(&x);
	}
	assert_true(clean);
	assert_true(n > 100); /* the sync allocated at least this much */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_then_pods),
		cmocka_unit_test(test_restart_and_max_retry),
		cmocka_unit_test(test_restarting_waits_for_terminating),
		cmocka_unit_test(test_commands_abort_resume),
		cmocka_unit_test(test_running_duration),
		cmocka_unit_test(test_task_completed_and_min_success),
		cmocka_unit_test(test_scale_up_down),
		cmocka_unit_test(test_retry_limit_terminates),
		cmocka_unit_test(test_create_errors_and_crash_resume),
		cmocka_unit_test(test_delayed_action),
		cmocka_unit_test(test_pool_parallel_create),
		cmocka_unit_test(test_workers_threads),
		cmocka_unit_test(test_backlog_first_pods_early),
		cmocka_unit_test(test_overlay_dropped_by_watch),
		cmocka_unit_test(test_pvcs),
		cmocka_unit_test(test_pvc_missing),
		cmocka_unit_test(test_depends_on),
		cmocka_unit_test(test_task_failed),
		cmocka_unit_test(test_task_completed_while_away),
		cmocka_unit_test(test_pod_failed_while_away),
		cmocka_unit_test(test_kill_interrupted),
		cmocka_unit_test(test_restart_task_and_pod),
		cmocka_unit_test(test_pg_pending_event),
		cmocka_unit_test(test_pg_condition_wakes_job),
		cmocka_unit_test(test_expectations),
		cmocka_unit_test(test_first_writes_errors),
		cmocka_unit_test(test_pod_update_filter),
		cmocka_unit_test(test_pg_deleted),
		cmocka_unit_test(test_alloc_failures),
	};

	vc_alloc_install_json();
	if (getenv("JOBCTL_TEST_V"))
		vc_log_set_verbosity((int)strtol(getenv("JOBCTL_TEST_V"), NULL, 10));
	if (getenv("JOBCTL_TEST_FILTER"))
		cmocka_set_test_filter(getenv("JOBCTL_TEST_FILTER"));
	return cmocka_run_group_tests(tests, NULL, NULL);
}
