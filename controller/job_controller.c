/*
 * job_controller.c - the runtime of the Job lifecycle controller (job-controller.md §3): the
 * informer handlers that turn watch events into requests, the per-job work queue whose payload
 * is the list of pending requests, the workers, Command processing, policy resolution and
 * delayed actions, retries. The primitives (SyncJob, KillJob) are in job_sync.c, the pure state
 * machine in job_state.c.
 *
 * Serialisation: the queue is keyed by "<ns>/<job>", so a job is never worked on by two workers
 * at once (vc_workqueue's processing set), and its requests are merged in arrival order into the
 * key's payload, so every lifecycle policy sees the event it needs. Requests that resolve to
 * SyncJob are level-triggered: a run of them collapses into one SyncJob, executed before the next
 * non-sync action so that the state the action runs on is current.
 *
 * Delayed actions (§3.6) live in the job's entry with their due time; the key is re-added with
 * vc_workqueue_add_after, and the worker that takes it runs what is due, through the same
 * per-job serialisation. Cancelling an action removes its entry, so its wake-up does nothing.
 */
#include "job_internal.h"

#include <sys/random.h>

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_ctlrun.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

#define JOB_REQS_MAX	 4096
#define JOB_BUCKETS	 1024
#define JOB_POOL_DEFAULT 64

/* ---- request lists (the queue payload) ------------------------------------------------------- */

struct req_list {
	struct job_request **items;
	size_t n, cap;
	bool prepend; /* a retry: goes before the requests that arrived meanwhile */
};

static void reqs_free(void *p)
{
	struct req_list *l = p;
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		job_request_free(l->items[i]);
	vc_free(l->items);
	vc_free(l);
}

/* A list holding r (stolen); NULL (and r freed) when out of memory. */
static struct req_list *reqs_of(struct job_request *r)
{
	struct req_list *l = vc_calloc(1, sizeof(*l));

	if (l)
		l->items = vc_malloc(sizeof(struct job_request *));
	if (!l || !l->items) {
		vc_free(l);
		job_request_free(r);
		return NULL;
	}
	l->items[0] = r;
	l->n = l->cap = 1;
	return l;
}

static bool reqs_contains(const struct req_list *l, const struct job_request *r)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (job_request_equal(l->items[i], r))
			return true;
	return false;
}

/* vc_workqueue_merge_fn: append (or, for a retry, prepend) without duplicates. */
static int reqs_merge(void **pending, void *incoming)
{
	struct req_list *p = *pending, *in = incoming;
	struct job_request **items;
	size_t i, need;

	if (!p) {
		in->prepend = false;
		*pending = in;
		return 0;
	}
	need = p->n + in->n;
	if (need > p->cap) {
		items = vc_realloc(p->items, need * sizeof(struct job_request *));
		if (!items) {
			reqs_free(in);
			return VC_ENOMEM;
		}
		p->items = items;
		p->cap = need;
	}
	if (in->prepend) {
		memmove(p->items + in->n, p->items, p->n * sizeof(struct job_request *));
		memcpy(p->items, in->items, in->n * sizeof(struct job_request *));
		p->n += in->n;
	} else {
		for (i = 0; i < in->n; i++) {
			if (p->n >= JOB_REQS_MAX || reqs_contains(p, in->items[i])) {
				job_request_free(in->items[i]);
				continue;
			}
			p->items[p->n++] = in->items[i];
		}
	}
	in->n = 0;
	reqs_free(in);
	return 0;
}

/* ---- per-job entries: overlay and delayed actions ------------------------------------------ */

struct delayed {
	char *pod; /* "" for job-level requests */
	int event;
	enum vc_bus_action action;
	char *action_str, *task, *pod_uid, *partition;
	int64_t due; /* vc_time_mono_ns() */
	uint64_t id;
};

struct job_entry {
	struct job_entry *next;
	char *key;
	json_t *overlay; /* the job object this controller last wrote, or NULL */
	struct delayed *delayed;
	size_t ndelayed;
	/*
	 * Pod expectations: pod name -> [mono ns of the call, uid] of the creations and deletions
	 * this controller sent that the pod informer has not shown yet (NULL when none).
	 */
	json_t *exp_create, *exp_delete;
	char *pg_pending; /* the last PodGroupPending message recorded, or NULL */
};

static void delayed_release(struct delayed *d)
{
	vc_free(d->pod);
	vc_free(d->action_str);
	vc_free(d->task);
	vc_free(d->pod_uid);
	vc_free(d->partition);
	memset(d, 0, sizeof(*d));
}

static void entry_free(struct job_entry *e)
{
	size_t i;

	for (i = 0; i < e->ndelayed; i++)
		delayed_release(&e->delayed[i]);
	vc_free(e->delayed);
	json_decref(e->overlay);
	json_decref(e->exp_create);
	json_decref(e->exp_delete);
	vc_free(e->pg_pending);
	vc_free(e->key);
	vc_free(e);
}

static uint32_t fnv32(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/* The entry of key, created when asked; with c->lock held. NULL when absent or out of memory. */
static struct job_entry *entry_get(struct jobctl *c, const char *key, bool create)
{
	struct job_entry **b = &c->buckets[fnv32(key) % c->nbuckets], *e;

	for (e = *b; e; e = e->next)
		if (!strcmp(e->key, key))
			return e;
	if (!create)
		return NULL;
	e = vc_calloc(1, sizeof(*e));
	if (!e || !(e->key = vc_strdup(key))) {
		vc_free(e);
		return NULL;
	}
	e->next = *b;
	*b = e;
	return e;
}

static void entry_remove(struct jobctl *c, const char *key)
{
	struct job_entry **pp = &c->buckets[fnv32(key) % c->nbuckets], *e;

	pthread_mutex_lock(&c->lock);
	for (; (e = *pp); pp = &e->next)
		if (!strcmp(e->key, key)) {
			*pp = e->next;
			entry_free(e);
			break;
		}
	pthread_mutex_unlock(&c->lock);
}

/* An entry with nothing left in it goes away (c->lock held). */
static void entry_maybe_drop(struct jobctl *c, struct job_entry *e)
{
	struct job_entry **pp = &c->buckets[fnv32(e->key) % c->nbuckets];

	if (e->overlay || e->ndelayed || json_object_size(e->exp_create) ||
	    json_object_size(e->exp_delete) || e->pg_pending)
		return;
	for (; *pp; pp = &(*pp)->next)
		if (*pp == e) {
			*pp = e->next;
			entry_free(e);
			return;
		}
}

void job_overlay_store(struct jobctl *c, const char *key, json_t *obj)
{
	struct job_entry *e;

	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, true);
	if (e) {
		json_decref(e->overlay);
		e->overlay = json_incref(obj);
	}
	pthread_mutex_unlock(&c->lock);
}

