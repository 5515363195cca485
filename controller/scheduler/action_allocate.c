/*
 * action_allocate.c - all-or-nothing gang placement (docs/volcano/scheduler.md §3.2).
 *
 * Queues are popped in queue order and jobs in job order (binary heaps: a job's or queue's key
 * only changes while it is out of its heap). Each pop runs one pass over the job's ordered
 * pending tasks inside a statement; the pass stops as soon as the job is ready, so a gang is
 * placed in one pass and every later pop of a ready (elastic) job adds one more pod. A job that
 * is ready commits (binds); one that is only pipelined keeps its session reservation without
 * committing; anything else is discarded, which remembers where each task could have gone.
 */
#include "sched_internal.h"

#include "vc_alloc.h"

struct alloc_ctx {
	struct sched_session *ssn;
	struct sched_ssn_task **ws; /* per job: ws[start[j] .. start[j] + len[j]) in task order */
	size_t *start, *len, *cursor;
	/* Roles that failed predicates, per job: a linked list in a pool of ntasks entries. */
	const char **fail_role;
	uint32_t *fail_next, *fail_head, nfail;
	struct sched_stmt stmt;
	bool *committed; /* per job: a statement of its tasks was committed */
};

static bool role_failed(const struct alloc_ctx *c, const struct sched_ssn_job *j, const char *role)
{
	uint32_t i;

	for (i = c->fail_head[j->index]; i != SCHED_NONE; i = c->fail_next[i])
		if (strcmp(c->fail_role[i], role) == 0)
			return true;
	return false;
}

static void add_failed_role(struct alloc_ctx *c, const struct sched_ssn_job *j, const char *role)
{
	if (role_failed(c, j, role) || c->nfail >= c->ssn->ntasks)
		return;
	c->fail_role[c->nfail] = role;
	c->fail_next[c->nfail] = c->fail_head[j->index];
	c->fail_head[j->index] = c->nfail++;
}

static int64_t min_task_member(const struct sched_ssn_job *j, const char *role)
{
	const json_t *v = json_object_get(j->j->min_task_member, role);

	return json_is_integer(v) ? json_integer_value(v) : 0;
}

/* Volcano's JobInfo.NeedContinueAllocating after a task of j found no node. */
static bool need_continue(const struct alloc_ctx *c, const struct sched_ssn_job *j)
{
	uint32_t i;
	size_t k;

	if ((int64_t)j->ntasks == j->j->min_member)
		return false;
	if (j->j->min_member < j->min_task_total) {
		int64_t left = 0;

		for (k = 0; k < j->ntasks; k++)
			if (j->tasks[k].t->status == SCHED_TASK_PENDING &&
			    !role_failed(c, j, j->tasks[k].t->role))
				left++;
		return (int64_t)sched_ssn_job_nready(j) + left >= j->j->min_member;
	}
	for (i = c->fail_head[j->index]; i != SCHED_NONE; i = c->fail_next[i]) {
		int64_t min = min_task_member(j, c->fail_role[i]), occupied = 0;

		if (min <= 0)
			continue;
		for (k = 0; k < j->ntasks; k++) {
			const struct sched_task_info *t = j->tasks[k].t;

			if (strcmp(t->role, c->fail_role[i]) != 0)
				continue;
			if (sched_task_status_is_allocated(t->status) ||
			    t->status == SCHED_TASK_SUCCEEDED ||
			    (t->status == SCHED_TASK_PENDING && t->best_effort))
				occupied++;
		}
		if (occupied < min)
			return false;
	}
	return true;
}

/* The nominated node when it still fits (FutureIdle and predicates), else SCHED_NONE. */
static int nominated_fit(struct sched_session *ssn, struct sched_ssn_task *t, uint32_t *out)
{
	struct sched_ssn_node *n;
	struct pred_result pr;
	bool unres;
	int rc;

	*out = SCHED_NONE;
	if (t->nominated == SCHED_NONE)
		return 0;
	n = &ssn->nodes[t->nominated];
	sched_ssn_future_idle(ssn, n, ssn->priv->vec);
	if (!sched_res_le(ssn, t->req, ssn->priv->vec))
		return 0;
	rc = sched_ssn_predicate(ssn, t, n, &pr, &unres);
	if (rc < 0)
		return rc;
	if (pr.fit)
		*out = t->nominated;
	return 0;
}

enum pass_result {
	PASS_READY,
	PASS_PIPELINED,
	PASS_DISCARDED,
};

