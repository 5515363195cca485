/*
 * job_state.c - policy resolution, the per-state action table and the status functions of the
 * Job controller (docs/volcano/job-controller.md §3.5, §4.3-§4.6). Pure: no I/O, no clock.
 */
#include "job_state.h"

#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_str.h"

/* ---- requests ------------------------------------------------------------------------------ */

struct job_request *job_request_new(void)
{
	struct job_request *r = vc_calloc(1, sizeof(*r));

	if (r) {
		r->event = JOB_EVENT_NONE;
		r->action = VC_ACTION_INVALID;
	}
	return r;
}

int job_request_set_str(char **dst, const char *src)
{
	char *copy = NULL;

	if (src && !(copy = vc_strdup(src)))
		return VC_ENOMEM;
	vc_free(*dst);
	*dst = copy;
	return 0;
}

struct job_request *job_request_dup(const struct job_request *r)
{
	struct job_request *d = job_request_new();

	if (!d)
		return NULL;
	d->event = r->event;
	d->has_action = r->has_action;
	d->action = r->action;
	d->exit_code = r->exit_code;
	d->job_version = r->job_version;
	d->recovered = r->recovered;
	if (job_request_set_str(&d->action_str, r->action_str) ||
	    job_request_set_str(&d->task, r->task) || job_request_set_str(&d->pod, r->pod) ||
	    job_request_set_str(&d->pod_uid, r->pod_uid) ||
	    job_request_set_str(&d->partition, r->partition) ||
	    job_request_set_str(&d->job_uid, r->job_uid)) {
		job_request_free(d);
		return NULL;
	}
	return d;
}

void job_request_release(struct job_request *r)
{
	vc_free(r->action_str);
	vc_free(r->task);
	vc_free(r->pod);
	vc_free(r->pod_uid);
	vc_free(r->partition);
	vc_free(r->job_uid);
	memset(r, 0, sizeof(*r));
	r->event = JOB_EVENT_NONE;
	r->action = VC_ACTION_INVALID;
}

void job_request_free(struct job_request *r)
{
	if (!r)
		return;
	job_request_release(r);
	vc_free(r);
}

bool job_request_equal(const struct job_request *a, const struct job_request *b)
{
	return a->event == b->event && a->has_action == b->has_action &&
	       (!a->has_action || a->action == b->action) && a->exit_code == b->exit_code &&
	       a->job_version == b->job_version && a->recovered == b->recovered &&
	       vc_str_eq(a->action_str, b->action_str) && vc_str_eq(a->task, b->task) &&
	       vc_str_eq(a->pod, b->pod) && vc_str_eq(a->pod_uid, b->pod_uid) &&
	       vc_str_eq(a->partition, b->partition) && vc_str_eq(a->job_uid, b->job_uid);
}

/* ---- policy resolution (docs/volcano/job-controller.md §3.5 step 4) -------------------------- */

static bool policy_has_event(const struct vc_policy *p, int event)
{
	size_t i;

	for (i = 0; i < p->nevents; i++)
		if ((int)p->events[i] == event || p->events[i] == VC_EVENT_ANY)
			return true;
	return false;
}

/* Whether policy p matches req; fills out when it does. */
static bool policy_match(const struct vc_policy *p, const struct job_request *req,
			 struct job_resolution *out)
{
	bool hit = false;

	if (p->nevents > 0 && req->event != JOB_EVENT_NONE && policy_has_event(p, req->event))
		hit = req->event != VC_EVENT_POD_PENDING || p->has_timeout;
	if (!hit && p->has_exit_code && p->exit_code == req->exit_code)
		hit = true;
	if (!hit)
		return false;
	out->action = p->action;
	out->action_str = p->action_str ? p->action_str : vc_bus_action_name(p->action);
	out->delay_ns = p->has_timeout ? p->timeout_ns : 0;
	return true;
}

static bool policies_match(const struct vc_policies *ps, const struct job_request *req,
			   struct job_resolution *out)
{
	size_t i;

