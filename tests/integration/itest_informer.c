/*
 * itest_informer - an informer on ConfigMaps against a real API server, for
 * tests/e2e/test_informer.sh.
 *
 *   itest_informer --kubeconfig FILE [--namespace NS] [--restart-cmd CMD] [-v N]
 *
 * It makes ConfigMaps change through the REST client and checks that an informer (label
 * selector, pages of 2, 5 s watches) reports every create, update and delete exactly once and
 * in order per object, with the cache holding each event's outcome when the handler runs:
 *
 *   live      changes while the informer watches: ADDED, MODIFIED and DELETED events.
 *   restart   with --restart-cmd: the command restarts kube-apiserver (the e2e test passes
 *             cluster/restart-apiserver.sh, which also writes to etcd while the server is down,
 *             so the restarted watch cache starts past the informer's resourceVersion). The
 *             informer reconnects with backoff by itself; changes made right after the restart
 *             reach it by watch or by relist.
 *   expiry    (after the restart) the informer's next watch is held back by a proxy in front of
 *             the client while objects are created, changed and deleted, and is then sent with
 *             resourceVersion "1", which the restarted server's watch cache no longer holds: it
 *             answers 410 "too old resource version" and the informer must relist and report
 *             the missed changes as adds, updates and tombstones. (A kube-apiserver that never
 *             restarted keeps every event since its start in its watch cache, so version 1 is
 *             not too old there: without --restart-cmd this phase is skipped.)
 *
 * At the end the cache must equal a fresh list from the server. Prints "ok   all checks
 * passed" and exits 0, or prints what differs and exits 1.
 */
#include "vc_prelude.h"

#include <pthread.h>
#include <time.h>

#include "vc_alloc.h"
#include "vc_cache.h"
#include "vc_flags.h"
#include "vc_informer.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_time.h"

#define LABEL_KEY   "caldera.dev/itest"
#define LABEL_VALUE "informer"

struct opts {
	const char *kubeconfig;
	const char *master;
	const char *namespace;
	const char *restart_cmd;
	int converge_seconds;
};

static const struct vc_flag flags[] = {
	{ "kubeconfig", VC_FLAG_STRING, "", 0, 0, offsetof(struct opts, kubeconfig),
	  "Path to kubeconfig file with authorization and master location information." },
	{ "master", VC_FLAG_STRING, "", 0, 0, offsetof(struct opts, master),
	  "The address of the Kubernetes API server (overrides any value in kubeconfig)" },
	{ "namespace", VC_FLAG_STRING, "itest-informer", 0, 0, offsetof(struct opts, namespace),
	  "The namespace to make ConfigMaps in (created when missing)" },
	{ "restart-cmd", VC_FLAG_STRING, "", 0, 0, offsetof(struct opts, restart_cmd),
	  "A shell command that restarts kube-apiserver (the restart phase runs only with it)" },
	{ "converge-seconds", VC_FLAG_INT, "90", 1, 3600, offsetof(struct opts, converge_seconds),
	  "How long the informer may take to report a phase's changes" },
};

static struct opts o;
static struct vc_kube *kube;
static int failures;

#define CHECK(cond, ...)                                       \
	do {                                                   \
		if (!(cond)) {                                 \
			fprintf(stderr, "FAIL: " __VA_ARGS__); \
			fputc('\n', stderr);                   \
			failures++;                            \
		}                                              \
	} while (0)

/* ---- the proxy in front of the client: holds watches back, forces an old version ---------- */

struct proxy {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool hold;	     /* watches wait while set */
	bool held;	     /* a watch is waiting */
	bool force_old;	     /* the next watch asks for resourceVersion "1" */
	unsigned watches;    /* watch calls that reached the server */
	unsigned forced_rcs; /* watches sent with resourceVersion "1" */
	int forced_rc;	     /* how the last of them ended */
};

static struct proxy px = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static int px_list(void *ctx, const struct vc_gvr *r, const char *ns, const struct vc_list_opts *lo,
		   json_t **out, struct vc_error *err)
{
	(void)ctx;
	return vc_kube_list(kube, r, ns, lo, out, err);
}

