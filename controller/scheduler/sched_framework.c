/*
 * sched_framework.c - how callbacks combine (docs/volcano/scheduler.md §1.4), dense
 * resource helpers, heaps and the orders.
 */
#include "sched_framework.h"

#include <math.h>

#include "sched_internal.h"
#include "vc_alloc.h"

bool sched_ssn_has_action(const struct sched_session *ssn, const char *action)
{
	return sched_conf_has_action(ssn->conf, action);
}

/* ---- lookups and dense resources ------------------------------------------------------------ */

struct sched_ssn_task *sched_ssn_task_of(const struct sched_session *ssn,
					 const struct sched_task_info *t)
{
	(void)ssn;
	return t ? t->ssn : NULL;
}

struct sched_ssn_queue *sched_ssn_find_queue(const struct sched_session *ssn, const char *name)
{
	size_t i;

	for (i = 0; i < ssn->nqueues; i++)
		if (strcmp(ssn->queues[i].q->name, name) == 0)
			return &ssn->queues[i];
	return NULL;
}

struct sched_ssn_node *sched_ssn_find_node(const struct sched_session *ssn, const char *name)
{
	size_t i;

	for (i = 0; i < ssn->nnodes; i++)
		if (strcmp(ssn->nodes[i].n->name, name) == 0)
			return &ssn->nodes[i];
	return NULL;
}

uint32_t sched_ssn_dim(const struct sched_session *ssn, const char *name)
{
	size_t lo = 2, hi = ssn->ndims;

	if (strcmp(name, "cpu") == 0)
		return 0;
	if (strcmp(name, "memory") == 0)
		return 1;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ssn->dims[mid], name);

		if (c == 0)
			return (uint32_t)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SCHED_NONE;
}

void sched_ssn_dense(const struct sched_session *ssn, const struct vc_resource *r, double *out)
{
	size_t i;

	for (i = 0; i < ssn->ndims; i++)
		out[i] = 0;
	out[0] = r->milli_cpu;
	out[1] = r->memory;
	for (i = 0; i < r->nscalars; i++) {
		uint32_t d = sched_ssn_dim(ssn, r->scalars[i].name);

		if (d != SCHED_NONE)
			out[d] = r->scalars[i].value;
	}
}

void sched_ssn_future_idle(const struct sched_session *ssn, const struct sched_ssn_node *n,
			   double *out)
{
	size_t i;

	for (i = 0; i < ssn->ndims; i++)
		out[i] = n->idle[i] + n->releasing[i] - n->pipelined[i];
}

bool sched_res_le(const struct sched_session *ssn, const double *a, const double *b)
{
	size_t i;

	for (i = 0; i < ssn->ndims; i++) {
		if (i >= 2 && a[i] == 0)
			continue;
		if (!(a[i] < b[i] || fabs(a[i] - b[i]) < VC_RESOURCE_MIN))
			return false;
	}
	return true;
}

bool sched_res_empty(const struct sched_session *ssn, const double *a)
{
	size_t i;

	for (i = 0; i < ssn->ndims; i++)
		if (a[i] >= VC_RESOURCE_MIN)
			return false;
	return true;
}

/* ---- gang counters --------------------------------------------------------------------------- */

uint32_t sched_ssn_job_nready(const struct sched_ssn_job *j)
{
	return j->count[SCHED_TASK_ALLOCATED] + j->count[SCHED_TASK_BINDING] +
	       j->count[SCHED_TASK_BOUND] + j->count[SCHED_TASK_RUNNING] +
	       j->count[SCHED_TASK_SUCCEEDED];
}

uint32_t sched_ssn_job_nwaiting(const struct sched_ssn_job *j)
{
	return j->count[SCHED_TASK_PIPELINED];
}

