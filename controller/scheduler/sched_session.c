/*
 * sched_session.c - the snapshot, and one cycle: open, actions, close (scheduler.md §1.2-§1.8).
 */
#include "sched_session.h"

#include "sched_internal.h"
#include "vc_alloc.h"
#include "vc_str.h"
#include "vc_time.h"

/* ---- a small name -> index hash for snapshot lookups ------------------------------------------
 */

struct name_index {
	const char **names;
	uint32_t *idx;
	size_t cap; /* power of two */
};

static uint64_t fnv(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static int name_index_init(struct name_index *m, size_t n)
{
	size_t cap = 16;

	while (cap < 2 * n + 1)
		cap *= 2;
	m->cap = cap;
	m->names = vc_calloc(cap, sizeof(*m->names));
	m->idx = vc_calloc(cap, sizeof(*m->idx));
	if (!m->names || !m->idx) {
		vc_free(m->names);
		vc_free(m->idx);
		m->names = NULL;
		m->idx = NULL;
		return VC_ENOMEM;
	}
	return 0;
}

static void name_index_release(struct name_index *m)
{
	vc_free(m->names);
	vc_free(m->idx);
	m->names = NULL;
	m->idx = NULL;
}

static void name_index_put(struct name_index *m, const char *name, uint32_t i)
{
	size_t h = (size_t)fnv(name) & (m->cap - 1);

	while (m->names[h]) {
		if (strcmp(m->names[h], name) == 0)
			return; /* the first one wins */
		h = (h + 1) & (m->cap - 1);
	}
	m->names[h] = name;
	m->idx[h] = i;
}

static uint32_t name_index_get(const struct name_index *m, const char *name)
{
	size_t h;

	if (!name || !m->names)
		return SCHED_NONE;
	h = (size_t)fnv(name) & (m->cap - 1);
	while (m->names[h]) {
		if (strcmp(m->names[h], name) == 0)
			return m->idx[h];
		h = (h + 1) & (m->cap - 1);
	}
	return SCHED_NONE;
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

int sched_snapshot_add_job(struct sched_snapshot *s, struct sched_job *j)
{
	if (grow((void **)&s->jobs, &s->jobs_cap, s->njobs) < 0)
		return VC_ENOMEM;
	s->jobs[s->njobs++] = j;
	return 0;
}

int sched_snapshot_add_node(struct sched_snapshot *s, struct sched_node *n)
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

int sched_snapshot_add_queue(struct sched_snapshot *s, struct sched_queue *q)
{
	if (grow((void **)&s->queues, &s->queues_cap, s->nqueues) < 0)
		return VC_ENOMEM;
	s->queues[s->nqueues++] = q;
	return 0;
}

struct sched_node *sched_snapshot_node(const struct sched_snapshot *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nnodes; i++)
		if (strcmp(s->nodes[i]->name, name) == 0)
			return s->nodes[i];
	return NULL;
}

struct sched_queue *sched_snapshot_queue(const struct sched_snapshot *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nqueues; i++)
		if (strcmp(s->queues[i]->name, name) == 0)
			return s->queues[i];
	return NULL;
}

struct sched_job *sched_snapshot_job(const struct sched_snapshot *s, const char *uid)
{
	size_t i;

	for (i = 0; i < s->njobs; i++)
		if (strcmp(s->jobs[i]->uid, uid) == 0)
			return s->jobs[i];
	return NULL;
}

int sched_snapshot_place(struct sched_snapshot *s)
{
	struct name_index m;
	size_t i, k;
	int rc;

	rc = name_index_init(&m, s->nnodes);
	if (rc < 0)
		return rc;
	for (i = 0; i < s->nnodes; i++)
		name_index_put(&m, s->nodes[i]->name, (uint32_t)i);
	for (i = 0; i < s->njobs && rc == 0; i++) {
		for (k = 0; k < s->jobs[i]->ntasks; k++) {
			struct sched_task *t = s->jobs[i]->tasks[k];
			uint32_t n;

			/* Terminated pods are not charged to their node (§1.2). */
			if (!t->node_name || t->status == SCHED_TASK_SUCCEEDED ||
			    t->status == SCHED_TASK_FAILED)
				continue;
			n = name_index_get(&m, t->node_name);
			if (n == SCHED_NONE)
				continue;
			rc = sched_node_add_task(s->nodes[n], t);
			if (rc < 0)
				break;
		}
	}
	name_index_release(&m);
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

/* ---- results -----------------------------------------------------------------------------------
 */

void sched_result_release(struct sched_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->njobs; i++) {
		json_decref(r->jobs[i].conditions);
		vc_free(r->jobs[i].fit_error);
		vc_free(r->jobs[i].event_message);
		vc_free(r->jobs[i].reject_message);
	}
	for (i = 0; i < r->ntasks; i++) {
		vc_free(r->tasks[i].message);
		vc_free(r->tasks[i].nominated_node);
	}
	for (i = 0; i < r->nqueues; i++)
		vc_resource_release(&r->queues[i].allocated);
	vc_free(r->binds);
	vc_free(r->evicts);
	vc_free(r->jobs);
	vc_free(r->tasks);
	vc_free(r->queues);
	memset(r, 0, sizeof(*r));
}

/* ---- session open ---------------------------------------------------------------------------- */

static int64_t parse_time(const char *s)
{
	int64_t sec;
	int32_t nsec = 0;

	if (!s || vc_time_parse_rfc3339(s, &sec, &nsec, NULL) < 0)
		return 0;
	return sec * 1000000000LL + nsec;
}

