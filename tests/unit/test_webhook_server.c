/*
 * Unit tests for the vc-webhook daemon's parts: certificate generation (certs.c, checked back
 * with OpenSSL), the HTTPS server (server.c, driven with libcurl and raw sockets on 127.0.0.1
 * with a free port: real AdmissionReviews, the bad inputs a webhook must survive, certificate
 * and configuration reloads), and registration and cluster state (register.c, against a fake
 * API client: create, update, conflicts; the Queue informer behind the handlers).
 */
#include "vc_prelude.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <setjmp.h>
#include <cmocka.h>

#include "admission.h"
#include "certs.h"
#include "register.h"
#include "server.h"
#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_log.h"
#include "vc_metrics.h"
#include "vc_str.h"
#include "vc_time.h"

#include "support/client.h"

#define IO_TIMEOUT_MS 5000

/* ---------------------------------------------------------------------------------------------
 * Fixtures: two certificate sets made once (RSA key generation is the slow part).
 */

static struct webhook_certs set_a, set_b;

/* The server and the informer log from their threads; the tests check results, not lines. */
static void quiet(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	(void)line;
}

static int group_setup(void **state)
{
	struct webhook_certs_opts o = { .service = "volcano-admission-service",
					.namespace = "volcano-system" };
	struct vc_error err;

	(void)state;
	vc_log_set_sink(quiet, NULL);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (webhook_certs_make(&o, &set_a, &err) || webhook_certs_make(&o, &set_b, &err))
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	webhook_certs_release(&set_a);
	webhook_certs_release(&set_b);
	curl_global_cleanup();
	vc_log_set_sink(NULL, NULL);
	return 0;
}

/* A scratch folder, removed (one level deep) at the end of the test. */
static void make_tmpdir(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/vc-webhook-test.XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!lstat(path, &st) && S_ISDIR(st.st_mode))
			remove_tree(path);
		else
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[512], tmp[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	f = fopen(tmp, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(rename(tmp, path), 0);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = calloc(1, 1 << 16);
	size_t n;

	assert_non_null(f);
	assert_non_null(s);
	n = fread(s, 1, (1 << 16) - 1, f);
	s[n] = '\0';
	fclose(f);
	return s;
}

/* ---------------------------------------------------------------------------------------------
 * Certificates
 */

static X509 *parse_cert(const char *pem)
{
	BIO *bio = BIO_new_mem_buf(pem, -1);
	X509 *x = PEM_read_bio_X509(bio, NULL, NULL, NULL);

	BIO_free(bio);
	assert_non_null(x);
	return x;
}

/* The subject alternative names, as "DNS:a,IP:127.0.0.1,..." in certificate order. */
static void sans_of(X509 *x, char *out, size_t len)
{
	GENERAL_NAMES *names = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
	int i;

	out[0] = '\0';
	assert_non_null(names);
	for (i = 0; i < sk_GENERAL_NAME_num(names); i++) {
		const GENERAL_NAME *g = sk_GENERAL_NAME_value(names, i);
		size_t n = strlen(out);

		if (g->type == GEN_DNS) {
			snprintf(out + n, len - n, "%sDNS:%s", n ? "," : "",
				 (const char *)ASN1_STRING_get0_data(g->d.dNSName));
		} else if (g->type == GEN_IPADD) {
			const unsigned char *ip = ASN1_STRING_get0_data(g->d.iPAddress);

			assert_int_equal(ASN1_STRING_length(g->d.iPAddress), 4);
			snprintf(out + n, len - n, "%sIP:%u.%u.%u.%u", n ? "," : "", ip[0], ip[1],
				 ip[2], ip[3]);
		}
	}
	GENERAL_NAMES_free(names);
}

static void cn_of(const X509_NAME *name, char *out, size_t len)
{
	assert_true(X509_NAME_get_text_by_NID((X509_NAME *)name, NID_commonName, out, (int)len) >
		    0);
}

/* Verify leaf against the CA alone, at time t, for purpose sslserver. */
static int verify_at(X509 *ca, X509 *leaf, time_t t)
{
	X509_STORE *store = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	int ok;

	assert_int_equal(X509_STORE_add_cert(store, ca), 1);
	assert_int_equal(X509_STORE_CTX_init(ctx, store, leaf, NULL), 1);
	X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER);
	X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx), t);
	ok = X509_verify_cert(ctx);
	if (ok != 1)
		ok = -X509_STORE_CTX_get_error(ctx);
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	return ok;
}

static int64_t fixed_clock(void *ctx)
{
	(void)ctx;
	return INT64_C(1767225600) * 1000000000; /* 2026-01-01T00:00:00Z */
}

static time_t asn1_to_time(const ASN1_TIME *t)
{
	struct tm tm;

	assert_int_equal(ASN1_TIME_to_tm(t, &tm), 1);
	return timegm(&tm);
}

static void test_certs_make_and_parse_back(void **state)
{
	struct webhook_certs_opts o = { .service = "volcano-admission-service",
					.namespace = "volcano-system" };
	struct webhook_certs c;
	struct vc_error err;
	const time_t now = 1767225600;
	X509 *ca, *leaf;
	EVP_PKEY *key;
	BIO *bio;
	char text[1024];
	BASIC_CONSTRAINTS *bc;
	EXTENDED_KEY_USAGE *eku;

	(void)state;
	vc_time_set_source(fixed_clock, fixed_clock, NULL);
	vc_error_clear(&err);
	assert_int_equal(webhook_certs_make(&o, &c, &err), 0);
	vc_time_set_source(NULL, NULL, NULL);
	assert_non_null(strstr(c.ca_pem, "-----BEGIN CERTIFICATE-----"));
	assert_non_null(strstr(c.key_pem, "-----BEGIN PRIVATE KEY-----"));
	ca = parse_cert(c.ca_pem);
	leaf = parse_cert(c.cert_pem);

	/* The CA: self-signed, CA:TRUE, RSA 2048, 3650 days from the injected clock. */
	cn_of(X509_get_subject_name(ca), text, sizeof(text));
	assert_string_equal(text, "volcano-admission-service.volcano-system.svc-ca");
	assert_int_equal(X509_NAME_cmp(X509_get_subject_name(ca), X509_get_issuer_name(ca)), 0);
	bc = X509_get_ext_d2i(ca, NID_basic_constraints, NULL, NULL);
	assert_non_null(bc);
	assert_true(bc->ca);
	BASIC_CONSTRAINTS_free(bc);
	assert_int_equal(EVP_PKEY_get_bits(X509_get0_pubkey(ca)), 2048);
	assert_int_equal(EVP_PKEY_get_base_id(X509_get0_pubkey(ca)), EVP_PKEY_RSA);
	assert_true(X509_get_key_usage(ca) & KU_KEY_CERT_SIGN);
	assert_int_equal(asn1_to_time(X509_get0_notBefore(ca)), now - 3600);
	assert_int_equal(asn1_to_time(X509_get0_notAfter(ca)), now + 3650L * 86400);
	assert_int_equal(X509_verify(ca, X509_get0_pubkey(ca)), 1);

	/* The serving certificate: the Service names and loopback, signed by the CA. */
	cn_of(X509_get_subject_name(leaf), text, sizeof(text));
	assert_string_equal(text, "volcano-admission-service.volcano-system.svc");
	cn_of(X509_get_issuer_name(leaf), text, sizeof(text));
	assert_string_equal(text, "volcano-admission-service.volcano-system.svc-ca");
	sans_of(leaf, text, sizeof(text));
	assert_string_equal(text, "DNS:volcano-admission-service,"
				  "DNS:volcano-admission-service.volcano-system,"
				  "DNS:volcano-admission-service.volcano-system.svc,"
				  "DNS:volcano-admission-service.volcano-system.svc.cluster.local,"
				  "DNS:localhost,IP:127.0.0.1");
	bc = X509_get_ext_d2i(leaf, NID_basic_constraints, NULL, NULL);
	assert_non_null(bc);
	assert_false(bc->ca);
	BASIC_CONSTRAINTS_free(bc);
	assert_int_equal(X509_get_key_usage(leaf),
			 KU_DIGITAL_SIGNATURE | KU_NON_REPUDIATION | KU_KEY_ENCIPHERMENT);
	eku = X509_get_ext_d2i(leaf, NID_ext_key_usage, NULL, NULL);
	assert_non_null(eku);
	assert_int_equal(sk_ASN1_OBJECT_num(eku), 1);
	assert_int_equal(OBJ_obj2nid(sk_ASN1_OBJECT_value(eku, 0)), NID_server_auth);
	EXTENDED_KEY_USAGE_free(eku);
	assert_int_equal(EVP_PKEY_get_bits(X509_get0_pubkey(leaf)), 2048);
	assert_int_equal(asn1_to_time(X509_get0_notAfter(leaf)), now + 3650L * 86400);
	assert_int_not_equal(
		ASN1_INTEGER_cmp(X509_get0_serialNumber(ca), X509_get0_serialNumber(leaf)), 0);
	assert_int_equal(verify_at(ca, leaf, now), 1);
	assert_int_equal(
		X509_check_host(leaf, "volcano-admission-service.volcano-system.svc", 0, 0, NULL),
		1);
	assert_int_equal(X509_check_ip_asc(leaf, "127.0.0.1", 0), 1);
	assert_int_equal(X509_check_host(leaf, "other.volcano-system.svc", 0, 0, NULL), 0);
	/* Outside the validity window the chain does not verify. */
	assert_int_equal(verify_at(ca, leaf, now + 3651L * 86400), -X509_V_ERR_CERT_HAS_EXPIRED);
	/* Against another CA it does not either. */
	{
		X509 *other = parse_cert(set_a.ca_pem);

		assert_true(verify_at(other, leaf, now) < 0);
		X509_free(other);
	}

	/* The key is the certificate's. */
	bio = BIO_new_mem_buf(c.key_pem, -1);
	key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
	BIO_free(bio);
	assert_non_null(key);
	assert_int_equal(X509_check_private_key(leaf, key), 1);
	assert_int_equal(X509_check_private_key(ca, key), 0);
	EVP_PKEY_free(key);
	X509_free(ca);
	X509_free(leaf);
	webhook_certs_release(&c);
	assert_null(c.ca_pem);
}

