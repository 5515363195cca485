/*
 * vc_err.h - error codes and the caller's error struct.
 *
 * Every fallible function returns 0 on success or a negative code (libuv's convention). System
 * errors are -errno; Caldera's own kinds live below VC_ERR_BASE so the two never collide.
 * Messages meant for people go into a caller-provided struct vc_error, modelled on jansson's
 * json_error_t: the code, a text, and where in the input the problem was (line and column are
 * 1-based; 0 means unknown). Passing NULL for the struct is always allowed.
 */
#ifndef VC_ERR_H
#define VC_ERR_H

#include "vc_prelude.h"

#define VC_ERR_BASE (-10000)

enum vc_err_code {
	VC_OK = 0,
	VC_ENOMEM = -ENOMEM,
	VC_EINVAL = -EINVAL,
	VC_ERANGE = -ERANGE,
	VC_ENOENT = -ENOENT,
	VC_EEXIST = -EEXIST,
	VC_EIO = -EIO,
	VC_E2BIG = -E2BIG,
	VC_ETIMEDOUT = -ETIMEDOUT,
	VC_ESHUTDOWN = -ESHUTDOWN,

	/* Input that does not parse: YAML, JSON, quantities, selectors, durations. */
	VC_EPARSE = VC_ERR_BASE - 1,
	/* Parsed, but breaks a rule (a validation failure). */
	VC_EINVALID = VC_ERR_BASE - 2,
	/* A JSON Patch "test" operation that did not match. */
	VC_ETESTFAILED = VC_ERR_BASE - 3,
	/* Kubernetes API outcomes (HTTP status mapped by the client). */
	VC_ENOTFOUND = VC_ERR_BASE - 404,
	VC_ECONFLICT = VC_ERR_BASE - 409,
	VC_EALREADYEXISTS = VC_ERR_BASE - 4090,
	VC_EGONE = VC_ERR_BASE - 410,
	VC_EUNPROCESSABLE = VC_ERR_BASE - 422,
	VC_EFORBIDDEN = VC_ERR_BASE - 403,
	VC_EUNAUTHORIZED = VC_ERR_BASE - 401,
	VC_ETOOMANYREQUESTS = VC_ERR_BASE - 429,
	VC_ESERVER = VC_ERR_BASE - 500,
};

#define VC_ERROR_TEXT_LEN 512

struct vc_error {
	int code;		      /* one of enum vc_err_code */
	int line;		      /* 1-based line of the problem, 0 if unknown */
	int column;		      /* 1-based column, 0 if unknown */
	size_t position;	      /* byte offset into the input */
	char text[VC_ERROR_TEXT_LEN]; /* for people; never NUL-less */
};

/* A short, static description of a code ("out of memory", "not found"). Never NULL. */
const char *vc_strerror(int code);

/* Reset err (if not NULL) to "no error". */
void vc_error_clear(struct vc_error *err);

/*
 * Fill err (if not NULL) with code and a formatted text, leaving the position alone, and return
 * code, so a failure site can be written `return vc_error_set(err, VC_EINVAL, "...");`.
 */
int vc_error_set(struct vc_error *err, int code, const char *fmt, ...) VC_PRINTF(3, 4);

/* As vc_error_set, and also record the input position (line, column, byte offset). */
int vc_error_set_at(struct vc_error *err, int code, int line, int column, size_t position,
		    const char *fmt, ...) VC_PRINTF(6, 7);

/* Prefix err->text with "prefix: " (used when a lower layer's message gains context). */
void vc_error_prefix(struct vc_error *err, const char *fmt, ...) VC_PRINTF(2, 3);

#endif /* VC_ERR_H */
