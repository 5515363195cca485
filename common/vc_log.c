#include "vc_log.h"

#include <pthread.h>
#include <time.h>

int vc_log_threshold = VC_LOG_INFO;

static const char *log_component = "caldera";
static vc_log_sink_fn log_sink;
static void *log_sink_ctx;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void vc_log_set_verbosity(int v)
{
	if (v < 0)
		v = 0;
	vc_log_threshold = VC_LOG_INFO + v;
}

void vc_log_set_component(const char *comp)
{
	log_component = comp ? comp : "caldera";
}

void vc_log_set_sink(vc_log_sink_fn fn, void *ctx)
{
	pthread_mutex_lock(&log_lock);
	log_sink = fn;
	log_sink_ctx = ctx;
	pthread_mutex_unlock(&log_lock);
}

const char *vc_log_level_name(int level)
{
	static const char *const names[] = {
		"error", "warn", "info", "v1", "v2", "v3", "v4", "v5"
	};

	if (level < 0)
		return "error";
	if ((size_t)level >= VC_ARRAY_SIZE(names))
		return "v5";
	return names[level];
}

/* Append s to line as a double-quoted string with quotes, backslashes and controls escaped. */
static size_t put_quoted(char *line, size_t at, size_t cap, const char *s)
{
	if (at + 1 < cap)
		line[at++] = '"';
	for (; *s && at + 3 < cap; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			line[at++] = '\\';
			line[at++] = (char)c;
		} else if (c == '\n') {
			line[at++] = '\\';
			line[at++] = 'n';
		} else if (c < 0x20) {
			line[at++] = ' ';
		} else {
			line[at++] = (char)c;
		}
	}
	if (at + 1 < cap)
		line[at++] = '"';
	line[at < cap ? at : cap - 1] = '\0';
	return at;
}

void vc_log_emit(int level, const char *msg, const char *kvfmt, ...)
{
	char line[4096];
	struct timespec ts;
	struct tm tm;
	size_t at;
	int n;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line),
		     "ts=%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ level=%s comp=%s msg=",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
		     ts.tv_nsec / 1000000, vc_log_level_name(level), log_component);
	at = n < 0 ? 0 : VC_MIN((size_t)n, sizeof(line) - 1);
	at = put_quoted(line, at, sizeof(line), msg);
	if (kvfmt[0] && at + 2 < sizeof(line)) {
		line[at++] = ' ';
		va_start(ap, kvfmt);
		n = vsnprintf(line + at, sizeof(line) - at, kvfmt, ap);
		va_end(ap);
		if (n < 0)
			line[at] = '\0';
	}

	pthread_mutex_lock(&log_lock);
	if (log_sink)
		log_sink(log_sink_ctx, level, line);
	else
		fprintf(stderr, "%s\n", line);
	pthread_mutex_unlock(&log_lock);
}
