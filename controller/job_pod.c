/* job_pod.c - pods and PodGroups built from a Job (docs/volcano/job-controller.md §2.1, §2.2). */
#include "job_pod.h"

#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_quantity.h"
#include "vc_resource.h"
#include "vc_str.h"

static bool nonempty(const char *s)
{
	return s && *s;
}

char *job_pod_name(const char *job, const char *task, int32_t index)
{
	return vc_asprintf("%s-%s-%d", job, task, (int)index);
}

char *job_podgroup_name(const struct vc_job *job)
{
	return vc_asprintf("%s-%s", job->meta.name, job->meta.uid);
}

/* Set key to a new string copy of value; 0 or VC_ENOMEM. */
static int set_str(json_t *obj, const char *key, const char *value)
{
	return json_object_set_new(obj, key, json_string(value)) ? VC_ENOMEM : 0;
}

static int set_int(json_t *obj, const char *key, json_int_t value)
{
	return json_object_set_new(obj, key, json_integer(value)) ? VC_ENOMEM : 0;
}

json_t *job_owner_references(const struct vc_job *job)
{
	json_t *arr = json_array(), *ref = json_object();

	if (!arr || !ref)
		goto fail;
	if (set_str(ref, "apiVersion", "batch.volcano.sh/v1alpha1") ||
	    set_str(ref, "kind", "Job") || set_str(ref, "name", job->meta.name) ||
	    set_str(ref, "uid", job->meta.uid) ||
	    json_object_set_new(ref, "controller", json_true()) ||
	    json_object_set_new(ref, "blockOwnerDeletion", json_true()))
		goto fail;
	if (json_array_append_new(arr, ref)) {
		ref = NULL;
		goto fail;
	}
	return arr;
fail:
	json_decref(ref);
	json_decref(arr);
	return NULL;
}

/* A deep copy of obj[key] when it is an object, else a new empty object; NULL on ENOMEM. */
static json_t *copy_object(const json_t *obj, const char *key)
{
	json_t *v = vc_json_get_obj(obj, key);

	return v ? json_deep_copy(v) : json_object();
}

/* Copy src[key] (a string) into dst[key] when present; 0 or VC_ENOMEM. */
static int copy_key(json_t *dst, const json_t *src, const char *key)
{
	const char *v = src ? vc_json_get_str(src, key) : NULL;

	return v ? set_str(dst, key, v) : 0;
}

/* Add the job volumes (docs/volcano/job-controller.md §2.1.2 step 2) to spec. */
static int add_job_volumes(const struct vc_job *job, json_t *spec, const char *const *names,
			   struct vc_error *err)
{
	json_t *seen = NULL, *volumes, *containers, *c, *ent;
	size_t k, i;
	int rc = 0;

	if (!job->volumes || json_array_size(job->volumes) == 0)
		return 0;
	if (!names)
		return vc_error_set(err, VC_EINVAL,
				    "job '%s' has volumes but no volume names given",
				    job->meta.name);
	containers = vc_json_get_arr(spec, "containers");
	if (!containers)
		return vc_error_set(err, VC_EINVALID, "template spec.containers: must be an array");
	seen = json_object();
	if (!seen)
		return VC_ENOMEM;
	volumes = vc_json_get_arr(spec, "volumes");
	if (!volumes) {
		if (json_object_set_new(spec, "volumes", volumes = json_array()) || !volumes) {
			rc = VC_ENOMEM;
			goto out;
		}
	}
	json_array_foreach (job->volumes, k, ent) {
		const char *claim =
			json_is_object(ent) ? vc_json_get_str(ent, "volumeClaimName") : NULL;
		const char *mount = json_is_object(ent) ? vc_json_get_str(ent, "mountPath") : NULL;
		json_t *vol, *m;

		if (!claim || !*claim || !mount) {
			rc = vc_error_set(
				err, VC_EINVALID,
				"spec.volumes[%zu]: volumeClaimName and mountPath are required", k);
			goto out;
		}
		if (json_object_get(seen, claim))
			continue;
		if (!names[k]) {
			rc = vc_error_set(err, VC_EINVAL, "no volume name for spec.volumes[%zu]",
					  k);
			goto out;
		}
		if (json_object_set_new(seen, claim, json_true())) {
			rc = VC_ENOMEM;
			goto out;
		}
		vol = json_pack("{s:s, s:{s:s}}", "name", names[k], "persistentVolumeClaim",
				"claimName", claim);
		if (!vol || json_array_append_new(volumes, vol)) {
			rc = VC_ENOMEM;
			goto out;
		}
		json_array_foreach (containers, i, c) {
			json_t *mounts;

			if (!json_is_object(c)) {
				rc = vc_error_set(
					err, VC_EINVALID,
					"template spec.containers[%zu]: must be an object", i);
				goto out;
			}
			mounts = vc_json_get_arr(c, "volumeMounts");
			if (!mounts) {
				mounts = json_array();
				if (!mounts || json_object_set_new(c, "volumeMounts", mounts)) {
					rc = VC_ENOMEM;
					goto out;
				}
			}
			m = json_pack("{s:s, s:s}", "name", names[k], "mountPath", mount);
			if (!m || json_array_append_new(mounts, m)) {
				rc = VC_ENOMEM;
				goto out;
			}
		}
	}
out:
	json_decref(seen);
	return rc;
}

