/*
 * Unit tests for volumes in scheduling (docs/volcano/scheduler.md §4.7, §1.6; sched_volume.c):
 * VolumeBinding's filter, the session's PV reservations, the binder's plans and request bodies,
 * VolumeZone and NodeVolumeLimits, driven through the session on Kubernetes' documented examples
 * (the "Persistent Volumes" and "Storage Classes" pages: a local PV with node affinity, the
 * local-storage class with WaitForFirstConsumer and no provisioner, allowedTopologies; and
 * pkg/controller/volume/scheduling's tests: smallest fit, pre-bound PVs, selected-node).
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "scheduler/sched_internal.h"
#include "scheduler/sched_session.h"
#include "scheduler/sched_volume.h"
#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_model.h"

#include "support/sched_fixture.h"

#define HOST(n) "{\"kubernetes.io/hostname\":\"" n "\"}"
#define ZONE(z, n) \
	"{\"topology.kubernetes.io/zone\":\"" z "\",\"kubernetes.io/hostname\":\"" n "\"}"
/* A pod spec member list: volumes naming claim c (and, with two, d). */
#define VOL(c) \
	"\"volumes\":[{\"name\":\"data\",\"persistentVolumeClaim\":{\"claimName\":\"" c "\"}}]"
#define VOL2(c, d)                                                                           \
	"\"volumes\":[{\"name\":\"a\",\"persistentVolumeClaim\":{\"claimName\":\"" c "\"}}," \
	"{\"name\":\"b\",\"persistentVolumeClaim\":{\"claimName\":\"" d "\"}}]"
/* A PV's node affinity to one hostname. */
#define ON(n)                                                                                     \
	"\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":" \
	"\"kubernetes.io/hostname\",\"operator\":\"In\",\"values\":[\"" n "\"]}]}]}}"

static const char conf_preds[] = "actions: \"\"\ntiers:\n- plugins:\n  - name: predicates\n";
static const char conf_allocate[] = "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gang\n"
				    "  - name: predicates\n  - name: nodeorder\n";

/* The volume objects of a test, in a catalog the snapshot borrows. */
struct vols {
	struct sched_vol_catalog *cat;
};

static void vols_init(struct vols *v, struct sched_fx *f)
{
	v->cat = sched_vol_catalog_new();
	assert_non_null(v->cat);
	f->snap.volumes = v->cat;
}

static void add(struct vols *v, enum sched_vol_kind kind, const char *text)
{
	json_error_t jerr;
	json_t *obj = json_loads(text, 0, &jerr);

	if (!obj)
		fail_msg("json: %s: %s", jerr.text, text);
	assert_int_equal(sched_vol_catalog_add(v->cat, kind, obj), 0);
	json_decref(obj);
}

/* The Kubernetes docs' local-storage class: no provisioner, WaitForFirstConsumer. */
static void local_storage(struct vols *v)
{
	add(v, SCHED_VOL_CLASS,
	    "{\"metadata\":{\"name\":\"local-storage\"},\"provisioner\":"
	    "\"kubernetes.io/no-provisioner\",\"volumeBindingMode\":\"WaitForFirstConsumer\"}");
}

/* A PV of class, capacity and phase with extra spec members (", " ON(...) or ""). */
static void pv(struct vols *v, const char *name, const char *class, const char *cap,
	       const char *phase, const char *extra)
{
	char text[2048];

	snprintf(
		text, sizeof(text),
		"{\"metadata\":{\"name\":\"%s\",\"resourceVersion\":\"5\"},\"spec\":{\"capacity\":"
		"{\"storage\":\"%s\"},\"accessModes\":[\"ReadWriteOnce\"],\"storageClassName\":"
		"\"%s\",\"local\":{\"path\":\"/mnt/disks/ssd1\"}%s%s},\"status\":{\"phase\":\"%s\"}}",
		name, cap, class, extra[0] ? "," : "", extra, phase);
	add(v, SCHED_VOL_PV, text);
}

