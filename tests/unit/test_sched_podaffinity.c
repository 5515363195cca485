/*
 * Unit tests for inter-pod affinity and pod topology spread in the scheduler
 * (docs/volcano/scheduler.md §4.7, §4.8; sched_podaff.c): the predicates plugin's filters and
 * nodeorder's batch scores driven through the session, on Kubernetes' documented examples
 * (pkg/scheduler/framework/plugins/interpodaffinity and podtopologyspread, their tests, and the
 * "Assigning Pods to Nodes" and "Pod Topology Spread Constraints" pages).
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "scheduler/sched_internal.h"
#include "scheduler/sched_objects.h"
#include "scheduler/sched_podaff.h"
#include "scheduler/sched_session.h"
#include "vc_alloc.h"
#include "vc_model.h"

#include "support/sched_fixture.h"

#define HOST(n)	   "{\"kubernetes.io/hostname\":\"" n "\"}"
#define ZONE(z, n) "{\"zone\":\"" z "\",\"kubernetes.io/hostname\":\"" n "\"}"
#define KZONE(z, n) \
	"{\"topology.kubernetes.io/zone\":\"" z "\",\"kubernetes.io/hostname\":\"" n "\"}"

/* A required term list member: labelSelector matchLabels {k: v} over key. */
#define TERM(k, v, key) \
	"{\"labelSelector\":{\"matchLabels\":{\"" k "\":\"" v "\"}},\"topologyKey\":\"" key "\"}"
#define REQ_AFF(terms)                                                                              \
	"\"affinity\":{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[" terms \
	"]}}"
#define REQ_ANTI(terms)                                                                                 \
	"\"affinity\":{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[" terms \
	"]}}"
#define SPREAD(skew, key, when, k, v)                                                      \
	"{\"maxSkew\":" #skew ",\"topologyKey\":\"" key "\",\"whenUnsatisfiable\":\"" when \
	"\",\"labelSelector\":{\"matchLabels\":{\"" k "\":\"" v "\"}}}"

static const char conf_preds[] = "actions: \"\"\ntiers:\n- plugins:\n  - name: predicates\n";
static const char conf_allocate[] = "actions: \"allocate\"\ntiers:\n- plugins:\n  - name: gang\n"
				    "  - name: predicates\n  - name: nodeorder\n";

struct ssn {
	struct sched_conf conf;
	struct sched_result res;
	struct sched_session s;
	struct vc_buf text;
};

static void open_ssn(struct ssn *x, struct sched_fx *f, const char *conf)
{
	struct vc_error err;

	memset(x, 0, sizeof(*x));
	vc_buf_init(&x->text, 4096);
	vc_error_clear(&err);
	if (sched_conf_parse(conf, strlen(conf), &x->conf, &err) != 0)
		fail_msg("conf: %s", err.text);
	if (sched_session_begin(&x->s, &x->conf, &f->snap, "uid-1", "2026-01-01T00:00:00Z", 7,
				&x->res, &err) != 0)
		fail_msg("open: %s", err.text);
}

static void close_ssn(struct ssn *x)
{
	sched_session_end(&x->s);
	sched_result_release(&x->res);
	sched_conf_release(&x->conf);
	vc_buf_release(&x->text);
}

/*
 * The allocate search for t: the names of the feasible nodes in node order ("n1,n3"), or the
 * task's node fit error when none is.
 */
static const char *search(struct ssn *x, const struct sched_task_info *t)
{
	struct sched_ssn_task *st = sched_ssn_task_of(&x->s, t);
	uint32_t nodes[SCHED_FX_MAX];
	size_t n, i, k;

	assert_non_null(st);
	x->s.priv->node_offset = 0;
	vc_buf_reset(&x->text);
	assert_int_equal(sched_predicate_nodes(&x->s, st, SCHED_SEARCH_ALLOCATE, false, &n), 0);
	if (n == 0) {
		assert_int_equal(sched_fit_format(&x->s, st->fit, &x->text), 0);
		return vc_buf_str(&x->text);
	}
	memcpy(nodes, x->s.priv->feasible, n * sizeof(*nodes));
	for (i = 1; i < n; i++) /* node order: the scan may start anywhere */
		for (k = i; k > 0 && nodes[k - 1] > nodes[k]; k--) {
			uint32_t tmp = nodes[k];

			nodes[k] = nodes[k - 1];
			nodes[k - 1] = tmp;
		}
	for (i = 0; i < n; i++)
		assert_int_equal(
			vc_buf_addf(&x->text, "%s%s", i ? "," : "", x->s.nodes[nodes[i]].n->name),
			0);
	return vc_buf_str(&x->text);
}

/* Run one cycle with conf; the node each task was bound to is in its node_name. */
static void run(struct sched_fx *f, const char *conf, struct sched_result *res)
{
	struct sched_conf c;
	struct vc_error err;

	vc_error_clear(&err);
	assert_int_equal(sched_conf_parse(conf, strlen(conf), &c, &err), 0);
	if (sched_session_run(&c, &f->snap, "uid-1", "2026-01-01T00:00:00Z", 7, res, &err) != 0)
		fail_msg("run: %s", err.text);
	sched_conf_release(&c);
}

static const char *bound(const struct sched_result *r, const struct sched_task_info *t)
{
	size_t i;

	for (i = 0; i < r->nbinds; i++)
		if (r->binds[i].task == t)
			return r->binds[i].node;
	return "";
}

static const char *condition(const struct sched_result *r, const struct sched_task_info *t)
{
	size_t i;

	for (i = 0; i < r->ntasks; i++)
		if (r->tasks[i].task == t)
			return r->tasks[i].message;
	return "";
}

/* ---- table-driven filter cases ---------------------------------------------------------------
 */

#define CASE_MAX 8

/* A pod: its namespace (default "ns"), name, labels, extra metadata and spec members, node. */
struct case_pod {
	const char *ns, *name, *labels, *meta, *spec, *node;
};

/*
 * One filter case: nodes (name, labels, spec; spec NULL for "{}"), namespaces known to the
 * scheduler (name, labels), the pods already placed, the incoming pod and what the allocate
 * search finds for it (search()).
 */
struct filter_case {
	const char *name;
	const char *nodes[CASE_MAX][3];
	const char *namespaces[CASE_MAX][2];
	struct case_pod placed[CASE_MAX];
	struct case_pod incoming;
	const char *want;
};

/* A cache of JSON object texts, indexed by namespace (NULL when texts is empty). */
static struct vc_cache *cache_of(const char *const *texts)
{
	static const struct vc_cache_index idx[] = {
		{ SCHED_OBJECTS_NS_INDEX, vc_cache_index_by_namespace, NULL },
	};
	const struct vc_cache_opts opts = { .indexes = idx, .nindexes = 1 };
	struct vc_cache *c;
	size_t i;

	if (!texts[0])
		return NULL;
	assert_int_equal(vc_cache_new(&opts, &c), 0);
	for (i = 0; texts[i]; i++) {
		json_t *obj = json_loads(texts[i], 0, NULL);

		assert_non_null(obj);
		assert_int_equal(vc_cache_upsert(c, obj, NULL), 0);
		json_decref(obj);
	}
	return c;
}

static void objects_release(struct sched_objects *o)
{
	vc_cache_free(o->namespaces);
	vc_cache_free(o->services);
	vc_cache_free(o->rcs);
	vc_cache_free(o->replicasets);
	vc_cache_free(o->statefulsets);
	memset(o, 0, sizeof(*o));
}

