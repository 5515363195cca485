/*
 * vc_prelude.h - the first include of every Caldera source file.
 *
 * It fixes the feature macros, pulls in the standard headers nearly every module needs, defines
 * the few attributes we use, and ends by including vc_banned.h so that unsafe libc calls become
 * compile errors everywhere (git's banned.h).
 */
#ifndef VC_PRELUDE_H
#define VC_PRELUDE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define VC_WARN_UNUSED	     __attribute__((warn_unused_result))
#define VC_UNUSED	     __attribute__((unused))
#define VC_NORETURN	     __attribute__((noreturn))

#define VC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define VC_MIN(a, b)	 ((a) < (b) ? (a) : (b))
#define VC_MAX(a, b)	 ((a) > (b) ? (a) : (b))

#include "vc_banned.h"

#endif /* VC_PRELUDE_H */