static void test_certs_without_service_and_errors(void **state)
{
	struct webhook_certs_opts o = { 0 };
	struct webhook_certs c;
	struct vc_error err;
	char text[512];
	X509 *leaf, *ca;

	(void)state;
	o.cert_days = 1;
	assert_int_equal(webhook_certs_make(&o, &c, &err), 0);
	leaf = parse_cert(c.cert_pem);
	ca = parse_cert(c.ca_pem);
	sans_of(leaf, text, sizeof(text));
	assert_string_equal(text, "DNS:localhost,IP:127.0.0.1");
	cn_of(X509_get_subject_name(leaf), text, sizeof(text));
	assert_string_equal(text, "localhost");
	cn_of(X509_get_subject_name(ca), text, sizeof(text));
	assert_string_equal(text, "vc-webhook-ca");
	assert_int_equal(asn1_to_time(X509_get0_notAfter(leaf)) -
				 asn1_to_time(X509_get0_notBefore(leaf)),
			 86400 + 3600);
	X509_free(leaf);
	X509_free(ca);
	webhook_certs_release(&c);

	/* A service without a namespace lives in "default", as in Volcano's script. */
	o.service = "hook";
	assert_int_equal(webhook_certs_make(&o, &c, &err), 0);
	leaf = parse_cert(c.cert_pem);
	sans_of(leaf, text, sizeof(text));
	assert_string_equal(text, "DNS:hook,DNS:hook.default,DNS:hook.default.svc,"
				  "DNS:hook.default.svc.cluster.local,DNS:localhost,IP:127.0.0.1");
	X509_free(leaf);
	webhook_certs_release(&c);

	o.service = "Bad_Name";
	assert_int_equal(webhook_certs_make(&o, &c, &err), VC_EINVAL);
	assert_string_equal(err.text,
			    "invalid service name 'Bad_Name': a DNS-1035 label must consist of "
			    "lower case alphanumeric characters or '-', start with an alphabetic "
			    "character, and end with an alphanumeric character (e.g. 'my-name',  "
			    "or 'abc-123', regex used for validation is "
			    "'[a-z]([-a-z0-9]*[a-z0-9])?')");
	assert_null(c.ca_pem);
	o.service = "hook";
	o.namespace = "a.b";
	assert_int_equal(webhook_certs_make(&o, &c, &err), VC_EINVAL);
	assert_string_equal(err.text, "invalid namespace 'a.b': must not contain dots");
	o.namespace = NULL;
	o.ca_days = -1;
	assert_int_equal(webhook_certs_make(&o, &c, &err), VC_EINVAL);
	assert_string_equal(err.text, "invalid validity: -1 and 1 days");
	assert_int_equal(webhook_certs_make(&o, NULL, &err), VC_EINVAL);
}

static void test_certs_write(void **state)
{
	char dir[64], sub[128], path[256];
	struct vc_error err;
	struct stat st;
	char *s;

	(void)state;
	make_tmpdir(dir, sizeof(dir));
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	assert_int_equal(webhook_certs_write(sub, &set_a, &err), 0);
	snprintf(path, sizeof(path), "%s/tls.key", sub);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	s = read_text(path);
	assert_string_equal(s, set_a.key_pem);
	free(s);
	snprintf(path, sizeof(path), "%s/tls.crt", sub);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	s = read_text(path);
	assert_string_equal(s, set_a.cert_pem);
	free(s);
	snprintf(path, sizeof(path), "%s/ca.crt", sub);
	s = read_text(path);
	assert_string_equal(s, set_a.ca_pem);
	free(s);
	/* Written again over the old files: replaced, and no temporary file is left. */
	assert_int_equal(webhook_certs_write(sub, &set_b, &err), 0);
	s = read_text(path);
	assert_string_equal(s, set_b.ca_pem);
	free(s);
	{
		DIR *d = opendir(sub);
		struct dirent *e;
		int n = 0;

		assert_non_null(d);
		while ((e = readdir(d)))
			n += e->d_name[0] != '.';
		closedir(d);
		assert_int_equal(n, 3);
	}
	/* A folder that cannot be made. */
	snprintf(path, sizeof(path), "%s/tls.crt/x", sub);
	assert_int_equal(webhook_certs_write(path, &set_a, &err), -ENOTDIR);
	{
		char want[512];

		snprintf(want, sizeof(want), "cannot create '%s': Not a directory", path);
		assert_string_equal(err.text, want);
	}
	assert_int_equal(webhook_certs_write(NULL, &set_a, &err), VC_EINVAL);
	assert_string_equal(err.text, "nothing to write");

	/* make + write in one call, as --generate-certs does. */
	snprintf(sub, sizeof(sub), "%s/gen", dir);
	assert_int_equal(webhook_generate_certs(sub, NULL, &err), 0);
	snprintf(path, sizeof(path), "%s/tls.crt", sub);
	assert_int_equal(stat(path, &st), 0);
	remove_tree(dir);
}

static void test_certs_alloc_failure(void **state)
{
	struct webhook_certs_opts o = { .service = "hook", .namespace = "ns" };
	struct webhook_certs c;
	struct vc_error err;
	long n;
	int rc;

	(void)state;
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = webhook_certs_make(&o, &c, &err);
		vc_alloc_fail_reset();
		if (!rc)
			break;
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(c.ca_pem);
		assert_true(n < 100);
	}
	assert_true(n >= 6);
	webhook_certs_release(&c);
}

/* ---------------------------------------------------------------------------------------------
 * Flag parsing helpers
 */

static void test_parse_paths(void **state)
{
	const char *out[16];
	struct vc_error err;
	int skipped = -1;

	(void)state;
	assert_int_equal(webhook_parse_paths("/jobs/mutate,/jobs/validate,/podgroups/mutate,"
					     "/pods/validate,/pods/mutate,/queues/mutate,"
					     "/queues/validate",
					     out, 16, &skipped, &err),
			 0);
	assert_string_equal(out[0], "/jobs/mutate");
	assert_string_equal(out[3], "/pods/validate");
	assert_string_equal(out[6], "/queues/validate");
	assert_null(out[7]);
	assert_int_equal(skipped, 0);
	/* The Helm chart's list: Volcano-only paths skipped; blanks and empty entries too. */
	assert_int_equal(webhook_parse_paths(" /jobs/mutate , ,/jobs/validate,/podgroups/validate,"
					     "/queues/mutate,/queues/validate,/hypernodes/validate,"
					     "/cronjobs/validate,/jobs/mutate,",
					     out, 16, &skipped, &err),
			 0);
	assert_string_equal(out[0], "/jobs/mutate");
	assert_string_equal(out[1], "/jobs/validate");
	assert_string_equal(out[2], "/podgroups/validate");
	assert_string_equal(out[4], "/queues/validate");
	assert_null(out[5]);
	assert_int_equal(skipped, 2);
	assert_int_equal(webhook_parse_paths("", out, 16, NULL, &err), 0);
	assert_null(out[0]);
	assert_int_equal(webhook_parse_paths("/jobs/mutate,/jobs/nope", out, 16, NULL, &err),
			 VC_EINVAL);
	assert_string_equal(
		err.text, "enabled admission /jobs/nope not found on the admission registered map");
	assert_null(out[0]);
	assert_int_equal(webhook_parse_paths("/jobs/mutate,/jobs/validate", out, 2, NULL, &err),
			 VC_E2BIG);
}

static void test_parse_hostport(void **state)
{
	struct vc_error err;
	char host[64];
	uint16_t port;

	(void)state;
	assert_int_equal(webhook_parse_hostport(":11251", host, sizeof(host), &port, &err), 0);
	assert_string_equal(host, "");
	assert_int_equal(port, 11251);
	assert_int_equal(webhook_parse_hostport("127.0.0.1:8080", host, sizeof(host), &port, &err),
			 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(port, 8080);
	assert_int_equal(webhook_parse_hostport("[::1]:443", host, sizeof(host), &port, &err), 0);
	assert_string_equal(host, "::1");
	assert_int_equal(port, 443);
	assert_int_equal(webhook_parse_hostport("11251", host, sizeof(host), &port, &err),
			 VC_EINVAL);
	assert_string_equal(err.text, "invalid address '11251': missing port in address");
	assert_int_equal(webhook_parse_hostport("::1:80", host, sizeof(host), &port, &err),
			 VC_EINVAL);
	assert_string_equal(err.text, "invalid address '::1:80': too many colons in address");
	assert_int_equal(webhook_parse_hostport(":99999", host, sizeof(host), &port, &err),
			 VC_EINVAL);
	assert_string_equal(err.text, "invalid address ':99999': invalid port");
	assert_int_equal(webhook_parse_hostport("host:", host, sizeof(host), &port, &err),
			 VC_EINVAL);
	assert_int_equal(webhook_parse_hostport("[::1:80", host, sizeof(host), &port, &err),
			 VC_EINVAL);
	assert_string_equal(err.text, "invalid address '[::1:80': missing ']' in address");
	assert_int_equal(webhook_parse_hostport("abcdefgh:1", host, 4, &port, &err), VC_E2BIG);
}

/* ---------------------------------------------------------------------------------------------
 * A fake API client: Queues to list, objects to get, create and update.
 */

struct fake_kube {
	pthread_mutex_t lock;
	json_t *queues;	 /* array of Queue objects */
	json_t *objects; /* "<resource>/<name>" -> object */
	int rv;
	int conflicts;	  /* updates to refuse with 409 before accepting */
	int create_races; /* creates to refuse with AlreadyExists */
	int fail_code;	  /* when set, every write fails with it */
	bool forbid_ns;	  /* a list of Namespaces fails with 403, as under Volcano's RBAC */
	int gets, creates, updates, lists;
};

static void fake_init(struct fake_kube *f)
{
	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->lock, NULL);
	f->queues = json_array();
	f->objects = json_object();
	assert_non_null(f->queues);
	assert_non_null(f->objects);
}

static void fake_release(struct fake_kube *f)
{
	json_decref(f->queues);
	json_decref(f->objects);
	pthread_mutex_destroy(&f->lock);
}

static void fake_add_queue(struct fake_kube *f, const char *name, const char *parent,
			   const char *state)
{
	json_t *q = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:i}, s:{s:s}}", "apiVersion",
			      "scheduling.volcano.sh/v1beta1", "kind", "Queue", "metadata", "name",
			      name, "resourceVersion", "5", "spec", "weight", 1, "status", "state",
			      state);

	assert_non_null(q);
	if (parent)
		assert_int_equal(json_object_set_new(json_object_get(q, "spec"), "parent",
						     json_string(parent)),
				 0);
	assert_int_equal(json_array_append_new(f->queues, q), 0);
}

static char *fake_key(const struct vc_gvr *r, const char *name)
{
	return vc_asprintf("%s/%s", r->resource, name ? name : "");
}

static int fake_get(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		    const char *sub, json_t **out, struct vc_error *err)
{
	struct fake_kube *f = ctx;
	char *key = fake_key(r, name);
	json_t *o;
	int rc = 0;

	(void)ns;
	(void)sub;
	if (!key)
		return VC_ENOMEM;
	pthread_mutex_lock(&f->lock);
	f->gets++;
	o = json_object_get(f->objects, key);
	if (!o) {
		rc = vc_error_set(err, VC_ENOTFOUND, "%s \"%s\" not found", r->resource, name);
	} else if (out) {
		*out = json_deep_copy(o);
		if (!*out)
			rc = VC_ENOMEM;
	}
	pthread_mutex_unlock(&f->lock);
	vc_free(key);
	return rc;
}

