/*
 * server.c - vc-webhook's HTTPS server: routes, metrics, file reloads (see server.h).
 */
#include "server.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_httpd.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"
#include "vc_yaml.h"

/* Certificates and keys are small; anything bigger is not one. */
#define PEM_MAX ((size_t)1 << 20)
#define NPATHS	8

/* Go's mux serves every method; these are the ones a client may send with a body. */
static const char *const methods[] = { "POST", "PUT", "PATCH", "GET", "DELETE", "OPTIONS" };

/* Paths Volcano serves that Caldera leaves out (docs/volcano/webhooks.md §2.1). */
static const char *const volcano_only_paths[] = { "/hypernodes/validate", "/cronjobs/validate",
						  "/jobflows/validate" };

/* What stat() said about a file; two differ when the file was replaced or written. */
struct stamp {
	int err; /* errno of stat(), 0 when it worked */
	dev_t dev;
	ino_t ino;
	off_t size;
	int64_t mtime_ns;
};

struct route_ctx {
	struct webhook_server *srv;
	const char *path; /* one of admission_paths */
};

struct webhook_server {
	struct webhook_server_opts opts; /* strings below are copies */
	char *address, *cert_file, *key_file, *ca_file, *conf_file, *healthz_address;
	const char *paths[NPATHS + 1];
	struct route_ctx routes[NPATHS];
	size_t npaths;

	struct admission_config config; /* opts.config's copy; pod_config unused */
	struct vc_metrics *metrics;
	bool own_metrics;
	struct vc_metric *m_requests, *m_denials, *m_duration, *m_reloads;

	struct vc_httpd *httpd, *healthz;

	/* The files and what is in service; guarded by poll_lock. */
	pthread_mutex_t poll_lock;
	char *cert_pem, *key_pem, *ca_pem;
	struct stamp cert_st, key_st, ca_st, conf_st;

	/* The admission configuration; guarded by conf_lock. */
	pthread_mutex_t conf_lock;
	json_t *conf;

	/* The polling thread. */
	pthread_mutex_t thread_lock;
	pthread_cond_t thread_cond;
	pthread_t thread;
	bool thread_running, thread_stop;
};

/* ---- files ------------------------------------------------------------------------------- */

static void stamp_take(const char *path, struct stamp *st)
{
	struct stat sb;

	memset(st, 0, sizeof(*st));
	if (stat(path, &sb)) {
		st->err = errno ? errno : EIO;
		return;
	}
	st->dev = sb.st_dev;
	st->ino = sb.st_ino;
	st->size = sb.st_size;
	st->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
}

static bool stamp_equal(const struct stamp *a, const struct stamp *b)
{
	return a->err == b->err && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_ns == b->mtime_ns;
}

/* The last system error as a negative code; never 0. */
static int neg_errno(void)
{
	int e = errno;

	return e > 0 ? -e : VC_EIO;
}

/* Go's text of a syscall error: strerror with a lowercase first letter. */
static void go_errno_text(int e, char *buf, size_t len)
{
	snprintf(buf, len, "%s", strerror(e));
	if (buf[0] >= 'A' && buf[0] <= 'Z')
		buf[0] = (char)(buf[0] - 'A' + 'a');
}

/*
 * Read a whole file (at most cap bytes) into a new vc_malloc'd string. Returns 0, -errno with
 * Go's os.ReadFile text in why ("open <path>: no such file or directory"), VC_E2BIG or
 * VC_ENOMEM.
 */
static int read_file(const char *path, size_t cap, char **out, char *why, size_t whylen)
{
	struct vc_buf b;
	char chunk[8192], text[128];
	int fd, rc = 0;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = neg_errno();
		go_errno_text(-rc, text, sizeof(text));
		snprintf(why, whylen, "open %s: %s", path, text);
		return rc;
	}
	vc_buf_init(&b, cap + 1);
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = neg_errno();
			go_errno_text(-rc, text, sizeof(text));
			snprintf(why, whylen, "read %s: %s", path, text);
			break;
		}
		if (n == 0)
			break;
		rc = vc_buf_add(&b, chunk, (size_t)n);
		if (rc) {
			snprintf(why, whylen, "read %s: %s", path,
				 rc == VC_E2BIG ? "file too large" : "out of memory");
			break;
		}
	}
	close(fd);
	if (!rc) {
		*out = vc_buf_take(&b);
		if (!*out) {
			rc = VC_ENOMEM;
			snprintf(why, whylen, "read %s: out of memory", path);
		}
	}
	vc_buf_release(&b);
	return rc;
}

