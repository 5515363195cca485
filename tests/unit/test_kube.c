/*
 * Unit tests for vc_kube: resource paths, the ops dispatch, and the REST client against a mock
 * API server that runs inside this test on 127.0.0.1 (a thread per connection over raw sockets,
 * with OpenSSL for the TLS cases; certificates are made at start-up). Time is a fake clock and
 * the client's sleeps only advance it, so retries and rate limits are checked without waiting.
 */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vc_alloc.h"
#include "vc_base64.h"
#include "vc_buf.h"
#include "vc_err.h"
#include "vc_json.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

/* ---- fake clock and sleep ----------------------------------------------------------------- */

static int64_t fake_mono;
static int64_t sleeps[64];
static int nsleeps;

static int64_t fake_clock(void *ctx)
{
	(void)ctx;
	return __atomic_load_n(&fake_mono, __ATOMIC_SEQ_CST);
}

static void fake_sleep(void *ctx, int64_t ns)
{
	(void)ctx;
	if (nsleeps < (int)VC_ARRAY_SIZE(sleeps))
		sleeps[nsleeps++] = ns;
	__atomic_add_fetch(&fake_mono, ns, __ATOMIC_SEQ_CST);
}

/* ---- certificates ------------------------------------------------------------------------- */

struct pki {
	EVP_PKEY *ca_key, *server_key, *client_key, *other_key;
	X509 *ca, *server, *client, *other_ca;
	char *ca_pem, *other_ca_pem, *client_cert_pem, *client_key_pem, *other_key_pem;
};

static struct pki pki;

static X509 *make_cert(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key, bool ca,
		       const char *san)
{
	static long serial = 1;
	X509V3_CTX v3;
	X509_EXTENSION *ext;
	X509 *x = X509_new();
	X509_NAME *name;

	assert_non_null(x);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), serial++);
	X509_gmtime_adj(X509_getm_notBefore(x), -3600);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	X509_set_pubkey(x, key);
	name = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, issuer ? X509_get_subject_name(issuer) : name);
	X509V3_set_ctx(&v3, issuer ? issuer : x, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, NID_basic_constraints,
				  ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	ext = X509V3_EXT_conf_nid(NULL, &v3, NID_key_usage,
				  ca ? "critical,keyCertSign,cRLSign"
				     : "critical,digitalSignature,keyEncipherment");
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	if (san) {
		ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, san);
		X509_add_ext(x, ext, -1);
		X509_EXTENSION_free(ext);
	}
	assert_true(X509_sign(x, issuer_key, EVP_sha256()) > 0);
	return x;
}

static char *bio_take(BIO *b)
{
	char *data, *out;
	long n = BIO_get_mem_data(b, &data);

	out = vc_strndup(data, (size_t)n);
	BIO_free(b);
	return out;
}

static char *cert_pem(X509 *x)
{
	BIO *b = BIO_new(BIO_s_mem());

	PEM_write_bio_X509(b, x);
	return bio_take(b);
}

static char *key_pem(EVP_PKEY *k)
{
	BIO *b = BIO_new(BIO_s_mem());

	PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL);
	return bio_take(b);
}

static void pki_make(void)
{
	pki.ca_key = EVP_EC_gen("P-256");
	pki.server_key = EVP_EC_gen("P-256");
	pki.client_key = EVP_EC_gen("P-256");
	pki.other_key = EVP_EC_gen("P-256");
	pki.ca = make_cert("caldera-test-ca", pki.ca_key, NULL, pki.ca_key, true, NULL);
	pki.other_ca = make_cert("other-ca", pki.other_key, NULL, pki.other_key, true, NULL);
	pki.server = make_cert("kube-apiserver", pki.server_key, pki.ca, pki.ca_key, false,
			       "IP:127.0.0.1,DNS:localhost");
	pki.client =
		make_cert("caldera-test-user", pki.client_key, pki.ca, pki.ca_key, false, NULL);
	pki.ca_pem = cert_pem(pki.ca);
	pki.other_ca_pem = cert_pem(pki.other_ca);
	pki.client_cert_pem = cert_pem(pki.client);
	pki.client_key_pem = key_pem(pki.client_key);
	pki.other_key_pem = key_pem(pki.other_key);
}

static void pki_free(void)
{
	EVP_PKEY_free(pki.ca_key);
	EVP_PKEY_free(pki.server_key);
	EVP_PKEY_free(pki.client_key);
	EVP_PKEY_free(pki.other_key);
	X509_free(pki.ca);
	X509_free(pki.other_ca);
	X509_free(pki.server);
	X509_free(pki.client);
	vc_free(pki.ca_pem);
	vc_free(pki.other_ca_pem);
	vc_free(pki.client_cert_pem);
	vc_free(pki.client_key_pem);
	vc_free(pki.other_key_pem);
}

/* ---- the mock API server ------------------------------------------------------------------ */

#define MAX_CONNS 32
#define MAX_REQS  512

struct mreq {
	char method[16];
	char target[2048];
	char content_type[128];
	char accept[128];
	char authorization[512];
	char user_agent[128];
	char client_cn[64];
	char *body;
	size_t body_len;
	int conn;
};

enum mafter {
	KEEP,
	CLOSE,
	DROP,
	HANG
};

struct mresp {
	int status;
	char headers[512]; /* extra header lines, each ending in \r\n */
	char *body;	   /* malloc'd, or NULL */
	size_t body_len;
	bool chunked; /* send body in pieces of chunk bytes (0 = one piece), chunked */
	size_t chunk;
	enum mafter after;
};

struct mock;
typedef void mock_fn(struct mock *m, const struct mreq *rq, struct mresp *rs);

struct mconn {
	struct mock *m;
	int fd;
	SSL *ssl;
	int id;
	pthread_t thr;
	bool used; /* the slot holds a connection (running or finished, not yet joined) */
	int done;  /* its thread has finished */
};

struct mock {
	int lfd, port;
	int wake[2];
	SSL_CTX *tls;
	mock_fn *fn;
	void *ctx;
	pthread_t acceptor;
	pthread_mutex_t lock;
	struct mconn conns[MAX_CONNS];
	int nconns; /* connections accepted so far */
	struct mreq reqs[MAX_REQS];
	int nreqs;
	int handled; /* requests given to fn so far */
	char url[64];
};

static ssize_t c_read(struct mconn *c, char *buf, size_t len)
{
	int n;

	if (c->ssl) {
		n = SSL_read(c->ssl, buf, (int)len);
		return n > 0 ? n : -1;
	}
	return recv(c->fd, buf, len, 0);
}

static int c_write(struct mconn *c, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if (c->ssl)
			n = SSL_write(c->ssl, buf, (int)len);
		else
			n = send(c->fd, buf, len, MSG_NOSIGNAL);
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int c_printf(struct mconn *c, const char *fmt, ...) VC_PRINTF(2, 3);
static int c_printf(struct mconn *c, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return c_write(c, buf, (size_t)n);
}

/* Copy the value of header `name` out of the header block into out. */
static void header_value(const char *hdrs, const char *name, char *out, size_t len)
{
	const char *p = hdrs, *eol, *v;
	size_t nl = strlen(name);

	out[0] = '\0';
	while ((eol = strstr(p, "\r\n")) && eol != p) {
		if ((size_t)(eol - p) > nl && !strncasecmp(p, name, nl) && p[nl] == ':') {
			for (v = p + nl + 1; *v == ' '; v++)
				;
			snprintf(out, len, "%.*s", (int)(eol - v), v);
			return;
		}
		p = eol + 2;
	}
}

static const char *reason_of(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 201:
		return "Created";
	case 404:
		return "Not Found";
	case 409:
		return "Conflict";
	case 410:
		return "Gone";
	case 429:
		return "Too Many Requests";
	case 503:
		return "Service Unavailable";
	default:
		return "Status";
	}
}

/* Wait until the client goes away (or the server stops, which shuts the socket down). */
static void hang(struct mconn *c)
{
	char buf[256];

	while (c_read(c, buf, sizeof(buf)) > 0)
		;
}

/*
 * The mock allocates with libc, not vc_malloc: the allocation-failure test makes vc_malloc fail
 * in every thread, and the server must keep working while the client fails.
 */
struct inbuf {
	char *data;
	size_t len;
};

static int in_add(struct inbuf *b, const char *p, size_t n)
{
	char *d = realloc(b->data, b->len + n + 1);

	if (!d)
		return -1;
	memcpy(d + b->len, p, n);
	b->len += n;
	d[b->len] = '\0';
	b->data = d;
	return 0;
}

static void *conn_main(void *arg)
{
	struct mconn *c = arg;
	struct mock *m = c->m;
	struct inbuf in = { 0 };
	char buf[16384], *end, cl[32], cn[64];
	struct mreq rq;
	struct mresp rs;
	size_t hlen, need, off;
	ssize_t n;
	bool ok;

	cn[0] = '\0';
	if (c->ssl) {
		X509 *peer;

		if (SSL_accept(c->ssl) != 1)
			goto out;
		peer = SSL_get1_peer_certificate(c->ssl);
		if (peer) {
			X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, cn,
						  sizeof(cn));
			X509_free(peer);
		}
	}
	{
		for (;;) {
			/* The request head. */
			while (!(end = in.len ? strstr(in.data, "\r\n\r\n") : NULL)) {
				n = c_read(c, buf, sizeof(buf));
				if (n <= 0 || in_add(&in, buf, (size_t)n))
					goto out;
			}
			memset(&rq, 0, sizeof(rq));
			snprintf(rq.client_cn, sizeof(rq.client_cn), "%s", cn);
			hlen = (size_t)(end - in.data) + 4;
			if (sscanf(in.data, "%15s %2047s", rq.method, rq.target) != 2)
				goto out;
			header_value(strstr(in.data, "\r\n") + 2, "Content-Type", rq.content_type,
				     sizeof(rq.content_type));
			header_value(strstr(in.data, "\r\n") + 2, "Accept", rq.accept,
				     sizeof(rq.accept));
			header_value(strstr(in.data, "\r\n") + 2, "Authorization", rq.authorization,
				     sizeof(rq.authorization));
			header_value(strstr(in.data, "\r\n") + 2, "User-Agent", rq.user_agent,
				     sizeof(rq.user_agent));
			header_value(strstr(in.data, "\r\n") + 2, "Content-Length", cl, sizeof(cl));
			need = hlen + (size_t)strtoul(cl, NULL, 10);
			while (in.len < need) {
				n = c_read(c, buf, sizeof(buf));
				if (n <= 0 || in_add(&in, buf, (size_t)n))
					goto out;
			}
			rq.body_len = need - hlen;
			rq.body = strndup(in.data + hlen, rq.body_len);
			rq.conn = c->id;
			memmove(in.data, in.data + need, in.len - need + 1);
			in.len -= need;

			memset(&rs, 0, sizeof(rs));
			rs.status = 200;
			pthread_mutex_lock(&m->lock);
			m->handled++;
			m->fn(m, &rq, &rs);
			if (m->nreqs < MAX_REQS)
				m->reqs[m->nreqs++] = rq;
			else
				free(rq.body);
			pthread_mutex_unlock(&m->lock);

			if (rs.after == DROP) {
				free(rs.body);
				goto out;
			}
			if (rs.after == HANG && !rs.chunked) {
				free(rs.body);
				hang(c);
				goto out;
			}
			ok = c_printf(c, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n%s",
				      rs.status, reason_of(rs.status), rs.headers) == 0;
			if (ok && rs.after == CLOSE)
				ok = c_printf(c, "Connection: close\r\n") == 0;
			if (ok && !rs.chunked) {
				ok = c_printf(c, "Content-Length: %zu\r\n\r\n", rs.body_len) == 0 &&
				     c_write(c, rs.body ? rs.body : "", rs.body_len) == 0;
			} else if (ok) {
				ok = c_printf(c, "Transfer-Encoding: chunked\r\n\r\n") == 0;
				for (off = 0; ok && off < rs.body_len; off += need) {
					need = rs.chunk ? VC_MIN(rs.chunk, rs.body_len - off)
							: rs.body_len;
					ok = c_printf(c, "%zx\r\n", need) == 0 &&
					     c_write(c, rs.body + off, need) == 0 &&
					     c_printf(c, "\r\n") == 0;
				}
				if (ok && rs.after == HANG) {
					free(rs.body);
					hang(c);
					goto out;
				}
				ok = ok && c_printf(c, "0\r\n\r\n") == 0;
			}
			free(rs.body);
			/* close_notify: the session stays resumable. */
			if (ok && rs.after == CLOSE && c->ssl)
				(void)SSL_shutdown(c->ssl);
			if (!ok || rs.after == CLOSE)
				goto out;
		}
	}
