/*
 * sched_api.c - the scheduler's snapshot data model.
 */
#include "sched_api.h"

#include "vc_alloc.h"
#include "vc_hash.h"
#include "vc_str.h"

static const char *const status_names[SCHED_TASK_STATUS_COUNT] = {
	[SCHED_TASK_PENDING] = "Pending",     [SCHED_TASK_ALLOCATED] = "Allocated",
	[SCHED_TASK_PIPELINED] = "Pipelined", [SCHED_TASK_BINDING] = "Binding",
	[SCHED_TASK_BOUND] = "Bound",	      [SCHED_TASK_RUNNING] = "Running",
	[SCHED_TASK_RELEASING] = "Releasing", [SCHED_TASK_SUCCEEDED] = "Succeeded",
	[SCHED_TASK_FAILED] = "Failed",	      [SCHED_TASK_UNKNOWN] = "Unknown",
};

const char *sched_task_status_name(enum sched_task_status s)
{
	if ((unsigned)s >= SCHED_TASK_STATUS_COUNT)
		return "Unknown";
	return status_names[s];
}

bool sched_task_status_is_allocated(enum sched_task_status s)
{
	return s == SCHED_TASK_ALLOCATED || s == SCHED_TASK_BINDING || s == SCHED_TASK_BOUND ||
	       s == SCHED_TASK_RUNNING;
}

enum sched_task_status sched_task_status_of_pod(const struct vc_pod *pod)
{
	bool deleting = pod->meta.deletion_timestamp != NULL;

	switch (pod->phase) {
	case VC_POD_RUNNING:
		return deleting ? SCHED_TASK_RELEASING : SCHED_TASK_RUNNING;
	case VC_POD_PENDING:
		if (deleting)
			return SCHED_TASK_RELEASING;
		return pod->node_name[0] ? SCHED_TASK_BOUND : SCHED_TASK_PENDING;
	case VC_POD_SUCCEEDED:
		return SCHED_TASK_SUCCEEDED;
	case VC_POD_FAILED:
		return SCHED_TASK_FAILED;
	default:
		return SCHED_TASK_UNKNOWN;
	}
}

/* Exchange two resources: commits a result computed aside without a failure point. */
static void res_swap(struct vc_resource *a, struct vc_resource *b)
{
	struct vc_resource t = *a;

	*a = *b;
	*b = t;
}

double sched_share(double l, double r)
{
	if (r == 0)
		return l == 0 ? 0 : 1;
	return l / r;
}

/* ---- tasks ----------------------------------------------------------------------------------- */

static void task_zero(struct sched_task_info *t)
{
	memset(t, 0, sizeof(*t));
	vc_resource_init(&t->req);
	t->priority = 1;
	t->preemptable = true;
	t->status = SCHED_TASK_PENDING;
}

void sched_task_release(struct sched_task_info *t)
{
	if (!t)
		return;
	vc_free(t->uid);
	vc_free(t->ns);
	vc_free(t->name);
	vc_free(t->role);
	vc_free(t->node_name);
	vc_resource_release(&t->req);
	task_zero(t);
}

int sched_task_init(struct sched_task_info *t, const char *ns, const char *name,
		    const struct vc_resource *req)
{
	task_zero(t);
	t->ns = vc_strdup(ns);
	t->name = vc_strdup(name);
	t->uid = vc_asprintf("%s/%s", ns, name);
	t->role = vc_strdup("");
	if (!t->ns || !t->name || !t->uid || !t->role)
		goto fail;
	if (req && vc_resource_copy(&t->req, req) < 0)
		goto fail;
	t->best_effort = vc_resource_is_empty(&t->req);
	return 0;
fail:
	sched_task_release(t);
	return VC_ENOMEM;
}

int sched_task_set_node(struct sched_task_info *t, const char *node_name)
{
	char *copy = NULL;

	if (node_name) {
		copy = vc_strdup(node_name);
		if (!copy)
			return VC_ENOMEM;
	}
	vc_free(t->node_name);
	t->node_name = copy;
	return 0;
}

/* Annotation first, then label (Volcano's GetTaskSpec / preemptable lookups). */
static const char *pod_key(const struct vc_pod *pod, const char *key)
{
	const char *v = vc_meta_annotation(&pod->meta, key);

	return v ? v : vc_meta_label(&pod->meta, key);
}