/* The job of namespace ns in f (one per namespace), made on first use. */
static struct sched_job_info *job_in(struct sched_fx *f, const char *ns)
{
	size_t i;

	for (i = 0; i < f->snap.njobs; i++)
		if (strcmp(f->snap.jobs[i]->ns, ns) == 0)
			return f->snap.jobs[i];
	return sched_fx_job(f, ns, "j", 1);
}

static struct sched_task_info *case_pod_add(struct sched_fx *f, const struct case_pod *p)
{
	return sched_fx_pod_meta(f, job_in(f, p->ns ? p->ns : "ns"), p->name,
				 p->labels ? p->labels : "{}", p->meta ? p->meta : "",
				 p->spec ? p->spec : "", p->node);
}

/*
 * Run each case: build its cluster, open a predicates-only session, compare the search. Every
 * case runs; the failing ones are printed, then the test fails.
 */
static void run_filter_cases(const struct filter_case *cases, size_t n)
{
	size_t c, i, failed = 0;

	for (c = 0; c < n; c++) {
		const struct filter_case *k = &cases[c];
		const char *ns_texts[CASE_MAX + 1] = { 0 };
		char buf[CASE_MAX][256];
		struct sched_objects objs = { 0 };
		struct sched_task_info *t;
		struct sched_fx f;
		struct ssn x;

		sched_fx_init(&f);
		for (i = 0; i < CASE_MAX && k->nodes[i][0]; i++)
			sched_fx_node_spec(&f, k->nodes[i][0], k->nodes[i][1],
					   k->nodes[i][2] ? k->nodes[i][2] : "{}");
		for (i = 0; i < CASE_MAX && k->namespaces[i][0]; i++) {
			snprintf(buf[i], sizeof(buf[i]),
				 "{\"metadata\":{\"name\":\"%s\",\"labels\":%s}}",
				 k->namespaces[i][0], k->namespaces[i][1]);
			ns_texts[i] = buf[i];
		}
		for (i = 0; i < CASE_MAX && k->placed[i].name; i++)
			case_pod_add(&f, &k->placed[i]);
		t = case_pod_add(&f, &k->incoming);
		sched_fx_place(&f);
		objs.namespaces = cache_of(ns_texts);
		f.snap.objs = &objs;
		open_ssn(&x, &f, conf_preds);
		if (strcmp(search(&x, t), k->want) != 0) {
			print_error("case '%s': got '%s', want '%s'\n", k->name,
				    vc_buf_str(&x.text), k->want);
			failed++;
		}
		close_ssn(&x);
		sched_fx_release(&f);
		objects_release(&objs);
	}
	assert_int_equal(failed, 0);
}

#define SPREADS(list) "\"topologySpreadConstraints\":[" list "]"
#define ZONE_A_B                                                                          \
	{ "node1", ZONE("zoneA", "node1") }, { "node2", ZONE("zoneA", "node2") },         \
		{ "node3", ZONE("zoneB", "node3") }, { "node4", ZONE("zoneB", "node4") }, \
	{                                                                                 \
		"node5", HOST("node5")                                                    \
	}
#define FOOBAR(n, at)                                        \
	{                                                    \
		NULL, n, "{\"foo\":\"bar\"}", NULL, NULL, at \
	}
