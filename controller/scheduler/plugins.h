/*
 * plugins.h - the scheduler plugins' formulas as pure functions over the snapshot model
 * (scheduler.md §4). A session registers these as its callbacks; nothing here keeps state
 * between calls except what is written into the model structs passed in.
 *
 * Orders follow qsort's convention: a negative result puts a first, positive puts b first, 0 is
 * a tie for the next plugin to break.
 */
#ifndef SCHED_PLUGINS_H
#define SCHED_PLUGINS_H

#include "sched_api.h"

/* ---- proportion (§4.4) ---------------------------------------------------------------------- */

/*
 * Volcano's proportion OnSessionOpen over n queues with allocated, request and active already
 * filled (sched_queue_account): computes every queue's real_capability, then deserved by
 * weighted water-filling of total among the active queues, then share. totalGuarantee sums the
 * guarantees of all n queues; inactive queues get deserved = 0 and share 0. A capability whose
 * cpu or memory is ≤ 0 leaves that dimension unbounded, and capability scalars it does not name
 * are unbounded. Returns 0 or VC_ENOMEM (queues' computed fields are then unspecified).
 */
int proportion_compute(struct sched_queue *queues, size_t n,
		       const struct vc_resource *total) VC_WARN_UNUSED;

/* As proportion_compute over an array of pointers (the session's queues). */
int proportion_compute_ptrs(struct sched_queue **queues, size_t n,
			    const struct vc_resource *total) VC_WARN_UNUSED;

/* share = max over deserved's dimensions (≥ 0.1) of sched_share(allocated, deserved). */
void proportion_update_share(struct sched_queue *q);

/* Overused: deserved ≤ allocated in every dimension (LessEqual, missing = 0). */
bool proportion_overused(const struct sched_queue *q);

/*
 * Allocatable (also Preemptive for one task): the queue is Open and allocated + req stays
 * within deserved (0.1 tolerance) on every dimension req asks for (> 0); a dimension deserved
 * lacks counts as 0.
 */
bool proportion_allocatable(const struct sched_queue *q, const struct vc_resource *req);

/* QueueOrder: higher priority first, then lower share; 0 on a tie. */
int proportion_queue_order(const struct sched_queue *a, const struct sched_queue *b);

/* ---- drf (§4.3) ----------------------------------------------------------------------------- */

/*
 * Dominant share: max over the dimensions of total that are ≥ 0.1 of allocated / total
 * (sched_share); 0 when total has none.
 */
double drf_share(const struct vc_resource *allocated, const struct vc_resource *total);

/* j->share = drf_share(&j->allocated, total). */
void drf_job_update(struct sched_job *j, const struct vc_resource *total);

/* JobOrder: lower share first; 0 on a tie. */
int drf_job_order(const struct sched_job *a, const struct sched_job *b);

/* ---- binpack (§4.9) ------------------------------------------------------------------------- */

struct binpack_resource {
	const char *name; /* borrowed */
	int weight;
};

struct binpack_args {
	int weight;				  /* binpack.weight (1) */
	int cpu;				  /* binpack.cpu (1) */
	int memory;				  /* binpack.memory (1) */
	const struct binpack_resource *resources; /* binpack.resources with their weights */
	size_t nresources;
};

/* The defaults: weight 1, cpu 1, memory 1, no extra resources. */
void binpack_args_default(struct binpack_args *a);

/*
 * Volcano's BinPackingScore: for each dimension the task requests (≥ 0.1, non-zero) that has a
 * weight: s = w × (used + req) / allocatable (0 when allocatable or w is 0, and the whole score
 * is 0 when used + req > allocatable); score = Σ s / Σ w × 100 × a->weight (Σ w over the
 * dimensions looked at; no division when it is 0).
 */
double binpack_score(const struct sched_task *t, const struct sched_node *n,
		     const struct binpack_args *a);

/* ---- nodeorder (§4.8) ----------------------------------------------------------------------- */

struct nodeorder_args {
	int least_requested;   /* leastrequested.weight (1) */
	int most_requested;    /* mostrequested.weight (0) */
	int balanced_resource; /* balancedresource.weight (1) */
};

void nodeorder_args_default(struct nodeorder_args *a);

/*
 * Kubernetes' scorers on integers, each 0..100. "requested" is the node's non-zero request
 * (every non-Pipelined task on the node, a task asking 0 CPU counted as 100m and 0 memory as
 * 200 MiB) plus the task's own non-zero request.
 *   least:    mean over cpu, memory of (alloc − requested) × 100 / alloc (0 if alloc is 0 or
 *             requested > alloc), integer division as in Go.
 *   most:     mean over cpu, memory of min(requested, alloc) × 100 / alloc.
 *   balanced: fractions min(requested / alloc, 1) of cpu, memory and nvidia.com/gpu (the GPU
 *             only when the task requests it; a dimension with alloc 0 skipped);
 *             (1 − stddev) × 100 truncated, stddev = |f0 − f1| / 2 for two fractions.
 */
int64_t nodeorder_least_allocated(const struct sched_task *t, const struct sched_node *n);
int64_t nodeorder_most_allocated(const struct sched_task *t, const struct sched_node *n);
int64_t nodeorder_balanced_allocation(const struct sched_task *t, const struct sched_node *n);

