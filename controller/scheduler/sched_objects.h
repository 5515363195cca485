/*
 * sched_objects.h - the cluster objects besides pods, nodes, PodGroups and queues that Kubernetes'
 * placement rules read: namespaces (their labels, for the namespaceSelector of pod affinity terms)
 * and the Services, ReplicationControllers, ReplicaSets and StatefulSets whose selectors make the
 * selector of the system default topology spread constraints (docs/volcano/scheduler.md §4.8).
 *
 * The runtime points the snapshot at the informer caches (sched_snapshot.objs); unit tests fill
 * caches of their own. Every cache may be NULL (not watched): it then holds nothing. Reads go to
 * the caches while a session runs, as Volcano's listers do; cached objects are never changed.
 */
#ifndef SCHED_OBJECTS_H
#define SCHED_OBJECTS_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_cache.h"

/* The caches' namespace index (controller/ctx.h's CTX_INDEX_NAMESPACE). */
#define SCHED_OBJECTS_NS_INDEX "namespace"

struct sched_objects {
	struct vc_cache *namespaces; /* keyed by name */
	/* Indexed by SCHED_OBJECTS_NS_INDEX. */
	struct vc_cache *services, *rcs, *replicasets, *statefulsets;
};

/* The labels of namespace ns as a new reference (NULL: no such namespace, or no labels). */
json_t *sched_objects_ns_labels(const struct sched_objects *o, const char *ns);

/*
 * Kubernetes' helper.DefaultSelector for a pod of namespace ns with labels and ownerReferences
 * owners (borrowed, either may be NULL): the
 * selectors of the Services of ns that select the pod's labels, merged, then the selector of its
 * controlling ReplicationController (merged) or ReplicaSet / StatefulSet (its requirements added).
 * *out is a new metav1.LabelSelector object (matchLabels, matchExpressions), or NULL when that
 * selector has no requirement (Kubernetes then applies no default constraint). The common case,
 * no Service in ns and no such controller, reads no object. 0 or VC_ENOMEM.
 */
int sched_objects_default_selector(const struct sched_objects *o, const char *ns,
				   const json_t *labels, const json_t *owners,
				   json_t **out) VC_WARN_UNUSED;

/*
 * Whether a pod's ownerReferences (borrowed, may be NULL) name a controller (controller: true)
 * that DefaultSelector reads: a v1 ReplicationController, an apps/v1 ReplicaSet or StatefulSet.
 * The owner reference (borrowed) in *ref when ref is not NULL.
 */
bool sched_objects_selecting_owner(const json_t *owners, const json_t **ref);

#endif /* SCHED_OBJECTS_H */
