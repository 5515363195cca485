/*
 * Unit tests for vc_informer against a scripted fake client: the fake's list serves pages, its
 * watch delivers scripted events and then ends as told; time and randomness are injected, so no
 * test waits out a backoff.
 */
#include "vc_prelude.h"

#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <time.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_cache.h"
#include "vc_informer.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_time.h"

#define NSEC_MS VC_NSEC_PER_MSEC
#define LOG_MAX 16384

static const struct vc_gvr test_pods = { "", "v1", "pods", true };

/* ---- the scripted client --------------------------------------------------------------------- */

/*
 * One step of the script, consumed by the call it scripts.
 *   'L': a list. spec is "rv=<rv> <obj> <obj> ...", rc non-zero fails the call instead;
 *        gone_page k > 0 makes the request for page k answer 410 (an expired continue token).
 *   'W': a watch. spec is the events, delivered in order, then the call returns rc.
 * Objects are written ns/name@rv (a namespaced pod) or name@rv; events are
 *   +obj ADDED, ~obj MODIFIED, -obj DELETED, B@rv BOOKMARK, E410 an ERROR Status with code 410,
 *   Eold an ERROR "too old resource version" with code 0, E500 an ERROR with code 500,
 *   ?noname an ADDED event whose object has no name.
 * When the script runs out, the next call reports "done" and blocks until the informer stops.
 */
struct step {
	char kind;
	const char *spec;
	int rc;
	int gone_page;
};

struct fake {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	const struct step *steps;
	size_t nsteps, next;
	bool done;
	char calls[LOG_MAX]; /* one line per call */
	char list_rvs[256];  /* each list's resourceVersion ("-" for none), space-separated */
	/* injected time and randomness */
	int64_t sleeps[64];
	size_t nsleeps;
	uint64_t rand_value;
	volatile int release; /* lets a blocked list return (lists get no stop flag) */
	bool bad;	      /* the informer called something the script did not expect */
};

/* The fake runs on the informer's thread, where cmocka's assertions must not be used. */
#define FAKE_CHECK(c)                                                                     \
	do {                                                                              \
		if (!(c)) {                                                               \
			fprintf(stderr, "fake: check failed: %s (%s:%d)\n", #c, __FILE__, \
				__LINE__);                                                \
			abort();                                                          \
		}                                                                         \
	} while (0)

static void logf_to(char *log, const char *fmt, ...) VC_PRINTF(2, 3);

static void logf_to(char *log, const char *fmt, ...)
{
	size_t at = strlen(log);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(log + at, LOG_MAX - at, fmt, ap);
	va_end(ap);
}

/* An object from "ns/name@rv" or "name@rv". */
static json_t *spec_obj(const char *spec, size_t len)
{
	char buf[128], *at, *slash;
	json_t *o;

	FAKE_CHECK(len < sizeof(buf));
	memcpy(buf, spec, len);
	buf[len] = '\0';
	at = strchr(buf, '@');
	FAKE_CHECK(at);
	*at = '\0';
	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		o = json_pack("{s:{s:s, s:s, s:s}, s:{s:s}}", "metadata", "namespace", buf, "name",
			      slash + 1, "resourceVersion", at + 1, "data", "v", at + 1);
	} else {
		o = json_pack("{s:{s:s, s:s}, s:{s:s}}", "metadata", "name", buf, "resourceVersion",
			      at + 1, "data", "v", at + 1);
	}
	FAKE_CHECK(o);
	/* What the API server adds to every object, and what a transform may strip. */
	FAKE_CHECK(json_object_set_new(json_object_get(o, "metadata"), "managedFields",
				       json_pack("[{s:s}]", "manager", "kubectl")) == 0);
	return o;
}

static const char *next_word(const char *s, size_t *len)
{
	while (*s == ' ')
		s++;
	*len = strcspn(s, " ");
	return s;
}

static const struct step *take_step(struct fake *f, char kind)
{
	const struct step *s = NULL;

	pthread_mutex_lock(&f->lock);
	if (f->next < f->nsteps && f->steps[f->next].kind == kind)
		s = &f->steps[f->next];
	else if (f->next < f->nsteps) {
		fprintf(stderr, "fake: script step %zu is '%c' but the informer called '%c'\n",
			f->next, f->steps[f->next].kind, kind);
		f->bad = true;
	}
	pthread_mutex_unlock(&f->lock);
	return s;
}

static void consume_step(struct fake *f)
{
	pthread_mutex_lock(&f->lock);
	f->next++;
	pthread_mutex_unlock(&f->lock);
}

/* The script is over: say so, then wait for the informer to stop. */
static int block_until_stop(struct fake *f, const volatile int *stop)
{
	struct timespec ms = { 0, 1000000 };

	pthread_mutex_lock(&f->lock);
	f->done = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	while (!(stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE)) &&
	       !__atomic_load_n(&f->release, __ATOMIC_ACQUIRE))
		nanosleep(&ms, NULL);
	return VC_ESHUTDOWN;
}

/* Let a list blocked at the end of the script return, so that the informer can stop. */
static void fake_release(struct fake *f)
{
	__atomic_store_n(&f->release, 1, __ATOMIC_RELEASE);
}

static int fake_list(void *ctx, const struct vc_gvr *r, const char *ns,
		     const struct vc_list_opts *opts, json_t **out, struct vc_error *err)
{
	struct fake *f = ctx;
	const struct step *s;
	const char *w, *spec;
	size_t len, i = 0, first, page = 0;
	json_t *list, *items;
	char rv[32] = "";
	int rc;

	(void)r;
	pthread_mutex_lock(&f->lock);
	logf_to(f->calls, "list ns=%s limit=%" PRId64 " continue=%s label=%s field=%s\n",
		ns ? ns : "", opts->limit, opts->continue_token ? opts->continue_token : "",
		opts->label_selector ? opts->label_selector : "",
		opts->field_selector ? opts->field_selector : "");
	snprintf(f->list_rvs + strlen(f->list_rvs), sizeof(f->list_rvs) - strlen(f->list_rvs),
		 "%s%s", f->list_rvs[0] ? " " : "",
		 opts->resource_version ? opts->resource_version : "-");
	pthread_mutex_unlock(&f->lock);
	/* The informer pages itself: a paged list asks the client for one page (the real
	 * client would otherwise merge every page into one List, all of it parsed at once). */
	FAKE_CHECK(opts->limit <= 0 || opts->one_page);
	*out = NULL;
	s = take_step(f, 'L');
	if (!s) {
		block_until_stop(f, NULL);
		return vc_error_set(err, VC_EIO, "connection refused");
	}
	if (s->rc) {
		consume_step(f);
		return vc_error_set(err, s->rc, "scripted list failure");
	}
	if (opts->continue_token)
		page = strtoul(opts->continue_token + 1, NULL, 10);
	if (s->gone_page && (int)page == s->gone_page)
		return vc_error_set(err, VC_EGONE, "The provided continue parameter is too old");
	spec = s->spec;
	w = next_word(spec, &len);
	FAKE_CHECK(len > 3 && len < sizeof(rv) + 3 && !strncmp(w, "rv=", 3));
	memcpy(rv, w + 3, len - 3);
	spec = w + len;
	list = json_pack("{s:s, s:s, s:{s:s}, s:[]}", "kind", "PodList", "apiVersion", "v1",
			 "metadata", "resourceVersion", rv, "items");
	items = json_object_get(list, "items");
	first = opts->limit > 0 ? page * (size_t)opts->limit : 0;
	for (;;) {
		w = next_word(spec, &len);
		if (!len)
			break;
		spec = w + len;
		if (i >= first && (opts->limit <= 0 || i < first + (size_t)opts->limit))
			FAKE_CHECK(json_array_append_new(items, spec_obj(w, len)) == 0);
		i++;
	}
	if (opts->limit > 0 && i > first + (size_t)opts->limit) {
		char cont[16];

		snprintf(cont, sizeof(cont), "c%zu", page + 1);
		json_object_set_new(json_object_get(list, "metadata"), "continue",
				    json_string(cont));
	} else {
		consume_step(f);
	}
	rc = 0;
	*out = list;
	return rc;
}

static json_t *status(int code, const char *reason, const char *msg)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:i}", "kind", "Status", "status", "Failure",
			 "reason", reason, "message", msg, "code", code);
}

