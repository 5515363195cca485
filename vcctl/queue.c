/*
 * queue.c - vcctl queue create / delete / operate / list / get (Volcano's pkg/cli/queue).
 */
#include "vcctl.h"

#include "vc_json.h"

#define QUEUE_API_VERSION "scheduling.volcano.sh/v1beta1"
#define QUEUE_KIND	  "Queue"
/* Volcano creates the Commands of cluster-scoped Queues in this namespace. */
#define QUEUE_COMMAND_NS "default"

/* PodGroup counts of one queue by phase (Volcano's PodGroupStatistics). */
struct pg_stats {
	int inqueue, pending, running, unknown, completed;
};

static void count_podgroups(const json_t *podgroups, const char *queue, struct pg_stats *st)
{
	const json_t *pg;
	size_t i;

	memset(st, 0, sizeof(*st));
	json_array_foreach (json_object_get(podgroups, "items"), i, pg) {
		const char *q = vc_json_get_str(json_object_get(pg, "spec"), "queue");
		const char *phase = vc_json_get_str(json_object_get(pg, "status"), "phase");

		if (!q || strcmp(q, queue) || !phase)
			continue;
		if (!strcmp(phase, "Inqueue"))
			st->inqueue++;
		else if (!strcmp(phase, "Pending"))
			st->pending++;
		else if (!strcmp(phase, "Running"))
			st->running++;
		else if (!strcmp(phase, "Unknown"))
			st->unknown++;
		else if (!strcmp(phase, "Completed"))
			st->completed++;
	}
}

static const char *str_or_empty(const json_t *obj, const char *key)
{
	const char *s = vc_json_get_str(obj, key);

	return s ? s : "";
}

void vcctl_print_queues(const json_t *queues, const json_t *podgroups, FILE *out)
{
	const json_t *q;
	size_t i;

	/* Volcano HEAD's layout: the Parent column after State, as in `queue get`. */
	fprintf(out, "%-25s%-8s%-8s%-8s%-8s%-8s%-8s%-8s%-8s\n", "Name", "Weight", "State", "Parent",
		"Inqueue", "Pending", "Running", "Unknown", "Completed");
	json_array_foreach (json_object_get(queues, "items"), i, q) {
		const char *name = str_or_empty(json_object_get(q, "metadata"), "name");
		const json_t *spec = json_object_get(q, "spec");
		struct pg_stats st;

		count_podgroups(podgroups, name, &st);
		fprintf(out, "%-25s%-8d%-8s%-8s%-8d%-8d%-8d%-8d%-8d\n", name,
			(int)vc_json_get_int(spec, "weight", 0),
			str_or_empty(json_object_get(q, "status"), "state"),
			str_or_empty(spec, "parent"), st.inqueue, st.pending, st.running,
			st.unknown, st.completed);
	}
}

void vcctl_print_queue(const json_t *queue, const json_t *podgroups, FILE *out)
{
	const char *name = str_or_empty(json_object_get(queue, "metadata"), "name");
	const json_t *spec = json_object_get(queue, "spec");
	struct pg_stats st;

	count_podgroups(podgroups, name, &st);
	fprintf(out, "%-25s%-8s%-8s%-8s%-8s%-8s%-8s%-8s%-8s\n", "Name", "Weight", "State", "Parent",
		"Inqueue", "Pending", "Running", "Unknown", "Completed");
	fprintf(out, "%-25s%-8d%-8s%-8s%-8d%-8d%-8d%-8d%-8d\n", name,
		(int)vc_json_get_int(spec, "weight", 0),
		str_or_empty(json_object_get(queue, "status"), "state"),
		str_or_empty(spec, "parent"), st.inqueue, st.pending, st.running, st.unknown,
		st.completed);
}

/*
 * vqueues (Volcano's pkg/cli/vqueues): the older layout without Parent and Completed, counts
 * from the Queue's own status; queue is one Queue, or a QueueList when list.
 */
static void print_vqueues(const json_t *queue, bool list, FILE *out)
{
	const json_t *q;
	size_t i;

	fprintf(out, "%-25s%-8s%-8s%-8s%-8s%-8s%-8s\n", "Name", "Weight", "State", "Inqueue",
		"Pending", "Running", "Unknown");
	for (i = 0; list ? i < json_array_size(json_object_get(queue, "items")) : i < 1; i++) {
		const json_t *st;

		q = list ? json_array_get(json_object_get(queue, "items"), i) : queue;
		st = json_object_get(q, "status");
		fprintf(out, "%-25s%-8d%-8s%-8d%-8d%-8d%-8d\n",
			str_or_empty(json_object_get(q, "metadata"), "name"),
			(int)vc_json_get_int(json_object_get(q, "spec"), "weight", 0),
			str_or_empty(st, "state"), (int)vc_json_get_int(st, "inqueue", 0),
			(int)vc_json_get_int(st, "pending", 0),
			(int)vc_json_get_int(st, "running", 0),
			(int)vc_json_get_int(st, "unknown", 0));
	}
}

static bool is_vqueues(const struct vcctl_opts *o)
{
	return o->alias && !strcmp(o->alias, "vqueues");
}

