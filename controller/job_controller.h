/*
 * job_controller.h - the Volcano Job lifecycle controller (docs/volcano/job-controller.md §2-§5).
 *
 * jobctl_new registers handlers on the context's jobs, pods, podgroups and commands informers
 * (it needs those plus queues, priorityclasses and pvcs); main starts the informers, waits for
 * them to sync, then calls jobctl_start to run the workers. Requests of one job are processed
 * serially (docs/volcano/job-controller.md §3.2).
 */
#ifndef VC_JOB_CONTROLLER_H
#define VC_JOB_CONTROLLER_H

#include "vc_prelude.h"

#include "ctx.h"
#include "vc_err.h"

struct jobctl_config {
	int workers;	 /* --worker-threads (3) */
	int max_requeue; /* --max-requeue-num (15; < 0 unlimited) */
};

struct jobctl;

void jobctl_config_defaults(struct jobctl_config *cfg);

/* ctx is borrowed and must outlive the controller. */
int jobctl_new(struct vc_ctrl_ctx *ctx, const struct jobctl_config *cfg, struct jobctl **out,
	       struct vc_error *err) VC_WARN_UNUSED;
/* Start the workers (after the caches synced). 0 or a negative errno. */
int jobctl_start(struct jobctl *c) VC_WARN_UNUSED;
/* Stop the workers; requests in progress finish first. Idempotent. */
void jobctl_stop(struct jobctl *c);
void jobctl_free(struct jobctl *c);

#endif /* VC_JOB_CONTROLLER_H */