static int fake_watch(void *ctx, const struct vc_gvr *r, const char *ns,
		      const struct vc_watch_opts *opts, vc_watch_fn fn, void *fn_ctx,
		      const volatile int *stop, struct vc_error *err)
{
	struct fake *f = ctx;
	const struct step *s;
	const char *w, *spec;
	size_t len;
	int rc = 0;

	(void)r;
	pthread_mutex_lock(&f->lock);
	logf_to(f->calls, "watch ns=%s rv=%s bookmarks=%d timeout=%d label=%s field=%s\n",
		ns ? ns : "", opts->resource_version ? opts->resource_version : "",
		opts->allow_bookmarks, opts->timeout_seconds,
		opts->label_selector ? opts->label_selector : "",
		opts->field_selector ? opts->field_selector : "");
	pthread_mutex_unlock(&f->lock);
	s = take_step(f, 'W');
	if (!s)
		return block_until_stop(f, stop);
	consume_step(f);
	for (spec = s->spec;; spec = w + len) {
		enum vc_watch_event_type type;
		json_t *obj;

		w = next_word(spec, &len);
		if (!len)
			break;
		if (__atomic_load_n(stop, __ATOMIC_ACQUIRE))
			return vc_error_set(err, VC_ESHUTDOWN, "stopped");
		switch (*w) {
		case '+':
			type = VC_WATCH_ADDED;
			obj = spec_obj(w + 1, len - 1);
			break;
		case '~':
			type = VC_WATCH_MODIFIED;
			obj = spec_obj(w + 1, len - 1);
			break;
		case '-':
			type = VC_WATCH_DELETED;
			obj = spec_obj(w + 1, len - 1);
			break;
		case 'B':
			type = VC_WATCH_BOOKMARK;
			obj = json_pack("{s:s, s:{s:s#}}", "kind", "Pod", "metadata",
					"resourceVersion", w + 2, (int)len - 2);
			break;
		case 'E':
			type = VC_WATCH_ERROR;
			if (!strncmp(w, "E410", len))
				obj = status(410, "Expired", "too old resource version: 5 (9)");
			else if (!strncmp(w, "Eold", len))
				obj = status(0, "", "too old resource version: 5 (9)");
			else
				obj = status(500, "InternalError", "etcd is sad");
			break;
		default:
			type = VC_WATCH_ADDED;
			obj = json_pack("{s:{s:s}}", "metadata", "namespace", "ns");
			break;
		}
		FAKE_CHECK(obj);
		rc = fn(fn_ctx, type, obj);
		json_decref(obj);
		if (rc)
			return rc;
	}
	return s->rc ? vc_error_set(err, s->rc, "scripted watch end") : 0;
}

static void fake_sleep(void *ctx, int64_t ns)
{
	struct fake *f = ctx;

	pthread_mutex_lock(&f->lock);
	if (f->nsleeps < VC_ARRAY_SIZE(f->sleeps))
		f->sleeps[f->nsleeps++] = ns;
	pthread_mutex_unlock(&f->lock);
}

static uint64_t fake_rand(void *ctx)
{
	return ((struct fake *)ctx)->rand_value;
}

static const struct vc_kube_ops fake_ops = { .list = fake_list, .watch = fake_watch };

/* ---- captured log lines --------------------------------------------------------------------- */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_lines[LOG_MAX];

static void capture_log(void *ctx, int level, const char *line)
{
	const char *msg = strstr(line, " msg=");

	(void)ctx;
	(void)level;
	pthread_mutex_lock(&log_lock);
	logf_to(log_lines, "%s\n", msg ? msg + 1 : line); /* without the timestamp */
	pthread_mutex_unlock(&log_lock);
}

static bool logged(const char *text)
{
	bool found;

	pthread_mutex_lock(&log_lock);
	found = strstr(log_lines, text) != NULL;
	pthread_mutex_unlock(&log_lock);
	return found;
}

static int clear_log(void **state)
{
	(void)state;
	pthread_mutex_lock(&log_lock);
	log_lines[0] = '\0';
	pthread_mutex_unlock(&log_lock);
	return 0;
}

/* ---- the recording handler ------------------------------------------------------------------- */

struct recorder {
	struct vc_informer *inf;
	pthread_mutex_t lock;
	char log[LOG_MAX];
	int inconsistent; /* handler calls that found the cache not reflecting the event */
	const char *tag;  /* prefix of each line, to tell two handlers apart */
	bool packed;	  /* the cache is packed: compare contents, not pointers */
};

/* Extra cache flags for every fixture: the second group runs the scripts on packed caches. */
static unsigned g_cache_flags;

static void obj_desc(const json_t *o, char *buf, size_t len)
{
	char key[VC_CACHE_KEY_MAX];
	const char *rv = json_string_value(
		json_object_get(json_object_get(o, "metadata"), "resourceVersion"));

	if (vc_cache_key(o, key, sizeof(key)))
		snprintf(key, sizeof(key), "?");
	snprintf(buf, len, "%.100s@%.20s", key, rv ? rv : "");
}

/*
 * The cache must already hold the event's outcome: new_obj itself (packed: a distinct object
 * equal to it), or nothing for a delete.
 */
static void check_cache(struct recorder *rec, const json_t *obj, bool present)
{
	char key[VC_CACHE_KEY_MAX];
	json_t *cur;

	if (vc_cache_key(obj, key, sizeof(key)))
		return;
	cur = vc_cache_get(vc_informer_cache(rec->inf), key);
	if (!present ? cur != NULL
	    : rec->packed
		    ? (!cur || cur == obj || !json_equal(cur, (json_t *)obj) || cur->refcount != 1)
		    : cur != obj)
		rec->inconsistent++;
	json_decref(cur);
}

static void rec_add(void *ctx, json_t *obj)
{
	struct recorder *rec = ctx;
	char d[128];

	obj_desc(obj, d, sizeof(d));
	check_cache(rec, obj, true);
	pthread_mutex_lock(&rec->lock);
	logf_to(rec->log, "%sadd %s\n", rec->tag, d);
	pthread_mutex_unlock(&rec->lock);
}

static void rec_update(void *ctx, json_t *old_obj, json_t *new_obj)
{
	struct recorder *rec = ctx;
	char d1[128], d2[128];

	obj_desc(old_obj, d1, sizeof(d1));
	obj_desc(new_obj, d2, sizeof(d2));
	check_cache(rec, new_obj, true);
	pthread_mutex_lock(&rec->lock);
	if (old_obj == new_obj)
		logf_to(rec->log, "%sresync %s\n", rec->tag, d2);
	else
		logf_to(rec->log, "%supdate %s -> %s\n", rec->tag, d1, d2);
	pthread_mutex_unlock(&rec->lock);
}

static void rec_delete(void *ctx, json_t *obj, bool unknown)
{
	struct recorder *rec = ctx;
	char d[128];

	obj_desc(obj, d, sizeof(d));
	check_cache(rec, obj, false);
	pthread_mutex_lock(&rec->lock);
	logf_to(rec->log, "%s%s %s\n", rec->tag, unknown ? "tombstone" : "delete", d);
	pthread_mutex_unlock(&rec->lock);
}

/* ---- fixture --------------------------------------------------------------------------------- */

struct fixture {
	struct fake fake;
	struct recorder rec;
	struct vc_kube *kube;
	struct vc_informer *inf;
};

static const struct vc_cache_index test_indexes[] = {
	{ "namespace", vc_cache_index_by_namespace, NULL },
};

/* An informer on the script, with page size 2 and a fixed watch timeout unless opts says. */
static struct fixture *fixture_new(const struct step *steps, size_t nsteps,
				   const struct vc_informer_opts *extra)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	struct vc_informer_opts opts = { 0 };
	struct vc_informer_handler h;
	struct vc_error err;

	assert_non_null(fx);
	pthread_mutex_init(&fx->fake.lock, NULL);
	pthread_cond_init(&fx->fake.cond, NULL);
	pthread_mutex_init(&fx->rec.lock, NULL);
	fx->rec.tag = "";
	fx->fake.steps = steps;
	fx->fake.nsteps = nsteps;
	fx->kube = vc_kube_new_with_ops(&fake_ops, &fx->fake);
	assert_non_null(fx->kube);
	if (extra)
		opts = *extra;
	opts.resource = &test_pods;
	if (!opts.page_size)
		opts.page_size = 2;
	if (!opts.watch_timeout_seconds)
		opts.watch_timeout_seconds = 60;
	opts.indexes = test_indexes;
	opts.nindexes = 1;
	opts.cache_flags |= VC_CACHE_CHECK_MUTATIONS | g_cache_flags;
	fx->rec.packed = (opts.cache_flags & VC_CACHE_PACKED) != 0;
	if (!opts.sleep)
		opts.sleep = fake_sleep;
	opts.rand = fake_rand;
	opts.env_ctx = &fx->fake;
	assert_int_equal(vc_informer_new(fx->kube, &opts, &fx->inf, &err), 0);
	fx->rec.inf = fx->inf;
	h = (struct vc_informer_handler){ rec_add, rec_update, rec_delete, &fx->rec };
	assert_int_equal(vc_informer_add_handler(fx->inf, &h), 0);
	return fx;
}

/* Start, wait until the script has run out (10 s at most), and return. */
static void run_script(struct fixture *fx)
{
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 10;
	assert_int_equal(vc_informer_start(fx->inf), 0);
	pthread_mutex_lock(&fx->fake.lock);
	while (!fx->fake.done)
		if (pthread_cond_timedwait(&fx->fake.cond, &fx->fake.lock, &deadline) != 0)
			break;
	pthread_mutex_unlock(&fx->fake.lock);
	if (!fx->fake.done)
		fail_msg("the script did not run out within 10 s; calls so far:\n%s",
			 fx->fake.calls);
	assert_false(fx->fake.bad);
}

