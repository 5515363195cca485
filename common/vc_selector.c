/*
 * vc_selector.c - label selectors: parser, validation, selectors from objects, matching and
 * String(). Node affinity matching is in vc_nodeaffinity.c, field selectors in vc_fieldselector.c.
 *
 * The label selector parser follows apimachinery's labels/selector.go token for token: the same
 * lexer (identifiers end at whitespace or one of = ! ( ) , > <; "in" and "notin" are keywords
 * except where a value is expected), the same recursive descent, the same messages. Tokens are
 * lexed one ahead instead of all at once, which the grammar allows.
 */
#include "vc_selector.h"

#include "vc_alloc.h"
#include "vc_selector_internal.h"
#include "vc_str.h"

struct vc_selector {
	bool nothing;
	struct vc_requirement *reqs;
	size_t len;
	size_t alloc;
	size_t next_seq;
};

const char *vc_selector_op_string(enum vc_selector_op op)
{
	switch (op) {
	case VC_SEL_IN:
		return "in";
	case VC_SEL_NOT_IN:
		return "notin";
	case VC_SEL_EQUALS:
		return "=";
	case VC_SEL_DOUBLE_EQUALS:
		return "==";
	case VC_SEL_NOT_EQUALS:
		return "!=";
	case VC_SEL_EXISTS:
		return "exists";
	case VC_SEL_DOES_NOT_EXIST:
		return "!";
	case VC_SEL_GT:
		return "gt";
	case VC_SEL_LT:
		return "lt";
	default:
		return "";
	}
}

/* ---------------------------------------------------------------------------------------------
 * Selector storage
 */

static void req_release(struct vc_requirement *r)
{
	size_t i;

	for (i = 0; i < r->nvalues; i++)
		vc_free(r->values[i]);
	vc_free(r->values);
	vc_free(r->key);
	r->values = NULL;
	r->nvalues = 0;
	r->key = NULL;
}

static struct vc_selector *selector_alloc(bool nothing)
{
	struct vc_selector *s = vc_calloc(1, sizeof(*s));

	if (s)
		s->nothing = nothing;
	return s;
}

struct vc_selector *vc_selector_new_everything(void)
{
	return selector_alloc(false);
}

struct vc_selector *vc_selector_new_nothing(void)
{
	return selector_alloc(true);
}

void vc_selector_free(struct vc_selector *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->len; i++)
		req_release(&s->reqs[i]);
	vc_free(s->reqs);
	vc_free(s);
}

static int selector_reserve(struct vc_selector *s)
{
	struct vc_requirement *p;
	size_t n;

	if (s->len < s->alloc)
		return 0;
	n = s->alloc ? s->alloc * 2 : 4;
	p = vc_realloc(s->reqs, n * sizeof(*p));
	if (!p)
		return VC_ENOMEM;
	s->reqs = p;
	s->alloc = n;
	return 0;
}

/* Append r, taking over its strings; the caller has reserved room. */
static void selector_push(struct vc_selector *s, struct vc_requirement *r)
{
	r->seq = s->next_seq++;
	s->reqs[s->len++] = *r;
	memset(r, 0, sizeof(*r));
}

