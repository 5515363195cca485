/*
 * Unit tests for the PodGroup controller for plain pods (docs/volcano/job-controller.md §6.2):
 * which pods get a PodGroup, its exact body (name, owners, minMember from the owner's annotation,
 * minResources, queue, copied annotations and labels), the pod patch, and retries.
 */
#include "support/fake_api.h"

#include "pg_controller.h"

#define T0 INT64_C(1700000000)

#define PG_POST "POST /apis/scheduling.volcano.sh/v1beta1/namespaces/ns/podgroups "
#define POD_PATCH(pod, pg)                      \
	"PATCH /api/v1/namespaces/ns/pods/" pod \
	" merge {'metadata':{'annotations':{'scheduling.k8s.io/group-name':'" pg "'}}}\n"
#define RS_GET "GET /apis/apps/v1/namespaces/ns/replicasets/rs1\n"

/* One container's usage (cpu 1, memory 1Gi) as Kubernetes' quota counts it, times n. */
#define USAGE1                                                                      \
	"{'count/pods':'1','cpu':'1','memory':'1Gi','pods':'1','requests.cpu':'1'," \
	"'requests.memory':'1Gi'}"
#define USAGE3                                                                      \
	"{'count/pods':'3','cpu':'3','memory':'3Gi','pods':'3','requests.cpu':'3'," \
	"'requests.memory':'3Gi'}"

struct env {
	struct fake f;
	struct vc_kube *kube;
	struct vc_ctrl_ctx ctx;
	struct pgctl *pc;
	struct pgctl_config cfg;
	bool no_podgroups;
};

/* A pod; sched NULL leaves schedulerName out. */
static json_t *pod(const char *name, const char *uid, const char *sched)
{
	json_t *p = J("{'apiVersion':'v1','kind':'Pod','metadata':{'namespace':'ns'},"
		      "'spec':{'containers':[{'name':'c','image':'busybox',"
		      "'resources':{'requests':{'cpu':'1','memory':'1Gi'}}}]}}");

	assert_int_equal(
		json_object_set_new(json_object_get(p, "metadata"), "name", json_string(name)), 0);
	assert_int_equal(
		json_object_set_new(json_object_get(p, "metadata"), "uid", json_string(uid)), 0);
	if (sched)
		assert_int_equal(json_object_set_new(json_object_get(p, "spec"), "schedulerName",
						     json_string(sched)),
				 0);
	return p;
}

static void set(json_t *obj, const char *path, json_t *value)
{
	assert_int_equal(vc_json_set_path_new(obj, path, value), 0);
}

static json_t *rs_pod(const char *name, const char *uid)
{
	json_t *p = pod(name, uid, "volcano");

	set(p, "metadata.ownerReferences",
	    J("[{'apiVersion':'apps/v1','kind':'ReplicaSet','name':'rs1','uid':'ru1',"
	      "'controller':true,'blockOwnerDeletion':true}]"));
	return p;
}

static json_t *replicaset(const char *min_member)
{
	json_t *rs = J("{'apiVersion':'apps/v1','kind':'ReplicaSet','metadata':{'namespace':'ns',"
		       "'name':'rs1','uid':'ru1','annotations':{'volcano.sh/x':'y',"
		       "'other.io/z':'w'}},'spec':{'replicas':3}}");

	if (min_member)
		set(rs, "metadata.annotations[\"scheduling.volcano.sh/group-min-member\"]",
		    json_string(min_member));
	return rs;
}

static void env_init(struct env *e)
{
	memset(e, 0, sizeof(*e));
	fake_init(&e->f);
	fake_clock_set(T0);
	pgctl_config_defaults(&e->cfg);
	assert_int_equal(e->cfg.workers, 1);
	assert_true(e->cfg.inherit_owner_annotations);
	assert_int_equal(e->cfg.nscheduler_names, 0);
}

static void env_start(struct env *e)
{
	struct ctx_opts o = { .pods = true, .podgroups = !e->no_podgroups };
	struct vc_error err;

	fake_ctx_init(&e->f, &e->kube, &e->ctx, &o);
	assert_int_equal(pgctl_new(&e->ctx, &e->cfg, &e->pc, &err), 0);
	fake_ctx_start(&e->ctx);
}

static void env_stop(struct env *e)
{
	pgctl_stop(e->pc);
	ctx_stop(&e->ctx);
	pgctl_free(e->pc);
	fake_ctx_release(&e->f, e->kube, &e->ctx);
}

