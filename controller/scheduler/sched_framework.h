/*
 * sched_framework.h - the session as plugins and actions see it, and how plugins plug in
 * (docs/volcano/scheduler.md §1.2-§1.5, §3).
 *
 * A session wraps the snapshot's model structs (sched_api.h: struct sched_task_info,
 * sched_job_info, sched_node_info, sched_queue_info) in session views (struct sched_ssn_task,
 * sched_ssn_job, sched_ssn_node, sched_ssn_queue, each pointing at its model struct) that carry
 * what the hot loops need without allocating: every resource is a dense vector of doubles with one
 * slot per dimension (ssn->dims: "cpu", "memory", then the scalar names in name order; `pods` is
 * not a dimension, the pod count is checked against the node's allocatable max_task_num).
 * During a cycle the dense vectors are the truth; the model's task status is kept live, and the
 * model's node/job/queue resources and task node names are written back when the session closes.
 *
 * Writing a plugin: define a `const struct sched_plugin sched_plugin_<x>` whose on_session_open
 * fills the callbacks it implements in *cb (others stay NULL) and may allocate a state that
 * on_session_close frees; then add it to the table in sched_registry.c. Callbacks receive the
 * plugin's state first. The framework drops the callbacks the plugin's configuration disabled
 * (the enable* flags of sched_conf.h) and combines the rest as docs/volcano/scheduler.md §1.4 says:
 *   job/task/queue order   tiers then plugins in order, first non-zero comparison wins; then
 *                          the fallbacks (creation time, pod-name index, uid/name)
 *   job_ready, allocatable, predicate, preemptive     AND over every plugin
 *   overused                                          OR
 *   job_pipelined, job_enqueueable                    votes: any Reject -> false; a tier with a
 *                                                     Permit -> true; no votes -> true
 *   job_starving           the first tier that registers any: AND of those; none -> false
 *   job_valid              the first plugin saying "not valid" wins
 *   node_order             scores summed (batch_node_order too, over the candidates)
 *   preemptable/reclaimable (victim filters)  the intersection over every enabled filter,
 *                          whatever its tier (the REC of docs/volcano/scheduler.md §1.4); no filter
 * at all, or an empty intersection, means no victims on_allocate/on_deallocate, job_enqueued every
 * plugin, in order
 *
 * Nothing here locks: a session belongs to the thread running the cycle.
 */
#ifndef SCHED_FRAMEWORK_H
#define SCHED_FRAMEWORK_H

#include "vc_prelude.h"

#include "plugins.h"
#include "sched_api.h"
#include "sched_conf.h"
#include "sched_registry.h"
#include "sched_session.h"

#define SCHED_NONE UINT32_MAX

/* Kubernetes' non-zero request of a task asking nothing (schedutil.DefaultMilliCPURequest and
 * DefaultMemoryRequest): node scoring counts such a task as 100m CPU and 200 MiB. */
#define SCHED_DEFAULT_MILLI_CPU 100.0
#define SCHED_DEFAULT_MEMORY	(200.0 * 1024 * 1024)

enum sched_vote {
	SCHED_REJECT = -1,
	SCHED_ABSTAIN = 0,
	SCHED_PERMIT = 1,
};

/*
 * Node fit errors of one task (Volcano's FitErrors): a histogram of failure reasons over the
 * nodes that failed, or a task-level error text. Owned by the session.
 */
struct sched_fit_errors;

