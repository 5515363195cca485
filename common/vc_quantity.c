#include "vc_quantity.h"

#include <math.h>

#include "vc_strconv.h"

typedef unsigned __int128 u128;

#define NANO_PER_UNIT ((u128)1000000000u)

/* The cap Kubernetes applies to BinarySI values after parsing: 2^63-1 units, in nanos. */
#define BINARY_MAX_NANOS ((u128)INT64_MAX * NANO_PER_UNIT)

static const char *const binary_suffixes[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };

/* The parts of a quantity string, as apimachinery's parseQuantityString splits it. */
struct scan {
	bool positive;
	const char *num; /* numerator digits with leading zeros removed; may be empty ("0") */
	size_t num_len;
	const char *denom; /* digits after the point */
	size_t denom_len;
	bool has_digit; /* the value part (sign, zeros, num, point, denom) holds a digit */
	const char *suffix;
	size_t suffix_len;
	size_t suffix_pos;
};

static u128 u128_abs(__int128 v)
{
	return v < 0 ? (u128)0 - (u128)v : (u128)v;
}

static u128 pow10_u128(unsigned n)
{
	u128 p = 1;

	while (n--)
		p *= 10;
	return p;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int parse_fail(struct vc_error *err, int code, size_t pos, const char *text)
{
	if (code == VC_EPARSE)
		return vc_error_set_at(err, code, 1, (int)VC_MIN(pos + 1, (size_t)INT_MAX), pos,
				       "%s", text);
	return vc_error_set(err, code, "%s", text);
}

/*
 * Split s the way parseQuantityString does, including its leniencies: "", "-", "." and "1."
 * are all well formed (the caller rejects ""). Returns 0 or the byte offset + 1 of the first
 * character that breaks the shape (ErrFormatWrong).
 */
static size_t scan_quantity(const char *s, size_t end, struct scan *sc)
{
	size_t pos = 0, i;

	memset(sc, 0, sizeof(*sc));
	sc->positive = true;
	sc->num = sc->denom = sc->suffix = s + end;
	sc->suffix_pos = end;
	if (pos < end && (s[0] == '-' || s[0] == '+')) {
		sc->positive = s[0] != '-';
		pos++;
	}
	for (i = pos; i < end && s[i] == '0'; i++)
		;
	if (i >= end) {
		/* Kubernetes reads "", "-" and "000" alike as the number "0". */
		sc->has_digit = true;
		return 0;
	}
	if (i > pos)
		sc->has_digit = true;
	pos = i;
	for (; i < end && is_digit(s[i]); i++)
		;
	sc->num = s + pos;
	sc->num_len = i - pos;
	if (i > pos)
		sc->has_digit = true;
	if (i >= end)
		return 0;
	pos = i;
	if (s[pos] == '.') {
		pos++;
		for (i = pos; i < end && is_digit(s[i]); i++)
			;
		sc->denom = s + pos;
		sc->denom_len = i - pos;
		if (i > pos)
			sc->has_digit = true;
		if (i >= end)
			return 0;
		pos = i;
	}
	sc->suffix = s + pos;
	sc->suffix_pos = pos;
	for (i = pos; i < end && s[i] && strchr("eEinumkKMGTP", s[i]); i++)
		;
	if (i >= end) {
		sc->suffix_len = end - pos;
		return 0;
	}
	if (s[i] == '-' || s[i] == '+')
		i++;
	for (; i < end && is_digit(s[i]); i++)
		;
	if (i >= end) {
		sc->suffix_len = end - pos;
		return 0;
	}
	return i + 1;
}

/* strconv.ParseInt(s, 10, 64) for the exponent suffix, then the int32 scale bound. */
static bool parse_exponent(const char *s, size_t len, int64_t *out)
{
	int64_t v;

	if (vc_strconv_parse_int(s, len, 10, &v) || v > INT32_MAX || v < -INT32_MAX)
		return false;
	*out = v;
	return true;
}

static bool suffix_is(const struct scan *sc, const char *lit)
{
	return sc->suffix_len == strlen(lit) && memcmp(sc->suffix, lit, sc->suffix_len) == 0;
}

/* suffixer.interpret: base 10 or 2, the exponent, and the format. */
static bool interpret_suffix(const struct scan *sc, int *base, int64_t *exponent,
			     enum vc_quantity_format *format)
{
	static const struct {
		const char *s;
		int exp;
	} dec[] = { { "", 0 },	{ "n", -9 }, { "u", -6 }, { "m", -3 }, { "k", 3 },
		    { "M", 6 }, { "G", 9 },  { "T", 12 }, { "P", 15 }, { "E", 18 } };
	size_t i;

	for (i = 0; i < VC_ARRAY_SIZE(dec); i++) {
		if (suffix_is(sc, dec[i].s)) {
			*base = 10;
			*exponent = dec[i].exp;
			*format = VC_QUANTITY_DECIMAL_SI;
			return true;
		}
	}
	for (i = 1; i < VC_ARRAY_SIZE(binary_suffixes); i++) {
		if (suffix_is(sc, binary_suffixes[i])) {
			*base = 2;
			*exponent = (int64_t)i * 10;
			*format = VC_QUANTITY_BINARY_SI;
			return true;
		}
	}
	if (sc->suffix_len > 1 && (sc->suffix[0] == 'e' || sc->suffix[0] == 'E') &&
	    parse_exponent(sc->suffix + 1, sc->suffix_len - 1, exponent)) {
		*base = 10;
		*format = VC_QUANTITY_DECIMAL_EXPONENT;
		return true;
	}
	return false;
}

/* The i-th digit of the virtual digit string num + denom. */
static int digit_at(const struct scan *sc, size_t i)
{
	return i < sc->num_len ? sc->num[i] - '0' : sc->denom[i - sc->num_len] - '0';
}

/*
 * The magnitude num.denom x 10^exponent in nanos, rounded away from zero to whole nanos.
 * Returns false when it is 10^29 units or more.
 */
static bool decimal_nanos(const struct scan *sc, int64_t exponent, u128 *out)
{
	size_t n = sc->num_len + sc->denom_len, first, last, m, i;
	int64_t e, k;
	u128 v = 0;

	for (first = 0; first < n && digit_at(sc, first) == 0; first++)
		;
	if (first == n) {
		*out = 0;
		return true;
	}
	for (last = n - 1; digit_at(sc, last) == 0; last--)
		;
	/* value = M x 10^e, where M = digits[first..last] has no trailing zero. */
	m = last - first + 1;
	e = exponent - (int64_t)sc->denom_len + (int64_t)(n - 1 - last);
	if ((int64_t)m + e > 29)
		return false;
	k = e + 9;
	if (k >= 0) {
		for (i = first; i <= last; i++)
			v = v * 10 + (u128)digit_at(sc, i);
		*out = v * pow10_u128((unsigned)k);
		return true;
	}
	if ((int64_t)m <= -k) {
		*out = 1;
		return true;
	}
	/* Keep the leading m + k digits; the dropped ones end in a non-zero digit: round up. */
	for (i = first; i < first + (size_t)((int64_t)m + k); i++)
		v = v * 10 + (u128)digit_at(sc, i);
	*out = v + 1;
	/* Rounding up can carry past the limit: 99...9.9999999991 becomes 10^29. */
	return *out <= (u128)VC_QUANTITY_MAX_NANOS;
}

/*
 * The magnitude num.denom x 2^p in nanos, rounded away from zero and capped at 2^63-1 units as
 * ParseQuantity does for BinarySI. D x 2^p is produced digit by digit from the right, so any
 * number of digits works without a big-number library.
 */
static u128 binary_nanos(const struct scan *sc, unsigned p)
{
	size_t n = sc->num_len + sc->denom_len, i;
	int64_t j = (int64_t)sc->denom_len - 9; /* result = D x 2^p / 10^j */
	uint64_t carry = 0, t;
	u128 acc = 0, weight = 1;
	bool weight_big = false, rem = false, any = false;

	for (i = 0; i < n; i++)
		any = any || digit_at(sc, i) != 0;
	if (!any)
		return 0;
	for (i = 0; i < n || carry; i++) {
		unsigned out;

		t = (i < n ? (uint64_t)digit_at(sc, n - 1 - i) << p : 0) + carry;
		out = (unsigned)(t % 10);
		carry = t / 10;
		if ((int64_t)i < j) {
			rem = rem || out != 0;
			continue;
		}
		if (out) {
			if (weight_big || acc > BINARY_MAX_NANOS)
				return BINARY_MAX_NANOS;
			acc += (u128)out * weight;
		}
		if (weight > BINARY_MAX_NANOS)
			weight_big = true;
		else
			weight *= 10;
	}
	if (j < 0) {
		u128 scale = pow10_u128((unsigned)-j);

		if (acc > BINARY_MAX_NANOS / scale)
			return BINARY_MAX_NANOS;
		acc *= scale;
	} else if (rem) {
		acc++;
	}
	return acc > BINARY_MAX_NANOS ? BINARY_MAX_NANOS : acc;
}

/* Whether ParseQuantity takes its int64 fast path, which decides caching and ErrNumeric. */
static bool fast_path(const struct scan *sc, int base, int64_t exponent)
{
	size_t num_len = sc->num_len ? sc->num_len : 1;

	if (base == 2) {
		int64_t precision = 15 - (int64_t)num_len - exponent * 3 / 10 - 1;

		return sc->denom_len == 0 && precision >= 0;
	}
	if (18 - (int64_t)(num_len + sc->denom_len) < 0)
		return false;
	return exponent - (int64_t)sc->denom_len >= -9;
}

/* On the fast path Kubernetes keeps the input as the String() form when it is canonical. */
static bool keeps_input(const struct scan *sc, int base, int64_t exponent)
{
	size_t i;

	if (sc->num_len == 0)
		return false; /* shifted starts with '0' (or the value is zero) */
	if (base == 2) {
		uint64_t v = 0;

		for (i = 0; i < sc->num_len; i++)
			v = v * 10 + (uint64_t)(sc->num[i] - '0');
		return (v & 7) != 0;
	}
	if ((exponent - (int64_t)sc->denom_len) % 3 != 0)
		return false;
	if (sc->num_len + sc->denom_len >= 3) {
		size_t n = sc->num_len + sc->denom_len;

		if (digit_at(sc, n - 1) == 0 && digit_at(sc, n - 2) == 0 &&
		    digit_at(sc, n - 3) == 0)
			return false;
	}
	return true;
}

void vc_quantity_init(struct vc_quantity *q)
{
	memset(q, 0, sizeof(*q));
	q->format = VC_QUANTITY_DECIMAL_SI;
}

int vc_quantity_parsen(const char *s, size_t len, struct vc_quantity *q, struct vc_error *err)
{
	struct scan sc;
	enum vc_quantity_format format;
	int64_t exponent;
	size_t bad;
	u128 mag;
	int base;
	bool fast;

	if (!q)
		return vc_error_set(err, VC_EINVAL, "no quantity to parse into");
	vc_quantity_init(q);
	if (!s)
		return vc_error_set(err, VC_EINVAL, "no quantity string");
	if (len == 0)
		return parse_fail(err, VC_EPARSE, 0, VC_QUANTITY_ERR_FORMAT);
	if (len == 1 && s[0] == '0') {
		q->str[0] = '0';
		return 0;
	}
	bad = scan_quantity(s, len, &sc);
	if (bad)
		return parse_fail(err, VC_EPARSE, bad - 1, VC_QUANTITY_ERR_FORMAT);
	if (!interpret_suffix(&sc, &base, &exponent, &format))
		return parse_fail(err, VC_EPARSE, sc.suffix_pos, VC_QUANTITY_ERR_SUFFIX);
	fast = fast_path(&sc, base, exponent);
	if (!fast && !sc.has_digit)
		return parse_fail(err, VC_EPARSE, 0, VC_QUANTITY_ERR_NUMERIC);
	if (base == 2) {
		mag = binary_nanos(&sc, (unsigned)exponent);
		/* A non-zero binary value below 1 is printed as DecimalSI to avoid rounding. */
		if (mag > 0 && mag < NANO_PER_UNIT)
			format = VC_QUANTITY_DECIMAL_SI;
	} else if (!decimal_nanos(&sc, exponent, &mag)) {
		return vc_error_set(
			err, VC_ERANGE,
			"quantity '%.*s' is out of range: its magnitude must be below 1e29",
			(int)VC_MIN(len, (size_t)100), s);
	}
	q->nanos = sc.positive ? (__int128)mag : -(__int128)mag;
	q->format = format;
	if (fast && keeps_input(&sc, base, exponent) && len < sizeof(q->str)) {
		memcpy(q->str, s, len);
		q->str[len] = '\0';
	}
	return 0;
}

int vc_quantity_parse(const char *s, struct vc_quantity *q, struct vc_error *err)
{
	return vc_quantity_parsen(s, s ? strlen(s) : 0, q, err);
}

/* Length of a Unicode White_Space character (Go's unicode.IsSpace) at s, or 0. */
static size_t space_at(const unsigned char *s, size_t len)
{
	if (len >= 1 && (s[0] == ' ' || (s[0] >= '\t' && s[0] <= '\r')))
		return 1;
	if (len >= 2 && s[0] == 0xc2 && (s[1] == 0x85 || s[1] == 0xa0))
		return 2;
	if (len >= 3 && s[0] == 0xe1 && s[1] == 0x9a && s[2] == 0x80)
		return 3; /* U+1680 */
	if (len >= 3 && s[0] == 0xe2 && s[1] == 0x80 &&
	    ((s[2] >= 0x80 && s[2] <= 0x8a) || s[2] == 0xa8 || s[2] == 0xa9 || s[2] == 0xaf))
		return 3; /* U+2000..200A, U+2028, U+2029, U+202F */
	if (len >= 3 && s[0] == 0xe2 && s[1] == 0x81 && s[2] == 0x9f)
		return 3; /* U+205F */
	if (len >= 3 && s[0] == 0xe3 && s[1] == 0x80 && s[2] == 0x80)
		return 3; /* U+3000 */
	return 0;
}

/* Length of a Unicode White_Space character ending at s[len-1], or 0. */
static size_t space_before(const unsigned char *s, size_t len)
{
	size_t w;

	for (w = 1; w <= 3 && w <= len; w++) {
		if (space_at(s + len - w, w) == w)
			return w;
	}
	return 0;
}

int vc_quantity_parse_json(const json_t *v, struct vc_quantity *q, struct vc_error *err)
{
	char num[80];
	const unsigned char *s;
	size_t len, w;

	if (!q)
		return vc_error_set(err, VC_EINVAL, "no quantity to parse into");
	vc_quantity_init(q);
	if (!v || json_is_null(v))
		return 0;
	if (json_is_integer(v)) {
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return vc_quantity_parse(num, q, err);
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);
		int prec;

		/*
		 * The shortest positional spelling that reads back as the same double: what a
		 * person writing 0.5 or 2.0 typed, so the value and format come out as Kubernetes
		 * reads them.
		 */
		if (fabs(d) >= 1e30) {
			snprintf(num, sizeof(num), "%.17g", d);
			return vc_quantity_parse(num, q, err);
		}
		for (prec = 0; prec <= 40; prec++) {
			snprintf(num, sizeof(num), "%.*f", prec, d);
			if (strtod(num, NULL) == d)
				break;
		}
		return vc_quantity_parse(num, q, err);
	}
	if (!json_is_string(v))
		return vc_error_set(err, VC_EINVAL, "a quantity must be a string or a number");
	s = (const unsigned char *)json_string_value(v);
	len = json_string_length(v);
	while (len && (w = space_at(s, len)) != 0) {
		s += w;
		len -= w;
	}
	while (len && (w = space_before(s, len)) != 0)
		len -= w;
	return vc_quantity_parsen((const char *)s, len, q, err);
}

