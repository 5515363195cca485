/*
 * vc_base64.h - base64 with the standard alphabet (RFC 4648, section 4), as Go's encoding/base64
 * StdEncoding writes and reads it.
 */
#ifndef VC_BASE64_H
#define VC_BASE64_H

#include "vc_prelude.h"

#include "vc_err.h"

/* The length of the padded encoding of n bytes, without the NUL. */
#define VC_BASE64_ENCODED_LEN(n) (((n) + 2) / 3 * 4)

/*
 * Encode len bytes at in with padding ('=' to a multiple of four characters), as Go's
 * base64.StdEncoding.EncodeToString (and encoding/json for []byte). Returns a new vc_malloc'd
 * NUL-terminated string, or NULL when out of memory.
 */
char *vc_base64_encode(const void *in, size_t len);

/*
 * Decode len characters at in as Go's base64.StdEncoding.DecodeString: padding is required,
 * CR and LF anywhere are skipped, nothing may follow a padded quantum, unused trailing bits are
 * ignored. On success *out is a new vc_malloc'd buffer of *outlen bytes (outlen may be NULL)
 * followed by a NUL that is not counted. On bad input returns VC_EPARSE with Go's message
 * "illegal base64 data at input byte N" (N counting from 0 in the input) and *out is NULL;
 * VC_ENOMEM when out of memory.
 */
int vc_base64_decode(const char *in, size_t len, char **out, size_t *outlen,
		     struct vc_error *err) VC_WARN_UNUSED;

#endif /* VC_BASE64_H */
