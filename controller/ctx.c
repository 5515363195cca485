/*
 * ctx.c - the informers vc-controller's parts share.
 */
#include "ctx.h"

#include <string.h>

#include "vc_json.h"

static int index_node(const void *arg, const json_t *obj, struct vc_index_values *vals)
{
	const char *node = json_string_value(vc_json_path(obj, "spec.nodeName"));

	(void)arg;
	return vc_index_values_add(vals, node ? node : "");
}

/* "<ns>/<value of the annotation arg>" when the annotation is a non-empty string. */
static int index_ns_annotation(const void *arg, const json_t *obj, struct vc_index_values *vals)
{
	const char *ns = json_string_value(vc_json_path(obj, "metadata.namespace"));
	json_t *ann = json_object_get(json_object_get(obj, "metadata"), "annotations");
	const char *v = json_string_value(json_object_get(ann, (const char *)arg));
	char buf[512];
	int n;

	if (!v || !*v)
		return 0;
	n = snprintf(buf, sizeof(buf), "%s/%s", ns ? ns : "", v);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return 0; /* longer than any valid name: not indexed */
	return vc_index_values_add(vals, buf);
}

static int index_queue(const void *arg, const json_t *obj, struct vc_index_values *vals)
{
	const char *q = json_string_value(vc_json_path(obj, "spec.queue"));

	(void)arg;
	return vc_index_values_add(vals, q && *q ? q : "default");
}

static int index_queue_phase(const void *arg, const json_t *obj, struct vc_index_values *vals)
{
	const char *q = json_string_value(vc_json_path(obj, "spec.queue"));
	const char *phase = json_string_value(vc_json_path(obj, "status.phase"));
	char buf[512];
	int n;

	(void)arg;
	n = snprintf(buf, sizeof(buf), "%s/%s", q && *q ? q : "default", phase ? phase : "");
	if (n < 0 || (size_t)n >= sizeof(buf))
		return 0; /* longer than any valid queue name and phase: not indexed */
	return vc_index_values_add(vals, buf);
}

/* Keep only the listed keys of the object obj (owned, changed in place). */
static void keep_keys(json_t *obj, const char *const *keys)
{
	const char *k;
	json_t *v;
	void *tmp;

	if (!json_is_object(obj))
		return;
	json_object_foreach_safe (obj, tmp, k, v) {
		const char *const *p;

		for (p = keys; *p && strcmp(*p, k); p++)
			;
		if (!*p)
			json_object_del(obj, k);
	}
}

static void slim_containers(json_t *arr)
{
	static const char *const keys[] = { "name", "resources", "ports", "restartPolicy", NULL };
	size_t i;
	json_t *c;

	json_array_foreach (arr, i, c) {
		keep_keys(c, keys);
	}
}

/*
 * The volumes the scheduler reads (sched_volume.c): those that name a claim, reduced to name,
 * persistentVolumeClaim and an empty ephemeral (the claim of an ephemeral volume is named after
 * the pod and the volume). spec loses volumes when none is left.
 */
static void slim_volumes(json_t *spec)
{
	static const char *const keys[] = { "name", "persistentVolumeClaim", "ephemeral", NULL };
	json_t *arr = json_object_get(spec, "volumes"), *v;
	size_t i;

	if (!json_is_array(arr))
		return;
	for (i = json_array_size(arr); i-- > 0;) {
		v = json_array_get(arr, i);
		if (!json_object_get(v, "persistentVolumeClaim") &&
		    !json_object_get(v, "ephemeral")) {
			json_array_remove(arr, i);
			continue;
		}
		keep_keys(v, keys);
		if (json_object_get(v, "ephemeral"))
			json_object_set_new(v, "ephemeral", json_object());
	}
	if (!json_array_size(arr))
		json_object_del(spec, "volumes");
}

static void slim_statuses(json_t *arr)
{
	static const char *const keys[] = { "name", "restartCount", "state", "ready", NULL };
	static const char *const state_keys[] = { "terminated", "running", "waiting", NULL };
	static const char *const term_keys[] = { "exitCode", "reason", NULL };
	size_t i;
	json_t *c;

	json_array_foreach (arr, i, c) {
		json_t *state = json_object_get(c, "state");

		keep_keys(c, keys);
		keep_keys(state, state_keys);
		keep_keys(json_object_get(state, "terminated"), term_keys);
		json_object_del(state, "waiting");
		if (json_object_get(state, "running"))
			json_object_set_new(state, "running", json_object());
	}
}

