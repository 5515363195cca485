/*
 * sched_session_close.c - what a cycle decided, computed when the session closes
 * (docs/volcano/scheduler.md docs/volcano/scheduler.md §1.8): job fit errors, gang conditions,
 * PodGroup phases and counts, pod conditions, queue allocations, the write-back into the model; and
 * releasing a result.
 */
#include "sched_internal.h"

#include "sched_volume.h"

#include "vc_alloc.h"
#include "vc_str.h"

/* ---- results -----------------------------------------------------------------------------------
 */

void sched_result_release(struct sched_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->njobs; i++) {
		json_decref(r->jobs[i].conditions);
		vc_free(r->jobs[i].fit_error);
		vc_free(r->jobs[i].event_message);
		vc_free(r->jobs[i].reject_message);
	}
	for (i = 0; i < r->ntasks; i++) {
		vc_free(r->tasks[i].message);
		vc_free(r->tasks[i].nominated_node);
	}
	for (i = 0; i < r->nqueues; i++)
		vc_resource_release(&r->queues[i].allocated);
	for (i = 0; i < r->nbinds; i++)
		sched_vol_plan_free(r->binds[i].vols);
	vc_free(r->binds);
	vc_free(r->evicts);
	vc_free(r->jobs);
	vc_free(r->tasks);
	vc_free(r->queues);
	memset(r, 0, sizeof(*r));
}

/* ---- session close (docs/volcano/scheduler.md §1.8)
 * ------------------------------------------------------------------------ */