out:
	free(in.data);
	shutdown(c->fd, SHUT_RDWR);
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Join a finished connection's thread and free its slot. */
static void conn_reap(struct mconn *c)
{
	pthread_join(c->thr, NULL);
	SSL_free(c->ssl);
	close(c->fd);
	c->ssl = NULL;
	c->used = false;
	c->done = 0;
}

static void *accept_main(void *arg)
{
	struct mock *m = arg;
	struct pollfd p[2] = { { m->lfd, POLLIN, 0 }, { m->wake[0], POLLIN, 0 } };
	struct mconn *c;
	int fd, one = 1, i;

	for (;;) {
		if (poll(p, 2, -1) < 0)
			continue;
		if (p[1].revents)
			return NULL;
		fd = accept(m->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		pthread_mutex_lock(&m->lock);
		c = NULL;
		for (i = 0; i < MAX_CONNS && !c; i++) {
			if (m->conns[i].used &&
			    __atomic_load_n(&m->conns[i].done, __ATOMIC_ACQUIRE))
				conn_reap(&m->conns[i]);
			if (!m->conns[i].used)
				c = &m->conns[i];
		}
		if (!c) {
			pthread_mutex_unlock(&m->lock);
			close(fd);
			continue;
		}
		c->used = true;
		c->m = m;
		c->fd = fd;
		c->id = m->nconns + 1;
		c->ssl = NULL;
		if (m->tls) {
			c->ssl = SSL_new(m->tls);
			SSL_set_fd(c->ssl, fd);
		}
		m->nconns++;
		pthread_create(&c->thr, NULL, conn_main, c);
		pthread_mutex_unlock(&m->lock);
	}
}

static int verify_any(int ok, X509_STORE_CTX *ctx)
{
	(void)ok;
	(void)ctx;
	return 1;
}

/* The number of requests recorded, read under the mock's lock (its thread writes it). */
static int mock_nreqs(struct mock *m)
{
	int n;

	pthread_mutex_lock(&m->lock);
	n = m->nreqs;
	pthread_mutex_unlock(&m->lock);
	return n;
}

static void mock_start(struct mock *m, bool tls, mock_fn *fn, void *ctx)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);

	memset(m, 0, sizeof(*m));
	m->fn = fn;
	m->ctx = ctx;
	pthread_mutex_init(&m->lock, NULL);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	m->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(m->lfd >= 0);
	assert_int_equal(bind(m->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(m->lfd, 64), 0);
	assert_int_equal(getsockname(m->lfd, (struct sockaddr *)&a, &alen), 0);
	m->port = ntohs(a.sin_port);
	assert_int_equal(pipe(m->wake), 0);
	if (tls) {
		m->tls = SSL_CTX_new(TLS_server_method());
		assert_non_null(m->tls);
		assert_int_equal(SSL_CTX_use_certificate(m->tls, pki.server), 1);
		assert_int_equal(SSL_CTX_use_PrivateKey(m->tls, pki.server_key), 1);
		/* Ask for a client certificate, take any (the test reads its CN). */
		SSL_CTX_set_verify(m->tls, SSL_VERIFY_PEER, verify_any);
		/* Resuming a verified peer's session needs a context id (else: internal error). */
		assert_int_equal(SSL_CTX_set_session_id_context(
					 m->tls, (const unsigned char *)"test_kube", 9),
				 1);
	}
	snprintf(m->url, sizeof(m->url), "%s://127.0.0.1:%d", tls ? "https" : "http", m->port);
	assert_int_equal(pthread_create(&m->acceptor, NULL, accept_main, m), 0);
}

static void mock_stop(struct mock *m)
{
	int i;

	assert_int_equal(write(m->wake[1], "x", 1), 1);
	pthread_join(m->acceptor, NULL);
	for (i = 0; i < MAX_CONNS; i++) {
		if (m->conns[i].used)
			shutdown(m->conns[i].fd, SHUT_RDWR);
	}
	for (i = 0; i < MAX_CONNS; i++) {
		if (m->conns[i].used)
			conn_reap(&m->conns[i]);
	}
	for (i = 0; i < m->nreqs; i++)
		free(m->reqs[i].body);
	close(m->lfd);
	close(m->wake[0]);
	close(m->wake[1]);
	SSL_CTX_free(m->tls);
	pthread_mutex_destroy(&m->lock);
}

static void set_body(struct mresp *rs, const char *body)
{
	rs->body = strdup(body);
	rs->body_len = strlen(body);
}

/* ---- scripted answers ----------------------------------------------------------------------- */

struct step {
	int status;
	const char *headers;
	const char *body;
	enum mafter after;
};

struct script {
	const struct step *steps;
	int n;
};

/* Answer request i with step i (the last step repeats). */
static void scripted(struct mock *m, const struct mreq *rq, struct mresp *rs)
{
	const struct script *s = m->ctx;
	const struct step *st = &s->steps[VC_MIN(m->handled, s->n) - 1];

	(void)rq;
	rs->status = st->status;
	snprintf(rs->headers, sizeof(rs->headers), "%s", st->headers ? st->headers : "");
	set_body(rs, st->body ? st->body : "");
	rs->after = st->after;
}

/* Echo: 200 with {"method":..,"target":..} so callers see what arrived. */
static void echo(struct mock *m, const struct mreq *rq, struct mresp *rs)
{
	char body[4096];

	(void)m;
	snprintf(body, sizeof(body), "{\"kind\":\"Echo\",\"method\":\"%s\",\"n\":%d}", rq->method,
		 m->handled);
	set_body(rs, body);
}

/* ---- fixtures ------------------------------------------------------------------------------- */

static struct vc_kube *client_for(const struct mock *m, void (*tweak)(struct vc_kube_config *))
{
	struct vc_kube_config cfg = { 0 };
	struct vc_kube *c = NULL;
	struct vc_error err;

	cfg.server = (char *)m->url;
	cfg.ca_data = m->tls ? pki.ca_pem : NULL;
	cfg.namespace = (char *)"default";
	if (tweak)
		tweak(&cfg);
	if (vc_kube_new(&cfg, &c, &err))
		fail_msg("vc_kube_new: %s", err.text);
	vc_kube_set_sleep(c, fake_sleep, NULL);
	return c;
}

