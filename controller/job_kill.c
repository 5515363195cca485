/*
 * job_kill.c - KillJob and KillTarget (docs/volcano/job-controller.md §4.2.2): delete the job's
 * pods (all, or those of a task, a pod or a partition), write the status the kill leads to, and
 * for a whole-job kill delete the PodGroup.
 */
#include "job_internal.h"

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

/* ---- KillJob / KillTarget (docs/volcano/job-controller.md §4.2.2) ---------------------------- */

static bool in_retain(enum job_retain retain, enum vc_pod_phase ph)
{
	return retain == JOB_RETAIN_SOFT && (ph == VC_POD_SUCCEEDED || ph == VC_POD_FAILED);
}

static int pick_victims(struct job_run *run, const struct job_target *t, enum job_retain retain,
			struct job_status *cand, struct pod_ops *victims, bool *nothing)
{
	const struct vc_task *task = NULL;
	size_t p;

	*nothing = false;
	if (t && t->partition) {
		task = vc_job_task(&run->job, t->task);
		if (!task || !task->has_partition || !*t->partition) {
			*nothing = true;
			return 0;
		}
	}
	if (!t && run->job.status.retry_count >= run->job.max_retry - 1)
		retain = JOB_RETAIN_SOFT; /* the last retry keeps finished pods */
	for (p = 0; p < run->pods.count; p++) {
		json_t *pod = run->pods.items[p];
		const char *ptask = job_ann(pod, JOB_KEY_TASK_SPEC);

		if (t) {
			if (!vc_str_eq(ptask, t->task))
				continue;
			if (t->partition && !vc_str_eq(json_string_value(json_object_get(
							       vc_json_path(pod, "metadata.labels"),
							       JOB_KEY_PARTITION_ID)),
						       t->partition))
				continue;
			if (!t->partition && t->pod && !vc_str_eq(job_name_of(pod), t->pod))
				continue;
		} else {
			if (job_deleting(pod)) {
				cand->terminating++;
				continue;
			}
			/*
			 * A kept pod still counts, by phase and in taskStatusCount, as Volcano
			 * v1.7's KillJob counts it; HEAD leaves it out
			 * (docs/volcano/job-controller.md §4.4, §8.21; compatibility.md).
			 */
			if (in_retain(retain, job_phase_of(pod)) &&
			    !job_delete_expected(run, pod)) {
				if (job_count_pod(cand, pod))
					return VC_ENOMEM;
				continue;
			}
		}
		if (job_delete_expected(run, pod)) {
			cand->terminating++; /* deleted by an earlier kill */
			continue;
		}
		if (job_pod_ops_add(victims, json_incref(pod), run->pods.count))
			return VC_ENOMEM;
		victims->ops[victims->n - 1].patch = true;
	}
	if (t && t->partition && !victims->n)
		*nothing = true;
	return 0;
}

int job_running_duration(const char *created, const char *last_transition, int64_t transition_ns,
			 char buf[VC_DURATION_STR_MAX])
{
	int64_t a, b;
	int32_t an, bn;

	buf[0] = '\0';
	if (!created || vc_time_parse_rfc3339(created, &b, &bn, NULL))
		return VC_EINVAL;
	if (transition_ns) {
		a = transition_ns / VC_NSEC_PER_SEC;
		an = (int32_t)(transition_ns % VC_NSEC_PER_SEC);
	} else if (!last_transition || vc_time_parse_rfc3339(last_transition, &a, &an, NULL)) {
		return VC_EINVAL;
	}
	return vc_duration_format((a - b) * VC_NSEC_PER_SEC + (an - bn), buf, VC_DURATION_STR_MAX);
}

static int running_duration(struct job_run *run, struct job_status *st, int64_t transition_ns)
{
	char buf[VC_DURATION_STR_MAX];

	if (job_running_duration(
		    run->job.meta.creation_timestamp,
		    json_string_value(json_object_get(st->state, "lastTransitionTime")),
		    transition_ns, buf))
		return 0;
	return job_request_set_str(&st->running_duration, buf);
}

