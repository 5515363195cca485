/*
 * vc_httpd.h - the HTTP(S) server the daemons share, on libmicrohttpd.
 *
 * A server listens on one address and port (127.0.0.1 by default; port 0 picks a free port, which
 * vc_httpd_port reports), speaks plain HTTP or HTTPS (libmicrohttpd's GnuTLS back end, with the
 * certificate and key given as PEM text), and runs its handlers on an internal pool of threads.
 * Requests are routed by exact path and method to handlers registered before the start; the
 * handler sees the method, path, raw query, headers and the whole body, and fills a response.
 *
 * Answers the server gives by itself (Go's net/http texts, Content-Type text/plain; charset=utf-8):
 *   404 "404 page not found\n"          no route has the path
 *   405 "method not allowed\n"          the path exists for other methods (Allow: lists them)
 *   413 "request body too large\n"      the body is over opts.max_body
 *   500 "internal server error\n"       the handler failed, or memory ran out
 * A HEAD request is served by the GET route of its path, without the body.
 *
 * Robustness: the connection limit, the per-connection inactivity timeout and the body cap bound
 * what one client can hold; garbage requests get libmicrohttpd's 400, and a TLS handshake that
 * fails (plain HTTP sent to the HTTPS port) only closes that connection. The server keeps serving
 * in every case. Deadlines, as Go's net/http has them, cut a client that sends slowly but never
 * stops (slowloris), which the inactivity timeout alone would keep forever: a request's headers
 * must arrive within opts.header_timeout_s of its request line (ReadHeaderTimeout), the whole
 * request within opts.read_timeout_s (ReadTimeout), and a new connection's TLS handshake and
 * first request line, or a kept-alive connection's next request line, within opts.timeout_s.
 * A watchdog thread closes (shutdown(2)) the connections past their deadline, a few times a
 * second; the handler's own time is not limited.
 *
 * Certificate rotation: vc_httpd_reload_tls starts a second daemon with the new certificate on the
 * same listening socket before it retires the old one, so no connection is refused during the
 * switch and a bad certificate leaves the old one serving.
 *
 * Thread safety: routes are registered before vc_httpd_start; handlers run concurrently on the
 * pool threads and must be thread-safe. vc_httpd_start, vc_httpd_reload_tls and vc_httpd_stop may
 * be called from any thread (they serialize), but not from a handler.
 */
#ifndef VC_HTTPD_H
#define VC_HTTPD_H

#include "vc_prelude.h"

#include "vc_buf.h"
#include "vc_err.h"
#include "vc_metrics.h"

struct vc_httpd;

/* A request as a handler sees it. Every pointer is borrowed and valid during the handler call. */
struct vc_httpd_request {
	const char *method; /* "GET", "POST", ... as sent */
	const char *path;   /* the decoded path, without the query */
	const char *query;  /* the raw query after '?' (not decoded), "" when none */
	const char *body;   /* the body, NUL-terminated (it may contain other NULs), "" if none */
	size_t body_len;
	void *conn; /* private */
};

struct vc_httpd_header;

/*
 * The response a handler fills. The server prepares it as status 200, an empty body, Content-Type
 * "text/plain; charset=utf-8" and no extra headers.
 */
struct vc_httpd_response {
	int status;	    /* an HTTP status, 100..599 (anything else is sent as 500) */
	struct vc_buf body; /* append the body here; capped at opts.max_response */
	/* private */
	char *content_type;
	struct vc_httpd_header *headers;
};

/*
 * A request header by name (case-insensitive), or NULL when absent. With repeated headers, the
 * first one.
 */
const char *vc_httpd_request_header(const struct vc_httpd_request *req, const char *name);

/* A query argument by name, decoded ("a%20b" and "a+b" are "a b"), or NULL when absent. */
const char *vc_httpd_request_arg(const struct vc_httpd_request *req, const char *name);

/*
 * Set the response's Content-Type (copied). VC_EINVAL for NULL or a value with CR or LF,
 * VC_ENOMEM.
 */
int vc_httpd_response_set_type(struct vc_httpd_response *resp, const char *type) VC_WARN_UNUSED;

/*
 * Add a response header (both strings copied). VC_EINVAL for an empty or invalid name (only
 * token characters), a value with CR, LF or NUL, or a header the server sets itself
 * (Content-Type: use vc_httpd_response_set_type; Content-Length); VC_ENOMEM.
 */
int vc_httpd_response_add_header(struct vc_httpd_response *resp, const char *name,
				 const char *value) VC_WARN_UNUSED;

/*
 * A route handler. Return 0 to send the response as filled; a negative code to send a 500
 * "internal server error\n" instead (whatever the handler wrote is dropped; the code is logged).
 */
typedef int vc_httpd_handler_fn(const struct vc_httpd_request *req, struct vc_httpd_response *resp,
				void *ctx);

