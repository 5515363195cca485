#include "vc_workqueue.h"

#include <pthread.h>
#include <time.h>

#include "vc_alloc.h"
#include "vc_hash.h"
#include "vc_ratelimit.h"
#include "vc_time.h"

#define HEAP_NONE SIZE_MAX
/* A blocked getter re-reads the clock at least this often, whatever the next ready time. */
#define MAX_WAIT_NS (3600 * VC_NSEC_PER_SEC)

/*
 * One record per key the queue knows about. It lives while the key is dirty, processing,
 * waiting in the delay heap, has failures or has a pending payload, and is freed as soon as
 * none of these holds (item_release_if_idle).
 */
struct wq_item {
	char *key;
	uint64_t hash;
	struct wq_item *hnext; /* hash chain */
	struct wq_item *qnext; /* FIFO link while queued (dirty and not processing) */
	int64_t ready_at;      /* while waiting in the heap */
	uint64_t seq;	       /* heap tie-break: earlier delayed adds first */
	size_t heap_idx;       /* HEAP_NONE when not waiting */
	unsigned failures;
	bool dirty;
	bool processing;
	void *payload;
};

struct vc_workqueue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct vc_workqueue_opts opts;
	struct vc_bucket bucket;

	struct wq_item **table; /* hash set of every item */
	size_t nbuckets;	/* a power of two */
	size_t nitems;

	struct wq_item *qhead, *qtail; /* the FIFO */
	size_t qlen;
	size_t nprocessing;

	struct wq_item **heap; /* delayed adds, min-heap on (ready_at, seq) */
	size_t heap_len, heap_alloc;
	uint64_t seq;

	bool shutting_down;
};

void vc_workqueue_opts_init(struct vc_workqueue_opts *opts)
{
	opts->base_delay_ns = 5 * VC_NSEC_PER_MSEC;
	opts->max_delay_ns = 1000 * VC_NSEC_PER_SEC;
	opts->qps = 10;
	opts->burst = 100;
	opts->payload_free = NULL;
}

static struct wq_item *item_find(const struct vc_workqueue *q, const char *key, uint64_t h)
{
	struct wq_item *it;

	for (it = q->table[h & (q->nbuckets - 1)]; it; it = it->hnext)
		if (it->hash == h && strcmp(it->key, key) == 0)
			return it;
	return NULL;
}

/* Double the table when it gets full; a failed resize only costs speed. */
static void table_maybe_grow(struct vc_workqueue *q)
{
	struct wq_item **t, *it, *next;
	size_t n, i;

	if (q->nitems < q->nbuckets)
		return;
	n = q->nbuckets * 2;
	t = vc_calloc(n, sizeof(struct wq_item *));
	if (!t)
		return;
	for (i = 0; i < q->nbuckets; i++) {
		for (it = q->table[i]; it; it = next) {
			next = it->hnext;
			it->hnext = t[it->hash & (n - 1)];
			t[it->hash & (n - 1)] = it;
		}
	}
	vc_free(q->table);
	q->table = t;
	q->nbuckets = n;
}

/* Find the key's item or create an idle one; NULL when out of memory. */
static struct wq_item *item_get(struct vc_workqueue *q, const char *key)
{
	uint64_t h = vc_fnv1a64(key);
	struct wq_item *it = item_find(q, key, h);
	size_t b;

	if (it)
		return it;
	it = vc_calloc(1, sizeof(*it));
	if (!it)
		return NULL;
	it->key = vc_strdup(key);
	if (!it->key) {
		vc_free(it);
		return NULL;
	}
	it->hash = h;
	it->heap_idx = HEAP_NONE;
	table_maybe_grow(q);
	b = h & (q->nbuckets - 1);
	it->hnext = q->table[b];
	q->table[b] = it;
	q->nitems++;
	return it;
}

static void item_destroy(struct vc_workqueue *q, struct wq_item *it)
{
	if (it->payload && q->opts.payload_free)
		q->opts.payload_free(it->payload);
	vc_free(it->key);
	vc_free(it);
}

