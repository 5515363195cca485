/*
 * job_sync.c - SyncJob, the full reconcile of the Job state machine (docs/volcano/job-controller.md
 * §4.2.1): initialisation, the pods to create and delete, and the status write. It works from the
 * informer caches (docs/volcano/job-controller.md §9: decisions are made on cached data) and writes
 * through the API, the Job status through its status subresource, only when it changed. Also what
 * SyncJob and KillJob (job_kill.c) share: the small readers of a job's objects, the status writes,
 * and the pod creations and deletions run in parallel. The objects a sync maintains besides pods
 * (plugin objects, PVCs, the PodGroup) are in job_sync_objects.c.
 */
#include "job_internal.h"

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_hash.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

#define OUT_OF_SYNC_PATCH                                                                         \
	"[{\"op\":\"add\",\"path\":\"/metadata/annotations/volcano.sh~1controller-out-of-sync\"," \
	"\"value\":\"true\"}]"

struct vc_kube *job_kube(const struct job_run *run)
{
	return run->c->ctx->kube;
}

int64_t job_now_str(char buf[VC_TIME_STR_MAX])
{
	int64_t now = vc_time_now_ns();

	if (vc_time_format_rfc3339(now / VC_NSEC_PER_SEC, buf, VC_TIME_STR_MAX))
		snprintf(buf, VC_TIME_STR_MAX, "1970-01-01T00:00:00Z");
	return now;
}

const char *job_ann(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(vc_json_path(obj, "metadata.annotations"), key));
}

const char *job_name_of(const json_t *obj)
{
	const char *n = json_string_value(vc_json_path(obj, "metadata.name"));

	return n ? n : "";
}

bool job_deleting(const json_t *obj)
{
	return vc_json_path(obj, "metadata.deletionTimestamp") != NULL;
}

/* The pod's phase; an empty or absent one is Unknown (docs/volcano/job-controller.md §4.4). */
enum vc_pod_phase job_phase_of(const json_t *pod)
{
	const char *p = json_string_value(vc_json_path(pod, "status.phase"));

	return p && *p ? vc_pod_phase_parse(p) : VC_POD_PHASE_UNKNOWN;
}

static const char *phase_str(const json_t *pod)
{
	return json_string_value(vc_json_path(pod, "status.phase"));
}

/* Count a pod into the status: its phase, and taskStatusCount of its task annotation. */
int job_count_pod(struct job_status *st, const json_t *pod)
{
	return job_status_count_pod(st, job_ann(pod, JOB_KEY_TASK_SPEC), phase_str(pod));
}

/* ---- status writes ----------------------------------------------------------------------------
 */

/*
 * UpdateStatus with st through jobs/status; on success the returned Job replaces run's object.
 * notfound_ok: a Job that is gone is success (the kill path).
 */
/* The status PUT alone: *out (may stay NULL) receives the answer; run is not changed. */
int job_put_status(struct job_run *run, const struct job_status *st, json_t **out,
		   struct vc_error *err)
{
	json_t *status = job_status_to_json(st), *o = json_copy(run->obj);
	int rc;

	if (!status || !o || json_object_set_new(o, "status", status)) {
		if (o)
			status = NULL;
		json_decref(status);
		json_decref(o);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	rc = vc_kube_update(job_kube(run), &vc_gvr_jobs, run->job.meta.ns, run->job.meta.name,
			    "status", o, out, err);
	json_decref(o);
	if (rc == 0)
		job_metrics_phase(run,
				  json_string_value(vc_json_path(run->obj, "status.state.phase")),
				  st->phase_str);
	if (rc && rc != VC_ENOTFOUND)
		VC_LOG(VC_LOG_V(2), "cannot update job status", "job=%s err=\"%s\"", run->key,
		       err->text);
	return rc;
}

int job_write_status(struct job_run *run, const struct job_status *st, bool notfound_ok,
		     struct vc_error *err)
{
	json_t *out = NULL;
	int rc = job_put_status(run, st, &out, err);

