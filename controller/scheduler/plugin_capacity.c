/*
 * plugin_capacity.c - the capacity plugin (docs/volcano/scheduler.md §4.5), Volcano's "elastic
 * queue" alternative to proportion: every queue has an explicit deserved (spec.deserved), may
 * borrow idle resources above it up to its realCapability, and gives back what it holds above
 * deserved when another queue reclaims. With enableHierarchy the queues form a tree under `root`
 * through spec.parent: only leaf queues run jobs, and every ancestor bounds its subtree.
 *
 * Per queue and dimension (dense, like every session vector):
 *   realCapability  flat: min(max(total − Σ every queue's guarantee, 0) + guarantee, capability);
 *                   tree: min(max(parent's − Σ the siblings' guarantees, 0) + guarantee,
 *                   capability), root's = its capability or unlimited
 *   deserved        flat: max(min(spec.deserved, realCapability), guarantee);
 *                   tree: max(spec.deserved, guarantee), root's = Σ its children's
 *   allocated       Σ the jobs' allocated tasks (a parent's: its subtree's), kept live
 *   share           max over deserved's dimensions of allocated / deserved; 1 without deserved
 */
#include "plugins.h"

#include <math.h>

#include "plugin_support.h"
#include "sched_internal.h"
#include "vc_alloc.h"
#include "vc_log.h"

#define CAP_NONE (-1)
/* Ancestors a reclaim victim is counted against at most (ancestorReclaimLevel). */
#define CAP_MAX_ANCESTORS 64

struct capacity_state {
	struct sched_session *ssn;
	bool hierarchy;
	/* The tree is sound and every job sits in a leaf; when false every check says no. */
	bool ready;
	int64_t ancestor_level; /* ancestorReclaimLevel */
	/* Per queue, ndims each. */
	double *deserved, *real_cap, *cap, *guarantee, *allocated, *inqueue, *elastic, *tmp;
	bool *des_has; /* the dimension is one of deserved's names (Volcano's map keys) */
	/* Per queue. */
	double *share;
	bool *attr;	     /* the plugin keeps this queue's attributes */
	int32_t *parent;     /* tree: the parent's index, CAP_NONE for root */
	int32_t *depth;	     /* tree: number of ancestors (root 0) */
	uint32_t *nchildren; /* tree */
	uint32_t *seen;	     /* reclaim: the call that copied the queue's allocated into tmp */
	uint32_t call;
};

#define QV(s, field, i) ((s)->field + (size_t)(i) * (s)->ssn->ndims)

static bool less_eq_tol(double l, double r)
{
	return l < r || fabs(l - r) < VC_RESOURCE_MIN;
}

/* updateQueueAttrShare: no deserved is a best-effort queue, share 1. */
static void capacity_share(struct capacity_state *s, size_t q)
{
	const double *des = QV(s, deserved, q), *al = QV(s, allocated, q);
	double share = 0;
	size_t d;

	if (sched_res_empty(s->ssn, des)) {
		s->share[q] = 1;
		return;
	}
	for (d = 0; d < s->ssn->ndims; d++) {
		double v;

		if (des[d] < VC_RESOURCE_MIN)
			continue;
		v = sched_share(al[d], des[d]);
		if (v > share)
			share = v;
	}
	s->share[q] = share;
}

/* The ancestor `up` levels above queue q (1 = its parent), or CAP_NONE. */
static int32_t ancestor_up(const struct capacity_state *s, int32_t q, int64_t up)
{
	while (q != CAP_NONE && up-- > 0)
		q = s->parent[q];
	return q;
}

/* ancestors[k] of Volcano's queueAttr: the ancestor at depth k (0 = root), or CAP_NONE. */
static int32_t ancestor_at(const struct capacity_state *s, int32_t q, int32_t k)
{
	if (k < 0 || k >= s->depth[q])
		return CAP_NONE;
	return ancestor_up(s, q, s->depth[q] - k);
}

/* getQueueLevel: the deepest index at which the two ancestor lists still agree. */
static int32_t common_level(const struct capacity_state *s, int32_t a, int32_t b)
{
	int32_t k, n = s->depth[a] < s->depth[b] ? s->depth[a] : s->depth[b], level = 0;

	for (k = 0; k < n; k++) {
		if (ancestor_at(s, a, k) != ancestor_at(s, b, k))
			return level;
		level = k;
	}
	return level;
}

