/*
 * pod.c - vcctl pod list (Volcano HEAD's pkg/cli/pod): the pods of vcjobs, of one job (-j) or
 * of one queue (-q), in a table whose Status and Restart columns follow kubectl's pod printer.
 */
#include "vcctl.h"

#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_time.h"

#define POD_JOB_LABEL	     "volcano.sh/job-name"
#define POD_QUEUE_LABEL	     "volcano.sh/queue-name"
#define POD_QUEUE_ANNOTATION "scheduling.volcano.sh/queue-name"
#define POD_COLUMN_SPACING   8
#define POD_REASON_MAX	     256

static const char *str_or_empty(const json_t *obj, const char *key)
{
	const char *s = vc_json_get_str(obj, key);

	return s ? s : "";
}

static bool blank(const char *s)
{
	return !s || !*s;
}

/* One row of the table. name points into the pod. */
struct pod_row {
	const char *name;
	char ready[32];
	char status[POD_REASON_MAX];
	char restarts[64];
	char age[32];
};

/* The time at key of obj in ns since the epoch; false when it is missing (Go's zero time). */
static bool time_of(const json_t *obj, const char *key, int64_t *ns)
{
	const char *s = vc_json_get_str(obj, key);
	int64_t sec;
	int32_t nsec;

	if (!s || vc_time_parse_rfc3339(s, &sec, &nsec, NULL))
		return false;
	*ns = sec * VC_NSEC_PER_SEC + nsec;
	return true;
}

/* A later lastState.terminated.finishedAt of the container status cs moves *last. */
static void note_restart(const json_t *cs, bool *have, int64_t *last)
{
	const json_t *term = json_object_get(json_object_get(cs, "lastState"), "terminated");
	int64_t t;

	if (term && time_of(term, "finishedAt", &t) && (!*have || t > *last)) {
		*have = true;
		*last = t;
	}
}

/* A sidecar: an init container with restartPolicy Always. */
static bool restartable_init(const json_t *spec, const char *name)
{
	const json_t *c;
	size_t i;

	json_array_foreach (json_object_get(spec, "initContainers"), i, c) {
		if (!strcmp(str_or_empty(c, "name"), name))
			return !strcmp(str_or_empty(c, "restartPolicy"), "Always");
	}
	return false;
}

static bool condition_true(const json_t *status, const char *type)
{
	const json_t *c;
	size_t i;

	json_array_foreach (json_object_get(status, "conditions"), i, c) {
		if (!strcmp(str_or_empty(c, "type"), type))
			return !strcmp(str_or_empty(c, "status"), "True");
	}
	return false;
}

/* The reason of a terminated state without one: Signal:N or ExitCode:N, with prefix. */
static void exit_reason(const json_t *term, const char *prefix, char *buf, size_t len)
{
	int64_t sig = vc_json_get_int(term, "signal", 0);

	if (sig)
		snprintf(buf, len, "%sSignal:%lld", prefix, (long long)sig);
	else
		snprintf(buf, len, "%sExitCode:%lld", prefix,
			 (long long)vc_json_get_int(term, "exitCode", 0));
}

