/*
 * queue_controller.c - the Queue controller (docs/volcano/job-controller.md §6.3,
 * docs/volcano/scheduler.md §2.4; Volcano's pkg/controllers/queue and its state package).
 *
 * Two work queues, as in Volcano:
 *   - Commands ("ns/name") whose target is a Queue (scheduling.volcano.sh/v1beta1, kind Queue),
 *     on a thread of their own. A Command is deleted first and executed only when that delete
 *     succeeded, so it runs at most once: a NotFound means someone else consumed it.
 *   - Queues (by name), each carrying the request's action (SyncQueue, OpenQueue, CloseQueue)
 *     as the work queue's payload: an explicit OpenQueue or CloseQueue replaces a pending
 *     request, a SyncQueue never replaces one.
 *
 * The state machine is Volcano's (state/open.go, closed.go, closing.go, unknown.go):
 *
 *   state \ action   | OpenQueue         | CloseQueue                   | other (SyncQueue)
 *   "" or Open       | sync -> Open      | close -> Closed or Closing   | sync -> Open
 *   Closed           | open -> Open      | sync -> Closed               | sync -> Closed
 *   Closing          | open -> Open      | sync -> Closed or Closing    | sync -> Closed or Closing
 *   Unknown          | open -> Open      | close -> Closed or Closing   | sync -> Unknown
 *
 * where "Closed or Closing" is Closed when no PodGroup names the queue. sync also gives a queue
 * without spec.parent the parent `root`, writes the PodGroup counts, and keeps the hierarchy:
 * a queue whose parent is Closed or Closing is closed and marked volcano.sh/closed-by-parent:
 * "true"; one so marked whose parent is Open is opened again. open refuses (and retries) while
 * the parent is Closed or Closing, and reopens the children the queue closed; close closes the
 * children (except for `root`, which cannot be closed). A CloseQueue Command on a queue marked
 * closed-by-parent clears the mark, so reopening the parent leaves the manual close alone.
 *
 * Status writes go to the status subresource as merge patches: open and close write the state,
 * sync writes the state and the counts. Only changes are written, and counts that changed with
 * the state unchanged at most every cfg.status_interval_ns per queue (the key waits for the rest
 * of the interval). Differences from Volcano, deliberate: the counts are written (Volcano 1.11+
 * only exports them as metrics; the REC of docs/volcano/scheduler.md §2.4), annotations and
 * spec.parent are set with merge patches, and closed-by-parent "false" is only written over a
 * "true" (Volcano also adds it to queues that never had the mark).
 */
#include "queue_controller.h"

#include <pthread.h>

#include "vc_alloc.h"
#include "vc_ctlrun.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_metrics.h"
#include "vc_model.h"
#include "vc_time.h"
#include "vc_workqueue.h"

#define CLOSED_BY_PARENT "volcano.sh/closed-by-parent"
#define ROOT_QUEUE	 "root"

enum qaction {
	QA_SYNC = 0,
	QA_OPEN,
	QA_CLOSE,
};

/* The payload of a queue's key: what the next round does. */
struct qreq {
	enum qaction action;
	bool from_command; /* Volcano's CommandIssued event */
};

/* When a queue's counts were last written (vc_time_mono_ns). */
struct qstamp {
	char *name;
	int64_t at;
};

enum {
	M_INQUEUE,
	M_PENDING,
	M_RUNNING,
	M_UNKNOWN,
	M_COMPLETED,
	M_COUNT
};

struct queuectl {
	struct vc_ctrl_ctx *ctx;
	struct queuectl_config cfg;
	struct vc_ctlrun *rt;
	struct vc_workqueue *wq;   /* queue names (rt's) */
	struct vc_workqueue *cmdq; /* command keys (rt's) */
	struct vc_ctlrun_retry cmd_retry;
	pthread_mutex_t lock; /* stamps */
	struct qstamp *stamps;
	size_t nstamps, astamps;
	struct vc_metric *gauges[M_COUNT];
};

/* The status of a queue as the controller writes it. */
struct qstatus {
	const char *state;
	int64_t n[M_COUNT];
};

static const char *const count_fields[M_COUNT] = { "inqueue", "pending", "running", "unknown",
						   "completed" };

void queuectl_config_defaults(struct queuectl_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->workers = 1;
	cfg->max_requeue = 15;
	cfg->status_interval_ns = 5 * VC_NSEC_PER_SEC;
}