static size_t put_u128(char *out, u128 v)
{
	char tmp[48];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + (unsigned)(v % 10));
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

/* The decimal canonical form: mantissa and exponent with the exponent a multiple of 3. */
static void canonical_decimal(char *out, u128 mag, enum vc_quantity_format format)
{
	static const char *const si[] = { "n", "u", "m", "", "k", "M", "G", "T", "P", "E" };
	int exponent = -9;
	size_t n;

	while (mag % 10 == 0) {
		mag /= 10;
		exponent++;
	}
	while (exponent % 3 != 0) {
		mag *= 10;
		exponent--;
	}
	n = put_u128(out, mag);
	if (format == VC_QUANTITY_DECIMAL_SI && exponent <= 18)
		snprintf(out + n, 4, "%s", si[(exponent + 9) / 3]);
	else if (exponent != 0)
		snprintf(out + n, 16, "e%d", exponent);
	else
		out[n] = '\0';
}

static void quantity_canonical(const struct vc_quantity *q, char *out)
{
	enum vc_quantity_format format = q->format;
	u128 mag = u128_abs(q->nanos);

	if (mag == 0) {
		snprintf(out, VC_QUANTITY_STR_MAX, "0");
		return;
	}
	if (q->nanos < 0)
		*out++ = '-';
	if (format == VC_QUANTITY_BINARY_SI) {
		u128 v;
		unsigned e = 0;
		size_t n;

		if (mag < 1024 * NANO_PER_UNIT || mag % NANO_PER_UNIT != 0) {
			canonical_decimal(out, mag, VC_QUANTITY_DECIMAL_SI);
			return;
		}
		v = mag / NANO_PER_UNIT;
		while (v % 1024 == 0) {
			v /= 1024;
			e++;
		}
		if (e >= VC_ARRAY_SIZE(binary_suffixes)) {
			canonical_decimal(out, mag, VC_QUANTITY_DECIMAL_EXPONENT);
			return;
		}
		n = put_u128(out, v);
		snprintf(out + n, 3, "%s", binary_suffixes[e]);
		return;
	}
	canonical_decimal(out, mag, format);
}