/*
 * Volcano's LoadAdmissionConf: the file's first YAML document as an object (an empty file is
 * an empty configuration). *out is NULL, and the reason logged, when the file is missing or does
 * not parse. Returns 0, or VC_ENOMEM (nothing is known about the file then).
 */
static int load_conf(const char *path, json_t **out)
{
	struct vc_error err;
	json_t *docs = NULL, *conf = NULL, *groups;
	int rc;

	*out = NULL;
	vc_error_clear(&err);
	rc = vc_yaml_load_file(path, &docs, &err);
	if (rc == VC_ENOMEM)
		return rc;
	if (rc) {
		VC_ERROR("cannot load the admission configuration", "file=%s err=\"%s\"", path,
			 err.text);
		return 0;
	}
	if (json_array_size(docs) == 0) {
		conf = json_object();
		if (!conf) {
			json_decref(docs);
			return VC_ENOMEM;
		}
	} else if (json_is_object(json_array_get(docs, 0))) {
		conf = json_incref(json_array_get(docs, 0));
	}
	json_decref(docs);
	groups = json_object_get(conf, "resourceGroups");
	if (!conf || (groups && !json_is_array(groups) && !json_is_null(groups))) {
		VC_ERROR("cannot load the admission configuration", "file=%s err=\"%s\"", path,
			 conf ? "resourceGroups is not a list" : "not a mapping");
		json_decref(conf);
		return 0;
	}
	VC_INFO("admission configuration loaded", "file=%s resource_groups=%zu", path,
		json_array_size(groups));
	*out = conf;
	return 0;
}

static void conf_set(struct webhook_server *srv, json_t *conf)
{
	json_t *old;

	pthread_mutex_lock(&srv->conf_lock);
	old = srv->conf;
	srv->conf = conf;
	pthread_mutex_unlock(&srv->conf_lock);
	json_decref(old);
}

json_t *webhook_server_admission_conf(struct webhook_server *srv)
{
	json_t *c;

	pthread_mutex_lock(&srv->conf_lock);
	c = json_incref(srv->conf);
	pthread_mutex_unlock(&srv->conf_lock);
	return c;
}

/*
 * Check that cert (its first certificate) and key parse and belong together, with OpenSSL,
 * before the TLS library sees them: GnuTLS leaks memory on some malformed PEM texts, and this
 * gives a better message than its refusal.
 */
static int check_pair(const char *cert, const char *key, const char *cert_file,
		      const char *key_file, struct vc_error *err)
{
	BIO *bio;
	X509 *x = NULL;
	EVP_PKEY *k = NULL;
	int rc = 0;

	bio = BIO_new_mem_buf(cert, -1);
	if (bio)
		x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
	BIO_free(bio);
	bio = x ? BIO_new_mem_buf(key, -1) : NULL;
	if (bio)
		k = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
	BIO_free(bio);
	if (!x)
		rc = vc_error_set(err, VC_EINVAL, "cannot parse the certificate in '%s'",
				  cert_file);
	else if (!k)
		rc = vc_error_set(err, VC_EINVAL, "cannot parse the private key in '%s'", key_file);
	else if (X509_check_private_key(x, k) != 1)
		rc = vc_error_set(err, VC_EINVAL,
				  "the private key in '%s' does not match the certificate in '%s'",
				  key_file, cert_file);
	ERR_clear_error();
	EVP_PKEY_free(k);
	X509_free(x);
	return rc;
}

