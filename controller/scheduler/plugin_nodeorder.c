/*
 * plugin_nodeorder.c - the nodeorder plugin: Kubernetes' resource scorers as Volcano's
 * nodeorder uses them (docs/volcano/scheduler.md §4.8), and, when some pod has inter-pod terms,
 * InterPodAffinity and PodTopologySpread as its batch scores (sched_podaff.c).
 */
#include "plugins.h"

#include <math.h>

#include "plugin_support.h"
#include "sched_podaff.h"
#include "vc_alloc.h"

#define MAX_NODE_SCORE 100

struct nodeorder_args {
	int least_requested;   /* leastrequested.weight (1) */
	int most_requested;    /* mostrequested.weight (0) */
	int balanced_resource; /* balancedresource.weight (1) */
	int pod_affinity;      /* podaffinity.weight (2) */
	int pod_spread;	       /* podtopologyspread.weight (2) */
};

struct nodeorder_state {
	struct sched_session *ssn;
	struct score_cache cache;
	struct nodeorder_args args;
	struct sched_podaff *podaff; /* NULL when no pod has inter-pod terms */
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

static double nodeorder_cb(void *st, const struct sched_ssn_task *t, const struct sched_ssn_node *n)
{
	struct nodeorder_state *s = st;
	int64_t cpu = (int64_t)(n->nz_cpu + (t->req[0] > 0 ? t->req[0] : SCHED_DEFAULT_MILLI_CPU));
	int64_t mem = (int64_t)(n->nz_mem + (t->req[1] > 0 ? t->req[1] : SCHED_DEFAULT_MEMORY));
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

/* InterPodAffinity and PodTopologySpread (ScheduleAnyway), normalised over the nodes. */
static void nodeorder_batch_cb(void *st, const struct sched_ssn_task *t, const uint32_t *nodes,
			       size_t n, double *scores)
{
	struct nodeorder_state *s = st;

	sched_podaff_score(s->podaff, t, nodes, n, s->args.pod_affinity, s->args.pod_spread,
			   scores);
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
	s->args.least_requested = (int)sched_arg_int(conf, "leastrequested.weight", 1);
	s->args.most_requested = (int)sched_arg_int(conf, "mostrequested.weight", 0);
	s->args.balanced_resource = (int)sched_arg_int(conf, "balancedresource.weight", 1);
	s->args.pod_affinity = (int)sched_arg_int(conf, "podaffinity.weight", 2);
	s->args.pod_spread = (int)sched_arg_int(conf, "podtopologyspread.weight", 2);
	cb->node_order = nodeorder_cb;
	cb->node_order_by_request = true;
	s->podaff = sched_ssn_podaff(ssn);
	if (s->podaff && (s->args.pod_affinity || s->args.pod_spread))
		cb->batch_node_order = nodeorder_batch_cb;
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
