/*
 * vc_explain.c - why a job is not running: the reasoning of `vcctl job explain` and of the job
 * controller's PodGroupPending warning.
 *
 * vc_explain takes the objects its caller has (Job, Queue, PodGroup, the job's pods, the
 * namespace's events) and walks the chain that holds a Volcano job back, in order:
 * the job exists; its phase (Running and Completed end here; Restarting, Aborting and the other
 * phases are explained by the last action and the policy behind it); the queue exists and is
 * Open; the job controller synced it (status) and made its PodGroup; the scheduler admitted the
 * PodGroup (enqueue: queue capability, deserved share, the overcommit/proportion/capacity
 * rejection events); the tasks it depends on are ready; the gang fits. The first link that does
 * not hold is the answer. Every line names the object and the field it comes from.
 *
 * The facts behind each link:
 *   enqueue and its rejection messages (docs/volcano/scheduler.md §3.1);
 *   the gang's conditions and FitError histogram (docs/volcano/scheduler.md §1.8, §2.2);
 *   PodGroup phases (docs/volcano/scheduler.md §2.1);
 *   dependsOn readiness (docs/volcano/job-controller.md §4.10);
 *   the job's events (docs/volcano/job-controller.md §1.5).
 */
#include "vc_explain.h"

#include "vc_json.h"
#include "vc_quantity.h"
#include "vc_time.h"

#define EXPLAIN_LINE_MAX 1024

static const char *str_or_empty(const json_t *obj, const char *key)
{
	const char *s = vc_json_get_str(obj, key);

	return s ? s : "";
}

static bool blank(const char *s)
{
	return !s || !*s;
}

static const char *meta_str(const json_t *obj, const char *key)
{
	return str_or_empty(json_object_get(obj, "metadata"), key);
}

/* What the reasoning works on and writes to. */
struct ex {
	const struct vc_explain_in *in;
	FILE *out;    /* may be NULL: nothing is written */
	char *reason; /* the Why sentence goes here (may be NULL) */
	size_t reason_len;
	const char *queue; /* the job's queue: spec.queue, "default" when empty */
	char pg[256];	   /* "PodGroup ns/name" */
	char job[256];	   /* "Job ns/name" */
};

static void line(struct ex *x, const char *lead, const char *fmt, va_list ap) VC_PRINTF(3, 0);
static void why(struct ex *x, const char *fmt, ...) VC_PRINTF(2, 3);
static void from(struct ex *x, const char *fmt, ...) VC_PRINTF(2, 3);
static void detail(struct ex *x, const char *fmt, ...) VC_PRINTF(2, 3);
static void say(struct ex *x, const char *fmt, ...) VC_PRINTF(2, 3);

/* A line of the explanation: lead, the text, a newline. */
static void line(struct ex *x, const char *lead, const char *fmt, va_list ap)
{
	if (!x->out)
		return;
	fputs(lead, x->out);
	vfprintf(x->out, fmt, ap);
	fputc('\n', x->out);
}

/* Any other text of the explanation, as it is. */
static void say(struct ex *x, const char *fmt, ...)
{
	va_list ap;

	if (!x->out)
		return;
	va_start(ap, fmt);
	vfprintf(x->out, fmt, ap);
	va_end(ap);
}

/* The reason: the Why line, and the caller's copy of its sentence. */
static void why(struct ex *x, const char *fmt, ...)
{
	va_list ap;

	if (x->reason && x->reason_len) {
		va_start(ap, fmt);
		vsnprintf(x->reason, x->reason_len, fmt, ap);
		va_end(ap);
	}
	va_start(ap, fmt);
	line(x, "Why: ", fmt, ap);
	va_end(ap);
}

static void from(struct ex *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line(x, "From: ", fmt, ap);
	va_end(ap);
}

/* A supporting line: "  <object> <field>: <value>". */
static void detail(struct ex *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line(x, "  ", fmt, ap);
	va_end(ap);
}

/* ---- events ------------------------------------------------------------------------------- */

/* When an event last happened: lastTimestamp, else eventTime, else firstTimestamp. */
static int64_t event_time(const json_t *e)
{
	static const char *const keys[] = { "lastTimestamp", "eventTime", "firstTimestamp" };
	size_t i;

	for (i = 0; i < VC_ARRAY_SIZE(keys); i++) {
		const char *s = vc_json_get_str(e, keys[i]);
		int64_t sec;
		int32_t nsec;

		if (s && !vc_time_parse_rfc3339(s, &sec, &nsec, NULL))
			return sec * VC_NSEC_PER_SEC + nsec;
	}
	return 0;
}