static int setup(void **state)
{
	(void)state;
	fake_mono = 1000 * VC_NSEC_PER_SEC;
	nsleeps = 0;
	vc_time_set_source(NULL, fake_clock, NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	vc_time_set_source(NULL, NULL, NULL);
	return 0;
}

static json_t *J(const char *text)
{
	json_t *v = NULL;

	if (vc_json_parse(text, strlen(text), 0, &v, NULL))
		fail_msg("bad JSON in test: %s", text);
	return v;
}

/* ---- paths, resource types and the ops dispatch -------------------------------------------- */

static void test_paths(void **state)
{
	char buf[256];

	(void)state;
	assert_int_equal(vc_kube_path(&vc_gvr_pods, "ns1", "p1", "status", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/api/v1/namespaces/ns1/pods/p1/status");
	assert_int_equal(vc_kube_path(&vc_gvr_pods, NULL, NULL, NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/api/v1/pods");
	assert_int_equal(vc_kube_path(&vc_gvr_pods, "", NULL, NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/api/v1/pods");
	/* A cluster-scoped resource ignores the namespace. */
	assert_int_equal(vc_kube_path(&vc_gvr_nodes, "ns1", "n1", NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/api/v1/nodes/n1");
	assert_int_equal(vc_kube_path(&vc_gvr_queues, NULL, "default", NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/apis/scheduling.volcano.sh/v1beta1/queues/default");
	assert_int_equal(vc_kube_path(&vc_gvr_podgroups, "a", NULL, NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/apis/scheduling.volcano.sh/v1beta1/namespaces/a/podgroups");
	assert_int_equal(vc_kube_path(&vc_gvr_jobs, "a", "j", "status", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/apis/batch.volcano.sh/v1alpha1/namespaces/a/jobs/j/status");
	assert_int_equal(vc_kube_path(&vc_gvr_leases, "kube-system", "vc", NULL, buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/vc");
	assert_int_equal(vc_kube_path(&vc_gvr_pvcs, "a", "d", NULL, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/api/v1/namespaces/a/persistentvolumeclaims/d");
	/* Segments are escaped. */
	assert_int_equal(vc_kube_path(&vc_gvr_configmaps, "n s", "a/b?c", NULL, buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "/api/v1/namespaces/n%20s/configmaps/a%2Fb%3Fc");
	/* Too small: E2BIG and an empty buffer. */
	assert_int_equal(vc_kube_path(&vc_gvr_pods, "ns1", "p1", NULL, buf, 30), VC_E2BIG);
	assert_string_equal(buf, "");
	assert_int_equal(vc_kube_path(&vc_gvr_pods, "ns1", "p1", NULL, buf, 31), 0);
	assert_string_equal(buf, "/api/v1/namespaces/ns1/pods/p1");
	/* Bad arguments. */
	assert_int_equal(vc_kube_path(&vc_gvr_pods, "ns1", NULL, "status", buf, sizeof(buf)),
			 VC_EINVAL);
	assert_int_equal(vc_kube_path(&vc_gvr_pods, "ns1", "..", NULL, buf, sizeof(buf)),
			 VC_EINVAL);
	assert_int_equal(vc_kube_path(&vc_gvr_pods, ".", "x", NULL, buf, sizeof(buf)), VC_EINVAL);
	assert_int_equal(vc_kube_path(NULL, "a", "x", NULL, buf, sizeof(buf)), VC_EINVAL);
	assert_int_equal(vc_kube_path(&vc_gvr_pods, "a", "x", NULL, NULL, 10), VC_EINVAL);
}

static void test_gvrs(void **state)
{
	(void)state;
	assert_string_equal(vc_gvr_events.group, "");
	assert_string_equal(vc_gvr_events.resource, "events");
	assert_true(vc_gvr_events.namespaced);
	assert_string_equal(vc_gvr_priorityclasses.group, "scheduling.k8s.io");
	assert_false(vc_gvr_priorityclasses.namespaced);
	assert_string_equal(vc_gvr_networkpolicies.group, "networking.k8s.io");
	assert_string_equal(vc_gvr_commands.group, "bus.volcano.sh");
	assert_string_equal(vc_gvr_commands.version, "v1alpha1");
	assert_false(vc_gvr_namespaces.namespaced);
	assert_true(vc_gvr_services.namespaced);
	assert_true(vc_gvr_secrets.namespaced);
	assert_string_equal(vc_gvr_mutatingwebhookconfigurations.group,
			    "admissionregistration.k8s.io");
	assert_false(vc_gvr_validatingwebhookconfigurations.namespaced);
}

/* A fake client: records the last call. */
struct fake {
	char calls[512];
	int freed;
};

static int fake_get(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		    const char *sub, json_t **out, struct vc_error *err)
{
	struct fake *f = ctx;

	(void)err;
	snprintf(f->calls, sizeof(f->calls), "get %s %s %s %s", r->resource, ns, name,
		 sub ? sub : "-");
	*out = json_pack("{s:s}", "kind", "Pod");
	return 0;
}

static int fake_patch(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		      const char *sub, enum vc_patch_type type, const json_t *patch, json_t **out,
		      struct vc_error *err)
{
	struct fake *f = ctx;

	(void)out;
	snprintf(f->calls, sizeof(f->calls), "patch %s %s %s %s %d %zu", r->resource, ns, name,
		 sub ? sub : "-", (int)type, json_object_size(patch));
	return vc_error_set(err, VC_ECONFLICT, "scripted conflict");
}

static void fake_free(void *ctx)
{
	((struct fake *)ctx)->freed++;
}

static void test_ops_dispatch(void **state)
{
	struct vc_kube_ops ops = { .get = fake_get, .patch = fake_patch, .free = fake_free };
	struct fake f = { 0 };
	struct vc_kube *c = vc_kube_new_with_ops(&ops, &f);
	struct vc_error err;
	json_t *out = (json_t *)&f, *p = J("{\"a\":1,\"b\":2}");

	(void)state;
	assert_non_null(c);
	assert_string_equal(vc_kube_namespace(c), "default");
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "ns", "p", NULL, &out, &err), 0);
	assert_string_equal(f.calls, "get pods ns p -");
	assert_string_equal(vc_json_get_str(out, "kind"), "Pod");
	json_decref(out);
	out = (json_t *)&f;
	assert_int_equal(vc_kube_patch(c, &vc_gvr_pods, "ns", "p", "status", VC_PATCH_STRATEGIC, p,
				       &out, &err),
			 VC_ECONFLICT);
	assert_null(out);
	assert_string_equal(f.calls, "patch pods ns p status 2 2");
	assert_string_equal(err.text, "scripted conflict");
	/* Missing ops are an error, not a crash. */
	assert_int_equal(vc_kube_list(c, &vc_gvr_pods, "ns", NULL, &out, &err), VC_EINVAL);
	assert_string_equal(err.text, "the client has no 'list' operation");
	assert_int_equal(vc_kube_delete(c, &vc_gvr_pods, "ns", "p", NULL, &err), VC_EINVAL);
	assert_string_equal(err.text, "the client has no 'del' operation");
	assert_int_equal(vc_kube_get(c, NULL, "ns", "p", NULL, &out, &err), VC_EINVAL);
	assert_int_equal(vc_kube_get(NULL, &vc_gvr_pods, "ns", "p", NULL, &out, &err), VC_EINVAL);
	/* The sleep hook is for real clients only. */
	vc_kube_set_sleep(c, fake_sleep, NULL);
	vc_kube_free(c);
	assert_int_equal(f.freed, 1);
	vc_kube_free(NULL);
	assert_null(vc_kube_new_with_ops(NULL, NULL));
	json_decref(p);
}

/* ---- the verbs against the mock -------------------------------------------------------------- */

static void with_token(struct vc_kube_config *cfg)
{
	cfg->token = (char *)"s3cr3t-t0ken";
	cfg->user_agent = (char *)"vc-test/1.0";
}

static void expect_req(struct mock *m, int i, const char *method, const char *target,
		       const char *content_type, const char *body)
{
	struct mreq *r;

	assert_true(i < m->nreqs);
	r = &m->reqs[i];
	assert_string_equal(r->method, method);
	assert_string_equal(r->target, target);
	assert_string_equal(r->content_type, content_type ? content_type : "");
	assert_string_equal(r->body, body ? body : "");
	assert_string_equal(r->accept, "application/json");
}

static void test_verbs(void **state)
{
	struct vc_delete_opts del = { "Foreground", 0, "u-1", "7" };
	struct vc_delete_opts del_none = { NULL, -1, NULL, NULL };
	struct vc_list_opts lo = { .label_selector = "app in (a,b),tier!=db",
				   .field_selector = "spec.nodeName=n1",
				   .resource_version = "0" };
	json_t *pod = J("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\","
			"\"namespace\":\"ns1\"}}");
	json_t *cm = J("{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\",\"namespace\":\"d\","
		       "\"resourceVersion\":\"5\"},\"data\":{\"k\":\"v\"}}");
	json_t *binding =
		J("{\"kind\":\"Binding\",\"target\":{\"kind\":\"Node\",\"name\":\"n1\"}}");
	json_t *patch = J("{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
	json_t *jpatch = J("[{\"op\":\"add\",\"path\":\"/metadata/labels/a\",\"value\":\"b\"}]");
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	json_t *out;

	(void)state;
	mock_start(&m, false, echo, NULL);
	c = client_for(&m, with_token);

	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "default", "p1", NULL, &out, &err), 0);
	assert_string_equal(vc_json_get_str(out, "method"), "GET");
	json_decref(out);
	expect_req(&m, 0, "GET", "/api/v1/namespaces/default/pods/p1", NULL, NULL);
	assert_string_equal(m.reqs[0].authorization, "Bearer s3cr3t-t0ken");
	assert_string_equal(m.reqs[0].user_agent, "vc-test/1.0");

	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "default", "p1", "status", NULL, &err), 0);
	expect_req(&m, 1, "GET", "/api/v1/namespaces/default/pods/p1/status", NULL, NULL);

	assert_int_equal(vc_kube_list(c, &vc_gvr_pods, NULL, &lo, &out, &err), 0);
	json_decref(out);
	expect_req(&m, 2, "GET",
		   "/api/v1/pods?labelSelector=app%20in%20%28a%2Cb%29%2Ctier%21%3Ddb"
		   "&fieldSelector=spec.nodeName%3Dn1&resourceVersion=0",
		   NULL, NULL);

	/* create: the namespace comes from the object when not given. */
	assert_int_equal(vc_kube_create(c, &vc_gvr_pods, NULL, NULL, NULL, pod, &out, &err), 0);
	assert_string_equal(vc_json_get_str(out, "method"), "POST");
	json_decref(out);
	expect_req(&m, 3, "POST", "/api/v1/namespaces/ns1/pods", "application/json",
		   "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\","
		   "\"namespace\":\"ns1\"}}");
	assert_int_equal(
		vc_kube_create(c, &vc_gvr_pods, "default", "p1", "binding", binding, NULL, &err),
		0);
	expect_req(&m, 4, "POST", "/api/v1/namespaces/default/pods/p1/binding", "application/json",
		   "{\"kind\":\"Binding\",\"target\":{\"kind\":\"Node\",\"name\":\"n1\"}}");
	assert_int_equal(
		vc_kube_create(c, &vc_gvr_pods, "default", "p1", "eviction", binding, NULL, &err),
		0);
	expect_req(&m, 5, "POST", "/api/v1/namespaces/default/pods/p1/eviction", "application/json",
		   "{\"kind\":\"Binding\",\"target\":{\"kind\":\"Node\",\"name\":\"n1\"}}");

	/* update and update status: the name and namespace from the object. */
	assert_int_equal(vc_kube_update(c, &vc_gvr_configmaps, NULL, NULL, NULL, cm, NULL, &err),
			 0);
	expect_req(&m, 6, "PUT", "/api/v1/namespaces/d/configmaps/cm", "application/json",
		   "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm\",\"namespace\":\"d\","
		   "\"resourceVersion\":\"5\"},\"data\":{\"k\":\"v\"}}");
	assert_int_equal(vc_kube_update(c, &vc_gvr_pods, "ns1", "p1", "status", pod, NULL, &err),
			 0);
	expect_req(&m, 7, "PUT", "/api/v1/namespaces/ns1/pods/p1/status", "application/json",
		   "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\","
		   "\"namespace\":\"ns1\"}}");

	/* The three patch types. */
	assert_int_equal(vc_kube_patch(c, &vc_gvr_pods, "default", "p1", NULL, VC_PATCH_MERGE,
				       patch, &out, &err),
			 0);
	assert_string_equal(vc_json_get_str(out, "method"), "PATCH");
	json_decref(out);
	expect_req(&m, 8, "PATCH", "/api/v1/namespaces/default/pods/p1",
		   "application/merge-patch+json", "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");
	assert_int_equal(vc_kube_patch(c, &vc_gvr_pods, "default", "p1", NULL, VC_PATCH_JSON,
				       jpatch, NULL, &err),
			 0);
	expect_req(&m, 9, "PATCH", "/api/v1/namespaces/default/pods/p1",
		   "application/json-patch+json",
		   "[{\"op\":\"add\",\"path\":\"/metadata/labels/a\",\"value\":\"b\"}]");
	assert_int_equal(vc_kube_patch(c, &vc_gvr_queues, NULL, "q1", "status", VC_PATCH_STRATEGIC,
				       patch, NULL, &err),
			 0);
	expect_req(&m, 10, "PATCH", "/apis/scheduling.volcano.sh/v1beta1/queues/q1/status",
		   "application/strategic-merge-patch+json",
		   "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}");

	/* delete with DeleteOptions, and without. */
	assert_int_equal(vc_kube_delete(c, &vc_gvr_pods, "default", "p1", &del, &err), 0);
	expect_req(&m, 11, "DELETE", "/api/v1/namespaces/default/pods/p1", "application/json",
		   "{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\",\"propagationPolicy\":"
		   "\"Foreground\",\"gracePeriodSeconds\":0,\"preconditions\":{\"uid\":\"u-1\","
		   "\"resourceVersion\":\"7\"}}");
	assert_int_equal(vc_kube_delete(c, &vc_gvr_nodes, NULL, "n1", &del_none, &err), 0);
	expect_req(&m, 12, "DELETE", "/api/v1/nodes/n1", NULL, NULL);
	assert_int_equal(vc_kube_delete(c, &vc_gvr_nodes, NULL, "n1", NULL, &err), 0);
	expect_req(&m, 13, "DELETE", "/api/v1/nodes/n1", NULL, NULL);
	/* After a DELETE, a GET is a plain GET again (nothing lingers in the handle). */
	assert_int_equal(vc_kube_get(c, &vc_gvr_nodes, NULL, "n1", NULL, NULL, &err), 0);
	expect_req(&m, 14, "GET", "/api/v1/nodes/n1", NULL, NULL);

	/* Argument errors never reach the server. */
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "default", NULL, NULL, &out, &err),
			 VC_EINVAL);
	assert_string_equal(err.text, "get of pods needs a name");
	assert_int_equal(vc_kube_create(c, &vc_gvr_pods, NULL, NULL, NULL, binding, NULL, &err),
			 VC_EINVAL);
	assert_string_equal(err.text, "create of pods needs a namespace");
	assert_int_equal(vc_kube_create(c, &vc_gvr_pods, "a", NULL, "binding", binding, NULL, &err),
			 VC_EINVAL);
	assert_string_equal(err.text, "create of pods/binding needs a name");
	assert_int_equal(vc_kube_update(c, &vc_gvr_pods, "a", NULL, NULL, binding, NULL, &err),
			 VC_EINVAL);
	assert_string_equal(err.text, "update of pods needs a name");
	assert_int_equal(vc_kube_patch(c, &vc_gvr_pods, "a", "p", NULL, (enum vc_patch_type)9,
				       patch, NULL, &err),
			 VC_EINVAL);
	assert_string_equal(err.text, "unknown patch type 9");
	assert_int_equal(vc_kube_delete(c, &vc_gvr_pods, "a", "", NULL, &err), VC_EINVAL);
	assert_int_equal(mock_nreqs(&m), 15);
	/* All of it over one connection. */
	assert_int_equal(m.nconns, 1);
	assert_int_equal(nsleeps, 0);

	vc_kube_free(c);
	mock_stop(&m);
	json_decref(pod);
	json_decref(cm);
	json_decref(binding);
	json_decref(patch);
	json_decref(jpatch);
}

/* ---- errors ---------------------------------------------------------------------------------- */

#define STATUS(code, reason, msg)                                                            \
	"{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\"," \
	"\"message\":\"" msg "\",\"reason\":\"" reason "\",\"code\":" #code "}"

static void test_error_mapping(void **state)
{
	static const struct {
		int status;
		const char *body;
		int code;
		const char *text;
	} cases[] = {
		{ 404, STATUS(404, "NotFound", "pods \\\"x\\\" not found"), VC_ENOTFOUND,
		  "pods \"x\" not found" },
		{ 409, STATUS(409, "AlreadyExists", "pods \\\"x\\\" already exists"),
		  VC_EALREADYEXISTS, "pods \"x\" already exists" },
		{ 409,
		  STATUS(409, "Conflict",
			 "Operation cannot be fulfilled on configmaps \\\"x\\\": the object has "
			 "been modified; please apply your changes to the latest version and try "
			 "again"),
		  VC_ECONFLICT,
		  "Operation cannot be fulfilled on configmaps \"x\": the object has been "
		  "modified; please apply your changes to the latest version and try again" },
		{ 410, STATUS(410, "Expired", "too old resource version: 1 (20)"), VC_EGONE,
		  "too old resource version: 1 (20)" },
		{ 422, STATUS(422, "Invalid", "Pod \\\"x\\\" is invalid: spec: Required value"),
		  VC_EUNPROCESSABLE, "Pod \"x\" is invalid: spec: Required value" },
		{ 403, STATUS(403, "Forbidden", "pods is forbidden: User cannot get"),
		  VC_EFORBIDDEN, "pods is forbidden: User cannot get" },
		{ 401, STATUS(401, "Unauthorized", "Unauthorized"), VC_EUNAUTHORIZED,
		  "Unauthorized" },
		{ 400, STATUS(400, "BadRequest", "bad request"), VC_EINVAL, "bad request" },
		{ 404, "404 page not found\n", VC_ENOTFOUND,
		  "the server responded with HTTP 404 to GET /api/v1/namespaces/default/pods/x: "
		  "404 page not found" },
		{ 405, "", VC_EINVAL,
		  "the server responded with HTTP 405 to GET /api/v1/namespaces/default/pods/x" },
		{ 302, "", VC_EIO,
		  "the server responded with HTTP 302 to GET /api/v1/namespaces/default/pods/x" },
		{ 200, "{\"kind\":", VC_EPARSE,
		  "cannot parse the response to GET /api/v1/namespaces/default/pods/x: "
		  "unexpected token near end of file" },
	};
	struct step step;
	struct script sc = { &step, 1 };
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	json_t *out;
	size_t i;

	(void)state;
	for (i = 0; i < VC_ARRAY_SIZE(cases); i++) {
		step = (struct step){ cases[i].status, NULL, cases[i].body, KEEP };
		mock_start(&m, false, scripted, &sc);
		c = client_for(&m, NULL);
		out = (json_t *)&m;
		assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "default", "x", NULL, &out, &err),
				 cases[i].code);
		assert_null(out);
		assert_int_equal(err.code, cases[i].code);
		assert_string_equal(err.text, cases[i].text);
		/* None of these is retried. */
		assert_int_equal(mock_nreqs(&m), 1);
		vc_kube_free(c);
		mock_stop(&m);
	}
}

/* 503 every time: five attempts with growing back-off, then the server's message. */
static void test_retry_5xx_gives_up(void **state)
{
	static const struct step steps[] = {
		{ 503, NULL, STATUS(503, "ServiceUnavailable", "etcdserver: request timed out"),
		  KEEP },
	};
	struct script sc = { steps, 1 };
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	json_t *pod = J("{\"metadata\":{\"name\":\"p\"}}");

	(void)state;
	mock_start(&m, false, scripted, &sc);
	c = client_for(&m, NULL);
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "default", "x", NULL, NULL, &err),
			 VC_ESERVER);
	assert_string_equal(err.text, "etcdserver: request timed out");
	assert_int_equal(mock_nreqs(&m), VC_KUBE_MAX_ATTEMPTS);
	assert_int_equal(nsleeps, 4);
	assert_int_equal(sleeps[0], 250 * VC_NSEC_PER_MSEC);
	assert_int_equal(sleeps[1], 500 * VC_NSEC_PER_MSEC);
	assert_int_equal(sleeps[2], 1000 * VC_NSEC_PER_MSEC);
	assert_int_equal(sleeps[3], 2000 * VC_NSEC_PER_MSEC);
	/* 429 and 5xx are retried for writes too. */
	nsleeps = 0;
	assert_int_equal(vc_kube_create(c, &vc_gvr_pods, "default", NULL, NULL, pod, NULL, &err),
			 VC_ESERVER);
	assert_int_equal(mock_nreqs(&m), 2 * VC_KUBE_MAX_ATTEMPTS);
	assert_int_equal(nsleeps, 4);
	vc_kube_free(c);
	mock_stop(&m);
	json_decref(pod);
}

/* A 500 is repeated only when the server asks for it with Retry-After. */
static void test_retry_500(void **state)
{
	static const struct step steps[] = {
		{ 500, NULL,
		  STATUS(500, "InternalError",
			 "resourceVersion should not be set on objects to be created"),
		  KEEP },
		{ 500, "Retry-After: 3\r\n", STATUS(500, "InternalError", "try later"), KEEP },
		{ 200, NULL, "{}", KEEP },
	};
	struct script sc = { steps, VC_ARRAY_SIZE(steps) };
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;

	(void)state;
	mock_start(&m, false, scripted, &sc);
	c = client_for(&m, NULL);
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "default", "x", NULL, NULL, &err),
			 VC_ESERVER);
	assert_string_equal(err.text, "resourceVersion should not be set on objects to be created");
	assert_int_equal(mock_nreqs(&m), 1);
	assert_int_equal(nsleeps, 0);
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "default", "x", NULL, NULL, &err), 0);
	assert_int_equal(mock_nreqs(&m), 3);
	assert_int_equal(nsleeps, 1);
	assert_int_equal(sleeps[0], 3 * VC_NSEC_PER_SEC);
	vc_kube_free(c);
	mock_stop(&m);
}

static void test_retry_after(void **state)
{
	static const struct step steps[] = {
		{ 503, "Retry-After: 2\r\n", STATUS(503, "ServiceUnavailable", "busy"), KEEP },
		{ 429, "Retry-After: 1\r\n", STATUS(429, "TooManyRequests", "slow down"), KEEP },
		{ 200, NULL, "{\"kind\":\"Pod\"}", KEEP },
		/* Then a Retry-After beyond the retry budget: no retry at all. */
		{ 429, "Retry-After: 120\r\n", STATUS(429, "TooManyRequests", "go away"), KEEP },
		/* Retry-After: 0 means at once. */
		{ 503, "retry-after:0\r\n", "", KEEP },
		{ 201, NULL, "{\"kind\":\"Pod\"}", KEEP },
	};
	struct script sc = { steps, VC_ARRAY_SIZE(steps) };
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	json_t *out;

	(void)state;
	mock_start(&m, false, scripted, &sc);
	c = client_for(&m, NULL);
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "default", "x", NULL, &out, &err), 0);
	assert_string_equal(vc_json_get_str(out, "kind"), "Pod");
	json_decref(out);
	assert_int_equal(mock_nreqs(&m), 3);
	assert_int_equal(nsleeps, 2);
	assert_int_equal(sleeps[0], 2 * VC_NSEC_PER_SEC);
	assert_int_equal(sleeps[1], 1 * VC_NSEC_PER_SEC);

	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "default", "x", NULL, NULL, &err),
			 VC_ETOOMANYREQUESTS);
	assert_string_equal(err.text, "go away");
	assert_int_equal(mock_nreqs(&m), 4);
	assert_int_equal(nsleeps, 2);

	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "default", "x", NULL, NULL, &err), 0);
	assert_int_equal(mock_nreqs(&m), 6);
	assert_int_equal(nsleeps, 2); /* a zero wait is no sleep */
	vc_kube_free(c);
	mock_stop(&m);
}

