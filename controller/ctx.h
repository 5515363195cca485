/*
 * ctx.h - what vc-controller's parts share: one API client, one event recorder and one informer
 * per resource (DESIGN.md: one cache, many readers).
 *
 * main.c builds the context, every part (job, queue, podgroup and gc controllers, the scheduler)
 * registers its informer handlers in its *_new(), then main starts the informers, waits for
 * them to sync and calls each part's *_start(). Parts read the caches
 * (vc_informer_cache(ctx->pods), …) from any thread: cached objects are immutable (never modify
 * a json_t you got from a cache; copy it with json_deep_copy first).
 *
 * Informers are created only for the resources some enabled part needs (ctx_opts); a NULL
 * informer means "not watched". Every informer drops metadata.managedFields. The pods informer
 * caches a slim pod (ctx_slim_pod): never PUT a pod built from the cache, PATCH it.
 */
#ifndef VC_CTRL_CTX_H
#define VC_CTRL_CTX_H

#include "vc_prelude.h"

#include "vc_err.h"
#include "vc_events.h"
#include "vc_informer.h"
#include "vc_kube.h"

/* The cache indexes every part may rely on (vc_cache_by_index). */
#define CTX_INDEX_NAMESPACE "namespace" /* pods, podgroups, jobs, pvcs: by metadata.namespace */
#define CTX_INDEX_NODE	    "node"	/* pods: by spec.nodeName ("" when unbound) */
#define CTX_INDEX_GROUP	    "group"	/* pods: by "<ns>/<scheduling.k8s.io/group-name>" */
#define CTX_INDEX_JOB	    "job"	/* pods: by "<ns>/<volcano.sh/job-name>" */
#define CTX_INDEX_QUEUE	    "queue"	/* podgroups: by spec.queue ("default" when empty) */
/* podgroups: by "<queue as CTX_INDEX_QUEUE>/<status.phase>" ("" when absent) */
#define CTX_INDEX_QUEUE_PHASE "queue-phase"

struct ctx_opts {
	bool jobs, pods, podgroups, queues, commands, priorityclasses, pvcs, nodes;
	/* The scheduler's volume objects: PersistentVolumes, StorageClasses, CSINodes. */
	bool pvs, storageclasses, csinodes;
	bool placement; /* namespaces, services, replicationcontrollers, replicasets, statefulsets
			 */
};

struct vc_ctrl_ctx {
	struct vc_kube *kube;	  /* borrowed from main */
	struct vc_events *events; /* borrowed from main; may be NULL in tests */
	struct vc_informer *jobs, *pods, *podgroups, *queues, *commands, *priorityclasses, *pvcs,
		*nodes, *pvs, *storageclasses, *csinodes; /* owned; NULL when not wanted */
	/*
	 * What Kubernetes' placement rules read besides pods and nodes (the scheduler's
	 * sched_objects.h): namespaces' labels and the selectors of services and pod controllers.
	 * Cached slim (ctx_slim_selector); the caches but namespaces' are indexed by namespace.
	 */
	struct vc_informer *namespaces, *services, *rcs, *replicasets, *statefulsets;
};

/*
 * The pods informer's transform: a deep copy of the pod without managedFields and with only the
 * fields the parts read. spec keeps schedulerName, nodeName, nodeSelector, affinity, tolerations,
 * priority, priorityClassName, preemptionPolicy, schedulingGates, overhead, hostname, subdomain,
 * restartPolicy, the volumes that name a claim (persistentVolumeClaim or ephemeral, reduced to
 * name, persistentVolumeClaim and an empty ephemeral) and the containers and init containers
 * reduced to name, resources, ports and restartPolicy; status keeps phase, conditions, reason,
 * startTime, nominatedNodeName and the container statuses reduced to name, ready, restartCount and
 * state (terminated: exitCode and reason). Metadata is kept whole but for managedFields. A
 * transform for vc_informer_opts (an owned obj is reduced in place); arg is unused.
 */
int ctx_slim_pod(void *arg, json_t *obj, bool owned, json_t **out);

/*
 * The transform of the placement informers: apiVersion, kind, metadata reduced to name,
 * namespace, uid, resourceVersion and labels, and spec reduced to selector.
 */
int ctx_slim_selector(void *arg, json_t *obj, bool owned, json_t **out);

/*
 * Create the informers opts asks for (not started). kube and events are borrowed. Returns 0,
 * VC_ENOMEM, or an informer's error (with err set); on failure ctx holds nothing.
 */
int ctx_init(struct vc_ctrl_ctx *ctx, struct vc_kube *kube, struct vc_events *events,
	     const struct ctx_opts *opts, struct vc_error *err) VC_WARN_UNUSED;

/* Start every informer. 0 or the first informer's error. */
int ctx_start(struct vc_ctrl_ctx *ctx) VC_WARN_UNUSED;

/* Wait until every informer has synced; VC_ETIMEDOUT after timeout_ns (< 0 = forever). */
int ctx_wait_synced(struct vc_ctrl_ctx *ctx, int64_t timeout_ns) VC_WARN_UNUSED;

/* Stop every informer (caches stay readable). */
void ctx_stop(struct vc_ctrl_ctx *ctx);

/* Stop and free the informers. */
void ctx_release(struct vc_ctrl_ctx *ctx);

#endif /* VC_CTRL_CTX_H */
