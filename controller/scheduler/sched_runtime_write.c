/*
 * sched_runtime_write.c - what a cycle writes back (docs/volcano/scheduler.md §1.6-§1.8, §2.4):
 * binds, evictions, PodGroup status, Queue status.allocated, pod PodScheduled conditions and
 * Events, decided here and queued to the bounded pool of worker threads in sched_runtime_pool.c.
 *
 * Every status write is made only when the cached object differs from what the cycle computed,
 * and an identical write is not repeated while it is in flight or until the informer shows the
 * object changed (struct srt_track): the cache lags the API server by one watch event, and
 * without this every cycle in that window would write again.
 *
 * Pacing. The work lists have three lanes (sched_runtime_pool.c), so that the informational
 * writes never hold the bind pipeline up. Pod condition writes (with their
 * FailedScheduling events) are paid for from a token bucket (pod_condition_qps); a pod left
 * without a token is simply not written, and the next cycle, which computes the same condition
 * again, tries again. A rewrite that would change only a message (a pod's condition with the
 * same reason, a PodGroup status with the same phase, counts and condition types, statuses and
 * reasons) waits until SRT_POD_MESSAGE_NS / SRT_PG_MESSAGE_NS have passed since the object's
 * last write; anything else is written at once.
 */
#include "sched_runtime_internal.h"

#include "vc_alloc.h"
#include "vc_events.h"
#include "vc_hash.h"
#include "vc_json.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

#define KEY_MAX (VC_CACHE_KEY_MAX + 16)

/* ---- events ---------------------------------------------------------------------------------- */

void srt_event(struct sched_runtime *s, const json_t *obj, const char *type, const char *reason,
	       const char *message, bool throttle)
{
	struct vc_events *rec = s->cfg.events ? s->cfg.events : s->ctx->events;

	if (!rec || !obj)
		return;
	if (throttle) {
		const json_t *meta = vc_json_get_obj(obj, "metadata");
		const char *uid = vc_json_get_str(meta, "uid");
		char key[KEY_MAX + 64];
		uint64_t h = vc_fnv1a64(message);
		int64_t now = vc_time_mono_ns();
		struct srt_evthrottle *e;
		bool skip = false;

		snprintf(key, sizeof(key), "%s/%s\t%s\t%s\t%s",
			 vc_json_get_str(meta, "namespace") ? vc_json_get_str(meta, "namespace")
							    : "",
			 vc_json_get_str(meta, "name") ? vc_json_get_str(meta, "name") : "",
			 uid ? uid : "", type, reason);
		pthread_mutex_lock(&s->mu);
		e = srt_map_get(&s->throttle, key);
		if (e && e->hash == h && now - e->at < SRT_EVENT_THROTTLE_NS) {
			skip = true;
		} else if (e) {
			e->hash = h;
			e->at = now;
		} else {
			e = vc_malloc(sizeof(*e));
			if (e) {
				e->hash = h;
				e->at = now;
				if (srt_map_put(&s->throttle, key, e) < 0)
					vc_free(e);
			}
		}
		pthread_mutex_unlock(&s->mu);
		if (skip)
			return;
	}
	(void)vc_event_record(rec, obj, type, reason, "%s", message);
}

/* ---- write tracking (under s->mu) ------------------------------------------------------------ */

/*
 * Whether to write `want` to the object under key, whose cached resourceVersion is rv. On yes
 * the entry is marked in flight; the caller must then queue the write (or call srt_track_end).
 */
/*
 * Whether t's object must not be written whatever the new value: a write is in flight, or one
 * was made against this very version (rv) and the informer has not shown its result yet.
 */
static bool track_waiting(const struct srt_track *t, const char *rv, int64_t now)
{
	return t->in_flight ||
	       (!t->settled && vc_str_eq(t->rv, rv) && (t->rc == 0 || t->rc == VC_ECONFLICT) &&
		now - t->done_at < SRT_UNSEEN_TTL_NS);
}

/*
 * track_begin's answer when it does not depend on the value to write (track_waiting), before
 * the caller spends a serialisation on it: true means skip (counted as a skipped write).
 */
