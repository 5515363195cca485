/*
 * sched_fixture.h - snapshot-building helpers the scheduler's unit tests share. Header only
 * (static inline): the support .c files are linked into every unit test. Include after <cmocka.h>.
 */
#ifndef SCHED_FIXTURE_H
#define SCHED_FIXTURE_H

#include <jansson.h>

#include "vc_model.h"
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

/*
 * A Queue object and its view, for sched_queue_from_view (the view must outlive the snapshot's
 * queue: release it after the snapshot).
 */
struct sched_fixture_queue {
	json_t *obj;
	struct vc_queue view;
};

/* Parse a Queue's JSON text into fq (status.state defaults to Open when the text has none). */
static inline void sched_fixture_queue_parse(struct sched_fixture_queue *fq, const char *text)
{
	json_error_t jerr;
	struct vc_error err;

	fq->obj = json_loads(text, 0, &jerr);
	if (!fq->obj)
		fail_msg("queue json: %s", jerr.text);
	if (!json_object_get(fq->obj, "status"))
		assert_int_equal(
			json_object_set_new(fq->obj, "status", json_pack("{s:s}", "state", "Open")),
			0);
	vc_error_clear(&err);
	if (vc_queue_view(fq->obj, &fq->view, &err) != 0)
		fail_msg("queue view: %s", err.text);
}

static inline void sched_fixture_queue_release(struct sched_fixture_queue *fq)
{
	vc_queue_view_release(&fq->view);
	json_decref(fq->obj);
	fq->obj = NULL;
}

#endif /* SCHED_FIXTURE_H */
