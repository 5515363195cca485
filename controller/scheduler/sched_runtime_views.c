/*
 * sched_runtime_views.c - the string map the runtime keeps its bookkeeping in (a vc_hmap that owns
 * its values and lists them in key order), and the pod
 * views it keeps across cycles: reduced pods whose shared subtrees (spec, status, labels,
 * annotations) live in the intern table (sched_runtime_snap.c builds each cycle's snapshot from
 * them).
 */
#include "sched_runtime_internal.h"

#include "vc_alloc.h"
#include "vc_cache.h"
#include "vc_hash.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_str.h"

/* ---- the map --------------------------------------------------------------------------------- */

int srt_map_init(struct srt_map *m, size_t hint, void (*free_val)(void *val))
{
	memset(m, 0, sizeof(*m));
	vc_hmap_init_str(&m->h);
	m->free_val = free_val;
	/* Sized for hint entries up front (an empty map either way when this fails). */
	return vc_hmap_reserve(&m->h, hint);
}

static void map_free_val(const struct srt_map *m, void *val)
{
	if (m->free_val && val)
		m->free_val(val);
}

void srt_map_release(struct srt_map *m)
{
	size_t pos = 0;
	void *val;

	while (vc_hmap_next(&m->h, &pos, NULL, &val))
		map_free_val(m, val);
	vc_hmap_release(&m->h, NULL);
	vc_free(m->sorted);
	m->sorted = NULL;
	m->sorted_ok = false;
	m->count = 0;
}

void *srt_map_get(const struct srt_map *m, const char *key)
{
	return vc_hmap_get(&m->h, key);
}

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct srt_map_ent *)a)->key, ((const struct srt_map_ent *)b)->key);
}

int srt_map_put(struct srt_map *m, const char *key, void *val)
{
	void *old = NULL;

	if (vc_hmap_put(&m->h, key, val, &old) < 0)
		return VC_ENOMEM;
	if (vc_hmap_count(&m->h) != m->count) {
		m->sorted_ok = false; /* a new key */
	} else if (m->sorted_ok) {
		struct srt_map_ent probe = { key, NULL }, *e;

		e = bsearch(&probe, m->sorted, m->count, sizeof(*e), ent_cmp);
		if (e)
			e->val = val;
		else
			m->sorted_ok = false; /* cannot happen: the array holds every key */
	}
	if (old != val)
		map_free_val(m, old);
	m->count = vc_hmap_count(&m->h);
	return 0;
}

bool srt_map_del(struct srt_map *m, const char *key)
{
	void *val = NULL;

	if (!vc_hmap_remove(&m->h, key, &val))
		return false;
	m->count = vc_hmap_count(&m->h);
	m->sorted_ok = false;
	map_free_val(m, val);
	return true;
}

const struct srt_map_ent *srt_map_sorted(struct srt_map *m)
{
	struct srt_map_ent *e;
	size_t pos = 0, n = 0;
	const void *key;
	void *val;

	if (m->sorted_ok || !m->count)
		return m->count ? m->sorted : NULL;
	e = vc_realloc(m->sorted, m->count * sizeof(*e));
	if (!e)
		return NULL;
	m->sorted = e;
	while (vc_hmap_next(&m->h, &pos, &key, &val)) {
		e[n].key = key;
		e[n++].val = val;
	}
	qsort(e, n, sizeof(*e), ent_cmp);
	m->sorted_ok = true;
	return e;
}

/*
 * One walk: fn on every entry, then the removal of those it chose (vc_hmap_next allows no change
 * during a walk). Returns how many were removed. Without memory for the list, the walk restarts
 * after each removal instead: slower, same result.
 */
static size_t sweep_once(struct srt_map *m, bool (*fn)(void *ctx, const char *key, void *val),
			 void *ctx)
{
	const void *key;
	const char **dead;
	size_t pos = 0, n = 0, i;
	void *val;

	dead = vc_malloc(m->count * sizeof(*dead));
	if (!dead) {
		while (vc_hmap_next(&m->h, &pos, &key, &val)) {
			if (fn(ctx, key, val)) {
				srt_map_del(m, key);
				pos = 0;
				n++;
			}
		}
		return n;
	}
	while (vc_hmap_next(&m->h, &pos, &key, &val))
		if (fn(ctx, key, val))
			dead[n++] = key;
	/* Each key is the map's own copy, valid until its removal frees it. */
	for (i = 0; i < n; i++)
		srt_map_del(m, dead[i]);
	vc_free(dead);
	return n;
}