/* A task in the session. */
struct sched_ssn_task {
	struct sched_task_info *t; /* the model task; t->status is kept live */
	struct sched_ssn_job *job;
	const double *req;	/* ssn->ndims values (InitResreq) */
	uint32_t index;		/* in ssn->tasks */
	uint32_t node;		/* index in ssn->nodes, or SCHED_NONE */
	int64_t created;	/* pod creationTimestamp in ns since the epoch, 0 when unknown */
	int64_t name_index;	/* N of a pod name <a>-<b>-<N>, or -1 */
	int32_t pod_index;	/* position in its node's task list (internal) */
	bool gated;		/* spec.schedulingGates is not empty */
	bool preempt_never;	/* spec.preemptionPolicy: Never */
	bool critical;		/* system-*-critical priority class or kube-system (conformance) */
	bool constrained;	/* has a nodeSelector, node affinity, host ports or tolerations */
	bool eviction_occurred; /* pipelined after evicting (nominatedNodeName) */
	bool has_last;		/* a discarded transaction was remembered */
	enum sched_task_status last_status;
	uint32_t last_node;
	uint32_t nominated; /* status.nominatedNodeName's node, or SCHED_NONE */
	uint32_t heap_pos;  /* internal */
	uint32_t shape;	    /* tasks with equal request vectors share a shape (score caches) */
	/*
	 * The task's equivalence class for the session's node cache (internal): tasks with the
	 * same shape and equal scheduling constraints (pod or not, nodeSelector, required node
	 * affinity, tolerations; a pod with host ports is alone) share it; SCHED_NONE when no
	 * other task does, and for tasks not pending at the open (never placed in a session).
	 */
	uint32_t class_key;
	struct sched_fit_errors *fit; /* this session's node fit errors, or NULL */
};

/* A job (PodGroup) in the session. */
struct sched_ssn_job {
	struct sched_job_info *j;
	struct sched_ssn_queue *queue; /* NULL when the job's queue is not in the snapshot */
	struct sched_ssn_task *tasks;  /* j->ntasks tasks, in the job's order */
	size_t ntasks;
	uint32_t index;	  /* in ssn->jobs */
	double *alloc;	  /* Σ req of tasks in allocated states (live) */
	double *min_res;  /* minResources, dense (zeros when has_min_res is false) */
	bool has_min_res; /* spec.minResources is set */
	uint32_t count[SCHED_TASK_STATUS_COUNT]; /* tasks per status (live) */
	uint32_t pending_be;			 /* Pending best-effort, ungated tasks (live) */
	int64_t created;			 /* PodGroup creationTimestamp (ns), 0 unknown */
	int64_t min_task_total;			 /* Σ minTaskMember */
	bool roles_enforced;			 /* minMember >= Σ minTaskMember > 0 */
	enum vc_pg_phase phase_at_open;
	char *fit_error_msg; /* JobFitErrors: gang's "k/n tasks in gang unschedulable: ..." */
	char *enqueue_msg;   /* enqueue's rejection message, or NULL */
	uint32_t heap_pos;   /* internal */
};

/* A node in the session. */
struct sched_ssn_node {
	struct sched_node_info *n; /* the model node; n->tasks is kept live */
	uint32_t index;
	double *alloc, *idle, *used, *releasing, *pipelined; /* ssn->ndims each (live) */
	int64_t max_pods;				     /* allocatable pods, 0 = unlimited */
	/*
	 * Tasks of n->tasks evicted in this session: they stay on the node (Releasing) but no
	 * longer count as its pods for the pod-number predicate, as Volcano's predicates plugin
	 * drops a pod from its node on the eviction's deallocate event (docs/volcano/scheduler.md
	 * §3.4, §4.7).
	 */
	uint32_t nevicted;
	double nz_cpu, nz_mem; /* Kubernetes' non-zero requests of the non-Pipelined tasks */
	bool plain;	       /* not unschedulable and no taints: cheap predicates */
	/*
	 * Bumped whenever the node's accounting or task list changes: a score that depends only
	 * on the node and the task's request can be cached under (version, task shape).
	 */
	uint32_t version;
};

/* A queue in the session. */
struct sched_ssn_queue {
	struct sched_queue_info *q; /* the model queue */
	uint32_t index;
	int64_t created;   /* creationTimestamp (ns), 0 unknown */
	bool active;	   /* has at least one job in the session */
	uint32_t heap_pos; /* internal */
};

