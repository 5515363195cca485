/*
 * sched_internal.h - what the session, the statement and the actions share (not for plugins).
 */
#ifndef SCHED_INTERNAL_H
#define SCHED_INTERNAL_H

#include "sched_framework.h"
#include "vc_buf.h"
#include "vc_hash.h"

/* ---- node fit errors (Volcano's FitErrors) ------------------------------------------------- */

struct sched_fit_entry {
	uint32_t reason; /* index in priv->reasons */
	uint32_t count;
};

struct sched_fit_errors {
	char *err;	 /* task-level text (SetError), or NULL */
	uint32_t nnodes; /* nodes that failed */
	uint32_t nentries;
	struct sched_fit_entry entries[];
};

/*
 * Volcano's FitErrors.Error(): "<err or 0/N nodes are unavailable>: <count reason>, ....",
 * the histogram entries as strings in sort order; just err when there are no node entries.
 */
int sched_fit_format(const struct sched_session *ssn, const struct sched_fit_errors *f,
		     struct vc_buf *out) VC_WARN_UNUSED;
/* Replace t's fit errors by a task-level text. 0 or VC_ENOMEM. */
int sched_fit_set_error(struct sched_session *ssn, struct sched_ssn_task *t,
			const char *msg) VC_WARN_UNUSED;

/* ---- binary heap over pointers -----------------------------------------------------------------
 */

typedef int (*sched_cmp_fn)(struct sched_session *ssn, const void *a, const void *b);

struct sched_heap {
	void **items;
	size_t n, cap;
	sched_cmp_fn cmp;
	struct sched_session *ssn;
};

/* A heap with room for cap items (pushing never allocates). 0 or VC_ENOMEM. */
int sched_heap_init(struct sched_heap *h, size_t cap, sched_cmp_fn cmp,
		    struct sched_session *ssn) VC_WARN_UNUSED;
void sched_heap_release(struct sched_heap *h);
/* Push (no-op when full: callers size heaps to what they can hold). */
void sched_heap_push(struct sched_heap *h, void *item);
/* The smallest item, or NULL when empty. */
void *sched_heap_pop(struct sched_heap *h);

/* Sort items by cmp (stable merge sort; tmp has room for n items). */
void sched_sort(struct sched_session *ssn, void **items, size_t n, void **tmp, sched_cmp_fn cmp);

/* Comparators for heaps and sorts over sched_ssn_job / sched_ssn_queue / sched_ssn_task pointers.
 */
int sched_cmp_jobs(struct sched_session *ssn, const void *a, const void *b);
int sched_cmp_queues(struct sched_session *ssn, const void *a, const void *b);
int sched_cmp_tasks(struct sched_session *ssn, const void *a, const void *b);
/* docs/volcano/scheduler.md §3.6: the first to evict first, against preemptor (set
 * priv->victim_preemptor). */
int sched_cmp_victims(struct sched_session *ssn, const void *a, const void *b);

/* ---- plugins in the session -------------------------------------------------------------------
 */

struct sched_plugin_slot {
	const struct sched_plugin *plugin;
	const struct sched_plugin_conf *conf;
	size_t tier;
	struct sched_callbacks cb;
	void *state;
	bool opened;
};

/* ---- statements (docs/volcano/scheduler.md §1.5) --------------------------------------------- */

enum sched_op_kind {
	SCHED_OP_ALLOCATE,
	SCHED_OP_PIPELINE,
	SCHED_OP_EVICT,
};

struct sched_op {
	enum sched_op_kind kind;
	struct sched_ssn_task *task;
	const char *reason; /* evict: "preempt" / "reclaim" */
};

struct sched_stmt {
	struct sched_op *ops;
	size_t n, cap;
};

void sched_stmt_init(struct sched_stmt *s);
void sched_stmt_release(struct sched_stmt *s);
int sched_stmt_allocate(struct sched_session *ssn, struct sched_stmt *s, struct sched_ssn_task *t,
			uint32_t node) VC_WARN_UNUSED;
int sched_stmt_pipeline(struct sched_session *ssn, struct sched_stmt *s, struct sched_ssn_task *t,
			uint32_t node, bool eviction_occurred) VC_WARN_UNUSED;
int sched_stmt_evict(struct sched_session *ssn, struct sched_stmt *s, struct sched_ssn_task *t,
		     const char *reason) VC_WARN_UNUSED;
