/*
 * vc_quantity.h - Kubernetes resource quantities (k8s.io/apimachinery pkg/api/resource.Quantity).
 *
 * A quantity is a fixed-point decimal number with a remembered format. The grammar, the
 * canonical form printed by Quantity.String(), the rounding and the capping rules are those of
 * apimachinery, to the character, so that messages and patches built from quantities read the
 * same as the Go code's:
 *
 *   <quantity> ::= <sign>? <number> <suffix>
 *   <number>   ::= <digits> | <digits> "." <digits>? | "." <digits>?   (see the parser notes)
 *   <suffix>   ::= "" | n | u | m | k | M | G | T | P | E               (DecimalSI)
 *                | Ki | Mi | Gi | Ti | Pi | Ei                          (BinarySI)
 *                | (e | E) <signed integer>                            (DecimalExponent)
 *
 * Representation. The value is held exactly as a signed 128-bit count of nano-units
 * (value = nanos x 10^-9). Parsing rounds anything finer than 1n away from zero to the next
 * nano-unit, as Kubernetes does, so every parsed value is representable. The magnitude must stay
 * below 10^29 (nanos <= VC_QUANTITY_MAX_NANOS); Kubernetes can hold larger decimal values
 * ("1e100"), Caldera rejects them with VC_ERANGE. Values with a binary suffix are capped at
 * 2^63-1 by the parser, as in Kubernetes, so they never hit that limit.
 *
 * Kubernetes remembers the input string when it is already canonical (parse fast path) and
 * prints it back verbatim; that is why "+1" prints as "+1" and "1E3" as "1E3". The struct keeps
 * that string (up to VC_QUANTITY_STR_MAX - 1 bytes; a longer one, possible only with redundant
 * leading zeros, is re-canonicalised instead). Arithmetic clears it, as in Go.
 *
 * Where apimachinery versions differ, this follows the current one: Value()/MilliValue() round
 * away from zero for negative values, a DecimalSI value past "E" prints in exponent notation
 * ("1e21"; kubectl 1.32 still prints the corrupt "1" for "1000E"), a BinarySI value past "Ei"
 * prints as DecimalExponent, and an exponent outside +-(2^31-1) is a suffix error (older
 * versions truncate it, or spin computing 10^2147483648). Parsing and String() were checked
 * against kubectl 1.32 on a few thousand generated inputs: identical apart from these cases and
 * the 10^29 limit.
 *
 * The struct is a plain value: copy it with `=`, no init or release is needed. All functions are
 * thread-safe (they touch only their arguments).
 */
#ifndef VC_QUANTITY_H
#define VC_QUANTITY_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"

/* Room for any formatted quantity, including the terminating NUL. */
#define VC_QUANTITY_STR_MAX 64

/* The largest magnitude, in nano-units: 10^38 - 1, i.e. just below 10^29 units. */
#define VC_QUANTITY_MAX_NANOS \
	((__int128)10000000000000000000ULL * (__int128)10000000000000000000ULL - 1)

/* The three Kubernetes formats (resource.Format). */
enum vc_quantity_format {
	VC_QUANTITY_DECIMAL_SI = 0,   /* "DecimalSI", e.g. 12M, 500m */
	VC_QUANTITY_BINARY_SI,	      /* "BinarySI", e.g. 12Mi */
	VC_QUANTITY_DECIMAL_EXPONENT, /* "DecimalExponent", e.g. 12e6 */
};

struct vc_quantity {
	__int128 nanos;			/* the value x 10^9, |nanos| <= VC_QUANTITY_MAX_NANOS */
	enum vc_quantity_format format; /* the format String() prints in */
	char str[VC_QUANTITY_STR_MAX];	/* the cached canonical input, "" when there is none */
};

/* The exact Kubernetes error texts (ErrFormatWrong, ErrSuffix, ErrNumeric). */
#define VC_QUANTITY_ERR_FORMAT \
	"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
#define VC_QUANTITY_ERR_SUFFIX	"unable to parse quantity's suffix"
#define VC_QUANTITY_ERR_NUMERIC "unable to parse numeric part of quantity"

/* Set q to zero in DecimalSI (what a Go zero Quantity prints as: "0"). */
void vc_quantity_init(struct vc_quantity *q);

/*
 * Parse the NUL-terminated string s (resource.ParseQuantity). On success fill q and return 0.
 * On failure q is set to zero and the return is:
 *   VC_EPARSE  with err->text VC_QUANTITY_ERR_FORMAT (bad shape; err->position/column point at
 *              the offending byte), VC_QUANTITY_ERR_SUFFIX (unknown suffix or exponent; the
 *              position is where the suffix starts) or VC_QUANTITY_ERR_NUMERIC (no digits where
 *              Kubernetes needs some, e.g. ".Ei");
 *   VC_ERANGE  when the magnitude is 10^29 or more;
 *   VC_EINVAL  when s or q is NULL.
 * No whitespace is allowed anywhere (as ParseQuantity). err may be NULL; line is always 1.
 */
