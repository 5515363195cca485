/*
 * cli.c - vcctl's command tree, flag tables (pflag shorthands on top of vc_flags), help texts and
 * the program's main flow.
 */
#include "vcctl.h"

#include "vc_alloc.h"
#include "vc_flags.h"
#include "vc_kube.h"
#include "vc_log.h"

/* A flag of one command: its pflag shorthand (0: none), "--name", and the vc_flags entry. */
struct vcctl_flag {
	char shorthand;
	const char *dashed;
	struct vc_flag f;
};

#define FL(sh, nm, type, def, field, help)                                            \
	{                                                                             \
		sh, "--" nm,                                                          \
		{                                                                     \
			nm, type, def, 0, 0, offsetof(struct vcctl_opts, field), help \
		}                                                                     \
	}

/* Volcano's util.InitFlags: every command has these two. */
#define COMMON_FLAGS                                                               \
	FL('s', "master", VC_FLAG_STRING, "", master, "the address of apiserver"), \
		FL('k', "kubeconfig", VC_FLAG_STRING, "", kubeconfig,              \
		   "(optional) absolute path to the kubeconfig file")

/* Flags several commands share, with the shorthand each gives them (v*: -N namespace, -n name). */
#define JOB_NAMESPACE(sh) \
	FL(sh, "namespace", VC_FLAG_STRING, "default", namespace, "the namespace of job")
#define JOB_NAME(sh)	FL(sh, "name", VC_FLAG_STRING, "", name, "the name of job")
#define QUEUE_NAME(def) FL('n', "name", VC_FLAG_STRING, def, name, "the name of queue")
/* The size of the job run and vsub make. */
#define JOB_SIZE_FLAGS                                                                     \
	FL('m', "min", VC_FLAG_INT, "1", min, "the minimal available tasks of job"),       \
		FL('r', "replicas", VC_FLAG_INT, "1", replicas, "the total tasks of job"), \
		FL('R', "requests", VC_FLAG_STRING, "cpu=1000m,memory=100Mi", requests,    \
		   "the resource request of the task"),                                    \
		FL('L', "limits", VC_FLAG_STRING, "cpu=1000m,memory=100Mi", limits,        \
		   "the resource limit of the task")
/* The filters of job list and vjobs. */
#define JOB_LIST_FILTERS                                                       \
	FL('S', "scheduler", VC_FLAG_STRING, "", scheduler,                    \
	   "list job with specified scheduler name"),                          \
		FL(0, "all-namespaces", VC_FLAG_BOOL, "false", all_namespaces, \
		   "list jobs in all namespaces"),                             \
		FL(0, "selector", VC_FLAG_STRING, "", selector, "fuzzy matching jobName")

static const struct vcctl_flag run_flags[] = {
	COMMON_FLAGS,
	FL('i', "image", VC_FLAG_STRING, "busybox", image, "the container image of job"),
	JOB_NAMESPACE('n'),
	JOB_NAME('N'),
	JOB_SIZE_FLAGS,
	FL('S', "scheduler", VC_FLAG_STRING, "volcano", scheduler, "the scheduler for this job"),
	FL('f', "filename", VC_FLAG_STRING, "", filename, "the yaml file of job"),
};

static const struct vcctl_flag list_flags[] = {
	COMMON_FLAGS,
	FL('q', "queue", VC_FLAG_STRING, "", queue, "list job with specified queue name"),
	JOB_NAMESPACE('n'),
	JOB_LIST_FILTERS,
};

/* view, suspend, resume and delete. */
static const struct vcctl_flag job_name_flags[] = { COMMON_FLAGS, JOB_NAMESPACE('n'),
						    JOB_NAME('N') };

static const struct vcctl_flag queue_create_flags[] = {
	COMMON_FLAGS,
	QUEUE_NAME("test"),
	FL('w', "weight", VC_FLAG_INT, "1", weight, "the weight of the queue"),
	FL('S', "state", VC_FLAG_STRING, "Open", state, "the state of queue"),
};

