/* Unit tests for vcctl: parsing, request bodies, tables, and the commands against a fake API. */
#include "vcctl.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/capture.h"
#include "support/json_test.h"

#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_time.h"

/* ---- helpers ------------------------------------------------------------------------------ */

#define ARGV(...)	   ((char **)(const char *[]){ __VA_ARGS__, NULL })
#define ARGC(...)	   ((int)(sizeof((const char *[]){ __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(o, err, ...) vcctl_parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (o), (err))

static void assert_json(const json_t *got, const char *want_text)
{
	json_t *want = parse(want_text);
	bool same = json_equal((json_t *)got, want);

	if (!same) {
		char *g = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);
		char *w = json_dumps(want, JSON_SORT_KEYS | JSON_COMPACT);

		print_error("got  %s\nwant %s\n", g, w);
		free(w);
		free(g);
	}
	json_decref(want);
	assert_true(same);
}

#define NOW_NS (INT64_C(1717243200) * VC_NSEC_PER_SEC) /* 2024-06-01T12:00:00Z */

static int64_t fake_clock(void *ctx)
{
	(void)ctx;
	return NOW_NS;
}

/* ---- the fake API server ------------------------------------------------------------------ */

#define MAX_CALLS 16

struct call {
	char verb[8];
	char resource[32];
	char ns[64];
	char name[64];
	char selector[128]; /* a LIST's label selector */
	json_t *body;
};

static struct {
	json_t *objects; /* "resource/ns/name" -> object */
	json_t *lists;	 /* "resource/ns" -> list ("resource/" for every namespace) */
	int fail_rc;	 /* when set, every call fails with it */
	struct call calls[MAX_CALLS];
	int n;
} fk;

static void record(const char *verb, const struct vc_gvr *r, const char *ns, const char *name,
		   const json_t *body)
{
	struct call *c;

	if (fk.n >= MAX_CALLS)
		return;
	c = &fk.calls[fk.n++];
	snprintf(c->verb, sizeof(c->verb), "%s", verb);
	snprintf(c->resource, sizeof(c->resource), "%s", r->resource);
	snprintf(c->ns, sizeof(c->ns), "%s", ns ? ns : "");
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "");
	c->body = body ? json_deep_copy(body) : NULL;
}

static int not_found(const struct vc_gvr *r, const char *name, struct vc_error *err)
{
	return vc_error_set(err, VC_ENOTFOUND, "%s.%s \"%s\" not found", r->resource, r->group,
			    name);
}

static int fake_get(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		    const char *sub, json_t **out, struct vc_error *err)
{
	char key[256];
	json_t *o;

	(void)ctx;
	(void)sub;
	record("GET", r, ns, name, NULL);
	if (fk.fail_rc)
		return vc_error_set(err, fk.fail_rc, "injected failure");
	snprintf(key, sizeof(key), "%s/%s/%s", r->resource, ns ? ns : "", name);
	o = json_object_get(fk.objects, key);
	if (!o)
		return not_found(r, name, err);
	*out = json_deep_copy(o);
	return *out ? 0 : vc_error_set(err, VC_ENOMEM, "out of memory");
}

static int fake_list(void *ctx, const struct vc_gvr *r, const char *ns,
		     const struct vc_list_opts *opts, json_t **out, struct vc_error *err)
{
	char key[256];
	json_t *o;

	(void)ctx;
	record("LIST", r, ns, NULL, NULL);
	if (opts && opts->label_selector && fk.n <= MAX_CALLS)
		snprintf(fk.calls[fk.n - 1].selector, sizeof(fk.calls[0].selector), "%s",
			 opts->label_selector);
	if (fk.fail_rc)
		return vc_error_set(err, fk.fail_rc, "injected failure");
	snprintf(key, sizeof(key), "%s/%s", r->resource, ns ? ns : "");
	o = json_object_get(fk.lists, key);
	*out = o ? json_deep_copy(o) : json_pack("{s:[]}", "items");
	return *out ? 0 : vc_error_set(err, VC_ENOMEM, "out of memory");
}

static int fake_create(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		       const char *sub, const json_t *obj, json_t **out, struct vc_error *err)
{
	(void)ctx;
	(void)name;
	(void)sub;
	record("CREATE", r, ns, NULL, obj);
	if (fk.fail_rc)
		return vc_error_set(err, fk.fail_rc, "injected failure");
	if (out) {
		*out = json_deep_copy(obj);
		if (!*out)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	return 0;
}

static int fake_patch(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		      const char *sub, enum vc_patch_type type, const json_t *patch, json_t **out,
		      struct vc_error *err)
{
	(void)ctx;
	(void)sub;
	(void)out;
	assert_int_equal(type, VC_PATCH_MERGE);
	record("PATCH", r, ns, name, patch);
	if (fk.fail_rc)
		return vc_error_set(err, fk.fail_rc, "injected failure");
	return 0;
}

static int fake_del(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		    const struct vc_delete_opts *opts, struct vc_error *err)
{
	char key[256];

	(void)ctx;
	(void)opts;
	record("DELETE", r, ns, name, NULL);
	if (fk.fail_rc)
		return vc_error_set(err, fk.fail_rc, "injected failure");
	snprintf(key, sizeof(key), "%s/%s/%s", r->resource, ns ? ns : "", name);
	if (!json_object_get(fk.objects, key))
		return not_found(r, name, err);
	return 0;
}

static const struct vc_kube_ops fake_ops = {
	.get = fake_get,
	.list = fake_list,
	.create = fake_create,
	.patch = fake_patch,
	.del = fake_del,
};

static struct vc_kube *kube;

static void reset_calls(void)
{
	int i;

	for (i = 0; i < fk.n; i++)
		json_decref(fk.calls[i].body);
	memset(fk.calls, 0, sizeof(fk.calls));
	fk.n = 0;
}

static const char JOB1[] =
	"{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
	"\"metadata\":{\"name\":\"tf\",\"namespace\":\"ml\",\"uid\":\"uid-tf\","
	"\"creationTimestamp\":\"2024-05-31T23:30:00Z\",\"generation\":2,"
	"\"resourceVersion\":\"77\",\"labels\":{\"a\":\"b<c\"}},"
	"\"spec\":{\"minAvailable\":3,\"schedulerName\":\"volcano\","
	"\"plugins\":{\"env\":[],\"ssh\":[\"--no-root\",\"x\"]},"
	"\"tasks\":[{\"name\":\"ps\",\"replicas\":1,\"template\":{\"metadata\":{},\"spec\":{"
	"\"containers\":[{\"name\":\"c\",\"image\":\"tf:1\",\"command\":[\"sh\",\"-c\"],"
	"\"ports\":[{\"containerPort\":2222,\"name\":\"tfjob-port\"}],"
	"\"resources\":{\"limits\":{\"cpu\":\"1000m\"},\"requests\":{\"cpu\":\"500m\","
	"\"memory\":\"1Gi\"}}}],\"restartPolicy\":\"Never\"}}},"
	"{\"name\":\"worker\",\"replicas\":2,\"template\":{\"spec\":{\"containers\":[]}}}]},"
	"\"status\":{\"state\":{\"phase\":\"Running\"},\"minAvailable\":3,\"running\":3,"
	"\"retryCount\":1,\"version\":1,\"controlledResources\":{\"plugin-svc\":\"svc\","
	"\"plugin-env\":\"env\"},\"conditions\":[{\"status\":\"Pending\","
	"\"lastTransitionTime\":\"2024-05-31T23:30:01Z\"}]}}";

static int setup(void **state)
{
	(void)state;
	setenv("TZ", "UTC", 1);
	tzset();
	vc_time_set_source(fake_clock, fake_clock, NULL);
	memset(&fk, 0, sizeof(fk));
	fk.objects = json_object();
	fk.lists = json_object();
	assert_int_equal(json_object_set_new(fk.objects, "jobs/ml/tf", parse(JOB1)), 0);
	assert_int_equal(
		json_object_set_new(fk.objects, "queues//q1",
				    parse("{\"metadata\":{\"name\":\"q1\",\"uid\":\"uid-q1\"},"
					  "\"spec\":{\"weight\":3,\"parent\":\"root\"},"
					  "\"status\":{\"state\":\"Open\"}}")),
		0);
	kube = vc_kube_new_with_ops(&fake_ops, NULL);
	assert_non_null(kube);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	reset_calls();
	json_decref(fk.objects);
	json_decref(fk.lists);
	vc_kube_free(kube);
	vc_time_set_source(NULL, NULL, NULL);
	return 0;
}

/* ---- parsing ------------------------------------------------------------------------------ */

static void test_parse_run_defaults(void **state)
{
	struct vcctl_opts o;
	struct vc_error err;

	(void)state;
	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "run", "--name", "j1"), 0);
	assert_int_equal(o.cmd, VCCTL_JOB_RUN);
	assert_string_equal(o.prog, "vcctl");
	assert_string_equal(o.group, "job");
	assert_string_equal(o.verb, "run");
	assert_string_equal(o.name, "j1");
	assert_string_equal(o.namespace, "default");
	assert_string_equal(o.image, "busybox");
	assert_string_equal(o.requests, "cpu=1000m,memory=100Mi");
	assert_string_equal(o.limits, "cpu=1000m,memory=100Mi");
	assert_string_equal(o.scheduler, "volcano");
	assert_string_equal(o.filename, "");
	assert_string_equal(o.master, "");
	assert_string_equal(o.kubeconfig, "");
	assert_int_equal(o.min, 1);
	assert_int_equal(o.replicas, 1);
}

