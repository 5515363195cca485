/*
 * Unit tests for vc_httpd. Each test starts a server on 127.0.0.1 with a free port and stops it.
 * Plain HTTP is driven with raw sockets (exact bytes, and the broken clients a server must
 * survive); HTTPS with libcurl and certificates made here with OpenSSL.
 */
#include "vc_prelude.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
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

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_httpd.h"
#include "vc_log.h"
#include "vc_metrics.h"
#include "vc_str.h"

#include "support/client.h"

#define IO_TIMEOUT_MS 5000

/* ---------------------------------------------------------------------------------------------
 * Raw-socket client
 */

/* Send all of data; false when the server closed the connection first. */
static bool send_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, data, len, MSG_NOSIGNAL);

		if (n <= 0)
			return false;
		data += n;
		len -= (size_t)n;
	}
	return true;
}

static bool send_str(int fd, const char *s)
{
	return send_all(fd, s, strlen(s));
}

/*
 * Read until the server closes (or IO_TIMEOUT_MS passes without data) into out. Returns true
 * when the connection was closed (EOF or reset), false on timeout.
 */
static bool read_until_close(int fd, struct tbuf *out, int timeout_ms)
{
	char chunk[4096];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, timeout_ms) <= 0)
			return false;
		n = recv(fd, chunk, sizeof(chunk), 0);
		if (n <= 0)
			return true;
		tbuf_add(out, chunk, (size_t)n);
	}
}

/* One request on a new connection; the whole response (headers and body) into out. */
static void raw_request(uint16_t port, const char *req, size_t len, struct tbuf *out)
{
	int fd = connect_to(port);

	tbuf_init(out);
	(void)send_all(fd, req, len);
	assert_true(read_until_close(fd, out, IO_TIMEOUT_MS));
	close(fd);
}

struct reply {
	int status;
	char headers[4096]; /* the header lines, lowercased names */
	char *body;
	size_t body_len;
	struct tbuf raw;
};