/* delete and get, and vqueues. */
static const struct vcctl_flag queue_name_flags[] = { COMMON_FLAGS, QUEUE_NAME("") };

static const struct vcctl_flag queue_operate_flags[] = {
	COMMON_FLAGS,
	QUEUE_NAME(""),
	FL('w', "weight", VC_FLAG_INT, "0", weight, "the weight of the queue"),
	FL('a', "action", VC_FLAG_STRING, "", action,
	   "operate action to queue, valid actions are open, close, update"),
};

static const struct vcctl_flag queue_list_flags[] = { COMMON_FLAGS };

/* Volcano HEAD's pod list. */
static const struct vcctl_flag pod_list_flags[] = {
	COMMON_FLAGS,
	FL('q', "queue", VC_FLAG_STRING, "", queue, "list pod with specified queue name"),
	FL('j', "job", VC_FLAG_STRING, "", job, "list pod with specified job name"),
	FL('n', "namespace", VC_FLAG_STRING, "default", namespace, "the namespace of pod"),
	FL(0, "all-namespaces", VC_FLAG_BOOL, "false", all_namespaces,
	   "list pods in all namespaces"),
};

/*
 * Volcano's cmd/cli/v* binaries (pkg/cli/vsub, vjobs, vqueues, vcancel, vsuspend, vresume):
 * there -N is the namespace and -n the name.
 */
static const struct vcctl_flag vsub_flags[] = {
	COMMON_FLAGS,
	FL('i', "image", VC_FLAG_STRING, "", image,
	   "the container image of job, overwrite the value of 'VOLCANO_DEFAULT_IMAGE' (default "
	   "\"busybox\")"),
	FL('N', "namespace", VC_FLAG_STRING, "", namespace,
	   "the namespace of job, overwrite the value of 'VOLCANO_DEFAULT_JOB_NAMESPACE' (default "
	   "\"default\")"),
	JOB_NAME('n'),
	JOB_SIZE_FLAGS,
	FL('S', "scheduler", VC_FLAG_STRING, "", scheduler,
	   "the scheduler for this job, overwrite the value of 'VOLCANO_SCHEDULER_NAME' (default "
	   "\"volcano\")"),
	FL('c', "command", VC_FLAG_STRING, "", command, "the command of of job"),
};

static const struct vcctl_flag vjob_name_flags[] = { COMMON_FLAGS, JOB_NAMESPACE('N'),
						     JOB_NAME('n') };

static const struct vcctl_flag vjobs_flags[] = {
	COMMON_FLAGS,
	JOB_NAMESPACE('N'),
	JOB_NAME('n'),
	JOB_LIST_FILTERS,
};

struct vcctl_verb {
	const char *group; /* NULL: a root-level command (version) */
	const char *name;
	enum vcctl_cmd cmd;
	const char *short_help;
	const struct vcctl_flag *flags;
	size_t nflags;
};

#define VERB(g, n, c, h, t)                     \
	{                                       \
		g, n, c, h, t, VC_ARRAY_SIZE(t) \
	}

static const struct vcctl_verb verbs[] = {
	VERB("job", "delete", VCCTL_JOB_DELETE, "delete a job", job_name_flags),
	VERB("job", "explain", VCCTL_JOB_EXPLAIN, "explain why a job is not running",
	     job_name_flags),
	VERB("job", "list", VCCTL_JOB_LIST, "list job information", list_flags),
	VERB("job", "resume", VCCTL_JOB_RESUME, "resume a job", job_name_flags),
	VERB("job", "run", VCCTL_JOB_RUN, "run job by parameters from the command line", run_flags),
	VERB("job", "suspend", VCCTL_JOB_SUSPEND, "abort a job", job_name_flags),
	VERB("job", "view", VCCTL_JOB_VIEW, "show job information", job_name_flags),
	VERB("queue", "create", VCCTL_QUEUE_CREATE, "creates queue", queue_create_flags),
	VERB("queue", "delete", VCCTL_QUEUE_DELETE, "delete queue", queue_name_flags),
	VERB("queue", "get", VCCTL_QUEUE_GET, "get a queue", queue_name_flags),
	VERB("queue", "list", VCCTL_QUEUE_LIST, "lists all the queue", queue_list_flags),
	VERB("queue", "operate", VCCTL_QUEUE_OPERATE, "operate queue", queue_operate_flags),
	VERB("pod", "list", VCCTL_POD_LIST, "list pod information created by vcjob",
	     pod_list_flags),
	{ NULL, "version", VCCTL_VERSION_CMD, "Print the version information", NULL, 0 },
};

