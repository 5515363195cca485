/*
 * The admission suite: every case folder under tests/data/admission/ (format in its README.md)
 * goes through admission_serve() exactly as the HTTP server hands it a request, and every
 * member of the case's expected.json is checked. Adding a case means adding a folder.
 *
 * Besides the data-driven test, this file holds the plumbing's own unit tests (the string map,
 * deny helpers, the review decoder's edges) and an allocation-failure loop over the Job and
 * review cases: with the Nth allocation failing, a review must answer exactly as it does
 * normally or fail with VC_ENOMEM (HTTP 500), never answer differently, crash or leak.
 */
#include "vc_prelude.h"

#include <dirent.h>
#include <setjmp.h>
#include <cmocka.h>
#include <jansson.h>

#include "admission_internal.h"
#include "support/admission_fixture.h"
#include "vc_alloc.h"
#include "vc_base64.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_jsonpatch.h"
#include "vc_str.h"

#define CASE_DIR "tests/data/admission"
#define BODY_MAX ((size_t)3 << 20)

/* ---- reading a case ---------------------------------------------------------------------- */

struct test_case {
	char name[256];
	json_t *meta;	  /* case.json */
	json_t *expected; /* expected.json */
	char *body;	  /* review.json bytes (or the generated oversize body) */
	size_t len;
	const char *content_type;
	struct admission_fixture st;
};

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct vc_buf b;
	char chunk[8192];
	size_t n;

	if (!f)
		return NULL;
	vc_buf_init(&b, 0);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		assert_int_equal(vc_buf_add(&b, chunk, n), 0);
	fclose(f);
	*len = b.len;
	return vc_buf_take(&b);
}

static json_t *load_json(const char *dir, const char *file, bool required)
{
	char path[512];
	json_error_t jerr;
	json_t *v;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	v = json_load_file(path, JSON_DECODE_ANY, &jerr);
	if (!v && required)
		fail_msg("%s: %s (line %d)", path, jerr.text, jerr.line);
	return v;
}

/* A valid AdmissionReview padded with spaces to 3 MiB + 1 byte. */
static char *oversize_body(size_t *len)
{
	static const char head[] = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
				   "\"AdmissionReview\",\"request\":{\"uid\":\"big\"}}";
	char *b = vc_malloc(BODY_MAX + 2);

	assert_non_null(b);
	memset(b, ' ', BODY_MAX + 1);
	memcpy(b, head, sizeof(head) - 1);
	b[BODY_MAX + 1] = '\0';
	*len = BODY_MAX + 1;
	return b;
}

static void case_load(struct test_case *tc, const char *name)
{
	char dir[512], path[600];
	const json_t *ct;

	memset(tc, 0, sizeof(*tc));
	snprintf(tc->name, sizeof(tc->name), "%s", name);
	snprintf(dir, sizeof(dir), "%s/%s", CASE_DIR, name);
	tc->meta = load_json(dir, "case.json", true);
	tc->expected = load_json(dir, "expected.json", true);
	if (vc_json_get_bool(tc->meta, "oversize", false)) {
		tc->body = oversize_body(&tc->len);
	} else {
		snprintf(path, sizeof(path), "%s/review.json", dir);
		tc->body = read_file(path, &tc->len);
		if (!tc->body)
			fail_msg("%s: cannot read review.json", path);
	}
	ct = json_object_get(tc->meta, "content_type");
	tc->content_type = !ct ? "application/json" : json_string_value(ct);
	assert_int_equal(admission_fixture_init(&tc->st, load_json(dir, "state.json", false)), 0);
}

static void case_release(struct test_case *tc)
{
	json_decref(tc->meta);
	json_decref(tc->expected);
	vc_free(tc->body);
	admission_fixture_release(&tc->st);
}

/* ---- checking a case --------------------------------------------------------------------- */

struct outcome {
	int rc;
	int status;
	char *body;
	struct vc_error err;
};

