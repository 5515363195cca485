/*
 * Unit tests for the Queue, PodGroup and Pod admission handlers (webhook/queues.c,
 * podgroups.c, pods.c), called directly, without the review plumbing of admission.c.
 *
 * The cases are the data folders tests/data/admission/{queue,podgroup,pod}-* (format in
 * tests/data/admission/README.md), which test_admission.c also runs end to end through
 * admission_serve(). Here each case's request is handed straight to its handler, once
 * normally and then with every allocation failing in turn: a handler must either answer
 * exactly as expected or return VC_ENOMEM, and never leak.
 */
#include "vc_prelude.h"

#include <dirent.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>

#include "admission_internal.h"
#include "support/admission_fixture.h"
#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_str.h"

#define CASE_DIR "tests/data/admission"

/* ---- running one case ------------------------------------------------------------------- */

static json_t *load_file(const char *dir, const char *file, bool required)
{
	char path[512];
	json_error_t jerr;
	json_t *v;

	snprintf(path, sizeof(path), "%s/%s/%s", CASE_DIR, dir, file);
	v = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!v && required)
		fail_msg("%s: %s (line %d)", path, jerr.text, jerr.line);
	return v;
}

static admission_handler_fn handler_for(const char *path)
{
	static const struct {
		const char *path;
		admission_handler_fn fn;
	} routes[] = {
		{ "/queues/mutate", admit_queues_mutate },
		{ "/queues/validate", admit_queues_validate },
		{ "/podgroups/mutate", admit_podgroups_mutate },
		{ "/podgroups/validate", admit_podgroups_validate },
		{ "/pods/mutate", admit_pods_mutate },
		{ "/pods/validate", admit_pods_validate },
	};
	size_t i;

	for (i = 0; path && i < sizeof(routes) / sizeof(routes[0]); i++) {
		if (strcmp(routes[i].path, path) == 0)
			return routes[i].fn;
	}
	return NULL;
}

static const char *req_str(const json_t *request, const char *key)
{
	const char *s = vc_json_get_str(request, key);

	return s ? s : "";
}

static void request_from(const json_t *request, struct admission_request *req)
{
	const json_t *v;

	memset(req, 0, sizeof(*req));
	req->raw = request;
	req->uid = req_str(request, "uid");
	req->operation = req_str(request, "operation");
	req->name = req_str(request, "name");
	req->ns = req_str(request, "namespace");
	req->resource = vc_json_get_obj(request, "resource");
	v = json_object_get(request, "object");
	req->object = json_is_null(v) ? NULL : v;
	v = json_object_get(request, "oldObject");
	req->old_object = json_is_null(v) ? NULL : v;
}

