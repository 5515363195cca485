/*
 * plugin_proportion.c - the proportion plugin (docs/volcano/scheduler.md §4.4): queue deserved
 * shares by weighted water-filling, queue order, overused, allocatable, reclaim and enqueue checks.
 */
#include "plugins.h"

#include <math.h>

#include "plugin_support.h"
#include "sched_internal.h"
#include "vc_alloc.h"

/* Rounds of the water-filling loop before giving up; Volcano has no bound, and every round
 * either meets a queue or shrinks `remaining`, so this is only a guard against float creep. */
#define PROPORTION_MAX_ROUNDS 10000

static void res_swap(struct vc_resource *a, struct vc_resource *b)
{
	struct vc_resource t = *a;

	*a = *b;
	*b = t;
}

static bool le_tol(double l, double r)
{
	return l < r || fabs(l - r) < VC_RESOURCE_MIN;
}

/* Go's reflect.DeepEqual on two resources: the exact same numbers and scalar names. */
static bool res_identical(const struct vc_resource *a, const struct vc_resource *b)
{
	size_t i;

	if (a->milli_cpu != b->milli_cpu || a->memory != b->memory || a->nscalars != b->nscalars)
		return false;
	for (i = 0; i < a->nscalars; i++)
		if (strcmp(a->scalars[i].name, b->scalars[i].name) != 0 ||
		    a->scalars[i].value != b->scalars[i].value)
			return false;
	return true;
}

static void res_clamp_zero(struct vc_resource *r)
{
	size_t i;

	if (r->milli_cpu < 0)
		r->milli_cpu = 0;
	if (r->memory < 0)
		r->memory = 0;
	for (i = 0; i < r->nscalars; i++)
		if (r->scalars[i].value < 0)
			r->scalars[i].value = 0;
}