	if (rc == VC_ENOTFOUND && notfound_ok)
		return 0;
	if (rc)
		return rc;
	return out ? job_run_replace(run, out) : 0;
}

/* Update the Job itself (spec/metadata) with obj (borrowed); the answer replaces run's object. */
int job_write_job(struct job_run *run, const json_t *obj, struct vc_error *err)
{
	json_t *out = NULL;
	int rc = vc_kube_update(job_kube(run), &vc_gvr_jobs, run->job.meta.ns, run->job.meta.name,
				NULL, obj, &out, err);

	if (rc)
		return rc;
	return out ? job_run_replace(run, out) : 0;
}

/* ---- parallel pod operations ------------------------------------------------------------------
 */

static void do_create(void *arg, size_t i)
{
	struct pod_ops *po = arg;
	struct pod_op *op = &po->ops[i];
	struct vc_error err;
	json_t *out = NULL;
	const char *ph;

	vc_error_clear(&err);
	op->rc = vc_kube_create(job_kube(po->run), &vc_gvr_pods, po->run->job.meta.ns, NULL, NULL,
				op->pod, &out, &err);
	if (op->rc) {
		snprintf(op->err, sizeof(op->err), "failed to create pod %s, err: %s",
			 job_name_of(op->pod), err.text);
	} else {
		job_metrics_pod_created(po->run);
		ph = json_string_value(vc_json_path(out, "status.phase"));
		op->phase = vc_strdup(ph ? ph : "");
		if (!op->phase)
			op->rc = VC_ENOMEM;
	}
	json_decref(out);
}

void job_pod_ops_delete(void *arg, size_t i)
{
	struct pod_ops *po = arg;
	struct pod_op *op = &po->ops[i];
	struct vc_error err;
	json_t *patch;

	vc_error_clear(&err);
	if (op->patch) {
		patch = json_loads(OUT_OF_SYNC_PATCH, 0, NULL);
		op->rc = patch ? vc_kube_patch(job_kube(po->run), &vc_gvr_pods,
					       po->run->job.meta.ns, job_name_of(op->pod), NULL,
					       VC_PATCH_JSON, patch, NULL, &err)
			       : VC_ENOMEM;
		json_decref(patch);
		if (op->rc && op->rc != VC_ENOTFOUND) {
			op->patch_failed = true;
			snprintf(op->err, sizeof(op->err), "failed to patch pod %s, err: %s",
				 job_name_of(op->pod),
				 op->rc == VC_ENOMEM ? "out of memory" : err.text);
			return;
		}
		if (job_deleting(op->pod)) {
			op->rc = 0;
			return;
		}
	}
	op->rc = vc_kube_delete(job_kube(po->run), &vc_gvr_pods, po->run->job.meta.ns,
				job_name_of(op->pod), NULL, &err);
	if (op->rc == VC_ENOTFOUND)
		op->rc = 0;
	if (op->rc)
		snprintf(op->err, sizeof(op->err), "failed to delete pod %s, err: %s",
			 job_name_of(op->pod), err.text);
}

void job_pod_ops_release(struct pod_ops *po)
{
	size_t i;

	for (i = 0; i < po->n; i++) {
		json_decref(po->ops[i].pod);
		vc_free(po->ops[i].phase);
	}
	vc_free(po->ops);
	po->ops = NULL;
	po->n = 0;
}

static const char *uid_of(const json_t *pod)
{
	return json_string_value(vc_json_path(pod, "metadata.uid"));
}

/* An earlier sync or kill deleted this pod (the informer does not show it yet). */
bool job_delete_expected(struct job_run *run, const json_t *pod)
{
	return job_expecting(run->exp, false, job_name_of(pod), uid_of(pod), &run->exp_left);
}

void job_expect_deletes(struct job_run *run, const struct pod_ops *po)
{
	size_t i;

	for (i = 0; i < po->n; i++)
		job_expect(run->c, run->key, false, job_name_of(po->ops[i].pod),
			   uid_of(po->ops[i].pod));
}

/* Deletions that failed are not expected any more. */
void job_deletes_done(struct job_run *run, const struct pod_ops *po)
{
	size_t i;

	for (i = 0; i < po->n; i++)
		if (po->ops[i].rc)
			job_expect_observed(run->c, run->key, false, job_name_of(po->ops[i].pod),
					    uid_of(po->ops[i].pod));
}

int job_pod_ops_add(struct pod_ops *po, json_t *pod, size_t cap)
{
	if (!po->ops && !(po->ops = vc_calloc(cap ? cap : 1, sizeof(*po->ops)))) {
		json_decref(pod);
		return VC_ENOMEM;
	}
	po->ops[po->n].pod = pod;
	po->n++;
	return 0;
}

size_t job_pod_ops_failed(const struct pod_ops *po)
{
	size_t i, n = 0;

	for (i = 0; i < po->n; i++)
		n += po->ops[i].rc != 0;
	return n;
}

/* "[e1 e2 ...]" of the failed operations (Go's %+v of an error slice); NULL when none. */
char *job_pod_ops_errors(const struct pod_ops *po)
{
	struct vc_buf b;
	char *s = NULL;
	size_t i, n = 0;

	vc_buf_init(&b, 1 << 20);
	if (vc_buf_add(&b, "[", 1))
		goto out;
	for (i = 0; i < po->n; i++) {
		if (!po->ops[i].rc)
			continue;
		if ((n++ && vc_buf_add(&b, " ", 1)) ||
		    vc_buf_add(&b, po->ops[i].err, strlen(po->ops[i].err)))
			goto out;
	}
	if (!n || vc_buf_add(&b, "]", 1))
		goto out;
	s = vc_strdup(vc_buf_str(&b));
out:
	vc_buf_release(&b);
	return s;
}

/* ---- pods of the job ----------------------------------------------------------------------------
 */

/* An index of run->pods by name: the names are borrowed from the pods. */
struct pod_index {
	struct vc_hmap byname; /* name -> pod index + 1 */
	bool *matched;
};

static uint64_t pod_name_hash(const void *key)
{
	return vc_fnv1a64(key);
}

static bool pod_name_eq(const void *stored, const void *key)
{
	return !strcmp(stored, key);
}

static void pod_index_release(struct pod_index *ix)
{
	vc_hmap_release(&ix->byname, NULL);
	vc_free(ix->matched);
	ix->matched = NULL;
}

static int pod_index_build(struct pod_index *ix, const struct vc_objs *pods)
{
	size_t i;

	vc_hmap_init(&ix->byname, pod_name_hash, pod_name_eq);
	ix->matched = vc_calloc(pods->count ? pods->count : 1, sizeof(*ix->matched));
	if (!ix->matched)
		return VC_ENOMEM;
	for (i = 0; i < pods->count; i++) {
		const char *name = job_name_of(pods->items[i]);

		/* The first pod of a name wins, as a lookup in pods' order finds it. */
		if (!vc_hmap_lookup(&ix->byname, name, NULL) &&
		    vc_hmap_put(&ix->byname, name, (void *)(uintptr_t)(i + 1), NULL)) {
			pod_index_release(ix);
			return VC_ENOMEM;
		}
	}
	return 0;
}

/* The position of the pod called name in pods, or -1. */
static ssize_t pod_index_find(const struct pod_index *ix, const char *name)
{
	void *v;

	if (!vc_hmap_lookup(&ix->byname, name, &v))
		return -1;
	return (ssize_t)(uintptr_t)v - 1;
}

/*
 * docs/volcano/job-controller.md §4.10: whether the task's dependencies are ready. "any" only when
 * written so and with more than one name: an absent iteration means "all" (the view's default is
 * any, so the text is read here).
 */
static bool depends_ready(struct job_run *run, const struct pod_index *ix, size_t ti)
{
	const struct vc_task *t = &run->job.tasks[ti];
	json_t *tj = json_array_get(vc_json_path(run->obj, "spec.tasks"), ti);
	size_t d;
	bool any = t->ndepends_on > 1 &&
		   vc_str_eq(vc_json_get_str(vc_json_get_obj(tj, "dependsOn"), "iteration"), "any");

	for (d = 0; d < t->ndepends_on; d++) {
		const struct vc_task *dep = vc_job_task(&run->job, t->depends_on[d]);
		int32_t i, ready = 0;
		bool ok;

		if (!dep) {
			ok = false;
		} else {
			for (i = 0; i < dep->replicas; i++) {
				char *n = job_pod_name(run->job.meta.name, dep->name, i);
				ssize_t p = n ? pod_index_find(ix, n) : -1;
				const json_t *pod = p >= 0 ? run->pods.items[p] : NULL;
				enum vc_pod_phase ph = pod ? job_phase_of(pod) : VC_POD_PENDING;

				vc_free(n);
				if (!pod)
					continue;
				if (ph == VC_POD_SUCCEEDED) {
					ready++;
				} else if (ph == VC_POD_RUNNING) {
					json_t *cs = vc_json_path(pod, "status.containerStatuses"),
					       *s;
					size_t k;
					bool all = true;

					json_array_foreach (cs, k, s)
						all = all && vc_json_get_bool(s, "ready", false);
					ready += all;
				}
			}
			/* A task without minAvailable is always ready. */
			ok = !dep->has_min_available || ready >= dep->min_available;
		}
		if (any && ok)
			return true;
		if (!any && !ok)
			return false;
	}
	return !any;
}

/* Build the pods of the names to create (docs/volcano/job-controller.md §2.1.2 and plugins), in po.
 */
static int build_pod(struct job_run *run, size_t task_idx, int32_t i, bool forwarded, json_t **out,
		     struct vc_error *err)
{
	size_t nvol = json_array_size(run->job.volumes), k;
	char **names = NULL, suffix[13];
	struct job_pod_opts opts = { 0 };
	struct vc_error warn;
	int rc = 0;