/* Allocations go to the binder (Binding), evictions to the result; the statement is emptied. */
void sched_stmt_commit(struct sched_session *ssn, struct sched_stmt *s);
/* Undo in reverse order, remembering each task's last transaction; the statement is emptied. */
void sched_stmt_discard(struct sched_session *ssn, struct sched_stmt *s);
/* Move src's operations to the end of dst (src emptied). 0 or VC_ENOMEM (nothing moved). */
int sched_stmt_merge(struct sched_stmt *dst, struct sched_stmt *src) VC_WARN_UNUSED;

/* Session operations without a statement (backfill). */
int sched_ssn_allocate(struct sched_session *ssn, struct sched_ssn_task *t,
		       uint32_t node) VC_WARN_UNUSED;
/* Allocated -> Binding and into the result's binds. */
void sched_ssn_dispatch(struct sched_session *ssn, struct sched_ssn_task *t);

/* Change a task's status keeping the job's counters and allocated vector right. */
void sched_ssn_set_status(struct sched_session *ssn, struct sched_ssn_task *t,
			  enum sched_task_status s);

/* ---- node search (docs/volcano/scheduler.md §3.2.1, §3.2.2) ---------------------------------- */

enum sched_search_mode {
	SCHED_SEARCH_ALLOCATE, /* resource fit on FutureIdle, every predicate failure counts */
	SCHED_SEARCH_PREEMPT,  /* only unresolvable predicate failures count */
};

/* Volcano's CalculateNumOfFeasibleNodesToFind. */
uint32_t sched_num_to_find(uint32_t nnodes);

/*
 * Find feasible nodes for t from the rotating offset: up to sched_num_to_find nodes, into
 * priv->feasible (*n of them). In allocate mode with use_cache the per-(job, role) error cache
 * is used and filled; when no node fits, t->fit records the failures. 0 or VC_ENOMEM.
 */
int sched_predicate_nodes(struct sched_session *ssn, struct sched_ssn_task *t,
			  enum sched_search_mode mode, bool use_cache, size_t *n) VC_WARN_UNUSED;

/* The best of cands by summed node score, ties broken by the session's seeded PRNG. */
uint32_t sched_best_node(struct sched_session *ssn, const struct sched_ssn_task *t,
			 const uint32_t *cands, size_t n);

/*
 * The predicates that the class cache may keep (every predicate callback), and those it may not
 * (predicate_pods); sched_ssn_predicate runs both. 0 or VC_ENOMEM.
 */
int sched_ssn_predicate_class(struct sched_session *ssn, const struct sched_ssn_task *t,
			      const struct sched_ssn_node *n, struct pred_result *out,
			      bool *unresolvable) VC_WARN_UNUSED;
int sched_ssn_predicate_pods(struct sched_session *ssn, const struct sched_ssn_task *t,
			     const struct sched_ssn_node *n, struct pred_result *out,
			     bool *unresolvable) VC_WARN_UNUSED;

/*
 * The batch scores (batch_node_order) of t over nodes[0..n), added to scores[i]; nothing when
 * no plugin has one.
 */
void sched_ssn_batch_scores(struct sched_session *ssn, const struct sched_ssn_task *t,
			    const uint32_t *nodes, size_t n, double *scores);

/* Start a predicate-cache scope (one job's pass in allocate). */
void sched_cache_reset(struct sched_session *ssn);

/* ---- opening a session without running it ----------------------------------------------------
 */

/*
 * Open a session over snap as sched_session_run does (same arguments; ssn and *out are
 * initialised here) without running any action: the plugins of conf's tiers are open and their
 * callbacks in priv->slots, for tests that drive callbacks directly. 0, VC_ENOMEM or VC_EINVAL
 * (err set); on failure nothing is left to release.
 */
int sched_session_begin(struct sched_session *ssn, const struct sched_conf *conf,
			struct sched_snapshot *snap, const char *session_uid, const char *now,
			uint64_t seed, struct sched_result *out,
			struct vc_error *err) VC_WARN_UNUSED;
/* Close the plugins and free the session; no results are computed (release *out after). */
void sched_session_end(struct sched_session *ssn);

/* ---- the session's parts in other files -------------------------------------------------------
 */

/* A name -> index map (vc_hmap, names borrowed) for snapshot and session lookups. */
struct sched_name_index {
	struct vc_hmap map;
};

