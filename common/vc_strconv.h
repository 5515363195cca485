/*
 * vc_strconv.h - numbers, booleans and strings written and read as Go writes and reads them.
 *
 * Volcano and Kubernetes print values with Go's strconv and fmt (%q, %v of a float) and parse
 * flags, annotations and YAML scalars with strconv.ParseInt/ParseUint/ParseFloat/ParseBool;
 * where those texts are a contract this module is the one place that reproduces them:
 *
 *   - parsing: Go-exact strconv.ParseInt/ParseUint/ParseFloat (bit size 64), ParseBool, and the
 *     older checked C-library parsers vc_parse_int64/int/double that flags and config use;
 *   - formatting: strconv.FormatFloat with the shortest precision ('e', 'f', 'g');
 *   - quoting: strconv.Quote (%q), and encoding/json's encoder for strings and JSON values;
 *   - UTF-8 decoding as Go's utf8.DecodeRuneInString.
 *
 * All functions are thread-safe (no shared state).
 */
#ifndef VC_STRCONV_H
#define VC_STRCONV_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_buf.h"

/* ---------------------------------------------------------------------------------------------
 * Parsing
 */

/*
 * Go's strconv.ParseUint(s[0..n), base, 64) and ParseInt(s[0..n), base, 64): base 0 reads a
 * 0b/0o/0x prefix or a leading 0 as octal and allows underscores where Go's underscoreOK does
 * (between digits, or after a prefix); base 2..36 takes plain digits. ParseInt accepts one sign.
 * 0 with *out set, VC_EINVAL for Go's ErrSyntax (also an unsupported base), VC_ERANGE for
 * ErrRange (a syntax error after the overflow is still ErrRange, as in Go). *out is untouched
 * on error.
 */
int vc_strconv_parse_uint(const char *s, size_t n, int base, uint64_t *out) VC_WARN_UNUSED;
int vc_strconv_parse_int(const char *s, size_t n, int base, int64_t *out) VC_WARN_UNUSED;

/*
 * Go's strconv.ParseFloat(s[0..n), 64): decimal and hexadecimal (0x, with a 'p' exponent) float
 * literals, underscores as underscoreOK allows them, "inf"/"infinity" with an optional sign and
 * "nan" without one (any case). 0 with *out set to the correctly rounded value (an underflow is
 * not an error); VC_EINVAL for ErrSyntax (*out untouched); VC_ERANGE for ErrRange, with *out
 * set to +Inf or -Inf as Go returns; VC_ENOMEM.
 */
int vc_strconv_parse_float(const char *s, size_t n, double *out) VC_WARN_UNUSED;

/* Parse all of s as a base-10 integer. VC_EINVAL on junk or empty, VC_ERANGE on overflow. */
int vc_parse_int64(const char *s, int64_t *out) VC_WARN_UNUSED;
/* As vc_parse_int64, and also fail with VC_ERANGE outside [min, max]. */
int vc_parse_int(const char *s, int min, int max, int *out) VC_WARN_UNUSED;
/* Parse all of s as a finite double. */
int vc_parse_double(const char *s, double *out) VC_WARN_UNUSED;
/*
 * "true"/"1"/"t"/"TRUE"/"True" and the false forms, as Go's strconv.ParseBool. The C-library
 * parsers above are older than vc_strconv_parse_int and not Go-exact (strtoll/strtod accept
 * what they accept after the first character); flags and config keep their behaviour.
 */
int vc_parse_bool(const char *s, bool *out) VC_WARN_UNUSED;

/* ---------------------------------------------------------------------------------------------
 * Formatting and quoting
 */

/*
 * Append Go's strconv.FormatFloat(d, fmt, -1, 64) to out: the shortest digits that read back as
 * d, in form 'e' (d.dddde+XX, at least two exponent digits), 'f' (no exponent) or 'g' ('e' when
 * the decimal exponent is below -4 or at least 6, else 'f': also what %v prints for a float64).
 * NaN, +Inf and -Inf as Go spells them; a negative zero keeps its sign. VC_EINVAL for another
 * fmt; VC_ENOMEM or VC_E2BIG from the buffer.
 */
int vc_strconv_format_float(double d, char fmt, struct vc_buf *out) VC_WARN_UNUSED;
/*
 * The same into buf of len bytes, NUL-terminated, without allocating: VC_E2BIG (and buf "" when
 * len > 0) when the text does not fit, VC_EINVAL for another fmt.
 */
int vc_strconv_format_float_buf(double d, char fmt, char *buf, size_t len) VC_WARN_UNUSED;

/*
 * Append Go's strconv.Quote(s) (what %q prints) to out: double quotes around s, with \a \b \f \n
 * \r \t \v \\ \" escaped, other control bytes and invalid UTF-8 bytes as \xNN, non-printable runes
 * as \uNNNN or \UNNNNNNNN (lowercase hex), and printable UTF-8 runes (Unicode 15.0, Go's
 * unicode.IsPrint) kept as they are. vc_go_quote_n quotes exactly n bytes, NULs included.
 */
int vc_go_quote(const char *s, struct vc_buf *out) VC_WARN_UNUSED;
int vc_go_quote_n(const char *s, size_t n, struct vc_buf *out) VC_WARN_UNUSED;

/*
 * Decode one rune from s[0..n) (n >= 1) as Go's utf8.DecodeRuneInString does and store its byte
 * width in *width: invalid or truncated sequences, overlong forms, surrogates and values past
 * U+10FFFF decode as -1 with width 1 (Go's RuneError, 1).
 */
int32_t vc_utf8_decode(const char *s, size_t n, size_t *width);

/*
 * Whether s[0..n) is valid UTF-8: every rune decodes under vc_utf8_decode (no overlong forms, no
 * surrogates, nothing past U+10FFFF, no truncated sequence), as jansson checks object keys.
 */
bool vc_utf8_valid(const char *s, size_t n);

/*
 * Write the UTF-8 encoding of rune r to out (room for 4 bytes) and return its length (1-4). As
 * Go's utf8.EncodeRune, a negative rune, a surrogate or one past U+10FFFF is written as U+FFFD.
 */
size_t vc_utf8_encode(int32_t r, char *out);

/*
 * Append Go's encoding/json.Marshal of a JSON value (borrowed; NULL prints "null") to out:
 * compact, strings escaped as Go does (<, > and & as \u003c \u003e \u0026, U+2028/U+2029 escaped,
 * invalid UTF-8 as \ufffd), reals in Go's shortest form, and object keys sorted, as Go marshals a
 * map. This is how a field error prints a value that is neither a string nor a number.
 */
int vc_go_json(const json_t *value, struct vc_buf *out) VC_WARN_UNUSED;

/* Append encoding/json's encoding of the n bytes at s as a string (the escaping of vc_go_json). */
int vc_go_json_string(const char *s, size_t n, struct vc_buf *out) VC_WARN_UNUSED;

#endif /* VC_STRCONV_H */