static int add_annotations(const struct vc_job *job, const struct vc_task *t, json_t *ann,
			   const char *idx, bool forwarded)
{
	char num[16];
	char *group = NULL, *tuid = NULL;
	int rc = VC_ENOMEM;

	group = job_podgroup_name(job);
	tuid = vc_asprintf("%s-%s", job->meta.name, t->name);
	if (!group || !tuid)
		goto out;
	if (set_str(ann, JOB_KEY_TASK_INDEX, idx) || set_str(ann, JOB_KEY_TASK_SPEC, t->name) ||
	    set_str(ann, JOB_KEY_GROUP_NAME, group) ||
	    set_str(ann, JOB_KEY_JOB_NAME, job->meta.name) ||
	    set_str(ann, JOB_KEY_QUEUE_NAME, job->queue))
		goto out;
	snprintf(num, sizeof(num), "%d", (int)job->status.version);
	if (set_str(ann, JOB_KEY_JOB_VERSION, num) || set_str(ann, JOB_KEY_TEMPLATE_UID, tuid))
		goto out;
	snprintf(num, sizeof(num), "%d", (int)job->status.retry_count);
	if (set_str(ann, JOB_KEY_RETRY_COUNT, num))
		goto out;
	if (t->topology_policy && *t->topology_policy &&
	    set_str(ann, JOB_KEY_NUMA_POLICY, t->topology_policy))
		goto out;
	if (copy_key(ann, job->meta.annotations, JOB_KEY_PREEMPTABLE) ||
	    copy_key(ann, job->meta.annotations, JOB_KEY_COOLDOWN) ||
	    copy_key(ann, job->meta.annotations, JOB_KEY_REVOCABLE_ZONE))
		goto out;
	if (job->meta.annotations &&
	    vc_json_get_str(job->meta.annotations, JOB_KEY_JDB_MIN_AVAILABLE)) {
		if (copy_key(ann, job->meta.annotations, JOB_KEY_JDB_MIN_AVAILABLE))
			goto out;
	} else if (copy_key(ann, job->meta.annotations, JOB_KEY_JDB_MAX_UNAVAILABLE)) {
		goto out;
	}
	if (forwarded && set_str(ann, JOB_KEY_FORWARDING, "true"))
		goto out;
	rc = 0;
out:
	vc_free(group);
	vc_free(tuid);
	return rc;
}

