/*
 * sched_plugins_builtin.c - priority, gang, drf, proportion, binpack, nodeorder and predicates
 * as session plugins (scheduler.md §4): the formulas of plugins.h over the session's dense
 * vectors, registered through sched_framework.h.
 */
#include "sched_internal.h"

#include <math.h>

#include "vc_alloc.h"

/* Per-job counters for victim filters, reset lazily by a call stamp. */
struct job_budget {
	uint32_t *stamp;
	int64_t *left;
	uint32_t now;
	size_t njobs;
};

static int budget_init(struct job_budget *b, size_t njobs)
{
	b->njobs = njobs;
	b->stamp = vc_calloc(njobs ? njobs : 1, sizeof(*b->stamp));
	b->left = vc_calloc(njobs ? njobs : 1, sizeof(*b->left));
	b->now = 0;
	return b->stamp && b->left ? 0 : VC_ENOMEM;
}

static void budget_release(struct job_budget *b)
{
	vc_free(b->stamp);
	vc_free(b->left);
}

/* Take one from the job's surplus (Ready − minMember), counted from the start of this call. */
static bool budget_take(struct job_budget *b, const struct sched_sjob *j)
{
	if (b->stamp[j->index] != b->now) {
		b->stamp[j->index] = b->now;
		b->left[j->index] = (int64_t)sched_sjob_ready(j) - j->j->min_member;
	}
	if (b->left[j->index] <= 0)
		return false;
	b->left[j->index]--;
	return true;
}

static void budget_next_call(struct job_budget *b)
{
	if (++b->now == 0) {
		memset(b->stamp, 0, b->njobs * sizeof(*b->stamp)); /* wrapped: restart at 1 */
		b->now = 1;
	}
}

/*
 * A per-node score cache keyed by (node version, task shape): a node's score for a request only
 * changes when the node's accounting does, so identical pods scanning the same nodes reuse it.
 */
struct score_cache {
	uint32_t *ver; /* node version + 1; 0 = empty */
	uint32_t *shape;
	double *score;
};

static int cache_init(struct score_cache *c, size_t nnodes)
{
	c->ver = vc_calloc(nnodes + 1, sizeof(*c->ver));
	c->shape = vc_calloc(nnodes + 1, sizeof(*c->shape));
	c->score = vc_calloc(nnodes + 1, sizeof(*c->score));
	return c->ver && c->shape && c->score ? 0 : VC_ENOMEM;
}

static void cache_release(struct score_cache *c)
{
	vc_free(c->ver);
	vc_free(c->shape);
	vc_free(c->score);
}

static bool cache_get(const struct score_cache *c, const struct sched_stask *t,
		      const struct sched_snode *n, double *out)
{
	if (c->ver[n->index] != n->version + 1 || c->shape[n->index] != t->shape)
		return false;
	*out = c->score[n->index];
	return true;
}

static double cache_put(struct score_cache *c, const struct sched_stask *t,
			const struct sched_snode *n, double score)
{
	c->ver[n->index] = n->version + 1;
	c->shape[n->index] = t->shape;
	c->score[n->index] = score;
	return score;
}

/* ---- priority (§4.2, REC (b)/(d) of §6) --------------------------------------------------------
 */

struct priority_state {
	struct sched_session *ssn;
	struct job_budget budget;
};

static int priority_job_order_cb(void *st, const struct sched_sjob *a, const struct sched_sjob *b)
{
	(void)st;
	return priority_job_order(a->j, b->j);
}

static int priority_task_order_cb(void *st, const struct sched_stask *a,
				  const struct sched_stask *b)
{
	(void)st;
	return priority_task_order(a->t, b->t);
}

/*
 * Other jobs: the victim job's priority must be lower; with equal priority, a victim may be
 * elastic surplus (beyond minMember) of a ready gang when the preemptor's gang is starving
 * (REC (b)); core pods are never taken at equal priority (REC (d)). Same job: task priority.
 */
