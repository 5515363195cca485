/* Unit tests for controller/job_plugins: env, svc, ssh, tensorflow, pytorch, mpi, ray, hcclrank
 * (docs/volcano/job-controller.md §5). */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>

#include "job_plugins.h"
#include "job_pod.h"
#include "support/fake_api.h"
#include "vc_alloc.h"
#include "vc_json.h"
#include "vc_model.h"

static void view(const char *text, struct vc_job *job)
{
	json_t *obj = J(text);

	assert_int_equal(vc_job_view(obj, job, NULL), 0);
	json_decref(obj);
}

/* Compare v (borrowed) with the expected JSON text. */
static void expect_json(const json_t *v, const char *expected)
{
	json_t *e = J(expected);

	if (!json_equal((json_t *)v, e)) {
		char *a = json_dumps(v, JSON_SORT_KEYS), *b = json_dumps(e, JSON_SORT_KEYS);

		print_error("got      %s\nexpected %s\n", a, b);
		free(a);
		free(b);
		json_decref(e);
		fail();
	}
	json_decref(e);
}

/* Build pod <task>-<i> and run the plugins; returns the new pod. */
static json_t *pod_of(const struct vc_job *job, size_t task, int32_t i)
{
	struct vc_error err;
	json_t *pod = NULL;

	vc_error_clear(&err);
	assert_int_equal(job_pod_build(job, task, i, NULL, &pod, &err), 0);
	if (job_plugins_on_pod_create(job, pod, NULL, &err))
		fail_msg("on_pod_create: %s", err.text);
	return pod;
}

/* ---- flags ---------------------------------------------------------------------------------- */

struct fl {
	bool b;
	int64_t i;
	const char *s;
};

/* The arguments of the last parse: string flags borrow from them. */
static json_t *held_args;

static int parse(struct fl *v, const char *args, struct vc_error *err)
{
	const struct job_flag f[] = {
		{ "b", JOB_FLAG_BOOL, &v->b },
		{ "port", JOB_FLAG_INT, &v->i },
		{ "name", JOB_FLAG_STRING, &v->s },
	};
	json_t *a = J(args);
	int rc;

	*v = (struct fl){ false, 7, "def" };
	rc = job_flags_parse(f, 3, a, err);
	json_decref(held_args);
	held_args = a;
	return rc;
}

static void test_flags(void **state)
{
	struct vc_error err;
	struct fl v;

	(void)state;
	vc_error_clear(&err);
	assert_int_equal(parse(&v, "['-b','--port=0x1F','-name','x','rest','-port=1']", &err), 0);
	assert_true(v.b);
	assert_int_equal(v.i, 31);
	assert_string_equal(v.s, "x");
	assert_int_equal(parse(&v, "['--b=F','-port','010','--','-name=y']", &err), 0);
	assert_false(v.b);
	assert_int_equal(v.i, 8);
	assert_string_equal(v.s, "def");
	assert_int_equal(parse(&v, "['-port=-0b1_01','-name=','-b=True']", &err), 0);
	assert_int_equal(v.i, -5);
	assert_string_equal(v.s, "");
	assert_true(v.b);
	assert_int_equal(parse(&v, "['-port=0o17']", &err), 0);
	assert_int_equal(v.i, 15);
	assert_int_equal(parse(&v, "['-', '-b']", &err), 0);
	assert_false(v.b);

	/* Errors: Go's messages; earlier flags keep their values. */
	assert_int_equal(parse(&v, "['-b','--no-root','-port=3']", &err), VC_EINVAL);
	assert_string_equal(err.text, "flag provided but not defined: -no-root");
	assert_true(v.b);
	assert_int_equal(v.i, 7);
	assert_int_equal(parse(&v, "['-port=x']", &err), VC_EINVAL);
	assert_string_equal(err.text, "invalid value \"x\" for flag -port: parse error");
	assert_int_equal(parse(&v, "['-port=1_0']", &err), VC_EINVAL);
	assert_int_equal(parse(&v, "['-port=0x']", &err), VC_EINVAL);
	assert_int_equal(parse(&v, "['-port=0x_1__2']", &err), VC_EINVAL);
	assert_int_equal(parse(&v, "['-port=9223372036854775808']", &err), VC_EINVAL);
	assert_string_equal(
		err.text,
		"invalid value \"9223372036854775808\" for flag -port: value out of range");
	/* Out of range before the bad digit: a range error here, a syntax error in Go. */
	assert_int_equal(parse(&v, "['-port=9223372036854775809x']", &err), VC_EINVAL);
	assert_string_equal(
		err.text,
		"invalid value \"9223372036854775809x\" for flag -port: value out of range");
	assert_int_equal(parse(&v, "['-port=-9223372036854775808']", &err), 0);
	assert_int_equal(v.i, INT64_MIN);
	assert_int_equal(parse(&v, "['-b=yes']", &err), VC_EINVAL);
	assert_string_equal(err.text, "invalid boolean value \"yes\" for -b: parse error");
	assert_int_equal(parse(&v, "['-port']", &err), VC_EINVAL);
	assert_string_equal(err.text, "flag needs an argument: -port");
	assert_int_equal(parse(&v, "['---port=1']", &err), VC_EINVAL);
	assert_string_equal(err.text, "bad flag syntax: ---port=1");
	assert_int_equal(parse(&v, "['-=1']", &err), VC_EINVAL);
	assert_string_equal(err.text, "bad flag syntax: -=1");
	assert_int_equal(parse(&v, "['-help']", &err), VC_EINVAL);
	assert_string_equal(err.text, "flag: help requested");
	assert_int_equal(parse(&v, "['-b', 3]", &err), VC_EINVAL);
	assert_string_equal(err.text, "non-string argument 1");
	assert_int_equal(parse(&v, "['-name', 3]", &err), VC_EINVAL);
	assert_int_equal(parse(&v, "{}", &err), 0);
	json_decref(held_args);
	held_args = NULL;
}

/* ---- env + svc ------------------------------------------------------------------------------ */

static const char *const mnist =
	"{'metadata':{'name':'mnist','namespace':'ns','uid':'u1'},"
	"'spec':{'plugins':{'env':[],'svc':[]},'tasks':["
	"{'name':'ps','replicas':1,'template':{'spec':{'containers':[{'name':'c'}]}}},"
	"{'name':'worker','replicas':2,'template':{'spec':{'initContainers':[{'name':'i'}],"
	"'containers':[{'name':'c','env':[{'name':'A','value':'1'}]}]}}}]}}";

static void test_svc_configmap_mnist(void **state)
{
	struct vc_job job;
	json_t *data;

	(void)state;
	view(mnist, &job);
	data = job_svc_hosts_data(&job);
	expect_json(data, "{'ps.host':'mnist-ps-0.mnist','VC_PS_HOSTS':'mnist-ps-0.mnist',"
			  "'VC_PS_NUM':'1',"
			  "'worker.host':'mnist-worker-0.mnist\\nmnist-worker-1.mnist',"
			  "'VC_WORKER_HOSTS':'mnist-worker-0.mnist,mnist-worker-1.mnist',"
			  "'VC_WORKER_NUM':'2'}");
	json_decref(data);
	vc_job_view_release(&job);

	/* A dashed task name and a fixed template hostname (one host) with its own subdomain. */
	view("{'metadata':{'name':'j'},'spec':{'tasks':[{'name':'mpi-worker','replicas':3,"
	     "'template':{'spec':{'hostname':'h','subdomain':'s'}}},"
	     "{'name':'z','replicas':0,'template':{}}]}}",
	     &job);
	data = job_svc_hosts_data(&job);
	expect_json(data, "{'mpi_worker.host':'h.s','VC_MPI_WORKER_HOSTS':'h.s',"
			  "'VC_MPI_WORKER_NUM':'1','z.host':'','VC_Z_HOSTS':'','VC_Z_NUM':'0'}");
	json_decref(data);
	vc_job_view_release(&job);
}