/* ---- small helpers --------------------------------------------------------------------------- */

static const char *str_at(const json_t *obj, const char *path)
{
	const char *s = json_string_value(vc_json_path(obj, path));

	return s ? s : "";
}

static const char *annotation(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(vc_json_path(obj, "metadata.annotations"), key));
}

static bool is_closed_or_closing(const char *state)
{
	return !strcmp(state, "Closed") || !strcmp(state, "Closing");
}

static const char *action_name(enum qaction a)
{
	return a == QA_OPEN ? "OpenQueue" : a == QA_CLOSE ? "CloseQueue" : "SyncQueue";
}

static int merge_req(void **pending, void *incoming)
{
	struct qreq *in = incoming;

	if (*pending && in->action == QA_SYNC) {
		vc_free(in);
		return 0;
	}
	vc_free(*pending);
	*pending = in;
	return 0;
}

/*
 * Queue name for action. delay_ns > 0 waits that long; rate_limited uses the key's backoff.
 * Without memory for the payload the key is still added (as a sync).
 */
static int enqueue(struct queuectl *c, const char *name, enum qaction action, bool from_command,
		   int64_t delay_ns, bool rate_limited)
{
	struct qreq *r = vc_malloc(sizeof(*r));
	int rc;

	if (r) {
		r->action = action;
		r->from_command = from_command;
	}
	if (rate_limited)
		rc = r ? vc_workqueue_add_rate_limited_with(c->wq, name, NULL, merge_req, r)
		       : vc_workqueue_add_rate_limited(c->wq, name, NULL);
	else if (delay_ns > 0)
		rc = r ? vc_workqueue_add_after_with(c->wq, name, delay_ns, merge_req, r)
		       : vc_workqueue_add_after(c->wq, name, delay_ns);
	else
		rc = r ? vc_workqueue_add_with(c->wq, name, merge_req, r)
		       : vc_workqueue_add(c->wq, name);
	if (rc && rc != VC_ESHUTDOWN)
		VC_ERROR("cannot queue a queue request", "queue=%s action=%s error=\"%s\"", name,
			 action_name(action), vc_strerror(rc));
	return rc == VC_ESHUTDOWN ? 0 : rc;
}

static void record(struct queuectl *c, const json_t *q, const char *type, const char *reason,
		   const char *fmt, ...) VC_PRINTF(5, 6);

static void record(struct queuectl *c, const json_t *q, const char *type, const char *reason,
		   const char *fmt, ...)
{
	struct vc_object_ref ref = { 0 };
	char msg[768];
	va_list ap;

	if (!c->ctx->events)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ref.api_version = "scheduling.volcano.sh/v1beta1";
	ref.kind = "Queue";
	ref.name = str_at(q, "metadata.name");
	ref.uid = str_at(q, "metadata.uid");
	(void)vc_event_record_ref(c->ctx->events, &ref, type, reason, "%s", msg);
}

/* ---- the write stamps ------------------------------------------------------------------------ */

/* The last count write of name (0: never). */
static int64_t stamp_get(struct queuectl *c, const char *name)
{
	int64_t at = 0;
	size_t i;

	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nstamps; i++)
		if (!strcmp(c->stamps[i].name, name)) {
			at = c->stamps[i].at;
			break;
		}
	pthread_mutex_unlock(&c->lock);
	return at;
}

static void stamp_set(struct queuectl *c, const char *name, int64_t at)
{
	size_t i;

	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nstamps; i++)
		if (!strcmp(c->stamps[i].name, name))
			break;
	if (i == c->nstamps) {
		char *copy = vc_strdup(name);

		if (c->nstamps == c->astamps) {
			size_t n = c->astamps ? 2 * c->astamps : 16;
			struct qstamp *s = copy ? vc_realloc(c->stamps, n * sizeof(*s)) : NULL;

			if (!s) {
				/* Without a stamp the next change is written at once: harmless. */
				vc_free(copy);
				pthread_mutex_unlock(&c->lock);
				return;
			}
			c->stamps = s;
			c->astamps = n;
		}
		if (!copy) {
			pthread_mutex_unlock(&c->lock);
			return;
		}
		c->stamps[c->nstamps].name = copy;
		c->nstamps++;
	}
	c->stamps[i].at = at;
	pthread_mutex_unlock(&c->lock);
}