static int cmp_hist(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append "<v> <k>" items sorted as strings and joined by ", " (keys are short names). */
static int add_hist(struct vc_buf *b, const char *const *keys, const uint32_t *vals, size_t n)
{
	char text[SCHED_TASK_STATUS_COUNT + 4][48];
	char *items[SCHED_TASK_STATUS_COUNT + 4] = { 0 };
	size_t i, m = 0;
	int rc = 0;

	for (i = 0; i < n && m < sizeof(items) / sizeof(items[0]); i++) {
		if (!vals[i] && strcmp(keys[i], "minAvailable") != 0)
			continue;
		snprintf(text[m], sizeof(text[m]), "%u %s", vals[i], keys[i]);
		items[m] = text[m];
		m++;
	}
	qsort(items, m, sizeof(items[0]), cmp_hist);
	for (i = 0; i < m && rc == 0; i++) {
		if (i)
			rc = vc_buf_adds(b, ", ");
		if (rc == 0)
			rc = vc_buf_adds(b, items[i]);
	}
	return rc;
}

/* The reason a Pending task's condition gets (TaskSchedulingReason): Schedulable or not. */
static bool pending_schedulable(const struct sched_ssn_task *t)
{
	return t->has_last && t->last_status == SCHED_TASK_ALLOCATED;
}

/* Volcano's JobInfo.FitError (docs/volcano/scheduler.md §1.8): a new string or NULL. */
static char *job_fit_error(struct sched_session *ssn, const struct sched_ssn_job *j, bool ready)
{
	const char *keys[SCHED_TASK_STATUS_COUNT + 1];
	uint32_t vals[SCHED_TASK_STATUS_COUNT + 1];
	struct vc_buf *b = &ssn->priv->text;
	size_t i, n = 0;
	uint32_t sched = 0, unsched = 0;
	int rc;

	vc_buf_reset(b);
	for (i = 0; i < SCHED_TASK_STATUS_COUNT; i++) {
		keys[n] = sched_task_status_name((enum sched_task_status)i);
		vals[n++] = j->count[i];
	}
	keys[n] = "minAvailable";
	vals[n++] = (uint32_t)(j->j->min_member > 0 ? j->j->min_member : 0);
	rc = vc_buf_adds(b, ready ? "pod group is ready, " : "pod group is not ready, ");
	if (rc == 0)
		rc = add_hist(b, keys, vals, n);
	for (i = 0; i < j->ntasks; i++) {
		if (j->tasks[i].t->status != SCHED_TASK_PENDING)
			continue;
		if (pending_schedulable(&j->tasks[i]))
			sched++;
		else
			unsched++;
	}
	if (rc == 0 && sched + unsched > 0) {
		const char *k2[2] = { "Schedulable", "Unschedulable" };
		uint32_t v2[2] = { sched, unsched };

		rc = vc_buf_adds(b, "; Pending: ");
		if (rc == 0)
			rc = add_hist(b, k2, v2, 2);
	}
	for (i = 0; i < j->ntasks && rc == 0; i++) {
		const struct sched_ssn_task *t = &j->tasks[i];

		if (!t->fit)
			continue;
		rc = vc_buf_addf(b, ". Origin reason is %s: ", t->t->name);
		if (rc == 0)
			rc = sched_fit_format(ssn, t->fit, b);
		break;
	}
	return rc < 0 ? NULL : vc_strdup(vc_buf_str(b));
}

/* A PodGroup condition object. */
static json_t *condition(const char *type, const char *uid, const char *now, const char *reason,
			 const char *message)
{
	json_t *c = json_object();

	if (!c)
		return NULL;
	if (json_object_set_new(c, "type", json_string(type)) < 0 ||
	    json_object_set_new(c, "status", json_string("True")) < 0 ||
	    json_object_set_new(c, "transitionID", json_string(uid ? uid : "")) < 0 ||
	    json_object_set_new(c, "lastTransitionTime", json_string(now ? now : "")) < 0 ||
	    json_object_set_new(c, "reason", json_string(reason)) < 0 ||
	    (message[0] && json_object_set_new(c, "message", json_string(message)) < 0)) {
		json_decref(c);
		return NULL;
	}
	return c;
}

/* Replace the condition of c's type in arr (or append). Steals c. */
static int put_condition(json_t *arr, json_t *c)
{
	const char *type = json_string_value(json_object_get(c, "type"));
	size_t i;

	for (i = 0; i < json_array_size(arr); i++) {
		const char *t = json_string_value(json_object_get(json_array_get(arr, i), "type"));

		if (t && strcmp(t, type) == 0)
			return json_array_set_new(arr, i, c) < 0 ? VC_ENOMEM : 0;
	}
	return json_array_append_new(arr, c) < 0 ? VC_ENOMEM : 0;
}

static int push_task_result(struct sched_result *r, struct sched_task_info *t, const char *reason,
			    char *message, const char *nominated)
{
	struct sched_task_result *tr;

	if (r->ntasks == r->tasks_cap) {
		size_t ncap = r->tasks_cap ? r->tasks_cap * 2 : 16;
		struct sched_task_result *p = vc_realloc(r->tasks, ncap * sizeof(*p));

		if (!p)
			goto nomem;
		r->tasks = p;
		r->tasks_cap = ncap;
	}
	tr = &r->tasks[r->ntasks];
	tr->task = t;
	tr->reason = reason;
	tr->message = message;
	tr->nominated_node = NULL;
	if (nominated && !(tr->nominated_node = vc_strdup(nominated)))
		goto nomem;
	r->ntasks++;
	return 0;
nomem:
	vc_free(message);
	return VC_ENOMEM;
}

/* docs/volcano/scheduler.md §1.8 item 5: the pod conditions of a job's Allocated, Pending and
 * Pipelined tasks. */
static int task_conditions(struct sched_session *ssn, struct sched_ssn_job *j)
{
	struct sched_result *r = ssn->priv->res;
	size_t i;

	for (i = 0; i < j->ntasks; i++) {
		struct sched_ssn_task *t = &j->tasks[i];
		enum sched_task_status st = t->t->status, ctx = st;
		uint32_t node = t->node;
		const char *reason = "Unschedulable", *nominated = NULL;
		char *msg = NULL;
		int rc;

		if (st != SCHED_TASK_ALLOCATED && st != SCHED_TASK_PENDING &&
		    st != SCHED_TASK_PIPELINED)
			continue;
		if (t->gated)
			continue;
		if (t->has_last) {
			ctx = t->last_status;
			node = t->last_node;
		}
		if (ctx == SCHED_TASK_ALLOCATED && node != SCHED_NONE) {
			reason = "Schedulable";
			msg = vc_asprintf("Pod %s/%s can possibly be assigned to %s, once "
					  "minAvailable is satisfied",
					  t->t->ns, t->t->name, ssn->nodes[node].n->name);
		} else if (ctx == SCHED_TASK_PIPELINED && node != SCHED_NONE) {
			msg = vc_asprintf("Pod %s/%s can possibly be assigned to %s, once resource "
					  "is released and minAvailable is satisfied",
					  t->t->ns, t->t->name, ssn->nodes[node].n->name);
			if (t->eviction_occurred)
				nominated = ssn->nodes[node].n->name;
		} else if (t->fit) {
			vc_buf_reset(&ssn->priv->text);
			if (sched_fit_format(ssn, t->fit, &ssn->priv->text) < 0)
				return VC_ENOMEM;
			msg = vc_strdup(vc_buf_str(&ssn->priv->text));
		} else {
			msg = vc_strdup(j->fit_error_msg ? j->fit_error_msg
							 : "all nodes are unavailable");
		}
		if (!msg)
			return VC_ENOMEM;
		rc = push_task_result(r, t->t, reason, msg, nominated);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int job_result(struct sched_session *ssn, struct sched_ssn_job *j)
{
	struct sched_result *r = ssn->priv->res;
	const struct vc_podgroup *pg = j->j->pg;
	struct sched_job_result *jr;
	json_t *conds;
	bool ready = sched_ssn_job_gang_ready(j), unsched_now = false;
	uint32_t scheduled, completed;
	enum vc_pg_phase phase;
	size_t i;
	int rc;

	if (r->njobs == r->jobs_cap)
		return VC_ENOMEM; /* sized at open: cannot happen */
	jr = &r->jobs[r->njobs];
	memset(jr, 0, sizeof(*jr));
	jr->job = j->j;
	/*
	 * A shallow copy: the cached conditions are immutable and put_condition replaces
	 * elements, it never changes one.
	 */
	conds = json_array();
	if (!conds)
		return VC_ENOMEM;
	jr->conditions = conds;
	r->njobs++;
	if (pg && json_is_array(pg->conditions))
		for (i = 0; i < json_array_size(pg->conditions); i++)
			if (json_array_append(conds, json_array_get(pg->conditions, i)) < 0)
				return VC_ENOMEM;

	/* 1. gang's conditions (jobs with tasks only). */
	if (ssn->priv->gang_configured && j->ntasks > 0) {
		json_t *c;

		if (!ready) {
			uint32_t schedulable = sched_ssn_job_nready(j), releasing = 0;
			int64_t unready;

			for (i = 0; i < j->ntasks; i++) {
				const struct sched_ssn_task *t = &j->tasks[i];

				if (t->t->status == SCHED_TASK_PENDING && pending_schedulable(t))
					schedulable++;
				if (t->t->status == SCHED_TASK_RELEASING && t->node != SCHED_NONE)
					releasing++;
			}
			unready = (int64_t)j->j->min_member - schedulable;
			sched_metrics_job_unschedulable(sched_ssn_metrics(ssn), j->j->name, unready,
							true);
			/* A shortfall of pods still terminating on their nodes is not news. */
			if (unready > 0 && unready <= (int64_t)releasing) {
				c = NULL;
			} else {
				jr->fit_error = job_fit_error(ssn, j, false);
				if (!jr->fit_error)
					return VC_ENOMEM;
				j->fit_error_msg =
					vc_asprintf("%lld/%zu tasks in gang unschedulable: %s",
						    (long long)unready, j->ntasks, jr->fit_error);
				if (!j->fit_error_msg)
					return VC_ENOMEM;
				c = condition("Unschedulable", ssn->uid, ssn->now,
					      "NotEnoughResources", j->fit_error_msg);
				if (!c)
					return VC_ENOMEM;
				unsched_now = true;
			}
		} else {
			sched_metrics_job_unschedulable(sched_ssn_metrics(ssn), j->j->name, 0,
							false);
			/* The same for every ready job of the session: one shared object. */
			if (!ssn->priv->scheduled_cond)
				ssn->priv->scheduled_cond =
					condition("Scheduled", ssn->uid, ssn->now,
						  "tasks in gang are ready to be scheduled", "");
			if (!ssn->priv->scheduled_cond)
				return VC_ENOMEM;
			c = json_incref(ssn->priv->scheduled_cond);
		}
		if (c && (rc = put_condition(conds, c)) < 0)
			return rc;
	}

	/* 2. the phase. */
	scheduled = j->count[SCHED_TASK_RUNNING] + j->count[SCHED_TASK_BOUND] +
		    j->count[SCHED_TASK_FAILED] + j->count[SCHED_TASK_SUCCEEDED];
	for (i = 0; i < j->ntasks; i++)
		if (j->tasks[i].t->status == SCHED_TASK_RELEASING && j->tasks[i].node != SCHED_NONE)
			scheduled++;
	completed = j->count[SCHED_TASK_FAILED] + j->count[SCHED_TASK_SUCCEEDED];
	if (j->count[SCHED_TASK_RUNNING] > 0 && unsched_now)
		phase = VC_PG_UNKNOWN;
	else if ((int64_t)scheduled >= j->j->min_member)
		phase = scheduled == completed ? VC_PG_COMPLETED : VC_PG_RUNNING;
	else if (j->j->phase != VC_PG_INQUEUE)
		phase = VC_PG_PENDING;
	else
		phase = VC_PG_INQUEUE;
	j->j->phase = phase;
	jr->phase = phase;
	jr->running = (int32_t)j->count[SCHED_TASK_RUNNING];
	jr->succeeded = (int32_t)j->count[SCHED_TASK_SUCCEEDED];
	jr->failed = (int32_t)j->count[SCHED_TASK_FAILED];

	/* 4. the event, and the job's FitError. */
	if (!jr->fit_error && (!ready || phase == VC_PG_PENDING || phase == VC_PG_INQUEUE ||
			       phase == VC_PG_UNKNOWN)) {
		jr->fit_error = job_fit_error(ssn, j, ready);
		if (!jr->fit_error)
			return VC_ENOMEM;
	}
	if (phase == VC_PG_PENDING || phase == VC_PG_INQUEUE || phase == VC_PG_UNKNOWN) {
		jr->event_type = "Warning";
		jr->event_reason = "Unschedulable";
		jr->event_message =
			vc_asprintf("%u/%zu tasks in gang unschedulable: %s",
				    j->count[SCHED_TASK_PENDING], j->ntasks, jr->fit_error);
	} else {
		jr->event_type = "Normal";
		jr->event_reason = "Scheduled";
		jr->event_message = vc_strdup("pod group is ready");
	}
	if (!jr->event_message)
		return VC_ENOMEM;
	jr->reject_message = j->enqueue_msg;
	j->enqueue_msg = NULL;
	return task_conditions(ssn, j);
}

int sched_ssn_to_resource(const struct sched_session *ssn, const double *v, struct vc_resource *r)
{
	size_t d;

	r->milli_cpu = v[0];
	r->memory = v[1];
	for (d = 2; d < ssn->ndims; d++) {
		if (v[d] == 0 && !vc_resource_has_scalar(r, ssn->dims[d]))
			continue;
		if (vc_resource_set_scalar(r, ssn->dims[d], v[d]) < 0)
			return VC_ENOMEM;
	}
	return 0;
}

static int queue_results(struct sched_session *ssn)
{
	struct sched_result *r = ssn->priv->res;
	const struct sched_ssn_queue *root = sched_ssn_find_queue(ssn, "root");
	double *sum;
	size_t i, d, nd = ssn->ndims;
	int rc = 0;

	sum = vc_calloc(ssn->nqueues * nd + 1, sizeof(double));
	if (!sum)
		return VC_ENOMEM;
	for (i = 0; i < ssn->njobs; i++) {
		const struct sched_ssn_job *j = &ssn->jobs[i];

		if (!j->queue)
			continue;
		for (d = 0; d < nd; d++)
			sum[j->queue->index * nd + d] += j->alloc[d];
	}
	if (root) {
		/* Roll every queue's own allocation up to its ancestors. */
		double *own = vc_malloc((ssn->nqueues * nd + 1) * sizeof(double));

		if (!own) {
			vc_free(sum);
			return VC_ENOMEM;
		}
		memcpy(own, sum, ssn->nqueues * nd * sizeof(double));
		for (i = 0; i < ssn->nqueues; i++) {
			const struct sched_ssn_queue *q = &ssn->queues[i];
			int depth;

			for (depth = 0; q != root && depth < 32; depth++) {
				const char *parent = q->q->queue && q->q->queue->parent[0]
							     ? q->q->queue->parent
							     : "root";
				const struct sched_ssn_queue *pq =
					sched_ssn_find_queue(ssn, parent);

				if (!pq || pq == &ssn->queues[i])
					break;
				for (d = 0; d < nd; d++)
					sum[pq->index * nd + d] += own[i * nd + d];
				q = pq;
			}
		}
		vc_free(own);
	}
	for (i = 0; i < ssn->nqueues && rc == 0; i++) {
		struct sched_queue_result *qr = &r->queues[r->nqueues];

		qr->queue = ssn->queues[i].q;
		vc_resource_init(&qr->allocated);
		r->nqueues++;
		rc = sched_ssn_to_resource(ssn, sum + i * nd, &qr->allocated);
	}
	vc_free(sum);
	return rc;
}

/* Write the session's placements and accounting back into the model. */
static int write_back(struct sched_session *ssn)
{
	size_t i;

	for (i = 0; i < ssn->ntasks; i++) {
		struct sched_ssn_task *t = &ssn->tasks[i];
		const char *want = t->node == SCHED_NONE ? NULL : ssn->nodes[t->node].n->name;

		if (t->node == SCHED_NONE && t->t->status != SCHED_TASK_PENDING)
			continue; /* keep what the snapshot said (unplaced node) */
		if (vc_str_eq(want, t->t->node_name))
			continue;
		if (sched_task_set_node(t->t, want) < 0)
			return VC_ENOMEM;
	}
	for (i = 0; i < ssn->nnodes; i++) {
		struct sched_ssn_node *n = &ssn->nodes[i];

		if (sched_ssn_to_resource(ssn, n->idle, &n->n->idle) < 0 ||
		    sched_ssn_to_resource(ssn, n->used, &n->n->used) < 0 ||
		    sched_ssn_to_resource(ssn, n->releasing, &n->n->releasing) < 0 ||
		    sched_ssn_to_resource(ssn, n->pipelined, &n->n->pipelined) < 0)
			return VC_ENOMEM;
	}
	for (i = 0; i < ssn->njobs; i++)
		if (sched_ssn_to_resource(ssn, ssn->jobs[i].alloc, &ssn->jobs[i].j->allocated) < 0)
			return VC_ENOMEM;
	return 0;
}

int sched_session_close(struct sched_session *ssn)
{
	size_t i, unschedulable = 0;
	int rc = 0;

	for (i = 0; i < ssn->njobs && rc == 0; i++) {
		/* gang's count of jobs that are not ready (Volcano's UpdateUnscheduleJobCount) */
		if (ssn->priv->gang_configured && ssn->jobs[i].ntasks > 0 &&
		    !sched_ssn_job_gang_ready(&ssn->jobs[i]))
			unschedulable++;
		rc = job_result(ssn, &ssn->jobs[i]);
	}
	if (ssn->priv->gang_configured)
		sched_metrics_unschedulable_jobs(sched_ssn_metrics(ssn), unschedulable);
	if (rc == 0)
		rc = queue_results(ssn);
	if (rc == 0)
		rc = write_back(ssn);
	return rc;
}
