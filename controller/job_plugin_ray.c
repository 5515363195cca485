/*
 * job_plugin_ray.c - the ray job plugin (docs/volcano/job-controller.md §5.7): the head task's
 * container starts a Ray head with its three ports declared, the worker task's container joins
 * it, and Service `<job>-head-svc` fronts the head. Volcano v1.7 has no such plugin; this follows
 * the spec.
 */
#include "job_plugin.h"

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_str.h"

struct ray_args {
	const char *head, *head_container, *worker, *worker_container;
	int64_t port, dashboard_port, client_port;
};

static void ray_parse(const struct vc_job *job, struct ray_args *a, struct vc_error *warn)
{
	const struct job_flag f[] = {
		{ "head", JOB_FLAG_STRING, &a->head },
		{ "headContainer", JOB_FLAG_STRING, &a->head_container },
		{ "worker", JOB_FLAG_STRING, &a->worker },
		{ "workerContainer", JOB_FLAG_STRING, &a->worker_container },
		{ "port", JOB_FLAG_INT, &a->port },
		{ "dashboardPort", JOB_FLAG_INT, &a->dashboard_port },
		{ "clientPort", JOB_FLAG_INT, &a->client_port },
	};

	*a = (struct ray_args){ "head", "head", "worker", "worker", 6379, 8265, 10001 };
	jp_parse_args(job, VC_JOB_PLUGIN_RAY, f, VC_ARRAY_SIZE(f), warn);
}

/* The three ports, in the order they are declared and exposed. */
#define RAY_NPORTS 3

static void ray_ports(const struct ray_args *a, struct jp_port_ctx out[RAY_NPORTS])
{
	out[0] = (struct jp_port_ctx){ "gcs", a->port };
	out[1] = (struct jp_port_ctx){ "dashboard", a->dashboard_port };
	out[2] = (struct jp_port_ctx){ "client-server", a->client_port };
}

/* Replace the container's command by ["sh", "-c", script] (script is stolen). */
static int set_shell_command(json_t *c, char *script)
{
	json_t *cmd = script ? json_pack("[s, s, s]", "sh", "-c", script) : NULL;

	vc_free(script);
	return cmd && !json_object_set_new(c, "command", cmd) ? 0 : VC_ENOMEM;
}

/*
 * The head container: each port whose number the container does not declare yet is added (the
 * check looks at the container's own ports only, before any is added), then the head command.
 */
static int ray_head_container(json_t *c, const struct ray_args *a, struct vc_error *err)
{
	struct jp_port_ctx ports[RAY_NPORTS];
	bool has[RAY_NPORTS] = { false };
	json_t *list = json_object_get(c, "ports"), *p;
	size_t i, k;

	if (list && !json_is_array(list))
		return vc_error_set(err, VC_EINVALID, "container ports: must be an array");
	ray_ports(a, ports);
	json_array_foreach (list, i, p)
		for (k = 0; k < RAY_NPORTS; k++)
			if (vc_json_get_int(p, "containerPort", -1) == ports[k].port)
				has[k] = true;
	for (k = 0; k < RAY_NPORTS; k++) {
		if (has[k])
			continue;
		list = jp_get_or_add_array(c, "ports");
		if (!list ||
		    jp_append_new(list, json_pack("{s:s, s:I}", "name", ports[k].name,
						  "containerPort", (json_int_t)ports[k].port)))
			return VC_ENOMEM;
	}
	return set_shell_command(c,
				 vc_asprintf("ray start --head --block "
					     "--dashboard-host=0.0.0.0 --port=%lld "
					     "--dashboard-port=%lld --ray-client-server-port=%lld",
					     (long long)a->port, (long long)a->dashboard_port,
					     (long long)a->client_port));
}

static int ray_pod(const struct vc_job *job, json_t *pod, struct vc_error *warn,
		   struct vc_error *err)
{
	struct ray_args a;
	const struct vc_task *head;
	const char *task = jp_nonempty_or(jp_pod_task(pod), "");
	json_t *containers = vc_json_path(pod, "spec.containers"), *c;
	char *addr = NULL;
	size_t i;
	int rc = 0;

	ray_parse(job, &a, warn);
	head = vc_job_task(job, a.head);
	/* docs/volcano/job-controller.md §8.34: without a head task no pod of the job is made. */
	if (!head)
		return vc_error_set(err, VC_EINVALID, "job %s doesn't have head task %s",
				    job->meta.name, a.head);
	if (containers && !json_is_array(containers))
		return vc_error_set(err, VC_EINVALID, "pod spec.containers: must be an array");
	/* A task may be both head and worker, and the two container names may be the same. */
	json_array_foreach (containers, i, c) {
		const char *name;

		if (!json_is_object(c))
			return vc_error_set(err, VC_EINVALID,
					    "pod spec.containers[%zu]: must be an object", i);
		name = vc_json_get_str(c, "name");
		if (strcmp(task, a.head) == 0 && vc_str_eq(name, a.head_container) &&
		    (rc = ray_head_container(c, &a, err)))
			break;
		if (strcmp(task, a.worker) != 0 || !vc_str_eq(name, a.worker_container))
			continue;
		if (!addr && !(addr = jp_first_host(job, head))) {
			rc = VC_ENOMEM;
			break;
		}
		if ((rc = set_shell_command(c, vc_asprintf("ray start --block --address=%s:%lld",
							   addr, (long long)a.port))))
			break;
	}
	vc_free(addr);
	return rc;
}

static char *head_svc_name(const struct vc_job *job)
{
	return jp_obj_name(job, "-head-svc");
}

/* Service `<job>-head-svc`: ClusterIP, the head task's pods, each port aimed at its name. */
static int ray_job_add(const struct vc_job *job, const struct job_keygen *keygen,
		       struct job_plugin_actions *out, struct vc_error *warn, struct vc_error *err)
{
	struct ray_args a;
	struct jp_port_ctx ports[RAY_NPORTS];
	char *name = head_svc_name(job);
	json_t *svc = name ? jp_new_owned(job, "v1", "Service", name) : NULL, *sel, *list;
	size_t k;
	int rc = VC_ENOMEM;

	(void)keygen;
	(void)err;
	ray_parse(job, &a, warn);
	ray_ports(&a, ports);
	sel = jp_job_selector(job);
	list = json_array();
	if (!svc || !sel || !list || jp_set_str(sel, JOB_KEY_TASK_SPEC, a.head))
		goto out;
	for (k = 0; k < RAY_NPORTS; k++)
		if (jp_append_new(list, json_pack("{s:s, s:I, s:s, s:s}", "name", ports[k].name,
						  "port", (json_int_t)ports[k].port, "targetPort",
						  ports[k].name, "protocol", "TCP")))
			goto out;
	if (json_object_set_new(svc, "spec",
				json_pack("{s:O, s:O}", "selector", sel, "ports", list)))
		goto out;
	rc = jp_append_new(out->create, svc);
	svc = NULL;
out:
	vc_free(name);
	json_decref(sel);
	json_decref(list);
	json_decref(svc);
	return rc;
}

static int ray_job_delete(const struct vc_job *job, struct job_plugin_actions *out,
			  struct vc_error *warn)
{
	char *name = head_svc_name(job);
	int rc = name ? jp_add_remove(out, job, "v1", "Service", name) : VC_ENOMEM;

	(void)warn;
	vc_free(name);
	return rc;
}

const struct job_plugin job_plugin_ray = {
	.on_pod_create = ray_pod,
	.on_job_add = ray_job_add,
	.on_job_delete = ray_job_delete,
};