static int px_watch(void *ctx, const struct vc_gvr *r, const char *ns,
		    const struct vc_watch_opts *wo, vc_watch_fn fn, void *fn_ctx,
		    const volatile int *stop, struct vc_error *err)
{
	struct vc_watch_opts mine = *wo;
	bool forced;
	int rc;

	(void)ctx;
	pthread_mutex_lock(&px.lock);
	while (px.hold && !*stop) {
		struct timespec ts;

		px.held = true;
		pthread_cond_broadcast(&px.cond);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&px.cond, &px.lock, &ts);
	}
	px.held = false;
	forced = px.force_old;
	px.force_old = false;
	px.watches++;
	pthread_mutex_unlock(&px.lock);
	if (*stop)
		return vc_error_set(err, VC_ESHUTDOWN, "stopped");
	if (forced) {
		mine.resource_version = "1";
		VC_INFO("forcing a watch from resourceVersion 1", "informer_rv=%s",
			wo->resource_version ? wo->resource_version : "");
	}
	rc = vc_kube_watch(kube, r, ns, &mine, fn, fn_ctx, stop, err);
	if (forced) {
		pthread_mutex_lock(&px.lock);
		px.forced_rcs++;
		px.forced_rc = rc;
		pthread_mutex_unlock(&px.lock);
	}
	return rc;
}

static const struct vc_kube_ops px_ops = { .list = px_list, .watch = px_watch };

/* Hold watches back and wait until the informer's current watch has ended and the next waits. */
static int hold_watches(int seconds)
{
	struct timespec deadline;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += seconds;
	pthread_mutex_lock(&px.lock);
	px.hold = true;
	while (!px.held && rc == 0)
		rc = pthread_cond_timedwait(&px.cond, &px.lock, &deadline);
	pthread_mutex_unlock(&px.lock);
	return rc == 0 ? 0 : VC_ETIMEDOUT;
}

static void release_watches(bool force_old)
{
	pthread_mutex_lock(&px.lock);
	px.hold = false;
	px.force_old = force_old;
	pthread_cond_broadcast(&px.cond);
	pthread_mutex_unlock(&px.lock);
}

/* ---- what the handlers saw, and what they should have seen --------------------------------- */

/*
 * Both are JSON objects from key to an array of event strings:
 *   "add RV", "update OLD_RV NEW_RV", "delete" (a watched DELETED event), "tombstone RV" (a
 *   delete found by a relist, with the last version the cache had).
 * A delete expected as "delete|tombstone RV" may arrive either way (after the restart, a change
 * reaches the informer by watch or by relist depending on when it reconnects).
 */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static json_t *seen, *expected;
static int inconsistent;
static struct vc_informer *inf;

static const char *rv_of(const json_t *obj)
{
	const char *rv = json_string_value(
		json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));

	return rv ? rv : "";
}

static void record(json_t *log, const char *key, const char *fmt, ...) VC_PRINTF(3, 4);

static void record(json_t *log, const char *key, const char *fmt, ...)
{
	json_t *arr = json_object_get(log, key);
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!arr) {
		arr = json_array();
		if (!arr || json_object_set_new(log, key, arr)) {
			fprintf(stderr, "out of memory\n");
			abort();
		}
	}
	if (json_array_append_new(arr, json_string(line))) {
		fprintf(stderr, "out of memory\n");
		abort();
	}
}

/* The cache must already reflect the event: holding obj itself, or nothing after a delete. */
static void check_cache(const json_t *obj, const char *key, bool present)
{
	json_t *cur = vc_cache_get(vc_informer_cache(inf), key);

	if (present ? cur != obj : cur != NULL) {
		fprintf(stderr, "FAIL: cache out of step with the handler for %s\n", key);
		__atomic_add_fetch(&inconsistent, 1, __ATOMIC_RELAXED);
	}
	json_decref(cur);
}

