/* job_plugins.c - env, svc, ssh, tensorflow, pytorch and mpi (job-controller.md §5). */
#include "job_plugins.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_str.h"

const char *const job_plugin_names[] = { "env", "svc", "ssh", "tensorflow", "pytorch", "mpi" };

enum {
	P_ENV,
	P_SVC,
	P_SSH,
	P_TF,
	P_PYTORCH,
	P_MPI
};

/* ---- Go flag parsing ----------------------------------------------------------------------- */

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/*
 * strconv.ParseInt(s, base, 64) for base 0 (sign, 0x/0o/0b or leading-0 octal, underscores
 * only between digits or after the prefix) or base 10 (strconv.Atoi). VC_EINVAL or VC_ERANGE.
 */
static int go_parse_int(const char *s, int base0, int64_t *out)
{
	unsigned __int128 v = 0;
	const char *p = s;
	bool neg = false, underscores = false, prev_us = false;
	int base = 10, d;
	size_t digits = 0;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (base0 && p[0] == '0') {
		char c = p[1];

		if (c == 'x' || c == 'X')
			base = 16, p += 2, underscores = true;
		else if (c == 'o' || c == 'O')
			base = 8, p += 2, underscores = true;
		else if (c == 'b' || c == 'B')
			base = 2, p += 2, underscores = true;
		else
			base = 8, underscores = true;
	}
	/* After a prefix an underscore may come first ("0x_1"); "0_7" is octal 7. */
	prev_us = false;
	for (; *p; p++) {
		if (*p == '_') {
			if (!underscores || prev_us)
				return VC_EINVAL;
			prev_us = true;
			continue;
		}
		d = digit_value(*p);
		if (d >= base)
			return VC_EINVAL;
		v = v * (unsigned)base + (unsigned)d;
		if (v > (unsigned __int128)INT64_MAX + 1)
			return VC_ERANGE;
		digits++;
		prev_us = false;
	}
	if (digits == 0 || prev_us)
		return VC_EINVAL;
	if (!neg && v > (unsigned __int128)INT64_MAX)
		return VC_ERANGE;
	*out = neg ? (int64_t)(0 - (uint64_t)v) : (int64_t)v;
	return 0;
}

