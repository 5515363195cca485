/*
 * job_internal.h - what the Job controller's files share, and the seams its unit tests use
 * (docs/volcano/job-controller.md §3, §4). Not for other parts of vc-controller: they use
 * job_controller.h.
 */
#ifndef JOB_INTERNAL_H
#define JOB_INTERNAL_H

#include "vc_prelude.h"

#include <jansson.h>
#include <pthread.h>

#include "job_controller.h"
#include "job_plugins.h"
#include "job_state.h"
#include "vc_cache.h"
#include "vc_hash.h"
#include "vc_model.h"
#include "vc_time.h"
#include "vc_workqueue.h"

/* ---- test seams ---------------------------------------------------------------------------- */

/* Receives every Event the controller records on a Job (tests); strings borrowed for the call. */
typedef void jobctl_event_fn(void *ctx, const char *job_key, const char *type, const char *reason,
			     const char *message);

struct jobctl_hooks {
	const struct job_keygen *keygen; /* ssh keys; NULL = OpenSSL */
	/* Randomness for generated names (PVCs, pod volumes); NULL = getrandom(2). */
	uint64_t (*rand)(void *ctx);
	void *rand_ctx;
	jobctl_event_fn *event_sink; /* NULL = none (events still go to ctx->events) */
	void *event_ctx;
	/* Threads creating and deleting pods in parallel: < 0 the default (64), 0 inline. */
	int pool_threads;
};

/* jobctl_new with hooks (copied; NULL = defaults). */
int jobctl_new_with(struct vc_ctrl_ctx *ctx, const struct jobctl_config *cfg,
		    const struct jobctl_hooks *hooks, struct jobctl **out,
		    struct vc_error *err) VC_WARN_UNUSED;

/*
 * Process, in the calling thread, every key that is ready in the command and job queues
 * (moving delayed keys whose time came first), until none is left. For tests, which do not
 * call jobctl_start. Returns the number of keys processed.
 */
size_t jobctl_run_pending(struct jobctl *c);

/* The informer handlers jobctl_new registers (tests call them directly). */
void jobctl_test_handlers(struct jobctl *c, struct vc_informer_handler *jobs,
			  struct vc_informer_handler *pods, struct vc_informer_handler *podgroups,
			  struct vc_informer_handler *commands);

/* How many delayed actions are registered for the job key (tests). */
size_t jobctl_delayed_count(struct jobctl *c, const char *key);
/* How many jobs have per-job state (job_cache.c's entries: overlay, expectations, ...; tests). */
size_t jobctl_test_entries(struct jobctl *c);

/* ---- the parallel runner (job_pool.c) -------------------------------------------------------- */

struct job_pool;

/*
 * A pool of up to n threads (0: none; every batch then runs inline), started as batches need
 * them; a thread without work for 2 s ends (its stack, malloc cache and libcurl handle go with
 * it). NULL when out of memory.
 */
struct job_pool *job_pool_new(int n) VC_WARN_UNUSED;
/* Stop and join the threads, free the pool. NULL is a no-op. */
void job_pool_free(struct job_pool *p);
/*
 * Run fn(arg, i) for every i in [0, n), on the pool's threads and the calling thread, and
 * return when all calls have returned. Any thread may submit; batches share the threads.
 */
void job_pool_run(struct job_pool *p, size_t n, void (*fn)(void *arg, size_t i), void *arg);

/* ---- the controller object ------------------------------------------------------------------- */

struct vc_ctlrun;
struct job_entry; /* per-job state: status overlay, delayed actions (job_controller.c) */

struct jobctl {
	struct vc_ctrl_ctx *ctx;
	struct jobctl_config cfg;
	struct jobctl_hooks hooks;
	struct vc_ctlrun *rt;	   /* the command thread and the workers */
	struct vc_workqueue *q;	   /* "<ns>/<job>" with a list of pending requests (rt's) */
	struct vc_workqueue *cmdq; /* "<ns>/<command>" (rt's) */
	struct job_pool *pool;
	pthread_mutex_t lock;	/* guards the entries */
	struct vc_hmap entries; /* "<ns>/<job>" -> struct job_entry (job_cache.c) */
	bool stopped;
	/* The lane of Job adds waiting to be fed into q (job_controller.c, job_enqueue_add). */
	pthread_mutex_t lane_lock;
	char **lane; /* keys, oldest at lane_head; owned */
	size_t lane_head, lane_n, lane_cap;
	struct vc_hmap lane_keys; /* the keys in the lane (a string set) */
	unsigned lane_worked;	  /* keys worked since the lane last fed q */
	/* Metrics (NULL without a registry; the phase counters also with per-job series off). */
	struct vc_metric *m_completed, *m_failed, *m_pod_latency;
};

