/*
 * sched_runtime.h - the bundled scheduler's loop inside vc-controller (docs/volcano/scheduler.md
 * §1.1): snapshot from the shared informers, sched_session_run, write-back, binder pool.
 *
 * sched_runtime_new registers handlers on the context's pods, nodes, podgroups, queues and
 * priorityclasses informers (an early cycle when work arrives), and list handlers on the pods
 * and podgroups informers; main starts the informers and then sched_runtime_start at once. The
 * loop runs no session before every other informer has synced and the pods bound to nodes are
 * known (listed alone, or the pods informer synced); its first sessions then run over the pods
 * and PodGroups listed so far and only bind (docs/volcano/scheduler.md §1.1).
 */
#ifndef SCHED_RUNTIME_H
#define SCHED_RUNTIME_H

#include "vc_prelude.h"

#include "ctx.h"
#include "vc_err.h"
#include "vc_metrics.h"

#define SCHED_MAX_NAMES 8

struct sched_conf;
struct sched_snapshot;
struct sched_result;

/* sched_session_run's signature (sched_session.h): the session a runtime runs each cycle. */
typedef int sched_session_run_fn(const struct sched_conf *conf, struct sched_snapshot *snap,
				 const char *session_uid, const char *now, uint64_t seed,
				 struct sched_result *out, struct vc_error *err);

struct sched_runtime_config {
	const char *scheduler_names[SCHED_MAX_NAMES]; /* --scheduler-name (volcano), borrowed */
	size_t nscheduler_names;
	const char *conf_path;	   /* --scheduler-conf; NULL or "" = the built-in default */
	int64_t period_ns;	   /* --schedule-period (1 s) */
	int bind_workers;	   /* --bind-workers (32) */
	const char *default_queue; /* --default-queue ("default") */
	uint64_t seed;		   /* --seed for node-score ties (0 = from the clock) */
	const char *node_selectors[SCHED_MAX_NAMES]; /* --node-selector key:value */
	size_t nnode_selectors;
	/* Optional: where the scheduler's metrics go (borrowed; NULL = none). */
	struct vc_metrics *metrics;
	/*
	 * --metrics-per-job=false: no series labelled by job (the e2e job gauges, unschedulable
	 * task counts, job shares and retries; sched_metrics.h). Default true, as Volcano.
	 */
	bool metrics_no_per_job;
	/*
	 * Optional: the recorder of the scheduler's Events (borrowed), whose source is the
	 * scheduler's name as Volcano's ("volcano"); NULL = ctx's recorder.
	 */
	struct vc_events *events;
	/* An early cycle runs this long after the first informer event that may make progress. */
	int64_t debounce_ns; /* 20 ms */
	/*
	 * --pod-condition-qps: the budget of PodScheduled=False condition writes (each with its
	 * FailedScheduling event), a token bucket of this rate holding pod_condition_burst tokens;
	 * a pod left without a token is written by a later cycle. 0 = unlimited (the default
	 * here; vc-controller's flag defaults to 20).
	 */
	double pod_condition_qps;
	int pod_condition_burst; /* 0: twice the rate, at least 1 */
	/* Tests: the session to run; NULL = sched_session_run. */
	sched_session_run_fn *session_run;
};

struct sched_runtime;

void sched_runtime_config_defaults(struct sched_runtime_config *cfg);

/*
 * ctx is borrowed and must outlive the runtime; the strings of cfg are borrowed too. The
 * runtime's informer handlers stay registered: free the runtime only after the informers are
 * stopped (ctx_stop). Fails on a --scheduler-conf that cannot be read (err names the file); one
 * that does not parse leaves Volcano's default in use, reported as a reload failure is. VC_EINVAL
 * when ctx lacks the pods, nodes, podgroups or queues informer, VC_ENOMEM.
 */
int sched_runtime_new(struct vc_ctrl_ctx *ctx, const struct sched_runtime_config *cfg,
		      struct sched_runtime **out, struct vc_error *err) VC_WARN_UNUSED;
/*
 * Start the loop and the bind/write workers; the informers may still be listing. The loop's
 * first act, once the caches a session needs are in, is to create the root and default queues
 * when the queues cache lacks them (retried every cycle until done).
 */
int sched_runtime_start(struct sched_runtime *s) VC_WARN_UNUSED;
/* Stop the loop and the workers; writes still queued are dropped (the next cycle redoes them). */
void sched_runtime_stop(struct sched_runtime *s);
void sched_runtime_free(struct sched_runtime *s);

#endif /* SCHED_RUNTIME_H */