static int go_parse_bool(const char *s, bool *out)
{
	static const char *const t[] = { "1", "t", "T", "TRUE", "true", "True" };
	static const char *const f[] = { "0", "f", "F", "FALSE", "false", "False" };
	size_t i;

	for (i = 0; i < 6; i++) {
		if (strcmp(s, t[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcmp(s, f[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return VC_EINVAL;
}

int job_flags_parse(const struct job_flag *flags, size_t nflags, const json_t *args,
		    struct vc_error *err)
{
	size_t i, n = json_is_array(args) ? json_array_size(args) : 0;

	for (i = 0; i < n; i++) {
		const char *a = json_string_value(json_array_get(args, i)), *name, *eq, *val;
		const struct job_flag *f = NULL;
		size_t nlen, k;
		int rc;

		if (!a)
			return vc_error_set(err, VC_EINVAL, "non-string argument %zu", i);
		if (a[0] != '-' || a[1] == '\0')
			return 0;
		name = a + 1;
		if (*name == '-') {
			name++;
			if (*name == '\0')
				return 0; /* "--" ends the flags */
		}
		if (*name == '-' || *name == '=')
			return vc_error_set(err, VC_EINVAL, "bad flag syntax: %s", a);
		eq = strchr(name, '=');
		nlen = eq ? (size_t)(eq - name) : strlen(name);
		for (k = 0; k < nflags; k++)
			if (strlen(flags[k].name) == nlen &&
			    strncmp(flags[k].name, name, nlen) == 0)
				f = &flags[k];
		if (!f) {
			if ((nlen == 4 && strncmp(name, "help", 4) == 0) ||
			    (nlen == 1 && name[0] == 'h'))
				return vc_error_set(err, VC_EINVAL, "flag: help requested");
			return vc_error_set(err, VC_EINVAL, "flag provided but not defined: -%.*s",
					    (int)nlen, name);
		}
		if (f->type == JOB_FLAG_BOOL) {
			bool b = true;

			if (eq && go_parse_bool(eq + 1, &b))
				return vc_error_set(
					err, VC_EINVAL,
					"invalid boolean value \"%s\" for -%s: parse error", eq + 1,
					f->name);
			*(bool *)f->value = b;
			continue;
		}
		if (eq) {
			val = eq + 1;
		} else {
			if (i + 1 >= n)
				return vc_error_set(err, VC_EINVAL, "flag needs an argument: -%s",
						    f->name);
			val = json_string_value(json_array_get(args, ++i));
			if (!val)
				return vc_error_set(err, VC_EINVAL, "non-string argument %zu", i);
		}
		if (f->type == JOB_FLAG_STRING) {
			*(const char **)f->value = val;
			continue;
		}
		rc = go_parse_int(val, 1, (int64_t *)f->value);
		if (rc)
			return vc_error_set(err, VC_EINVAL, "invalid value \"%s\" for flag -%s: %s",
					    val, f->name,
					    rc == VC_ERANGE ? "value out of range" : "parse error");
	}
	return 0;
}

/* ---- helpers ------------------------------------------------------------------------------- */

static int set_str(json_t *obj, const char *key, const char *value)
{
	return json_object_set_new(obj, key, json_string(value)) ? VC_ENOMEM : 0;
}

/* Append a new reference v to arr; NULL v or a failed append is VC_ENOMEM. */
static int append_new(json_t *arr, json_t *v)
{
	return json_array_append_new(arr, v) ? VC_ENOMEM : 0;
}

/* obj[key] as an array, created when absent; NULL on ENOMEM or when it is not an array. */
static json_t *get_or_add_array(json_t *obj, const char *key)
{
	json_t *arr = json_object_get(obj, key);

	if (arr)
		return json_is_array(arr) ? arr : NULL;
	arr = json_array();
	if (!arr || json_object_set_new(obj, key, arr))
		return NULL;
	return arr;
}

/* Append a copy of item to obj[key] (an array, created when absent). */
static int append_copy(json_t *obj, const char *key, const json_t *item, struct vc_error *err)
{
	json_t *arr = json_object_get(obj, key), *c;

	if (arr && !json_is_array(arr))
		return vc_error_set(err, VC_EINVALID, "pod field '%s' must be an array", key);
	arr = get_or_add_array(obj, key);
	c = arr ? json_deep_copy(item) : NULL;
	return append_new(arr, c);
}

/* Apply fn to every container (and every init container when with_init). */
typedef int (*container_fn)(json_t *c, void *ctx, struct vc_error *err);

static int each_container(json_t *pod, bool with_init, container_fn fn, void *ctx,
			  struct vc_error *err)
{
	static const char *const keys[] = { "containers", "initContainers" };
	json_t *spec = json_object_get(pod, "spec"), *arr, *c;
	size_t k, i;
	int rc;

	for (k = 0; k < (with_init ? 2u : 1u); k++) {
		arr = json_object_get(spec, keys[k]);
		if (!arr)
			continue;
		if (!json_is_array(arr))
			return vc_error_set(err, VC_EINVALID, "pod spec.%s: must be an array",
					    keys[k]);
		json_array_foreach (arr, i, c) {
			if (!json_is_object(c))
				return vc_error_set(err, VC_EINVALID,
						    "pod spec.%s[%zu]: must be an object", keys[k],
						    i);
			if ((rc = fn(c, ctx, err)))
				return rc;
		}
	}
	return 0;
}

/* Append every element of the array ctx to the container's env. */
static int add_env_fn(json_t *c, void *ctx, struct vc_error *err)
{
	json_t *env = ctx, *e;
	size_t i;
	int rc;

	json_array_foreach (env, i, e)
		if ((rc = append_copy(c, "env", e, err)))
			return rc;
	return 0;
}

static int add_mount_fn(json_t *c, void *ctx, struct vc_error *err)
{
	return append_copy(c, "volumeMounts", ctx, err);
}

/* Append a literal env var {name, value} to env. */
static int env_lit(json_t *env, const char *name, const char *value)
{
	return append_new(env, json_pack("{s:s, s:s}", "name", name, "value", value));
}

/* The string after the last '-' of s (the whole string without one). */
static const char *last_component(const char *s)
{
	const char *d = strrchr(s, '-');

	return d ? d + 1 : s;
}

static int parse_index(const char *pod_name, int64_t *out, struct vc_error *err)
{
	const char *s = last_component(pod_name);

	if (go_parse_int(s, 0, out))
		return vc_error_set(err, VC_EINVALID,
				    "failed to get index of pod '%s': not an integer", pod_name);
	return 0;
}

/* The template spec of task t (borrowed) or NULL. */
static const json_t *tspec(const struct vc_task *t)
{
	return t->template ? vc_json_get_obj(t->template, "spec") : NULL;
}

static const char *nonempty_or(const char *s, const char *def)
{
	return s && *s ? s : def;
}

/*
 * Append the hosts of task t (§2.1.3) to arr, with ":port" when port >= 0. A fixed template
 * hostname gives one entry, or `replicas` copies of it when repeat is set.
 */
static int task_hosts(const struct vc_job *job, const struct vc_task *t, bool repeat, int64_t port,
		      json_t *arr)
{
	const char *hn = vc_json_get_str(tspec(t), "hostname");
	const char *sd = nonempty_or(vc_json_get_str(tspec(t), "subdomain"), job->meta.name);
	int32_t i;

	for (i = 0; i < t->replicas; i++) {
		char *h;
		int rc;

		if (hn && *hn) {
			if (i > 0 && !repeat)
				break;
			h = port >= 0 ? vc_asprintf("%s.%s:%lld", hn, sd, (long long)port)
				      : vc_asprintf("%s.%s", hn, sd);
		} else {
			h = port >= 0 ? vc_asprintf("%s-%s-%d.%s:%lld", job->meta.name, t->name,
						    (int)i, sd, (long long)port)
				      : vc_asprintf("%s-%s-%d.%s", job->meta.name, t->name, (int)i,
						    sd);
		}
		if (!h)
			return VC_ENOMEM;
		rc = append_new(arr, json_string(h));
		vc_free(h);
		if (rc)
			return rc;
	}
	return 0;
}

/* Join the strings of arr with sep into a new string, or NULL. */
static char *join(const json_t *arr, const char *sep)
{
	struct vc_buf b;
	json_t *v;
	size_t i;
	char *out;

	vc_buf_init(&b, 1 << 24);
	json_array_foreach (arr, i, v) {
		if ((i && vc_buf_adds(&b, sep)) || vc_buf_adds(&b, json_string_value(v))) {
			vc_buf_release(&b);
			return NULL;
		}
	}
	out = vc_buf_take(&b);
	vc_buf_release(&b);
	return out;
}

/* `<job>-svc`-style names. */
static char *obj_name(const struct vc_job *job, const char *suffix)
{
	return vc_asprintf("%s%s", job->meta.name, suffix);
}

/* A new object {apiVersion, kind, metadata{name, namespace, ownerReferences}}, or NULL. */
static json_t *new_owned(const struct vc_job *job, const char *api, const char *kind,
			 const char *name)
{
	json_t *o = json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", api, "kind", kind,
			      "metadata", "name", name, "namespace", job->meta.ns);
	json_t *owners = job_owner_references(job);

	if (!o || !owners ||
	    json_object_set_new(json_object_get(o, "metadata"), "ownerReferences", owners)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int add_remove(struct job_plugin_actions *a, const struct vc_job *job, const char *api,
		      const char *kind, const char *name)
{
	return append_new(a->remove, json_pack("{s:s, s:s, s:s, s:s}", "apiVersion", api, "kind",
					       kind, "namespace", job->meta.ns, "name", name));
}

/* ---- plugin arguments ---------------------------------------------------------------------- */

struct svc_args {
	bool publish_not_ready, disable_np, inject_env;
};
struct ssh_args {
	const char *path, *priv, *pub;
	int64_t port;
};
struct tf_args {
	const char *roles[4]; /* ps, worker, chief, evaluator */
	int64_t port;
};
struct pt_args {
	const char *master, *worker, *image;
	int64_t port, timeout;
	bool wait;
};
struct mpi_args {
	const char *master, *worker;
	int64_t port;
};

static const json_t *plugin_args(const struct vc_job *job, int p)
{
	return json_object_get(job->plugins, job_plugin_names[p]);
}

/* Parse, reporting a bad argument through warn only (§5.0). */
static void parse_or_warn(const struct job_flag *f, size_t n, const json_t *args, int p,
			  struct vc_error *warn)
{
	if (job_flags_parse(f, n, args, warn))
		vc_error_prefix(warn, "plugin %s", job_plugin_names[p]);
}

static void svc_parse(const struct vc_job *job, struct svc_args *a, struct vc_error *warn)
{
	const struct job_flag f[] = {
		{ "publish-not-ready-addresses", JOB_FLAG_BOOL, &a->publish_not_ready },
		{ "disable-network-policy", JOB_FLAG_BOOL, &a->disable_np },
		{ "inject-hosts-env", JOB_FLAG_BOOL, &a->inject_env },
	};

	*a = (struct svc_args){ false, false, true };
	parse_or_warn(f, 3, plugin_args(job, P_SVC), P_SVC, warn);
}

static void ssh_parse(const struct vc_job *job, struct ssh_args *a, struct vc_error *warn)
{
	const struct job_flag f[] = {
		{ "ssh-key-file-path", JOB_FLAG_STRING, &a->path },
		{ "ssh-private-key", JOB_FLAG_STRING, &a->priv },
		{ "ssh-public-key", JOB_FLAG_STRING, &a->pub },
		{ "ssh-port", JOB_FLAG_INT, &a->port },
	};

	*a = (struct ssh_args){ "/root/.ssh", "", "", 22 };
	parse_or_warn(f, 4, plugin_args(job, P_SSH), P_SSH, warn);
}

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
	parse_or_warn(f, 5, plugin_args(job, P_TF), P_TF, warn);
}

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
	parse_or_warn(f, 6, plugin_args(job, P_PYTORCH), P_PYTORCH, warn);
}

static void mpi_parse(const struct vc_job *job, struct mpi_args *a, struct vc_error *warn)
{
	const struct job_flag f[] = {
		{ "master", JOB_FLAG_STRING, &a->master },
		{ "worker", JOB_FLAG_STRING, &a->worker },
		{ "port", JOB_FLAG_INT, &a->port },
	};

	*a = (struct mpi_args){ "master", "worker", 22 };
	parse_or_warn(f, 3, plugin_args(job, P_MPI), P_MPI, warn);
}

/* The pod name, "" when absent. */
static const char *pod_name_of(const json_t *pod)
{
	return nonempty_or(vc_json_get_str(json_object_get(pod, "metadata"), "name"), "");
}

/* ---- env ----------------------------------------------------------------------------------- */

static int env_pod(const struct vc_job *job, json_t *pod, struct vc_error *err)
{
	const char *idx = last_component(pod_name_of(pod));
	json_t *env = json_array();
	int rc = VC_ENOMEM;

	(void)job;
	if (env && !env_lit(env, "VK_TASK_INDEX", idx) && !env_lit(env, "VC_TASK_INDEX", idx))
		rc = each_container(pod, true, add_env_fn, env, err);
	json_decref(env);
	return rc;
}

/* ---- svc ----------------------------------------------------------------------------------- */

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
		if (!hosts || !key || !KEY || task_hosts(job, &job->tasks[i], false, -1, hosts))
			goto fail;
		if (!(k = vc_asprintf("%s.host", key)) || !(v = join(hosts, "\n")) ||
		    set_str(data, k, v))
			goto fail;
		vc_free(k), vc_free(v), k = v = NULL;
		if (!(k = vc_asprintf("VC_%s_HOSTS", KEY)) || !(v = join(hosts, ",")) ||
		    set_str(data, k, v))
			goto fail;
		vc_free(k), k = NULL;
		snprintf(num, sizeof(num), "%zu", json_array_size(hosts));
		if (!(k = vc_asprintf("VC_%s_NUM", KEY)) || set_str(data, k, num))
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
	char *cm = obj_name(job, "-svc"), *KEY = NULL, *n = NULL;
	size_t i;
	int rc = VC_ENOMEM;

	svc_parse(job, &a, warn);
	if (!cm)
		goto out;
	if (!json_is_object(spec)) {
		rc = vc_error_set(err, VC_EINVALID, "pod spec: must be an object");
		goto out;
	}
	if (!nonempty_or(vc_json_get_str(spec, "hostname"), NULL) &&
	    set_str(spec, "hostname", pod_name ? pod_name : ""))
		goto out;
	if (!nonempty_or(vc_json_get_str(spec, "subdomain"), NULL) &&
	    set_str(spec, "subdomain", job->meta.name))
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
				    append_new(env, json_pack("{s:s, s:{s:{s:s, s:s}}}", "name", n,
							      "valueFrom", "configMapKeyRef",
							      "name", cm, "key", n)))
					goto out;
				vc_free(n), n = NULL;
			}
			vc_free(KEY), KEY = NULL;
		}
		if ((rc = each_container(pod, true, add_env_fn, env, err)))
			goto out;
		rc = VC_ENOMEM;
	}
	vol = json_pack("{s:s, s:{s:s}}", "name", cm, "configMap", "name", cm);
	mount = json_pack("{s:s, s:s}", "name", cm, "mountPath", "/etc/volcano");
	if (!vol || !mount)
		goto out;
	if ((rc = append_copy(spec, "volumes", vol, err)))
		goto out;
	rc = each_container(pod, true, add_mount_fn, mount, err);
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
	char *name = obj_name(job, "-svc");
	json_t *cm = name ? new_owned(job, "v1", "ConfigMap", name) : NULL;
	json_t *data = cm ? job_svc_hosts_data(job) : NULL;

	vc_free(name);
	if (!data || json_object_set_new(cm, "data", data)) {
		json_decref(cm);
		return NULL;
	}
	return cm;
}