int sched_task_from_pod(struct sched_task_info *t, const struct vc_pod *pod, struct vc_error *err)
{
	const char *role, *prio, *pre;
	int rc;

	rc = sched_task_init(t, pod->meta.ns, pod->meta.name, &pod->request);
	if (rc < 0)
		return rc;
	if (pod->meta.uid[0]) {
		char *uid = vc_strdup(pod->meta.uid);

		if (!uid)
			goto nomem;
		vc_free(t->uid);
		t->uid = uid;
	}
	role = pod_key(pod, SCHED_ANN_TASK_SPEC);
	if (role) {
		char *r = vc_strdup(role);

		if (!r)
			goto nomem;
		vc_free(t->role);
		t->role = r;
	}
	if (pod->has_priority)
		t->priority = pod->priority;
	prio = vc_meta_annotation(&pod->meta, SCHED_ANN_TASK_PRIORITY);
	if (prio) {
		int64_t v;

		if (vc_parse_int64(prio, &v) < 0 || v < INT32_MIN || v > INT32_MAX) {
			rc = vc_error_set(err, VC_EINVALID,
					  "invalid task priority '%s' of pod %s/%s", prio,
					  pod->meta.ns, pod->meta.name);
			sched_task_release(t);
			return rc;
		}
		t->priority = (int32_t)v;
	}
	pre = pod_key(pod, SCHED_ANN_PREEMPTABLE);
	if (pre && strcmp(pre, "false") == 0)
		t->preemptable = false;
	t->status = sched_task_status_of_pod(pod);
	if (pod->node_name[0] && sched_task_set_node(t, pod->node_name) < 0)
		goto nomem;
	t->pod = pod;
	return 0;
nomem:
	sched_task_release(t);
	return VC_ENOMEM;
}

/* ---- jobs ------------------------------------------------------------------------------------ */

static void job_zero(struct sched_job_info *j)
{
	memset(j, 0, sizeof(*j));
	vc_resource_init(&j->min_resources);
	vc_resource_init(&j->allocated);
	vc_resource_init(&j->request);
}

void sched_job_release(struct sched_job_info *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->ntasks; i++) {
		sched_task_release(j->tasks[i]);
		vc_free(j->tasks[i]);
	}
	vc_free(j->tasks);
	vc_free(j->uid);
	vc_free(j->ns);
	vc_free(j->name);
	vc_free(j->queue);
	vc_resource_release(&j->min_resources);
	vc_resource_release(&j->allocated);
	vc_resource_release(&j->request);
	job_zero(j);
}

int sched_job_init(struct sched_job_info *j, const char *ns, const char *name, const char *queue,
		   int32_t min_member)
{
	job_zero(j);
	j->ns = vc_strdup(ns);
	j->name = vc_strdup(name);
	j->uid = vc_asprintf("%s/%s", ns, name);
	j->queue = vc_strdup(queue && queue[0] ? queue : "default");
	if (!j->ns || !j->name || !j->uid || !j->queue) {
		sched_job_release(j);
		return VC_ENOMEM;
	}
	j->min_member = min_member;
	return 0;
}

int sched_job_from_podgroup(struct sched_job_info *j, const struct vc_podgroup *pg,
			    int32_t priority)
{
	int rc = sched_job_init(j, pg->meta.ns, pg->meta.name, pg->queue, pg->min_member);

	if (rc < 0)
		return rc;
	if (pg->has_min_resources && vc_resource_copy(&j->min_resources, &pg->min_resources) < 0) {
		sched_job_release(j);
		return VC_ENOMEM;
	}
	j->min_task_member = pg->min_task_member;
	j->phase = pg->phase;
	j->priority = priority;
	j->pg = pg;
	return 0;
}

int sched_job_add_task(struct sched_job_info *j, struct sched_task_info *t)
{
	struct vc_resource req = VC_RESOURCE_INIT, alloc = VC_RESOURCE_INIT;
	int rc = VC_ENOMEM;

	if (j->ntasks == j->cap) {
		size_t ncap = j->cap ? j->cap * 2 : 8;
		struct sched_task_info **p =
			vc_realloc(j->tasks, ncap * sizeof(struct sched_task_info *));

		if (!p)
			return VC_ENOMEM;
		j->tasks = p;
		j->cap = ncap;
	}
	/* Compute the new totals aside so that a failure leaves j as it was. */
	if (vc_resource_copy(&req, &j->request) < 0 || vc_resource_add(&req, &t->req) < 0)
		goto out;
	if (vc_resource_copy(&alloc, &j->allocated) < 0)
		goto out;
	if (sched_task_status_is_allocated(t->status) && vc_resource_add(&alloc, &t->req) < 0)
		goto out;
	res_swap(&j->request, &req);
	res_swap(&j->allocated, &alloc);
	j->tasks[j->ntasks++] = t;
	t->job = j;
	rc = 0;
out:
	vc_resource_release(&req);
	vc_resource_release(&alloc);
	return rc;
}

