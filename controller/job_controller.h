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
#include "vc_metrics.h"

struct jobctl_config {
	int workers;	 /* --worker-threads (3) */
	int max_requeue; /* --max-requeue-num (15; < 0 unlimited) */
	/*
	 * Optional (borrowed): the registry of Volcano's job controller metrics
	 * (docs/volcano/metrics.md, Controller manager): volcano_job_{completed,failed}_phase_count
	 * and volcano_controller_job_to_pod_creation_latency_milliseconds. metrics_no_per_job
	 * (--metrics-per-job=false) leaves out the two per-job counters.
	 */
	struct vc_metrics *metrics;
	bool metrics_no_per_job;
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