/* A claim ns/name of class asking req; bound to volume when not NULL (the PV controller done). */
static void pvc(struct vols *v, const char *name, const char *class, const char *req,
		const char *volume, const char *annotations)
{
	char text[2048], cls[128] = "", vol[256] = "";

	if (class)
		snprintf(cls, sizeof(cls), ",\"storageClassName\":\"%s\"", class);
	if (volume)
		snprintf(vol, sizeof(vol), ",\"volumeName\":\"%s\"", volume);
	snprintf(text, sizeof(text),
		 "{\"metadata\":{\"namespace\":\"ns\",\"name\":\"%s\",\"uid\":\"uid-%s\","
		 "\"resourceVersion\":\"7\",\"annotations\":%s},\"spec\":{\"accessModes\":"
		 "[\"ReadWriteOnce\"],\"resources\":{\"requests\":{\"storage\":\"%s\"}}%s%s}}",
		 name, name,
		 annotations ? annotations
			     : (volume ? "{\"" SCHED_ANN_BIND_COMPLETED "\":\"yes\"}" : "{}"),
		 req, cls, vol);
	add(v, SCHED_VOL_PVC, text);
}

struct ssn {
	struct sched_conf conf;
	struct sched_result res;
	struct sched_session s;
	struct vc_buf text;
};

static void open_ssn(struct ssn *x, struct sched_fx *f, const char *conf)
{
	struct vc_error err;

	memset(x, 0, sizeof(*x));
	vc_buf_init(&x->text, 4096);
	vc_error_clear(&err);
	if (sched_conf_parse(conf, strlen(conf), &x->conf, &err) != 0)
		fail_msg("conf: %s", err.text);
	if (sched_session_begin(&x->s, &x->conf, &f->snap, "uid-1", "2026-01-01T00:00:00Z", 7,
				&x->res, &err) != 0)
		fail_msg("open: %s", err.text);
}

static void close_ssn(struct ssn *x)
{
	sched_session_end(&x->s);
	sched_result_release(&x->res);
	sched_conf_release(&x->conf);
	vc_buf_release(&x->text);
}

/* The allocate search for t: the feasible nodes in node order ("n1,n3"), or its fit error. */
static const char *search(struct ssn *x, const struct sched_task_info *t)
{
	struct sched_ssn_task *st = sched_ssn_task_of(&x->s, t);
	uint32_t nodes[SCHED_FX_MAX];
	size_t n, i, k;

	assert_non_null(st);
	x->s.priv->node_offset = 0;
	vc_buf_reset(&x->text);
	assert_int_equal(sched_predicate_nodes(&x->s, st, SCHED_SEARCH_ALLOCATE, false, &n), 0);
	if (n == 0) {
		assert_int_equal(sched_fit_format(&x->s, st->fit, &x->text), 0);
		return vc_buf_str(&x->text);
	}
	memcpy(nodes, x->s.priv->feasible, n * sizeof(*nodes));
	for (i = 1; i < n; i++)
		for (k = i; k > 0 && nodes[k - 1] > nodes[k]; k--) {
			uint32_t tmp = nodes[k];

			nodes[k] = nodes[k - 1];
			nodes[k - 1] = tmp;
		}
	for (i = 0; i < n; i++)
		assert_int_equal(
			vc_buf_addf(&x->text, "%s%s", i ? "," : "", x->s.nodes[nodes[i]].n->name),
			0);
	return vc_buf_str(&x->text);
}

static void run(struct sched_fx *f, const char *conf, struct sched_result *res)
{
	struct sched_conf c;
	struct vc_error err;

	vc_error_clear(&err);
	assert_int_equal(sched_conf_parse(conf, strlen(conf), &c, &err), 0);
	if (sched_session_run(&c, &f->snap, "uid-1", "2026-01-01T00:00:00Z", 7, res, &err) != 0)
		fail_msg("run: %s", err.text);
	sched_conf_release(&c);
}

static const struct sched_bind *bind_of(const struct sched_result *r,
					const struct sched_task_info *t)
{
	size_t i;

	for (i = 0; i < r->nbinds; i++)
		if (r->binds[i].task == t)
			return &r->binds[i];
	return NULL;
}

static const char *condition(const struct sched_result *r, const struct sched_task_info *t)
{
	size_t i;

	for (i = 0; i < r->ntasks; i++)
		if (r->tasks[i].task == t)
			return r->tasks[i].message;
	return "";
}

static const char *name_of(const json_t *obj)
{
	return json_string_value(vc_json_path(obj, "metadata.name"));
}

/* ---- bound claims ------------------------------------------------------------------------ */

/*
 * The docs' local PV: node affinity to one hostname. A pod whose claim is bound to it goes only
 * there; to a PV of a node not in the cluster, nowhere, with Kubernetes' reason.
 */
