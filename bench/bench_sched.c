/*
 * bench_sched - time one scheduling cycle (sched_session_run) in process, on snapshots built in
 * code: no API server, no informers, no binder.
 *
 *   bench_sched [--nodes N] [--workload a|b|both|c|s] [--conf default|binpack|both] [--reps R]
 *               [--pods-a P] [--groups-b G] [--size-b S] [--pods-s P] [--settled T]
 *               [--seed S] [--reference 0|1]
 *               [--dump FILE] [--mix K]
 *
 * Nodes: N (5,000) of 4 CPU, 32 Gi, 110 pods, like Kubernetes' scheduler_perf SchedulingBasic.
 * Workload a: P (10,000) one-pod PodGroups, minMember 1, pods 100m / 500Mi.
 * Workload b: G (100) PodGroups of S (100) such pods, minMember S.
 * Workload c (only when asked for): b's shape with pods whose terms constrain placement: each
 * group's pods have required anti-affinity to each other over the hostname and a maxSkew 1
 * DoNotSchedule spread over 10 zones (nodes are labelled with both); run next to "c-no-terms",
 * the same pods and labels without the terms, and "c-default", the same pods without terms but
 * each group selected by a Service (app=<group>): Kubernetes' system default spread constraints
 * (ScheduleAnyway, hostname and zone) then score them.
 * Every PodGroup is Pending in queue "default", so the cycle runs enqueue, allocate and
 * backfill as a first cycle after the pods were created would.
 * Workload s (only when asked for): the stream after a long run, T (10,000) one-pod PodGroups
 * settled (Running, their pod Running on node i mod N) and P (100, --pods-s) new pending
 * one-pod PodGroups: what a cycle costs when little has changed (--settled T).
 *
 * For each workload and configuration, R times (5): build a fresh snapshot (timed: the
 * baseline of work every cycle needs anyway), run one cycle (timed, wall and CPU), release.
 * Then two reference loops on the same snapshot shape, no plugins: first fit (each pod takes
 * the first node with room) and a full scan (each pod scores every node by least-requested and
 * takes the best: the O(pods × nodes) work a scheduler without sampling does). Prints one line
 * per measurement with medians; bench/bench_sched.sh adds the machine and the floors.
 *
 * --dump FILE writes every decision of the first repetition of each row as text; --mix K runs
 * K seeded mixed scenarios (run_mix) instead of the timed workloads. Two builds of the
 * scheduler make the same decisions when their dumps are identical (bench/README.md).
 */
#include "vc_prelude.h"

#include <time.h>

#include "scheduler/sched_conf.h"
#include "scheduler/sched_session.h"
#include "vc_alloc.h"
#include "vc_cache.h"
#include "vc_log.h"
#include "vc_model.h"
#include "vc_time.h"

#define MIB (1024.0 * 1024)
#define GIB (1024.0 * MIB)

struct opts {
	const char *dump; /* --dump FILE: the decisions of every cycle, for comparing builds */
	long mix;	  /* --mix K: K seeded mixed scenarios instead of the timed workloads */
	long nodes;
	long pods_a;
	long groups_b;
	long size_b;
	long pods_s;
	int reps;
	bool run_a, run_b, run_c, run_s;
	bool conf_default, conf_binpack;
	bool reference;
	uint64_t seed;
};

static const char binpack_conf[] =
	"actions: \"" SCHED_CONF_DEFAULT_ACTIONS "\"\n"
	"configurations: []\n" SCHED_CONF_DEFAULT_TIERS_YAML "  - name: binpack\n";

/* Volcano's built-in default, for when sched_conf_default is not usable (see main). */
static const char default_conf[] = "actions: \"" SCHED_CONF_DEFAULT_ACTIONS "\"\n"
				   "configurations: []\n" SCHED_CONF_DEFAULT_TIERS_YAML;

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_sched: %s failed (%d)\n", what, rc);
	exit(1);
}

static void node_resource(struct vc_resource *r)
{
	vc_resource_init(r);
	r->milli_cpu = 4000;
	r->memory = 32 * GIB;
	r->max_task_num = 110;
	if (vc_resource_set_scalar(r, "pods", 110) != 0)
		die("vc_resource_set_scalar", VC_ENOMEM);
}

static void pod_resource(struct vc_resource *r)
{
	vc_resource_init(r);
	r->milli_cpu = 100;
	r->memory = 500 * MIB;
}

/*
 * Workload c's pods and node labels (kept while its snapshot lives): nodes labelled with their
 * hostname and one of C_ZONES zones; one pod view per PodGroup, shared by its tasks, labelled
 * app=<group> and, with terms, required anti-affinity to its own group over the hostname and a
 * maxSkew 1 DoNotSchedule spread of its group over the zones.
 */
#define C_ZONES 10

enum workload_kind {
	PLAIN,	     /* tasks without pods, nodes without labels (workloads a and b) */
	LABELLED,    /* workload c without its terms: the same pods and labels */
	CONSTRAINED, /* workload c */
	DEFAULTED,   /* LABELLED, each group selected by a Service: the default spread */
};

static struct {
	json_t **node_labels;
	long nnodes;
	json_t **pod_objs;
	struct vc_pod *views;
	long ngroups;
	struct sched_objects objs; /* DEFAULTED: the Services */
} lab;

static void labelled_release(void)
{
	long i;

	for (i = 0; i < lab.ngroups; i++) {
		vc_pod_view_release(&lab.views[i]);
		json_decref(lab.pod_objs[i]);
	}
	for (i = 0; i < lab.nnodes; i++)
		json_decref(lab.node_labels[i]);
	free(lab.node_labels);
	free(lab.pod_objs);
	free(lab.views);
	vc_cache_free(lab.objs.services);
	memset(&lab, 0, sizeof(lab));
}

