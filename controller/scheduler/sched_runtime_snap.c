/*
 * sched_runtime_snap.c - the scheduler's snapshot of the informer caches (docs/volcano/scheduler.md
 * §1.1, §1.2), assembled from the views sched_runtime_views.c keeps across cycles.
 */
#include "sched_runtime_internal.h"

#include "sched_api.h"
#include "sched_volume.h"

#include "vc_alloc.h"
#include "vc_cache.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

/* ---- snapshot -------------------------------------------------------------------------------- */

void srt_snap_release(struct srt_snap *sn)
{
	size_t i;

	sched_snapshot_release(&sn->snap);
	for (i = 0; i < sn->nloose; i++) {
		sched_task_release(sn->loose[i]);
		vc_free(sn->loose[i]);
	}
	vc_free(sn->loose);
	for (i = 0; i < sn->nqueues; i++)
		vc_queue_view_release(&sn->queues[i]);
	vc_free(sn->queues);
	for (i = 0; i < sn->npods; i++)
		srt_pod_view_free(sn->pods[i]);
	vc_free(sn->pods);
	sched_vol_catalog_free(sn->volumes);
	memset(sn, 0, sizeof(*sn));
}

/* ---- views kept across cycles ---------------------------------------------------------------- */

void srt_pg_view_free(void *val)
{
	struct srt_view *v = val;

	if (!v)
		return;
	if (!v->rc)
		vc_podgroup_view_release(&v->v.pg);
	json_decref(v->labels);
	json_decref(v->annotations);
	vc_free(v->strings);
	vc_free(v);
}

void srt_node_view_free(void *val)
{
	struct srt_view *v = val;

	if (!v->rc)
		vc_node_view_release(&v->v.node);
	json_decref(v->obj);
	vc_free(v);
}

/*
 * The view of node obj from m, made when obj is new or changed. Returns 0 and *out (NULL when
 * the object is malformed: logged once per version), or VC_ENOMEM.
 */
static int cached_view(struct sched_runtime *s, struct srt_map *m, json_t *obj,
		       struct srt_view **out)
{
	char key[VC_CACHE_KEY_MAX];
	struct vc_error verr;
	struct srt_view *v;
	int rc;

	*out = NULL;
	if (vc_cache_key(obj, key, sizeof(key)) < 0)
		return 0;
	v = srt_map_get(m, key);
	if (!v || v->obj != obj) {
		v = vc_calloc(1, sizeof(*v));
		if (!v)
			return VC_ENOMEM;
		vc_error_clear(&verr);
		rc = vc_node_view(obj, &v->v.node, &verr);
		if (rc == VC_ENOMEM) {
			vc_free(v);
			return rc;
		}
		v->rc = rc;
		v->obj = json_incref(obj);
		if (srt_map_put(m, key, v) < 0) {
			m->free_val(v);
			return VC_ENOMEM;
		}
		if (rc)
			VC_WARN("skipping malformed object", "node=%s error=\"%s\"", key,
				verr.text);
	}
	v->seen_cycle = s->cycle;
	if (!v->rc)
		*out = v;
	return 0;
}

static bool sweep_view(void *ctx, const char *key, void *val)
{
	const struct sched_runtime *s = ctx;
	const struct srt_view *v = val;

	(void)key;
	return v->seen_cycle != s->cycle;
}

static int list_cache(struct vc_informer *inf, struct vc_objs *out)
{
	memset(out, 0, sizeof(*out));
	if (!inf)
		return 0;
	return vc_cache_list(vc_informer_cache(inf), out);
}

/* An array of n views, at least one element so that calloc never returns NULL for "none". */
static void *view_array(size_t n, size_t size)
{
	return vc_calloc(n ? n : 1, size);
}

