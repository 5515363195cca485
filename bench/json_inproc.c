/*
 * json_inproc.c - JSON parsing in process: jansson's json_loadb() against vc_json_loadb() on the
 * documents Caldera's daemons read most, each parsed in turn by both, several rounds.
 *
 *   json_inproc [--mb M] [--rounds R] [--write DIR] [FILE...]
 *
 * Without files the documents are made here: a pod as kube-apiserver sends it in a watch event
 * (2.3 KB, managedFields included), a list of 500 such pods (a relist), and a Volcano Job
 * AdmissionReview whose task template's env is grown to 100 KiB and to 3 MiB less 4 KiB (the
 * shape of bench_admission.sh part c's bodies, under the 3 MiB body cap). Each round parses each
 * document with each parser until M MB (default 50) went through, and prints MB/s (CPU time:
 * getrusage, user + system) for both and their ratio; the last lines are the medians over the
 * rounds. Before timing, both trees are compared (json_equal and the same compact dump): a
 * difference is reported and the program exits 1.
 * --write DIR writes the documents to DIR/1.json... and exits (admission_inproc.sh reads the
 * Job reviews).
 *
 * Built and run by bench/json_inproc.sh.
 */
#include "vc_prelude.h"

#include <jansson.h>
#include <sys/resource.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_strconv.h"

struct doc {
	const char *name;
	char *text;
	size_t len;
	double mbs[2][64]; /* [parser][round] */
};

static const char POD[] =
	"{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"job-%06d-worker-0\","
	"\"namespace\":\"default\",\"uid\":\"6f1c2b9e-%04d-4c7e-9a51-0c6a8d2f%04d\","
	"\"resourceVersion\":\"%d\",\"creationTimestamp\":\"2026-11-29T06:00:00Z\","
	"\"labels\":{\"volcano.sh/job-name\":\"job-%06d\",\"volcano.sh/job-namespace\":\"default\","
	"\"volcano.sh/queue-name\":\"default\",\"volcano.sh/task-spec\":\"worker\"},"
	"\"annotations\":{\"scheduling.k8s.io/group-name\":\"job-%06d-0f1e2d3c\","
	"\"volcano.sh/job-name\":\"job-%06d\",\"volcano.sh/job-version\":\"0\","
	"\"volcano.sh/queue-name\":\"default\",\"volcano.sh/task-spec\":\"worker\","
	"\"volcano.sh/template-uid\":\"job-%06d-worker\"},"
	"\"ownerReferences\":[{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
	"\"name\":\"job-%06d\",\"uid\":\"0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d\",\"controller\":true,"
	"\"blockOwnerDeletion\":true}],\"managedFields\":[{\"manager\":\"vc-controller\","
	"\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":\"2026-11-29T06:00:00Z\","
	"\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{\"f:annotations\":{\".\":{},"
	"\"f:scheduling.k8s.io/group-name\":{},\"f:volcano.sh/job-name\":{}},\"f:labels\":{\".\":{},"
	"\"f:volcano.sh/job-name\":{}},\"f:ownerReferences\":{\".\":{},"
	"\"k:{\\\"uid\\\":\\\"0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d\\\"}\":{}}},\"f:spec\":{"
	"\"f:containers\":{\"k:{\\\"name\\\":\\\"main\\\"}\":{\".\":{},\"f:image\":{},"
	"\"f:name\":{},\"f:resources\":{\".\":{},\"f:requests\":{\".\":{},\"f:cpu\":{}}}}},"
	"\"f:schedulerName\":{}}}}]},\"spec\":{\"volumes\":[{\"name\":\"kube-api-access-x\","
	"\"projected\":{\"sources\":[{\"serviceAccountToken\":{\"expirationSeconds\":3607,"
	"\"path\":\"token\"}}],\"defaultMode\":420}}],\"containers\":[{\"name\":\"main\","
	"\"image\":\"busybox:1.36\",\"command\":[\"sh\",\"-c\",\"sleep 3600\"],\"resources\":{"
	"\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}},\"volumeMounts\":[{\"name\":"
	"\"kube-api-access-x\",\"readOnly\":true,\"mountPath\":"
	"\"/var/run/secrets/kubernetes.io/serviceaccount\"}],\"terminationMessagePath\":"
	"\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\",\"imagePullPolicy\":"
	"\"IfNotPresent\"}],\"restartPolicy\":\"OnFailure\",\"terminationGracePeriodSeconds\":30,"
	"\"dnsPolicy\":\"ClusterFirst\",\"serviceAccountName\":\"default\",\"serviceAccount\":"
	"\"default\",\"nodeName\":\"node-%03d\",\"securityContext\":{},\"schedulerName\":\"volcano\","
	"\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\","
	"\"effect\":\"NoExecute\",\"tolerationSeconds\":300}],\"priority\":0,"
	"\"enableServiceLinks\":true,\"preemptionPolicy\":\"PreemptLowerPriority\"},\"status\":{"
	"\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
	"\"lastProbeTime\":null,\"lastTransitionTime\":\"2026-11-29T06:00:01Z\"}],\"hostIP\":"
	"\"10.0.0.%d\",\"podIP\":\"10.244.%d.%d\",\"startTime\":\"2026-11-29T06:00:01Z\","
	"\"qosClass\":\"Burstable\"}}";