static bool track_skip_early(struct sched_runtime *s, const char *key, const char *rv)
{
	struct srt_track *t;
	bool skip = false;

	pthread_mutex_lock(&s->mu);
	t = s->track.count ? srt_map_get(&s->track, key) : NULL;
	if (t && track_waiting(t, rv, vc_time_mono_ns())) {
		t->seen_cycle = s->cycle;
		s->stats.skipped_writes++;
		skip = true;
	}
	pthread_mutex_unlock(&s->mu);
	return skip;
}

static bool track_begin(struct sched_runtime *s, const char *key, const char *want, const char *rv)
{
	struct srt_track *t;
	int64_t now = vc_time_mono_ns();
	char *w, *r;
	bool go = false;

	pthread_mutex_lock(&s->mu);
	t = srt_map_get(&s->track, key);
	if (t) {
		bool same_rv = vc_str_eq(t->rv, rv);

		t->seen_cycle = s->cycle;
		if (track_waiting(t, rv, now))
			goto skip;
		if (!t->settled && same_rv && vc_str_eq(t->want, want) &&
		    now - t->done_at < SRT_RETRY_NS)
			goto skip;
	}
	w = vc_strdup(want);
	r = vc_strdup(rv);
	if (!w || !r)
		goto nomem;
	if (!t) {
		t = vc_calloc(1, sizeof(*t));
		if (!t)
			goto nomem;
		if (srt_map_put(&s->track, key, t) < 0) {
			vc_free(t);
			goto nomem;
		}
	}
	vc_free(t->want);
	vc_free(t->rv);
	t->want = w;
	t->rv = r;
	t->in_flight = true;
	t->settled = false;
	t->seen_cycle = s->cycle;
	t->wrote_at = now;
	go = true;
	pthread_mutex_unlock(&s->mu);
	return go;
nomem:
	vc_free(w);
	vc_free(r);
	pthread_mutex_unlock(&s->mu);
	return false;
skip:
	s->stats.skipped_writes++;
	pthread_mutex_unlock(&s->mu);
	return false;
}

void srt_track_end(struct sched_runtime *s, const char *key, int rc)
{
	struct srt_track *t;

	pthread_mutex_lock(&s->mu);
	t = srt_map_get(&s->track, key);
	if (t) {
		t->in_flight = false;
		t->rc = rc;
		t->done_at = vc_time_mono_ns();
		/* A write that did not happen does not count for pacing. */
		if (rc)
			t->wrote_at = 0;
	}
	pthread_mutex_unlock(&s->mu);
}

/*
 * The cache shows what the cycle wants: nothing to remember, but when the object was written
 * less than pace_ns ago, for pacing its next message-only rewrite (track_recent).
 */
static void track_settled(struct sched_runtime *s, const char *key, int64_t pace_ns)
{
	struct srt_track *t;

	pthread_mutex_lock(&s->mu);
	t = srt_map_get(&s->track, key);
	if (t && !t->in_flight) {
		if (t->wrote_at && vc_time_mono_ns() - t->wrote_at < pace_ns) {
			t->settled = true;
			t->seen_cycle = s->cycle;
		} else {
			srt_map_del(&s->track, key);
		}
	}
	pthread_mutex_unlock(&s->mu);
}

/*
 * Whether the object under key was written (or is being written) less than pace_ns ago: a
 * rewrite that changes only a message then waits. Counts the write held back.
 */
static bool track_recent(struct sched_runtime *s, const char *key, int64_t pace_ns)
{
	struct srt_track *t;
	bool recent = false;

	pthread_mutex_lock(&s->mu);
	t = srt_map_get(&s->track, key);
	if (t) {
		t->seen_cycle = s->cycle;
		recent = t->wrote_at && vc_time_mono_ns() - t->wrote_at < pace_ns;
	}
	if (recent)
		s->stats.paced_writes++;
	pthread_mutex_unlock(&s->mu);
	return recent;
}

static bool sweep_track(void *ctx, const char *key, void *val)
{
	const struct sched_runtime *s = ctx;
	const struct srt_track *t = val;

	(void)key;
	if (t->in_flight)
		return false;
	return t->seen_cycle + 3 < s->cycle ||
	       (t->settled && vc_time_mono_ns() - t->wrote_at >= SRT_POD_MESSAGE_NS);
}