static int allocate_tasks(struct alloc_ctx *c, struct sched_ssn_job *j, enum pass_result *res)
{
	struct sched_session *ssn = c->ssn;
	struct sched_session_priv *p = ssn->priv;
	size_t idx = j->index;
	int rc;

	sched_cache_reset(ssn);
	while (c->cursor[idx] < c->len[idx]) {
		struct sched_ssn_task *t = c->ws[c->start[idx] + c->cursor[idx]++];
		uint32_t node = SCHED_NONE, one;
		int64_t st0;
		const uint32_t *cands;
		size_t n;
		double *fi = p->vec + ssn->ndims;

		if (!sched_ssn_allocatable(ssn, j->queue, t))
			continue;
		if (t->gated)
			continue;
		if (p->predicate_cache && t->t->role[0] && role_failed(c, j, t->t->role))
			continue; /* "Task <name> with role spec <role> has already predicated
				     failed" */
		rc = nominated_fit(ssn, t, &one);
		if (rc < 0)
			return rc;
		if (one != SCHED_NONE) {
			cands = &one;
			n = 1;
		} else {
			int64_t t0 = sched_metrics_start(sched_ssn_metrics(ssn));

			rc = sched_predicate_nodes(ssn, t, SCHED_SEARCH_ALLOCATE, true, &n);
			if (rc < 0)
				return rc;
			sched_metrics_stage(sched_ssn_metrics(ssn), SCHED_STAGE_PREDICATE, t0);
			cands = p->feasible;
		}
		if (n == 0) {
			add_failed_role(c, j, t->t->role);
			if (need_continue(c, j))
				continue;
			break;
		}
		st0 = sched_metrics_start(sched_ssn_metrics(ssn));
		node = sched_best_node(ssn, t, cands, n);
		sched_metrics_stage(sched_ssn_metrics(ssn), SCHED_STAGE_SCORING, st0);
		if (node == SCHED_NONE)
			continue;
		sched_ssn_future_idle(ssn, &ssn->nodes[node], fi);
		if (sched_res_le(ssn, t->req, ssn->nodes[node].idle))
			rc = sched_stmt_allocate(ssn, &c->stmt, t, node);
		else if (sched_res_le(ssn, t->req, fi))
			rc = sched_stmt_pipeline(ssn, &c->stmt, t, node, false);
		if (rc < 0)
			return rc;
		if (sched_ssn_job_ready(ssn, j))
			break;
	}
	if (sched_ssn_job_ready(ssn, j))
		*res = PASS_READY;
	else if (sched_ssn_job_pipelined(ssn, j))
		*res = PASS_PIPELINED;
	else
		*res = PASS_DISCARDED;
	return 0;
}

static int collect(struct alloc_ctx *c, struct sched_heap *queues, struct sched_heap *jobs,
		   struct sched_ssn_task **tmp)
{
	struct sched_session *ssn = c->ssn;
	bool has_enqueue = sched_ssn_has_action(ssn, "enqueue");
	size_t i, k, pos = 0, *qcount;
	int rc = 0;

	qcount = vc_calloc(ssn->nqueues + 1, sizeof(*qcount));
	if (!qcount)
		return VC_ENOMEM;
	for (i = 0; i < ssn->njobs; i++) {
		struct sched_ssn_job *j = &ssn->jobs[i];
		struct gang_validity v;

		c->start[i] = pos;
		c->len[i] = 0;
		if (sched_ssn_job_is_pending(j)) {
			if (has_enqueue)
				continue;
			sched_ssn_job_set_phase(j, VC_PG_INQUEUE);
		}
		if (!j->queue)
			continue;
		sched_ssn_job_valid(ssn, j, &v);
		if (!v.valid)
			continue;
		for (k = 0; k < j->ntasks; k++) {
			struct sched_ssn_task *t = &j->tasks[k];

			if (t->t->status != SCHED_TASK_PENDING || t->gated || t->t->best_effort)
				continue;
			c->ws[pos++] = t;
		}
		c->len[i] = pos - c->start[i];
		if (c->len[i] == 0)
			continue;
		sched_sort(ssn, (void **)(c->ws + c->start[i]), c->len[i], (void **)tmp,
			   sched_cmp_tasks);
		qcount[j->queue->index]++;
	}
	for (i = 0; i < ssn->nqueues && rc == 0; i++) {
		if (!qcount[i])
			continue;
		rc = sched_heap_init(&jobs[i], qcount[i], sched_cmp_jobs, ssn);
		if (rc == 0)
			sched_heap_push(queues, &ssn->queues[i]);
	}
	for (i = 0; i < ssn->njobs && rc == 0; i++)
		if (c->len[i])
			sched_heap_push(&jobs[ssn->jobs[i].queue->index], &ssn->jobs[i]);
	vc_free(qcount);
	return rc;
}

