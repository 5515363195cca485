/*
 * plugin_tasktopology.c - Volcano's task-topology plugin (docs/volcano/scheduler.md §4.10):
 * annotations, buckets, TaskOrder and NodeOrder.
 */
#include "plugin_tasktopology.h"

#include "vc_alloc.h"
#include "vc_hash.h"

/* ---- annotations ---------------------------------------------------------------------------- */

static void group_release(struct tasktopo_group *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		vc_free(g->names[i]);
	vc_free(g->names);
	g->names = NULL;
	g->n = 0;
}

static void groups_free(struct tasktopo_group *gs, size_t n)
{
	size_t i;

	for (i = 0; gs && i < n; i++)
		group_release(&gs[i]);
	vc_free(gs);
}

void tasktopo_spec_release(struct tasktopo_spec *s)
{
	if (!s)
		return;
	groups_free(s->affinity, s->naffinity);
	groups_free(s->anti_affinity, s->nanti_affinity);
	group_release(&s->order);
	memset(s, 0, sizeof(*s));
}

/* Split [s, end) at every sep into g, as Go's strings.Split (n separators give n + 1 names). */
static int split_group(const char *s, const char *end, char sep, struct tasktopo_group *g)
{
	const char *p;
	size_t n = 1, i = 0;

	for (p = s; p < end; p++)
		if (*p == sep)
			n++;
	g->names = vc_calloc(n, sizeof(*g->names));
	if (!g->names)
		return VC_ENOMEM;
	g->n = n;
	for (p = s;; p++) {
		if (p == end || *p == sep) {
			g->names[i] = vc_strndup(s, (size_t)(p - s));
			if (!g->names[i])
				goto fail_names;
			i++;
			s = p + 1;
			if (p == end)
				break;
		}
	}
	return 0;

fail_names:
	group_release(g);
	return VC_ENOMEM;
}

/* Split s at ';' into groups, each split at ','. */
static int split_groups(const char *s, struct tasktopo_group **out, size_t *nout)
{
	const char *p, *end = s + strlen(s);
	size_t n = 1, i = 0;
	struct tasktopo_group *gs;

	for (p = s; p < end; p++)
		if (*p == ';')
			n++;
	gs = vc_calloc(n, sizeof(*gs));
	if (!gs)
		return VC_ENOMEM;
	for (p = s;; p++) {
		if (p == end || *p == ';') {
			if (split_group(s, p, ',', &gs[i]) != 0)
				goto fail_groups;
			i++;
			s = p + 1;
			if (p == end)
				break;
		}
	}
	*out = gs;
	*nout = n;
	return 0;

fail_groups:
	groups_free(gs, n);
	return VC_ENOMEM;
}

static bool job_has_role(const struct sched_job_info *j, const char *role)
{
	size_t i;

	for (i = 0; i < j->ntasks; i++)
		if (j->tasks[i]->role && strcmp(j->tasks[i]->role, role) == 0)
			return true;
	return false;
}

/* Volcano's affinityCheck over groups: names exist among j's roles, no repeat in a group. */
static int check_groups(const struct sched_job_info *j, const struct tasktopo_group *gs, size_t n,
			struct vc_error *err)
{
	size_t g, i, k;

	for (g = 0; g < n; g++) {
		for (i = 0; i < gs[g].n; i++) {
			const char *name = gs[g].names[i];

			if (name[0] == '\0')
				continue;
			if (!job_has_role(j, name))
				return vc_error_set(err, VC_EINVALID,
						    "task %s do not exist in job <%s/%s>", name,
						    j->ns, j->name);
			for (k = 0; k < i; k++)
				if (strcmp(gs[g].names[k], name) == 0)
					return vc_error_set(err, VC_EINVALID,
							    "task %s is duplicated in job <%s/%s>",
							    name, j->ns, j->name);
		}
	}
	return 0;
}

/* The string value of key in annotations: 0 with *value NULL when absent. */
static int annotation(const json_t *annotations, const char *key, const char **value,
		      struct vc_error *err)
{
	const json_t *v = annotations ? json_object_get(annotations, key) : NULL;