/* ---- parsing flags ---------------------------------------------------------------------- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int webhook_parse_paths(const char *s, const char **out, size_t max, int *skipped,
			struct vc_error *err)
{
	size_t n = 0, i;
	int skip = 0;

	if (!out || !max)
		return vc_error_set(err, VC_E2BIG, "no room for the enabled admission paths");
	out[0] = NULL;
	while (s && *s) {
		const char *end = strchr(s, ','), *a = s, *z;
		const char *found = NULL;
		bool dup = false, volcano_only = false;

		z = end ? end : s + strlen(s);
		s = end ? end + 1 : z;
		while (a < z && is_blank(*a))
			a++;
		while (z > a && is_blank(z[-1]))
			z--;
		if (a == z)
			continue;
		for (i = 0; admission_paths[i] && !found; i++)
			if (strlen(admission_paths[i]) == (size_t)(z - a) &&
			    !memcmp(admission_paths[i], a, (size_t)(z - a)))
				found = admission_paths[i];
		for (i = 0; i < VC_ARRAY_SIZE(volcano_only_paths) && !found; i++)
			if (strlen(volcano_only_paths[i]) == (size_t)(z - a) &&
			    !memcmp(volcano_only_paths[i], a, (size_t)(z - a)))
				volcano_only = true;
		if (volcano_only) {
			skip++;
			continue;
		}
		if (!found) {
			out[0] = NULL;
			return vc_error_set(err, VC_EINVAL,
					    "enabled admission %.*s not found on the admission "
					    "registered map",
					    (int)(z - a), a);
		}
		for (i = 0; i < n; i++)
			dup = dup || out[i] == found;
		if (dup)
			continue;
		if (n + 1 >= max) {
			out[0] = NULL;
			return vc_error_set(err, VC_E2BIG, "too many enabled admission paths");
		}
		out[n++] = found;
		out[n] = NULL;
	}
	if (skipped)
		*skipped = skip;
	return 0;
}

int webhook_parse_hostport(const char *s, char *host, size_t len, uint16_t *port,
			   struct vc_error *err)
{
	const char *colon, *h, *hend;
	int p;

	if (!s || !host || !len || !port)
		return vc_error_set(err, VC_EINVAL, "invalid address");
	host[0] = '\0';
	colon = strrchr(s, ':');
	if (!colon)
		return vc_error_set(err, VC_EINVAL, "invalid address '%s': missing port in address",
				    s);
	h = s;
	hend = colon;
	if (*s == '[') {
		if (colon == s || colon[-1] != ']')
			return vc_error_set(err, VC_EINVAL,
					    "invalid address '%s': missing ']' in address", s);
		h = s + 1;
		hend = colon - 1;
	} else if (memchr(s, ':', (size_t)(colon - s))) {
		return vc_error_set(err, VC_EINVAL,
				    "invalid address '%s': too many colons in address", s);
	}
	if (vc_parse_int(colon + 1, 0, 65535, &p) || !colon[1])
		return vc_error_set(err, VC_EINVAL, "invalid address '%s': invalid port", s);
	if ((size_t)(hend - h) >= len)
		return vc_error_set(err, VC_E2BIG, "invalid address '%s': host too long", s);
	memcpy(host, h, (size_t)(hend - h));
	host[hend - h] = '\0';
	*port = (uint16_t)p;
	return 0;
}

/* ---- handlers ---------------------------------------------------------------------------- */

static void count_review(struct webhook_server *srv, const char *path, int status, bool denied,
			 int64_t elapsed_ns)
{
	char code[16];
	const char *labels[3] = { path, code, NULL };
	const char *one[2] = { path, NULL };

	snprintf(code, sizeof(code), "%d", status);
	/* A metric that cannot be counted (out of memory) must not fail the review. */
	if (vc_metric_inc(srv->m_requests, labels) ||
	    (denied && vc_metric_inc(srv->m_denials, one)) ||
	    vc_metric_observe(srv->m_duration, one, (double)elapsed_ns / 1e9))
		VC_LOG(VC_LOG_V(2), "cannot update the admission metrics", "path=%s", path);
}