/* ---- pod expectations ------------------------------------------------------------------------ */

static json_t **exp_set(struct job_entry *e, bool create)
{
	return create ? &e->exp_create : &e->exp_delete;
}

void job_expect(struct jobctl *c, const char *key, bool create, const char *pod, const char *uid)
{
	struct job_entry *e;
	json_t **set, *v;

	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, true);
	if (!e)
		goto out;
	set = exp_set(e, create);
	if (!*set && !(*set = json_object()))
		goto out;
	v = json_pack("[I, s]", (json_int_t)vc_time_mono_ns(), uid ? uid : "");
	/* Out of memory: no expectation, at worst a redundant call later. */
	if (v)
		(void)json_object_set_new(*set, pod, v);
out:
	if (e)
		entry_maybe_drop(c, e);
	pthread_mutex_unlock(&c->lock);
}

/* Drop the expectation of pod in e's set (any uid when uid is NULL); c->lock held. */
static void exp_drop(struct job_entry *e, bool create, const char *pod, const char *uid)
{
	json_t *set = *exp_set(e, create), *v = json_object_get(set, pod);

	if (v && (!uid || vc_str_eq(json_string_value(json_array_get(v, 1)), uid)))
		json_object_del(set, pod);
}

void job_expect_observed(struct jobctl *c, const char *key, bool create, const char *pod,
			 const char *uid)
{
	struct job_entry *e;

	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, false);
	if (e) {
		exp_drop(e, create, pod, uid);
		entry_maybe_drop(c, e);
	}
	pthread_mutex_unlock(&c->lock);
}

json_t *job_expect_snapshot(struct jobctl *c, const char *key)
{
	struct job_entry *e;
	json_t *snap = NULL;

	/* Copies, made under the lock: the sets change as the informer shows pods. */
	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, false);
	if (e && (json_object_size(e->exp_create) || json_object_size(e->exp_delete)))
		snap = json_pack("{s:o?, s:o?}", "create", json_deep_copy(e->exp_create), "delete",
				 json_deep_copy(e->exp_delete));
	pthread_mutex_unlock(&c->lock);
	return snap;
}

bool job_expecting(const json_t *snap, bool create, const char *pod, const char *uid, int64_t *left)
{
	json_t *v = json_object_get(json_object_get(snap, create ? "create" : "delete"), pod);
	int64_t rem;

	if (!v || (!create && !vc_str_eq(json_string_value(json_array_get(v, 1)), uid)))
		return false;
	rem = json_integer_value(json_array_get(v, 0)) + JOB_EXPECT_TIMEOUT_NS - vc_time_mono_ns();
	if (rem <= 0)
		return false; /* expired: the informer missed it, act again */
	if (left && (!*left || rem < *left))
		*left = rem;
	return true;
}

bool job_pg_pending_changed(struct jobctl *c, const char *key, const char *msg)
{
	struct job_entry *e;
	bool changed = true;
	char *copy;

	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, msg != NULL);
	if (e && msg && vc_str_eq(e->pg_pending, msg)) {
		changed = false;
	} else if (e) {
		copy = msg ? vc_strdup(msg) : NULL;
		vc_free(e->pg_pending);
		e->pg_pending = copy;
		entry_maybe_drop(c, e);
	}
	pthread_mutex_unlock(&c->lock);
	return changed;
}

size_t jobctl_expectations(struct jobctl *c, const char *key)
{
	struct job_entry *e;
	size_t n;

	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, false);
	n = e ? json_object_size(e->exp_create) + json_object_size(e->exp_delete) : 0;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/* resourceVersions are etcd revisions; a non-number compares as 0. */
static uint64_t rv_of(const json_t *obj)
{
	const char *rv = json_string_value(vc_json_path(obj, "metadata.resourceVersion"));
	int64_t v;

	return rv && !vc_parse_int64(rv, &v) && v > 0 ? (uint64_t)v : 0;
}

/*
 * The job under key (new reference): the informer's object, or the object this controller
 * last wrote when that one is newer (the watch has not caught up yet). NULL when the informer
 * does not have the job (deleted or not seen yet).
 */
