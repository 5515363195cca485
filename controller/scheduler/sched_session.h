/*
 * sched_session.h - one scheduling cycle over a snapshot (docs/volcano/scheduler.md §1.2-§1.8, §3).
 *
 * The runtime (sched_runtime.c) builds a struct sched_snapshot from the informer caches, calls
 * sched_session_run() with the configuration (sched_conf.h), and applies the struct
 * sched_result to the API server: binds, evictions, PodGroup status, pod conditions, Queue
 * status, Events. The session itself never talks to the API server and holds no lock, so every
 * action can be tested on snapshots built in code.
 *
 * Ownership: the snapshot owns its jobs, nodes and queues (heap objects from vc_malloc, taken by
 * the sched_snapshot_add_* functions); jobs own their tasks (sched_api.h). A result borrows
 * tasks, jobs and queues from the snapshot it was computed on: release the result first.
 */
#ifndef SCHED_SESSION_H
#define SCHED_SESSION_H

#include "vc_prelude.h"

#include <jansson.h>

#include "sched_api.h"
#include "sched_conf.h"
#include "sched_metrics.h"
#include "sched_objects.h"
#include "vc_err.h"

struct sched_bind;

struct sched_snapshot {
	struct sched_job_info **jobs; /* owned */
	size_t njobs, jobs_cap;
	struct sched_node_info **nodes; /* owned */
	size_t nnodes, nodes_cap;
	struct sched_queue_info **queues; /* owned */
	size_t nqueues, queues_cap;
	struct vc_resource total; /* Σ node allocatable, kept by sched_snapshot_add_node */
	/* The volume objects (sched_volume.h; borrowed; NULL: volumes are not looked at). */
	const struct sched_vol_catalog *volumes;
	/* Where the session records its metrics (borrowed; NULL: none). Set by the runtime. */
	const struct sched_metrics *metrics;
	/* Namespaces, Services and controllers (borrowed; NULL: none). Set by the runtime. */
	const struct sched_objects *objs;
	/*
	 * Optional (the runtime's): called on the session's thread for each bind as soon as the
	 * session decides it, i.e. when a gang's tasks are dispatched (a statement's commit, or
	 * backfill's allocation of a ready job: final, never undone), in the order of
	 * sched_result.binds and before the session goes on to the next job. The bind is listed in
	 * the result all the same (when the session fails later, the result is empty but the
	 * binds handed over stand, as Volcano's dispatched binds do: the runtime's assumptions
	 * keep the next cycle from placing those tasks again). A session over 10,000 pending jobs
	 * thus has its first binds on the wire while it places the rest, instead of after its close
	 * (bench/README.md, "Scheduling end to end"). b and what it points to are valid until the
	 * result is released. Not called in a session that looks at volumes (a gang's binds wait
	 * for its volume writes, sched_volume.h).
	 */
	void (*on_bind)(void *ctx, const struct sched_bind *b);
	void *on_bind_ctx;
};

/* Make s empty. Returns 0 or VC_ENOMEM. */
int sched_snapshot_init(struct sched_snapshot *s) VC_WARN_UNUSED;

/*
 * Take a heap job/node/queue (vc_malloc'd, initialised). On success the snapshot owns it; on
 * VC_ENOMEM the caller still does. add_node also adds the node's allocatable to total. Placing
 * a job's tasks on nodes (sched_node_add_task for tasks that have a node) is the caller's job,
 * done after both are added: see sched_snapshot_place().
 */
int sched_snapshot_add_job(struct sched_snapshot *s, struct sched_job_info *j) VC_WARN_UNUSED;
int sched_snapshot_add_node(struct sched_snapshot *s, struct sched_node_info *n) VC_WARN_UNUSED;
int sched_snapshot_add_queue(struct sched_snapshot *s, struct sched_queue_info *q) VC_WARN_UNUSED;

/* Lookups by name (jobs by "<ns>/<pg name>"); NULL when absent. Linear or hashed. */
struct sched_node_info *sched_snapshot_node(const struct sched_snapshot *s, const char *name);
struct sched_queue_info *sched_snapshot_queue(const struct sched_snapshot *s, const char *name);
struct sched_job_info *sched_snapshot_job(const struct sched_snapshot *s, const char *uid);

/*
 * Account every task that has a node_name on that node (tasks whose node is not in the snapshot
 * stay unplaced). Call once after all adds. Returns 0 or VC_ENOMEM.
 */
int sched_snapshot_place(struct sched_snapshot *s) VC_WARN_UNUSED;

