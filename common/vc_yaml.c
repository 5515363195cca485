/*
 * vc_yaml.c - YAML to JSON with libyaml's event parser (semantics in vc_yaml.h).
 *
 * The loader consumes libyaml events and builds jansson values directly: a stack of open
 * mappings and sequences, the anchors of the current document, and running totals for the
 * limits. libyaml allocates with plain malloc; everything of ours goes through vc_alloc so the
 * allocation-failure tests reach every path we own.
 */
#include "vc_yaml.h"

#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <unistd.h>
#include <yaml.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_strconv.h"

#define YAML_TAG_PREFIX "tag:yaml.org,2002:"
/* Scalars shorter than this are resolved in a stack buffer. */
#define SCRATCH_LEN 128
/* Enough for any int64 in decimal and any float32 in Go's 'g' format. */
#define KEY_BUF_LEN 48

enum scalar_kind {
	SC_NULL,
	SC_BOOL,
	SC_INT,
	SC_UINT,
	SC_FLOAT,
	SC_STR
};

/* A scalar after go-yaml's resolution. */
struct scalar {
	enum scalar_kind kind;
	bool boolean;
	int64_t integer;
	uint64_t uinteger;
	double real;
	const char *text; /* the scalar's characters (may hold NULs) */
	size_t len;
};

/* Size of a node after alias expansion; what an alias to it costs. */
struct metrics {
	size_t nodes;	     /* JSON values */
	size_t bytes;	     /* string bytes, keys included */
	unsigned int height; /* nesting levels of mappings and sequences */
};

struct frame {
	json_t *value;	  /* the array or object being built (owned) */
	char *anchor;	  /* registered when the node is complete (owned), or NULL */
	yaml_mark_t mark; /* where the collection starts */
	struct metrics m; /* of the children so far */
	bool is_map;
	bool want_value;   /* mapping: a key was read, its value comes next */
	bool key_is_merge; /* mapping: that key is `<<` */
	char *key;	   /* mapping: the pending key (owned) */
	size_t key_len;
	json_t *merges; /* mapping: objects to merge at the end, highest priority first */
};

struct anchor {
	char *name;
	json_t *value;	  /* a mapping or sequence (own reference); NULL for a scalar */
	struct scalar sc; /* a scalar: its resolution, with text owned */
	struct metrics m;
};

struct loader {
	struct vc_yaml_limits lim;
	const unsigned char *input;
	size_t len;
	struct vc_error *err;
	json_t *docs; /* the result (owned until handed out) */
	json_t *root; /* the current document's value (owned) */
	struct frame *stack;
	unsigned int depth, stack_alloc;
	struct anchor *anchors;
	size_t n_anchors, anchors_alloc;
	size_t alias_nodes, alias_bytes;
	yaml_mark_t doc_mark;	 /* start of the current document */
	yaml_mark_t second_mark; /* start of the second non-null document */
};

/* ---- positions ---------------------------------------------------------------------------- */

enum encoding {
	ENC_UTF8,
	ENC_UTF16LE,
	ENC_UTF16BE
};