/* compareShareWithDeserved: lower share first; at equal shares, a queue with deserved first. */
static int compare_share(const struct capacity_state *s, int32_t a, int32_t b)
{
	bool ha, hb;

	if (s->share[a] != s->share[b])
		return s->share[a] < s->share[b] ? -1 : 1;
	ha = !sched_res_empty(s->ssn, QV(s, deserved, a));
	hb = !sched_res_empty(s->ssn, QV(s, deserved, b));
	if (ha == hb)
		return 0;
	return ha ? -1 : 1;
}

static int capacity_order_cb(void *st, const struct sched_ssn_queue *a,
			     const struct sched_ssn_queue *b)
{
	struct capacity_state *s = st;
	int32_t la = (int32_t)a->index, lb = (int32_t)b->index, level;
	bool leaf_a, leaf_b;

	if (a->q->priority != b->q->priority)
		return a->q->priority > b->q->priority ? -1 : 1;
	if (!s->hierarchy)
		return compare_share(s, la, lb);
	/* Leaves first; two leaves compare their subtrees under their deepest common ancestor. */
	leaf_a = s->nchildren[la] == 0;
	leaf_b = s->nchildren[lb] == 0;
	if (leaf_a != leaf_b)
		return leaf_a ? -1 : 1;
	if (!leaf_a)
		return compare_share(s, la, lb);
	level = common_level(s, la, lb);
	if (level + 1 < s->depth[la])
		la = ancestor_at(s, la, level + 1);
	if (level + 1 < s->depth[lb])
		lb = ancestor_at(s, lb, level + 1);
	return compare_share(s, la, lb);
}

/* VictimQueueOrderFn: victims first from the queue closest (deepest common ancestor) to p. */
static int capacity_victim_order_cb(void *st, const struct sched_ssn_queue *a,
				    const struct sched_ssn_queue *b,
				    const struct sched_ssn_queue *p)
{
	struct capacity_state *s = st;
	int32_t la = common_level(s, (int32_t)a->index, (int32_t)p->index);
	int32_t lb = common_level(s, (int32_t)b->index, (int32_t)p->index);

	if (la == lb)
		return 0;
	return la > lb ? -1 : 1;
}

/* allocated + req ≤ realCapability on every dimension req asks (a strict excess fails). */
static bool fits_real(const struct capacity_state *s, int32_t q, const double *req)
{
	const double *al = QV(s, allocated, q), *rc = QV(s, real_cap, q);
	size_t d;

	for (d = 0; d < s->ssn->ndims; d++)
		if (req[d] > 0 && al[d] + req[d] > rc[d])
			return false;
	return true;
}

static bool capacity_allocatable_cb(void *st, const struct sched_ssn_queue *q,
				    const struct sched_ssn_task *t)
{
	struct capacity_state *s = st;
	int32_t i;

	if (q->q->state != VC_QUEUE_OPEN || !s->ready || !s->attr[q->index])
		return false;
	if (s->hierarchy && s->nchildren[q->index] > 0)
		return false;
	/* The queue, then every ancestor up to root (checkQueueAllocatableHierarchically). */
	for (i = (int32_t)q->index; i != CAP_NONE; i = s->hierarchy ? s->parent[i] : CAP_NONE)
		if (!fits_real(s, i, t->req))
			return false;
	return true;
}

/*
 * LessEqualPartlyWithDimensionZeroFiltered: on some dimension req asks where used or deserved is
 * not zero, allocated + req is within deserved.
 */
static bool below_deserved(const struct capacity_state *s, int32_t q, const double *req)
{
	const double *al = QV(s, allocated, q), *des = QV(s, deserved, q);
	size_t d;

	for (d = 0; d < s->ssn->ndims; d++) {
		double used = al[d] + req[d];

		if (req[d] <= 0 || (used < VC_RESOURCE_MIN && des[d] < VC_RESOURCE_MIN))
			continue;
		if (less_eq_tol(used, des[d]))
			return true;
	}
	return false;
}

static bool capacity_preemptive_cb(void *st, const struct sched_ssn_queue *q,
				   const struct sched_ssn_task *t)
{
	struct capacity_state *s = st;
	int64_t level;

	if (!s->ready || q->q->state != VC_QUEUE_OPEN || !s->attr[q->index])
		return false;
	if (!fits_real(s, (int32_t)q->index, t->req))
		return false;
	if (below_deserved(s, (int32_t)q->index, t->req))
		return true;
	if (!s->hierarchy)
		return false;
	/* ancestorReclaimLevel: an ancestor (not root) below its deserved may reclaim too. */
	for (level = 1; level <= s->ancestor_level; level++) {
		int32_t a = ancestor_up(s, (int32_t)q->index, level);

		if (a == CAP_NONE || s->parent[a] == CAP_NONE)
			continue;
		if (below_deserved(s, a, t->req))
			return true;
	}
	return false;
}

