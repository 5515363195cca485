/*
 * plugin_tasktopology.h - Volcano's task-topology plugin (docs/volcano/scheduler.md §4.10) as pure
 * functions over the snapshot model, in the style of plugins.h.
 *
 * A PodGroup asks for it with annotations naming task roles (volcano.sh/task-spec):
 *
 *   volcano.sh/task-topology-affinity:      "ps,worker;ps,chief"   ps↔worker, ps↔chief
 *   volcano.sh/task-topology-anti-affinity: "ps;worker,chief"      ps↔ps, worker↔chief
 *   volcano.sh/task-topology-task-order:    "ps,worker,chief"      earlier roles first
 *
 * Groups are separated by ';' and names by ','; a one-name group is a self relation, a longer
 * one relates every pair of its names. At session open the tasks of each job with pending tasks
 * and such annotations are put into buckets (tasks that want to share a node); TaskOrder then
 * places a bucket's tasks one after the other and NodeOrder pulls each task towards the node
 * its bucket fits best on.
 *
 * Ownership: a struct tasktopo_job borrows the sched_job_info and its tasks, which must outlive it
 * (a session's snapshot does). Nothing here locks: the state belongs to the thread running the
 * cycle.
 */
#ifndef SCHED_PLUGIN_TASKTOPOLOGY_H
#define SCHED_PLUGIN_TASKTOPOLOGY_H

#include "vc_prelude.h"

#include <jansson.h>

#include "sched_api.h"
#include "vc_err.h"
#include "vc_hash.h"

#define TASKTOPO_PLUGIN_NAME	   "task-topology"
#define TASKTOPO_ARG_WEIGHT	   "task-topology.weight"
#define TASKTOPO_ANN_AFFINITY	   "volcano.sh/task-topology-affinity"
#define TASKTOPO_ANN_ANTI_AFFINITY "volcano.sh/task-topology-anti-affinity"
#define TASKTOPO_ANN_TASK_ORDER	   "volcano.sh/task-topology-task-order"

/* A role's priority when buckets are built: the highest kind of relation it takes part in. */
enum tasktopo_priority {
	TASKTOPO_PRIO_NONE = 0, /* no (anti-)affinity: the role's tasks stay out of buckets */
	TASKTOPO_PRIO_INTER_ANTI_AFFINITY = 1,
	TASKTOPO_PRIO_SELF_AFFINITY = 2,
	TASKTOPO_PRIO_INTER_AFFINITY = 3,
	TASKTOPO_PRIO_SELF_ANTI_AFFINITY = 4,
};

/* ---- annotations ---------------------------------------------------------------------------- */

struct tasktopo_group {
	char **names; /* owned; empty names are kept (and count for the group's size), as Volcano */
	size_t n;
};

struct tasktopo_spec {
	bool present;			 /* at least one of the three annotations is set */
	struct tasktopo_group *affinity; /* owned, naffinity groups; NULL when the key is absent */
	size_t naffinity;
	struct tasktopo_group *anti_affinity; /* owned */
	size_t nanti_affinity;
	bool has_order;
	struct tasktopo_group order; /* the task order as one group */
};

/*
 * Parse the three annotations of annotations (a PodGroup's metadata.annotations object,
 * borrowed; NULL means none) against job j. An absent key leaves its part empty; a present one
 * is split by ';' (not for the task order) and ',' exactly as written, so "" gives one group
 * holding one empty name. Every non-empty name must be the role of a task of j, in any status,
 * and may appear only once per group (the task order is one group). The checks run on the
 * affinity, then the anti-affinity, then the task order, names in text order, and the first
 * failure is the result: VC_EINVALID with Volcano's texts "task <name> do not exist in job
 * <ns/name>" or "task <name> is duplicated in job <ns/name>" (err may be NULL). A value that is
 * not a string gives VC_EINVALID "annotation '<key>' is not a string". Returns 0 (out->present
 * false when no key is set) or VC_ENOMEM; on failure out is left empty.
 */
int tasktopo_spec_parse(const json_t *annotations, const struct sched_job_info *j,
			struct tasktopo_spec *out, struct vc_error *err) VC_WARN_UNUSED;

/* Free what s owns and make it empty. NULL is a no-op. */
void tasktopo_spec_release(struct tasktopo_spec *s);

/* ---- one job's buckets ---------------------------------------------------------------------- */

struct tasktopo_role {
	const char *name; /* borrowed from the job's spec */
	enum tasktopo_priority priority;
	int order; /* rank in the task order: (number of names) − index; 0 when not listed */
	bool self_affinity, self_anti_affinity;
};

