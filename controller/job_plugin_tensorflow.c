/* job_plugin_tensorflow.c - the tensorflow job plugin (docs/volcano/job-controller.md §5.4). */
#include "job_plugin.h"

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_str.h"

struct tf_args {
	const char *roles[4]; /* ps, worker, chief, evaluator */
	int64_t port;
};

static void tf_parse(const struct vc_job *job, struct tf_args *a, struct vc_error *warn)
{
	const struct job_flag f[] = {
		{ "ps", JOB_FLAG_STRING, &a->roles[0] },
		{ "worker", JOB_FLAG_STRING, &a->roles[1] },
		{ "chief", JOB_FLAG_STRING, &a->roles[2] },
		{ "evaluator", JOB_FLAG_STRING, &a->roles[3] },
		{ "port", JOB_FLAG_INT, &a->port },
	};

	*a = (struct tf_args){ { "ps", "worker", "chief", "evaluator" }, 2222 };
	jp_parse_args(job, VC_JOB_PLUGIN_TENSORFLOW, f, VC_ARRAY_SIZE(f), warn);
}

int job_tf_config(const struct vc_job *job, const char *task_name, const char *pod_name,
		  const char *const roles[4], int64_t port, char **out, struct vc_error *err)
{
	static const char *const role_keys[] = { "ps", "worker", "chief", "evaluator" };
	static const int type_order[] = { 2, 1, 0, 3 }; /* chief, worker, ps, evaluator */
	json_t *cfg = NULL, *cluster, *task, *hosts;
	const char *type = task_name;
	char *dumped;
	int64_t index = 0;
	size_t r, i;
	int rc;

	if ((rc = jp_parse_index(pod_name, &index, err)))
		return rc;
	rc = VC_ENOMEM;
	cfg = json_pack("{s:{}, s:{}}", "cluster", "task");
	if (!cfg)
		goto out;
	cluster = json_object_get(cfg, "cluster");
	task = json_object_get(cfg, "task");
	for (r = 0; r < 4; r++) {
		if (!(hosts = json_array()))
			goto out;
		for (i = 0; i < job->ntasks; i++)
			if (strcmp(job->tasks[i].name, roles[r]) == 0 &&
			    jp_task_hosts(job, &job->tasks[i], true, port, hosts)) {
				json_decref(hosts);
				goto out;
			}
		if (json_array_size(hosts) == 0) {
			json_decref(hosts);
			continue;
		}
		if (json_object_set_new(cluster, role_keys[r], hosts))
			goto out;
	}
	for (r = 0; r < 4; r++)
		if (strcmp(task_name, roles[type_order[r]]) == 0) {
			type = role_keys[type_order[r]];
			break;
		}
	if (jp_set_str(task, "type", type) ||
	    json_object_set_new(task, "index", json_integer((json_int_t)index)))
		goto out;
	dumped = json_dumps(cfg, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (dumped) {
		json_malloc_t jmalloc;
		json_free_t jfree;

		/* json_dumps allocates with jansson's allocator, which need not be vc_malloc. */
		*out = vc_strdup(dumped);
		json_get_alloc_funcs(&jmalloc, &jfree);
		jfree(dumped);
		if (*out)
			rc = 0;
	}
out:
	json_decref(cfg);
	return rc;
}

static int tf_pod(const struct vc_job *job, json_t *pod, struct vc_error *warn,
		  struct vc_error *err)
{
	struct tf_args a;
	char *cfg = NULL;
	json_t *env = NULL;
	int rc;

	tf_parse(job, &a, warn);
	if (job->ntasks == 1 && job->tasks[0].replicas == 1)
		return 0;
	rc = job_tf_config(job, jp_nonempty_or(jp_pod_task(pod), ""), jp_pod_name_of(pod), a.roles,
			   a.port, &cfg, err);
	if (rc)
		return rc;
	rc = VC_ENOMEM;
	if ((env = json_array()) && !jp_env_lit(env, "TF_CONFIG", cfg))
		rc = jp_each_container(pod, false, jp_add_env_fn, env, err);
	vc_free(cfg);
	json_decref(env);
	return rc;
}

const struct job_plugin job_plugin_tensorflow = { .on_pod_create = tf_pod };