static json_t *node_labels(long i)
{
	char host[32], zone[32];

	snprintf(host, sizeof(host), "node-%ld", i);
	snprintf(zone, sizeof(zone), "zone-%ld", i % C_ZONES);
	return json_pack("{s:s, s:s}", "kubernetes.io/hostname", host,
			 "topology.kubernetes.io/zone", zone);
}

static const struct vc_pod *group_pod(long i, bool terms)
{
	char name[64];
	json_t *spec, *obj;
	int rc;

	snprintf(name, sizeof(name), "pg-%ld", i);
	spec = json_pack("{s:s, s:[{s:s, s:s, s:{s:{s:s, s:s}}}]}", "schedulerName", "volcano",
			 "containers", "name", "main", "image", "x", "resources", "requests", "cpu",
			 "100m", "memory", "500Mi");
	if (spec && terms &&
	    (json_object_set_new(spec, "affinity",
				 json_pack("{s:{s:[{s:{s:{s:s}}, s:s}]}}", "podAntiAffinity",
					   "requiredDuringSchedulingIgnoredDuringExecution",
					   "labelSelector", "matchLabels", "app", name,
					   "topologyKey", "kubernetes.io/hostname")) ||
	     json_object_set_new(spec, "topologySpreadConstraints",
				 json_pack("[{s:i, s:s, s:s, s:{s:{s:s}}}]", "maxSkew", 1,
					   "topologyKey", "topology.kubernetes.io/zone",
					   "whenUnsatisfiable", "DoNotSchedule", "labelSelector",
					   "matchLabels", "app", name))))
		die("json_pack", VC_ENOMEM);
	obj = json_pack("{s:{s:s, s:s, s:s, s:{s:s}}, s:o, s:{s:s}}", "metadata", "name", name,
			"namespace", "bench", "uid", name, "labels", "app", name, "spec", spec,
			"status", "phase", "Pending");
	if (!obj)
		die("json_pack", VC_ENOMEM);
	lab.pod_objs[i] = obj;
	if ((rc = vc_pod_view(obj, &lab.views[i], NULL)) != 0)
		die("vc_pod_view", rc);
	lab.ngroups = i + 1;
	return &lab.views[i];
}

/* Workload s: the first settled groups of a build are Running on node i mod nodes. */
static long settled;

/* groups PodGroups of size pods each, minMember min. */
static void build(struct sched_snapshot *s, long nodes, long groups, long size, int32_t min,
		  enum workload_kind kind)
{
	struct vc_resource nr, pr;
	struct sched_queue_info *q;
	const struct vc_pod *pod;
	long i, k;
	int rc;

	node_resource(&nr);
	pod_resource(&pr);
	if ((rc = sched_snapshot_init(s)) != 0)
		die("sched_snapshot_init", rc);
	q = vc_malloc(sizeof(*q));
	if (!q || (rc = sched_queue_init(q, "default", 1)) != 0 ||
	    (rc = sched_snapshot_add_queue(s, q)) != 0)
		die("queue", rc);
	if (kind != PLAIN) {
		lab.node_labels = calloc((size_t)nodes, sizeof(json_t *));
		lab.pod_objs = calloc((size_t)groups, sizeof(json_t *));
		lab.views = calloc((size_t)groups, sizeof(struct vc_pod));
		if (!lab.node_labels || !lab.pod_objs || !lab.views)
			die("calloc", VC_ENOMEM);
	}
	for (i = 0; i < nodes; i++) {
		struct sched_node_info *n = vc_malloc(sizeof(*n));
		char name[32];

		snprintf(name, sizeof(name), "node-%ld", i);
		if (!n || (rc = sched_node_init(n, name, &nr)) != 0 ||
		    (rc = sched_snapshot_add_node(s, n)) != 0)
			die("node", rc);
		if (kind != PLAIN) {
			if (!(lab.node_labels[i] = node_labels(i)))
				die("json_pack", VC_ENOMEM);
			lab.nnodes = i + 1;
			n->labels = lab.node_labels[i];
		}
	}
	for (i = 0; i < groups; i++) {
		struct sched_job_info *j = vc_malloc(sizeof(*j));
		char name[64];

		snprintf(name, sizeof(name), "pg-%ld", i);
		if (!j || (rc = sched_job_init(j, "bench", name, "default", min)) != 0)
			die("job", rc);
		j->phase = i < settled ? VC_PG_RUNNING : VC_PG_PENDING;
		pod = kind == PLAIN ? NULL : group_pod(i, kind == CONSTRAINED);
		for (k = 0; k < size; k++) {
			struct sched_task_info *t = vc_malloc(sizeof(*t));

			snprintf(name, sizeof(name), "job-%ld-task-%ld", i, k);
			if (!t || (rc = sched_task_init(t, "bench", name, &pr)) != 0 ||
			    (rc = sched_job_add_task(j, t)) != 0)
				die("task", rc);
			t->pod = pod;
			if (i < settled) {
				snprintf(name, sizeof(name), "node-%ld", i % nodes);
				t->status = SCHED_TASK_RUNNING;
				if (!(t->node_name = vc_strdup(name)))
					die("vc_strdup", VC_ENOMEM);
			}
		}
		if ((rc = sched_snapshot_add_job(s, j)) != 0)
			die("add job", rc);
	}
	if (kind == DEFAULTED) {
		static const struct vc_cache_index idx[] = {
			{ SCHED_OBJECTS_NS_INDEX, vc_cache_index_by_namespace, NULL },
		};
		const struct vc_cache_opts copts = { .indexes = idx, .nindexes = 1 };

		if ((rc = vc_cache_new(&copts, &lab.objs.services)) != 0)
			die("vc_cache_new", rc);
		for (i = 0; i < groups; i++) {
			char name[64];
			json_t *svc;

			snprintf(name, sizeof(name), "pg-%ld", i);
			svc = json_pack("{s:{s:s, s:s}, s:{s:{s:s}}}", "metadata", "name", name,
					"namespace", "bench", "spec", "selector", "app", name);
			if (!svc || (rc = vc_cache_upsert(lab.objs.services, svc, NULL)) != 0)
				die("service", svc ? rc : VC_ENOMEM);
			json_decref(svc);
		}
		s->objs = &lab.objs;
	}
	if ((rc = sched_snapshot_place(s)) != 0)
		die("sched_snapshot_place", rc);
	vc_resource_release(&nr);
	vc_resource_release(&pr);
}

