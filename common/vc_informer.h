/*
 * vc_informer.h - list+watch of one resource into a vc_cache, with event handlers (client-go's
 * Reflector and SharedIndexInformer in one object).
 *
 * An informer keeps a cache of every object of one resource (in one namespace or all, optionally
 * narrowed by label and field selectors) up to date on a thread of its own:
 *
 *   1. LIST, paged (opts.page_size items per request), and replace the cache with the result;
 *      every handler sees on_add for each object; vc_informer_has_synced() becomes true.
 *   2. WATCH from the list's resourceVersion with bookmarks, applying each event to the cache
 *      and then calling the handlers: on_add, on_update(old, new) or on_delete. Every event
 *      (bookmarks included) moves the last seen resourceVersion forward.
 *   3. When the watch ends normally (the server's timeout), watch again from the last
 *      resourceVersion. When it ends with 410 Gone, an ERROR event with code 410, or "too old
 *      resource version", relist: the new list replaces the cache, and handlers see on_add for
 *      new objects, on_update for objects whose resourceVersion changed, and on_delete with
 *      final_state_unknown set (client-go's DeletedFinalStateUnknown tombstone) for objects that
 *      vanished while the informer was not watching; unchanged objects are not reported again.
 *      Any other ERROR event also relists. A failed list or a watch that cannot connect is
 *      retried after a capped exponential backoff with jitter (800 ms doubling to 30 s by
 *      default); a watch that delivered events or ended normally resets the backoff.
 *   4. With a resync period, every period each cached object is delivered again as
 *      on_update(obj, obj) (client-go's resync), so level-triggered controllers re-examine
 *      everything now and then.
 *
 * Handlers run on the informer's threads, one call at a time and in event order. When a handler
 * runs, the cache already holds the event's outcome (after a relist, the whole new list). A
 * handler gets borrowed references valid for the call only (json_incref what it keeps), must not
 * change them, must return quickly (hand work to a work queue; never block, never call the API
 * server) and must not call vc_informer_add_handler, vc_informer_resync_now or
 * vc_informer_stop/free on its own informer (they wait for handlers to finish). It may read the
 * cache.
 *
 * Memory: each list's parsed response is freed once the cache holds its objects (packed: page
 * by page, see below), and the heap is then trimmed (glibc's malloc_trim) so a relist's peak does
 * not stay the process's size. Objects cost what jansson makes of them, about ten times their JSON
 * size; a transform (opts.transform, e.g. vc_informer_strip_managed_fields) can cache less of each,
 * and opts.cache_flags = VC_CACHE_PACKED keeps them serialized, at about their compact JSON size
 * (vc_cache.h: a parse per read, a serialization per write).
 *
 * Packed caches: handlers still get jansson objects. A (re)list packs each page's objects as
 * soon as the page is parsed and transformed, and frees the page (vc_cache.h's staged relists),
 * so it holds about one page of parsed objects at a time instead of the whole list; once the
 * list is complete it replaces the cache in one write, and each change is parsed only when it
 * is delivered, one at a time. So a relist's on_add and on_update's new_obj are parses of what
 * the cache now holds (equal to the listed objects after the transform), and its on_update
 * old_obj and tombstones parses of what the cache held. A watched ADDED or MODIFIED event hands
 * the event's object as new_obj and a parse of the cached one as old_obj; a resync parses one
 * object at a time and hands it as both old_obj and new_obj (the same pointer, as unpacked); a
 * watched DELETED event hands the event's object and never parses the cached one. A parse that
 * runs out of memory during a resync or a handler's replay skips that object and makes the call
 * return VC_ENOMEM. During a relist, an add or update that cannot be parsed for its handlers is
 * taken out of the cache again and the relist counts as failed (the informer backs off and
 * relists, and the next list reports it as an add); a tombstone that cannot be parsed is lost
 * (logged).
 *
 * Time and randomness are injectable (opts.sleep, opts.rand) so tests never wait out a backoff.
 */
#ifndef VC_INFORMER_H
#define VC_INFORMER_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_cache.h"
#include "vc_err.h"
#include "vc_kube.h"

/* The longest resourceVersion an informer tracks (etcd's are at most 20 digits). */
#define VC_INFORMER_RV_MAX 64