static void serve_case(struct test_case *tc, struct outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->rc = admission_serve(&tc->st.ctx, json_string_value(json_object_get(tc->meta, "path")),
				tc->content_type, tc->body, tc->len, &o->body, &o->status, &o->err);
}

/* Check the response of one case against expected.json; report and return false on mismatch. */
static bool check_case(struct test_case *tc, const struct outcome *o)
{
	const json_t *exp = tc->expected, *want;
	json_t *got = NULL, *resp, *patch = NULL;
	struct vc_buf why;
	char *decoded = NULL;
	size_t dlen;
	bool ok;

	vc_buf_init(&why, 0);
#define MISMATCH(...) assert_int_equal(vc_buf_addf(&why, "\n    " __VA_ARGS__), 0)
	if (o->status != json_integer_value(json_object_get(exp, "status")))
		MISMATCH("status: want %" JSON_INTEGER_FORMAT ", got %d",
			 json_integer_value(json_object_get(exp, "status")), o->status);
	if (o->status != 200) {
		want = json_object_get(exp, "error");
		if (want && strcmp(json_string_value(want), o->err.text))
			MISMATCH("error: want \"%s\", got \"%s\"", json_string_value(want),
				 o->err.text);
		if (o->rc == 0)
			MISMATCH("a non-200 answer returned 0");
		goto report;
	}
	if (o->rc || !o->body) {
		MISMATCH("rc %d (%s)", o->rc, o->err.text);
		goto report;
	}
	if (vc_json_parse(o->body, strlen(o->body), 0, &got, NULL)) {
		MISMATCH("the answer is not JSON");
		goto report;
	}
	resp = json_object_get(got, "response");
	if (strcmp(vc_json_get_str(got, "kind") ? vc_json_get_str(got, "kind") : "",
		   "AdmissionReview") ||
	    !json_is_object(resp))
		MISMATCH("not an AdmissionReview with a response");
	want = json_object_get(exp, "api_version");
	if (want && !vc_str_eq(json_string_value(want), vc_json_get_str(got, "apiVersion")))
		MISMATCH("apiVersion: want %s", json_string_value(want));
	want = json_object_get(exp, "uid");
	if (want && !vc_str_eq(json_string_value(want), vc_json_get_str(resp, "uid")))
		MISMATCH("uid: want %s", json_string_value(want));
	want = json_object_get(exp, "allowed");
	if (want && !json_equal(want, json_object_get(resp, "allowed")))
		MISMATCH("allowed: want %s", json_is_true(want) ? "true" : "false");
	want = json_object_get(exp, "message");
	if (want) {
		const char *msg = vc_json_get_str(vc_json_get_obj(resp, "status"), "message");

		if (json_is_null(want) && json_object_get(resp, "status"))
			MISMATCH("message: want no status");
		else if (json_is_string(want) && !vc_str_eq(json_string_value(want), msg))
			MISMATCH("message:\n      want \"%s\"\n      got  \"%s\"",
				 json_string_value(want), msg ? msg : "(none)");
	}
	want = json_object_get(exp, "message_contains");
	if (want) {
		const char *msg = vc_json_get_str(vc_json_get_obj(resp, "status"), "message");
		const json_t *sub;
		size_t i;

		json_array_foreach (want, i, sub)
			if (!msg || !strstr(msg, json_string_value(sub)))
				MISMATCH("message lacks \"%s\": got \"%s\"", json_string_value(sub),
					 msg ? msg : "(none)");
	}
	want = json_object_get(exp, "patch");
	if (want) {
		const char *p64 = vc_json_get_str(resp, "patch");

		if (json_is_string(want) && !strcmp(json_string_value(want), "none")) {
			if (p64 || json_object_get(resp, "patchType"))
				MISMATCH("patch: want none, got one");
			goto report;
		}
		if (!p64 || !vc_str_eq(vc_json_get_str(resp, "patchType"), "JSONPatch")) {
			MISMATCH("patch: want one with patchType JSONPatch");
			goto report;
		}
		if (vc_base64_decode(p64, strlen(p64), &decoded, &dlen, NULL)) {
			MISMATCH("patch: bad base64");
			goto report;
		}
		if (json_is_string(want) && !strcmp(json_string_value(want), "null")) {
			if (strcmp(decoded, "null"))
				MISMATCH("patch: want null, got %s", decoded);
			goto report;
		}
		if (vc_json_parse_flags(decoded, dlen, 0, VC_JSON_PARSE_ANY, &patch, NULL) ||
		    !vc_json_equal(want, patch)) {
			char *w = vc_json_dumps_sorted(want);

			MISMATCH("patch:\n      want %s\n      got  %s", w, decoded);
			vc_free(w);
		} else {
			json_t *req = NULL, *patched = NULL;
			struct vc_error perr;

			if (!vc_json_parse(tc->body, tc->len, BODY_MAX, &req, NULL) &&
			    json_is_object(vc_json_path(req, "request.object")) &&
			    vc_json_patch_apply(vc_json_path(req, "request.object"), patch,
						&patched, &perr))
				MISMATCH("patch does not apply to request.object: %s", perr.text);
			json_decref(patched);
			json_decref(req);
		}
	}
report:
#undef MISMATCH
	ok = why.len == 0;
	if (!ok)
		print_message("FAIL %s: %s%s\n    answer: %d %s%s\n", tc->name,
			      vc_json_get_str(tc->meta, "description")
				      ? vc_json_get_str(tc->meta, "description")
				      : "",
			      vc_buf_str(&why), o->status, o->body ? o->body : "", o->err.text);
	vc_buf_release(&why);
	vc_free(decoded);
	json_decref(patch);
	json_decref(got);
	return ok;
}