static void test_retry_transport(void **state)
{
	static const struct step steps[] = {
		{ 0, NULL, NULL, DROP },
		{ 0, NULL, NULL, DROP },
		{ 200, NULL, "{\"kind\":\"Pod\"}", KEEP },
	};
	struct script sc = { steps, VC_ARRAY_SIZE(steps) };
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	struct vc_kube_config cfg = { 0 };
	json_t *pod = J("{\"metadata\":{\"name\":\"p\"}}");
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	char url[64];
	int fd;

	(void)state;
	mock_start(&m, false, scripted, &sc);
	c = client_for(&m, NULL);
	/* A POST whose connection dies is not sent again: it may have been done. */
	assert_int_equal(vc_kube_create(c, &vc_gvr_pods, "default", NULL, NULL, pod, NULL, &err),
			 VC_EIO);
	assert_string_equal(err.text,
			    "POST /api/v1/namespaces/default/pods: Empty reply from server");
	assert_int_equal(mock_nreqs(&m), 1);
	assert_int_equal(nsleeps, 0);
	/* A GET is. */
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "default", "x", NULL, NULL, &err), 0);
	assert_int_equal(mock_nreqs(&m), 3);
	assert_int_equal(nsleeps, 1);
	assert_int_equal(sleeps[0], 250 * VC_NSEC_PER_MSEC);
	vc_kube_free(c);
	mock_stop(&m);

	/* Nobody listening: retried for every verb, then the transport's message. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
	close(fd);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/", ntohs(a.sin_port));
	cfg.server = url;
	assert_int_equal(vc_kube_new(&cfg, &c, &err), 0);
	vc_kube_set_sleep(c, fake_sleep, NULL);
	nsleeps = 0;
	assert_int_equal(vc_kube_create(c, &vc_gvr_pods, "default", NULL, NULL, pod, NULL, &err),
			 VC_EIO);
	assert_true(vc_str_has_prefix(err.text, "POST /api/v1/namespaces/default/pods: "));
	assert_non_null(strstr(err.text, "onnect"));
	assert_int_equal(nsleeps, VC_KUBE_MAX_ATTEMPTS - 1);
	assert_string_equal(vc_kube_namespace(c), "default");
	vc_kube_free(c);
	json_decref(pod);
}

/* ---- lists --------------------------------------------------------------------------------- */

