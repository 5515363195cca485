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

static uint64_t vec_hash(const double *v, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t bits;

		memcpy(&bits, &v[i], sizeof(bits));
		h = (h ^ bits) * 1099511628211ULL;
		h ^= h >> 29;
	}
	return h;
}

/* Number the distinct request vectors: equal requests, equal shape. */
int sched_assign_shapes(struct sched_session *ssn)
{
	size_t cap = 16, i, nd = ssn->ndims;
	uint32_t *slot, next = 0;

	while (cap < 2 * ssn->ntasks + 1)
		cap *= 2;
	slot = vc_malloc(cap * sizeof(*slot));
	if (!slot)
		return VC_ENOMEM;
	for (i = 0; i < cap; i++)
		slot[i] = SCHED_NONE;
	for (i = 0; i < ssn->ntasks; i++) {
		struct sched_ssn_task *t = &ssn->tasks[i];
		size_t h = (size_t)vec_hash(t->req, nd) & (cap - 1);

		while (slot[h] != SCHED_NONE &&
		       memcmp(ssn->tasks[slot[h]].req, t->req, nd * sizeof(double)) != 0)
			h = (h + 1) & (cap - 1);
		if (slot[h] == SCHED_NONE) {
			slot[h] = (uint32_t)i;
			t->shape = next++;
		} else {
			t->shape = ssn->tasks[slot[h]].shape;
		}
	}
	vc_free(slot);
	return 0;
}

/* ---- predicate classes --------------------------------------------------------------------- */

/* A structural hash of a JSON value, independent of the order of object members. */
static uint64_t json_hash(const json_t *v, int depth)
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
			sum += (sched_fnv(k) * 31) ^ json_hash(x, depth + 1);
		return h ^ sum;
	}
	case JSON_ARRAY:
		json_array_foreach (v, i, x)
			h = (h ^ json_hash(x, depth + 1)) * 1099511628211ULL;
		return h;
	case JSON_STRING:
		return h ^ sched_fnv(json_string_value(v));
	case JSON_INTEGER:
		return h ^ ((uint64_t)json_integer_value(v) * 0xbf58476d1ce4e5b9ULL);
	default:
		return h;
	}
}

static bool json_same(const json_t *a, const json_t *b)
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

/*
 * The equivalence classes (sched_ssn_task.class_key): tasks of the same shape whose scheduling
 * constraints are equal - no pod at all, or a pod without host ports and with equal
 * nodeSelector, required node affinity and tolerations (json_equal). Classes of two or more
 * tasks get compact numbers; a task alone in its class gets SCHED_NONE.
 */
int sched_assign_class_keys(struct sched_session *ssn)
{
	size_t cap = 16, i;
	uint32_t *slot, *cls, *count, next = 0, nkeys = 0;
	int rc = VC_ENOMEM;

	while (cap < 2 * ssn->ntasks + 1)
		cap *= 2;
	slot = vc_malloc(cap * sizeof(*slot));
	cls = vc_malloc((ssn->ntasks + 1) * sizeof(*cls));
	count = vc_calloc(ssn->ntasks + 1, sizeof(*count));
	if (!slot || !cls || !count)
		goto out;
	for (i = 0; i < cap; i++)
		slot[i] = SCHED_NONE;
	for (i = 0; i < ssn->ntasks; i++) {
		struct sched_ssn_task *t = &ssn->tasks[i];
		struct pred_spec a, b;
		size_t h;

		pred_spec_of(t, &a);
		if (a.pod && sched_pod_has_host_ports(json_object_get(a.pod, "spec"))) {
			cls[i] = next++; /* host ports depend on the pod: a class of its own */
			count[cls[i]]++;
			continue;
		}
		h = (size_t)(((uint64_t)t->shape * 0x9e3779b97f4a7c15ULL) ^ (a.pod ? 1 : 2) ^
			     json_hash(a.selector, 0) ^ (json_hash(a.required, 0) * 3) ^
			     (json_hash(a.tolerations, 0) * 5)) &
		    (cap - 1);
		while (slot[h] != SCHED_NONE) {
			const struct sched_ssn_task *u = &ssn->tasks[slot[h]];

			pred_spec_of(u, &b);
			if (u->shape == t->shape && !a.pod == !b.pod &&
			    json_same(a.selector, b.selector) &&
			    json_same(a.required, b.required) &&
			    json_same(a.tolerations, b.tolerations))
				break;
			h = (h + 1) & (cap - 1);
		}
		if (slot[h] == SCHED_NONE) {
			slot[h] = (uint32_t)i;
			cls[i] = next++;
		} else {
			cls[i] = cls[slot[h]];
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
	vc_free(slot);
	vc_free(cls);
	vc_free(count);
	return rc;
}