/* Per-role occupied counts (CheckTaskReady / CheckTaskPipelined): only when roles apply. */
static bool roles_ok(const struct sched_ssn_job *j, bool pipelined)
{
	const char *role;
	json_t *v;

	if (!j->roles_enforced)
		return true;
	json_object_foreach (j->j->min_task_member, role, v) {
		int64_t min = json_integer_value(v), n = 0;
		size_t i;

		if (!json_is_integer(v) || min <= 0)
			continue;
		for (i = 0; i < j->ntasks; i++) {
			const struct sched_task_info *t = j->tasks[i].t;
			enum sched_task_status s = t->status;

			if (strcmp(t->role, role) != 0)
				continue;
			if (sched_task_status_is_allocated(s) || s == SCHED_TASK_SUCCEEDED ||
			    (pipelined && s == SCHED_TASK_PIPELINED) ||
			    (s == SCHED_TASK_PENDING && t->best_effort))
				n++;
		}
		if (n < min)
			return false;
	}
	return true;
}

bool sched_ssn_job_gang_ready(const struct sched_ssn_job *j)
{
	return (int64_t)sched_ssn_job_nready(j) + j->pending_be >= j->j->min_member &&
	       roles_ok(j, false);
}

bool sched_ssn_job_gang_pipelined(const struct sched_ssn_job *j)
{
	return (int64_t)sched_ssn_job_nwaiting(j) + sched_ssn_job_nready(j) + j->pending_be >=
		       j->j->min_member &&
	       roles_ok(j, true);
}

/* ---- combination rules (docs/volcano/scheduler.md §1.4) -----------------------------------------
 */