static enum sched_vote priority_preemptable_cb(void *st, const struct sched_stask *p,
					       struct sched_stask *const *cands, size_t n,
					       bool *keep)
{
	struct priority_state *s = st;
	size_t i;

	budget_next_call(&s->budget);
	for (i = 0; i < n; i++) {
		const struct sched_stask *v = cands[i];
		const struct sched_sjob *pj = p->job, *vj = v->job;
		bool ok;

		if (!keep[i])
			continue;
		if (!pj || !vj || pj == vj) {
			ok = v->t->priority < p->t->priority;
		} else if (vj->j->priority < pj->j->priority) {
			ok = true;
		} else if (vj->j->priority == pj->j->priority) {
			ok = sched_sjob_waiting(pj) + sched_sjob_ready(pj) <
				     (uint32_t)(pj->j->min_member > 0 ? pj->j->min_member : 0) &&
			     budget_take(&s->budget, vj);
		} else {
			ok = false;
		}
		keep[i] = ok;
	}
	return SCHED_PERMIT;
}

static bool priority_starving_cb(void *st, const struct sched_sjob *j)
{
	(void)st;
	return sched_sjob_ready(j) + sched_sjob_waiting(j) < j->ntasks;
}

static int priority_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
			 struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	struct priority_state *s = vc_calloc(1, sizeof(*s));

	(void)conf;
	if (!s || budget_init(&s->budget, ssn->njobs) < 0) {
		if (s)
			budget_release(&s->budget);
		vc_free(s);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	s->ssn = ssn;
	cb->job_order = priority_job_order_cb;
	cb->task_order = priority_task_order_cb;
	cb->preemptable = priority_preemptable_cb;
	cb->job_starving = priority_starving_cb;
	*state = s;
	return 0;
}

static void priority_close(struct sched_session *ssn, void *state)
{
	struct priority_state *s = state;

	(void)ssn;
	if (!s)
		return;
	budget_release(&s->budget);
	vc_free(s);
}

const struct sched_plugin sched_plugin_priority = {
	.name = "priority",
	.on_session_open = priority_open,
	.on_session_close = priority_close,
};

/* ---- gang (§4.1)
 * --------------------------------------------------------------------------------- */

struct gang_state {
	struct job_budget budget;
};

static void gang_valid_cb(void *st, const struct sched_sjob *j, struct gang_validity *out)
{
	(void)st;
	gang_job_valid(j->j, out);
}

static bool gang_ready_cb(void *st, const struct sched_sjob *j)
{
	(void)st;
	return sched_sjob_gang_ready(j);
}

static enum sched_vote gang_pipelined_cb(void *st, const struct sched_sjob *j)
{
	(void)st;
	return sched_sjob_gang_pipelined(j) ? SCHED_PERMIT : SCHED_REJECT;
}

static bool gang_starving_cb(void *st, const struct sched_sjob *j)
{
	(void)st;
	return (int64_t)sched_sjob_waiting(j) + sched_sjob_ready(j) < j->j->min_member;
}

static int gang_order_cb(void *st, const struct sched_sjob *a, const struct sched_sjob *b)
{
	bool ra = sched_sjob_gang_ready(a), rb = sched_sjob_gang_ready(b);

	(void)st;
	if (ra == rb)
		return 0;
	return ra ? 1 : -1;
}

/*
 * A victim job may lose only its surplus (Ready − minMember), except to a preemptor of strictly
 * higher job priority, which may take whole gangs (REC (d); the action then evicts the rest).
 */
static enum sched_vote gang_victims(struct gang_state *s, const struct sched_stask *p,
				    struct sched_stask *const *cands, size_t n, bool *keep,
				    bool reclaim)
{
	size_t i;

	budget_next_call(&s->budget);
	for (i = 0; i < n; i++) {
		const struct sched_sjob *vj = cands[i]->job;

		if (!keep[i] || !vj)
			continue;
		if (!reclaim && p->job && p->job != vj && p->job->j->priority > vj->j->priority)
			continue;
		keep[i] = budget_take(&s->budget, vj);
	}
	return SCHED_PERMIT;
}

static enum sched_vote gang_preemptable_cb(void *st, const struct sched_stask *p,
					   struct sched_stask *const *cands, size_t n, bool *keep)
{
	return gang_victims(st, p, cands, n, keep, false);
}

static enum sched_vote gang_reclaimable_cb(void *st, const struct sched_stask *p,
					   struct sched_stask *const *cands, size_t n, bool *keep)
{
	return gang_victims(st, p, cands, n, keep, true);
}

