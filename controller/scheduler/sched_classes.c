/*
 * sched_classes.c - the equivalence classes a session gives its tasks when it opens: shapes
 * (equal request vectors) for the plugins' score caches, and predicate classes (equal shape and
 * scheduling constraints) for the node search's class cache (sched_select.c).
 */
#include "sched_internal.h"

#include "vc_alloc.h"

bool sched_pod_each_host_port(const json_t *spec, bool (*fn)(const json_t *port, const void *ctx),
			      const void *ctx)
{
	static const char *const lists[] = { "initContainers", "containers" };
	size_t l, i, k;

	for (l = 0; l < 2; l++) {
		const json_t *cs = json_object_get(spec, lists[l]);

		for (i = 0; i < json_array_size(cs); i++) {
			const json_t *ports = json_object_get(json_array_get(cs, i), "ports");

			for (k = 0; k < json_array_size(ports); k++) {
				const json_t *p = json_array_get(ports, k);

				if (json_integer_value(json_object_get(p, "hostPort")) > 0 &&
				    fn(p, ctx))
					return true;
			}
		}
	}
	return false;
}

static bool any_port(const json_t *port, const void *ctx)
{
	(void)port;
	(void)ctx;
	return true;
}

bool sched_pod_has_host_ports(const json_t *spec)
{
	return sched_pod_each_host_port(spec, any_port, NULL);
}

/* A task's request vector as a key of the shape map. */
struct shape_key {
	const double *req;
	size_t nd;
	uint32_t shape;
};

static uint64_t shape_hash(const void *key)
{
	const struct shape_key *k = key;

	return vc_hash_mix64(vc_fnv1a64_bytes(VC_FNV64_OFFSET, k->req, k->nd * sizeof(double)));
}

static bool shape_eq(const void *stored, const void *key)
{
	const struct shape_key *a = stored, *b = key;

	return memcmp(a->req, b->req, a->nd * sizeof(double)) == 0;
}

/* Number the distinct request vectors: equal requests, equal shape (numbered in task order). */
int sched_assign_shapes(struct sched_session *ssn)
{
	struct shape_key *keys = vc_malloc((ssn->ntasks + 1) * sizeof(*keys));
	struct vc_hmap map;
	uint32_t next = 0;
	size_t i;
	int rc = VC_ENOMEM;

	vc_hmap_init(&map, shape_hash, shape_eq);
	if (!keys)
		goto out;
	for (i = 0; i < ssn->ntasks; i++) {
		struct sched_ssn_task *t = &ssn->tasks[i];
		void *first;

		keys[i] = (struct shape_key){ .req = t->req, .nd = ssn->ndims };
		if (vc_hmap_lookup(&map, &keys[i], &first)) {
			t->shape = ((const struct shape_key *)first)->shape;
			continue;
		}
		keys[i].shape = t->shape = next++;
		if (vc_hmap_put(&map, &keys[i], &keys[i], NULL) < 0)
			goto out;
	}
	rc = 0;
out:
	vc_hmap_release(&map, NULL);
	vc_free(keys);
	return rc;
}

/* ---- predicate classes --------------------------------------------------------------------- */

uint64_t sched_json_hash(const json_t *v, int depth)
{
	uint64_t h;
	const char *k;
	json_t *x;
	size_t i;

	if (!v)
		return 0x2545f4914f6cdd1dULL;
	h = ((uint64_t)json_typeof(v) + 1) * 0x9e3779b97f4a7c15ULL;
	if (depth > 16)
		return h;
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		uint64_t sum = 0;

		json_object_foreach ((json_t *)v, k, x)
			sum += (vc_fnv1a64(k) * 31) ^ sched_json_hash(x, depth + 1);
		return h ^ sum;
	}
	case JSON_ARRAY:
		json_array_foreach (v, i, x)
			h = (h ^ sched_json_hash(x, depth + 1)) * VC_FNV64_PRIME;
		return h;
	case JSON_STRING:
		return h ^ vc_fnv1a64(json_string_value(v));
	case JSON_INTEGER:
		return h ^ ((uint64_t)json_integer_value(v) * 0xbf58476d1ce4e5b9ULL);
	default:
		return h;
	}
}

bool sched_json_same(const json_t *a, const json_t *b)
{
	if (!a || !b)
		return a == b;
	return json_equal((json_t *)a, (json_t *)b) != 0;
}

