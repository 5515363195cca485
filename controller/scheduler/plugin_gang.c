/*
 * plugin_gang.c - gang readiness, validity and order (scheduler.md §4.1, §2.2).
 */
#include "plugins.h"

/* Σ minTaskMember over the roles (non-integers ignored). */
static int64_t min_task_total(const struct sched_job *j)
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
static bool roles_enforced(const struct sched_job *j)
{
	return j->min_task_member && (int64_t)j->min_member >= min_task_total(j);
}

enum count_mode {
	COUNT_VALID,
	COUNT_READY,
	COUNT_PIPELINED
};

static bool counts(const struct sched_task *t, enum count_mode mode)
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

static size_t count_role(const struct sched_job *j, const char *role, enum count_mode mode)
{
	size_t i, n = 0;

	for (i = 0; i < j->ntasks; i++)
		if ((!role || strcmp(j->tasks[i]->role, role) == 0) && counts(j->tasks[i], mode))
			n++;
	return n;
}

/* Every role with a minTaskMember has at least that many tasks counted by mode. */
static bool roles_ok(const struct sched_job *j, enum count_mode mode)
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

void gang_job_valid(const struct sched_job *j, struct gang_validity *out)
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

bool gang_job_ready(const struct sched_job *j)
{
	return roles_ok(j, COUNT_READY) &&
	       (int64_t)(sched_job_ready_count(j) + sched_job_pending_best_effort_count(j)) >=
		       j->min_member;
}

bool gang_job_pipelined(const struct sched_job *j)
{
	return roles_ok(j, COUNT_PIPELINED) &&
	       (int64_t)(sched_job_waiting_count(j) + sched_job_ready_count(j) +
			 sched_job_pending_best_effort_count(j)) >= j->min_member;
}

bool gang_job_starving(const struct sched_job *j)
{
	return (int64_t)(sched_job_waiting_count(j) + sched_job_ready_count(j)) < j->min_member;
}

int gang_job_order(const struct sched_job *a, const struct sched_job *b)
{
	bool ra = gang_job_ready(a), rb = gang_job_ready(b);

	if (ra == rb)
		return 0;
	return ra ? 1 : -1;
}

size_t gang_victim_allowance(const struct sched_job *j)
{
	size_t ready = sched_job_ready_count(j);

	if (j->min_member < 0)
		return ready;
	return ready > (size_t)j->min_member ? ready - (size_t)j->min_member : 0;
}
