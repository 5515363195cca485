/*
 * json_dump.c - vc_json_dump against jansson's json_dump_callback on the same trees, in
 * process: MB/s of output per CPU second (CLOCK_PROCESS_CPUTIME_ID, so other load on the
 * machine costs wall time, not the figure) for each, and their ratio.
 *
 *   json_dump [--rounds R] [--ms MS] [FILE...]
 *
 * The trees: a Kubernetes pod of about 4 KiB, a Volcano Job of about 100 KiB (tasks with pod
 * templates, labels, env, resources; the shape of the admission reviews of bench_admission.sh
 * part c), the same Job at 3 MiB, and each FILE given (parsed as JSON). Each round runs both
 * serialisers on each tree for MS milliseconds of CPU (default 300), alternating, into a
 * reused buffer; the lines give the median over R rounds (default 7) of each rate and of the
 * per-round ratio, for JSON_COMPACT (admission, REST bodies, the cache) and with JSON_SORT_KEYS
 * added (vc_json_dumps_sorted). Both outputs are compared once: they must be the same bytes.
 *
 * Built and run by bench/json_dump.sh.
 */
#include "vc_json.h"

#include <time.h>

#include "vc_alloc.h"
#include "vc_buf.h"

static const char pod_text[] =
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"job-1-worker-0\","
	"\"namespace\":\"default\",\"uid\":\"2b6f2c4e-8a5d-4f0e-9a37-6f1b1c9d4e21\","
	"\"resourceVersion\":\"123456\",\"creationTimestamp\":\"2026-11-29T06:00:00Z\","
	"\"labels\":{\"volcano.sh/job-name\":\"job-1\",\"volcano.sh/job-namespace\":\"default\","
	"\"volcano.sh/queue-name\":\"default\",\"volcano.sh/task-spec\":\"worker\"},"
	"\"annotations\":{\"scheduling.k8s.io/group-name\":\"job-1-2b6f2c4e\","
	"\"volcano.sh/job-name\":\"job-1\",\"volcano.sh/job-version\":\"0\","
	"\"volcano.sh/queue-name\":\"default\",\"volcano.sh/task-index\":\"0\","
	"\"volcano.sh/task-spec\":\"worker\",\"volcano.sh/template-uid\":\"job-1-worker\"},"
	"\"ownerReferences\":[{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
	"\"name\":\"job-1\",\"uid\":\"0d6a2f7c-1b2e-4c5d-8e9f-a0b1c2d3e4f5\",\"controller\":true,"
	"\"blockOwnerDeletion\":true}]},\"spec\":{\"schedulerName\":\"volcano\","
	"\"restartPolicy\":\"OnFailure\",\"terminationGracePeriodSeconds\":30,"
	"\"dnsPolicy\":\"ClusterFirst\",\"serviceAccountName\":\"default\",\"hostname\":"
	"\"job-1-worker-0\",\"subdomain\":\"job-1\",\"containers\":[{\"name\":\"worker\","
	"\"image\":\"registry.example.com/team/trainer:v1.2.3\",\"imagePullPolicy\":"
	"\"IfNotPresent\",\"command\":[\"/bin/sh\",\"-c\",\"python3 train.py --epochs=10 "
	"--data=/data/set \\\"a b\\\"\\n\"],\"ports\":[{\"containerPort\":2222,\"name\":"
	"\"tfjob-port\",\"protocol\":\"TCP\"}],\"env\":[{\"name\":\"VC_WORKER_HOSTS\",\"value\":"
	"\"job-1-worker-0.job-1,job-1-worker-1.job-1,job-1-worker-2.job-1\"},{\"name\":"
	"\"VC_WORKER_NUM\",\"value\":\"3\"},{\"name\":\"VK_TASK_INDEX\",\"value\":\"0\"},"
	"{\"name\":\"VC_TASK_INDEX\",\"value\":\"0\"},{\"name\":\"TF_CONFIG\",\"value\":"
	"\"{\\\"cluster\\\":{\\\"worker\\\":[\\\"job-1-worker-0.job-1:2222\\\"]},\\\"task\\\":"
	"{\\\"type\\\":\\\"worker\\\",\\\"index\\\":0}}\"}],\"resources\":{\"limits\":"
	"{\"cpu\":\"2\",\"memory\":\"4Gi\",\"nvidia.com/gpu\":\"1\"},\"requests\":{\"cpu\":\"2\","
	"\"memory\":\"4Gi\",\"nvidia.com/gpu\":\"1\"}},\"volumeMounts\":[{\"name\":\"data\","
	"\"mountPath\":\"/data\",\"readOnly\":true},{\"name\":\"kube-api-access-x7k2p\","
	"\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\",\"readOnly\":true}],"
	"\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePolicy\":"
	"\"File\"}],\"volumes\":[{\"name\":\"data\",\"persistentVolumeClaim\":{\"claimName\":"
	"\"job-1-data\"}},{\"name\":\"kube-api-access-x7k2p\",\"projected\":{\"defaultMode\":420,"
	"\"sources\":[{\"serviceAccountToken\":{\"expirationSeconds\":3607,\"path\":\"token\"}},"
	"{\"configMap\":{\"name\":\"kube-root-ca.crt\",\"items\":[{\"key\":\"ca.crt\",\"path\":"
	"\"ca.crt\"}]}}]}}],\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\","
	"\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300}],"
	"\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
	"{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"accelerator\",\"operator\":"
	"\"In\",\"values\":[\"nvidia-a100\",\"nvidia-h100\"]}]}]}}},\"priority\":0},"
	"\"status\":{\"phase\":\"Running\",\"hostIP\":\"10.0.0.12\",\"podIP\":\"10.244.1.7\","
	"\"qosClass\":\"Guaranteed\",\"startTime\":\"2026-11-29T06:00:01Z\",\"conditions\":["
	"{\"type\":\"Ready\",\"status\":\"True\",\"lastProbeTime\":null,\"lastTransitionTime\":"
	"\"2026-11-29T06:00:05Z\"},{\"type\":\"PodScheduled\",\"status\":\"True\","
	"\"lastProbeTime\":null,\"lastTransitionTime\":\"2026-11-29T06:00:00Z\"}]}}";

