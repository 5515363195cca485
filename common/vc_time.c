#include "vc_time.h"

#include <pthread.h>
#include <time.h>

#define DURATION_LIMIT (UINT64_C(1) << 63)

/* Room for a quoted input in a message; longer ones are cut (err->text is bounded anyway). */
#define QUOTE_MAX 160

/*
 * Go's time.quote: wrap in double quotes, escape '"' and '\', and write every byte below 0x20 or
 * at/above 0x80 as \xHH (for valid UTF-8 Go escapes each byte of the rune, so the result is the
 * same byte by byte). The output is truncated, never overrun.
 */
static const char *go_quote(const char *s, size_t len, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0, i;

	out[o++] = '"';
	for (i = 0; i < len && o + 6 < cap; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x80) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 0xf];
		} else {
			if (c == '"' || c == '\\')
				out[o++] = '\\';
			out[o++] = (char)c;
		}
	}
	out[o++] = '"';
	out[o] = '\0';
	return out;
}

static int duration_invalid(struct vc_error *err, const char *orig, size_t pos)
{
	char q[QUOTE_MAX];

	return vc_error_set_at(err, VC_EPARSE, 1, (int)VC_MIN(pos + 1, (size_t)INT_MAX), pos,
			       "time: invalid duration %s",
			       go_quote(orig, strlen(orig), q, sizeof(q)));
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static uint64_t duration_unit(const char *u, size_t len)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 },
		{ "us", 1000 },
		{ "\xc2\xb5s", 1000 }, /* U+00B5 micro sign */
		{ "\xce\xbcs", 1000 }, /* U+03BC Greek small letter mu */
		{ "ms", 1000000 },
		{ "s", UINT64_C(1000000000) },
		{ "m", UINT64_C(60000000000) },
		{ "h", UINT64_C(3600000000000) },
	};
	size_t i;

	for (i = 0; i < VC_ARRAY_SIZE(units); i++) {
		if (strlen(units[i].name) == len && memcmp(units[i].name, u, len) == 0)
			return units[i].ns;
	}
	return 0;
}

int vc_duration_parse(const char *s, int64_t *ns, struct vc_error *err)
{
	const char *p;
	uint64_t d = 0;
	bool neg = false;

	if (!s || !ns)
		return vc_error_set(err, VC_EINVAL, "no duration to parse");
	p = s;
	if (*p == '-' || *p == '+') {
		neg = *p == '-';
		p++;
	}
	if (strcmp(p, "0") == 0) {
		*ns = 0;
		return 0;
	}
	if (!*p)
		return duration_invalid(err, s, (size_t)(p - s));
	while (*p) {
		uint64_t v = 0, f = 0, unit;
		double scale = 1;
		const char *start;
		bool pre, post = false, overflow = false;

		if (!(*p == '.' || is_digit(*p)))
			return duration_invalid(err, s, (size_t)(p - s));
		for (start = p; is_digit(*p); p++) {
			if (v > DURATION_LIMIT / 10)
				return duration_invalid(err, s, (size_t)(p - s));
			v = v * 10 + (uint64_t)(*p - '0');
			if (v > DURATION_LIMIT)
				return duration_invalid(err, s, (size_t)(p - s));
		}
		pre = p != start;
		if (*p == '.') {
			/* Fraction digits past int64 precision are consumed but ignored. */
			for (start = ++p; is_digit(*p); p++) {
				uint64_t y;

				if (overflow)
					continue;
				if (f > (DURATION_LIMIT - 1) / 10) {
					overflow = true;
					continue;
				}
				y = f * 10 + (uint64_t)(*p - '0');
				if (y > DURATION_LIMIT) {
					overflow = true;
					continue;
				}
				f = y;
				scale *= 10;
			}
			post = p != start;
		}
		if (!pre && !post)
			return duration_invalid(err, s, (size_t)(p - s));
		for (start = p; *p && *p != '.' && !is_digit(*p); p++)
			;
		if (p == start) {
			char q[QUOTE_MAX];

			return vc_error_set_at(err, VC_EPARSE, 1,
					       (int)VC_MIN((size_t)(p - s) + 1, (size_t)INT_MAX),
					       (size_t)(p - s), "time: missing unit in duration %s",
					       go_quote(s, strlen(s), q, sizeof(q)));
		}
		unit = duration_unit(start, (size_t)(p - start));
		if (!unit) {
			char qu[QUOTE_MAX], qs[QUOTE_MAX];

			return vc_error_set_at(
				err, VC_EPARSE, 1,
				(int)VC_MIN((size_t)(start - s) + 1, (size_t)INT_MAX),
				(size_t)(start - s), "time: unknown unit %s in duration %s",
				go_quote(start, (size_t)(p - start), qu, sizeof(qu)),
				go_quote(s, strlen(s), qs, sizeof(qs)));
		}
		if (v > DURATION_LIMIT / unit)
			return duration_invalid(err, s, (size_t)(start - s));
		v *= unit;
		if (f > 0) {
			/* Go goes through float64 here; so do we, to get the same nanosecond. */
			v += (uint64_t)((double)f * ((double)unit / scale));
			if (v > DURATION_LIMIT)
				return duration_invalid(err, s, (size_t)(start - s));
		}
		/* Unsigned wrap-around is what Go does too (d and v are both at most 2^63). */
		d += v;
		if (d > DURATION_LIMIT)
			return duration_invalid(err, s, (size_t)(start - s));
	}
	if (neg) {
		/* -2^63 is representable; the conversion wraps as Go's does. */
		*ns = (int64_t)(UINT64_C(0) - d);
		return 0;
	}
	if (d > (uint64_t)INT64_MAX)
		return duration_invalid(err, s, (size_t)(p - s));
	*ns = (int64_t)d;
	return 0;
}