/* N of a pod name "<a>-<b>-<N>" (at least three dash-separated parts), else -1. */
static int64_t name_index(const char *name)
{
	const char *last = strrchr(name, '-');
	size_t dashes = 0;
	const char *p;
	int64_t v;

	for (p = name; *p; p++)
		dashes += *p == '-';
	if (!last || dashes < 2 || vc_parse_int64(last + 1, &v) < 0)
		return -1;
	return v;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int add_names(const struct vc_resource *r, const char ***names, size_t *n, size_t *cap)
{
	size_t i;

	for (i = 0; i < r->nscalars; i++) {
		if (strcmp(r->scalars[i].name, "pods") == 0)
			continue;
		if (*n == *cap) {
			size_t ncap = *cap ? *cap * 2 : 16;
			const char **p = vc_realloc(*names, ncap * sizeof(*p));

			if (!p)
				return VC_ENOMEM;
			*names = p;
			*cap = ncap;
		}
		(*names)[(*n)++] = r->scalars[i].name;
	}
	return 0;
}

/* The session's dimensions: cpu, memory, then every scalar name seen, sorted, without pods. */
static int build_dims(struct sched_session *ssn)
{
	struct sched_snapshot *s = ssn->snap;
	const char **names = NULL;
	size_t n = 0, cap = 0, i, k, out;
	int rc = 0;

	for (i = 0; i < s->nnodes && rc == 0; i++)
		rc = add_names(&s->nodes[i]->allocatable, &names, &n, &cap);
	for (i = 0; i < s->njobs && rc == 0; i++) {
		rc = add_names(&s->jobs[i]->min_resources, &names, &n, &cap);
		for (k = 0; k < s->jobs[i]->ntasks && rc == 0; k++)
			rc = add_names(&s->jobs[i]->tasks[k]->req, &names, &n, &cap);
	}
	for (i = 0; i < s->nqueues && rc == 0; i++) {
		rc = add_names(&s->queues[i]->capability, &names, &n, &cap);
		if (rc == 0)
			rc = add_names(&s->queues[i]->guarantee, &names, &n, &cap);
	}
	if (rc < 0)
		goto out;
	if (n)
		qsort(names, n, sizeof(*names), cmp_cstr);
	ssn->priv->dim_names = vc_calloc(n + 2, sizeof(char *));
	if (!ssn->priv->dim_names) {
		rc = VC_ENOMEM;
		goto out;
	}
	ssn->priv->dim_names[0] = "cpu";
	ssn->priv->dim_names[1] = "memory";
	out = 2;
	for (i = 0; i < n; i++) {
		if (i > 0 && strcmp(names[i], names[i - 1]) == 0)
			continue;
		ssn->priv->dim_names[out] = vc_strdup(names[i]);
		if (!ssn->priv->dim_names[out]) {
			ssn->ndims = out;
			rc = VC_ENOMEM;
			goto out;
		}
		out++;
	}
	ssn->ndims = out;
	ssn->dims = ssn->priv->dim_names;
	ssn->gpu_dim = sched_ssn_dim(ssn, "nvidia.com/gpu");
out:
	vc_free(names);
	return rc;
}

static bool pod_has_host_ports(const json_t *spec)
{
	static const char *const lists[] = { "initContainers", "containers" };
	size_t l, i, k;

	for (l = 0; l < 2; l++) {
		const json_t *cs = json_object_get(spec, lists[l]);

		for (i = 0; i < json_array_size(cs); i++) {
			const json_t *ports = json_object_get(json_array_get(cs, i), "ports");

			for (k = 0; k < json_array_size(ports); k++)
				if (json_integer_value(json_object_get(json_array_get(ports, k),
								       "hostPort")) > 0)
					return true;
		}
	}
	return false;
}

static bool pod_constrained(const json_t *spec)
{
	const json_t *aff;

	if (json_object_size(json_object_get(spec, "nodeSelector")) > 0)
		return true;
	aff = json_object_get(json_object_get(spec, "affinity"), "nodeAffinity");
	if (json_object_get(aff, "requiredDuringSchedulingIgnoredDuringExecution"))
		return true;
	return pod_has_host_ports(spec);
}

static void task_from_pod(struct sched_session *ssn, struct sched_stask *st,
			  const struct name_index *nodes)
{
	const struct vc_pod *pod = st->t->pod;
	const json_t *spec, *status;
	const char *pc, *pol, *nom;

	st->nominated = SCHED_NONE;
	if (!pod)
		return;
	(void)ssn;
	spec = json_object_get(pod->obj, "spec");
	status = json_object_get(pod->obj, "status");
	st->created = parse_time(pod->meta.creation_timestamp);
	st->gated = json_array_size(json_object_get(spec, "schedulingGates")) > 0;
	pol = json_string_value(json_object_get(spec, "preemptionPolicy"));
	st->preempt_never = pol && strcmp(pol, "Never") == 0;
	pc = pod->priority_class_name;
	st->critical = (pc && (strcmp(pc, "system-cluster-critical") == 0 ||
			       strcmp(pc, "system-node-critical") == 0)) ||
		       strcmp(st->t->ns, "kube-system") == 0;
	st->constrained = pod_constrained(spec);
	nom = json_string_value(json_object_get(status, "nominatedNodeName"));
	if (nom && nom[0])
		st->nominated = name_index_get(nodes, nom);
}

static void release_session(struct sched_session *ssn);

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
static int assign_shapes(struct sched_session *ssn)
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
		struct sched_stask *t = &ssn->tasks[i];
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
			sum += (fnv(k) * 31) ^ json_hash(x, depth + 1);
		return h ^ sum;
	}
	case JSON_ARRAY:
		json_array_foreach (v, i, x)
			h = (h ^ json_hash(x, depth + 1)) * 1099511628211ULL;
		return h;
	case JSON_STRING:
		return h ^ fnv(json_string_value(v));
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

static void pred_spec_of(const struct sched_stask *t, struct pred_spec *s)
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
 * The equivalence classes (sched_stask.class_key): tasks of the same shape whose scheduling
 * constraints are equal - no pod at all, or a pod without host ports and with equal
 * nodeSelector, required node affinity and tolerations (json_equal). Classes of two or more
 * tasks get compact numbers; a task alone in its class gets SCHED_NONE.
 */