/* An empty index; no allocation. */
void sched_name_index_init(struct sched_name_index *m);
void sched_name_index_release(struct sched_name_index *m);
/* Map name (borrowed, must outlive m) to i; the first name put wins. 0 or VC_ENOMEM. */
int sched_name_index_put(struct sched_name_index *m, const char *name, uint32_t i) VC_WARN_UNUSED;
/* The index of name, or SCHED_NONE (also for a NULL name). */
uint32_t sched_name_index_get(const struct sched_name_index *m, const char *name);

/* Whether a pod spec asks for a host port (a container or init container's hostPort > 0). */
bool sched_pod_has_host_ports(const json_t *spec);
/*
 * A structural hash of a JSON value (NULL allowed), independent of the order of object members
 * (depth: 0 for the root), and whether two values (NULL allowed) are equal as JSON
 * (sched_classes.c).
 */
uint64_t sched_json_hash(const json_t *v, int depth);
bool sched_json_same(const json_t *a, const json_t *b);

/* Number the distinct request vectors into the tasks' shape (sched_classes.c). 0 or VC_ENOMEM. */
int sched_assign_shapes(struct sched_session *ssn) VC_WARN_UNUSED;
/* Give tasks their predicate class_key (sched_classes.c). 0 or VC_ENOMEM. */
int sched_assign_class_keys(struct sched_session *ssn) VC_WARN_UNUSED;

/*
 * Close a session after its actions (sched_session_close.c): job results, pod conditions,
 * queue results and the write-back into the model. 0 or VC_ENOMEM.
 */
int sched_session_close(struct sched_session *ssn) VC_WARN_UNUSED;

/* ---- the session's private state ------------------------------------------------------------ */

struct sched_session_priv {
	struct sched_plugin_slot *slots;
	size_t nslots;
	/* The slots with a predicate / node_order callback (hot loops). */
	struct sched_plugin_slot **pred_slots, **score_slots;
	size_t npred, nscore;
	/* The slots with a predicate_pods / batch_node_order callback. */
	struct sched_plugin_slot **pred_pods_slots, **batch_slots;
	size_t npred_pods, nbatch;
	double *batch_scores;	     /* nnodes, when nbatch > 0 */
	struct sched_podaff *podaff; /* sched_ssn_podaff() */
	struct sched_vol *vol;	     /* sched_ssn_vol() */
	struct sched_result *res;
	uint64_t rng;
	uint32_t node_offset;
	uint32_t *feasible; /* nnodes */
	uint32_t *scratch_nodes;
	double *node_score; /* nnodes: preempt's node ranking */
	double *vec;	    /* 4 × ndims scratch vectors */
	/* Failure reasons, interned. */
	char **reasons;
	size_t nreasons, reasons_cap;
	uint32_t *reason_count; /* reasons_cap */
	uint32_t *touched;	/* reasons_cap */
	size_t ntouched;
	uint32_t reason_dims; /* "Insufficient <dim k>" = reason_dims + k */
	uint32_t reason_pods;
	/* Predicate error cache: node -> stamp/reason of the current (pass, role). */
	uint32_t *cache_stamp, *cache_reason;
	uint32_t stamp_next;
	const char *cache_roles[16];
	uint32_t cache_role_stamp[16];
	size_t ncache_roles;
	bool predicate_cache;
	/*
	 * The equivalence-class cache (sched_select.c): per (class_key, node version) the
	 * allocate-mode outcome of the search and the summed node score, in `ways` direct-mapped
	 * tables of nnodes entries (class k uses table k % ways). NULL when nothing is shared.
	 * node_ver mirrors every node's version in one dense array so that a cache hit touches
	 * neither the node nor its resources.
	 */
	struct sched_class_entry *class_cache;
	uint32_t class_ways;
	bool class_pred, class_score; /* every predicate / node_order promises (sched_callbacks) */
	uint32_t *node_ver;
	/* Slots with a job_order / task_order callback, in configuration order (sorts, heaps). */
	struct sched_plugin_slot **job_order_slots, **task_order_slots;
	size_t njob_order, ntask_order;
	/* Close: the scratch text of messages, and the Scheduled condition ready jobs share. */
	struct vc_buf text;
	json_t *scheduled_cond;
	/* Victim ordering context. */
	const struct sched_ssn_task *victim_preemptor;
	/* Storage. */
	double *arena;
	const char **dim_names;
	bool gang_configured;
	uint64_t predicate_calls, score_calls; /* asked for */
	uint64_t predicate_evals, score_evals; /* computed (not served by a cache) */
};