static int allocate_execute(struct sched_session *ssn)
{
	struct alloc_ctx c;
	struct sched_heap queues = { 0 }, *jobs = NULL;
	struct sched_ssn_task **tmp = NULL;
	size_t i, nt = ssn->ntasks + 1, nj = ssn->njobs + 1;
	int rc = VC_ENOMEM;

	memset(&c, 0, sizeof(c));
	c.ssn = ssn;
	sched_stmt_init(&c.stmt);
	c.ws = vc_calloc(nt, sizeof(struct sched_ssn_task *));
	tmp = vc_calloc(nt, sizeof(struct sched_ssn_task *));
	c.start = vc_calloc(nj, sizeof(size_t));
	c.len = vc_calloc(nj, sizeof(size_t));
	c.cursor = vc_calloc(nj, sizeof(size_t));
	c.fail_role = vc_calloc(nt, sizeof(*c.fail_role));
	c.fail_next = vc_calloc(nt, sizeof(uint32_t));
	c.fail_head = vc_malloc(nj * sizeof(uint32_t));
	jobs = vc_calloc(ssn->nqueues + 1, sizeof(*jobs));
	c.committed = vc_calloc(nj, sizeof(bool));
	if (!c.ws || !tmp || !c.start || !c.len || !c.cursor || !c.fail_role || !c.fail_next ||
	    !c.fail_head || !jobs || !c.committed)
		goto out;
	for (i = 0; i < nj; i++)
		c.fail_head[i] = SCHED_NONE;
	if (sched_heap_init(&queues, ssn->nqueues, sched_cmp_queues, ssn) < 0)
		goto out;
	rc = collect(&c, &queues, jobs, tmp);
	if (rc < 0)
		goto out;
	for (;;) {
		struct sched_ssn_queue *q = sched_heap_pop(&queues);
		struct sched_ssn_job *j;
		enum pass_result res;

		if (!q)
			break;
		if (sched_ssn_overused(ssn, q))
			continue;
		j = sched_heap_pop(&jobs[q->index]);
		if (!j)
			continue;
		rc = allocate_tasks(&c, j, &res);
		if (rc < 0) {
			sched_stmt_discard(ssn, &c.stmt);
			goto out;
		}
		switch (res) {
		case PASS_READY:
			c.committed[j->index] |= c.stmt.n > 0;
			sched_stmt_commit(ssn, &c.stmt);
			if (c.cursor[j->index] < c.len[j->index])
				sched_heap_push(&jobs[q->index], j);
			break;
		case PASS_PIPELINED:
			/* Neither committed nor discarded: the reservation lives for the session.
			 */
			c.stmt.n = 0;
			break;
		case PASS_DISCARDED:
		default:
			sched_stmt_discard(ssn, &c.stmt);
			break;
		}
		sched_heap_push(&queues, q);
	}
	/* Once per job and session: its last task assumed now (Volcano's
	 * UpdateE2eSchedulingDurationByJob). */
	for (i = 0; i < ssn->njobs; i++)
		if (c.committed[i])
			sched_metrics_job_assumed(sched_ssn_metrics(ssn), ssn->jobs[i].j->ns,
						  ssn->jobs[i].j->name, ssn->jobs[i].j->queue,
						  ssn->jobs[i].created);
	rc = 0;
out:
	if (jobs)
		for (i = 0; i < ssn->nqueues; i++)
			sched_heap_release(&jobs[i]);
	vc_free(jobs);
	sched_heap_release(&queues);
	sched_stmt_release(&c.stmt);
	vc_free(c.ws);
	vc_free(tmp);
	vc_free(c.start);
	vc_free(c.len);
	vc_free(c.cursor);
	vc_free(c.fail_role);
	vc_free(c.fail_next);
	vc_free(c.fail_head);
	vc_free(c.committed);
	return rc;
}

const struct sched_action sched_action_allocate = {
	.name = "allocate",
	.execute = allocate_execute,
};
