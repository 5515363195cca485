#include "vc_err.h"

const char *vc_strerror(int code)
{
	switch (code) {
	case VC_OK:
		return "success";
	case VC_ENOMEM:
		return "out of memory";
	case VC_EINVAL:
		return "invalid argument";
	case VC_ERANGE:
		return "out of range";
	case VC_ENOENT:
		return "no such file or entry";
	case VC_EEXIST:
		return "already exists";
	case VC_EIO:
		return "input/output error";
	case VC_E2BIG:
		return "too large";
	case VC_ETIMEDOUT:
		return "timed out";
	case VC_ESHUTDOWN:
		return "shut down";
	case VC_EPARSE:
		return "parse error";
	case VC_EINVALID:
		return "invalid";
	case VC_ETESTFAILED:
		return "test operation failed";
	case VC_ENOTFOUND:
		return "not found";
	case VC_ECONFLICT:
		return "conflict";
	case VC_EALREADYEXISTS:
		return "already exists";
	case VC_EGONE:
		return "gone";
	case VC_EUNPROCESSABLE:
		return "unprocessable entity";
	case VC_EFORBIDDEN:
		return "forbidden";
	case VC_EUNAUTHORIZED:
		return "unauthorized";
	case VC_ETOOMANYREQUESTS:
		return "too many requests";
	case VC_ESERVER:
		return "server error";
	default:
		return "unknown error";
	}
}

void vc_error_clear(struct vc_error *err)
{
	if (!err)
		return;
	err->code = VC_OK;
	err->line = 0;
	err->column = 0;
	err->position = 0;
	err->text[0] = '\0';
}

VC_PRINTF(3, 0)
static void error_vset(struct vc_error *err, int code, const char *fmt, va_list ap)
{
	int n;

	err->code = code;
	n = vsnprintf(err->text, sizeof(err->text), fmt, ap);
	if (n < 0)
		err->text[0] = '\0';
}

int vc_error_set(struct vc_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	error_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

int vc_error_set_at(struct vc_error *err, int code, int line, int column, size_t position,
		    const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->line = line;
	err->column = column;
	err->position = position;
	va_start(ap, fmt);
	error_vset(err, code, fmt, ap);
	va_end(ap);
	return code;
}

void vc_error_prefix(struct vc_error *err, const char *fmt, ...)
{
	char old[VC_ERROR_TEXT_LEN];
	size_t at, rest;
	int n;
	va_list ap;

	if (!err)
		return;
	memcpy(old, err->text, sizeof(old));
	va_start(ap, fmt);
	n = vsnprintf(err->text, sizeof(err->text), fmt, ap);
	va_end(ap);
	at = n < 0 ? 0 : VC_MIN((size_t)n, sizeof(err->text) - 1);
	/* Truncation is acceptable; the text stays NUL-terminated. */
	rest = sizeof(err->text) - 1 - at;
	if (rest >= 2) {
		memcpy(err->text + at, ": ", 2);
		at += 2;
		rest -= 2;
	}
	n = (int)VC_MIN(strnlen(old, sizeof(old)), rest);
	memcpy(err->text + at, old, (size_t)n);
	err->text[at + (size_t)n] = '\0';
}