/* Go's fmtFrac: the prec fractional digits of v without trailing zeros, written backwards. */
static size_t fmt_frac(char *buf, size_t w, uint64_t *v, int prec)
{
	bool print = false;
	int i;

	for (i = 0; i < prec; i++) {
		unsigned digit = (unsigned)(*v % 10);

		print = print || digit != 0;
		if (print)
			buf[--w] = (char)('0' + digit);
		*v /= 10;
	}
	if (print)
		buf[--w] = '.';
	return w;
}

static size_t fmt_int(char *buf, size_t w, uint64_t v)
{
	if (v == 0) {
		buf[--w] = '0';
		return w;
	}
	while (v > 0) {
		buf[--w] = (char)('0' + v % 10);
		v /= 10;
	}
	return w;
}

int vc_duration_format(int64_t ns, char *buf, size_t len)
{
	char tmp[VC_DURATION_STR_MAX];
	size_t w = sizeof(tmp) - 1, n;
	uint64_t u = (uint64_t)ns;
	bool neg = ns < 0;

	if (!buf)
		return VC_EINVAL;
	tmp[w] = '\0';
	if (neg)
		u = UINT64_C(0) - u;
	if (u < (uint64_t)VC_NSEC_PER_SEC) {
		int prec;

		tmp[--w] = 's';
		if (u == 0) {
			tmp[--w] = '0';
			goto done;
		} else if (u < (uint64_t)VC_NSEC_PER_USEC) {
			prec = 0;
			tmp[--w] = 'n';
		} else if (u < (uint64_t)VC_NSEC_PER_MSEC) {
			prec = 3;
			tmp[--w] = '\xb5'; /* U+00B5 micro sign */
			tmp[--w] = '\xc2';
		} else {
			prec = 6;
			tmp[--w] = 'm';
		}
		w = fmt_frac(tmp, w, &u, prec);
		w = fmt_int(tmp, w, u);
	} else {
		tmp[--w] = 's';
		w = fmt_frac(tmp, w, &u, 9);
		w = fmt_int(tmp, w, u % 60);
		u /= 60;
		if (u > 0) {
			tmp[--w] = 'm';
			w = fmt_int(tmp, w, u % 60);
			u /= 60;
			/* Stop at hours: days can be of different lengths. */
			if (u > 0) {
				tmp[--w] = 'h';
				w = fmt_int(tmp, w, u);
			}
		}
	}
done:
	if (neg)
		tmp[--w] = '-';
	n = sizeof(tmp) - 1 - w;
	if (n >= len) {
		if (len)
			buf[0] = '\0';
		return VC_E2BIG;
	}
	memcpy(buf, tmp + w, n + 1);
	return 0;
}