static void test_env_svc_pod(void **state)
{
	struct vc_job job;
	json_t *pod;

	(void)state;
	view(mnist, &job);
	pod = pod_of(&job, 1, 1);
	expect_json(json_object_get(pod, "spec"),
		    "{'schedulerName':'volcano','hostname':'mnist-worker-1','subdomain':'mnist',"
		    "'volumes':[{'name':'mnist-svc','configMap':{'name':'mnist-svc'}}],"
		    "'initContainers':[{'name':'i','env':["
		    "{'name':'VK_TASK_INDEX','value':'1'},{'name':'VC_TASK_INDEX','value':'1'},"
		    "{'name':'VC_PS_HOSTS','valueFrom':{'configMapKeyRef':{'name':'mnist-svc',"
		    "'key':'VC_PS_HOSTS'}}},"
		    "{'name':'VC_PS_NUM','valueFrom':{'configMapKeyRef':{'name':'mnist-svc',"
		    "'key':'VC_PS_NUM'}}},"
		    "{'name':'VC_WORKER_HOSTS','valueFrom':{'configMapKeyRef':{'name':'mnist-svc',"
		    "'key':'VC_WORKER_HOSTS'}}},"
		    "{'name':'VC_WORKER_NUM','valueFrom':{'configMapKeyRef':{'name':'mnist-svc',"
		    "'key':'VC_WORKER_NUM'}}}],"
		    "'volumeMounts':[{'name':'mnist-svc','mountPath':'/etc/volcano'}]}],"
		    "'containers':[{'name':'c','env':[{'name':'A','value':'1'},"
		    "{'name':'VK_TASK_INDEX','value':'1'},{'name':'VC_TASK_INDEX','value':'1'},"
		    "{'name':'VC_PS_HOSTS','valueFrom':{'configMapKeyRef':{'name':'mnist-svc',"
		    "'key':'VC_PS_HOSTS'}}},"
		    "{'name':'VC_PS_NUM','valueFrom':{'configMapKeyRef':{'name':'mnist-svc',"
		    "'key':'VC_PS_NUM'}}},"
		    "{'name':'VC_WORKER_HOSTS','valueFrom':{'configMapKeyRef':{'name':'mnist-svc',"
		    "'key':'VC_WORKER_HOSTS'}}},"
		    "{'name':'VC_WORKER_NUM','valueFrom':{'configMapKeyRef':{'name':'mnist-svc',"
		    "'key':'VC_WORKER_NUM'}}}],"
		    "'volumeMounts':[{'name':'mnist-svc','mountPath':'/etc/volcano'}]}]}");
	json_decref(pod);
	vc_job_view_release(&job);

	/* --inject-hosts-env=false; template hostname/subdomain kept. */
	view("{'metadata':{'name':'j','namespace':'n'},'spec':{'plugins':{'svc':"
	     "['--inject-hosts-env=false']},'tasks':[{'name':'t','replicas':1,'template':"
	     "{'spec':{'hostname':'h','subdomain':'s','containers':[{'name':'c'}]}}}]}}",
	     &job);
	pod = pod_of(&job, 0, 0);
	expect_json(json_object_get(pod, "spec"),
		    "{'schedulerName':'volcano','hostname':'h','subdomain':'s',"
		    "'volumes':[{'name':'j-svc','configMap':{'name':'j-svc'}}],"
		    "'containers':[{'name':'c',"
		    "'volumeMounts':[{'name':'j-svc','mountPath':'/etc/volcano'}]}]}");
	json_decref(pod);
	vc_job_view_release(&job);
}

#define OWNER(job, uid)                                                                          \
	"'ownerReferences':[{'apiVersion':'batch.volcano.sh/v1alpha1','kind':'Job','name':'" job \
	"','uid':'" uid "','controller':true,'blockOwnerDeletion':true}]"

static void test_svc_job_add_delete(void **state)
{
	struct job_plugin_actions a = { 0 };
	struct vc_error err;
	struct vc_job job;

	(void)state;
	vc_error_clear(&err);
	view(mnist, &job);
	assert_int_equal(job_plugins_on_job_add(&job, NULL, &a, NULL, &err), 0);
	expect_json(
		a.create,
		"[{'apiVersion':'v1','kind':'ConfigMap','metadata':{'name':'mnist-svc',"
		"'namespace':'ns'," OWNER(
			"mnist",
			"u1") "},"
			      "'data':{'ps.host':'mnist-ps-0.mnist','VC_PS_HOSTS':'mnist-ps-0.mnist',"
			      "'VC_PS_NUM':'1','worker.host':'mnist-worker-0.mnist\\nmnist-worker-1.mnist',"
			      "'VC_WORKER_HOSTS':'mnist-worker-0.mnist,mnist-worker-1.mnist',"
			      "'VC_WORKER_NUM':'2'}},"
			      "{'apiVersion':'v1','kind':'Service','metadata':{'name':'mnist',"
			      "'namespace':'ns'," OWNER(
				      "mnist",
				      "u1") "},"
					    "'spec':{'clusterIP':'None','selector':{'volcano.sh/job-name':'mnist',"
					    "'volcano.sh/job-namespace':'ns'},'publishNotReadyAddresses':false}},"
					    "{'apiVersion':'networking.k8s.io/v1','kind':'NetworkPolicy',"
					    "'metadata':{'name':'mnist','namespace':'ns'," OWNER(
						    "mnist",
						    "u1") "},"
							  "'spec':{'podSelector':{'matchLabels':{'volcano.sh/job-name':'mnist',"
							  "'volcano.sh/job-namespace':'ns'}},'ingress':[{'from':[{'podSelector':"
							  "{'matchLabels':{'volcano.sh/job-name':'mnist','volcano.sh/job-namespace':'ns'}}}]}],"
							  "'policyTypes':['Ingress']}}]");
	expect_json(a.markers_set, "{'plugin-env':'env','plugin-svc':'svc'}");
	expect_json(a.remove, "[]");
	job_plugin_actions_release(&a);

	/* No markers yet: OnJobDelete does nothing. */
	assert_int_equal(job_plugins_on_job_delete(&job, &a, NULL, &err), 0);
	expect_json(a.remove, "[]");
	expect_json(a.markers_remove, "[]");
	job_plugin_actions_release(&a);

	assert_int_equal(job_plugins_on_job_update(&job, &a, NULL, &err), 0);
	assert_int_equal(json_array_size(a.create), 1);
	assert_string_equal(vc_json_get_str(json_array_get(a.create, 0), "kind"), "ConfigMap");
	job_plugin_actions_release(&a);
	vc_job_view_release(&job);

	/* With markers present: add skips, delete removes (no NetworkPolicy when disabled). */
	view("{'metadata':{'name':'j','namespace':'n','uid':'u'},'spec':{'plugins':{'env':[],"
	     "'svc':['--disable-network-policy','--publish-not-ready-addresses']},"
	     "'tasks':[{'name':'t','replicas':1,'template':{}}]},"
	     "'status':{'controlledResources':{'plugin-svc':'svc','plugin-env':'env'}}}",
	     &job);
	assert_int_equal(job_plugins_on_job_add(&job, NULL, &a, NULL, &err), 0);
	expect_json(a.create, "[]");
	expect_json(a.markers_set, "{}");
	job_plugin_actions_release(&a);
	assert_int_equal(job_plugins_on_job_delete(&job, &a, NULL, &err), 0);
	expect_json(a.remove,
		    "[{'apiVersion':'v1','kind':'ConfigMap','namespace':'n','name':'j-svc'},"
		    "{'apiVersion':'v1','kind':'Service','namespace':'n','name':'j'}]");
	expect_json(a.markers_remove, "['plugin-env','plugin-svc']");
	job_plugin_actions_release(&a);
	vc_job_view_release(&job);

	view("{'metadata':{'name':'j','namespace':'n','uid':'u'},'spec':{'plugins':{"
	     "'svc':['--publish-not-ready-addresses']},"
	     "'tasks':[{'name':'t','replicas':1,'template':{}}]},"
	     "'status':{'controlledResources':{'plugin-svc':'svc'}}}",
	     &job);
	assert_int_equal(job_plugins_on_job_delete(&job, &a, NULL, &err), 0);
	assert_int_equal(json_array_size(a.remove), 3);
	expect_json(json_array_get(a.remove, 2),
		    "{'apiVersion':'networking.k8s.io/v1','kind':'NetworkPolicy','namespace':'n',"
		    "'name':'j'}");
	job_plugin_actions_release(&a);
	vc_job_view_release(&job);

	view("{'metadata':{'name':'j','namespace':'n','uid':'u'},'spec':{'plugins':{"
	     "'svc':['--publish-not-ready-addresses','--disable-network-policy=true']},"
	     "'tasks':[{'name':'t','replicas':1,'template':{}}]}}",
	     &job);
	assert_int_equal(job_plugins_on_job_add(&job, NULL, &a, NULL, &err), 0);
	assert_int_equal(json_array_size(a.create), 2);
	assert_true(json_is_true(
		vc_json_path(json_array_get(a.create, 1), "spec.publishNotReadyAddresses")));
	job_plugin_actions_release(&a);
	vc_job_view_release(&job);
}

