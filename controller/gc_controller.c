/*
 * gc_controller.c - delete finished Jobs once their ttlSecondsAfterFinished has passed
 * (docs/volcano/job-controller.md §4.11, Volcano's pkg/controllers/garbagecollector).
 *
 * A Job qualifies when spec.ttlSecondsAfterFinished is set, it has no deletionTimestamp and its
 * phase is Completed, Failed or Terminated. Its finish time is status.state.lastTransitionTime
 * (finished states never refresh it). Before the expiry the key waits in the work queue
 * (vc_workqueue_add_after) for the remaining time; at the expiry the Job is read again from the
 * API server (the cache may be stale), checked again, and deleted with propagationPolicy
 * Foreground and a UID precondition, so a Job re-created under the same name is never hit.
 */
#include "gc_controller.h"

#include "vc_alloc.h"
#include "vc_ctlrun.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_model.h"
#include "vc_time.h"
#include "vc_workqueue.h"

struct gcctl {
	struct vc_ctrl_ctx *ctx;
	struct gcctl_config cfg;
	struct vc_ctlrun *rt;
	struct vc_workqueue *wq; /* rt's */
};

void gcctl_config_defaults(struct gcctl_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->workers = 1;
}

/* spec.ttlSecondsAfterFinished is set and the phase is a finished one (needsCleanup). */
static bool needs_cleanup(const json_t *job)
{
	const char *phase = json_string_value(vc_json_path(job, "status.state.phase"));

	return json_is_integer(vc_json_path(job, "spec.ttlSecondsAfterFinished")) &&
	       vc_job_phase_is_finished(vc_job_phase_parse(phase ? phase : ""));
}

static void enqueue(struct gcctl *c, const json_t *job)
{
	char key[VC_CACHE_KEY_MAX];
	int rc;

	if (!needs_cleanup(job) || vc_cache_key(job, key, sizeof(key)))
		return;
	rc = vc_workqueue_add(c->wq, key);
	if (rc && rc != VC_ESHUTDOWN)
		VC_ERROR("cannot queue a finished job", "job=%s error=\"%s\"", key,
			 vc_strerror(rc));
}

static void on_add(void *arg, json_t *obj)
{
	enqueue(arg, obj);
}

static void on_update(void *arg, json_t *old_obj, json_t *new_obj)
{
	(void)old_obj;
	enqueue(arg, new_obj);
}

/*
 * processTTL: *expired tells whether job's TTL has run out now. A job that does not qualify
 * (any more) is not expired; one that has time left is queued again after that time. Returns 0,
 * or VC_EINVALID (with err) when the finish time is missing or does not parse.
 */
static int process_ttl(struct gcctl *c, const char *key, const json_t *job, bool *expired,
		       struct vc_error *err)
{
	const char *lt = json_string_value(vc_json_path(job, "status.state.lastTransitionTime"));
	int64_t ttl, sec = 0, now, finish, remaining;
	int32_t nsec = 0;
	int rc;

	*expired = false;
	if (json_is_string(vc_json_path(job, "metadata.deletionTimestamp")) || !needs_cleanup(job))
		return 0;
	ttl = json_integer_value(vc_json_path(job, "spec.ttlSecondsAfterFinished"));
	if (!lt || vc_time_parse_rfc3339(lt, &sec, &nsec, NULL) || sec <= 0)
		return vc_error_set(err, VC_EINVALID,
				    "unable to find the time when the Job %s finished", key);
	if (ttl < 0)
		ttl = 0; /* the CRD refuses negative values; never wait for them */
	if (ttl > INT32_MAX)
		ttl = INT32_MAX;
	finish = sec * VC_NSEC_PER_SEC + nsec;
	now = vc_time_now_ns();
	if (finish > now)
		VC_WARN("found a Job finished in the future, likely time skew in the cluster; "
			"its cleanup is deferred",
			"job=%s", key);
	remaining = finish + ttl * VC_NSEC_PER_SEC - now;
	if (remaining > 0) {
		rc = vc_workqueue_add_after(c->wq, key, remaining);
		if (rc && rc != VC_ESHUTDOWN)
			return vc_error_set(err, rc, "cannot queue job '%s' for later", key);
		return 0;
	}
	*expired = true;
	return 0;
}