static void stamp_drop(struct queuectl *c, const char *name)
{
	size_t i;

	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->nstamps; i++)
		if (!strcmp(c->stamps[i].name, name)) {
			vc_free(c->stamps[i].name);
			c->stamps[i] = c->stamps[--c->nstamps];
			break;
		}
	pthread_mutex_unlock(&c->lock);
}

/* ---- informer handlers ----------------------------------------------------------------------- */

static void on_queue_add(void *arg, json_t *obj)
{
	const char *name = str_at(obj, "metadata.name");

	if (*name)
		(void)enqueue(arg, name, QA_SYNC, false, 0, false);
}

static void on_queue_delete(void *arg, json_t *obj, bool final_state_unknown)
{
	struct queuectl *c = arg;
	const char *name = str_at(obj, "metadata.name");
	const char *values[] = { name, NULL };
	int i;

	(void)final_state_unknown;
	stamp_drop(c, name);
	for (i = 0; i < M_COUNT; i++)
		if (c->gauges[i] && vc_metric_set(c->gauges[i], values, 0))
			break; /* out of memory: the series stays as it was */
}

/* The queue of a PodGroup: spec.queue, "default" when empty (the cache's queue index). */
static const char *pg_queue(const json_t *pg)
{
	const char *q = str_at(pg, "spec.queue");

	return *q ? q : "default";
}

static void on_pg_add(void *arg, json_t *obj)
{
	(void)enqueue(arg, pg_queue(obj), QA_SYNC, false, 0, false);
}

static void on_pg_update(void *arg, json_t *old_obj, json_t *new_obj)
{
	const char *oq = pg_queue(old_obj), *nq = pg_queue(new_obj);

	if (strcmp(oq, nq)) {
		(void)enqueue(arg, oq, QA_SYNC, false, 0, false);
		(void)enqueue(arg, nq, QA_SYNC, false, 0, false);
	} else if (strcmp(str_at(old_obj, "status.phase"), str_at(new_obj, "status.phase"))) {
		(void)enqueue(arg, nq, QA_SYNC, false, 0, false);
	}
}

static void on_pg_delete(void *arg, json_t *obj, bool final_state_unknown)
{
	(void)final_state_unknown;
	(void)enqueue(arg, pg_queue(obj), QA_SYNC, false, 0, false);
}

/* IsQueueReference: the Command's target is a scheduling.volcano.sh/v1beta1 Queue. */
static bool targets_queue(const json_t *cmd)
{
	return !strcmp(str_at(cmd, "target.apiVersion"), "scheduling.volcano.sh/v1beta1") &&
	       !strcmp(str_at(cmd, "target.kind"), "Queue");
}

static void on_command_add(void *arg, json_t *obj)
{
	struct queuectl *c = arg;
	char key[VC_CACHE_KEY_MAX];
	int rc;

	if (!targets_queue(obj) || vc_cache_key(obj, key, sizeof(key)))
		return;
	rc = vc_workqueue_add(c->cmdq, key);
	if (rc && rc != VC_ESHUTDOWN)
		VC_ERROR("cannot queue a command", "command=%s error=\"%s\"", key, vc_strerror(rc));
}

/* ---- API writes ------------------------------------------------------------------------------ */

/* Set the closed-by-parent annotation (see the top of the file for when "false" is written). */
static int set_closed_by_parent(struct queuectl *c, const json_t *q, const char *value,
				struct vc_error *err)
{
	const char *cur = annotation(q, CLOSED_BY_PARENT);
	const char *name = str_at(q, "metadata.name");
	json_t *patch;
	int rc;

	if (cur ? !strcmp(cur, value) : !strcmp(value, "false"))
		return 0;
	patch = json_pack("{s:{s:{s:s}}}", "metadata", "annotations", CLOSED_BY_PARENT, value);
	if (!patch)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = vc_kube_patch(c->ctx->kube, &vc_gvr_queues, NULL, name, NULL, VC_PATCH_MERGE, patch,
			   NULL, err);
	json_decref(patch);
	if (rc)
		vc_error_prefix(err, "cannot set the annotation %s of queue %s", CLOSED_BY_PARENT,
				name);
	return rc;
}

/* Merge-patch the status subresource with `status` (borrowed). */
static int patch_status(struct queuectl *c, const char *name, json_t *status, struct vc_error *err)
{
	json_t *patch = json_pack("{s:O}", "status", status);
	int rc;

	if (!patch)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = vc_kube_patch(c->ctx->kube, &vc_gvr_queues, NULL, name, "status", VC_PATCH_MERGE,
			   patch, NULL, err);
	json_decref(patch);
	return rc;
}