static void test_unknown_plugin(void **state)
{
	struct job_plugin_actions a = { 0 };
	struct vc_error err;
	struct vc_job job;
	json_t *pod = NULL;

	(void)state;
	vc_error_clear(&err);
	view("{'metadata':{'name':'j'},'spec':{'plugins':{'env':[],'nope':[]},"
	     "'tasks':[{'name':'t','replicas':1,'template':{'spec':{}}}]}}",
	     &job);
	assert_int_equal(job_pod_build(&job, 0, 0, NULL, &pod, NULL), 0);
	assert_int_equal(job_plugins_on_pod_create(&job, pod, NULL, &err), VC_EINVALID);
	assert_string_equal(err.text, "failed to get plugin nope");
	assert_int_equal(job_plugins_on_job_add(&job, NULL, &a, NULL, &err), VC_EINVALID);
	assert_null(a.create);
	assert_int_equal(job_plugins_on_job_delete(&job, &a, NULL, &err), VC_EINVALID);
	json_decref(pod);
	vc_job_view_release(&job);
}

/* ---- ssh ------------------------------------------------------------------------------------ */

static int fake_keys(void *ctx, char **priv, char **pub, struct vc_error *err)
{
	int *calls = ctx;

	(void)err;
	(*calls)++;
	*priv = vc_strdup("PRIV");
	*pub = vc_strdup("PUB\n");
	if (!*priv || !*pub) {
		vc_free(*priv);
		vc_free(*pub);
		*priv = *pub = NULL;
		return VC_ENOMEM;
	}
	return 0;
}

static int failing_keys(void *ctx, char **priv, char **pub, struct vc_error *err)
{
	(void)ctx;
	*priv = *pub = NULL;
	return vc_error_set(err, VC_EIO, "no entropy");
}

static const char *const mpi_job =
	"{'metadata':{'name':'mpi','namespace':'n','uid':'u'},"
	"'spec':{'plugins':{'ssh':['--ssh-port=2022'],'mpi':['--master=mpimaster',"
	"'--worker=mpiworker','--port=2022']},'tasks':["
	"{'name':'mpimaster','replicas':1,'template':{'spec':{'initContainers':[{'name':'i'}],"
	"'containers':[{'name':'m','ports':[{'containerPort':2022}]}]}}},"
	"{'name':'mpiworker','replicas':2,'template':{'spec':{'containers':[{'name':'w'}]}}}]}}";

static void test_ssh(void **state)
{
	struct job_plugin_actions a = { 0 };
	struct vc_error err, warn;
	struct vc_job job;
	int calls = 0;
	struct job_keygen kg = { fake_keys, &calls };
	json_t *pod;

	(void)state;
	vc_error_clear(&err);
	vc_error_clear(&warn);
	view(mpi_job, &job);
	assert_int_equal(job_plugins_on_job_add(&job, &kg, &a, &warn, &err), 0);
	assert_int_equal(calls, 1);
	expect_json(
		a.create,
		"[{'apiVersion':'v1','kind':'Secret','metadata':{'name':'mpi-ssh',"
		"'namespace':'n'," OWNER(
			"mpi",
			"u") "},'data':{'id_rsa':'UFJJVg==',"
			     "'id_rsa.pub':'UFVCCg==','authorized_keys':'UFVCCg==','config':"
			     "'U3RyaWN0SG9zdEtleUNoZWNraW5nIG5vClVzZXJLbm93bkhvc3RzRmlsZSAvZGV2L251bGwKSG9z"
			     "dCBtcGktbXBpbWFzdGVyLTAKICBIb3N0TmFtZSBtcGktbXBpbWFzdGVyLTAubXBpCiAgUG9ydCAy"
			     "MDIyCkhvc3QgbXBpLW1waXdvcmtlci0wCiAgSG9zdE5hbWUgbXBpLW1waXdvcmtlci0wLm1waQog"
			     "IFBvcnQgMjAyMgpIb3N0IG1waS1tcGl3b3JrZXItMQogIEhvc3ROYW1lIG1waS1tcGl3b3JrZXIt"
			     "MS5tcGkKICBQb3J0IDIwMjIK'}}]");
	expect_json(a.markers_set, "{'plugin-ssh':'ssh','plugin-mpi':'mpi'}");
	assert_string_equal(warn.text, "");
	job_plugin_actions_release(&a);

	/* Pod: the secret volume (0600) mounted with subPath .ssh everywhere. */
	pod = pod_of(&job, 1, 0);
	expect_json(json_object_get(pod, "spec"),
		    "{'schedulerName':'volcano','volumes':[{'name':'mpi-ssh','secret':{"
		    "'secretName':'mpi-ssh','items':[{'key':'id_rsa','path':'.ssh/id_rsa'},"
		    "{'key':'id_rsa.pub','path':'.ssh/id_rsa.pub'},"
		    "{'key':'authorized_keys','path':'.ssh/authorized_keys'},"
		    "{'key':'config','path':'.ssh/config'}],'defaultMode':384}}],"
		    "'containers':[{'name':'w','volumeMounts':[{'name':'mpi-ssh',"
		    "'mountPath':'/root/.ssh','subPath':'.ssh'}],"
		    "'ports':[{'name':'mpijob-port','containerPort':2022}]}]}");
	json_decref(pod);

	assert_int_equal(job_plugins_on_job_delete(&job, &a, NULL, &err), 0);
	expect_json(a.remove, "[]");
	job_plugin_actions_release(&a);

	/* A failing key generator fails OnJobAdd. */
	kg.generate = failing_keys;
	assert_int_equal(job_plugins_on_job_add(&job, &kg, &a, NULL, &err), VC_EIO);
	assert_string_equal(err.text, "no entropy");
	assert_null(a.create);
	vc_job_view_release(&job);

	/* Given keys, another path (mode 0644), a bad port (warned, 22), marker-based delete. */
	view("{'metadata':{'name':'s','namespace':'n','uid':'u'},'spec':{'plugins':{'ssh':["
	     "'--ssh-private-key=PRIV','--ssh-key-file-path','/home/u/.ssh','--ssh-port=70000']},"
	     "'tasks':[{'name':'t','replicas':3,'template':{'spec':{'hostname':'fixed',"
	     "'containers':[{'name':'c'}]}}}]},"
	     "'status':{'controlledResources':{'plugin-ssh':'ssh'}}}",
	     &job);
	calls = 0;
	kg.generate = fake_keys;
	pod = pod_of(&job, 0, 2);
	expect_json(
		vc_json_path(pod, "spec.volumes"),
		"[{'name':'s-ssh','secret':{'secretName':'s-ssh','items':["
		"{'key':'id_rsa','path':'.ssh/id_rsa'},{'key':'id_rsa.pub','path':'.ssh/id_rsa.pub'},"
		"{'key':'authorized_keys','path':'.ssh/authorized_keys'},"
		"{'key':'config','path':'.ssh/config'}],'defaultMode':420}}]");
	expect_json(vc_json_path(pod, "spec.containers"),
		    "[{'name':'c','volumeMounts':[{'name':'s-ssh','mountPath':'/home/u/.ssh',"
		    "'subPath':'.ssh'}]}]");
	json_decref(pod);
	assert_int_equal(job_plugins_on_job_add(&job, &kg, &a, &warn, &err), 0);
	expect_json(a.create, "[]"); /* marker present */
	job_plugin_actions_release(&a);
	assert_int_equal(job_plugins_on_job_delete(&job, &a, NULL, &err), 0);
	expect_json(a.remove,
		    "[{'apiVersion':'v1','kind':'Secret','namespace':'n','name':'s-ssh'}]");
	expect_json(a.markers_remove, "['plugin-ssh']");
	job_plugin_actions_release(&a);
	vc_job_view_release(&job);

	view("{'metadata':{'name':'s','namespace':'n','uid':'u'},'spec':{'plugins':{'ssh':["
	     "'--ssh-private-key=PRIV','--ssh-port=70000']},"
	     "'tasks':[{'name':'t','replicas':3,'template':{'spec':{'hostname':'fixed'}}}]}}",
	     &job);
	assert_int_equal(job_plugins_on_job_add(&job, &kg, &a, &warn, &err), 0);
	assert_int_equal(calls, 0);
	assert_string_equal(warn.text, "plugin ssh: invalid ssh port 70000, using 22");
	/* PRIV verbatim, empty public key, one Host block for the fixed hostname, port 22. */
	expect_json(json_object_get(json_array_get(a.create, 0), "data"),
		    "{'id_rsa':'UFJJVg==','id_rsa.pub':'','authorized_keys':'','config':"
		    "'U3RyaWN0SG9zdEtleUNoZWNraW5nIG5vClVzZXJLbm93bkhvc3RzRmlsZSAvZGV2L251bGwKSG9z"
		    "dCBmaXhlZAogIEhvc3ROYW1lIGZpeGVkLnMKICBQb3J0IDIyCg=='}");
	job_plugin_actions_release(&a);
	vc_job_view_release(&job);
}

