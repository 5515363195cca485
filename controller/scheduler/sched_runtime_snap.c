/*
 * sched_runtime_snap.c - the scheduler's snapshot of the informer caches (scheduler.md §1.1,
 * §1.2), and the small hash map the runtime keeps its bookkeeping in.
 */
#include "sched_runtime_internal.h"

#include "sched_api.h"

#include "vc_alloc.h"
#include "vc_cache.h"
#include "vc_hash.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

/* ---- the map --------------------------------------------------------------------------------- */

int srt_map_init(struct srt_map *m, size_t hint, void (*free_val)(void *val))
{
	size_t n = 16;

	memset(m, 0, sizeof(*m));
	while (n < hint * 2 && n < ((size_t)1 << 30))
		n *= 2;
	m->buckets = vc_calloc(n, sizeof(struct srt_map_node *));
	if (!m->buckets)
		return VC_ENOMEM;
	m->nbuckets = n;
	m->free_val = free_val;
	return 0;
}

static void node_free(struct srt_map *m, struct srt_map_node *n)
{
	if (m->free_val && n->val)
		m->free_val(n->val);
	vc_free(n->key);
	vc_free(n);
}

void srt_map_release(struct srt_map *m)
{
	size_t i;

	if (!m->buckets)
		return;
	for (i = 0; i < m->nbuckets; i++) {
		struct srt_map_node *n = m->buckets[i], *next;

		for (; n; n = next) {
			next = n->next;
			node_free(m, n);
		}
	}
	vc_free(m->buckets);
	memset(m, 0, sizeof(*m));
}

static struct srt_map_node **map_slot(const struct srt_map *m, const char *key, uint64_t h)
{
	struct srt_map_node **p = &m->buckets[h & (m->nbuckets - 1)];

	for (; *p; p = &(*p)->next)
		if ((*p)->hash == h && strcmp((*p)->key, key) == 0)
			break;
	return p;
}

void *srt_map_get(const struct srt_map *m, const char *key)
{
	struct srt_map_node *n;

	if (!m->buckets || !m->count)
		return NULL;
	n = *map_slot(m, key, vc_fnv1a64(key));
	return n ? n->val : NULL;
}

/* Double the buckets; a failure only leaves the chains longer. */
static void map_grow(struct srt_map *m)
{
	size_t n = m->nbuckets * 2, i;
	struct srt_map_node **b = vc_calloc(n, sizeof(struct srt_map_node *));

	if (!b)
		return;
	for (i = 0; i < m->nbuckets; i++) {
		struct srt_map_node *x = m->buckets[i], *next;

		for (; x; x = next) {
			next = x->next;
			x->next = b[x->hash & (n - 1)];
			b[x->hash & (n - 1)] = x;
		}
	}
	vc_free(m->buckets);
	m->buckets = b;
	m->nbuckets = n;
}

int srt_map_put(struct srt_map *m, const char *key, void *val)
{
	uint64_t h = vc_fnv1a64(key);
	struct srt_map_node **p = map_slot(m, key, h), *n;

	if (*p) {
		if (m->free_val && (*p)->val && (*p)->val != val)
			m->free_val((*p)->val);
		(*p)->val = val;
		return 0;
	}
	n = vc_malloc(sizeof(*n));
	if (!n)
		return VC_ENOMEM;
	n->key = vc_strdup(key);
	if (!n->key) {
		vc_free(n);
		return VC_ENOMEM;
	}
	n->hash = h;
	n->val = val;
	n->next = NULL;
	*p = n;
	m->count++;
	if (m->count > m->nbuckets)
		map_grow(m);
	return 0;
}

bool srt_map_del(struct srt_map *m, const char *key)
{
	struct srt_map_node **p, *n;

	if (!m->buckets || !m->count)
		return false;
	p = map_slot(m, key, vc_fnv1a64(key));
	n = *p;
	if (!n)
		return false;
	*p = n->next;
	m->count--;
	node_free(m, n);
	return true;
}

void srt_map_sweep(struct srt_map *m, bool (*fn)(void *ctx, const char *key, void *val), void *ctx)
{
	size_t i;

	if (!m->buckets)
		return;
	for (i = 0; i < m->nbuckets; i++) {
		struct srt_map_node **p = &m->buckets[i];

		while (*p) {
			struct srt_map_node *n = *p;

			if (fn(ctx, n->key, n->val)) {
				*p = n->next;
				m->count--;
				node_free(m, n);
			} else {
				p = &n->next;
			}
		}
	}
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
	vc_free(v->strings);
	vc_free(v);
}