	*value = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return vc_error_set(err, VC_EINVALID, "annotation '%s' is not a string", key);
	*value = json_string_value(v);
	return 0;
}

int tasktopo_spec_parse(const json_t *annotations, const struct sched_job_info *j,
			struct tasktopo_spec *out, struct vc_error *err)
{
	const char *aff, *anti, *order;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = annotation(annotations, TASKTOPO_ANN_AFFINITY, &aff, err)) != 0 ||
	    (rc = annotation(annotations, TASKTOPO_ANN_ANTI_AFFINITY, &anti, err)) != 0 ||
	    (rc = annotation(annotations, TASKTOPO_ANN_TASK_ORDER, &order, err)) != 0)
		return rc;
	if (!aff && !anti && !order)
		return 0;
	out->present = true;
	if (aff) {
		if ((rc = split_groups(aff, &out->affinity, &out->naffinity)) != 0 ||
		    (rc = check_groups(j, out->affinity, out->naffinity, err)) != 0)
			goto fail_spec;
	}
	if (anti) {
		if ((rc = split_groups(anti, &out->anti_affinity, &out->nanti_affinity)) != 0 ||
		    (rc = check_groups(j, out->anti_affinity, out->nanti_affinity, err)) != 0)
			goto fail_spec;
	}
	if (order) {
		out->has_order = true;
		if ((rc = split_group(order, order + strlen(order), ',', &out->order)) != 0 ||
		    (rc = check_groups(j, &out->order, 1, err)) != 0)
			goto fail_spec;
	}
	return 0;

fail_spec:
	if (rc == VC_ENOMEM)
		vc_error_set(err, VC_ENOMEM, "out of memory");
	tasktopo_spec_release(out);
	return rc;
}

/* ---- node slots ----------------------------------------------------------------------------- */

/* The slot of node name, or -1. */
static long slot_find(const struct tasktopo_job *m, const char *name)
{
	void *found;

	return vc_hmap_lookup(&m->slot_index, name, &found) ? (long)(uintptr_t)found : -1;
}

/* The slot of node name, added (with zero counts) when missing. -1 when out of memory. */
static long slot_get(struct tasktopo_job *m, const char *name)
{
	struct tasktopo_node_slot *s;
	long found = slot_find(m, name);

	if (found >= 0)
		return found;
	if (m->nslots == m->slots_cap) {
		size_t cap = m->slots_cap ? m->slots_cap * 2 : 8;
		struct tasktopo_node_slot *slots = vc_realloc(m->slots, cap * sizeof(*slots));

		if (!slots)
			return -1;
		m->slots = slots;
		m->slots_cap = cap;
	}
	s = &m->slots[m->nslots];
	s->name = vc_strdup(name);
	s->role_count = vc_calloc(m->nroles ? m->nroles : 1, sizeof(*s->role_count));
	/* The index borrows the slot's name, which stays put when the slots array moves. */
	if (!s->name || !s->role_count ||
	    vc_hmap_put(&m->slot_index, s->name, (void *)(uintptr_t)m->nslots, NULL) < 0) {
		vc_free(s->name);
		vc_free(s->role_count);
		return -1;
	}
	s->bucket = -1;
	return (long)m->nslots++;
}

/* ---- buckets -------------------------------------------------------------------------------- */

/* 1 m CPU, 1 MiB of memory and one milli-unit of any scalar weigh the same. */
static double req_score(const struct vc_resource *r)
{
	double score = r->milli_cpu + r->memory / 1024 / 1024;
	size_t i;

	for (i = 0; i < r->nscalars; i++)
		score += r->scalars[i].value;
	return score;
}

static void bucket_free(struct tasktopo_bucket *b)
{
	if (!b)
		return;
	vc_free(b->tasks);
	vc_free(b->role_count);
	vc_resource_release(&b->request);
	vc_free(b->nodes);
	vc_free(b);
}

static struct tasktopo_bucket *bucket_new(struct tasktopo_job *m)
{
	struct tasktopo_bucket *b;

