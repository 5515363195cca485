/*
 * Unit tests for vc_strconv's Go-exact parsers and float formatting. The tables are taken from
 * Go's strconv tests (parseUint64Tests, parseUint64BaseTests, parseInt64Tests, ftoaTests);
 * quoting and encoding/json are tested through their users in test_validate.
 */
#include "vc_prelude.h"

#include <math.h>
#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_strconv.h"

static void test_parse_uint(void **state)
{
	static const struct {
		const char *in;
		uint64_t want;
		int base;
		int rc;
	} cases[] = {
		{ "", 0, 10, VC_EINVAL },
		{ "0", 0, 10, 0 },
		{ "1", 1, 10, 0 },
		{ "12345", 12345, 10, 0 },
		{ "012345", 12345, 10, 0 },
		{ "12345x", 0, 10, VC_EINVAL },
		{ "98765432100", 98765432100, 10, 0 },
		{ "18446744073709551615", UINT64_MAX, 10, 0 },
		{ "18446744073709551616", 0, 10, VC_ERANGE },
		{ "18446744073709551620", 0, 10, VC_ERANGE },
		{ "1_2_3_4_5", 0, 10, VC_EINVAL }, /* base 10: no underscores */
		{ "-1", 0, 10, VC_EINVAL },
		{ "+1", 0, 10, VC_EINVAL },
		{ "0x", 0, 0, VC_EINVAL },
		{ "0x1", 1, 0, 0 },
		{ "0X1F", 31, 0, 0 },
		{ "0b101", 5, 0, 0 },
		{ "0o17", 15, 0, 0 },
		{ "017", 15, 0, 0 },
		{ "08", 0, 0, VC_EINVAL },
		{ "0", 0, 0, 0 },
		{ "1_2_3_4_5", 12345, 0, 0 },
		{ "_12345", 0, 0, VC_EINVAL },
		{ "1__2345", 0, 0, VC_EINVAL },
		{ "12345_", 0, 0, VC_EINVAL },
		{ "0x_1FFFF", 0x1ffff, 0, 0 },
		{ "0_1", 1, 0, 0 },
		{ "0xffffffffffffffff", UINT64_MAX, 0, 0 },
		{ "0x10000000000000000", 0, 0, VC_ERANGE },
		{ "z", 35, 36, 0 },
		{ "10", 0, 37, VC_EINVAL },
		{ "10", 0, 1, VC_EINVAL },
		{ "1111", 15, 2, 0 },
		{ "2", 0, 2, VC_EINVAL },
		/* The range error comes first, as Go returns it inside the loop. */
		{ "99999999999999999999x", 0, 10, VC_ERANGE },
	};
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(cases); i++) {
		uint64_t v = 42;
		int rc = vc_strconv_parse_uint(cases[i].in, strlen(cases[i].in), cases[i].base, &v);

		if (rc != cases[i].rc)
			fail_msg("%s base %d: rc %d, want %d", cases[i].in, cases[i].base, rc,
				 cases[i].rc);
		assert_true(v == (rc ? 42 : cases[i].want));
	}
	/* The length bounds the input. */
	{
		uint64_t v;

		assert_int_equal(vc_strconv_parse_uint("123", 2, 10, &v), 0);
		assert_true(v == 12);
		assert_int_equal(vc_strconv_parse_uint("1\0", 2, 10, &v), VC_EINVAL);
	}
}

