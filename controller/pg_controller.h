/*
 * pg_controller.h - the PodGroup controller for plain pods with schedulerName volcano
 * (job-controller.md §6.2).
 *
 * pgctl_new registers informer handlers on the shared context; main starts the informers, waits
 * for them to sync, then calls pgctl_start.
 */
#ifndef VC_PG_CONTROLLER_H
#define VC_PG_CONTROLLER_H

#include "vc_prelude.h"

#include "ctx.h"
#include "vc_err.h"

struct pgctl_config {
	int workers; /* worker threads (1) */
};

struct pgctl;

void pgctl_config_defaults(struct pgctl_config *cfg);

/* ctx is borrowed and must outlive the controller. */
int pgctl_new(struct vc_ctrl_ctx *ctx, const struct pgctl_config *cfg, struct pgctl **out,
	      struct vc_error *err) VC_WARN_UNUSED;
int pgctl_start(struct pgctl *c) VC_WARN_UNUSED;
void pgctl_stop(struct pgctl *c);
void pgctl_free(struct pgctl *c);

#endif /* VC_PG_CONTROLLER_H */