static int fake_list(void *ctx, const struct vc_gvr *r, const char *ns,
		     const struct vc_list_opts *opts, json_t **out, struct vc_error *err)
{
	struct fake_kube *f = ctx;

	const char *key;
	json_t *obj, *items;

	(void)ns;
	(void)opts;
	if (strcmp(r->resource, "namespaces") == 0) {
		/* The Namespaces stored under "namespaces/<name>". */
		pthread_mutex_lock(&f->lock);
		f->lists++;
		if (f->forbid_ns) {
			pthread_mutex_unlock(&f->lock);
			return vc_error_set(
				err, VC_EFORBIDDEN,
				"namespaces is forbidden: User "
				"\"system:serviceaccount:volcano-system:volcano-admission\" "
				"cannot list resource \"namespaces\" in API group \"\" at the "
				"cluster scope");
		}
		items = json_array();
		json_object_foreach (f->objects, key, obj)
			if (items && strncmp(key, "namespaces/", 11) == 0 &&
			    json_array_append(items, obj)) {
				json_decref(items);
				items = NULL;
			}
		*out = items ? json_pack("{s:s, s:{s:s}, s:o}", "kind", "NamespaceList", "metadata",
					 "resourceVersion", "10", "items", items)
			     : NULL;
		pthread_mutex_unlock(&f->lock);
		return *out ? 0 : VC_ENOMEM;
	}
	if (strcmp(r->resource, "queues") != 0)
		return vc_error_set(err, VC_EINVAL, "unexpected list");
	pthread_mutex_lock(&f->lock);
	f->lists++;
	*out = json_pack("{s:s, s:{s:s}, s:O}", "kind", "QueueList", "metadata", "resourceVersion",
			 "10", "items", f->queues);
	pthread_mutex_unlock(&f->lock);
	return *out ? 0 : VC_ENOMEM;
}

/* Store a copy of obj under key with a new resourceVersion. */
static int fake_store(struct fake_kube *f, const char *key, const json_t *obj)
{
	json_t *copy = json_deep_copy(obj);
	char rv[16];

	if (!copy)
		return VC_ENOMEM;
	snprintf(rv, sizeof(rv), "%d", ++f->rv);
	if (vc_json_set_path_new(copy, "metadata.resourceVersion", json_string(rv))) {
		json_decref(copy);
		return VC_ENOMEM;
	}
	return json_object_set_new(f->objects, key, copy) ? VC_ENOMEM : 0;
}

static int fake_create(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		       const char *sub, const json_t *obj, json_t **out, struct vc_error *err)
{
	struct fake_kube *f = ctx;
	const char *n = vc_json_get_str(vc_json_get_obj(obj, "metadata"), "name");
	char *key = fake_key(r, n);
	int rc;

	(void)ns;
	(void)name;
	(void)sub;
	(void)out;
	if (!key)
		return VC_ENOMEM;
	pthread_mutex_lock(&f->lock);
	f->creates++;
	if (f->fail_code)
		rc = vc_error_set(err, f->fail_code, "injected failure");
	else if (f->create_races > 0 && f->create_races--)
		rc = vc_error_set(err, VC_EALREADYEXISTS, "already exists");
	else if (json_object_get(f->objects, key))
		rc = vc_error_set(err, VC_EALREADYEXISTS, "already exists");
	else
		rc = fake_store(f, key, obj);
	pthread_mutex_unlock(&f->lock);
	vc_free(key);
	return rc;
}

static int fake_update(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		       const char *sub, const json_t *obj, json_t **out, struct vc_error *err)
{
	struct fake_kube *f = ctx;
	char *key = fake_key(r, name);
	const json_t *cur;
	int rc;

	(void)ns;
	(void)sub;
	(void)out;
	if (!key)
		return VC_ENOMEM;
	pthread_mutex_lock(&f->lock);
	f->updates++;
	cur = json_object_get(f->objects, key);
	if (f->fail_code)
		rc = vc_error_set(err, f->fail_code, "injected failure");
	else if (!cur)
		rc = vc_error_set(err, VC_ENOTFOUND, "not found");
	else if (f->conflicts > 0 && f->conflicts--)
		rc = vc_error_set(err, VC_ECONFLICT, "the object has been modified");
	else if (!vc_str_eq(vc_json_get_str(vc_json_get_obj(obj, "metadata"), "resourceVersion"),
			    vc_json_get_str(vc_json_get_obj(cur, "metadata"), "resourceVersion")))
		rc = vc_error_set(err, VC_ECONFLICT, "stale resourceVersion");
	else
		rc = fake_store(f, key, obj);
	pthread_mutex_unlock(&f->lock);
	vc_free(key);
	return rc;
}

static int fake_watch(void *ctx, const struct vc_gvr *r, const char *ns,
		      const struct vc_watch_opts *opts, vc_watch_fn fn, void *fn_ctx,
		      const volatile int *stop, struct vc_error *err)
{
	(void)ctx;
	(void)r;
	(void)ns;
	(void)opts;
	(void)fn;
	(void)fn_ctx;
	while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
		struct timespec ts = { 0, 5 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	return vc_error_set(err, VC_ESHUTDOWN, "stopped");
}

static const struct vc_kube_ops fake_ops = {
	.get = fake_get,
	.list = fake_list,
	.create = fake_create,
	.update = fake_update,
	.watch = fake_watch,
};

/* ---------------------------------------------------------------------------------------------
 * HTTPS client
 */

/*
 * METHOD https://host:port/path trusting only ca_pem (host resolved to 127.0.0.1), with
 * Content-Type ctype when not NULL. Returns the curl code; status and body filled.
 */
static CURLcode https_req(const char *host, uint16_t port, const char *method, const char *path,
			  const char *ca_pem, const char *ctype, const char *body, size_t len,
			  long *status, struct tbuf *out)
{
	struct curl_blob ca = { .data = (void *)ca_pem,
				.len = strlen(ca_pem),
				.flags = CURL_BLOB_COPY };
	struct curl_slist *hdrs = NULL, *resolve = NULL;
	char url[256], line[256];
	CURL *c = curl_easy_init();
	CURLcode rc;

	assert_non_null(c);
	snprintf(url, sizeof(url), "https://%s:%u%s", host, (unsigned)port, path);
	snprintf(line, sizeof(line), "%s:%u:127.0.0.1", host, (unsigned)port);
	resolve = curl_slist_append(resolve, line);
	if (ctype) {
		snprintf(line, sizeof(line), "Content-Type: %s", ctype);
		hdrs = curl_slist_append(hdrs, line);
	} else {
		hdrs = curl_slist_append(hdrs, "Content-Type:");
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_RESOLVE, resolve);
	curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
	curl_easy_setopt(c, CURLOPT_CAPATH, NULL);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, curl_sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)IO_TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	rc = curl_easy_perform(c);
	*status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	curl_easy_cleanup(c);
	curl_slist_free_all(hdrs);
	curl_slist_free_all(resolve);
	return rc;
}

/* POST body as application/json to path; expects a transfer that works. */
static long post(uint16_t port, const char *ca, const char *path, const char *body,
		 struct tbuf *out)
{
	long status;

	tbuf_init(out);
	assert_int_equal(https_req("127.0.0.1", port, "POST", path, ca, "application/json", body,
				   strlen(body), &status, out),
			 CURLE_OK);
	return status;
}

static void expect_get(uint16_t port, const char *ca, const char *path, long want_status,
		       const char *want_body)
{
	struct tbuf out;
	long status;

	tbuf_init(&out);
	assert_int_equal(
		https_req("127.0.0.1", port, "GET", path, ca, NULL, NULL, 0, &status, &out),
		CURLE_OK);
	assert_int_equal(status, want_status);
	if (want_body)
		assert_string_equal(out.data, want_body);
	free(out.data);
}

/* ---------------------------------------------------------------------------------------------
 * Raw sockets
 */

/* Send bytes, read until the server closes; true when it closed within the timeout. */
static bool send_and_drain(uint16_t port, const void *data, size_t len, struct tbuf *out)
{
	int fd = connect_to(port);
	char chunk[4096];
	bool closed = false;

	tbuf_init(out);
	(void)send(fd, data, len, MSG_NOSIGNAL);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, IO_TIMEOUT_MS) <= 0)
			break;
		n = recv(fd, chunk, sizeof(chunk), 0);
		if (n <= 0) {
			closed = true;
			break;
		}
		tbuf_add(out, chunk, (size_t)n);
	}
	close(fd);
	return closed;
}

/* ---------------------------------------------------------------------------------------------
 * The server
 */

static const char job_review_fmt[] =
	"{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
	"\"uid\":\"%s\",\"kind\":{\"group\":\"batch.volcano.sh\",\"version\":\"v1alpha1\","
	"\"kind\":\"Job\"},\"resource\":{\"group\":\"batch.volcano.sh\",\"version\":\"v1alpha1\","
	"\"resource\":\"jobs\"},\"name\":\"job1\",\"namespace\":\"default\",\"operation\":"
	"\"CREATE\",\"object\":{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
	"\"metadata\":{\"name\":\"job1\",\"namespace\":\"default\"},\"spec\":{\"minAvailable\":1,"
	"\"schedulerName\":\"volcano\",\"queue\":\"%s\",\"maxRetry\":3,\"tasks\":[%s]}}}}";

static const char task_fmt[] =
	"{\"name\":\"%s\",\"replicas\":1,\"minAvailable\":1,\"template\":{\"spec\":{"
	"\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}],\"restartPolicy\":\"Never\"}}}";

/* A Job review with the given uid, queue and task names (comma-separated). */
static char *job_review(const char *uid, const char *queue, const char *tasks)
{
	char buf[8192] = "", name[64];
	const char *p = tasks;

	while (*p) {
		size_t n = strcspn(p, ",");
		size_t used = strlen(buf);

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		snprintf(buf + used, sizeof(buf) - used, "%s", used ? "," : "");
		used = strlen(buf);
		snprintf(buf + used, sizeof(buf) - used, task_fmt, name);
		p += n + (p[n] == ',');
	}
	return vc_asprintf(job_review_fmt, uid, queue, buf);
}

/* The "response" member of an answer. */
static json_t *response_of(const char *text)
{
	json_t *doc = json_loads(text, 0, NULL), *resp;

	assert_non_null(doc);
	assert_string_equal(vc_json_get_str(doc, "apiVersion"), "admission.k8s.io/v1");
	assert_string_equal(vc_json_get_str(doc, "kind"), "AdmissionReview");
	resp = json_incref(json_object_get(doc, "response"));
	json_decref(doc);
	assert_non_null(resp);
	return resp;
}