/* ---- plugins ------------------------------------------------------------------------------- */

struct sched_session;

struct sched_callbacks {
	/* Orders: negative puts a first, positive b, 0 is a tie. */
	int (*job_order)(void *st, const struct sched_ssn_job *a, const struct sched_ssn_job *b);
	int (*task_order)(void *st, const struct sched_ssn_task *a, const struct sched_ssn_task *b);
	int (*queue_order)(void *st, const struct sched_ssn_queue *a,
			   const struct sched_ssn_queue *b);
	/*
	 * Victim order between two other queues for a preemptor of queue p (Volcano's
	 * VictimQueueOrderFn, docs/volcano/scheduler.md §3.6): negative evicts from a first.
	 * Plugins in order, first non-zero wins (no enable switch); none, reverse queue order.
	 */
	int (*victim_queue_order)(void *st, const struct sched_ssn_queue *a,
				  const struct sched_ssn_queue *b, const struct sched_ssn_queue *p);
	/*
	 * A node filter: set out->fit (and out->reason when it fails); *unresolvable tells the
	 * preempt/reclaim search that evicting would not help (Kubernetes'
	 * UnschedulableAndUnresolvable). The resource check is the action's, not a plugin's.
	 * Returns 0 or VC_ENOMEM.
	 */
	int (*predicate)(void *st, const struct sched_ssn_task *t, const struct sched_ssn_node *n,
			 struct pred_result *out, bool *unresolvable);
	double (*node_order)(void *st, const struct sched_ssn_task *t,
			     const struct sched_ssn_node *n);
	/*
	 * A node filter whose outcome depends on pods of other nodes too (inter-pod affinity,
	 * topology spread: docs/volcano/scheduler.md §4.7): asked after every predicate passed, in
	 * the same order, and never served from the class cache. Same contract as predicate.
	 */
	int (*predicate_pods)(void *st, const struct sched_ssn_task *t,
			      const struct sched_ssn_node *n, struct pred_result *out,
			      bool *unresolvable);
	/*
	 * Volcano's BatchNodeOrderFn: scores of t over nodes[0..n) at once, normalised over them
	 * (docs/volcano/scheduler.md §4.8); add node i's score to scores[i]. Never cached.
	 */
	void (*batch_node_order)(void *st, const struct sched_ssn_task *t, const uint32_t *nodes,
				 size_t n, double *scores);
	bool (*job_ready)(void *st, const struct sched_ssn_job *j);
	enum sched_vote (*job_pipelined)(void *st, const struct sched_ssn_job *j);
	/* Fill out; out->valid false = the job is skipped by the actions. */
	void (*job_valid)(void *st, const struct sched_ssn_job *j, struct gang_validity *out);
	/* A Reject may set *message (vc_malloc'd) for the PodGroup's Normal Unschedulable event. */
	enum sched_vote (*job_enqueueable)(void *st, const struct sched_ssn_job *j, char **message);
	void (*job_enqueued)(void *st, const struct sched_ssn_job *j);
	bool (*job_starving)(void *st, const struct sched_ssn_job *j);
	bool (*allocatable)(void *st, const struct sched_ssn_queue *q,
			    const struct sched_ssn_task *t);
	bool (*overused)(void *st, const struct sched_ssn_queue *q);
	bool (*preemptive)(void *st, const struct sched_ssn_queue *q,
			   const struct sched_ssn_task *t);
	/*
	 * Victim filters: cands[0..n) are candidates in victim order (docs/volcano/scheduler.md
	 * §3.6); clear keep[i] for each candidate that must not be a victim (keep[] starts all true
	 * and may already have been cleared by another filter). Return SCHED_ABSTAIN to take no
	 * part.
	 */
	enum sched_vote (*preemptable)(void *st, const struct sched_ssn_task *preemptor,
				       struct sched_ssn_task *const *cands, size_t n, bool *keep);
	enum sched_vote (*reclaimable)(void *st, const struct sched_ssn_task *reclaimer,
				       struct sched_ssn_task *const *cands, size_t n, bool *keep);
	/*
	 * Events: a task was allocated or pipelined (or an eviction undone); a task was evicted
	 * (or an allocation/pipelining undone). Called after the session state changed.
	 */
	void (*on_allocate)(void *st, const struct sched_ssn_task *t);
	void (*on_deallocate)(void *st, const struct sched_ssn_task *t);
	/*
	 * Promises that let the session reuse results across tasks (the equivalence classes of
	 * sched_ssn_task): predicate_by_class says the predicate's outcome depends only on the node
	 * (any change to its accounting or task list bumps sched_ssn_node.version) and on the
	 * task's scheduling constraints (whether it has a pod; nodeSelector, required node
	 * affinity, tolerations and host ports of its spec); node_order_by_request says the score
	 * depends only on the node and the task's request vector (req). When every registered
	 * predicate (every node_order) makes the promise, the session caches the combined result
	 * per (equivalence class, node version) for allocate and backfill; a plugin that cannot
	 * promise simply leaves the flag false.
	 */
	bool predicate_by_class;
	bool node_order_by_request;
};

