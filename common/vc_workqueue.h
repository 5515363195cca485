/*
 * vc_workqueue.h - client-go's rate-limited work queue (queue.go, delaying_queue.go,
 * default_rate_limiters.go) for keys such as "ns/name".
 *
 * A key moves through three sets, exactly as in client-go:
 *   - dirty: the key needs processing (it was added and no worker has taken it since);
 *   - queued: the FIFO of dirty keys no worker holds, in the order they became ready;
 *   - processing: a worker took the key with vc_workqueue_get and has not called done yet.
 * The guarantees that follow, and that the controllers rely on:
 *   1. A key is never held by two workers at once.
 *   2. Adding a key that is already queued does nothing (adds collapse).
 *   3. Adding a key that is being processed marks it dirty; when the worker calls done, the key
 *      goes back into the queue once, however many adds happened meanwhile.
 * Delayed adds wait in a min-heap by ready time; a key waiting there is added (as above) when
 * its time comes, and a second delayed add of a waiting key keeps the earlier ready time.
 * Rate-limited adds compute the delay as client-go's DefaultControllerRateLimiter does: the
 * larger of a per-key exponential backoff (base * 2^failures, capped) and a reservation on a
 * global token bucket; forget() resets a key's failure count.
 *
 * Keys may carry a payload (an opaque pointer) that the queue coalesces under its lock with a
 * caller-provided merge function and hands to the worker that takes the key; the job controller
 * uses it for the pending events that Volcano's lifecycle policies need.
 *
 * Time comes from vc_time_mono_ns(). A blocked vc_workqueue_get also waits on the real monotonic
 * clock for the next delayed key; when a test replaces the clock it calls vc_workqueue_tick()
 * after moving it, so blocked getters look at the (new) time at once and nothing sleeps.
 *
 * All functions are thread-safe, except vc_workqueue_new and vc_workqueue_free.
 */
#ifndef VC_WORKQUEUE_H
#define VC_WORKQUEUE_H

#include "vc_prelude.h"

#include "vc_err.h"

struct vc_workqueue;

/* Frees a payload (see vc_workqueue_add_with). */
typedef void vc_workqueue_free_fn(void *payload);

/*
 * Folds `incoming` into the key's pending payload. *pending is NULL when the key has none. The
 * function always takes ownership of `incoming` (it keeps it, merges it into *pending and frees
 * it, or drops it), whatever it returns. On success it returns 0 and leaves in *pending the new
 * pending payload. On failure it returns a negative code and leaves *pending as it was (still a
 * valid payload, or NULL). It runs under the queue's lock: it must be quick, must not call back
 * into the queue, and bounds the payload itself (for example by capping a list of events).
 */
typedef int vc_workqueue_merge_fn(void **pending, void *incoming);

struct vc_workqueue_opts {
	int64_t base_delay_ns; /* first rate-limited delay; default 5 ms */
	int64_t max_delay_ns;  /* cap of the exponential delay; default 1000 s */
	double qps;	       /* global bucket refill rate; default 10; <= 0 disables the bucket */
	int burst;	       /* global bucket size; default 100 */
	/* Frees payloads the queue drops; NULL when the queue is used without payloads. */
	vc_workqueue_free_fn *payload_free;
};

/* Fill opts with the defaults above (client-go's DefaultControllerRateLimiter) and no payloads. */
void vc_workqueue_opts_init(struct vc_workqueue_opts *opts);

/*
 * Create an empty queue. opts may be NULL for the defaults; it is copied. Negative delays are
 * taken as 0, and a max below the base as the base. Returns NULL when out of memory or when a
 * thread primitive cannot be created.
 */
struct vc_workqueue *vc_workqueue_new(const struct vc_workqueue_opts *opts) VC_WARN_UNUSED;

/*
 * Free the queue, its keys and every pending payload (with opts.payload_free). No thread may be
 * using the queue or be blocked in vc_workqueue_get: shut down and join the workers first. Keys
 * handed out by vc_workqueue_get become invalid. NULL is allowed.
 */
void vc_workqueue_free(struct vc_workqueue *q);

/*
 * Mark key as needing processing (client-go's Add). The queue copies key. Returns 0, VC_EINVAL
 * for a NULL key, VC_ESHUTDOWN after vc_workqueue_shutdown (the add is ignored, as client-go
 * ignores it), or VC_ENOMEM, in which case the queue is unchanged.
 */
int vc_workqueue_add(struct vc_workqueue *q, const char *key) VC_WARN_UNUSED;

/*
 * As vc_workqueue_add, and fold `payload` into the key's pending payload with merge (NULL merge
 * replaces the pending payload, freeing the old one with opts.payload_free). The payload is
 * stolen: whatever the result, the caller no longer owns it (on a failure before merge runs the
 * queue frees it with opts.payload_free). If merge fails its code is returned and the key is
 * not added. A NULL payload makes this a plain add. The payload stays with the key until a
 * worker takes the key with vc_workqueue_get; payloads added while a worker processes the key
 * accumulate for the next round.
 */