static void test_parse_shorthands(void **state)
{
	struct vcctl_opts o;
	struct vc_error err;

	(void)state;
	/* Every pflag spelling: -N v, -Nv, -N=v, --name=v; positional words are ignored. */
	assert_int_equal(PARSE(&o, &err, "/usr/bin/kubectl-vc", "job", "run", "-N", "a", "-nns1",
			       "-i=img", "--replicas=4", "extra", "-m", "-2", "-k", "/kc", "-s",
			       "https://h:1", "--scheduler", "other", "-R", "cpu=1"),
			 0);
	assert_string_equal(o.prog, "kubectl vc");
	assert_string_equal(o.name, "a");
	assert_string_equal(o.namespace, "ns1");
	assert_string_equal(o.image, "img");
	assert_int_equal(o.replicas, 4);
	assert_int_equal(o.min, -2);
	assert_string_equal(o.kubeconfig, "/kc");
	assert_string_equal(o.master, "https://h:1");
	assert_string_equal(o.scheduler, "other");
	assert_string_equal(o.requests, "cpu=1");

	/* Queue commands: -n is the name, -S the state, -w the weight. */
	assert_int_equal(
		PARSE(&o, &err, "vcctl", "queue", "create", "-n", "q", "-w", "3", "-S", "Closed"),
		0);
	assert_int_equal(o.cmd, VCCTL_QUEUE_CREATE);
	assert_string_equal(o.name, "q");
	assert_int_equal(o.weight, 3);
	assert_string_equal(o.state, "Closed");
	assert_int_equal(PARSE(&o, &err, "vcctl", "queue", "create"), 0);
	assert_string_equal(o.name, "test");
	assert_int_equal(o.weight, 1);
	assert_string_equal(o.state, "Open");
	assert_int_equal(PARSE(&o, &err, "vcctl", "queue", "operate", "-nq", "-a", "close"), 0);
	assert_int_equal(o.cmd, VCCTL_QUEUE_OPERATE);
	assert_int_equal(o.weight, 0);
	assert_string_equal(o.action, "close");

	/* --all-namespaces is a bool; "--" ends the flags. */
	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "list", "--all-namespaces", "--selector",
			       "tf", "--", "-N"),
			 0);
	assert_int_equal(o.cmd, VCCTL_JOB_LIST);
	assert_true(o.all_namespaces);
	assert_string_equal(o.selector, "tf");
	assert_string_equal(o.scheduler, "");
	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "list", "--all-namespaces=false"), 0);
	assert_false(o.all_namespaces);

	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "suspend", "-N", "j"), 0);
	assert_int_equal(o.cmd, VCCTL_JOB_SUSPEND);
	assert_int_equal(PARSE(&o, &err, "vcctl", "version"), 0);
	assert_int_equal(o.cmd, VCCTL_VERSION_CMD);
}

static void test_parse_help(void **state)
{
	struct vcctl_opts o;
	struct vc_error err;

	(void)state;
	assert_int_equal(PARSE(&o, &err, "vcctl"), VCCTL_HELP);
	assert_int_equal(PARSE(&o, &err, "vcctl", "--help"), VCCTL_HELP);
	assert_int_equal(PARSE(&o, &err, "vcctl", "queue"), VCCTL_HELP);
	assert_string_equal(o.group, "queue");
	assert_int_equal(o.cmd, VCCTL_NONE);
	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "view", "-N", "x", "-h"), VCCTL_HELP);
	assert_int_equal(o.cmd, VCCTL_JOB_VIEW);
	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "view", "--help"), VCCTL_HELP);
}

static void test_parse_errors(void **state)
{
	const struct {
		int argc;
		char **argv;
		const char *msg;
	} cases[] = {
		{ ARGC("vcctl", "jobs"), ARGV("vcctl", "jobs"),
		  "unknown command \"jobs\" for \"vcctl\"" },
		{ ARGC("vcctl", "job", "start"), ARGV("vcctl", "job", "start"),
		  "unknown command \"start\" for \"vcctl job\"" },
		{ ARGC("kubectl-vc", "queue", "x"), ARGV("kubectl-vc", "queue", "x"),
		  "unknown command \"x\" for \"kubectl vc queue\"" },
		{ ARGC("vcctl", "--bogus"), ARGV("vcctl", "--bogus"), "unknown flag: --bogus" },
		{ ARGC("vcctl", "job", "run", "--bogus=1"),
		  ARGV("vcctl", "job", "run", "--bogus=1"), "unknown flag: --bogus" },
		{ ARGC("vcctl", "job", "run", "-x"), ARGV("vcctl", "job", "run", "-x"),
		  "unknown shorthand flag: 'x' in -x" },
		/* each command has its own shorthands: queue get has no -w */
		{ ARGC("vcctl", "queue", "get", "-w", "1"),
		  ARGV("vcctl", "queue", "get", "-w", "1"), "unknown shorthand flag: 'w' in -w" },
		{ ARGC("vcctl", "job", "view", "-N"), ARGV("vcctl", "job", "view", "-N"),
		  "flag needs an argument: 'N' in -N" },
		{ ARGC("vcctl", "job", "view", "--name"), ARGV("vcctl", "job", "view", "--name"),
		  "flag needs an argument: --name" },
		{ ARGC("vcctl", "job", "run", "-r", "x"), ARGV("vcctl", "job", "run", "-r", "x"),
		  "invalid argument \"x\" for \"--replicas\" flag: strconv.ParseInt: parsing \"x\": "
		  "invalid syntax" },
		{ ARGC("vcctl", "job", "list", "--all-namespaces=maybe"),
		  ARGV("vcctl", "job", "list", "--all-namespaces=maybe"),
		  "invalid argument \"maybe\" for \"--all-namespaces\" flag: strconv.ParseBool: "
		  "parsing \"maybe\": invalid syntax" },
	};
	struct vcctl_opts o;
	struct vc_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		vc_error_clear(&err);
		assert_int_equal(vcctl_parse(cases[i].argc, cases[i].argv, &o, &err), VC_EINVAL);
		assert_string_equal(err.text, cases[i].msg);
	}
	/* -name in a job command is -n "ame", as pflag reads it. */
	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "view", "-name"), 0);
	assert_string_equal(o.namespace, "ame");
}

