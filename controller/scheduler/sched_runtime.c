/*
 * sched_runtime.c - the bundled scheduler's loop (docs/volcano/scheduler.md §1.1, §1.2):
 * configuration and its reloads, the informer handlers that ask for early cycles, the default and
 * root queues, and one cycle: snapshot, session, write-back.
 */
#include "sched_runtime.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include "sched_runtime_internal.h"
#include "vc_alloc.h"
#include "vc_events.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_metrics.h"
#include "vc_str.h"
#include "vc_time.h"

#define NS_PER_SEC INT64_C(1000000000)
/* A scheduler configuration file is small; anything bigger is a mistake. */
#define CONF_MAX ((size_t)1 << 20)
/* How often the loop looks again while the caches a session needs are not in. */
#define PREPARE_POLL_NS (10 * INT64_C(1000000))

void sched_runtime_config_defaults(struct sched_runtime_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->scheduler_names[0] = "volcano";
	cfg->nscheduler_names = 1;
	cfg->period_ns = NS_PER_SEC;
	cfg->bind_workers = 32;
	cfg->default_queue = "default";
	cfg->debounce_ns = 20 * INT64_C(1000000);
	cfg->pod_condition_qps = 20;
}

/* The loop's own clock: real monotonic time, whatever the tests do to vc_time. */
static int64_t loop_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

static uint64_t rng_next(uint64_t *st)
{
	/* xorshift64* */
	uint64_t x = *st;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*st = x;
	return x * UINT64_C(2685821657736338717);
}

/* ---- configuration --------------------------------------------------------------------------- */

static int read_file(const char *path, char **out, size_t *len, struct stat *st,
		     struct vc_error *err)
{
	char *buf = NULL;
	size_t n = 0;
	ssize_t r;
	int fd, rc;

	*out = NULL;
	memset(st, 0, sizeof(*st));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno ? errno : EIO;

		return vc_error_set(err, -e, "cannot read scheduler configuration '%s': %s", path,
				    strerror(e));
	}
	if (fstat(fd, st) < 0 || (size_t)st->st_size > CONF_MAX) {
		rc = vc_error_set(err, VC_E2BIG,
				  "cannot read scheduler configuration '%s': larger than %zu bytes",
				  path, CONF_MAX);
		goto fail;
	}
	buf = vc_malloc((size_t)st->st_size + 1);
	if (!buf) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	while (n <= (size_t)st->st_size) {
		r = read(fd, buf + n, (size_t)st->st_size + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno ? errno : EIO;

			rc = vc_error_set(err, -e, "cannot read scheduler configuration '%s': %s",
					  path, strerror(e));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > (size_t)st->st_size) {
		rc = vc_error_set(err, VC_EIO, "scheduler configuration '%s' changed while read",
				  path);
		goto fail;
	}
	buf[n] = '\0';
	close(fd);
	*out = buf;
	*len = n;
	return 0;
fail:
	vc_free(buf);
	close(fd);
	return rc;
}

static void conf_free(struct sched_conf *c)
{
	if (!c)
		return;
	sched_conf_release(c);
	vc_free(c);
}

static void remember_stat(struct sched_runtime *s, const struct stat *st)
{
	s->conf_stat_ok = true;
	s->conf_dev = (uint64_t)st->st_dev;
	s->conf_ino = (uint64_t)st->st_ino;
	s->conf_size = (int64_t)st->st_size;
	s->conf_mtime_ns = (int64_t)st->st_mtim.tv_sec * NS_PER_SEC + st->st_mtim.tv_nsec;
}

static bool stat_changed(const struct sched_runtime *s, const struct stat *st)
{
	return !s->conf_stat_ok || s->conf_dev != (uint64_t)st->st_dev ||
	       s->conf_ino != (uint64_t)st->st_ino || s->conf_size != (int64_t)st->st_size ||
	       s->conf_mtime_ns != (int64_t)st->st_mtim.tv_sec * NS_PER_SEC + st->st_mtim.tv_nsec;
}

/* Read and parse the file into a new conf. On success *text and *conf are the caller's. */
static int load_conf_file(struct sched_runtime *s, char **text, struct sched_conf **conf,
			  struct vc_error *err)
{
	struct sched_conf *c;
	struct stat st;
	size_t len = 0;
	int rc;

	*conf = NULL;
	rc = read_file(s->cfg.conf_path, text, &len, &st, err);
	if (rc)
		return rc;
	remember_stat(s, &st);
	c = vc_calloc(1, sizeof(*c));
	if (!c) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	rc = sched_conf_parse(*text, len, c, err);
	if (rc) {
		vc_free(c);
		vc_error_prefix(err, "invalid scheduler configuration '%s'", s->cfg.conf_path);
		goto fail;
	}
	*conf = c;
	return 0;
fail:
	vc_free(*text);
	*text = NULL;
	return rc;
}

/*
 * The Pod this scheduler runs in, the object of its configuration Events: $POD_NAMESPACE and
 * $POD_NAME when set, else the service account's namespace and $HOSTNAME (a Pod's hostname is
 * its name). False out of a cluster: the Event is skipped, the log and the metrics remain.
 */