static void fixture_free(struct fixture *fx)
{
	fake_release(&fx->fake);
	vc_informer_free(fx->inf);
	assert_false(fx->fake.bad);
	vc_kube_free(fx->kube);
	assert_int_equal(fx->rec.inconsistent, 0);
	pthread_mutex_destroy(&fx->fake.lock);
	pthread_cond_destroy(&fx->fake.cond);
	pthread_mutex_destroy(&fx->rec.lock);
	free(fx);
}

/* The cache's contents as sorted "key@rv" words. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void cache_desc(struct vc_informer *inf, char *buf, size_t len)
{
	struct vc_objs objs;
	char *descs[64], d[128];
	size_t i, at = 0;

	assert_int_equal(vc_cache_list(vc_informer_cache(inf), &objs), 0);
	assert_true(objs.count <= VC_ARRAY_SIZE(descs));
	for (i = 0; i < objs.count; i++) {
		obj_desc(objs.items[i], d, sizeof(d));
		descs[i] = strdup(d);
	}
	qsort(descs, objs.count, sizeof(*descs), cmp_str);
	buf[0] = '\0';
	for (i = 0; i < objs.count; i++) {
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? " " : "", descs[i]);
		free(descs[i]);
	}
	vc_objs_release(&objs);
}

static void assert_rv(struct vc_informer *inf, const char *want)
{
	char rv[VC_INFORMER_RV_MAX];

	assert_int_equal(vc_informer_last_rv(inf, rv, sizeof(rv)), 0);
	assert_string_equal(rv, want);
}

/* ---- tests ----------------------------------------------------------------------------------- */

static void test_list_then_watch_in_order(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 ns/a@5 ns/b@6 ns/c@7", 0, 0 },
		{ 'W', "+ns/d@11 ~ns/a@12 -ns/b@13 B@20", 0, 0 },
		{ 'W', "~ns/d@21 B@25", 0, 0 },
	};
	struct vc_informer_opts o = { .namespace = "ns",
				      .label_selector = "app=x",
				      .field_selector = "spec.nodeName=n1" };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), &o);
	struct vc_informer_stats st;
	char buf[1024];

	(void)state;
	assert_false(vc_informer_has_synced(fx->inf));
	assert_rv(fx->inf, "");
	run_script(fx);
	assert_true(vc_informer_has_synced(fx->inf));
	assert_int_equal(vc_informer_wait_synced(fx->inf, 0), 0);
	/* Pages of 2 through the continue token; each watch from the last version seen. */
	assert_string_equal(fx->fake.calls,
			    "list ns=ns limit=2 continue= label=app=x field=spec.nodeName=n1\n"
			    "list ns=ns limit=2 continue=c1 label=app=x field=spec.nodeName=n1\n"
			    "watch ns=ns rv=10 bookmarks=1 timeout=60 label=app=x "
			    "field=spec.nodeName=n1\n"
			    "watch ns=ns rv=20 bookmarks=1 timeout=60 label=app=x "
			    "field=spec.nodeName=n1\n"
			    "watch ns=ns rv=25 bookmarks=1 timeout=60 label=app=x "
			    "field=spec.nodeName=n1\n");
	assert_string_equal(fx->rec.log, "add ns/a@5\n"
					 "add ns/b@6\n"
					 "add ns/c@7\n"
					 "add ns/d@11\n"
					 "update ns/a@5 -> ns/a@12\n"
					 "delete ns/b@13\n"
					 "update ns/d@11 -> ns/d@21\n");
	assert_rv(fx->inf, "25");
	cache_desc(fx->inf, buf, sizeof(buf));
	assert_string_equal(buf, "ns/a@12 ns/c@7 ns/d@21");
	assert_int_equal(vc_cache_index_count(vc_informer_cache(fx->inf), "namespace", "ns"), 3);
	vc_informer_get_stats(fx->inf, &st);
	assert_int_equal(st.lists, 1);
	assert_int_equal(st.watches, 3);
	assert_int_equal(st.events, 4);
	assert_int_equal(st.bookmarks, 2);
	assert_int_equal(st.expired, 0);
	assert_int_equal(fx->fake.nsleeps, 0);
	fixture_free(fx);
}

/* A list handler: the first list's objects as each page arrives, and the list calls so far. */
static struct fixture *listed_fx;

static void rec_listed(void *ctx, json_t *obj)
{
	struct recorder *rec = ctx;
	const char *c;
	char d[128];
	int lists = 0;

	obj_desc(obj, d, sizeof(d));
	pthread_mutex_lock(&listed_fx->fake.lock);
	for (c = listed_fx->fake.calls; (c = strstr(c, "list ")); c++)
		lists++;
	pthread_mutex_unlock(&listed_fx->fake.lock);
	pthread_mutex_lock(&rec->lock);
	logf_to(rec->log, "listed %s lists=%d synced=%d cached=%zu\n", d, lists,
		(int)vc_informer_has_synced(rec->inf), vc_cache_count(vc_informer_cache(rec->inf)));
	pthread_mutex_unlock(&rec->lock);
}

/*
 * A list handler sees each page of the first list as soon as that page is in, before the
 * next page is asked for and before the cache or has_synced show any of it; on_add follows for
 * every object once the list is complete. A relist does not call it.
 */
static void test_first_list_pages_handed_over(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 ns/a@1 ns/b@2 ns/c@3", 0, 0 },
		{ 'W', "~ns/a@11", VC_EGONE, 0 },
		{ 'L', "rv=20 ns/a@11 ns/c@15", 0, 0 },
		{ 'W', "", 0, 0 },
	};
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);
	(void)state;
	listed_fx = fx;
	assert_int_equal(vc_informer_add_list_handler(fx->inf, rec_listed, &fx->rec), 0);
	run_script(fx);
	assert_int_equal(vc_informer_add_list_handler(fx->inf, rec_listed, &fx->rec), VC_EINVAL);
	assert_string_equal(fx->rec.log, "listed ns/a@1 lists=1 synced=0 cached=0\n"
					 "listed ns/b@2 lists=1 synced=0 cached=0\n"
					 "listed ns/c@3 lists=2 synced=0 cached=0\n"
					 "add ns/a@1\n"
					 "add ns/b@2\n"
					 "add ns/c@3\n"
					 "update ns/a@1 -> ns/a@11\n"
					 "update ns/c@3 -> ns/c@15\n"
					 "tombstone ns/b@2\n");
	fixture_free(fx);
}

/*
 * first_list_from_cache: the first list's first request asks for resourceVersion 0 (the API
 * server's watch cache); its next page goes by the continue token alone, and a relist reads
 * etcd again.
 */
static void test_first_list_from_watch_cache(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 ns/a@1 ns/b@2 ns/c@3", 0, 0 },
		{ 'W', "", VC_EGONE, 0 },
		{ 'L', "rv=20 ns/a@1", 0, 0 },
		{ 'W', "", 0, 0 },
	};
	struct vc_informer_opts o = { .first_list_from_cache = true };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), &o);

	(void)state;
	run_script(fx);
	assert_string_equal(fx->fake.list_rvs, "0 - -");
	fixture_free(fx);
}

static void test_relist_on_gone_synthesizes_changes(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 ns/a@1 ns/b@2 ns/c@3 ns/e@4", 0, 0 },
		{ 'W', "~ns/a@11", VC_EGONE, 0 },
		/* While the informer was not watching: b deleted, c changed, d created. */
		{ 'L', "rv=20 ns/a@11 ns/c@15 ns/d@16 ns/e@4", 0, 0 },
		{ 'W', "+ns/f@21", 0, 0 },
	};
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);
	struct vc_informer_stats st;
	char buf[1024];

	(void)state;
	run_script(fx);
	assert_string_equal(fx->rec.log, "add ns/a@1\n"
					 "add ns/b@2\n"
					 "add ns/c@3\n"
					 "add ns/e@4\n"
					 "update ns/a@1 -> ns/a@11\n"
					 "update ns/c@3 -> ns/c@15\n"
					 "add ns/d@16\n"
					 "tombstone ns/b@2\n"
					 "add ns/f@21\n");
	cache_desc(fx->inf, buf, sizeof(buf));
	assert_string_equal(buf, "ns/a@11 ns/c@15 ns/d@16 ns/e@4 ns/f@21");
	assert_rv(fx->inf, "21");
	vc_informer_get_stats(fx->inf, &st);
	assert_int_equal(st.lists, 2);
	assert_int_equal(st.expired, 1);
	/* The first expiry relists at once. */
	assert_int_equal(fx->fake.nsleeps, 0);
	assert_string_equal(fx->fake.calls,
			    "list ns= limit=2 continue= label= field=\n"
			    "list ns= limit=2 continue=c1 label= field=\n"
			    "watch ns= rv=10 bookmarks=1 timeout=60 label= field=\n"
			    "list ns= limit=2 continue= label= field=\n"
			    "list ns= limit=2 continue=c1 label= field=\n"
			    "watch ns= rv=20 bookmarks=1 timeout=60 label= field=\n"
			    "watch ns= rv=21 bookmarks=1 timeout=60 label= field=\n");
	fixture_free(fx);
}

