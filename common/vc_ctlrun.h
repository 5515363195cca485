/*
 * vc_ctlrun.h - the controller runtime: worker threads on rate-limited work queues and
 * client-go's retry policy (processNextWorkItem / handleErr), written once for the job, queue,
 * podgroup and gc controllers.
 *
 * A runtime holds up to VC_CTLRUN_MAX_QUEUES work queues, each with its worker threads and one
 * of two ways of working a key:
 *   - sync: the function returns 0 or an error, and the runtime applies handleErr: on success
 *     Forget; on an error a rate-limited requeue while the key has had fewer than max_requeue
 *     (< 0: unlimited) retries, else the key is dropped and forgotten. The log lines are the
 *     controller's own (struct vc_ctlrun_retry);
 *   - process: the function gets the key and its payload and decides on retries itself (with
 *     vc_ctlrun_should_retry), for queues whose payload must travel with the retry.
 * In both cases the runtime calls vc_workqueue_done afterwards (Done always).
 *
 * Threads are created queue by queue in the order the queues were added; stopping shuts every
 * queue down (in that order) before it joins any thread, so workers drain the keys already
 * queued (vc_workqueue_get's shutdown rule) and delayed keys are dropped.
 *
 * vc_ctlrun_new, _add, _start, _stop and _free are called from one thread (the owner);
 * vc_ctlrun_run_once and vc_ctlrun_run_pending (tests, callers that drive the queues themselves)
 * may run while workers run. The queues themselves are thread-safe (vc_workqueue.h).
 */
#ifndef VC_CTLRUN_H
#define VC_CTLRUN_H

#include "vc_prelude.h"

#include "vc_err.h"
#include "vc_workqueue.h"

#define VC_CTLRUN_MAX_QUEUES 4

/*
 * Work key (a sync queue): 0 when done with it, else a negative code; err (cleared before the
 * call) may carry the message logged with the retry or the drop.
 */
typedef int vc_ctlrun_sync_fn(void *ctx, const char *key, struct vc_error *err);

/*
 * Work key and its payload (a process queue): the function owns payload (NULL when none), and
 * calls vc_workqueue_forget / requeues itself. key is valid until it returns.
 */
typedef void vc_ctlrun_process_fn(void *ctx, const char *key, void *payload);

/*
 * The retry policy and log lines of a sync queue. Each line is "<msg> <key_label>=<key>
 * <label>=\"<text>\"", where text is err's message (or vc_strerror of the code when err is
 * empty) for the retry and drop lines, and vc_strerror of the queue's error for requeue_msg.
 */
struct vc_ctlrun_retry {
	int max_requeue;	       /* retries before the key is dropped; < 0 unlimited */
	const char *key_label;	       /* "job", "pod", "command" */
	int retry_level;	       /* VC_LOG_WARN, VC_LOG_ERROR, ... */
	const char *retry_msg;	       /* logged on each retry (label "error"); NULL: not logged */
	int requeue_level;	       /* when the requeue itself fails (not after shutdown) */
	const char *requeue_msg;       /* NULL: not logged */
	const char *requeue_err_label; /* "error" or "err" */
	const char *drop_msg; /* logged at error level when the key is dropped (label "error") */
};

/* One queue of a runtime; exactly one of sync and process is set. */
struct vc_ctlrun_queue_def {
	const struct vc_workqueue_opts *opts; /* NULL: the defaults; copied */
	int workers;			      /* threads, taken as 1 when smaller */
	vc_ctlrun_sync_fn *sync;
	const struct vc_ctlrun_retry *retry; /* with sync; borrowed, must outlive the runtime */
	vc_ctlrun_process_fn *process;
	void *ctx; /* passed to sync or process */
};

struct vc_ctlrun;

/* An empty runtime, or NULL when out of memory. */
struct vc_ctlrun *vc_ctlrun_new(void) VC_WARN_UNUSED;

/*
 * Add a queue (before vc_ctlrun_start). *wq (may be NULL) receives the queue, owned by the
 * runtime, for the controller's adds. Returns 0, VC_EINVAL (bad definition, too many queues,
 * already started) or VC_ENOMEM (the runtime is unchanged).
 */
int vc_ctlrun_add(struct vc_ctlrun *rt, const struct vc_ctlrun_queue_def *def,
		  struct vc_workqueue **wq) VC_WARN_UNUSED;

/*
 * Start the worker threads. Returns 0, VC_EINVAL when started before, VC_ENOMEM (nothing
 * started; may be called again), or the negated error of pthread_create, in which case the
 * runtime has been stopped (vc_ctlrun_stop).
 */
int vc_ctlrun_start(struct vc_ctlrun *rt) VC_WARN_UNUSED;

/* The number of worker threads running (all queues). */
size_t vc_ctlrun_threads(const struct vc_ctlrun *rt);

/*
 * Shut every queue down, in the order they were added, then join the workers (they finish the
 * keys already queued). Idempotent; NULL is a no-op; fine before vc_ctlrun_start.
 */
void vc_ctlrun_stop(struct vc_ctlrun *rt);

/* Stop, then free the queues (and their pending payloads) and the runtime. NULL is a no-op. */
void vc_ctlrun_free(struct vc_ctlrun *rt);

/*
 * Work one ready key on the calling thread without blocking, trying the queues in the order
 * they were added: 1 when a key was worked, 0 when none was ready.
 */
int vc_ctlrun_run_once(struct vc_ctlrun *rt);

/*
 * Tick every queue (vc_workqueue_tick) and work every ready key, queue after queue, until a
 * whole round finds none; returns the number of keys worked. For tests with an injected clock.
 */
size_t vc_ctlrun_run_pending(struct vc_ctlrun *rt);

/* handleErr's test: max_requeue < 0, or key has had fewer rate-limited adds than max_requeue. */
bool vc_ctlrun_should_retry(struct vc_workqueue *wq, const char *key, int max_requeue);

/*
 * handleErr of a sync queue for key whose work returned rc (err as the sync function left it):
 * Forget on 0, else retry or drop as described above. The caller still calls Done.
 */
void vc_ctlrun_handle_err(struct vc_workqueue *wq, const char *key, int rc,
			  const struct vc_error *err, const struct vc_ctlrun_retry *retry);

#endif /* VC_CTLRUN_H */
