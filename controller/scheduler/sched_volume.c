/*
 * sched_volume.c - VolumeBinding, VolumeZone and NodeVolumeLimits (CSI) in the session, and the
 * volume binder's plans (docs/volcano/scheduler.md §4.7, §1.6). The rules are kube-scheduler 1.20's
 * (pkg/controller/volume/scheduling/scheduler_binder.go, persistentvolume/util); the code is ours.
 */
#include "sched_volume.h"

#include <ctype.h>

#include "sched_internal.h"
#include "vc_alloc.h"
#include "vc_hash.h"
#include "vc_json.h"
#include "vc_quantity.h"
#include "vc_selector.h"
#include "vc_str.h"

/* ---- the catalog ------------------------------------------------------------------------- */

struct sched_vol_catalog {
	struct vc_hmap maps[SCHED_VOL_KINDS]; /* key (copied) -> json_t * (own reference) */
};

struct sched_vol_catalog *sched_vol_catalog_new(void)
{
	struct sched_vol_catalog *c = vc_calloc(1, sizeof(*c));
	int k;

	if (c)
		for (k = 0; k < SCHED_VOL_KINDS; k++)
			vc_hmap_init_str(&c->maps[k]);
	return c;
}

static void drop_ref(void *val)
{
	json_decref(val);
}

int sched_vol_catalog_add(struct sched_vol_catalog *c, enum sched_vol_kind kind, json_t *obj)
{
	const json_t *meta = vc_json_get_obj(obj, "metadata");
	const char *name = vc_json_get_str(meta, "name"), *key = name;
	char *buf = NULL;
	void *old = NULL;
	int rc;

	if (!name || !*name)
		return 0;
	if (kind == SCHED_VOL_PVC) {
		const char *ns = vc_json_get_str(meta, "namespace");

		buf = vc_asprintf("%s/%s", ns ? ns : "", name);
		if (!buf)
			return VC_ENOMEM;
		key = buf;
	}
	rc = vc_hmap_put(&c->maps[kind], key, json_incref(obj), &old);
	if (rc < 0)
		json_decref(obj);
	json_decref(old);
	vc_free(buf);
	return rc;
}

const json_t *sched_vol_catalog_get(const struct sched_vol_catalog *c, enum sched_vol_kind kind,
				    const char *key)
{
	return c && key ? vc_hmap_get(&c->maps[kind], key) : NULL;
}

void sched_vol_catalog_free(struct sched_vol_catalog *c)
{
	int k;

	if (!c)
		return;
	for (k = 0; k < SCHED_VOL_KINDS; k++)
		vc_hmap_release(&c->maps[k], drop_ref);
	vc_free(c);
}

/* ---- object helpers ---------------------------------------------------------------------- */

static const char *meta_str(const json_t *obj, const char *key)
{
	return vc_json_get_str(vc_json_get_obj(obj, "metadata"), key);
}

static const char *annotation(const json_t *obj, const char *key)
{
	return vc_json_get_str(vc_json_get_obj(vc_json_get_obj(obj, "metadata"), "annotations"),
			       key);
}

static bool has_annotation(const json_t *obj, const char *key)
{
	return json_object_get(vc_json_get_obj(vc_json_get_obj(obj, "metadata"), "annotations"),
			       key) != NULL;
}

/* v1helper.GetPersistentVolumeClaimClass / GetPersistentVolumeClass: the beta annotation first. */
static const char *object_class(const json_t *obj)
{
	const json_t *ann = vc_json_get_obj(vc_json_get_obj(obj, "metadata"), "annotations");
	const json_t *v = json_object_get(ann, SCHED_ANN_BETA_STORAGE_CLASS);

	if (v)
		return json_string_value(v) ? json_string_value(v) : "";
	v = json_object_get(vc_json_get_obj(obj, "spec"), "storageClassName");
	return json_string_value(v) ? json_string_value(v) : "";
}

/* A storage quantity (nanos), -1 when absent or malformed. */
static __int128 storage_of(const json_t *list)
{
	const json_t *v = json_object_get(list, "storage");
	struct vc_quantity q;

	if (!v || vc_quantity_parse_json(v, &q, NULL) < 0)
		return -1;
	return q.nanos;
}

static const char *volume_mode(const json_t *spec)
{
	const char *m = vc_json_get_str(spec, "volumeMode");

	return m && *m ? m : "Filesystem";
}

/* pvutil.IsVolumeBoundToClaim. */
static bool bound_to_claim(const json_t *pv, const json_t *pvc)
{
	const json_t *ref = vc_json_get_obj(vc_json_get_obj(pv, "spec"), "claimRef");
	const char *uid;

	if (!ref)
		return false;
	if (!vc_str_eq(vc_json_get_str(ref, "name"), meta_str(pvc, "name")) ||
	    !vc_str_eq(vc_json_get_str(ref, "namespace"), meta_str(pvc, "namespace")))
		return false;
	uid = vc_json_get_str(ref, "uid");
	return !uid || !*uid || vc_str_eq(uid, meta_str(pvc, "uid"));
}

