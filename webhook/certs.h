/*
 * certs.h - the certificates of vc-webhook (`vc-webhook --generate-certs DIR`), made with OpenSSL.
 *
 * What Volcano's gen-admission-secret.sh makes with the openssl tool (docs/volcano/webhooks.md
 * §12.3), in process: a self-signed CA and a serving certificate signed by it, both RSA 2048 with
 * SHA-256 signatures and valid for 3650 days. The serving certificate's subject alternative names
 * cover the webhook's Service as the API server may address it (<svc>, <svc>.<ns>, <svc>.<ns>.svc,
 * <svc>.<ns>.svc.cluster.local) and the loopback address the local cluster uses (127.0.0.1,
 * localhost); keyUsage digitalSignature, nonRepudiation, keyEncipherment and extendedKeyUsage
 * serverAuth, as the script's csr.conf asks.
 *
 * The files are what the Helm chart's Secret holds and vc-webhook's flags read: DIR/ca.crt
 * (--ca-cert-file, and the caBundle of the webhook configurations), DIR/tls.crt
 * (--tls-cert-file) and DIR/tls.key (--tls-private-key-file, PKCS#8 PEM, mode 0600). The CA's
 * private key is not kept: to rotate, make a new set and let vc-webhook pick it up (it re-reads
 * the files when they change and registers the new CA).
 */
#ifndef WEBHOOK_CERTS_H
#define WEBHOOK_CERTS_H

#include "vc_prelude.h"

#include "vc_err.h"

/* The validity of both certificates when the options leave it at 0 (Volcano's 3650 days). */
#define WEBHOOK_CERT_DAYS 3650

struct webhook_certs_opts {
	/*
	 * The Service name (--webhook-service-name), a DNS-1035 label; NULL or "" when the
	 * webhook is reached by URL only, in which case the certificate names just 127.0.0.1 and
	 * localhost.
	 */
	const char *service;
	/* The Service's namespace (--webhook-namespace), a DNS-1123 label; NULL or "": "default".
	 */
	const char *namespace;
	int ca_days;   /* validity of the CA; 0 = WEBHOOK_CERT_DAYS */
	int cert_days; /* validity of the serving certificate; 0 = WEBHOOK_CERT_DAYS */
};

/* A generated set, as PEM text; each string is vc_malloc'd and NUL-terminated. */
struct webhook_certs {
	char *ca_pem;	/* the CA certificate */
	char *cert_pem; /* the serving certificate (the certificate only, not the chain) */
	char *key_pem;	/* the serving certificate's private key, unencrypted PKCS#8 */
};

/*
 * Make a CA and a serving certificate as described at the top of this file. The certificates
 * start one hour before vc_time_now_ns() (clock skew between machines) and end ca_days /
 * cert_days after it. The CA's subject is CN=<svc>.<ns>.svc-ca (CN=vc-webhook-ca without a
 * service), the serving certificate's CN=<svc>.<ns>.svc (CN=localhost without a service); each
 * has a random 159-bit serial and key identifiers. On success returns 0 and fills out (release
 * with webhook_certs_release); on failure out is empty and the code is VC_EINVAL ("invalid
 * service name 'X': ...", "invalid namespace 'X': ...", a negative validity), VC_ENOMEM, or
 * VC_EIO naming the OpenSSL step that failed ("cannot generate an RSA key: <openssl error>").
 */
int webhook_certs_make(const struct webhook_certs_opts *opts, struct webhook_certs *out,
		       struct vc_error *err) VC_WARN_UNUSED;

/* Free the three strings and zero c. c may be empty or NULL. */
void webhook_certs_release(struct webhook_certs *c);

/*
 * Write c to dir/ca.crt and dir/tls.crt (mode 0644) and dir/tls.key (mode 0600), making dir
 * (mode 0755) when it does not exist. Each file is written to a temporary name in dir and
 * renamed over the old one, so a server watching the files never reads half of one; the key is
 * written first. Errors: VC_EINVAL for NULL arguments or an empty set, -errno with
 * "cannot create '<dir>': <reason>" or "cannot write '<file>': <reason>", VC_ENOMEM. Files
 * written before a failure stay.
 */
int webhook_certs_write(const char *dir, const struct webhook_certs *c,
			struct vc_error *err) VC_WARN_UNUSED;

/* webhook_certs_make, then webhook_certs_write to dir: `vc-webhook --generate-certs DIR`. */
int webhook_generate_certs(const char *dir, const struct webhook_certs_opts *opts,
			   struct vc_error *err) VC_WARN_UNUSED;

#endif /* WEBHOOK_CERTS_H */
