/*
 * bench_sched - time one scheduling cycle (sched_session_run) in process, on snapshots built in
 * code: no API server, no informers, no binder.
 *
 *   bench_sched [--nodes N] [--workload a|b|both] [--conf default|binpack|both] [--reps R]
 *               [--pods-a P] [--groups-b G] [--size-b S] [--seed S] [--reference 0|1]
 *
 * Nodes: N (5,000) of 4 CPU, 32 Gi, 110 pods, like Kubernetes' scheduler_perf SchedulingBasic.
 * Workload a: P (10,000) one-pod PodGroups, minMember 1, pods 100m / 500Mi.
 * Workload b: G (100) PodGroups of S (100) such pods, minMember S.
 * Every PodGroup is Pending in queue "default", so the cycle runs enqueue, allocate and
 * backfill as a first cycle after the pods were created would.
 *
 * For each workload and configuration, R times (5): build a fresh snapshot (timed: the
 * baseline of work every cycle needs anyway), run one cycle (timed, wall and CPU), release.
 * Then two reference loops on the same snapshot shape, no plugins: first fit (each pod takes
 * the first node with room) and a full scan (each pod scores every node by least-requested and
 * takes the best: the O(pods × nodes) work a scheduler without sampling does). Prints one line
 * per measurement with medians; bench/bench_sched.sh adds the machine and the floors.
 */
#include "vc_prelude.h"

#include <time.h>

#include "scheduler/sched_conf.h"
#include "scheduler/sched_session.h"
#include "vc_alloc.h"
#include "vc_log.h"

#define MIB (1024.0 * 1024)
#define GIB (1024.0 * MIB)

struct opts {
	long nodes;
	long pods_a;
	long groups_b;
	long size_b;
	int reps;
	bool run_a, run_b;
	bool conf_default, conf_binpack;
	bool reference;
	uint64_t seed;
};

static const char binpack_conf[] = "actions: \"enqueue, allocate, backfill\"\n"
				   "configurations: []\n"
				   "tiers:\n"
				   "- plugins:\n"
				   "  - name: priority\n"
				   "  - name: gang\n"
				   "  - name: conformance\n"
				   "- plugins:\n"
				   "  - name: overcommit\n"
				   "  - name: drf\n"
				   "  - name: predicates\n"
				   "  - name: proportion\n"
				   "  - name: nodeorder\n"
				   "  - name: binpack\n";

/* Volcano's built-in default, for when sched_conf_default is not usable (see main). */
static const char default_conf[] = "actions: \"enqueue, allocate, backfill\"\n"
				   "configurations: []\n"
				   "tiers:\n"
				   "- plugins:\n"
				   "  - name: priority\n"
				   "  - name: gang\n"
				   "  - name: conformance\n"
				   "- plugins:\n"
				   "  - name: overcommit\n"
				   "  - name: drf\n"
				   "  - name: predicates\n"
				   "  - name: proportion\n"
				   "  - name: nodeorder\n";

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

