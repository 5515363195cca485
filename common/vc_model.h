/*
 * vc_model.h - typed views of Volcano and Kubernetes objects.
 *
 * A view is a C struct read out of a JSON object with Volcano's field names and defaults
 * (docs/volcano/job-controller.md §1, docs/volcano/scheduler.md's CRD facts). Views do not copy
 * strings: every `const char *` and `json_t *` in a view is borrowed from the object, and the view
 * holds one reference to that object, taken by the *_view() function and dropped by
 * *_view_release(). Cached objects are immutable, so a view of a cached object stays valid for as
 * long as it lives, whatever the informer does meanwhile.
 *
 * Defaults: a view applies the defaults Volcano's mutating webhook and CRD would have applied
 * (docs/volcano/job-controller.md §6.1, §9), so the controller behaves the same whether or not a
 * webhook ran: task names `default<k>`, task minAvailable = replicas, task maxRetry 3 when 0, job
 * minAvailable = sum of task minAvailable when 0, job maxRetry 3 when absent or 0, queue
 * `default`, schedulerName `volcano`. Each defaulted field can be told apart from a set one where
 * it matters (the `has_` flags).
 *
 * Unknown enumeration strings (a phase, event or action this version does not know) are kept as
 * the *_UNKNOWN value with the raw string alongside, never an error: the API server may hold
 * objects written by a newer Volcano.
 */
#ifndef VC_MODEL_H
#define VC_MODEL_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"
#include "vc_resource.h"

/* ---- enumerations ------------------------------------------------------------------------- */

enum vc_job_phase {
	VC_JOB_PHASE_NONE = 0, /* "" : just created; behaves like Pending */
	VC_JOB_PENDING,
	VC_JOB_ABORTING,
	VC_JOB_ABORTED,
	VC_JOB_RUNNING,
	VC_JOB_RESTARTING,
	VC_JOB_COMPLETING,
	VC_JOB_COMPLETED,
	VC_JOB_TERMINATING,
	VC_JOB_TERMINATED,
	VC_JOB_FAILED,
	VC_JOB_PHASE_UNKNOWN, /* a string this version does not know */
};

enum vc_bus_event {
	VC_EVENT_ANY = 0, /* "*" */
	VC_EVENT_POD_PENDING,
	VC_EVENT_POD_RUNNING,
	VC_EVENT_POD_FAILED,
	VC_EVENT_POD_EVICTED,
	VC_EVENT_JOB_UNKNOWN, /* "Unknown" */
	VC_EVENT_TASK_COMPLETED,
	VC_EVENT_TASK_FAILED,
	VC_EVENT_OUT_OF_SYNC,
	VC_EVENT_COMMAND_ISSUED,
	VC_EVENT_JOB_UPDATED,
	VC_EVENT_COUNT,
	VC_EVENT_INVALID = -1,
};

enum vc_bus_action {
	VC_ACTION_ABORT_JOB = 0,
	VC_ACTION_RESTART_JOB,
	VC_ACTION_RESTART_TASK,
	VC_ACTION_RESTART_POD,
	VC_ACTION_RESTART_PARTITION,
	VC_ACTION_TERMINATE_JOB,
	VC_ACTION_COMPLETE_JOB,
	VC_ACTION_RESUME_JOB,
	VC_ACTION_SYNC_JOB,
	VC_ACTION_ENQUEUE_JOB,
	VC_ACTION_SYNC_QUEUE,
	VC_ACTION_OPEN_QUEUE,
	VC_ACTION_CLOSE_QUEUE,
	VC_ACTION_COUNT,
	VC_ACTION_INVALID = -1,
};

enum vc_pg_phase {
	VC_PG_PHASE_NONE = 0, /* "" : just created */
	VC_PG_PENDING,
	VC_PG_RUNNING,
	VC_PG_UNKNOWN,
	VC_PG_INQUEUE,
	VC_PG_COMPLETED,
	VC_PG_PHASE_OTHER, /* a string this version does not know */
};