#define TENANT_TERMS                                                                                \
	"\"affinity\":{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":["       \
	"{\"labelSelector\":{\"matchExpressions\":[{\"key\":\"tenant\",\"operator\":\"Exists\"}]}," \
	"\"matchLabelKeys\":[\"tenant\"],\"topologyKey\":\"pool\"}]},"                              \
	"\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":["                 \
	"{\"labelSelector\":{\"matchExpressions\":[{\"key\":\"tenant\",\"operator\":\"Exists\"}]}," \
	"\"mismatchLabelKeys\":[\"tenant\"],\"topologyKey\":\"pool\"}]}}"
#define DB_TERM(extra)                                                 \
	"{\"labelSelector\":{\"matchLabels\":{\"app\":\"db\"}}," extra \
	"\"topologyKey\":\"kubernetes.io/hostname\"}"

static const struct filter_case filter_cases[] = {
	/*
	 * Kubernetes' example: required affinity to security=S1 over the zone: only the nodes of
	 * the zone where an S1 pod runs; a term no pod matches, on a pod that does not match it
	 * itself, fits nowhere (Kubernetes' affinity reason), as does a key no node has.
	 */
	{ "affinity to S1 over the zone",
	  { { "v1", ZONE("V", "v1") },
	    { "v2", ZONE("V", "v2") },
	    { "w1", ZONE("W", "w1") },
	    { "x1", HOST("x1") } },
	  { { 0 } },
	  { { NULL, "s1", "{\"security\":\"S1\"}", NULL, NULL, "v2" } },
	  { NULL, "p", NULL, NULL, REQ_AFF(TERM("security", "S1", "zone")), NULL },
	  "v1,v2" },
	{ "affinity no pod matches",
	  { { "v1", ZONE("V", "v1") },
	    { "v2", ZONE("V", "v2") },
	    { "w1", ZONE("W", "w1") },
	    { "x1", HOST("x1") } },
	  { { 0 } },
	  { { NULL, "s1", "{\"security\":\"S1\"}", NULL, NULL, "v2" } },
	  { NULL, "q", NULL, NULL, REQ_AFF(TERM("security", "S3", "zone")), NULL },
	  "0/4 nodes are unavailable: 4 node(s) didn't match pod affinity rules." },
	{ "affinity over a key no node has",
	  { { "v1", ZONE("V", "v1") },
	    { "v2", ZONE("V", "v2") },
	    { "w1", ZONE("W", "w1") },
	    { "x1", HOST("x1") } },
	  { { 0 } },
	  { { NULL, "s1", "{\"security\":\"S1\"}", NULL, NULL, "v2" } },
	  { NULL, "r", NULL, NULL, REQ_AFF(TERM("security", "S1", "rack")), NULL },
	  "0/4 nodes are unavailable: 4 node(s) didn't match pod affinity rules." },
	/*
	 * namespaceSelector (Kubernetes 1.21+): the term's namespaces are those whose labels it
	 * selects, in union with its namespaces list; {} selects every namespace.
	 */
	{ "affinity namespaceSelector",
	  { { "n1", HOST("n1") }, { "n2", HOST("n2") }, { "n3", HOST("n3") } },
	  { { "prod", "{\"env\":\"prod\"}" }, { "dev", "{\"env\":\"dev\"}" } },
	  { { "prod", "db", "{\"app\":\"db\"}", NULL, NULL, "n1" },
	    { "dev", "db", "{\"app\":\"db\"}", NULL, NULL, "n2" } },
	  { NULL, "p", NULL, NULL,
	    REQ_AFF(DB_TERM("\"namespaceSelector\":{\"matchLabels\":{\"env\":\"prod\"}},")), NULL },
	  "n1" },
	{ "anti-affinity namespaceSelector and namespaces",
	  { { "n1", HOST("n1") }, { "n2", HOST("n2") }, { "n3", HOST("n3") } },
	  { { "prod", "{\"env\":\"prod\"}" }, { "dev", "{\"env\":\"dev\"}" } },
	  { { "prod", "db", "{\"app\":\"db\"}", NULL, NULL, "n1" },
	    { "dev", "db", "{\"app\":\"db\"}", NULL, NULL, "n2" },
	    { "test", "db", "{\"app\":\"db\"}", NULL, NULL, "n3" } },
	  { NULL, "p", NULL, NULL,
	    REQ_ANTI(DB_TERM("\"namespaces\":[\"dev\"],\"namespaceSelector\":{\"matchExpressions\":"
			     "[{\"key\":\"env\",\"operator\":\"In\",\"values\":[\"prod\"]}]},")),
	    NULL },
	  "n3" },
	{ "anti-affinity empty namespaceSelector",
	  { { "n1", HOST("n1") }, { "n2", HOST("n2") }, { "n3", HOST("n3") } },
	  { { 0 } },
	  { { "prod", "db", "{\"app\":\"db\"}", NULL, NULL, "n1" },
	    { "dev", "db", "{\"app\":\"db\"}", NULL, NULL, "n2" } },
	  { NULL, "p", NULL, NULL, REQ_ANTI(DB_TERM("\"namespaceSelector\":{},")), NULL },
	  "n3" },
	/*
	 * matchLabelKeys (Kubernetes 1.29+): the pod's values of the keys join the selector; the
	 * documented rollout example keeps a new replica with the pods of its own revision.
	 */
	{ "affinity matchLabelKeys",
	  { { "a1", ZONE("A", "a1") }, { "b1", ZONE("B", "b1") }, { "b2", ZONE("B", "b2") } },
	  { { 0 } },
	  { { NULL, "old", "{\"app\":\"database\",\"pod-template-hash\":\"h1\"}", NULL, NULL,
	      "a1" },
	    { NULL, "new", "{\"app\":\"database\",\"pod-template-hash\":\"h2\"}", NULL, NULL,
	      "b1" } },
	  { NULL, "p", "{\"app\":\"database\",\"pod-template-hash\":\"h2\"}", NULL,
	    REQ_AFF("{\"labelSelector\":{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"In\","
		    "\"values\":[\"database\"]}]},\"matchLabelKeys\":[\"pod-template-hash\"],"
		    "\"topologyKey\":\"zone\"}"),
	    NULL },
	  "b1,b2" },
	/*
	 * The documented multi-tenant example: affinity to the pool of the pod's own tenant
	 * (matchLabelKeys), anti-affinity to pools of other tenants (mismatchLabelKeys).
	 */
	{ "affinity and anti-affinity by tenant",
	  { { "a1", "{\"pool\":\"a\",\"kubernetes.io/hostname\":\"a1\"}" },
	    { "a2", "{\"pool\":\"a\",\"kubernetes.io/hostname\":\"a2\"}" },
	    { "b1", "{\"pool\":\"b\",\"kubernetes.io/hostname\":\"b1\"}" },
	    { "c1", "{\"pool\":\"c\",\"kubernetes.io/hostname\":\"c1\"}" } },
	  { { 0 } },
	  { { NULL, "t1", "{\"tenant\":\"t1\"}", NULL, NULL, "a1" },
	    { NULL, "t2", "{\"tenant\":\"t2\"}", NULL, NULL, "b1" } },
	  { NULL, "p", "{\"tenant\":\"t1\"}", NULL, TENANT_TERMS, NULL },
	  "a1,a2" },
	/*
	 * Kubernetes' "Pod Topology Spread Constraints" example: zoneA holds node1 and node2, zoneB
	 * node3 and node4; foo=bar pods run on node1, node2 and node3. maxSkew 1 over the zone
	 * admits only zoneB; adding maxSkew 1 over the node leaves node4. A pod that does not match
	 * its own selector has no self count. A node without the zone label fails as
	 * unresolvable; minDomains above the number of zones makes the global minimum 0.
	 */
	{ "spread over the zone",
	  { ZONE_A_B },
	  { { 0 } },
	  { FOOBAR("p1", "node1"), FOOBAR("p2", "node2"), FOOBAR("p3", "node3") },
	  { NULL, "zone", "{\"foo\":\"bar\"}", NULL,
	    SPREADS(SPREAD(1, "zone", "DoNotSchedule", "foo", "bar")), NULL },
	  "node3,node4" },
	{ "spread over the zone and the node",
	  { ZONE_A_B },
	  { { 0 } },
	  { FOOBAR("p1", "node1"), FOOBAR("p2", "node2"), FOOBAR("p3", "node3") },
	  { NULL, "both", "{\"foo\":\"bar\"}", NULL,
	    SPREADS(SPREAD(1, "zone", "DoNotSchedule", "foo", "bar") "," SPREAD(
		    1, "kubernetes.io/hostname", "DoNotSchedule", "foo", "bar")),
	    NULL },
	  "node4" },
	{ "spread without self match",
	  { ZONE_A_B },
	  { { 0 } },
	  { FOOBAR("p1", "node1"), FOOBAR("p2", "node2"), FOOBAR("p3", "node3") },
	  { NULL, "other", "{}", NULL, SPREADS(SPREAD(1, "zone", "DoNotSchedule", "foo", "bar")),
	    NULL },
	  "node1,node2,node3,node4" },
	{ "spread minDomains",
	  { ZONE_A_B },
	  { { 0 } },
	  { FOOBAR("p1", "node1"), FOOBAR("p2", "node2"), FOOBAR("p3", "node3") },
	  { NULL, "mindom", "{\"foo\":\"bar\"}", NULL,
	    SPREADS("{\"maxSkew\":1,\"minDomains\":3,\"topologyKey\":\"zone\","
		    "\"whenUnsatisfiable\":\"DoNotSchedule\","
		    "\"labelSelector\":{\"matchLabels\":{\"foo\":\"bar\"}}}"),
	    NULL },
	  "0/5 nodes are unavailable: 1 node(s) didn't match pod topology spread constraints "
	  "(missing required label), 4 node(s) didn't match pod topology spread constraints." },
	/*
	 * matchLabelKeys of a constraint (Kubernetes 1.25+): the documented rollout example spreads
	 * the new revision's pods by themselves; the old revision's two pods in zoneB do not count.
	 */
	{ "spread matchLabelKeys",
	  { ZONE_A_B },
	  { { 0 } },
	  { { NULL, "new", "{\"foo\":\"bar\",\"pod-template-hash\":\"new\"}", NULL, NULL, "node1" },
	    { NULL, "old1", "{\"foo\":\"bar\",\"pod-template-hash\":\"old\"}", NULL, NULL,
	      "node3" },
	    { NULL, "old2", "{\"foo\":\"bar\",\"pod-template-hash\":\"old\"}", NULL, NULL,
	      "node4" } },
	  { NULL, "p", "{\"foo\":\"bar\",\"pod-template-hash\":\"new\"}", NULL,
	    SPREADS("{\"maxSkew\":1,\"topologyKey\":\"zone\",\"whenUnsatisfiable\":\"DoNotSchedule\","
		    "\"labelSelector\":{\"matchLabels\":{\"foo\":\"bar\"}},"
		    "\"matchLabelKeys\":[\"pod-template-hash\"]}"),
	    NULL },
	  "node3,node4" },
	/*
	 * nodeAffinityPolicy: Honor (the default) counts only the domains of the nodes the pod's
	 * nodeSelector admits (zoneC's node3 is not one: the global minimum is 1); Ignore counts
	 * zoneC too (minimum 0), and both admitted nodes would exceed maxSkew.
	 */
	{ "spread nodeAffinityPolicy Honor",
	  { { "node1", "{\"zone\":\"A\",\"disk\":\"ssd\"}" },
	    { "node2", "{\"zone\":\"B\",\"disk\":\"ssd\"}" },
	    { "node3", "{\"zone\":\"C\"}" } },
	  { { 0 } },
	  { FOOBAR("p1", "node1"), FOOBAR("p2", "node2") },
	  { NULL, "p", "{\"foo\":\"bar\"}", NULL,
	    "\"nodeSelector\":{\"disk\":\"ssd\"}," SPREADS(
		    SPREAD(1, "zone", "DoNotSchedule", "foo", "bar")),
	    NULL },
	  "node1,node2" },
	{ "spread nodeAffinityPolicy Ignore",
	  { { "node1", "{\"zone\":\"A\",\"disk\":\"ssd\"}" },
	    { "node2", "{\"zone\":\"B\",\"disk\":\"ssd\"}" },
	    { "node3", "{\"zone\":\"C\"}" } },
	  { { 0 } },
	  { FOOBAR("p1", "node1"), FOOBAR("p2", "node2") },
	  { NULL, "p", "{\"foo\":\"bar\"}", NULL,
	    "\"nodeSelector\":{\"disk\":\"ssd\"}," SPREADS(
		    "{\"maxSkew\":1,\"topologyKey\":\"zone\",\"whenUnsatisfiable\":"
		    "\"DoNotSchedule\",\"nodeAffinityPolicy\":\"Ignore\","
		    "\"labelSelector\":{\"matchLabels\":{\"foo\":\"bar\"}}}"),
	    NULL },
	  "0/3 nodes are unavailable: 1 node(s) didn't match Pod's node affinity/selector, 2 "
	  "node(s) didn't match pod topology spread constraints." },
	/*
	 * nodeTaintsPolicy: Ignore (the default) counts the domain of a node whose taint the pod
	 * does not tolerate (global minimum 0); Honor leaves it out (minimum 1).
	 */
	{ "spread nodeTaintsPolicy Ignore",
	  { { "node1", "{\"zone\":\"A\"}" },
	    { "node2", "{\"zone\":\"B\"}" },
	    { "node3", "{\"zone\":\"C\"}",
	      "{\"taints\":[{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoSchedule\"}]}" } },
	  { { 0 } },
	  { FOOBAR("p1", "node1"), FOOBAR("p2", "node2") },
	  { NULL, "p", "{\"foo\":\"bar\"}", NULL,
	    SPREADS(SPREAD(1, "zone", "DoNotSchedule", "foo", "bar")), NULL },
	  "0/3 nodes are unavailable: 1 node(s) had untolerated taint {k: v}, 2 node(s) didn't "
	  "match pod topology spread constraints." },
	{ "spread nodeTaintsPolicy Honor",
	  { { "node1", "{\"zone\":\"A\"}" },
	    { "node2", "{\"zone\":\"B\"}" },
	    { "node3", "{\"zone\":\"C\"}",
	      "{\"taints\":[{\"key\":\"k\",\"value\":\"v\",\"effect\":\"NoSchedule\"}]}" } },
	  { { 0 } },
	  { FOOBAR("p1", "node1"), FOOBAR("p2", "node2") },
	  { NULL, "p", "{\"foo\":\"bar\"}", NULL,
	    SPREADS("{\"maxSkew\":1,\"topologyKey\":\"zone\",\"whenUnsatisfiable\":"
		    "\"DoNotSchedule\",\"nodeTaintsPolicy\":\"Honor\","
		    "\"labelSelector\":{\"matchLabels\":{\"foo\":\"bar\"}}}"),
	    NULL },
	  "node1,node2" },
};

static void test_filter_cases(void **state)
{
	(void)state;
	run_filter_cases(filter_cases, VC_ARRAY_SIZE(filter_cases));
}

/* ---- required anti-affinity -------------------------------------------------------------------
 */

/*
 * Kubernetes' redis-cache example: replicas with required anti-affinity to their own app label
 * over the hostname go one per node; the replica for which no node is left stays Pending with
 * the anti-affinity reason on every node.
 */
static void test_anti_affinity_one_per_node(void **state)
{
	struct sched_fx f;
	struct sched_job_info *j;
	struct sched_task_info *t[4];
	struct sched_result res;
	char name[32];
	int i;

	(void)state;
	sched_fx_init(&f);
	sched_fx_node(&f, "n1", HOST("n1"));
	sched_fx_node(&f, "n2", HOST("n2"));
	sched_fx_node(&f, "n3", HOST("n3"));
	j = sched_fx_job(&f, "ns", "cache", 1);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "cache-%d", i);
		t[i] = sched_fx_pod(&f, j, name, "{\"app\":\"store\"}",
				    REQ_ANTI(TERM("app", "store", "kubernetes.io/hostname")), NULL);
	}
	sched_fx_place(&f);
	run(&f, conf_allocate, &res);
	assert_int_equal(res.nbinds, 3);
	assert_string_not_equal(bound(&res, t[0]), bound(&res, t[1]));
	assert_string_not_equal(bound(&res, t[0]), bound(&res, t[2]));
	assert_string_not_equal(bound(&res, t[1]), bound(&res, t[2]));
	assert_string_equal(bound(&res, t[3]), "");
	assert_string_equal(condition(&res, t[3]),
			    "0/3 nodes are unavailable: 3 node(s) didn't match pod anti-affinity "
			    "rules.");
	sched_result_release(&res);
	sched_fx_release(&f);
}

/*
 * Symmetry: a pod on n1 with required anti-affinity to app=web keeps app=web pods (of its
 * namespace) off n1, whatever their own terms; pods of the same request and constraints but
 * other labels (one equivalence class) still fit there.
 */
static void test_existing_anti_affinity(void **state)
{
	struct sched_fx f;
	struct sched_job_info *j, *other;
	struct sched_task_info *web, *api, *web_other_ns;
	struct ssn x;

	(void)state;
	sched_fx_init(&f);
	sched_fx_node(&f, "n1", HOST("n1"));
	sched_fx_node(&f, "n2", HOST("n2"));
	j = sched_fx_job(&f, "ns", "j", 1);
	other = sched_fx_job(&f, "other", "j", 1);
	sched_fx_pod(&f, j, "db", "{\"app\":\"db\"}",
		     REQ_ANTI(TERM("app", "web", "kubernetes.io/hostname")), "n1");
	web = sched_fx_pod(&f, j, "web", "{\"app\":\"web\"}", "", NULL);
	api = sched_fx_pod(&f, j, "api", "{\"app\":\"api\"}", "", NULL);
	web_other_ns = sched_fx_pod(&f, other, "web", "{\"app\":\"web\"}", "", NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, conf_preds);
	assert_int_equal(sched_ssn_task_of(&x.s, web)->class_key,
			 sched_ssn_task_of(&x.s, api)->class_key);
	assert_string_equal(search(&x, api), "n1,n2");
	assert_string_equal(search(&x, web), "n2");
	assert_string_equal(search(&x, api), "n1,n2");
	assert_string_equal(search(&x, web_other_ns), "n1,n2");
	close_ssn(&x);
	sched_fx_release(&f);
}

/*
 * Equivalence classes are for tasks a session may place: those pending at the open. Bound pods
 * with the same request and constraints as pending ones get no class (SCHED_NONE); the pending
 * ones share theirs.
 */
static void test_class_keys_pending_only(void **state)
{
	struct sched_fx f;
	struct sched_job_info *j;
	struct sched_task_info *bound_a, *bound_b, *a1, *a2;
	struct ssn x;

	(void)state;
	sched_fx_init(&f);
	sched_fx_node(&f, "n1", HOST("n1"));
	sched_fx_node(&f, "n2", HOST("n2"));
	j = sched_fx_job(&f, "ns", "j", 1);
	bound_a = sched_fx_pod(&f, j, "bound-a", "{\"app\":\"a\"}", "", "n1");
	bound_b = sched_fx_pod(&f, j, "bound-b", "{\"app\":\"b\"}", "", "n2");
	a1 = sched_fx_pod(&f, j, "a1", "{\"app\":\"a\"}", "", NULL);
	a2 = sched_fx_pod(&f, j, "a2", "{\"app\":\"a\"}", "", NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, conf_preds);
	assert_int_equal(sched_ssn_task_of(&x.s, bound_a)->class_key, SCHED_NONE);
	assert_int_equal(sched_ssn_task_of(&x.s, bound_b)->class_key, SCHED_NONE);
	assert_int_not_equal(sched_ssn_task_of(&x.s, a1)->class_key, SCHED_NONE);
	assert_int_equal(sched_ssn_task_of(&x.s, a1)->class_key,
			 sched_ssn_task_of(&x.s, a2)->class_key);
	assert_string_equal(search(&x, a1), "n1,n2");
	close_ssn(&x);
	sched_fx_release(&f);
}

/*
 * Volcano's ssh-plugin scenario: a gang whose members have required affinity to each other over
 * the hostname. No pod matches anywhere, so the first member may go to any node (Kubernetes'
 * rule for the first pod of a self-affine group); the others follow it to the same node.
 */
static void test_self_affinity_gang(void **state)
{
	struct sched_fx f;
	struct sched_job_info *j;
	struct sched_task_info *t[3];
	struct sched_result res;
	char name[32];
	int i;

	(void)state;
	sched_fx_init(&f);
	sched_fx_node(&f, "n1", HOST("n1"));
	sched_fx_node(&f, "n2", HOST("n2"));
	sched_fx_node(&f, "n3", HOST("n3"));
	j = sched_fx_job(&f, "ns", "mpi", 3);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "mpi-%d", i);
		t[i] = sched_fx_pod(&f, j, name, "{\"job\":\"mpi\"}",
				    REQ_AFF(TERM("job", "mpi", "kubernetes.io/hostname")), NULL);
	}
	sched_fx_place(&f);
	run(&f, conf_allocate, &res);
	assert_int_equal(res.nbinds, 3);
	assert_string_not_equal(bound(&res, t[0]), "");
	assert_string_equal(bound(&res, t[0]), bound(&res, t[1]));
	assert_string_equal(bound(&res, t[0]), bound(&res, t[2]));
	sched_result_release(&res);
	sched_fx_release(&f);
}