	if (nvol) {
		names = vc_calloc(nvol, sizeof(*names));
		if (!names)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		for (k = 0; k < nvol; k++) {
			job_random_suffix(run->c, suffix);
			if (!(names[k] = vc_asprintf("%s-%s", run->job.meta.name, suffix))) {
				rc = vc_error_set(err, VC_ENOMEM, "out of memory");
				goto out;
			}
		}
	}
	opts.volume_names = (const char *const *)names;
	opts.forwarded = forwarded;
	rc = job_pod_build(&run->job, task_idx, i, &opts, out, err);
	if (rc)
		goto out;
	vc_error_clear(&warn);
	rc = job_plugins_on_pod_create(&run->job, *out, &warn, err);
	if (rc) {
		/* Volcano logs a failing pod hook at error level (its only trace: no event). */
		if (rc != VC_ENOMEM)
			VC_ERROR("cannot run the pod create plugins", "job=%s err=\"%s\"", run->key,
				 err->text);
		json_decref(*out);
		*out = NULL;
	}
out:
	for (k = 0; names && k < nvol; k++)
		vc_free(names[k]);
	vc_free(names);
	return rc;
}

/* ---- SyncJob (docs/volcano/job-controller.md §4.2.1) ----------------------------------------- */

/* The queue must exist; forwarding when it has extendClusters (docs/volcano/job-controller.md
 * §2.1.5). */
static int check_queue(struct job_run *run, bool *forwarded, struct vc_error *err)
{
	json_t *q = vc_cache_get(vc_informer_cache(run->c->ctx->queues), run->job.queue), *copy;
	int rc = 0;

	*forwarded = false;
	if (!q)
		return vc_error_set(err, VC_ENOTFOUND,
				    "queue.scheduling.volcano.sh \"%s\" not found", run->job.queue);
	*forwarded = json_array_size(vc_json_path(q, "spec.extendClusters")) > 0;
	json_decref(q);
	if (*forwarded && !vc_str_eq(job_ann(run->obj, JOB_KEY_FORWARDING), "true")) {
		copy = json_deep_copy(run->obj);
		if (!copy ||
		    vc_json_set_path_new(copy, "metadata.annotations[\"" JOB_KEY_FORWARDING "\"]",
					 json_string("true")))
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		else
			rc = job_write_job(run, copy, err);
		json_decref(copy);
	}
	return rc;
}

/* docs/volcano/job-controller.md §4.2.1 step 4a-4d. */
/* The first status write and the PodGroup's creation of a new job, side by side. */
struct first_writes {
	struct job_run *run;
	const struct job_status *st;
	json_t *pg, *out; /* the PodGroup to create (borrowed); the status answer (new) */
	int rc[2];
	struct vc_error err[2];
};

static void do_first_write(void *arg, size_t i)
{
	struct first_writes *w = arg;

	vc_error_clear(&w->err[i]);
	if (i == 0) {
		w->rc[0] = job_put_status(w->run, w->st, &w->out, &w->err[0]);
		return;
	}
	w->rc[1] = vc_kube_create(job_kube(w->run), &vc_gvr_podgroups, w->run->job.meta.ns, NULL,
				  NULL, w->pg, NULL, &w->err[1]);
	if (w->rc[1] == VC_EALREADYEXISTS)
		w->rc[1] = 0;
}

/*
 * docs/volcano/job-controller.md §4.2.1 step 4a with 4d: a new job (no volumes, whose PVCs must
 * come before its PodGroup) gets its Pending status and its PodGroup in one round trip instead of
 * two. *pg_done tells whether the PodGroup was created here.
 */
static int first_writes(struct job_run *run, struct job_status *st, bool *pg_done,
			struct vc_error *err)
{
	struct first_writes w = { .run = run, .st = st };
	int32_t *wt = NULL;
	json_t *cur = NULL;
	int rc = 0;

