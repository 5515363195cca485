/*
 * job_plugin.h - what the job plugins (job_plugin_<name>.c) share with the dispatch in
 * job_plugins.c: the plugin table row and the helpers they all use
 * (job_plugins.c). Not part of the job_plugins.h API.
 */
#ifndef JOB_PLUGIN_H
#define JOB_PLUGIN_H

#include "job_plugins.h"

/*
 * One job plugin's hooks (docs/volcano/job-controller.md §5.0), its name that of its row in the
 * table of job_plugins.c (enum vc_job_plugin); NULL when the plugin has none. They
 * return 0 or a negative code with err set; warn receives bad plugin arguments. The job-level hooks
 * append to out.
 */
struct job_plugin {
	/* The dispatch neither checks, sets nor removes a `plugin-<name>` marker: the job add and
	 * job delete hooks (if any) run every time (hcclrank, docs/volcano/job-controller.md §5.8).
	 */
	bool no_marker;
	int (*on_pod_create)(const struct vc_job *job, json_t *pod, struct vc_error *warn,
			     struct vc_error *err);
	int (*on_job_add)(const struct vc_job *job, const struct job_keygen *keygen,
			  struct job_plugin_actions *out, struct vc_error *warn,
			  struct vc_error *err);
	int (*on_job_update)(const struct vc_job *job, struct job_plugin_actions *out);
	int (*on_job_delete)(const struct vc_job *job, struct job_plugin_actions *out,
			     struct vc_error *warn);
};

extern const struct job_plugin job_plugin_env, job_plugin_svc, job_plugin_ssh,
	job_plugin_tensorflow, job_plugin_pytorch, job_plugin_mpi, job_plugin_ray,
	job_plugin_hcclrank;

/* ---- helpers (job_plugins.c) --------------------------------------------------------------- */

typedef int (*jp_container_fn)(json_t *c, void *ctx, struct vc_error *err);

int jp_set_str(json_t *obj, const char *key, const char *value);
int jp_append_new(json_t *arr, json_t *v);
json_t *jp_get_or_add_array(json_t *obj, const char *key);
int jp_append_copy(json_t *obj, const char *key, const json_t *item, struct vc_error *err);
int jp_each_container(json_t *pod, bool with_init, jp_container_fn fn, void *ctx,
		      struct vc_error *err);
int jp_add_env_fn(json_t *c, void *ctx, struct vc_error *err);
int jp_add_mount_fn(json_t *c, void *ctx, struct vc_error *err);
int jp_env_lit(json_t *env, const char *name, const char *value);
const char *jp_last_component(const char *s);
int jp_parse_index(const char *pod_name, int64_t *out, struct vc_error *err);
const json_t *jp_tspec(const struct vc_task *t);
const char *jp_nonempty_or(const char *s, const char *def);
int jp_task_hosts(const struct vc_job *job, const struct vc_task *t, bool repeat, int64_t port,
		  json_t *arr);
char *jp_first_host(const struct vc_job *job, const struct vc_task *t);
char *jp_join(const json_t *arr, const char *sep);
char *jp_obj_name(const struct vc_job *job, const char *suffix);
json_t *jp_new_owned(const struct vc_job *job, const char *api, const char *kind, const char *name);
json_t *jp_job_selector(const struct vc_job *job);
int jp_add_remove(struct job_plugin_actions *a, const struct vc_job *job, const char *api,
		  const char *kind, const char *name);
void jp_parse_args(const struct vc_job *job, enum vc_job_plugin plugin, const struct job_flag *f,
		   size_t n, struct vc_error *warn);
const char *jp_pod_name_of(const json_t *pod);
const char *jp_pod_task(const json_t *pod);

struct jp_port_ctx {
	const char *name;
	int64_t port;
};

int jp_add_port_fn(json_t *c, void *ctx, struct vc_error *err);

#endif /* JOB_PLUGIN_H */