static int add_pod(struct vc_buf *b, int i)
{
	return vc_buf_addf(b, POD, i, i % 10000, i % 10000, 1000 + i, i, i, i, i, i, i % 500,
			   i % 250, i / 250 % 250, i % 250);
}

/* A Job review whose worker template's env holds about `size` bytes. */
static int add_job_review(struct vc_buf *b, size_t size)
{
	int rc = vc_buf_adds(
		b,
		"{\"kind\":\"AdmissionReview\",\"apiVersion\":\"admission.k8s.io/v1\","
		"\"request\":{\"uid\":\"5d3f1e2a-0b9c-4d8e-a7f6-1e2d3c4b5a69\",\"kind\":{"
		"\"group\":\"batch.volcano.sh\",\"version\":\"v1alpha1\",\"kind\":\"Job\"},"
		"\"resource\":{\"group\":\"batch.volcano.sh\",\"version\":\"v1alpha1\","
		"\"resource\":\"jobs\"},\"namespace\":\"default\",\"operation\":\"CREATE\","
		"\"userInfo\":{\"username\":\"kubernetes-admin\",\"groups\":[\"system:masters\","
		"\"system:authenticated\"]},\"object\":{\"apiVersion\":\"batch.volcano.sh/v1alpha1\","
		"\"kind\":\"Job\",\"metadata\":{\"name\":\"tf-big\",\"namespace\":\"default\"},"
		"\"spec\":{\"minAvailable\":2,\"schedulerName\":\"volcano\",\"tasks\":[{"
		"\"replicas\":2,\"name\":\"worker\",\"template\":{\"spec\":{\"containers\":[{"
		"\"name\":\"main\",\"image\":\"busybox:1.36\",\"env\":[");

	for (size_t i = 0, n = 0; !rc && n < size; i++) {
		size_t before = b->len;

		rc = vc_buf_addf(b,
				 "%s{\"name\":\"VAR_%zu\",\"value\":\"value of variable %zu, "
				 "with \\\"quotes\\\", a tab\\t and \\u00e9 in it\"}",
				 i ? "," : "", i, i);
		n += b->len - before;
	}
	if (!rc)
		rc = vc_buf_adds(b, "],\"resources\":{\"requests\":{\"cpu\":\"1\"}}}],"
				    "\"restartPolicy\":\"OnFailure\"}}}]}},\"dryRun\":false}}");
	return rc;
}

static double cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static json_t *parse(int which, const struct doc *d)
{
	json_error_t err;

	return which ? vc_json_loadb(d->text, d->len, JSON_REJECT_DUPLICATES, &err)
		     : json_loadb(d->text, d->len, JSON_REJECT_DUPLICATES, &err);
}

static int same_trees(const struct doc *d)
{
	json_t *a = parse(0, d), *b = parse(1, d);
	char *da = a ? json_dumps(a, JSON_COMPACT) : NULL,
	     *db = b ? json_dumps(b, JSON_COMPACT) : NULL;
	int ok = a && b && json_equal(a, b) && da && db && strcmp(da, db) == 0;

	free(da);
	free(db);
	json_decref(a);
	json_decref(b);
	if (!ok)
		fprintf(stderr, "%s: the two parsers' trees differ\n", d->name);
	return ok ? 0 : -1;
}

