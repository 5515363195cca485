/*
 * vc-controller: Volcano's controller manager (job, podgroup, queue and gc controllers) with the
 * bundled gang / fair-share scheduler. Flags and wiring; the parts live beside this file, and
 * `parts` below has one row per part: its name, what turns it on, the informers it needs and how
 * it is created, started, stopped and freed.
 *
 * Start-up: flags -> API client -> event recorder -> shared informers (only those the enabled
 * parts need) -> each part registers its handlers -> leader election (when on) -> informers
 * start and sync -> parts start. Losing leadership ends the process (as Volcano's klog.Fatalf):
 * a restarted replica starts from a fresh cache.
 */
#include "vc_prelude.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "ctx.h"
#include "gc_controller.h"
#include "job_controller.h"
#include "pg_controller.h"
#include "queue_controller.h"
#include "scheduler/sched_runtime.h"
#include "vc_alloc.h"
#include "vc_daemon.h"
#include "vc_events.h"
#include "vc_flags.h"
#include "vc_httpd.h"
#include "vc_kube.h"
#include "vc_leader.h"
#include "vc_log.h"
#include "vc_metrics.h"
#include "vc_str.h"
#include "vc_time.h"

#define VC_CONTROLLER_VERSION "0.1.0"

struct config {
	const char *kubeconfig;
	const char *master;
	double qps;
	int burst;
	int worker_threads;
	int max_requeue;
	int pg_workers;
	int queue_workers;
	int gc_workers;
	const char *controllers;
	struct vc_flag_list scheduler_names;
	bool enable_scheduler;
	const char *scheduler_conf;
	int64_t schedule_period;
	int bind_workers;
	double pod_condition_qps;
	const char *default_queue;
	struct vc_flag_list node_selectors;
	int seed;
	bool enable_healthz;
	const char *healthz_address;
	bool enable_metrics;
	bool metrics_per_job; /* --metrics-per-job */
	const char *listen_address;
	bool version;
	struct vc_leader_config leader;
};

#define F(name, type, def, field, help)                                     \
	{                                                                   \
		name, type, def, 0, 0, offsetof(struct config, field), help \
	}

/*
 * The rows each personality's table is made of. vc-controller's table keeps its historical order:
 * client, controllers, scheduler, listeners, version, leader election, then Volcano's flags that
 * have no effect here.
 */
#define CLIENT_FLAGS                                                                    \
	F("kubeconfig", VC_FLAG_STRING, "", kubeconfig, "path to a kubeconfig file"),   \
		F("master", VC_FLAG_STRING, "", master,                                 \
		  "address of the Kubernetes API server (overrides the kubeconfig's)"), \
		F("kube-api-qps", VC_FLAG_DOUBLE, "50", qps,                            \
		  "client-side rate limit of API requests"),                            \
		F("kube-api-burst", VC_FLAG_INT, "100", burst,                          \
		  "client-side burst of API requests")

#define CONTROLLER_FLAGS                                                                    \
	F("worker-threads", VC_FLAG_INT, "3", worker_threads,                               \
	  "the number of threads syncing Jobs concurrently"),                               \
		F("max-requeue-num", VC_FLAG_INT, "15", max_requeue,                        \
		  "the number of times a failing Job request is retried before the Job is " \
		  "terminated (negative: unlimited)"),                                      \
		F("worker-threads-for-podgroup", VC_FLAG_INT, "5", pg_workers,              \
		  "the number of threads creating PodGroups for plain pods"),               \
		F("worker-threads-for-queue", VC_FLAG_INT, "5", queue_workers,              \
		  "the number of threads syncing Queues"),                                  \
		F("worker-threads-for-gc", VC_FLAG_INT, "1", gc_workers,                    \
		  "the number of threads deleting finished Jobs after their TTL"),          \
		F("controllers", VC_FLAG_STRING, "*", controllers,                          \
		  "controllers to run: '*' all, 'foo' only foo, '-foo' all but foo "        \
		  "(job-controller, pg-controller, queue-controller, gc-controller)")

#define SCHEDULER_NAME_FLAG                                      \
	F("scheduler-name", VC_FLAG_LIST, NULL, scheduler_names, \
	  "scheduler names handled (repeatable or a comma list; default volcano)")