static void test_usage(void **state)
{
	struct vcctl_opts o;
	struct vc_error err;
	struct capture c;

	(void)state;
	assert_int_equal(PARSE(&o, &err, "vcctl", "queue", "operate", "-h"), VCCTL_HELP);
	vcctl_usage(&o, cap_open(&c));
	assert_string_equal(
		cap_text(&c),
		"operate queue\n\nUsage:\n  vcctl queue operate [flags]\n\nFlags:\n"
		"  -a, --action string       operate action to queue, valid actions are open, "
		"close, update\n"
		"  -h, --help                help for operate\n"
		"  -k, --kubeconfig string   (optional) absolute path to the kubeconfig file\n"
		"  -s, --master string       the address of apiserver\n"
		"  -n, --name string         the name of queue\n"
		"  -w, --weight int          the weight of the queue\n");
	cap_close(&c);
	/* pflag sorts the flags by their long name, help among them. */
	assert_int_equal(PARSE(&o, &err, "vcctl", "pod", "list", "--help"), VCCTL_HELP);
	vcctl_usage(&o, cap_open(&c));
	assert_string_equal(
		cap_text(&c),
		"list pod information created by vcjob\n\nUsage:\n  vcctl pod list [flags]\n\n"
		"Flags:\n"
		"      --all-namespaces      list pods in all namespaces\n"
		"  -h, --help                help for list\n"
		"  -j, --job string          list pod with specified job name\n"
		"  -k, --kubeconfig string   (optional) absolute path to the kubeconfig file\n"
		"  -s, --master string       the address of apiserver\n"
		"  -n, --namespace string    the namespace of pod (default \"default\")\n"
		"  -q, --queue string        list pod with specified queue name\n");
	cap_close(&c);
	assert_int_equal(PARSE(&o, &err, "kubectl-vc", "job"), VCCTL_HELP);
	vcctl_usage(&o, cap_open(&c));
	assert_non_null(strstr(cap_text(&c), "Usage:\n  kubectl vc job [command]\n"));
	assert_non_null(strstr(cap_text(&c), "  suspend     abort a job\n"));
	cap_close(&c);
	assert_int_equal(PARSE(&o, &err, "vcctl"), VCCTL_HELP);
	vcctl_usage(&o, cap_open(&c));
	assert_non_null(strstr(cap_text(&c), "  pod         vcctl command line operation pod\n"));
	cap_close(&c);
}

/* ---- bodies ------------------------------------------------------------------------------- */

static void test_parse_resources(void **state)
{
	struct vc_error err;
	json_t *r = NULL;

	(void)state;
	assert_int_equal(vcctl_parse_resources("cpu=1000m,memory=100Mi,nvidia.com/gpu=1", &r, &err),
			 0);
	assert_json(r, "{\"cpu\":\"1\",\"memory\":\"100Mi\",\"nvidia.com/gpu\":\"1\"}");
	json_decref(r);
	assert_int_equal(vcctl_parse_resources("", &r, &err), 0);
	assert_null(r);
	assert_int_equal(vcctl_parse_resources("cpu", &r, &err), VC_EINVAL);
	assert_string_equal(err.text, "invalid argument syntax cpu, expected <resource>=<value>");
	assert_null(r);
	assert_int_equal(vcctl_parse_resources("cpu=1,", &r, &err), VC_EINVAL);
	assert_string_equal(err.text, "invalid argument syntax , expected <resource>=<value>");
	assert_int_equal(vcctl_parse_resources("a=1=2", &r, &err), VC_EINVAL);
	assert_string_equal(err.text, "invalid argument syntax a=1=2, expected <resource>=<value>");
	assert_int_equal(vcctl_parse_resources("cpu=1mm", &r, &err), VC_EPARSE);
	assert_string_equal(err.text, "unable to parse quantity's suffix");
	assert_int_equal(vcctl_parse_resources("cpu=", &r, &err), VC_EPARSE);
	assert_null(r);
}

static void test_job_from_flags(void **state)
{
	struct vcctl_opts o;
	struct vc_error err;
	json_t *job = NULL;

	(void)state;
	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "run", "-N", "j1", "-n", "ns1", "-r", "3",
			       "-m", "2", "-R", "cpu=250m", "-L", ""),
			 0);
	assert_int_equal(vcctl_job_from_flags(&o, &job, &err), 0);
	assert_json(job,
		    "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
		    "\"metadata\":{\"name\":\"j1\",\"namespace\":\"ns1\"},"
		    "\"spec\":{\"schedulerName\":\"volcano\",\"minAvailable\":2,"
		    "\"tasks\":[{\"replicas\":3,\"template\":{"
		    "\"metadata\":{\"name\":\"j1\",\"labels\":{\"job.volcano.sh\":\"j1\"}},"
		    "\"spec\":{\"containers\":[{\"name\":\"j1\",\"image\":\"busybox\","
		    "\"resources\":{\"requests\":{\"cpu\":\"250m\"}},"
		    "\"imagePullPolicy\":\"IfNotPresent\"}],\"restartPolicy\":\"Never\"}}}]}}");
	json_decref(job);

	/* Zero values are left out, as Go's omitempty does. */
	assert_int_equal(
		PARSE(&o, &err, "vcctl", "job", "run", "-N", "j2", "-r", "0", "-m", "0", "-S", ""),
		0);
	assert_int_equal(vcctl_job_from_flags(&o, &job, &err), 0);
	assert_json(json_object_get(job, "spec"),
		    "{\"tasks\":[{\"template\":{"
		    "\"metadata\":{\"name\":\"j2\",\"labels\":{\"job.volcano.sh\":\"j2\"}},"
		    "\"spec\":{\"containers\":[{\"name\":\"j2\",\"image\":\"busybox\","
		    "\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"100Mi\"},"
		    "\"limits\":{\"cpu\":\"1\",\"memory\":\"100Mi\"}},"
		    "\"imagePullPolicy\":\"IfNotPresent\"}],\"restartPolicy\":\"Never\"}}}]}");
	json_decref(job);

	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "run", "-N", "j", "-L", "mem"), 0);
	assert_int_equal(vcctl_job_from_flags(&o, &job, &err), VC_EINVAL);
	assert_null(job);
	assert_string_equal(err.text, "invalid argument syntax mem, expected <resource>=<value>");
}

static void test_command_bodies(void **state)
{
	json_t *job = parse("{\"metadata\":{\"name\":\"tf\",\"namespace\":\"ml\",\"uid\":\"u1\"}}");
	json_t *queue = parse("{\"metadata\":{\"name\":\"q1\",\"uid\":\"u2\"}}");
	json_t *cmd = NULL;
	struct vc_error err;

	(void)state;
	assert_int_equal(vcctl_command_new(job, "batch.volcano.sh/v1alpha1", "Job", "ml",
					   "AbortJob", &cmd, &err),
			 0);
	assert_json(cmd,
		    "{\"apiVersion\":\"bus.volcano.sh/v1alpha1\",\"kind\":\"Command\","
		    "\"metadata\":{\"generateName\":\"tf-abortjob-\",\"namespace\":\"ml\","
		    "\"ownerReferences\":[{\"apiVersion\":\"batch.volcano.sh/v1alpha1\","
		    "\"kind\":\"Job\",\"name\":\"tf\",\"uid\":\"u1\",\"controller\":true,"
		    "\"blockOwnerDeletion\":true}]},"
		    "\"target\":{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
		    "\"name\":\"tf\",\"uid\":\"u1\",\"controller\":true,"
		    "\"blockOwnerDeletion\":true},\"action\":\"AbortJob\"}");
	json_decref(cmd);
	assert_int_equal(vcctl_command_new(queue, "scheduling.volcano.sh/v1beta1", "Queue", NULL,
					   "OpenQueue", &cmd, &err),
			 0);
	assert_json(cmd, "{\"apiVersion\":\"bus.volcano.sh/v1alpha1\",\"kind\":\"Command\","
			 "\"metadata\":{\"generateName\":\"q1-openqueue-\","
			 "\"ownerReferences\":[{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\","
			 "\"kind\":\"Queue\",\"name\":\"q1\",\"uid\":\"u2\",\"controller\":true,"
			 "\"blockOwnerDeletion\":true}]},"
			 "\"target\":{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\","
			 "\"kind\":\"Queue\",\"name\":\"q1\",\"uid\":\"u2\",\"controller\":true,"
			 "\"blockOwnerDeletion\":true},\"action\":\"OpenQueue\"}");
	json_decref(cmd);
	json_object_del(json_object_get(queue, "metadata"), "uid");
	assert_int_equal(vcctl_command_new(queue, "scheduling.volcano.sh/v1beta1", "Queue", NULL,
					   "OpenQueue", &cmd, &err),
			 VC_EINVAL);
	assert_null(cmd);
	json_decref(job);
	json_decref(queue);
}

/* ---- tables ------------------------------------------------------------------------------- */

static const char JOBS[] =
	"{\"items\":[{\"metadata\":{\"name\":\"tf-benchmark\",\"namespace\":\"default\","
	"\"creationTimestamp\":\"2024-05-31T23:30:00Z\",\"labels\":{\"volcano.sh/job-type\":"
	"\"Tensorflow\"}},\"spec\":{\"schedulerName\":\"volcano\",\"tasks\":[{\"replicas\":1},"
	"{\"replicas\":2}]},\"status\":{\"state\":{\"phase\":\"Running\"},\"minAvailable\":3,"
	"\"pending\":1,\"running\":2,\"succeeded\":0,\"failed\":0,\"retryCount\":4}},"
	"{\"metadata\":{\"name\":\"x\",\"namespace\":\"long-namespace-name\"},"
	"\"spec\":{\"schedulerName\":\"other\",\"queue\":\"q1\",\"tasks\":[{\"replicas\":5}]},"
	"\"status\":{}}]}";