	if (m->nbuckets == m->buckets_cap) {
		size_t cap = m->buckets_cap ? m->buckets_cap * 2 : 4;
		struct tasktopo_bucket **bs =
			vc_realloc(m->buckets, cap * sizeof(struct tasktopo_bucket *));

		if (!bs)
			return NULL;
		m->buckets = bs;
		m->buckets_cap = cap;
	}
	b = vc_calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->role_count = vc_calloc(m->nroles ? m->nroles : 1, sizeof(*b->role_count));
	if (!b->role_count) {
		vc_free(b);
		return NULL;
	}
	vc_resource_init(&b->request);
	b->index = m->nbuckets;
	m->buckets[m->nbuckets++] = b;
	return b;
}

static struct tasktopo_node_count *bucket_node(const struct tasktopo_bucket *b, size_t slot)
{
	size_t i;

	for (i = 0; i < b->nnodes; i++)
		if (b->nodes[i].slot == slot)
			return &b->nodes[i];
	return NULL;
}

static int reserve(void **arr, size_t *cap, size_t want, size_t size)
{
	size_t c;
	void *p;

	if (want <= *cap)
		return 0;
	c = *cap ? *cap * 2 : 4;
	while (c < want)
		c *= 2;
	p = vc_realloc(*arr, c * size);
	if (!p)
		return VC_ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}

/* Count one placed member on slot. */
static int bucket_add_placed(struct tasktopo_bucket *b, size_t slot)
{
	struct tasktopo_node_count *nc = bucket_node(b, slot);

	if (!nc) {
		if (reserve((void **)&b->nodes, &b->nodes_cap, b->nnodes + 1, sizeof(*b->nodes)) !=
		    0)
			return VC_ENOMEM;
		nc = &b->nodes[b->nnodes++];
		nc->slot = slot;
		nc->count = 0;
	}
	nc->count++;
	b->bound++;
	return 0;
}

static int bucket_add(struct tasktopo_job *m, struct tasktopo_bucket *b, struct tasktopo_entry *e,
		      long slot)
{
	size_t size;

	if (slot >= 0) {
		if (bucket_add_placed(b, (size_t)slot) != 0)
			return VC_ENOMEM;
	} else {
		if (reserve((void **)&b->tasks, &b->tasks_cap, b->ntasks + 1,
			    sizeof(struct sched_task_info *)) != 0 ||
		    vc_resource_add(&b->request, &e->task->req) != 0)
			return VC_ENOMEM;
		b->tasks[b->ntasks++] = (struct sched_task_info *)e->task;
		b->req_score += req_score(&e->task->req);
	}
	b->role_count[e->role]++;
	e->bucket = (long)b->index;
	size = b->ntasks + b->bound;
	if (size > m->max_bucket_size)
		m->max_bucket_size = size;
	return 0;
}

long tasktopo_affinity_score(const struct tasktopo_job *m, long r, const size_t *counts,
			     bool only_anti)
{
	long score = 0;
	size_t k, n = m->nroles;

	if (r < 0)
		return 0;
	for (k = 0; k < n; k++) {
		bool same = k == (size_t)r;
		bool aff, anti;

		if (counts[k] == 0)
			continue;
		aff = same ? m->roles[r].self_affinity : m->inter_affinity[(size_t)r * n + k];
		anti = same ? m->roles[r].self_anti_affinity
			    : m->inter_anti_affinity[(size_t)r * n + k];
		if (aff && !only_anti)
			score += (long)counts[k];
		if (anti)
			score -= (long)counts[k];
	}
	return score;
}

static long role_index(const struct tasktopo_job *m, const char *name)
{
	size_t i;

	if (!name || !name[0])
		return -1;
	for (i = 0; i < m->nroles; i++)
		if (strcmp(m->roles[i].name, name) == 0)
			return (long)i;
	return -1;
}

static void role_mark(struct tasktopo_role *r, enum tasktopo_priority p)
{
	if (p > r->priority)
		r->priority = p;
}