/* Write only the state (open and close). */
static int write_state(struct queuectl *c, const json_t *q, const char *state, struct vc_error *err)
{
	json_t *status;
	int rc;

	if (!strcmp(str_at(q, "status.state"), state))
		return 0;
	status = json_pack("{s:s}", "state", state);
	if (!status)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = patch_status(c, str_at(q, "metadata.name"), status, err);
	json_decref(status);
	return rc;
}

/* ---- the parts of a round -------------------------------------------------------------------- */

/*
 * Count the queue's PodGroups by phase; *total is how many there are. From the podgroups cache's
 * queue and queue-phase indexes (ctx.h): the cache is packed, and reading every PodGroup of a
 * queue on each of its syncs would parse them all.
 */
static int count_podgroups(struct queuectl *c, const char *name, struct qstatus *st, size_t *total,
			   struct vc_error *err)
{
	static const struct {
		int metric;
		enum vc_pg_phase phase;
	} counted[] = { { M_PENDING, VC_PG_PENDING },
			{ M_RUNNING, VC_PG_RUNNING },
			{ M_UNKNOWN, VC_PG_UNKNOWN },
			{ M_INQUEUE, VC_PG_INQUEUE },
			{ M_COMPLETED, VC_PG_COMPLETED } };
	struct vc_cache *pgs = vc_informer_cache(c->ctx->podgroups);
	char value[VC_CACHE_KEY_MAX + 32];
	size_t i;

	for (i = 0; i < VC_ARRAY_SIZE(counted); i++) {
		int n = snprintf(value, sizeof(value), "%s/%s", name,
				 vc_pg_phase_name(counted[i].phase));

		if (n < 0 || (size_t)n >= sizeof(value))
			return vc_error_set(err, VC_EINVAL, "queue name '%s' is too long", name);
		st->n[counted[i].metric] +=
			(int64_t)vc_cache_index_count(pgs, CTX_INDEX_QUEUE_PHASE, value);
	}
	*total = vc_cache_index_count(pgs, CTX_INDEX_QUEUE, name);
	return 0;
}

static void update_metrics(struct queuectl *c, const char *name, const struct qstatus *st)
{
	const char *values[] = { name, NULL };
	int i;

	for (i = 0; i < M_COUNT; i++)
		if (c->gauges[i] && vc_metric_set(c->gauges[i], values, (double)st->n[i]))
			break; /* out of memory: the gauges catch up on the next sync */
}

/*
 * Write st when it differs from q's status: at once when the state changed, else when the
 * interval since the last count write has passed (or queue the key for the rest of it).
 */
static int persist_sync(struct queuectl *c, const json_t *q, const struct qstatus *st,
			struct vc_error *err)
{
	const char *name = str_at(q, "metadata.name");
	json_t *cur = vc_json_path(q, "status"), *status;
	bool state_changed = strcmp(str_at(q, "status.state"), st->state) != 0;
	bool counts_changed = false;
	int64_t now = vc_time_mono_ns(), last;
	int i, rc;

	if (c->cfg.status_interval_ns >= 0)
		for (i = 0; i < M_COUNT; i++)
			if (vc_json_get_int(cur, count_fields[i], 0) != st->n[i])
				counts_changed = true;
	if (!state_changed && !counts_changed)
		return 0;
	if (!state_changed) {
		last = stamp_get(c, name);
		if (last && now - last < c->cfg.status_interval_ns)
			return enqueue(c, name, QA_SYNC, false,
				       c->cfg.status_interval_ns - (now - last), false);
	}
	status = json_pack("{s:s}", "state", st->state);
	if (!status)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	if (c->cfg.status_interval_ns >= 0)
		for (i = 0; i < M_COUNT; i++)
			if (json_object_set_new(status, count_fields[i], json_integer(st->n[i]))) {
				json_decref(status);
				return vc_error_set(err, VC_ENOMEM, "out of memory");
			}
	rc = patch_status(c, name, status, err);
	json_decref(status);
	if (rc) {
		vc_error_prefix(err, "cannot update the status of queue %s", name);
		return rc;
	}
	stamp_set(c, name, now);
	return 0;
}