static void test_print_jobs(void **state)
{
	json_t *jobs = parse(JOBS);
	struct vcctl_opts o;
	struct vc_error err;
	struct capture c;

	(void)state;
	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "list"), 0);
	assert_int_equal(vcctl_print_jobs(jobs, &o, cap_open(&c)), 0);
	assert_string_equal(
		cap_text(&c),
		"Name           Creation       Phase       JobType     Replicas    Min   Pending   "
		"Running   Succeeded   Failed    Unknown     RetryCount\n"
		"tf-benchmark   2024-05-31     Running     Tensorflow  3           3     1         "
		"2         0           0         0           4         \n"
		"x              0001-01-01                 Batch       5           0     0         "
		"0         0           0         0           0         \n");
	cap_close(&c);

	/*
	 * All namespaces, and the --scheduler filter: Volcano HEAD filters first, so the widths
	 * count only the jobs shown (v1.7 counted every job).
	 */
	assert_int_equal(
		PARSE(&o, &err, "vcctl", "job", "list", "--all-namespaces", "-S", "volcano"), 0);
	assert_int_equal(vcctl_print_jobs(jobs, &o, cap_open(&c)), 0);
	assert_string_equal(
		cap_text(&c),
		"Namespace   Name           Creation       Phase       JobType     "
		"Replicas    Min   Pending   Running   Succeeded   Failed    Unknown     RetryCount\n"
		"default     tf-benchmark   2024-05-31     Running     Tensorflow  3      "
		"     3     1         2         0           0         0           4         \n");
	cap_close(&c);

	/* -q/--queue: the jobs whose spec.queue is that queue. */
	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "list", "-q", "q1"), 0);
	assert_string_equal(o.queue, "q1");
	assert_int_equal(vcctl_print_jobs(jobs, &o, cap_open(&c)), 0);
	assert_string_equal(
		cap_text(&c),
		"Name   Creation       Phase       JobType     Replicas    Min   Pending   "
		"Running   Succeeded   Failed    Unknown     RetryCount\n"
		"x      0001-01-01                 Batch       5           0     0         "
		"0         0           0         0           0         \n");
	cap_close(&c);

	/* Filters that leave nothing: Volcano HEAD's "No resources found", no header. */
	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "list", "--queue", "nope"), 0);
	assert_int_equal(vcctl_print_jobs(jobs, &o, cap_open(&c)), 0);
	assert_string_equal(cap_text(&c), "No resources found\n");
	cap_close(&c);
	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "list", "-S", "kube-batch"), 0);
	assert_int_equal(vcctl_print_jobs(jobs, &o, cap_open(&c)), 0);
	assert_string_equal(cap_text(&c), "No resources found\n");
	cap_close(&c);

	/* --selector matches a part of the name. */
	assert_int_equal(PARSE(&o, &err, "vcctl", "job", "list", "--selector", "bench"), 0);
	assert_int_equal(vcctl_print_jobs(jobs, &o, cap_open(&c)), 0);
	assert_null(strstr(cap_text(&c), "\nx "));
	assert_non_null(strstr(cap_text(&c), "\ntf-benchmark "));
	cap_close(&c);

	json_decref(jobs);
	jobs = parse("{\"items\":[]}");
	assert_int_equal(vcctl_print_jobs(jobs, &o, cap_open(&c)), 0);
	assert_string_equal(cap_text(&c), "No resources found\n");
	cap_close(&c);
	json_decref(jobs);
}

static const char PGS[] =
	"{\"items\":[{\"spec\":{\"queue\":\"q1\"},\"status\":{\"phase\":\"Running\"}},"
	"{\"spec\":{\"queue\":\"q1\"},\"status\":{\"phase\":\"Running\"}},"
	"{\"spec\":{\"queue\":\"q1\"},\"status\":{\"phase\":\"Inqueue\"}},"
	"{\"spec\":{\"queue\":\"default\"},\"status\":{\"phase\":\"Completed\"}},"
	"{\"spec\":{\"queue\":\"default\"},\"status\":{\"phase\":\"Pending\"}},"
	"{\"spec\":{\"queue\":\"gone\"},\"status\":{\"phase\":\"Unknown\"}},"
	"{\"spec\":{\"queue\":\"q1\"},\"status\":{}}]}";

static void test_print_queues(void **state)
{
	json_t *queues =
		parse("{\"items\":[{\"metadata\":{\"name\":\"default\"},\"spec\":{\"weight\":1},"
		      "\"status\":{\"state\":\"Open\"}},{\"metadata\":{\"name\":\"q1\"},"
		      "\"spec\":{\"weight\":3,\"parent\":\"root\"},"
		      "\"status\":{\"state\":\"Closed\"}}]}");
	json_t *pgs = parse(PGS);
	struct capture c;

	(void)state;
	vcctl_print_queues(queues, pgs, cap_open(&c));
	assert_string_equal(
		cap_text(&c),
		"Name                     Weight  State   Parent  Inqueue Pending Running "
		"Unknown Completed\n"
		"default                  1       Open            0       1       0       "
		"0       1       \n"
		"q1                       3       Closed  root    1       0       2       "
		"0       0       \n");
	cap_close(&c);
	vcctl_print_queue(json_array_get(json_object_get(queues, "items"), 1), pgs, cap_open(&c));
	assert_string_equal(
		cap_text(&c),
		"Name                     Weight  State   Parent  Inqueue Pending Running "
		"Unknown Completed\n"
		"q1                       3       Closed  root    1       0       2       "
		"0       0       \n");
	cap_close(&c);
	json_decref(queues);
	json_decref(pgs);
}

static void test_print_job(void **state)
{
	json_t *job = parse(JOB1);
	struct capture c;

	(void)state;
	assert_int_equal(vcctl_print_job(job, cap_open(&c)), 0);
	assert_string_equal(cap_text(&c),
			    "Name:       \ttf\n"
			    "Namespace:  \tml\n"
			    "Labels:     \t{\"a\":\"b\\u003cc\"}\n"
			    "Annotations:\t<none>\n"
			    "API Version:\tbatch.volcano.sh/v1alpha1\n"
			    "Kind:       \tJob\n"
			    "Metadata:\n"
			    "  Creation Timestamp:\t2024-05-31 23:30:00 +0000 UTC\n"
			    "  Generate Name:     \t\n"
			    "  Generation:        \t2\n"
			    "  Resource Version:  \t77\n"
			    "  UID:               \tuid-tf\n"
			    "Spec:\n"
			    "  Min Available:     \t3\n"
			    "  Plugins:\n"
			    "    Env:\t[]\n"
			    "    Ssh:\t[--no-root x]\n"
			    "  Scheduler Name:    \tvolcano\n"
			    "  Tasks:\n"
			    "    Name:\tps\n"
			    "    Replicas:\t1\n"
			    "    Template:\n"
			    "      Metadata:\n"
			    "        Annotations:\n"
			    "          Cri . Cci . Io / Container - Type:          \t\n"
			    "          Kubernetes . Io / Availablezone:            \t\n"
			    "          Network . Alpha . Kubernetes . Io / Network:\t\n"
			    "        Creation Timestamp:\t0001-01-01 00:00:00 +0000 UTC\n"
			    "      Spec:\n"
			    "        Containers:\n"
			    "          Command:\n"
			    "            sh\n"
			    "            -c\n"
			    "          Image:\ttf:1\n"
			    "          Name: \tc\n"
			    "          Ports:\n"
			    "            Container Port:\t2222\n"
			    "            Name:          \ttfjob-port\n"
			    "          Resources:\n"
			    "            Limits:\n"
			    "              Cpu:   \t1\n"
			    "              Memory:\t0\n"
			    "            Requests:\n"
			    "              Cpu:   \t500m\n"
			    "              Memory:\t1Gi\n"
			    "            Working Dir:\t\n"
			    "        Image Pull Secrets:\n"
			    "        Restart Policy:   \tNever\n"
			    "    Name:\tworker\n"
			    "    Replicas:\t2\n"
			    "    Template:\n"
			    "      Metadata:\n"
			    "        Annotations:\n"
			    "          Cri . Cci . Io / Container - Type:          \t\n"
			    "          Kubernetes . Io / Availablezone:            \t\n"
			    "          Network . Alpha . Kubernetes . Io / Network:\t\n"
			    "        Creation Timestamp:\t0001-01-01 00:00:00 +0000 UTC\n"
			    "      Spec:\n"
			    "        Containers:\n"
			    "        Image Pull Secrets:\n"
			    "        Restart Policy:   \t\n"
			    "Status:\n"
			    "  Running:      \t3\n"
			    "  RetryCount:   \t1\n"
			    "  Min Available:\t3\n"
			    "  Version:      \t1\n"
			    "  State:\n"
			    "    Phase:\tRunning\n"
			    "  Controlled Resources:\n"
			    "    plugin-env: \tenv\n"
			    "    plugin-svc: \tsvc\n"
			    "  Conditions:\n"
			    "    Status\tTransitionTime\n"
			    "    Pending \t2024-05-31 23:30:01 +0000 UTC \n");
	cap_close(&c);
	json_decref(job);
}