static bool sweep_throttle(void *ctx, const char *key, void *val)
{
	const struct srt_evthrottle *e = val;

	(void)ctx;
	(void)key;
	return vc_time_mono_ns() - e->at >= SRT_EVENT_THROTTLE_NS;
}

void srt_gc(struct sched_runtime *s)
{
	pthread_mutex_lock(&s->mu);
	srt_map_sweep(&s->track, sweep_track, s);
	srt_map_sweep(&s->throttle, sweep_throttle, s);
	pthread_mutex_unlock(&s->mu);
}

/* ---- deciding the writes of a cycle ---------------------------------------------------------- */

static struct srt_work *work_new(enum srt_work_kind kind, const char *key, const char *ns,
				 const char *name, json_t *obj)
{
	struct srt_work *w = vc_calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->kind = kind;
	w->key = vc_strdup(key);
	w->ns = ns ? vc_strdup(ns) : NULL;
	w->name = vc_strdup(name);
	w->obj = json_incref(obj);
	if (!w->key || (ns && !w->ns) || !w->name) {
		srt_work_free(w);
		return NULL;
	}
	return w;
}

/* An object's resourceVersion ("" when none). */
static const char *rv_of(const json_t *obj)
{
	const char *rv = vc_json_get_str(vc_json_get_obj(obj, "metadata"), "resourceVersion");

	return rv ? rv : "";
}

static bool is_empty_value(const json_t *v)
{
	return !v || json_is_null(v) || (json_is_string(v) && !*json_string_value(v));
}

/*
 * A PodGroup status reduced to what decides whether it changed (Volcano's
 * isPodGroupStatusUpdated): phase, counts and conditions without lastTransitionTime and
 * transitionID; absent, empty and zero are the same. Serialised with sorted keys. NULL on
 * VC_ENOMEM.
 */
static char *pg_status_norm(const json_t *st)
{
	json_t *n, *conds, *c, *v;
	const char *k;
	size_t i;
	char *out = NULL;

	n = json_pack("{s:s, s:I, s:I, s:I, s:[]}", "phase",
		      vc_json_get_str(st, "phase") ? vc_json_get_str(st, "phase") : "", "running",
		      (json_int_t)vc_json_get_int(st, "running", 0), "succeeded",
		      (json_int_t)vc_json_get_int(st, "succeeded", 0), "failed",
		      (json_int_t)vc_json_get_int(st, "failed", 0), "conditions");
	if (!n)
		return NULL;
	conds = json_object_get(n, "conditions");
	json_array_foreach (vc_json_get_arr(st, "conditions"), i, c) {
		json_t *nc = json_object();

		if (!nc || json_array_append_new(conds, nc))
			goto out;
		json_object_foreach (c, k, v) {
			if (!strcmp(k, "lastTransitionTime") || !strcmp(k, "transitionID") ||
			    is_empty_value(v))
				continue;
			if (json_object_set(nc, k, v))
				goto out;
		}
	}
	out = vc_json_dumps_sorted(n);
out:
	json_decref(n);
	return out;
}

static bool same_or_both_empty(const json_t *a, const json_t *b)
{
	if (is_empty_value(a) || is_empty_value(b))
		return is_empty_value(a) && is_empty_value(b);
	return json_equal((json_t *)a, (json_t *)b);
}

static bool ignored_condition_key(const char *k, bool but_message)
{
	return !strcmp(k, "lastTransitionTime") || !strcmp(k, "transitionID") ||
	       (but_message && !strcmp(k, "message"));
}

static bool condition_same(const json_t *a, const json_t *b, bool but_message)
{
	const char *k;
	json_t *v;

	json_object_foreach ((json_t *)a, k, v)
		if (!ignored_condition_key(k, but_message) &&
		    !same_or_both_empty(v, json_object_get(b, k)))
			return false;
	json_object_foreach ((json_t *)b, k, v)
		if (!ignored_condition_key(k, but_message) && !json_object_get(a, k) &&
		    !is_empty_value(v))
			return false;
	return true;
}

/*
 * Whether the cached status already says what jr computed, by pg_status_norm's rules, without
 * allocating: most PodGroups do not change in most cycles. With but_message, conditions' message
 * texts are not compared.
 */
