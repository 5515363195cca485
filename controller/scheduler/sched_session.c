/*
 * sched_session.c - one cycle (docs/volcano/scheduler.md §1.2-§1.8): open the session over a
 * snapshot (dense dimensions, session views, plugins), run the configured actions, close
 * (sched_session_close.c) and release. The snapshot itself is sched_snapshot.c; task classes are
 * sched_classes.c.
 */
#include "sched_session.h"

#include "sched_internal.h"
#include "sched_podaff.h"
#include "sched_volume.h"
#include "vc_alloc.h"
#include "vc_str.h"
#include "vc_time.h"

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

static bool pod_constrained(const json_t *spec)
{
	const json_t *aff;

	if (json_object_size(json_object_get(spec, "nodeSelector")) > 0)
		return true;
	aff = json_object_get(json_object_get(spec, "affinity"), "nodeAffinity");
	if (json_object_get(aff, "requiredDuringSchedulingIgnoredDuringExecution"))
		return true;
	return sched_pod_has_host_ports(spec);
}

/* The task's from_pod fields (sched_api.h), made once per task. */
static void task_pod_fields(struct sched_task_info *t)
{
	const struct vc_pod *pod = t->pod;
	const json_t *spec, *status;
	const char *pc, *pol, *nom;

	if (t->from_pod.ok)
		return;
	memset(&t->from_pod, 0, sizeof(t->from_pod));
	t->from_pod.ok = true;
	t->from_pod.name_index = name_index(t->name);
	if (!pod)
		return;
	spec = json_object_get(pod->obj, "spec");
	status = json_object_get(pod->obj, "status");
	t->from_pod.created = parse_time(pod->meta.creation_timestamp);
	t->from_pod.gated = json_array_size(json_object_get(spec, "schedulingGates")) > 0;
	pol = json_string_value(json_object_get(spec, "preemptionPolicy"));
	t->from_pod.preempt_never = pol && strcmp(pol, "Never") == 0;
	pc = pod->priority_class_name;
	t->from_pod.critical = (pc && (strcmp(pc, "system-cluster-critical") == 0 ||
				       strcmp(pc, "system-node-critical") == 0)) ||
			       strcmp(t->ns, "kube-system") == 0;
	t->from_pod.constrained = pod_constrained(spec);
	nom = json_string_value(json_object_get(status, "nominatedNodeName"));
	t->from_pod.nominated = nom && nom[0] ? nom : NULL;
}