	for (i = 0; i < ps->count; i++)
		if (policy_match(&ps->items[i], req, out))
			return true;
	return false;
}

void job_resolve(const struct vc_job *job, const struct job_request *req,
		 struct job_resolution *out)
{
	const struct vc_task *t;

	out->action = VC_ACTION_SYNC_JOB;
	out->action_str = vc_bus_action_name(VC_ACTION_SYNC_JOB);
	out->delay_ns = 0;
	if (req->has_action) {
		out->action = req->action;
		out->action_str =
			req->action_str ? req->action_str : vc_bus_action_name(req->action);
		return;
	}
	if (req->event == VC_EVENT_OUT_OF_SYNC || req->event == VC_EVENT_COMMAND_ISSUED ||
	    req->event == VC_EVENT_POD_RUNNING)
		return;
	if (req->job_uid && *req->job_uid && !vc_str_eq(req->job_uid, job->meta.uid))
		return;
	if (req->job_version < job->status.version)
		return;
	if (req->task && *req->task && (t = vc_job_task(job, req->task)) &&
	    policies_match(&t->policies, req, out))
		return;
	if (policies_match(&job->policies, req, out))
		return;
	out->action = VC_ACTION_SYNC_JOB;
	out->action_str = vc_bus_action_name(VC_ACTION_SYNC_JOB);
	out->delay_ns = 0;
}

/* ---- status values --------------------------------------------------------------------------- */

static int32_t get_i32(const json_t *o, const char *key)
{
	int64_t v = vc_json_get_int(o, key, 0);

	return v < INT32_MIN || v > INT32_MAX ? 0 : (int32_t)v;
}

/* A deep copy of o[key] when it has the wanted type, NULL otherwise; *rc VC_ENOMEM on failure. */
static json_t *copy_member(const json_t *o, const char *key, json_type type, int *rc)
{
	json_t *v = json_object_get(o, key), *c;

	if (!v || json_typeof(v) != type)
		return NULL;
	c = json_deep_copy(v);
	if (!c)
		*rc = VC_ENOMEM;
	return c;
}

int job_status_from_json(const json_t *status, struct job_status *st)
{
	const char *phase = json_string_value(vc_json_path(status, "state.phase"));
	const char *rd = vc_json_get_str(status, "runningDuration");
	int rc = 0;

	memset(st, 0, sizeof(*st));
	st->phase = vc_job_phase_parse(phase ? phase : "");
	st->min_available = get_i32(status, "minAvailable");
	st->pending = get_i32(status, "pending");
	st->running = get_i32(status, "running");
	st->succeeded = get_i32(status, "succeeded");
	st->failed = get_i32(status, "failed");
	st->terminating = get_i32(status, "terminating");
	st->unknown = get_i32(status, "unknown");
	st->version = get_i32(status, "version");
	st->retry_count = get_i32(status, "retryCount");
	if (!(st->phase_str = vc_strdup(phase ? phase : "")))
		rc = VC_ENOMEM;
	st->task_status_count = copy_member(status, "taskStatusCount", JSON_OBJECT, &rc);
	st->controlled_resources = copy_member(status, "controlledResources", JSON_OBJECT, &rc);
	st->conditions = copy_member(status, "conditions", JSON_ARRAY, &rc);
	st->state = copy_member(status, "state", JSON_OBJECT, &rc);
	if (rd && !(st->running_duration = vc_strdup(rd)))
		rc = VC_ENOMEM;
	if (rc)
		job_status_release(st);
	return rc;
}

void job_status_release(struct job_status *st)
{
	vc_free(st->phase_str);
	json_decref(st->task_status_count);
	json_decref(st->controlled_resources);
	json_decref(st->conditions);
	json_decref(st->state);
	vc_free(st->running_duration);
	memset(st, 0, sizeof(*st));
}

static json_t *copy_or_null(const json_t *v, int *rc)
{
	json_t *c;

	if (!v)
		return NULL;
	c = json_deep_copy(v);
	if (!c)
		*rc = VC_ENOMEM;
	return c;
}