/* "GET path" with Connection: close, parsed into r. */
static void http(uint16_t port, const char *method, const char *target, const char *extra,
		 const char *body, struct reply *r)
{
	char req[8192];
	const char *p, *end;
	int n;

	n = snprintf(req, sizeof(req),
		     "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s"
		     "Content-Length: %zu\r\n\r\n%s",
		     method, target, extra ? extra : "", body ? strlen(body) : 0, body ? body : "");
	assert_true(n > 0 && (size_t)n < sizeof(req));
	raw_request(port, req, (size_t)n, &r->raw);
	p = r->raw.data;
	r->status = 0;
	assert_int_equal(sscanf(p, "HTTP/1.1 %d", &r->status), 1);
	end = strstr(p, "\r\n\r\n");
	assert_non_null(end);
	p = strstr(p, "\r\n") + 2;
	n = 0;
	for (; p < end + 2 && (size_t)n < sizeof(r->headers) - 1; p++) {
		char c = *p;

		if (c == '\r')
			continue;
		r->headers[n++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	r->headers[n] = '\0';
	r->body = (char *)end + 4;
	r->body_len = r->raw.len - (size_t)(r->body - r->raw.data);
}

static void reply_release(struct reply *r)
{
	tbuf_release(&r->raw);
}

/* ---------------------------------------------------------------------------------------------
 * Log capture: the server logs from its own threads.
 */

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_text[16384];

static void log_sink(void *ctx, int level, const char *line)
{
	size_t n;

	(void)ctx;
	(void)level;
	pthread_mutex_lock(&log_lock);
	n = strlen(log_text);
	snprintf(log_text + n, sizeof(log_text) - n, "%s\n", line);
	pthread_mutex_unlock(&log_lock);
}

static bool logged(const char *needle)
{
	bool found;

	pthread_mutex_lock(&log_lock);
	found = strstr(log_text, needle) != NULL;
	log_text[0] = '\0';
	pthread_mutex_unlock(&log_lock);
	return found;
}

/* ---------------------------------------------------------------------------------------------
 * Handlers
 */

static int echo_handler(const struct vc_httpd_request *req, struct vc_httpd_response *resp,
			void *ctx)
{
	const char *x = vc_httpd_request_arg(req, "x");
	const char *hdr = vc_httpd_request_header(req, "x-test");
	int rc;

	resp->status = *(int *)ctx;
	rc = vc_httpd_response_set_type(resp, "application/json");
	if (!rc)
		rc = vc_httpd_response_add_header(resp, "X-Reply", "yes");
	if (!rc)
		rc = vc_buf_addf(&resp->body, "%s %s q=[%s] x=[%s] h=[%s] len=%zu body=[",
				 req->method, req->path, req->query, x ? x : "(none)",
				 hdr ? hdr : "(none)", req->body_len);
	if (!rc)
		rc = vc_buf_add(&resp->body, req->body, req->body_len);
	if (!rc)
		rc = vc_buf_addc(&resp->body, ']');
	return rc;
}

static int failing_handler(const struct vc_httpd_request *req, struct vc_httpd_response *resp,
			   void *ctx)
{
	(void)req;
	(void)ctx;
	/* What it wrote is dropped. */
	if (vc_buf_adds(&resp->body, "secret partial output"))
		return VC_ENOMEM;
	return VC_EIO;
}

static int bad_headers_handler(const struct vc_httpd_request *req, struct vc_httpd_response *resp,
			       void *ctx)
{
	(void)req;
	(void)ctx;
	if (vc_httpd_response_add_header(resp, "X-Bad", "a\r\nInjected: 1") != VC_EINVAL ||
	    vc_httpd_response_add_header(resp, "Bad Name", "v") != VC_EINVAL ||
	    vc_httpd_response_add_header(resp, "", "v") != VC_EINVAL ||
	    vc_httpd_response_add_header(resp, "content-length", "5") != VC_EINVAL ||
	    vc_httpd_response_add_header(resp, "Content-Type", "x/y") != VC_EINVAL ||
	    vc_httpd_response_set_type(resp, "text/html\nX: y") != VC_EINVAL)
		return VC_EINVAL;
	resp->status = 1000; /* out of range: sent as 500 */
	return vc_buf_adds(&resp->body, "checked");
}

static int ready_flag;

static int readiness(void *ctx, struct vc_buf *reason)
{
	(void)ctx;
	if (ready_flag)
		return 0;
	if (vc_buf_adds(reason, "informers not synced: pods"))
		return VC_ENOMEM;
	return -EAGAIN;
}

static int silent_failure(void *ctx, struct vc_buf *reason)
{
	(void)ctx;
	(void)reason;
	return VC_ETIMEDOUT;
}

/* A server on 127.0.0.1:0 with the test routes. */
static struct vc_httpd *start_server(struct vc_httpd_opts *o, struct vc_metrics *reg)
{
	static int created = 201;
	struct vc_httpd *h = vc_httpd_new(o);
	struct vc_error err;

	assert_non_null(h);
	assert_int_equal(vc_httpd_route(h, "POST", "/echo", echo_handler, &created), 0);
	assert_int_equal(vc_httpd_route(h, "PUT", "/echo", echo_handler, &created), 0);
	assert_int_equal(vc_httpd_route(h, "GET", "/fail", failing_handler, NULL), 0);
	assert_int_equal(vc_httpd_route(h, "GET", "/badheaders", bad_headers_handler, NULL), 0);
	assert_int_equal(vc_httpd_route_check(h, "/healthz", NULL, NULL), 0);
	assert_int_equal(vc_httpd_route_check(h, "/readyz", readiness, NULL), 0);
	assert_int_equal(vc_httpd_route_check(h, "/livez", silent_failure, NULL), 0);
	if (reg)
		assert_int_equal(vc_httpd_route_metrics(h, "/metrics", reg), 0);
	vc_error_clear(&err);
	assert_int_equal(vc_httpd_start(h, &err), 0);
	assert_int_equal(err.code, 0);
	assert_true(vc_httpd_port(h) > 0);
	return h;
}

static void expect_get(uint16_t port, const char *target, int status, const char *body)
{
	struct reply r;

	http(port, "GET", target, NULL, NULL, &r);
	assert_int_equal(r.status, status);
	assert_string_equal(r.body, body);
	reply_release(&r);
}

static void test_routes(void **state)
{
	struct vc_httpd_opts o;
	struct vc_metrics *reg = vc_metrics_new();
	struct vc_metric *c;
	struct vc_httpd *h;
	struct reply r;
	uint16_t port;

	(void)state;
	assert_int_equal(vc_metrics_counter(reg, "requests_total", "Requests.", NULL, &c, NULL), 0);
	assert_int_equal(vc_metric_add(c, NULL, 7), 0);
	vc_httpd_opts_init(&o);
	h = start_server(&o, reg);
	port = vc_httpd_port(h);
	assert_false(vc_httpd_is_tls(h));

	http(port, "POST", "/echo?x=a%20b&y=2", "X-Test: hello\r\n", "{\"k\":1}", &r);
	assert_int_equal(r.status, 201);
	assert_string_equal(r.body, "POST /echo q=[x=a%20b&y=2] x=[a b] h=[hello] len=7 "
				    "body=[{\"k\":1}]");
	assert_non_null(strstr(r.headers, "content-type: application/json\n"));
	assert_non_null(strstr(r.headers, "x-reply: yes\n"));
	reply_release(&r);
	http(port, "PUT", "/echo", NULL, NULL, &r);
	assert_string_equal(r.body, "PUT /echo q=[] x=[(none)] h=[(none)] len=0 body=[]");
	reply_release(&r);

	expect_get(port, "/healthz", 200, "ok");
	ready_flag = 0;
	expect_get(port, "/readyz", 500, "informers not synced: pods");
	ready_flag = 1;
	expect_get(port, "/readyz", 200, "ok");
	expect_get(port, "/livez", 500, "check failed: timed out");

	http(port, "GET", "/metrics", NULL, NULL, &r);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "# HELP requests_total Requests.\n"
				    "# TYPE requests_total counter\n"
				    "requests_total 7\n");
	assert_non_null(
		strstr(r.headers, "content-type: text/plain; version=0.0.4; charset=utf-8\n"));
	reply_release(&r);

	http(port, "GET", "/nope", NULL, NULL, &r);
	assert_int_equal(r.status, 404);
	assert_string_equal(r.body, "404 page not found\n");
	assert_non_null(strstr(r.headers, "content-type: text/plain; charset=utf-8\n"));
	reply_release(&r);
	/* Paths are exact: no prefix or trailing-slash matching. */
	expect_get(port, "/healthz/", 404, "404 page not found\n");
	expect_get(port, "/health", 404, "404 page not found\n");

	http(port, "GET", "/echo", NULL, NULL, &r);
	assert_int_equal(r.status, 405);
	assert_string_equal(r.body, "method not allowed\n");
	assert_non_null(strstr(r.headers, "allow: post, put\n"));
	reply_release(&r);
	http(port, "DELETE", "/healthz", NULL, NULL, &r);
	assert_int_equal(r.status, 405);
	assert_non_null(strstr(r.headers, "allow: get\n"));
	reply_release(&r);

	/* HEAD is served by the GET route, without a body. */
	http(port, "HEAD", "/healthz", NULL, NULL, &r);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_len, 0);
	reply_release(&r);

	(void)logged("");
	expect_get(port, "/fail", 500, "internal server error\n");
	assert_true(logged("msg=\"http handler failed\" method=GET path=/fail "
			   "err=\"input/output error\""));
	expect_get(port, "/badheaders", 500, "checked");

	vc_httpd_stop(h);
	assert_int_equal(vc_httpd_port(h), 0);
	vc_httpd_stop(h);
	vc_httpd_free(h);
	vc_metrics_free(reg);
}