/*
 * The statement's events keep the index: a pod allocated in the session counts for the next
 * one, and stops counting when the allocation is discarded; a pod evicted in the session no
 * longer counts.
 */
static void test_statement_updates(void **state)
{
	struct sched_fx f;
	struct sched_job_info *j;
	struct sched_task_info *a, *b, *old;
	struct sched_stmt stmt;
	struct ssn x;

	(void)state;
	sched_fx_init(&f);
	sched_fx_node(&f, "n1", HOST("n1"));
	sched_fx_node(&f, "n2", HOST("n2"));
	j = sched_fx_job(&f, "ns", "j", 1);
#define ANTI_APP REQ_ANTI(TERM("app", "a", "kubernetes.io/hostname"))
	old = sched_fx_pod(&f, j, "old", "{\"app\":\"a\"}", ANTI_APP, "n2");
	a = sched_fx_pod(&f, j, "a", "{\"app\":\"a\"}", ANTI_APP, NULL);
	b = sched_fx_pod(&f, j, "b", "{\"app\":\"a\"}", ANTI_APP, NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, conf_preds);
	sched_stmt_init(&stmt);
	assert_string_equal(search(&x, b), "n1");
	assert_int_equal(sched_stmt_allocate(&x.s, &stmt, sched_ssn_task_of(&x.s, a), 0), 0);
	assert_string_equal(search(&x, b),
			    "0/2 nodes are unavailable: 2 node(s) didn't match pod anti-affinity "
			    "rules.");
	sched_stmt_discard(&x.s, &stmt);
	assert_string_equal(search(&x, b), "n1");
	assert_int_equal(sched_stmt_evict(&x.s, &stmt, sched_ssn_task_of(&x.s, old), "preempt"), 0);
	assert_string_equal(search(&x, b), "n1,n2");
	sched_stmt_discard(&x.s, &stmt);
	assert_string_equal(search(&x, b), "n1");
	sched_stmt_release(&stmt);
	close_ssn(&x);
	sched_fx_release(&f);
#undef ANTI_APP
}