int job_status_copy(struct job_status *dst, const struct job_status *src)
{
	int rc = 0;

	*dst = *src;
	dst->phase_str = NULL;
	dst->running_duration = NULL;
	dst->task_status_count = copy_or_null(src->task_status_count, &rc);
	dst->controlled_resources = copy_or_null(src->controlled_resources, &rc);
	dst->conditions = copy_or_null(src->conditions, &rc);
	dst->state = copy_or_null(src->state, &rc);
	if (!rc && job_request_set_str(&dst->phase_str, src->phase_str ? src->phase_str : ""))
		rc = VC_ENOMEM;
	if (!rc && job_request_set_str(&dst->running_duration, src->running_duration))
		rc = VC_ENOMEM;
	if (rc)
		job_status_release(dst);
	return rc;
}

int job_status_set_phase(struct job_status *st, enum vc_job_phase phase)
{
	if (job_request_set_str(&st->phase_str, vc_job_phase_name(phase)))
		return VC_ENOMEM;
	st->phase = phase;
	return 0;
}

static int put_i32(json_t *o, const char *key, int32_t v)
{
	if (!v)
		return 0;
	return json_object_set_new(o, key, json_integer(v)) ? VC_ENOMEM : 0;
}

/* Set key to a deep copy of v when v is a non-empty container. */
static int put_copy(json_t *o, const char *key, const json_t *v)
{
	if (!v || (json_is_object(v) && !json_object_size(v)) ||
	    (json_is_array(v) && !json_array_size(v)))
		return 0;
	return json_object_set_new(o, key, json_deep_copy(v)) ? VC_ENOMEM : 0;
}

json_t *job_status_to_json(const struct job_status *st)
{
	json_t *o = json_object(), *state;
	const char *phase = st->phase_str ? st->phase_str : vc_job_phase_name(st->phase);

	if (!o)
		return NULL;
	state = st->state ? json_deep_copy(st->state) : json_object();
	if (!state || json_object_set_new(o, "state", state))
		goto fail;
	if (!*phase)
		json_object_del(state, "phase");
	else if (json_object_set_new(state, "phase", json_string(phase)))
		goto fail;
	if (put_i32(o, "minAvailable", st->min_available) ||
	    put_copy(o, "taskStatusCount", st->task_status_count) ||
	    put_i32(o, "pending", st->pending) || put_i32(o, "running", st->running) ||
	    put_i32(o, "succeeded", st->succeeded) || put_i32(o, "failed", st->failed) ||
	    put_i32(o, "terminating", st->terminating) || put_i32(o, "unknown", st->unknown) ||
	    put_i32(o, "version", st->version) || put_i32(o, "retryCount", st->retry_count))
		goto fail;
	if (st->running_duration &&
	    json_object_set_new(o, "runningDuration", json_string(st->running_duration)))
		goto fail;
	if (put_copy(o, "controlledResources", st->controlled_resources) ||
	    put_copy(o, "conditions", st->conditions))
		goto fail;
	return o;
fail:
	json_decref(o);
	return NULL;
}

static bool is_empty_value(const json_t *v)
{
	const char *k;
	json_t *m;

	if (!v)
		return true;
	switch (json_typeof(v)) {
	case JSON_NULL:
	case JSON_FALSE:
		return true;
	case JSON_INTEGER:
		return json_integer_value(v) == 0;
	case JSON_REAL:
		return json_real_value(v) == 0.0;
	case JSON_STRING:
		return json_string_length(v) == 0;
	case JSON_ARRAY:
		return json_array_size(v) == 0;
	case JSON_OBJECT:
		json_object_foreach ((json_t *)v, k, m)
			if (!is_empty_value(m))
				return false;
		return true;
	default:
		return false;
	}
}