#define SCHEDULER_FLAGS                                                                        \
	F("scheduler-conf", VC_FLAG_STRING, "", scheduler_conf,                                \
	  "the scheduler configuration file (actions and plugin tiers); re-read when it "      \
	  "changes; empty: Volcano's default"),                                                \
		F("schedule-period", VC_FLAG_DURATION, "1s", schedule_period,                  \
		  "the time between scheduling cycles"),                                       \
		F("bind-workers", VC_FLAG_INT, "32", bind_workers,                             \
		  "the number of threads binding pods to nodes"),                              \
		F("pod-condition-qps", VC_FLAG_DOUBLE, "20", pod_condition_qps,                \
		  "the rate of the scheduler's PodScheduled=False pod condition writes (each " \
		  "with its FailedScheduling event), burst twice as many; pods left over are " \
		  "written by later cycles (0: unlimited)"),                                   \
		F("default-queue", VC_FLAG_STRING, "default", default_queue,                   \
		  "the queue of PodGroups that name none"),                                    \
		F("node-selector", VC_FLAG_LIST, NULL, node_selectors,                         \
		  "key:value; only nodes with these labels are scheduled (repeatable)"),       \
		F("seed", VC_FLAG_INT, "0", seed,                                              \
		  "seed of the node-score tie breaker (0: from the clock)")

#define LISTENER_FLAGS(metrics_address)                                                       \
	F("enable-healthz", VC_FLAG_BOOL, "false", enable_healthz, "serve /healthz"),         \
		F("healthz-address", VC_FLAG_STRING, ":11251", healthz_address,               \
		  "the health listener's host:port"),                                         \
		F("enable-metrics", VC_FLAG_BOOL, "false", enable_metrics, "serve /metrics"), \
		F("metrics-per-job", VC_FLAG_BOOL, "true", metrics_per_job,                   \
		  "export the series labelled by job (false bounds /metrics by queues)"),     \
		F("listen-address", VC_FLAG_STRING, metrics_address, listen_address,          \
		  "the metrics listener's host:port"),                                        \
		F("version", VC_FLAG_BOOL, "false", version, "print the version and exit")

/* Volcano's flags that Caldera accepts and ignores, with a warning (vc_flags.h). */
#define NOEFFECT(name)                                                                   \
	{                                                                                \
		name, VC_FLAG_NOEFFECT, NULL, 0, 0, 0, "Volcano's; no effect in Caldera" \
	}
#define NOEFFECT_BOOL(name)                                                                   \
	{                                                                                     \
		name, VC_FLAG_NOEFFECT_BOOL, NULL, 0, 0, 0, "Volcano's; no effect in Caldera" \
	}

#define COMMON_NOEFFECT_FLAGS                                                                  \
	NOEFFECT("tls-cert-file"), NOEFFECT("tls-private-key-file"), NOEFFECT("ca-cert-file"), \
		NOEFFECT("feature-gates"), NOEFFECT("node-worker-threads")

#define CONTROLLER_NOEFFECT_FLAGS                                                 \
	NOEFFECT("sharding-configmap"), NOEFFECT("sharding-configmap-namespace"), \
		NOEFFECT("detection-period-of-dependson-task"),                   \
		NOEFFECT_BOOL("inherit-owner-annotations"),                       \
		NOEFFECT("worker-threads-for-hypernode")

#define SCHEDULER_NOEFFECT_FLAGS                                                                  \
	NOEFFECT_BOOL("priority-class"), NOEFFECT("percentage-nodes-to-find"),                    \
		NOEFFECT("minimum-feasible-nodes"), NOEFFECT("minimum-percentage-nodes-to-find"), \
		NOEFFECT("plugins-dir"), NOEFFECT_BOOL("csi-storage"),                            \
		NOEFFECT("ignored-provisioners"), NOEFFECT_BOOL("enable-cache-dumper"),           \
		NOEFFECT("cache-dump-dir"), NOEFFECT("sharding-mode"), NOEFFECT("sharding-name")

/* vc-controller: Volcano's controller manager and scheduler in one process. */
static const struct vc_flag all_flags[] = {
	CLIENT_FLAGS,
	CONTROLLER_FLAGS,
	SCHEDULER_NAME_FLAG,
	F("enable-scheduler", VC_FLAG_BOOL, "true", enable_scheduler,
	  "run the bundled gang / fair-share scheduler"),
	SCHEDULER_FLAGS,
	LISTENER_FLAGS(":8081"),
	VC_LEADER_FLAGS(struct config, leader, "vc-controller-manager"),
	COMMON_NOEFFECT_FLAGS,
	CONTROLLER_NOEFFECT_FLAGS,
	SCHEDULER_NOEFFECT_FLAGS,
};