static void add_role_names(struct tasktopo_job *m, const struct tasktopo_group *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		if (!g->names[i][0] || role_index(m, g->names[i]) >= 0)
			continue;
		m->roles[m->nroles].name = g->names[i];
		m->nroles++;
	}
}

/* Apply (anti-)affinity groups: one name is a self relation, more relate every pair. */
static void apply_groups(struct tasktopo_job *m, const struct tasktopo_group *gs, size_t n,
			 bool anti)
{
	unsigned char *matrix = anti ? m->inter_anti_affinity : m->inter_affinity;
	size_t g, i, k;

	for (g = 0; g < n; g++) {
		if (gs[g].n == 1) {
			long r = role_index(m, gs[g].names[0]);

			if (r < 0)
				continue;
			if (anti)
				m->roles[r].self_anti_affinity = true;
			else
				m->roles[r].self_affinity = true;
			role_mark(&m->roles[r], anti ? TASKTOPO_PRIO_SELF_ANTI_AFFINITY
						     : TASKTOPO_PRIO_SELF_AFFINITY);
			continue;
		}
		for (i = 0; i < gs[g].n; i++) {
			long src = role_index(m, gs[g].names[i]);

			if (src < 0)
				continue;
			for (k = 0; k < i; k++) {
				long dst = role_index(m, gs[g].names[k]);

				if (dst < 0)
					continue;
				matrix[(size_t)src * m->nroles + (size_t)dst] = 1;
				matrix[(size_t)dst * m->nroles + (size_t)src] = 1;
			}
			role_mark(&m->roles[src], anti ? TASKTOPO_PRIO_INTER_ANTI_AFFINITY
						       : TASKTOPO_PRIO_INTER_AFFINITY);
		}
	}
}

static int entry_cmp(const void *pa, const void *pb)
{
	uintptr_t a = (uintptr_t)((const struct tasktopo_entry *)pa)->task;
	uintptr_t b = (uintptr_t)((const struct tasktopo_entry *)pb)->task;

	return a < b ? -1 : a > b;
}

static struct tasktopo_entry *entry_of(const struct tasktopo_job *m,
				       const struct sched_task_info *t)
{
	struct tasktopo_entry key = { .task = t };

	if (!m->entries)
		return NULL;
	return bsearch(&key, m->entries, m->nentries, sizeof(key), entry_cmp);
}

static bool placed(const struct sched_task_info *t)
{
	return t->node_name && t->node_name[0];
}

struct build_item {
	struct tasktopo_entry *e;
	int order;
	int priority;
};

/* The bucket-building order (docs/volcano/scheduler.md §4.10). */
static int build_cmp(const void *pa, const void *pb)
{
	const struct build_item *a = pa, *b = pb;
	const struct sched_task_info *ta = a->e->task, *tb = b->e->task;
	bool pla = placed(ta), plb = placed(tb);
	int c;

	if (pla != plb)
		return pla ? -1 : 1;
	if (pla) {
		c = strcmp(ta->node_name, tb->node_name);
		if (c)
			return c;
	} else if (a->e->role != b->e->role) {
		if (a->order != b->order)
			return a->order > b->order ? -1 : 1;
		if (a->priority != b->priority)
			return a->priority > b->priority ? -1 : 1;
	}
	c = strcmp(ta->name, tb->name);
	return c ? c : strcmp(ta->uid, tb->uid);
}

