/*
 * action_backfill.c - place best-effort tasks (no requests) of admitted, valid jobs
 * (docs/volcano/scheduler.md docs/volcano/scheduler.md §3.3): queue order, then job order, then
 * task order; each task goes straight to the best feasible node without a statement, and a job that
 * becomes ready has its Allocated tasks dispatched to the binder.
 */
#include "sched_internal.h"

#include "vc_alloc.h"

static int cmp_backfill_jobs(struct sched_session *ssn, const void *pa, const void *pb)
{
	const struct sched_ssn_job *a = pa, *b = pb;
	int c;

	if (a->queue != b->queue && (c = sched_ssn_queue_order(ssn, a->queue, b->queue)) != 0)
		return c;
	return sched_ssn_job_order(ssn, a, b);
}

static int backfill_execute(struct sched_session *ssn)
{
	struct sched_ssn_job **jobs = NULL;
	struct sched_ssn_task **tasks = NULL;
	void **tmp = NULL;
	size_t i, k, nj = 0, cap = ssn->njobs > ssn->ntasks ? ssn->njobs : ssn->ntasks;
	int rc = VC_ENOMEM;

	jobs = vc_calloc(ssn->njobs + 1, sizeof(struct sched_ssn_job *));
	tasks = vc_calloc(ssn->ntasks + 1, sizeof(struct sched_ssn_task *));
	tmp = vc_calloc(cap + 1, sizeof(*tmp));
	if (!jobs || !tasks || !tmp)
		goto out;
	for (i = 0; i < ssn->njobs; i++) {
		struct sched_ssn_job *j = &ssn->jobs[i];
		struct gang_validity v;

		if (!j->queue || sched_ssn_job_is_pending(j) || !j->pending_be)
			continue;
		sched_ssn_job_valid(ssn, j, &v);
		if (v.valid)
			jobs[nj++] = j;
	}
	sched_sort(ssn, (void **)jobs, nj, tmp, cmp_backfill_jobs);
	for (i = 0; i < nj; i++) {
		struct sched_ssn_job *j = jobs[i];
		size_t nt = 0;

		for (k = 0; k < j->ntasks; k++) {
			struct sched_ssn_task *t = &j->tasks[k];

			if (t->t->status == SCHED_TASK_PENDING && t->t->best_effort && !t->gated)
				tasks[nt++] = t;
		}
		sched_sort(ssn, (void **)tasks, nt, tmp, sched_cmp_tasks);
		for (k = 0; k < nt; k++) {
			struct sched_ssn_task *t = tasks[k];
			uint32_t node;
			size_t n;

			rc = sched_predicate_nodes(ssn, t, SCHED_SEARCH_ALLOCATE, false, &n);
			if (rc < 0)
				goto out;
			if (n == 0)
				continue;
			node = sched_best_node(ssn, t, ssn->priv->feasible, n);
			if (node == SCHED_NONE)
				continue;
			rc = sched_ssn_allocate(ssn, t, node);
			if (rc < 0)
				goto out;
		}
	}
	rc = 0;
out:
	vc_free(jobs);
	vc_free(tasks);
	vc_free(tmp);
	return rc;
}

const struct sched_action sched_action_backfill = {
	.name = "backfill",
	.execute = backfill_execute,
};