/*
 * A health check for vc_httpd_route_check: return 0 when healthy; otherwise a negative code,
 * with the reason (for people) appended to `reason` (capped at 4 KiB).
 */
typedef int vc_httpd_check_fn(void *ctx, struct vc_buf *reason);

struct vc_httpd_opts {
	const char *address;	   /* IPv4 or IPv6 literal; default "127.0.0.1" */
	uint16_t port;		   /* 0 picks a free port; default 0 */
	unsigned threads;	   /* handler threads; default 4 */
	unsigned max_connections;  /* default 1024 */
	unsigned timeout_s;	   /* idle seconds before a connection is closed; default 30 */
	unsigned header_timeout_s; /* a request's headers, from its request line; default 5 */
	unsigned read_timeout_s;   /* a whole request, headers and body; default 30 */
	size_t max_body;	   /* largest request body accepted; default 3 MiB */
	size_t max_response;	   /* cap of a handler's response body; default 64 MiB */
	const char *cert_pem;	   /* HTTPS when both are set (PEM text, copied) */
	const char *key_pem;	   /* unencrypted PEM private key */
	unsigned reload_grace_ms;  /* how long a reload lets old connections finish; default 1000 */
};

/* Fill opts with the defaults above (plain HTTP on 127.0.0.1, free port). */
void vc_httpd_opts_init(struct vc_httpd_opts *opts);

/*
 * A new, stopped server with a copy of opts (NULL for the defaults). Zero numbers in opts mean
 * their defaults. Returns NULL when out of memory. Options are checked by vc_httpd_start.
 */
struct vc_httpd *vc_httpd_new(const struct vc_httpd_opts *opts) VC_WARN_UNUSED;

/* Stop the server if it runs and free it. NULL is allowed. */
void vc_httpd_free(struct vc_httpd *h);

/*
 * Route method + path (both exact, copied) to fn with ctx. Only before vc_httpd_start. Returns 0,
 * VC_EINVAL (NULL argument, a path not starting with '/', or the server started), VC_EEXIST
 * (the method and path are taken) or VC_ENOMEM.
 */
int vc_httpd_route(struct vc_httpd *h, const char *method, const char *path,
		   vc_httpd_handler_fn *fn, void *ctx) VC_WARN_UNUSED;

/*
 * Route GET path to a health check (for /healthz and /readyz): 200 "ok" when check returns 0
 * (or check is NULL), else 500 with the reason as the body ("check failed: <code text>" when the
 * check gave none). Errors as vc_httpd_route.
 */
int vc_httpd_route_check(struct vc_httpd *h, const char *path, vc_httpd_check_fn *check,
			 void *ctx) VC_WARN_UNUSED;

/*
 * Route GET path (usually /metrics) to the rendering of registry (borrowed; it must outlive the
 * server), with Content-Type VC_METRICS_CONTENT_TYPE. Errors as vc_httpd_route.
 */
int vc_httpd_route_metrics(struct vc_httpd *h, const char *path,
			   struct vc_metrics *registry) VC_WARN_UNUSED;

/*
 * Bind the address and port and start serving. Errors, with err->text:
 *   VC_EINVAL   "invalid listen address '<a>'", "https needs both a certificate and a key",
 *               "server already started", "https is not supported by libmicrohttpd"
 *   -errno      "cannot listen on <a>:<port>: <strerror>" (-EADDRINUSE, -EACCES, ...)
 *   VC_EIO      "cannot start the http server" (for HTTPS usually a bad certificate or key)
 * On failure nothing is left listening.
 */
int vc_httpd_start(struct vc_httpd *h, struct vc_error *err) VC_WARN_UNUSED;

/* The port the server listens on (the chosen one when opts.port was 0); 0 when stopped. */
uint16_t vc_httpd_port(const struct vc_httpd *h);

/* True when the server speaks HTTPS. */
bool vc_httpd_is_tls(const struct vc_httpd *h);

/*
 * Serve with a new certificate and key (PEM text, copied) from now on: new connections get the
 * new certificate; connections on the old one may finish within opts.reload_grace_ms and are then
 * closed. On failure the old certificate keeps serving. Errors: VC_EINVAL (not an HTTPS server,
 * not started, NULL PEM), VC_EIO ("cannot start the https server with the new certificate"),
 * VC_ENOMEM.
 */
int vc_httpd_reload_tls(struct vc_httpd *h, const char *cert_pem, const char *key_pem,
			struct vc_error *err) VC_WARN_UNUSED;

/* Stop serving and close the listening socket; waits for running handlers. Idempotent. */
void vc_httpd_stop(struct vc_httpd *h);

/* How many connections the deadlines have cut since the server was made (for tests, logs). */
uint64_t vc_httpd_deadline_cuts(const struct vc_httpd *h);

#endif /* VC_HTTPD_H */