static void pager(struct mock *m, const struct mreq *rq, struct mresp *rs)
{
	bool expire = m->ctx != NULL;

	if (!strstr(rq->target, "continue=")) {
		set_body(rs, "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\",\"metadata\":"
			     "{\"resourceVersion\":\"100\",\"continue\":\"c1\","
			     "\"remainingItemCount\":3},\"items\":[{\"metadata\":{\"name\":\"a\"}},"
			     "{\"metadata\":{\"name\":\"b\"}}]}");
	} else if (strstr(rq->target, "continue=c1")) {
		if (expire) {
			rs->status = 410;
			set_body(rs,
				 STATUS(410, "Expired",
					"The provided continue parameter is too old to display a "
					"consistent list result."));
			return;
		}
		set_body(rs,
			 "{\"kind\":\"ConfigMapList\",\"metadata\":{\"resourceVersion\":\"101\","
			 "\"continue\":\"c%2F2\",\"remainingItemCount\":1},\"items\":["
			 "{\"metadata\":{\"name\":\"c\"}},{\"metadata\":{\"name\":\"d\"}}]}");
	} else {
		set_body(rs,
			 "{\"kind\":\"ConfigMapList\",\"metadata\":{\"resourceVersion\":\"102\"},"
			 "\"items\":[{\"metadata\":{\"name\":\"e\"}}]}");
	}
}

static void test_list_paging(void **state)
{
	struct vc_list_opts lo = { .label_selector = "x=y", .resource_version = "0", .limit = 2 };
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	json_t *out;
	char *s;

	(void)state;
	mock_start(&m, false, pager, NULL);
	c = client_for(&m, NULL);
	assert_int_equal(vc_kube_list(c, &vc_gvr_configmaps, "default", &lo, &out, &err), 0);
	s = vc_json_dumps_sorted(out);
	assert_string_equal(s, "{\"apiVersion\":\"v1\",\"items\":[{\"metadata\":{\"name\":\"a\"}},"
			       "{\"metadata\":{\"name\":\"b\"}},{\"metadata\":{\"name\":\"c\"}},"
			       "{\"metadata\":{\"name\":\"d\"}},{\"metadata\":{\"name\":\"e\"}}],"
			       "\"kind\":\"ConfigMapList\",\"metadata\":{\"resourceVersion\":"
			       "\"100\"}}");
	vc_free(s);
	json_decref(out);
	assert_int_equal(mock_nreqs(&m), 3);
	assert_string_equal(m.reqs[0].target, "/api/v1/namespaces/default/configmaps"
					      "?labelSelector=x%3Dy&resourceVersion=0&limit=2");
	/* No resourceVersion with a continue token; the token is escaped. */
	assert_string_equal(m.reqs[1].target, "/api/v1/namespaces/default/configmaps"
					      "?labelSelector=x%3Dy&limit=2&continue=c1");
	assert_string_equal(m.reqs[2].target, "/api/v1/namespaces/default/configmaps"
					      "?labelSelector=x%3Dy&limit=2&continue=c%252F2");
	vc_kube_free(c);
	mock_stop(&m);

	/* An expired continue token: VC_EGONE with the server's message, no partial list. */
	mock_start(&m, false, pager, &m);
	c = client_for(&m, NULL);
	out = (json_t *)&m;
	assert_int_equal(vc_kube_list(c, &vc_gvr_configmaps, "default", &lo, &out, &err), VC_EGONE);
	assert_null(out);
	assert_string_equal(err.text, "The provided continue parameter is too old to display a "
				      "consistent list result.");
	/* Without a limit: one request, the list as it came. */
	assert_int_equal(vc_kube_list(c, &vc_gvr_configmaps, "default", NULL, &out, &err), 0);
	assert_string_equal(vc_json_get_str(vc_json_get_obj(out, "metadata"), "continue"), "c1");
	json_decref(out);
	assert_int_equal(mock_nreqs(&m), 3);
	assert_string_equal(m.reqs[2].target, "/api/v1/namespaces/default/configmaps");
	vc_kube_free(c);
	mock_stop(&m);
}

/*
 * one_page: the page asked for, as the server sent it (continue token kept), one request; the
 * caller asks for the next page itself (vc_informer: one page parsed at a time).
 */
static void test_list_one_page(void **state)
{
	struct vc_list_opts lo = { .resource_version = "0", .limit = 2, .one_page = true };
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	json_t *out;

	(void)state;
	mock_start(&m, false, pager, NULL);
	c = client_for(&m, NULL);
	assert_int_equal(vc_kube_list(c, &vc_gvr_configmaps, "default", &lo, &out, &err), 0);
	assert_int_equal(json_array_size(json_object_get(out, "items")), 2);
	assert_string_equal(vc_json_get_str(vc_json_get_obj(out, "metadata"), "continue"), "c1");
	json_decref(out);
	assert_int_equal(mock_nreqs(&m), 1);
	lo.continue_token = "c1";
	assert_int_equal(vc_kube_list(c, &vc_gvr_configmaps, "default", &lo, &out, &err), 0);
	assert_int_equal(json_array_size(json_object_get(out, "items")), 2);
	assert_string_equal(vc_json_get_str(vc_json_get_obj(out, "metadata"), "continue"), "c%2F2");
	json_decref(out);
	assert_int_equal(mock_nreqs(&m), 2);
	assert_string_equal(m.reqs[1].target,
			    "/api/v1/namespaces/default/configmaps?limit=2&continue=c1");
	vc_kube_free(c);
	mock_stop(&m);
}

static void big(struct mock *m, const struct mreq *rq, struct mresp *rs)
{
	size_t n = strstr(rq->target, "exact") ? 1000 : 1001;

	(void)m;
	rs->body = malloc(n);
	assert_non_null(rs->body);
	memset(rs->body, ' ', n);
	rs->body[0] = '{';
	rs->body[n - 1] = '}';
	rs->body_len = n;
	rs->chunked = strstr(rq->target, "chunked") != NULL;
	rs->chunk = 100;
}

static void small_cap(struct vc_kube_config *cfg)
{
	cfg->max_body = 1000;
}

static void test_body_cap(void **state)
{
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	json_t *out;

	(void)state;
	mock_start(&m, false, big, NULL);
	c = client_for(&m, small_cap);
	assert_int_equal(vc_kube_get(c, &vc_gvr_configmaps, "a", "exact", NULL, &out, &err), 0);
	assert_true(json_is_object(out));
	json_decref(out);
	/* Too big by Content-Length, and too big while streaming. */
	assert_int_equal(vc_kube_get(c, &vc_gvr_configmaps, "a", "over", NULL, &out, &err),
			 VC_E2BIG);
	assert_string_equal(err.text, "response to GET /api/v1/namespaces/a/configmaps/over "
				      "exceeds the limit of 1000 bytes");
	assert_int_equal(vc_kube_get(c, &vc_gvr_configmaps, "a", "chunked", NULL, &out, &err),
			 VC_E2BIG);
	assert_string_equal(err.text, "response to GET /api/v1/namespaces/a/configmaps/chunked "
				      "exceeds the limit of 1000 bytes");
	assert_null(out);
	assert_int_equal(mock_nreqs(&m), 3);
	vc_kube_free(c);
	mock_stop(&m);
}

/* ---- rate limit, threads, timeouts --------------------------------------------------------- */

static void limited(struct vc_kube_config *cfg)
{
	cfg->qps = 10;
	cfg->burst = 2;
}

static void test_rate_limit(void **state)
{
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	int i;

	(void)state;
	mock_start(&m, false, echo, NULL);
	c = client_for(&m, limited);
	/* A burst of 2, then one every 100 ms: the client sleeps exactly that. */
	for (i = 0; i < 5; i++)
		assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), 0);
	assert_int_equal(nsleeps, 3);
	assert_int_equal(sleeps[0], 100 * VC_NSEC_PER_MSEC);
	assert_int_equal(sleeps[1], 100 * VC_NSEC_PER_MSEC);
	assert_int_equal(sleeps[2], 100 * VC_NSEC_PER_MSEC);
	/* A second of idling refills the bucket to its burst. */
	fake_mono += VC_NSEC_PER_SEC;
	for (i = 0; i < 2; i++)
		assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), 0);
	assert_int_equal(nsleeps, 3);
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), 0);
	assert_int_equal(nsleeps, 4);
	vc_kube_free(c);
	mock_stop(&m);
}

struct worker {
	struct vc_kube *c;
	int ok;
	char first_error[VC_ERROR_TEXT_LEN];
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct vc_error err;
	json_t *out;
	int i;

	for (i = 0; i < 25; i++) {
		if (vc_kube_get(w->c, &vc_gvr_pods, "a", "p", NULL, &out, &err) == 0 &&
		    vc_str_eq(vc_json_get_str(out, "method"), "GET"))
			w->ok++;
		else if (!w->first_error[0])
			snprintf(w->first_error, sizeof(w->first_error), "%s", err.text);
		json_decref(out);
	}
	return NULL;
}

/* n threads each make 25 GETs through c; every one must be answered. */
static void run_workers(struct vc_kube *c, int n)
{
	struct worker w[8];
	pthread_t t[8];
	int i;

	assert_true(n <= 8);
	for (i = 0; i < n; i++) {
		w[i] = (struct worker){ c, 0, "" };
		assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
	}
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < n; i++)
		if (w[i].ok != 25)
			fail_msg("thread %d: %d of 25 requests answered; first error: %s", i,
				 w[i].ok, w[i].first_error);
}

static void test_threads(void **state)
{
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;

	(void)state;
	mock_start(&m, false, echo, NULL);
	c = client_for(&m, NULL);
	run_workers(c, 4);
	assert_int_equal(mock_nreqs(&m), 100);
	/* Connections are reused: never more than requests in flight at once. */
	assert_true(m.nconns >= 1 && m.nconns <= 4);
	/* The threads are gone and their handles with them; this thread makes a new one. */
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), 0);
	assert_true(m.nconns <= 4);
	vc_kube_free(c);
	mock_stop(&m);
}