/* Intersection: a dimension at least 0.1 in both. */
static bool intersects(const struct sched_session *ssn, const double *a, const double *b)
{
	size_t d;

	for (d = 0; d < ssn->ndims; d++)
		if (a[d] >= VC_RESOURCE_MIN && b[d] >= VC_RESOURCE_MIN)
			return true;
	return false;
}

/*
 * GreaterPartlyWithRelevantDimensions: on some dimension the reclaimee asks that deserved names
 * (cpu and memory: deserved at least 0.1), the queue's running allocation is above deserved.
 */
static bool above_deserved(const struct capacity_state *s, int32_t q, const double *alloc,
			   const double *req)
{
	const double *des = QV(s, deserved, q);
	const bool *has = s->des_has + (size_t)q * s->ssn->ndims;
	size_t d;

	for (d = 0; d < s->ssn->ndims; d++) {
		bool relevant = d < 2 ? des[d] >= VC_RESOURCE_MIN : has[d];

		if (req[d] > 0 && relevant && alloc[d] > des[d])
			return true;
	}
	return false;
}

/* The queue's running copy of allocated for this reclaim call. */
static double *running_alloc(struct capacity_state *s, int32_t q)
{
	double *copy = QV(s, tmp, q);

	if (s->seen[q] != s->call) {
		s->seen[q] = s->call;
		memcpy(copy, QV(s, allocated, q), s->ssn->ndims * sizeof(double));
	}
	return copy;
}

/* The reclaimee's ancestor `level` up that needs its own check (getReclaimeeAncestorToCheck). */
static int32_t ancestor_to_check(const struct capacity_state *s, int32_t reclaimer,
				 int32_t reclaimee, int64_t level)
{
	int32_t mine = ancestor_up(s, reclaimee, level), theirs = ancestor_up(s, reclaimer, level);

	if (mine == CAP_NONE || s->parent[mine] == CAP_NONE)
		return CAP_NONE;
	return mine == theirs ? CAP_NONE : mine;
}

/* Whether a and b share an ancestor other than root within ancestorReclaimLevel levels. */
static bool share_ancestor(const struct capacity_state *s, int32_t a, int32_t b)
{
	int64_t i, k;

	for (i = 1; i <= s->ancestor_level; i++) {
		int32_t x = ancestor_up(s, a, i);

		if (x == CAP_NONE || s->parent[x] == CAP_NONE)
			continue;
		for (k = 1; k <= s->ancestor_level; k++)
			if (ancestor_up(s, b, k) == x)
				return true;
	}
	return false;
}

/* One reclaimee; *n_anc/anc receive the ancestors whose running allocation it counts against. */
static bool reclaimee_qualifies(struct capacity_state *s, const struct sched_ssn_task *r,
				int32_t rq, const struct sched_ssn_task *v, int32_t vq,
				int32_t *anc, size_t *n_anc)
{
	const struct sched_session *ssn = s->ssn;
	double *alloc = running_alloc(s, vq);
	const double *gua = QV(s, guarantee, vq);
	bool tree = s->hierarchy && s->ancestor_level > 0;
	int64_t level;
	size_t d;

	*n_anc = 0;
	/* A queue never goes below its guarantee. */
	for (d = 0; d < ssn->ndims; d++)
		if (!less_eq_tol(gua[d], alloc[d] - v->req[d]))
			return false;
	if (!intersects(ssn, v->req, QV(s, deserved, vq))) {
		/* Nothing of what it holds is deserved: a victim at once, unless the two queues
		 * sit under one ancestor and the reclaimer's own queue deserves none of its ask. */
		if (tree && share_ancestor(s, rq, vq) &&
		    !intersects(ssn, r->req, QV(s, deserved, rq)))
			return false;
	} else if (!above_deserved(s, vq, alloc, v->req)) {
		return false;
	}
	if (!tree)
		return true;
	for (level = 1; level <= s->ancestor_level; level++) {
		int32_t a = ancestor_to_check(s, rq, vq, level);

		if (a == CAP_NONE)
			continue;
		if (*n_anc < CAP_MAX_ANCESTORS)
			anc[(*n_anc)++] = a;
		(void)running_alloc(s, a);
		if (!intersects(ssn, v->req, QV(s, deserved, a)))
			continue;
		if (!above_deserved(s, a, running_alloc(s, a), v->req))
			return false;
	}
	return true;
}

