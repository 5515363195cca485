/*
 * sched_runtime_internal.h - what sched_runtime.c, sched_runtime_views.c (the map, pod views),
 * sched_runtime_snap.c (the snapshot), sched_runtime_write.c (deciding the writes) and
 * sched_runtime_pool.c (running them) share, and the hooks the unit tests drive (one cycle on the
 * caller's thread, running queued writes inline, counters). Not for other modules: main uses
 * sched_runtime.h only.
 *
 * Threads and locks. The loop thread builds the snapshot, runs the session and queues writes.
 * Worker threads run the writes (binds and evictions first, then status writes). s->mu guards
 * the loop's wake-up state and the four maps (assumed binds, evictions in flight, write
 * tracking, event throttle); s->pool_mu guards the work lists. Neither lock is held while the
 * session runs or while a request is on the wire, and the two are never held together.
 */
#ifndef SCHED_RUNTIME_INTERNAL_H
#define SCHED_RUNTIME_INTERNAL_H

#include "sched_runtime.h"

#include <pthread.h>

#include <jansson.h>

#include "sched_conf.h"
#include "sched_metrics.h"
#include "sched_session.h"
#include "vc_hash.h"
#include "vc_metrics.h"
#include "vc_model.h"

/* ---- a string-keyed hash map (keys copied, values owned through free_val) -------------------- */

/*
 * A vc_hmap of C string keys that owns its values. Its slot order is not defined: srt_map_sweep
 * walks it with predicates whose outcome does not depend on the order, and srt_map_sorted gives
 * the entries in key order, kept from one call to the next while the set of keys stays the same.
 */
struct srt_map_ent {
	const char *key; /* the map's copy */
	void *val;
};

struct srt_map {
	struct vc_hmap h;
	size_t count;		     /* vc_hmap_count(&h), kept for readers of the field */
	void (*free_val)(void *val); /* NULL: values are not freed */
	/* srt_map_sorted's array (count entries when sorted_ok; values follow replacements) */
	struct srt_map_ent *sorted;
	bool sorted_ok;
};

/* An empty map sized for hint entries; 0 or VC_ENOMEM (the map is empty and usable either way). */
int srt_map_init(struct srt_map *m, size_t hint, void (*free_val)(void *val)) VC_WARN_UNUSED;
void srt_map_release(struct srt_map *m);
void *srt_map_get(const struct srt_map *m, const char *key);
/* Add or replace (the old value is freed). On VC_ENOMEM the map and val are untouched. */
int srt_map_put(struct srt_map *m, const char *key, void *val) VC_WARN_UNUSED;
/* Remove key (its value is freed); false when absent. */
bool srt_map_del(struct srt_map *m, const char *key);
/*
 * The entries in the order of their keys (strcmp), count of them, or NULL on VC_ENOMEM (or when
 * empty). The array is the map's, valid until the map next changes. It is sorted again only
 * after a key was added or removed since the last call; replacing a value costs a binary search.
 */
const struct srt_map_ent *srt_map_sorted(struct srt_map *m);
/*
 * Call fn for every entry; entries for which it returns true are removed (values freed). Walks
 * again while a walk removed something, until fn keeps every entry left.
 */
void srt_map_sweep(struct srt_map *m, bool (*fn)(void *ctx, const char *key, void *val), void *ctx);

/* ---- per-object state the runtime keeps between cycles (under s->mu) ------------------------- */

/* A bind the runtime sent (or is sending): the task counts as Binding on node until the
 * informer shows the pod bound (docs/volcano/scheduler.md §1.1's cache update rule). */
struct srt_assumed {
	char *node;
	bool in_flight;
	int64_t done_at;     /* monotonic time the bind succeeded */
	uint64_t seen_cycle; /* last cycle whose snapshot held the pod */
};

/* An eviction sent: the task counts as Releasing until the pod shows its deletion. */
struct srt_evicted {
	bool in_flight;
	int64_t at;
	uint64_t seen_cycle;
};

