/* Unit tests for vc_validate: Kubernetes name checks, field paths and errors, Go quoting. */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_err.h"
#include "vc_validate.h"

#define DNS1123_LABEL_MSG                                                                        \
	"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " \
	"and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', " \
	"regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define DNS1123_SUBDOMAIN_MSG                                                                     \
	"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' " \
	"or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "     \
	"regex used for validation is "                                                           \
	"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define DNS1035_LABEL_MSG                                                                         \
	"a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with " \
	"an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "   \
	"'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
#define NAME_PART_MSG                                                                             \
	"name part must consist of alphanumeric characters, '-', '_' or '.', and must start and " \
	"end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex " \
	"used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define LABEL_KEY_MSG                                                                           \
	"a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must " \
	"start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or "      \
	"'123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') "  \
	"with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
#define LABEL_VALUE_MSG                                                                          \
	"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' " \
	"or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "    \
	"'my_value',  or '12345', regex used for validation is "                                 \
	"'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
#define C_IDENTIFIER_MSG                                                                          \
	"a valid C identifier must start with alphabetic character or '_', followed by a string " \
	"of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex "  \
	"used for validation is '[A-Za-z_][A-Za-z0-9_]*')"
#define ENV_VAR_MSG                                                                              \
	"a valid environment variable name must consist of alphabetic characters, digits, '_', " \
	"'-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  " \
	"or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')"

typedef int check_fn(const char *value, struct vc_strlist *msgs);

/* One table row: a value and the messages expected, NULL-terminated (none = valid). */
struct check_case {
	const char *value;
	const char *msgs[4];
};