static int build_buckets(struct tasktopo_job *m)
{
	struct build_item *items;
	size_t i, n = 0;
	int rc = VC_ENOMEM;

	items = vc_calloc(m->nentries ? m->nentries : 1, sizeof(*items));
	if (!items)
		return VC_ENOMEM;
	for (i = 0; i < m->nentries; i++) {
		struct tasktopo_entry *e = &m->entries[i];

		if (e->role < 0 || m->roles[e->role].priority == TASKTOPO_PRIO_NONE)
			continue;
		items[n].e = e;
		items[n].order = m->roles[e->role].order;
		items[n].priority = (int)m->roles[e->role].priority;
		n++;
	}
	qsort(items, n, sizeof(*items), build_cmp);
	for (i = 0; i < n; i++) {
		struct tasktopo_entry *e = items[i].e;
		struct tasktopo_bucket *best = NULL;
		long best_score = LONG_MIN, slot = -1;
		size_t k;

		e->seq = i;
		if (placed(e->task)) {
			slot = slot_get(m, e->task->node_name);
			if (slot < 0)
				goto out_items;
			best_score = 0;
			if (m->slots[slot].bucket >= 0)
				best = m->buckets[m->slots[slot].bucket];
		} else {
			for (k = 0; k < m->nbuckets; k++) {
				struct tasktopo_bucket *b = m->buckets[k];
				long score =
					tasktopo_affinity_score(m, e->role, b->role_count, false);

				if (score > best_score) {
					best_score = score;
					best = b;
				} else if (score == best_score && best &&
					   b->req_score < best->req_score) {
					best = b;
				}
			}
		}
		if (best_score < 0 || !best) {
			best = bucket_new(m);
			if (!best)
				goto out_items;
			if (slot >= 0)
				m->slots[slot].bucket = (long)best->index;
		}
		if (bucket_add(m, best, e, slot) != 0)
			goto out_items;
	}
	rc = 0;

out_items:
	vc_free(items);
	return rc;
}

void tasktopo_job_free(struct tasktopo_job *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nbuckets; i++)
		bucket_free(m->buckets[i]);
	vc_free(m->buckets);
	for (i = 0; i < m->nslots; i++) {
		vc_free(m->slots[i].name);
		vc_free(m->slots[i].role_count);
	}
	vc_free(m->slots);
	vc_hmap_release(&m->slot_index, NULL);
	vc_free(m->entries);
	vc_free(m->inter_affinity);
	vc_free(m->inter_anti_affinity);
	vc_free(m->roles);
	tasktopo_spec_release(&m->spec);
	vc_free(m);
}

int tasktopo_job_new(const struct sched_job_info *j, struct tasktopo_spec *spec,
		     struct tasktopo_job **out)
{
	struct tasktopo_job *m;
	size_t i, names = spec->order.n, sq;

	*out = NULL;
	m = vc_calloc(1, sizeof(*m));
	if (!m) {
		tasktopo_spec_release(spec);
		return VC_ENOMEM;
	}
	vc_hmap_init(&m->slot_index, sched_name_hash, sched_name_eq);
	m->job = j;
	m->spec = *spec;
	memset(spec, 0, sizeof(*spec));
	for (i = 0; i < m->spec.naffinity; i++)
		names += m->spec.affinity[i].n;
	for (i = 0; i < m->spec.nanti_affinity; i++)
		names += m->spec.anti_affinity[i].n;
	m->roles = vc_calloc(names ? names : 1, sizeof(*m->roles));
	if (!m->roles)
		goto fail_job;
	for (i = 0; i < m->spec.naffinity; i++)
		add_role_names(m, &m->spec.affinity[i]);
	for (i = 0; i < m->spec.nanti_affinity; i++)
		add_role_names(m, &m->spec.anti_affinity[i]);
	add_role_names(m, &m->spec.order);
	sq = m->nroles * m->nroles;
	m->inter_affinity = vc_calloc(sq ? sq : 1, 1);
	m->inter_anti_affinity = vc_calloc(sq ? sq : 1, 1);
	if (!m->inter_affinity || !m->inter_anti_affinity)
		goto fail_job;
	apply_groups(m, m->spec.affinity, m->spec.naffinity, false);
	apply_groups(m, m->spec.anti_affinity, m->spec.nanti_affinity, true);
	for (i = 0; i < m->spec.order.n; i++) {
		long r = role_index(m, m->spec.order.names[i]);

		if (r >= 0)
			m->roles[r].order = (int)(m->spec.order.n - i);
	}