/* Unlink and free an item nobody needs any more. */
static void item_release_if_idle(struct vc_workqueue *q, struct wq_item *it)
{
	struct wq_item **pp;

	if (it->dirty || it->processing || it->heap_idx != HEAP_NONE || it->failures || it->payload)
		return;
	for (pp = &q->table[it->hash & (q->nbuckets - 1)]; *pp; pp = &(*pp)->hnext) {
		if (*pp == it) {
			*pp = it->hnext;
			break;
		}
	}
	q->nitems--;
	item_destroy(q, it);
}

static void fifo_push(struct vc_workqueue *q, struct wq_item *it)
{
	it->qnext = NULL;
	if (q->qtail)
		q->qtail->qnext = it;
	else
		q->qhead = it;
	q->qtail = it;
	q->qlen++;
}

static struct wq_item *fifo_pop(struct vc_workqueue *q)
{
	struct wq_item *it = q->qhead;

	if (!it)
		return NULL;
	q->qhead = it->qnext;
	if (!q->qhead)
		q->qtail = NULL;
	it->qnext = NULL;
	q->qlen--;
	return it;
}

static bool heap_less(const struct wq_item *a, const struct wq_item *b)
{
	if (a->ready_at != b->ready_at)
		return a->ready_at < b->ready_at;
	return a->seq < b->seq;
}

static void heap_set(struct vc_workqueue *q, size_t i, struct wq_item *it)
{
	q->heap[i] = it;
	it->heap_idx = i;
}

static void heap_up(struct vc_workqueue *q, size_t i)
{
	struct wq_item *it = q->heap[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!heap_less(it, q->heap[parent]))
			break;
		heap_set(q, i, q->heap[parent]);
		i = parent;
	}
	heap_set(q, i, it);
}

static void heap_down(struct vc_workqueue *q, size_t i)
{
	struct wq_item *it = q->heap[i];

	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct wq_item *min = it;

		if (l < q->heap_len && heap_less(q->heap[l], min)) {
			m = l;
			min = q->heap[l];
		}
		if (l + 1 < q->heap_len && heap_less(q->heap[l + 1], min))
			m = l + 1;
		if (m == i)
			break;
		heap_set(q, i, q->heap[m]);
		i = m;
	}
	heap_set(q, i, it);
}

/* Make room for one more heap entry, so the insertion that follows cannot fail. */
static int heap_reserve(struct vc_workqueue *q)
{
	struct wq_item **h;
	size_t n;

	if (q->heap_len < q->heap_alloc)
		return 0;
	n = q->heap_alloc ? q->heap_alloc * 2 : 16;
	h = vc_realloc(q->heap, n * sizeof(struct wq_item *));
	if (!h)
		return VC_ENOMEM;
	q->heap = h;
	q->heap_alloc = n;
	return 0;
}

static struct wq_item *heap_pop(struct vc_workqueue *q)
{
	struct wq_item *top = q->heap[0];

	q->heap_len--;
	if (q->heap_len > 0) {
		heap_set(q, 0, q->heap[q->heap_len]);
		heap_down(q, 0);
	}
	top->heap_idx = HEAP_NONE;
	return top;
}

/* client-go's Add on an existing item; returns true when the key entered the FIFO. */
static bool item_mark_dirty(struct vc_workqueue *q, struct wq_item *it)
{
	if (it->dirty)
		return false;
	it->dirty = true;
	if (it->processing)
		return false;
	fifo_push(q, it);
	return true;
}

/*
 * Move every delayed key whose time has come into the queue. Returns how many entered the FIFO.
 * Nothing becomes ready after shutdown, as client-go's waiting loop stops then.
 */
static size_t promote_ready(struct vc_workqueue *q, int64_t now)
{
	size_t n = 0;

	if (q->shutting_down)
		return 0;
	while (q->heap_len > 0 && q->heap[0]->ready_at <= now) {
		struct wq_item *it = heap_pop(q);

		if (item_mark_dirty(q, it))
			n++;
		else
			item_release_if_idle(q, it);
	}
	return n;
}