static bool own_pod(char *ns, size_t nslen, const char **name)
{
	const char *env_ns = getenv("POD_NAMESPACE");
	FILE *f;

	*name = getenv("POD_NAME");
	if (!*name || !**name)
		*name = getenv("HOSTNAME");
	if (!*name || !**name)
		return false;
	if (env_ns && *env_ns) {
		snprintf(ns, nslen, "%s", env_ns);
		return true;
	}
	f = fopen("/var/run/secrets/kubernetes.io/serviceaccount/namespace", "r");
	if (!f)
		return false;
	if (!fgets(ns, (int)nslen, f))
		ns[0] = '\0';
	fclose(f);
	ns[strcspn(ns, "\r\n")] = '\0';
	return ns[0] != '\0';
}

/* A Warning Event about the configuration on the scheduler's Pod (own_pod). */
static void conf_event(struct sched_runtime *s, const char *reason, const char *message)
{
	struct vc_events *rec = s->cfg.events ? s->cfg.events : s->ctx->events;
	struct vc_object_ref ref = { .api_version = "v1", .kind = "Pod" };
	char ns[256];

	if (!rec || !own_pod(ns, sizeof(ns), &ref.name))
		return;
	ref.namespace = ns;
	(void)vc_event_record_ref(rec, &ref, "Warning", reason, "%s", message);
}

/*
 * Volcano's leniency, made visible: each entry the configuration skipped is logged (once per
 * file read), counted in volcano_scheduler_configuration_skipped_entries and summed up in one
 * Warning Event "ConfigurationSkipped".
 */
static void report_skipped(struct sched_runtime *s, const struct sched_conf *c)
{
	char msg[1024];
	size_t i, n;

	if (!c)
		return;
	if (s->m_conf_skipped && vc_metric_set(s->m_conf_skipped, NULL, (double)c->nskipped) < 0)
		VC_WARN("cannot update metric",
			"name=volcano_scheduler_configuration_skipped_entries");
	if (!c->nskipped)
		return;
	n = (size_t)snprintf(msg, sizeof(msg),
			     "scheduler configuration '%s': %zu entries skipped:", s->cfg.conf_path,
			     c->nskipped);
	for (i = 0; i < c->nskipped; i++) {
		VC_WARN("scheduler configuration entry skipped", "file=%s entry=\"%s\"",
			s->cfg.conf_path, c->skipped[i]);
		if (n < sizeof(msg))
			n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%s %s", i ? ";" : "",
					      c->skipped[i]);
	}
	conf_event(s, "ConfigurationSkipped", msg);
}

/* A file that does not parse: counted, logged by the caller, one Warning Event. */
static void report_invalid(struct sched_runtime *s, const char *why, const char *kept)
{
	char msg[1024];

	pthread_mutex_lock(&s->mu);
	s->stats.conf_errors++;
	pthread_mutex_unlock(&s->mu);
	if (s->m_conf_errors && vc_metric_inc(s->m_conf_errors, NULL) < 0)
		VC_WARN("cannot update metric",
			"name=volcano_scheduler_configuration_load_errors_total");
	snprintf(msg, sizeof(msg), "%s; using %s", why, kept);
	conf_event(s, "InvalidConfiguration", msg);
}

/*
 * Volcano re-reads the file when it changes. A stat per cycle tells; a new file that does not
 * parse is logged once and the running configuration stays.
 */
static void reload_conf(struct sched_runtime *s)
{
	struct sched_conf *c = NULL;
	struct vc_error err;
	struct stat st;
	char *text = NULL;

	if (!s->cfg.conf_path || !*s->cfg.conf_path)
		return;
	if (stat(s->cfg.conf_path, &st) < 0) {
		if (s->conf_stat_ok)
			VC_WARN("cannot read scheduler configuration, keeping the current one",
				"file=%s error=\"%s\"", s->cfg.conf_path, strerror(errno));
		s->conf_stat_ok = false;
		return;
	}
	if (!stat_changed(s, &st))
		return;
	remember_stat(s, &st);
	vc_error_clear(&err);
	if (load_conf_file(s, &text, &c, &err)) {
		report_invalid(s, err.text, "the previous configuration");
		VC_ERROR("invalid scheduler configuration, keeping the current one",
			 "file=%s error=\"%s\"", s->cfg.conf_path, err.text);
		return;
	}
	if (s->conf_text && text && strcmp(s->conf_text, text) == 0) {
		conf_free(c);
		vc_free(text);
		return;
	}
	conf_free(s->conf);
	vc_free(s->conf_text);
	s->conf = c;
	s->conf_text = text;
	pthread_mutex_lock(&s->mu);
	s->stats.conf_reloads++;
	pthread_mutex_unlock(&s->mu);
	VC_INFO("scheduler configuration reloaded", "file=%s", s->cfg.conf_path);
	report_skipped(s, c);
}

/* ---- informer handlers: which events may let a cycle make progress --------------------------- */

static bool ours(const struct sched_runtime *s, const json_t *pod)
{
	const char *name = json_string_value(vc_json_path(pod, "spec.schedulerName"));
	size_t i;

	for (i = 0; i < s->cfg.nscheduler_names; i++)
		if (vc_str_eq(s->cfg.scheduler_names[i],
			      name && *name ? name : "default-scheduler"))
			return true;
	return false;
}