static enum sched_vote capacity_reclaimable_cb(void *st, const struct sched_ssn_task *r,
					       struct sched_ssn_task *const *cands, size_t n,
					       bool *keep)
{
	struct capacity_state *s = st;
	size_t nd = s->ssn->ndims, i, k, d;
	int32_t anc[CAP_MAX_ANCESTORS];

	if (++s->call == 0)
		s->call = 1;
	if (!s->ready || !r->job || !r->job->queue || !s->attr[r->job->queue->index]) {
		for (i = 0; i < n; i++)
			keep[i] = false;
		return SCHED_REJECT;
	}
	for (i = 0; i < n; i++) {
		const struct sched_ssn_queue *q = cands[i]->job ? cands[i]->job->queue : NULL;
		size_t n_anc;

		if (!q || !s->attr[q->index] || !intersects(s->ssn, cands[i]->req, r->req) ||
		    !reclaimee_qualifies(s, r, (int32_t)r->job->queue->index, cands[i],
					 (int32_t)q->index, anc, &n_anc)) {
			keep[i] = false;
			continue;
		}
		/* Only what is really taken (every filter agrees) lowers the running totals. */
		if (!keep[i])
			continue;
		for (d = 0; d < nd; d++) {
			QV(s, tmp, q->index)[d] -= cands[i]->req[d];
			for (k = 0; k < n_anc; k++)
				QV(s, tmp, anc[k])[d] -= cands[i]->req[d];
		}
	}
	return SCHED_PERMIT;
}

/* minResources + allocated + inqueue − elastic within realCapability, for enqueue_vote_by_dim. */
struct capacity_ask {
	const struct capacity_state *s;
	const struct sched_ssn_job *j;
	int32_t q;
};

static bool capacity_fits(const void *ctx, size_t d)
{
	const struct capacity_ask *a = ctx;
	const struct capacity_state *s = a->s;

	return a->j->min_res[d] + QV(s, allocated, a->q)[d] + QV(s, inqueue, a->q)[d] -
		       QV(s, elastic, a->q)[d] <=
	       QV(s, real_cap, a->q)[d];
}

static enum sched_vote capacity_enqueueable_cb(void *st, const struct sched_ssn_job *j,
					       char **message)
{
	struct capacity_state *s = st;
	const struct sched_ssn_queue *q = j->queue;
	int32_t i;

	if (!s->ready || !q || !s->attr[q->index])
		return SCHED_REJECT;
	if (s->hierarchy && s->nchildren[q->index] > 0)
		return SCHED_REJECT;
	if (q->q->state != VC_QUEUE_OPEN)
		return SCHED_REJECT;
	if (!j->has_min_res)
		return SCHED_PERMIT;
	/* The queue, then its ancestors: the first that has no room names what it lacks. */
	for (i = (int32_t)q->index; i != CAP_NONE; i = s->hierarchy ? s->parent[i] : CAP_NONE) {
		struct capacity_ask ask = { .s = s, .j = j, .q = i };

		if (enqueue_vote_by_dim(s->ssn, j,
					"queue resource quota insufficient: ", "insufficient",
					capacity_fits, &ask, message) == SCHED_REJECT)
			return SCHED_REJECT;
	}
	return SCHED_PERMIT;
}

static void capacity_enqueued_cb(void *st, const struct sched_ssn_job *j)
{
	struct capacity_state *s = st;
	double *tmp = s->ssn->priv->vec + 3 * s->ssn->ndims;
	int32_t i;
	size_t d;

	if (!j->queue || !j->has_min_res || !s->attr[j->queue->index])
		return;
	quota_min_res_ungated(s->ssn, j, tmp);
	for (i = (int32_t)j->queue->index; i != CAP_NONE;
	     i = s->hierarchy ? s->parent[i] : CAP_NONE)
		for (d = 0; d < s->ssn->ndims; d++)
			QV(s, inqueue, i)[d] += tmp[d];
}

/* Allocate and deallocate events: the leaf's share moves, the ancestors' allocated too (their
 * shares stay as the session opened with them, as in Volcano). */
static void capacity_event(struct capacity_state *s, const struct sched_ssn_task *t, double sign)
{
	int32_t q, i;
	size_t d;

	if (!t->job || !t->job->queue || !s->attr[t->job->queue->index])
		return;
	q = (int32_t)t->job->queue->index;
	for (i = q; i != CAP_NONE; i = s->hierarchy ? s->parent[i] : CAP_NONE)
		for (d = 0; d < s->ssn->ndims; d++)
			QV(s, allocated, i)[d] += sign * t->req[d];
	capacity_share(s, (size_t)q);
}