/* pvutil.CheckAccessModes: every mode the claim asks for, the PV has. */
static bool access_modes_ok(const json_t *pvc, const json_t *pv)
{
	const json_t *want = vc_json_get_arr(vc_json_get_obj(pvc, "spec"), "accessModes");
	const json_t *have = vc_json_get_arr(vc_json_get_obj(pv, "spec"), "accessModes");
	size_t i, k;

	for (i = 0; i < json_array_size(want); i++) {
		const char *m = json_string_value(json_array_get(want, i));

		for (k = 0; k < json_array_size(have); k++)
			if (vc_str_eq(m, json_string_value(json_array_get(have, k))))
				break;
		if (k == json_array_size(have))
			return false;
	}
	return true;
}

/* ---- the session's state ----------------------------------------------------------------- */

struct vol_claim;

struct vol_pv {
	const json_t *obj;
	const char *name;
	const json_t *required; /* spec.nodeAffinity.required, or NULL */
	const char *driver;	/* spec.csi.driver, or NULL */
	const char *handle;	/* spec.csi.volumeHandle, or NULL */
	__int128 cap;
	uint32_t owner; /* the task that reserved it in this session, or SCHED_NONE */
	const struct vol_claim *claim; /* and for which of its claims */
};

enum claim_state {
	CLAIM_BOUND, /* fully bound: spec.volumeName and bind-completed */
	CLAIM_DELAY, /* unbound, WaitForFirstConsumer, no volumeName */
};

struct vol_claim {
	const json_t *pvc;
	const char *ns, *name;
	enum claim_state state;
	uint32_t pv;		  /* BOUND: its PV or SCHED_NONE; DELAY: the reserved PV or NONE */
	const char *selected;	  /* DELAY: volume.kubernetes.io/selected-node, or NULL */
	const char *class;	  /* the claim's class name ("" none) */
	const json_t *sc;	  /* its StorageClass, or NULL */
	__int128 req;		  /* resources.requests.storage, 0 when absent */
	uint32_t *cands, ncands;  /* DELAY: PVs that fit but for node and session, smallest first */
	uint32_t prebound;	  /* DELAY: a candidate whose claimRef names the claim, or NONE */
	bool provisioned_on_node; /* set by match(): provisioning chosen (internal scratch) */
};

struct vol_task {
	uint32_t first, n; /* claims[first .. first + n): bound ones, then delayed by request */
	char *error;	   /* a failure of every node (PreFilter), or NULL */
	bool reserved;
};

struct sched_vol {
	struct sched_session *ssn;
	const struct sched_vol_catalog *cat;
	struct vol_pv *pvs;
	size_t npvs;
	struct sched_name_index pv_index;
	struct vol_claim *claims;
	size_t nclaims, claims_cap;
	struct vol_task *tasks; /* ssn->ntasks */
	uint32_t *chosen; /* scratch: the PV each delayed claim of a task takes (max claims) */
	size_t max_claims;
	bool limits; /* some CSINode reports an attach limit */
};

struct sched_vol *sched_ssn_vol(const struct sched_session *ssn)
{
	return ssn->priv->vol;
}

static int cmp_pv_name(const void *a, const void *b)
{
	return strcmp(((const struct vol_pv *)a)->name, ((const struct vol_pv *)b)->name);
}

static int load_pvs(struct sched_vol *v)
{
	const struct vc_hmap *m = &v->cat->maps[SCHED_VOL_PV];
	const void *key;
	void *val;
	size_t pos = 0, i;

	v->pvs = vc_calloc(vc_hmap_count(m) + 1, sizeof(*v->pvs));
	if (!v->pvs)
		return VC_ENOMEM;
	while (vc_hmap_next(m, &pos, &key, &val)) {
		struct vol_pv *p = &v->pvs[v->npvs++];
		const json_t *spec = vc_json_get_obj(val, "spec");

		p->obj = val;
		p->name = key;
		p->required = vc_json_get_obj(vc_json_get_obj(spec, "nodeAffinity"), "required");
		p->driver = vc_json_get_str(vc_json_get_obj(spec, "csi"), "driver");
		p->handle = vc_json_get_str(vc_json_get_obj(spec, "csi"), "volumeHandle");
		p->cap = storage_of(vc_json_get_obj(spec, "capacity"));
		p->owner = SCHED_NONE;
	}
	/* Name order: the smallest-fit ties and everything else do not depend on hashing. */
	qsort(v->pvs, v->npvs, sizeof(*v->pvs), cmp_pv_name);
	for (i = 0; i < v->npvs; i++)
		if (sched_name_index_put(&v->pv_index, v->pvs[i].name, (uint32_t)i) < 0)
			return VC_ENOMEM;
	return 0;
}

/* The claim a pod volume names: persistentVolumeClaim.claimName, or <pod>-<volume> (ephemeral). */
static char *claim_name_of(const json_t *vol, const char *pod, bool *ephemeral)
{
	const char *c = vc_json_get_str(vc_json_get_obj(vol, "persistentVolumeClaim"), "claimName");

	*ephemeral = false;
	if (c)
		return vc_strdup(c);
	if (json_object_get(vol, "ephemeral")) {
		*ephemeral = true;
		return vc_asprintf("%s-%s", pod, vc_json_get_str(vol, "name"));
	}
	return NULL;
}

static bool pod_has_claims(const json_t *spec)
{
	const json_t *vols = vc_json_get_arr(spec, "volumes"), *vol;
	size_t i;

	json_array_foreach (vols, i, vol)
		if (json_object_get(vol, "persistentVolumeClaim") ||
		    json_object_get(vol, "ephemeral"))
			return true;
	return false;
}

