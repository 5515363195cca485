/*
 * job_sync.c - the primitives of the Job state machine (docs/volcano/job-controller.md §4.2):
 * SyncJob (the full reconcile, with initialisation, plugins, PVCs, the PodGroup and pod creation)
 * and KillJob / KillTarget. They work from the informer caches (docs/volcano/job-controller.md §9:
 * decisions are made on cached data) and write through the API: pods and plugin objects, the
 * PodGroup, and the Job status through its status subresource, only when it changed.
 */
#include "job_internal.h"

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_hash.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_quantity.h"
#include "vc_str.h"
#include "vc_time.h"

#define OUT_OF_SYNC_PATCH                                                                         \
	"[{\"op\":\"add\",\"path\":\"/metadata/annotations/volcano.sh~1controller-out-of-sync\"," \
	"\"value\":\"true\"}]"

static struct vc_kube *kube_of(const struct job_run *run)
{
	return run->c->ctx->kube;
}

static void now_str(char buf[VC_TIME_STR_MAX])
{
	if (vc_time_format_rfc3339(vc_time_now_ns() / VC_NSEC_PER_SEC, buf, VC_TIME_STR_MAX))
		snprintf(buf, VC_TIME_STR_MAX, "1970-01-01T00:00:00Z");
}

static const char *ann(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(vc_json_path(obj, "metadata.annotations"), key));
}

static const char *name_of(const json_t *obj)
{
	const char *n = json_string_value(vc_json_path(obj, "metadata.name"));

	return n ? n : "";
}

static bool deleting(const json_t *obj)
{
	return vc_json_path(obj, "metadata.deletionTimestamp") != NULL;
}

/* The pod's phase; an empty or absent one is Unknown (docs/volcano/job-controller.md §4.4). */
static enum vc_pod_phase phase_of(const json_t *pod)
{
	const char *p = json_string_value(vc_json_path(pod, "status.phase"));

	return p && *p ? vc_pod_phase_parse(p) : VC_POD_PHASE_UNKNOWN;
}

static const char *phase_str(const json_t *pod)
{
	return json_string_value(vc_json_path(pod, "status.phase"));
}

/* Count a pod into the status: its phase, and taskStatusCount of its task annotation. */
static int count_pod(struct job_status *st, const json_t *pod)
{
	return job_status_count_pod(st, ann(pod, JOB_KEY_TASK_SPEC), phase_str(pod));
}

/* ---- status writes ----------------------------------------------------------------------------
 */

/*
 * UpdateStatus with st through jobs/status; on success the returned Job replaces run's object.
 * notfound_ok: a Job that is gone is success (the kill path).
 */
/* The status PUT alone: *out (may stay NULL) receives the answer; run is not changed. */
static int put_status(struct job_run *run, const struct job_status *st, json_t **out,
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
	rc = vc_kube_update(kube_of(run), &vc_gvr_jobs, run->job.meta.ns, run->job.meta.name,
			    "status", o, out, err);
	json_decref(o);
	if (rc && rc != VC_ENOTFOUND)
		VC_LOG(VC_LOG_V(2), "cannot update job status", "job=%s err=\"%s\"", run->key,
		       err->text);
	return rc;
}

static int write_status(struct job_run *run, const struct job_status *st, bool notfound_ok,
			struct vc_error *err)
{
	json_t *out = NULL;
	int rc = put_status(run, st, &out, err);

	if (rc == VC_ENOTFOUND && notfound_ok)
		return 0;
	if (rc)
		return rc;
	return out ? job_run_replace(run, out) : 0;
}

/* Update the Job itself (spec/metadata) with obj (borrowed); the answer replaces run's object. */
static int write_job(struct job_run *run, const json_t *obj, struct vc_error *err)
{
	json_t *out = NULL;
	int rc = vc_kube_update(kube_of(run), &vc_gvr_jobs, run->job.meta.ns, run->job.meta.name,
				NULL, obj, &out, err);

	if (rc)
		return rc;
	return out ? job_run_replace(run, out) : 0;
}

/* ---- plugin objects (docs/volcano/job-controller.md §2.4, §5) -----------------------------------
 */

static const struct vc_gvr *gvr_of_kind(const char *kind)
{
	if (vc_str_eq(kind, "ConfigMap"))
		return &vc_gvr_configmaps;
	if (vc_str_eq(kind, "Secret"))
		return &vc_gvr_secrets;
	if (vc_str_eq(kind, "Service"))
		return &vc_gvr_services;
	if (vc_str_eq(kind, "NetworkPolicy"))
		return &vc_gvr_networkpolicies;
	if (vc_str_eq(kind, "PersistentVolumeClaim"))
		return &vc_gvr_pvcs;
	return NULL;
}

