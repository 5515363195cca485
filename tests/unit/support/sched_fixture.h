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

/*
 * A cluster of nodes and pods written as JSON. Needs "scheduler/sched_session.h", "vc_alloc.h" and
 * "vc_model.h" included before. Nodes have 4 CPU, 8 Gi and 110 pods; pods ask 100m CPU. The views
 * and JSON live until sched_fx_release.
 */
#ifdef SCHED_SESSION_H

#define SCHED_FX_MAX 64

struct sched_fx {
	struct sched_snapshot snap;
	json_t *objs[SCHED_FX_MAX];
	struct vc_pod pods[SCHED_FX_MAX];
	size_t npods;
	json_t *nobjs[SCHED_FX_MAX];
	struct vc_node nodes[SCHED_FX_MAX];
	size_t nnodes;
};

/* An empty snapshot with the queue "default". */
static inline void sched_fx_init(struct sched_fx *f)
{
	struct sched_queue_info *q = vc_malloc(sizeof(*q));

	memset(f, 0, sizeof(*f));
	assert_int_equal(sched_snapshot_init(&f->snap), 0);
	assert_non_null(q);
	assert_int_equal(sched_queue_init(q, "default", 1), 0);
	assert_int_equal(sched_snapshot_add_queue(&f->snap, q), 0);
}

/* A node called name with the labels and spec of JSON object texts ("{}" for none). */
static inline struct sched_node_info *sched_fx_node_spec(struct sched_fx *f, const char *name,
							 const char *labels, const char *spec)
{
	char text[1024];
	struct sched_node_info *n = vc_malloc(sizeof(*n));

	assert_true(f->nnodes < SCHED_FX_MAX);
	assert_non_null(n);
	snprintf(
		text, sizeof(text),
		"{\"metadata\":{\"name\":\"%s\",\"labels\":%s},\"spec\":%s,"
		"\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"}}}",
		name, labels, spec);
	f->nobjs[f->nnodes] = json_loads(text, 0, NULL);
	assert_non_null(f->nobjs[f->nnodes]);
	assert_int_equal(vc_node_view(f->nobjs[f->nnodes], &f->nodes[f->nnodes], NULL), 0);
	assert_int_equal(sched_node_from_view(n, &f->nodes[f->nnodes]), 0);
	f->nnodes++;
	assert_int_equal(sched_snapshot_add_node(&f->snap, n), 0);
	return n;
}

/* A node called name with the labels of a JSON object text ("{}" for none). */
static inline struct sched_node_info *sched_fx_node(struct sched_fx *f, const char *name,
						    const char *labels)
{
	return sched_fx_node_spec(f, name, labels, "{}");
}

/* A job (PodGroup ns/name, queue default, minMember min). */
static inline struct sched_job_info *sched_fx_job(struct sched_fx *f, const char *ns,
						  const char *name, int min)
{
	struct sched_job_info *j = vc_malloc(sizeof(*j));

	assert_non_null(j);
	assert_int_equal(sched_job_init(j, ns, name, NULL, min), 0);
	assert_int_equal(sched_snapshot_add_job(&f->snap, j), 0);
	return j;
}

/*
 * A pod of job j in j's namespace with the labels of a JSON object text, extra members of its
 * metadata and of its spec (JSON texts of members, "" for none; the spec's come after the
 * containers); Running on node when node is not NULL, else Pending. Call sched_fx_place once every
 * pod is added.
 */
static inline struct sched_task_info *sched_fx_pod_meta(struct sched_fx *f,
							struct sched_job_info *j, const char *name,
							const char *labels, const char *meta,
							const char *spec, const char *node)
{
	char text[4096], where[128] = "";
	struct sched_task_info *t = vc_malloc(sizeof(*t));

	assert_true(f->npods < SCHED_FX_MAX);
	assert_non_null(t);
	if (node)
		snprintf(where, sizeof(where), ",\"nodeName\":\"%s\"", node);
	snprintf(text, sizeof(text),
		 "{\"metadata\":{\"namespace\":\"%s\",\"name\":\"%s\",\"uid\":\"%s-%s\","
		 "\"labels\":%s%s%s},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":"
		 "{\"requests\":{\"cpu\":\"100m\"}}}]%s%s%s},\"status\":{\"phase\":\"%s\"}}",
		 j->ns, name, j->ns, name, labels, meta[0] ? "," : "", meta, spec[0] ? "," : "",
		 spec, where, node ? "Running" : "Pending");
	f->objs[f->npods] = json_loads(text, 0, NULL);
	assert_non_null(f->objs[f->npods]);
	assert_int_equal(vc_pod_view(f->objs[f->npods], &f->pods[f->npods], NULL), 0);
	assert_int_equal(sched_task_from_pod(t, &f->pods[f->npods], NULL), 0);
	f->npods++;
	assert_int_equal(sched_job_add_task(j, t), 0);
	return t;
}

/* sched_fx_pod_meta without extra metadata. */
static inline struct sched_task_info *sched_fx_pod(struct sched_fx *f, struct sched_job_info *j,
						   const char *name, const char *labels,
						   const char *spec, const char *node)
{
	return sched_fx_pod_meta(f, j, name, labels, "", spec, node);
}

/* Account the placed pods on their nodes. */
static inline void sched_fx_place(struct sched_fx *f)
{
	assert_int_equal(sched_snapshot_place(&f->snap), 0);
}

static inline void sched_fx_release(struct sched_fx *f)
{
	size_t i;

	sched_snapshot_release(&f->snap);
	for (i = 0; i < f->npods; i++) {
		vc_pod_view_release(&f->pods[i]);
		json_decref(f->objs[i]);
	}
	for (i = 0; i < f->nnodes; i++) {
		vc_node_view_release(&f->nodes[i]);
		json_decref(f->nobjs[i]);
	}
}

#endif /* SCHED_SESSION_H */

#endif /* SCHED_FIXTURE_H */