enum vc_queue_state {
	VC_QUEUE_OPEN =
		0, /* also for an empty state (docs/volcano/scheduler.md: an empty state is Open) */
	VC_QUEUE_CLOSED,
	VC_QUEUE_CLOSING,
	VC_QUEUE_STATE_UNKNOWN, /* "Unknown" or anything else */
};

enum vc_pod_phase {
	VC_POD_PENDING = 0, /* also for an empty phase */
	VC_POD_RUNNING,
	VC_POD_SUCCEEDED,
	VC_POD_FAILED,
	VC_POD_PHASE_UNKNOWN,
};

/*
 * The job plugins Volcano registers (docs/volcano/job-controller.md §5), the names a Job's
 * spec.plugins may use: the webhook rejects any other (docs/volcano/job-controller.md §1.1), and
 * the job controller runs them in this order (hcclrank reads the RANK that pytorch adds, so it
 * comes after it, docs/volcano/job-controller.md §5.0). The one list of their names.
 */
enum vc_job_plugin {
	VC_JOB_PLUGIN_ENV = 0,
	VC_JOB_PLUGIN_SVC,
	VC_JOB_PLUGIN_SSH,
	VC_JOB_PLUGIN_TENSORFLOW,
	VC_JOB_PLUGIN_PYTORCH,
	VC_JOB_PLUGIN_MPI,
	VC_JOB_PLUGIN_RAY,
	VC_JOB_PLUGIN_HCCLRANK,
	VC_JOB_PLUGIN_COUNT,
	VC_JOB_PLUGIN_INVALID = -1,
};

/* A job plugin's name ("env", "svc", …; "" out of range); VC_JOB_PLUGIN_INVALID for another. */
const char *vc_job_plugin_name(enum vc_job_plugin p);
enum vc_job_plugin vc_job_plugin_parse(const char *s);

/* Volcano's strings ("Pending", "PodFailed", "RestartJob", …); "" for the NONE values. */
const char *vc_job_phase_name(enum vc_job_phase p);
const char *vc_bus_event_name(enum vc_bus_event e);
const char *vc_bus_action_name(enum vc_bus_action a);
const char *vc_pg_phase_name(enum vc_pg_phase p);
const char *vc_queue_state_name(enum vc_queue_state s);
const char *vc_pod_phase_name(enum vc_pod_phase p);

/* Parse Volcano's strings. Unknown strings give the UNKNOWN/OTHER/INVALID value. */
enum vc_job_phase vc_job_phase_parse(const char *s);
enum vc_bus_event vc_bus_event_parse(const char *s);
enum vc_bus_action vc_bus_action_parse(const char *s);
enum vc_pg_phase vc_pg_phase_parse(const char *s);
enum vc_queue_state vc_queue_state_parse(const char *s);
enum vc_pod_phase vc_pod_phase_parse(const char *s);

/* Completed, Failed and Terminated are "finished" (Aborted is not). */
bool vc_job_phase_is_finished(enum vc_job_phase p);
/* Actions a user may put in a policy or a Command (docs/volcano/job-controller.md §1.2,
 * "External"). */
bool vc_bus_action_is_external(enum vc_bus_action a);
/* Events a user may put in a policy (PodRunning, OutOfSync and CommandIssued are internal). */
bool vc_bus_event_is_user(enum vc_bus_event e);

/* ---- object metadata ---------------------------------------------------------------------- */

struct vc_meta {
	const char *ns;		      /* "" for cluster-scoped objects */
	const char *name;	      /* never NULL ("" if absent) */
	const char *uid;	      /* "" if absent */
	const char *resource_version; /* "" if absent */
	int64_t generation;
	const char *creation_timestamp; /* RFC 3339 or NULL */
	const char *deletion_timestamp; /* RFC 3339 or NULL: being deleted */
	json_t *labels;			/* borrowed object or NULL */
	json_t *annotations;		/* borrowed object or NULL */
	json_t *owner_references;	/* borrowed array or NULL */
};

