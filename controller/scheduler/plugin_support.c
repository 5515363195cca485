/*
 * plugin_support.c - the victim budget and score cache of plugin_support.h.
 */
#include "plugin_support.h"

#include "vc_alloc.h"

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
