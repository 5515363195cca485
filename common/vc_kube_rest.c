/*
 * vc_kube_rest.c - the Kubernetes REST client over libcurl: the transport behind the ops of a
 * client made by vc_kube_new: its state, its easy handles, the HTTP exchange with its retries, and
 * making and freeing it. The public verbs and resource paths are in vc_kube.c; the REST client's
 * verbs (the ops) in vc_kube_rest_verbs.c, its bearer token in vc_kube_token.c, and what these
 * files share in vc_kube_rest_internal.h.
 *
 * Connection reuse: each calling thread gets its own CURL easy handle (a pthread key; the handle
 * is freed when the thread exits or with the client), and all of them share one CURLSH for the
 * connection cache and DNS, so N sequential requests from a thread cost one TCP and TLS
 * handshake and threads pick up each other's idle connections. A thread that calls the client
 * from inside a watch callback gets a temporary handle, since its own is busy.
 *
 * TLS sessions are not shared between threads (each easy handle resumes its own): libcurl before
 * curl PR #14751 (2024; Debian 12 ships 7.88) hands one OpenSSL SSL_SESSION to handshakes on
 * several threads at once, and OpenSSL changes the object during a handshake. Under load, with
 * connections opened on many threads, that corrupted vc-controller's heap; test_kube's
 * test_tls_threads_reconnect shows the race under `make tsan`.
 *
 * HTTP/1.1 is forced: sharing HTTP/2 connections between easy handles driven from different
 * threads is not something libcurl supports well, and one connection per concurrent request is
 * what client-go does over HTTP/1.1 too.
 */
#include "vc_kube.h"

#include <curl/curl.h>
#include <pthread.h>
#include <strings.h>
#include <time.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_kube_internal.h"
#include "vc_kube_rest_internal.h"
#include "vc_log.h"
#include "vc_ratelimit.h"
#include "vc_str.h"
#include "vc_time.h"
#include "vc_watch.h"

/* ---- the REST client's state -------------------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void share_lock(CURL *easy, curl_lock_data data, curl_lock_access access, void *userp)
{
	struct rest *r = userp;

	(void)easy;
	(void)access;
	if ((unsigned)data < CURL_LOCK_DATA_LAST)
		pthread_mutex_lock(&r->share_locks[data]);
}

static void share_unlock(CURL *easy, curl_lock_data data, void *userp)
{
	struct rest *r = userp;

	(void)easy;
	if ((unsigned)data < CURL_LOCK_DATA_LAST)
		pthread_mutex_unlock(&r->share_locks[data]);
}

static void real_sleep(void *ctx, int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / VC_NSEC_PER_SEC, .tv_nsec = ns % VC_NSEC_PER_SEC };

	(void)ctx;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void rest_sleep(struct rest *r, int64_t ns)
{
	if (ns > 0)
		r->sleep(r->sleep_ctx, ns);
}

/* The client-side rate limit: take a token, sleep until it is ours. */
void vc_kube_rest_throttle(struct rest *r)
{
	rest_sleep(r, vc_bucket_reserve(&r->bucket));
}

/* ---- easy handles --------------------------------------------------------------------------- */

#define SETOPT(h, opt, val)                                                 \
	do {                                                                \
		if ((cc = curl_easy_setopt((h), (opt), (val))) != CURLE_OK) \
			goto fail;                                          \
	} while (0)

/* No ...TYPE option to set for set_pem(): libcurl's options all number 10000 and up. */
#define NO_TYPE_OPT ((CURLoption)0)

/*
 * Hand libcurl one PEM credential: data inline (libcurl copies it), with type_opt (unless
 * NO_TYPE_OPT) saying "PEM", or else the file; neither set leaves libcurl's default.
 */
static CURLcode set_pem(CURL *easy, char *data, CURLoption blob_opt, CURLoption type_opt,
			const char *file, CURLoption file_opt)
{
	struct curl_blob blob;
	CURLcode cc;

	if (data) {
		blob = (struct curl_blob){ data, strlen(data), CURL_BLOB_COPY };
		cc = curl_easy_setopt(easy, blob_opt, &blob);
		if (cc != CURLE_OK || type_opt == NO_TYPE_OPT)
			return cc;
		return curl_easy_setopt(easy, type_opt, "PEM");
	}
	if (file)
		return curl_easy_setopt(easy, file_opt, file);
	return CURLE_OK;
}