static int build_queues(struct srt_snap *sn, const struct vc_objs *qs)
{
	struct vc_error verr;
	size_t i;

	sn->queues = view_array(qs->count, sizeof(*sn->queues));
	if (!sn->queues)
		return VC_ENOMEM;
	for (i = 0; i < qs->count; i++) {
		struct vc_queue *v = &sn->queues[sn->nqueues];
		struct sched_queue_info *q;
		int rc = vc_queue_view(qs->items[i], v, &verr);

		if (rc == VC_ENOMEM)
			return rc;
		if (rc) {
			VC_LOG(VC_LOG_V(2), "skipping malformed queue", "queue=%s error=\"%s\"",
			       vc_json_get_str(vc_json_get_obj(qs->items[i], "metadata"), "name"),
			       verr.text);
			continue;
		}
		sn->nqueues++;
		q = vc_malloc(sizeof(*q));
		if (!q)
			return VC_ENOMEM;
		if (sched_queue_from_view(q, v) < 0) {
			vc_free(q);
			return VC_ENOMEM;
		}
		if (sched_snapshot_add_queue(&sn->snap, q) < 0) {
			sched_queue_release(q);
			vc_free(q);
			return VC_ENOMEM;
		}
	}
	return 0;
}

/* Volcano's nodeSelectorLabels: a node is managed when one of its labels is a key:value listed. */
static bool node_selected(const struct sched_runtime *s, const json_t *obj)
{
	json_t *labels = vc_json_path(obj, "metadata.labels");
	const char *k;
	json_t *v;
	size_t i;

	if (!s->cfg.nnode_selectors)
		return true;
	json_object_foreach (labels, k, v) {
		const char *val = json_string_value(v);
		size_t kl = strlen(k);

		if (!val)
			continue;
		for (i = 0; i < s->cfg.nnode_selectors; i++) {
			const char *sel = s->cfg.node_selectors[i];

			if (strncmp(sel, k, kl) == 0 && sel[kl] == ':' &&
			    strcmp(sel + kl + 1, val) == 0)
				return true;
		}
	}
	return false;
}

static int build_nodes(struct sched_runtime *s, struct srt_snap *sn, const struct vc_objs *ns,
		       struct srt_map *by_name)
{
	size_t i;

	for (i = 0; i < ns->count; i++) {
		struct srt_view *v;
		struct sched_node_info *n;

		if (!node_selected(s, ns->items[i]))
			continue;
		if (cached_view(s, &s->node_views, ns->items[i], &v) < 0)
			return VC_ENOMEM;
		if (!v)
			continue;
		n = vc_malloc(sizeof(*n));
		if (!n)
			return VC_ENOMEM;
		if (sched_node_from_view(n, &v->v.node) < 0) {
			vc_free(n);
			return VC_ENOMEM;
		}
		if (sched_snapshot_add_node(&sn->snap, n) < 0) {
			sched_node_release(n);
			vc_free(n);
			return VC_ENOMEM;
		}
		if (srt_map_put(by_name, n->name, n) < 0)
			return VC_ENOMEM;
	}
	return 0;
}

/*
 * The priority of a job (Volcano's snapshot): the globalDefault class's value (the highest when
 * several claim it), else 0; then the value of the PodGroup's priorityClassName when it exists.
 */
static int32_t job_priority(const struct vc_objs *pcs, const char *name)
{
	bool have_default = false;
	int64_t def = 0;
	size_t i;

	for (i = 0; i < pcs->count; i++) {
		const json_t *pc = pcs->items[i];
		int64_t v = vc_json_get_int(pc, "value", 0);

		if (name && *name &&
		    vc_str_eq(vc_json_get_str(vc_json_get_obj(pc, "metadata"), "name"), name))
			return (int32_t)VC_MAX(VC_MIN(v, INT32_MAX), INT32_MIN);
		if (vc_json_get_bool(pc, "globalDefault", false) && (!have_default || v > def)) {
			def = v;
			have_default = true;
		}
	}
	return (int32_t)VC_MAX(VC_MIN(def, INT32_MAX), INT32_MIN);
}

