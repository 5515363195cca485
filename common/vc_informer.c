/*
 * vc_informer.c - the reflector loop (list, watch, relist, backoff) and handler delivery.
 *
 * One thread runs run(): list into the cache, then watch until something ends the watch, and
 * decide from how it ended whether to watch again, relist, or back off first. Handler delivery
 * is serialized by `dispatch`, which is held while an event is applied to the cache and handed
 * to the handlers, so the resync thread and vc_informer_add_handler() interleave with events
 * only between them. `lock` guards the small shared state (synced, the last resourceVersion,
 * counters) and its condition variable wakes waiters on sync and stop.
 */
#include "vc_informer.h"

#include <pthread.h>
#include <time.h>

#include "vc_alloc.h"
#include "vc_log.h"
#include "vc_time.h"

/*
 * glibc's malloc_trim, when the C library has it (a weak reference: NULL elsewhere). After a
 * relist the List the client parsed is freed in one go; trimming hands those pages back to the
 * system instead of keeping the peak of a relist as the process's size for good.
 */
extern int malloc_trim(size_t pad) __attribute__((weak));

/*
 * Not under the sanitizers: their malloc is not glibc's, and glibc's malloc_trim then walks
 * arenas no thread is attached to, which breaks glibc's own accounting (an abort at thread exit,
 * "malloc assertion failure in __malloc_arena_thread_freeres", in about one ASan run in 13).
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VC_TRIM_HEAP 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define VC_TRIM_HEAP 0
#endif
#endif
#ifndef VC_TRIM_HEAP
#define VC_TRIM_HEAP 1
#endif

#define DEFAULT_PAGE_SIZE	500
#define DEFAULT_BACKOFF_INITIAL (800 * VC_NSEC_PER_MSEC)
#define DEFAULT_BACKOFF_MAX	(30 * VC_NSEC_PER_SEC)
#define KIND_MAX		128

/* Positive returns of the watch callback: why it ended the watch. */
enum {
	WATCH_EXPIRED = 1, /* ERROR event with 410 / too old resource version: relist */
	WATCH_FAILED = 2,  /* another ERROR event: back off, relist */
	WATCH_LOST = 3,	   /* the cache refused an event (out of memory): back off, relist */
};

/* A reader of the first list's pages (vc_informer_add_list_handler). */
struct list_handler {
	void (*fn)(void *ctx, json_t *obj);
	void *ctx;
};

struct vc_informer {
	struct vc_kube *kube;
	const struct vc_gvr *resource;
	char *ns, *label_selector, *field_selector, *name;
	int64_t page_size;
	bool first_list_from_cache;
	int watch_timeout_seconds;
	int64_t resync_period_ns, backoff_initial_ns, backoff_max_ns;
	vc_sleep_fn *sleep;
	vc_informer_rand_fn *rand;
	void *env_ctx;
	vc_informer_transform_fn *transform;
	void *transform_ctx;
	struct vc_cache *cache;
	bool packed; /* the cache is VC_CACHE_PACKED: every read of it is a parse */

	/* Informer thread only. */
	uint64_t rng;
	int64_t backoff_ns; /* the next backoff's base; 0 = initial */
	int expired_streak; /* expiries in a row without any event in between */
	char kind[KIND_MAX], api_version[KIND_MAX]; /* from the last list, for its items */

	pthread_mutex_t dispatch; /* handler delivery, the handler list */
	struct vc_informer_handler *handlers;
	size_t nhandlers;
	/* vc_informer_add_list_handler's readers of the first list's pages (fixed after start). */
	struct list_handler *listed;
	size_t nlisted;

	pthread_mutex_t lock; /* everything below */
	pthread_cond_t cond;  /* synced, stop */
	bool started, synced;
	char last_rv[VC_INFORMER_RV_MAX];
	struct vc_informer_stats stats;

	pthread_mutex_t stop_lock; /* one vc_informer_stop at a time */
	bool joined;
	volatile int stop; /* read by the client's watch; written atomically */
	pthread_t thread, resync_thread;
	bool has_resync_thread;
};

/* ---- small helpers --------------------------------------------------------------------------- */

static bool stopping(const struct vc_informer *inf)
{
	return __atomic_load_n(&inf->stop, __ATOMIC_ACQUIRE) != 0;
}

#define STAT_ADD(inf, field, n)                     \
	do {                                        \
		pthread_mutex_lock(&(inf)->lock);   \
		(inf)->stats.field += (n);          \
		pthread_mutex_unlock(&(inf)->lock); \
	} while (0)

static const char *obj_rv(const json_t *obj)
{
	return json_string_value(
		json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
}

static void set_rv(struct vc_informer *inf, const char *rv)
{
	size_t len;

	if (!rv || !*rv)
		return;
	len = strlen(rv);
	if (len >= sizeof(inf->last_rv)) {
		VC_WARN("informer ignores an overlong resourceVersion", "resource=%s length=%zu",
			inf->name, len);
		return;
	}
	pthread_mutex_lock(&inf->lock);
	memcpy(inf->last_rv, rv, len + 1);
	pthread_mutex_unlock(&inf->lock);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * VC_NSEC_PER_SEC + ts.tv_nsec;
}

static struct timespec to_timespec(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / VC_NSEC_PER_SEC), (long)(ns % VC_NSEC_PER_SEC) };

	return ts;
}

