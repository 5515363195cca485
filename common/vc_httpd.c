#include "vc_httpd.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "vc_alloc.h"
#include "vc_log.h"

#define TEXT_PLAIN	"text/plain; charset=utf-8"
#define REASON_MAX	4096
#define DEFAULT_MAXBODY ((size_t)3 << 20)
/* How often the watchdog looks for connections past their deadline. */
#define WATCHDOG_PERIOD_NS (250 * INT64_C(1000000))
#define NS_PER_S	   INT64_C(1000000000)

struct vc_httpd_header {
	char *name;
	char *value;
	struct vc_httpd_header *next;
};

struct route {
	char *method;
	char *path;
	vc_httpd_handler_fn *fn;
	void *ctx;
	void *owned; /* freed with the route (the context of the built-in routes) */
};

struct check_route {
	vc_httpd_check_fn *check;
	void *ctx;
};

/*
 * An open connection and its deadline (libmicrohttpd's socket context), on the server's list
 * from libmicrohttpd's "started" notice to its "closed" one, which comes before it closes the
 * socket: a connection on the list still owns fd.
 */
struct conn_track {
	int fd;
	int64_t request_ns;  /* when the current request's line arrived */
	int64_t deadline_ns; /* 0 while a handler runs or the response goes out */
	bool cut;
	struct conn_track *prev, *next;
};

struct vc_httpd {
	struct vc_httpd_opts opts; /* strings point at the copies below */
	char *address;
	char *cert;
	char *key;

	struct route *routes;
	size_t nroutes, aroutes;

	pthread_mutex_t lock; /* start, reload and stop */
	bool started;
	bool tls;
	int fd;
	uint16_t port; /* read with atomics: vc_httpd_port may run on any thread */
	struct MHD_Daemon *daemon;

	/* The connections' deadlines and the watchdog that enforces them. */
	pthread_mutex_t conns_lock;
	pthread_cond_t conns_cond; /* CLOCK_MONOTONIC; wakes the watchdog to stop */
	struct conn_track *conns;
	bool watchdog_running, watchdog_stop;
	pthread_t watchdog;
	uint64_t cuts; /* atomic */
};

/* Per-request state, from the URI log callback to the completion callback. */
struct request_state {
	char *uri; /* raw, as sent: the query comes from here */
	const struct route *route;
	bool headers_seen;
	int body_err; /* VC_E2BIG once the body went over the cap, or VC_ENOMEM */
	size_t discarded;
	struct vc_buf body;
};

/* The real monotonic clock: deadlines are about sockets, not the clock tests replace. */
static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static int cond_init_monotonic(pthread_cond_t *c)
{
	pthread_condattr_t attr;
	int rc;

	if (pthread_condattr_init(&attr))
		return -1;
	rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) || pthread_cond_init(c, &attr);
	pthread_condattr_destroy(&attr);
	return rc ? -1 : 0;
}

void vc_httpd_opts_init(struct vc_httpd_opts *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->address = "127.0.0.1";
	opts->threads = 4;
	opts->max_connections = 1024;
	opts->timeout_s = 30;
	opts->header_timeout_s = 5;
	opts->read_timeout_s = 30;
	opts->max_body = DEFAULT_MAXBODY;
	opts->max_response = VC_BUF_DEFAULT_MAX;
	opts->reload_grace_ms = 1000;
}

struct vc_httpd *vc_httpd_new(const struct vc_httpd_opts *opts)
{
	struct vc_httpd_opts def;
	struct vc_httpd *h;

