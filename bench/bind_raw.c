/*
 * bind_raw: the API server's raw bind rate, and the workload tools of bench/bench_sched_e2e.sh.
 *
 *   bind_raw create --kubeconfig F --namespace NS --count N [--threads T] [--prefix P]
 *                   [--scheduler-name S] [--group-size G] [--queue Q] [--cpu C] [--memory M]
 *       Create N pods P-0 … P-(N-1) with T threads (no client-side rate limit; --rate R: pod
 *       i is created no earlier than i/R s after the start, a steady stream of R pods/s). With
 *       G > 0, first create the PodGroups P-g<k> (minMember G, queue Q) and annotate pod i with
 *       scheduling.k8s.io/group-name=P-g<i/G>.
 *   bind_raw watch --kubeconfig F --namespace NS --count N [--prefix P] [--timeout-seconds S]
 *       List the namespace's pods, print "watching ..." (the caller may start binding now),
 *       then watch until N pods P-i have spec.nodeName; print when the first and the last was
 *       seen bound (wall clock, seconds since the epoch), the rate between them and, for the
 *       pods the watch saw created (ADDED unbound), the percentiles of creation → bind as this
 *       watch saw them: both ends are the watch's own clock when the event arrived (ms
 *       resolution; the API's creationTimestamp and PodScheduled time are whole seconds). On
 *       timeout the same line, with timeout=1 and what was bound by then.
 *   bind_raw bind --kubeconfig F --namespace NS --nodes M [--node-prefix NP] [--threads T]
 *                 [--qps Q] [--burst B]
 *       List the namespace's unbound pods and POST pods/<name>/binding for each, round robin
 *       over NP-0 … NP-(M-1), with T threads and a client-side limit of Q qps / burst B: what
 *       any scheduler's binder can at best achieve against this server. With --follow N:
 *       list the unbound pods, print "following ..." (the caller may start creating now), then
 *       watch the namespace and POST the binding of each unbound pod as soon as its ADDED event
 *       arrives (the same threads, round robin and limit); exit after N binds, or after
 *       --timeout-seconds (non-zero). No decisions: the best any scheduler can do for a stream.
 *
 * Every mode prints one line of results on stdout and exits non-zero when a request failed.
 */
#include "vc_prelude.h"

#include <pthread.h>
#include <unistd.h>

#include "vc_alloc.h"
#include "vc_flags.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

struct config {
	const char *kubeconfig;
	const char *ns;
	int count;
	int threads;
	const char *prefix;
	const char *scheduler_name;
	int group_size;
	const char *queue;
	const char *cpu;
	const char *memory;
	int timeout_s;
	int nodes;
	const char *node_prefix;
	double qps;
	int burst;
	double rate;
	int follow;
};

#define F(name, type, def, min, max, field, help)                               \
	{                                                                       \
		name, type, def, min, max, offsetof(struct config, field), help \
	}
