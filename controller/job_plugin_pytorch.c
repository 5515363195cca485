/* job_plugin_pytorch.c - the pytorch job plugin (docs/volcano/job-controller.md §5.5). */
#include "job_plugin.h"

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_str.h"

struct pt_args {
	const char *master, *worker, *image;
	int64_t port, timeout;
	bool wait;
};

static void pt_parse(const struct vc_job *job, struct pt_args *a, struct vc_error *warn)
{
	const struct job_flag f[] = {
		{ "master", JOB_FLAG_STRING, &a->master },
		{ "worker", JOB_FLAG_STRING, &a->worker },
		{ "port", JOB_FLAG_INT, &a->port },
		{ "wait-master-enabled", JOB_FLAG_BOOL, &a->wait },
		{ "wait-master-timeout", JOB_FLAG_INT, &a->timeout },
		{ "wait-master-image", JOB_FLAG_STRING, &a->image },
	};

	*a = (struct pt_args){ "master", "worker", "busybox:1.36.1", 23456, 300, false };
	jp_parse_args(job, VC_JOB_PLUGIN_PYTORCH, f, VC_ARRAY_SIZE(f), warn);
}

struct port_env_ctx {
	struct jp_port_ctx port;
	json_t *env;
};

static int port_env_fn(json_t *c, void *ctx, struct vc_error *err)
{
	struct port_env_ctx *pe = ctx;
	int rc = jp_add_port_fn(c, &pe->port, err);

	return rc ? rc : jp_add_env_fn(c, pe->env, err);
}

/* The wait-for-master script (docs/volcano/job-controller.md §5.5); its arguments are the timeout
 * twice. */
#define WAIT_SCRIPT                                                                           \
	"echo \"waiting for master $MASTER_ADDR:$MASTER_PORT\"; start=$(date +%%s); "         \
	"while true; do "                                                                     \
	"if command -v nc >/dev/null 2>&1; then "                                             \
	"nc -z -w 2 \"$MASTER_ADDR\" \"$MASTER_PORT\" && break; "                             \
	"elif (exec 3<>\"/dev/tcp/$MASTER_ADDR/$MASTER_PORT\") 2>/dev/null; then break; fi; " \
	"now=$(date +%%s); if [ $((now - start)) -ge %lld ]; then "                           \
	"echo \"timed out after %lld seconds waiting for master\"; exit 1; fi; "              \
	"echo \"master not reachable yet, retrying in 2s\"; sleep 2; done; "                  \
	"echo \"master is reachable\"; exit 0"

static int pytorch_pod(const struct vc_job *job, json_t *pod, struct vc_error *warn,
		       struct vc_error *err)
{
	struct pt_args a;
	const struct vc_task *master, *worker;
	const char *task = jp_nonempty_or(jp_pod_task(pod), "");
	char *addr = NULL, *script = NULL, num[24];
	json_t *env = NULL, *ic = NULL, *inits, *c;
	struct port_env_ctx pe;
	int64_t index = 0;
	size_t i;
	int rc = VC_ENOMEM;

	pt_parse(job, &a, warn);
	master = vc_job_task(job, a.master);
	if (!master)
		return 0;
	worker = vc_job_task(job, a.worker);
	if (!(addr = jp_first_host(job, master)) || !(env = json_array()) ||
	    jp_env_lit(env, "MASTER_ADDR", addr))
		goto out;
	snprintf(num, sizeof(num), "%lld", (long long)a.port);
	if (jp_env_lit(env, "MASTER_PORT", num))
		goto out;
	snprintf(num, sizeof(num), "%lld",
		 (long long)master->replicas + (worker ? (long long)worker->replicas : 0));
	if (jp_env_lit(env, "WORLD_SIZE", num))
		goto out;
	if (strcmp(task, master->name) == 0) {
		if (jp_env_lit(env, "RANK", "0"))
			goto out;
	} else if (worker && strcmp(task, worker->name) == 0) {
		if ((rc = jp_parse_index(jp_pod_name_of(pod), &index, err)))
			goto out;
		rc = VC_ENOMEM;
		snprintf(num, sizeof(num), "%lld", (long long)index + 1);
		if (jp_env_lit(env, "RANK", num))
			goto out;
	}
	pe.port = (struct jp_port_ctx){ "pytorchjob-port", a.port };
	pe.env = env;
	if ((rc = jp_each_container(pod, false, port_env_fn, &pe, err)))
		goto out;
	rc = 0;
	if (!a.wait || !worker || strcmp(task, worker->name) != 0)
		goto out;
	rc = VC_ENOMEM;
	inits = json_object_get(json_object_get(pod, "spec"), "initContainers");
	json_array_foreach (inits, i, c)
		if (vc_str_eq(vc_json_get_str(c, "name"), "wait-for-master")) {
			rc = 0;
			goto out;
		}
	script = vc_asprintf(WAIT_SCRIPT, (long long)a.timeout, (long long)a.timeout);
	if (!script)
		goto out;
	snprintf(num, sizeof(num), "%lld", (long long)a.port);
	ic = json_pack("{s:s, s:s, s:[s, s, s], s:[{s:s, s:s}, {s:s, s:s}]}", "name",
		       "wait-for-master", "image", a.image, "command", "sh", "-c", script, "env",
		       "name", "MASTER_ADDR", "value", addr, "name", "MASTER_PORT", "value", num);
	if (!ic)
		goto out;
	rc = jp_append_copy(json_object_get(pod, "spec"), "initContainers", ic, err);
out:
	vc_free(addr);
	vc_free(script);
	json_decref(ic);
	json_decref(env);
	return rc;
}

const struct job_plugin job_plugin_pytorch = { .on_pod_create = pytorch_pod };