/* Create obj, or update the existing one when the plugin's rule says so
 * (docs/volcano/job-controller.md §5.2, §5.3). */
static int create_or_update(struct job_run *run, const json_t *obj, struct vc_error *err)
{
	const char *kind = vc_json_get_str(obj, "kind");
	const struct vc_gvr *r = gvr_of_kind(kind);
	const char *ns = run->job.meta.ns, *name = name_of(obj);
	json_t *cur = NULL, *upd = NULL;
	bool replace = false;
	int rc;

	if (!r)
		return vc_error_set(err, VC_EINVAL, "unsupported plugin object kind '%s'",
				    kind ? kind : "");
	rc = vc_kube_get(kube_of(run), r, ns, name, NULL, &cur, err);
	if (rc == VC_ENOTFOUND) {
		rc = vc_kube_create(kube_of(run), r, ns, NULL, NULL, obj, NULL, err);
		return rc == VC_EALREADYEXISTS ? 0 : rc;
	}
	if (rc)
		return rc;
	if (r == &vc_gvr_configmaps)
		replace =
			!vc_json_equal(json_object_get(cur, "data"), json_object_get(obj, "data"));
	else if (r == &vc_gvr_secrets)
		replace = !vc_json_equal(vc_json_path(cur, "data.config"),
					 vc_json_path(obj, "data.config"));
	if (replace) {
		upd = json_copy(cur);
		if (!upd || json_object_set(upd, "data", json_object_get(obj, "data")))
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		else
			rc = vc_kube_update(kube_of(run), r, ns, name, NULL, upd, NULL, err);
		json_decref(upd);
	}
	json_decref(cur);
	return rc;
}

/* Carry out what a job-level plugin hook asked for, and its marker changes on st. */
static int apply_plugin_actions(struct job_run *run, const struct job_plugin_actions *a,
				struct job_status *st, struct vc_error *err)
{
	const char *k;
	json_t *o, *v;
	size_t i;
	int rc;

	json_array_foreach (a->create, i, o)
		if ((rc = create_or_update(run, o, err)))
			return rc;
	json_array_foreach (a->remove, i, o) {
		const struct vc_gvr *r = gvr_of_kind(vc_json_get_str(o, "kind"));

		if (!r)
			continue;
		rc = vc_kube_delete(kube_of(run), r, run->job.meta.ns, vc_json_get_str(o, "name"),
				    NULL, err);
		if (rc && rc != VC_ENOTFOUND)
			return rc;
	}
	if (json_object_size(a->markers_set) && !st->controlled_resources &&
	    !(st->controlled_resources = json_object()))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	json_object_foreach (a->markers_set, k, v)
		if (json_object_set(st->controlled_resources, k, v))
			return vc_error_set(err, VC_ENOMEM, "out of memory");
	json_array_foreach (a->markers_remove, i, v)
		if (st->controlled_resources)
			json_object_del(st->controlled_resources, json_string_value(v));
	return 0;
}

/* The job view as the plugins must see it: the working status' markers. */
static int plugin_hook(struct job_run *run, struct job_status *st, int which, struct vc_error *err)
{
	struct job_plugin_actions a = { 0 };
	struct vc_error warn;
	const struct vc_job *job = &run->job;
	json_t *saved = run->job.status.controlled_resources;
	int rc;

	if (!run->job.plugins || !json_object_size(run->job.plugins))
		return 0;
	vc_error_clear(&warn);
	/* The hooks read markers from the view: show them the working copy. */
	run->job.status.controlled_resources = st->controlled_resources;
	if (which == 0)
		rc = job_plugins_on_job_add(job, run->c->hooks.keygen, &a, &warn, err);
	else if (which == 1)
		rc = job_plugins_on_job_update(job, &a, &warn, err);
	else
		rc = job_plugins_on_job_delete(job, &a, &warn, err);
	run->job.status.controlled_resources = saved;
	if (warn.code)
		VC_WARN("plugin argument", "job=%s err=\"%s\"", run->key, warn.text);
	if (!rc)
		rc = apply_plugin_actions(run, &a, st, err);
	job_plugin_actions_release(&a);
	return rc;
}

/* ---- PVCs (docs/volcano/job-controller.md §2.3) -------------------------------------------------
 */

static int pvc_exists(struct job_run *run, const char *name, bool *exists, struct vc_error *err)
{
	char key[VC_CACHE_KEY_MAX];
	json_t *o = NULL;
	int rc;

	if (run->c->ctx->pvcs) {
		snprintf(key, sizeof(key), "%s/%s", run->job.meta.ns, name);
		o = vc_cache_get(vc_informer_cache(run->c->ctx->pvcs), key);
		*exists = o != NULL;
		json_decref(o);
		return 0;
	}
	rc = vc_kube_get(kube_of(run), &vc_gvr_pvcs, run->job.meta.ns, name, NULL, &o, err);
	json_decref(o);
	*exists = rc == 0;
	return rc == VC_ENOTFOUND ? 0 : rc;
}