/* The v* programs, by the name they run under; short_help is their cobra Long text. */
static const struct vcctl_verb aliases[] = {
	VERB(NULL, "vcancel", VCCTL_JOB_DELETE,
	     "cancel a running, pending, or aborted volcano job with specified name in default or "
	     "specified namespace",
	     vjob_name_flags),
	VERB(NULL, "vjobs", VCCTL_JOB_VIEW,
	     "view information of a job with specified name or jobs from the same namespace",
	     vjobs_flags),
	VERB(NULL, "vqueues", VCCTL_QUEUE_GET,
	     "view information of a volcano queue with specified name or queues from the same "
	     "namespace",
	     queue_name_flags),
	VERB(NULL, "vresume", VCCTL_JOB_RESUME,
	     "resume an aborted job with specified name in default or specified namespace",
	     vjob_name_flags),
	VERB(NULL, "vsub", VCCTL_JOB_RUN,
	     "submit a job with specified name and arguments. yaml/json file is not accepted, you "
	     "may refer to kubectl.",
	     vsub_flags),
	VERB(NULL, "vsuspend", VCCTL_JOB_SUSPEND,
	     "suspend a running or pending job with specified name in default or specified "
	     "namespace",
	     vjob_name_flags),
};

static const struct {
	const char *name, *short_help;
} groups[] = {
	{ "job", "vcctl command line operation job" },
	{ "pod", "vcctl command line operation pod" },
	{ "queue", "Queue Operations" },
};

static bool is_help(const char *a)
{
	return !strcmp(a, "-h") || !strcmp(a, "--help") || !strncmp(a, "--help=", 7);
}

static const char *group_help(const char *g)
{
	size_t i;

	for (i = 0; i < VC_ARRAY_SIZE(groups); i++)
		if (!strcmp(groups[i].name, g))
			return groups[i].short_help;
	return NULL;
}

static const struct vcctl_verb *alias_named(const char *name)
{
	size_t i;

	for (i = 0; name && i < VC_ARRAY_SIZE(aliases); i++)
		if (!strcmp(aliases[i].name, name))
			return &aliases[i];
	return NULL;
}

static const struct vcctl_verb *verb_of(const struct vcctl_opts *o)
{
	size_t i;

	if (o->alias)
		return alias_named(o->alias);
	for (i = 0; i < VC_ARRAY_SIZE(verbs); i++)
		if (verbs[i].cmd == o->cmd && o->cmd != VCCTL_NONE)
			return &verbs[i];
	return NULL;
}

/* v's flag named by the len bytes of name, or, with name NULL, by the shorthand c; NULL if none. */
static const struct vcctl_flag *find_flag(const struct vcctl_verb *v, const char *name, size_t len,
					  char c)
{
	const struct vcctl_flag *f;

	for (f = v->flags; f < v->flags + v->nflags; f++)
		if (name ? strlen(f->f.name) == len && !memcmp(f->f.name, name, len)
			 : f->shorthand && f->shorthand == c)
			return f;
	return NULL;
}

static bool takes_value(const struct vcctl_flag *f)
{
	return f->f.type != VC_FLAG_BOOL;
}

/*
 * pflag's command line, rewritten into the long forms vc_flags reads: shorthands become
 * "--name" plus their value (pointing into argv, so the parsed strings outlive this call),
 * positional arguments are dropped. outv has room for 2 * argc entries.
 */