static json_t *job_selector(const struct vc_job *job)
{
	return json_pack("{s:s, s:s}", JOB_KEY_JOB_NAME, job->meta.name, JOB_KEY_JOB_NAMESPACE,
			 job->meta.ns);
}

static int svc_add(const struct vc_job *job, struct job_plugin_actions *out, struct vc_error *warn)
{
	struct svc_args a;
	json_t *o, *spec;

	svc_parse(job, &a, warn);
	if (append_new(out->create, svc_configmap(job)))
		return VC_ENOMEM;
	o = new_owned(job, "v1", "Service", job->meta.name);
	spec = json_pack("{s:s, s:o, s:b}", "clusterIP", "None", "selector", job_selector(job),
			 "publishNotReadyAddresses", a.publish_not_ready);
	if (!o || !spec || json_object_set_new(o, "spec", spec)) {
		json_decref(o);
		if (o)
			spec = NULL;
		json_decref(spec);
		return VC_ENOMEM;
	}
	if (append_new(out->create, o))
		return VC_ENOMEM;
	if (a.disable_np)
		return 0;
	o = new_owned(job, "networking.k8s.io/v1", "NetworkPolicy", job->meta.name);
	spec = json_pack("{s:{s:o}, s:[{s:[{s:{s:o}}]}], s:[s]}", "podSelector", "matchLabels",
			 job_selector(job), "ingress", "from", "podSelector", "matchLabels",
			 job_selector(job), "policyTypes", "Ingress");
	if (!o || !spec || json_object_set_new(o, "spec", spec)) {
		json_decref(o);
		if (o)
			spec = NULL;
		json_decref(spec);
		return VC_ENOMEM;
	}
	return append_new(out->create, o);
}