static void test_openssl_keygen(void **state)
{
	char *priv = NULL, *pub = NULL;

	(void)state;
	assert_int_equal(job_keygen_openssl.generate(job_keygen_openssl.ctx, &priv, &pub, NULL), 0);
	assert_true(strncmp(priv, "-----BEGIN RSA PRIVATE KEY-----\n", 32) == 0);
	assert_non_null(strstr(priv, "-----END RSA PRIVATE KEY-----\n"));
	/* "ssh-rsa", e = 65537, then a 2049-bit mpint (257 bytes: 0x00 0x00 0x01 0x01 0x00). */
	assert_true(strncmp(pub, "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ", 38) == 0);
	assert_int_equal(strlen(pub), strlen("ssh-rsa \n") + 372);
	assert_int_equal(pub[strlen(pub) - 1], '\n');
	vc_free(priv);
	vc_free(pub);
}

/* ---- tensorflow ----------------------------------------------------------------------------- */

static const char *const train123 =
	"{'metadata':{'name':'train-123','namespace':'n','uid':'u'},"
	"'spec':{'plugins':{'tensorflow':['--port=5000']},'tasks':["
	"{'name':'ps','replicas':2,'template':{'spec':{'initContainers':[{'name':'i'}],"
	"'containers':[{'name':'c'}]}}},"
	"{'name':'worker','replicas':2,'template':{'spec':{'containers':[{'name':'c'}]}}},"
	"{'name':'chief','replicas':1,'template':{'spec':{'containers':[{'name':'c'},"
	"{'name':'d'}]}}}]}}";

static void test_tf_config_spec_example(void **state)
{
	struct vc_job job;
	json_t *pod;

	(void)state;
	view(train123, &job);
	pod = pod_of(&job, 0, 0);
	expect_json(
		json_object_get(pod, "spec"),
		"{'schedulerName':'volcano','initContainers':[{'name':'i'}],"
		"'containers':[{'name':'c','env':[{'name':'TF_CONFIG','value':"
		"'{\\'cluster\\':{\\'ps\\':[\\'train-123-ps-0.train-123:5000\\',"
		"\\'train-123-ps-1.train-123:5000\\'],\\'worker\\':["
		"\\'train-123-worker-0.train-123:5000\\',\\'train-123-worker-1.train-123:5000\\'],"
		"\\'chief\\':[\\'train-123-chief-0.train-123:5000\\']},"
		"\\'task\\':{\\'type\\':\\'ps\\',\\'index\\':0}}'}]}]}");
	/* The exact string, key order included. */
	assert_string_equal(
		vc_json_get_str(vc_json_path(pod, "spec.containers[0].env[0]"), "value"),
		"{\"cluster\":{\"ps\":[\"train-123-ps-0.train-123:5000\",\"train-123-ps-1.train-123:"
		"5000\"],\"worker\":[\"train-123-worker-0.train-123:5000\",\"train-123-worker-1."
		"train-123:5000\"],\"chief\":[\"train-123-chief-0.train-123:5000\"]},\"task\":{"
		"\"type\":\"ps\",\"index\":0}}");
	json_decref(pod);

	pod = pod_of(&job, 2, 0);
	assert_string_equal(
		vc_json_get_str(vc_json_path(pod, "spec.containers[1].env[0]"), "value"),
		"{\"cluster\":{\"ps\":[\"train-123-ps-0.train-123:5000\",\"train-123-ps-1.train-123:"
		"5000\"],\"worker\":[\"train-123-worker-0.train-123:5000\",\"train-123-worker-1."
		"train-123:5000\"],\"chief\":[\"train-123-chief-0.train-123:5000\"]},\"task\":{"
		"\"type\":\"chief\",\"index\":0}}");
	json_decref(pod);
	vc_job_view_release(&job);
}

static void test_tf_roles_and_errors(void **state)
{
	static const char *const roles[4] = { "p", "w", "c", "e" };
	struct vc_error err;
	struct vc_job job;
	char *cfg = NULL;
	json_t *pod;

	(void)state;
	vc_error_clear(&err);
	view("{'metadata':{'name':'t'},'spec':{'plugins':{'tensorflow':[]},'tasks':["
	     "{'name':'w','replicas':2,'template':{'spec':{'hostname':'h','containers':[]}}},"
	     "{'name':'e','replicas':1,'template':{}},{'name':'x','replicas':1,'template':{}}]}}",
	     &job);
	assert_int_equal(job_tf_config(&job, "x", "t-x-3", roles, 1, &cfg, &err), 0);
	assert_string_equal(cfg, "{\"cluster\":{\"worker\":[\"h.t:1\",\"h.t:1\"],\"evaluator\":"
				 "[\"t-e-0.t:1\"]},\"task\":{\"type\":\"x\",\"index\":3}}");
	vc_free(cfg);
	assert_int_equal(job_tf_config(&job, "x", "t-x-a", roles, 1, &cfg, &err), VC_EINVALID);
	assert_string_equal(err.text, "failed to get index of pod 't-x-a': not an integer");
	vc_job_view_release(&job);

	/* A single task with a single replica: no TF_CONFIG. */
	view("{'metadata':{'name':'t'},'spec':{'plugins':{'tensorflow':[]},'tasks':["
	     "{'name':'worker','replicas':1,'template':{'spec':{'containers':[{'name':'c'}]}}}]}}",
	     &job);
	pod = pod_of(&job, 0, 0);
	expect_json(json_object_get(pod, "spec"),
		    "{'schedulerName':'volcano','containers':[{'name':'c'}]}");
	json_decref(pod);
	vc_job_view_release(&job);
}