	*pg_done = false;
	if (!json_array_size(run->job.volumes) && !(cur = job_pg_cached(run))) {
		wt = job_task_weights(run);
		if (!wt)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		rc = job_podgroup_build(&run->job, wt, &w.pg, err);
		vc_free(wt);
		if (rc) {
			job_event(run->c, &run->job, "Warning", "PodGroupError", "%s", err->text);
			return rc;
		}
	}
	json_decref(cur);
	job_pool_run(run->c->pool, w.pg ? 2 : 1, do_first_write, &w);
	json_decref(w.pg);
	if (w.rc[0]) {
		json_decref(w.out);
		*err = w.err[0];
		job_event(run->c, &run->job, "Warning", "JobStatusError", "%s", err->text);
		return w.rc[0];
	}
	if (w.out && (rc = job_run_replace(run, w.out)))
		return vc_error_set(err, rc, "out of memory");
	if (w.pg && w.rc[1]) {
		*err = w.err[1];
		job_event(run->c, &run->job, "Warning", "PodGroupError", "%s", err->text);
		return w.rc[1];
	}
	*pg_done = w.pg != NULL;
	return 0;
}

static int initiate(struct job_run *run, struct job_status *st, struct vc_error *err)
{
	char now[VC_TIME_STR_MAX];
	bool pg_done = false;
	int rc;

	if (run->job.status.phase == VC_JOB_PHASE_NONE) {
		job_now_str(now);
		st->min_available = run->job.min_available;
		if (job_status_set_phase(st, VC_JOB_PENDING) || job_status_add_condition(st, now))
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		if ((rc = first_writes(run, st, &pg_done, err)))
			return rc;
	}
	if ((rc = job_plugin_hook(run, st, 0, err))) {
		job_event(run->c, &run->job, "Warning", "PluginError", "%s", err->text);
		return rc;
	}
	if ((rc = job_sync_volumes(run, st, err))) {
		job_event(run->c, &run->job, "Warning", "PVCError", "%s", err->text);
		return rc;
	}
	if (!pg_done && (rc = job_pg_create_or_update(run, err))) {
		job_event(run->c, &run->job, "Warning", "PodGroupError", "%s", err->text);
		return rc;
	}
	return 0;
}

/* Apply fn to cand; write it when it differs from the stored status (docs/volcano/job-controller.md
 * §4.2.1 steps 6, 11, 12). */
static int prepare_status(struct job_run *run, struct job_status *cand, enum job_status_fn fn,
			  bool *write, struct vc_error *err)
{
	char now[VC_TIME_STR_MAX];
	json_t *j;
	int rc;

	*write = false;
	job_status_fn_apply(fn, &run->job, cand, &rc);
	if (rc)
		return vc_error_set(err, rc, "out of memory");
	j = job_status_to_json(cand);
	if (!j)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	*write = !job_status_json_equal(j, json_object_get(run->obj, "status"));
	json_decref(j);
	if (!*write)
		return 0;
	job_now_str(now);
	if (job_status_add_condition(cand, now))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	return 0;
}

static int finish_sync(struct job_run *run, struct job_status *cand, enum job_status_fn fn,
		       struct vc_error *err)
{
	bool write;
	int rc = prepare_status(run, cand, fn, &write, err);