/*
 * The newest event about kind/name whose reason is reason (NULL: any) and whose message
 * contains one of the needles (NULL: any message); NULL when there is none.
 */
static const json_t *last_event(const struct ex *x, const char *kind, const char *name,
				const char *reason, const char *const *needles)
{
	const json_t *e, *best = NULL;
	int64_t best_t = 0;
	size_t i;

	json_array_foreach (x->in->events, i, e) {
		const json_t *io = json_object_get(e, "involvedObject");
		int64_t t;

		if (strcmp(str_or_empty(io, "kind"), kind) ||
		    strcmp(str_or_empty(io, "name"), name))
			continue;
		if (reason && strcmp(str_or_empty(e, "reason"), reason))
			continue;
		if (needles) {
			const char *const *n;

			for (n = needles; *n; n++)
				if (strstr(str_or_empty(e, "message"), *n))
					break;
			if (!*n)
				continue;
		}
		t = event_time(e);
		if (!best || t >= best_t) {
			best = e;
			best_t = t;
		}
	}
	return best;
}

/* "Event ns/name (Warning Reason, x3, 20s ago)" */
static void event_label(const struct ex *x, const json_t *e, char *buf, size_t len)
{
	int64_t t = event_time(e), count = vc_json_get_int(e, "count", 0);
	char ago[48] = "", times[32] = "";

	if (t) {
		char d[32];

		vc_duration_human(x->in->now_ns - t, d, sizeof(d));
		snprintf(ago, sizeof(ago), ", %s ago", d);
	}
	if (count > 1)
		snprintf(times, sizeof(times), ", x%lld", (long long)count);
	snprintf(buf, len, "Event %s/%s (%s %s%s%s)", meta_str(e, "namespace"), meta_str(e, "name"),
		 str_or_empty(e, "type"), str_or_empty(e, "reason"), times, ago);
}

static void event_detail(struct ex *x, const json_t *e)
{
	char label[512];

	if (!e)
		return;
	event_label(x, e, label, sizeof(label));
	detail(x, "%s message: %s", label, str_or_empty(e, "message"));
}

/* ---- resources ---------------------------------------------------------------------------- */

static bool quantity_of(const json_t *list, const char *key, struct vc_quantity *q)
{
	const json_t *v = json_object_get(list, key);

	vc_quantity_init(q);
	return v && !vc_quantity_parse_json(v, q, NULL);
}

static void qstr(const struct vc_quantity *q, char *buf, size_t len)
{
	if (vc_quantity_format(q, buf, len))
		snprintf(buf, len, "?");
}

/*
 * Each dimension of want (a ResourceList) where used + want > limit, limit only counting where
 * it names the dimension (a missing dimension is unlimited): "cpu 3 allocated + 2 > 4",
 * joined with "; " into buf. Returns how many dimensions are over.
 */
static int over_limit(const json_t *want, const json_t *used, const json_t *limit, char *buf,
		      size_t len)
{
	const char *key;
	const json_t *v;
	size_t off = 0;
	int n = 0;

	buf[0] = '\0';
	json_object_foreach ((json_t *)want, key, v) {
		struct vc_quantity w, u, l, sum;
		char ws[VC_QUANTITY_STR_MAX], us[VC_QUANTITY_STR_MAX], ls[VC_QUANTITY_STR_MAX];
		int k;

		if (!quantity_of(want, key, &w) || !quantity_of(limit, key, &l))
			continue;
		quantity_of(used, key, &u);
		sum = u;
		if (vc_quantity_add(&sum, &w) || vc_quantity_cmp(&sum, &l) <= 0)
			continue;
		qstr(&w, ws, sizeof(ws));
		qstr(&u, us, sizeof(us));
		qstr(&l, ls, sizeof(ls));
		k = snprintf(buf + off, len - off, "%s%s %s allocated + %s > %s", n ? "; " : "",
			     key, us, ws, ls);
		if (k > 0 && (size_t)k < len - off)
			off += (size_t)k;
		n++;
	}
	return n;
}

