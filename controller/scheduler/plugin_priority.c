/*
 * plugin_priority.c - the priority plugin (docs/volcano/scheduler.md §4.2, REC (b)/(d) of
 * docs/volcano/scheduler.md §6): job and task order by priority, the preemption victim filter and
 * job starving.
 */
#include "plugins.h"

#include "plugin_support.h"

int priority_job_order(const struct sched_job_info *a, const struct sched_job_info *b)
{
	if (a->priority == b->priority)
		return 0;
	return a->priority > b->priority ? -1 : 1;
}

int priority_task_order(const struct sched_task_info *a, const struct sched_task_info *b)
{
	if (a->priority == b->priority)
		return 0;
	return a->priority > b->priority ? -1 : 1;
}

struct priority_state {
	struct job_budget budget; /* first: budget_state_new */
	struct sched_session *ssn;
};

static int priority_job_order_cb(void *st, const struct sched_ssn_job *a,
				 const struct sched_ssn_job *b)
{
	(void)st;
	return priority_job_order(a->j, b->j);
}

static int priority_task_order_cb(void *st, const struct sched_ssn_task *a,
				  const struct sched_ssn_task *b)
{
	(void)st;
	return priority_task_order(a->t, b->t);
}

/*
 * Other jobs: the victim job's priority must be lower; with equal priority, a victim may be
 * elastic surplus (beyond minMember) of a ready gang when the preemptor's gang is starving
 * (REC (b)); core pods are never taken at equal priority (REC (d)). Same job: task priority.
 */
static enum sched_vote priority_preemptable_cb(void *st, const struct sched_ssn_task *p,
					       struct sched_ssn_task *const *cands, size_t n,
					       bool *keep)
{
	struct priority_state *s = st;
	size_t i;

	budget_next_call(&s->budget);
	for (i = 0; i < n; i++) {
		const struct sched_ssn_task *v = cands[i];
		const struct sched_ssn_job *pj = p->job, *vj = v->job;
		bool ok;

		if (!keep[i])
			continue;
		if (!pj || !vj || pj == vj) {
			ok = v->t->priority < p->t->priority;
		} else if (vj->j->priority < pj->j->priority) {
			ok = true;
		} else if (vj->j->priority == pj->j->priority) {
			ok = sched_ssn_job_nwaiting(pj) + sched_ssn_job_nready(pj) <
				     (uint32_t)(pj->j->min_member > 0 ? pj->j->min_member : 0) &&
			     budget_take(&s->budget, vj);
		} else {
			ok = false;
		}
		keep[i] = ok;
	}
	return SCHED_PERMIT;
}

static bool priority_starving_cb(void *st, const struct sched_ssn_job *j)
{
	(void)st;
	return sched_ssn_job_nready(j) + sched_ssn_job_nwaiting(j) < j->ntasks;
}

static int priority_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
			 struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	struct priority_state *s = budget_state_new(sizeof(*s), ssn->njobs);

	(void)conf;
	if (!s)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	s->ssn = ssn;
	cb->job_order = priority_job_order_cb;
	cb->task_order = priority_task_order_cb;
	cb->preemptable = priority_preemptable_cb;
	cb->job_starving = priority_starving_cb;
	*state = s;
	return 0;
}

const struct sched_plugin sched_plugin_priority = {
	.name = "priority",
	.on_session_open = priority_open,
	.on_session_close = budget_state_close,
};