static void test_parse_int(void **state)
{
	static const struct {
		const char *in;
		int64_t want;
		int base;
		int rc;
	} cases[] = {
		{ "", 0, 10, VC_EINVAL },
		{ "0", 0, 10, 0 },
		{ "-0", 0, 10, 0 },
		{ "+0", 0, 10, 0 },
		{ "1", 1, 10, 0 },
		{ "-1", -1, 10, 0 },
		{ "+1", 1, 10, 0 },
		{ "12345", 12345, 10, 0 },
		{ "-12345", -12345, 10, 0 },
		{ "012345", 12345, 10, 0 },
		{ "-012345", -12345, 10, 0 },
		{ "98765432100", INT64_C(98765432100), 10, 0 },
		{ "9223372036854775807", INT64_MAX, 10, 0 },
		{ "-9223372036854775807", -INT64_MAX, 10, 0 },
		{ "9223372036854775808", 0, 10, VC_ERANGE },
		{ "-9223372036854775808", INT64_MIN, 10, 0 },
		{ "-9223372036854775809", 0, 10, VC_ERANGE },
		{ "-1_2_3_4_5", 0, 10, VC_EINVAL },
		{ "-1_2_3_4_5", -12345, 0, 0 },
		{ "-_12345", 0, 0, VC_EINVAL },
		{ "-0x_1", -1, 0, 0 },
		{ "+", 0, 10, VC_EINVAL },
		{ "-", 0, 0, VC_EINVAL },
		{ "--1", 0, 10, VC_EINVAL },
		{ "+-1", 0, 10, VC_EINVAL },
		{ " 1", 0, 10, VC_EINVAL },
		{ "1 ", 0, 10, VC_EINVAL },
		{ "-0x8000000000000000", INT64_MIN, 0, 0 },
		{ "0x8000000000000000", 0, 0, VC_ERANGE },
		{ "-11", -3, 2, 0 },
		{ "7fffffffffffffff", INT64_MAX, 16, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(cases); i++) {
		int64_t v = 42;
		int rc = vc_strconv_parse_int(cases[i].in, strlen(cases[i].in), cases[i].base, &v);

		if (rc != cases[i].rc)
			fail_msg("%s base %d: rc %d, want %d", cases[i].in, cases[i].base, rc,
				 cases[i].rc);
		assert_true(v == (rc ? 42 : cases[i].want));
	}
}

/* Go's strconv.ParseFloat(s, 64): what it accepts, its values, ErrSyntax and ErrRange. */
static void test_parse_float(void **state)
{
	static const struct {
		const char *in;
		double want;
		int rc;
	} cases[] = {
		{ "", 0, VC_EINVAL },
		{ "0", 0, 0 },
		{ "1", 1, 0 },
		{ "+1.5", 1.5, 0 },
		{ "-1.5", -1.5, 0 },
		{ "1.", 1, 0 },
		{ ".5", 0.5, 0 },
		{ ".", 0, VC_EINVAL },
		{ "1E5", 1e5, 0 },
		{ "1e-5", 1e-5, 0 },
		{ "1e+5", 1e5, 0 },
		{ "1e", 0, VC_EINVAL },
		{ "1e+", 0, VC_EINVAL },
		{ "e5", 0, VC_EINVAL },
		{ "1.2.3", 0, VC_EINVAL },
		{ " 1", 0, VC_EINVAL },
		{ "1 ", 0, VC_EINVAL },
		{ "0.1", 0.1, 0 },
		{ "1.7976931348623157e308", 1.7976931348623157e308, 0 },
		{ "1e308", 1e308, 0 },
		{ "1e309", INFINITY, VC_ERANGE },
		{ "-1e309", -INFINITY, VC_ERANGE },
		{ "1e400000000000", INFINITY, VC_ERANGE },
		{ "1e-400", 0, 0 },
		{ "4.9e-324", 4.9e-324, 0 },
		{ "0e999999", 0, 0 },
		{ "inf", INFINITY, 0 },
		{ "+Inf", INFINITY, 0 },
		{ "-infinity", -INFINITY, 0 },
		{ "INFINITY", INFINITY, 0 },
		{ "infx", 0, VC_EINVAL },
		{ "infinit", 0, VC_EINVAL },
		{ "infinityy", 0, VC_EINVAL },
		{ "in", 0, VC_EINVAL },
		{ "+nan", 0, VC_EINVAL },
		{ "nanx", 0, VC_EINVAL },
		{ "1_000.5", 1000.5, 0 },
		{ "1e1_0", 1e10, 0 },
		{ "1__0", 0, VC_EINVAL },
		{ "_1", 0, VC_EINVAL },
		{ "1_", 0, VC_EINVAL },
		{ "1_.5", 0, VC_EINVAL },
		{ "1._5", 0, VC_EINVAL },
		{ "0x1p-2", 0.25, 0 },
		{ "0X1.8P1", 3, 0 },
		{ "-0x1.fp4", -31, 0 },
		{ "0x1", 0, VC_EINVAL },
		{ "0x", 0, VC_EINVAL },
		{ "0xp1", 0, VC_EINVAL },
		{ "0x_1p0", 1, 0 },
		{ "0x1_p0", 0, VC_EINVAL },
		{ "0x1p1_0", 1024, 0 },
		{ "0x1p2000", INFINITY, VC_ERANGE },
		{ "0b1", 0, VC_EINVAL },
		{ "0o7", 0, VC_EINVAL },
	};
	double v;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(cases); i++) {
		int rc;

		v = 42;
		rc = vc_strconv_parse_float(cases[i].in, strlen(cases[i].in), &v);
		if (rc != cases[i].rc)
			fail_msg("%s: rc %d, want %d", cases[i].in, rc, cases[i].rc);
		if (v != (rc == VC_EINVAL ? 42 : cases[i].want))
			fail_msg("%s: %a, want %a", cases[i].in, v, cases[i].want);
	}
	assert_int_equal(vc_strconv_parse_float("-0", 2, &v), 0);
	assert_true(v == 0 && signbit(v));
	assert_int_equal(vc_strconv_parse_float("NaN", 3, &v), 0);
	assert_true(isnan(v));
	assert_int_equal(vc_strconv_parse_float("nAn", 3, &v), 0);
	assert_true(isnan(v));
	/* Only n bytes count, NULs included. */
	assert_int_equal(vc_strconv_parse_float("1\0", 2, &v), VC_EINVAL);
	assert_int_equal(vc_strconv_parse_float("2.5e3xyz", 5, &v), 0);
	assert_true(v == 2.5e3);
	/* Out of memory for the copy without the underscores. */
	vc_alloc_fail_after(0);
	assert_int_equal(vc_strconv_parse_float("1_0", 3, &v), VC_ENOMEM);
	vc_alloc_fail_reset();
}

