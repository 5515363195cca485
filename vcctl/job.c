/*
 * job.c - vcctl job run / list / view / suspend / resume / delete (Volcano's pkg/cli/job).
 */
#include "vcctl.h"

#include <ctype.h>
#include <time.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_quantity.h"
#include "vc_time.h"
#include "vc_yaml.h"

#define JOB_API_VERSION "batch.volcano.sh/v1alpha1"
#define JOB_KIND	"Job"
#define JOB_TYPE_LABEL	"volcano.sh/job-type"
#define JOB_NAME_LABEL	"job.volcano.sh"
/* What Go prints for a zero metav1.Time. */
#define GO_ZERO_TIME	"0001-01-01 00:00:00 +0000 UTC"
#define GO_ZERO_DATE	"0001-01-01"
#define GO_TIME_STR_MAX 64

/* ---- resources and the Job of `job run` -------------------------------------------------- */

static bool blank(const char *s)
{
	return !s || !*s;
}

int vcctl_parse_resources(const char *spec, json_t **out, struct vc_error *err)
{
	const char *p, *end, *eq;
	struct vc_quantity q;
	json_t *res;
	int rc;

	if (!out)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	*out = NULL;
	if (!spec || !*spec)
		return 0;
	res = json_object();
	if (!res)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	for (p = spec;; p = end + 1) {
		char name[256], value[VC_QUANTITY_STR_MAX * 2];
		size_t len;

		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		eq = memchr(p, '=', len);
		/* Go's strings.Split(statement, "=") must give exactly two parts. */
		if (!eq || memchr(eq + 1, '=', (size_t)(end - eq - 1))) {
			rc = vc_error_set(
				err, VC_EINVAL,
				"invalid argument syntax %.*s, expected <resource>=<value>",
				(int)len, p);
			goto fail;
		}
		if ((size_t)(eq - p) >= sizeof(name) || (size_t)(end - eq - 1) >= sizeof(value)) {
			rc = vc_error_set(err, VC_EINVAL, "invalid argument syntax %.*s: too long",
					  (int)len, p);
			goto fail;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - p), p);
		snprintf(value, sizeof(value), "%.*s", (int)(end - eq - 1), eq + 1);
		rc = vc_quantity_parse(value, &q, err);
		if (rc)
			goto fail;
		if (json_object_set_new(res, name, vc_quantity_to_json(&q))) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto fail;
		}
		if (!*end)
			break;
	}
	*out = res;
	return 0;
fail:
	json_decref(res);
	return rc;
}