int vc_quantity_format(const struct vc_quantity *q, char *buf, size_t len)
{
	char tmp[VC_QUANTITY_STR_MAX];
	size_t n;

	if (!q || !buf)
		return VC_EINVAL;
	if (q->str[0])
		snprintf(tmp, sizeof(tmp), "%s", q->str);
	else
		quantity_canonical(q, tmp);
	n = strlen(tmp);
	if (n >= len) {
		if (len)
			buf[0] = '\0';
		return VC_E2BIG;
	}
	memcpy(buf, tmp, n + 1);
	return 0;
}

json_t *vc_quantity_to_json(const struct vc_quantity *q)
{
	char buf[VC_QUANTITY_STR_MAX];

	if (vc_quantity_format(q, buf, sizeof(buf)))
		return NULL;
	return json_string(buf);
}

const char *vc_quantity_format_name(enum vc_quantity_format format)
{
	switch (format) {
	case VC_QUANTITY_BINARY_SI:
		return "BinarySI";
	case VC_QUANTITY_DECIMAL_EXPONENT:
		return "DecimalExponent";
	case VC_QUANTITY_DECIMAL_SI:
	default:
		return "DecimalSI";
	}
}

void vc_quantity_from_int64(struct vc_quantity *q, int64_t value, enum vc_quantity_format format)
{
	vc_quantity_init(q);
	q->nanos = (__int128)value * (__int128)NANO_PER_UNIT;
	q->format = format;
}