/* A cluster without inter-pod terms has no index, and the plugins register nothing for it. */
static void test_no_terms_no_cost(void **state)
{
	struct sched_fx f;
	struct sched_job_info *j;
	struct ssn x;

	(void)state;
	sched_fx_init(&f);
	sched_fx_node(&f, "n1", HOST("n1"));
	j = sched_fx_job(&f, "ns", "j", 1);
	sched_fx_pod(&f, j, "a", "{\"app\":\"a\"}", "", NULL);
	sched_fx_pod(&f, j, "b", "{\"app\":\"a\"}", "", "n1");
	sched_fx_place(&f);
	open_ssn(&x, &f, conf_allocate);
	assert_null(sched_ssn_podaff(&x.s));
	assert_int_equal(x.s.priv->npred_pods, 0);
	assert_int_equal(x.s.priv->nbatch, 0);
	close_ssn(&x);
	sched_fx_release(&f);
}

/* A zone spread with maxSkew 1 over a gang: the members alternate between the zones. */
static void test_spread_gang(void **state)
{
	struct sched_fx f;
	struct sched_job_info *j;
	struct sched_task_info *t[4];
	struct sched_result res;
	char name[32];
	int i, a = 0;

	(void)state;
	sched_fx_init(&f);
	sched_fx_node(&f, "a1", ZONE("a", "a1"));
	sched_fx_node(&f, "a2", ZONE("a", "a2"));
	sched_fx_node(&f, "a3", ZONE("a", "a3"));
	sched_fx_node(&f, "b1", ZONE("b", "b1"));
	j = sched_fx_job(&f, "ns", "spread", 4);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "s-%d", i);
		t[i] = sched_fx_pod(&f, j, name, "{\"app\":\"s\"}",
				    "\"topologySpreadConstraints\":[" SPREAD(
					    1, "zone", "DoNotSchedule", "app", "s") "]",
				    NULL);
	}
	sched_fx_place(&f);
	run(&f, conf_allocate, &res);
	assert_int_equal(res.nbinds, 4);
	for (i = 0; i < 4; i++)
		a += bound(&res, t[i])[0] == 'a';
	assert_int_equal(a, 2);
	sched_result_release(&res);
	sched_fx_release(&f);
}

/*
 * The per-role predicate error cache (docs/volcano/scheduler.md §3.2.1) does not keep the spread
 * filter's failures: zone a starts with one matching pod, so the first member fails a and goes
 * to b, the second also prefers b (a is fuller), and the third only fits a, which is fine again.
 */