static void handle_free(struct rest_handle *h)
{
	if (!h)
		return;
	curl_easy_cleanup(h->easy);
	vc_free(h);
}

/*
 * A new easy handle with everything that is the same for every request of this client; NULL
 * with *rc (and err) set on failure.
 */
static struct rest_handle *handle_new(struct rest *r, int *rc, struct vc_error *err)
{
	const struct vc_kube_config *cfg = &r->cfg;
	struct rest_handle *h;
	CURLcode cc = CURLE_OUT_OF_MEMORY;
	long connect_ms = 10000;

	h = vc_calloc(1, sizeof(*h));
	if (!h) {
		*rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		return NULL;
	}
	h->owner = r;
	h->easy = curl_easy_init();
	if (!h->easy)
		goto fail;
	if (r->timeout_ns / VC_NSEC_PER_MSEC < connect_ms)
		connect_ms = (long)VC_MAX(r->timeout_ns / VC_NSEC_PER_MSEC, 1);
	SETOPT(h->easy, CURLOPT_SHARE, r->share);
	SETOPT(h->easy, CURLOPT_NOSIGNAL, 1L);
	SETOPT(h->easy, CURLOPT_ERRORBUFFER, h->errbuf);
	SETOPT(h->easy, CURLOPT_USERAGENT, cfg->user_agent ? cfg->user_agent : "caldera");
	SETOPT(h->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	SETOPT(h->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	/*
	 * The shared cache counts connections in use too: below the process's concurrency
	 * (vc-controller: up to 64 job pool threads, 32 binders, status writers, watches) every
	 * finished request closed an idle connection and the next one paid a TLS handshake on
	 * both ends (14,000 handshakes in a 10,000-pod run at 64).
	 */
	SETOPT(h->easy, CURLOPT_MAXCONNECTS, 256L);
	SETOPT(h->easy, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
	/* A dead peer is noticed by keep-alive probes, also on a silent watch. */
	SETOPT(h->easy, CURLOPT_TCP_KEEPALIVE, 1L);
	SETOPT(h->easy, CURLOPT_TCP_KEEPIDLE, 30L);
	SETOPT(h->easy, CURLOPT_TCP_KEEPINTVL, 10L);
	if (cfg->insecure) {
		SETOPT(h->easy, CURLOPT_SSL_VERIFYPEER, 0L);
		SETOPT(h->easy, CURLOPT_SSL_VERIFYHOST, 0L);
	} else if (cfg->ca_data || cfg->ca_file) {
		/* Only the cluster's CA is trusted, as in client-go. */
		SETOPT(h->easy, CURLOPT_CAPATH, (char *)NULL);
		cc = set_pem(h->easy, cfg->ca_data, CURLOPT_CAINFO_BLOB, NO_TYPE_OPT, cfg->ca_file,
			     CURLOPT_CAINFO);
		if (cc != CURLE_OK)
			goto fail;
	}
	cc = set_pem(h->easy, cfg->client_cert_data, CURLOPT_SSLCERT_BLOB, CURLOPT_SSLCERTTYPE,
		     cfg->client_cert_file, CURLOPT_SSLCERT);
	if (cc != CURLE_OK)
		goto fail;
	cc = set_pem(h->easy, cfg->client_key_data, CURLOPT_SSLKEY_BLOB, CURLOPT_SSLKEYTYPE,
		     cfg->client_key_file, CURLOPT_SSLKEY);
	if (cc != CURLE_OK)
		goto fail;
	return h;
fail:
	*rc = vc_error_set(err, cc == CURLE_OUT_OF_MEMORY ? VC_ENOMEM : VC_EINVAL,
			   "cannot set up a libcurl handle: %s", curl_easy_strerror(cc));
	handle_free(h);
	return NULL;
}

/* Runs at the exit of a thread that used the client. */
static void handle_thread_exit(void *p)
{
	struct rest_handle *h = p;
	struct rest *r = h->owner;

	pthread_mutex_lock(&r->lock);
	if (h->prev)
		h->prev->next = h->next;
	else
		r->handles = h->next;
	if (h->next)
		h->next->prev = h->prev;
	pthread_mutex_unlock(&r->lock);
	handle_free(h);
}

/*
 * The calling thread's handle, made on first use; a temporary one (*temp set) when the
 * thread's own handle is in use further up the stack (a call from a watch callback).
 */
static struct rest_handle *handle_get(struct rest *r, bool *temp, int *rc, struct vc_error *err)
{
	struct rest_handle *h = pthread_getspecific(r->key), *own = h;

	*temp = false;
	if (h && !h->busy) {
		h->busy = true;
		return h;
	}
	h = handle_new(r, rc, err);
	if (!h)
		return NULL;
	if (own || pthread_setspecific(r->key, h)) {
		*temp = true;
	} else {
		pthread_mutex_lock(&r->lock);
		h->next = r->handles;
		if (h->next)
			h->next->prev = h;
		r->handles = h;
		pthread_mutex_unlock(&r->lock);
	}
	h->busy = true;
	return h;
}

static void handle_put(struct rest_handle *h, bool temp)
{
	h->busy = false;
	if (temp)
		handle_free(h);
}

/*
 * Give h the client certificate of exec credential c (when it has one), or back the config's
 * own when the handle had a plugin's before. libcurl keeps the certificate in the connection's
 * TLS configuration, so a rotated certificate never reuses a connection made with the old one.
 */
static CURLcode handle_cert(struct rest *r, struct rest_handle *h,
			    const struct vc_kube_exec_creds *c)
{
	uint64_t want = c && c->cred.client_cert ? c->generation : 0;
	struct curl_blob none = { NULL, 0, CURL_BLOB_COPY };
	CURLcode cc;

	if (h->cert_gen == want)
		return CURLE_OK;
	if (want) {
		cc = set_pem(h->easy, c->cred.client_cert, CURLOPT_SSLCERT_BLOB,
			     CURLOPT_SSLCERTTYPE, NULL, CURLOPT_SSLCERT);
		if (cc == CURLE_OK)
			cc = set_pem(h->easy, c->cred.client_key, CURLOPT_SSLKEY_BLOB,
				     CURLOPT_SSLKEYTYPE, NULL, CURLOPT_SSLKEY);
	} else {
		cc = curl_easy_setopt(h->easy, CURLOPT_SSLCERT_BLOB, &none);
		if (cc == CURLE_OK)
			cc = curl_easy_setopt(h->easy, CURLOPT_SSLKEY_BLOB, &none);
		if (cc == CURLE_OK)
			cc = set_pem(h->easy, r->cfg.client_cert_data, CURLOPT_SSLCERT_BLOB,
				     CURLOPT_SSLCERTTYPE, r->cfg.client_cert_file, CURLOPT_SSLCERT);
		if (cc == CURLE_OK)
			cc = set_pem(h->easy, r->cfg.client_key_data, CURLOPT_SSLKEY_BLOB,
				     CURLOPT_SSLKEYTYPE, r->cfg.client_key_file, CURLOPT_SSLKEY);
	}
	/* A half-set handle must not pass for either: make the next request set it again. */
	h->cert_gen = cc == CURLE_OK ? want : UINT64_MAX;
	return cc;
}

/* ---- one HTTP exchange ---------------------------------------------------------------------- */

static size_t write_cb(char *ptr, size_t size, size_t nmemb, void *userp)
{
	struct xfer *x = userp;
	size_t n = size * nmemb;
	int rc;

	if (x->dec) {
		if (!x->status)
			curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
		if (x->status == 200) {
			rc = vc_watch_decoder_feed(x->dec, ptr, n, x->dec_err);
			if (rc) {
				x->dec_rc = rc;
				return 0;
			}
			return n;
		}
	}
	rc = vc_buf_add(&x->resp, ptr, n);
	if (rc) {
		x->write_rc = rc;
		return 0;
	}
	return n;
}

static size_t header_cb(char *ptr, size_t size, size_t nmemb, void *userp)
{
	struct xfer *x = userp;
	size_t n = size * nmemb, i;
	static const char name[] = "retry-after:";
	int64_t secs = 0;

	if (n >= 5 && !strncmp(ptr, "HTTP/", 5)) {
		/* A new response (after a 100 Continue, say): forget the previous headers. */
		x->retry_after_ns = -1;
		return n;
	}
	if (n <= sizeof(name) - 1 || strncasecmp(ptr, name, sizeof(name) - 1))
		return n;
	for (i = sizeof(name) - 1; i < n && (ptr[i] == ' ' || ptr[i] == '\t'); i++)
		;
	if (i == n || ptr[i] < '0' || ptr[i] > '9')
		return n; /* an HTTP-date: not something the API server sends */
	for (; i < n && ptr[i] >= '0' && ptr[i] <= '9'; i++) {
		secs = secs * 10 + (ptr[i] - '0');
		if (secs > 86400)
			secs = 86400;
	}
	x->retry_after_ns = secs * VC_NSEC_PER_SEC;
	return n;
}

/* Drive a watch through a multi handle so that *stop is looked at every 100 ms. */
static CURLcode perform_watch(struct xfer *x)
{
	CURLcode cc = CURLE_OK;
	CURLM *m = curl_multi_init();
	CURLMsg *msg;
	int running = 1, left;

	if (!m)
		return CURLE_OUT_OF_MEMORY;
	if (curl_multi_add_handle(m, x->easy) != CURLM_OK) {
		curl_multi_cleanup(m);
		return CURLE_OUT_OF_MEMORY;
	}
	while (running) {
		if (x->stop && __atomic_load_n(x->stop, __ATOMIC_ACQUIRE)) {
			x->stopped = true;
			break;
		}
		if (curl_multi_perform(m, &running) != CURLM_OK) {
			cc = CURLE_OUT_OF_MEMORY;
			break;
		}
		if (running && curl_multi_poll(m, NULL, 0, 100, NULL) != CURLM_OK) {
			cc = CURLE_OUT_OF_MEMORY;
			break;
		}
	}
	if (!running && !x->stopped) {
		while ((msg = curl_multi_info_read(m, &left))) {
			if (msg->msg == CURLMSG_DONE)
				cc = msg->data.result;
		}
	}
	curl_multi_remove_handle(m, x->easy);
	curl_multi_cleanup(m);
	return cc;
}

/* Append s to *l; false (and *l unchanged) when out of memory. */
static bool header_add(struct curl_slist **l, const char *s)
{
	struct curl_slist *n = curl_slist_append(*l, s);

	if (!n)
		return false;
	*l = n;
	return true;
}

/*
 * One attempt. Returns 0 when an HTTP answer came back (x->status, x->resp), or a negative
 * transport error with err filled (x->cc tells which libcurl error, for the retry decision).
 */
int vc_kube_rest_once(struct rest *r, struct xfer *x, struct vc_error *err)
{
	struct vc_kube_exec_creds *creds = NULL;
	struct curl_slist *headers = NULL;
	struct rest_handle *h;
	struct vc_buf auth;
	CURLcode cc = CURLE_OK;
	bool temp;
	int rc = 0;

	x->cc = CURLE_OK;
	x->status = 0;
	x->write_rc = 0;
	x->retry_after_ns = -1;
	x->cred_gen = 0;
	vc_buf_reset(&x->resp);

	vc_buf_init(&auth, 0);
	rc = vc_kube_auth_header(r, &auth, &creds, err);
	if (rc) {
		vc_buf_release(&auth);
		return rc;
	}
	x->cred_gen = creds ? creds->generation : 0;
	/* No "Expect: 100-continue" round trip for large bodies. */
	if (!header_add(&headers, "Accept: application/json") || !header_add(&headers, "Expect:"))
		goto nomem;
	if (x->content_type) {
		char ct[96];

		snprintf(ct, sizeof(ct), "Content-Type: %s", x->content_type);
		if (!header_add(&headers, ct))
			goto nomem;
	}
	if (auth.len && !header_add(&headers, auth.data))
		goto nomem;
	if (auth.data)
		explicit_bzero(auth.data, auth.len);
	vc_buf_release(&auth);

	h = handle_get(r, &temp, &rc, err);
	if (!h) {
		curl_slist_free_all(headers);
		vc_kube_exec_creds_put(creds);
		return rc;
	}
	x->easy = h->easy;
	h->errbuf[0] = '\0';
	if (r->exec) {
		cc = handle_cert(r, h, creds);
		if (cc != CURLE_OK)
			goto fail;
	}
	SETOPT(h->easy, CURLOPT_URL, x->url);
	SETOPT(h->easy, CURLOPT_HTTPHEADER, headers);
	SETOPT(h->easy, CURLOPT_WRITEFUNCTION, write_cb);
	SETOPT(h->easy, CURLOPT_WRITEDATA, x);
	SETOPT(h->easy, CURLOPT_HEADERFUNCTION, header_cb);
	SETOPT(h->easy, CURLOPT_HEADERDATA, x);
	SETOPT(h->easy, CURLOPT_TIMEOUT_MS,
	       x->dec ? 0L : (long)VC_MAX(r->timeout_ns / VC_NSEC_PER_MSEC, 1));
	SETOPT(h->easy, CURLOPT_MAXFILESIZE_LARGE, x->dec ? (curl_off_t)0 : (curl_off_t)x->cap);
	if (x->body) {
		SETOPT(h->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)x->body_len);
		SETOPT(h->easy, CURLOPT_POSTFIELDS, x->body);
		SETOPT(h->easy, CURLOPT_CUSTOMREQUEST, x->method);
	} else {
		SETOPT(h->easy, CURLOPT_HTTPGET, 1L);
		SETOPT(h->easy, CURLOPT_CUSTOMREQUEST,
		       strcmp(x->method, "GET") ? x->method : (const char *)NULL);
	}
	cc = x->dec ? perform_watch(x) : curl_easy_perform(h->easy);
	x->cc = cc;
	if (!x->stopped)
		curl_easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE, &x->status);
	if (x->stopped || x->dec_rc) {
		rc = 0;
	} else if (x->write_rc) {
		rc = x->write_rc == VC_E2BIG
			     ? vc_error_set(err, VC_E2BIG,
					    "response to %s %s exceeds the limit of %zu bytes",
					    x->method, x->path, x->cap)
			     : vc_error_set(err, x->write_rc, "out of memory");
	} else if (cc == CURLE_FILESIZE_EXCEEDED) {
		rc = vc_error_set(err, VC_E2BIG, "response to %s %s exceeds the limit of %zu bytes",
				  x->method, x->path, x->cap);
	} else if (cc == CURLE_OPERATION_TIMEDOUT) {
		rc = vc_error_set(err, VC_ETIMEDOUT, "%s %s: %s", x->method, x->path,
				  h->errbuf[0] ? h->errbuf : curl_easy_strerror(cc));
	} else if (cc == CURLE_OUT_OF_MEMORY) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
	} else if (cc != CURLE_OK) {
		rc = vc_error_set(err, VC_EIO, "%s %s: %s", x->method, x->path,
				  h->errbuf[0] ? h->errbuf : curl_easy_strerror(cc));
	}
	goto done;
fail:
	rc = vc_error_set(err, cc == CURLE_OUT_OF_MEMORY ? VC_ENOMEM : VC_EINVAL,
			  "cannot set up the request %s %s: %s", x->method, x->path,
			  curl_easy_strerror(cc));
done:
	/* Nothing of this request may linger in the handle. */
	curl_easy_setopt(h->easy, CURLOPT_HTTPHEADER, (struct curl_slist *)NULL);
	curl_easy_setopt(h->easy, CURLOPT_POSTFIELDS, (char *)NULL);
	curl_easy_setopt(h->easy, CURLOPT_WRITEDATA, (void *)NULL);
	curl_easy_setopt(h->easy, CURLOPT_HEADERDATA, (void *)NULL);
	curl_slist_free_all(headers);
	handle_put(h, temp);
	vc_kube_exec_creds_put(creds);
	x->easy = NULL;
	return rc;
nomem:
	curl_slist_free_all(headers);
	vc_kube_exec_creds_put(creds);
	if (auth.data)
		explicit_bzero(auth.data, auth.len);
	vc_buf_release(&auth);
	return vc_error_set(err, VC_ENOMEM, "out of memory");
}