/* One past the session's last plugin slot. */
static struct sched_plugin_slot *slots_end(const struct sched_session *ssn)
{
	return ssn->priv->slots + ssn->priv->nslots;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

int sched_ssn_job_order(struct sched_session *ssn, const struct sched_ssn_job *a,
			const struct sched_ssn_job *b)
{
	const struct sched_session_priv *p = ssn->priv;
	size_t i;
	int c;

	for (i = 0; i < p->njob_order; i++) {
		const struct sched_plugin_slot *s = p->job_order_slots[i];

		if ((c = s->cb.job_order(s->state, a, b)) != 0)
			return c;
	}
	if ((c = cmp_i64(a->created, b->created)) != 0)
		return c;
	return strcmp(a->j->uid, b->j->uid);
}

int sched_ssn_task_order(struct sched_session *ssn, const struct sched_ssn_task *a,
			 const struct sched_ssn_task *b)
{
	const struct sched_session_priv *p = ssn->priv;
	size_t i;
	int c;

	for (i = 0; i < p->ntask_order; i++) {
		const struct sched_plugin_slot *s = p->task_order_slots[i];

		if ((c = s->cb.task_order(s->state, a, b)) != 0)
			return c;
	}
	if (a->name_index >= 0 && b->name_index >= 0 && a->name_index != b->name_index)
		return cmp_i64(a->name_index, b->name_index);
	if ((c = cmp_i64(a->created, b->created)) != 0)
		return c;
	return strcmp(a->t->uid, b->t->uid);
}

int sched_ssn_queue_order(struct sched_session *ssn, const struct sched_ssn_queue *a,
			  const struct sched_ssn_queue *b)
{
	int c;

	for (struct sched_plugin_slot *s = ssn->priv->slots; s < slots_end(ssn); s++) {
		if (s->cb.queue_order && (c = s->cb.queue_order(s->state, a, b)) != 0)
			return c;
	}
	if ((c = cmp_i64(a->created, b->created)) != 0)
		return c;
	return strcmp(a->q->name, b->q->name);
}

bool sched_ssn_job_ready(struct sched_session *ssn, const struct sched_ssn_job *j)
{
	for (struct sched_plugin_slot *s = ssn->priv->slots; s < slots_end(ssn); s++) {
		if (s->cb.job_ready && !s->cb.job_ready(s->state, j))
			return false;
	}
	return true;
}

bool sched_ssn_job_pipelined(struct sched_session *ssn, const struct sched_ssn_job *j)
{
	size_t tier = SIZE_MAX;
	bool permit = false;

	for (struct sched_plugin_slot *s = ssn->priv->slots; s < slots_end(ssn); s++) {
		enum sched_vote v;

		if (s->tier != tier) {
			if (permit)
				return true;
			tier = s->tier;
		}
		if (!s->cb.job_pipelined)
			continue;
		v = s->cb.job_pipelined(s->state, j);
		if (v == SCHED_REJECT)
			return false;
		if (v == SCHED_PERMIT)
			permit = true;
	}
	return true;
}

bool sched_ssn_job_enqueueable(struct sched_session *ssn, const struct sched_ssn_job *j,
			       char **message)
{
	size_t tier = SIZE_MAX;
	bool permit = false;

	*message = NULL;
	for (struct sched_plugin_slot *s = ssn->priv->slots; s < slots_end(ssn); s++) {
		enum sched_vote v;
		char *msg = NULL;

		if (s->tier != tier) {
			if (permit)
				return true;
			tier = s->tier;
		}
		if (!s->cb.job_enqueueable)
			continue;
		v = s->cb.job_enqueueable(s->state, j, &msg);
		if (v == SCHED_REJECT) {
			*message = msg;
			return false;
		}
		vc_free(msg);
		if (v == SCHED_PERMIT)
			permit = true;
	}
	return true;
}

void sched_ssn_job_enqueued(struct sched_session *ssn, const struct sched_ssn_job *j)
{
	for (struct sched_plugin_slot *s = ssn->priv->slots; s < slots_end(ssn); s++) {
		if (s->cb.job_enqueued)
			s->cb.job_enqueued(s->state, j);
	}
}

bool sched_ssn_job_starving(struct sched_session *ssn, const struct sched_ssn_job *j)
{
	size_t tier = SIZE_MAX;
	bool any = false, all = true;

	for (struct sched_plugin_slot *s = ssn->priv->slots; s < slots_end(ssn); s++) {
		if (s->tier != tier) {
			if (any)
				return all;
			tier = s->tier;
		}
		if (!s->cb.job_starving)
			continue;
		any = true;
		if (!s->cb.job_starving(s->state, j))
			all = false;
	}
	return any && all;
}

void sched_ssn_job_valid(struct sched_session *ssn, const struct sched_ssn_job *j,
			 struct gang_validity *out)
{
	out->valid = true;
	out->reason = NULL;
	out->message[0] = '\0';
	for (struct sched_plugin_slot *s = ssn->priv->slots; s < slots_end(ssn); s++) {
		if (!s->cb.job_valid)
			continue;
		s->cb.job_valid(s->state, j, out);
		if (!out->valid)
			return;
	}
}

bool sched_ssn_allocatable(struct sched_session *ssn, const struct sched_ssn_queue *q,
			   const struct sched_ssn_task *t)
{
	for (struct sched_plugin_slot *s = ssn->priv->slots; s < slots_end(ssn); s++) {
		if (s->cb.allocatable && !s->cb.allocatable(s->state, q, t))
			return false;
	}
	return true;
}

bool sched_ssn_overused(struct sched_session *ssn, const struct sched_ssn_queue *q)
{
	for (struct sched_plugin_slot *s = ssn->priv->slots; s < slots_end(ssn); s++) {
		if (s->cb.overused && s->cb.overused(s->state, q))
			return true;
	}
	return false;
}

bool sched_ssn_preemptive(struct sched_session *ssn, const struct sched_ssn_queue *q,
			  const struct sched_ssn_task *t)
{
	for (struct sched_plugin_slot *s = ssn->priv->slots; s < slots_end(ssn); s++) {
		if (s->cb.preemptive && !s->cb.preemptive(s->state, q, t))
			return false;
	}
	return true;
}

static int run_predicates(struct sched_plugin_slot *const *slots, size_t nslots, bool pods,
			  const struct sched_ssn_task *t, const struct sched_ssn_node *n,
			  struct pred_result *out, bool *unresolvable)
{
	size_t i;