/* metav1.IsControlledBy: the claim's controller owner reference is the pod. */
static bool controlled_by(const json_t *pvc, const char *uid)
{
	const json_t *refs = vc_json_get_arr(vc_json_get_obj(pvc, "metadata"), "ownerReferences");
	const json_t *r;
	size_t i;

	json_array_foreach (refs, i, r)
		if (json_is_true(json_object_get(r, "controller")))
			return vc_str_eq(vc_json_get_str(r, "uid"), uid);
	return false;
}

/* The PVs a delayed claim may take on some node (FindMatchingVolume without the node). */
static int claim_candidates(struct sched_vol *v, struct vol_claim *c)
{
	const json_t *spec = vc_json_get_obj(c->pvc, "spec");
	const json_t *sel = vc_json_get_obj(spec, "selector");
	struct vc_selector *s = NULL;
	uint32_t i, k;
	int rc;

	c->prebound = SCHED_NONE;
	if (sel) {
		rc = vc_label_selector_from_json(sel, &s, NULL);
		if (rc == VC_ENOMEM)
			return rc;
		if (rc < 0)
			return 0; /* validation makes this unreachable: no candidate */
	}
	c->cands = vc_calloc(v->npvs + 1, sizeof(uint32_t));
	if (!c->cands) {
		vc_selector_free(s);
		return VC_ENOMEM;
	}
	for (i = 0; i < v->npvs; i++) {
		const struct vol_pv *p = &v->pvs[i];
		const json_t *pspec = vc_json_get_obj(p->obj, "spec");

		if (vc_json_get_obj(pspec, "claimRef") && !bound_to_claim(p->obj, c->pvc))
			continue;
		if (p->cap < c->req)
			continue;
		if (!vc_str_eq(volume_mode(spec), volume_mode(pspec)))
			continue;
		if (meta_str(p->obj, "deletionTimestamp"))
			continue;
		if (bound_to_claim(p->obj, c->pvc)) {
			if (c->prebound == SCHED_NONE)
				c->prebound = i;
			continue;
		}
		if (!vc_str_eq(vc_json_get_str(vc_json_get_obj(p->obj, "status"), "phase"),
			       "Available"))
			continue;
		if (s && !vc_selector_matches(
				 s, vc_json_get_obj(vc_json_get_obj(p->obj, "metadata"), "labels")))
			continue;
		if (!vc_str_eq(object_class(p->obj), c->class))
			continue;
		if (!access_modes_ok(c->pvc, p->obj))
			continue;
		c->cands[c->ncands++] = i;
	}
	vc_selector_free(s);
	/* Smallest capacity first (stable: name order among equals). */
	for (i = 1; i < c->ncands; i++) {
		uint32_t x = c->cands[i];

		for (k = i; k > 0 && v->pvs[c->cands[k - 1]].cap > v->pvs[x].cap; k--)
			c->cands[k] = c->cands[k - 1];
		c->cands[k] = x;
	}
	return 0;
}

static struct vol_claim *claim_push(struct sched_vol *v)
{
	if (v->nclaims == v->claims_cap) {
		size_t ncap = v->claims_cap ? v->claims_cap * 2 : 16;
		struct vol_claim *p = vc_realloc(v->claims, ncap * sizeof(*p));

		if (!p)
			return NULL;
		v->claims = p;
		v->claims_cap = ncap;
	}
	memset(&v->claims[v->nclaims], 0, sizeof(v->claims[0]));
	return &v->claims[v->nclaims++];
}

static int task_error(struct vol_task *vt, char *msg)
{
	if (!msg)
		return VC_ENOMEM;
	vc_free(vt->error);
	vt->error = msg;
	return 0;
}

/*
 * The claims of a task's pod (VolumeBinding's podHasPVCs and the binder's GetPodVolumes), or
 * its PreFilter failure in vt->error.
 */
