/*
 * libFuzzer target for vc_duration_parse/format (and the RFC 3339 parser on the same bytes):
 * parse -> String() -> parse must give the same duration, and errors are always VC_EPARSE.
 */
#include "vc_prelude.h"

#include "vc_err.h"
#include "vc_time.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[1025], text[VC_DURATION_STR_MAX], stamp[VC_TIME_STR_MAX];
	struct vc_error err;
	int64_t ns, back, sec, sec2;
	int32_t nsec, nsec2;

	if (size >= sizeof(s))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (vc_duration_parse(s, &ns, &err) == 0) {
		if (vc_duration_format(ns, text, sizeof(text)) != 0)
			abort();
		if (vc_duration_parse(text, &back, &err) != 0 || back != ns)
			abort();
	} else if (err.code != VC_EPARSE) {
		abort();
	}
	if (vc_time_parse_rfc3339(s, &sec, &nsec, &err) == 0) {
		if (nsec < 0 || nsec > 999999999)
			abort();
		/* Every parsed time is in years 0000-9999 once in UTC, give or take a day. */
		if (vc_time_format_rfc3339_micro(sec, nsec, stamp, sizeof(stamp)) == 0) {
			if (vc_time_parse_rfc3339(stamp, &sec2, &nsec2, &err) != 0 || sec2 != sec ||
			    nsec2 != nsec / 1000 * 1000)
				abort();
		}
	} else if (err.code != VC_EPARSE) {
		abort();
	}
	return 0;
}