	vc_httpd_opts_init(&def);
	h = vc_calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->opts = opts ? *opts : def;
	if (!h->opts.address)
		h->opts.address = def.address;
	if (!h->opts.threads)
		h->opts.threads = def.threads;
	if (!h->opts.max_connections)
		h->opts.max_connections = def.max_connections;
	if (!h->opts.timeout_s)
		h->opts.timeout_s = def.timeout_s;
	if (!h->opts.header_timeout_s)
		h->opts.header_timeout_s = def.header_timeout_s;
	if (!h->opts.read_timeout_s)
		h->opts.read_timeout_s = def.read_timeout_s;
	if (!h->opts.max_body)
		h->opts.max_body = def.max_body;
	if (!h->opts.max_response)
		h->opts.max_response = def.max_response;
	if (!h->opts.reload_grace_ms)
		h->opts.reload_grace_ms = def.reload_grace_ms;
	h->fd = -1;
	h->address = vc_strdup(h->opts.address);
	if (!h->address)
		goto out_free;
	if (h->opts.cert_pem && !(h->cert = vc_strdup(h->opts.cert_pem)))
		goto out_free;
	if (h->opts.key_pem && !(h->key = vc_strdup(h->opts.key_pem)))
		goto out_free;
	h->opts.address = h->address;
	h->tls = h->cert || h->key;
	h->opts.cert_pem = h->cert;
	h->opts.key_pem = h->key;
	if (pthread_mutex_init(&h->lock, NULL))
		goto out_free;
	if (pthread_mutex_init(&h->conns_lock, NULL))
		goto out_lock;
	if (cond_init_monotonic(&h->conns_cond)) {
		pthread_mutex_destroy(&h->conns_lock);
		goto out_lock;
	}
	return h;

out_lock:
	pthread_mutex_destroy(&h->lock);
out_free:
	vc_free(h->key);
	vc_free(h->cert);
	vc_free(h->address);
	vc_free(h);
	return NULL;
}

void vc_httpd_free(struct vc_httpd *h)
{
	size_t i;

	if (!h)
		return;
	vc_httpd_stop(h);
	for (i = 0; i < h->nroutes; i++) {
		vc_free(h->routes[i].method);
		vc_free(h->routes[i].path);
		vc_free(h->routes[i].owned);
	}
	vc_free(h->routes);
	if (h->key)
		explicit_bzero(h->key, strlen(h->key));
	vc_free(h->key);
	vc_free(h->cert);
	vc_free(h->address);
	pthread_cond_destroy(&h->conns_cond);
	pthread_mutex_destroy(&h->conns_lock);
	pthread_mutex_destroy(&h->lock);
	vc_free(h);
}

/* ---------------------------------------------------------------------------------------------
 * Routes
 */

static int route_add(struct vc_httpd *h, const char *method, const char *path,
		     vc_httpd_handler_fn *fn, void *ctx, void *owned)
{
	struct route *r;
	size_t i;
	int rc = VC_EINVAL;

	if (!h || !method || !*method || !path || path[0] != '/' || !fn || h->started)
		goto out_owned;
	for (i = 0; i < h->nroutes; i++) {
		if (strcmp(h->routes[i].method, method) == 0 &&
		    strcmp(h->routes[i].path, path) == 0) {
			rc = VC_EEXIST;
			goto out_owned;
		}
	}
	rc = VC_ENOMEM;
	if (h->nroutes == h->aroutes) {
		size_t n = h->aroutes ? h->aroutes * 2 : 8;

		r = vc_realloc(h->routes, n * sizeof(*r));
		if (!r)
			goto out_owned;
		h->routes = r;
		h->aroutes = n;
	}
	r = &h->routes[h->nroutes];
	r->method = vc_strdup(method);
	r->path = vc_strdup(path);
	if (!r->method || !r->path) {
		vc_free(r->method);
		vc_free(r->path);
		goto out_owned;
	}
	r->fn = fn;
	r->ctx = ctx;
	r->owned = owned;
	h->nroutes++;
	return 0;

out_owned:
	vc_free(owned);
	return rc;
}

int vc_httpd_route(struct vc_httpd *h, const char *method, const char *path,
		   vc_httpd_handler_fn *fn, void *ctx)
{
	return route_add(h, method, path, fn, ctx, NULL);
}

