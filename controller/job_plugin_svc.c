/* job_plugin_svc.c - the svc job plugin (docs/volcano/job-controller.md §5.2). */
#include "job_plugin.h"

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_str.h"

struct svc_args {
	bool publish_not_ready, disable_np, inject_env;
};

static void svc_parse(const struct vc_job *job, struct svc_args *a, struct vc_error *warn)
{
	const struct job_flag f[] = {
		{ "publish-not-ready-addresses", JOB_FLAG_BOOL, &a->publish_not_ready },
		{ "disable-network-policy", JOB_FLAG_BOOL, &a->disable_np },
		{ "inject-hosts-env", JOB_FLAG_BOOL, &a->inject_env },
	};

	*a = (struct svc_args){ false, false, true };
	jp_parse_args(job, VC_JOB_PLUGIN_SVC, f, VC_ARRAY_SIZE(f), warn);
}

/* "mpi-worker" -> "mpi_worker" (upper: "MPI_WORKER"). */
static char *task_key(const char *task, bool upper)
{
	char *k = vc_strdup(task), *p;

	if (!k)
		return NULL;
	for (p = k; *p; p++) {
		if (*p == '-')
			*p = '_';
		else if (upper && *p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	}
	return k;
}

json_t *job_svc_hosts_data(const struct vc_job *job)
{
	json_t *data = json_object(), *hosts = NULL;
	char *key = NULL, *KEY = NULL, *k = NULL, *v = NULL;
	size_t i;

	if (!data)
		return NULL;
	for (i = 0; i < job->ntasks; i++) {
		char num[24];

		hosts = json_array();
		key = task_key(job->tasks[i].name, false);
		KEY = task_key(job->tasks[i].name, true);
		if (!hosts || !key || !KEY || jp_task_hosts(job, &job->tasks[i], false, -1, hosts))
			goto fail;
		if (!(k = vc_asprintf("%s.host", key)) || !(v = jp_join(hosts, "\n")) ||
		    jp_set_str(data, k, v))
			goto fail;
		vc_free(k), vc_free(v), k = v = NULL;
		if (!(k = vc_asprintf("VC_%s_HOSTS", KEY)) || !(v = jp_join(hosts, ",")) ||
		    jp_set_str(data, k, v))
			goto fail;
		vc_free(k), k = NULL;
		snprintf(num, sizeof(num), "%zu", json_array_size(hosts));
		if (!(k = vc_asprintf("VC_%s_NUM", KEY)) || jp_set_str(data, k, num))
			goto fail;
		vc_free(k), vc_free(v), vc_free(key), vc_free(KEY);
		k = v = key = KEY = NULL;
		json_decref(hosts);
		hosts = NULL;
	}
	return data;
fail:
	vc_free(k);
	vc_free(v);
	vc_free(key);
	vc_free(KEY);
	json_decref(hosts);
	json_decref(data);
	return NULL;
}

static int svc_pod(const struct vc_job *job, json_t *pod, struct vc_error *warn,
		   struct vc_error *err)
{
	struct svc_args a;
	json_t *spec = json_object_get(pod, "spec"), *env = NULL, *vol = NULL, *mount = NULL;
	const char *pod_name = vc_json_get_str(json_object_get(pod, "metadata"), "name");
	char *cm = jp_obj_name(job, "-svc"), *KEY = NULL, *n = NULL;
	size_t i;
	int rc = VC_ENOMEM;

	svc_parse(job, &a, warn);
	if (!cm)
		goto out;
	if (!json_is_object(spec)) {
		rc = vc_error_set(err, VC_EINVALID, "pod spec: must be an object");
		goto out;
	}
	if (!jp_nonempty_or(vc_json_get_str(spec, "hostname"), NULL) &&
	    jp_set_str(spec, "hostname", pod_name ? pod_name : ""))
		goto out;
	if (!jp_nonempty_or(vc_json_get_str(spec, "subdomain"), NULL) &&
	    jp_set_str(spec, "subdomain", job->meta.name))
		goto out;
	if (a.inject_env) {
		if (!(env = json_array()))
			goto out;
		for (i = 0; i < job->ntasks; i++) {
			int j;

			if (!(KEY = task_key(job->tasks[i].name, true)))
				goto out;
			for (j = 0; j < 2; j++) {
				n = j == 0 ? vc_asprintf("VC_%s_HOSTS", KEY)
					   : vc_asprintf("VC_%s_NUM", KEY);
				if (!n ||
				    jp_append_new(env, json_pack("{s:s, s:{s:{s:s, s:s}}}", "name",
								 n, "valueFrom", "configMapKeyRef",
								 "name", cm, "key", n)))
					goto out;
				vc_free(n), n = NULL;
			}
			vc_free(KEY), KEY = NULL;
		}
		if ((rc = jp_each_container(pod, true, jp_add_env_fn, env, err)))
			goto out;
		rc = VC_ENOMEM;
	}
	vol = json_pack("{s:s, s:{s:s}}", "name", cm, "configMap", "name", cm);
	mount = json_pack("{s:s, s:s}", "name", cm, "mountPath", "/etc/volcano");
	if (!vol || !mount)
		goto out;
	if ((rc = jp_append_copy(spec, "volumes", vol, err)))
		goto out;
	rc = jp_each_container(pod, true, jp_add_mount_fn, mount, err);
out:
	vc_free(cm);
	vc_free(KEY);
	vc_free(n);
	json_decref(env);
	json_decref(vol);
	json_decref(mount);
	return rc;
}

static json_t *svc_configmap(const struct vc_job *job)
{
	char *name = jp_obj_name(job, "-svc");
	json_t *cm = name ? jp_new_owned(job, "v1", "ConfigMap", name) : NULL;
	json_t *data = cm ? job_svc_hosts_data(job) : NULL;

	vc_free(name);
	if (!data || json_object_set_new(cm, "data", data)) {
		json_decref(cm);
		return NULL;
	}
	return cm;
}

/* Append to out->create a new object of job's name with spec (stolen; NULL is VC_ENOMEM). */
static int add_owned(struct job_plugin_actions *out, const struct vc_job *job, const char *api,
		     const char *kind, json_t *spec)
{
	json_t *o = jp_new_owned(job, api, kind, job->meta.name);

	if (!o || !spec || json_object_set_new(o, "spec", spec)) {
		json_decref(o);
		if (o)
			spec = NULL;
		json_decref(spec);
		return VC_ENOMEM;
	}
	return jp_append_new(out->create, o);
}

static int svc_add(const struct vc_job *job, struct job_plugin_actions *out, struct vc_error *warn)
{
	struct svc_args a;
	int rc;

	svc_parse(job, &a, warn);
	if (jp_append_new(out->create, svc_configmap(job)))
		return VC_ENOMEM;
	rc = add_owned(out, job, "v1", "Service",
		       json_pack("{s:s, s:o, s:b}", "clusterIP", "None", "selector",
				 jp_job_selector(job), "publishNotReadyAddresses",
				 a.publish_not_ready));
	if (rc || a.disable_np)
		return rc;
	return add_owned(out, job, "networking.k8s.io/v1", "NetworkPolicy",
			 json_pack("{s:{s:o}, s:[{s:[{s:{s:o}}]}], s:[s]}", "podSelector",
				   "matchLabels", jp_job_selector(job), "ingress", "from",
				   "podSelector", "matchLabels", jp_job_selector(job),
				   "policyTypes", "Ingress"));
}

static int svc_delete(const struct vc_job *job, struct job_plugin_actions *out,
		      struct vc_error *warn)
{
	struct svc_args a;
	char *cm = jp_obj_name(job, "-svc");
	int rc = VC_ENOMEM;

	svc_parse(job, &a, warn);
	if (cm && !jp_add_remove(out, job, "v1", "ConfigMap", cm) &&
	    !jp_add_remove(out, job, "v1", "Service", job->meta.name) &&
	    (a.disable_np ||
	     !jp_add_remove(out, job, "networking.k8s.io/v1", "NetworkPolicy", job->meta.name)))
		rc = 0;
	vc_free(cm);
	return rc;
}

static int svc_job_add(const struct vc_job *job, const struct job_keygen *keygen,
		       struct job_plugin_actions *out, struct vc_error *warn, struct vc_error *err)
{
	(void)keygen;
	(void)err;
	return svc_add(job, out, warn);
}

/* OnJobUpdate: the ConfigMap again (create-or-update). */
static int svc_update(const struct vc_job *job, struct job_plugin_actions *out)
{
	return jp_append_new(out->create, svc_configmap(job));
}

const struct job_plugin job_plugin_svc = {
	.on_pod_create = svc_pod,
	.on_job_add = svc_job_add,
	.on_job_update = svc_update,
	.on_job_delete = svc_delete,
};