static json_t *job_get(struct jobctl *c, const char *key)
{
	json_t *obj = vc_cache_get(vc_informer_cache(c->ctx->jobs), key);
	struct job_entry *e;

	if (!obj)
		return NULL;
	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, false);
	if (e && e->overlay) {
		if (vc_str_eq(json_string_value(vc_json_path(e->overlay, "metadata.uid")),
			      json_string_value(vc_json_path(obj, "metadata.uid"))) &&
		    rv_of(e->overlay) > rv_of(obj)) {
			json_decref(obj);
			obj = json_incref(e->overlay);
		} else {
			json_decref(e->overlay);
			e->overlay = NULL;
			entry_maybe_drop(c, e);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return obj;
}

int job_run_load(struct jobctl *c, const char *key, struct job_run *run)
{
	struct vc_error err;
	int rc;

	memset(run, 0, sizeof(*run));
	run->c = c;
	run->key = key;
	run->obj = job_get(c, key);
	if (!run->obj)
		return VC_ENOENT;
	rc = vc_job_view(run->obj, &run->job, &err);
	if (rc) {
		if (rc == VC_EINVALID)
			VC_WARN("cannot read job", "job=%s err=\"%s\"", key, err.text);
		json_decref(run->obj);
		run->obj = NULL;
		return rc;
	}
	/*
	 * The expectations are read before the pods (kube-controller-manager's order): the
	 * informer updates its cache before its handlers drop an expectation, so a pod whose
	 * expectation is gone from the snapshot is in the list below.
	 */
	run->exp = job_expect_snapshot(c, key);
	rc = vc_cache_by_index(vc_informer_cache(c->ctx->pods), CTX_INDEX_JOB, key, &run->pods);
	if (rc)
		job_run_release(run);
	return rc;
}

void job_run_release(struct job_run *run)
{
	if (run->obj)
		vc_job_view_release(&run->job);
	json_decref(run->obj);
	vc_objs_release(&run->pods);
	json_decref(run->exp);
	run->exp = NULL;
	run->obj = NULL;
}

int job_run_replace(struct job_run *run, json_t *obj)
{
	struct vc_job view;
	int rc = vc_job_view(obj, &view, NULL);

	if (rc) {
		json_decref(obj);
		return rc;
	}
	job_overlay_store(run->c, run->key, obj);
	vc_job_view_release(&run->job);
	json_decref(run->obj);
	run->obj = obj;
	run->job = view;
	return 0;
}

/* ---- events and randomness ------------------------------------------------------------------- */

void job_event(struct jobctl *c, const struct vc_job *job, const char *type, const char *reason,
	       const char *fmt, ...)
{
	struct vc_object_ref ref = { 0 };
	char small[512], *msg = small, *big = NULL, key[VC_CACHE_KEY_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(small) && (big = vc_malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		msg = big;
	}
	snprintf(key, sizeof(key), "%s/%s", job->meta.ns, job->meta.name);
	if (c->hooks.event_sink)
		c->hooks.event_sink(c->hooks.event_ctx, key, type, reason, msg);
	if (c->ctx->events) {
		ref.api_version = "batch.volcano.sh/v1alpha1";
		ref.kind = "Job";
		ref.namespace = job->meta.ns;
		ref.name = job->meta.name;
		ref.uid = job->meta.uid;
		ref.resource_version = job->meta.resource_version;
		(void)vc_event_record_ref(c->ctx->events, &ref, type, reason, "%s", msg);
	}
	vc_free(big);
}

static uint64_t default_rand(void *ctx)
{
	uint64_t v = 0;

	(void)ctx;
	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = (uint64_t)vc_time_mono_ns() * 0x9E3779B97F4A7C15ull;
	return v;
}

void job_random_suffix(struct jobctl *c, char buf[13])
{
	static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	int i;

	for (i = 0; i < 12; i++)
		buf[i] = alphabet[c->hooks.rand(c->hooks.rand_ctx) % 36];
	buf[12] = '\0';
}

const char *job_pod_owner_uid(const json_t *pod)
{
	json_t *refs = vc_json_path(pod, "metadata.ownerReferences"), *r;
	size_t i;

	json_array_foreach (refs, i, r) {
		if (!vc_json_get_bool(r, "controller", false))
			continue;
		if (vc_str_eq(vc_json_get_str(r, "apiVersion"), "batch.volcano.sh/v1alpha1") &&
		    vc_str_eq(vc_json_get_str(r, "kind"), "Job"))
			return vc_json_get_str(r, "uid");
		return NULL;
	}
	return NULL;
}

/* ---- enqueueing --------------------------------------------------------------------------------
 */

static void enqueue(struct jobctl *c, const char *key, struct job_request *r)
{
	struct req_list *l = reqs_of(r);
	int rc;

	if (!l) {
		VC_WARN("cannot queue request", "job=%s err=\"out of memory\"", key);
		return;
	}
	rc = vc_workqueue_add_with(c->q, key, reqs_merge, l);
	if (rc && rc != VC_ESHUTDOWN)
		VC_WARN("cannot queue request", "job=%s err=\"%s\"", key, vc_strerror(rc));
}

void job_recheck_after(struct jobctl *c, const char *key, int64_t delay_ns)
{
	struct job_request *r = job_request_new();
	struct req_list *l;
	int rc;

	if (!r)
		return;
	r->event = VC_EVENT_OUT_OF_SYNC;
	l = reqs_of(r);
	if (!l)
		return;
	rc = vc_workqueue_add_after_with(c->q, key, delay_ns, reqs_merge, l);
	if (rc && rc != VC_ESHUTDOWN)
		VC_WARN("cannot queue request", "job=%s err=\"%s\"", key, vc_strerror(rc));
}

static int obj_key(const json_t *obj, char *key)
{
	return vc_cache_key(obj, key, VC_CACHE_KEY_MAX);
}

/* ---- job handlers ------------------------------------------------------------------------------
 */

static void enqueue_event(struct jobctl *c, const char *key, int event)
{
	struct job_request *r = job_request_new();

	if (!r) {
		VC_WARN("cannot queue request", "job=%s err=\"out of memory\"", key);
		return;
	}
	r->event = event;
	enqueue(c, key, r);
}

static void on_job_add(void *ctx, json_t *obj)
{
	char key[VC_CACHE_KEY_MAX];

	if (!obj_key(obj, key))
		enqueue_event(ctx, key, VC_EVENT_OUT_OF_SYNC);
}

static void on_job_update(void *ctx, json_t *old_obj, json_t *new_obj)
{
	char key[VC_CACHE_KEY_MAX];
	const char *ov = json_string_value(vc_json_path(old_obj, "metadata.resourceVersion"));
	const char *nv = json_string_value(vc_json_path(new_obj, "metadata.resourceVersion"));

	if (old_obj == new_obj || (ov && nv && !strcmp(ov, nv)) || obj_key(new_obj, key))
		return;
	if (!vc_json_equal(json_object_get(old_obj, "spec"), json_object_get(new_obj, "spec")) ||
	    !vc_str_eq(json_string_value(vc_json_path(old_obj, "status.state.phase")),
		       json_string_value(vc_json_path(new_obj, "status.state.phase"))))
		enqueue_event(ctx, key, VC_EVENT_OUT_OF_SYNC);
}

static void on_job_delete(void *ctx, json_t *obj, bool final_state_unknown)
{
	char key[VC_CACHE_KEY_MAX];

	(void)final_state_unknown;
	if (!obj_key(obj, key))
		entry_remove(ctx, key);
}

/* ---- pod handlers (§3.1) ------------------------------------------------------------------------
 */

/* Whether a policy of the task or of the job could match event e (or `*`). */
static bool policies_mention(const struct vc_job *job, const char *task, enum vc_bus_event e)
{
	const struct vc_task *t = task ? vc_job_task(job, task) : NULL;
	const struct vc_policies *lists[2] = { t ? &t->policies : NULL, &job->policies };
	size_t l, i, k;

	for (l = 0; l < 2; l++)
		for (i = 0; lists[l] && i < lists[l]->count; i++)
			for (k = 0; k < lists[l]->items[i].nevents; k++)
				if (lists[l]->items[i].events[k] == e ||
				    lists[l]->items[i].events[k] == VC_EVENT_ANY)
					return true;
	return false;
}

static const char *pod_phase_str(const json_t *pod)
{
	const char *p = json_string_value(vc_json_path(pod, "status.phase"));

	return p ? p : "";
}

static const char *pod_task(const json_t *pod)
{
	return json_string_value(
		vc_json_path(pod, "metadata.annotations[\"" JOB_KEY_TASK_SPEC "\"]"));
}

static int64_t restarts_of(const json_t *statuses)
{
	json_t *s;
	size_t i;
	int64_t n = 0;

	json_array_foreach (statuses, i, s)
		n += vc_json_get_int(s, "restartCount", 0);
	return n;
}

/*
 * The task-level check of §3.1: TaskCompleted (`completed`) or TaskFailed. Reads the job from
 * the informer and the task's pods from the pod cache (which already holds the new pod).
 */
static bool task_check(struct jobctl *c, const char *jobkey, const char *task, bool completed)
{
	json_t *obj = vc_cache_get(vc_informer_cache(c->ctx->jobs), jobkey);
	struct vc_objs pods = { 0 };
	struct vc_job job;
	const struct vc_task *t;
	int64_t n = 0;
	bool hit = false;
	size_t i;

	if (!obj)
		return false;
	if (vc_job_view(obj, &job, NULL)) {
		json_decref(obj);
		return false;
	}
	t = vc_job_task(&job, task);
	if (!t || !policies_mention(&job, task,
				    completed ? VC_EVENT_TASK_COMPLETED : VC_EVENT_TASK_FAILED))
		goto out;
	if (!completed && t->max_retry < 0)
		goto out;
	if (vc_cache_by_index(vc_informer_cache(c->ctx->pods), CTX_INDEX_JOB, jobkey, &pods))
		goto out;
	for (i = 0; i < pods.count; i++) {
		const json_t *p = pods.items[i];
		const char *ph = pod_phase_str(p);

		if (!vc_str_eq(pod_task(p), task))
			continue;
		if (completed) {
			n += !strcmp(ph, "Succeeded");
		} else if (!strcmp(ph, "Running") || !strcmp(ph, "Pending")) {
			n += restarts_of(vc_json_path(p, "status.initContainerStatuses"));
			n += restarts_of(vc_json_path(p, "status.containerStatuses"));
		}
	}
	hit = completed ? (t->replicas > 0 && n >= t->replicas) : n >= t->max_retry;
out:
	vc_objs_release(&pods);
	vc_job_view_release(&job);
	json_decref(obj);
	return hit;
}

/*
 * The request of a job pod (§3.1), or NULL when the pod is not one (no Job controller
 * reference, missing annotations) or memory ran out. *key receives "<ns>/<job>".
 */
static struct job_request *pod_request(const json_t *pod, char *key)
{
	struct vc_meta m;
	const char *job, *ver, *task, *uid;
	struct job_request *r;
	int64_t v;

	vc_meta_read(pod, &m);
	uid = job_pod_owner_uid(pod);
	job = vc_meta_annotation(&m, JOB_KEY_JOB_NAME);
	ver = vc_meta_annotation(&m, JOB_KEY_JOB_VERSION);
	task = vc_meta_annotation(&m, JOB_KEY_TASK_SPEC);
	if (!uid || !job || !ver || !task || vc_parse_int64(ver, &v) || v < INT32_MIN ||
	    v > INT32_MAX)
		return NULL;
	if (snprintf(key, VC_CACHE_KEY_MAX, "%s/%s", m.ns, job) >= VC_CACHE_KEY_MAX)
		return NULL;
	r = job_request_new();
	if (!r)
		return NULL;
	r->job_version = (int32_t)v;
	if (job_request_set_str(&r->job_uid, uid) || job_request_set_str(&r->task, task) ||
	    job_request_set_str(&r->pod, m.name) || job_request_set_str(&r->pod_uid, m.uid) ||
	    job_request_set_str(&r->partition, vc_meta_label(&m, JOB_KEY_PARTITION_ID))) {
		job_request_free(r);
		return NULL;
	}
	return r;
}

static bool out_of_sync(const json_t *pod)
{
	return vc_json_path(pod, "metadata.annotations[\"" JOB_KEY_OUT_OF_SYNC "\"]") != NULL;
}

/* The informer shows the pod: the creation (and a deletion under way) are no longer expected. */
static void pod_observed(struct jobctl *c, const char *key, const struct job_request *r,
			 const json_t *pod, bool gone)
{
	job_expect_observed(c, key, true, r->pod, NULL);
	if (gone || vc_json_path(pod, "metadata.deletionTimestamp"))
		job_expect_observed(c, key, false, r->pod, r->pod_uid);
}

static void on_pod_add(void *ctx, json_t *pod)
{
	char key[VC_CACHE_KEY_MAX];
	struct job_request *r = pod_request(pod, key);

	if (!r)
		return;
	pod_observed(ctx, key, r, pod, false);
	r->event = out_of_sync(pod) ? VC_EVENT_OUT_OF_SYNC : VC_EVENT_POD_PENDING;
	enqueue(ctx, key, r);
}

static int32_t first_exit_code(const json_t *pod)
{
	json_t *t = vc_json_path(pod, "status.containerStatuses[0].state.terminated");
	int64_t v = vc_json_get_int(t, "exitCode", 0);

	return t && v >= INT32_MIN && v <= INT32_MAX ? (int32_t)v : 0;
}

/*
 * Whether an update changed anything a sync or a policy reads: the phase, the deletion mark,
 * labels and annotations, container statuses (readiness, restarts, exit codes). Volcano
 * enqueues every update as OutOfSync; one that changes only what none of that reads (the
 * scheduler's PodScheduled condition, the node name, the pod IP) would be a sync that changes
 * nothing, and is not queued.
 */
static bool pod_changed(const json_t *a, const json_t *b)
{
	static const char *const paths[] = {
		"status.phase",	   "metadata.deletionTimestamp", "metadata.annotations",
		"metadata.labels", "status.containerStatuses",	 "status.initContainerStatuses",
	};
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const json_t *x = vc_json_path(a, paths[i]), *y = vc_json_path(b, paths[i]);

		if ((x || y) && !vc_json_equal(x, y))
			return true;
	}
	return false;
}

static void on_pod_update(void *ctx, json_t *old_pod, json_t *new_pod)
{
	struct jobctl *c = ctx;
	char key[VC_CACHE_KEY_MAX];
	const char *ov = json_string_value(vc_json_path(old_pod, "metadata.resourceVersion"));
	const char *nv = json_string_value(vc_json_path(new_pod, "metadata.resourceVersion"));
	const char *op = pod_phase_str(old_pod), *np = pod_phase_str(new_pod);
	struct job_request *r;

	if (old_pod == new_pod || (ov && nv && !strcmp(ov, nv)))
		return;
	r = pod_request(new_pod, key);
	if (!r)
		return;
	pod_observed(c, key, r, new_pod, false);
	if (!pod_changed(old_pod, new_pod)) {
		job_request_free(r);
		return;
	}
	r->event = VC_EVENT_OUT_OF_SYNC;
	if (!strcmp(np, "Failed") && strcmp(op, "Failed")) {
		r->event = VC_EVENT_POD_FAILED;
		r->exit_code = first_exit_code(new_pod);
	} else if (!strcmp(np, "Succeeded") && strcmp(op, "Succeeded")) {
		if (task_check(c, key, r->task, true))
			r->event = VC_EVENT_TASK_COMPLETED;
	} else if (!strcmp(np, "Running") || !strcmp(np, "Pending")) {
		if (task_check(c, key, r->task, false))
			r->event = VC_EVENT_TASK_FAILED;
		if (strcmp(op, np))
			r->event = np[0] == 'R' ? VC_EVENT_POD_RUNNING : VC_EVENT_POD_PENDING;
	}
	if (out_of_sync(new_pod))
		r->event = VC_EVENT_OUT_OF_SYNC;
	enqueue(c, key, r);
}

static void on_pod_delete(void *ctx, json_t *pod, bool final_state_unknown)
{
	char key[VC_CACHE_KEY_MAX];
	struct job_request *r = pod_request(pod, key);

	(void)final_state_unknown;
	if (!r)
		return;
	pod_observed(ctx, key, r, pod, true);
	r->event = out_of_sync(pod) ? VC_EVENT_OUT_OF_SYNC : VC_EVENT_POD_EVICTED;
	enqueue(ctx, key, r);
}

/* ---- PodGroup and Command handlers ------------------------------------------------------------
 */

static void pg_enqueue(struct jobctl *c, const json_t *pg)
{
	struct vc_meta m;
	json_t *ref;
	const char *job = NULL;
	char key[VC_CACHE_KEY_MAX];
	size_t i;

	vc_meta_read(pg, &m);
	json_array_foreach (m.owner_references, i, ref)
		if (vc_str_eq(vc_json_get_str(ref, "kind"), "Job")) {
			job = vc_json_get_str(ref, "name");
			break;
		}
	if (!job)
		job = m.name;
	if (snprintf(key, sizeof(key), "%s/%s", m.ns, job) >= (int)sizeof(key))
		return;
	enqueue_event(c, key,
		      vc_str_eq(json_string_value(vc_json_path(pg, "status.phase")), "Unknown")
			      ? VC_EVENT_JOB_UNKNOWN
			      : JOB_EVENT_NONE);
}

/*
 * Volcano reacts to PodGroup updates only; an add whose phase is already set (a relist, or a
 * PodGroup that reached Inqueue before this controller saw it) is handled the same way so that
 * pod creation never waits for another change.
 */
static void on_pg_add(void *ctx, json_t *pg)
{
	const char *p = json_string_value(vc_json_path(pg, "status.phase"));

	if (p && *p)
		pg_enqueue(ctx, pg);
}

static void on_pg_update(void *ctx, json_t *old_pg, json_t *new_pg)
{
	if (!vc_str_eq(json_string_value(vc_json_path(old_pg, "status.phase")),
		       json_string_value(vc_json_path(new_pg, "status.phase"))))
		pg_enqueue(ctx, new_pg);
}

/*
 * A deleted PodGroup of a job that still needs one (not finished, not Aborted): Volcano does not
 * watch deletions and relies on a later pod event to re-create it, but when the killed pods are
 * gone before the PodGroup's deletion is seen (pods removed at once), no event is left and the
 * job would wait in Restarting forever. The request makes the next sync re-create it.
 */
static void on_pg_delete(void *ctx, json_t *pg, bool final_state_unknown)
{
	struct jobctl *c = ctx;
	struct vc_meta m;
	json_t *ref, *job;
	const char *name = NULL, *phase;
	char key[VC_CACHE_KEY_MAX];
	size_t i;
	bool wanted;

	(void)final_state_unknown;
	vc_meta_read(pg, &m);
	json_array_foreach (m.owner_references, i, ref)
		if (vc_str_eq(vc_json_get_str(ref, "kind"), "Job")) {
			name = vc_json_get_str(ref, "name");
			break;
		}
	if (!name || snprintf(key, sizeof(key), "%s/%s", m.ns, name) >= (int)sizeof(key))
		return;
	job = vc_cache_get(vc_informer_cache(c->ctx->jobs), key);
	phase = json_string_value(vc_json_path(job, "status.state.phase"));
	wanted = job && !vc_json_path(job, "metadata.deletionTimestamp") &&
		 !vc_str_eq(phase, "Completed") && !vc_str_eq(phase, "Failed") &&
		 !vc_str_eq(phase, "Terminated") && !vc_str_eq(phase, "Aborted");
	json_decref(job);
	if (wanted)
		enqueue_event(c, key, VC_EVENT_OUT_OF_SYNC);
}

static void on_command_add(void *ctx, json_t *obj)
{
	struct jobctl *c = ctx;
	struct vc_command cmd;
	char key[VC_CACHE_KEY_MAX];
	int rc;

	if (vc_command_view(obj, &cmd, NULL))
		return;
	if (vc_command_targets_job(&cmd) && !obj_key(obj, key)) {
		rc = vc_workqueue_add(c->cmdq, key);
		if (rc && rc != VC_ESHUTDOWN)
			VC_WARN("cannot queue command", "command=%s err=\"%s\"", key,
				vc_strerror(rc));
	}
	vc_command_view_release(&cmd);
}

/* ---- delayed actions (§3.6) ---------------------------------------------------------------------
 */

static bool is_pod_event(int e)
{
	return e == VC_EVENT_POD_PENDING || e == VC_EVENT_POD_RUNNING || e == VC_EVENT_POD_FAILED ||
	       e == VC_EVENT_POD_EVICTED;
}

static void delayed_remove_at(struct job_entry *e, size_t i)
{
	delayed_release(&e->delayed[i]);
	memmove(&e->delayed[i], &e->delayed[i + 1], (e->ndelayed - i - 1) * sizeof(*e->delayed));
	e->ndelayed--;
}

/* §3.6 "Cancellation on new pod events". */
static void delayed_cancel_for_event(struct jobctl *c, const char *key, const struct job_request *r)
{
	struct job_entry *e;
	size_t i;

	if (!is_pod_event(r->event) || r->event == VC_EVENT_POD_PENDING)
		return;
	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, false);
	for (i = 0; e && i < e->ndelayed; i++) {
		struct delayed *d = &e->delayed[i];

		if (!vc_str_eq(d->pod, r->pod ? r->pod : ""))
			continue;
		if ((d->event == VC_EVENT_POD_PENDING && vc_str_eq(d->pod_uid, r->pod_uid)) ||
		    ((d->event == VC_EVENT_POD_FAILED || d->event == VC_EVENT_POD_EVICTED) &&
		     r->event == VC_EVENT_POD_RUNNING)) {
			VC_LOG(VC_LOG_V(3), "delayed action cancelled", "job=%s pod=%s", key,
			       d->pod);
			delayed_remove_at(e, i);
			break;
		}
	}
	if (e)
		entry_maybe_drop(c, e);
	pthread_mutex_unlock(&c->lock);
}