/* The last write of one object (PodGroup status, Queue status, pod condition). */
struct srt_track {
	char *want; /* what was written, normalised (times and session ids left out) */
	char *rv;   /* the cached resourceVersion the write was decided on */
	bool in_flight;
	bool settled; /* the cache showed what the cycle wants: kept only for pacing */
	int rc;	      /* the write's outcome (0, VC_ECONFLICT, ...) */
	int64_t done_at;
	uint64_t seen_cycle;
	int64_t wrote_at; /* when the last write that did not fail was queued (0 = none) */
};

/* The last time an event was recorded for (object, type, reason). */
struct srt_evthrottle {
	uint64_t hash; /* of the message */
	int64_t at;
};

/*
 * A view kept from one cycle to the next. PodGroup and node views: cached objects are
 * immutable and replaced on every change, so the same object pointer means the same content
 * and the view (with its parsed quantities) is reused; the entry's reference keeps the object,
 * so a pointer is never reused for another object while the entry lives; only the loop thread
 * touches these. Pod views are made by the pod informer's handlers from a reduced copy of the
 * pod (obj) and replaced on every change; a snapshot holds a reference to each it uses.
 */
struct srt_view {
	json_t *obj; /* own reference */
	int rc;	     /* the view's outcome; a malformed object is not parsed again */
	uint64_t seen_cycle;
	int refs; /* pod views: the map's and each snapshot's (atomic) */
	/* Pod and PodGroup views: the object's metadata strings, and references to its shared
	 * labels and annotations (v.pod.meta and v.pg.meta point into these; v.pod.obj is its
	 * shared spec and status, v.pg.obj its shared apiVersion, kind, spec and status), and to
	 * a pod's controller reference when the default spread reads it (else NULL). A malformed
	 * PodGroup's view keeps its resourceVersion in strings. */
	char *strings;
	json_t *labels, *annotations, *owners;
	union {
		struct vc_pod pod;
		struct vc_podgroup pg;
		struct vc_node node;
	} v;
};

/* ---- queued writes --------------------------------------------------------------------------- */

enum srt_work_kind {
	SRT_W_BIND,	/* POST pods/<name>/binding */
	SRT_W_EVICT,	/* event, pods/status, DELETE */
	SRT_W_PG,	/* PUT podgroups/<name> */
	SRT_W_QUEUE,	/* PATCH queues/<name>/status */
	SRT_W_POD_COND, /* PATCH pods/<name>/status */
};

struct srt_work {
	struct srt_work *next;
	enum srt_work_kind kind;
	char *key;    /* owned: tracking key, or the pod uid for binds and evictions */
	char *ns;     /* owned */
	char *name;   /* owned */
	char *node;   /* owned: bind target */
	json_t *obj;  /* new reference: the object the request is about (events, bodies) */
	json_t *body; /* new reference: the request body (NULL for binds: built by the worker) */
	const char *reason;	/* static: eviction reason; event reason after a status write */
	char *event_message;	/* owned: event to record after a successful write, or NULL */
	const char *event_type; /* static */
	/* PodGroup writes: the uid and the resourceVersion the session saw (obj is the view's
	 * shared apiVersion, kind, spec and status: srt_pg_obj names the PodGroup from these). */
	char *uid, *rv; /* owned */
};

/* Counters for tests and logs (read with sched_runtime_stats). */
struct sched_runtime_stats {
	uint64_t cycles;
	uint64_t binds, bind_errors;
	uint64_t evictions, eviction_errors;
	uint64_t pg_writes, pg_conflicts, pg_errors;
	uint64_t queue_writes, queue_errors;
	uint64_t pod_cond_writes, pod_cond_errors;
	uint64_t skipped_writes;    /* identical writes not repeated */
	uint64_t paced_writes;	    /* message-only rewrites held back (SRT_*_MESSAGE_NS) */
	uint64_t pod_cond_deferred; /* pod conditions left to a later cycle: no budget */
	uint64_t conf_reloads, conf_errors;
	uint64_t session_errors;
	uint64_t jobs_reused; /* jobs a snapshot took whole from the last one (srt_snap_keep) */
};