static int create_pvc(struct job_run *run, const char *name, const json_t *claim,
		      struct vc_error *err)
{
	json_t *owners = job_owner_references(&run->job);
	json_t *pvc = json_pack("{s:s, s:s, s:{s:s, s:s, s:o?}, s:O}", "apiVersion", "v1", "kind",
				"PersistentVolumeClaim", "metadata", "name", name, "namespace",
				run->job.meta.ns, "ownerReferences", owners, "spec", claim);
	int rc;

	if (!pvc)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = vc_kube_create(kube_of(run), &vc_gvr_pvcs, run->job.meta.ns, NULL, NULL, pvc, NULL,
			    err);
	json_decref(pvc);
	return rc;
}

static int set_marker(struct job_status *st, const char *key, const char *value)
{
	if (!st->controlled_resources && !(st->controlled_resources = json_object()))
		return VC_ENOMEM;
	return json_object_set_new(st->controlled_resources, key, json_string(value)) ? VC_ENOMEM
										      : 0;
}

static int sync_volumes(struct job_run *run, struct job_status *st, struct vc_error *err)
{
	json_t *copy = NULL, *vols, *vol;
	char suffix[13], *name = NULL, *marker = NULL;
	bool exists;
	size_t k;
	int rc = 0;

	if (!json_array_size(run->job.volumes))
		return 0;
	copy = json_deep_copy(run->obj);
	vols = vc_json_path(copy, "spec.volumes");
	if (!copy || !vols)
		goto nomem;
	json_array_foreach (vols, k, vol) {
		const char *claim = vc_json_get_str(vol, "volumeClaimName");

		vc_free(name);
		name = NULL;
		if (claim && *claim) {
			if ((rc = pvc_exists(run, claim, &exists, err)))
				goto out;
			if (!exists) {
				rc = vc_error_set(err, VC_ENOTFOUND,
						  "pvc %s is not found, the job will be in the "
						  "Pending state until the PVC is created",
						  claim);
				goto out;
			}
			if (!(name = vc_strdup(claim)))
				goto nomem;
		} else {
			for (;;) {
				job_random_suffix(run->c, suffix);
				vc_free(name);
				if (!(name = vc_asprintf("%s-pvc-%s", run->job.meta.name, suffix)))
					goto nomem;
				if ((rc = pvc_exists(run, name, &exists, err)))
					goto out;
				if (!exists)
					break;
			}
			if (json_object_set_new(vol, "volumeClaimName", json_string(name)))
				goto nomem;
			if (json_object_get(vol, "volumeClaim") &&
			    (rc = create_pvc(run, name, json_object_get(vol, "volumeClaim"), err)))
				goto out;
			rc = 1; /* the job needs an update */
		}
		vc_free(marker);
		if (!(marker = vc_asprintf("volume-pvc-%s", name)) || set_marker(st, marker, name))
			goto nomem;
	}
	if (rc == 1) {
		json_object_del(copy, "status");
		rc = write_job(run, copy, err);
	}
	goto out;
nomem:
	rc = vc_error_set(err, VC_ENOMEM, "out of memory");
out:
	vc_free(name);
	vc_free(marker);
	json_decref(copy);
	return rc;
}

/* ---- PodGroup (docs/volcano/job-controller.md §2.2) ---------------------------------------------
 */

/* The job's PodGroup from the informer (new reference): `<job>-<uid>`, else legacy `<job>`. */
static json_t *pg_cached(struct job_run *run)
{
	struct vc_cache *pgs = vc_informer_cache(run->c->ctx->podgroups);
	char key[VC_CACHE_KEY_MAX];
	json_t *pg;

	snprintf(key, sizeof(key), "%s/%s-%s", run->job.meta.ns, run->job.meta.name,
		 run->job.meta.uid);
	pg = vc_cache_get(pgs, key);
	if (pg)
		return pg;
	snprintf(key, sizeof(key), "%s/%s", run->job.meta.ns, run->job.meta.name);
	return vc_cache_get(pgs, key);
}

static int32_t *task_weights(struct job_run *run)
{
	int32_t *w = vc_calloc(run->job.ntasks ? run->job.ntasks : 1, sizeof(*w));
	size_t i;

	if (!w || !run->c->ctx->priorityclasses)
		return w;
	for (i = 0; i < run->job.ntasks; i++) {
		const char *pc = json_string_value(
			vc_json_path(run->job.tasks[i].template, "spec.priorityClassName"));
		json_t *o =
			pc && *pc
				? vc_cache_get(vc_informer_cache(run->c->ctx->priorityclasses), pc)
				: NULL;
		int64_t v = vc_json_get_int(o, "value", 0);

		w[i] = v < INT32_MIN || v > INT32_MAX ? 0 : (int32_t)v;
		json_decref(o);
	}
	return w;
}