int vcctl_job_from_flags(const struct vcctl_opts *o, json_t **out, struct vc_error *err)
{
	json_t *req = NULL, *lim = NULL, *job;
	int rc;

	if (!o || !out)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	*out = NULL;
	rc = vcctl_parse_resources(o->requests, &req, err);
	if (rc)
		return rc;
	rc = vcctl_parse_resources(o->limits, &lim, err);
	if (rc) {
		json_decref(req);
		return rc;
	}
	/* json_pack steals lim and req ("o*" leaves out a NULL one), also when it fails. */
	job = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:i, s:[{s:i, s:{s:{s:s, s:{s:s}}, "
			"s:{s:[{s:s, s:s, s:{s:o*, s:o*}, s:s}], s:s}}}]}}",
			"apiVersion", JOB_API_VERSION, "kind", JOB_KIND, "metadata", "name",
			o->name ? o->name : "", "namespace", o->namespace ? o->namespace : "",
			"spec", "schedulerName", o->scheduler ? o->scheduler : "", "minAvailable",
			o->min, "tasks", "replicas", o->replicas, "template", "metadata", "name",
			o->name ? o->name : "", "labels", JOB_NAME_LABEL, o->name ? o->name : "",
			"spec", "containers", "name", o->name ? o->name : "", "image",
			o->image ? o->image : "", "resources", "limits", lim, "requests", req,
			"imagePullPolicy", "IfNotPresent", "restartPolicy", "Never");
	if (!job)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	if (!blank(o->command)) {
		json_t *task =
			json_array_get(json_object_get(json_object_get(job, "spec"), "tasks"), 0);
		json_t *c = json_array_get(
			json_object_get(json_object_get(json_object_get(task, "template"), "spec"),
					"containers"),
			0);
		json_t *argv = NULL;

		rc = vcctl_split_command(o->command, &argv, err);
		if (!rc && json_object_set_new(c, "command", argv))
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		if (rc) {
			json_decref(job);
			return rc;
		}
	}
	/* Go's omitempty: zero numbers and empty strings are not sent. */
	{
		json_t *spec = json_object_get(job, "spec");
		json_t *task = json_array_get(json_object_get(spec, "tasks"), 0);

		if (!o->min)
			json_object_del(spec, "minAvailable");
		if (!o->scheduler || !*o->scheduler)
			json_object_del(spec, "schedulerName");
		if (!o->replicas)
			json_object_del(task, "replicas");
		if (!o->namespace || !*o->namespace)
			json_object_del(json_object_get(job, "metadata"), "namespace");
	}
	*out = job;
	return 0;
}

int vcctl_split_command(const char *s, json_t **out, struct vc_error *err)
{
	struct vc_buf word;
	json_t *argv;
	bool in_word = false;
	size_t i = 0;
	int rc;

	*out = NULL;
	if (blank(s))
		return 0;
	argv = json_array();
	if (!argv)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	vc_buf_init(&word, VCCTL_COMMAND_MAX);
	while (s[i]) {
		char c = s[i++], quote;

		if (isspace((unsigned char)c)) {
			if (in_word && json_array_append_new(argv, json_string(vc_buf_str(&word))))
				goto nomem;
			vc_buf_reset(&word);
			in_word = false;
			continue;
		}
		if (c == '#' && !in_word)
			break; /* a comment to the end */
		in_word = true;
		if (c == '\\') {
			if (!s[i]) {
				rc = vc_error_set(err, VC_EINVAL,
						  "EOF found after escape character");
				goto fail;
			}
			if (vc_buf_addc(&word, s[i++]))
				goto nomem;
			continue;
		}
		if (c != '\'' && c != '"') {
			if (vc_buf_addc(&word, c))
				goto nomem;
			continue;
		}
		for (quote = c; s[i] != quote; i++) {
			if (quote == '"' && s[i] == '\\' && s[i + 1])
				i++;
			if (!s[i] || (quote == '"' && s[i] == '\\' && !s[i + 1])) {
				rc = vc_error_set(err, VC_EINVAL,
						  "EOF found when expecting closing quote");
				goto fail;
			}
			if (vc_buf_addc(&word, s[i]))
				goto nomem;
		}
		i++; /* the closing quote */
	}
	if (in_word && json_array_append_new(argv, json_string(vc_buf_str(&word))))
		goto nomem;
	vc_buf_release(&word);
	*out = argv;
	return 0;
nomem:
	rc = vc_error_set(err, VC_ENOMEM, "out of memory");
fail:
	vc_buf_release(&word);
	json_decref(argv);
	return rc;
}

/* ---- checks ------------------------------------------------------------------------------- */

/* vcancel: job delete under Volcano's single-command name. */
static bool is_vcancel(const struct vcctl_opts *o)
{
	return o->alias && !strcmp(o->alias, "vcancel");
}

int vcctl_job_check(const struct vcctl_opts *o, struct vc_error *err)
{
	json_t *cmd = NULL;

	json_t *res = NULL;
	int rc;

	switch (o->cmd) {
	case VCCTL_JOB_RUN:
		if (blank(o->name) && blank(o->filename))
			return vc_error_set(err, VC_EINVAL, "job name cannot be left blank");
		rc = vcctl_split_command(o->command, &cmd, err);
		json_decref(cmd);
		if (rc)
			return rc;
		rc = vcctl_parse_resources(o->requests, &res, err);
		json_decref(res);
		res = NULL;
		if (!rc)
			rc = vcctl_parse_resources(o->limits, &res, err);
		json_decref(res);
		if (rc)
			return rc;
		if (!blank(o->filename) && !strstr(o->filename, ".yaml") &&
		    !strstr(o->filename, ".yml"))
			return vc_error_set(err, VC_EINVAL, "only support yaml file");
		return 0;
	case VCCTL_JOB_VIEW:
		if (blank(o->name))
			return vc_error_set(err, VC_EINVAL,
					    "job name (specified by --name or -N) is mandatory to "
					    "view a particular job");
		return 0;
	case VCCTL_JOB_EXPLAIN:
		if (blank(o->name))
			return vc_error_set(err, VC_EINVAL,
					    "job name (NAME, --name or -N) is mandatory to explain "
					    "a job");
		return 0;
	case VCCTL_JOB_SUSPEND:
	case VCCTL_JOB_RESUME:
	case VCCTL_JOB_DELETE:
		if (blank(o->name))
			return vc_error_set(err, VC_EINVAL,
					    "job name is mandatory to %s a particular job",
					    o->cmd == VCCTL_JOB_SUSPEND	 ? "suspend"
					    : o->cmd == VCCTL_JOB_RESUME ? "resume"
					    : is_vcancel(o)		 ? "cancel"
									 : "delete");
		return 0;
	default:
		return 0;
	}
}

/* ---- Commands ----------------------------------------------------------------------------- */

int vcctl_command_new(const json_t *target, const char *api_version, const char *kind,
		      const char *ns, const char *action, json_t **out, struct vc_error *err)
{
	const json_t *meta = json_object_get(target, "metadata");
	const char *name = vc_json_get_str(meta, "name"), *uid = vc_json_get_str(meta, "uid");
	json_t *ref, *cmd;
	char *gen;
	size_t i;

	if (!out || !api_version || !kind || !action)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	*out = NULL;
	if (blank(name) || blank(uid))
		return vc_error_set(err, VC_EINVAL, "the %s has no name or uid", kind);
	/* metav1.NewControllerRef */
	ref = json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "apiVersion", api_version, "kind", kind,
			"name", name, "uid", uid, "controller", 1, "blockOwnerDeletion", 1);
	gen = vc_asprintf("%s-%s-", name, action);
	if (!ref || !gen) {
		json_decref(ref);
		vc_free(gen);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	for (i = strlen(name) + 1; gen[i]; i++)
		gen[i] = (char)tolower((unsigned char)gen[i]);
	cmd = json_pack("{s:s, s:s, s:{s:s, s:s*, s:[O]}, s:O, s:s}", "apiVersion",
			"bus.volcano.sh/v1alpha1", "kind", "Command", "metadata", "generateName",
			gen, "namespace", blank(ns) ? NULL : ns, "ownerReferences", ref, "target",
			ref, "action", action);
	json_decref(ref);
	vc_free(gen);
	if (!cmd)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	*out = cmd;
	return 0;
}

/* ---- time --------------------------------------------------------------------------------- */

/*
 * ts in the local zone as Go's time.Time.String() prints it, or only its date (Format
 * "2006-01-02"); false when ts is not a time.
 */
static bool go_time(const char *ts, char *buf, size_t len, bool date_only)
{
	int64_t sec;
	time_t t;
	struct tm tm;
	size_t n;

	if (!ts || vc_time_parse_rfc3339(ts, &sec, NULL, NULL))
		return false;
	t = (time_t)sec;
	if (!localtime_r(&t, &tm))
		return false;
	if (date_only)
		n = strftime(buf, len, "%Y-%m-%d", &tm);
	else
		n = strftime(buf, len, "%Y-%m-%d %H:%M:%S %z %Z", &tm);
	return n > 0;
}

static void time_string(const json_t *v, char *buf, size_t len)
{
	if (!go_time(json_string_value(v), buf, len, false))
		snprintf(buf, len, "%s", GO_ZERO_TIME);
}

void vcctl_since(const json_t *ts, int64_t now_ns, char *buf, size_t len)
{
	int64_t sec;
	int32_t nsec;

	if (!json_is_string(ts) ||
	    vc_time_parse_rfc3339(json_string_value(ts), &sec, &nsec, NULL)) {
		snprintf(buf, len, "<unknown>");
		return;
	}
	vc_duration_human(now_ns - (sec * VC_NSEC_PER_SEC + nsec), buf, len);
}

/* ---- job list ----------------------------------------------------------------------------- */

static const char *str_or_empty(const json_t *obj, const char *key)
{
	const char *s = vc_json_get_str(obj, key);

	return s ? s : "";
}

/* Volcano HEAD's filterJobs: --queue, --scheduler and --selector (a part of the name). */
static bool job_shown(const json_t *job, const struct vcctl_opts *o)
{
	const json_t *spec = json_object_get(job, "spec");
	const char *name = str_or_empty(json_object_get(job, "metadata"), "name");

	if (!blank(o->queue) && strcmp(o->queue, str_or_empty(spec, "queue")) != 0)
		return false;
	if (!blank(o->scheduler) && strcmp(o->scheduler, str_or_empty(spec, "schedulerName")) != 0)
		return false;
	return !o->selector || strstr(name, o->selector);
}

int vcctl_print_jobs(const json_t *list, const struct vcctl_opts *o, FILE *out)
{
	const json_t *items = json_object_get(list, "items"), *job;
	int name_w = (int)strlen("Name"), ns_w = (int)strlen("Namespace");
	size_t i, shown = 0;

	/* HEAD filters before it measures: the widths and the empty case see only these jobs. */
	json_array_foreach (items, i, job) {
		const json_t *meta = json_object_get(job, "metadata");
		int n = (int)strlen(str_or_empty(meta, "name"));
		int s = (int)strlen(str_or_empty(meta, "namespace"));

		if (!job_shown(job, o))
			continue;
		shown++;
		name_w = n > name_w ? n : name_w;
		ns_w = s > ns_w ? s : ns_w;
	}
	if (!shown) {
		fprintf(out, "No resources found\n");
		return 0;
	}
	name_w += 3;
	ns_w += 3;
	if (o->all_namespaces)
		fprintf(out, "%-*s", ns_w, "Namespace");
	fprintf(out, "%-*s%-15s%-12s%-12s%-12s%-6s%-10s%-10s%-12s%-10s%-12s%-10s\n", name_w, "Name",
		"Creation", "Phase", "JobType", "Replicas", "Min", "Pending", "Running",
		"Succeeded", "Failed", "Unknown", "RetryCount");
	json_array_foreach (items, i, job) {
		const json_t *meta = json_object_get(job, "metadata");
		const json_t *spec = json_object_get(job, "spec");
		const json_t *status = json_object_get(job, "status");
		const json_t *tasks = json_object_get(spec, "tasks"), *t;
		const char *name = str_or_empty(meta, "name");
		const char *type = vc_json_get_str(json_object_get(meta, "labels"), JOB_TYPE_LABEL);
		char date[GO_TIME_STR_MAX];
		int64_t replicas = 0;
		size_t k;

		if (!job_shown(job, o))
			continue;
		json_array_foreach (tasks, k, t) {
			replicas += vc_json_get_int(t, "replicas", 0);
		}
		if (!go_time(vc_json_get_str(meta, "creationTimestamp"), date, sizeof(date), true))
			snprintf(date, sizeof(date), "%s", GO_ZERO_DATE);
		if (o->all_namespaces)
			fprintf(out, "%-*s", ns_w, str_or_empty(meta, "namespace"));
		fprintf(out, "%-*s%-15s%-12s%-12s%-12d%-6d%-10d%-10d%-12d%-10d%-12d%-10d\n", name_w,
			name, date, str_or_empty(json_object_get(status, "state"), "phase"),
			blank(type) ? "Batch" : type, (int32_t)replicas,
			(int)vc_json_get_int(status, "minAvailable", 0),
			(int)vc_json_get_int(status, "pending", 0),
			(int)vc_json_get_int(status, "running", 0),
			(int)vc_json_get_int(status, "succeeded", 0),
			(int)vc_json_get_int(status, "failed", 0),
			(int)vc_json_get_int(status, "unknown", 0),
			(int)vc_json_get_int(status, "retryCount", 0));
	}
	return 0;
}

/* ---- job view ----------------------------------------------------------------------------- */

static void wl(FILE *out, int level, const char *fmt, ...) VC_PRINTF(3, 4);

/* Volcano's WriteLine: two spaces per level, then the line. */
static void wl(FILE *out, int level, const char *fmt, ...)
{
	va_list ap;
	int i;

	for (i = 0; i < level; i++)
		fputs("  ", out);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
}

/* Go's %v of a []string: "[a b]", "[]" for none. */
static void go_strings(const json_t *arr, FILE *out)
{
	const json_t *v;
	size_t i;

	fputc('[', out);
	json_array_foreach (arr, i, v) {
		fprintf(out, "%s%s", i ? " " : "", json_is_string(v) ? json_string_value(v) : "");
	}
	fputc(']', out);
}

/* encoding/json's Marshal of a map[string]string: sorted keys, compact, HTML-safe. */
static int go_json_map(const json_t *map, FILE *out)
{
	char *s = json_dumps(map, JSON_COMPACT | JSON_SORT_KEYS);
	const char *p;

	if (!s)
		return VC_ENOMEM;
	for (p = s; *p; p++) {
		if (*p == '<')
			fputs("\\u003c", out);
		else if (*p == '>')
			fputs("\\u003e", out);
		else if (*p == '&')
			fputs("\\u0026", out);
		else
			fputc(*p, out);
	}
	free(s);
	return 0;
}

/* ResourceList.Cpu()/Memory() printed with %s: the canonical quantity, "0" when missing. */
static void quantity(const json_t *list, const char *name, char *buf, size_t len)
{
	struct vc_quantity q;

	vc_quantity_init(&q);
	if (json_object_get(list, name) &&
	    vc_quantity_parse_json(json_object_get(list, name), &q, NULL))
		vc_quantity_init(&q);
	if (vc_quantity_format(&q, buf, len))
		snprintf(buf, len, "0");
}

static void print_containers(const json_t *containers, FILE *out)
{
	const json_t *c, *v;
	size_t j, k;

	json_array_foreach (containers, j, c) {
		const json_t *res = json_object_get(c, "resources");
		const json_t *lim = json_object_get(res, "limits");
		const json_t *req = json_object_get(res, "requests");
		char cpu[VC_QUANTITY_STR_MAX], mem[VC_QUANTITY_STR_MAX];

		wl(out, 5, "Command:\n");
		json_array_foreach (json_object_get(c, "command"), k, v) {
			wl(out, 6, "%s\n", json_is_string(v) ? json_string_value(v) : "");
		}
		wl(out, 5, "Image:\t%s\n", str_or_empty(c, "image"));
		wl(out, 5, "Name: \t%s\n", str_or_empty(c, "name"));
		wl(out, 5, "Ports:\n");
		json_array_foreach (json_object_get(c, "ports"), k, v) {
			wl(out, 6, "Container Port:\t%d\n",
			   (int)vc_json_get_int(v, "containerPort", 0));
			wl(out, 6, "Name:          \t%s\n", str_or_empty(v, "name"));
		}
		wl(out, 5, "Resources:\n");
		wl(out, 6, "Limits:\n");
		quantity(lim, "cpu", cpu, sizeof(cpu));
		quantity(lim, "memory", mem, sizeof(mem));
		wl(out, 7, "Cpu:   \t%s\n", cpu);
		wl(out, 7, "Memory:\t%s\n", mem);
		wl(out, 6, "Requests:\n");
		quantity(req, "cpu", cpu, sizeof(cpu));
		quantity(req, "memory", mem, sizeof(mem));
		wl(out, 7, "Cpu:   \t%s\n", cpu);
		wl(out, 7, "Memory:\t%s\n", mem);
		wl(out, 6, "Working Dir:\t%s\n", str_or_empty(c, "workingDir"));
	}
}

static void print_tasks(const json_t *tasks, FILE *out)
{
	const json_t *t, *v;
	size_t i, k;

	json_array_foreach (tasks, i, t) {
		const json_t *tmpl = json_object_get(t, "template");
		const json_t *tmeta = json_object_get(tmpl, "metadata");
		const json_t *ann = json_object_get(tmeta, "annotations");
		const json_t *tspec = json_object_get(tmpl, "spec");
		char ts[GO_TIME_STR_MAX];

		wl(out, 2, "Name:\t%s\n", str_or_empty(t, "name"));
		wl(out, 2, "Replicas:\t%d\n", (int)vc_json_get_int(t, "replicas", 0));
		wl(out, 2, "Template:\n");
		wl(out, 3, "Metadata:\n");
		wl(out, 4, "Annotations:\n");
		wl(out, 5, "Cri . Cci . Io / Container - Type:          \t%s\n",
		   str_or_empty(ann, "cri.cci.io/container-type"));
		wl(out, 5, "Kubernetes . Io / Availablezone:            \t%s\n",
		   str_or_empty(ann, "kubernetes.io/availablezone"));
		wl(out, 5, "Network . Alpha . Kubernetes . Io / Network:\t%s\n",
		   str_or_empty(ann, "network.alpha.kubernetes.io/network"));
		time_string(json_object_get(tmeta, "creationTimestamp"), ts, sizeof(ts));
		wl(out, 4, "Creation Timestamp:\t%s\n", ts);
		wl(out, 3, "Spec:\n");
		wl(out, 4, "Containers:\n");
		print_containers(json_object_get(tspec, "containers"), out);
		wl(out, 4, "Image Pull Secrets:\n");
		json_array_foreach (json_object_get(tspec, "imagePullSecrets"), k, v) {
			wl(out, 5, "Name:     \t%s\n", str_or_empty(v, "name"));
		}
		wl(out, 4, "Restart Policy:   \t%s\n", str_or_empty(tspec, "restartPolicy"));
	}
}

static void print_status(const json_t *status, FILE *out)
{
	static const struct {
		const char *key, *label;
	} counts[] = {
		{ "succeeded", "Succeeded:    " },   { "pending", "Pending:      " },
		{ "running", "Running:      " },     { "failed", "Failed:       " },
		{ "terminating", "Terminating:  " }, { "unknown", "Unknown:      " },
		{ "retryCount", "RetryCount:   " },  { "minAvailable", "Min Available:" },
		{ "version", "Version:      " },
	};
	const json_t *cr = json_object_get(status, "controlledResources");
	const json_t *conds = json_object_get(status, "conditions"), *c;
	size_t i;

	wl(out, 0, "Status:\n");
	for (i = 0; i < VC_ARRAY_SIZE(counts); i++) {
		int64_t n = vc_json_get_int(status, counts[i].key, 0);

		if (n > 0)
			wl(out, 1, "%s\t%lld\n", counts[i].label, (long long)n);
	}
	wl(out, 1, "State:\n");
	wl(out, 2, "Phase:\t%s\n", str_or_empty(json_object_get(status, "state"), "phase"));
	if (json_object_size(cr)) {
		/* Go ranges over the map in random order; sorted reads better and is stable. */
		const char **keys = vc_calloc(json_object_size(cr), sizeof(*keys));
		const char *key;
		const json_t *v;
		size_t n = 0, a, b;

		wl(out, 1, "Controlled Resources:\n");
		if (keys) {
			json_object_foreach ((json_t *)cr, key, v) {
				keys[n++] = key;
			}
			for (a = 1; a < n; a++)
				for (b = a; b > 0 && strcmp(keys[b - 1], keys[b]) > 0; b--) {
					const char *tmp = keys[b];

					keys[b] = keys[b - 1];
					keys[b - 1] = tmp;
				}
			for (a = 0; a < n; a++)
				wl(out, 2, "%s: \t%s\n", keys[a], str_or_empty(cr, keys[a]));
			vc_free(keys);
		}
	}
	if (json_array_size(conds)) {
		wl(out, 1, "Conditions:\n    Status\tTransitionTime\n");
		json_array_foreach (conds, i, c) {
			const json_t *lt = json_object_get(c, "lastTransitionTime");
			char ts[GO_TIME_STR_MAX];

			if (json_is_string(lt))
				time_string(lt, ts, sizeof(ts));
			else
				snprintf(ts, sizeof(ts), "<nil>");
			wl(out, 2, "%s \t%s \n", str_or_empty(c, "status"), ts);
		}
	}
}

int vcctl_print_job(const json_t *job, FILE *out)
{
	const json_t *meta = json_object_get(job, "metadata");
	const json_t *spec = json_object_get(job, "spec");
	const json_t *labels = json_object_get(meta, "labels");
	const json_t *ann = json_object_get(meta, "annotations");
	const json_t *plugins = json_object_get(spec, "plugins");
	char ts[GO_TIME_STR_MAX];
	int rc = 0;

	wl(out, 0, "Name:       \t%s\n", str_or_empty(meta, "name"));
	wl(out, 0, "Namespace:  \t%s\n", str_or_empty(meta, "namespace"));
	if (json_object_size(labels)) {
		wl(out, 0, "Labels:     \t");
		rc = go_json_map(labels, out);
		fputc('\n', out);
	} else {
		wl(out, 0, "Labels:     \t<none>\n");
	}
	if (json_object_size(ann)) {
		wl(out, 0, "Annotations:\t");
		if (!rc)
			rc = go_json_map(ann, out);
		fputc('\n', out);
	} else {
		wl(out, 0, "Annotations:\t<none>\n");
	}
	wl(out, 0, "API Version:\t%s\n", str_or_empty(job, "apiVersion"));
	wl(out, 0, "Kind:       \t%s\n", str_or_empty(job, "kind"));

	wl(out, 0, "Metadata:\n");
	time_string(json_object_get(meta, "creationTimestamp"), ts, sizeof(ts));
	wl(out, 1, "Creation Timestamp:\t%s\n", ts);
	wl(out, 1, "Generate Name:     \t%s\n", str_or_empty(meta, "generateName"));
	wl(out, 1, "Generation:        \t%lld\n",
	   (long long)vc_json_get_int(meta, "generation", 0));
	wl(out, 1, "Resource Version:  \t%s\n", str_or_empty(meta, "resourceVersion"));
	/* Volcano HEAD no longer prints the Self Link line (metadata.selfLink is gone). */
	wl(out, 1, "UID:               \t%s\n", str_or_empty(meta, "uid"));

	wl(out, 0, "Spec:\n");
	wl(out, 1, "Min Available:     \t%d\n", (int)vc_json_get_int(spec, "minAvailable", 0));
	wl(out, 1, "Plugins:\n");
	wl(out, 2, "Env:\t");
	go_strings(json_object_get(plugins, "env"), out);
	fputc('\n', out);
	wl(out, 2, "Ssh:\t");
	go_strings(json_object_get(plugins, "ssh"), out);
	fputc('\n', out);
	wl(out, 1, "Scheduler Name:    \t%s\n", str_or_empty(spec, "schedulerName"));
	wl(out, 1, "Tasks:\n");
	print_tasks(json_object_get(spec, "tasks"), out);
	print_status(json_object_get(job, "status"), out);
	return rc;
}

void vcctl_print_events(const json_t *events, const char *job_name, int64_t now_ns, FILE *out)
{
	const json_t *items = json_object_get(events, "items"), *e;
	size_t i, n = 0, plen = strlen(job_name);

	json_array_foreach (items, i, e) {
		const char *name = str_or_empty(json_object_get(e, "metadata"), "name");

		if (strncmp(name, job_name, plen) || name[plen] != '.')
			continue;
		if (n++ == 0) {
			wl(out, 0, "%s:\n%-15s\t%-40s\t%-30s\t%-40s\t%s\n", "Events", "Type",
			   "Reason", "Age", "Form", "Message");
			wl(out, 0, "%-15s\t%-40s\t%-30s\t%-40s\t%s\n", "-------", "-------",
			   "-------", "-------", "-------");
		}
		{
			const json_t *src = json_object_get(e, "source");
			const char *host = str_or_empty(src, "host");
			const char *msg = str_or_empty(e, "message");
			char last[32], first[32], interval[128], from[512];
			int64_t count = vc_json_get_int(e, "count", 0);
			size_t mlen;

			vcctl_since(json_object_get(e, "firstTimestamp"), now_ns, first,
				    sizeof(first));
			if (count > 1) {
				vcctl_since(json_object_get(e, "lastTimestamp"), now_ns, last,
					    sizeof(last));
				snprintf(interval, sizeof(interval), "%s (x%lld over %s)", last,
					 (long long)count, first);
			} else {
				snprintf(interval, sizeof(interval), "%s", first);
			}
			snprintf(from, sizeof(from), "%s%s%s", str_or_empty(src, "component"),
				 *host ? ", " : "", host);
			/* strings.TrimSpace */
			while (*msg && isspace((unsigned char)*msg))
				msg++;
			mlen = strlen(msg);
			while (mlen && isspace((unsigned char)msg[mlen - 1]))
				mlen--;
			wl(out, 0, "%-15s\t%-40s\t%-30s\t%-40s\t%.*s\n", str_or_empty(e, "type"),
			   str_or_empty(e, "reason"), interval, from, (int)mlen, msg);
		}
	}
	if (!n)
		wl(out, 0, "Events: \t<none>\n");
}

/* ---- running ------------------------------------------------------------------------------ */

/* Volcano's readFile: the first YAML document of the file, as the Job to create. */
static int read_job_file(const char *path, json_t **out, struct vc_error *err)
{
	struct vc_error sub;
	json_t *docs = NULL, *job;
	int rc;

	vc_error_clear(&sub);
	rc = vc_yaml_load_file(path, &docs, &sub);
	if (rc == VC_ENOMEM)
		return vc_error_set(err, rc, "out of memory");
	if (rc < 0 && rc > VC_ERR_BASE) {
		char e[128];

		snprintf(e, sizeof(e), "%s", strerror(-rc));
		e[0] = (char)tolower((unsigned char)e[0]);
		return vc_error_set(err, rc, "failed to read file, err: open %s: %s", path, e);
	}
	if (rc)
		return vc_error_set(err, rc, "Failed to unmarshal file, err:  %s", sub.text);
	job = json_array_get(docs, 0);
	if (job && !json_is_object(job)) {
		json_decref(docs);
		return vc_error_set(
			err, VC_EPARSE,
			"Failed to unmarshal file, err:  the document is not a mapping");
	}
	job = job ? json_incref(job) : json_object();
	json_decref(docs);
	if (!job || json_object_set_new(job, "apiVersion", json_string(JOB_API_VERSION)) ||
	    json_object_set_new(job, "kind", json_string(JOB_KIND))) {
		json_decref(job);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	*out = job;
	return 0;
}

static int job_run(const struct vcctl_opts *o, struct vc_kube *kube, FILE *out,
		   struct vc_error *err)
{
	json_t *job = NULL, *created = NULL;
	int rc;

	if (!blank(o->filename))
		rc = read_job_file(o->filename, &job, err);
	else
		rc = vcctl_job_from_flags(o, &job, err);
	if (!rc)
		rc = vc_kube_create(kube, &vc_gvr_jobs, o->namespace, NULL, NULL, job, &created,
				    err);
	if (!rc)
		fprintf(out, "run job %s successfully\n",
			str_or_empty(json_object_get(created, "metadata"), "name"));
	json_decref(job);
	json_decref(created);
	return rc;
}

static int job_command(const struct vcctl_opts *o, struct vc_kube *kube, const char *action,
		       struct vc_error *err)
{
	json_t *job = NULL, *cmd = NULL;
	int rc;

	rc = vc_kube_get(kube, &vc_gvr_jobs, o->namespace, o->name, NULL, &job, err);
	if (!rc)
		rc = vcctl_command_new(job, JOB_API_VERSION, JOB_KIND,
				       str_or_empty(json_object_get(job, "metadata"), "namespace"),
				       action, &cmd, err);
	if (!rc)
		rc = vc_kube_create(kube, &vc_gvr_commands, o->namespace, NULL, NULL, cmd, NULL,
				    err);
	json_decref(job);
	json_decref(cmd);
	return rc;
}

static int job_view(const struct vcctl_opts *o, struct vc_kube *kube, FILE *out,
		    struct vc_error *err)
{
	json_t *job = NULL, *events = NULL;
	struct vc_error ignored;
	int rc;

	rc = vc_kube_get(kube, &vc_gvr_jobs, o->namespace, o->name, NULL, &job, err);
	if (rc)
		return rc;
	rc = vcctl_print_job(job, out);
	if (rc) {
		json_decref(job);
		return vc_error_set(err, rc, "out of memory");
	}
	/* Volcano ignores an error listing the events: the job is shown without them. */
	if (vc_kube_list(kube, &vc_gvr_events, o->namespace, NULL, &events, &ignored))
		events = NULL;
	vcctl_print_events(events, o->name, vc_time_now_ns(), out);
	json_decref(events);
	json_decref(job);
	return 0;
}

int vcctl_job_exec(const struct vcctl_opts *o, struct vc_kube *kube, FILE *out,
		   struct vc_error *err)
{
	json_t *list = NULL;
	int rc;

	rc = vcctl_job_check(o, err);
	if (rc)
		return rc;
	switch (o->cmd) {
	case VCCTL_JOB_RUN:
		return job_run(o, kube, out, err);
	case VCCTL_JOB_LIST:
		rc = vc_kube_list(kube, &vc_gvr_jobs, o->all_namespaces ? NULL : o->namespace, NULL,
				  &list, err);
		if (!rc && vcctl_print_jobs(list, o, out))
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		json_decref(list);
		return rc;
	case VCCTL_JOB_VIEW:
		return job_view(o, kube, out, err);
	case VCCTL_JOB_EXPLAIN:
		return vcctl_job_explain(o, kube, out, err);
	case VCCTL_JOB_SUSPEND:
		return job_command(o, kube, "AbortJob", err);
	case VCCTL_JOB_RESUME:
		return job_command(o, kube, "ResumeJob", err);
	case VCCTL_JOB_DELETE:
		rc = vc_kube_delete(kube, &vc_gvr_jobs, o->namespace, o->name, NULL, err);
		if (!rc)
			fprintf(out, "%s job %s successfully\n",
				is_vcancel(o) ? "cancel" : "delete", o->name);
		return rc;
	default:
		return vc_error_set(err, VC_EINVAL, "not a job command");
	}
}