static void test_spread_not_cached(void **state)
{
	struct sched_fx f;
	struct sched_job_info *j, *other;
	struct sched_task_info *t[3];
	struct sched_result res;
	char name[32];
	int i;

	(void)state;
	sched_fx_init(&f);
	sched_fx_node(&f, "a1", ZONE("a", "a1"));
	sched_fx_node(&f, "b1", ZONE("b", "b1"));
	other = sched_fx_job(&f, "ns", "other", 1);
	sched_fx_pod(&f, other, "old", "{\"app\":\"s\"}", "", "a1");
	sched_fx_pod(&f, other, "filler", "{}", "", "a1");
	j = sched_fx_job(&f, "ns", "spread", 3);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "s-%d", i);
		t[i] = sched_fx_pod(&f, j, name, "{\"app\":\"s\",\"volcano.sh/task-spec\":\"w\"}",
				    "\"topologySpreadConstraints\":[" SPREAD(
					    1, "zone", "DoNotSchedule", "app", "s") "]",
				    NULL);
	}
	sched_fx_place(&f);
	assert_string_equal(t[0]->role, "w");
	run(&f, conf_allocate, &res);
	assert_int_equal(res.nbinds, 3);
	assert_string_equal(bound(&res, t[0]), "b1");
	assert_string_equal(bound(&res, t[1]), "b1");
	assert_string_equal(bound(&res, t[2]), "a1");
	sched_result_release(&res);
	sched_fx_release(&f);
}

/* ---- scores -----------------------------------------------------------------------------------
 */

/* nodeorder's batch score of t over every node into out (zeroed first). */
static void batch(struct ssn *x, const struct sched_task_info *t, double *out)
{
	uint32_t nodes[SCHED_FX_MAX];
	size_t i;

	assert_int_equal(x->s.priv->nbatch, 1);
	for (i = 0; i < x->s.nnodes; i++) {
		nodes[i] = (uint32_t)i;
		out[i] = 0;
	}
	sched_ssn_batch_scores(&x->s, t->ssn, nodes, x->s.nnodes, out);
}

#define PREF(kind, w, expr, key)                                                                 \
	"{\"weight\":" #w ",\"podAffinityTerm\":{\"labelSelector\":{\"matchExpressions\":[" expr \
	"]},\"topologyKey\":\"" key "\"}}"
#define IN_S(v) "{\"key\":\"security\",\"operator\":\"In\",\"values\":[\"" v "\"]}"
#define STAY_S1                                                                        \
	"\"podAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[" PREF( \
		a, 8, IN_S("S1"), "region") "]}"
#define AWAY_S2                                                                            \
	"\"podAntiAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[" PREF( \
		a, 5, IN_S("S2"), "az") "]}"
#define AWAY_S1                                                                            \
	"\"podAntiAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[" PREF( \
		a, 5, IN_S("S1"), "az") "]}"
#define NO_AFFW1                                                                   \
	"actions: \"\"\ntiers:\n- plugins:\n  - name: nodeorder\n    arguments:\n" \
	"      leastrequested.weight: 0\n      balancedresource.weight: 0\n"
#define CONF_AFF1 NO_AFFW1 "      podaffinity.weight: 1\n"

/*
 * InterPodAffinity's preferred terms, normalised over the nodes (Kubernetes' TestPreferredAffinity
 * cases "different Label operators and values ..." and "Affinity and Anti Affinity and
 * symmetry"), times podaffinity.weight.
 */
static void test_preferred_affinity_scores(void **state)
{
	struct sched_fx f;
	struct sched_job_info *j;
	struct sched_task_info *t;
	struct ssn x;
	double s[SCHED_FX_MAX];

	(void)state;
	/* Weights 8 (NotIn S1, In S2) and 2 (security exists, wrongkey absent) over the region. */
	sched_fx_init(&f);
	sched_fx_node(&f, "m1", "{\"region\":\"China\"}");
	sched_fx_node(&f, "m2", "{\"region\":\"India\"}");
	sched_fx_node(&f, "m3", "{\"az\":\"az1\"}");
	j = sched_fx_job(&f, "ns", "j", 1);
	sched_fx_pod(&f, j, "e1", "{\"security\":\"S1\"}", "", "m1");
	sched_fx_pod(&f, j, "e2", "{\"security\":\"S2\"}", "", "m2");
	sched_fx_pod(&f, j, "e3", "{\"security\":\"S1\"}", "", "m3");
	t = sched_fx_pod(
		&f, j, "p", "{\"security\":\"S1\"}",
		"\"affinity\":{\"podAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":["
		"{\"weight\":8,\"podAffinityTerm\":{\"labelSelector\":{\"matchExpressions\":["
		"{\"key\":\"security\",\"operator\":\"NotIn\",\"values\":[\"S1\"]},"
		"{\"key\":\"security\",\"operator\":\"In\",\"values\":[\"S2\"]}]},"
		"\"topologyKey\":\"region\"}},"
		"{\"weight\":2,\"podAffinityTerm\":{\"labelSelector\":{\"matchExpressions\":["
		"{\"key\":\"security\",\"operator\":\"Exists\"},"
		"{\"key\":\"wrongkey\",\"operator\":\"DoesNotExist\"}]},"
		"\"topologyKey\":\"region\"}}]}}",
		NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, CONF_AFF1);
	batch(&x, t, s);
	assert_true(s[0] == 20 && s[1] == 100 && s[2] == 0);
	close_ssn(&x);
	/* The default weight is 2 (docs/volcano/scheduler.md §4.8). */
	open_ssn(&x, &f, NO_AFFW1);
	batch(&x, t, s);
	assert_true(s[0] == 40 && s[1] == 200 && s[2] == 0);
	close_ssn(&x);
	sched_fx_release(&f);

	/* Affinity 8, anti-affinity −5, and the same from existing pods' terms (symmetry). */
	sched_fx_init(&f);
	sched_fx_node(&f, "m1", "{\"region\":\"China\"}");
	sched_fx_node(&f, "m2", "{\"az\":\"az1\"}");
	sched_fx_node(&f, "m3", "{\"region\":\"India\"}");
	sched_fx_node(&f, "m4", "{\"az\":\"az2\"}");
	j = sched_fx_job(&f, "ns", "j", 1);
	sched_fx_pod(&f, j, "e1", "{\"security\":\"S1\"}", "", "m1");
	sched_fx_pod(&f, j, "e2", "{\"security\":\"S2\"}", "", "m2");
	sched_fx_pod(&f, j, "e3", "{}", "\"affinity\":{" STAY_S1 "," AWAY_S2 "}", "m3");
	sched_fx_pod(&f, j, "e4", "{}", "\"affinity\":{" AWAY_S1 "}", "m4");
	t = sched_fx_pod(&f, j, "p", "{\"security\":\"S1\"}",
			 "\"affinity\":{" STAY_S1 "," AWAY_S2 "}", NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, CONF_AFF1);
	batch(&x, t, s);
	assert_true(s[0] == 100 && s[1] == 0 && s[2] == 100 && s[3] == 0);
	close_ssn(&x);
	sched_fx_release(&f);
}

#define CONF_SPREAD1 NO_AFFW1 "      podaffinity.weight: 0\n      podtopologyspread.weight: 1\n"

/*
 * PodTopologySpread's ScheduleAnyway score (Kubernetes' "one constraint on node, all 4 nodes are
 * candidates" and "one constraint on zone, 3 out of 4 nodes are candidates"), with the rounding of
 * Kubernetes 1.25 that Volcano v1.7 runs: raw scores 4, 2, 0, 5 give 20, 60, 100, 0.
 */
static void test_spread_scores(void **state)
{
	struct sched_fx f;
	struct sched_job_info *j;
	struct sched_task_info *t;
	struct ssn x;
	double s[SCHED_FX_MAX];
	uint32_t cands[3] = { 0, 1, 2 };
	static const char *const hosts[] = { "node-a", "node-a", "node-b",
					     "node-d", "node-d", "node-d" };
	char name[32];
	size_t i;

	(void)state;
	sched_fx_init(&f);
	sched_fx_node(&f, "node-a", HOST("node-a"));
	sched_fx_node(&f, "node-b", HOST("node-b"));
	sched_fx_node(&f, "node-c", HOST("node-c"));
	sched_fx_node(&f, "node-d", HOST("node-d"));
	j = sched_fx_job(&f, "ns", "j", 1);
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "e%zu", i);
		sched_fx_pod(&f, j, name, "{\"foo\":\"\"}", "", hosts[i]);
	}
	t = sched_fx_pod(&f, j, "p", "{\"foo\":\"\"}",
			 "\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":"
			 "\"kubernetes.io/hostname\",\"whenUnsatisfiable\":\"ScheduleAnyway\","
			 "\"labelSelector\":{\"matchExpressions\":[{\"key\":\"foo\",\"operator\":"
			 "\"Exists\"}]}}]",
			 NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, CONF_SPREAD1);
	batch(&x, t, s);
	assert_true(s[0] == 20 && s[1] == 60 && s[2] == 100 && s[3] == 0);
	/* ScheduleAnyway never filters. */
	assert_int_equal(x.s.priv->npred_pods, 0);
	close_ssn(&x);
	sched_fx_release(&f);

	/* Zones: zone1 holds 6 matching pods, zone2 4 (3 on node-y, not a candidate). */
	sched_fx_init(&f);
	sched_fx_node(&f, "node-a", ZONE("zone1", "node-a"));
	sched_fx_node(&f, "node-b", ZONE("zone1", "node-b"));
	sched_fx_node(&f, "node-x", ZONE("zone2", "node-x"));
	sched_fx_node(&f, "node-y", ZONE("zone2", "node-y"));
	j = sched_fx_job(&f, "ns", "j", 1);
	{
		static const char *const at[] = {
			"node-a", "node-a", "node-a", "node-a", "node-b",
			"node-b", "node-x", "node-y", "node-y", "node-y"
		};

		for (i = 0; i < 10; i++) {
			snprintf(name, sizeof(name), "e%zu", i);
			sched_fx_pod(&f, j, name, "{\"foo\":\"\"}", "", at[i]);
		}
	}
	/* In another namespace: does not count. */
	sched_fx_pod(&f, sched_fx_job(&f, "other", "j", 1), "x", "{\"foo\":\"\"}", "", "node-x");
	t = sched_fx_pod(&f, j, "p", "{\"foo\":\"\"}",
			 "\"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"zone\","
			 "\"whenUnsatisfiable\":\"ScheduleAnyway\",\"labelSelector\":"
			 "{\"matchExpressions\":[{\"key\":\"foo\",\"operator\":\"Exists\"}]}}]",
			 NULL);
	sched_fx_place(&f);
	open_ssn(&x, &f, CONF_SPREAD1);
	for (i = 0; i < 3; i++)
		s[i] = 0;
	sched_ssn_batch_scores(&x.s, t->ssn, cands, 3, s);
	assert_true(s[0] == 75 && s[1] == 75 && s[2] == 100);
	close_ssn(&x);
	sched_fx_release(&f);
}

