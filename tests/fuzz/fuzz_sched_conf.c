/*
 * libFuzzer target: arbitrary bytes as the scheduler's configuration file, which comes from a
 * ConfigMap (docs/volcano/scheduler.md §1.3) and so is untrusted input.
 *
 * sched_conf_parse must load or fail cleanly (a documented code, *out left empty); what it loads
 * must keep its own promises (no tier without plugins, every action named, arguments an object,
 * every skipped entry a line of text), and the typed argument readers must accept whatever YAML
 * typed. Then one scheduling cycle runs with it over a small fixed cluster (two nodes, two
 * queues, a gang of three pending tasks and a running one), so every plugin's OnSessionOpen reads
 * the fuzzed arguments (binpack weights, overcommit-factor, nodeorder weights, ...) and the
 * actions run with them. The contract: no crash, no undefined behaviour, no leak; the cycle
 * answers 0 or VC_ENOMEM (the parse skipped what the cycle would not know).
 */
#include "vc_prelude.h"

#include <jansson.h>

#include "scheduler/sched_conf.h"
#include "scheduler/sched_session.h"
#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_resource.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Plugin arguments the plugins read, so the typed readers see fuzzed values of every type. */
static const char *const arg_keys[] = {
	"binpack.weight",	  "binpack.cpu",	   "binpack.memory",
	"binpack.resources",	  "overcommit-factor",	   "nodeaffinity.weight",
	"leastrequested.weight",  "mostrequested.weight",  "balancedresource.weight",
	"tainttoleration.weight", "predicate.CacheEnable",
};

static void check_conf(const struct sched_conf *c)
{
	size_t i, j, k;

	for (i = 0; i < c->nactions; i++)
		if (!c->actions[i] || !*c->actions[i] || !sched_conf_has_action(c, c->actions[i]))
			abort();
	for (i = 0; i < c->ntiers; i++) {
		if (c->tiers[i].nplugins == 0)
			abort();
		for (j = 0; j < c->tiers[i].nplugins; j++) {
			const struct sched_plugin_conf *p = &c->tiers[i].plugins[j];

			if (!p->name || !json_is_object(p->arguments) ||
			    !sched_conf_plugin(c, p->name))
				abort();
			for (k = 0; k < sizeof(arg_keys) / sizeof(arg_keys[0]); k++) {
				(void)sched_arg_int(p, arg_keys[k], 1);
				(void)sched_arg_float(p, arg_keys[k], 1.0);
				(void)sched_arg_bool(p, arg_keys[k], true);
				if (!sched_arg_string(p, arg_keys[k], "d"))
					abort();
			}
		}
	}
	if (c->configurations && !json_is_object(c->configurations))
		abort();
	for (i = 0; i < c->nskipped; i++)
		if (!c->skipped[i] || !*c->skipped[i])
			abort();
}

static void res(struct vc_resource *r, double cpu, double mem, double gpu)
{
	vc_resource_init(r);
	r->milli_cpu = cpu;
	r->memory = mem;
	if (gpu > 0 && vc_resource_set_scalar(r, "nvidia.com/gpu", gpu))
		abort();
}

static void add_node(struct sched_snapshot *s, const char *name, double cpu, double gpu)
{
	struct sched_node_info *n = vc_malloc(sizeof(*n));
	struct vc_resource r;

	res(&r, cpu, cpu * 1e6, gpu);
	if (!n || sched_node_init(n, name, &r) || sched_snapshot_add_node(s, n))
		abort();
	vc_resource_release(&r);
}

static void add_queue(struct sched_snapshot *s, const char *name, int32_t weight)
{
	struct sched_queue_info *q = vc_malloc(sizeof(*q));

	if (!q || sched_queue_init(q, name, weight) || sched_snapshot_add_queue(s, q))
		abort();
}

static void add_task(struct sched_job_info *j, const char *name, double cpu, double gpu,
		     enum sched_task_status st, const char *node)
{
	struct sched_task_info *t = vc_malloc(sizeof(*t));
	struct vc_resource r;

	res(&r, cpu, cpu * 1e5, gpu);
	if (!t || sched_task_init(t, "ns", name, &r))
		abort();
	vc_resource_release(&r);
	t->status = st;
	if ((node && sched_task_set_node(t, node)) || sched_job_add_task(j, t))
		abort();
}

static struct sched_job_info *add_job(struct sched_snapshot *s, const char *name, const char *queue,
				      int32_t min)
{
	struct sched_job_info *j = vc_malloc(sizeof(*j));

	if (!j || sched_job_init(j, "ns", name, queue, min) || sched_snapshot_add_job(s, j))
		abort();
	return j;
}

/* A cluster where allocate, backfill, preempt and reclaim all have something to consider. */
static void build_snapshot(struct sched_snapshot *s)
{
	struct sched_job_info *j;

	if (sched_snapshot_init(s))
		abort();
	add_node(s, "n1", 4000, 1000);
	add_node(s, "n2", 2000, 0);
	add_queue(s, "default", 1);
	add_queue(s, "q2", 3);
	j = add_job(s, "running", "default", 1);
	add_task(j, "running-0", 3000, 0, SCHED_TASK_RUNNING, "n1");
	j->priority = 1;
	j = add_job(s, "gang", "q2", 3);
	j->priority = 10;
	add_task(j, "gang-0", 1000, 1000, SCHED_TASK_PENDING, NULL);
	add_task(j, "gang-1", 1000, 0, SCHED_TASK_PENDING, NULL);
	add_task(j, "gang-2", 1000, 0, SCHED_TASK_PENDING, NULL);
	j = add_job(s, "besteffort", "q2", 1);
	add_task(j, "besteffort-0", 0, 0, SCHED_TASK_PENDING, NULL);
	if (sched_snapshot_place(s))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sched_snapshot snap;
	struct sched_result result;
	struct sched_conf conf;
	struct vc_error err;
	int rc;

	if (size > 64 * 1024)
		return 0;
	vc_error_clear(&err);
	rc = sched_conf_parse((const char *)data, size, &conf, &err);
	if (rc) {
		if (rc != VC_EPARSE && rc != VC_EINVALID && rc != VC_ENOMEM && rc != VC_E2BIG)
			abort();
		if (err.code != rc || conf.nactions || conf.ntiers || conf.nskipped)
			abort();
		return 0;
	}
	check_conf(&conf);
	build_snapshot(&snap);
	vc_error_clear(&err);
	rc = sched_session_run(&conf, &snap, "uid-1", "2026-01-01T00:00:00Z", 7, &result, &err);
	if (rc == 0)
		sched_result_release(&result);
	else if (rc != VC_ENOMEM) {
		fprintf(stderr, "session failed on a parsed configuration: %s\n", err.text);
		abort();
	}
	sched_snapshot_release(&snap);
	sched_conf_release(&conf);
	return 0;
}