static int drain(struct env *e)
{
	int n = 0;

	while (pgctl_run_once(e->pc))
		n++;
	return n;
}

static void test_bare_pod(void **state)
{
	struct env e;
	json_t *p = pod("p1", "pu1", "volcano");

	(void)state;
	env_init(&e);
	set(p, "spec.priorityClassName", json_string("high"));
	set(p, "metadata.annotations",
	    J("{'scheduling.volcano.sh/queue-name':'q1','volcano.sh/preemptable':'true',"
	      "'volcano.sh/revocable-zone':'*','volcano.sh/jdb-max-unavailable':'1',"
	      "'volcano.sh/other':'not copied','x':'y'}"));
	set(p, "metadata.labels",
	    J("{'volcano.sh/cooldown-time':'10s','volcano.sh/preemptable':'false','app':'a'}"));
	fake_put(&e.f, &vc_gvr_pods, p);
	env_start(&e);
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f,
		    PG_POST "{'apiVersion':'scheduling.volcano.sh/v1beta1','kind':'PodGroup',"
			    "'metadata':{'annotations':{'volcano.sh/jdb-max-unavailable':'1',"
			    "'volcano.sh/preemptable':'true','volcano.sh/revocable-zone':'*'},"
			    "'labels':{'volcano.sh/cooldown-time':'10s',"
			    "'volcano.sh/preemptable':'false'},'name':'podgroup-pu1',"
			    "'namespace':'ns','ownerReferences':[{'apiVersion':'v1',"
			    "'blockOwnerDeletion':true,'controller':true,'kind':'Pod','name':'p1',"
			    "'uid':'pu1'}]},'spec':{'minMember':1,'minResources':" USAGE1 ","
			    "'priorityClassName':'high','queue':'q1'},"
			    "'status':{'phase':'Pending'}}\n" POD_PATCH("p1", "podgroup-pu1"));
	assert_true(fake_has(&e.f, &vc_gvr_podgroups, "ns/podgroup-pu1"));
	/* The patched pod comes back with its annotation: nothing more to do. */
	fake_touch(&e.f, &vc_gvr_pods, "ns/p1");
	assert_int_equal(drain(&e), 0);
	fake_expect(&e.f, "");
	env_stop(&e);
}

static void test_owner(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	fake_put(&e.f, &vc_gvr_pods, rs_pod("p1", "pu1"));
	env_start(&e);
	fake_put(&e.f, &(const struct vc_gvr){ "apps", "v1", "replicasets", true },
		 replicaset("3"));
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, RS_GET PG_POST
		    "{'apiVersion':'scheduling.volcano.sh/v1beta1','kind':'PodGroup',"
		    "'metadata':{'annotations':{'volcano.sh/x':'y'},'name':'podgroup-ru1',"
		    "'namespace':'ns','ownerReferences':[{'apiVersion':'apps/v1',"
		    "'blockOwnerDeletion':true,'controller':true,'kind':'ReplicaSet',"
		    "'name':'rs1','uid':'ru1'}]},'spec':{'minMember':3,'minResources':" USAGE3
		    "},'status':{'phase':'Pending'}}\n" POD_PATCH("p1", "podgroup-ru1"));
	/* The informer shows the PodGroup: the next pod of the ReplicaSet is only annotated. */
	fake_touch(&e.f, &vc_gvr_podgroups, "ns/podgroup-ru1");
	fake_emit(&e.f, &vc_gvr_pods, VC_WATCH_ADDED, rs_pod("p2", "pu2"));
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, POD_PATCH("p2", "podgroup-ru1"));
	env_stop(&e);
}