static bool pod_terminal(const json_t *pod)
{
	const char *ph = json_string_value(vc_json_path(pod, "status.phase"));

	return vc_str_eq(ph, "Succeeded") || vc_str_eq(ph, "Failed");
}

static const char *pod_node(const json_t *pod)
{
	const char *n = json_string_value(vc_json_path(pod, "spec.nodeName"));

	return n ? n : "";
}

/* A pod this scheduler could place now: ours, unbound, in a group, not finished or deleting. */
static bool pod_waiting(const struct sched_runtime *s, const json_t *pod)
{
	const char *g = vc_json_get_str(vc_json_path(pod, "metadata.annotations"),
					"scheduling.k8s.io/group-name");

	return !*pod_node(pod) && g && *g && !pod_terminal(pod) &&
	       !vc_json_path(pod, "metadata.deletionTimestamp") && ours(s, pod);
}

/* A pod that holds resources on a node. */
static bool pod_holding(const json_t *pod)
{
	return *pod_node(pod) && !pod_terminal(pod);
}

/* Keep the pod's view; a view that cannot be made for lack of memory is retried in a while. */
static void put_view(struct sched_runtime *s, const json_t *obj)
{
	if (srt_pod_view_put(s, obj) < 0) {
		VC_WARN("out of memory keeping a pod's view; the pod is left out until it changes",
			"pod=%s/%s", vc_json_get_str(vc_json_get_obj(obj, "metadata"), "namespace"),
			vc_json_get_str(vc_json_get_obj(obj, "metadata"), "name"));
	}
}

/* An RFC 3339 time in ns since the epoch, 0 when NULL or malformed. */
static int64_t time_ns(const char *ts)
{
	int64_t sec;
	int32_t nsec = 0;

	if (!ts || vc_time_parse_rfc3339(ts, &sec, &nsec, NULL) < 0)
		return 0;
	return sec * NS_PER_SEC + nsec;
}

static int64_t pod_created_ns(const json_t *pod)
{
	return time_ns(vc_json_get_str(vc_json_get_obj(pod, "metadata"), "creationTimestamp"));
}

void srt_on_pod_add(void *ctx, json_t *obj)
{
	struct sched_runtime *s = ctx;

	put_view(s, obj);
	if (pod_waiting(s, obj)) {
		if (s->sched)
			sched_metrics_task_stage(s->sched, SCHED_STAGE_WATCHED,
						 pod_created_ns(obj));
		sched_runtime_kick(s);
	}
}

void srt_on_pod_update(void *ctx, json_t *old_obj, json_t *new_obj)
{
	struct sched_runtime *s = ctx;

	if (old_obj == new_obj)
		return;
	put_view(s, new_obj);
	if (pod_waiting(s, new_obj) && !pod_waiting(s, old_obj)) {
		sched_runtime_kick(s);
		return;
	}
	/* Resources freed or about to be (a Releasing pod makes room for pipelining). */
	if (pod_holding(old_obj) &&
	    (!pod_holding(new_obj) || strcmp(pod_node(old_obj), pod_node(new_obj)) != 0 ||
	     (vc_json_path(new_obj, "metadata.deletionTimestamp") &&
	      !vc_json_path(old_obj, "metadata.deletionTimestamp"))))
		sched_runtime_kick(s);
}

void srt_on_pod_delete(void *ctx, json_t *obj, bool final_state_unknown)
{
	struct sched_runtime *s = ctx;

	(void)final_state_unknown;
	srt_pod_view_del(s, obj);
	if (pod_holding(obj))
		sched_runtime_kick(s);
}

void srt_on_pod_listed(void *ctx, json_t *obj)
{
	struct sched_runtime *s = ctx;

	put_view(s, obj);
	if (pod_waiting(s, obj))
		sched_runtime_kick(s);
}

void srt_on_pg_listed(void *ctx, json_t *obj)
{
	struct sched_runtime *s = ctx;
	char key[VC_CACHE_KEY_MAX];
	int rc;

	if (vc_cache_key(obj, key, sizeof(key)) < 0)
		return;
	pthread_mutex_lock(&s->views_mu);
	rc = srt_map_put(&s->early_pgs, key, json_incref(obj));
	pthread_mutex_unlock(&s->views_mu);
	if (rc < 0) {
		/* Left out of the partial view: it comes with the synced cache. */
		json_decref(obj);
		return;
	}
	sched_runtime_kick(s);
}

static void on_any_add(void *ctx, json_t *obj)
{
	(void)obj;
	sched_runtime_kick(ctx);
}

static void on_any_delete(void *ctx, json_t *obj, bool final_state_unknown)
{
	(void)obj;
	(void)final_state_unknown;
	sched_runtime_kick(ctx);
}

static bool path_changed(const json_t *a, const json_t *b, const char *path)
{
	const json_t *x = vc_json_path(a, path), *y = vc_json_path(b, path);

	if (!x || !y)
		return x != y;
	return !json_equal((json_t *)x, (json_t *)y);
}

/* PodGroups: a spec change (the scheduler's own status writes are not news). */
void srt_on_pg_update(void *ctx, json_t *old_obj, json_t *new_obj)
{
	if (old_obj != new_obj && path_changed(old_obj, new_obj, "spec"))
		sched_runtime_kick(ctx);
}