static int admission_handler(const struct vc_httpd_request *req, struct vc_httpd_response *resp,
			     void *arg)
{
	const struct route_ctx *rt = arg;
	struct webhook_server *srv = rt->srv;
	int64_t t0 = vc_time_mono_ns();
	struct admission_config cfg = srv->config;
	struct admission_ctx actx = { .config = &cfg, .state = srv->opts.state };
	struct vc_error err;
	json_t *conf;
	char *out = NULL;
	bool denied = false;
	int status = 500, rc;

	conf = webhook_server_admission_conf(srv);
	cfg.pod_config = conf;
	vc_error_clear(&err);
	rc = admission_serve(&actx, rt->path, vc_httpd_request_header(req, "Content-Type"),
			     req->body, req->body_len, &out, &status, &err);
	json_decref(conf);
	if (rc == VC_ENOMEM) {
		count_review(srv, rt->path, 500, false, vc_time_mono_ns() - t0);
		return rc; /* the server answers 500 */
	}
	resp->status = status;
	if (!rc) {
		/*
		 * The answer is compact JSON whose only "allowed" member is the response's: a
		 * string holding those bytes would have its quotes escaped.
		 */
		denied = strstr(out, "\"allowed\":false") != NULL;
		rc = vc_httpd_response_set_type(resp, "application/json");
		if (!rc)
			rc = vc_buf_adds(&resp->body, out);
		vc_free(out);
	} else {
		VC_LOG(VC_LOG_V(2), "admission request refused", "path=%s status=%d err=\"%s\"",
		       rt->path, status, err.text);
		rc = vc_buf_addf(&resp->body, "%s\n", err.text);
	}
	count_review(srv, rt->path, rc ? 500 : status, denied, vc_time_mono_ns() - t0);
	VC_LOG(VC_LOG_V(4), "admission review", "path=%s status=%d allowed=%s", rt->path, status,
	       status != 200 ? "-"
	       : denied	     ? "false"
			     : "true");
	return rc;
}

/* ---- set-up ----------------------------------------------------------------------------- */

static int make_metrics(struct webhook_server *srv, struct vc_error *err)
{
	static const char *const by_path_code[] = { "path", "code", NULL };
	static const char *const by_path[] = { "path", NULL };
	static const char *const by_result[] = { "result", NULL };
	double buckets[16];
	int rc;

	rc = vc_metrics_exponential_buckets(50e-6, 2, VC_ARRAY_SIZE(buckets), buckets);
	if (!rc)
		rc = vc_metrics_counter(srv->metrics, "vc_webhook_requests_total",
					"Admission reviews answered, by path and HTTP status.",
					by_path_code, &srv->m_requests, err);
	if (!rc)
		rc = vc_metrics_counter(srv->metrics, "vc_webhook_denials_total",
					"Admission reviews answered with allowed: false.", by_path,
					&srv->m_denials, err);
	if (!rc)
		rc = vc_metrics_histogram(srv->metrics, "vc_webhook_request_duration_seconds",
					  "Time to handle an admission review.", by_path, buckets,
					  VC_ARRAY_SIZE(buckets), &srv->m_duration, err);
	if (!rc)
		rc = vc_metrics_counter(srv->metrics, "vc_webhook_tls_reloads_total",
					"Certificate reloads after the files changed.", by_result,
					&srv->m_reloads, err);
	if (rc == VC_ENOMEM)
		vc_error_set(err, rc, "out of memory");
	return rc;
}

