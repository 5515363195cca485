/*
 * plugin_overcommit.c - cluster-wide admission of PodGroups against an overcommitted capacity
 * (docs/volcano/scheduler.md §3.1, §4.6, REC (a) of docs/volcano/scheduler.md §6).
 *
 *   idle    = Σ allocatable × overcommit-factor − Σ node used + Σ elastic
 *   inqueue = Σ minResources of Inqueue jobs (less gated pods)
 *           + Σ max(minResources − allocated, 0) of Running jobs with ≥ minMember allocated
 * A job with minResources is admitted when inqueue + minResources ≤ idle on every dimension it
 * asks for. The elastic term (allocated beyond minResources of jobs that have minResources) is
 * this scheduler's fix: elastic pods are preempted first, so admission treats them as free.
 */
#include "sched_internal.h"

#include "plugin_support.h"

#include <math.h>

#include "vc_alloc.h"

#define DEFAULT_FACTOR 1.2

struct overcommit_state {
	struct sched_session *ssn;
	double *idle, *inqueue, *tmp;
};

/* Whether inqueue + minResources stays within idle on dimension d (ctx: struct overcommit_ask). */
struct overcommit_ask {
	const struct overcommit_state *s;
	const struct sched_ssn_job *j;
};

static bool overcommit_fits(const void *ctx, size_t d)
{
	const struct overcommit_ask *a = ctx;
	double need = a->s->inqueue[d] + a->j->min_res[d];

	return need < a->s->idle[d] || fabs(need - a->s->idle[d]) < VC_RESOURCE_MIN;
}

static enum sched_vote overcommit_enqueueable(void *st, const struct sched_ssn_job *j,
					      char **message)
{
	const struct overcommit_state *s = st;
	const struct overcommit_ask ask = { s, j };

	if (!j->has_min_res)
		return SCHED_PERMIT;
	return enqueue_vote_by_dim(s->ssn, j, "resource in cluster is overused: ", "overused",
				   overcommit_fits, &ask, message);
}

static void overcommit_enqueued(void *st, const struct sched_ssn_job *j)
{
	struct overcommit_state *s = st;
	size_t d;

	if (!j->has_min_res)
		return;
	for (d = 0; d < s->ssn->ndims; d++)
		s->inqueue[d] += j->min_res[d];
}

static void overcommit_free(struct overcommit_state *s)
{
	if (!s)
		return;
	vc_free(s->idle);
	vc_free(s->inqueue);
	vc_free(s->tmp);
	vc_free(s);
}

static int overcommit_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
			   struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	struct overcommit_state *s = vc_calloc(1, sizeof(*s));
	double factor = sched_arg_float(conf, "overcommit-factor", DEFAULT_FACTOR);
	size_t nd = ssn->ndims, i, k, d;

	if (!s)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	s->ssn = ssn;
	s->idle = vc_calloc(nd, sizeof(double));
	s->inqueue = vc_calloc(nd, sizeof(double));
	s->tmp = vc_calloc(nd, sizeof(double));
	if (!s->idle || !s->inqueue || !s->tmp) {
		overcommit_free(s);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	if (!(factor >= 1))
		factor = DEFAULT_FACTOR;
	for (d = 0; d < nd; d++)
		s->idle[d] = ssn->total[d] * factor;
	for (i = 0; i < ssn->nnodes; i++)
		for (d = 0; d < nd; d++)
			s->idle[d] -= ssn->nodes[i].used[d];
	for (i = 0; i < ssn->njobs; i++) {
		const struct sched_ssn_job *j = &ssn->jobs[i];
		enum vc_pg_phase ph = j->j->phase;

		if (!j->has_min_res)
			continue;
		for (d = 0; d < nd; d++) {
			double over = j->alloc[d] - j->min_res[d];

			if (over > 0)
				s->idle[d] += over;
		}
		if (ph == VC_PG_INQUEUE) {
			memcpy(s->tmp, j->min_res, nd * sizeof(double));
			for (k = 0; k < j->ntasks; k++)
				if (j->tasks[k].gated &&
				    j->tasks[k].t->status == SCHED_TASK_PENDING)
					for (d = 0; d < nd; d++)
						s->tmp[d] -= j->tasks[k].req[d];
			for (d = 0; d < nd; d++)
				s->inqueue[d] += s->tmp[d] > 0 ? s->tmp[d] : 0;
		} else if (ph == VC_PG_RUNNING &&
			   (int64_t)sched_ssn_job_nready(j) >= j->j->min_member) {
			for (d = 0; d < nd; d++) {
				double left = j->min_res[d] - j->alloc[d];

				if (left > 0)
					s->inqueue[d] += left;
			}
		}
	}
	cb->job_enqueueable = overcommit_enqueueable;
	cb->job_enqueued = overcommit_enqueued;
	*state = s;
	return 0;
}

static void overcommit_close(struct sched_session *ssn, void *state)
{
	(void)ssn;
	overcommit_free(state);
}

const struct sched_plugin sched_plugin_overcommit = {
	.name = "overcommit",
	.on_session_open = overcommit_open,
	.on_session_close = overcommit_close,
};
