/*
 * job_handlers.c - the job controller's informer handlers (docs/volcano/job-controller.md §3.1):
 * Job, pod, PodGroup and Command events become requests queued under the job's key (job_enqueue),
 * or Command keys on the command queue.
 */
#include "job_internal.h"

#include "job_pod.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_str.h"

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
	job_enqueue(c, key, r);
}

static void on_job_add(void *ctx, json_t *obj)
{
	char key[VC_CACHE_KEY_MAX];

	if (!obj_key(obj, key))
		job_enqueue_add(ctx, key);
}

static void on_job_update(void *ctx, json_t *old_obj, json_t *new_obj)
{
	char key[VC_CACHE_KEY_MAX];
	const char *ov = json_string_value(vc_json_path(old_obj, "metadata.resourceVersion"));
	const char *nv = json_string_value(vc_json_path(new_obj, "metadata.resourceVersion"));

	if (old_obj == new_obj || (ov && nv && !strcmp(ov, nv)) || obj_key(new_obj, key))
		return;
	job_overlay_seen(ctx, key, new_obj);
	if (!vc_json_equal(json_object_get(old_obj, "spec"), json_object_get(new_obj, "spec")) ||
	    !vc_str_eq(json_string_value(vc_json_path(old_obj, "status.state.phase")),
		       json_string_value(vc_json_path(new_obj, "status.state.phase"))))
		enqueue_event(ctx, key, VC_EVENT_OUT_OF_SYNC);
}

static void on_job_delete(void *ctx, json_t *obj, bool final_state_unknown)
{
	char key[VC_CACHE_KEY_MAX];

	(void)final_state_unknown;
	job_metrics_forget(ctx, obj);
	if (!obj_key(obj, key))
		job_cache_remove(ctx, key);
}

/* ---- pod handlers (docs/volcano/job-controller.md §3.1) -----------------------------------------
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
 * The task-level check of docs/volcano/job-controller.md §3.1 on the job's pods (the pod cache,
 * which already holds the new pod): TaskCompleted (`completed`) or TaskFailed.
 */