static bool sem_equal(const json_t *a, const json_t *b)
{
	const char *k;
	json_t *m;
	size_t i;

	if (is_empty_value(a) && is_empty_value(b))
		return true;
	if (!a || !b)
		return false;
	if (json_is_object(a) && json_is_object(b)) {
		json_object_foreach ((json_t *)a, k, m)
			if (!sem_equal(m, json_object_get(b, k)))
				return false;
		json_object_foreach ((json_t *)b, k, m)
			if (!json_object_get(a, k) && !is_empty_value(m))
				return false;
		return true;
	}
	if (json_is_array(a) && json_is_array(b)) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		for (i = 0; i < json_array_size(a); i++)
			if (!sem_equal(json_array_get(a, i), json_array_get(b, i)))
				return false;
		return true;
	}
	return vc_json_equal(a, b);
}

bool job_status_json_equal(const json_t *a, const json_t *b)
{
	return sem_equal(a, b);
}

int job_status_add_condition(struct job_status *st, const char *now)
{
	const char *phase = st->phase_str ? st->phase_str : vc_job_phase_name(st->phase);
	json_t *cond, *conds;
	size_t i;

	if (!st->state && !(st->state = json_object()))
		return VC_ENOMEM;
	if (json_object_set_new(st->state, "lastTransitionTime", json_string(now)))
		return VC_ENOMEM;
	if (!st->conditions && !(st->conditions = json_array()))
		return VC_ENOMEM;
	cond = json_pack("{s:s, s:s}", "status", phase, "lastTransitionTime", now);
	if (!cond)
		return VC_ENOMEM;
	/* Rebuild without the same-phase entries so that a failed append changes nothing. */
	conds = json_array();
	if (!conds)
		goto fail;
	for (i = 0; i < json_array_size(st->conditions); i++) {
		json_t *c = json_array_get(st->conditions, i);

		if (vc_str_eq(vc_json_get_str(c, "status"), phase))
			continue;
		if (json_array_append(conds, c))
			goto fail;
	}
	if (json_array_append_new(conds, cond)) {
		cond = NULL;
		goto fail;
	}
	json_decref(st->conditions);
	st->conditions = conds;
	return 0;
fail:
	json_decref(conds);
	json_decref(cond);
	return VC_ENOMEM;
}

int job_status_count_pod(struct job_status *st, const char *task, const char *phase)
{
	json_t *t, *ph;
	int64_t n;

	if (!phase)
		phase = "";
	if (!strcmp(phase, "Pending"))
		st->pending++;
	else if (!strcmp(phase, "Running"))
		st->running++;
	else if (!strcmp(phase, "Succeeded"))
		st->succeeded++;
	else if (!strcmp(phase, "Failed"))
		st->failed++;
	else
		st->unknown++;
	if (!task)
		return 0;
	if (!st->task_status_count && !(st->task_status_count = json_object()))
		return VC_ENOMEM;
	t = json_object_get(st->task_status_count, task);
	if (!t) {
		t = json_pack("{s:{}}", "phase");
		if (!t || json_object_set_new(st->task_status_count, task, t))
			return VC_ENOMEM;
	}
	ph = json_object_get(t, "phase");
	if (!json_is_object(ph)) {
		ph = json_object();
		if (!ph || json_object_set_new(t, "phase", ph))
			return VC_ENOMEM;
	}
	n = vc_json_get_int(ph, phase, 0);
	return json_object_set_new(ph, phase, json_integer(n + 1)) ? VC_ENOMEM : 0;
}

int32_t job_status_task_succeeded(const struct job_status *st, const char *task, bool *has)
{
	json_t *t = json_object_get(st->task_status_count, task);

	*has = t != NULL;
	return get_i32(vc_json_get_obj(t, "phase"), "Succeeded");
}

/* ---- the state machine ----------------------------------------------------------------------- */

static void decide(struct job_decision *d, enum job_prim p, enum job_retain r, enum job_status_fn f)
{
	d->prim = p;
	d->retain = r;
	d->fn = f;
}

static bool is_targeted(enum vc_bus_action a)
{
	return a == VC_ACTION_RESTART_TASK || a == VC_ACTION_RESTART_POD ||
	       a == VC_ACTION_RESTART_PARTITION;
}