static int gang_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
		     struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	struct gang_state *s = vc_calloc(1, sizeof(*s));

	(void)conf;
	if (!s || budget_init(&s->budget, ssn->njobs) < 0) {
		if (s)
			budget_release(&s->budget);
		vc_free(s);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	cb->job_valid = gang_valid_cb;
	cb->job_ready = gang_ready_cb;
	cb->job_pipelined = gang_pipelined_cb;
	cb->job_starving = gang_starving_cb;
	cb->job_order = gang_order_cb;
	cb->preemptable = gang_preemptable_cb;
	cb->reclaimable = gang_reclaimable_cb;
	*state = s;
	return 0;
}

static void gang_close(struct sched_session *ssn, void *state)
{
	struct gang_state *s = state;

	(void)ssn;
	if (!s)
		return;
	budget_release(&s->budget);
	vc_free(s);
}

const struct sched_plugin sched_plugin_gang = {
	.name = "gang",
	.on_session_open = gang_open,
	.on_session_close = gang_close,
};

/* ---- drf (§4.3)
 * ----------------------------------------------------------------------------------- */

struct drf_state {
	struct sched_session *ssn;
	double *alloc; /* njobs × ndims */
	double *share; /* njobs */
	double *tmp;   /* ndims × 2 */
};

static double dense_share(const struct sched_session *ssn, const double *alloc, const double *total)
{
	double share = 0;
	size_t d;

	for (d = 0; d < ssn->ndims; d++) {
		double s;

		if (total[d] < VC_RESOURCE_MIN)
			continue;
		s = sched_share(alloc[d], total[d]);
		if (s > share)
			share = s;
	}
	return share;
}

static int drf_order_cb(void *st, const struct sched_sjob *a, const struct sched_sjob *b)
{
	struct drf_state *s = st;
	double sa = s->share[a->index], sb = s->share[b->index];

	if (sa == sb)
		return 0;
	return sa < sb ? -1 : 1;
}

static void drf_event(struct drf_state *s, const struct sched_stask *t, double sign)
{
	struct sched_session *ssn = s->ssn;
	double *a;
	size_t d;

	if (!t->job)
		return;
	a = s->alloc + (size_t)t->job->index * ssn->ndims;
	for (d = 0; d < ssn->ndims; d++)
		a[d] += sign * t->req[d];
	s->share[t->job->index] = dense_share(ssn, a, ssn->total);
}

static void drf_allocate_cb(void *st, const struct sched_stask *t)
{
	drf_event(st, t, 1);
}

static void drf_deallocate_cb(void *st, const struct sched_stask *t)
{
	drf_event(st, t, -1);
}

static enum sched_vote drf_preemptable_cb(void *st, const struct sched_stask *p,
					  struct sched_stask *const *cands, size_t n, bool *keep)
{
	struct drf_state *s = st;
	struct sched_session *ssn = s->ssn;
	size_t nd = ssn->ndims, i, d;
	double ls;

	if (!p->job)
		return SCHED_ABSTAIN;
	for (d = 0; d < nd; d++)
		s->tmp[d] = s->alloc[(size_t)p->job->index * nd + d] + p->req[d];
	ls = dense_share(ssn, s->tmp, ssn->total);
	/*
	 * Each victim job's allocation shrinks by every candidate of that job looked at so far,
	 * victim or not (Volcano's per-call allocations map); candidates per node are few.
	 */
	for (i = 0; i < n; i++) {
		const struct sched_sjob *vj = cands[i]->job;
		double *acc;
		size_t k;

		if (!vj)
			continue;
		acc = s->tmp + nd;
		for (d = 0; d < nd; d++)
			acc[d] = s->alloc[(size_t)vj->index * nd + d];
		for (k = 0; k <= i; k++)
			if (cands[k]->job == vj)
				for (d = 0; d < nd; d++)
					acc[d] -= cands[k]->req[d];
		if (keep[i]) {
			double rs = dense_share(ssn, acc, ssn->total);

			keep[i] = ls < rs || fabs(ls - rs) <= 1e-6;
		}
	}
	return SCHED_PERMIT;
}

