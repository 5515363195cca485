/*
 * sched_runtime_write.c - what a cycle writes back (scheduler.md §1.6-§1.8, §2.4): binds,
 * evictions, PodGroup status, Queue status.allocated, pod PodScheduled conditions and Events,
 * through a bounded pool of worker threads.
 *
 * Every status write is made only when the cached object differs from what the cycle computed,
 * and an identical write is not repeated while it is in flight or until the informer shows the
 * object changed (struct srt_track): the cache lags the API server by one watch event, and
 * without this every cycle in that window would write again.
 *
 * Pacing. The work lists have three lanes: binds and evictions first, then PodGroup and Queue
 * status, then pod conditions, which at most a quarter of the workers run at once, so that the
 * informational writes never hold the bind pipeline up. Pod condition writes (with their
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
	struct vc_events *rec = s->ctx->events;

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
 * the entry is marked in flight; the caller must then queue the write (or call track_end).
 */
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
		if (t->in_flight)
			goto skip;
		/* Written against this very version: wait for the informer to show the result. */
		if (!t->settled && same_rv && (t->rc == 0 || t->rc == VC_ECONFLICT) &&
		    now - t->done_at < SRT_UNSEEN_TTL_NS)
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

static void track_end(struct sched_runtime *s, const char *key, int rc)
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

/* ---- the work lists -------------------------------------------------------------------------- */

void srt_work_free(struct srt_work *w)
{
	if (!w)
		return;
	vc_free(w->key);
	vc_free(w->ns);
	vc_free(w->name);
	vc_free(w->node);
	vc_free(w->event_message);
	json_decref(w->obj);
	json_decref(w->body);
	vc_free(w);
}

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

static bool is_high(const struct srt_work *w)
{
	return w->kind == SRT_W_BIND || w->kind == SRT_W_EVICT;
}

/* Pod conditions: the lowest lane. */
static bool is_background(const struct srt_work *w)
{
	return w->kind == SRT_W_POD_COND;
}

/* How many workers may run pod condition writes at once (the rest stay free for binds). */
static size_t bg_limit(const struct sched_runtime *s)
{
	return s->nworkers >= 8 ? (size_t)s->nworkers / 4 : 1;
}

/* Under pool_mu: whether a worker has something to take. */
static bool work_ready(const struct sched_runtime *s)
{
	return s->hi_head || s->lo_head || (s->bg_head && s->bg_busy < bg_limit(s));
}

/* A write that will not run: undo what its queuing promised. */
static void work_abandon(struct sched_runtime *s, struct srt_work *w)
{
	pthread_mutex_lock(&s->mu);
	if (w->kind == SRT_W_BIND)
		srt_map_del(&s->assumed, w->key);
	else if (w->kind == SRT_W_EVICT)
		srt_map_del(&s->evicted, w->key);
	else
		srt_map_del(&s->track, w->key);
	pthread_mutex_unlock(&s->mu);
	srt_work_free(w);
}

void srt_work_push(struct sched_runtime *s, struct srt_work *w)
{
	struct srt_work **head, **tail;

	pthread_mutex_lock(&s->pool_mu);
	if (s->pool_stop) {
		pthread_mutex_unlock(&s->pool_mu);
		work_abandon(s, w);
		return;
	}
	if (is_high(w)) {
		head = &s->hi_head;
		tail = &s->hi_tail;
	} else if (is_background(w)) {
		head = &s->bg_head;
		tail = &s->bg_tail;
	} else {
		head = &s->lo_head;
		tail = &s->lo_tail;
	}
	w->next = NULL;
	if (*tail)
		(*tail)->next = w;
	else
		*head = w;
	*tail = w;
	s->queued++;
	pthread_cond_signal(&s->pool_cond);
	pthread_mutex_unlock(&s->pool_mu);
}

static struct srt_work *list_pop(struct srt_work **head, struct srt_work **tail)
{
	struct srt_work *w = *head;

	*head = w->next;
	if (!*head)
		*tail = NULL;
	w->next = NULL;
	return w;
}

/* Under pool_mu: the next write, by lane; with limit, pod conditions only within bg_limit. */
static struct srt_work *work_pop(struct sched_runtime *s, bool limit)
{
	struct srt_work *w;

	if (s->hi_head)
		w = list_pop(&s->hi_head, &s->hi_tail);
	else if (s->lo_head)
		w = list_pop(&s->lo_head, &s->lo_tail);
	else if (s->bg_head && (!limit || s->bg_busy < bg_limit(s)))
		w = list_pop(&s->bg_head, &s->bg_tail);
	else
		return NULL;
	s->queued--;
	return w;
}