/* Two ResourceLists compared by quantity value. */
static bool resources_equal(const json_t *a, const json_t *b)
{
	struct vc_quantity qa, qb;
	const char *k;
	json_t *v;

	if (json_object_size(a) != json_object_size(b))
		return false;
	json_object_foreach ((json_t *)a, k, v) {
		json_t *w = json_object_get(b, k);

		if (!w)
			return false;
		if (vc_quantity_parse_json(v, &qa, NULL) || vc_quantity_parse_json(w, &qb, NULL)) {
			if (!vc_json_equal(v, w))
				return false;
		} else if (vc_quantity_cmp(&qa, &qb)) {
			return false;
		}
	}
	return true;
}

/* Set spec[key] to a copy of want[key] (removing it when want has none). */
static int take_member(json_t *spec, const json_t *want, const char *key)
{
	json_t *v = json_object_get(want, key);

	if (!v) {
		json_object_del(spec, key);
		return 0;
	}
	return json_object_set_new(spec, key, json_deep_copy(v)) ? VC_ENOMEM : 0;
}

static int pg_update_fields(json_t *spec, const json_t *want, bool *changed)
{
	json_t *mtm, *wmtm = json_object_get(want, "minTaskMember"), *v;
	const char *k;

	if (!vc_str_eq(vc_json_get_str(spec, "priorityClassName"),
		       vc_json_get_str(want, "priorityClassName"))) {
		*changed = true;
		if (take_member(spec, want, "priorityClassName"))
			return VC_ENOMEM;
	}
	if (vc_json_get_int(spec, "minMember", 0) != vc_json_get_int(want, "minMember", 0) ||
	    !resources_equal(json_object_get(spec, "minResources"),
			     json_object_get(want, "minResources"))) {
		*changed = true;
		if (take_member(spec, want, "minMember") || take_member(spec, want, "minResources"))
			return VC_ENOMEM;
	}
	mtm = json_object_get(spec, "minTaskMember");
	if (!json_is_object(mtm)) {
		mtm = json_object();
		if (!mtm || json_object_set_new(spec, "minTaskMember", mtm))
			return VC_ENOMEM;
		*changed = true;
	}
	json_object_foreach (wmtm, k, v)
		if (vc_json_get_int(mtm, k, -1) != json_integer_value(v) ||
		    !json_object_get(mtm, k)) {
			*changed = true;
			if (json_object_set(mtm, k, v))
				return VC_ENOMEM;
		}
	if (!job_status_json_equal(json_object_get(spec, "subGroupPolicy"),
				   json_object_get(want, "subGroupPolicy"))) {
		*changed = true;
		if (take_member(spec, want, "subGroupPolicy"))
			return VC_ENOMEM;
	}
	return 0;
}

static int pg_create_or_update(struct job_run *run, struct vc_error *err)
{
	int32_t *w = task_weights(run);
	json_t *want = NULL, *cur = NULL, *upd = NULL, *spec;
	bool changed = false;
	int rc;

	if (!w)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = job_podgroup_build(&run->job, w, &want, err);
	vc_free(w);
	if (rc)
		return rc;
	cur = pg_cached(run);
	if (!cur) {
		rc = vc_kube_create(kube_of(run), &vc_gvr_podgroups, run->job.meta.ns, NULL, NULL,
				    want, NULL, err);
		if (rc == VC_EALREADYEXISTS)
			rc = 0;
		goto out;
	}
	upd = json_deep_copy(cur);
	spec = upd ? json_object_get(upd, "spec") : NULL;
	if (upd && !spec && !json_object_set_new(upd, "spec", json_object()))
		spec = json_object_get(upd, "spec");
	if (!spec || pg_update_fields(spec, json_object_get(want, "spec"), &changed)) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out;
	}
	if (changed)
		rc = vc_kube_update(kube_of(run), &vc_gvr_podgroups, run->job.meta.ns, name_of(cur),
				    NULL, upd, NULL, err);
out:
	json_decref(upd);
	json_decref(cur);
	json_decref(want);
	return rc;
}

/* docs/volcano/job-controller.md §1.5 PodGroupPending: the newest True condition is not Scheduled.
 */