static int add_labels(const struct vc_job *job, const struct vc_task *t, json_t *lab,
		      const char *idx, int32_t index, bool forwarded)
{
	char num[16];

	if (set_str(lab, JOB_KEY_TASK_INDEX, idx) ||
	    set_str(lab, JOB_KEY_JOB_NAME, job->meta.name) ||
	    set_str(lab, JOB_KEY_TASK_SPEC, t->name) ||
	    set_str(lab, JOB_KEY_JOB_NAMESPACE, job->meta.ns) ||
	    set_str(lab, JOB_KEY_QUEUE_NAME, job->queue) ||
	    copy_key(lab, job->meta.labels, JOB_KEY_PREEMPTABLE) ||
	    copy_key(lab, job->meta.labels, JOB_KEY_COOLDOWN))
		return VC_ENOMEM;
	if (forwarded && set_str(lab, JOB_KEY_FORWARDING, "true"))
		return VC_ENOMEM;
	if (t->has_partition) {
		int32_t pid = t->partition_size > 0 ? index / t->partition_size : 0;

		snprintf(num, sizeof(num), "%d", (int)pid);
		if (set_str(lab, JOB_KEY_PARTITION_ID, num))
			return VC_ENOMEM;
	}
	return 0;
}

int job_pod_build(const struct vc_job *job, size_t task_idx, int32_t index,
		  const struct job_pod_opts *opts, json_t **out, struct vc_error *err)
{
	static const struct job_pod_opts no_opts;
	const struct vc_task *t;
	json_t *pod = NULL, *meta, *spec, *tspec, *labels, *ann, *owners;
	char *name = NULL;
	char idx[16];
	int rc = VC_ENOMEM;

	if (!opts)
		opts = &no_opts;
	if (task_idx >= job->ntasks)
		return vc_error_set(err, VC_EINVAL, "job '%s' has no task %zu", job->meta.name,
				    task_idx);
	t = &job->tasks[task_idx];
	if (index < 0 || index >= t->replicas)
		return vc_error_set(err, VC_EINVAL, "task '%s' has no replica %d", t->name,
				    (int)index);
	tspec = t->template ? vc_json_get_obj(t->template, "spec") : NULL;
	if (!tspec)
		return vc_error_set(err, VC_EINVALID, "task '%s': template.spec is missing",
				    t->name);
	name = job_pod_name(job->meta.name, t->name, index);
	pod = json_pack("{s:s, s:s, s:{}}", "apiVersion", "v1", "kind", "Pod", "metadata");
	if (!name || !pod)
		goto fail;
	meta = json_object_get(pod, "metadata");
	if (set_str(meta, "name", name) || set_str(meta, "namespace", job->meta.ns))
		goto fail;
	labels = copy_object(vc_json_get_obj(t->template, "metadata"), "labels");
	if (!labels || json_object_set_new(meta, "labels", labels))
		goto fail;
	ann = copy_object(vc_json_get_obj(t->template, "metadata"), "annotations");
	if (!ann || json_object_set_new(meta, "annotations", ann))
		goto fail;
	owners = job_owner_references(job);
	if (!owners || json_object_set_new(meta, "ownerReferences", owners))
		goto fail;
	spec = json_deep_copy(tspec);
	if (!spec || json_object_set_new(pod, "spec", spec))
		goto fail;
	if (!nonempty(vc_json_get_str(spec, "schedulerName")) &&
	    set_str(spec, "schedulerName", job->scheduler_name))
		goto fail;
	if (!nonempty(vc_json_get_str(spec, "priorityClassName")) &&
	    nonempty(job->priority_class_name) &&
	    set_str(spec, "priorityClassName", job->priority_class_name))
		goto fail;
	rc = add_job_volumes(job, spec, opts->volume_names, err);
	if (rc)
		goto fail;
	rc = VC_ENOMEM;
	snprintf(idx, sizeof(idx), "%d", (int)index);
	if (add_annotations(job, t, ann, idx, opts->forwarded) ||
	    add_labels(job, t, labels, idx, index, opts->forwarded))
		goto fail;
	vc_free(name);
	*out = pod;
	return 0;
fail:
	vc_free(name);
	json_decref(pod);
	return rc;
}

/* ---- quota usage ---------------------------------------------------------------------------- */

/* A small ResourceList of quantities; names are borrowed from the pod spec or static. */
struct qlist {
	struct qent {
		const char *name;
		struct vc_quantity q;
	} * v;
	size_t n, cap;
};