static void test_bound_pv_node_affinity(void **state)
{
	struct sched_fx f;
	struct vols v;
	struct sched_job_info *j;
	struct sched_task_info *t, *u;
	struct ssn x;

	(void)state;
	sched_fx_init(&f);
	vols_init(&v, &f);
	sched_fx_node(&f, "n1", HOST("n1"));
	sched_fx_node(&f, "n2", HOST("n2"));
	sched_fx_node(&f, "n3", HOST("n3"));
	local_storage(&v);
	pv(&v, "example-pv", "local-storage", "100Gi", "Bound", ON("n2"));
	pv(&v, "gone-pv", "local-storage", "100Gi", "Bound", ON("n9"));
	pvc(&v, "data", "local-storage", "10Gi", "example-pv", NULL);
	pvc(&v, "old", "local-storage", "10Gi", "gone-pv", NULL);
	j = sched_fx_job(&f, "ns", "j", 1);
	t = sched_fx_pod(&f, j, "p", "{}", VOL("data"), NULL);
	u = sched_fx_pod(&f, j, "q", "{}", VOL("old"), NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, conf_preds);
	assert_string_equal(search(&x, t), "n2");
	assert_string_equal(search(&x, u), "0/3 nodes are unavailable: 3 node(s) had volume node "
					   "affinity conflict.");
	close_ssn(&x);
	sched_fx_release(&f);
	sched_vol_catalog_free(v.cat);
}

/* VolumeBinding's PreFilter: a missing claim, a claim bound to a missing PV, unbound immediate. */
static void test_prefilter_errors(void **state)
{
	struct sched_fx f;
	struct vols v;
	struct sched_job_info *j;
	struct sched_task_info *t[4];
	struct ssn x;

	(void)state;
	sched_fx_init(&f);
	vols_init(&v, &f);
	sched_fx_node(&f, "n1", HOST("n1"));
	sched_fx_node(&f, "n2", HOST("n2"));
	add(&v, SCHED_VOL_CLASS,
	    "{\"metadata\":{\"name\":\"standard\"},\"provisioner\":\"csi.example.com\","
	    "\"volumeBindingMode\":\"Immediate\"}");
	pvc(&v, "lost", "standard", "1Gi", "no-such-pv", NULL);
	pvc(&v, "waiting", "standard", "1Gi", NULL, NULL);
	pvc(&v, "classless", NULL, "1Gi", NULL, NULL);
	j = sched_fx_job(&f, "ns", "j", 1);
	t[0] = sched_fx_pod(&f, j, "a", "{}", VOL("nope"), NULL);
	t[1] = sched_fx_pod(&f, j, "b", "{}", VOL("lost"), NULL);
	t[2] = sched_fx_pod(&f, j, "c", "{}", VOL("waiting"), NULL);
	t[3] = sched_fx_pod(&f, j, "d", "{}", VOL("classless"), NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, conf_preds);
	assert_string_equal(search(&x, t[0]), "0/2 nodes are unavailable: 2 persistentvolumeclaim "
					      "\"nope\" not found.");
	assert_string_equal(search(&x, t[1]), "0/2 nodes are unavailable: 2 pvc(s) bound to "
					      "non-existent pv(s).");
	assert_string_equal(search(&x, t[2]), "0/2 nodes are unavailable: 2 pod has unbound "
					      "immediate PersistentVolumeClaims.");
	assert_string_equal(search(&x, t[3]), "0/2 nodes are unavailable: 2 pod has unbound "
					      "immediate PersistentVolumeClaims.");
	close_ssn(&x);
	sched_fx_release(&f);
	sched_vol_catalog_free(v.cat);
}

/* ---- WaitForFirstConsumer, static PVs ---------------------------------------------------- */

/*
 * findMatchingVolume: on each node the smallest Available PV of the claim's class with enough
 * capacity, the access modes and the node affinity; PVs of another class, too small, not
 * Available or claimed by another claim do not count. The bind's plan pre-binds the one of the
 * chosen node, and the pod waits for the PV controller.
 */
