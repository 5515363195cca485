/*
 * pg_controller.c - PodGroups for plain pods (docs/volcano/job-controller.md §6.2,
 * docs/volcano/scheduler.md §2.3; Volcano's pkg/controllers/podgroup).
 *
 * A new pod whose schedulerName is one of the configured names and that has no
 * scheduling.k8s.io/group-name annotation (Job pods have one) gets the PodGroup
 * `podgroup-<uid of its controller owner, or its own uid>` in its namespace, created unless it
 * exists already, and is then merge-patched with the annotation naming it. The PodGroup:
 *   - metadata.ownerReferences: the pod's, when one of them is a controller reference, else a
 *     controller reference to the pod;
 *   - metadata.annotations: the owners' volcano.sh/ annotations (owner inheritance, on by
 *     default), then the pod's volcano.sh/preemptable, volcano.sh/cooldown-time,
 *     volcano.sh/revocable-zone and volcano.sh/jdb-min-available (else
 *     volcano.sh/jdb-max-unavailable); metadata.labels: the pod's volcano.sh/preemptable and
 *     volcano.sh/cooldown-time labels;
 *   - spec.minMember: the owners' scheduling.volcano.sh/group-min-member (an int32 >= 0; 1 when
 *     absent, unreadable or invalid); spec.minResources: the pod's quota usage (job_pod_usage,
 *     as Volcano's GetPodQuotaUsage) times minMember; spec.priorityClassName: the pod's;
 *     spec.queue: the pod's scheduling.volcano.sh/queue-name annotation;
 *   - status.phase: Pending.
 * Owners are read with a GET each (ReplicaSet, DaemonSet and StatefulSet from apps/v1, Job from
 * batch/v1); one that cannot be read is skipped. Not done (Volcano's WorkLoadSupport): watching
 * ReplicaSets and StatefulSets to delete the PodGroup of one scaled to zero or refresh it, and
 * the network-topology annotations.
 */
#include "pg_controller.h"

#include <ctype.h>

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_ctlrun.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_quantity.h"
#include "vc_strconv.h"
#include "vc_workqueue.h"

#define GROUP_NAME_KEY	  "scheduling.k8s.io/group-name"
#define MIN_MEMBER_KEY	  "scheduling.volcano.sh/group-min-member"
#define QUEUE_NAME_KEY	  "scheduling.volcano.sh/queue-name"
#define PG_NAME_PREFIX	  "podgroup-"
#define INHERIT_PREFIX	  "volcano.sh/"
#define DEFAULT_SCHEDULER "volcano"

static const struct vc_gvr gvr_daemonsets = { "apps", "v1", "daemonsets", true };
static const struct vc_gvr gvr_batch_jobs = { "batch", "v1", "jobs", true };

struct pgctl {
	struct vc_ctrl_ctx *ctx;
	struct pgctl_config cfg;
	char *names[PGCTL_MAX_SCHEDULER_NAMES];
	size_t nnames;
	struct vc_ctlrun *rt;
	struct vc_workqueue *wq; /* rt's */
};

void pgctl_config_defaults(struct pgctl_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->workers = 1;
	cfg->inherit_owner_annotations = true;
}

static const char *str_at(const json_t *obj, const char *path)
{
	const char *s = json_string_value(vc_json_path(obj, path));

	return s ? s : "";
}

/* The pod is ours: a matching schedulerName and no PodGroup yet. */
static bool wants_podgroup(const struct pgctl *c, const json_t *pod)
{
	const char *sched = json_string_value(vc_json_path(pod, "spec.schedulerName"));
	const char *group = json_string_value(
		json_object_get(vc_json_path(pod, "metadata.annotations"), GROUP_NAME_KEY));
	size_t i;

	if (group && *group)
		return false;
	if (!sched)
		sched = "default-scheduler";
	for (i = 0; i < c->nnames; i++)
		if (!strcmp(c->names[i], sched))
			return true;
	return false;
}