/* kubectl's printPod as Volcano HEAD copies it: the Ready, Status and Restart columns. */
static void pod_row(const json_t *pod, int64_t now_ns, struct pod_row *r)
{
	const json_t *meta = json_object_get(pod, "metadata");
	const json_t *spec = json_object_get(pod, "spec");
	const json_t *status = json_object_get(pod, "status");
	const json_t *ics = json_object_get(status, "initContainerStatuses");
	const json_t *cstats = json_object_get(status, "containerStatuses");
	const char *phase = str_or_empty(status, "phase");
	int64_t restarts = 0, sidecar_restarts = 0, last = 0, sidecar_last = 0;
	bool have_last = false, have_sidecar_last = false, initializing = false;
	size_t total = json_array_size(json_object_get(spec, "containers")), ready = 0, i;
	const json_t *c;

	r->name = str_or_empty(meta, "name");
	snprintf(r->status, sizeof(r->status), "%s",
		 blank(vc_json_get_str(status, "reason")) ? phase
							  : vc_json_get_str(status, "reason"));
	json_array_foreach (json_object_get(status, "conditions"), i, c) {
		if (!strcmp(str_or_empty(c, "type"), "PodScheduled") &&
		    !strcmp(str_or_empty(c, "reason"), "SchedulingGated"))
			snprintf(r->status, sizeof(r->status), "SchedulingGated");
	}
	json_array_foreach (json_object_get(spec, "initContainers"), i, c) {
		if (!strcmp(str_or_empty(c, "restartPolicy"), "Always"))
			total++;
	}

	json_array_foreach (ics, i, c) {
		const json_t *state = json_object_get(c, "state");
		const json_t *term = json_object_get(state, "terminated");
		const json_t *wait = json_object_get(state, "waiting");
		bool sidecar = restartable_init(spec, str_or_empty(c, "name"));
		int64_t n = vc_json_get_int(c, "restartCount", 0);

		restarts += n;
		note_restart(c, &have_last, &last);
		if (sidecar) {
			sidecar_restarts += n;
			note_restart(c, &have_sidecar_last, &sidecar_last);
		}
		if (term && vc_json_get_int(term, "exitCode", 0) == 0)
			continue;
		if (sidecar && json_is_true(json_object_get(c, "started"))) {
			if (json_is_true(json_object_get(c, "ready")))
				ready++;
			continue;
		}
		initializing = true;
		if (term && blank(vc_json_get_str(term, "reason")))
			exit_reason(term, "Init:", r->status, sizeof(r->status));
		else if (term)
			snprintf(r->status, sizeof(r->status), "Init:%s",
				 vc_json_get_str(term, "reason"));
		else if (wait && !blank(vc_json_get_str(wait, "reason")) &&
			 strcmp(vc_json_get_str(wait, "reason"), "PodInitializing"))
			snprintf(r->status, sizeof(r->status), "Init:%s",
				 vc_json_get_str(wait, "reason"));
		else
			snprintf(r->status, sizeof(r->status), "Init:%zu/%zu", i,
				 json_array_size(json_object_get(spec, "initContainers")));
		break;
	}

	if (!initializing || condition_true(status, "Initialized")) {
		bool running = false;

		restarts = sidecar_restarts;
		last = sidecar_last;
		have_last = have_sidecar_last;
		for (i = json_array_size(cstats); i-- > 0;) {
			const json_t *state;
			const json_t *term, *wait;

			c = json_array_get(cstats, i);
			state = json_object_get(c, "state");
			term = json_object_get(state, "terminated");
			wait = json_object_get(state, "waiting");
			restarts += vc_json_get_int(c, "restartCount", 0);
			note_restart(c, &have_last, &last);
			if (wait && !blank(vc_json_get_str(wait, "reason")))
				snprintf(r->status, sizeof(r->status), "%s",
					 vc_json_get_str(wait, "reason"));
			else if (term && !blank(vc_json_get_str(term, "reason")))
				snprintf(r->status, sizeof(r->status), "%s",
					 vc_json_get_str(term, "reason"));
			else if (term)
				exit_reason(term, "", r->status, sizeof(r->status));
			else if (json_is_true(json_object_get(c, "ready")) &&
				 json_object_get(state, "running")) {
				running = true;
				ready++;
			}
		}
		/* A pod whose containers still run is not Completed. */
		if (!strcmp(r->status, "Completed") && running)
			snprintf(r->status, sizeof(r->status), "%s",
				 condition_true(status, "Ready") ? "Running" : "NotReady");
	}

	if (json_object_get(meta, "deletionTimestamp")) {
		if (!strcmp(str_or_empty(status, "reason"), "NodeLost"))
			snprintf(r->status, sizeof(r->status), "Unknown");
		else if (strcmp(phase, "Succeeded") && strcmp(phase, "Failed"))
			snprintf(r->status, sizeof(r->status), "Terminating");
	}

	snprintf(r->ready, sizeof(r->ready), "%zu/%zu", ready, total);
	if (restarts && have_last) {
		char ago[32];

		vc_duration_human(now_ns - last, ago, sizeof(ago));
		snprintf(r->restarts, sizeof(r->restarts), "%lld (%s ago)", (long long)restarts,
			 ago);
	} else {
		snprintf(r->restarts, sizeof(r->restarts), "%lld", (long long)restarts);
	}
	vcctl_since(json_object_get(meta, "creationTimestamp"), now_ns, r->age, sizeof(r->age));
}

static int max_int(int a, size_t b)
{
	return (size_t)a > b ? a : (int)b;
}