static int translate(const struct vcctl_verb *v, int argc, char **argv, int start, char **outv,
		     int *outc, const char **first_arg, struct vc_error *err)
{
	int i, n = 1;

	outv[0] = argv[0];
	for (i = start; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			if (!*first_arg && i + 1 < argc)
				*first_arg = argv[i + 1];
			break; /* the rest is positional */
		}
		if (a[0] == '-' && a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			const struct vcctl_flag *f;

			if (len == 4 && !memcmp(name, "help", 4))
				return VCCTL_HELP;
			f = find_flag(v, name, len, 0);
			if (!f)
				return vc_error_set(err, VC_EINVAL, "unknown flag: --%.*s",
						    (int)len, name);
			outv[n++] = argv[i];
			if (takes_value(f) && !eq) {
				if (i + 1 >= argc)
					return vc_error_set(err, VC_EINVAL,
							    "flag needs an argument: --%s",
							    f->f.name);
				outv[n++] = argv[++i];
			}
			continue;
		}
		if (a[0] == '-' && a[1]) {
			const char *p;

			for (p = a + 1; *p; p++) {
				const struct vcctl_flag *f;

				if (*p == 'h')
					return VCCTL_HELP;
				f = find_flag(v, NULL, 0, *p);
				if (!f)
					return vc_error_set(err, VC_EINVAL,
							    "unknown shorthand flag: '%c' in %s",
							    *p, a);
				outv[n++] = (char *)f->dashed;
				if (!takes_value(f))
					continue;
				if (p[1] == '=')
					outv[n++] = (char *)p + 2;
				else if (p[1])
					outv[n++] = (char *)p + 1;
				else if (i + 1 < argc)
					outv[n++] = argv[++i];
				else
					return vc_error_set(err, VC_EINVAL,
							    "flag needs an argument: '%c' in %s",
							    *p, a);
				break;
			}
			continue;
		}
		/* a positional argument: cobra's leaf commands accept and ignore them */
		if (!*first_arg)
			*first_arg = a;
	}
	*outc = n;
	return 0;
}

static int parse_flags(const struct vcctl_verb *v, int argc, char **argv, int start,
		       struct vcctl_opts *o, struct vc_error *err)
{
	struct vc_flag table[16];
	const char *first_arg = NULL;
	char **outv;
	int outc = 0, rc;
	size_t i;

	if (v->nflags > VC_ARRAY_SIZE(table))
		return vc_error_set(err, VC_EINVAL, "too many flags");
	outv = vc_calloc((size_t)argc * 2 + 2, sizeof(*outv));
	if (!outv)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = translate(v, argc, argv, start, outv, &outc, &first_arg, err);
	if (!rc) {
		for (i = 0; i < v->nflags; i++)
			table[i] = v->flags[i].f;
		rc = vc_flags_parse(table, v->nflags, o, outc, outv, NULL, err);
	}
	/* job explain NAME: the positional name, unless --name gave one. */
	if (!rc && o->cmd == VCCTL_JOB_EXPLAIN && first_arg && (!o->name || !*o->name))
		o->name = first_arg;
	vc_free(outv);
	return rc;
}

/* An environment variable's value, or def when it is unset or empty. */
static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

/* One of the v* programs: its flags from argv[1] on, and the defaults Volcano gives them. */
static int parse_alias(const struct vcctl_verb *v, int argc, char **argv, struct vcctl_opts *o,
		       struct vc_error *err)
{
	int rc;

