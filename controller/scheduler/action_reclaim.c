/*
 * action_reclaim.c - take back resources across queues (docs/volcano/scheduler.md §3.5, REC (c) of
 * docs/volcano/scheduler.md §6).
 *
 * Queues in queue order (overused ones skipped); in each, the starving jobs in job order; each
 * pending task that the queue may still take (Preemptive) looks for a node where Running,
 * preemptable pods of other queues can be evicted. A queue with reclaimable: false gives up
 * only its jobs' elastic surplus (pods beyond minMember); the victim filters (gang's surplus,
 * proportion's "above deserved", conformance) decide the rest. A job's evictions are committed
 * only when it ends up pipelined.
 */
#include "sched_internal.h"

static bool filter_reclaim(struct sched_session *ssn, const struct sched_ssn_task *p,
			   const struct sched_ssn_task *v)
{
	const struct sched_ssn_job *vj = v->job;

	(void)ssn;
	if (v->t->status != SCHED_TASK_RUNNING || !v->t->preemptable || !vj || !vj->queue ||
	    !p->job)
		return false;
	if (vj->queue == p->job->queue)
		return false;
	if (vj->queue->q->reclaimable)
		return true;
	return (int64_t)sched_ssn_job_nready(vj) > vj->j->min_member;
}

/* A task that never preempts, or whose queue may not reclaim for it now (j's queue is q). */
static bool not_reclaiming(struct sched_session *ssn, const struct sched_ssn_job *j,
			   const struct sched_ssn_task *t)
{
	return t->preempt_never || !sched_ssn_preemptive(ssn, j->queue, t);
}

static int reclaim_execute(struct sched_session *ssn)
{
	struct sched_evict_scratch sc;
	size_t i, k, nj;
	int rc;

	rc = sched_evict_scratch_init(ssn, &sc);
	if (rc < 0)
		goto out;
	for (i = 0; i < ssn->nqueues; i++) {
		struct sched_ssn_queue *q = sc.queues[i];

		if (!q->active || sched_ssn_overused(ssn, q))
			continue;
		nj = sched_evict_scratch_jobs(ssn, &sc, q);
		for (k = 0; k < nj; k++) {
			rc = sched_evict_for_job(ssn, &sc, sc.jobs[k], true, filter_reclaim,
						 not_reclaiming);
			if (rc < 0)
				goto out;
		}
	}
	rc = 0;
out:
	sched_evict_scratch_release(ssn, &sc, rc < 0);
	return rc;
}

const struct sched_action sched_action_reclaim = {
	.name = "reclaim",
	.execute = reclaim_execute,
};