static void on_add(void *ctx, json_t *obj)
{
	char key[VC_CACHE_KEY_MAX];

	(void)ctx;
	if (vc_cache_key(obj, key, sizeof(key)))
		return;
	check_cache(obj, key, true);
	pthread_mutex_lock(&seen_lock);
	record(seen, key, "add %s", rv_of(obj));
	pthread_mutex_unlock(&seen_lock);
}

static void on_update(void *ctx, json_t *old_obj, json_t *new_obj)
{
	char key[VC_CACHE_KEY_MAX];

	(void)ctx;
	if (vc_cache_key(new_obj, key, sizeof(key)))
		return;
	check_cache(new_obj, key, true);
	pthread_mutex_lock(&seen_lock);
	record(seen, key, "update %s %s", rv_of(old_obj), rv_of(new_obj));
	pthread_mutex_unlock(&seen_lock);
}

static void on_delete(void *ctx, json_t *obj, bool unknown)
{
	char key[VC_CACHE_KEY_MAX];

	(void)ctx;
	if (vc_cache_key(obj, key, sizeof(key)))
		return;
	check_cache(obj, key, false);
	pthread_mutex_lock(&seen_lock);
	if (unknown)
		record(seen, key, "tombstone %s", rv_of(obj));
	else
		record(seen, key, "delete");
	pthread_mutex_unlock(&seen_lock);
}

/* Does what was seen match what was expected (with "delete|tombstone RV" matching either)? */
static bool matches(const json_t *want, const json_t *got)
{
	const char *key, *w, *g;
	json_t *wa, *ga;
	size_t i;

	if (json_object_size(want) != json_object_size(got))
		return false;
	json_object_foreach ((json_t *)want, key, wa) {
		ga = json_object_get(got, key);
		if (json_array_size(wa) != json_array_size(ga))
			return false;
		for (i = 0; i < json_array_size(wa); i++) {
			w = json_string_value(json_array_get(wa, i));
			g = json_string_value(json_array_get(ga, i));
			if (!strncmp(w, "delete|tombstone ", 17)) {
				if (strcmp(g, "delete") != 0 && strcmp(g, w + 7) != 0)
					return false;
			} else if (strcmp(w, g) != 0) {
				return false;
			}
		}
	}
	return true;
}

/* Wait until the handlers saw what they should have; print both on timeout. */
static int converge(const char *phase)
{
	int64_t deadline = vc_time_mono_ns() + (int64_t)o.converge_seconds * VC_NSEC_PER_SEC;
	struct timespec tick = { 0, 50 * 1000 * 1000 };
	bool ok;
	char *w, *g;

	for (;;) {
		pthread_mutex_lock(&seen_lock);
		ok = matches(expected, seen);
		pthread_mutex_unlock(&seen_lock);
		if (ok)
			return 0;
		if (vc_time_mono_ns() > deadline)
			break;
		nanosleep(&tick, NULL);
	}
	pthread_mutex_lock(&seen_lock);
	w = json_dumps(expected, JSON_SORT_KEYS | JSON_INDENT(1));
	g = json_dumps(seen, JSON_SORT_KEYS | JSON_INDENT(1));
	pthread_mutex_unlock(&seen_lock);
	fprintf(stderr, "FAIL: %s: the handlers did not see what happened within %d s\n", phase,
		o.converge_seconds);
	fprintf(stderr, "expected:\n%s\nseen:\n%s\n", w ? w : "?", g ? g : "?");
	free(w);
	free(g);
	failures++;
	return -1;
}

/* ---- making changes ------------------------------------------------------------------------- */

/* The last resourceVersion of each object we changed, by name. */
static json_t *versions;

static void key_of(const char *name, char *key, size_t len)
{
	snprintf(key, len, "%s/%s", o.namespace, name);
}

