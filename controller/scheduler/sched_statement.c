/*
 * sched_statement.c - session operations and the per-job transaction (docs/volcano/scheduler.md
 * §1.2, §1.5).
 *
 * Every operation changes the session at once (task status, job counters, node accounting)
 * and tells the plugins (on_allocate / on_deallocate) so that shares move; a statement records
 * the operations so that Discard can undo them in reverse order. Nothing here allocates except
 * a statement growing its operation list.
 */
#include "sched_internal.h"

#include "sched_podaff.h"
#include "sched_volume.h"

#include "vc_alloc.h"

void sched_ssn_set_status(struct sched_session *ssn, struct sched_ssn_task *t,
			  enum sched_task_status s)
{
	struct sched_ssn_job *j = t->job;
	enum sched_task_status old = t->t->status;
	bool was = sched_task_status_is_allocated(old), now = sched_task_status_is_allocated(s);
	size_t d;

	if (old == s)
		return;
	if (j) {
		j->count[old]--;
		j->count[s]++;
		if (t->t->best_effort && !t->gated) {
			if (old == SCHED_TASK_PENDING)
				j->pending_be--;
			if (s == SCHED_TASK_PENDING)
				j->pending_be++;
		}
		if (was != now)
			for (d = 0; d < ssn->ndims; d++)
				j->alloc[d] += now ? t->req[d] : -t->req[d];
	}
	t->t->status = s;
}

static void fire(struct sched_session *ssn, const struct sched_ssn_task *t, bool allocate)
{
	struct sched_plugin_slot *s;

	if (ssn->priv->podaff)
		sched_podaff_update(ssn->priv->podaff, t, allocate);
	if (ssn->priv->vol)
		sched_vol_update(ssn->priv->vol, t, allocate);
	for (s = ssn->priv->slots; s < ssn->priv->slots + ssn->priv->nslots; s++) {
		if (allocate && s->cb.on_allocate)
			s->cb.on_allocate(s->state, t);
		else if (!allocate && s->cb.on_deallocate)
			s->cb.on_deallocate(s->state, t);
	}
}

/* Put t on node (its status already set): Volcano's NodeInfo.AddTask. */
static int node_add(struct sched_session *ssn, struct sched_ssn_task *t, uint32_t node)
{
	struct sched_ssn_node *n = &ssn->nodes[node];
	struct sched_node_info *m = n->n;
	enum sched_task_status s = t->t->status;
	size_t d;

	if (m->ntasks == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 8;
		struct sched_task_info **p =
			vc_realloc(m->tasks, ncap * sizeof(struct sched_task_info *));

		if (!p)
			return VC_ENOMEM;
		m->tasks = p;
		m->cap = ncap;
	}
	t->pod_index = (int32_t)m->ntasks;
	m->tasks[m->ntasks++] = t->t;
	t->node = node;
	sched_node_changed(ssn, n);
	if (s == SCHED_TASK_PIPELINED) {
		for (d = 0; d < ssn->ndims; d++)
			n->pipelined[d] += t->req[d];
		return 0;
	}
	for (d = 0; d < ssn->ndims; d++) {
		n->idle[d] -= t->req[d];
		n->used[d] += t->req[d];
	}
	if (s == SCHED_TASK_RELEASING)
		for (d = 0; d < ssn->ndims; d++)
			n->releasing[d] += t->req[d];
	n->nz_cpu += t->req[0] > 0 ? t->req[0] : SCHED_DEFAULT_MILLI_CPU;
	n->nz_mem += t->req[1] > 0 ? t->req[1] : SCHED_DEFAULT_MEMORY;
	return 0;
}