struct served {
	char dir[64];
	struct fake_kube kube;
	struct vc_kube *client;
	struct webhook_cluster *cluster;
	struct admission_state state;
	struct admission_config config;
	struct webhook_server *srv;
	uint16_t port;
	/* What on_ca_change saw. */
	pthread_mutex_t ca_lock;
	char *ca_seen;
	int ca_calls;
};

static const char *const sched_names[] = { "volcano", NULL };

static void on_ca(void *ctx, const char *pem)
{
	struct served *s = ctx;

	pthread_mutex_lock(&s->ca_lock);
	free(s->ca_seen);
	s->ca_seen = strdup(pem);
	s->ca_calls++;
	pthread_mutex_unlock(&s->ca_lock);
}

/* Certificates A in a scratch folder, a cluster of Queues, a server on a free port. */
static void serve(struct served *s, struct webhook_server_opts *o)
{
	struct vc_error err;
	char cert[128], key[128], ca[128];

	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->ca_lock, NULL);
	make_tmpdir(s->dir, sizeof(s->dir));
	assert_int_equal(webhook_certs_write(s->dir, &set_a, &err), 0);
	fake_init(&s->kube);
	fake_add_queue(&s->kube, "default", NULL, "Open");
	fake_add_queue(&s->kube, "closed", NULL, "Closed");
	fake_add_queue(&s->kube, "root", NULL, "Open");
	fake_add_queue(&s->kube, "parent", "root", "Open");
	fake_add_queue(&s->kube, "kid2", "parent", "Open");
	fake_add_queue(&s->kube, "kid1", "parent", "Open");
	s->client = vc_kube_new_with_ops(&fake_ops, &s->kube);
	assert_non_null(s->client);
	assert_int_equal(webhook_cluster_new(s->client, &s->cluster, &err), 0);
	assert_int_equal(webhook_cluster_start(s->cluster, true, &err), 0);
	assert_int_equal(webhook_cluster_wait_synced(s->cluster, 5 * INT64_C(1000000000)), 0);
	webhook_cluster_state(s->cluster, &s->state);
	admission_config_init(&s->config);
	s->config.scheduler_names = sched_names;
	snprintf(cert, sizeof(cert), "%s/tls.crt", s->dir);
	snprintf(key, sizeof(key), "%s/tls.key", s->dir);
	snprintf(ca, sizeof(ca), "%s/ca.crt", s->dir);
	o->address = "127.0.0.1";
	o->cert_file = cert;
	o->key_file = key;
	o->ca_file = ca;
	o->config = &s->config;
	o->state = &s->state;
	o->on_ca_change = on_ca;
	o->ca_ctx = s;
	vc_error_clear(&err);
	assert_int_equal(webhook_server_new(o, &s->srv, &err), 0);
	assert_int_equal(webhook_server_port(s->srv), 0);
	assert_int_equal(webhook_server_start(s->srv, &err), 0);
	s->port = webhook_server_port(s->srv);
	assert_true(s->port > 0);
}

static void unserve(struct served *s)
{
	webhook_server_free(s->srv);
	webhook_cluster_free(s->cluster);
	vc_kube_free(s->client);
	fake_release(&s->kube);
	remove_tree(s->dir);
	free(s->ca_seen);
	pthread_mutex_destroy(&s->ca_lock);
}

/* The value of one sample line of the metrics text, or -1 when absent. */
static double metric(struct webhook_server *srv, const char *sample)
{
	struct vc_buf b;
	const char *p;
	double v = -1;

	vc_buf_init(&b, 1 << 20);
	assert_int_equal(vc_metrics_render(webhook_server_metrics(srv), &b), 0);
	p = strstr(vc_buf_str(&b), sample);
	if (p && (p == b.data || p[-1] == '\n') && p[strlen(sample)] == ' ')
		v = strtod(p + strlen(sample) + 1, NULL);
	vc_buf_release(&b);
	return v;
}

static void test_server_reviews_over_https(void **state)
{
	struct webhook_server_opts o = { 0 };
	struct served s;
	struct tbuf out;
	json_t *resp;
	char *body;
	long status;

	(void)state;
	serve(&s, &o);

	/* A valid Job: allowed, the uid echoed. */
	body = job_review("uid-1", "default", "a,b");
	assert_int_equal(post(s.port, set_a.ca_pem, "/jobs/validate", body, &out), 200);
	resp = response_of(out.data);
	assert_string_equal(vc_json_get_str(resp, "uid"), "uid-1");
	assert_true(json_is_true(json_object_get(resp, "allowed")));
	assert_null(json_object_get(resp, "status"));
	json_decref(resp);
	free(out.data);

	/* The Service's DNS name verifies against the CA too (SNI and SAN). */
	tbuf_init(&out);
	assert_int_equal(https_req("volcano-admission-service.volcano-system.svc", s.port, "POST",
				   "/jobs/validate", set_a.ca_pem, "application/json", body,
				   strlen(body), &status, &out),
			 CURLE_OK);
	assert_int_equal(status, 200);
	free(out.data);
	vc_free(body);

	/* Duplicate task names: Volcano's message. */
	body = job_review("uid-2", "default", "a,a");
	assert_int_equal(post(s.port, set_a.ca_pem, "/jobs/validate", body, &out), 200);
	resp = response_of(out.data);
	assert_string_equal(vc_json_get_str(resp, "uid"), "uid-2");
	assert_true(json_is_false(json_object_get(resp, "allowed")));
	assert_string_equal(vc_json_get_str(vc_json_get_obj(resp, "status"), "message"),
			    "duplicated task name a;");
	json_decref(resp);
	free(out.data);
	vc_free(body);

	/* The Queue state comes from the informer: a closed queue and a queue with children. */
	body = job_review("uid-3", "closed", "a");
	assert_int_equal(post(s.port, set_a.ca_pem, "/jobs/validate", body, &out), 200);
	resp = response_of(out.data);
	assert_string_equal(vc_json_get_str(vc_json_get_obj(resp, "status"), "message"),
			    "can only submit job to queue with state `Open`, queue `closed` "
			    "status is `Closed`;");
	json_decref(resp);
	free(out.data);
	vc_free(body);
	body = job_review("uid-4", "parent", "a");
	assert_int_equal(post(s.port, set_a.ca_pem, "/jobs/validate", body, &out), 200);
	resp = response_of(out.data);
	assert_string_equal(
		vc_json_get_str(vc_json_get_obj(resp, "status"), "message"),
		"can only submit job to leaf queue, queue `parent` has 2 child queues;");
	json_decref(resp);
	free(out.data);
	vc_free(body);
	body = job_review("uid-5", "nowhere", "a");
	assert_int_equal(post(s.port, set_a.ca_pem, "/jobs/validate", body, &out), 200);
	resp = response_of(out.data);
	assert_string_equal(vc_json_get_str(vc_json_get_obj(resp, "status"), "message"),
			    "unable to find job queue: queue.scheduling.volcano.sh \"nowhere\" not "
			    "found;");
	json_decref(resp);
	free(out.data);
	vc_free(body);

	/* /jobs/mutate: a JSONPatch, base64. */
	body = job_review("uid-6", "default", "a");
	assert_int_equal(post(s.port, set_a.ca_pem, "/jobs/mutate", body, &out), 200);
	resp = response_of(out.data);
	assert_true(json_is_true(json_object_get(resp, "allowed")));
	assert_string_equal(vc_json_get_str(resp, "patchType"), "JSONPatch");
	assert_non_null(vc_json_get_str(resp, "patch"));
	json_decref(resp);
	free(out.data);

	/* Any method reaches the path, as in Go's mux. */
	tbuf_init(&out);
	assert_int_equal(https_req("127.0.0.1", s.port, "PUT", "/jobs/mutate", set_a.ca_pem,
				   "application/json", body, strlen(body), &status, &out),
			 CURLE_OK);
	assert_int_equal(status, 200);
	free(out.data);
	vc_free(body);

	/* Queue DELETE of default, through /queues/validate. */
	assert_int_equal(post(s.port, set_a.ca_pem, "/queues/validate",
			      "{\"request\":{\"uid\":\"q1\",\"resource\":{\"group\":"
			      "\"scheduling.volcano.sh\",\"version\":\"v1beta1\",\"resource\":"
			      "\"queues\"},\"operation\":\"DELETE\",\"name\":\"default\"}}",
			      &out),
			 200);
	resp = response_of(out.data);
	assert_string_equal(vc_json_get_str(vc_json_get_obj(resp, "status"), "message"),
			    "`default` queue can not be deleted");
	json_decref(resp);
	free(out.data);

	/* Health and metrics on the same listener. */
	expect_get(s.port, set_a.ca_pem, "/healthz", 200, "ok");
	assert_true(metric(s.srv,
			   "vc_webhook_requests_total{path=\"/jobs/validate\",code=\"200\"}") == 6);
	assert_true(metric(s.srv, "vc_webhook_denials_total{path=\"/jobs/validate\"}") == 4);
	assert_true(metric(s.srv,
			   "vc_webhook_requests_total{path=\"/jobs/mutate\",code=\"200\"}") == 2);
	assert_true(metric(s.srv, "vc_webhook_denials_total{path=\"/jobs/mutate\"}") == -1);
	assert_true(metric(s.srv, "vc_webhook_denials_total{path=\"/queues/validate\"}") == 1);
	assert_true(metric(s.srv, "vc_webhook_request_duration_seconds_count{path=\"/jobs/"
				  "validate\"}") == 6);
	tbuf_init(&out);
	assert_int_equal(https_req("127.0.0.1", s.port, "GET", "/metrics", set_a.ca_pem, NULL, NULL,
				   0, &status, &out),
			 CURLE_OK);
	assert_int_equal(status, 200);
	assert_non_null(strstr(out.data, "# TYPE vc_webhook_request_duration_seconds histogram\n"));
	assert_non_null(strstr(out.data, "vc_webhook_request_duration_seconds_bucket{path=\"/jobs/"
					 "mutate\",le=\"+Inf\"} 2\n"));
	free(out.data);
	unserve(&s);
}

