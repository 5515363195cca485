/*
 * plugin_gang.c - the gang plugin (docs/volcano/scheduler.md §4.1, §2.2): job validity, readiness,
 * pipelining, starving, order, and the victim surplus filters.
 */
#include "plugins.h"

#include "plugin_support.h"

/* Σ minTaskMember over the roles (non-integers ignored). */
static int64_t min_task_total(const struct sched_job_info *j)
{
	const char *role;
	json_t *v;
	int64_t sum = 0;

	json_object_foreach (j->min_task_member, role, v) {
		(void)role;
		if (json_is_integer(v))
			sum += json_integer_value(v);
	}
	return sum;
}

/* Whether minTaskMember is enforced (Volcano skips it when minMember < Σ minTaskMember). */
static bool roles_enforced(const struct sched_job_info *j)
{
	return j->min_task_member && (int64_t)j->min_member >= min_task_total(j);
}

enum count_mode {
	COUNT_VALID,
	COUNT_READY,
	COUNT_PIPELINED
};

static bool counts(const struct sched_task_info *t, enum count_mode mode)
{
	bool alloc = sched_task_status_is_allocated(t->status) || t->status == SCHED_TASK_SUCCEEDED;

	switch (mode) {
	case COUNT_VALID:
		return alloc || t->status == SCHED_TASK_PIPELINED ||
		       t->status == SCHED_TASK_PENDING;
	case COUNT_PIPELINED:
		if (t->status == SCHED_TASK_PIPELINED)
			return true;
		/* fall through */
	case COUNT_READY:
	default:
		return alloc || (t->status == SCHED_TASK_PENDING && t->best_effort);
	}
}

static size_t count_role(const struct sched_job_info *j, const char *role, enum count_mode mode)
{
	size_t i, n = 0;

	for (i = 0; i < j->ntasks; i++)
		if ((!role || strcmp(j->tasks[i]->role, role) == 0) && counts(j->tasks[i], mode))
			n++;
	return n;
}

/* Every role with a minTaskMember has at least that many tasks counted by mode. */
static bool roles_ok(const struct sched_job_info *j, enum count_mode mode)
{
	const char *role;
	json_t *v;

	if (!roles_enforced(j))
		return true;
	json_object_foreach (j->min_task_member, role, v) {
		if (json_is_integer(v) &&
		    (int64_t)count_role(j, role, mode) < json_integer_value(v))
			return false;
	}
	return true;
}

void gang_job_valid(const struct sched_job_info *j, struct gang_validity *out)
{
	size_t valid = count_role(j, NULL, COUNT_VALID);

	out->valid = true;
	out->reason = NULL;
	out->message[0] = '\0';
	if ((int64_t)valid < j->min_member) {
		out->valid = false;
		out->reason = GANG_REASON_NOT_ENOUGH_TASKS;
		snprintf(out->message, sizeof(out->message),
			 "Not enough valid tasks for gang-scheduling, valid: %zu, min: %d", valid,
			 (int)j->min_member);
		return;
	}
	if (!roles_ok(j, COUNT_VALID)) {
		out->valid = false;
		out->reason = GANG_REASON_NOT_ENOUGH_PODS;
		snprintf(out->message, sizeof(out->message),
			 "Not enough valid pods of each task for gang-scheduling");
	}
}

struct gang_state {
	struct job_budget budget; /* first: budget_state_new */
};

static void gang_valid_cb(void *st, const struct sched_ssn_job *j, struct gang_validity *out)
{
	(void)st;
	gang_job_valid(j->j, out);
}

static bool gang_ready_cb(void *st, const struct sched_ssn_job *j)
{
	(void)st;
	return sched_ssn_job_gang_ready(j);
}

static enum sched_vote gang_pipelined_cb(void *st, const struct sched_ssn_job *j)
{
	(void)st;
	return sched_ssn_job_gang_pipelined(j) ? SCHED_PERMIT : SCHED_REJECT;
}

static bool gang_starving_cb(void *st, const struct sched_ssn_job *j)
{
	(void)st;
	return (int64_t)sched_ssn_job_nwaiting(j) + sched_ssn_job_nready(j) < j->j->min_member;
}

static int gang_order_cb(void *st, const struct sched_ssn_job *a, const struct sched_ssn_job *b)
{
	bool ra = sched_ssn_job_gang_ready(a), rb = sched_ssn_job_gang_ready(b);

	(void)st;
	if (ra == rb)
		return 0;
	return ra ? 1 : -1;
}

/*
 * A victim job may lose only its surplus (Ready − minMember), except to a preemptor of strictly
 * higher job priority, which may take whole gangs (REC (d); the action then evicts the rest).
 */
static enum sched_vote gang_victims(struct gang_state *s, const struct sched_ssn_task *p,
				    struct sched_ssn_task *const *cands, size_t n, bool *keep,
				    bool reclaim)
{
	size_t i;

	budget_next_call(&s->budget);
	for (i = 0; i < n; i++) {
		const struct sched_ssn_job *vj = cands[i]->job;

		if (!keep[i] || !vj)
			continue;
		if (!reclaim && p->job && p->job != vj && p->job->j->priority > vj->j->priority)
			continue;
		keep[i] = budget_take(&s->budget, vj);
	}
	return SCHED_PERMIT;
}

static enum sched_vote gang_preemptable_cb(void *st, const struct sched_ssn_task *p,
					   struct sched_ssn_task *const *cands, size_t n,
					   bool *keep)
{
	return gang_victims(st, p, cands, n, keep, false);
}

static enum sched_vote gang_reclaimable_cb(void *st, const struct sched_ssn_task *p,
					   struct sched_ssn_task *const *cands, size_t n,
					   bool *keep)
{
	return gang_victims(st, p, cands, n, keep, true);
}

static int gang_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
		     struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	struct gang_state *s = budget_state_new(sizeof(*s), ssn->njobs);

	(void)conf;
	if (!s)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	cb->job_valid = gang_valid_cb;
	cb->job_ready = gang_ready_cb;
	cb->job_pipelined = gang_pipelined_cb;
	cb->job_starving = gang_starving_cb;
	cb->job_order = gang_order_cb;
	cb->preemptable = gang_preemptable_cb;
	cb->reclaimable = gang_reclaimable_cb;
	*state = s;
	return 0;
}

const struct sched_plugin sched_plugin_gang = {
	.name = "gang",
	.on_session_open = gang_open,
	.on_session_close = budget_state_close,
};
