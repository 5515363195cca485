/*
 * admission_inproc.c - vc-webhook's admission step in process: admission_serve() on review
 * bodies in a loop, no socket, no TLS. CPU per review (getrusage, user + system) for each
 * review and for the whole list, and the answers written out to compare two builds with cmp.
 *
 *   admission_inproc [--reps N] [--rounds R] [--dump DIR] PATH=FILE...
 *
 * Each round sends every PATH=FILE pair N times (default 200) in turn and prints one line per
 * pair: path, file size, reviews, µs CPU per review; the last line is the total. With --dump
 * the answer to each pair goes to DIR/<index>.json (the first answer; every later answer must
 * be the same bytes, or the program says so and exits 1). The cluster the handlers see: every
 * Queue exists and is Open with weight 1 and no children, every Namespace exists without
 * annotations (what bench_admission.sh's captured reviews meet on its cluster).
 *
 * Built and run by bench/admission_inproc.sh; used to profile
 * (perf record -g) and to check that an optimisation keeps the answers byte-identical.
 */
#include "admission.h"

#include <sys/resource.h>
#include <time.h>

#include "vc_alloc.h"
#include "vc_err.h"

struct pair {
	const char *path, *file;
	char *body;
	size_t len;
	char *answer; /* the first answer, to compare the later ones with */
};

static int get_queue(void *ctx, const char *name, json_t **out, struct vc_error *err)
{
	(void)ctx;
	(void)err;
	*out = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:i, s:b}, s:{s:s}}", "apiVersion",
			 "scheduling.volcano.sh/v1beta1", "kind", "Queue", "metadata", "name", name,
			 "resourceVersion", "5", "spec", "weight", 1, "reclaimable", 1, "status",
			 "state", "Open");
	return *out ? 0 : VC_ENOMEM;
}

static int queue_children(void *ctx, const char *name, json_t **out, struct vc_error *err)
{
	(void)ctx;
	(void)name;
	(void)err;
	*out = json_array();
	return *out ? 0 : VC_ENOMEM;
}

static int get_namespace(void *ctx, const char *name, json_t **out, struct vc_error *err)
{
	(void)ctx;
	(void)err;
	*out = json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "v1", "kind", "Namespace",
			 "metadata", "name", name, "resourceVersion", "3");
	return *out ? 0 : VC_ENOMEM;
}

static double cpu_us(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static char *read_all(const char *file, size_t *len)
{
	FILE *f = fopen(file, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = vc_malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			vc_free(buf);
			buf = NULL;
		} else if (buf) {
			*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

static int write_all(const char *file, const char *s)
{
	FILE *f = fopen(file, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fputs(s, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "volcano", NULL };
	struct admission_config config;
	struct admission_state state = { get_queue, queue_children, get_namespace, NULL };
	struct admission_ctx ctx = { &config, &state };
	struct pair pairs[64];
	const char *dump = NULL;
	long reps = 200, rounds = 1, r, k;
	size_t n = 0, i;
	int a, status = 0;

	vc_alloc_install_json();
	admission_config_init(&config);
	config.scheduler_names = names;
	for (a = 1; a < argc; a++) {
		char *eq = strchr(argv[a], '=');

		if (!strcmp(argv[a], "--reps") && a + 1 < argc) {
			reps = strtol(argv[++a], NULL, 10);
		} else if (!strcmp(argv[a], "--rounds") && a + 1 < argc) {
			rounds = strtol(argv[++a], NULL, 10);
		} else if (!strcmp(argv[a], "--dump") && a + 1 < argc) {
			dump = argv[++a];
		} else if (eq && argv[a][0] == '/' && n < VC_ARRAY_SIZE(pairs)) {
			*eq = '\0';
			pairs[n].path = argv[a];
			pairs[n].file = eq + 1;
			pairs[n].answer = NULL;
			pairs[n].body = read_all(pairs[n].file, &pairs[n].len);
			if (!pairs[n].body) {
				fprintf(stderr, "admission_inproc: cannot read %s\n",
					pairs[n].file);
				return 1;
			}
			n++;
		} else {
			fprintf(stderr,
				"usage: admission_inproc [--reps N] [--rounds R] [--dump DIR] "
				"PATH=FILE...\n");
			return 2;
		}
	}
	if (!n || reps < 1 || rounds < 1) {
		fprintf(stderr, "admission_inproc: nothing to send\n");
		return 2;
	}
	for (r = 0; r < rounds; r++) {
		double all = 0;

		for (i = 0; i < n; i++) {
			double t0 = cpu_us(), t;

			for (k = 0; k < reps; k++) {
				struct vc_error err;
				char *out = NULL;
				int st, rc;

				vc_error_clear(&err);
				rc = admission_serve(&ctx, pairs[i].path, "application/json",
						     pairs[i].body, pairs[i].len, &out, &st, &err);
				if (rc) {
					fprintf(stderr, "admission_inproc: %s %s: %d %s\n",
						pairs[i].path, pairs[i].file, st, err.text);
					return 1;
				}
				if (!pairs[i].answer) {
					pairs[i].answer = out;
					continue;
				}
				if (strcmp(out, pairs[i].answer)) {
					fprintf(stderr, "admission_inproc: %s: answers differ\n",
						pairs[i].file);
					status = 1;
				}
				vc_free(out);
			}
			t = cpu_us() - t0;
			all += t;
			printf("%d\t%s\t%zu\t%ld\t%.1f\n", (int)r, pairs[i].path, pairs[i].len,
			       reps, t / (double)reps);
		}
		printf("%d\ttotal\t-\t%ld\t%.1f\n", (int)r, reps * (long)n,
		       all / (double)(reps * (long)n));
	}
	for (i = 0; i < n; i++) {
		if (dump) {
			char file[4096];

			snprintf(file, sizeof(file), "%s/%zu.json", dump, i);
			if (write_all(file, pairs[i].answer)) {
				fprintf(stderr, "admission_inproc: cannot write %s\n", file);
				status = 1;
			}
		}
		vc_free(pairs[i].answer);
		vc_free(pairs[i].body);
	}
	return status;
}
