/*
 * vc_kube_token.c - the REST client's bearer token: read from the token file (trimmed, wiped
 * from memory when dropped), re-read when the file may have rotated (at most every
 * VC_KUBE_TOKEN_RECHECK_NS, or at once after a 401, and only when the file changed), and put
 * into each request's Authorization header.
 */
#include "vc_kube_rest_internal.h"

#include <sys/stat.h>

#include "vc_alloc.h"
#include "vc_buf.h"
#include "vc_log.h"
#include "vc_time.h"

void vc_kube_token_wipe(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		vc_free(s);
	}
}

/* Read the token file; *out is the trimmed token (never empty) or NULL with err filled. */
int vc_kube_token_read(const char *path, char **out, struct stat *st, struct vc_error *err)
{
	struct vc_buf b;
	char chunk[4096];
	FILE *f;
	size_t n, start = 0;
	int rc = 0;

	*out = NULL;
	f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		return vc_error_set(err, rc, "cannot read token file '%s': %s", path,
				    strerror(-rc));
	}
	if (fstat(fileno(f), st)) {
		rc = -errno;
		fclose(f);
		return vc_error_set(err, rc, "cannot read token file '%s': %s", path,
				    strerror(-rc));
	}
	vc_buf_init(&b, (size_t)64 << 10);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		rc = vc_buf_add(&b, chunk, n);
		if (rc)
			break;
	}
	explicit_bzero(chunk, sizeof(chunk));
	if (!rc && ferror(f))
		rc = VC_EIO;
	fclose(f);
	while (!rc && b.len > 0 && strchr(" \t\r\n", b.data[b.len - 1]))
		vc_buf_truncate(&b, b.len - 1);
	while (!rc && start < b.len && strchr(" \t\r\n", b.data[start]))
		start++;
	if (!rc && start == b.len)
		rc = VC_EINVAL;
	if (!rc) {
		vc_buf_consume(&b, start);
		*out = vc_buf_take(&b);
		if (!*out)
			rc = VC_ENOMEM;
	}
	if (b.data)
		explicit_bzero(b.data, b.alloc);
	vc_buf_release(&b);
	if (rc)
		vc_error_set(err, rc, "cannot read token file '%s': %s", path,
			     rc == VC_EINVAL   ? "the file is empty"
			     : rc == VC_E2BIG  ? "file too large"
			     : rc == VC_ENOMEM ? "out of memory"
					       : "read error");
	return rc;
}

/*
 * Re-read the token file when it may have rotated: at most every VC_KUBE_TOKEN_RECHECK_NS
 * (or at once after a 401), and only when its inode, size or mtime changed. A file that cannot
 * be read keeps the old token (and says so in the log). Called with r->lock held.
 */
static void token_refresh(struct rest *r)
{
	struct vc_error err;
	struct stat st;
	int64_t now;
	char *tok;

	if (!r->cfg.token_file)
		return;
	now = vc_time_mono_ns();
	if (!r->token_recheck && now - r->token_checked < VC_KUBE_TOKEN_RECHECK_NS)
		return;
	r->token_checked = now;
	r->token_recheck = false;
	if (stat(r->cfg.token_file, &st)) {
		VC_WARN("cannot look at the token file, keeping the token", "file=%s errno=%d",
			r->cfg.token_file, errno);
		return;
	}
	if (st.st_ino == r->token_st.st_ino && st.st_size == r->token_st.st_size &&
	    st.st_mtim.tv_sec == r->token_st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == r->token_st.st_mtim.tv_nsec)
		return;
	if (vc_kube_token_read(r->cfg.token_file, &tok, &st, &err)) {
		VC_WARN("cannot read the token file, keeping the token", "err=\"%s\"", err.text);
		return;
	}
	vc_kube_token_wipe(r->token);
	r->token = tok;
	r->token_st = st;
	VC_LOG(VC_LOG_V(2), "read the bearer token", "file=%s", r->cfg.token_file);
}

/* oidc's expiryDelta: an id-token this close to its exp is no longer sent. */
#define OIDC_EXPIRY_DELTA_NS (10 * VC_NSEC_PER_SEC)

int vc_kube_auth_header(struct rest *r, struct vc_buf *b, struct vc_kube_exec_creds **creds,
			struct vc_error *err)
{
	char when[VC_TIME_STR_MAX];
	int rc = 0;

	*creds = NULL;
	if (r->exec) {
		*creds = vc_kube_exec_auth_get(r->exec, err);
		if (!*creds)
			return err ? err->code : VC_EIO;
		if ((*creds)->cred.token)
			rc = vc_buf_addf(b, "Authorization: Bearer %s", (*creds)->cred.token);
		if (rc) {
			vc_kube_exec_creds_put(*creds);
			*creds = NULL;
			return vc_error_set(err, rc, "out of memory");
		}
		return 0;
	}
	/*
	 * An oidc id-token past its exp would only bring 401s (client-go: "No valid id-token, and
	 * cannot refresh without refresh-token"; Caldera never refreshes): say so instead.
	 */
	if (r->cfg.token_expiry_ns && !r->cfg.token_file &&
	    vc_time_now_ns() + OIDC_EXPIRY_DELTA_NS >= r->cfg.token_expiry_ns) {
		if (vc_time_format_rfc3339(r->cfg.token_expiry_ns / VC_NSEC_PER_SEC, when,
					   sizeof(when)))
			snprintf(when, sizeof(when), "?");
		return vc_error_set(
			err, VC_EUNAUTHORIZED,
			"the oidc id-token expired at %s, and Caldera does not refresh it with the refresh-token: log in again to get a new id-token, or use an exec credential plugin such as kubelogin",
			when);
	}
	pthread_mutex_lock(&r->lock);
	token_refresh(r);
	if (r->token)
		rc = vc_buf_addf(b, "Authorization: Bearer %s", r->token);
	pthread_mutex_unlock(&r->lock);
	return rc ? vc_error_set(err, rc, "out of memory") : 0;
}
