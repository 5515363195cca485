/*
 * queue_controller.h - the Queue controller (docs/volcano/job-controller.md §6.3,
 * docs/volcano/scheduler.md §2.4): queue state Open/Closing/Closed from OpenQueue/CloseQueue
 * Commands and its PodGroups, status counts.
 *
 * queuectl_new registers informer handlers on the shared context; main starts the informers, waits
 * for them to sync, then calls queuectl_start.
 */
#ifndef VC_QUEUE_CONTROLLER_H
#define VC_QUEUE_CONTROLLER_H

#include "vc_prelude.h"

#include "ctx.h"
#include "vc_err.h"

struct vc_metrics;

struct queuectl_config {
	int workers;	 /* worker threads (1); Commands have one thread of their own */
	int max_requeue; /* retries of a failing request before it is dropped (15; < 0 unlimited) */
	/*
	 * The PodGroup counts (status.pending/running/inqueue/unknown/completed) are written at
	 * most this often per Queue (5 s; docs/volcano/scheduler.md §2.4 REC); a state change is
	 * written at once, with the counts. < 0: never write the counts.
	 */
	int64_t status_interval_ns;
	/*
	 * When not NULL (borrowed, must outlive the controller): the gauges
	 * volcano_queue_pod_group_{inqueue,pending,running,unknown,completed}_count{queue_name}
	 * are registered in it and kept up to date.
	 */
	struct vc_metrics *metrics;
};

struct queuectl;

void queuectl_config_defaults(struct queuectl_config *cfg);

/* ctx is borrowed and must outlive the controller. */
int queuectl_new(struct vc_ctrl_ctx *ctx, const struct queuectl_config *cfg, struct queuectl **out,
		 struct vc_error *err) VC_WARN_UNUSED;
int queuectl_start(struct queuectl *c) VC_WARN_UNUSED;
/*
 * Stop the workers: they finish the keys already queued, delayed keys are dropped. The
 * informers may keep calling the handlers afterwards (their adds are ignored), but queuectl_free
 * must come after ctx_stop: the handlers use the controller. Idempotent.
 */
void queuectl_stop(struct queuectl *c);
/* Free the controller (stopping it first). NULL is a no-op. */
void queuectl_free(struct queuectl *c);

/*
 * Process one ready key on the calling thread without blocking: 1 when a key was processed,
 * 0 when none was ready (delayed keys count as ready once vc_time_mono_ns() reaches their
 * time). For tests with an injected clock, and for callers that drive the controller
 * themselves instead of starting its threads.
 */
int queuectl_run_once(struct queuectl *c);

#endif /* VC_QUEUE_CONTROLLER_H */