/*
 * Walks until nothing more is removed: freeing a value can make another entry removable (the
 * intern table's spec and status pairs hold references to its specs and statuses).
 */
void srt_map_sweep(struct srt_map *m, bool (*fn)(void *ctx, const char *key, void *val), void *ctx)
{
	while (m->count && sweep_once(m, fn, ctx))
		;
}

/* ---- pod views ---------------------------------------------------------------------------------
 */

/* Drop one reference to a pod view; the last frees it. */
static void view_unref(struct srt_view *v)
{
	if (!v || __atomic_sub_fetch(&v->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	if (!v->rc)
		vc_pod_view_release(&v->v.pod);
	json_decref(v->obj);
	json_decref(v->labels);
	json_decref(v->annotations);
	json_decref(v->owners);
	vc_free(v->strings);
	vc_free(v);
}

/*
 * The shared copy of v (a new reference): the first one seen with v's content. Subtrees of
 * cached objects are immutable, so sharing them is safe; the table holds one reference and
 * srt_intern_sweep drops entries nothing else holds. NULL for NULL or on VC_ENOMEM.
 * Under views_mu.
 */
static json_t *intern(struct sched_runtime *s, json_t *v)
{
	struct vc_buf k;
	json_t *hit;

	if (!v)
		return NULL;
	vc_buf_init(&k, 0);
	if (vc_json_dump(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY, &k)) {
		vc_buf_release(&k);
		return NULL;
	}
	hit = srt_map_get(&s->intern, vc_buf_str(&k));
	if (!hit) {
		if (srt_map_put(&s->intern, vc_buf_str(&k), json_incref(v)) < 0) {
			json_decref(v);
			vc_buf_release(&k);
			return NULL;
		}
		hit = v;
	}
	vc_buf_release(&k);
	return json_incref(hit);
}

static bool intern_unused(void *ctx, const char *key, void *val)
{
	(void)ctx;
	(void)key;
	/* Only the table's reference left: nobody else can take one but intern(), under the
	 * same lock. (jansson changes reference counts atomically.) */
	return __atomic_load_n(&((json_t *)val)->refcount, __ATOMIC_ACQUIRE) == 1;
}

/* Forget shared subtrees no pod uses any more, when the table has doubled. Under views_mu. */
static void intern_sweep(struct sched_runtime *s)
{
	if (s->intern.count < 2 * s->intern_swept + 256)
		return;
	srt_map_sweep(&s->intern, intern_unused, NULL);
	s->intern_swept = s->intern.count;
}

/*
 * The shared copy of obj, an object whose members are shared copies already (a new reference;
 * NULL on VC_ENOMEM): known by its members' names and addresses (a key no JSON text starts with;
 * the object's references keep the addresses from reuse), so no serialization is needed.
 * Under views_mu.
 */
static json_t *intern_members(struct sched_runtime *s, json_t *obj)
{
	char key[512];
	const char *k;
	json_t *v, *shared;
	size_t off = 0;
	int n;

	json_object_foreach (obj, k, v) {
		n = snprintf(key + off, sizeof(key) - off, "\x01%s=%p", k, (void *)v);
		if (n < 0 || (size_t)n >= sizeof(key) - off)
			return NULL; /* member names of our own choosing: cannot happen */
		off += (size_t)n;
	}
	if (!off)
		key[0] = '\0';
	shared = srt_map_get(&s->intern, key);
	if (shared)
		return json_incref(shared);
	if (srt_map_put(&s->intern, key, json_incref(obj)) < 0) {
		json_decref(obj); /* the reference the table did not take */
		return NULL;
	}
	return json_incref(obj);
}

/*
 * Set key of dst to the shared copy of the members of src[key] named in keys, when it has one:
 * a pod's labels and annotations carry per-pod values (volcano.sh/task-index) the scheduler never
 * reads, and would make every pod's copy its own. Under views_mu.
 */
static int set_picked(struct sched_runtime *s, json_t *dst, const json_t *src, const char *key,
		      const char *const *keys)
{
	json_t *from = json_object_get(src, key), *picked, *v, *shared = NULL;
	size_t i;

	if (!json_is_object(from))
		return 0;
	picked = json_object();
	if (!picked)
		return VC_ENOMEM;
	for (i = 0; keys[i]; i++)
		if ((v = json_object_get(from, keys[i])) && json_object_set(picked, keys[i], v))
			goto nomem;
	if (!json_object_size(picked)) {
		json_decref(picked);
		return 0;
	}
	shared = intern(s, picked);
	json_decref(picked);
	return shared && json_object_set_new(dst, key, shared) == 0 ? 0 : VC_ENOMEM;
nomem:
	json_decref(picked);
	return VC_ENOMEM;
}

/*
 * Set dst's labels to the shared copy of src's labels without volcano.sh/task-index: pod
 * affinity and topology spread select pods by any label (sched_podaff.c), but the task index
 * differs from pod to pod and would make every pod's copy its own. Under views_mu.
 */
static int set_labels(struct sched_runtime *s, json_t *dst, const json_t *src)
{
	json_t *from = json_object_get(src, "labels"), *copy, *shared;

	if (!json_is_object(from) || !json_object_size(from))
		return 0;
	copy = json_copy(from); /* shallow: the values stay shared */
	if (!copy)
		return VC_ENOMEM;
	json_object_del(copy, "volcano.sh/task-index");
	if (!json_object_size(copy)) {
		json_decref(copy);
		return 0;
	}
	shared = intern(s, copy);
	json_decref(copy);
	return shared && json_object_set_new(dst, "labels", shared) == 0 ? 0 : VC_ENOMEM;
}

static int copy_member(json_t *dst, const json_t *src, const char *key)
{
	json_t *v = json_object_get(src, key);

	return !v || json_object_set(dst, key, v) == 0 ? 0 : VC_ENOMEM;
}

/*
 * Keep the pod's controller reference when the default spread reads it (a ReplicationController,
 * ReplicaSet or StatefulSet: sched_objects.h); a Volcano Job's pods keep none.
 */
static int set_controller(json_t *dst, const json_t *meta)
{
	const json_t *ref;
	json_t *refs;

	if (!sched_objects_selecting_owner(json_object_get(meta, "ownerReferences"), &ref))
		return 0;
	refs = json_pack("[O]", ref);
	return refs && json_object_set_new(dst, "ownerReferences", refs) == 0 ? 0 : VC_ENOMEM;
}

/*
 * What the scheduler keeps of a pod: identity, the labels and annotations it reads, the spec
 * without the per-pod hostname and subdomain, and the status fields it reads (phase, reason,
 * nominated node, the PodScheduled, Ready and DisruptionTarget conditions). Spec, status,
 * labels and annotations are shared between pods (a task's pending pods all have the same), so
 * a pod costs little more than its metadata. Under views_mu. NULL on VC_ENOMEM.
 */
static json_t *reduce_pod(struct sched_runtime *s, const json_t *obj)
{
	/* The annotations the scheduler reads (sched_api.c, vc_pod_view); labels: set_labels. */
	static const char *const annotation_keys[] = { SCHED_ANN_TASK_SPEC, SCHED_ANN_TASK_PRIORITY,
						       SCHED_ANN_PREEMPTABLE,
						       "scheduling.k8s.io/group-name", NULL };
	static const char *const meta_keys[] = { "name",
						 "namespace",
						 "uid",
						 "resourceVersion",
						 "creationTimestamp",
						 "deletionTimestamp",
						 NULL };
	static const char *const status_keys[] = { "phase", "reason", "nominatedNodeName", NULL };
	const json_t *meta = json_object_get(obj, "metadata"), *spec = json_object_get(obj, "spec");
	const json_t *status = json_object_get(obj, "status"), *conds, *c;
	json_t *out = json_object(), *m = json_object(), *sp = NULL, *st = json_object(), *v;
	size_t i;
	int rc = 0;

	if (!out || !m || !st)
		goto nomem;
	for (i = 0; !rc && meta_keys[i]; i++)
		rc = copy_member(m, meta, meta_keys[i]);
	if (!rc)
		rc = set_controller(m, meta);
	if (!rc)
		rc = set_labels(s, m, meta);
	if (!rc)
		rc = set_picked(s, m, meta, "annotations", annotation_keys);
	if (!rc)
		rc = copy_member(out, obj, "apiVersion");
	if (!rc)
		rc = copy_member(out, obj, "kind");
	if (rc)
		goto nomem;
	if (json_is_object(spec)) {
		sp = json_copy((json_t *)spec); /* shallow: the members stay shared */
		if (!sp)
			goto nomem;
		json_object_del(sp, "hostname");
		json_object_del(sp, "subdomain");
		v = intern(s, sp);
		json_decref(sp);
		if (!v || json_object_set_new(out, "spec", v))
			goto nomem;
	}
	for (i = 0; !rc && status_keys[i]; i++)
		rc = copy_member(st, status, status_keys[i]);
	conds = json_object_get(status, "conditions");
	json_array_foreach (conds, i, c) {
		json_t *one;

		const char *type = vc_json_get_str(c, "type");

		if (!vc_str_eq(type, "PodScheduled") && !vc_str_eq(type, "Ready") &&
		    !vc_str_eq(type, "DisruptionTarget"))
			continue;
		one = json_object_get(st, "conditions");
		if (!one) {
			one = json_array();
			if (!one || json_object_set_new(st, "conditions", one))
				goto nomem;
		}
		if (json_array_append(one, (json_t *)c))
			goto nomem;
	}
	v = rc ? NULL : intern(s, st);
	json_decref(st);
	st = NULL;
	if (!v || json_object_set_new(out, "status", v))
		goto nomem;
	rc = json_object_set_new(out, "metadata", m);
	m = NULL;
	if (rc)
		goto nomem;
	return out;
nomem:
	json_decref(m);
	json_decref(st);
	json_decref(out);
	return NULL;
}

static bool is_ours(const struct sched_runtime *s, const char *scheduler_name)
{
	size_t i;

	for (i = 0; i < s->cfg.nscheduler_names; i++)
		if (vc_str_eq(s->cfg.scheduler_names[i], scheduler_name))
			return true;
	return false;
}

/* Copy the metadata strings of m into one block (*block, owned) and point m at the copies. */
static int copy_meta_strings(struct vc_meta *m, char **block)
{
	const char **strs[] = { &m->ns,
				&m->name,
				&m->uid,
				&m->resource_version,
				&m->creation_timestamp,
				&m->deletion_timestamp };
	size_t i, len = 0;
	char *w;

	for (i = 0; i < VC_ARRAY_SIZE(strs); i++)
		len += *strs[i] ? strlen(*strs[i]) + 1 : 0;
	*block = vc_malloc(len ? len : 1);
	if (!*block)
		return VC_ENOMEM;
	w = *block;
	for (i = 0; i < VC_ARRAY_SIZE(strs); i++) {
		size_t n;

		if (!*strs[i])
			continue;
		n = strlen(*strs[i]) + 1;
		memcpy(w, *strs[i], n);
		*strs[i] = w;
		w += n;
	}
	return 0;
}

/*
 * Make v (a pod view of the reduced pod v->obj) stand alone with what little is its own: copy
 * the metadata strings, keep the shared labels and annotations, and replace the pod object by
 * the shared pair of its spec and status (what every other reader of pod.obj looks at), so the
 * reduced pod can go. The strings the view borrows from the spec, status and annotations stay
 * valid: those are the shared objects it keeps. Under views_mu. 0 or VC_ENOMEM (v unchanged).
 */
static int detach_pod(struct sched_runtime *s, struct srt_view *v)
{
	struct vc_pod *p = &v->v.pod;
	json_t *pair = json_object(), *shared = NULL;

	if (!pair || copy_member(pair, p->obj, "spec") || copy_member(pair, p->obj, "status"))
		goto nomem;
	/* Spec and status are shared copies already. */
	shared = intern_members(s, pair);
	if (!shared || copy_meta_strings(&p->meta, &v->strings))
		goto nomem;
	json_decref(pair);
	v->labels = json_incref(p->meta.labels);
	v->annotations = json_incref(p->meta.annotations);
	v->owners = json_incref(p->meta.owner_references); /* set_controller's, or NULL */
	p->meta.owner_references = v->owners;
	json_decref(p->obj);
	p->obj = shared;
	return 0;
nomem:
	json_decref(pair);
	json_decref(shared);
	return VC_ENOMEM;
}

json_t *srt_pod_obj(const struct vc_pod *pod)
{
	const char *keys[] = { "name", "namespace", "uid", "resourceVersion", "creationTimestamp" };
	const char *vals[] = { pod->meta.name, pod->meta.ns, pod->meta.uid,
			       pod->meta.resource_version, pod->meta.creation_timestamp };
	json_t *out = json_pack("{s:s, s:s, s:{}}", "apiVersion", "v1", "kind", "Pod", "metadata");
	json_t *m = json_object_get(out, "metadata");
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < VC_ARRAY_SIZE(keys); i++)
		if (vals[i] && json_object_set_new(m, keys[i], json_string(vals[i])))
			goto nomem;
	if ((pod->meta.labels && json_object_set(m, "labels", pod->meta.labels)) ||
	    (pod->meta.annotations && json_object_set(m, "annotations", pod->meta.annotations)) ||
	    copy_member(out, pod->obj, "spec") || copy_member(out, pod->obj, "status"))
		goto nomem;
	return out;
nomem:
	json_decref(out);
	return NULL;
}

static int pod_view_put(struct sched_runtime *s, const json_t *obj, bool keep)
{
	const json_t *spec = vc_json_get_obj(obj, "spec");
	const char *node = vc_json_get_str(spec, "nodeName");
	const char *sched = vc_json_get_str(spec, "schedulerName");
	char key[VC_CACHE_KEY_MAX];
	struct vc_error verr;
	struct srt_view *v;
	int rc = 0;

	if (vc_cache_key(obj, key, sizeof(key)) < 0)
		return 0;
	pthread_mutex_lock(&s->views_mu);
	if (keep && srt_map_get(&s->pod_views, key))
		goto out;
	/* docs/volcano/scheduler.md §1.1's pod filter: unbound pods of other schedulers are none of
	 * ours. */
	if (!(node && *node) && !is_ours(s, sched && *sched ? sched : "default-scheduler")) {
		srt_map_del(&s->pod_views, key);
		goto out;
	}
	v = vc_calloc(1, sizeof(*v));
	if (!v)
		goto nomem;
	v->refs = 1;
	v->obj = reduce_pod(s, obj);
	if (!v->obj) {
		vc_free(v);
		goto nomem;
	}
	vc_error_clear(&verr);
	v->rc = vc_pod_view(v->obj, &v->v.pod, &verr);
	if (v->rc == VC_ENOMEM) {
		json_decref(v->obj);
		vc_free(v);
		goto nomem;
	}
	if (v->rc) {
		VC_WARN("skipping malformed object", "pod=%s error=\"%s\"", key, verr.text);
	} else if (detach_pod(s, v) < 0) {
		vc_pod_view_release(&v->v.pod);
		json_decref(v->obj);
		vc_free(v);
		goto nomem;
	}
	json_decref(v->obj); /* the view keeps only what detach_pod took */
	v->obj = NULL;
	if (srt_map_put(&s->pod_views, key, v) < 0) {
		view_unref(v);
		goto nomem;
	}
	intern_sweep(s);
	goto out;
nomem:
	srt_map_del(&s->pod_views, key);
	rc = VC_ENOMEM;
out:
	pthread_mutex_unlock(&s->views_mu);
	return rc;
}

int srt_pod_view_put(struct sched_runtime *s, const json_t *obj)
{
	return pod_view_put(s, obj, false);
}

int srt_pod_view_put_new(struct sched_runtime *s, const json_t *obj)
{
	return pod_view_put(s, obj, true);
}

/* Whether the pods cache holds key (a packed cache parses the object: only for the few views
 * out of step with it). */
static bool pod_cached(struct sched_runtime *s, const char *key)
{
	json_t *obj = vc_cache_get(vc_informer_cache(s->ctx->pods), key);

	json_decref(obj);
	return obj != NULL;
}

static bool view_stale(void *ctx, const char *key, void *val)
{
	struct sched_runtime *s = ctx;
	const struct srt_view *v = val;
	const char *rv = v->rc ? NULL : v->v.pod.meta.resource_version;

	/* A view of another version of a cached pod waits for that pod's handler call. */
	return !(rv && vc_cache_has_version(vc_informer_cache(s->ctx->pods), key, rv)) &&
	       !pod_cached(s, key);
}

void srt_pod_views_reconcile(struct sched_runtime *s)
{
	size_t before;

	pthread_mutex_lock(&s->views_mu);
	before = s->pod_views.count;
	srt_map_sweep(&s->pod_views, view_stale, s);
	if (before != s->pod_views.count)
		VC_INFO("pod views of pods no longer listed dropped", "count=%zu",
			before - s->pod_views.count);
	pthread_mutex_unlock(&s->views_mu);
}

void srt_pod_view_del(struct sched_runtime *s, const json_t *obj)
{
	char key[VC_CACHE_KEY_MAX];

	if (vc_cache_key(obj, key, sizeof(key)) < 0)
		return;
	pthread_mutex_lock(&s->views_mu);
	srt_map_del(&s->pod_views, key);
	pthread_mutex_unlock(&s->views_mu);
}

void srt_pod_view_free(void *val)
{
	view_unref(val);
}

void srt_intern_free(void *val)
{
	json_decref(val);
}

/* ---- PodGroup views ---------------------------------------------------------------------------
 */

/* The shared copy of obj's member key, set into dst (0), or nothing when obj has none. */
static int share_member(struct sched_runtime *s, json_t *dst, const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key), *shared;

	if (!v)
		return 0;
	shared = intern(s, v);
	return shared && json_object_set_new(dst, key, shared) == 0 ? 0 : VC_ENOMEM;
}