static bool pg_status_same(const json_t *cur, const struct sched_job_result *jr, bool but_message)
{
	const json_t *a = vc_json_get_arr(cur, "conditions"), *b = jr->conditions;
	const char *phase = vc_json_get_str(cur, "phase");
	size_t i, n = json_array_size(a);

	if (!vc_str_eq(phase ? phase : "", vc_pg_phase_name(jr->phase)) ||
	    vc_json_get_int(cur, "running", 0) != VC_MAX(jr->running, 0) ||
	    vc_json_get_int(cur, "succeeded", 0) != VC_MAX(jr->succeeded, 0) ||
	    vc_json_get_int(cur, "failed", 0) != VC_MAX(jr->failed, 0) || n != json_array_size(b))
		return false;
	for (i = 0; i < n; i++)
		if (!condition_same(json_array_get(a, i), json_array_get(b, i), but_message))
			return false;
	return true;
}

static int set_or_del_count(json_t *st, const char *key, int32_t v)
{
	if (v > 0)
		return json_object_set_new(st, key, json_integer(v));
	(void)json_object_del(st, key);
	return 0;
}

/* The status to write: the cached one with phase, conditions and counts replaced. New ref. */
static json_t *pg_status_new(const json_t *cur, const struct sched_job_result *jr)
{
	json_t *st = json_is_object(cur) ? json_copy((json_t *)cur) : json_object();

	if (!st)
		return NULL;
	if (json_object_set_new(st, "phase", json_string(vc_pg_phase_name(jr->phase))))
		goto fail;
	if (jr->conditions && json_array_size(jr->conditions)) {
		if (json_object_set(st, "conditions", jr->conditions))
			goto fail;
	} else {
		(void)json_object_del(st, "conditions");
	}
	if (set_or_del_count(st, "running", jr->running) ||
	    set_or_del_count(st, "succeeded", jr->succeeded) ||
	    set_or_del_count(st, "failed", jr->failed))
		goto fail;
	return st;
fail:
	json_decref(st);
	return NULL;
}

json_t *srt_pg_body(struct sched_runtime *s, const struct srt_work *w)
{
	const char *rv = w->rv;
	char key[VC_CACHE_KEY_MAX];
	json_t *obj, *meta;
	int n = w->ns && *w->ns ? snprintf(key, sizeof(key), "%s/%s", w->ns, w->name)
				: snprintf(key, sizeof(key), "%s", w->name);

	if (n < 0 || (size_t)n >= sizeof(key))
		return NULL;
	obj = vc_cache_get(vc_informer_cache(s->ctx->podgroups), key);
	meta = json_object_get(obj, "metadata");
	if (!json_is_object(meta) || json_object_set(obj, "status", w->body) ||
	    (rv && *rv && json_object_set_new(meta, "resourceVersion", json_string(rv)))) {
		json_decref(obj);
		return NULL;
	}
	return obj;
}

/* The PodGroup of view as Events name it (srt_pg_obj), made on first use into *pg. */
static json_t *pg_named(const struct vc_podgroup *view, json_t **pg)
{
	if (!*pg)
		*pg = srt_pg_obj(view->obj, view->meta.ns, view->meta.name, view->meta.uid,
				 view->meta.resource_version);
	return *pg;
}