static void *worker_main(void *arg)
{
	struct sched_runtime *s = arg;

	pthread_mutex_lock(&s->pool_mu);
	for (;;) {
		struct srt_work *w;

		bool bg;

		while (!s->pool_stop && !work_ready(s))
			pthread_cond_wait(&s->pool_cond, &s->pool_mu);
		if (s->pool_stop)
			break;
		w = work_pop(s, true);
		bg = is_background(w);
		s->busy++;
		if (bg)
			s->bg_busy++;
		pthread_mutex_unlock(&s->pool_mu);
		srt_work_run(s, w);
		srt_work_free(w);
		pthread_mutex_lock(&s->pool_mu);
		s->busy--;
		if (bg)
			s->bg_busy--;
		if (!s->queued && !s->busy)
			pthread_cond_broadcast(&s->idle_cond);
	}
	pthread_mutex_unlock(&s->pool_mu);
	return NULL;
}

int srt_pool_start(struct sched_runtime *s)
{
	int n = s->cfg.bind_workers > 0 ? s->cfg.bind_workers : 1;
	int i, rc;

	s->workers = vc_calloc((size_t)n, sizeof(*s->workers));
	if (!s->workers)
		return VC_ENOMEM;
	for (i = 0; i < n; i++) {
		rc = pthread_create(&s->workers[i], NULL, worker_main, s);
		if (rc) {
			srt_pool_stop(s);
			return -rc;
		}
		s->nworkers++;
	}
	return 0;
}

void srt_pool_discard(struct sched_runtime *s)
{
	struct srt_work *w, *list = NULL;
	size_t n = 0;

	pthread_mutex_lock(&s->pool_mu);
	while ((w = work_pop(s, false))) {
		w->next = list;
		list = w;
		n++;
	}
	pthread_mutex_unlock(&s->pool_mu);
	while ((w = list)) {
		list = w->next;
		work_abandon(s, w);
	}
	if (n)
		VC_INFO("scheduler writes dropped at shutdown", "count=%zu", n);
}

void srt_pool_stop(struct sched_runtime *s)
{
	int i;

	pthread_mutex_lock(&s->pool_mu);
	s->pool_stop = true;
	pthread_cond_broadcast(&s->pool_cond);
	pthread_mutex_unlock(&s->pool_mu);
	for (i = 0; i < s->nworkers; i++)
		pthread_join(s->workers[i], NULL);
	vc_free(s->workers);
	s->workers = NULL;
	s->nworkers = 0;
	srt_pool_discard(s);
}

size_t sched_runtime_drain(struct sched_runtime *s)
{
	struct srt_work *w;
	size_t n = 0;

	pthread_mutex_lock(&s->pool_mu);
	if (s->nworkers) {
		while (s->queued || s->busy)
			pthread_cond_wait(&s->idle_cond, &s->pool_mu);
		pthread_mutex_unlock(&s->pool_mu);
		return 0;
	}
	while ((w = work_pop(s, false))) {
		pthread_mutex_unlock(&s->pool_mu);
		srt_work_run(s, w);
		srt_work_free(w);
		n++;
		pthread_mutex_lock(&s->pool_mu);
	}
	pthread_mutex_unlock(&s->pool_mu);
	return n;
}

/* ---- running one write ----------------------------------------------------------------------- */

static void now_rfc3339(char *buf, size_t len)
{
	if (vc_time_format_rfc3339(vc_time_now_ns() / INT64_C(1000000000), buf, len) < 0)
		snprintf(buf, len, "1970-01-01T00:00:00Z");
}

static void count_attempt(struct sched_runtime *s, const char *result)
{
	const char *values[] = { result, NULL };

	if (s->m_attempts)
		if (vc_metric_inc(s->m_attempts, values) < 0)
			VC_LOG(VC_LOG_V(4), "cannot record metric", "");
}

/* {"status":{"conditions":[{type, status, reason, message, lastTransitionTime}]}} */
static json_t *condition_new(const char *type, const char *status, const char *reason,
			     const char *message, const char *ltt)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", type, "status", status, "reason",
			 reason, "message", message, "lastTransitionTime", ltt);
}