static int drf_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
		    struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	struct drf_state *s = vc_calloc(1, sizeof(*s));
	size_t i, nd = ssn->ndims;

	(void)conf;
	if (!s)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	s->ssn = ssn;
	s->alloc = vc_calloc(ssn->njobs * nd + 1, sizeof(double));
	s->share = vc_calloc(ssn->njobs + 1, sizeof(double));
	s->tmp = vc_calloc(2 * nd, sizeof(double));
	if (!s->alloc || !s->share || !s->tmp) {
		vc_free(s->alloc);
		vc_free(s->share);
		vc_free(s->tmp);
		vc_free(s);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	for (i = 0; i < ssn->njobs; i++) {
		memcpy(s->alloc + i * nd, ssn->jobs[i].alloc, nd * sizeof(double));
		s->share[i] = dense_share(ssn, s->alloc + i * nd, ssn->total);
	}
	cb->job_order = drf_order_cb;
	cb->preemptable = drf_preemptable_cb;
	cb->on_allocate = drf_allocate_cb;
	cb->on_deallocate = drf_deallocate_cb;
	*state = s;
	return 0;
}

static void drf_close(struct sched_session *ssn, void *state)
{
	struct drf_state *s = state;
	size_t i;

	if (!s)
		return;
	/* Leave the shares in the model for logs and tests. */
	for (i = 0; i < ssn->njobs; i++)
		ssn->jobs[i].j->share = s->share[i];
	vc_free(s->alloc);
	vc_free(s->share);
	vc_free(s->tmp);
	vc_free(s);
}

const struct sched_plugin sched_plugin_drf = {
	.name = "drf",
	.on_session_open = drf_open,
	.on_session_close = drf_close,
};

/* ---- proportion (§4.4) -------------------------------------------------------------------------
 */

struct proportion_state {
	struct sched_session *ssn;
	/* Per queue, ndims each: */
	double *deserved, *real_cap, *allocated, *inqueue, *elastic;
	double *share;
	double *tmp; /* nqueues × ndims: reclaim's running copies */
	uint32_t *seen;
	uint32_t call;
};

#define QV(s, field, q) ((s)->field + (size_t)(q)->index * (s)->ssn->ndims)

static bool le_tol(double l, double r)
{
	return l < r || fabs(l - r) < VC_RESOURCE_MIN;
}

static void proportion_share_of(struct proportion_state *s, const struct sched_squeue *q)
{
	const double *des = QV(s, deserved, q), *al = QV(s, allocated, q);
	double share = 0;
	size_t d;

	for (d = 0; d < s->ssn->ndims; d++) {
		double v;

		if (des[d] < VC_RESOURCE_MIN)
			continue;
		v = sched_share(al[d], des[d]);
		if (v > share)
			share = v;
	}
	s->share[q->index] = share;
}

static int proportion_order_cb(void *st, const struct sched_squeue *a, const struct sched_squeue *b)
{
	struct proportion_state *s = st;
	double sa = s->share[a->index], sb = s->share[b->index];

	if (a->q->priority != b->q->priority)
		return a->q->priority > b->q->priority ? -1 : 1;
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return 0;
}

static bool proportion_overused_cb(void *st, const struct sched_squeue *q)
{
	struct proportion_state *s = st;

	return sched_res_le(s->ssn, QV(s, deserved, q), QV(s, allocated, q));
}

static bool proportion_allocatable_cb(void *st, const struct sched_squeue *q,
				      const struct sched_stask *t)
{
	struct proportion_state *s = st;
	const double *al = QV(s, allocated, q), *des = QV(s, deserved, q);
	size_t d;

	if (q->q->state != VC_QUEUE_OPEN)
		return false;
	for (d = 0; d < s->ssn->ndims; d++)
		if (t->req[d] > 0 && !le_tol(al[d] + t->req[d], des[d]))
			return false;
	return true;
}

static enum sched_vote proportion_reclaimable_cb(void *st, const struct sched_stask *r,
						 struct sched_stask *const *cands, size_t n,
						 bool *keep)
{
	struct proportion_state *s = st;
	size_t nd = s->ssn->ndims, i, d;

	if (++s->call == 0)
		s->call = 1;
	for (i = 0; i < n; i++) {
		const struct sched_squeue *q = cands[i]->job ? cands[i]->job->queue : NULL;
		double *copy;
		bool partly = false;

		if (!q) {
			keep[i] = false;
			continue;
		}
		copy = s->tmp + (size_t)q->index * nd;
		if (s->seen[q->index] != s->call) {
			s->seen[q->index] = s->call;
			memcpy(copy, QV(s, allocated, q), nd * sizeof(double));
		}
		/* Volcano skips a reclaimee whose queue holds less than the reclaimer asks. */
		for (d = 0; d < nd; d++)
			if ((d < 2 || r->req[d] > 0) && copy[d] < r->req[d])
				partly = true;
		if (partly || sched_res_le(s->ssn, copy, QV(s, deserved, q))) {
			keep[i] = false;
			continue;
		}
		if (keep[i])
			for (d = 0; d < nd; d++)
				copy[d] -= cands[i]->req[d];
	}
	return SCHED_PERMIT;
}

