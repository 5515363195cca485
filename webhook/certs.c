/*
 * certs.c - the CA and serving certificate of vc-webhook, made with OpenSSL (see certs.h).
 */
#include "certs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "vc_alloc.h"
#include "vc_time.h"
#include "vc_validate.h"

#define RSA_BITS    2048
#define SERIAL_BITS 159
#define SKEW_S	    3600
#define DAY_S	    86400L
#define DAYS_MAX    36500

/* Record the failed OpenSSL step with the library's first queued error, and clear the queue. */
static int ssl_fail(struct vc_error *err, const char *what)
{
	unsigned long e = ERR_get_error();
	char text[256];

	if (e)
		ERR_error_string_n(e, text, sizeof(text));
	else
		snprintf(text, sizeof(text), "unknown error");
	ERR_clear_error();
	if (ERR_GET_REASON(e) == ERR_R_MALLOC_FAILURE)
		return vc_error_set(err, VC_ENOMEM, "%s: out of memory", what);
	return vc_error_set(err, VC_EIO, "%s: %s", what, text);
}

/* A PEM text in a vc_malloc'd string, from a memory BIO. */
static char *bio_take(BIO *bio)
{
	char *data, *s;
	long n = BIO_get_mem_data(bio, &data);

	if (n < 0)
		return NULL;
	s = vc_malloc((size_t)n + 1);
	if (!s)
		return NULL;
	memcpy(s, data, (size_t)n);
	s[n] = '\0';
	return s;
}

static int add_ext(X509 *x, X509V3_CTX *ctx, int nid, const char *value, struct vc_error *err)
{
	X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, ctx, nid, value);
	int ok;

	if (!ext)
		return ssl_fail(err, "cannot make a certificate extension");
	ok = X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	return ok ? 0 : ssl_fail(err, "cannot add a certificate extension");
}

/*
 * A new X509 for pubkey with subject CN=cn, a random serial and the validity window, not yet
 * signed and without extensions. *out NULL on failure.
 */
static int new_cert(EVP_PKEY *pubkey, const char *cn, int days, X509 **out, struct vc_error *err)
{
	time_t now = (time_t)(vc_time_now_ns() / 1000000000);
	X509 *x = X509_new();
	BIGNUM *bn = BN_new();
	X509_NAME *name;
	int rc = 0;

	*out = NULL;
	if (!x || !bn) {
		rc = ssl_fail(err, "cannot make a certificate");
		goto out;
	}
	if (!X509_set_version(x, 2) ||
	    !BN_rand(bn, SERIAL_BITS, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) ||
	    !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) ||
	    !X509_time_adj_ex(X509_getm_notBefore(x), 0, -SKEW_S, &now) ||
	    !X509_time_adj_ex(X509_getm_notAfter(x), days, 0, &now) ||
	    !X509_set_pubkey(x, pubkey)) {
		rc = ssl_fail(err, "cannot make a certificate");
		goto out;
	}
	name = X509_get_subject_name(x);
	if (!X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1,
					0)) {
		rc = ssl_fail(err, "cannot set the certificate's subject");
		goto out;
	}
	*out = x;
	x = NULL;
out:
	BN_free(bn);
	X509_free(x);
	return rc;
}

static int gen_key(EVP_PKEY **out, struct vc_error *err)
{
	*out = EVP_RSA_gen(RSA_BITS);
	return *out ? 0 : ssl_fail(err, "cannot generate an RSA key");
}

/* An X509v3 extension: its NID and its configuration text. */
struct cert_ext {
	int nid;
	const char *value;
};

/* What make_cert makes: the extensions, in order, and the texts of its errors. */
struct cert_profile {
	const struct cert_ext *exts;
	size_t n_exts;
	const char *issuer_error; /* when the issuer cannot be set */
	const char *sign_error;	  /* when the certificate cannot be signed */
};

/*
 * A certificate for key with subject CN=cn and the profile's extensions, issued and signed by ca
 * with ca_key, or self-signed by key when ca is NULL.
 */
static int make_cert(EVP_PKEY *key, const char *cn, int days, X509 *ca, EVP_PKEY *ca_key,
		     const struct cert_profile *pr, X509 **out, struct vc_error *err)
{
	X509V3_CTX ctx;
	X509 *x;
	size_t i;
	int rc;

	rc = new_cert(key, cn, days, &x, err);
	if (rc)
		return rc;
	if (!ca) {
		ca = x;
		ca_key = key;
	}
	if (!X509_set_issuer_name(x, X509_get_subject_name(ca))) {
		rc = ssl_fail(err, pr->issuer_error);
		goto fail;
	}
	X509V3_set_ctx(&ctx, ca, x, NULL, NULL, 0);
	for (i = 0; i < pr->n_exts; i++)
		if ((rc = add_ext(x, &ctx, pr->exts[i].nid, pr->exts[i].value, err)))
			goto fail;
	if (!X509_sign(x, ca_key, EVP_sha256())) {
		rc = ssl_fail(err, pr->sign_error);
		goto fail;
	}
	*out = x;
	return 0;
fail:
	X509_free(x);
	return rc;
}