/* inc += max(d, 0) and dec += max(-d, 0) per dimension of d. */
static int res_split(const struct vc_resource *d, struct vc_resource *inc, struct vc_resource *dec)
{
	size_t i;

	if (d->milli_cpu > 0)
		inc->milli_cpu += d->milli_cpu;
	else
		dec->milli_cpu -= d->milli_cpu;
	if (d->memory > 0)
		inc->memory += d->memory;
	else
		dec->memory -= d->memory;
	for (i = 0; i < d->nscalars; i++) {
		double v = d->scalars[i].value;
		int rc = v > 0 ? vc_resource_add_scalar(inc, d->scalars[i].name, v)
			       : vc_resource_add_scalar(dec, d->scalars[i].name, -v);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static int real_capability(struct sched_queue_info *q, const struct vc_resource *total,
			   const struct vc_resource *total_guarantee)
{
	struct vc_resource real = VC_RESOURCE_INIT, cap = VC_RESOURCE_INIT;
	int rc = VC_ENOMEM;

	if (vc_resource_copy(&real, total) < 0 || vc_resource_sub(&real, total_guarantee) < 0)
		goto out;
	res_clamp_zero(&real);
	if (vc_resource_add(&real, &q->guarantee) < 0)
		goto out;
	if (q->has_capability) {
		if (vc_resource_copy(&cap, &q->capability) < 0)
			goto out;
		if (cap.milli_cpu <= 0)
			cap.milli_cpu = INFINITY;
		if (cap.memory <= 0)
			cap.memory = INFINITY;
		vc_resource_min_dimension(&real, &cap, VC_RESOURCE_INFINITY);
	}
	res_swap(&q->real_capability, &real);
	rc = 0;
out:
	vc_resource_release(&real);
	vc_resource_release(&cap);
	return rc;
}

/* share = max over deserved's dimensions (≥ 0.1) of sched_share(allocated, deserved). */
static void proportion_update_share(struct sched_queue_info *q)
{
	const char *names[64];
	size_t i, n = vc_resource_names(&q->deserved, names, 64);
	double share = 0;

	if (n > 64)
		n = 64;
	for (i = 0; i < n; i++) {
		double s = sched_share(vc_resource_get(&q->allocated, names[i]),
				       vc_resource_get(&q->deserved, names[i]));

		if (s > share)
			share = s;
	}
	q->share = share;
}

/* One queue's step of a round; accumulates the change into inc/dec. */
static int fill_one(struct sched_queue_info *q, const struct vc_resource *remaining, double ratio,
		    struct vc_resource *inc, struct vc_resource *dec, bool *met)
{
	struct vc_resource old = VC_RESOURCE_INIT, add = VC_RESOURCE_INIT;
	struct vc_resource d = VC_RESOURCE_INIT, diff = VC_RESOURCE_INIT;
	int rc = VC_ENOMEM;

	if (vc_resource_copy(&old, &q->deserved) < 0 || vc_resource_copy(&d, &q->deserved) < 0 ||
	    vc_resource_copy(&add, remaining) < 0)
		goto out;
	vc_resource_multi(&add, ratio);
	if (vc_resource_add(&d, &add) < 0)
		goto out;
	vc_resource_min_dimension(&d, &q->real_capability, VC_RESOURCE_INFINITY);
	vc_resource_min_dimension(&d, &q->request, VC_RESOURCE_ZERO);
	if (vc_resource_set_max(&d, &q->guarantee) < 0)
		goto out;
	if (vc_resource_copy(&diff, &d) < 0 || vc_resource_sub(&diff, &old) < 0)
		goto out;
	if (res_split(&diff, inc, dec) < 0)
		goto out;
	res_swap(&q->deserved, &d);
	proportion_update_share(q);
	*met = vc_resource_less_equal(&q->request, &q->deserved, VC_RESOURCE_ZERO) ||
	       res_identical(&q->deserved, &old);
	rc = 0;
out:
	vc_resource_release(&old);
	vc_resource_release(&add);
	vc_resource_release(&d);
	vc_resource_release(&diff);
	return rc;
}

int proportion_compute_ptrs(struct sched_queue_info **queues, size_t n,
			    const struct vc_resource *total)
{
	struct vc_resource total_guarantee = VC_RESOURCE_INIT, remaining = VC_RESOURCE_INIT;
	struct vc_resource old_remaining = VC_RESOURCE_INIT;
	struct vc_resource inc = VC_RESOURCE_INIT, dec = VC_RESOURCE_INIT;
	bool *met = NULL;
	size_t i, round;
	int rc = VC_ENOMEM;

	if (n == 0)
		return 0;
	met = vc_calloc(n, sizeof(*met));
	if (!met)
		return VC_ENOMEM;
	for (i = 0; i < n; i++)
		if (vc_resource_add(&total_guarantee, &queues[i]->guarantee) < 0)
			goto out;
	for (i = 0; i < n; i++) {
		vc_resource_clear(&queues[i]->deserved);
		queues[i]->share = 0;
		if (real_capability(queues[i], total, &total_guarantee) < 0)
			goto out;
		met[i] = !queues[i]->active;
	}
	if (vc_resource_copy(&remaining, total) < 0)
		goto out;
	for (round = 0; round < PROPORTION_MAX_ROUNDS; round++) {
		int64_t weight = 0;

		for (i = 0; i < n; i++)
			if (!met[i])
				weight += queues[i]->weight;
		if (weight == 0)
			break;
		vc_resource_clear(&inc);
		vc_resource_clear(&dec);
		if (vc_resource_copy(&old_remaining, &remaining) < 0)
			goto out;
		for (i = 0; i < n; i++) {
			if (met[i])
				continue;
			if (fill_one(queues[i], &remaining,
				     (double)queues[i]->weight / (double)weight, &inc, &dec,
				     &met[i]) < 0)
				goto out;
		}
		if (vc_resource_sub(&remaining, &inc) < 0 || vc_resource_add(&remaining, &dec) < 0)
			goto out;
		res_clamp_zero(&remaining);
		if (vc_resource_is_empty(&remaining) || res_identical(&remaining, &old_remaining))
			break;
	}
	rc = 0;
out:
	vc_free(met);
	vc_resource_release(&total_guarantee);
	vc_resource_release(&remaining);
	vc_resource_release(&old_remaining);
	vc_resource_release(&inc);
	vc_resource_release(&dec);
	return rc;
}

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

static void proportion_share_of(struct proportion_state *s, const struct sched_ssn_queue *q)
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

static int proportion_order_cb(void *st, const struct sched_ssn_queue *a,
			       const struct sched_ssn_queue *b)
{
	struct proportion_state *s = st;
	double sa = s->share[a->index], sb = s->share[b->index];

	if (a->q->priority != b->q->priority)
		return a->q->priority > b->q->priority ? -1 : 1;
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return 0;
}

static bool proportion_overused_cb(void *st, const struct sched_ssn_queue *q)
{
	struct proportion_state *s = st;

	return sched_res_le(s->ssn, QV(s, deserved, q), QV(s, allocated, q));
}

static bool proportion_allocatable_cb(void *st, const struct sched_ssn_queue *q,
				      const struct sched_ssn_task *t)
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

static enum sched_vote proportion_reclaimable_cb(void *st, const struct sched_ssn_task *r,
						 struct sched_ssn_task *const *cands, size_t n,
						 bool *keep)
{
	struct proportion_state *s = st;
	size_t nd = s->ssn->ndims, i, d;

	if (++s->call == 0)
		s->call = 1;
	for (i = 0; i < n; i++) {
		const struct sched_ssn_queue *q = cands[i]->job ? cands[i]->job->queue : NULL;
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

/* The queue's view for proportion_fits: allocated + inqueue − elastic against realCapability. */
struct proportion_ask {
	const struct sched_ssn_job *j;
	const double *al, *inq, *el, *rc;
};

static bool proportion_fits(const void *ctx, size_t d)
{
	const struct proportion_ask *a = ctx;
	double need = a->j->min_res[d] + a->al[d] + a->inq[d] - a->el[d];

	return le_tol(need, a->rc[d]);
}

static enum sched_vote proportion_enqueueable_cb(void *st, const struct sched_ssn_job *j,
						 char **message)
{
	struct proportion_state *s = st;
	const struct sched_ssn_queue *q = j->queue;
	struct proportion_ask ask;

	if (!q || q->q->state != VC_QUEUE_OPEN)
		return SCHED_REJECT;
	if (!j->has_min_res)
		return SCHED_PERMIT;
	ask = (struct proportion_ask){ .j = j,
				       .al = QV(s, allocated, q),
				       .inq = QV(s, inqueue, q),
				       .el = QV(s, elastic, q),
				       .rc = QV(s, real_cap, q) };
	return enqueue_vote_by_dim(s->ssn, j, "queue resource quota insufficient: ", "insufficient",
				   proportion_fits, &ask, message);
}

static void proportion_enqueued_cb(void *st, const struct sched_ssn_job *j)
{
	struct proportion_state *s = st;
	double *inq, *tmp = s->ssn->priv->vec + 3 * s->ssn->ndims;
	size_t d;

	if (!j->queue || !j->has_min_res)
		return;
	inq = QV(s, inqueue, j->queue);
	quota_min_res_ungated(s->ssn, j, tmp);
	for (d = 0; d < s->ssn->ndims; d++)
		inq[d] += tmp[d];
}

static void proportion_event(struct proportion_state *s, const struct sched_ssn_task *t,
			     double sign)
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

static void proportion_allocate_cb(void *st, const struct sched_ssn_task *t)
{
	proportion_event(st, t, 1);
}

static void proportion_deallocate_cb(void *st, const struct sched_ssn_task *t)
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
	struct sched_queue_info **ptrs = NULL;
	size_t nq = ssn->nqueues, nd = ssn->ndims, sz = nq * nd + 1, i;

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
	ptrs = vc_calloc(nq + 1, sizeof(struct sched_queue_info *));
	if (!s->deserved || !s->real_cap || !s->allocated || !s->inqueue || !s->elastic ||
	    !s->tmp || !s->share || !s->seen || !ptrs)
		goto nomem;
	/* The model's queue totals, then Volcano's water-filling. */
	for (i = 0; i < nq; i++) {
		struct sched_queue_info *q = ssn->queues[i].q;

		vc_resource_clear(&q->allocated);
		vc_resource_clear(&q->request);
		q->active = false;
		ptrs[i] = q;
	}
	for (i = 0; i < ssn->njobs; i++) {
		const struct sched_ssn_job *j = &ssn->jobs[i];

		if (!j->queue)
			continue;
		if (sched_queue_account(j->queue->q, j->j) < 0)
			goto nomem;
		quota_job_totals(ssn, j, QV(s, inqueue, j->queue), QV(s, elastic, j->queue));
	}
	if (proportion_compute_ptrs(ptrs, nq, &ssn->snap->total) < 0)
		goto nomem;
	for (i = 0; i < nq; i++) {
		const struct sched_ssn_queue *q = &ssn->queues[i];

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
	for (i = 0; i < ssn->nqueues; i++) {
		const struct sched_ssn_queue *q = &ssn->queues[i];

		q->q->share = s->share[i];
		/* The session's last word on each queue (Volcano updates these as it goes). */
		sched_metrics_queue_close(ssn, q->q, QV(s, allocated, q), QV(s, deserved, q),
					  QV(s, real_cap, q), QV(s, inqueue, q));
		sched_metrics_queue_attrs(sched_ssn_metrics(ssn), q->q->name, s->share[i],
					  q->q->weight, proportion_overused_cb(s, q));
	}
	proportion_free(s);
}

const struct sched_plugin sched_plugin_proportion = {
	.name = "proportion",
	.on_session_open = proportion_open,
	.on_session_close = proportion_close,
};
