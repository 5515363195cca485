/* job_plugin_env.c - the env job plugin (docs/volcano/job-controller.md §5.1). */
#include "job_plugin.h"

static int env_pod(const struct vc_job *job, json_t *pod, struct vc_error *warn,
		   struct vc_error *err)
{
	const char *idx = jp_last_component(jp_pod_name_of(pod));
	json_t *env = json_array();
	int rc = VC_ENOMEM;

	(void)job;
	(void)warn;
	if (env && !jp_env_lit(env, "VK_TASK_INDEX", idx) && !jp_env_lit(env, "VC_TASK_INDEX", idx))
		rc = jp_each_container(pod, true, jp_add_env_fn, env, err);
	json_decref(env);
	return rc;
}

const struct job_plugin job_plugin_env = { .on_pod_create = env_pod };