/*
 * The view of the PodGroup under key: the one kept while the source holds the version it was
 * made from, else one made from a parse of the source's object. The source is the cache (packed,
 * ctx.c: a cycle parses only the PodGroups that changed) or, in a partial view, the object the
 * podgroups informer's first list handed over (early, not NULL). Returns 0 and *out (NULL when
 * the PodGroup is malformed, or gone since the keys were taken), or VC_ENOMEM.
 */
static int pg_view(struct sched_runtime *s, struct vc_cache *c, const char *key, json_t *early,
		   struct srt_view **out, bool *kept)
{
	struct srt_view *v = srt_map_get(&s->pg_views, key);
	json_t *obj;
	bool fresh;
	int rc;

	*out = NULL;
	*kept = false;
	if (early) {
		const char *rv = v ? srt_pg_view_rv(v) : NULL;
		const char *orv =
			vc_json_get_str(vc_json_get_obj(early, "metadata"), "resourceVersion");

		fresh = rv && orv && *rv && strcmp(rv, orv) == 0;
	} else {
		fresh = v && vc_cache_has_version(c, key, srt_pg_view_rv(v));
	}
	if (!fresh) {
		obj = early ? json_incref(early) : vc_cache_get(c, key);
		if (!obj)
			return 0; /* deleted meanwhile, or no memory to parse it (logged) */
		rc = srt_pg_view_make(s, key, obj, &v);
		json_decref(obj);
		if (rc < 0)
			return rc;
		if (srt_map_put(&s->pg_views, key, v) < 0) {
			srt_pg_view_free(v);
			return VC_ENOMEM;
		}
	}
	v->seen_cycle = s->cycle;
	*kept = fresh;
	if (!v->rc)
		*out = v;
	return 0;
}

/*
 * The PodGroups of a partial view (s->pgs_partial): those the podgroups informer's first list
 * has handed over so far, in the order of their keys; keys->items[i] is objs->items[i]'s key
 * (one block, as vc_cache_keys gives). 0 or VC_ENOMEM (both then empty).
 */
static int list_early_pgs(struct sched_runtime *s, struct vc_cache_keys *keys, struct vc_objs *objs)
{
	const struct srt_map_ent *e;
	size_t i, bytes = 0;
	char *str;
	int rc = 0;

	memset(keys, 0, sizeof(*keys));
	memset(objs, 0, sizeof(*objs));
	pthread_mutex_lock(&s->views_mu);
	e = srt_map_sorted(&s->early_pgs);
	if (!e && s->early_pgs.count) {
		rc = VC_ENOMEM;
		goto out;
	}
	for (i = 0; i < s->early_pgs.count; i++)
		bytes += strlen(e[i].key) + 1;
	objs->items = view_array(s->early_pgs.count, sizeof(json_t *));
	keys->items =
		vc_malloc((s->early_pgs.count ? s->early_pgs.count : 1) * sizeof(char *) + bytes);
	if (!objs->items || !keys->items) {
		vc_free(objs->items);
		vc_free(keys->items);
		memset(keys, 0, sizeof(*keys));
		memset(objs, 0, sizeof(*objs));
		rc = VC_ENOMEM;
		goto out;
	}
	str = (char *)(keys->items + (s->early_pgs.count ? s->early_pgs.count : 1));
	for (i = 0; i < s->early_pgs.count; i++) {
		size_t n = strlen(e[i].key) + 1;

		memcpy(str, e[i].key, n);
		keys->items[keys->count++] = str;
		str += n;
		objs->items[objs->count++] = json_incref(e[i].val);
	}
out:
	pthread_mutex_unlock(&s->views_mu);
	return rc;
}

/*
 * A partial view (srt_prepare) lacks PodGroups and pods not listed yet, so proportion would
 * share the cluster among the queues by requests smaller than they are: a queue whose jobs
 * came first could be given what the whole view would give to another. Until the view is
 * whole, each queue is capped at its weight's share of the cluster over all the queues (the
 * least proportion gives a queue that asks for that much, whatever the others ask), on top of
 * its own capability (docs/volcano/scheduler.md §1.1).
 */