/* ---- pytorch -------------------------------------------------------------------------------- */

static void test_pytorch(void **state)
{
	struct vc_job job;
	json_t *pod;

	(void)state;
	view("{'metadata':{'name':'test-pytorch','namespace':'n'},'spec':{'plugins':{'pytorch':"
	     "[]},'tasks':[{'name':'master','replicas':1,'template':{'spec':{"
	     "'containers':[{'name':'c','ports':[{'containerPort':23456,'name':'mine'}]}]}}},"
	     "{'name':'worker','replicas':2,'template':{'spec':{'initContainers':[{'name':'i'}],"
	     "'containers':[{'name':'c'}]}}},"
	     "{'name':'other','replicas':1,'template':{'spec':{'containers':[{'name':'c'}]}}}]}}",
	     &job);
	pod = pod_of(&job, 0, 0);
	expect_json(vc_json_path(pod, "spec.containers"),
		    "[{'name':'c','ports':[{'containerPort':23456,'name':'mine'}],'env':["
		    "{'name':'MASTER_ADDR','value':'test-pytorch-master-0.test-pytorch'},"
		    "{'name':'MASTER_PORT','value':'23456'},{'name':'WORLD_SIZE','value':'3'},"
		    "{'name':'RANK','value':'0'}]}]");
	json_decref(pod);
	pod = pod_of(&job, 1, 1);
	expect_json(json_object_get(pod, "spec"),
		    "{'schedulerName':'volcano','initContainers':[{'name':'i'}],"
		    "'containers':[{'name':'c','ports':[{'name':'pytorchjob-port',"
		    "'containerPort':23456}],'env':["
		    "{'name':'MASTER_ADDR','value':'test-pytorch-master-0.test-pytorch'},"
		    "{'name':'MASTER_PORT','value':'23456'},{'name':'WORLD_SIZE','value':'3'},"
		    "{'name':'RANK','value':'2'}]}]}");
	json_decref(pod);
	pod = pod_of(&job, 2, 0);
	expect_json(vc_json_path(pod, "spec.containers[0].env"),
		    "[{'name':'MASTER_ADDR','value':'test-pytorch-master-0.test-pytorch'},"
		    "{'name':'MASTER_PORT','value':'23456'},{'name':'WORLD_SIZE','value':'3'}]");
	json_decref(pod);
	vc_job_view_release(&job);

	/* Custom names and port, wait-for-master, no worker task for the master's world size. */
	view("{'metadata':{'name':'p','namespace':'n'},'spec':{'plugins':{'pytorch':["
	     "'--master=m','--worker=w','--port=1234','--wait-master-enabled',"
	     "'--wait-master-timeout=60','--wait-master-image=img']},'tasks':["
	     "{'name':'m','replicas':2,'template':{'spec':{'hostname':'mh','subdomain':'sd',"
	     "'containers':[{'name':'c'}]}}},"
	     "{'name':'w','replicas':1,'template':{'spec':{'containers':[{'name':'c'}]}}}]}}",
	     &job);
	pod = pod_of(&job, 1, 0);
	expect_json(vc_json_path(pod, "spec.containers[0].env"),
		    "[{'name':'MASTER_ADDR','value':'mh.sd'},{'name':'MASTER_PORT','value':'1234'},"
		    "{'name':'WORLD_SIZE','value':'3'},{'name':'RANK','value':'1'}]");
	{
		json_t *ic = vc_json_path(pod, "spec.initContainers[0]");
		assert_string_equal(vc_json_get_str(ic, "name"), "wait-for-master");
		assert_string_equal(vc_json_get_str(ic, "image"), "img");
		assert_string_equal(json_string_value(vc_json_path(ic, "command[0]")), "sh");
		assert_string_equal(json_string_value(vc_json_path(ic, "command[1]")), "-c");
		assert_non_null(
			strstr(json_string_value(vc_json_path(ic, "command[2]")), "-ge 60 ]"));
		assert_non_null(strstr(json_string_value(vc_json_path(ic, "command[2]")), "nc -z"));
		expect_json(json_object_get(ic, "env"), "[{'name':'MASTER_ADDR','value':'mh.sd'},"
							"{'name':'MASTER_PORT','value':'1234'}]");
	}
	json_decref(pod);
	pod = pod_of(&job, 0, 1); /* master: no init container */
	assert_null(vc_json_path(pod, "spec.initContainers"));
	json_decref(pod);
	vc_job_view_release(&job);

	/* No master task: nothing. */
	view("{'metadata':{'name':'p'},'spec':{'plugins':{'pytorch':[]},'tasks':["
	     "{'name':'w','replicas':1,'template':{'spec':{'containers':[{'name':'c'}]}}}]}}",
	     &job);
	pod = pod_of(&job, 0, 0);
	expect_json(vc_json_path(pod, "spec.containers"), "[{'name':'c'}]");
	json_decref(pod);
	vc_job_view_release(&job);
}

/* ---- mpi ------------------------------------------------------------------------------------ */

static void test_mpi(void **state)
{
	struct vc_job job;
	json_t *pod;

	(void)state;
	view(mpi_job, &job);
	pod = pod_of(&job, 0, 0);
	expect_json(
		json_object_get(pod, "spec"),
		"{'schedulerName':'volcano','volumes':[{'name':'mpi-ssh','secret':{"
		"'secretName':'mpi-ssh','items':[{'key':'id_rsa','path':'.ssh/id_rsa'},"
		"{'key':'id_rsa.pub','path':'.ssh/id_rsa.pub'},"
		"{'key':'authorized_keys','path':'.ssh/authorized_keys'},"
		"{'key':'config','path':'.ssh/config'}],'defaultMode':384}}],"
		"'initContainers':[{'name':'i','volumeMounts':[{'name':'mpi-ssh',"
		"'mountPath':'/root/.ssh','subPath':'.ssh'}],"
		"'ports':[{'name':'mpijob-port','containerPort':2022}],"
		"'env':[{'name':'MPI_HOST','value':'mpi-mpiworker-0.mpi,mpi-mpiworker-1.mpi'}]}],"
		"'containers':[{'name':'m','ports':[{'containerPort':2022}],"
		"'volumeMounts':[{'name':'mpi-ssh','mountPath':'/root/.ssh','subPath':'.ssh'}],"
		"'env':[{'name':'MPI_HOST','value':'mpi-mpiworker-0.mpi,mpi-mpiworker-1.mpi'}]}]}");
	json_decref(pod);
	vc_job_view_release(&job);

	/* Master without a worker task: untouched. Default port 22 on other pods. */
	view("{'metadata':{'name':'j'},'spec':{'plugins':{'mpi':[]},'tasks':["
	     "{'name':'master','replicas':1,'template':{'spec':{'containers':[{'name':'c'}]}}},"
	     "{'name':'x','replicas':1,'template':{'spec':{'containers':[{'name':'c'}]}}}]}}",
	     &job);
	pod = pod_of(&job, 0, 0);
	expect_json(vc_json_path(pod, "spec.containers"), "[{'name':'c'}]");
	json_decref(pod);
	pod = pod_of(&job, 1, 0);
	expect_json(vc_json_path(pod, "spec.containers"),
		    "[{'name':'c','ports':[{'name':'mpijob-port','containerPort':22}]}]");
	json_decref(pod);
	vc_job_view_release(&job);

	/* Worker task with 0 replicas: empty MPI_HOST. */
	view("{'metadata':{'name':'j'},'spec':{'plugins':{'mpi':[]},'tasks':["
	     "{'name':'master','replicas':1,'template':{'spec':{'containers':[{'name':'c'}]}}},"
	     "{'name':'worker','replicas':0,'template':{'spec':{'containers':[]}}}]}}",
	     &job);
	pod = pod_of(&job, 0, 0);
	expect_json(vc_json_path(pod, "spec.containers[0].env"),
		    "[{'name':'MPI_HOST','value':''}]");
	json_decref(pod);
	vc_job_view_release(&job);
}

