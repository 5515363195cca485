/*
 * vc_log.h - leveled key=value logging (klog's --v=N, redis' serverLog).
 *
 * One line per event: `ts=<RFC 3339> level=<lvl> comp=<binary> msg="<msg>" <key=value ...>`.
 * The message is a fixed phrase; the details go into the key=value part, objects always as
 * `kind=ns/name`, so lines stay greppable. VC_LOG tests the level before evaluating arguments.
 * Lines go to a sink the binary (or a test) installs; the default sink writes to stderr.
 * Never log bearer tokens, Secret data or full admission bodies below V(5).
 */
#ifndef VC_LOG_H
#define VC_LOG_H

#include "vc_prelude.h"

enum vc_log_level {
	VC_LOG_ERROR = 0,
	VC_LOG_WARN = 1,
	VC_LOG_INFO = 2,
	/* V(n) for n in 1..5 is VC_LOG_INFO + n, shown with --v=n or more. */
};

#define VC_LOG_V(n) (VC_LOG_INFO + (n))

extern int vc_log_threshold;

/*
 * VC_LOG(level, "message", "key=%s other=%d", ...): the third argument is a printf format for
 * the key=value tail; pass "" when there is none.
 */
#define VC_LOG(level, ...)                                 \
	do {                                               \
		if ((level) <= vc_log_threshold)           \
			vc_log_emit((level), __VA_ARGS__); \
	} while (0)

#define VC_ERROR(...) VC_LOG(VC_LOG_ERROR, __VA_ARGS__)
#define VC_WARN(...)  VC_LOG(VC_LOG_WARN, __VA_ARGS__)
#define VC_INFO(...)  VC_LOG(VC_LOG_INFO, __VA_ARGS__)

void vc_log_emit(int level, const char *msg, const char *kvfmt, ...) VC_PRINTF(3, 4);

/* --v=N: show V(1)..V(N). Negative values are clamped to 0. */
void vc_log_set_verbosity(int v);
/* The comp= value, e.g. "vc-controller". The string must outlive logging. */
void vc_log_set_component(const char *comp);

/* A sink receives each complete line without the trailing newline. NULL restores stderr. */
typedef void (*vc_log_sink_fn)(void *ctx, int level, const char *line);
void vc_log_set_sink(vc_log_sink_fn fn, void *ctx);

/* The name of a level as printed ("error", "warn", "info", "v1".."v5"). */
const char *vc_log_level_name(int level);

#endif /* VC_LOG_H */