static const struct vc_flag flags[] = {
	F("kubeconfig", VC_FLAG_STRING, "", 0, 0, kubeconfig, "kubeconfig"),
	F("namespace", VC_FLAG_STRING, "default", 0, 0, ns, "namespace"),
	F("count", VC_FLAG_INT, "1000", 1, 1000000, count, "pods (create, watch)"),
	F("threads", VC_FLAG_INT, "16", 1, 256, threads, "threads (create, bind)"),
	F("prefix", VC_FLAG_STRING, "p", 0, 0, prefix, "pod name prefix (create)"),
	F("scheduler-name", VC_FLAG_STRING, "default-scheduler", 0, 0, scheduler_name,
	  "spec.schedulerName (create)"),
	F("group-size", VC_FLAG_INT, "0", 0, 1000000, group_size,
	  "pods per PodGroup; 0: no PodGroups (create)"),
	F("queue", VC_FLAG_STRING, "default", 0, 0, queue, "the PodGroups' queue (create)"),
	F("cpu", VC_FLAG_STRING, "100m", 0, 0, cpu, "cpu request per pod (create)"),
	F("memory", VC_FLAG_STRING, "64Mi", 0, 0, memory, "memory request per pod (create)"),
	F("timeout-seconds", VC_FLAG_INT, "600", 1, 86400, timeout_s, "give up after (watch)"),
	F("nodes", VC_FLAG_INT, "1", 1, 1000000, nodes, "nodes to bind to (bind)"),
	F("node-prefix", VC_FLAG_STRING, "sim-node", 0, 0, node_prefix,
	  "node names are <prefix>-<n> (bind)"),
	F("qps", VC_FLAG_DOUBLE, "2000", 0, 1e6, qps, "client-side limit, 0: none (bind)"),
	F("burst", VC_FLAG_INT, "2000", 1, 1000000, burst, "client-side burst (bind)"),
	F("rate", VC_FLAG_DOUBLE, "0", 0, 1e6, rate, "pods/s, 0: as fast as possible (create)"),
	F("follow", VC_FLAG_INT, "0", 0, 1000000, follow,
	  "bind the pods the watch sees ADDED, exit after this many; 0: list once (bind)"),
};
#undef F

struct shared {
	const struct config *cfg;
	struct vc_kube *kube;
	pthread_mutex_t lock;
	int next;     /* next work item */
	int total;    /* work items */
	int failed;   /* failed requests */
	char **names; /* bind: the pods to bind */
	int phase;    /* create: 0 PodGroups, 1 pods */
	int64_t t0;   /* create: monotonic start of the pods (pacing) */
	/* bind --follow: names[0 .. avail) have been seen; done: no more will come */
	bool follow;
	int avail;
	bool done;
	pthread_cond_t more;
};

/* The next work item, or -1. With follow, waits until the watch has seen the item. */
static int take(struct shared *sh)
{
	int i;

	pthread_mutex_lock(&sh->lock);
	while (sh->follow && sh->next < sh->total && sh->next >= sh->avail && !sh->done)
		pthread_cond_wait(&sh->more, &sh->lock);
	i = sh->next < sh->total && (!sh->follow || sh->next < sh->avail) ? sh->next++ : -1;
	pthread_mutex_unlock(&sh->lock);
	return i;
}

static void failed(struct shared *sh, const char *what, const char *name, const char *text)
{
	fprintf(stderr, "bind_raw: %s %s: %s\n", what, name, text);
	pthread_mutex_lock(&sh->lock);
	sh->failed++;
	pthread_mutex_unlock(&sh->lock);
}

static double now_s(void)
{
	return (double)vc_time_now_ns() / 1e9;
}

/* Run fn on cfg->threads threads; the wall time in seconds. */
static double run_threads(struct shared *sh, void *(*fn)(void *))
{
	pthread_t *tids = vc_calloc((size_t)sh->cfg->threads, sizeof(*tids));
	int64_t t0 = vc_time_mono_ns();
	int i, n = 0;

	if (!tids) {
		sh->failed++;
		return 0;
	}
	for (i = 0; i < sh->cfg->threads; i++)
		if (pthread_create(&tids[n], NULL, fn, sh) == 0)
			n++;
	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	vc_free(tids);
	return (double)(vc_time_mono_ns() - t0) / 1e9;
}

/* ---- create ------------------------------------------------------------------------------- */

static json_t *podgroup_object(const struct config *cfg, int k)
{
	char name[160];

	snprintf(name, sizeof(name), "%s-g%d", cfg->prefix, k);
	return json_pack("{s:s, s:s, s:{s:s}, s:{s:i, s:s}}", "apiVersion",
			 "scheduling.volcano.sh/v1beta1", "kind", "PodGroup", "metadata", "name",
			 name, "spec", "minMember", cfg->group_size, "queue", cfg->queue);
}

