/*
 * vc_validate.c - Kubernetes validation messages, field paths and errors.
 *
 * The regular expressions of apimachinery are small enough to check by hand; each checker below
 * names the expression it implements, and the message texts are apimachinery's, character for
 * character (including the double spaces RegexError produces between examples).
 */
#include "vc_validate.h"

#include <math.h>

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_str.h"

/* ---------------------------------------------------------------------------------------------
 * String lists
 */

void vc_strlist_init(struct vc_strlist *l)
{
	l->items = NULL;
	l->len = 0;
	l->alloc = 0;
}

void vc_strlist_release(struct vc_strlist *l)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		vc_free(l->items[i]);
	vc_free(l->items);
	vc_strlist_init(l);
}

/* Take ownership of s (freed on failure). */
static int strlist_push(struct vc_strlist *l, char *s)
{
	if (!s)
		return VC_ENOMEM;
	if (l->len == l->alloc) {
		size_t n = l->alloc ? l->alloc * 2 : 4;
		char **p = vc_realloc(l->items, n * sizeof(*p));

		if (!p) {
			vc_free(s);
			return VC_ENOMEM;
		}
		l->items = p;
		l->alloc = n;
	}
	l->items[l->len++] = s;
	return 0;
}

int vc_strlist_add(struct vc_strlist *l, const char *s)
{
	return strlist_push(l, vc_strdup(s));
}

int vc_strlist_addf(struct vc_strlist *l, const char *fmt, ...)
{
	struct vc_buf b;
	va_list ap;
	int rc;

	vc_buf_init(&b, 0);
	va_start(ap, fmt);
	rc = vc_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	if (rc) {
		vc_buf_release(&b);
		return rc;
	}
	return strlist_push(l, vc_buf_take(&b));
}

int vc_strlist_join(const struct vc_strlist *l, const char *sep, struct vc_buf *out)
{
	size_t i;
	int rc;

	for (i = 0; i < l->len; i++) {
		if (i && (rc = vc_buf_adds(out, sep)))
			return rc;
		if ((rc = vc_buf_adds(out, l->items[i])))
			return rc;
	}
	return 0;
}

int vc_strlist_format_go(const struct vc_strlist *l, struct vc_buf *out)
{
	int rc;

	if ((rc = vc_buf_addc(out, '[')) || (rc = vc_strlist_join(l, " ", out)))
		return rc;
	return vc_buf_addc(out, ']');
}

/* The aggregate text of texts[0..n): shared by string lists and field error lists. */
static int aggregate_texts(const char *const *texts, size_t n, struct vc_buf *out)
{
	size_t i, j, shown = 0, first = 0;
	int rc;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(texts[j], texts[i]); j++)
			;
		if (j < i)
			continue;
		if (!shown++)
			first = i;
	}
	if (shown == 0)
		return 0;
	if (shown == 1)
		return vc_buf_adds(out, texts[first]);
	if ((rc = vc_buf_addc(out, '[')))
		return rc;
	shown = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(texts[j], texts[i]); j++)
			;
		if (j < i)
			continue;
		if (shown++ && (rc = vc_buf_adds(out, ", ")))
			return rc;
		if ((rc = vc_buf_adds(out, texts[i])))
			return rc;
	}
	return vc_buf_addc(out, ']');
}

int vc_strlist_aggregate(const struct vc_strlist *l, struct vc_buf *out)
{
	return aggregate_texts((const char *const *)l->items, l->len, out);
}

/* ---------------------------------------------------------------------------------------------
 * Name and label checks
 */

#define DNS1123_LABEL_FMT     "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define DNS1123_SUBDOMAIN_FMT DNS1123_LABEL_FMT "(\\." DNS1123_LABEL_FMT ")*"
#define DNS1035_LABEL_FMT     "[a-z]([-a-z0-9]*[a-z0-9])?"
#define LABEL_KEY_FMT	      "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define LABEL_VALUE_FMT	      "(" LABEL_KEY_FMT ")?"
#define C_IDENTIFIER_FMT      "[A-Za-z_][A-Za-z0-9_]*"
#define ENV_VAR_NAME_FMT      "[-._a-zA-Z][-._a-zA-Z0-9]*"

