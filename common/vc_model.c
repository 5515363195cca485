#include "vc_model.h"

#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_str.h"
#include "vc_time.h"

/* More tasks than this in one Job is surely malformed input, not a workload. */
#define MODEL_MAX_TASKS 4096
/* Likewise for policies in one list. */
#define MODEL_MAX_POLICIES 1024

/* ---- enumerations ------------------------------------------------------------------------- */

static const char *const job_phase_names[] = {
	[VC_JOB_PHASE_NONE] = "",
	[VC_JOB_PENDING] = "Pending",
	[VC_JOB_ABORTING] = "Aborting",
	[VC_JOB_ABORTED] = "Aborted",
	[VC_JOB_RUNNING] = "Running",
	[VC_JOB_RESTARTING] = "Restarting",
	[VC_JOB_COMPLETING] = "Completing",
	[VC_JOB_COMPLETED] = "Completed",
	[VC_JOB_TERMINATING] = "Terminating",
	[VC_JOB_TERMINATED] = "Terminated",
	[VC_JOB_FAILED] = "Failed",
};

static const char *const event_names[] = {
	[VC_EVENT_ANY] = "*",
	[VC_EVENT_POD_PENDING] = "PodPending",
	[VC_EVENT_POD_RUNNING] = "PodRunning",
	[VC_EVENT_POD_FAILED] = "PodFailed",
	[VC_EVENT_POD_EVICTED] = "PodEvicted",
	[VC_EVENT_JOB_UNKNOWN] = "Unknown",
	[VC_EVENT_TASK_COMPLETED] = "TaskCompleted",
	[VC_EVENT_TASK_FAILED] = "TaskFailed",
	[VC_EVENT_OUT_OF_SYNC] = "OutOfSync",
	[VC_EVENT_COMMAND_ISSUED] = "CommandIssued",
	[VC_EVENT_JOB_UPDATED] = "JobUpdated",
};

static const char *const job_plugin_names[] = {
	[VC_JOB_PLUGIN_ENV] = "env",	     [VC_JOB_PLUGIN_SVC] = "svc",
	[VC_JOB_PLUGIN_SSH] = "ssh",	     [VC_JOB_PLUGIN_TENSORFLOW] = "tensorflow",
	[VC_JOB_PLUGIN_PYTORCH] = "pytorch", [VC_JOB_PLUGIN_MPI] = "mpi",
	[VC_JOB_PLUGIN_RAY] = "ray",	     [VC_JOB_PLUGIN_HCCLRANK] = "hcclrank",
};

_Static_assert(VC_ARRAY_SIZE(job_plugin_names) == VC_JOB_PLUGIN_COUNT,
	       "a job plugin without a name");

static const char *const action_names[] = {
	[VC_ACTION_ABORT_JOB] = "AbortJob",
	[VC_ACTION_RESTART_JOB] = "RestartJob",
	[VC_ACTION_RESTART_TASK] = "RestartTask",
	[VC_ACTION_RESTART_POD] = "RestartPod",
	[VC_ACTION_RESTART_PARTITION] = "RestartPartition",
	[VC_ACTION_TERMINATE_JOB] = "TerminateJob",
	[VC_ACTION_COMPLETE_JOB] = "CompleteJob",
	[VC_ACTION_RESUME_JOB] = "ResumeJob",
	[VC_ACTION_SYNC_JOB] = "SyncJob",
	[VC_ACTION_ENQUEUE_JOB] = "EnqueueJob",
	[VC_ACTION_SYNC_QUEUE] = "SyncQueue",
	[VC_ACTION_OPEN_QUEUE] = "OpenQueue",
	[VC_ACTION_CLOSE_QUEUE] = "CloseQueue",
};

static const char *const pg_phase_names[] = {
	[VC_PG_PHASE_NONE] = "",     [VC_PG_PENDING] = "Pending", [VC_PG_RUNNING] = "Running",
	[VC_PG_UNKNOWN] = "Unknown", [VC_PG_INQUEUE] = "Inqueue", [VC_PG_COMPLETED] = "Completed",
};

static const char *const queue_state_names[] = {
	[VC_QUEUE_OPEN] = "Open",
	[VC_QUEUE_CLOSED] = "Closed",
	[VC_QUEUE_CLOSING] = "Closing",
	[VC_QUEUE_STATE_UNKNOWN] = "Unknown",
};

static const char *const pod_phase_names[] = {
	[VC_POD_PENDING] = "Pending",	    [VC_POD_RUNNING] = "Running",
	[VC_POD_SUCCEEDED] = "Succeeded",   [VC_POD_FAILED] = "Failed",
	[VC_POD_PHASE_UNKNOWN] = "Unknown",
};

/* Index of s in names[0..n), or -1. NULL matches "" when "" is in the table. */
static int name_index(const char *const *names, size_t n, const char *s)
{
	size_t i;

	if (!s)
		s = "";
	for (i = 0; i < n; i++) {
		if (names[i] && !strcmp(names[i], s))
			return (int)i;
	}
	return -1;
}