static int check_handler(const struct vc_httpd_request *req, struct vc_httpd_response *resp,
			 void *ctx)
{
	const struct check_route *c = ctx;
	struct vc_buf reason;
	int rc = 0;

	(void)req;
	if (!c->check)
		return vc_buf_adds(&resp->body, "ok");
	vc_buf_init(&reason, REASON_MAX);
	rc = c->check(c->ctx, &reason);
	if (rc == 0) {
		rc = vc_buf_adds(&resp->body, "ok");
	} else {
		resp->status = 500;
		if (reason.len)
			rc = vc_buf_add(&resp->body, reason.data, reason.len);
		else
			rc = vc_buf_addf(&resp->body, "check failed: %s", vc_strerror(rc));
	}
	vc_buf_release(&reason);
	return rc;
}

int vc_httpd_route_check(struct vc_httpd *h, const char *path, vc_httpd_check_fn *check, void *ctx)
{
	struct check_route *c = vc_malloc(sizeof(*c));

	if (!c)
		return VC_ENOMEM;
	c->check = check;
	c->ctx = ctx;
	return route_add(h, "GET", path, check_handler, c, c);
}

static int metrics_handler(const struct vc_httpd_request *req, struct vc_httpd_response *resp,
			   void *ctx)
{
	int rc;

	(void)req;
	rc = vc_httpd_response_set_type(resp, VC_METRICS_CONTENT_TYPE);
	if (rc)
		return rc;
	return vc_metrics_render(ctx, &resp->body);
}

int vc_httpd_route_metrics(struct vc_httpd *h, const char *path, struct vc_metrics *registry)
{
	if (!registry)
		return VC_EINVAL;
	return route_add(h, "GET", path, metrics_handler, registry, NULL);
}

/* ---------------------------------------------------------------------------------------------
 * Requests and responses
 */

const char *vc_httpd_request_header(const struct vc_httpd_request *req, const char *name)
{
	if (!req || !req->conn || !name)
		return NULL;
	return MHD_lookup_connection_value(req->conn, MHD_HEADER_KIND, name);
}

const char *vc_httpd_request_arg(const struct vc_httpd_request *req, const char *name)
{
	if (!req || !req->conn || !name)
		return NULL;
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, name);
}

static bool has_crlf(const char *s)
{
	return strpbrk(s, "\r\n") != NULL;
}

int vc_httpd_response_set_type(struct vc_httpd_response *resp, const char *type)
{
	char *t;

	if (!resp || !type || has_crlf(type))
		return VC_EINVAL;
	t = vc_strdup(type);
	if (!t)
		return VC_ENOMEM;
	vc_free(resp->content_type);
	resp->content_type = t;
	return 0;
}

static bool token_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("!#$%&'*+-.^_`|~", *s)))
			return false;
	return true;
}

int vc_httpd_response_add_header(struct vc_httpd_response *resp, const char *name,
				 const char *value)
{
	struct vc_httpd_header *hd, **tail;

	if (!resp || !name || !value || !token_name(name) || has_crlf(value) ||
	    strcasecmp(name, "Content-Type") == 0 || strcasecmp(name, "Content-Length") == 0)
		return VC_EINVAL;
	hd = vc_calloc(1, sizeof(*hd));
	if (!hd)
		return VC_ENOMEM;
	hd->name = vc_strdup(name);
	hd->value = vc_strdup(value);
	if (!hd->name || !hd->value) {
		vc_free(hd->name);
		vc_free(hd->value);
		vc_free(hd);
		return VC_ENOMEM;
	}
	for (tail = &resp->headers; *tail; tail = &(*tail)->next)
		;
	*tail = hd;
	return 0;
}

static void response_init(struct vc_httpd_response *resp, size_t cap)
{
	memset(resp, 0, sizeof(*resp));
	resp->status = 200;
	vc_buf_init(&resp->body, cap);
}

static void response_release(struct vc_httpd_response *resp)
{
	struct vc_httpd_header *hd, *next;

	for (hd = resp->headers; hd; hd = next) {
		next = hd->next;
		vc_free(hd->name);
		vc_free(hd->value);
		vc_free(hd);
	}
	resp->headers = NULL;
	vc_free(resp->content_type);
	resp->content_type = NULL;
	vc_buf_release(&resp->body);
}