/* syncHierarchicalQueue: follow the parent's state (state is q's state after this round). */
static int sync_hierarchy(struct queuectl *c, const json_t *q, const char *state,
			  struct vc_error *err)
{
	const char *name = str_at(q, "metadata.name");
	const char *pname = str_at(q, "spec.parent");
	const char *pstate, *mark;
	json_t *parent;
	int rc = 0;

	if (!strcmp(name, ROOT_QUEUE))
		return 0;
	if (!*pname)
		pname = ROOT_QUEUE;
	parent = vc_cache_get(vc_informer_cache(c->ctx->queues), pname);
	if (!parent)
		return vc_error_set(err, VC_ENOTFOUND, "failed to get parent queue %s of queue %s",
				    pname, name);
	pstate = str_at(parent, "status.state");
	if (is_closed_or_closing(pstate)) {
		if (!is_closed_or_closing(state)) {
			rc = set_closed_by_parent(c, q, "true", err);
			if (!rc) {
				VC_INFO("closing a queue because its parent is closing or closed",
					"queue=%s parent=%s", name, pname);
				rc = enqueue(c, name, QA_CLOSE, false, 0, false);
			}
		}
	} else if (!strcmp(pstate, "Open") && is_closed_or_closing(state)) {
		mark = annotation(q, CLOSED_BY_PARENT);
		if (mark && !strcmp(mark, "true")) {
			VC_INFO("opening a queue because its parent is open", "queue=%s parent=%s",
				name, pname);
			rc = enqueue(c, name, QA_OPEN, false, 0, false);
		}
	}
	json_decref(parent);
	return rc;
}

enum target {
	T_OPEN,
	T_CLOSED,
	T_BY_PODGROUPS, /* Closed without PodGroups, else Closing */
	T_UNKNOWN,
};

/* syncQueue: default parent, counts, the state `target` gives, then the hierarchy. */
static int sync_queue(struct queuectl *c, json_t *q, enum target target, struct vc_error *err)
{
	const char *name = str_at(q, "metadata.name");
	struct qstatus st = { 0 };
	json_t *patched = NULL, *patch;
	size_t total = 0;
	int rc;

	if (strcmp(name, ROOT_QUEUE) && !*str_at(q, "spec.parent")) {
		patch = json_pack("{s:{s:s}}", "spec", "parent", ROOT_QUEUE);
		if (!patch)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		rc = vc_kube_patch(c->ctx->kube, &vc_gvr_queues, NULL, name, NULL, VC_PATCH_MERGE,
				   patch, &patched, err);
		json_decref(patch);
		if (rc) {
			vc_error_prefix(err, "cannot set the parent of queue %s", name);
			return rc;
		}
		if (json_is_object(patched))
			q = patched;
	}
	rc = count_podgroups(c, name, &st, &total, err);
	if (rc)
		goto out;
	switch (target) {
	case T_OPEN:
		st.state = "Open";
		break;
	case T_CLOSED:
		st.state = "Closed";
		break;
	case T_BY_PODGROUPS:
		st.state = total ? "Closing" : "Closed";
		break;
	default:
		st.state = "Unknown";
		break;
	}
	update_metrics(c, name, &st);
	rc = persist_sync(c, q, &st, err);
	if (!rc)
		rc = sync_hierarchy(c, q, st.state, err);
out:
	json_decref(patched);
	return rc;
}

/* Every cached queue (new references in out); the callers pick the children. */
static int all_queues(struct queuectl *c, struct vc_objs *out, struct vc_error *err)
{
	int rc = vc_cache_list(vc_informer_cache(c->ctx->queues), out);

	return rc ? vc_error_set(err, rc, "cannot list the queues") : 0;
}

static bool is_child(const json_t *q, const char *parent)
{
	return !strcmp(str_at(q, "spec.parent"), parent);
}