static void test_min_member_annotation(void **state)
{
	static const struct {
		const char *value;
		const char *min_member;
		const char *min_resources;
	} cases[] = {
		{ "x", "1", USAGE1 },
		{ "-2", "1", USAGE1 },
		{ "2147483648", "1", USAGE1 },
		{ "", "1", USAGE1 },
		{ "0", "0", "{}" },
		{ "3", "3", USAGE3 },
		/* As strtoll read it: leading white space and a sign pass (Go's Atoi: 1 for " 3").
		 */
		{ " \t3", "3", USAGE3 },
		{ "+3", "3", USAGE3 },
		{ "3 ", "1", USAGE1 },
		{ "1_0", "1", USAGE1 },
		{ "0x10", "1", USAGE1 },
		{ "-0", "0", "{}" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(cases); i++) {
		struct env e;
		char want[2048];

		env_init(&e);
		fake_put(&e.f, &vc_gvr_pods, rs_pod("p1", "pu1"));
		fake_put(&e.f, &(const struct vc_gvr){ "apps", "v1", "replicasets", true },
			 replicaset(cases[i].value));
		env_start(&e);
		assert_int_equal(drain(&e), 1);
		snprintf(want, sizeof(want),
			 RS_GET PG_POST
			 "{'apiVersion':'scheduling.volcano.sh/v1beta1','kind':'PodGroup',"
			 "'metadata':{'annotations':{'volcano.sh/x':'y'},'name':'podgroup-ru1',"
			 "'namespace':'ns','ownerReferences':[{'apiVersion':'apps/v1',"
			 "'blockOwnerDeletion':true,'controller':true,'kind':'ReplicaSet',"
			 "'name':'rs1','uid':'ru1'}]},'spec':{'minMember':%s,'minResources':%s},"
			 "'status':{'phase':'Pending'}}\n" POD_PATCH("p1", "podgroup-ru1"),
			 cases[i].min_member, cases[i].min_resources);
		fake_expect(&e.f, want);
		env_stop(&e);
	}
}

static void test_owners_unreadable_or_other(void **state)
{
	struct env e;
	json_t *p = pod("p1", "pu1", "volcano");

	(void)state;
	env_init(&e);
	/*
	 * A missing ReplicaSet, a DaemonSet, StatefulSet and batch Job (read), a kind that is
	 * not read, a reference without a name; none is the controller: the pod owns its group.
	 */
	set(p, "metadata.ownerReferences",
	    J("[{'apiVersion':'apps/v1','kind':'ReplicaSet','name':'gone','uid':'g'},"
	      "{'apiVersion':'apps/v1','kind':'DaemonSet','name':'ds','uid':'d'},"
	      "{'apiVersion':'apps/v1','kind':'StatefulSet','name':'ss','uid':'s'},"
	      "{'apiVersion':'batch/v1','kind':'Job','name':'bj','uid':'b'},"
	      "{'apiVersion':'v1','kind':'ConfigMap','name':'cm','uid':'c'},"
	      "{'apiVersion':'apps/v1','kind':'ReplicaSet','uid':'n'}]"));
	fake_put(&e.f, &vc_gvr_pods, p);
	fake_put(&e.f, &(const struct vc_gvr){ "apps", "v1", "statefulsets", true },
		 J("{'metadata':{'namespace':'ns','name':'ss','annotations':{"
		   "'scheduling.volcano.sh/group-min-member':'2','volcano.sh/a':'ss'}}}"));
	fake_put(&e.f, &(const struct vc_gvr){ "batch", "v1", "jobs", true },
		 J("{'metadata':{'namespace':'ns','name':'bj','annotations':{"
		   "'scheduling.volcano.sh/group-min-member':'5','volcano.sh/a':'bj',"
		   "'volcano.sh/b':'bj'}}}"));
	env_start(&e);
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f,
		    "GET /apis/apps/v1/namespaces/ns/replicasets/gone\n"
		    "GET /apis/apps/v1/namespaces/ns/daemonsets/ds\n"
		    "GET /apis/apps/v1/namespaces/ns/statefulsets/ss\n"
		    "GET /apis/batch/v1/namespaces/ns/jobs/bj\n" PG_POST
		    "{'apiVersion':'scheduling.volcano.sh/v1beta1','kind':'PodGroup',"
		    "'metadata':{'annotations':{'volcano.sh/a':'ss','volcano.sh/b':'bj'},"
		    "'name':'podgroup-pu1','namespace':'ns','ownerReferences':[{'apiVersion':'v1',"
		    "'blockOwnerDeletion':true,'controller':true,'kind':'Pod','name':'p1',"
		    "'uid':'pu1'}]},'spec':{'minMember':2,'minResources':{'count/pods':'2',"
		    "'cpu':'2','memory':'2Gi','pods':'2','requests.cpu':'2',"
		    "'requests.memory':'2Gi'}},'status':{'phase':'Pending'}}\n" POD_PATCH(
			    "p1", "podgroup-pu1"));
	env_stop(&e);
}