void vc_duration_human(int64_t ns, char *buf, size_t len)
{
	int64_t seconds = ns / VC_NSEC_PER_SEC, minutes, hours;

	if (seconds < -1) {
		snprintf(buf, len, "<invalid>");
		return;
	}
	if (seconds < 0 || (ns < 0 && seconds == 0)) {
		snprintf(buf, len, "0s");
		return;
	}
	if (seconds < INT64_C(120)) {
		snprintf(buf, len, "%llds", (long long)seconds);
		return;
	}
	minutes = ns / VC_NSEC_PER_MIN;
	if (minutes < 10) {
		int64_t s = seconds % 60;

		if (s == 0)
			snprintf(buf, len, "%lldm", (long long)minutes);
		else
			snprintf(buf, len, "%lldm%llds", (long long)minutes, (long long)s);
		return;
	}
	if (minutes < INT64_C(180)) {
		snprintf(buf, len, "%lldm", (long long)minutes);
		return;
	}
	hours = ns / VC_NSEC_PER_HOUR;
	if (hours < 8) {
		int64_t m = minutes % 60;

		if (m == 0)
			snprintf(buf, len, "%lldh", (long long)hours);
		else
			snprintf(buf, len, "%lldh%lldm", (long long)hours, (long long)m);
	} else if (hours < 48) {
		snprintf(buf, len, "%lldh", (long long)hours);
	} else if (hours < INT64_C(24) * 8) {
		int64_t h = hours % 24;

		if (h == 0)
			snprintf(buf, len, "%lldd", (long long)(hours / 24));
		else
			snprintf(buf, len, "%lldd%lldh", (long long)(hours / 24), (long long)h);
	} else if (hours < INT64_C(24) * 365 * 2) {
		snprintf(buf, len, "%lldd", (long long)(hours / 24));
	} else if (hours < INT64_C(24) * 365 * 8) {
		snprintf(buf, len, "%lldy%lldd", (long long)(hours / 24 / 365),
			 (long long)((hours / 24) % 365));
	} else {
		snprintf(buf, len, "%lldy", (long long)(hours / 24 / 365));
	}
}

static bool leap_year(int y)
{
	return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

static int days_in(int month, int year)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return month == 2 && leap_year(year) ? 29 : days[month - 1];
}