/* Wait on the informer's condition variable until deadline (monotonic ns) or stop. */
static void wait_until(struct vc_informer *inf, int64_t deadline)
{
	pthread_mutex_lock(&inf->lock);
	while (!stopping(inf) && mono_ns() < deadline) {
		struct timespec ts = to_timespec(deadline);

		pthread_cond_timedwait(&inf->cond, &inf->lock, &ts);
	}
	pthread_mutex_unlock(&inf->lock);
}

static void pause_ns(struct vc_informer *inf, int64_t ns)
{
	if (inf->sleep)
		inf->sleep(inf->env_ctx, ns);
	else
		wait_until(inf, mono_ns() + ns);
}

static uint64_t next_rand(struct vc_informer *inf)
{
	if (inf->rand)
		return inf->rand(inf->env_ctx);
	/* xorshift64* */
	inf->rng ^= inf->rng >> 12;
	inf->rng ^= inf->rng << 25;
	inf->rng ^= inf->rng >> 27;
	return inf->rng * UINT64_C(2685821657736338717);
}

/* A uniform double in [0, 1). */
static double rand01(struct vc_informer *inf)
{
	return (double)(next_rand(inf) >> 11) * 0x1.0p-53;
}

/*
 * Wait out the next backoff step: base * (1 + r) for r uniform in [0, 1) (client-go's jitter
 * of 1.0), capped at backoff_max; the base doubles each time up to backoff_max.
 */
static void backoff(struct vc_informer *inf)
{
	int64_t base = inf->backoff_ns ? inf->backoff_ns : inf->backoff_initial_ns;
	int64_t delay = base + (int64_t)(rand01(inf) * (double)base);

	if (delay > inf->backoff_max_ns)
		delay = inf->backoff_max_ns;
	inf->backoff_ns = base > inf->backoff_max_ns / 2 ? inf->backoff_max_ns : base * 2;
	VC_LOG(VC_LOG_V(1), "informer backing off", "resource=%s delay_ms=%" PRId64, inf->name,
	       delay / VC_NSEC_PER_MSEC);
	pause_ns(inf, delay);
}

static void backoff_reset(struct vc_informer *inf)
{
	inf->backoff_ns = 0;
}

/* ---- delivery -------------------------------------------------------------------------------- */

/* Call with dispatch held. */
static void deliver_add(struct vc_informer *inf, json_t *obj)
{
	size_t i;

	for (i = 0; i < inf->nhandlers; i++)
		if (inf->handlers[i].on_add)
			inf->handlers[i].on_add(inf->handlers[i].ctx, obj);
}

static void deliver_update(struct vc_informer *inf, json_t *old_obj, json_t *new_obj)
{
	size_t i;

	for (i = 0; i < inf->nhandlers; i++)
		if (inf->handlers[i].on_update)
			inf->handlers[i].on_update(inf->handlers[i].ctx, old_obj, new_obj);
}

static void deliver_delete(struct vc_informer *inf, json_t *obj, bool unknown)
{
	size_t i;

	for (i = 0; i < inf->nhandlers; i++)
		if (inf->handlers[i].on_delete)
			inf->handlers[i].on_delete(inf->handlers[i].ctx, obj, unknown);
}

/*
 * Call fn(inf, arg, obj) for every cached object, with dispatch held. An unpacked cache is listed
 * at once (references, no copies). A packed one is walked key by key, one parsed object at a
 * time, so a resync of 10,000 pods holds one parsed pod instead of all of them. Returns 0 or
 * VC_ENOMEM; a packed walk skips an object it cannot parse, goes on, and then returns VC_ENOMEM.
 */
static int for_each_cached(struct vc_informer *inf,
			   void (*fn)(struct vc_informer *, const void *, json_t *),
			   const void *arg)
{
	struct vc_cache_keys keys;
	struct vc_objs objs;
	json_t *obj;
	size_t i;
	int rc;

	if (!inf->packed) {
		rc = vc_cache_list(inf->cache, &objs);
		if (rc)
			return rc;
		for (i = 0; i < objs.count; i++)
			fn(inf, arg, objs.items[i]);
		vc_objs_release(&objs);
		return 0;
	}
	rc = vc_cache_keys(inf->cache, &keys);
	if (rc)
		return rc;
	for (i = 0; i < keys.count; i++) {
		/* Only this informer writes its cache, under dispatch: every key is still there. */
		obj = vc_cache_get(inf->cache, keys.items[i]);
		if (!obj) {
			rc = VC_ENOMEM;
			continue;
		}
		fn(inf, arg, obj);
		json_decref(obj);
	}
	vc_cache_keys_release(&keys);
	return rc;
}

/* ---- list --------------------------------------------------------------------------------------
 */

/* Remember the List's kind without "List" and its apiVersion, to stamp on its items. */
static void note_kind(struct vc_informer *inf, const json_t *list)
{
	const char *kind = json_string_value(json_object_get(list, "kind"));
	const char *av = json_string_value(json_object_get(list, "apiVersion"));
	size_t len = kind ? strlen(kind) : 0;

	inf->kind[0] = inf->api_version[0] = '\0';
	if (len > 4 && len < sizeof(inf->kind) && strcmp(kind + len - 4, "List") == 0 && av &&
	    strlen(av) < sizeof(inf->api_version)) {
		memcpy(inf->kind, kind, len - 4);
		inf->kind[len - 4] = '\0';
		memcpy(inf->api_version, av, strlen(av) + 1);
	}
}

