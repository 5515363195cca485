/*
 * plugin_proportion.c - queue deserved shares by weighted water-filling (scheduler.md §4.4).
 */
#include "plugins.h"

#include <math.h>

#include "vc_alloc.h"

/* Rounds of the water-filling loop before giving up; Volcano has no bound, and every round
 * either meets a queue or shrinks `remaining`, so this is only a guard against float creep. */
#define PROPORTION_MAX_ROUNDS 10000

static void res_swap(struct vc_resource *a, struct vc_resource *b)
{
	struct vc_resource t = *a;

	*a = *b;
	*b = t;
}

static bool le_tol(double l, double r)
{
	return l < r || fabs(l - r) < VC_RESOURCE_MIN;
}

/* Go's reflect.DeepEqual on two resources: the exact same numbers and scalar names. */
static bool res_identical(const struct vc_resource *a, const struct vc_resource *b)
{
	size_t i;

	if (a->milli_cpu != b->milli_cpu || a->memory != b->memory || a->nscalars != b->nscalars)
		return false;
	for (i = 0; i < a->nscalars; i++)
		if (strcmp(a->scalars[i].name, b->scalars[i].name) != 0 ||
		    a->scalars[i].value != b->scalars[i].value)
			return false;
	return true;
}

static void res_clamp_zero(struct vc_resource *r)
{
	size_t i;

	if (r->milli_cpu < 0)
		r->milli_cpu = 0;
	if (r->memory < 0)
		r->memory = 0;
	for (i = 0; i < r->nscalars; i++)
		if (r->scalars[i].value < 0)
			r->scalars[i].value = 0;
}

/* inc += max(d, 0) and dec += max(-d, 0) per dimension of d. */
static int res_split(const struct vc_resource *d, struct vc_resource *inc, struct vc_resource *dec)
{
	size_t i;

	if (d->milli_cpu > 0)
		inc->milli_cpu += d->milli_cpu;
	else
		dec->milli_cpu -= d->milli_cpu;
	if (d->memory > 0)
		inc->memory += d->memory;
	else
		dec->memory -= d->memory;
	for (i = 0; i < d->nscalars; i++) {
		double v = d->scalars[i].value;
		int rc = v > 0 ? vc_resource_add_scalar(inc, d->scalars[i].name, v)
			       : vc_resource_add_scalar(dec, d->scalars[i].name, -v);

		if (rc < 0)
			return rc;
	}
	return 0;
}

static int real_capability(struct sched_queue *q, const struct vc_resource *total,
			   const struct vc_resource *total_guarantee)
{
	struct vc_resource real = VC_RESOURCE_INIT, cap = VC_RESOURCE_INIT;
	int rc = VC_ENOMEM;

	if (vc_resource_copy(&real, total) < 0 || vc_resource_sub(&real, total_guarantee) < 0)
		goto out;
	res_clamp_zero(&real);
	if (vc_resource_add(&real, &q->guarantee) < 0)
		goto out;
	if (q->has_capability) {
		if (vc_resource_copy(&cap, &q->capability) < 0)
			goto out;
		if (cap.milli_cpu <= 0)
			cap.milli_cpu = INFINITY;
		if (cap.memory <= 0)
			cap.memory = INFINITY;
		vc_resource_min_dimension(&real, &cap, VC_RESOURCE_INFINITY);
	}
	res_swap(&q->real_capability, &real);
	rc = 0;
out:
	vc_resource_release(&real);
	vc_resource_release(&cap);
	return rc;
}

void proportion_update_share(struct sched_queue *q)
{
	const char *names[64];
	size_t i, n = vc_resource_names(&q->deserved, names, 64);
	double share = 0;

	if (n > 64)
		n = 64;
	for (i = 0; i < n; i++) {
		double s = sched_share(vc_resource_get(&q->allocated, names[i]),
				       vc_resource_get(&q->deserved, names[i]));

		if (s > share)
			share = s;
	}
	q->share = share;
}

/* One queue's step of a round; accumulates the change into inc/dec. */
static int fill_one(struct sched_queue *q, const struct vc_resource *remaining, double ratio,
		    struct vc_resource *inc, struct vc_resource *dec, bool *met)
{
	struct vc_resource old = VC_RESOURCE_INIT, add = VC_RESOURCE_INIT;
	struct vc_resource d = VC_RESOURCE_INIT, diff = VC_RESOURCE_INIT;
	int rc = VC_ENOMEM;