static json_t *pod_object(const struct config *cfg, int i)
{
	char name[160], group[160];
	json_t *pod, *ann;

	snprintf(name, sizeof(name), "%s-%d", cfg->prefix, i);
	pod = json_pack("{s:s, s:s, s:{s:s, s:{s:s}, s:{}}, s:{s:s, s:s, s:i, s:[{s:s, s:s, "
			"s:{s:{s:s, s:s}}}]}}",
			"apiVersion", "v1", "kind", "Pod", "metadata", "name", name, "labels",
			"bench", "sched", "annotations", "spec", "schedulerName",
			cfg->scheduler_name, "restartPolicy", "Never",
			"terminationGracePeriodSeconds", 0, "containers", "name", "main", "image",
			"busybox", "resources", "requests", "cpu", cfg->cpu, "memory", cfg->memory);
	if (!pod || cfg->group_size <= 0)
		return pod;
	snprintf(group, sizeof(group), "%s-g%d", cfg->prefix, i / cfg->group_size);
	ann = json_object_get(json_object_get(pod, "metadata"), "annotations");
	if (json_object_set_new(ann, "scheduling.k8s.io/group-name", json_string(group))) {
		json_decref(pod);
		return NULL;
	}
	return pod;
}

static void *creator(void *arg)
{
	struct shared *sh = arg;
	const struct vc_gvr *gvr = sh->phase == 0 ? &vc_gvr_podgroups : &vc_gvr_pods;
	struct vc_error err;
	int i, rc;

	while ((i = take(sh)) >= 0) {
		json_t *obj;

		if (sh->phase == 1 && sh->cfg->rate > 0) {
			int64_t due = sh->t0 + (int64_t)(1e9 * i / sh->cfg->rate),
				now = vc_time_mono_ns();

			if (due > now) {
				struct timespec ts = { (due - now) / 1000000000,
						       (due - now) % 1000000000 };

				nanosleep(&ts, NULL);
			}
		}
		obj = sh->phase == 0 ? podgroup_object(sh->cfg, i) : pod_object(sh->cfg, i);
		if (!obj) {
			failed(sh, "create", "?", "out of memory");
			continue;
		}
		vc_error_clear(&err);
		rc = vc_kube_create(sh->kube, gvr, sh->cfg->ns, NULL, NULL, obj, NULL, &err);
		if (rc && rc != VC_EALREADYEXISTS)
			failed(sh, "create",
			       json_string_value(
				       json_object_get(json_object_get(obj, "metadata"), "name")),
			       err.text);
		json_decref(obj);
	}
	return NULL;
}

static int do_create(struct shared *sh)
{
	const struct config *cfg = sh->cfg;
	double groups_s = 0, pods_s;
	int ngroups = 0;

	if (cfg->group_size > 0) {
		ngroups = (cfg->count + cfg->group_size - 1) / cfg->group_size;
		sh->phase = 0;
		sh->next = 0;
		sh->total = ngroups;
		groups_s = run_threads(sh, creator);
	}
	sh->phase = 1;
	sh->next = 0;
	sh->total = cfg->count;
	sh->t0 = vc_time_mono_ns();
	pods_s = run_threads(sh, creator);
	printf("created %d podgroups in %.3f s and %d pods in %.3f s (%.0f pods/s) with %d "
	       "threads, %d failed\n",
	       ngroups, groups_s, cfg->count, pods_s, cfg->count / pods_s, cfg->threads,
	       sh->failed);
	return sh->failed ? 1 : 0;
}

/* ---- listing ------------------------------------------------------------------------------ */

/* The namespace's pods (new reference), paged. */
static json_t *list_pods(struct shared *sh, const char *field_selector)
{
	struct vc_list_opts lo = { .limit = 500, .field_selector = field_selector };
	struct vc_error err;
	json_t *list = NULL;

	vc_error_clear(&err);
	if (vc_kube_list(sh->kube, &vc_gvr_pods, sh->cfg->ns, &lo, &list, &err)) {
		fprintf(stderr, "bind_raw: list pods: %s\n", err.text);
		return NULL;
	}
	return list;
}

static const char *pod_name(const json_t *pod)
{
	return json_string_value(json_object_get(json_object_get(pod, "metadata"), "name"));
}