/* Free everything the snapshot owns. */
void sched_snapshot_release(struct sched_snapshot *s);

/* ---- what a cycle decided ------------------------------------------------------------------- */

struct sched_vol_catalog;
struct sched_vol_plan;

struct sched_bind {
	struct sched_task_info *task; /* borrowed from the snapshot */
	const char *node;	      /* borrowed: the task's node_name */
	/* Owned: the volume writes before the bind, or NULL (sched_volume.h). */
	struct sched_vol_plan *vols;
};

struct sched_evict {
	struct sched_task_info *task; /* borrowed */
	const char *reason;	      /* static: "preempt" or "reclaim" */
};

/*
 * The PodGroup status the cycle computed for a job (docs/volcano/scheduler.md §1.8): phase, the
 * whole conditions array (after replacing the conditions of the types gang wrote, with
 * lastTransitionTime set to now and transitionID to the session uid), and the
 * running/succeeded/failed counts. The runtime PUTs it only when it differs from the cached status
 * (conditions compared ignoring transitionID and lastTransitionTime).
 */
struct sched_job_result {
	struct sched_job_info *job; /* borrowed */
	enum vc_pg_phase phase;
	json_t *conditions; /* owned reference (array) */
	int32_t running, succeeded, failed;
	char *fit_error; /* owned: the job FitError string (docs/volcano/scheduler.md §1.8); NULL
			    when ready */
	/* Events the cycle wants on the PodGroup (docs/volcano/scheduler.md §1.8 item 4, and
	 * enqueue's rejections). */
	const char *event_type;	  /* "Warning", "Normal" or NULL for none */
	const char *event_reason; /* static */
	char *event_message;	  /* owned */
	/*
	 * enqueue's rejection (docs/volcano/scheduler.md §3.1), for a PodGroup event `Normal
	 * Unschedulable <message>`
	 * ("resource in cluster is overused: …" / "queue resource quota insufficient: …");
	 * owned, NULL when the job was not rejected this cycle.
	 */
	char *reject_message;
};

/*
 * A pod condition the cycle wants (docs/volcano/scheduler.md §1.8 item 5): PodScheduled=False with
 * reason and message, and nominatedNodeName when pipelining evicted something. The runtime writes
 * it (and a FailedScheduling event) only when the pod's current condition differs.
 */
struct sched_task_result {
	struct sched_task_info *task; /* borrowed */
	const char *reason;	      /* static: "Schedulable" or "Unschedulable" */
	char *message;		      /* owned */
	char *nominated_node;	      /* owned or NULL */
};

struct sched_queue_result {
	struct sched_queue_info *queue; /* borrowed */
	struct vc_resource allocated;	/* owned: Σ req of allocated-state tasks
					   (docs/volcano/scheduler.md §1.8 item 6) */
};

struct sched_result {
	struct sched_bind *binds; /* in commit order */
	size_t nbinds, binds_cap;
	struct sched_evict *evicts;
	size_t nevicts, evicts_cap;
	struct sched_job_result *jobs; /* one per job with at least one task or a phase change */
	size_t njobs, jobs_cap;
	struct sched_task_result *tasks;
	size_t ntasks, tasks_cap;
	struct sched_queue_result *queues; /* one per queue in the snapshot */
	size_t nqueues, queues_cap;
	/*
	 * Statistics for logs and the bench: predicate and score results the search asked for,
	 * and how many of them were computed rather than served by the session's class caches.
	 */
	uint64_t predicate_calls, score_calls;
	uint64_t predicate_evals, score_evals;
	int64_t duration_ns;
	int64_t open_ns; /* opening the session (dimensions, views, plugins' OnSessionOpen) */
};

/*
 * Run one cycle: open the session (plugins of conf's tiers register their callbacks), run conf's
 * actions in order, close the session (gang conditions, PodGroup phases and counts, pod
 * conditions, queue allocations) and fill *out (initialised here). session_uid stamps the
 * conditions' transitionID; now is the RFC 3339 time for lastTransitionTime; seed makes node
 * score ties reproducible. The snapshot is modified (task statuses, node accounting).
 * Returns 0, VC_ENOMEM, or VC_EINVAL for a configuration naming an unknown action or plugin
 * (with err set); on failure *out is empty.
 */
int sched_session_run(const struct sched_conf *conf, struct sched_snapshot *snap,
		      const char *session_uid, const char *now, uint64_t seed,
		      struct sched_result *out, struct vc_error *err) VC_WARN_UNUSED;

void sched_result_release(struct sched_result *r);

#endif /* SCHED_SESSION_H */
