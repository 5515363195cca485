/*
 * job_plugin_hcclrank.c - the hcclrank job plugin (docs/volcano/job-controller.md §5.8): the pod
 * annotation `hccl/rankIndex`, from a RANK env var when a container has one (pytorch adds it, and
 * runs first), else from the task index label. No job-level hooks and no marker. Volcano v1.7 has
 * no such plugin; this follows the spec.
 */
#include "job_plugin.h"

#include "job_pod.h"
#include "vc_json.h"
#include "vc_str.h"
#include "vc_strconv.h"

#define HCCL_RANK_KEY "hccl/rankIndex"

struct hccl_args {
	const char *master, *worker;
};

static void hccl_parse(const struct vc_job *job, struct hccl_args *a, struct vc_error *warn)
{
	const struct job_flag f[] = {
		{ "master", JOB_FLAG_STRING, &a->master },
		{ "worker", JOB_FLAG_STRING, &a->worker },
	};

	*a = (struct hccl_args){ "master", "worker" };
	jp_parse_args(job, VC_JOB_PLUGIN_HCCLRANK, f, VC_ARRAY_SIZE(f), warn);
}

/*
 * The literal value of the first env var named RANK of the regular containers, in container
 * order; "" when that one has no literal value (valueFrom) or when there is none.
 */
static const char *first_rank_env(const json_t *pod)
{
	const json_t *containers = vc_json_path(pod, "spec.containers"), *env, *e;
	size_t i, j;

	for (i = 0; i < json_array_size(containers); i++) {
		env = json_object_get(json_array_get(containers, i), "env");
		for (j = 0; j < json_array_size(env); j++) {
			e = json_array_get(env, j);
			if (vc_str_eq(vc_json_get_str(e, "name"), "RANK"))
				return jp_nonempty_or(vc_json_get_str(e, "value"), "");
		}
	}
	return "";
}

/* The replica index from the pod's label volcano.sh/task-index, as Go's strconv.Atoi reads it. */
static int label_index(const json_t *pod, int64_t *out, struct vc_error *err)
{
	const char *pod_name = jp_pod_name_of(pod);
	const char *s = vc_json_get_str(vc_json_path(pod, "metadata.labels"), JOB_KEY_TASK_INDEX);
	int rc;

	if (!s)
		return vc_error_set(err, VC_EINVALID, "pod %s doesn't have %s label", pod_name,
				    JOB_KEY_TASK_INDEX);
	rc = vc_strconv_parse_int(s, strlen(s), 10, out);
	if (rc)
		return vc_error_set(err, VC_EINVALID,
				    "failed to parse task index for pod %s: strconv.Atoi: parsing "
				    "\"%s\": %s",
				    pod_name, s,
				    rc == VC_ERANGE ? "value out of range" : "invalid syntax");
	return 0;
}

static int hccl_pod(const struct vc_job *job, json_t *pod, struct vc_error *warn,
		    struct vc_error *err)
{
	struct hccl_args a;
	const struct vc_task *master;
	const char *task = jp_nonempty_or(jp_pod_task(pod), ""), *rank;
	json_t *meta = json_object_get(pod, "metadata"), *ann;
	int64_t index = 0;
	char num[24];
	int rc;

	hccl_parse(job, &a, warn);
	if (!json_is_object(meta))
		return vc_error_set(err, VC_EINVALID, "pod metadata: must be an object");
	ann = json_object_get(meta, "annotations");
	if (ann && !json_is_object(ann))
		return vc_error_set(err, VC_EINVALID,
				    "pod metadata.annotations: must be an object");
	if (*jp_nonempty_or(vc_json_get_str(ann, HCCL_RANK_KEY), ""))
		return 0;
	rank = first_rank_env(pod);
	if (!*rank) {
		if (strcmp(task, a.master) != 0 && strcmp(task, a.worker) != 0)
			return 0;
		if ((rc = label_index(pod, &index, err)))
			return rc;
		/* A worker comes after every master replica (none when there is no master task).
		 * Unsigned, so a label near INT64_MAX wraps as Go's int does instead of being
		 * undefined. */
		master = vc_job_task(job, a.master);
		if (strcmp(task, a.master) != 0 && master)
			index = (int64_t)((uint64_t)index + (uint64_t)master->replicas);
		snprintf(num, sizeof(num), "%lld", (long long)index);
		rank = num;
	}
	if (!ann && json_object_set_new(meta, "annotations", ann = json_object()))
		return VC_ENOMEM;
	return jp_set_str(ann, HCCL_RANK_KEY, rank);
}

const struct job_plugin job_plugin_hcclrank = {
	.no_marker = true,
	.on_pod_create = hccl_pod,
};