static void test_error_events_410_and_too_old(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 a@1", 0, 0 },	 { 'W', "+b@11 E410 +never@99", 0, 0 },
		{ 'L', "rv=20 a@1 b@11", 0, 0 }, { 'W', "~a@21 Eold", 0, 0 },
		{ 'L', "rv=30 b@11", 0, 0 },
	};
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);
	struct vc_informer_stats st;

	(void)state;
	run_script(fx);
	/* Events after the ERROR are not delivered; relists report only what changed. */
	assert_string_equal(fx->rec.log, "add a@1\n"
					 "add b@11\n"
					 "update a@1 -> a@21\n"
					 "tombstone a@21\n");
	assert_true(logged("msg=\"informer watch expired, relisting\" resource=pods "
			   "message=\"too old resource version: 5 (9)\"\n"));
	vc_informer_get_stats(fx->inf, &st);
	assert_int_equal(st.expired, 2);
	assert_int_equal(st.lists, 3);
	assert_int_equal(fx->fake.nsleeps, 0);
	assert_rv(fx->inf, "30");
	fixture_free(fx);
}

static void test_repeated_expiry_backs_off(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 a@1", 0, 0 }, { 'W', "E410", 0, 0 },
		{ 'L', "rv=10 a@1", 0, 0 }, { 'W', "", VC_EGONE, 0 },
		{ 'L', "rv=12 a@1", 0, 0 }, { 'W', "+b@13", 0, 0 },
		{ 'W', "E410", 0, 0 },	    { 'L', "rv=14 a@1 b@13", 0, 0 },
	};
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);

	(void)state;
	run_script(fx);
	/*
	 * The second expiry right after a relist waits 800 ms (rand 0: no jitter); once a watch
	 * made progress the next expiry relists at once again.
	 */
	assert_int_equal(fx->fake.nsleeps, 1);
	assert_int_equal(fx->fake.sleeps[0], 800 * NSEC_MS);
	assert_string_equal(fx->rec.log, "add a@1\nadd b@13\n");
	fixture_free(fx);
}

static void test_other_error_event_relists_after_backoff(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 a@1", 0, 0 },
		{ 'W', "+b@11 E500", 0, 0 },
		{ 'L', "rv=20 a@1 b@11 c@12", 0, 0 },
	};
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);
	struct vc_informer_stats st;

	(void)state;
	run_script(fx);
	assert_string_equal(fx->rec.log, "add a@1\nadd b@11\nadd c@12\n");
	assert_true(logged("msg=\"informer watch error event\" resource=pods code=500 "
			   "reason=InternalError message=\"etcd is sad\"\n"));
	vc_informer_get_stats(fx->inf, &st);
	assert_int_equal(st.watch_errors, 1);
	assert_int_equal(st.expired, 0);
	/* The watch delivered an event first, so the backoff starts over at 800 ms. */
	assert_int_equal(fx->fake.nsleeps, 1);
	assert_int_equal(fx->fake.sleeps[0], 800 * NSEC_MS);
	fixture_free(fx);
}

static void test_backoff_is_capped_exponential_and_resets(void **state)
{
	static const struct step steps[] = {
		{ 'L', "", VC_EIO, 0 },		  /* list fails: 800 ms */
		{ 'L', "", VC_ESERVER, 0 },	  /* 1.6 s */
		{ 'L', "rv=10 a@1", 0, 0 },	  /* a good list resets the backoff */
		{ 'W', "", VC_EIO, 0 },		  /* 800 ms */
		{ 'W', "", VC_EIO, 0 },		  /* 1.6 s */
		{ 'W', "", VC_ETIMEDOUT, 0 },	  /* 3.2 s */
		{ 'W', "", VC_EIO, 0 },		  /* 6.4 s */
		{ 'W', "", VC_EIO, 0 },		  /* 12.8 s */
		{ 'W', "", VC_EIO, 0 },		  /* 25.6 s */
		{ 'W', "", VC_EIO, 0 },		  /* 30 s (cap) */
		{ 'W', "", VC_EIO, 0 },		  /* 30 s */
		{ 'W', "+b@11", VC_EIO, 0 },	  /* progress, then a break: 800 ms again */
		{ 'W', "", VC_EUNAUTHORIZED, 0 }, /* 1.6 s */
	};
	static const int64_t want[] = { 800,   1600,  800,   1600,  3200, 6400,
					12800, 25600, 30000, 30000, 800,  1600 };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);
	struct vc_informer_stats st;
	size_t i;

	(void)state;
	run_script(fx);
	assert_int_equal(fx->fake.nsleeps, VC_ARRAY_SIZE(want));
	for (i = 0; i < VC_ARRAY_SIZE(want); i++)
		assert_int_equal(fx->fake.sleeps[i], want[i] * NSEC_MS);
	/* Reconnects resume from the same version; no relist was needed. */
	assert_non_null(strstr(fx->fake.calls, "watch ns= rv=10 "));
	assert_null(strstr(fx->fake.calls, "watch ns= rv=1 "));
	assert_true(logged("msg=\"informer list failed\" resource=pods "
			   "error=\"scripted list failure\" code=-5\n"));
	assert_true(logged("msg=\"informer watch failed\" resource=pods rv=10 "
			   "error=\"scripted watch end\" code=-110\n"));
	assert_true(logged("msg=\"informer backing off\" resource=pods delay_ms=30000\n"));
	vc_informer_get_stats(fx->inf, &st);
	assert_int_equal(st.lists, 1);
	assert_int_equal(st.list_errors, 2);
	assert_int_equal(st.watch_errors, 10);
	assert_rv(fx->inf, "11");
	fixture_free(fx);
}

static void test_backoff_jitter(void **state)
{
	static const struct step steps[] = {
		{ 'L', "", VC_EIO, 0 }, { 'L', "", VC_EIO, 0 }, { 'L', "", VC_EIO, 0 },
		{ 'L', "", VC_EIO, 0 }, { 'L', "", VC_EIO, 0 }, { 'L', "", VC_EIO, 0 },
		{ 'L', "", VC_EIO, 0 },
	};
	/* rand 3/4 of the range: base * 1.75, capped at 30 s. */
	static const int64_t want[] = { 1400, 2800, 5600, 11200, 22400, 30000, 30000 };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);
	size_t i;

	(void)state;
	fx->fake.rand_value = UINT64_MAX / 4 * 3;
	run_script(fx);
	assert_int_equal(fx->fake.nsleeps, VC_ARRAY_SIZE(want));
	for (i = 0; i < VC_ARRAY_SIZE(want); i++)
		assert_true(fx->fake.sleeps[i] / NSEC_MS == want[i] ||
			    fx->fake.sleeps[i] / NSEC_MS == want[i] - 1);
	assert_false(vc_informer_has_synced(fx->inf));
	assert_int_equal(vc_informer_wait_synced(fx->inf, 10 * NSEC_MS), VC_ETIMEDOUT);
	fixture_free(fx);
}

static void test_list_continue_expired_relists_whole(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 a@1 b@2 c@3 d@4 e@5", 0, 2 },
	};
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);

	(void)state;
	run_script(fx);
	assert_string_equal(fx->fake.calls,
			    "list ns= limit=2 continue= label= field=\n"
			    "list ns= limit=2 continue=c1 label= field=\n"
			    "list ns= limit=2 continue=c2 label= field=\n"
			    "list ns= limit=0 continue= label= field=\n"
			    "watch ns= rv=10 bookmarks=1 timeout=60 label= field=\n");
	assert_string_equal(fx->rec.log, "add a@1\nadd b@2\nadd c@3\nadd d@4\nadd e@5\n");
	fixture_free(fx);
}

static void test_bad_and_repeated_events_are_skipped(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 a@1", 0, 0 },
		/* no name; a delete of an unknown key; the cached version again; a real change */
		{ 'W', "?x -zzz@11 ~a@1 +a@1 ~a@12", 0, 0 },
	};
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);
	struct vc_informer_stats st;

	(void)state;
	run_script(fx);
	assert_string_equal(fx->rec.log, "add a@1\nupdate a@1 -> a@12\n");
	assert_true(logged("msg=\"informer skips a watch event without a usable name\" "
			   "resource=pods type=0\n"));
	vc_informer_get_stats(fx->inf, &st);
	assert_int_equal(st.skipped, 4);
	assert_int_equal(st.events, 1); /* only the change was applied */
	assert_rv(fx->inf, "12");
	fixture_free(fx);
}

