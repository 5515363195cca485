/*
 * vc_kubeconfig.c - where a client's configuration comes from: kubeconfig files (clientcmd's
 * loading rules), the in-cluster service account (rest.InClusterConfig) and Volcano's
 * --kubeconfig/--master rule (clientcmd.BuildConfigFromFlags). The declarations are in
 * vc_kube.h.
 */
#include "vc_kube.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vc_alloc.h"
#include "vc_base64.h"
#include "vc_buf.h"
#include "vc_json.h"
#include "vc_kube_exec.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"
#include "vc_yaml.h"

#define SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"
/* Namespace and token files are tiny; anything bigger is not one. */
#define SMALL_FILE_MAX ((size_t)64 << 10)

void vc_kube_config_release(struct vc_kube_config *cfg)
{
	if (!cfg)
		return;
	vc_free(cfg->server);
	vc_free(cfg->ca_file);
	vc_free(cfg->ca_data);
	vc_free(cfg->token);
	vc_free(cfg->token_file);
	vc_free(cfg->client_cert_file);
	vc_free(cfg->client_cert_data);
	vc_free(cfg->client_key_file);
	vc_free(cfg->client_key_data);
	vc_kube_exec_config_free(cfg->exec);
	vc_free(cfg->namespace);
	vc_free(cfg->user_agent);
	memset(cfg, 0, sizeof(*cfg));
}

/* *dst = a copy of src (NULL stays NULL); false when out of memory. */
static bool dup_field(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return true;
	*dst = vc_strdup(src);
	return *dst != NULL;
}

int vc_kube_config_copy(struct vc_kube_config *dst, const struct vc_kube_config *src,
			struct vc_error *err)
{
	struct vc_kube_config c = *src;
	bool ok;

	ok = dup_field(&c.server, src->server);
	ok = dup_field(&c.ca_file, src->ca_file) && ok;
	ok = dup_field(&c.ca_data, src->ca_data) && ok;
	ok = dup_field(&c.token, src->token) && ok;
	ok = dup_field(&c.token_file, src->token_file) && ok;
	ok = dup_field(&c.client_cert_file, src->client_cert_file) && ok;
	ok = dup_field(&c.client_cert_data, src->client_cert_data) && ok;
	ok = dup_field(&c.client_key_file, src->client_key_file) && ok;
	ok = dup_field(&c.client_key_data, src->client_key_data) && ok;
	ok = dup_field(&c.namespace, src->namespace) && ok;
	ok = dup_field(&c.user_agent, src->user_agent) && ok;
	ok = vc_kube_exec_config_dup(src->exec, &c.exec) == 0 && ok;
	if (!ok) {
		vc_kube_config_release(&c);
		memset(dst, 0, sizeof(*dst));
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	*dst = c;
	return 0;
}

/*
 * Read a small text file whole, without its surrounding white space (client-go trims token and
 * namespace files). -errno or VC_E2BIG with a message naming `what` and the path.
 */
static int read_small_file(const char *path, const char *what, char **out, struct vc_error *err)
{
	struct vc_buf b;
	char chunk[4096];
	ssize_t n;
	int fd, rc = 0;
	size_t start = 0;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		return vc_error_set(err, rc, "cannot read %s '%s': %s", what, path, strerror(-rc));
	}
	vc_buf_init(&b, SMALL_FILE_MAX);
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			vc_error_set(err, rc, "cannot read %s '%s': %s", what, path, strerror(-rc));
			goto out;
		}
		if (n == 0)
			break;
		rc = vc_buf_add(&b, chunk, (size_t)n);
		if (rc) {
			vc_error_set(err, rc, "cannot read %s '%s': %s", what, path,
				     rc == VC_E2BIG ? "file too large" : "out of memory");
			goto out;
		}
	}
	while (b.len > 0 && strchr(" \t\r\n", b.data[b.len - 1]))
		vc_buf_truncate(&b, b.len - 1);
	while (start < b.len && strchr(" \t\r\n", b.data[start]))
		start++;
	vc_buf_consume(&b, start);
	*out = vc_buf_take(&b);
	if (!*out)
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
out:
	vc_buf_release(&b);
	close(fd);
	return rc;
}

/* ---- kubeconfig files ---------------------------------------------------------------------- */

struct kc_file {
	char *path; /* as given, for messages */
	char *dir;  /* the folder relative names are resolved against */
	json_t *doc;
};

struct kc {
	struct kc_file *files;
	size_t n;
	char *where; /* the file name(s) for "not found" messages */
};

static void kc_release(struct kc *k)
{
	size_t i;

	for (i = 0; i < k->n; i++) {
		vc_free(k->files[i].path);
		vc_free(k->files[i].dir);
		json_decref(k->files[i].doc);
	}
	vc_free(k->files);
	vc_free(k->where);
	memset(k, 0, sizeof(*k));
}