static int cm_create(const char *name, const char *value, bool expect)
{
	json_t *cm = json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:s}}", "apiVersion", "v1", "kind",
			       "ConfigMap", "metadata", "name", name, "labels", LABEL_KEY,
			       LABEL_VALUE, "data", "v", value);
	struct vc_error err;
	json_t *out = NULL;
	char key[VC_CACHE_KEY_MAX];
	int rc;

	if (!cm)
		return VC_ENOMEM;
	rc = vc_kube_create(kube, &vc_gvr_configmaps, o.namespace, NULL, NULL, cm, &out, &err);
	json_decref(cm);
	if (rc) {
		fprintf(stderr, "FAIL: create configmap %s: %s\n", name, err.text);
		failures++;
		return rc;
	}
	key_of(name, key, sizeof(key));
	json_object_set_new(versions, name, json_string(rv_of(out)));
	if (expect) {
		pthread_mutex_lock(&seen_lock);
		record(expected, key, "add %s", rv_of(out));
		pthread_mutex_unlock(&seen_lock);
	}
	json_decref(out);
	return 0;
}

static int cm_update(const char *name, const char *value)
{
	json_t *patch = json_pack("{s:{s:s}}", "data", "v", value);
	const char *prev = json_string_value(json_object_get(versions, name));
	char key[VC_CACHE_KEY_MAX], prev_rv[64];
	struct vc_error err;
	json_t *out = NULL;
	int rc;

	if (!patch || !prev)
		return VC_EINVAL;
	snprintf(prev_rv, sizeof(prev_rv), "%s", prev);
	rc = vc_kube_patch(kube, &vc_gvr_configmaps, o.namespace, name, NULL, VC_PATCH_MERGE, patch,
			   &out, &err);
	json_decref(patch);
	if (rc) {
		fprintf(stderr, "FAIL: patch configmap %s: %s\n", name, err.text);
		failures++;
		return rc;
	}
	key_of(name, key, sizeof(key));
	json_object_set_new(versions, name, json_string(rv_of(out)));
	pthread_mutex_lock(&seen_lock);
	record(expected, key, "update %s %s", prev_rv, rv_of(out));
	pthread_mutex_unlock(&seen_lock);
	json_decref(out);
	return 0;
}

/* how: "delete" (watched), "tombstone" (found by a relist) or "delete|tombstone". */
static int cm_delete(const char *name, const char *how)
{
	const char *prev = json_string_value(json_object_get(versions, name));
	char key[VC_CACHE_KEY_MAX];
	struct vc_error err;
	int rc;

	if (!prev)
		return VC_EINVAL;
	rc = vc_kube_delete(kube, &vc_gvr_configmaps, o.namespace, name, NULL, &err);
	if (rc) {
		fprintf(stderr, "FAIL: delete configmap %s: %s\n", name, err.text);
		failures++;
		return rc;
	}
	key_of(name, key, sizeof(key));
	pthread_mutex_lock(&seen_lock);
	if (!strcmp(how, "delete"))
		record(expected, key, "delete");
	else
		record(expected, key, "%s %s", how, prev);
	pthread_mutex_unlock(&seen_lock);
	json_object_del(versions, name);
	return 0;
}

/* A ConfigMap without the label: the informer's selector must keep it out. */
static void cm_create_unlabelled(const char *name)
{
	json_t *cm = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "apiVersion", "v1", "kind",
			       "ConfigMap", "metadata", "name", name, "data", "v", "x");
	struct vc_error err;

	if (!cm ||
	    vc_kube_create(kube, &vc_gvr_configmaps, o.namespace, NULL, NULL, cm, NULL, &err)) {
		fprintf(stderr, "FAIL: create configmap %s\n", name);
		failures++;
	}
	json_decref(cm);
}

static void name_of(char *buf, size_t len, const char *phase, int i)
{
	snprintf(buf, len, "cm-%s-%d", phase, i);
}

/*
 * Live changes in a phase: create n, update each created one twice, delete the first third.
 * The informer is watching, so every event arrives as it happened.
 */