static const char *name_at(const char *const *names, size_t n, int i)
{
	if (i < 0 || (size_t)i >= n || !names[i])
		return "";
	return names[i];
}

const char *vc_job_phase_name(enum vc_job_phase p)
{
	return name_at(job_phase_names, VC_ARRAY_SIZE(job_phase_names), (int)p);
}

const char *vc_bus_event_name(enum vc_bus_event e)
{
	return name_at(event_names, VC_ARRAY_SIZE(event_names), (int)e);
}

const char *vc_bus_action_name(enum vc_bus_action a)
{
	return name_at(action_names, VC_ARRAY_SIZE(action_names), (int)a);
}

const char *vc_pg_phase_name(enum vc_pg_phase p)
{
	return name_at(pg_phase_names, VC_ARRAY_SIZE(pg_phase_names), (int)p);
}

const char *vc_queue_state_name(enum vc_queue_state s)
{
	return name_at(queue_state_names, VC_ARRAY_SIZE(queue_state_names), (int)s);
}

const char *vc_pod_phase_name(enum vc_pod_phase p)
{
	return name_at(pod_phase_names, VC_ARRAY_SIZE(pod_phase_names), (int)p);
}

const char *vc_job_plugin_name(enum vc_job_plugin p)
{
	return name_at(job_plugin_names, VC_ARRAY_SIZE(job_plugin_names), (int)p);
}

enum vc_job_plugin vc_job_plugin_parse(const char *s)
{
	int i = name_index(job_plugin_names, VC_ARRAY_SIZE(job_plugin_names), s);

	return i < 0 ? VC_JOB_PLUGIN_INVALID : (enum vc_job_plugin)i;
}

enum vc_job_phase vc_job_phase_parse(const char *s)
{
	int i = name_index(job_phase_names, VC_ARRAY_SIZE(job_phase_names), s);

	return i < 0 ? VC_JOB_PHASE_UNKNOWN : (enum vc_job_phase)i;
}

enum vc_bus_event vc_bus_event_parse(const char *s)
{
	int i = s ? name_index(event_names, VC_ARRAY_SIZE(event_names), s) : -1;

	return i < 0 ? VC_EVENT_INVALID : (enum vc_bus_event)i;
}

enum vc_bus_action vc_bus_action_parse(const char *s)
{
	int i = s ? name_index(action_names, VC_ARRAY_SIZE(action_names), s) : -1;

	return i < 0 ? VC_ACTION_INVALID : (enum vc_bus_action)i;
}

enum vc_pg_phase vc_pg_phase_parse(const char *s)
{
	int i = name_index(pg_phase_names, VC_ARRAY_SIZE(pg_phase_names), s);

	return i < 0 ? VC_PG_PHASE_OTHER : (enum vc_pg_phase)i;
}

enum vc_queue_state vc_queue_state_parse(const char *s)
{
	int i;

	if (!s || !*s)
		return VC_QUEUE_OPEN;
	i = name_index(queue_state_names, VC_ARRAY_SIZE(queue_state_names), s);
	return i < 0 ? VC_QUEUE_STATE_UNKNOWN : (enum vc_queue_state)i;
}

enum vc_pod_phase vc_pod_phase_parse(const char *s)
{
	int i;

	if (!s || !*s)
		return VC_POD_PENDING;
	i = name_index(pod_phase_names, VC_ARRAY_SIZE(pod_phase_names), s);
	return i < 0 ? VC_POD_PHASE_UNKNOWN : (enum vc_pod_phase)i;
}

bool vc_job_phase_is_finished(enum vc_job_phase p)
{
	return p == VC_JOB_COMPLETED || p == VC_JOB_FAILED || p == VC_JOB_TERMINATED;
}

bool vc_bus_action_is_external(enum vc_bus_action a)
{
	switch (a) {
	case VC_ACTION_ABORT_JOB:
	case VC_ACTION_RESTART_JOB:
	case VC_ACTION_RESTART_TASK:
	case VC_ACTION_RESTART_POD:
	case VC_ACTION_RESTART_PARTITION:
	case VC_ACTION_TERMINATE_JOB:
	case VC_ACTION_COMPLETE_JOB:
	case VC_ACTION_RESUME_JOB:
		return true;
	default:
		return false;
	}
}

bool vc_bus_event_is_user(enum vc_bus_event e)
{
	switch (e) {
	case VC_EVENT_ANY:
	case VC_EVENT_POD_PENDING:
	case VC_EVENT_POD_FAILED:
	case VC_EVENT_POD_EVICTED:
	case VC_EVENT_JOB_UNKNOWN:
	case VC_EVENT_TASK_COMPLETED:
	case VC_EVENT_TASK_FAILED:
	case VC_EVENT_JOB_UPDATED:
		return true;
	default:
		return false;
	}
}

/* ---- field readers ------------------------------------------------------------------------ */

static const char *str_or(const json_t *obj, const char *key, const char *def)
{
	const char *s = vc_json_get_str(obj, key);

	return s ? s : def;
}

