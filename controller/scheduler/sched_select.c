/*
 * sched_select.c - feasible-node search, node choice and node fit errors (docs/volcano/scheduler.md
 * docs/volcano/scheduler.md §3.2.1, §3.2.2, §1.8).
 */
#include "sched_internal.h"

#include <math.h>

#include "vc_alloc.h"

#define MIN_NODES_TO_FIND      100
#define MIN_PERCENTAGE_TO_FIND 5
#define BASELINE_PERCENTAGE    50

uint32_t sched_num_to_find(uint32_t nnodes)
{
	int64_t n = nnodes, pct, num;

	if (n <= MIN_NODES_TO_FIND)
		return nnodes;
	pct = BASELINE_PERCENTAGE - n / 125;
	if (pct < MIN_PERCENTAGE_TO_FIND)
		pct = MIN_PERCENTAGE_TO_FIND;
	if (pct >= 100)
		return nnodes;
	num = n * pct / 100;
	if (num < MIN_NODES_TO_FIND)
		return MIN_NODES_TO_FIND;
	return (uint32_t)num;
}

/* ---- reasons -----------------------------------------------------------------------------------
 */

uint32_t sched_reason_intern(struct sched_session *ssn, const char *text)
{
	struct sched_session_priv *p = ssn->priv;
	size_t i;

	for (i = p->nreasons; i-- > 0;)
		if (strcmp(p->reasons[i], text) == 0)
			return (uint32_t)i;
	if (p->nreasons == p->reasons_cap) {
		size_t ncap = p->reasons_cap ? p->reasons_cap * 2 : 16;
		char **r = vc_realloc(p->reasons, ncap * sizeof(*r));
		uint32_t *c, *t;

		if (!r)
			return SCHED_NONE;
		p->reasons = r;
		c = vc_realloc(p->reason_count, ncap * sizeof(*c));
		if (!c)
			return SCHED_NONE;
		p->reason_count = c;
		t = vc_realloc(p->touched, ncap * sizeof(*t));
		if (!t)
			return SCHED_NONE;
		p->touched = t;
		memset(p->reason_count + p->reasons_cap, 0,
		       (ncap - p->reasons_cap) * sizeof(*p->reason_count));
		p->reasons_cap = ncap;
	}
	p->reasons[p->nreasons] = vc_strdup(text);
	if (!p->reasons[p->nreasons])
		return SCHED_NONE;
	return (uint32_t)p->nreasons++;
}

static void count_reason(struct sched_session_priv *p, uint32_t reason)
{
	if (p->reason_count[reason]++ == 0)
		p->touched[p->ntouched++] = reason;
}

static void clear_counts(struct sched_session_priv *p)
{
	size_t i;

	for (i = 0; i < p->ntouched; i++)
		p->reason_count[p->touched[i]] = 0;
	p->ntouched = 0;
}

/* Turn the counted reasons into t's fit errors over nfailed nodes. */
static int fit_from_counts(struct sched_session *ssn, struct sched_ssn_task *t, uint32_t nfailed)
{
	struct sched_session_priv *p = ssn->priv;
	struct sched_fit_errors *f;
	size_t i;

	f = vc_malloc(sizeof(*f) + p->ntouched * sizeof(f->entries[0]));
	if (!f)
		return VC_ENOMEM;
	f->err = NULL;
	f->nnodes = nfailed;
	f->nentries = (uint32_t)p->ntouched;
	for (i = 0; i < p->ntouched; i++) {
		f->entries[i].reason = p->touched[i];
		f->entries[i].count = p->reason_count[p->touched[i]];
	}
	if (t->fit) {
		vc_free(t->fit->err);
		vc_free(t->fit);
	}
	t->fit = f;
	return 0;
}