static void test_print_events(void **state)
{
	json_t *ev =
		parse("{\"items\":["
		      "{\"metadata\":{\"name\":\"tf.17a\"},\"type\":\"Normal\",\"reason\":\"A\","
		      "\"message\":\"  hello \\n\",\"count\":1,"
		      "\"firstTimestamp\":\"2024-06-01T11:59:30Z\","
		      "\"source\":{\"component\":\"vc-controller\"}},"
		      "{\"metadata\":{\"name\":\"tfx.17b\"},\"type\":\"Normal\",\"reason\":\"B\"},"
		      "{\"metadata\":{\"name\":\"tf.17c\"},\"type\":\"Warning\",\"reason\":\"C\","
		      "\"message\":\"m\",\"count\":3,\"firstTimestamp\":\"2024-06-01T11:00:00Z\","
		      "\"lastTimestamp\":\"2024-06-01T11:57:00Z\","
		      "\"source\":{\"component\":\"kubelet\",\"host\":\"n1\"}}]}");
	struct capture c;

	(void)state;
	vcctl_print_events(ev, "tf", NOW_NS, cap_open(&c));
	assert_string_equal(
		cap_text(&c),
		"Events:\n"
		"Type           \tReason                                  \tAge                "
		"           \tForm                                    \tMessage\n"
		"-------        \t-------                                 \t-------            "
		"           \t-------                                 \t-------\n"
		"Normal         \tA                                       \t30s                "
		"           \tvc-controller                           \thello\n"
		"Warning        \tC                                       \t3m (x3 over 60m)   "
		"           \tkubelet, n1                             \tm\n");
	cap_close(&c);
	vcctl_print_events(NULL, "tf", NOW_NS, cap_open(&c));
	assert_string_equal(cap_text(&c), "Events: \t<none>\n");
	cap_close(&c);
	json_decref(ev);
}

/* ---- commands against the fake API -------------------------------------------------------- */

/* Run the whole program; out and errout receive what it prints. */
static int run_main(struct capture *out, struct capture *errout, int argc, char **argv)
{
	int rc = vcctl_main(argc, argv, kube, cap_open(out), cap_open(errout));

	cap_text(out);
	cap_text(errout);
	return rc;
}

#define MAIN(o, e, ...) run_main((o), (e), ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

/*
 * A run of the program: its exit status, what it prints (out: the whole of stdout, or its first
 * out_n bytes; err: stderr; NULL: not checked), the number of API calls (-1: not checked), the
 * verb of the first (in namespace ml) and the action of the Command the second creates.
 */
struct run_case {
	int argc;
	char **argv;
	int rc;
	const char *out;
	size_t out_n;
	const char *err;
	int ncalls;
	const char *verb0, *action1;
};

/* Run each case from a clean call log and check what it says it checks. */
static void check_runs(const struct run_case *cases, size_t n)
{
	struct capture o, e;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct run_case *c = &cases[i];

		reset_calls();
		assert_int_equal(run_main(&o, &e, c->argc, c->argv), c->rc);
		if (c->out && c->out_n)
			assert_memory_equal(o.buf, c->out, c->out_n);
		else if (c->out)
			assert_string_equal(o.buf, c->out);
		if (c->err)
			assert_string_equal(e.buf, c->err);
		if (c->ncalls >= 0)
			assert_int_equal(fk.n, c->ncalls);
		if (c->verb0) {
			assert_string_equal(fk.calls[0].verb, c->verb0);
			assert_string_equal(fk.calls[0].ns, "ml");
		}
		if (c->action1)
			assert_string_equal(vc_json_get_str(fk.calls[1].body, "action"),
					    c->action1);
		cap_close(&o);
		cap_close(&e);
	}
}

static void test_main_job_commands(void **state)
{
	const struct run_case usage[] = {
		{ ARGC("vcctl", "job", "view"), ARGV("vcctl", "job", "view"), 1, NULL, 0,
		  "Failed to view job: job name (specified by --name or -N) is mandatory to view a "
		  "particular job\n",
		  0, NULL, NULL },
		{ ARGC("vcctl", "job", "run"), ARGV("vcctl", "job", "run"), 1, NULL, 0,
		  "Failed to run job: job name cannot be left blank\n", 0, NULL, NULL },
		{ ARGC("vcctl", "job", "run", "-f", "job.json"),
		  ARGV("vcctl", "job", "run", "-f", "job.json"), 1, NULL, 0,
		  "Failed to run job: only support yaml file\n", 0, NULL, NULL },
		{ ARGC("vcctl", "job", "delete"), ARGV("vcctl", "job", "delete"), 1, NULL, 0,
		  "Failed to delete job: job name is mandatory to delete a particular job\n", 0,
		  NULL, NULL },
	};
	struct capture o, e;

	(void)state;
	assert_int_equal(MAIN(&o, &e, "vcctl", "job", "run", "-N", "j1", "-n", "ml"), 0);
	assert_string_equal(o.buf, "run job j1 successfully\n");
	assert_string_equal(e.buf, "");
	assert_int_equal(fk.n, 1);
	assert_string_equal(fk.calls[0].verb, "CREATE");
	assert_string_equal(fk.calls[0].resource, "jobs");
	assert_string_equal(fk.calls[0].ns, "ml");
	assert_string_equal(vc_json_get_str(json_object_get(fk.calls[0].body, "metadata"), "name"),
			    "j1");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	/* suspend: GET the job, then a Command with its controller reference in its namespace. */
	assert_int_equal(MAIN(&o, &e, "vcctl", "job", "suspend", "-N", "tf", "-n", "ml"), 0);
	assert_string_equal(o.buf, "");
	assert_int_equal(fk.n, 2);
	assert_string_equal(fk.calls[0].verb, "GET");
	assert_string_equal(fk.calls[0].name, "tf");
	assert_string_equal(fk.calls[1].verb, "CREATE");
	assert_string_equal(fk.calls[1].resource, "commands");
	assert_string_equal(fk.calls[1].ns, "ml");
	assert_json(json_object_get(fk.calls[1].body, "target"),
		    "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
		    "\"name\":\"tf\",\"uid\":\"uid-tf\",\"controller\":true,"
		    "\"blockOwnerDeletion\":true}");
	assert_string_equal(vc_json_get_str(fk.calls[1].body, "action"), "AbortJob");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	assert_int_equal(MAIN(&o, &e, "vcctl", "job", "resume", "-N", "tf", "-n", "ml"), 0);
	assert_string_equal(vc_json_get_str(fk.calls[1].body, "action"), "ResumeJob");
	assert_string_equal(
		vc_json_get_str(json_object_get(fk.calls[1].body, "metadata"), "generateName"),
		"tf-resumejob-");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	/* An unknown job: the server's message, exit status 1, nothing created. */
	assert_int_equal(MAIN(&o, &e, "vcctl", "job", "suspend", "-N", "nope"), 1);
	assert_string_equal(e.buf,
			    "Failed to suspend job: jobs.batch.volcano.sh \"nope\" not found\n");
	assert_int_equal(fk.n, 1);
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	assert_int_equal(MAIN(&o, &e, "vcctl", "job", "delete", "-N", "tf", "-n", "ml"), 0);
	assert_string_equal(o.buf, "delete job tf successfully\n");
	assert_string_equal(fk.calls[0].verb, "DELETE");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	assert_int_equal(MAIN(&o, &e, "vcctl", "job", "view", "-n", "ml", "-N", "tf"), 0);
	assert_true(!strncmp(o.buf, "Name:       \ttf\nNamespace:  \tml\n", 30));
	assert_non_null(strstr(o.buf, "\nEvents: \t<none>\n"));
	assert_string_equal(fk.calls[1].verb, "LIST");
	assert_string_equal(fk.calls[1].resource, "events");
	assert_string_equal(fk.calls[1].ns, "ml");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	/* Bad input is reported before any request. */
	check_runs(usage, VC_ARRAY_SIZE(usage));
	assert_int_equal(MAIN(&o, &e, "vcctl", "job", "nope"), 1);
	assert_string_equal(e.buf, "Error: unknown command \"nope\" for \"vcctl job\"\n"
				   "Run 'vcctl job --help' for usage.\n");
	cap_close(&o);
	cap_close(&e);
	assert_int_equal(fk.n, 0);

	/* -f: the file's Job, created in the --namespace. */
	{
		char path[] = "/tmp/test_vcctl_XXXXXX.yaml";
		int fd = mkstemps(path, 5);
		static const char yaml[] =
			"apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\n"
			"metadata:\n  name: fromfile\nspec:\n  minAvailable: 1\n";

		assert_true(fd >= 0);
		assert_int_equal(write(fd, yaml, sizeof(yaml) - 1), (ssize_t)(sizeof(yaml) - 1));
		close(fd);
		assert_int_equal(MAIN(&o, &e, "vcctl", "job", "run", "-f", path, "-n", "ml"), 0);
		assert_string_equal(o.buf, "run job fromfile successfully\n");
		assert_json(fk.calls[0].body,
			    "{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
			    "\"metadata\":{\"name\":\"fromfile\"},\"spec\":{\"minAvailable\":1}}");
		cap_close(&o);
		cap_close(&e);
		unlink(path);
		reset_calls();
		assert_int_equal(MAIN(&o, &e, "vcctl", "job", "run", "-f", path), 1);
		assert_non_null(
			strstr(e.buf, "Failed to run job: failed to read file, err: open "));
		assert_non_null(strstr(e.buf, ": no such file or directory\n"));
		cap_close(&o);
		cap_close(&e);
	}
}