/* Send resp on conn; the response's memory is handed to libmicrohttpd or freed. */
static enum MHD_Result send_response(struct MHD_Connection *conn, struct vc_httpd_response *resp)
{
	struct MHD_Response *r;
	struct vc_httpd_header *hd;
	size_t len = resp->body.len;
	char *data = vc_buf_take(&resp->body);
	enum MHD_Result ok = MHD_NO;
	int status = resp->status;

	if (data)
		r = MHD_create_response_from_buffer_with_free_callback(len, data, vc_free);
	else
		r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	if (!r) {
		vc_free(data);
		goto out_release;
	}
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				    resp->content_type ? resp->content_type : TEXT_PLAIN) !=
	    MHD_YES)
		goto out_destroy;
	for (hd = resp->headers; hd; hd = hd->next)
		if (MHD_add_response_header(r, hd->name, hd->value) != MHD_YES)
			goto out_destroy;
	if (status < 100 || status > 599)
		status = 500;
	ok = MHD_queue_response(conn, (unsigned)status, r);
out_destroy:
	MHD_destroy_response(r);
out_release:
	response_release(resp);
	return ok;
}

/* A fixed text answer (404, 405, 413, 500) with optional Allow header. */
static enum MHD_Result send_text(struct MHD_Connection *conn, int status, const char *text,
				 const char *allow)
{
	struct MHD_Response *r;
	enum MHD_Result ok = MHD_NO;

	r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	if (MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, TEXT_PLAIN) == MHD_YES &&
	    (!allow || MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow) == MHD_YES))
		ok = MHD_queue_response(conn, (unsigned)status, r);
	MHD_destroy_response(r);
	return ok;
}

static const struct route *route_find(const struct vc_httpd *h, const char *method,
				      const char *path, bool *path_known)
{
	const struct route *get = NULL;
	size_t i;

	*path_known = false;
	for (i = 0; i < h->nroutes; i++) {
		const struct route *r = &h->routes[i];

		if (strcmp(r->path, path) != 0)
			continue;
		*path_known = true;
		if (strcmp(r->method, method) == 0)
			return r;
		if (strcmp(r->method, "GET") == 0)
			get = r;
	}
	return strcmp(method, "HEAD") == 0 ? get : NULL;
}

/* 405: answer with the methods the path has, as "GET, POST". */
static enum MHD_Result send_not_allowed(const struct vc_httpd *h, struct MHD_Connection *conn,
					const char *path)
{
	struct vc_buf allow;
	enum MHD_Result ok;
	size_t i;
	int rc = 0;

	vc_buf_init(&allow, 4096);
	for (i = 0; i < h->nroutes && !rc; i++) {
		if (strcmp(h->routes[i].path, path) != 0)
			continue;
		if (allow.len)
			rc = vc_buf_adds(&allow, ", ");
		if (!rc)
			rc = vc_buf_adds(&allow, h->routes[i].method);
	}
	ok = send_text(conn, 405, "method not allowed\n", rc ? NULL : vc_buf_str(&allow));
	vc_buf_release(&allow);
	return ok;
}

/* The path as a log value: at most 200 bytes, bytes outside printable ASCII (and '"') as '?'. */
static void log_path(char out[201], const char *path)
{
	size_t i;

	for (i = 0; i < 200 && path[i]; i++)
		out[i] = path[i] > 0x20 && path[i] < 0x7f && path[i] != '"' ? path[i] : '?';
	out[i] = '\0';
}

/* ---------------------------------------------------------------------------------------------
 * Deadlines (Go's ReadHeaderTimeout, ReadTimeout and IdleTimeout)
 */

static struct conn_track *track_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return info ? info->socket_context : NULL;
}

/*
 * Set the connection's deadline to `after_s` seconds after its current request began (0: no
 * deadline). With `request`, that request begins now.
 */
static void set_deadline(struct vc_httpd *h, struct MHD_Connection *conn, bool request,
			 int64_t after_s)
{
	struct conn_track *t = track_of(conn);

	if (!t)
		return;
	pthread_mutex_lock(&h->conns_lock);
	if (request)
		t->request_ns = mono_ns();
	t->deadline_ns = after_s ? t->request_ns + after_s * NS_PER_S : 0;
	pthread_mutex_unlock(&h->conns_lock);
}