static void qlist_release(struct qlist *l)
{
	vc_free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

static struct vc_quantity *qlist_get(const struct qlist *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i].q;
	return NULL;
}

static int qlist_put(struct qlist *l, const char *name, const struct vc_quantity *q)
{
	struct vc_quantity *cur = qlist_get(l, name);

	if (cur) {
		*cur = *q;
		return 0;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 8;
		struct qent *v = vc_realloc(l->v, cap * sizeof(*v));

		if (!v)
			return VC_ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].name = name;
	l->v[l->n].q = *q;
	l->n++;
	return 0;
}

static int qlist_add_one(struct qlist *l, const char *name, const struct vc_quantity *q)
{
	struct vc_quantity *cur = qlist_get(l, name);

	if (!cur)
		return qlist_put(l, name, q);
	return vc_quantity_add(cur, q);
}

static int qlist_add(struct qlist *l, const struct qlist *r)
{
	size_t i;
	int rc;

	for (i = 0; i < r->n; i++)
		if ((rc = qlist_add_one(l, r->v[i].name, &r->v[i].q)))
			return rc;
	return 0;
}

static int qlist_max(struct qlist *l, const struct qlist *r)
{
	size_t i;
	int rc;

	for (i = 0; i < r->n; i++) {
		struct vc_quantity *cur = qlist_get(l, r->v[i].name);

		if (cur && vc_quantity_cmp(cur, &r->v[i].q) >= 0)
			continue;
		if ((rc = qlist_put(l, r->v[i].name, &r->v[i].q)))
			return rc;
	}
	return 0;
}

static int qlist_copy(struct qlist *dst, const struct qlist *src)
{
	dst->n = 0;
	return qlist_add(dst, src);
}

/* Parse a ResourceList (borrowed; NULL is empty) into l (names borrowed from list). */
static int qlist_parse(struct qlist *l, const json_t *list, const char *where, size_t ci,
		       const char *field, struct vc_error *err)
{
	const char *name;
	json_t *v;
	struct vc_quantity q;
	int rc;

	l->n = 0;
	if (!list)
		return 0;
	if (!json_is_object(list))
		return vc_error_set(err, VC_EINVALID, "%s[%zu].resources.%s: must be an object",
				    where, ci, field);
	json_object_foreach ((json_t *)list, name, v) {
		if (vc_quantity_parse_json(v, &q, NULL))
			return vc_error_set(err, VC_EINVALID,
					    "%s[%zu].resources.%s[%s]: cannot parse quantity",
					    where, ci, field, name);
		if ((rc = qlist_put(l, name, &q)))
			return rc;
	}
	return 0;
}

/* Kubernetes' PodRequests / PodLimits (field "requests" or "limits") of spec into out. */
static int pod_resources(const json_t *spec, const char *field, struct qlist *out,
			 struct vc_error *err)
{
	struct qlist one = { 0 }, side = { 0 }, init = { 0 }, tmp = { 0 };
	json_t *arr, *c, *res;
	size_t i;
	int rc = 0;

	out->n = 0;
	arr = vc_json_get_arr(spec, "containers");
	json_array_foreach (arr, i, c) {
		res = vc_json_get_obj(c, "resources");
		if ((rc = qlist_parse(&one, res ? json_object_get(res, field) : NULL, "containers",
				      i, field, err)) ||
		    (rc = qlist_add(out, &one)))
			goto out;
	}
	arr = vc_json_get_arr(spec, "initContainers");
	json_array_foreach (arr, i, c) {
		res = vc_json_get_obj(c, "resources");
		if ((rc = qlist_parse(&one, res ? json_object_get(res, field) : NULL,
				      "initContainers", i, field, err)))
			goto out;
		if (vc_str_eq(vc_json_get_str(c, "restartPolicy"), "Always")) {
			if ((rc = qlist_add(out, &one)) || (rc = qlist_add(&side, &one)) ||
			    (rc = qlist_max(&init, &side)))
				goto out;
		} else {
			if ((rc = qlist_copy(&tmp, &one)) || (rc = qlist_add(&tmp, &side)) ||
			    (rc = qlist_max(&init, &tmp)))
				goto out;
		}
	}
	if ((rc = qlist_max(out, &init)))
		goto out;
	res = vc_json_get_obj(spec, "overhead");
	if (res) {
		if ((rc = qlist_parse(&one, res, "overhead", 0, field, err)))
			goto out;
		/* Kubernetes adds the overhead to a limit only where one is set. */
		for (i = 0; i < one.n; i++) {
			if (strcmp(field, "limits") == 0 && !qlist_get(out, one.v[i].name))
				continue;
			if ((rc = qlist_add_one(out, one.v[i].name, &one.v[i].q)))
				goto out;
		}
	}
out:
	qlist_release(&one);
	qlist_release(&side);
	qlist_release(&init);
	qlist_release(&tmp);
	return rc;
}