int sched_job_set_status(struct sched_job_info *j, struct sched_task_info *t,
			 enum sched_task_status s)
{
	bool was = sched_task_status_is_allocated(t->status);
	bool now = sched_task_status_is_allocated(s);
	struct vc_resource tmp = VC_RESOURCE_INIT;
	int rc = 0;

	if (was != now) {
		rc = vc_resource_copy(&tmp, &j->allocated);
		if (rc == 0)
			rc = now ? vc_resource_add(&tmp, &t->req) : vc_resource_sub(&tmp, &t->req);
		if (rc == 0)
			res_swap(&j->allocated, &tmp);
		vc_resource_release(&tmp);
		if (rc < 0)
			return rc;
	}
	t->status = s;
	return 0;
}

size_t sched_job_count(const struct sched_job_info *j, enum sched_task_status s)
{
	size_t i, n = 0;

	for (i = 0; i < j->ntasks; i++)
		n += j->tasks[i]->status == s;
	return n;
}

size_t sched_job_ready_count(const struct sched_job_info *j)
{
	size_t i, n = 0;

	for (i = 0; i < j->ntasks; i++)
		n += sched_task_status_is_allocated(j->tasks[i]->status) ||
		     j->tasks[i]->status == SCHED_TASK_SUCCEEDED;
	return n;
}

size_t sched_job_waiting_count(const struct sched_job_info *j)
{
	return sched_job_count(j, SCHED_TASK_PIPELINED);
}

size_t sched_job_pending_best_effort_count(const struct sched_job_info *j)
{
	size_t i, n = 0;

	for (i = 0; i < j->ntasks; i++)
		n += j->tasks[i]->status == SCHED_TASK_PENDING && j->tasks[i]->best_effort;
	return n;
}

/* ---- nodes ----------------------------------------------------------------------------------- */

static void node_zero(struct sched_node_info *n)
{
	memset(n, 0, sizeof(*n));
	vc_resource_init(&n->allocatable);
	vc_resource_init(&n->capability);
	vc_resource_init(&n->idle);
	vc_resource_init(&n->used);
	vc_resource_init(&n->releasing);
	vc_resource_init(&n->pipelined);
}

void sched_node_release(struct sched_node_info *n)
{
	if (!n)
		return;
	vc_free(n->name);
	vc_free(n->tasks);
	vc_resource_release(&n->allocatable);
	vc_resource_release(&n->capability);
	vc_resource_release(&n->idle);
	vc_resource_release(&n->used);
	vc_resource_release(&n->releasing);
	vc_resource_release(&n->pipelined);
	node_zero(n);
}

int sched_node_init(struct sched_node_info *n, const char *name,
		    const struct vc_resource *allocatable)
{
	node_zero(n);
	n->name = vc_strdup(name);
	if (!n->name || vc_resource_copy(&n->allocatable, allocatable) < 0 ||
	    vc_resource_copy(&n->capability, allocatable) < 0 ||
	    vc_resource_copy(&n->idle, allocatable) < 0) {
		sched_node_release(n);
		return VC_ENOMEM;
	}
	return 0;
}

int sched_node_from_view(struct sched_node_info *n, const struct vc_node *node)
{
	int rc = sched_node_init(n, node->meta.name, &node->allocatable);

	if (rc < 0)
		return rc;
	if (vc_resource_copy(&n->capability, &node->capacity) < 0) {
		sched_node_release(n);
		return VC_ENOMEM;
	}
	n->unschedulable = node->unschedulable;
	n->labels = node->meta.labels;
	n->taints = node->taints;
	n->node = node;
	return 0;
}

int sched_node_add_task(struct sched_node_info *n, struct sched_task_info *t)
{
	struct vc_resource used = VC_RESOURCE_INIT, other = VC_RESOURCE_INIT;
	struct vc_resource idle = VC_RESOURCE_INIT;
	bool pipelined = t->status == SCHED_TASK_PIPELINED;
	bool releasing = t->status == SCHED_TASK_RELEASING;
	int rc = VC_ENOMEM;

	if (n->ntasks == n->cap) {
		size_t ncap = n->cap ? n->cap * 2 : 8;
		struct sched_task_info **p =
			vc_realloc(n->tasks, ncap * sizeof(struct sched_task_info *));

		if (!p)
			return VC_ENOMEM;
		n->tasks = p;
		n->cap = ncap;
	}
	if (pipelined) {
		if (vc_resource_copy(&other, &n->pipelined) < 0 ||
		    vc_resource_add(&other, &t->req) < 0)
			goto out;
		res_swap(&n->pipelined, &other);
	} else {
		if (vc_resource_copy(&used, &n->used) < 0 || vc_resource_add(&used, &t->req) < 0)
			goto out;
		if (vc_resource_copy(&idle, &n->allocatable) < 0 ||
		    vc_resource_sub(&idle, &used) < 0)
			goto out;
		if (releasing && (vc_resource_copy(&other, &n->releasing) < 0 ||
				  vc_resource_add(&other, &t->req) < 0))
			goto out;
		res_swap(&n->used, &used);
		res_swap(&n->idle, &idle);
		if (releasing)
			res_swap(&n->releasing, &other);
	}
	n->tasks[n->ntasks++] = t;
	rc = 0;
out:
	vc_resource_release(&used);
	vc_resource_release(&other);
	vc_resource_release(&idle);
	return rc;
}

