/*
 * job_plugins.h - the job plugins env, svc, ssh, tensorflow, pytorch, mpi, ray and hcclrank
 * (docs/volcano/job-controller.md §5), as pure functions.
 *
 * The hooks never talk to the API server: OnPodCreate edits a pod being built; OnJobAdd,
 * OnJobUpdate and OnJobDelete return the objects the runtime must create (or create-or-update)
 * and delete, and the status.controlledResources markers to set and remove. Plugins run in the
 * fixed order of the plugin table in job_plugins.c (Go runs them in random map order; only hcclrank
 * cares, and it runs after pytorch). Plugin arguments are re-parsed on every call, like
 * Volcano, with Go `flag` rules (job_flags_parse); a bad argument is reported through `warn` (may
 * be NULL) and otherwise ignored: flags parsed before it keep their values.
 */
#ifndef JOB_PLUGINS_H
#define JOB_PLUGINS_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"
#include "vc_model.h"

/* ---- Go flag parsing ----------------------------------------------------------------------- */

enum job_flag_type {
	JOB_FLAG_BOOL,	 /* value: bool * */
	JOB_FLAG_INT,	 /* value: int64_t * (Go int syntax: 0x, 0o, 0b, leading 0 octal, _) */
	JOB_FLAG_STRING, /* value: const char ** (borrowed from args) */
};

struct job_flag {
	const char *name;
	enum job_flag_type type;
	void *value; /* holds the default on entry */
};

/*
 * Parse args (a borrowed JSON array of strings; NULL or not an array is empty) into the flags
 * as Go's flag.FlagSet with ContinueOnError does: `-name=value`, `--name=value`, `-name value`
 * (non-bool), bare `-name` for bools; parsing stops at the first non-flag argument or after
 * `--`. Returns 0, or VC_EINVAL with Go's message (`flag provided but not defined: -no-root`,
 * `invalid value "x" for flag -port: parse error`, `invalid boolean value "x" for -name: parse
 * error`, `flag needs an argument: -port`, `bad flag syntax: ---x`, `non-string argument 2`);
 * flags set before the error keep their new values.
 */
int job_flags_parse(const struct job_flag *flags, size_t nflags, const json_t *args,
		    struct vc_error *err);

/* ---- ssh key generation -------------------------------------------------------------------- */

/*
 * A key-pair generator for the ssh plugin. generate() stores in *priv a new string holding a PEM
 * private key and in *pub a new string holding an OpenSSH authorized_keys line ("ssh-rsa
 * <base64>\n"); both are freed with vc_free. It returns 0 or a negative vc_err code with a
 * message in err, and leaves *priv and *pub NULL on failure.
 */
struct job_keygen {
	int (*generate)(void *ctx, char **priv, char **pub, struct vc_error *err);
	void *ctx;
};

/* The real generator: a 2048-bit RSA key from OpenSSL, PEM type "RSA PRIVATE KEY" (PKCS#1). */
extern const struct job_keygen job_keygen_openssl;

/* ---- plugin hooks -------------------------------------------------------------------------- */

/* What the job-level hooks ask the runtime to do. All members are NEW references. */
struct job_plugin_actions {
	/*
	 * Objects to create, in plugin order. The svc ConfigMap and the ssh Secret are
	 * create-or-update (docs/volcano/job-controller.md §5.2: update `data` when it differs;
	 * docs/volcano/job-controller.md §5.3: update when `config` differs); the Service and
	 * NetworkPolicy are create-if-absent.
	 */
	json_t *create;
	/* Objects to delete (NotFound is fine): {apiVersion, kind, namespace, name}. */
	json_t *remove;
	/* status.controlledResources entries to set (object key -> value). */
	json_t *markers_set;
	/* status.controlledResources keys to remove (array of strings). */
	json_t *markers_remove;
};

/* Drop the references in a and zero it. NULL and a zeroed struct are fine. */
void job_plugin_actions_release(struct job_plugin_actions *a);

/*
 * Run OnPodCreate of every plugin in job->plugins on pod (borrowed, edited in place), in the
 * fixed order. pod must come from job_pod_build (its name `<job>-<task>-<i>` and labels
 * volcano.sh/task-spec and volcano.sh/task-index are used). Errors: VC_EINVALID `failed to get
 * plugin <name>` for a plugin not implemented here, VC_EINVALID when the tensorflow plugin cannot
 * read the replica index from the pod name, when hcclrank cannot read it from the label, when the
 * ray plugin finds no head task (`job <job> doesn't have head task <head>`) or when the pod spec
 * is malformed, VC_ENOMEM. On failure the pod may be
 * half-edited: discard it (Volcano aborts the whole sync).
 */
int job_plugins_on_pod_create(const struct vc_job *job, json_t *pod, struct vc_error *warn,
			      struct vc_error *err) VC_WARN_UNUSED;

/*
 * OnJobAdd of every plugin in job->plugins (docs/volcano/job-controller.md §5.0): skips plugins
 * whose marker `plugin-<name>` = `<name>` is already in status.controlledResources; otherwise
 * returns their objects and markers in *out (which must be zeroed; on failure it is released and
 * zeroed). keygen is used by the ssh plugin when no --ssh-private-key is given (NULL means
 * job_keygen_openssl). Errors as job_plugins_on_pod_create, plus the key generator's.
 */
int job_plugins_on_job_add(const struct vc_job *job, const struct job_keygen *keygen,
			   struct job_plugin_actions *out, struct vc_error *warn,
			   struct vc_error *err) VC_WARN_UNUSED;

/* OnJobUpdate: the svc plugin's ConfigMap (create-or-update) when svc is enabled. As above. */
int job_plugins_on_job_update(const struct vc_job *job, struct job_plugin_actions *out,
			      struct vc_error *warn, struct vc_error *err) VC_WARN_UNUSED;

/*
 * OnJobDelete (run by every kill): for plugins whose marker is present, the objects to delete
 * and the markers to remove. As above.
 */
int job_plugins_on_job_delete(const struct vc_job *job, struct job_plugin_actions *out,
			      struct vc_error *warn, struct vc_error *err) VC_WARN_UNUSED;

/*
 * The svc plugin's ConfigMap data for job (docs/volcano/job-controller.md §5.2: `<key>.host`,
 * `VC_<KEY>_HOSTS`, `VC_<KEY>_NUM` per task) as a NEW object, or NULL when out of memory.
 */
json_t *job_svc_hosts_data(const struct vc_job *job);

/*
 * The TF_CONFIG value of pod pod_name in task task_name (docs/volcano/job-controller.md §5.4) for
 * the given role names and port, as a new string (vc_free it). VC_EINVALID when the pod name does
 * not end in an integer, VC_ENOMEM.
 */
int job_tf_config(const struct vc_job *job, const char *task_name, const char *pod_name,
		  const char *const roles[4], int64_t port, char **out,
		  struct vc_error *err) VC_WARN_UNUSED;

#endif /* JOB_PLUGINS_H */