/* ---- decisions, for comparing two builds ----------------------------------------------------- */

static void dump_str(FILE *f, const char *k, const char *v)
{
	fprintf(f, " %s=\"%s\"", k, v ? v : "(null)");
}

/*
 * Every decision of a cycle as text: binds, evictions, PodGroup results (the conditions as
 * sorted JSON, or "unchanged" when they equal the PodGroup's current ones but for transitionID
 * and lastTransitionTime), pod conditions, queue totals. Equal text, equal decisions.
 */
static void dump_result(FILE *f, const char *label, const struct sched_result *r)
{
	size_t i;

	fprintf(f, "== %s binds=%zu evicts=%zu jobs=%zu tasks=%zu queues=%zu\n", label, r->nbinds,
		r->nevicts, r->njobs, r->ntasks, r->nqueues);
	for (i = 0; i < r->nbinds; i++)
		fprintf(f, "bind %s/%s %s\n", r->binds[i].task->ns, r->binds[i].task->name,
			r->binds[i].node);
	for (i = 0; i < r->nevicts; i++)
		fprintf(f, "evict %s/%s %s\n", r->evicts[i].task->ns, r->evicts[i].task->name,
			r->evicts[i].reason);
	for (i = 0; i < r->njobs; i++) {
		const struct sched_job_result *jr = &r->jobs[i];
		char *c = jr->conditions ? json_dumps(jr->conditions, JSON_SORT_KEYS | JSON_COMPACT)
					 : NULL;

		fprintf(f, "job %s phase=%s running=%d succeeded=%d failed=%d", jr->job->uid,
			vc_pg_phase_name(jr->phase), jr->running, jr->succeeded, jr->failed);
		dump_str(f, "conditions", c);
		dump_str(f, "fit", jr->fit_error);
		dump_str(f, "event", jr->event_type);
		dump_str(f, "reason", jr->event_reason);
		dump_str(f, "message", jr->event_message);
		dump_str(f, "reject", jr->reject_message);
		fputc('\n', f);
		free(c);
	}
	for (i = 0; i < r->ntasks; i++) {
		fprintf(f, "task %s/%s", r->tasks[i].task->ns, r->tasks[i].task->name);
		dump_str(f, "reason", r->tasks[i].reason);
		dump_str(f, "message", r->tasks[i].message);
		dump_str(f, "nominated", r->tasks[i].nominated_node);
		fputc('\n', f);
	}
	for (i = 0; i < r->nqueues; i++) {
		json_t *l = NULL;
		char *a = NULL;

		if (vc_resource_to_list(&r->queues[i].allocated, &l) == 0)
			a = json_dumps(l, JSON_SORT_KEYS | JSON_COMPACT);
		fprintf(f, "queue %s allocated=%s\n", r->queues[i].queue->name, a ? a : "?");
		free(a);
		json_decref(l);
	}
}

/*
 * Mixed scenarios (--mix): seeded random clusters and workloads that use what the timed
 * workloads do not: pod views with node selectors, required node affinity, tolerations and
 * host ports; tainted, unschedulable and full nodes; GPUs; roles, minTaskMember, task-topology
 * annotations; priorities; queues with weights and capabilities; running pods and PodGroups with
 * conditions. Each runs under four configurations: default, binpack, and preempt + reclaim +
 * binpack with and without task-topology.
 */
struct mix {
	uint64_t rng;
	json_t **objs; /* every object built, released at the end */
	size_t nobjs, cap;
	struct vc_pod *pods;
	struct vc_node *nodes;
	struct vc_podgroup *pgs;
	size_t npods, nnodes, npgs;
};

static uint64_t mix_rand(struct mix *m, uint64_t n)
{
	uint64_t z = (m->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31)) % n;
}

static json_t *mix_keep(struct mix *m, json_t *o)
{
	if (!o)
		die("json_pack", VC_ENOMEM);
	if (m->nobjs == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->objs = realloc(m->objs, m->cap * sizeof(*m->objs));
		if (!m->objs)
			die("realloc", VC_ENOMEM);
	}
	m->objs[m->nobjs++] = o;
	return o;
}

static const char *const zones[] = { "a", "b", "c" };