static enum sched_vote proportion_enqueueable_cb(void *st, const struct sched_sjob *j,
						 char **message)
{
	struct proportion_state *s = st;
	const struct sched_squeue *q = j->queue;
	const double *al, *inq, *el, *rc;
	struct vc_buf b;
	size_t d;
	bool ok = true;

	if (!q || q->q->state != VC_QUEUE_OPEN)
		return SCHED_REJECT;
	if (!j->has_min_res)
		return SCHED_PERMIT;
	al = QV(s, allocated, q);
	inq = QV(s, inqueue, q);
	el = QV(s, elastic, q);
	rc = QV(s, real_cap, q);
	vc_buf_init(&b, 4096);
	for (d = 0; d < s->ssn->ndims; d++) {
		double need;

		if (j->min_res[d] <= 0)
			continue;
		need = j->min_res[d] + al[d] + inq[d] - el[d];
		if (le_tol(need, rc[d]))
			continue;
		if (vc_buf_addf(&b, "%s%s %s", ok ? "queue resource quota insufficient: " : ", ",
				"insufficient", s->ssn->dims[d]) < 0) {
			vc_buf_release(&b);
			return SCHED_REJECT;
		}
		ok = false;
	}
	if (ok) {
		vc_buf_release(&b);
		return SCHED_PERMIT;
	}
	*message = vc_buf_take(&b);
	return SCHED_REJECT;
}

/* minResources less what the job's scheduling-gated pending tasks ask (DeductSchGatedResources). */
static void min_res_ungated(const struct sched_session *ssn, const struct sched_sjob *j,
			    double *out)
{
	size_t i, d;

	memcpy(out, j->min_res, ssn->ndims * sizeof(double));
	for (i = 0; i < j->ntasks; i++)
		if (j->tasks[i].gated && j->tasks[i].t->status == SCHED_TASK_PENDING)
			for (d = 0; d < ssn->ndims; d++)
				out[d] -= j->tasks[i].req[d];
	for (d = 0; d < ssn->ndims; d++)
		if (out[d] < 0)
			out[d] = 0;
}

static void proportion_enqueued_cb(void *st, const struct sched_sjob *j)
{
	struct proportion_state *s = st;
	double *inq, *tmp = s->ssn->priv->vec + 3 * s->ssn->ndims;
	size_t d;

	if (!j->queue || !j->has_min_res)
		return;
	inq = QV(s, inqueue, j->queue);
	min_res_ungated(s->ssn, j, tmp);
	for (d = 0; d < s->ssn->ndims; d++)
		inq[d] += tmp[d];
}

static void proportion_event(struct proportion_state *s, const struct sched_stask *t, double sign)
{
	double *al;
	size_t d;

	if (!t->job || !t->job->queue)
		return;
	al = QV(s, allocated, t->job->queue);
	for (d = 0; d < s->ssn->ndims; d++)
		al[d] += sign * t->req[d];
	proportion_share_of(s, t->job->queue);
}

static void proportion_allocate_cb(void *st, const struct sched_stask *t)
{
	proportion_event(st, t, 1);
}

static void proportion_deallocate_cb(void *st, const struct sched_stask *t)
{
	proportion_event(st, t, -1);
}

static void proportion_free(struct proportion_state *s)
{
	if (!s)
		return;
	vc_free(s->deserved);
	vc_free(s->real_cap);
	vc_free(s->allocated);
	vc_free(s->inqueue);
	vc_free(s->elastic);
	vc_free(s->share);
	vc_free(s->tmp);
	vc_free(s->seen);
	vc_free(s);
}