static void test_body_cap(void **state)
{
	struct vc_httpd_opts o;
	struct vc_httpd *h;
	struct tbuf out;
	struct reply r;
	uint16_t port;
	char big[64];
	int fd;

	(void)state;
	vc_httpd_opts_init(&o);
	o.max_body = 16;
	h = start_server(&o, NULL);
	port = vc_httpd_port(h);

	/* Exactly the cap is fine; one byte more is refused from the Content-Length alone. */
	http(port, "POST", "/echo", NULL, "0123456789abcdef", &r);
	assert_int_equal(r.status, 201);
	assert_non_null(strstr(r.body, "len=16 body=[0123456789abcdef]"));
	reply_release(&r);
	http(port, "POST", "/echo", NULL, "0123456789abcdefg", &r);
	assert_int_equal(r.status, 413);
	assert_string_equal(r.body, "request body too large\n");
	reply_release(&r);

	/* A huge Content-Length with no body sent: 413 at once, nothing read. */
	{
		static const char req[] =
			"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n";

		raw_request(port, req, sizeof(req) - 1, &out);
	}
	assert_true(vc_str_has_prefix(out.data, "HTTP/1.1 413 "));
	tbuf_release(&out);

	/* Chunked bodies have no length: over the cap they are dropped, then 413. */
	memset(big, 'z', sizeof(big));
	{
		static const char chunked[] =
			"POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
			"Transfer-Encoding: chunked\r\n\r\n"
			"10\r\n0123456789abcdef\r\n"
			"8\r\nzzzzzzzz\r\n"
			"0\r\n\r\n";

		raw_request(port, chunked, sizeof(chunked) - 1, &out);
		assert_true(vc_str_has_prefix(out.data, "HTTP/1.1 413 "));
		tbuf_release(&out);
	}
	/* A chunked body far over the cap: the server hangs up without reading it all. */
	fd = connect_to(port);
	{
		static const char head[] = "POST /echo HTTP/1.1\r\nHost: x\r\n"
					   "Transfer-Encoding: chunked\r\n\r\n";
		int i;
		bool closed = false;

		assert_true(send_all(fd, head, sizeof(head) - 1));
		for (i = 0; i < 100000 && !closed; i++)
			closed = !send_str(fd, "40\r\n") || !send_all(fd, big, sizeof(big)) ||
				 !send_str(fd, "\r\n");
		tbuf_init(&out);
		assert_true(closed || read_until_close(fd, &out, IO_TIMEOUT_MS));
		tbuf_release(&out);
		close(fd);
	}
	/* And the server goes on serving. */
	expect_get(port, "/healthz", 200, "ok");
	vc_httpd_free(h);
}