static int case_filter(const struct dirent *d)
{
	return d->d_name[0] != '.' && strcmp(d->d_name, "README.md");
}

typedef void case_fn(struct test_case *tc, int *failed);

static size_t for_each_case(const char *prefix, case_fn *fn, int *failed)
{
	struct dirent **list;
	struct test_case tc;
	size_t ran = 0;
	int n, i;

	n = scandir(CASE_DIR, &list, case_filter, alphasort);
	if (n < 0)
		fail_msg("cannot read %s (run from the repository root)", CASE_DIR);
	for (i = 0; i < n; i++) {
		if (!prefix || vc_str_has_prefix(list[i]->d_name, prefix)) {
			case_load(&tc, list[i]->d_name);
			fn(&tc, failed);
			case_release(&tc);
			ran++;
		}
		free(list[i]);
	}
	free(list);
	return ran;
}

static void run_one(struct test_case *tc, int *failed)
{
	struct outcome o;

	serve_case(tc, &o);
	if (!check_case(tc, &o))
		(*failed)++;
	vc_free(o.body);
}

static void test_cases(void **state)
{
	int failed = 0;
	size_t ran;

	(void)state;
	ran = for_each_case(NULL, run_one, &failed);
	print_message("admission cases: %zu run, %d failed\n", ran, failed);
	assert_true(ran >= 100);
	assert_int_equal(failed, 0);
}

/*
 * With allocation N failing, the answer must be the normal one or a clean failure: 500, or 400
 * where jansson reports a failed allocation while parsing the body as a syntax error.
 */
static void chaos_one(struct test_case *tc, int *failed)
{
	struct outcome base, o;
	bool same, refused;
	long n;

	vc_alloc_fail_reset();
	serve_case(tc, &base);
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		serve_case(tc, &o);
		refused = vc_alloc_failures() > 0;
		vc_alloc_fail_reset();
		same = o.status == base.status && o.rc == base.rc && vc_str_eq(o.body, base.body) &&
		       !strcmp(o.err.text, base.err.text);
		if (!same && (!refused ||
			      (o.status != 500 && !(o.status == 400 && o.err.code == VC_EINVAL)))) {
			print_message("FAIL %s: allocation %ld failing gave %d %s %s\n", tc->name,
				      n, o.status, o.body ? o.body : "", o.err.text);
			(*failed)++;
			refused = false;
		}
		vc_free(o.body);
		if (!refused)
			break;
	}
	vc_free(base.body);
}