/* openQueue (from Closed, Closing or Unknown). */
static int open_queue(struct queuectl *c, const json_t *q, struct vc_error *err)
{
	const char *name = str_at(q, "metadata.name");
	const char *pname = str_at(q, "spec.parent");
	struct vc_objs kids;
	size_t i;
	int rc = 0;

	if (*pname && strcmp(pname, ROOT_QUEUE)) {
		json_t *parent = vc_cache_get(vc_informer_cache(c->ctx->queues), pname);
		bool closed;

		if (!parent)
			return vc_error_set(err, VC_ENOTFOUND,
					    "Failed to get parent queue %s of queue %s: not found",
					    pname, name);
		closed = is_closed_or_closing(str_at(parent, "status.state"));
		json_decref(parent);
		if (closed)
			return vc_error_set(
				err, VC_EINVALID,
				"Failed to open queue %s because its parent queue %s is "
				"closing or closed. Open the parent queue first.",
				name, pname);
	}
	rc = all_queues(c, &kids, err);
	if (rc)
		return rc;
	for (i = 0; i < kids.count && !rc; i++) {
		const char *mark = annotation(kids.items[i], CLOSED_BY_PARENT);

		if (is_child(kids.items[i], name) && mark && !strcmp(mark, "true")) {
			VC_INFO("opening a queue because its parent is opened",
				"queue=%s parent=%s", str_at(kids.items[i], "metadata.name"), name);
			rc = enqueue(c, str_at(kids.items[i], "metadata.name"), QA_OPEN, false, 0,
				     false);
		}
	}
	vc_objs_release(&kids);
	if (rc)
		return vc_error_set(err, rc, "cannot queue the children of queue %s", name);
	rc = write_state(c, q, "Open", err);
	if (rc) {
		record(c, q, "Warning", "OpenQueue",
		       "Update queue status from %s to Open failed for %s",
		       str_at(q, "status.state"), err->text);
		return rc;
	}
	record(c, q, "Normal", "OpenQueue", "Open queue succeed");
	return set_closed_by_parent(c, q, "false", err);
}

/* closeQueue (from "", Open or Unknown). */
static int close_queue(struct queuectl *c, const json_t *q, struct vc_error *err)
{
	const char *name = str_at(q, "metadata.name");
	struct vc_objs kids;
	struct qstatus st = { 0 };
	size_t i, total = 0;
	int rc;

	if (!strcmp(name, ROOT_QUEUE)) {
		VC_ERROR("root queue cannot be closed", "queue=%s", name);
		return 0;
	}
	rc = all_queues(c, &kids, err);
	if (rc)
		return rc;
	for (i = 0; i < kids.count && !rc; i++) {
		const json_t *kid = kids.items[i];

		if (!is_child(kid, name) || is_closed_or_closing(str_at(kid, "status.state")))
			continue;
		rc = set_closed_by_parent(c, kid, "true", err);
		if (!rc) {
			VC_INFO("closing a child queue because its parent is closing or closed",
				"queue=%s parent=%s", str_at(kid, "metadata.name"), name);
			rc = enqueue(c, str_at(kid, "metadata.name"), QA_CLOSE, false, 0, false);
			if (rc)
				vc_error_set(err, rc, "cannot queue the children of queue %s",
					     name);
		}
	}
	vc_objs_release(&kids);
	if (rc)
		return rc;
	rc = count_podgroups(c, name, &st, &total, err);
	if (rc)
		return rc;
	rc = write_state(c, q, total ? "Closing" : "Closed", err);
	if (rc) {
		record(c, q, "Warning", "CloseQueue", "Close queue failed for %s", err->text);
		return rc;
	}
	record(c, q, "Normal", "CloseQueue", "Close queue succeed");
	return 0;
}

/* handleQueue: one request for the queue called name. */
static int handle_queue(struct queuectl *c, const char *name, const struct qreq *req,
			struct vc_error *err)
{
	json_t *q = vc_cache_get(vc_informer_cache(c->ctx->queues), name);
	const char *state, *mark;
	int rc;

	if (!q)
		return 0; /* deleted */
	state = str_at(q, "status.state");
	if (req->from_command && req->action == QA_CLOSE) {
		mark = annotation(q, CLOSED_BY_PARENT);
		if (mark && !strcmp(mark, "true")) {
			rc = set_closed_by_parent(c, q, "false", err);
			if (rc)
				goto out;
		}
	}
	if (!*state || !strcmp(state, "Open")) {
		if (req->action == QA_CLOSE)
			rc = close_queue(c, q, err);
		else
			rc = sync_queue(c, q, T_OPEN, err);
	} else if (!strcmp(state, "Closed")) {
		rc = req->action == QA_OPEN ? open_queue(c, q, err)
					    : sync_queue(c, q, T_CLOSED, err);
	} else if (!strcmp(state, "Closing")) {
		rc = req->action == QA_OPEN ? open_queue(c, q, err)
					    : sync_queue(c, q, T_BY_PODGROUPS, err);
	} else if (!strcmp(state, "Unknown")) {
		if (req->action == QA_OPEN)
			rc = open_queue(c, q, err);
		else if (req->action == QA_CLOSE)
			rc = close_queue(c, q, err);
		else
			rc = sync_queue(c, q, T_UNKNOWN, err);
	} else {
		rc = vc_error_set(err, VC_EINVALID, "queue %s state %s is invalid", name, state);
	}
out:
	json_decref(q);
	return rc;
}