	o->prog = v->name;
	o->alias = v->name;
	o->verb = v->name;
	o->cmd = v->cmd;
	rc = parse_flags(v, argc, argv, 1, o, err);
	if (rc)
		return rc;
	/* vjobs and vqueues without a name list. */
	if (o->cmd == VCCTL_JOB_VIEW && (!o->name || !*o->name))
		o->cmd = VCCTL_JOB_LIST;
	if (o->cmd == VCCTL_QUEUE_GET && (!o->name || !*o->name))
		o->cmd = VCCTL_QUEUE_LIST;
	/* vsub's setDefaultArgs: the environment, then Volcano's defaults. */
	if (o->cmd == VCCTL_JOB_RUN) {
		if (!o->scheduler || !*o->scheduler)
			o->scheduler = env_or("VOLCANO_SCHEDULER_NAME", "volcano");
		if (!o->image || !*o->image)
			o->image = env_or("VOLCANO_DEFAULT_IMAGE", "busybox");
		if (!o->namespace || !*o->namespace)
			o->namespace = env_or("VOLCANO_DEFAULT_JOB_NAMESPACE", "default");
	}
	return 0;
}

int vcctl_parse(int argc, char **argv, struct vcctl_opts *o, struct vc_error *err)
{
	const char *base;
	const char *w;
	size_t i;

	if (!o)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	memset(o, 0, sizeof(*o));
	o->prog = "vcctl";
	if (argc < 1 || !argv || !argv[0])
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	o->prog = !strcmp(base, "kubectl-vc") ? "kubectl vc" : "vcctl";
	if (alias_named(base))
		return parse_alias(alias_named(base), argc, argv, o, err);
	if (argc < 2 || is_help(argv[1]))
		return VCCTL_HELP;
	w = argv[1];
	if (w[0] == '-') {
		size_t len = strcspn(w, "=");

		return vc_error_set(err, VC_EINVAL, "unknown %sflag: %.*s",
				    w[1] == '-' ? "" : "shorthand ", (int)len, w);
	}
	if (!strcmp(w, "version")) {
		o->group = "version";
		o->cmd = VCCTL_VERSION_CMD;
		for (int k = 2; k < argc; k++)
			if (is_help(argv[k]))
				return VCCTL_HELP;
		return 0;
	}
	if (!group_help(w))
		return vc_error_set(err, VC_EINVAL, "unknown command \"%s\" for \"%s\"", w,
				    o->prog);
	o->group = w;
	if (argc < 3 || is_help(argv[2]))
		return VCCTL_HELP;
	w = argv[2];
	if (w[0] == '-')
		return vc_error_set(err, VC_EINVAL, "unknown flag: %.*s", (int)strcspn(w, "="), w);
	for (i = 0; i < VC_ARRAY_SIZE(verbs); i++) {
		const struct vcctl_verb *v = &verbs[i];

		if (!v->group || strcmp(v->group, o->group) || strcmp(v->name, w))
			continue;
		o->verb = v->name;
		o->cmd = v->cmd;
		return parse_flags(v, argc, argv, 3, o, err);
	}
	return vc_error_set(err, VC_EINVAL, "unknown command \"%s\" for \"%s %s\"", w, o->prog,
			    o->group);
}

/* ---- help --------------------------------------------------------------------------------- */

static const char *flag_name(const struct vcctl_verb *v, size_t i)
{
	return v && i < v->nflags ? v->flags[i].f.name : "help";
}

/*
 * The flags of v (none: only help) in pflag's FlagUsages layout: sorted by long name, help
 * among them, the descriptions in one column set by the widest left part.
 */
