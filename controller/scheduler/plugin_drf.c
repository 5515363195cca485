/*
 * plugin_drf.c - dominant resource fairness job order (scheduler.md §4.3).
 */
#include "plugins.h"

double drf_share(const struct vc_resource *allocated, const struct vc_resource *total)
{
	double share = 0, s;
	size_t i;

	/* The dimensions of total that are at least 0.1 (ResourceNames), `pods` excluded. */
	if (total->milli_cpu >= VC_RESOURCE_MIN) {
		s = sched_share(allocated->milli_cpu, total->milli_cpu);
		if (s > share)
			share = s;
	}
	if (total->memory >= VC_RESOURCE_MIN) {
		s = sched_share(allocated->memory, total->memory);
		if (s > share)
			share = s;
	}
	for (i = 0; i < total->nscalars; i++) {
		const struct vc_resource_scalar *sc = &total->scalars[i];

		if (sc->value < VC_RESOURCE_MIN || strcmp(sc->name, "pods") == 0)
			continue;
		s = sched_share(vc_resource_get(allocated, sc->name), sc->value);
		if (s > share)
			share = s;
	}
	return share;
}

void drf_job_update(struct sched_job *j, const struct vc_resource *total)
{
	j->share = drf_share(&j->allocated, total);
}

int drf_job_order(const struct sched_job *a, const struct sched_job *b)
{
	if (a->share == b->share)
		return 0;
	return a->share < b->share ? -1 : 1;
}