static void test_allocation_failures(void **state)
{
	int failed = 0;
	size_t ran;

	(void)state;
	vc_alloc_install_json();
	ran = for_each_case("job-", chaos_one, &failed);
	ran += for_each_case("review-", chaos_one, &failed);
	print_message("allocation-failure loop: %zu cases, %d failed\n", ran, failed);
	assert_int_equal(failed, 0);
}

/* ---- the plumbing's own tests ------------------------------------------------------------ */

static void test_string_maps(void **state)
{
	struct vc_hmap m;
	char key[32];
	size_t v, i;

	(void)state;
	vc_hmap_init_str(&m);
	assert_false(admission_hmap_get(&m, "a", &v));
	assert_int_equal(admission_hmap_add(&m, "a", 7), 1);
	assert_int_equal(admission_hmap_add(&m, "a", 9), 0);
	assert_true(admission_hmap_get(&m, "a", &v));
	assert_int_equal(v, 7);
	assert_int_equal(admission_hmap_add(&m, "", 1), 1);
	for (i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		assert_int_equal(admission_hmap_add(&m, key, i), 1);
	}
	assert_int_equal(vc_hmap_count(&m), 1002);
	assert_true(admission_hmap_get(&m, "k999", &v));
	assert_int_equal(v, 999);
	assert_true(admission_hmap_get(&m, "", NULL));
	vc_hmap_release(&m, NULL);
	assert_int_equal(vc_hmap_count(&m), 0);

	/* Every allocation failing in turn leaves the map usable and leak-free. */
	for (i = 0;; i++) {
		size_t k;
		int rc = 0;

		vc_hmap_init_str(&m);
		vc_alloc_fail_after((long)i);
		for (k = 0; k < 40 && rc >= 0; k++) {
			snprintf(key, sizeof(key), "k%zu", k);
			rc = admission_hmap_add(&m, key, k);
		}
		vc_alloc_fail_reset();
		vc_hmap_release(&m, NULL);
		if (rc >= 0)
			break;
		assert_int_equal(rc, VC_ENOMEM);
	}
}

static void test_deny_helpers(void **state)
{
	struct admission_result res = { .allowed = true };
	struct admission_request req = { .uid = "" };
	json_t *gvr = json_pack("{ssssss}", "group", "", "version", "v1", "resource", "pods");

	(void)state;
	assert_int_equal(admission_deny(&res, "a %d", 1), 0);
	assert_false(res.allowed);
	assert_string_equal(res.message, "a 1");
	assert_int_equal(admission_deny_take(&res, vc_strdup("b")), 0);
	assert_string_equal(res.message, "b");
	assert_int_equal(admission_deny_take(&res, NULL), VC_ENOMEM);
	assert_string_equal(res.message, "b");
	admission_result_release(&res);
	assert_null(res.message);

	/* The GVR check: a missing resource prints as the expected triple, note the space. */
	res.allowed = true;
	assert_int_equal(admission_check_resource(&req, "", "v1", "pods", &res), 1);
	assert_string_equal(res.message, "expect resource to be { v1 pods}");
	admission_result_release(&res);
	res.allowed = true;
	req.resource = gvr;
	assert_int_equal(admission_check_resource(&req, "", "v1", "pods", &res), 0);
	assert_true(res.allowed);
	assert_int_equal(
		admission_check_resource(&req, "batch.volcano.sh", "v1alpha1", "jobs", &res), 1);
	assert_string_equal(res.message, "expect resource to be {batch.volcano.sh v1alpha1 jobs}");
	admission_result_release(&res);
	json_decref(gvr);

	vc_alloc_fail_after(0);
	res.allowed = true;
	assert_int_equal(admission_deny(&res, "x"), VC_ENOMEM);
	vc_alloc_fail_reset();
	assert_false(res.allowed);
	assert_null(res.message);
}