static int load_task(struct sched_vol *v, uint32_t ti, const struct sched_task_info *t)
{
	struct vol_task *vt = &v->tasks[ti];
	const json_t *spec = json_object_get(t->pod->obj, "spec");
	const json_t *vols = vc_json_get_arr(spec, "volumes"), *vol;
	bool immediate = false;
	size_t i, k;
	int rc = 0;

	vt->first = (uint32_t)v->nclaims;
	json_array_foreach (vols, i, vol) {
		bool ephemeral;
		char *name = claim_name_of(vol, t->name, &ephemeral), *key;
		const json_t *pvc;
		const char *vname;
		struct vol_claim *c;

		if (!name) {
			if (json_object_get(vol, "persistentVolumeClaim") ||
			    json_object_get(vol, "ephemeral"))
				return VC_ENOMEM;
			continue;
		}
		key = vc_asprintf("%s/%s", t->ns, name);
		if (!key) {
			vc_free(name);
			return VC_ENOMEM;
		}
		pvc = sched_vol_catalog_get(v->cat, SCHED_VOL_PVC, key);
		vc_free(key);
		if (!pvc)
			rc = task_error(
				vt, vc_asprintf("persistentvolumeclaim \"%s\" not found", name));
		else if (meta_str(pvc, "deletionTimestamp"))
			rc = task_error(
				vt,
				vc_asprintf("persistentvolumeclaim \"%s\" is being deleted", name));
		else if (ephemeral && !controlled_by(pvc, t->uid))
			rc = task_error(
				vt, vc_asprintf("persistentvolumeclaim \"%s\" was not created for "
						"the pod",
						name));
		vc_free(name);
		if (rc < 0 || vt->error)
			return rc;
		if (!(c = claim_push(v)))
			return VC_ENOMEM;
		c->pvc = pvc;
		c->ns = t->ns;
		c->name = meta_str(pvc, "name");
		c->pv = SCHED_NONE;
		c->prebound = SCHED_NONE;
		c->class = object_class(pvc);
		c->req = storage_of(vc_json_get_obj(
			vc_json_get_obj(vc_json_get_obj(pvc, "spec"), "resources"), "requests"));
		if (c->req < 0)
			c->req = 0;
		vname = vc_json_get_str(vc_json_get_obj(pvc, "spec"), "volumeName");
		if (vname && *vname && has_annotation(pvc, SCHED_ANN_BIND_COMPLETED)) {
			c->state = CLAIM_BOUND;
			c->pv = sched_name_index_get(&v->pv_index, vname);
			continue;
		}
		c->sc = *c->class ? sched_vol_catalog_get(v->cat, SCHED_VOL_CLASS, c->class) : NULL;
		/* Prebound claims (volumeName set) count as unbound immediate ones. */
		if (!c->sc ||
		    !vc_str_eq(vc_json_get_str(c->sc, "volumeBindingMode"),
			       "WaitForFirstConsumer") ||
		    (vname && *vname)) {
			immediate = true;
			continue;
		}
		c->state = CLAIM_DELAY;
		c->selected = annotation(pvc, SCHED_ANN_SELECTED_NODE);
	}
	vt->n = (uint32_t)(v->nclaims - vt->first);
	if (immediate)
		return task_error(vt, vc_strdup(SCHED_VOL_UNBOUND_IMMEDIATE));
	/* Bound claims first, then the delayed ones by increasing request (byPVCSize). */
	for (i = 1; i < vt->n; i++) {
		struct vol_claim x = v->claims[vt->first + i];

		for (k = i; k > 0; k--) {
			const struct vol_claim *p = &v->claims[vt->first + k - 1];

			if (p->state < x.state || (p->state == x.state && p->req <= x.req))
				break;
			v->claims[vt->first + k] = *p;
		}
		v->claims[vt->first + k] = x;
	}
	for (i = 0; i < vt->n; i++)
		if (v->claims[vt->first + i].state == CLAIM_DELAY &&
		    (rc = claim_candidates(v, &v->claims[vt->first + i])) < 0)
			return rc;
	if (vt->n > v->max_claims)
		v->max_claims = vt->n;
	return 0;
}

static bool csinode_has_limits(const struct sched_vol_catalog *cat)
{
	const struct vc_hmap *m = &cat->maps[SCHED_VOL_CSINODE];
	const json_t *d;
	const void *key;
	void *val;
	size_t pos = 0, i;

	while (vc_hmap_next(m, &pos, &key, &val))
		json_array_foreach (vc_json_get_arr(vc_json_get_obj(val, "spec"), "drivers"), i, d)
			if (json_is_integer(vc_json_path(d, "allocatable.count")))
				return true;
	return false;
}

int sched_vol_new(struct sched_session *ssn, struct sched_vol **out)
{
	const struct sched_vol_catalog *cat = ssn->snap->volumes;
	struct sched_vol *v;
	size_t i;
	int rc;

	*out = NULL;
	if (!cat)
		return 0;
	for (i = 0; i < ssn->ntasks; i++) {
		const struct sched_task_info *t = ssn->tasks[i].t;

		if (t->pod && pod_has_claims(json_object_get(t->pod->obj, "spec")))
			break;
	}
	if (i == ssn->ntasks)
		return 0;
	v = vc_calloc(1, sizeof(*v));
	if (!v)
		return VC_ENOMEM;
	v->ssn = ssn;
	v->cat = cat;
	sched_name_index_init(&v->pv_index);
	v->tasks = vc_calloc(ssn->ntasks + 1, sizeof(*v->tasks));
	rc = v->tasks ? load_pvs(v) : VC_ENOMEM;
	for (i = 0; rc == 0 && i < ssn->ntasks; i++) {
		const struct sched_task_info *t = ssn->tasks[i].t;

		if (t->pod && pod_has_claims(json_object_get(t->pod->obj, "spec")))
			rc = load_task(v, (uint32_t)i, t);
	}
	if (rc == 0 && !(v->chosen = vc_calloc(v->max_claims + 1, sizeof(uint32_t))))
		rc = VC_ENOMEM;
	if (rc < 0) {
		sched_vol_free(v);
		return rc;
	}
	v->limits = csinode_has_limits(cat);
	*out = v;
	return 0;
}

void sched_vol_free(struct sched_vol *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->nclaims; i++)
		vc_free(v->claims[i].cands);
	if (v->tasks)
		for (i = 0; i < v->ssn->ntasks; i++)
			vc_free(v->tasks[i].error);
	sched_name_index_release(&v->pv_index);
	vc_free(v->claims);
	vc_free(v->tasks);
	vc_free(v->pvs);
	vc_free(v->chosen);
	vc_free(v);
}

/* ---- the filter -------------------------------------------------------------------------- */

/* volumeutil.CheckNodeAffinity: *ok when the PV's required node affinity admits the node. */
static int pv_fits_node(const struct vol_pv *p, const struct sched_ssn_node *n, bool *ok)
{
	int rc;

	*ok = true;
	if (!p->required)
		return 0;
	rc = vc_node_selector_match(p->required, n->n->labels, n->n->name, NULL, ok, NULL);
	if (rc == VC_ENOMEM)
		return rc;
	if (rc < 0)
		*ok = false;
	return 0;
}