/* The folder of path: "a/b/c" -> "a/b", "c" -> ".", "/c" -> "/". */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return vc_strdup(".");
	if (slash == path)
		return vc_strdup("/");
	return vc_strndup(path, (size_t)(slash - path));
}

/* Read one kubeconfig file and append it to k. */
static int kc_add(struct kc *k, const char *path, struct vc_error *err)
{
	struct kc_file *files, *f;
	json_t *docs = NULL;
	int rc;

	rc = vc_yaml_load_file(path, &docs, err);
	if (rc) {
		if (rc < 0 && rc > VC_ERR_BASE && rc != VC_ENOMEM)
			vc_error_set(err, rc, "cannot read kubeconfig '%s': %s", path,
				     strerror(-rc));
		return rc;
	}
	if (json_array_size(docs) > 1 ||
	    (json_array_size(docs) == 1 && !json_is_object(json_array_get(docs, 0)))) {
		json_decref(docs);
		return vc_error_set(err, VC_EPARSE, "cannot parse kubeconfig '%s': not a mapping",
				    path);
	}
	files = vc_realloc(k->files, (k->n + 1) * sizeof(*files));
	if (!files) {
		json_decref(docs);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	k->files = files;
	f = &files[k->n];
	f->path = vc_strdup(path);
	f->dir = dir_of(path);
	/* An empty file is an empty config, as in kubectl. */
	f->doc = json_array_size(docs) ? json_incref(json_array_get(docs, 0)) : json_object();
	json_decref(docs);
	if (!f->path || !f->dir || !f->doc) {
		vc_free(f->path);
		vc_free(f->dir);
		json_decref(f->doc);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	k->n++;
	return 0;
}

/*
 * Load the files of path, or of $KUBECONFIG, or ~/.kube/config. A missing explicit file is an
 * error; missing files in $KUBECONFIG are skipped, but not all of them.
 */
static int kc_load(struct kc *k, const char *path, struct vc_error *err)
{
	const char *env = getenv("KUBECONFIG"), *home, *p, *colon;
	char *one = NULL;
	struct stat st;
	int rc = 0;

	memset(k, 0, sizeof(*k));
	if (path && *path) {
		rc = kc_add(k, path, err);
		if (!rc && !(k->where = vc_strdup(path)))
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out;
	}
	if (env && *env) {
		for (p = env; *p; p = colon ? colon + 1 : p + strlen(p)) {
			colon = strchr(p, ':');
			one = colon ? vc_strndup(p, (size_t)(colon - p)) : vc_strdup(p);
			if (!one) {
				rc = vc_error_set(err, VC_ENOMEM, "out of memory");
				goto out;
			}
			if (*one && stat(one, &st) == 0) {
				rc = kc_add(k, one, err);
				if (rc)
					goto out;
			}
			vc_free(one);
			one = NULL;
		}
		if (k->n == 0) {
			rc = vc_error_set(
				err, VC_ENOENT,
				"cannot read kubeconfig: no file of KUBECONFIG='%s' exists", env);
			goto out;
		}
		if (!(k->where = vc_strdup(env)))
			rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out;
	}
	home = getenv("HOME");
	if (!home || !*home) {
		rc = vc_error_set(err, VC_ENOENT,
				  "cannot find the default kubeconfig: HOME is not set");
		goto out;
	}
	one = vc_asprintf("%s/.kube/config", home);
	if (!one) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto out;
	}
	rc = kc_add(k, one, err);
	if (!rc) {
		k->where = one;
		one = NULL;
	}
out:
	vc_free(one);
	if (rc)
		kc_release(k);
	return rc;
}

/*
 * Find the entry called name in the list `list` ("contexts", "clusters", "users") of the first
 * file that has it, and return its body (entry[body], e.g. entry["context"]) and file. The body
 * may be absent in the file; *out is then an empty object's stand-in, NULL, and found is still
 * true. Returns 0 (found or not: *file tells), or VC_EPARSE for a list or entry of the wrong
 * shape.
 */
static int kc_find(const struct kc *k, const char *list, const char *body, const char *name,
		   const json_t **out, const struct kc_file **file, struct vc_error *err)
{
	size_t i, j;
	json_t *arr, *e, *b;

	*out = NULL;
	*file = NULL;
	for (i = 0; i < k->n; i++) {
		arr = json_object_get(k->files[i].doc, list);
		if (!arr || json_is_null(arr))
			continue;
		if (!json_is_array(arr))
			return vc_error_set(err, VC_EPARSE,
					    "cannot parse kubeconfig '%s': \"%s\" must be a list",
					    k->files[i].path, list);
		json_array_foreach (arr, j, e) {
			if (!vc_str_eq(vc_json_get_str(e, "name"), name))
				continue;
			b = json_object_get(e, body);
			if (b && !json_is_null(b) && !json_is_object(b))
				return vc_error_set(
					err, VC_EPARSE,
					"cannot parse kubeconfig '%s': \"%s\" of %.*s \"%s\" must be a mapping",
					k->files[i].path, body, (int)strlen(list) - 1, list, name);
			*out = json_is_object(b) ? b : NULL;
			*file = &k->files[i];
			return 0;
		}
	}
	return 0;
}

/* What a field error message names: `cluster "c" in /path`. */
struct where {
	const char *kind;
	const char *name;
	const char *file;
};

/* obj[key] as a non-empty string, or NULL (absent, null or ""); VC_EPARSE for other types. */
static int opt_str(const json_t *obj, const char *key, const struct where *w, const char **out,
		   struct vc_error *err)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return vc_error_set(err, VC_EPARSE, "%s \"%s\" in %s: \"%s\" must be a string",
				    w->kind, w->name, w->file, key);
	if (json_string_length(v) > 0)
		*out = json_string_value(v);
	return 0;
}