static void flag_usages(const struct vcctl_verb *v, const char *help_for, FILE *out)
{
	size_t order[24];
	char left[64];
	size_t i, j, n = (v ? v->nflags : 0) + 1, width = 0;
	int pass;

	if (n > VC_ARRAY_SIZE(order))
		n = VC_ARRAY_SIZE(order);
	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && strcmp(flag_name(v, order[j - 1]), flag_name(v, i)) > 0; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (pass = 0; pass < 2; pass++) {
		for (j = 0; j < n; j++) {
			const struct vcctl_flag *f;
			const char *type = "";

			i = order[j];
			f = v && i < v->nflags ? &v->flags[i] : NULL;
			if (f && f->f.type == VC_FLAG_STRING)
				type = " string";
			else if (f && f->f.type == VC_FLAG_INT)
				type = " int";
			if (!f)
				snprintf(left, sizeof(left), "  -h, --help");
			else if (f->shorthand)
				snprintf(left, sizeof(left), "  -%c, --%s%s", f->shorthand,
					 f->f.name, type);
			else
				snprintf(left, sizeof(left), "      --%s%s", f->f.name, type);
			if (pass == 0) {
				if (strlen(left) > width)
					width = strlen(left);
				continue;
			}
			if (!f) {
				fprintf(out, "%-*s   help for %s\n", (int)width, left, help_for);
				continue;
			}
			fprintf(out, "%-*s   %s", (int)width, left, f->f.help);
			if (f->f.type == VC_FLAG_STRING && f->f.def && *f->f.def)
				fprintf(out, " (default \"%s\")", f->f.def);
			else if (f->f.type == VC_FLAG_INT && f->f.def && strcmp(f->f.def, "0"))
				fprintf(out, " (default %s)", f->f.def);
			fputc('\n', out);
		}
	}
}

void vcctl_usage(const struct vcctl_opts *o, FILE *out)
{
	const struct vcctl_verb *v = verb_of(o);
	size_t i;

	if (v && o->alias) {
		fprintf(out, "%s\n\nUsage:\n  %s [flags]\n\nFlags:\n", v->short_help, v->name);
		flag_usages(v, v->name, out);
		return;
	}
	if (v) {
		fprintf(out, "%s\n\nUsage:\n  %s %s%s%s%s [flags]\n\nFlags:\n", v->short_help,
			o->prog, v->group ? v->group : "", v->group ? " " : "", v->name,
			v->cmd == VCCTL_JOB_EXPLAIN ? " [NAME]" : "");
		flag_usages(v, v->name, out);
		return;
	}
	if (o->group && group_help(o->group)) {
		fprintf(out, "%s\n\nUsage:\n  %s %s [command]\n\nAvailable Commands:\n",
			group_help(o->group), o->prog, o->group);
		for (i = 0; i < VC_ARRAY_SIZE(verbs); i++)
			if (verbs[i].group && !strcmp(verbs[i].group, o->group))
				fprintf(out, "  %-11s %s\n", verbs[i].name, verbs[i].short_help);
		fprintf(out, "\nFlags:\n");
		flag_usages(NULL, o->group, out);
		fprintf(out,
			"\nUse \"%s %s [command] --help\" for more information about a command.\n",
			o->prog, o->group);
		return;
	}
	fprintf(out, "Usage:\n  %s [command]\n\nAvailable Commands:\n", o->prog);
	for (i = 0; i < VC_ARRAY_SIZE(groups); i++)
		fprintf(out, "  %-11s %s\n", groups[i].name, groups[i].short_help);
	fprintf(out, "  %-11s %s\n", "version", "Print the version information");
	fprintf(out, "\nFlags:\n");
	flag_usages(NULL, o->prog, out);
	fprintf(out, "\nUse \"%s [command] --help\" for more information about a command.\n",
		o->prog);
}

static bool is_job_cmd(enum vcctl_cmd c)
{
	return c >= VCCTL_JOB_RUN && c <= VCCTL_JOB_EXPLAIN;
}

static bool is_queue_cmd(enum vcctl_cmd c)
{
	return c >= VCCTL_QUEUE_CREATE && c <= VCCTL_QUEUE_GET;
}

static bool is_pod_cmd(enum vcctl_cmd c)
{
	return c == VCCTL_POD_LIST;
}

int vcctl_check(const struct vcctl_opts *o, struct vc_error *err)
{
	if (!o)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	if (is_job_cmd(o->cmd))
		return vcctl_job_check(o, err);
	if (is_queue_cmd(o->cmd))
		return vcctl_queue_check(o, err);
	return 0;
}