static void on_pod_add(void *arg, json_t *obj)
{
	struct pgctl *c = arg;
	char key[VC_CACHE_KEY_MAX];
	int rc;

	if (!wants_podgroup(c, obj) || vc_cache_key(obj, key, sizeof(key)))
		return;
	rc = vc_workqueue_add(c->wq, key);
	if (rc && rc != VC_ESHUTDOWN)
		VC_ERROR("cannot queue a pod", "pod=%s error=\"%s\"", key, vc_strerror(rc));
}

/* The controller ownerReference of pod (borrowed), or NULL. */
static json_t *controller_ref(const json_t *pod)
{
	json_t *refs = vc_json_path(pod, "metadata.ownerReferences"), *ref;
	size_t i;

	json_array_foreach (refs, i, ref)
		if (json_is_true(json_object_get(ref, "controller")))
			return ref;
	return NULL;
}

/* GeneratePodgroupName: podgroup-<controller owner uid, or pod uid>. */
static int podgroup_name(const json_t *pod, char *buf, size_t len)
{
	const json_t *ref = controller_ref(pod);
	const char *uid = ref ? str_at(ref, "uid") : str_at(pod, "metadata.uid");
	int n = snprintf(buf, len, PG_NAME_PREFIX "%s", uid);

	return n < 0 || (size_t)n >= len ? VC_E2BIG : 0;
}

/* The owners' annotations, the first owner's value winning (new object in *out). */
static int owner_annotations(struct pgctl *c, const json_t *pod, json_t **out, struct vc_error *err)
{
	json_t *refs = vc_json_path(pod, "metadata.ownerReferences"), *ref, *all = json_object();
	const char *ns = str_at(pod, "metadata.namespace");
	size_t i;

	if (!all)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	json_array_foreach (refs, i, ref) {
		const char *kind = str_at(ref, "kind"), *name = str_at(ref, "name"), *k;
		const struct vc_gvr *gvr = NULL;
		struct vc_error gerr;
		json_t *owner = NULL, *v;
		int rc;

		if (!*kind || !*name)
			continue;
		if (!strcmp(kind, "ReplicaSet"))
			gvr = &vc_gvr_replicasets;
		else if (!strcmp(kind, "DaemonSet"))
			gvr = &gvr_daemonsets;
		else if (!strcmp(kind, "StatefulSet"))
			gvr = &vc_gvr_statefulsets;
		else if (!strcmp(kind, "Job"))
			gvr = &gvr_batch_jobs;
		else
			continue;
		vc_error_clear(&gerr);
		rc = vc_kube_get(c->ctx->kube, gvr, ns, name, NULL, &owner, &gerr);
		if (rc == VC_ENOMEM) {
			json_decref(all);
			return vc_error_set(err, rc, "out of memory");
		}
		if (rc) {
			VC_ERROR("failed to get the owner of a pod",
				 "pod=%s/%s owner=%s/%s error=\"%s\"", ns,
				 str_at(pod, "metadata.name"), kind, name,
				 gerr.text[0] ? gerr.text : vc_strerror(rc));
			continue;
		}
		json_object_foreach (vc_json_path(owner, "metadata.annotations"), k, v) {
			if (json_object_get(all, k))
				continue;
			if (json_object_set(all, k, v)) {
				json_decref(owner);
				json_decref(all);
				return vc_error_set(err, VC_ENOMEM, "out of memory");
			}
		}
		json_decref(owner);
	}
	*out = all;
	return 0;
}

/*
 * getMinMemberFromUpperRes: 1 unless the annotation is an int32 >= 0. Leading white space is
 * skipped as strtoll did here before; Go's strconv.Atoi rejects it (a fix for later).
 */
static int32_t min_member(const json_t *owner_ann, const char *pod_key)
{
	const char *s = json_string_value(json_object_get(owner_ann, MIN_MEMBER_KEY)), *p;
	int64_t v;

	if (!s)
		return 1;
	for (p = s; isspace((unsigned char)*p); p++)
		;
	if (vc_strconv_parse_int(p, strlen(p), 10, &v) || v < INT32_MIN || v > INT32_MAX) {
		VC_ERROR("failed to convert the minMember annotation of the pod's owners into a "
			 "number, minMember remains 1",
			 "pod=%s value=\"%s\"", pod_key, s);
		return 1;
	}
	if (v < 0) {
		VC_ERROR("the minMember annotation is not positive, minMember remains 1",
			 "pod=%s value=%lld", pod_key, (long long)v);
		return 1;
	}
	return (int32_t)v;
}