static void test_wffc_static_smallest_fit(void **state)
{
	struct sched_fx f;
	struct vols v;
	struct sched_job_info *j;
	struct sched_task_info *t;
	struct sched_result res;
	const struct sched_bind *b;
	json_t *body;

	(void)state;
	sched_fx_init(&f);
	vols_init(&v, &f);
	sched_fx_node(&f, "n1", HOST("n1"));
	sched_fx_node(&f, "n2", HOST("n2"));
	sched_fx_node(&f, "n3", HOST("n3"));
	local_storage(&v);
	pv(&v, "big", "local-storage", "100Gi", "Available", ON("n1"));
	pv(&v, "small", "local-storage", "10Gi", "Available", ON("n1"));
	pv(&v, "tiny", "local-storage", "1Gi", "Available", ON("n2"));
	pv(&v, "other-class", "slow", "10Gi", "Available", ON("n2"));
	pv(&v, "pending", "local-storage", "10Gi", "Pending", ON("n2"));
	pv(&v, "taken", "local-storage", "10Gi", "Available",
	   ON("n3") ",\"claimRef\":{\"namespace\":\"ns\",\"name\":\"someone-else\"}");
	pvc(&v, "data", "local-storage", "5Gi", NULL, NULL);
	j = sched_fx_job(&f, "ns", "j", 1);
	t = sched_fx_pod(&f, j, "p", "{}", VOL("data"), NULL);
	sched_fx_place(&f);
	run(&f, conf_allocate, &res);
	b = bind_of(&res, t);
	assert_non_null(b);
	assert_string_equal(b->node, "n1");
	assert_non_null(b->vols);
	assert_true(b->vols->wait);
	assert_int_equal(b->vols->n, 1);
	assert_string_equal(name_of(b->vols->w[0].pv), "small");
	assert_string_equal(name_of(b->vols->w[0].pvc), "data");
	/* kube's GetBindVolumeToClaim: claimRef to the claim, bound-by-controller. */
	body = sched_vol_prebound_pv(b->vols->w[0].pv, b->vols->w[0].pvc);
	assert_non_null(body);
	assert_string_equal(json_string_value(vc_json_path(body, "spec.claimRef.kind")),
			    "PersistentVolumeClaim");
	assert_string_equal(json_string_value(vc_json_path(body, "spec.claimRef.namespace")), "ns");
	assert_string_equal(json_string_value(vc_json_path(body, "spec.claimRef.name")), "data");
	assert_string_equal(json_string_value(vc_json_path(body, "spec.claimRef.uid")), "uid-data");
	assert_string_equal(json_string_value(vc_json_path(body, "spec.claimRef.apiVersion")),
			    "v1");
	assert_string_equal(
		json_string_value(json_object_get(vc_json_path(body, "metadata.annotations"),
						  SCHED_ANN_BOUND_BY_CONTROLLER)),
		"yes");
	assert_string_equal(json_string_value(vc_json_path(body, "metadata.resourceVersion")), "5");
	/* The cached PV is not changed. */
	assert_null(vc_json_path(b->vols->w[0].pv, "spec.claimRef"));
	json_decref(body);
	sched_result_release(&res);
	sched_fx_release(&f);
	sched_vol_catalog_free(v.cat);
}

/*
 * Two claims cannot take one PV in a session: the first pod placed reserves it, the second finds
 * nothing to bind. Two claims of one pod take two PVs. A PV the binder pre-bound to a claim in
 * an earlier cycle (claimRef with the claim's uid) is found again, where its node affinity
 * allows, and needs no write.
 */