static int cap_partial_queues(struct srt_snap *sn)
{
	struct vc_resource total = VC_RESOURCE_INIT, fair = VC_RESOURCE_INIT;
	int64_t weights = 0;
	size_t i;
	int rc = 0;

	for (i = 0; i < sn->snap.nnodes; i++)
		if (vc_resource_add(&total, &sn->snap.nodes[i]->allocatable) < 0)
			goto nomem;
	for (i = 0; i < sn->snap.nqueues; i++)
		weights += sn->snap.queues[i]->weight > 0 ? sn->snap.queues[i]->weight : 1;
	for (i = 0; i < sn->snap.nqueues; i++) {
		struct sched_queue_info *q = sn->snap.queues[i];
		double cpu, mem;

		if (vc_resource_copy(&fair, &total) < 0)
			goto nomem;
		vc_resource_multi(&fair, (double)(q->weight > 0 ? q->weight : 1) / (double)weights);
		cpu = fair.milli_cpu;
		mem = fair.memory;
		if (q->has_capability) {
			/* A capability's 0 cpu or memory is no limit (realCapability). */
			vc_resource_min_dimension(&fair, &q->capability, VC_RESOURCE_INFINITY);
			if (q->capability.milli_cpu > 0)
				cpu = VC_MIN(cpu, q->capability.milli_cpu);
			if (q->capability.memory > 0)
				mem = VC_MIN(mem, q->capability.memory);
			fair.milli_cpu = cpu;
			fair.memory = mem;
		}
		/* At least a millicore and a byte: 0 would read as no limit. */
		fair.milli_cpu = VC_MAX(fair.milli_cpu, 1);
		fair.memory = VC_MAX(fair.memory, 1);
		if (vc_resource_copy(&q->capability, &fair) < 0)
			goto nomem;
		q->has_capability = true;
	}
	goto out;
nomem:
	rc = VC_ENOMEM;
out:
	vc_resource_release(&total);
	vc_resource_release(&fair);
	return rc;
}

/* early: a partial view's PodGroup objects, early->items[i] under pgs->items[i]; else NULL. */
static int build_jobs(struct sched_runtime *s, struct srt_snap *sn, struct vc_cache *c,
		      const struct vc_cache_keys *pgs, const struct vc_objs *early,
		      const struct vc_objs *pcs, struct srt_map *by_key)
{
	size_t i;

	for (i = 0; i < pgs->count; i++) {
		const char *raw_queue, *queue;
		struct sched_job_info *j;
		struct srt_view *sv;
		struct vc_podgroup *v;
		json_t *eo = early && early->items && i < early->count ? early->items[i] : NULL;

		struct srt_kept *k;
		bool view_kept;

		if (pg_view(s, c, pgs->items[i], eo, &sv, &view_kept) < 0)
			return VC_ENOMEM;
		if (!sv)
			continue;
		v = &sv->v.pg;
		raw_queue = vc_json_get_str(vc_json_get_obj(v->obj, "spec"), "queue");
		queue = raw_queue && *raw_queue ? raw_queue : s->cfg.default_queue;
		if (!sched_snapshot_queue(&sn->snap, queue)) {
			VC_LOG(VC_LOG_V(4), "podgroup's queue not found", "podgroup=%s/%s queue=%s",
			       v->meta.ns, v->meta.name, queue);
			continue;
		}
		/* The job of the last snapshot, when its views are the same (struct srt_kept). */
		k = s->nkept ? vc_hmap_get(&s->kept, pgs->items[i]) : NULL;
		if (k && k->job && view_kept && !k->broken && k->cursor == k->job->ntasks &&
		    k->job->pg == v && strcmp(k->job->queue, queue) == 0) {
			j = k->job;
			if (sched_snapshot_add_job(&sn->snap, j) < 0)
				return VC_ENOMEM; /* j stays the kept entry's */
			k->job = NULL;
			k->reused = true;
			sn->reused++;
			j->priority = job_priority(pcs, v->priority_class_name);
			if (srt_map_put(by_key, j->uid, j) < 0)
				return VC_ENOMEM;
			continue;
		}
		j = vc_malloc(sizeof(*j));
		if (!j)
			return VC_ENOMEM;
		if (sched_job_from_podgroup(j, v, job_priority(pcs, v->priority_class_name)) < 0) {
			vc_free(j);
			return VC_ENOMEM;
		}
		if (strcmp(j->queue, queue) != 0) {
			char *q = vc_strdup(queue);

			if (!q)
				goto nomem;
			vc_free(j->queue);
			j->queue = q;
		}
		if (sched_snapshot_add_job(&sn->snap, j) < 0)
			goto nomem;
		if (srt_map_put(by_key, j->uid, j) < 0)
			return VC_ENOMEM;
		continue;
nomem:
		sched_job_release(j);
		vc_free(j);
		return VC_ENOMEM;
	}
	return 0;
}