/*
 * Metrics of the job controller (job_controller.c). A status write that moved the job from
 * old_phase (its phase string, may be NULL) to Completed or Failed counts one; a pod created
 * observes the time since the job's creation. job_metrics_forget deletes a job's series.
 */
struct job_run;
void job_metrics_phase(struct job_run *run, const char *old_phase, const char *new_phase);
void job_metrics_pod_created(struct job_run *run);
void job_metrics_forget(struct jobctl *c, const json_t *job);

/*
 * One job being worked on by a worker: its object (the newest of the informer's and the one
 * this controller last wrote), a view of it, and its cached pods.
 */
struct job_run {
	struct jobctl *c;
	const char *key;
	json_t *obj; /* new reference */
	struct vc_job job;
	struct vc_objs pods;
	json_t *exp; /* job_expect_snapshot before the pods were read, or NULL */
	/* The least time left of the pod expectations a primitive relied on (0: none). */
	int64_t exp_left;
};

/* The target of KillTarget (docs/volcano/job-controller.md §4.2.2); NULL members are absent. */
struct job_target {
	const char *task, *pod, *partition;
};

/* Load the job key into run (NULL obj: the job is not in the cache). 0, VC_ENOENT, VC_ENOMEM. */
int job_run_load(struct jobctl *c, const char *key, struct job_run *run) VC_WARN_UNUSED;
void job_run_release(struct job_run *run);
/* Replace run's object by obj (stolen) and re-read the view; remembers obj as the overlay. */
int job_run_replace(struct job_run *run, json_t *obj) VC_WARN_UNUSED;

/* The primitives (job_sync.c, job_kill.c). 0 or a negative code (the request is retried). */
int job_sync(struct job_run *run, enum job_status_fn fn) VC_WARN_UNUSED;
int job_kill(struct job_run *run, const struct job_target *target, enum job_retain retain,
	     enum job_status_fn fn) VC_WARN_UNUSED;
/*
 * KillJob's runningDuration (docs/volcano/job-controller.md §4.8): lastTransitionTime -
 * creationTimestamp, as Go's Duration.String() into buf. Volcano subtracts its in-memory times:
 * a transition made by this kill (transition_ns, the clock read it stamped; 0 when the kill made
 * none) counts to the nanosecond ("7.71871174s"); an earlier one is known to the second only, as
 * the API server keeps it (last_transition, RFC 3339). VC_EINVAL (buf "") when a time is missing
 * or does not parse.
 */
int job_running_duration(const char *created, const char *last_transition, int64_t transition_ns,
			 char buf[VC_DURATION_STR_MAX]);

/* ---- what SyncJob and KillJob share (job_sync.c) --------------------------------------------- */

struct vc_kube *job_kube(const struct job_run *run);
/* The current time as RFC 3339, to the second (the epoch when it cannot be formatted); returns
 * that time in nanoseconds since the epoch. */
int64_t job_now_str(char buf[VC_TIME_STR_MAX]);
/* Annotation key of obj (borrowed), or NULL. */
const char *job_ann(const json_t *obj, const char *key);
/* metadata.name of obj (borrowed), "" when absent. */
const char *job_name_of(const json_t *obj);
/* Whether obj has a deletionTimestamp. */
bool job_deleting(const json_t *obj);
/* The pod's phase; an empty or absent one is Unknown (docs/volcano/job-controller.md §4.4). */
enum vc_pod_phase job_phase_of(const json_t *pod);
/* Count a pod into the status: its phase, and taskStatusCount of its task annotation. */
int job_count_pod(struct job_status *st, const json_t *pod);

/* The status PUT alone: *out (may stay NULL) receives the answer; run is not changed. */
int job_put_status(struct job_run *run, const struct job_status *st, json_t **out,
		   struct vc_error *err) VC_WARN_UNUSED;
/*
 * UpdateStatus with st through jobs/status; on success the returned Job replaces run's object.
 * notfound_ok: a Job that is gone is success (the kill path).
 */
int job_write_status(struct job_run *run, const struct job_status *st, bool notfound_ok,
		     struct vc_error *err) VC_WARN_UNUSED;
/* Update the Job itself (spec/metadata) with obj (borrowed); the answer replaces run's object. */
int job_write_job(struct job_run *run, const json_t *obj, struct vc_error *err) VC_WARN_UNUSED;

/* Pod creations and deletions run in parallel on the job pool, one pod_op each. */
struct pod_op {
	json_t *pod; /* NEW reference: to create, or the cached pod to delete */
	int rc;
	bool patch; /* kill: mark out-of-sync first */
	bool patch_failed;
	char *phase; /* created: the phase the API answered (owned), or NULL */
	char err[VC_ERROR_TEXT_LEN + 512];
};

struct pod_ops {
	struct job_run *run;
	struct pod_op *ops;
	size_t n;
};