static void test_server_bad_inputs(void **state)
{
	static const char *const jobs_only[] = { "/jobs/mutate", "/jobs/validate", NULL };
	struct webhook_server_opts o = { 0 };
	struct served s;
	struct tbuf out;
	char *big, *body;
	unsigned char junk[4096];
	long status;
	size_t i;
	int slow, slow2;

	(void)state;
	o.paths = jobs_only;
	o.threads = 2;
	serve(&s, &o);

	/* Malformed JSON: 400 with the parser's position. */
	assert_int_equal(post(s.port, set_a.ca_pem, "/jobs/validate", "{\"request\": {", &out),
			 400);
	assert_true(strncmp(out.data, "cannot decode AdmissionReview: ", 31) == 0);
	assert_true(out.len > 0 && out.data[out.len - 1] == '\n');
	free(out.data);
	/* No request: 400. */
	assert_int_equal(
		post(s.port, set_a.ca_pem, "/jobs/validate",
		     "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}", &out),
		400);
	free(out.data);
	assert_int_equal(post(s.port, set_a.ca_pem, "/jobs/validate", "[1,2]", &out), 400);
	free(out.data);
	/* Wrong or missing content type: 415. */
	body = job_review("uid-ct", "default", "a");
	tbuf_init(&out);
	assert_int_equal(https_req("127.0.0.1", s.port, "POST", "/jobs/validate", set_a.ca_pem,
				   "application/json; charset=utf-8", body, strlen(body), &status,
				   &out),
			 CURLE_OK);
	assert_int_equal(status, 415);
	assert_string_equal(out.data, "unsupported content type 'application/json; charset=utf-8': "
				      "expect application/json\n");
	free(out.data);
	tbuf_init(&out);
	assert_int_equal(https_req("127.0.0.1", s.port, "POST", "/jobs/validate", set_a.ca_pem,
				   NULL, body, strlen(body), &status, &out),
			 CURLE_OK);
	assert_int_equal(status, 415);
	free(out.data);
	/* Over 3 MiB: 413. */
	big = malloc(WEBHOOK_BODY_MAX + 2);
	assert_non_null(big);
	memset(big, ' ', WEBHOOK_BODY_MAX + 1);
	big[0] = '{';
	big[WEBHOOK_BODY_MAX] = '}';
	big[WEBHOOK_BODY_MAX + 1] = '\0';
	tbuf_init(&out);
	assert_int_equal(https_req("127.0.0.1", s.port, "POST", "/jobs/validate", set_a.ca_pem,
				   "application/json", big, WEBHOOK_BODY_MAX + 1, &status, &out),
			 CURLE_OK);
	assert_int_equal(status, 413);
	assert_string_equal(out.data, "request body too large\n");
	free(out.data);
	free(big);
	/* A path that is not enabled, and one that does not exist: Go's 404. */
	assert_int_equal(post(s.port, set_a.ca_pem, "/pods/mutate", body, &out), 404);
	assert_string_equal(out.data, "404 page not found\n");
	free(out.data);
	assert_int_equal(post(s.port, set_a.ca_pem, "/jobs", body, &out), 404);
	free(out.data);

	/* Plain HTTP on the TLS port: no HTTP answer, the connection is closed. */
	{
		static const char req[] = "POST /jobs/validate HTTP/1.1\r\nHost: x\r\n"
					  "Content-Type: application/json\r\nContent-Length: 2\r\n"
					  "\r\n{}";

		assert_true(send_and_drain(s.port, req, sizeof(req) - 1, &out));
		assert_null(strstr(out.data, "HTTP/1."));
		free(out.data);
	}
	/*
	 * TLS garbage: random bytes (starting below 0x80: a first byte with the high bit set is
	 * the length of an SSLv2-style hello, which the server waits for like a slow client), and
	 * a record header with nonsense after it.
	 */
	srand(42);
	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)rand();
	junk[0] = 'B';
	assert_true(send_and_drain(s.port, junk, sizeof(junk), &out));
	free(out.data);
	/* A handshake record as long as what is sent, holding a ClientHello that is nonsense. */
	memcpy(junk, "\x16\x03\x01\x0f\xfb\x01\x00\x0f\xf7", 9);
	assert_true(send_and_drain(s.port, junk, sizeof(junk), &out));
	free(out.data);

	/* Slow clients holding half a handshake, or half an SSLv2 hello, do not stop others. */
	slow = connect_to(s.port);
	assert_int_equal(send(slow, "\x16\x03\x01", 3, MSG_NOSIGNAL), 3);
	slow2 = connect_to(s.port);
	junk[0] = 0xff;
	assert_int_equal(send(slow2, junk, 1000, MSG_NOSIGNAL), 1000);
	assert_int_equal(post(s.port, set_a.ca_pem, "/jobs/validate", body, &out), 200);
	free(out.data);
	close(slow);
	close(slow2);
	vc_free(body);

	/* Still serving, and the refusals were counted. */
	expect_get(s.port, set_a.ca_pem, "/healthz", 200, "ok");
	assert_true(metric(s.srv,
			   "vc_webhook_requests_total{path=\"/jobs/validate\",code=\"400\"}") == 3);
	assert_true(metric(s.srv,
			   "vc_webhook_requests_total{path=\"/jobs/validate\",code=\"415\"}") == 2);
	unserve(&s);
}

static void test_server_cert_reload(void **state)
{
	struct webhook_server_opts o = { 0 };
	char want[512];
	struct vc_error err;
	struct served s;
	struct tbuf out;
	unsigned bits = 99;
	long status;

	(void)state;
	serve(&s, &o);
	expect_get(s.port, set_a.ca_pem, "/healthz", 200, "ok");
	/* Nothing changed. */
	assert_int_equal(webhook_server_poll(s.srv, &bits, &err), 0);
	assert_int_equal(bits, 0);

	/* New files: served at once on the same port, and the new CA handed over. */
	assert_int_equal(webhook_certs_write(s.dir, &set_b, &err), 0);
	assert_int_equal(webhook_server_poll(s.srv, &bits, &err), 0);
	assert_int_equal(bits, WEBHOOK_RELOADED_TLS | WEBHOOK_RELOADED_CA);
	assert_int_equal(s.ca_calls, 1);
	assert_string_equal(s.ca_seen, set_b.ca_pem);
	{
		char *ca = webhook_server_ca(s.srv);

		assert_string_equal(ca, set_b.ca_pem);
		vc_free(ca);
	}
	expect_get(s.port, set_b.ca_pem, "/healthz", 200, "ok");
	tbuf_init(&out);
	assert_int_equal(https_req("127.0.0.1", s.port, "GET", "/healthz", set_a.ca_pem, NULL, NULL,
				   0, &status, &out),
			 CURLE_PEER_FAILED_VERIFICATION);
	free(out.data);
	assert_true(metric(s.srv, "vc_webhook_tls_reloads_total{result=\"success\"}") == 1);

	/* The same content written again (new inodes): nothing to reload. */
	assert_int_equal(webhook_certs_write(s.dir, &set_b, &err), 0);
	assert_int_equal(webhook_server_poll(s.srv, &bits, &err), 0);
	assert_int_equal(bits, 0);

	/* A broken certificate: refused, the old one keeps serving, tried once per change. */
	write_text(s.dir, "tls.crt", "-----BEGIN CERTIFICATE-----\ngarbage\n");
	vc_error_clear(&err);
	assert_int_equal(webhook_server_poll(s.srv, &bits, &err), VC_EINVAL);
	snprintf(want, sizeof(want), "cannot parse the certificate in '%s/tls.crt'", s.dir);
	assert_string_equal(err.text, want);
	assert_int_equal(bits, 0);
	assert_true(metric(s.srv, "vc_webhook_tls_reloads_total{result=\"failure\"}") == 1);
	expect_get(s.port, set_b.ca_pem, "/healthz", 200, "ok");
	assert_int_equal(webhook_server_poll(s.srv, &bits, &err), 0);
	/* A certificate that does not match the key: refused as well. */
	write_text(s.dir, "tls.crt", set_a.cert_pem);
	assert_int_equal(webhook_server_poll(s.srv, &bits, &err), VC_EINVAL);
	snprintf(want, sizeof(want),
		 "the private key in '%s/tls.key' does not match the certificate in '%s/tls.crt'",
		 s.dir, s.dir);
	assert_string_equal(err.text, want);
	assert_true(metric(s.srv, "vc_webhook_tls_reloads_total{result=\"failure\"}") == 2);
	expect_get(s.port, set_b.ca_pem, "/healthz", 200, "ok");
	/* Then the key arrives: the pair is complete and served. */
	write_text(s.dir, "tls.key", set_a.key_pem);
	write_text(s.dir, "ca.crt", set_a.ca_pem);
	assert_int_equal(webhook_server_poll(s.srv, &bits, &err), 0);
	assert_int_equal(bits, WEBHOOK_RELOADED_TLS | WEBHOOK_RELOADED_CA);
	expect_get(s.port, set_a.ca_pem, "/healthz", 200, "ok");
	assert_int_equal(s.ca_calls, 2);

	/* A file that disappears: an error, and the server keeps serving. */
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/tls.key", s.dir);
		assert_int_equal(unlink(path), 0);
		assert_int_equal(webhook_server_poll(s.srv, &bits, &err), -ENOENT);
		snprintf(
			path, sizeof(path),
			"cannot reload the certificate: open %s/tls.key: no such file or directory",
			s.dir);
		assert_string_equal(err.text, path);
	}
	expect_get(s.port, set_a.ca_pem, "/healthz", 200, "ok");
	unserve(&s);
}

static void test_server_poll_thread(void **state)
{
	struct webhook_server_opts o = { 0 };
	struct vc_error err;
	struct served s;
	struct tbuf out;
	long status;
	int i, calls;

	(void)state;
	o.poll_interval_ns = 20 * 1000 * 1000;
	serve(&s, &o);
	expect_get(s.port, set_a.ca_pem, "/healthz", 200, "ok");
	assert_int_equal(webhook_certs_write(s.dir, &set_b, &err), 0);
	for (i = 0; i < 250; i++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		tbuf_init(&out);
		if (https_req("127.0.0.1", s.port, "GET", "/healthz", set_b.ca_pem, NULL, NULL, 0,
			      &status, &out) == CURLE_OK) {
			free(out.data);
			break;
		}
		free(out.data);
		nanosleep(&ts, NULL);
	}
	assert_true(i < 250);
	for (i = 0; i < 250; i++) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		pthread_mutex_lock(&s.ca_lock);
		calls = s.ca_calls;
		pthread_mutex_unlock(&s.ca_lock);
		if (calls)
			break;
		nanosleep(&ts, NULL);
	}
	assert_int_equal(calls, 1);
	unserve(&s);
}