static void test_listed_items_get_kind(void **state)
{
	static const struct step steps[] = { { 'L', "rv=10 ns/a@1", 0, 0 } };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);
	json_t *o;

	(void)state;
	run_script(fx);
	o = vc_cache_get(vc_informer_cache(fx->inf), "ns/a");
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "kind")), "Pod");
	assert_string_equal(json_string_value(json_object_get(o, "apiVersion")), "v1");
	json_decref(o);
	fixture_free(fx);
}

static void test_stop_while_watching_is_prompt(void **state)
{
	static const struct step steps[] = { { 'L', "rv=10 a@1", 0, 0 } };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);
	int64_t t0;

	(void)state;
	run_script(fx); /* now blocked in the watch */
	t0 = vc_time_mono_ns();
	vc_informer_stop(fx->inf);
	assert_true(vc_time_mono_ns() - t0 < 1000 * NSEC_MS);
	vc_informer_stop(fx->inf); /* idempotent */
	assert_int_equal(vc_informer_wait_synced(fx->inf, -1), 0);
	/* A stopped informer keeps its cache readable. */
	assert_int_equal(vc_cache_count(vc_informer_cache(fx->inf)), 1);
	assert_int_equal(vc_informer_start(fx->inf), VC_EINVAL);
	fixture_free(fx);
}

static void test_stop_during_real_backoff_is_prompt(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 a@1", 0, 0 },
		{ 'W', "", VC_EIO, 0 },
		{ 'W', "", VC_EIO, 0 },
	};
	/* The real wait, 20 s: stop must cut it short. */
	struct vc_informer_opts o = { .sleep = NULL, .backoff_initial_ns = 20 * VC_NSEC_PER_SEC };
	struct fixture *fx;
	struct vc_informer_stats st;
	int64_t t0;
	int i;

	(void)state;
	fx = fixture_new(steps, VC_ARRAY_SIZE(steps), &o);
	/* fixture_new installs fake_sleep when opts.sleep is NULL: make a fresh informer. */
	vc_informer_free(fx->inf);
	o.resource = &test_pods;
	o.env_ctx = &fx->fake;
	o.rand = fake_rand;
	assert_int_equal(vc_informer_new(fx->kube, &o, &fx->inf, NULL), 0);
	assert_int_equal(vc_informer_start(fx->inf), 0);
	assert_int_equal(vc_informer_wait_synced(fx->inf, 10 * VC_NSEC_PER_SEC), 0);
	/* Wait (bounded) until the first watch failed and the informer sits in its backoff. */
	for (i = 0; i < 10000; i++) {
		vc_informer_get_stats(fx->inf, &st);
		if (st.watch_errors == 1)
			break;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	assert_int_equal(st.watch_errors, 1);
	t0 = vc_time_mono_ns();
	vc_informer_stop(fx->inf);
	assert_true(vc_time_mono_ns() - t0 < 1000 * NSEC_MS);
	vc_informer_get_stats(fx->inf, &st);
	assert_int_equal(st.watches, 1);
	fx->rec.inf = fx->inf;
	fixture_free(fx);
}

static void test_add_handler_after_start_replays_cache(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 a@1 b@2", 0, 0 },
	};
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);
	struct recorder late = { .inf = fx->inf, .tag = "late ", .packed = g_cache_flags != 0 };
	struct vc_informer_handler h = { rec_add, rec_update, rec_delete, &late };
	char *sorted;

	(void)state;
	pthread_mutex_init(&late.lock, NULL);
	run_script(fx);
	assert_int_equal(vc_informer_add_handler(fx->inf, &h), 0);
	/* The late handler sees the cache as adds (in cache order: compare as a set). */
	sorted = late.log;
	assert_non_null(strstr(sorted, "late add a@1\n"));
	assert_non_null(strstr(sorted, "late add b@2\n"));
	assert_int_equal(strlen(sorted), strlen("late add a@1\nlate add b@2\n"));
	/* A resync goes to both handlers. */
	late.log[0] = '\0';
	fx->rec.log[0] = '\0';
	assert_int_equal(vc_informer_resync_now(fx->inf), 0);
	assert_non_null(strstr(fx->rec.log, "resync a@1\n"));
	assert_non_null(strstr(late.log, "late resync b@2\n"));
	assert_int_equal(late.inconsistent, 0);
	fixture_free(fx);
	pthread_mutex_destroy(&late.lock);
}

static void test_periodic_resync(void **state)
{
	static const struct step steps[] = { { 'L', "rv=10 a@1", 0, 0 } };
	struct vc_informer_opts o = { .resync_period_ns = 5 * NSEC_MS };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), &o);
	struct vc_informer_stats st;
	int i;

	(void)state;
	run_script(fx);
	/* The resync thread runs on the real clock: wait (bounded) for two rounds. */
	for (i = 0; i < 5000; i++) {
		vc_informer_get_stats(fx->inf, &st);
		if (st.resyncs >= 2)
			break;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	assert_true(st.resyncs >= 2);
	vc_informer_stop(fx->inf);
	pthread_mutex_lock(&fx->rec.lock);
	assert_int_equal(strncmp(fx->rec.log, "add a@1\nresync a@1\nresync a@1\n", 30), 0);
	pthread_mutex_unlock(&fx->rec.lock);
	fixture_free(fx);
}

static void test_wait_synced_states(void **state)
{
	static const struct step steps[] = { { 'L', "rv=10", 0, 0 } };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);

	(void)state;
	/* Not started: nothing will ever sync. */
	assert_int_equal(vc_informer_wait_synced(fx->inf, 10 * NSEC_MS), VC_ESHUTDOWN);
	run_script(fx);
	/* An empty list syncs too. */
	assert_int_equal(vc_informer_wait_synced(fx->inf, -1), 0);
	assert_int_equal(vc_cache_count(vc_informer_cache(fx->inf)), 0);
	assert_string_equal(fx->rec.log, "");
	fixture_free(fx);
}

static void test_stop_before_sync_ends_waits(void **state)
{
	static const struct step steps[] = { { 'L', "", VC_EIO, 0 } };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);

	(void)state;
	run_script(fx); /* the second list blocks */
	fake_release(&fx->fake);
	vc_informer_stop(fx->inf);
	assert_int_equal(vc_informer_wait_synced(fx->inf, -1), VC_ESHUTDOWN);
	assert_false(vc_informer_has_synced(fx->inf));
	fixture_free(fx);
}

static void test_new_bad_arguments_and_allocation_failures(void **state)
{
	struct vc_informer_opts o = { .resource = &test_pods,
				      .namespace = "ns",
				      .label_selector = "a=b",
				      .field_selector = "x=y" };
	struct vc_cache_index bad[] = { { NULL, vc_cache_index_by_namespace, NULL } };
	struct vc_kube *kube = vc_kube_new_with_ops(&fake_ops, NULL);
	struct vc_informer *inf = (struct vc_informer *)1;
	struct vc_error err;
	long n;
	int rc;

	(void)state;
	assert_int_equal(vc_informer_new(NULL, &o, &inf, &err), VC_EINVAL);
	assert_null(inf);
	assert_string_equal(err.text, "informer needs a client and a resource");
	assert_int_equal(vc_informer_new(kube, NULL, &inf, &err), VC_EINVAL);
	assert_int_equal(vc_informer_new(kube, &(struct vc_informer_opts){ 0 }, &inf, &err),
			 VC_EINVAL);
	o.indexes = bad;
	o.nindexes = 1;
	assert_int_equal(vc_informer_new(kube, &o, &inf, &err), VC_EINVAL);
	assert_string_equal(err.text, "bad cache indexes");
	o.indexes = NULL;
	o.nindexes = 0;
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = vc_informer_new(kube, &o, &inf, &err);
		vc_alloc_fail_reset();
		if (rc == 0)
			break;
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(inf);
	}
	assert_true(n > 0);
	assert_int_equal(vc_informer_add_handler(inf, NULL), VC_EINVAL);
	vc_alloc_fail_after(0);
	assert_int_equal(vc_informer_add_handler(inf, &(struct vc_informer_handler){ 0 }),
			 VC_ENOMEM);
	vc_alloc_fail_reset();
	/* Stopped before it ran: it never will. */
	vc_informer_stop(inf);
	assert_int_equal(vc_informer_start(inf), VC_EINVAL);
	assert_int_equal(vc_informer_wait_synced(inf, -1), VC_ESHUTDOWN);
	assert_int_equal(vc_informer_resync_now(NULL), VC_EINVAL);
	assert_false(vc_informer_has_synced(NULL));
	assert_null(vc_informer_cache(NULL));
	vc_informer_free(inf);
	vc_informer_free(NULL);
	vc_informer_stop(NULL);
	vc_kube_free(kube);
}