	return rc || !write ? rc : job_write_status(run, cand, false, err);
}

/* The creations of a sync and its status write, in one batch. */
struct create_status {
	struct pod_ops *create;
	struct job_run *run;
	const struct job_status *st;
	json_t *out;
	int rc;
	struct vc_error err;
};

static void do_create_or_status(void *arg, size_t i)
{
	struct create_status *cs = arg;

	if (i < cs->create->n)
		do_create(cs->create, i);
	else
		cs->rc = job_put_status(cs->run, cs->st, &cs->out, &cs->err);
}

/*
 * Steps 8 and 10-12 in one round trip, when the sync deletes nothing: every pod to create is
 * counted as Pending (what a creation answers) and the status goes out with the creations. A
 * failed creation fails the sync as in step 8; the retry counts from what the informer shows,
 * so a status that counted it is corrected by the next sync.
 */
static int create_with_status(struct job_run *run, struct pod_ops *create, struct job_status *cand,
			      enum job_status_fn fn, struct vc_error *err)
{
	struct create_status cs = { .create = create, .run = run, .st = cand };
	char *msg = NULL;
	bool write;
	size_t p;
	int rc;

	for (p = 0; p < create->n; p++) {
		if (job_status_count_pod(cand, job_ann(create->ops[p].pod, JOB_KEY_TASK_SPEC),
					 "Pending"))
			return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	if ((rc = prepare_status(run, cand, fn, &write, err)))
		return rc;
	vc_error_clear(&cs.err);
	for (p = 0; p < create->n; p++)
		job_expect(run->c, run->key, true, job_name_of(create->ops[p].pod), NULL);
	job_pool_run(run->c->pool, create->n + (write ? 1 : 0), do_create_or_status, &cs);
	for (p = 0; p < create->n; p++) {
		struct pod_op *op = &create->ops[p];

		if (op->rc == VC_EALREADYEXISTS)
			op->rc = 0; /* the informer will show it */
		else if (op->rc)
			job_expect_observed(run->c, run->key, true, job_name_of(op->pod), NULL);
	}
	if (write && !cs.rc && cs.out && (rc = job_run_replace(run, cs.out)))
		return vc_error_set(err, rc, "out of memory");
	if (write && cs.rc)
		json_decref(cs.out);
	if ((msg = job_pod_ops_errors(create))) {
		job_event(run->c, &run->job, "Warning", "FailedCreate", "Error creating pods: %s",
			  msg);
		rc = vc_error_set(err, VC_EIO, "failed to create %zu pods of %zu",
				  job_pod_ops_failed(create), create->n);
		vc_free(msg);
		return rc;
	}
	if (write && cs.rc) {
		*err = cs.err;
		return cs.rc;
	}
	return 0;
}

static bool task_pod_name(const char *job, const struct vc_task *t, const char *name)
{
	size_t lj = strlen(job), lt = strlen(t->name);
	int64_t i;
	char buf[24];

	if (strncmp(name, job, lj) || name[lj] != '-' || strncmp(name + lj + 1, t->name, lt) ||
	    name[lj + 1 + lt] != '-' || vc_parse_int64(name + lj + lt + 2, &i) || i < 0 ||
	    i >= t->replicas)
		return false;
	snprintf(buf, sizeof(buf), "%lld", (long long)i);
	return !strcmp(buf, name + lj + lt + 2);
}

static int full_sync(struct job_run *run, struct job_status *st, bool forwarded,
		     enum job_status_fn fn, struct vc_error *err)
{
	struct pod_ops create = { run, NULL, 0 }, del = { run, NULL, 0 };
	struct job_status cand = { 0 };
	struct pod_index ix = { 0 };
	size_t ti, p, total = (size_t)run->job.total_replicas;
	char *msg = NULL;
	int rc;

