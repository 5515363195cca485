/*
 * action_enqueue.c - admit pending PodGroups (phase "" or Pending) into Inqueue
 * (docs/volcano/scheduler.md docs/volcano/scheduler.md §3.1): one job per queue pop, queues
 * round-robin in queue order, jobs in job order; a job without minResources is admitted
 * unconditionally, others by the plugins' votes. PodGroups without pods are admitted too
 * (controllers wait for Inqueue before creating pods).
 */
#include "sched_internal.h"

#include "vc_alloc.h"

static int enqueue_execute(struct sched_session *ssn)
{
	struct sched_heap queues, *jobs;
	size_t i, *count;
	int rc = VC_ENOMEM;

	count = vc_calloc(ssn->nqueues + 1, sizeof(*count));
	jobs = vc_calloc(ssn->nqueues + 1, sizeof(*jobs));
	if (!count || !jobs)
		goto out_free;
	for (i = 0; i < ssn->njobs; i++)
		if (ssn->jobs[i].queue && sched_ssn_job_is_pending(&ssn->jobs[i]))
			count[ssn->jobs[i].queue->index]++;
	if (sched_heap_init(&queues, ssn->nqueues, sched_cmp_queues, ssn) < 0)
		goto out_free;
	for (i = 0; i < ssn->nqueues; i++) {
		if (!count[i])
			continue;
		if (sched_heap_init(&jobs[i], count[i], sched_cmp_jobs, ssn) < 0)
			goto out_heaps;
		sched_heap_push(&queues, &ssn->queues[i]);
	}
	for (i = 0; i < ssn->njobs; i++) {
		struct sched_ssn_job *j = &ssn->jobs[i];

		if (j->queue && sched_ssn_job_is_pending(j))
			sched_heap_push(&jobs[j->queue->index], j);
	}
	for (;;) {
		struct sched_ssn_queue *q = sched_heap_pop(&queues);
		struct sched_ssn_job *j;
		char *msg = NULL;

		if (!q)
			break;
		j = sched_heap_pop(&jobs[q->index]);
		if (!j)
			continue;
		if (!j->has_min_res || sched_ssn_job_enqueueable(ssn, j, &msg)) {
			sched_ssn_job_enqueued(ssn, j);
			sched_ssn_job_set_phase(j, VC_PG_INQUEUE);
		} else if (msg) {
			vc_free(j->enqueue_msg);
			j->enqueue_msg = msg;
		}
		sched_heap_push(&queues, q);
	}
	rc = 0;
out_heaps:
	for (i = 0; i < ssn->nqueues; i++)
		sched_heap_release(&jobs[i]);
	sched_heap_release(&queues);
out_free:
	vc_free(count);
	vc_free(jobs);
	return rc;
}

const struct sched_action sched_action_enqueue = {
	.name = "enqueue",
	.execute = enqueue_execute,
};
