/*
 * sched_runtime_pool.c - how the writes a cycle decided (sched_runtime_write.c) are carried out:
 * the work lists and the bounded pool of worker threads that runs them, and running one write
 * (bind, eviction, status or condition write and its Event).
 *
 * Pacing. The work lists have three lanes: binds and evictions first, then PodGroup and Queue
 * status, then pod conditions, which at most a quarter of the workers run at once, so that the
 * informational writes never hold the bind pipeline up.
 *
 * Threads. A write queued while fewer workers wait than there are writes ready starts one (up to
 * cfg.bind_workers), and a worker ends after SRT_WORKER_IDLE_NS without work: after a pod storm
 * the 32 workers of the default, each with its stack pages, malloc cache and libcurl handle,
 * do not stay (bench/README.md, "Memory after the pod storm", fourth pass).
 */
#include "sched_runtime_internal.h"

#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

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
	vc_free(w->uid);
	vc_free(w->rv);
	json_decref(w->body);
	vc_free(w);
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

/* Under pool_mu: how many writes workers could take now. */
static size_t ready_count(const struct sched_runtime *s)
{
	size_t bg_room = bg_limit(s) > s->bg_busy ? bg_limit(s) - s->bg_busy : 0;

	return s->queued - s->bg_queued + VC_MIN(s->bg_queued, bg_room);
}

static void *worker_main(void *arg);

/* Under pool_mu: start a worker when the writes ready outnumber the idle workers. */
static void grow(struct sched_runtime *s)
{
	int k;

	if (s->wrunning >= s->nworkers || ready_count(s) <= (size_t)s->widle)
		return;
	for (k = 0; k < s->nworkers; k++) {
		if (s->wstate[k] == 1)
			continue;
		if (s->wstate[k] == 2) /* exited: its join returns at once */
			pthread_join(s->workers[k], NULL);
		s->wstate[k] = 0;
		/* The new worker reads its slot under pool_mu, which is held until the id is in. */
		if (pthread_create(&s->workers[k], NULL, worker_main, s))
			return; /* the workers running take the write later; drain runs it inline */
		s->wstate[k] = 1;
		s->wrunning++;
		return;
	}
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
	if (is_background(w))
		s->bg_queued++;
	grow(s);
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
	if (is_background(w))
		s->bg_queued--;
	return w;
}

/* Under pool_mu: wait up to SRT_WORKER_IDLE_NS for work; false when none came (or stop). */
static bool wait_work(struct sched_runtime *s)
{
	struct timespec dl;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += SRT_WORKER_IDLE_NS / INT64_C(1000000000);
	s->widle++;
	while (!s->pool_stop && !work_ready(s) && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&s->pool_cond, &s->pool_mu, &dl);
	s->widle--;
	return !s->pool_stop && work_ready(s);
}

static void *worker_main(void *arg)
{
	struct sched_runtime *s = arg;
	int k;

	pthread_mutex_lock(&s->pool_mu);
	for (;;) {
		struct srt_work *w;

		bool bg;

		if (!s->pool_stop && !work_ready(s) && !wait_work(s))
			break;
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
	for (k = 0; k < s->nworkers; k++)
		if (s->wstate[k] == 1 && pthread_equal(s->workers[k], pthread_self()))
			s->wstate[k] = 2;
	s->wrunning--;
	pthread_cond_broadcast(&s->idle_cond); /* a drain waiting on the workers looks again */
	pthread_mutex_unlock(&s->pool_mu);
	return NULL;
}

int srt_pool_start(struct sched_runtime *s)
{
	int n = s->cfg.bind_workers > 0 ? s->cfg.bind_workers : 1;

	s->workers = vc_calloc((size_t)n, sizeof(*s->workers));
	s->wstate = vc_calloc((size_t)n, 1);
	if (!s->workers || !s->wstate) {
		vc_free(s->workers);
		vc_free(s->wstate);
		s->workers = NULL;
		s->wstate = NULL;
		return VC_ENOMEM;
	}
	pthread_mutex_lock(&s->pool_mu);
	s->nworkers = n;
	grow(s); /* writes queued before the start */
	pthread_mutex_unlock(&s->pool_mu);
	return 0;
}

int srt_pool_threads(struct sched_runtime *s)
{
	int n;

	pthread_mutex_lock(&s->pool_mu);
	n = s->wrunning;
	pthread_mutex_unlock(&s->pool_mu);
	return n;
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
	for (i = 0; i < s->nworkers; i++) {
		unsigned char st;

		/* Under the lock: an ending worker writes its slot. */
		pthread_mutex_lock(&s->pool_mu);
		st = s->wstate[i];
		pthread_mutex_unlock(&s->pool_mu);
		if (st)
			pthread_join(s->workers[i], NULL);
	}
	pthread_mutex_lock(&s->pool_mu);
	s->nworkers = 0;
	s->wrunning = 0;
	pthread_mutex_unlock(&s->pool_mu);
	vc_free(s->workers);
	vc_free(s->wstate);
	s->workers = NULL;
	s->wstate = NULL;
	srt_pool_discard(s);
}

size_t sched_runtime_drain(struct sched_runtime *s)
{
	struct srt_work *w;
	size_t n = 0;

	pthread_mutex_lock(&s->pool_mu);
	/* With workers running, wait for them; what none could start on runs here. */
	while ((s->queued || s->busy) && s->wrunning)
		pthread_cond_wait(&s->idle_cond, &s->pool_mu);
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
	sched_metrics_attempts(s->sched, result, 1);
}

static int64_t pod_created_ns(const json_t *pod)
{
	const char *ts = vc_json_get_str(vc_json_get_obj(pod, "metadata"), "creationTimestamp");
	int64_t sec;
	int32_t nsec = 0;

	if (!ts || vc_time_parse_rfc3339(ts, &sec, &nsec, NULL) < 0)
		return 0;
	return sec * INT64_C(1000000000) + nsec;
}

/* {"status":{"conditions":[{type, status, reason, message, lastTransitionTime}]}} */
static json_t *condition_new(const char *type, const char *status, const char *reason,
			     const char *message, const char *ltt)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", type, "status", status, "reason",
			 reason, "message", message, "lastTransitionTime", ltt);
}

