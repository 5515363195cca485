/*
 * vc_fieldselector.h - Kubernetes field selectors (apimachinery pkg/fields).
 *
 * A field selector (`metadata.name=x,spec.nodeName!=`) is an AND of equal / not-equal terms on
 * named fields, with apimachinery's escaping of '\', ',' and '=' in values. Selectors are
 * immutable once built and may be shared between threads for matching.
 */
#ifndef VC_FIELDSELECTOR_H
#define VC_FIELDSELECTOR_H

#include "vc_prelude.h"

#include "vc_buf.h"
#include "vc_err.h"

/* A (name, value) pair of an object's selectable fields (fields.Set). Borrowed strings. */
struct vc_field {
	const char *name;
	const char *value;
};

struct vc_field_selector;

/*
 * Parse a field selector (fields.ParseSelector): comma-separated `field=value`, `field==value`
 * or `field!=value` terms, where a value escapes '\', ',' and '=' with a backslash. The terms
 * are sorted by their text. An empty string matches everything. Errors (VC_EPARSE, with the
 * byte position of the term) are apimachinery's:
 *   "invalid selector: 'a'; can't understand 'a'",
 *   "invalid field selector: invalid escape sequence: \\x",
 *   "invalid field selector: unescaped character in value: 61" (Go prints the rune's number).
 * Returns 0 with a new *out, VC_EPARSE or VC_ENOMEM.
 */
int vc_field_selector_parse(const char *text, struct vc_field_selector **out,
			    struct vc_error *err) VC_WARN_UNUSED;
/* Free a field selector; NULL is a no-op. */
void vc_field_selector_free(struct vc_field_selector *s);
/*
 * Whether every term holds for the fields (the first pair with a given name counts; a missing
 * field reads as ""). So `spec.nodeName!=` matches only a non-empty nodeName.
 */
bool vc_field_selector_matches(const struct vc_field_selector *s, const struct vc_field *fields,
			       size_t n);
/* True when the selector has no terms (matches everything). */
bool vc_field_selector_is_empty(const struct vc_field_selector *s);
/* Whether some `field=value` term names `field`; *value (if not NULL) is borrowed from s. */
bool vc_field_selector_requires_exact_match(const struct vc_field_selector *s, const char *field,
					    const char **value);
/* Append String(): the terms joined by ',', "field=value" or "field!=value", values escaped. */
int vc_field_selector_format(const struct vc_field_selector *s, struct vc_buf *out) VC_WARN_UNUSED;
/* fields.EscapeValue: append s to out with '\' ',' '=' escaped by a backslash. */
int vc_field_escape_value(const char *s, struct vc_buf *out) VC_WARN_UNUSED;

#endif /* VC_FIELDSELECTOR_H */