static void test_server_healthz_listener_and_conf(void **state)
{
	struct webhook_server_opts o = { 0 };
	struct vc_error err;
	struct served s;
	struct tbuf out;
	char conf[128];
	unsigned bits;
	json_t *c, *want, *resp;
	uint16_t hport;
	const char *pod_review =
		"{\"request\":{\"uid\":\"p1\",\"resource\":{\"group\":\"\",\"version\":\"v1\","
		"\"resource\":\"pods\"},\"operation\":\"CREATE\",\"namespace\":\"ns\",\"object\":{"
		"\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{"
		"\"name\":\"c\",\"image\":\"i\"}]}}}}";

	(void)state;
	memset(&s, 0, sizeof(s));
	/* serve() makes the folder; the configuration file goes there before the start. */
	o.enable_healthz = true;
	o.healthz_address = "127.0.0.1";
	snprintf(conf, sizeof(conf), "/tmp/vc-webhook-test-conf-%d.yaml", (int)getpid());
	{
		FILE *f = fopen(conf, "w");

		assert_non_null(f);
		fputs("resourceGroups:\n- resourceGroup: management\n  object:\n    key: namespace\n"
		      "    value: [mng]\n  schedulerName: default-scheduler\n",
		      f);
		fclose(f);
	}
	o.admission_conf = conf;
	serve(&s, &o);
	hport = webhook_server_healthz_port(s.srv);
	assert_true(hport > 0 && hport != s.port);
	expect_get(hport, set_a.ca_pem, "/healthz", 200, "ok");
	expect_get(hport, set_a.ca_pem, "/metrics", 200, NULL);
	assert_int_equal(post(hport, set_a.ca_pem, "/jobs/mutate", "{}", &out), 404);
	free(out.data);

	c = webhook_server_admission_conf(s.srv);
	want = json_loads("{\"resourceGroups\":[{\"resourceGroup\":\"management\",\"object\":{"
			  "\"key\":\"namespace\",\"value\":[\"mng\"]},\"schedulerName\":"
			  "\"default-scheduler\"}]}",
			  0, NULL);
	assert_true(vc_json_equal(c, want));
	json_decref(c);
	json_decref(want);
	/* With a configuration loaded, /pods/mutate answers Go's null patch for a pod it skips. */
	assert_int_equal(post(s.port, set_a.ca_pem, "/pods/mutate", pod_review, &out), 200);
	resp = response_of(out.data);
	assert_string_equal(vc_json_get_str(resp, "patch"), "bnVsbA==");
	json_decref(resp);
	free(out.data);

	/* Unparsable: no configuration (Volcano's rule), and no patch at all. */
	write_text("/tmp", conf + 5, "resourceGroups: [\n");
	assert_int_equal(webhook_server_poll(s.srv, &bits, &err), 0);
	assert_int_equal(bits, WEBHOOK_RELOADED_CONF);
	assert_null(webhook_server_admission_conf(s.srv));
	assert_int_equal(post(s.port, set_a.ca_pem, "/pods/mutate", pod_review, &out), 200);
	resp = response_of(out.data);
	assert_null(json_object_get(resp, "patch"));
	json_decref(resp);
	free(out.data);
	/* Empty: an empty configuration. Gone: none. */
	write_text("/tmp", conf + 5, "");
	assert_int_equal(webhook_server_poll(s.srv, &bits, &err), 0);
	c = webhook_server_admission_conf(s.srv);
	assert_true(json_is_object(c) && json_object_size(c) == 0);
	json_decref(c);
	write_text("/tmp", conf + 5, "resourceGroups: 3\n");
	assert_int_equal(webhook_server_poll(s.srv, &bits, &err), 0);
	assert_null(webhook_server_admission_conf(s.srv));
	write_text("/tmp", conf + 5, "- a list\n");
	assert_int_equal(webhook_server_poll(s.srv, &bits, &err), 0);
	assert_null(webhook_server_admission_conf(s.srv));
	unlink(conf);
	assert_int_equal(webhook_server_poll(s.srv, &bits, &err), 0);
	assert_int_equal(bits, WEBHOOK_RELOADED_CONF);
	assert_null(webhook_server_admission_conf(s.srv));
	unserve(&s);
}

static void test_server_new_errors(void **state)
{
	static const char *const bad_paths[] = { "/jobs/mutate", "/jobs/other", NULL };
	struct webhook_server_opts o = { 0 };
	struct webhook_server *srv = NULL;
	struct vc_metrics *m;
	struct vc_error err;
	char dir[64], cert[128], key[128], ca[128], want[512];

	(void)state;
	make_tmpdir(dir, sizeof(dir));
	assert_int_equal(webhook_certs_write(dir, &set_a, &err), 0);
	snprintf(cert, sizeof(cert), "%s/tls.crt", dir);
	snprintf(key, sizeof(key), "%s/tls.key", dir);
	snprintf(ca, sizeof(ca), "%s/missing-ca.crt", dir);

	assert_int_equal(webhook_server_new(&o, &srv, &err), VC_EINVAL);
	assert_string_equal(err.text, "tls: failed to find any tls config data");
	o.cert_file = "/nonexistent/tls.crt";
	o.key_file = key;
	assert_int_equal(webhook_server_new(&o, &srv, &err), VC_EINVAL);
	assert_string_equal(err.text, "failed to read cert file (/nonexistent/tls.crt): open "
				      "/nonexistent/tls.crt: no such file or directory");
	o.cert_file = cert;
	o.key_file = dir; /* a folder */
	assert_int_equal(webhook_server_new(&o, &srv, &err), VC_EINVAL);
	snprintf(want, sizeof(want), "failed to read key file (%s): read %s: is a directory", dir,
		 dir);
	assert_string_equal(err.text, want);
	o.key_file = key;
	o.ca_file = ca;
	assert_int_equal(webhook_server_new(&o, &srv, &err), VC_EINVAL);
	snprintf(want, sizeof(want),
		 "Failed to parse CA file: failed to read cacert file (%s): open %s: no such file "
		 "or directory",
		 ca, ca);
	assert_string_equal(err.text, want);
	o.ca_file = NULL;
	o.paths = bad_paths;
	assert_int_equal(webhook_server_new(&o, &srv, &err), VC_EINVAL);
	assert_string_equal(
		err.text,
		"enabled admission /jobs/other not found on the admission registered map");
	o.paths = NULL;
	/* The registry already has the server's names. */
	m = vc_metrics_new();
	assert_non_null(m);
	o.metrics = m;
	assert_int_equal(webhook_server_new(&o, &srv, &err), 0);
	webhook_server_free(srv);
	assert_int_equal(webhook_server_new(&o, &srv, &err), VC_EEXIST);
	assert_string_equal(err.text, "metric 'vc_webhook_requests_total' is already registered");
	assert_null(srv);
	vc_metrics_free(m);
	o.metrics = NULL;
	/* A port in use: start fails, nothing is left listening. */
	{
		struct webhook_server *one, *two;

		o.address = "127.0.0.1";
		assert_int_equal(webhook_server_new(&o, &one, &err), 0);
		assert_int_equal(webhook_server_start(one, &err), 0);
		o.port = webhook_server_port(one);
		assert_int_equal(webhook_server_new(&o, &two, &err), 0);
		assert_int_equal(webhook_server_start(two, &err), -EADDRINUSE);
		assert_int_equal(webhook_server_port(two), 0);
		webhook_server_free(two);
		webhook_server_free(one);
		o.port = 0;
	}
	/* A key that is not the certificate's: start fails. */
	{
		char other[128];

		snprintf(other, sizeof(other), "%s/other.key", dir);
		write_text(dir, "other.key", set_b.key_pem);
		o.key_file = other;
		assert_int_equal(webhook_server_new(&o, &srv, &err), VC_EINVAL);
		snprintf(want, sizeof(want),
			 "the private key in '%s' does not match the certificate in '%s'", other,
			 cert);
		assert_string_equal(err.text, want);
		assert_null(srv);
		o.key_file = cert;
		assert_int_equal(webhook_server_new(&o, &srv, &err), VC_EINVAL);
		snprintf(want, sizeof(want), "cannot parse the private key in '%s'", cert);
		assert_string_equal(err.text, want);
	}
	webhook_server_free(NULL);
	remove_tree(dir);
}

static void test_server_alloc_failure(void **state)
{
	struct webhook_server_opts o = { 0 };
	struct webhook_server *srv;
	struct vc_error err;
	char dir[64], cert[128], key[128], ca[128], conf[128];
	long n;
	int rc;

	(void)state;
	make_tmpdir(dir, sizeof(dir));
	assert_int_equal(webhook_certs_write(dir, &set_a, &err), 0);
	write_text(dir, "conf.yaml", "resourceGroups:\n- resourceGroup: x\n");
	snprintf(cert, sizeof(cert), "%s/tls.crt", dir);
	snprintf(key, sizeof(key), "%s/tls.key", dir);
	snprintf(ca, sizeof(ca), "%s/ca.crt", dir);
	snprintf(conf, sizeof(conf), "%s/conf.yaml", dir);
	o.cert_file = cert;
	o.key_file = key;
	o.ca_file = ca;
	o.admission_conf = conf;
	o.enable_healthz = true;
	vc_alloc_install_json();
	for (n = 0;; n++) {
		srv = NULL;
		vc_alloc_fail_after(n);
		rc = webhook_server_new(&o, &srv, &err);
		vc_alloc_fail_reset();
		if (!rc)
			break;
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(srv);
		assert_true(n < 1000);
	}
	webhook_server_free(srv);
	remove_tree(dir);
}

/* ---------------------------------------------------------------------------------------------
 * Registration
 */