/* vc-controller-manager: the controllers alone, with Volcano's controller-manager's flags. */
static const struct vc_flag controller_manager_flags[] = {
	CLIENT_FLAGS,
	CONTROLLER_FLAGS,
	SCHEDULER_NAME_FLAG,
	LISTENER_FLAGS(":8081"),
	VC_LEADER_FLAGS(struct config, leader, "vc-controller-manager"),
	COMMON_NOEFFECT_FLAGS,
	CONTROLLER_NOEFFECT_FLAGS,
};

/* vc-scheduler: the scheduler alone, with Volcano's scheduler's flags and defaults. */
static const struct vc_flag scheduler_flags[] = {
	CLIENT_FLAGS,
	SCHEDULER_NAME_FLAG,
	SCHEDULER_FLAGS,
	LISTENER_FLAGS(":8080"),
	VC_LEADER_FLAGS(struct config, leader, "vc-scheduler"),
	COMMON_NOEFFECT_FLAGS,
	SCHEDULER_NOEFFECT_FLAGS,
};

/* What the process runs, chosen by the name it was invoked as (busybox-style). */
enum role {
	ROLE_ALL,	  /* controllers and the bundled scheduler */
	ROLE_CONTROLLERS, /* the controllers, no scheduler */
	ROLE_SCHEDULER,	  /* the scheduler, no controller */
};

struct personality {
	const char *name; /* argv[0]'s base name; the log's component and the usage's program */
	enum role role;
	const struct vc_flag *flags;
	size_t nflags;
};

static const struct personality personalities[] = {
	{ "vc-controller", ROLE_ALL, all_flags, VC_ARRAY_SIZE(all_flags) },
	{ "vc-controller-manager", ROLE_CONTROLLERS, controller_manager_flags,
	  VC_ARRAY_SIZE(controller_manager_flags) },
	{ "vc-scheduler", ROLE_SCHEDULER, scheduler_flags, VC_ARRAY_SIZE(scheduler_flags) },
};

/* The personality argv0's base name selects; any other name is vc-controller. */
static const struct personality *personality_of(const char *argv0)
{
	const char *base = argv0 ? strrchr(argv0, '/') : NULL;
	size_t i;

	base = base ? base + 1 : (argv0 ? argv0 : "");
	for (i = 0; i < VC_ARRAY_SIZE(personalities); i++)
		if (!strcmp(base, personalities[i].name))
			return &personalities[i];
	return &personalities[0];
}

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* The informers a part needs (struct ctx_opts). */
enum {
	NEED_JOBS = 1 << 0,
	NEED_PODS = 1 << 1,
	NEED_PODGROUPS = 1 << 2,
	NEED_QUEUES = 1 << 3,
	NEED_COMMANDS = 1 << 4,
	NEED_PRIORITYCLASSES = 1 << 5,
	NEED_PVCS = 1 << 6,
	NEED_NODES = 1 << 7,
	NEED_STORAGE = 1 << 8,	 /* PersistentVolumes, StorageClasses, CSINodes */
	NEED_PLACEMENT = 1 << 9, /* namespaces, services, pod controllers */
};

struct app;

/*
 * One part of vc-controller. Parts are created (and register their informer handlers) in the
 * order of the table, started in start_order, stopped and freed in the reverse of that.
 */
struct part {
	const char *name; /* in --controllers, unless own_flag */
	bool own_flag;	  /* on by the bool flag at flag_offset in struct config instead */
	size_t flag_offset;
	unsigned needs; /* NEED_* */
	int start_order;
	int (*create)(struct app *app, void **out, struct vc_error *err);
	int (*start)(void *part);
	void (*stop)(void *part);
	void (*free)(void *part);
};

#define PART_COUNT 5
static const struct part parts[PART_COUNT];

/* The part called name[0..len) in --controllers, or -1. */
static int part_index(const char *name, size_t len)
{
	int i;

	for (i = 0; i < PART_COUNT; i++)
		if (!parts[i].own_flag && strlen(parts[i].name) == len &&
		    !strncmp(parts[i].name, name, len))
			return i;
	return -1;
}

/*
 * Volcano's --controllers: "*" turns every controller on, "name" one, "-name" one off; a list
 * of negations alone means "all but these" ("-job-controller" = "*,-job-controller"). Parts
 * with a flag of their own are not controllers: their flag decides.
 */
static int parse_controllers(const char *list, const struct config *cfg, bool on[PART_COUNT],
			     struct vc_error *err)
{
	bool star = false, positive = false;
	const char *s;
	int i, pass;

