/*
 * plugins.h - what the built-in scheduler plugins (docs/volcano/scheduler.md §4) share with the
 * framework and with their tests. Each plugin lives in one file, plugin_<name>.c, holding its
 * session callbacks, its arguments and its formulas; the session finds it through the plugin table
 * of sched_registry.c (struct sched_plugin sched_plugin_<name>). Declared here are only the
 * formulas those callbacks call that are worth calling on their own: the model-level ones the
 * session computes once per cycle (proportion's water-filling, gang's validity, the pod-spec
 * predicates, the priority orders) and drf's share over dense vectors.
 *
 * Orders follow qsort's convention: a negative result puts a first, positive puts b first, 0 is
 * a tie for the next plugin to break.
 */
#ifndef SCHED_PLUGINS_H
#define SCHED_PLUGINS_H

#include "sched_api.h"

/* ---- proportion (docs/volcano/scheduler.md §4.4) --------------------------------------------- */

/*
 * Volcano's proportion OnSessionOpen over n queues with allocated, request and active already
 * filled (sched_queue_account): computes every queue's real_capability, then deserved by
 * weighted water-filling of total among the active queues, then share. totalGuarantee sums the
 * guarantees of all n queues; inactive queues get deserved = 0 and share 0. A capability whose
 * cpu or memory is ≤ 0 leaves that dimension unbounded, and capability scalars it does not name
 * are unbounded. Returns 0 or VC_ENOMEM (queues' computed fields are then unspecified).
 */
int proportion_compute_ptrs(struct sched_queue_info **queues, size_t n,
			    const struct vc_resource *total) VC_WARN_UNUSED;

/* ---- drf (docs/volcano/scheduler.md §4.3) ---------------------------------------------------- */

/*
 * Dominant share over ndims dense dimensions: max over the dimensions whose total is ≥ 0.1 of
 * sched_share(alloc, total); 0 when total has none.
 */
double drf_dense_share(size_t ndims, const double *alloc, const double *total);

/* ---- predicates (docs/volcano/scheduler.md §4.7) --------------------------------------------- */

/* Volcano's and Kubernetes' failure reasons. */
#define PRED_REASON_POD_NUMBER	  "node(s) pod number exceeded"
#define PRED_REASON_UNSCHEDULABLE "node(s) were unschedulable"
#define PRED_REASON_NODE_AFFINITY "node(s) didn't match Pod's node affinity/selector"
#define PRED_REASON_NODE_PORTS	  "node(s) didn't have free ports for the requested pod ports"

struct pred_result {
	bool fit;
	char reason[256]; /* "" when fit */
};

/*
 * NodeUnschedulable: a node with unschedulable set fails with PRED_REASON_UNSCHEDULABLE unless
 * the pod tolerates the taint node.kubernetes.io/unschedulable:NoSchedule.
 */
void pred_node_unschedulable(const struct sched_task_info *t, const struct sched_node_info *n,
			     struct pred_result *out);

/*
 * NodeAffinity: every spec.nodeSelector entry must equal the node's label, and the required
 * node affinity (spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution)
 * must match (vc_node_selector_match; terms ORed; a malformed term matches nothing). Fails with
 * PRED_REASON_NODE_AFFINITY. Returns 0 or VC_ENOMEM.
 */
int pred_node_affinity(const struct sched_task_info *t, const struct sched_node_info *n,
		       struct pred_result *out) VC_WARN_UNUSED;

/*
 * NodePorts: a hostPort (> 0) of the pod's containers or init containers conflicts with one of
 * a pod already on the node when the protocol (default TCP) and port match and either hostIP
 * (default 0.0.0.0) is 0.0.0.0 or both are equal. Fails with PRED_REASON_NODE_PORTS.
 */
void pred_node_ports(const struct sched_task_info *t, const struct sched_node_info *n,
		     struct pred_result *out);

/*
 * TaintToleration: every NoSchedule or NoExecute taint of the node must be tolerated by one of
 * the pod's tolerations (Kubernetes' ToleratesTaint). The first that is not gives
 * "node(s) had untolerated taint {<key>: <value>}".
 */
void pred_taint_toleration(const struct sched_task_info *t, const struct sched_node_info *n,
			   struct pred_result *out);

/*
 * Whether a toleration object (borrowed) tolerates a taint object (borrowed), as Kubernetes'
 * Toleration.ToleratesTaint: effects equal or the toleration's empty; keys equal or the
 * toleration's empty; operator Exists, or Equal/"" with equal values.
 */
bool pred_tolerates(const json_t *toleration, const json_t *taint);

/* ---- gang (docs/volcano/scheduler.md §4.1, §2.2) --------------------------------------------- */

#define GANG_REASON_NOT_ENOUGH_TASKS "NotEnoughTasks"
#define GANG_REASON_NOT_ENOUGH_PODS  "NotEnoughPodsOfTask"

struct gang_validity {
	bool valid;
	const char *reason; /* GANG_REASON_*, NULL when valid */
	char message[128];  /* "" when valid */
};

/*
 * JobValid: the valid tasks (allocated states, Succeeded, Pipelined, Pending) must number at
 * least minMember, else NotEnoughTasks with "Not enough valid tasks for gang-scheduling, valid:
 * V, min: M"; and when minMember ≥ Σ minTaskMember, every role must have at least its
 * minTaskMember valid tasks, else NotEnoughPodsOfTask with "Not enough valid pods of each task
 * for gang-scheduling".
 */
void gang_job_valid(const struct sched_job_info *j, struct gang_validity *out);

/* ---- priority (docs/volcano/scheduler.md §4.2) ----------------------------------------------- */

/* JobOrder: higher job priority first. */
int priority_job_order(const struct sched_job_info *a, const struct sched_job_info *b);

/* TaskOrder: higher task priority first. */
int priority_task_order(const struct sched_task_info *a, const struct sched_task_info *b);

#endif /* SCHED_PLUGINS_H */