/* Fill m from obj's metadata (borrowed pointers into obj). Never fails. */
void vc_meta_read(const json_t *obj, struct vc_meta *m);
/* A label or annotation value (borrowed), or NULL. */
const char *vc_meta_label(const struct vc_meta *m, const char *key);
const char *vc_meta_annotation(const struct vc_meta *m, const char *key);

/* ---- Job (batch.volcano.sh/v1alpha1) ------------------------------------------------------ */

struct vc_policy {
	enum vc_bus_action action;
	const char *action_str; /* as written, for messages; NULL if absent */
	/* Events from `event` and `events`, merged in that order, without duplicates. */
	enum vc_bus_event events[VC_EVENT_COUNT];
	size_t nevents;
	bool has_exit_code;
	int32_t exit_code;
	bool has_timeout;
	int64_t timeout_ns;
};

struct vc_policies {
	struct vc_policy *items; /* owned by the view */
	size_t count;
};

enum vc_depends_iteration {
	VC_DEPENDS_ANY = 0,
	VC_DEPENDS_ALL,
};

struct vc_task {
	const char *name;  /* borrowed, or the view's own "default<k>" */
	char name_buf[32]; /* backing store for a defaulted name */
	bool name_defaulted;
	int32_t replicas;
	int32_t min_available; /* defaulted as Volcano's webhook does */
	bool has_min_available;
	int32_t max_retry; /* 3 when absent or 0 */
	json_t *template;  /* borrowed PodTemplateSpec, or NULL */
	struct vc_policies policies;
	const char *topology_policy; /* "" when absent */
	const char **depends_on;     /* owned array of borrowed names */
	size_t ndepends_on;
	enum vc_depends_iteration depends_iteration;
	bool has_partition;
	int32_t total_partitions, partition_size, min_partitions;
};

struct vc_job_status {
	enum vc_job_phase phase;
	const char *phase_str; /* as written ("" when absent) */
	int32_t min_available;
	int32_t pending, running, succeeded, failed, terminating, unknown;
	int32_t version;
	int32_t retry_count;
	json_t *task_status_count;    /* borrowed or NULL */
	json_t *controlled_resources; /* borrowed or NULL */
	json_t *conditions;	      /* borrowed or NULL */
};

struct vc_job {
	json_t *obj; /* the view's reference */
	struct vc_meta meta;
	const char *scheduler_name;
	int32_t min_available;
	bool min_available_defaulted;
	const char *queue;
	int32_t max_retry;
	bool has_ttl;
	int32_t ttl_seconds_after_finished;
	const char *priority_class_name; /* "" when absent */
	bool has_min_success;
	int32_t min_success;
	json_t *plugins;	  /* borrowed object or NULL */
	json_t *volumes;	  /* borrowed array or NULL */
	json_t *network_topology; /* borrowed or NULL */
	struct vc_policies policies;
	struct vc_task *tasks; /* owned */
	size_t ntasks;
	int32_t total_replicas;
	struct vc_job_status status;
};

/*
 * Read a Job. obj is borrowed; the view takes its own reference. On a malformed object (wrong
 * types, a policy timeout that is not a Go duration, more than 4096 tasks) returns VC_EINVALID
 * with a message naming the field (`spec.tasks[1].replicas: must be an integer`), and the view
 * is left empty. VC_ENOMEM on allocation failure.
 */
int vc_job_view(const json_t *obj, struct vc_job *job, struct vc_error *err);
void vc_job_view_release(struct vc_job *job);
/* The task called name, or NULL. */
const struct vc_task *vc_job_task(const struct vc_job *job, const char *name);

/* ---- Command (bus.volcano.sh/v1alpha1) ---------------------------------------------------- */

struct vc_command {
	json_t *obj;
	struct vc_meta meta;
	enum vc_bus_action action;
	const char *action_str; /* NULL if absent */
	const char *target_api_version, *target_kind, *target_name, *target_uid; /* "" if absent */
	const char *reason, *message;						 /* "" if absent */
};

