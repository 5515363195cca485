/*
 * sched_api.h - the scheduler's snapshot data model (docs/volcano/scheduler.md §0, §1, §2, §5).
 *
 * A cycle works on a snapshot: tasks (one per pod), jobs (one per PodGroup), nodes and queues.
 * These structs are Volcano's TaskInfo, JobInfo, NodeInfo and QueueInfo reduced to what the
 * plugins and actions read, and named after them: struct sched_task_info, sched_job_info,
 * sched_node_info, sched_queue_info. (A session wraps each in a view named sched_ssn_task,
 * sched_ssn_job, sched_ssn_node, sched_ssn_queue: sched_framework.h.) Every resource is a struct
 * vc_resource (milli-CPU, bytes, milli-units for scalars). Strings in the model are owned copies,
 * so a snapshot outlives the informer cache entries it was built from; the `pod`, `node`, `pg` and
 * `queue` view pointers are borrowed and optional (tests build snapshots without them).
 *
 * Ownership: a job owns its tasks (sched_job_add_task takes the task); a node only points at the
 * tasks placed on it (they belong to their job). Nothing here locks: a snapshot belongs to the
 * one thread running the cycle.
 */
#ifndef SCHED_API_H
#define SCHED_API_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"
#include "vc_model.h"
#include "vc_resource.h"

/* Annotation keys read by the model (docs/volcano/scheduler.md §0). */
#define SCHED_ANN_TASK_SPEC	"volcano.sh/task-spec"
#define SCHED_ANN_TASK_PRIORITY "volcano.sh/task-priority"
#define SCHED_ANN_PREEMPTABLE	"volcano.sh/preemptable"

/* Volcano's TaskStatus. */
enum sched_task_status {
	SCHED_TASK_PENDING = 0,
	SCHED_TASK_ALLOCATED,
	SCHED_TASK_PIPELINED,
	SCHED_TASK_BINDING,
	SCHED_TASK_BOUND,
	SCHED_TASK_RUNNING,
	SCHED_TASK_RELEASING,
	SCHED_TASK_SUCCEEDED,
	SCHED_TASK_FAILED,
	SCHED_TASK_UNKNOWN,
	SCHED_TASK_STATUS_COUNT,
};

/* Volcano's status names ("Pending", "Allocated", …). */
const char *sched_task_status_name(enum sched_task_status s);

/* Allocated, Binding, Bound or Running (Volcano's AllocatedStatus): counts against quota. */
bool sched_task_status_is_allocated(enum sched_task_status s);

/*
 * The status of a pod as Volcano's getTaskStatus derives it: Running → Running (Releasing when
 * being deleted); Pending → Pending when unbound, Bound when it has a node (Releasing when being
 * deleted); Succeeded, Failed; anything else Unknown.
 */
enum sched_task_status sched_task_status_of_pod(const struct vc_pod *pod);

struct sched_job_info;
struct sched_node_info;
struct sched_ssn_task; /* a session's view of a task (sched_framework.h) */

struct sched_task_info {
	char *uid;  /* owned; the pod UID, or ns/name when it has none */
	char *ns;   /* owned */
	char *name; /* owned */
	char *role; /* owned: volcano.sh/task-spec annotation (then label), "" when absent */
	struct vc_resource req; /* owned: the effective request */
	int32_t priority;	/* volcano.sh/task-priority, else spec.priority, else 1 */
	bool preemptable;	/* volcano.sh/preemptable, default true */
	bool best_effort;	/* req is empty (vc_resource_is_empty) */
	enum sched_task_status status;
	char *node_name;	    /* owned; NULL when not placed */
	struct sched_job_info *job; /* the owning job, set by sched_job_add_task */
	const struct vc_pod *pod;   /* borrowed, may be NULL */
	struct sched_ssn_task *ssn; /* set while a session runs over the task, else NULL */
	/*
	 * What a session reads of the pod and the name (sched_session.c: the sched_ssn_task fields
	 * of the same names), made by the first session over the task and kept with it: pod and
	 * name do not change while the task lives, and the runtime keeps an unchanged job's tasks
	 * from one snapshot to the next. nominated is borrowed from the pod (NULL: none).
	 */
	struct {
		bool ok;
		bool gated, preempt_never, critical, constrained;
		int64_t created, name_index;
		const char *nominated;
	} from_pod;
};