/* The typed error for a non-2xx answer, with the server's Status message when it sent one. */
int vc_kube_rest_status_error(struct rest *r, const struct xfer *x, struct vc_error *err)
{
	const char *msg = NULL, *reason = NULL;
	json_t *st = NULL;
	int code;
	size_t n;

	if (x->resp.len && vc_json_parse(x->resp.data, x->resp.len, x->cap, &st, NULL) == 0) {
		msg = vc_json_get_str(st, "message");
		reason = vc_json_get_str(st, "reason");
	}
	switch (x->status) {
	case 401:
		code = VC_EUNAUTHORIZED;
		/* Perhaps the token rotated under us: look at the file on the next request. */
		pthread_mutex_lock(&r->lock);
		r->token_recheck = true;
		pthread_mutex_unlock(&r->lock);
		/* ... or the plugin's credential was revoked early: run it on the next one. */
		vc_kube_exec_auth_unauthorized(r->exec, x->cred_gen);
		break;
	case 403:
		code = VC_EFORBIDDEN;
		break;
	case 404:
		code = VC_ENOTFOUND;
		break;
	case 409:
		code = vc_str_eq(reason, "AlreadyExists") ? VC_EALREADYEXISTS : VC_ECONFLICT;
		break;
	case 410:
		code = VC_EGONE;
		break;
	case 422:
		code = VC_EUNPROCESSABLE;
		break;
	case 429:
		code = VC_ETOOMANYREQUESTS;
		break;
	default:
		if (x->status >= 500)
			code = VC_ESERVER;
		else if (x->status >= 400)
			code = VC_EINVAL;
		else
			code = VC_EIO;
	}
	if (msg && *msg) {
		vc_error_set(err, code, "%s", msg);
	} else {
		/* Not a Status: say what came back, with a little of a text body. */
		n = x->resp.len;
		while (n > 0 && strchr(" \t\r\n", x->resp.data[n - 1]))
			n--;
		if (n && !st)
			vc_error_set(err, code, "the server responded with HTTP %ld to %s %s: %.*s",
				     x->status, x->method, x->path, (int)VC_MIN(n, 200),
				     x->resp.data);
		else
			vc_error_set(err, code, "the server responded with HTTP %ld to %s %s",
				     x->status, x->method, x->path);
	}
	json_decref(st);
	return code;
}