/* A non-empty string, or def. */
static const char *nonempty_or(const json_t *obj, const char *key, const char *def)
{
	const char *s = vc_json_get_str(obj, key);

	return s && *s ? s : def;
}

/*
 * Read an optional int32 member. Absent or null: *present = false, *out = def. Present but not
 * an integer in range: VC_EINVALID naming path.key.
 */
static int read_int32(const json_t *obj, const char *key, int32_t def, bool *present, int32_t *out,
		      const char *path, struct vc_error *err)
{
	json_t *v = obj ? json_object_get(obj, key) : NULL;
	double d;

	if (present)
		*present = false;
	*out = def;
	if (!v || json_is_null(v))
		return 0;
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);

		if (i < INT32_MIN || i > INT32_MAX)
			return vc_error_set(err, VC_EINVALID,
					    "%s.%s: value %" JSON_INTEGER_FORMAT
					    " is out of range for int32",
					    path, key, i);
		*out = (int32_t)i;
	} else if (json_is_real(v) && (d = json_real_value(v)) >= INT32_MIN && d <= INT32_MAX &&
		   d == (double)(int32_t)d) {
		*out = (int32_t)d;
	} else {
		return vc_error_set(err, VC_EINVALID, "%s.%s: must be an integer", path, key);
	}
	if (present)
		*present = true;
	return 0;
}

void vc_meta_read(const json_t *obj, struct vc_meta *m)
{
	const json_t *md = vc_json_get_obj(obj, "metadata");

	m->ns = str_or(md, "namespace", "");
	m->name = str_or(md, "name", "");
	m->uid = str_or(md, "uid", "");
	m->resource_version = str_or(md, "resourceVersion", "");
	m->generation = vc_json_get_int(md, "generation", 0);
	m->creation_timestamp = vc_json_get_str(md, "creationTimestamp");
	m->deletion_timestamp = vc_json_get_str(md, "deletionTimestamp");
	m->labels = vc_json_get_obj(md, "labels");
	m->annotations = vc_json_get_obj(md, "annotations");
	m->owner_references = vc_json_get_arr(md, "ownerReferences");
}

const char *vc_meta_label(const struct vc_meta *m, const char *key)
{
	return vc_json_get_str(m->labels, key);
}

const char *vc_meta_annotation(const struct vc_meta *m, const char *key)
{
	return vc_json_get_str(m->annotations, key);
}

/* Read a ResourceList member into r; *present tells whether the member was there. */
static int read_resources(const json_t *obj, const char *key, bool *present, struct vc_resource *r,
			  const char *path, struct vc_error *err)
{
	json_t *list = obj ? json_object_get(obj, key) : NULL;
	int rc;

	if (present)
		*present = false;
	if (!list || json_is_null(list))
		return 0;
	if (!json_is_object(list))
		return vc_error_set(err, VC_EINVALID, "%s.%s: must be an object", path, key);
	rc = vc_resource_from_list(r, list, err);
	if (rc == VC_ENOMEM)
		return rc;
	if (rc) {
		vc_error_prefix(err, "%s.%s", path, key);
		return VC_EINVALID;
	}
	if (present)
		*present = true;
	return 0;
}

/* ---- policies ----------------------------------------------------------------------------- */

static void policy_add_event(struct vc_policy *p, enum vc_bus_event e)
{
	size_t i;

	for (i = 0; i < p->nevents; i++) {
		if (p->events[i] == e)
			return;
	}
	if (p->nevents < VC_ARRAY_SIZE(p->events))
		p->events[p->nevents++] = e;
}

static int event_from_json(const json_t *v, enum vc_bus_event *e, const char *path,
			   struct vc_error *err)
{
	if (!json_is_string(v))
		return vc_error_set(err, VC_EINVALID, "%s: must be a string", path);
	*e = vc_bus_event_parse(json_string_value(v));
	if (*e == VC_EVENT_INVALID)
		return vc_error_set(err, VC_EINVALID, "%s: unknown event \"%s\"", path,
				    json_string_value(v));
	return 0;
}

static int policy_read(const json_t *pj, struct vc_policy *p, const char *path,
		       struct vc_error *err)
{
	const char *timeout;
	char sub[160];
	json_t *events, *v;
	enum vc_bus_event e;
	size_t i;
	int rc;