static void notify_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			      enum MHD_ConnectionNotificationCode code)
{
	struct vc_httpd *h = cls;
	struct conn_track *t = *socket_context;
	const union MHD_ConnectionInfo *info;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		t = info ? vc_calloc(1, sizeof(*t)) : NULL;
		/* Without memory the connection goes untracked: the inactivity timeout holds. */
		if (!t)
			return;
		t->fd = info->connect_fd;
		/* The TLS handshake and the first request line: as an idle connection. */
		t->request_ns = mono_ns();
		t->deadline_ns = t->request_ns + (int64_t)h->opts.timeout_s * NS_PER_S;
		pthread_mutex_lock(&h->conns_lock);
		t->next = h->conns;
		if (h->conns)
			h->conns->prev = t;
		h->conns = t;
		pthread_mutex_unlock(&h->conns_lock);
		*socket_context = t;
		return;
	}
	if (!t)
		return;
	pthread_mutex_lock(&h->conns_lock);
	if (t->prev)
		t->prev->next = t->next;
	else
		h->conns = t->next;
	if (t->next)
		t->next->prev = t->prev;
	pthread_mutex_unlock(&h->conns_lock);
	vc_free(t);
	*socket_context = NULL;
}

/*
 * Cut the connections past their deadline: shutdown(2) makes libmicrohttpd see the end of the
 * stream and close the connection in its own thread; the socket stays libmicrohttpd's to close.
 */
static void *watchdog_main(void *arg)
{
	struct vc_httpd *h = arg;
	struct conn_track *t;
	struct timespec ts;
	int64_t now;

	pthread_mutex_lock(&h->conns_lock);
	while (!h->watchdog_stop) {
		now = mono_ns();
		for (t = h->conns; t; t = t->next) {
			if (t->cut || !t->deadline_ns || now < t->deadline_ns)
				continue;
			/* Counted first: whoever sees the cut sees it counted. */
			__atomic_add_fetch(&h->cuts, 1, __ATOMIC_SEQ_CST);
			t->cut = true;
			shutdown(t->fd, SHUT_RDWR);
			VC_LOG(VC_LOG_V(2), "http connection cut at its deadline", "fd=%d", t->fd);
		}
		now += WATCHDOG_PERIOD_NS;
		ts.tv_sec = (time_t)(now / NS_PER_S);
		ts.tv_nsec = (long)(now % NS_PER_S);
		pthread_cond_timedwait(&h->conns_cond, &h->conns_lock, &ts);
	}
	pthread_mutex_unlock(&h->conns_lock);
	return NULL;
}

uint64_t vc_httpd_deadline_cuts(const struct vc_httpd *h)
{
	return h ? __atomic_load_n(&h->cuts, __ATOMIC_SEQ_CST) : 0;
}

static enum MHD_Result run_handler(struct vc_httpd *h, struct MHD_Connection *conn,
				   struct request_state *st, const char *method, const char *url)
{
	struct vc_httpd_request req;
	struct vc_httpd_response resp;
	const char *q = strchr(st->uri, '?');
	char logged[201];
	int rc;

