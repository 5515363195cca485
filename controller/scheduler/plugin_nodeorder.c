/*
 * plugin_nodeorder.c - Kubernetes' resource scorers as Volcano's nodeorder uses them
 * (scheduler.md §4.8).
 */
#include "plugins.h"

#include <math.h>

#define MAX_NODE_SCORE	  100
#define DEFAULT_MILLI_CPU 100.0			/* schedutil.DefaultMilliCPURequest */
#define DEFAULT_MEMORY	  (200.0 * 1024 * 1024) /* schedutil.DefaultMemoryRequest */
#define GPU_RESOURCE	  "nvidia.com/gpu"

void nodeorder_args_default(struct nodeorder_args *a)
{
	a->least_requested = 1;
	a->most_requested = 0;
	a->balanced_resource = 1;
}

/* Requested cpu and memory on the node with the task added, request-less counted as defaults. */
static void non_zero_requested(const struct sched_task *t, const struct sched_node *n, int64_t *cpu,
			       int64_t *mem)
{
	double c = 0, m = 0;
	size_t i;

	for (i = 0; i <= n->ntasks; i++) {
		const struct sched_task *x = i < n->ntasks ? n->tasks[i] : t;

		if (i < n->ntasks && x->status == SCHED_TASK_PIPELINED)
			continue;
		c += x->req.milli_cpu > 0 ? x->req.milli_cpu : DEFAULT_MILLI_CPU;
		m += x->req.memory > 0 ? x->req.memory : DEFAULT_MEMORY;
	}
	*cpu = (int64_t)c;
	*mem = (int64_t)m;
}

static int64_t least_score(int64_t requested, int64_t capacity)
{
	if (capacity == 0 || requested > capacity)
		return 0;
	return (capacity - requested) * MAX_NODE_SCORE / capacity;
}

static int64_t most_score(int64_t requested, int64_t capacity)
{
	if (capacity == 0)
		return 0;
	if (requested > capacity)
		requested = capacity;
	return requested * MAX_NODE_SCORE / capacity;
}

int64_t nodeorder_least_allocated(const struct sched_task *t, const struct sched_node *n)
{
	int64_t cpu, mem;

	non_zero_requested(t, n, &cpu, &mem);
	return (least_score(cpu, (int64_t)n->allocatable.milli_cpu) +
		least_score(mem, (int64_t)n->allocatable.memory)) /
	       2;
}

int64_t nodeorder_most_allocated(const struct sched_task *t, const struct sched_node *n)
{
	int64_t cpu, mem;

	non_zero_requested(t, n, &cpu, &mem);
	return (most_score(cpu, (int64_t)n->allocatable.milli_cpu) +
		most_score(mem, (int64_t)n->allocatable.memory)) /
	       2;
}

int64_t nodeorder_balanced_allocation(const struct sched_task *t, const struct sched_node *n)
{
	double f[3], total = 0, std = 0;
	int64_t cpu, mem;
	size_t k = 0, i;

	non_zero_requested(t, n, &cpu, &mem);
	if (n->allocatable.milli_cpu >= 1)
		f[k++] = fmin((double)cpu / (double)(int64_t)n->allocatable.milli_cpu, 1);
	if (n->allocatable.memory >= 1)
		f[k++] = fmin((double)mem / (double)(int64_t)n->allocatable.memory, 1);
	if (vc_resource_get(&t->req, GPU_RESOURCE) > 0) {
		double alloc = vc_resource_get(&n->allocatable, GPU_RESOURCE);
		double used = vc_resource_get(&n->used, GPU_RESOURCE);

		if ((int64_t)alloc != 0)
			f[k++] = fmin(
				(double)(int64_t)(used + vc_resource_get(&t->req, GPU_RESOURCE)) /
					(double)(int64_t)alloc,
				1);
	}
	for (i = 0; i < k; i++)
		total += f[i];
	if (k == 2) {
		std = fabs((f[0] - f[1]) / 2);
	} else if (k > 2) {
		double mean = total / (double)k, var = 0;

		for (i = 0; i < k; i++)
			var += (f[i] - mean) * (f[i] - mean);
		std = sqrt(var / (double)k);
	}
	return (int64_t)((1 - std) * MAX_NODE_SCORE);
}

double nodeorder_score(const struct sched_task *t, const struct sched_node *n,
		       const struct nodeorder_args *a)
{
	double score = 0;

	if (a->least_requested)
		score += (double)nodeorder_least_allocated(t, n) * a->least_requested;
	if (a->most_requested)
		score += (double)nodeorder_most_allocated(t, n) * a->most_requested;
	if (a->balanced_resource)
		score += (double)nodeorder_balanced_allocation(t, n) * a->balanced_resource;
	return score;
}