/*
 * Items of a List carry no kind and apiVersion, watch events' objects do: give the listed ones
 * theirs, so handlers see one shape. The item belongs to the List we own, but it is copied
 * (shallowly) rather than changed, in case the client keeps other references to it.
 */
static int stamp_kind(struct vc_informer *inf, json_t *item, json_t **out)
{
	json_t *copy;

	*out = NULL;
	if (!inf->kind[0] || json_object_get(item, "kind")) {
		*out = json_incref(item);
		return 0;
	}
	copy = json_copy(item);
	if (!copy)
		return VC_ENOMEM;
	if (json_object_set_new(copy, "kind", json_string(inf->kind)) ||
	    json_object_set_new(copy, "apiVersion", json_string(inf->api_version))) {
		json_decref(copy);
		return VC_ENOMEM;
	}
	*out = copy;
	return 0;
}

/*
 * Where a list puts its items: a json array (unpacked caches), or a staging of the cache (packed
 * caches), which packs each object as it comes so that only one page is ever held parsed.
 */
struct listing {
	json_t *items;
	struct vc_cache_staging *st;
};

static int listing_begin(struct vc_informer *inf, struct listing *l)
{
	l->items = NULL;
	l->st = NULL;
	if (inf->packed)
		return vc_cache_stage_begin(inf->cache, &l->st);
	l->items = json_array();
	return l->items ? 0 : VC_ENOMEM;
}

static void listing_drop(struct listing *l)
{
	json_decref(l->items);
	vc_cache_stage_abort(l->st);
	l->items = NULL;
	l->st = NULL;
}

/* Add an item to the listing; item is stolen. */
static int listing_add(struct listing *l, json_t *item)
{
	int rc;

	if (l->st) {
		rc = vc_cache_stage_add(l->st, item);
		json_decref(item);
		return rc;
	}
	return json_array_append_new(l->items, item) ? VC_ENOMEM : 0;
}

/*
 * Hand one object of the first list to the list handlers (vc_informer.h). Only the informer's
 * thread writes synced, and the list handlers are fixed once it runs: no lock needed to read
 * them.
 */
static void deliver_listed(struct vc_informer *inf, json_t *obj)
{
	size_t i;

	if (inf->synced || !inf->nlisted)
		return;
	pthread_mutex_lock(&inf->dispatch);
	for (i = 0; i < inf->nlisted; i++)
		inf->listed[i].fn(inf->listed[i].ctx, obj);
	pthread_mutex_unlock(&inf->dispatch);
}