static bool same_claim(const struct vol_claim *a, const struct vol_claim *b)
{
	return a && b && vc_str_eq(a->ns, b->ns) && vc_str_eq(a->name, b->name);
}

static bool taken(const struct sched_vol *v, uint32_t pv, size_t nchosen)
{
	size_t i;

	for (i = 0; i < nchosen; i++)
		if (v->chosen[i] == pv)
			return true;
	return false;
}

/*
 * FindMatchingVolume on node n for delayed claim c of task ti: the PV pre-bound to the claim (in
 * the API or by a reservation of another task of this session for the same claim) when there is
 * one, else the smallest candidate that fits the node and nobody took. *pv is SCHED_NONE when
 * none. 0 or VC_ENOMEM.
 */
static int match(const struct sched_vol *v, uint32_t ti, const struct vol_claim *c,
		 const struct sched_ssn_node *n, size_t nchosen, uint32_t *pv)
{
	uint32_t i, x = SCHED_NONE;
	bool ok;
	int rc;

	*pv = SCHED_NONE;
	for (i = 0; i < c->ncands && x == SCHED_NONE; i++) {
		const struct vol_pv *p = &v->pvs[c->cands[i]];

		if (p->owner != SCHED_NONE && p->owner != ti && same_claim(p->claim, c))
			x = c->cands[i];
	}
	if (x == SCHED_NONE)
		x = c->prebound;
	if (x != SCHED_NONE) {
		if (taken(v, x, nchosen))
			return 0;
		rc = pv_fits_node(&v->pvs[x], n, &ok);
		if (rc == 0 && ok)
			*pv = x;
		return rc;
	}
	for (i = 0; i < c->ncands; i++) {
		const struct vol_pv *p = &v->pvs[c->cands[i]];

		if (p->owner != SCHED_NONE && p->owner != ti)
			continue;
		if (taken(v, c->cands[i], nchosen))
			continue;
		if ((rc = pv_fits_node(p, n, &ok)) < 0)
			return rc;
		if (ok) {
			*pv = c->cands[i];
			return 0;
		}
	}
	return 0;
}

/* v1helper.MatchTopologySelectorTerms over a class's allowedTopologies (none: every node). */
static bool topology_allows(const json_t *terms, const json_t *labels)
{
	const json_t *term, *req, *val;
	size_t i, k, j;

	if (!json_array_size(terms))
		return true;
	json_array_foreach (terms, i, term) {
		bool all = true;

		json_array_foreach (vc_json_get_arr(term, "matchLabelExpressions"), k, req) {
			const char *have = vc_json_get_str(labels, vc_json_get_str(req, "key"));
			bool in = false;

			json_array_foreach (vc_json_get_arr(req, "values"), j, val)
				in = in || (have && vc_str_eq(have, json_string_value(val)));
			if (!in) {
				all = false;
				break;
			}
		}
		if (all)
			return true;
	}
	return false;
}

static void fail(struct pred_result *out, const char *reason)
{
	out->fit = false;
	snprintf(out->reason, sizeof(out->reason), "%s", reason);
}

/*
 * The binder's FindPodVolumes for task ti on node n: *reason is NULL when every claim can be
 * satisfied (v->chosen then holds, per delayed claim in order, its PV or SCHED_NONE for
 * provisioning), else the first of Kubernetes' conflict reasons; *text (owned by the caller,
 * vc_free) is an error text instead of a reason (a claim without a usable class). 0 or
 * VC_ENOMEM.
 */
static int find_volumes(struct sched_vol *v, uint32_t ti, const struct sched_ssn_node *n,
			const char **reason, char **text)
{
	const struct vol_task *vt = &v->tasks[ti];
	bool node_conflict = false, pv_missing = false, unbound_ok = true, provision = false;
	size_t nchosen = 0;
	uint32_t i;
	bool ok;
	int rc;

	*reason = NULL;
	*text = NULL;
	for (i = 0; i < vt->n; i++) {
		const struct vol_claim *c = &v->claims[vt->first + i];

		if (c->state != CLAIM_BOUND)
			break;
		if (c->pv == SCHED_NONE) {
			pv_missing = true;
			break;
		}
		if ((rc = pv_fits_node(&v->pvs[c->pv], n, &ok)) < 0)
			return rc;
		if (!ok) {
			node_conflict = true;
			break;
		}
	}
	for (i = 0; i < vt->n; i++) {
		const struct vol_claim *c = &v->claims[vt->first + i];

		if (c->state == CLAIM_DELAY && c->selected && !vc_str_eq(c->selected, n->n->name)) {
			unbound_ok = false; /* the binder's fast path: provisioning is elsewhere */
			goto out;
		}
	}
	for (i = 0; i < vt->n; i++) {
		const struct vol_claim *c = &v->claims[vt->first + i];
		uint32_t pv = SCHED_NONE;

		if (c->state != CLAIM_DELAY)
			continue;
		if (!c->selected && (rc = match(v, ti, c, n, nchosen, &pv)) < 0)
			return rc;
		v->chosen[nchosen++] = pv;
		provision = provision || pv == SCHED_NONE;
	}
	if (!provision)
		goto out;
	/* checkVolumeProvisions: every claim left must be provisionable on the node. */
	unbound_ok = true;
	for (i = 0, nchosen = 0; i < vt->n; i++) {
		const struct vol_claim *c = &v->claims[vt->first + i];
		const char *prov;

		if (c->state != CLAIM_DELAY || v->chosen[nchosen++] != SCHED_NONE)
			continue;
		if (!*c->class) {
			*text = vc_asprintf("no class for claim \"%s/%s\"", c->ns, c->name);
			return *text ? 0 : VC_ENOMEM;
		}
		if (!c->sc) {
			*text = vc_asprintf("failed to find storage class \"%s\"", c->class);
			return *text ? 0 : VC_ENOMEM;
		}
		prov = vc_json_get_str(c->sc, "provisioner");
		if (!prov || !*prov || vc_str_eq(prov, SCHED_NO_PROVISIONER) ||
		    !topology_allows(vc_json_get_arr(c->sc, "allowedTopologies"), n->n->labels)) {
			unbound_ok = false;
			break;
		}
	}
out:
	if (node_conflict)
		*reason = SCHED_VOL_NODE_CONFLICT;
	else if (!unbound_ok)
		*reason = SCHED_VOL_BIND_CONFLICT;
	else if (pv_missing)
		*reason = SCHED_VOL_PV_NOT_EXIST;
	return 0;
}

