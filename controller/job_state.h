/*
 * job_state.h - the pure half of the Job lifecycle controller (docs/volcano/job-controller.md §3.5,
 * §4.3, §4.5, §4.6): policy resolution, the per-state action table, the status functions, and the
 * job status as a C value.
 *
 * Nothing here does I/O, reads a clock or takes a lock: job_controller.c feeds it the Job view,
 * the request being processed and the status it computed, and carries out the primitive this
 * module picks (SyncJob, KillJob or KillTarget).
 */
#ifndef JOB_STATE_H
#define JOB_STATE_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"
#include "vc_model.h"

/* "No event": the PodGroup phase-change request carries an empty event
 * (docs/volcano/job-controller.md §3.1). */
#define JOB_EVENT_NONE ((int)VC_EVENT_INVALID)

/*
 * A request (docs/volcano/job-controller.md §3.1): what a watch handler or a Command asks the
 * controller to look at. Strings are owned by the request (job_request_free / job_request_release),
 * NULL when absent.
 */
struct job_request {
	int event;	 /* enum vc_bus_event, or JOB_EVENT_NONE */
	bool has_action; /* an explicit action (Commands, delayed actions that are retried) */
	enum vc_bus_action action; /* VC_ACTION_INVALID for an unknown action string */
	char *action_str;	   /* the explicit action as written (for messages), or NULL */
	char *task, *pod, *pod_uid, *partition, *job_uid;
	int32_t exit_code;
	int32_t job_version;
	/*
	 * The pod was added already Succeeded or Failed (the informer's first list, or a relist
	 * after a watch gap): the update to that phase was never seen, so processing derives its
	 * event once it knows the job (job_pod_recover, docs/volcano/job-controller.md §8.40).
	 */
	bool recovered;
};

/* A new request, zeroed with event JOB_EVENT_NONE; NULL when out of memory. */
struct job_request *job_request_new(void) VC_WARN_UNUSED;
/* A deep copy, or NULL when out of memory. */
struct job_request *job_request_dup(const struct job_request *r) VC_WARN_UNUSED;
/* Free the strings of r (not r itself) and zero it. */
void job_request_release(struct job_request *r);
/* job_request_release, then free r. NULL is a no-op. */
void job_request_free(struct job_request *r);
/* Full value equality (the work queue collapses equal requests, docs/volcano/job-controller.md
 * §3.1). */
bool job_request_equal(const struct job_request *a, const struct job_request *b);
/* Set *dst to a copy of src (NULL clears it); 0 or VC_ENOMEM (*dst unchanged on failure). */
int job_request_set_str(char **dst, const char *src) VC_WARN_UNUSED;

/* The outcome of policy resolution (docs/volcano/job-controller.md §3.5 step 4). */
struct job_resolution {
	enum vc_bus_action action;
	/* The action's name for messages: Volcano's name, or the Command's unknown string. */
	const char *action_str; /* borrowed from the request or static */
	int64_t delay_ns;	/* > 0: execute later (docs/volcano/job-controller.md §3.6) */
};

/*
 * Resolve req against job (both borrowed) exactly as docs/volcano/job-controller.md §3.5 step 4
 * says: an explicit action wins; OutOfSync, CommandIssued and PodRunning are SyncJob; a pod of
 * another job uid or of an older job version is SyncJob; then the first matching task-level policy
 * (of the request's task), then job-level policy; PodPending matches only a policy with a timeout;
 * `*` matches every event; an exitCode policy matches an equal request exit code. Otherwise
 * SyncJob.
 */
void job_resolve(const struct vc_job *job, const struct job_request *req,
		 struct job_resolution *out);

/* ---- the job status as a value ----------------------------------------------------------- */

/*
 * The status the controller computes and writes (docs/volcano/job-controller.md §1.1.5). The json
 * members are owned (NEW references), NULL when absent. `state` keeps the stored state object
 * (reason, message, lastTransitionTime); its phase is `phase`/`phase_str`.
 */
struct job_status {
	enum vc_job_phase phase;
	char *phase_str; /* owned: the phase as written (kept for unknown phases) */
	int32_t min_available;
	int32_t pending, running, succeeded, failed, terminating, unknown;
	int32_t version, retry_count;
	json_t *task_status_count;    /* {task: {phase: {PodPhase: n}}} or NULL */
	json_t *controlled_resources; /* {key: value} or NULL */
	json_t *conditions;	      /* [{status, lastTransitionTime}] or NULL */
	json_t *state;		/* the stored state object (without being trusted for phase) */
	char *running_duration; /* Go duration string, or NULL */
};

/* Read the status object of a Job (borrowed; NULL is an empty status). 0 or VC_ENOMEM. */
int job_status_from_json(const json_t *status, struct job_status *st) VC_WARN_UNUSED;
/* Free what st owns and zero it. */
void job_status_release(struct job_status *st);
/* A deep copy into dst (overwritten). 0 or VC_ENOMEM (dst then zeroed). */
int job_status_copy(struct job_status *dst, const struct job_status *src) VC_WARN_UNUSED;
/* Set the phase (and its string). 0 or VC_ENOMEM. */
int job_status_set_phase(struct job_status *st, enum vc_job_phase phase) VC_WARN_UNUSED;
/*
 * The status as Volcano serialises it (Go omitempty: zero counters, empty maps and absent
 * members are left out), as a NEW object; NULL when out of memory.
 */
