/*
 * job_pod.h - the objects the job controller builds for a Job: its pods and its PodGroup
 * (docs/volcano/job-controller.md §2.1, §2.2).
 *
 * Everything here is pure: the functions read a Job view (borrowed) and return NEW json_t
 * objects; they do no I/O and use no clock or randomness (names that Volcano generates at random
 * are inputs). Plugins (job_plugins.h) run on the pod afterwards.
 */
#ifndef JOB_POD_H
#define JOB_POD_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"
#include "vc_model.h"

/* Well-known keys (docs/volcano/job-controller.md §1.4). */
#define JOB_KEY_JOB_NAME	    "volcano.sh/job-name"
#define JOB_KEY_JOB_NAMESPACE	    "volcano.sh/job-namespace"
#define JOB_KEY_TASK_SPEC	    "volcano.sh/task-spec"
#define JOB_KEY_TASK_INDEX	    "volcano.sh/task-index"
#define JOB_KEY_QUEUE_NAME	    "volcano.sh/queue-name"
#define JOB_KEY_JOB_VERSION	    "volcano.sh/job-version"
#define JOB_KEY_RETRY_COUNT	    "volcano.sh/job-retry-count"
#define JOB_KEY_TEMPLATE_UID	    "volcano.sh/template-uid"
#define JOB_KEY_GROUP_NAME	    "scheduling.k8s.io/group-name"
#define JOB_KEY_NUMA_POLICY	    "volcano.sh/numa-topology-policy"
#define JOB_KEY_PARTITION_ID	    "volcano.sh/partition-id"
#define JOB_KEY_FORWARDING	    "volcano.sh/job-forwarding"
#define JOB_KEY_OUT_OF_SYNC	    "volcano.sh/controller-out-of-sync"
#define JOB_KEY_PREEMPTABLE	    "volcano.sh/preemptable"
#define JOB_KEY_COOLDOWN	    "volcano.sh/cooldown-time"
#define JOB_KEY_REVOCABLE_ZONE	    "volcano.sh/revocable-zone"
#define JOB_KEY_JDB_MIN_AVAILABLE   "volcano.sh/jdb-min-available"
#define JOB_KEY_JDB_MAX_UNAVAILABLE "volcano.sh/jdb-max-unavailable"

/* Options of job_pod_build beyond the job view. */
struct job_pod_opts {
	/*
	 * The pod volume names Volcano generates at random (`<job>-<12 chars of [0-9a-z]>`), one
	 * per entry of spec.volumes, same index; borrowed. May be NULL only when the job has no
	 * volumes.
	 */
	const char *const *volume_names;
	/* The job's queue has extendClusters (docs/volcano/job-controller.md §2.1.5): add the
	 * job-forwarding label/annotation. */
	bool forwarded;
};

/*
 * The pod name `<job>-<task>-<index>` as a new string (vc_free it), or NULL when out of memory.
 */
char *job_pod_name(const char *job, const char *task, int32_t index) VC_WARN_UNUSED;

/* The PodGroup name `<job>-<uid>` as a new string (vc_free it), or NULL when out of memory. */
char *job_podgroup_name(const struct vc_job *job) VC_WARN_UNUSED;

/*
 * A new array holding the one controller ownerReference to job (apiVersion
 * batch.volcano.sh/v1alpha1, kind Job, name, uid, controller and blockOwnerDeletion true), or
 * NULL when out of memory. The reference is new.
 */
json_t *job_owner_references(const struct vc_job *job);

/*
 * Build the pod for replica `index` of task `task_idx` of job (borrowed), before plugins, as
 * docs/volcano/job-controller.md §2.1.2 says: a deep copy of the task template's labels,
 * annotations and spec; schedulerName and priorityClassName defaulted from the job; the job volumes
 * (claims seen before in this pod skipped) mounted in every regular container; the controller's
 * labels and annotations; the partition-id label; the controller ownerReference. On success *out is
 * a NEW reference. Errors: VC_EINVAL when task_idx or index is out of range, or the job has volumes
 * and opts->volume_names is NULL; VC_EINVALID when the template's spec, containers, a volume entry
 * or its volumeClaimName is malformed or missing (the message names the field); VC_ENOMEM.
 * *out is untouched on failure.
 */
int job_pod_build(const struct vc_job *job, size_t task_idx, int32_t index,
		  const struct job_pod_opts *opts, json_t **out,
		  struct vc_error *err) VC_WARN_UNUSED;

/*
 * The Kubernetes quota usage of one pod whose spec is `spec` (borrowed), as
 * docs/volcano/job-controller.md §2.2.1 lists it (pods, count/pods, cpu/memory/ephemeral-storage
 * with requests.* and limits.*, hugepages-*, extended resources as both requests.<name> and
 * <name>), as a NEW ResourceList object of canonical quantity strings. VC_EINVALID when a quantity
 * does not parse (the message names the container and resource), VC_ENOMEM.
 */
int job_pod_usage(const json_t *spec, json_t **out, struct vc_error *err) VC_WARN_UNUSED;

/*
 * The PodGroup minResources of job (docs/volcano/job-controller.md §2.2.1) as a NEW ResourceList
 * object. weights gives the PriorityClass value of each task's template priorityClassName, one per
 * task in task order (borrowed; NULL means all 0). Errors as job_pod_usage, plus VC_ERANGE when a
 * sum overflows.
 */
int job_min_resources(const struct vc_job *job, const int32_t *weights, json_t **out,
		      struct vc_error *err) VC_WARN_UNUSED;

/*
 * Build the PodGroup `<job>-<uid>` of job (docs/volcano/job-controller.md §2.2): labels and
 * annotations copied from the job, the controller ownerReference, minMember, minTaskMember, queue,
 * priorityClassName, minResources (job_min_resources with weights), networkTopology and
 * subGroupPolicy. *out is a NEW reference on success and untouched on failure. Errors as
 * job_min_resources.
 */
int job_podgroup_build(const struct vc_job *job, const int32_t *weights, json_t **out,
		       struct vc_error *err) VC_WARN_UNUSED;

#endif /* JOB_POD_H */