/* What the predicates read of a task (struct sched_callbacks: predicate_by_class). */
struct pred_spec {
	const json_t *pod, *selector, *required, *tolerations;
};

static void pred_spec_of(const struct sched_ssn_task *t, struct pred_spec *s)
{
	const json_t *spec = t->t->pod ? json_object_get(t->t->pod->obj, "spec") : NULL;

	s->pod = t->t->pod ? t->t->pod->obj : NULL;
	s->selector = json_object_get(spec, "nodeSelector");
	s->required =
		json_object_get(json_object_get(json_object_get(spec, "affinity"), "nodeAffinity"),
				"requiredDuringSchedulingIgnoredDuringExecution");
	s->tolerations = json_object_get(spec, "tolerations");
}

/* A task's predicate constraints as a key of the class map. */
struct class_key {
	struct pred_spec spec;
	uint32_t shape, cls;
	uint64_t hash;
};

static uint64_t class_hash(const void *key)
{
	return ((const struct class_key *)key)->hash;
}

static bool class_eq(const void *stored, const void *key)
{
	const struct class_key *a = stored, *b = key;

	return a->shape == b->shape && !a->spec.pod == !b->spec.pod &&
	       sched_json_same(a->spec.selector, b->spec.selector) &&
	       sched_json_same(a->spec.required, b->spec.required) &&
	       sched_json_same(a->spec.tolerations, b->spec.tolerations);
}

/*
 * The equivalence classes (sched_ssn_task.class_key): pending tasks of the same shape whose
 * scheduling constraints are equal - no pod at all, or a pod without host ports and with equal
 * nodeSelector, required node affinity and tolerations (json_equal). Classes of two or more
 * tasks get compact numbers (in task order); a task alone in its class, and every task not
 * pending at the open, gets SCHED_NONE.
 */
int sched_assign_class_keys(struct sched_session *ssn)
{
	struct class_key *keys = vc_malloc((ssn->ntasks + 1) * sizeof(*keys));
	uint32_t *cls = vc_malloc((ssn->ntasks + 1) * sizeof(*cls));
	uint32_t *count = vc_calloc(ssn->ntasks + 1, sizeof(*count));
	uint32_t next = 0, nkeys = 0;
	struct vc_hmap map;
	size_t i;
	int rc = VC_ENOMEM;

	vc_hmap_init(&map, class_hash, class_eq);
	if (!keys || !cls || !count)
		goto out;
	for (i = 0; i < ssn->ntasks; i++) {
		const struct sched_ssn_task *t = &ssn->tasks[i];
		struct class_key *k = &keys[i];
		void *first;

		/*
		 * Only tasks pending at the open are ever placed in a session: a bound or
		 * terminated task is a class of its own (the settled jobs of a long run would
		 * otherwise cost a hash of their constraints in every session).
		 */
		if (t->t->status != SCHED_TASK_PENDING) {
			cls[i] = next++;
			count[cls[i]]++;
			continue;
		}
		pred_spec_of(t, &k->spec);
		if (k->spec.pod && sched_pod_has_host_ports(json_object_get(k->spec.pod, "spec"))) {
			cls[i] = next++; /* host ports depend on the pod: a class of its own */
			count[cls[i]]++;
			continue;
		}
		k->shape = t->shape;
		k->hash = ((uint64_t)t->shape * 0x9e3779b97f4a7c15ULL) ^ (k->spec.pod ? 1 : 2) ^
			  sched_json_hash(k->spec.selector, 0) ^
			  (sched_json_hash(k->spec.required, 0) * 3) ^
			  (sched_json_hash(k->spec.tolerations, 0) * 5);
		if (vc_hmap_lookup(&map, k, &first)) {
			cls[i] = ((const struct class_key *)first)->cls;
		} else {
			k->cls = cls[i] = next++;
			if (vc_hmap_put(&map, k, k, NULL) < 0)
				goto out;
		}
		count[cls[i]]++;
	}
	/* count becomes class -> key. */
	for (i = 0; i < next; i++)
		count[i] = count[i] > 1 ? nkeys++ : SCHED_NONE;
	for (i = 0; i < ssn->ntasks; i++)
		ssn->tasks[i].class_key = count[cls[i]];
	rc = 0;
out:
	vc_hmap_release(&map, NULL);
	vc_free(keys);
	vc_free(cls);
	vc_free(count);
	return rc;
}