int vcctl_exec(const struct vcctl_opts *o, struct vc_kube *kube, FILE *out, struct vc_error *err)
{
	if (!o || !kube || !out)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	if (is_job_cmd(o->cmd))
		return vcctl_job_exec(o, kube, out, err);
	if (is_queue_cmd(o->cmd))
		return vcctl_queue_exec(o, kube, out, err);
	if (is_pod_cmd(o->cmd))
		return vcctl_pod_exec(o, kube, out, err);
	return vc_error_set(err, VC_EINVAL, "nothing to run");
}

/* ---- the program -------------------------------------------------------------------------- */

/*
 * kubectl's order, which Volcano's BuildConfig follows: --kubeconfig, else $KUBECONFIG or
 * ~/.kube/config, else the in-cluster configuration; --master overrides the server.
 */
static int client_from_flags(const struct vcctl_opts *o, struct vc_kube **out, struct vc_error *err)
{
	struct vc_kube_config kc = { 0 };
	struct vc_error ic_err;
	int rc;

	if (o->kubeconfig && *o->kubeconfig) {
		rc = vc_kubeconfig_load(o->kubeconfig, NULL, o->master, &kc, err);
	} else {
		rc = vc_kubeconfig_load(NULL, NULL, o->master, &kc, err);
		if (rc == VC_ENOENT || rc == -ENOENT) {
			rc = vc_kube_config_in_cluster(NULL, &kc, &ic_err);
			if (rc == 0 && o->master && *o->master) {
				vc_free(kc.server);
				kc.server = vc_strdup(o->master);
				rc = kc.server ? 0 : VC_ENOMEM;
			}
			if (rc) {
				struct vc_error both;

				vc_error_set(&both, rc, "%s; %s", err ? err->text : "",
					     ic_err.text);
				if (err)
					*err = both;
			}
		}
	}
	if (!rc) {
		kc.user_agent = vc_strdup("vcctl/" VCCTL_VERSION);
		/* A command run by a person: an exec credential plugin may ask at the terminal. */
		kc.exec_stdin = true;
		rc = kc.user_agent ? vc_kube_new(&kc, out, err)
				   : vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	vc_kube_config_release(&kc);
	return rc;
}

int vcctl_main(int argc, char **argv, struct vc_kube *kube, FILE *out, FILE *errout)
{
	struct vcctl_opts o;
	struct vc_kube *own = NULL;
	struct vc_error err;
	int rc;

	vc_error_clear(&err);
	rc = vcctl_parse(argc, argv, &o, &err);
	if (rc == VCCTL_HELP) {
		vcctl_usage(&o, out);
		return 0;
	}
	if (rc) {
		const struct vcctl_verb *v = verb_of(&o);

		fprintf(errout, "Error: %s\n", err.text);
		if (o.alias)
			fprintf(errout, "Run '%s --help' for usage.\n", o.alias);
		else if (v)
			fprintf(errout, "Run '%s %s %s --help' for usage.\n", o.prog, v->group,
				v->name);
		else if (o.group)
			fprintf(errout, "Run '%s %s --help' for usage.\n", o.prog, o.group);
		else
			fprintf(errout, "Run '%s --help' for usage.\n", o.prog);
		return 1;
	}
	if (o.cmd == VCCTL_VERSION_CMD) {
		fprintf(out, "Version: %s\n", VCCTL_VERSION);
		fprintf(out, "Implementation: caldera (C)\n");
		return 0;
	}
	/* Bad input first: it needs no client. */
	rc = vcctl_check(&o, &err);
	if (!rc && !kube) {
		rc = client_from_flags(&o, &own, &err);
		kube = own;
	}
	if (!rc)
		rc = vcctl_exec(&o, kube, out, &err);
	vc_kube_free(own);
	if (rc) {
		fflush(out);
		/* Volcano's CheckError names the command path below the root: none for v*. */
		if (o.alias)
			fprintf(errout, "Failed to: %s\n", err.text);
		else
			fprintf(errout, "Failed to %s %s: %s\n", o.verb, o.group, err.text);
		return 1;
	}
	return 0;
}