/* ---- the runtime ----------------------------------------------------------------------------- */

struct srt_kept; /* a job kept from one snapshot for the next (below) */

struct sched_runtime {
	struct vc_ctrl_ctx *ctx;
	struct sched_runtime_config cfg;
	sched_session_run_fn *run;

	/* Configuration: only the loop thread touches it. */
	struct sched_conf *conf;
	char *conf_text; /* the file's bytes that conf came from; NULL for the default */
	bool conf_stat_ok;
	uint64_t conf_dev, conf_ino;
	int64_t conf_size, conf_mtime_ns;

	/* Loop state (mu). */
	pthread_mutex_t mu;
	pthread_cond_t cond; /* CLOCK_MONOTONIC */
	pthread_t loop;
	bool loop_started, stopping;
	/* A queues/status (pods/status) patch was Forbidden (Volcano's RBAC): PUT instead (mu). */
	bool queue_status_put, pod_status_put;
	int64_t kick_at; /* monotonic ns of the early cycle asked for; 0 = none */
	uint64_t cycle;
	/* The first binds of the running session's result already queued by srt_on_session_bind
	 * (loop thread only; 0 at each cycle's start). */
	size_t binds_queued;
	uint64_t rng;
	bool queues_ok;
	struct srt_map assumed;	 /* pod uid -> struct srt_assumed */
	struct srt_map evicted;	 /* pod uid -> struct srt_evicted */
	struct srt_map track;	 /* "pg/ns/name", "queue/name", "pod/uid" -> struct srt_track */
	struct srt_map throttle; /* "uid\ttype\treason" -> struct srt_evthrottle */
	/*
	 * Pod views by cache key, kept by the pod informer's handlers (views_mu), each holding a
	 * reduced copy of its pod whose spec, status, labels and annotations are shared through
	 * `intern` with every other pod that has the same ones (srt_pod_view_put).
	 */
	pthread_mutex_t views_mu;
	struct srt_map pod_views, intern;
	size_t intern_swept; /* intern.count after the last sweep */
	/*
	 * Sessions before the pods and PodGroups are listed (docs/volcano/scheduler.md §1.1's
	 * partial view; srt_prepare). pods_partial and pgs_partial (loop thread): the next
	 * cycle's pods or PodGroups come from the informer's first list so far, not from a
	 * synced cache; the cycle then writes binds only and caps each queue at its weight's share
	 * of the cluster. bound_listed (loop thread): every pod bound to a node before the first
	 * session was listed (list_bound), so nodes' usage is whole. early_pgs (views_mu): the
	 * PodGroups of the podgroups informer's first list so far, cache key -> object (a
	 * reference), until that informer syncs. bound_failed: that list failed; the first
	 * session then waits for the pods informer.
	 */
	bool pods_partial, pgs_partial, bound_listed, bound_failed;
	struct srt_map early_pgs;
	/* Tests: whether inf has synced (NULL: vc_informer_has_synced), and the list of the bound
	 * pods (NULL: srt_list_bound_pods). */
	bool (*synced)(struct sched_runtime *s, struct vc_informer *inf);
	int (*list_bound)(struct sched_runtime *s, struct vc_error *err);
	/* PodGroup and node views by cache key (loop thread only; PodGroup views share their
	 * spec and status through `intern`, srt_pg_view_make). */
	struct srt_map pg_views, node_views;
	struct sched_objects objs; /* the context's placement caches, for every snapshot */
	/*
	 * The jobs of the last cycle's snapshot that the next one may take whole (loop thread
	 * only; srt_snap_keep), found by uid in `kept`. kept_pods: that snapshot's references to
	 * the pod views their tasks borrow, held until the next snapshot has matched them, so that
	 * a view's address is never that of another view while a kept task points at it.
	 */
	struct vc_hmap kept; /* job uid (the job's string) -> an element of kept_jobs */
	struct srt_kept *kept_jobs;
	size_t nkept;
	struct srt_view **kept_pods;
	size_t nkept_pods;
	struct sched_runtime_stats stats;