/* Σ scorer × weight over the three scorers above. */
double nodeorder_score(const struct sched_task *t, const struct sched_node *n,
		       const struct nodeorder_args *a);

/* ---- predicates (§4.7) ---------------------------------------------------------------------- */

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
 * Resource fit (the allocate action's FutureIdle check): the task's request must be within the
 * node's future idle (idle + releasing − pipelined) on every dimension, missing = 0, with the
 * 0.1 tolerance. On failure the reason is "Insufficient <name>" for the first short dimension in
 * the order cpu, memory, scalars by name (scheduler.md §1.8). Returns 0 or VC_ENOMEM.
 */
int pred_resource_fit(const struct sched_task *t, const struct sched_node *n,
		      struct pred_result *out) VC_WARN_UNUSED;

/*
 * Pod number: fails with PRED_REASON_POD_NUMBER when the node already holds at least its
 * allocatable `pods` count of tasks. A node whose allocatable has no pods count is not limited.
 */
void pred_pod_count(const struct sched_task *t, const struct sched_node *n,
		    struct pred_result *out);

/*
 * NodeUnschedulable: a node with unschedulable set fails with PRED_REASON_UNSCHEDULABLE unless
 * the pod tolerates the taint node.kubernetes.io/unschedulable:NoSchedule.
 */
void pred_node_unschedulable(const struct sched_task *t, const struct sched_node *n,
			     struct pred_result *out);

/*
 * NodeAffinity: every spec.nodeSelector entry must equal the node's label, and the required
 * node affinity (spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution)
 * must match (vc_node_selector_match; terms ORed; a malformed term matches nothing). Fails with
 * PRED_REASON_NODE_AFFINITY. Returns 0 or VC_ENOMEM.
 */
int pred_node_affinity(const struct sched_task *t, const struct sched_node *n,
		       struct pred_result *out) VC_WARN_UNUSED;

/*
 * NodePorts: a hostPort (> 0) of the pod's containers or init containers conflicts with one of
 * a pod already on the node when the protocol (default TCP) and port match and either hostIP
 * (default 0.0.0.0) is 0.0.0.0 or both are equal. Fails with PRED_REASON_NODE_PORTS.
 */
void pred_node_ports(const struct sched_task *t, const struct sched_node *n,
		     struct pred_result *out);

/*
 * TaintToleration: every NoSchedule or NoExecute taint of the node must be tolerated by one of
 * the pod's tolerations (Kubernetes' ToleratesTaint). The first that is not gives
 * "node(s) had untolerated taint {<key>: <value>}".
 */
void pred_taint_toleration(const struct sched_task *t, const struct sched_node *n,
			   struct pred_result *out);

/*
 * Whether a toleration object (borrowed) tolerates a taint object (borrowed), as Kubernetes'
 * Toleration.ToleratesTaint: effects equal or the toleration's empty; keys equal or the
 * toleration's empty; operator Exists, or Equal/"" with equal values.
 */
bool pred_tolerates(const json_t *toleration, const json_t *taint);

/*
 * Run the filters in Volcano's order: resource fit, pod number, NodeUnschedulable,
 * NodeAffinity, NodePorts, TaintToleration. out holds the first failure. A task without a pod
 * view only gets the resource and pod-number checks. Returns 0 or VC_ENOMEM.
 */
int predicates_check(const struct sched_task *t, const struct sched_node *n,
		     struct pred_result *out) VC_WARN_UNUSED;

/* ---- gang (§4.1, §2.2) ---------------------------------------------------------------------- */

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
void gang_job_valid(const struct sched_job *j, struct gang_validity *out);

/*
 * JobReady: Ready + pending best-effort ≥ minMember, and (when minMember ≥ Σ minTaskMember)
 * each role's allocated-state + Succeeded + pending best-effort tasks reach its minTaskMember.
 */
bool gang_job_ready(const struct sched_job *j);

/* JobPipelined: as gang_job_ready with Pipelined tasks also counted (Permit when true). */
bool gang_job_pipelined(const struct sched_job *j);

/* JobStarving: Waiting + Ready < minMember. */
bool gang_job_starving(const struct sched_job *j);

/* JobOrder: not-ready jobs before ready ones; 0 when both are alike. */
int gang_job_order(const struct sched_job *a, const struct sched_job *b);

/* Preemptable/Reclaimable: how many of j's tasks may be victims, max(Ready − minMember, 0). */
size_t gang_victim_allowance(const struct sched_job *j);

/* ---- priority (§4.2) ------------------------------------------------------------------------ */

/* JobOrder: higher job priority first. */
int priority_job_order(const struct sched_job *a, const struct sched_job *b);

/* TaskOrder: higher task priority first. */
int priority_task_order(const struct sched_task *a, const struct sched_task *b);

/*
 * Preemptable for one victim: in another job, the victim's job priority must be below the
 * preemptor's; in the same job (or when either has no job), the victim's task priority must be
 * below the preemptor's.
 */
bool priority_preemptable(const struct sched_task *preemptor, const struct sched_task *victim);

/* JobStarving: Ready + Waiting < number of tasks. */
bool priority_job_starving(const struct sched_job *j);

#endif /* SCHED_PLUGINS_H */