static void pg_pending_event(struct job_run *run, const json_t *pg)
{
	json_t *conds = vc_json_path(pg, "status.conditions"), *cnd, *latest = NULL;
	int64_t lt = 0, t;
	char *type, *msg;
	size_t i, k;

	json_array_foreach (conds, i, cnd) {
		const char *ts = vc_json_get_str(cnd, "lastTransitionTime");

		if (!vc_str_eq(vc_json_get_str(cnd, "status"), "True"))
			continue;
		if (!ts || vc_time_parse_rfc3339(ts, &t, NULL, NULL))
			t = INT64_MIN;
		if (!latest || t > lt) {
			latest = cnd;
			lt = t;
		}
	}
	if (!latest || vc_str_eq(vc_json_get_str(latest, "type"), "Scheduled")) {
		(void)job_pg_pending_changed(run->c, run->key, NULL);
		return;
	}
	type = vc_strdup(vc_json_get_str(latest, "type") ? vc_json_get_str(latest, "type") : "");
	if (!type)
		return;
	for (k = 0; type[k]; k++)
		if (type[k] >= 'A' && type[k] <= 'Z')
			type[k] = (char)(type[k] - 'A' + 'a');
	msg = vc_asprintf(
		"PodGroup %s:%s %s, reason: %s", run->job.meta.ns, run->job.meta.name, type,
		vc_json_get_str(latest, "message") ? vc_json_get_str(latest, "message") : "");
	/* A repeat of the last warning is not sent again (one Event, as client-go folds them). */
	if (msg && job_pg_pending_changed(run->c, run->key, msg))
		job_event(run->c, &run->job, "Warning", "PodGroupPending", "%s", msg);
	vc_free(msg);
	vc_free(type);
}

/* ---- parallel pod operations ------------------------------------------------------------------
 */

struct pod_op {
	json_t *pod; /* NEW reference: to create, or the cached pod to delete */
	int rc;
	bool patch; /* kill: mark out-of-sync first */
	bool patch_failed;
	char *phase; /* created: the phase the API answered (owned), or NULL */
	char err[VC_ERROR_TEXT_LEN + 512];
};

struct pod_ops {
	struct job_run *run;
	struct pod_op *ops;
	size_t n;
};

static void do_create(void *arg, size_t i)
{
	struct pod_ops *po = arg;
	struct pod_op *op = &po->ops[i];
	struct vc_error err;
	json_t *out = NULL;
	const char *ph;

	vc_error_clear(&err);
	op->rc = vc_kube_create(kube_of(po->run), &vc_gvr_pods, po->run->job.meta.ns, NULL, NULL,
				op->pod, &out, &err);
	if (op->rc) {
		snprintf(op->err, sizeof(op->err), "failed to create pod %s, err: %s",
			 name_of(op->pod), err.text);
	} else {
		ph = json_string_value(vc_json_path(out, "status.phase"));
		op->phase = vc_strdup(ph ? ph : "");
		if (!op->phase)
			op->rc = VC_ENOMEM;
	}
	json_decref(out);
}

static void do_delete(void *arg, size_t i)
{
	struct pod_ops *po = arg;
	struct pod_op *op = &po->ops[i];
	struct vc_error err;
	json_t *patch;

	vc_error_clear(&err);
	if (op->patch) {
		patch = json_loads(OUT_OF_SYNC_PATCH, 0, NULL);
		op->rc = patch ? vc_kube_patch(kube_of(po->run), &vc_gvr_pods, po->run->job.meta.ns,
					       name_of(op->pod), NULL, VC_PATCH_JSON, patch, NULL,
					       &err)
			       : VC_ENOMEM;
		json_decref(patch);
		if (op->rc && op->rc != VC_ENOTFOUND) {
			op->patch_failed = true;
			snprintf(op->err, sizeof(op->err), "failed to patch pod %s, err: %s",
				 name_of(op->pod),
				 op->rc == VC_ENOMEM ? "out of memory" : err.text);
			return;
		}
		if (deleting(op->pod)) {
			op->rc = 0;
			return;
		}
	}
	op->rc = vc_kube_delete(kube_of(po->run), &vc_gvr_pods, po->run->job.meta.ns,
				name_of(op->pod), NULL, &err);
	if (op->rc == VC_ENOTFOUND)
		op->rc = 0;
	if (op->rc)
		snprintf(op->err, sizeof(op->err), "failed to delete pod %s, err: %s",
			 name_of(op->pod), err.text);
}

static void pod_ops_release(struct pod_ops *po)
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
static bool delete_expected(struct job_run *run, const json_t *pod)
{
	return job_expecting(run->exp, false, name_of(pod), uid_of(pod), &run->exp_left);
}

static void expect_deletes(struct job_run *run, const struct pod_ops *po)
{
	size_t i;

	for (i = 0; i < po->n; i++)
		job_expect(run->c, run->key, false, name_of(po->ops[i].pod),
			   uid_of(po->ops[i].pod));
}