static double time_one(int which, const struct doc *d, double mb)
{
	size_t reps = (size_t)(mb * 1e6 / (double)d->len) + 1, i;
	double t0 = cpu_now(), t;

	for (i = 0; i < reps; i++) {
		json_t *v = parse(which, d);

		if (!v)
			abort();
		json_decref(v);
	}
	t = cpu_now() - t0;
	return t > 0 ? (double)(reps * d->len) / 1e6 / t : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double s[64];

	memcpy(s, v, sizeof(double) * (size_t)n);
	qsort(s, (size_t)n, sizeof(double), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static int read_file(const char *path, struct doc *d)
{
	FILE *f = fopen(path, "rb");
	struct vc_buf b;
	char chunk[65536];
	size_t n;
	int rc = 0;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	vc_buf_init(&b, 0);
	while (!rc && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		rc = vc_buf_add(&b, chunk, n);
	fclose(f);
	d->name = path;
	d->len = b.len;
	d->text = rc ? NULL : vc_buf_take(&b);
	vc_buf_release(&b);
	return d->text ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct doc docs[16];
	int ndocs = 0, rounds = 5, i, r;
	double mb = 50;
	const char *write_dir = NULL;
	struct vc_buf b;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc) {
			if (vc_parse_double(argv[++i], &mb))
				mb = -1;
		} else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
			if (vc_parse_int(argv[++i], 1, 64, &rounds))
				rounds = -1;
		} else if (strcmp(argv[i], "--write") == 0 && i + 1 < argc) {
			write_dir = argv[++i];
		} else if (argv[i][0] == '-') {
			fprintf(stderr,
				"usage: json_inproc [--mb M] [--rounds R] [--write DIR] [FILE...]\n");
			return 2;
		} else if (ndocs < 16) {
			if (read_file(argv[i], &docs[ndocs++]))
				return 1;
		}
	}
	if (rounds < 1 || rounds > 64 || mb <= 0) {
		fprintf(stderr, "json_inproc: --rounds 1-64, --mb > 0\n");
		return 2;
	}
	if (!ndocs) {
		static const char *names[] = { "pod (watch event object)", "list of 500 pods",
					       "Job review, env 100 KiB",
					       "Job review, env 3 MiB - 4 KiB" };

		for (i = 0; i < 4; i++) {
			int rc = 0;

			vc_buf_init(&b, 0);
			if (i == 0)
				rc = add_pod(&b, 1);
			else if (i == 1) {
				rc = vc_buf_adds(&b, "{\"kind\":\"PodList\",\"apiVersion\":\"v1\","
						     "\"metadata\":{\"resourceVersion\":\"9\"},"
						     "\"items\":[");
				for (int p = 0; !rc && p < 500; p++)
					rc = (p ? vc_buf_addc(&b, ',') : 0) || add_pod(&b, p);
				if (!rc)
					rc = vc_buf_adds(&b, "]}");
			} else {
				rc = add_job_review(&b, i == 2 ? (size_t)100 << 10
							       : ((size_t)3 << 20) - 4096);
			}
			docs[ndocs].name = names[i];
			docs[ndocs].len = b.len;
			docs[ndocs].text = rc ? NULL : vc_buf_take(&b);
			vc_buf_release(&b);
			if (!docs[ndocs++].text)
				return 1;
		}
	}
	for (i = 0; write_dir && i < ndocs; i++) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%d.json", write_dir, i + 1);
		f = fopen(path, "wb");
		if (!f || fwrite(docs[i].text, 1, docs[i].len, f) != docs[i].len || fclose(f)) {
			fprintf(stderr, "%s: cannot write\n", path);
			return 1;
		}
		printf("%s: %s\n", path, docs[i].name);
	}
	if (write_dir)
		return 0;
	for (i = 0; i < ndocs; i++)
		if (same_trees(&docs[i]))
			return 1;
	printf("%-28s %10s %12s %12s %7s\n", "document", "bytes", "jansson MB/s", "caldera MB/s",
	       "ratio");
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < ndocs; i++) {
			docs[i].mbs[0][r] = time_one(0, &docs[i], mb);
			docs[i].mbs[1][r] = time_one(1, &docs[i], mb);
			printf("%-28s %10zu %12.1f %12.1f %7.2f\n", docs[i].name, docs[i].len,
			       docs[i].mbs[0][r], docs[i].mbs[1][r],
			       docs[i].mbs[1][r] / docs[i].mbs[0][r]);
		}
	}
	printf("medians over %d rounds:\n", rounds);
	for (i = 0; i < ndocs; i++) {
		double j = median(docs[i].mbs[0], rounds), c = median(docs[i].mbs[1], rounds);

		printf("%-28s %10zu %12.1f %12.1f %7.2f\n", docs[i].name, docs[i].len, j, c, c / j);
		vc_free(docs[i].text);
	}
	return 0;
}
