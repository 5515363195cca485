/*
 * itest_kube - the REST client against a real kube-apiserver (driven by
 * tests/e2e/test_kube_client.sh on the local cluster, and by bench/bench_rest.sh).
 *
 *   itest_kube --kubeconfig FILE test
 *       paging through 2,000 ConfigMaps, Conflict on a stale update, NotFound / AlreadyExists /
 *       Invalid mapping, each patch type, delete with preconditions, a watch that sees create,
 *       update and delete in order, a watch from a too old resourceVersion, pods/binding,
 *       pods/status and pods/eviction on a pod bound to a fake Node. Prints "ok ..." per check;
 *       the first failure prints "FAIL ..." and exits 1.
 *
 *   itest_kube --kubeconfig FILE bench [--threads K] [--requests N]
 *       N GETs of one ConfigMap over K threads; prints requests per second.
 *
 *   --in-cluster DIR instead of --kubeconfig: the in-cluster configuration with DIR as the
 *   service-account folder (KUBERNETES_SERVICE_HOST/PORT from the environment).
 */
#include "vc_prelude.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_err.h"
#include "vc_json.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

#define NS	     "itest-kube"
#define NS_WATCH     "itest-kube-watch"
#define N_CONFIGMAPS 2000

static struct vc_kube *kc;

static VC_NORETURN VC_PRINTF(1, 2) void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("FAIL ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	exit(1);
}

