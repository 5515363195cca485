/*
 * action_preempt.c - preemption inside a queue (docs/volcano/scheduler.md §3.4, with REC (b) and
 * (d) of docs/volcano/scheduler.md §6), and the per-node eviction search shared with reclaim
 * (docs/volcano/scheduler.md §3.5).
 *
 * For a preemptor task: nodes that pass the predicates that eviction cannot fix are ranked by
 * score; on each, the candidates the action's filter admits are put in victim order
 * (docs/volcano/scheduler.md §3.6), the victim filters of every enabled plugin are intersected, and
 * victims are evicted in order until the task fits the node's FutureIdle; it is then pipelined
 * there. Evictions of a node that does not work out are undone. When a preemptor of strictly higher
 * priority breaks a ready gang (evicts one of its core pods), the rest of that gang is evicted too
 * (REC (d)): a gang is never left half-running.
 */
#include "sched_internal.h"

#include "vc_alloc.h"

static int cmp_node_score(struct sched_session *ssn, const void *a, const void *b)
{
	double sa = ssn->priv->node_score[(uintptr_t)a], sb = ssn->priv->node_score[(uintptr_t)b];

	if (sa == sb)
		return 0;
	return sa > sb ? -1 : 1;
}

/*
 * Whether t may be placed on node now. Preempt (docs/volcano/scheduler.md §3.4): the queue admits
 * it, it fits FutureIdle and it passes the predicates, so that a node short of pod slots rather
 * than resources is freed by evicting (the pod count drops with each eviction); reclaim
 * (docs/volcano/scheduler.md §3.5): FutureIdle only. 0 or VC_ENOMEM.
 */
static int fits(struct sched_session *ssn, const struct sched_ssn_task *t, uint32_t node,
		bool reclaim, bool *ok)
{
	double *fi = ssn->priv->vec + 2 * ssn->ndims;
	struct pred_result pr;
	bool unres = false;
	int rc;

	*ok = false;
	if (!reclaim && t->job && t->job->queue && !sched_ssn_allocatable(ssn, t->job->queue, t))
		return 0;
	sched_ssn_future_idle(ssn, &ssn->nodes[node], fi);
	if (!sched_res_le(ssn, t->req, fi))
		return 0;
	if (!reclaim) {
		rc = sched_ssn_predicate(ssn, t, &ssn->nodes[node], &pr, &unres);
		if (rc < 0)
			return rc;
		if (!pr.fit)
			return 0;
	}
	*ok = true;
	return 0;
}

/* REC (d): once a ready gang lost a core pod, evict the rest of it. */
static int evict_rest_of_gang(struct sched_session *ssn, struct sched_stmt *s,
			      struct sched_ssn_job *vj, const char *reason)
{
	size_t k;
	int rc;