/* The input's encoding as libyaml detects it, and the length of its byte order mark. */
static size_t input_bom(const unsigned char *p, size_t n, enum encoding *enc)
{
	*enc = ENC_UTF8;
	if (n >= 2 && p[0] == 0xff && p[1] == 0xfe) {
		*enc = ENC_UTF16LE;
		return 2;
	}
	if (n >= 2 && p[0] == 0xfe && p[1] == 0xff) {
		*enc = ENC_UTF16BE;
		return 2;
	}
	if (n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		return 3;
	return 0;
}

/*
 * Decode the character at *off and step past it. Only used on input libyaml has already read,
 * so it need not validate; it never steps beyond n. Returns -1 at the end.
 */
static long next_char(const unsigned char *p, size_t n, enum encoding enc, size_t *off)
{
	size_t i = *off, w;
	long c;

	if (i >= n)
		return -1;
	if (enc != ENC_UTF8) {
		if (n - i < 2) {
			*off = n;
			return -1;
		}
		c = enc == ENC_UTF16LE ? p[i] | p[i + 1] << 8 : p[i] << 8 | p[i + 1];
		w = c >= 0xd800 && c < 0xdc00 ? 4 : 2;
		*off = i + VC_MIN(w, n - i);
		return c;
	}
	c = p[i];
	w = c < 0x80		 ? 1
	    : (c & 0xe0) == 0xc0 ? 2
	    : (c & 0xf0) == 0xe0 ? 3
	    : (c & 0xf8) == 0xf0 ? 4
				 : 1;
	w = VC_MIN(w, n - i);
	if (w == 2)
		c = (c & 0x1f) << 6 | (p[i + 1] & 0x3f);
	else if (w == 3)
		c = (c & 0x0f) << 12 | (p[i + 1] & 0x3f) << 6 | (p[i + 2] & 0x3f);
	else if (w == 4)
		c = (c & 0x07) << 18 | (p[i + 1] & 0x3f) << 12 | (p[i + 2] & 0x3f) << 6 |
		    (p[i + 3] & 0x3f);
	*off = i + w;
	return c;
}

/* libyaml's mark.index counts characters; turn it into a byte offset into the input. */
static size_t index_to_offset(const struct loader *ld, size_t index)
{
	enum encoding enc;
	size_t off = input_bom(ld->input, ld->len, &enc), i;

	for (i = 0; i < index; i++)
		if (next_char(ld->input, ld->len, enc, &off) < 0)
			break;
	return off;
}

/* Line and column (0-based, as in a libyaml mark) of a byte offset, for reader errors. */
static void offset_to_mark(const struct loader *ld, size_t target, yaml_mark_t *mark)
{
	enum encoding enc;
	size_t off = input_bom(ld->input, ld->len, &enc);
	long c;

	mark->line = 0;
	mark->column = 0;
	while (off < target) {
		c = next_char(ld->input, ld->len, enc, &off);
		if (c < 0)
			break;
		if (c == '\r') {
			/* CRLF is one break; peek at the next character. */
			size_t peek = off;

			if (off < target && next_char(ld->input, ld->len, enc, &peek) == '\n')
				off = peek;
		}
		if (c == '\n' || c == '\r' || c == 0x85 || c == 0x2028 || c == 0x2029) {
			mark->line++;
			mark->column = 0;
		} else {
			mark->column++;
		}
	}
}

static int fail_at(struct loader *ld, int code, yaml_mark_t mark, const char *fmt, ...)
	VC_PRINTF(4, 5);

/* Report a problem at a libyaml mark: "yaml: line N: <message>". Returns code. */
static int fail_at(struct loader *ld, int code, yaml_mark_t mark, const char *fmt, ...)
{
	char msg[VC_ERROR_TEXT_LEN];
	int line = mark.line < INT_MAX ? (int)mark.line + 1 : INT_MAX;
	int column = mark.column < INT_MAX ? (int)mark.column + 1 : INT_MAX;
	va_list ap;

	if (!ld->err)
		return code;
	va_start(ap, fmt);
	if (vsnprintf(msg, sizeof(msg), fmt, ap) < 0)
		msg[0] = '\0';
	va_end(ap);
	return vc_error_set_at(ld->err, code, line, column, index_to_offset(ld, mark.index),
			       "yaml: line %d: %s", line, msg);
}

static int fail_nomem(struct loader *ld)
{
	return vc_error_set(ld->err, VC_ENOMEM, "yaml: out of memory");
}

static int parser_error(struct loader *ld, const yaml_parser_t *parser)
{
	const char *problem =
		parser->problem ? parser->problem : "unknown problem parsing YAML content";
	yaml_mark_t mark = parser->problem_mark;

	switch (parser->error) {
	case YAML_MEMORY_ERROR:
		return fail_nomem(ld);
	case YAML_READER_ERROR:
		/* Reader errors carry a byte offset and no mark. */
		offset_to_mark(ld, VC_MIN(parser->problem_offset, ld->len), &mark);
		if (ld->err) {
			fail_at(ld, VC_EPARSE, mark, "%s", problem);
			ld->err->position = VC_MIN(parser->problem_offset, ld->len);
		}
		return VC_EPARSE;
	default:
		return fail_at(ld, VC_EPARSE, mark, "%s", problem);
	}
}

/* ---- scalar resolution (go-yaml v2's resolve.go) ------------------------------------------ */

static size_t skip_digits(const char *s, size_t n, size_t *i)
{
	size_t start = *i;

	while (*i < n && s[*i] >= '0' && s[*i] <= '9')
		(*i)++;
	return *i - start;
}

/* ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool is_yaml_float(const char *s, size_t n)
{
	size_t i = 0;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	if (i < n && s[i] == '.') {
		i++;
		if (!skip_digits(s, n, &i))
			return false;
	} else {
		if (!skip_digits(s, n, &i))
			return false;
		if (i < n && s[i] == '.') {
			i++;
			skip_digits(s, n, &i);
		}
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (!skip_digits(s, n, &i))
			return false;
	}
	return i == n;
}

/* s is NUL-terminated and matched is_yaml_float. Overflow fails, as Go's ErrRange does. */
static bool parse_float(const char *s, double *out)
{
	double d = strtod(s, NULL);

	if (isinf(d))
		return false;
	*out = d;
	return true;
}

struct word {
	const char *text;
	enum scalar_kind kind;
	double value; /* booleans: 0 or 1 */
};

static const struct word resolve_words[] = {
	{ "y", SC_BOOL, 1 },
	{ "Y", SC_BOOL, 1 },
	{ "yes", SC_BOOL, 1 },
	{ "Yes", SC_BOOL, 1 },
	{ "YES", SC_BOOL, 1 },
	{ "true", SC_BOOL, 1 },
	{ "True", SC_BOOL, 1 },
	{ "TRUE", SC_BOOL, 1 },
	{ "on", SC_BOOL, 1 },
	{ "On", SC_BOOL, 1 },
	{ "ON", SC_BOOL, 1 },
	{ "n", SC_BOOL, 0 },
	{ "N", SC_BOOL, 0 },
	{ "no", SC_BOOL, 0 },
	{ "No", SC_BOOL, 0 },
	{ "NO", SC_BOOL, 0 },
	{ "false", SC_BOOL, 0 },
	{ "False", SC_BOOL, 0 },
	{ "FALSE", SC_BOOL, 0 },
	{ "off", SC_BOOL, 0 },
	{ "Off", SC_BOOL, 0 },
	{ "OFF", SC_BOOL, 0 },
	{ "~", SC_NULL, 0 },
	{ "null", SC_NULL, 0 },
	{ "Null", SC_NULL, 0 },
	{ "NULL", SC_NULL, 0 },
	{ ".nan", SC_FLOAT, NAN },
	{ ".NaN", SC_FLOAT, NAN },
	{ ".NAN", SC_FLOAT, NAN },
	{ ".inf", SC_FLOAT, INFINITY },
	{ ".Inf", SC_FLOAT, INFINITY },
	{ ".INF", SC_FLOAT, INFINITY },
	{ "+.inf", SC_FLOAT, INFINITY },
	{ "+.Inf", SC_FLOAT, INFINITY },
	{ "+.INF", SC_FLOAT, INFINITY },
	{ "-.inf", SC_FLOAT, -INFINITY },
	{ "-.Inf", SC_FLOAT, -INFINITY },
	{ "-.INF", SC_FLOAT, -INFINITY },
};

static bool lookup_word(const char *in, size_t n, struct scalar *sc)
{
	size_t i;

	for (i = 0; i < VC_ARRAY_SIZE(resolve_words); i++) {
		const struct word *w = &resolve_words[i];

		if (strlen(w->text) == n && memcmp(w->text, in, n) == 0) {
			sc->kind = w->kind;
			sc->boolean = w->value != 0;
			sc->real = w->value;
			return true;
		}
	}
	return false;
}

/*
 * Resolve an untagged plain scalar (or one tagged !!int, !!float, !!bool, !!null) as go-yaml
 * v2's resolve() does; sc->text and sc->len are set. Only fails for lack of memory.
 */
static int resolve_plain(struct scalar *sc)
{
	const char *in = sc->text;
	size_t n = sc->len, i, pn = 0;
	char stack_buf[SCRATCH_LEN], *plain = stack_buf, hint;
	int64_t iv;
	uint64_t uv;
	double dv;

	sc->kind = SC_STR;
	if (n == 0) {
		sc->kind = SC_NULL;
		return 0;
	}
	if (in[0] == '+' || in[0] == '-')
		hint = 'S';
	else if (in[0] >= '0' && in[0] <= '9')
		hint = 'D';
	else if (in[0] == '.')
		hint = '.';
	else if (in[0] != '\0' && strchr("yYnNtTfFoO~", in[0]))
		hint = 'M';
	else
		return 0;
	if (lookup_word(in, n, sc) || hint == 'M')
		return 0;

	if (n >= sizeof(stack_buf)) {
		plain = vc_malloc(n + 1);
		if (!plain)
			return VC_ENOMEM;
	}
	/* The '.' case parses the text as is; the others drop every '_' first. */
	for (i = 0; i < n; i++)
		if (hint == '.' || in[i] != '_')
			plain[pn++] = in[i];
	plain[pn] = '\0';

	if (hint == '.') {
		if (is_yaml_float(plain, pn) && parse_float(plain, &dv)) {
			sc->kind = SC_FLOAT;
			sc->real = dv;
		}
	} else if (vc_strconv_parse_int(plain, pn, 0, &iv) == 0) {
		sc->kind = SC_INT;
		sc->integer = iv;
	} else if (vc_strconv_parse_uint(plain, pn, 0, &uv) == 0) {
		sc->kind = SC_UINT;
		sc->uinteger = uv;
	} else if (is_yaml_float(plain, pn) && parse_float(plain, &dv)) {
		sc->kind = SC_FLOAT;
		sc->real = dv;
	} else if (pn >= 2 && plain[0] == '0' && plain[1] == 'b') {
		/* go-yaml retries base 2 without the prefix, which lets a sign through. */
		if (vc_strconv_parse_int(plain + 2, pn - 2, 2, &iv) == 0) {
			sc->kind = SC_INT;
			sc->integer = iv;
		} else if (vc_strconv_parse_uint(plain + 2, pn - 2, 2, &uv) == 0) {
			sc->kind = SC_UINT;
			sc->uinteger = uv;
		}
	}
	if (plain != stack_buf)
		vc_free(plain);
	return 0;
}

static const char *kind_tag(enum scalar_kind kind)
{
	switch (kind) {
	case SC_NULL:
		return "null";
	case SC_BOOL:
		return "bool";
	case SC_INT:
	case SC_UINT:
		return "int";
	case SC_FLOAT:
		return "float";
	default:
		return "str";
	}
}

/* Resolve a scalar event: its tag, style and text. */
static int resolve_scalar(struct loader *ld, const yaml_event_t *ev, struct scalar *sc)
{
	const char *tag = (const char *)ev->data.scalar.tag;
	const char *want = NULL;
	int rc;

	memset(sc, 0, sizeof(*sc));
	sc->kind = SC_STR;
	sc->text = (const char *)ev->data.scalar.value;
	sc->len = ev->data.scalar.length;
	if (!tag && !ev->data.scalar.plain_implicit)
		return 0; /* quoted or block scalar */
	if (tag) {
		/* Local tags, "!", and the standard tags we do not resolve give a string. */
		if (strncmp(tag, YAML_TAG_PREFIX, strlen(YAML_TAG_PREFIX)) != 0)
			return 0;
		want = tag + strlen(YAML_TAG_PREFIX);
		if (strcmp(want, "int") && strcmp(want, "float") && strcmp(want, "bool") &&
		    strcmp(want, "null"))
			return 0;
	}
	rc = resolve_plain(sc);
	if (rc)
		return fail_nomem(ld);
	if (!want || strcmp(want, kind_tag(sc->kind)) == 0)
		return 0;
	/* !!float 1 is 1.0; an int beyond int64 stays an error, as in go-yaml. */
	if (strcmp(want, "float") == 0 && sc->kind == SC_INT) {
		sc->kind = SC_FLOAT;
		sc->real = (double)sc->integer;
		return 0;
	}
	return fail_at(ld, VC_EPARSE, ev->start_mark, "cannot decode !!%s `%.*s` as a !!%s",
		       kind_tag(sc->kind), (int)VC_MIN(sc->len, 200), sc->text, want);
}

/* ---- conversion to JSON ------------------------------------------------------------------- */

/* The JSON value of a scalar: a new reference in *out, which is NULL on failure. */
static int scalar_to_json(struct loader *ld, const struct scalar *sc, yaml_mark_t mark,
			  json_t **out)
{
	json_t *v = NULL;

	*out = NULL;
	switch (sc->kind) {
	case SC_NULL:
		v = json_null();
		break;
	case SC_BOOL:
		v = json_boolean(sc->boolean);
		break;
	case SC_INT:
		v = json_integer(sc->integer);
		break;
	case SC_UINT:
		v = json_real((double)sc->uinteger);
		break;
	case SC_FLOAT:
		if (!isfinite(sc->real))
			return fail_at(ld, VC_EPARSE, mark,
				       "cannot convert '%.*s' to JSON: infinity and NaN are not "
				       "JSON numbers",
				       (int)VC_MIN(sc->len, 200), sc->text);
		/* encoding/json writes integral floats without a fraction. */
		if (sc->real >= -9223372036854775808.0 && sc->real < 9223372036854775808.0 &&
		    trunc(sc->real) == sc->real)
			v = json_integer((json_int_t)sc->real);
		else
			v = json_real(sc->real);
		break;
	case SC_STR:
		v = json_stringn(sc->text, sc->len);
		break;
	}
	if (!v)
		return fail_nomem(ld);
	*out = v;
	return 0;
}

/*
 * Go's strconv.FormatFloat(d, 'g', -1, 32), which sigs.k8s.io/yaml uses for float keys: the
 * shortest digits that read back as the same float32, in %e form when the decimal exponent is
 * below -4 or at least 6 (the shortest format's fixed threshold), else in %f form.
 */
static void format_go_float32(double d, char *out, size_t size)
{
	char buf[32], digits[16];
	size_t nd = 0, o = 0, i;
	int exp10, dp, p, e;
	float f;
	bool neg;

	if (isnan(d)) {
		snprintf(out, size, ".nan");
		return;
	}
	/* Round to float32 as Go does; beyond FLT_MAX plus half an ulp it is infinite. */
	if (fabs(d) >= 0x1.ffffffp127) {
		snprintf(out, size, d < 0 ? "-.inf" : ".inf");
		return;
	}
	f = fabs(d) > FLT_MAX ? (d < 0 ? -FLT_MAX : FLT_MAX) : (float)d;
	neg = signbit(f);
	if (f == 0) {
		snprintf(out, size, neg ? "-0" : "0");
		return;
	}
	for (p = 1; p <= 9; p++) {
		snprintf(buf, sizeof(buf), "%.*e", p - 1, (double)fabsf(f));
		if (strtof(buf, NULL) == fabsf(f))
			break;
	}
	/* buf is "D[.DDD]e[+-]XX". */
	for (i = 0; buf[i] && buf[i] != 'e'; i++)
		if (buf[i] != '.' && nd < sizeof(digits))
			digits[nd++] = buf[i];
	/* %e of a finite f always has a digit and an exponent; stay defined should it not. */
	if (!nd)
		digits[nd++] = '0';
	exp10 = buf[i] ? (int)strtol(buf + i + 1, NULL, 10) : 0;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	dp = exp10 + 1;

	if (neg)
		out[o++] = '-';
	if (exp10 < -4 || exp10 >= 6) {
		out[o++] = digits[0];
		if (nd > 1) {
			out[o++] = '.';
			for (i = 1; i < nd; i++)
				out[o++] = digits[i];
		}
		e = exp10 < 0 ? -exp10 : exp10;
		snprintf(out + o, size - o, "e%c%02d", exp10 < 0 ? '-' : '+', e);
		return;
	}
	if (dp > 0) {
		for (i = 0; i < (size_t)dp; i++)
			out[o++] = i < nd ? digits[i] : '0';
	} else {
		out[o++] = '0';
	}
	if ((int)nd > dp) {
		out[o++] = '.';
		for (p = dp; p < (int)nd; p++)
			out[o++] = p < 0 ? '0' : digits[p];
	}
	out[o] = '\0';
}

/*
 * The JSON key for a scalar, as sigs.k8s.io/yaml converts keys. *key points into sc->text or
 * into buf (KEY_BUF_LEN bytes); on failure it is the empty string, so it is never left unset.
 */
static int scalar_to_key(struct loader *ld, const struct scalar *sc, yaml_mark_t mark, char *buf,
			 const char **key, size_t *key_len)
{
	*key = "";
	*key_len = 0;
	switch (sc->kind) {
	case SC_STR:
		*key = sc->text;
		*key_len = sc->len;
		return 0;
	case SC_NULL:
		return fail_at(ld, VC_EPARSE, mark, "invalid map key: null");
	case SC_UINT:
		return fail_at(ld, VC_EPARSE, mark, "invalid map key: %.*s (beyond int64)",
			       (int)VC_MIN(sc->len, 200), sc->text);
	case SC_BOOL:
		snprintf(buf, KEY_BUF_LEN, "%s", sc->boolean ? "true" : "false");
		break;
	case SC_INT:
		snprintf(buf, KEY_BUF_LEN, "%" PRId64, sc->integer);
		break;
	case SC_FLOAT:
		format_go_float32(sc->real, buf, KEY_BUF_LEN);
		break;
	}
	*key = buf;
	*key_len = strlen(buf);
	return 0;
}

/* ---- the loader ----------------------------------------------------------------------------- */

static size_t add_sat(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static void metrics_add(struct metrics *to, const struct metrics *m)
{
	to->nodes = add_sat(to->nodes, m->nodes);
	to->bytes = add_sat(to->bytes, m->bytes);
	to->height = VC_MAX(to->height, m->height);
}

static void frame_release(struct frame *f)
{
	json_decref(f->value);
	json_decref(f->merges);
	vc_free(f->anchor);
	vc_free(f->key);
	memset(f, 0, sizeof(*f));
}

static void anchors_clear(struct loader *ld)
{
	size_t i;

	for (i = 0; i < ld->n_anchors; i++) {
		vc_free(ld->anchors[i].name);
		json_decref(ld->anchors[i].value);
		vc_free((char *)ld->anchors[i].sc.text);
	}
	ld->n_anchors = 0;
}

static struct anchor *anchor_slot(struct loader *ld)
{
	if (ld->n_anchors == ld->anchors_alloc) {
		size_t n = ld->anchors_alloc ? ld->anchors_alloc * 2 : 8;
		struct anchor *a = vc_realloc(ld->anchors, n * sizeof(*a));

		if (!a)
			return NULL;
		ld->anchors = a;
		ld->anchors_alloc = n;
	}
	return &ld->anchors[ld->n_anchors];
}

/* Remember a complete node under its anchor name. name is stolen; value is borrowed. */
static int anchor_add(struct loader *ld, char *name, json_t *value, const struct scalar *sc,
		      const struct metrics *m)
{
	struct anchor *a = anchor_slot(ld);
	char *text = NULL;

	if (!a)
		goto fail_name;
	memset(a, 0, sizeof(*a));
	if (!value) {
		text = vc_malloc(sc->len + 1);
		if (!text)
			goto fail_name;
		memcpy(text, sc->text, sc->len);
		text[sc->len] = '\0';
		a->sc = *sc;
		a->sc.text = text;
	}
	a->name = name;
	a->value = json_incref(value);
	a->m = *m;
	ld->n_anchors++;
	return 0;

fail_name:
	vc_free(name);
	return fail_nomem(ld);
}

static const struct anchor *anchor_find(const struct loader *ld, const char *name)
{
	size_t i;

	/* The latest definition of a name wins. */
	for (i = ld->n_anchors; i > 0; i--)
		if (strcmp(ld->anchors[i - 1].name, name) == 0)
			return &ld->anchors[i - 1];
	return NULL;
}

static struct frame *top(struct loader *ld)
{
	return ld->depth ? &ld->stack[ld->depth - 1] : NULL;
}

static bool at_key(struct loader *ld)
{
	struct frame *f = top(ld);

	return f && f->is_map && !f->want_value;
}

/* Accept the next mapping key; key is copied. */
static int take_key(struct loader *ld, const char *key, size_t len, yaml_mark_t mark)
{
	struct frame *f = top(ld);

	/* jansson's key lookups (json_object_get, json_object_foreach, json_equal in 2.14) stop
	 * at a NUL, so such a key would alias others: refuse it rather than mislead consumers. */
	if (memchr(key, '\0', len))
		return fail_at(ld, VC_EPARSE, mark, "map key contains a NUL character");
	if (json_object_getn(f->value, key, len))
		return fail_at(ld, VC_EPARSE, mark, "key \"%.*s\" already set in map",
			       (int)VC_MIN(len, 200), key);
	f->key = vc_malloc(len + 1);
	if (!f->key)
		return fail_nomem(ld);
	memcpy(f->key, key, len);
	f->key[len] = '\0';
	f->key_len = len;
	f->want_value = true;
	f->m.bytes = add_sat(f->m.bytes, len);
	return 0;
}

/* The value of a `<<` key: a mapping, or a sequence of mappings. v is stolen. */
static int add_merge(struct loader *ld, struct frame *f, json_t *v, yaml_mark_t mark)
{
	size_t i;
	json_t *item;

	if (json_is_array(v)) {
		json_array_foreach (v, i, item) {
			if (!json_is_object(item))
				goto fail_type;
		}
	} else if (!json_is_object(v)) {
		goto fail_type;
	}
	if (!f->merges) {
		f->merges = json_array();
		if (!f->merges)
			goto fail_nomem;
	}
	if (json_is_object(v))
		return json_array_append_new(f->merges, v) ? fail_nomem(ld) : 0;
	if (json_array_extend(f->merges, v))
		goto fail_nomem;
	json_decref(v);
	return 0;

fail_type:
	json_decref(v);
	return fail_at(ld, VC_EPARSE, mark,
		       "map merge requires map or sequence of maps as the value");
fail_nomem:
	json_decref(v);
	return fail_nomem(ld);
}

/* Put a complete value where it belongs: document root, sequence item or mapping value. */
static int add_value(struct loader *ld, json_t *v, const struct metrics *m, yaml_mark_t mark)
{
	struct frame *f = top(ld);
	int rc;

	if (!f) {
		json_decref(ld->root);
		ld->root = v;
		return 0;
	}
	metrics_add(&f->m, m);
	if (!f->is_map)
		return json_array_append_new(f->value, v) ? fail_nomem(ld) : 0;
	f->want_value = false;
	if (f->key_is_merge) {
		f->key_is_merge = false;
		return add_merge(ld, f, v, mark);
	}
	rc = json_object_setn_new(f->value, f->key, f->key_len, v);
	vc_free(f->key);
	f->key = NULL;
	return rc ? fail_nomem(ld) : 0;
}

/* Charge an alias against the expansion limits. */
static int charge_alias(struct loader *ld, const struct metrics *m, yaml_mark_t mark)
{
	ld->alias_nodes = add_sat(ld->alias_nodes, m->nodes);
	ld->alias_bytes = add_sat(ld->alias_bytes, m->bytes);
	if (ld->alias_nodes > ld->lim.max_alias_nodes || ld->alias_bytes > ld->lim.max_alias_bytes)
		return fail_at(ld, VC_E2BIG, mark, "document contains excessive aliasing");
	return 0;
}

static int on_scalar(struct loader *ld, const yaml_event_t *ev)
{
	const char *tag = (const char *)ev->data.scalar.tag;
	const char *anchor = (const char *)ev->data.scalar.anchor;
	struct metrics m = { 1, ev->data.scalar.length, 0 };
	struct scalar sc;
	char *name = NULL;
	int rc;

	rc = resolve_scalar(ld, ev, &sc);
	if (rc)
		return rc;
	if (anchor) {
		name = vc_strdup(anchor);
		if (!name)
			return fail_nomem(ld);
	}
	if (at_key(ld)) {
		char buf[KEY_BUF_LEN];
		const char *key;
		size_t key_len;

		if (sc.len == 2 && memcmp(sc.text, "<<", 2) == 0 &&
		    (ev->data.scalar.plain_implicit ||
		     (tag && strcmp(tag, YAML_TAG_PREFIX "merge") == 0))) {
			top(ld)->key_is_merge = true;
			top(ld)->want_value = true;
		} else {
			rc = scalar_to_key(ld, &sc, ev->start_mark, buf, &key, &key_len);
			if (!rc)
				rc = take_key(ld, key, key_len, ev->start_mark);
		}
	} else {
		json_t *v;

		rc = scalar_to_json(ld, &sc, ev->start_mark, &v);
		if (!rc)
			rc = add_value(ld, v, &m, ev->start_mark);
	}
	if (rc) {
		vc_free(name);
		return rc;
	}
	return name ? anchor_add(ld, name, NULL, &sc, &m) : 0;
}

static int on_alias(struct loader *ld, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	const struct anchor *a = anchor_find(ld, name);
	json_t *v;
	unsigned int i;
	int rc;

	if (!a) {
		for (i = 0; i < ld->depth; i++)
			if (ld->stack[i].anchor && strcmp(ld->stack[i].anchor, name) == 0)
				return fail_at(ld, VC_EPARSE, ev->start_mark,
					       "anchor '%s' value contains itself", name);
		return fail_at(ld, VC_EPARSE, ev->start_mark, "unknown anchor '%s' referenced",
			       name);
	}
	rc = charge_alias(ld, &a->m, ev->start_mark);
	if (rc)
		return rc;
	if (at_key(ld)) {
		char buf[KEY_BUF_LEN];
		const char *key;
		size_t key_len;

		if (a->value)
			return fail_at(ld, VC_EPARSE, ev->start_mark, "invalid map key: %s",
				       json_is_object(a->value) ? "a mapping" : "a sequence");
		rc = scalar_to_key(ld, &a->sc, ev->start_mark, buf, &key, &key_len);
		return rc ? rc : take_key(ld, key, key_len, ev->start_mark);
	}
	/* The sequence form of `<<` must be written out; an alias must name a mapping. */
	if (top(ld) && top(ld)->key_is_merge && !json_is_object(a->value))
		return fail_at(ld, VC_EPARSE, ev->start_mark,
			       "map merge requires map or sequence of maps as the value");
	if (ld->depth + a->m.height > ld->lim.max_depth)
		return fail_at(ld, VC_E2BIG, ev->start_mark, "exceeded max depth of %u",
			       ld->lim.max_depth);
	if (a->value) {
		v = json_deep_copy(a->value);
		if (!v)
			return fail_nomem(ld);
	} else {
		rc = scalar_to_json(ld, &a->sc, ev->start_mark, &v);
		if (rc)
			return rc;
	}
	return add_value(ld, v, &a->m, ev->start_mark);
}

static int on_start(struct loader *ld, const yaml_event_t *ev, bool is_map)
{
	const char *anchor = (const char *)(is_map ? ev->data.mapping_start.anchor
						   : ev->data.sequence_start.anchor);
	struct frame *f;

	if (at_key(ld))
		return fail_at(ld, VC_EPARSE, ev->start_mark, "invalid map key: %s",
			       is_map ? "a mapping" : "a sequence");
	if (ld->depth >= ld->lim.max_depth)
		return fail_at(ld, VC_E2BIG, ev->start_mark, "exceeded max depth of %u",
			       ld->lim.max_depth);
	if (ld->depth == ld->stack_alloc) {
		unsigned int n = ld->stack_alloc ? ld->stack_alloc * 2 : 16;
		struct frame *s = vc_realloc(ld->stack, n * sizeof(*s));

		if (!s)
			return fail_nomem(ld);
		ld->stack = s;
		ld->stack_alloc = n;
	}
	f = &ld->stack[ld->depth];
	memset(f, 0, sizeof(*f));
	f->is_map = is_map;
	f->mark = ev->start_mark;
	f->value = is_map ? json_object() : json_array();
	if (!f->value)
		return fail_nomem(ld);
	if (anchor) {
		f->anchor = vc_strdup(anchor);
		if (!f->anchor) {
			frame_release(f);
			return fail_nomem(ld);
		}
	}
	ld->depth++;
	return 0;
}

/* Merge the `<<` sources into obj: keys already present (explicit or earlier) win. */
static int apply_merges(struct loader *ld, json_t *obj, json_t *merges)
{
	size_t i;
	json_t *src;

	json_array_foreach (merges, i, src) {
		void *it;

		for (it = json_object_iter(src); it; it = json_object_iter_next(src, it)) {
			const char *key = json_object_iter_key(it);
			size_t len = json_object_iter_key_len(it);

			if (json_object_getn(obj, key, len))
				continue;
			if (json_object_setn(obj, key, len, json_object_iter_value(it)))
				return fail_nomem(ld);
		}
	}
	return 0;
}

static int on_end(struct loader *ld, const yaml_event_t *ev)
{
	struct frame f;
	yaml_mark_t mark;
	struct metrics m;
	json_t *v;
	char *name;
	int rc = 0;

	/* libyaml balances start and end events; refuse rather than underflow should it not. */
	if (!ld->depth)
		return fail_at(ld, VC_EPARSE, ev->start_mark,
			       "end of a collection that never started");
	f = ld->stack[ld->depth - 1];
	mark = f.mark;
	ld->depth--;
	if (f.merges)
		rc = apply_merges(ld, f.value, f.merges);
	if (rc) {
		frame_release(&f);
		return rc;
	}
	m.nodes = add_sat(f.m.nodes, 1);
	m.bytes = f.m.bytes;
	m.height = f.m.height + 1;
	v = f.value;
	name = f.anchor;
	f.value = NULL;
	f.anchor = NULL;
	frame_release(&f);
	if (name) {
		rc = anchor_add(ld, name, v, NULL, &m);
		if (rc) {
			json_decref(v);
			return rc;
		}
	}
	return add_value(ld, v, &m, mark);
}

static int end_document(struct loader *ld)
{
	json_t *root = ld->root;

	ld->root = NULL;
	anchors_clear(ld);
	if (!root || json_is_null(root)) {
		json_decref(root);
		return 0;
	}
	if (json_array_size(ld->docs) == 1)
		ld->second_mark = ld->doc_mark;
	return json_array_append_new(ld->docs, root) ? fail_nomem(ld) : 0;
}

static int on_event(struct loader *ld, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		ld->doc_mark = ev->start_mark;
		return 0;
	case YAML_DOCUMENT_END_EVENT:
		return end_document(ld);
	case YAML_SCALAR_EVENT:
		return on_scalar(ld, ev);
	case YAML_ALIAS_EVENT:
		return on_alias(ld, ev);
	case YAML_SEQUENCE_START_EVENT:
		return on_start(ld, ev, false);
	case YAML_MAPPING_START_EVENT:
		return on_start(ld, ev, true);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return on_end(ld, ev);
	default:
		return 0;
	}
}

static void loader_release(struct loader *ld)
{
	while (ld->depth)
		frame_release(&ld->stack[--ld->depth]);
	vc_free(ld->stack);
	anchors_clear(ld);
	vc_free(ld->anchors);
	json_decref(ld->root);
	json_decref(ld->docs);
}

static int load(const char *buf, size_t len, const struct vc_yaml_limits *limits, json_t **docs,
		struct loader *ld, struct vc_error *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	bool done = false;
	int rc = 0;

	memset(ld, 0, sizeof(*ld));
	ld->err = err;
	vc_error_clear(err);
	if (limits)
		ld->lim = *limits;
	if (!ld->lim.max_input)
		ld->lim.max_input = VC_YAML_MAX_INPUT;
	if (!ld->lim.max_depth)
		ld->lim.max_depth = VC_YAML_MAX_DEPTH;
	if (!ld->lim.max_alias_nodes)
		ld->lim.max_alias_nodes = VC_YAML_MAX_ALIAS_NODES;
	if (!ld->lim.max_alias_bytes)
		ld->lim.max_alias_bytes = VC_YAML_MAX_ALIAS_BYTES;
	if (!docs || (!buf && len))
		return vc_error_set(err, VC_EINVAL, "yaml: invalid argument");
	*docs = NULL;
	if (len > ld->lim.max_input)
		return vc_error_set(err, VC_E2BIG,
				    "yaml: input is too large (%zu bytes, limit %zu)", len,
				    ld->lim.max_input);
	ld->input = (const unsigned char *)(buf ? buf : "");
	ld->len = len;
	ld->docs = json_array();
	if (!ld->docs)
		return fail_nomem(ld);

	if (!yaml_parser_initialize(&parser)) {
		rc = fail_nomem(ld);
		goto out_loader;
	}
	yaml_parser_set_input_string(&parser, ld->input, len);
	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			rc = parser_error(ld, &parser);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		rc = on_event(ld, &ev);
		yaml_event_delete(&ev);
		if (rc)
			break;
	}
	yaml_parser_delete(&parser);
	if (rc)
		goto out_loader;
	*docs = ld->docs;
	ld->docs = NULL;
out_loader:
	loader_release(ld);
	return rc;
}

