/*
 * Unit tests for vc_time. The duration tables are ports of Go's time package tests
 * (parseDurationTests, parseDurationErrorTests, durationTests in time_test.go).
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_time.h"

#define NS  INT64_C(1)
#define US  VC_NSEC_PER_USEC
#define MS  VC_NSEC_PER_MSEC
#define SEC VC_NSEC_PER_SEC
#define MIN VC_NSEC_PER_MIN
#define HR  VC_NSEC_PER_HOUR

static void test_duration_parse_table(void **state)
{
	static const struct {
		const char *in;
		int64_t want;
	} table[] = {
		/* simple */
		{ "0", 0 },
		{ "5s", 5 * SEC },
		{ "30s", 30 * SEC },
		{ "1478s", 1478 * SEC },
		/* sign */
		{ "-5s", -5 * SEC },
		{ "+5s", 5 * SEC },
		{ "-0", 0 },
		{ "+0", 0 },
		/* decimal */
		{ "5.0s", 5 * SEC },
		{ "5.6s", 5 * SEC + 600 * MS },
		{ "5.s", 5 * SEC },
		{ ".5s", 500 * MS },
		{ "1.0s", 1 * SEC },
		{ "1.00s", 1 * SEC },
		{ "1.004s", 1 * SEC + 4 * MS },
		{ "1.0040s", 1 * SEC + 4 * MS },
		{ "100.00100s", 100 * SEC + 1 * MS },
		/* different units */
		{ "10ns", 10 * NS },
		{ "11us", 11 * US },
		{ "12\xc2\xb5s", 12 * US }, /* U+00B5 */
		{ "12\xce\xbcs", 12 * US }, /* U+03BC */
		{ "13ms", 13 * MS },
		{ "14s", 14 * SEC },
		{ "15m", 15 * MIN },
		{ "16h", 16 * HR },
		/* composite durations */
		{ "3h30m", 3 * HR + 30 * MIN },
		{ "10.5s4m", 4 * MIN + 10 * SEC + 500 * MS },
		{ "-2m3.4s", -(2 * MIN + 3 * SEC + 400 * MS) },
		{ "1h2m3s4ms5us6ns", 1 * HR + 2 * MIN + 3 * SEC + 4 * MS + 5 * US + 6 * NS },
		{ "39h9m14.425s", 39 * HR + 9 * MIN + 14 * SEC + 425 * MS },
		/* large value */
		{ "52763797000ns", INT64_C(52763797000) * NS },
		/* more than 9 digits after the point (golang.org/issue/6617) */
		{ "0.3333333333333333333h", 20 * MIN },
		/* 1<<53+1 cannot be stored precisely in a float64 */
		{ "9007199254740993ns", (INT64_C(1) << 53) + 1 },
		/* the int64 limits */
		{ "9223372036854775807ns", INT64_MAX },
		{ "9223372036854775.807us", INT64_MAX },
		{ "9223372036s854ms775us807ns", INT64_MAX },
		{ "-9223372036854775808ns", INT64_MIN },
		{ "-9223372036854775.808us", INT64_MIN },
		{ "-9223372036s854ms775us808ns", INT64_MIN },
		/* largest negative round trip value (golang.org/issue/48629) */
		{ "-2562047h47m16.854775808s", INT64_MIN },
		/* huge string (issue 15011) */
		{ "0.100000000000000000000h", 6 * MIN },
		/* the first overflow check in leadingFraction */
		{ "0.830103483285477580700h", 49 * MIN + 48 * SEC + 372539827 * NS },
		/* the task's examples */
		{ "1h30m", HR + 30 * MIN },
		{ "90s", 90 * SEC },
		{ "1.5h", HR + 30 * MIN },
		{ "-2m", -2 * MIN },
		{ "300ms", 300 * MS },
		{ "1us", 1 * US },
		{ "1\xc2\xb5s", 1 * US },
		/* Go's unsigned wrap: 2^63 + 2^63 sums to 0 and is accepted, as in Go */
		{ "-9223372036854775808ns9223372036854775808ns", 0 },
	};
	struct vc_error err;
	int64_t ns;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(table); i++) {
		ns = 12345;
		vc_error_clear(&err);
		if (vc_duration_parse(table[i].in, &ns, &err) != 0)
			print_error("'%s': %s\n", table[i].in, err.text);
		assert_int_equal(vc_duration_parse(table[i].in, &ns, &err), 0);
		assert_int_equal(ns, table[i].want);
	}
}

