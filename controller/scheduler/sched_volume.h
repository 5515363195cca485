/*
 * sched_volume.h - a pod's volumes in scheduling (docs/volcano/scheduler.md §4.7, §1.6):
 * Kubernetes' VolumeBinding filter with its volume binder, VolumeZone, and NodeVolumeLimits for
 * CSI drivers that report an attach limit, as kube-scheduler 1.20 applies them.
 *
 * The runtime lists PersistentVolumes, PersistentVolumeClaims, StorageClasses and CSINodes into
 * a catalog (struct sched_vol_catalog) that the snapshot borrows (sched_snapshot.volumes). A
 * session over a snapshot where some pod names a claim opens a struct sched_vol: its filter
 * (asked by the predicates plugin among the filters that are never cached) says whether a node
 * can satisfy every claim of the pod; placing a task reserves the PersistentVolumes its unbound
 * WaitForFirstConsumer claims would take there (another task of the session cannot take them),
 * and dispatching it (the commit of its gang) gives its bind a plan: the writes kube-scheduler's
 * binder makes before the bind (a PV's claimRef, a claim's selected-node annotation), and
 * whether the pod must wait for the claims to be bound by the PV controller or a provisioner.
 * The runtime runs a gang's writes together and binds none of its pods while one of them fails
 * or waits (sched_runtime_vol.c). A session without claims opens nothing: pods without volumes
 * cost nothing.
 */
#ifndef SCHED_VOLUME_H
#define SCHED_VOLUME_H

#include "vc_prelude.h"

#include <jansson.h>

#include "plugins.h"

/* Annotations of kube's PV controller and volume binder (pkg/controller/volume/persistentvolume/
 * util): what the scheduler writes and reads. */
#define SCHED_ANN_SELECTED_NODE	      "volume.kubernetes.io/selected-node"
#define SCHED_ANN_BIND_COMPLETED      "pv.kubernetes.io/bind-completed"
#define SCHED_ANN_BOUND_BY_CONTROLLER "pv.kubernetes.io/bound-by-controller"
#define SCHED_ANN_BETA_STORAGE_CLASS  "volume.beta.kubernetes.io/storage-class"
#define SCHED_NO_PROVISIONER	      "kubernetes.io/no-provisioner"

/* Kubernetes' reasons (VolumeBinding's ConflictReasons, NodeVolumeLimits, PreFilter). */
#define SCHED_VOL_NODE_CONFLICT	    "node(s) had volume node affinity conflict"
#define SCHED_VOL_BIND_CONFLICT	    "node(s) didn't find available persistent volumes to bind"
#define SCHED_VOL_PV_NOT_EXIST	    "pvc(s) bound to non-existent pv(s)"
#define SCHED_VOL_UNBOUND_IMMEDIATE "pod has unbound immediate PersistentVolumeClaims"
#define SCHED_VOL_MAX_COUNT	    "node(s) exceed max volume count"
#define SCHED_VOL_ZONE_CONFLICT	    "node(s) had no available volume zone"

enum sched_vol_kind {
	SCHED_VOL_PV,	   /* PersistentVolume, by name */
	SCHED_VOL_PVC,	   /* PersistentVolumeClaim, by "<ns>/<name>" */
	SCHED_VOL_CLASS,   /* StorageClass, by name */
	SCHED_VOL_CSINODE, /* CSINode, by name (its node's) */
	SCHED_VOL_KINDS,
};

/* The volume objects of one cycle. Not locked: the loop thread builds it, the session reads. */
struct sched_vol_catalog;

/* An empty catalog, or NULL on VC_ENOMEM. */
struct sched_vol_catalog *sched_vol_catalog_new(void);
/*
 * Add an object (borrowed: the catalog takes a reference; cached objects are immutable and so
 * stay what they were). An object without a name is ignored; a second one of the same key
 * replaces the first. 0 or VC_ENOMEM.
 */
int sched_vol_catalog_add(struct sched_vol_catalog *c, enum sched_vol_kind kind,
			  json_t *obj) VC_WARN_UNUSED;
/* The object of kind under key (borrowed), or NULL. */
const json_t *sched_vol_catalog_get(const struct sched_vol_catalog *c, enum sched_vol_kind kind,
				    const char *key);
/* Drop the references and free c. NULL is a no-op. */
void sched_vol_catalog_free(struct sched_vol_catalog *c);

/* ---- what a bind must do first ----------------------------------------------------------- */