/*
 * The shared copy of v (a new reference): the first one seen with v's content. Subtrees of
 * cached objects are immutable, so sharing them is safe; the table holds one reference and
 * srt_intern_sweep drops entries nothing else holds. NULL for NULL or on VC_ENOMEM.
 * Under views_mu.
 */
/* Free what json_dumps returned: jansson's allocator, which need not be free(). */
static void free_dumped(char *p)
{
	json_malloc_t jmalloc;
	json_free_t jfree;

	json_get_alloc_funcs(&jmalloc, &jfree);
	jfree(p);
}

static json_t *intern(struct sched_runtime *s, json_t *v)
{
	json_t *hit;
	char *k;

	if (!v)
		return NULL;
	k = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	if (!k)
		return NULL;
	hit = srt_map_get(&s->intern, k);
	if (!hit) {
		if (srt_map_put(&s->intern, k, json_incref(v)) < 0) {
			json_decref(v);
			free_dumped(k);
			return NULL;
		}
		hit = v;
	}
	free_dumped(k);
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

static int copy_member(json_t *dst, const json_t *src, const char *key)
{
	json_t *v = json_object_get(src, key);

	return !v || json_object_set(dst, key, v) == 0 ? 0 : VC_ENOMEM;
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
	/* The labels and annotations the scheduler reads (sched_api.c, vc_pod_view). */
	static const char *const label_keys[] = { SCHED_ANN_TASK_SPEC, SCHED_ANN_PREEMPTABLE,
						  NULL };
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
		rc = set_picked(s, m, meta, "labels", label_keys);
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

static bool is_ours(const struct sched_runtime *s, const char *scheduler_name);

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
	const char **strs[] = { &p->meta.ns,
				&p->meta.name,
				&p->meta.uid,
				&p->meta.resource_version,
				&p->meta.creation_timestamp,
				&p->meta.deletion_timestamp };
	json_t *pair = json_object(), *shared = NULL;
	size_t i, len = 0;
	char pkey[64], *w;

	if (!pair || copy_member(pair, p->obj, "spec") || copy_member(pair, p->obj, "status"))
		goto nomem;
	/*
	 * Spec and status are shared copies already: the pair is known by their addresses (a
	 * key no JSON text starts with; the pair's references keep the addresses from reuse).
	 */
	snprintf(pkey, sizeof(pkey), "\x01%p\x01%p", (void *)json_object_get(pair, "spec"),
		 (void *)json_object_get(pair, "status"));
	shared = srt_map_get(&s->intern, pkey);
	if (shared) {
		json_incref(shared);
	} else if (srt_map_put(&s->intern, pkey, json_incref(pair)) == 0) {
		shared = json_incref(pair);
	} else {
		json_decref(pair); /* the reference the table did not take */
		goto nomem;
	}
	for (i = 0; i < VC_ARRAY_SIZE(strs); i++)
		len += *strs[i] ? strlen(*strs[i]) + 1 : 0;
	v->strings = vc_malloc(len ? len : 1);
	if (!v->strings)
		goto nomem;
	json_decref(pair);
	w = v->strings;
	for (i = 0; i < VC_ARRAY_SIZE(strs); i++) {
		size_t n;

		if (!*strs[i])
			continue;
		n = strlen(*strs[i]) + 1;
		memcpy(w, *strs[i], n);
		*strs[i] = w;
		w += n;
	}
	v->labels = json_incref(p->meta.labels);
	v->annotations = json_incref(p->meta.annotations);
	p->meta.owner_references = NULL;
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

int srt_pod_view_put(struct sched_runtime *s, const json_t *obj)
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
	/* §1.1's pod filter: unbound pods of other schedulers are none of ours. */
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

void srt_pod_view_del(struct sched_runtime *s, const json_t *obj)
{
	char key[VC_CACHE_KEY_MAX];

	if (vc_cache_key(obj, key, sizeof(key)) < 0)
		return;
	pthread_mutex_lock(&s->views_mu);
	srt_map_del(&s->pod_views, key);
	pthread_mutex_unlock(&s->views_mu);
}
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
		view_unref(sn->pods[i]);
	vc_free(sn->pods);
	memset(sn, 0, sizeof(*sn));
}

/* ---- views kept across cycles ---------------------------------------------------------------- */

void srt_pod_view_free(void *val)
{
	view_unref(val);
}

void srt_intern_free(void *val)
{
	json_decref(val);
}

void srt_pg_view_free(void *val)
{
	struct srt_view *v = val;

	if (!v->rc)
		vc_podgroup_view_release(&v->v.pg);
	json_decref(v->obj);
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

enum view_kind {
	VIEW_PG,
	VIEW_NODE
};

static const char *const view_kind_name[] = { "podgroup", "node" };

/*
 * The view of obj from m, made when obj is new or changed. Returns 0 and *out (NULL when the
 * object is malformed: logged once per version), or VC_ENOMEM.
 */
static int cached_view(struct sched_runtime *s, struct srt_map *m, enum view_kind kind, json_t *obj,
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
		if (kind == VIEW_PG)
			rc = vc_podgroup_view(obj, &v->v.pg, &verr);
		else
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
			VC_WARN("skipping malformed object", "%s=%s error=\"%s\"",
				view_kind_name[kind], key, verr.text);
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
		if (cached_view(s, &s->node_views, VIEW_NODE, ns->items[i], &v) < 0)
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

static int build_jobs(struct sched_runtime *s, struct srt_snap *sn, const struct vc_objs *pgs,
		      const struct vc_objs *pcs, struct srt_map *by_key)
{
	size_t i;

	for (i = 0; i < pgs->count; i++) {
		const char *raw_queue, *queue;
		struct sched_job_info *j;
		struct srt_view *sv;
		struct vc_podgroup *v;

		if (cached_view(s, &s->pg_views, VIEW_PG, pgs->items[i], &sv) < 0)
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

static bool is_ours(const struct sched_runtime *s, const char *scheduler_name)
{
	size_t i;

	for (i = 0; i < s->cfg.nscheduler_names; i++)
		if (vc_str_eq(s->cfg.scheduler_names[i], scheduler_name))
			return true;
	return false;
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

/* Take a reference to every pod view, for the snapshot's tasks to borrow. */
static int collect_pod_views(struct sched_runtime *s, struct srt_snap *sn)
{
	size_t i, n = 0;
	int rc = 0;

	pthread_mutex_lock(&s->views_mu);
	sn->pods = view_array(s->pod_views.count, sizeof(struct srt_view *));
	if (!sn->pods) {
		rc = VC_ENOMEM;
		goto out;
	}
	for (i = 0; i < s->pod_views.nbuckets; i++) {
		const struct srt_map_node *x;

		for (x = s->pod_views.buckets[i]; x; x = x->next) {
			struct srt_view *v = x->val;

			if (v->rc)
				continue;
			__atomic_add_fetch(&v->refs, 1, __ATOMIC_RELAXED);
			sn->pods[n++] = v;
		}
	}
	sn->npods = n;
out:
	pthread_mutex_unlock(&s->views_mu);
	return rc;
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
		int rc;

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
		if (v->group_name && *v->group_name &&
		    snprintf(key, sizeof(key), "%s/%s", v->meta.ns, v->group_name) <
			    (int)sizeof(key))
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
	struct vc_objs qs, pcs, ns, pgs;
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
	memset(&pgs, 0, sizeof(pgs));
	rc = sched_snapshot_init(&out->snap);
	if (rc < 0)
		goto fail;
	rc = list_cache(ctx->queues, &qs);
	if (!rc)
		rc = list_cache(ctx->priorityclasses, &pcs);
	if (!rc)
		rc = list_cache(ctx->nodes, &ns);
	if (!rc)
		rc = list_cache(ctx->podgroups, &pgs);
	if (!rc)
		rc = collect_pod_views(s, out);
	if (!rc)
		rc = srt_map_init(&nodes_by_name, ns.count, NULL);
	if (!rc)
		rc = srt_map_init(&jobs_by_key, pgs.count, NULL);
	if (!rc)
		rc = build_queues(out, &qs);
	if (!rc)
		rc = build_nodes(s, out, &ns, &nodes_by_name);
	if (!rc)
		rc = build_jobs(s, out, &pgs, &pcs, &jobs_by_key);
	if (!rc)
		rc = build_tasks(s, out, &jobs_by_key);
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
	pthread_mutex_unlock(&s->mu);
	goto out;
fail:
	srt_snap_release(out);
	rc = vc_error_set(err, rc, "cannot build the scheduling snapshot: %s", vc_strerror(rc));
out:
	srt_map_release(&nodes_by_name);
	srt_map_release(&jobs_by_key);
	vc_objs_release(&qs);
	vc_objs_release(&pcs);
	vc_objs_release(&ns);
	vc_objs_release(&pgs);
	return rc;
}
