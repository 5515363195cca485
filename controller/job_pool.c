/*
 * job_pool.c - a fixed set of threads that run batches of independent calls (pod creations and
 * deletions of one sync, docs/volcano/job-controller.md §2.1.4 "creation is parallel"). The
 * submitting thread works on its own batch too, so a batch always finishes even when every pool
 * thread is busy elsewhere.
 */
#include "job_internal.h"

#include "vc_alloc.h"

struct job_batch {
	void (*fn)(void *arg, size_t i);
	void *arg;
	size_t n, next, done;
	struct job_batch *link; /* in the pool's list of batches with unclaimed calls */
};

struct job_pool {
	pthread_mutex_t lock;
	pthread_cond_t work; /* a batch was added, or stop */
	pthread_cond_t done; /* some call finished */
	struct job_batch *head;
	bool stop;
	pthread_t *threads;
	int nthreads;
};

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

static void *pool_main(void *arg)
{
	struct job_pool *p = arg;
	struct job_batch *b;
	size_t i = 0;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stop && !p->head)
			pthread_cond_wait(&p->work, &p->lock);
		if (p->stop)
			break;
		b = claim(p, &i);
		pthread_mutex_unlock(&p->lock);
		b->fn(b->arg, i);
		finish(p, b);
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct job_pool *job_pool_new(int n)
{
	struct job_pool *p = vc_calloc(1, sizeof(*p));
	int k;

	if (!p)
		return NULL;
	if (pthread_mutex_init(&p->lock, NULL))
		goto fail_lock;
	if (pthread_cond_init(&p->work, NULL))
		goto fail_work;
	if (pthread_cond_init(&p->done, NULL))
		goto fail_done;
	if (n > 0 && !(p->threads = vc_calloc((size_t)n, sizeof(pthread_t))))
		goto fail_threads;
	for (k = 0; k < n; k++) {
		if (pthread_create(&p->threads[k], NULL, pool_main, p))
			break;
		p->nthreads++;
	}
	if (n > 0 && p->nthreads == 0) {
		job_pool_free(p);
		return NULL;
	}
	return p;
fail_threads:
	pthread_cond_destroy(&p->done);
fail_done:
	pthread_cond_destroy(&p->work);
fail_work:
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
	for (k = 0; k < p->nthreads; k++)
		pthread_join(p->threads[k], NULL);
	vc_free(p->threads);
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
	if (!p || !p->nthreads || n == 1) {
		for (i = 0; i < n; i++)
			fn(arg, i);
		return;
	}
	pthread_mutex_lock(&p->lock);
	for (tail = &p->head; *tail; tail = &(*tail)->link)
		;
	*tail = &b;
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
