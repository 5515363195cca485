/*
 * plugin_nodeorder.c - the nodeorder plugin: Kubernetes' resource scorers as Volcano's
 * nodeorder uses them (docs/volcano/scheduler.md §4.8), and as its batch scores, each only when
 * the session has something for it to tell apart: NodeAffinity's preferred terms and
 * TaintToleration's PreferNoSchedule taints (prefer_* below), InterPodAffinity and
 * PodTopologySpread when some pod has inter-pod terms (sched_podaff.c).
 */
#include "plugins.h"

#include <math.h>

#include "plugin_support.h"
#include "sched_podaff.h"
#include "vc_alloc.h"
#include "vc_log.h"
#include "vc_selector.h"

#define MAX_NODE_SCORE 100

struct nodeorder_args {
	int least_requested;   /* leastrequested.weight (1) */
	int most_requested;    /* mostrequested.weight (0) */
	int balanced_resource; /* balancedresource.weight (1) */
	int pod_affinity;      /* podaffinity.weight (2) */
	int pod_spread;	       /* podtopologyspread.weight (2) */
};

/*
 * NodeAffinity's preferred terms and TaintToleration's PreferNoSchedule count, scored over the
 * candidate nodes of a task and normalised over them (prefer_* below).
 */
struct prefer_scores {
	int node_affinity;    /* nodeaffinity.weight (2) */
	int taint_toleration; /* tainttoleration.weight (3) */
	bool affinity;	      /* some pod has preferred node affinity terms */
	bool *soft;	      /* per node: has a PreferNoSchedule taint; NULL when none has */
	int64_t *raw;	      /* nnodes: one scorer's raw scores */
};