/* ---- NodeVolumeLimits (CSI) -------------------------------------------------------------- */

struct csi_vol {
	const char *driver;
	char *handle; /* owned */
};

struct csi_set {
	struct csi_vol *v;
	size_t n, cap;
};

static void csi_set_release(struct csi_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		vc_free(s->v[i].handle);
	vc_free(s->v);
	memset(s, 0, sizeof(*s));
}

static bool csi_set_has(const struct csi_set *s, const char *driver, const char *handle)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (vc_str_eq(s->v[i].driver, driver) && vc_str_eq(s->v[i].handle, handle))
			return true;
	return false;
}

/* Add (driver, handle) once; takes handle (NULL is VC_ENOMEM). */
static int csi_set_add(struct csi_set *s, const char *driver, char *handle)
{
	if (!handle)
		return VC_ENOMEM;
	if (csi_set_has(s, driver, handle)) {
		vc_free(handle);
		return 0;
	}
	if (s->n == s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 8;
		struct csi_vol *p = vc_realloc(s->v, ncap * sizeof(*p));

		if (!p) {
			vc_free(handle);
			return VC_ENOMEM;
		}
		s->v = p;
		s->cap = ncap;
	}
	s->v[s->n].driver = driver;
	s->v[s->n++].handle = handle;
	return 0;
}

/*
 * The CSI volumes of a pod (CSILimits.filterAttachableVolumes): a bound claim's PV with a csi
 * source counts as (driver, volumeHandle); an unbound claim as (its class's provisioner,
 * "<ns>/<claim>"). Claims that are missing, or whose PV or class is unknown, do not count.
 */
static int pod_csi_volumes(const struct sched_vol *v, const struct sched_task_info *t,
			   struct csi_set *out)
{
	const json_t *vols = vc_json_get_arr(json_object_get(t->pod->obj, "spec"), "volumes");
	const json_t *vol;
	size_t i;
	int rc = 0;