void vc_quantity_from_milli(struct vc_quantity *q, int64_t milli, enum vc_quantity_format format)
{
	vc_quantity_init(q);
	q->nanos = (__int128)milli * 1000000;
	q->format = format;
}

int vc_quantity_from_scaled(struct vc_quantity *q, int64_t value, int scale,
			    enum vc_quantity_format format)
{
	u128 mag = u128_abs((__int128)value);
	int k = scale + 9;

	if (mag != 0) {
		if (k < 0) {
			u128 div = k < -19 ? 0 : pow10_u128((unsigned)-k);

			if (div == 0 || mag % div != 0)
				return VC_ERANGE;
			mag /= div;
		} else {
			if (k > 38 || mag > (u128)VC_QUANTITY_MAX_NANOS / pow10_u128((unsigned)k))
				return VC_ERANGE;
			mag *= pow10_u128((unsigned)k);
		}
	}
	vc_quantity_init(q);
	q->nanos = value < 0 ? -(__int128)mag : (__int128)mag;
	q->format = format;
	return 0;
}

int vc_quantity_cmp(const struct vc_quantity *a, const struct vc_quantity *b)
{
	return a->nanos < b->nanos ? -1 : a->nanos > b->nanos;
}

int vc_quantity_cmp_int64(const struct vc_quantity *a, int64_t units)
{
	__int128 b = (__int128)units * (__int128)NANO_PER_UNIT;

	return a->nanos < b ? -1 : a->nanos > b;
}