static void test_duration_parse_errors(void **state)
{
	static const struct {
		const char *in;
		const char *text;
		size_t position;
	} table[] = {
		{ "", "time: invalid duration \"\"", 0 },
		{ "3", "time: missing unit in duration \"3\"", 1 },
		{ "1", "time: missing unit in duration \"1\"", 1 },
		{ "-", "time: invalid duration \"-\"", 1 },
		{ "s", "time: invalid duration \"s\"", 0 },
		{ ".", "time: invalid duration \".\"", 1 },
		{ "-.", "time: invalid duration \"-.\"", 2 },
		{ ".s", "time: invalid duration \".s\"", 1 },
		{ "+.s", "time: invalid duration \"+.s\"", 2 },
		{ "1d", "time: unknown unit \"d\" in duration \"1d\"", 1 },
		{ "1x", "time: unknown unit \"x\" in duration \"1x\"", 1 },
		{ "1hh", "time: unknown unit \"hh\" in duration \"1hh\"", 1 },
		{ "1h 2m", "time: unknown unit \"h \" in duration \"1h 2m\"", 1 },
		{ "\x85\x85", "time: invalid duration \"\\x85\\x85\"", 0 },
		{ "\xff"
		  "ff",
		  "time: invalid duration \"\\xffff\"", 0 },
		{ "hello \xff"
		  "ff world",
		  "time: invalid duration \"hello \\xffff world\"", 0 },
		{ "\xef\xbf\xbd", "time: invalid duration \"\\xef\\xbf\\xbd\"", 0 },
		{ "\xef\xbf\xbd hello \xef\xbf\xbd world",
		  "time: invalid duration \"\\xef\\xbf\\xbd hello \\xef\\xbf\\xbd world\"", 0 },
		{ "1\xc2\xb5", "time: unknown unit \"\\xc2\\xb5\" in duration \"1\\xc2\\xb5\"", 1 },
		{ "1\"s", "time: unknown unit \"\\\"s\" in duration \"1\\\"s\"", 1 },
		{ "1\\", "time: unknown unit \"\\\\\" in duration \"1\\\\\"", 1 },
		{ "1\ts", "time: unknown unit \"\\x09s\" in duration \"1\\x09s\"", 1 },
		/* overflow */
		{ "9223372036854775810ns", "time: invalid duration \"9223372036854775810ns\"", 18 },
		{ "9223372036854775808ns", "time: invalid duration \"9223372036854775808ns\"", 21 },
		{ "-9223372036854775809ns", "time: invalid duration \"-9223372036854775809ns\"",
		  19 },
		{ "9223372036854776us", "time: invalid duration \"9223372036854776us\"", 16 },
		{ "3000000h", "time: invalid duration \"3000000h\"", 7 },
		{ "9223372036854775.808us", "time: invalid duration \"9223372036854775.808us\"",
		  22 },
		{ "9223372036854ms775us808ns",
		  "time: invalid duration \"9223372036854ms775us808ns\"", 25 },
		{ "99999999999999999999999s", "time: invalid duration \"99999999999999999999999s\"",
		  18 },
	};
	struct vc_error err;
	int64_t ns;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(table); i++) {
		ns = 777;
		vc_error_clear(&err);
		assert_int_equal(vc_duration_parse(table[i].in, &ns, &err), VC_EPARSE);
		assert_string_equal(err.text, table[i].text);
		assert_int_equal(err.position, table[i].position);
		assert_int_equal(err.column, (int)table[i].position + 1);
		assert_int_equal(ns, 777);
	}
	assert_int_equal(vc_duration_parse(NULL, &ns, &err), VC_EINVAL);
	assert_int_equal(vc_duration_parse("1s", NULL, NULL), VC_EINVAL);
	assert_int_equal(vc_duration_parse("x", &ns, NULL), VC_EPARSE);
	/* A very long input keeps a bounded, terminated message. */
	{
		static char big[4000];

		memset(big, '9', sizeof(big) - 1);
		assert_int_equal(vc_duration_parse(big, &ns, &err), VC_EPARSE);
		assert_true(strncmp(err.text, "time: invalid duration \"999", 27) == 0);
		assert_true(strlen(err.text) < sizeof(err.text));
	}
}