static bool pod_bound(const json_t *pod)
{
	const char *node =
		json_string_value(json_object_get(json_object_get(pod, "spec"), "nodeName"));

	return node && *node;
}

/* ---- watch -------------------------------------------------------------------------------- */

struct watch_state {
	const struct config *cfg;
	char *bound;   /* [count]: pod P-i seen bound */
	double *added; /* [count]: when the watch saw P-i ADDED unbound (0: not seen so) */
	double *lat;   /* [count]: creation -> bind of the pods with added[i] */
	int nlat;
	int nbound;
	double first, last; /* wall clock of the first and the last bind seen */
	char rv[64];
	volatile int stop;
	int64_t deadline_ns; /* monotonic */
	struct shared *sh;   /* bind --follow: where the unbound pods go */
};

/* Index i of a pod named <prefix>-<i>, or -1. */
static int pod_index(const struct config *cfg, const char *name)
{
	size_t n = strlen(cfg->prefix);
	int i;

	if (!name || strncmp(name, cfg->prefix, n) != 0 || name[n] != '-')
		return -1;
	if (vc_parse_int(name + n + 1, 0, cfg->count - 1, &i))
		return -1;
	return i;
}

static void note_pod(struct watch_state *ws, const json_t *pod, double t, bool added)
{
	int i = pod_index(ws->cfg, pod_name(pod));

	if (i < 0 || ws->bound[i])
		return;
	if (!pod_bound(pod)) {
		if (added && !ws->added[i])
			ws->added[i] = t;
		return;
	}
	ws->bound[i] = 1;
	if (ws->added[i] > 0)
		ws->lat[ws->nlat++] = t - ws->added[i];
	if (ws->nbound++ == 0)
		ws->first = t;
	ws->last = t;
}

/* What both watches do first with an event: an error relists (false), else its version is kept. */
static bool watch_note_rv(struct watch_state *ws, enum vc_watch_event_type type, const json_t *obj)
{
	const char *rv = json_string_value(
		json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));

	if (type == VC_WATCH_ERROR)
		return false;
	if (rv)
		snprintf(ws->rv, sizeof(ws->rv), "%s", rv);
	return true;
}

static int on_event(void *ctx, enum vc_watch_event_type type, json_t *obj)
{
	struct watch_state *ws = ctx;

	if (!watch_note_rv(ws, type, obj))
		return VC_EGONE; /* relist */
	if (type == VC_WATCH_ADDED || type == VC_WATCH_MODIFIED)
		note_pod(ws, obj, now_s(), type == VC_WATCH_ADDED);
	return ws->nbound >= ws->cfg->count ? 1 : 0;
}

static void *watch_timer(void *arg)
{
	struct watch_state *ws = arg;

	while (!ws->stop && vc_time_mono_ns() < ws->deadline_ns) {
		struct timespec ts = { 0, 50000000L };

		nanosleep(&ts, NULL);
	}
	ws->stop = 1;
	return NULL;
}