	m->entries = vc_calloc(j->ntasks ? j->ntasks : 1, sizeof(*m->entries));
	if (!m->entries)
		goto fail_job;
	m->nentries = j->ntasks;
	for (i = 0; i < j->ntasks; i++) {
		m->entries[i].task = j->tasks[i];
		m->entries[i].role = role_index(m, j->tasks[i]->role);
		m->entries[i].bucket = -1;
		m->entries[i].placed_at_open = placed(j->tasks[i]);
		m->entries[i].alloc_slot = -1;
	}
	qsort(m->entries, m->nentries, sizeof(*m->entries), entry_cmp);
	if (build_buckets(m) != 0)
		goto fail_job;
	*out = m;
	return 0;

fail_job:
	tasktopo_job_free(m);
	return VC_ENOMEM;
}

const struct tasktopo_bucket *tasktopo_job_bucket_of(const struct tasktopo_job *m,
						     const struct sched_task_info *t)
{
	const struct tasktopo_entry *e = m ? entry_of(m, t) : NULL;

	return e && e->bucket >= 0 ? m->buckets[e->bucket] : NULL;
}

long tasktopo_job_role_of(const struct tasktopo_job *m, const struct sched_task_info *t)
{
	const struct tasktopo_entry *e = m ? entry_of(m, t) : NULL;

	return e ? e->role : -1;
}

static long bucket_task_pos(const struct tasktopo_bucket *b, const struct sched_task_info *t)
{
	size_t i;

	for (i = 0; i < b->ntasks; i++)
		if (b->tasks[i] == t)
			return (long)i;
	return -1;
}

int tasktopo_job_allocated(struct tasktopo_job *m, const struct sched_task_info *t,
			   const char *node_name)
{
	struct tasktopo_entry *e = entry_of(m, t);
	struct tasktopo_bucket *b;
	long slot, pos = -1;

	if (!e || !node_name || e->placed_at_open || e->alloc_slot >= 0)
		return 0;
	b = e->bucket >= 0 ? m->buckets[e->bucket] : NULL;
	if (b)
		pos = bucket_task_pos(b, t);
	if (e->role < 0)
		return 0;
	slot = slot_get(m, node_name);
	if (slot < 0)
		return VC_ENOMEM;
	if (pos >= 0) {
		/* Grow first so that nothing below can fail half-way. */
		if (!bucket_node(b, (size_t)slot) && reserve((void **)&b->nodes, &b->nodes_cap,
							     b->nnodes + 1, sizeof(*b->nodes)) != 0)
			return VC_ENOMEM;
		if (vc_resource_sub(&b->request, &t->req) != 0)
			return VC_ENOMEM;
		(void)bucket_add_placed(b, (size_t)slot);
		memmove(&b->tasks[pos], &b->tasks[pos + 1],
			(b->ntasks - (size_t)pos - 1) * sizeof(struct sched_task_info *));
		b->ntasks--;
		b->req_score -= req_score(&t->req);
	}
	m->slots[slot].role_count[e->role]++;
	e->alloc_slot = slot;
	return 0;
}

int tasktopo_job_deallocated(struct tasktopo_job *m, const struct sched_task_info *t)
{
	struct tasktopo_entry *e = entry_of(m, t);
	struct tasktopo_node_count *nc = NULL;
	struct tasktopo_bucket *b;
	size_t slot;

	if (!e || e->alloc_slot < 0)
		return 0;
	slot = (size_t)e->alloc_slot;
	b = e->bucket >= 0 ? m->buckets[e->bucket] : NULL;
	if (b && bucket_task_pos(b, t) < 0)
		nc = bucket_node(b, slot);
	if (nc && nc->count > 0) {
		size_t pos;

		if (reserve((void **)&b->tasks, &b->tasks_cap, b->ntasks + 1,
			    sizeof(struct sched_task_info *)) != 0 ||
		    vc_resource_add(&b->request, &t->req) != 0)
			return VC_ENOMEM;
		for (pos = 0; pos < b->ntasks; pos++) {
			const struct tasktopo_entry *o = entry_of(m, b->tasks[pos]);

			if (o && o->seq > e->seq)
				break;
		}
		memmove(&b->tasks[pos + 1], &b->tasks[pos],
			(b->ntasks - pos) * sizeof(struct sched_task_info *));
		b->tasks[pos] = (struct sched_task_info *)t;
		b->ntasks++;
		b->req_score += req_score(&t->req);
		nc->count--;
		b->bound--;
	}
	if (m->slots[slot].role_count[e->role] > 0)
		m->slots[slot].role_count[e->role]--;
	e->alloc_slot = -1;
	return 0;
}