static void test_duration_format(void **state)
{
	static const struct {
		const char *want;
		int64_t d;
	} table[] = {
		{ "0s", 0 },
		{ "1ns", 1 * NS },
		{ "1.1\xc2\xb5s", 1100 * NS },
		{ "2.2ms", 2200 * US },
		{ "3.3s", 3300 * MS },
		{ "4m5s", 4 * MIN + 5 * SEC },
		{ "4m5.001s", 4 * MIN + 5001 * MS },
		{ "5h6m7.001s", 5 * HR + 6 * MIN + 7001 * MS },
		{ "8m0.000000001s", 8 * MIN + 1 * NS },
		{ "2562047h47m16.854775807s", INT64_MAX },
		{ "-2562047h47m16.854775808s", INT64_MIN },
		/* the task's examples */
		{ "1h30m0s", HR + 30 * MIN },
		{ "1.5s", 1500 * MS },
		{ "500ms", 500 * MS },
		{ "1\xc2\xb5s", 1 * US },
		{ "-2m0s", -2 * MIN },
		{ "-1ns", -1 },
		{ "999ns", 999 },
		{ "999.999\xc2\xb5s", 999999 },
		{ "999.999999ms", 999999999 },
		{ "1s", SEC },
		{ "1m0s", MIN },
		{ "1h0m0s", HR },
		{ "-1h0m0.5s", -(HR + 500 * MS) },
	};
	char buf[VC_DURATION_STR_MAX], small[3];
	int64_t back;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(table); i++) {
		assert_int_equal(vc_duration_format(table[i].d, buf, sizeof(buf)), 0);
		assert_string_equal(buf, table[i].want);
		/* What String() prints parses back to the same duration. */
		assert_int_equal(vc_duration_parse(buf, &back, NULL), 0);
		assert_int_equal(back, table[i].d);
	}
	assert_int_equal(vc_duration_format(HR, small, sizeof(small)), VC_E2BIG);
	assert_string_equal(small, "");
	assert_int_equal(vc_duration_format(0, small, sizeof(small)), 0);
	assert_string_equal(small, "0s");
	assert_int_equal(vc_duration_format(0, NULL, 3), VC_EINVAL);
}