/* Put q under name into obj as a quantity string; name is copied. */
static int put_q(json_t *obj, const char *name, const struct vc_quantity *q)
{
	json_t *v = vc_quantity_to_json(q);

	if (!v)
		return VC_ENOMEM;
	return json_object_set_new(obj, name, v) ? VC_ENOMEM : 0;
}

/* The usage of one pod as a qlist (names may point into the static prefixed-name store). */
static int pod_usage_json(const json_t *spec, json_t *res, struct vc_error *err)
{
	static const char *const basic[] = { "cpu", "memory", "ephemeral-storage" };
	struct qlist req = { 0 }, lim = { 0 };
	struct vc_quantity one;
	char key[512];
	size_t i;
	int rc;

	if ((rc = pod_resources(spec, "requests", &req, err)) ||
	    (rc = pod_resources(spec, "limits", &lim, err)))
		goto out;
	vc_quantity_from_int64(&one, 1, VC_QUANTITY_DECIMAL_SI);
	if ((rc = put_q(res, "count/pods", &one)) || (rc = put_q(res, "pods", &one)))
		goto out;
	for (i = 0; i < 3; i++) {
		const struct vc_quantity *q = qlist_get(&req, basic[i]);

		if (q) {
			snprintf(key, sizeof(key), "requests.%s", basic[i]);
			if ((rc = put_q(res, basic[i], q)) || (rc = put_q(res, key, q)))
				goto out;
		}
		q = qlist_get(&lim, basic[i]);
		if (q) {
			snprintf(key, sizeof(key), "limits.%s", basic[i]);
			if ((rc = put_q(res, key, q)))
				goto out;
		}
	}
	for (i = 0; i < req.n; i++) {
		const char *n = req.v[i].name;

		if (strlen(n) > 400)
			continue; /* longer than any valid resource name */
		snprintf(key, sizeof(key), "requests.%s", n);
		if (vc_resource_is_hugepages(n)) {
			if ((rc = put_q(res, n, &req.v[i].q)) ||
			    (rc = put_q(res, key, &req.v[i].q)))
				goto out;
		}
		if (vc_resource_is_extended(n)) {
			if ((rc = put_q(res, key, &req.v[i].q)) ||
			    (rc = put_q(res, n, &req.v[i].q)))
				goto out;
		}
	}
out:
	qlist_release(&req);
	qlist_release(&lim);
	return rc;
}

int job_pod_usage(const json_t *spec, json_t **out, struct vc_error *err)
{
	json_t *res = json_object();
	int rc;

	if (!res)
		return VC_ENOMEM;
	rc = pod_usage_json(spec, res, err);
	if (rc) {
		json_decref(res);
		return rc;
	}
	*out = res;
	return 0;
}

/* acc += n x usage (both ResourceLists of quantity strings). */
static int add_times(json_t *acc, const json_t *usage, int32_t n)
{
	const char *name;
	json_t *v;
	struct vc_quantity a, b;
	int rc;

	if (n <= 0)
		return 0;
	json_object_foreach ((json_t *)usage, name, v) {
		if (vc_quantity_parse_json(v, &b, NULL))
			return VC_EINVALID;
		if ((rc = vc_quantity_mul(&b, n)))
			return rc;
		if (json_object_get(acc, name)) {
			if (vc_quantity_parse_json(json_object_get(acc, name), &a, NULL))
				return VC_EINVALID;
			if ((rc = vc_quantity_add(&a, &b)))
				return rc;
		} else {
			a = b;
		}
		if ((rc = put_q(acc, name, &a)))
			return rc;
	}
	return 0;
}

