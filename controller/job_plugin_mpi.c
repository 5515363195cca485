/* job_plugin_mpi.c - the mpi job plugin (docs/volcano/job-controller.md §5.6). */
#include "job_plugin.h"

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_str.h"

struct mpi_args {
	const char *master, *worker;
	int64_t port;
};

static void mpi_parse(const struct vc_job *job, struct mpi_args *a, struct vc_error *warn)
{
	const struct job_flag f[] = {
		{ "master", JOB_FLAG_STRING, &a->master },
		{ "worker", JOB_FLAG_STRING, &a->worker },
		{ "port", JOB_FLAG_INT, &a->port },
	};

	*a = (struct mpi_args){ "master", "worker", 22 };
	jp_parse_args(job, VC_JOB_PLUGIN_MPI, f, VC_ARRAY_SIZE(f), warn);
}

static int mpi_pod(const struct vc_job *job, json_t *pod, struct vc_error *warn,
		   struct vc_error *err)
{
	struct mpi_args a;
	const struct vc_task *worker;
	const char *task = jp_nonempty_or(jp_pod_task(pod), "");
	bool is_master;
	struct jp_port_ctx pc;
	json_t *hosts = NULL, *env = NULL;
	char *joined = NULL;
	int rc;

	mpi_parse(job, &a, warn);
	is_master = strcmp(task, a.master) == 0;
	worker = vc_job_task(job, a.worker);
	if (is_master && !worker)
		return 0;
	pc = (struct jp_port_ctx){ "mpijob-port", a.port };
	if ((rc = jp_each_container(pod, true, jp_add_port_fn, &pc, err)) || !is_master)
		return rc;
	rc = VC_ENOMEM;
	if ((hosts = json_array()) && !jp_task_hosts(job, worker, false, -1, hosts) &&
	    (joined = jp_join(hosts, ",")) && (env = json_array()) &&
	    !jp_env_lit(env, "MPI_HOST", joined))
		rc = jp_each_container(pod, true, jp_add_env_fn, env, err);
	vc_free(joined);
	json_decref(hosts);
	json_decref(env);
	return rc;
}

const struct job_plugin job_plugin_mpi = { .on_pod_create = mpi_pod };