/* Digits s[at..at+n) as a number in [min, max], or -1. */
static int rfc_num(const char *s, size_t at, size_t n, int min, int max)
{
	int v = 0;
	size_t i;

	for (i = at; i < at + n; i++) {
		if (!is_digit(s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v < min || v > max ? -1 : v;
}

static int time_fail(struct vc_error *err, const char *s, size_t pos, const char *what)
{
	return vc_error_set_at(err, VC_EPARSE, 1, (int)VC_MIN(pos + 1, (size_t)INT_MAX), pos,
			       "cannot parse time '%.64s': %s", s, what);
}

int vc_time_parse_rfc3339(const char *s, int64_t *sec, int32_t *nsec, struct vc_error *err)
{
	static const struct {
		size_t at;
		char c;
		const char *what;
	} seps[] = { { 4, '-', "expected '-' after the year" },
		     { 7, '-', "expected '-' after the month" },
		     { 10, 'T', "expected 'T' after the date" },
		     { 13, ':', "expected ':' after the hour" },
		     { 16, ':', "expected ':' after the minute" } };
	int year, month, day, hour, min, secs, off = 0;
	int32_t frac = 0;
	size_t len, i, pos = 19;
	struct tm tm;
	time_t t;

	if (!s || !sec)
		return vc_error_set(err, VC_EINVAL, "no time to parse");
	len = strlen(s);
	if (len < 20)
		return time_fail(err, s, len, "too short for YYYY-MM-DDThh:mm:ssZ");
	for (i = 0; i < VC_ARRAY_SIZE(seps); i++) {
		if (s[seps[i].at] != seps[i].c)
			return time_fail(err, s, seps[i].at, seps[i].what);
	}
	if ((year = rfc_num(s, 0, 4, 0, 9999)) < 0)
		return time_fail(err, s, 0, "bad year");
	if ((month = rfc_num(s, 5, 2, 1, 12)) < 0)
		return time_fail(err, s, 5, "month out of range");
	if ((day = rfc_num(s, 8, 2, 1, days_in(month, year))) < 0)
		return time_fail(err, s, 8, "day out of range");
	if ((hour = rfc_num(s, 11, 2, 0, 23)) < 0)
		return time_fail(err, s, 11, "hour out of range");
	if ((min = rfc_num(s, 14, 2, 0, 59)) < 0)
		return time_fail(err, s, 14, "minute out of range");
	if ((secs = rfc_num(s, 17, 2, 0, 59)) < 0)
		return time_fail(err, s, 17, "second out of range");
	if (s[pos] == '.' && is_digit(s[pos + 1])) {
		int digits = 0;

		/* Go keeps nine digits and drops the rest. */
		for (pos++; is_digit(s[pos]); pos++) {
			if (digits++ < 9)
				frac = frac * 10 + (s[pos] - '0');
		}
		for (; digits < 9; digits++)
			frac *= 10;
	}
	if (strcmp(s + pos, "Z") != 0) {
		int oh, om;

		if (len - pos != 6 || (s[pos] != '+' && s[pos] != '-') || s[pos + 3] != ':')
			return time_fail(err, s, pos, "expected 'Z' or a zone offset like +07:00");
		if ((oh = rfc_num(s, pos + 1, 2, 0, 23)) < 0 ||
		    (om = rfc_num(s, pos + 4, 2, 0, 59)) < 0)
			return time_fail(err, s, pos, "zone offset out of range");
		off = (oh * 60 + om) * 60;
		if (s[pos] == '-')
			off = -off;
	}
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = year - 1900;
	tm.tm_mon = month - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = secs;
	t = timegm(&tm);
	*sec = (int64_t)t - off;
	if (nsec)
		*nsec = frac;
	return 0;
}

static int format_utc(int64_t sec, int32_t nsec, bool micro, char *buf, size_t len)
{
	char tmp[VC_TIME_STR_MAX];
	struct tm tm;
	time_t t = (time_t)sec;
	int n;

	if (!buf)
		return VC_EINVAL;
	if (len)
		buf[0] = '\0';
	if (nsec < 0 || nsec > 999999999)
		return VC_EINVAL;
	if (!gmtime_r(&t, &tm) || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900)
		return VC_ERANGE;
	if (micro)
		n = snprintf(tmp, sizeof(tmp), "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
			     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
			     tm.tm_sec, (int)(nsec / 1000));
	else
		n = snprintf(tmp, sizeof(tmp), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
			     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	if (n < 0 || (size_t)n >= len)
		return VC_E2BIG;
	memcpy(buf, tmp, (size_t)n + 1);
	return 0;
}

int vc_time_format_rfc3339(int64_t sec, char *buf, size_t len)
{
	return format_utc(sec, 0, false, buf, len);
}

int vc_time_format_rfc3339_micro(int64_t sec, int32_t nsec, char *buf, size_t len)
{
	return format_utc(sec, nsec, true, buf, len);
}

/*
 * The clock source is published with a sequence lock: readers never block, and a reader that
 * raced with vc_time_set_source retries, so it always uses a consistent (realtime, mono, ctx).
 */
static pthread_mutex_t source_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned source_seq;
static vc_clock_fn *source_realtime;
static vc_clock_fn *source_mono;
static void *source_ctx;

void vc_time_set_source(vc_clock_fn *realtime, vc_clock_fn *mono, void *ctx)
{
	pthread_mutex_lock(&source_lock);
	__atomic_add_fetch(&source_seq, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&source_realtime, realtime, __ATOMIC_RELAXED);
	__atomic_store_n(&source_mono, mono, __ATOMIC_RELAXED);
	__atomic_store_n(&source_ctx, ctx, __ATOMIC_RELAXED);
	__atomic_add_fetch(&source_seq, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&source_lock);
}

static void read_source(vc_clock_fn **realtime, vc_clock_fn **mono, void **ctx)
{
	unsigned s1, s2;

	do {
		s1 = __atomic_load_n(&source_seq, __ATOMIC_ACQUIRE);
		*realtime = __atomic_load_n(&source_realtime, __ATOMIC_RELAXED);
		*mono = __atomic_load_n(&source_mono, __ATOMIC_RELAXED);
		*ctx = __atomic_load_n(&source_ctx, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&source_seq, __ATOMIC_RELAXED);
	} while ((s1 & 1) || s1 != s2);
}

static int64_t system_clock(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * VC_NSEC_PER_SEC + ts.tv_nsec;
}

int64_t vc_time_now_ns(void)
{
	vc_clock_fn *realtime, *mono;
	void *ctx;

	read_source(&realtime, &mono, &ctx);
	return realtime ? realtime(ctx) : system_clock(CLOCK_REALTIME);
}

int64_t vc_time_mono_ns(void)
{
	vc_clock_fn *realtime, *mono;
	void *ctx;

	read_source(&realtime, &mono, &ctx);
	return mono ? mono(ctx) : system_clock(CLOCK_MONOTONIC);
}
