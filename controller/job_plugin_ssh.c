/* job_plugin_ssh.c - the ssh job plugin (docs/volcano/job-controller.md §5.3). */
#include "job_plugin.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "job_pod.h"
#include "vc_alloc.h"
#include "vc_base64.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_str.h"

struct ssh_args {
	const char *path, *priv, *pub;
	int64_t port;
};

static void ssh_parse(const struct vc_job *job, struct ssh_args *a, struct vc_error *warn)
{
	const struct job_flag f[] = {
		{ "ssh-key-file-path", JOB_FLAG_STRING, &a->path },
		{ "ssh-private-key", JOB_FLAG_STRING, &a->priv },
		{ "ssh-public-key", JOB_FLAG_STRING, &a->pub },
		{ "ssh-port", JOB_FLAG_INT, &a->port },
	};

	*a = (struct ssh_args){ "/root/.ssh", "", "", 22 };
	jp_parse_args(job, VC_JOB_PLUGIN_SSH, f, VC_ARRAY_SIZE(f), warn);
}

static int set_b64(json_t *obj, const char *key, const char *value)
{
	char *b = vc_base64_encode(value, strlen(value));
	int rc = b ? jp_set_str(obj, key, b) : VC_ENOMEM;

	vc_free(b);
	return rc;
}

/* The ssh `config` file of docs/volcano/job-controller.md §5.3 as a new string, or NULL. */
static char *ssh_config(const struct vc_job *job, int64_t port)
{
	struct vc_buf b;
	size_t i;
	char *out = NULL;

	vc_buf_init(&b, 1 << 24);
	if (vc_buf_adds(&b, "StrictHostKeyChecking no\nUserKnownHostsFile /dev/null\n"))
		goto out;
	for (i = 0; i < job->ntasks; i++) {
		const struct vc_task *t = &job->tasks[i];
		const char *hn = vc_json_get_str(jp_tspec(t), "hostname");
		const char *sd =
			jp_nonempty_or(vc_json_get_str(jp_tspec(t), "subdomain"), job->meta.name);
		int32_t r;

		for (r = 0; r < t->replicas; r++) {
			char own[512];
			const char *h = hn && *hn ? hn : own;

			if (hn && *hn && r > 0)
				break;
			snprintf(own, sizeof(own), "%s-%s-%d", job->meta.name, t->name, (int)r);
			if (vc_buf_addf(&b, "Host %s\n  HostName %s.%s\n  Port %lld\n", h, h, sd,
					(long long)port))
				goto out;
		}
	}
	out = vc_buf_take(&b);
out:
	vc_buf_release(&b);
	return out;
}

static int ssh_pod(const struct vc_job *job, json_t *pod, struct vc_error *warn,
		   struct vc_error *err)
{
	struct ssh_args a;
	char *name = jp_obj_name(job, "-ssh");
	json_t *spec = json_object_get(pod, "spec"), *vol = NULL, *mount = NULL;
	int rc = VC_ENOMEM;

	ssh_parse(job, &a, warn);
	if (!name)
		goto out;
	vol = json_pack("{s:s, s:{s:s, s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}, {s:s, s:s}], s:i}}",
			"name", name, "secret", "secretName", name, "items", "key", "id_rsa",
			"path", ".ssh/id_rsa", "key", "id_rsa.pub", "path", ".ssh/id_rsa.pub",
			"key", "authorized_keys", "path", ".ssh/authorized_keys", "key", "config",
			"path", ".ssh/config", "defaultMode",
			strcmp(a.path, "/root/.ssh") == 0 ? 0600 : 0644);
	mount = json_pack("{s:s, s:s, s:s}", "name", name, "mountPath", a.path, "subPath", ".ssh");
	if (!vol || !mount)
		goto out;
	if (!json_is_object(spec)) {
		rc = vc_error_set(err, VC_EINVALID, "pod spec: must be an object");
		goto out;
	}
	if ((rc = jp_append_copy(spec, "volumes", vol, err)))
		goto out;
	rc = jp_each_container(pod, true, jp_add_mount_fn, mount, err);
out:
	vc_free(name);
	json_decref(vol);
	json_decref(mount);
	return rc;
}

static int ssh_add(const struct vc_job *job, const struct job_keygen *kg,
		   struct job_plugin_actions *out, struct vc_error *warn, struct vc_error *err)
{
	struct ssh_args a;
	char *priv = NULL, *pub = NULL, *config = NULL, *name = NULL;
	const char *p, *q;
	json_t *sec = NULL, *data;
	int rc;