	for (i = 0; i < PART_COUNT; i++)
		on[i] = false;
	/* Pass 0 checks and applies "*" and names; pass 1 applies the negations. */
	for (pass = 0; pass < 2; pass++) {
		for (s = list; s && *s;) {
			const char *end = strchr(s, ',');
			size_t len = end ? (size_t)(end - s) : strlen(s);
			bool neg = len > 0 && *s == '-';

			if (pass == 0 && len) {
				if (len == 1 && *s == '*') {
					star = positive = true;
				} else if ((i = part_index(s + neg, len - neg)) < 0) {
					return vc_error_set(err, VC_EINVAL,
							    "unknown controller '%.*s'", (int)len,
							    s);
				} else if (!neg) {
					on[i] = true;
					positive = true;
				}
			} else if (pass == 1 && neg) {
				on[part_index(s + 1, len - 1)] = false;
			}
			s += len + (end ? 1 : 0);
		}
		if (pass == 0 && (star || !positive))
			for (i = 0; i < PART_COUNT; i++)
				on[i] = true;
	}
	for (i = 0; i < PART_COUNT; i++)
		if (parts[i].own_flag)
			on[i] = *(const bool *)((const char *)cfg + parts[i].flag_offset);
	return 0;
}

/* "host:port", ":port" (every interface) or "[v6]:port". */
static int parse_hostport(const char *s, char *host, size_t hlen, uint16_t *port,
			  struct vc_error *err)
{
	const char *colon = strrchr(s, ':');
	const char *h = s;
	size_t n;
	int64_t p;

	if (!colon || vc_parse_int64(colon + 1, &p) || p < 0 || p > 65535)
		return vc_error_set(err, VC_EINVAL, "invalid address '%s': want host:port", s);
	n = (size_t)(colon - s);
	if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
		h++;
		n -= 2;
	}
	if (n >= hlen)
		return vc_error_set(err, VC_EINVAL, "invalid address '%s': host too long", s);
	if (!n) {
		snprintf(host, hlen, "0.0.0.0");
	} else {
		memcpy(host, h, n);
		host[n] = '\0';
	}
	*port = (uint16_t)p;
	return 0;
}

struct app {
	struct config cfg;
	bool on[PART_COUNT];
	void *part[PART_COUNT]; /* NULL when off (or not created) */
	struct vc_kube *kube;
	struct vc_kube *events_kube; /* events have a client (and a rate budget) of their own */
	struct vc_events *events;
	struct vc_events *sched_events; /* source: the first scheduler name; NULL: no scheduler */
	struct vc_ctrl_ctx ctx;
	struct vc_leader *leader;
	struct vc_httpd *health, *metrics_srv;
	struct vc_metrics *metrics;
	const char *names[SCHED_MAX_NAMES];
	char *name_store[SCHED_MAX_NAMES];
	size_t nnames;
	bool running;
};

static int healthz(void *ctx, struct vc_buf *reason)
{
	struct app *app = ctx;

	(void)reason;
	(void)app;
	return 0;
}

static int create_job(struct app *app, void **out, struct vc_error *err)
{
	const struct config *c = &app->cfg;
	struct jobctl_config jc;

	jobctl_config_defaults(&jc);
	jc.workers = c->worker_threads;
	jc.max_requeue = c->max_requeue;
	jc.metrics = app->metrics;
	jc.metrics_no_per_job = !c->metrics_per_job;
	return jobctl_new(&app->ctx, &jc, (struct jobctl **)out, err);
}

static int create_pg(struct app *app, void **out, struct vc_error *err)
{
	const struct config *c = &app->cfg;
	struct pgctl_config pc;

	pgctl_config_defaults(&pc);
	pc.workers = c->pg_workers;
	for (size_t i = 0; i < app->nnames && i < PGCTL_MAX_SCHEDULER_NAMES; i++)
		pc.scheduler_names[i] = app->names[i];
	pc.nscheduler_names = VC_MIN(app->nnames, (size_t)PGCTL_MAX_SCHEDULER_NAMES);
	return pgctl_new(&app->ctx, &pc, (struct pgctl **)out, err);
}

static int create_queue(struct app *app, void **out, struct vc_error *err)
{
	const struct config *c = &app->cfg;
	struct queuectl_config qc;

	queuectl_config_defaults(&qc);
	qc.workers = c->queue_workers;
	qc.metrics = app->metrics;
	qc.max_requeue = c->max_requeue;
	return queuectl_new(&app->ctx, &qc, (struct queuectl **)out, err);
}

static int create_gc(struct app *app, void **out, struct vc_error *err)
{
	const struct config *c = &app->cfg;
	struct gcctl_config gc;

	gcctl_config_defaults(&gc);
	gc.workers = c->gc_workers;
	return gcctl_new(&app->ctx, &gc, (struct gcctl **)out, err);
}