	json_array_foreach (vols, i, vol) {
		bool eph;
		char *name = claim_name_of(vol, t->name, &eph), *key;
		const json_t *pvc, *sc;
		const char *vname, *prov;

		if (!name)
			continue;
		key = vc_asprintf("%s/%s", t->ns, name);
		vc_free(name);
		if (!key)
			return VC_ENOMEM;
		pvc = sched_vol_catalog_get(v->cat, SCHED_VOL_PVC, key);
		vname = vc_json_get_str(vc_json_get_obj(pvc, "spec"), "volumeName");
		if (pvc && vname && *vname) {
			uint32_t pv = sched_name_index_get(&v->pv_index, vname);

			if (pv != SCHED_NONE && v->pvs[pv].driver && v->pvs[pv].handle)
				rc = csi_set_add(out, v->pvs[pv].driver,
						 vc_strdup(v->pvs[pv].handle));
		} else if (pvc &&
			   (sc = sched_vol_catalog_get(v->cat, SCHED_VOL_CLASS,
						       object_class(pvc))) &&
			   (prov = vc_json_get_str(sc, "provisioner")) && *prov) {
			rc = csi_set_add(out, prov, key);
			key = NULL;
		}
		vc_free(key);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int64_t csi_limit(const json_t *csinode, const char *driver)
{
	const json_t *d;
	size_t i;

	json_array_foreach (vc_json_get_arr(vc_json_get_obj(csinode, "spec"), "drivers"), i, d)
		if (vc_str_eq(vc_json_get_str(d, "name"), driver)) {
			const json_t *c = vc_json_path(d, "allocatable.count");

			return json_is_integer(c) ? json_integer_value(c) : -1;
		}
	return -1;
}

/* CSILimits.Filter: *ok false when a driver's volumes on n would exceed its CSINode count. */
static int check_limits(const struct sched_vol *v, const struct sched_ssn_task *t,
			const struct sched_ssn_node *n, bool *ok)
{
	const json_t *csinode = sched_vol_catalog_get(v->cat, SCHED_VOL_CSINODE, n->n->name);
	struct csi_set mine = { 0 }, attached = { 0 };
	size_t i, k;
	int rc;

	*ok = true;
	if (!csinode)
		return 0;
	rc = pod_csi_volumes(v, t->t, &mine);
	for (i = 0; rc == 0 && mine.n && i < n->n->ntasks; i++) {
		const struct sched_task_info *x = n->n->tasks[i];

		if (x != t->t && x->pod)
			rc = pod_csi_volumes(v, x, &attached);
	}
	for (i = 0; rc == 0 && *ok && i < mine.n; i++) {
		const char *driver = mine.v[i].driver;
		int64_t limit = csi_limit(csinode, driver), count = 0;

		if (limit < 0)
			continue;
		for (k = 0; k < attached.n; k++)
			count += vc_str_eq(attached.v[k].driver, driver);
		for (k = 0; k < mine.n; k++)
			count += vc_str_eq(mine.v[k].driver, driver) &&
				 !csi_set_has(&attached, driver, mine.v[k].handle);
		*ok = count <= limit;
	}
	csi_set_release(&mine);
	csi_set_release(&attached);
	return rc;
}

/* ---- VolumeZone -------------------------------------------------------------------------- */

static const char *const zone_keys[] = {
	"failure-domain.beta.kubernetes.io/zone",
	"failure-domain.beta.kubernetes.io/region",
	"topology.kubernetes.io/zone",
	"topology.kubernetes.io/region",
};

/*
 * Whether the "__"-separated list of a PV's zone label holds want (LabelZonesToSet, spaces
 * trimmed); a list with an empty member is ignored (true), as Kubernetes ignores the label.
 */
static bool zones_have(const char *list, const char *want)
{
	const char *p = list;
	bool found = false;

	for (;;) {
		const char *end = strstr(p, "__"), *b = p, *e = end ? end : p + strlen(p);

		while (b < e && isspace((unsigned char)*b))
			b++;
		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		if (b == e)
			return true;
		if (want && strlen(want) == (size_t)(e - b) && !strncmp(b, want, (size_t)(e - b)))
			found = true;
		if (!end)
			return found;
		p = end + 2;
	}
}

/*
 * VolumeZone: on a node with a zone or region label, every bound claim's PV labelled with one of
 * them must list the node's value (a node without the label has "").
 */
static bool zones_fit(const struct sched_vol *v, const struct vol_task *vt,
		      const struct sched_ssn_node *n)
{
	const json_t *labels = n->n->labels;
	uint32_t i;
	size_t k;

	for (k = 0; k < VC_ARRAY_SIZE(zone_keys); k++)
		if (json_object_get(labels, zone_keys[k]))
			break;
	if (k == VC_ARRAY_SIZE(zone_keys))
		return true;
	for (i = 0; i < vt->n; i++) {
		const struct vol_claim *c = &v->claims[vt->first + i];
		const json_t *pvl;

		if (c->state != CLAIM_BOUND || c->pv == SCHED_NONE)
			continue;
		pvl = vc_json_get_obj(vc_json_get_obj(v->pvs[c->pv].obj, "metadata"), "labels");
		for (k = 0; k < VC_ARRAY_SIZE(zone_keys); k++) {
			const char *have = vc_json_get_str(pvl, zone_keys[k]);
			const char *node = vc_json_get_str(labels, zone_keys[k]);

			if (have && !zones_have(have, node ? node : ""))
				return false;
		}
	}
	return true;
}

int sched_vol_filter(struct sched_vol *v, const struct sched_ssn_task *t,
		     const struct sched_ssn_node *n, struct pred_result *out, bool *unresolvable)
{
	const struct vol_task *vt = &v->tasks[t->index];
	const char *reason;
	char *text;
	bool ok;
	int rc;

	out->fit = true;
	out->reason[0] = '\0';
	if (vt->error) {
		fail(out, vt->error);
		*unresolvable = true;
		return 0;
	}
	if (vt->n == 0)
		return 0;
	if (v->limits) {
		if ((rc = check_limits(v, t, n, &ok)) < 0)
			return rc;
		if (!ok) {
			fail(out, SCHED_VOL_MAX_COUNT);
			return 0;
		}
	}
	if (!zones_fit(v, vt, n)) {
		fail(out, SCHED_VOL_ZONE_CONFLICT);
		*unresolvable = true;
		return 0;
	}
	if ((rc = find_volumes(v, t->index, n, &reason, &text)) < 0)
		return rc;
	if (text || reason) {
		fail(out, text ? text : reason);
		*unresolvable = true;
	}
	vc_free(text);
	return 0;
}

/* ---- reservations and plans -------------------------------------------------------------- */

static void release(struct sched_vol *v, uint32_t ti)
{
	struct vol_task *vt = &v->tasks[ti];
	uint32_t i;

	for (i = 0; i < vt->n; i++) {
		struct vol_claim *c = &v->claims[vt->first + i];

		if (c->state != CLAIM_DELAY || c->pv == SCHED_NONE)
			continue;
		if (v->pvs[c->pv].owner == ti) {
			v->pvs[c->pv].owner = SCHED_NONE;
			v->pvs[c->pv].claim = NULL;
		}
		c->pv = SCHED_NONE;
	}
	vt->reserved = false;
}

void sched_vol_update(struct sched_vol *v, const struct sched_ssn_task *t, bool allocate)
{
	struct vol_task *vt = &v->tasks[t->index];
	const char *reason;
	char *text = NULL;
	uint32_t i, k;

	if (vt->n == 0 || vt->error)
		return;
	if (!allocate) {
		if (vt->reserved)
			release(v, t->index);
		return;
	}
	if (vt->reserved || t->node == SCHED_NONE ||
	    (t->t->status != SCHED_TASK_ALLOCATED && t->t->status != SCHED_TASK_PIPELINED))
		return;
	/* Out of memory, or the node cannot satisfy the claims (no predicates plugin): the plan
	 * will hold the pod. */
	if (find_volumes(v, t->index, &v->ssn->nodes[t->node], &reason, &text) < 0 || text ||
	    reason) {
		vc_free(text);
		return;
	}
	for (i = 0, k = 0; i < vt->n; i++) {
		struct vol_claim *c = &v->claims[vt->first + i];
		uint32_t pv;

		if (c->state != CLAIM_DELAY)
			continue;
		pv = v->chosen[k++];
		c->pv = pv;
		if (pv != SCHED_NONE && v->pvs[pv].owner == SCHED_NONE) {
			v->pvs[pv].owner = t->index;
			v->pvs[pv].claim = c;
		}
	}
	vt->reserved = true;
}

/* Out of memory: a plan that holds the pod (sched_vol_plan_free knows it). */
static struct sched_vol_plan oom_plan = { .wait = true, .n = 0 };

void sched_vol_plan_free(struct sched_vol_plan *p)
{
	size_t i;

	if (!p || p == &oom_plan)
		return;
	for (i = 0; i < p->n; i++) {
		json_decref(p->w[i].pv);
		json_decref(p->w[i].pvc);
	}
	vc_free(p);
}

struct sched_vol_plan *sched_vol_plan_of(struct sched_vol *v, const struct sched_ssn_task *t)
{
	const struct vol_task *vt = &v->tasks[t->index];
	const char *node = t->node != SCHED_NONE ? v->ssn->nodes[t->node].n->name : NULL;
	struct sched_vol_plan *p;
	uint32_t i;

	if (vt->n == 0 && !vt->error)
		return NULL;
	if (vt->error || !vt->reserved || !node)
		return &oom_plan;
	for (i = 0; i < vt->n && v->claims[vt->first + i].state == CLAIM_BOUND; i++)
		;
	if (i == vt->n)
		return NULL; /* every claim is bound: nothing to write, nothing to wait for */
	p = vc_calloc(1, sizeof(*p) + vt->n * sizeof(p->w[0]));
	if (!p)
		return &oom_plan;
	p->wait = true;
	for (i = 0; i < vt->n; i++) {
		const struct vol_claim *c = &v->claims[vt->first + i];
		struct sched_vol_write *w = &p->w[p->n];

		if (c->state != CLAIM_DELAY)
			continue;
		if (c->pv != SCHED_NONE) {
			const json_t *pv = v->pvs[c->pv].obj;

			/* GetBindVolumeToClaim's dirty check: a PV whose claimRef already names the
			 * claim with its uid needs no write. */
			if (bound_to_claim(pv, c->pvc) &&
			    vc_str_eq(json_string_value(vc_json_path(pv, "spec.claimRef.uid")),
				      meta_str(c->pvc, "uid")))
				continue;
			w->pv = json_incref((json_t *)pv);
		} else if (vc_str_eq(c->selected, node)) {
			continue;
		}
		w->pvc = json_incref((json_t *)c->pvc);
		p->n++;
	}
	return p;
}

/* ---- the binder's request bodies --------------------------------------------------------- */

static int set_annotation(json_t *obj, const char *key, const char *value)
{
	json_t *meta = json_object_get(obj, "metadata"), *ann;

	if (!json_is_object(meta))
		return VC_EINVAL;
	ann = json_object_get(meta, "annotations");
	if (!json_is_object(ann)) {
		ann = json_object();
		if (!ann || json_object_set_new(meta, "annotations", ann))
			return VC_ENOMEM;
	}
	return json_object_set_new(ann, key, json_string(value)) ? VC_ENOMEM : 0;
}

json_t *sched_vol_prebound_pv(const json_t *pv, const json_t *pvc)
{
	json_t *out = json_deep_copy(pv), *spec, *ref;
	bool was_bound = bound_to_claim(pv, pvc);

	spec = out ? json_object_get(out, "spec") : NULL;
	if (!json_is_object(spec))
		goto fail;
	ref = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "kind", "PersistentVolumeClaim",
			"namespace", meta_str(pvc, "namespace") ? meta_str(pvc, "namespace") : "",
			"name", meta_str(pvc, "name") ? meta_str(pvc, "name") : "", "uid",
			meta_str(pvc, "uid") ? meta_str(pvc, "uid") : "", "apiVersion", "v1",
			"resourceVersion",
			meta_str(pvc, "resourceVersion") ? meta_str(pvc, "resourceVersion") : "");
	if (!ref || json_object_set_new(spec, "claimRef", ref))
		goto fail;
	if (!was_bound && !has_annotation(out, SCHED_ANN_BOUND_BY_CONTROLLER) &&
	    set_annotation(out, SCHED_ANN_BOUND_BY_CONTROLLER, "yes") < 0)
		goto fail;
	return out;
fail:
	json_decref(out);
	return NULL;
}

json_t *sched_vol_selected_pvc(const json_t *pvc, const char *node)
{
	json_t *out = json_deep_copy(pvc);

	if (!out || set_annotation(out, SCHED_ANN_SELECTED_NODE, node) < 0) {
		json_decref(out);
		return NULL;
	}
	return out;
}