/* job_pool_run function: delete ops[i]'s pod (patched out-of-sync first when op->patch). */
void job_pod_ops_delete(void *arg, size_t i);
/* Drop every op's pod and phase, free the ops. */
void job_pod_ops_release(struct pod_ops *po);
/* Append pod (stolen, also on failure) to po, allocating cap ops on the first call. 0, VC_ENOMEM.
 */
int job_pod_ops_add(struct pod_ops *po, json_t *pod, size_t cap) VC_WARN_UNUSED;
/* How many ops failed. */
size_t job_pod_ops_failed(const struct pod_ops *po);
/* "[e1 e2 ...]" of the failed operations (Go's %+v of an error slice, owned); NULL when none. */
char *job_pod_ops_errors(const struct pod_ops *po);
/* An earlier sync or kill deleted this pod (the informer does not show it yet). */
bool job_delete_expected(struct job_run *run, const json_t *pod);
/* Expect the deletion of every op's pod (before the calls). */
void job_expect_deletes(struct job_run *run, const struct pod_ops *po);
/* Deletions that failed are not expected any more. */
void job_deletes_done(struct job_run *run, const struct pod_ops *po);

/* ---- the objects a sync maintains (job_sync_objects.c) --------------------------------------- */

/*
 * Run the job-level plugin hook which (0 add, 1 update, 2 delete; docs/volcano/job-controller.md
 * §5) with the working status st's markers, and carry out what it asked for.
 */
int job_plugin_hook(struct job_run *run, struct job_status *st, int which,
		    struct vc_error *err) VC_WARN_UNUSED;
/*
 * The job's PVCs (docs/volcano/job-controller.md §2.3): check the named ones, create the
 * generated ones (the Job is updated with their names), set their markers on st.
 */
int job_sync_volumes(struct job_run *run, struct job_status *st,
		     struct vc_error *err) VC_WARN_UNUSED;
/* The job's PodGroup from the informer (new reference): `<job>-<uid>`, else legacy `<job>`. */
json_t *job_pg_cached(struct job_run *run);
/* The priority of each task's priorityClassName (owned, ntasks and at least 1); NULL: ENOMEM. */
int32_t *job_task_weights(struct job_run *run);
/* Create the job's PodGroup, or update its spec when it differs
 * (docs/volcano/job-controller.md §2.2). */
int job_pg_create_or_update(struct job_run *run, struct vc_error *err) VC_WARN_UNUSED;
/*
 * docs/volcano/job-controller.md §1.5 PodGroupPending: the condition the warning is about, i.e.
 * pg's newest condition with status True unless it is of type Scheduled (borrowed from pg), or
 * NULL when there is nothing to warn about.
 */
const json_t *job_pg_pending_condition(const json_t *pg);
/* docs/volcano/job-controller.md §1.5 PodGroupPending: record the warning for pg (borrowed). */
void job_pg_pending_event(struct job_run *run, const json_t *pg);

/* Record an Event on the job (Normal/Warning), to ctx->events and the test sink. */
void job_event(struct jobctl *c, const struct vc_job *job, const char *type, const char *reason,
	       const char *fmt, ...) VC_PRINTF(5, 6);

/*
 * Pod expectations, as kube-controller-manager's: a creation or deletion this controller sent is
 * remembered under the job key and the pod name until the pod informer shows it (the pod added;
 * the pod deleted or marked for deletion) or JOB_EXPECT_TIMEOUT_NS passed. Meanwhile a sync
 * counts the pod as created (Pending) or as terminating instead of sending the call again, so a
 * sync that runs before the watch caught up neither repeats creations (AlreadyExists) nor
 * deletions, nor writes a status that counts pods still on their way. Thread-safe.
 *
 * job_expect records one (create: uid unused; delete: the pod's uid). job_expect_observed drops
 * it (uid NULL: any). job_expect_snapshot: a copy of the job's expectations (new reference, NULL
 * when none), taken before the pods are read from the cache. job_expecting: whether the snapshot
 * has one for pod that has not expired (a deletion must match uid); *left (may be NULL) is then
 * lowered to the time it has left (0 counts as "no value yet").
 */
#define JOB_EXPECT_TIMEOUT_NS (30 * INT64_C(1000000000))

void job_expect(struct jobctl *c, const char *key, bool create, const char *pod, const char *uid);
void job_expect_observed(struct jobctl *c, const char *key, bool create, const char *pod,
			 const char *uid);
json_t *job_expect_snapshot(struct jobctl *c, const char *key) VC_WARN_UNUSED;
bool job_expecting(const json_t *snap, bool create, const char *pod, const char *uid,
		   int64_t *left);
/*
 * Queue an OutOfSync request for key in delay_ns: a sync that relied on an expectation checks
 * again once it would have expired (a pod that never shows up is then created after all).
 */
