/*
 * job_cache.c - the job controller's per-job state, as Volcano's pkg/controllers/cache: for each
 * "<ns>/<job>" key, the job object this controller last wrote (the overlay that hides a watch
 * that has not caught up), the pod expectations, the last PodGroupPending message and the
 * delayed actions (docs/volcano/job-controller.md §3.6) with their due times. Entries live in the
 * map c->entries under c->lock and go away as soon as nothing is left in them.
 */
#include "job_internal.h"

#include "vc_alloc.h"
#include "vc_hash.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

/* ---- per-job entries: overlay and delayed actions ------------------------------------------ */

struct job_entry {
	json_t *overlay; /* the job object this controller last wrote, or NULL */
	struct job_delayed *delayed;
	size_t ndelayed;
	/*
	 * Pod expectations: pod name -> [mono ns of the call, uid] of the creations and deletions
	 * this controller sent that the pod informer has not shown yet (NULL when none).
	 */
	json_t *exp_create, *exp_delete;
	char *pg_pending; /* the last PodGroupPending message recorded, or NULL */
};

void job_delayed_release(struct job_delayed *d)
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
		job_delayed_release(&e->delayed[i]);
	vc_free(e->delayed);
	json_decref(e->overlay);
	json_decref(e->exp_create);
	json_decref(e->exp_delete);
	vc_free(e->pg_pending);
	vc_free(e);
}

static void entry_free_val(void *e)
{
	entry_free(e);
}

/* The entry of key, created when asked; with c->lock held. NULL when absent or out of memory. */
static struct job_entry *entry_get(struct jobctl *c, const char *key, bool create)
{
	struct job_entry *e = vc_hmap_get(&c->entries, key);

	if (e || !create)
		return e;
	e = vc_calloc(1, sizeof(*e));
	if (e && vc_hmap_put(&c->entries, key, e, NULL)) {
		vc_free(e);
		return NULL;
	}
	return e;
}

void job_cache_remove(struct jobctl *c, const char *key)
{
	void *e;

	pthread_mutex_lock(&c->lock);
	if (vc_hmap_remove(&c->entries, key, &e))
		entry_free(e);
	pthread_mutex_unlock(&c->lock);
}

/* The entry e of key goes away when nothing is left in it (c->lock held). */
static void entry_maybe_drop(struct jobctl *c, const char *key, struct job_entry *e)
{
	if (e->overlay || e->ndelayed || json_object_size(e->exp_create) ||
	    json_object_size(e->exp_delete) || e->pg_pending)
		return;
	if (vc_hmap_remove(&c->entries, key, NULL))
		entry_free(e);
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
		entry_maybe_drop(c, key, e);
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
		entry_maybe_drop(c, key, e);
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
		entry_maybe_drop(c, key, e);
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
json_t *job_cache_get(struct jobctl *c, const char *key)
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
			entry_maybe_drop(c, key, e);
		}
	}
	pthread_mutex_unlock(&c->lock);
	return obj;
}
void job_overlay_seen(struct jobctl *c, const char *key, const json_t *obj)
{
	struct job_entry *e;

	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, false);
	if (e && e->overlay &&
	    vc_str_eq(json_string_value(vc_json_path(e->overlay, "metadata.uid")),
		      json_string_value(vc_json_path(obj, "metadata.uid"))) &&
	    rv_of(e->overlay) <= rv_of(obj)) {
		json_decref(e->overlay);
		e->overlay = NULL;
		entry_maybe_drop(c, key, e);
	}
	pthread_mutex_unlock(&c->lock);
}

/* ---- delayed actions (docs/volcano/job-controller.md §3.6) --------------------------------------
 */

static bool is_pod_event(int e)
{
	return e == VC_EVENT_POD_PENDING || e == VC_EVENT_POD_RUNNING || e == VC_EVENT_POD_FAILED ||
	       e == VC_EVENT_POD_EVICTED;
}

static void delayed_remove_at(struct job_entry *e, size_t i)
{
	job_delayed_release(&e->delayed[i]);
	memmove(&e->delayed[i], &e->delayed[i + 1], (e->ndelayed - i - 1) * sizeof(*e->delayed));
	e->ndelayed--;
}

/* docs/volcano/job-controller.md §3.6 "Cancellation on new pod events". */
void job_delayed_cancel_for_event(struct jobctl *c, const char *key, const struct job_request *r)
{
	struct job_entry *e;
	size_t i;

	if (!is_pod_event(r->event) || r->event == VC_EVENT_POD_PENDING)
		return;
	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, false);
	for (i = 0; e && i < e->ndelayed; i++) {
		struct job_delayed *d = &e->delayed[i];

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
		entry_maybe_drop(c, key, e);
	pthread_mutex_unlock(&c->lock);
}

/* docs/volcano/job-controller.md §3.6 scope cancellation after action a ran with target (task, pod,
 * partition). */
void job_delayed_cancel_scope(struct jobctl *c, const char *key, enum vc_bus_action a,
			      const char *task, const char *pod, const char *partition)
{
	enum job_action_level lvl = job_action_level(a);
	struct job_entry *e;
	size_t i;

	pthread_mutex_lock(&c->lock);
	e = entry_get(c, key, false);
	for (i = 0; e && i < e->ndelayed;) {
		struct job_delayed *d = &e->delayed[i];
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
		entry_maybe_drop(c, key, e);
	pthread_mutex_unlock(&c->lock);
}

/* Register a delayed action; returns its due time, or 0 when it was not registered. */
int64_t job_delayed_register(struct jobctl *c, const char *key, const struct job_request *r,
			     const struct job_resolution *res)
{
	struct job_entry *e;
	struct job_delayed d = { 0 }, *grown;
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
		/* Replaced: unlike Go, the old timer is cancelled with it
		 * (docs/volcano/job-controller.md §8.38). */
		job_delayed_release(&e->delayed[i]);
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
	job_delayed_release(&d);
out:
	if (e)
		entry_maybe_drop(c, key, e);
	pthread_mutex_unlock(&c->lock);
	return due;
}

/* Take the first delayed action that is due (into *out, owned), 0 when none; *next the next due. */
bool job_delayed_take_due(struct jobctl *c, const char *key, struct job_delayed *out, int64_t *next)
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
		entry_maybe_drop(c, key, e);
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

size_t jobctl_test_entries(struct jobctl *c)
{
	size_t n;

	pthread_mutex_lock(&c->lock);
	n = vc_hmap_count(&c->entries);
	pthread_mutex_unlock(&c->lock);
	return n;
}

void job_cache_free(struct jobctl *c)
{
	vc_hmap_release(&c->entries, entry_free_val);
}