/* A ResourceList as "cpu 4, memory 8Gi" ("none" when empty). */
static void resources_str(const json_t *list, char *buf, size_t len)
{
	const char *key;
	const json_t *v;
	size_t off = 0;

	buf[0] = '\0';
	json_object_foreach ((json_t *)list, key, v) {
		struct vc_quantity q;
		char s[VC_QUANTITY_STR_MAX];
		int k;

		if (!quantity_of(list, key, &q))
			continue;
		qstr(&q, s, sizeof(s));
		k = snprintf(buf + off, len - off, "%s%s %s", off ? ", " : "", key, s);
		if (k > 0 && (size_t)k < len - off)
			off += (size_t)k;
	}
	if (!off)
		snprintf(buf, len, "none");
}

/* ---- PodGroup conditions ------------------------------------------------------------------ */

/* The PodGroup's condition of that type with status True, or NULL. */
static const json_t *pg_condition(const json_t *pg, const char *type)
{
	const json_t *c;
	size_t i;

	json_array_foreach (json_object_get(json_object_get(pg, "status"), "conditions"), i, c) {
		if (!strcmp(str_or_empty(c, "type"), type) &&
		    !strcmp(str_or_empty(c, "status"), "True"))
			return c;
	}
	return NULL;
}

/*
 * The node FitError histogram in msg ("0/4 nodes are unavailable: 3 Insufficient cpu, 1
 * node(s) pod number exceeded."), one entry per line under the line that quoted msg.
 */
static bool histogram(struct ex *x, const char *msg)
{
	static const char marker[] = "nodes are unavailable: ";
	const char *p = msg ? strstr(msg, marker) : NULL, *end;

	if (!p)
		return false;
	for (p += strlen(marker); *p; p = end + 2) {
		size_t n;

		end = strstr(p, ", ");
		n = end ? (size_t)(end - p) : strlen(p);
		if (!end && n && p[n - 1] == '.')
			n--;
		if (n)
			say(x, "      %.*s\n", (int)n, p);
		if (!end)
			break;
	}
	return true;
}

/* A pod's PodScheduled=False condition, or NULL. */
static const json_t *pod_unscheduled(const json_t *pod)
{
	const json_t *c;
	size_t i;

	json_array_foreach (json_object_get(json_object_get(pod, "status"), "conditions"), i, c) {
		if (!strcmp(str_or_empty(c, "type"), "PodScheduled") &&
		    !strcmp(str_or_empty(c, "status"), "False"))
			return c;
	}
	return NULL;
}

/* ---- tasks and pods ------------------------------------------------------------------------ */

static const json_t *pod_named(const struct ex *x, const char *name)
{
	const json_t *p;
	size_t i;

	json_array_foreach (x->in->pods, i, p) {
		if (!strcmp(meta_str(p, "name"), name))
			return p;
	}
	return NULL;
}

static const json_t *task_named(const struct ex *x, const char *name)
{
	const json_t *t;
	size_t i;

	json_array_foreach (json_object_get(json_object_get(x->in->job, "spec"), "tasks"), i, t) {
		if (!strcmp(str_or_empty(t, "name"), name))
			return t;
	}
	return NULL;
}

/* Pods of task t (<job>-<task>-<i>, i < replicas) that exist. */
static int task_pods(const struct ex *x, const json_t *t)
{
	int64_t i, n = vc_json_get_int(t, "replicas", 0);
	int have = 0;

	for (i = 0; i < n; i++) {
		char name[512];

		snprintf(name, sizeof(name), "%s-%s-%lld", x->in->name, str_or_empty(t, "name"),
			 (long long)i);
		have += pod_named(x, name) != NULL;
	}
	return have;
}

/* docs/volcano/job-controller.md §4.10: Succeeded, or Running with every container ready. */
static int task_ready_pods(const struct ex *x, const json_t *t)
{
	int64_t i, n = vc_json_get_int(t, "replicas", 0);
	int ready = 0;

	for (i = 0; i < n; i++) {
		const json_t *p, *st, *cs;
		const char *phase;
		char name[512];
		bool all = true;
		size_t k;

		snprintf(name, sizeof(name), "%s-%s-%lld", x->in->name, str_or_empty(t, "name"),
			 (long long)i);
		p = pod_named(x, name);
		st = json_object_get(p, "status");
		phase = str_or_empty(st, "phase");
		if (!strcmp(phase, "Succeeded")) {
			ready++;
			continue;
		}
		if (strcmp(phase, "Running"))
			continue;
		json_array_foreach (json_object_get(st, "containerStatuses"), k, cs) {
			if (!json_is_true(json_object_get(cs, "ready")))
				all = false;
		}
		ready += all;
	}
	return ready;
}