struct tasktopo_node_count {
	size_t slot; /* index into the job's node slots */
	size_t count;
};

struct tasktopo_bucket {
	size_t index;			/* creation order, 0-based */
	struct sched_task_info **tasks; /* borrowed; the members not placed yet, in bucket order */
	size_t ntasks, tasks_cap;
	size_t *role_count;	    /* per role of the job: members, placed ones included */
	double req_score;	    /* Σ over unplaced members of cpu m + memory MiB + scalars */
	struct vc_resource request; /* Σ req of the unplaced members */
	size_t bound;		    /* members placed on a node */
	struct tasktopo_node_count *nodes; /* placed members per node */
	size_t nnodes, nodes_cap;
};

/* A node the job's tasks were placed on (at build time or by tasktopo_job_allocated). */
struct tasktopo_node_slot {
	char *name;	    /* owned */
	size_t *role_count; /* per role: tasks allocated there in this session */
	long bucket;	    /* the bucket built for the tasks already there, or -1 */
};

struct tasktopo_entry {
	const struct sched_task_info *task; /* borrowed */
	long role;			    /* index into roles, or -1 */
	long bucket;			    /* index into buckets, or -1 (out of bucket) */
	size_t seq;			    /* position in build order, for re-insertion */
	bool placed_at_open;		    /* had a node when the buckets were built */
	long alloc_slot;		    /* node slot of this session's allocation, or -1 */
};

struct tasktopo_job {
	const struct sched_job_info *job; /* borrowed */
	struct tasktopo_spec spec;	  /* owned */
	struct tasktopo_role *roles;	  /* owned: every non-empty name of the annotations */
	size_t nroles;
	unsigned char *inter_affinity;	    /* nroles × nroles */
	unsigned char *inter_anti_affinity; /* nroles × nroles */
	struct tasktopo_entry *entries;	    /* one per task of the job, sorted by address */
	size_t nentries;
	struct tasktopo_bucket **buckets; /* owned */
	size_t nbuckets, buckets_cap;
	size_t max_bucket_size; /* the largest unplaced + placed count any bucket reached */
	struct tasktopo_node_slot *slots;
	size_t nslots, slots_cap;
	struct vc_hmap slot_index; /* slot name (borrowed from slots) -> slot index */
};

/*
 * Build the buckets of job j from a parsed spec (stolen on success and on failure: *out owns it
 * or it is released). Roles get their priority (self-anti-affinity 4 > inter-affinity 3 >
 * self-affinity 2 > inter-anti-affinity 1; a role listed only in the task order gets none).
 * Tasks whose role is empty or has no priority stay out of buckets. The others are sorted:
 * placed tasks (with a node_name) first, by node name; then higher task-order rank, then
 * higher role priority, then task name. In that order a placed task joins the bucket of its
 * node (a new one for the first task there); an unplaced one joins the existing bucket with the
 * highest affinity score (+ members of affine roles, − members of anti-affine roles; on a tie
 * the one with the smaller req_score, then the older), or a new bucket when there is none or
 * the best score is negative. Returns 0 or VC_ENOMEM (*out NULL).
 */
int tasktopo_job_new(const struct sched_job_info *j, struct tasktopo_spec *spec,
		     struct tasktopo_job **out) VC_WARN_UNUSED;

/* Free m. NULL is a no-op. */
void tasktopo_job_free(struct tasktopo_job *m);

/* The bucket t is in, or NULL when t is out of buckets or not a task of m's job. */
const struct tasktopo_bucket *tasktopo_job_bucket_of(const struct tasktopo_job *m,
						     const struct sched_task_info *t);

/* The role index of t in m (-1 for none) and whether t is a task of m's job at all. */
long tasktopo_job_role_of(const struct tasktopo_job *m, const struct sched_task_info *t);

/*
 * Volcano's AllocateFunc: t (a task of m's job) was allocated or pipelined on node_name in this
 * session. The node's count of t's role goes up (for anti-affinity in NodeOrder), and when t is
 * in a bucket it moves from the bucket's unplaced members to its placed count on that node
 * (req_score and request shrink; max_bucket_size stays). Ignored for a task that is not m's,
 * that already has an allocation here, or that was placed when the buckets were built (the
 * framework reports an undone eviction as an allocation: such a task never left). Returns 0 or
 * VC_ENOMEM (m unchanged).
 */
int tasktopo_job_allocated(struct tasktopo_job *m, const struct sched_task_info *t,
			   const char *node_name) VC_WARN_UNUSED;