/* A relative name from a kubeconfig, made relative to the kubeconfig's folder. */
static int opt_path(const json_t *obj, const char *key, const struct where *w,
		    const struct kc_file *f, char **out, struct vc_error *err)
{
	const char *s;
	int rc;

	*out = NULL;
	rc = opt_str(obj, key, w, &s, err);
	if (rc || !s)
		return rc;
	*out = s[0] == '/' ? vc_strdup(s) : vc_asprintf("%s/%s", f->dir, s);
	return *out ? 0 : vc_error_set(err, VC_ENOMEM, "out of memory");
}

static int opt_b64(const json_t *obj, const char *key, const struct where *w, char **out,
		   struct vc_error *err)
{
	const char *s;
	int rc;

	*out = NULL;
	rc = opt_str(obj, key, w, &s, err);
	if (rc || !s)
		return rc;
	rc = vc_base64_decode(s, strlen(s), out, NULL, err);
	if (rc == VC_EPARSE)
		vc_error_prefix(err, "cannot decode %s of %s \"%s\" in %s", key, w->kind, w->name,
				w->file);
	return rc;
}

static int set_server(struct vc_kube_config *cfg, const char *server, struct vc_error *err)
{
	size_t len = strlen(server);

	while (len > 0 && server[len - 1] == '/')
		len--;
	vc_free(cfg->server);
	if (strstr(server, "://"))
		cfg->server = vc_strndup(server, len);
	else
		cfg->server = vc_asprintf("https://%.*s", (int)len, server);
	return cfg->server ? 0 : vc_error_set(err, VC_ENOMEM, "out of memory");
}

static int fill_cluster(struct vc_kube_config *cfg, const json_t *cl, const struct kc_file *f,
			const char *name, bool have_master, struct vc_error *err)
{
	const struct where w = { "cluster", name, f->path };
	const char *server;
	json_t *insecure;
	int rc;

	rc = opt_str(cl, "server", &w, &server, err);
	if (rc)
		return rc;
	if (!server && !have_master)
		return vc_error_set(err, VC_EINVALID, "cluster \"%s\" in %s has no server", name,
				    f->path);
	if (server) {
		rc = set_server(cfg, server, err);
		if (rc)
			return rc;
	}
	insecure = json_object_get(cl, "insecure-skip-tls-verify");
	if (insecure && !json_is_null(insecure) && !json_is_boolean(insecure))
		return vc_error_set(
			err, VC_EPARSE,
			"cluster \"%s\" in %s: \"insecure-skip-tls-verify\" must be a boolean",
			name, f->path);
	cfg->insecure = json_is_true(insecure);
	rc = opt_path(cl, "certificate-authority", &w, f, &cfg->ca_file, err);
	if (!rc)
		rc = opt_b64(cl, "certificate-authority-data", &w, &cfg->ca_data, err);
	if (rc)
		return rc;
	if (cfg->insecure && (cfg->ca_file || cfg->ca_data))
		return vc_error_set(
			err, VC_EINVALID,
			"cluster \"%s\" in %s: specifying a root certificates file with the insecure flag is not allowed",
			name, f->path);
	return 0;
}

/* ---- credential plugins ---------------------------------------------------------------- */