static int create_sched(struct app *app, void **out, struct vc_error *err)
{
	const struct config *c = &app->cfg;
	struct sched_runtime_config sc;
	char *sel_store[SCHED_MAX_NAMES] = { 0 };
	size_t i, nsel = 0;
	int rc;

	sched_runtime_config_defaults(&sc);
	for (i = 0; i < app->nnames; i++)
		sc.scheduler_names[i] = app->names[i];
	sc.nscheduler_names = app->nnames;
	sc.conf_path = c->scheduler_conf;
	sc.period_ns = c->schedule_period;
	sc.bind_workers = c->bind_workers;
	sc.pod_condition_qps = c->pod_condition_qps;
	sc.default_queue = c->default_queue;
	sc.seed = (uint64_t)c->seed;
	sc.metrics = app->metrics;
	sc.metrics_no_per_job = !c->metrics_per_job;
	sc.events = app->sched_events;
	rc = vc_flag_list_split(&c->node_selectors, sel_store, sc.node_selectors, SCHED_MAX_NAMES,
				&nsel);
	sc.nnode_selectors = nsel;
	if (!rc)
		rc = sched_runtime_new(&app->ctx, &sc, (struct sched_runtime **)out, err);
	for (i = 0; i < SCHED_MAX_NAMES; i++)
		vc_free(sel_store[i]);
	return rc;
}

/* void * adapters of a part's start, stop and free. */
#define PART_LIFECYCLE(type, start_fn, stop_fn, free_fn) \
	static int start_fn##_part(void *p)              \
	{                                                \
		return start_fn((type *)p);              \
	}                                                \
	static void stop_fn##_part(void *p)              \
	{                                                \
		stop_fn((type *)p);                      \
	}                                                \
	static void free_fn##_part(void *p)              \
	{                                                \
		free_fn((type *)p);                      \
	}

PART_LIFECYCLE(struct jobctl, jobctl_start, jobctl_stop, jobctl_free)
PART_LIFECYCLE(struct pgctl, pgctl_start, pgctl_stop, pgctl_free)
PART_LIFECYCLE(struct queuectl, queuectl_start, queuectl_stop, queuectl_free)
PART_LIFECYCLE(struct gcctl, gcctl_start, gcctl_stop, gcctl_free)
PART_LIFECYCLE(struct sched_runtime, sched_runtime_start, sched_runtime_stop, sched_runtime_free)

#define PART_OPS(pfx) .start = pfx##_start_part, .stop = pfx##_stop_part, .free = pfx##_free_part

static const struct part parts[PART_COUNT] = {
	{ .name = "job-controller",
	  .needs = NEED_JOBS | NEED_PODS | NEED_PODGROUPS | NEED_QUEUES | NEED_COMMANDS |
		   NEED_PRIORITYCLASSES | NEED_PVCS,
	  .start_order = 2,
	  .create = create_job,
	  PART_OPS(jobctl) },
	/* The podgroups cache saves a create per pod. */
	{ .name = "pg-controller",
	  .needs = NEED_PODS | NEED_PODGROUPS,
	  .start_order = 1,
	  .create = create_pg,
	  PART_OPS(pgctl) },
	{ .name = "queue-controller",
	  .needs = NEED_QUEUES | NEED_PODGROUPS | NEED_COMMANDS,
	  .start_order = 0,
	  .create = create_queue,
	  PART_OPS(queuectl) },
	{ .name = "gc-controller",
	  .needs = NEED_JOBS,
	  .start_order = 3,
	  .create = create_gc,
	  PART_OPS(gcctl) },
	{ .name = "scheduler",
	  .own_flag = true,
	  .flag_offset = offsetof(struct config, enable_scheduler),
	  .needs = NEED_PODS | NEED_NODES | NEED_PODGROUPS | NEED_QUEUES | NEED_PRIORITYCLASSES |
		   NEED_PVCS | NEED_STORAGE | NEED_PLACEMENT,
	  .start_order = 4,
	  .create = create_sched,
	  PART_OPS(sched_runtime) },
};

/* The row of the scheduler in parts. */
#define SCHED_PART 4

/* The role's parts: the scheduler alone, the controllers alone, or what the flags say. */
static void apply_role(enum role role, bool on[PART_COUNT])
{
	int i;

	for (i = 0; i < PART_COUNT; i++) {
		if (role == ROLE_SCHEDULER)
			on[i] = i == SCHED_PART;
		else if (role == ROLE_CONTROLLERS && i == SCHED_PART)
			on[i] = false;
	}
}

