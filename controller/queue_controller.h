/*
 * queue_controller.h - the Queue controller (job-controller.md §6.3, scheduler.md §2.4): queue
 * state Open/Closing/Closed from OpenQueue/CloseQueue Commands and its PodGroups, status counts.
 *
 * queuectl_new registers informer handlers on the shared context; main starts the informers, waits
 * for them to sync, then calls queuectl_start.
 */
#ifndef VC_QUEUE_CONTROLLER_H
#define VC_QUEUE_CONTROLLER_H

#include "vc_prelude.h"

#include "ctx.h"
#include "vc_err.h"

struct queuectl_config {
	int workers; /* worker threads (1) */
};

struct queuectl;

void queuectl_config_defaults(struct queuectl_config *cfg);

/* ctx is borrowed and must outlive the controller. */
int queuectl_new(struct vc_ctrl_ctx *ctx, const struct queuectl_config *cfg, struct queuectl **out,
		 struct vc_error *err) VC_WARN_UNUSED;
int queuectl_start(struct queuectl *c) VC_WARN_UNUSED;
void queuectl_stop(struct queuectl *c);
void queuectl_free(struct queuectl *c);

#endif /* VC_QUEUE_CONTROLLER_H */