	req.method = method;
	req.path = url;
	req.query = q ? q + 1 : "";
	req.body = vc_buf_str(&st->body);
	req.body_len = st->body.len;
	req.conn = conn;
	response_init(&resp, h->opts.max_response);
	rc = st->route->fn(&req, &resp, st->route->ctx);
	log_path(logged, url);
	if (rc) {
		VC_WARN("http handler failed", "method=%s path=%s err=\"%s\"", method, logged,
			vc_strerror(rc));
		response_release(&resp);
		return send_text(conn, 500, "internal server error\n", NULL);
	}
	VC_LOG(VC_LOG_V(4), "http request", "method=%s path=%s status=%d", method, logged,
	       resp.status);
	return send_response(conn, &resp);
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *conn, const char *url,
				      const char *method, const char *version,
				      const char *upload_data, size_t *upload_data_size,
				      void **con_cls)
{
	struct vc_httpd *h = cls;
	struct request_state *st = *con_cls;
	bool path_known;
	const char *cl;

	(void)version;
	if (!st)
		return send_text(conn, 500, "internal server error\n", NULL);
	if (!st->headers_seen) {
		/* The first call has the headers only: answer what needs no body at once. */
		st->headers_seen = true;
		set_deadline(h, conn, false, h->opts.read_timeout_s);
		st->route = route_find(h, method, url, &path_known);
		if (!st->route && !path_known)
			return send_text(conn, 404, "404 page not found\n", NULL);
		if (!st->route)
			return send_not_allowed(h, conn, url);
		cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
						 MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && strtoull(cl, NULL, 10) > h->opts.max_body)
			return send_text(conn, 413, "request body too large\n", NULL);
		vc_buf_init(&st->body, h->opts.max_body + 1);
		return MHD_YES;
	}
	if (*upload_data_size) {
		/*
		 * A body without Content-Length (chunked) can outgrow the cap only here, where no
		 * response may be queued yet: drop the rest and answer 413 at the end, unless the
		 * client keeps sending as much again, in which case the connection is closed.
		 */
		if (!st->body_err) {
			st->body_err = vc_buf_add(&st->body, upload_data, *upload_data_size);
			if (st->body_err)
				vc_buf_release(&st->body);
		}
		if (st->body_err) {
			st->discarded += *upload_data_size;
			if (st->discarded > h->opts.max_body)
				return MHD_NO;
		}
		*upload_data_size = 0;
		return MHD_YES;
	}
	/* The request is in: the handler's time and the answer's are not the client's. */
	set_deadline(h, conn, false, 0);
	if (st->body_err == VC_E2BIG)
		return send_text(conn, 413, "request body too large\n", NULL);
	if (st->body_err)
		return send_text(conn, 500, "internal server error\n", NULL);
	return run_handler(h, conn, st, method, url);
}

static void *uri_logger(void *cls, const char *uri, struct MHD_Connection *conn)
{
	struct vc_httpd *h = cls;
	struct request_state *st;

	/* A request line: its headers are due within header_timeout_s. */
	set_deadline(h, conn, true, h->opts.header_timeout_s);
	st = vc_calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->uri = vc_strdup(uri ? uri : "");
	if (!st->uri) {
		vc_free(st);
		return NULL;
	}
	return st;
}

static void request_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			      enum MHD_RequestTerminationCode toe)
{
	struct vc_httpd *h = cls;
	struct request_state *st = *con_cls;

	(void)toe;
	/* Kept alive, the connection may wait timeout_s for its next request line. */
	set_deadline(h, conn, true, h->opts.timeout_s);
	if (!st)
		return;
	vc_buf_release(&st->body);
	vc_free(st->uri);
	vc_free(st);
	*con_cls = NULL;
}

static void mhd_logger(void *cls, const char *fmt, va_list ap) VC_PRINTF(2, 0);

/* libmicrohttpd's own messages (bad requests, TLS handshakes that fail) are V(2) detail. */
static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
	char text[512];
	size_t n;

	(void)cls;
	if (VC_LOG_V(2) > vc_log_threshold)
		return;
	vsnprintf(text, sizeof(text), fmt, ap);
	n = strlen(text);
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		text[--n] = '\0';
	VC_LOG(VC_LOG_V(2), "libmicrohttpd", "text=\"%s\"", text);
}

/* ---------------------------------------------------------------------------------------------
 * Daemons
 */

/* Bind and listen on the configured address; returns the socket or a negative code. */
static int listen_socket(struct vc_httpd *h, struct vc_error *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, rc;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, h->address, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		ss.ss_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons(h->opts.port);
		len = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, h->address, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		ss.ss_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(h->opts.port);
		len = sizeof(struct sockaddr_in6);
	} else {
		return vc_error_set(err, VC_EINVAL, "invalid listen address '%s'", h->address);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		goto out_errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (ss.ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, SOMAXCONN))
		goto out_close;
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		goto out_close;
	__atomic_store_n(&h->port,
			 ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
						       : ((struct sockaddr_in6 *)&ss)->sin6_port),
			 __ATOMIC_RELEASE);
	return fd;