/* RegexError(msg, fmt, examples...) with the examples written out. */
#define DNS1123_LABEL_MSG                                                                        \
	"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " \
	"and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', " \
	"regex used for validation is '" DNS1123_LABEL_FMT "')"
#define DNS1123_SUBDOMAIN_MSG                                                                     \
	"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' " \
	"or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "     \
	"regex used for validation is '" DNS1123_SUBDOMAIN_FMT "')"
#define DNS1035_LABEL_MSG                                                                         \
	"a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with " \
	"an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "   \
	"'abc-123', regex used for validation is '" DNS1035_LABEL_FMT "')"
#define LABEL_KEY_ERR                                                                             \
	"must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "  \
	"an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for " \
	"validation is '" LABEL_KEY_FMT "')"
#define LABEL_VALUE_MSG                                                                          \
	"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' " \
	"or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "    \
	"'my_value',  or '12345', regex used for validation is '" LABEL_VALUE_FMT "')"
#define C_IDENTIFIER_MSG                                                                          \
	"a valid C identifier must start with alphabetic character or '_', followed by a string " \
	"of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex "  \
	"used for validation is '" C_IDENTIFIER_FMT "')"
#define ENV_VAR_NAME_MSG                                                                         \
	"a valid environment variable name must consist of alphabetic characters, digits, '_', " \
	"'-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  " \
	"or 'MyEnvName1', regex used for validation is '" ENV_VAR_NAME_FMT "')"

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
	return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0..n). */