static void test_review_edges(void **state)
{
	static const char *const paths[] = { "/jobs/mutate",	  "/jobs/validate",
					     "/queues/mutate",	  "/queues/validate",
					     "/podgroups/mutate", "/podgroups/validate",
					     "/pods/mutate",	  "/pods/validate" };
	struct admission_ctx ctx = { 0 };
	struct vc_error err;
	json_t *review, *resp = NULL;
	char *out = NULL;
	size_t i;
	int status;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(paths); i++)
		assert_string_equal(admission_paths[i], paths[i]);
	assert_null(admission_paths[VC_ARRAY_SIZE(paths)]);

	/* No config and no state at all: the Job mutator still answers with Volcano's default. */
	review = json_pack("{s{sss{ssssss}ss}}", "request", "uid", "u1", "resource", "group",
			   "batch.volcano.sh", "version", "v1alpha1", "resource", "jobs",
			   "operation", "CREATE");
	assert_int_equal(admission_review(&ctx, "/jobs/mutate", review, &resp, &err), 0);
	assert_string_equal(json_string_value(vc_json_path(resp, "apiVersion")),
			    "admission.k8s.io/v1");
	assert_string_equal(json_string_value(vc_json_path(resp, "response.uid")), "u1");
	assert_true(json_is_true(vc_json_path(resp, "response.allowed")));
	/* [queue, schedulerName volcano, maxRetry, minAvailable 0] */
	assert_string_equal(json_string_value(vc_json_path(resp, "response.patch")),
			    "W3sib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvcXVldWUiLCJ2YWx1ZSI6ImRlZmF1bHQi"
			    "fSx7Im9wIjoiYWRkIiwicGF0aCI6Ii9zcGVjL3NjaGVkdWxlck5hbWUiLCJ2YWx1ZSI6"
			    "InZvbGNhbm8ifSx7Im9wIjoiYWRkIiwicGF0aCI6Ii9zcGVjL21heFJldHJ5IiwidmFs"
			    "dWUiOjN9LHsib3AiOiJhZGQiLCJwYXRoIjoiL3NwZWMvbWluQXZhaWxhYmxlIiwidmFs"
			    "dWUiOjB9XQ==");
	json_decref(resp);
	assert_int_equal(admission_review(&ctx, "/nope", review, &resp, &err), VC_ENOENT);
	assert_null(resp);
	json_decref(review);
	review = json_string("x");
	assert_int_equal(admission_review(&ctx, "/jobs/mutate", review, &resp, &err), VC_EINVAL);
	json_decref(review);

	/* Serve: the order of the HTTP checks (path, size, content type, body). */
	assert_int_equal(admission_serve(&ctx, "/x", NULL, "", 0, &out, &status, &err), VC_ENOENT);
	assert_int_equal(status, 404);
	assert_string_equal(err.text, "404 page not found");
	assert_int_equal(admission_serve(&ctx, "/jobs/validate", NULL, "{}", BODY_MAX + 1, &out,
					 &status, &err),
			 VC_E2BIG);
	assert_int_equal(status, 413);
	assert_int_equal(
		admission_serve(&ctx, "/jobs/validate", NULL, "{}", 2, &out, &status, &err),
		VC_EINVAL);
	assert_int_equal(status, 415);
	assert_int_equal(admission_serve(&ctx, "/jobs/validate", "application/json", NULL, 0, &out,
					 &status, &err),
			 VC_EINVAL);
	assert_int_equal(status, 400);
	assert_null(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_string_maps),	    cmocka_unit_test(test_deny_helpers),
		cmocka_unit_test(test_review_edges),	    cmocka_unit_test(test_cases),
		cmocka_unit_test(test_allocation_failures),
	};

	/* As vc-webhook runs: jansson through vc_alloc, each review's trees in an arena. */
	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