static void test_not_ours(void **state)
{
	struct env e;
	json_t *p;

	(void)state;
	env_init(&e);
	e.cfg.scheduler_names[0] = "a";
	e.cfg.scheduler_names[1] = "b";
	e.cfg.nscheduler_names = 2;
	fake_put(&e.f, &vc_gvr_pods, pod("volcano", "u1", "volcano"));
	fake_put(&e.f, &vc_gvr_pods, pod("none", "u2", NULL));
	p = pod("grouped", "u3", "b");
	set(p, "metadata.annotations", J("{'scheduling.k8s.io/group-name':'pg'}"));
	fake_put(&e.f, &vc_gvr_pods, p);
	fake_put(&e.f, &vc_gvr_pods, pod("mine", "u4", "b"));
	env_start(&e);
	e.cfg.scheduler_names[1] = "changed"; /* the controller copied the names */
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f,
		    PG_POST "{'apiVersion':'scheduling.volcano.sh/v1beta1','kind':'PodGroup',"
			    "'metadata':{'name':'podgroup-u4','namespace':'ns',"
			    "'ownerReferences':[{'apiVersion':'v1','blockOwnerDeletion':true,"
			    "'controller':true,'kind':'Pod','name':'mine','uid':'u4'}]},"
			    "'spec':{'minMember':1,'minResources':" USAGE1 "},"
			    "'status':{'phase':'Pending'}}\n" POD_PATCH("mine", "podgroup-u4"));
	/* Only new pods are looked at (Volcano's AddFunc). */
	fake_emit(&e.f, &vc_gvr_pods, VC_WATCH_MODIFIED, pod("volcano", "u1", "a"));
	assert_int_equal(drain(&e), 0);
	env_stop(&e);
}

static void test_retries(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	e.cfg.inherit_owner_annotations = false;
	fake_put(&e.f, &vc_gvr_pods, rs_pod("p1", "pu1"));
	env_start(&e);
	/* The create fails: retried after 5 ms. */
	fake_fail(&e.f, "POST", "/apis/scheduling.volcano.sh/v1beta1/namespaces/ns/podgroups",
		  VC_ESERVER, 1);
	assert_int_equal(drain(&e), 1);
	fake_clear(&e.f);
	assert_int_equal(drain(&e), 0);
	/* Then the patch fails: retried after 10 ms; the group exists now (AlreadyExists). */
	fake_fail(&e.f, "PATCH", "/api/v1/namespaces/ns/pods/p1", VC_ECONFLICT, 1);
	fake_clock_advance(5 * VC_NSEC_PER_MSEC);
	assert_int_equal(drain(&e), 1);
	fake_clear(&e.f);
	fake_clock_advance(10 * VC_NSEC_PER_MSEC);
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f,
		    PG_POST "{'apiVersion':'scheduling.volcano.sh/v1beta1','kind':'PodGroup',"
			    "'metadata':{'name':'podgroup-ru1','namespace':'ns',"
			    "'ownerReferences':[{'apiVersion':'apps/v1',"
			    "'blockOwnerDeletion':true,'controller':true,'kind':'ReplicaSet',"
			    "'name':'rs1','uid':'ru1'}]},'spec':{'minMember':1,"
			    "'minResources':" USAGE1
			    "},'status':{'phase':'Pending'}}\n" POD_PATCH("p1", "podgroup-ru1"));
	/* A pod deleted before its patch: done (NotFound). */
	fake_emit(&e.f, &vc_gvr_pods, VC_WATCH_ADDED, rs_pod("p2", "pu2"));
	fake_fail(&e.f, "PATCH", "/api/v1/namespaces/ns/pods/p2", VC_ENOTFOUND, 1);
	assert_int_equal(drain(&e), 1);
	fake_clock_advance(VC_NSEC_PER_SEC);
	assert_int_equal(drain(&e), 0);
	/* A pod gone from the cache before its turn: nothing. */
	fake_emit(&e.f, &vc_gvr_pods, VC_WATCH_ADDED, rs_pod("p3", "pu3"));
	fake_emit(&e.f, &vc_gvr_pods, VC_WATCH_DELETED, rs_pod("p3", "pu3"));
	fake_clear(&e.f);
	assert_int_equal(drain(&e), 1);
	fake_expect(&e.f, "");
	env_stop(&e);
}

static void test_without_podgroup_informer(void **state)
{
	struct env e;

	(void)state;
	env_init(&e);
	e.no_podgroups = true;
	e.cfg.inherit_owner_annotations = false;
	fake_put(&e.f, &vc_gvr_pods, rs_pod("p1", "pu1"));
	fake_put(&e.f, &vc_gvr_pods, rs_pod("p2", "pu2"));
	env_start(&e);
	/* Both pods try the create; the second one finds it there. */
	assert_int_equal(drain(&e), 2);
	assert_true(fake_has(&e.f, &vc_gvr_pods, "ns/p2"));
	{
		json_t *p1 = fake_stored(&e.f, &vc_gvr_pods, "ns/p1");
		json_t *p2 = fake_stored(&e.f, &vc_gvr_pods, "ns/p2");

		assert_string_equal(
			json_string_value(vc_json_path(
				p1, "metadata.annotations[\"scheduling.k8s.io/group-name\"]")),
			"podgroup-ru1");
		assert_string_equal(
			json_string_value(vc_json_path(
				p2, "metadata.annotations[\"scheduling.k8s.io/group-name\"]")),
			"podgroup-ru1");
		json_decref(p1);
		json_decref(p2);
	}
	env_stop(&e);
}

