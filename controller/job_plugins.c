/*
 * job_plugins.c - the job plugins' dispatch (docs/volcano/job-controller.md §5): Go flag parsing,
 * the helpers the plugins share, and the plugin table in run order. Each plugin is in
 * job_plugin_<name>.c.
 */
#include "job_plugin.h"

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_str.h"
#include "vc_strconv.h"

/*
 * The plugins by the names of common/vc_model.h (enum vc_job_plugin, which the webhook checks
 * Jobs against), in the order they run. Adding a plugin is its name there, its file, and one
 * row here.
 */
static const struct job_plugin *const plugins[] = {
	[VC_JOB_PLUGIN_ENV] = &job_plugin_env,
	[VC_JOB_PLUGIN_SVC] = &job_plugin_svc,
	[VC_JOB_PLUGIN_SSH] = &job_plugin_ssh,
	[VC_JOB_PLUGIN_TENSORFLOW] = &job_plugin_tensorflow,
	[VC_JOB_PLUGIN_PYTORCH] = &job_plugin_pytorch,
	[VC_JOB_PLUGIN_MPI] = &job_plugin_mpi,
	[VC_JOB_PLUGIN_RAY] = &job_plugin_ray,
	[VC_JOB_PLUGIN_HCCLRANK] = &job_plugin_hcclrank,
};

_Static_assert(VC_ARRAY_SIZE(plugins) == VC_JOB_PLUGIN_COUNT, "a job plugin without a row");

#define NPLUGINS ((int)VC_ARRAY_SIZE(plugins))

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
 *
 * Kept instead of the Go-exact vc_strconv_parse_int, which differs in two ways that show in the
 * flag error messages and the pod index: with base 0 Go also takes underscores in a decimal
 * number ("1_000"), which this rejects; and this reports the first problem in reading order
 * (a misplaced underscore or bad digit as a syntax error, a magnitude past 2^63 as a range
 * error) where Go reads all digits up to 2^64 first and checks the underscores last, so
 * "9223372036854775809x" is a range error here and a syntax error in Go. Switching is a fix
 * toward Volcano, not a refactor.
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

			if (eq && vc_parse_bool(eq + 1, &b))
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

int jp_set_str(json_t *obj, const char *key, const char *value)
{
	return json_object_set_new(obj, key, json_string(value)) ? VC_ENOMEM : 0;
}

/* Append a new reference v to arr; NULL v or a failed append is VC_ENOMEM. */
int jp_append_new(json_t *arr, json_t *v)
{
	return json_array_append_new(arr, v) ? VC_ENOMEM : 0;
}

/* obj[key] as an array, created when absent; NULL on ENOMEM or when it is not an array. */
json_t *jp_get_or_add_array(json_t *obj, const char *key)
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
int jp_append_copy(json_t *obj, const char *key, const json_t *item, struct vc_error *err)
{
	json_t *arr = json_object_get(obj, key), *c;

	if (arr && !json_is_array(arr))
		return vc_error_set(err, VC_EINVALID, "pod field '%s' must be an array", key);
	arr = jp_get_or_add_array(obj, key);
	c = arr ? json_deep_copy(item) : NULL;
	return jp_append_new(arr, c);
}