/* libcurl errors where the request never left: safe to retry for any verb. */
static bool not_sent(CURLcode cc)
{
	return cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST ||
	       cc == CURLE_COULDNT_RESOLVE_PROXY;
}

/* libcurl errors a GET may be retried after: the connection broke. */
static bool broken(CURLcode cc)
{
	return cc == CURLE_SEND_ERROR || cc == CURLE_RECV_ERROR || cc == CURLE_GOT_NOTHING ||
	       cc == CURLE_PARTIAL_FILE;
}

/*
 * Answers worth another attempt: 429 and the gateway/availability 5xx always; other 5xx only
 * when the server says so with Retry-After. kube-apiserver also answers 500 for requests that
 * can never succeed ("resourceVersion should not be set on objects to be created"), and
 * repeating those only delays the error.
 */
static bool retryable_status(long status, bool has_retry_after)
{
	if (status == 429 || status == 502 || status == 503 || status == 504)
		return true;
	return status >= 500 && status <= 599 && has_retry_after;
}

/* The wait before attempt n+1 when the server gave no Retry-After: 250 ms doubling. */
static int64_t backoff_ns(int attempt)
{
	return (250 * VC_NSEC_PER_MSEC) << (attempt - 1);
}

/*
 * Send a request with retries (see retryable_status, for every verb, honouring Retry-After;
 * transport failures for requests that never left or are idempotent), then map the answer: 2xx
 * bodies are parsed into *out (when out is not NULL), anything else becomes a typed error.
 */