	memset(p, 0, sizeof(*p));
	if (!json_is_object(pj))
		return vc_error_set(err, VC_EINVALID, "%s: must be an object", path);
	p->action_str = vc_json_get_str(pj, "action");
	p->action = vc_bus_action_parse(p->action_str);
	v = json_object_get(pj, "event");
	if (v && !json_is_null(v) && !(json_is_string(v) && !*json_string_value(v))) {
		snprintf(sub, sizeof(sub), "%s.event", path);
		rc = event_from_json(v, &e, sub, err);
		if (rc)
			return rc;
		policy_add_event(p, e);
	}
	events = json_object_get(pj, "events");
	if (events && !json_is_null(events)) {
		if (!json_is_array(events))
			return vc_error_set(err, VC_EINVALID, "%s.events: must be an array", path);
		json_array_foreach (events, i, v) {
			snprintf(sub, sizeof(sub), "%s.events[%zu]", path, i);
			rc = event_from_json(v, &e, sub, err);
			if (rc)
				return rc;
			policy_add_event(p, e);
		}
	}
	rc = read_int32(pj, "exitCode", 0, &p->has_exit_code, &p->exit_code, path, err);
	if (rc)
		return rc;
	timeout = vc_json_get_str(pj, "timeout");
	if (timeout) {
		struct vc_error derr;

		vc_error_clear(&derr);
		if (vc_duration_parse(timeout, &p->timeout_ns, &derr))
			return vc_error_set(err, VC_EINVALID, "%s.timeout: %s", path, derr.text);
		/* Go's AddAfter takes a negative delay as none: the action is due at once. */
		if (p->timeout_ns < 0)
			p->timeout_ns = 0;
		p->has_timeout = true;
	} else if (json_object_get(pj, "timeout") &&
		   !json_is_null(json_object_get(pj, "timeout"))) {
		return vc_error_set(err, VC_EINVALID, "%s.timeout: must be a duration string",
				    path);
	}
	return 0;
}

static int policies_read(const json_t *arr, struct vc_policies *out, const char *path,
			 struct vc_error *err)
{
	char sub[128];
	size_t i;
	int rc;

	out->items = NULL;
	out->count = 0;
	if (!arr || json_is_null(arr))
		return 0;
	if (!json_is_array(arr))
		return vc_error_set(err, VC_EINVALID, "%s: must be an array", path);
	if (json_array_size(arr) > MODEL_MAX_POLICIES)
		return vc_error_set(err, VC_EINVALID, "%s: more than %d policies", path,
				    MODEL_MAX_POLICIES);
	if (!json_array_size(arr))
		return 0;
	out->items = vc_calloc(json_array_size(arr), sizeof(*out->items));
	if (!out->items)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	for (i = 0; i < json_array_size(arr); i++) {
		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		rc = policy_read(json_array_get(arr, i), &out->items[i], sub, err);
		if (rc) {
			vc_free(out->items);
			out->items = NULL;
			return rc;
		}
	}
	out->count = json_array_size(arr);
	return 0;
}

/* ---- Job ---------------------------------------------------------------------------------- */

static void task_release(struct vc_task *t)
{
	vc_free(t->policies.items);
	vc_free(t->depends_on);
}

static int task_read(const json_t *tj, size_t index, struct vc_task *t, struct vc_error *err)
{
	const json_t *deps, *partition, *names, *v;
	char path[64];
	size_t i;
	int rc;

	memset(t, 0, sizeof(*t));
	snprintf(path, sizeof(path), "spec.tasks[%zu]", index);
	if (!json_is_object(tj))
		return vc_error_set(err, VC_EINVALID, "%s: must be an object", path);

	t->name = vc_json_get_str(tj, "name");
	if (!t->name || !*t->name) {
		snprintf(t->name_buf, sizeof(t->name_buf), "default%zu", index);
		t->name = t->name_buf;
		t->name_defaulted = true;
	}
	rc = read_int32(tj, "replicas", 0, NULL, &t->replicas, path, err);
	if (!rc)
		rc = read_int32(tj, "minAvailable", t->replicas, &t->has_min_available,
				&t->min_available, path, err);
	if (!rc)
		rc = read_int32(tj, "maxRetry", 0, NULL, &t->max_retry, path, err);
	if (rc)
		return rc;
	if (t->max_retry == 0)
		t->max_retry = 3;
	t->template = vc_json_get_obj(tj, "template");
	t->topology_policy = str_or(tj, "topologyPolicy", "");

	partition = vc_json_get_obj(tj, "partitionPolicy");
	if (partition) {
		t->has_partition = true;
		rc = read_int32(partition, "totalPartitions", 0, NULL, &t->total_partitions, path,
				err);
		if (!rc)
			rc = read_int32(partition, "partitionSize", 0, NULL, &t->partition_size,
					path, err);
		if (!rc)
			rc = read_int32(partition, "minPartitions", 0, NULL, &t->min_partitions,
					path, err);
		if (rc)
			return rc;
		/* The webhook derives minAvailable from the partitions when it is unset. */
		if (!t->has_min_available) {
			int64_t m = t->min_partitions > 0
					    ? (int64_t)t->min_partitions * t->partition_size
					    : t->replicas;

			t->min_available = m > INT32_MAX ? INT32_MAX : (int32_t)m;
		}
	}

	deps = vc_json_get_obj(tj, "dependsOn");
	if (deps) {
		names = vc_json_get_arr(deps, "name");
		if (names && json_array_size(names)) {
			t->depends_on = vc_calloc(json_array_size(names), sizeof(*t->depends_on));
			if (!t->depends_on)
				return vc_error_set(err, VC_ENOMEM, "out of memory");
			json_array_foreach (names, i, v) {
				if (!json_is_string(v))
					return vc_error_set(
						err, VC_EINVALID,
						"%s.dependsOn.name[%zu]: must be a string", path,
						i);
				t->depends_on[t->ndepends_on++] = json_string_value(v);
			}
		}
		if (vc_str_eq(vc_json_get_str(deps, "iteration"), "all"))
			t->depends_iteration = VC_DEPENDS_ALL;
	}

	snprintf(path + strlen(path), sizeof(path) - strlen(path), ".policies");
	return policies_read(json_object_get(tj, "policies"), &t->policies, path, err);
}

