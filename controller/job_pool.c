/*
 * job_pool.c - a bounded set of threads that run batches of independent calls (pod creations and
 * deletions of one sync, docs/volcano/job-controller.md §2.1.4 "creation is parallel"). The
 * submitting thread works on its own batch too, so a batch always finishes even when every pool
 * thread is busy elsewhere. Threads are started when a batch needs them and end after a while
 * without work (struct job_pool).
 */
#include "job_internal.h"

#include "vc_alloc.h"
#include "vc_time.h"

struct job_batch {
	void (*fn)(void *arg, size_t i);
	void *arg;
	size_t n, next, done;
	struct job_batch *link; /* in the pool's list of batches with unclaimed calls */
};

struct job_pool {
	pthread_mutex_t lock;
	pthread_cond_t work; /* a batch was added, or stop (CLOCK_MONOTONIC for the idle wait) */
	pthread_cond_t done; /* some call finished */
	struct job_batch *head;
	bool stop;
	/*
	 * The threads, made when a batch needs them and gone after JOB_POOL_IDLE_NS without work:
	 * an idle thread holds its stack pages, its malloc cache (tcache: freed small blocks that
	 * pin heap pages the trim cannot hand back) and its libcurl handle with a 16 KB receive
	 * buffer. The 64 kept after a pod storm held ~4 MiB of RSS 15 s after it (bench/README.md,
	 * "Memory after the pod storm", third pass). Slot k is empty (0), running (1) or exited and
	 * not yet joined (2); the next spawn or job_pool_free joins the exited ones.
	 */
	pthread_t *threads;
	unsigned char *state;
	int max, running, idle;
};

#define JOB_POOL_IDLE_NS (2 * VC_NSEC_PER_SEC)

/* Claim the next call of the first batch that has one; with the lock held. */
static struct job_batch *claim(struct job_pool *p, size_t *i)
{
	struct job_batch *b = p->head;

	if (!b)
		return NULL;
	*i = b->next++;
	if (b->next == b->n)
		p->head = b->link; /* fully claimed: off the list */
	return b;
}

static void finish(struct job_pool *p, struct job_batch *b)
{
	pthread_mutex_lock(&p->lock);
	b->done++;
	if (b->done == b->n)
		pthread_cond_broadcast(&p->done);
	pthread_mutex_unlock(&p->lock);
}

struct slot_arg {
	struct job_pool *p;
	int k;
};

/* Wait for work up to JOB_POOL_IDLE_NS; false when the wait ended without any. Lock held. */
static bool wait_work(struct job_pool *p)
{
	struct timespec dl;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += JOB_POOL_IDLE_NS / VC_NSEC_PER_SEC;
	p->idle++;
	while (!p->stop && !p->head && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&p->work, &p->lock, &dl);
	p->idle--;
	return p->stop || p->head;
}

static void *pool_main(void *arg)
{
	struct job_pool *p = ((struct slot_arg *)arg)->p;
	int k = ((struct slot_arg *)arg)->k;
	struct job_batch *b;
	size_t i = 0;

	vc_free(arg);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		if (!p->stop && !p->head && !wait_work(p))
			break;
		if (p->stop)
			break;
		b = claim(p, &i);
		pthread_mutex_unlock(&p->lock);
		b->fn(b->arg, i);
		finish(p, b);
		pthread_mutex_lock(&p->lock);
	}
	p->running--;
	p->state[k] = 2;
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Start threads until want are idle or running ones could take calls; lock held. */
static void grow(struct job_pool *p, int want)
{
	int k, spawn = VC_MIN(want - p->idle, p->max - p->running);

	for (k = 0; k < p->max && spawn > 0; k++) {
		struct slot_arg *a;

		if (p->state[k] == 1)
			continue;
		if (p->state[k] == 2) /* exited: its join returns at once */
			pthread_join(p->threads[k], NULL);
		p->state[k] = 0;
		a = vc_malloc(sizeof(*a));
		if (!a)
			return; /* the submitter runs the calls itself */
		a->p = p;
		a->k = k;
		if (pthread_create(&p->threads[k], NULL, pool_main, a)) {
			vc_free(a);
			return;
		}
		p->state[k] = 1;
		p->running++;
		spawn--;
	}
}

struct job_pool *job_pool_new(int n)
{
	struct job_pool *p = vc_calloc(1, sizeof(*p));
	pthread_condattr_t ca;

	if (!p)
		return NULL;
	if (pthread_mutex_init(&p->lock, NULL))
		goto fail_lock;
	if (pthread_condattr_init(&ca))
		goto fail_attr;
	if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) || pthread_cond_init(&p->work, &ca))
		goto fail_work;
	if (pthread_cond_init(&p->done, NULL))
		goto fail_done;
	pthread_condattr_destroy(&ca);
	if (n > 0 && (!(p->threads = vc_calloc((size_t)n, sizeof(pthread_t))) ||
		      !(p->state = vc_calloc((size_t)n, 1)))) {
		job_pool_free(p);
		return NULL;
	}
	p->max = VC_MAX(n, 0);
	return p;
fail_done:
	pthread_cond_destroy(&p->work);
fail_work:
	pthread_condattr_destroy(&ca);
fail_attr:
	pthread_mutex_destroy(&p->lock);
fail_lock:
	vc_free(p);
	return NULL;
}

void job_pool_free(struct job_pool *p)
{
	int k;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (k = 0; k < p->max; k++) {
		unsigned char st;

		/* Under the lock: an ending thread writes its slot. */
		pthread_mutex_lock(&p->lock);
		st = p->state[k];
		pthread_mutex_unlock(&p->lock);
		if (st)
			pthread_join(p->threads[k], NULL);
	}
	vc_free(p->threads);
	vc_free(p->state);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->lock);
	vc_free(p);
}

void job_pool_run(struct job_pool *p, size_t n, void (*fn)(void *arg, size_t i), void *arg)
{
	struct job_batch b = { fn, arg, n, 0, 0, NULL };
	struct job_batch **tail;
	size_t i;

	if (!n)
		return;
	if (!p || !p->max || n == 1) {
		for (i = 0; i < n; i++)
			fn(arg, i);
		return;
	}
	pthread_mutex_lock(&p->lock);
	for (tail = &p->head; *tail; tail = &(*tail)->link)
		;
	*tail = &b;
	grow(p, (int)VC_MIN(n - 1, (size_t)p->max));
	pthread_cond_broadcast(&p->work);
	/* Work on our own batch until every call is claimed, then wait for the others. */
	while (b.next < b.n) {
		struct job_batch **pp;

		i = b.next++;
		if (b.next == b.n)
			for (pp = &p->head; *pp; pp = &(*pp)->link)
				if (*pp == &b) {
					*pp = b.link;
					break;
				}
		pthread_mutex_unlock(&p->lock);
		fn(arg, i);
		pthread_mutex_lock(&p->lock);
		b.done++;
	}
	while (b.done < b.n)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}
