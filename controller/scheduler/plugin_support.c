/*
 * plugin_support.c - the victim budget and score cache of plugin_support.h.
 */
#include "plugin_support.h"

#include "vc_alloc.h"
#include "vc_buf.h"

int budget_init(struct job_budget *b, size_t njobs)
{
	b->njobs = njobs;
	b->stamp = vc_calloc(njobs ? njobs : 1, sizeof(*b->stamp));
	b->left = vc_calloc(njobs ? njobs : 1, sizeof(*b->left));
	b->now = 0;
	return b->stamp && b->left ? 0 : VC_ENOMEM;
}

void budget_release(struct job_budget *b)
{
	vc_free(b->stamp);
	vc_free(b->left);
}

void budget_next_call(struct job_budget *b)
{
	if (++b->now == 0) {
		memset(b->stamp, 0, b->njobs * sizeof(*b->stamp)); /* wrapped: restart at 1 */
		b->now = 1;
	}
}

void *budget_state_new(size_t size, size_t njobs)
{
	struct job_budget *b = vc_calloc(1, size);

	if (!b || budget_init(b, njobs) < 0) {
		if (b)
			budget_release(b);
		vc_free(b);
		return NULL;
	}
	return b;
}

void budget_state_close(struct sched_session *ssn, void *state)
{
	(void)ssn;
	if (!state)
		return;
	budget_release(state);
	vc_free(state);
}

enum sched_vote enqueue_vote_by_dim(const struct sched_session *ssn, const struct sched_ssn_job *j,
				    const char *head, const char *word,
				    bool (*fits)(const void *ctx, size_t d), const void *ctx,
				    char **message)
{
	struct vc_buf b;
	bool ok = true;
	size_t d;

	vc_buf_init(&b, 4096);
	for (d = 0; d < ssn->ndims; d++) {
		if (j->min_res[d] <= 0)
			continue;
		if (fits(ctx, d))
			continue;
		if (vc_buf_addf(&b, "%s%s %s", ok ? head : ", ", word, ssn->dims[d]) < 0) {
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

void quota_job_totals(const struct sched_session *ssn, const struct sched_ssn_job *j, double *inq,
		      double *el)
{
	enum vc_pg_phase ph = j->j->phase;
	size_t d;

	for (d = 0; d < ssn->ndims; d++) {
		double over = j->alloc[d] - j->min_res[d];

		if (over > 0)
			el[d] += over;
	}
	if (!j->has_min_res)
		return;
	if (ph == VC_PG_INQUEUE ||
	    (ph == VC_PG_RUNNING && (int64_t)sched_ssn_job_nready(j) >= j->j->min_member))
		for (d = 0; d < ssn->ndims; d++) {
			double left = j->min_res[d] - j->alloc[d];

			if (left > 0)
				inq[d] += left;
		}
}

void quota_min_res_ungated(const struct sched_session *ssn, const struct sched_ssn_job *j,
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

int cache_init(struct score_cache *c, size_t nnodes)
{
	c->ver = vc_calloc(nnodes + 1, sizeof(*c->ver));
	c->shape = vc_calloc(nnodes + 1, sizeof(*c->shape));
	c->score = vc_calloc(nnodes + 1, sizeof(*c->score));
	return c->ver && c->shape && c->score ? 0 : VC_ENOMEM;
}

void cache_release(struct score_cache *c)
{
	vc_free(c->ver);
	vc_free(c->shape);
	vc_free(c->score);
}
