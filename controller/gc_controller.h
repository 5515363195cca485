/*
 * gc_controller.h - the garbage collector of finished Jobs with ttlSecondsAfterFinished
 * (docs/volcano/job-controller.md §4.11).
 *
 * gcctl_new registers informer handlers on the shared context; main starts the informers, waits
 * for them to sync, then calls gcctl_start.
 */
#ifndef VC_GC_CONTROLLER_H
#define VC_GC_CONTROLLER_H

#include "vc_prelude.h"

#include "ctx.h"
#include "vc_err.h"

struct gcctl_config {
	int workers; /* worker threads (1) */
};

struct gcctl;

void gcctl_config_defaults(struct gcctl_config *cfg);

/* ctx is borrowed and must outlive the controller. */
int gcctl_new(struct vc_ctrl_ctx *ctx, const struct gcctl_config *cfg, struct gcctl **out,
	      struct vc_error *err) VC_WARN_UNUSED;
int gcctl_start(struct gcctl *c) VC_WARN_UNUSED;
/*
 * Stop the workers: they finish the keys already queued, delayed keys are dropped. The
 * informers may keep calling the handlers afterwards (their adds are ignored), but gcctl_free
 * must come after ctx_stop: the handlers use the controller. Idempotent.
 */
void gcctl_stop(struct gcctl *c);
/* Free the controller (stopping it first). NULL is a no-op. */
void gcctl_free(struct gcctl *c);

/*
 * Process one ready key on the calling thread without blocking: 1 when a key was processed,
 * 0 when none was ready (delayed keys count as ready once vc_time_mono_ns() reaches their
 * time). For tests with an injected clock, and for callers that drive the controller
 * themselves instead of starting its threads.
 */
int gcctl_run_once(struct gcctl *c);

#endif /* VC_GC_CONTROLLER_H */