/* ---- ray ------------------------------------------------------------------------------------ */

/*
 * Volcano v1.7 has neither the ray nor the hcclrank plugin, so these expectations follow the
 * spec (docs/volcano/job-controller.md §5.7, §5.8, the §2.4 table and the constants of §9) and
 * were not checked against a running Volcano.
 */
static const char *const ray_job =
	"{'metadata':{'name':'rc','namespace':'n','uid':'u'},'spec':{'plugins':{'ray':[]},"
	"'tasks':[{'name':'head','replicas':1,'template':{'spec':{"
	"'initContainers':[{'name':'head'}],"
	"'containers':[{'name':'head','command':['old'],"
	"'ports':[{'containerPort':8265,'name':'mine'}]},{'name':'side'}]}}},"
	"{'name':'worker','replicas':2,'template':{'spec':{"
	"'containers':[{'name':'worker','command':['old']},{'name':'other'}]}}},"
	"{'name':'extra','replicas':1,'template':{'spec':{'containers':[{'name':'worker'}]}}}]}}";

static void test_ray_pod(void **state)
{
	struct vc_error err, warn;
	struct vc_job job;
	json_t *pod = NULL;

	(void)state;
	view(ray_job, &job);
	/* Head: the three ports unless their numbers are declared, and the head command; the
	 * other container and the init container are left alone. */
	pod = pod_of(&job, 0, 0);
	expect_json(
		json_object_get(pod, "spec"),
		"{'schedulerName':'volcano','initContainers':[{'name':'head'}],"
		"'containers':[{'name':'head','command':['sh','-c','ray start --head --block "
		"--dashboard-host=0.0.0.0 --port=6379 --dashboard-port=8265 "
		"--ray-client-server-port=10001'],"
		"'ports':[{'containerPort':8265,'name':'mine'},{'name':'gcs','containerPort':6379},"
		"{'name':'client-server','containerPort':10001}]},{'name':'side'}]}");
	json_decref(pod);
	/* Worker: the worker command towards replica 0 of the head task; no ports. */
	pod = pod_of(&job, 1, 1);
	expect_json(vc_json_path(pod, "spec.containers"),
		    "[{'name':'worker','command':['sh','-c',"
		    "'ray start --block --address=rc-head-0.rc:6379']},{'name':'other'}]");
	json_decref(pod);
	/* A task that is neither head nor worker: untouched. */
	pod = pod_of(&job, 2, 0);
	expect_json(vc_json_path(pod, "spec.containers"), "[{'name':'worker'}]");
	json_decref(pod);
	vc_job_view_release(&job);

	/* Every argument; the head's fixed hostname and subdomain make the worker's address. */
	view("{'metadata':{'name':'r','namespace':'n'},'spec':{'plugins':{'ray':["
	     "'--head=h','--headContainer=hc','--worker=w','--workerContainer=wc',"
	     "'-port','7000','--dashboardPort=7001','-clientPort=0x1b5a']},'tasks':["
	     "{'name':'h','replicas':2,'template':{'spec':{'hostname':'hh','subdomain':'sd',"
	     "'containers':[{'name':'head'},{'name':'hc'}]}}},"
	     "{'name':'w','replicas':1,'template':{'spec':{"
	     "'containers':[{'name':'worker'},{'name':'wc','command':['x']}]}}}]}}",
	     &job);
	pod = pod_of(&job, 0, 1);
	expect_json(vc_json_path(pod, "spec.containers"),
		    "[{'name':'head'},{'name':'hc','ports':[{'name':'gcs','containerPort':7000},"
		    "{'name':'dashboard','containerPort':7001},"
		    "{'name':'client-server','containerPort':7002}],"
		    "'command':['sh','-c','ray start --head --block --dashboard-host=0.0.0.0 "
		    "--port=7000 --dashboard-port=7001 --ray-client-server-port=7002']}]");
	json_decref(pod);
	pod = pod_of(&job, 1, 0);
	expect_json(vc_json_path(pod, "spec.containers"),
		    "[{'name':'worker'},{'name':'wc','command':['sh','-c',"
		    "'ray start --block --address=hh.sd:7000']}]");
	json_decref(pod);
	vc_job_view_release(&job);

	/* A bad argument stops parsing (warned): what came before it counts, the rest is
	 * defaulted. */
	view("{'metadata':{'name':'r','namespace':'n'},'spec':{'plugins':{'ray':["
	     "'--port=6000','--dashboardPort=x','--clientPort=1']},'tasks':["
	     "{'name':'head','replicas':1,'template':{'spec':{'containers':[{'name':'head'}]}}}]}}",
	     &job);
	vc_error_clear(&err);
	vc_error_clear(&warn);
	assert_int_equal(job_pod_build(&job, 0, 0, NULL, &pod, NULL), 0);
	assert_int_equal(job_plugins_on_pod_create(&job, pod, &warn, &err), 0);
	assert_string_equal(warn.text,
			    "plugin ray: invalid value \"x\" for flag -dashboardPort: parse error");
	expect_json(vc_json_path(pod, "spec.containers[0].command[2]"),
		    "'ray start --head --block --dashboard-host=0.0.0.0 --port=6000 "
		    "--dashboard-port=8265 --ray-client-server-port=10001'");
	json_decref(pod);
	pod = NULL;
	vc_job_view_release(&job);

	/* No head task: every pod of the job fails (docs/volcano/job-controller.md §8.34). */
	view("{'metadata':{'name':'r','namespace':'n'},'spec':{'plugins':{'ray':[]},'tasks':["
	     "{'name':'worker','replicas':1,'template':{'spec':{'containers':[{'name':'worker'}]}}}"
	     "]}}",
	     &job);
	assert_int_equal(job_pod_build(&job, 0, 0, NULL, &pod, NULL), 0);
	assert_int_equal(job_plugins_on_pod_create(&job, pod, NULL, &err), VC_EINVALID);
	assert_string_equal(err.text, "job r doesn't have head task head");
	json_decref(pod);
	vc_job_view_release(&job);
}

#define RAY_SVC(job, ns, uid, head, gcs, dash, client)                                             \
	"{'apiVersion':'v1','kind':'Service','metadata':{'name':'" job                             \
	"-head-svc','namespace':'" ns                                                              \
	"'," OWNER(job, uid) "},'spec':{'selector':{'volcano.sh/job-name':'" job                   \
			     "','volcano.sh/job-namespace':'" ns "','volcano.sh/task-spec':'" head \
			     "'},"                                                                 \
			     "'ports':[{'name':'gcs','port':" gcs                                  \
			     ",'targetPort':'gcs','protocol':'TCP'},"                              \
			     "{'name':'dashboard','port':" dash                                    \
			     ",'targetPort':'dashboard','protocol':'TCP'},"                        \
			     "{'name':'client-server','port':" client                              \
			     ",'targetPort':'client-server',"                                      \
			     "'protocol':'TCP'}]}}"

