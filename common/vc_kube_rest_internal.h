/*
 * vc_kube_rest_internal.h - what the REST client's files share: its state (struct rest), the
 * HTTP exchange (vc_kube_rest.c), the verbs (vc_kube_rest_verbs.c) and the bearer token
 * (vc_kube_token.c). Private to those files; vc_kube.c sees the client only through
 * vc_kube_internal.h.
 */
#ifndef VC_KUBE_REST_INTERNAL_H
#define VC_KUBE_REST_INTERNAL_H

#include "vc_prelude.h"

#include <curl/curl.h>
#include <pthread.h>
#include <sys/stat.h>

#include "vc_buf.h"
#include "vc_err.h"
#include "vc_kube.h"
#include "vc_kube_exec.h"
#include "vc_ratelimit.h"

/* ---- the REST client's state (vc_kube_rest.c) ---------------------------------------------- */

/* One easy handle, owned by a thread (or temporary, for a call nested in a watch callback). */
struct rest_handle {
	CURL *easy;
	struct rest *owner;
	struct rest_handle *prev, *next; /* the owner's list of per-thread handles */
	bool busy;
	uint64_t cert_gen; /* the exec credential whose client certificate the handle has; 0: cfg's
			    */
	char errbuf[CURL_ERROR_SIZE];
};

struct rest {
	struct vc_kube_config cfg;
	int64_t timeout_ns;
	size_t max_body;

	CURLSH *share;
	pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
	pthread_key_t key;
	pthread_mutex_t lock; /* handles and the token */
	struct rest_handle *handles;

	struct vc_bucket bucket;
	vc_sleep_fn *sleep;
	void *sleep_ctx;

	char *token;	       /* the bearer token in use, or NULL */
	int64_t token_checked; /* monotonic ns of the last look at token_file */
	struct stat token_st;  /* token_file as it was when last read */
	bool token_recheck;    /* a 401 came back: look at the file on the next request */

	struct vc_kube_exec_auth *exec; /* the credential plugin's cache, or NULL */
};

/* ---- one HTTP exchange (vc_kube_rest.c) ----------------------------------------------------- */

struct xfer {
	/* the request */
	const char *method;
	const char *path; /* for messages and logs; never the query (continue tokens are long) */
	const char *url;
	const char *body;
	size_t body_len;
	const char *content_type;
	bool idempotent; /* a transport failure after sending may be retried */
	size_t cap;	 /* response body cap */
	/* a watch: events go to dec while the status is 200; stop ends it */
	struct vc_watch_decoder *dec;
	const volatile int *stop;
	struct vc_error *dec_err;
	int dec_rc;
	bool stopped;
	/* the answer */
	CURL *easy;
	CURLcode cc;
	long status;
	struct vc_buf resp;
	int write_rc;		/* VC_E2BIG / VC_ENOMEM from the body buffer */
	uint64_t cred_gen;	/* the exec credential the attempt sent (0: none) */
	int64_t retry_after_ns; /* -1 when absent */
};

/* The client-side rate limit: take a token, sleep until it is ours. */
void vc_kube_rest_throttle(struct rest *r);
/*
 * One attempt. Returns 0 when an HTTP answer came back (x->status, x->resp), or a negative
 * transport error with err filled (x->cc tells which libcurl error, for the retry decision).
 */
int vc_kube_rest_once(struct rest *r, struct xfer *x, struct vc_error *err) VC_WARN_UNUSED;
/* The typed error for a non-2xx answer, with the server's Status message when it sent one. */
int vc_kube_rest_status_error(struct rest *r, const struct xfer *x,
			      struct vc_error *err) VC_WARN_UNUSED;
/*
 * Send a request with retries (throttled; see vc_kube_rest.c for which failures are retried),
 * then map the answer: 2xx bodies are parsed into *out (a new reference, when out is not NULL),
 * anything else becomes a typed error.
 */
int vc_kube_rest_do(struct rest *r, struct xfer *x, json_t **out,
		    struct vc_error *err) VC_WARN_UNUSED;

/* ---- the verbs (vc_kube_rest_verbs.c): the vc_kube_ops of the REST client, ctx a struct rest - */

int vc_kube_rest_get(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		     const char *subresource, json_t **out, struct vc_error *err);
int vc_kube_rest_create(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
			const char *subresource, const json_t *obj, json_t **out,
			struct vc_error *err);
int vc_kube_rest_update(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
			const char *subresource, const json_t *obj, json_t **out,
			struct vc_error *err);
int vc_kube_rest_patch(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		       const char *subresource, enum vc_patch_type type, const json_t *patch,
		       json_t **out, struct vc_error *err);
int vc_kube_rest_del(void *ctx, const struct vc_gvr *r, const char *ns, const char *name,
		     const struct vc_delete_opts *opts, struct vc_error *err);
int vc_kube_rest_list(void *ctx, const struct vc_gvr *r, const char *ns,
		      const struct vc_list_opts *opts, json_t **out, struct vc_error *err);
int vc_kube_rest_watch(void *ctx, const struct vc_gvr *r, const char *ns,
		       const struct vc_watch_opts *opts, vc_watch_fn fn, void *fn_ctx,
		       const volatile int *stop, struct vc_error *err);

/* ---- the bearer token (vc_kube_token.c) ---------------------------------------------------- */

/* Zero s and free it; NULL is a no-op. */
void vc_kube_token_wipe(char *s);
/*
 * Read the token file at path; *out is the trimmed token (never empty, owned, free with
 * vc_kube_token_wipe) and *st the file's stat, or *out NULL with err filled.
 */
int vc_kube_token_read(const char *path, char **out, struct stat *st,
		       struct vc_error *err) VC_WARN_UNUSED;
/*
 * The credentials for the next request: the Authorization header into b ("" when there is no
 * token), after re-reading r's token file when it may have rotated (takes r->lock), or from the
 * exec plugin's cache, which may run the plugin; then *creds is a new reference to the exec
 * credential (its client certificate is for the request's handle; put it afterwards), else
 * NULL. 0, b's error, the plugin's error ("getting credentials: ..."), or VC_EUNAUTHORIZED when
 * the token is an oidc id-token that has expired (Caldera does not refresh it).
 */
int vc_kube_auth_header(struct rest *r, struct vc_buf *b, struct vc_kube_exec_creds **creds,
			struct vc_error *err) VC_WARN_UNUSED;

#endif /* VC_KUBE_REST_INTERNAL_H */