static bool match_dns1123_label(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
		return false;
	for (i = 1; i + 1 < n; i++)
		if (!is_lower_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

/* One or more dot-separated RFC 1123 labels. */
static bool match_dns1123_subdomain(const char *s, size_t n)
{
	size_t start = 0, i;

	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (!match_dns1123_label(s + start, i - start))
			return false;
		start = i + 1;
	}
	return true;
}

/* [a-z]([-a-z0-9]*[a-z0-9])? */
static bool match_dns1035_label(const char *s, size_t n)
{
	return n > 0 && s[0] >= 'a' && s[0] <= 'z' && match_dns1123_label(s, n);
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] */
static bool match_label_key_name(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
		return false;
	for (i = 1; i + 1 < n; i++)
		if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

/* Record one message (if msgs) and remember the value is invalid. */
static int note(struct vc_strlist *msgs, int *rc, const char *prefix, const char *msg)
{
	*rc = VC_EINVALID;
	if (!msgs)
		return 0;
	return strlist_push(msgs, vc_asprintf("%s%s", prefix, msg));
}

static int note_maxlen(struct vc_strlist *msgs, int *rc, const char *prefix, int max,
		       const char *unit)
{
	*rc = VC_EINVALID;
	if (!msgs)
		return 0;
	return strlist_push(msgs, vc_asprintf("%smust be no more than %d %s", prefix, max, unit));
}

/* IsDNS1123Subdomain; unit is "characters" (util) or "bytes" (content, inside label keys). */
static int check_subdomain(const char *s, size_t n, const char *prefix, const char *unit,
			   struct vc_strlist *msgs)
{
	int rc = 0, err;

	if (n > 253 && (err = note_maxlen(msgs, &rc, prefix, 253, unit)))
		return err;
	if (!match_dns1123_subdomain(s, n) &&
	    (err = note(msgs, &rc, prefix, DNS1123_SUBDOMAIN_MSG)))
		return err;
	return rc;
}

int vc_validate_dns1123_label(const char *value, struct vc_strlist *msgs)
{
	size_t n = strlen(value);
	int rc = 0, err;

	if (n > 63 && (err = note_maxlen(msgs, &rc, "", 63, "characters")))
		return err;
	if (!match_dns1123_label(value, n)) {
		/* A valid subdomain that is not a valid label: the length was checked, so dots. */
		if (match_dns1123_subdomain(value, n))
			err = note(msgs, &rc, "", "must not contain dots");
		else
			err = note(msgs, &rc, "", DNS1123_LABEL_MSG);
		if (err)
			return err;
	}
	return rc;
}

int vc_validate_dns1123_subdomain(const char *value, struct vc_strlist *msgs)
{
	return check_subdomain(value, strlen(value), "", "characters", msgs);
}

int vc_validate_dns1035_label(const char *value, struct vc_strlist *msgs)
{
	size_t n = strlen(value);
	int rc = 0, err;

	if (n > 63 && (err = note_maxlen(msgs, &rc, "", 63, "characters")))
		return err;
	if (!match_dns1035_label(value, n) && (err = note(msgs, &rc, "", DNS1035_LABEL_MSG)))
		return err;
	return rc;
}

int vc_validate_qualified_name(const char *value, struct vc_strlist *msgs)
{
	const char *slash = strchr(value, '/'), *name = value;
	size_t n;
	int rc = 0, err;

	if (slash && strchr(slash + 1, '/')) {
		err = note(msgs, &rc, "a valid label key ",
			   LABEL_KEY_ERR " with an optional DNS subdomain prefix and '/' (e.g. "
					 "'example.com/MyName')");
		return err ? err : rc;
	}
	if (slash) {
		size_t plen = (size_t)(slash - value);

		name = slash + 1;
		if (plen == 0) {
			if ((err = note(msgs, &rc, "prefix part ", "must be non-empty")))
				return err;
		} else {
			err = check_subdomain(value, plen, "prefix part ", "bytes", msgs);
			if (err == VC_EINVALID)
				rc = err;
			else if (err)
				return err;
		}
	}
	n = strlen(name);
	if (n == 0)
		err = note(msgs, &rc, "name part ", "must be non-empty");
	else if (n > 63)
		err = note_maxlen(msgs, &rc, "name part ", 63, "bytes");
	else
		err = 0;
	if (err)
		return err;
	if (!match_label_key_name(name, n) && (err = note(msgs, &rc, "name part ", LABEL_KEY_ERR)))
		return err;
	return rc;
}

int vc_validate_label_value(const char *value, struct vc_strlist *msgs)
{
	size_t n = strlen(value);
	int rc = 0, err;

	if (n > 63 && (err = note_maxlen(msgs, &rc, "", 63, "bytes")))
		return err;
	if (n && !match_label_key_name(value, n) && (err = note(msgs, &rc, "", LABEL_VALUE_MSG)))
		return err;
	return rc;
}

int vc_validate_c_identifier(const char *value, struct vc_strlist *msgs)
{
	size_t i;
	bool ok = is_alpha(value[0]) || value[0] == '_';
	int rc = 0, err;

	for (i = 1; ok && value[i]; i++)
		ok = is_alnum(value[i]) || value[i] == '_';
	if (!ok && (err = note(msgs, &rc, "", C_IDENTIFIER_MSG)))
		return err;
	return rc;
}

int vc_validate_env_var_name(const char *value, struct vc_strlist *msgs)
{
	size_t i;
	bool ok = is_alpha(value[0]) || value[0] == '-' || value[0] == '.' || value[0] == '_';
	int rc = 0, err = 0;

	for (i = 1; ok && value[i]; i++)
		ok = is_alnum(value[i]) || value[i] == '-' || value[i] == '.' || value[i] == '_';
	if (!ok && (err = note(msgs, &rc, "", ENV_VAR_NAME_MSG)))
		return err;
	if (!strcmp(value, "."))
		err = note(msgs, &rc, "", "must not be '.'");
	else if (!strcmp(value, ".."))
		err = note(msgs, &rc, "", "must not be '..'");
	else if (!strncmp(value, "..", 2))
		err = note(msgs, &rc, "", "must not start with '..'");
	return err ? err : rc;
}

/* ---------------------------------------------------------------------------------------------
 * Field paths
 */

struct vc_field_path vc_field_path_root(const char *name)
{
	struct vc_field_path p = { .parent = NULL, .name = name ? name : "" };

	return p;
}

struct vc_field_path vc_field_path_child(const struct vc_field_path *parent, const char *name)
{
	struct vc_field_path p = { .parent = parent, .name = name ? name : "" };

	return p;
}

struct vc_field_path vc_field_path_index(const struct vc_field_path *parent, long index)
{
	struct vc_field_path p = { .parent = parent, .index = index };

	return p;
}

struct vc_field_path vc_field_path_key(const struct vc_field_path *parent, const char *key)
{
	struct vc_field_path p = { .parent = parent, .key = key ? key : "" };

	return p;
}

static int path_format(const struct vc_field_path *p, struct vc_buf *out, int depth)
{
	int rc;

	if (depth > 10000)
		return VC_E2BIG;
	if (p->parent && (rc = path_format(p->parent, out, depth + 1)))
		return rc;
	/* Go keeps one string per element: an empty name is indistinguishable from a subscript. */
	if (p->name && p->name[0]) {
		if (p->parent && (rc = vc_buf_addc(out, '.')))
			return rc;
		return vc_buf_adds(out, p->name);
	}
	if (p->name || p->key)
		return vc_buf_addf(out, "[%s]", p->name ? "" : p->key);
	return vc_buf_addf(out, "[%ld]", p->index);
}

int vc_field_path_format(const struct vc_field_path *path, struct vc_buf *out)
{
	if (!path)
		return vc_buf_adds(out, "<nil>");
	return path_format(path, out, 0);
}

/* ---------------------------------------------------------------------------------------------
 * Field errors
 */

const char *vc_field_error_type_string(enum vc_field_error_type type)
{
	switch (type) {
	case VC_FIELD_NOT_FOUND:
		return "Not found";
	case VC_FIELD_REQUIRED:
		return "Required value";
	case VC_FIELD_DUPLICATE:
		return "Duplicate value";
	case VC_FIELD_INVALID:
	case VC_FIELD_TYPE_INVALID:
		return "Invalid value";
	case VC_FIELD_NOT_SUPPORTED:
		return "Unsupported value";
	case VC_FIELD_FORBIDDEN:
		return "Forbidden";
	case VC_FIELD_TOO_LONG:
		return "Too long";
	case VC_FIELD_TOO_MANY:
		return "Too many";
	case VC_FIELD_TOO_FEW:
		return "Too few";
	case VC_FIELD_TOO_SHORT:
		return "Too short";
	case VC_FIELD_INTERNAL:
		return "Internal error";
	default:
		return "<unknown error>";
	}
}

static bool type_prints_value(enum vc_field_error_type type)
{
	switch (type) {
	case VC_FIELD_INVALID:
	case VC_FIELD_TYPE_INVALID:
	case VC_FIELD_NOT_SUPPORTED:
	case VC_FIELD_NOT_FOUND:
	case VC_FIELD_DUPLICATE:
	case VC_FIELD_TOO_MANY:
	case VC_FIELD_TOO_FEW:
		return true;
	default:
		return false;
	}
}

/* Render a bad value the way ErrorBody's type switch does. */
static int render_value(struct vc_field_value v, struct vc_buf *out)
{
	size_t i;
	int rc;

	switch (v.kind) {
	case VC_FV_STRING:
		return vc_go_quote(v.s ? v.s : "", out);
	case VC_FV_NAMED_STRING:
		return vc_go_json_string(v.s ? v.s : "", v.s ? strlen(v.s) : 0, out);
	case VC_FV_INT:
		return vc_buf_addf(out, "%" PRId64, v.i);
	case VC_FV_BOOL:
		return vc_buf_adds(out, v.b ? "true" : "false");
	case VC_FV_FLOAT:
		return vc_strconv_format_float(v.d, 'g', out);
	case VC_FV_STRINGS:
		if (!v.strv)
			return vc_buf_adds(out, "null");
		if ((rc = vc_buf_addc(out, '[')))
			return rc;
		for (i = 0; i < v.strc; i++) {
			if (i && (rc = vc_buf_addc(out, ',')))
				return rc;
			if ((rc = vc_go_json_string(v.strv[i], strlen(v.strv[i]), out)))
				return rc;
		}
		return vc_buf_addc(out, ']');
	case VC_FV_JSON:
		return vc_go_json(v.json, out);
	case VC_FV_OMIT:
	default:
		return 0;
	}
}

void vc_field_errors_init(struct vc_field_errors *l)
{
	l->items = NULL;
	l->len = 0;
	l->alloc = 0;
}

static void field_error_free(struct vc_field_error *e)
{
	vc_free(e->field);
	vc_free(e->value);
	vc_free(e->detail);
}

void vc_field_errors_release(struct vc_field_errors *l)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		field_error_free(&l->items[i]);
	vc_free(l->items);
	vc_field_errors_init(l);
}

int vc_field_errors_add(struct vc_field_errors *l, enum vc_field_error_type type,
			const struct vc_field_path *path, struct vc_field_value value,
			const char *detail)
{
	struct vc_field_error e = { .type = type };
	struct vc_buf b;
	int rc;

	if (l->len == l->alloc) {
		size_t n = l->alloc ? l->alloc * 2 : 4;
		struct vc_field_error *p = vc_realloc(l->items, n * sizeof(*p));

		if (!p)
			return VC_ENOMEM;
		l->items = p;
		l->alloc = n;
	}
	vc_buf_init(&b, 0);
	if ((rc = vc_field_path_format(path, &b)))
		goto fail;
	if (!(e.field = vc_buf_take(&b)))
		goto nomem;
	if (type_prints_value(type) && value.kind != VC_FV_OMIT) {
		if ((rc = render_value(value, &b)))
			goto fail;
		if (!(e.value = vc_buf_take(&b)))
			goto nomem;
	}
	if (!(e.detail = vc_strdup(detail ? detail : "")))
		goto nomem;
	l->items[l->len++] = e;
	return 0;
nomem:
	rc = VC_ENOMEM;
fail:
	vc_buf_release(&b);
	field_error_free(&e);
	return rc;
}

int vc_field_invalid(struct vc_field_errors *l, const struct vc_field_path *path,
		     struct vc_field_value value, const char *detail)
{
	return vc_field_errors_add(l, VC_FIELD_INVALID, path, value, detail);
}

int vc_field_type_invalid(struct vc_field_errors *l, const struct vc_field_path *path,
			  struct vc_field_value value, const char *detail)
{
	return vc_field_errors_add(l, VC_FIELD_TYPE_INVALID, path, value, detail);
}

int vc_field_required(struct vc_field_errors *l, const struct vc_field_path *path,
		      const char *detail)
{
	return vc_field_errors_add(l, VC_FIELD_REQUIRED, path, vc_fv_str(""), detail);
}

int vc_field_forbidden(struct vc_field_errors *l, const struct vc_field_path *path,
		       const char *detail)
{
	return vc_field_errors_add(l, VC_FIELD_FORBIDDEN, path, vc_fv_str(""), detail);
}

int vc_field_duplicate(struct vc_field_errors *l, const struct vc_field_path *path,
		       struct vc_field_value value)
{
	return vc_field_errors_add(l, VC_FIELD_DUPLICATE, path, value, NULL);
}

int vc_field_not_found(struct vc_field_errors *l, const struct vc_field_path *path,
		       struct vc_field_value value)
{
	return vc_field_errors_add(l, VC_FIELD_NOT_FOUND, path, value, NULL);
}

int vc_field_not_supported(struct vc_field_errors *l, const struct vc_field_path *path,
			   struct vc_field_value value, const char *const *supported, size_t n)
{
	struct vc_buf detail;
	size_t i;
	int rc = 0;

	vc_buf_init(&detail, 0);
	for (i = 0; i < n && !rc; i++) {
		rc = vc_buf_adds(&detail, i ? ", " : "supported values: ");
		if (!rc)
			rc = vc_go_quote(supported[i], &detail);
	}
	if (!rc)
		rc = vc_field_errors_add(l, VC_FIELD_NOT_SUPPORTED, path, value,
					 vc_buf_str(&detail));
	vc_buf_release(&detail);
	return rc;
}

/* "<verb> <n> <unit>" with a singular unit for 1, or the fallback when n < 0. */
static void counted_detail(char *buf, size_t size, const char *verb, int64_t n, const char *one,
			   const char *many, const char *fallback)
{
	if (n < 0)
		snprintf(buf, size, "%s", fallback);
	else
		snprintf(buf, size, "%s %" PRId64 " %s", verb, n, n == 1 ? one : many);
}

int vc_field_too_long(struct vc_field_errors *l, const struct vc_field_path *path, int64_t max)
{
	char detail[80];

	counted_detail(detail, sizeof(detail), "may not be more than", max, "byte", "bytes",
		       "value is too long");
	return vc_field_errors_add(l, VC_FIELD_TOO_LONG, path, vc_fv_str("<value omitted>"),
				   detail);
}

int vc_field_too_many(struct vc_field_errors *l, const struct vc_field_path *path, int64_t actual,
		      int64_t max)
{
	char detail[80];

	counted_detail(detail, sizeof(detail), "must have at most", max, "item", "items",
		       "has too many items");
	return vc_field_errors_add(l, VC_FIELD_TOO_MANY, path,
				   actual >= 0 ? vc_fv_int(actual) : vc_fv_omit(), detail);
}

int vc_field_too_few(struct vc_field_errors *l, const struct vc_field_path *path, int64_t actual,
		     int64_t min)
{
	char detail[80];

	counted_detail(detail, sizeof(detail), "must have at least", min, "item", "items",
		       "has too few items");
	return vc_field_errors_add(l, VC_FIELD_TOO_FEW, path, vc_fv_int(actual), detail);
}

int vc_field_too_short(struct vc_field_errors *l, const struct vc_field_path *path, int64_t min)
{
	char detail[80];

	counted_detail(detail, sizeof(detail), "must be at least", min, "character", "characters",
		       "value is too short");
	return vc_field_errors_add(l, VC_FIELD_TOO_SHORT, path, vc_fv_omit(), detail);
}

int vc_field_internal(struct vc_field_errors *l, const struct vc_field_path *path,
		      const char *error_text)
{
	return vc_field_errors_add(l, VC_FIELD_INTERNAL, path, vc_fv_omit(), error_text);
}

int vc_field_error_format_body(const struct vc_field_error *e, struct vc_buf *out)
{
	int rc;

	if ((rc = vc_buf_adds(out, vc_field_error_type_string(e->type))))
		return rc;
	if (e->value && ((rc = vc_buf_adds(out, ": ")) || (rc = vc_buf_adds(out, e->value))))
		return rc;
	if (e->detail && e->detail[0] &&
	    ((rc = vc_buf_adds(out, ": ")) || (rc = vc_buf_adds(out, e->detail))))
		return rc;
	return 0;
}

int vc_field_error_format(const struct vc_field_error *e, struct vc_buf *out)
{
	int rc;

	if ((rc = vc_buf_adds(out, e->field)) || (rc = vc_buf_adds(out, ": ")))
		return rc;
	return vc_field_error_format_body(e, out);
}

int vc_field_errors_aggregate(const struct vc_field_errors *l, struct vc_buf *out)
{
	struct vc_strlist texts;
	struct vc_buf b;
	size_t i;
	int rc = 0;

	vc_strlist_init(&texts);
	vc_buf_init(&b, 0);
	for (i = 0; i < l->len && !rc; i++) {
		vc_buf_reset(&b);
		rc = vc_field_error_format(&l->items[i], &b);
		if (!rc)
			rc = vc_strlist_add(&texts, vc_buf_str(&b));
	}
	if (!rc)
		rc = vc_strlist_aggregate(&texts, out);
	vc_buf_release(&b);
	vc_strlist_release(&texts);
	return rc;
}
