/*
 * sched_metrics.h - the scheduler's Prometheus metrics, with Volcano's names, types, labels,
 * help texts and units (docs/volcano/metrics.md, the Scheduler table), and the calls that feed
 * them from the real code paths: the runtime (cycle, snapshot, binds), the session (actions,
 * plugins), statements (assumed tasks, committed evictions), allocate, preempt, gang, drf,
 * proportion and capacity.
 *
 * The session reaches the metrics through its snapshot (sched_snapshot.metrics, borrowed); a
 * snapshot without them (unit tests, the bench) records nothing, and no call here changes what
 * the scheduler decides. Every function accepts a NULL struct sched_metrics and then does
 * nothing; all are thread-safe (vc_metrics.h) and none allocates once its series exists.
 *
 * Per-job series (labels job_name, job_id) grow with the number of jobs: the runtime deletes a
 * job's series when its PodGroup leaves the cache (sched_metrics_job_delete, as Volcano's
 * DeleteJobMetrics), and with per_job false (vc-controller --metrics-per-job=false) they are
 * never created. Queue series are deleted with their queue (sched_metrics_queue_delete).
 */
#ifndef SCHED_METRICS_H
#define SCHED_METRICS_H

#include "vc_prelude.h"

#include "vc_err.h"
#include "vc_metrics.h"
#include "vc_resource.h"

struct sched_session;
struct sched_queue_info;

/* The queue resource families: volcano_queue_<kind>_{milli_cpu,memory_bytes,scalar_resources}. */
enum sched_mq {
	SCHED_MQ_ALLOCATED,
	SCHED_MQ_REQUEST,
	SCHED_MQ_DESERVED,
	SCHED_MQ_CAPACITY,
	SCHED_MQ_REAL_CAPACITY,
	SCHED_MQ_INQUEUE,
	SCHED_MQ_COUNT
};

/* The values of the label stage of volcano_task_scheduling_latency_milliseconds. */
#define SCHED_STAGE_WATCHED  "Watched"
#define SCHED_STAGE_ASSUMED  "Assumed"
#define SCHED_STAGE_PREBOUND "PreBound"
#define SCHED_STAGE_BOUND    "Bound"
/* ... and of volcano_scheduling_stage_duration_milliseconds. */
#define SCHED_STAGE_PREDICATE "Predicate"
#define SCHED_STAGE_SCORING   "Scoring"
#define SCHED_STAGE_BIND      "Bind"

struct sched_metrics {
	bool per_job; /* create the per-job series */
	struct vc_metric *e2e, *open_session, *action, *plugin;
	struct vc_metric *e2e_job, *job_duration, *job_start, *job_last;
	struct vc_metric *task_latency, *stage_duration;
	struct vc_metric *attempts, *preempt_victims, *preempt_attempts, *evictions;
	struct vc_metric *unsched_tasks, *unsched_jobs, *job_share, *job_retries;
	struct vc_metric *ns_share, *ns_weight, *ns_weighted_share;
	struct vc_metric *queue[SCHED_MQ_COUNT][3]; /* milli_cpu, memory_bytes, scalar_resources */
	struct vc_metric *queue_share, *queue_weight, *queue_overused;
};

/*
 * Register every scheduler metric in r and fill *m (zeroed first). Returns 0, or the first
 * registration error (err set); the metrics registered before it stay in r and in *m.
 */
int sched_metrics_register(struct vc_metrics *r, bool per_job, struct sched_metrics *m,
			   struct vc_error *err) VC_WARN_UNUSED;

/* Milliseconds of a nanosecond duration, as Volcano's DurationInMilliseconds. */
double sched_metrics_ms(int64_t ns);

/* The session's metrics (its snapshot's), or NULL. */
const struct sched_metrics *sched_ssn_metrics(const struct sched_session *ssn);

/* Monotonic nanoseconds for timing a step, or 0 when m is NULL (no clock read). */
int64_t sched_metrics_start(const struct sched_metrics *m);