struct sched_class_entry {
	uint32_t ver;	  /* node version + 1 when filled; 0 = empty */
	uint32_t key;	  /* class_key */
	uint32_t reason;  /* SCHED_NONE: feasible; else the resource or predicate failure reason */
	uint8_t known;	  /* reason (and idle_fit) filled */
	uint8_t idle_fit; /* feasible and the request fits Idle (not only FutureIdle) */
	uint8_t has_score;
	double score;
};

/* A node's accounting or task list changed: bump its version (and the dense mirror). */
static inline void sched_node_changed(struct sched_session *ssn, struct sched_ssn_node *n)
{
	n->version++;
	if (ssn->priv->node_ver)
		ssn->priv->node_ver[n->index] = n->version;
}

/* Allocate the class cache after the plugins opened (sched_select.c). 0 or VC_ENOMEM. */
int sched_class_caches_init(struct sched_session *ssn) VC_WARN_UNUSED;

/* Intern a reason text; returns its index or SCHED_NONE when out of memory. */
uint32_t sched_reason_intern(struct sched_session *ssn, const char *text);

/* ---- helpers the actions (docs/volcano/scheduler.md §3) share; the actions themselves are in
 * sched_registry.h --
 */

/* Job helpers for actions. */
bool sched_ssn_job_is_pending(const struct sched_ssn_job *j); /* phase "" or Pending */
/* Set the phase of a job (model job->phase). */
void sched_ssn_job_set_phase(struct sched_ssn_job *j, enum vc_pg_phase p);

/* Preempt/reclaim's per-node eviction search (shared). */
int sched_preempt_task(struct sched_session *ssn, struct sched_stmt *stmt, struct sched_ssn_task *t,
		       bool reclaim,
		       bool (*filter)(struct sched_session *ssn,
				      const struct sched_ssn_task *preemptor,
				      const struct sched_ssn_task *victim),
		       bool *assigned) VC_WARN_UNUSED;

/* The Pending, ungated tasks of j in task order, into out (returns how many). */
size_t sched_pending_tasks(struct sched_session *ssn, struct sched_ssn_job *j,
			   struct sched_ssn_task **out, void **tmp);

/* Starving, valid, admitted jobs with a queue and pending tasks: preemptors / reclaimers. */
bool sched_preemptor_job(struct sched_session *ssn, struct sched_ssn_job *j);

/* What the preempt and reclaim actions work with (action_preempt.c). */
struct sched_evict_scratch {
	struct sched_ssn_queue **queues; /* every queue, in queue order */
	struct sched_ssn_job **jobs;	 /* room for every job */
	struct sched_ssn_task **tasks;	 /* room for every task */
	void **tmp;			 /* room for sched_sort */
	struct sched_stmt stmt;
};

/* Allocate sc and sort the session's queues into sc->queues. 0 or VC_ENOMEM (release sc). */
int sched_evict_scratch_init(struct sched_session *ssn,
			     struct sched_evict_scratch *sc) VC_WARN_UNUSED;
/* The preemptor jobs (sched_preemptor_job) of queue q into sc->jobs, in job order; how many. */
size_t sched_evict_scratch_jobs(struct sched_session *ssn, struct sched_evict_scratch *sc,
				const struct sched_ssn_queue *q);
/*
 * Evict for job j's pending tasks in task order while j starves (sched_preempt_task with reclaim
 * and filter; a task for which skip, may be NULL, is true is passed over), then commit sc->stmt
 * when j is pipelined and discard it otherwise. 0, or a negative error from sched_preempt_task
 * (sc->stmt then still holds the job's operations).
 */
int sched_evict_for_job(struct sched_session *ssn, struct sched_evict_scratch *sc,
			struct sched_ssn_job *j, bool reclaim,
			bool (*filter)(struct sched_session *ssn,
				       const struct sched_ssn_task *preemptor,
				       const struct sched_ssn_task *victim),
			bool (*skip)(struct sched_session *ssn, const struct sched_ssn_job *j,
				     const struct sched_ssn_task *t)) VC_WARN_UNUSED;
/* Discard what sc->stmt still holds when failed, and free sc. */
void sched_evict_scratch_release(struct sched_session *ssn, struct sched_evict_scratch *sc,
				 bool failed);

#endif /* SCHED_INTERNAL_H */