static void test_main_queue_commands(void **state)
{
	const struct run_case usage[] = {
		{ ARGC("vcctl", "queue", "operate", "-n", "q1"),
		  ARGV("vcctl", "queue", "operate", "-n", "q1"), 1, NULL, 0,
		  "Failed to operate queue: action can not be null\n", 0, NULL, NULL },
		{ ARGC("vcctl", "queue", "operate", "-a", "open"),
		  ARGV("vcctl", "queue", "operate", "-a", "open"), 1, NULL, 0,
		  "Failed to operate queue: queue name must be specified\n", 0, NULL, NULL },
		{ ARGC("vcctl", "queue", "get"), ARGV("vcctl", "queue", "get"), 1, NULL, 0,
		  "Failed to get queue: name is mandatory to get the particular queue details\n", 0,
		  NULL, NULL },
	};
	struct capture o, e;

	(void)state;
	assert_int_equal(MAIN(&o, &e, "vcctl", "queue", "create", "-n", "q2", "-w", "3"), 0);
	assert_string_equal(o.buf, "");
	assert_string_equal(fk.calls[0].resource, "queues");
	assert_json(fk.calls[0].body,
		    "{\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"Queue\","
		    "\"metadata\":{\"name\":\"q2\"},\"spec\":{\"weight\":3},"
		    "\"status\":{\"state\":\"Open\"}}");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	assert_int_equal(MAIN(&o, &e, "vcctl", "queue", "operate", "-n", "q1", "-a", "close"), 0);
	assert_int_equal(fk.n, 2);
	assert_string_equal(fk.calls[1].verb, "CREATE");
	assert_string_equal(fk.calls[1].resource, "commands");
	assert_string_equal(fk.calls[1].ns, "default");
	assert_string_equal(vc_json_get_str(fk.calls[1].body, "action"), "CloseQueue");
	assert_string_equal(vc_json_get_str(json_object_get(fk.calls[1].body, "target"), "kind"),
			    "Queue");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	assert_int_equal(
		MAIN(&o, &e, "vcctl", "queue", "operate", "-n", "q1", "-a", "update", "-w", "5"),
		0);
	assert_int_equal(fk.n, 1);
	assert_string_equal(fk.calls[0].verb, "PATCH");
	assert_string_equal(fk.calls[0].name, "q1");
	assert_json(fk.calls[0].body, "{\"spec\":{\"weight\":5}}");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	check_runs(usage, VC_ARRAY_SIZE(usage));

	assert_int_equal(MAIN(&o, &e, "vcctl", "queue", "list"), 0);
	assert_string_equal(o.buf, "No resources found\n");
	cap_close(&o);
	cap_close(&e);
	reset_calls();
	assert_int_equal(json_object_set_new(fk.lists, "queues/",
					     parse("{\"items\":[{\"metadata\":{\"name\":\"q1\"},"
						   "\"spec\":{\"weight\":3},\"status\":{\"state\":"
						   "\"Open\"}}]}")),
			 0);
	assert_int_equal(json_object_set_new(fk.lists, "podgroups/", parse(PGS)), 0);
	assert_int_equal(MAIN(&o, &e, "vcctl", "queue", "list"), 0);
	assert_string_equal(
		o.buf, "Name                     Weight  State   Parent  Inqueue Pending Running "
		       "Unknown Completed\n"
		       "q1                       3       Open            1       0       2       "
		       "0       0       \n");
	cap_close(&o);
	cap_close(&e);
	assert_int_equal(MAIN(&o, &e, "vcctl", "queue", "get", "-n", "q1"), 0);
	assert_true(!strncmp(o.buf, "Name                     Weight  State   Parent", 46));
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	assert_int_equal(MAIN(&o, &e, "vcctl", "queue", "delete", "-n", "nope"), 1);
	assert_string_equal(
		e.buf, "Failed to delete queue: queues.scheduling.volcano.sh \"nope\" not found\n");
	cap_close(&o);
	cap_close(&e);
	fk.fail_rc = VC_ESERVER;
	assert_int_equal(MAIN(&o, &e, "vcctl", "job", "list", "--all-namespaces"), 1);
	assert_string_equal(e.buf, "Failed to list job: injected failure\n");
	assert_string_equal(fk.calls[fk.n - 1].ns, "");
	cap_close(&o);
	cap_close(&e);
	fk.fail_rc = 0;
}

/* ---- pods --------------------------------------------------------------------------------- */

static const char PODS[] =
	"{\"items\":["
	/* running and ready */
	"{\"metadata\":{\"name\":\"tf-ps-0\",\"creationTimestamp\":\"2024-06-01T11:56:40Z\"},"
	"\"spec\":{\"containers\":[{\"name\":\"c\"}]},"
	"\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],"
	"\"containerStatuses\":[{\"name\":\"c\",\"ready\":true,\"restartCount\":0,"
	"\"state\":{\"running\":{}}}]}},"
	/* waiting for the scheduler */
	"{\"metadata\":{\"name\":\"tf-worker-0\",\"creationTimestamp\":\"2024-06-01T11:59:55Z\"},"
	"\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]},"
	"\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":\"PodScheduled\","
	"\"status\":\"False\",\"reason\":\"Unschedulable\"}]}},"
	/* crash looping: the waiting reason, restarts with the last termination's age */
	"{\"metadata\":{\"name\":\"tf-worker-1\",\"creationTimestamp\":\"2024-06-01T11:00:00Z\"},"
	"\"spec\":{\"containers\":[{\"name\":\"c\"}]},"
	"\"status\":{\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"c\",\"ready\":false,"
	"\"restartCount\":3,\"state\":{\"waiting\":{\"reason\":\"CrashLoopBackOff\"}},"
	"\"lastState\":{\"terminated\":{\"exitCode\":1,"
	"\"finishedAt\":\"2024-06-01T11:59:30Z\"}}}]}},"
	/* an init container still running; no creation time */
	"{\"metadata\":{\"name\":\"init-pod\"},"
	"\"spec\":{\"initContainers\":[{\"name\":\"init\"}],\"containers\":[{\"name\":\"c\"}]},"
	"\"status\":{\"phase\":\"Pending\",\"initContainerStatuses\":[{\"name\":\"init\","
	"\"state\":{\"running\":{}}}]}},"
	/* succeeded, being deleted: a terminal phase is not Terminating */
	"{\"metadata\":{\"name\":\"done\",\"creationTimestamp\":\"2024-05-30T12:00:00Z\","
	"\"deletionTimestamp\":\"2024-06-01T12:00:00Z\"},"
	"\"spec\":{\"containers\":[{\"name\":\"c\"}]},"
	"\"status\":{\"phase\":\"Succeeded\",\"containerStatuses\":[{\"name\":\"c\","
	"\"state\":{\"terminated\":{\"reason\":\"Completed\",\"exitCode\":0}}}]}},"
	/* running, being deleted */
	"{\"metadata\":{\"name\":\"bye\",\"creationTimestamp\":\"2024-06-01T11:59:00Z\","
	"\"deletionTimestamp\":\"2024-06-01T12:00:00Z\"},"
	"\"spec\":{\"containers\":[{\"name\":\"c\"}]},"
	"\"status\":{\"phase\":\"Running\",\"containerStatuses\":[{\"name\":\"c\",\"ready\":true,"
	"\"state\":{\"running\":{}}}]}},"
	/* scheduling gates */
	"{\"metadata\":{\"name\":\"gated\",\"creationTimestamp\":\"2024-06-01T11:59:00Z\"},"
	"\"spec\":{\"containers\":[{\"name\":\"c\"}]},"
	"\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":\"PodScheduled\","
	"\"status\":\"False\",\"reason\":\"SchedulingGated\"}]}}"
	"]}";