static VC_PRINTF(1, 2) void ok(const char *fmt, ...)
{
	va_list ap;

	fputs("ok   ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

static json_t *J(const char *fmt, ...) VC_PRINTF(1, 2);
static json_t *J(const char *fmt, ...)
{
	char buf[4096];
	json_t *v;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (vc_json_parse(buf, strlen(buf), 0, &v, NULL))
		fail("bad JSON in the test: %s", buf);
	return v;
}

/* Expect rc == want, else fail with the call's description and error. */
static void expect(int rc, int want, const struct vc_error *err, const char *what)
{
	if (rc != want)
		fail("%s: got %d (%s: %s), want %d (%s)", what, rc, vc_strerror(rc),
		     rc ? err->text : "", want, vc_strerror(want));
}

static const char *meta_str(const json_t *obj, const char *key)
{
	const char *s = vc_json_get_str(vc_json_get_obj(obj, "metadata"), key);

	return s ? s : "";
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- setup --------------------------------------------------------------------------------- */

static void ensure_namespace(const char *name)
{
	struct vc_error err;
	json_t *ns =
		J("{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"%s\"}}",
		  name);
	int rc = vc_kube_create(kc, &vc_gvr_namespaces, NULL, NULL, NULL, ns, NULL, &err);

	if (rc && rc != VC_EALREADYEXISTS)
		fail("create namespace %s: %s", name, err.text);
	json_decref(ns);
}

struct creator {
	int from, to, failed;
	char err[VC_ERROR_TEXT_LEN + 16];
};

static void *create_range(void *arg)
{
	struct creator *cr = arg;
	struct vc_error err;
	json_t *cm;
	int i, rc;

	for (i = cr->from; i < cr->to && !cr->failed; i++) {
		cm = J("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
		       "\"cm-%04d\",\"labels\":{\"itest\":\"paging\"}},\"data\":{\"i\":\"%d\"}}",
		       i, i);
		rc = vc_kube_create(kc, &vc_gvr_configmaps, NS, NULL, NULL, cm, NULL, &err);
		json_decref(cm);
		if (rc && rc != VC_EALREADYEXISTS) {
			cr->failed = 1;
			snprintf(cr->err, sizeof(cr->err), "cm-%04d: %s", i, err.text);
		}
	}
	return NULL;
}

/* ---- the checks ------------------------------------------------------------------------------ */

static int pages_seen;

static void count_pages(void *ctx, int level, const char *line)
{
	(void)ctx;
	if (strstr(line, "listing the next page"))
		pages_seen++;
	else if (level <= VC_LOG_WARN)
		fprintf(stderr, "%s\n", line);
}

static void check_paging(void)
{
	struct vc_list_opts lo = { .label_selector = "itest=paging", .limit = 100 };
	struct creator cr[4];
	pthread_t t[4];
	struct vc_error err;
	unsigned char seen[N_CONFIGMAPS] = { 0 };
	json_t *list, *item;
	double t0 = now_s();
	size_t i;
	int n, k;

	for (k = 0; k < 4; k++) {
		cr[k] = (struct creator){ k * N_CONFIGMAPS / 4, (k + 1) * N_CONFIGMAPS / 4, 0, "" };
		pthread_create(&t[k], NULL, create_range, &cr[k]);
	}
	for (k = 0; k < 4; k++)
		pthread_join(t[k], NULL);
	for (k = 0; k < 4; k++) {
		if (cr[k].failed)
			fail("creating ConfigMaps: %s", cr[k].err);
	}
	ok("created %d ConfigMaps in %.1f s over 4 threads", N_CONFIGMAPS, now_s() - t0);

	vc_log_set_sink(count_pages, NULL);
	vc_log_set_verbosity(4);
	t0 = now_s();
	expect(vc_kube_list(kc, &vc_gvr_configmaps, NS, &lo, &list, &err), 0, &err,
	       "list with limit 100");
	vc_log_set_verbosity(0);
	vc_log_set_sink(NULL, NULL);
	json_array_foreach (json_object_get(list, "items"), i, item) {
		const char *name = meta_str(item, "name");

		if (sscanf(name, "cm-%d", &n) != 1 || n < 0 || n >= N_CONFIGMAPS)
			fail("list: unexpected item '%s'", name);
		if (seen[n]++)
			fail("list: '%s' came twice", name);
	}
	if (json_array_size(json_object_get(list, "items")) != N_CONFIGMAPS)
		fail("list: %zu items, want %d", json_array_size(json_object_get(list, "items")),
		     N_CONFIGMAPS);
	if (pages_seen != N_CONFIGMAPS / 100 - 1)
		fail("list: %d follow-up pages, want %d", pages_seen, N_CONFIGMAPS / 100 - 1);
	if (!*meta_str(list, "resourceVersion") || *meta_str(list, "continue"))
		fail("list: metadata not merged: rv '%s' continue '%s'",
		     meta_str(list, "resourceVersion"), meta_str(list, "continue"));
	ok("paged through %d ConfigMaps (limit 100, %d pages) in %.2f s: each exactly once, "
	   "resourceVersion %s",
	   N_CONFIGMAPS, pages_seen + 1, now_s() - t0, meta_str(list, "resourceVersion"));
	json_decref(list);
}

static void check_errors(void)
{
	json_t *cm, *old, *fresh, *bad;
	struct vc_error err;
	const char *want;

	expect(vc_kube_get(kc, &vc_gvr_configmaps, NS, "cm-0000", NULL, &old, &err), 0, &err,
	       "get cm-0000");
	fresh = json_deep_copy(old);
	json_object_set_new(vc_json_get_obj(fresh, "data"), "changed", json_string("yes"));
	expect(vc_kube_update(kc, &vc_gvr_configmaps, NULL, NULL, NULL, fresh, &cm, &err), 0, &err,
	       "update cm-0000");
	if (!strcmp(meta_str(cm, "resourceVersion"), meta_str(old, "resourceVersion")))
		fail("update did not change the resourceVersion");
	json_decref(cm);
	json_object_set_new(vc_json_get_obj(old, "data"), "stale", json_string("yes"));
	expect(vc_kube_update(kc, &vc_gvr_configmaps, NS, "cm-0000", NULL, old, NULL, &err),
	       VC_ECONFLICT, &err, "stale update of cm-0000");
	want = "Operation cannot be fulfilled on configmaps \"cm-0000\": the object has been "
	       "modified; please apply your changes to the latest version and try again";
	if (strcmp(err.text, want))
		fail("conflict message: '%s'", err.text);
	ok("stale update: VC_ECONFLICT, \"%s\"", err.text);

	expect(vc_kube_get(kc, &vc_gvr_configmaps, NS, "nope", NULL, &cm, &err), VC_ENOTFOUND, &err,
	       "get nope");
	if (strcmp(err.text, "configmaps \"nope\" not found"))
		fail("not-found message: '%s'", err.text);
	ok("get of a missing object: VC_ENOTFOUND, \"%s\"", err.text);

	cm = J("{\"metadata\":{\"name\":\"cm-0000\"}}");
	expect(vc_kube_create(kc, &vc_gvr_configmaps, NS, NULL, NULL, cm, NULL, &err),
	       VC_EALREADYEXISTS, &err, "create cm-0000 again");
	json_decref(cm);
	if (strcmp(err.text, "configmaps \"cm-0000\" already exists"))
		fail("already-exists message: '%s'", err.text);
	ok("second create: VC_EALREADYEXISTS, \"%s\"", err.text);

	bad = J("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"Bad_Name\"}}");
	expect(vc_kube_create(kc, &vc_gvr_configmaps, NS, NULL, NULL, bad, NULL, &err),
	       VC_EUNPROCESSABLE, &err, "create Bad_Name");
	if (!vc_str_has_prefix(err.text,
			       "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: "
			       "\"Bad_Name\""))
		fail("invalid message: '%s'", err.text);
	ok("invalid name: VC_EUNPROCESSABLE, \"%.80s...\"", err.text);
	json_decref(bad);
	json_decref(old);
	json_decref(fresh);
}

static void check_patches(void)
{
	json_t *merge = J("{\"data\":{\"merge\":\"1\"},\"metadata\":{\"labels\":{\"m\":\"x\"}}}");
	json_t *jp = J("[{\"op\":\"add\",\"path\":\"/data/json\",\"value\":\"2\"},"
		       "{\"op\":\"test\",\"path\":\"/data/merge\",\"value\":\"1\"}]");
	json_t *smp = J("{\"data\":{\"strategic\":\"3\"}}");
	json_t *bad_test = J("[{\"op\":\"test\",\"path\":\"/data/merge\",\"value\":\"9\"}]");
	json_t *pg = J("{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"PodGroup\","
		       "\"metadata\":{\"name\":\"pg\"},\"spec\":{\"minMember\":1}}");
	struct vc_error err;
	json_t *out;
	int rc;

	expect(vc_kube_patch(kc, &vc_gvr_configmaps, NS, "cm-0001", NULL, VC_PATCH_MERGE, merge,
			     &out, &err),
	       0, &err, "merge patch");
	json_decref(out);
	expect(vc_kube_patch(kc, &vc_gvr_configmaps, NS, "cm-0001", NULL, VC_PATCH_JSON, jp, &out,
			     &err),
	       0, &err, "JSON patch");
	json_decref(out);
	expect(vc_kube_patch(kc, &vc_gvr_configmaps, NS, "cm-0001", NULL, VC_PATCH_STRATEGIC, smp,
			     &out, &err),
	       0, &err, "strategic merge patch");
	if (!vc_str_eq(vc_json_get_str(vc_json_get_obj(out, "data"), "merge"), "1") ||
	    !vc_str_eq(vc_json_get_str(vc_json_get_obj(out, "data"), "json"), "2") ||
	    !vc_str_eq(vc_json_get_str(vc_json_get_obj(out, "data"), "strategic"), "3") ||
	    !vc_str_eq(vc_json_get_str(vc_json_get_obj(out, "data"), "i"), "1"))
		fail("patched data is wrong");
	json_decref(out);
	ok("merge, JSON and strategic merge patches all applied");
	expect(vc_kube_patch(kc, &vc_gvr_configmaps, NS, "cm-0001", NULL, VC_PATCH_JSON, bad_test,
			     NULL, &err),
	       VC_EUNPROCESSABLE, &err, "failing JSON patch test");
	ok("failing JSON patch test op: VC_EUNPROCESSABLE, \"%s\"", err.text);

	/* Custom resources take no strategic merge patch (415 from the server). */
	rc = vc_kube_create(kc, &vc_gvr_podgroups, NS, NULL, NULL, pg, NULL, &err);
	if (rc == 0) {
		expect(vc_kube_patch(kc, &vc_gvr_podgroups, NS, "pg", NULL, VC_PATCH_STRATEGIC, smp,
				     NULL, &err),
		       VC_EINVAL, &err, "strategic merge patch of a PodGroup");
		ok("strategic merge patch of a PodGroup: VC_EINVAL, \"%.60s...\"", err.text);
		expect(vc_kube_patch(kc, &vc_gvr_podgroups, NS, "pg", NULL, VC_PATCH_MERGE, merge,
				     NULL, &err),
		       0, &err, "merge patch of a PodGroup");
		ok("merge patch of a PodGroup (a custom resource)");
	} else {
		printf("skip PodGroup patches: %s (are the CRDs applied?)\n", err.text);
	}
	json_decref(merge);
	json_decref(jp);
	json_decref(smp);
	json_decref(bad_test);
	json_decref(pg);
}

static void check_delete(void)
{
	struct vc_delete_opts wrong = { .grace_period_seconds = -1,
					.precondition_resource_version = "1" };
	struct vc_delete_opts bad_uid = { .grace_period_seconds = -1,
					  .precondition_uid =
						  "00000000-0000-0000-0000-000000000000" };
	struct vc_delete_opts right = { .propagation_policy = "Background",
					.grace_period_seconds = 0 };
	struct vc_error err;
	json_t *cm;

	expect(vc_kube_get(kc, &vc_gvr_configmaps, NS, "cm-0002", NULL, &cm, &err), 0, &err,
	       "get cm-0002");
	expect(vc_kube_delete(kc, &vc_gvr_configmaps, NS, "cm-0002", &wrong, &err), VC_ECONFLICT,
	       &err, "delete with a wrong resourceVersion precondition");
	ok("delete with a stale resourceVersion precondition: VC_ECONFLICT, \"%s\"", err.text);
	expect(vc_kube_delete(kc, &vc_gvr_configmaps, NS, "cm-0002", &bad_uid, &err), VC_ECONFLICT,
	       &err, "delete with a wrong uid precondition");
	ok("delete with a wrong uid precondition: VC_ECONFLICT, \"%.90s...\"", err.text);
	right.precondition_uid = meta_str(cm, "uid");
	right.precondition_resource_version = meta_str(cm, "resourceVersion");
	expect(vc_kube_delete(kc, &vc_gvr_configmaps, NS, "cm-0002", &right, &err), 0, &err,
	       "delete with matching preconditions");
	json_decref(cm);
	expect(vc_kube_get(kc, &vc_gvr_configmaps, NS, "cm-0002", NULL, NULL, &err), VC_ENOTFOUND,
	       &err, "get after delete");
	expect(vc_kube_delete(kc, &vc_gvr_configmaps, NS, "cm-0002", NULL, &err), VC_ENOTFOUND,
	       &err, "second delete");
	ok("delete with matching uid and resourceVersion preconditions; then VC_ENOTFOUND");
}

struct watch_rec {
	struct vc_buf log;
	int events;
	volatile int stop;
};

static int on_event(void *ctx, enum vc_watch_event_type type, json_t *obj)
{
	static const char *const names[] = { "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR" };
	struct watch_rec *w = ctx;

	if (type == VC_WATCH_BOOKMARK)
		return 0;
	w->events++;
	if (type == VC_WATCH_ERROR) {
		if (vc_buf_addf(&w->log, "ERROR %" PRId64 " ", vc_json_get_int(obj, "code", 0)))
			return -1;
		return 2;
	}
	if (vc_buf_addf(&w->log, "%s %s ", names[type], meta_str(obj, "name")))
		return -1;
	return type == VC_WATCH_DELETED ? 1 : 0;
}

struct watch_run {
	struct watch_rec *rec;
	const char *rv;
	int rc;
	struct vc_error err;
};

static void *watch_main(void *arg)
{
	struct watch_run *r = arg;
	struct vc_watch_opts wo = { .resource_version = r->rv,
				    .allow_bookmarks = true,
				    .timeout_seconds = 60 };

	r->rc = vc_kube_watch(kc, &vc_gvr_configmaps, NS_WATCH, &wo, on_event, r->rec,
			      &r->rec->stop, &r->err);
	return NULL;
}

static void check_watch(void)
{
	struct watch_rec w = { 0 };
	struct watch_run run = { &w, NULL, 0, { 0 } };
	struct vc_error err;
	json_t *cm, *list, *out;
	pthread_t t;
	double t0;
	int i;

	ensure_namespace(NS_WATCH);
	expect(vc_kube_list(kc, &vc_gvr_configmaps, NS_WATCH, NULL, &list, &err), 0, &err,
	       "list before watch");
	vc_buf_init(&w.log, 0);
	run.rv = meta_str(list, "resourceVersion");
	pthread_create(&t, NULL, watch_main, &run);
	/* The watch starts from the list's resourceVersion, so nothing is missed even if the
	 * writes below reach the server before the watch request does. */
	cm = J("{\"metadata\":{\"name\":\"w1\"},\"data\":{\"a\":\"1\"}}");
	expect(vc_kube_create(kc, &vc_gvr_configmaps, NS_WATCH, NULL, NULL, cm, &out, &err), 0,
	       &err, "create w1");
	json_object_set_new(vc_json_get_obj(out, "data"), "a", json_string("2"));
	expect(vc_kube_update(kc, &vc_gvr_configmaps, NULL, NULL, NULL, out, NULL, &err), 0, &err,
	       "update w1");
	expect(vc_kube_delete(kc, &vc_gvr_configmaps, NS_WATCH, "w1", NULL, &err), 0, &err,
	       "delete w1");
	t0 = now_s();
	for (i = 0; i < 200 && w.events < 3; i++)
		usleep(50000);
	w.stop = 1;
	pthread_join(t, NULL);
	if (run.rc != 1)
		fail("watch returned %d (%s), events: %s", run.rc, run.err.text,
		     vc_buf_str(&w.log));
	if (strcmp(vc_buf_str(&w.log), "ADDED w1 MODIFIED w1 DELETED w1 "))
		fail("watch saw: %s", vc_buf_str(&w.log));
	ok("watch from resourceVersion %s saw ADDED, MODIFIED, DELETED of w1 in order (%.2f s)",
	   run.rv, now_s() - t0);
	json_decref(out);
	json_decref(cm);
	json_decref(list);

	/* A watch from resourceVersion 1: on a young cluster whose history etcd has not yet
	 * compacted (and the watch cache, which grows with the event rate, still holds) it replays
	 * everything since, otherwise it is a 410 answer or an ERROR event with code 410. */
	vc_buf_reset(&w.log);
	w.events = 0;
	w.stop = 0;
	run.rv = "1";
	watch_main(&run);
	if (run.rc == VC_EGONE)
		ok("watch from resourceVersion 1: VC_EGONE, \"%s\"", run.err.text);
	else if (run.rc == 2 && !strcmp(vc_buf_str(&w.log), "ERROR 410 "))
		ok("watch from resourceVersion 1: an ERROR event with code 410");
	else if (run.rc == 1 && !strcmp(vc_buf_str(&w.log), "ADDED w1 MODIFIED w1 DELETED w1 "))
		ok("watch from resourceVersion 1: history not compacted yet, replayed in order");
	else
		fail("watch from resourceVersion 1: rc %d (%s), events: %s", run.rc, run.err.text,
		     vc_buf_str(&w.log));
	vc_buf_release(&w.log);
}

static void check_binding(void)
{
	json_t *node = J("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":"
			 "\"itest-node\",\"labels\":{\"caldera.dev/itest\":\"true\"}}}");
	json_t *pod = J("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\"},"
			"\"spec\":{\"schedulerName\":\"nobody\",\"containers\":[{\"name\":\"c\","
			"\"image\":\"busybox\"}]}}");
	json_t *binding = J("{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":"
			    "\"p1\"},\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\","
			    "\"name\":\"itest-node\"}}");
	json_t *eviction = J("{\"apiVersion\":\"policy/v1beta1\",\"kind\":\"Eviction\","
			     "\"metadata\":{\"name\":\"p1\",\"namespace\":\"" NS "\"}}");
	struct vc_delete_opts now = { .grace_period_seconds = 0 };
	struct vc_error err;
	json_t *out, *st;
	int rc;

	rc = vc_kube_create(kc, &vc_gvr_nodes, NULL, NULL, NULL, node, NULL, &err);
	if (rc && rc != VC_EALREADYEXISTS)
		fail("create node: %s", err.text);
	expect(vc_kube_create(kc, &vc_gvr_pods, NS, NULL, NULL, pod, NULL, &err), 0, &err,
	       "create pod p1");
	expect(vc_kube_create(kc, &vc_gvr_pods, NS, "p1", "binding", binding, NULL, &err), 0, &err,
	       "bind p1");
	expect(vc_kube_get(kc, &vc_gvr_pods, NS, "p1", NULL, &out, &err), 0, &err, "get p1");
	if (!vc_str_eq(vc_json_get_str(vc_json_get_obj(out, "spec"), "nodeName"), "itest-node"))
		fail("p1 is not on itest-node after the binding");
	ok("pods/binding put p1 on Node itest-node");
	expect(vc_kube_create(kc, &vc_gvr_pods, NS, "p1", "binding", binding, NULL, &err),
	       VC_ECONFLICT, &err, "bind p1 twice");
	ok("second binding: VC_ECONFLICT, \"%s\"", err.text);

	st = json_pack("{s:s, s:s}", "phase", "Running", "podIP", "10.244.0.7");
	json_object_set_new(out, "status", st);
	expect(vc_kube_update(kc, &vc_gvr_pods, NS, "p1", "status", out, NULL, &err), 0, &err,
	       "update p1 status");
	json_decref(out);
	expect(vc_kube_get(kc, &vc_gvr_pods, NS, "p1", "status", &out, &err), 0, &err,
	       "get p1 status");
	if (!vc_str_eq(vc_json_get_str(vc_json_get_obj(out, "status"), "phase"), "Running"))
		fail("p1 status did not change");
	json_decref(out);
	ok("pods/status: p1 is Running");

	expect(vc_kube_create(kc, &vc_gvr_pods, NS, "p1", "eviction", eviction, NULL, &err), 0,
	       &err, "evict p1");
	rc = vc_kube_get(kc, &vc_gvr_pods, NS, "p1", NULL, &out, &err);
	if (rc == 0 && !*meta_str(out, "deletionTimestamp"))
		fail("p1 has no deletionTimestamp after the eviction");
	if (rc && rc != VC_ENOTFOUND)
		fail("get p1 after eviction: %s", err.text);
	json_decref(out);
	ok("pods/eviction: p1 is being deleted");
	rc = vc_kube_delete(kc, &vc_gvr_pods, NS, "p1", &now, &err);
	if (rc && rc != VC_ENOTFOUND)
		fail("delete p1: %s", err.text);
	expect(vc_kube_delete(kc, &vc_gvr_nodes, NULL, "itest-node", NULL, &err), 0, &err,
	       "delete node");
	ok("pod and node deleted");
	json_decref(node);
	json_decref(pod);
	json_decref(binding);
	json_decref(eviction);
}

static int run_tests(void)
{
	struct vc_delete_opts bg = { .propagation_policy = "Background",
				     .grace_period_seconds = -1 };
	struct vc_error err;

	ensure_namespace(NS);
	check_paging();
	check_errors();
	check_patches();
	check_delete();
	check_watch();
	check_binding();
	expect(vc_kube_delete(kc, &vc_gvr_namespaces, NULL, NS, &bg, &err), 0, &err,
	       "delete namespace");
	expect(vc_kube_delete(kc, &vc_gvr_namespaces, NULL, NS_WATCH, &bg, &err), 0, &err,
	       "delete namespace");
	ok("all checks passed");
	return 0;
}

/* ---- bench ----------------------------------------------------------------------------------- */

struct bench_worker {
	int n, failed;
	char err[VC_ERROR_TEXT_LEN + 16];
};

static void *bench_main(void *arg)
{
	struct bench_worker *b = arg;
	struct vc_error err;
	json_t *out;
	int i;

	for (i = 0; i < b->n; i++) {
		if (vc_kube_get(kc, &vc_gvr_configmaps, "default", "bench-cm", NULL, &out, &err)) {
			b->failed++;
			snprintf(b->err, sizeof(b->err), "%s", err.text);
		}
		json_decref(out);
	}
	return NULL;
}

static int run_bench(int threads, int requests)
{
	json_t *cm = J("{\"metadata\":{\"name\":\"bench-cm\"},\"data\":{\"key\":\"%s\"}}",
		       "a value of some length, like a small real ConfigMap would have");
	struct bench_worker *w = vc_calloc((size_t)threads, sizeof(*w));
	pthread_t *t = vc_calloc((size_t)threads, sizeof(*t));
	struct vc_error err;
	double t0, dt;
	int i, rc, failed = 0;

	if (!w || !t)
		fail("out of memory");
	rc = vc_kube_create(kc, &vc_gvr_configmaps, "default", NULL, NULL, cm, NULL, &err);
	if (rc && rc != VC_EALREADYEXISTS)
		fail("create bench-cm: %s", err.text);
	json_decref(cm);
	t0 = now_s();
	for (i = 0; i < threads; i++) {
		w[i].n = requests / threads + (i < requests % threads);
		pthread_create(&t[i], NULL, bench_main, &w[i]);
	}
	for (i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		failed += w[i].failed;
		if (w[i].failed)
			fprintf(stderr, "bench: %s\n", w[i].err);
	}
	dt = now_s() - t0;
	printf("vc_kube  threads=%d requests=%d failed=%d seconds=%.3f req_per_s=%.0f\n", threads,
	       requests, failed, dt, requests / dt);
	vc_free(w);
	vc_free(t);
	return failed ? 1 : 0;
}

/* ---- main ------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	const char *kubeconfig = NULL, *mode = NULL, *sa_dir = NULL;
	struct vc_kube_config cfg;
	struct vc_error err;
	int threads = 1, requests = 1000, i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--kubeconfig") && i + 1 < argc)
			kubeconfig = argv[++i];
		else if (!strcmp(argv[i], "--in-cluster") && i + 1 < argc)
			sa_dir = argv[++i];
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc &&
			 !vc_parse_int(argv[i + 1], 1, 256, &threads))
			i++;
		else if (!strcmp(argv[i], "--requests") && i + 1 < argc &&
			 !vc_parse_int(argv[i + 1], 1, 10000000, &requests))
			i++;
		else if (!mode && argv[i][0] != '-')
			mode = argv[i];
		else
			fail("usage: %s [--kubeconfig FILE | --in-cluster DIR] test|bench "
			     "[--threads K] [--requests N]",
			     argv[0]);
	}
	if (!mode || (strcmp(mode, "test") && strcmp(mode, "bench")))
		fail("usage: %s [--kubeconfig FILE | --in-cluster DIR] test|bench [--threads K] "
		     "[--requests N]",
		     argv[0]);
	vc_log_set_component("itest_kube");
	vc_log_set_verbosity(0);
	rc = sa_dir ? vc_kube_config_in_cluster(sa_dir, &cfg, &err)
		    : vc_kube_config_from_flags(kubeconfig, NULL, &cfg, &err);
	if (rc)
		fail("configuration: %s", err.text);
	printf("config=%s namespace=%s server=%s\n", sa_dir ? "in-cluster" : "kubeconfig",
	       cfg.namespace, cfg.server);
	/* No client-side limit here: the test creates thousands of objects, the bench measures
	 * the client itself. */
	cfg.qps = 0;
	cfg.user_agent = vc_strdup("itest_kube");
	if (vc_kube_new(&cfg, &kc, &err))
		fail("client: %s", err.text);
	vc_kube_config_release(&cfg);
	rc = !strcmp(mode, "test") ? run_tests() : run_bench(threads, requests);
	vc_kube_free(kc);
	return rc;
}