int vc_yaml_load_ex(const char *buf, size_t len, const struct vc_yaml_limits *limits, json_t **docs,
		    struct vc_error *err)
{
	struct loader ld;

	return load(buf, len, limits, docs, &ld, err);
}

int vc_yaml_load(const char *buf, size_t len, json_t **docs, struct vc_error *err)
{
	return vc_yaml_load_ex(buf, len, NULL, docs, err);
}

int vc_yaml_load_one_ex(const char *buf, size_t len, const struct vc_yaml_limits *limits,
			json_t **doc, struct vc_error *err)
{
	struct loader ld;
	json_t *docs = NULL;
	size_t n;
	int rc;

	if (!doc)
		return vc_error_set(err, VC_EINVAL, "yaml: invalid argument");
	*doc = NULL;
	rc = load(buf, len, limits, &docs, &ld, err);
	if (rc)
		return rc;
	n = json_array_size(docs);
	if (n == 1) {
		*doc = json_incref(json_array_get(docs, 0));
		json_decref(docs);
		return 0;
	}
	json_decref(docs);
	ld.err = err;
	ld.input = (const unsigned char *)(buf ? buf : "");
	ld.len = len;
	if (n == 0)
		return vc_error_set(err, VC_EPARSE, "yaml: expected exactly one document, found 0");
	return fail_at(&ld, VC_EPARSE, ld.second_mark, "expected exactly one document, found %zu",
		       n);
}