static void test_parse_bool(void **state)
{
	static const char *const yes[] = { "1", "t", "T", "true", "TRUE", "True" };
	static const char *const no[] = { "0", "f", "F", "false", "FALSE", "False" };
	static const char *const bad[] = { "", "tRUE", "yes", "2", " true", "true " };
	bool b;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(yes); i++) {
		b = false;
		assert_int_equal(vc_parse_bool(yes[i], &b), 0);
		assert_true(b);
		assert_int_equal(vc_parse_bool(no[i], &b), 0);
		assert_false(b);
	}
	for (i = 0; i < VC_ARRAY_SIZE(bad); i++)
		assert_int_equal(vc_parse_bool(bad[i], &b), VC_EINVAL);
	assert_int_equal(vc_parse_bool(NULL, &b), VC_EINVAL);
}

static void test_format_float(void **state)
{
	static const struct {
		double d;
		char fmt;
		const char *want;
	} cases[] = {
		{ 1, 'e', "1e+00" },
		{ 1, 'f', "1" },
		{ 1, 'g', "1" },
		{ 0, 'e', "0e+00" },
		{ 0, 'f', "0" },
		{ 0, 'g', "0" },
		{ -0.0, 'g', "-0" },
		{ 20, 'g', "20" },
		{ 1234567.8, 'g', "1.2345678e+06" },
		{ 200000, 'g', "200000" },
		{ 2000000, 'g', "2e+06" },
		{ 123456789, 'f', "123456789" },
		{ 1e23, 'e', "1e+23" },
		{ 1e23, 'f', "100000000000000000000000" },
		{ 1e23, 'g', "1e+23" },
		{ 100, 'e', "1e+02" },
		{ 100, 'f', "100" },
		{ 1000000, 'g', "1e+06" },
		{ 400, 'g', "400" },
		{ 40, 'g', "40" },
		{ 4, 'g', "4" },
		{ .4, 'g', "0.4" },
		{ .04, 'g', "0.04" },
		{ .004, 'g', "0.004" },
		{ .0004, 'g', "0.0004" },
		{ .00004, 'g', "4e-05" },
		{ -1, 'g', "-1" },
		{ 0.1, 'f', "0.1" },
		{ 1.5e-300, 'e', "1.5e-300" },
		{ 5e-324, 'e', "5e-324" },
		{ 1.7976931348623157e308, 'g', "1.7976931348623157e+308" },
		{ 0.30000000000000004, 'g', "0.30000000000000004" },
		{ 32, 'g', "32" },
		{ 3.14159, 'e', "3.14159e+00" },
	};
	struct vc_buf b;
	char small[4], buf[40];
	size_t i;

	(void)state;
	vc_buf_init(&b, 0);
	for (i = 0; i < VC_ARRAY_SIZE(cases); i++) {
		vc_buf_reset(&b);
		assert_int_equal(vc_strconv_format_float(cases[i].d, cases[i].fmt, &b), 0);
		assert_string_equal(vc_buf_str(&b), cases[i].want);
		assert_int_equal(
			vc_strconv_format_float_buf(cases[i].d, cases[i].fmt, buf, sizeof(buf)),
			strlen(cases[i].want) < sizeof(buf) ? 0 : VC_E2BIG);
	}
	vc_buf_reset(&b);
	assert_int_equal(vc_strconv_format_float(NAN, 'e', &b), 0);
	assert_int_equal(vc_strconv_format_float(INFINITY, 'f', &b), 0);
	assert_int_equal(vc_strconv_format_float(-INFINITY, 'g', &b), 0);
	assert_string_equal(vc_buf_str(&b), "NaN+Inf-Inf");
	assert_int_equal(vc_strconv_format_float(1, 'x', &b), VC_EINVAL);
	/* 'f' of the smallest denormal: "0." and 323 zeros, then 5. */
	vc_buf_reset(&b);
	assert_int_equal(vc_strconv_format_float(5e-324, 'f', &b), 0);
	assert_int_equal(b.len, 326);
	assert_int_equal(vc_buf_str(&b)[325], '5');
	vc_buf_release(&b);
	assert_int_equal(vc_strconv_format_float_buf(1234, 'g', small, sizeof(small)), VC_E2BIG);
	assert_string_equal(small, "");
	assert_int_equal(vc_strconv_format_float_buf(123, 'g', small, sizeof(small)), 0);
	assert_string_equal(small, "123");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_uint),   cmocka_unit_test(test_parse_int),
		cmocka_unit_test(test_parse_float),  cmocka_unit_test(test_parse_bool),
		cmocka_unit_test(test_format_float),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
