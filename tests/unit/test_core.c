/* Unit tests for the core modules: vc_err, vc_alloc, vc_buf, vc_str, vc_log. */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_err.h"
#include "vc_log.h"
#include "vc_str.h"

static void test_error_set_and_prefix(void **state)
{
	struct vc_error err;

	(void)state;
	vc_error_clear(&err);
	assert_int_equal(err.code, 0);
	assert_string_equal(err.text, "");
	assert_int_equal(vc_error_set(&err, VC_EINVAL, "bad %s", "thing"), VC_EINVAL);
	assert_string_equal(err.text, "bad thing");
	vc_error_prefix(&err, "parsing '%s'", "x");
	assert_string_equal(err.text, "parsing 'x': bad thing");
	assert_int_equal(vc_error_set_at(&err, VC_EPARSE, 3, 7, 42, "oops"), VC_EPARSE);
	assert_int_equal(err.line, 3);
	assert_int_equal(err.column, 7);
	assert_int_equal(err.position, 42);
	/* A NULL error struct is allowed everywhere. */
	assert_int_equal(vc_error_set(NULL, VC_ENOMEM, "x"), VC_ENOMEM);
	assert_string_equal(vc_strerror(VC_ENOTFOUND), "not found");
	assert_string_equal(vc_strerror(12345), "unknown error");
}

static void test_alloc_failure_injection(void **state)
{
	void *a, *b;

	(void)state;
	vc_alloc_fail_after(1);
	a = vc_malloc(8);
	b = vc_malloc(8);
	assert_non_null(a);
	assert_null(b);
	assert_int_equal(vc_alloc_failures(), 1);
	vc_alloc_fail_reset();
	b = vc_malloc(8);
	assert_non_null(b);
	vc_free(a);
	vc_free(b);
}

static void test_buf_grow_cap_consume(void **state)
{
	struct vc_buf b;
	char *s;
	int i;

	(void)state;
	vc_buf_init(&b, 16);
	assert_string_equal(vc_buf_str(&b), "");
	assert_int_equal(vc_buf_adds(&b, "hello"), 0);
	assert_int_equal(vc_buf_addf(&b, " %d", 42), 0);
	assert_string_equal(vc_buf_str(&b), "hello 42");
	/* 8 + 8 = 16 is not below the cap: refused, contents unchanged. */
	assert_int_equal(vc_buf_adds(&b, "12345678"), VC_E2BIG);
	assert_string_equal(vc_buf_str(&b), "hello 42");
	assert_int_equal(vc_buf_adds(&b, "1234567"), 0);
	assert_int_equal(b.len, 15);
	vc_buf_consume(&b, 6);
	assert_string_equal(vc_buf_str(&b), "421234567");
	vc_buf_truncate(&b, 2);
	assert_string_equal(vc_buf_str(&b), "42");
	s = vc_buf_take(&b);
	assert_string_equal(s, "42");
	assert_int_equal(b.len, 0);
	vc_free(s);

	vc_buf_init(&b, 0);
	for (i = 0; i < 1000; i++)
		assert_int_equal(vc_buf_addc(&b, 'x'), 0);
	assert_int_equal(b.len, 1000);
	vc_buf_release(&b);
}

static void test_parse_numbers(void **state)
{
	int64_t v;
	int iv;
	double d;
	bool bv;

	(void)state;
	assert_int_equal(vc_parse_int64("-42", &v), 0);
	assert_int_equal(v, -42);
	assert_int_equal(vc_parse_int64("", &v), VC_EINVAL);
	assert_int_equal(vc_parse_int64("12x", &v), VC_EINVAL);
	assert_int_equal(vc_parse_int64(" 1", &v), VC_EINVAL);
	assert_int_equal(vc_parse_int64("99999999999999999999", &v), VC_ERANGE);
	assert_int_equal(vc_parse_int("70000", 1, 65535, &iv), VC_ERANGE);
	assert_int_equal(vc_parse_int("8", 1, 65535, &iv), 0);
	assert_int_equal(iv, 8);
	assert_int_equal(vc_parse_double("1.5", &d), 0);
	assert_true(d == 1.5);
	assert_int_equal(vc_parse_double("inf", &d), VC_ERANGE);
	assert_int_equal(vc_parse_bool("True", &bv), 0);
	assert_true(bv);
	assert_int_equal(vc_parse_bool("0", &bv), 0);
	assert_false(bv);
	assert_int_equal(vc_parse_bool("yes", &bv), VC_EINVAL);
	assert_true(vc_str_has_prefix("volcano.sh/job-name", "volcano.sh/"));
	assert_true(vc_str_has_suffix("a.host", ".host"));
	assert_false(vc_str_has_suffix("t", ".host"));
	assert_true(vc_str_eq(NULL, NULL));
	assert_false(vc_str_eq("a", NULL));
}

struct captured {
	int count;
	int level;
	char line[4096];
};