static void test_wffc_static_reservation(void **state)
{
	struct sched_fx f;
	struct vols v;
	struct sched_job_info *j1, *j2, *j3;
	struct sched_task_info *a, *b, *c;
	struct sched_result res;
	const struct sched_bind *ba, *bc;

	(void)state;
	sched_fx_init(&f);
	vols_init(&v, &f);
	sched_fx_node(&f, "n1", HOST("n1"));
	sched_fx_node(&f, "n2", HOST("n2"));
	local_storage(&v);
	pv(&v, "only", "local-storage", "10Gi", "Available", ON("n1"));
	pv(&v, "x1", "local-storage", "10Gi", "Available", ON("n2"));
	pv(&v, "x2", "local-storage", "20Gi", "Available", ON("n2"));
	pv(&v, "pre", "local-storage", "10Gi", "Available",
	   ON("n2") ",\"claimRef\":{\"namespace\":\"ns\",\"name\":\"c3\",\"uid\":\"uid-c3\"}");
	pvc(&v, "c1", "local-storage", "10Gi", NULL, NULL);
	pvc(&v, "c2", "local-storage", "10Gi", NULL, NULL);
	pvc(&v, "c3", "local-storage", "10Gi", NULL, NULL);
	pvc(&v, "c4", "local-storage", "15Gi", NULL, NULL);
	j1 = sched_fx_job(&f, "ns", "j1", 1);
	j2 = sched_fx_job(&f, "ns", "j2", 1);
	j3 = sched_fx_job(&f, "ns", "j3", 1);
	a = sched_fx_pod(&f, j1, "a", "{}", VOL("c1") ",\"nodeSelector\":" HOST("n1"), NULL);
	b = sched_fx_pod(&f, j2, "b", "{}", VOL("c2") ",\"nodeSelector\":" HOST("n1"), NULL);
	c = sched_fx_pod(&f, j3, "c", "{}", VOL2("c3", "c4"), NULL);
	sched_fx_place(&f);
	run(&f, conf_allocate, &res);
	ba = bind_of(&res, a);
	assert_non_null(ba);
	assert_string_equal(name_of(ba->vols->w[0].pv), "only");
	assert_null(bind_of(&res, b));
	assert_string_equal(
		condition(&res, b),
		"0/2 nodes are unavailable: 1 node(s) didn't find available persistent "
		"volumes to bind, 1 node(s) didn't match Pod's node affinity/selector.");
	bc = bind_of(&res, c);
	assert_non_null(bc);
	assert_string_equal(bc->node, "n2");
	/* c3 keeps its pre-bound PV (no write); c4 (15Gi) takes x2, the only one big enough. */
	assert_true(bc->vols->wait);
	assert_int_equal(bc->vols->n, 1);
	assert_string_equal(name_of(bc->vols->w[0].pv), "x2");
	assert_string_equal(name_of(bc->vols->w[0].pvc), "c4");
	sched_result_release(&res);
	sched_fx_release(&f);
	sched_vol_catalog_free(v.cat);
}

/* ---- WaitForFirstConsumer, dynamic provisioning ------------------------------------------ */

/*
 * No PV fits: a class with a provisioner provisions on any node its allowedTopologies admit (the
 * docs' example: zones); the plan writes the claim's selected-node. A claim that already has a
 * selected node (the binder wrote it in an earlier cycle) admits only that node (of those the
 * class allows), with nothing to write; the pod still waits for the provisioner.
 */
static void test_wffc_dynamic(void **state)
{
	struct sched_fx f;
	struct vols v;
	struct sched_job_info *j1, *j2;
	struct sched_task_info *t, *u;
	struct sched_result res;
	const struct sched_bind *b;
	struct ssn x;
	json_t *body;

	(void)state;
	sched_fx_init(&f);
	vols_init(&v, &f);
	sched_fx_node(&f, "a1", ZONE("a", "a1"));
	sched_fx_node(&f, "a2", ZONE("a", "a2"));
	sched_fx_node(&f, "b1", ZONE("b", "b1"));
	add(&v, SCHED_VOL_CLASS,
	    "{\"metadata\":{\"name\":\"fast\"},\"provisioner\":\"csi.example.com\","
	    "\"volumeBindingMode\":\"WaitForFirstConsumer\",\"allowedTopologies\":[{"
	    "\"matchLabelExpressions\":[{\"key\":\"topology.kubernetes.io/zone\",\"values\":"
	    "[\"b\"]}]}]}");
	add(&v, SCHED_VOL_CLASS,
	    "{\"metadata\":{\"name\":\"anywhere\"},\"provisioner\":\"csi.example.com\","
	    "\"volumeBindingMode\":\"WaitForFirstConsumer\"}");
	pvc(&v, "d1", "fast", "1Gi", NULL, NULL);
	pvc(&v, "d2", "anywhere", "1Gi", NULL, "{\"" SCHED_ANN_SELECTED_NODE "\":\"a2\"}");
	j1 = sched_fx_job(&f, "ns", "j1", 1);
	j2 = sched_fx_job(&f, "ns", "j2", 1);
	t = sched_fx_pod(&f, j1, "p", "{}", VOL("d1"), NULL);
	u = sched_fx_pod(&f, j2, "q", "{}", VOL("d2"), NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, conf_preds);
	assert_string_equal(search(&x, t), "b1");
	assert_string_equal(search(&x, u), "a2");
	close_ssn(&x);
	run(&f, conf_allocate, &res);
	b = bind_of(&res, t);
	assert_non_null(b);
	assert_string_equal(b->node, "b1");
	assert_true(b->vols->wait);
	assert_int_equal(b->vols->n, 1);
	assert_null(b->vols->w[0].pv);
	body = sched_vol_selected_pvc(b->vols->w[0].pvc, b->node);
	assert_non_null(body);
	assert_string_equal(
		json_string_value(json_object_get(vc_json_path(body, "metadata.annotations"),
						  SCHED_ANN_SELECTED_NODE)),
		"b1");
	assert_string_equal(json_string_value(vc_json_path(body, "metadata.resourceVersion")), "7");
	json_decref(body);
	b = bind_of(&res, u);
	assert_non_null(b);
	assert_string_equal(b->node, "a2");
	assert_true(b->vols->wait);
	assert_int_equal(b->vols->n, 0);
	sched_result_release(&res);
	sched_fx_release(&f);
	sched_vol_catalog_free(v.cat);
}