#define SVC(ns, name, sel)                                         \
	"{\"metadata\":{\"namespace\":\"" ns "\",\"name\":\"" name \
	"\"},\"spec\":{\"selector\":" sel "}}"
#define OWNER(api, kind, name)                                                                    \
	"\"ownerReferences\":[{\"apiVersion\":\"" api "\",\"kind\":\"" kind "\",\"name\":\"" name \
	"\",\"uid\":\"u\",\"controller\":true}]"

/*
 * The cluster of the default spread cases: zone a holds n1 (2 app=web pods) and n2 (1), zone b
 * n3 (none), n4 has no zone label; the pending web pod has the given metadata and no
 * constraints. Sets *t and opens x with objs.
 */
static void default_spread_open(struct sched_fx *f, struct ssn *x, struct sched_objects *objs,
				const char *meta, struct sched_task_info **t)
{
	sched_fx_init(f);
	/* The default constraints' zone key is the well-known one. */
	sched_fx_node(f, "n1", KZONE("a", "n1"));
	sched_fx_node(f, "n2", KZONE("a", "n2"));
	sched_fx_node(f, "n3", KZONE("b", "n3"));
	sched_fx_node(f, "n4", HOST("n4"));
	sched_fx_pod(f, job_in(f, "ns"), "w1", "{\"app\":\"web\"}", "", "n1");
	sched_fx_pod(f, job_in(f, "ns"), "w2", "{\"app\":\"web\"}", "", "n1");
	sched_fx_pod(f, job_in(f, "ns"), "w3", "{\"app\":\"web\"}", "", "n2");
	*t = sched_fx_pod_meta(f, job_in(f, "ns"), "p", "{\"app\":\"web\",\"v\":\"1\"}", meta, "",
			       NULL);
	sched_fx_place(f);
	f->snap.objs = objs;
	open_ssn(x, f, CONF_SPREAD1);
}

/*
 * Kubernetes' system default spread constraints (PodTopologySpread's defaultingType System,
 * which Volcano v1.7's predicates and nodeorder pass, docs/volcano/scheduler.md §4.8): a pod
 * without constraints of its own is spread ScheduleAnyway, maxSkew 3 over the hostname and 5
 * over topology.kubernetes.io/zone, among the pods the selector of its Services and controller
 * selects. A node without the zone label is still scored (by hostname; its missing zone counts as
 * one more domain in the zone's weight): raw scores 14, 13, 6, 2 give 14, 21, 71, 100. Without a
 * selecting Service or a ReplicationController, ReplicaSet or StatefulSet (a Volcano Job's pod),
 * there is no constraint and no index. The defaults never filter.
 */