bool vc_quantity_is_zero(const struct vc_quantity *q)
{
	return q->nanos == 0;
}

int vc_quantity_sign(const struct vc_quantity *q)
{
	return q->nanos < 0 ? -1 : q->nanos > 0;
}

/*
 * q += b for values within the range. The check comes first: two magnitudes near 10^38 would
 * overflow even an __int128 (whose limit is about 1.7 x 10^38).
 */
static int add_nanos(struct vc_quantity *q, __int128 b, enum vc_quantity_format bformat)
{
	if ((b > 0 && q->nanos > VC_QUANTITY_MAX_NANOS - b) ||
	    (b < 0 && q->nanos < -VC_QUANTITY_MAX_NANOS - b))
		return VC_ERANGE;
	if (q->nanos == 0)
		q->format = bformat;
	q->nanos += b;
	q->str[0] = '\0';
	return 0;
}

int vc_quantity_add(struct vc_quantity *q, const struct vc_quantity *y)
{
	return add_nanos(q, y->nanos, y->format);
}

int vc_quantity_sub(struct vc_quantity *q, const struct vc_quantity *y)
{
	return add_nanos(q, -y->nanos, y->format);
}

void vc_quantity_neg(struct vc_quantity *q)
{
	q->nanos = -q->nanos;
	q->str[0] = '\0';
}

