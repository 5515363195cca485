/*
 * action_reclaim.c - take back resources across queues (scheduler.md §3.5, REC (c) of §6).
 *
 * Queues in queue order (overused ones skipped); in each, the starving jobs in job order; each
 * pending task that the queue may still take (Preemptive) looks for a node where Running,
 * preemptable pods of other queues can be evicted. A queue with reclaimable: false gives up
 * only its jobs' elastic surplus (pods beyond minMember); the victim filters (gang's surplus,
 * proportion's "above deserved", conformance) decide the rest. A job's evictions are committed
 * only when it ends up pipelined.
 */
#include "sched_internal.h"

#include "vc_alloc.h"

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

static int reclaim_execute(struct sched_session *ssn)
{
	struct sched_ssn_queue **queues = NULL;
	struct sched_ssn_job **jobs = NULL;
	struct sched_ssn_task **tasks = NULL;
	void **tmp = NULL;
	struct sched_stmt stmt;
	size_t i, k, m, nj, nt, cap = ssn->ntasks + ssn->njobs + ssn->nqueues + 1;
	int rc = VC_ENOMEM;

	sched_stmt_init(&stmt);
	queues = vc_calloc(ssn->nqueues + 1, sizeof(struct sched_ssn_queue *));
	jobs = vc_calloc(ssn->njobs + 1, sizeof(struct sched_ssn_job *));
	tasks = vc_calloc(ssn->ntasks + 1, sizeof(struct sched_ssn_task *));
	tmp = vc_calloc(cap, sizeof(*tmp));
	if (!queues || !jobs || !tasks || !tmp)
		goto out;
	for (i = 0; i < ssn->nqueues; i++)
		queues[i] = &ssn->queues[i];
	sched_sort(ssn, (void **)queues, ssn->nqueues, tmp, sched_cmp_queues);
	for (i = 0; i < ssn->nqueues; i++) {
		struct sched_ssn_queue *q = queues[i];

		if (!q->active || sched_ssn_overused(ssn, q))
			continue;
		nj = 0;
		for (k = 0; k < ssn->njobs; k++)
			if (ssn->jobs[k].queue == q && sched_preemptor_job(ssn, &ssn->jobs[k]))
				jobs[nj++] = &ssn->jobs[k];
		sched_sort(ssn, (void **)jobs, nj, tmp, sched_cmp_jobs);
		for (k = 0; k < nj; k++) {
			struct sched_ssn_job *j = jobs[k];

			nt = sched_pending_tasks(ssn, j, tasks, tmp);
			for (m = 0; m < nt && sched_ssn_job_starving(ssn, j); m++) {
				struct sched_ssn_task *t = tasks[m];
				bool assigned;

				if (t->preempt_never || !sched_ssn_preemptive(ssn, q, t))
					continue;
				rc = sched_preempt_task(ssn, &stmt, t, true, filter_reclaim,
							&assigned);
				if (rc < 0)
					goto out;
			}
			if (sched_ssn_job_pipelined(ssn, j))
				sched_stmt_commit(ssn, &stmt);
			else
				sched_stmt_discard(ssn, &stmt);
		}
	}
	rc = 0;
out:
	if (rc < 0)
		sched_stmt_discard(ssn, &stmt);
	sched_stmt_release(&stmt);
	vc_free(queues);
	vc_free(jobs);
	vc_free(tasks);
	vc_free(tmp);
	return rc;
}

const struct sched_action sched_action_reclaim = {
	.name = "reclaim",
	.execute = reclaim_execute,
};