/* One scheduling cycle took ns; opening its session (snapshot included) took open_ns. */
void sched_metrics_cycle(const struct sched_metrics *m, int64_t ns, int64_t open_ns);
/* An action ran (since start); a plugin's OnSessionOpen (open) or OnSessionClose ran. */
void sched_metrics_action(const struct sched_metrics *m, const char *action, int64_t start);
void sched_metrics_plugin(const struct sched_metrics *m, const char *plugin, bool open,
			  int64_t start);
/* A per-task stage (SCHED_STAGE_PREDICATE, ...) ran since start. */
void sched_metrics_stage(const struct sched_metrics *m, const char *stage, int64_t start);
/* A task reached stage (SCHED_STAGE_WATCHED, ...); created_ns: the pod's creation (0: skip). */
void sched_metrics_task_stage(const struct sched_metrics *m, const char *stage, int64_t created_ns);
/* n pods were scheduled, unschedulable or met an error (result: Volcano's label value). */
void sched_metrics_attempts(const struct sched_metrics *m, const char *result, double n);
/* Preempt chose victims on a node; an attempt was made with them. */
void sched_metrics_preempt_victims(const struct sched_metrics *m, size_t victims);
void sched_metrics_preempt_attempt(const struct sched_metrics *m);
/* A statement committed an eviction of action ("preempt", "reclaim"). */
void sched_metrics_evicted(const struct sched_metrics *m, const char *action);

/*
 * Per job (Volcano's job name is the PodGroup's name). job_seen: the scheduler first saw the
 * job (start time = the PodGroup's creation). job_assumed: a statement committed the job's
 * tasks; the e2e histogram, duration and last time are updated. job_unschedulable: gang's
 * verdict at close (unready tasks; a retry counted when not ready). job_share: drf's share.
 */
void sched_metrics_job_seen(const struct sched_metrics *m, const char *ns, const char *name,
			    const char *queue, int64_t created_ns);
void sched_metrics_job_assumed(const struct sched_metrics *m, const char *ns, const char *name,
			       const char *queue, int64_t created_ns);
void sched_metrics_job_unschedulable(const struct sched_metrics *m, const char *name,
				     int64_t unready, bool retry);
void sched_metrics_unschedulable_jobs(const struct sched_metrics *m, size_t n);
void sched_metrics_job_share(const struct sched_metrics *m, const char *ns, const char *name,
			     double share);
void sched_metrics_job_delete(const struct sched_metrics *m, const char *ns, const char *name,
			      const char *queue);

/* drf's namespace share, weight and weighted share. */
void sched_metrics_namespace(const struct sched_metrics *m, const char *ns, double share,
			     double weight);

/*
 * A queue's resource family from a session's dense vector (cpu, memory, then the session's
 * scalar dimensions: every scalar the session knows gets a series, 0 when the queue has none,
 * as Volcano zeroes the scalars it saw before).
 */
void sched_metrics_queue_dense(const struct sched_session *ssn, enum sched_mq kind,
			       const char *queue, const double *v);
/* The same from a resource: cpu, memory and the session's scalar dimensions. */
void sched_metrics_queue_resource(const struct sched_session *ssn, enum sched_mq kind,
				  const char *queue, const struct vc_resource *r);
/*
 * What a queue-share plugin (proportion, capacity) reports for queue q at session close: its
 * allocated, deserved, real capacity and inqueue vectors (dense, the plugin's), and the queue's
 * request and, when set, capability.
 */
void sched_metrics_queue_close(const struct sched_session *ssn, const struct sched_queue_info *q,
			       const double *allocated, const double *deserved,
			       const double *real_cap, const double *inqueue);
/* A queue's share, weight and overused flag (proportion). */
void sched_metrics_queue_attrs(const struct sched_metrics *m, const char *queue, double share,
			       double weight, bool overused);
void sched_metrics_queue_share(const struct sched_metrics *m, const char *queue, double share);
void sched_metrics_queue_delete(const struct sched_metrics *m, const char *queue);

#endif /* SCHED_METRICS_H */