/* (Re)list: count the bound pods and take the list's resourceVersion. */
static int relist(struct shared *sh, struct watch_state *ws)
{
	json_t *list = list_pods(sh, NULL), *items;
	size_t k;
	const char *rv;

	if (!list)
		return -1;
	items = json_object_get(list, "items");
	for (k = 0; k < json_array_size(items); k++)
		note_pod(ws, json_array_get(items, k), now_s(), false);
	rv = json_string_value(
		json_object_get(json_object_get(list, "metadata"), "resourceVersion"));
	snprintf(ws->rv, sizeof(ws->rv), "%s", rv ? rv : "");
	json_decref(list);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The nearest-rank percentile q of the n sorted values v (0 when n is 0). */
static double percentile(const double *v, int n, double q)
{
	int k = (int)(q * n + 0.999999);

	if (n <= 0)
		return 0;
	return v[VC_MAX(1, VC_MIN(k, n)) - 1];
}

static int do_watch(struct shared *sh)
{
	const struct config *cfg = sh->cfg;
	struct watch_state ws = { .cfg = cfg };
	struct vc_error err;
	pthread_t timer;
	int rc = 0, initial;

	ws.bound = vc_calloc((size_t)cfg->count, 1);
	ws.added = vc_calloc((size_t)cfg->count, sizeof(double));
	ws.lat = vc_calloc((size_t)cfg->count, sizeof(double));
	if (!ws.bound || !ws.added || !ws.lat || relist(sh, &ws)) {
		rc = 1;
		goto out;
	}
	initial = ws.nbound;
	ws.deadline_ns = vc_time_mono_ns() + (int64_t)cfg->timeout_s * 1000000000;
	printf("watching namespace %s from resourceVersion %s: %d of %d pods bound\n", cfg->ns,
	       ws.rv, initial, cfg->count);
	fflush(stdout);
	if (pthread_create(&timer, NULL, watch_timer, &ws)) {
		rc = 1;
		goto out;
	}
	while (ws.nbound < cfg->count && !ws.stop) {
		struct vc_watch_opts wo = { .resource_version = ws.rv, .allow_bookmarks = true };

		vc_error_clear(&err);
		rc = vc_kube_watch(sh->kube, &vc_gvr_pods, cfg->ns, &wo, on_event, &ws, &ws.stop,
				   &err);
		if (rc == 1 || rc == VC_ESHUTDOWN)
			break;
		if (rc == VC_EGONE) {
			if (relist(sh, &ws))
				break;
		} else if (rc) {
			fprintf(stderr, "bind_raw: watch: %s (retrying)\n", err.text);
			sleep(1);
		}
	}
	ws.stop = 1;
	pthread_join(timer, NULL);
	qsort(ws.lat, (size_t)ws.nlat, sizeof(double), cmp_double);
	printf("bound=%d first=%.3f last=%.3f seconds=%.3f rate=%.1f timeout=%d latency_n=%d "
	       "p50=%.3f p99=%.3f max=%.3f\n",
	       ws.nbound, ws.first, ws.last, ws.last - ws.first,
	       ws.last > ws.first ? (ws.nbound - 1) / (ws.last - ws.first) : 0.0,
	       ws.nbound < cfg->count, ws.nlat, percentile(ws.lat, ws.nlat, 0.50),
	       percentile(ws.lat, ws.nlat, 0.99), ws.nlat ? ws.lat[ws.nlat - 1] : 0.0);
	/* Pods bound before the watch started would skew the rate. */
	rc = initial ? 1 : 0;
out:
	vc_free(ws.bound);
	vc_free(ws.added);
	vc_free(ws.lat);
	return rc;
}

/* ---- bind --------------------------------------------------------------------------------- */

static void *binder(void *arg)
{
	struct shared *sh = arg;
	struct vc_error err;
	char node[160];
	int i, rc;

	while ((i = take(sh)) >= 0) {
		json_t *b;

		snprintf(node, sizeof(node), "%s-%d", sh->cfg->node_prefix, i % sh->cfg->nodes);
		b = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s}}", "apiVersion", "v1",
			      "kind", "Binding", "metadata", "name", sh->names[i], "namespace",
			      sh->cfg->ns, "target", "apiVersion", "v1", "kind", "Node", "name",
			      node);
		if (!b) {
			failed(sh, "bind", sh->names[i], "out of memory");
			continue;
		}
		vc_error_clear(&err);
		rc = vc_kube_create(sh->kube, &vc_gvr_pods, sh->cfg->ns, sh->names[i], "binding", b,
				    NULL, &err);
		json_decref(b);
		if (rc)
			failed(sh, "bind", sh->names[i], err.text);
	}
	return NULL;
}