int vc_quantity_mul(struct vc_quantity *q, int64_t factor)
{
	u128 mag = u128_abs(q->nanos), f = u128_abs((__int128)factor);
	bool neg = (q->nanos < 0) != (factor < 0);

	if (mag && f && mag > (u128)VC_QUANTITY_MAX_NANOS / f)
		return VC_ERANGE;
	mag *= f;
	q->nanos = neg ? -(__int128)mag : (__int128)mag;
	q->str[0] = '\0';
	return 0;
}

/* ScaledValue with saturation; the result says whether it fitted. */
static int scaled_value(const struct vc_quantity *q, int scale, int64_t *out)
{
	u128 mag = u128_abs(q->nanos), limit;
	bool neg = q->nanos < 0;
	int k = scale + 9; /* result = nanos / 10^k */

	if (mag == 0) {
		*out = 0;
		return 0;
	}
	if (k > 0) {
		if (k > 38) {
			mag = 1;
		} else {
			u128 div = pow10_u128((unsigned)k);
			bool rem = mag % div != 0;

			mag = mag / div + rem;
		}
	} else if (k < 0) {
		if (k < -38 || mag > ((u128)1 << 64) / pow10_u128((unsigned)-k))
			goto overflow;
		mag *= pow10_u128((unsigned)-k);
	}
	limit = neg ? (u128)INT64_MAX + 1 : (u128)INT64_MAX;
	if (mag > limit)
		goto overflow;
	*out = neg ? (int64_t)(0 - (uint64_t)mag) : (int64_t)mag;
	return 0;
overflow:
	*out = neg ? INT64_MIN : INT64_MAX;
	return VC_ERANGE;
}

int vc_quantity_scaled_value(const struct vc_quantity *q, int scale, int64_t *out)
{
	return scaled_value(q, scale, out);
}

int64_t vc_quantity_value(const struct vc_quantity *q)
{
	int64_t v;

	scaled_value(q, 0, &v);
	return v;
}

int64_t vc_quantity_milli_value(const struct vc_quantity *q)
{
	int64_t v;

	scaled_value(q, -3, &v);
	return v;
}

double vc_quantity_as_double(const struct vc_quantity *q)
{
	__int128 whole = q->nanos / (__int128)NANO_PER_UNIT,
		 frac = q->nanos % (__int128)NANO_PER_UNIT;

	/* One rounding where possible: whole values, or nanos that a double holds exactly. */
	if (frac == 0)
		return (double)whole;
	if (q->nanos > -((__int128)1 << 53) && q->nanos < ((__int128)1 << 53))
		return (double)q->nanos / 1e9;
	return (double)whole + (double)frac / 1e9;
}
