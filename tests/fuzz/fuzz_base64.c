/*
 * libFuzzer target for vc_base64: decoding never crashes and fails only with VC_EPARSE, what it
 * decodes re-encodes and decodes to the same bytes, and any bytes encode and decode back.
 */
#include "vc_prelude.h"

#include "vc_alloc.h"
#include "vc_base64.h"
#include "vc_err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const void *bytes, size_t n)
{
	struct vc_error err;
	char *enc = vc_base64_encode(bytes, n), *dec;
	size_t m;

	if (!enc)
		abort();
	if (strlen(enc) != VC_BASE64_ENCODED_LEN(n))
		abort();
	if (vc_base64_decode(enc, strlen(enc), &dec, &m, &err) != 0)
		abort();
	if (m != n || memcmp(dec, bytes, n) != 0 || dec[m] != '\0')
		abort();
	vc_free(dec);
	vc_free(enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vc_error err;
	char *out;
	size_t n;

	if (vc_base64_decode((const char *)data, size, &out, &n, &err) == 0) {
		if (n > size)
			abort();
		round_trip(out, n);
		vc_free(out);
	} else if (err.code != VC_EPARSE || out) {
		abort();
	}
	round_trip(data, size);
	return 0;
}