	if (job_status_copy(&cand, st) || pod_index_build(&ix, &run->pods)) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out;
	}
	cand.pending = cand.running = cand.succeeded = cand.failed = 0;
	cand.terminating = cand.unknown = 0;
	cand.min_available = run->job.min_available;
	json_decref(cand.task_status_count);
	cand.task_status_count = NULL;
	vc_free(cand.running_duration);
	cand.running_duration = NULL;

	for (ti = 0; ti < run->job.ntasks; ti++) {
		const struct vc_task *t = &run->job.tasks[ti];
		bool deps = t->ndepends_on == 0 || depends_ready(run, &ix, ti), warned = false;
		int32_t i;

		for (i = 0; i < t->replicas; i++) {
			char *n = job_pod_name(run->job.meta.name, t->name, i);
			ssize_t at;
			json_t *pod;

			if (!n) {
				rc = vc_error_set(err, VC_ENOMEM, "out of memory");
				goto out;
			}
			at = pod_index_find(&ix, n);
			if (at < 0 && job_expecting(run->exp, true, n, NULL, &run->exp_left)) {
				/* Created by an earlier sync, not in the cache yet: it is Pending.
				 */
				vc_free(n);
				if (job_status_count_pod(&cand, t->name, "Pending")) {
					rc = vc_error_set(err, VC_ENOMEM, "out of memory");
					goto out;
				}
				continue;
			}
			vc_free(n);
			if (at < 0) {
				if (!deps) {
					if (!warned)
						VC_LOG(VC_LOG_V(3), "dependencies not ready",
						       "job=%s task=%s", run->key, t->name);
					warned = true;
					continue;
				}
				if ((rc = build_pod(run, ti, i, forwarded, &pod, err)) ||
				    (rc = job_pod_ops_add(&create, pod, total))) {
					if (rc == VC_ENOMEM)
						vc_error_set(err, rc, "out of memory");
					goto out;
				}
				continue;
			}
			ix.matched[at] = true;
			pod = run->pods.items[at];
			if (job_deleting(pod) || job_delete_expected(run, pod)) {
				cand.terminating++;
				continue;
			}
			if (job_ann(pod, JOB_KEY_OUT_OF_SYNC) &&
			    job_pod_ops_add(&del, json_incref(pod), run->pods.count)) {
				rc = vc_error_set(err, VC_ENOMEM, "out of memory");
				goto out;
			}
			if (job_count_pod(&cand, pod)) {
				rc = vc_error_set(err, VC_ENOMEM, "out of memory");
				goto out;
			}
		}
	}
	/*
	 * Surplus pods of tasks in the spec (scale down, docs/volcano/job-controller.md §4.9),
	 * marked out-of-sync before their delete as a kill marks its victims: their delete is then
	 * no PodEvicted, and a job with PodEvicted -> RestartJob is not restarted by its own
	 * scale-down. Volcano deletes them unmarked (its issue #4072; docs/compatibility.md).
	 */
	for (p = 0; p < run->pods.count; p++) {
		const json_t *pod = run->pods.items[p];
		const struct vc_task *t;

		if (ix.matched[p] || !(t = vc_job_task(&run->job, job_ann(pod, JOB_KEY_TASK_SPEC))))
			continue;
		if (task_pod_name(run->job.meta.name, t, job_name_of(pod)))
			continue;
		if (job_delete_expected(run, pod)) {
			cand.terminating++;
			continue;
		}
		if (job_pod_ops_add(&del, json_incref((json_t *)pod), run->pods.count)) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto out;
		}
		del.ops[del.n - 1].patch = !job_ann(pod, JOB_KEY_OUT_OF_SYNC);
	}