static void apply_job(struct sched_runtime *s, const struct sched_job_result *jr)
{
	const struct vc_podgroup *view = jr->job ? jr->job->pg : NULL;
	const json_t *cur = view ? vc_json_get_obj(view->obj, "status") : NULL;
	bool conditional_event;
	char key[KEY_MAX], *want = NULL;
	json_t *st = NULL, *pg = NULL;
	struct srt_work *w;

	if (!view)
		return;
	/* "pod group is ready" goes with a status write only (docs/volcano/scheduler.md §1.8 item
	 * 4). */
	conditional_event = jr->event_type && vc_str_eq(jr->event_type, "Normal") &&
			    vc_str_eq(jr->event_reason, "Scheduled");
	snprintf(key, sizeof(key), "pg/%s/%s", jr->job->ns, jr->job->name);
	if (pg_status_same(cur, jr, false)) {
		track_settled(s, key, SRT_PG_MESSAGE_NS);
		goto events;
	}
	/* Only a condition's message differs: coalesced (at most one write per interval). */
	if (pg_status_same(cur, jr, true) && track_recent(s, key, SRT_PG_MESSAGE_NS))
		goto events;
	/* A write waiting for the informer: no status to build (a cycle over many new PodGroups
	 * would serialise each one's status again only to skip it). */
	if (track_skip_early(s, key, view->meta.resource_version))
		goto events;
	st = pg_status_new(cur, jr);
	want = st ? pg_status_norm(st) : NULL;
	if (!want)
		goto events;
	if (!track_begin(s, key, want, view->meta.resource_version))
		goto events;
	/* The worker makes the whole body (srt_pg_body): a queued write holds only the status. */
	w = work_new(SRT_W_PG, key, jr->job->ns, jr->job->name, view->obj);
	if (w) {
		w->uid = vc_strdup(view->meta.uid);
		w->rv = vc_strdup(view->meta.resource_version);
	}
	if (!w || !w->uid || !w->rv) {
		srt_work_free(w);
		srt_track_end(s, key, VC_ENOMEM);
		goto out;
	}
	w->body = st;
	st = NULL;
	if (conditional_event && jr->event_message) {
		w->event_message = vc_strdup(jr->event_message);
		w->event_type = "Normal";
		w->reason = "Scheduled";
	}
	srt_work_push(s, w);
events:
	if (jr->event_type && jr->event_reason && jr->event_message && !conditional_event)
		srt_event(s, pg_named(view, &pg), jr->event_type, jr->event_reason,
			  jr->event_message, true);
	/* enqueue's rejection (docs/volcano/scheduler.md §3.1). */
	if (jr->reject_message)
		srt_event(s, pg_named(view, &pg), "Normal", "Unschedulable", jr->reject_message,
			  true);
out:
	json_decref(st);
	json_decref(pg);
	vc_free(want);
}

/*
 * The pod condition budget (loop thread only): a token bucket of cfg.pod_condition_qps per
 * second holding at most the burst, full at first. Whether a token is there; with take, spend
 * it.
 */
static bool pod_cond_budget(struct sched_runtime *s, bool take)
{
	double qps = s->cfg.pod_condition_qps, burst = s->cfg.pod_condition_burst;
	int64_t now;

	if (!(qps > 0))
		return true;
	if (burst < 1)
		burst = VC_MAX(1.0, (double)(int64_t)(2 * qps));
	now = vc_time_mono_ns();
	if (!s->pc_ready) {
		s->pc_tokens = burst;
		s->pc_ready = true;
	} else if (now > s->pc_at) {
		s->pc_tokens = VC_MIN(burst, s->pc_tokens + (double)(now - s->pc_at) * qps / 1e9);
	}
	s->pc_at = now;
	if (s->pc_tokens < 1)
		return false;
	if (take)
		s->pc_tokens -= 1;
	return true;
}

static bool scheduling_gated(const json_t *pod)
{
	return json_array_size(vc_json_path(pod, "spec.schedulingGates")) > 0;
}