static void capacity_allocate_cb(void *st, const struct sched_ssn_task *t)
{
	capacity_event(st, t, 1);
}

static void capacity_deallocate_cb(void *st, const struct sched_ssn_task *t)
{
	capacity_event(st, t, -1);
}

/* ---- opening: the queues' attributes ------------------------------------------------------- */

/* r as a dense vector; has[d] says whether r names dimension d (cpu and memory always). */
static void dense_has(const struct sched_session *ssn, const struct vc_resource *r, double *out,
		      bool *has)
{
	size_t i;

	sched_ssn_dense(ssn, r, out);
	if (!has)
		return;
	has[0] = has[1] = true;
	for (i = 0; i < r->nscalars; i++) {
		uint32_t d = sched_ssn_dim(ssn, r->scalars[i].name);

		if (d != SCHED_NONE)
			has[d] = true;
	}
}

/* A capability as dense: scalars it does not name are unlimited (has: ndims scratch). */
static void dense_capability(const struct sched_session *ssn, const struct vc_resource *r,
			     double *out, bool *has)
{
	size_t d;

	memset(has, 0, ssn->ndims * sizeof(bool));
	dense_has(ssn, r, out, has);
	for (d = 2; d < ssn->ndims; d++)
		if (!has[d])
			out[d] = INFINITY;
}

/*
 * Per queue: spec.deserved (dense, its names in des_has), the guarantee (names in gua_has) and
 * the capability (unset: cpu and memory 0, scalars unlimited). has: ndims scratch.
 */
static void read_specs(struct capacity_state *s, bool *gua_has, bool *has)
{
	struct sched_session *ssn = s->ssn;
	size_t nd = ssn->ndims, i;

	for (i = 0; i < ssn->nqueues; i++) {
		const struct sched_queue_info *q = ssn->queues[i].q;
		bool *dh = s->des_has + i * nd;

		if (q->queue && q->queue->has_deserved)
			dense_has(ssn, &q->queue->deserved, QV(s, deserved, i), dh);
		dense_has(ssn, &q->guarantee, QV(s, guarantee, i), gua_has + i * nd);
		if (q->has_capability) {
			dense_capability(ssn, &q->capability, QV(s, cap, i), has);
		} else {
			size_t d;

			for (d = 0; d < nd; d++)
				QV(s, cap, i)[d] = d < 2 ? 0 : INFINITY;
		}
	}
}

/* deserved = max(deserved, guarantee), naming the guarantee's dimensions too (helpers.Max). */
static void raise_to_guarantee(struct capacity_state *s, size_t q, const bool *gua_has)
{
	size_t nd = s->ssn->ndims, d;
	double *des = QV(s, deserved, q);
	const double *g = QV(s, guarantee, q);

	for (d = 0; d < nd; d++) {
		if (g[d] > des[d])
			des[d] = g[d];
		if (gua_has[q * nd + d])
			s->des_has[q * nd + d] = true;
	}
}

/* buildQueueAttrs: the queues that have jobs, against the whole cluster. */
static void build_flat(struct capacity_state *s, const bool *gua_has)
{
	struct sched_session *ssn = s->ssn;
	size_t nd = ssn->ndims, i, d;
	double *total_g = ssn->priv->vec;
	bool *total_has = vc_calloc(nd + 1, sizeof(bool));

	memset(total_g, 0, nd * sizeof(double));
	for (i = 0; i < ssn->nqueues; i++)
		for (d = 0; d < nd; d++)
			total_g[d] += QV(s, guarantee, i)[d];
	if (total_has) {
		double *scratch = ssn->priv->vec + nd;

		dense_has(ssn, &ssn->snap->total, scratch, total_has);
	}
	for (i = 0; i < ssn->nqueues; i++) {
		const struct sched_queue_info *q = ssn->queues[i].q;
		double *rc = QV(s, real_cap, i), *des = QV(s, deserved, i);
		const double *g = QV(s, guarantee, i), *cap = QV(s, cap, i);

		if (!s->attr[i])
			continue;
		for (d = 0; d < nd; d++) {
			double left = ssn->total[d] - total_g[d];
			/* ExceededPart keeps a dimension only where the total exceeds the
			 * guarantees; Add then names the queue's guaranteed ones. */
			bool named = d < 2 || (total_has ? total_has[d] : ssn->total[d] > 0);
			bool real_has = d < 2 || (named && left > 0) || gua_has[i * nd + d];

			rc[d] = (left > 0 ? left : 0) + g[d];
			if (q->has_capability) {
				double c = d < 2 && cap[d] <= 0 ? INFINITY : cap[d];

				if (c < rc[d])
					rc[d] = c;
			}
			/* MinDimensionResource(realCapability, Infinity). */
			if (real_has && rc[d] < des[d])
				des[d] = rc[d];
		}
		raise_to_guarantee(s, i, gua_has);
	}
	vc_free(total_has);
}