/* CalTaskRequests: the pod's quota usage times n (new object in *out). */
static int min_resources(const json_t *pod, int32_t n, json_t **out, struct vc_error *err)
{
	json_t *spec = vc_json_path(pod, "spec"), *usage = NULL, *res, *v, *empty = NULL;
	const char *name;
	int rc;

	res = json_object();
	if (!res)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	if (n <= 0)
		goto done;
	if (!json_is_object(spec) && !(spec = empty = json_object())) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	rc = job_pod_usage(spec, &usage, err);
	json_decref(empty);
	if (rc)
		goto fail;
	json_object_foreach (usage, name, v) {
		struct vc_quantity q;

		rc = vc_quantity_parse_json(v, &q, err);
		if (!rc)
			rc = vc_quantity_mul(&q, n);
		if (rc) {
			vc_error_prefix(err, "resource '%s'", name);
			goto fail;
		}
		if (json_object_set_new(res, name, vc_quantity_to_json(&q))) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto fail;
		}
	}
	json_decref(usage);
done:
	*out = res;
	return 0;
fail:
	json_decref(usage);
	json_decref(res);
	return rc;
}

/* Copy src[key] into dst[key] when it is a string. 0 or VC_ENOMEM. */
static int copy_key(json_t *dst, const json_t *src, const char *key)
{
	json_t *v = json_object_get(src, key);

	if (!json_is_string(v))
		return 0;
	return json_object_set(dst, key, v) ? VC_ENOMEM : 0;
}

/* buildPodGroupFromPod: the new PodGroup (new reference in *out). */
static int build_podgroup(struct pgctl *c, const json_t *pod, const char *pg_name,
			  const char *pod_key, json_t **out, struct vc_error *err)
{
	json_t *owner_ann = NULL, *pg = NULL, *meta, *spec, *ann, *labels, *minres = NULL;
	json_t *pod_ann = vc_json_path(pod, "metadata.annotations");
	json_t *pod_labels = vc_json_path(pod, "metadata.labels");
	json_t *ref = controller_ref(pod), *refs, *v;
	const char *k, *prio, *queue_name;
	int32_t members = 1;
	int rc;

	if (c->cfg.inherit_owner_annotations) {
		rc = owner_annotations(c, pod, &owner_ann, err);
		if (rc)
			return rc;
		members = min_member(owner_ann, pod_key);
	}
	rc = min_resources(pod, members, &minres, err);
	if (rc)
		goto out;
	rc = VC_ENOMEM;
	if (ref)
		refs = json_deep_copy(vc_json_path(pod, "metadata.ownerReferences"));
	else
		refs = json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", "v1", "kind",
				 "Pod", "name", str_at(pod, "metadata.name"), "uid",
				 str_at(pod, "metadata.uid"), "controller", 1, "blockOwnerDeletion",
				 1);
	pg = json_pack("{s:s, s:s, s:{s:s, s:s, s:o}, s:{s:i, s:o}, s:{s:s}}", "apiVersion",
		       "scheduling.volcano.sh/v1beta1", "kind", "PodGroup", "metadata", "namespace",
		       str_at(pod, "metadata.namespace"), "name", pg_name, "ownerReferences", refs,
		       "spec", "minMember", (int)members, "minResources", minres, "status", "phase",
		       "Pending");
	minres = NULL;
	if (!pg)
		goto out;
	meta = json_object_get(pg, "metadata");
	spec = json_object_get(pg, "spec");
	ann = json_object();
	if (json_object_set_new(meta, "annotations", ann))
		goto out;
	labels = json_object();
	if (json_object_set_new(meta, "labels", labels))
		goto out;
	json_object_foreach (owner_ann, k, v)
		if (!strncmp(k, INHERIT_PREFIX, strlen(INHERIT_PREFIX)) &&
		    json_object_set(ann, k, v))
			goto out;
	prio = json_string_value(vc_json_path(pod, "spec.priorityClassName"));
	if (prio && *prio && json_object_set_new(spec, "priorityClassName", json_string(prio)))
		goto out;
	queue_name = json_string_value(json_object_get(pod_ann, QUEUE_NAME_KEY));
	if (queue_name && *queue_name &&
	    json_object_set_new(spec, "queue", json_string(queue_name)))
		goto out;
	if (copy_key(ann, pod_ann, "volcano.sh/preemptable") ||
	    copy_key(ann, pod_ann, "volcano.sh/cooldown-time") ||
	    copy_key(ann, pod_ann, "volcano.sh/revocable-zone") ||
	    copy_key(labels, pod_labels, "volcano.sh/preemptable") ||
	    copy_key(labels, pod_labels, "volcano.sh/cooldown-time"))
		goto out;
	if (json_is_string(json_object_get(pod_ann, "volcano.sh/jdb-min-available"))) {
		if (copy_key(ann, pod_ann, "volcano.sh/jdb-min-available"))
			goto out;
	} else if (copy_key(ann, pod_ann, "volcano.sh/jdb-max-unavailable")) {
		goto out;
	}
	/* Go leaves empty maps out of the object it sends. */
	if (!json_object_size(ann))
		json_object_del(meta, "annotations");
	if (!json_object_size(labels))
		json_object_del(meta, "labels");
	*out = pg;
	pg = NULL;
	rc = 0;
