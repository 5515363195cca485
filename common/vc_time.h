/*
 * vc_time.h - Go durations, RFC 3339 timestamps and the injectable clock.
 *
 * Durations are Go's time.Duration: a signed 64-bit count of nanoseconds, parsed by
 * time.ParseDuration and printed by Duration.String(), to the character (Volcano's flags and
 * scheduler configuration are written in this syntax, and its messages print durations so).
 *
 * Timestamps are what Kubernetes puts in objects: metav1.Time ("2006-01-02T15:04:05Z", UTC, whole
 * seconds) and metav1.MicroTime ("2006-01-02T15:04:05.000000Z"). They are held as Unix seconds
 * plus nanoseconds.
 *
 * All clock reads in Caldera go through vc_time_now_ns()/vc_time_mono_ns(), whose source a test
 * can replace, so that no test ever sleeps.
 */
#ifndef VC_TIME_H
#define VC_TIME_H

#include "vc_prelude.h"

#include "vc_err.h"

#define VC_NSEC_PER_USEC INT64_C(1000)
#define VC_NSEC_PER_MSEC INT64_C(1000000)
#define VC_NSEC_PER_SEC	 INT64_C(1000000000)
#define VC_NSEC_PER_MIN	 (60 * VC_NSEC_PER_SEC)
#define VC_NSEC_PER_HOUR (60 * VC_NSEC_PER_MIN)

/* Room for any Duration.String() ("-2562047h47m16.854775808s") and its NUL. */
#define VC_DURATION_STR_MAX 32
/* Room for "2006-01-02T15:04:05.000000Z" and its NUL. */
#define VC_TIME_STR_MAX 32

/*
 * Parse s as Go's time.ParseDuration: a sequence of decimal numbers, each with an optional
 * fraction and a unit ("ns", "us", "µs" U+00B5, "μs" U+03BC, "ms", "s", "m", "h"), with an
 * optional leading sign; "0" alone needs no unit. The result is in nanoseconds, exactly as Go
 * computes it (fractions go through a float64, as there). On failure *ns is left alone and the
 * return is VC_EPARSE with Go's message in err->text:
 *   time: invalid duration "<s>"                 (bad shape or overflow)
 *   time: missing unit in duration "<s>"
 *   time: unknown unit "<u>" in duration "<s>"
 * where the strings are quoted as Go's time package does (bytes below 0x20 or above 0x7e are
 * written \xHH, '"' and '\' are escaped). err->position is the byte offset where the problem
 * was found. VC_EINVAL for NULL arguments.
 */
int vc_duration_parse(const char *s, int64_t *ns, struct vc_error *err) VC_WARN_UNUSED;

/*
 * Write Duration.String() of ns into buf: "1h30m0s", "1.5s", "500ms", "1µs", "0s", "-2m0s".
 * Returns 0, or VC_E2BIG if len is too small (VC_DURATION_STR_MAX always suffices; buf then holds
 * "" if len > 0).
 */
int vc_duration_format(int64_t ns, char *buf, size_t len);

/*
 * Kubernetes' duration.HumanDuration (the ages kubectl and vcctl print) of ns into buf: "5s"
 * under 2 minutes, "3m20s" under 10 minutes, "45m" under 3 hours, "2h30m" under 8 hours, "30h"
 * under 2 days, "2d3h" under 8 days, "90d" under 2 years, "2y70d" under 8 years, then "9y";
 * "0s" just below zero, "<invalid>" for less than -1 s. Truncated to fit len.
 */
void vc_duration_human(int64_t ns, char *buf, size_t len);

/*
 * Parse an RFC 3339 timestamp as Go's time.Parse(time.RFC3339, s) does in Kubernetes objects:
 * "YYYY-MM-DDThh:mm:ss" with an optional fraction (".digits", more than nine digits are
 * truncated) and a zone "Z" or "+hh:mm"/"-hh:mm". 'T' and 'Z' must be upper case; years are
 * 0000-9999; the day must exist in its month; hours 00-23, minutes and seconds 00-59 (no leap
 * second); offset hours 00-23. The result is Unix seconds (*sec) and nanoseconds in
 * [0, 999999999] (*nsec, may be NULL). On failure the outputs are left alone and the return is
 * VC_EPARSE with a message naming the part that is wrong and err->position at it, or VC_EINVAL
 * for NULL arguments.
 */
int vc_time_parse_rfc3339(const char *s, int64_t *sec, int32_t *nsec,
			  struct vc_error *err) VC_WARN_UNUSED;

/*
 * Format Unix seconds as metav1.Time does: "2006-01-02T15:04:05Z" (UTC). Returns 0, VC_ERANGE
 * when the year is outside 0000-9999, or VC_E2BIG when len is too small for the text
 * (VC_TIME_STR_MAX always suffices). On failure buf holds "" if len > 0.
 */
int vc_time_format_rfc3339(int64_t sec, char *buf, size_t len);

/*
 * Format as metav1.MicroTime does: "2006-01-02T15:04:05.000000Z" (UTC, microseconds truncated).
 * nsec must be in [0, 999999999] (VC_EINVAL otherwise). Errors as vc_time_format_rfc3339.
 */
int vc_time_format_rfc3339_micro(int64_t sec, int32_t nsec, char *buf, size_t len);

/* A clock source: returns nanoseconds; ctx is the pointer given to vc_time_set_source. */
typedef int64_t vc_clock_fn(void *ctx);

/*
 * Replace the clocks behind vc_time_now_ns (realtime) and vc_time_mono_ns (monotonic). A NULL
 * function restores that system clock. Meant for tests and for start-up: a change while other
 * threads read the clock is not torn per call (each read sees either the old or the new pair),
 * but ctx must outlive every read that may still use it.
 */
void vc_time_set_source(vc_clock_fn *realtime, vc_clock_fn *mono, void *ctx);

/* Wall-clock time in nanoseconds since the Unix epoch (CLOCK_REALTIME unless replaced). */
int64_t vc_time_now_ns(void);

/* Monotonic time in nanoseconds from an arbitrary origin (CLOCK_MONOTONIC unless replaced). */
int64_t vc_time_mono_ns(void);

#endif /* VC_TIME_H */