static bool is_terminated(enum sched_task_status st)
{
	return st == SCHED_TASK_SUCCEEDED || st == SCHED_TASK_FAILED;
}

/*
 * What the runtime knows and the cache may not show yet: binds sent (the task is Binding on its
 * node until the pod shows spec.nodeName) and evictions sent (Releasing until the pod shows its
 * deletion). Drops entries the pod has caught up with.
 */
static int apply_assumptions(struct sched_runtime *s, struct sched_task_info *t,
			     const struct vc_pod *p)
{
	struct srt_assumed *a;
	struct srt_evicted *e;
	int rc = 0;

	pthread_mutex_lock(&s->mu);
	if (s->assumed.count && (a = srt_map_get(&s->assumed, t->uid))) {
		if (p->node_name[0] || is_terminated(t->status) || p->meta.deletion_timestamp) {
			srt_map_del(&s->assumed, t->uid);
		} else {
			a->seen_cycle = s->cycle;
			if (t->status == SCHED_TASK_PENDING) {
				rc = sched_task_set_node(t, a->node);
				if (!rc)
					t->status = SCHED_TASK_BINDING;
			}
		}
	}
	if (!rc && s->evicted.count && (e = srt_map_get(&s->evicted, t->uid))) {
		if (p->meta.deletion_timestamp || is_terminated(t->status)) {
			srt_map_del(&s->evicted, t->uid);
		} else {
			e->seen_cycle = s->cycle;
			if (sched_task_status_is_allocated(t->status))
				t->status = SCHED_TASK_RELEASING;
		}
	}
	pthread_mutex_unlock(&s->mu);
	return rc;
}

static int add_loose(struct srt_snap *sn, struct sched_task_info *t, size_t *cap)
{
	if (sn->nloose == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct sched_task_info **p =
			vc_realloc(sn->loose, ncap * sizeof(struct sched_task_info *));

		if (!p)
			return VC_ENOMEM;
		sn->loose = p;
		*cap = ncap;
	}
	sn->loose[sn->nloose++] = t;
	return 0;
}

/*
 * Take a reference to every pod view, for the snapshot's tasks to borrow, in the order of their
 * cache keys. That order is the order of the tasks in each job and node, and so of the
 * session's results, the pod condition writes and the first unschedulable task a PodGroup's
 * message names: it must not follow the map's slots, which depend on the insertion history.
 */
static int collect_pod_views(struct sched_runtime *s, struct srt_snap *sn)
{
	const struct srt_map_ent *e;
	size_t i, n = 0;
	int rc = 0;

	pthread_mutex_lock(&s->views_mu);
	sn->pods = view_array(s->pod_views.count, sizeof(struct srt_view *));
	e = srt_map_sorted(&s->pod_views);
	if (!sn->pods || (!e && s->pod_views.count)) {
		rc = VC_ENOMEM;
		goto out;
	}
	for (i = 0; i < s->pod_views.count; i++) {
		struct srt_view *v = e[i].val;

		if (v->rc)
			continue;
		__atomic_add_fetch(&v->refs, 1, __ATOMIC_RELAXED);
		sn->pods[n++] = v;
	}
	sn->npods = n;
out:
	pthread_mutex_unlock(&s->views_mu);
	return rc;
}