static int svc_delete(const struct vc_job *job, struct job_plugin_actions *out,
		      struct vc_error *warn)
{
	struct svc_args a;
	char *cm = obj_name(job, "-svc");
	int rc = VC_ENOMEM;

	svc_parse(job, &a, warn);
	if (cm && !add_remove(out, job, "v1", "ConfigMap", cm) &&
	    !add_remove(out, job, "v1", "Service", job->meta.name) &&
	    (a.disable_np ||
	     !add_remove(out, job, "networking.k8s.io/v1", "NetworkPolicy", job->meta.name)))
		rc = 0;
	vc_free(cm);
	return rc;
}

/* ---- ssh ----------------------------------------------------------------------------------- */

static const char b64chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Standard base64 (with padding) of len bytes into a new string, or NULL. */
static char *base64(const unsigned char *in, size_t len)
{
	char *out = vc_malloc((len + 2) / 3 * 4 + 1), *o = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i + 2 < len; i += 3) {
		*o++ = b64chars[in[i] >> 2];
		*o++ = b64chars[((in[i] & 3) << 4) | (in[i + 1] >> 4)];
		*o++ = b64chars[((in[i + 1] & 15) << 2) | (in[i + 2] >> 6)];
		*o++ = b64chars[in[i + 2] & 63];
	}
	if (i < len) {
		*o++ = b64chars[in[i] >> 2];
		if (i + 1 < len) {
			*o++ = b64chars[((in[i] & 3) << 4) | (in[i + 1] >> 4)];
			*o++ = b64chars[(in[i + 1] & 15) << 2];
		} else {
			*o++ = b64chars[(in[i] & 3) << 4];
			*o++ = '=';
		}
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

static int set_b64(json_t *obj, const char *key, const char *value)
{
	char *b = base64((const unsigned char *)value, strlen(value));
	int rc = b ? set_str(obj, key, b) : VC_ENOMEM;

	vc_free(b);
	return rc;
}

/* The ssh `config` file of §5.3 as a new string, or NULL. */
static char *ssh_config(const struct vc_job *job, int64_t port)
{
	struct vc_buf b;
	size_t i;
	char *out = NULL;

	vc_buf_init(&b, 1 << 24);
	if (vc_buf_adds(&b, "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n"))
		goto out;
	for (i = 0; i < job->ntasks; i++) {
		const struct vc_task *t = &job->tasks[i];
		const char *hn = vc_json_get_str(tspec(t), "hostname");
		const char *sd =
			nonempty_or(vc_json_get_str(tspec(t), "subdomain"), job->meta.name);
		int32_t r;

		for (r = 0; r < t->replicas; r++) {
			char own[512];
			const char *h = hn && *hn ? hn : own;

			if (hn && *hn && r > 0)
				break;
			snprintf(own, sizeof(own), "%s-%s-%d", job->meta.name, t->name, (int)r);
			if (vc_buf_addf(&b, "Host %s\n  HostName %s.%s\n  Port %lld\n", h, h, sd,
					(long long)port))
				goto out;
		}
	}
	out = vc_buf_take(&b);
out:
	vc_buf_release(&b);
	return out;
}

static int ssh_pod(const struct vc_job *job, json_t *pod, struct vc_error *warn,
		   struct vc_error *err)
{
	struct ssh_args a;
	char *name = obj_name(job, "-ssh");
	json_t *spec = json_object_get(pod, "spec"), *vol = NULL, *mount = NULL;
	int rc = VC_ENOMEM;

	ssh_parse(job, &a, warn);
	if (!name)
		goto out;
	vol = json_pack("{s:s, s:{s:s, s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s}], s:i}}",
			"name", name, "secret", "secretName", name, "items", "key", "id_rsa",
			"path", ".ssh/id_rsa", "key", "id_rsa.pub", "path", ".ssh/id_rsa.pub",
			"key", "authorized_keys", "path", ".ssh/authorized_keys", "key", "config",
			"path", ".ssh/config", "defaultMode",
			strcmp(a.path, "/root/.ssh") == 0 ? 0600 : 0644);
	mount = json_pack("{s:s, s:s, s:s}", "name", name, "mountPath", a.path, "subPath", ".ssh");
	if (!vol || !mount)
		goto out;
	if (!json_is_object(spec)) {
		rc = vc_error_set(err, VC_EINVALID, "pod spec: must be an object");
		goto out;
	}
	if ((rc = append_copy(spec, "volumes", vol, err)))
		goto out;
	rc = each_container(pod, true, add_mount_fn, mount, err);
out:
	vc_free(name);
	json_decref(vol);
	json_decref(mount);
	return rc;
}

static int ssh_add(const struct vc_job *job, const struct job_keygen *kg,
		   struct job_plugin_actions *out, struct vc_error *warn, struct vc_error *err)
{
	struct ssh_args a;
	char *priv = NULL, *pub = NULL, *config = NULL, *name = NULL;
	const char *p, *q;
	json_t *sec = NULL, *data;
	int rc;

	ssh_parse(job, &a, warn);
	if (a.port <= 0 || a.port > 65535) {
		vc_error_set(warn, VC_EINVAL, "plugin ssh: invalid ssh port %lld, using 22",
			     (long long)a.port);
		a.port = 22;
	}
	if (*a.priv) {
		p = a.priv;
		q = a.pub;
	} else {
		rc = kg->generate(kg->ctx, &priv, &pub, err);
		if (rc)
			return rc;
		p = priv;
		q = pub;
	}
	rc = VC_ENOMEM;
	if (!(config = ssh_config(job, a.port)) || !(name = obj_name(job, "-ssh")) ||
	    !(sec = new_owned(job, "v1", "Secret", name)) || !(data = json_object()) ||
	    json_object_set_new(sec, "data", data))
		goto out;
	if (set_b64(data, "id_rsa", p) || set_b64(data, "id_rsa.pub", q) ||
	    set_b64(data, "authorized_keys", q) || set_b64(data, "config", config))
		goto out;
	rc = append_new(out->create, sec);
	sec = NULL;
out:
	json_decref(sec);
	vc_free(priv);
	vc_free(pub);
	vc_free(config);
	vc_free(name);
	return rc;
}

/* ---- tensorflow ---------------------------------------------------------------------------- */

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

	if ((rc = parse_index(pod_name, &index, err)))
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
			    task_hosts(job, &job->tasks[i], true, port, hosts)) {
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
	if (set_str(task, "type", type) ||
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

static const char *pod_task(const json_t *pod)
{
	return vc_json_get_str(vc_json_path(pod, "metadata.labels"), JOB_KEY_TASK_SPEC);
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
	rc = job_tf_config(job, nonempty_or(pod_task(pod), ""), pod_name_of(pod), a.roles, a.port,
			   &cfg, err);
	if (rc)
		return rc;
	rc = VC_ENOMEM;
	if ((env = json_array()) && !env_lit(env, "TF_CONFIG", cfg))
		rc = each_container(pod, false, add_env_fn, env, err);
	vc_free(cfg);
	json_decref(env);
	return rc;
}

/* ---- pytorch / mpi ports ------------------------------------------------------------------- */

struct port_ctx {
	const char *name;
	int64_t port;
};

static int add_port_fn(json_t *c, void *ctx, struct vc_error *err)
{
	const struct port_ctx *pc = ctx;
	json_t *ports = json_object_get(c, "ports"), *p;
	size_t i;

	json_array_foreach (ports, i, p)
		if (vc_json_get_int(p, "containerPort", -1) == pc->port)
			return 0;
	p = json_pack("{s:s, s:I}", "name", pc->name, "containerPort", (json_int_t)pc->port);
	if (!p)
		return VC_ENOMEM;
	if (ports && !json_is_array(ports)) {
		json_decref(p);
		return vc_error_set(err, VC_EINVALID, "container ports: must be an array");
	}
	return append_new(get_or_add_array(c, "ports"), p);
}

/* Both port-then-env in one pass per container, as pytorch does. */
struct port_env_ctx {
	struct port_ctx port;
	json_t *env;
};

static int port_env_fn(json_t *c, void *ctx, struct vc_error *err)
{
	struct port_env_ctx *pe = ctx;
	int rc = add_port_fn(c, &pe->port, err);

	return rc ? rc : add_env_fn(c, pe->env, err);
}

/* The wait-for-master script (§5.5); its arguments are the timeout twice. */
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
	const char *task = nonempty_or(pod_task(pod), "");
	char *addr = NULL, *script = NULL, num[24];
	json_t *hosts = NULL, *env = NULL, *ic = NULL, *inits, *c;
	struct port_env_ctx pe;
	int64_t index = 0;
	size_t i;
	int rc = VC_ENOMEM;

	pt_parse(job, &a, warn);
	master = vc_job_task(job, a.master);
	if (!master)
		return 0;
	worker = vc_job_task(job, a.worker);
	if (!(hosts = json_array()) || !(env = json_array()))
		goto out;
	{
		/* Replica 0 of the master even when it has no replicas. */
		struct vc_task one = *master;

		one.replicas = 1;
		if (task_hosts(job, &one, false, -1, hosts))
			goto out;
	}
	if (env_lit(env, "MASTER_ADDR", json_string_value(json_array_get(hosts, 0))))
		goto out;
	snprintf(num, sizeof(num), "%lld", (long long)a.port);
	if (env_lit(env, "MASTER_PORT", num))
		goto out;
	snprintf(num, sizeof(num), "%lld",
		 (long long)master->replicas + (worker ? (long long)worker->replicas : 0));
	if (env_lit(env, "WORLD_SIZE", num))
		goto out;
	if (strcmp(task, master->name) == 0) {
		if (env_lit(env, "RANK", "0"))
			goto out;
	} else if (worker && strcmp(task, worker->name) == 0) {
		if ((rc = parse_index(pod_name_of(pod), &index, err)))
			goto out;
		rc = VC_ENOMEM;
		snprintf(num, sizeof(num), "%lld", (long long)index + 1);
		if (env_lit(env, "RANK", num))
			goto out;
	}
	pe.port = (struct port_ctx){ "pytorchjob-port", a.port };
	pe.env = env;
	if ((rc = each_container(pod, false, port_env_fn, &pe, err)))
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
	addr = vc_strdup(json_string_value(json_array_get(hosts, 0)));
	script = vc_asprintf(WAIT_SCRIPT, (long long)a.timeout, (long long)a.timeout);
	if (!addr || !script)
		goto out;
	snprintf(num, sizeof(num), "%lld", (long long)a.port);
	ic = json_pack("{s:s, s:s, s:[s, s, s], s:[{s:s, s:s}, {s:s, s:s}]}", "name",
		       "wait-for-master", "image", a.image, "command", "sh", "-c", script, "env",
		       "name", "MASTER_ADDR", "value", addr, "name", "MASTER_PORT", "value", num);
	if (!ic)
		goto out;
	rc = append_copy(json_object_get(pod, "spec"), "initContainers", ic, err);
out:
	vc_free(addr);
	vc_free(script);
	json_decref(ic);
	json_decref(hosts);
	json_decref(env);
	return rc;
}

static int mpi_pod(const struct vc_job *job, json_t *pod, struct vc_error *warn,
		   struct vc_error *err)
{
	struct mpi_args a;
	const struct vc_task *worker;
	const char *task = nonempty_or(pod_task(pod), "");
	bool is_master;
	struct port_ctx pc;
	json_t *hosts = NULL, *env = NULL;
	char *joined = NULL;
	int rc;

	mpi_parse(job, &a, warn);
	is_master = strcmp(task, a.master) == 0;
	worker = vc_job_task(job, a.worker);
	if (is_master && !worker)
		return 0;
	pc = (struct port_ctx){ "mpijob-port", a.port };
	if ((rc = each_container(pod, true, add_port_fn, &pc, err)) || !is_master)
		return rc;
	rc = VC_ENOMEM;
	if ((hosts = json_array()) && !task_hosts(job, worker, false, -1, hosts) &&
	    (joined = join(hosts, ",")) && (env = json_array()) &&
	    !env_lit(env, "MPI_HOST", joined))
		rc = each_container(pod, true, add_env_fn, env, err);
	vc_free(joined);
	json_decref(hosts);
	json_decref(env);
	return rc;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

/* Which plugins job enables, in run order; VC_EINVALID for an unknown name. */
static int enabled(const struct vc_job *job, bool on[JOB_PLUGIN_COUNT], struct vc_error *err)
{
	const char *name;
	json_t *v;
	int p;

	memset(on, 0, JOB_PLUGIN_COUNT * sizeof(on[0]));
	if (!json_is_object(job->plugins))
		return 0;
	json_object_foreach (job->plugins, name, v) {
		for (p = 0; p < JOB_PLUGIN_COUNT; p++)
			if (strcmp(name, job_plugin_names[p]) == 0)
				break;
		if (p == JOB_PLUGIN_COUNT)
			return vc_error_set(err, VC_EINVALID, "failed to get plugin %s", name);
		on[p] = true;
	}
	return 0;
}

int job_plugins_on_pod_create(const struct vc_job *job, json_t *pod, struct vc_error *warn,
			      struct vc_error *err)
{
	bool on[JOB_PLUGIN_COUNT];
	int rc;

	if ((rc = enabled(job, on, err)))
		return rc;
	if (on[P_ENV] && (rc = env_pod(job, pod, err)))
		return rc;
	if (on[P_SVC] && (rc = svc_pod(job, pod, warn, err)))
		return rc;
	if (on[P_SSH] && (rc = ssh_pod(job, pod, warn, err)))
		return rc;
	if (on[P_TF] && (rc = tf_pod(job, pod, warn, err)))
		return rc;
	if (on[P_PYTORCH] && (rc = pytorch_pod(job, pod, warn, err)))
		return rc;
	if (on[P_MPI] && (rc = mpi_pod(job, pod, warn, err)))
		return rc;
	return 0;
}

void job_plugin_actions_release(struct job_plugin_actions *a)
{
	if (!a)
		return;
	json_decref(a->create);
	json_decref(a->remove);
	json_decref(a->markers_set);
	json_decref(a->markers_remove);
	memset(a, 0, sizeof(*a));
}

static int actions_init(struct job_plugin_actions *a)
{
	a->create = json_array();
	a->remove = json_array();
	a->markers_set = json_object();
	a->markers_remove = json_array();
	if (!a->create || !a->remove || !a->markers_set || !a->markers_remove) {
		job_plugin_actions_release(a);
		return VC_ENOMEM;
	}
	return 0;
}

static bool has_marker(const struct vc_job *job, int p)
{
	char key[32];

	snprintf(key, sizeof(key), "plugin-%s", job_plugin_names[p]);
	return vc_str_eq(vc_json_get_str(job->status.controlled_resources, key),
			 job_plugin_names[p]);
}

static int marker_key(int p, char key[32])
{
	return snprintf(key, 32, "plugin-%s", job_plugin_names[p]) > 0 ? 0 : VC_EINVAL;
}

int job_plugins_on_job_add(const struct vc_job *job, const struct job_keygen *keygen,
			   struct job_plugin_actions *out, struct vc_error *warn,
			   struct vc_error *err)
{
	bool on[JOB_PLUGIN_COUNT];
	char key[32];
	int p, rc;

	if ((rc = enabled(job, on, err)) || (rc = actions_init(out)))
		return rc;
	if (!keygen)
		keygen = &job_keygen_openssl;
	for (p = 0; p < JOB_PLUGIN_COUNT; p++) {
		if (!on[p] || has_marker(job, p))
			continue;
		if (p == P_SVC)
			rc = svc_add(job, out, warn);
		else if (p == P_SSH)
			rc = ssh_add(job, keygen, out, warn, err);
		if (rc)
			goto fail;
		if ((rc = marker_key(p, key)) ||
		    (rc = set_str(out->markers_set, key, job_plugin_names[p])))
			goto fail;
	}
	return 0;
fail:
	job_plugin_actions_release(out);
	return rc;
}

int job_plugins_on_job_update(const struct vc_job *job, struct job_plugin_actions *out,
			      struct vc_error *warn, struct vc_error *err)
{
	bool on[JOB_PLUGIN_COUNT];
	int rc;

	(void)warn;
	if ((rc = enabled(job, on, err)) || (rc = actions_init(out)))
		return rc;
	if (on[P_SVC] && append_new(out->create, svc_configmap(job))) {
		job_plugin_actions_release(out);
		return VC_ENOMEM;
	}
	return 0;
}

int job_plugins_on_job_delete(const struct vc_job *job, struct job_plugin_actions *out,
			      struct vc_error *warn, struct vc_error *err)
{
	bool on[JOB_PLUGIN_COUNT];
	char key[32];
	char *name;
	int p, rc;

	if ((rc = enabled(job, on, err)) || (rc = actions_init(out)))
		return rc;
	for (p = 0; p < JOB_PLUGIN_COUNT; p++) {
		if (!on[p] || !has_marker(job, p))
			continue;
		if (p == P_SVC) {
			rc = svc_delete(job, out, warn);
		} else if (p == P_SSH) {
			name = obj_name(job, "-ssh");
			rc = name ? add_remove(out, job, "v1", "Secret", name) : VC_ENOMEM;
			vc_free(name);
		}
		if (rc || (rc = marker_key(p, key)) ||
		    (rc = append_new(out->markers_remove, json_string(key))))
			goto fail;
	}
	return 0;
fail:
	job_plugin_actions_release(out);
	return rc;
}

/* ---- OpenSSL key generation ---------------------------------------------------------------- */

/* Append an SSH wire-format string (uint32 length + bytes). */
static int ssh_put(struct vc_buf *b, const unsigned char *p, size_t n)
{
	unsigned char len[4] = { (unsigned char)(n >> 24), (unsigned char)(n >> 16),
				 (unsigned char)(n >> 8), (unsigned char)n };

	return vc_buf_add(b, len, 4) ? VC_ENOMEM : vc_buf_add(b, p, n) ? VC_ENOMEM : 0;
}

/* Append an SSH mpint (big-endian, a leading zero byte when the top bit is set). */
static int ssh_put_bn(struct vc_buf *b, const BIGNUM *bn)
{
	int n = BN_num_bytes(bn);
	unsigned char *tmp = vc_malloc((size_t)n + 1);
	int rc;

	if (!tmp)
		return VC_ENOMEM;
	tmp[0] = 0;
	BN_bn2bin(bn, tmp + 1);
	if (n > 0 && (tmp[1] & 0x80))
		rc = ssh_put(b, tmp, (size_t)n + 1);
	else
		rc = ssh_put(b, tmp + 1, (size_t)n);
	vc_free(tmp);
	return rc;
}

static int openssl_generate(void *ctx, char **priv, char **pub, struct vc_error *err)
{
	EVP_PKEY *pkey = NULL;
	BIO *bio = NULL;
	BIGNUM *n = NULL, *e = NULL;
	struct vc_buf wire;
	char *pem = NULL, *b64 = NULL;
	const char *data;
	long len;
	int rc = VC_ENOMEM;

	(void)ctx;
	*priv = *pub = NULL;
	vc_buf_init(&wire, 1 << 16);
	pkey = EVP_RSA_gen(2048);
	if (!pkey) {
		rc = vc_error_set(err, VC_EIO, "failed to generate an RSA key");
		goto out;
	}
	bio = BIO_new(BIO_s_mem());
	if (!bio || !PEM_write_bio_PrivateKey_traditional(bio, pkey, NULL, NULL, 0, NULL, NULL))
		goto out;
	len = BIO_get_mem_data(bio, &data);
	if (len <= 0 || !(pem = vc_strndup(data, (size_t)len)))
		goto out;
	if (!EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_N, &n) ||
	    !EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_E, &e))
		goto out;
	if (ssh_put(&wire, (const unsigned char *)"ssh-rsa", 7) || ssh_put_bn(&wire, e) ||
	    ssh_put_bn(&wire, n))
		goto out;
	b64 = base64((const unsigned char *)vc_buf_str(&wire), wire.len);
	if (!b64 || !(*pub = vc_asprintf("ssh-rsa %s\n", b64)))
		goto out;
	*priv = pem;
	pem = NULL;
	rc = 0;
out:
	vc_free(pem);
	vc_free(b64);
	vc_buf_release(&wire);
	BN_free(n);
	BN_free(e);
	BIO_free(bio);
	EVP_PKEY_free(pkey);
	return rc;
}

const struct job_keygen job_keygen_openssl = { openssl_generate, NULL };