static void test_default_spread_scores(void **state)
{
	static const char *const svc[] = { SVC("ns", "web", "{\"app\":\"web\"}"),
					   SVC("other", "all", "{\"v\":\"1\"}"), NULL };
	static const char *const svc_other[] = { SVC("ns", "db", "{\"app\":\"db\"}"),
						 SVC("ns", "nil", "null"), NULL };
	static const char *const rs[] = {
		"{\"metadata\":{\"namespace\":\"ns\",\"name\":\"web-1\"},\"spec\":{\"selector\":"
		"{\"matchExpressions\":[{\"key\":\"app\",\"operator\":\"In\",\"values\":[\"web\"]}]}}}",
		NULL
	};
	static const char *const rc[] = {
		"{\"metadata\":{\"namespace\":\"ns\",\"name\":\"web-rc\"},\"spec\":{\"selector\":"
		"{\"app\":\"web\"}}}",
		NULL
	};
	static const char *const none[] = { NULL };
	struct sched_objects objs = { 0 };
	struct sched_task_info *t;
	struct sched_fx f;
	struct ssn x;
	double s[SCHED_FX_MAX];

	(void)state;
	/* A Service selects the pod. */
	objs.services = cache_of(svc);
	default_spread_open(&f, &x, &objs, "", &t);
	batch(&x, t, s);
	assert_true(s[0] == 14 && s[1] == 21 && s[2] == 71 && s[3] == 100);
	assert_int_equal(x.s.priv->npred_pods, 0);
	close_ssn(&x);
	sched_fx_release(&f);
	objects_release(&objs);

	/* Its ReplicaSet (requirements added) or ReplicationController (selector merged). */
	objs.replicasets = cache_of(rs);
	default_spread_open(&f, &x, &objs, OWNER("apps/v1", "ReplicaSet", "web-1"), &t);
	batch(&x, t, s);
	assert_true(s[0] == 14 && s[1] == 21 && s[2] == 71 && s[3] == 100);
	close_ssn(&x);
	sched_fx_release(&f);
	objects_release(&objs);
	objs.rcs = cache_of(rc);
	default_spread_open(&f, &x, &objs, OWNER("v1", "ReplicationController", "web-rc"), &t);
	batch(&x, t, s);
	assert_true(s[0] == 14 && s[1] == 21 && s[2] == 71 && s[3] == 100);
	close_ssn(&x);
	sched_fx_release(&f);
	objects_release(&objs);

	/* Services that do not select it, a Volcano Job owner, no objects at all: nothing. */
	objs.services = cache_of(svc_other);
	objs.replicasets = cache_of(rs);
	default_spread_open(&f, &x, &objs, OWNER("batch.volcano.sh/v1alpha1", "Job", "web-1"), &t);
	assert_null(sched_ssn_podaff(&x.s));
	assert_int_equal(x.s.priv->nbatch, 0);
	close_ssn(&x);
	sched_fx_release(&f);
	objects_release(&objs);
	objs.services = cache_of(none);
	default_spread_open(&f, &x, NULL, "", &t);
	assert_null(sched_ssn_podaff(&x.s));
	close_ssn(&x);
	sched_fx_release(&f);
}

/*
 * The batch scores decide in the allocate action: least-requested prefers the emptier nodes, but
 * a preferred affinity (weight 100) to the db pod takes the pod to db's node, and a ScheduleAnyway
 * spread takes the next pod away from n1, the emptiest node, which has one of its kind.
 */
static void test_scores_in_allocate(void **state)
{
	struct sched_fx f;
	struct sched_job_info *j, *old;
	struct sched_task_info *near_db, *spread;
	struct sched_result res;

	(void)state;
	sched_fx_init(&f);
	sched_fx_node(&f, "n1", HOST("n1"));
	sched_fx_node(&f, "n2", HOST("n2"));
	sched_fx_node(&f, "n3", HOST("n3"));
	old = sched_fx_job(&f, "ns", "old", 1);
	sched_fx_pod(&f, old, "db", "{\"app\":\"db\"}", "", "n2");
	sched_fx_pod(&f, old, "w1", "{\"app\":\"w\"}", "", "n1");
	sched_fx_pod(&f, old, "x1", "{}", "", "n3");
	sched_fx_pod(&f, old, "x2", "{}", "", "n3");
	sched_fx_pod(&f, old, "x3", "{}", "", "n3");
	j = sched_fx_job(&f, "ns", "near", 1);
	near_db = sched_fx_pod(
		&f, j, "near", "{}",
		"\"affinity\":{\"podAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":"
		"[{\"weight\":100,\"podAffinityTerm\":" TERM("app", "db",
							     "kubernetes.io/hostname") "}]}}",
		NULL);
	j = sched_fx_job(&f, "ns", "spread", 1);
	spread =
		sched_fx_pod(&f, j, "w3", "{\"app\":\"w\"}",
			     "\"topologySpreadConstraints\":[" SPREAD(
				     1, "kubernetes.io/hostname", "ScheduleAnyway", "app", "w") "]",
			     NULL);
	sched_fx_place(&f);
	run(&f, conf_allocate, &res);
	assert_string_equal(bound(&res, near_db), "n2");
	assert_string_not_equal(bound(&res, spread), "n1");
	assert_string_not_equal(bound(&res, spread), "");
	sched_result_release(&res);
	sched_fx_release(&f);
}

/* Out of memory anywhere while the session builds the index: an error, nothing leaks. */
static void test_alloc_failures(void **state)
{
	static const char *const nss[] = {
		"{\"metadata\":{\"name\":\"ns\",\"labels\":{\"env\":\"prod\"}}}", NULL
	};
	static const char *const svcs[] = { SVC("ns", "web", "{\"app\":\"web\"}"), NULL };
	struct sched_objects objs = { 0 };
	struct sched_fx f;
	struct sched_job_info *j;
	struct sched_conf c;
	struct sched_result res;
	struct sched_session ssn;
	struct vc_error err;
	int n, rc = VC_ENOMEM;

	(void)state;
	sched_fx_init(&f);
	sched_fx_node(&f, "a1", ZONE("a", "a1"));
	sched_fx_node(&f, "b1", ZONE("b", "b1"));
	j = sched_fx_job(&f, "ns", "j", 1);
	sched_fx_pod(&f, j, "old", "{\"app\":\"s\"}",
		     REQ_ANTI(TERM("app", "s", "kubernetes.io/hostname")), "a1");
	sched_fx_pod(&f, j, "new", "{\"app\":\"s\"}",
		     "\"topologySpreadConstraints\":[" SPREAD(
			     1, "zone", "ScheduleAnyway", "app",
			     "s") "]," REQ_AFF(TERM("app", "s", "zone")),
		     NULL);
	/* A namespaceSelector, matchLabelKeys, and a pod with the default constraints. */
	sched_fx_pod(&f, j, "sel", "{\"app\":\"s\"}",
		     REQ_ANTI(DB_TERM("\"namespaceSelector\":{\"matchLabels\":{\"env\":\"prod\"}},"
				      "\"matchLabelKeys\":[\"app\"],")),
		     NULL);
	sched_fx_pod(&f, j, "web", "{\"app\":\"web\"}", "", NULL);
	sched_fx_place(&f);
	objs.namespaces = cache_of(nss);
	objs.services = cache_of(svcs);
	f.snap.objs = &objs;
	assert_int_equal(sched_conf_parse(conf_allocate, strlen(conf_allocate), &c, &err), 0);
	for (n = 0; n < 2000; n++) {
		vc_alloc_fail_after(n);
		rc = sched_session_begin(&ssn, &c, &f.snap, "uid", "2026-01-01T00:00:00Z", 1, &res,
					 &err);
		vc_alloc_fail_reset();
		if (rc == 0) {
			assert_non_null(sched_ssn_podaff(&ssn));
			sched_session_end(&ssn);
			sched_result_release(&res);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
	}
	assert_int_equal(rc, 0);
	assert_true(n > 10);
	sched_conf_release(&c);
	sched_fx_release(&f);
	objects_release(&objs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anti_affinity_one_per_node),
		cmocka_unit_test(test_existing_anti_affinity),
		cmocka_unit_test(test_class_keys_pending_only),
		cmocka_unit_test(test_filter_cases),
		cmocka_unit_test(test_self_affinity_gang),
		cmocka_unit_test(test_statement_updates),
		cmocka_unit_test(test_no_terms_no_cost),
		cmocka_unit_test(test_spread_gang),
		cmocka_unit_test(test_spread_not_cached),
		cmocka_unit_test(test_preferred_affinity_scores),
		cmocka_unit_test(test_spread_scores),
		cmocka_unit_test(test_default_spread_scores),
		cmocka_unit_test(test_scores_in_allocate),
		cmocka_unit_test(test_alloc_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