/* ---- session -------------------------------------------------------------------------------- */

static int job_ptr_cmp(const void *pa, const void *pb)
{
	uintptr_t a = (uintptr_t)(*(struct tasktopo_job *const *)pa)->job;
	uintptr_t b = (uintptr_t)(*(struct tasktopo_job *const *)pb)->job;

	return a < b ? -1 : a > b;
}

void tasktopo_session_close(struct tasktopo_session *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->njobs; i++)
		tasktopo_job_free(s->jobs[i]);
	vc_free(s->jobs);
	s->jobs = NULL;
	s->njobs = 0;
}

int tasktopo_session_open(struct tasktopo_session *s, struct sched_job_info *const *jobs, size_t n,
			  int weight)
{
	size_t i;

	s->weight = weight;
	s->jobs = NULL;
	s->njobs = 0;
	for (i = 0; i < n; i++) {
		const struct sched_job_info *j = jobs[i];
		const json_t *ann = j->pg ? j->pg->meta.annotations : NULL;
		struct tasktopo_spec spec;
		struct tasktopo_job *m, **grown;
		int rc;

		if (!ann || sched_job_count(j, SCHED_TASK_PENDING) == 0)
			continue;
		rc = tasktopo_spec_parse(ann, j, &spec, NULL);
		if (rc == VC_ENOMEM)
			goto fail_session;
		if (rc != 0 || !spec.present)
			continue; /* invalid annotations: the job is left out, as Volcano does */
		if (tasktopo_job_new(j, &spec, &m) != 0)
			goto fail_session;
		grown = vc_realloc(s->jobs, (s->njobs + 1) * sizeof(struct tasktopo_job *));
		if (!grown) {
			tasktopo_job_free(m);
			goto fail_session;
		}
		s->jobs = grown;
		s->jobs[s->njobs++] = m;
	}
	if (s->njobs > 1)
		qsort(s->jobs, s->njobs, sizeof(struct tasktopo_job *), job_ptr_cmp);
	return 0;

fail_session:
	tasktopo_session_close(s);
	return VC_ENOMEM;
}

