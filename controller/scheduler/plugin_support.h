/*
 * plugin_support.h - bookkeeping the built-in session plugins share (docs/volcano/scheduler.md §4):
 * a per-job victim budget for the preemptable/reclaimable filters and a per-node score cache for
 * the node_order callbacks. Both are sized when the plugin opens and freed when it closes.
 */
#ifndef SCHED_PLUGIN_SUPPORT_H
#define SCHED_PLUGIN_SUPPORT_H

#include "sched_framework.h"

/* Per-job counters for victim filters, reset lazily by a call stamp. */
struct job_budget {
	uint32_t *stamp;
	int64_t *left;
	uint32_t now;
	size_t njobs;
};

/* Room for njobs jobs. 0 or VC_ENOMEM (release b either way). */
int budget_init(struct job_budget *b, size_t njobs) VC_WARN_UNUSED;
void budget_release(struct job_budget *b);

/* Take one from the job's surplus (Ready − minMember), counted from the start of this call. */
static inline bool budget_take(struct job_budget *b, const struct sched_ssn_job *j)
{
	if (b->stamp[j->index] != b->now) {
		b->stamp[j->index] = b->now;
		b->left[j->index] = (int64_t)sched_ssn_job_nready(j) - j->j->min_member;
	}
	if (b->left[j->index] <= 0)
		return false;
	b->left[j->index]--;
	return true;
}

/* Start a new filter call: every job's surplus is counted afresh. */
void budget_next_call(struct job_budget *b);

/*
 * A plugin state of size bytes (zeroed) whose first member is a struct job_budget with room for
 * njobs jobs, or NULL on VC_ENOMEM (nothing left allocated). Freed by budget_state_close.
 */
void *budget_state_new(size_t size, size_t njobs);
/* The on_session_close of a plugin whose state budget_state_new made (NULL is a no-op). */
void budget_state_close(struct sched_session *ssn, void *state);

/*
 * The enqueue vote on job j from the dimensions of its minResources: every dimension d with
 * j->min_res[d] > 0 for which fits(ctx, d) is false adds "<word> <dimension>" to a message that
 * starts with head and separates them with ", ". SCHED_PERMIT when none failed; else
 * SCHED_REJECT with *message (the caller frees it), or without one when out of memory.
 */
enum sched_vote enqueue_vote_by_dim(const struct sched_session *ssn, const struct sched_ssn_job *j,
				    const char *head, const char *word,
				    bool (*fits)(const void *ctx, size_t d), const void *ctx,
				    char **message);

/*
 * The queue quota plugins' view of a job when they open (proportion and capacity,
 * docs/volcano/scheduler.md §3.1, §4.4, §4.5): add to inq (ndims) what the job still holds back
 * for its gang — max(minResources − allocated, 0) for an Inqueue job, and for a Running one with
 * at least minMember tasks ready; jobs without minResources hold nothing — and to el its elastic
 * part, max(allocated − minResources, 0).
 */
void quota_job_totals(const struct sched_session *ssn, const struct sched_ssn_job *j, double *inq,
		      double *el);

/*
 * minResources less what the job's scheduling-gated pending tasks ask (Volcano's
 * DeductSchGatedResources), floored at 0, into out (ndims): what JobEnqueued adds to inqueue.
 */
void quota_min_res_ungated(const struct sched_session *ssn, const struct sched_ssn_job *j,
			   double *out);

/*
 * A per-node score cache keyed by (node version, task shape): a node's score for a request only
 * changes when the node's accounting does, so identical pods scanning the same nodes reuse it.
 */
struct score_cache {
	uint32_t *ver; /* node version + 1; 0 = empty */
	uint32_t *shape;
	double *score;
};

/* Room for nnodes nodes. 0 or VC_ENOMEM (release c either way). */
int cache_init(struct score_cache *c, size_t nnodes) VC_WARN_UNUSED;
void cache_release(struct score_cache *c);

static inline bool cache_get(const struct score_cache *c, const struct sched_ssn_task *t,
			     const struct sched_ssn_node *n, double *out)
{
	if (c->ver[n->index] != n->version + 1 || c->shape[n->index] != t->shape)
		return false;
	*out = c->score[n->index];
	return true;
}

static inline double cache_put(struct score_cache *c, const struct sched_ssn_task *t,
			       const struct sched_ssn_node *n, double score)
{
	c->ver[n->index] = n->version + 1;
	c->shape[n->index] = t->shape;
	c->score[n->index] = score;
	return score;
}

#endif /* SCHED_PLUGIN_SUPPORT_H */