static void test_garbage_requests(void **state)
{
	static const char *const garbage[] = {
		"\x00\x01\x02\xff garbage\r\n\r\n",
		"GET\r\n\r\n",
		"GET /healthz HTTP/1.1\r\nBad Header Without Colon\r\n\r\n",
		"GET /healthz HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
		"GET /healthz HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"\r\n\r\n\r\n",
	};
	struct vc_httpd_opts o;
	struct vc_httpd *h;
	struct tbuf out;
	int fds[VC_ARRAY_SIZE(garbage)];
	char *huge;
	size_t i;
	uint16_t port;

	(void)state;
	vc_httpd_opts_init(&o);
	/* Some of these leave libmicrohttpd waiting for more: the idle timeout ends them. */
	o.timeout_s = 1;
	h = start_server(&o, NULL);
	port = vc_httpd_port(h);
	/* All at once, so the idle timeouts run in parallel. */
	for (i = 0; i < VC_ARRAY_SIZE(garbage); i++) {
		/* The first entry holds a NUL: send its real length. */
		size_t len = i == 0 ? 16 : strlen(garbage[i]);

		fds[i] = connect_to(port);
		(void)send_all(fds[i], garbage[i], len);
	}
	for (i = 0; i < VC_ARRAY_SIZE(garbage); i++) {
		tbuf_init(&out);
		assert_true(read_until_close(fds[i], &out, IO_TIMEOUT_MS));
		/* An error status (400) or a plain hang-up: never a success. */
		assert_true(out.len == 0 || vc_str_has_prefix(out.data, "HTTP/1.1 4"));
		tbuf_release(&out);
		close(fds[i]);
	}
	/* Headers beyond the per-connection memory: refused, not crashed. */
	huge = malloc(256 * 1024);
	assert_non_null(huge);
	i = (size_t)snprintf(huge, 64, "GET /healthz HTTP/1.1\r\nX-Big: ");
	memset(huge + i, 'a', 200 * 1024);
	memcpy(huge + i + 200 * 1024, "\r\n\r\n", 4);
	raw_request(port, huge, i + 200 * 1024 + 4, &out);
	assert_null(strstr(out.data, " 200 "));
	tbuf_release(&out);
	free(huge);
	/* Half a request, then the client goes away. */
	{
		int fd = connect_to(port);

		assert_true(send_str(fd, "GET /heal"));
		close(fd);
	}
	expect_get(port, "/healthz", 200, "ok");
	vc_httpd_free(h);
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_slow_client_timeout(void **state)
{
	struct vc_httpd_opts o;
	struct vc_httpd *h;
	struct tbuf out;
	uint16_t port;
	int64_t t0;
	int slow;

	(void)state;
	vc_httpd_opts_init(&o);
	o.timeout_s = 1;
	o.threads = 1;
	h = start_server(&o, NULL);
	port = vc_httpd_port(h);
	/* A client that sends half its headers and stalls ... */
	slow = connect_to(port);
	assert_true(send_str(slow, "GET /healthz HTTP/1.1\r\nHost: x\r\n"));
	t0 = mono_ms();
	/* ... does not hold up others, even with one thread ... */
	expect_get(port, "/healthz", 200, "ok");
	/* ... and is disconnected after the timeout, with no response. */
	tbuf_init(&out);
	assert_true(read_until_close(slow, &out, IO_TIMEOUT_MS));
	assert_int_equal(out.len, 0);
	assert_true(mono_ms() - t0 >= 900);
	tbuf_release(&out);
	close(slow);
	expect_get(port, "/healthz", 200, "ok");
	vc_httpd_free(h);
}

/*
 * Drip text to fd a byte every 100 ms until the server closes the connection or limit_ms pass;
 * returns the milliseconds it took the server to cut it, or -1 when it never did.
 */
static int64_t drip_until_cut(int fd, const char *text, int64_t limit_ms)
{
	int64_t t0 = mono_ms();
	size_t i = 0, n = strlen(text);
	char c;

	while (mono_ms() - t0 < limit_ms) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (!send_all(fd, &text[i % n], 1))
			return mono_ms() - t0;
		i++;
		/* The server's cut shows as the end of the stream (or a reset) before the next
		 * byte. */
		if (poll(&p, 1, 100) > 0 && recv(fd, &c, 1, MSG_DONTWAIT) <= 0)
			return mono_ms() - t0;
	}
	return -1;
}