static int proportion_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
			   struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	struct proportion_state *s = vc_calloc(1, sizeof(*s));
	struct sched_queue **ptrs = NULL;
	size_t nq = ssn->nqueues, nd = ssn->ndims, sz = nq * nd + 1, i, d;

	(void)conf;
	if (!s)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	s->ssn = ssn;
	s->deserved = vc_calloc(sz, sizeof(double));
	s->real_cap = vc_calloc(sz, sizeof(double));
	s->allocated = vc_calloc(sz, sizeof(double));
	s->inqueue = vc_calloc(sz, sizeof(double));
	s->elastic = vc_calloc(sz, sizeof(double));
	s->tmp = vc_calloc(sz, sizeof(double));
	s->share = vc_calloc(nq + 1, sizeof(double));
	s->seen = vc_calloc(nq + 1, sizeof(uint32_t));
	ptrs = vc_calloc(nq + 1, sizeof(struct sched_queue *));
	if (!s->deserved || !s->real_cap || !s->allocated || !s->inqueue || !s->elastic ||
	    !s->tmp || !s->share || !s->seen || !ptrs)
		goto nomem;
	/* The model's queue totals, then Volcano's water-filling. */
	for (i = 0; i < nq; i++) {
		struct sched_queue *q = ssn->queues[i].q;

		vc_resource_clear(&q->allocated);
		vc_resource_clear(&q->request);
		q->active = false;
		ptrs[i] = q;
	}
	for (i = 0; i < ssn->njobs; i++) {
		const struct sched_sjob *j = &ssn->jobs[i];
		double *inq, *el;
		enum vc_pg_phase ph = j->j->phase;

		if (!j->queue)
			continue;
		if (sched_queue_account(j->queue->q, j->j) < 0)
			goto nomem;
		inq = QV(s, inqueue, j->queue);
		el = QV(s, elastic, j->queue);
		for (d = 0; d < nd; d++) {
			double over = j->alloc[d] - j->min_res[d];

			if (over > 0)
				el[d] += over;
		}
		if (!j->has_min_res)
			continue;
		if (ph == VC_PG_INQUEUE ||
		    (ph == VC_PG_RUNNING && (int64_t)sched_sjob_ready(j) >= j->j->min_member))
			for (d = 0; d < nd; d++) {
				double left = j->min_res[d] - j->alloc[d];

				if (left > 0)
					inq[d] += left;
			}
	}
	if (proportion_compute_ptrs(ptrs, nq, &ssn->snap->total) < 0)
		goto nomem;
	for (i = 0; i < nq; i++) {
		const struct sched_squeue *q = &ssn->queues[i];

		sched_ssn_dense(ssn, &q->q->deserved, QV(s, deserved, q));
		sched_ssn_dense(ssn, &q->q->real_capability, QV(s, real_cap, q));
		sched_ssn_dense(ssn, &q->q->allocated, QV(s, allocated, q));
		proportion_share_of(s, q);
	}
	vc_free(ptrs);
	cb->queue_order = proportion_order_cb;
	cb->overused = proportion_overused_cb;
	cb->allocatable = proportion_allocatable_cb;
	cb->preemptive = proportion_allocatable_cb;
	cb->reclaimable = proportion_reclaimable_cb;
	cb->job_enqueueable = proportion_enqueueable_cb;
	cb->job_enqueued = proportion_enqueued_cb;
	cb->on_allocate = proportion_allocate_cb;
	cb->on_deallocate = proportion_deallocate_cb;
	*state = s;
	return 0;
nomem:
	vc_free(ptrs);
	proportion_free(s);
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

static void proportion_close(struct sched_session *ssn, void *state)
{
	struct proportion_state *s = state;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < ssn->nqueues; i++)
		ssn->queues[i].q->share = s->share[i];
	proportion_free(s);
}

const struct sched_plugin sched_plugin_proportion = {
	.name = "proportion",
	.on_session_open = proportion_open,
	.on_session_close = proportion_close,
};

/* ---- binpack (§4.9) ---------------------------------------------------------------------------
 */

struct binpack_state {
	struct sched_session *ssn;
	struct score_cache cache;
	double weight;
	int *w;	     /* per dimension */
	bool *has_w; /* per dimension */
};

