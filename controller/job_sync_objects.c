/*
 * job_sync_objects.c - the objects a sync maintains besides the pods: the plugins' objects
 * (docs/volcano/job-controller.md §2.4, §5), the job's PVCs (docs/volcano/job-controller.md §2.3)
 * and its PodGroup (docs/volcano/job-controller.md §2.2), with the PodGroupPending warning.
 */
#include "job_internal.h"

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_explain.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_quantity.h"
#include "vc_str.h"
#include "vc_time.h"

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
	const char *ns = run->job.meta.ns, *name = job_name_of(obj);
	json_t *cur = NULL, *upd = NULL;
	bool replace = false;
	int rc;

	if (!r)
		return vc_error_set(err, VC_EINVAL, "unsupported plugin object kind '%s'",
				    kind ? kind : "");
	rc = vc_kube_get(job_kube(run), r, ns, name, NULL, &cur, err);
	if (rc == VC_ENOTFOUND) {
		rc = vc_kube_create(job_kube(run), r, ns, NULL, NULL, obj, NULL, err);
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
			rc = vc_kube_update(job_kube(run), r, ns, name, NULL, upd, NULL, err);
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
		rc = vc_kube_delete(job_kube(run), r, run->job.meta.ns, vc_json_get_str(o, "name"),
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
int job_plugin_hook(struct job_run *run, struct job_status *st, int which, struct vc_error *err)
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
	rc = vc_kube_get(job_kube(run), &vc_gvr_pvcs, run->job.meta.ns, name, NULL, &o, err);
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
	rc = vc_kube_create(job_kube(run), &vc_gvr_pvcs, run->job.meta.ns, NULL, NULL, pvc, NULL,
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

int job_sync_volumes(struct job_run *run, struct job_status *st, struct vc_error *err)
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
		rc = job_write_job(run, copy, err);
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
json_t *job_pg_cached(struct job_run *run)
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

int32_t *job_task_weights(struct job_run *run)
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

int job_pg_create_or_update(struct job_run *run, struct vc_error *err)
{
	int32_t *w = job_task_weights(run);
	json_t *want = NULL, *cur = NULL, *upd = NULL, *spec;
	bool changed = false;
	int rc;

	if (!w)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = job_podgroup_build(&run->job, w, &want, err);
	vc_free(w);
	if (rc)
		return rc;
	cur = job_pg_cached(run);
	if (!cur) {
		rc = vc_kube_create(job_kube(run), &vc_gvr_podgroups, run->job.meta.ns, NULL, NULL,
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
		rc = vc_kube_update(job_kube(run), &vc_gvr_podgroups, run->job.meta.ns,
				    job_name_of(cur), NULL, upd, NULL, err);
out:
	json_decref(upd);
	json_decref(cur);
	json_decref(want);
	return rc;
}

const json_t *job_pg_pending_condition(const json_t *pg)
{
	json_t *conds = vc_json_path(pg, "status.conditions"), *cnd, *latest = NULL;
	int64_t lt = 0, t;
	size_t i;

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
	if (!latest || vc_str_eq(vc_json_get_str(latest, "type"), "Scheduled"))
		return NULL;
	return latest;
}

/*
 * The first reason that holds the job, as `vcctl job explain` gives it (common/vc_explain.h),
 * from the informers' Job, Queue, PodGroup and pods (no Events: an enqueue rejection, only told
 * by an Event, is not found), into buf; "" when there is none worth telling (the job runs, or
 * nothing was found) or memory ran out.
 */
static void pg_pending_reason(struct job_run *run, const json_t *pg, char *buf, size_t len)
{
	struct vc_explain_in in = { 0 };
	json_t *pods = json_array(), *queue;
	size_t i;

	buf[0] = '\0';
	if (!pods)
		return;
	for (i = 0; i < run->pods.count; i++)
		if (json_array_append(pods, run->pods.items[i])) {
			json_decref(pods);
			return;
		}
	queue = vc_cache_get(vc_informer_cache(run->c->ctx->queues), run->job.queue);
	in.ns = run->job.meta.ns;
	in.name = run->job.meta.name;
	in.job = run->obj;
	in.queue = queue;
	in.podgroup = pg;
	in.pods = pods;
	if (!vc_explain_holds(vc_explain(&in, NULL, buf, len)))
		buf[0] = '\0';
	json_decref(queue);
	json_decref(pods);
}

/*
 * docs/volcano/job-controller.md §1.5 PodGroupPending: the newest True condition is not Scheduled.
 * Volcano's message, then "; why: " and the first reason explain gives (docs/compatibility.md).
 */
void job_pg_pending_event(struct job_run *run, const json_t *pg)
{
	const json_t *latest = job_pg_pending_condition(pg);
	char reason[VC_EXPLAIN_REASON_MAX];
	char *type, *msg;
	size_t k;

	if (!latest) {
		(void)job_pg_pending_changed(run->c, run->key, NULL);
		return;
	}
	type = vc_strdup(vc_json_get_str(latest, "type") ? vc_json_get_str(latest, "type") : "");
	if (!type)
		return;
	for (k = 0; type[k]; k++)
		if (type[k] >= 'A' && type[k] <= 'Z')
			type[k] = (char)(type[k] - 'A' + 'a');
	pg_pending_reason(run, pg, reason, sizeof(reason));
	msg = vc_asprintf(
		"PodGroup %s:%s %s, reason: %s%s%s", run->job.meta.ns, run->job.meta.name, type,
		vc_json_get_str(latest, "message") ? vc_json_get_str(latest, "message") : "",
		*reason ? "; why: " : "", reason);
	/* A repeat of the last warning is not sent again (one Event, as client-go folds them). */
	if (msg && job_pg_pending_changed(run->c, run->key, msg))
		job_event(run->c, &run->job, "Warning", "PodGroupPending", "%s", msg);
	vc_free(msg);
	vc_free(type);
}