	/* Work lists (pool_mu). */
	pthread_mutex_t pool_mu;
	pthread_cond_t pool_cond; /* work arrived or stop (CLOCK_MONOTONIC, for the idle wait) */
	pthread_cond_t idle_cond; /* the lists are empty and no worker is busy, or a worker ended */
	struct srt_work *hi_head, *hi_tail, *lo_head, *lo_tail;
	size_t queued, busy;
	/*
	 * The workers: nworkers slots (cfg.bind_workers), threads started when queued writes
	 * outnumber the idle ones and ended after SRT_WORKER_IDLE_NS without work, as the job
	 * pool's (controller/job_pool.c): an idle worker holds its stack pages, its malloc cache
	 * and its libcurl handle (bench/README.md, "Memory after the pod storm", fourth pass). Slot
	 * k is empty (0), running (1) or exited and not yet joined (2); wrunning threads are
	 * running, widle of them waiting for work.
	 */
	pthread_t *workers;
	unsigned char *wstate;
	int nworkers, wrunning, widle;
	bool pool_stop;
	bool pc_ready; /* pc_tokens and pc_at are set */
	/* The lowest lane (pool_mu): pod conditions, at most a quarter of the workers at once. */
	struct srt_work *bg_head, *bg_tail;
	size_t bg_busy, bg_queued;
	/* The pod condition budget's token bucket (loop thread only; see pod_condition_qps). */
	double pc_tokens;
	int64_t pc_at;

	/* Metrics: sched points to metrics when cfg.metrics is set, else NULL. */
	struct sched_metrics metrics;
	const struct sched_metrics *sched;
	/*
	 * Jobs ("j" + ns/name) and queues ("q" + name) that have series, with the cycle that last
	 * saw them (loop thread only): the series of one no snapshot holds are deleted.
	 */
	struct srt_map series;
	/* Volume objects the binder wrote that the informers may not show yet (loop thread only;
	 * sched_runtime_vol.c). */
	struct srt_map vol_assumed;
	/* The configuration's skipped entries (gauge) and files that did not parse (counter). */
	struct vc_metric *m_conf_skipped, *m_conf_errors;
};

/* Snapshot of the caches for one cycle: the session's snapshot plus what its views borrow. */
struct srt_snap {
	struct sched_snapshot snap;
	struct vc_queue *queues;
	size_t nqueues;
	/* PodGroups and nodes are borrowed from the runtime's view maps. */
	struct sched_task_info *
		*loose; /* owned: bound pods in no job, charged to their node only */
	size_t nloose;
	struct srt_view **pods; /* a reference to each pod view the snapshot's tasks borrow */
	size_t npods;
	struct sched_vol_catalog *volumes; /* owned (snap.volumes), or NULL */
	size_t reused; /* jobs taken whole from the last snapshot (struct srt_kept) */
};

/*
 * Volumes (sched_runtime_vol.c). srt_vol_catalog lists the volume objects of the caches into
 * sn->volumes (and sn->snap.volumes); nothing when the claims informer is off. 0 or VC_ENOMEM.
 * srt_vol_apply runs the volume binder's writes of r's binds, a gang's together, and sets
 * *held (vc_malloc'd, one flag per bind; NULL when no bind has a plan) for the binds that must
 * not go out this cycle: every bind of a gang one of whose writes failed or whose claims are not
 * all bound yet. VC_ENOMEM leaves *held NULL: the caller then holds every bind with a plan.
 */
int srt_vol_catalog(struct sched_runtime *s, struct srt_snap *sn) VC_WARN_UNUSED;
/* The free function of vol_assumed's values. */
void srt_vol_assumed_free(void *val);
int srt_vol_apply(struct sched_runtime *s, const struct sched_result *r,
		  bool **held) VC_WARN_UNUSED;