static const char *parent_name(const struct sched_queue_info *q)
{
	return q->queue && q->queue->parent[0] ? q->queue->parent : "root";
}

/* The queue's parent index by spec.parent ("" = root), CAP_NONE for root, -2 when missing. */
static int32_t parent_of(const struct sched_session *ssn, size_t i)
{
	const struct sched_queue_info *q = ssn->queues[i].q;
	const char *p = parent_name(q);
	const struct sched_ssn_queue *pq;

	if (strcmp(q->name, "root") == 0)
		return CAP_NONE;
	pq = sched_ssn_find_queue(ssn, p);
	return pq ? (int32_t)pq->index : -2;
}

/* link_tree's work; on false s->parent may hold some links, or a cycle. */
static bool link_tree_try(struct capacity_state *s, uint32_t *order, int32_t *root)
{
	struct sched_session *ssn = s->ssn;
	size_t nq = ssn->nqueues, i, n = 0, head;

	*root = CAP_NONE;
	for (i = 0; i < nq; i++) {
		int32_t p = parent_of(ssn, i);

		if (p == -2) {
			VC_WARN("capacity: queue has an invalid parent queue", "queue=%s parent=%s",
				ssn->queues[i].q->name, parent_name(ssn->queues[i].q));
			return false;
		}
		s->parent[i] = p;
		if (p == CAP_NONE)
			*root = (int32_t)i;
		else
			s->nchildren[p]++;
	}
	if (*root == CAP_NONE) {
		VC_WARN("capacity: no root queue, hierarchy not built", "queues=%zu", nq);
		return false;
	}
	/* Breadth first from root; a queue never reached sits on a cycle. */
	order[n++] = (uint32_t)*root;
	for (head = 0; head < n; head++)
		for (i = 0; i < nq; i++)
			if (s->parent[i] == (int32_t)order[head]) {
				s->depth[i] = s->depth[order[head]] + 1;
				order[n++] = (uint32_t)i;
			}
	if (n != nq) {
		VC_WARN("capacity: cycle in the queue hierarchy", "queues=%zu reached=%zu", nq, n);
		return false;
	}
	return true;
}

/*
 * The tree's links, depths and the top-down order (parents before children); false if broken.
 * A broken tree keeps no links: every walk up from a queue (the allocate event's, which backfill
 * fires without asking allocatable) then stops at the queue, where a half-built or circular
 * chain of parents would never end.
 */
static bool link_tree(struct capacity_state *s, uint32_t *order, int32_t *root)
{
	size_t nq = s->ssn->nqueues, i;

	if (link_tree_try(s, order, root))
		return true;
	for (i = 0; i < nq; i++)
		s->parent[i] = CAP_NONE;
	return false;
}

/*
 * buildHierarchicalQueueAttrs and checkHierarchicalQueue: s->ready says whether the tree is
 * sound. Returns 0 or VC_ENOMEM.
 */