static int do_bind(struct shared *sh)
{
	json_t *list = list_pods(sh, "spec.nodeName="), *items;
	size_t k, n;
	double secs;
	int i;

	if (!list)
		return 1;
	items = json_object_get(list, "items");
	n = json_array_size(items);
	sh->names = vc_calloc(n ? n : 1, sizeof(char *));
	if (!sh->names) {
		json_decref(list);
		return 1;
	}
	for (k = 0; k < n; k++)
		sh->names[k] = vc_strdup(pod_name(json_array_get(items, k)));
	json_decref(list);
	for (k = 0; k < n; k++)
		if (!sh->names[k])
			sh->failed++;
	sh->next = 0;
	sh->total = sh->failed ? 0 : (int)n;
	secs = run_threads(sh, binder);
	printf("bound %zu pods in %.3f s (%.0f pods/s) with %d threads (qps %.0f, burst %d), "
	       "%d failed\n",
	       n, secs, secs > 0 ? (double)n / secs : 0.0, sh->cfg->threads, sh->cfg->qps,
	       sh->cfg->burst, sh->failed);
	for (i = 0; i < (int)n; i++)
		vc_free(sh->names[i]);
	vc_free(sh->names);
	return sh->failed ? 1 : 0;
}

/* ---- bind --follow ------------------------------------------------------------------------ */

/* Queue the unbound pod for the binders (once); whether all cfg->follow are queued. */
static bool follow_pod(struct shared *sh, const json_t *pod)
{
	const char *name = pod_name(pod);
	bool full;
	int k;

	pthread_mutex_lock(&sh->lock);
	if (name && !pod_bound(pod) && sh->avail < sh->total) {
		for (k = 0; k < sh->avail && strcmp(sh->names[k], name) != 0; k++)
			;
		if (k == sh->avail && (sh->names[sh->avail] = vc_strdup(name)) != NULL) {
			sh->avail++;
			pthread_cond_broadcast(&sh->more);
		}
	}
	full = sh->avail >= sh->total;
	pthread_mutex_unlock(&sh->lock);
	return full;
}

static int on_follow_event(void *ctx, enum vc_watch_event_type type, json_t *obj)
{
	struct watch_state *ws = ctx;

	if (!watch_note_rv(ws, type, obj))
		return VC_EGONE; /* relist */
	return type == VC_WATCH_ADDED && follow_pod(ws->sh, obj) ? 1 : 0;
}

/* (Re)list the unbound pods, queue them and take the list's resourceVersion. */
static int follow_relist(struct watch_state *ws)
{
	json_t *list = list_pods(ws->sh, "spec.nodeName="), *items;
	const char *rv;
	size_t k;

	if (!list)
		return -1;
	items = json_object_get(list, "items");
	for (k = 0; k < json_array_size(items); k++)
		follow_pod(ws->sh, json_array_get(items, k));
	rv = json_string_value(
		json_object_get(json_object_get(list, "metadata"), "resourceVersion"));
	snprintf(ws->rv, sizeof(ws->rv), "%s", rv ? rv : "");
	json_decref(list);
	return 0;
}

/* The watch that feeds the binders (a thread). */
static void *follower(void *arg)
{
	struct watch_state *ws = arg;
	struct shared *sh = ws->sh;
	struct vc_error err;
	int rc;

	while (!ws->stop) {
		struct vc_watch_opts wo = { .resource_version = ws->rv, .allow_bookmarks = true };

		pthread_mutex_lock(&sh->lock);
		rc = sh->avail >= sh->total;
		pthread_mutex_unlock(&sh->lock);
		if (rc)
			break;
		vc_error_clear(&err);
		rc = vc_kube_watch(sh->kube, &vc_gvr_pods, sh->cfg->ns, &wo, on_follow_event, ws,
				   &ws->stop, &err);
		if (rc == 1 || rc == VC_ESHUTDOWN)
			break;
		if (rc == VC_EGONE) {
			if (follow_relist(ws))
				break;
		} else if (rc) {
			fprintf(stderr, "bind_raw: watch: %s (retrying)\n", err.text);
			sleep(1);
		}
	}
	pthread_mutex_lock(&sh->lock);
	sh->done = true;
	pthread_cond_broadcast(&sh->more);
	pthread_mutex_unlock(&sh->lock);
	return NULL;
}