int ctx_slim_pod(void *arg, json_t *obj, bool owned, json_t **out)
{
	static const char *const spec_keys[] = {
		"schedulerName",
		"nodeName",
		"nodeSelector",
		"affinity",
		"tolerations",
		"priority",
		"priorityClassName",
		"preemptionPolicy",
		"schedulingGates",
		"overhead",
		"containers",
		"initContainers",
		"hostname",
		"subdomain",
		"restartPolicy",
		"resources",
		"topologySpreadConstraints",
		"volumes",
		NULL,
	};
	static const char *const status_keys[] = {
		"phase",
		"conditions",
		"containerStatuses",
		"initContainerStatuses",
		"nominatedNodeName",
		"reason",
		"startTime",
		NULL,
	};
	json_t *spec, *status;
	int rc = vc_informer_strip_managed_fields(arg, obj, owned, out);

	if (rc)
		return rc;
	spec = json_object_get(*out, "spec");
	status = json_object_get(*out, "status");
	keep_keys(spec, spec_keys);
	slim_containers(json_object_get(spec, "containers"));
	slim_containers(json_object_get(spec, "initContainers"));
	slim_volumes(spec);
	keep_keys(status, status_keys);
	slim_statuses(json_object_get(status, "containerStatuses"));
	slim_statuses(json_object_get(status, "initContainerStatuses"));
	return 0;
}

int ctx_slim_selector(void *arg, json_t *obj, bool owned, json_t **out)
{
	static const char *const top_keys[] = { "apiVersion", "kind", "metadata", "spec", NULL };
	static const char *const meta_keys[] = { "name",   "namespace", "uid", "resourceVersion",
						 "labels", NULL };
	static const char *const spec_keys[] = { "selector", NULL };
	int rc = vc_informer_strip_managed_fields(arg, obj, owned, out);

	if (rc)
		return rc;
	keep_keys(*out, top_keys);
	keep_keys(json_object_get(*out, "metadata"), meta_keys);
	keep_keys(json_object_get(*out, "spec"), spec_keys);
	return 0;
}

static const struct vc_cache_index ns_index[] = {
	{ CTX_INDEX_NAMESPACE, vc_cache_index_by_namespace, NULL },
};

static const struct vc_cache_index pod_indexes[] = {
	{ CTX_INDEX_NAMESPACE, vc_cache_index_by_namespace, NULL },
	{ CTX_INDEX_NODE, index_node, NULL },
	{ CTX_INDEX_GROUP, index_ns_annotation, "scheduling.k8s.io/group-name" },
	{ CTX_INDEX_JOB, index_ns_annotation, "volcano.sh/job-name" },
};

static const struct vc_cache_index pg_indexes[] = {
	{ CTX_INDEX_NAMESPACE, vc_cache_index_by_namespace, NULL },
	{ CTX_INDEX_QUEUE, index_queue, NULL },
	{ CTX_INDEX_QUEUE_PHASE, index_queue_phase, NULL },
};

/*
 * Pods, Jobs and PodGroups are the many objects: their caches keep them serialized
 * (VC_CACHE_PACKED), at the price of a parse per read. A PodGroup of 300 bytes of JSON costs
 * ~2.1 KB as jansson objects, ~0.6 KB packed (bench/README.md, "Memory, second pass"). Their
 * readers take one object or one job's pods at a time; the scheduler keeps its own compact pod
 * and PodGroup views (sched_runtime_views.c) and parses only the PodGroups whose version
 * changed; the queue controller counts PodGroups by phase from the queue-phase index.
 */
static int make(struct vc_ctrl_ctx *ctx, bool want, const struct vc_gvr *gvr,
		const struct vc_cache_index *idx, size_t nidx, vc_informer_transform_fn *transform,
		struct vc_informer **out, struct vc_error *err)
{
	struct vc_informer_opts o;

	*out = NULL;
	if (!want)
		return 0;
	memset(&o, 0, sizeof(o));
	o.resource = gvr;
	o.indexes = idx;
	o.nindexes = nidx;
	o.transform = transform;
	if (gvr == &vc_gvr_pods || gvr == &vc_gvr_jobs || gvr == &vc_gvr_podgroups)
		o.cache_flags = VC_CACHE_PACKED;
	/*
	 * The first list from the API server's watch cache, not etcd, for what everything waits
	 * for at the start: the nodes (the scheduler's first session) and the Jobs (every
	 * controller starts once the caches have synced, and no Job is synced before). The Jobs'
	 * paged list from etcd took 0.86-0.97 s of a start on 1,000 Jobs at load 14-16 while
	 * every other informer had synced in 0.15 s (bench/README.md, "Memory after the pod
	 * storm", fourth pass);
	 * client-go's reflectors (Volcano's controllers) list everything so. The watch cache
	 * answers in one page: pods stay paged from etcd, a page at a time, as there can be many.
	 */
	o.first_list_from_cache = gvr == &vc_gvr_nodes || gvr == &vc_gvr_jobs;
	return vc_informer_new(ctx->kube, &o, out, err);
}

