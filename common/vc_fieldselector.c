/*
 * vc_fieldselector.c - field selectors (apimachinery pkg/fields): parsing with its escaping,
 * matching and String().
 */
#include "vc_fieldselector.h"

#include "vc_alloc.h"
#include "vc_strconv.h"

struct fs_term {
	char *field;
	char *value;
	bool neq;
};

struct vc_field_selector {
	struct fs_term *terms;
	size_t n;
};

void vc_field_selector_free(struct vc_field_selector *s)
{
	size_t i;

	if (!s)
		return;
	/* A parse that failed to allocate terms frees s with no array (and n still 0). */
	for (i = 0; s->terms && i < s->n; i++) {
		vc_free(s->terms[i].field);
		vc_free(s->terms[i].value);
	}
	vc_free(s->terms);
	vc_free(s);
}

struct fs_part {
	const char *s;
	size_t off;
	size_t len;
};

static int cmp_part(const void *a, const void *b)
{
	const struct fs_part *x = a, *y = b;
	int c = memcmp(x->s + x->off, y->s + y->off, VC_MIN(x->len, y->len));

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* Append the UTF-8 encoding of r (Go's WriteRune: invalid runes become U+FFFD). */
static int add_rune(struct vc_buf *b, int32_t r)
{
	char tmp[4];

	return vc_buf_add(b, tmp, vc_utf8_encode(r, tmp));
}

/*
 * fields.UnescapeValue of s[0..n) into out. A value without '\', ',' or '=' is copied as it is;
 * otherwise Go rebuilds it rune by rune, which turns invalid UTF-8 into U+FFFD, and so do we.
 * Returns 0, VC_EPARSE (message in msg), or VC_ENOMEM.
 */
static int unescape_value(const char *s, size_t n, struct vc_buf *out, struct vc_buf *msg)
{
	bool in_slash = false;
	size_t i = 0, w;
	int rc;

	if (!memchr(s, '\\', n) && !memchr(s, ',', n) && !memchr(s, '=', n))
		return vc_buf_add(out, s, n);
	while (i < n) {
		int32_t r = vc_utf8_decode(s + i, n - i, &w);

		i += w;
		if (in_slash) {
			if (r != '\\' && r != ',' && r != '=') {
				if ((rc = vc_buf_adds(msg, "invalid field selector: invalid escape "
							   "sequence: \\")) ||
				    (rc = add_rune(msg, r)))
					return rc;
				return VC_EPARSE;
			}
			if ((rc = add_rune(out, r)))
				return rc;
			in_slash = false;
			continue;
		}
		if (r == '\\') {
			in_slash = true;
		} else if (r == ',' || r == '=') {
			rc = vc_buf_addf(msg,
					 "invalid field selector: unescaped character in value: %d",
					 (int)r);
			return rc ? rc : VC_EPARSE;
		} else if ((rc = add_rune(out, r))) {
			return rc;
		}
	}
	if (in_slash) {
		rc = vc_buf_adds(msg, "invalid field selector: invalid escape sequence: \\");
		return rc ? rc : VC_EPARSE;
	}
	return 0;
}

/* Position of a parse error as line and column. */
static int field_error_at(const char *text, size_t off, struct vc_error *err, const char *msg)
{
	int line = 1, col = 1;
	size_t i;

	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	return vc_error_set_at(err, VC_EPARSE, line, col, off, "%s", msg);
}

/* Parse one term (a non-empty part) into t; see splitTerm. */
static int parse_field_term(const char *text, const struct fs_part *part, struct fs_term *t,
			    struct vc_error *err)
{
	const char *s = text + part->off;
	size_t i, oplen = 0;
	struct vc_buf value, msg;
	int rc;

	for (i = 0; i < part->len; i++) {
		if (i + 1 < part->len && (s[i] == '!' || s[i] == '=') && s[i + 1] == '=')
			oplen = 2;
		else if (s[i] == '=')
			oplen = 1;
		if (oplen)
			break;
	}
	if (!oplen) {
		struct vc_buf b;

		vc_buf_init(&b, 0);
		rc = vc_buf_addf(&b, "invalid selector: '%s'; can't understand '%.*s'", text,
				 (int)VC_MIN(part->len, (size_t)INT_MAX), s);
		if (!rc)
			rc = field_error_at(text, part->off, err, vc_buf_str(&b));
		vc_buf_release(&b);
		return rc == VC_E2BIG || rc == VC_ENOMEM ? vc_error_set(err, rc, "out of memory")
							 : rc;
	}
	t->neq = s[i] == '!';
	vc_buf_init(&value, 0);
	vc_buf_init(&msg, 0);
	rc = unescape_value(s + i + oplen, part->len - i - oplen, &value, &msg);
	if (rc == VC_EPARSE) {
		rc = field_error_at(text, part->off, err, vc_buf_str(&msg));
	} else if (rc) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
	} else {
		t->field = vc_strndup(s, i);
		t->value = vc_buf_take(&value);
		if (!t->field || !t->value)
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	vc_buf_release(&value);
	vc_buf_release(&msg);
	return rc;
}

int vc_field_selector_parse(const char *text, struct vc_field_selector **out, struct vc_error *err)
{
	size_t n = strlen(text), i, nparts = 0, start = 0;
	struct vc_field_selector *s;
	struct fs_part *parts = NULL;
	bool in_slash = false;
	int rc = 0;

	*out = NULL;
	if (!(s = vc_calloc(1, sizeof(*s))))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	/* splitTerms: commas split, except a backslash-escaped one. */
	for (i = 0; i < n; i++)
		if (text[i] == ',')
			nparts++;
	parts = vc_calloc(nparts + 1, sizeof(*parts));
	s->terms = vc_calloc(nparts + 1, sizeof(*s->terms));
	if (!parts || !s->terms) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out;
	}
	nparts = 0;
	for (i = 0; n && i <= n; i++) {
		if (i < n) {
			if (in_slash) {
				in_slash = false;
				continue;
			}
			if (text[i] == '\\') {
				in_slash = true;
				continue;
			}
			if (text[i] != ',')
				continue;
		}
		parts[nparts++] = (struct fs_part){ .s = text, .off = start, .len = i - start };
		start = i + 1;
	}
	qsort(parts, nparts, sizeof(*parts), cmp_part);
	for (i = 0; i < nparts && !rc; i++) {
		if (!parts[i].len)
			continue;
		rc = parse_field_term(text, &parts[i], &s->terms[s->n], err);
		if (s->terms[s->n].field || s->terms[s->n].value)
			s->n++;
	}
out:
	vc_free(parts);
	if (rc) {
		vc_field_selector_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

static const char *field_get(const struct vc_field *fields, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fields[i].name && !strcmp(fields[i].name, name))
			return fields[i].value ? fields[i].value : "";
	return "";
}

bool vc_field_selector_matches(const struct vc_field_selector *s, const struct vc_field *fields,
			       size_t n)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		bool eq = !strcmp(field_get(fields, n, s->terms[i].field), s->terms[i].value);

		if (eq == s->terms[i].neq)
			return false;
	}
	return true;
}

bool vc_field_selector_is_empty(const struct vc_field_selector *s)
{
	return s->n == 0;
}

bool vc_field_selector_requires_exact_match(const struct vc_field_selector *s, const char *field,
					    const char **value)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (!s->terms[i].neq && !strcmp(s->terms[i].field, field)) {
			if (value)
				*value = s->terms[i].value;
			return true;
		}
	}
	return false;
}

int vc_field_escape_value(const char *s, struct vc_buf *out)
{
	int rc;

	for (; *s; s++) {
		if ((*s == '\\' || *s == ',' || *s == '=') && (rc = vc_buf_addc(out, '\\')))
			return rc;
		if ((rc = vc_buf_addc(out, *s)))
			return rc;
	}
	return 0;
}

int vc_field_selector_format(const struct vc_field_selector *s, struct vc_buf *out)
{
	size_t i;
	int rc;

	for (i = 0; i < s->n; i++) {
		if ((i && (rc = vc_buf_addc(out, ','))) ||
		    (rc = vc_buf_adds(out, s->terms[i].field)) ||
		    (rc = vc_buf_adds(out, s->terms[i].neq ? "!=" : "=")) ||
		    (rc = vc_field_escape_value(s->terms[i].value, out)))
			return rc;
	}
	return 0;
}