/* Deletions that failed are not expected any more. */
static void deletes_done(struct job_run *run, const struct pod_ops *po)
{
	size_t i;

	for (i = 0; i < po->n; i++)
		if (po->ops[i].rc)
			job_expect_observed(run->c, run->key, false, name_of(po->ops[i].pod),
					    uid_of(po->ops[i].pod));
}

static int pod_ops_add(struct pod_ops *po, json_t *pod, size_t cap)
{
	if (!po->ops && !(po->ops = vc_calloc(cap ? cap : 1, sizeof(*po->ops)))) {
		json_decref(pod);
		return VC_ENOMEM;
	}
	po->ops[po->n].pod = pod;
	po->n++;
	return 0;
}

static size_t failed_count(const struct pod_ops *po)
{
	size_t i, n = 0;

	for (i = 0; i < po->n; i++)
		n += po->ops[i].rc != 0;
	return n;
}

/* "[e1 e2 ...]" of the failed operations (Go's %+v of an error slice); NULL when none. */
static char *op_errors(const struct pod_ops *po)
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
		const char *name = name_of(pods->items[i]);

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
				enum vc_pod_phase ph = pod ? phase_of(pod) : VC_POD_PENDING;

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
	if (*forwarded && !vc_str_eq(ann(run->obj, JOB_KEY_FORWARDING), "true")) {
		copy = json_deep_copy(run->obj);
		if (!copy ||
		    vc_json_set_path_new(copy, "metadata.annotations[\"" JOB_KEY_FORWARDING "\"]",
					 json_string("true")))
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		else
			rc = write_job(run, copy, err);
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
		w->rc[0] = put_status(w->run, w->st, &w->out, &w->err[0]);
		return;
	}
	w->rc[1] = vc_kube_create(kube_of(w->run), &vc_gvr_podgroups, w->run->job.meta.ns, NULL,
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
	if (!json_array_size(run->job.volumes) && !(cur = pg_cached(run))) {
		wt = task_weights(run);
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
		now_str(now);
		st->min_available = run->job.min_available;
		if (job_status_set_phase(st, VC_JOB_PENDING) || job_status_add_condition(st, now))
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		if ((rc = first_writes(run, st, &pg_done, err)))
			return rc;
	}
	if ((rc = plugin_hook(run, st, 0, err))) {
		job_event(run->c, &run->job, "Warning", "PluginError", "%s", err->text);
		return rc;
	}
	if ((rc = sync_volumes(run, st, err))) {
		job_event(run->c, &run->job, "Warning", "PVCError", "%s", err->text);
		return rc;
	}
	if (!pg_done && (rc = pg_create_or_update(run, err))) {
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
	now_str(now);
	if (job_status_add_condition(cand, now))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	return 0;
}

static int finish_sync(struct job_run *run, struct job_status *cand, enum job_status_fn fn,
		       struct vc_error *err)
{
	bool write;
	int rc = prepare_status(run, cand, fn, &write, err);

	return rc || !write ? rc : write_status(run, cand, false, err);
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
		cs->rc = put_status(cs->run, cs->st, &cs->out, &cs->err);
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
		if (job_status_count_pod(cand, ann(create->ops[p].pod, JOB_KEY_TASK_SPEC),
					 "Pending"))
			return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	if ((rc = prepare_status(run, cand, fn, &write, err)))
		return rc;
	vc_error_clear(&cs.err);
	for (p = 0; p < create->n; p++)
		job_expect(run->c, run->key, true, name_of(create->ops[p].pod), NULL);
	job_pool_run(run->c->pool, create->n + (write ? 1 : 0), do_create_or_status, &cs);
	for (p = 0; p < create->n; p++) {
		struct pod_op *op = &create->ops[p];

		if (op->rc == VC_EALREADYEXISTS)
			op->rc = 0; /* the informer will show it */
		else if (op->rc)
			job_expect_observed(run->c, run->key, true, name_of(op->pod), NULL);
	}
	if (write && !cs.rc && cs.out && (rc = job_run_replace(run, cs.out)))
		return vc_error_set(err, rc, "out of memory");
	if (write && cs.rc)
		json_decref(cs.out);
	if ((msg = op_errors(create))) {
		job_event(run->c, &run->job, "Warning", "FailedCreate", "Error creating pods: %s",
			  msg);
		rc = vc_error_set(err, VC_EIO, "failed to create %zu pods of %zu",
				  failed_count(create), create->n);
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
				    (rc = pod_ops_add(&create, pod, total))) {
					if (rc == VC_ENOMEM)
						vc_error_set(err, rc, "out of memory");
					goto out;
				}
				continue;
			}
			ix.matched[at] = true;
			pod = run->pods.items[at];
			if (deleting(pod) || delete_expected(run, pod)) {
				cand.terminating++;
				continue;
			}
			if (ann(pod, JOB_KEY_OUT_OF_SYNC) &&
			    pod_ops_add(&del, json_incref(pod), run->pods.count)) {
				rc = vc_error_set(err, VC_ENOMEM, "out of memory");
				goto out;
			}
			if (count_pod(&cand, pod)) {
				rc = vc_error_set(err, VC_ENOMEM, "out of memory");
				goto out;
			}
		}
	}
	/* Surplus pods of tasks in the spec (scale down, docs/volcano/job-controller.md §4.9). */
	for (p = 0; p < run->pods.count; p++) {
		const json_t *pod = run->pods.items[p];
		const struct vc_task *t;

		if (ix.matched[p] || !(t = vc_job_task(&run->job, ann(pod, JOB_KEY_TASK_SPEC))))
			continue;
		if (task_pod_name(run->job.meta.name, t, name_of(pod)))
			continue;
		if (delete_expected(run, pod)) {
			cand.terminating++;
			continue;
		}
		if (pod_ops_add(&del, json_incref((json_t *)pod), run->pods.count)) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto out;
		}
	}

	if (create.n && !del.n) {
		rc = create_with_status(run, &create, &cand, fn, err);
		goto out;
	}
	/* Expected before the calls, so that the informer's add can never come first. */
	for (p = 0; p < create.n; p++)
		job_expect(run->c, run->key, true, name_of(create.ops[p].pod), NULL);
	job_pool_run(run->c->pool, create.n, do_create, &create);
	for (p = 0; p < create.n; p++) {
		struct pod_op *op = &create.ops[p];

		if (op->rc == VC_EALREADYEXISTS) {
			op->rc = 0; /* the informer will show it */
			continue;
		}
		if (op->rc) {
			job_expect_observed(run->c, run->key, true, name_of(op->pod), NULL);
			continue;
		}
		if (job_status_count_pod(&cand, ann(op->pod, JOB_KEY_TASK_SPEC), op->phase)) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto out;
		}
	}
	if ((msg = op_errors(&create))) {
		job_event(run->c, &run->job, "Warning", "FailedCreate", "Error creating pods: %s",
			  msg);
		rc = vc_error_set(err, VC_EIO, "failed to create %zu pods of %zu",
				  failed_count(&create), create.n);
		goto out;
	}
	expect_deletes(run, &del);
	job_pool_run(run->c->pool, del.n, do_delete, &del);
	deletes_done(run, &del);
	for (p = 0; p < del.n; p++)
		if (!del.ops[p].rc)
			cand.terminating++;
	if ((msg = op_errors(&del))) {
		job_event(run->c, &run->job, "Warning", "FailedDelete", "Error deleting pods: %s",
			  msg);
		rc = vc_error_set(err, VC_EIO, "failed to delete %zu pods of %zu",
				  failed_count(&del), del.n);
		goto out;
	}
	rc = finish_sync(run, &cand, fn, err);