struct vc_informer_handler {
	/* obj is new to the cache. */
	void (*on_add)(void *ctx, json_t *obj);
	/* The object changed from old_obj to new_obj (the same pointer on a resync). */
	void (*on_update)(void *ctx, json_t *old_obj, json_t *new_obj);
	/*
	 * obj left the cache. final_state_unknown is false for a watched DELETED event (obj is
	 * the server's final state) and true when a relist found it gone (obj is the last state
	 * the cache saw, client-go's DeletedFinalStateUnknown).
	 */
	void (*on_delete)(void *ctx, json_t *obj, bool final_state_unknown);
	void *ctx;
};

/*
 * opts.transform (client-go's TransformFunc): the object to cache and hand to the handlers in
 * place of obj, as a new reference in *out (json_incref(obj) to keep it as it is). It runs on the
 * informer's thread for every listed object and every ADDED, MODIFIED and DELETED event.
 *
 * owned is true for a watched event's object: it was parsed for this event and nothing else holds
 * any part of it, so the transform may change it in place and hand it back (json_incref(obj)),
 * which saves a copy of every object of every event. owned is false for a listed object: it shares
 * its members with the List's item, so the transform must not change it (copy what you change:
 * json_copy makes a shallow copy).
 *
 * Return 0, or a negative code: the list fails (and is retried after a backoff), or the watch ends
 * and the informer relists after a backoff.
 */
typedef int vc_informer_transform_fn(void *ctx, json_t *obj, bool owned, json_t **out);

/*
 * A transform that caches a compact copy of each object: obj without metadata.managedFields,
 * which controllers never read and which holds about half of a typical pod's memory in the cache
 * (bench/README.md). A listed object is copied deeply, so that nothing of the parsed List stays
 * referenced and its memory is released as a whole after a relist (with glibc the informer then
 * trims the heap); an owned one (an event's) loses the field in place. obj must be a JSON object
 * (VC_EINVAL otherwise); VC_ENOMEM. ctx is unused.
 */
int vc_informer_strip_managed_fields(void *ctx, json_t *obj, bool owned, json_t **out);

/* opts.rand: a uniformly random 64-bit number (for the backoff's jitter). */
typedef uint64_t vc_informer_rand_fn(void *ctx);

struct vc_informer_opts {
	const struct vc_gvr *resource; /* required; borrowed, must outlive the informer */
	const char *namespace;	       /* NULL or "" = all namespaces (and cluster-scoped) */
	const char *label_selector;    /* NULL = everything */
	const char *field_selector;    /* NULL = everything */
	int64_t page_size;	       /* list page size; 0 = 500, < 0 = no paging */
	int watch_timeout_seconds;     /* 0 = random in [300, 600), as client-go */
	int64_t resync_period_ns;      /* 0 = no resync */
	int64_t backoff_initial_ns;    /* 0 = 800 ms */
	int64_t backoff_max_ns;	       /* 0 = 30 s */
	/* The cache's indexes and flags (struct vc_cache_opts); borrowed, must outlive it. */
	const struct vc_cache_index *indexes;
	size_t nindexes;
	unsigned cache_flags;
	/*
	 * Injectables. sleep (vc_kube.h's vc_sleep_fn) waits out a backoff; NULL = a real wait
	 * that vc_informer_stop cuts short. rand gives the jitter; NULL = xorshift seeded from
	 * the clock.
	 */
	vc_sleep_fn *sleep;
	vc_informer_rand_fn *rand;
	void *env_ctx; /* passed to sleep and rand */
	/* Name used in log lines (e.g. "pods"); NULL = the resource's name. */
	const char *name;
	/* NULL = cache objects as they come. */
	vc_informer_transform_fn *transform;
	void *transform_ctx;
	/*
	 * The first list asks for resourceVersion "0", as client-go's reflector does: the API
	 * server answers from its watch cache (no read of etcd; unpaged on servers that do not
	 * page the watch cache), possibly a moment behind, and the watch from that version
	 * catches up. For a resource a first reader waits on (the scheduler's nodes, the
	 * controllers' Jobs); the answer is one page, however many objects.
	 * Relists read etcd as before.
	 */
	bool first_list_from_cache;
};

/* Counters, for tests and metrics. */
struct vc_informer_stats {
	uint64_t lists;	       /* successful lists (the first one included) */
	uint64_t list_errors;  /* failed lists */
	uint64_t watches;      /* watch calls made */
	uint64_t watch_errors; /* watches that ended with an error other than 410 */
	uint64_t expired;      /* watches that ended with 410 / too old resource version */
	uint64_t events;       /* ADDED, MODIFIED and DELETED events applied */
	uint64_t bookmarks;    /* BOOKMARK events */
	uint64_t skipped;      /* events ignored: malformed objects, repeated versions */
	uint64_t resyncs;      /* resync rounds delivered */
};