/* Echo, then close the connection: every request needs a new one. */
static void echo_close(struct mock *m, const struct mreq *rq, struct mresp *rs)
{
	echo(m, rq, rs);
	rs->after = CLOSE;
}

/*
 * Many threads opening TLS connections at once, each resuming sessions the others' handshakes
 * left: libcurl 7.88 shares SSL_SESSION objects between threads unsafely (curl PR #14751), which
 * corrupted vc-controller's heap under load. The client must not share TLS sessions; under
 * `make tsan` this test reports the race if it does.
 */
static void test_tls_threads_reconnect(void **state)
{
	struct vc_kube *c;
	struct mock m;

	(void)state;
	mock_start(&m, true, echo_close, NULL);
	c = client_for(&m, NULL);
	run_workers(c, 8);
	assert_int_equal(mock_nreqs(&m), 200);
	assert_int_equal(m.nconns, 200);
	vc_kube_free(c);
	mock_stop(&m);
}

static void hanging(struct mock *m, const struct mreq *rq, struct mresp *rs)
{
	(void)m;
	(void)rq;
	rs->after = HANG;
}

static void short_timeout(struct vc_kube_config *cfg)
{
	cfg->timeout_ns = 300 * VC_NSEC_PER_MSEC;
}

static void test_timeout(void **state)
{
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;

	(void)state;
	mock_start(&m, false, hanging, NULL);
	c = client_for(&m, short_timeout);
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), VC_ETIMEDOUT);
	assert_true(vc_str_has_prefix(
		err.text, "GET /api/v1/namespaces/a/pods/p: Operation timed out after"));
	assert_int_equal(mock_nreqs(&m), 1);
	vc_kube_free(c);
	mock_stop(&m);
}

/* ---- watch ----------------------------------------------------------------------------------- */

static const char watch_stream[] =
	"{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\","
	"\"resourceVersion\":\"6\"}}}\n"
	"{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\","
	"\"resourceVersion\":\"7\"}}}\n"
	"{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"metadata\":{"
	"\"resourceVersion\":\"8\"}}}\n"
	"{\"type\":\"DELETED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"a\","
	"\"resourceVersion\":\"9\"}}}\n"
	"{\"type\":\"ERROR\",\"object\":" STATUS(410, "Expired",
						 "too old resource version: 5 (9)") "}\n";

enum wmode {
	W_STREAM,
	W_GONE,
	W_GARBAGE,
	W_HANG
};

static void watcher(struct mock *m, const struct mreq *rq, struct mresp *rs)
{
	enum wmode mode = *(enum wmode *)m->ctx;

	if (!strstr(rq->target, "watch=true")) {
		set_body(rs, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"nested\"}}");
		return;
	}
	switch (mode) {
	case W_STREAM:
		set_body(rs, watch_stream);
		rs->chunked = true;
		rs->chunk = 37; /* pieces that cut events anywhere */
		break;
	case W_GONE:
		rs->status = 410;
		set_body(rs, STATUS(410, "Expired", "too old resource version: 5 (9)"));
		break;
	case W_GARBAGE:
		set_body(rs, "{\"type\":\"ADDED\",\"object\":{}}\n<html>oops</html>\n");
		rs->chunked = true;
		break;
	case W_HANG:
		set_body(rs, "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n");
		rs->chunked = true;
		rs->after = HANG;
		break;
	}
}

struct wrec {
	struct vc_buf log;
	struct vc_kube *c;
	volatile int *stop;
	int stop_rc;
	bool nested;
};

static int on_event(void *ctx, enum vc_watch_event_type type, json_t *obj)
{
	struct wrec *w = ctx;
	json_t *meta = vc_json_get_obj(obj, "metadata"), *got = NULL;
	const char *name = vc_json_get_str(meta, "name");
	const char *what = type == VC_WATCH_ERROR ? vc_json_get_str(obj, "message")
						  : vc_json_get_str(meta, "resourceVersion");
	struct vc_error err;
	int rc = 0;

	rc |= vc_buf_addf(&w->log, "%d %s %s\n", (int)type, name ? name : "-", what ? what : "-");
	assert_int_equal(rc, 0);
	if (w->nested) {
		/* A call from inside the callback, on the thread whose handle is busy. */
		assert_int_equal(vc_kube_get(w->c, &vc_gvr_pods, "a", "n", NULL, &got, &err), 0);
		assert_string_equal(vc_json_get_str(vc_json_get_obj(got, "metadata"), "name"),
				    "nested");
		json_decref(got);
	}
	if (w->stop)
		*w->stop = 1;
	return w->stop_rc;
}

static void test_watch(void **state)
{
	struct vc_watch_opts wo = { .label_selector = "app=x",
				    .resource_version = "5",
				    .timeout_seconds = 30,
				    .allow_bookmarks = true };
	enum wmode mode = W_STREAM;
	struct wrec w = { 0 };
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	volatile int stop = 0;
	struct timespec t0, t1;
	int64_t ms;

	(void)state;
	mock_start(&m, false, watcher, &mode);
	c = client_for(&m, NULL);
	vc_buf_init(&w.log, 0);
	w.c = c;
	w.nested = true;
	assert_int_equal(vc_kube_watch(c, &vc_gvr_pods, "a", &wo, on_event, &w, &stop, &err), 0);
	assert_string_equal(vc_buf_str(&w.log), "0 a 6\n"
						"1 a 7\n"
						"3 - 8\n"
						"2 a 9\n"
						"4 - too old resource version: 5 (9)\n");
	assert_string_equal(m.reqs[0].target, "/api/v1/namespaces/a/pods?watch=true"
					      "&labelSelector=app%3Dx&resourceVersion=5"
					      "&allowWatchBookmarks=true&timeoutSeconds=30");
	assert_int_equal(mock_nreqs(&m), 6); /* the watch and five nested GETs */
	w.nested = false;

	/* The callback's non-zero return ends the watch with that value. */
	vc_buf_reset(&w.log);
	w.stop_rc = 3;
	assert_int_equal(vc_kube_watch(c, &vc_gvr_pods, NULL, NULL, on_event, &w, NULL, &err), 3);
	assert_string_equal(vc_buf_str(&w.log), "0 a 6\n");
	assert_string_equal(m.reqs[6].target, "/api/v1/pods?watch=true");
	w.stop_rc = 0;

	mode = W_GONE;
	assert_int_equal(vc_kube_watch(c, &vc_gvr_pods, "a", &wo, on_event, &w, &stop, &err),
			 VC_EGONE);
	assert_string_equal(err.text, "too old resource version: 5 (9)");

	mode = W_GARBAGE;
	vc_buf_reset(&w.log);
	assert_int_equal(vc_kube_watch(c, &vc_gvr_pods, "a", &wo, on_event, &w, &stop, &err),
			 VC_EPARSE);
	assert_string_equal(err.text,
			    "invalid watch event on line 2: '[' or '{' expected near '<'");
	assert_string_equal(vc_buf_str(&w.log), "0 - -\n");

	/* stop set by the callback while the server keeps the stream open: out within 200 ms. */
	mode = W_HANG;
	w.stop = &stop;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(vc_kube_watch(c, &vc_gvr_pods, "a", &wo, on_event, &w, &stop, &err),
			 VC_ESHUTDOWN);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms < 1000);
	assert_string_equal(err.text, "watch of /api/v1/namespaces/a/pods stopped");
	/* Already stopped: no request at all. */
	assert_int_equal(vc_kube_watch(c, &vc_gvr_pods, "a", &wo, on_event, &w, &stop, &err),
			 VC_ESHUTDOWN);
	assert_int_equal(mock_nreqs(&m), 10);
	assert_int_equal(vc_kube_watch(c, &vc_gvr_pods, "a", &wo, NULL, &w, &stop, &err),
			 VC_EINVAL);
	vc_buf_release(&w.log);
	vc_kube_free(c);
	mock_stop(&m);
}

/* ---- TLS and credentials --------------------------------------------------------------------- */

static char scratch[64];

static const char *scratch_file(const char *name, const char *text)
{
	static char path[4][128];
	static int i;
	FILE *f;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", scratch, name);
	f = fopen(path[i], "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path[i];
}

static void test_tls(void **state)
{
	struct vc_kube_config cfg = { 0 };
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	char *cn;

	(void)state;
	mock_start(&m, true, echo, NULL);
	cfg.server = m.url;

	/* The CA in memory, with a client certificate and key in memory. */
	cfg.ca_data = pki.ca_pem;
	cfg.client_cert_data = pki.client_cert_pem;
	cfg.client_key_data = pki.client_key_pem;
	assert_int_equal(vc_kube_new(&cfg, &c, &err), 0);
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), 0);
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), 0);
	vc_kube_free(c);
	assert_int_equal(mock_nreqs(&m), 2);
	cn = m.reqs[0].client_cn;
	assert_string_equal(cn, "caldera-test-user");
	assert_int_equal(m.nconns, 1);

	/* The same from files. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.server = m.url;
	cfg.ca_file = (char *)scratch_file("ca.crt", pki.ca_pem);
	cfg.client_cert_file = (char *)scratch_file("user.crt", pki.client_cert_pem);
	cfg.client_key_file = (char *)scratch_file("user.key", pki.client_key_pem);
	assert_int_equal(vc_kube_new(&cfg, &c, &err), 0);
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), 0);
	vc_kube_free(c);
	assert_string_equal(m.reqs[2].client_cn, "caldera-test-user");

	/* No client certificate: none is presented. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.server = m.url;
	cfg.ca_data = pki.ca_pem;
	assert_int_equal(vc_kube_new(&cfg, &c, &err), 0);
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), 0);
	vc_kube_free(c);
	assert_string_equal(m.reqs[3].client_cn, "");

	/* insecure-skip-tls-verify. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.server = m.url;
	cfg.insecure = true;
	assert_int_equal(vc_kube_new(&cfg, &c, &err), 0);
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), 0);
	vc_kube_free(c);
	assert_int_equal(mock_nreqs(&m), 5);

	/* The wrong CA: refused, not retried, and the message says why. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.server = m.url;
	cfg.ca_data = pki.other_ca_pem;
	assert_int_equal(vc_kube_new(&cfg, &c, &err), 0);
	vc_kube_set_sleep(c, fake_sleep, NULL);
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), VC_EIO);
	assert_true(vc_str_has_prefix(err.text,
				      "GET /api/v1/namespaces/a/pods/p: SSL certificate problem"));
	assert_int_equal(nsleeps, 0);
	vc_kube_free(c);

	/* A key that does not belong to the certificate. */
	memset(&cfg, 0, sizeof(cfg));
	cfg.server = m.url;
	cfg.ca_data = pki.ca_pem;
	cfg.client_cert_data = pki.client_cert_pem;
	cfg.client_key_data = pki.other_key_pem;
	assert_int_equal(vc_kube_new(&cfg, &c, &err), 0);
	vc_kube_set_sleep(c, fake_sleep, NULL);
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), VC_EIO);
	assert_true(vc_str_has_prefix(err.text, "GET /api/v1/namespaces/a/pods/p: "));
	vc_kube_free(c);
	assert_int_equal(mock_nreqs(&m), 5);
	mock_stop(&m);
}

struct logcap {
	struct vc_buf text;
};