/* The CA: self-signed, CA:TRUE, keyCertSign and cRLSign. */
static int make_ca(EVP_PKEY *key, const char *cn, int days, X509 **out, struct vc_error *err)
{
	static const struct cert_ext exts[] = {
		{ NID_basic_constraints, "critical,CA:TRUE" },
		{ NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature" },
		{ NID_subject_key_identifier, "hash" },
		{ NID_authority_key_identifier, "keyid:always" },
	};
	static const struct cert_profile ca = { exts, VC_ARRAY_SIZE(exts),
						"cannot set the CA's issuer",
						"cannot sign the CA certificate" };

	return make_cert(key, cn, days, NULL, NULL, &ca, out, err);
}

/* The serving certificate for key, signed by the CA. */
static int make_serving(EVP_PKEY *key, const char *cn, const char *sans, int days, X509 *ca,
			EVP_PKEY *ca_key, X509 **out, struct vc_error *err)
{
	const struct cert_ext exts[] = {
		{ NID_basic_constraints, "CA:FALSE" },
		{ NID_key_usage, "critical,nonRepudiation,digitalSignature,keyEncipherment" },
		{ NID_ext_key_usage, "serverAuth" },
		{ NID_subject_alt_name, sans },
		{ NID_subject_key_identifier, "hash" },
		{ NID_authority_key_identifier, "keyid:always" },
	};
	const struct cert_profile serving = { exts, VC_ARRAY_SIZE(exts),
					      "cannot set the certificate's issuer",
					      "cannot sign the serving certificate" };

	return make_cert(key, cn, days, ca, ca_key, &serving, out, err);
}

static int pem_cert(X509 *x, char **out, struct vc_error *err)
{
	BIO *bio = BIO_new(BIO_s_mem());
	int rc = 0;

	if (!bio || !PEM_write_bio_X509(bio, x))
		rc = ssl_fail(err, "cannot encode a certificate");
	else if (!(*out = bio_take(bio)))
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
	BIO_free(bio);
	return rc;
}

static int pem_key(EVP_PKEY *key, char **out, struct vc_error *err)
{
	BIO *bio = BIO_new(BIO_s_mem());
	int rc = 0;

	if (!bio || !PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL))
		rc = ssl_fail(err, "cannot encode the private key");
	else if (!(*out = bio_take(bio)))
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
	BIO_free(bio);
	return rc;
}

/* Check one name with a Kubernetes validator; the first message goes into err. */
static int check_name(const char *what, const char *value,
		      int (*validate)(const char *, struct vc_strlist *), struct vc_error *err)
{
	struct vc_strlist msgs;
	int rc;

	vc_strlist_init(&msgs);
	rc = validate(value, &msgs);
	if (rc == VC_EINVALID)
		rc = vc_error_set(err, VC_EINVAL, "invalid %s '%s': %s", what, value,
				  msgs.len ? msgs.items[0] : "invalid");
	else if (rc)
		rc = vc_error_set(err, rc, "out of memory");
	vc_strlist_release(&msgs);
	return rc;
}

void webhook_certs_release(struct webhook_certs *c)
{
	if (!c)
		return;
	vc_free(c->ca_pem);
	vc_free(c->cert_pem);
	vc_free(c->key_pem);
	memset(c, 0, sizeof(*c));
}

int webhook_certs_make(const struct webhook_certs_opts *opts, struct webhook_certs *out,
		       struct vc_error *err)
{
	const char *svc = opts && opts->service ? opts->service : "";
	const char *ns =
		opts && opts->namespace && opts->namespace[0] ? opts->namespace : "default";
	int ca_days = opts && opts->ca_days ? opts->ca_days : WEBHOOK_CERT_DAYS;
	int cert_days = opts && opts->cert_days ? opts->cert_days : WEBHOOK_CERT_DAYS;
	EVP_PKEY *ca_key = NULL, *key = NULL;
	X509 *ca = NULL, *x = NULL;
	char *ca_cn = NULL, *cn = NULL, *sans = NULL;
	int rc;