static int job_status_read(const json_t *st, struct vc_job_status *s, struct vc_error *err)
{
	const json_t *state = vc_json_get_obj(st, "state");
	static const struct {
		const char *key;
		size_t offset;
	} counters[] = {
		{ "minAvailable", offsetof(struct vc_job_status, min_available) },
		{ "pending", offsetof(struct vc_job_status, pending) },
		{ "running", offsetof(struct vc_job_status, running) },
		{ "succeeded", offsetof(struct vc_job_status, succeeded) },
		{ "failed", offsetof(struct vc_job_status, failed) },
		{ "terminating", offsetof(struct vc_job_status, terminating) },
		{ "unknown", offsetof(struct vc_job_status, unknown) },
		{ "version", offsetof(struct vc_job_status, version) },
		{ "retryCount", offsetof(struct vc_job_status, retry_count) },
	};
	size_t i;
	int rc;

	memset(s, 0, sizeof(*s));
	s->phase_str = str_or(state, "phase", "");
	s->phase = vc_job_phase_parse(s->phase_str);
	for (i = 0; i < VC_ARRAY_SIZE(counters); i++) {
		int32_t v;

		rc = read_int32(st, counters[i].key, 0, NULL, &v, "status", err);
		if (rc)
			return rc;
		memcpy((char *)s + counters[i].offset, &v, sizeof(v));
	}
	s->task_status_count = vc_json_get_obj(st, "taskStatusCount");
	s->controlled_resources = vc_json_get_obj(st, "controlledResources");
	s->conditions = vc_json_get_arr(st, "conditions");
	return 0;
}

void vc_job_view_release(struct vc_job *job)
{
	size_t i;

	if (!job)
		return;
	for (i = 0; i < job->ntasks; i++)
		task_release(&job->tasks[i]);
	vc_free(job->tasks);
	vc_free(job->policies.items);
	json_decref(job->obj);
	memset(job, 0, sizeof(*job));
}

int vc_job_view(const json_t *obj, struct vc_job *job, struct vc_error *err)
{
	const json_t *spec, *tasks;
	int64_t total = 0, min_sum = 0;
	bool has;
	size_t i;
	int rc;

	memset(job, 0, sizeof(*job));
	if (!json_is_object(obj))
		return vc_error_set(err, VC_EINVALID, "job: must be an object");
	job->obj = json_incref((json_t *)obj);
	vc_meta_read(obj, &job->meta);
	spec = vc_json_get_obj(obj, "spec");

	job->scheduler_name = nonempty_or(spec, "schedulerName", "volcano");
	job->queue = nonempty_or(spec, "queue", "default");
	job->priority_class_name = str_or(spec, "priorityClassName", "");
	job->plugins = vc_json_get_obj(spec, "plugins");
	job->volumes = vc_json_get_arr(spec, "volumes");
	job->network_topology = vc_json_get_obj(spec, "networkTopology");
	rc = read_int32(spec, "maxRetry", 3, NULL, &job->max_retry, "spec", err);
	if (!rc)
		rc = read_int32(spec, "ttlSecondsAfterFinished", 0, &job->has_ttl,
				&job->ttl_seconds_after_finished, "spec", err);
	if (!rc)
		rc = read_int32(spec, "minSuccess", 0, &job->has_min_success, &job->min_success,
				"spec", err);
	if (!rc)
		rc = read_int32(spec, "minAvailable", 0, &has, &job->min_available, "spec", err);
	if (rc)
		goto fail;
	if (job->max_retry == 0)
		job->max_retry = 3;

	tasks = json_object_get(spec, "tasks");
	if (tasks && !json_is_null(tasks) && !json_is_array(tasks)) {
		rc = vc_error_set(err, VC_EINVALID, "spec.tasks: must be an array");
		goto fail;
	}
	if (json_array_size(tasks) > MODEL_MAX_TASKS) {
		rc = vc_error_set(err, VC_EINVALID, "spec.tasks: more than %d tasks",
				  MODEL_MAX_TASKS);
		goto fail;
	}
	if (json_array_size(tasks)) {
		job->tasks = vc_calloc(json_array_size(tasks), sizeof(*job->tasks));
		if (!job->tasks) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto fail;
		}
	}
	for (i = 0; i < json_array_size(tasks); i++) {
		rc = task_read(json_array_get(tasks, i), i, &job->tasks[i], err);
		job->ntasks = i + 1;
		if (rc)
			goto fail;
		total += job->tasks[i].replicas;
		min_sum += job->tasks[i].min_available;
	}
	job->total_replicas = total > INT32_MAX ? INT32_MAX : (int32_t)total;
	if (job->min_available == 0) {
		job->min_available = min_sum > INT32_MAX ? INT32_MAX : (int32_t)min_sum;
		job->min_available_defaulted = true;
	}

	rc = policies_read(json_object_get(spec, "policies"), &job->policies, "spec.policies", err);
	if (rc)
		goto fail;
	rc = job_status_read(vc_json_get_obj(obj, "status"), &job->status, err);
	if (rc)
		goto fail;
	return 0;