static void capture_sink(void *ctx, int level, const char *line)
{
	struct captured *c = ctx;

	c->count++;
	c->level = level;
	snprintf(c->line, sizeof(c->line), "%s", line);
}

static int side_effects;

static int bump(void)
{
	return ++side_effects;
}

static void test_log_levels_and_format(void **state)
{
	struct captured c = { 0 };

	(void)state;
	vc_log_set_sink(capture_sink, &c);
	vc_log_set_component("vc-test");
	vc_log_set_verbosity(0);
	VC_INFO("pod \"created\"", "pod=%s/%s", "ns", "job-task-0");
	assert_int_equal(c.count, 1);
	assert_non_null(strstr(
		c.line, " level=info comp=vc-test msg=\"pod \\\"created\\\"\" pod=ns/job-task-0"));
	assert_int_equal(strncmp(c.line, "ts=", 3), 0);
	/* Below the threshold: not emitted, arguments not evaluated. */
	VC_LOG(VC_LOG_V(2), "detail", "n=%d", bump());
	assert_int_equal(c.count, 1);
	assert_int_equal(side_effects, 0);
	vc_log_set_verbosity(2);
	VC_LOG(VC_LOG_V(2), "detail", "n=%d", bump());
	assert_int_equal(c.count, 2);
	assert_int_equal(side_effects, 1);
	assert_non_null(strstr(c.line, "level=v2"));
	VC_WARN("plain", "");
	assert_non_null(strstr(c.line, "msg=\"plain\""));
	vc_log_set_sink(NULL, NULL);
	vc_log_set_verbosity(0);
}

/*
 * The jansson arena: a tree made inside the bracket comes from it (end reports the bytes
 * reserved; a large tree crosses several chunks, mmap'd ones included) and dumps as the same
 * text; a node made outside and freed inside is freed for real (ASan's leak check in make
 * asan); what is made while paused is the client's and outlives the arena; brackets do not nest;
 * failure injection counts arena allocations.
 */
static void test_json_arena(void **state)
{
	struct vc_json_arena *a, *p;
	json_free_t jfree;
	json_t *outside, *arr, *kept, *o;
	char *text;
	size_t i, reserved;
	int n;

	(void)state;
	vc_alloc_install_json();
	outside = json_pack("{s:s}", "made", "outside");
	assert_non_null(outside);

	a = vc_json_arena_begin();
	assert_non_null(a);
	assert_null(vc_json_arena_begin());
	arr = json_array();
	assert_non_null(arr);
	for (i = 0; i < 100000; i++)
		assert_int_equal(json_array_append_new(arr, json_pack("{s:i}", "i", (int)i)), 0);
	assert_int_equal(json_array_size(arr), 100000);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(arr, 99999), "i")),
			 99999);
	/* json_dumps' text comes from jansson's allocator: the arena's, freed through jansson. */
	text = json_dumps(json_array_get(arr, 12345), JSON_COMPACT);
	assert_string_equal(text, "{\"i\":12345}");
	json_get_alloc_funcs(NULL, &jfree);
	jfree(text);
	json_decref(arr);
	json_decref(outside);
	p = vc_json_arena_pause();
	assert_ptr_equal(p, a);
	kept = json_pack("{s:s}", "made", "paused");
	assert_non_null(kept);
	vc_json_arena_resume(p);
	reserved = vc_json_arena_end(a);
	assert_true(reserved >= ((size_t)4 << 20));
	assert_string_equal(json_string_value(json_object_get(kept, "made")), "paused");
	json_decref(kept);
	assert_int_equal(vc_json_arena_end(NULL), 0);

	/* Nothing made: nothing reserved; made while paused: nothing either. */
	a = vc_json_arena_begin();
	assert_non_null(a);
	assert_int_equal(vc_json_arena_end(a), 0);
	a = vc_json_arena_begin();
	p = vc_json_arena_pause();
	kept = json_object();
	vc_json_arena_resume(p);
	assert_int_equal(vc_json_arena_end(a), 0);
	json_decref(kept);

	/* Failure injection: the Nth allocation fails in the arena as outside it. */
	for (n = 0; n < 4; n++) {
		a = vc_json_arena_begin();
		assert_non_null(a);
		vc_alloc_fail_after(n);
		o = json_pack("{s:s, s:[i, i]}", "a", "b", "c", 1, 2);
		vc_alloc_fail_reset();
		json_decref(o);
		vc_json_arena_end(a);
	}
	a = vc_json_arena_begin();
	vc_alloc_fail_after(0);
	assert_null(json_object());
	vc_alloc_fail_reset();
	vc_json_arena_end(a);
	json_set_alloc_funcs(malloc, free);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_set_and_prefix),
		cmocka_unit_test(test_alloc_failure_injection),
		cmocka_unit_test(test_json_arena),
		cmocka_unit_test(test_buf_grow_cap_consume),
		cmocka_unit_test(test_parse_numbers),
		cmocka_unit_test(test_log_levels_and_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
