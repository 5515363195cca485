/*
 * vc_base64.c - standard base64 (see vc_base64.h).
 */
#include "vc_base64.h"

#include "vc_alloc.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *vc_base64_encode(const void *in, size_t len)
{
	const unsigned char *b = in;
	size_t i, o = 0;
	char *out;

	if (len > (SIZE_MAX - 1) / 4 * 3 - 2)
		return NULL;
	out = vc_malloc(VC_BASE64_ENCODED_LEN(len) + 1);
	if (!out)
		return NULL;
	for (i = 0; i + 2 < len; i += 3) {
		uint32_t w = (uint32_t)b[i] << 16 | (uint32_t)b[i + 1] << 8 | b[i + 2];

		out[o++] = alphabet[w >> 18 & 63];
		out[o++] = alphabet[w >> 12 & 63];
		out[o++] = alphabet[w >> 6 & 63];
		out[o++] = alphabet[w & 63];
	}
	if (i < len) {
		uint32_t w = (uint32_t)b[i] << 16;

		if (i + 1 < len)
			w |= (uint32_t)b[i + 1] << 8;
		out[o++] = alphabet[w >> 18 & 63];
		out[o++] = alphabet[w >> 12 & 63];
		out[o++] = i + 1 < len ? alphabet[w >> 6 & 63] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
	return out;
}

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int vc_base64_decode(const char *in, size_t len, char **out, size_t *outlen, struct vc_error *err)
{
	size_t i, o = 0;
	unsigned int acc = 0, q = 0, pad = 0;
	char *buf;
	int v;

	*out = NULL;
	if (outlen)
		*outlen = 0;
	buf = vc_malloc(len / 4 * 3 + 3);
	if (!buf)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c == '\r' || c == '\n')
			continue;
		/* Nothing may follow a padded quantum. */
		if (pad && q == 0)
			goto bad;
		if (c == '=') {
			/* Padding fills the last one or two places of a quantum. */
			if (q < 2)
				goto bad;
			pad++;
			q = (q + 1) % 4;
			continue;
		}
		v = b64_value(c);
		if (pad || v < 0)
			goto bad;
		acc = (acc << 6) | (unsigned int)v;
		if (++q == 4) {
			buf[o++] = (char)(acc >> 16);
			buf[o++] = (char)(acc >> 8);
			buf[o++] = (char)acc;
			acc = 0;
			q = 0;
		}
	}
	if (q != 0)
		goto bad; /* i == len: the input ends inside a quantum */
	if (pad == 1) {
		/* Three characters: 18 bits, two bytes. */
		buf[o++] = (char)(acc >> 10);
		buf[o++] = (char)(acc >> 2);
	} else if (pad == 2) {
		buf[o++] = (char)(acc >> 4);
	}
	buf[o] = '\0';
	*out = buf;
	if (outlen)
		*outlen = o;
	return 0;
bad:
	vc_free(buf);
	return vc_error_set(err, VC_EPARSE, "illegal base64 data at input byte %zu", i);
}