void srt_on_queue_update(void *ctx, json_t *old_obj, json_t *new_obj)
{
	if (old_obj != new_obj && (path_changed(old_obj, new_obj, "spec") ||
				   path_changed(old_obj, new_obj, "status.state")))
		sched_runtime_kick(ctx);
}

/* Nodes: what the snapshot reads, not the heartbeats. */
void srt_on_node_update(void *ctx, json_t *old_obj, json_t *new_obj)
{
	if (old_obj != new_obj && (path_changed(old_obj, new_obj, "status.allocatable") ||
				   path_changed(old_obj, new_obj, "spec.unschedulable") ||
				   path_changed(old_obj, new_obj, "spec.taints") ||
				   path_changed(old_obj, new_obj, "metadata.labels")))
		sched_runtime_kick(ctx);
}

static void on_any_update(void *ctx, json_t *old_obj, json_t *new_obj)
{
	if (old_obj != new_obj)
		sched_runtime_kick(ctx);
}

static int add_handlers(struct sched_runtime *s)
{
	struct vc_ctrl_ctx *c = s->ctx;
	const struct vc_informer_handler pods = { srt_on_pod_add, srt_on_pod_update,
						  srt_on_pod_delete, s };
	const struct vc_informer_handler pgs = { on_any_add, srt_on_pg_update, on_any_delete, s };
	const struct vc_informer_handler queues = { on_any_add, srt_on_queue_update, on_any_delete,
						    s };
	const struct vc_informer_handler nodes = { on_any_add, srt_on_node_update, on_any_delete,
						   s };
	const struct vc_informer_handler pcs = { on_any_add, on_any_update, on_any_delete, s };
	int rc;

	/* The first lists' pages, for sessions before the lists are complete (srt_prepare). */
	rc = vc_informer_add_list_handler(c->pods, srt_on_pod_listed, s);
	if (!rc)
		rc = vc_informer_add_list_handler(c->podgroups, srt_on_pg_listed, s);
	if (!rc)
		rc = vc_informer_add_handler(c->pods, &pods);
	if (!rc)
		rc = vc_informer_add_handler(c->podgroups, &pgs);
	if (!rc)
		rc = vc_informer_add_handler(c->queues, &queues);
	if (!rc)
		rc = vc_informer_add_handler(c->nodes, &nodes);
	if (!rc && c->priorityclasses)
		rc = vc_informer_add_handler(c->priorityclasses, &pcs);
	return rc;
}

/* ---- the default and root queues ------------------------------------------------------------- */

/* Volcano's newDefaultAndRootQueue, plus state Open (docs/volcano/scheduler.md §2.4's REC). */
static int ensure_queue(struct sched_runtime *s, const char *name, bool reclaimable)
{
	json_t *cached = vc_cache_get(vc_informer_cache(s->ctx->queues), name);
	json_t *q, *st, *created = NULL;
	struct vc_error err;
	int rc;

	if (cached) {
		json_decref(cached);
		return 0;
	}
	vc_error_clear(&err);
	q = json_pack("{s:s, s:s, s:{s:s}, s:{s:i, s:b}}", "apiVersion",
		      "scheduling.volcano.sh/v1beta1", "kind", "Queue", "metadata", "name", name,
		      "spec", "weight", 1, "reclaimable", reclaimable);
	if (!q)
		return VC_ENOMEM;
	rc = vc_kube_create(s->ctx->kube, &vc_gvr_queues, NULL, NULL, NULL, q, &created, &err);
	if (rc) {
		if (rc != VC_EALREADYEXISTS)
			VC_WARN("cannot create queue", "queue=%s error=\"%s\"", name, err.text);
		json_decref(q);
		json_decref(created);
		return rc == VC_EALREADYEXISTS ? 0 : rc;
	}
	VC_INFO("queue created", "queue=%s", name);
	st = json_pack("{s:{s:s}}", "status", "state", "Open");
	rc = st ? vc_kube_patch(s->ctx->kube, &vc_gvr_queues, NULL, name, "status", VC_PATCH_MERGE,
				st, NULL, &err)
		: VC_ENOMEM;
	json_decref(st);
	/* Volcano's ClusterRole grants queues/status `update` only: PUT the created Queue. */
	if (rc == VC_EFORBIDDEN) {
		json_t *obj = created ? created : q;

		vc_error_clear(&err);
		rc = vc_json_set_path_new(obj, "status.state", json_string("Open"));
		if (!rc)
			rc = vc_kube_update(s->ctx->kube, &vc_gvr_queues, NULL, name, "status", obj,
					    NULL, &err);
	}
	json_decref(q);
	json_decref(created);
	if (rc == VC_ENOMEM)
		return rc;
	if (rc)
		VC_WARN("cannot open queue", "queue=%s error=\"%s\"", name, err.text);
	return 0;
}

static void ensure_queues(struct sched_runtime *s)
{
	if (s->queues_ok)
		return;
	if (ensure_queue(s, "root", false) == 0 && ensure_queue(s, s->cfg.default_queue, true) == 0)
		s->queues_ok = true;
}