static void mix_nodes(struct mix *m, struct sched_snapshot *s, long n)
{
	static const char *const cpus[] = { "2", "4", "8" };
	static const char *const mems[] = { "4Gi", "8Gi", "32Gi" };
	long i;
	int rc;

	for (i = 0; i < n; i++) {
		char name[32];
		json_t *o, *taints = json_array(), *alloc;
		struct sched_node_info *sn = vc_malloc(sizeof(*sn));
		uint64_t kind = mix_rand(m, 3);

		snprintf(name, sizeof(name), "node-%ld", i);
		alloc = json_pack("{s:s, s:s, s:s}", "cpu", cpus[kind], "memory",
				  mems[mix_rand(m, 3)], "pods", mix_rand(m, 4) ? "110" : "3");
		if (mix_rand(m, 5) == 0)
			json_object_set_new(alloc, "nvidia.com/gpu", json_string("4"));
		if (mix_rand(m, 6) == 0)
			json_array_append_new(taints,
					      json_pack("{s:s, s:s, s:s}", "key", "dedicated",
							"value", "gpu", "effect", "NoSchedule"));
		if (mix_rand(m, 20) == 0)
			json_array_append_new(taints, json_pack("{s:s, s:s}", "key", "soft",
								"effect", "PreferNoSchedule"));
		o = mix_keep(m,
			     json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s, s:s}}, s:{s:b, s:o}, "
				       "s:{s:O, s:o}}",
				       "apiVersion", "v1", "kind", "Node", "metadata", "name", name,
				       "uid", name, "labels", "zone", zones[mix_rand(m, 3)],
				       "kubernetes.io/hostname", name, "spec", "unschedulable",
				       mix_rand(m, 25) == 0, "taints", taints, "status",
				       "allocatable", alloc, "capacity", alloc));
		if (vc_node_view(o, &m->nodes[m->nnodes], NULL) != 0)
			die("vc_node_view", VC_EINVAL);
		if (!sn || (rc = sched_node_from_view(sn, &m->nodes[m->nnodes])) != 0 ||
		    (rc = sched_snapshot_add_node(s, sn)) != 0)
			die("node", VC_ENOMEM);
		m->nnodes++;
	}
}

static json_t *mix_tolerations(struct mix *m)
{
	json_t *t = json_pack("[{s:s, s:s, s:s, s:i}, {s:s, s:s, s:s, s:i}]", "key",
			      "node.kubernetes.io/not-ready", "operator", "Exists", "effect",
			      "NoExecute", "tolerationSeconds", 300, "key",
			      "node.kubernetes.io/unreachable", "operator", "Exists", "effect",
			      "NoExecute", "tolerationSeconds", 300);

	if (mix_rand(m, 4) == 0)
		json_array_append_new(t, json_pack("{s:s, s:s, s:s, s:s}", "key", "dedicated",
						   "operator", "Equal", "value", "gpu", "effect",
						   "NoSchedule"));
	return t;
}