	out->fit = true;
	out->reason[0] = '\0';
	*unresolvable = false;
	for (i = 0; i < nslots; i++) {
		struct sched_plugin_slot *s = slots[i];
		int rc = pods ? s->cb.predicate_pods(s->state, t, n, out, unresolvable)
			      : s->cb.predicate(s->state, t, n, out, unresolvable);

		if (rc < 0)
			return rc;
		if (!out->fit)
			return 0;
	}
	return 0;
}

int sched_ssn_predicate_class(struct sched_session *ssn, const struct sched_ssn_task *t,
			      const struct sched_ssn_node *n, struct pred_result *out,
			      bool *unresolvable)
{
	return run_predicates(ssn->priv->pred_slots, ssn->priv->npred, false, t, n, out,
			      unresolvable);
}

int sched_ssn_predicate_pods(struct sched_session *ssn, const struct sched_ssn_task *t,
			     const struct sched_ssn_node *n, struct pred_result *out,
			     bool *unresolvable)
{
	return run_predicates(ssn->priv->pred_pods_slots, ssn->priv->npred_pods, true, t, n, out,
			      unresolvable);
}

int sched_ssn_predicate(struct sched_session *ssn, const struct sched_ssn_task *t,
			const struct sched_ssn_node *n, struct pred_result *out, bool *unresolvable)
{
	int rc = sched_ssn_predicate_class(ssn, t, n, out, unresolvable);

	if (rc < 0 || !out->fit || ssn->priv->npred_pods == 0)
		return rc;
	return sched_ssn_predicate_pods(ssn, t, n, out, unresolvable);
}

void sched_ssn_batch_scores(struct sched_session *ssn, const struct sched_ssn_task *t,
			    const uint32_t *nodes, size_t n, double *scores)
{
	struct sched_session_priv *p = ssn->priv;
	size_t i;

	for (i = 0; i < p->nbatch; i++)
		p->batch_slots[i]->cb.batch_node_order(p->batch_slots[i]->state, t, nodes, n,
						       scores);
}

struct sched_podaff *sched_ssn_podaff(const struct sched_session *ssn)
{
	return ssn->priv->podaff;
}

/* sched_ssn_node_score is in sched_select.c, next to its cache. */

static size_t victims(struct sched_session *ssn, const struct sched_ssn_task *preemptor,
		      struct sched_ssn_task *const *cands, size_t n, bool *keep, bool reclaim)
{
	bool voted = false;
	size_t i, kept = 0;

	for (i = 0; i < n; i++)
		keep[i] = true;
	for (struct sched_plugin_slot *s = ssn->priv->slots; s < slots_end(ssn); s++) {
		enum sched_vote v = SCHED_ABSTAIN;

		if (reclaim && s->cb.reclaimable)
			v = s->cb.reclaimable(s->state, preemptor, cands, n, keep);
		else if (!reclaim && s->cb.preemptable)
			v = s->cb.preemptable(s->state, preemptor, cands, n, keep);
		if (v != SCHED_ABSTAIN)
			voted = true;
	}
	for (i = 0; i < n; i++) {
		if (!voted)
			keep[i] = false;
		kept += keep[i];
	}
	return kept;
}

size_t sched_ssn_preemptable(struct sched_session *ssn, const struct sched_ssn_task *preemptor,
			     struct sched_ssn_task *const *cands, size_t n, bool *keep)
{
	return victims(ssn, preemptor, cands, n, keep, false);
}

size_t sched_ssn_reclaimable(struct sched_session *ssn, const struct sched_ssn_task *reclaimer,
			     struct sched_ssn_task *const *cands, size_t n, bool *keep)
{
	return victims(ssn, reclaimer, cands, n, keep, true);
}

/* ---- heaps, sorting, comparators ------------------------------------------------------------- */

int sched_heap_init(struct sched_heap *h, size_t cap, sched_cmp_fn cmp, struct sched_session *ssn)
{
	h->n = 0;
	h->cap = cap;
	h->cmp = cmp;
	h->ssn = ssn;
	h->items = vc_malloc((cap ? cap : 1) * sizeof(void *));
	return h->items ? 0 : VC_ENOMEM;
}

void sched_heap_release(struct sched_heap *h)
{
	vc_free(h->items);
	h->items = NULL;
	h->n = h->cap = 0;
}

void sched_heap_push(struct sched_heap *h, void *item)
{
	size_t i;

	if (h->n == h->cap)
		return;
	i = h->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (h->cmp(h->ssn, item, h->items[parent]) >= 0)
			break;
		h->items[i] = h->items[parent];
		i = parent;
	}
	h->items[i] = item;
}