/* ---- the session ----------------------------------------------------------------------------- */

struct sched_plugin_slot; /* internal */
struct sched_session_priv;

struct sched_session {
	const struct sched_conf *conf;
	struct sched_snapshot *snap;
	const char *uid; /* session uid (transitionID) */
	const char *now; /* RFC 3339 */

	size_t ndims;
	const char **dims; /* borrowed names: "cpu", "memory", scalars by name */
	uint32_t gpu_dim;  /* "nvidia.com/gpu" or SCHED_NONE */
	double *total;	   /* Σ node allocatable */

	struct sched_ssn_task *tasks; /* every task, grouped by job */
	size_t ntasks;
	struct sched_ssn_job *jobs; /* snapshot order */
	size_t njobs;
	struct sched_ssn_node *nodes;
	size_t nnodes;
	struct sched_ssn_queue *queues;
	size_t nqueues;

	struct sched_session_priv *priv; /* plugin slots, statements, results, scratch */
};

/* ---- helpers for plugins and actions ----------------------------------------------------------
 */

/*
 * Call fn for every hostPort entry (hostPort > 0) of a pod spec's init containers, then its
 * containers; stop and return true when fn does (sched_classes.c).
 */
bool sched_pod_each_host_port(const json_t *spec, bool (*fn)(const json_t *port, const void *ctx),
			      const void *ctx);

/* The session view of a model task/job/queue/node (NULL when not in the session). */
struct sched_ssn_task *sched_ssn_task_of(const struct sched_session *ssn,
					 const struct sched_task_info *t);
struct sched_ssn_queue *sched_ssn_find_queue(const struct sched_session *ssn, const char *name);
struct sched_ssn_node *sched_ssn_find_node(const struct sched_session *ssn, const char *name);

/* A dimension's index or SCHED_NONE. */
uint32_t sched_ssn_dim(const struct sched_session *ssn, const char *name);

/*
 * Make out (ndims doubles) the dense form of r; names that are not dimensions are ignored.
 * vc_resource values are converted exactly.
 */
void sched_ssn_dense(const struct sched_session *ssn, const struct vc_resource *r, double *out);

/*
 * Set r's cpu, memory and scalars from the dense vector v (a zero scalar only when r already
 * names it). Returns 0 or VC_ENOMEM.
 */
int sched_ssn_to_resource(const struct sched_session *ssn, const double *v,
			  struct vc_resource *r) VC_WARN_UNUSED;

/* out = idle + releasing − pipelined. */
void sched_ssn_future_idle(const struct sched_session *ssn, const struct sched_ssn_node *n,
			   double *out);

