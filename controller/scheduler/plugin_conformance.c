/*
 * plugin_conformance.c - never evict critical pods (docs/volcano/scheduler.md §4.11): pods of the
 * system-cluster-critical and system-node-critical priority classes, and every pod in
 * kube-system, are never victims of preempt or reclaim.
 */
#include "sched_internal.h"

static enum sched_vote conformance_victims(void *st, const struct sched_ssn_task *p,
					   struct sched_ssn_task *const *cands, size_t n,
					   bool *keep)
{
	size_t i;

	(void)st;
	(void)p;
	for (i = 0; i < n; i++)
		if (cands[i]->critical)
			keep[i] = false;
	return SCHED_PERMIT;
}

static int conformance_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
			    struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	(void)ssn;
	(void)conf;
	(void)err;
	cb->preemptable = conformance_victims;
	cb->reclaimable = conformance_victims;
	*state = NULL;
	return 0;
}

const struct sched_plugin sched_plugin_conformance = {
	.name = "conformance",
	.on_session_open = conformance_open,
};
