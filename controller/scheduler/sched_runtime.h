/*
 * sched_runtime.h - the bundled scheduler's loop inside vc-controller (scheduler.md §1.1):
 * snapshot from the shared informers, sched_session_run, write-back, binder pool.
 *
 * sched_runtime_new registers handlers on the context's pods, nodes, podgroups, queues and
 * priorityclasses informers (an early cycle when work arrives); main starts the informers, waits
 * for them to sync, then calls sched_runtime_start.
 */
#ifndef SCHED_RUNTIME_H
#define SCHED_RUNTIME_H

#include "vc_prelude.h"

#include "ctx.h"
#include "vc_err.h"

#define SCHED_MAX_NAMES 8

struct sched_runtime_config {
	const char *scheduler_names[SCHED_MAX_NAMES]; /* --scheduler-name (volcano), borrowed */
	size_t nscheduler_names;
	const char *conf_path;	   /* --scheduler-conf; NULL or "" = the built-in default */
	int64_t period_ns;	   /* --schedule-period (1 s) */
	int bind_workers;	   /* --bind-workers (16) */
	const char *default_queue; /* --default-queue ("default") */
	uint64_t seed;		   /* --seed for node-score ties (0 = from the clock) */
	const char *node_selectors[SCHED_MAX_NAMES]; /* --node-selector key:value */
	size_t nnode_selectors;
};

struct sched_runtime;

void sched_runtime_config_defaults(struct sched_runtime_config *cfg);

/* ctx is borrowed and must outlive the runtime. Fails on an unreadable --scheduler-conf. */
int sched_runtime_new(struct vc_ctrl_ctx *ctx, const struct sched_runtime_config *cfg,
		      struct sched_runtime **out, struct vc_error *err) VC_WARN_UNUSED;
/* Create the default and root queues if missing, start the loop and binders. */
int sched_runtime_start(struct sched_runtime *s) VC_WARN_UNUSED;
void sched_runtime_stop(struct sched_runtime *s);
void sched_runtime_free(struct sched_runtime *s);

#endif /* SCHED_RUNTIME_H */