/* §3.6 scope cancellation after action a ran with target (task, pod, partition). */
static void delayed_cancel_scope(struct jobctl *c, const char *key, enum vc_bus_action a,
				 const char *task, const char *pod, const char *partition)
{
	enum job_action_level lvl = job_action_level(a);
	struct job_entry *e;
	size_t i;

	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, false);
	for (i = 0; e && i < e->ndelayed;) {
		struct delayed *d = &e->delayed[i];
		bool hit = job_action_level(d->action) == lvl;

		if (hit && lvl == JOB_LEVEL_TASK)
			hit = vc_str_eq(d->task, task);
		else if (hit && lvl == JOB_LEVEL_POD)
			hit = vc_str_eq(d->pod, pod);
		else if (hit && lvl == JOB_LEVEL_PARTITION)
			hit = vc_str_eq(d->partition, partition);
		if (hit) {
			VC_LOG(VC_LOG_V(3), "delayed action cancelled", "job=%s pod=%s action=%s",
			       key, d->pod, vc_bus_action_name(d->action));
			delayed_remove_at(e, i);
		} else
			i++;
	}
	if (e)
		entry_maybe_drop(c, e);
	pthread_mutex_unlock(&c->lock);
}

/* Register a delayed action; returns its due time, or 0 when it was not registered. */
static int64_t delayed_register(struct jobctl *c, const char *key, const struct job_request *r,
				const struct job_resolution *res)
{
	struct job_entry *e;
	struct delayed d = { 0 }, *grown;
	const char *pod = r->pod ? r->pod : "";
	int64_t due = 0;
	size_t i;

	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, true);
	if (!e)
		goto out;
	for (i = 0; i < e->ndelayed; i++)
		if (vc_str_eq(e->delayed[i].pod, pod))
			break;
	if (i < e->ndelayed && e->delayed[i].action == res->action)
		goto out; /* the original timer keeps running */
	d.event = r->event;
	d.action = res->action;
	d.due = vc_time_mono_ns() + res->delay_ns;
	if (job_request_set_str(&d.pod, pod) ||
	    job_request_set_str(&d.action_str, res->action_str) ||
	    job_request_set_str(&d.task, r->task) || job_request_set_str(&d.pod_uid, r->pod_uid) ||
	    job_request_set_str(&d.partition, r->partition))
		goto fail;
	if (i < e->ndelayed) {
		/* Replaced: unlike Go, the old timer is cancelled with it (§8.38). */
		delayed_release(&e->delayed[i]);
		e->delayed[i] = d;
	} else {
		grown = vc_realloc(e->delayed, (e->ndelayed + 1) * sizeof(*grown));
		if (!grown)
			goto fail;
		e->delayed = grown;
		e->delayed[e->ndelayed++] = d;
	}
	due = d.due;
	goto out;