/* processJob: 0 when done with key (deleted, gone, not due yet), else a negative code. */
static int process_job(struct gcctl *c, const char *key, struct vc_error *err)
{
	struct vc_delete_opts del = { .grace_period_seconds = -1 };
	char ns[64] = "", name[256];
	const char *slash = strchr(key, '/');
	json_t *job, *fresh = NULL;
	bool expired;
	int rc;

	job = vc_cache_get(vc_informer_cache(c->ctx->jobs), key);
	if (!job)
		return 0;
	rc = process_ttl(c, key, job, &expired, err);
	json_decref(job);
	if (rc || !expired)
		return rc;

	if (!slash || (size_t)(slash - key) >= sizeof(ns) || strlen(slash + 1) >= sizeof(name))
		return 0; /* not a key the cache makes for a Job */
	memcpy(ns, key, (size_t)(slash - key));
	ns[slash - key] = '\0';
	snprintf(name, sizeof(name), "%s", slash + 1);

	/* The cached Job may be stale: look at the API server's before deleting. */
	rc = vc_kube_get(c->ctx->kube, &vc_gvr_jobs, ns, name, NULL, &fresh, err);
	if (rc == VC_ENOTFOUND)
		return 0;
	if (rc)
		return rc;
	rc = process_ttl(c, key, fresh, &expired, err);
	if (rc || !expired)
		goto out;
	del.propagation_policy = "Foreground";
	del.precondition_uid = json_string_value(vc_json_path(fresh, "metadata.uid"));
	VC_INFO("cleaning up a finished Job after its TTL", "job=%s", key);
	rc = vc_kube_delete(c->ctx->kube, &vc_gvr_jobs, ns, name, &del, err);
	if (rc == VC_ENOTFOUND)
		rc = 0;
out:
	json_decref(fresh);
	return rc;
}

static int sync_key(void *ctx, const char *key, struct vc_error *err)
{
	return process_job(ctx, key, err);
}

static const struct vc_ctlrun_retry gc_retry = {
	.max_requeue = -1,
	.key_label = "job",
	.retry_level = VC_LOG_ERROR,
	.retry_msg = "error cleaning up a Job, will retry",
	.requeue_level = VC_LOG_ERROR,
	.requeue_msg = "cannot queue a Job again",
	.requeue_err_label = "error",
};

int gcctl_run_once(struct gcctl *c)
{
	return vc_ctlrun_run_once(c->rt);
}

int gcctl_new(struct vc_ctrl_ctx *ctx, const struct gcctl_config *cfg, struct gcctl **out,
	      struct vc_error *err)
{
	struct vc_informer_handler h = { on_add, on_update, NULL, NULL };
	struct vc_ctlrun_queue_def def = { 0 };
	struct gcctl *c;
	int rc;

	*out = NULL;
	if (!ctx || !cfg)
		return vc_error_set(err, VC_EINVAL, "gc controller: no context or configuration");
	if (!ctx->jobs)
		return vc_error_set(err, VC_EINVAL, "gc controller needs the jobs informer");
	c = vc_calloc(1, sizeof(*c));
	if (!c)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	c->ctx = ctx;
	c->cfg = *cfg;
	if (c->cfg.workers < 1)
		c->cfg.workers = 1;
	def.workers = c->cfg.workers;
	def.sync = sync_key;
	def.retry = &gc_retry;
	def.ctx = c;
	c->rt = vc_ctlrun_new();
	if (!c->rt || vc_ctlrun_add(c->rt, &def, &c->wq)) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	h.ctx = c;
	rc = vc_informer_add_handler(ctx->jobs, &h);
	if (rc) {
		vc_error_set(err, rc, "gc controller: cannot watch jobs");
		goto fail;
	}
	*out = c;
	return 0;
fail:
	vc_ctlrun_free(c->rt);
	vc_free(c);
	return rc;
}

int gcctl_start(struct gcctl *c)
{
	int rc = vc_ctlrun_start(c->rt);

	if (rc)
		return rc;
	VC_INFO("gc controller started", "workers=%zu", vc_ctlrun_threads(c->rt));
	return 0;
}

void gcctl_stop(struct gcctl *c)
{
	if (!c)
		return;
	vc_ctlrun_stop(c->rt);
}

void gcctl_free(struct gcctl *c)
{
	if (!c)
		return;
	gcctl_stop(c);
	vc_ctlrun_free(c->rt);
	vc_free(c);
}