/* A task without minAvailable is always ready; a name matching no task never is. */
static bool task_ready(const struct ex *x, const char *name)
{
	const json_t *t = task_named(x, name);

	if (!t)
		return false;
	if (!json_is_integer(json_object_get(t, "minAvailable")))
		return true;
	return task_ready_pods(x, t) >= vc_json_get_int(t, "minAvailable", 0);
}

/*
 * The first task that has no pod yet and whose dependsOn is not satisfied; its index in *idx.
 * With several names and iteration any, one ready dependency suffices; otherwise all must be.
 */
static const json_t *waiting_task(const struct ex *x, size_t *idx)
{
	const json_t *t;
	size_t i;

	json_array_foreach (json_object_get(json_object_get(x->in->job, "spec"), "tasks"), i, t) {
		const json_t *dep = json_object_get(t, "dependsOn");
		const json_t *names = json_object_get(dep, "name"), *n;
		bool any = !strcmp(str_or_empty(dep, "iteration"), "any") &&
			   json_array_size(names) > 1;
		bool ok = !any;
		size_t k;

		if (!json_array_size(names) || task_pods(x, t))
			continue;
		json_array_foreach (names, k, n) {
			bool r = task_ready(x, json_is_string(n) ? json_string_value(n) : "");

			ok = any ? (ok || r) : (ok && r);
		}
		if (!ok) {
			*idx = i;
			return t;
		}
	}
	return NULL;
}

/* ---- the reasons -------------------------------------------------------------------------- */

static int64_t count_pods(const struct ex *x, const char *phase)
{
	const json_t *p;
	int64_t n = 0;
	size_t i;

	json_array_foreach (x->in->pods, i, p) {
		if (!phase || !strcmp(str_or_empty(json_object_get(p, "status"), "phase"), phase))
			n++;
	}
	return n;
}

static int64_t total_replicas(const json_t *job)
{
	const json_t *t;
	int64_t n = 0;
	size_t i;

	json_array_foreach (json_object_get(json_object_get(job, "spec"), "tasks"), i, t) {
		n += vc_json_get_int(t, "replicas", 0);
	}
	return n;
}

/* What triggers a lifecycle policy: its event(s), or its exit code. */
static void policy_trigger(const json_t *pol, char *buf, size_t len)
{
	const json_t *v;
	size_t i, off = 0;

	if (json_is_integer(json_object_get(pol, "exitCode"))) {
		snprintf(buf, len, "exitCode %lld",
			 (long long)json_integer_value(json_object_get(pol, "exitCode")));
		return;
	}
	snprintf(buf, len, "%s", str_or_empty(pol, "event"));
	off = strlen(buf);
	json_array_foreach (json_object_get(pol, "events"), i, v) {
		int k = snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
				 json_is_string(v) ? json_string_value(v) : "");

		if (k > 0 && (size_t)k < len - off)
			off += (size_t)k;
	}
	if (!off)
		snprintf(buf, len, "(no event)");
}

/* Failed pods, which PodFailed policies act on, with their containers' exit codes. */
static void failed_pods(struct ex *x, int max)
{
	const json_t *p, *cs;
	size_t i, k;
	int n = 0;

	json_array_foreach (x->in->pods, i, p) {
		const json_t *st = json_object_get(p, "status");
		char codes[256] = "";
		size_t off = 0;

		if (n >= max || strcmp(str_or_empty(st, "phase"), "Failed"))
			continue;
		json_array_foreach (json_object_get(st, "containerStatuses"), k, cs) {
			const json_t *term =
				json_object_get(json_object_get(cs, "state"), "terminated");
			int w;

			if (!term)
				continue;
			w = snprintf(codes + off, sizeof(codes) - off, "%s%s exit code %lld",
				     off ? ", " : " (", str_or_empty(cs, "name"),
				     (long long)vc_json_get_int(term, "exitCode", 0));
			if (w > 0 && (size_t)w < sizeof(codes) - off)
				off += (size_t)w;
		}
		detail(x, "Pod %s/%s status.phase: Failed%s%s", x->in->ns, meta_str(p, "name"),
		       codes, off ? ")" : "");
		n++;
	}
}

/* The last ExecuteAction/CommandIssued event of the job names the action under way. */
static enum vc_explain_why explain_phase(struct ex *x, const char *phase)
{
	static const char *const action_words[] = { "action ", "command ", NULL };
	const json_t *st = json_object_get(json_object_get(x->in->job, "status"), "state");
	const json_t *spec = json_object_get(x->in->job, "spec");
	const json_t *e = last_event(x, "Job", x->in->name, NULL, action_words);
	const char *msg = str_or_empty(e, "message"), *a;
	char action[64] = "";
	const json_t *t, *pol;
	size_t i, k;

