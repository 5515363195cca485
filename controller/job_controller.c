/*
 * job_controller.c - the runtime of the Job lifecycle controller (docs/volcano/job-controller.md
 * §3): the per-job work queue whose payload is the list of pending requests, the workers, Command
 * processing, policy resolution and delayed actions, retries. The informer handlers that turn
 * watch events into requests are in job_handlers.c, the per-job state (overlay, expectations,
 * delayed actions) in job_cache.c, the primitives in job_sync.c (SyncJob), job_kill.c (KillJob,
 * KillTarget) and job_sync_objects.c (the objects a sync keeps), the pure state machine in
 * job_state.c.
 *
 * Serialisation: the queue is keyed by "<ns>/<job>", so a job is never worked on by two workers
 * at once (vc_workqueue's processing set), and its requests are merged in arrival order into the
 * key's payload, so every lifecycle policy sees the event it needs. Requests that resolve to
 * SyncJob are level-triggered: a run of them collapses into one SyncJob, executed before the next
 * non-sync action so that the state the action runs on is current.
 *
 * Delayed actions (docs/volcano/job-controller.md §3.6) live in the job's entry with their due
 * time; the key is re-added with vc_workqueue_add_after, and the worker that takes it runs what is
 * due, through the same per-job serialisation. Cancelling an action removes its entry, so its
 * wake-up does nothing.
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

int job_run_load(struct jobctl *c, const char *key, struct job_run *run)
{
	struct vc_error err;
	int rc;

	memset(run, 0, sizeof(*run));
	run->c = c;
	run->key = key;
	run->obj = job_cache_get(c, key);
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

void job_enqueue(struct jobctl *c, const char *key, struct job_request *r)
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

/* ---- the lane of Job adds -----------------------------------------------------------------------
 *
 * A Job the informer adds needs a first sync (its initiation: the Pending status and the
 * PodGroup, docs/volcano/job-controller.md §4.2.1 step 4), and its pods come only from a later
 * sync, the one its PodGroup's turn to Inqueue queues (§2.5). When the controller starts on a
 * backlog (every Job is an add then) or many Jobs arrive at once, one FIFO work queue puts that
 * later sync behind the first sync of every other Job: no pod is created before the whole
 * backlog is initiated (a thousand Jobs: 15-20 s on the test machine, bench/README.md "Job
 * controller"). So the adds wait in a lane of their own and are fed into the work queue while it
 * holds fewer than JOB_LANE_DEPTH ready keys per worker, and one add per JOB_LANE_FAIR keys
 * worked whatever its length. A request that follows up a Job already worked on then waits
 * behind far fewer first syncs. The second rule keeps the first syncs flowing while the
 * follow-ups of earlier Jobs (their echoes, pod adds, PodGroup changes: about three per Job)
 * keep the queue long: with one add per 8 keys worked, the first syncs were the bottleneck
 * (1,000 Jobs: 200 pods/s instead of 380 in FIFO order); one per 2 beat FIFO order on every
 * milestone. Only the order in which Jobs are taken changes: within a Job, the PodGroup still
 * comes first and its pods only once it is Inqueue.
 */

#define JOB_LANE_DEPTH 2
#define JOB_LANE_FAIR  2

static void enqueue_sync(struct jobctl *c, const char *key)
{
	struct job_request *r = job_request_new();

	if (!r) {
		VC_WARN("cannot queue request", "job=%s err=\"out of memory\"", key);
		return;
	}
	r->event = VC_EVENT_OUT_OF_SYNC;
	job_enqueue(c, key, r);
}