struct vc_workqueue *vc_workqueue_new(const struct vc_workqueue_opts *opts)
{
	struct vc_workqueue *q;
	pthread_condattr_t attr;

	q = vc_calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	if (opts)
		q->opts = *opts;
	else
		vc_workqueue_opts_init(&q->opts);
	if (q->opts.base_delay_ns < 0)
		q->opts.base_delay_ns = 0;
	if (q->opts.max_delay_ns < q->opts.base_delay_ns)
		q->opts.max_delay_ns = q->opts.base_delay_ns;
	q->nbuckets = 64;
	q->table = vc_calloc(q->nbuckets, sizeof(struct wq_item *));
	if (!q->table)
		goto out_free_queue;
	if (pthread_mutex_init(&q->lock, NULL))
		goto out_free_table;
	/* The timed wait for the next delayed key must not jump with the wall clock. */
	if (pthread_condattr_init(&attr))
		goto out_destroy_lock;
	if (pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&q->cond, &attr)) {
		pthread_condattr_destroy(&attr);
		goto out_destroy_lock;
	}
	pthread_condattr_destroy(&attr);
	vc_bucket_init(&q->bucket, q->opts.qps, q->opts.burst);
	return q;

out_destroy_lock:
	pthread_mutex_destroy(&q->lock);
out_free_table:
	vc_free(q->table);
out_free_queue:
	vc_free(q);
	return NULL;
}

void vc_workqueue_free(struct vc_workqueue *q)
{
	struct wq_item *it, *next;
	size_t i;

	if (!q)
		return;
	for (i = 0; i < q->nbuckets; i++) {
		for (it = q->table[i]; it; it = next) {
			next = it->hnext;
			item_destroy(q, it);
		}
	}
	vc_free(q->table);
	vc_free(q->heap);
	vc_bucket_release(&q->bucket);
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
	vc_free(q);
}

static void payload_drop(struct vc_workqueue *q, void *payload)
{
	if (payload && q->opts.payload_free)
		q->opts.payload_free(payload);
}

/* Fold payload into the item's pending payload; the payload is consumed either way. */
static int item_merge(struct vc_workqueue *q, struct wq_item *it, vc_workqueue_merge_fn *merge,
		      void *payload)
{
	if (!payload)
		return 0;
	if (merge)
		return merge(&it->payload, payload);
	payload_drop(q, it->payload);
	it->payload = payload;
	return 0;
}

/* The exponential part of the rate-limited delay for a key with `failures` failures. */
static int64_t backoff_delay(const struct vc_workqueue_opts *o, unsigned failures)
{
	int64_t base = o->base_delay_ns;

	if (base == 0)
		return 0;
	if (failures >= 62 || base > (o->max_delay_ns >> failures))
		return o->max_delay_ns;
	return base << failures;
}

enum add_kind {
	ADD_NOW,
	ADD_AFTER,
	ADD_RATE_LIMITED
};

/*
 * Every add goes through here. All fallible steps (item, heap slot, merge) come before any
 * visible change, so a failure leaves the queue as it was (an item created for this call is
 * released again).
 */