static void mix_jobs(struct mix *m, struct sched_snapshot *s, long groups, long nnodes)
{
	static const char *const qs[] = { "default", "q1", "q2" };
	static const char *const cpu[] = { "100m", "500m", "1", "2" };
	static const char *const mem[] = { "128Mi", "512Mi", "1Gi", "3Gi" };
	static const char *const roles[] = { "ps", "worker" };
	long g, k;
	int rc;

	for (g = 0; g < groups; g++) {
		long size = mix_rand(m, 8) == 0 ? 12 : 1 + (long)mix_rand(m, 5);
		long min = mix_rand(m, 3) ? size : 1 + (long)mix_rand(m, (uint64_t)size);
		uint64_t phase = mix_rand(m, 5), shape = mix_rand(m, 4);
		bool gpu = mix_rand(m, 6) == 0, be = mix_rand(m, 12) == 0;
		bool selector = mix_rand(m, 4) == 0, affinity = mix_rand(m, 6) == 0;
		bool port = mix_rand(m, 15) == 0, roleful = mix_rand(m, 3) == 0;
		int32_t prio = (int32_t)(mix_rand(m, 3) * 50);
		char name[48], ts[40];
		json_t *pgo, *ann = json_object(), *status;
		struct sched_job_info *j = vc_malloc(sizeof(*j));
		const char *zone = zones[mix_rand(m, 3)];

		snprintf(name, sizeof(name), "pg-%ld", g);
		if (vc_time_format_rfc3339(1700000000 + (int64_t)mix_rand(m, 1000), ts,
					   sizeof(ts)) < 0)
			die("time", VC_EINVAL);
		if (roleful && mix_rand(m, 2) == 0)
			json_object_set_new(ann, "volcano.sh/task-topology-affinity",
					    json_string("ps,worker"));
		if (roleful && mix_rand(m, 2) == 0)
			json_object_set_new(ann, "volcano.sh/task-topology-anti-affinity",
					    json_string("worker"));
		status = json_pack("{s:s}", "phase",
				   phase < 3	? "Pending"
				   : phase == 3 ? "Inqueue"
						: "Running");
		if (mix_rand(m, 3) == 0)
			json_object_set_new(
				status, "conditions",
				json_pack("[{s:s, s:s, s:s, s:s, s:s, s:s}]", "type",
					  mix_rand(m, 2) ? "Scheduled" : "Unschedulable", "status",
					  "True", "transitionID", "old", "lastTransitionTime", ts,
					  "reason", "tasks in gang are ready to be scheduled",
					  "message", ""));
		pgo = json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s, s:o}, s:{s:I, s:s}, s:o}",
				"apiVersion", "scheduling.volcano.sh/v1beta1", "kind", "PodGroup",
				"metadata", "name", name, "namespace", "mix", "uid", name,
				"creationTimestamp", ts, "annotations", ann, "spec", "minMember",
				(json_int_t)min, "queue", qs[mix_rand(m, 3)], "status", status);
		if (mix_rand(m, 2) == 0)
			json_object_set_new(
				json_object_get(pgo, "spec"), "minResources",
				json_pack("{s:s, s:s}", "cpu", cpu[shape], "memory", mem[shape]));
		if (roleful && mix_rand(m, 2) == 0)
			json_object_set_new(json_object_get(pgo, "spec"), "minTaskMember",
					    json_pack("{s:i, s:i}", "ps", 1, "worker",
						      (int)(min > 1 ? min - 1 : 1)));
		mix_keep(m, pgo);
		if (vc_podgroup_view(pgo, &m->pgs[m->npgs], NULL) != 0)
			die("vc_podgroup_view", VC_EINVAL);
		if (!j || sched_job_from_podgroup(j, &m->pgs[m->npgs], prio) != 0)
			die("job", VC_ENOMEM);
		m->npgs++;
		for (k = 0; k < size; k++) {
			const char *role = roleful ? roles[k == 0 ? 0 : 1] : "worker";
			json_t *req = be ? json_object()
					 : json_pack("{s:s, s:s}", "cpu", cpu[shape], "memory",
						     mem[shape]);
			json_t *c, *spec, *po, *st;
			struct sched_task_info *t = vc_malloc(sizeof(*t));
			bool running = phase == 4 && mix_rand(m, 3) != 0;
			char pname[64];

			if (gpu && !be)
				json_object_set_new(req, "nvidia.com/gpu", json_string("1"));
			c = json_pack("{s:s, s:s, s:{s:o}}", "name", "main", "image", "x",
				      "resources", "requests", req);
			if (port)
				json_object_set_new(c, "ports",
						    json_pack("[{s:i, s:i}]", "containerPort", 80,
							      "hostPort", 8080));
			spec = json_pack("{s:s, s:[o], s:o, s:i}", "schedulerName", "volcano",
					 "containers", c, "tolerations", mix_tolerations(m),
					 "priority", (int)(mix_rand(m, 2) * 10));
			if (selector)
				json_object_set_new(spec, "nodeSelector",
						    json_pack("{s:s}", "zone", zone));
			if (affinity)
				json_object_set_new(
					spec, "affinity",
					json_pack("{s:{s:{s:[{s:[{s:s, s:s, s:[s]}]}]}}}",
						  "nodeAffinity",
						  "requiredDuringSchedulingIgnoredDuringExecution",
						  "nodeSelectorTerms", "matchExpressions", "key",
						  "zone", "operator", "NotIn", "values", zone));
			st = json_pack("{s:s}", "phase", running ? "Running" : "Pending");
			if (running)
				json_object_set_new(
					spec, "nodeName",
					json_sprintf("node-%ld",
						     (long)mix_rand(m, (uint64_t)nnodes)));
			snprintf(pname, sizeof(pname), "%s-%s-%ld", name, role, k);
			po = mix_keep(m,
				      json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s, s:{s:s, s:s}}, "
						"s:o, s:o}",
						"apiVersion", "v1", "kind", "Pod", "metadata",
						"name", pname, "namespace", "mix", "uid", pname,
						"creationTimestamp", ts, "annotations",
						"scheduling.k8s.io/group-name", name,
						"volcano.sh/task-spec", role, "spec", spec,
						"status", st));
			if (vc_pod_view(po, &m->pods[m->npods], NULL) != 0)
				die("vc_pod_view", VC_EINVAL);
			if (!t || (rc = sched_task_from_pod(t, &m->pods[m->npods], NULL)) != 0 ||
			    (rc = sched_job_add_task(j, t)) != 0)
				die("task", VC_ENOMEM);
			m->npods++;
		}
		if (sched_snapshot_add_job(s, j) != 0)
			die("add job", VC_ENOMEM);
	}
}

static void mix_queues(struct sched_snapshot *s)
{
	static const char *const names[] = { "default", "q1", "q2" };
	size_t i;

	for (i = 0; i < 3; i++) {
		struct sched_queue_info *q = vc_malloc(sizeof(*q));

		if (!q || sched_queue_init(q, names[i], i == 1 ? 2 : 1) != 0)
			die("queue", VC_ENOMEM);
		if (i == 2) {
			q->has_capability = true;
			q->capability.milli_cpu = 20000;
			q->capability.memory = 64.0 * GIB;
		}
		if (sched_snapshot_add_queue(s, q) != 0)
			die("queue", VC_ENOMEM);
	}
}

static const char full_conf[] =
	"actions: \"enqueue, allocate, backfill, preempt, reclaim\"\n" SCHED_CONF_DEFAULT_TIERS_YAML
	"  - name: binpack\n"
	"  - name: task-topology\n";

/* As full, without task-topology: every scorer then shares its results across a class. */
static const char preempt_conf[] =
	"actions: \"enqueue, allocate, backfill, preempt, reclaim\"\n" SCHED_CONF_DEFAULT_TIERS_YAML
	"  - name: binpack\n";

