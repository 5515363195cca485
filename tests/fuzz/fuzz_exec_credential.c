/*
 * libFuzzer target for vc_kube_exec_cred_parse, the reader of an exec credential plugin's
 * stdout (untrusted bytes): it never crashes, fails only with its documented codes and leaves
 * the output empty then, and what it accepts satisfies client-go's rules (a token or a cert/key
 * pair, both halves of the pair, PEM markers). The first byte picks the configured version, so
 * the version-mismatch path is reached from the same inputs.
 */
#include "vc_prelude.h"

#include "vc_err.h"
#include "vc_kube_exec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vc_kube_exec_cred c;
	struct vc_error err;
	const char *version;
	int rc;

	if (size == 0)
		return 0;
	version = data[0] & 1 ? VC_KUBE_EXEC_V1BETA1 : VC_KUBE_EXEC_V1;
	rc = vc_kube_exec_cred_parse((const char *)data + 1, size - 1, version, &c, &err);
	if (rc == 0) {
		if (!c.token && !c.client_cert)
			abort();
		if (!c.client_cert != !c.client_key)
			abort();
		if (c.client_cert &&
		    (!strstr(c.client_cert, "-----BEGIN ") || !strstr(c.client_key, "-----BEGIN ")))
			abort();
		if ((c.token && !*c.token) || (!c.has_expiry && c.expiry_ns))
			abort();
		vc_kube_exec_cred_release(&c);
		if (c.token || c.client_cert || c.client_key)
			abort();
		return 0;
	}
	if (rc != VC_EPARSE && rc != VC_EINVALID && rc != VC_E2BIG && rc != VC_ENOMEM)
		abort();
	if (err.code != rc || c.token || c.client_cert || c.client_key || c.has_expiry)
		abort();
	return 0;
}