/* The PodScheduled condition a pod shows, or NULL. */
static json_t *pod_condition(const json_t *pod, const char *type)
{
	json_t *conds = vc_json_path(pod, "status.conditions"), *c;
	size_t i;

	json_array_foreach (conds, i, c)
		if (vc_str_eq(vc_json_get_str(c, "type"), type))
			return c;
	return NULL;
}

/* Keep the condition's lastTransitionTime when its status does not change (Kubernetes' rule). */
static const char *transition_time(const json_t *pod, const char *type, const char *status,
				   const char *now)
{
	json_t *c = pod_condition(pod, type);
	const char *t = vc_json_get_str(c, "lastTransitionTime");

	return c && vc_str_eq(vc_json_get_str(c, "status"), status) && t ? t : now;
}

static json_t *pod_scheduled_patch(const json_t *pod, const char *reason, const char *message,
				   const char *nominated)
{
	char now[40];
	json_t *cond, *status;

	now_rfc3339(now, sizeof(now));
	cond = condition_new("PodScheduled", "False", reason, message,
			     transition_time(pod, "PodScheduled", "False", now));
	if (!cond)
		return NULL;
	status = json_pack("{s:[o]}", "conditions", cond);
	if (status && nominated &&
	    json_object_set_new(status, "nominatedNodeName", json_string(nominated))) {
		json_decref(status);
		return NULL;
	}
	return status ? json_pack("{s:o}", "status", status) : NULL;
}

static void run_bind(struct sched_runtime *s, struct srt_work *w)
{
	const char *uid = vc_json_get_str(vc_json_get_obj(w->obj, "metadata"), "uid");
	struct srt_assumed *a;
	struct vc_error err;
	json_t *body;
	char *msg;
	int rc;

	vc_error_clear(&err);
	body = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s}}", "apiVersion", "v1", "kind",
			 "Binding", "metadata", "name", w->name, "namespace", w->ns, "target",
			 "kind", "Node", "name", w->node);
	if (body && uid && *uid &&
	    json_object_set_new(json_object_get(body, "metadata"), "uid", json_string(uid))) {
		json_decref(body);
		body = NULL;
	}
	if (!body)
		rc = vc_error_set(&err, VC_ENOMEM, "out of memory");
	else
		rc = vc_kube_create(s->ctx->kube, &vc_gvr_pods, w->ns, w->name, "binding", body,
				    NULL, &err);
	json_decref(body);
	if (rc == 0) {
		pthread_mutex_lock(&s->mu);
		a = srt_map_get(&s->assumed, w->key);
		if (a) {
			a->in_flight = false;
			a->done_at = vc_time_mono_ns();
		}
		s->stats.binds++;
		pthread_mutex_unlock(&s->mu);
		count_attempt(s, "scheduled");
		VC_LOG(VC_LOG_V(3), "pod bound", "pod=%s/%s node=%s", w->ns, w->name, w->node);
		msg = vc_asprintf("Successfully assigned %s/%s to %s", w->ns, w->name, w->node);
		if (msg)
			srt_event(s, w->obj, "Normal", "Scheduled", msg, false);
		vc_free(msg);
		return;
	}
	/* §1.6: the task goes back to Pending and the next cycle places it again. */
	pthread_mutex_lock(&s->mu);
	srt_map_del(&s->assumed, w->key);
	s->stats.bind_errors++;
	pthread_mutex_unlock(&s->mu);
	count_attempt(s, "error");
	VC_WARN("cannot bind pod", "pod=%s/%s node=%s error=\"%s\"", w->ns, w->name, w->node,
		err.text);
	srt_kick(s, s->cfg.debounce_ns);
	if (rc == VC_ENOTFOUND)
		return; /* the pod is gone: nothing to report on */
	msg = vc_asprintf("failed to bind to node %s: %s", w->node, err.text);
	if (!msg)
		return;
	body = pod_scheduled_patch(w->obj, "SchedulerError", msg, NULL);
	if (body) {
		vc_error_clear(&err);
		rc = vc_kube_patch(s->ctx->kube, &vc_gvr_pods, w->ns, w->name, "status",
				   VC_PATCH_STRATEGIC, body, NULL, &err);
		if (rc)
			VC_WARN("cannot update pod condition", "pod=%s/%s error=\"%s\"", w->ns,
				w->name, err.text);
		json_decref(body);
	}
	srt_event(s, w->obj, "Warning", "FailedScheduling", msg, true);
	vc_free(msg);
}

