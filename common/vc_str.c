#include "vc_str.h"

#include <math.h>

#include "vc_err.h"

int vc_parse_int64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s || *s == ' ' || *s == '\t')
		return VC_EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return VC_EINVAL;
	if (errno == ERANGE)
		return VC_ERANGE;
	*out = (int64_t)v;
	return 0;
}

int vc_parse_int(const char *s, int min, int max, int *out)
{
	int64_t v;
	int rc = vc_parse_int64(s, &v);

	if (rc)
		return rc;
	if (v < min || v > max)
		return VC_ERANGE;
	*out = (int)v;
	return 0;
}

int vc_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || *s == ' ' || *s == '\t')
		return VC_EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end)
		return VC_EINVAL;
	if (errno == ERANGE || !isfinite(v))
		return VC_ERANGE;
	*out = v;
	return 0;
}

int vc_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "t", "T", "true", "TRUE", "True" };
	static const char *const no[] = { "0", "f", "F", "false", "FALSE", "False" };
	size_t i;

	if (!s)
		return VC_EINVAL;
	for (i = 0; i < VC_ARRAY_SIZE(yes); i++) {
		if (!strcmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return VC_EINVAL;
}

bool vc_str_has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

bool vc_str_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !memcmp(s + n - m, suffix, m);
}

int vc_str_cmp_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool vc_str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}