/* Once the provisioner (or the PV controller) bound the claim, the pod binds with no plan. */
static void test_bound_claim_no_plan(void **state)
{
	struct sched_fx f;
	struct vols v;
	struct sched_job_info *j;
	struct sched_task_info *t;
	struct sched_result res;
	const struct sched_bind *b;

	(void)state;
	sched_fx_init(&f);
	vols_init(&v, &f);
	sched_fx_node(&f, "n1", HOST("n1"));
	sched_fx_node(&f, "n2", HOST("n2"));
	local_storage(&v);
	pv(&v, "pv1", "local-storage", "10Gi", "Bound", ON("n2"));
	pvc(&v, "data", "local-storage", "10Gi", "pv1", NULL);
	j = sched_fx_job(&f, "ns", "j", 1);
	t = sched_fx_pod(&f, j, "p", "{}", VOL("data"), NULL);
	sched_fx_place(&f);
	run(&f, conf_allocate, &res);
	b = bind_of(&res, t);
	assert_non_null(b);
	assert_string_equal(b->node, "n2");
	assert_null(b->vols);
	sched_result_release(&res);
	sched_fx_release(&f);
	sched_vol_catalog_free(v.cat);
}

/* ---- gangs ------------------------------------------------------------------------------- */

/*
 * A gang of two whose second member's claim cannot be satisfied anywhere binds nobody, and the
 * PV its first member would have taken is free again for another job of the same cycle.
 */
static void test_gang_all_or_nothing(void **state)
{
	struct sched_fx f;
	struct vols v;
	struct sched_job_info *g, *o;
	struct sched_task_info *a, *b, *c;
	struct sched_result res;

	(void)state;
	sched_fx_init(&f);
	vols_init(&v, &f);
	sched_fx_node(&f, "n1", HOST("n1"));
	sched_fx_node(&f, "n2", HOST("n2"));
	local_storage(&v);
	pv(&v, "pv1", "local-storage", "10Gi", "Available", ON("n1"));
	pvc(&v, "ga", "local-storage", "10Gi", NULL, NULL);
	pvc(&v, "gb", "local-storage", "10Gi", NULL, NULL);
	pvc(&v, "oc", "local-storage", "10Gi", NULL, NULL);
	g = sched_fx_job(&f, "ns", "gang", 2);
	o = sched_fx_job(&f, "ns", "other", 1);
	a = sched_fx_pod(&f, g, "g-0", "{}", VOL("ga"), NULL);
	b = sched_fx_pod(&f, g, "g-1", "{}", VOL("gb"), NULL);
	c = sched_fx_pod(&f, o, "o-0", "{}", VOL("oc"), NULL);
	sched_fx_place(&f);
	run(&f, conf_allocate, &res);
	assert_null(bind_of(&res, a));
	assert_null(bind_of(&res, b));
	assert_non_null(bind_of(&res, c));
	assert_string_equal(bind_of(&res, c)->node, "n1");
	assert_string_equal(name_of(bind_of(&res, c)->vols->w[0].pv), "pv1");
	sched_result_release(&res);
	sched_fx_release(&f);
	sched_vol_catalog_free(v.cat);
}

/* ---- NodeVolumeLimits -------------------------------------------------------------------- */

/*
 * CSILimits: a CSINode reporting allocatable.count 1 for a driver admits no second volume of
 * that driver (a volume already attached for another pod counts once; one the pod shares with
 * it does not count again). Nodes without a CSINode have no limit.
 */