/* The part at position k of the start order. */
static int part_at(int k)
{
	int i;

	for (i = 0; i < PART_COUNT; i++)
		if (parts[i].start_order == k)
			return i;
	return 0; /* not reached: start_order is a permutation */
}

/* Whether the part called name was created. */
static bool part_created(const struct app *app, const char *name)
{
	int i;

	for (i = 0; i < PART_COUNT; i++)
		if (!strcmp(parts[i].name, name))
			return app->part[i] != NULL;
	return false;
}

static int create_parts(struct app *app, struct vc_error *err)
{
	struct ctx_opts o;
	unsigned needs = 0;
	int i, rc;

	for (i = 0; i < PART_COUNT; i++)
		if (app->on[i])
			needs |= parts[i].needs;
	memset(&o, 0, sizeof(o));
	o.jobs = needs & NEED_JOBS;
	o.pods = needs & NEED_PODS;
	o.podgroups = needs & NEED_PODGROUPS;
	o.queues = needs & NEED_QUEUES;
	o.commands = needs & NEED_COMMANDS;
	o.priorityclasses = needs & NEED_PRIORITYCLASSES;
	o.pvcs = needs & NEED_PVCS;
	o.nodes = needs & NEED_NODES;
	o.pvs = o.storageclasses = o.csinodes = needs & NEED_STORAGE;
	o.placement = needs & NEED_PLACEMENT;
	rc = ctx_init(&app->ctx, app->kube, app->events, &o, err);
	if (rc)
		return rc;
	for (i = 0; i < PART_COUNT; i++)
		if (app->on[i] && (rc = parts[i].create(app, &app->part[i], err)))
			return rc;
	return 0;
}

/*
 * Start the informers, then the scheduler at once (it waits for the caches it needs itself and
 * runs its first sessions while the pods and PodGroups are still listed: sched_runtime.h), wait
 * for the caches, start the other parts.
 */
static int start_parts(struct app *app)
{
	int rc = ctx_start(&app->ctx), waited = 0, k, i;

	if (rc) {
		VC_ERROR("cannot start the informers", "err=%d", rc);
		return rc;
	}
	if (app->part[SCHED_PART] && (rc = parts[SCHED_PART].start(app->part[SCHED_PART]))) {
		VC_ERROR("cannot start the scheduler", "err=%d", rc);
		return rc;
	}
	while (!stop_signal) {
		rc = ctx_wait_synced(&app->ctx, 1000000000);
		if (!rc)
			break;
		if (rc != VC_ETIMEDOUT)
			return rc;
		if (++waited % 10 == 0)
			VC_WARN("still waiting for the caches to sync", "seconds=%d", waited);
	}
	if (stop_signal)
		return VC_ESHUTDOWN;
	for (k = 0; !rc && k < PART_COUNT; k++)
		if (app->part[i = part_at(k)] && i != SCHED_PART)
			rc = parts[i].start(app->part[i]);
	if (rc)
		VC_ERROR("cannot start the controllers", "err=%d", rc);
	else
		app->running = true;
	return rc;
}

static void stop_parts(struct app *app)
{
	int k, i;

	for (k = PART_COUNT - 1; k >= 0; k--)
		if (app->part[i = part_at(k)])
			parts[i].stop(app->part[i]);
	ctx_stop(&app->ctx);
}

static void free_parts(struct app *app)
{
	int k, i;

	/* Handlers use the parts: no informer may run while they are freed. */
	ctx_stop(&app->ctx);
	for (k = PART_COUNT - 1; k >= 0; k--)
		if (app->part[i = part_at(k)])
			parts[i].free(app->part[i]);
	ctx_release(&app->ctx);
}

static void on_started_leading(void *ctx)
{
	(void)ctx;
	VC_INFO("became the leader", "");
}

/*
 * Volcano's OnStoppedLeading is klog.Fatalf("leaderelection lost"): the process ends at once.
 * A graceful stop would not do: its workers, retrying writes the API server does not take at
 * that moment (the usual reason for a missed renewal), would go on syncing Jobs, writing
 * statuses and deleting finished Jobs next to the new leader, for as long as their retries last
 * (17 s in bench/soak.sh before this). Nothing is flushed or released: the informer caches are
 * rebuilt by the replica that restarts, and the Lease is the new leader's.
 */
static void on_stopped_leading(void *ctx)
{
	(void)ctx;
	VC_ERROR("leaderelection lost", "");
	_exit(1);
}

static int serve(struct app *app, const char *address, bool metrics, struct vc_httpd **out,
		 struct vc_error *err)
{
	struct vc_httpd_opts o;
	char host[256];
	int rc;