static void test_transform_strips_managed_fields(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 ns/a@1", 0, 0 },
		{ 'W', "+ns/b@11 ~ns/a@12 -ns/b@13", 0, 0 },
	};
	struct vc_informer_opts o = { .transform = vc_informer_strip_managed_fields };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), &o);
	json_t *a;

	(void)state;
	run_script(fx);
	assert_string_equal(fx->rec.log, "add ns/a@1\nadd ns/b@11\nupdate ns/a@1 -> ns/a@12\n"
					 "delete ns/b@13\n");
	a = vc_cache_get(vc_informer_cache(fx->inf), "ns/a");
	assert_non_null(a);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(a, "metadata"), "name")), "a");
	assert_null(json_object_get(json_object_get(a, "metadata"), "managedFields"));
	json_decref(a);
	fixture_free(fx);

	/* Without a transform the field stays. */
	fx = fixture_new(steps, 1, NULL);
	run_script(fx);
	a = vc_cache_get(vc_informer_cache(fx->inf), "ns/a");
	assert_non_null(json_object_get(json_object_get(a, "metadata"), "managedFields"));
	json_decref(a);
	fixture_free(fx);
}

static void test_strip_managed_fields_copies(void **state)
{
	json_t *o = json_pack("{s:s, s:{s:s, s:[{s:s}], s:{s:s}}, s:{s:[i,i]}}", "kind", "Pod",
			      "metadata", "name", "x", "managedFields", "manager", "m", "labels",
			      "a", "b", "spec", "k", 1, 2);
	json_t *want = json_pack("{s:s, s:{s:s, s:{s:s}}, s:{s:[i,i]}}", "kind", "Pod", "metadata",
				 "name", "x", "labels", "a", "b", "spec", "k", 1, 2);
	json_t *plain = json_pack("{s:{s:s}}", "metadata", "name", "y"), *out = NULL;
	long n;
	int rc;

	(void)state;
	assert_int_equal(vc_informer_strip_managed_fields(NULL, o, false, &out), 0);
	assert_true(json_equal(out, want));
	/* A deep copy: nothing is shared with the original, which is untouched. */
	assert_ptr_not_equal(json_object_get(out, "spec"), json_object_get(o, "spec"));
	assert_ptr_not_equal(json_object_get(json_object_get(out, "metadata"), "labels"),
			     json_object_get(json_object_get(o, "metadata"), "labels"));
	assert_non_null(json_object_get(json_object_get(o, "metadata"), "managedFields"));
	json_decref(out);
	/* Nothing to strip: still a copy. */
	assert_int_equal(vc_informer_strip_managed_fields(NULL, plain, false, &out), 0);
	assert_ptr_not_equal(out, plain);
	assert_true(json_equal(out, plain));
	json_decref(out);
	assert_int_equal(
		vc_informer_strip_managed_fields(NULL, json_object_get(o, "kind"), false, &out),
		VC_EINVAL);
	assert_null(out);
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = vc_informer_strip_managed_fields(NULL, o, false, &out);
		vc_alloc_fail_reset();
		if (rc == 0)
			break;
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(out);
	}
	assert_true(n > 5);
	assert_true(json_equal(out, want));
	json_decref(out);
	assert_int_equal(o->refcount, 1);
	/* Owned (an event's object): the same object, without the field, and no allocation. */
	vc_alloc_fail_after(0);
	rc = vc_informer_strip_managed_fields(NULL, o, true, &out);
	vc_alloc_fail_reset();
	assert_int_equal(rc, 0);
	assert_ptr_equal(out, o);
	assert_int_equal(o->refcount, 2);
	assert_true(json_equal(o, want));
	json_decref(out);
	assert_int_equal(vc_informer_strip_managed_fields(NULL, plain, true, &out), 0);
	assert_ptr_equal(out, plain);
	json_decref(out);
	assert_int_equal(
		vc_informer_strip_managed_fields(NULL, json_object_get(o, "kind"), true, &out),
		VC_EINVAL);
	assert_null(out);
	json_decref(o);
	json_decref(want);
	json_decref(plain);
}

/* Counts the listed (not owned) and watched (owned) objects it sees, keeping each as it is. */
static int owned_calls, listed_calls;
static int counting_transform(void *ctx, json_t *obj, bool owned, json_t **out)
{
	(void)ctx;
	if (owned) {
		/* Ours alone: the informer holds no other reference to it or to its members. */
		assert_int_equal(obj->refcount, 1);
		assert_int_equal(json_object_get(obj, "metadata")->refcount, 1);
		owned_calls++;
	} else {
		listed_calls++;
	}
	*out = json_incref(obj);
	return 0;
}

static void test_transform_owns_only_watched_objects(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 ns/a@1 ns/c@2", 0, 0 },
		{ 'W', "+ns/b@11 ~ns/a@12 -ns/b@13", 0, 0 },
	};
	struct vc_informer_opts o = { .transform = counting_transform };
	struct fixture *fx;

	(void)state;
	owned_calls = listed_calls = 0;
	fx = fixture_new(steps, VC_ARRAY_SIZE(steps), &o);
	run_script(fx);
	assert_string_equal(fx->rec.log, "add ns/a@1\nadd ns/c@2\nadd ns/b@11\n"
					 "update ns/a@1 -> ns/a@12\ndelete ns/b@13\n");
	fixture_free(fx);
	assert_int_equal(listed_calls, 2);
	assert_int_equal(owned_calls, 3);
}

/* Fails for objects named "bad", as if memory ran out; keeps the others as they are. */
static int failing_transform(void *ctx, json_t *obj, bool owned, json_t **out)
{
	const char *name =
		json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));

	(void)ctx;
	(void)owned;
	*out = NULL;
	if (name && !strcmp(name, "bad"))
		return VC_ENOMEM;
	*out = json_incref(obj);
	return 0;
}

static void test_transform_failure_relists_after_backoff(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 a@1 bad@2", 0, 0 }, /* fails: backoff */
		{ 'L', "rv=10 a@1", 0, 0 },
		{ 'W', "+c@11 +bad@12", 0, 0 }, /* the watch ends: backoff, relist */
		{ 'L', "rv=13 a@1 c@11 d@13", 0, 0 },
	};
	struct vc_informer_opts o = { .transform = failing_transform };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), &o);
	struct vc_informer_stats st;

	(void)state;
	run_script(fx);
	assert_string_equal(fx->rec.log, "add a@1\nadd c@11\nadd d@13\n");
	assert_true(logged("msg=\"informer transform failed\" resource=pods key=bad "
			   "error=\"out of memory\"\n"));
	vc_informer_get_stats(fx->inf, &st);
	assert_int_equal(st.list_errors, 1);
	assert_int_equal(st.watch_errors, 1);
	assert_int_equal(st.lists, 2);
	assert_int_equal(fx->fake.nsleeps, 2);
	assert_int_equal(fx->fake.sleeps[0], 800 * NSEC_MS);
	/* The watch made progress before it failed: the backoff starts over. */
	assert_int_equal(fx->fake.sleeps[1], 800 * NSEC_MS);
	fixture_free(fx);
}

static void test_last_rv_buffer(void **state)
{
	static const struct step steps[] = { { 'L', "rv=123456", 0, 0 } };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);
	char small[4] = "xyz";

	(void)state;
	run_script(fx);
	assert_int_equal(vc_informer_last_rv(fx->inf, small, sizeof(small)), VC_E2BIG);
	assert_string_equal(small, "");
	assert_rv(fx->inf, "123456");
	assert_int_equal(vc_informer_last_rv(fx->inf, NULL, 4), VC_EINVAL);
	fixture_free(fx);
}

/* ---- packed caches ----------------------------------------------------------------------------
 */

/* A handler that writes down every object it gets, whole (sorted keys), and pointer identities. */
struct capture {
	pthread_mutex_t lock;
	char log[LOG_MAX];
};

static void cap_obj(struct capture *cap, const char *what, const json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);

	logf_to(cap->log, " %s=%s refs=%zu", what, s ? s : "?", o->refcount);
	free(s);
}

static void cap_add(void *ctx, json_t *obj)
{
	struct capture *cap = ctx;

	pthread_mutex_lock(&cap->lock);
	logf_to(cap->log, "add");
	cap_obj(cap, "obj", obj);
	logf_to(cap->log, "\n");
	pthread_mutex_unlock(&cap->lock);
}

static void cap_update(void *ctx, json_t *old_obj, json_t *new_obj)
{
	struct capture *cap = ctx;

	pthread_mutex_lock(&cap->lock);
	logf_to(cap->log, "update same=%d", old_obj == new_obj);
	cap_obj(cap, "old", old_obj);
	if (old_obj != new_obj)
		cap_obj(cap, "new", new_obj);
	logf_to(cap->log, "\n");
	pthread_mutex_unlock(&cap->lock);
}

static void cap_delete(void *ctx, json_t *obj, bool unknown)
{
	struct capture *cap = ctx;

	pthread_mutex_lock(&cap->lock);
	logf_to(cap->log, "%s", unknown ? "tombstone" : "delete");
	cap_obj(cap, "obj", obj);
	logf_to(cap->log, "\n");
	pthread_mutex_unlock(&cap->lock);
}

/*
 * An informer on a packed cache: handlers get whole objects - the listed or watched one as new,
 * a private parse of the cached one as old (refcount 1: nobody else holds it), the event's
 * object on a watched delete, a parse on a tombstone - and a resync hands one parse as both.
 */