struct nodeorder_state {
	struct sched_session *ssn;
	struct score_cache cache;
	struct nodeorder_args args;
	struct prefer_scores prefer;
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

/* ---- NodeAffinity (preferred terms) and TaintToleration (PreferNoSchedule) ------------------ */

#define PREFER_NO_SCHEDULE "PreferNoSchedule"

static const json_t *pod_spec(const struct sched_ssn_task *t)
{
	return t->t->pod ? json_object_get(t->t->pod->obj, "spec") : NULL;
}

static const json_t *preferred_terms(const json_t *spec)
{
	const json_t *na = json_object_get(json_object_get(spec, "affinity"), "nodeAffinity");

	return json_object_get(na, "preferredDuringSchedulingIgnoredDuringExecution");
}

static bool is_soft_taint(const json_t *taint)
{
	const char *e = json_string_value(json_object_get(taint, "effect"));

	return e && strcmp(e, PREFER_NO_SCHEDULE) == 0;
}

/*
 * Kubernetes' DefaultNormalizeScore (0..MaxNodeScore, integer arithmetic) of raw[0..n), times
 * weight, added to scores[]. When every raw score is 0 the result is the same for every node (0,
 * or MaxNodeScore reversed): such a constant changes no choice and is not added, so that
 * sessions where nothing differs keep their exact totals.
 */
static void normalize_add(const int64_t *raw, size_t n, bool reverse, int weight, double *scores)
{
	int64_t max = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (raw[i] > max)
			max = raw[i];
	if (max == 0)
		return;
	for (i = 0; i < n; i++) {
		int64_t s = MAX_NODE_SCORE * raw[i] / max;

		scores[i] += (double)((reverse ? MAX_NODE_SCORE - s : s) * weight);
	}
}

/*
 * NodeAffinity's score: the sum of the weights of the pod's preferred terms that match the node
 * (vc_node_prefs_score), normalised (docs/volcano/scheduler.md §4.8). Terms that do not parse
 * score nothing (the API server refuses such pods).
 */
static void prefer_affinity(struct prefer_scores *ps, const struct sched_session *ssn,
			    const struct sched_ssn_task *t, const uint32_t *nodes, size_t n,
			    double *scores)
{
	const json_t *terms = preferred_terms(pod_spec(t));
	struct vc_node_prefs *prefs = NULL;
	struct vc_error err;
	size_t i;

	if (!json_array_size(terms))
		return;
	vc_error_clear(&err);
	if (vc_node_prefs_new(terms, &prefs, &err) < 0) {
		VC_LOG(VC_LOG_V(4), "nodeorder: preferred node affinity not scored",
		       "task=%s/%s err=%s", t->t->ns, t->t->name, err.text);
		return;
	}
	if (!vc_node_prefs_empty(prefs)) {
		for (i = 0; i < n; i++) {
			const struct sched_node_info *node = ssn->nodes[nodes[i]].n;

			ps->raw[i] = vc_node_prefs_score(prefs, node->labels, node->name);
		}
		normalize_add(ps->raw, n, false, ps->node_affinity, scores);
	}
	vc_node_prefs_free(prefs);
}

/*
 * TaintToleration's score: the node's PreferNoSchedule taints that none of the pod's
 * tolerations tolerates (a toleration of another effect never does: pred_tolerates), counted
 * and normalised in reverse, fewer scoring higher (docs/volcano/scheduler.md §4.8).
 */
static void prefer_taints(struct prefer_scores *ps, const struct sched_session *ssn,
			  const struct sched_ssn_task *t, const uint32_t *nodes, size_t n,
			  double *scores)
{
	const json_t *tols = json_object_get(pod_spec(t), "tolerations");
	size_t i, k, m;

	for (i = 0; i < n; i++) {
		const json_t *taints = ssn->nodes[nodes[i]].n->taints;

		ps->raw[i] = 0;
		if (!ps->soft[nodes[i]])
			continue;
		for (k = 0; k < json_array_size(taints); k++) {
			const json_t *taint = json_array_get(taints, k);
			bool tolerated = false;

			if (!is_soft_taint(taint))
				continue;
			for (m = 0; m < json_array_size(tols) && !tolerated; m++)
				tolerated = pred_tolerates(json_array_get(tols, m), taint);
			ps->raw[i] += !tolerated;
		}
	}
	normalize_add(ps->raw, n, true, ps->taint_toleration, scores);
}

static void prefer_scores(struct prefer_scores *ps, const struct sched_session *ssn,
			  const struct sched_ssn_task *t, const uint32_t *nodes, size_t n,
			  double *scores)
{
	if (!t->t->pod)
		return;
	if (ps->affinity)
		prefer_affinity(ps, ssn, t, nodes, n, scores);
	if (ps->soft)
		prefer_taints(ps, ssn, t, nodes, n, scores);
}

static void prefer_release(struct prefer_scores *ps)
{
	vc_free(ps->soft);
	vc_free(ps->raw);
	ps->soft = NULL;
	ps->raw = NULL;
}

/*
 * Find whether the scorers have anything to tell apart in this session: a pod with preferred
 * terms (nodeaffinity), a node with a PreferNoSchedule taint (tainttoleration), each only when
 * its weight is not 0. *active is false when neither: then the plugin registers no batch score
 * and the session pays nothing for them. 0 or VC_ENOMEM.
 */
static int prefer_open(struct prefer_scores *ps, const struct sched_session *ssn,
		       const struct sched_plugin_conf *conf, bool *active)
{
	size_t i, k;

	*active = false;
	ps->node_affinity = (int)sched_arg_int(conf, "nodeaffinity.weight", 2);
	ps->taint_toleration = (int)sched_arg_int(conf, "tainttoleration.weight", 3);
	for (i = 0; i < ssn->ntasks && ps->node_affinity && !ps->affinity; i++)
		ps->affinity = json_array_size(preferred_terms(pod_spec(&ssn->tasks[i]))) > 0;
	for (i = 0; i < ssn->nnodes && ps->taint_toleration; i++) {
		const json_t *taints = ssn->nodes[i].n->taints;

		for (k = 0; k < json_array_size(taints); k++) {
			if (!is_soft_taint(json_array_get(taints, k)))
				continue;
			if (!ps->soft && !(ps->soft = vc_calloc(ssn->nnodes, sizeof(bool))))
				return VC_ENOMEM;
			ps->soft[i] = true;
			break;
		}
	}
	if (!ps->affinity && !ps->soft)
		return 0;
	ps->raw = vc_calloc(ssn->nnodes + 1, sizeof(*ps->raw));
	if (!ps->raw)
		return VC_ENOMEM;
	*active = true;
	return 0;
}

/*
 * The batch scores, each normalised over the nodes: NodeAffinity and TaintToleration, then
 * InterPodAffinity and PodTopologySpread (ScheduleAnyway).
 */
static void nodeorder_batch_cb(void *st, const struct sched_ssn_task *t, const uint32_t *nodes,
			       size_t n, double *scores)
{
	struct nodeorder_state *s = st;

	prefer_scores(&s->prefer, s->ssn, t, nodes, n, scores);
	if (s->podaff)
		sched_podaff_score(s->podaff, t, nodes, n, s->args.pod_affinity, s->args.pod_spread,
				   scores);
}

static int nodeorder_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
			  struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	struct nodeorder_state *s = vc_calloc(1, sizeof(*s));
	bool prefer = false;

	if (!s || cache_init(&s->cache, ssn->nnodes) < 0 ||
	    prefer_open(&s->prefer, ssn, conf, &prefer) < 0) {
		if (s) {
			cache_release(&s->cache);
			prefer_release(&s->prefer);
		}
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
	if (prefer || (s->podaff && (s->args.pod_affinity || s->args.pod_spread)))
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
	prefer_release(&s->prefer);
	vc_free(s);
}

const struct sched_plugin sched_plugin_nodeorder = {
	.name = "nodeorder",
	.on_session_open = nodeorder_open,
	.on_session_close = nodeorder_close,
};