int sched_fit_set_error(struct sched_session *ssn, struct sched_ssn_task *t, const char *msg)
{
	struct sched_fit_errors *f = vc_malloc(sizeof(*f));

	(void)ssn;
	if (!f)
		return VC_ENOMEM;
	f->err = vc_strdup(msg);
	if (!f->err) {
		vc_free(f);
		return VC_ENOMEM;
	}
	f->nnodes = 0;
	f->nentries = 0;
	if (t->fit) {
		vc_free(t->fit->err);
		vc_free(t->fit);
	}
	t->fit = f;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sched_fit_format(const struct sched_session *ssn, const struct sched_fit_errors *f,
		     struct vc_buf *out)
{
	char **items, *text;
	size_t i, len = 0, off = 0;
	int rc;

	if (f->err)
		rc = vc_buf_adds(out, f->err);
	else
		rc = vc_buf_addf(out, "0/%u nodes are unavailable", f->nnodes);
	if (rc < 0 || f->nentries == 0)
		return rc;
	/* The items, "<count> <reason>", in one block after their pointers. */
	for (i = 0; i < f->nentries; i++)
		len += strlen(ssn->priv->reasons[f->entries[i].reason]) + 12;
	items = vc_malloc(f->nentries * sizeof(*items) + len);
	if (!items)
		return VC_ENOMEM;
	text = (char *)(items + f->nentries);
	for (i = 0; i < f->nentries; i++) {
		items[i] = text + off;
		off += (size_t)snprintf(items[i], len - off, "%u %s", f->entries[i].count,
					ssn->priv->reasons[f->entries[i].reason]) +
		       1;
	}
	qsort(items, f->nentries, sizeof(*items), cmp_str);
	rc = vc_buf_adds(out, ": ");
	for (i = 0; i < f->nentries && rc == 0; i++) {
		if (i)
			rc = vc_buf_adds(out, ", ");
		if (rc == 0)
			rc = vc_buf_adds(out, items[i]);
	}
	if (rc == 0)
		rc = vc_buf_adds(out, ".");
	vc_free(items);
	return rc;
}

/* ---- predicate error cache (docs/volcano/scheduler.md §3.2.1) -----------------------------------
 */

void sched_cache_reset(struct sched_session *ssn)
{
	ssn->priv->ncache_roles = 0;
}

/* The stamp of (this pass, role), or 0 when the role is not cached. */
static uint32_t role_stamp(struct sched_session *ssn, const char *role)
{
	struct sched_session_priv *p = ssn->priv;
	size_t i;

	if (!role[0] || !p->predicate_cache || !p->cache_stamp)
		return 0;
	for (i = 0; i < p->ncache_roles; i++)
		if (strcmp(p->cache_roles[i], role) == 0)
			return p->cache_role_stamp[i];
	if (p->ncache_roles == sizeof(p->cache_roles) / sizeof(p->cache_roles[0]))
		return 0;
	if (++p->stamp_next == 0) {
		/* Wrapped: forget everything cached before. */
		memset(p->cache_stamp, 0, ssn->nnodes * sizeof(*p->cache_stamp));
		p->stamp_next = 1;
	}
	p->cache_roles[p->ncache_roles] = role;
	p->cache_role_stamp[p->ncache_roles] = p->stamp_next;
	p->ncache_roles++;
	return p->stamp_next;
}

/* ---- the equivalence-class cache --------------------------------------------------------------
 */

/* The most the cache may take, whatever the number of nodes, and the most tables. */
#define CLASS_CACHE_BYTES (32u << 20)
#define CLASS_CACHE_WAYS  16u

int sched_class_caches_init(struct sched_session *ssn)
{
	struct sched_session_priv *p = ssn->priv;
	uint32_t nkeys = 0, w = 1;
	size_t i;

	p->class_pred = p->class_score = true;
	for (i = 0; i < p->npred; i++)
		p->class_pred = p->class_pred && p->pred_slots[i]->cb.predicate_by_class;
	for (i = 0; i < p->nscore; i++)
		p->class_score = p->class_score && p->score_slots[i]->cb.node_order_by_request;
	for (i = 0; i < ssn->ntasks; i++)
		if (ssn->tasks[i].class_key != SCHED_NONE && ssn->tasks[i].class_key >= nkeys)
			nkeys = ssn->tasks[i].class_key + 1;
	if (ssn->nnodes == 0 || nkeys == 0 || (!p->class_pred && !p->class_score))
		return 0;
	while (w < CLASS_CACHE_WAYS && w < nkeys)
		w *= 2;
	while (w > 1 && (size_t)w * ssn->nnodes * sizeof(*p->class_cache) > CLASS_CACHE_BYTES)
		w /= 2;
	p->node_ver = vc_malloc(ssn->nnodes * sizeof(*p->node_ver));
	p->class_cache = vc_calloc((size_t)w * ssn->nnodes, sizeof(*p->class_cache));
	if (!p->node_ver || !p->class_cache) {
		vc_free(p->node_ver);
		vc_free(p->class_cache);
		p->node_ver = NULL;
		p->class_cache = NULL;
		return VC_ENOMEM;
	}
	p->class_ways = w;
	for (i = 0; i < ssn->nnodes; i++)
		p->node_ver[i] = ssn->nodes[i].version;
	return 0;
}

/* The table of t's class, or NULL when t's class is not cached. */
static struct sched_class_entry *class_table(const struct sched_session *ssn,
					     const struct sched_ssn_task *t)
{
	const struct sched_session_priv *p = ssn->priv;

	if (!p->class_cache || t->class_key == SCHED_NONE)
		return NULL;
	return &p->class_cache[(size_t)(t->class_key & (p->class_ways - 1)) * ssn->nnodes];
}

/* Whether e holds t's class for the node's current version. */
static inline bool entry_valid(const struct sched_session_priv *p,
			       const struct sched_class_entry *e, uint32_t key, uint32_t node)
{
	return e->ver == p->node_ver[node] + 1 && e->key == key;
}

/* Claim e for key at the node's current version when it holds anything else. */
static inline void entry_claim(const struct sched_session_priv *p, struct sched_class_entry *e,
			       uint32_t key, uint32_t node)
{
	if (!entry_valid(p, e, key, node)) {
		e->ver = p->node_ver[node] + 1;
		e->key = key;
		e->known = 0;
		e->has_score = 0;
	}
}

static double score_eval(struct sched_session *ssn, const struct sched_ssn_task *t,
			 const struct sched_ssn_node *n)
{
	struct sched_session_priv *p = ssn->priv;
	double score = 0;
	size_t i;

	p->score_evals++;
	for (i = 0; i < p->nscore; i++)
		score += p->score_slots[i]->cb.node_order(p->score_slots[i]->state, t, n);
	return score;
}

/* The summed node score of t on node n, through the class table tab (may be NULL). */
static double node_score(struct sched_session *ssn, const struct sched_ssn_task *t,
			 struct sched_class_entry *tab, const struct sched_ssn_node *n)
{
	struct sched_class_entry *e;

	if (!tab)
		return score_eval(ssn, t, n);
	e = &tab[n->index];
	if (entry_valid(ssn->priv, e, t->class_key, n->index) && e->has_score)
		return e->score;
	entry_claim(ssn->priv, e, t->class_key, n->index);
	e->score = score_eval(ssn, t, n);
	e->has_score = 1;
	return e->score;
}

double sched_ssn_node_score(struct sched_session *ssn, const struct sched_ssn_task *t,
			    const struct sched_ssn_node *n)
{
	return node_score(ssn, t, ssn->priv->class_score ? class_table(ssn, t) : NULL, n);
}

/* ---- search ------------------------------------------------------------------------------------
 */

/* Whether req fits the node's FutureIdle; else *dim is the first dimension where it does not. */
static bool fits_future(const struct sched_session *ssn, const double *req,
			const struct sched_ssn_node *n, uint32_t *dim)
{
	size_t d;

	for (d = 0; d < ssn->ndims; d++) {
		double need = req[d], have;

		if (d >= 2 && need == 0)
			continue;
		have = n->idle[d] + n->releasing[d] - n->pipelined[d];
		if (need > have && need - have >= VC_RESOURCE_MIN) {
			*dim = (uint32_t)d;
			return false;
		}
	}
	return true;
}

/*
 * The outcome of the predicates the class cache may not keep (predicate_pods) for t on a node
 * that passed everything else: *reason as node_outcome's. 0 or VC_ENOMEM.
 */
static int pods_outcome(struct sched_session *ssn, const struct sched_ssn_task *t, uint32_t node,
			enum sched_search_mode mode, uint32_t *reason)
{
	struct pred_result pr;
	bool unresolvable = false;
	int rc = sched_ssn_predicate_pods(ssn, t, &ssn->nodes[node], &pr, &unresolvable);

	if (rc < 0)
		return rc;
	if (!pr.fit && (mode == SCHED_SEARCH_ALLOCATE || unresolvable)) {
		*reason = sched_reason_intern(ssn, pr.reason);
		if (*reason == SCHED_NONE)
			return VC_ENOMEM;
	}
	return 0;
}

/*
 * The outcome of one node for t: SCHED_NONE when it is feasible, else the reason it is not.
 * Allocate mode checks the resource fit on FutureIdle first; preempt mode only counts what
 * eviction cannot fix. tab (allocate mode only, may be NULL) is t's class table: the outcome
 * is read from it when known and recorded in it otherwise. 0 or VC_ENOMEM.
 */
static int node_outcome(struct sched_session *ssn, const struct sched_ssn_task *t, uint32_t node,
			enum sched_search_mode mode, struct sched_class_entry *tab,
			uint32_t *reason)
{
	struct sched_session_priv *p = ssn->priv;
	const struct sched_ssn_node *n = &ssn->nodes[node];
	struct pred_result pr;
	bool unresolvable = false;
	uint32_t d;
	int rc;

	*reason = SCHED_NONE;
	if (mode == SCHED_SEARCH_ALLOCATE && !fits_future(ssn, t->req, n, &d)) {
		*reason = p->reason_dims + d;
	} else {
		p->predicate_calls++;
		p->predicate_evals++;
		rc = sched_ssn_predicate_class(ssn, t, n, &pr, &unresolvable);
		if (rc < 0)
			return rc;
		if (!pr.fit && (mode == SCHED_SEARCH_ALLOCATE || unresolvable)) {
			*reason = sched_reason_intern(ssn, pr.reason);
			if (*reason == SCHED_NONE)
				return VC_ENOMEM;
		}
	}
	if (tab) {
		struct sched_class_entry *e = &tab[node];

		entry_claim(p, e, t->class_key, node);
		e->known = 1;
		e->reason = *reason;
		e->idle_fit = *reason == SCHED_NONE && sched_res_le(ssn, t->req, n->idle);
	}
	return 0;
}

int sched_predicate_nodes(struct sched_session *ssn, struct sched_ssn_task *t,
			  enum sched_search_mode mode, bool use_cache, size_t *nout)
{
	struct sched_session_priv *p = ssn->priv;
	uint32_t nn = (uint32_t)ssn->nnodes, want = sched_num_to_find(nn), i, nfailed = 0, node;
	uint32_t stamp =
		mode == SCHED_SEARCH_ALLOCATE && use_cache ? role_stamp(ssn, t->t->role) : 0;
	struct sched_class_entry *tab =
		mode == SCHED_SEARCH_ALLOCATE && p->class_pred ? class_table(ssn, t) : NULL;
	uint32_t key = t->class_key, dims_end = p->reason_dims + (uint32_t)ssn->ndims;
	size_t found = 0;
	int rc = 0;

	*nout = 0;
	if (nn == 0)
		return fit_from_counts(ssn, t, 0);
	node = p->node_offset % nn;
	for (i = 0; i < nn; i++, node = node + 1 == nn ? 0 : node + 1) {
		const struct sched_class_entry *e;
		uint32_t reason;

		if (stamp && p->cache_stamp[node] == stamp) {
			reason = p->cache_reason[node];
		} else {
			if (tab && (e = &tab[node])->known && entry_valid(p, e, key, node)) {
				reason = e->reason;
				/* A node that passed the resource fit was asked the predicates. */
				p->predicate_calls += reason < p->reason_dims || reason >= dims_end;
			} else {
				rc = node_outcome(ssn, t, node, mode, tab, &reason);
				if (rc < 0)
					goto out;
			}
			if (reason != SCHED_NONE && stamp) {
				p->cache_stamp[node] = stamp;
				p->cache_reason[node] = reason;
			}
		}
		/*
		 * The filters on other nodes' pods last, outside both caches: their outcome
		 * changes as the job's own tasks are placed (a spread constraint that failed a
		 * node for one task may admit it for the next).
		 */
		if (reason == SCHED_NONE && p->npred_pods > 0) {
			rc = pods_outcome(ssn, t, node, mode, &reason);
			if (rc < 0)
				goto out;
		}
		if (reason != SCHED_NONE) {
			count_reason(p, reason);
			nfailed++;
			continue;
		}
		p->feasible[found++] = node;
		if (found >= want) {
			i++;
			break;
		}
	}
	p->node_offset = (p->node_offset + i) % nn;
	*nout = found;
	if (found == 0 && mode == SCHED_SEARCH_ALLOCATE)
		rc = fit_from_counts(ssn, t, nfailed);
out:
	clear_counts(p);
	return rc;
}

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The best node of one gradient: max score, ties uniformly at random. */
static uint32_t best_of(struct sched_session *ssn, const struct sched_ssn_task *t,
			const uint32_t *cands, size_t n)
{
	struct sched_session_priv *p = ssn->priv;
	struct sched_class_entry *tab = p->class_score ? class_table(ssn, t) : NULL;
	uint32_t best = SCHED_NONE;
	double best_score = -INFINITY;
	uint64_t ties = 0;
	size_t i;

	if (n == 1)
		return cands[0];
	p->score_calls += n;
	if (p->nbatch > 0) {
		/* The batch scores are normalised over the candidates: all of them first. */
		for (i = 0; i < n; i++) {
			const struct sched_class_entry *e = tab ? &tab[cands[i]] : NULL;

			p->batch_scores[i] =
				e && e->has_score && entry_valid(p, e, t->class_key, cands[i])
					? e->score
					: node_score(ssn, t, tab, &ssn->nodes[cands[i]]);
		}
		sched_ssn_batch_scores(ssn, t, cands, n, p->batch_scores);
	}
	for (i = 0; i < n; i++) {
		const struct sched_class_entry *e = tab ? &tab[cands[i]] : NULL;
		double s = p->nbatch > 0 ? p->batch_scores[i]
			   : e && e->has_score && entry_valid(p, e, t->class_key, cands[i])
				   ? e->score
				   : node_score(ssn, t, tab, &ssn->nodes[cands[i]]);

		if (s > best_score) {
			best_score = s;
			best = cands[i];
			ties = 1;
		} else if (s == best_score) {
			ties++;
			if (rng_next(&p->rng) % ties == 0)
				best = cands[i];
		}
	}
	return best;
}

uint32_t sched_best_node(struct sched_session *ssn, const struct sched_ssn_task *t,
			 const uint32_t *cands, size_t n)
{
	struct sched_session_priv *p = ssn->priv;
	const struct sched_class_entry *tab = p->class_pred ? class_table(ssn, t) : NULL;
	uint32_t *idle = p->scratch_nodes, best;
	size_t i, nidle = 0, nfuture = 0;

	/* Gradient (a): fits Idle; gradient (b): fits only FutureIdle (kept at the back). */
	for (i = 0; i < n; i++) {
		const struct sched_class_entry *e = tab ? &tab[cands[i]] : NULL;
		bool fit = e && e->known && e->reason == SCHED_NONE &&
					   entry_valid(p, e, t->class_key, cands[i])
				   ? e->idle_fit
				   : sched_res_le(ssn, t->req, ssn->nodes[cands[i]].idle);

		if (fit)
			idle[nidle++] = cands[i];
		else
			idle[ssn->nnodes - 1 - nfuture++] = cands[i];
	}
	if (nidle > 0)
		return best_of(ssn, t, idle, nidle);
	if (nfuture == 0)
		return SCHED_NONE;
	best = best_of(ssn, t, idle + ssn->nnodes - nfuture, nfuture);
	return best;
}