static void apply_task(struct sched_runtime *s, const struct sched_task_result *tr)
{
	const struct vc_pod *view = tr->task ? tr->task->pod : NULL;
	const json_t *pod = view ? view->obj : NULL; /* its spec and status */
	json_t *full;
	const char *msg = tr->message ? tr->message : "";
	const json_t *c;
	char key[KEY_MAX], *want;
	bool same_nominated;
	struct srt_work *w;
	json_t *body;

	if (!pod || !tr->reason || scheduling_gated(pod))
		return;
	snprintf(key, sizeof(key), "pod/%s", tr->task->uid);
	c = srt_pod_condition(pod, "PodScheduled");
	same_nominated = !tr->nominated_node ||
			 vc_str_eq(json_string_value(vc_json_path(pod, "status.nominatedNodeName")),
				   tr->nominated_node);
	if (c && vc_str_eq(vc_json_get_str(c, "status"), "False") &&
	    vc_str_eq(vc_json_get_str(c, "reason"), tr->reason) &&
	    vc_str_eq(vc_json_get_str(c, "message"), msg) && same_nominated) {
		track_settled(s, key, SRT_POD_MESSAGE_NS);
		return;
	}
	/* The same reason (and nominated node), another message: at most once per interval. */
	if (c && vc_str_eq(vc_json_get_str(c, "status"), "False") &&
	    vc_str_eq(vc_json_get_str(c, "reason"), tr->reason) && same_nominated &&
	    track_recent(s, key, SRT_POD_MESSAGE_NS))
		return;
	/* The budget: without a token the pod is left to a later cycle, nothing recorded. */
	if (!pod_cond_budget(s, false)) {
		pthread_mutex_lock(&s->mu);
		s->stats.pod_cond_deferred++;
		pthread_mutex_unlock(&s->mu);
		return;
	}
	want = vc_asprintf("%s\t%s\t%s", tr->reason, msg,
			   tr->nominated_node ? tr->nominated_node : "");
	if (!want)
		return;
	if (!track_begin(s, key, want, view->meta.resource_version)) {
		vc_free(want);
		return;
	}
	vc_free(want);
	(void)pod_cond_budget(s, true);
	body = srt_pod_scheduled_patch(pod, tr->reason, msg, tr->nominated_node);
	full = srt_pod_obj(view);
	w = full ? work_new(SRT_W_POD_COND, key, tr->task->ns, tr->task->name, full) : NULL;
	json_decref(full);
	if (w)
		w->event_message = vc_strdup(msg);
	if (!body || !w || !w->event_message) {
		json_decref(body);
		srt_work_free(w);
		srt_track_end(s, key, VC_ENOMEM);
		return;
	}
	w->body = body;
	w->event_type = "Warning";
	w->reason = "FailedScheduling";
	srt_work_push(s, w);
}

/* Whether the cached status.allocated already says want (absent = zero). */
static bool allocated_equal(const json_t *cur, const struct vc_resource *want)
{
	struct vc_resource r = VC_RESOURCE_INIT;
	bool eq;

	if (!cur)
		return vc_resource_is_empty(want);
	if (vc_resource_from_list(&r, cur, NULL) < 0)
		return false;
	eq = vc_resource_equal(&r, want, VC_RESOURCE_ZERO) &&
	     vc_resource_equal(want, &r, VC_RESOURCE_ZERO);
	vc_resource_release(&r);
	return eq;
}

static void apply_queue(struct sched_runtime *s, const struct sched_queue_result *qr)
{
	const json_t *q = qr->queue && qr->queue->queue ? qr->queue->queue->obj : NULL;
	const json_t *cur = vc_json_path(q, "status.allocated");
	json_t *list = NULL, *body = NULL, *v;
	char key[KEY_MAX], *want = NULL;
	struct srt_work *w;
	const char *k;

	if (!q)
		return;
	snprintf(key, sizeof(key), "queue/%s", qr->queue->name);
	if (allocated_equal(cur, &qr->allocated)) {
		track_settled(s, key, 0);
		return;
	}
	if (vc_resource_to_list(&qr->allocated, &list) < 0)
		return;
	want = vc_json_dumps_sorted(list);
	if (!want || !track_begin(s, key, want, rv_of(q)))
		goto out;
	/* A merge patch merges maps: resources no longer allocated are removed with null. */
	json_object_foreach ((json_t *)cur, k, v) {
		if (!json_object_get(list, k) && json_object_set_new(list, k, json_null()))
			goto fail;
	}
	body = json_pack("{s:{s:O}}", "status", "allocated", list);
	w = work_new(SRT_W_QUEUE, key, NULL, qr->queue->name, (json_t *)q);
	if (!body || !w) {
		srt_work_free(w);
		goto fail;
	}
	w->body = body;
	body = NULL;
	srt_work_push(s, w);
	goto out;
fail:
	srt_track_end(s, key, VC_ENOMEM);
out:
	json_decref(body);
	json_decref(list);
	vc_free(want);
}