json_t *job_status_to_json(const struct job_status *st) VC_WARN_UNUSED;
/*
 * Whether two status objects (borrowed, NULL = empty) are semantically equal: a member that is
 * absent equals one that is 0, "", false, null, {} or [] (Go's omitempty makes both appear).
 */
bool job_status_json_equal(const json_t *a, const json_t *b);
/*
 * Record a transition at time `now` (RFC 3339 text): state.lastTransitionTime = now and a
 * condition {status: phase, lastTransitionTime: now} appended after removing any condition with
 * the same phase (docs/volcano/job-controller.md §4.8). 0 or VC_ENOMEM.
 */
int job_status_add_condition(struct job_status *st, const char *now) VC_WARN_UNUSED;
/*
 * Count a pod of task (may be NULL: counters only) whose status.phase is phase (NULL or "" when
 * absent): the counter of its phase (Unknown, empty and unknown strings count as unknown) and
 * taskStatusCount[task].phase[phase] (Go keys the map by the raw phase). 0 or VC_ENOMEM.
 */
int job_status_count_pod(struct job_status *st, const char *task, const char *phase) VC_WARN_UNUSED;
/* The Succeeded count of task in taskStatusCount; has is set when the task is present. */
int32_t job_status_task_succeeded(const struct job_status *st, const char *task, bool *has);

/* ---- the state machine (docs/volcano/job-controller.md §4.3) --------------------------------- */

enum job_prim {
	JOB_PRIM_SYNC,	      /* SyncJob(f) */
	JOB_PRIM_KILL,	      /* KillJob(retain, f) */
	JOB_PRIM_KILL_TARGET, /* KillTarget(target, f) */
};

enum job_retain {
	JOB_RETAIN_NONE, /* kill everything */
	JOB_RETAIN_SOFT, /* keep Succeeded and Failed pods */
};

/* The status functions of docs/volcano/job-controller.md §4.3. Each may edit the status and returns
 * whether it changed. */
enum job_status_fn {
	JOB_FN_NONE,	/* no status function */
	JOB_FN_PENDING, /* Pending: Running once minAvailable <= running+succeeded+failed */
	JOB_FN_RUNNING, /* Running: the completion logic of docs/volcano/job-controller.md §4.5 */
	JOB_FN_RESTART, /* R+; phase Restarting */
	JOB_FN_RS,	/* Restarting: Failed / Pending / no change */
	JOB_FN_TO_ABORTING,	   /* phase Aborting */
	JOB_FN_TO_COMPLETING,	   /* phase Completing */
	JOB_FN_TO_TERMINATING,	   /* phase Terminating */
	JOB_FN_ABORTED_IF_DEAD,	   /* Aborted when nothing is alive */
	JOB_FN_COMPLETED_IF_DEAD,  /* Completed when nothing is alive */
	JOB_FN_TERMINATED_IF_DEAD, /* Terminated when nothing is alive */
};

struct job_decision {
	enum job_prim prim;
	enum job_retain retain; /* JOB_PRIM_KILL only */
	enum job_status_fn fn;
};

/* The primitive, retain set and status function for action in phase (docs/volcano/job-controller.md
 * §4.1, §4.3). */
void job_state_decide(enum vc_job_phase phase, enum vc_bus_action action, struct job_decision *out);

/*
 * Apply a status function to st for job (borrowed). Returns true when the function reports a
 * transition (Go's `return true`). Fails only for lack of memory, reported through *rc (0 or
 * VC_ENOMEM); st is then unchanged in phase.
 */
bool job_status_fn_apply(enum job_status_fn fn, const struct vc_job *job, struct job_status *st,
			 int *rc);

/*
 * The phase the Restarting status function RS leads st to (docs/volcano/job-controller.md §4.3):
 * Failed once the retry budget is spent, Pending when enough pods are not terminating, else
 * Restarting. Reads st only.
 */
enum vc_job_phase job_rs_phase(const struct vc_job *job, const struct job_status *st);

/* The level of an action for the scope cancellation of delayed actions
 * (docs/volcano/job-controller.md §3.6). */
enum job_action_level {
	JOB_LEVEL_JOB,
	JOB_LEVEL_TASK,
	JOB_LEVEL_POD,
	JOB_LEVEL_PARTITION,
};
enum job_action_level job_action_level(enum vc_bus_action a);
/* SyncJob, EnqueueJob, SyncQueue, OpenQueue, CloseQueue. */
bool job_action_is_internal(enum vc_bus_action a);

/* Volcano's state names for logs ("Pending" for the empty phase). */
const char *job_state_name(enum vc_job_phase phase);

#endif /* JOB_STATE_H */