static void live_changes(const char *phase, int n)
{
	char name[64], val[32];
	int i, round;

	for (i = 0; i < n; i++) {
		name_of(name, sizeof(name), phase, i);
		cm_create(name, "0", true);
	}
	for (round = 1; round <= 2; round++)
		for (i = 0; i < n; i++) {
			name_of(name, sizeof(name), phase, i);
			snprintf(val, sizeof(val), "%d", round);
			cm_update(name, val);
		}
	for (i = 0; i < n / 3; i++) {
		name_of(name, sizeof(name), phase, i);
		cm_delete(name, "delete");
	}
}

/*
 * Changes the informer cannot watch (it is held back, or the server was down): each object
 * changes once, so a relist reports exactly one event for it. `from` is a phase whose
 * surviving objects (index n/3 .. n-1) get updated and deleted.
 */
static void unseen_changes(const char *phase, const char *from, int n, const char *delete_how)
{
	char name[64];
	int i;

	for (i = 0; i < 3; i++) {
		name_of(name, sizeof(name), phase, i);
		cm_create(name, "new", true);
	}
	for (i = n / 3; i < n / 3 + 2; i++) {
		name_of(name, sizeof(name), from, i);
		cm_update(name, "changed-unseen");
	}
	for (i = n / 3 + 2; i < n / 3 + 4; i++) {
		name_of(name, sizeof(name), from, i);
		cm_delete(name, delete_how);
	}
}

/* The cache must hold exactly what the server lists now. */
static void compare_with_server(void)
{
	struct vc_list_opts lo = { .label_selector = LABEL_KEY "=" LABEL_VALUE };
	struct vc_cache *c = vc_informer_cache(inf);
	char key[VC_CACHE_KEY_MAX];
	struct vc_error err;
	json_t *list = NULL, *item, *cached;
	size_t i, n = 0;

	if (vc_kube_list(kube, &vc_gvr_configmaps, o.namespace, &lo, &list, &err)) {
		fprintf(stderr, "FAIL: list configmaps: %s\n", err.text);
		failures++;
		return;
	}
	json_array_foreach (json_object_get(list, "items"), i, item) {
		if (vc_cache_key(item, key, sizeof(key)))
			continue;
		n++;
		cached = vc_cache_get(c, key);
		CHECK(cached && !strcmp(rv_of(cached), rv_of(item)),
		      "cache has %s@%s, the server %s", key, cached ? rv_of(cached) : "(nothing)",
		      rv_of(item));
		json_decref(cached);
	}
	CHECK(vc_cache_count(c) == n, "cache holds %zu objects, the server lists %zu",
	      vc_cache_count(c), n);
	CHECK(vc_cache_index_count(c, "namespace", o.namespace) == n,
	      "the namespace index holds %zu objects, the server lists %zu",
	      vc_cache_index_count(c, "namespace", o.namespace), n);
	json_decref(list);
}

static void print_stats(const char *when)
{
	struct vc_informer_stats st;
	char rv[VC_INFORMER_RV_MAX];

	vc_informer_get_stats(inf, &st);
	if (vc_informer_last_rv(inf, rv, sizeof(rv)))
		rv[0] = '\0';
	printf("%-8s lists=%" PRIu64 " list_errors=%" PRIu64 " watches=%" PRIu64
	       " watch_errors=%" PRIu64 " expired=%" PRIu64 " events=%" PRIu64 " bookmarks=%" PRIu64
	       " skipped=%" PRIu64 " rv=%s\n",
	       when, st.lists, st.list_errors, st.watches, st.watch_errors, st.expired, st.events,
	       st.bookmarks, st.skipped, rv);
	fflush(stdout);
}

/*
 * Wait for the watch sent with resourceVersion 1 to end; it must end as expired (an HTTP 410
 * answer, or an ERROR event with code 410 that the informer turned into its positive code 1).
 */