void job_state_decide(enum vc_job_phase phase, enum vc_bus_action action, struct job_decision *d)
{
	switch (phase) {
	case VC_JOB_RUNNING:
	case VC_JOB_PHASE_NONE:
	case VC_JOB_PENDING:
	case VC_JOB_PHASE_UNKNOWN:
		if (action == VC_ACTION_RESTART_JOB)
			decide(d, JOB_PRIM_KILL, JOB_RETAIN_NONE, JOB_FN_RESTART);
		else if (is_targeted(action))
			decide(d, JOB_PRIM_KILL_TARGET, JOB_RETAIN_NONE, JOB_FN_RESTART);
		else if (action == VC_ACTION_ABORT_JOB)
			decide(d, JOB_PRIM_KILL, JOB_RETAIN_SOFT, JOB_FN_TO_ABORTING);
		else if (action == VC_ACTION_COMPLETE_JOB)
			decide(d, JOB_PRIM_KILL, JOB_RETAIN_SOFT, JOB_FN_TO_COMPLETING);
		else if (action == VC_ACTION_TERMINATE_JOB)
			decide(d, JOB_PRIM_KILL, JOB_RETAIN_SOFT, JOB_FN_TO_TERMINATING);
		else
			decide(d, JOB_PRIM_SYNC, JOB_RETAIN_NONE,
			       phase == VC_JOB_RUNNING ? JOB_FN_RUNNING : JOB_FN_PENDING);
		return;
	case VC_JOB_RESTARTING:
		if (action == VC_ACTION_SYNC_JOB)
			decide(d, JOB_PRIM_SYNC, JOB_RETAIN_NONE, JOB_FN_RS);
		else if (is_targeted(action))
			decide(d, JOB_PRIM_KILL_TARGET, JOB_RETAIN_NONE, JOB_FN_RS);
		else
			decide(d, JOB_PRIM_KILL, JOB_RETAIN_NONE, JOB_FN_RS);
		return;
	case VC_JOB_ABORTING:
		if (action == VC_ACTION_RESUME_JOB)
			decide(d, JOB_PRIM_KILL, JOB_RETAIN_SOFT, JOB_FN_RESTART);
		else
			decide(d, JOB_PRIM_KILL, JOB_RETAIN_SOFT, JOB_FN_ABORTED_IF_DEAD);
		return;
	case VC_JOB_ABORTED:
		if (action == VC_ACTION_RESUME_JOB)
			decide(d, JOB_PRIM_KILL, JOB_RETAIN_SOFT, JOB_FN_RESTART);
		else
			decide(d, JOB_PRIM_KILL, JOB_RETAIN_SOFT, JOB_FN_NONE);
		return;
	case VC_JOB_COMPLETING:
		decide(d, JOB_PRIM_KILL, JOB_RETAIN_SOFT, JOB_FN_COMPLETED_IF_DEAD);
		return;
	case VC_JOB_TERMINATING:
		decide(d, JOB_PRIM_KILL, JOB_RETAIN_SOFT, JOB_FN_TERMINATED_IF_DEAD);
		return;
	case VC_JOB_COMPLETED:
	case VC_JOB_FAILED:
	case VC_JOB_TERMINATED:
	default:
		decide(d, JOB_PRIM_KILL, JOB_RETAIN_SOFT, JOB_FN_NONE);
		return;
	}
}

static bool to_phase(struct job_status *st, enum vc_job_phase p, int *rc)
{
	if (job_status_set_phase(st, p)) {
		*rc = VC_ENOMEM;
		return false;
	}
	return true;
}

static bool alive(const struct job_status *st)
{
	return st->terminating != 0 || st->pending != 0 || st->running != 0;
}

