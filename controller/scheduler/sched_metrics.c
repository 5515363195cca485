#include "sched_metrics.h"

#include "sched_framework.h"
#include "sched_session.h"
#include "vc_log.h"
#include "vc_time.h"

/* docs/volcano/metrics.md, the Scheduler table: names and help texts are the contract. */
struct hist_def {
	const char *name, *help;
	const char *const *labels;
	double min, max; /* client_golang's ExponentialBucketsRange(min, max, count) */
	size_t count;
	size_t off;
};

struct plain_def {
	const char *name, *help;
	const char *const *labels;
	bool counter;
	size_t off;
};

static const char *const l_action[] = { "action", NULL };
static const char *const l_plugin[] = { "plugin", "OnSession", NULL };
static const char *const l_stage[] = { "stage", NULL };
static const char *const l_result[] = { "result", NULL };
static const char *const l_job[] = { "job_name", "queue", "job_namespace", NULL };
static const char *const l_job_id[] = { "job_id", NULL };
static const char *const l_job_share[] = { "job_ns", "job_id", NULL };
static const char *const l_ns[] = { "namespace_name", NULL };
static const char *const l_queue[] = { "queue_name", NULL };
static const char *const l_queue_res[] = { "queue_name", "resource", NULL };

#define OFF(f) offsetof(struct sched_metrics, f)

/* Buckets as Volcano's pkg/scheduler/metrics declares them. */
static const struct hist_def hists[] = {
	{ "volcano_e2e_scheduling_latency_milliseconds",
	  "Duration of a single scheduling session execution in milliseconds. It covers the "
	  "entire cycle from session open, action executions to session close.",
	  NULL, 1, 5000, 20, OFF(e2e) },
	{ "volcano_open_session_duration_milliseconds",
	  "Duration of opening a scheduling session in milliseconds, including cache snapshot and "
	  "session initialization.",
	  NULL, 1, 5000, 20, OFF(open_session) },
	{ "volcano_e2e_job_scheduling_latency_milliseconds",
	  "End-to-end job scheduling latency in milliseconds (histogram of per-job duration from "
	  "creation to last task assumed)",
	  NULL, 100, 120000, 30, OFF(e2e_job) },
	{ "volcano_plugin_scheduling_latency_milliseconds",
	  "Plugin scheduling latency in milliseconds", l_plugin, 0.1, 100, 15, OFF(plugin) },
	{ "volcano_action_scheduling_latency_milliseconds",
	  "Action scheduling latency in milliseconds", l_action, 1, 2000, 20, OFF(action) },
	{ "volcano_task_scheduling_latency_milliseconds",
	  "Task scheduling latency from creation to various stages in milliseconds", l_stage, 50,
	  60000, 30, OFF(task_latency) },
	{ "volcano_scheduling_stage_duration_milliseconds",
	  "Duration of per-task scheduling stages (Predicate, Scoring, PreBind, Bind) in "
	  "milliseconds",
	  l_stage, 0.1, 500, 20, OFF(stage_duration) },
};

static const struct plain_def plains[] = {
	{ "volcano_e2e_job_scheduling_duration",
	  "Per-job duration from job creation to last task assumed in scheduler cache, in "
	  "milliseconds",
	  l_job, false, OFF(job_duration) },
	{ "volcano_e2e_job_scheduling_start_time", "E2E job scheduling start time", l_job, false,
	  OFF(job_start) },
	{ "volcano_e2e_job_scheduling_last_time", "E2E job scheduling last time", l_job, false,
	  OFF(job_last) },
	{ "volcano_schedule_attempts_total",
	  "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could "
	  "not be scheduled, while 'error' means an internal scheduler problem.",
	  l_result, true, OFF(attempts) },
	{ "volcano_pod_preemption_victims", "Number of selected preemption victims", NULL, false,
	  OFF(preempt_victims) },
	{ "volcano_total_preemption_attempts", "Total preemption attempts in the cluster till now",
	  NULL, true, OFF(preempt_attempts) },
	{ "volcano_eviction_transactions_total",
	  "Total number of committed eviction transactions, by action", l_action, true,
	  OFF(evictions) },
	{ "volcano_unschedule_task_count", "Number of tasks could not be scheduled", l_job_id,
	  false, OFF(unsched_tasks) },
	{ "volcano_unschedule_job_count", "Number of jobs could not be scheduled", NULL, false,
	  OFF(unsched_jobs) },
	{ "volcano_job_share", "Share for one job", l_job_share, false, OFF(job_share) },
	{ "volcano_job_retry_counts", "Number of retry counts for one job", l_job_id, true,
	  OFF(job_retries) },
	{ "volcano_namespace_share", "Share for one namespace", l_ns, false, OFF(ns_share) },
	{ "volcano_namespace_weight", "Weight for one namespace", l_ns, false, OFF(ns_weight) },
	{ "volcano_namespace_weighted_share", "Weighted share for one namespace", l_ns, false,
	  OFF(ns_weighted_share) },
	{ "volcano_queue_share", "Share for one queue", l_queue, false, OFF(queue_share) },
	{ "volcano_queue_weight", "Weight for one queue", l_queue, false, OFF(queue_weight) },
	{ "volcano_queue_overused", "If one queue is overused", l_queue, false,
	  OFF(queue_overused) },
};