int vc_kube_rest_do(struct rest *r, struct xfer *x, json_t **out, struct vc_error *err)
{
	int64_t start = vc_time_mono_ns(), wait;
	bool retry, reauth = false;
	int attempt, rc;

	for (attempt = 1;; attempt++) {
		vc_kube_rest_throttle(r);
		rc = vc_kube_rest_once(r, x, err);
		retry = false;
		wait = backoff_ns(attempt);
		if (rc) {
			retry = not_sent(x->cc) || (x->idempotent && broken(x->cc));
		} else if (x->status == 401 && x->cred_gen && !reauth) {
			/*
			 * The plugin's credential was refused before its expirationTimestamp: drop
			 * it and send the request once more with a fresh one (a 401 was not acted
			 * on, so any verb may go again). Once per request: a plugin whose new
			 * credential is refused too gives the 401 to the caller, and does not run
			 * in a loop.
			 */
			reauth = true;
			retry = true;
			wait = 0;
			vc_kube_exec_auth_unauthorized(r->exec, x->cred_gen);
		} else if (retryable_status(x->status, x->retry_after_ns >= 0)) {
			retry = true;
			if (x->retry_after_ns >= 0)
				wait = x->retry_after_ns;
		}
		if (!retry || attempt >= VC_KUBE_MAX_ATTEMPTS ||
		    vc_time_mono_ns() - start + wait > VC_KUBE_RETRY_BUDGET_NS)
			break;
		VC_WARN("retrying API request",
			"verb=%s path=%s status=%ld attempt=%d wait_ms=%" PRId64 " err=\"%s\"",
			x->method, x->path, x->status, attempt, wait / VC_NSEC_PER_MSEC,
			rc && err ? err->text : "");
		rest_sleep(r, wait);
	}
	if (rc)
		return rc;
	if (x->status < 200 || x->status > 299)
		return vc_kube_rest_status_error(r, x, err);
	if (!out)
		return 0;
	rc = vc_json_parse(x->resp.data ? x->resp.data : "", x->resp.len, x->cap, out, err);
	if (rc == VC_EPARSE)
		vc_error_prefix(err, "cannot parse the response to %s %s", x->method, x->path);
	return rc;
}