static int cmp_req(const void *a, const void *b)
{
	const struct vc_requirement *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* sort.Sort(ByKey) with ties kept in insertion order (what Go's insertion sort does for small n).
 */
static void selector_sort(struct vc_selector *s)
{
	if (s->len > 1)
		qsort(s->reqs, s->len, sizeof(*s->reqs), cmp_req);
}

/* A requirement owning copies of key and values[0..n). */
static int req_make(struct vc_requirement *r, const char *key, enum vc_selector_op op,
		    const char *const *values, size_t n)
{
	size_t i;

	memset(r, 0, sizeof(*r));
	r->op = op;
	if (!(r->key = vc_strdup(key)))
		return VC_ENOMEM;
	if (n && !(r->values = vc_calloc(n, sizeof(*r->values))))
		goto nomem;
	for (i = 0; i < n; i++, r->nvalues++)
		if (!(r->values[i] = vc_strdup(values[i])))
			goto nomem;
	return 0;
nomem:
	req_release(r);
	return VC_ENOMEM;
}

/* ---------------------------------------------------------------------------------------------
 * Validation (labels.NewRequirement)
 */

/* Go's strconv.ParseInt(s, 10, 64) succeeds. */
static bool go_parse_int64(const char *s, int64_t *out)
{
	return vc_strconv_parse_int(s, strlen(s), 10, out) == 0;
}

/* validateLabelKey: one Invalid error at path with the messages joined by "; ". */
static int validate_label_key(const char *key, const struct vc_field_path *path,
			      struct vc_field_errors *errs)
{
	struct vc_strlist msgs;
	struct vc_buf joined;
	int rc;

	vc_strlist_init(&msgs);
	vc_buf_init(&joined, 0);
	rc = vc_validate_qualified_name(key, &msgs);
	if (rc == VC_EINVALID) {
		rc = vc_strlist_join(&msgs, "; ", &joined);
		if (!rc)
			rc = vc_field_invalid(errs, path, vc_fv_str(key), vc_buf_str(&joined));
	}
	vc_buf_release(&joined);
	vc_strlist_release(&msgs);
	return rc;
}

/* validateLabelValue: one Invalid error at path[key]. */
static int validate_label_value(const char *key, const char *value,
				const struct vc_field_path *path, struct vc_field_errors *errs)
{
	struct vc_field_path kp = vc_field_path_key(path, key);
	struct vc_strlist msgs;
	struct vc_buf joined;
	int rc;

	vc_strlist_init(&msgs);
	vc_buf_init(&joined, 0);
	rc = vc_validate_label_value(value, &msgs);
	if (rc == VC_EINVALID) {
		rc = vc_strlist_join(&msgs, "; ", &joined);
		if (!rc)
			rc = vc_field_invalid(errs, &kp, vc_fv_str(value), vc_buf_str(&joined));
	}
	vc_buf_release(&joined);
	vc_strlist_release(&msgs);
	return rc;
}

/*
 * labels.NewRequirement's checks, appending field errors under path (NULL = Go's nil path).
 * values NULL is Go's nil slice. Returns 0 or VC_ENOMEM; the caller looks at errs.
 */
static int requirement_validate(const char *key, enum vc_selector_op op, const char *const *values,
				size_t n, const struct vc_field_path *path,
				struct vc_field_errors *errs)
{
	static const char *const valid_ops[] = { "in", "notin", "=",	  "==", "!=",
						 "gt", "lt",	"exists", "!" };
	struct vc_field_path kp = vc_field_path_child(path, "key");
	struct vc_field_path vp = vc_field_path_child(path, "values");
	struct vc_field_path op_path = vc_field_path_child(path, "operator");
	struct vc_field_value vals = vc_fv_strings(values, n);
	const char *detail = NULL;
	size_t i;
	int rc;

	if ((rc = validate_label_key(key, &kp, errs)))
		return rc;
	switch (op) {
	case VC_SEL_IN:
	case VC_SEL_NOT_IN:
		if (n == 0)
			detail = "for 'in', 'notin' operators, values set can't be empty";
		break;
	case VC_SEL_EQUALS:
	case VC_SEL_DOUBLE_EQUALS:
	case VC_SEL_NOT_EQUALS:
		if (n != 1)
			detail = "exact-match compatibility requires one single value";
		break;
	case VC_SEL_EXISTS:
	case VC_SEL_DOES_NOT_EXIST:
		if (n != 0)
			detail = "values set must be empty for exists and does not exist";
		break;
	case VC_SEL_GT:
	case VC_SEL_LT:
		if (n != 1 && (rc = vc_field_invalid(errs, &vp, vals,
						     "for 'Gt', 'Lt' operators, exactly one value "
						     "is required")))
			return rc;
		for (i = 0; i < n; i++) {
			struct vc_field_path ip = vc_field_path_index(&vp, (long)i);
			int64_t v;

			if (!go_parse_int64(values[i], &v) &&
			    (rc = vc_field_invalid(errs, &ip, vc_fv_str(values[i]),
						   "for 'Gt', 'Lt' operators, the value must be an "
						   "integer")))
				return rc;
		}
		break;
	default:
		if ((rc = vc_field_not_supported(errs, &op_path, vc_fv_named_str(""), valid_ops,
						 VC_ARRAY_SIZE(valid_ops))))
			return rc;
		break;
	}
	if (detail && (rc = vc_field_invalid(errs, &vp, vals, detail)))
		return rc;
	for (i = 0; i < n; i++) {
		struct vc_field_path ip = vc_field_path_index(&vp, (long)i);

		if ((rc = validate_label_value(key, values[i], &ip, errs)))
			return rc;
	}
	return 0;
}

/* Put the aggregate text of errs into err; returns VC_EINVALID, or VC_ENOMEM. */
int vc_sel_errors_to_error(const struct vc_field_errors *errs, struct vc_error *err)
{
	struct vc_buf b;
	int rc;

	vc_buf_init(&b, 0);
	rc = vc_field_errors_aggregate(errs, &b);
	if (!rc)
		rc = vc_error_set(err, VC_EINVALID, "%s", vc_buf_str(&b));
	vc_buf_release(&b);
	return rc;
}

/*
 * Validate one requirement and append it to s (unsorted). A "nothing" selector stays nothing:
 * the requirement is validated but not kept.
 */
static int add_checked(struct vc_selector *s, const char *key, enum vc_selector_op op,
		       const char *const *vals, size_t n, struct vc_error *err)
{
	struct vc_field_errors errs;
	struct vc_requirement r;
	int rc;

	vc_field_errors_init(&errs);
	rc = requirement_validate(key, op, vals, n, NULL, &errs);
	if (!rc && errs.len)
		rc = vc_sel_errors_to_error(&errs, err);
	vc_field_errors_release(&errs);
	if (rc == VC_ENOMEM)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	if (rc)
		return rc;
	if (s->nothing)
		return 0;
	if (selector_reserve(s) || req_make(&r, key, op, vals, n))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	selector_push(s, &r);
	return 0;
}

int vc_selector_add(struct vc_selector *s, const char *key, enum vc_selector_op op,
		    const char *const *values, size_t n, struct vc_error *err)
{
	int rc = add_checked(s, key, op, values, n, err);

	if (!rc)
		selector_sort(s);
	return rc;
}

/* ---------------------------------------------------------------------------------------------
 * The string form: lexer and parser
 */

enum tok {
	T_EOS,
	T_CPAR,
	T_COMMA,
	T_NOT,
	T_DEQ,
	T_EQ,
	T_GT,
	T_ID,
	T_IN,
	T_LT,
	T_NEQ,
	T_NOTIN,
	T_OPAR,
};

struct token {
	enum tok t;
	size_t off;
	size_t len;
};

struct parser {
	const char *s;
	size_t n;
	size_t pos;
	struct token cur;
	struct vc_error *err;
	struct vc_selector *sel;
};

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_special(char c)
{
	return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

/* Lex the next token into p->cur. Every special character is a token of its own, and "==" and
 * "!=" are the only longer ones, so the longest match needs one byte of lookahead. */
static void lex(struct parser *p)
{
	struct token *t = &p->cur;
	char c;

	while (p->pos < p->n && is_ws(p->s[p->pos]))
		p->pos++;
	t->off = p->pos;
	t->len = 1;
	if (p->pos >= p->n) {
		t->t = T_EOS;
		t->len = 0;
		return;
	}
	c = p->s[p->pos];
	if (is_special(c)) {
		if ((c == '=' || c == '!') && p->pos + 1 < p->n && p->s[p->pos + 1] == '=') {
			t->t = c == '=' ? T_DEQ : T_NEQ;
			t->len = 2;
		} else {
			t->t = c == '='	  ? T_EQ
			       : c == '!' ? T_NOT
			       : c == '(' ? T_OPAR
			       : c == ')' ? T_CPAR
			       : c == ',' ? T_COMMA
			       : c == '>' ? T_GT
					  : T_LT;
		}
		p->pos += t->len;
		return;
	}
	while (p->pos < p->n && !is_special(p->s[p->pos]) && !is_ws(p->s[p->pos]))
		p->pos++;
	t->len = p->pos - t->off;
	if (t->len == 2 && !memcmp(p->s + t->off, "in", 2))
		t->t = T_IN;
	else if (t->len == 5 && !memcmp(p->s + t->off, "notin", 5))
		t->t = T_NOTIN;
	else
		t->t = T_ID;
}

/* Where values are expected, "in" and "notin" are plain identifiers. */
static enum tok in_context(enum tok t, bool values)
{
	return values && (t == T_IN || t == T_NOTIN) ? T_ID : t;
}

static struct token peek(const struct parser *p, bool values)
{
	struct token t = p->cur;

	t.t = in_context(t.t, values);
	return t;
}

static struct token take(struct parser *p, bool values)
{
	struct token t = peek(p, values);

	lex(p);
	return t;
}

/* Report a parse error at byte offset off, with a 1-based line and column. */
static int parse_error(struct parser *p, size_t off, const char *fmt, ...) VC_PRINTF(3, 4);

static int parse_error(struct parser *p, size_t off, const char *fmt, ...)
{
	char text[VC_ERROR_TEXT_LEN];
	int line = 1, col = 1;
	size_t i;
	va_list ap;

	for (i = 0; i < off && i < p->n; i++) {
		if (p->s[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return vc_error_set_at(p->err, VC_EPARSE, line, col, off, "%s", text);
}

/* The token's literal for "found '%.*s'"; the end of the string reads as "". */
#define LIT(p, t) (int)VC_MIN((t).len, (size_t)INT_MAX), (p)->s + (t).off

/* Go's "unable to parse requirement: found '<tok>', expected: <what>", reported at off. */
static int unexpected(struct parser *p, size_t off, struct token tok, const char *what)
{
	return parse_error(p, off, "unable to parse requirement: found '%.*s', expected: %s",
			   LIT(p, tok), what);
}

static int nomem(struct parser *p)
{
	return vc_error_set(p->err, VC_ENOMEM, "out of memory");
}

/* Sort and deduplicate a list of values (sets.String.List()). */
static void values_sort_unique(struct vc_strlist *v)
{
	size_t i, j = 0;

	if (v->len < 2)
		return;
	qsort(v->items, v->len, sizeof(*v->items), vc_str_cmp_ptr);
	for (i = 1; i < v->len; i++) {
		if (!strcmp(v->items[i], v->items[j]))
			vc_free(v->items[i]);
		else
			v->items[++j] = v->items[i];
	}
	v->len = j + 1;
}

/* Append an empty value: "()", "(,", ",,", ",)" and a missing exact value each stand for one. */
static int add_empty(struct parser *p, struct vc_strlist *v)
{
	return vc_strlist_add(v, "") ? nomem(p) : 0;
}

static int add_value(struct parser *p, struct vc_strlist *v, struct token t)
{
	char *s = vc_strndup(p->s + t.off, t.len);

	if (!s || vc_strlist_add(v, s)) {
		vc_free(s);
		return nomem(p);
	}
	vc_free(s);
	return 0;
}

/* parseIdentifiersList: a (possibly empty) list of comma-separated (possibly empty) values. */
static int parse_identifiers(struct parser *p, struct vc_strlist *v)
{
	for (;;) {
		struct token t = take(p, true), t2;

		switch (t.t) {
		case T_ID:
			if (add_value(p, v, t))
				return VC_ENOMEM;
			t2 = peek(p, true);
			if (t2.t == T_COMMA)
				continue;
			if (t2.t == T_CPAR)
				return 0;
			return unexpected(p, t2.off, t2, "',' or ')'");
		case T_COMMA:
			/* "(," and ",," and ",)" each stand for an empty value. */
			if (v->len == 0 && add_empty(p, v))
				return VC_ENOMEM;
			t2 = peek(p, true);
			if (t2.t == T_CPAR)
				return add_empty(p, v);
			if (t2.t == T_COMMA) {
				take(p, true);
				if (add_empty(p, v))
					return VC_ENOMEM;
			}
			break;
		default:
			return unexpected(p, t.off, t, "',', or identifier");
		}
	}
}

/* parseValues: "(" values ")". */
static int parse_values(struct parser *p, struct vc_strlist *v)
{
	struct token t = take(p, true), first;
	int rc;

	if (t.t != T_OPAR)
		return parse_error(p, t.off,
				   "unable to parse requirement: found '%.*s' expected: '('",
				   LIT(p, t));
	first = peek(p, true);
	switch (first.t) {
	case T_ID:
	case T_COMMA:
		if ((rc = parse_identifiers(p, v)))
			return rc;
		t = take(p, true);
		if (t.t != T_CPAR)
			/* Go names the token after '(' here, not the offending one. */
			return unexpected(p, t.off, first, "')'");
		return 0;
	case T_CPAR:
		take(p, true);
		return add_empty(p, v);
	default:
		return unexpected(p, first.off, first, "',', ')' or identifier");
	}
}

/* parseExactValue: one value, possibly empty. */
static int parse_exact_value(struct parser *p, struct vc_strlist *v)
{
	struct token t = peek(p, true);

	if (t.t == T_EOS || t.t == T_COMMA)
		return add_empty(p, v);
	t = take(p, true);
	if (t.t == T_ID)
		return add_value(p, v, t);
	return unexpected(p, t.off, t, "identifier");
}

/* A parse error whose text is "unable to parse requirement: " and the aggregate of errs. */
static int parse_error_fields(struct parser *p, size_t off, const struct vc_field_errors *errs)
{
	struct vc_buf b;
	int rc;

	vc_buf_init(&b, 0);
	if (vc_field_errors_aggregate(errs, &b))
		rc = nomem(p);
	else
		rc = parse_error(p, off, "unable to parse requirement: %s", vc_buf_str(&b));
	vc_buf_release(&b);
	return rc;
}

/* NewRequirement on the parsed pieces, then append (taking over key and values on success). */
static int finish_requirement(struct parser *p, char *key, enum vc_selector_op op,
			      struct vc_strlist *v, size_t off)
{
	struct vc_field_errors errs;
	struct vc_requirement r;
	int rc;

	vc_field_errors_init(&errs);
	rc = requirement_validate(key, op, (const char *const *)v->items, v->len, NULL, &errs);
	if (rc)
		rc = nomem(p);
	else if (errs.len)
		rc = parse_error_fields(p, off, &errs);
	vc_field_errors_release(&errs);
	if (rc)
		return rc;
	if (selector_reserve(p->sel))
		return nomem(p);
	memset(&r, 0, sizeof(r));
	r.key = key;
	r.op = op;
	r.values = v->items;
	r.nvalues = v->len;
	selector_push(p->sel, &r);
	vc_strlist_init(v); /* the requirement owns the strings now */
	return 0;
}

static int parse_requirement(struct parser *p)
{
	struct token t = take(p, true), next;
	enum vc_selector_op op;
	bool not_exists = false, has_op = false;
	struct vc_field_errors errs;
	struct vc_strlist values;
	size_t start = t.off;
	char *key;
	int rc;

	/* parseKeyAndInferOperator */
	if (t.t == T_NOT) {
		not_exists = true;
		t = take(p, true);
	}
	if (t.t != T_ID)
		return unexpected(p, t.off, t, "identifier");
	if (!(key = vc_strndup(p->s + t.off, t.len)))
		return nomem(p);
	vc_field_errors_init(&errs);
	rc = validate_label_key(key, NULL, &errs);
	if (rc)
		rc = nomem(p);
	else if (errs.len)
		rc = parse_error_fields(p, t.off, &errs);
	vc_field_errors_release(&errs);
	if (rc) {
		vc_free(key);
		return rc;
	}
	vc_strlist_init(&values);
	next = peek(p, true);
	if (not_exists) {
		op = VC_SEL_DOES_NOT_EXIST;
		has_op = true;
	} else if (next.t == T_EOS || next.t == T_COMMA) {
		op = VC_SEL_EXISTS;
		has_op = true;
	}
	if (!has_op) {
		/* parseOperator */
		t = take(p, false);
		switch (t.t) {
		case T_IN:
			op = VC_SEL_IN;
			break;
		case T_EQ:
			op = VC_SEL_EQUALS;
			break;
		case T_DEQ:
			op = VC_SEL_DOUBLE_EQUALS;
			break;
		case T_GT:
			op = VC_SEL_GT;
			break;
		case T_LT:
			op = VC_SEL_LT;
			break;
		case T_NOTIN:
			op = VC_SEL_NOT_IN;
			break;
		case T_NEQ:
			op = VC_SEL_NOT_EQUALS;
			break;
		default:
			vc_free(key);
			return unexpected(p, t.off, t, "in, notin, =, ==, !=, gt, lt");
		}
		if (op == VC_SEL_IN || op == VC_SEL_NOT_IN)
			rc = parse_values(p, &values);
		else
			rc = parse_exact_value(p, &values);
		if (rc)
			goto fail;
		values_sort_unique(&values);
	}
	rc = finish_requirement(p, key, op, &values, start);
	if (rc)
		goto fail;
	return 0;
fail:
	vc_strlist_release(&values);
	vc_free(key);
	return rc;
}

static int parse_all(struct parser *p)
{
	struct token t, t2;
	int rc;

	for (;;) {
		t = peek(p, true);
		switch (t.t) {
		case T_ID:
		case T_NOT:
			if ((rc = parse_requirement(p)))
				return rc;
			t = take(p, true);
			if (t.t == T_EOS)
				return 0;
			if (t.t != T_COMMA)
				return parse_error(p, t.off,
						   "found '%.*s', expected: ',' or 'end of string'",
						   LIT(p, t));
			t2 = peek(p, true);
			if (t2.t != T_ID && t2.t != T_NOT)
				return parse_error(p, t2.off,
						   "found '%.*s', expected: identifier after ','",
						   LIT(p, t2));
			break;
		case T_EOS:
			return 0;
		default:
			return parse_error(
				p, t.off,
				"found '%.*s', expected: !, identifier, or 'end of string'",
				LIT(p, t));
		}
	}
}

int vc_selector_parse(const char *text, struct vc_selector **out, struct vc_error *err)
{
	struct parser p = { .s = text, .n = strlen(text), .err = err };
	int rc;

	*out = NULL;
	if (!(p.sel = selector_alloc(false)))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	lex(&p);
	rc = parse_all(&p);
	if (rc) {
		vc_selector_free(p.sel);
		return rc;
	}
	selector_sort(p.sel);
	*out = p.sel;
	return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Selectors from objects
 */

int vc_selector_from_set(const json_t *set, struct vc_selector **out, struct vc_error *err)
{
	struct vc_selector *s = selector_alloc(false);
	struct vc_requirement r;
	const char *key;
	json_t *v;

	*out = NULL;
	if (!s)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	if (set && !json_is_object(set)) {
		vc_selector_free(s);
		return vc_error_set(err, VC_EINVALID, "label set is not an object");
	}
	json_object_foreach ((json_t *)set, key, v) {
		const char *value = json_string_value(v);

		if (!value) {
			vc_selector_free(s);
			return vc_error_set(err, VC_EINVALID, "label '%s' is not a string", key);
		}
		if (selector_reserve(s) || req_make(&r, key, VC_SEL_EQUALS, &value, 1)) {
			vc_selector_free(s);
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		}
		selector_push(s, &r);
	}
	selector_sort(s);
	*out = s;
	return 0;
}

/*
 * Read the "values" array of a selector requirement object into a borrowed string array (*vals
 * is NULL, Go's nil slice, when the field is missing or null; otherwise a new array the caller
 * frees). Returns 0, VC_EINVALID for a non-array or non-string item, or VC_ENOMEM.
 */
int vc_sel_read_values(const json_t *expr, const char ***vals, size_t *n)
{
	const json_t *arr = json_object_get(expr, "values");
	size_t i;

	*vals = NULL;
	*n = 0;
	if (!arr || json_is_null(arr))
		return 0;
	if (!json_is_array(arr))
		return VC_EINVALID;
	/* A non-NULL pointer even for [], which Go decodes as an empty, non-nil slice. */
	*vals = vc_calloc(json_array_size(arr) + 1, sizeof(**vals));
	if (!*vals)
		return VC_ENOMEM;
	for (i = 0; i < json_array_size(arr); i++) {
		if (!((*vals)[i] = json_string_value(json_array_get(arr, i)))) {
			vc_free(*vals);
			*vals = NULL;
			return VC_EINVALID;
		}
	}
	*n = i;
	return 0;
}

/* A string member, "" when missing; NULL when present with another type. */
const char *vc_sel_member_string(const json_t *obj, const char *name)
{
	const json_t *v = json_object_get(obj, name);

	if (!v || json_is_null(v))
		return "";
	return json_string_value(v);
}

/* A member's size as an object or array of the given type; -1 when of another type. */
static long member_size(const json_t *obj, const char *name, bool array)
{
	const json_t *v = json_object_get(obj, name);

	if (!v || json_is_null(v))
		return 0;
	if (array ? !json_is_array(v) : !json_is_object(v))
		return -1;
	return (long)(array ? json_array_size(v) : json_object_size(v));
}

int vc_label_selector_from_json(const json_t *ls, struct vc_selector **out, struct vc_error *err)
{
	const json_t *ml, *me;
	struct vc_selector *s;
	long nml, nme;
	const char *key;
	json_t *v;
	size_t i;
	int rc;

	*out = NULL;
	if (!ls || json_is_null(ls)) {
		if (!(*out = selector_alloc(true)))
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		return 0;
	}
	if (!json_is_object(ls))
		return vc_error_set(err, VC_EINVALID, "label selector is not an object");
	nml = member_size(ls, "matchLabels", false);
	nme = member_size(ls, "matchExpressions", true);
	if (nml < 0)
		return vc_error_set(err, VC_EINVALID,
				    "label selector matchLabels is not an object");
	if (nme < 0)
		return vc_error_set(err, VC_EINVALID,
				    "label selector matchExpressions is not an array");
	if (!(s = selector_alloc(false)))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	ml = json_object_get(ls, "matchLabels");
	me = json_object_get(ls, "matchExpressions");
	json_object_foreach ((json_t *)(nml ? ml : NULL), key, v) {
		const char *value = json_string_value(v);

		if (!value) {
			rc = vc_error_set(err, VC_EINVALID,
					  "matchLabels value of '%s' is not a string", key);
			goto fail;
		}
		if ((rc = add_checked(s, key, VC_SEL_EQUALS, &value, 1, err)))
			goto fail;
	}
	for (i = 0; i < (size_t)nme; i++) {
		const json_t *expr = json_array_get(me, i);
		const char *op_name, **vals;
		enum vc_selector_op op;
		struct vc_buf q;
		size_t n;

		if (!json_is_object(expr) || !(key = vc_sel_member_string(expr, "key")) ||
		    !(op_name = vc_sel_member_string(expr, "operator"))) {
			rc = vc_error_set(
				err, VC_EINVALID,
				"matchExpressions[%zu] is not a label selector requirement", i);
			goto fail;
		}
		if (!strcmp(op_name, "In")) {
			op = VC_SEL_IN;
		} else if (!strcmp(op_name, "NotIn")) {
			op = VC_SEL_NOT_IN;
		} else if (!strcmp(op_name, "Exists")) {
			op = VC_SEL_EXISTS;
		} else if (!strcmp(op_name, "DoesNotExist")) {
			op = VC_SEL_DOES_NOT_EXIST;
		} else {
			vc_buf_init(&q, 0);
			if (vc_go_quote(op_name, &q))
				rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			else
				rc = vc_error_set(err, VC_EINVALID,
						  "%s is not a valid label selector operator",
						  vc_buf_str(&q));
			vc_buf_release(&q);
			goto fail;
		}
		rc = vc_sel_read_values(expr, &vals, &n);
		if (rc) {
			rc = rc == VC_ENOMEM
				     ? vc_error_set(err, rc, "out of memory")
				     : vc_error_set(err, rc,
						    "matchExpressions[%zu].values is not an "
						    "array of strings",
						    i);
			goto fail;
		}
		/* Go copies the values with append([]string(nil), ...): empty becomes nil. */
		rc = add_checked(s, key, op, n ? vals : NULL, n, err);
		vc_free(vals);
		if (rc)
			goto fail;
	}
	selector_sort(s);
	*out = s;
	return 0;
fail:
	vc_selector_free(s);
	return rc;
}

int vc_node_selector_requirements(const json_t *reqs, const struct vc_field_path *path,
				  struct vc_selector **out, struct vc_field_errors *errs)
{
	static const char *const valid_ops[] = {
		"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"
	};
	struct vc_selector *s;
	size_t i, before = errs->len;
	int rc = 0;

	*out = NULL;
	if (!reqs || json_is_null(reqs) || (json_is_array(reqs) && !json_array_size(reqs))) {
		*out = selector_alloc(true);
		return *out ? 0 : VC_ENOMEM;
	}
	if (!json_is_array(reqs))
		return vc_field_invalid(errs, path, vc_fv_json(reqs), "must be a list")
			       ? VC_ENOMEM
			       : VC_EINVALID;
	if (!(s = selector_alloc(false)))
		return VC_ENOMEM;
	for (i = 0; i < json_array_size(reqs) && !rc; i++) {
		const json_t *expr = json_array_get(reqs, i);
		struct vc_field_path ip = vc_field_path_index(path, (long)i);
		struct vc_field_path op_path = vc_field_path_child(&ip, "operator");
		const char *key, *op_name, **vals = NULL;
		enum vc_selector_op op;
		struct vc_requirement r;
		size_t n = 0, errs_before = errs->len;

		key = json_is_object(expr) ? vc_sel_member_string(expr, "key") : NULL;
		op_name = json_is_object(expr) ? vc_sel_member_string(expr, "operator") : NULL;
		if (!key || !op_name) {
			rc = vc_field_invalid(errs, &ip, vc_fv_json(expr),
					      "must be a node selector requirement");
			continue;
		}
		if (!strcmp(op_name, "In")) {
			op = VC_SEL_IN;
		} else if (!strcmp(op_name, "NotIn")) {
			op = VC_SEL_NOT_IN;
		} else if (!strcmp(op_name, "Exists")) {
			op = VC_SEL_EXISTS;
		} else if (!strcmp(op_name, "DoesNotExist")) {
			op = VC_SEL_DOES_NOT_EXIST;
		} else if (!strcmp(op_name, "Gt")) {
			op = VC_SEL_GT;
		} else if (!strcmp(op_name, "Lt")) {
			op = VC_SEL_LT;
		} else {
			rc = vc_field_not_supported(errs, &op_path, vc_fv_named_str(op_name),
						    valid_ops, VC_ARRAY_SIZE(valid_ops));
			continue;
		}
		rc = vc_sel_read_values(expr, &vals, &n);
		if (rc == VC_EINVALID) {
			struct vc_field_path vp = vc_field_path_child(&ip, "values");

			rc = vc_field_invalid(errs, &vp,
					      vc_fv_json(json_object_get(expr, "values")),
					      "must be a list of strings");
			continue;
		}
		if (!rc)
			rc = requirement_validate(key, op, vals, n, &ip, errs);
		if (!rc && errs->len == errs_before) {
			rc = selector_reserve(s);
			if (!rc)
				rc = req_make(&r, key, op, vals, n);
			if (!rc)
				selector_push(s, &r);
		}
		vc_free(vals);
	}
	if (!rc && errs->len > before)
		rc = VC_EINVALID;
	if (rc) {
		vc_selector_free(s);
		return rc;
	}
	selector_sort(s);
	*out = s;
	return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Matching and printing
 */

static const char *label_get(const json_t *labels, const char *key)
{
	return labels ? json_string_value(json_object_get(labels, key)) : NULL;
}

static bool req_has_value(const struct vc_requirement *r, const char *v)
{
	size_t i;

	for (i = 0; i < r->nvalues; i++)
		if (!strcmp(r->values[i], v))
			return true;
	return false;
}

static bool req_matches(const struct vc_requirement *r, const json_t *labels)
{
	const char *v = label_get(labels, r->key);
	int64_t have, want;

	switch (r->op) {
	case VC_SEL_IN:
	case VC_SEL_EQUALS:
	case VC_SEL_DOUBLE_EQUALS:
		return v && req_has_value(r, v);
	case VC_SEL_NOT_IN:
	case VC_SEL_NOT_EQUALS:
		return !v || !req_has_value(r, v);
	case VC_SEL_EXISTS:
		return v != NULL;
	case VC_SEL_DOES_NOT_EXIST:
		return v == NULL;
	case VC_SEL_GT:
	case VC_SEL_LT:
		if (!v || !go_parse_int64(v, &have) || r->nvalues != 1 ||
		    !go_parse_int64(r->values[0], &want))
			return false;
		return r->op == VC_SEL_GT ? have > want : have < want;
	default:
		return false;
	}
}

bool vc_selector_matches(const struct vc_selector *s, const json_t *labels)
{
	size_t i;

	if (s->nothing)
		return false;
	if (labels && !json_is_object(labels))
		labels = NULL;
	for (i = 0; i < s->len; i++)
		if (!req_matches(&s->reqs[i], labels))
			return false;
	return true;
}

bool vc_selector_is_empty(const struct vc_selector *s)
{
	return !s->nothing && s->len == 0;
}

bool vc_selector_is_nothing(const struct vc_selector *s)
{
	return s->nothing;
}

size_t vc_selector_count(const struct vc_selector *s)
{
	return s->len;
}

const struct vc_requirement *vc_selector_get(const struct vc_selector *s, size_t i)
{
	return i < s->len ? &s->reqs[i] : NULL;
}

bool vc_selector_requires_exact_match(const struct vc_selector *s, const char *label,
				      const char **value)
{
	size_t i;

	for (i = 0; i < s->len; i++) {
		const struct vc_requirement *r = &s->reqs[i];

		if (strcmp(r->key, label))
			continue;
		if ((r->op == VC_SEL_EQUALS || r->op == VC_SEL_DOUBLE_EQUALS ||
		     r->op == VC_SEL_IN) &&
		    r->nvalues == 1) {
			if (value)
				*value = r->values[0];
			return true;
		}
		return false;
	}
	return false;
}

static int format_requirement(const struct vc_requirement *r, struct vc_buf *out)
{
	const char *sep = NULL;
	char **sorted;
	size_t i;
	bool set = r->op == VC_SEL_IN || r->op == VC_SEL_NOT_IN;
	int rc;

	if (r->op == VC_SEL_DOES_NOT_EXIST && (rc = vc_buf_addc(out, '!')))
		return rc;
	if ((rc = vc_buf_adds(out, r->key)))
		return rc;
	switch (r->op) {
	case VC_SEL_EQUALS:
		sep = "=";
		break;
	case VC_SEL_DOUBLE_EQUALS:
		sep = "==";
		break;
	case VC_SEL_NOT_EQUALS:
		sep = "!=";
		break;
	case VC_SEL_IN:
		sep = " in (";
		break;
	case VC_SEL_NOT_IN:
		sep = " notin (";
		break;
	case VC_SEL_GT:
		sep = ">";
		break;
	case VC_SEL_LT:
		sep = "<";
		break;
	case VC_SEL_EXISTS:
	case VC_SEL_DOES_NOT_EXIST:
	default:
		return 0;
	}
	if ((rc = vc_buf_adds(out, sep)))
		return rc;
	if (r->nvalues == 1) {
		rc = vc_buf_adds(out, r->values[0]);
	} else if (r->nvalues > 1) {
		/* safeSort: print sorted without reordering the requirement itself. */
		sorted = vc_calloc(r->nvalues, sizeof(*sorted));
		if (!sorted)
			return VC_ENOMEM;
		memcpy(sorted, r->values, r->nvalues * sizeof(*sorted));
		qsort(sorted, r->nvalues, sizeof(*sorted), vc_str_cmp_ptr);
		for (i = 0, rc = 0; i < r->nvalues && !rc; i++) {
			if (i)
				rc = vc_buf_addc(out, ',');
			if (!rc)
				rc = vc_buf_adds(out, sorted[i]);
		}
		vc_free(sorted);
	}
	if (!rc && set)
		rc = vc_buf_addc(out, ')');
	return rc;
}

int vc_selector_format(const struct vc_selector *s, struct vc_buf *out)
{
	size_t i;
	int rc;

	if (s->nothing)
		return 0;
	for (i = 0; i < s->len; i++) {
		if (i && (rc = vc_buf_addc(out, ',')))
			return rc;
		if ((rc = format_requirement(&s->reqs[i], out)))
			return rc;
	}
	return 0;
}