static void test_ray_job_add_delete(void **state)
{
	struct job_plugin_actions a = { 0 };
	struct vc_error err;
	struct vc_job job;

	(void)state;
	vc_error_clear(&err);
	view(ray_job, &job);
	assert_int_equal(job_plugins_on_job_add(&job, NULL, &a, NULL, &err), 0);
	expect_json(a.create, "[" RAY_SVC("rc", "n", "u", "head", "6379", "8265", "10001") "]");
	expect_json(a.markers_set, "{'plugin-ray':'ray'}");
	job_plugin_actions_release(&a);
	/* Not marked yet: job delete does nothing; job update never does anything. */
	assert_int_equal(job_plugins_on_job_delete(&job, &a, NULL, &err), 0);
	expect_json(a.remove, "[]");
	job_plugin_actions_release(&a);
	assert_int_equal(job_plugins_on_job_update(&job, &a, NULL, &err), 0);
	expect_json(a.create, "[]");
	job_plugin_actions_release(&a);
	vc_job_view_release(&job);

	/* With the svc plugin (as admission adds it): svc's headless Service is `<job>`, ray's
	 * `<job>-head-svc`; the arguments name the head task and the ports. */
	view("{'metadata':{'name':'r','namespace':'m','uid':'v'},'spec':{'plugins':{'ray':["
	     "'--head=h','--port=1','--dashboardPort=2','--clientPort=3'],"
	     "'svc':['--disable-network-policy']},"
	     "'tasks':[{'name':'h','replicas':1,'template':{}}]}}",
	     &job);
	assert_int_equal(job_plugins_on_job_add(&job, NULL, &a, NULL, &err), 0);
	assert_int_equal(json_array_size(a.create), 3);
	assert_string_equal(
		json_string_value(vc_json_path(json_array_get(a.create, 1), "metadata.name")), "r");
	expect_json(json_array_get(a.create, 2), RAY_SVC("r", "m", "v", "h", "1", "2", "3"));
	expect_json(a.markers_set, "{'plugin-svc':'svc','plugin-ray':'ray'}");
	job_plugin_actions_release(&a);
	vc_job_view_release(&job);

	/* Marked: job add skips, job delete removes the Service and the marker. */
	view("{'metadata':{'name':'rc','namespace':'n','uid':'u'},'spec':{'plugins':{'ray':[]},"
	     "'tasks':[{'name':'head','replicas':1,'template':{}}]},"
	     "'status':{'controlledResources':{'plugin-ray':'ray'}}}",
	     &job);
	assert_int_equal(job_plugins_on_job_add(&job, NULL, &a, NULL, &err), 0);
	expect_json(a.create, "[]");
	expect_json(a.markers_set, "{}");
	job_plugin_actions_release(&a);
	assert_int_equal(job_plugins_on_job_delete(&job, &a, NULL, &err), 0);
	expect_json(a.remove,
		    "[{'apiVersion':'v1','kind':'Service','namespace':'n','name':'rc-head-svc'}]");
	expect_json(a.markers_remove, "['plugin-ray']");
	job_plugin_actions_release(&a);
	vc_job_view_release(&job);
}

/* ---- hcclrank ------------------------------------------------------------------------------- */

static const char *hccl_rank(const json_t *pod)
{
	return vc_json_get_str(vc_json_path(pod, "metadata.annotations"), "hccl/rankIndex");
}

static void test_hcclrank(void **state)
{
	struct vc_error err;
	struct vc_job job;
	json_t *pod = NULL;

	(void)state;
	vc_error_clear(&err);
	/* After pytorch whatever the map order: the annotation is pytorch's RANK (0 for every
	 * master replica, index + 1 for workers). */
	view("{'metadata':{'name':'pt','namespace':'n'},'spec':{'plugins':{'hcclrank':[],"
	     "'pytorch':[]},'tasks':["
	     "{'name':'master','replicas':2,'template':{'spec':{'containers':[{'name':'c'}]}}},"
	     "{'name':'worker','replicas':2,'template':{'spec':{'containers':[{'name':'c'}]}}}]}}",
	     &job);
	pod = pod_of(&job, 0, 1);
	assert_string_equal(hccl_rank(pod), "0");
	json_decref(pod);
	pod = pod_of(&job, 1, 1);
	assert_string_equal(hccl_rank(pod), "2");
	json_decref(pod);
	vc_job_view_release(&job);

	/* Without RANK: the task-index label for the master, replicas(master) + index for workers,
	 * nothing for other tasks. */
	view("{'metadata':{'name':'h','namespace':'n'},'spec':{'plugins':{'hcclrank':[]},'tasks':["
	     "{'name':'master','replicas':2,'template':{'spec':{'containers':[{'name':'c'}]}}},"
	     "{'name':'worker','replicas':3,'template':{'spec':{'containers':[{'name':'c'}]}}},"
	     "{'name':'other','replicas':1,'template':{'spec':{'containers':[{'name':'c'}]}}}]}}",
	     &job);
	pod = pod_of(&job, 0, 1);
	assert_string_equal(hccl_rank(pod), "1");
	json_decref(pod);
	pod = pod_of(&job, 1, 2);
	assert_string_equal(hccl_rank(pod), "4");
	expect_json(vc_json_path(pod, "spec.containers"), "[{'name':'c'}]");
	json_decref(pod);
	pod = pod_of(&job, 2, 0);
	assert_null(hccl_rank(pod));
	json_decref(pod);
	/* The index comes from the label, not the pod name. */
	assert_int_equal(job_pod_build(&job, 1, 0, NULL, &pod, NULL), 0);
	assert_int_equal(json_object_set_new(vc_json_path(pod, "metadata.labels"),
					     "volcano.sh/task-index", json_string("7")),
			 0);
	assert_int_equal(job_plugins_on_pod_create(&job, pod, NULL, &err), 0);
	assert_string_equal(hccl_rank(pod), "9");
	/* A label that is not an integer, or none: the pod fails. */
	json_object_del(vc_json_path(pod, "metadata.annotations"), "hccl/rankIndex");
	assert_int_equal(json_object_set_new(vc_json_path(pod, "metadata.labels"),
					     "volcano.sh/task-index", json_string("x")),
			 0);
	assert_int_equal(job_plugins_on_pod_create(&job, pod, NULL, &err), VC_EINVALID);
	assert_string_equal(err.text, "failed to parse task index for pod h-worker-0: "
				      "strconv.Atoi: parsing \"x\": invalid syntax");
	json_object_del(vc_json_path(pod, "metadata.labels"), "volcano.sh/task-index");
	assert_int_equal(job_plugins_on_pod_create(&job, pod, NULL, &err), VC_EINVALID);
	assert_string_equal(err.text, "pod h-worker-0 doesn't have volcano.sh/task-index label");
	json_decref(pod);
	vc_job_view_release(&job);

	/* A template annotation is kept (an empty one is not an annotation); the first RANK env in
	 * container order wins, a RANK without a literal value falls back to the index; custom
	 * task names; a missing master task counts 0 replicas. */
	view("{'metadata':{'name':'c','namespace':'n'},'spec':{'plugins':{'hcclrank':["
	     "'--master=m','--worker=w']},'tasks':["
	     "{'name':'w','replicas':4,'template':{'metadata':{'annotations':{"
	     "'hccl/rankIndex':'42'}},'spec':{'containers':[{'name':'c'}]}}},"
	     "{'name':'x','replicas':1,'template':{'spec':{'containers':[{'name':'a'},"
	     "{'name':'b','env':[{'name':'RANK','value':'5'}]},"
	     "{'name':'d','env':[{'name':'RANK','value':'6'}]}]}}},"
	     "{'name':'m','replicas':1,'template':{'metadata':{'annotations':{"
	     "'hccl/rankIndex':''}},'spec':{'containers':[{'name':'a','env':[{'name':'RANK',"
	     "'valueFrom':{'fieldRef':{'fieldPath':'metadata.name'}}}]},"
	     "{'name':'b','env':[{'name':'RANK','value':'8'}]}]}}}]}}",
	     &job);
	pod = pod_of(&job, 0, 3);
	assert_string_equal(hccl_rank(pod), "42");
	json_decref(pod);
	pod = pod_of(&job, 1, 0);
	assert_string_equal(hccl_rank(pod), "5");
	json_decref(pod);
	pod = pod_of(&job, 2, 0);
	assert_string_equal(hccl_rank(pod), "0");
	json_decref(pod);
	vc_job_view_release(&job);
	view("{'metadata':{'name':'c','namespace':'n'},'spec':{'plugins':{'hcclrank':[]},'tasks':["
	     "{'name':'worker','replicas':2,'template':{'spec':{'containers':[{'name':'c'}]}}}]}}",
	     &job);
	pod = pod_of(&job, 0, 1);
	assert_string_equal(hccl_rank(pod), "1");
	json_decref(pod);
	vc_job_view_release(&job);
}