/*
 * Volcano's LessEqual(a, b, Zero) on dense vectors: every dimension a ≤ b or within 0.1;
 * scalar dimensions where a is 0 are not looked at.
 */
bool sched_res_le(const struct sched_session *ssn, const double *a, const double *b);

/* Whether every dimension is below 0.1 (IsEmpty). */
bool sched_res_empty(const struct sched_session *ssn, const double *a);

/* Gang counters: Ready (allocated states + Succeeded), Waiting (Pipelined). */
uint32_t sched_ssn_job_nready(const struct sched_ssn_job *j);
uint32_t sched_ssn_job_nwaiting(const struct sched_ssn_job *j);
/* Tasks in the role counted by Volcano's occupied rules (mode as in plugin_gang.c). */
bool sched_ssn_job_gang_ready(const struct sched_ssn_job *j);
bool sched_ssn_job_gang_pipelined(const struct sched_ssn_job *j);

/* The combined extension points (docs/volcano/scheduler.md §1.4), for actions. */
int sched_ssn_job_order(struct sched_session *ssn, const struct sched_ssn_job *a,
			const struct sched_ssn_job *b);
int sched_ssn_task_order(struct sched_session *ssn, const struct sched_ssn_task *a,
			 const struct sched_ssn_task *b);
int sched_ssn_queue_order(struct sched_session *ssn, const struct sched_ssn_queue *a,
			  const struct sched_ssn_queue *b);
bool sched_ssn_job_ready(struct sched_session *ssn, const struct sched_ssn_job *j);
bool sched_ssn_job_pipelined(struct sched_session *ssn, const struct sched_ssn_job *j);
bool sched_ssn_job_starving(struct sched_session *ssn, const struct sched_ssn_job *j);
void sched_ssn_job_valid(struct sched_session *ssn, const struct sched_ssn_job *j,
			 struct gang_validity *out);
/* *message receives the first rejecting plugin's message (vc_malloc'd) or NULL. */
bool sched_ssn_job_enqueueable(struct sched_session *ssn, const struct sched_ssn_job *j,
			       char **message);
void sched_ssn_job_enqueued(struct sched_session *ssn, const struct sched_ssn_job *j);
bool sched_ssn_allocatable(struct sched_session *ssn, const struct sched_ssn_queue *q,
			   const struct sched_ssn_task *t);
bool sched_ssn_overused(struct sched_session *ssn, const struct sched_ssn_queue *q);
bool sched_ssn_preemptive(struct sched_session *ssn, const struct sched_ssn_queue *q,
			  const struct sched_ssn_task *t);
int sched_ssn_predicate(struct sched_session *ssn, const struct sched_ssn_task *t,
			const struct sched_ssn_node *n, struct pred_result *out,
			bool *unresolvable) VC_WARN_UNUSED;
double sched_ssn_node_score(struct sched_session *ssn, const struct sched_ssn_task *t,
			    const struct sched_ssn_node *n);
/* Victim filters: keep[] as for the callbacks; returns how many are kept. */
size_t sched_ssn_preemptable(struct sched_session *ssn, const struct sched_ssn_task *preemptor,
			     struct sched_ssn_task *const *cands, size_t n, bool *keep);
size_t sched_ssn_reclaimable(struct sched_session *ssn, const struct sched_ssn_task *reclaimer,
			     struct sched_ssn_task *const *cands, size_t n, bool *keep);

/*
 * The session's index of pods by topology domain for inter-pod affinity and topology spread
 * (sched_podaff.h), or NULL when no pod of the snapshot has such terms.
 */
struct sched_podaff *sched_ssn_podaff(const struct sched_session *ssn);

/* Whether the configuration has this action (Pending->Inqueue promotion in allocate). */
bool sched_ssn_has_action(const struct sched_session *ssn, const char *action);

#endif /* SCHED_FRAMEWORK_H */