/* Every informer of the context, one a line. */
#define EACH_INFORMER(ctx, X)     \
	X((ctx)->jobs)            \
	X((ctx)->pods)            \
	X((ctx)->podgroups)       \
	X((ctx)->queues)          \
	X((ctx)->commands)        \
	X((ctx)->priorityclasses) \
	X((ctx)->pvcs)            \
	X((ctx)->nodes)           \
	X((ctx)->pvs)             \
	X((ctx)->storageclasses)  \
	X((ctx)->csinodes)        \
	X((ctx)->namespaces)      \
	X((ctx)->services)        \
	X((ctx)->rcs)             \
	X((ctx)->replicasets)     \
	X((ctx)->statefulsets)

int ctx_init(struct vc_ctrl_ctx *ctx, struct vc_kube *kube, struct vc_events *events,
	     const struct ctx_opts *opts, struct vc_error *err)
{
	int rc;

	memset(ctx, 0, sizeof(*ctx));
	ctx->kube = kube;
	ctx->events = events;
	rc = make(ctx, opts->jobs, &vc_gvr_jobs, ns_index, 1, vc_informer_strip_managed_fields,
		  &ctx->jobs, err);
	if (!rc)
		rc = make(ctx, opts->pods, &vc_gvr_pods, pod_indexes, VC_ARRAY_SIZE(pod_indexes),
			  ctx_slim_pod, &ctx->pods, err);
	if (!rc)
		rc = make(ctx, opts->podgroups, &vc_gvr_podgroups, pg_indexes,
			  VC_ARRAY_SIZE(pg_indexes), vc_informer_strip_managed_fields,
			  &ctx->podgroups, err);
	if (!rc)
		rc = make(ctx, opts->queues, &vc_gvr_queues, NULL, 0,
			  vc_informer_strip_managed_fields, &ctx->queues, err);
	if (!rc)
		rc = make(ctx, opts->commands, &vc_gvr_commands, NULL, 0,
			  vc_informer_strip_managed_fields, &ctx->commands, err);
	if (!rc)
		rc = make(ctx, opts->priorityclasses, &vc_gvr_priorityclasses, NULL, 0,
			  vc_informer_strip_managed_fields, &ctx->priorityclasses, err);
	if (!rc)
		rc = make(ctx, opts->pvcs, &vc_gvr_pvcs, ns_index, 1,
			  vc_informer_strip_managed_fields, &ctx->pvcs, err);
	if (!rc)
		rc = make(ctx, opts->nodes, &vc_gvr_nodes, NULL, 0,
			  vc_informer_strip_managed_fields, &ctx->nodes, err);
	if (!rc)
		rc = make(ctx, opts->pvs, &vc_gvr_pvs, NULL, 0, vc_informer_strip_managed_fields,
			  &ctx->pvs, err);
	if (!rc)
		rc = make(ctx, opts->storageclasses, &vc_gvr_storageclasses, NULL, 0,
			  vc_informer_strip_managed_fields, &ctx->storageclasses, err);
	if (!rc)
		rc = make(ctx, opts->csinodes, &vc_gvr_csinodes, NULL, 0,
			  vc_informer_strip_managed_fields, &ctx->csinodes, err);
	if (!rc)
		rc = make(ctx, opts->placement, &vc_gvr_namespaces, NULL, 0, ctx_slim_selector,
			  &ctx->namespaces, err);
	if (!rc)
		rc = make(ctx, opts->placement, &vc_gvr_services, ns_index, 1, ctx_slim_selector,
			  &ctx->services, err);
	if (!rc)
		rc = make(ctx, opts->placement, &vc_gvr_replicationcontrollers, ns_index, 1,
			  ctx_slim_selector, &ctx->rcs, err);
	if (!rc)
		rc = make(ctx, opts->placement, &vc_gvr_replicasets, ns_index, 1, ctx_slim_selector,
			  &ctx->replicasets, err);
	if (!rc)
		rc = make(ctx, opts->placement, &vc_gvr_statefulsets, ns_index, 1,
			  ctx_slim_selector, &ctx->statefulsets, err);
	if (rc)
		ctx_release(ctx);
	return rc;
}

int ctx_start(struct vc_ctrl_ctx *ctx)
{
	int rc = 0;

#define START(inf)        \
	if (!rc && (inf)) \
		rc = vc_informer_start(inf);
	EACH_INFORMER(ctx, START)
#undef START
	return rc;
}

int ctx_wait_synced(struct vc_ctrl_ctx *ctx, int64_t timeout_ns)
{
	int rc = 0;

#define WAIT(inf)         \
	if (!rc && (inf)) \
		rc = vc_informer_wait_synced(inf, timeout_ns);
	EACH_INFORMER(ctx, WAIT)
#undef WAIT
	return rc;
}

void ctx_stop(struct vc_ctrl_ctx *ctx)
{
#define STOP(inf) \
	if (inf)  \
		vc_informer_stop(inf);
	EACH_INFORMER(ctx, STOP)
#undef STOP
}

void ctx_release(struct vc_ctrl_ctx *ctx)
{
#define FREE(inf)              \
	vc_informer_free(inf); \
	(inf) = NULL;
	EACH_INFORMER(ctx, FREE)
#undef FREE
}