/* Take t (in its current status) off its node. */
static void node_remove(struct sched_session *ssn, struct sched_ssn_task *t)
{
	struct sched_ssn_node *n = &ssn->nodes[t->node];
	struct sched_node_info *m = n->n;
	enum sched_task_status s = t->t->status;
	size_t d, idx = (size_t)t->pod_index;

	if (idx < m->ntasks && m->tasks[idx] == t->t) {
		struct sched_task_info *last = m->tasks[m->ntasks - 1];

		m->tasks[idx] = last;
		if (last->ssn)
			last->ssn->pod_index = (int32_t)idx;
		m->ntasks--;
	}
	t->pod_index = -1;
	t->node = SCHED_NONE;
	sched_node_changed(ssn, n);
	if (s == SCHED_TASK_PIPELINED) {
		for (d = 0; d < ssn->ndims; d++)
			n->pipelined[d] -= t->req[d];
		return;
	}
	for (d = 0; d < ssn->ndims; d++) {
		n->idle[d] += t->req[d];
		n->used[d] -= t->req[d];
	}
	if (s == SCHED_TASK_RELEASING)
		for (d = 0; d < ssn->ndims; d++)
			n->releasing[d] -= t->req[d];
	n->nz_cpu -= t->req[0] > 0 ? t->req[0] : SCHED_DEFAULT_MILLI_CPU;
	n->nz_mem -= t->req[1] > 0 ? t->req[1] : SCHED_DEFAULT_MEMORY;
}

/* Pending -> Allocated/Pipelined on node. */
static int place(struct sched_session *ssn, struct sched_ssn_task *t, uint32_t node,
		 enum sched_task_status s)
{
	enum sched_task_status old = t->t->status;
	int rc;

	sched_ssn_set_status(ssn, t, s);
	rc = node_add(ssn, t, node);
	if (rc < 0) {
		sched_ssn_set_status(ssn, t, old);
		return rc;
	}
	t->has_last = false;
	fire(ssn, t, true);
	return 0;
}

static void unplace(struct sched_session *ssn, struct sched_ssn_task *t)
{
	t->has_last = true;
	t->last_status = t->t->status;
	t->last_node = t->node;
	node_remove(ssn, t);
	sched_ssn_set_status(ssn, t, SCHED_TASK_PENDING);
	fire(ssn, t, false);
}

/* Running/Bound -> Releasing (node: used stays, releasing grows). */
static void evict(struct sched_session *ssn, struct sched_ssn_task *t)
{
	struct sched_ssn_node *n = &ssn->nodes[t->node];
	size_t d;

	sched_ssn_set_status(ssn, t, SCHED_TASK_RELEASING);
	n->nevicted++;
	sched_node_changed(ssn, n);
	for (d = 0; d < ssn->ndims; d++)
		n->releasing[d] += t->req[d];
	fire(ssn, t, false);
}

static void unevict(struct sched_session *ssn, struct sched_ssn_task *t)
{
	struct sched_ssn_node *n = &ssn->nodes[t->node];
	size_t d;

	sched_ssn_set_status(ssn, t, SCHED_TASK_RUNNING);
	n->nevicted--;
	sched_node_changed(ssn, n);
	for (d = 0; d < ssn->ndims; d++)
		n->releasing[d] -= t->req[d];
	fire(ssn, t, true);
}

void sched_ssn_dispatch(struct sched_session *ssn, struct sched_ssn_task *t)
{
	struct sched_result *r = ssn->priv->res;

	sched_ssn_set_status(ssn, t, SCHED_TASK_BINDING);
	if (r->nbinds < r->binds_cap) {
		r->binds[r->nbinds].task = t->t;
		r->binds[r->nbinds].node = ssn->nodes[t->node].n->name;
		r->binds[r->nbinds].vols =
			ssn->priv->vol ? sched_vol_plan_of(ssn->priv->vol, t) : NULL;
		r->nbinds++;
		if (ssn->snap->on_bind && !ssn->priv->vol)
			ssn->snap->on_bind(ssn->snap->on_bind_ctx, &r->binds[r->nbinds - 1]);
	}
}

int sched_ssn_allocate(struct sched_session *ssn, struct sched_ssn_task *t, uint32_t node)
{
	struct sched_ssn_job *j = t->job;
	size_t i;
	int rc = place(ssn, t, node, SCHED_TASK_ALLOCATED);

	if (rc < 0)
		return rc;
	if (j && sched_ssn_job_ready(ssn, j))
		for (i = 0; i < j->ntasks; i++)
			if (j->tasks[i].t->status == SCHED_TASK_ALLOCATED)
				sched_ssn_dispatch(ssn, &j->tasks[i]);
	return 0;
}

/* ---- statements --------------------------------------------------------------------------- */