/*
 * Make t a task named ns/name with a copy of req, status Pending, priority 1, preemptable,
 * no node and no pod view. t is overwritten (any old contents are not released). Returns 0 or
 * VC_ENOMEM, and then t is left empty (safe to release).
 */
int sched_task_init(struct sched_task_info *t, const char *ns, const char *name,
		    const struct vc_resource *req) VC_WARN_UNUSED;

/*
 * Make t the task of pod (borrowed; it must outlive t): identity, role, request, priority,
 * preemptable flag, status (sched_task_status_of_pod) and node. Returns 0, VC_EINVALID when the
 * volcano.sh/task-priority annotation is not an int32 ("invalid task priority 'x' of pod ns/name"),
 * or VC_ENOMEM; on failure t is left empty.
 */
int sched_task_from_pod(struct sched_task_info *t, const struct vc_pod *pod,
			struct vc_error *err) VC_WARN_UNUSED;

/* Set the node a task is placed on (NULL clears). Returns 0 or VC_ENOMEM (t unchanged). */
int sched_task_set_node(struct sched_task_info *t, const char *node_name) VC_WARN_UNUSED;

/* Free what t owns; t may be reused after sched_task_init. NULL is a no-op. */
void sched_task_release(struct sched_task_info *t);

struct sched_job_info {
	char *uid;			  /* owned: "<ns>/<podgroup name>" */
	char *ns;			  /* owned */
	char *name;			  /* owned: the PodGroup name */
	char *queue;			  /* owned: the queue name ("default" when empty) */
	int32_t priority;		  /* PriorityClass value (priority plugin) */
	int32_t min_member;		  /* spec.minMember */
	json_t *min_task_member;	  /* borrowed object role → int, or NULL */
	struct vc_resource min_resources; /* owned; empty when the PodGroup has none */
	enum vc_pg_phase phase;
	const struct vc_podgroup *pg;	/* borrowed, may be NULL */
	struct sched_task_info **tasks; /* owned array of owned tasks, in insertion order */
	size_t ntasks, cap;
	struct vc_resource allocated; /* Σ req of tasks in allocated states */
	struct vc_resource request;   /* Σ req of all tasks (Volcano's TotalRequest) */
	double share;		      /* drf dominant share, left by the drf plugin at close */
};

/*
 * Make j an empty job ns/name in queue (NULL or "" means "default") with min_member, priority 0.
 * Returns 0 or VC_ENOMEM (j left empty, safe to release).
 */
int sched_job_init(struct sched_job_info *j, const char *ns, const char *name, const char *queue,
		   int32_t min_member) VC_WARN_UNUSED;

/*
 * Make j the job of a PodGroup view (borrowed; it must outlive j): uid, queue, minMember,
 * minTaskMember, minResources and phase. priority is the resolved PriorityClass value.
 * Returns 0 or VC_ENOMEM (j left empty).
 */
int sched_job_from_podgroup(struct sched_job_info *j, const struct vc_podgroup *pg,
			    int32_t priority) VC_WARN_UNUSED;

/*
 * Add a heap task (from vc_malloc) to j, which takes ownership on success: sets t->job and adds
 * t->req to request, and to allocated when t's status is allocated. Returns 0 or VC_ENOMEM
 * (the caller still owns t).
 */
int sched_job_add_task(struct sched_job_info *j, struct sched_task_info *t) VC_WARN_UNUSED;

/*
 * Change a task's status keeping j->allocated right (add or subtract t->req when the status
 * crosses the allocated boundary). Returns 0 or VC_ENOMEM (status unchanged).
 */
int sched_job_set_status(struct sched_job_info *j, struct sched_task_info *t,
			 enum sched_task_status s) VC_WARN_UNUSED;

/* Tasks of j in status s. */
size_t sched_job_count(const struct sched_job_info *j, enum sched_task_status s);
/* Volcano's ReadyTaskNum: allocated states plus Succeeded. */
size_t sched_job_ready_count(const struct sched_job_info *j);
/* Volcano's WaitingTaskNum: Pipelined tasks. */
size_t sched_job_waiting_count(const struct sched_job_info *j);
/* Pending tasks whose request is empty (best-effort). */
size_t sched_job_pending_best_effort_count(const struct sched_job_info *j);

/* Free the tasks and everything j owns. NULL is a no-op. */
void sched_job_release(struct sched_job_info *j);