static int delete_podgroup(struct job_run *run, struct vc_error *err)
{
	char *name = job_podgroup_name(&run->job);
	int rc;

	if (!name)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = vc_kube_delete(job_kube(run), &vc_gvr_podgroups, run->job.meta.ns, name, NULL, err);
	vc_free(name);
	if (rc == VC_ENOTFOUND)
		rc = vc_kube_delete(job_kube(run), &vc_gvr_podgroups, run->job.meta.ns,
				    run->job.meta.name, NULL, err);
	return rc == VC_ENOTFOUND ? 0 : rc;
}

/*
 * Write the version a whole-job kill moves to before its first delete. A kill cut short after
 * deleting pods (a failed delete of a plugin's object, or the controller killed) would otherwise
 * leave the job at its old version with its pods gone, and the next sync, by this controller or
 * the next leader, would create them again under the version they had: a second pod for one
 * (task, index, version). Volcano writes the version only with the kill's status, at the end;
 * this costs one status write per kill that deletes pods (docs/compatibility.md). A job already
 * gone is not an error: its pods go with it.
 */
static int write_version_first(struct job_run *run, int32_t version, struct vc_error *err)
{
	json_t *o = json_copy(run->obj), *status = NULL, *out = NULL;
	const json_t *cur = json_object_get(run->obj, "status");
	int rc;

	if (o)
		status = json_is_object(cur) ? json_copy((json_t *)cur) : json_object();
	if (!o || !status || json_object_set_new(status, "version", json_integer(version)) ||
	    json_object_set(o, "status", status)) {
		json_decref(status);
		json_decref(o);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	json_decref(status);
	rc = vc_kube_update(job_kube(run), &vc_gvr_jobs, run->job.meta.ns, run->job.meta.name,
			    "status", o, &out, err);
	json_decref(o);
	if (rc == VC_ENOTFOUND)
		return 0;
	if (rc)
		return rc;
	return out ? job_run_replace(run, out) : 0;
}

int job_kill(struct job_run *run, const struct job_target *t, enum job_retain retain,
	     enum job_status_fn fn)
{
	struct pod_ops victims = { run, NULL, 0 };
	struct job_status st = { 0 };
	struct vc_error err;
	char now[VC_TIME_STR_MAX], *msg = NULL;
	int64_t now_ns = 0;
	bool nothing;
	size_t i;
	int rc;

	vc_error_clear(&err);
	if (run->job.meta.deletion_timestamp)
		return 0;
	if ((rc = job_status_from_json(json_object_get(run->obj, "status"), &st)))
		return rc;
	st.pending = st.running = st.succeeded = st.failed = st.terminating = st.unknown = 0;
	json_decref(st.task_status_count);
	st.task_status_count = NULL;
	if (!t)
		st.version++;
	if ((rc = pick_victims(run, t, retain, &st, &victims, &nothing)))
		goto out;
	if (nothing)
		goto out;
	if (!t && victims.n && (rc = write_version_first(run, st.version, &err)))
		goto out;
	job_expect_deletes(run, &victims);
	job_pool_run(run->c->pool, victims.n, job_pod_ops_delete, &victims);
	job_deletes_done(run, &victims);
	for (i = 0; i < victims.n; i++) {
		struct pod_op *op = &victims.ops[i];

		if (!op->rc) {
			st.terminating++;
		} else if (!op->patch_failed) {
			if ((rc = job_count_pod(&st, op->pod)))
				goto out;
		}
	}
	if ((msg = job_pod_ops_errors(&victims))) {
		job_event(run->c, &run->job, "Warning", "FailedDelete", "Error deleting pods: %s",
			  msg);
		rc = vc_error_set(&err, VC_EIO, "failed to kill %zu pods of %zu",
				  job_pod_ops_failed(&victims), victims.n);
		goto out;
	}
	if (job_status_fn_apply(fn, &run->job, &st, &rc)) {
		now_ns = job_now_str(now);
		if ((rc = job_status_add_condition(&st, now)))
			goto out;
	}
	if (rc || (rc = running_duration(run, &st, now_ns)))
		goto out;
	if ((rc = job_plugin_hook(run, &st, 2, &err)))
		goto out;
	if ((rc = job_write_status(run, &st, true, &err)))
		goto out;
	if (!t)
		rc = delete_podgroup(run, &err);
out:
	if (rc)
		VC_LOG(VC_LOG_V(2), "kill failed", "job=%s err=%d text=\"%s\"", run->key, rc,
		       err.text);
	vc_free(msg);
	job_pod_ops_release(&victims);
	job_status_release(&st);
	return rc;
}