	/* "Start to execute action RestartJob ", "Start to execute command AbortJob, and ..." */
	a = strstr(msg, "action ");
	if (!a)
		a = strstr(msg, "command ");
	if (a) {
		a = strchr(a, ' ') + 1;
		snprintf(action, sizeof(action), "%.*s", (int)strcspn(a, " ,"), a);
	}
	if (*action)
		why(x, "the job is %s: the controller ran %s %s", phase,
		    strstr(msg, "command ") ? "the command" : "the action", action);
	else if (!blank(vc_json_get_str(st, "reason")) || !blank(vc_json_get_str(st, "message")))
		why(x, "the job is %s: %s%s%s", phase, str_or_empty(st, "reason"),
		    !blank(vc_json_get_str(st, "reason")) && !blank(vc_json_get_str(st, "message"))
			    ? ": "
			    : "",
		    str_or_empty(st, "message"));
	else
		why(x, "the job is %s", phase);
	if (e) {
		char label[512];

		event_label(x, e, label, sizeof(label));
		from(x, "%s message", label);
	} else {
		from(x, "%s status.state.phase", x->job);
	}
	detail(x, "%s status.state.phase: %s", x->job, phase);
	if (!blank(vc_json_get_str(st, "reason")))
		detail(x, "%s status.state.reason: %s", x->job, vc_json_get_str(st, "reason"));
	if (!blank(vc_json_get_str(st, "message")))
		detail(x, "%s status.state.message: %s", x->job, vc_json_get_str(st, "message"));
	/* The policies that lead to that action. */
	json_array_foreach (json_object_get(spec, "policies"), i, pol) {
		char what[256];

		if (!*action || strcmp(str_or_empty(pol, "action"), action))
			continue;
		policy_trigger(pol, what, sizeof(what));
		detail(x, "%s spec.policies[%zu]: %s -> %s", x->job, i, what, action);
	}
	json_array_foreach (json_object_get(spec, "tasks"), k, t) {
		json_array_foreach (json_object_get(t, "policies"), i, pol) {
			char what[256];

			if (!*action || strcmp(str_or_empty(pol, "action"), action))
				continue;
			policy_trigger(pol, what, sizeof(what));
			detail(x, "%s spec.tasks[%zu].policies[%zu]: %s -> %s (task %s)", x->job, k,
			       i, what, action, str_or_empty(t, "name"));
		}
	}
	failed_pods(x, 3);
	detail(x, "%s status.retryCount: %lld (spec.maxRetry %lld)", x->job,
	       (long long)vc_json_get_int(json_object_get(x->in->job, "status"), "retryCount", 0),
	       (long long)vc_json_get_int(spec, "maxRetry", 3));
	return VC_EXPLAIN_PHASE;
}

static void pg_conditions(struct ex *x)
{
	const json_t *c;
	size_t i;

	json_array_foreach (
		json_object_get(json_object_get(x->in->podgroup, "status"), "conditions"), i, c) {
		detail(x, "%s status.conditions[type=%s]: %s %s%s%s", x->pg,
		       str_or_empty(c, "type"), str_or_empty(c, "status"),
		       str_or_empty(c, "reason"), blank(vc_json_get_str(c, "message")) ? "" : ": ",
		       str_or_empty(c, "message"));
	}
}

/* The PodGroup was not admitted: capability, the enqueue rejection, the deserved share. */
static enum vc_explain_why explain_not_enqueued(struct ex *x)
{
	static const char *const rejections[] = { "insufficient", "overused", NULL };
	const json_t *q = x->in->queue, *qspec = json_object_get(q, "spec");
	const json_t *alloc = json_object_get(json_object_get(q, "status"), "allocated");
	const json_t *minres =
		json_object_get(json_object_get(x->in->podgroup, "spec"), "minResources");
	const json_t *e = last_event(x, "PodGroup", meta_str(x->in->podgroup, "name"),
				     "Unschedulable", rejections);
	char over[EXPLAIN_LINE_MAX], res[EXPLAIN_LINE_MAX];
	enum vc_explain_why w;