/* A Volcano Job whose tasks are copies of the pod's template, until it is about size bytes. */
static json_t *make_job(const json_t *pod, size_t size)
{
	json_t *job = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:i, s:s, s:s, s:[], s:{s:i}}}",
				"apiVersion", "batch.volcano.sh/v1alpha1", "kind", "Job",
				"metadata", "name", "job-1", "namespace", "default", "spec",
				"minAvailable", 3, "schedulerName", "volcano", "queue", "default",
				"tasks", "policies", "maxRetry", 3);
	json_t *tasks = json_object_get(json_object_get(job, "spec"), "tasks");
	char name[32];
	size_t i;

	for (i = 0; json_dumpb(job, NULL, 0, JSON_COMPACT) < size; i++) {
		json_t *tmpl = json_deep_copy(json_object_get(pod, "spec"));
		json_t *meta = json_deep_copy(json_object_get(pod, "metadata"));

		snprintf(name, sizeof(name), "task-%zu", i);
		json_object_del(meta, "ownerReferences");
		json_object_set_new(meta, "name", json_string(name));
		json_array_append_new(tasks, json_pack("{s:s, s:i, s:{s:o, s:o}}", "name", name,
						       "replicas", 3, "template", "metadata", meta,
						       "spec", tmpl));
	}
	return job;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int sink(const char *buffer, size_t size, void *data)
{
	return vc_buf_add(data, buffer, size) ? -1 : 0;
}

/* MB/s (10^6 bytes of output per CPU second) of one serialiser for at least ms of CPU. */
static double rate(const json_t *v, size_t flags, bool ours, struct vc_buf *b, double ms)
{
	double t0 = cpu_now(), t;
	size_t n = 0, bytes = 0;

	do {
		vc_buf_reset(b);
		if (ours ? vc_json_dump(v, flags, b) : json_dump_callback(v, sink, b, flags))
			abort();
		bytes += b->len;
		n++;
	} while ((t = cpu_now() - t0) < ms / 1000.0 || n < 3);
	return (double)bytes / t / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void bench(const char *name, const json_t *v, size_t flags, int rounds, double ms)
{
	double mine[64], theirs[64], ratio[64];
	struct vc_buf a, b;
	int r;

	vc_buf_init(&a, 0);
	vc_buf_init(&b, 0);
	if (vc_json_dump(v, flags, &a) || json_dump_callback(v, sink, &b, flags) ||
	    a.len != b.len || memcmp(a.data, b.data, a.len)) {
		fprintf(stderr, "json_dump: %s: the outputs differ\n", name);
		exit(1);
	}
	printf("%-12s %-7s %9zu", name, flags & JSON_SORT_KEYS ? "sorted" : "compact", a.len);
	fflush(stdout);
	for (r = 0; r < rounds; r++) {
		theirs[r] = rate(v, flags, false, &b, ms);
		mine[r] = rate(v, flags, true, &a, ms);
		ratio[r] = mine[r] / theirs[r];
	}
	printf(" %10.1f %10.1f %7.2fx\n", median(theirs, rounds), median(mine, rounds),
	       median(ratio, rounds));
	vc_buf_release(&a);
	vc_buf_release(&b);
}

int main(int argc, char **argv)
{
	int rounds = 7, i;
	double ms = 300;
	json_t *pod, *job, *big;
	json_error_t error;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
			rounds = (int)strtol(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--ms") && i + 1 < argc)
			ms = strtod(argv[++i], NULL);
		else {
			fprintf(stderr, "usage: json_dump [--rounds R] [--ms MS] [FILE...]\n");
			return 2;
		}
	}
	if (rounds < 1 || rounds > 64)
		rounds = 7;
	pod = json_loads(pod_text, 0, &error);
	if (!pod) {
		fprintf(stderr, "json_dump: the pod: %s\n", error.text);
		return 1;
	}
	job = make_job(pod, 100 << 10);
	big = make_job(pod, 3 << 20);
	printf("%-12s %-7s %9s %10s %10s %8s\n", "tree", "flags", "bytes", "jansson", "vc_json",
	       "ratio");
	printf("%-12s %-7s %9s %10s %10s %8s\n", "", "", "", "MB/s", "MB/s", "median");
	bench("pod", pod, JSON_COMPACT, rounds, ms);
	bench("job-100k", job, JSON_COMPACT, rounds, ms);
	bench("job-3m", big, JSON_COMPACT, rounds, ms);
	bench("pod", pod, JSON_COMPACT | JSON_SORT_KEYS, rounds, ms);
	bench("job-100k", job, JSON_COMPACT | JSON_SORT_KEYS, rounds, ms);
	for (; i < argc; i++) {
		json_t *v = json_load_file(argv[i], JSON_DECODE_ANY, &error);

		if (!v) {
			fprintf(stderr, "json_dump: %s: %s\n", argv[i], error.text);
			return 1;
		}
		bench(strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i], v, JSON_COMPACT,
		      rounds, ms);
		json_decref(v);
	}
	json_decref(big);
	json_decref(job);
	json_decref(pod);
	return 0;
}
