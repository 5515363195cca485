/*
 * libFuzzer target for vc_strconv: the Go-exact integer parsers on the input as text in bases 0,
 * 10 and one chosen by the first byte (what parses in base 10 prints back the same number, errors
 * are only VC_EINVAL or VC_ERANGE), ParseFloat on the input as text (what parses prints back with
 * FormatFloat 'g' and parses again to the same double; a range error is an infinity), ParseBool,
 * %q quoting, and FormatFloat of the first eight bytes as a double, whose 'e', 'f' and 'g' texts
 * must read back as the same double.
 */
#include "vc_prelude.h"

#include <math.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_err.h"
#include "vc_strconv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_rc(int rc)
{
	if (rc != 0 && rc != VC_EINVAL && rc != VC_ERANGE)
		abort();
}

static void check_float(double d)
{
	static const char fmts[] = { 'e', 'f', 'g' };
	struct vc_buf b;
	size_t i;

	vc_buf_init(&b, 0);
	for (i = 0; i < sizeof(fmts); i++) {
		vc_buf_reset(&b);
		if (vc_strconv_format_float(d, fmts[i], &b) != 0)
			abort();
		if (isnan(d)) {
			if (strcmp(vc_buf_str(&b), "NaN") != 0)
				abort();
		} else if (strtod(vc_buf_str(&b), NULL) != d ||
			   signbit(strtod(vc_buf_str(&b), NULL)) != signbit(d)) {
			abort();
		}
	}
	vc_buf_release(&b);
}

static void check_parsed_float(const char *s, size_t size)
{
	struct vc_buf b;
	double d, back;
	int rc = vc_strconv_parse_float(s, size, &d);

	check_rc(rc);
	if (rc == VC_ERANGE && !isinf(d))
		abort();
	if (rc != 0 || isnan(d))
		return;
	vc_buf_init(&b, 0);
	if (vc_strconv_format_float(d, 'g', &b) != 0 ||
	    vc_strconv_parse_float(vc_buf_str(&b), b.len, &back) != 0 || back != d ||
	    signbit(back) != signbit(d))
		abort();
	vc_buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	char text[32], *z;
	struct vc_buf q;
	int64_t i64, back;
	uint64_t u64;
	bool b;
	int rc;

	rc = vc_strconv_parse_int(s, size, 10, &i64);
	check_rc(rc);
	if (rc == 0) {
		snprintf(text, sizeof(text), "%" PRId64, i64);
		if (vc_strconv_parse_int(text, strlen(text), 10, &back) != 0 || back != i64)
			abort();
	}
	check_rc(vc_strconv_parse_int(s, size, 0, &i64));
	check_rc(vc_strconv_parse_uint(s, size, 0, &u64));
	if (size > 0) {
		check_rc(vc_strconv_parse_int(s + 1, size - 1, data[0] % 40, &i64));
		check_rc(vc_strconv_parse_uint(s + 1, size - 1, data[0] % 40, &u64));
	}
	check_parsed_float(s, size);
	if (size >= sizeof(double)) {
		double d;

		memcpy(&d, data, sizeof(d));
		check_float(d);
	}
	z = vc_malloc(size + 1);
	if (!z)
		return 0;
	memcpy(z, data, size);
	z[size] = '\0';
	rc = vc_parse_bool(z, &b);
	if (rc != 0 && rc != VC_EINVAL)
		abort();
	vc_buf_init(&q, 0);
	if (vc_go_quote_n(z, size, &q) != 0 || q.len < 2)
		abort();
	vc_buf_release(&q);
	vc_free(z);
	return 0;
}