fail:
	vc_job_view_release(job);
	return rc;
}

const struct vc_task *vc_job_task(const struct vc_job *job, const char *name)
{
	size_t i;

	for (i = 0; i < job->ntasks; i++) {
		if (!strcmp(job->tasks[i].name, name))
			return &job->tasks[i];
	}
	return NULL;
}

/* ---- Command ------------------------------------------------------------------------------ */

int vc_command_view(const json_t *obj, struct vc_command *cmd, struct vc_error *err)
{
	const json_t *target;

	memset(cmd, 0, sizeof(*cmd));
	if (!json_is_object(obj))
		return vc_error_set(err, VC_EINVALID, "command: must be an object");
	cmd->obj = json_incref((json_t *)obj);
	vc_meta_read(obj, &cmd->meta);
	cmd->action_str = vc_json_get_str(obj, "action");
	cmd->action = vc_bus_action_parse(cmd->action_str);
	target = vc_json_get_obj(obj, "target");
	cmd->target_api_version = str_or(target, "apiVersion", "");
	cmd->target_kind = str_or(target, "kind", "");
	cmd->target_name = str_or(target, "name", "");
	cmd->target_uid = str_or(target, "uid", "");
	cmd->reason = str_or(obj, "reason", "");
	cmd->message = str_or(obj, "message", "");
	return 0;
}

void vc_command_view_release(struct vc_command *cmd)
{
	if (!cmd)
		return;
	json_decref(cmd->obj);
	memset(cmd, 0, sizeof(*cmd));
}

bool vc_command_targets_job(const struct vc_command *cmd)
{
	return !strcmp(cmd->target_api_version, "batch.volcano.sh/v1alpha1") &&
	       !strcmp(cmd->target_kind, "Job") && *cmd->target_name;
}

/* ---- PodGroup ----------------------------------------------------------------------------- */

void vc_podgroup_view_release(struct vc_podgroup *pg)
{
	if (!pg)
		return;
	vc_resource_release(&pg->min_resources);
	json_decref(pg->obj);
	memset(pg, 0, sizeof(*pg));
}

int vc_podgroup_view(const json_t *obj, struct vc_podgroup *pg, struct vc_error *err)
{
	const json_t *spec, *st;
	int rc;

	memset(pg, 0, sizeof(*pg));
	vc_resource_init(&pg->min_resources);
	if (!json_is_object(obj))
		return vc_error_set(err, VC_EINVALID, "podgroup: must be an object");
	pg->obj = json_incref((json_t *)obj);
	vc_meta_read(obj, &pg->meta);
	spec = vc_json_get_obj(obj, "spec");
	st = vc_json_get_obj(obj, "status");
	pg->queue = nonempty_or(spec, "queue", "default");
	pg->priority_class_name = str_or(spec, "priorityClassName", "");
	pg->min_task_member = vc_json_get_obj(spec, "minTaskMember");
	pg->phase_str = str_or(st, "phase", "");
	pg->phase = vc_pg_phase_parse(pg->phase_str);
	pg->conditions = vc_json_get_arr(st, "conditions");
	rc = read_int32(spec, "minMember", 0, NULL, &pg->min_member, "spec", err);
	if (!rc)
		rc = read_resources(spec, "minResources", &pg->has_min_resources,
				    &pg->min_resources, "spec", err);
	if (!rc)
		rc = read_int32(st, "running", 0, NULL, &pg->running, "status", err);
	if (!rc)
		rc = read_int32(st, "succeeded", 0, NULL, &pg->succeeded, "status", err);
	if (!rc)
		rc = read_int32(st, "failed", 0, NULL, &pg->failed, "status", err);
	if (rc)
		vc_podgroup_view_release(pg);
	return rc;
}

int32_t vc_podgroup_min_task_member(const struct vc_podgroup *pg, const char *role)
{
	json_t *v = pg->min_task_member ? json_object_get(pg->min_task_member, role) : NULL;

	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > INT32_MAX)
		return -1;
	return (int32_t)json_integer_value(v);
}

/* ---- Queue -------------------------------------------------------------------------------- */

void vc_queue_view_release(struct vc_queue *q)
{
	if (!q)
		return;
	vc_resource_release(&q->capability);
	vc_resource_release(&q->guarantee);
	vc_resource_release(&q->deserved);
	json_decref(q->obj);
	memset(q, 0, sizeof(*q));
}