/* The PodScheduled condition a pod shows, or NULL. */
json_t *srt_pod_condition(const json_t *pod, const char *type)
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
	json_t *c = srt_pod_condition(pod, type);
	const char *t = vc_json_get_str(c, "lastTransitionTime");

	return c && vc_str_eq(vc_json_get_str(c, "status"), status) && t ? t : now;
}

json_t *srt_pod_scheduled_patch(const json_t *pod, const char *reason, const char *message,
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
	int64_t created, t0;
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
	/* Caldera has no PreBind step: the task is PreBound when its bind goes out. */
	created = s->sched ? pod_created_ns(w->obj) : 0;
	sched_metrics_task_stage(s->sched, SCHED_STAGE_PREBOUND, created);
	t0 = sched_metrics_start(s->sched);
	if (!body)
		rc = vc_error_set(&err, VC_ENOMEM, "out of memory");
	else
		rc = vc_kube_create(s->ctx->kube, &vc_gvr_pods, w->ns, w->name, "binding", body,
				    NULL, &err);
	json_decref(body);
	sched_metrics_stage(s->sched, SCHED_STAGE_BIND, t0);
	if (rc == 0) {
		sched_metrics_task_stage(s->sched, SCHED_STAGE_BOUND, created);
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
	/* docs/volcano/scheduler.md §1.6: the task goes back to Pending and the next cycle places
	 * it again. */
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
	body = srt_pod_scheduled_patch(w->obj, "SchedulerError", msg, NULL);
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

/* The Queue to PUT: the cached one with the patch's status.allocated, nulls dropped. */
static int queue_for_put(json_t *obj, const json_t *body)
{
	json_t *alloc = json_deep_copy(vc_json_path(body, "status.allocated")), *v;
	const char *k;
	void *tmp;

	if (!json_is_object(alloc)) {
		json_decref(alloc);
		return VC_ENOMEM;
	}
	/* The patch's nulls (resources no longer allocated) are simply absent from a PUT. */
	json_object_foreach_safe (alloc, tmp, k, v)
		if (json_is_null(v))
			json_object_del(alloc, k);
	if ((!json_object_get(obj, "apiVersion") &&
	     json_object_set_new(obj, "apiVersion",
				 json_string("scheduling.volcano.sh/v1beta1"))) ||
	    (!json_object_get(obj, "kind") &&
	     json_object_set_new(obj, "kind", json_string("Queue")))) {
		json_decref(alloc);
		return VC_ENOMEM;
	}
	return vc_json_set_path_new(obj, "status.allocated", alloc);
}

/* The Pod to PUT: the cached one with the patch's PodScheduled condition (and nominated node). */
static int pod_for_put(json_t *obj, const json_t *body)
{
	const json_t *cond = json_array_get(vc_json_path(body, "status.conditions"), 0);
	const json_t *nominated = vc_json_path(body, "status.nominatedNodeName");
	json_t *list = vc_json_path(obj, "status.conditions"), *c;
	size_t i;

	if (!json_is_object(cond))
		return VC_EINVAL;
	if (!json_is_array(list)) {
		if (vc_json_set_path_new(obj, "status.conditions", json_array()))
			return VC_ENOMEM;
		list = vc_json_path(obj, "status.conditions");
	}
	json_array_foreach (list, i, c)
		if (vc_str_eq(vc_json_get_str(c, "type"), vc_json_get_str(cond, "type")))
			break;
	if (i < json_array_size(list) ? json_array_set_new(list, i, json_deep_copy(cond))
				      : json_array_append_new(list, json_deep_copy(cond)))
		return VC_ENOMEM;
	return nominated ? vc_json_set_path_new(obj, "status.nominatedNodeName",
						json_deep_copy(nominated))
			 : 0;
}

/*
 * Write a status: a patch of the status subresource. Volcano's ClusterRole volcano-scheduler
 * grants queues/status and pods/status `update` only (Volcano's scheduler PUTs them): once a
 * patch of that resource is Forbidden (*use_put, under mu), the status is PUT instead, built by
 * for_put (a stale copy answers Conflict and the next cycle writes from the fresh one). The base
 * is the cached object the work carries, or, with fresh, the object read from the API server:
 * a pod's PUT to pods/status also writes its labels and annotations, and the cached pod is a
 * slim view without most of them, so a PUT of it would strip them. A pod read back with another
 * UID (deleted and made again under the name) is not written (Conflict).
 */
static int patch_or_put(struct sched_runtime *s, struct srt_work *w, const struct vc_gvr *r,
			enum vc_patch_type type, bool *use_put, bool fresh,
			int (*for_put)(json_t *obj, const json_t *body), struct vc_error *err)
{
	const char *uid = json_string_value(vc_json_path(w->obj, "metadata.uid"));
	json_t *obj = NULL;
	bool put;
	int rc;

	pthread_mutex_lock(&s->mu);
	put = *use_put;
	pthread_mutex_unlock(&s->mu);
	if (!put) {
		rc = vc_kube_patch(s->ctx->kube, r, w->ns, w->name, "status", type, w->body, NULL,
				   err);
		if (rc != VC_EFORBIDDEN)
			return rc;
		VC_WARN("patching the status is forbidden, updating it instead",
			"resource=%s/status", r->resource);
		pthread_mutex_lock(&s->mu);
		*use_put = true;
		pthread_mutex_unlock(&s->mu);
		vc_error_clear(err);
	}
	if (fresh) {
		rc = vc_kube_get(s->ctx->kube, r, w->ns, w->name, NULL, &obj, err);
		if (rc)
			return rc;
		if (uid && !vc_str_eq(uid, json_string_value(vc_json_path(obj, "metadata.uid")))) {
			json_decref(obj);
			return vc_error_set(err, VC_ECONFLICT, "%s %s/%s was replaced", r->resource,
					    w->ns, w->name);
		}
	} else if (!(obj = json_deep_copy(w->obj))) {
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	rc = for_put(obj, w->body);
	if (rc)
		rc = vc_error_set(err, rc, "cannot build the %s status", r->resource);
	else
		rc = vc_kube_update(s->ctx->kube, r, w->ns, w->name, "status", obj, NULL, err);
	json_decref(obj);
	return rc;
}

static void run_status(struct sched_runtime *s, struct srt_work *w)
{
	json_t *body = NULL;
	struct vc_error err;
	uint64_t *ok, *bad;
	const char *what;
	int rc;

	vc_error_clear(&err);
	switch (w->kind) {
	case SRT_W_PG:
		body = srt_pg_body(s, w);
		rc = body ? vc_kube_update(s->ctx->kube, &vc_gvr_podgroups, w->ns, w->name, NULL,
					   body, NULL, &err)
			  : vc_error_set(&err, VC_ENOTFOUND, "podgroup %s/%s is not cached",
					 w->ns ? w->ns : "", w->name);
		json_decref(body);
		ok = &s->stats.pg_writes;
		bad = &s->stats.pg_errors;
		what = "podgroup";
		break;
	case SRT_W_QUEUE:
		rc = patch_or_put(s, w, &vc_gvr_queues, VC_PATCH_MERGE, &s->queue_status_put, false,
				  queue_for_put, &err);
		ok = &s->stats.queue_writes;
		bad = &s->stats.queue_errors;
		what = "queue";
		break;
	default:
		rc = patch_or_put(s, w, &vc_gvr_pods, VC_PATCH_STRATEGIC, &s->pod_status_put, true,
				  pod_for_put, &err);
		ok = &s->stats.pod_cond_writes;
		bad = &s->stats.pod_cond_errors;
		what = "pod";
		break;
	}
	srt_track_end(s, w->key, rc);
	pthread_mutex_lock(&s->mu);
	if (rc == 0)
		(*ok)++;
	else if (rc == VC_ECONFLICT && w->kind == SRT_W_PG)
		s->stats.pg_conflicts++;
	else
		(*bad)++;
	pthread_mutex_unlock(&s->mu);
	if (rc == VC_ECONFLICT) {
		/* docs/volcano/scheduler.md §1.8: the cached copy was stale; the next cycle works
		 * from the fresh one. */
		VC_LOG(VC_LOG_V(2), "status write conflict", "%s=%s%s%s", what, w->ns ? w->ns : "",
		       w->ns ? "/" : "", w->name);
		srt_kick(s, SRT_CONFLICT_KICK_NS);
	} else if (rc) {
		VC_WARN("cannot update status", "%s=%s%s%s error=\"%s\"", what, w->ns ? w->ns : "",
			w->ns ? "/" : "", w->name, err.text);
	} else if (w->event_message && w->kind == SRT_W_PG) {
		json_t *pg = srt_pg_obj(w->obj, w->ns, w->name, w->uid, w->rv);

		srt_event(s, pg, w->event_type, w->reason, w->event_message, true);
		json_decref(pg);
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