static void run_evict(struct sched_runtime *s, struct srt_work *w)
{
	const json_t *meta = vc_json_get_obj(w->obj, "metadata");
	const char *uid = vc_json_get_str(meta, "uid");
	const char *sched = vc_json_path(w->obj, "spec.schedulerName")
				    ? json_string_value(vc_json_path(w->obj, "spec.schedulerName"))
				    : NULL;
	struct vc_delete_opts dopts = { .grace_period_seconds = -1 };
	char *msg, *dmsg = NULL, now[40];
	struct srt_evicted *e;
	struct vc_error err;
	json_t *body = NULL;
	int rc;

	vc_error_clear(&err);
	now_rfc3339(now, sizeof(now));
	msg = vc_asprintf("Pod is evicted, because of %s", w->reason);
	dmsg = vc_asprintf("%s: preempting to accommodate a higher priority pod",
			   sched ? sched : "default-scheduler");
	if (msg && dmsg)
		body = json_pack(
			"{s:{s:[o,o]}}", "status", "conditions",
			condition_new("Ready", "False", "Evict", msg,
				      transition_time(w->obj, "Ready", "False", now)),
			condition_new("DisruptionTarget", "True", "PreemptionByScheduler", dmsg,
				      transition_time(w->obj, "DisruptionTarget", "True", now)));
	if (!body) {
		rc = vc_error_set(&err, VC_ENOMEM, "out of memory");
		goto done;
	}
	VC_LOG(VC_LOG_V(3), "evicting pod", "pod=%s/%s reason=%s", w->ns, w->name, w->reason);
	srt_event(s, w->obj, "Warning", "Evict", msg, false);
	rc = vc_kube_patch(s->ctx->kube, &vc_gvr_pods, w->ns, w->name, "status", VC_PATCH_STRATEGIC,
			   body, NULL, &err);
	if (rc)
		goto done;
	if (uid && *uid)
		dopts.precondition_uid = uid;
	rc = vc_kube_delete(s->ctx->kube, &vc_gvr_pods, w->ns, w->name, &dopts, &err);
done:
	json_decref(body);
	vc_free(msg);
	vc_free(dmsg);
	pthread_mutex_lock(&s->mu);
	if (rc == 0) {
		e = srt_map_get(&s->evicted, w->key);
		if (e) {
			e->in_flight = false;
			e->at = vc_time_mono_ns();
		}
		s->stats.evictions++;
	} else {
		srt_map_del(&s->evicted, w->key);
		s->stats.eviction_errors++;
	}
	pthread_mutex_unlock(&s->mu);
	if (rc) {
		VC_WARN("cannot evict pod", "pod=%s/%s error=\"%s\"", w->ns, w->name, err.text);
		srt_kick(s, s->cfg.debounce_ns);
	}
}

static void run_status(struct sched_runtime *s, struct srt_work *w)
{
	struct vc_error err;
	uint64_t *ok, *bad;
	const char *what;
	int rc;

	vc_error_clear(&err);
	switch (w->kind) {
	case SRT_W_PG:
		rc = vc_kube_update(s->ctx->kube, &vc_gvr_podgroups, w->ns, w->name, NULL, w->body,
				    NULL, &err);
		ok = &s->stats.pg_writes;
		bad = &s->stats.pg_errors;
		what = "podgroup";
		break;
	case SRT_W_QUEUE:
		rc = vc_kube_patch(s->ctx->kube, &vc_gvr_queues, NULL, w->name, "status",
				   VC_PATCH_MERGE, w->body, NULL, &err);
		ok = &s->stats.queue_writes;
		bad = &s->stats.queue_errors;
		what = "queue";
		break;
	default:
		rc = vc_kube_patch(s->ctx->kube, &vc_gvr_pods, w->ns, w->name, "status",
				   VC_PATCH_STRATEGIC, w->body, NULL, &err);
		ok = &s->stats.pod_cond_writes;
		bad = &s->stats.pod_cond_errors;
		what = "pod";
		break;
	}
	track_end(s, w->key, rc);
	pthread_mutex_lock(&s->mu);
	if (rc == 0)
		(*ok)++;
	else if (rc == VC_ECONFLICT && w->kind == SRT_W_PG)
		s->stats.pg_conflicts++;
	else
		(*bad)++;
	pthread_mutex_unlock(&s->mu);
	if (rc == VC_ECONFLICT) {
		/* §1.8: the cached copy was stale; the next cycle works from the fresh one. */
		VC_LOG(VC_LOG_V(2), "status write conflict", "%s=%s%s%s", what, w->ns ? w->ns : "",
		       w->ns ? "/" : "", w->name);
		srt_kick(s, SRT_CONFLICT_KICK_NS);
	} else if (rc) {
		VC_WARN("cannot update status", "%s=%s%s%s error=\"%s\"", what, w->ns ? w->ns : "",
			w->ns ? "/" : "", w->name, err.text);
	} else if (w->event_message) {
		srt_event(s, w->obj, w->event_type, w->reason, w->event_message,
			  w->kind != SRT_W_POD_COND);
	}
}