/* Apply fn to every container (and every init container when with_init). */
int jp_each_container(json_t *pod, bool with_init, jp_container_fn fn, void *ctx,
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
int jp_add_env_fn(json_t *c, void *ctx, struct vc_error *err)
{
	json_t *env = ctx, *e;
	size_t i;
	int rc;

	json_array_foreach (env, i, e)
		if ((rc = jp_append_copy(c, "env", e, err)))
			return rc;
	return 0;
}

int jp_add_mount_fn(json_t *c, void *ctx, struct vc_error *err)
{
	return jp_append_copy(c, "volumeMounts", ctx, err);
}

/* Append a literal env var {name, value} to env. */
int jp_env_lit(json_t *env, const char *name, const char *value)
{
	return jp_append_new(env, json_pack("{s:s, s:s}", "name", name, "value", value));
}

/* The string after the last '-' of s (the whole string without one). */
const char *jp_last_component(const char *s)
{
	const char *d = strrchr(s, '-');

	return d ? d + 1 : s;
}

int jp_parse_index(const char *pod_name, int64_t *out, struct vc_error *err)
{
	const char *s = jp_last_component(pod_name);

	if (go_parse_int(s, 0, out))
		return vc_error_set(err, VC_EINVALID,
				    "failed to get index of pod '%s': not an integer", pod_name);
	return 0;
}

/* The template spec of task t (borrowed) or NULL. */
const json_t *jp_tspec(const struct vc_task *t)
{
	return t->template ? vc_json_get_obj(t->template, "spec") : NULL;
}

const char *jp_nonempty_or(const char *s, const char *def)
{
	return s && *s ? s : def;
}

/*
 * Append the hosts of task t (docs/volcano/job-controller.md §2.1.3) to arr, with ":port" when port
 * >= 0. A fixed template hostname gives one entry, or `replicas` copies of it when repeat is set.
 */
int jp_task_hosts(const struct vc_job *job, const struct vc_task *t, bool repeat, int64_t port,
		  json_t *arr)
{
	const char *hn = vc_json_get_str(jp_tspec(t), "hostname");
	const char *sd = jp_nonempty_or(vc_json_get_str(jp_tspec(t), "subdomain"), job->meta.name);
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
		rc = jp_append_new(arr, json_string(h));
		vc_free(h);
		if (rc)
			return rc;
	}
	return 0;
}

/* The host of replica 0 of task t (docs/volcano/job-controller.md §2.1.3), even when t has no
 * replicas, as a new string, or NULL. */
char *jp_first_host(const struct vc_job *job, const struct vc_task *t)
{
	struct vc_task one = *t;
	json_t *arr = json_array();
	char *h = NULL;

	one.replicas = 1;
	if (arr && !jp_task_hosts(job, &one, false, -1, arr))
		h = vc_strdup(json_string_value(json_array_get(arr, 0)));
	json_decref(arr);
	return h;
}

/* Join the strings of arr with sep into a new string, or NULL. */
char *jp_join(const json_t *arr, const char *sep)
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
char *jp_obj_name(const struct vc_job *job, const char *suffix)
{
	return vc_asprintf("%s%s", job->meta.name, suffix);
}

/* A new object {apiVersion, kind, metadata{name, namespace, ownerReferences}}, or NULL. */
json_t *jp_new_owned(const struct vc_job *job, const char *api, const char *kind, const char *name)
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

/* {volcano.sh/job-name: <job>, volcano.sh/job-namespace: <ns>} as a new object, or NULL. */
json_t *jp_job_selector(const struct vc_job *job)
{
	return json_pack("{s:s, s:s}", JOB_KEY_JOB_NAME, job->meta.name, JOB_KEY_JOB_NAMESPACE,
			 job->meta.ns);
}

int jp_add_remove(struct job_plugin_actions *a, const struct vc_job *job, const char *api,
		  const char *kind, const char *name)
{
	return jp_append_new(a->remove, json_pack("{s:s, s:s, s:s, s:s}", "apiVersion", api, "kind",
						  kind, "namespace", job->meta.ns, "name", name));
}

/* ---- shared by the plugins ------------------------------------------------------------------ */

/* Parse the arguments of plugin into f (docs/volcano/job-controller.md §5.0: a bad argument is
 * reported through warn only). */
void jp_parse_args(const struct vc_job *job, enum vc_job_plugin plugin, const struct job_flag *f,
		   size_t n, struct vc_error *warn)
{
	const char *name = vc_job_plugin_name(plugin);

	if (job_flags_parse(f, n, json_object_get(job->plugins, name), warn))
		vc_error_prefix(warn, "plugin %s", name);
}

/* The pod name, "" when absent. */
const char *jp_pod_name_of(const json_t *pod)
{
	return jp_nonempty_or(vc_json_get_str(json_object_get(pod, "metadata"), "name"), "");
}

const char *jp_pod_task(const json_t *pod)
{
	return vc_json_get_str(vc_json_path(pod, "metadata.labels"), JOB_KEY_TASK_SPEC);
}