int vc_queue_view(const json_t *obj, struct vc_queue *q, struct vc_error *err)
{
	const json_t *spec, *st;
	json_t *reclaimable;
	int rc;

	memset(q, 0, sizeof(*q));
	vc_resource_init(&q->capability);
	vc_resource_init(&q->guarantee);
	vc_resource_init(&q->deserved);
	if (!json_is_object(obj))
		return vc_error_set(err, VC_EINVALID, "queue: must be an object");
	q->obj = json_incref((json_t *)obj);
	vc_meta_read(obj, &q->meta);
	spec = vc_json_get_obj(obj, "spec");
	st = vc_json_get_obj(obj, "status");
	reclaimable = spec ? json_object_get(spec, "reclaimable") : NULL;
	q->reclaimable = json_is_boolean(reclaimable) ? json_is_true(reclaimable) : true;
	q->parent = str_or(spec, "parent", "");
	q->state_str = str_or(st, "state", "");
	q->state = vc_queue_state_parse(q->state_str);
	rc = read_int32(spec, "weight", 1, NULL, &q->weight, "spec", err);
	if (!rc && q->weight == 0)
		q->weight = 1;
	if (!rc)
		rc = read_int32(spec, "priority", 0, NULL, &q->priority, "spec", err);
	if (!rc)
		rc = read_resources(spec, "capability", &q->has_capability, &q->capability, "spec",
				    err);
	if (!rc)
		rc = read_resources(vc_json_get_obj(spec, "guarantee"), "resource",
				    &q->has_guarantee, &q->guarantee, "spec.guarantee", err);
	if (!rc)
		rc = read_resources(spec, "deserved", &q->has_deserved, &q->deserved, "spec", err);
	if (!rc)
		rc = read_int32(st, "pending", 0, NULL, &q->pending, "status", err);
	if (!rc)
		rc = read_int32(st, "running", 0, NULL, &q->running, "status", err);
	if (!rc)
		rc = read_int32(st, "inqueue", 0, NULL, &q->inqueue, "status", err);
	if (!rc)
		rc = read_int32(st, "completed", 0, NULL, &q->completed, "status", err);
	if (!rc)
		rc = read_int32(st, "unknown", 0, NULL, &q->unknown, "status", err);
	if (rc)
		vc_queue_view_release(q);
	return rc;
}

/* ---- Pod ---------------------------------------------------------------------------------- */

/* Add the requests of each container in arr to sum; with `each`, call back per container. */
static int container_request(const json_t *c, struct vc_resource *out, const char *path, size_t i,
			     struct vc_error *err)
{
	const json_t *req = vc_json_get_obj(vc_json_get_obj(c, "resources"), "requests");
	int rc;

	vc_resource_clear(out);
	if (!req)
		return 0;
	rc = vc_resource_from_list(out, req, err);
	if (rc && rc != VC_ENOMEM)
		vc_error_prefix(err, "%s[%zu] (%s)", path, i, str_or(c, "name", ""));
	return rc;
}

/*
 * Pod-level resources (spec.resources, KEP-2837; component-helpers' PodRequests): the pod's own
 * request of cpu, memory or a hugepages-<size> replaces the containers' aggregate in sum for
 * that resource; other names are not pod-level resources and are left alone. tmp is scratch.
 */
static int pod_level_request(const json_t *spec, struct vc_resource *sum, struct vc_resource *tmp,
			     struct vc_error *err)
{
	const json_t *reqs = vc_json_get_obj(vc_json_get_obj(spec, "resources"), "requests");
	const char *name;
	json_t *v;
	int rc;

	if (!reqs)
		return 0;
	vc_resource_clear(tmp);
	rc = vc_resource_from_list(tmp, reqs, err);
	if (rc) {
		if (rc != VC_ENOMEM)
			vc_error_prefix(err, "resources");
		return rc;
	}
	json_object_foreach ((json_t *)reqs, name, v) {
		if (strcmp(name, "cpu") == 0)
			sum->milli_cpu = tmp->milli_cpu;
		else if (strcmp(name, "memory") == 0)
			sum->memory = tmp->memory;
		else if (vc_resource_is_hugepages(name) &&
			 (rc = vc_resource_set_scalar(sum, name, vc_resource_get(tmp, name))))
			return rc;
	}
	return 0;
}