/* volcano_queue_<kind>_... and the help texts' words (note: real capacity's say "Capacity"). */
static const struct {
	const char *kind, *cpu_help, *mem_help, *scalar_help;
} queue_defs[SCHED_MQ_COUNT] = {
	[SCHED_MQ_ALLOCATED] = { "allocated", "Allocated CPU count for one queue",
				 "Allocated memory for one queue",
				 "Allocated scalar resources for one queue" },
	[SCHED_MQ_REQUEST] = { "request", "Request CPU count for one queue",
			       "Request memory for one queue",
			       "Request scalar resources for one queue" },
	[SCHED_MQ_DESERVED] = { "deserved", "Deserved CPU count for one queue",
				"Deserved memory for one queue",
				"Deserved scalar resources for one queue" },
	[SCHED_MQ_CAPACITY] = { "capacity", "Capacity CPU count for one queue",
				"Capacity memory for one queue",
				"Capacity scalar resources for one queue" },
	[SCHED_MQ_REAL_CAPACITY] = { "real_capacity", "Capacity CPU count for one queue",
				     "Capacity memory for one queue",
				     "Capacity scalar resources for one queue" },
	[SCHED_MQ_INQUEUE] = { "inqueue",
			       "Inqueue CPU for admitted but not yet running jobs in one queue",
			       "Inqueue memory for admitted but not yet running jobs in one queue",
			       "Inqueue scalar resources for admitted but not yet running jobs in "
			       "one queue" },
};

int sched_metrics_register(struct vc_metrics *r, bool per_job, struct sched_metrics *m,
			   struct vc_error *err)
{
	static const char *const suffix[3] = { "milli_cpu", "memory_bytes", "scalar_resources" };
	double b[32];
	char name[96];
	size_t i, k;
	int rc;