static void test_csi_limits(void **state)
{
	struct sched_fx f;
	struct vols v;
	struct sched_job_info *j;
	struct sched_task_info *t, *u;
	struct ssn x;

	(void)state;
	sched_fx_init(&f);
	vols_init(&v, &f);
	sched_fx_node(&f, "n1", HOST("n1"));
	sched_fx_node(&f, "n2", HOST("n2"));
	add(&v, SCHED_VOL_CLASS,
	    "{\"metadata\":{\"name\":\"csi\"},\"provisioner\":\"csi.example.com\","
	    "\"volumeBindingMode\":\"Immediate\"}");
	add(&v, SCHED_VOL_CSINODE,
	    "{\"metadata\":{\"name\":\"n1\"},\"spec\":{\"drivers\":[{\"name\":\"csi.example.com\","
	    "\"nodeID\":\"n1\",\"allocatable\":{\"count\":1}}]}}");
	pv(&v, "vol-1", "csi", "1Gi", "Bound",
	   "\"csi\":{\"driver\":\"csi.example.com\",\"volumeHandle\":\"h1\"}");
	pv(&v, "vol-2", "csi", "1Gi", "Bound",
	   "\"csi\":{\"driver\":\"csi.example.com\",\"volumeHandle\":\"h2\"}");
	pvc(&v, "c1", "csi", "1Gi", "vol-1", NULL);
	pvc(&v, "c2", "csi", "1Gi", "vol-2", NULL);
	j = sched_fx_job(&f, "ns", "j", 1);
	sched_fx_pod(&f, j, "running", "{}", VOL("c1"), "n1");
	t = sched_fx_pod(&f, j, "new", "{}", VOL("c2"), NULL);
	u = sched_fx_pod(&f, j, "shares", "{}", VOL("c1"), NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, conf_preds);
	assert_string_equal(search(&x, t), "n2");
	assert_string_equal(search(&x, u), "n1,n2");
	close_ssn(&x);
	sched_fx_release(&f);
	sched_vol_catalog_free(v.cat);

	sched_fx_init(&f);
	vols_init(&v, &f);
	sched_fx_node(&f, "n1", HOST("n1"));
	add(&v, SCHED_VOL_CSINODE,
	    "{\"metadata\":{\"name\":\"n1\"},\"spec\":{\"drivers\":[{\"name\":\"csi.example.com\","
	    "\"nodeID\":\"n1\",\"allocatable\":{\"count\":1}}]}}");
	pv(&v, "vol-1", "csi", "1Gi", "Bound",
	   "\"csi\":{\"driver\":\"csi.example.com\",\"volumeHandle\":\"h1\"}");
	pv(&v, "vol-2", "csi", "1Gi", "Bound",
	   "\"csi\":{\"driver\":\"csi.example.com\",\"volumeHandle\":\"h2\"}");
	pvc(&v, "c1", "csi", "1Gi", "vol-1", NULL);
	pvc(&v, "c2", "csi", "1Gi", "vol-2", NULL);
	j = sched_fx_job(&f, "ns", "j", 1);
	sched_fx_pod(&f, j, "running", "{}", VOL("c1"), "n1");
	t = sched_fx_pod(&f, j, "new", "{}", VOL("c2"), NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, conf_preds);
	assert_string_equal(search(&x, t),
			    "0/1 nodes are unavailable: 1 node(s) exceed max volume count.");
	close_ssn(&x);
	sched_fx_release(&f);
	sched_vol_catalog_free(v.cat);
}

/* ---- VolumeZone -------------------------------------------------------------------------- */

/*
 * VolumeZone (kube's volume_zone tests): a bound PV labelled topology.kubernetes.io/zone
 * "us-west1-a__us-west1-b" admits nodes of either zone and nodes without zone labels; a node of
 * another zone fails, unresolvably.
 */