static void test_print_pods(void **state)
{
	json_t *pods = parse(PODS);
	struct capture c;
	char want[2048];

	(void)state;
	/* Each column is as wide as its longest value plus 8 (Volcano HEAD's PrintPods). */
#define ROW "%-19s%-11s%-24s%-19s%-17s\n"
	snprintf(want, sizeof(want), ROW ROW ROW ROW ROW ROW ROW ROW, "Name", "Ready", "Status",
		 "Restart", "Age", "tf-ps-0", "1/1", "Running", "0", "3m20s", "tf-worker-0", "0/2",
		 "Pending", "0", "5s", "tf-worker-1", "0/1", "CrashLoopBackOff", "3 (30s ago)",
		 "60m", "init-pod", "0/1", "Init:0/1", "0", "<unknown>", "done", "0/1", "Completed",
		 "0", "2d", "bye", "1/1", "Terminating", "0", "60s", "gated", "0/1",
		 "SchedulingGated", "0", "60s");
#undef ROW
	vcctl_print_pods(pods, NOW_NS, cap_open(&c));
	assert_string_equal(cap_text(&c), want);
	cap_close(&c);
	json_decref(pods);
}

static const char QPODS[] =
	"{\"items\":["
	"{\"metadata\":{\"name\":\"a\",\"labels\":{\"volcano.sh/job-name\":\"tf\","
	"\"volcano.sh/queue-name\":\"q1\"}},\"spec\":{\"containers\":[]},\"status\":{}},"
	"{\"metadata\":{\"name\":\"b\",\"annotations\":{\"scheduling.volcano.sh/queue-name\":"
	"\"q1\"}},\"spec\":{\"containers\":[]},\"status\":{}},"
	"{\"metadata\":{\"name\":\"c\",\"labels\":{\"volcano.sh/queue-name\":\"q2\"}},"
	"\"spec\":{\"containers\":[]},\"status\":{}},"
	"{\"metadata\":{\"name\":\"d\",\"labels\":{\"volcano.sh/queue-name\":\"q1\"},"
	"\"annotations\":{\"scheduling.volcano.sh/queue-name\":\"q1\"}},"
	"\"spec\":{\"containers\":[]},\"status\":{}}]}";

static void test_main_pod_list(void **state)
{
	struct capture o, e;

	(void)state;
	/* Every vcjob's pods: those with the job-name label. */
	assert_int_equal(MAIN(&o, &e, "vcctl", "pod", "list"), 0);
	assert_string_equal(o.buf, "No resources found\n");
	assert_int_equal(fk.n, 1);
	assert_string_equal(fk.calls[0].resource, "pods");
	assert_string_equal(fk.calls[0].ns, "default");
	assert_string_equal(fk.calls[0].selector, "volcano.sh/job-name");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	assert_int_equal(json_object_set_new(fk.lists, "pods/ml", parse(QPODS)), 0);
	assert_int_equal(MAIN(&o, &e, "vcctl", "pod", "list", "-j", "tf", "-n", "ml"), 0);
	assert_string_equal(fk.calls[0].ns, "ml");
	assert_string_equal(fk.calls[0].selector, "volcano.sh/job-name in (tf)");
	assert_true(!strncmp(o.buf, "Name     Ready      Status  Restart  Age", 40));
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	/* -j and -q: the job's pods must be in that queue. */
	assert_int_equal(
		MAIN(&o, &e, "vcctl", "pod", "list", "-j", "tf", "-n", "ml", "--queue", "q3"), 1);
	assert_string_equal(e.buf, "Failed to list pod: the input vcjob tf does not match the "
				   "queue q3\n");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	/* -q alone: the queue-name label, then pods with only the queue annotation, once each. */
	assert_int_equal(MAIN(&o, &e, "vcctl", "pod", "list", "-q", "q1", "-n", "ml"), 0);
	assert_string_equal(fk.calls[0].selector, "");
	assert_string_equal(o.buf, "Name     Ready      Status  Restart  Age              \n"
				   "a        0/0                0        <unknown>        \n"
				   "d        0/0                0        <unknown>        \n"
				   "b        0/0                0        <unknown>        \n");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	assert_int_equal(MAIN(&o, &e, "vcctl", "pod", "list", "--all-namespaces"), 0);
	assert_string_equal(fk.calls[0].ns, "");
	cap_close(&o);
	cap_close(&e);
	reset_calls();
}

/* ---- job explain (the reasoning: test_explain.c) ------------------------------------------ */

static void test_main_job_explain(void **state)
{
	struct capture o, e;

	(void)state;
	/* The positional NAME, -n; a missing job is an explanation (exit 0). */
	assert_int_equal(MAIN(&o, &e, "kubectl-vc", "job", "explain", "nope", "-n", "ml"), 0);
	assert_string_equal(o.buf, "Job ml/nope: not found\nWhy: the job does not exist\n"
				   "From: Job ml/nope (the API server answers NotFound)\n");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	/* tf in ml is Running (JOB1). */
	assert_int_equal(MAIN(&o, &e, "vcctl", "job", "explain", "-N", "tf", "-n", "ml"), 0);
	assert_true(!strncmp(o.buf, "Job ml/tf: Running\nWhy: the job is Running: 3 of 3", 50));
	assert_string_equal(fk.calls[0].resource, "jobs");
	assert_string_equal(fk.calls[1].resource, "queues");
	assert_string_equal(fk.calls[1].name, "default");
	assert_string_equal(fk.calls[2].resource, "podgroups");
	assert_string_equal(fk.calls[3].resource, "pods");
	assert_string_equal(fk.calls[3].selector, "volcano.sh/job-name=tf");
	assert_string_equal(fk.calls[4].resource, "events");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	assert_int_equal(MAIN(&o, &e, "vcctl", "job", "explain"), 1);
	assert_string_equal(e.buf, "Failed to explain job: job name (NAME, --name or -N) is "
				   "mandatory to explain a job\n");
	assert_int_equal(fk.n, 0);
	cap_close(&o);
	cap_close(&e);

	fk.fail_rc = VC_ESERVER;
	assert_int_equal(MAIN(&o, &e, "vcctl", "job", "explain", "tf"), 1);
	assert_string_equal(e.buf, "Failed to explain job: injected failure\n");
	cap_close(&o);
	cap_close(&e);
	fk.fail_rc = 0;
}

/* ---- Volcano's v* programs ---------------------------------------------------------------- */

static void test_split_command(void **state)
{
	struct vc_error err;
	json_t *v = NULL;

	(void)state;
	assert_int_equal(vcctl_split_command("", &v, &err), 0);
	assert_null(v);
	assert_int_equal(
		vcctl_split_command("  sh -c 'echo a  b' \"x\\\"y\" z\\ w '' # gone", &v, &err), 0);
	assert_json(v, "[\"sh\",\"-c\",\"echo a  b\",\"x\\\"y\",\"z w\",\"\"]");
	json_decref(v);
	v = NULL;
	assert_int_equal(vcctl_split_command("sleep 'x", &v, &err), VC_EINVAL);
	assert_string_equal(err.text, "EOF found when expecting closing quote");
	assert_int_equal(vcctl_split_command("sleep x\\", &v, &err), VC_EINVAL);
	assert_string_equal(err.text, "EOF found after escape character");
	assert_null(v);
}