void srt_work_run(struct sched_runtime *s, struct srt_work *w)
{
	switch (w->kind) {
	case SRT_W_BIND:
		run_bind(s, w);
		break;
	case SRT_W_EVICT:
		run_evict(s, w);
		break;
	default:
		run_status(s, w);
		break;
	}
}

/* ---- deciding the writes of a cycle ---------------------------------------------------------- */

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
	out = json_dumps(n, JSON_SORT_KEYS | JSON_COMPACT);
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

static void apply_job(struct sched_runtime *s, const struct sched_job_result *jr)
{
	const json_t *pg = jr->job && jr->job->pg ? jr->job->pg->obj : NULL;
	const json_t *cur = vc_json_get_obj(pg, "status");
	bool conditional_event;
	char key[KEY_MAX], *want = NULL;
	json_t *st = NULL, *body = NULL;
	struct srt_work *w;

	if (!pg)
		return;
	/* "pod group is ready" goes with a status write only (§1.8 item 4). */
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
	st = pg_status_new(cur, jr);
	want = st ? pg_status_norm(st) : NULL;
	if (!want)
		goto events;
	if (!track_begin(s, key, want, rv_of(pg)))
		goto events;
	body = json_copy((json_t *)pg);
	w = work_new(SRT_W_PG, key, jr->job->ns, jr->job->name, (json_t *)pg);
	if (!body || !w || json_object_set(body, "status", st)) {
		srt_work_free(w);
		track_end(s, key, VC_ENOMEM);
		goto out;
	}
	w->body = body;
	body = NULL;
	if (conditional_event && jr->event_message) {
		w->event_message = vc_strdup(jr->event_message);
		w->event_type = "Normal";
		w->reason = "Scheduled";
	}
	srt_work_push(s, w);
events:
	if (jr->event_type && jr->event_reason && jr->event_message && !conditional_event)
		srt_event(s, pg, jr->event_type, jr->event_reason, jr->event_message, true);
	/* enqueue's rejection (§3.1). */
	if (jr->reject_message)
		srt_event(s, pg, "Normal", "Unschedulable", jr->reject_message, true);
out:
	json_decref(body);
	json_decref(st);
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
	c = pod_condition(pod, "PodScheduled");
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
	body = pod_scheduled_patch(pod, tr->reason, msg, tr->nominated_node);
	full = srt_pod_obj(view);
	w = full ? work_new(SRT_W_POD_COND, key, tr->task->ns, tr->task->name, full) : NULL;
	json_decref(full);
	if (w)
		w->event_message = vc_strdup(msg);
	if (!body || !w || !w->event_message) {
		json_decref(body);
		srt_work_free(w);
		track_end(s, key, VC_ENOMEM);
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
	want = json_dumps(list, JSON_SORT_KEYS | JSON_COMPACT);
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
	track_end(s, key, VC_ENOMEM);
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
	if (t->job && t->job->pg)
		srt_event(s, t->job->pg->obj, "Normal", "Evict", e->reason, false);
	srt_work_push(s, w);
	return;
nomem:
	VC_WARN("cannot queue eviction", "pod=%s/%s error=\"out of memory\"", t->ns, t->name);
	vc_free(ev);
	srt_work_free(w);
}

void srt_apply_result(struct sched_runtime *s, const struct sched_result *r)
{
	size_t i;

	for (i = 0; i < r->nevicts; i++)
		apply_evict(s, &r->evicts[i]);
	for (i = 0; i < r->nbinds; i++)
		apply_bind(s, &r->binds[i]);
	for (i = 0; i < r->njobs; i++)
		apply_job(s, &r->jobs[i]);
	for (i = 0; i < r->ntasks; i++)
		apply_task(s, &r->tasks[i]);
	for (i = 0; i < r->nqueues; i++)
		apply_queue(s, &r->queues[i]);
}