/* ---- making and freeing the real client -------------------------------------------------- */

static void rest_free(void *ctx)
{
	struct rest *r = ctx;
	struct rest_handle *h, *next;
	int i;

	if (!r)
		return;
	pthread_key_delete(r->key);
	for (h = r->handles; h; h = next) {
		next = h->next;
		handle_free(h);
	}
	curl_share_cleanup(r->share);
	for (i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&r->share_locks[i]);
	pthread_mutex_destroy(&r->lock);
	vc_bucket_release(&r->bucket);
	vc_kube_token_wipe(r->token);
	vc_kube_exec_auth_free(r->exec);
	if (r->cfg.token)
		explicit_bzero(r->cfg.token, strlen(r->cfg.token));
	vc_kube_config_release(&r->cfg);
	vc_free(r);
}

static const struct vc_kube_ops rest_ops = {
	.get = vc_kube_rest_get,
	.list = vc_kube_rest_list,
	.create = vc_kube_rest_create,
	.update = vc_kube_rest_update,
	.patch = vc_kube_rest_patch,
	.del = vc_kube_rest_del,
	.watch = vc_kube_rest_watch,
	.free = rest_free,
};

int vc_kube_new(const struct vc_kube_config *cfg, struct vc_kube **out, struct vc_error *err)
{
	struct rest *r;
	struct vc_kube *c;
	CURLSHcode sc;
	int rc, i;

	vc_error_clear(err);
	if (!out)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	*out = NULL;
	if (!cfg || !cfg->server || !*cfg->server)
		return vc_error_set(err, VC_EINVAL, "the client configuration has no server");
	pthread_once(&curl_once, curl_init);
	if (curl_init_rc != CURLE_OK)
		return vc_error_set(err, VC_EIO, "cannot initialise libcurl: %s",
				    curl_easy_strerror(curl_init_rc));
	r = vc_calloc(1, sizeof(*r));
	if (!r)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = vc_kube_config_copy(&r->cfg, cfg, err);
	if (rc) {
		vc_free(r);
		return rc;
	}
	/* The server without trailing slashes: paths start with one. */
	for (i = (int)strlen(r->cfg.server); i > 0 && r->cfg.server[i - 1] == '/'; i--)
		r->cfg.server[i - 1] = '\0';
	if (!r->cfg.namespace && !(r->cfg.namespace = vc_strdup("default"))) {
		vc_kube_config_release(&r->cfg);
		vc_free(r);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	r->timeout_ns = cfg->timeout_ns > 0 ? cfg->timeout_ns : VC_KUBE_DEFAULT_TIMEOUT_NS;
	r->max_body = cfg->max_body ? cfg->max_body : VC_KUBE_MAX_BODY;
	r->sleep = real_sleep;
	pthread_mutex_init(&r->lock, NULL);
	for (i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&r->share_locks[i], NULL);
	vc_bucket_init(&r->bucket, cfg->qps, cfg->burst);
	if (pthread_key_create(&r->key, handle_thread_exit)) {
		r->share = NULL;
		rc = vc_error_set(err, VC_ENOMEM, "cannot create a thread key");
		goto fail_key;
	}
	r->share = curl_share_init();
	if (!r->share) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	sc = curl_share_setopt(r->share, CURLSHOPT_LOCKFUNC, share_lock);
	if (!sc)
		sc = curl_share_setopt(r->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
	if (!sc)
		sc = curl_share_setopt(r->share, CURLSHOPT_USERDATA, r);
	if (!sc)
		sc = curl_share_setopt(r->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
	if (!sc)
		sc = curl_share_setopt(r->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
	/* Not CURL_LOCK_DATA_SSL_SESSION: see the comment at the top of this file. */
	if (sc) {
		rc = vc_error_set(err, sc == CURLSHE_NOMEM ? VC_ENOMEM : VC_EIO,
				  "cannot set up libcurl's share: %s", curl_share_strerror(sc));
		goto fail;
	}
	if (r->cfg.token && !(r->token = vc_strdup(r->cfg.token))) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	if (r->cfg.token_file) {
		char *tok;

		/* The file wins over a static token (client-go); it must be readable now. */
		rc = vc_kube_token_read(r->cfg.token_file, &tok, &r->token_st, err);
		if (rc)
			goto fail;
		vc_kube_token_wipe(r->token);
		r->token = tok;
		r->token_checked = vc_time_mono_ns();
	}
	/* A token of the user's own wins over an exec plugin, as in client-go. */
	if (r->cfg.exec && !r->token) {
		rc = vc_kube_exec_auth_new(&r->cfg, &r->exec, err);
		if (rc)
			goto fail;
	}
	c = vc_kube_new_with_ops(&rest_ops, r);
	if (!c) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	c->rest = r;
	*out = c;
	return 0;
fail:
	pthread_key_delete(r->key);
fail_key:
	if (r->share)
		curl_share_cleanup(r->share);
	for (i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&r->share_locks[i]);
	pthread_mutex_destroy(&r->lock);
	vc_bucket_release(&r->bucket);
	vc_kube_token_wipe(r->token);
	vc_kube_exec_auth_free(r->exec);
	vc_kube_config_release(&r->cfg);
	vc_free(r);
	return rc;
}

const char *vc_kube_namespace(const struct vc_kube *c)
{
	if (c && c->rest)
		return c->rest->cfg.namespace;
	return "default";
}

void vc_kube_set_sleep(struct vc_kube *c, vc_sleep_fn *fn, void *ctx)
{
	if (!c || !c->rest)
		return;
	c->rest->sleep = fn ? fn : real_sleep;
	c->rest->sleep_ctx = fn ? ctx : NULL;
}