	/*
	 * Restarting: pods come back only with the sync that ends the restart (RS → Pending), never
	 * while killed pods still terminate. A pod made then could fail inside Restarting, where a
	 * RestartJob consumes no retry (docs/volcano/job-controller.md §4.3, §8.13), and the job
	 * would outlive its maxRetry. Volcano v1.7 creates no pods in Restarting
	 * (compatibility.md).
	 */
	if (fn == JOB_FN_RS && create.n) {
		struct job_status probe = cand;

		probe.terminating += (int32_t)del.n;
		if (job_rs_phase(&run->job, &probe) != VC_JOB_PENDING)
			job_pod_ops_release(&create);
	}
	if (create.n && !del.n) {
		rc = create_with_status(run, &create, &cand, fn, err);
		goto out;
	}
	/* Expected before the calls, so that the informer's add can never come first. */
	for (p = 0; p < create.n; p++)
		job_expect(run->c, run->key, true, job_name_of(create.ops[p].pod), NULL);
	job_pool_run(run->c->pool, create.n, do_create, &create);
	for (p = 0; p < create.n; p++) {
		struct pod_op *op = &create.ops[p];

		if (op->rc == VC_EALREADYEXISTS) {
			op->rc = 0; /* the informer will show it */
			continue;
		}
		if (op->rc) {
			job_expect_observed(run->c, run->key, true, job_name_of(op->pod), NULL);
			continue;
		}
		if (job_status_count_pod(&cand, job_ann(op->pod, JOB_KEY_TASK_SPEC), op->phase)) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto out;
		}
	}
	if ((msg = job_pod_ops_errors(&create))) {
		job_event(run->c, &run->job, "Warning", "FailedCreate", "Error creating pods: %s",
			  msg);
		rc = vc_error_set(err, VC_EIO, "failed to create %zu pods of %zu",
				  job_pod_ops_failed(&create), create.n);
		goto out;
	}
	job_expect_deletes(run, &del);
	job_pool_run(run->c->pool, del.n, job_pod_ops_delete, &del);
	job_deletes_done(run, &del);
	for (p = 0; p < del.n; p++)
		if (!del.ops[p].rc)
			cand.terminating++;
	if ((msg = job_pod_ops_errors(&del))) {
		job_event(run->c, &run->job, "Warning", "FailedDelete", "Error deleting pods: %s",
			  msg);
		rc = vc_error_set(err, VC_EIO, "failed to delete %zu pods of %zu",
				  job_pod_ops_failed(&del), del.n);
		goto out;
	}
	rc = finish_sync(run, &cand, fn, err);