/*
 * Build the snapshot from the context's caches (docs/volcano/scheduler.md §1.1, §1.2) and account
 * the assumed binds and evictions. Returns 0 or VC_ENOMEM (out then empty).
 */
int srt_snap_build(struct sched_runtime *s, struct srt_snap *out,
		   struct vc_error *err) VC_WARN_UNUSED;
void srt_snap_release(struct srt_snap *sn);

/*
 * A job kept from one snapshot for the next (s->kept). The next srt_snap_build takes it whole,
 * instead of building it again from its views, when its PodGroup view was not replaced, its
 * tasks' pod views are the same ones in the same order and none of its pods has an assumed bind
 * or eviction: the job is then what a fresh build would make of those views, since
 * srt_snap_keep kept it only when the session left it as built. cursor, broken: the matching of
 * the snapshot's pod views against job's tasks; reused: the snapshot took job.
 */
struct srt_kept {
	struct sched_job_info *job; /* owned, unless reused */
	size_t cursor;
	bool broken, reused;
};

/*
 * After a cycle whose session ran over sn: move into s->kept the jobs of sn whose tasks the
 * session left as a build makes them (the status and node of every task as its pod shows; no
 * scalar resources), with what the session changes in a job made again as a build makes it (the
 * phase from the PodGroup, the allocated sum, the drf share cleared), and sn's pod view
 * references into s->kept_pods; sn keeps the rest, for srt_snap_release. Nothing is kept after
 * a partial view (srt_prepare).
 */
void srt_snap_keep(struct sched_runtime *s, struct srt_snap *sn);
/* Release every kept job and the kept pod view references. */
void srt_kept_release(struct sched_runtime *s);
/* Free functions of the view maps' values (srt_pod_view_free drops the map's reference). */
void srt_pod_view_free(void *val);
void srt_intern_free(void *val);
/*
 * Keep the view of pod obj (borrowed), replacing the one of its key; a pod the scheduler has
 * no business with (unbound and not ours, docs/volcano/scheduler.md §1.1) has none.
 * srt_pod_view_del forgets the key's. Called by the pod informer's handlers, and once for every
 * cached pod when the runtime starts. Returns 0 or VC_ENOMEM (the old view, if any, is then
 * dropped: the pod is left out until its next change).
 */
int srt_pod_view_put(struct sched_runtime *s, const json_t *obj) VC_WARN_UNUSED;
void srt_pod_view_del(struct sched_runtime *s, const json_t *obj);
/* As srt_pod_view_put, but a key that has a view keeps it (the bound pods' list is older than
 * what the pod informer hands over). */
int srt_pod_view_put_new(struct sched_runtime *s, const json_t *obj) VC_WARN_UNUSED;
/*
 * Once the pods informer has synced after a partial view: drop the views of pods its cache does
 * not hold (listed by an earlier attempt or by the bound pods' list, and gone since).
 */
void srt_pod_views_reconcile(struct sched_runtime *s);
/*
 * The pod of a view as an object for requests and Events (a new reference, NULL on VC_ENOMEM):
 * apiVersion, kind, metadata (name, namespace, uid, resourceVersion, creationTimestamp,
 * labels, annotations), spec and status as the view has them. A view's own pod.obj holds only
 * the spec and status it shares with other pods.
 */
json_t *srt_pod_obj(const struct vc_pod *pod);
/*
 * The view of PodGroup obj (borrowed; a parse from the packed podgroups cache; key is its cache
 * key, for the log), in *out, for
 * the pg_views map (free it with srt_pg_view_free). The view keeps none of obj: its metadata
 * strings are copied into one block, its labels and annotations and its apiVersion, kind, spec
 * and status are the shared copies of `intern` (PodGroups of one queue and size share their
 * spec, those a session wrote the same status share it), and its pg.obj is the shared object of
 * those four. Not kept: metadata.ownerReferences (pg.meta.owner_references is NULL; the
 * scheduler does not read it). A malformed PodGroup gets a view with rc set and only its
 * resourceVersion kept (srt_pg_view_rv), so it is parsed and logged once per version.
 * Returns 0 or VC_ENOMEM (*out NULL).
 */