static int build_tree(struct capacity_state *s, const bool *gua_has)
{
	struct sched_session *ssn = s->ssn;
	size_t nq = ssn->nqueues, nd = ssn->ndims, i, k, d;
	uint32_t *order = vc_calloc(nq + 1, sizeof(uint32_t));
	double *root_cap, *root_real;
	bool *total_has = vc_calloc(nd + 1, sizeof(bool)), empty;
	int32_t root;
	int rc = VC_ENOMEM;

	s->ready = false;
	if (!order || !total_has)
		goto out;
	rc = 0;
	for (i = 0; i < nq; i++)
		s->attr[i] = true;
	if (!link_tree(s, order, &root))
		goto out;
	for (i = 0; i < ssn->njobs; i++) {
		const struct sched_ssn_job *j = &ssn->jobs[i];

		if (j->queue && s->nchildren[j->queue->index] > 0) {
			VC_WARN("capacity: a job's queue is not a leaf queue", "queue=%s job=%s",
				j->queue->q->name, j->j->uid);
			goto out;
		}
	}
	/* root: its capability, or unlimited on cpu, memory and the cluster's scalars. */
	dense_has(ssn, &ssn->snap->total, ssn->priv->vec, total_has);
	root_cap = QV(s, cap, root);
	root_real = QV(s, real_cap, root);
	empty = !ssn->queues[root].q->has_capability ||
		vc_resource_is_empty(&ssn->queues[root].q->capability);
	for (d = 0; d < nd; d++) {
		if (empty)
			root_cap[d] = d < 2 || total_has[d] ? INFINITY : root_cap[d];
		root_real[d] =
			d < 2 || (empty ? total_has[d] : !isinf(root_cap[d])) ? root_cap[d] : 0;
	}
	/* Top-down: a parent's children inherit what their capability leaves unset, deserve at
	 * least their guarantee, and share what the parent may use less their guarantees. */
	for (k = 0; k < nq; k++) {
		size_t p = order[k];
		double *sum_g = ssn->priv->vec, *sum_d = ssn->priv->vec + nd;

		if (s->nchildren[p] == 0)
			continue;
		memset(sum_g, 0, 2 * nd * sizeof(double));
		for (i = 0; i < nq; i++) {
			double *cap = QV(s, cap, i);

			if (s->parent[i] != (int32_t)p)
				continue;
			raise_to_guarantee(s, i, gua_has);
			for (d = 0; d < nd; d++) {
				sum_g[d] += QV(s, guarantee, i)[d];
				sum_d[d] += QV(s, deserved, i)[d];
				if (d < 2 ? cap[d] <= 0 : isinf(cap[d]))
					cap[d] = QV(s, cap, p)[d];
			}
		}
		if ((int32_t)p == root) {
			memcpy(QV(s, guarantee, p), sum_g, nd * sizeof(double));
			memcpy(QV(s, deserved, p), sum_d, nd * sizeof(double));
			for (i = 0; i < nq; i++)
				if (s->parent[i] == root)
					for (d = 0; d < nd; d++)
						s->des_has[p * nd + d] |= s->des_has[i * nd + d];
		}
		for (i = 0; i < nq; i++) {
			const double *prc = QV(s, real_cap, p);
			double *crc = QV(s, real_cap, i);

			if (s->parent[i] != (int32_t)p)
				continue;
			for (d = 0; d < nd; d++) {
				double left = prc[d] - sum_g[d];

				crc[d] = (left > 0 ? left : 0) + QV(s, guarantee, i)[d];
				if (QV(s, cap, i)[d] < crc[d])
					crc[d] = QV(s, cap, i)[d];
			}
		}
	}
	s->ready = true;
out:
	vc_free(order);
	vc_free(total_has);
	return rc;
}

static void capacity_free(struct capacity_state *s)
{
	if (!s)
		return;
	vc_free(s->deserved);
	vc_free(s->real_cap);
	vc_free(s->cap);
	vc_free(s->guarantee);
	vc_free(s->allocated);
	vc_free(s->inqueue);
	vc_free(s->elastic);
	vc_free(s->tmp);
	vc_free(s->des_has);
	vc_free(s->share);
	vc_free(s->attr);
	vc_free(s->parent);
	vc_free(s->depth);
	vc_free(s->nchildren);
	vc_free(s->seen);
	vc_free(s);
}

static struct capacity_state *capacity_alloc(struct sched_session *ssn)
{
	struct capacity_state *s = vc_calloc(1, sizeof(*s));
	size_t nq = ssn->nqueues, sz = nq * ssn->ndims + 1;

	if (!s)
		return NULL;
	s->ssn = ssn;
	s->deserved = vc_calloc(sz, sizeof(double));
	s->real_cap = vc_calloc(sz, sizeof(double));
	s->cap = vc_calloc(sz, sizeof(double));
	s->guarantee = vc_calloc(sz, sizeof(double));
	s->allocated = vc_calloc(sz, sizeof(double));
	s->inqueue = vc_calloc(sz, sizeof(double));
	s->elastic = vc_calloc(sz, sizeof(double));
	s->tmp = vc_calloc(sz, sizeof(double));
	s->des_has = vc_calloc(sz, sizeof(bool));
	s->share = vc_calloc(nq + 1, sizeof(double));
	s->attr = vc_calloc(nq + 1, sizeof(bool));
	s->parent = vc_calloc(nq + 1, sizeof(int32_t));
	s->depth = vc_calloc(nq + 1, sizeof(int32_t));
	s->nchildren = vc_calloc(nq + 1, sizeof(uint32_t));
	s->seen = vc_calloc(nq + 1, sizeof(uint32_t));
	if (!s->deserved || !s->real_cap || !s->cap || !s->guarantee || !s->allocated ||
	    !s->inqueue || !s->elastic || !s->tmp || !s->des_has || !s->share || !s->attr ||
	    !s->parent || !s->depth || !s->nchildren || !s->seen) {
		capacity_free(s);
		return NULL;
	}
	return s;
}