int vc_yaml_load_one(const char *buf, size_t len, json_t **doc, struct vc_error *err)
{
	return vc_yaml_load_one_ex(buf, len, NULL, doc, err);
}

int vc_yaml_load_file(const char *path, json_t **docs, struct vc_error *err)
{
	char chunk[16384];
	struct vc_buf b;
	ssize_t n;
	int fd, rc = 0;

	if (!docs || !path)
		return vc_error_set(err, VC_EINVAL, "yaml: invalid argument");
	*docs = NULL;
	vc_error_clear(err);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		return vc_error_set(err, rc, "cannot read '%s': %s", path, strerror(-rc));
	}
	vc_buf_init(&b, VC_YAML_MAX_INPUT + 1);
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			vc_error_set(err, rc, "cannot read '%s': %s", path, strerror(-rc));
			goto out_buf;
		}
		if (n == 0)
			break;
		rc = vc_buf_add(&b, chunk, (size_t)n);
		if (rc == VC_E2BIG) {
			vc_error_set(err, rc, "cannot read '%s': larger than %zu bytes", path,
				     (size_t)VC_YAML_MAX_INPUT);
			goto out_buf;
		}
		if (rc) {
			vc_error_set(err, rc, "cannot read '%s': out of memory", path);
			goto out_buf;
		}
	}
	rc = vc_yaml_load(b.data, b.len, docs, err);
	if (rc)
		vc_error_prefix(err, "cannot parse '%s'", path);
out_buf:
	vc_buf_release(&b);
	close(fd);
	return rc;
}