static void run_checks(check_fn *fn, const struct check_case *cases, size_t n)
{
	size_t i, j, want;

	for (i = 0; i < n; i++) {
		struct vc_strlist msgs;
		int rc;

		for (want = 0; cases[i].msgs[want]; want++)
			;
		vc_strlist_init(&msgs);
		rc = fn(cases[i].value, &msgs);
		if ((size_t)msgs.len != want)
			fail_msg("'%s': %zu messages, want %zu (first: %s)", cases[i].value,
				 msgs.len, want, msgs.len ? msgs.items[0] : "-");
		assert_int_equal(rc, want ? VC_EINVALID : 0);
		for (j = 0; j < want; j++)
			assert_string_equal(msgs.items[j], cases[i].msgs[j]);
		/* The same verdict without a list. */
		assert_int_equal(fn(cases[i].value, NULL), want ? VC_EINVALID : 0);
		vc_strlist_release(&msgs);
	}
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static void test_dns1123_label(void **state)
{
	char *long63 = repeat('a', 63), *long64 = repeat('a', 64), *dotted = repeat('a', 66);

	(void)state;
	dotted[10] = '.';
	{
		const struct check_case cases[] = {
			{ "a", { NULL } },
			{ "my-name", { NULL } },
			{ "123-abc", { NULL } },
			{ long63, { NULL } },
			{ "", { DNS1123_LABEL_MSG, NULL } },
			{ "A", { DNS1123_LABEL_MSG, NULL } },
			{ "-a", { DNS1123_LABEL_MSG, NULL } },
			{ "a-", { DNS1123_LABEL_MSG, NULL } },
			{ "a_b", { DNS1123_LABEL_MSG, NULL } },
			{ "a..b", { DNS1123_LABEL_MSG, NULL } },
			{ "a.b", { "must not contain dots", NULL } },
			{ long64, { "must be no more than 63 characters", NULL } },
			{ dotted,
			  { "must be no more than 63 characters", "must not contain dots", NULL } },
		};

		run_checks(vc_validate_dns1123_label, cases, VC_ARRAY_SIZE(cases));
	}
	free(long63);
	free(long64);
	free(dotted);
}

static void test_dns1123_subdomain_and_1035(void **state)
{
	char *long253 = repeat('a', 253), *long254 = repeat('a', 254), *bad254 = repeat('A', 254);
	const struct check_case subdomains[] = {
		{ "example.com", { NULL } },
		{ "a", { NULL } },
		{ "1.2.3", { NULL } },
		{ long253, { NULL } },
		{ "Example.com", { DNS1123_SUBDOMAIN_MSG, NULL } },
		{ "", { DNS1123_SUBDOMAIN_MSG, NULL } },
		{ ".a", { DNS1123_SUBDOMAIN_MSG, NULL } },
		{ "a.", { DNS1123_SUBDOMAIN_MSG, NULL } },
		{ "a..b", { DNS1123_SUBDOMAIN_MSG, NULL } },
		{ "a.-b", { DNS1123_SUBDOMAIN_MSG, NULL } },
		{ long254, { "must be no more than 253 characters", NULL } },
		{ bad254, { "must be no more than 253 characters", DNS1123_SUBDOMAIN_MSG, NULL } },
	};
	const struct check_case labels1035[] = {
		{ "abc-123", { NULL } },
		{ "a", { NULL } },
		{ "1abc", { DNS1035_LABEL_MSG, NULL } },
		{ "abc-", { DNS1035_LABEL_MSG, NULL } },
		{ "a.b", { DNS1035_LABEL_MSG, NULL } },
		{ "", { DNS1035_LABEL_MSG, NULL } },
		{ long254, { "must be no more than 63 characters", NULL } },
	};

	(void)state;
	run_checks(vc_validate_dns1123_subdomain, subdomains, VC_ARRAY_SIZE(subdomains));
	run_checks(vc_validate_dns1035_label, labels1035, VC_ARRAY_SIZE(labels1035));
	free(long253);
	free(long254);
	free(bad254);
}

static void test_qualified_name(void **state)
{
	char *name63 = repeat('a', 63), *name64 = repeat('a', 64);
	char *prefix254 = repeat('a', 256);

	(void)state;
	prefix254[254] = '/';
	prefix254[255] = 'x';
	{
		const struct check_case cases[] = {
			{ "MyName", { NULL } },
			{ "my.name", { NULL } },
			{ "123-abc", { NULL } },
			{ "a_b", { NULL } },
			{ "example.com/MyName", { NULL } },
			{ "volcano.sh/job-name", { NULL } },
			{ name63, { NULL } },
			{ "a/b/c", { LABEL_KEY_MSG, NULL } },
			{ "/a", { "prefix part must be non-empty", NULL } },
			{ "Example.com/a", { "prefix part " DNS1123_SUBDOMAIN_MSG, NULL } },
			{ prefix254, { "prefix part must be no more than 253 bytes", NULL } },
			{ "a/", { "name part must be non-empty", NAME_PART_MSG, NULL } },
			{ "", { "name part must be non-empty", NAME_PART_MSG, NULL } },
			{ "/",
			  { "prefix part must be non-empty", "name part must be non-empty",
			    NAME_PART_MSG, NULL } },
			{ name64, { "name part must be no more than 63 bytes", NULL } },
			{ "-a", { NAME_PART_MSG, NULL } },
			{ "a b", { NAME_PART_MSG, NULL } },
			{ "job-Name_", { NAME_PART_MSG, NULL } },
		};

		run_checks(vc_validate_qualified_name, cases, VC_ARRAY_SIZE(cases));
	}
	free(name63);
	free(name64);
	free(prefix254);
}

static void test_label_value_identifiers(void **state)
{
	char *v63 = repeat('z', 63), *v64 = repeat('z', 64);
	const struct check_case values[] = {
		{ "", { NULL } },
		{ "a", { NULL } },
		{ "my_value", { NULL } },
		{ "1.2-3", { NULL } },
		{ v63, { NULL } },
		{ "-a", { LABEL_VALUE_MSG, NULL } },
		{ "a b", { LABEL_VALUE_MSG, NULL } },
		{ "a/b", { LABEL_VALUE_MSG, NULL } },
		{ v64, { "must be no more than 63 bytes", NULL } },
	};
	const struct check_case idents[] = {
		{ "my_name", { NULL } },
		{ "_x1", { NULL } },
		{ "1x", { C_IDENTIFIER_MSG, NULL } },
		{ "", { C_IDENTIFIER_MSG, NULL } },
		{ "a-b", { C_IDENTIFIER_MSG, NULL } },
	};
	const struct check_case envs[] = {
		{ "MY_ENV.NAME", { NULL } },
		{ "-x", { NULL } },
		{ "1x", { ENV_VAR_MSG, NULL } },
		{ "", { ENV_VAR_MSG, NULL } },
		{ "a=b", { ENV_VAR_MSG, NULL } },
		{ ".", { "must not be '.'", NULL } },
		{ "..", { "must not be '..'", NULL } },
		{ "..a", { "must not start with '..'", NULL } },
	};

	(void)state;
	run_checks(vc_validate_label_value, values, VC_ARRAY_SIZE(values));
	run_checks(vc_validate_c_identifier, idents, VC_ARRAY_SIZE(idents));
	run_checks(vc_validate_env_var_name, envs, VC_ARRAY_SIZE(envs));
	free(v63);
	free(v64);
}

static void test_strlist(void **state)
{
	struct vc_strlist l;
	struct vc_buf b;

	(void)state;
	vc_strlist_init(&l);
	vc_buf_init(&b, 0);
	assert_int_equal(vc_strlist_format_go(&l, &b), 0);
	assert_string_equal(vc_buf_str(&b), "[]");
	vc_buf_reset(&b);
	assert_int_equal(vc_strlist_aggregate(&l, &b), 0);
	assert_string_equal(vc_buf_str(&b), "");
	assert_int_equal(vc_strlist_add(&l, "name part must be no more than 63 bytes"), 0);
	assert_int_equal(vc_strlist_aggregate(&l, &b), 0);
	assert_string_equal(vc_buf_str(&b), "name part must be no more than 63 bytes");
	vc_buf_reset(&b);
	assert_int_equal(vc_strlist_addf(&l, "second %d", 2), 0);
	assert_int_equal(vc_strlist_add(&l, "name part must be no more than 63 bytes"), 0);
	assert_int_equal(l.len, 3);
	assert_int_equal(vc_strlist_format_go(&l, &b), 0);
	assert_string_equal(vc_buf_str(&b), "[name part must be no more than 63 bytes second 2 "
					    "name part must be no more than 63 bytes]");
	vc_buf_reset(&b);
	/* The aggregate drops the repeated text. */
	assert_int_equal(vc_strlist_aggregate(&l, &b), 0);
	assert_string_equal(vc_buf_str(&b), "[name part must be no more than 63 bytes, second 2]");
	vc_buf_reset(&b);
	assert_int_equal(vc_strlist_join(&l, "; ", &b), 0);
	assert_string_equal(vc_buf_str(&b), "name part must be no more than 63 bytes; second 2; "
					    "name part must be no more than 63 bytes");
	vc_buf_release(&b);
	vc_strlist_release(&l);
	assert_int_equal(l.len, 0);
	assert_null(l.items);

	/* Two equal texts only: one survives, printed without brackets. */
	vc_strlist_init(&l);
	vc_buf_init(&b, 0);
	assert_int_equal(vc_strlist_add(&l, "x"), 0);
	assert_int_equal(vc_strlist_add(&l, "x"), 0);
	assert_int_equal(vc_strlist_aggregate(&l, &b), 0);
	assert_string_equal(vc_buf_str(&b), "x");
	vc_buf_release(&b);
	vc_strlist_release(&l);
}

static void expect_quote_n(const char *s, size_t n, const char *want)
{
	struct vc_buf b;

	vc_buf_init(&b, 0);
	assert_int_equal(vc_go_quote_n(s, n, &b), 0);
	assert_string_equal(vc_buf_str(&b), want);
	vc_buf_release(&b);
}

static void expect_quote(const char *s, const char *want)
{
	expect_quote_n(s, strlen(s), want);
}

static void test_go_quote(void **state)
{
	(void)state;
	expect_quote("", "\"\"");
	expect_quote("abc", "\"abc\"");
	expect_quote("a\"b\\c", "\"a\\\"b\\\\c\"");
	expect_quote("'single' `back`", "\"'single' `back`\"");
	expect_quote("\a\b\f\n\r\t\v", "\"\\a\\b\\f\\n\\r\\t\\v\"");
	expect_quote("\x01\x1f\x7f", "\"\\x01\\x1f\\x7f\"");
	expect_quote_n("a\0b", 3, "\"a\\x00b\"");
	/* Printable UTF-8 stays; invalid bytes become \x..; surrogates are invalid UTF-8. */
	expect_quote("h\xc3\xa9llo \xe4\xb8\x96", "\"h\xc3\xa9llo \xe4\xb8\x96\"");
	expect_quote("\xff", "\"\\xff\"");
	expect_quote("\xc3", "\"\\xc3\"");
	expect_quote("\xc0\xaf", "\"\\xc0\\xaf\"");
	expect_quote("\xed\xa0\x80", "\"\\xed\\xa0\\x80\"");
	expect_quote("\xf4\x90\x80\x80", "\"\\xf4\\x90\\x80\\x80\"");
	/* Not printable: C1 control, no-break space, zero-width space, BOM, private use. */
	expect_quote("\xc2\x85", "\"\\u0085\"");
	expect_quote("\xc2\xa0", "\"\\u00a0\"");
	expect_quote("\xe2\x80\x8b", "\"\\u200b\"");
	expect_quote("\xef\xbb\xbf", "\"\\ufeff\"");
	expect_quote("\xee\x80\x80", "\"\\ue000\"");
	expect_quote("\xf4\x8f\xbf\xbf", "\"\\U0010ffff\"");
	/* Printable beyond the BMP: an emoji, and U+FFFD itself. */
	expect_quote("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");
	expect_quote("\xef\xbf\xbd", "\"\xef\xbf\xbd\"");
}

static void expect_json(json_t *v, const char *want)
{
	struct vc_buf b;

	vc_buf_init(&b, 0);
	assert_int_equal(vc_go_json(v, &b), 0);
	assert_string_equal(vc_buf_str(&b), want);
	vc_buf_release(&b);
	json_decref(v);
}

static void test_go_json(void **state)
{
	(void)state;
	expect_json(NULL, "null");
	expect_json(json_loads("{\"b\":1,\"a\":[true,false,null,\"x<y&z>\"],\"c\":{}}", 0, NULL),
		    "{\"a\":[true,false,null,\"x\\u003cy\\u0026z\\u003e\"],\"b\":1,\"c\":{}}");
	expect_json(json_string("tab\there\n\x01\"\\/"), "\"tab\\there\\n\\u0001\\\"\\\\/\"");
	expect_json(json_string("\xe2\x80\xa8 \xc3\xa9"), "\"\\u2028 \xc3\xa9\"");
	expect_json(json_stringn_nocheck("\xff", 1), "\"\\ufffd\"");
	expect_json(json_real(1.5), "1.5");
	expect_json(json_real(100.0), "100");
	expect_json(json_real(-0.25), "-0.25");
	expect_json(json_real(1e21), "1e+21");
	expect_json(json_real(1e20), "100000000000000000000");
	expect_json(json_real(1e-7), "1e-7");
	expect_json(json_real(0.000001), "0.000001");
	expect_json(json_real(0.1), "0.1");
	expect_json(json_integer(-42), "-42");
	expect_json(json_array(), "[]");
}

static void expect_path(const struct vc_field_path *p, const char *want)
{
	struct vc_buf b;

	vc_buf_init(&b, 0);
	assert_int_equal(vc_field_path_format(p, &b), 0);
	assert_string_equal(vc_buf_str(&b), want);
	vc_buf_release(&b);
}

static void test_field_path(void **state)
{
	struct vc_field_path spec = vc_field_path_root("spec");
	struct vc_field_path tasks = vc_field_path_child(&spec, "tasks");
	struct vc_field_path t3 = vc_field_path_index(&tasks, 3);
	struct vc_field_path tmpl = vc_field_path_child(&t3, "template");
	struct vc_field_path req = vc_field_path_child(&tmpl, "resources.requests");
	struct vc_field_path cpu = vc_field_path_key(&req, "nvidia.com/gpu");
	struct vc_field_path nil_child = vc_field_path_child(NULL, "values");
	struct vc_field_path nil_index = vc_field_path_index(NULL, 0);
	struct vc_field_path empty = vc_field_path_root("");
	struct vc_field_path empty_child = vc_field_path_child(&spec, "");
	struct vc_field_path dotted = vc_field_path_root("spec.tasks.policies");

	(void)state;
	expect_path(NULL, "<nil>");
	expect_path(&spec, "spec");
	expect_path(&t3, "spec.tasks[3]");
	expect_path(&tmpl, "spec.tasks[3].template");
	expect_path(&cpu, "spec.tasks[3].template.resources.requests[nvidia.com/gpu]");
	expect_path(&nil_child, "values");
	expect_path(&nil_index, "[0]");
	expect_path(&empty, "[]");
	expect_path(&empty_child, "spec[]");
	expect_path(&dotted, "spec.tasks.policies");
}

/* Format the error at index i of l and compare. */
static void expect_error(const struct vc_field_errors *l, size_t i, const char *want)
{
	struct vc_buf b;

	assert_true(i < l->len);
	vc_buf_init(&b, 0);
	assert_int_equal(vc_field_error_format(&l->items[i], &b), 0);
	assert_string_equal(vc_buf_str(&b), want);
	vc_buf_release(&b);
}

static void test_field_errors_every_type(void **state)
{
	static const char *const policies[] = { "Always", "OnFailure", "Never" };
	static const char *const vals[] = { "a", "b\"" };
	struct vc_field_path name = vc_field_path_root("metadata");
	struct vc_field_path n = vc_field_path_child(&name, "name");
	struct vc_field_path x = vc_field_path_root("x");
	struct vc_field_errors l;
	json_t *obj = json_loads("{\"cpu\":\"1\",\"amount\":2.5}", 0, NULL);
	struct vc_buf b;

	(void)state;
	vc_field_errors_init(&l);
	assert_int_equal(vc_field_invalid(&l, &n, vc_fv_str("Task_1"), "bad name"), 0);
	assert_int_equal(
		vc_field_invalid(&l, &x, vc_fv_int(-5), "must be greater than or equal to 0"), 0);
	assert_int_equal(vc_field_invalid(&l, &x, vc_fv_bool(true), NULL), 0);
	assert_int_equal(vc_field_invalid(&l, &x, vc_fv_float(1e6), "f"), 0);
	assert_int_equal(vc_field_invalid(&l, &x, vc_fv_float(0.5), "f"), 0);
	assert_int_equal(vc_field_invalid(&l, &x, vc_fv_strings(vals, 2), "v"), 0);
	assert_int_equal(vc_field_invalid(&l, &x, vc_fv_strings(NULL, 0), "v"), 0);
	assert_int_equal(vc_field_invalid(&l, &x, vc_fv_strings(vals, 0), "v"), 0);
	assert_int_equal(vc_field_invalid(&l, &x, vc_fv_json(obj), "j"), 0);
	assert_int_equal(vc_field_invalid(&l, &x, vc_fv_named_str("Clos<ed"), "q"), 0);
	assert_int_equal(vc_field_invalid(&l, &x, vc_fv_omit(), "omitted"), 0);
	assert_int_equal(vc_field_required(&l, &n, "name or generateName is required"), 0);
	assert_int_equal(vc_field_required(&l, &x, NULL), 0);
	assert_int_equal(vc_field_duplicate(&l, &x, vc_fv_str("c")), 0);
	assert_int_equal(vc_field_not_supported(&l, &x, vc_fv_str("Sometimes"), policies, 3), 0);
	assert_int_equal(vc_field_not_supported(&l, &x, vc_fv_str("y"), NULL, 0), 0);
	assert_int_equal(vc_field_forbidden(&l, &x, "may not be set"), 0);
	assert_int_equal(vc_field_too_long(&l, &x, 63), 0);
	assert_int_equal(vc_field_too_long(&l, &x, 1), 0);
	assert_int_equal(vc_field_too_long(&l, &x, -1), 0);
	assert_int_equal(vc_field_too_many(&l, &x, 5, 3), 0);
	assert_int_equal(vc_field_too_many(&l, &x, -1, 1), 0);
	assert_int_equal(vc_field_too_few(&l, &x, 0, 1), 0);
	assert_int_equal(vc_field_too_short(&l, &x, 2), 0);
	assert_int_equal(vc_field_not_found(&l, &x, vc_fv_str("q")), 0);
	assert_int_equal(vc_field_internal(&l, &x, "boom"), 0);
	assert_int_equal(vc_field_type_invalid(&l, &x, vc_fv_str("s"), "must be an integer"), 0);
	assert_int_equal(vc_field_invalid(&l, NULL, vc_fv_str("a:"), "d"), 0);

	expect_error(&l, 0, "metadata.name: Invalid value: \"Task_1\": bad name");
	expect_error(&l, 1, "x: Invalid value: -5: must be greater than or equal to 0");
	expect_error(&l, 2, "x: Invalid value: true");
	expect_error(&l, 3, "x: Invalid value: 1e+06: f");
	expect_error(&l, 4, "x: Invalid value: 0.5: f");
	expect_error(&l, 5, "x: Invalid value: [\"a\",\"b\\\"\"]: v");
	expect_error(&l, 6, "x: Invalid value: null: v");
	expect_error(&l, 7, "x: Invalid value: []: v");
	expect_error(&l, 8, "x: Invalid value: {\"amount\":2.5,\"cpu\":\"1\"}: j");
	expect_error(&l, 9, "x: Invalid value: \"Clos\\u003ced\": q");
	expect_error(&l, 10, "x: Invalid value: omitted");
	expect_error(&l, 11, "metadata.name: Required value: name or generateName is required");
	expect_error(&l, 12, "x: Required value");
	expect_error(&l, 13, "x: Duplicate value: \"c\"");
	expect_error(&l, 14,
		     "x: Unsupported value: \"Sometimes\": supported values: \"Always\", "
		     "\"OnFailure\", \"Never\"");
	expect_error(&l, 15, "x: Unsupported value: \"y\"");
	expect_error(&l, 16, "x: Forbidden: may not be set");
	expect_error(&l, 17, "x: Too long: may not be more than 63 bytes");
	expect_error(&l, 18, "x: Too long: may not be more than 1 byte");
	expect_error(&l, 19, "x: Too long: value is too long");
	expect_error(&l, 20, "x: Too many: 5: must have at most 3 items");
	expect_error(&l, 21, "x: Too many: must have at most 1 item");
	expect_error(&l, 22, "x: Too few: 0: must have at least 1 item");
	expect_error(&l, 23, "x: Too short: must be at least 2 characters");
	expect_error(&l, 24, "x: Not found: \"q\"");
	expect_error(&l, 25, "x: Internal error: boom");
	expect_error(&l, 26, "x: Invalid value: \"s\": must be an integer");
	expect_error(&l, 27, "<nil>: Invalid value: \"a:\": d");

	vc_buf_init(&b, 0);
	assert_int_equal(vc_field_error_format_body(&l.items[13], &b), 0);
	assert_string_equal(vc_buf_str(&b), "Duplicate value: \"c\"");
	vc_buf_release(&b);
	assert_string_equal(vc_field_error_type_string(VC_FIELD_NOT_SUPPORTED),
			    "Unsupported value");
	assert_string_equal(vc_field_error_type_string(VC_FIELD_TYPE_INVALID), "Invalid value");
	vc_field_errors_release(&l);
	assert_int_equal(l.len, 0);
	json_decref(obj);
}

static void test_field_errors_aggregate(void **state)
{
	struct vc_field_path spec = vc_field_path_root("spec");
	struct vc_field_path task = vc_field_path_child(&spec, "task");
	struct vc_field_path t0 = vc_field_path_index(&task, 0);
	struct vc_field_path meta = vc_field_path_child(&t0, "metadata");
	struct vc_field_path name = vc_field_path_child(&meta, "name");
	struct vc_field_path ns = vc_field_path_child(&meta, "namespace");
	struct vc_field_errors l;
	struct vc_strlist msgs;
	struct vc_buf b;

	(void)state;
	vc_field_errors_init(&l);
	vc_buf_init(&b, 0);
	assert_int_equal(vc_field_errors_aggregate(&l, &b), 0);
	assert_string_equal(vc_buf_str(&b), "");

	/* docs/volcano/webhooks.md §5.3's example: a task name that is not a DNS-1123 subdomain. */
	vc_strlist_init(&msgs);
	assert_int_equal(vc_validate_dns1123_subdomain("Task", &msgs), VC_EINVALID);
	assert_int_equal(msgs.len, 1);
	assert_int_equal(vc_field_invalid(&l, &name, vc_fv_str("Task"), msgs.items[0]), 0);
	vc_strlist_release(&msgs);
	assert_int_equal(vc_field_errors_aggregate(&l, &b), 0);
	assert_string_equal(vc_buf_str(&b), "spec.task[0].metadata.name: Invalid value: \"Task\": "
					    "" DNS1123_SUBDOMAIN_MSG);
	vc_buf_reset(&b);

	assert_int_equal(vc_field_required(&l, &ns, ""), 0);
	assert_int_equal(vc_field_invalid(&l, &name, vc_fv_str("Task"), DNS1123_SUBDOMAIN_MSG), 0);
	assert_int_equal(vc_field_errors_aggregate(&l, &b), 0);
	assert_string_equal(
		vc_buf_str(&b),
		"[spec.task[0].metadata.name: Invalid value: \"Task\": " DNS1123_SUBDOMAIN_MSG
		", spec.task[0].metadata.namespace: Required value]");
	vc_buf_release(&b);
	vc_field_errors_release(&l);
}

static void test_validate_alloc_failures(void **state)
{
	json_t *obj = json_loads("{\"k\":[1,\"a\",{\"z\":null}]}", 0, NULL);
	struct vc_field_path p = vc_field_path_root("spec");
	long n;

	(void)state;
	for (n = 0;; n++) {
		struct vc_field_errors l;
		struct vc_strlist msgs;
		struct vc_buf b;
		long failures;
		int rc;

		vc_field_errors_init(&l);
		vc_strlist_init(&msgs);
		vc_buf_init(&b, 0);
		vc_alloc_fail_after(n);
		rc = vc_validate_qualified_name("Bad/x/y", &msgs);
		if (rc == VC_EINVALID)
			rc = vc_validate_qualified_name("-x", &msgs);
		if (rc == VC_EINVALID)
			rc = vc_field_invalid(&l, &p, vc_fv_json(obj), msgs.items[0]);
		if (!rc)
			rc = vc_field_not_supported(&l, &p, vc_fv_str("s"),
						    (const char *const *)msgs.items, msgs.len);
		if (!rc)
			rc = vc_field_errors_aggregate(&l, &b);
		if (!rc)
			rc = vc_go_quote("\xc3\xa9\x01", &b);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (!failures) {
			assert_int_equal(rc, 0);
			assert_int_equal(l.len, 2);
			assert_int_equal(msgs.len, 2);
		} else {
			assert_int_equal(rc, VC_ENOMEM);
		}
		vc_buf_release(&b);
		vc_strlist_release(&msgs);
		vc_field_errors_release(&l);
		if (!failures)
			break;
	}
	assert_true(n > 5);
	json_decref(obj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dns1123_label),
		cmocka_unit_test(test_dns1123_subdomain_and_1035),
		cmocka_unit_test(test_qualified_name),
		cmocka_unit_test(test_label_value_identifiers),
		cmocka_unit_test(test_strlist),
		cmocka_unit_test(test_go_quote),
		cmocka_unit_test(test_go_json),
		cmocka_unit_test(test_field_path),
		cmocka_unit_test(test_field_errors_every_type),
		cmocka_unit_test(test_field_errors_aggregate),
		cmocka_unit_test(test_validate_alloc_failures),
	};

	vc_alloc_install_json();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