static void test_rfc3339_parse(void **state)
{
	static const struct {
		const char *in;
		int64_t sec;
		int32_t nsec;
	} table[] = {
		{ "1970-01-01T00:00:00Z", 0, 0 },
		{ "2006-01-02T15:04:05Z", INT64_C(1136214245), 0 },
		{ "2006-01-02T15:04:05+07:00", INT64_C(1136189045), 0 },
		{ "2006-01-02T15:04:05-07:00", INT64_C(1136239445), 0 },
		{ "2006-01-02T15:04:05.999999999Z", INT64_C(1136214245), 999999999 },
		{ "2006-01-02T15:04:05.000001Z", INT64_C(1136214245), 1000 },
		{ "2006-01-02T15:04:05.1Z", INT64_C(1136214245), 100000000 },
		{ "2006-01-02T15:04:05.1234567891234Z", INT64_C(1136214245), 123456789 },
		{ "2024-02-29T23:59:59Z", INT64_C(1709251199), 0 },
		{ "2000-02-29T00:00:00Z", INT64_C(951782400), 0 },
		{ "1969-12-31T23:59:59Z", -1, 0 },
		{ "1969-12-31T23:59:59.5Z", -1, 500000000 },
		{ "0001-01-01T00:00:00Z", INT64_C(-62135596800), 0 },
		{ "0000-01-01T00:00:00Z", INT64_C(-62167219200), 0 },
		{ "9999-12-31T23:59:59Z", INT64_C(253402300799), 0 },
		{ "2038-01-19T03:14:08Z", INT64_C(2147483648), 0 },
		{ "1970-01-01T00:00:00-00:00", 0, 0 },
		{ "1970-01-01T00:00:00+23:59", -86340, 0 },
	};
	struct vc_error err;
	int64_t sec;
	int32_t nsec;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(table); i++) {
		vc_error_clear(&err);
		if (vc_time_parse_rfc3339(table[i].in, &sec, &nsec, &err) != 0)
			print_error("'%s': %s\n", table[i].in, err.text);
		assert_int_equal(vc_time_parse_rfc3339(table[i].in, &sec, &nsec, &err), 0);
		assert_int_equal(sec, table[i].sec);
		assert_int_equal(nsec, table[i].nsec);
	}
	assert_int_equal(vc_time_parse_rfc3339("2006-01-02T15:04:05Z", &sec, NULL, NULL), 0);
	assert_int_equal(sec, INT64_C(1136214245));
}

static void test_rfc3339_errors(void **state)
{
	static const struct {
		const char *in;
		const char *what;
		size_t position;
	} table[] = {
		{ "", "too short for YYYY-MM-DDThh:mm:ssZ", 0 },
		{ "2006-01-02T15:04:05", "too short for YYYY-MM-DDThh:mm:ssZ", 19 },
		{ "2006-01-02 15:04:05Z", "expected 'T' after the date", 10 },
		{ "2006-01-02t15:04:05Z", "expected 'T' after the date", 10 },
		{ "2006/01-02T15:04:05Z", "expected '-' after the year", 4 },
		{ "2006-01/02T15:04:05Z", "expected '-' after the month", 7 },
		{ "2006-01-02T15.04:05Z", "expected ':' after the hour", 13 },
		{ "2006-01-02T15:04.05Z", "expected ':' after the minute", 16 },
		{ "20x6-01-02T15:04:05Z", "bad year", 0 },
		{ "2006-13-02T15:04:05Z", "month out of range", 5 },
		{ "2006-00-02T15:04:05Z", "month out of range", 5 },
		{ "2006-02-29T15:04:05Z", "day out of range", 8 },
		{ "1900-02-29T15:04:05Z", "day out of range", 8 },
		{ "2006-04-31T15:04:05Z", "day out of range", 8 },
		{ "2006-01-00T15:04:05Z", "day out of range", 8 },
		{ "2006-01-02T24:00:00Z", "hour out of range", 11 },
		{ "2006-01-02T15:60:05Z", "minute out of range", 14 },
		{ "2006-01-02T15:04:60Z", "second out of range", 17 },
		{ "2006-01-02T15:04:05z", "expected 'Z' or a zone offset like +07:00", 19 },
		{ "2006-01-02T15:04:05ZZ", "expected 'Z' or a zone offset like +07:00", 19 },
		{ "2006-01-02T15:04:05.Z", "expected 'Z' or a zone offset like +07:00", 19 },
		{ "2006-01-02T15:04:05,5Z", "expected 'Z' or a zone offset like +07:00", 19 },
		{ "2006-01-02T15:04:05+0700", "expected 'Z' or a zone offset like +07:00", 19 },
		{ "2006-01-02T15:04:05+07:00 ", "expected 'Z' or a zone offset like +07:00", 19 },
		{ "2006-01-02T15:04:05+24:00", "zone offset out of range", 19 },
		{ "2006-01-02T15:04:05+07:60", "zone offset out of range", 19 },
		{ "2006-01-02T15:04:05+0a:00", "zone offset out of range", 19 },
		{ "2006-01-02T15:04:05.123+07", "expected 'Z' or a zone offset like +07:00", 23 },
	};
	struct vc_error err;
	char want[VC_ERROR_TEXT_LEN];
	int64_t sec = 5;
	int32_t nsec = 6;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(table); i++) {
		vc_error_clear(&err);
		assert_int_equal(vc_time_parse_rfc3339(table[i].in, &sec, &nsec, &err), VC_EPARSE);
		snprintf(want, sizeof(want), "cannot parse time '%s': %s", table[i].in,
			 table[i].what);
		assert_string_equal(err.text, want);
		assert_int_equal(err.position, table[i].position);
		assert_int_equal(sec, 5);
		assert_int_equal(nsec, 6);
	}
	assert_int_equal(vc_time_parse_rfc3339(NULL, &sec, &nsec, &err), VC_EINVAL);
	assert_int_equal(vc_time_parse_rfc3339("2006-01-02T15:04:05Z", NULL, &nsec, &err),
			 VC_EINVAL);
}