static int assign_class_keys(struct sched_session *ssn)
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
		struct sched_stask *t = &ssn->tasks[i];
		struct pred_spec a, b;
		size_t h;

		pred_spec_of(t, &a);
		if (a.pod && pod_has_host_ports(json_object_get(a.pod, "spec"))) {
			cls[i] = next++; /* host ports depend on the pod: a class of its own */
			count[cls[i]]++;
			continue;
		}
		h = (size_t)(((uint64_t)t->shape * 0x9e3779b97f4a7c15ULL) ^ (a.pod ? 1 : 2) ^
			     json_hash(a.selector, 0) ^ (json_hash(a.required, 0) * 3) ^
			     (json_hash(a.tolerations, 0) * 5)) &
		    (cap - 1);
		while (slot[h] != SCHED_NONE) {
			const struct sched_stask *u = &ssn->tasks[slot[h]];

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

static int open_plugins(struct sched_session *ssn, struct vc_error *err)
{
	const struct sched_conf *c = ssn->conf;
	struct sched_session_priv *p = ssn->priv;
	size_t i, k, n = 0;

	for (i = 0; i < c->ntiers; i++)
		n += c->tiers[i].nplugins;
	p->slots = vc_calloc(n ? n : 1, sizeof(*p->slots));
	p->pred_slots = vc_calloc(n ? n : 1, sizeof(struct sched_plugin_slot *));
	p->score_slots = vc_calloc(n ? n : 1, sizeof(struct sched_plugin_slot *));
	p->job_order_slots = vc_calloc(n ? n : 1, sizeof(struct sched_plugin_slot *));
	p->task_order_slots = vc_calloc(n ? n : 1, sizeof(struct sched_plugin_slot *));
	if (!p->slots || !p->pred_slots || !p->score_slots || !p->job_order_slots ||
	    !p->task_order_slots)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	for (i = 0; i < c->ntiers; i++) {
		for (k = 0; k < c->tiers[i].nplugins; k++) {
			const struct sched_plugin_conf *pc = &c->tiers[i].plugins[k];
			struct sched_plugin_slot *s = &p->slots[p->nslots];
			const bool *en = pc->enabled;
			int rc;

			s->plugin = sched_plugin_find(pc->name);
			if (!s->plugin)
				return vc_error_set(err, VC_EINVAL, "unknown plugin '%s'",
						    pc->name);
			s->conf = pc;
			s->tier = i;
			p->nslots++;
			if (strcmp(pc->name, "gang") == 0)
				p->gang_configured = true;
			rc = s->plugin->on_session_open(ssn, pc, &s->cb, &s->state, err);
			if (rc < 0)
				return rc;
			s->opened = true;
			/* Volcano's isEnabled switches. */
			if (!en[SCHED_ENABLE_JOB_ORDER])
				s->cb.job_order = NULL;
			if (!en[SCHED_ENABLE_TASK_ORDER])
				s->cb.task_order = NULL;
			if (!en[SCHED_ENABLE_QUEUE_ORDER])
				s->cb.queue_order = NULL;
			if (!en[SCHED_ENABLE_PREDICATE])
				s->cb.predicate = NULL;
			if (!en[SCHED_ENABLE_NODE_ORDER])
				s->cb.node_order = NULL;
			if (!en[SCHED_ENABLE_JOB_READY])
				s->cb.job_ready = NULL;
			if (!en[SCHED_ENABLE_JOB_PIPELINED])
				s->cb.job_pipelined = NULL;
			if (!en[SCHED_ENABLE_JOB_ENQUEUED]) {
				s->cb.job_enqueueable = NULL;
				s->cb.job_enqueued = NULL;
			}
			if (!en[SCHED_ENABLE_JOB_STARVING])
				s->cb.job_starving = NULL;
			if (!en[SCHED_ENABLE_ALLOCATABLE])
				s->cb.allocatable = NULL;
			if (!en[SCHED_ENABLE_OVERUSED])
				s->cb.overused = NULL;
			if (!en[SCHED_ENABLE_PREEMPTABLE])
				s->cb.preemptable = NULL;
			if (!en[SCHED_ENABLE_RECLAIMABLE])
				s->cb.reclaimable = NULL;
			if (!en[SCHED_ENABLE_PREEMPTIVE])
				s->cb.preemptive = NULL;
			if (s->cb.predicate)
				p->pred_slots[p->npred++] = s;
			if (s->cb.node_order)
				p->score_slots[p->nscore++] = s;
			if (s->cb.job_order)
				p->job_order_slots[p->njob_order++] = s;
			if (s->cb.task_order)
				p->task_order_slots[p->ntask_order++] = s;
		}
	}
	return 0;
}

static int open_session(struct sched_session *ssn, struct vc_error *err)
{
	struct sched_snapshot *s = ssn->snap;
	struct sched_session_priv *p = ssn->priv;
	struct name_index nodes = { 0 }, queues = { 0 };
	size_t i, k, ntasks = 0, nd, words;
	double *a;
	int rc = VC_ENOMEM;

	rc = build_dims(ssn);
	if (rc < 0)
		goto nomem;
	nd = ssn->ndims;
	for (i = 0; i < s->njobs; i++)
		ntasks += s->jobs[i]->ntasks;
	ssn->tasks = vc_calloc(ntasks ? ntasks : 1, sizeof(*ssn->tasks));
	ssn->jobs = vc_calloc(s->njobs ? s->njobs : 1, sizeof(*ssn->jobs));
	ssn->nodes = vc_calloc(s->nnodes ? s->nnodes : 1, sizeof(*ssn->nodes));
	ssn->queues = vc_calloc(s->nqueues ? s->nqueues : 1, sizeof(*ssn->queues));
	p->feasible = vc_calloc(s->nnodes ? s->nnodes : 1, sizeof(uint32_t));
	p->scratch_nodes = vc_calloc(s->nnodes ? s->nnodes : 1, sizeof(uint32_t));
	p->cache_stamp = vc_calloc(s->nnodes ? s->nnodes : 1, sizeof(uint32_t));
	p->cache_reason = vc_calloc(s->nnodes ? s->nnodes : 1, sizeof(uint32_t));
	p->node_score = vc_calloc(s->nnodes ? s->nnodes : 1, sizeof(double));
	words = nd * (ntasks + 2 * s->njobs + 5 * s->nnodes + 1 + 4);
	p->arena = vc_calloc(words, sizeof(double));
	if (!ssn->tasks || !ssn->jobs || !ssn->nodes || !ssn->queues || !p->feasible ||
	    !p->scratch_nodes || !p->cache_stamp || !p->cache_reason || !p->node_score || !p->arena)
		goto nomem;
	if (name_index_init(&nodes, s->nnodes) < 0 || name_index_init(&queues, s->nqueues) < 0)
		goto nomem;
	/* Reasons: "Insufficient <dim>" for every dimension, then the pod count. */
	for (i = 0; i < nd; i++) {
		char buf[300];
		uint32_t id;

		snprintf(buf, sizeof(buf), "Insufficient %s", ssn->dims[i]);
		id = sched_reason_intern(ssn, buf);
		if (id == SCHED_NONE)
			goto nomem;
		if (i == 0)
			p->reason_dims = id;
	}
	p->reason_pods = sched_reason_intern(ssn, PRED_REASON_POD_NUMBER);
	if (p->reason_pods == SCHED_NONE)
		goto nomem;

	a = p->arena;
	p->vec = a;
	a += 4 * nd;
	ssn->total = a;
	a += nd;
	sched_ssn_dense(ssn, &s->total, ssn->total);

	ssn->nnodes = s->nnodes;
	for (i = 0; i < s->nnodes; i++) {
		struct sched_snode *n = &ssn->nodes[i];
		struct sched_node *m = s->nodes[i];

		n->n = m;
		n->index = (uint32_t)i;
		n->alloc = a;
		n->idle = a + nd;
		n->used = a + 2 * nd;
		n->releasing = a + 3 * nd;
		n->pipelined = a + 4 * nd;
		a += 5 * nd;
		sched_ssn_dense(ssn, &m->allocatable, n->alloc);
		sched_ssn_dense(ssn, &m->idle, n->idle);
		sched_ssn_dense(ssn, &m->used, n->used);
		sched_ssn_dense(ssn, &m->releasing, n->releasing);
		sched_ssn_dense(ssn, &m->pipelined, n->pipelined);
		n->max_pods = m->allocatable.max_task_num;
		n->plain = !m->unschedulable && json_array_size(m->taints) == 0;
		name_index_put(&nodes, m->name, (uint32_t)i);
	}
	ssn->nqueues = s->nqueues;
	for (i = 0; i < s->nqueues; i++) {
		struct sched_squeue *q = &ssn->queues[i];

		q->q = s->queues[i];
		q->index = (uint32_t)i;
		q->created = q->q->queue ? parse_time(q->q->queue->meta.creation_timestamp) : 0;
		name_index_put(&queues, q->q->name, (uint32_t)i);
	}
	ssn->njobs = s->njobs;
	ssn->ntasks = ntasks;
	ntasks = 0;
	for (i = 0; i < s->njobs; i++) {
		struct sched_sjob *j = &ssn->jobs[i];
		struct sched_job *m = s->jobs[i];
		uint32_t q = name_index_get(&queues, m->queue);
		const char *role;
		json_t *v;

		j->j = m;
		j->index = (uint32_t)i;
		j->queue = q == SCHED_NONE ? NULL : &ssn->queues[q];
		if (j->queue)
			j->queue->active = true;
		j->alloc = a;
		j->min_res = a + nd;
		a += 2 * nd;
		j->has_min_res = m->pg ? m->pg->has_min_resources
				       : m->min_resources.milli_cpu > 0 ||
						 m->min_resources.memory > 0 ||
						 m->min_resources.nscalars > 0;
		sched_ssn_dense(ssn, &m->min_resources, j->min_res);
		j->created = m->pg ? parse_time(m->pg->meta.creation_timestamp) : 0;
		j->phase_at_open = m->phase;
		json_object_foreach (m->min_task_member, role, v) {
			(void)role;
			if (json_is_integer(v))
				j->min_task_total += json_integer_value(v);
		}
		j->roles_enforced = m->min_task_member && m->min_member >= j->min_task_total;
		j->tasks = &ssn->tasks[ntasks];
		j->ntasks = m->ntasks;
		for (k = 0; k < m->ntasks; k++) {
			struct sched_stask *t = &ssn->tasks[ntasks];
			size_t d;

			t->t = m->tasks[k];
			t->t->ssn = t;
			t->job = j;
			t->index = (uint32_t)ntasks++;
			t->node = SCHED_NONE;
			t->pod_index = -1;
			t->req = a;
			sched_ssn_dense(ssn, &t->t->req, a);
			a += nd;
			t->name_index = name_index(t->t->name);
			task_from_pod(ssn, t, &nodes);
			j->count[t->t->status < SCHED_TASK_STATUS_COUNT ? t->t->status
									: SCHED_TASK_UNKNOWN]++;
			if (t->t->status == SCHED_TASK_PENDING && t->t->best_effort)
				j->pending_be++;
			if (sched_task_status_is_allocated(t->t->status))
				for (d = 0; d < nd; d++)
					j->alloc[d] += t->req[d];
		}
	}
	rc = assign_shapes(ssn);
	if (rc == 0)
		rc = assign_class_keys(ssn);
	if (rc < 0)
		goto nomem;
	/* Where the snapshot placed tasks, and the nodes' non-zero requests. */
	for (i = 0; i < ssn->nnodes; i++) {
		struct sched_snode *n = &ssn->nodes[i];

		for (k = 0; k < n->n->ntasks; k++) {
			struct sched_task *t = n->n->tasks[k];

			if (t->ssn) {
				t->ssn->node = (uint32_t)i;
				t->ssn->pod_index = (int32_t)k;
			}
			if (t->status == SCHED_TASK_PIPELINED)
				continue;
			n->nz_cpu +=
				t->req.milli_cpu > 0 ? t->req.milli_cpu : SCHED_DEFAULT_MILLI_CPU;
			n->nz_mem += t->req.memory > 0 ? t->req.memory : SCHED_DEFAULT_MEMORY;
		}
	}
	p->predicate_cache = true;
	{
		const json_t *args = json_object_get(ssn->conf->configurations, "allocate");
		const json_t *v = json_object_get(args, "predicateErrorCacheEnable");

		if (json_is_boolean(v))
			p->predicate_cache = json_is_true(v);
	}
	name_index_release(&nodes);
	name_index_release(&queues);
	rc = open_plugins(ssn, err);
	if (rc == 0 && sched_class_caches_init(ssn) < 0)
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
	return rc;
nomem:
	name_index_release(&nodes);
	name_index_release(&queues);
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

/* ---- session close (§1.8)
 * ------------------------------------------------------------------------ */

static int cmp_hist(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append "<v> <k>" items sorted as strings and joined by ", " (keys are short names). */
static int add_hist(struct vc_buf *b, const char *const *keys, const uint32_t *vals, size_t n)
{
	char text[SCHED_TASK_STATUS_COUNT + 4][48];
	char *items[SCHED_TASK_STATUS_COUNT + 4] = { 0 };
	size_t i, m = 0;
	int rc = 0;

	for (i = 0; i < n && m < sizeof(items) / sizeof(items[0]); i++) {
		if (!vals[i] && strcmp(keys[i], "minAvailable") != 0)
			continue;
		snprintf(text[m], sizeof(text[m]), "%u %s", vals[i], keys[i]);
		items[m] = text[m];
		m++;
	}
	qsort(items, m, sizeof(items[0]), cmp_hist);
	for (i = 0; i < m && rc == 0; i++) {
		if (i)
			rc = vc_buf_adds(b, ", ");
		if (rc == 0)
			rc = vc_buf_adds(b, items[i]);
	}
	return rc;
}

/* The reason a Pending task's condition gets (TaskSchedulingReason): Schedulable or not. */
static bool pending_schedulable(const struct sched_stask *t)
{
	return t->has_last && t->last_status == SCHED_TASK_ALLOCATED;
}

/* Volcano's JobInfo.FitError (§1.8): a new string or NULL. */
static char *job_fit_error(struct sched_session *ssn, const struct sched_sjob *j, bool ready)
{
	const char *keys[SCHED_TASK_STATUS_COUNT + 1];
	uint32_t vals[SCHED_TASK_STATUS_COUNT + 1];
	struct vc_buf *b = &ssn->priv->text;
	size_t i, n = 0;
	uint32_t sched = 0, unsched = 0;
	int rc;

	vc_buf_reset(b);
	for (i = 0; i < SCHED_TASK_STATUS_COUNT; i++) {
		keys[n] = sched_task_status_name((enum sched_task_status)i);
		vals[n++] = j->count[i];
	}
	keys[n] = "minAvailable";
	vals[n++] = (uint32_t)(j->j->min_member > 0 ? j->j->min_member : 0);
	rc = vc_buf_adds(b, ready ? "pod group is ready, " : "pod group is not ready, ");
	if (rc == 0)
		rc = add_hist(b, keys, vals, n);
	for (i = 0; i < j->ntasks; i++) {
		if (j->tasks[i].t->status != SCHED_TASK_PENDING)
			continue;
		if (pending_schedulable(&j->tasks[i]))
			sched++;
		else
			unsched++;
	}
	if (rc == 0 && sched + unsched > 0) {
		const char *k2[2] = { "Schedulable", "Unschedulable" };
		uint32_t v2[2] = { sched, unsched };

		rc = vc_buf_adds(b, "; Pending: ");
		if (rc == 0)
			rc = add_hist(b, k2, v2, 2);
	}
	for (i = 0; i < j->ntasks && rc == 0; i++) {
		const struct sched_stask *t = &j->tasks[i];

		if (!t->fit)
			continue;
		rc = vc_buf_addf(b, ". Origin reason is %s: ", t->t->name);
		if (rc == 0)
			rc = sched_fit_format(ssn, t->fit, b);
		break;
	}
	return rc < 0 ? NULL : vc_strdup(vc_buf_str(b));
}

/* A PodGroup condition object. */
static json_t *condition(const char *type, const char *uid, const char *now, const char *reason,
			 const char *message)
{
	json_t *c = json_object();

	if (!c)
		return NULL;
	if (json_object_set_new(c, "type", json_string(type)) < 0 ||
	    json_object_set_new(c, "status", json_string("True")) < 0 ||
	    json_object_set_new(c, "transitionID", json_string(uid ? uid : "")) < 0 ||
	    json_object_set_new(c, "lastTransitionTime", json_string(now ? now : "")) < 0 ||
	    json_object_set_new(c, "reason", json_string(reason)) < 0 ||
	    (message[0] && json_object_set_new(c, "message", json_string(message)) < 0)) {
		json_decref(c);
		return NULL;
	}
	return c;
}

/* Replace the condition of c's type in arr (or append). Steals c. */
static int put_condition(json_t *arr, json_t *c)
{
	const char *type = json_string_value(json_object_get(c, "type"));
	size_t i;

	for (i = 0; i < json_array_size(arr); i++) {
		const char *t = json_string_value(json_object_get(json_array_get(arr, i), "type"));

		if (t && strcmp(t, type) == 0)
			return json_array_set_new(arr, i, c) < 0 ? VC_ENOMEM : 0;
	}
	return json_array_append_new(arr, c) < 0 ? VC_ENOMEM : 0;
}

static int push_task_result(struct sched_result *r, struct sched_task *t, const char *reason,
			    char *message, const char *nominated)
{
	struct sched_task_result *tr;

	if (r->ntasks == r->tasks_cap) {
		size_t ncap = r->tasks_cap ? r->tasks_cap * 2 : 16;
		struct sched_task_result *p = vc_realloc(r->tasks, ncap * sizeof(*p));

		if (!p)
			goto nomem;
		r->tasks = p;
		r->tasks_cap = ncap;
	}
	tr = &r->tasks[r->ntasks];
	tr->task = t;
	tr->reason = reason;
	tr->message = message;
	tr->nominated_node = NULL;
	if (nominated && !(tr->nominated_node = vc_strdup(nominated)))
		goto nomem;
	r->ntasks++;
	return 0;
nomem:
	vc_free(message);
	return VC_ENOMEM;
}

/* §1.8 item 5: the pod conditions of a job's Allocated, Pending and Pipelined tasks. */
static int task_conditions(struct sched_session *ssn, struct sched_sjob *j)
{
	struct sched_result *r = ssn->priv->res;
	size_t i;

	for (i = 0; i < j->ntasks; i++) {
		struct sched_stask *t = &j->tasks[i];
		enum sched_task_status st = t->t->status, ctx = st;
		uint32_t node = t->node;
		const char *reason = "Unschedulable", *nominated = NULL;
		char *msg = NULL;
		int rc;

		if (st != SCHED_TASK_ALLOCATED && st != SCHED_TASK_PENDING &&
		    st != SCHED_TASK_PIPELINED)
			continue;
		if (t->gated)
			continue;
		if (t->has_last) {
			ctx = t->last_status;
			node = t->last_node;
		}
		if (ctx == SCHED_TASK_ALLOCATED && node != SCHED_NONE) {
			reason = "Schedulable";
			msg = vc_asprintf("Pod %s/%s can possibly be assigned to %s, once "
					  "minAvailable is satisfied",
					  t->t->ns, t->t->name, ssn->nodes[node].n->name);
		} else if (ctx == SCHED_TASK_PIPELINED && node != SCHED_NONE) {
			msg = vc_asprintf("Pod %s/%s can possibly be assigned to %s, once resource "
					  "is released and minAvailable is satisfied",
					  t->t->ns, t->t->name, ssn->nodes[node].n->name);
			if (t->eviction_occurred)
				nominated = ssn->nodes[node].n->name;
		} else if (t->fit) {
			vc_buf_reset(&ssn->priv->text);
			if (sched_fit_format(ssn, t->fit, &ssn->priv->text) < 0)
				return VC_ENOMEM;
			msg = vc_strdup(vc_buf_str(&ssn->priv->text));
		} else {
			msg = vc_strdup(j->fit_error_msg ? j->fit_error_msg
							 : "all nodes are unavailable");
		}
		if (!msg)
			return VC_ENOMEM;
		rc = push_task_result(r, t->t, reason, msg, nominated);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int job_result(struct sched_session *ssn, struct sched_sjob *j)
{
	struct sched_result *r = ssn->priv->res;
	const struct vc_podgroup *pg = j->j->pg;
	struct sched_job_result *jr;
	json_t *conds;
	bool ready = sched_sjob_gang_ready(j), unsched_now = false;
	uint32_t scheduled, completed;
	enum vc_pg_phase phase;
	size_t i;
	int rc;

	if (r->njobs == r->jobs_cap)
		return VC_ENOMEM; /* sized at open: cannot happen */
	jr = &r->jobs[r->njobs];
	memset(jr, 0, sizeof(*jr));
	jr->job = j->j;
	/*
	 * A shallow copy: the cached conditions are immutable and put_condition replaces
	 * elements, it never changes one.
	 */
	conds = json_array();
	if (!conds)
		return VC_ENOMEM;
	jr->conditions = conds;
	r->njobs++;
	if (pg && json_is_array(pg->conditions))
		for (i = 0; i < json_array_size(pg->conditions); i++)
			if (json_array_append(conds, json_array_get(pg->conditions, i)) < 0)
				return VC_ENOMEM;

	/* 1. gang's conditions (jobs with tasks only). */
	if (ssn->priv->gang_configured && j->ntasks > 0) {
		json_t *c;

		if (!ready) {
			uint32_t schedulable = sched_sjob_ready(j), releasing = 0;
			int64_t unready;

			for (i = 0; i < j->ntasks; i++) {
				const struct sched_stask *t = &j->tasks[i];

				if (t->t->status == SCHED_TASK_PENDING && pending_schedulable(t))
					schedulable++;
				if (t->t->status == SCHED_TASK_RELEASING && t->node != SCHED_NONE)
					releasing++;
			}
			unready = (int64_t)j->j->min_member - schedulable;
			/* A shortfall of pods still terminating on their nodes is not news. */
			if (unready > 0 && unready <= (int64_t)releasing) {
				c = NULL;
			} else {
				jr->fit_error = job_fit_error(ssn, j, false);
				if (!jr->fit_error)
					return VC_ENOMEM;
				j->fit_error_msg =
					vc_asprintf("%lld/%zu tasks in gang unschedulable: %s",
						    (long long)unready, j->ntasks, jr->fit_error);
				if (!j->fit_error_msg)
					return VC_ENOMEM;
				c = condition("Unschedulable", ssn->uid, ssn->now,
					      "NotEnoughResources", j->fit_error_msg);
				if (!c)
					return VC_ENOMEM;
				unsched_now = true;
			}
		} else {
			/* The same for every ready job of the session: one shared object. */
			if (!ssn->priv->scheduled_cond)
				ssn->priv->scheduled_cond =
					condition("Scheduled", ssn->uid, ssn->now,
						  "tasks in gang are ready to be scheduled", "");
			if (!ssn->priv->scheduled_cond)
				return VC_ENOMEM;
			c = json_incref(ssn->priv->scheduled_cond);
		}
		if (c && (rc = put_condition(conds, c)) < 0)
			return rc;
	}

	/* 2. the phase. */
	scheduled = j->count[SCHED_TASK_RUNNING] + j->count[SCHED_TASK_BOUND] +
		    j->count[SCHED_TASK_FAILED] + j->count[SCHED_TASK_SUCCEEDED];
	for (i = 0; i < j->ntasks; i++)
		if (j->tasks[i].t->status == SCHED_TASK_RELEASING && j->tasks[i].node != SCHED_NONE)
			scheduled++;
	completed = j->count[SCHED_TASK_FAILED] + j->count[SCHED_TASK_SUCCEEDED];
	if (j->count[SCHED_TASK_RUNNING] > 0 && unsched_now)
		phase = VC_PG_UNKNOWN;
	else if ((int64_t)scheduled >= j->j->min_member)
		phase = scheduled == completed ? VC_PG_COMPLETED : VC_PG_RUNNING;
	else if (j->j->phase != VC_PG_INQUEUE)
		phase = VC_PG_PENDING;
	else
		phase = VC_PG_INQUEUE;
	j->j->phase = phase;
	jr->phase = phase;
	jr->running = (int32_t)j->count[SCHED_TASK_RUNNING];
	jr->succeeded = (int32_t)j->count[SCHED_TASK_SUCCEEDED];
	jr->failed = (int32_t)j->count[SCHED_TASK_FAILED];

	/* 4. the event, and the job's FitError. */
	if (!jr->fit_error && (!ready || phase == VC_PG_PENDING || phase == VC_PG_INQUEUE ||
			       phase == VC_PG_UNKNOWN)) {
		jr->fit_error = job_fit_error(ssn, j, ready);
		if (!jr->fit_error)
			return VC_ENOMEM;
	}
	if (phase == VC_PG_PENDING || phase == VC_PG_INQUEUE || phase == VC_PG_UNKNOWN) {
		jr->event_type = "Warning";
		jr->event_reason = "Unschedulable";
		jr->event_message =
			vc_asprintf("%u/%zu tasks in gang unschedulable: %s",
				    j->count[SCHED_TASK_PENDING], j->ntasks, jr->fit_error);
	} else {
		jr->event_type = "Normal";
		jr->event_reason = "Scheduled";
		jr->event_message = vc_strdup("pod group is ready");
	}
	if (!jr->event_message)
		return VC_ENOMEM;
	jr->reject_message = j->enqueue_msg;
	j->enqueue_msg = NULL;
	return task_conditions(ssn, j);
}

static int dense_to_resource(const struct sched_session *ssn, const double *v,
			     struct vc_resource *r)
{
	size_t d;

	r->milli_cpu = v[0];
	r->memory = v[1];
	for (d = 2; d < ssn->ndims; d++) {
		if (v[d] == 0 && !vc_resource_has_scalar(r, ssn->dims[d]))
			continue;
		if (vc_resource_set_scalar(r, ssn->dims[d], v[d]) < 0)
			return VC_ENOMEM;
	}
	return 0;
}

static int queue_results(struct sched_session *ssn)
{
	struct sched_result *r = ssn->priv->res;
	const struct sched_squeue *root = sched_ssn_queue(ssn, "root");
	double *sum;
	size_t i, d, nd = ssn->ndims;
	int rc = 0;

	sum = vc_calloc(ssn->nqueues * nd + 1, sizeof(double));
	if (!sum)
		return VC_ENOMEM;
	for (i = 0; i < ssn->njobs; i++) {
		const struct sched_sjob *j = &ssn->jobs[i];

		if (!j->queue)
			continue;
		for (d = 0; d < nd; d++)
			sum[j->queue->index * nd + d] += j->alloc[d];
	}
	if (root) {
		/* Roll every queue's own allocation up to its ancestors. */
		double *own = vc_malloc((ssn->nqueues * nd + 1) * sizeof(double));

		if (!own) {
			vc_free(sum);
			return VC_ENOMEM;
		}
		memcpy(own, sum, ssn->nqueues * nd * sizeof(double));
		for (i = 0; i < ssn->nqueues; i++) {
			const struct sched_squeue *q = &ssn->queues[i];
			int depth;

			for (depth = 0; q != root && depth < 32; depth++) {
				const char *parent = q->q->queue && q->q->queue->parent[0]
							     ? q->q->queue->parent
							     : "root";
				const struct sched_squeue *pq = sched_ssn_queue(ssn, parent);

				if (!pq || pq == &ssn->queues[i])
					break;
				for (d = 0; d < nd; d++)
					sum[pq->index * nd + d] += own[i * nd + d];
				q = pq;
			}
		}
		vc_free(own);
	}
	for (i = 0; i < ssn->nqueues && rc == 0; i++) {
		struct sched_queue_result *qr = &r->queues[r->nqueues];

		qr->queue = ssn->queues[i].q;
		vc_resource_init(&qr->allocated);
		r->nqueues++;
		rc = dense_to_resource(ssn, sum + i * nd, &qr->allocated);
	}
	vc_free(sum);
	return rc;
}

/* Write the session's placements and accounting back into the model. */
static int write_back(struct sched_session *ssn)
{
	size_t i;

	for (i = 0; i < ssn->ntasks; i++) {
		struct sched_stask *t = &ssn->tasks[i];
		const char *want = t->node == SCHED_NONE ? NULL : ssn->nodes[t->node].n->name;

		if (t->node == SCHED_NONE && t->t->status != SCHED_TASK_PENDING)
			continue; /* keep what the snapshot said (unplaced node) */
		if (vc_str_eq(want, t->t->node_name))
			continue;
		if (sched_task_set_node(t->t, want) < 0)
			return VC_ENOMEM;
	}
	for (i = 0; i < ssn->nnodes; i++) {
		struct sched_snode *n = &ssn->nodes[i];

		if (dense_to_resource(ssn, n->idle, &n->n->idle) < 0 ||
		    dense_to_resource(ssn, n->used, &n->n->used) < 0 ||
		    dense_to_resource(ssn, n->releasing, &n->n->releasing) < 0 ||
		    dense_to_resource(ssn, n->pipelined, &n->n->pipelined) < 0)
			return VC_ENOMEM;
	}
	for (i = 0; i < ssn->njobs; i++)
		if (dense_to_resource(ssn, ssn->jobs[i].alloc, &ssn->jobs[i].j->allocated) < 0)
			return VC_ENOMEM;
	return 0;
}

static int close_session(struct sched_session *ssn)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < ssn->njobs && rc == 0; i++)
		rc = job_result(ssn, &ssn->jobs[i]);
	if (rc == 0)
		rc = queue_results(ssn);
	if (rc == 0)
		rc = write_back(ssn);
	return rc;
}

static void release_session(struct sched_session *ssn)
{
	struct sched_session_priv *p = ssn->priv;
	size_t i;

	if (!p)
		return;
	for (i = p->nslots; i-- > 0;) {
		struct sched_plugin_slot *s = &p->slots[i];

		if (s->opened && s->plugin->on_session_close)
			s->plugin->on_session_close(ssn, s->state);
	}
	for (i = 0; i < ssn->ntasks; i++) {
		struct sched_stask *t = &ssn->tasks[i];

		if (t->fit) {
			vc_free(t->fit->err);
			vc_free(t->fit);
		}
		if (t->t)
			t->t->ssn = NULL;
	}
	for (i = 0; i < ssn->njobs; i++) {
		vc_free(ssn->jobs[i].fit_error_msg);
		vc_free(ssn->jobs[i].enqueue_msg);
	}
	json_decref(p->scheduled_cond);
	vc_buf_release(&p->text);
	for (i = 0; i < p->nreasons; i++)
		vc_free(p->reasons[i]);
	if (p->dim_names)
		for (i = 2; i < ssn->ndims; i++)
			vc_free((char *)p->dim_names[i]);
	vc_free(p->dim_names);
	vc_free(p->reasons);
	vc_free(p->reason_count);
	vc_free(p->touched);
	vc_free(p->slots);
	vc_free(p->pred_slots);
	vc_free(p->score_slots);
	vc_free(p->feasible);
	vc_free(p->scratch_nodes);
	vc_free(p->cache_stamp);
	vc_free(p->cache_reason);
	vc_free(p->node_score);
	vc_free(p->class_cache);
	vc_free(p->node_ver);
	vc_free(p->job_order_slots);
	vc_free(p->task_order_slots);
	vc_free(p->arena);
	vc_free(ssn->tasks);
	vc_free(ssn->jobs);
	vc_free(ssn->nodes);
	vc_free(ssn->queues);
	vc_free(p);
	ssn->priv = NULL;
}

static int run_actions(struct sched_session *ssn, struct vc_error *err)
{
	size_t i;

	for (i = 0; i < ssn->conf->nactions; i++) {
		const char *name = ssn->conf->actions[i];
		const struct sched_action *a = sched_action_find(name);
		int rc;

		if (!a)
			return vc_error_set(err, VC_EINVAL, "unknown action '%s'", name);
		rc = a->execute(ssn);
		if (rc < 0)
			return vc_error_set(err, rc, "out of memory in action '%s'", name);
	}
	return 0;
}

int sched_session_begin(struct sched_session *ssn, const struct sched_conf *conf,
			struct sched_snapshot *snap, const char *session_uid, const char *now,
			uint64_t seed, struct sched_result *out, struct vc_error *err)
{
	size_t ntasks = 0, i;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(ssn, 0, sizeof(*ssn));
	for (i = 0; i < conf->nactions; i++)
		if (!sched_action_find(conf->actions[i])) {
			vc_error_set(err, VC_EINVAL, "unknown action '%s'", conf->actions[i]);
			return VC_EINVAL;
		}
	ssn->conf = conf;
	ssn->snap = snap;
	ssn->uid = session_uid;
	ssn->now = now;
	ssn->gpu_dim = SCHED_NONE;
	ssn->priv = vc_calloc(1, sizeof(*ssn->priv));
	if (!ssn->priv) {
		vc_error_set(err, VC_ENOMEM, "out of memory");
		return VC_ENOMEM;
	}
	ssn->priv->rng = seed;
	ssn->priv->res = out;
	vc_buf_init(&ssn->priv->text, 1 << 20);
	for (i = 0; i < snap->njobs; i++)
		ntasks += snap->jobs[i]->ntasks;
	out->binds = vc_calloc(ntasks ? ntasks : 1, sizeof(*out->binds));
	out->evicts = vc_calloc(ntasks ? ntasks : 1, sizeof(*out->evicts));
	out->jobs = vc_calloc(snap->njobs ? snap->njobs : 1, sizeof(*out->jobs));
	out->queues = vc_calloc(snap->nqueues ? snap->nqueues : 1, sizeof(*out->queues));
	if (!out->binds || !out->evicts || !out->jobs || !out->queues) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	out->binds_cap = out->evicts_cap = ntasks;
	out->jobs_cap = snap->njobs;
	out->queues_cap = snap->nqueues;
	rc = open_session(ssn, err);
	if (rc < 0)
		goto fail;
	return 0;
fail:
	release_session(ssn);
	sched_result_release(out);
	return rc;
}

void sched_session_end(struct sched_session *ssn)
{
	release_session(ssn);
}

int sched_session_run(const struct sched_conf *conf, struct sched_snapshot *snap,
		      const char *session_uid, const char *now, uint64_t seed,
		      struct sched_result *out, struct vc_error *err)
{
	struct sched_session ssn;
	int64_t start = vc_time_mono_ns();
	int rc;

	rc = sched_session_begin(&ssn, conf, snap, session_uid, now, seed, out, err);
	if (rc < 0)
		return rc;
	rc = run_actions(&ssn, err);
	if (rc == 0) {
		rc = close_session(&ssn);
		if (rc < 0)
			vc_error_set(err, rc, "out of memory");
	}
	if (rc < 0)
		goto fail;
	out->predicate_calls = ssn.priv->predicate_calls;
	out->score_calls = ssn.priv->score_calls;
	out->predicate_evals = ssn.priv->predicate_evals;
	out->score_evals = ssn.priv->score_evals;
	release_session(&ssn);
	out->duration_ns = vc_time_mono_ns() - start;
	return 0;
fail:
	release_session(&ssn);
	sched_result_release(out);
	return rc;
}

/* ---- job helpers --------------------------------------------------------------------------- */

bool sched_sjob_pending(const struct sched_sjob *j)
{
	return j->j->phase == VC_PG_PHASE_NONE || j->j->phase == VC_PG_PENDING;
}

void sched_sjob_set_phase(struct sched_sjob *j, enum vc_pg_phase p)
{
	j->j->phase = p;
}