/* ---- when a session may run: the partial view ------------------------------------------------ */

static bool inf_synced(struct sched_runtime *s, struct vc_informer *inf)
{
	if (!inf)
		return true;
	return s->synced ? s->synced(s, inf) : vc_informer_has_synced(inf);
}

/*
 * resourceVersion "0": the API server answers from its watch cache, filtering in memory, as
 * client-go's reflector lists; a paged list from etcd reads every pod to filter them (2.1 s for
 * 10,000 pending pods in bench_sched_e2e.sh). The watch cache may be a moment behind etcd: a pod
 * bound in that moment by another scheduler is missed, as the informers' watch may miss it for
 * that moment later on (the kubelet's admission is the backstop between schedulers). A server
 * that pages it anyway gets the continue token alone on the next pages.
 */
int srt_list_bound_pods(struct sched_runtime *s, struct vc_error *err)
{
	struct vc_list_opts lo = { NULL, "spec.nodeName!=", "0", 500, NULL, true };
	json_t *page = NULL, *item;
	char *cont = NULL;
	const char *next;
	size_t i, n = 0;
	int rc;

	for (;;) {
		lo.continue_token = cont;
		rc = vc_kube_list(s->ctx->kube, &vc_gvr_pods, NULL, &lo, &page, err);
		vc_free(cont);
		cont = NULL;
		if (rc)
			break;
		json_array_foreach (json_object_get(page, "items"), i, item) {
			n++;
			if (srt_pod_view_put_new(s, item) < 0) {
				rc = vc_error_set(err, VC_ENOMEM, "out of memory");
				goto out;
			}
		}
		next = json_string_value(vc_json_path(page, "metadata.continue"));
		if (!next || !*next)
			break;
		cont = vc_strdup(next);
		lo.resource_version = NULL;
		json_decref(page);
		page = NULL;
		if (!cont) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			break;
		}
	}
out:
	json_decref(page);
	if (!rc)
		VC_LOG(VC_LOG_V(1), "pods bound to nodes listed", "count=%zu", n);
	return rc;
}

static void early_pg_free(void *val)
{
	json_decref(val);
}

static bool drop_all(void *ctx, const char *key, void *val)
{
	(void)ctx;
	(void)key;
	(void)val;
	return true;
}

bool srt_prepare(struct sched_runtime *s)
{
	struct vc_ctrl_ctx *c = s->ctx;
	struct vc_informer *const need[] = { c->nodes,	  c->queues,	  c->priorityclasses,
					     c->pvcs,	  c->pvs,	  c->storageclasses,
					     c->csinodes, c->namespaces,  c->services,
					     c->rcs,	  c->replicasets, c->statefulsets };
	bool pods_synced, pgs_synced;
	struct vc_error err;
	size_t i;

	pods_synced = inf_synced(s, c->pods);
	/*
	 * Node usage must be whole before any session: without the pods informer's cache, list
	 * the bound pods alone (the API server answers from its watch cache with only those),
	 * while the informers list everything else (docs/volcano/scheduler.md §1.1).
	 */
	if (!pods_synced && !s->bound_listed) {
		if (s->bound_failed)
			return false;
		vc_error_clear(&err);
		if ((s->list_bound ? s->list_bound(s, &err) : srt_list_bound_pods(s, &err))) {
			VC_WARN("cannot list the pods bound to nodes; waiting for the pods cache",
				"error=\"%s\"", err.text);
			s->bound_failed = true;
			return false;
		}
		s->bound_listed = true;
	}
	for (i = 0; i < VC_ARRAY_SIZE(need); i++)
		if (!inf_synced(s, need[i]))
			return false;
	pods_synced = inf_synced(s, c->pods);
	pgs_synced = inf_synced(s, c->podgroups);
	if (pods_synced && s->pods_partial)
		srt_pod_views_reconcile(s);
	if (pgs_synced && s->early_pgs.count) {
		pthread_mutex_lock(&s->views_mu);
		srt_map_sweep(&s->early_pgs, drop_all, NULL);
		pthread_mutex_unlock(&s->views_mu);
	}
	if ((s->pods_partial || s->pgs_partial) && pods_synced && pgs_synced)
		VC_INFO("pods and podgroups listed; sessions over the whole view", "cycle=%" PRIu64,
			s->cycle);
	s->pods_partial = !pods_synced;
	s->pgs_partial = !pgs_synced;
	return true;
}

/* ---- one cycle ------------------------------------------------------------------------------- */

static void format_uuid(uint64_t a, uint64_t b, char *buf, size_t len)
{
	a = (a & ~UINT64_C(0xf000)) | UINT64_C(0x4000);	      /* version 4 */
	b = (b & ~(UINT64_C(3) << 62)) | (UINT64_C(2) << 62); /* variant 10 */
	snprintf(buf, len, "%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64,
		 a >> 32, (a >> 16) & 0xffff, a & 0xffff, b >> 48, b & UINT64_C(0xffffffffffff));
}

/* The series of one job or queue (s->series). */
struct srt_series {
	char *ns, *name, *queue; /* queue: NULL for a queue's entry */
	uint64_t seen_cycle;
};

static void series_free(void *val)
{
	struct srt_series *e = val;

	vc_free(e->ns);
	vc_free(e->name);
	vc_free(e->queue);
	vc_free(e);
}