/* docs/volcano/job-controller.md §4.5. */
static bool running_eval(const struct vc_job *job, struct job_status *st, int *rc)
{
	int32_t total = job->total_replicas, min = job->min_available, sum_task_min = 0;
	size_t i;
	bool has;

	if (total == 0)
		return false;
	if (job->has_min_success && st->succeeded >= job->min_success)
		return to_phase(st, VC_JOB_COMPLETED, rc);
	for (i = 0; i < job->ntasks; i++)
		sum_task_min += job->tasks[i].min_available;
	if (st->succeeded + st->failed == total) {
		if (min >= sum_task_min) {
			for (i = 0; i < job->ntasks; i++) {
				const struct vc_task *t = &job->tasks[i];
				int32_t ok = job_status_task_succeeded(st, t->name, &has);

				if (has && ok < t->min_available)
					return to_phase(st, VC_JOB_FAILED, rc);
			}
		}
		if (job->has_min_success && st->succeeded < job->min_success)
			return to_phase(st, VC_JOB_FAILED, rc);
		if (st->succeeded >= min)
			return to_phase(st, VC_JOB_COMPLETED, rc);
		return to_phase(st, VC_JOB_FAILED, rc);
	}
	if (st->pending > total - min)
		return to_phase(st, VC_JOB_PENDING, rc);
	return false;
}

enum vc_job_phase job_rs_phase(const struct vc_job *job, const struct job_status *st)
{
	if (st->retry_count >= job->max_retry)
		return VC_JOB_FAILED;
	if (job->total_replicas - st->terminating >= st->min_available)
		return VC_JOB_PENDING;
	return VC_JOB_RESTARTING;
}

bool job_status_fn_apply(enum job_status_fn fn, const struct vc_job *job, struct job_status *st,
			 int *rc)
{
	enum vc_job_phase next;

	*rc = 0;
	switch (fn) {
	case JOB_FN_PENDING:
		if (job->min_available <= st->running + st->succeeded + st->failed)
			return to_phase(st, VC_JOB_RUNNING, rc);
		return false;
	case JOB_FN_RUNNING:
		return running_eval(job, st, rc);
	case JOB_FN_RESTART:
		if (!to_phase(st, VC_JOB_RESTARTING, rc))
			return false;
		st->retry_count++;
		return true;
	case JOB_FN_RS:
		next = job_rs_phase(job, st);
		return next != VC_JOB_RESTARTING && to_phase(st, next, rc);
	case JOB_FN_TO_ABORTING:
		return to_phase(st, VC_JOB_ABORTING, rc);
	case JOB_FN_TO_COMPLETING:
		return to_phase(st, VC_JOB_COMPLETING, rc);
	case JOB_FN_TO_TERMINATING:
		return to_phase(st, VC_JOB_TERMINATING, rc);
	case JOB_FN_ABORTED_IF_DEAD:
		return alive(st) ? false : to_phase(st, VC_JOB_ABORTED, rc);
	case JOB_FN_COMPLETED_IF_DEAD:
		return alive(st) ? false : to_phase(st, VC_JOB_COMPLETED, rc);
	case JOB_FN_TERMINATED_IF_DEAD:
		return alive(st) ? false : to_phase(st, VC_JOB_TERMINATED, rc);
	case JOB_FN_NONE:
	default:
		return false;
	}
}

enum job_action_level job_action_level(enum vc_bus_action a)
{
	switch (a) {
	case VC_ACTION_RESTART_TASK:
		return JOB_LEVEL_TASK;
	case VC_ACTION_RESTART_POD:
		return JOB_LEVEL_POD;
	case VC_ACTION_RESTART_PARTITION:
		return JOB_LEVEL_PARTITION;
	default:
		return JOB_LEVEL_JOB;
	}
}

bool job_action_is_internal(enum vc_bus_action a)
{
	return a == VC_ACTION_SYNC_JOB || a == VC_ACTION_ENQUEUE_JOB || a == VC_ACTION_SYNC_QUEUE ||
	       a == VC_ACTION_OPEN_QUEUE || a == VC_ACTION_CLOSE_QUEUE;
}

const char *job_state_name(enum vc_job_phase phase)
{
	const char *n = vc_job_phase_name(phase);

	return *n ? n : "Pending";
}