int sched_node_future_idle(const struct sched_node_info *n, struct vc_resource *out)
{
	struct vc_resource r = VC_RESOURCE_INIT;

	if (vc_resource_copy(&r, &n->idle) < 0 || vc_resource_add(&r, &n->releasing) < 0 ||
	    vc_resource_sub(&r, &n->pipelined) < 0) {
		vc_resource_release(&r);
		return VC_ENOMEM;
	}
	res_swap(out, &r);
	vc_resource_release(&r);
	return 0;
}

/* ---- queues ---------------------------------------------------------------------------------- */

static void queue_zero(struct sched_queue_info *q)
{
	memset(q, 0, sizeof(*q));
	vc_resource_init(&q->capability);
	vc_resource_init(&q->guarantee);
	vc_resource_init(&q->allocated);
	vc_resource_init(&q->request);
	vc_resource_init(&q->real_capability);
	vc_resource_init(&q->deserved);
}

void sched_queue_release(struct sched_queue_info *q)
{
	if (!q)
		return;
	vc_free(q->name);
	vc_free(q->hierarchy);
	vc_resource_release(&q->capability);
	vc_resource_release(&q->guarantee);
	vc_resource_release(&q->allocated);
	vc_resource_release(&q->request);
	vc_resource_release(&q->real_capability);
	vc_resource_release(&q->deserved);
	queue_zero(q);
}

int sched_queue_init(struct sched_queue_info *q, const char *name, int32_t weight)
{
	queue_zero(q);
	q->name = vc_strdup(name);
	if (!q->name)
		return VC_ENOMEM;
	q->weight = weight > 0 ? weight : 1;
	q->reclaimable = true;
	q->state = VC_QUEUE_OPEN;
	return 0;
}

int sched_queue_from_view(struct sched_queue_info *q, const struct vc_queue *view)
{
	const char *h;
	int rc = sched_queue_init(q, view->meta.name, view->weight);

	if (rc < 0)
		return rc;
	q->priority = view->priority;
	q->reclaimable = view->reclaimable;
	q->state = view->state;
	q->has_capability = view->has_capability;
	if (view->has_capability && vc_resource_copy(&q->capability, &view->capability) < 0)
		goto nomem;
	if (view->has_guarantee && vc_resource_copy(&q->guarantee, &view->guarantee) < 0)
		goto nomem;
	h = vc_meta_annotation(&view->meta, "volcano.sh/hierarchy");
	if (h && !(q->hierarchy = vc_strdup(h)))
		goto nomem;
	q->queue = view;
	return 0;
nomem:
	sched_queue_release(q);
	return VC_ENOMEM;
}

int sched_queue_account(struct sched_queue_info *q, const struct sched_job_info *j)
{
	struct vc_resource alloc = VC_RESOURCE_INIT, req = VC_RESOURCE_INIT;
	size_t i;
	int rc = VC_ENOMEM;

	if (vc_resource_copy(&alloc, &q->allocated) < 0 ||
	    vc_resource_add(&alloc, &j->allocated) < 0)
		goto out;
	if (vc_resource_copy(&req, &q->request) < 0 || vc_resource_add(&req, &j->allocated) < 0)
		goto out;
	for (i = 0; i < j->ntasks; i++)
		if (j->tasks[i]->status == SCHED_TASK_PENDING &&
		    vc_resource_add(&req, &j->tasks[i]->req) < 0)
			goto out;
	res_swap(&q->allocated, &alloc);
	res_swap(&q->request, &req);
	q->active = true;
	rc = 0;
out:
	vc_resource_release(&alloc);
	vc_resource_release(&req);
	return rc;
}

uint64_t sched_name_hash(const void *key)
{
	return vc_hash_mix64(vc_fnv1a64(key));
}

bool sched_name_eq(const void *stored, const void *key)
{
	return strcmp(stored, key) == 0;
}
