/*
 * sched_runtime_vol.c - the volume side of the runtime (sched_volume.h): the catalog of volume
 * objects a snapshot borrows, and the volume binder's writes before a gang's binds
 * (docs/volcano/scheduler.md §1.6, §4.7).
 *
 * kube-scheduler's binder PUTs a PersistentVolume with its claimRef (static binding) or a claim
 * with volume.kubernetes.io/selected-node (dynamic provisioning), then waits in PreBind until the
 * PV controller (or the provisioner) has bound every claim. Here the writes of one gang's binds
 * run together on the loop thread (volume binds are rare and each is one request); when one fails,
 * or some claim is not bound yet, none of the gang's pods is bound this cycle and nothing is
 * assumed: a later cycle places the gang again, and finds the pre-bound PVs (their claimRef) and
 * the selected node (the annotation) where the binder left them, so the gang goes where its
 * volumes are once they are bound.
 */
#include "sched_runtime_internal.h"

#include "ctx.h"
#include "sched_volume.h"
#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_time.h"

/* A volume object the binder wrote (s->vol_assumed: "pv/<name>" or "pvc/<ns>/<name>"). */
struct srt_vol_assumed {
	enum sched_vol_kind kind;
	char *key;    /* the catalog's key */
	char *old_rv; /* the resourceVersion the write replaced */
	json_t *obj;  /* what was written */
	int64_t at;   /* monotonic ns */
};

void srt_vol_assumed_free(void *val)
{
	struct srt_vol_assumed *a = val;

	if (!a)
		return;
	vc_free(a->key);
	vc_free(a->old_rv);
	json_decref(a->obj);
	vc_free(a);
}

/* Remember obj (borrowed), written over the version old_rv, until the informer shows another. */
static void assume(struct sched_runtime *s, enum sched_vol_kind kind, const char *ns,
		   const json_t *obj, const char *old_rv)
{
	const char *name = vc_json_get_str(vc_json_get_obj(obj, "metadata"), "name");
	struct srt_vol_assumed *a = vc_calloc(1, sizeof(*a));
	char *mkey = NULL;

	if (!a || !name)
		goto fail;
	a->kind = kind;
	a->key = kind == SCHED_VOL_PVC ? vc_asprintf("%s/%s", ns, name) : vc_strdup(name);
	a->old_rv = vc_strdup(old_rv ? old_rv : "");
	a->obj = json_incref((json_t *)obj);
	a->at = vc_time_mono_ns();
	mkey = a->key ? vc_asprintf("%s/%s", kind == SCHED_VOL_PVC ? "pvc" : "pv", a->key) : NULL;
	if (!a->old_rv || !mkey || srt_map_put(&s->vol_assumed, mkey, a) < 0)
		goto fail;
	vc_free(mkey);
	return;
fail:
	/* Without it a cycle may choose again before the informer catches up: the API server's
	 * resourceVersion check refuses a second write of the same object. */
	vc_free(mkey);
	srt_vol_assumed_free(a);
}

struct overlay_ctx {
	struct sched_vol_catalog *cat;
	int64_t now;
};

/* Lay a remembered write over the cached object while the cache still has the version it
 * replaced; forget it once the cache shows another version, or after SRT_UNSEEN_TTL_NS. */
static bool overlay(void *ctx, const char *key, void *val)
{
	struct overlay_ctx *o = ctx;
	struct srt_vol_assumed *a = val;
	const json_t *cached = sched_vol_catalog_get(o->cat, a->kind, a->key);
	const char *rv = vc_json_get_str(vc_json_get_obj(cached, "metadata"), "resourceVersion");

	(void)key;
	if (o->now - a->at > SRT_UNSEEN_TTL_NS || !cached || !rv || strcmp(rv, a->old_rv) != 0)
		return true;
	return sched_vol_catalog_add(o->cat, a->kind, a->obj) < 0;
}

static int add_all(struct sched_vol_catalog *c, struct vc_informer *inf, enum sched_vol_kind kind)
{
	struct vc_objs objs;
	size_t i;
	int rc;

	if (!inf)
		return 0;
	rc = vc_cache_list(vc_informer_cache(inf), &objs);
	for (i = 0; rc == 0 && i < objs.count; i++)
		rc = sched_vol_catalog_add(c, kind, objs.items[i]);
	vc_objs_release(&objs);
	return rc;
}