static int do_follow(struct shared *sh)
{
	const struct config *cfg = sh->cfg;
	struct watch_state ws = { .cfg = cfg, .sh = sh };
	pthread_t timer, watcher;
	bool timed_out, watching;
	double secs;
	int i;

	sh->names = vc_calloc((size_t)cfg->follow, sizeof(char *));
	if (!sh->names)
		return 1;
	sh->follow = true;
	sh->total = cfg->follow;
	pthread_cond_init(&sh->more, NULL);
	if (follow_relist(&ws)) {
		vc_free(sh->names);
		return 1;
	}
	printf("following namespace %s from resourceVersion %s: %d of %d pods unbound\n", cfg->ns,
	       ws.rv, sh->avail, cfg->follow);
	fflush(stdout);
	ws.deadline_ns = vc_time_mono_ns() + (int64_t)cfg->timeout_s * 1000000000;
	if (pthread_create(&timer, NULL, watch_timer, &ws)) {
		vc_free(sh->names);
		return 1;
	}
	watching = pthread_create(&watcher, NULL, follower, &ws) == 0;
	if (!watching)
		sh->done = true;
	secs = run_threads(sh, binder);
	if (watching)
		pthread_join(watcher, NULL);
	timed_out = sh->next < sh->total;
	ws.stop = 1;
	pthread_join(timer, NULL);
	printf("bound %d pods in %.3f s (%.0f pods/s) with %d threads (qps %.0f, burst %d) "
	       "following the watch, timeout=%d, %d failed\n",
	       sh->next, secs, secs > 0 ? sh->next / secs : 0.0, cfg->threads, cfg->qps, cfg->burst,
	       timed_out, sh->failed);
	for (i = 0; i < sh->avail; i++)
		vc_free(sh->names[i]);
	vc_free(sh->names);
	pthread_cond_destroy(&sh->more);
	return sh->failed || timed_out ? 1 : 0;
}

/* ---- main --------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct vc_kube_config kc = { 0 };
	struct shared sh = { 0 };
	struct vc_error err;
	struct config cfg;
	const char *mode = argc > 1 ? argv[1] : "";
	int rc;

	vc_log_set_component("bind_raw");
	if (!vc_str_eq(mode, "create") && !vc_str_eq(mode, "watch") && !vc_str_eq(mode, "bind")) {
		fprintf(stderr, "usage: bind_raw create|watch|bind --kubeconfig FILE [flags]\n");
		return 2;
	}
	vc_error_clear(&err);
	rc = vc_flags_parse(flags, VC_ARRAY_SIZE(flags), &cfg, argc - 1, argv + 1, NULL, &err);
	if (rc == VC_FLAGS_HELP) {
		vc_flags_usage(flags, VC_ARRAY_SIZE(flags), "bind_raw MODE", stdout);
		return 0;
	}
	if (rc) {
		fprintf(stderr, "bind_raw: %s\n", err.text);
		return 2;
	}
	rc = vc_kube_config_from_flags(cfg.kubeconfig, "", &kc, &err);
	if (!rc) {
		/* Creating and watching are not what is measured: no limit. */
		kc.qps = vc_str_eq(mode, "bind") ? cfg.qps : 0;
		kc.burst = cfg.burst;
		rc = vc_kube_new(&kc, &sh.kube, &err);
	}
	if (rc) {
		fprintf(stderr, "bind_raw: %s\n", err.text);
		vc_kube_config_release(&kc);
		return 1;
	}
	sh.cfg = &cfg;
	pthread_mutex_init(&sh.lock, NULL);
	if (vc_str_eq(mode, "create"))
		rc = do_create(&sh);
	else if (vc_str_eq(mode, "watch"))
		rc = do_watch(&sh);
	else if (cfg.follow > 0)
		rc = do_follow(&sh);
	else
		rc = do_bind(&sh);
	vc_kube_free(sh.kube);
	vc_kube_config_release(&kc);
	return rc;
}