static void capture(void *ctx, int level, const char *line)
{
	struct logcap *l = ctx;

	(void)level;
	if (vc_buf_adds(&l->text, line) || vc_buf_addc(&l->text, '\n'))
		fail_msg("log capture full");
}

/* The token file rotates; a 401 makes the client look at once; the token is never logged. */
static void token_server(struct mock *m, const struct mreq *rq, struct mresp *rs)
{
	(void)m;
	if (strstr(rq->target, "unauth")) {
		rs->status = 401;
		set_body(rs, STATUS(401, "Unauthorized", "Unauthorized"));
	} else if (strstr(rq->target, "busy") && (*(int *)m->ctx)++ == 0) {
		rs->status = 503;
		snprintf(rs->headers, sizeof(rs->headers), "Retry-After: 1\r\n");
	} else {
		set_body(rs, "{}");
	}
}

static void test_token_rotation(void **state)
{
	struct vc_kube_config cfg = { 0 };
	struct logcap lc;
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	const char *tok;
	int busy = 0;

	(void)state;
	vc_buf_init(&lc.text, 0);
	vc_log_set_sink(capture, &lc);
	vc_log_set_verbosity(5);
	mock_start(&m, true, token_server, &busy);

	/* In-cluster: the service account's folder, the service's address in the environment. */
	tok = scratch_file("token", "token-one\n");
	scratch_file("ca.crt", pki.ca_pem);
	scratch_file("namespace", "volcano-system");
	setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1", 1);
	{
		char port[16];

		snprintf(port, sizeof(port), "%d", m.port);
		setenv("KUBERNETES_SERVICE_PORT", port, 1);
	}
	assert_int_equal(vc_kube_config_in_cluster(scratch, &cfg, &err), 0);
	assert_int_equal(vc_kube_new(&cfg, &c, &err), 0);
	vc_kube_config_release(&cfg);
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	vc_kube_set_sleep(c, fake_sleep, NULL);
	assert_string_equal(vc_kube_namespace(c), "volcano-system");

	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), 0);
	assert_string_equal(m.reqs[0].authorization, "Bearer token-one");
	/* Rotated (a new file, as the kubelet's atomic writer makes it). */
	unlink(tok);
	scratch_file("token", "token-two-longer\n");
	fake_mono += VC_NSEC_PER_SEC;
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), 0);
	assert_string_equal(m.reqs[1].authorization, "Bearer token-one");
	fake_mono += VC_KUBE_TOKEN_RECHECK_NS;
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), 0);
	assert_string_equal(m.reqs[2].authorization, "Bearer token-two-longer");

	/* A 401, then the next request looks at the file without waiting. */
	unlink(tok);
	scratch_file("token", "token-three");
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "unauth", NULL, NULL, &err),
			 VC_EUNAUTHORIZED);
	assert_string_equal(m.reqs[3].authorization, "Bearer token-two-longer");
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, &err), 0);
	assert_string_equal(m.reqs[4].authorization, "Bearer token-three");

	/* A vanished file keeps the last token. */
	unlink(tok);
	fake_mono += VC_KUBE_TOKEN_RECHECK_NS;
	assert_int_equal(vc_kube_get(c, &vc_gvr_pods, "a", "busy", NULL, NULL, &err), 0);
	assert_string_equal(m.reqs[5].authorization, "Bearer token-three");
	assert_int_equal(mock_nreqs(&m), 7); /* the 503 was retried */
	vc_kube_free(c);
	mock_stop(&m);

	vc_log_set_sink(NULL, NULL);
	vc_log_threshold = VC_LOG_ERROR;
	assert_non_null(strstr(vc_buf_str(&lc.text), "retrying API request"));
	assert_non_null(strstr(vc_buf_str(&lc.text), "keeping the token"));
	assert_null(strstr(vc_buf_str(&lc.text), "token-"));
	vc_buf_release(&lc.text);
	scratch_file("token", "");
}

/* ---- credential plugins (exec, oidc) ------------------------------------------------------ */

/*
 * A client from a kubeconfig whose user is user_yaml (indented under "  user:"), for m. The
 * plugins are tests/data/exec's scripts, named by absolute path.
 */
static struct vc_kube *kubeconfig_client(const struct mock *m, const char *user_yaml)
{
	struct vc_kube_config cfg;
	struct vc_kube *c = NULL;
	struct vc_error err;
	char *ca = m->tls ? vc_base64_encode(pki.ca_pem, strlen(pki.ca_pem)) : NULL, *text;

	text = vc_asprintf("current-context: x\n"
			   "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
			   "clusters: [{name: c, cluster: {server: '%s'%s%s}}]\n"
			   "users:\n"
			   "- name: u\n"
			   "  user:\n%s",
			   m->url, ca ? ", certificate-authority-data: " : "", ca ? ca : "",
			   user_yaml);
	assert_non_null(text);
	if (vc_kubeconfig_load(scratch_file("kubeconfig", text), NULL, NULL, &cfg, &err))
		fail_msg("vc_kubeconfig_load: %s", err.text);
	vc_free(text);
	vc_free(ca);
	if (vc_kube_new(&cfg, &c, &err))
		fail_msg("vc_kube_new: %s", err.text);
	vc_kube_config_release(&cfg);
	vc_kube_set_sleep(c, fake_sleep, NULL);
	return c;
}

/* The user block of an exec plugin: tests/data/exec/<script>. */
static const char *exec_user(const char *script)
{
	static char buf[1024];
	char cwd[512];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(buf, sizeof(buf),
		 "    exec:\n"
		 "      apiVersion: client.authentication.k8s.io/v1\n"
		 "      command: %s/tests/data/exec/%s\n"
		 "      interactiveMode: Never\n",
		 cwd, script);
	return buf;
}