fail:
	delayed_release(&d);
out:
	if (e)
		entry_maybe_drop(c, e);
	pthread_mutex_unlock(&c->lock);
	return due;
}

/* Take the first delayed action that is due (into *out, owned), 0 when none; *next the next due. */
static bool delayed_take_due(struct jobctl *c, const char *key, struct delayed *out, int64_t *next)
{
	int64_t now = vc_time_mono_ns();
	struct job_entry *e;
	bool got = false;
	size_t i;

	*next = 0;
	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, false);
	for (i = 0; e && i < e->ndelayed; i++) {
		if (!got && e->delayed[i].due <= now) {
			*out = e->delayed[i];
			memmove(&e->delayed[i], &e->delayed[i + 1],
				(e->ndelayed - i - 1) * sizeof(*e->delayed));
			e->ndelayed--;
			got = true;
			i--;
			continue;
		}
		if (!*next || e->delayed[i].due < *next)
			*next = e->delayed[i].due;
	}
	if (e)
		entry_maybe_drop(c, e);
	pthread_mutex_unlock(&c->lock);
	return got;
}

size_t jobctl_delayed_count(struct jobctl *c, const char *key)
{
	struct job_entry *e;
	size_t n;

	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, false);
	n = e ? e->ndelayed : 0;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/* ---- processing (§3.5) -------------------------------------------------------------------------
 */