static int wait_forced(int seconds)
{
	int64_t deadline = vc_time_mono_ns() + (int64_t)seconds * VC_NSEC_PER_SEC;
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	unsigned n;
	int rc;

	for (;;) {
		pthread_mutex_lock(&px.lock);
		n = px.forced_rcs;
		rc = px.forced_rc;
		pthread_mutex_unlock(&px.lock);
		if (n)
			break;
		if (vc_time_mono_ns() > deadline) {
			fprintf(stderr,
				"FAIL: the watch from resourceVersion 1 did not end in %d s\n",
				seconds);
			failures++;
			return -1;
		}
		nanosleep(&tick, NULL);
	}
	if (rc != VC_EGONE && rc != 1) {
		fprintf(stderr,
			"FAIL: the watch from resourceVersion 1 ended with %d (%s), not as expired\n",
			rc, rc < 0 ? vc_strerror(rc) : "the callback's code");
		failures++;
		return -1;
	}
	printf("     the watch from resourceVersion 1 ended as expired (%s)\n",
	       rc == VC_EGONE ? "HTTP 410" : "an ERROR event with code 410");
	return 0;
}

static int ensure_namespace(void)
{
	json_t *ns = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "Namespace",
			       "metadata", "name", o.namespace);
	struct vc_error err;
	int rc;

	if (!ns)
		return VC_ENOMEM;
	rc = vc_kube_create(kube, &vc_gvr_namespaces, NULL, NULL, NULL, ns, NULL, &err);
	json_decref(ns);
	if (rc == VC_EALREADYEXISTS)
		rc = 0;
	if (rc)
		fprintf(stderr, "FAIL: create namespace %s: %s\n", o.namespace, err.text);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct vc_cache_index idx[] = {
		{ "namespace", vc_cache_index_by_namespace, NULL },
		{ "itest", vc_cache_index_by_label, LABEL_KEY },
	};
	struct vc_informer_opts io = {
		.resource = &vc_gvr_configmaps,
		.label_selector = LABEL_KEY "=" LABEL_VALUE,
		.page_size = 2,
		.watch_timeout_seconds = 5,
		.indexes = idx,
		.nindexes = VC_ARRAY_SIZE(idx),
		.cache_flags = VC_CACHE_CHECK_MUTATIONS,
		.backoff_max_ns = 8 * VC_NSEC_PER_SEC,
	};
	const struct vc_informer_handler h = { on_add, on_update, on_delete, NULL };
	struct vc_informer_stats st0, st;
	struct vc_kube_config kcfg = { 0 };
	struct vc_kube *proxy = NULL;
	struct vc_error err;
	char name[64];
	int first, rc, i, status = 1;

	vc_alloc_install_json();
	vc_log_set_component("itest-informer");
	rc = vc_flags_parse(flags, VC_ARRAY_SIZE(flags), &o, argc, argv, &first, &err);
	if (rc == VC_FLAGS_HELP) {
		vc_flags_usage(flags, VC_ARRAY_SIZE(flags), argv[0], stdout);
		return 0;
	}
	if (rc || first != argc) {
		fprintf(stderr, "itest_informer: %s\n", rc ? err.text : "unexpected argument");
		return 2;
	}
	seen = json_object();
	expected = json_object();
	versions = json_object();
	if (!seen || !expected || !versions)
		return 2;
	if (vc_kube_config_from_flags(o.kubeconfig, o.master, &kcfg, &err)) {
		fprintf(stderr, "itest_informer: %s\n", err.text);
		return 2;
	}
	/* Many small requests: no client-side limit to wait for. */
	kcfg.qps = 0;
	if (vc_kube_new(&kcfg, &kube, &err)) {
		fprintf(stderr, "itest_informer: %s\n", err.text);
		goto out;
	}
	proxy = vc_kube_new_with_ops(&px_ops, NULL);
	if (!proxy || ensure_namespace())
		goto out;
	io.namespace = o.namespace;

	/* Objects that exist before the informer starts: its first list (in pages of 2). */
	for (i = 0; i < 5; i++) {
		name_of(name, sizeof(name), "pre", i);
		cm_create(name, "0", true);
	}
	cm_create_unlabelled("cm-unlabelled-0");
	if (vc_informer_new(proxy, &io, &inf, &err) || vc_informer_add_handler(inf, &h) ||
	    vc_informer_start(inf)) {
		fprintf(stderr, "FAIL: cannot start the informer: %s\n", err.text);
		goto out;
	}
	if (vc_informer_wait_synced(inf, 60 * VC_NSEC_PER_SEC)) {
		fprintf(stderr, "FAIL: the informer did not sync within 60 s\n");
		goto out;
	}
	converge("initial list");
	print_stats("synced");
	printf("ok   initial list of 5 ConfigMaps (3 pages of 2) delivered as adds\n");

	/* Phase live: every event as it happens. */
	live_changes("live", 9);
	cm_create_unlabelled("cm-unlabelled-1");
	if (converge("live") == 0)
		printf("ok   live: 9 creates, 18 updates, 3 deletes seen once and in order\n");

	if (o.restart_cmd[0]) {
		live_changes("pre-restart", 6);
		converge("before the restart");
		vc_informer_get_stats(inf, &st0);
		printf("     restarting kube-apiserver: %s\n", o.restart_cmd);
		fflush(stdout);
		rc = system(o.restart_cmd);
		if (rc != 0) {
			fprintf(stderr, "FAIL: the restart command exited with %d\n", rc);
			goto out;
		}
		/* At once: the informer is probably still backing off, or relisting. */
		unseen_changes("restart", "pre-restart", 6, "delete|tombstone");
		if (converge("restart") == 0)
			printf("ok   restart: the informer reconnected by itself and saw every "
			       "change\n");
		vc_informer_get_stats(inf, &st);
		printf("     across the restart: watch_errors +%" PRIu64 ", expired +%" PRIu64
		       ", lists +%" PRIu64 "\n",
		       st.watch_errors - st0.watch_errors, st.expired - st0.expired,
		       st.lists - st0.lists);
		CHECK(st.watch_errors > st0.watch_errors,
		      "no watch error while the server was down");
		print_stats("restart");
		live_changes("post-restart", 6);
		if (converge("after the restart") == 0)
			printf("ok   after the restart: live events again\n");
	}

	/*
	 * Phase expiry: changes while the watch is held back, then a watch from resourceVersion 1.
	 * A fresh API server's watch cache reaches back to its start (about revision 1), so only
	 * after the restart is that version too old: the phase needs the restart before it.
	 */
	if (!o.restart_cmd[0]) {
		printf("skip expiry: needs --restart-cmd (a fresh kube-apiserver's watch cache still "
		       "holds resourceVersion 1)\n");
		goto end;
	}
	vc_informer_get_stats(inf, &st0);
	if (hold_watches(60)) {
		fprintf(stderr, "FAIL: the informer's watch did not come back within 60 s\n");
		goto out;
	}
	unseen_changes("expiry", "post-restart", 6, "tombstone");
	release_watches(true);
	if (wait_forced(30) != 0)
		goto out;
	if (converge("expiry") == 0)
		printf("ok   expiry: 3 creates, 2 updates, 2 deletes missed by the watch came back "
		       "from the relist as adds, updates and tombstones\n");
	vc_informer_get_stats(inf, &st);
	CHECK(st.expired == st0.expired + 1, "expired went from %" PRIu64 " to %" PRIu64,
	      st0.expired, st.expired);
	CHECK(st.lists == st0.lists + 1, "lists went from %" PRIu64 " to %" PRIu64, st0.lists,
	      st.lists);
	print_stats("expired");

	/* The watch goes on from the relist's version. */
	live_changes("after-expiry", 6);
	if (converge("after expiry") == 0)
		printf("ok   after expiry: live events again\n");

end:
	compare_with_server();
	CHECK(inconsistent == 0, "%d handler calls found the cache out of step", inconsistent);
	print_stats("end");
	if (!failures) {
		printf("ok   all checks passed\n");
		status = 0;
	}
out:
	vc_informer_free(inf);
	vc_kube_free(proxy);
	vc_kube_free(kube);
	vc_kube_config_release(&kcfg);
	json_decref(seen);
	json_decref(expected);
	json_decref(versions);
	return status;
}