static void apply_bind(struct sched_runtime *s, const struct sched_bind *b)
{
	const struct sched_task_info *t = b->task;
	struct srt_assumed *a;
	struct srt_work *w;
	json_t *full;

	if (!t->pod || !b->node)
		return;
	full = srt_pod_obj(t->pod);
	w = full ? work_new(SRT_W_BIND, t->uid, t->ns, t->name, full) : NULL;
	json_decref(full);
	if (w)
		w->node = vc_strdup(b->node);
	a = vc_calloc(1, sizeof(*a));
	if (a)
		a->node = vc_strdup(b->node);
	if (!w || !w->node || !a || !a->node)
		goto nomem;
	a->in_flight = true;
	pthread_mutex_lock(&s->mu);
	a->seen_cycle = s->cycle;
	if (srt_map_put(&s->assumed, t->uid, a) < 0) {
		pthread_mutex_unlock(&s->mu);
		goto nomem;
	}
	pthread_mutex_unlock(&s->mu);
	srt_work_push(s, w);
	return;
nomem:
	/* Without the assumption the next cycle would place the pod again: do not bind now. */
	VC_WARN("cannot queue bind", "pod=%s/%s error=\"out of memory\"", t->ns, t->name);
	if (a)
		vc_free(a->node);
	vc_free(a);
	srt_work_free(w);
}

static void apply_evict(struct sched_runtime *s, const struct sched_evict *e)
{
	const struct sched_task_info *t = e->task;
	struct srt_evicted *ev;
	struct srt_work *w;
	json_t *full;

	if (!t->pod)
		return;
	full = srt_pod_obj(t->pod);
	w = full ? work_new(SRT_W_EVICT, t->uid, t->ns, t->name, full) : NULL;
	json_decref(full);
	ev = vc_calloc(1, sizeof(*ev));
	if (!w || !ev)
		goto nomem;
	w->reason = e->reason;
	ev->in_flight = true;
	ev->at = vc_time_mono_ns();
	pthread_mutex_lock(&s->mu);
	ev->seen_cycle = s->cycle;
	if (srt_map_put(&s->evicted, t->uid, ev) < 0) {
		pthread_mutex_unlock(&s->mu);
		goto nomem;
	}
	pthread_mutex_unlock(&s->mu);
	if (t->job && t->job->pg) {
		const struct vc_podgroup *v = t->job->pg;
		json_t *pg = srt_pg_obj(v->obj, v->meta.ns, v->meta.name, v->meta.uid,
					v->meta.resource_version);

		srt_event(s, pg, "Normal", "Evict", e->reason, false);
		json_decref(pg);
	}
	srt_work_push(s, w);
	return;
nomem:
	VC_WARN("cannot queue eviction", "pod=%s/%s error=\"out of memory\"", t->ns, t->name);
	vc_free(ev);
	srt_work_free(w);
}

void srt_on_session_bind(void *ctx, const struct sched_bind *b)
{
	struct sched_runtime *s = ctx;

	apply_bind(s, b);
	s->binds_queued++;
}

void srt_apply_result(struct sched_runtime *s, const struct sched_result *r)
{
	bool *held = NULL;
	bool partial = s->pods_partial || s->pgs_partial;
	size_t i;
	int rc;

	/*
	 * A session over a partial view (srt_prepare) only binds: what it would say of a job whose
	 * pods are not all listed yet, of a queue's state or of victims is not to be written.
	 */
	for (i = 0; !partial && i < r->nevicts; i++)
		apply_evict(s, &r->evicts[i]);
	/*
	 * The binds the session handed over as it decided them are queued already (a bind does
	 * not wait for the same cycle's evictions: what allocate binds fits on idle resources;
	 * what waits for a victim is pipelined, not bound: docs/volcano/scheduler.md §3.2). A
	 * session with volumes hands over none: the volume writes come first, and a gang that must
	 * wait for its volumes is not bound (§1.6).
	 */
	rc = srt_vol_apply(s, r, &held);
	for (i = VC_MIN(s->binds_queued, r->nbinds); i < r->nbinds; i++)
		if (held ? !held[i] : (rc == 0 || !r->binds[i].vols))
			apply_bind(s, &r->binds[i]);
	s->binds_queued = 0;
	vc_free(held);
	if (partial)
		return;
	for (i = 0; i < r->njobs; i++)
		apply_job(s, &r->jobs[i]);
	for (i = 0; i < r->ntasks; i++)
		apply_task(s, &r->tasks[i]);
	for (i = 0; i < r->nqueues; i++)
		apply_queue(s, &r->queues[i]);
}