	if (over_limit(minres, alloc, json_object_get(qspec, "capability"), over, sizeof(over))) {
		why(x, "queue \"%s\" is over its capability: %s", x->queue, over);
		from(x, "Queue %s spec.capability, status.allocated; %s spec.minResources",
		     x->queue, x->pg);
		w = VC_EXPLAIN_QUEUE_CAPABILITY;
	} else if (e) {
		why(x, "the scheduler does not admit the PodGroup: %s", str_or_empty(e, "message"));
		event_label(x, e, res, sizeof(res));
		from(x, "%s message", res);
		w = VC_EXPLAIN_ENQUEUE_REJECTED;
	} else if (over_limit(minres, alloc, json_object_get(qspec, "deserved"), over,
			      sizeof(over))) {
		why(x,
		    "queue \"%s\" is past its deserved share: %s; it can only borrow what other "
		    "queues leave idle",
		    x->queue, over);
		from(x, "Queue %s spec.deserved, status.allocated; %s spec.minResources", x->queue,
		     x->pg);
		w = VC_EXPLAIN_QUEUE_DESERVED;
	} else {
		why(x, "the PodGroup is %s: the scheduler has not admitted it (enqueue) yet",
		    blank(vc_json_get_str(json_object_get(x->in->podgroup, "status"), "phase"))
			    ? "new"
			    : "Pending");
		from(x, "%s status.phase", x->pg);
		w = VC_EXPLAIN_NOT_ENQUEUED;
	}
	detail(x, "%s status.phase: %s", x->pg,
	       blank(vc_json_get_str(json_object_get(x->in->podgroup, "status"), "phase"))
		       ? "(none)"
		       : vc_json_get_str(json_object_get(x->in->podgroup, "status"), "phase"));
	resources_str(minres, res, sizeof(res));
	detail(x, "%s spec.minResources: %s", x->pg, res);
	if (json_object_get(qspec, "capability")) {
		resources_str(json_object_get(qspec, "capability"), res, sizeof(res));
		detail(x, "Queue %s spec.capability: %s", x->queue, res);
	}
	if (json_object_get(qspec, "deserved")) {
		resources_str(json_object_get(qspec, "deserved"), res, sizeof(res));
		detail(x, "Queue %s spec.deserved: %s", x->queue, res);
	}
	resources_str(alloc, res, sizeof(res));
	detail(x, "Queue %s status.allocated: %s", x->queue, res);
	pg_conditions(x);
	if (w != VC_EXPLAIN_ENQUEUE_REJECTED)
		event_detail(x, e);
	return w;
}

/*
 * Pending pods' PodScheduled messages, each with its histogram, at most max: those the
 * scheduler found no node for (reason Unschedulable, they carry the node errors) first, then
 * the others (Schedulable: placed in a gang that did not complete). Returns how many.
 */
static int unscheduled_pods(struct ex *x, int max)
{
	const json_t *p;
	int n = 0, pass;
	size_t i;

	for (pass = 0; pass < 2; pass++) {
		json_array_foreach (x->in->pods, i, p) {
			const json_t *c = pod_unscheduled(p);
			bool unsched = c && !strcmp(str_or_empty(c, "reason"), "Unschedulable");

			if (!c || n >= max || unsched != (pass == 0))
				continue;
			detail(x, "Pod %s/%s status.conditions[type=PodScheduled]: %s: %s",
			       meta_str(p, "namespace"), meta_str(p, "name"),
			       str_or_empty(c, "reason"), str_or_empty(c, "message"));
			histogram(x, vc_json_get_str(c, "message"));
			n++;
		}
	}
	return n;
}

static enum vc_explain_why explain_gang(struct ex *x, const json_t *cond)
{
	const char *msg = str_or_empty(cond, "message");
	int64_t min = vc_json_get_int(json_object_get(x->in->podgroup, "spec"), "minMember", 0);
	long long k = -1, n = -1;

	if (!strcmp(str_or_empty(cond, "reason"), "NotEnoughTasks"))
		why(x, "the gang needs %lld tasks but only %lld pods exist to place",
		    (long long)min, (long long)count_pods(x, NULL));
	else if (sscanf(msg, "%lld/%lld tasks in gang unschedulable", &k, &n) == 2 && k <= min)
		why(x, "the gang needs %lld tasks and only %lld fit", (long long)min,
		    (long long)min - k);
	else
		why(x, "the gang of %lld tasks does not fit: %s", (long long)min, msg);
	from(x, "%s status.conditions[type=Unschedulable].message", x->pg);
	detail(x, "%s status.phase: %s", x->pg,
	       str_or_empty(json_object_get(x->in->podgroup, "status"), "phase"));
	detail(x, "%s spec.minMember: %lld", x->pg, (long long)min);
	detail(x, "%s status.conditions[type=Unschedulable]: %s: %s", x->pg,
	       str_or_empty(cond, "reason"), msg);
	histogram(x, msg);
	unscheduled_pods(x, 3);
	event_detail(x, last_event(x, "PodGroup", meta_str(x->in->podgroup, "name"),
				   "Unschedulable", NULL));
	return VC_EXPLAIN_GANG;
}

