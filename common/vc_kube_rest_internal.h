/*
 * vc_kube_rest_internal.h - what the REST client's files share: its state (struct rest) and the
 * bearer token's functions (vc_kube_token.c), used by the transport (vc_kube_rest.c). Private to
 * those files; vc_kube.c sees the client only through vc_kube_internal.h.
 */
#ifndef VC_KUBE_REST_INTERNAL_H
#define VC_KUBE_REST_INTERNAL_H

#include "vc_prelude.h"

#include <curl/curl.h>
#include <pthread.h>
#include <sys/stat.h>

#include "vc_buf.h"
#include "vc_kube.h"
#include "vc_ratelimit.h"

/* ---- the REST client's state (vc_kube_rest.c) ---------------------------------------------- */

/* One easy handle, owned by a thread (or temporary, for a call nested in a watch callback). */
struct rest_handle {
	CURL *easy;
	struct rest *owner;
	struct rest_handle *prev, *next; /* the owner's list of per-thread handles */
	bool busy;
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
};

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
 * The Authorization header for the next request into b ("" when there is no token), after
 * re-reading r's token file when it may have rotated. Takes r->lock. 0 or b's error.
 */
int vc_kube_auth_header(struct rest *r, struct vc_buf *b) VC_WARN_UNUSED;

#endif /* VC_KUBE_REST_INTERNAL_H */