static void test_rfc3339_format(void **state)
{
	char buf[VC_TIME_STR_MAX], small[20];
	int64_t sec;
	int32_t nsec;

	(void)state;
	assert_int_equal(vc_time_format_rfc3339(0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1970-01-01T00:00:00Z");
	assert_int_equal(vc_time_format_rfc3339(INT64_C(1136214245), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2006-01-02T15:04:05Z");
	assert_int_equal(vc_time_format_rfc3339(-1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1969-12-31T23:59:59Z");
	assert_int_equal(vc_time_format_rfc3339(INT64_C(253402300799), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "9999-12-31T23:59:59Z");
	assert_int_equal(vc_time_format_rfc3339(INT64_C(-62167219200), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0000-01-01T00:00:00Z");
	assert_int_equal(vc_time_format_rfc3339(INT64_C(253402300800), buf, sizeof(buf)),
			 VC_ERANGE);
	assert_string_equal(buf, "");
	assert_int_equal(vc_time_format_rfc3339(INT64_C(-62167219201), buf, sizeof(buf)),
			 VC_ERANGE);
	assert_int_equal(vc_time_format_rfc3339(INT64_MAX, buf, sizeof(buf)), VC_ERANGE);
	assert_int_equal(vc_time_format_rfc3339(INT64_MIN, buf, sizeof(buf)), VC_ERANGE);
	assert_int_equal(vc_time_format_rfc3339(0, small, sizeof(small)), VC_E2BIG);
	assert_string_equal(small, "");
	assert_int_equal(vc_time_format_rfc3339(0, buf, 21), 0); /* exactly fits */

	/* MicroTime truncates to microseconds. */
	assert_int_equal(
		vc_time_format_rfc3339_micro(INT64_C(1136214245), 999999999, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2006-01-02T15:04:05.999999Z");
	assert_int_equal(vc_time_format_rfc3339_micro(0, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1970-01-01T00:00:00.000000Z");
	assert_int_equal(vc_time_format_rfc3339_micro(-1, 500000000, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1969-12-31T23:59:59.500000Z");
	assert_int_equal(vc_time_format_rfc3339_micro(0, -1, buf, sizeof(buf)), VC_EINVAL);
	assert_int_equal(vc_time_format_rfc3339_micro(0, 1000000000, buf, sizeof(buf)), VC_EINVAL);
	assert_int_equal(vc_time_format_rfc3339_micro(0, 0, small, sizeof(small)), VC_E2BIG);
	assert_int_equal(vc_time_format_rfc3339_micro(0, 0, NULL, 0), VC_EINVAL);

	/* Round trips. */
	assert_int_equal(vc_time_parse_rfc3339("2024-06-30T12:34:56.789012Z", &sec, &nsec, NULL),
			 0);
	assert_int_equal(vc_time_format_rfc3339_micro(sec, nsec, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2024-06-30T12:34:56.789012Z");
	assert_int_equal(vc_time_parse_rfc3339("2024-06-30T12:34:56+02:00", &sec, &nsec, NULL), 0);
	assert_int_equal(vc_time_format_rfc3339(sec, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "2024-06-30T10:34:56Z");
}

struct fake_clock {
	int64_t now;
	int64_t mono;
	int reads;
};

static int64_t fake_now(void *ctx)
{
	struct fake_clock *c = ctx;

	c->reads++;
	return c->now;
}

static int64_t fake_mono(void *ctx)
{
	struct fake_clock *c = ctx;

	c->reads++;
	return c->mono;
}

static void test_duration_human(void **state)
{
	static const struct {
		int64_t s;
		const char *want;
	} cases[] = {
		{ -5, "<invalid>" },
		{ -1, "0s" },
		{ 0, "0s" },
		{ 119, "119s" },
		{ 120, "2m" },
		{ 200, "3m20s" },
		{ 600, "10m" },
		{ 3 * 3600, "3h" },
		{ 3 * 3600 + 60 * 7, "3h7m" },
		{ 20 * 3600, "20h" },
		{ 50 * 3600, "2d2h" },
		{ 48 * 3600, "2d" },
		{ 10 * 86400, "10d" },
		{ 800 * 86400, "2y70d" },
		{ 3000 * 86400, "8y" },
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		vc_duration_human(cases[i].s * VC_NSEC_PER_SEC, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
	}
}

static void test_clock_source(void **state)
{
	struct fake_clock c = { INT64_C(1136214245) * SEC, 42, 0 };
	int64_t a, b;

	(void)state;
	/* The system clocks: plausible and monotonic. */
	a = vc_time_mono_ns();
	b = vc_time_mono_ns();
	assert_true(b >= a);
	assert_true(vc_time_now_ns() > INT64_C(1600000000) * SEC);

	vc_time_set_source(fake_now, fake_mono, &c);
	assert_int_equal(vc_time_now_ns(), INT64_C(1136214245) * SEC);
	assert_int_equal(vc_time_mono_ns(), 42);
	c.mono += 5 * SEC; /* time passes without sleeping */
	assert_int_equal(vc_time_mono_ns(), 42 + 5 * SEC);
	assert_int_equal(c.reads, 3);

	/* A NULL function restores that one clock only. */
	vc_time_set_source(NULL, fake_mono, &c);
	assert_true(vc_time_now_ns() > INT64_C(1600000000) * SEC);
	assert_int_equal(vc_time_mono_ns(), 42 + 5 * SEC);
	assert_int_equal(c.reads, 4);

	vc_time_set_source(NULL, NULL, NULL);
	assert_true(vc_time_mono_ns() != 42 + 5 * SEC);
	assert_int_equal(c.reads, 4);
}

/* Nothing here allocates: prove it under failure injection. */
static void test_alloc_failure(void **state)
{
	char buf[VC_DURATION_STR_MAX];
	struct vc_error err;
	int64_t ns, sec;

	(void)state;
	vc_alloc_fail_after(0);
	assert_int_equal(vc_duration_parse("1h30m", &ns, &err), 0);
	assert_int_equal(vc_duration_parse("1x", &ns, &err), VC_EPARSE);
	assert_int_equal(vc_duration_format(ns, buf, sizeof(buf)), 0);
	assert_int_equal(vc_time_parse_rfc3339("2006-01-02T15:04:05Z", &sec, NULL, &err), 0);
	assert_int_equal(vc_alloc_failures(), 0);
	vc_alloc_fail_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration_parse_table),
		cmocka_unit_test(test_duration_parse_errors),
		cmocka_unit_test(test_duration_format),
		cmocka_unit_test(test_rfc3339_parse),
		cmocka_unit_test(test_rfc3339_errors),
		cmocka_unit_test(test_rfc3339_format),
		cmocka_unit_test(test_duration_human),
		cmocka_unit_test(test_clock_source),
		cmocka_unit_test(test_alloc_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