out:
	if (rc == VC_ENOMEM)
		vc_error_set(err, rc, "out of memory");
	json_decref(minres);
	json_decref(pg);
	json_decref(owner_ann);
	return rc;
}

/* processNextReq for the pod under key. */
static int handle_pod(struct pgctl *c, const char *key, struct vc_error *err)
{
	json_t *pod = vc_cache_get(vc_informer_cache(c->ctx->pods), key), *pg = NULL, *patch;
	char pg_name[300], pg_key[VC_CACHE_KEY_MAX + 16];
	const char *ns, *name;
	bool exists = false;
	int rc;

	if (!pod)
		return 0; /* gone */
	if (!wants_podgroup(c, pod)) {
		rc = 0;
		goto out;
	}
	ns = str_at(pod, "metadata.namespace");
	name = str_at(pod, "metadata.name");
	rc = podgroup_name(pod, pg_name, sizeof(pg_name));
	if (rc) {
		VC_ERROR("cannot name the PodGroup of a pod", "pod=%s", key);
		rc = 0;
		goto out;
	}
	if (c->ctx->podgroups) {
		snprintf(pg_key, sizeof(pg_key), "%s/%s", ns, pg_name);
		pg = vc_cache_get(vc_informer_cache(c->ctx->podgroups), pg_key);
		exists = pg != NULL;
		json_decref(pg);
		pg = NULL;
	}
	if (!exists) {
		rc = build_podgroup(c, pod, pg_name, key, &pg, err);
		if (rc == VC_EINVALID || rc == VC_EPARSE || rc == VC_ERANGE) {
			/* A pod the API server accepted never gets here; retrying cannot help. */
			VC_ERROR("cannot build the PodGroup of a pod", "pod=%s error=\"%s\"", key,
				 err->text);
			rc = 0;
			goto out;
		}
		if (rc)
			goto out;
		rc = vc_kube_create(c->ctx->kube, &vc_gvr_podgroups, ns, NULL, NULL, pg, NULL, err);
		if (rc && rc != VC_EALREADYEXISTS) {
			vc_error_prefix(err, "failed to create normal PodGroup for Pod <%s/%s>", ns,
					name);
			goto out;
		}
		if (!rc)
			VC_INFO("created a PodGroup for a pod", "pod=%s podgroup=%s/%s", key, ns,
				pg_name);
	}
	patch = json_pack("{s:{s:{s:s}}}", "metadata", "annotations", GROUP_NAME_KEY, pg_name);
	if (!patch) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out;
	}
	rc = vc_kube_patch(c->ctx->kube, &vc_gvr_pods, ns, name, NULL, VC_PATCH_MERGE, patch, NULL,
			   err);
	json_decref(patch);
	if (rc == VC_ENOTFOUND)
		rc = 0; /* the pod is gone */
	else if (rc)
		vc_error_prefix(err, "failed to update pod <%s/%s>", ns, name);