int job_min_resources(const struct vc_job *job, const int32_t *weights, json_t **out,
		      struct vc_error *err)
{
	json_t *acc = NULL, **usage = NULL;
	size_t *order = NULL, i, j;
	int64_t sum = 0;
	int32_t job_min = job->min_available;
	int rc = VC_ENOMEM;

	acc = json_object();
	if (job->ntasks) {
		usage = vc_calloc(job->ntasks, sizeof(json_t *));
		order = vc_calloc(job->ntasks, sizeof(*order));
	}
	if (!acc || (job->ntasks && (!usage || !order)))
		goto out;
	for (i = 0; i < job->ntasks; i++) {
		const json_t *spec = job->tasks[i].template
					     ? vc_json_get_obj(job->tasks[i].template, "spec")
					     : NULL;
		json_t *empty = NULL;

		if (!spec) {
			empty = json_object();
			if (!empty)
				goto out;
		}
		rc = job_pod_usage(spec ? spec : empty, &usage[i], err);
		json_decref(empty);
		if (rc) {
			vc_error_prefix(err, "spec.tasks[%zu].template.spec", i);
			goto out;
		}
		rc = VC_ENOMEM;
		sum += job->tasks[i].min_available;
		/* Stable insertion by weight, highest first. */
		for (j = i;
		     j > 0 && (weights ? weights[order[j - 1]] : 0) < (weights ? weights[i] : 0);
		     j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	if (job_min < sum) {
		int32_t left = job_min;

		for (i = 0; i < job->ntasks && left > 0; i++) {
			const struct vc_task *t = &job->tasks[order[i]];

			if (left <= t->replicas) {
				rc = add_times(acc, usage[order[i]], left);
				if (rc)
					goto out;
				break;
			}
			if ((rc = add_times(acc, usage[order[i]], t->replicas)))
				goto out;
			left -= t->replicas;
		}
	} else {
		int32_t counted = 0, remaining;

		for (i = 0; i < job->ntasks && counted < job_min; i++) {
			const struct vc_task *t = &job->tasks[order[i]];
			int32_t n = t->min_available;

			if (n > job_min - counted)
				n = job_min - counted;
			if ((rc = add_times(acc, usage[order[i]], n)))
				goto out;
			counted += n > 0 ? n : 0;
		}
		remaining = job_min - counted;
		for (i = 0; i < job->ntasks && remaining > 0; i++) {
			const struct vc_task *t = &job->tasks[order[i]];
			int32_t spare = t->replicas - t->min_available;

			if (spare <= 0)
				continue;
			if (spare > remaining)
				spare = remaining;
			if ((rc = add_times(acc, usage[order[i]], spare)))
				goto out;
			remaining -= spare;
		}
	}
	*out = acc;
	acc = NULL;
	rc = 0;
out:
	if (rc == VC_ERANGE)
		vc_error_set(err, rc, "minResources of job '%s' overflow", job->meta.name);
	if (usage)
		for (i = 0; i < job->ntasks; i++)
			json_decref(usage[i]);
	vc_free(usage);
	vc_free(order);
	json_decref(acc);
	return rc;
}

/* networkTopology of a PodGroup from a job's or partition's NetworkTopologySpec. */
static int network_topology(const json_t *src, bool both, json_t **out)
{
	json_t *nt = json_object(), *v;

	if (!nt)
		return VC_ENOMEM;
	if ((v = json_object_get(src, "mode")) && json_object_set(nt, "mode", v))
		goto fail;
	if ((v = json_object_get(src, "highestTierAllowed"))) {
		if (json_object_set(nt, "highestTierAllowed", v))
			goto fail;
		if (!both)
			goto done;
	}
	if ((v = json_object_get(src, "highestTierName")) &&
	    json_object_set(nt, "highestTierName", v))
		goto fail;
done:
	*out = nt;
	return 0;
fail:
	json_decref(nt);
	return VC_ENOMEM;
}

static int subgroup_policy(const struct vc_job *job, json_t *spec)
{
	json_t *arr = NULL, *tasks = vc_json_path(job->obj, "spec.tasks");
	size_t i;

	for (i = 0; i < job->ntasks; i++) {
		const struct vc_task *t = &job->tasks[i];
		json_t *e, *pnt;

		if (!t->has_partition)
			continue;
		if (!arr &&
		    (!(arr = json_array()) || json_object_set_new(spec, "subGroupPolicy", arr)))
			return VC_ENOMEM;
		e = json_pack("{s:s, s:i, s:i, s:{s:{s:s}}, s:[s]}", "name", t->name,
			      "subGroupSize", (int)t->partition_size, "minSubGroups",
			      (int)t->min_partitions, "labelSelector", "matchLabels",
			      JOB_KEY_TASK_SPEC, t->name, "matchLabelKeys", JOB_KEY_PARTITION_ID);
		if (!e || json_array_append_new(arr, e))
			return VC_ENOMEM;
		pnt = vc_json_get_obj(vc_json_get_obj(json_array_get(tasks, i), "partitionPolicy"),
				      "networkTopology");
		if (pnt) {
			json_t *nt;

			if (network_topology(pnt, true, &nt))
				return VC_ENOMEM;
			if (json_object_set_new(e, "networkTopology", nt))
				return VC_ENOMEM;
		}
	}
	return 0;
}

int job_podgroup_build(const struct vc_job *job, const int32_t *weights, json_t **out,
		       struct vc_error *err)
{
	json_t *pg = NULL, *meta, *spec, *v, *mtm, *minres = NULL;
	char *name = NULL;
	size_t i;
	int rc;

	rc = job_min_resources(job, weights, &minres, err);
	if (rc)
		return rc;
	rc = VC_ENOMEM;
	name = job_podgroup_name(job);
	pg = json_pack("{s:s, s:s, s:{}, s:{}}", "apiVersion", "scheduling.volcano.sh/v1beta1",
		       "kind", "PodGroup", "metadata", "spec");
	if (!name || !pg)
		goto fail;
	meta = json_object_get(pg, "metadata");
	spec = json_object_get(pg, "spec");
	if (set_str(meta, "name", name) || set_str(meta, "namespace", job->meta.ns))
		goto fail;
	if (job->meta.labels &&
	    (!(v = json_deep_copy(job->meta.labels)) || json_object_set_new(meta, "labels", v)))
		goto fail;
	if (job->meta.annotations && (!(v = json_deep_copy(job->meta.annotations)) ||
				      json_object_set_new(meta, "annotations", v)))
		goto fail;
	if (!(v = job_owner_references(job)) || json_object_set_new(meta, "ownerReferences", v))
		goto fail;
	if (set_int(spec, "minMember", job->min_available))
		goto fail;
	if (!(mtm = json_object()) || json_object_set_new(spec, "minTaskMember", mtm))
		goto fail;
	for (i = 0; i < job->ntasks; i++)
		if (set_int(mtm, job->tasks[i].name, job->tasks[i].min_available))
			goto fail;
	if (set_str(spec, "queue", job->queue))
		goto fail;
	if (nonempty(job->priority_class_name) &&
	    set_str(spec, "priorityClassName", job->priority_class_name))
		goto fail;
	if (json_object_set_new(spec, "minResources", minres)) {
		minres = NULL;
		goto fail;
	}
	minres = NULL;
	if (job->network_topology) {
		if (network_topology(job->network_topology, false, &v) ||
		    json_object_set_new(spec, "networkTopology", v))
			goto fail;
	}
	if (subgroup_policy(job, spec))
		goto fail;
	vc_free(name);
	*out = pg;
	return 0;
fail:
	json_decref(minres);
	vc_free(name);
	json_decref(pg);
	return rc;
}