/* Add the usable items of one page to the listing. */
static int take_items(struct vc_informer *inf, const json_t *page, struct listing *l)
{
	json_t *list = json_object_get(page, "items"), *item, *stamped;
	char key[VC_CACHE_KEY_MAX];
	size_t i;
	int rc;

	if (list && !json_is_array(list) && !json_is_null(list)) {
		VC_WARN("informer list items is not an array", "resource=%s", inf->name);
		return VC_EPARSE;
	}
	json_array_foreach (list, i, item) {
		if (!json_is_object(item) || vc_cache_key(item, key, sizeof(key)) != 0) {
			VC_WARN("informer skips a listed object without a usable name",
				"resource=%s index=%zu", inf->name, i);
			STAT_ADD(inf, skipped, 1);
			continue;
		}
		rc = stamp_kind(inf, item, &stamped);
		if (!rc && inf->transform) {
			json_t *t = NULL;

			rc = inf->transform(inf->transform_ctx, stamped, false, &t);
			json_decref(stamped);
			stamped = rc ? NULL : t;
			if (!rc && !stamped)
				rc = VC_EINVAL;
		}
		if (rc)
			return rc;
		deliver_listed(inf, stamped);
		rc = listing_add(l, stamped);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * List everything, page by page (one_page: the client hands each page back with its continue
 * token instead of merging them, so that one page at a time is parsed: a merged List of 10,000
 * pods held ~150 MB of jansson objects at vc-controller's start), into l (begun here), and rv.
 * Each page is freed once its items are in l. An expired continue token restarts the list
 * without paging.
 */
static int list_all(struct vc_informer *inf, struct listing *l, char *rv, size_t rvlen)
{
	struct vc_list_opts lo = {
		inf->label_selector, inf->field_selector, NULL, inf->page_size, NULL, true
	};
	struct vc_error err;
	json_t *page = NULL;
	char *cont = NULL;
	const char *s;
	bool first = true;
	int rc;

	/* Only the first list, only its first request: a continue token carries its version. */
	if (inf->first_list_from_cache && !inf->synced)
		lo.resource_version = "0";
	rc = listing_begin(inf, l);
	if (rc)
		return rc;
	for (;;) {
		if (stopping(inf)) {
			rc = VC_ESHUTDOWN;
			goto out;
		}
		vc_error_clear(&err);
		lo.continue_token = cont;
		rc = vc_kube_list(inf->kube, inf->resource, inf->ns, &lo, &page, &err);
		if (rc == VC_EGONE && cont) {
			VC_INFO("informer list continue token expired, listing without paging",
				"resource=%s", inf->name);
			vc_free(cont);
			cont = NULL;
			lo.limit = 0;
			first = true;
			listing_drop(l);
			rc = listing_begin(inf, l);
			if (rc)
				goto out;
			continue;
		}
		if (rc) {
			VC_WARN("informer list failed", "resource=%s error=\"%s\" code=%d",
				inf->name, err.text[0] ? err.text : vc_strerror(rc), rc);
			goto out;
		}
		if (first) {
			s = obj_rv(page);
			if (!s || !*s || strlen(s) >= rvlen) {
				VC_WARN("informer list has no usable resourceVersion",
					"resource=%s", inf->name);
				rc = VC_EPARSE;
				goto out;
			}
			memcpy(rv, s, strlen(s) + 1);
			note_kind(inf, page);
			first = false;
		}
		rc = take_items(inf, page, l);
		if (rc) {
			VC_WARN("informer cannot take the listed objects",
				"resource=%s error=\"%s\" code=%d", inf->name, vc_strerror(rc), rc);
			goto out;
		}
		vc_free(cont);
		cont = NULL;
		lo.resource_version = NULL;
		s = json_string_value(
			json_object_get(json_object_get(page, "metadata"), "continue"));
		if (!s || !*s || lo.limit <= 0)
			break;
		cont = vc_strdup(s);
		json_decref(page);
		page = NULL;
		if (!cont) {
			rc = VC_ENOMEM;
			goto out;
		}
	}
out:
	json_decref(page);
	vc_free(cont);
	if (rc)
		listing_drop(l);
	return rc;
}

/* Deliver one relist delta; call with dispatch held. */
static void deliver_delta(struct vc_informer *inf, json_t *old_obj, json_t *new_obj)
{
	if (!old_obj)
		deliver_add(inf, new_obj);
	else if (new_obj)
		deliver_update(inf, old_obj, new_obj);
	else
		deliver_delete(inf, old_obj, true);
}

/* Replace the cache with an unpacked listing and deliver the differences. */
static int commit_items(struct vc_informer *inf, json_t *items, size_t *changes)
{
	struct vc_cache_deltas d = { NULL, 0 };
	json_t **arr = NULL;
	size_t i, n = json_array_size(items);
	int rc;

	if (n) {
		arr = vc_calloc(n, sizeof(json_t *));
		if (!arr)
			return VC_ENOMEM;
		for (i = 0; i < n; i++)
			arr[i] = json_array_get(items, i);
	}
	pthread_mutex_lock(&inf->dispatch);
	rc = vc_cache_replace(inf->cache, arr, n, &d);
	vc_free(arr);
	if (rc) {
		pthread_mutex_unlock(&inf->dispatch);
		return rc;
	}
	for (i = 0; i < d.count; i++)
		deliver_delta(inf, d.items[i].old_obj, d.items[i].new_obj);
	pthread_mutex_unlock(&inf->dispatch);
	*changes = d.count;
	vc_cache_deltas_release(&d);
	return 0;
}

/*
 * Commit a packed listing's staging (consumed) and deliver the differences, parsing one change
 * at a time. A change that cannot be parsed (out of memory) is not delivered: an add or update
 * is taken out of the cache again, so that the next relist reports it, and the relist fails
 * (VC_ENOMEM: the informer backs off and relists). A tombstone cannot be brought back that way
 * and is lost (logged).
 */
static int commit_staged(struct vc_informer *inf, struct vc_cache_staging *st, size_t *changes)
{
	struct vc_cache_changes *ch = NULL;
	json_t *old_obj, *new_obj;
	size_t i, n, failed = 0, dropped = 0;
	int rc;

	pthread_mutex_lock(&inf->dispatch);
	rc = vc_cache_stage_commit(st, &ch);
	if (rc) {
		pthread_mutex_unlock(&inf->dispatch);
		return rc;
	}
	n = vc_cache_changes_count(ch);
	for (i = 0; i < n; i++) {
		/* Only this informer writes its cache, under dispatch: no VC_ECONFLICT here. */
		rc = vc_cache_changes_get(ch, i, &old_obj, &new_obj);
		if (rc) {
			failed++;
			continue;
		}
		deliver_delta(inf, old_obj, new_obj);
		json_decref(old_obj);
		json_decref(new_obj);
	}
	if (failed)
		dropped = vc_cache_changes_drop_failed(ch);
	pthread_mutex_unlock(&inf->dispatch);
	vc_cache_changes_free(ch);
	*changes = n;
	if (!failed)
		return 0;
	VC_ERROR("informer cannot parse listed changes for its handlers",
		 "resource=%s failed=%zu retried=%zu lost_tombstones=%zu error=\"out of memory\"",
		 inf->name, failed, dropped, failed - dropped);
	return VC_ENOMEM;
}

/* List, replace the cache, deliver the differences. */
static int relist(struct vc_informer *inf)
{
	struct listing l;
	char rv[VC_INFORMER_RV_MAX];
	size_t n, changes = 0;
	int rc;

	rc = list_all(inf, &l, rv, sizeof(rv));
	if (rc)
		return rc;
	if (l.st) {
		n = vc_cache_stage_count(l.st);
		rc = commit_staged(inf, l.st, &changes);
		l.st = NULL;
	} else {
		n = json_array_size(l.items);
		rc = commit_items(inf, l.items, &changes);
		listing_drop(&l);
	}
	if (rc)
		return rc;
	/* What is left of the parsed List is free now: give its pages back before reporting. */
	if (VC_TRIM_HEAP && malloc_trim)
		malloc_trim(0);
	set_rv(inf, rv);
	pthread_mutex_lock(&inf->lock);
	inf->stats.lists++;
	if (!inf->synced) {
		inf->synced = true;
		pthread_cond_broadcast(&inf->cond);
	}
	pthread_mutex_unlock(&inf->lock);
	VC_LOG(VC_LOG_V(1), "informer listed", "resource=%s items=%zu changes=%zu rv=%s", inf->name,
	       n, changes, rv);
	return 0;
}

/* ---- watch ----------------------------------------------------------------------------------- */

struct watch_ctx {
	struct vc_informer *inf;
	uint64_t delivered; /* events of any type seen by this watch */
};

static int classify_error(struct vc_informer *inf, const json_t *status)
{
	json_int_t code = json_integer_value(json_object_get(status, "code"));
	const char *reason = json_string_value(json_object_get(status, "reason"));
	const char *msg = json_string_value(json_object_get(status, "message"));

	if (code == 410 || (reason && (!strcmp(reason, "Expired") || !strcmp(reason, "Gone"))) ||
	    (msg && strstr(msg, "too old resource version"))) {
		VC_INFO("informer watch expired, relisting", "resource=%s message=\"%s\"",
			inf->name, msg ? msg : "");
		return WATCH_EXPIRED;
	}
	VC_WARN("informer watch error event",
		"resource=%s code=%" JSON_INTEGER_FORMAT " reason=%s message=\"%s\"", inf->name,
		code, reason ? reason : "", msg ? msg : "");
	return WATCH_FAILED;
}

/* Apply an ADDED or MODIFIED event; *applied tells whether it changed the cache. */
static int apply_upsert(struct vc_informer *inf, json_t *obj, const char *key, bool *applied)
{
	json_t *old = NULL;
	int rc;

	pthread_mutex_lock(&inf->dispatch);
	/*
	 * The same version again (a re-watch overlapping what was seen): nothing changed. Asked
	 * without reading the object, which in a packed cache would be a parse.
	 */
	if (vc_cache_has_version(inf->cache, key, obj_rv(obj))) {
		pthread_mutex_unlock(&inf->dispatch);
		return 0;
	}
	/* Packed: `old` is a parse of the cached object, the handlers' old_obj. */
	rc = vc_cache_upsert(inf->cache, obj, &old);
	if (rc) {
		pthread_mutex_unlock(&inf->dispatch);
		VC_ERROR("informer cannot cache an object", "resource=%s key=%s error=\"%s\"",
			 inf->name, key, vc_strerror(rc));
		return rc == VC_ENOMEM ? WATCH_LOST : 0;
	}
	if (old)
		deliver_update(inf, old, obj);
	else
		deliver_add(inf, obj);
	pthread_mutex_unlock(&inf->dispatch);
	json_decref(old);
	*applied = true;
	return 0;
}

/*
 * Apply a DELETED event; a key not in the cache is already gone (a relist reported it). The
 * handlers get the event's object, the server's final state, so the cached one is not asked for
 * (in a packed cache that would be a parse that can fail).
 */
static int apply_delete(struct vc_informer *inf, json_t *obj, const char *key, bool *applied)
{
	int rc;

	pthread_mutex_lock(&inf->dispatch);
	rc = vc_cache_delete(inf->cache, key, NULL);
	if (rc == 0)
		deliver_delete(inf, obj, false);
	pthread_mutex_unlock(&inf->dispatch);
	*applied = rc == 0;
	return 0;
}

static int on_event(void *ctx, enum vc_watch_event_type type, json_t *obj)
{
	struct watch_ctx *w = ctx;
	struct vc_informer *inf = w->inf;
	char key[VC_CACHE_KEY_MAX];
	bool applied = false;
	int rc;

	w->delivered++;
	switch (type) {
	case VC_WATCH_BOOKMARK:
		set_rv(inf, obj_rv(obj));
		STAT_ADD(inf, bookmarks, 1);
		return 0;
	case VC_WATCH_ERROR:
		return classify_error(inf, obj);
	case VC_WATCH_ADDED:
	case VC_WATCH_MODIFIED:
	case VC_WATCH_DELETED:
		break;
	default:
		STAT_ADD(inf, skipped, 1);
		return 0;
	}
	if (!json_is_object(obj) || vc_cache_key(obj, key, sizeof(key)) != 0) {
		VC_WARN("informer skips a watch event without a usable name", "resource=%s type=%d",
			inf->name, (int)type);
		STAT_ADD(inf, skipped, 1);
		return 0;
	}
	if (inf->transform) {
		json_t *t = NULL;

		/* The event's object is ours alone (vc_watch.c drops the event before it). */
		rc = inf->transform(inf->transform_ctx, obj, true, &t);
		if (rc || !t) {
			VC_ERROR("informer transform failed", "resource=%s key=%s error=\"%s\"",
				 inf->name, key, vc_strerror(rc ? rc : VC_EINVAL));
			json_decref(t);
			return WATCH_LOST;
		}
		obj = t;
	}
	if (type == VC_WATCH_DELETED)
		rc = apply_delete(inf, obj, key, &applied);
	else
		rc = apply_upsert(inf, obj, key, &applied);
	if (!rc)
		set_rv(inf, obj_rv(obj));
	if (inf->transform)
		json_decref(obj);
	if (rc)
		return rc;
	if (applied)
		STAT_ADD(inf, events, 1);
	else
		STAT_ADD(inf, skipped, 1);
	return 0;
}

static int watch_once(struct vc_informer *inf, struct watch_ctx *w)
{
	struct vc_watch_opts wo = { 0 };
	struct vc_error err;
	char rv[VC_INFORMER_RV_MAX];
	int rc;

	pthread_mutex_lock(&inf->lock);
	memcpy(rv, inf->last_rv, sizeof(rv));
	inf->stats.watches++;
	pthread_mutex_unlock(&inf->lock);
	wo.label_selector = inf->label_selector;
	wo.field_selector = inf->field_selector;
	wo.resource_version = rv;
	wo.allow_bookmarks = true;
	wo.timeout_seconds = inf->watch_timeout_seconds;
	if (!wo.timeout_seconds)
		wo.timeout_seconds = 300 + (int)(rand01(inf) * 300);
	vc_error_clear(&err);
	w->inf = inf;
	w->delivered = 0;
	rc = vc_kube_watch(inf->kube, inf->resource, inf->ns, &wo, on_event, w, &inf->stop, &err);
	if (rc < 0 && rc != VC_ESHUTDOWN && rc != VC_EGONE)
		VC_WARN("informer watch failed", "resource=%s rv=%s error=\"%s\" code=%d",
			inf->name, rv, err.text[0] ? err.text : vc_strerror(rc), rc);
	return rc;
}

static void *run(void *arg)
{
	struct vc_informer *inf = arg;
	struct watch_ctx w;
	bool need_list = true, progress;
	int rc;

	while (!stopping(inf)) {
		if (need_list) {
			rc = relist(inf);
			if (rc == VC_ESHUTDOWN)
				break;
			if (rc) {
				STAT_ADD(inf, list_errors, 1);
				backoff(inf);
				continue;
			}
			need_list = false;
			backoff_reset(inf);
		}
		rc = watch_once(inf, &w);
		if (rc == VC_ESHUTDOWN || stopping(inf))
			break;
		/* Did the watch get anything besides the ERROR event that ended it? */
		progress = w.delivered > (rc == WATCH_EXPIRED || rc == WATCH_FAILED ? 1u : 0u);
		if (rc == 0 || progress)
			inf->expired_streak = 0;
		if (rc == 0) {
			/* The server ended the watch (its timeout): continue from the last version.
			 */
			backoff_reset(inf);
		} else if (rc == VC_EGONE || rc == WATCH_EXPIRED) {
			STAT_ADD(inf, expired, 1);
			need_list = true;
			/* Relist at once, unless the last relist was followed by expiry alone. */
			if (inf->expired_streak++ > 0)
				backoff(inf);
		} else {
			STAT_ADD(inf, watch_errors, 1);
			if (rc == WATCH_FAILED || rc == WATCH_LOST)
				need_list = true;
			if (progress)
				backoff_reset(inf);
			backoff(inf);
		}
	}
	return NULL;
}

static void *run_resync(void *arg)
{
	struct vc_informer *inf = arg;
	int64_t next = mono_ns() + inf->resync_period_ns;
	bool synced;

	for (;;) {
		wait_until(inf, next);
		if (stopping(inf))
			break;
		next += inf->resync_period_ns;
		pthread_mutex_lock(&inf->lock);
		synced = inf->synced;
		pthread_mutex_unlock(&inf->lock);
		if (synced && vc_informer_resync_now(inf) != 0)
			VC_WARN("informer resync failed", "resource=%s error=\"out of memory\"",
				inf->name);
	}
	return NULL;
}

/* A deep copy of a metadata object without its managedFields. */
static json_t *copy_metadata(json_t *md)
{
	json_t *copy = json_object(), *v;
	const char *k;

	if (!copy)
		return NULL;
	json_object_foreach (md, k, v) {
		if (!strcmp(k, "managedFields"))
			continue;
		/* json_object_set_new refuses a NULL value (a failed copy) and steals the value. */
		if (json_object_set_new(copy, k, json_deep_copy(v))) {
			json_decref(copy);
			return NULL;
		}
	}
	return copy;
}

int vc_informer_strip_managed_fields(void *ctx, json_t *obj, bool owned, json_t **out)
{
	json_t *copy, *v;
	const char *k;

	(void)ctx;
	*out = NULL;
	if (!json_is_object(obj))
		return VC_EINVAL;
	if (owned) {
		(void)json_object_del(json_object_get(obj, "metadata"), "managedFields");
		*out = json_incref(obj);
		return 0;
	}
	copy = json_object();
	if (!copy)
		return VC_ENOMEM;
	json_object_foreach (obj, k, v) {
		json_t *c = !strcmp(k, "metadata") && json_is_object(v) ? copy_metadata(v)
									: json_deep_copy(v);

		if (json_object_set_new(copy, k, c)) {
			json_decref(copy);
			return VC_ENOMEM;
		}
	}
	*out = copy;
	return 0;
}

/* ---- the API --------------------------------------------------------------------------------- */

static int dup_opt(const char *s, char **out)
{
	*out = NULL;
	if (!s || !*s)
		return 0;
	*out = vc_strdup(s);
	return *out ? 0 : VC_ENOMEM;
}

int vc_informer_new(struct vc_kube *kube, const struct vc_informer_opts *opts,
		    struct vc_informer **out, struct vc_error *err)
{
	struct vc_cache_opts co = { 0 };
	struct vc_informer *inf;
	pthread_condattr_t ca;
	int rc;

	if (out)
		*out = NULL;
	if (!kube || !opts || !opts->resource || !opts->resource->resource || !out)
		return vc_error_set(err, VC_EINVAL, "informer needs a client and a resource");
	inf = vc_calloc(1, sizeof(*inf));
	if (!inf)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	inf->kube = kube;
	inf->resource = opts->resource;
	inf->page_size = opts->page_size == 0 ? DEFAULT_PAGE_SIZE : opts->page_size;
	inf->first_list_from_cache = opts->first_list_from_cache;
	if (inf->page_size < 0)
		inf->page_size = 0;
	inf->watch_timeout_seconds = opts->watch_timeout_seconds;
	inf->resync_period_ns = opts->resync_period_ns > 0 ? opts->resync_period_ns : 0;
	inf->backoff_initial_ns =
		opts->backoff_initial_ns > 0 ? opts->backoff_initial_ns : DEFAULT_BACKOFF_INITIAL;
	inf->backoff_max_ns = opts->backoff_max_ns > 0 ? opts->backoff_max_ns : DEFAULT_BACKOFF_MAX;
	if (inf->backoff_max_ns < inf->backoff_initial_ns)
		inf->backoff_max_ns = inf->backoff_initial_ns;
	inf->sleep = opts->sleep;
	inf->rand = opts->rand;
	inf->env_ctx = opts->env_ctx;
	inf->transform = opts->transform;
	inf->transform_ctx = opts->transform_ctx;
	inf->rng = (uint64_t)vc_time_now_ns() ^ (uint64_t)(uintptr_t)inf;
	if (!inf->rng)
		inf->rng = 1;
	if (dup_opt(opts->namespace, &inf->ns) ||
	    dup_opt(opts->label_selector, &inf->label_selector) ||
	    dup_opt(opts->field_selector, &inf->field_selector) ||
	    dup_opt(opts->name ? opts->name : opts->resource->resource, &inf->name)) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out_free;
	}
	co.indexes = opts->indexes;
	co.nindexes = opts->nindexes;
	co.flags = opts->cache_flags;
	inf->packed = (opts->cache_flags & VC_CACHE_PACKED) != 0;
	rc = vc_cache_new(&co, &inf->cache);
	if (rc) {
		vc_error_set(err, rc, rc == VC_ENOMEM ? "out of memory" : "bad cache indexes");
		goto out_free;
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&inf->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&inf->lock, NULL);
	pthread_mutex_init(&inf->dispatch, NULL);
	pthread_mutex_init(&inf->stop_lock, NULL);
	*out = inf;
	return 0;
out_free:
	vc_cache_free(inf->cache);
	vc_free(inf->ns);
	vc_free(inf->label_selector);
	vc_free(inf->field_selector);
	vc_free(inf->name);
	vc_free(inf);
	return rc;
}

void vc_informer_free(struct vc_informer *inf)
{
	if (!inf)
		return;
	vc_informer_stop(inf);
	pthread_cond_destroy(&inf->cond);
	pthread_mutex_destroy(&inf->lock);
	pthread_mutex_destroy(&inf->dispatch);
	pthread_mutex_destroy(&inf->stop_lock);
	vc_cache_free(inf->cache);
	vc_free(inf->handlers);
	vc_free(inf->listed);
	vc_free(inf->ns);
	vc_free(inf->label_selector);
	vc_free(inf->field_selector);
	vc_free(inf->name);
	vc_free(inf);
}

static void replay_add(struct vc_informer *inf, const void *arg, json_t *obj)
{
	const struct vc_informer_handler *h = arg;

	(void)inf;
	if (h->on_add)
		h->on_add(h->ctx, obj);
}

int vc_informer_add_handler(struct vc_informer *inf, const struct vc_informer_handler *h)
{
	struct vc_informer_handler *grown;
	int rc;

	if (!inf || !h)
		return VC_EINVAL;
	pthread_mutex_lock(&inf->dispatch);
	grown = vc_realloc(inf->handlers, (inf->nhandlers + 1) * sizeof(*grown));
	if (!grown) {
		rc = VC_ENOMEM;
		goto out_unlock;
	}
	inf->handlers = grown;
	/* What the cache holds now is what the other handlers have seen: replay it as adds. */
	rc = for_each_cached(inf, replay_add, h);
	if (rc)
		goto out_unlock;
	inf->handlers[inf->nhandlers++] = *h;
out_unlock:
	pthread_mutex_unlock(&inf->dispatch);
	return rc;
}

int vc_informer_add_list_handler(struct vc_informer *inf, void (*fn)(void *ctx, json_t *obj),
				 void *ctx)
{
	struct list_handler *grown;
	int rc = 0;

	if (!inf || !fn)
		return VC_EINVAL;
	pthread_mutex_lock(&inf->lock);
	if (inf->started) {
		rc = VC_EINVAL;
		goto out_unlock;
	}
	grown = vc_realloc(inf->listed, (inf->nlisted + 1) * sizeof(*grown));
	if (!grown) {
		rc = VC_ENOMEM;
		goto out_unlock;
	}
	inf->listed = grown;
	inf->listed[inf->nlisted++] = (struct list_handler){ fn, ctx };
out_unlock:
	pthread_mutex_unlock(&inf->lock);
	return rc;
}

int vc_informer_start(struct vc_informer *inf)
{
	int rc;

	if (!inf)
		return VC_EINVAL;
	pthread_mutex_lock(&inf->lock);
	if (inf->started || stopping(inf)) {
		pthread_mutex_unlock(&inf->lock);
		return VC_EINVAL;
	}
	inf->started = true;
	pthread_mutex_unlock(&inf->lock);
	rc = -pthread_create(&inf->thread, NULL, run, inf);
	if (rc)
		goto out_unstart;
	if (inf->resync_period_ns) {
		rc = -pthread_create(&inf->resync_thread, NULL, run_resync, inf);
		if (rc) {
			__atomic_store_n(&inf->stop, 1, __ATOMIC_RELEASE);
			pthread_join(inf->thread, NULL);
			__atomic_store_n(&inf->stop, 0, __ATOMIC_RELEASE);
			goto out_unstart;
		}
		inf->has_resync_thread = true;
	}
	VC_LOG(VC_LOG_V(1), "informer started", "resource=%s namespace=%s", inf->name,
	       inf->ns ? inf->ns : "");
	return 0;
out_unstart:
	pthread_mutex_lock(&inf->lock);
	inf->started = false;
	pthread_mutex_unlock(&inf->lock);
	return rc;
}

void vc_informer_stop(struct vc_informer *inf)
{
	bool started;

	if (!inf)
		return;
	pthread_mutex_lock(&inf->stop_lock);
	pthread_mutex_lock(&inf->lock);
	started = inf->started;
	__atomic_store_n(&inf->stop, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&inf->cond);
	pthread_mutex_unlock(&inf->lock);
	if (started && !inf->joined) {
		pthread_join(inf->thread, NULL);
		if (inf->has_resync_thread)
			pthread_join(inf->resync_thread, NULL);
		inf->joined = true;
		VC_LOG(VC_LOG_V(1), "informer stopped", "resource=%s", inf->name);
	}
	pthread_mutex_unlock(&inf->stop_lock);
}

bool vc_informer_has_synced(struct vc_informer *inf)
{
	bool synced;

	if (!inf)
		return false;
	pthread_mutex_lock(&inf->lock);
	synced = inf->synced;
	pthread_mutex_unlock(&inf->lock);
	return synced;
}

int vc_informer_wait_synced(struct vc_informer *inf, int64_t timeout_ns)
{
	int64_t deadline = timeout_ns < 0 ? 0 : mono_ns() + timeout_ns;
	int rc = 0;

	if (!inf)
		return VC_EINVAL;
	pthread_mutex_lock(&inf->lock);
	while (!inf->synced) {
		if (stopping(inf) || !inf->started) {
			rc = VC_ESHUTDOWN;
			break;
		}
		if (timeout_ns < 0) {
			pthread_cond_wait(&inf->cond, &inf->lock);
		} else {
			struct timespec ts = to_timespec(deadline);

			if (mono_ns() >= deadline) {
				rc = VC_ETIMEDOUT;
				break;
			}
			pthread_cond_timedwait(&inf->cond, &inf->lock, &ts);
		}
	}
	pthread_mutex_unlock(&inf->lock);
	return rc;
}

struct vc_cache *vc_informer_cache(struct vc_informer *inf)
{
	return inf ? inf->cache : NULL;
}

int vc_informer_last_rv(struct vc_informer *inf, char *buf, size_t len)
{
	size_t n;
	int rc = 0;

	if (!inf || !buf || !len)
		return VC_EINVAL;
	pthread_mutex_lock(&inf->lock);
	n = strlen(inf->last_rv);
	if (n < len) {
		memcpy(buf, inf->last_rv, n + 1);
	} else {
		buf[0] = '\0';
		rc = VC_E2BIG;
	}
	pthread_mutex_unlock(&inf->lock);
	return rc;
}

/* A resync hands one object as both old and new: handlers tell a resync by old_obj == new_obj. */
static void resync_one(struct vc_informer *inf, const void *arg, json_t *obj)
{
	(void)arg;
	deliver_update(inf, obj, obj);
}

int vc_informer_resync_now(struct vc_informer *inf)
{
	int rc;

	if (!inf)
		return VC_EINVAL;
	pthread_mutex_lock(&inf->dispatch);
	rc = for_each_cached(inf, resync_one, NULL);
	pthread_mutex_unlock(&inf->dispatch);
	if (!rc)
		STAT_ADD(inf, resyncs, 1);
	return rc;
}

void vc_informer_get_stats(struct vc_informer *inf, struct vc_informer_stats *out)
{
	if (!inf || !out)
		return;
	pthread_mutex_lock(&inf->lock);
	*out = inf->stats;
	pthread_mutex_unlock(&inf->lock);
}