int vc_pod_spec_request(const json_t *spec, struct vc_resource *req, struct vc_error *err)
{
	struct vc_resource sum, sidecars, init_max, one, tmp;
	const json_t *arr, *c, *overhead;
	size_t i;
	int rc = 0;

	vc_resource_init(&sum);
	vc_resource_init(&sidecars);
	vc_resource_init(&init_max);
	vc_resource_init(&one);
	vc_resource_init(&tmp);

	arr = vc_json_get_arr(spec, "containers");
	json_array_foreach (arr, i, c) {
		rc = container_request(c, &one, "containers", i, err);
		if (!rc)
			rc = vc_resource_add(&sum, &one);
		if (rc)
			goto out;
	}

	/*
	 * Init containers run one at a time before the regular ones, except restartable ones
	 * (sidecars), which keep running: an init container needs its own request plus the
	 * sidecars started before it, and the sidecars stay for the pod's life.
	 */
	arr = vc_json_get_arr(spec, "initContainers");
	json_array_foreach (arr, i, c) {
		rc = container_request(c, &one, "initContainers", i, err);
		if (rc)
			goto out;
		if (vc_str_eq(vc_json_get_str(c, "restartPolicy"), "Always")) {
			rc = vc_resource_add(&sidecars, &one);
			if (!rc)
				rc = vc_resource_set_max(&init_max, &sidecars);
		} else {
			rc = vc_resource_copy(&tmp, &one);
			if (!rc)
				rc = vc_resource_add(&tmp, &sidecars);
			if (!rc)
				rc = vc_resource_set_max(&init_max, &tmp);
		}
		if (rc)
			goto out;
	}
	rc = vc_resource_add(&sum, &sidecars);
	if (!rc)
		rc = vc_resource_set_max(&sum, &init_max);
	if (!rc)
		rc = pod_level_request(spec, &sum, &one, err);
	if (rc)
		goto out;

	overhead = vc_json_get_obj(spec, "overhead");
	if (overhead) {
		rc = vc_resource_add_list(&sum, overhead, err);
		if (rc) {
			if (rc != VC_ENOMEM)
				vc_error_prefix(err, "overhead");
			goto out;
		}
	}
	vc_resource_release(req);
	*req = sum;
	vc_resource_init(&sum);
out:
	if (rc == VC_ENOMEM)
		vc_error_set(err, VC_ENOMEM, "out of memory");
	else if (rc)
		rc = VC_EINVALID;
	vc_resource_release(&sum);
	vc_resource_release(&sidecars);
	vc_resource_release(&init_max);
	vc_resource_release(&one);
	vc_resource_release(&tmp);
	return rc;
}

void vc_pod_view_release(struct vc_pod *pod)
{
	if (!pod)
		return;
	vc_resource_release(&pod->request);
	json_decref(pod->obj);
	memset(pod, 0, sizeof(*pod));
}

int vc_pod_view(const json_t *obj, struct vc_pod *pod, struct vc_error *err)
{
	const json_t *spec, *st;
	int rc;

	memset(pod, 0, sizeof(*pod));
	vc_resource_init(&pod->request);
	if (!json_is_object(obj))
		return vc_error_set(err, VC_EINVALID, "pod: must be an object");
	pod->obj = json_incref((json_t *)obj);
	vc_meta_read(obj, &pod->meta);
	spec = vc_json_get_obj(obj, "spec");
	st = vc_json_get_obj(obj, "status");
	pod->node_name = str_or(spec, "nodeName", "");
	pod->scheduler_name = nonempty_or(spec, "schedulerName", "default-scheduler");
	pod->priority_class_name = str_or(spec, "priorityClassName", "");
	pod->restart_policy = nonempty_or(spec, "restartPolicy", "Always");
	pod->group_name = vc_meta_annotation(&pod->meta, "scheduling.k8s.io/group-name");
	pod->phase_str = str_or(st, "phase", "");
	pod->phase = vc_pod_phase_parse(pod->phase_str);
	rc = read_int32(spec, "priority", 0, &pod->has_priority, &pod->priority, "spec", err);
	if (!rc)
		rc = vc_pod_spec_request(spec, &pod->request, err);
	if (rc) {
		if (rc != VC_ENOMEM && !vc_str_has_prefix(err ? err->text : "", "spec"))
			vc_error_prefix(err, "spec");
		vc_pod_view_release(pod);
	}
	return rc;
}

/* ---- Node --------------------------------------------------------------------------------- */

void vc_node_view_release(struct vc_node *node)
{
	if (!node)
		return;
	vc_resource_release(&node->allocatable);
	vc_resource_release(&node->capacity);
	json_decref(node->obj);
	memset(node, 0, sizeof(*node));
}

int vc_node_view(const json_t *obj, struct vc_node *node, struct vc_error *err)
{
	const json_t *spec, *st, *conds, *c;
	size_t i;
	int rc;

	memset(node, 0, sizeof(*node));
	vc_resource_init(&node->allocatable);
	vc_resource_init(&node->capacity);
	if (!json_is_object(obj))
		return vc_error_set(err, VC_EINVALID, "node: must be an object");
	node->obj = json_incref((json_t *)obj);
	vc_meta_read(obj, &node->meta);
	spec = vc_json_get_obj(obj, "spec");
	st = vc_json_get_obj(obj, "status");
	node->unschedulable = vc_json_get_bool(spec, "unschedulable", false);
	node->taints = vc_json_get_arr(spec, "taints");
	conds = vc_json_get_arr(st, "conditions");
	json_array_foreach (conds, i, c) {
		if (vc_str_eq(vc_json_get_str(c, "type"), "Ready"))
			node->ready = vc_str_eq(vc_json_get_str(c, "status"), "True");
	}
	rc = read_resources(st, "allocatable", NULL, &node->allocatable, "status", err);
	if (!rc)
		rc = read_resources(st, "capacity", NULL, &node->capacity, "status", err);
	if (rc)
		vc_node_view_release(node);
	return rc;
}