void vcctl_print_pods(const json_t *pods, int64_t now_ns, FILE *out)
{
	const json_t *items = json_object_get(pods, "items");
	size_t i, n = json_array_size(items);
	int w[5] = { 0 };
	struct pod_row *rows;

	rows = vc_calloc(n ? n : 1, sizeof(*rows));
	if (!rows) {
		fprintf(out, "Failed to print Pod information: out of memory.\n");
		return;
	}
	for (i = 0; i < n; i++) {
		pod_row(json_array_get(items, i), now_ns, &rows[i]);
		w[0] = max_int(w[0], strlen(rows[i].name));
		w[1] = max_int(w[1], strlen(rows[i].ready));
		w[2] = max_int(w[2], strlen(rows[i].status));
		w[3] = max_int(w[3], strlen(rows[i].restarts));
		w[4] = max_int(w[4], strlen(rows[i].age));
	}
	/* The widths come from the values only, as in Volcano: a header may fill its column. */
	for (i = 0; i < VC_ARRAY_SIZE(w); i++)
		w[i] += POD_COLUMN_SPACING;
	fprintf(out, "%-*s%-*s%-*s%-*s%-*s\n", w[0], "Name", w[1], "Ready", w[2], "Status", w[3],
		"Restart", w[4], "Age");
	for (i = 0; i < n; i++)
		fprintf(out, "%-*s%-*s%-*s%-*s%-*s\n", w[0], rows[i].name, w[1], rows[i].ready,
			w[2], rows[i].status, w[3], rows[i].restarts, w[4], rows[i].age);
	vc_free(rows);
}

/* ---- pod list ----------------------------------------------------------------------------- */

static const char *label_of(const json_t *pod, const char *key)
{
	return vc_json_get_str(json_object_get(json_object_get(pod, "metadata"), "labels"), key);
}

static const char *annotation_of(const json_t *pod, const char *key)
{
	return vc_json_get_str(json_object_get(json_object_get(pod, "metadata"), "annotations"),
			       key);
}

static bool has_pod_named(const json_t *items, const char *name)
{
	const json_t *p;
	size_t i;

	json_array_foreach (items, i, p) {
		if (!strcmp(str_or_empty(json_object_get(p, "metadata"), "name"), name))
			return true;
	}
	return false;
}

/*
 * The pods of queue q among all (borrowed): first those with the job controller's queue-name
 * label, then those of other workloads with only the queue annotation, each name once (Volcano
 * HEAD's filterPodsByLabel, filterPodsByAnnotation and appendIfNotExists). A new list.
 */
static json_t *queue_pods(const json_t *all, const char *q)
{
	json_t *res = json_pack("{s:[]}", "items"), *items = json_object_get(res, "items");
	const json_t *p;
	size_t i;

	if (!res)
		return NULL;
	json_array_foreach (json_object_get(all, "items"), i, p) {
		const char *v = label_of(p, POD_QUEUE_LABEL);

		if (v && !strcmp(v, q) && json_array_append((json_t *)items, (json_t *)p))
			goto nomem;
	}
	json_array_foreach (json_object_get(all, "items"), i, p) {
		const char *v = annotation_of(p, POD_QUEUE_ANNOTATION);

		if (v && !strcmp(v, q) &&
		    !has_pod_named(items, str_or_empty(json_object_get(p, "metadata"), "name")) &&
		    json_array_append(items, (json_t *)p))
			goto nomem;
	}
	return res;
nomem:
	json_decref(res);
	return NULL;
}

int vcctl_pod_exec(const struct vcctl_opts *o, struct vc_kube *kube, FILE *out,
		   struct vc_error *err)
{
	const char *ns = o->all_namespaces || blank(o->namespace) ? NULL : o->namespace;
	struct vc_list_opts lo = { 0 };
	json_t *all = NULL, *shown = NULL;
	char *sel = NULL;
	int rc;

	if (o->cmd != VCCTL_POD_LIST)
		return vc_error_set(err, VC_EINVAL, "not a pod command");
	if (!blank(o->job)) {
		/* A job's pods: its queue is the job's, so -q can only confirm it. */
		sel = vc_asprintf(POD_JOB_LABEL " in (%s)", o->job);
		if (!sel)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		lo.label_selector = sel;
	} else if (blank(o->queue)) {
		lo.label_selector = POD_JOB_LABEL; /* every vcjob's pods */
	}
	rc = vc_kube_list(kube, &vc_gvr_pods, ns, &lo, &all, err);
	vc_free(sel);
	if (rc)
		return rc;
	if (!blank(o->job) && !blank(o->queue)) {
		const json_t *p;
		size_t i;

		json_array_foreach (json_object_get(all, "items"), i, p) {
			const char *v = label_of(p, POD_QUEUE_LABEL);

			if (v && strcmp(v, o->queue)) {
				rc = vc_error_set(err, VC_EINVAL,
						  "the input vcjob %s does not match the queue %s",
						  o->job, o->queue);
				goto out;
			}
		}
	}
	if (blank(o->job) && !blank(o->queue)) {
		shown = queue_pods(all, o->queue);
		if (!shown) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto out;
		}
	} else {
		shown = json_incref(all);
	}
	if (!json_array_size(json_object_get(shown, "items")))
		fprintf(out, "No resources found\n");
	else
		vcctl_print_pods(shown, vc_time_now_ns(), out);
out:
	json_decref(shown);
	json_decref(all);
	return rc;
}