	vc_httpd_opts_init(&o);
	rc = parse_hostport(address, host, sizeof(host), &o.port, err);
	if (rc)
		return rc;
	o.address = host;
	o.threads = 2;
	*out = vc_httpd_new(&o);
	if (!*out)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	if (metrics)
		rc = vc_httpd_route_metrics(*out, "/metrics", app->metrics);
	else
		rc = vc_httpd_route_check(*out, "/healthz", healthz, app);
	if (rc)
		return vc_error_set(err, rc, "cannot route the %s listener",
				    metrics ? "metrics" : "health");
	return vc_httpd_start(*out, err);
}

/*
 * Memory (bench/README.md: RSS with 10,000 pods cached). glibc gives each thread that
 * allocates an arena of its own, up to 8 per CPU, and each keeps the free memory of its busiest
 * moment: with ~100 threads (job workers, the request pool, binders, informers) that slack
 * costs more than the caches. One arena: with two, each held a heap of ~60 MB at the peak of
 * 10,000 binds, about a third of it free memory that the other arena's threads could not use
 * (peak RSS 132-133 MiB with two, 114-121 with one, for ~5% more CPU on the one lock;
 * bench/README.md, "What the API server spends for a binder with informers"). The environment's
 * MALLOC_ARENA_MAX, when set, wins. glibc also hands the top of a heap back as soon as 128 KB
 * are free there and takes it again on the next request: under a stream of watch events that
 * was a quarter of the process's CPU (mprotect, page faults, page clearing). The
 * heaps keep their free memory instead, and every TRIM_PERIOD_MS the free pages are handed back
 * at once. Every 5 s rather than 30 s: a burst (the first cycle over 10,000 pending pods, a pod
 * storm) frees tens of MB that otherwise stay resident until the next trim, and RSS then climbs
 * to the next burst's peak from there (bench/README.md, "Memory, second pass": peak RSS
 * 126 -> 122 MiB; a trim of a ~100 MB heap took 0.9-12 ms).
 */
#define TRIM_PERIOD_MS 5000
static void tune_malloc(void)
{
#ifdef __GLIBC__
	if (!getenv("MALLOC_ARENA_MAX"))
		(void)mallopt(M_ARENA_MAX, 1);
	if (!getenv("MALLOC_TRIM_THRESHOLD_"))
		(void)mallopt(M_TRIM_THRESHOLD, 64 << 20);
	if (!getenv("MALLOC_TOP_PAD_"))
		(void)mallopt(M_TOP_PAD, 4 << 20);
	if (!getenv("MALLOC_MMAP_THRESHOLD_"))
		(void)mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
}