int vc_command_view(const json_t *obj, struct vc_command *cmd, struct vc_error *err);
void vc_command_view_release(struct vc_command *cmd);
/* A Command the job controller consumes: its target is a batch.volcano.sh/v1alpha1 Job. */
bool vc_command_targets_job(const struct vc_command *cmd);

/* ---- PodGroup (scheduling.volcano.sh/v1beta1) --------------------------------------------- */

struct vc_podgroup {
	json_t *obj;
	struct vc_meta meta;
	int32_t min_member;
	json_t *min_task_member; /* borrowed object (role -> int) or NULL */
	const char *queue;	 /* "default" when empty */
	const char *priority_class_name;
	bool has_min_resources;
	struct vc_resource min_resources; /* owned */
	enum vc_pg_phase phase;
	const char *phase_str;
	json_t *conditions; /* borrowed or NULL */
	int32_t running, succeeded, failed;
};

int vc_podgroup_view(const json_t *obj, struct vc_podgroup *pg, struct vc_error *err);
void vc_podgroup_view_release(struct vc_podgroup *pg);
/* The minTaskMember of a role, or -1 when the role has none. */
int32_t vc_podgroup_min_task_member(const struct vc_podgroup *pg, const char *role);

/* ---- Queue (scheduling.volcano.sh/v1beta1) ------------------------------------------------ */

struct vc_queue {
	json_t *obj;
	struct vc_meta meta;
	int32_t weight;	  /* 1 when absent or 0 */
	bool reclaimable; /* true when absent */
	int32_t priority;
	const char *parent; /* "" when absent (a child of root) */
	bool has_capability, has_guarantee, has_deserved;
	struct vc_resource capability, guarantee, deserved; /* owned */
	enum vc_queue_state state;
	const char *state_str;
	int32_t pending, running, inqueue, completed, unknown;
};

int vc_queue_view(const json_t *obj, struct vc_queue *q, struct vc_error *err);
void vc_queue_view_release(struct vc_queue *q);

/* ---- Pod and Node (core/v1) --------------------------------------------------------------- */

struct vc_pod {
	json_t *obj;
	struct vc_meta meta;
	const char *node_name;	    /* "" when unbound */
	const char *scheduler_name; /* "default-scheduler" when absent */
	const char *priority_class_name;
	bool has_priority;
	int32_t priority;
	const char *group_name; /* annotation scheduling.k8s.io/group-name, or NULL */
	enum vc_pod_phase phase;
	const char *phase_str;
	const char *restart_policy; /* "Always" when absent */
	struct vc_resource request; /* owned: the effective request (vc_pod_spec_request) */
};

int vc_pod_view(const json_t *obj, struct vc_pod *pod, struct vc_error *err);
void vc_pod_view_release(struct vc_pod *pod);

/*
 * The effective resource request of a pod spec (borrowed), by Kubernetes' rules: the sum of the
 * regular containers plus restartable init containers (sidecars), or, when larger in a
 * dimension, each ordinary init container plus the sidecars started before it; a pod-level
 * request (spec.resources.requests) of cpu, memory or hugepages-<size> replaces that aggregate
 * for its resource; plus the pod overhead. req must be initialised; it is replaced on success only.
 * A request that does not parse gives VC_EINVALID naming the container and resource.
 */
int vc_pod_spec_request(const json_t *spec, struct vc_resource *req, struct vc_error *err);

struct vc_node {
	json_t *obj;
	struct vc_meta meta;
	bool unschedulable;
	bool ready;				  /* the Ready condition is True */
	struct vc_resource allocatable, capacity; /* owned */
	json_t *taints;				  /* borrowed array or NULL */
};

int vc_node_view(const json_t *obj, struct vc_node *node, struct vc_error *err);
void vc_node_view_release(struct vc_node *node);

#endif /* VC_MODEL_H */