/*
 * Go's deadlines (docs/volcano/webhooks.md §1.2): a client that keeps sending a byte now and then
 * never looks idle, and is still cut when its headers or its body take too long; a kept-alive
 * connection may wait longer than the header deadline between requests.
 */
static void test_slowloris_deadlines(void **state)
{
	struct vc_httpd_opts o;
	struct vc_httpd *h;
	struct tbuf out;
	uint16_t port;
	int64_t took;
	int fd;

	(void)state;
	vc_httpd_opts_init(&o);
	o.timeout_s = 30;
	o.header_timeout_s = 1;
	o.read_timeout_s = 2;
	o.threads = 1;
	h = start_server(&o, NULL);
	port = vc_httpd_port(h);

	/* Headers a byte at a time: cut about header_timeout_s after the request line. */
	fd = connect_to(port);
	assert_true(send_str(fd, "POST /echo HTTP/1.1\r\nHost: x\r\n"));
	took = drip_until_cut(fd, "X-Slow: aaaaaaaa\r\n", 5000);
	assert_true(took >= 900 && took < 2500);
	close(fd);
	expect_get(port, "/healthz", 200, "ok");

	/* A body a byte at a time: cut about read_timeout_s after the request line. */
	fd = connect_to(port);
	assert_true(send_str(fd, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"));
	took = drip_until_cut(fd, "x", 6000);
	assert_true(took >= 1900 && took < 3500);
	close(fd);
	assert_int_equal(vc_httpd_deadline_cuts(h), 2);

	/* Kept alive and idle past the header deadline, the next request is still served. */
	fd = connect_to(port);
	assert_true(send_str(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
	sleep(2);
	assert_true(send_str(fd, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
	tbuf_init(&out);
	assert_true(read_until_close(fd, &out, IO_TIMEOUT_MS));
	assert_non_null(strstr(out.data, "200 OK"));
	assert_non_null(strstr(strstr(out.data, "200 OK") + 1, "200 OK"));
	tbuf_release(&out);
	close(fd);
	assert_int_equal(vc_httpd_deadline_cuts(h), 2);
	vc_httpd_free(h);
}

static void test_connection_limit(void **state)
{
	struct vc_httpd_opts o;
	struct vc_httpd *h;
	struct tbuf out;
	uint16_t port;
	int a, b, c;

	(void)state;
	vc_httpd_opts_init(&o);
	o.max_connections = 2;
	o.threads = 1;
	h = start_server(&o, NULL);
	port = vc_httpd_port(h);
	a = connect_to(port);
	b = connect_to(port);
	/* Make sure both are accepted before the third arrives. */
	assert_true(send_str(a, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
	assert_true(send_str(b, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
	{
		char buf[512];
		struct pollfd p = { .fd = a, .events = POLLIN };

		assert_int_equal(poll(&p, 1, IO_TIMEOUT_MS), 1);
		assert_true(recv(a, buf, sizeof(buf), 0) > 0);
		p.fd = b;
		assert_int_equal(poll(&p, 1, IO_TIMEOUT_MS), 1);
		assert_true(recv(b, buf, sizeof(buf), 0) > 0);
	}
	/*
	 * Over the limit, libmicrohttpd stops accepting: the third client waits in the kernel's
	 * backlog, unanswered, until a slot frees up, and is then served.
	 */
	c = connect_to(port);
	assert_true(send_str(c, "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n"));
	{
		struct pollfd p = { .fd = c, .events = POLLIN };

		assert_int_equal(poll(&p, 1, 300), 0);
	}
	close(a);
	tbuf_init(&out);
	assert_true(read_until_close(c, &out, IO_TIMEOUT_MS));
	assert_true(vc_str_has_prefix(out.data, "HTTP/1.1 200 "));
	tbuf_release(&out);
	close(c);
	close(b);
	expect_get(port, "/healthz", 200, "ok");
	vc_httpd_free(h);
}

/* ---------------------------------------------------------------------------------------------
 * HTTPS
 */

struct pem_pair {
	char *cert;
	char *key;
};

static char *bio_text(BIO *bio)
{
	char *data, *s;
	long n = BIO_get_mem_data(bio, &data);

	s = malloc((size_t)n + 1);
	assert_non_null(s);
	memcpy(s, data, (size_t)n);
	s[n] = '\0';
	return s;
}

/* A self-signed P-256 certificate for 127.0.0.1 and localhost. */
static void make_cert(const char *cn, struct pem_pair *out)
{
	EVP_PKEY *pkey = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	X509V3_CTX ctx;
	X509_EXTENSION *ext;
	X509_NAME *name;
	BIO *bio;

	assert_non_null(pkey);
	assert_non_null(x);
	assert_int_equal(X509_set_version(x, 2), 1);
	assert_int_equal(ASN1_INTEGER_set(X509_get_serialNumber(x), (long)cn[0]), 1);
	assert_non_null(X509_gmtime_adj(X509_getm_notBefore(x), -3600));
	assert_non_null(X509_gmtime_adj(X509_getm_notAfter(x), 3600));
	assert_int_equal(X509_set_pubkey(x, pkey), 1);
	name = X509_get_subject_name(x);
	assert_int_equal(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
						    (const unsigned char *)cn, -1, -1, 0),
			 1);
	assert_int_equal(X509_set_issuer_name(x, name), 1);
	X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
	assert_non_null(ext);
	assert_int_equal(X509_add_ext(x, ext, -1), 1);
	X509_EXTENSION_free(ext);
	assert_true(X509_sign(x, pkey, EVP_sha256()) > 0);

	bio = BIO_new(BIO_s_mem());
	assert_int_equal(PEM_write_bio_X509(bio, x), 1);
	out->cert = bio_text(bio);
	BIO_free(bio);
	bio = BIO_new(BIO_s_mem());
	assert_int_equal(PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL, NULL), 1);
	out->key = bio_text(bio);
	BIO_free(bio);
	X509_free(x);
	EVP_PKEY_free(pkey);
}

static void pem_release(struct pem_pair *p)
{
	free(p->cert);
	free(p->key);
}

/* GET https://127.0.0.1:port/path trusting only ca_pem. Returns the curl code. */
static CURLcode https_get(uint16_t port, const char *path, const char *ca_pem, long *status,
			  struct tbuf *body)
{
	struct curl_blob ca = { .data = (void *)ca_pem,
				.len = strlen(ca_pem),
				.flags = CURL_BLOB_COPY };
	char url[128];
	CURL *c = curl_easy_init();
	CURLcode rc;

	assert_non_null(c);
	snprintf(url, sizeof(url), "https://127.0.0.1:%u%s", (unsigned)port, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
	curl_easy_setopt(c, CURLOPT_CAPATH, NULL);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, curl_sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)IO_TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	rc = curl_easy_perform(c);
	*status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	curl_easy_cleanup(c);
	return rc;
}

static void expect_https_ok(uint16_t port, const char *ca)
{
	struct tbuf body;
	long status;

	tbuf_init(&body);
	assert_int_equal(https_get(port, "/healthz", ca, &status, &body), CURLE_OK);
	assert_int_equal(status, 200);
	assert_string_equal(body.data, "ok");
	tbuf_release(&body);
}

static void test_https_and_reload(void **state)
{
	struct pem_pair one, two;
	struct vc_httpd_opts o;
	struct vc_httpd *h;
	struct tbuf out;
	struct vc_error err;
	long status;
	uint16_t port;

	(void)state;
	make_cert("one.caldera.test", &one);
	make_cert("two.caldera.test", &two);
	vc_httpd_opts_init(&o);
	o.cert_pem = one.cert;
	o.key_pem = one.key;
	o.reload_grace_ms = 200;
	h = start_server(&o, NULL);
	port = vc_httpd_port(h);
	assert_true(vc_httpd_is_tls(h));
	expect_https_ok(port, one.cert);

	/* Plain HTTP to the HTTPS port: no HTTP answer, and the server keeps serving. */
	{
		static const char req[] = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";

		raw_request(port, req, sizeof(req) - 1, &out);
	}
	assert_null(strstr(out.data, "HTTP/1.1 200"));
	tbuf_release(&out);
	expect_https_ok(port, one.cert);

	/* Rotation: new connections see the new certificate on the same port. */
	vc_error_clear(&err);
	assert_int_equal(vc_httpd_reload_tls(h, two.cert, two.key, &err), 0);
	assert_int_equal(vc_httpd_port(h), port);
	expect_https_ok(port, two.cert);
	tbuf_init(&out);
	assert_int_equal(https_get(port, "/healthz", one.cert, &status, &out),
			 CURLE_PEER_FAILED_VERIFICATION);
	tbuf_release(&out);

	/* A bad pair is refused and the current certificate keeps serving. */
	assert_int_equal(vc_httpd_reload_tls(h, "not a pem", two.key, &err), VC_EIO);
	assert_string_equal(err.text, "cannot start the https server with the new certificate");
	assert_int_equal(vc_httpd_reload_tls(h, two.cert, one.key, &err), VC_EIO);
	expect_https_ok(port, two.cert);
	assert_int_equal(vc_httpd_reload_tls(h, NULL, two.key, &err), VC_EINVAL);
	/* And back to the first one. */
	assert_int_equal(vc_httpd_reload_tls(h, one.cert, one.key, &err), 0);
	expect_https_ok(port, one.cert);
	vc_httpd_stop(h);
	assert_int_equal(vc_httpd_reload_tls(h, two.cert, two.key, &err), VC_EINVAL);
	assert_string_equal(err.text, "not a running https server");
	vc_httpd_free(h);

	/* A bad certificate at start: nothing is left listening. */
	o.cert_pem = "garbage";
	h = vc_httpd_new(&o);
	assert_non_null(h);
	assert_int_equal(vc_httpd_start(h, &err), VC_EIO);
	assert_string_equal(err.text, "cannot start the https server");
	assert_int_equal(vc_httpd_port(h), 0);
	vc_httpd_free(h);
	/* Half a pair. */
	o.cert_pem = one.cert;
	o.key_pem = NULL;
	h = vc_httpd_new(&o);
	assert_int_equal(vc_httpd_start(h, &err), VC_EINVAL);
	assert_string_equal(err.text, "https needs both a certificate and a key");
	vc_httpd_free(h);
	pem_release(&one);
	pem_release(&two);
}

/* CPU seconds this process (the server's threads included) has used. */
static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Clients that stop inside their TLS ClientHello (a record header and a few bytes of it) must
 * cost the server nothing while they wait: libmicrohttpd 0.9.75's epoll loop keeps retrying such
 * a handshake (8 of them cost about 0.2 s of CPU a second; in vc-webhook, 20 cut a well-behaved
 * client's reviews/s 8 times, 400 of them 20 times), its poll loop does not.
 */
static void test_partial_tls_handshake_idle(void **state)
{
	static const char hello_start[] = "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03";
	struct pem_pair one;
	struct vc_httpd_opts o;
	struct vc_httpd *h;
	uint16_t port;
	double used;
	int fds[8];
	size_t i;

	(void)state;
	make_cert("one.caldera.test", &one);
	vc_httpd_opts_init(&o);
	o.cert_pem = one.cert;
	o.key_pem = one.key;
	h = start_server(&o, NULL);
	port = vc_httpd_port(h);
	for (i = 0; i < VC_ARRAY_SIZE(fds); i++) {
		fds[i] = connect_to(port);
		assert_true(send_all(fds[i], hello_start, sizeof(hello_start) - 1));
	}
	usleep(200 * 1000);
	used = cpu_seconds();
	sleep(1);
	used = cpu_seconds() - used;
	expect_https_ok(port, one.cert);
	for (i = 0; i < VC_ARRAY_SIZE(fds); i++)
		close(fds[i]);
	vc_httpd_free(h);
	pem_release(&one);
	if (used > 0.05)
		fail_msg("the server used %.2f s of CPU in 1 s for 8 stalled handshakes", used);
}

static int noop_handler(const struct vc_httpd_request *req, struct vc_httpd_response *resp,
			void *ctx)
{
	(void)req;
	(void)resp;
	(void)ctx;
	return 0;
}

static void test_start_and_route_errors(void **state)
{
	struct vc_httpd_opts o;
	struct vc_httpd *a, *b;
	struct vc_error err;
	char want[128];
	struct vc_metrics *reg = vc_metrics_new();

	(void)state;
	vc_httpd_opts_init(&o);
	o.address = "localhost";
	a = vc_httpd_new(&o);
	assert_int_equal(vc_httpd_start(a, &err), VC_EINVAL);
	assert_string_equal(err.text, "invalid listen address 'localhost'");
	vc_httpd_free(a);

	vc_httpd_opts_init(&o);
	a = vc_httpd_new(&o);
	assert_non_null(a);
	assert_int_equal(vc_httpd_route(a, "GET", "/x", noop_handler, NULL), 0);
	assert_int_equal(vc_httpd_route(a, "GET", "/x", noop_handler, NULL), VC_EEXIST);
	assert_int_equal(vc_httpd_route_check(a, "/x", NULL, NULL), VC_EEXIST);
	assert_int_equal(vc_httpd_route(a, "POST", "/x", noop_handler, NULL), 0);
	assert_int_equal(vc_httpd_route(a, "GET", "x", noop_handler, NULL), VC_EINVAL);
	assert_int_equal(vc_httpd_route(a, "", "/y", noop_handler, NULL), VC_EINVAL);
	assert_int_equal(vc_httpd_route(a, "GET", "/y", NULL, NULL), VC_EINVAL);
	assert_int_equal(vc_httpd_route_metrics(a, "/metrics", NULL), VC_EINVAL);
	assert_int_equal(vc_httpd_start(a, &err), 0);
	assert_int_equal(vc_httpd_start(a, &err), VC_EINVAL);
	assert_string_equal(err.text, "server already started");
	assert_int_equal(vc_httpd_route(a, "GET", "/late", noop_handler, NULL), VC_EINVAL);
	assert_int_equal(vc_httpd_route_metrics(a, "/metrics", reg), VC_EINVAL);
	assert_int_equal(vc_httpd_reload_tls(a, "c", "k", &err), VC_EINVAL);
	/* An empty 200 from a handler that wrote nothing. */
	expect_get(vc_httpd_port(a), "/x", 200, "");

	/* The same port twice. */
	o.port = vc_httpd_port(a);
	b = vc_httpd_new(&o);
	assert_int_equal(vc_httpd_start(b, &err), -EADDRINUSE);
	snprintf(want, sizeof(want), "cannot listen on 127.0.0.1:%u: Address already in use",
		 (unsigned)o.port);
	assert_string_equal(err.text, want);
	assert_int_equal(vc_httpd_port(b), 0);
	vc_httpd_free(b);

	/* Stopped, the port is free again and the server can start anew. */
	vc_httpd_stop(a);
	b = vc_httpd_new(&o);
	assert_int_equal(vc_httpd_start(b, &err), 0);
	assert_int_equal(vc_httpd_port(b), o.port);
	vc_httpd_free(b);
	vc_httpd_free(a);
	vc_httpd_free(NULL);
	vc_metrics_free(reg);
}

static void test_ipv6(void **state)
{
	struct vc_httpd_opts o;
	struct vc_httpd *h;
	struct vc_error err;
	struct sockaddr_in6 sa;
	struct tbuf out;
	int fd;

	(void)state;
	vc_httpd_opts_init(&o);
	o.address = "::1";
	h = vc_httpd_new(&o);
	assert_int_equal(vc_httpd_route_check(h, "/healthz", NULL, NULL), 0);
	if (vc_httpd_start(h, &err) != 0) {
		/* No IPv6 loopback on this machine. */
		vc_httpd_free(h);
		skip();
	}
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin6_family = AF_INET6;
	sa.sin6_port = htons(vc_httpd_port(h));
	sa.sin6_addr = in6addr_loopback;
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_true(send_str(fd, "GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n"));
	tbuf_init(&out);
	assert_true(read_until_close(fd, &out, IO_TIMEOUT_MS));
	assert_true(vc_str_has_prefix(out.data, "HTTP/1.1 200 "));
	tbuf_release(&out);
	close(fd);
	vc_httpd_free(h);
}

/*
 * Setting up a server, and serving a request, with the Nth allocation failing: errors or a 500
 * or a closed connection, never a crash or a leak.
 */
static void test_alloc_failure(void **state)
{
	static int created = 201;
	struct vc_httpd *h;
	bool clean = false;
	long n;

	(void)state;
	for (n = 0; !clean; n++) {
		struct vc_error err;
		int rc;

		vc_alloc_fail_after(n);
		h = vc_httpd_new(NULL);
		if (!h) {
			vc_alloc_fail_reset();
			continue;
		}
		rc = vc_httpd_route(h, "POST", "/echo", echo_handler, &created);
		assert_true(rc == 0 || rc == VC_ENOMEM);
		rc = vc_httpd_route_check(h, "/healthz", NULL, NULL);
		assert_true(rc == 0 || rc == VC_ENOMEM);
		clean = vc_alloc_failures() == 0;
		vc_alloc_fail_reset();
		if (clean) {
			assert_int_equal(vc_httpd_start(h, &err), 0);
		}
		vc_httpd_free(h);
	}

	h = vc_httpd_new(NULL);
	assert_int_equal(vc_httpd_route(h, "POST", "/echo", echo_handler, &created), 0);
	assert_int_equal(vc_httpd_start(h, NULL), 0);
	for (n = 0, clean = false; !clean; n++) {
		struct reply r;

		vc_alloc_fail_after(n);
		http(vc_httpd_port(h), "POST", "/echo?x=1", NULL, "body", &r);
		clean = vc_alloc_failures() == 0;
		vc_alloc_fail_reset();
		if (clean) {
			assert_int_equal(r.status, 201);
			assert_string_equal(
				r.body, "POST /echo q=[x=1] x=[1] h=[(none)] len=4 body=[body]");
		} else {
			assert_int_equal(r.status, 500);
			assert_string_equal(r.body, "internal server error\n");
		}
		reply_release(&r);
	}
	assert_true(n > 3);
	vc_httpd_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_body_cap),
		cmocka_unit_test(test_garbage_requests),
		cmocka_unit_test(test_slow_client_timeout),
		cmocka_unit_test(test_slowloris_deadlines),
		cmocka_unit_test(test_connection_limit),
		cmocka_unit_test(test_https_and_reload),
		cmocka_unit_test(test_partial_tls_handshake_idle),
		cmocka_unit_test(test_start_and_route_errors),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_alloc_failure),
	};
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	vc_log_set_sink(log_sink, NULL);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	vc_log_set_sink(NULL, NULL);
	return rc;
}