static void trim_malloc(void)
{
#ifdef __GLIBC__
	int64_t t0 = vc_time_mono_ns();

	(void)malloc_trim(0);
	VC_LOG(VC_LOG_V(2), "heap trimmed", "ms=%.3f", (double)(vc_time_mono_ns() - t0) / 1e6);
#endif
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000L * 1000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	const struct personality *me = personality_of(argc > 0 ? argv[0] : NULL);
	struct vc_kube_config kc = { 0 };
	struct vc_events_config ec;
	struct app app;
	struct vc_error err;
	char host[256] = "";
	size_t i;
	int rc, first, status = 1;

	vc_log_set_component(me->name);
	tune_malloc();
	vc_alloc_install_json();
	vc_error_clear(&err);
	memset(&app, 0, sizeof(app));
	rc = vc_daemon_parse_flags(me->flags, me->nflags, &app.cfg, argc, argv, me->name, &first);
	if (rc >= 0)
		return rc;
	rc = vc_flags_positional(argc, argv, first, &err);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", me->name, err.text);
		return 2;
	}
	if (app.cfg.version) {
		printf("vc-controller %s (Caldera)\n", VC_CONTROLLER_VERSION);
		return 0;
	}
	vc_flags_dump(me->flags, me->nflags, &app.cfg);
	rc = parse_controllers(app.cfg.controllers, &app.cfg, app.on, &err);
	apply_role(me->role, app.on);
	if (!rc && me->role != ROLE_SCHEDULER && app.cfg.worker_threads < 1)
		rc = vc_error_set(&err, VC_EINVAL, "--worker-threads must be at least 1");
	if (!rc && me->role != ROLE_CONTROLLERS && app.cfg.schedule_period <= 0)
		rc = vc_error_set(&err, VC_EINVAL, "--schedule-period must be positive");
	if (!rc && app.cfg.leader.leader_elect)
		rc = vc_leader_config_validate(&app.cfg.leader, &err);
	if (!rc) {
		rc = vc_flag_list_split(&app.cfg.scheduler_names, app.name_store, app.names,
					SCHED_MAX_NAMES, &app.nnames);
		if (rc)
			vc_error_set(&err, rc, "too many scheduler names (at most %d)",
				     SCHED_MAX_NAMES);
		else if (!app.nnames)
			app.names[app.nnames++] = "volcano";
	}
	if (rc) {
		fprintf(stderr, "%s: %s\n", me->name, err.text);
		return 2;
	}

	signal(SIGPIPE, SIG_IGN);
	vc_daemon_catch_stop(on_signal);

	rc = vc_daemon_kube_new(app.cfg.kubeconfig, app.cfg.master, app.cfg.qps, app.cfg.burst,
				"vc-controller/" VC_CONTROLLER_VERSION, &kc, &app.kube, &err);
	/*
	 * Events get their own client, as in kube-scheduler and Volcano, so a burst of Scheduled
	 * events never takes the binder's or the job controller's request budget.
	 */
	if (!rc)
		rc = vc_kube_new(&kc, &app.events_kube, &err);
	if (rc) {
		VC_ERROR("cannot set up the API client", "err=\"%s\"", err.text);
		goto out;
	}
	app.metrics = vc_metrics_new();
	if (!app.metrics) {
		VC_ERROR("out of memory", "");
		goto out;
	}
	memset(&ec, 0, sizeof(ec));
	ec.component = me->role == ROLE_SCHEDULER ? "vc-scheduler" : "vc-controller-manager";
	if (!gethostname(host, sizeof(host) - 1))
		ec.host = host;
	rc = vc_events_new(app.events_kube, &ec, &app.events, &err);
	if (!rc)
		rc = vc_events_start(app.events);
	/* The scheduler's Events come from the scheduler's name, as Volcano's (source volcano). */
	if (!rc && app.on[SCHED_PART]) {
		ec.component = app.names[0];
		rc = vc_events_new(app.events_kube, &ec, &app.sched_events, &err);
		if (!rc)
			rc = vc_events_start(app.sched_events);
	}
	if (!rc)
		rc = create_parts(&app, &err);
	if (rc) {
		VC_ERROR("cannot set up the controllers", "err=\"%s\"", err.text);
		goto out;
	}
	if (app.cfg.enable_healthz &&
	    serve(&app, app.cfg.healthz_address, false, &app.health, &err)) {
		VC_ERROR("cannot serve /healthz", "err=\"%s\"", err.text);
		goto out;
	}
	if (app.cfg.enable_metrics &&
	    serve(&app, app.cfg.listen_address, true, &app.metrics_srv, &err)) {
		VC_ERROR("cannot serve /metrics", "err=\"%s\"", err.text);
		goto out;
	}

	if (app.cfg.leader.leader_elect) {
		struct vc_leader_callbacks cb = { .on_started_leading = on_started_leading,
						  .on_stopped_leading = on_stopped_leading };

		rc = vc_leader_new(app.kube, &app.cfg.leader, NULL, &cb, &app.leader, &err);
		if (!rc) {
			vc_leader_set_recorder(app.leader, app.events);
			rc = vc_leader_start(app.leader);
		}
		if (rc) {
			VC_ERROR("cannot start leader election", "err=\"%s\"", err.text);
			goto out;
		}
		while (!stop_signal && !vc_leader_is_leader(app.leader))
			sleep_ms(100);
	}
	if (!stop_signal && start_parts(&app) && !stop_signal)
		goto out;
	VC_INFO("started", "scheduler=%s", part_created(&app, "scheduler") ? "on" : "off");
	for (i = 1; !stop_signal; i++) {
		sleep_ms(200);
		if (i % (TRIM_PERIOD_MS / 200) == 0)
			trim_malloc();
	}
	VC_INFO("stopping", "signal=%d", (int)stop_signal);
	stop_parts(&app);
	status = 0;
out:
	if (app.leader)
		vc_leader_stop(app.leader);
	vc_httpd_free(app.health);
	vc_httpd_free(app.metrics_srv);
	free_parts(&app);
	vc_leader_free(app.leader);
	if (app.sched_events)
		vc_events_stop(app.sched_events, 2000000000);
	vc_events_free(app.sched_events);
	if (app.events)
		vc_events_stop(app.events, 2000000000);
	vc_events_free(app.events);
	vc_metrics_free(app.metrics);
	vc_kube_free(app.kube);
	vc_kube_free(app.events_kube);
	vc_kube_config_release(&kc);
	for (i = 0; i < SCHED_MAX_NAMES; i++)
		vc_free(app.name_store[i]);
	return status;
}