/* hcclrank has no job-level hooks and no marker (docs/volcano/job-controller.md §5.8). */
static void test_hcclrank_no_marker(void **state)
{
	struct job_plugin_actions a = { 0 };
	struct vc_error err;
	struct vc_job job;

	(void)state;
	vc_error_clear(&err);
	view("{'metadata':{'name':'c','namespace':'n','uid':'u'},'spec':{'plugins':{"
	     "'hcclrank':[]},'tasks':[{'name':'master','replicas':1,'template':{}}]},"
	     "'status':{'controlledResources':{'plugin-hcclrank':'hcclrank'}}}",
	     &job);
	assert_int_equal(job_plugins_on_job_add(&job, NULL, &a, NULL, &err), 0);
	expect_json(a.create, "[]");
	expect_json(a.markers_set, "{}");
	job_plugin_actions_release(&a);
	assert_int_equal(job_plugins_on_job_delete(&job, &a, NULL, &err), 0);
	expect_json(a.remove, "[]");
	expect_json(a.markers_remove, "[]");
	job_plugin_actions_release(&a);
	vc_job_view_release(&job);
}

/* ---- allocation failures -------------------------------------------------------------------- */

static const char *const all_plugins =
	"{'metadata':{'name':'a','namespace':'n','uid':'u'},"
	"'spec':{'plugins':{'env':[],'svc':[],'ssh':[],'tensorflow':[],'pytorch':["
	"'--wait-master-enabled'],'mpi':[],'hcclrank':[],'ray':['--head=master',"
	"'--headContainer=c','--workerContainer=c']},'tasks':["
	"{'name':'master','replicas':1,'template':{'spec':{'initContainers':[{'name':'i'}],"
	"'containers':[{'name':'c'}]}}},"
	"{'name':'worker','replicas':2,'template':{'spec':{'initContainers':[{'name':'i'}],"
	"'containers':[{'name':'c'}]}}}]},"
	"'status':{'controlledResources':{'plugin-svc':'svc','plugin-ssh':'ssh',"
	"'plugin-ray':'ray'}}}";

static void test_allocation_failures(void **state)
{
	struct vc_job job, fresh;
	struct job_plugin_actions good = { 0 };
	int calls = 0;
	struct job_keygen kg = { fake_keys, &calls };
	json_t *base = NULL, *good_pod;
	long n;
	int rc;

	(void)state;
	view(all_plugins, &job);
	view(mnist, &fresh);
	assert_int_equal(job_pod_build(&job, 1, 1, NULL, &base, NULL), 0);
	good_pod = json_deep_copy(base);
	assert_int_equal(job_plugins_on_pod_create(&job, good_pod, NULL, NULL), 0);
	assert_string_equal(hccl_rank(good_pod), "2");
	assert_string_equal(
		json_string_value(vc_json_path(good_pod, "spec.containers[0].command[2]")),
		"ray start --block --address=a-master-0.a:6379");
	for (n = 0;; n++) {
		json_t *pod = json_deep_copy(base);

		assert_non_null(pod);
		vc_alloc_fail_after(n);
		rc = job_plugins_on_pod_create(&job, pod, NULL, NULL);
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_true(json_equal(pod, good_pod));
			json_decref(pod);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
		json_decref(pod);
	}
	assert_true(n > 20);

	/* OnJobAdd of a fresh svc job, then OnJobDelete with markers, then ssh. */
	{
		const struct vc_job *jobs[] = { &fresh, &job };
		int which;

		for (which = 0; which < 3; which++) {
			const struct vc_job *j = jobs[which == 0 ? 0 : 1];

			for (n = 0;; n++) {
				struct job_plugin_actions a = { 0 };

				vc_alloc_fail_after(n);
				if (which == 0)
					rc = job_plugins_on_job_add(j, &kg, &a, NULL, NULL);
				else if (which == 1)
					rc = job_plugins_on_job_delete(j, &a, NULL, NULL);
				else
					rc = job_plugins_on_job_update(&fresh, &a, NULL, NULL);
				vc_alloc_fail_reset();
				if (rc == 0) {
					assert_non_null(a.create);
					job_plugin_actions_release(&a);
					break;
				}
				assert_int_equal(rc, VC_ENOMEM);
				assert_null(a.create);
			}
			assert_true(n > 3);
		}
	}
	vc_job_view_release(&job);

	/* The ssh Secret: a job without markers. */
	view("{'metadata':{'name':'a','namespace':'n','uid':'u'},'spec':{'plugins':{'ssh':[]},"
	     "'tasks':[{'name':'t','replicas':2,'template':{}}]}}",
	     &job);
	assert_int_equal(job_plugins_on_job_add(&job, &kg, &good, NULL, NULL), 0);
	for (n = 0;; n++) {
		struct job_plugin_actions a = { 0 };

		vc_alloc_fail_after(n);
		rc = job_plugins_on_job_add(&job, &kg, &a, NULL, NULL);
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_true(json_equal(a.create, good.create));
			job_plugin_actions_release(&a);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
	}
	assert_true(n > 5);
	job_plugin_actions_release(&good);
	vc_job_view_release(&job);

	/* The ray head Service. */
	view(ray_job, &job);
	assert_int_equal(job_plugins_on_job_add(&job, NULL, &good, NULL, NULL), 0);
	for (n = 0;; n++) {
		struct job_plugin_actions a = { 0 };

		vc_alloc_fail_after(n);
		rc = job_plugins_on_job_add(&job, NULL, &a, NULL, NULL);
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_true(json_equal(a.create, good.create));
			job_plugin_actions_release(&a);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
	}
	assert_true(n > 5);
	job_plugin_actions_release(&good);
	json_decref(base);
	json_decref(good_pod);
	vc_job_view_release(&job);
	vc_job_view_release(&fresh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_svc_configmap_mnist),
		cmocka_unit_test(test_env_svc_pod),
		cmocka_unit_test(test_svc_job_add_delete),
		cmocka_unit_test(test_unknown_plugin),
		cmocka_unit_test(test_ssh),
		cmocka_unit_test(test_openssl_keygen),
		cmocka_unit_test(test_tf_config_spec_example),
		cmocka_unit_test(test_tf_roles_and_errors),
		cmocka_unit_test(test_pytorch),
		cmocka_unit_test(test_mpi),
		cmocka_unit_test(test_ray_pod),
		cmocka_unit_test(test_ray_job_add_delete),
		cmocka_unit_test(test_hcclrank),
		cmocka_unit_test(test_hcclrank_no_marker),
		cmocka_unit_test(test_allocation_failures),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