static enum vc_explain_why explain_depends_on(struct ex *x, const json_t *t, size_t idx)
{
	const json_t *names = json_object_get(json_object_get(t, "dependsOn"), "name"), *n;
	const json_t *cond = pg_condition(x->in->podgroup, "Unschedulable");
	size_t k;

	why(x, "task \"%s\" waits for %s (dependsOn): no pod of it is created until %s ready",
	    str_or_empty(t, "name"),
	    json_array_size(names) > 1 ? "its dependencies" : "the task it depends on",
	    json_array_size(names) > 1 ? "they are" : "that one is");
	from(x, "%s spec.tasks[%zu].dependsOn", x->job, idx);
	json_array_foreach (names, k, n) {
		const char *dn = json_is_string(n) ? json_string_value(n) : "";
		const json_t *dt = task_named(x, dn);

		if (!dt)
			detail(x, "%s spec.tasks: no task named \"%s\"", x->job, dn);
		else
			detail(x, "%s task %s: %d/%lld pods ready, minAvailable %lld", x->job, dn,
			       task_ready_pods(x, dt),
			       (long long)vc_json_get_int(dt, "replicas", 0),
			       (long long)vc_json_get_int(dt, "minAvailable", 0));
	}
	if (cond) {
		detail(x, "%s status.conditions[type=Unschedulable]: %s: %s", x->pg,
		       str_or_empty(cond, "reason"), str_or_empty(cond, "message"));
		histogram(x, vc_json_get_str(cond, "message"));
	}
	unscheduled_pods(x, 3);
	return VC_EXPLAIN_DEPENDS_ON;
}

static enum vc_explain_why explain_admitted(struct ex *x)
{
	const json_t *cond = pg_condition(x->in->podgroup, "Unschedulable");
	const json_t *t, *p;
	int64_t min = vc_json_get_int(json_object_get(x->in->podgroup, "spec"), "minMember", 0);
	int64_t pods = count_pods(x, NULL), replicas = total_replicas(x->in->job);
	size_t idx = 0, i;

	/*
	 * A dependsOn wait comes first when the gang cannot be whole without the waiting task's
	 * pods (fewer pods than minMember, gang invalid): the job waits for itself.
	 */
	t = waiting_task(x, &idx);
	if (t && (!cond || pods < min || !strcmp(str_or_empty(cond, "reason"), "NotEnoughTasks") ||
		  !strcmp(str_or_empty(cond, "reason"), "NotEnoughPodsOfTask")))
		return explain_depends_on(x, t, idx);
	if (cond)
		return explain_gang(x, cond);
	if (t)
		return explain_depends_on(x, t, idx);
	if (pods < replicas) {
		why(x, "the job controller is creating the pods: %lld of %lld exist",
		    (long long)pods, (long long)replicas);
		from(x, "Pods %s/%s-* (label volcano.sh/job-name)", x->in->ns, x->in->name);
		detail(x, "%s status.phase: %s", x->pg,
		       str_or_empty(json_object_get(x->in->podgroup, "status"), "phase"));
		event_detail(x, last_event(x, "Job", x->in->name, NULL, NULL));
		return VC_EXPLAIN_STARTING;
	}
	json_array_foreach (x->in->pods, i, p) {
		const json_t *st = json_object_get(p, "status");

		if (!blank(vc_json_get_str(json_object_get(p, "spec"), "nodeName")) &&
		    !strcmp(str_or_empty(st, "phase"), "Pending")) {
			why(x, "pod %s is bound to node %s but not running yet (a kubelet matter)",
			    meta_str(p, "name"),
			    vc_json_get_str(json_object_get(p, "spec"), "nodeName"));
			from(x, "Pod %s/%s status.phase", x->in->ns, meta_str(p, "name"));
			return VC_EXPLAIN_STARTING;
		}
	}
	why(x, "no reason found: the PodGroup is %s and nothing in the objects holds the job",
	    str_or_empty(json_object_get(x->in->podgroup, "status"), "phase"));
	from(x, "%s status.phase", x->pg);
	pg_conditions(x);
	unscheduled_pods(x, 3);
	return VC_EXPLAIN_UNKNOWN;
}