/*
 * The inverse of tasktopo_job_allocated for a discarded allocation (Volcano registers no
 * deallocation handler, so a discarded statement's tasks kept counting there; here they are
 * taken back): t returns among its bucket's unplaced members at its build-order position.
 * A task without an allocation in this session (an eviction victim, say) is ignored. Returns 0
 * or VC_ENOMEM (m unchanged).
 */
int tasktopo_job_deallocated(struct tasktopo_job *m,
			     const struct sched_task_info *t) VC_WARN_UNUSED;

/*
 * The affinity score of a task of role r against role counts (nroles entries): + count for
 * each affine role (r itself when self-affine), − count for each anti-affine one; with
 * only_anti the affine roles are not counted. r < 0 scores 0.
 */
long tasktopo_affinity_score(const struct tasktopo_job *m, long r, const size_t *counts,
			     bool only_anti);

/* ---- the session's callbacks ---------------------------------------------------------------- */

struct tasktopo_session {
	int weight;		    /* task-topology.weight (1) */
	struct tasktopo_job **jobs; /* owned, sorted by job address */
	size_t njobs;
};

/*
 * Volcano's OnSessionOpen: for each of the n jobs that has a Pending task and at least one of
 * the annotations (read from job->pg's metadata; a job without a PodGroup view has none), parse
 * and build its buckets. A job whose annotations are invalid is left out (as Volcano, which only
 * logs it). Returns 0 or VC_ENOMEM (s is then empty).
 */
int tasktopo_session_open(struct tasktopo_session *s, struct sched_job_info *const *jobs, size_t n,
			  int weight) VC_WARN_UNUSED;

/* Free the session's state. NULL is a no-op. */
void tasktopo_session_close(struct tasktopo_session *s);

/* The buckets of job j, or NULL when the plugin left j out. */
struct tasktopo_job *tasktopo_session_job(const struct tasktopo_session *s,
					  const struct sched_job_info *j);

/*
 * TaskOrder (negative: a first): 0 when either task's job has no buckets; a task in a bucket
 * before one without; 0 across jobs and between two tasks out of buckets; then the bucket with
 * more unplaced members first, then the older bucket; inside one bucket the role with the
 * higher task-order rank, then the higher priority; 0 for the same role.
 */
int tasktopo_task_order(const struct tasktopo_session *s, const struct sched_task_info *a,
			const struct sched_task_info *b);

/*
 * The counting part of NodeOrder for t on the node called node_name, before the fit: placed
 * members of t's bucket on the node − anti-affinity conflicts with the roles allocated there in
 * this session + unplaced members. Returns t's bucket (and *score), or NULL when t's job has no
 * buckets or t is in none.
 */
const struct tasktopo_bucket *tasktopo_count_score(const struct tasktopo_session *s,
						   const struct sched_task_info *t,
						   const char *node_name, long *score);

/* A bucket score × weight × 100 / max_bucket_size of t's job (no division when that is 0). */
double tasktopo_scale(const struct tasktopo_session *s, const struct sched_task_info *t,
		      long score);

/*
 * NodeOrder into *score: 0 when t alone does not fit the node's idle + releasing (any
 * dimension short) or its job has no buckets or t is in none; otherwise
 *   (placed members of t's bucket on n − anti-affinity conflicts with the roles allocated on
 *    n in this session + unplaced members − members that must be dropped to fit)
 *   × weight × 100 / max_bucket_size
 * where members are dropped in bucket order (t itself never) until the bucket's remaining
 * request fits idle + releasing. Returns 0 or VC_ENOMEM.
 */
int tasktopo_node_score(const struct tasktopo_session *s, const struct sched_task_info *t,
			const struct sched_node_info *n, double *score) VC_WARN_UNUSED;

/* The allocation event for t on node_name (tasktopo_job_allocated on its job, if any). */
int tasktopo_session_allocated(struct tasktopo_session *s, const struct sched_task_info *t,
			       const char *node_name) VC_WARN_UNUSED;
/* The deallocation event (tasktopo_job_deallocated on its job, if any). */
int tasktopo_session_deallocated(struct tasktopo_session *s,
				 const struct sched_task_info *t) VC_WARN_UNUSED;

/*
 * The plugin for the session framework (sched_framework.h) is sched_plugin_tasktopology,
 * declared in sched_registry.h: task_order, node_order (the NodeOrder above on the session's dense
 * resources), on_allocate and on_deallocate; weight from the task-topology.weight argument.
 * When no job of the session has buckets it registers nothing.
 */

#endif /* SCHED_PLUGIN_TASKTOPOLOGY_H */
