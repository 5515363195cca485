/*
 * sched_snapshot.c - the snapshot a cycle runs on (docs/volcano/scheduler.md §1.2): adding jobs,
 * nodes and queues, lookups by name, placing tasks on their nodes; and the name index the session
 * also uses to resolve node and queue names.
 */
#include "sched_session.h"

#include "sched_internal.h"
#include "vc_alloc.h"

/* ---- the name -> index map for snapshot lookups ---------------------------------------------
 */

void sched_name_index_init(struct sched_name_index *m)
{
	vc_hmap_init(&m->map, sched_name_hash, sched_name_eq);
}

void sched_name_index_release(struct sched_name_index *m)
{
	vc_hmap_release(&m->map, NULL);
}

int sched_name_index_put(struct sched_name_index *m, const char *name, uint32_t i)
{
	if (vc_hmap_lookup(&m->map, name, NULL))
		return 0; /* the first one wins */
	return vc_hmap_put(&m->map, name, (void *)(uintptr_t)i, NULL);
}

uint32_t sched_name_index_get(const struct sched_name_index *m, const char *name)
{
	void *i;

	if (!name || !vc_hmap_lookup(&m->map, name, &i))
		return SCHED_NONE;
	return (uint32_t)(uintptr_t)i;
}

/* ---- snapshot
 * ------------------------------------------------------------------------------------ */

int sched_snapshot_init(struct sched_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	vc_resource_init(&s->total);
	return 0;
}

static int grow(void **arr, size_t *cap, size_t n)
{
	if (n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		void *p = vc_realloc(*arr, ncap * sizeof(void *));

		if (!p)
			return VC_ENOMEM;
		*arr = p;
		*cap = ncap;
	}
	return 0;
}

int sched_snapshot_add_job(struct sched_snapshot *s, struct sched_job_info *j)
{
	if (grow((void **)&s->jobs, &s->jobs_cap, s->njobs) < 0)
		return VC_ENOMEM;
	s->jobs[s->njobs++] = j;
	return 0;
}

int sched_snapshot_add_node(struct sched_snapshot *s, struct sched_node_info *n)
{
	struct vc_resource total = VC_RESOURCE_INIT, tmp;

	if (grow((void **)&s->nodes, &s->nodes_cap, s->nnodes) < 0)
		return VC_ENOMEM;
	if (vc_resource_copy(&total, &s->total) < 0 ||
	    vc_resource_add(&total, &n->allocatable) < 0) {
		vc_resource_release(&total);
		return VC_ENOMEM;
	}
	tmp = s->total;
	s->total = total;
	vc_resource_release(&tmp);
	s->nodes[s->nnodes++] = n;
	return 0;
}

int sched_snapshot_add_queue(struct sched_snapshot *s, struct sched_queue_info *q)
{
	if (grow((void **)&s->queues, &s->queues_cap, s->nqueues) < 0)
		return VC_ENOMEM;
	s->queues[s->nqueues++] = q;
	return 0;
}

struct sched_node_info *sched_snapshot_node(const struct sched_snapshot *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nnodes; i++)
		if (strcmp(s->nodes[i]->name, name) == 0)
			return s->nodes[i];
	return NULL;
}

struct sched_queue_info *sched_snapshot_queue(const struct sched_snapshot *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nqueues; i++)
		if (strcmp(s->queues[i]->name, name) == 0)
			return s->queues[i];
	return NULL;
}

struct sched_job_info *sched_snapshot_job(const struct sched_snapshot *s, const char *uid)
{
	size_t i;

	for (i = 0; i < s->njobs; i++)
		if (strcmp(s->jobs[i]->uid, uid) == 0)
			return s->jobs[i];
	return NULL;
}

int sched_snapshot_place(struct sched_snapshot *s)
{
	struct sched_name_index m;
	size_t i, k;
	int rc = 0;

	sched_name_index_init(&m);
	rc = vc_hmap_reserve(&m.map, s->nnodes);
	for (i = 0; i < s->nnodes && rc == 0; i++)
		rc = sched_name_index_put(&m, s->nodes[i]->name, (uint32_t)i);
	for (i = 0; i < s->njobs && rc == 0; i++) {
		for (k = 0; k < s->jobs[i]->ntasks; k++) {
			struct sched_task_info *t = s->jobs[i]->tasks[k];
			uint32_t n;

			/* Terminated pods are not charged to their node (docs/volcano/scheduler.md
			 * §1.2). */
			if (!t->node_name || t->status == SCHED_TASK_SUCCEEDED ||
			    t->status == SCHED_TASK_FAILED)
				continue;
			n = sched_name_index_get(&m, t->node_name);
			if (n == SCHED_NONE)
				continue;
			rc = sched_node_add_task(s->nodes[n], t);
			if (rc < 0)
				break;
		}
	}
	sched_name_index_release(&m);
	return rc;
}

void sched_snapshot_release(struct sched_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->njobs; i++) {
		sched_job_release(s->jobs[i]);
		vc_free(s->jobs[i]);
	}
	for (i = 0; i < s->nnodes; i++) {
		sched_node_release(s->nodes[i]);
		vc_free(s->nodes[i]);
	}
	for (i = 0; i < s->nqueues; i++) {
		sched_queue_release(s->queues[i]);
		vc_free(s->queues[i]);
	}
	vc_free(s->jobs);
	vc_free(s->nodes);
	vc_free(s->queues);
	vc_resource_release(&s->total);
	memset(s, 0, sizeof(*s));
}