static double binpack_cb(void *st, const struct sched_stask *t, const struct sched_snode *n)
{
	struct binpack_state *s = st;
	double score = 0;
	int64_t wsum = 0;
	size_t d;

	if (cache_get(&s->cache, t, n, &score))
		return score;

	for (d = 0; d < s->ssn->ndims; d++) {
		double req = t->req[d], alloc, used;

		if (req < VC_RESOURCE_MIN || !s->has_w[d])
			continue;
		alloc = n->alloc[d];
		used = n->used[d];
		if (alloc != 0 && s->w[d] != 0) {
			if (used + req > alloc)
				return cache_put(&s->cache, t, n, 0);
			score += (used + req) * s->w[d] / alloc;
		}
		wsum += s->w[d];
	}
	if (wsum > 0)
		score /= (double)wsum;
	return cache_put(&s->cache, t, n, score * 100.0 * s->weight);
}

static int binpack_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
			struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	struct binpack_state *s = vc_calloc(1, sizeof(*s));
	const char *list = sched_arg_string(conf, "binpack.resources", "");
	size_t d;

	if (!s)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	s->ssn = ssn;
	s->w = vc_calloc(ssn->ndims, sizeof(int));
	s->has_w = vc_calloc(ssn->ndims, sizeof(bool));
	if (!s->w || !s->has_w || cache_init(&s->cache, ssn->nnodes) < 0) {
		cache_release(&s->cache);
		vc_free(s->w);
		vc_free(s->has_w);
		vc_free(s);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	s->weight = (double)sched_arg_int(conf, "binpack.weight", 1);
	s->w[0] = (int)sched_arg_int(conf, "binpack.cpu", 1);
	s->w[1] = (int)sched_arg_int(conf, "binpack.memory", 1);
	s->has_w[0] = s->has_w[1] = true;
	/* binpack.resources: "a, b" - each with binpack.resources.<name> (default 1). */
	while (*list) {
		char name[256], key[300];
		size_t len = 0;
		uint32_t dim;

		while (*list == ' ' || *list == ',')
			list++;
		while (list[len] && list[len] != ',')
			len++;
		while (len > 0 && list[len - 1] == ' ')
			len--;
		if (len == 0 || len >= sizeof(name)) {
			list += len;
			continue;
		}
		memcpy(name, list, len);
		name[len] = '\0';
		list += len;
		dim = sched_ssn_dim(ssn, name);
		if (dim == SCHED_NONE || dim < 2)
			continue;
		snprintf(key, sizeof(key), "binpack.resources.%s", name);
		s->w[dim] = (int)sched_arg_int(conf, key, 1);
		s->has_w[dim] = true;
	}
	for (d = 0; d < ssn->ndims; d++)
		if (s->w[d] < 0)
			s->w[d] = 0;
	cb->node_order = binpack_cb;
	cb->node_order_by_request = true;
	*state = s;
	return 0;
}

static void binpack_close(struct sched_session *ssn, void *state)
{
	struct binpack_state *s = state;

	(void)ssn;
	if (!s)
		return;
	cache_release(&s->cache);
	vc_free(s->w);
	vc_free(s->has_w);
	vc_free(s);
}

const struct sched_plugin sched_plugin_binpack = {
	.name = "binpack",
	.on_session_open = binpack_open,
	.on_session_close = binpack_close,
};

/* ---- nodeorder (§4.8) ---------------------------------------------------------------------------
 */

#define MAX_NODE_SCORE	  100
#define DEFAULT_MILLI_CPU 100.0
#define DEFAULT_MEMORY	  (200.0 * 1024 * 1024)

struct nodeorder_state {
	struct sched_session *ssn;
	struct score_cache cache;
	struct nodeorder_args args;
};

static int64_t least_score(int64_t requested, int64_t capacity)
{
	if (capacity == 0 || requested > capacity)
		return 0;
	return (capacity - requested) * MAX_NODE_SCORE / capacity;
}

static int64_t most_score(int64_t requested, int64_t capacity)
{
	if (capacity == 0)
		return 0;
	if (requested > capacity)
		requested = capacity;
	return requested * MAX_NODE_SCORE / capacity;
}