static int make_httpd(struct webhook_server *srv, const char *address, uint16_t port,
		      bool admission, struct vc_httpd **out, struct vc_error *err)
{
	struct vc_httpd_opts o;
	struct vc_httpd *h;
	size_t i, j;
	int rc = 0;

	vc_httpd_opts_init(&o);
	o.address = address && *address ? address : "0.0.0.0";
	o.port = port;
	o.threads = srv->opts.threads ? srv->opts.threads : 4;
	o.max_body = WEBHOOK_BODY_MAX;
	o.cert_pem = srv->cert_pem;
	o.key_pem = srv->key_pem;
	/*
	 * Go's server (docs/volcano/webhooks.md §1.2): read-header 5 s, read 30 s; idle
	 * keep-alive connections as long as the read timeout (Go's IdleTimeout falls back to it).
	 */
	o.timeout_s = 30;
	o.header_timeout_s = 5;
	o.read_timeout_s = 30;
	h = vc_httpd_new(&o);
	if (!h)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	for (i = 0; admission && i < srv->npaths && !rc; i++)
		for (j = 0; j < VC_ARRAY_SIZE(methods) && !rc; j++)
			rc = vc_httpd_route(h, methods[j], srv->routes[i].path, admission_handler,
					    &srv->routes[i]);
	if (!rc)
		rc = vc_httpd_route_check(h, "/healthz", NULL, NULL);
	if (!rc)
		rc = vc_httpd_route_metrics(h, "/metrics", srv->metrics);
	if (rc) {
		vc_httpd_free(h);
		return vc_error_set(err, rc, "cannot set up the routes: %s", vc_strerror(rc));
	}
	*out = h;
	return 0;
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *d;

	if (!s || !*s)
		return NULL;
	d = vc_strdup(s);
	if (!d)
		*oom = true;
	return d;
}

/* Read one of the required PEM files, with Volcano's message on failure. */
static int read_pem(const char *path, const char *what, char **out, struct stamp *st,
		    struct vc_error *err)
{
	char why[512];
	int rc;

	stamp_take(path, st);
	rc = read_file(path, PEM_MAX, out, why, sizeof(why));
	if (rc == VC_ENOMEM)
		return vc_error_set(err, rc, "out of memory");
	if (rc)
		return vc_error_set(err, VC_EINVAL, "%s (%s): %s", what, path, why);
	return 0;
}

int webhook_server_new(const struct webhook_server_opts *opts, struct webhook_server **out,
		       struct vc_error *err)
{
	struct webhook_server *srv;
	bool oom = false;
	size_t i;
	int rc;

	if (!opts || !out)
		return vc_error_set(err, VC_EINVAL, "no server options");
	*out = NULL;
	if (!opts->cert_file || !*opts->cert_file || !opts->key_file || !*opts->key_file)
		return vc_error_set(err, VC_EINVAL, "tls: failed to find any tls config data");
	srv = vc_calloc(1, sizeof(*srv));
	if (!srv)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	pthread_mutex_init(&srv->poll_lock, NULL);
	pthread_mutex_init(&srv->conf_lock, NULL);
	pthread_mutex_init(&srv->thread_lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&srv->thread_cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	srv->opts = *opts;
	srv->address = dup_or_null(opts->address, &oom);
	srv->cert_file = dup_or_null(opts->cert_file, &oom);
	srv->key_file = dup_or_null(opts->key_file, &oom);
	srv->ca_file = dup_or_null(opts->ca_file, &oom);
	srv->conf_file = dup_or_null(opts->admission_conf, &oom);
	srv->healthz_address = dup_or_null(opts->healthz_address, &oom);
	if (oom) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	if (opts->config)
		srv->config = *opts->config;
	srv->config.pod_config = NULL;

	/* The paths, in admission_paths order whatever order the caller gave. */
	for (i = 0; opts->paths && opts->paths[i]; i++) {
		size_t k;
		bool known = false;

		for (k = 0; admission_paths[k]; k++)
			known = known || !strcmp(admission_paths[k], opts->paths[i]);
		if (!known) {
			rc = vc_error_set(err, VC_EINVAL,
					  "enabled admission %s not found on the admission "
					  "registered map",
					  opts->paths[i]);
			goto fail;
		}
	}
	for (i = 0; admission_paths[i] && srv->npaths < NPATHS; i++) {
		const char *p = admission_paths[i];

		if (!admission_paths_has(opts->paths, p))
			continue;
		srv->routes[srv->npaths].srv = srv;
		srv->routes[srv->npaths].path = p;
		srv->paths[srv->npaths++] = p;
	}
	srv->paths[srv->npaths] = NULL;

	rc = read_pem(srv->cert_file, "failed to read cert file", &srv->cert_pem, &srv->cert_st,
		      err);
	if (!rc)
		rc = read_pem(srv->key_file, "failed to read key file", &srv->key_pem, &srv->key_st,
			      err);
	if (!rc && srv->ca_file)
		rc = read_pem(srv->ca_file, "Failed to parse CA file: failed to read cacert file",
			      &srv->ca_pem, &srv->ca_st, err);
	if (!rc)
		rc = check_pair(srv->cert_pem, srv->key_pem, srv->cert_file, srv->key_file, err);
	if (rc)
		goto fail;
	if (srv->conf_file) {
		stamp_take(srv->conf_file, &srv->conf_st);
		rc = load_conf(srv->conf_file, &srv->conf);
		if (rc) {
			vc_error_set(err, rc, "out of memory");
			goto fail;
		}
	}

	srv->metrics = opts->metrics;
	if (!srv->metrics) {
		srv->metrics = vc_metrics_new();
		srv->own_metrics = true;
		if (!srv->metrics) {
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
			goto fail;
		}
	}
	rc = make_metrics(srv, err);
	if (!rc)
		rc = make_httpd(srv, srv->address, opts->port, true, &srv->httpd, err);
	if (!rc && opts->enable_healthz)
		rc = make_httpd(srv, srv->healthz_address, opts->healthz_port, false, &srv->healthz,
				err);
	if (rc)
		goto fail;
	*out = srv;
	return 0;
fail:
	webhook_server_free(srv);
	return rc;
}

/* ---- reloading -------------------------------------------------------------------------- */

/* Put the pair in service on every listener; 0, or the first listener's error. */
static int reload_tls(struct webhook_server *srv, const char *cert, const char *key,
		      struct vc_error *err)
{
	int rc;