void *sched_heap_pop(struct sched_heap *h)
{
	void *top, *last;
	size_t i = 0;

	if (h->n == 0)
		return NULL;
	top = h->items[0];
	last = h->items[--h->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m;

		if (l >= h->n)
			break;
		m = r < h->n && h->cmp(h->ssn, h->items[r], h->items[l]) < 0 ? r : l;
		if (h->cmp(h->ssn, h->items[m], last) >= 0)
			break;
		h->items[i] = h->items[m];
		i = m;
	}
	if (h->n > 0)
		h->items[i] = last;
	return top;
}

void sched_sort(struct sched_session *ssn, void **items, size_t n, void **tmp, sched_cmp_fn cmp)
{
	size_t width, i;

	/* Bottom-up merge sort: stable, no recursion, no allocation. */
	for (width = 1; width < n; width *= 2) {
		for (i = 0; i < n; i += 2 * width) {
			size_t lo = i, mid = i + width < n ? i + width : n;
			size_t hi = i + 2 * width < n ? i + 2 * width : n;
			size_t a = lo, b = mid, k = lo;

			while (a < mid && b < hi)
				tmp[k++] =
					cmp(ssn, items[b], items[a]) < 0 ? items[b++] : items[a++];
			while (a < mid)
				tmp[k++] = items[a++];
			while (b < hi)
				tmp[k++] = items[b++];
		}
		memcpy(items, tmp, n * sizeof(void *));
	}
}

int sched_cmp_jobs(struct sched_session *ssn, const void *a, const void *b)
{
	return sched_ssn_job_order(ssn, a, b);
}

int sched_cmp_queues(struct sched_session *ssn, const void *a, const void *b)
{
	return sched_ssn_queue_order(ssn, a, b);
}

int sched_cmp_tasks(struct sched_session *ssn, const void *a, const void *b)
{
	return sched_ssn_task_order(ssn, a, b);
}

int sched_cmp_victims(struct sched_session *ssn, const void *pa, const void *pb)
{
	const struct sched_ssn_task *a = pa, *b = pb;
	const struct sched_ssn_task *p = ssn->priv->victim_preemptor;
	const struct sched_ssn_job *ja = a->job, *jb = b->job;

	if (ja == jb)
		return -sched_ssn_task_order(ssn, a, b);
	/* Orphans (no job in the session) first. */
	if (!ja || !jb)
		return ja ? 1 : -1;
	if (ja->queue != jb->queue && p && ja->queue && jb->queue) {
		const struct sched_ssn_queue *pq = p->job ? p->job->queue : NULL;
		int c;

		for (struct sched_plugin_slot *s = ssn->priv->slots; pq && s < slots_end(ssn); s++)
			if (s->cb.victim_queue_order &&
			    (c = s->cb.victim_queue_order(s->state, ja->queue, jb->queue, pq)) != 0)
				return c;
		return -sched_ssn_queue_order(ssn, ja->queue, jb->queue);
	}
	return -sched_ssn_job_order(ssn, ja, jb);
}