/* Remember (or refresh) one job's or queue's series; a job seen first sets its start time. */
static void series_seen(struct sched_runtime *s, const struct sched_job_info *j, const char *queue)
{
	char key[600];
	struct srt_series *e;

	if (j)
		snprintf(key, sizeof(key), "j%s/%s", j->ns, j->name);
	else
		snprintf(key, sizeof(key), "q%s", queue ? queue : "");
	e = srt_map_get(&s->series, key);
	if (e && (!j || vc_str_eq(e->queue, j->queue))) {
		e->seen_cycle = s->cycle;
		return;
	}
	e = vc_calloc(1, sizeof(*e));
	if (!e)
		return;
	e->seen_cycle = s->cycle;
	if (j) {
		e->ns = vc_strdup(j->ns);
		e->name = vc_strdup(j->name);
		e->queue = vc_strdup(j->queue);
	} else {
		e->name = vc_strdup(queue);
	}
	if (!e->name || (j && (!e->ns || !e->queue)) || srt_map_put(&s->series, key, e) < 0) {
		series_free(e);
		return;
	}
	if (j)
		sched_metrics_job_seen(s->sched, j->ns, j->name, j->queue,
				       j->pg ? time_ns(j->pg->meta.creation_timestamp) : 0);
}

static bool series_gone(void *ctx, const char *key, void *val)
{
	struct sched_runtime *s = ctx;
	struct srt_series *e = val;

	if (e->seen_cycle == s->cycle)
		return false;
	if (key[0] == 'j')
		sched_metrics_job_delete(s->sched, e->ns, e->name, e->queue);
	else
		sched_metrics_queue_delete(s->sched, e->name);
	return true;
}

/*
 * Jobs and queues of this cycle's snapshot keep their series; those of PodGroups and Queues
 * gone from the caches are deleted (Volcano's DeleteJobMetrics, DeleteQueueMetrics), so the
 * per-job series stay bounded by the jobs that exist.
 */
static void series_sweep(struct sched_runtime *s, const struct sched_snapshot *snap)
{
	size_t i;

	if (!s->sched)
		return;
	for (i = 0; i < snap->njobs; i++)
		series_seen(s, snap->jobs[i], NULL);
	for (i = 0; i < snap->nqueues; i++)
		series_seen(s, NULL, snap->queues[i]->name);
	srt_map_sweep(&s->series, series_gone, s);
}

int sched_runtime_cycle(struct sched_runtime *s, struct vc_error *err)
{
	struct sched_result res;
	struct srt_snap sn;
	char uid[40], now[40];
	int64_t t0 = loop_now(), snap_ns, run_ns;
	uint64_t seed, a, b;
	size_t i, unschedulable = 0;
	int rc;

	pthread_mutex_lock(&s->mu);
	s->cycle++;
	s->stats.cycles++;
	pthread_mutex_unlock(&s->mu);
	reload_conf(s);
	ensure_queues(s);
	rc = srt_snap_build(s, &sn, err);
	if (rc)
		return rc;
	snap_ns = loop_now() - t0;
	sn.snap.metrics = s->sched;
	/* Binds go on the wire as the session decides them, not after its close. */
	s->binds_queued = 0;
	sn.snap.on_bind = srt_on_session_bind;
	sn.snap.on_bind_ctx = s;
	a = rng_next(&s->rng);
	b = rng_next(&s->rng);
	seed = rng_next(&s->rng);
	format_uuid(a, b, uid, sizeof(uid));
	if (vc_time_format_rfc3339(vc_time_now_ns() / NS_PER_SEC, now, sizeof(now)) < 0)
		snprintf(now, sizeof(now), "1970-01-01T00:00:00Z");
	memset(&res, 0, sizeof(res));
	rc = s->run(s->conf, &sn.snap, uid, now, seed, &res, err);
	if (rc) {
		pthread_mutex_lock(&s->mu);
		s->stats.session_errors++;
		pthread_mutex_unlock(&s->mu);
		srt_snap_release(&sn);
		return rc;
	}
	run_ns = loop_now() - t0 - snap_ns;
	srt_apply_result(s, &res);
	for (i = 0; i < res.ntasks; i++)
		unschedulable += vc_str_eq(res.tasks[i].reason, "Unschedulable");
	sched_metrics_attempts(s->sched, "unschedulable", (double)unschedulable);
	series_sweep(s, &sn.snap);
	VC_LOG(VC_LOG_V(3), "scheduling cycle done",
	       "session=%s jobs=%zu kept=%zu nodes=%zu binds=%zu evictions=%zu ms=%.3f "
	       "snapshot_ms=%.3f session_ms=%.3f partial=%d",
	       uid, sn.snap.njobs, sn.reused, sn.snap.nnodes, res.nbinds, res.nevicts,
	       (double)(loop_now() - t0) / 1e6, (double)snap_ns / 1e6, (double)run_ns / 1e6,
	       s->pods_partial || s->pgs_partial);
	sched_result_release(&res);
	srt_snap_keep(s, &sn);
	srt_snap_release(&sn);
	srt_gc(s);
	sched_metrics_cycle(s->sched, loop_now() - t0, snap_ns + res.open_ns);
	return 0;
}