out:
	vc_free(msg);
	pod_index_release(&ix);
	pod_ops_release(&create);
	pod_ops_release(&del);
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
		if ((rc = plugin_hook(run, &st, 1, &err)))
			job_event(run->c, &run->job, "Warning", "PluginError", "%s", err.text);
		else if ((rc = pg_create_or_update(run, &err)))
			job_event(run->c, &run->job, "Warning", "PodGroupError", "%s", err.text);
	}
	if (rc)
		goto out;
	pg = pg_cached(run);
	pgphase = json_string_value(vc_json_path(pg, "status.phase"));
	can_create = pg && pgphase && *pgphase && strcmp(pgphase, "Pending");
	if (pg)
		pg_pending_event(run, pg);
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

/* ---- KillJob / KillTarget (docs/volcano/job-controller.md §4.2.2) ---------------------------- */

static bool in_retain(enum job_retain retain, enum vc_pod_phase ph)
{
	return retain == JOB_RETAIN_SOFT && (ph == VC_POD_SUCCEEDED || ph == VC_POD_FAILED);
}

static int pick_victims(struct job_run *run, const struct job_target *t, enum job_retain retain,
			struct job_status *cand, struct pod_ops *victims, bool *nothing)
{
	const struct vc_task *task = NULL;
	size_t p;