	rc = vc_httpd_reload_tls(srv->httpd, cert, key, err);
	if (!rc && srv->healthz) {
		struct vc_error herr;

		vc_error_clear(&herr);
		if (vc_httpd_reload_tls(srv->healthz, cert, key, &herr))
			VC_WARN("cannot reload the health listener's certificate", "err=\"%s\"",
				herr.text);
	}
	return rc;
}

static int poll_tls(struct webhook_server *srv, unsigned *changed, struct vc_error *err)
{
	static const char *const ok[] = { "success", NULL }, *const bad[] = { "failure", NULL };
	struct stamp cst, kst;
	char *cert = NULL, *key = NULL, why[512];
	int rc;

	stamp_take(srv->cert_file, &cst);
	stamp_take(srv->key_file, &kst);
	if (stamp_equal(&cst, &srv->cert_st) && stamp_equal(&kst, &srv->key_st))
		return 0;
	/* Tried once per change of either file: a half-written pair is retried on the next. */
	srv->cert_st = cst;
	srv->key_st = kst;
	rc = read_file(srv->cert_file, PEM_MAX, &cert, why, sizeof(why));
	if (!rc)
		rc = read_file(srv->key_file, PEM_MAX, &key, why, sizeof(why));
	if (!rc && (!cert || !key)) {
		snprintf(why, sizeof(why), "nothing read");
		rc = VC_EIO;
	}
	if (rc) {
		vc_error_set(err, rc, "cannot reload the certificate: %s", why);
		goto out;
	}
	if (srv->httpd && vc_httpd_is_tls(srv->httpd) && vc_httpd_port(srv->httpd) &&
	    (strcmp(cert, srv->cert_pem) || strcmp(key, srv->key_pem))) {
		rc = check_pair(cert, key, srv->cert_file, srv->key_file, err);
		if (!rc)
			rc = reload_tls(srv, cert, key, err);
		if (rc == VC_ENOMEM)
			goto out;
		if (vc_metric_inc(srv->m_reloads, rc ? bad : ok))
			VC_LOG(VC_LOG_V(2), "cannot count a certificate reload", "");
		if (rc)
			goto out;
		*changed |= WEBHOOK_RELOADED_TLS;
		VC_INFO("serving a new certificate", "cert=%s key=%s", srv->cert_file,
			srv->key_file);
	}
	/* Before the start this only records the files (the listener keeps its first pair). */
	vc_free(srv->cert_pem);
	vc_free(srv->key_pem);
	srv->cert_pem = cert;
	srv->key_pem = key;
	cert = key = NULL;
out:
	if (rc && rc != VC_ENOMEM)
		VC_WARN("certificate not reloaded; the old one keeps serving",
			"cert=%s key=%s err=\"%s\"", srv->cert_file, srv->key_file,
			err ? err->text : vc_strerror(rc));
	vc_free(cert);
	vc_free(key);
	return rc;
}

static int poll_ca(struct webhook_server *srv, unsigned *changed, struct vc_error *err)
{
	struct stamp st;
	char *ca = NULL, why[512];
	int rc;

	stamp_take(srv->ca_file, &st);
	if (stamp_equal(&st, &srv->ca_st))
		return 0;
	srv->ca_st = st;
	rc = read_file(srv->ca_file, PEM_MAX, &ca, why, sizeof(why));
	if (!rc && !ca)
		rc = VC_EIO;
	if (rc) {
		VC_WARN("cannot read the new CA file", "err=\"%s\"", why);
		return vc_error_set(err, rc, "cannot reload the CA: %s", why);
	}
	if (srv->ca_pem && !strcmp(ca, srv->ca_pem)) {
		vc_free(ca);
		return 0;
	}
	vc_free(srv->ca_pem);
	srv->ca_pem = ca;
	*changed |= WEBHOOK_RELOADED_CA;
	VC_INFO("the CA file changed", "file=%s", srv->ca_file);
	return 0;
}

/* Out of memory keeps the old configuration and tries again at the next poll. */
static int poll_conf(struct webhook_server *srv, unsigned *changed, struct vc_error *err)
{
	struct stamp st;
	json_t *conf;

	stamp_take(srv->conf_file, &st);
	if (stamp_equal(&st, &srv->conf_st))
		return 0;
	if (load_conf(srv->conf_file, &conf))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	srv->conf_st = st;
	conf_set(srv, conf);
	*changed |= WEBHOOK_RELOADED_CONF;
	return 0;
}

int webhook_server_poll(struct webhook_server *srv, unsigned *changed, struct vc_error *err)
{
	unsigned bits = 0;
	char *ca = NULL;
	int rc, rc2 = 0;

	if (!srv)
		return vc_error_set(err, VC_EINVAL, "no server");
	pthread_mutex_lock(&srv->poll_lock);
	rc = poll_tls(srv, &bits, err);
	if (srv->ca_file)
		rc2 = poll_ca(srv, &bits, rc ? NULL : err);
	if (srv->conf_file) {
		int rc3 = poll_conf(srv, &bits, rc || rc2 ? NULL : err);

		if (!rc2)
			rc2 = rc3;
	}
	/* The callback may take long (API calls) and may call back into the server. */
	if ((bits & WEBHOOK_RELOADED_CA) && srv->opts.on_ca_change)
		ca = vc_strdup(srv->ca_pem);
	pthread_mutex_unlock(&srv->poll_lock);
	if (ca)
		srv->opts.on_ca_change(srv->opts.ca_ctx, ca);
	else if ((bits & WEBHOOK_RELOADED_CA) && srv->opts.on_ca_change && !rc)
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
	vc_free(ca);
	if (changed)
		*changed = bits;
	return rc ? rc : rc2;
}

static void *poll_main(void *arg)
{
	struct webhook_server *srv = arg;
	struct timespec ts;
	int64_t due;

	pthread_mutex_lock(&srv->thread_lock);
	while (!srv->thread_stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		due = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + srv->opts.poll_interval_ns;
		ts.tv_sec = (time_t)(due / 1000000000);
		ts.tv_nsec = (long)(due % 1000000000);
		while (!srv->thread_stop &&
		       pthread_cond_timedwait(&srv->thread_cond, &srv->thread_lock, &ts) !=
			       ETIMEDOUT)
			;
		if (srv->thread_stop)
			break;
		pthread_mutex_unlock(&srv->thread_lock);
		/* Errors are logged where they happen; the next change is tried again. */
		if (webhook_server_poll(srv, NULL, NULL))
			VC_LOG(VC_LOG_V(2), "file reload incomplete", "");
		pthread_mutex_lock(&srv->thread_lock);
	}
	pthread_mutex_unlock(&srv->thread_lock);
	return NULL;
}

/* ---- running ----------------------------------------------------------------------------- */

int webhook_server_start(struct webhook_server *srv, struct vc_error *err)
{
	int rc;

	if (!srv)
		return vc_error_set(err, VC_EINVAL, "no server");
	pthread_mutex_lock(&srv->poll_lock);
	rc = vc_httpd_start(srv->httpd, err);
	if (!rc && srv->healthz) {
		rc = vc_httpd_start(srv->healthz, err);
		if (rc) {
			vc_error_prefix(err, "health listener");
			vc_httpd_stop(srv->httpd);
		}
	}
	pthread_mutex_unlock(&srv->poll_lock);
	if (rc)
		return rc;
	if (srv->opts.poll_interval_ns > 0) {
		pthread_mutex_lock(&srv->thread_lock);
		srv->thread_stop = false;
		rc = -pthread_create(&srv->thread, NULL, poll_main, srv);
		srv->thread_running = rc == 0;
		pthread_mutex_unlock(&srv->thread_lock);
		if (rc) {
			webhook_server_stop(srv);
			return vc_error_set(err, rc, "cannot start the file watcher: %s",
					    strerror(-rc));
		}
	}
	VC_INFO("serving admission", "address=%s port=%u paths=%zu healthz_port=%u",
		srv->address ? srv->address : "0.0.0.0", (unsigned)vc_httpd_port(srv->httpd),
		srv->npaths, (unsigned)webhook_server_healthz_port(srv));
	return 0;
}

uint16_t webhook_server_port(const struct webhook_server *srv)
{
	return srv && srv->httpd ? vc_httpd_port(srv->httpd) : 0;
}

uint16_t webhook_server_healthz_port(const struct webhook_server *srv)
{
	return srv && srv->healthz ? vc_httpd_port(srv->healthz) : 0;
}

char *webhook_server_ca(struct webhook_server *srv)
{
	char *ca;

	if (!srv)
		return NULL;
	pthread_mutex_lock(&srv->poll_lock);
	ca = srv->ca_pem ? vc_strdup(srv->ca_pem) : NULL;
	pthread_mutex_unlock(&srv->poll_lock);
	return ca;
}

struct vc_metrics *webhook_server_metrics(struct webhook_server *srv)
{
	return srv ? srv->metrics : NULL;
}

void webhook_server_stop(struct webhook_server *srv)
{
	bool join;

	if (!srv)
		return;
	pthread_mutex_lock(&srv->thread_lock);
	join = srv->thread_running;
	srv->thread_running = false;
	srv->thread_stop = true;
	pthread_cond_broadcast(&srv->thread_cond);
	pthread_mutex_unlock(&srv->thread_lock);
	if (join)
		pthread_join(srv->thread, NULL);
	pthread_mutex_lock(&srv->poll_lock);
	if (srv->httpd)
		vc_httpd_stop(srv->httpd);
	if (srv->healthz)
		vc_httpd_stop(srv->healthz);
	pthread_mutex_unlock(&srv->poll_lock);
}

void webhook_server_free(struct webhook_server *srv)
{
	if (!srv)
		return;
	webhook_server_stop(srv);
	vc_httpd_free(srv->httpd);
	vc_httpd_free(srv->healthz);
	if (srv->own_metrics)
		vc_metrics_free(srv->metrics);
	json_decref(srv->conf);
	vc_free(srv->cert_pem);
	vc_free(srv->key_pem);
	vc_free(srv->ca_pem);
	vc_free(srv->address);
	vc_free(srv->cert_file);
	vc_free(srv->key_file);
	vc_free(srv->ca_file);
	vc_free(srv->conf_file);
	vc_free(srv->healthz_address);
	pthread_cond_destroy(&srv->thread_cond);
	pthread_mutex_destroy(&srv->thread_lock);
	pthread_mutex_destroy(&srv->conf_lock);
	pthread_mutex_destroy(&srv->poll_lock);
	vc_free(srv);
}