static void run_mix(const struct opts *o, const struct sched_conf *const *confs,
		    const char *const *cnames, size_t nconfs, FILE *dump)
{
	long k;
	size_t c, i;

	for (k = 0; k < o->mix; k++) {
		for (c = 0; c < nconfs; c++) {
			long nodes = 20 + (long)((o->seed + (uint64_t)k) * 7919 % 200);
			long groups = 10 + (long)((o->seed + (uint64_t)k) * 104729 % 150);
			struct mix m = { .rng = o->seed * 1000003 + (uint64_t)k };
			struct sched_snapshot s;
			struct sched_result res;
			struct vc_error err;
			char label[96];

			m.pods = calloc((size_t)groups * 12 + 1, sizeof(*m.pods));
			m.nodes = calloc((size_t)nodes, sizeof(*m.nodes));
			m.pgs = calloc((size_t)groups, sizeof(*m.pgs));
			if (!m.pods || !m.nodes || !m.pgs || sched_snapshot_init(&s) != 0)
				die("calloc", VC_ENOMEM);
			mix_queues(&s);
			mix_nodes(&m, &s, nodes);
			mix_jobs(&m, &s, groups, nodes);
			if (sched_snapshot_place(&s) != 0)
				die("sched_snapshot_place", VC_ENOMEM);
			vc_error_clear(&err);
			if (sched_session_run(confs[c], &s, "mix-session", "2026-01-01T00:00:00Z",
					      o->seed + (uint64_t)k, &res, &err) != 0) {
				fprintf(stderr, "bench_sched: mix %ld/%s: %s\n", k, cnames[c],
					err.text);
				exit(1);
			}
			snprintf(label, sizeof(label), "mix=%ld conf=%s nodes=%ld groups=%ld", k,
				 cnames[c], nodes, groups);
			if (dump)
				dump_result(dump, label, &res);
			printf("%s binds=%zu evicts=%zu\n", label, res.nbinds, res.nevicts);
			sched_result_release(&res);
			sched_snapshot_release(&s);
			for (i = 0; i < m.npods; i++)
				vc_pod_view_release(&m.pods[i]);
			for (i = 0; i < m.nnodes; i++)
				vc_node_view_release(&m.nodes[i]);
			for (i = 0; i < m.npgs; i++)
				vc_podgroup_view_release(&m.pgs[i]);
			for (i = 0; i < m.nobjs; i++)
				json_decref(m.objs[i]);
			free(m.objs);
			free(m.pods);
			free(m.nodes);
			free(m.pgs);
		}
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static int64_t median(int64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_i64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The reference loops: plain arrays, one resource check per (pod, node) visited. */
struct ref_node {
	double cpu, mem;
	int pods;
};

static long ref_first_fit(long nodes, long pods, int64_t *ns)
{
	struct ref_node *n = calloc((size_t)nodes, sizeof(*n));
	long placed = 0, p, i;
	int64_t t0 = now_ns(CLOCK_MONOTONIC);

	if (!n)
		die("calloc", VC_ENOMEM);
	for (p = 0; p < pods; p++)
		for (i = 0; i < nodes; i++)
			if (n[i].cpu + 100 <= 4000 && n[i].mem + 500 * MIB <= 32 * GIB &&
			    n[i].pods < 110) {
				n[i].cpu += 100;
				n[i].mem += 500 * MIB;
				n[i].pods++;
				placed++;
				break;
			}
	*ns = now_ns(CLOCK_MONOTONIC) - t0;
	free(n);
	return placed;
}

static long ref_full_scan(long nodes, long pods, int64_t *ns)
{
	struct ref_node *n = calloc((size_t)nodes, sizeof(*n));
	long placed = 0, p, i;
	int64_t t0 = now_ns(CLOCK_MONOTONIC);

	if (!n)
		die("calloc", VC_ENOMEM);
	for (p = 0; p < pods; p++) {
		long best = -1;
		double best_score = -1;

		for (i = 0; i < nodes; i++) {
			double score;

			if (n[i].cpu + 100 > 4000 || n[i].mem + 500 * MIB > 32 * GIB ||
			    n[i].pods >= 110)
				continue;
			/* least requested, mean of cpu and memory, 0..100 */
			score = ((4000 - n[i].cpu - 100) * 100 / 4000 +
				 (32 * GIB - n[i].mem - 500 * MIB) * 100 / (32 * GIB)) /
				2;
			if (score > best_score) {
				best_score = score;
				best = i;
			}
		}
		if (best >= 0) {
			n[best].cpu += 100;
			n[best].mem += 500 * MIB;
			n[best].pods++;
			placed++;
		}
	}
	*ns = now_ns(CLOCK_MONOTONIC) - t0;
	free(n);
	return placed;
}

static void run(const struct opts *o, const char *wname, long groups, long size, int32_t min,
		enum workload_kind kind, const char *cname, const struct sched_conf *conf,
		FILE *dump)
{
	int64_t *wall = calloc((size_t)o->reps, sizeof(int64_t));
	int64_t *cpu = calloc((size_t)o->reps, sizeof(int64_t));
	int64_t *snap_ns = calloc((size_t)o->reps, sizeof(int64_t));
	int64_t *ssn_ns = calloc((size_t)o->reps, sizeof(int64_t));
	size_t binds = 0;
	uint64_t preds = 0, scores = 0, pevals = 0, sevals = 0;
	long pods = groups * size;
	int r;

	if (!wall || !cpu || !snap_ns || !ssn_ns)
		die("calloc", VC_ENOMEM);
	for (r = 0; r < o->reps; r++) {
		struct sched_snapshot s;
		struct sched_result res;
		struct vc_error err;
		int64_t t0, c0;
		int rc;

		t0 = now_ns(CLOCK_MONOTONIC);
		build(&s, o->nodes, groups, size, min, kind);
		snap_ns[r] = now_ns(CLOCK_MONOTONIC) - t0;
		vc_error_clear(&err);
		t0 = now_ns(CLOCK_MONOTONIC);
		c0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
		rc = sched_session_run(conf, &s, "bench-session", "2026-01-01T00:00:00Z",
				       o->seed + (uint64_t)r, &res, &err);
		cpu[r] = now_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
		wall[r] = now_ns(CLOCK_MONOTONIC) - t0;
		if (rc != 0) {
			fprintf(stderr, "bench_sched: sched_session_run: %s (%d)\n", err.text, rc);
			exit(1);
		}
		ssn_ns[r] = res.duration_ns;
		if (dump && r == 0) {
			char label[64];

			snprintf(label, sizeof(label), "workload=%s conf=%s", wname, cname);
			dump_result(dump, label, &res);
		}
		if (r > 0 && res.nbinds != binds)
			fprintf(stderr, "bench_sched: %s/%s: %zu binds in rep %d, %zu before\n",
				wname, cname, res.nbinds, r, binds);
		binds = res.nbinds;
		preds = res.predicate_calls;
		scores = res.score_calls;
		pevals = res.predicate_evals;
		sevals = res.score_evals;
		sched_result_release(&res);
		sched_snapshot_release(&s);
		labelled_release();
	}
	{
		int64_t w = median(wall, o->reps), c = median(cpu, o->reps);
		int64_t sn = median(snap_ns, o->reps), sd = median(ssn_ns, o->reps);
		int64_t wmin = wall[0], wmax = wall[o->reps - 1];

		printf("workload=%s conf=%s nodes=%ld groups=%ld size=%ld pods=%ld reps=%d binds=%zu "
		       "cycle_ms=%.1f cycle_min_ms=%.1f cycle_max_ms=%.1f cpu_ms=%.1f "
		       "result_duration_ms=%.1f placements_per_s=%.0f snapshot_build_ms=%.1f "
		       "cycle_over_build=%.2f predicate_calls=%" PRIu64 " score_calls=%" PRIu64
		       " predicate_evals=%" PRIu64 " score_evals=%" PRIu64 "\n",
		       wname, cname, o->nodes, groups, size, pods, o->reps, binds, (double)w / 1e6,
		       (double)wmin / 1e6, (double)wmax / 1e6, (double)c / 1e6, (double)sd / 1e6,
		       w > 0 ? (double)binds / ((double)w / 1e9) : 0.0, (double)sn / 1e6,
		       sn > 0 ? (double)w / (double)sn : 0.0, preds, scores, pevals, sevals);
		fflush(stdout);
	}
	free(wall);
	free(cpu);
	free(snap_ns);
	free(ssn_ns);
}

static void reference(const struct opts *o, long pods)
{
	int64_t *ff = calloc((size_t)o->reps, sizeof(int64_t));
	int64_t *fs = calloc((size_t)o->reps, sizeof(int64_t));
	long placed_ff = 0, placed_fs = 0;
	int r;

	if (!ff || !fs)
		die("calloc", VC_ENOMEM);
	for (r = 0; r < o->reps; r++) {
		placed_ff = ref_first_fit(o->nodes, pods, &ff[r]);
		placed_fs = ref_full_scan(o->nodes, pods, &fs[r]);
	}
	printf("reference=first_fit nodes=%ld pods=%ld placed=%ld ms=%.2f placements_per_s=%.0f\n",
	       o->nodes, pods, placed_ff, (double)median(ff, o->reps) / 1e6,
	       (double)placed_ff / ((double)median(ff, o->reps) / 1e9));
	printf("reference=full_scan nodes=%ld pods=%ld placed=%ld ms=%.2f placements_per_s=%.0f\n",
	       o->nodes, pods, placed_fs, (double)median(fs, o->reps) / 1e6,
	       (double)placed_fs / ((double)median(fs, o->reps) / 1e9));
	fflush(stdout);
	free(ff);
	free(fs);
}

static long arg_long(const char *flag, const char *v, long lo, long hi)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || *end || x < lo || x > hi) {
		fprintf(stderr, "bench_sched: %s wants a number in %ld..%ld, not '%s'\n", flag, lo,
			hi, v);
		exit(2);
	}
	return x;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_sched [--nodes N] [--workload a|b|both|c|s] "
			"[--conf default|binpack|both] [--reps R] [--pods-a P] [--groups-b G] "
			"[--size-b S] [--seed S] [--reference 0|1] [--dump FILE] [--mix K]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct opts o = { .nodes = 5000,
			  .pods_a = 10000,
			  .groups_b = 100,
			  .size_b = 100,
			  .pods_s = 100,
			  .reps = 5,
			  .run_a = true,
			  .run_b = true,
			  .conf_default = true,
			  .conf_binpack = true,
			  .reference = true,
			  .seed = 1 };
	struct sched_conf def, bp, full, pre;
	struct vc_error err;
	FILE *dump = NULL;
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		if (strcmp(a, "--nodes") == 0)
			o.nodes = arg_long(a, v, 1, 1000000);
		else if (strcmp(a, "--pods-a") == 0)
			o.pods_a = arg_long(a, v, 1, 10000000);
		else if (strcmp(a, "--pods-s") == 0)
			o.pods_s = arg_long(a, v, 1, 10000000);
		else if (strcmp(a, "--settled") == 0)
			settled = arg_long(a, v, 0, 10000000);
		else if (strcmp(a, "--groups-b") == 0)
			o.groups_b = arg_long(a, v, 1, 1000000);
		else if (strcmp(a, "--size-b") == 0)
			o.size_b = arg_long(a, v, 1, 1000000);
		else if (strcmp(a, "--reps") == 0)
			o.reps = (int)arg_long(a, v, 1, 1000);
		else if (strcmp(a, "--reference") == 0)
			o.reference = arg_long(a, v, 0, 1) == 1;
		else if (strcmp(a, "--dump") == 0)
			o.dump = v;
		else if (strcmp(a, "--mix") == 0)
			o.mix = arg_long(a, v, 1, 100000);
		else if (strcmp(a, "--seed") == 0)
			o.seed = (uint64_t)arg_long(a, v, 0, LONG_MAX);
		else if (strcmp(a, "--workload") == 0) {
			o.run_a = strcmp(v, "a") == 0 || strcmp(v, "both") == 0;
			o.run_b = strcmp(v, "b") == 0 || strcmp(v, "both") == 0;
			o.run_c = strcmp(v, "c") == 0;
			o.run_s = strcmp(v, "s") == 0;
			if (!o.run_a && !o.run_b && !o.run_c && !o.run_s)
				usage();
		} else if (strcmp(a, "--conf") == 0) {
			o.conf_default = strcmp(v, "default") == 0 || strcmp(v, "both") == 0;
			o.conf_binpack = strcmp(v, "binpack") == 0 || strcmp(v, "both") == 0;
			if (!o.conf_default && !o.conf_binpack)
				usage();
		} else
			usage();
		i++;
	}
	vc_log_threshold = VC_LOG_WARN;
	vc_error_clear(&err);
	if ((rc = sched_conf_default(&def)) != 0) {
		/* sched_conf_parse rejected a file without "configurations" at the time of writing.
		 */
		fprintf(stderr,
			"bench_sched: sched_conf_default failed (%d), parsing the same "
			"configuration with \"configurations: []\"\n",
			rc);
		if ((rc = sched_conf_parse(default_conf, sizeof(default_conf) - 1, &def, &err)) !=
		    0) {
			fprintf(stderr, "bench_sched: default configuration: %s\n", err.text);
			return 1;
		}
	}
	if ((rc = sched_conf_parse(binpack_conf, sizeof(binpack_conf) - 1, &bp, &err)) != 0) {
		fprintf(stderr, "bench_sched: binpack configuration: %s\n", err.text);
		return 1;
	}
	if ((rc = sched_conf_parse(full_conf, sizeof(full_conf) - 1, &full, &err)) != 0 ||
	    (rc = sched_conf_parse(preempt_conf, sizeof(preempt_conf) - 1, &pre, &err)) != 0) {
		fprintf(stderr, "bench_sched: mixed configurations: %s\n", err.text);
		return 1;
	}
	if (o.dump && !(dump = fopen(o.dump, "w"))) {
		fprintf(stderr, "bench_sched: cannot open '%s': %s\n", o.dump, strerror(errno));
		return 1;
	}
	if (o.mix) {
		const struct sched_conf *confs[] = { &def, &bp, &full, &pre };
		const char *const names[] = { "default", "binpack", "full", "preempt" };

		run_mix(&o, confs, names, 4, dump);
		o.run_a = o.run_b = o.run_c = false;
	}
	if (o.run_s) {
		if (!settled)
			settled = 10000;
		if (o.conf_default)
			run(&o, "s", settled + o.pods_s, 1, 1, LABELLED, "default", &def, dump);
		if (o.conf_binpack)
			run(&o, "s", settled + o.pods_s, 1, 1, LABELLED, "binpack", &bp, dump);
	}
	if (o.run_a) {
		if (o.conf_default)
			run(&o, "a", o.pods_a, 1, 1, PLAIN, "default", &def, dump);
		if (o.conf_binpack)
			run(&o, "a", o.pods_a, 1, 1, PLAIN, "binpack", &bp, dump);
		if (o.reference)
			reference(&o, o.pods_a);
	}
	if (o.run_b) {
		if (o.conf_default)
			run(&o, "b", o.groups_b, o.size_b, (int32_t)o.size_b, PLAIN, "default",
			    &def, dump);
		if (o.conf_binpack)
			run(&o, "b", o.groups_b, o.size_b, (int32_t)o.size_b, PLAIN, "binpack", &bp,
			    dump);
		if (o.reference && (!o.run_a || o.groups_b * o.size_b != o.pods_a))
			reference(&o, o.groups_b * o.size_b);
	}
	if (o.run_c) {
		/* Workload c without its terms first: what the pods and labels alone cost. */
		if (o.conf_default) {
			run(&o, "c-no-terms", o.groups_b, o.size_b, (int32_t)o.size_b, LABELLED,
			    "default", &def, dump);
			run(&o, "c", o.groups_b, o.size_b, (int32_t)o.size_b, CONSTRAINED,
			    "default", &def, dump);
			run(&o, "c-default", o.groups_b, o.size_b, (int32_t)o.size_b, DEFAULTED,
			    "default", &def, dump);
		}
		if (o.conf_binpack) {
			run(&o, "c-no-terms", o.groups_b, o.size_b, (int32_t)o.size_b, LABELLED,
			    "binpack", &bp, dump);
			run(&o, "c", o.groups_b, o.size_b, (int32_t)o.size_b, CONSTRAINED,
			    "binpack", &bp, dump);
			run(&o, "c-default", o.groups_b, o.size_b, (int32_t)o.size_b, DEFAULTED,
			    "binpack", &bp, dump);
		}
	}
	sched_conf_release(&def);
	sched_conf_release(&bp);
	sched_conf_release(&full);
	sched_conf_release(&pre);
	if (dump && fclose(dump) != 0) {
		fprintf(stderr, "bench_sched: cannot write '%s'\n", o.dump);
		return 1;
	}
	return 0;
}