static void test_main_aliases(void **state)
{
	const struct run_case cases[] = {
		/* vcancel: job delete with its own words; CheckError names no command. */
		{ ARGC("vcancel", "-N", "ml", "-n", "tf"), ARGV("vcancel", "-N", "ml", "-n", "tf"),
		  0, "cancel job tf successfully\n", 0, NULL, -1, "DELETE", NULL },
		{ ARGC("vcancel"), ARGV("vcancel"), 1, NULL, 0,
		  "Failed to: job name is mandatory to cancel a particular job\n", 0, NULL, NULL },
		{ ARGC("vsuspend", "-N", "ml", "-n", "tf"),
		  ARGV("vsuspend", "-N", "ml", "-n", "tf"), 0, NULL, 0, NULL, -1, NULL,
		  "AbortJob" },
		{ ARGC("vresume", "--namespace", "ml", "--name", "tf"),
		  ARGV("vresume", "--namespace", "ml", "--name", "tf"), 0, NULL, 0, NULL, -1, NULL,
		  "ResumeJob" },
		/* vjobs: view with -n, list without. */
		{ ARGC("vjobs", "-N", "ml", "-n", "tf"), ARGV("vjobs", "-N", "ml", "-n", "tf"), 0,
		  "Name:       \ttf\n", 16, NULL, -1, NULL, NULL },
		{ ARGC("vjobs", "-N", "ml"), ARGV("vjobs", "-N", "ml"), 0, "No resources found\n",
		  0, NULL, -1, "LIST", NULL },
		/* vqueues: the queue's own status counters, in the older 7-column layout. */
		{ ARGC("vqueues", "-n", "q1"), ARGV("vqueues", "-n", "q1"), 0,
		  "Name                     Weight  State   Inqueue Pending Running Unknown \n"
		  "q1                       3       Open    0       0       0       0       \n",
		  0, NULL, 1, NULL, NULL },
		/* Help and usage errors under the program's own name. */
		{ ARGC("vcancel", "--help"), ARGV("vcancel", "--help"), 0,
		  "cancel a running, pending, or aborted volcano job with specified name in "
		  "default or specified namespace\n\nUsage:\n  vcancel [flags]\n\nFlags:\n"
		  "  -h, --help                help for vcancel\n"
		  "  -k, --kubeconfig string   (optional) absolute path to the kubeconfig file\n"
		  "  -s, --master string       the address of apiserver\n"
		  "  -n, --name string         the name of job\n"
		  "  -N, --namespace string    the namespace of job (default \"default\")\n",
		  0, NULL, 0, NULL, NULL },
		{ ARGC("vsub", "-f", "x.yaml"), ARGV("vsub", "-f", "x.yaml"), 1, NULL, 0,
		  "Error: unknown shorthand flag: 'f' in -f\nRun 'vsub --help' for usage.\n", 0,
		  NULL, NULL },
	};
	struct capture o, e;

	(void)state;
	/* vsub: -N is the namespace, -n the name; -c the command; the environment's defaults. */
	setenv("VOLCANO_DEFAULT_IMAGE", "alpine:3", 1);
	assert_int_equal(MAIN(&o, &e, "/usr/local/bin/vsub", "-n", "j1", "-N", "ml", "-c",
			      "sleep 'one day'"),
			 0);
	unsetenv("VOLCANO_DEFAULT_IMAGE");
	assert_string_equal(o.buf, "run job j1 successfully\n");
	assert_string_equal(fk.calls[0].ns, "ml");
	{
		const json_t *c = json_array_get(
			json_object_get(
				json_object_get(
					json_object_get(
						json_array_get(
							json_object_get(
								json_object_get(fk.calls[0].body,
										"spec"),
								"tasks"),
							0),
						"template"),
					"spec"),
				"containers"),
			0);

		assert_json(json_object_get(c, "command"), "[\"sleep\",\"one day\"]");
		assert_string_equal(vc_json_get_str(c, "image"), "alpine:3");
	}
	assert_string_equal(
		vc_json_get_str(json_object_get(fk.calls[0].body, "spec"), "schedulerName"),
		"volcano");
	cap_close(&o);
	cap_close(&e);
	reset_calls();

	check_runs(cases, VC_ARRAY_SIZE(cases));
	reset_calls();
}

/* ---- allocation failures ------------------------------------------------------------------ */

/* The producers of a new JSON value whose allocation failures test_alloc_failures walks. */
static int alloc_job_from_flags(const void *arg, json_t **v, struct vc_error *err)
{
	struct vcctl_opts o;
	int rc;

	(void)arg;
	rc = PARSE(&o, err, "vcctl", "job", "run", "-N", "j", "-R", "cpu=1,memory=2Gi");
	return rc ? rc : vcctl_job_from_flags(&o, v, err);
}

static int alloc_command_new(const void *job, json_t **v, struct vc_error *err)
{
	return vcctl_command_new(job, "batch.volcano.sh/v1alpha1", "Job", "ml", "AbortJob", v, err);
}

static int alloc_split_command(const void *arg, json_t **v, struct vc_error *err)
{
	(void)arg;
	return vcctl_split_command("sh -c 'echo hi' x", v, err);
}

static void test_alloc_failures(void **state)
{
	json_t *v = NULL, *job = parse(JOB1);
	const struct {
		int (*fn)(const void *arg, json_t **v, struct vc_error *err);
		const void *arg;
	} producers[] = {
		{ alloc_job_from_flags, NULL },
		{ alloc_command_new, job },
		{ alloc_split_command, NULL },
	};
	/*
	 * Whole runs (the fake's own copies fail as well): pod list -q makes a filtered copy of the
	 * list, job explain five reads; explain's answer stands without the events, so a run that
	 * succeeds is not the end there (to_the_end: until no allocation failed).
	 */
	const struct {
		int argc;
		char **argv;
		bool to_the_end;
	} runs[] = {
		{ ARGC("vcctl", "job", "suspend", "-N", "tf", "-n", "ml"),
		  ARGV("vcctl", "job", "suspend", "-N", "tf", "-n", "ml"), false },
		{ ARGC("vcctl", "pod", "list", "-q", "q1", "-n", "ml"),
		  ARGV("vcctl", "pod", "list", "-q", "q1", "-n", "ml"), false },
		{ ARGC("vcctl", "job", "explain", "tf", "-n", "ml"),
		  ARGV("vcctl", "job", "explain", "tf", "-n", "ml"), true },
	};
	struct vc_error err;
	size_t i;
	long n;
	int rc;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(producers); i++) {
		for (n = 0;; n++) {
			vc_alloc_fail_after(n);
			rc = producers[i].fn(producers[i].arg, &v, &err);
			vc_alloc_fail_reset();
			if (!rc) {
				json_decref(v);
				v = NULL;
				break;
			}
			assert_int_equal(rc, VC_ENOMEM);
			assert_null(v);
		}
	}
	assert_int_equal(json_object_set_new(fk.lists, "pods/ml", parse(QPODS)), 0);
	for (i = 0; i < VC_ARRAY_SIZE(runs); i++) {
		for (n = 0;; n++) {
			struct capture o, e;
			long failed;

			reset_calls();
			vc_alloc_fail_after(n);
			rc = run_main(&o, &e, runs[i].argc, runs[i].argv);
			failed = vc_alloc_failures();
			vc_alloc_fail_reset();
			cap_close(&o);
			cap_close(&e);
			if (runs[i].to_the_end ? !failed : !rc) {
				assert_int_equal(rc, 0);
				break;
			}
			assert_true(rc == 1 || (runs[i].to_the_end && rc == 0));
		}
	}
	reset_calls();
	json_decref(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_run_defaults),
		cmocka_unit_test(test_parse_shorthands),
		cmocka_unit_test(test_parse_help),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_parse_resources),
		cmocka_unit_test(test_job_from_flags),
		cmocka_unit_test(test_command_bodies),
		cmocka_unit_test_setup_teardown(test_print_jobs, setup, teardown),
		cmocka_unit_test(test_print_queues),
		cmocka_unit_test(test_print_pods),
		cmocka_unit_test_setup_teardown(test_main_pod_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_main_job_explain, setup, teardown),
		cmocka_unit_test(test_split_command),
		cmocka_unit_test_setup_teardown(test_main_aliases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_job, setup, teardown),
		cmocka_unit_test(test_print_events),
		cmocka_unit_test_setup_teardown(test_main_job_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_main_queue_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_failures, setup, teardown),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
