/*
 * sched_fixture.h - snapshot-building helpers the scheduler's unit tests share. Header only
 * (static inline): the support .c files are linked into every unit test. Include after <cmocka.h>.
 */
#ifndef SCHED_FIXTURE_H
#define SCHED_FIXTURE_H

#include "vc_resource.h"

#define SCHED_FIXTURE_GPU "nvidia.com/gpu"

/* A resource of cpu millicores, memory bytes and GPU milli-units (0 = no GPU scalar). */
static inline void sched_fixture_res(struct vc_resource *r, double cpu, double mem, double gpu)
{
	vc_resource_init(r);
	r->milli_cpu = cpu;
	r->memory = mem;
	if (gpu > 0)
		assert_int_equal(vc_resource_set_scalar(r, SCHED_FIXTURE_GPU, gpu), 0);
}

#endif /* SCHED_FIXTURE_H */