/* obj[key] as a list of strings into a new NULL-terminated vector (NULL when absent or empty). */
static int opt_strv(const json_t *obj, const char *key, const struct where *w, char ***out,
		    struct vc_error *err)
{
	json_t *v = json_object_get(obj, key), *e;
	size_t i, n;

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_array(v))
		return vc_error_set(err, VC_EPARSE,
				    "%s \"%s\" in %s: \"%s\" must be a list of strings", w->kind,
				    w->name, w->file, key);
	n = json_array_size(v);
	if (n == 0)
		return 0;
	*out = vc_calloc(n + 1, sizeof(char *));
	if (!*out)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	json_array_foreach (v, i, e) {
		if (!json_is_string(e))
			return vc_error_set(err, VC_EPARSE,
					    "%s \"%s\" in %s: \"%s\" must be a list of strings",
					    w->kind, w->name, w->file, key);
		(*out)[i] = vc_strndup(json_string_value(e), json_string_length(e));
		if (!(*out)[i])
			return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	return 0;
}

/*
 * An install hint without control characters other than white space (client-go's
 * cleanANSIEscapeCodes: a kubeconfig must not be able to drive the terminal). C0 controls,
 * DEL and the two-byte UTF-8 forms of C1 controls are dropped.
 */
static char *clean_hint(const char *s)
{
	char *out = vc_malloc(strlen(s) + 1), *o = out;
	const unsigned char *p;

	if (!out)
		return NULL;
	for (p = (const unsigned char *)s; *p; p++) {
		if ((*p < 0x20 && !(*p >= 0x09 && *p <= 0x0d)) || *p == 0x7f)
			continue;
		if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			p++;
			continue;
		}
		*o++ = (char)*p;
	}
	*o = '\0';
	return out;
}

/*
 * users[].user.exec into *out (clientcmd's ExecConfig and its validation; client-go's messages,
 * after `user "u" in FILE: `).
 */
static int parse_exec(const json_t *ex, const struct kc_file *f, const char *name,
		      struct vc_kube_exec_config **out, struct vc_error *err)
{
	const struct where w = { "exec plugin of user", name, f->path };
	struct vc_kube_exec_config *e;
	const char *s, *mode;
	json_t *env, *ent, *pci;
	size_t i;
	int rc;

	*out = NULL;
	if (!json_is_object(ex))
		return vc_error_set(err, VC_EPARSE, "user \"%s\" in %s: \"exec\" must be a mapping",
				    name, f->path);
	e = vc_calloc(1, sizeof(*e));
	if (!e)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = opt_str(ex, "command", &w, &s, err);
	if (rc)
		goto fail;
	if (!s) {
		rc = vc_error_set(
			err, VC_EINVALID,
			"user \"%s\" in %s: command must be specified for %s to use exec authentication plugin",
			name, f->path, name);
		goto fail;
	}
	/* A command with a '/' is a path, relative to the kubeconfig's folder (ResolvePaths). */
	if (!strchr(s, '/') || s[0] == '/')
		e->command = vc_strdup(s);
	else
		e->command = vc_asprintf("%s/%s", f->dir, s);
	if (!e->command)
		goto nomem;
	rc = opt_str(ex, "apiVersion", &w, &s, err);
	if (rc)
		goto fail;
	if (!s) {
		rc = vc_error_set(
			err, VC_EINVALID,
			"user \"%s\" in %s: apiVersion must be specified for %s to use exec authentication plugin",
			name, f->path, name);
		goto fail;
	}
	/* v1alpha1 left client-go in 1.24; it refuses it as any unknown version. */
	if (strcmp(s, VC_KUBE_EXEC_V1) && strcmp(s, VC_KUBE_EXEC_V1BETA1)) {
		rc = vc_error_set(err, VC_EINVALID,
				  "user \"%s\" in %s: exec plugin: invalid apiVersion \"%s\"", name,
				  f->path, s);
		goto fail;
	}
	if (!(e->api_version = vc_strdup(s)))
		goto nomem;
	rc = opt_strv(ex, "args", &w, &e->args, err);
	if (rc)
		goto fail;
	env = json_object_get(ex, "env");
	if (env && !json_is_null(env)) {
		if (!json_is_array(env)) {
			rc = vc_error_set(
				err, VC_EPARSE,
				"%s \"%s\" in %s: \"env\" must be a list of name and value", w.kind,
				name, f->path);
			goto fail;
		}
		if (json_array_size(env) &&
		    !(e->env = vc_calloc(json_array_size(env) + 1, sizeof(char *))))
			goto nomem;
		json_array_foreach (env, i, ent) {
			const char *n, *v;

			if (!json_is_object(ent)) {
				rc = vc_error_set(
					err, VC_EPARSE,
					"%s \"%s\" in %s: \"env\" must be a list of name and value",
					w.kind, name, f->path);
				goto fail;
			}
			rc = opt_str(ent, "name", &w, &n, err);
			if (!rc)
				rc = opt_str(ent, "value", &w, &v, err);
			if (rc)
				goto fail;
			if (!n) {
				rc = vc_error_set(
					err, VC_EINVALID,
					"user \"%s\" in %s: env variable name must be specified for %s to use exec authentication plugin",
					name, f->path, name);
				goto fail;
			}
			if (!(e->env[i] = vc_asprintf("%s=%s", n, v ? v : "")))
				goto nomem;
		}
	}
	rc = opt_str(ex, "installHint", &w, &s, err);
	if (rc)
		goto fail;
	if (s && !(e->install_hint = clean_hint(s)))
		goto nomem;
	pci = json_object_get(ex, "provideClusterInfo");
	if (pci && !json_is_null(pci) && !json_is_boolean(pci)) {
		rc = vc_error_set(err, VC_EPARSE,
				  "%s \"%s\" in %s: \"provideClusterInfo\" must be a boolean",
				  w.kind, name, f->path);
		goto fail;
	}
	e->provide_cluster_info = json_is_true(pci);
	rc = opt_str(ex, "interactiveMode", &w, &mode, err);
	if (rc)
		goto fail;
	if (!mode && !strcmp(e->api_version, VC_KUBE_EXEC_V1)) {
		/* v1 has no default; v1beta1's is IfAvailable (clientcmd's SetDefaults_ExecConfig).
		 */
		rc = vc_error_set(
			err, VC_EINVALID,
			"user \"%s\" in %s: interactiveMode must be specified for %s to use exec authentication plugin",
			name, f->path, name);
		goto fail;
	} else if (!mode || !strcmp(mode, "IfAvailable")) {
		e->interactive_mode = VC_KUBE_EXEC_IF_AVAILABLE;
	} else if (!strcmp(mode, "Never")) {
		e->interactive_mode = VC_KUBE_EXEC_NEVER;
	} else if (!strcmp(mode, "Always")) {
		e->interactive_mode = VC_KUBE_EXEC_ALWAYS;
	} else {
		rc = vc_error_set(err, VC_EINVALID,
				  "user \"%s\" in %s: invalid interactiveMode for %s: \"%s\"", name,
				  f->path, name, mode);
		goto fail;
	}
	*out = e;
	return 0;
nomem:
	rc = vc_error_set(err, VC_ENOMEM, "out of memory");
fail:
	vc_kube_exec_config_free(e);
	return rc;
}