static void test_config_names(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(webhook_config_name("/jobs/mutate", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "volcano-admission-service-jobs-mutate");
	assert_int_equal(webhook_config_name("/queues/validate", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "volcano-admission-service-queues-validate");
	assert_int_equal(webhook_config_name("jobs", buf, sizeof(buf)), VC_EINVAL);
	assert_int_equal(webhook_config_name("/jobs/mutate", buf, 10), VC_E2BIG);
	assert_string_equal(webhook_name("/jobs/validate"), "validatejob.volcano.sh");
	assert_string_equal(webhook_name("/podgroups/validate"), "validatepodgroup.volcano.sh");
	assert_string_equal(webhook_name("/pods/mutate"), "mutatepod.volcano.sh");
	assert_string_equal(webhook_name("/queues/mutate"), "mutatequeue.volcano.sh");
	assert_null(webhook_name("/hypernodes/validate"));
}

static void expect_json(const json_t *got, const char *want_text)
{
	json_t *want = json_loads(want_text, 0, NULL);

	assert_non_null(want);
	if (!vc_json_equal(got, want)) {
		char *g = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);

		print_error("got %s\n", g);
		free(g);
		fail();
	}
	json_decref(want);
}

static void test_config_build(void **state)
{
	struct webhook_register_opts o = { 0 };
	struct vc_error err;
	json_t *cfg;

	(void)state;
	/* The local cluster's form: a URL. The CA is base64 of the PEM bytes. */
	o.url = "https://127.0.0.1:8443/";
	o.ca_pem = "CA";
	assert_int_equal(webhook_config_build(&o, "/jobs/mutate", &cfg, &err), 0);
	expect_json(
		cfg,
		"{\"apiVersion\":\"admissionregistration.k8s.io/v1\","
		"\"kind\":\"MutatingWebhookConfiguration\","
		"\"metadata\":{\"name\":\"volcano-admission-service-jobs-mutate\","
		"\"labels\":{\"app.kubernetes.io/managed-by\":\"vc-webhook\"}},"
		"\"webhooks\":[{\"name\":\"mutatejob.volcano.sh\","
		"\"admissionReviewVersions\":[\"v1\"],"
		"\"clientConfig\":{\"url\":\"https://127.0.0.1:8443/jobs/mutate\","
		"\"caBundle\":\"Q0E=\"},"
		"\"failurePolicy\":\"Fail\",\"matchPolicy\":\"Equivalent\","
		"\"namespaceSelector\":{\"matchExpressions\":[{\"key\":"
		"\"kubernetes.io/metadata.name\",\"operator\":\"NotIn\",\"values\":"
		"[\"kube-system\"]}]},\"objectSelector\":{},"
		"\"rules\":[{\"apiGroups\":[\"batch.volcano.sh\"],\"apiVersions\":[\"v1alpha1\"],"
		"\"operations\":[\"CREATE\"],\"resources\":[\"jobs\"],\"scope\":\"*\"}],"
		"\"sideEffects\":\"NoneOnDryRun\",\"timeoutSeconds\":10,"
		"\"reinvocationPolicy\":\"Never\"}]}");
	json_decref(cfg);

	/* The chart's form: the Service. */
	o.url = NULL;
	o.service_namespace = "volcano-system";
	o.service_name = "volcano-admission-service";
	o.ca_pem = NULL;
	assert_int_equal(webhook_config_build(&o, "/queues/validate", &cfg, &err), 0);
	expect_json(cfg,
		    "{\"apiVersion\":\"admissionregistration.k8s.io/v1\","
		    "\"kind\":\"ValidatingWebhookConfiguration\","
		    "\"metadata\":{\"name\":\"volcano-admission-service-queues-validate\","
		    "\"labels\":{\"app.kubernetes.io/managed-by\":\"vc-webhook\"}},"
		    "\"webhooks\":[{\"name\":\"validatequeue.volcano.sh\","
		    "\"admissionReviewVersions\":[\"v1\"],"
		    "\"clientConfig\":{\"service\":{\"namespace\":\"volcano-system\",\"name\":"
		    "\"volcano-admission-service\",\"path\":\"/queues/validate\",\"port\":443}},"
		    "\"failurePolicy\":\"Fail\",\"matchPolicy\":\"Equivalent\","
		    "\"namespaceSelector\":{\"matchExpressions\":[{\"key\":"
		    "\"kubernetes.io/metadata.name\",\"operator\":\"NotIn\",\"values\":"
		    "[\"volcano-system\",\"kube-system\"]}]},\"objectSelector\":{},"
		    "\"rules\":[{\"apiGroups\":[\"scheduling.volcano.sh\"],\"apiVersions\":"
		    "[\"v1beta1\"],\"operations\":[\"CREATE\",\"UPDATE\",\"DELETE\"],"
		    "\"resources\":[\"queues\"],\"scope\":\"*\"}],"
		    "\"sideEffects\":\"NoneOnDryRun\",\"timeoutSeconds\":10}]}");
	json_decref(cfg);
	assert_int_equal(webhook_config_build(&o, "/pods/validate", &cfg, &err), 0);
	expect_json(json_object_get(json_array_get(json_object_get(cfg, "webhooks"), 0), "rules"),
		    "[{\"apiGroups\":[\"\"],\"apiVersions\":[\"v1\"],\"operations\":[\"CREATE\"],"
		    "\"resources\":[\"pods\"],\"scope\":\"*\"}]");
	json_decref(cfg);

	/* Errors. */
	assert_int_equal(webhook_config_build(&o, "/hypernodes/validate", &cfg, &err), VC_EINVAL);
	assert_string_equal(err.text, "unknown admission path '/hypernodes/validate'");
	assert_null(cfg);
	o.service_name = NULL;
	assert_int_equal(webhook_config_build(&o, "/jobs/mutate", &cfg, &err), VC_EINVAL);
	assert_string_equal(err.text, "both --webhook-namespace and --webhook-service-name are "
				      "needed without --webhook-url");
	o.service_namespace = NULL;
	assert_int_equal(webhook_config_build(&o, "/jobs/mutate", &cfg, &err), VC_EINVAL);
	assert_string_equal(err.text, "failed to start webhooks as both 'url' and 'namespace/name' "
				      "of webhook are empty");
	o.url = "http://127.0.0.1:8443";
	assert_int_equal(webhook_config_build(&o, "/jobs/mutate", &cfg, &err), VC_EINVAL);
	assert_string_equal(
		err.text, "invalid webhook url 'http://127.0.0.1:8443': the scheme must be https");
	o.url = "https://127.0.0.1:8443/x?a=b";
	assert_int_equal(webhook_config_build(&o, "/jobs/mutate", &cfg, &err), VC_EINVAL);
	assert_string_equal(err.text, "invalid webhook url 'https://127.0.0.1:8443/x?a=b': a query "
				      "or fragment is not allowed");
	o.url = "https://user@127.0.0.1:8443";
	assert_int_equal(webhook_config_build(&o, "/jobs/mutate", &cfg, &err), VC_EINVAL);
	assert_string_equal(err.text,
			    "invalid webhook url 'https://user@127.0.0.1:8443': user info "
			    "is not allowed");
	o.url = "https:///jobs";
	assert_int_equal(webhook_config_build(&o, "/jobs/mutate", &cfg, &err), VC_EINVAL);
	assert_string_equal(err.text, "invalid webhook url 'https:///jobs': no host");

	/* A prefix in the URL is kept. */
	o.url = "https://hooks.example:9443/volcano";
	assert_int_equal(webhook_config_build(&o, "/pods/mutate", &cfg, &err), 0);
	assert_string_equal(vc_json_get_str(vc_json_path(cfg, "webhooks[0].clientConfig"), "url"),
			    "https://hooks.example:9443/volcano/pods/mutate");
	json_decref(cfg);
}

static void test_config_build_alloc_failure(void **state)
{
	struct webhook_register_opts o = { .url = "https://127.0.0.1:1", .ca_pem = "pem" };
	struct vc_error err;
	json_t *cfg;
	long n;
	int rc;

	(void)state;
	vc_alloc_install_json();
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = webhook_config_build(&o, "/jobs/mutate", &cfg, &err);
		vc_alloc_fail_reset();
		if (!rc)
			break;
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(cfg);
		assert_true(n < 1000);
	}
	assert_true(n > 5);
	json_decref(cfg);
}

static const json_t *stored(struct fake_kube *f, const char *resource, const char *name)
{
	char key[256];

	snprintf(key, sizeof(key), "%s/%s", resource, name);
	return json_object_get(f->objects, key);
}

static void test_register(void **state)
{
	static const char *const two[] = { "/jobs/mutate", "/jobs/validate", NULL };
	struct webhook_register_opts o = { .url = "https://127.0.0.1:9443", .ca_pem = "ca-1" };
	struct webhook_register_stats st;
	struct fake_kube f;
	struct vc_kube *k;
	struct vc_error err;
	const json_t *obj;
	json_t *edited;

	(void)state;
	fake_init(&f);
	k = vc_kube_new_with_ops(&fake_ops, &f);
	assert_non_null(k);

	/* First start: every configuration created. */
	assert_int_equal(webhook_register(k, &o, &st, &err), 0);
	assert_int_equal(st.created, 8);
	assert_int_equal(st.updated + st.unchanged, 0);
	assert_int_equal(json_object_size(f.objects), 8);
	obj = stored(&f, "mutatingwebhookconfigurations", "volcano-admission-service-pods-mutate");
	assert_non_null(obj);
	assert_string_equal(vc_json_get_str(vc_json_path(obj, "webhooks[0]"), "name"),
			    "mutatepod.volcano.sh");
	obj = stored(&f, "validatingwebhookconfigurations",
		     "volcano-admission-service-podgroups-validate");
	assert_non_null(obj);
	assert_string_equal(vc_json_get_str(vc_json_path(obj, "webhooks[0].clientConfig"), "url"),
			    "https://127.0.0.1:9443/podgroups/validate");

	/* A restart with the same CA: nothing written. */
	f.creates = f.updates = 0;
	assert_int_equal(webhook_register(k, &o, &st, &err), 0);
	assert_int_equal(st.unchanged, 8);
	assert_int_equal(f.creates + f.updates, 0);

	/* A new CA: updated, with someone else's labels kept; a conflict is retried. */
	edited = json_deep_copy(stored(&f, "validatingwebhookconfigurations",
				       "volcano-admission-service-jobs-validate"));
	assert_int_equal(vc_json_set_path_new(edited, "metadata.labels.team", json_string("ml")),
			 0);
	assert_int_equal(json_object_set_new(f.objects,
					     "validatingwebhookconfigurations/"
					     "volcano-admission-service-jobs-validate",
					     edited),
			 0);
	o.ca_pem = "ca-2";
	o.paths = two;
	f.conflicts = 2;
	assert_int_equal(webhook_register(k, &o, &st, &err), 0);
	assert_int_equal(st.updated, 2);
	assert_int_equal(st.created + st.unchanged, 0);
	obj = stored(&f, "validatingwebhookconfigurations",
		     "volcano-admission-service-jobs-validate");
	assert_string_equal(vc_json_get_str(vc_json_path(obj, "metadata.labels"), "team"), "ml");
	assert_string_equal(vc_json_get_str(vc_json_path(obj, "metadata.labels"),
					    "app.kubernetes.io/managed-by"),
			    "vc-webhook");
	assert_string_equal(
		vc_json_get_str(vc_json_path(obj, "webhooks[0].clientConfig"), "caBundle"),
		"Y2EtMg==");
	/* The other paths were left alone. */
	obj = stored(&f, "mutatingwebhookconfigurations", "volcano-admission-service-pods-mutate");
	assert_string_equal(
		vc_json_get_str(vc_json_path(obj, "webhooks[0].clientConfig"), "caBundle"),
		"Y2EtMQ==");

	/* Someone created it between our GET and CREATE: the next round updates it. */
	assert_int_equal(json_object_del(f.objects, "mutatingwebhookconfigurations/"
						    "volcano-admission-service-jobs-mutate"),
			 0);
	f.create_races = 1;
	o.paths = two;
	assert_int_equal(webhook_register(k, &o, &st, &err), 0);
	assert_int_equal(st.created, 1);

	/* Conflicts that never end, and a refusal: the error names the object. */
	o.ca_pem = "ca-3";
	f.conflicts = 100;
	vc_error_clear(&err);
	assert_int_equal(webhook_register(k, &o, &st, &err), VC_ECONFLICT);
	assert_string_equal(err.text, "MutatingWebhookConfiguration "
				      "volcano-admission-service-jobs-mutate: the object has been "
				      "modified");
	f.conflicts = 0;
	f.fail_code = VC_EFORBIDDEN;
	assert_int_equal(webhook_register(k, &o, &st, &err), VC_EFORBIDDEN);
	assert_string_equal(err.text, "MutatingWebhookConfiguration "
				      "volcano-admission-service-jobs-mutate: injected failure");
	f.fail_code = 0;
	o.url = "http://x";
	assert_int_equal(webhook_register(k, &o, &st, &err), VC_EINVAL);
	assert_int_equal(webhook_register(NULL, &o, &st, &err), VC_EINVAL);
	vc_kube_free(k);
	fake_release(&f);
}