/* ---- jobs kept from one snapshot for the next (struct srt_kept) ------------------------------ */

void srt_kept_release(struct sched_runtime *s)
{
	size_t i;

	if (s->kept.count)
		vc_hmap_clear(&s->kept, NULL);
	for (i = 0; i < s->nkept; i++) {
		sched_job_release(s->kept_jobs[i].job);
		vc_free(s->kept_jobs[i].job);
	}
	vc_free(s->kept_jobs);
	s->kept_jobs = NULL;
	s->nkept = 0;
	for (i = 0; i < s->nkept_pods; i++)
		srt_pod_view_free(s->kept_pods[i]);
	vc_free(s->kept_pods);
	s->kept_pods = NULL;
	s->nkept_pods = 0;
}

/*
 * Match the snapshot's pod views, in their order, against the tasks of the kept jobs: a kept job
 * can be taken whole only when the views of its PodGroup's pods are its tasks' views in the same
 * order, and none of those pods has a bind or an eviction the runtime assumes (apply_assumptions
 * would change its task). Pointers are compared: the kept tasks' views are alive (kept_pods).
 */
static void match_kept(struct sched_runtime *s, const struct srt_snap *sn)
{
	char key[VC_CACHE_KEY_MAX];
	size_t i;

	if (!s->nkept)
		return;
	pthread_mutex_lock(&s->mu);
	for (i = 0; i < sn->npods; i++) {
		const struct vc_pod *v = &sn->pods[i]->v.pod;
		const struct sched_task_info *t;
		struct srt_kept *k;

		if (!v->group_name || !*v->group_name ||
		    snprintf(key, sizeof(key), "%s/%s", v->meta.ns, v->group_name) >=
			    (int)sizeof(key))
			continue;
		k = vc_hmap_get(&s->kept, key);
		if (!k || k->broken)
			continue;
		t = k->cursor < k->job->ntasks ? k->job->tasks[k->cursor] : NULL;
		if (!t || t->pod != v || (s->assumed.count && srt_map_get(&s->assumed, t->uid)) ||
		    (s->evicted.count && srt_map_get(&s->evicted, t->uid)))
			k->broken = true;
		else
			k->cursor++;
	}
	pthread_mutex_unlock(&s->mu);
}

/*
 * Whether the session left job j's tasks as a build from their views makes them (srt_snap_keep);
 * then what the session may change in the job itself is made again as a build makes it: the
 * phase from the PodGroup's (the close sets the phase it computed: a PodGroup whose status write
 * has not shown yet differs), the drf share cleared, and the allocated sum as sched_job_add_task
 * sums it (a session that allocated and discarded may leave other roundings). Only jobs without
 * scalar resources are kept: their sums are two numbers.
 */
static bool keepable(struct sched_job_info *j)
{
	double cpu = 0, mem = 0;
	size_t i;

	if (!j->pg || j->allocated.nscalars || j->request.nscalars || j->min_resources.nscalars)
		return false;
	for (i = 0; i < j->ntasks; i++) {
		const struct sched_task_info *t = j->tasks[i];
		const struct vc_pod *p = t->pod;

		if (!p || t->ssn || t->req.nscalars || t->status != sched_task_status_of_pod(p) ||
		    !vc_str_eq(t->node_name, p->node_name[0] ? p->node_name : NULL))
			return false;
		if (sched_task_status_is_allocated(t->status)) {
			cpu += t->req.milli_cpu;
			mem += t->req.memory;
		}
	}
	j->allocated.milli_cpu = cpu;
	j->allocated.memory = mem;
	j->share = 0;
	j->phase = j->pg->phase;
	return true;
}