struct vc_informer;

/*
 * Make an informer for opts->resource through the client kube (borrowed; it must outlive the
 * informer). The strings in opts are copied. Nothing runs until vc_informer_start(). Returns 0
 * and *out; VC_EINVAL (with a message in err) for a NULL kube, out or resource, or bad cache
 * indexes; VC_ENOMEM.
 */
int vc_informer_new(struct vc_kube *kube, const struct vc_informer_opts *opts,
		    struct vc_informer **out, struct vc_error *err) VC_WARN_UNUSED;

/* Stop the informer if it runs, then free it and its cache. NULL is a no-op. */
void vc_informer_free(struct vc_informer *inf);

/*
 * Register handlers (the struct is copied). Before start they see everything from the first
 * list on. After start the new handler first gets on_add for every object in the cache, then
 * the events that follow, with nothing missed or repeated. Returns 0, VC_EINVAL, or VC_ENOMEM
 * (the handler is then not registered; with a packed cache it may have seen some of the adds).
 */
int vc_informer_add_handler(struct vc_informer *inf,
			    const struct vc_informer_handler *h) VC_WARN_UNUSED;

/*
 * The objects of the informer's FIRST list, as each page arrives, before the list is complete:
 * fn(ctx, obj) with obj what the cache will hold (after the transform), borrowed for the call,
 * on the informer's thread, serialized with the handlers. The cache and
 * vc_informer_has_synced() show nothing of that list until its last page is in; the handlers'
 * on_add then comes for every listed object as usual. So a reader can start work on the first
 * pages (the scheduler's first session) while the rest is listed. A first list that fails
 * part-way and is retried (or restarts without paging when its continue token expires) hands
 * its objects over again, and an object handed over that the completed list no longer holds
 * gets no on_delete: the reader reconciles with the cache once it has synced. Relists never
 * call fn. Register before vc_informer_start (VC_EINVAL after it; VC_ENOMEM); fn must follow
 * the handlers' rules (return quickly, never block).
 */
int vc_informer_add_list_handler(struct vc_informer *inf, void (*fn)(void *ctx, json_t *obj),
				 void *ctx) VC_WARN_UNUSED;

/*
 * Start the informer's thread (and the resync thread when a period is set). An informer runs
 * once: returns VC_EINVAL if it was started or stopped before; 0; or a negative errno from
 * pthread_create.
 */
int vc_informer_start(struct vc_informer *inf) VC_WARN_UNUSED;

/*
 * Stop the threads and wait for them: a watch in progress notices within 200 ms (the client's
 * stop polling), a backoff wait at once; a list in progress finishes first. Idempotent. The
 * cache stays readable.
 */
void vc_informer_stop(struct vc_informer *inf);

/* True once the first list has been put in the cache and delivered to the handlers. */
bool vc_informer_has_synced(struct vc_informer *inf);

/*
 * Wait until vc_informer_has_synced() or timeout_ns pass (< 0 = forever). Returns 0,
 * VC_ETIMEDOUT, or VC_ESHUTDOWN when the informer is stopped (or was never started) first.
 */
int vc_informer_wait_synced(struct vc_informer *inf, int64_t timeout_ns);

/* The informer's cache (borrowed: valid until vc_informer_free). Read it; never write it. */
struct vc_cache *vc_informer_cache(struct vc_informer *inf);

/*
 * Copy the last resourceVersion seen (list, event or bookmark) into buf; "" before the first
 * list. Returns 0, or VC_E2BIG when it does not fit (buf then holds "").
 */
int vc_informer_last_rv(struct vc_informer *inf, char *buf, size_t len);

/*
 * Deliver a resync now from the calling thread: on_update(obj, obj) for every cached object.
 * Returns 0 or VC_ENOMEM (with a packed cache, after delivering the objects it could parse).
 * Must not be called from a handler.
 */
int vc_informer_resync_now(struct vc_informer *inf) VC_WARN_UNUSED;

/* A copy of the counters. */
void vc_informer_get_stats(struct vc_informer *inf, struct vc_informer_stats *out);

#endif /* VC_INFORMER_H */