static void process_queue(struct queuectl *c, const char *name, struct qreq *req)
{
	struct qreq sync = { QA_SYNC, false };
	struct vc_error err;
	const struct qreq *r = req ? req : &sync;
	int rc;

	vc_error_clear(&err);
	rc = handle_queue(c, name, r, &err);
	if (!rc) {
		vc_workqueue_forget(c->wq, name);
		goto out;
	}
	if (vc_ctlrun_should_retry(c->wq, name, c->cfg.max_requeue)) {
		VC_WARN("error syncing a queue, will retry", "queue=%s action=%s error=\"%s\"",
			name, action_name(r->action), err.text[0] ? err.text : vc_strerror(rc));
		(void)enqueue(c, name, r->action, r->from_command, 0, true);
		goto out;
	}
	VC_ERROR("dropping a queue request after too many retries",
		 "queue=%s action=%s error=\"%s\"", name, action_name(r->action),
		 err.text[0] ? err.text : vc_strerror(rc));
	{
		json_t *q = vc_cache_get(vc_informer_cache(c->ctx->queues), name);

		if (q)
			record(c, q, "Warning", action_name(r->action), "%s queue failed for %s",
			       action_name(r->action), err.text[0] ? err.text : vc_strerror(rc));
		json_decref(q);
	}
	vc_workqueue_forget(c->wq, name);
out:
	vc_free(req);
}

/* handleCommand: delete it, and only then act on it. */
static int handle_command(struct queuectl *c, const char *key, struct vc_error *err)
{
	json_t *cmd = vc_cache_get(vc_informer_cache(c->ctx->commands), key);
	const char *ns, *name, *target, *action;
	enum qaction a = QA_SYNC;
	int rc;

	if (!cmd)
		return 0; /* gone: consumed by someone else */
	ns = str_at(cmd, "metadata.namespace");
	name = str_at(cmd, "metadata.name");
	target = str_at(cmd, "target.name");
	action = str_at(cmd, "action");
	rc = vc_kube_delete(c->ctx->kube, &vc_gvr_commands, ns, name, NULL, err);
	if (rc == VC_ENOTFOUND) {
		rc = 0;
		goto out;
	}
	if (rc) {
		vc_error_prefix(err, "failed to delete command <%s/%s>", ns, name);
		goto out;
	}
	if (!strcmp(action, "OpenQueue"))
		a = QA_OPEN;
	else if (!strcmp(action, "CloseQueue"))
		a = QA_CLOSE;
	VC_INFO("consumed a queue command", "command=%s queue=%s action=%s", key, target, action);
	if (*target)
		rc = enqueue(c, target, a, true, 0, false);
	if (rc)
		vc_error_set(err, rc, "cannot queue the command's queue %s", target);
out:
	json_decref(cmd);
	return rc;
}

static int sync_command(void *ctx, const char *key, struct vc_error *err)
{
	return handle_command(ctx, key, err);
}

static void process_queue_key(void *ctx, const char *key, void *payload)
{
	process_queue(ctx, key, payload);
}

/* ---- threads and lifecycle ------------------------------------------------------------------- */

int queuectl_run_once(struct queuectl *c)
{
	return vc_ctlrun_run_once(c->rt);
}

static int register_gauges(struct queuectl *c, struct vc_error *err)
{
	static const char *const labels[] = { "queue_name", NULL };
	static const char *const names[M_COUNT] = {
		"volcano_queue_pod_group_inqueue_count",   "volcano_queue_pod_group_pending_count",
		"volcano_queue_pod_group_running_count",   "volcano_queue_pod_group_unknown_count",
		"volcano_queue_pod_group_completed_count",
	};
	static const char *const helps[M_COUNT] = {
		"The number of Inqueue PodGroup in this queue",
		"The number of Pending PodGroup in this queue",
		"The number of Running PodGroup in this queue",
		"The number of Unknown PodGroup in this queue",
		"The number of Completed PodGroup in this queue",
	};
	int i, rc;

	for (i = 0; i < M_COUNT; i++) {
		rc = vc_metrics_gauge(c->cfg.metrics, names[i], helps[i], labels, &c->gauges[i],
				      err);
		if (rc)
			return rc;
	}
	return 0;
}