void srt_snap_keep(struct sched_runtime *s, struct srt_snap *sn)
{
	size_t i, n = 0;

	srt_kept_release(s);
	if (s->pods_partial || s->pgs_partial || !sn->snap.njobs)
		return;
	s->kept_jobs = vc_calloc(sn->snap.njobs, sizeof(*s->kept_jobs));
	if (!s->kept_jobs)
		return;
	for (i = 0; i < sn->snap.njobs; i++) {
		struct sched_job_info *j = sn->snap.jobs[i];
		struct srt_kept *k = &s->kept_jobs[s->nkept];

		if (!keepable(j) || vc_hmap_put(&s->kept, j->uid, k, NULL) < 0) {
			sn->snap.jobs[n++] = j;
			continue;
		}
		k->job = j;
		s->nkept++;
	}
	sn->snap.njobs = n;
	s->kept_pods = sn->pods;
	s->nkept_pods = sn->npods;
	sn->pods = NULL;
	sn->npods = 0;
}

static int build_tasks(struct sched_runtime *s, struct srt_snap *sn, struct srt_map *jobs)
{
	struct vc_error verr;
	size_t i, loose_cap = 0;
	char key[VC_CACHE_KEY_MAX];

	for (i = 0; i < sn->npods; i++) {
		struct sched_job_info *job = NULL;
		struct sched_task_info *t;
		struct vc_pod *v = &sn->pods[i]->v.pod;
		bool grouped = v->group_name && *v->group_name &&
			       snprintf(key, sizeof(key), "%s/%s", v->meta.ns, v->group_name) <
				       (int)sizeof(key);
		int rc;

		if (grouped && sn->reused) {
			const struct srt_kept *k = vc_hmap_get(&s->kept, key);

			if (k && k->reused)
				continue; /* its task came with its kept job */
		}
		t = vc_malloc(sizeof(*t));
		if (!t)
			return VC_ENOMEM;
		rc = sched_task_from_pod(t, v, &verr);
		if (rc == VC_ENOMEM) {
			vc_free(t);
			return rc;
		}
		if (rc) {
			VC_LOG(VC_LOG_V(2), "skipping pod", "pod=%s/%s error=\"%s\"", v->meta.ns,
			       v->meta.name, verr.text);
			vc_free(t);
			continue;
		}
		if (apply_assumptions(s, t, v) < 0)
			goto nomem;
		if (grouped)
			job = srt_map_get(jobs, key);
		if (job) {
			if (sched_job_add_task(job, t) < 0)
				goto nomem;
		} else if (t->node_name && !is_terminated(t->status)) {
			/* Bound pods in no job are charged to their node (terminated ones are not).
			 */
			if (add_loose(sn, t, &loose_cap) < 0)
				goto nomem;
		} else {
			sched_task_release(t);
			vc_free(t);
		}
		continue;
nomem:
		sched_task_release(t);
		vc_free(t);
		return VC_ENOMEM;
	}
	return 0;
}

static bool sweep_assumed(void *ctx, const char *key, void *val)
{
	const struct sched_runtime *s = ctx;
	const struct srt_assumed *a = val;

	(void)key;
	if (a->in_flight)
		return false;
	if (a->seen_cycle != s->cycle)
		return true; /* the pod is gone or no longer ours */
	return vc_time_mono_ns() - a->done_at > SRT_ASSUME_TTL_NS;
}

static bool sweep_evicted(void *ctx, const char *key, void *val)
{
	const struct sched_runtime *s = ctx;
	const struct srt_evicted *e = val;

	(void)key;
	if (e->in_flight)
		return false;
	if (e->seen_cycle != s->cycle)
		return true;
	return vc_time_mono_ns() - e->at > SRT_EVICT_TTL_NS;
}