struct sched_node_info {
	char *name;			/* owned */
	struct vc_resource allocatable; /* owned */
	struct vc_resource capability;	/* owned */
	struct vc_resource idle;	/* allocatable − used */
	struct vc_resource used;	/* Σ req of tasks on the node except Pipelined */
	struct vc_resource releasing;	/* Σ req of Releasing tasks */
	struct vc_resource pipelined;	/* Σ req of Pipelined tasks */
	bool unschedulable;
	json_t *labels;			/* borrowed object or NULL */
	json_t *taints;			/* borrowed array or NULL */
	const struct vc_node *node;	/* borrowed, may be NULL */
	struct sched_task_info **tasks; /* borrowed tasks, owned array */
	size_t ntasks, cap;
};

/*
 * Make n an empty node called name with a copy of allocatable (also its capability and idle).
 * Labels and taints are NULL. Returns 0 or VC_ENOMEM (n left empty, safe to release).
 */
int sched_node_init(struct sched_node_info *n, const char *name,
		    const struct vc_resource *allocatable) VC_WARN_UNUSED;

/* As sched_node_init from a node view (borrowed, must outlive n): labels, taints, unschedulable. */
int sched_node_from_view(struct sched_node_info *n, const struct vc_node *node) VC_WARN_UNUSED;

/*
 * Account a task on n (Volcano's NodeInfo.AddTask): Pipelined tasks add to pipelined only;
 * Releasing tasks add to releasing and used; every other status adds to used. idle is
 * recomputed as allocatable − used (it may go negative on an overcommitted node). The task is
 * borrowed. Returns 0 or VC_ENOMEM (n unchanged).
 */
int sched_node_add_task(struct sched_node_info *n, struct sched_task_info *t) VC_WARN_UNUSED;

/* Volcano's FutureIdle: idle + releasing − pipelined, into out (initialised). 0 or VC_ENOMEM. */
int sched_node_future_idle(const struct sched_node_info *n, struct vc_resource *out) VC_WARN_UNUSED;

/* Free what n owns (not the tasks). NULL is a no-op. */
void sched_node_release(struct sched_node_info *n);

struct sched_queue_info {
	char *name; /* owned */
	int32_t weight;
	int32_t priority;
	bool reclaimable;
	enum vc_queue_state state;
	char *hierarchy; /* owned: volcano.sh/hierarchy annotation, NULL when absent */
	bool has_capability;
	struct vc_resource capability; /* owned; meaningful when has_capability */
	struct vc_resource guarantee;  /* owned; empty when none */
	/* Filled by the caller (sched_queue_account) before proportion runs. */
	bool active;		      /* has at least one job in the session */
	struct vc_resource allocated; /* Σ job allocated */
	struct vc_resource request;   /* allocated + Σ req of Pending tasks */
	/* Filled by proportion_compute_ptrs. */
	struct vc_resource real_capability;
	struct vc_resource deserved;
	double share;
	const struct vc_queue *queue; /* borrowed, may be NULL */
};

/*
 * Make q an Open queue called name with the given weight (0 is taken as 1), reclaimable, no
 * capability or guarantee. Returns 0 or VC_ENOMEM (q left empty, safe to release).
 */
int sched_queue_init(struct sched_queue_info *q, const char *name, int32_t weight) VC_WARN_UNUSED;

/* As sched_queue_init from a Queue view (borrowed, must outlive q). */
int sched_queue_from_view(struct sched_queue_info *q, const struct vc_queue *view) VC_WARN_UNUSED;

/*
 * Add job j to its queue's totals: active = true, allocated += j->allocated, request +=
 * j->allocated + Σ req of j's Pending tasks. Returns 0 or VC_ENOMEM.
 */
int sched_queue_account(struct sched_queue_info *q, const struct sched_job_info *j) VC_WARN_UNUSED;

/* Free what q owns. NULL is a no-op. */
void sched_queue_release(struct sched_queue_info *q);

/*
 * Volcano's helpers.Share(l, r): l / r; 1 when r is 0 and l is not; 0 when both are 0.
 */
double sched_share(double l, double r);

/*
 * The hash (vc_fnv1a64, mixed) and equality of borrowed C-string keys, for a vc_hmap_init map
 * keyed by names the caller keeps alive while stored (node names, slot names).
 */
uint64_t sched_name_hash(const void *key);
bool sched_name_eq(const void *stored, const void *key);

#endif /* SCHED_API_H */