/*
 * The cluster's "client.authentication.k8s.io/exec" extension (clientcmd's clusterExtensionKey)
 * as JSON text into e->cluster_config: what KUBERNETES_EXEC_INFO's spec.cluster.config carries.
 */
static int exec_cluster_config(struct vc_kube_exec_config *e, const json_t *cl,
			       const struct kc_file *f, const char *cl_name, struct vc_error *err)
{
	json_t *exts = json_object_get(cl, "extensions"), *x;
	size_t i;

	if (!exts || json_is_null(exts))
		return 0;
	if (!json_is_array(exts))
		return vc_error_set(err, VC_EPARSE,
				    "cluster \"%s\" in %s: \"extensions\" must be a list", cl_name,
				    f->path);
	json_array_foreach (exts, i, x) {
		json_t *v;

		if (!vc_str_eq(vc_json_get_str(x, "name"), "client.authentication.k8s.io/exec"))
			continue;
		v = json_object_get(x, "extension");
		if (!v || json_is_null(v))
			return 0;
		e->cluster_config = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		return e->cluster_config ? 0 : vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	return 0;
}

/* base64url without padding (a JWT segment) into a new NUL-terminated buffer. */
static int b64url_decode(const char *s, size_t n, char **out, struct vc_error *err)
{
	char *std = vc_malloc(n + 4);
	size_t i;
	int rc;

	*out = NULL;
	if (!std) {
		vc_error_set(err, VC_ENOMEM, "out of memory");
		return VC_ENOMEM;
	}
	for (i = 0; i < n; i++)
		std[i] = s[i] == '-' ? '+' : s[i] == '_' ? '/' : s[i];
	/* Padding is not allowed in the raw form: '=' (and the standard alphabet) are errors. */
	for (i = 0; i < n; i++) {
		if (s[i] == '=' || s[i] == '+' || s[i] == '/') {
			vc_free(std);
			vc_error_set(err, VC_EPARSE, "illegal base64 data at input byte %zu", i);
			return VC_EPARSE;
		}
	}
	while (i % 4)
		std[i++] = '=';
	rc = vc_base64_decode(std, i, out, NULL, err);
	vc_free(std);
	return rc;
}

/*
 * The "exp" claim of an oidc id-token (client-go's idTokenExpired reads it the same way: the
 * middle segment of a three-part JWT, base64url, a JSON object whose exp is a number).
 */
static int jwt_expiry(const char *tok, int64_t *exp_ns, struct vc_error *err)
{
	const char *d1 = strchr(tok, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
	json_t *claims = NULL, *exp;
	char *payload = NULL;
	double v;
	int rc;

	if (!d2 || strchr(d2 + 1, '.'))
		return vc_error_set(err, VC_EINVALID, "ID Token is not a valid JWT");
	rc = b64url_decode(d1 + 1, (size_t)(d2 - d1 - 1), &payload, err);
	if (rc)
		return rc;
	rc = vc_json_parse(payload, strlen(payload), 0, &claims, err);
	vc_free(payload);
	if (rc) {
		if (rc == VC_EPARSE)
			vc_error_prefix(err, "parsing claims");
		return rc;
	}
	exp = json_object_get(claims, "exp");
	if (!json_is_number(exp)) {
		json_decref(claims);
		return vc_error_set(err, VC_EINVALID, "the ID Token has no \"exp\" claim");
	}
	v = json_number_value(exp);
	json_decref(claims);
	if (v > (double)(INT64_MAX / VC_NSEC_PER_SEC))
		v = (double)(INT64_MAX / VC_NSEC_PER_SEC);
	if (v < 1)
		v = 1;
	*exp_ns = (int64_t)v * VC_NSEC_PER_SEC;
	return 0;
}

/*
 * users[].user.auth-provider. oidc: the id-token is the bearer token until its exp claim (no
 * refresh with the refresh-token: the REST client says so once it expires). gcp and azure left
 * client-go in 1.26 for exec plugins; kubectl's messages say which.
 */
static int fill_auth_provider(struct vc_kube_config *cfg, const json_t *ap, const struct kc_file *f,
			      const char *name, struct vc_error *err)
{
	const struct where w = { "auth-provider of user", name, f->path };
	const char *pname, *issuer, *client, *tok;
	json_t *conf;
	int rc;

	if (!json_is_object(ap))
		return vc_error_set(err, VC_EPARSE,
				    "user \"%s\" in %s: \"auth-provider\" must be a mapping", name,
				    f->path);
	rc = opt_str(ap, "name", &w, &pname, err);
	if (rc)
		return rc;
	if (vc_str_eq(pname, "gcp"))
		return vc_error_set(
			err, VC_EINVALID,
			"user \"%s\" in %s: The gcp auth plugin has been removed.\nPlease use the \"gke-gcloud-auth-plugin\" kubectl/client-go credential plugin instead.\nSee https://cloud.google.com/blog/products/containers-kubernetes/kubectl-auth-changes-in-gke for further details",
			name, f->path);
	if (vc_str_eq(pname, "azure"))
		return vc_error_set(
			err, VC_EINVALID,
			"user \"%s\" in %s: The azure auth plugin has been removed.\nPlease use the https://github.com/Azure/kubelogin kubectl/client-go credential plugin instead.\nSee https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins for further details",
			name, f->path);
	if (!vc_str_eq(pname, "oidc"))
		return vc_error_set(err, VC_EINVALID,
				    "user \"%s\" in %s: no Auth Provider found for name \"%s\"",
				    name, f->path, pname ? pname : "");
	conf = json_object_get(ap, "config");
	if (conf && !json_is_null(conf) && !json_is_object(conf))
		return vc_error_set(err, VC_EPARSE, "%s \"%s\" in %s: \"config\" must be a mapping",
				    w.kind, name, f->path);
	rc = opt_str(conf, "idp-issuer-url", &w, &issuer, err);
	if (!rc)
		rc = opt_str(conf, "client-id", &w, &client, err);
	if (!rc)
		rc = opt_str(conf, "id-token", &w, &tok, err);
	if (rc)
		return rc;
	if (!issuer)
		return vc_error_set(err, VC_EINVALID,
				    "user \"%s\" in %s: Must provide idp-issuer-url", name,
				    f->path);
	if (!client)
		return vc_error_set(err, VC_EINVALID, "user \"%s\" in %s: Must provide client-id",
				    name, f->path);
	if (!tok)
		return vc_error_set(
			err, VC_EINVALID,
			"user \"%s\" in %s: the oidc auth-provider has no id-token, and Caldera does not get one with the refresh-token: log in again (kubectl oidc-login) or use an exec credential plugin such as kubelogin",
			name, f->path);
	rc = jwt_expiry(tok, &cfg->token_expiry_ns, err);
	if (rc) {
		if (rc != VC_ENOMEM)
			vc_error_prefix(err, "user \"%s\" in %s: oidc id-token", name, f->path);
		return rc;
	}
	cfg->token = vc_strdup(tok);
	return cfg->token ? 0 : vc_error_set(err, VC_ENOMEM, "out of memory");
}

static int fill_user(struct vc_kube_config *cfg, const json_t *u, const struct kc_file *f,
		     const char *name, struct vc_error *err)
{
	const struct where w = { "user", name, f->path };
	const json_t *ex, *ap;
	const char *token;
	int rc;

	rc = opt_str(u, "token", &w, &token, err);
	if (rc)
		return rc;
	if (token && !(cfg->token = vc_strdup(token)))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	rc = opt_path(u, "tokenFile", &w, f, &cfg->token_file, err);
	if (!rc)
		rc = opt_path(u, "client-certificate", &w, f, &cfg->client_cert_file, err);
	if (!rc)
		rc = opt_b64(u, "client-certificate-data", &w, &cfg->client_cert_data, err);
	if (!rc)
		rc = opt_path(u, "client-key", &w, f, &cfg->client_key_file, err);
	if (!rc)
		rc = opt_b64(u, "client-key-data", &w, &cfg->client_key_data, err);
	if (rc)
		return rc;
	ex = json_object_get(u, "exec");
	ap = json_object_get(u, "auth-provider");
	if (json_is_null(ex))
		ex = NULL;
	if (json_is_null(ap))
		ap = NULL;
	if (ex && ap)
		return vc_error_set(
			err, VC_EINVALID,
			"user \"%s\" in %s: authProvider cannot be provided in combination with an exec plugin for %s",
			name, f->path, name);
	if (ex) {
		rc = parse_exec(ex, f, name, &cfg->exec, err);
		if (rc)
			return rc;
	}
	/* A token of the user's own wins over the plugins (client-go's transport). */
	if (ap && !cfg->token && !cfg->token_file) {
		rc = fill_auth_provider(cfg, ap, f, name, err);
		if (rc)
			return rc;
	}
	if (!cfg->token && !cfg->token_file && !cfg->client_cert_file && !cfg->client_cert_data &&
	    !cfg->exec && json_object_get(u, "username"))
		return vc_error_set(err, VC_EINVALID,
				    "user \"%s\" in %s: basic authentication is not supported",
				    name, f->path);
	if (!(cfg->client_cert_file || cfg->client_cert_data) !=
	    !(cfg->client_key_file || cfg->client_key_data))
		return vc_error_set(
			err, VC_EINVALID,
			"user \"%s\" in %s: a client certificate needs a client key and the other way round",
			name, f->path);
	return 0;
}

static int from_kubeconfig(const struct kc *k, const char *context, const char *master,
			   struct vc_kube_config *cfg, struct vc_error *err)
{
	const struct kc_file *cf, *f, *cl_file = NULL;
	const json_t *ctx, *obj, *cl_obj = NULL;
	const char *cur = NULL, *cl_name, *user, *ns;
	bool have_master = master && *master;
	struct where w;
	size_t i;
	int rc;

	if (context && *context) {
		cur = context;
	} else {
		for (i = 0; i < k->n && !cur; i++) {
			w = (struct where){ "kubeconfig", k->files[i].path, k->files[i].path };
			rc = opt_str(k->files[i].doc, "current-context", &w, &cur, err);
			if (rc)
				return vc_error_set(
					err, rc,
					"cannot parse kubeconfig '%s': \"current-context\" must be a string",
					k->files[i].path);
		}
	}
	if (!cur) {
		if (have_master)
			goto done;
		return vc_error_set(err, VC_EINVALID, "no current-context in %s", k->where);
	}
	rc = kc_find(k, "contexts", "context", cur, &ctx, &cf, err);
	if (rc)
		return rc;
	if (!cf)
		return vc_error_set(err, VC_ENOTFOUND, "context \"%s\" not found in %s", cur,
				    k->where);
	w = (struct where){ "context", cur, cf->path };
	rc = opt_str(ctx, "cluster", &w, &cl_name, err);
	if (!rc)
		rc = opt_str(ctx, "user", &w, &user, err);
	if (!rc)
		rc = opt_str(ctx, "namespace", &w, &ns, err);
	if (rc)
		return rc;
	if (ns && !(cfg->namespace = vc_strdup(ns)))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	if (cl_name) {
		rc = kc_find(k, "clusters", "cluster", cl_name, &obj, &f, err);
		if (rc)
			return rc;
		if (!f)
			return vc_error_set(err, VC_ENOTFOUND,
					    "cluster \"%s\" of context \"%s\" not found in %s",
					    cl_name, cur, k->where);
		rc = fill_cluster(cfg, obj, f, cl_name, have_master, err);
		if (rc)
			return rc;
		cl_obj = obj;
		cl_file = f;
	} else if (!have_master) {
		return vc_error_set(err, VC_EINVALID, "context \"%s\" in %s has no cluster", cur,
				    cf->path);
	}
	if (user) {
		rc = kc_find(k, "users", "user", user, &obj, &f, err);
		if (rc)
			return rc;
		if (!f)
			return vc_error_set(err, VC_ENOTFOUND,
					    "user \"%s\" of context \"%s\" not found in %s", user,
					    cur, k->where);
		rc = fill_user(cfg, obj, f, user, err);
		if (rc)
			return rc;
		if (cfg->exec && cl_obj) {
			rc = exec_cluster_config(cfg->exec, cl_obj, cl_file, cl_name, err);
			if (rc)
				return rc;
		}
	}
done:
	if (have_master) {
		rc = set_server(cfg, master, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* Defaults every loader applies last. */
static int finish_config(struct vc_kube_config *cfg, struct vc_error *err)
{
	if (!cfg->namespace && !(cfg->namespace = vc_strdup("default")))
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	cfg->qps = VC_KUBE_DEFAULT_QPS;
	cfg->burst = VC_KUBE_DEFAULT_BURST;
	return 0;
}

int vc_kubeconfig_load(const char *path, const char *context, const char *master,
		       struct vc_kube_config *cfg, struct vc_error *err)
{
	struct kc k;
	int rc;

	if (!cfg)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	memset(cfg, 0, sizeof(*cfg));
	vc_error_clear(err);
	rc = kc_load(&k, path, err);
	if (rc)
		return rc;
	rc = from_kubeconfig(&k, context, master, cfg, err);
	if (!rc)
		rc = finish_config(cfg, err);
	if (rc)
		vc_kube_config_release(cfg);
	kc_release(&k);
	return rc;
}

/* ---- in-cluster ----------------------------------------------------------------------------- */

int vc_kube_config_in_cluster(const char *sa_dir, struct vc_kube_config *cfg, struct vc_error *err)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	char *path = NULL, *token = NULL, *ns = NULL;
	bool v6;
	int rc;

	if (!cfg)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	memset(cfg, 0, sizeof(*cfg));
	vc_error_clear(err);
	if (!host || !*host || !port || !*port)
		return vc_error_set(
			err, VC_ENOENT,
			"unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined");
	if (!sa_dir)
		sa_dir = SA_DIR;
	/* net.JoinHostPort: an IPv6 address goes in brackets (unless it already is). */
	v6 = strchr(host, ':') && host[0] != '[';
	cfg->server = vc_asprintf(v6 ? "https://[%s]:%s" : "https://%s:%s", host, port);
	cfg->token_file = vc_asprintf("%s/token", sa_dir);
	path = vc_asprintf("%s/ca.crt", sa_dir);
	if (!cfg->server || !cfg->token_file || !path) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	/* The token must be there now; the client re-reads it when it rotates. */
	rc = read_small_file(cfg->token_file, "service-account token", &token, err);
	if (rc)
		goto fail;
	if (access(path, R_OK) == 0) {
		cfg->ca_file = path;
		path = NULL;
	} else {
		VC_WARN("no service-account CA, using the system's", "file=%s", path);
	}
	vc_free(path);
	path = vc_asprintf("%s/namespace", sa_dir);
	if (!path) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	if (access(path, F_OK) == 0) {
		rc = read_small_file(path, "namespace file", &ns, err);
		if (rc)
			goto fail;
		if (ns && *ns) {
			cfg->namespace = ns;
			ns = NULL;
		}
	}
	rc = finish_config(cfg, err);
	if (rc)
		goto fail;
	goto out;
fail:
	vc_kube_config_release(cfg);
out:
	vc_free(ns);
	vc_free(token);
	vc_free(path);
	return rc;
}

/* ---- Volcano's flags ---------------------------------------------------------------------- */

int vc_kube_config_from_flags(const char *kubeconfig, const char *master,
			      struct vc_kube_config *cfg, struct vc_error *err)
{
	bool have_master = master && *master, have_file = kubeconfig && *kubeconfig;
	struct vc_error ic_err;
	int rc;

	if (!cfg)
		return vc_error_set(err, VC_EINVAL, "invalid argument");
	if (!have_master && !have_file) {
		rc = vc_kube_config_in_cluster(NULL, cfg, &ic_err);
		if (rc == 0)
			return 0;
		if (rc == VC_ENOMEM)
			return vc_error_set(err, rc, "out of memory");
		VC_WARN("no in-cluster configuration, using the default kubeconfig",
			"reason=\"%s\"", ic_err.text);
		rc = vc_kubeconfig_load(NULL, NULL, NULL, cfg, err);
		if (rc)
			vc_error_prefix(err, "neither --kubeconfig nor --master was given, %s, and",
					ic_err.text);
		return rc;
	}
	rc = vc_kubeconfig_load(kubeconfig, NULL, master, cfg, err);
	if (rc == VC_ENOENT && !have_file && have_master) {
		/* No kubeconfig at all: the server alone, as client-go builds it. */
		memset(cfg, 0, sizeof(*cfg));
		vc_error_clear(err);
		rc = set_server(cfg, master, err);
		if (!rc)
			rc = finish_config(cfg, err);
		if (rc)
			vc_kube_config_release(cfg);
	}
	return rc;
}