/* Compare a result with expected.json; NULL when it matches, else a description (static). */
static const char *mismatch(const json_t *expected, const struct admission_result *res)
{
	static char why[2048];
	const json_t *allowed = json_object_get(expected, "allowed");
	const json_t *message = json_object_get(expected, "message");
	const json_t *contains = vc_json_get_arr(expected, "message_contains"), *s;
	const json_t *patch = json_object_get(expected, "patch");
	size_t i;

	if (allowed && json_is_true(allowed) != res->allowed) {
		snprintf(why, sizeof(why), "allowed: expected %s, got %s (message %s)",
			 json_is_true(allowed) ? "true" : "false", res->allowed ? "true" : "false",
			 res->message ? res->message : "(none)");
		return why;
	}
	if (json_is_string(message) &&
	    (!res->message || strcmp(res->message, json_string_value(message)) != 0)) {
		snprintf(why, sizeof(why), "message:\n  expected \"%s\"\n  got      \"%s\"",
			 json_string_value(message), res->message ? res->message : "(none)");
		return why;
	}
	if (json_is_null(message) && res->message) {
		snprintf(why, sizeof(why), "message: expected none, got \"%s\"", res->message);
		return why;
	}
	json_array_foreach (contains, i, s) {
		if (!res->message || !strstr(res->message, json_string_value(s))) {
			snprintf(why, sizeof(why), "message \"%s\" lacks \"%s\"",
				 res->message ? res->message : "(none)", json_string_value(s));
			return why;
		}
	}
	if (!patch)
		return NULL;
	if (json_is_string(patch) && strcmp(json_string_value(patch), "none") == 0) {
		if (!res->patch)
			return NULL;
	} else if (json_is_string(patch) && strcmp(json_string_value(patch), "null") == 0) {
		if (json_is_null(res->patch))
			return NULL;
	} else if (res->patch && vc_json_equal(patch, res->patch)) {
		return NULL;
	}
	{
		char *got =
			res->patch ? json_dumps(res->patch, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
		char *want = json_dumps(patch, JSON_COMPACT | JSON_ENCODE_ANY);

		snprintf(why, sizeof(why), "patch:\n  expected %s\n  got      %s",
			 want ? want : "?", got ? got : "(no patch)");
		vc_free(got);
		vc_free(want);
	}
	return why;
}

struct run {
	int cases;
	int failed;
	int chaos_steps;
};

/* Run one case folder (normally, then under allocation failures); count failures in run. */
static void run_case(const char *dir, struct run *run)
{
	json_t *desc = load_file(dir, "case.json", true);
	json_t *review = load_file(dir, "review.json", false);
	json_t *expected = load_file(dir, "expected.json", true);
	json_t *state = load_file(dir, "state.json", false);
	const char *path = vc_json_get_str(desc, "path"), *why;
	admission_handler_fn fn = handler_for(path);
	const json_t *request = vc_json_get_obj(review, "request");
	struct admission_request req;
	struct admission_result res;
	struct admission_fixture f;
	long n;
	int rc;

	assert_int_equal(admission_fixture_init(&f, state), 0);
	/* Cases of the HTTP and decode layer, and unknown paths, are test_admission.c's. */
	if (!fn || !request || vc_json_get_int(expected, "status", 0) != 200)
		goto out;
	run->cases++;
	request_from(request, &req);
	for (n = 0;; n++) {
		long failures;

		memset(&res, 0, sizeof(res));
		res.allowed = true;
		vc_alloc_fail_after(n);
		rc = fn(&f.ctx, &req, &res);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		why = NULL;
		if (rc != 0 && !(rc == VC_ENOMEM && failures))
			why = "the handler failed without an allocation failure";
		else if (rc == 0)
			why = mismatch(expected, &res);
		if (why) {
			print_error("%s (%s)%s: %s\n", dir, vc_json_get_str(desc, "description"),
				    failures ? " [allocation failure]" : "", why);
			run->failed++;
		}
		admission_result_release(&res);
		if (why || !failures)
			break;
		run->chaos_steps++;
	}
out:
	admission_fixture_release(&f);
	json_decref(desc);
	json_decref(review);
	json_decref(expected);
}

static bool ours(const char *name)
{
	return strncmp(name, "queue-", 6) == 0 || strncmp(name, "podgroup-", 9) == 0 ||
	       strncmp(name, "pod-", 4) == 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_case_folders(void **state)
{
	struct run run = { 0 };
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;
	DIR *d = opendir(CASE_DIR);

	(void)state;
	if (!d)
		fail_msg("cannot open %s (run from the repository root)", CASE_DIR);
	while ((e = readdir(d))) {
		if (!ours(e->d_name))
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		assert_non_null(names);
		names[n] = strdup(e->d_name);
		assert_non_null(names[n++]);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		run_case(names[i], &run);
		free(names[i]);
	}
	free(names);
	print_message("%d queue/podgroup/pod cases, %d allocation-failure steps, %d failed\n",
		      run.cases, run.chaos_steps, run.failed);
	assert_int_equal(run.failed, 0);
	assert_true(run.cases >= 60);
}

/* ---- direct tests of behaviour the folders cannot show ---------------------------------- */

static json_t *parse(const char *text)
{
	json_error_t jerr;
	json_t *v = json_loads(text, 0, &jerr);

	if (!v)
		fail_msg("bad test JSON: %s", jerr.text);
	return v;
}

/* No state and no config at all: lookups read as "not found", defaults apply. */
static void test_null_context(void **state)
{
	json_t *request = parse("{\"operation\":\"CREATE\",\"resource\":{\"group\":"
				"\"scheduling.volcano.sh\",\"version\":\"v1beta1\",\"resource\":"
				"\"podgroups\"},\"object\":{\"spec\":{\"queue\":\"q1\"}}}");
	struct admission_ctx ctx = { NULL, NULL };
	struct admission_result res = { true, NULL, NULL };
	struct admission_request req;

	(void)state;
	request_from(request, &req);
	assert_int_equal(admit_podgroups_validate(&ctx, &req, &res), 0);
	assert_false(res.allowed);
	assert_string_equal(res.message,
			    "unable to find queue: queue.scheduling.volcano.sh \"q1\" not found");
	admission_result_release(&res);
	res = (struct admission_result){ true, NULL, NULL };
	assert_int_equal(admit_podgroups_mutate(&ctx, &req, &res), 0);
	assert_true(res.allowed);
	assert_null(res.patch);
	json_decref(request);
}

/* A parent cycle in the cache ends the walks instead of hanging (Volcano would spin). */
static void test_parent_cycle_terminates(void **state)
{
	json_t *st = parse(
		"{\"queues\":["
		"{\"metadata\":{\"name\":\"a\"},\"spec\":{\"parent\":\"b\",\"capability\":{}}},"
		"{\"metadata\":{\"name\":\"b\"},\"spec\":{\"parent\":\"a\"}}]}");
	json_t *request =
		parse("{\"operation\":\"UPDATE\",\"resource\":{\"group\":\"scheduling.volcano.sh\","
		      "\"version\":\"v1beta1\",\"resource\":\"queues\"},"
		      "\"object\":{\"metadata\":{\"name\":\"a\"},\"spec\":{\"parent\":\"b\","
		      "\"capability\":{\"cpu\":\"4\"}}},"
		      "\"oldObject\":{\"metadata\":{\"name\":\"a\"},\"spec\":{\"parent\":\"b\"}}}");
	struct admission_result res = { true, NULL, NULL };
	struct admission_request req;
	struct admission_fixture f;

	(void)state;
	assert_int_equal(admission_fixture_init(&f, st), 0);
	request_from(request, &req);
	assert_int_equal(admit_queues_validate(&f.ctx, &req, &res), 0);
	assert_true(res.allowed);
	assert_null(res.message);
	admission_fixture_release(&f);
	json_decref(request);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_case_folders),
		cmocka_unit_test(test_null_context),
		cmocka_unit_test(test_parent_cycle_terminates),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