static void test_packed_cache_handlers(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 ns/a@1 ns/b@2 ns/c@3", 0, 0 },
		{ 'W', "~ns/a@12 -ns/b@13 +ns/d@14 ~ns/a@12", VC_EGONE, 0 },
		{ 'L', "rv=20 ns/a@12 ns/d@14", 0, 0 },
	};
	struct vc_informer_opts o = { .cache_flags = VC_CACHE_PACKED,
				      .transform = vc_informer_strip_managed_fields };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), &o);
	struct capture cap = { .log = "" };
	struct vc_informer_handler h = { cap_add, cap_update, cap_delete, &cap };
	struct vc_informer_stats st;
	char buf[1024];
	json_t *a1, *a2;

	(void)state;
	assert_true(fx->rec.packed);
	pthread_mutex_init(&cap.lock, NULL);
	assert_int_equal(vc_informer_add_handler(fx->inf, &h), 0);
	run_script(fx);
	vc_informer_stop(fx->inf);
	/* The recorder saw the usual story (its check_cache compared contents on each call). */
	assert_string_equal(fx->rec.log, "add ns/a@1\nadd ns/b@2\nadd ns/c@3\n"
					 "update ns/a@1 -> ns/a@12\ndelete ns/b@13\nadd ns/d@14\n"
					 "tombstone ns/c@3\n");
#define LISTED(n, rv)                                                                        \
	"{\"apiVersion\":\"v1\",\"data\":{\"v\":\"" rv "\"},\"kind\":\"Pod\",\"metadata\":{" \
	"\"name\":\"" n "\",\"namespace\":\"ns\",\"resourceVersion\":\"" rv "\"}}"
#define WATCHED(n, rv)                                                                        \
	"{\"data\":{\"v\":\"" rv "\"},\"metadata\":{\"name\":\"" n "\",\"namespace\":\"ns\"," \
	"\"resourceVersion\":\"" rv "\"}}"
	/*
	 * Every object a handler gets is held by the informer alone: the listed ones by the
	 * relist's deltas (the List is gone by then, refs=1), the watched ones by the event and the
	 * transform's result, which is the event's object reduced in place (refs=2), and the old
	 * ones are private parses (refs=1).
	 */
	static const char *const want[] = {
		"add obj=" LISTED("a", "1") " refs=1",
		"add obj=" LISTED("b", "2") " refs=1",
		"add obj=" LISTED("c", "3") " refs=1",
		"update same=0 old=" LISTED("a", "1") " refs=1 new=" WATCHED("a", "12") " refs=2",
		"delete obj=" WATCHED("b", "13") " refs=2",
		"add obj=" WATCHED("d", "14") " refs=2",
		"tombstone obj=" LISTED("c", "3") " refs=1",
	};
	char wanted[2048];
	size_t n = 0;

	for (size_t i = 0; i < VC_ARRAY_SIZE(want); i++)
		n += (size_t)snprintf(wanted + n, sizeof(wanted) - n, "%s\n", want[i]);
	assert_true(n < sizeof(wanted));
	assert_string_equal(cap.log, wanted);
	vc_informer_get_stats(fx->inf, &st);
	assert_int_equal(st.events, 3);
	assert_int_equal(st.skipped, 1); /* the repeated ~ns/a@12: no parse, no handler call */
	cache_desc(fx->inf, buf, sizeof(buf));
	assert_string_equal(buf, "ns/a@12 ns/d@14");

	/* A resync: one parse per object, handed as both old and new. */
	cap.log[0] = '\0';
	fx->rec.log[0] = '\0';
	assert_int_equal(vc_informer_resync_now(fx->inf), 0);
	assert_non_null(strstr(fx->rec.log, "resync ns/a@12\n"));
	assert_non_null(strstr(fx->rec.log, "resync ns/d@14\n"));
	assert_int_equal(strlen(fx->rec.log), strlen("resync ns/a@12\nresync ns/d@14\n"));
	assert_non_null(strstr(cap.log, "update same=1 old=" WATCHED("a", "12") " refs=1\n"));
	assert_non_null(strstr(cap.log, "update same=1 old=" WATCHED("d", "14") " refs=1\n"));
#undef LISTED
#undef WATCHED
	/* Reads of the cache are private copies. */
	a1 = vc_cache_get(vc_informer_cache(fx->inf), "ns/a");
	a2 = vc_cache_get(vc_informer_cache(fx->inf), "ns/a");
	assert_non_null(a1);
	assert_ptr_not_equal(a1, a2);
	assert_true(json_equal(a1, a2));
	json_decref(a1);
	json_decref(a2);
	fixture_free(fx);
	pthread_mutex_destroy(&cap.lock);
}

/* A resync whose parse runs out of memory reports it and skips the object. */
static void test_packed_resync_out_of_memory(void **state)
{
	static const struct step steps[] = { { 'L', "rv=10 a@1 b@2", 0, 0 } };
	struct vc_informer_opts o = { .cache_flags = VC_CACHE_PACKED };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), &o);
	struct capture cap = { .log = "" };
	struct vc_informer_handler h = { cap_add, cap_update, cap_delete, &cap };
	struct vc_informer_stats st;
	long budget;
	int rc;

	(void)state;
	pthread_mutex_init(&cap.lock, NULL);
	run_script(fx);
	vc_informer_stop(fx->inf);
	fx->rec.log[0] = '\0';
	for (budget = 0;; budget++) {
		fx->rec.log[0] = '\0';
		vc_alloc_fail_after(budget);
		rc = vc_informer_resync_now(fx->inf);
		vc_alloc_fail_reset();
		if (rc == 0)
			break;
		assert_int_equal(rc, VC_ENOMEM);
		assert_true(budget < 1000);
	}
	assert_true(budget > 0);
	assert_int_equal(strlen(fx->rec.log), strlen("resync a@1\nresync b@2\n"));
	/* The recorder's own cache reads failed too while allocations did. */
	fx->rec.inconsistent = 0;
	vc_informer_get_stats(fx->inf, &st);
	assert_int_equal(st.resyncs, 1);
	/* A late handler's replay that fails is not registered. */
	vc_alloc_fail_after(0);
	assert_int_equal(vc_informer_add_handler(fx->inf, &h), VC_ENOMEM);
	vc_alloc_fail_reset();
	assert_int_equal(vc_informer_add_handler(fx->inf, &h), 0);
	assert_non_null(strstr(cap.log, "add obj={\"apiVersion\":\"v1\",\"data\":{\"v\":\"1\"}"));
	fx->rec.log[0] = '\0';
	cap.log[0] = '\0';
	assert_int_equal(vc_informer_resync_now(fx->inf), 0);
	assert_int_equal(strlen(cap.log) > 0, 1);
	assert_null(strstr(cap.log, "same=0"));
	fixture_free(fx);
	pthread_mutex_destroy(&cap.lock);
}

/*
 * A relist with a continue token that expires half-way, into a cache that already holds objects:
 * what the first pages staged is dropped, the whole list compared with the cache.
 */
static void test_relist_continue_expired_compares_whole(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 a@1 b@2 c@3", 0, 0 },
		{ 'W', "", VC_EGONE, 0 },
		{ 'L', "rv=20 a@1 b@5 d@6 e@7 f@8", 0, 2 },
	};
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), NULL);
	char buf[256];

	(void)state;
	run_script(fx);
	assert_string_equal(fx->rec.log, "add a@1\nadd b@2\nadd c@3\n"
					 "update b@2 -> b@5\nadd d@6\nadd e@7\nadd f@8\n"
					 "tombstone c@3\n");
	cache_desc(fx->inf, buf, sizeof(buf));
	assert_string_equal(buf, "a@1 b@5 d@6 e@7 f@8");
	assert_rv(fx->inf, "20");
	fixture_free(fx);
}

/* ---- memory held by a relist ----------------------------------------------------------------- */

/*
 * jansson's allocations, counted: live bytes and their peak (malloc_usable_size, so that strings
 * jansson made may still be freed with free()). Installed for the whole binary, on top of
 * vc_malloc so that failure injection still reaches jansson.
 */
static long json_live, json_peak;