	*nothing = false;
	if (t && t->partition) {
		task = vc_job_task(&run->job, t->task);
		if (!task || !task->has_partition || !*t->partition) {
			*nothing = true;
			return 0;
		}
	}
	if (!t && run->job.status.retry_count >= run->job.max_retry - 1)
		retain = JOB_RETAIN_SOFT; /* the last retry keeps finished pods */
	for (p = 0; p < run->pods.count; p++) {
		json_t *pod = run->pods.items[p];
		const char *ptask = ann(pod, JOB_KEY_TASK_SPEC);

		if (t) {
			if (!vc_str_eq(ptask, t->task))
				continue;
			if (t->partition && !vc_str_eq(json_string_value(json_object_get(
							       vc_json_path(pod, "metadata.labels"),
							       JOB_KEY_PARTITION_ID)),
						       t->partition))
				continue;
			if (!t->partition && t->pod && !vc_str_eq(name_of(pod), t->pod))
				continue;
		} else {
			if (deleting(pod)) {
				cand->terminating++;
				continue;
			}
			if (in_retain(retain, phase_of(pod)))
				continue;
		}
		if (delete_expected(run, pod)) {
			cand->terminating++; /* deleted by an earlier kill */
			continue;
		}
		if (pod_ops_add(victims, json_incref(pod), run->pods.count))
			return VC_ENOMEM;
		victims->ops[victims->n - 1].patch = true;
	}
	if (t && t->partition && !victims->n)
		*nothing = true;
	return 0;
}

/* runningDuration = lastTransitionTime - creationTimestamp (docs/volcano/job-controller.md §4.8).
 */
static int running_duration(struct job_run *run, struct job_status *st)
{
	const char *lt = json_string_value(json_object_get(st->state, "lastTransitionTime"));
	char buf[VC_DURATION_STR_MAX];
	int64_t a, b;
	int32_t an, bn;

	if (!lt || !run->job.meta.creation_timestamp || vc_time_parse_rfc3339(lt, &a, &an, NULL) ||
	    vc_time_parse_rfc3339(run->job.meta.creation_timestamp, &b, &bn, NULL))
		return 0;
	if (vc_duration_format((a - b) * VC_NSEC_PER_SEC + (an - bn), buf, sizeof(buf)))
		return 0;
	return job_request_set_str(&st->running_duration, buf);
}

static int delete_podgroup(struct job_run *run, struct vc_error *err)
{
	char *name = job_podgroup_name(&run->job);
	int rc;

	if (!name)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = vc_kube_delete(kube_of(run), &vc_gvr_podgroups, run->job.meta.ns, name, NULL, err);
	vc_free(name);
	if (rc == VC_ENOTFOUND)
		rc = vc_kube_delete(kube_of(run), &vc_gvr_podgroups, run->job.meta.ns,
				    run->job.meta.name, NULL, err);
	return rc == VC_ENOTFOUND ? 0 : rc;
}

int job_kill(struct job_run *run, const struct job_target *t, enum job_retain retain,
	     enum job_status_fn fn)
{
	struct pod_ops victims = { run, NULL, 0 };
	struct job_status st = { 0 };
	struct vc_error err;
	char now[VC_TIME_STR_MAX], *msg = NULL;
	bool nothing;
	size_t i;
	int rc;

	vc_error_clear(&err);
	if (run->job.meta.deletion_timestamp)
		return 0;
	if ((rc = job_status_from_json(json_object_get(run->obj, "status"), &st)))
		return rc;
	st.pending = st.running = st.succeeded = st.failed = st.terminating = st.unknown = 0;
	json_decref(st.task_status_count);
	st.task_status_count = NULL;
	if (!t)
		st.version++;
	if ((rc = pick_victims(run, t, retain, &st, &victims, &nothing)))
		goto out;
	if (nothing)
		goto out;
	expect_deletes(run, &victims);
	job_pool_run(run->c->pool, victims.n, do_delete, &victims);
	deletes_done(run, &victims);
	for (i = 0; i < victims.n; i++) {
		struct pod_op *op = &victims.ops[i];

		if (!op->rc) {
			st.terminating++;
		} else if (!op->patch_failed) {
			if ((rc = count_pod(&st, op->pod)))
				goto out;
		}
	}
	if ((msg = op_errors(&victims))) {
		job_event(run->c, &run->job, "Warning", "FailedDelete", "Error deleting pods: %s",
			  msg);
		rc = vc_error_set(&err, VC_EIO, "failed to kill %zu pods of %zu",
				  failed_count(&victims), victims.n);
		goto out;
	}
	if (job_status_fn_apply(fn, &run->job, &st, &rc)) {
		now_str(now);
		if ((rc = job_status_add_condition(&st, now)))
			goto out;
	}
	if (rc || (rc = running_duration(run, &st)))
		goto out;
	if ((rc = plugin_hook(run, &st, 2, &err)))
		goto out;
	if ((rc = write_status(run, &st, true, &err)))
		goto out;
	if (!t)
		rc = delete_podgroup(run, &err);
out:
	if (rc)
		VC_LOG(VC_LOG_V(2), "kill failed", "job=%s err=%d text=\"%s\"", run->key, rc,
		       err.text);
	vc_free(msg);
	pod_ops_release(&victims);
	job_status_release(&st);
	return rc;
}