struct tasktopo_job *tasktopo_session_job(const struct tasktopo_session *s,
					  const struct sched_job_info *j)
{
	size_t lo = 0, hi;

	if (!s || !j)
		return NULL;
	hi = s->njobs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uintptr_t v = (uintptr_t)s->jobs[mid]->job;

		if (v == (uintptr_t)j)
			return s->jobs[mid];
		if (v < (uintptr_t)j)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Volcano's taskAffinityOrder: 1 when a's role goes first, -1 when b's, 0 for a tie. */
static int affinity_order(const struct tasktopo_job *m, const struct sched_task_info *a,
			  const struct sched_task_info *b)
{
	long ra = tasktopo_job_role_of(m, a), rb = tasktopo_job_role_of(m, b);
	int oa, ob, pa, pb;

	if (ra == rb)
		return 0;
	oa = ra >= 0 ? m->roles[ra].order : 0;
	ob = rb >= 0 ? m->roles[rb].order : 0;
	if (oa != ob)
		return oa > ob ? 1 : -1;
	pa = ra >= 0 ? (int)m->roles[ra].priority : 0;
	pb = rb >= 0 ? (int)m->roles[rb].priority : 0;
	if (pa != pb)
		return pa > pb ? 1 : -1;
	return 0;
}

int tasktopo_task_order(const struct tasktopo_session *s, const struct sched_task_info *a,
			const struct sched_task_info *b)
{
	const struct tasktopo_job *ma = tasktopo_session_job(s, a->job);
	const struct tasktopo_job *mb = tasktopo_session_job(s, b->job);
	const struct tasktopo_bucket *ba, *bb;

	if (!ma || !mb)
		return 0;
	ba = tasktopo_job_bucket_of(ma, a);
	bb = tasktopo_job_bucket_of(mb, b);
	if ((ba != NULL) != (bb != NULL))
		return ba ? -1 : 1;
	if (a->job != b->job || !ba)
		return 0;
	if (ba->ntasks != bb->ntasks)
		return ba->ntasks > bb->ntasks ? -1 : 1;
	if (ba == bb)
		return -affinity_order(ma, a, b);
	return ba->index < bb->index ? -1 : 1;
}

const struct tasktopo_bucket *tasktopo_count_score(const struct tasktopo_session *s,
						   const struct sched_task_info *t,
						   const char *node_name, long *score)
{
	const struct tasktopo_job *m = tasktopo_session_job(s, t->job);
	const struct tasktopo_entry *e = m ? entry_of(m, t) : NULL;
	const struct tasktopo_bucket *b;
	long sc = 0, slot;

	*score = 0;
	if (!e || e->bucket < 0)
		return NULL;
	b = m->buckets[e->bucket];
	slot = slot_find(m, node_name);
	if (slot >= 0) {
		const struct tasktopo_node_count *nc = bucket_node(b, (size_t)slot);
		long anti;

		if (nc)
			sc += (long)nc->count;
		anti = tasktopo_affinity_score(m, e->role, m->slots[slot].role_count, true);
		if (anti < 0)
			sc += anti;
	}
	*score = sc + (long)b->ntasks;
	return b;
}

double tasktopo_scale(const struct tasktopo_session *s, const struct sched_task_info *t, long score)
{
	const struct tasktopo_job *m = tasktopo_session_job(s, t->job);
	double v = (double)(score * s->weight);

	if (m && m->max_bucket_size)
		v = v * 100.0 / (double)m->max_bucket_size;
	return v;
}

int tasktopo_node_score(const struct tasktopo_session *s, const struct sched_task_info *t,
			const struct sched_node_info *n, double *score)
{
	struct vc_resource max = VC_RESOURCE_INIT, remains = VC_RESOURCE_INIT;
	const struct tasktopo_bucket *b;
	long sc;
	int rc = VC_ENOMEM;
	size_t i;

	*score = 0;
	b = tasktopo_count_score(s, t, n->name, &sc);
	if (!b)
		return 0; /* no job manager, or out of bucket: Volcano's score 0 either way */
	if (vc_resource_copy(&max, &n->idle) != 0 || vc_resource_add(&max, &n->releasing) != 0)
		goto out_max;
	rc = 0;
	if (vc_resource_less_partly(&max, &t->req, VC_RESOURCE_ZERO))
		goto out_max; /* the task alone does not fit */
	if (!vc_resource_less_equal(&b->request, &max, VC_RESOURCE_ZERO)) {
		rc = VC_ENOMEM;
		if (vc_resource_copy(&remains, &b->request) != 0)
			goto out_max;
		for (i = 0; i < b->ntasks; i++) {
			if (b->tasks[i] == t)
				continue;
			if (vc_resource_sub(&remains, &b->tasks[i]->req) != 0)
				goto out_max;
			sc--;
			if (vc_resource_less_equal(&remains, &max, VC_RESOURCE_ZERO))
				break;
		}
		rc = 0;
	}
	*score = tasktopo_scale(s, t, sc);

out_max:
	vc_resource_release(&remains);
	vc_resource_release(&max);
	return rc;
}

int tasktopo_session_allocated(struct tasktopo_session *s, const struct sched_task_info *t,
			       const char *node_name)
{
	struct tasktopo_job *m = tasktopo_session_job(s, t->job);

	return m ? tasktopo_job_allocated(m, t, node_name) : 0;
}

int tasktopo_session_deallocated(struct tasktopo_session *s, const struct sched_task_info *t)
{
	struct tasktopo_job *m = tasktopo_session_job(s, t->job);

	return m ? tasktopo_job_deallocated(m, t) : 0;
}