static void *counting_json_malloc(size_t size)
{
	void *p = vc_malloc(size);
	long live, peak;

	if (!p)
		return NULL;
	live = __atomic_add_fetch(&json_live, (long)malloc_usable_size(p), __ATOMIC_RELAXED);
	peak = __atomic_load_n(&json_peak, __ATOMIC_RELAXED);
	while (live > peak && !__atomic_compare_exchange_n(&json_peak, &peak, live, false,
							   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return p;
}

static void counting_json_free(void *p)
{
	if (!p)
		return;
	__atomic_sub_fetch(&json_live, (long)malloc_usable_size(p), __ATOMIC_RELAXED);
	vc_free(p);
}

enum {
	MEM_PAGES = 20,
	MEM_PAGE_SIZE = 25,
	MEM_OBJS = MEM_PAGES * MEM_PAGE_SIZE
};

/* The most jansson bytes held at once, beyond what was held before, by one list of spec. */
static long relist_peak(const char *spec, unsigned flags, struct vc_informer_stats *st)
{
	const struct step steps[] = { { 'L', spec, 0, 0 } };
	struct vc_informer_opts o = { .cache_flags = flags,
				      .page_size = MEM_PAGE_SIZE,
				      .transform = vc_informer_strip_managed_fields };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), &o);
	long base;

	base = __atomic_load_n(&json_live, __ATOMIC_RELAXED);
	__atomic_store_n(&json_peak, base, __ATOMIC_RELAXED);
	run_script(fx);
	vc_informer_get_stats(fx->inf, st);
	assert_int_equal(vc_cache_count(vc_informer_cache(fx->inf)), MEM_OBJS);
	base = __atomic_load_n(&json_peak, __ATOMIC_RELAXED) - base;
	fixture_free(fx);
	return base;
}

/*
 * A paged list of MEM_PAGES pages into a packed cache holds about one page of parsed objects at
 * a time (the page, its transformed objects one by one, then one change per handler call),
 * where an unpacked cache - and a packed one before staged relists - holds all of them before
 * the cache takes them.
 */
static void test_packed_relist_holds_one_page(void **state)
{
	static char spec[MEM_OBJS * 16 + 16];
	struct vc_informer_stats st;
	long all, paged, page;
	size_t at;
	int i;

	(void)state;
	at = (size_t)snprintf(spec, sizeof(spec), "rv=10");
	for (i = 0; i < MEM_OBJS; i++)
		at += (size_t)snprintf(spec + at, sizeof(spec) - at, " ns/pod-%d@%d", i, i + 1);
	all = relist_peak(spec, 0, &st);
	assert_int_equal(st.lists, 1);
	paged = relist_peak(spec, VC_CACHE_PACKED, &st);
	assert_int_equal(st.lists, 1);
	/* The unpacked peak is every object plus one page: about MEM_PAGES + 1 pages. */
	page = all / (MEM_PAGES + 1);
	print_message("relist of %d objects in %d pages: parsed bytes held at most: unpacked %ld, "
		      "packed %ld (a page is about %ld)\n",
		      MEM_OBJS, MEM_PAGES, all, paged, page);
	assert_true(paged < 3 * page);
	assert_true(all > 6 * paged);
}

/* A handler that makes every allocation fail from its first on_add on. */
static void fail_from_now(void *ctx, json_t *obj)
{
	int *armed = ctx;

	(void)obj;
	if (!*armed)
		vc_alloc_fail_after(0);
	*armed = 1;
}

/* The backoff after the failed relist: allocations work again. */
static void sleep_and_heal(void *ctx, int64_t ns)
{
	vc_alloc_fail_reset();
	fake_sleep(ctx, ns);
}

/*
 * Packed: a relist whose changes cannot be parsed for the handlers (out of memory) delivers what
 * it can, takes the objects it could not deliver out of the cache again and fails; the next
 * relist reports them, and nothing is missed or repeated.
 */
static void test_packed_relist_undelivered_changes_come_again(void **state)
{
	static const struct step steps[] = {
		{ 'L', "rv=10 a@1 b@2 c@3", 0, 0 },
		{ 'L', "rv=11 a@1 b@2 c@3", 0, 0 },
	};
	struct vc_informer_opts o = { .cache_flags = VC_CACHE_PACKED, .sleep = sleep_and_heal };
	struct fixture *fx = fixture_new(steps, VC_ARRAY_SIZE(steps), &o);
	int armed = 0;
	struct vc_informer_handler h = { .on_add = fail_from_now, .ctx = &armed };
	struct vc_informer_stats st;
	char buf[256];

	(void)state;
	assert_int_equal(vc_informer_add_handler(fx->inf, &h), 0);
	run_script(fx);
	assert_string_equal(fx->rec.log, "add a@1\nadd b@2\nadd c@3\n");
	assert_true(logged("msg=\"informer cannot parse listed changes for its handlers\" "
			   "resource=pods failed=2 retried=2 lost_tombstones=0"));
	vc_informer_get_stats(fx->inf, &st);
	assert_int_equal(st.lists, 1);
	assert_int_equal(st.list_errors, 1);
	assert_int_equal(fx->fake.nsleeps, 1);
	cache_desc(fx->inf, buf, sizeof(buf));
	assert_string_equal(buf, "a@1 b@2 c@3");
	assert_rv(fx->inf, "11");
	fixture_free(fx);
}

static int packed_group(void **state)
{
	(void)state;
	g_cache_flags = VC_CACHE_PACKED;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_list_then_watch_in_order, clear_log),
		cmocka_unit_test_setup(test_relist_on_gone_synthesizes_changes, clear_log),
		cmocka_unit_test_setup(test_first_list_pages_handed_over, clear_log),
		cmocka_unit_test_setup(test_first_list_from_watch_cache, clear_log),
		cmocka_unit_test_setup(test_error_events_410_and_too_old, clear_log),
		cmocka_unit_test_setup(test_repeated_expiry_backs_off, clear_log),
		cmocka_unit_test_setup(test_other_error_event_relists_after_backoff, clear_log),
		cmocka_unit_test_setup(test_backoff_is_capped_exponential_and_resets, clear_log),
		cmocka_unit_test_setup(test_backoff_jitter, clear_log),
		cmocka_unit_test_setup(test_list_continue_expired_relists_whole, clear_log),
		cmocka_unit_test_setup(test_bad_and_repeated_events_are_skipped, clear_log),
		cmocka_unit_test_setup(test_listed_items_get_kind, clear_log),
		cmocka_unit_test_setup(test_stop_while_watching_is_prompt, clear_log),
		cmocka_unit_test_setup(test_stop_during_real_backoff_is_prompt, clear_log),
		cmocka_unit_test_setup(test_add_handler_after_start_replays_cache, clear_log),
		cmocka_unit_test_setup(test_periodic_resync, clear_log),
		cmocka_unit_test_setup(test_wait_synced_states, clear_log),
		cmocka_unit_test_setup(test_stop_before_sync_ends_waits, clear_log),
		cmocka_unit_test_setup(test_new_bad_arguments_and_allocation_failures, clear_log),
		cmocka_unit_test_setup(test_transform_strips_managed_fields, clear_log),
		cmocka_unit_test_setup(test_strip_managed_fields_copies, clear_log),
		cmocka_unit_test_setup(test_transform_owns_only_watched_objects, clear_log),
		cmocka_unit_test_setup(test_transform_failure_relists_after_backoff, clear_log),
		cmocka_unit_test_setup(test_last_rv_buffer, clear_log),
		cmocka_unit_test_setup(test_relist_continue_expired_compares_whole, clear_log),
		cmocka_unit_test_setup(test_packed_relist_holds_one_page, clear_log),
	};

	/* The scripts again, on packed caches: the same handler calls, contents instead of
	 * pointers. */
	const struct CMUnitTest packed[] = {
		cmocka_unit_test_setup(test_list_then_watch_in_order, clear_log),
		cmocka_unit_test_setup(test_relist_on_gone_synthesizes_changes, clear_log),
		cmocka_unit_test_setup(test_first_list_pages_handed_over, clear_log),
		cmocka_unit_test_setup(test_first_list_from_watch_cache, clear_log),
		cmocka_unit_test_setup(test_error_events_410_and_too_old, clear_log),
		cmocka_unit_test_setup(test_bad_and_repeated_events_are_skipped, clear_log),
		cmocka_unit_test_setup(test_listed_items_get_kind, clear_log),
		cmocka_unit_test_setup(test_add_handler_after_start_replays_cache, clear_log),
		cmocka_unit_test_setup(test_periodic_resync, clear_log),
		cmocka_unit_test_setup(test_transform_strips_managed_fields, clear_log),
		cmocka_unit_test_setup(test_transform_owns_only_watched_objects, clear_log),
		cmocka_unit_test_setup(test_packed_cache_handlers, clear_log),
		cmocka_unit_test_setup(test_packed_resync_out_of_memory, clear_log),
		cmocka_unit_test_setup(test_repeated_expiry_backs_off, clear_log),
		cmocka_unit_test_setup(test_other_error_event_relists_after_backoff, clear_log),
		cmocka_unit_test_setup(test_list_continue_expired_relists_whole, clear_log),
		cmocka_unit_test_setup(test_relist_continue_expired_compares_whole, clear_log),
		cmocka_unit_test_setup(test_transform_failure_relists_after_backoff, clear_log),
		cmocka_unit_test_setup(test_stop_before_sync_ends_waits, clear_log),
		cmocka_unit_test_setup(test_packed_relist_undelivered_changes_come_again,
				       clear_log),
	};
	int failed;

	json_set_alloc_funcs(counting_json_malloc, counting_json_free);
	vc_log_set_verbosity(1);
	vc_log_set_sink(capture_log, NULL);
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("packed", packed, packed_group, NULL);
	return failed;
}