/* Execute action on the job's current state; 0 or the primitive's error. */
static int execute(struct jobctl *c, struct job_run *run, enum vc_bus_action action,
		   const char *action_str, const struct job_request *r, bool announce)
{
	struct job_decision d;
	struct job_target t = { 0 };
	int rc;

	if (announce && action != VC_ACTION_SYNC_JOB)
		job_event(c, &run->job, "Normal", "ExecuteAction", "Start to execute action %s ",
			  action_str);
	switch (action) {
	case VC_ACTION_RESTART_PARTITION:
		t.partition = r->partition ? r->partition : "";
		/* fall through */
	case VC_ACTION_RESTART_POD:
		t.pod = r->pod ? r->pod : "";
		/* fall through */
	case VC_ACTION_RESTART_TASK:
		t.task = r->task ? r->task : "";
		break;
	default:
		break;
	}
	job_state_decide(run->job.status.phase, action, &d);
	VC_LOG(VC_LOG_V(3), "executing action", "job=%s action=%s state=%s", run->key, action_str,
	       job_state_name(run->job.status.phase));
	if (d.prim == JOB_PRIM_SYNC)
		rc = job_sync(run, d.fn);
	else
		rc = job_kill(run, d.prim == JOB_PRIM_KILL_TARGET ? &t : NULL, d.retain, d.fn);
	if (!rc && !job_action_is_internal(action))
		delayed_cancel_scope(c, run->key, action, t.task, t.pod, t.partition);
	if (run->exp_left > 0)
		job_recheck_after(c, run->key, run->exp_left + 1000000);
	return rc;
}