static void test_threads(void **state)
{
	struct env e;
	int i;

	(void)state;
	env_init(&e);
	e.cfg.workers = 2;
	fake_put(&e.f, &vc_gvr_pods, pod("p1", "pu1", "volcano"));
	env_start(&e);
	assert_int_equal(pgctl_start(e.pc), 0);
	assert_int_equal(pgctl_start(e.pc), VC_EINVAL);
	for (i = 0; i < 5000; i++) {
		struct timespec ms = { 0, 1000000 };
		json_t *p = fake_stored(&e.f, &vc_gvr_pods, "ns/p1");
		bool done = json_is_string(
			vc_json_path(p, "metadata.annotations[\"scheduling.k8s.io/group-name\"]"));

		json_decref(p);
		if (done)
			break;
		nanosleep(&ms, NULL);
	}
	assert_true(i < 5000);
	pgctl_stop(e.pc);
	assert_true(fake_has(&e.f, &vc_gvr_podgroups, "ns/podgroup-pu1"));
	env_stop(&e);
}

static void test_new_errors(void **state)
{
	struct vc_ctrl_ctx ctx;
	struct pgctl_config cfg;
	struct pgctl *pc = (struct pgctl *)1;
	struct vc_error err;

	(void)state;
	memset(&ctx, 0, sizeof(ctx));
	pgctl_config_defaults(&cfg);
	assert_int_equal(pgctl_new(&ctx, &cfg, &pc, &err), VC_EINVAL);
	assert_null(pc);
	assert_string_equal(err.text, "pg controller needs the pods informer");
	ctx.pods = (struct vc_informer *)1;
	cfg.nscheduler_names = PGCTL_MAX_SCHEDULER_NAMES + 1;
	assert_int_equal(pgctl_new(&ctx, &cfg, &pc, &err), VC_EINVAL);
	assert_string_equal(err.text, "pg controller: more than 8 scheduler names");
	pgctl_free(NULL);
	pgctl_stop(NULL);
}

static void test_alloc_failures(void **state)
{
	long n;

	(void)state;
	for (n = 0; n < 1000; n++) {
		struct env e;
		long failures;
		json_t *p;
		int i;

		env_init(&e);
		fake_put(&e.f, &vc_gvr_pods, rs_pod("p1", "pu1"));
		fake_put(&e.f, &(const struct vc_gvr){ "apps", "v1", "replicasets", true },
			 replicaset("2"));
		env_start(&e);
		vc_alloc_fail_after(n);
		drain(&e);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		for (i = 0; i < 10; i++) {
			fake_clock_advance(VC_NSEC_PER_SEC);
			if (drain(&e))
				continue;
			p = fake_stored(&e.f, &vc_gvr_pods, "ns/p1");
			if (!json_is_string(vc_json_path(
				    p, "metadata.annotations[\"scheduling.k8s.io/group-name\"]"))) {
				/* the retry was lost to the failure: a new pod event brings it back
				 */
				fake_emit(&e.f, &vc_gvr_pods, VC_WATCH_DELETED, json_deep_copy(p));
				fake_emit(&e.f, &vc_gvr_pods, VC_WATCH_ADDED, json_incref(p));
			}
			json_decref(p);
		}
		p = fake_stored(&e.f, &vc_gvr_podgroups, "ns/podgroup-ru1");
		assert_non_null(p);
		assert_int_equal(json_integer_value(vc_json_path(p, "spec.minMember")), 2);
		json_decref(p);
		env_stop(&e);
		if (!failures)
			break;
	}
	assert_true(n < 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bare_pod),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_min_member_annotation),
		cmocka_unit_test(test_owners_unreadable_or_other),
		cmocka_unit_test(test_not_ours),
		cmocka_unit_test(test_retries),
		cmocka_unit_test(test_without_podgroup_informer),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_new_errors),
		cmocka_unit_test(test_alloc_failures),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