out:
	vc_free(msg);
	pod_index_release(&ix);
	job_pod_ops_release(&create);
	job_pod_ops_release(&del);
	job_status_release(&cand);
	return rc;
}

int job_sync(struct job_run *run, enum job_status_fn fn)
{
	struct job_status st = { 0 };
	struct vc_error err;
	json_t *pg = NULL;
	enum vc_job_phase phase = run->job.status.phase;
	const char *pgphase;
	bool forwarded, can_create;
	int rc;

	vc_error_clear(&err);
	if (run->job.meta.deletion_timestamp)
		return 0;
	if ((rc = check_queue(run, &forwarded, &err)))
		goto out;
	if ((rc = job_status_from_json(json_object_get(run->obj, "status"), &st))) {
		vc_error_set(&err, rc, "out of memory");
		goto out;
	}
	if (phase == VC_JOB_PHASE_NONE || phase == VC_JOB_PENDING) {
		rc = initiate(run, &st, &err);
	} else {
		if ((rc = job_plugin_hook(run, &st, 1, &err)))
			job_event(run->c, &run->job, "Warning", "PluginError", "%s", err.text);
		else if ((rc = job_pg_create_or_update(run, &err)))
			job_event(run->c, &run->job, "Warning", "PodGroupError", "%s", err.text);
	}
	if (rc)
		goto out;
	pg = job_pg_cached(run);
	pgphase = json_string_value(vc_json_path(pg, "status.phase"));
	can_create = pg && pgphase && *pgphase && strcmp(pgphase, "Pending");
	if (pg)
		job_pg_pending_event(run, pg);
	if (!can_create)
		rc = finish_sync(run, &st, fn, &err);
	else
		rc = full_sync(run, &st, forwarded, fn, &err);
out:
	if (rc)
		VC_LOG(VC_LOG_V(2), "sync failed", "job=%s err=\"%s\"", run->key, err.text);
	json_decref(pg);
	job_status_release(&st);
	return rc;
}
