/*
 * plugin_drf.c - the drf plugin: dominant resource fairness job order and preemption
 * (docs/volcano/scheduler.md §4.3).
 */
#include "plugins.h"

#include <math.h>

#include "sched_internal.h"
#include "vc_alloc.h"

struct drf_state {
	struct sched_session *ssn;
	double *alloc; /* njobs × ndims */
	double *share; /* njobs */
	double *tmp;   /* ndims × 2 */
};

double drf_dense_share(size_t ndims, const double *alloc, const double *total)
{
	double share = 0;
	size_t d;

	for (d = 0; d < ndims; d++) {
		double s;

		if (total[d] < VC_RESOURCE_MIN)
			continue;
		s = sched_share(alloc[d], total[d]);
		if (s > share)
			share = s;
	}
	return share;
}

static int drf_order_cb(void *st, const struct sched_ssn_job *a, const struct sched_ssn_job *b)
{
	struct drf_state *s = st;
	double sa = s->share[a->index], sb = s->share[b->index];

	if (sa == sb)
		return 0;
	return sa < sb ? -1 : 1;
}

static void drf_event(struct drf_state *s, const struct sched_ssn_task *t, double sign)
{
	struct sched_session *ssn = s->ssn;
	double *a;
	size_t d;

	if (!t->job)
		return;
	a = s->alloc + (size_t)t->job->index * ssn->ndims;
	for (d = 0; d < ssn->ndims; d++)
		a[d] += sign * t->req[d];
	s->share[t->job->index] = drf_dense_share(ssn->ndims, a, ssn->total);
}

static void drf_allocate_cb(void *st, const struct sched_ssn_task *t)
{
	drf_event(st, t, 1);
}

static void drf_deallocate_cb(void *st, const struct sched_ssn_task *t)
{
	drf_event(st, t, -1);
}

static enum sched_vote drf_preemptable_cb(void *st, const struct sched_ssn_task *p,
					  struct sched_ssn_task *const *cands, size_t n, bool *keep)
{
	struct drf_state *s = st;
	struct sched_session *ssn = s->ssn;
	size_t nd = ssn->ndims, i, d;
	double ls;

	if (!p->job)
		return SCHED_ABSTAIN;
	for (d = 0; d < nd; d++)
		s->tmp[d] = s->alloc[(size_t)p->job->index * nd + d] + p->req[d];
	ls = drf_dense_share(ssn->ndims, s->tmp, ssn->total);
	/*
	 * Each victim job's allocation shrinks by every candidate of that job looked at so far,
	 * victim or not (Volcano's per-call allocations map); candidates per node are few.
	 */
	for (i = 0; i < n; i++) {
		const struct sched_ssn_job *vj = cands[i]->job;
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
			double rs = drf_dense_share(ssn->ndims, acc, ssn->total);

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
		s->share[i] = drf_dense_share(ssn->ndims, s->alloc + i * nd, ssn->total);
	}
	cb->job_order = drf_order_cb;
	cb->preemptable = drf_preemptable_cb;
	cb->on_allocate = drf_allocate_cb;
	cb->on_deallocate = drf_deallocate_cb;
	*state = s;
	return 0;
}

/*
 * Each namespace's dominant share of the cluster (Σ its jobs' allocations), weight 1: Caldera
 * reads no namespace weights, which is Volcano's default weight (docs/volcano/metrics.md).
 */
static void drf_namespace_metrics(struct drf_state *s)
{
	struct sched_session *ssn = s->ssn;
	size_t i, k, d, nd = ssn->ndims;
	double *acc = s->tmp;

	if (!sched_ssn_metrics(ssn))
		return;
	for (i = 0; i < ssn->njobs; i++) {
		const char *ns = ssn->jobs[i].j->ns;
		bool first = true;

		for (k = 0; k < i && first; k++)
			first = strcmp(ssn->jobs[k].j->ns, ns) != 0;
		if (!first)
			continue;
		memset(acc, 0, nd * sizeof(double));
		for (k = i; k < ssn->njobs; k++)
			if (strcmp(ssn->jobs[k].j->ns, ns) == 0)
				for (d = 0; d < nd; d++)
					acc[d] += s->alloc[k * nd + d];
		sched_metrics_namespace(sched_ssn_metrics(ssn), ns,
					drf_dense_share(nd, acc, ssn->total), 1);
	}
}

static void drf_close(struct sched_session *ssn, void *state)
{
	struct drf_state *s = state;
	size_t i;

	if (!s)
		return;
	/* Leave the shares in the model for logs and tests. */
	for (i = 0; i < ssn->njobs; i++) {
		ssn->jobs[i].j->share = s->share[i];
		sched_metrics_job_share(sched_ssn_metrics(ssn), ssn->jobs[i].j->ns,
					ssn->jobs[i].j->name, s->share[i]);
	}
	drf_namespace_metrics(s);
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