	for (k = 0; k < vj->ntasks; k++) {
		struct sched_ssn_task *v = &vj->tasks[k];
		enum sched_task_status st = v->t->status;

		if ((st != SCHED_TASK_RUNNING && st != SCHED_TASK_BOUND) || v->node == SCHED_NONE)
			continue;
		rc = sched_stmt_evict(ssn, s, v, reason);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int sched_preempt_task(struct sched_session *ssn, struct sched_stmt *stmt, struct sched_ssn_task *t,
		       bool reclaim,
		       bool (*filter)(struct sched_session *ssn,
				      const struct sched_ssn_task *preemptor,
				      const struct sched_ssn_task *victim),
		       bool *assigned)
{
	struct sched_session_priv *p = ssn->priv;
	const char *reason = reclaim ? "reclaim" : "preempt";
	struct sched_ssn_task **cands = NULL;
	void **order = NULL, **tmp = NULL;
	bool *keep = NULL;
	struct sched_stmt ns;
	size_t n, i, k, maxpods = 1;
	int rc;

	*assigned = false;
	if (t->preempt_never)
		return 0;
	sched_stmt_init(&ns);
	rc = sched_predicate_nodes(ssn, t, SCHED_SEARCH_PREEMPT, false, &n);
	if (rc < 0 || n == 0)
		return rc;
	for (i = 0; i < ssn->nnodes; i++)
		if (ssn->nodes[i].n->ntasks > maxpods)
			maxpods = ssn->nodes[i].n->ntasks;
	order = vc_calloc(n, sizeof(*order));
	tmp = vc_calloc(n > maxpods ? n : maxpods, sizeof(*tmp));
	cands = vc_calloc(maxpods, sizeof(struct sched_ssn_task *));
	keep = vc_calloc(maxpods, sizeof(*keep));
	rc = VC_ENOMEM;
	if (!order || !tmp || !cands || !keep)
		goto out;
	for (i = 0; i < n; i++) {
		uint32_t node = p->feasible[i];

		p->node_score[node] = sched_ssn_node_score(ssn, t, &ssn->nodes[node]);
		order[i] = (void *)(uintptr_t)node;
	}
	if (p->nbatch > 0) {
		/* Batch scores (node affinity, taints, pod affinity, spread) normalised over these
		 * nodes. */
		for (i = 0; i < n; i++)
			p->batch_scores[i] = 0;
		sched_ssn_batch_scores(ssn, t, p->feasible, n, p->batch_scores);
		for (i = 0; i < n; i++)
			p->node_score[p->feasible[i]] += p->batch_scores[i];
	}
	sched_sort(ssn, order, n, tmp, cmp_node_score);
	rc = 0;
	for (i = 0; i < n && !*assigned; i++) {
		uint32_t node = (uint32_t)(uintptr_t)order[i];
		struct sched_ssn_node *sn = &ssn->nodes[node];
		double *avail = p->vec + 3 * ssn->ndims;
		size_t nc = 0, nv = 0, d;
		bool evicted = false, placed;

		for (k = 0; k < sn->n->ntasks && nc < maxpods; k++) {
			struct sched_ssn_task *v = sn->n->tasks[k]->ssn;

			if (v && v != t && filter(ssn, t, v))
				cands[nc++] = v;
		}
		p->victim_preemptor = t;
		sched_sort(ssn, (void **)cands, nc, tmp, sched_cmp_victims);
		if (reclaim)
			sched_ssn_reclaimable(ssn, t, cands, nc, keep);
		else
			sched_ssn_preemptable(ssn, t, cands, nc, keep);
		for (k = 0; k < nc; k++)
			if (keep[k])
				cands[nv++] = cands[k];
		if (!reclaim)
			sched_metrics_preempt_victims(sched_ssn_metrics(ssn), nv);
		sched_ssn_future_idle(ssn, sn, avail);
		for (k = 0; k < nv; k++)
			for (d = 0; d < ssn->ndims; d++)
				avail[d] += cands[k]->req[d];
		if (!sched_res_le(ssn, t->req, avail))
			continue;
		if (!reclaim)
			sched_metrics_preempt_attempt(sched_ssn_metrics(ssn));
		for (k = 0; k < nv; k++) {
			struct sched_ssn_task *v = cands[k];
			struct sched_ssn_job *vj = v->job;
			bool was_ready, ok;

			rc = fits(ssn, t, node, reclaim, &ok);
			if (rc < 0)
				goto out;
			if (ok)
				break;
			if (v->t->status != SCHED_TASK_RUNNING && v->t->status != SCHED_TASK_BOUND)
				continue; /* already evicted with its gang */
			was_ready = vj && (int64_t)sched_ssn_job_nready(vj) >= vj->j->min_member;
			rc = sched_stmt_evict(ssn, &ns, v, reason);
			if (rc < 0)
				goto out;
			evicted = true;
			if (!reclaim && vj && vj != t->job && was_ready &&
			    (int64_t)sched_ssn_job_nready(vj) < vj->j->min_member) {
				rc = evict_rest_of_gang(ssn, &ns, vj, reason);
				if (rc < 0)
					goto out;
			}
		}
		rc = fits(ssn, t, node, reclaim, &placed);
		if (rc < 0)
			goto out;
		if (!placed) {
			sched_stmt_discard(ssn, &ns);
			continue;
		}
		rc = sched_stmt_pipeline(ssn, &ns, t, node, evicted);
		if (rc == 0)
			rc = sched_stmt_merge(stmt, &ns);
		if (rc < 0)
			goto out;
		*assigned = true;
	}
out:
	if (rc < 0)
		sched_stmt_discard(ssn, &ns);
	sched_stmt_release(&ns);
	vc_free(order);
	vc_free(tmp);
	vc_free(cands);
	vc_free(keep);
	return rc;
}

/* ---- the preempt action --------------------------------------------------------------------- */

static bool preemptable_status(const struct sched_ssn_task *v)
{
	return v->t->status == SCHED_TASK_BOUND || v->t->status == SCHED_TASK_RUNNING;
}

/* (A): other jobs of the same queue. */
static bool filter_between_jobs(struct sched_session *ssn, const struct sched_ssn_task *p,
				const struct sched_ssn_task *v)
{
	(void)ssn;
	if (!preemptable_status(v) || (p->t->best_effort && !v->t->best_effort))
		return false;
	if (!v->t->preemptable || !v->job || !p->job)
		return false;
	return v->job->queue == p->job->queue && v->job != p->job;
}

/* (B): tasks of the preemptor's own job. */
static bool filter_within_job(struct sched_session *ssn, const struct sched_ssn_task *p,
			      const struct sched_ssn_task *v)
{
	(void)ssn;
	if (!preemptable_status(v) || (p->t->best_effort && !v->t->best_effort))
		return false;
	return v->job == p->job;
}

size_t sched_pending_tasks(struct sched_session *ssn, struct sched_ssn_job *j,
			   struct sched_ssn_task **out, void **tmp)
{
	size_t k, n = 0;

	for (k = 0; k < j->ntasks; k++)
		if (j->tasks[k].t->status == SCHED_TASK_PENDING && !j->tasks[k].gated)
			out[n++] = &j->tasks[k];
	sched_sort(ssn, (void **)out, n, tmp, sched_cmp_tasks);
	return n;
}

bool sched_preemptor_job(struct sched_session *ssn, struct sched_ssn_job *j)
{
	struct gang_validity v;

	if (!j->queue || sched_ssn_job_is_pending(j) || !j->count[SCHED_TASK_PENDING])
		return false;
	sched_ssn_job_valid(ssn, j, &v);
	return v.valid && sched_ssn_job_starving(ssn, j);
}

int sched_evict_scratch_init(struct sched_session *ssn, struct sched_evict_scratch *sc)
{
	size_t i, cap = ssn->ntasks + ssn->njobs + ssn->nqueues + 1;

	sched_stmt_init(&sc->stmt);
	sc->queues = vc_calloc(ssn->nqueues + 1, sizeof(struct sched_ssn_queue *));
	sc->jobs = vc_calloc(ssn->njobs + 1, sizeof(struct sched_ssn_job *));
	sc->tasks = vc_calloc(ssn->ntasks + 1, sizeof(struct sched_ssn_task *));
	sc->tmp = vc_calloc(cap, sizeof(*sc->tmp));
	if (!sc->queues || !sc->jobs || !sc->tasks || !sc->tmp)
		return VC_ENOMEM;
	for (i = 0; i < ssn->nqueues; i++)
		sc->queues[i] = &ssn->queues[i];
	sched_sort(ssn, (void **)sc->queues, ssn->nqueues, sc->tmp, sched_cmp_queues);
	return 0;
}

size_t sched_evict_scratch_jobs(struct sched_session *ssn, struct sched_evict_scratch *sc,
				const struct sched_ssn_queue *q)
{
	size_t k, nj = 0;

	for (k = 0; k < ssn->njobs; k++)
		if (ssn->jobs[k].queue == q && sched_preemptor_job(ssn, &ssn->jobs[k]))
			sc->jobs[nj++] = &ssn->jobs[k];
	sched_sort(ssn, (void **)sc->jobs, nj, sc->tmp, sched_cmp_jobs);
	return nj;
}

int sched_evict_for_job(struct sched_session *ssn, struct sched_evict_scratch *sc,
			struct sched_ssn_job *j, bool reclaim,
			bool (*filter)(struct sched_session *ssn,
				       const struct sched_ssn_task *preemptor,
				       const struct sched_ssn_task *victim),
			bool (*skip)(struct sched_session *ssn, const struct sched_ssn_job *j,
				     const struct sched_ssn_task *t))
{
	size_t m, nt = sched_pending_tasks(ssn, j, sc->tasks, sc->tmp);
	int rc;

	for (m = 0; m < nt && sched_ssn_job_starving(ssn, j); m++) {
		bool assigned;

		if (skip && skip(ssn, j, sc->tasks[m]))
			continue;
		rc = sched_preempt_task(ssn, &sc->stmt, sc->tasks[m], reclaim, filter, &assigned);
		if (rc < 0)
			return rc;
	}
	if (sched_ssn_job_pipelined(ssn, j))
		sched_stmt_commit(ssn, &sc->stmt);
	else
		sched_stmt_discard(ssn, &sc->stmt);
	return 0;
}

void sched_evict_scratch_release(struct sched_session *ssn, struct sched_evict_scratch *sc,
				 bool failed)
{
	if (failed)
		sched_stmt_discard(ssn, &sc->stmt);
	sched_stmt_release(&sc->stmt);
	vc_free(sc->queues);
	vc_free(sc->jobs);
	vc_free(sc->tasks);
	vc_free(sc->tmp);
}

static int preempt_execute(struct sched_session *ssn)
{
	struct sched_evict_scratch sc;
	size_t i, k, m, nj, nt;
	int rc;

	rc = sched_evict_scratch_init(ssn, &sc);
	if (rc < 0)
		goto out;
	for (i = 0; i < ssn->nqueues; i++) {
		nj = sched_evict_scratch_jobs(ssn, &sc, sc.queues[i]);
		/* (A) between jobs of the queue. */
		for (k = 0; k < nj; k++) {
			rc = sched_evict_for_job(ssn, &sc, sc.jobs[k], false, filter_between_jobs,
						 NULL);
			if (rc < 0)
				goto out;
		}
		/* (B) inside each job that was starving. */
		for (k = 0; k < nj; k++) {
			struct sched_ssn_job *j = sc.jobs[k];

			nt = sched_pending_tasks(ssn, j, sc.tasks, sc.tmp);
			for (m = 0; m < nt; m++) {
				bool assigned;

				if (sc.tasks[m]->t->status != SCHED_TASK_PENDING)
					continue;
				rc = sched_preempt_task(ssn, &sc.stmt, sc.tasks[m], false,
							filter_within_job, &assigned);
				if (rc < 0)
					goto out;
				if (!assigned) {
					sched_stmt_discard(ssn, &sc.stmt);
					break;
				}
				sched_stmt_commit(ssn, &sc.stmt);
			}
		}
	}
	rc = 0;
out:
	sched_evict_scratch_release(ssn, &sc, rc < 0);
	return rc;
}

const struct sched_action sched_action_preempt = {
	.name = "preempt",
	.execute = preempt_execute,
};