bool vc_explain_holds(enum vc_explain_why why)
{
	return why != VC_EXPLAIN_NOT_FOUND && why != VC_EXPLAIN_RUNNING &&
	       why != VC_EXPLAIN_COMPLETED && why != VC_EXPLAIN_UNKNOWN;
}

enum vc_explain_why vc_explain(const struct vc_explain_in *in, FILE *out, char *reason,
			       size_t reason_len)
{
	struct ex x = { in, out, reason, reason_len, NULL, "", "" };
	const json_t *status, *spec, *qstatus;
	const char *phase, *qstate;

	if (reason && reason_len)
		reason[0] = '\0';
	snprintf(x.job, sizeof(x.job), "Job %s/%s", in->ns, in->name);
	if (!in->job) {
		say(&x, "%s: not found\n", x.job);
		why(&x, "the job does not exist");
		from(&x, "%s (the API server answers NotFound)", x.job);
		return VC_EXPLAIN_NOT_FOUND;
	}
	status = json_object_get(in->job, "status");
	spec = json_object_get(in->job, "spec");
	phase = str_or_empty(json_object_get(status, "state"), "phase");
	x.queue =
		blank(vc_json_get_str(spec, "queue")) ? "default" : vc_json_get_str(spec, "queue");
	if (in->podgroup)
		snprintf(x.pg, sizeof(x.pg), "PodGroup %s/%s", in->ns,
			 meta_str(in->podgroup, "name"));
	else
		snprintf(x.pg, sizeof(x.pg), "PodGroup %s/%s-%s", in->ns, in->name,
			 meta_str(in->job, "uid"));
	say(&x, "%s: %s\n", x.job, *phase ? phase : "(no status)");

	if (!strcmp(phase, "Running")) {
		why(&x, "the job is Running: %lld of %lld pods running (minAvailable %lld)",
		    (long long)vc_json_get_int(status, "running", 0),
		    (long long)total_replicas(in->job),
		    (long long)vc_json_get_int(spec, "minAvailable", 0));
		from(&x, "%s status.state.phase", x.job);
		return VC_EXPLAIN_RUNNING;
	}
	if (!strcmp(phase, "Completed")) {
		why(&x, "the job is Completed: %lld pods succeeded",
		    (long long)vc_json_get_int(status, "succeeded", 0));
		from(&x, "%s status.state.phase", x.job);
		return VC_EXPLAIN_COMPLETED;
	}
	if (*phase && strcmp(phase, "Pending"))
		return explain_phase(&x, phase);

	if (!in->queue) {
		why(&x, "queue \"%s\" does not exist", x.queue);
		from(&x, "%s spec.queue", x.job);
		detail(&x, "Queue %s: not found", x.queue);
		event_detail(&x, last_event(&x, "Job", in->name, NULL, NULL));
		return VC_EXPLAIN_QUEUE_MISSING;
	}
	qstatus = json_object_get(in->queue, "status");
	qstate = str_or_empty(qstatus, "state");
	if (!strcmp(qstate, "Closed") || !strcmp(qstate, "Closing")) {
		why(&x, "queue \"%s\" is %s: it admits no job", x.queue, qstate);
		from(&x, "Queue %s status.state", x.queue);
		detail(&x, "%s spec.queue: %s", x.job, x.queue);
		if (in->podgroup)
			detail(&x, "%s status.phase: %s", x.pg,
			       str_or_empty(json_object_get(in->podgroup, "status"), "phase"));
		return VC_EXPLAIN_QUEUE_CLOSED;
	}
	if (!*phase) {
		why(&x, "the job was never admitted: it has no status (the job controller has not "
			"synced it)");
		from(&x, "%s status.state.phase", x.job);
		event_detail(&x, last_event(&x, "Job", in->name, NULL, NULL));
		return VC_EXPLAIN_NO_STATUS;
	}
	if (!in->podgroup) {
		why(&x, "the job has no PodGroup: the job controller has not created it");
		from(&x, "%s (not found)", x.pg);
		event_detail(&x, last_event(&x, "Job", in->name, NULL, NULL));
		return VC_EXPLAIN_NO_PODGROUP;
	}
	{
		const char *pgphase =
			str_or_empty(json_object_get(in->podgroup, "status"), "phase");

		if (!*pgphase || !strcmp(pgphase, "Pending"))
			return explain_not_enqueued(&x);
	}
	return explain_admitted(&x);
}
