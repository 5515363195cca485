/*
 * plugin_priority.c - job and task priority order and preemption (scheduler.md §4.2).
 */
#include "plugins.h"

int priority_job_order(const struct sched_job *a, const struct sched_job *b)
{
	if (a->priority == b->priority)
		return 0;
	return a->priority > b->priority ? -1 : 1;
}

int priority_task_order(const struct sched_task *a, const struct sched_task *b)
{
	if (a->priority == b->priority)
		return 0;
	return a->priority > b->priority ? -1 : 1;
}

bool priority_preemptable(const struct sched_task *preemptor, const struct sched_task *victim)
{
	if (preemptor->job && victim->job && preemptor->job != victim->job)
		return victim->job->priority < preemptor->job->priority;
	return victim->priority < preemptor->priority;
}

bool priority_job_starving(const struct sched_job *j)
{
	return sched_job_ready_count(j) + sched_job_waiting_count(j) < j->ntasks;
}
