/*
 * pg_controller.h - the PodGroup controller for plain pods with schedulerName volcano
 * (docs/volcano/job-controller.md §6.2).
 *
 * It needs the pods informer; with the podgroups informer too it skips the create of a PodGroup
 * that is already cached (without it every pod costs a create answered AlreadyExists).
 *
 * pgctl_new registers informer handlers on the shared context; main starts the informers, waits
 * for them to sync, then calls pgctl_start.
 */
#ifndef VC_PG_CONTROLLER_H
#define VC_PG_CONTROLLER_H

#include "vc_prelude.h"

#include "ctx.h"
#include "vc_err.h"

#define PGCTL_MAX_SCHEDULER_NAMES 8

struct pgctl_config {
	int workers; /* worker threads (1) */
	/*
	 * --scheduler-name: pods whose spec.schedulerName is one of these get a PodGroup. None
	 * (the default) means "volcano". The strings are copied by pgctl_new.
	 */
	const char *scheduler_names[PGCTL_MAX_SCHEDULER_NAMES];
	size_t nscheduler_names;
	/*
	 * Read the owners (ReplicaSet, DaemonSet, StatefulSet, batch/v1 Job) of a pod for
	 * scheduling.volcano.sh/group-min-member and their volcano.sh/ annotations (true, Volcano's
	 * --inherit-owner-annotations). false: minMember 1, nothing inherited, no GETs.
	 */
	bool inherit_owner_annotations;
};

struct pgctl;

void pgctl_config_defaults(struct pgctl_config *cfg);

/* ctx is borrowed and must outlive the controller. */
int pgctl_new(struct vc_ctrl_ctx *ctx, const struct pgctl_config *cfg, struct pgctl **out,
	      struct vc_error *err) VC_WARN_UNUSED;
int pgctl_start(struct pgctl *c) VC_WARN_UNUSED;
/*
 * Stop the workers: they finish the keys already queued, delayed keys are dropped. The
 * informers may keep calling the handlers afterwards (their adds are ignored), but pgctl_free
 * must come after ctx_stop: the handlers use the controller. Idempotent.
 */
void pgctl_stop(struct pgctl *c);
/* Free the controller (stopping it first). NULL is a no-op. */
void pgctl_free(struct pgctl *c);

/*
 * Process one ready key on the calling thread without blocking: 1 when a key was processed,
 * 0 when none was ready (delayed keys count as ready once vc_time_mono_ns() reaches their
 * time). For tests with an injected clock, and for callers that drive the controller
 * themselves instead of starting its threads.
 */
int pgctl_run_once(struct pgctl *c);

#endif /* VC_PG_CONTROLLER_H */