static bool task_hit(const struct vc_job *job, const struct vc_objs *pods, const char *task,
		     bool completed)
{
	const struct vc_task *t = vc_job_task(job, task);
	int64_t n = 0;
	size_t i;

	if (!t || !policies_mention(job, task,
				    completed ? VC_EVENT_TASK_COMPLETED : VC_EVENT_TASK_FAILED))
		return false;
	if (!completed && t->max_retry < 0)
		return false;
	for (i = 0; i < pods->count; i++) {
		const json_t *p = pods->items[i];
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
	return completed ? (t->replicas > 0 && n >= t->replicas) : n >= t->max_retry;
}

/* task_hit with the job from the informer and its pods from the pod cache. */
static bool task_check(struct jobctl *c, const char *jobkey, const char *task, bool completed)
{
	json_t *obj = vc_cache_get(vc_informer_cache(c->ctx->jobs), jobkey);
	struct vc_objs pods = { 0 };
	struct vc_job job;
	bool hit = false;

	if (!obj)
		return false;
	if (vc_job_view(obj, &job, NULL)) {
		json_decref(obj);
		return false;
	}
	if (!vc_cache_by_index(vc_informer_cache(c->ctx->pods), CTX_INDEX_JOB, jobkey, &pods))
		hit = task_hit(&job, &pods, task, completed);
	vc_objs_release(&pods);
	vc_job_view_release(&job);
	json_decref(obj);
	return hit;
}

/*
 * The request of a job pod (docs/volcano/job-controller.md §3.1), or NULL when the pod is not one
 * (no Job controller reference, missing annotations) or memory ran out. *key receives "<ns>/<job>".
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

static bool pod_finished(const json_t *pod)
{
	const char *ph = pod_phase_str(pod);

	return !strcmp(ph, "Succeeded") || !strcmp(ph, "Failed");
}

/*
 * A pod added already finished (the first list, or a relist after a watch gap) is marked
 * `recovered`: its update to that phase was never seen (docs/volcano/job-controller.md §8.40).
 * Not one the controller marked and is deleting (its kill was the action), nor one being
 * deleted by someone else (its delete, still to come, gives PodEvicted).
 */
static void on_pod_add(void *ctx, json_t *pod)
{
	char key[VC_CACHE_KEY_MAX];
	struct job_request *r = pod_request(pod, key);

	if (!r)
		return;
	pod_observed(ctx, key, r, pod, false);
	r->event = out_of_sync(pod) ? VC_EVENT_OUT_OF_SYNC : VC_EVENT_POD_PENDING;
	r->recovered = r->event == VC_EVENT_POD_PENDING && pod_finished(pod) &&
		       !vc_json_path(pod, "metadata.deletionTimestamp");
	job_enqueue(ctx, key, r);
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
	job_enqueue(c, key, r);
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
	job_enqueue(ctx, key, r);
}

/* ---- pods that finished unseen (docs/volcano/job-controller.md §8.40) ------------------------ */

/* When the pod's containers finished: the latest terminated.finishedAt, in ns (0: none). */
static int64_t finished_at(const json_t *pod)
{
	const char *lists[] = { "status.containerStatuses", "status.initContainerStatuses" };
	int64_t best = 0, sec;
	int32_t nsec;
	json_t *s;
	size_t l, i;

	for (l = 0; l < VC_ARRAY_SIZE(lists); l++)
		json_array_foreach (vc_json_path(pod, lists[l]), i, s) {
			const char *t =
				json_string_value(vc_json_path(s, "state.terminated.finishedAt"));

			nsec = 0;
			if (t && !vc_time_parse_rfc3339(t, &sec, &nsec, NULL) && sec >= 0 &&
			    sec < INT64_MAX / VC_NSEC_PER_SEC - 1 &&
			    sec * VC_NSEC_PER_SEC + nsec > best)
				best = sec * VC_NSEC_PER_SEC + nsec;
		}
	return best;
}

/*
 * Whether pod is the task's Succeeded pod that finished last (ties: the greatest name): the one
 * whose update to Succeeded would have completed the task. Of several Succeeded pods added at
 * once, only that one stands for the update, so the task's TaskCompleted is derived once.
 */
static bool last_to_succeed(const json_t *pod, const struct vc_objs *pods, const char *task)
{
	int64_t mine = finished_at(pod), other;
	const char *name = json_string_value(vc_json_path(pod, "metadata.name"));
	size_t i;

	for (i = 0; i < pods->count; i++) {
		const json_t *p = pods->items[i];
		const char *pn = json_string_value(vc_json_path(p, "metadata.name"));

		if (!vc_str_eq(pod_task(p), task) || strcmp(pod_phase_str(p), "Succeeded") ||
		    vc_str_eq(pn, name))
			continue;
		other = finished_at(p);
		if (other > mine || (other == mine && pn && name && strcmp(pn, name) > 0))
			return false;
	}
	return true;
}

bool job_pod_recover(struct jobctl *c, const char *key, const struct vc_job *job,
		     struct job_request *r)
{
	char podkey[VC_CACHE_KEY_MAX];
	struct vc_objs pods = { 0 };
	json_t *pod = NULL;
	bool done = false;

	r->recovered = false;
	/*
	 * A job that left Pending and Running acted already (or a user did: Completing,
	 * Restarting, Aborting, finished); a pod of an older job or version is stale, as
	 * docs/volcano/job-controller.md §3.5 step 4 would resolve it. Then Volcano's event stays.
	 */
	if ((job->status.phase != VC_JOB_PHASE_NONE && job->status.phase != VC_JOB_PENDING &&
	     job->status.phase != VC_JOB_RUNNING) ||
	    !vc_str_eq(r->job_uid, job->meta.uid) || r->job_version != job->status.version ||
	    !r->pod ||
	    snprintf(podkey, sizeof(podkey), "%s/%s", job->meta.ns, r->pod) >= (int)sizeof(podkey))
		return false;
	/* The pod as it is now: the same object, still finished, not marked or being deleted. */
	pod = vc_cache_get(vc_informer_cache(c->ctx->pods), podkey);
	if (!pod || !vc_str_eq(json_string_value(vc_json_path(pod, "metadata.uid")), r->pod_uid) ||
	    !pod_finished(pod) || out_of_sync(pod) ||
	    vc_json_path(pod, "metadata.deletionTimestamp"))
		goto out;
	if (!strcmp(pod_phase_str(pod), "Failed")) {
		r->event = VC_EVENT_POD_FAILED;
		r->exit_code = first_exit_code(pod);
	} else if (vc_cache_by_index(vc_informer_cache(c->ctx->pods), CTX_INDEX_JOB, key, &pods)) {
		goto out; /* out of memory: Volcano's event */
	} else {
		r->event =
			last_to_succeed(pod, &pods, r->task) && task_hit(job, &pods, r->task, true)
				? VC_EVENT_TASK_COMPLETED
				: VC_EVENT_OUT_OF_SYNC;
	}
	done = true;
	if (r->event != VC_EVENT_OUT_OF_SYNC)
		VC_INFO("pod finished while unseen, event derived", "job=%s pod=%s event=%s", key,
			r->pod, vc_bus_event_name((enum vc_bus_event)r->event));
out:
	vc_objs_release(&pods);
	json_decref(pod);
	return done;
}

/* ---- PodGroup and Command handlers ------------------------------------------------------------
 */

/* Queue the job of pg: OutOfSync when out_of_sync, else Unknown or no event after its phase. */
static void pg_enqueue(struct jobctl *c, const json_t *pg, bool out_of_sync)
{
	struct vc_meta m;
	json_t *ref;
	const char *job = NULL;
	char key[VC_CACHE_KEY_MAX];
	int event = JOB_EVENT_NONE;
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
	if (out_of_sync)
		event = VC_EVENT_OUT_OF_SYNC;
	else if (vc_str_eq(json_string_value(vc_json_path(pg, "status.phase")), "Unknown"))
		event = VC_EVENT_JOB_UNKNOWN;
	enqueue_event(c, key, event);
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
		pg_enqueue(ctx, pg, false);
}

/*
 * Whether the PodGroupPending warning new_pg calls for differs from old_pg's: a condition to warn
 * about, of another type or with another message (docs/volcano/job-controller.md §1.5).
 */
static bool pg_pending_changed(const json_t *old_pg, const json_t *new_pg)
{
	const json_t *o = job_pg_pending_condition(old_pg), *n = job_pg_pending_condition(new_pg);

	return n && (!o || !vc_str_eq(vc_json_get_str(o, "type"), vc_json_get_str(n, "type")) ||
		     !vc_str_eq(vc_json_get_str(o, "message"), vc_json_get_str(n, "message")));
}

/*
 * A phase change queues the job, as in Volcano. So does a new Unschedulable condition under an
 * unchanged phase: Volcano's sync that records PodGroupPending is then woken by the scheduler's
 * PodScheduled writes on the pods, which on_pod_update does not queue (they change nothing else
 * a sync reads), so the PodGroup's own change stands in for them.
 */
static void on_pg_update(void *ctx, json_t *old_pg, json_t *new_pg)
{
	if (!vc_str_eq(json_string_value(vc_json_path(old_pg, "status.phase")),
		       json_string_value(vc_json_path(new_pg, "status.phase"))))
		pg_enqueue(ctx, new_pg, false);
	else if (pg_pending_changed(old_pg, new_pg))
		pg_enqueue(ctx, new_pg, true);
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

const struct vc_informer_handler *job_handler_set(struct jobctl *c, int which)
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
	*jobs = *job_handler_set(c, 0);
	*pods = *job_handler_set(c, 1);
	*podgroups = *job_handler_set(c, 2);
	*commands = *job_handler_set(c, 3);
}