void sched_stmt_init(struct sched_stmt *s)
{
	memset(s, 0, sizeof(*s));
}

void sched_stmt_release(struct sched_stmt *s)
{
	vc_free(s->ops);
	memset(s, 0, sizeof(*s));
}

static int reserve(struct sched_stmt *s, size_t more)
{
	if (s->n + more > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 16;
		struct sched_op *p;

		while (ncap < s->n + more)
			ncap *= 2;
		p = vc_realloc(s->ops, ncap * sizeof(*p));
		if (!p)
			return VC_ENOMEM;
		s->ops = p;
		s->cap = ncap;
	}
	return 0;
}

static int record(struct sched_stmt *s, enum sched_op_kind kind, struct sched_ssn_task *t,
		  const char *reason)
{
	int rc = reserve(s, 1);

	if (rc < 0)
		return rc;
	s->ops[s->n].kind = kind;
	s->ops[s->n].task = t;
	s->ops[s->n].reason = reason;
	s->n++;
	return 0;
}

int sched_stmt_allocate(struct sched_session *ssn, struct sched_stmt *s, struct sched_ssn_task *t,
			uint32_t node)
{
	int rc = reserve(s, 1);

	if (rc == 0)
		rc = place(ssn, t, node, SCHED_TASK_ALLOCATED);
	if (rc == 0) {
		t->eviction_occurred = false;
		rc = record(s, SCHED_OP_ALLOCATE, t, NULL);
	}
	return rc;
}

int sched_stmt_pipeline(struct sched_session *ssn, struct sched_stmt *s, struct sched_ssn_task *t,
			uint32_t node, bool eviction_occurred)
{
	int rc = reserve(s, 1);

	if (rc == 0)
		rc = place(ssn, t, node, SCHED_TASK_PIPELINED);
	if (rc == 0) {
		t->eviction_occurred = eviction_occurred;
		rc = record(s, SCHED_OP_PIPELINE, t, NULL);
	}
	return rc;
}

int sched_stmt_evict(struct sched_session *ssn, struct sched_stmt *s, struct sched_ssn_task *t,
		     const char *reason)
{
	int rc = reserve(s, 1);

	if (rc < 0)
		return rc;
	evict(ssn, t);
	return record(s, SCHED_OP_EVICT, t, reason);
}

void sched_stmt_commit(struct sched_session *ssn, struct sched_stmt *s)
{
	struct sched_result *r = ssn->priv->res;
	size_t i;

	for (i = 0; i < s->n; i++) {
		struct sched_op *op = &s->ops[i];

		switch (op->kind) {
		case SCHED_OP_ALLOCATE:
			if (op->task->t->status == SCHED_TASK_ALLOCATED)
				sched_ssn_dispatch(ssn, op->task);
			sched_metrics_task_stage(sched_ssn_metrics(ssn), SCHED_STAGE_ASSUMED,
						 op->task->created);
			break;
		case SCHED_OP_EVICT:
			sched_metrics_evicted(sched_ssn_metrics(ssn), op->reason);
			if (r->nevicts < r->evicts_cap) {
				r->evicts[r->nevicts].task = op->task->t;
				r->evicts[r->nevicts].reason = op->reason;
				r->nevicts++;
			}
			break;
		case SCHED_OP_PIPELINE:
		default:
			break;
		}
	}
	s->n = 0;
}

void sched_stmt_discard(struct sched_session *ssn, struct sched_stmt *s)
{
	while (s->n > 0) {
		struct sched_op *op = &s->ops[--s->n];

		switch (op->kind) {
		case SCHED_OP_EVICT:
			unevict(ssn, op->task);
			break;
		case SCHED_OP_ALLOCATE:
		case SCHED_OP_PIPELINE:
		default:
			unplace(ssn, op->task);
			break;
		}
	}
}

int sched_stmt_merge(struct sched_stmt *dst, struct sched_stmt *src)
{
	int rc = reserve(dst, src->n);

	if (rc < 0)
		return rc;
	if (src->n)
		memcpy(dst->ops + dst->n, src->ops, src->n * sizeof(*src->ops));
	dst->n += src->n;
	src->n = 0;
	return 0;
}