/* Under views_mu. */
static int pg_view_detach(struct sched_runtime *s, struct srt_view *v, json_t *shared)
{
	struct vc_podgroup *pg = &v->v.pg;

	if (copy_meta_strings(&pg->meta, &v->strings) < 0)
		return VC_ENOMEM;
	if (pg->meta.labels && !(v->labels = intern(s, pg->meta.labels)))
		return VC_ENOMEM;
	if (pg->meta.annotations && !(v->annotations = intern(s, pg->meta.annotations)))
		return VC_ENOMEM;
	pg->meta.labels = v->labels;
	pg->meta.annotations = v->annotations;
	pg->meta.owner_references = NULL;
	/* The view's other pointers are into the shared spec and status, which shared holds. */
	json_decref(pg->obj);
	pg->obj = json_incref(shared);
	return 0;
}

int srt_pg_view_make(struct sched_runtime *s, const char *key, const json_t *obj,
		     struct srt_view **out)
{
	static const char *const shared_keys[] = { "apiVersion", "kind", "spec", "status" };
	const char *rv = vc_json_get_str(vc_json_get_obj(obj, "metadata"), "resourceVersion");
	json_t *members = NULL, *shared = NULL, *whole = NULL;
	struct vc_error verr;
	struct srt_view *v;
	size_t i;