static void *loop_main(void *arg)
{
	struct sched_runtime *s = arg;
	int64_t next = loop_now(), early_from = 0;
	struct vc_error err;

	pthread_mutex_lock(&s->mu);
	while (!s->stopping) {
		int64_t now = loop_now(), due = next;

		/*
		 * An early cycle waits at least as long as the last cycle took: while pods pour
		 * in, the loop takes at most half a CPU from the API server and the controllers.
		 */
		if (s->kick_at && s->kick_at < due)
			due = VC_MAX(s->kick_at, VC_MIN(early_from, next));
		if (now < due) {
			struct timespec ts = { .tv_sec = due / NS_PER_SEC,
					       .tv_nsec = due % NS_PER_SEC };

			pthread_cond_timedwait(&s->cond, &s->mu, &ts);
			continue;
		}
		s->kick_at = 0;
		pthread_mutex_unlock(&s->mu);
		if (!srt_prepare(s)) {
			/* Only at the start, until the caches a session needs are in. */
			pthread_mutex_lock(&s->mu);
			next = loop_now() + PREPARE_POLL_NS;
			continue;
		}
		vc_error_clear(&err);
		if (sched_runtime_cycle(s, &err))
			VC_ERROR("scheduling cycle failed", "error=\"%s\"", err.text);
		pthread_mutex_lock(&s->mu);
		/* The period is measured from the end of the previous cycle
		 * (docs/volcano/scheduler.md §1.1). */
		early_from = loop_now();
		next = early_from + s->cfg.period_ns;
		early_from += early_from - now;
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

void srt_kick(struct sched_runtime *s, int64_t delay_ns)
{
	int64_t at = loop_now() + delay_ns;

	pthread_mutex_lock(&s->mu);
	if (!s->kick_at || at < s->kick_at) {
		s->kick_at = at;
		pthread_cond_signal(&s->cond);
	}
	pthread_mutex_unlock(&s->mu);
}

void sched_runtime_kick(struct sched_runtime *s)
{
	srt_kick(s, s->cfg.debounce_ns);
}

void sched_runtime_stats(struct sched_runtime *s, struct sched_runtime_stats *out)
{
	pthread_mutex_lock(&s->mu);
	*out = s->stats;
	pthread_mutex_unlock(&s->mu);
}

/* ---- lifecycle ------------------------------------------------------------------------------- */

static void assumed_free(void *val)
{
	struct srt_assumed *a = val;

	vc_free(a->node);
	vc_free(a);
}

static void track_free_val(void *val)
{
	struct srt_track *t = val;

	vc_free(t->want);
	vc_free(t->rv);
	vc_free(t);
}

static void register_metrics(struct sched_runtime *s)
{
	struct vc_error err;

	if (!s->cfg.metrics)
		return;
	if (sched_metrics_register(s->cfg.metrics, !s->cfg.metrics_no_per_job, &s->metrics, &err) <
	    0)
		VC_WARN("cannot register metric", "error=\"%s\"", err.text);
	else
		s->sched = &s->metrics;
	if (vc_metrics_gauge(s->cfg.metrics, "volcano_scheduler_configuration_skipped_entries",
			     "Entries of the scheduler configuration in use that were skipped "
			     "(unknown actions, plugins, keys and plugin arguments)",
			     NULL, &s->m_conf_skipped, &err) < 0)
		VC_WARN("cannot register metric", "error=\"%s\"", err.text);
	if (vc_metrics_counter(s->cfg.metrics, "volcano_scheduler_configuration_load_errors_total",
			       "Scheduler configuration files that could not be parsed (the "
			       "previous configuration, or Volcano's default, stayed in use)",
			       NULL, &s->m_conf_errors, &err) < 0)
		VC_WARN("cannot register metric", "error=\"%s\"", err.text);
}

int sched_runtime_new(struct vc_ctrl_ctx *ctx, const struct sched_runtime_config *cfg,
		      struct sched_runtime **out, struct vc_error *err)
{
	struct sched_runtime *s;
	pthread_condattr_t ca;
	int rc;

	*out = NULL;
	if (!ctx || !cfg || !ctx->kube || !ctx->pods || !ctx->nodes || !ctx->podgroups ||
	    !ctx->queues)
		return vc_error_set(err, VC_EINVAL,
				    "the scheduler needs the pods, nodes, podgroups and queues "
				    "informers");
	s = vc_calloc(1, sizeof(*s));
	if (!s)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	s->ctx = ctx;
	s->cfg = *cfg;
	if (!s->cfg.nscheduler_names) {
		s->cfg.scheduler_names[0] = "volcano";
		s->cfg.nscheduler_names = 1;
	}
	s->cfg.nscheduler_names = VC_MIN(s->cfg.nscheduler_names, SCHED_MAX_NAMES);
	s->cfg.nnode_selectors = VC_MIN(s->cfg.nnode_selectors, SCHED_MAX_NAMES);
	if (s->cfg.period_ns <= 0)
		s->cfg.period_ns = NS_PER_SEC;
	if (!s->cfg.default_queue || !*s->cfg.default_queue)
		s->cfg.default_queue = "default";
	if (s->cfg.debounce_ns <= 0)
		s->cfg.debounce_ns = 20 * INT64_C(1000000);
	s->run = s->cfg.session_run ? s->cfg.session_run : sched_session_run;
	s->rng =
		s->cfg.seed ? s->cfg.seed : (uint64_t)vc_time_now_ns() ^ ((uint64_t)getpid() << 32);
	if (!s->rng)
		s->rng = 1;

	pthread_mutex_init(&s->mu, NULL);
	pthread_mutex_init(&s->views_mu, NULL);
	pthread_mutex_init(&s->pool_mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cond, &ca);
	pthread_cond_init(&s->pool_cond, &ca); /* the workers' idle wait */
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&s->idle_cond, NULL);
	vc_hmap_init(&s->kept, sched_name_hash, sched_name_eq);

	if (srt_map_init(&s->assumed, 64, assumed_free) < 0 ||
	    srt_map_init(&s->evicted, 16, vc_free) < 0 ||
	    srt_map_init(&s->track, 64, track_free_val) < 0 ||
	    srt_map_init(&s->throttle, 64, vc_free) < 0 ||
	    srt_map_init(&s->pod_views, 1024, srt_pod_view_free) < 0 ||
	    srt_map_init(&s->intern, 256, srt_intern_free) < 0 ||
	    srt_map_init(&s->pg_views, 256, srt_pg_view_free) < 0 ||
	    srt_map_init(&s->node_views, 256, srt_node_view_free) < 0 ||
	    srt_map_init(&s->series, 256, series_free) < 0 ||
	    srt_map_init(&s->vol_assumed, 8, srt_vol_assumed_free) < 0 ||
	    srt_map_init(&s->early_pgs, 0, early_pg_free) < 0) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	register_metrics(s);
	if (s->cfg.conf_path && *s->cfg.conf_path) {
		rc = load_conf_file(s, &s->conf_text, &s->conf, err);
		if (rc == VC_EINVALID || rc == VC_EPARSE) {
			/* As Volcano: a file that does not parse leaves the default in use. */
			const char *why = err ? err->text : "invalid";

			report_invalid(s, why, "Volcano's default");
			VC_ERROR("invalid scheduler configuration, using Volcano's default",
				 "file=%s error=\"%s\"", s->cfg.conf_path, why);
			vc_error_clear(err);
		} else if (rc) {
			goto fail;
		} else {
			report_skipped(s, s->conf);
		}
	}
	if (!s->conf) {
		s->conf = vc_calloc(1, sizeof(*s->conf));
		if (!s->conf) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto fail;
		}
		rc = sched_conf_default(s->conf);
		if (rc) {
			vc_free(s->conf);
			s->conf = NULL;
			rc = vc_error_set(err, rc,
					  "cannot make the default scheduler configuration");
			goto fail;
		}
	}
	/*
	 * Last: handlers cannot be removed, so nothing may fail after they are in. (A failure
	 * part-way leaves a handler behind; main exits on it.)
	 */
	rc = add_handlers(s);
	if (rc) {
		rc = vc_error_set(err, rc, "cannot register the scheduler's informer handlers");
		goto fail;
	}
	*out = s;
	return 0;
fail:
	sched_runtime_free(s);
	return rc;
}