	if (vc_resource_copy(&old, &q->deserved) < 0 || vc_resource_copy(&d, &q->deserved) < 0 ||
	    vc_resource_copy(&add, remaining) < 0)
		goto out;
	vc_resource_multi(&add, ratio);
	if (vc_resource_add(&d, &add) < 0)
		goto out;
	vc_resource_min_dimension(&d, &q->real_capability, VC_RESOURCE_INFINITY);
	vc_resource_min_dimension(&d, &q->request, VC_RESOURCE_ZERO);
	if (vc_resource_set_max(&d, &q->guarantee) < 0)
		goto out;
	if (vc_resource_copy(&diff, &d) < 0 || vc_resource_sub(&diff, &old) < 0)
		goto out;
	if (res_split(&diff, inc, dec) < 0)
		goto out;
	res_swap(&q->deserved, &d);
	proportion_update_share(q);
	*met = vc_resource_less_equal(&q->request, &q->deserved, VC_RESOURCE_ZERO) ||
	       res_identical(&q->deserved, &old);
	rc = 0;
out:
	vc_resource_release(&old);
	vc_resource_release(&add);
	vc_resource_release(&d);
	vc_resource_release(&diff);
	return rc;
}

int proportion_compute_ptrs(struct sched_queue **queues, size_t n, const struct vc_resource *total)
{
	struct vc_resource total_guarantee = VC_RESOURCE_INIT, remaining = VC_RESOURCE_INIT;
	struct vc_resource old_remaining = VC_RESOURCE_INIT;
	struct vc_resource inc = VC_RESOURCE_INIT, dec = VC_RESOURCE_INIT;
	bool *met = NULL;
	size_t i, round;
	int rc = VC_ENOMEM;

	if (n == 0)
		return 0;
	met = vc_calloc(n, sizeof(*met));
	if (!met)
		return VC_ENOMEM;
	for (i = 0; i < n; i++)
		if (vc_resource_add(&total_guarantee, &queues[i]->guarantee) < 0)
			goto out;
	for (i = 0; i < n; i++) {
		vc_resource_clear(&queues[i]->deserved);
		queues[i]->share = 0;
		if (real_capability(queues[i], total, &total_guarantee) < 0)
			goto out;
		met[i] = !queues[i]->active;
	}
	if (vc_resource_copy(&remaining, total) < 0)
		goto out;
	for (round = 0; round < PROPORTION_MAX_ROUNDS; round++) {
		int64_t weight = 0;

		for (i = 0; i < n; i++)
			if (!met[i])
				weight += queues[i]->weight;
		if (weight == 0)
			break;
		vc_resource_clear(&inc);
		vc_resource_clear(&dec);
		if (vc_resource_copy(&old_remaining, &remaining) < 0)
			goto out;
		for (i = 0; i < n; i++) {
			if (met[i])
				continue;
			if (fill_one(queues[i], &remaining,
				     (double)queues[i]->weight / (double)weight, &inc, &dec,
				     &met[i]) < 0)
				goto out;
		}
		if (vc_resource_sub(&remaining, &inc) < 0 || vc_resource_add(&remaining, &dec) < 0)
			goto out;
		res_clamp_zero(&remaining);
		if (vc_resource_is_empty(&remaining) || res_identical(&remaining, &old_remaining))
			break;
	}
	rc = 0;
out:
	vc_free(met);
	vc_resource_release(&total_guarantee);
	vc_resource_release(&remaining);
	vc_resource_release(&old_remaining);
	vc_resource_release(&inc);
	vc_resource_release(&dec);
	return rc;
}

int proportion_compute(struct sched_queue *queues, size_t n, const struct vc_resource *total)
{
	struct sched_queue **ptrs;
	size_t i;
	int rc;

	if (n == 0)
		return 0;
	ptrs = vc_calloc(n, sizeof(struct sched_queue *));
	if (!ptrs)
		return VC_ENOMEM;
	for (i = 0; i < n; i++)
		ptrs[i] = &queues[i];
	rc = proportion_compute_ptrs(ptrs, n, total);
	vc_free(ptrs);
	return rc;
}

bool proportion_overused(const struct sched_queue *q)
{
	return vc_resource_less_equal(&q->deserved, &q->allocated, VC_RESOURCE_ZERO);
}

bool proportion_allocatable(const struct sched_queue *q, const struct vc_resource *req)
{
	size_t i;

	if (q->state != VC_QUEUE_OPEN)
		return false;
	if (req->milli_cpu > 0 &&
	    !le_tol(q->allocated.milli_cpu + req->milli_cpu, q->deserved.milli_cpu))
		return false;
	if (req->memory > 0 && !le_tol(q->allocated.memory + req->memory, q->deserved.memory))
		return false;
	for (i = 0; i < req->nscalars; i++) {
		const char *name = req->scalars[i].name;
		double v = req->scalars[i].value;

		if (v <= 0 || strcmp(name, "pods") == 0)
			continue;
		if (!le_tol(vc_resource_get(&q->allocated, name) + v,
			    vc_resource_get(&q->deserved, name)))
			return false;
	}
	return true;
}

int proportion_queue_order(const struct sched_queue *a, const struct sched_queue *b)
{
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	if (a->share != b->share)
		return a->share < b->share ? -1 : 1;
	return 0;
}