/* How many times the counting plugin ran. */
static int plugin_runs(void)
{
	char path[128];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/count", scratch);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/* Answers 200 to requests with the bearer token or client certificate it is set to, else 401. */
struct gate {
	const char *bearer; /* NULL: any */
	const char *cn;	    /* NULL: any */
};

static void gate_server(struct mock *m, const struct mreq *rq, struct mresp *rs)
{
	const struct gate *g = m->ctx;
	char want[256];
	bool ok = true;

	if (g->bearer) {
		snprintf(want, sizeof(want), "Bearer %s", g->bearer);
		ok = !strcmp(rq->authorization, want);
	}
	if (g->cn)
		ok = ok && !strcmp(rq->client_cn, g->cn);
	if (ok) {
		set_body(rs, "{}");
	} else {
		rs->status = 401;
		set_body(rs, STATUS(401, "Unauthorized", "Unauthorized"));
	}
}

static void gate_set(struct mock *m, struct gate *g, const char *bearer, const char *cn)
{
	pthread_mutex_lock(&m->lock);
	g->bearer = bearer;
	g->cn = cn;
	pthread_mutex_unlock(&m->lock);
}

static void exec_env_clear(void)
{
	unsetenv("EXEC_COUNT_FILE");
	unsetenv("EXEC_EXPIRY");
	unsetenv("EXEC_TOKEN");
	unsetenv("EXEC_CERT_FILE");
	unsetenv("EXEC_KEY_FILE");
	scratch_file("count", "0\n");
}

static int get(struct vc_kube *c, struct vc_error *err)
{
	return vc_kube_get(c, &vc_gvr_pods, "a", "p", NULL, NULL, err);
}

/*
 * An exec plugin's token: sent as the bearer token, kept while it is good (one run for many
 * requests), fetched again after its expirationTimestamp and after a 401, where the request is
 * sent once more with the new token, and only once.
 */
static void test_exec_plugin_token(void **state)
{
	struct gate g = { "token-1", NULL };
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	int n;

	(void)state;
	exec_env_clear();
	setenv("EXEC_COUNT_FILE", scratch_file("count", "0\n"), 1);
	mock_start(&m, false, gate_server, &g);
	c = kubeconfig_client(&m, exec_user("token.sh"));
	/* Nothing runs before the first request. */
	assert_int_equal(plugin_runs(), 0);
	assert_int_equal(get(c, &err), 0);
	assert_int_equal(get(c, &err), 0);
	assert_int_equal(get(c, &err), 0);
	assert_int_equal(mock_nreqs(&m), 3);
	assert_string_equal(m.reqs[0].authorization, "Bearer token-1");
	assert_string_equal(m.reqs[2].authorization, "Bearer token-1");
	assert_int_equal(plugin_runs(), 1);

	/* Revoked early: 401, a new token, the request again. */
	gate_set(&m, &g, "token-2", NULL);
	assert_int_equal(get(c, &err), 0);
	assert_int_equal(mock_nreqs(&m), 5);
	assert_string_equal(m.reqs[3].authorization, "Bearer token-1");
	assert_string_equal(m.reqs[4].authorization, "Bearer token-2");
	assert_int_equal(plugin_runs(), 2);

	/* A server that refuses every token: one new token per 401, then the 401 is the answer. */
	gate_set(&m, &g, "never", NULL);
	assert_int_equal(get(c, &err), VC_EUNAUTHORIZED);
	assert_string_equal(err.text, "Unauthorized");
	assert_int_equal(mock_nreqs(&m), 7);
	assert_string_equal(m.reqs[6].authorization, "Bearer token-3");
	assert_int_equal(plugin_runs(), 3);
	/* The refused token is not used again. */
	gate_set(&m, &g, "token-4", NULL);
	assert_int_equal(get(c, &err), 0);
	assert_int_equal(mock_nreqs(&m), 8);
	assert_int_equal(plugin_runs(), 4);

	/* An expirationTimestamp in the past: the plugin runs for each request. */
	gate_set(&m, &g, NULL, NULL);
	setenv("EXEC_EXPIRY", "2000-01-01T00:00:00Z", 1);
	vc_kube_free(c);
	scratch_file("count", "0\n");
	c = kubeconfig_client(&m, exec_user("token.sh"));
	assert_int_equal(get(c, &err), 0);
	assert_int_equal(get(c, &err), 0);
	assert_int_equal(plugin_runs(), 2);
	/* ... and once per expiry when it is in the future. */
	setenv("EXEC_EXPIRY", "2200-01-01T00:00:00Z", 1);
	assert_int_equal(get(c, &err), 0);
	assert_int_equal(get(c, &err), 0);
	assert_int_equal(plugin_runs(), 3);
	n = mock_nreqs(&m);
	assert_string_equal(m.reqs[n - 1].authorization, "Bearer token-3");
	vc_kube_free(c);
	mock_stop(&m);
	exec_env_clear();
}

/* A plugin that fails fails the request, naming the plugin; nothing is sent. */
static void test_exec_plugin_fails(void **state)
{
	struct gate g = { NULL, NULL };
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	char cwd[512], want[1024];
	int saved = dup(STDERR_FILENO), fd = open("/dev/null", O_WRONLY);

	(void)state;
	exec_env_clear();
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	mock_start(&m, false, gate_server, &g);
	c = kubeconfig_client(&m, exec_user("fail.sh"));
	/* The plugin's own stderr goes to ours: keep it out of the test output. */
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	close(fd);
	assert_int_equal(get(c, &err), VC_EIO);
	snprintf(want, sizeof(want),
		 "getting credentials: exec: executable %s/tests/data/exec/fail.sh failed with "
		 "exit code 3",
		 cwd);
	assert_string_equal(err.text, want);
	vc_kube_free(c);
	c = kubeconfig_client(&m, exec_user("bad-json.sh"));
	assert_int_equal(get(c, &err), VC_EPARSE);
	assert_non_null(
		strstr(err.text, "bad-json.sh: decoding stdout: couldn't get version/kind"));
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	assert_int_equal(mock_nreqs(&m), 0);
	vc_kube_free(c);
	mock_stop(&m);
}

/*
 * An exec plugin's client certificate is the one TLS presents; when a 401 makes the plugin run
 * again and it returns another certificate, the new one is used, on a new connection.
 */
static void test_exec_plugin_cert(void **state)
{
	struct gate g = { NULL, "caldera-test-user" };
	X509 *rotated = make_cert("rotated-user", pki.other_key, pki.ca, pki.ca_key, false, NULL);
	char *rotated_pem = cert_pem(rotated);
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	int conns;

	(void)state;
	exec_env_clear();
	setenv("EXEC_COUNT_FILE", scratch_file("count", "0\n"), 1);
	setenv("EXEC_CERT_FILE", scratch_file("exec.crt", pki.client_cert_pem), 1);
	setenv("EXEC_KEY_FILE", scratch_file("exec.key", pki.client_key_pem), 1);
	scratch_file("exec.crt.2", rotated_pem);
	scratch_file("exec.key.2", pki.other_key_pem);
	mock_start(&m, true, gate_server, &g);
	c = kubeconfig_client(&m, exec_user("cert.sh"));
	assert_int_equal(get(c, &err), 0);
	assert_int_equal(get(c, &err), 0);
	assert_int_equal(mock_nreqs(&m), 2);
	assert_string_equal(m.reqs[1].client_cn, "caldera-test-user");
	assert_string_equal(m.reqs[1].authorization, "");
	assert_int_equal(plugin_runs(), 1);
	conns = m.nconns;

	gate_set(&m, &g, NULL, "rotated-user");
	assert_int_equal(get(c, &err), 0);
	assert_int_equal(mock_nreqs(&m), 4);
	assert_string_equal(m.reqs[2].client_cn, "caldera-test-user");
	assert_string_equal(m.reqs[3].client_cn, "rotated-user");
	assert_int_equal(plugin_runs(), 2);
	assert_true(m.nconns > conns);
	/* The rotated certificate stays. */
	assert_int_equal(get(c, &err), 0);
	assert_string_equal(m.reqs[4].client_cn, "rotated-user");
	vc_kube_free(c);
	mock_stop(&m);
	X509_free(rotated);
	vc_free(rotated_pem);
	exec_env_clear();
}

/* Many threads, one plugin run (TSan runs this as part of test_kube). */
static void test_exec_plugin_threads(void **state)
{
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;
	int i;

	(void)state;
	exec_env_clear();
	setenv("EXEC_COUNT_FILE", scratch_file("count", "0\n"), 1);
	mock_start(&m, false, echo, NULL);
	c = kubeconfig_client(&m, exec_user("token.sh"));
	run_workers(c, 4);
	assert_int_equal(mock_nreqs(&m), 100);
	for (i = 0; i < 100; i++)
		assert_string_equal(m.reqs[i].authorization, "Bearer token-1");
	assert_int_equal(plugin_runs(), 1);
	assert_int_equal(get(c, &err), 0);
	vc_kube_free(c);
	mock_stop(&m);
	exec_env_clear();
}

/* JWT segments: {"alg":"none"}, {"exp":1893456000,"sub":"ann"} and {"exp":1000000000}. */
#define OIDC_USER(tok)         \
	"    auth-provider:\n" \
	"      name: oidc\n"   \
	"      config: {idp-issuer-url: 'https://idp', client-id: k8s, id-token: " tok "}\n"
#define JWT_VALID   "eyJhbGciOiJub25lIn0.eyJleHAiOjE4OTM0NTYwMDAsInN1YiI6ImFubiJ9.c2ln"
#define JWT_EXPIRED "eyJhbGciOiJub25lIn0.eyJleHAiOjEwMDAwMDAwMDB9.c2ln"

/* oidc's id-token is the bearer token; once it has expired, the client says so, sends nothing. */
static void test_oidc_id_token(void **state)
{
	struct gate g = { JWT_VALID, NULL };
	struct vc_error err;
	struct vc_kube *c;
	struct mock m;

	(void)state;
	mock_start(&m, false, gate_server, &g);
	c = kubeconfig_client(&m, OIDC_USER(JWT_VALID));
	assert_int_equal(get(c, &err), 0);
	assert_string_equal(m.reqs[0].authorization, "Bearer " JWT_VALID);
	vc_kube_free(c);
	c = kubeconfig_client(&m, OIDC_USER(JWT_EXPIRED));
	assert_int_equal(get(c, &err), VC_EUNAUTHORIZED);
	assert_string_equal(
		err.text, "the oidc id-token expired at 2001-09-09T01:46:40Z, and Caldera does not "
			  "refresh it with the refresh-token: log in again to get a new id-token, "
			  "or use an exec credential plugin such as kubelogin");
	assert_int_equal(mock_nreqs(&m), 1);
	vc_kube_free(c);
	mock_stop(&m);
}

static void test_new_errors(void **state)
{
	struct vc_kube_config cfg = { 0 };
	struct vc_error err;
	struct vc_kube *c = (struct vc_kube *)&cfg;
	char want[256];

	(void)state;
	assert_int_equal(vc_kube_new(&cfg, &c, &err), VC_EINVAL);
	assert_null(c);
	assert_string_equal(err.text, "the client configuration has no server");
	assert_int_equal(vc_kube_new(NULL, &c, &err), VC_EINVAL);
	assert_int_equal(vc_kube_new(&cfg, NULL, &err), VC_EINVAL);
	cfg.server = (char *)"https://127.0.0.1:1";
	snprintf(want, sizeof(want), "%s/no-token", scratch);
	cfg.token_file = want;
	assert_int_equal(vc_kube_new(&cfg, &c, &err), VC_ENOENT);
	assert_null(c);
	snprintf(want, sizeof(want),
		 "cannot read token file '%s/no-token': No such file or directory", scratch);
	assert_string_equal(err.text, want);
	cfg.token_file = (char *)scratch_file("empty-token", "\n");
	assert_int_equal(vc_kube_new(&cfg, &c, &err), VC_EINVAL);
	assert_true(vc_str_has_suffix(err.text, "empty-token': the file is empty"));

	/* Allocation failures while making a client: no leak, no crash. */
	cfg.token_file = NULL;
	cfg.token = (char *)"t";
	{
		long n, failures;
		int rc;

		for (n = 0;; n++) {
			vc_alloc_fail_after(n);
			rc = vc_kube_new(&cfg, &c, &err);
			failures = vc_alloc_failures();
			vc_alloc_fail_reset();
			if (!failures) {
				assert_int_equal(rc, 0);
				vc_kube_free(c);
				break;
			}
			assert_int_equal(rc, VC_ENOMEM);
			assert_null(c);
		}
	}
}

static int count_events(void *ctx, enum vc_watch_event_type type, json_t *obj)
{
	(void)type;
	(void)obj;
	++*(int *)ctx;
	return 0;
}

/*
 * Every allocation of a call failing in turn (jansson's included): the call fails with
 * VC_ENOMEM (or VC_EPARSE, how jansson reports some), leaks nothing, and the next call works.
 */
static void test_allocation_failures(void **state)
{
	struct vc_list_opts lo = { .limit = 2 };
	struct vc_delete_opts del = { "Background", 5, "u", "1" };
	enum wmode mode = W_STREAM;
	json_t *pod = J("{\"metadata\":{\"name\":\"p\",\"namespace\":\"a\"}}");
	struct vc_error err;
	struct vc_kube *c;
	struct mock m1, m2;
	long n, failures;
	int op, rc, events, total;
	json_t *out;

	(void)state;
	vc_alloc_install_json();
	mock_start(&m1, false, pager, NULL);
	mock_start(&m2, false, watcher, &mode);
	for (op = 0; op < 4; op++) {
		c = client_for(op == 0 ? &m1 : &m2, NULL);
		for (n = 0;; n++) {
			out = NULL;
			events = 0;
			vc_alloc_fail_after(n);
			switch (op) {
			case 0:
				rc = vc_kube_list(c, &vc_gvr_configmaps, "a", &lo, &out, &err);
				break;
			case 1:
				rc = vc_kube_create(c, &vc_gvr_pods, NULL, NULL, NULL, pod, &out,
						    &err);
				break;
			case 2:
				rc = vc_kube_delete(c, &vc_gvr_pods, "a", "p", &del, &err);
				break;
			default:
				rc = vc_kube_watch(c, &vc_gvr_pods, "a", NULL, count_events,
						   &events, NULL, &err);
				break;
			}
			failures = vc_alloc_failures();
			vc_alloc_fail_reset();
			if (!failures) {
				if (rc)
					fail_msg("op %d, no failure (n %ld): %d %s", op, n, rc,
						 err.text);
				if (op == 0)
					assert_int_equal(
						json_array_size(json_object_get(out, "items")), 5);
				if (op == 3)
					assert_int_equal(events, 5);
				json_decref(out);
				break;
			}
			if (rc != VC_ENOMEM && rc != VC_EPARSE)
				fail_msg("op %d, allocation %ld: %d %s", op, n, rc, err.text);
			assert_int_equal(err.code, rc);
			assert_null(out);
		}
		assert_true(n > 3);
		vc_kube_free(c);
	}
	total = m1.nreqs + m2.nreqs;
	assert_true(total > 20);
	mock_stop(&m1);
	mock_stop(&m2);
	json_decref(pod);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_gvrs),
		cmocka_unit_test(test_ops_dispatch),
		cmocka_unit_test_setup_teardown(test_verbs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_mapping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retry_5xx_gives_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retry_500, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retry_after, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retry_transport, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_paging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_one_page, setup, teardown),
		cmocka_unit_test_setup_teardown(test_body_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tls_threads_reconnect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_token_rotation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_plugin_token, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_plugin_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_plugin_cert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_plugin_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oidc_id_token, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_allocation_failures, setup, teardown),
	};
	int rc;

	signal(SIGPIPE, SIG_IGN);
	snprintf(scratch, sizeof(scratch), "/tmp/test_kube.XXXXXX");
	if (!mkdtemp(scratch))
		return 1;
	/* Retries log warnings; only the token test looks at them. */
	vc_log_threshold = VC_LOG_ERROR;
	pki_make();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	pki_free();
	{
		static const char *const names[] = {
			"ca.crt",    "user.crt",    "user.key",	  "token",
			"namespace", "empty-token", "kubeconfig", "count",
			"exec.crt",  "exec.key",    "exec.crt.2", "exec.key.2",
		};
		char p[128];
		size_t i;

		for (i = 0; i < VC_ARRAY_SIZE(names); i++) {
			snprintf(p, sizeof(p), "%s/%s", scratch, names[i]);
			unlink(p);
		}
		rmdir(scratch);
	}
	return rc;
}