static int queue_add(struct vc_workqueue *q, const char *key, enum add_kind kind, int64_t delay,
		     int64_t *delay_out, vc_workqueue_merge_fn *merge, void *payload)
{
	struct wq_item *it;
	int64_t now;
	int rc;

	if (!key) {
		payload_drop(q, payload);
		return VC_EINVAL;
	}
	pthread_mutex_lock(&q->lock);
	if (q->shutting_down) {
		rc = VC_ESHUTDOWN;
		goto out_drop;
	}
	it = item_get(q, key);
	if (!it) {
		rc = VC_ENOMEM;
		goto out_drop;
	}
	if (kind != ADD_NOW && it->heap_idx == HEAP_NONE) {
		rc = heap_reserve(q);
		if (rc)
			goto out_release;
	}
	rc = item_merge(q, it, merge, payload);
	payload = NULL;
	if (rc)
		goto out_release;

	if (kind == ADD_RATE_LIMITED) {
		int64_t wait = vc_bucket_reserve(&q->bucket);

		delay = backoff_delay(&q->opts, it->failures);
		if (wait > delay)
			delay = wait;
		it->failures++;
	}
	if (delay_out)
		*delay_out = kind == ADD_NOW ? 0 : delay;
	if (kind == ADD_NOW || delay <= 0) {
		if (item_mark_dirty(q, it))
			pthread_cond_signal(&q->cond);
		pthread_mutex_unlock(&q->lock);
		return 0;
	}

	now = vc_time_mono_ns();
	if (it->heap_idx == HEAP_NONE) {
		it->ready_at = now + delay;
		it->seq = q->seq++;
		it->heap_idx = q->heap_len++;
		q->heap[it->heap_idx] = it;
		heap_up(q, it->heap_idx);
	} else if (now + delay < it->ready_at) {
		it->ready_at = now + delay;
		heap_up(q, it->heap_idx);
	}
	/* A blocked getter may need an earlier deadline now. */
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
	return 0;

out_release:
	item_release_if_idle(q, it);
out_drop:
	pthread_mutex_unlock(&q->lock);
	payload_drop(q, payload);
	return rc;
}

int vc_workqueue_add(struct vc_workqueue *q, const char *key)
{
	return queue_add(q, key, ADD_NOW, 0, NULL, NULL, NULL);
}

int vc_workqueue_add_with(struct vc_workqueue *q, const char *key, vc_workqueue_merge_fn *merge,
			  void *payload)
{
	return queue_add(q, key, ADD_NOW, 0, NULL, merge, payload);
}

int vc_workqueue_add_after(struct vc_workqueue *q, const char *key, int64_t delay_ns)
{
	return queue_add(q, key, ADD_AFTER, delay_ns, NULL, NULL, NULL);
}

int vc_workqueue_add_after_with(struct vc_workqueue *q, const char *key, int64_t delay_ns,
				vc_workqueue_merge_fn *merge, void *payload)
{
	return queue_add(q, key, ADD_AFTER, delay_ns, NULL, merge, payload);
}

int vc_workqueue_add_rate_limited(struct vc_workqueue *q, const char *key, int64_t *delay_ns)
{
	return queue_add(q, key, ADD_RATE_LIMITED, 0, delay_ns, NULL, NULL);
}

int vc_workqueue_add_rate_limited_with(struct vc_workqueue *q, const char *key, int64_t *delay_ns,
				       vc_workqueue_merge_fn *merge, void *payload)
{
	return queue_add(q, key, ADD_RATE_LIMITED, 0, delay_ns, merge, payload);
}

/* Hand a key taken from the FIFO to the caller. Called with the lock held. */
static void hand_out(struct vc_workqueue *q, struct wq_item *it, const char **key, void **payload)
{
	it->processing = true;
	it->dirty = false;
	q->nprocessing++;
	*key = it->key;
	if (payload)
		*payload = it->payload;
	else
		payload_drop(q, it->payload);
	it->payload = NULL;
	/* Several delayed keys may have become ready at once: let another getter look. */
	if (q->qhead)
		pthread_cond_signal(&q->cond);
}

/* Sleep on the condition until woken or until the next delayed key is due. */
static void wait_for_work(struct vc_workqueue *q, int64_t now)
{
	struct timespec ts;
	int64_t wait;

	if (q->heap_len == 0 || q->shutting_down) {
		pthread_cond_wait(&q->cond, &q->lock);
		return;
	}
	/*
	 * The delay is measured on vc_time_mono_ns (maybe a test's clock) but slept on the real
	 * monotonic clock: with a real clock the two agree, and with a fake one the getter wakes
	 * on vc_workqueue_tick or, at worst, re-reads the clock after the same delay.
	 */
	wait = q->heap[0]->ready_at - now;
	if (wait > MAX_WAIT_NS)
		wait = MAX_WAIT_NS;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	wait += (int64_t)ts.tv_nsec;
	ts.tv_sec += (time_t)(wait / VC_NSEC_PER_SEC);
	ts.tv_nsec = (long)(wait % VC_NSEC_PER_SEC);
	pthread_cond_timedwait(&q->cond, &q->lock, &ts);
}