/*
 * A failed request (§3.2): retry it rate-limited under --max-requeue-num, else record the
 * event, terminate the job from its current state and drop the request. Returns true when the
 * request was queued again.
 */
static bool retry_or_give_up(struct jobctl *c, const char *key, const struct job_request *r,
			     const char *action_str)
{
	struct job_request *dup;
	struct req_list *l;
	struct job_run run;
	int rc;

	if (vc_ctlrun_should_retry(c->q, key, c->cfg.max_requeue)) {
		dup = job_request_dup(r);
		l = dup ? reqs_of(dup) : NULL;
		if (!l)
			return false;
		l->prepend = true;
		rc = vc_workqueue_add_rate_limited_with(c->q, key, NULL, reqs_merge, l);
		if (rc && rc != VC_ESHUTDOWN)
			VC_WARN("cannot requeue request", "job=%s err=\"%s\"", key,
				vc_strerror(rc));
		return rc == 0;
	}
	if (job_run_load(c, key, &run))
		return false;
	job_event(c, &run.job, "Normal", "ExecuteAction",
		  "Job failed on action %s for retry limit reached", action_str);
	VC_WARN("terminating job and releasing resources", "job=%s", key);
	rc = execute(c, &run, VC_ACTION_TERMINATE_JOB, "TerminateJob", r, false);
	if (rc)
		VC_WARN("cannot terminate job", "job=%s err=%d", key, rc);
	job_run_release(&run);
	vc_workqueue_forget(c->q, key);
	return false;
}

/* Load and execute; on failure retry. Returns true when the request failed and was requeued. */
static bool run_action(struct jobctl *c, const char *key, enum vc_bus_action action,
		       const char *action_str, const struct job_request *r)
{
	struct job_run run;
	int rc = job_run_load(c, key, &run);

	if (rc == VC_ENOENT || rc == VC_EINVALID)
		return false; /* job not ready: dropped */
	if (!rc) {
		rc = execute(c, &run, action, action_str, r, true);
		job_run_release(&run);
	}
	if (!rc)
		return false;
	VC_LOG(VC_LOG_V(2), "request failed", "job=%s action=%s err=%d", key, action_str, rc);
	return retry_or_give_up(c, key, r, action_str);
}

static void run_delayed(struct jobctl *c, const char *key, bool *requeued)
{
	struct delayed d;
	struct job_request r;
	int64_t next;

	while (delayed_take_due(c, key, &d, &next)) {
		memset(&r, 0, sizeof(r));
		r.event = d.event;
		r.has_action = true;
		r.action = d.action;
		r.action_str = d.action_str;
		r.task = d.task;
		r.pod = *d.pod ? d.pod : NULL;
		r.pod_uid = d.pod_uid;
		r.partition = d.partition;
		if (run_action(c, key, d.action, d.action_str ? d.action_str : "", &r))
			*requeued = true;
		delayed_release(&d);
	}
	if (next) {
		int64_t wait = next - vc_time_mono_ns();
		int rc = vc_workqueue_add_after(c->q, key, wait > 0 ? wait : 0);

		if (rc && rc != VC_ESHUTDOWN)
			VC_WARN("cannot arm delayed action", "job=%s err=\"%s\"", key,
				vc_strerror(rc));
	}
}

static void process_key(struct jobctl *c, const char *key, struct req_list *reqs)
{
	const struct job_request *sync_req = NULL;
	struct job_resolution res;
	struct vc_job job;
	bool requeued = false;
	json_t *obj;
	size_t i;
	int64_t due;
	char dur[VC_DURATION_STR_MAX];

	for (i = 0; reqs && i < reqs->n; i++) {
		const struct job_request *r = reqs->items[i];

		delayed_cancel_for_event(c, key, r);
		obj = job_get(c, key);
		if (!obj)
			continue; /* job not ready: dropped */
		if (vc_job_view(obj, &job, NULL)) {
			json_decref(obj);
			continue;
		}
		job_resolve(&job, r, &res);
		if (res.delay_ns > 0) {
			due = delayed_register(c, key, r, &res);
			if (due) {
				vc_duration_format(res.delay_ns, dur, sizeof(dur));
				job_event(c, &job, "Normal", "ExecuteAction",
					  "Execute action %s after %s", res.action_str, dur);
			}
		} else if (res.action == VC_ACTION_SYNC_JOB) {
			sync_req = r;
		} else {
			if (sync_req && run_action(c, key, VC_ACTION_SYNC_JOB, "SyncJob", sync_req))
				requeued = true;
			sync_req = NULL;
			if (run_action(c, key, res.action, res.action_str, r))
				requeued = true;
		}
		vc_job_view_release(&job);
		json_decref(obj);
	}
	if (sync_req && run_action(c, key, VC_ACTION_SYNC_JOB, "SyncJob", sync_req))
		requeued = true;
	run_delayed(c, key, &requeued);
	if (!requeued)
		vc_workqueue_forget(c->q, key);
}

/* ---- Commands (§3.4) ------------------------------------------------------------------------ */

static int process_command(void *ctx, const char *key, struct vc_error *unused)
{
	struct jobctl *c = ctx;
	json_t *obj = vc_cache_get(vc_informer_cache(c->ctx->commands), key);
	struct vc_command cmd;
	struct vc_error err;
	struct job_request *r;
	struct job_run run;
	char jobkey[VC_CACHE_KEY_MAX];
	int rc;

	(void)unused;
	if (!obj)
		return 0;
	rc = vc_command_view(obj, &cmd, NULL);
	json_decref(obj);
	if (rc)
		return rc == VC_ENOMEM ? rc : 0;
	if (!vc_command_targets_job(&cmd))
		goto done;
	rc = vc_kube_delete(c->ctx->kube, &vc_gvr_commands, cmd.meta.ns, cmd.meta.name, NULL, &err);
	if (rc == VC_ENOTFOUND) {
		rc = 0; /* consumed elsewhere: not executed */
		goto done;
	}
	if (rc) {
		VC_WARN("cannot delete command", "command=%s err=\"%s\"", key, err.text);
		goto done;
	}
	snprintf(jobkey, sizeof(jobkey), "%s/%s", cmd.meta.ns, cmd.target_name);
	if (!job_run_load(c, jobkey, &run)) {
		job_event(c, &run.job, "Normal", "CommandIssued",
			  "Start to execute command %s, and clean it up to make sure executed not "
			  "more than once.",
			  cmd.action_str ? cmd.action_str : "");
		job_run_release(&run);
	}
	r = job_request_new();
	if (!r || job_request_set_str(&r->action_str, cmd.action_str)) {
		job_request_free(r);
		rc = VC_ENOMEM;
		goto done;
	}
	r->event = VC_EVENT_COMMAND_ISSUED;
	r->has_action = cmd.action_str && *cmd.action_str;
	r->action = cmd.action;
	enqueue(c, jobkey, r);
done:
	vc_command_view_release(&cmd);
	return rc;
}