out_close:
	rc = -errno;
	close(fd);
	return vc_error_set(err, rc, "cannot listen on %s:%u: %s", h->address,
			    (unsigned)h->opts.port, strerror(-rc));
out_errno:
	rc = -errno;
	return vc_error_set(err, rc, "cannot listen on %s:%u: %s", h->address,
			    (unsigned)h->opts.port, strerror(-rc));
}

/* True when fd is (a duplicate of) the socket ref. */
static bool same_socket(int fd, int ref)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && fstat(ref, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/*
 * A daemon serving the listening socket, with cert and key (both NULL for plain HTTP). Each
 * daemon gets its own duplicate of the socket, because libmicrohttpd closes the socket it was
 * given when it fails to start or stops unquiesced; the original stays ours.
 */
static struct MHD_Daemon *daemon_start(struct vc_httpd *h, char *cert, char *key)
{
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, key },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, cert },
		/* TLS 1.2 or later, as Volcano's webhook sets (Go's tls.VersionTLS12). */
		{ MHD_OPTION_HTTPS_PRIORITIES, 0,
		  (void *)"NORMAL:-VERS-TLS1.0:-VERS-TLS1.1:-VERS-SSL3.0" },
		{ MHD_OPTION_END, 0, NULL },
	};
	/*
	 * poll(2), not epoll: libmicrohttpd 0.9.75's epoll loop keeps retrying a TLS handshake
	 * whose ClientHello stopped halfway, so a few such clients burn CPU and slow everyone's
	 * requests many times over (bench/README.md, "vc-webhook under hostile clients"). poll
	 * costs O(connections) a wake-up, which at the 1,024-connection cap stays small.
	 */
	unsigned flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG;
	struct MHD_Daemon *d;
	int fd = fcntl(h->fd, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		return NULL;
	if (cert)
		flags |= MHD_USE_TLS;
	/* The logger first, so that it also gets the messages about the options that follow. */
	d = MHD_start_daemon(
		flags, 0, NULL, NULL, access_handler, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, h,
		MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_THREAD_POOL_SIZE,
		h->opts.threads > 1 ? h->opts.threads : 0, MHD_OPTION_CONNECTION_LIMIT,
		h->opts.max_connections, MHD_OPTION_CONNECTION_TIMEOUT, h->opts.timeout_s,
		MHD_OPTION_URI_LOG_CALLBACK, uri_logger, h, MHD_OPTION_NOTIFY_COMPLETED,
		request_completed, h, MHD_OPTION_NOTIFY_CONNECTION, notify_connection, h,
		MHD_OPTION_ARRAY, cert ? tls : tls + 2, MHD_OPTION_END);
	/*
	 * On failure libmicrohttpd has usually closed the duplicate already; close it only if the
	 * number still names our socket (another thread may have been given the number since).
	 */
	if (!d && same_socket(fd, h->fd))
		close(fd);
	return d;
}

/* Stop d, letting its connections finish for up to grace_ms after it stops accepting. */
static void daemon_retire(struct MHD_Daemon *d, unsigned grace_ms)
{
	struct timespec start, now, pause = { 0, 10L * 1000 * 1000 };
	const union MHD_DaemonInfo *info;
	int fd;

	/* Quiesced, the daemon stops accepting and leaves its duplicate to us. */
	fd = MHD_quiesce_daemon(d);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		if (!info || info->num_connections == 0)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >=
		    (long)grace_ms)
			break;
		nanosleep(&pause, NULL);
	}
	MHD_stop_daemon(d);
	if (fd != MHD_INVALID_SOCKET)
		close(fd);
}