	if (!out)
		return vc_error_set(err, VC_EINVAL, "no output for the certificates");
	memset(out, 0, sizeof(*out));
	if (ca_days < 0 || ca_days > DAYS_MAX || cert_days < 0 || cert_days > DAYS_MAX)
		return vc_error_set(err, VC_EINVAL, "invalid validity: %d and %d days", ca_days,
				    cert_days);
	if (svc[0] && ((rc = check_name("service name", svc, vc_validate_dns1035_label, err)) ||
		       (rc = check_name("namespace", ns, vc_validate_dns1123_label, err))))
		return rc;
	if (svc[0]) {
		ca_cn = vc_asprintf("%s.%s.svc-ca", svc, ns);
		cn = vc_asprintf("%s.%s.svc", svc, ns);
		sans = vc_asprintf("DNS:%s,DNS:%s.%s,DNS:%s.%s.svc,DNS:%s.%s.svc.cluster.local,"
				   "DNS:localhost,IP:127.0.0.1",
				   svc, svc, ns, svc, ns, svc, ns);
	} else {
		ca_cn = vc_strdup("vc-webhook-ca");
		cn = vc_strdup("localhost");
		sans = vc_strdup("DNS:localhost,IP:127.0.0.1");
	}
	if (!ca_cn || !cn || !sans) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out;
	}
	ERR_clear_error();
	if ((rc = gen_key(&ca_key, err)) || (rc = make_ca(ca_key, ca_cn, ca_days, &ca, err)) ||
	    (rc = gen_key(&key, err)) ||
	    (rc = make_serving(key, cn, sans, cert_days, ca, ca_key, &x, err)) ||
	    (rc = pem_cert(ca, &out->ca_pem, err)) || (rc = pem_cert(x, &out->cert_pem, err)) ||
	    (rc = pem_key(key, &out->key_pem, err)))
		webhook_certs_release(out);
out:
	X509_free(x);
	X509_free(ca);
	EVP_PKEY_free(key);
	EVP_PKEY_free(ca_key);
	vc_free(ca_cn);
	vc_free(cn);
	vc_free(sans);
	return rc;
}

/* mkdir -p with mode for what it makes. */
static int make_dir(const char *dir, struct vc_error *err)
{
	char *p, *s = vc_strdup(dir);
	int rc = 0;

	if (!s)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	for (p = s + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(s, 0755) && errno != EEXIST) {
			rc = -errno;
			break;
		}
		*p = c;
		if (!c)
			break;
	}
	if (rc)
		vc_error_set(err, rc, "cannot create '%s': %s", dir, strerror(-rc));
	vc_free(s);
	return rc;
}

/* Write text to dir/name through a temporary file and a rename. */
static int write_file(const char *dir, const char *name, const char *text, mode_t mode,
		      struct vc_error *err)
{
	char *path = vc_asprintf("%s/%s", dir, name);
	char *tmp = vc_asprintf("%s/.%s.XXXXXX", dir, name);
	size_t len = strlen(text), off = 0;
	int fd = -1, rc = 0;

	if (!path || !tmp) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		goto fail;
	}
	if (fchmod(fd, mode)) {
		rc = -errno;
		goto fail_unlink;
	}
	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			goto fail_unlink;
		}
		off += (size_t)n;
	}
	if (fsync(fd) || close(fd)) {
		fd = -1;
		rc = -errno;
		goto fail_unlink;
	}
	fd = -1;
	if (rename(tmp, path)) {
		rc = -errno;
		goto fail_unlink;
	}
	goto out;
fail_unlink:
	unlink(tmp);
fail:
	vc_error_set(err, rc, "cannot write '%s': %s", path, strerror(-rc));
out:
	if (fd >= 0)
		close(fd);
	vc_free(path);
	vc_free(tmp);
	return rc;
}

int webhook_certs_write(const char *dir, const struct webhook_certs *c, struct vc_error *err)
{
	int rc;

	if (!dir || !*dir || !c || !c->ca_pem || !c->cert_pem || !c->key_pem)
		return vc_error_set(err, VC_EINVAL, "nothing to write");
	rc = make_dir(dir, err);
	if (!rc)
		rc = write_file(dir, "tls.key", c->key_pem, 0600, err);
	if (!rc)
		rc = write_file(dir, "tls.crt", c->cert_pem, 0644, err);
	if (!rc)
		rc = write_file(dir, "ca.crt", c->ca_pem, 0644, err);
	return rc;
}

int webhook_generate_certs(const char *dir, const struct webhook_certs_opts *opts,
			   struct vc_error *err)
{
	struct webhook_certs c;
	int rc;

	rc = webhook_certs_make(opts, &c, err);
	if (rc)
		return rc;
	rc = webhook_certs_write(dir, &c, err);
	webhook_certs_release(&c);
	return rc;
}