int vc_workqueue_add_with(struct vc_workqueue *q, const char *key, vc_workqueue_merge_fn *merge,
			  void *payload) VC_WARN_UNUSED;

/*
 * Add key once delay_ns nanoseconds have passed (client-go's AddAfter); delay_ns <= 0 adds at
 * once. If the key already waits for a later time, it now waits for the earlier one; if it
 * waits for an earlier time, this call changes nothing. A key that waits may be added directly
 * too: both adds then happen. Errors as vc_workqueue_add.
 */
int vc_workqueue_add_after(struct vc_workqueue *q, const char *key,
			   int64_t delay_ns) VC_WARN_UNUSED;

/* vc_workqueue_add_after with a payload, merged at once as in vc_workqueue_add_with. */
int vc_workqueue_add_after_with(struct vc_workqueue *q, const char *key, int64_t delay_ns,
				vc_workqueue_merge_fn *merge, void *payload) VC_WARN_UNUSED;

/*
 * Add key after its rate-limited delay (client-go's AddRateLimited): the larger of
 * base * 2^n capped at max (n = the key's failures so far, then incremented) and a reservation
 * on the global bucket. Errors as vc_workqueue_add; on an error the failure count and the
 * bucket are unchanged. *delay_ns (may be NULL) receives the delay chosen.
 */
int vc_workqueue_add_rate_limited(struct vc_workqueue *q, const char *key,
				  int64_t *delay_ns) VC_WARN_UNUSED;

/* vc_workqueue_add_rate_limited with a payload, merged at once as in vc_workqueue_add_with. */
int vc_workqueue_add_rate_limited_with(struct vc_workqueue *q, const char *key, int64_t *delay_ns,
				       vc_workqueue_merge_fn *merge, void *payload) VC_WARN_UNUSED;

/*
 * Take the next key, blocking until one is ready (client-go's Get). On success *key is the
 * queue's copy of the key, valid until the caller passes it to vc_workqueue_done (do not free
 * it), and the key counts as processing. If payload is not NULL, *payload receives the key's
 * pending payload (NULL if none) and the caller owns it; if payload is NULL, a pending payload
 * is freed with opts.payload_free.
 * After vc_workqueue_shutdown, keys already queued are still handed out (client-go drains the
 * same way); once none is left the call returns VC_ESHUTDOWN. Delayed keys do not become ready
 * after shutdown.
 */
int vc_workqueue_get(struct vc_workqueue *q, const char **key, void **payload) VC_WARN_UNUSED;

/*
 * As vc_workqueue_get without blocking: -EAGAIN when no key is ready now, VC_ESHUTDOWN when
 * shut down and nothing is queued.
 */
int vc_workqueue_try_get(struct vc_workqueue *q, const char **key, void **payload) VC_WARN_UNUSED;

/*
 * The worker has finished key (client-go's Done). If the key was added while it was being
 * processed it goes back into the queue now. key may be the pointer vc_workqueue_get returned;
 * it must not be used afterwards. A key that is not being processed is ignored.
 */
void vc_workqueue_done(struct vc_workqueue *q, const char *key);

/* Reset the key's failure count, so its next rate-limited delay is the base (client-go Forget). */
void vc_workqueue_forget(struct vc_workqueue *q, const char *key);

/* How many rate-limited adds the key has had since it was last forgotten. */
unsigned vc_workqueue_num_requeues(struct vc_workqueue *q, const char *key);

/*
 * The number of keys queued and ready to be taken (not those being processed or still delayed).
 * Delayed keys whose time has come are made ready first.
 */
size_t vc_workqueue_len(struct vc_workqueue *q);

/*
 * Make every delayed key whose time has come ready, and wake every blocked getter so that it
 * reads the clock again. Only needed with an injected clock (after moving it); harmless
 * otherwise.
 */
void vc_workqueue_tick(struct vc_workqueue *q);

/*
 * Stop accepting adds and wake every blocked getter (client-go's ShutDown). Getters drain the
 * keys already queued, then get VC_ESHUTDOWN. Idempotent.
 */
void vc_workqueue_shutdown(struct vc_workqueue *q);

/*
 * vc_workqueue_shutdown, then block until no key is being processed (client-go's
 * ShutDownWithDrain): every key handed out has been passed to vc_workqueue_done.
 */
void vc_workqueue_shutdown_drain(struct vc_workqueue *q);

/* True once vc_workqueue_shutdown has been called. */
bool vc_workqueue_shutting_down(struct vc_workqueue *q);

#endif /* VC_WORKQUEUE_H */