int vc_httpd_start(struct vc_httpd *h, struct vc_error *err)
{
	int rc;

	if (!h)
		return vc_error_set(err, VC_EINVAL, "no server given");
	pthread_mutex_lock(&h->lock);
	if (h->started) {
		rc = vc_error_set(err, VC_EINVAL, "server already started");
		goto out_unlock;
	}
	if (!h->cert != !h->key) {
		rc = vc_error_set(err, VC_EINVAL, "https needs both a certificate and a key");
		goto out_unlock;
	}
	if (h->cert && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		rc = vc_error_set(err, VC_EINVAL, "https is not supported by libmicrohttpd");
		goto out_unlock;
	}
	rc = listen_socket(h, err);
	if (rc < 0)
		goto out_unlock;
	h->fd = rc;
	h->daemon = daemon_start(h, h->cert, h->key);
	if (!h->daemon) {
		close(h->fd);
		h->fd = -1;
		__atomic_store_n(&h->port, 0, __ATOMIC_RELEASE);
		rc = vc_error_set(err, VC_EIO, "cannot start the %s server",
				  h->cert ? "https" : "http");
		goto out_unlock;
	}
	h->watchdog_stop = false;
	h->watchdog_running = pthread_create(&h->watchdog, NULL, watchdog_main, h) == 0;
	if (!h->watchdog_running)
		VC_WARN("cannot start the http deadline watchdog: slow clients are cut only when idle",
			"");
	h->started = true;
	rc = 0;
	VC_INFO("http server listening", "address=%s port=%u tls=%s", h->address,
		(unsigned)vc_httpd_port(h), h->cert ? "true" : "false");
out_unlock:
	pthread_mutex_unlock(&h->lock);
	return rc;
}

uint16_t vc_httpd_port(const struct vc_httpd *h)
{
	return h ? __atomic_load_n(&h->port, __ATOMIC_ACQUIRE) : 0;
}

bool vc_httpd_is_tls(const struct vc_httpd *h)
{
	return h && h->tls;
}

int vc_httpd_reload_tls(struct vc_httpd *h, const char *cert_pem, const char *key_pem,
			struct vc_error *err)
{
	struct MHD_Daemon *d, *old;
	char *cert = NULL, *key = NULL;
	int rc;

	if (!h || !cert_pem || !key_pem)
		return vc_error_set(err, VC_EINVAL, "no server, certificate or key given");
	pthread_mutex_lock(&h->lock);
	if (!h->started || !h->cert) {
		rc = vc_error_set(err, VC_EINVAL, "not a running https server");
		goto out_unlock;
	}
	cert = vc_strdup(cert_pem);
	key = vc_strdup(key_pem);
	if (!cert || !key) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out_free;
	}
	/* Both daemons accept on the socket for a moment; then the old one retires. */
	d = daemon_start(h, cert, key);
	if (!d) {
		rc = vc_error_set(err, VC_EIO,
				  "cannot start the https server with the new "
				  "certificate");
		goto out_free;
	}
	old = h->daemon;
	h->daemon = d;
	daemon_retire(old, h->opts.reload_grace_ms);
	explicit_bzero(h->key, strlen(h->key));
	vc_free(h->key);
	vc_free(h->cert);
	h->cert = cert;
	h->key = key;
	h->opts.cert_pem = cert;
	h->opts.key_pem = key;
	pthread_mutex_unlock(&h->lock);
	VC_INFO("http server certificate reloaded", "port=%u", (unsigned)vc_httpd_port(h));
	return 0;

out_free:
	if (key)
		explicit_bzero(key, strlen(key));
	vc_free(key);
	vc_free(cert);
out_unlock:
	pthread_mutex_unlock(&h->lock);
	return rc;
}

void vc_httpd_stop(struct vc_httpd *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	if (h->started) {
		daemon_retire(h->daemon, 0);
		h->daemon = NULL;
		if (h->watchdog_running) {
			pthread_mutex_lock(&h->conns_lock);
			h->watchdog_stop = true;
			pthread_cond_signal(&h->conns_cond);
			pthread_mutex_unlock(&h->conns_lock);
			pthread_join(h->watchdog, NULL);
			h->watchdog_running = false;
		}
		close(h->fd);
		h->fd = -1;
		h->started = false;
		__atomic_store_n(&h->port, 0, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&h->lock);
}