int sched_runtime_start(struct sched_runtime *s)
{
	int rc;

	if (s->loop_started)
		return VC_EINVAL;
	rc = srt_pool_start(s);
	if (rc)
		return rc;
	s->stopping = false;
	rc = pthread_create(&s->loop, NULL, loop_main, s);
	if (rc) {
		srt_pool_stop(s);
		return -rc;
	}
	s->loop_started = true;
	VC_INFO("scheduler started", "schedulers=%s period_ms=%" PRId64 " bind_workers=%d",
		s->cfg.scheduler_names[0], s->cfg.period_ns / 1000000, s->nworkers);
	return 0;
}

void sched_runtime_stop(struct sched_runtime *s)
{
	if (!s)
		return;
	if (s->loop_started) {
		pthread_mutex_lock(&s->mu);
		s->stopping = true;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->loop, NULL);
		s->loop_started = false;
	}
	srt_pool_stop(s);
}

void sched_runtime_free(struct sched_runtime *s)
{
	if (!s)
		return;
	sched_runtime_stop(s);
	conf_free(s->conf);
	vc_free(s->conf_text);
	srt_map_release(&s->assumed);
	srt_map_release(&s->evicted);
	srt_map_release(&s->track);
	srt_map_release(&s->throttle);
	srt_map_release(&s->pod_views);
	srt_map_release(&s->intern);
	srt_map_release(&s->pg_views);
	srt_map_release(&s->node_views);
	srt_map_release(&s->series);
	srt_map_release(&s->vol_assumed);
	srt_map_release(&s->early_pgs);
	srt_kept_release(s);
	vc_hmap_release(&s->kept, NULL);
	pthread_cond_destroy(&s->cond);
	pthread_cond_destroy(&s->pool_cond);
	pthread_cond_destroy(&s->idle_cond);
	pthread_mutex_destroy(&s->mu);
	pthread_mutex_destroy(&s->views_mu);
	pthread_mutex_destroy(&s->pool_mu);
	vc_free(s);
}