/* Move lane keys into the work queue as described above; worked: a key was just worked. */
static void lane_feed(struct jobctl *c, bool worked)
{
	char *keys[16];
	size_t want = 0, n = 0, i, ready, depth = (size_t)c->cfg.workers * JOB_LANE_DEPTH;

	pthread_mutex_lock(&c->lane_lock);
	if (worked && c->lane_worked < UINT_MAX)
		c->lane_worked++;
	if (c->lane_n > c->lane_head) {
		ready = vc_workqueue_len(c->q);
		want = ready < depth ? depth - ready : 0;
		if (!want && c->lane_worked >= JOB_LANE_FAIR)
			want = 1;
	}
	if (want > VC_ARRAY_SIZE(keys))
		want = VC_ARRAY_SIZE(keys);
	if (want)
		c->lane_worked = 0;
	while (n < want && c->lane_head < c->lane_n) {
		keys[n] = c->lane[c->lane_head];
		c->lane[c->lane_head++] = NULL;
		(void)vc_hmap_remove(&c->lane_keys, keys[n], NULL);
		n++;
	}
	if (c->lane_head == c->lane_n)
		c->lane_head = c->lane_n = 0;
	pthread_mutex_unlock(&c->lane_lock);
	for (i = 0; i < n; i++) {
		enqueue_sync(c, keys[i]);
		vc_free(keys[i]);
	}
}

void job_enqueue_add(struct jobctl *c, const char *key)
{
	char **grown, *copy = NULL;
	size_t cap;

	pthread_mutex_lock(&c->lane_lock);
	if (vc_hmap_lookup(&c->lane_keys, key, NULL))
		goto out_unlock; /* already waiting */
	if (c->lane_head > 0 && c->lane_n == c->lane_cap) {
		memmove(c->lane, c->lane + c->lane_head,
			(c->lane_n - c->lane_head) * sizeof(char *));
		c->lane_n -= c->lane_head;
		c->lane_head = 0;
	}
	if (c->lane_n == c->lane_cap) {
		cap = c->lane_cap ? c->lane_cap * 2 : 64;
		grown = vc_realloc(c->lane, cap * sizeof(char *));
		if (!grown)
			goto nomem;
		c->lane = grown;
		c->lane_cap = cap;
	}
	copy = vc_strdup(key);
	if (!copy || vc_hmap_put(&c->lane_keys, key, NULL, NULL))
		goto nomem;
	c->lane[c->lane_n++] = copy;
out_unlock:
	pthread_mutex_unlock(&c->lane_lock);
	lane_feed(c, false);
	return;
nomem:
	pthread_mutex_unlock(&c->lane_lock);
	vc_free(copy);
	enqueue_sync(c, key); /* straight into the work queue */
}

static void lane_free(struct jobctl *c)
{
	size_t i;

	for (i = c->lane_head; i < c->lane_n; i++)
		vc_free(c->lane[i]);
	vc_free(c->lane);
	vc_hmap_release(&c->lane_keys, NULL);
	pthread_mutex_destroy(&c->lane_lock);
}

/* ---- processing (docs/volcano/job-controller.md §3.5) -------------------------------------------
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
		job_delayed_cancel_scope(c, run->key, action, t.task, t.pod, t.partition);
	if (run->exp_left > 0)
		job_recheck_after(c, run->key, run->exp_left + 1000000);
	return rc;
}

/*
 * A failed request (docs/volcano/job-controller.md §3.2): retry it rate-limited under
 * --max-requeue-num, else record the event, terminate the job from its current state and drop the
 * request. Returns true when the request was queued again.
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
	struct job_delayed d;
	struct job_request r;
	int64_t next;

	while (job_delayed_take_due(c, key, &d, &next)) {
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
		job_delayed_release(&d);
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
		struct job_request *r = reqs->items[i];
		bool viewed;

		obj = job_cache_get(c, key);
		viewed = obj && !vc_job_view(obj, &job, NULL);
		if (viewed && r->recovered)
			(void)job_pod_recover(c, key, &job, r);
		job_delayed_cancel_for_event(c, key, r);
		if (!viewed) {
			json_decref(obj);
			continue; /* job not ready: dropped */
		}
		job_resolve(&job, r, &res);
		if (res.delay_ns > 0) {
			due = job_delayed_register(c, key, r, &res);
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

/* ---- Commands (docs/volcano/job-controller.md §3.4) ------------------------------------------ */

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
	job_enqueue(c, jobkey, r);
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
	lane_feed(ctx, true);
}

size_t jobctl_run_pending(struct jobctl *c)
{
	return vc_ctlrun_run_pending(c->rt);
}

/* ---- lifecycle ----------------------------------------------------------------------------------
 */

/* ---- metrics (docs/volcano/metrics.md, Controller manager) ---------------------------------- */

