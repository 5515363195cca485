/*
 * sched_select.c - feasible-node search, node choice and node fit errors (scheduler.md
 * §3.2.1, §3.2.2, §1.8).
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
static int fit_from_counts(struct sched_session *ssn, struct sched_stask *t, uint32_t nfailed)
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

int sched_fit_set_error(struct sched_session *ssn, struct sched_stask *t, const char *msg)
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
	char **items = NULL;
	size_t i, n = 0;
	int rc;

	if (f->err)
		rc = vc_buf_adds(out, f->err);
	else
		rc = vc_buf_addf(out, "0/%u nodes are unavailable", f->nnodes);
	if (rc < 0 || f->nentries == 0)
		return rc;
	items = vc_calloc(f->nentries, sizeof(*items));
	if (!items)
		return VC_ENOMEM;
	for (i = 0; i < f->nentries; i++, n++) {
		items[i] = vc_asprintf("%u %s", f->entries[i].count,
				       ssn->priv->reasons[f->entries[i].reason]);
		if (!items[i]) {
			rc = VC_ENOMEM;
			goto out;
		}
	}
	qsort(items, n, sizeof(*items), cmp_str);
	rc = vc_buf_adds(out, ": ");
	for (i = 0; i < n && rc == 0; i++)
		rc = vc_buf_addf(out, "%s%s", i ? ", " : "", items[i]);
	if (rc == 0)
		rc = vc_buf_adds(out, ".");
out:
	for (i = 0; i < n; i++)
		vc_free(items[i]);
	vc_free(items);
	return rc;
}

/* ---- predicate error cache (§3.2.1) ------------------------------------------------------------
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

/* ---- search ------------------------------------------------------------------------------------
 */

/* The first dimension where req does not fit the node's FutureIdle, or SCHED_NONE. */
static uint32_t short_dim(const struct sched_session *ssn, const double *req,
			  const struct sched_snode *n)
{
	size_t d;

	for (d = 0; d < ssn->ndims; d++) {
		double need = req[d], have;

		if (d >= 2 && need == 0)
			continue;
		have = n->idle[d] + n->releasing[d] - n->pipelined[d];
		if (need > have && need - have >= VC_RESOURCE_MIN)
			return (uint32_t)d;
	}
	return SCHED_NONE;
}

int sched_predicate_nodes(struct sched_session *ssn, struct sched_stask *t,
			  enum sched_search_mode mode, bool use_cache, size_t *nout)
{
	struct sched_session_priv *p = ssn->priv;
	uint32_t nn = (uint32_t)ssn->nnodes, want = sched_num_to_find(nn), i, nfailed = 0;
	uint32_t stamp =
		mode == SCHED_SEARCH_ALLOCATE && use_cache ? role_stamp(ssn, t->t->role) : 0;
	size_t found = 0;
	struct pred_result pr;
	int rc = 0;

	*nout = 0;
	if (nn == 0)
		return fit_from_counts(ssn, t, 0);
	for (i = 0; i < nn; i++) {
		uint32_t node = (p->node_offset + i) % nn, reason = SCHED_NONE;
		struct sched_snode *n = &ssn->nodes[node];
		bool unresolvable = false;

		if (stamp && p->cache_stamp[node] == stamp) {
			reason = p->cache_reason[node];
		} else {
			if (mode == SCHED_SEARCH_ALLOCATE) {
				uint32_t d;

				d = short_dim(ssn, t->req, n);
				if (d != SCHED_NONE)
					reason = p->reason_dims + d;
			}
			if (reason == SCHED_NONE) {
				p->predicate_calls++;
				rc = sched_ssn_predicate(ssn, t, n, &pr, &unresolvable);
				if (rc < 0)
					goto out;
				if (!pr.fit && (mode == SCHED_SEARCH_ALLOCATE || unresolvable)) {
					reason = sched_reason_intern(ssn, pr.reason);
					if (reason == SCHED_NONE) {
						rc = VC_ENOMEM;
						goto out;
					}
				}
			}
			if (reason != SCHED_NONE && stamp) {
				p->cache_stamp[node] = stamp;
				p->cache_reason[node] = reason;
			}
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
static uint32_t best_of(struct sched_session *ssn, const struct sched_stask *t,
			const uint32_t *cands, size_t n)
{
	struct sched_session_priv *p = ssn->priv;
	uint32_t best = SCHED_NONE;
	double best_score = -INFINITY;
	uint64_t ties = 0;
	size_t i;

	if (n == 1)
		return cands[0];
	for (i = 0; i < n; i++) {
		double s = sched_ssn_node_score(ssn, t, &ssn->nodes[cands[i]]);

		p->score_calls++;
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

uint32_t sched_best_node(struct sched_session *ssn, const struct sched_stask *t,
			 const uint32_t *cands, size_t n)
{
	struct sched_session_priv *p = ssn->priv;
	uint32_t *idle = p->scratch_nodes, best;
	size_t i, nidle = 0, nfuture = 0;

	/* Gradient (a): fits Idle; gradient (b): fits only FutureIdle (kept at the back). */
	for (i = 0; i < n; i++) {
		const struct sched_snode *node = &ssn->nodes[cands[i]];

		if (sched_res_le(ssn, t->req, node->idle))
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