int srt_pg_view_make(struct sched_runtime *s, const char *key, const json_t *obj,
		     struct srt_view **out) VC_WARN_UNUSED;
/* The resourceVersion a PodGroup view was made from ("" when it had none). */
const char *srt_pg_view_rv(const struct srt_view *v);
/*
 * A PodGroup as an object for Events (a new reference, NULL on VC_ENOMEM): the members of
 * shared (a view's pg.obj: apiVersion, kind, spec, status) and metadata with name, namespace,
 * uid and resourceVersion (each left out when NULL or empty). Made only when an Event is sent:
 * a queued write keeps the shared object and its uid and version.
 */
json_t *srt_pg_obj(const json_t *shared, const char *ns, const char *name, const char *uid,
		   const char *rv);
void srt_pg_view_free(void *val);
/*
 * The body of PodGroup write w (SRT_W_PG: w->body is the status to write, w->rv the version
 * the session saw): the cached PodGroup - all of it, the write is a PUT, and the view
 * keeps only what the scheduler reads - with that status and the resourceVersion the session
 * saw. When the cache has moved on since, the API server refuses the stale version, as it did
 * when the body was the view's own copy. A new reference; NULL when the PodGroup is no longer
 * cached or on VC_ENOMEM. Made by the worker, so a queued write holds only its status.
 */
json_t *srt_pg_body(struct sched_runtime *s, const struct srt_work *w);
void srt_node_view_free(void *val);

/* Queue the writes a cycle's result asks for (docs/volcano/scheduler.md §1.6, §1.7, §1.8). */
void srt_apply_result(struct sched_runtime *s, const struct sched_result *r);
/*
 * The snapshot's on_bind (ctx: the runtime): queue the bind the session just decided, with its
 * assumption, while the session goes on; srt_apply_result then leaves out the binds queued so.
 */
void srt_on_session_bind(void *ctx, const struct sched_bind *b);

/* Forget tracking and throttle entries of objects no cycle saw lately. */
void srt_gc(struct sched_runtime *s);

/*
 * A queued write under key has finished with rc (sched_runtime_write.c's write tracking): the
 * entry is no longer in flight. Takes s->mu.
 */
void srt_track_end(struct sched_runtime *s, const char *key, int rc);

/*
 * Work lists (sched_runtime_pool.c). srt_work_push takes w; workers run items until stopped.
 * srt_pool_start makes room for cfg.bind_workers workers; srt_work_push starts them as the
 * queued writes need them, and a worker ends after SRT_WORKER_IDLE_NS without work.
 */
#define SRT_WORKER_IDLE_NS (2 * INT64_C(1000000000))
void srt_work_push(struct sched_runtime *s, struct srt_work *w);
void srt_work_free(struct srt_work *w);
void srt_work_run(struct sched_runtime *s, struct srt_work *w);
int srt_pool_start(struct sched_runtime *s) VC_WARN_UNUSED;
void srt_pool_stop(struct sched_runtime *s);
/* How many worker threads are running now (tests). */
int srt_pool_threads(struct sched_runtime *s);
void srt_pool_discard(struct sched_runtime *s);
/* The condition of the given type a pod shows (borrowed), or NULL. */
json_t *srt_pod_condition(const json_t *pod, const char *type);
/*
 * The merge patch {"status":{"conditions":[PodScheduled=False reason/message]}} (plus
 * nominatedNodeName when not NULL), keeping lastTransitionTime when the status does not change.
 * A new reference, or NULL on VC_ENOMEM.
 */
json_t *srt_pod_scheduled_patch(const json_t *pod, const char *reason, const char *message,
				const char *nominated);