int vcctl_queue_check(const struct vcctl_opts *o, struct vc_error *err)
{
	switch (o->cmd) {
	case VCCTL_QUEUE_GET:
		if (!o->name || !*o->name)
			return vc_error_set(
				err, VC_EINVAL,
				"name is mandatory to get the particular queue details");
		return 0;
	case VCCTL_QUEUE_DELETE:
		if (!o->name || !*o->name)
			return vc_error_set(err, VC_EINVAL, "queue name must be specified");
		return 0;
	case VCCTL_QUEUE_OPERATE:
		if (!o->name || !*o->name)
			return vc_error_set(err, VC_EINVAL, "queue name must be specified");
		if (!o->action || !*o->action)
			return vc_error_set(err, VC_EINVAL, "action can not be null");
		if (!strcmp(o->action, "open") || !strcmp(o->action, "close"))
			return 0;
		if (strcmp(o->action, "update"))
			return vc_error_set(err, VC_EINVAL,
					    "action %s invalid, valid actions are open, close and "
					    "update",
					    o->action);
		if (o->weight == 0)
			return vc_error_set(err, VC_EINVAL,
					    "when update queue %s, weight must be specified, the "
					    "value must be greater than 0",
					    o->name);
		return 0;
	default:
		return 0;
	}
}

static int queue_create(const struct vcctl_opts *o, struct vc_kube *kube, struct vc_error *err)
{
	json_t *q;
	int rc;

	q = json_pack("{s:s, s:s, s:{s:s}, s:{}, s:{}}", "apiVersion", QUEUE_API_VERSION, "kind",
		      QUEUE_KIND, "metadata", "name", o->name ? o->name : "", "spec", "status");
	if (!q)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	/* Go's omitempty: a zero weight and an empty state are not sent. */
	if ((o->weight &&
	     json_object_set_new(json_object_get(q, "spec"), "weight", json_integer(o->weight))) ||
	    (o->state && *o->state &&
	     json_object_set_new(json_object_get(q, "status"), "state", json_string(o->state)))) {
		json_decref(q);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	rc = vc_kube_create(kube, &vc_gvr_queues, NULL, NULL, NULL, q, NULL, err);
	json_decref(q);
	return rc;
}

static int queue_operate(const struct vcctl_opts *o, struct vc_kube *kube, struct vc_error *err)
{
	json_t *queue = NULL, *cmd = NULL;
	int rc;

	if (!strcmp(o->action, "update")) {
		json_t *patch = json_pack("{s:{s:i}}", "spec", "weight", o->weight);

		if (!patch)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		rc = vc_kube_patch(kube, &vc_gvr_queues, NULL, o->name, NULL, VC_PATCH_MERGE, patch,
				   NULL, err);
		json_decref(patch);
		return rc;
	}
	rc = vc_kube_get(kube, &vc_gvr_queues, NULL, o->name, NULL, &queue, err);
	if (!rc)
		rc = vcctl_command_new(queue, QUEUE_API_VERSION, QUEUE_KIND, NULL,
				       !strcmp(o->action, "open") ? "OpenQueue" : "CloseQueue",
				       &cmd, err);
	if (!rc)
		rc = vc_kube_create(kube, &vc_gvr_commands, QUEUE_COMMAND_NS, NULL, NULL, cmd, NULL,
				    err);
	json_decref(queue);
	json_decref(cmd);
	return rc;
}

int vcctl_queue_exec(const struct vcctl_opts *o, struct vc_kube *kube, FILE *out,
		     struct vc_error *err)
{
	json_t *queues = NULL, *pgs = NULL;
	struct vc_error sub;
	int rc;

	rc = vcctl_queue_check(o, err);
	if (rc)
		return rc;
	switch (o->cmd) {
	case VCCTL_QUEUE_CREATE:
		return queue_create(o, kube, err);
	case VCCTL_QUEUE_DELETE:
		return vc_kube_delete(kube, &vc_gvr_queues, NULL, o->name, NULL, err);
	case VCCTL_QUEUE_OPERATE:
		return queue_operate(o, kube, err);
	case VCCTL_QUEUE_LIST:
		rc = vc_kube_list(kube, &vc_gvr_queues, NULL, NULL, &queues, err);
		if (rc)
			return rc;
		if (!json_array_size(json_object_get(queues, "items")) || is_vqueues(o)) {
			if (json_array_size(json_object_get(queues, "items")))
				print_vqueues(queues, true, out);
			else
				fprintf(out, "No resources found\n");
			json_decref(queues);
			return 0;
		}
		vc_error_clear(&sub);
		rc = vc_kube_list(kube, &vc_gvr_podgroups, NULL, NULL, &pgs, &sub);
		if (rc)
			vc_error_set(err, rc, "failed to list podgroups with err: %s", sub.text);
		else
			vcctl_print_queues(queues, pgs, out);
		json_decref(queues);
		json_decref(pgs);
		return rc;
	case VCCTL_QUEUE_GET:
		rc = vc_kube_get(kube, &vc_gvr_queues, NULL, o->name, NULL, &queues, err);
		if (rc)
			return rc;
		if (is_vqueues(o)) {
			print_vqueues(queues, false, out);
			json_decref(queues);
			return 0;
		}
		vc_error_clear(&sub);
		rc = vc_kube_list(kube, &vc_gvr_podgroups, NULL, NULL, &pgs, &sub);
		if (rc)
			vc_error_set(err, rc, "failed to list podgroup for queue %s with err: %s",
				     o->name, sub.text);
		else
			vcctl_print_queue(queues, pgs, out);
		json_decref(queues);
		json_decref(pgs);
		return rc;
	default:
		return vc_error_set(err, VC_EINVAL, "not a queue command");
	}
}
