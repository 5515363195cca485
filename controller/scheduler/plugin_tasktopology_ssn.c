/*
 * plugin_tasktopology_ssn.c - the task-topology plugin in the session framework
 * (sched_framework.h): the pure functions of plugin_tasktopology.c behind the session's
 * callbacks. Kept apart so that the pure part links without the framework (its unit tests).
 */
#include "plugin_tasktopology.h"

#include "sched_framework.h"
#include "vc_alloc.h"
#include "vc_log.h"

struct topo_state {
	const struct sched_session *ssn;
	struct tasktopo_session s;
	double *max; /* ndims scratch: the node's idle + releasing */
	double *sum; /* ndims scratch: the bucket's remaining request */
};

static int topo_task_order(void *st, const struct sched_ssn_task *a, const struct sched_ssn_task *b)
{
	const struct topo_state *ts = st;

	return tasktopo_task_order(&ts->s, a->t, b->t);
}

/* tasktopo_node_score on the session's dense vectors (no allocation in the scoring loop). */
static double topo_node_order(void *st, const struct sched_ssn_task *t,
			      const struct sched_ssn_node *n)
{
	struct topo_state *ts = st;
	const struct sched_session *ssn = ts->ssn;
	const struct tasktopo_bucket *b;
	size_t d, i;
	long sc;

	b = tasktopo_count_score(&ts->s, t->t, n->n->name, &sc);
	if (!b)
		return 0;
	for (d = 0; d < ssn->ndims; d++) {
		ts->max[d] = n->idle[d] + n->releasing[d];
		if (ts->max[d] < t->req[d])
			return 0; /* the task alone does not fit */
	}
	memset(ts->sum, 0, ssn->ndims * sizeof(*ts->sum));
	for (i = 0; i < b->ntasks; i++) {
		const struct sched_ssn_task *u = sched_ssn_task_of(ssn, b->tasks[i]);

		for (d = 0; u && d < ssn->ndims; d++)
			ts->sum[d] += u->req[d];
	}
	if (!sched_res_le(ssn, ts->sum, ts->max)) {
		for (i = 0; i < b->ntasks; i++) {
			const struct sched_ssn_task *u = sched_ssn_task_of(ssn, b->tasks[i]);

			if (b->tasks[i] == t->t || !u)
				continue;
			for (d = 0; d < ssn->ndims; d++)
				ts->sum[d] -= u->req[d];
			sc--;
			if (sched_res_le(ssn, ts->sum, ts->max))
				break;
		}
	}
	return tasktopo_scale(&ts->s, t->t, sc);
}

static void topo_on_allocate(void *st, const struct sched_ssn_task *t)
{
	struct topo_state *ts = st;
	const char *node = t->node != SCHED_NONE ? ts->ssn->nodes[t->node].n->name : NULL;

	if (tasktopo_session_allocated(&ts->s, t->t, node) != 0)
		VC_WARN("task-topology: out of memory, placement not counted", "task=%s/%s node=%s",
			t->t->ns, t->t->name, node ? node : "");
}

static void topo_on_deallocate(void *st, const struct sched_ssn_task *t)
{
	struct topo_state *ts = st;

	if (tasktopo_session_deallocated(&ts->s, t->t) != 0)
		VC_WARN("task-topology: out of memory, placement not taken back", "task=%s/%s",
			t->t->ns, t->t->name);
}

static void topo_free(struct topo_state *ts)
{
	if (!ts)
		return;
	tasktopo_session_close(&ts->s);
	vc_free(ts->max);
	vc_free(ts->sum);
	vc_free(ts);
}

static int topo_open(struct sched_session *ssn, const struct sched_plugin_conf *conf,
		     struct sched_callbacks *cb, void **state, struct vc_error *err)
{
	int64_t weight = conf ? sched_arg_int(conf, TASKTOPO_ARG_WEIGHT, 1) : 1;
	struct sched_job_info **jobs = NULL;
	struct topo_state *ts;
	size_t i;
	int rc;

	*state = NULL;
	if (weight > INT_MAX)
		weight = INT_MAX;
	if (weight < INT_MIN)
		weight = INT_MIN;
	ts = vc_calloc(1, sizeof(*ts));
	if (!ts)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	ts->ssn = ssn;
	ts->max = vc_calloc(ssn->ndims ? ssn->ndims : 1, sizeof(*ts->max));
	ts->sum = vc_calloc(ssn->ndims ? ssn->ndims : 1, sizeof(*ts->sum));
	jobs = vc_calloc(ssn->njobs ? ssn->njobs : 1, sizeof(struct sched_job_info *));
	if (!ts->max || !ts->sum || !jobs)
		goto fail_state;
	for (i = 0; i < ssn->njobs; i++)
		jobs[i] = ssn->jobs[i].j;
	rc = tasktopo_session_open(&ts->s, jobs, ssn->njobs, (int)weight);
	vc_free(jobs);
	jobs = NULL;
	if (rc != 0)
		goto fail_state;
	/* Without buckets every callback would answer 0: leave them out of the hot loops. */
	if (ts->s.njobs > 0) {
		cb->task_order = topo_task_order;
		cb->node_order = topo_node_order;
		cb->on_allocate = topo_on_allocate;
		cb->on_deallocate = topo_on_deallocate;
	}
	*state = ts;
	return 0;

fail_state:
	vc_free(jobs);
	topo_free(ts);
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

static void topo_close(struct sched_session *ssn, void *state)
{
	(void)ssn;
	topo_free(state);
}

const struct sched_plugin sched_plugin_tasktopology = {
	.name = TASKTOPO_PLUGIN_NAME,
	.on_session_open = topo_open,
	.on_session_close = topo_close,
};