/*
 * One write of the volume binder: with pv, pre-bind pv to the claim (spec.claimRef, and
 * pv.kubernetes.io/bound-by-controller when it was not bound to it: kube's
 * GetBindVolumeToClaim); without, ask for provisioning on the bind's node (the claim's
 * volume.kubernetes.io/selected-node annotation).
 */
struct sched_vol_write {
	json_t *pv;  /* new reference (the cached PV), or NULL */
	json_t *pvc; /* new reference (the cached claim) */
};

struct sched_vol_plan {
	/*
	 * Some claim will not be fully bound (spec.volumeName and pv.kubernetes.io/bind-completed)
	 * after the writes: the pod is not bound now; a later cycle places it again once the PV
	 * controller (or the provisioner) has bound the claims.
	 */
	bool wait;
	size_t n;
	struct sched_vol_write w[];
};

/* Free a plan (NULL and the out-of-memory plan included). */
void sched_vol_plan_free(struct sched_vol_plan *p);

/*
 * The PV pre-bound to the claim (a deep copy with spec.claimRef {kind, namespace, name, uid,
 * apiVersion, resourceVersion} and the bound-by-controller annotation when it was not bound
 * to the claim), and the claim with selected-node set to node: the bodies of the binder's PUTs.
 * New references; NULL on VC_ENOMEM. The inputs are borrowed and not changed.
 */
json_t *sched_vol_prebound_pv(const json_t *pv, const json_t *pvc);
json_t *sched_vol_selected_pvc(const json_t *pvc, const char *node);

/* ---- the session's part ------------------------------------------------------------------ */

struct sched_session;
struct sched_ssn_task;
struct sched_ssn_node;
struct sched_vol;

/*
 * Open the volume state of ssn: *out is NULL when the snapshot has no catalog or no task's pod
 * names a claim (persistentVolumeClaim or ephemeral volume). 0 or VC_ENOMEM.
 */
int sched_vol_new(struct sched_session *ssn, struct sched_vol **out) VC_WARN_UNUSED;
/* The session's volume state (sched_vol_new's), or NULL. */
struct sched_vol *sched_ssn_vol(const struct sched_session *ssn);
void sched_vol_free(struct sched_vol *v);

/*
 * Whether node n can satisfy t's claims, kube-scheduler's VolumeBinding PreFilter and Filter:
 * a claim that does not exist (`persistentvolumeclaim "x" not found`) or is being deleted, or
 * an unbound claim whose class is not WaitForFirstConsumer (SCHED_VOL_UNBOUND_IMMEDIATE), fails
 * every node; a bound claim's PV must exist (SCHED_VOL_PV_NOT_EXIST) and its node affinity
 * match (SCHED_VOL_NODE_CONFLICT); each unbound WaitForFirstConsumer claim needs, on the node,
 * an Available PV (or one pre-bound to it) that no other claim of the pod or task of the
 * session took, or dynamic provisioning there (SCHED_VOL_BIND_CONFLICT). Then NodeVolumeLimits:
 * the node's CSINode limit per driver (SCHED_VOL_MAX_COUNT, resolvable); then VolumeZone: on a
 * node with a zone or region label (topology.kubernetes.io/zone, .../region and their
 * failure-domain.beta.kubernetes.io forms), a bound claim's PV labelled with it must list the
 * node's value ("__"-separated) (SCHED_VOL_ZONE_CONFLICT). Checked in the order NodeVolumeLimits,
 * VolumeZone, VolumeBinding (Volcano's); the other failures are unresolvable (preemption does
 * not help). 0 or VC_ENOMEM.
 */
int sched_vol_filter(struct sched_vol *v, const struct sched_ssn_task *t,
		     const struct sched_ssn_node *n, struct pred_result *out,
		     bool *unresolvable) VC_WARN_UNUSED;

/*
 * A task was placed (allocate: reserve, on its node, the PVs its WaitForFirstConsumer claims
 * take) or taken off (release them). Tasks without claims are ignored.
 */
void sched_vol_update(struct sched_vol *v, const struct sched_ssn_task *t, bool allocate);

/*
 * The plan of t's bind (t is placed and its PVs reserved): NULL when t has no claim, else a
 * plan to free with sched_vol_plan_free. Out of memory gives a plan that waits (the pod is
 * then not bound this cycle).
 */
struct sched_vol_plan *sched_vol_plan_of(struct sched_vol *v, const struct sched_ssn_task *t);

#endif /* SCHED_VOLUME_H */