/* Ask for an early cycle in delay_ns (the earliest request wins). */
void srt_kick(struct sched_runtime *s, int64_t delay_ns);

/* Record an event; with throttle, an identical one within a minute is skipped. */
void srt_event(struct sched_runtime *s, const json_t *obj, const char *type, const char *reason,
	       const char *message, bool throttle);

/* How long an identical event is not repeated, and how long bookkeeping entries live. */
#define SRT_EVENT_THROTTLE_NS (60 * INT64_C(1000000000))
#define SRT_ASSUME_TTL_NS     (60 * INT64_C(1000000000))
#define SRT_EVICT_TTL_NS      (120 * INT64_C(1000000000))
#define SRT_RETRY_NS	      INT64_C(1000000000)	 /* a failed write is retried after this */
#define SRT_UNSEEN_TTL_NS     (30 * INT64_C(1000000000)) /* a successful write not yet seen */
#define SRT_CONFLICT_KICK_NS  (100 * INT64_C(1000000000) / 1000)
/* A rewrite that changes only a message: at most once this often per pod / per PodGroup. */
#define SRT_POD_MESSAGE_NS (10 * INT64_C(1000000000))
#define SRT_PG_MESSAGE_NS  (3 * INT64_C(1000000000))

/*
 * The informer handlers that ask for an early cycle (sched_runtime_kick) when an event may let
 * a cycle make progress: a pod waiting to be placed appears; resources are freed (a pod ends,
 * is deleted or starts terminating); a PodGroup, Queue or node changes in what the snapshot
 * reads. The scheduler's own writes (bind echoes, PodGroup status) and node heartbeats do not.
 */
void srt_on_pod_add(void *ctx, json_t *obj);
void srt_on_pod_update(void *ctx, json_t *old_obj, json_t *new_obj);
void srt_on_pod_delete(void *ctx, json_t *obj, bool final_state_unknown);
void srt_on_pg_update(void *ctx, json_t *old_obj, json_t *new_obj);
void srt_on_queue_update(void *ctx, json_t *old_obj, json_t *new_obj);
void srt_on_node_update(void *ctx, json_t *old_obj, json_t *new_obj);

/*
 * The first list's pages (vc_informer_add_list_handler): a pod gets its view at once, a
 * PodGroup goes into early_pgs; each asks for an early cycle.
 */
void srt_on_pod_listed(void *ctx, json_t *obj);
void srt_on_pg_listed(void *ctx, json_t *obj);

/*
 * Before each cycle of the loop (docs/volcano/scheduler.md §1.1): whether a session may run
 * now, and over which view. Every informer but the pods' and the PodGroups' must have synced,
 * and the pods bound to nodes must be known: the pods informer has synced, or the bound pods
 * were listed (s->list_bound, once, before any session). Sets pods_partial and pgs_partial for
 * the cycle; when an informer has just synced after partial cycles, reconciles with its cache.
 */
bool srt_prepare(struct sched_runtime *s);
/*
 * List the pods bound to a node (fieldSelector spec.nodeName!=, paged) and keep a view of each
 * that has none yet. 0, or the list's error (err says why).
 */
int srt_list_bound_pods(struct sched_runtime *s, struct vc_error *err) VC_WARN_UNUSED;

/* ---- test hooks ------------------------------------------------------------------------------ */

/* Run one cycle on the calling thread (the loop must not be running). */
int sched_runtime_cycle(struct sched_runtime *s, struct vc_error *err) VC_WARN_UNUSED;
/*
 * Without started workers: run every queued write on the calling thread (binds and evictions
 * first, in order) and return how many ran. With workers: wait until they are idle; returns 0.
 */
size_t sched_runtime_drain(struct sched_runtime *s);
/* Ask for an early cycle (as an informer event does). */
void sched_runtime_kick(struct sched_runtime *s);
/* A copy of the counters. */
void sched_runtime_stats(struct sched_runtime *s, struct sched_runtime_stats *out);

#endif /* SCHED_RUNTIME_INTERNAL_H */