static double nodeorder_cb(void *st, const struct sched_stask *t, const struct sched_snode *n)
{
	struct nodeorder_state *s = st;
	int64_t cpu = (int64_t)(n->nz_cpu + (t->req[0] > 0 ? t->req[0] : DEFAULT_MILLI_CPU));
	int64_t mem = (int64_t)(n->nz_mem + (t->req[1] > 0 ? t->req[1] : DEFAULT_MEMORY));
	int64_t acpu = (int64_t)n->alloc[0], amem = (int64_t)n->alloc[1];
	double score = 0;

	if (cache_get(&s->cache, t, n, &score))
		return score;

	if (s->args.least_requested) {
		/* Kubernetes averages in integers. */
		int64_t least = (least_score(cpu, acpu) + least_score(mem, amem)) / 2;

		score += (double)least * s->args.least_requested;
	}
	if (s->args.most_requested) {
		int64_t most = (most_score(cpu, acpu) + most_score(mem, amem)) / 2;

		score += (double)most * s->args.most_requested;
	}
	if (s->args.balanced_resource) {
		double f[3], total = 0, sd = 0;
		size_t k = 0, i;
		uint32_t g = s->ssn->gpu_dim;

		if (n->alloc[0] >= 1)
			f[k++] = fmin((double)cpu / (double)acpu, 1);
		if (n->alloc[1] >= 1)
			f[k++] = fmin((double)mem / (double)amem, 1);
		if (g != SCHED_NONE && t->req[g] > 0 && (int64_t)n->alloc[g] != 0)
			f[k++] = fmin((double)(int64_t)(n->used[g] + t->req[g]) /
					      (double)(int64_t)n->alloc[g],
				      1);
		for (i = 0; i < k; i++)
			total += f[i];
		if (k == 2) {
			sd = fabs((f[0] - f[1]) / 2);
		} else if (k > 2) {
			double mean = total / (double)k, var = 0;

			for (i = 0; i < k; i++)
				var += (f[i] - mean) * (f[i] - mean);
			sd = sqrt(var / (double)k);
		}
		score += (double)(int64_t)((1 - sd) * MAX_NODE_SCORE) * s->args.balanced_resource;
	}
	return cache_put(&s->cache, t, n, score);
}

static int nodeorder_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
			  struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	struct nodeorder_state *s = vc_calloc(1, sizeof(*s));

	if (!s || cache_init(&s->cache, ssn->nnodes) < 0) {
		if (s)
			cache_release(&s->cache);
		vc_free(s);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	s->ssn = ssn;
	nodeorder_args_default(&s->args);
	s->args.least_requested = (int)sched_arg_int(conf, "leastrequested.weight", 1);
	s->args.most_requested = (int)sched_arg_int(conf, "mostrequested.weight", 0);
	s->args.balanced_resource = (int)sched_arg_int(conf, "balancedresource.weight", 1);
	cb->node_order = nodeorder_cb;
	cb->node_order_by_request = true;
	*state = s;
	return 0;
}

static void nodeorder_close(struct sched_session *ssn, void *state)
{
	struct nodeorder_state *s = state;

	(void)ssn;
	if (!s)
		return;
	cache_release(&s->cache);
	vc_free(s);
}

const struct sched_plugin sched_plugin_nodeorder = {
	.name = "nodeorder",
	.on_session_open = nodeorder_open,
	.on_session_close = nodeorder_close,
};

/* ---- predicates (§4.7) -------------------------------------------------------------------------
 */

static int predicates_cb(void *st, const struct sched_stask *t, const struct sched_snode *n,
			 struct pred_result *out, bool *unresolvable)
{
	int rc;

	(void)st;
	out->fit = true;
	if (n->max_pods > 0 && (int64_t)n->n->ntasks >= n->max_pods) {
		out->fit = false;
		snprintf(out->reason, sizeof(out->reason), "%s", PRED_REASON_POD_NUMBER);
		return 0;
	}
	if (!t->t->pod || (n->plain && !t->constrained))
		return 0;
	pred_node_unschedulable(t->t, n->n, out);
	if (!out->fit) {
		*unresolvable = true;
		return 0;
	}
	rc = pred_node_affinity(t->t, n->n, out);
	if (rc < 0)
		return rc;
	if (!out->fit) {
		*unresolvable = true;
		return 0;
	}
	pred_node_ports(t->t, n->n, out);
	if (!out->fit)
		return 0;
	pred_taint_toleration(t->t, n->n, out);
	if (!out->fit)
		*unresolvable = true;
	return 0;
}

static int predicates_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
			   struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	(void)ssn;
	(void)conf;
	(void)err;
	cb->predicate = predicates_cb;
	cb->predicate_by_class = true;
	*state = NULL;
	return 0;
}

const struct sched_plugin sched_plugin_predicates = {
	.name = "predicates",
	.on_session_open = predicates_open,
};