static void test_register_alloc_failure(void **state)
{
	struct webhook_register_opts o = { .url = "https://127.0.0.1:9443", .ca_pem = "ca" };
	struct fake_kube f;
	struct vc_kube *k;
	struct vc_error err;
	long n;
	int rc;

	(void)state;
	vc_alloc_install_json();
	for (n = 0;; n++) {
		fake_init(&f);
		k = vc_kube_new_with_ops(&fake_ops, &f);
		assert_non_null(k);
		/* Half of them exist already, with another CA: creates and updates both run. */
		o.ca_pem = "old";
		o.paths = NULL;
		{
			static const char *const some[] = { "/jobs/mutate", "/queues/validate",
							    "/pods/mutate", NULL };

			o.paths = some;
			assert_int_equal(webhook_register(k, &o, NULL, &err), 0);
		}
		o.paths = NULL;
		o.ca_pem = "new";
		vc_alloc_fail_after(n);
		rc = webhook_register(k, &o, NULL, &err);
		vc_alloc_fail_reset();
		vc_kube_free(k);
		fake_release(&f);
		if (!rc)
			break;
		assert_int_equal(rc, VC_ENOMEM);
		assert_true(n < 10000);
	}
}

/* ---------------------------------------------------------------------------------------------
 * Cluster state
 */

static void test_cluster_state(void **state)
{
	struct fake_kube f;
	struct vc_kube *k;
	struct webhook_cluster *c;
	struct admission_state st;
	struct vc_error err;
	json_t *out;
	size_t i;
	const char *want_top[] = { "closed", "default", "orphan", "root" };

	(void)state;
	fake_init(&f);
	fake_add_queue(&f, "default", NULL, "Open");
	fake_add_queue(&f, "root", NULL, "Open");
	fake_add_queue(&f, "closed", "", "Closed");
	fake_add_queue(&f, "b", "a", "Open");
	fake_add_queue(&f, "a", "root", "Open");
	fake_add_queue(&f, "c", "a", "Open");
	fake_add_queue(&f, "orphan", NULL, "Open");
	assert_int_equal(json_object_set_new(json_object_get(json_array_get(f.queues, 6), "spec"),
					     "parent", json_integer(3)),
			 0);
	assert_int_equal(
		json_object_set_new(f.objects, "namespaces/team-a",
				    json_pack("{s:{s:s, s:s, s:{s:s}, s:[{s:s}]}}", "metadata",
					      "name", "team-a", "resourceVersion", "3",
					      "annotations", "scheduling.volcano.sh/queue-name",
					      "q1", "managedFields", "manager", "kubectl")),
		0);
	k = vc_kube_new_with_ops(&fake_ops, &f);
	assert_non_null(k);
	assert_int_equal(webhook_cluster_new(NULL, &c, &err), VC_EINVAL);
	assert_int_equal(webhook_cluster_new(k, &c, &err), 0);
	assert_int_equal(webhook_cluster_wait_synced(c, 0), VC_ESHUTDOWN);
	assert_int_equal(webhook_cluster_start(c, true, &err), 0);
	assert_int_equal(webhook_cluster_wait_synced(c, 5 * INT64_C(1000000000)), 0);
	assert_true(webhook_cluster_namespaces_cached(c));
	assert_int_equal(vc_cache_count(webhook_cluster_cache(c)), 7);
	webhook_cluster_state(c, &st);

	vc_error_clear(&err);
	assert_int_equal(st.get_queue(st.ctx, "a", &out, &err), 0);
	assert_string_equal(vc_json_get_str(vc_json_get_obj(out, "spec"), "parent"), "root");
	json_decref(out);
	assert_int_equal(st.get_queue(st.ctx, "nope", &out, &err), VC_ENOTFOUND);
	assert_null(out);
	assert_string_equal(err.text, "");
	assert_int_equal(st.get_queue(st.ctx, "", &out, &err), VC_ENOTFOUND);

	/* Children sorted by name; parentless queues (and a non-string parent) under "". */
	assert_int_equal(st.queue_children(st.ctx, "a", &out, &err), 0);
	assert_int_equal(json_array_size(out), 2);
	assert_string_equal(vc_json_get_str(vc_json_path(out, "[0].metadata"), "name"), "b");
	assert_string_equal(vc_json_get_str(vc_json_path(out, "[1].metadata"), "name"), "c");
	json_decref(out);
	assert_int_equal(st.queue_children(st.ctx, "", &out, &err), 0);
	assert_int_equal(json_array_size(out), 4);
	for (i = 0; i < 4; i++)
		assert_string_equal(
			vc_json_get_str(json_object_get(json_array_get(out, i), "metadata"),
					"name"),
			want_top[i]);
	json_decref(out);
	assert_int_equal(st.queue_children(st.ctx, "b", &out, &err), 0);
	assert_int_equal(json_array_size(out), 0);
	json_decref(out);

	/*
	 * Namespaces from the informer's cache (docs/volcano/webhooks.md §10.1), managedFields
	 * stripped, and no GET per review: the webhook listed Queues once and Namespaces twice (the
	 * probe of one item, then the informer's list).
	 */
	assert_int_equal(st.get_namespace(st.ctx, "team-a", &out, &err), 0);
	assert_string_equal(vc_json_get_str(json_object_get(out, "metadata"), "name"), "team-a");
	assert_string_equal(vc_json_get_str(vc_json_path(out, "metadata.annotations"),
					    "scheduling.volcano.sh/queue-name"),
			    "q1");
	assert_null(vc_json_path(out, "metadata.managedFields"));
	json_decref(out);
	assert_int_equal(st.get_namespace(st.ctx, "team-a", &out, &err), 0);
	json_decref(out);
	vc_error_clear(&err);
	assert_int_equal(st.get_namespace(st.ctx, "", &out, &err), VC_ENOTFOUND);
	assert_null(out);
	assert_int_equal(f.gets, 0);
	assert_int_equal(f.lists, 3);
	/* A Namespace the cache has not seen (created moments ago) is read from the server. */
	assert_int_equal(st.get_namespace(st.ctx, "team-b", &out, &err), VC_ENOTFOUND);
	assert_string_equal(err.text, "namespaces \"team-b\" not found");
	assert_null(out);
	assert_int_equal(f.gets, 1);
	assert_int_equal(json_object_set_new(f.objects, "namespaces/team-c",
					     json_pack("{s:{s:s}}", "metadata", "name", "team-c")),
			 0);
	assert_int_equal(st.get_namespace(st.ctx, "team-c", &out, &err), 0);
	assert_string_equal(vc_json_get_str(json_object_get(out, "metadata"), "name"), "team-c");
	json_decref(out);
	assert_int_equal(f.gets, 2);

	webhook_cluster_free(c);
	webhook_cluster_free(NULL);
	vc_kube_free(k);
	fake_release(&f);
}

/*
 * Under Volcano's own RBAC (no right on namespaces) the Namespace informer is not started: the
 * webhook still syncs and serves, and each PodGroup mutate GETs its Namespace, as before (the
 * GET is forbidden there too, and the handler then makes no patch). Without /podgroups/mutate
 * served, namespaces are not even listed.
 */
static void test_cluster_namespaces_forbidden(void **state)
{
	struct fake_kube f;
	struct vc_kube *k;
	struct webhook_cluster *c;
	struct admission_state st;
	struct vc_error err;
	json_t *out;

	(void)state;
	fake_init(&f);
	f.forbid_ns = true;
	fake_add_queue(&f, "default", NULL, "Open");
	assert_int_equal(json_object_set_new(f.objects, "namespaces/team-a",
					     json_pack("{s:{s:s}}", "metadata", "name", "team-a")),
			 0);
	k = vc_kube_new_with_ops(&fake_ops, &f);
	assert_non_null(k);
	assert_int_equal(webhook_cluster_new(k, &c, &err), 0);
	assert_int_equal(webhook_cluster_start(c, true, &err), 0);
	assert_int_equal(webhook_cluster_wait_synced(c, 5 * INT64_C(1000000000)), 0);
	assert_false(webhook_cluster_namespaces_cached(c));
	assert_int_equal(vc_cache_count(webhook_cluster_cache(c)), 1);
	webhook_cluster_state(c, &st);
	vc_error_clear(&err);
	assert_int_equal(st.get_namespace(st.ctx, "team-a", &out, &err), 0);
	assert_string_equal(vc_json_get_str(json_object_get(out, "metadata"), "name"), "team-a");
	json_decref(out);
	assert_int_equal(st.get_namespace(st.ctx, "team-a", &out, &err), 0);
	json_decref(out);
	assert_int_equal(st.get_namespace(st.ctx, "team-b", &out, &err), VC_ENOTFOUND);
	assert_string_equal(err.text, "namespaces \"team-b\" not found");
	assert_null(out);
	assert_int_equal(f.gets, 3);
	/* One list of Queues, one probe of Namespaces (refused), no informer list. */
	assert_int_equal(f.lists, 2);
	webhook_cluster_free(c);

	/* /podgroups/mutate not served: Namespaces are neither listed nor cached. */
	f.forbid_ns = false;
	f.lists = f.gets = 0;
	assert_int_equal(webhook_cluster_new(k, &c, &err), 0);
	assert_int_equal(webhook_cluster_start(c, false, &err), 0);
	assert_int_equal(webhook_cluster_wait_synced(c, 5 * INT64_C(1000000000)), 0);
	assert_false(webhook_cluster_namespaces_cached(c));
	assert_int_equal(f.lists, 1);
	webhook_cluster_free(c);
	vc_kube_free(k);
	fake_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_certs_make_and_parse_back),
		cmocka_unit_test(test_certs_without_service_and_errors),
		cmocka_unit_test(test_certs_write),
		cmocka_unit_test(test_certs_alloc_failure),
		cmocka_unit_test(test_parse_paths),
		cmocka_unit_test(test_parse_hostport),
		cmocka_unit_test(test_server_reviews_over_https),
		cmocka_unit_test(test_server_bad_inputs),
		cmocka_unit_test(test_server_cert_reload),
		cmocka_unit_test(test_server_poll_thread),
		cmocka_unit_test(test_server_healthz_listener_and_conf),
		cmocka_unit_test(test_server_new_errors),
		cmocka_unit_test(test_server_alloc_failure),
		cmocka_unit_test(test_config_names),
		cmocka_unit_test(test_config_build),
		cmocka_unit_test(test_config_build_alloc_failure),
		cmocka_unit_test(test_register),
		cmocka_unit_test(test_register_alloc_failure),
		cmocka_unit_test(test_cluster_state),
		cmocka_unit_test(test_cluster_namespaces_forbidden),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
