/*
 * libFuzzer target: arbitrary bytes as a JSON object read by the typed views of vc_model (the
 * Job with its tasks and lifecycle policies, Command, PodGroup, Queue, Pod, Node). Every one of
 * them comes from the API server, where any user who may create the object chooses its fields,
 * and the controller must never trust that a webhook ran (docs/volcano/job-controller.md §6.1).
 *
 * The first byte picks the view; the rest is the object's JSON. The contract: no crash, no
 * undefined behaviour, no leak; a view fails only with VC_EINVALID or VC_ENOMEM (and is left
 * empty then); a Job view keeps the defaults vc_model.h promises (maxRetry and task maxRetry
 * never 0, at most 4096 tasks, names present, policies' events known or UNKNOWN, at most
 * VC_EVENT_COUNT each, task lookup by name finding the first task of that name).
 */
#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"
#include "vc_json.h"
#include "vc_model.h"
#include "vc_resource.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_policies(const struct vc_policies *p)
{
	size_t i, j;

	if (p->count && !p->items)
		abort();
	for (i = 0; i < p->count; i++) {
		const struct vc_policy *pol = &p->items[i];

		if (pol->nevents > VC_EVENT_COUNT)
			abort();
		for (j = 0; j < pol->nevents; j++)
			(void)vc_bus_event_name(pol->events[j]);
		(void)vc_bus_action_name(pol->action);
		(void)vc_bus_action_is_external(pol->action);
		if (pol->has_timeout && pol->timeout_ns < 0)
			abort();
	}
}

static void check_job(const json_t *obj)
{
	struct vc_job job;
	struct vc_error err;
	size_t i;
	int rc;

	vc_error_clear(&err);
	rc = vc_job_view(obj, &job, &err);
	if (rc) {
		if ((rc != VC_EINVALID && rc != VC_ENOMEM) || err.code != rc || job.obj ||
		    job.ntasks)
			abort();
		return;
	}
	if (job.max_retry == 0 || job.ntasks > 4096 || !job.queue || !job.scheduler_name)
		abort();
	check_policies(&job.policies);
	(void)vc_job_phase_name(job.status.phase);
	(void)vc_job_phase_is_finished(job.status.phase);
	for (i = 0; i < job.ntasks; i++) {
		const struct vc_task *t = &job.tasks[i];
		const struct vc_task *found;

		if (!t->name || t->max_retry == 0 || (t->ndepends_on && !t->depends_on))
			abort();
		check_policies(&t->policies);
		found = vc_job_task(&job, t->name);
		if (!found || found > t || strcmp(found->name, t->name))
			abort();
	}
	vc_job_view_release(&job);
}

static void check_command(const json_t *obj)
{
	struct vc_command cmd;
	struct vc_error err;
	int rc;

	rc = vc_command_view(obj, &cmd, &err);
	if (rc) {
		if (rc != VC_EINVALID && rc != VC_ENOMEM)
			abort();
		return;
	}
	if (!cmd.target_api_version || !cmd.target_kind || !cmd.target_name || !cmd.reason)
		abort();
	(void)vc_command_targets_job(&cmd);
	vc_command_view_release(&cmd);
}

static void check_podgroup(const json_t *obj)
{
	struct vc_podgroup pg;
	struct vc_error err;
	int rc;

	rc = vc_podgroup_view(obj, &pg, &err);
	if (rc) {
		if (rc != VC_EINVALID && rc != VC_ENOMEM)
			abort();
		return;
	}
	if (!pg.queue || !*pg.queue)
		abort();
	(void)vc_podgroup_min_task_member(&pg, "worker");
	(void)vc_pg_phase_name(pg.phase);
	vc_podgroup_view_release(&pg);
}

static void check_queue(const json_t *obj)
{
	struct vc_queue q;
	struct vc_error err;
	int rc;

	rc = vc_queue_view(obj, &q, &err);
	if (rc) {
		if (rc != VC_EINVALID && rc != VC_ENOMEM)
			abort();
		return;
	}
	if (q.weight == 0 || !q.parent)
		abort();
	(void)vc_queue_state_name(q.state);
	vc_queue_view_release(&q);
}

static void check_pod(const json_t *obj)
{
	struct vc_resource req;
	struct vc_error err;
	struct vc_pod pod;
	int rc;

	rc = vc_pod_view(obj, &pod, &err);
	if (rc) {
		if (rc != VC_EINVALID && rc != VC_ENOMEM)
			abort();
	} else {
		if (!pod.node_name || !pod.scheduler_name || !pod.restart_policy)
			abort();
		(void)vc_pod_phase_name(pod.phase);
		vc_pod_view_release(&pod);
	}
	/* The request of the spec alone, as the webhook and the scheduler compute it. */
	vc_resource_init(&req);
	rc = vc_pod_spec_request(vc_json_get_obj(obj, "spec"), &req, &err);
	if (rc && rc != VC_EINVALID && rc != VC_ENOMEM)
		abort();
	vc_resource_release(&req);
}

static void check_node(const json_t *obj)
{
	struct vc_node node;
	struct vc_error err;
	int rc;

	rc = vc_node_view(obj, &node, &err);
	if (rc) {
		if (rc != VC_EINVALID && rc != VC_ENOMEM)
			abort();
		return;
	}
	vc_node_view_release(&node);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *obj;

	if (size < 1 || size > 256 * 1024)
		return 0;
	if (vc_json_parse((const char *)data + 1, size - 1, 0, &obj, NULL))
		return 0;
	switch (data[0] % 6) {
	case 0:
		check_job(obj);
		break;
	case 1:
		check_command(obj);
		break;
	case 2:
		check_podgroup(obj);
		break;
	case 3:
		check_queue(obj);
		break;
	case 4:
		check_pod(obj);
		break;
	default:
		check_node(obj);
		break;
	}
	json_decref(obj);
	return 0;
}