/* ---- pytorch / mpi ports ------------------------------------------------------------------- */

int jp_add_port_fn(json_t *c, void *ctx, struct vc_error *err)
{
	const struct jp_port_ctx *pc = ctx;
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
	return jp_append_new(jp_get_or_add_array(c, "ports"), p);
}

/* ---- dispatch ------------------------------------------------------------------------------ */

/* Which plugins job enables, in run order; VC_EINVALID for an unknown name. */
static int enabled(const struct vc_job *job, bool on[NPLUGINS], struct vc_error *err)
{
	const char *name;
	json_t *v;
	int p;

	memset(on, 0, NPLUGINS * sizeof(on[0]));
	if (!json_is_object(job->plugins))
		return 0;
	json_object_foreach (job->plugins, name, v) {
		p = (int)vc_job_plugin_parse(name);
		if (p < 0)
			return vc_error_set(err, VC_EINVALID, "failed to get plugin %s", name);
		on[p] = true;
	}
	return 0;
}

int job_plugins_on_pod_create(const struct vc_job *job, json_t *pod, struct vc_error *warn,
			      struct vc_error *err)
{
	bool on[NPLUGINS];
	int p, rc;

	if ((rc = enabled(job, on, err)))
		return rc;
	for (p = 0; p < NPLUGINS; p++)
		if (on[p] && plugins[p]->on_pod_create &&
		    (rc = plugins[p]->on_pod_create(job, pod, warn, err)))
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

	snprintf(key, sizeof(key), "plugin-%s", vc_job_plugin_name(p));
	return vc_str_eq(vc_json_get_str(job->status.controlled_resources, key),
			 vc_job_plugin_name(p));
}

static int marker_key(int p, char key[32])
{
	return snprintf(key, 32, "plugin-%s", vc_job_plugin_name(p)) > 0 ? 0 : VC_EINVAL;
}

int job_plugins_on_job_add(const struct vc_job *job, const struct job_keygen *keygen,
			   struct job_plugin_actions *out, struct vc_error *warn,
			   struct vc_error *err)
{
	bool on[NPLUGINS];
	char key[32];
	int p, rc;

	if ((rc = enabled(job, on, err)) || (rc = actions_init(out)))
		return rc;
	if (!keygen)
		keygen = &job_keygen_openssl;
	for (p = 0; p < NPLUGINS; p++) {
		if (!on[p] || (!plugins[p]->no_marker && has_marker(job, p)))
			continue;
		if (plugins[p]->on_job_add)
			rc = plugins[p]->on_job_add(job, keygen, out, warn, err);
		if (rc)
			goto fail;
		if (plugins[p]->no_marker)
			continue;
		if ((rc = marker_key(p, key)) ||
		    (rc = jp_set_str(out->markers_set, key, vc_job_plugin_name(p))))
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
	bool on[NPLUGINS];
	int p, rc;

	(void)warn;
	if ((rc = enabled(job, on, err)) || (rc = actions_init(out)))
		return rc;
	for (p = 0; p < NPLUGINS; p++)
		if (on[p] && plugins[p]->on_job_update &&
		    (rc = plugins[p]->on_job_update(job, out))) {
			job_plugin_actions_release(out);
			return rc;
		}
	return 0;
}

int job_plugins_on_job_delete(const struct vc_job *job, struct job_plugin_actions *out,
			      struct vc_error *warn, struct vc_error *err)
{
	bool on[NPLUGINS];
	char key[32];
	int p, rc;

	if ((rc = enabled(job, on, err)) || (rc = actions_init(out)))
		return rc;
	for (p = 0; p < NPLUGINS; p++) {
		if (!on[p] || (!plugins[p]->no_marker && !has_marker(job, p)))
			continue;
		if (plugins[p]->on_job_delete)
			rc = plugins[p]->on_job_delete(job, out, warn);
		if (rc)
			goto fail;
		if (plugins[p]->no_marker)
			continue;
		if ((rc = marker_key(p, key)) ||
		    (rc = jp_append_new(out->markers_remove, json_string(key))))
			goto fail;
	}
	return 0;
fail:
	job_plugin_actions_release(out);
	return rc;
}