int srt_vol_catalog(struct sched_runtime *s, struct srt_snap *sn)
{
	struct vc_ctrl_ctx *ctx = s->ctx;
	struct sched_vol_catalog *c;
	size_t i;
	int rc;

	/* Without the claims informer the scheduler does not look at volumes (tests, old setups);
	 * nor when no pod of the snapshot has a volume (the slim pod keeps only claim volumes). */
	if (!ctx->pvcs)
		return 0;
	for (i = 0; i < sn->npods; i++)
		if (json_object_get(json_object_get(sn->pods[i]->v.pod.obj, "spec"), "volumes"))
			break;
	if (i == sn->npods)
		return 0;
	c = sched_vol_catalog_new();
	if (!c)
		return VC_ENOMEM;
	rc = add_all(c, ctx->pvcs, SCHED_VOL_PVC);
	if (!rc)
		rc = add_all(c, ctx->pvs, SCHED_VOL_PV);
	if (!rc)
		rc = add_all(c, ctx->storageclasses, SCHED_VOL_CLASS);
	if (!rc)
		rc = add_all(c, ctx->csinodes, SCHED_VOL_CSINODE);
	if (!rc) {
		struct overlay_ctx o = { c, vc_time_mono_ns() };

		srt_map_sweep(&s->vol_assumed, overlay, &o);
	}
	if (rc) {
		sched_vol_catalog_free(c);
		return rc;
	}
	sn->volumes = c;
	sn->snap.volumes = c;
	return 0;
}

/* One write of the binder (a PUT, as kube's bindAPIUpdate). 0 or the request's error. */
static int run_write(struct sched_runtime *s, const struct sched_vol_write *w, const char *node,
		     const struct sched_task_info *t)
{
	const json_t *meta = vc_json_get_obj(w->pv ? w->pv : w->pvc, "metadata");
	const char *name = vc_json_get_str(meta, "name");
	const char *claim = vc_json_get_str(vc_json_get_obj(w->pvc, "metadata"), "name");
	struct vc_error err;
	json_t *body;
	int rc;

	vc_error_clear(&err);
	body = w->pv ? sched_vol_prebound_pv(w->pv, w->pvc) : sched_vol_selected_pvc(w->pvc, node);
	if (!body)
		rc = vc_error_set(&err, VC_ENOMEM, "out of memory");
	else if (w->pv)
		rc = vc_kube_update(s->ctx->kube, &vc_gvr_pvs, NULL, name, NULL, body, NULL, &err);
	else
		rc = vc_kube_update(s->ctx->kube, &vc_gvr_pvcs, t->ns, name, NULL, body, NULL,
				    &err);
	if (rc == 0)
		assume(s, w->pv ? SCHED_VOL_PV : SCHED_VOL_PVC, t->ns, body,
		       vc_json_get_str(meta, "resourceVersion"));
	json_decref(body);
	if (rc < 0) {
		VC_WARN(w->pv ? "cannot bind volume" : "cannot ask for provisioning",
			"pod=%s/%s claim=%s/%s pv=%s node=%s error=\"%s\"", t->ns, t->name, t->ns,
			claim ? claim : "", w->pv ? name : "", node, err.text);
		return rc;
	}
	VC_LOG(VC_LOG_V(2), w->pv ? "volume pre-bound to claim" : "claim to provision on node",
	       "pod=%s/%s claim=%s/%s pv=%s node=%s", t->ns, t->name, t->ns, claim ? claim : "",
	       w->pv ? name : "", node);
	return 0;
}

int srt_vol_apply(struct sched_runtime *s, const struct sched_result *r, bool **held)
{
	bool *done;
	size_t i, k, m;

	*held = NULL;
	for (i = 0; i < r->nbinds && !r->binds[i].vols; i++)
		;
	if (i == r->nbinds)
		return 0;
	*held = vc_calloc(r->nbinds, sizeof(bool));
	done = vc_calloc(r->nbinds, sizeof(bool));
	if (!*held || !done) {
		vc_free(done);
		vc_free(*held);
		*held = NULL;
		return VC_ENOMEM;
	}
	for (i = 0; i < r->nbinds; i++) {
		const struct sched_job_info *job = r->binds[i].task->job;
		bool ok = true, wait = false;

		if (done[i] || !r->binds[i].vols)
			continue;
		/* The gang's binds of this cycle: every write, or none of the pods. */
		for (k = 0; k < r->nbinds; k++) {
			const struct sched_bind *b = &r->binds[k];

			if (k != i && (!job || b->task->job != job))
				continue;
			done[k] = true;
			if (!b->vols)
				continue;
			wait = wait || b->vols->wait;
			for (m = 0; ok && m < b->vols->n; m++)
				ok = run_write(s, &b->vols->w[m], b->node, b->task) == 0;
		}
		for (k = 0; k < r->nbinds; k++)
			if (k == i || (job && r->binds[k].task->job == job))
				(*held)[k] = !ok || wait;
		if (!ok)
			srt_kick(s, SRT_RETRY_NS);
		else if (wait)
			VC_LOG(VC_LOG_V(3), "binds wait for volumes", "job=%s/%s pod=%s/%s node=%s",
			       job ? job->ns : "", job ? job->name : "", r->binds[i].task->ns,
			       r->binds[i].task->name, r->binds[i].node);
	}
	vc_free(done);
	return 0;
}