/* Commands are retried, rate-limited, until they succeed. */
static const struct vc_ctlrun_retry command_retry = {
	.max_requeue = -1,
	.key_label = "command",
	.requeue_level = VC_LOG_WARN,
	.requeue_msg = "cannot requeue command",
	.requeue_err_label = "err",
};

/* ---- threads ----------------------------------------------------------------------------------
 */

static void process_job_key(void *ctx, const char *key, void *payload)
{
	process_key(ctx, key, payload);
	reqs_free(payload);
}

size_t jobctl_run_pending(struct jobctl *c)
{
	return vc_ctlrun_run_pending(c->rt);
}

/* ---- lifecycle ----------------------------------------------------------------------------------
 */

void jobctl_config_defaults(struct jobctl_config *cfg)
{
	cfg->workers = 3;
	cfg->max_requeue = 15;
}

static const struct vc_informer_handler *handler_set(struct jobctl *c, int which)
{
	static _Thread_local struct vc_informer_handler h;

	memset(&h, 0, sizeof(h));
	h.ctx = c;
	switch (which) {
	case 0:
		h.on_add = on_job_add;
		h.on_update = on_job_update;
		h.on_delete = on_job_delete;
		break;
	case 1:
		h.on_add = on_pod_add;
		h.on_update = on_pod_update;
		h.on_delete = on_pod_delete;
		break;
	case 2:
		h.on_add = on_pg_add;
		h.on_update = on_pg_update;
		h.on_delete = on_pg_delete;
		break;
	default:
		h.on_add = on_command_add;
		break;
	}
	return &h;
}

void jobctl_test_handlers(struct jobctl *c, struct vc_informer_handler *jobs,
			  struct vc_informer_handler *pods, struct vc_informer_handler *podgroups,
			  struct vc_informer_handler *commands)
{
	*jobs = *handler_set(c, 0);
	*pods = *handler_set(c, 1);
	*podgroups = *handler_set(c, 2);
	*commands = *handler_set(c, 3);
}

int jobctl_new_with(struct vc_ctrl_ctx *ctx, const struct jobctl_config *cfg,
		    const struct jobctl_hooks *hooks, struct jobctl **out, struct vc_error *err)
{
	struct vc_ctlrun_queue_def cmd = { 0 }, jobs = { 0 };
	struct vc_workqueue_opts qo;
	struct vc_informer *infs[4];
	struct jobctl *c;
	int rc = VC_ENOMEM, k;

	*out = NULL;
	if (!ctx || !cfg || !ctx->jobs || !ctx->pods || !ctx->podgroups || !ctx->commands ||
	    !ctx->queues)
		return vc_error_set(err, VC_EINVAL,
				    "the job controller needs the jobs, pods, podgroups, commands "
				    "and queues informers");
	c = vc_calloc(1, sizeof(*c));
	if (!c)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	c->ctx = ctx;
	c->cfg = *cfg;
	if (c->cfg.workers < 1)
		c->cfg.workers = 1;
	if (hooks)
		c->hooks = *hooks;
	else
		c->hooks.pool_threads = -1;
	if (!c->hooks.rand)
		c->hooks.rand = default_rand;
	if (pthread_mutex_init(&c->lock, NULL)) {
		vc_free(c);
		return vc_error_set(err, VC_ENOMEM, "cannot create a mutex");
	}
	c->nbuckets = JOB_BUCKETS;
	c->buckets = vc_calloc(c->nbuckets, sizeof(struct job_entry *));
	vc_workqueue_opts_init(&qo);
	qo.payload_free = reqs_free;
	/* The command thread first, then the workers; pending commands are taken first. */
	cmd.workers = 1;
	cmd.sync = process_command;
	cmd.retry = &command_retry;
	cmd.ctx = c;
	jobs.opts = &qo;
	jobs.workers = c->cfg.workers;
	jobs.process = process_job_key;
	jobs.ctx = c;
	if (c->buckets)
		c->rt = vc_ctlrun_new();
	if (c->rt && !vc_ctlrun_add(c->rt, &cmd, &c->cmdq) && !vc_ctlrun_add(c->rt, &jobs, &c->q))
		c->pool = job_pool_new(c->hooks.pool_threads < 0 ? JOB_POOL_DEFAULT
								 : c->hooks.pool_threads);
	if (!c->pool)
		goto fail;
	infs[0] = ctx->jobs;
	infs[1] = ctx->pods;
	infs[2] = ctx->podgroups;
	infs[3] = ctx->commands;
	for (k = 0; k < 4; k++)
		if ((rc = vc_informer_add_handler(infs[k], handler_set(c, k))))
			goto fail;
	*out = c;
	return 0;
fail:
	jobctl_free(c);
	return vc_error_set(err, rc, "cannot create the job controller: %s", vc_strerror(rc));
}

int jobctl_new(struct vc_ctrl_ctx *ctx, const struct jobctl_config *cfg, struct jobctl **out,
	       struct vc_error *err)
{
	return jobctl_new_with(ctx, cfg, NULL, out, err);
}

int jobctl_start(struct jobctl *c)
{
	if (c->stopped)
		return VC_EINVAL;
	return vc_ctlrun_start(c->rt);
}

void jobctl_stop(struct jobctl *c)
{
	if (!c || c->stopped)
		return;
	c->stopped = true;
	vc_ctlrun_stop(c->rt);
}

void jobctl_free(struct jobctl *c)
{
	struct job_entry *e, *next;
	size_t b;

	if (!c)
		return;
	jobctl_stop(c);
	job_pool_free(c->pool);
	vc_ctlrun_free(c->rt);
	for (b = 0; c->buckets && b < c->nbuckets; b++)
		for (e = c->buckets[b]; e; e = next) {
			next = e->next;
			entry_free(e);
		}
	vc_free(c->buckets);
	pthread_mutex_destroy(&c->lock);
	vc_free(c);
}