	memset(m, 0, sizeof(*m));
	m->per_job = per_job;
	for (i = 0; i < VC_ARRAY_SIZE(hists); i++) {
		const struct hist_def *h = &hists[i];

		rc = vc_metrics_exponential_buckets_range(h->min, h->max, h->count, b);
		if (rc == 0)
			rc = vc_metrics_histogram(r, h->name, h->help, h->labels, b, h->count,
						  (struct vc_metric **)((char *)m + h->off), err);
		if (rc)
			return rc;
	}
	for (i = 0; i < VC_ARRAY_SIZE(plains); i++) {
		const struct plain_def *p = &plains[i];
		struct vc_metric **out = (struct vc_metric **)((char *)m + p->off);

		rc = p->counter ? vc_metrics_counter(r, p->name, p->help, p->labels, out, err)
				: vc_metrics_gauge(r, p->name, p->help, p->labels, out, err);
		if (rc)
			return rc;
	}
	for (i = 0; i < SCHED_MQ_COUNT; i++) {
		const char *helps[3] = { queue_defs[i].cpu_help, queue_defs[i].mem_help,
					 queue_defs[i].scalar_help };

		for (k = 0; k < 3; k++) {
			snprintf(name, sizeof(name), "volcano_queue_%s_%s", queue_defs[i].kind,
				 suffix[k]);
			rc = vc_metrics_gauge(r, name, helps[k], k == 2 ? l_queue_res : l_queue,
					      &m->queue[i][k], err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

double sched_metrics_ms(int64_t ns)
{
	return (double)(ns > 0 ? ns : 0) / 1e6;
}

const struct sched_metrics *sched_ssn_metrics(const struct sched_session *ssn)
{
	return ssn && ssn->snap ? ssn->snap->metrics : NULL;
}

int64_t sched_metrics_start(const struct sched_metrics *m)
{
	return m ? vc_time_mono_ns() : 0;
}

/* An update can only fail for want of memory on a new series: the metric then misses it. */
static void checked(int rc)
{
	if (rc < 0)
		VC_LOG(VC_LOG_V(4), "cannot record metric", "error=%d", rc);
}

void sched_metrics_cycle(const struct sched_metrics *m, int64_t ns, int64_t open_ns)
{
	if (!m)
		return;
	checked(vc_metric_observe(m->e2e, NULL, sched_metrics_ms(ns)));
	checked(vc_metric_observe(m->open_session, NULL, sched_metrics_ms(open_ns)));
}

void sched_metrics_action(const struct sched_metrics *m, const char *action, int64_t start)
{
	const char *v[] = { action, NULL };

	if (m)
		checked(vc_metric_observe(m->action, v,
					  sched_metrics_ms(vc_time_mono_ns() - start)));
}

void sched_metrics_plugin(const struct sched_metrics *m, const char *plugin, bool open,
			  int64_t start)
{
	const char *v[] = { plugin, open ? "OnSessionOpen" : "OnSessionClose", NULL };

	if (m)
		checked(vc_metric_observe(m->plugin, v,
					  sched_metrics_ms(vc_time_mono_ns() - start)));
}

void sched_metrics_stage(const struct sched_metrics *m, const char *stage, int64_t start)
{
	const char *v[] = { stage, NULL };

	if (m)
		checked(vc_metric_observe(m->stage_duration, v,
					  sched_metrics_ms(vc_time_mono_ns() - start)));
}

void sched_metrics_task_stage(const struct sched_metrics *m, const char *stage, int64_t created_ns)
{
	const char *v[] = { stage, NULL };

	if (m && created_ns > 0)
		checked(vc_metric_observe(m->task_latency, v,
					  sched_metrics_ms(vc_time_now_ns() - created_ns)));
}

void sched_metrics_attempts(const struct sched_metrics *m, const char *result, double n)
{
	const char *v[] = { result, NULL };

	if (m && n > 0)
		checked(vc_metric_add(m->attempts, v, n));
}

void sched_metrics_preempt_victims(const struct sched_metrics *m, size_t victims)
{
	if (m)
		checked(vc_metric_set(m->preempt_victims, NULL, (double)victims));
}

void sched_metrics_preempt_attempt(const struct sched_metrics *m)
{
	if (m)
		checked(vc_metric_inc(m->preempt_attempts, NULL));
}

void sched_metrics_evicted(const struct sched_metrics *m, const char *action)
{
	const char *v[] = { action, NULL };

	if (m)
		checked(vc_metric_inc(m->evictions, v));
}

void sched_metrics_job_seen(const struct sched_metrics *m, const char *ns, const char *name,
			    const char *queue, int64_t created_ns)
{
	const char *v[] = { name, queue, ns, NULL };
	int64_t sec = created_ns / VC_NSEC_PER_SEC; /* Volcano's ConvertToUnix: whole seconds */

	if (m && m->per_job)
		checked(vc_metric_set(m->job_start, v, (double)sec));
}

void sched_metrics_job_assumed(const struct sched_metrics *m, const char *ns, const char *name,
			       const char *queue, int64_t created_ns)
{
	const char *v[] = { name, queue, ns, NULL };
	int64_t now = vc_time_now_ns(), now_sec = now / VC_NSEC_PER_SEC;
	double ms = sched_metrics_ms(now - created_ns);

	if (!m || created_ns <= 0)
		return;
	checked(vc_metric_observe(m->e2e_job, NULL, ms));
	if (!m->per_job)
		return;
	checked(vc_metric_set(m->job_duration, v, ms));
	checked(vc_metric_set(m->job_last, v, (double)now_sec));
}

void sched_metrics_job_unschedulable(const struct sched_metrics *m, const char *name,
				     int64_t unready, bool retry)
{
	const char *v[] = { name, NULL };

	if (!m || !m->per_job)
		return;
	checked(vc_metric_set(m->unsched_tasks, v, (double)unready));
	if (retry)
		checked(vc_metric_inc(m->job_retries, v));
}

void sched_metrics_unschedulable_jobs(const struct sched_metrics *m, size_t n)
{
	if (m)
		checked(vc_metric_set(m->unsched_jobs, NULL, (double)n));
}

void sched_metrics_job_share(const struct sched_metrics *m, const char *ns, const char *name,
			     double share)
{
	const char *v[] = { ns, name, NULL };

	if (m && m->per_job)
		checked(vc_metric_set(m->job_share, v, share));
}

void sched_metrics_job_delete(const struct sched_metrics *m, const char *ns, const char *name,
			      const char *queue)
{
	const char *v[] = { name, queue, ns, NULL };
	const char *id[] = { name, NULL };
	const char *share[] = { ns, name, NULL };

	if (!m)
		return;
	/* Volcano's DeleteJobMetrics. */
	checked(vc_metric_delete(m->job_duration, v));
	checked(vc_metric_delete(m->job_start, v));
	checked(vc_metric_delete(m->job_last, v));
	checked(vc_metric_delete(m->unsched_tasks, id));
	checked(vc_metric_delete(m->job_share, share));
	checked(vc_metric_delete(m->job_retries, id));
}

void sched_metrics_namespace(const struct sched_metrics *m, const char *ns, double share,
			     double weight)
{
	const char *v[] = { ns, NULL };

	if (!m)
		return;
	checked(vc_metric_set(m->ns_share, v, share));
	checked(vc_metric_set(m->ns_weight, v, weight));
	checked(vc_metric_set(m->ns_weighted_share, v, weight > 0 ? share / weight : 0));
}

void sched_metrics_queue_dense(const struct sched_session *ssn, enum sched_mq kind,
			       const char *queue, const double *v)
{
	const struct sched_metrics *m = sched_ssn_metrics(ssn);
	const char *q[] = { queue, NULL };
	size_t d;

	if (!m || kind >= SCHED_MQ_COUNT)
		return;
	checked(vc_metric_set(m->queue[kind][0], q, v[0]));
	checked(vc_metric_set(m->queue[kind][1], q, v[1]));
	for (d = 2; d < ssn->ndims; d++) {
		const char *qr[] = { queue, ssn->dims[d], NULL };

		checked(vc_metric_set(m->queue[kind][2], qr, v[d]));
	}
}

void sched_metrics_queue_close(const struct sched_session *ssn, const struct sched_queue_info *q,
			       const double *allocated, const double *deserved,
			       const double *real_cap, const double *inqueue)
{
	if (!sched_ssn_metrics(ssn))
		return;
	sched_metrics_queue_dense(ssn, SCHED_MQ_ALLOCATED, q->name, allocated);
	sched_metrics_queue_dense(ssn, SCHED_MQ_DESERVED, q->name, deserved);
	sched_metrics_queue_dense(ssn, SCHED_MQ_REAL_CAPACITY, q->name, real_cap);
	sched_metrics_queue_dense(ssn, SCHED_MQ_INQUEUE, q->name, inqueue);
	sched_metrics_queue_resource(ssn, SCHED_MQ_REQUEST, q->name, &q->request);
	if (q->has_capability)
		sched_metrics_queue_resource(ssn, SCHED_MQ_CAPACITY, q->name, &q->capability);
}

void sched_metrics_queue_resource(const struct sched_session *ssn, enum sched_mq kind,
				  const char *queue, const struct vc_resource *r)
{
	const struct sched_metrics *m = sched_ssn_metrics(ssn);
	const char *q[] = { queue, NULL };
	size_t d;

	if (!m || kind >= SCHED_MQ_COUNT)
		return;
	checked(vc_metric_set(m->queue[kind][0], q, r->milli_cpu));
	checked(vc_metric_set(m->queue[kind][1], q, r->memory));
	for (d = 2; d < ssn->ndims; d++) {
		const char *qr[] = { queue, ssn->dims[d], NULL };

		checked(vc_metric_set(m->queue[kind][2], qr, vc_resource_get(r, ssn->dims[d])));
	}
}

void sched_metrics_queue_attrs(const struct sched_metrics *m, const char *queue, double share,
			       double weight, bool overused)
{
	const char *q[] = { queue, NULL };

	if (!m)
		return;
	checked(vc_metric_set(m->queue_share, q, share));
	checked(vc_metric_set(m->queue_weight, q, weight));
	checked(vc_metric_set(m->queue_overused, q, overused ? 1 : 0));
}

void sched_metrics_queue_share(const struct sched_metrics *m, const char *queue, double share)
{
	const char *q[] = { queue, NULL };

	if (m)
		checked(vc_metric_set(m->queue_share, q, share));
}

void sched_metrics_queue_delete(const struct sched_metrics *m, const char *queue)
{
	const char *q[] = { queue, NULL };
	size_t i;

	if (!m)
		return;
	/* Volcano's DeleteQueueMetrics. */
	for (i = 0; i < SCHED_MQ_COUNT; i++) {
		checked(vc_metric_delete(m->queue[i][0], q));
		checked(vc_metric_delete(m->queue[i][1], q));
		checked(vc_metric_delete_matching(m->queue[i][2], "queue_name", queue));
	}
	checked(vc_metric_delete(m->queue_share, q));
	checked(vc_metric_delete(m->queue_weight, q));
	checked(vc_metric_delete(m->queue_overused, q));
}