static void test_volume_zone(void **state)
{
	struct sched_fx f;
	struct vols v;
	struct sched_job_info *j;
	struct sched_task_info *t;
	struct ssn x;

	(void)state;
	sched_fx_init(&f);
	vols_init(&v, &f);
	sched_fx_node(&f, "a1", ZONE("us-west1-a", "a1"));
	sched_fx_node(&f, "b1", ZONE("us-west1-b", "b1"));
	sched_fx_node(&f, "c1", ZONE("us-west1-c", "c1"));
	sched_fx_node(&f, "x1", HOST("x1"));
	add(&v, SCHED_VOL_PV,
	    "{\"metadata\":{\"name\":\"zonal\",\"labels\":{\"topology.kubernetes.io/zone\":"
	    "\"us-west1-a__us-west1-b\"}},\"spec\":{\"capacity\":{\"storage\":\"1Gi\"}}}");
	pvc(&v, "data", "standard", "1Gi", "zonal", NULL);
	j = sched_fx_job(&f, "ns", "j", 1);
	t = sched_fx_pod(&f, j, "p", "{}", VOL("data"), NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, conf_preds);
	assert_string_equal(search(&x, t), "a1,b1,x1");
	close_ssn(&x);
	sched_fx_release(&f);
	sched_vol_catalog_free(v.cat);

	sched_fx_init(&f);
	vols_init(&v, &f);
	sched_fx_node(&f, "c1", ZONE("us-west1-c", "c1"));
	add(&v, SCHED_VOL_PV,
	    "{\"metadata\":{\"name\":\"zonal\",\"labels\":{\"topology.kubernetes.io/zone\":"
	    "\"us-west1-a\"}},\"spec\":{\"capacity\":{\"storage\":\"1Gi\"}}}");
	pvc(&v, "data", "standard", "1Gi", "zonal", NULL);
	j = sched_fx_job(&f, "ns", "j", 1);
	t = sched_fx_pod(&f, j, "p", "{}", VOL("data"), NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, conf_preds);
	assert_string_equal(search(&x, t),
			    "0/1 nodes are unavailable: 1 node(s) had no available volume zone.");
	close_ssn(&x);
	sched_fx_release(&f);
	sched_vol_catalog_free(v.cat);
}

/* Pods without claims: no volume state, whatever the catalog holds. */
static void test_no_claims_no_state(void **state)
{
	struct sched_fx f;
	struct vols v;
	struct sched_job_info *j;
	struct ssn x;

	(void)state;
	sched_fx_init(&f);
	vols_init(&v, &f);
	sched_fx_node(&f, "n1", HOST("n1"));
	local_storage(&v);
	pvc(&v, "data", "local-storage", "1Gi", NULL, NULL);
	j = sched_fx_job(&f, "ns", "j", 1);
	sched_fx_pod(&f, j, "p", "{}", "\"volumes\":[{\"name\":\"cfg\",\"configMap\":{}}]", NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, conf_preds);
	assert_null(sched_ssn_vol(&x.s));
	close_ssn(&x);
	sched_fx_release(&f);
	sched_vol_catalog_free(v.cat);
}

/* Opening the session unwinds on every allocation failure. */
static void test_alloc_failures(void **state)
{
	struct sched_fx f;
	struct vols v;
	struct sched_job_info *j;
	struct sched_conf c;
	struct sched_result res;
	struct sched_session ssn;
	struct vc_error err;
	int n, rc = VC_ENOMEM;

	(void)state;
	sched_fx_init(&f);
	vols_init(&v, &f);
	sched_fx_node(&f, "n1", HOST("n1"));
	local_storage(&v);
	pv(&v, "pv1", "local-storage", "10Gi", "Available", ON("n1"));
	pvc(&v, "c1", "local-storage", "10Gi", NULL, NULL);
	j = sched_fx_job(&f, "ns", "j", 1);
	sched_fx_pod(&f, j, "p", "{}", VOL("c1"), NULL);
	sched_fx_pod(&f, j, "q", "{}", VOL("missing"), NULL);
	sched_fx_place(&f);
	assert_int_equal(sched_conf_parse(conf_allocate, strlen(conf_allocate), &c, &err), 0);
	for (n = 0; n < 2000; n++) {
		vc_alloc_fail_after(n);
		rc = sched_session_begin(&ssn, &c, &f.snap, "uid", "2026-01-01T00:00:00Z", 1, &res,
					 &err);
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_non_null(sched_ssn_vol(&ssn));
			sched_session_end(&ssn);
			sched_result_release(&res);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
	}
	assert_int_equal(rc, 0);
	assert_true(n > 10);
	sched_conf_release(&c);
	sched_fx_release(&f);
	sched_vol_catalog_free(v.cat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound_pv_node_affinity),
		cmocka_unit_test(test_prefilter_errors),
		cmocka_unit_test(test_wffc_static_smallest_fit),
		cmocka_unit_test(test_wffc_static_reservation),
		cmocka_unit_test(test_wffc_dynamic),
		cmocka_unit_test(test_bound_claim_no_plan),
		cmocka_unit_test(test_gang_all_or_nothing),
		cmocka_unit_test(test_csi_limits),
		cmocka_unit_test(test_volume_zone),
		cmocka_unit_test(test_no_claims_no_state),
		cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