int queuectl_new(struct vc_ctrl_ctx *ctx, const struct queuectl_config *cfg, struct queuectl **out,
		 struct vc_error *err)
{
	struct vc_informer_handler hq = { on_queue_add, NULL, on_queue_delete, NULL };
	struct vc_informer_handler hp = { on_pg_add, on_pg_update, on_pg_delete, NULL };
	struct vc_informer_handler hc = { on_command_add, NULL, NULL, NULL };
	struct vc_ctlrun_queue_def cmd = { 0 }, qdef = { 0 };
	struct vc_workqueue_opts wo;
	struct queuectl *c;
	int rc;

	*out = NULL;
	if (!ctx || !cfg)
		return vc_error_set(err, VC_EINVAL,
				    "queue controller: no context or configuration");
	if (!ctx->queues || !ctx->podgroups || !ctx->commands)
		return vc_error_set(err, VC_EINVAL,
				    "queue controller needs the queues, podgroups and commands "
				    "informers");
	c = vc_calloc(1, sizeof(*c));
	if (!c)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	c->ctx = ctx;
	c->cfg = *cfg;
	if (c->cfg.workers < 1)
		c->cfg.workers = 1;
	pthread_mutex_init(&c->lock, NULL);
	c->cmd_retry = (struct vc_ctlrun_retry){
		.max_requeue = c->cfg.max_requeue,
		.key_label = "command",
		.retry_level = VC_LOG_WARN,
		.retry_msg = "error handling a command, will retry",
		.requeue_level = VC_LOG_ERROR,
		.requeue_msg = "cannot queue a command again",
		.requeue_err_label = "error",
		.drop_msg = "dropping a command after too many retries",
	};
	vc_workqueue_opts_init(&wo);
	wo.payload_free = vc_free;
	/* Commands first: a thread of their own, started first; run_once takes them first. */
	cmd.workers = 1;
	cmd.sync = sync_command;
	cmd.retry = &c->cmd_retry;
	cmd.ctx = c;
	qdef.opts = &wo;
	qdef.workers = c->cfg.workers;
	qdef.process = process_queue_key;
	qdef.ctx = c;
	c->rt = vc_ctlrun_new();
	if (!c->rt || vc_ctlrun_add(c->rt, &cmd, &c->cmdq) || vc_ctlrun_add(c->rt, &qdef, &c->wq)) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	if (cfg->metrics && (rc = register_gauges(c, err)))
		goto fail;
	hq.ctx = hp.ctx = hc.ctx = c;
	rc = vc_informer_add_handler(ctx->queues, &hq);
	if (!rc)
		rc = vc_informer_add_handler(ctx->podgroups, &hp);
	if (!rc)
		rc = vc_informer_add_handler(ctx->commands, &hc);
	if (rc) {
		/*
		 * Informers cannot drop a handler: the ones added stay registered with a freed
		 * controller, which is safe only because the caller gives up (the informers are
		 * not started yet and are released unstarted).
		 */
		vc_error_set(err, rc, "queue controller: cannot watch queues, podgroups, commands");
		goto fail;
	}
	*out = c;
	return 0;
fail:
	vc_ctlrun_free(c->rt);
	pthread_mutex_destroy(&c->lock);
	vc_free(c);
	return rc;
}

int queuectl_start(struct queuectl *c)
{
	int rc = vc_ctlrun_start(c->rt);

	if (rc)
		return rc;
	VC_INFO("queue controller started", "workers=%d", c->cfg.workers);
	return 0;
}

void queuectl_stop(struct queuectl *c)
{
	if (!c)
		return;
	vc_ctlrun_stop(c->rt);
}

void queuectl_free(struct queuectl *c)
{
	size_t i;

	if (!c)
		return;
	queuectl_stop(c);
	vc_ctlrun_free(c->rt);
	for (i = 0; i < c->nstamps; i++)
		vc_free(c->stamps[i].name);
	vc_free(c->stamps);
	pthread_mutex_destroy(&c->lock);
	vc_free(c);
}