/* groups PodGroups of size pods each, minMember min. */
static void build(struct sched_snapshot *s, long nodes, long groups, long size, int32_t min)
{
	struct vc_resource nr, pr;
	struct sched_queue *q;
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
	for (i = 0; i < nodes; i++) {
		struct sched_node *n = vc_malloc(sizeof(*n));
		char name[32];

		snprintf(name, sizeof(name), "node-%ld", i);
		if (!n || (rc = sched_node_init(n, name, &nr)) != 0 ||
		    (rc = sched_snapshot_add_node(s, n)) != 0)
			die("node", rc);
	}
	for (i = 0; i < groups; i++) {
		struct sched_job *j = vc_malloc(sizeof(*j));
		char name[64];

		snprintf(name, sizeof(name), "pg-%ld", i);
		if (!j || (rc = sched_job_init(j, "bench", name, "default", min)) != 0)
			die("job", rc);
		j->phase = VC_PG_PENDING;
		for (k = 0; k < size; k++) {
			struct sched_task *t = vc_malloc(sizeof(*t));

			snprintf(name, sizeof(name), "job-%ld-task-%ld", i, k);
			if (!t || (rc = sched_task_init(t, "bench", name, &pr)) != 0 ||
			    (rc = sched_job_add_task(j, t)) != 0)
				die("task", rc);
		}
		if ((rc = sched_snapshot_add_job(s, j)) != 0)
			die("add job", rc);
	}
	if ((rc = sched_snapshot_place(s)) != 0)
		die("sched_snapshot_place", rc);
	vc_resource_release(&nr);
	vc_resource_release(&pr);
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
		const char *cname, const struct sched_conf *conf)
{
	int64_t *wall = calloc((size_t)o->reps, sizeof(int64_t));
	int64_t *cpu = calloc((size_t)o->reps, sizeof(int64_t));
	int64_t *snap_ns = calloc((size_t)o->reps, sizeof(int64_t));
	int64_t *ssn_ns = calloc((size_t)o->reps, sizeof(int64_t));
	size_t binds = 0;
	uint64_t preds = 0, scores = 0;
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
		build(&s, o->nodes, groups, size, min);
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
		if (r > 0 && res.nbinds != binds)
			fprintf(stderr, "bench_sched: %s/%s: %zu binds in rep %d, %zu before\n",
				wname, cname, res.nbinds, r, binds);
		binds = res.nbinds;
		preds = res.predicate_calls;
		scores = res.score_calls;
		sched_result_release(&res);
		sched_snapshot_release(&s);
	}
	{
		int64_t w = median(wall, o->reps), c = median(cpu, o->reps);
		int64_t sn = median(snap_ns, o->reps), sd = median(ssn_ns, o->reps);
		int64_t wmin = wall[0], wmax = wall[o->reps - 1];

		printf("workload=%s conf=%s nodes=%ld groups=%ld size=%ld pods=%ld reps=%d binds=%zu "
		       "cycle_ms=%.1f cycle_min_ms=%.1f cycle_max_ms=%.1f cpu_ms=%.1f "
		       "result_duration_ms=%.1f placements_per_s=%.0f snapshot_build_ms=%.1f "
		       "cycle_over_build=%.2f predicate_calls=%" PRIu64 " score_calls=%" PRIu64
		       "\n",
		       wname, cname, o->nodes, groups, size, pods, o->reps, binds, (double)w / 1e6,
		       (double)wmin / 1e6, (double)wmax / 1e6, (double)c / 1e6, (double)sd / 1e6,
		       w > 0 ? (double)binds / ((double)w / 1e9) : 0.0, (double)sn / 1e6,
		       sn > 0 ? (double)w / (double)sn : 0.0, preds, scores);
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
	fprintf(stderr, "usage: bench_sched [--nodes N] [--workload a|b|both] "
			"[--conf default|binpack|both] [--reps R] [--pods-a P] [--groups-b G] "
			"[--size-b S] [--seed S] [--reference 0|1]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct opts o = { .nodes = 5000,
			  .pods_a = 10000,
			  .groups_b = 100,
			  .size_b = 100,
			  .reps = 5,
			  .run_a = true,
			  .run_b = true,
			  .conf_default = true,
			  .conf_binpack = true,
			  .reference = true,
			  .seed = 1 };
	struct sched_conf def, bp;
	struct vc_error err;
	int i, rc;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v)
			usage();
		if (strcmp(a, "--nodes") == 0)
			o.nodes = arg_long(a, v, 1, 1000000);
		else if (strcmp(a, "--pods-a") == 0)
			o.pods_a = arg_long(a, v, 1, 10000000);
		else if (strcmp(a, "--groups-b") == 0)
			o.groups_b = arg_long(a, v, 1, 1000000);
		else if (strcmp(a, "--size-b") == 0)
			o.size_b = arg_long(a, v, 1, 1000000);
		else if (strcmp(a, "--reps") == 0)
			o.reps = (int)arg_long(a, v, 1, 1000);
		else if (strcmp(a, "--reference") == 0)
			o.reference = arg_long(a, v, 0, 1) == 1;
		else if (strcmp(a, "--seed") == 0)
			o.seed = (uint64_t)arg_long(a, v, 0, LONG_MAX);
		else if (strcmp(a, "--workload") == 0) {
			o.run_a = strcmp(v, "a") == 0 || strcmp(v, "both") == 0;
			o.run_b = strcmp(v, "b") == 0 || strcmp(v, "both") == 0;
			if (!o.run_a && !o.run_b)
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
	if (o.run_a) {
		if (o.conf_default)
			run(&o, "a", o.pods_a, 1, 1, "default", &def);
		if (o.conf_binpack)
			run(&o, "a", o.pods_a, 1, 1, "binpack", &bp);
		if (o.reference)
			reference(&o, o.pods_a);
	}
	if (o.run_b) {
		if (o.conf_default)
			run(&o, "b", o.groups_b, o.size_b, (int32_t)o.size_b, "default", &def);
		if (o.conf_binpack)
			run(&o, "b", o.groups_b, o.size_b, (int32_t)o.size_b, "binpack", &bp);
		if (o.reference && (!o.run_a || o.groups_b * o.size_b != o.pods_a))
			reference(&o, o.groups_b * o.size_b);
	}
	sched_conf_release(&def);
	sched_conf_release(&bp);
	return 0;
}