void job_recheck_after(struct jobctl *c, const char *key, int64_t delay_ns);
/*
 * Whether msg differs from the last PodGroupPending message recorded for the job key; remembers
 * msg (NULL forgets). The warning is recorded on every sync in Volcano, where client-go's event
 * correlator folds the repeats into one Event; here a repeat is not sent at all.
 */
bool job_pg_pending_changed(struct jobctl *c, const char *key, const char *msg);

/* ---- the per-job state (job_cache.c) --------------------------------------------------------- */

/* A delayed action (docs/volcano/job-controller.md §3.6) of a job; its strings are owned. */
struct job_delayed {
	char *pod; /* "" for job-level requests */
	int event;
	enum vc_bus_action action;
	char *action_str, *task, *pod_uid, *partition;
	int64_t due; /* vc_time_mono_ns() */
	uint64_t id;
};

/* Free d's strings and zero it. */
void job_delayed_release(struct job_delayed *d);
/* docs/volcano/job-controller.md §3.6 "Cancellation on new pod events": the delayed action r's pod
 * event cancels, if any. */
void job_delayed_cancel_for_event(struct jobctl *c, const char *key, const struct job_request *r);
/* docs/volcano/job-controller.md §3.6 scope cancellation after action a ran with target (task, pod,
 * partition). */
void job_delayed_cancel_scope(struct jobctl *c, const char *key, enum vc_bus_action a,
			      const char *task, const char *pod, const char *partition);
/* Register a delayed action; returns its due time, or 0 when it was not registered. */
int64_t job_delayed_register(struct jobctl *c, const char *key, const struct job_request *r,
			     const struct job_resolution *res);
/* Take the first delayed action that is due (into *out, owned), 0 when none; *next the next due. */
bool job_delayed_take_due(struct jobctl *c, const char *key, struct job_delayed *out,
			  int64_t *next);
/*
 * The job under key (new reference): the informer's object, or the object this controller
 * last wrote when that one is newer (the watch has not caught up yet). NULL when the informer
 * does not have the job (deleted or not seen yet).
 */
json_t *job_cache_get(struct jobctl *c, const char *key);
/* Forget everything about the job key (it was deleted). */
void job_cache_remove(struct jobctl *c, const char *key);
/* Free every entry and the map (jobctl_free). */
void job_cache_free(struct jobctl *c);

/* ---- queueing (job_controller.c) and handlers (job_handlers.c) ------------------------------- */

/* Queue request r (stolen) under the job key; logged when it cannot be queued. */
void job_enqueue(struct jobctl *c, const char *key, struct job_request *r);
/*
 * Queue the OutOfSync request of a Job the informer added, through the lane of Job adds: it
 * reaches the work queue while that holds few ready keys, so that the requests following up a
 * job already worked on (its PodGroup turning Inqueue) are not queued behind every job of a
 * backlog. Logged when it cannot be queued.
 */
void job_enqueue_add(struct jobctl *c, const char *key);
/*
 * A pod added already finished (r->recovered; docs/volcano/job-controller.md §8.40), processed
 * with job (the job key's current view): while the job is Pending or Running, the pod of its
 * uid and current version, and the pod in the cache still that one, finished, neither marked
 * out-of-sync nor being deleted, r's event becomes the one the unseen update to that phase
 * would have given: PodFailed with the first container's exit code; for a Succeeded pod
 * TaskCompleted when the task is complete, a policy names the event and the pod finished last
 * of the task, else OutOfSync. Returns whether it did; r->recovered is cleared either way.
 */
bool job_pod_recover(struct jobctl *c, const char *key, const struct vc_job *job,
		     struct job_request *r);
/* The informer handlers: 0 jobs, 1 pods, 2 podgroups, 3 commands (a thread-local copy). */
const struct vc_informer_handler *job_handler_set(struct jobctl *c, int which);

/* How many expectations the job key has (tests). */
size_t jobctl_expectations(struct jobctl *c, const char *key);

/* Remember obj (borrowed) as the newest known state of its job (docs/volcano/job-controller.md §3.3
 * "refresh cache"). */
void job_overlay_store(struct jobctl *c, const char *key, json_t *obj);
/*
 * The watch shows obj (borrowed) for key: forget the stored object when obj is the same job at
 * the same or a newer version, so that it does not stay until the job's next sync.
 */
void job_overlay_seen(struct jobctl *c, const char *key, const json_t *obj);

/* 12 random characters of [0-9a-z] into buf (13 bytes). */
void job_random_suffix(struct jobctl *c, char buf[13]);

/* The pod's controller ownerReference is a batch.volcano.sh/v1alpha1 Job: its uid, else NULL. */
const char *job_pod_owner_uid(const json_t *pod);

#endif /* JOB_INTERNAL_H */