static int queue_get(struct vc_workqueue *q, const char **key, void **payload, bool block)
{
	struct wq_item *it;
	int rc = 0;

	if (!key)
		return VC_EINVAL;
	pthread_mutex_lock(&q->lock);
	for (;;) {
		int64_t now = vc_time_mono_ns();

		promote_ready(q, now);
		it = fifo_pop(q);
		if (it) {
			hand_out(q, it, key, payload);
			break;
		}
		if (q->shutting_down) {
			rc = VC_ESHUTDOWN;
			break;
		}
		if (!block) {
			rc = -EAGAIN;
			break;
		}
		wait_for_work(q, now);
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

int vc_workqueue_get(struct vc_workqueue *q, const char **key, void **payload)
{
	return queue_get(q, key, payload, true);
}

int vc_workqueue_try_get(struct vc_workqueue *q, const char **key, void **payload)
{
	return queue_get(q, key, payload, false);
}

void vc_workqueue_done(struct vc_workqueue *q, const char *key)
{
	struct wq_item *it;

	if (!key)
		return;
	pthread_mutex_lock(&q->lock);
	it = item_find(q, key, vc_fnv1a64(key));
	if (it && it->processing) {
		it->processing = false;
		q->nprocessing--;
		if (it->dirty) {
			fifo_push(q, it);
			pthread_cond_signal(&q->cond);
		} else {
			item_release_if_idle(q, it);
		}
		/* Wake vc_workqueue_shutdown_drain. */
		if (q->nprocessing == 0 && q->shutting_down)
			pthread_cond_broadcast(&q->cond);
	}
	pthread_mutex_unlock(&q->lock);
}

void vc_workqueue_forget(struct vc_workqueue *q, const char *key)
{
	struct wq_item *it;

	if (!key)
		return;
	pthread_mutex_lock(&q->lock);
	it = item_find(q, key, vc_fnv1a64(key));
	if (it) {
		it->failures = 0;
		item_release_if_idle(q, it);
	}
	pthread_mutex_unlock(&q->lock);
}

unsigned vc_workqueue_num_requeues(struct vc_workqueue *q, const char *key)
{
	struct wq_item *it;
	unsigned n = 0;

	if (!key)
		return 0;
	pthread_mutex_lock(&q->lock);
	it = item_find(q, key, vc_fnv1a64(key));
	if (it)
		n = it->failures;
	pthread_mutex_unlock(&q->lock);
	return n;
}

size_t vc_workqueue_len(struct vc_workqueue *q)
{
	size_t n;

	pthread_mutex_lock(&q->lock);
	if (promote_ready(q, vc_time_mono_ns()))
		pthread_cond_broadcast(&q->cond);
	n = q->qlen;
	pthread_mutex_unlock(&q->lock);
	return n;
}

void vc_workqueue_tick(struct vc_workqueue *q)
{
	pthread_mutex_lock(&q->lock);
	promote_ready(q, vc_time_mono_ns());
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void vc_workqueue_shutdown(struct vc_workqueue *q)
{
	pthread_mutex_lock(&q->lock);
	q->shutting_down = true;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void vc_workqueue_shutdown_drain(struct vc_workqueue *q)
{
	pthread_mutex_lock(&q->lock);
	q->shutting_down = true;
	pthread_cond_broadcast(&q->cond);
	while (q->nprocessing > 0)
		pthread_cond_wait(&q->cond, &q->lock);
	pthread_mutex_unlock(&q->lock);
}

bool vc_workqueue_shutting_down(struct vc_workqueue *q)
{
	bool s;

	pthread_mutex_lock(&q->lock);
	s = q->shutting_down;
	pthread_mutex_unlock(&q->lock);
	return s;
}