/* The queues' totals in the model (deserved, realCapability, allocated, share), as proportion
 * leaves them for the queue status and the tests. */
static int write_model(struct capacity_state *s)
{
	struct sched_session *ssn = s->ssn;
	size_t i;

	for (i = 0; i < ssn->nqueues; i++) {
		struct sched_queue_info *q = ssn->queues[i].q;

		vc_resource_clear(&q->deserved);
		vc_resource_clear(&q->real_capability);
		vc_resource_clear(&q->allocated);
		q->share = s->share[i];
		if (!s->attr[i])
			continue;
		if (sched_ssn_to_resource(ssn, QV(s, deserved, i), &q->deserved) < 0 ||
		    sched_ssn_to_resource(ssn, QV(s, real_cap, i), &q->real_capability) < 0 ||
		    sched_ssn_to_resource(ssn, QV(s, allocated, i), &q->allocated) < 0)
			return VC_ENOMEM;
	}
	return 0;
}

static int capacity_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
			 struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	struct capacity_state *s = capacity_alloc(ssn);
	size_t nd = ssn->ndims, i, d;
	bool *gua_has = vc_calloc((ssn->nqueues + 1) * nd + 1, sizeof(bool));

	if (!s || !gua_has)
		goto nomem;
	s->hierarchy = conf->hierarchy;
	s->ancestor_level = sched_arg_int(conf, "ancestorReclaimLevel", 0);
	if (s->ancestor_level < 0)
		s->ancestor_level = 0;
	read_specs(s, gua_has, gua_has + ssn->nqueues * nd);
	s->ready = true;
	if (s->hierarchy && build_tree(s, gua_has) < 0)
		goto nomem;
	/* Every job adds to its queue and, in the tree, to every ancestor. */
	for (i = 0; i < ssn->njobs && s->ready; i++) {
		const struct sched_ssn_job *j = &ssn->jobs[i];
		double *inq = ssn->priv->vec, *el = ssn->priv->vec + nd;
		int32_t q;

		if (!j->queue)
			continue;
		memset(inq, 0, 2 * nd * sizeof(double));
		quota_job_totals(ssn, j, inq, el);
		s->attr[j->queue->index] = true;
		for (q = (int32_t)j->queue->index; q != CAP_NONE;
		     q = s->hierarchy ? s->parent[q] : CAP_NONE)
			for (d = 0; d < nd; d++) {
				QV(s, allocated, q)[d] += j->alloc[d];
				QV(s, inqueue, q)[d] += inq[d];
				QV(s, elastic, q)[d] += el[d];
			}
	}
	if (!s->hierarchy)
		build_flat(s, gua_has);
	for (i = 0; i < ssn->nqueues; i++)
		if (s->attr[i])
			capacity_share(s, i);
	if (write_model(s) < 0)
		goto nomem;
	vc_free(gua_has);
	if (s->ready)
		cb->queue_order = capacity_order_cb;
	if (s->ready && s->hierarchy)
		cb->victim_queue_order = capacity_victim_order_cb;
	cb->allocatable = capacity_allocatable_cb;
	cb->preemptive = capacity_preemptive_cb;
	cb->reclaimable = capacity_reclaimable_cb;
	cb->job_enqueueable = capacity_enqueueable_cb;
	cb->job_enqueued = capacity_enqueued_cb;
	cb->on_allocate = capacity_allocate_cb;
	cb->on_deallocate = capacity_deallocate_cb;
	*state = s;
	return 0;
nomem:
	vc_free(gua_has);
	capacity_free(s);
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

static void capacity_close(struct sched_session *ssn, void *state)
{
	struct capacity_state *s = state;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < ssn->nqueues; i++) {
		const char *name = ssn->queues[i].q->name;

		ssn->queues[i].q->share = s->share[i];
		/* The session's last word on each queue (Volcano updates these as it goes). */
		sched_metrics_queue_close(ssn, ssn->queues[i].q, QV(s, allocated, i),
					  QV(s, deserved, i), QV(s, real_cap, i),
					  QV(s, inqueue, i));
		sched_metrics_queue_share(sched_ssn_metrics(ssn), name, s->share[i]);
	}
	capacity_free(s);
}

const struct sched_plugin sched_plugin_capacity = {
	.name = "capacity",
	.on_session_open = capacity_open,
	.on_session_close = capacity_close,
};