	*out = NULL;
	v = vc_calloc(1, sizeof(*v));
	if (!v)
		return VC_ENOMEM;
	v->rc = VC_ENOMEM; /* no view to release yet */
	pthread_mutex_lock(&s->views_mu);
	members = json_object();
	if (!members)
		goto nomem;
	for (i = 0; i < VC_ARRAY_SIZE(shared_keys); i++)
		if (share_member(s, members, obj, shared_keys[i]) < 0)
			goto nomem;
	shared = intern_members(s, members);
	/* The view is read from the shared members and obj's own metadata. */
	whole = shared ? json_copy(shared) : NULL;
	if (!whole || copy_member(whole, obj, "metadata"))
		goto nomem;
	vc_error_clear(&verr);
	v->rc = vc_podgroup_view(whole, &v->v.pg, &verr);
	if (v->rc == VC_ENOMEM)
		goto nomem;
	if (v->rc) {
		VC_WARN("skipping malformed object", "podgroup=%s error=\"%s\"", key, verr.text);
		v->strings = vc_strdup(rv ? rv : "");
		if (!v->strings)
			goto nomem;
	} else if (pg_view_detach(s, v, shared) < 0) {
		goto nomem;
	}
	intern_sweep(s);
	pthread_mutex_unlock(&s->views_mu);
	json_decref(whole);
	json_decref(shared);
	json_decref(members);
	*out = v;
	return 0;
nomem:
	pthread_mutex_unlock(&s->views_mu);
	json_decref(whole);
	json_decref(shared);
	json_decref(members);
	srt_pg_view_free(v);
	return VC_ENOMEM;
}

const char *srt_pg_view_rv(const struct srt_view *v)
{
	const char *rv = v->rc ? v->strings : v->v.pg.meta.resource_version;

	return rv ? rv : "";
}

json_t *srt_pg_obj(const json_t *shared, const char *ns, const char *name, const char *uid,
		   const char *rv)
{
	const char *keys[] = { "name", "namespace", "uid", "resourceVersion" };
	const char *vals[] = { name, ns, uid, rv };
	json_t *out = shared ? json_copy((json_t *)shared) : json_object(), *m = json_object();
	size_t i;

	if (!out || !m || json_object_set(out, "metadata", m))
		goto nomem;
	for (i = 0; i < VC_ARRAY_SIZE(keys); i++)
		if (vals[i] && *vals[i] && json_object_set_new(m, keys[i], json_string(vals[i])))
			goto nomem;
	json_decref(m);
	return out;
nomem:
	json_decref(m);
	json_decref(out);
	return NULL;
}