static void register_metrics(struct jobctl *c)
{
	static const char *const labels[] = { "job_name", "queue_name", NULL };
	struct vc_metrics *r = c->cfg.metrics;
	struct vc_error err;
	double b[12];

	if (!r)
		return;
	vc_error_clear(&err);
	if (!c->cfg.metrics_no_per_job &&
	    (vc_metrics_counter(r, "volcano_job_completed_phase_count",
				"Number of job completed phase", labels, &c->m_completed, &err) ||
	     vc_metrics_counter(r, "volcano_job_failed_phase_count", "Number of job failed phase",
				labels, &c->m_failed, &err)))
		VC_WARN("cannot register metric", "error=\"%s\"", err.text);
	/* 10 ms to about 20 s. */
	if (vc_metrics_exponential_buckets(10, 2, VC_ARRAY_SIZE(b), b) ||
	    vc_metrics_histogram(r, "volcano_controller_job_to_pod_creation_latency_milliseconds",
				 "Latency from VCJob creation to pod created in milliseconds", NULL,
				 b, VC_ARRAY_SIZE(b), &c->m_pod_latency, &err))
		VC_WARN("cannot register metric", "error=\"%s\"", err.text);
}

static const char *job_queue(const json_t *job)
{
	const char *q = vc_json_get_str(vc_json_get_obj(job, "spec"), "queue");

	return q && *q ? q : "default";
}

void job_metrics_phase(struct job_run *run, const char *old_phase, const char *new_phase)
{
	struct vc_metric *m = NULL;
	const char *v[] = { run->job.meta.name, job_queue(run->obj), NULL };

	if (!run->c || !new_phase || vc_str_eq(old_phase, new_phase))
		return;
	if (!strcmp(new_phase, "Completed"))
		m = run->c->m_completed;
	else if (!strcmp(new_phase, "Failed"))
		m = run->c->m_failed;
	if (m && vc_metric_inc(m, v) < 0)
		VC_LOG(VC_LOG_V(4), "cannot record metric", "job=%s", run->key);
}

void job_metrics_pod_created(struct job_run *run)
{
	int64_t sec;
	int32_t nsec = 0;
	double ms;

	if (!run->c || !run->c->m_pod_latency || !run->job.meta.creation_timestamp ||
	    vc_time_parse_rfc3339(run->job.meta.creation_timestamp, &sec, &nsec, NULL) < 0)
		return;
	ms = (double)(vc_time_now_ns() - (sec * INT64_C(1000000000) + nsec)) / 1e6;
	if (vc_metric_observe(run->c->m_pod_latency, NULL, ms > 0 ? ms : 0) < 0)
		VC_LOG(VC_LOG_V(4), "cannot record metric", "job=%s", run->key);
}

void job_metrics_forget(struct jobctl *c, const json_t *job)
{
	const char *v[] = { vc_json_get_str(vc_json_get_obj(job, "metadata"), "name"),
			    job_queue(job), NULL };

	if (!v[0])
		return;
	if ((c->m_completed && vc_metric_delete(c->m_completed, v) < 0) ||
	    (c->m_failed && vc_metric_delete(c->m_failed, v) < 0))
		VC_LOG(VC_LOG_V(4), "cannot delete metric", "job=%s", v[0]);
}

void jobctl_config_defaults(struct jobctl_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->workers = 3;
	cfg->max_requeue = 15;
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
	if (pthread_mutex_init(&c->lane_lock, NULL)) {
		pthread_mutex_destroy(&c->lock);
		vc_free(c);
		return vc_error_set(err, VC_ENOMEM, "cannot create a mutex");
	}
	vc_hmap_init_str(&c->entries);
	vc_hmap_init_str(&c->lane_keys);
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
	register_metrics(c);
	for (k = 0; k < 4; k++)
		if ((rc = vc_informer_add_handler(infs[k], job_handler_set(c, k))))
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
	if (!c)
		return;
	jobctl_stop(c);
	job_pool_free(c->pool);
	vc_ctlrun_free(c->rt);
	job_cache_free(c);
	lane_free(c);
	pthread_mutex_destroy(&c->lock);
	vc_free(c);
}