static void task_from_pod(struct sched_ssn_task *st, const struct sched_name_index *nodes)
{
	struct sched_task_info *t = st->t;

	task_pod_fields(t);
	st->name_index = t->from_pod.name_index;
	st->nominated = SCHED_NONE;
	if (!t->pod)
		return;
	st->created = t->from_pod.created;
	st->gated = t->from_pod.gated;
	st->preempt_never = t->from_pod.preempt_never;
	st->critical = t->from_pod.critical;
	st->constrained = t->from_pod.constrained;
	if (t->from_pod.nominated)
		st->nominated = sched_name_index_get(nodes, t->from_pod.nominated);
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
	p->pred_pods_slots = vc_calloc(n ? n : 1, sizeof(struct sched_plugin_slot *));
	p->batch_slots = vc_calloc(n ? n : 1, sizeof(struct sched_plugin_slot *));
	p->job_order_slots = vc_calloc(n ? n : 1, sizeof(struct sched_plugin_slot *));
	p->task_order_slots = vc_calloc(n ? n : 1, sizeof(struct sched_plugin_slot *));
	if (!p->slots || !p->pred_slots || !p->score_slots || !p->job_order_slots ||
	    !p->task_order_slots || !p->pred_pods_slots || !p->batch_slots)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	for (i = 0; i < c->ntiers; i++) {
		for (k = 0; k < c->tiers[i].nplugins; k++) {
			const struct sched_plugin_conf *pc = &c->tiers[i].plugins[k];
			struct sched_plugin_slot *s = &p->slots[p->nslots];
			const bool *en = pc->enabled;
			int64_t t0;
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
			t0 = sched_metrics_start(sched_ssn_metrics(ssn));
			rc = s->plugin->on_session_open(ssn, pc, &s->cb, &s->state, err);
			sched_metrics_plugin(sched_ssn_metrics(ssn), pc->name, true, t0);
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
			if (!en[SCHED_ENABLE_PREDICATE]) {
				s->cb.predicate = NULL;
				s->cb.predicate_pods = NULL;
			}
			if (!en[SCHED_ENABLE_NODE_ORDER]) {
				s->cb.node_order = NULL;
				s->cb.batch_node_order = NULL;
			}
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
			if (s->cb.predicate_pods)
				p->pred_pods_slots[p->npred_pods++] = s;
			if (s->cb.batch_node_order)
				p->batch_slots[p->nbatch++] = s;
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
	struct sched_name_index nodes, queues;
	size_t i, k, ntasks = 0, nd, words;
	double *a;
	int rc = VC_ENOMEM;

	sched_name_index_init(&nodes);
	sched_name_index_init(&queues);
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
		struct sched_ssn_node *n = &ssn->nodes[i];
		struct sched_node_info *m = s->nodes[i];

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
		if (sched_name_index_put(&nodes, m->name, (uint32_t)i) < 0)
			goto nomem;
	}
	ssn->nqueues = s->nqueues;
	for (i = 0; i < s->nqueues; i++) {
		struct sched_ssn_queue *q = &ssn->queues[i];

		q->q = s->queues[i];
		q->index = (uint32_t)i;
		q->created = q->q->queue ? parse_time(q->q->queue->meta.creation_timestamp) : 0;
		if (sched_name_index_put(&queues, q->q->name, (uint32_t)i) < 0)
			goto nomem;
	}
	ssn->njobs = s->njobs;
	ssn->ntasks = ntasks;
	ntasks = 0;
	for (i = 0; i < s->njobs; i++) {
		struct sched_ssn_job *j = &ssn->jobs[i];
		struct sched_job_info *m = s->jobs[i];
		uint32_t q = sched_name_index_get(&queues, m->queue);
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
			struct sched_ssn_task *t = &ssn->tasks[ntasks];
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
			task_from_pod(t, &nodes);
			j->count[t->t->status < SCHED_TASK_STATUS_COUNT ? t->t->status
									: SCHED_TASK_UNKNOWN]++;
			/*
			 * A gated pod is never placed: it does not count toward minMember as a
			 * pending best-effort task (the Rec of docs/volcano/scheduler.md §4.1).
			 */
			if (t->t->status == SCHED_TASK_PENDING && t->t->best_effort && !t->gated)
				j->pending_be++;
			if (sched_task_status_is_allocated(t->t->status))
				for (d = 0; d < nd; d++)
					j->alloc[d] += t->req[d];
		}
	}
	rc = sched_assign_shapes(ssn);
	if (rc == 0)
		rc = sched_assign_class_keys(ssn);
	if (rc < 0)
		goto nomem;
	/* Where the snapshot placed tasks, and the nodes' non-zero requests. */
	for (i = 0; i < ssn->nnodes; i++) {
		struct sched_ssn_node *n = &ssn->nodes[i];

		for (k = 0; k < n->n->ntasks; k++) {
			struct sched_task_info *t = n->n->tasks[k];

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
	sched_name_index_release(&nodes);
	sched_name_index_release(&queues);
	/* Inter-pod terms anywhere: the index the predicates and nodeorder plugins read. */
	if (sched_podaff_new(ssn, &p->podaff) < 0 || sched_vol_new(ssn, &p->vol) < 0)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = open_plugins(ssn, err);
	if (rc == 0 && sched_class_caches_init(ssn) < 0)
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
	if (rc == 0 && p->nbatch > 0 &&
	    !(p->batch_scores = vc_calloc(ssn->nnodes + 1, sizeof(double))))
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
	return rc;
nomem:
	sched_name_index_release(&nodes);
	sched_name_index_release(&queues);
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

static void release_session(struct sched_session *ssn)
{
	struct sched_session_priv *p = ssn->priv;
	size_t i;

	if (!p)
		return;
	for (i = p->nslots; i-- > 0;) {
		struct sched_plugin_slot *s = &p->slots[i];

		if (s->opened && s->plugin->on_session_close) {
			int64_t t0 = sched_metrics_start(sched_ssn_metrics(ssn));

			s->plugin->on_session_close(ssn, s->state);
			sched_metrics_plugin(sched_ssn_metrics(ssn), s->conf->name, false, t0);
		}
	}
	for (i = 0; i < ssn->ntasks; i++) {
		struct sched_ssn_task *t = &ssn->tasks[i];

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
	vc_free(p->pred_pods_slots);
	vc_free(p->batch_slots);
	vc_free(p->batch_scores);
	sched_podaff_free(p->podaff);
	sched_vol_free(p->vol);
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
		int64_t t0;
		int rc;

		if (!a)
			return vc_error_set(err, VC_EINVAL, "unknown action '%s'", name);
		t0 = sched_metrics_start(sched_ssn_metrics(ssn));
		rc = a->execute(ssn);
		sched_metrics_action(sched_ssn_metrics(ssn), name, t0);
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
	out->open_ns = vc_time_mono_ns() - start;
	rc = run_actions(&ssn, err);
	if (rc == 0) {
		rc = sched_session_close(&ssn);
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

bool sched_ssn_job_is_pending(const struct sched_ssn_job *j)
{
	return j->j->phase == VC_PG_PHASE_NONE || j->j->phase == VC_PG_PENDING;
}

void sched_ssn_job_set_phase(struct sched_ssn_job *j, enum vc_pg_phase p)
{
	j->j->phase = p;
}
