/*
 * plugin_binpack.c - Volcano's binpack node score (scheduler.md §4.9).
 */
#include "plugins.h"

void binpack_args_default(struct binpack_args *a)
{
	a->weight = 1;
	a->cpu = 1;
	a->memory = 1;
	a->resources = NULL;
	a->nresources = 0;
}

/* The weight configured for a dimension; false when it has none. */
static bool weight_of(const struct binpack_args *a, const char *name, int *w)
{
	size_t i;

	if (strcmp(name, "cpu") == 0) {
		*w = a->cpu;
		return true;
	}
	if (strcmp(name, "memory") == 0) {
		*w = a->memory;
		return true;
	}
	for (i = 0; i < a->nresources; i++)
		if (strcmp(a->resources[i].name, name) == 0) {
			*w = a->resources[i].weight;
			return true;
		}
	return false;
}

double binpack_score(const struct sched_task *t, const struct sched_node *n,
		     const struct binpack_args *a)
{
	const char *names[64];
	size_t i, count = vc_resource_names(&t->req, names, 64);
	double score = 0;
	int64_t weight_sum = 0;

	if (count > 64)
		count = 64;
	for (i = 0; i < count; i++) {
		double req = vc_resource_get(&t->req, names[i]);
		double alloc, used;
		int w;

		if (req == 0 || !weight_of(a, names[i], &w))
			continue;
		alloc = vc_resource_get(&n->allocatable, names[i]);
		used = vc_resource_get(&n->used, names[i]);
		if (alloc != 0 && w != 0) {
			if (used + req > alloc)
				return 0;
			score += (used + req) * w / alloc;
		}
		weight_sum += w;
	}
	if (weight_sum > 0)
		score /= (double)weight_sum;
	return score * 100.0 * a->weight;
}
