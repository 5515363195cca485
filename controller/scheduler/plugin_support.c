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