int vc_quantity_parse(const char *s, struct vc_quantity *q, struct vc_error *err) VC_WARN_UNUSED;

/* As vc_quantity_parse for the first len bytes of s (which need not be NUL-terminated). */
int vc_quantity_parsen(const char *s, size_t len, struct vc_quantity *q,
		       struct vc_error *err) VC_WARN_UNUSED;

/*
 * Parse a quantity as it appears in a Kubernetes JSON object (Quantity.UnmarshalJSON); v is
 * borrowed. A string is trimmed of Unicode white space first; JSON null is zero (DecimalSI). An
 * integer is read exactly. jansson does not keep the text of a real, so a real is read from the
 * shortest positional decimal that gives back the same double: 0.5 and 2.0 read as Kubernetes
 * reads them, but an exponent spelling such as 1e3 comes out DecimalSI ("1k") where Kubernetes
 * keeps DecimalExponent ("1e3"). The API server always writes strings, so only hand-written
 * numbers can differ. Any other JSON type is VC_EINVAL. Errors as vc_quantity_parse.
 */
int vc_quantity_parse_json(const json_t *v, struct vc_quantity *q,
			   struct vc_error *err) VC_WARN_UNUSED;

/*
 * Write Quantity.String() - the canonical form, or the cached input - into buf (NUL-terminated).
 * Returns 0, VC_E2BIG when len is too small (VC_QUANTITY_STR_MAX always suffices; buf then holds
 * "" if len > 0), or VC_EINVAL for NULL arguments.
 */
int vc_quantity_format(const struct vc_quantity *q, char *buf, size_t len);

/*
 * Return a new JSON string holding Quantity.String() (what MarshalJSON writes), or NULL when out
 * of memory. The reference is new.
 */
json_t *vc_quantity_to_json(const struct vc_quantity *q);

/* "DecimalSI", "BinarySI" or "DecimalExponent". */
const char *vc_quantity_format_name(enum vc_quantity_format format);

/* NewQuantity(value, format): value units. */
void vc_quantity_from_int64(struct vc_quantity *q, int64_t value, enum vc_quantity_format format);

/* NewMilliQuantity(milli, format): milli / 1000 units. */
void vc_quantity_from_milli(struct vc_quantity *q, int64_t milli, enum vc_quantity_format format);

/*
 * NewScaledQuantity-like: value x 10^scale in the given format. VC_ERANGE (q untouched) when the
 * result is finer than 1n or its magnitude is 10^29 or more.
 */
int vc_quantity_from_scaled(struct vc_quantity *q, int64_t value, int scale,
			    enum vc_quantity_format format) VC_WARN_UNUSED;

/* -1, 0 or 1 as a < b, a == b, a > b (Quantity.Cmp; the format does not matter). */
int vc_quantity_cmp(const struct vc_quantity *a, const struct vc_quantity *b);

/* Compare with an integer number of units (Quantity.CmpInt64). */
int vc_quantity_cmp_int64(const struct vc_quantity *a, int64_t units);

bool vc_quantity_is_zero(const struct vc_quantity *q);

/* -1, 0 or 1 (Quantity.Sign). */
int vc_quantity_sign(const struct vc_quantity *q);

/*
 * q += y (Quantity.Add). A zero q takes y's format. VC_ERANGE, with q untouched, when the
 * magnitude of the sum would reach 10^29.
 */
int vc_quantity_add(struct vc_quantity *q, const struct vc_quantity *y) VC_WARN_UNUSED;

/* q -= y (Quantity.Sub), with the same format and overflow rules as vc_quantity_add. */
int vc_quantity_sub(struct vc_quantity *q, const struct vc_quantity *y) VC_WARN_UNUSED;

/* q = -q (Quantity.Neg). Never fails: the range is symmetric. */
void vc_quantity_neg(struct vc_quantity *q);

/* q *= factor (Quantity.Mul). VC_ERANGE, with q untouched, on overflow. */
int vc_quantity_mul(struct vc_quantity *q, int64_t factor) VC_WARN_UNUSED;

/*
 * ceil(q / 10^scale), rounding away from zero (Quantity.ScaledValue), into *out. VC_ERANGE when
 * the result does not fit an int64 (then *out is INT64_MAX or INT64_MIN by sign). scale may be
 * any value; 0 is Value(), -3 is MilliValue().
 */
int vc_quantity_scaled_value(const struct vc_quantity *q, int scale, int64_t *out) VC_WARN_UNUSED;

/* Value(): the value in units rounded away from zero; saturates at the int64 limits. */
int64_t vc_quantity_value(const struct vc_quantity *q);

/* MilliValue(): the value in milli-units rounded away from zero; saturates likewise. */
int64_t vc_quantity_milli_value(const struct vc_quantity *q);

/*
 * The value as a double (AsApproximateFloat64). Correctly rounded while |nanos| < 2^53;
 * otherwise within a couple of ulps.
 */
double vc_quantity_as_double(const struct vc_quantity *q);

#endif /* VC_QUANTITY_H */