	ssh_parse(job, &a, warn);
	if (a.port <= 0 || a.port > 65535) {
		vc_error_set(warn, VC_EINVAL, "plugin ssh: invalid ssh port %lld, using 22",
			     (long long)a.port);
		a.port = 22;
	}
	if (*a.priv) {
		p = a.priv;
		q = a.pub;
	} else {
		rc = kg->generate(kg->ctx, &priv, &pub, err);
		if (rc)
			return rc;
		p = priv;
		q = pub;
	}
	rc = VC_ENOMEM;
	if (!(config = ssh_config(job, a.port)) || !(name = jp_obj_name(job, "-ssh")) ||
	    !(sec = jp_new_owned(job, "v1", "Secret", name)) || !(data = json_object()) ||
	    json_object_set_new(sec, "data", data))
		goto out;
	if (set_b64(data, "id_rsa", p) || set_b64(data, "id_rsa.pub", q) ||
	    set_b64(data, "authorized_keys", q) || set_b64(data, "config", config))
		goto out;
	rc = jp_append_new(out->create, sec);
	sec = NULL;
out:
	json_decref(sec);
	vc_free(priv);
	vc_free(pub);
	vc_free(config);
	vc_free(name);
	return rc;
}

/* OnJobDelete: the Secret. */
static int ssh_delete(const struct vc_job *job, struct job_plugin_actions *out,
		      struct vc_error *warn)
{
	char *name = jp_obj_name(job, "-ssh");
	int rc = name ? jp_add_remove(out, job, "v1", "Secret", name) : VC_ENOMEM;

	(void)warn;
	vc_free(name);
	return rc;
}

/* ---- OpenSSL key generation ---------------------------------------------------------------- */

/* Append an SSH wire-format string (uint32 length + bytes). */
static int ssh_put(struct vc_buf *b, const unsigned char *p, size_t n)
{
	unsigned char len[4] = { (unsigned char)(n >> 24), (unsigned char)(n >> 16),
				 (unsigned char)(n >> 8), (unsigned char)n };

	return vc_buf_add(b, len, 4) ? VC_ENOMEM : vc_buf_add(b, p, n) ? VC_ENOMEM : 0;
}

/* Append an SSH mpint (big-endian, a leading zero byte when the top bit is set). */
static int ssh_put_bn(struct vc_buf *b, const BIGNUM *bn)
{
	int n = BN_num_bytes(bn);
	unsigned char *tmp = vc_malloc((size_t)n + 1);
	int rc;

	if (!tmp)
		return VC_ENOMEM;
	tmp[0] = 0;
	BN_bn2bin(bn, tmp + 1);
	if (n > 0 && (tmp[1] & 0x80))
		rc = ssh_put(b, tmp, (size_t)n + 1);
	else
		rc = ssh_put(b, tmp + 1, (size_t)n);
	vc_free(tmp);
	return rc;
}

static int openssl_generate(void *ctx, char **priv, char **pub, struct vc_error *err)
{
	EVP_PKEY *pkey = NULL;
	BIO *bio = NULL;
	BIGNUM *n = NULL, *e = NULL;
	struct vc_buf wire;
	char *pem = NULL, *b64 = NULL;
	const char *data;
	long len;
	int rc = VC_ENOMEM;

	(void)ctx;
	*priv = *pub = NULL;
	vc_buf_init(&wire, 1 << 16);
	pkey = EVP_RSA_gen(2048);
	if (!pkey) {
		rc = vc_error_set(err, VC_EIO, "failed to generate an RSA key");
		goto out;
	}
	bio = BIO_new(BIO_s_mem());
	if (!bio || !PEM_write_bio_PrivateKey_traditional(bio, pkey, NULL, NULL, 0, NULL, NULL))
		goto out;
	len = BIO_get_mem_data(bio, &data);
	if (len <= 0 || !(pem = vc_strndup(data, (size_t)len)))
		goto out;
	if (!EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_N, &n) ||
	    !EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_E, &e))
		goto out;
	if (ssh_put(&wire, (const unsigned char *)"ssh-rsa", 7) || ssh_put_bn(&wire, e) ||
	    ssh_put_bn(&wire, n))
		goto out;
	b64 = vc_base64_encode(vc_buf_str(&wire), wire.len);
	if (!b64 || !(*pub = vc_asprintf("ssh-rsa %s\n", b64)))
		goto out;
	*priv = pem;
	pem = NULL;
	rc = 0;
out:
	vc_free(pem);
	vc_free(b64);
	vc_buf_release(&wire);
	BN_free(n);
	BN_free(e);
	BIO_free(bio);
	EVP_PKEY_free(pkey);
	return rc;
}

const struct job_keygen job_keygen_openssl = { openssl_generate, NULL };

const struct job_plugin job_plugin_ssh = {
	.on_pod_create = ssh_pod,
	.on_job_add = ssh_add,
	.on_job_delete = ssh_delete,
};