out:
	json_decref(pg);
	json_decref(pod);
	return rc;
}

static int sync_key(void *ctx, const char *key, struct vc_error *err)
{
	return handle_pod(ctx, key, err);
}

static const struct vc_ctlrun_retry pg_retry = {
	.max_requeue = -1,
	.key_label = "pod",
	.retry_level = VC_LOG_ERROR,
	.retry_msg = "failed to handle a pod, will retry",
	.requeue_level = VC_LOG_ERROR,
	.requeue_msg = "cannot queue a pod again",
	.requeue_err_label = "error",
};

int pgctl_run_once(struct pgctl *c)
{
	return vc_ctlrun_run_once(c->rt);
}

static void free_names(struct pgctl *c)
{
	size_t i;

	for (i = 0; i < c->nnames; i++)
		vc_free(c->names[i]);
	c->nnames = 0;
}

int pgctl_new(struct vc_ctrl_ctx *ctx, const struct pgctl_config *cfg, struct pgctl **out,
	      struct vc_error *err)
{
	struct vc_informer_handler h = { on_pod_add, NULL, NULL, NULL };
	struct vc_ctlrun_queue_def def = { 0 };
	struct pgctl *c;
	size_t i, n;
	int rc;

	*out = NULL;
	if (!ctx || !cfg)
		return vc_error_set(err, VC_EINVAL, "pg controller: no context or configuration");
	if (!ctx->pods)
		return vc_error_set(err, VC_EINVAL, "pg controller needs the pods informer");
	if (cfg->nscheduler_names > PGCTL_MAX_SCHEDULER_NAMES)
		return vc_error_set(err, VC_EINVAL, "pg controller: more than %d scheduler names",
				    PGCTL_MAX_SCHEDULER_NAMES);
	c = vc_calloc(1, sizeof(*c));
	if (!c)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	c->ctx = ctx;
	c->cfg = *cfg;
	if (c->cfg.workers < 1)
		c->cfg.workers = 1;
	n = cfg->nscheduler_names;
	for (i = 0; i < (n ? n : 1); i++) {
		c->names[i] = vc_strdup(n ? cfg->scheduler_names[i] : DEFAULT_SCHEDULER);
		if (!c->names[i]) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto fail;
		}
		c->nnames++;
	}
	memset(c->cfg.scheduler_names, 0, sizeof(c->cfg.scheduler_names));
	def.workers = c->cfg.workers;
	def.sync = sync_key;
	def.retry = &pg_retry;
	def.ctx = c;
	c->rt = vc_ctlrun_new();
	if (!c->rt || vc_ctlrun_add(c->rt, &def, &c->wq)) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	h.ctx = c;
	rc = vc_informer_add_handler(ctx->pods, &h);
	if (rc) {
		vc_error_set(err, rc, "pg controller: cannot watch pods");
		goto fail;
	}
	*out = c;
	return 0;
fail:
	vc_ctlrun_free(c->rt);
	free_names(c);
	vc_free(c);
	return rc;
}

int pgctl_start(struct pgctl *c)
{
	int rc = vc_ctlrun_start(c->rt);

	if (rc)
		return rc;
	VC_INFO("pg controller started", "workers=%zu", vc_ctlrun_threads(c->rt));
	return 0;
}

void pgctl_stop(struct pgctl *c)
{
	if (!c)
		return;
	vc_ctlrun_stop(c->rt);
}

void pgctl_free(struct pgctl *c)
{
	if (!c)
		return;
	pgctl_stop(c);
	vc_ctlrun_free(c->rt);
	free_names(c);
	vc_free(c);
}