int srt_snap_build(struct sched_runtime *s, struct srt_snap *out, struct vc_error *err)
{
	struct vc_objs qs, pcs, ns, early;
	struct vc_cache_keys pgs = { 0 };
	struct srt_map nodes_by_name, jobs_by_key;
	struct vc_ctrl_ctx *ctx = s->ctx;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&nodes_by_name, 0, sizeof(nodes_by_name));
	memset(&jobs_by_key, 0, sizeof(jobs_by_key));
	memset(&qs, 0, sizeof(qs));
	memset(&pcs, 0, sizeof(pcs));
	memset(&ns, 0, sizeof(ns));
	memset(&early, 0, sizeof(early));
	rc = sched_snapshot_init(&out->snap);
	if (rc < 0)
		goto fail;
		/* Namespaces, Services and pod controllers for the placement rules
		 * (sched_objects.h). */
#define CACHE_OF(inf) ((inf) ? vc_informer_cache(inf) : NULL)
	s->objs.namespaces = CACHE_OF(ctx->namespaces);
	s->objs.services = CACHE_OF(ctx->services);
	s->objs.rcs = CACHE_OF(ctx->rcs);
	s->objs.replicasets = CACHE_OF(ctx->replicasets);
	s->objs.statefulsets = CACHE_OF(ctx->statefulsets);
#undef CACHE_OF
	out->snap.objs = &s->objs;
	rc = list_cache(ctx->queues, &qs);
	if (!rc)
		rc = list_cache(ctx->priorityclasses, &pcs);
	if (!rc)
		rc = list_cache(ctx->nodes, &ns);
	if (!rc)
		rc = s->pgs_partial ? list_early_pgs(s, &pgs, &early)
				    : vc_cache_keys(vc_informer_cache(ctx->podgroups), &pgs);
	if (!rc && (s->pods_partial || s->pgs_partial))
		srt_kept_release(s); /* a partial view takes nothing from the last snapshot */
	if (!rc)
		rc = collect_pod_views(s, out);
	if (!rc)
		match_kept(s, out);
	if (!rc)
		rc = srt_vol_catalog(s, out);
	if (!rc)
		rc = srt_map_init(&nodes_by_name, ns.count, NULL);
	if (!rc)
		rc = srt_map_init(&jobs_by_key, pgs.count, NULL);
	if (!rc)
		rc = build_queues(out, &qs);
	if (!rc)
		rc = build_nodes(s, out, &ns, &nodes_by_name);
	if (!rc && (s->pods_partial || s->pgs_partial))
		rc = cap_partial_queues(out);
	if (!rc)
		rc = build_jobs(s, out, vc_informer_cache(ctx->podgroups), &pgs,
				s->pgs_partial ? &early : NULL, &pcs, &jobs_by_key);
	if (!rc)
		rc = build_tasks(s, out, &jobs_by_key);
	/* The kept jobs not taken are released; those taken are out's now. */
	srt_kept_release(s);
	if (!rc)
		rc = sched_snapshot_place(&out->snap);
	for (i = 0; !rc && i < out->nloose; i++) {
		struct sched_node_info *n = srt_map_get(&nodes_by_name, out->loose[i]->node_name);

		if (n)
			rc = sched_node_add_task(n, out->loose[i]);
	}
	if (rc)
		goto fail;
	srt_map_sweep(&s->pg_views, sweep_view, s);
	srt_map_sweep(&s->node_views, sweep_view, s);
	pthread_mutex_lock(&s->mu);
	srt_map_sweep(&s->assumed, sweep_assumed, s);
	srt_map_sweep(&s->evicted, sweep_evicted, s);
	s->stats.jobs_reused += out->reused;
	pthread_mutex_unlock(&s->mu);
	goto out;
fail:
	srt_kept_release(s);
	srt_snap_release(out);
	rc = vc_error_set(err, rc, "cannot build the scheduling snapshot: %s", vc_strerror(rc));
out:
	srt_map_release(&nodes_by_name);
	srt_map_release(&jobs_by_key);
	vc_objs_release(&qs);
	vc_objs_release(&pcs);
	vc_objs_release(&ns);
	vc_cache_keys_release(&pgs);
	vc_objs_release(&early);
	return rc;
}
