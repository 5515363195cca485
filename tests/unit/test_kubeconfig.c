/* Unit tests for the client configuration: kubeconfig files, in-cluster config, flags. */
#include "vc_prelude.h"

#include <setjmp.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "vc_alloc.h"
#include "vc_err.h"
#include "vc_kube.h"
#include "vc_log.h"
#include "vc_time.h"

#define CA_PEM "-----BEGIN CERTIFICATE-----\nCA DATA\n-----END CERTIFICATE-----\n"
#define CA_B64 \
	"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkNBIERBVEEKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="
#define CERT_PEM "-----BEGIN CERTIFICATE-----\nUSER CERT\n-----END CERTIFICATE-----\n"
#define CERT_B64                                                                               \
	"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tClVTRVIgQ0VSVAotLS0tLUVORCBDRVJUSUZJQ0FURS0tLS0t" \
	"Cg=="
#define KEY_PEM "-----BEGIN EC PRIVATE KEY-----\nUSER KEY\n-----END EC PRIVATE KEY-----\n"
#define KEY_B64                                                                                \
	"LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0tClVTRVIgS0VZCi0tLS0tRU5EIEVDIFBSSVZBVEUgS0VZ" \
	"LS0tLS0K"

/* A scratch folder per test, removed (with its files) afterwards. */
struct scratch {
	char dir[64];
	char *files[16];
	int n;
	char *dirs[4];
	int ndirs;
};

static int setup(void **state)
{
	struct scratch *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	snprintf(s->dir, sizeof(s->dir), "/tmp/test_kubeconfig.XXXXXX");
	if (!mkdtemp(s->dir)) {
		free(s);
		return -1;
	}
	unsetenv("KUBECONFIG");
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct scratch *s = *state;
	int i;

	for (i = s->n - 1; i >= 0; i--) {
		unlink(s->files[i]);
		vc_free(s->files[i]);
	}
	for (i = s->ndirs - 1; i >= 0; i--) {
		rmdir(s->dirs[i]);
		vc_free(s->dirs[i]);
	}
	rmdir(s->dir);
	free(s);
	unsetenv("KUBECONFIG");
	unsetenv("KUBERNETES_SERVICE_HOST");
	unsetenv("KUBERNETES_SERVICE_PORT");
	return 0;
}

/* Make folder `name` in the scratch folder. */
static void mkdir_in(struct scratch *s, const char *name)
{
	char *p = vc_asprintf("%s/%s", s->dir, name);

	assert_non_null(p);
	assert_int_equal(mkdir(p, 0700), 0);
	s->dirs[s->ndirs++] = p;
}

/* Write `text` to `name` in the scratch folder and return its path (owned by s). */
static const char *put(struct scratch *s, const char *name, const char *text)
{
	char *p = vc_asprintf("%s/%s", s->dir, name);
	FILE *f;
	int i;

	assert_non_null(p);
	f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	for (i = 0; i < s->n; i++) {
		if (!strcmp(s->files[i], p)) {
			vc_free(p);
			return s->files[i];
		}
	}
	s->files[s->n++] = p;
	return p;
}

/* "<scratch>/<name>" in a static buffer, for expected values. */
static const char *in_dir(struct scratch *s, const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", s->dir, name);
	return buf[i];
}

static const char full_config[] = "apiVersion: v1\n"
				  "kind: Config\n"
				  "current-context: dev\n"
				  "preferences: {}\n"
				  "clusters:\n"
				  "- name: c-file\n"
				  "  cluster:\n"
				  "    server: https://10.0.0.1:6443/\n"
				  "    certificate-authority: pki/ca.crt\n"
				  "    insecure-skip-tls-verify: false\n"
				  "- name: c-data\n"
				  "  cluster:\n"
				  "    server: kube.example.com:443\n"
				  "    certificate-authority-data: " CA_B64 "\n"
				  "    tls-server-name: ignored.example.com\n"
				  "- name: c-insecure\n"
				  "  cluster:\n"
				  "    server: http://127.0.0.1:8080\n"
				  "    insecure-skip-tls-verify: true\n"
				  "contexts:\n"
				  "- name: dev\n"
				  "  context:\n"
				  "    cluster: c-file\n"
				  "    user: u-files\n"
				  "    namespace: team-a\n"
				  "- name: prod\n"
				  "  context: {cluster: c-data, user: u-data}\n"
				  "- name: insecure\n"
				  "  context: {cluster: c-insecure}\n"
				  "users:\n"
				  "- name: u-files\n"
				  "  user:\n"
				  "    client-certificate: pki/user.crt\n"
				  "    client-key: /etc/caldera/user.key\n"
				  "    tokenFile: token\n"
				  "- name: u-data\n"
				  "  user:\n"
				  "    token: abc.def\n"
				  "    client-certificate-data: " CERT_B64 "\n"
				  "    client-key-data: " KEY_B64 "\n";

static void test_full_kubeconfig(void **state)
{
	struct scratch *s = *state;
	const char *path = put(s, "kubeconfig", full_config);
	struct vc_kube_config cfg;
	struct vc_error err;

	/* current-context: dev, with file names relative to the kubeconfig's folder. */
	assert_int_equal(vc_kubeconfig_load(path, NULL, NULL, &cfg, &err), 0);
	assert_string_equal(cfg.server, "https://10.0.0.1:6443");
	assert_string_equal(cfg.ca_file, in_dir(s, "pki/ca.crt"));
	assert_null(cfg.ca_data);
	assert_false(cfg.insecure);
	assert_null(cfg.token);
	assert_string_equal(cfg.token_file, in_dir(s, "token"));
	assert_string_equal(cfg.client_cert_file, in_dir(s, "pki/user.crt"));
	assert_null(cfg.client_cert_data);
	assert_string_equal(cfg.client_key_file, "/etc/caldera/user.key");
	assert_null(cfg.client_key_data);
	assert_string_equal(cfg.namespace, "team-a");
	assert_true(cfg.qps == VC_KUBE_DEFAULT_QPS);
	assert_int_equal(cfg.burst, VC_KUBE_DEFAULT_BURST);
	assert_int_equal(cfg.timeout_ns, 0);
	assert_null(cfg.user_agent);
	vc_kube_config_release(&cfg);
	assert_null(cfg.server);

	/* --context prod: the -data forms, decoded; a server without a scheme gets https. */
	assert_int_equal(vc_kubeconfig_load(path, "prod", NULL, &cfg, &err), 0);
	assert_string_equal(cfg.server, "https://kube.example.com:443");
	assert_null(cfg.ca_file);
	assert_string_equal(cfg.ca_data, CA_PEM);
	assert_string_equal(cfg.token, "abc.def");
	assert_null(cfg.token_file);
	assert_string_equal(cfg.client_cert_data, CERT_PEM);
	assert_string_equal(cfg.client_key_data, KEY_PEM);
	assert_null(cfg.client_cert_file);
	assert_string_equal(cfg.namespace, "default");
	vc_kube_config_release(&cfg);

	/* --master overrides the server and nothing else. */
	assert_int_equal(vc_kubeconfig_load(path, "prod", "https://127.0.0.1:9443//", &cfg, &err),
			 0);
	assert_string_equal(cfg.server, "https://127.0.0.1:9443");
	assert_string_equal(cfg.token, "abc.def");
	vc_kube_config_release(&cfg);

	/* A context without a user, on a plain-HTTP insecure cluster. */
	assert_int_equal(vc_kubeconfig_load(path, "insecure", "", &cfg, &err), 0);
	assert_string_equal(cfg.server, "http://127.0.0.1:8080");
	assert_true(cfg.insecure);
	assert_null(cfg.token);
	assert_null(cfg.client_cert_file);
	vc_kube_config_release(&cfg);
	/* Releasing twice (or an empty config, or NULL) is harmless. */
	vc_kube_config_release(&cfg);
	vc_kube_config_release(NULL);
}

/* A relative kubeconfig name resolves relative names against its own (relative) folder. */
static void test_relative_kubeconfig_path(void **state)
{
	struct scratch *s = *state;
	struct vc_kube_config cfg;
	struct vc_error err;
	char cwd[512];

	mkdir_in(s, "sub");
	put(s, "sub/kc", full_config);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(s->dir), 0);
	assert_int_equal(vc_kubeconfig_load("sub/kc", NULL, NULL, &cfg, &err), 0);
	assert_string_equal(cfg.ca_file, "sub/pki/ca.crt");
	assert_string_equal(cfg.token_file, "sub/token");
	vc_kube_config_release(&cfg);
	assert_int_equal(vc_kubeconfig_load("kc-not-here", NULL, NULL, &cfg, &err), VC_ENOENT);
	assert_string_equal(err.text,
			    "cannot read kubeconfig 'kc-not-here': No such file or directory");
	assert_int_equal(chdir(cwd), 0);
}

/* Copy text into out with every "%s" replaced by path. */
static void subst(const char *text, const char *path, char *out, size_t len)
{
	size_t o = 0;

	for (; *text && o + 1 < len; text++) {
		if (text[0] == '%' && text[1] == 's') {
			o += (size_t)snprintf(out + o, len - o, "%s", path);
			text++;
		} else {
			out[o++] = *text;
		}
	}
	out[VC_MIN(o, len - 1)] = '\0';
}

/* Load `yaml` and expect error rc with exactly `text` (where %s is the file's path). */
static void expect_error(struct scratch *s, const char *yaml, const char *context, int rc,
			 const char *text)
{
	const char *path = put(s, "bad", yaml);
	struct vc_kube_config cfg;
	struct vc_error err;
	char want[1024];

	memset(&cfg, 0x5a, sizeof(cfg));
	assert_int_equal(vc_kubeconfig_load(path, context, NULL, &cfg, &err), rc);
	subst(text, path, want, sizeof(want));
	assert_string_equal(err.text, want);
	assert_int_equal(err.code, rc);
	/* Left empty on failure. */
	assert_null(cfg.server);
	assert_null(cfg.namespace);
	assert_null(cfg.token);
}

static void test_errors(void **state)
{
	struct scratch *s = *state;
	struct vc_kube_config cfg;
	struct vc_error err;
	char *missing = vc_asprintf("%s/none", s->dir);

	assert_int_equal(vc_kubeconfig_load(missing, NULL, NULL, &cfg, &err), VC_ENOENT);
	{
		char want[512];

		snprintf(want, sizeof(want),
			 "cannot read kubeconfig '%s': No such file or directory", missing);
		assert_string_equal(err.text, want);
	}
	vc_free(missing);

	expect_error(s, full_config, "nope", VC_ENOTFOUND, "context \"nope\" not found in %s");
	expect_error(s, "current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n", NULL,
		     VC_ENOTFOUND, "cluster \"c\" of context \"x\" not found in %s");
	expect_error(s,
		     "current-context: x\n"
		     "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
		     "clusters: [{name: c, cluster: {server: 'https://h'}}]\n",
		     NULL, VC_ENOTFOUND, "user \"u\" of context \"x\" not found in %s");
	expect_error(s, "clusters: []\n", NULL, VC_EINVALID, "no current-context in %s");
	expect_error(s, "", NULL, VC_EINVALID, "no current-context in %s");
	expect_error(s,
		     "current-context: x\n"
		     "contexts: [{name: x, context: {cluster: c}}]\n"
		     "clusters: [{name: c, cluster: {certificate-authority: ca}}]\n",
		     NULL, VC_EINVALID, "cluster \"c\" in %s has no server");
	expect_error(s, "current-context: x\ncontexts: [{name: x, context: {user: u}}]\n", NULL,
		     VC_EINVALID, "context \"x\" in %s has no cluster");
	expect_error(s,
		     "current-context: x\n"
		     "contexts: [{name: x, context: {cluster: c}}]\n"
		     "clusters: [{name: c, cluster: {server: 6443}}]\n",
		     NULL, VC_EPARSE, "cluster \"c\" in %s: \"server\" must be a string");
	expect_error(s,
		     "current-context: x\n"
		     "contexts: [{name: x, context: {cluster: c}}]\n"
		     "clusters: [{name: c, cluster: {server: 'https://h', "
		     "insecure-skip-tls-verify: 'yes'}}]\n",
		     NULL, VC_EPARSE,
		     "cluster \"c\" in %s: \"insecure-skip-tls-verify\" must be a boolean");
	expect_error(
		s,
		"current-context: x\n"
		"contexts: [{name: x, context: {cluster: c}}]\n"
		"clusters: [{name: c, cluster: {server: 'https://h', "
		"insecure-skip-tls-verify: true, certificate-authority: ca.crt}}]\n",
		NULL, VC_EINVALID,
		"cluster \"c\" in %s: specifying a root certificates file with the insecure flag is not allowed");
	expect_error(
		s,
		"current-context: x\n"
		"contexts: [{name: x, context: {cluster: c}}]\n"
		"clusters: [{name: c, cluster: {server: 'https://h', "
		"certificate-authority-data: 'LS0t!S1C'}}]\n",
		NULL, VC_EPARSE,
		"cannot decode certificate-authority-data of cluster \"c\" in %s: illegal base64 data at input byte 4");
	expect_error(
		s,
		"current-context: x\n"
		"contexts: [{name: x, context: {cluster: c, user: u}}]\n"
		"clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
		"users: [{name: u, user: {client-certificate: u.crt}}]\n",
		NULL, VC_EINVALID,
		"user \"u\" in %s: a client certificate needs a client key and the other way round");
	expect_error(s, "current-context: x\ncontexts: {x: 1}\n", NULL, VC_EPARSE,
		     "cannot parse kubeconfig '%s': \"contexts\" must be a list");
	expect_error(
		s, "current-context: x\ncontexts: [{name: x, context: [1]}]\n", NULL, VC_EPARSE,
		"cannot parse kubeconfig '%s': \"context\" of context \"x\" must be a mapping");
	expect_error(s, "current-context: [x]\n", NULL, VC_EPARSE,
		     "cannot parse kubeconfig '%s': \"current-context\" must be a string");
	expect_error(s, "- a\n- b\n", NULL, VC_EPARSE,
		     "cannot parse kubeconfig '%s': not a mapping");
	expect_error(s, "a: [\n", NULL, VC_EPARSE,
		     "cannot parse '%s': yaml: line 2: did not find expected node content");
}

/* Go's base64.StdEncoding, through certificate-authority-data. */
static void test_base64(void **state)
{
	static const struct {
		const char *in;
		const char *out;  /* NULL: an error */
		const char *text; /* the error's tail */
	} cases[] = {
		{ "YQ==", "a", NULL },
		{ "YWI=", "ab", NULL },
		{ "YWJj", "abc", NULL },
		{ "YWJjZA==", "abcd", NULL },
		{ "\"YW\\nJj\\r\\nZA==\\n\"", "abcd", NULL },
		{ "YQ=", NULL, "illegal base64 data at input byte 3" },
		{ "YQ", NULL, "illegal base64 data at input byte 2" },
		{ "Y===", NULL, "illegal base64 data at input byte 1" },
		{ "YQ==YQ==", NULL, "illegal base64 data at input byte 4" },
		{ "YQ=a", NULL, "illegal base64 data at input byte 3" },
		{ "YWJ-", NULL, "illegal base64 data at input byte 3" },
		{ "'!!!!'", NULL, "illegal base64 data at input byte 0" },
	};
	struct scratch *s = *state;
	struct vc_kube_config cfg;
	struct vc_error err;
	char yaml[512], want[512];
	const char *path;
	size_t i;
	int rc;

	for (i = 0; i < VC_ARRAY_SIZE(cases); i++) {
		snprintf(yaml, sizeof(yaml),
			 "current-context: x\n"
			 "contexts: [{name: x, context: {cluster: c}}]\n"
			 "clusters: [{name: c, cluster: {server: 'https://h', "
			 "certificate-authority-data: %s}}]\n",
			 cases[i].in);
		path = put(s, "b64", yaml);
		rc = vc_kubeconfig_load(path, NULL, NULL, &cfg, &err);
		if (cases[i].out) {
			if (rc)
				fail_msg("%s: %s", cases[i].in, err.text);
			assert_string_equal(cfg.ca_data, cases[i].out);
			vc_kube_config_release(&cfg);
		} else {
			assert_int_equal(rc, VC_EPARSE);
			snprintf(
				want, sizeof(want),
				"cannot decode certificate-authority-data of cluster \"c\" in %s: %s",
				path, cases[i].text);
			assert_string_equal(err.text, want);
		}
	}
}

/* $KUBECONFIG lists files: missing ones are skipped, the first to name an entry wins. */
static void test_kubeconfig_env_merge(void **state)
{
	struct scratch *s = *state;
	struct vc_kube_config cfg;
	struct vc_error err;
	char env[1024], want[1100];
	const char *a, *b;

	a = put(s, "a",
		"current-context: one\n"
		"contexts:\n"
		"- {name: one, context: {cluster: shared, user: me, namespace: from-a}}\n"
		"clusters:\n"
		"- {name: shared, cluster: {server: 'https://a:1', certificate-authority: ca-a}}\n");
	mkdir_in(s, "other");
	b = put(s, "other/b",
		"current-context: two\n"
		"contexts:\n"
		"- {name: one, context: {cluster: nothing}}\n"
		"- {name: two, context: {cluster: shared}}\n"
		"clusters:\n"
		"- {name: shared, cluster: {server: 'https://b:2'}}\n"
		"users:\n"
		"- {name: me, user: {tokenFile: tok}}\n");
	snprintf(env, sizeof(env), "%s/missing::%s:%s", s->dir, a, b);
	setenv("KUBECONFIG", env, 1);
	assert_int_equal(vc_kubeconfig_load(NULL, NULL, NULL, &cfg, &err), 0);
	assert_string_equal(cfg.server, "https://a:1");
	assert_string_equal(cfg.ca_file, in_dir(s, "ca-a"));
	/* The user came from the second file: its names are relative to that file's folder. */
	assert_string_equal(cfg.token_file, in_dir(s, "other/tok"));
	assert_string_equal(cfg.namespace, "from-a");
	vc_kube_config_release(&cfg);

	/* A context only the second file has; "not found" names the whole list. */
	assert_int_equal(vc_kubeconfig_load(NULL, "two", NULL, &cfg, &err), 0);
	assert_string_equal(cfg.server, "https://a:1");
	vc_kube_config_release(&cfg);
	assert_int_equal(vc_kubeconfig_load(NULL, "three", NULL, &cfg, &err), VC_ENOTFOUND);
	snprintf(want, sizeof(want), "context \"three\" not found in %s", env);
	assert_string_equal(err.text, want);

	snprintf(env, sizeof(env), "%s/missing:%s/gone", s->dir, s->dir);
	setenv("KUBECONFIG", env, 1);
	assert_int_equal(vc_kubeconfig_load(NULL, NULL, NULL, &cfg, &err), VC_ENOENT);
	snprintf(want, sizeof(want), "cannot read kubeconfig: no file of KUBECONFIG='%s' exists",
		 env);
	assert_string_equal(err.text, want);
}

static void test_default_kubeconfig_in_home(void **state)
{
	struct scratch *s = *state;
	char *home = getenv("HOME") ? vc_strdup(getenv("HOME")) : NULL;
	struct vc_kube_config cfg;
	struct vc_error err;
	char want[512];

	setenv("HOME", s->dir, 1);
	assert_int_equal(vc_kubeconfig_load(NULL, NULL, NULL, &cfg, &err), VC_ENOENT);
	snprintf(want, sizeof(want),
		 "cannot read kubeconfig '%s/.kube/config': No such file or directory", s->dir);
	assert_string_equal(err.text, want);
	mkdir_in(s, ".kube");
	put(s, ".kube/config", full_config);
	assert_int_equal(vc_kubeconfig_load(NULL, "prod", NULL, &cfg, &err), 0);
	assert_string_equal(cfg.server, "https://kube.example.com:443");
	vc_kube_config_release(&cfg);
	if (home) {
		setenv("HOME", home, 1);
		vc_free(home);
	}
}

static void test_in_cluster(void **state)
{
	struct scratch *s = *state;
	struct vc_kube_config cfg;
	struct vc_error err;
	char want[512];

	assert_int_equal(vc_kube_config_in_cluster(s->dir, &cfg, &err), VC_ENOENT);
	assert_string_equal(
		err.text,
		"unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined");
	setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
	assert_int_equal(vc_kube_config_in_cluster(s->dir, &cfg, &err), VC_ENOENT);
	setenv("KUBERNETES_SERVICE_PORT", "443", 1);

	/* No token: an error naming the file. */
	assert_int_equal(vc_kube_config_in_cluster(s->dir, &cfg, &err), VC_ENOENT);
	snprintf(want, sizeof(want),
		 "cannot read service-account token '%s/token': No such file or directory", s->dir);
	assert_string_equal(err.text, want);
	assert_null(cfg.server);

	/* Token only: no CA (the system's is used), namespace "default". */
	put(s, "token", "eyJhbGciOi.token.one\n");
	assert_int_equal(vc_kube_config_in_cluster(s->dir, &cfg, &err), 0);
	assert_string_equal(cfg.server, "https://10.96.0.1:443");
	assert_string_equal(cfg.token_file, in_dir(s, "token"));
	assert_null(cfg.token);
	assert_null(cfg.ca_file);
	assert_string_equal(cfg.namespace, "default");
	assert_true(cfg.qps == VC_KUBE_DEFAULT_QPS);
	vc_kube_config_release(&cfg);

	/* All three files; an IPv6 service address goes in brackets. */
	put(s, "ca.crt", CA_PEM);
	put(s, "namespace", "volcano-system\n");
	setenv("KUBERNETES_SERVICE_HOST", "fd00:10:96::1", 1);
	setenv("KUBERNETES_SERVICE_PORT", "6443", 1);
	assert_int_equal(vc_kube_config_in_cluster(s->dir, &cfg, &err), 0);
	assert_string_equal(cfg.server, "https://[fd00:10:96::1]:6443");
	assert_string_equal(cfg.ca_file, in_dir(s, "ca.crt"));
	assert_string_equal(cfg.namespace, "volcano-system");
	vc_kube_config_release(&cfg);
	/* Already bracketed: left alone. */
	setenv("KUBERNETES_SERVICE_HOST", "[fd00::1]", 1);
	assert_int_equal(vc_kube_config_in_cluster(s->dir, &cfg, &err), 0);
	assert_string_equal(cfg.server, "https://[fd00::1]:6443");
	vc_kube_config_release(&cfg);
	/* An empty namespace file means "default". */
	put(s, "namespace", "  \n");
	assert_int_equal(vc_kube_config_in_cluster(s->dir, &cfg, &err), 0);
	assert_string_equal(cfg.namespace, "default");
	vc_kube_config_release(&cfg);
}

static void test_from_flags(void **state)
{
	struct scratch *s = *state;
	const char *path = put(s, "kubeconfig", full_config);
	struct vc_kube_config cfg;
	struct vc_error err;
	char env[512];

	/* --kubeconfig alone, --kubeconfig with --master. */
	assert_int_equal(vc_kube_config_from_flags(path, NULL, &cfg, &err), 0);
	assert_string_equal(cfg.server, "https://10.0.0.1:6443");
	assert_string_equal(cfg.namespace, "team-a");
	vc_kube_config_release(&cfg);
	assert_int_equal(vc_kube_config_from_flags(path, "https://m:1", &cfg, &err), 0);
	assert_string_equal(cfg.server, "https://m:1");
	assert_string_equal(cfg.token_file, in_dir(s, "token"));
	vc_kube_config_release(&cfg);

	/* --master alone: the default kubeconfig when there is one, with its server replaced. */
	setenv("KUBECONFIG", path, 1);
	assert_int_equal(vc_kube_config_from_flags("", "https://m:2", &cfg, &err), 0);
	assert_string_equal(cfg.server, "https://m:2");
	assert_string_equal(cfg.namespace, "team-a");
	vc_kube_config_release(&cfg);
	/* ... and the server alone when there is none. */
	snprintf(env, sizeof(env), "%s/nothing-here", s->dir);
	setenv("KUBECONFIG", env, 1);
	assert_int_equal(vc_kube_config_from_flags(NULL, "http://127.0.0.1:8080/", &cfg, &err), 0);
	assert_string_equal(cfg.server, "http://127.0.0.1:8080");
	assert_null(cfg.token);
	assert_null(cfg.ca_file);
	assert_string_equal(cfg.namespace, "default");
	vc_kube_config_release(&cfg);

	/* Neither flag, not in a cluster: the default kubeconfig. */
	setenv("KUBECONFIG", path, 1);
	assert_int_equal(vc_kube_config_from_flags(NULL, NULL, &cfg, &err), 0);
	assert_string_equal(cfg.server, "https://10.0.0.1:6443");
	vc_kube_config_release(&cfg);
	/* In a cluster whose service account is missing: the default kubeconfig still. */
	if (access("/var/run/secrets/kubernetes.io/serviceaccount/token", F_OK) != 0) {
		setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
		setenv("KUBERNETES_SERVICE_PORT", "443", 1);
		assert_int_equal(vc_kube_config_from_flags("", "", &cfg, &err), 0);
		assert_string_equal(cfg.server, "https://10.0.0.1:6443");
		vc_kube_config_release(&cfg);
		unsetenv("KUBERNETES_SERVICE_HOST");
	}
	/* Nothing at all. */
	setenv("KUBECONFIG", env, 1);
	assert_int_equal(vc_kube_config_from_flags(NULL, NULL, &cfg, &err), VC_ENOENT);
	{
		char want[1024];

		snprintf(
			want, sizeof(want),
			"neither --kubeconfig nor --master was given, unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined, and: cannot read kubeconfig: no file of KUBECONFIG='%s' exists",
			env);
		assert_string_equal(err.text, want);
	}
	/* An explicit --kubeconfig that does not exist is an error even with --master. */
	assert_int_equal(vc_kube_config_from_flags(env, "https://m:3", &cfg, &err), VC_ENOENT);
}

static void test_copy(void **state)
{
	struct scratch *s = *state;
	const char *path = put(s, "kubeconfig", full_config);
	struct vc_kube_config a, b;
	struct vc_error err;
	long n, failures;
	int rc;

	assert_int_equal(vc_kubeconfig_load(path, "prod", NULL, &a, &err), 0);
	a.user_agent = vc_strdup("ua/1");
	a.timeout_ns = 5;
	a.max_body = 7;
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = vc_kube_config_copy(&b, &a, &err);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (!failures)
			break;
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(b.server);
	}
	assert_int_equal(rc, 0);
	assert_ptr_not_equal(a.server, b.server);
	assert_string_equal(b.server, a.server);
	assert_string_equal(b.ca_data, CA_PEM);
	assert_string_equal(b.client_key_data, KEY_PEM);
	assert_string_equal(b.token, "abc.def");
	assert_string_equal(b.user_agent, "ua/1");
	assert_int_equal(b.timeout_ns, 5);
	assert_int_equal(b.max_body, 7);
	vc_kube_config_release(&a);
	vc_kube_config_release(&b);
}

/* Every allocation of a load failing in turn. */
static void test_allocation_failures(void **state)
{
	struct scratch *s = *state;
	const char *path = put(s, "kubeconfig", full_config);
	struct vc_kube_config cfg;
	struct vc_error err;
	long n, failures;
	int rc;

	vc_alloc_install_json();
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = vc_kubeconfig_load(path, "prod", NULL, &cfg, &err);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (!failures) {
			assert_int_equal(rc, 0);
			assert_string_equal(cfg.client_key_data, KEY_PEM);
			vc_kube_config_release(&cfg);
			break;
		}
		/* libyaml reports some failed allocations as parse errors. */
		assert_true(rc == VC_ENOMEM || rc == VC_EPARSE);
		assert_null(cfg.server);
	}
	assert_true(n > 20);
	put(s, "token", "t");
	setenv("KUBERNETES_SERVICE_HOST", "h", 1);
	setenv("KUBERNETES_SERVICE_PORT", "1", 1);
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = vc_kube_config_in_cluster(s->dir, &cfg, &err);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (!failures) {
			assert_int_equal(rc, 0);
			vc_kube_config_release(&cfg);
			break;
		}
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(cfg.server);
	}
}

/* ---- credential plugins ------------------------------------------------------------------- */

#define PLUGIN_HEAD                                               \
	"current-context: x\n"                                    \
	"contexts: [{name: x, context: {cluster: c, user: u}}]\n" \
	"clusters: [{name: c, cluster: {server: 'https://h'}}]\n" \
	"users:\n"                                                \
	"- name: u\n"                                             \
	"  user:\n"

static const char exec_config[] =
	"current-context: eks\n"
	"clusters:\n"
	"- name: c\n"
	"  cluster:\n"
	"    server: https://eks.example.com\n"
	"    certificate-authority-data: " CA_B64 "\n"
	"    extensions:\n"
	"    - name: other\n"
	"      extension: {a: 1}\n"
	"    - name: client.authentication.k8s.io/exec\n"
	"      extension:\n"
	"        audience: sts.example.com\n"
	"        roles: [a, b]\n"
	"contexts:\n"
	"- {name: eks, context: {cluster: c, user: aws}}\n"
	"- {name: beta, context: {cluster: c, user: beta}}\n"
	"- {name: rel, context: {cluster: c, user: rel}}\n"
	"- {name: both, context: {cluster: c, user: both}}\n"
	"users:\n"
	"- name: aws\n"
	"  user:\n"
	"    exec:\n"
	"      apiVersion: client.authentication.k8s.io/v1\n"
	"      command: aws\n"
	"      args: [--region, eu-west-1, eks, get-token, --cluster-name, prod]\n"
	"      env:\n"
	"      - {name: AWS_PROFILE, value: prod}\n"
	"      - {name: EMPTY}\n"
	"      installHint: \"\\e[1mInstall\\e[0m the AWS CLI\\n\\tsee docs\"\n"
	"      provideClusterInfo: true\n"
	"      interactiveMode: Never\n"
	"- name: beta\n"
	"  user:\n"
	"    exec:\n"
	"      apiVersion: client.authentication.k8s.io/v1beta1\n"
	"      command: /usr/local/bin/gke-gcloud-auth-plugin\n"
	"      env: null\n"
	"- name: rel\n"
	"  user:\n"
	"    exec:\n"
	"      apiVersion: client.authentication.k8s.io/v1\n"
	"      command: bin/plugin\n"
	"      interactiveMode: Always\n"
	"- name: both\n"
	"  user:\n"
	"    token: static\n"
	"    exec:\n"
	"      apiVersion: client.authentication.k8s.io/v1\n"
	"      command: ./plugin\n"
	"      interactiveMode: IfAvailable\n";

static void test_exec_plugin(void **state)
{
	struct scratch *s = *state;
	const char *path = put(s, "kubeconfig", exec_config);
	struct vc_kube_config cfg, copy;
	struct vc_error err;
	const struct vc_kube_exec_config *e;

	assert_int_equal(vc_kubeconfig_load(path, NULL, NULL, &cfg, &err), 0);
	e = cfg.exec;
	assert_non_null(e);
	assert_null(cfg.token);
	assert_string_equal(e->api_version, "client.authentication.k8s.io/v1");
	/* A bare name is looked up in PATH when the plugin runs. */
	assert_string_equal(e->command, "aws");
	assert_string_equal(e->args[0], "--region");
	assert_string_equal(e->args[5], "prod");
	assert_null(e->args[6]);
	assert_string_equal(e->env[0], "AWS_PROFILE=prod");
	assert_string_equal(e->env[1], "EMPTY=");
	assert_null(e->env[2]);
	/* Escape sequences are dropped from the hint, white space stays. */
	assert_string_equal(e->install_hint, "[1mInstall[0m the AWS CLI\n\tsee docs");
	assert_true(e->provide_cluster_info);
	assert_int_equal(e->interactive_mode, VC_KUBE_EXEC_NEVER);
	assert_string_equal(e->cluster_config, "{\"audience\":\"sts.example.com\",\"roles\":[\"a\","
					       "\"b\"]}");
	assert_false(cfg.exec_stdin);
	assert_int_equal(cfg.exec_timeout_ns, 0);

	/* A copy is deep. */
	assert_int_equal(vc_kube_config_copy(&copy, &cfg, &err), 0);
	assert_ptr_not_equal(copy.exec, cfg.exec);
	assert_ptr_not_equal(copy.exec->args, cfg.exec->args);
	assert_string_equal(copy.exec->args[1], "eu-west-1");
	assert_string_equal(copy.exec->env[0], "AWS_PROFILE=prod");
	assert_string_equal(copy.exec->cluster_config, e->cluster_config);
	assert_string_equal(copy.exec->install_hint, e->install_hint);
	assert_true(copy.exec->provide_cluster_info);
	vc_kube_config_release(&copy);
	vc_kube_config_release(&cfg);
	assert_null(cfg.exec);

	/* v1beta1 defaults interactiveMode to IfAvailable; no args, no env. */
	assert_int_equal(vc_kubeconfig_load(path, "beta", NULL, &cfg, &err), 0);
	assert_string_equal(cfg.exec->api_version, "client.authentication.k8s.io/v1beta1");
	assert_string_equal(cfg.exec->command, "/usr/local/bin/gke-gcloud-auth-plugin");
	assert_null(cfg.exec->args);
	assert_null(cfg.exec->env);
	assert_null(cfg.exec->install_hint);
	assert_false(cfg.exec->provide_cluster_info);
	assert_int_equal(cfg.exec->interactive_mode, VC_KUBE_EXEC_IF_AVAILABLE);
	vc_kube_config_release(&cfg);

	/* A relative path is relative to the kubeconfig's folder (clientcmd's ResolvePaths). */
	assert_int_equal(vc_kubeconfig_load(path, "rel", NULL, &cfg, &err), 0);
	assert_string_equal(cfg.exec->command, in_dir(s, "bin/plugin"));
	assert_int_equal(cfg.exec->interactive_mode, VC_KUBE_EXEC_ALWAYS);
	vc_kube_config_release(&cfg);

	/* With a token of its own the user keeps both; the client uses the token. */
	assert_int_equal(vc_kubeconfig_load(path, "both", NULL, &cfg, &err), 0);
	assert_string_equal(cfg.token, "static");
	assert_string_equal(cfg.exec->command, in_dir(s, "./plugin"));
	assert_int_equal(cfg.exec->interactive_mode, VC_KUBE_EXEC_IF_AVAILABLE);
	vc_kube_config_release(&cfg);
}

static void test_exec_plugin_errors(void **state)
{
	struct scratch *s = *state;

	expect_error(s, PLUGIN_HEAD "    exec: {apiVersion: client.authentication.k8s.io/v1}\n",
		     NULL, VC_EINVALID,
		     "user \"u\" in %s: command must be specified for u to use exec authentication "
		     "plugin");
	expect_error(s, PLUGIN_HEAD "    exec: {command: aws}\n", NULL, VC_EINVALID,
		     "user \"u\" in %s: apiVersion must be specified for u to use exec "
		     "authentication plugin");
	/* v1alpha1 is gone from client-go: refused as any unknown version. */
	expect_error(s,
		     PLUGIN_HEAD "    exec: {command: aws, apiVersion: "
				 "client.authentication.k8s.io/v1alpha1}\n",
		     NULL, VC_EINVALID,
		     "user \"u\" in %s: exec plugin: invalid apiVersion "
		     "\"client.authentication.k8s.io/v1alpha1\"");
	expect_error(s, PLUGIN_HEAD "    exec: {command: aws, apiVersion: v1}\n", NULL, VC_EINVALID,
		     "user \"u\" in %s: exec plugin: invalid apiVersion \"v1\"");
	expect_error(s,
		     PLUGIN_HEAD "    exec: {command: aws, apiVersion: "
				 "client.authentication.k8s.io/v1}\n",
		     NULL, VC_EINVALID,
		     "user \"u\" in %s: interactiveMode must be specified for u to use exec "
		     "authentication plugin");
	expect_error(s,
		     PLUGIN_HEAD "    exec: {command: aws, apiVersion: "
				 "client.authentication.k8s.io/v1, interactiveMode: Sometimes}\n",
		     NULL, VC_EINVALID,
		     "user \"u\" in %s: invalid interactiveMode for u: \"Sometimes\"");
	expect_error(s,
		     PLUGIN_HEAD "    exec: {command: aws, apiVersion: "
				 "client.authentication.k8s.io/v1beta1, env: [{value: x}]}\n",
		     NULL, VC_EINVALID,
		     "user \"u\" in %s: env variable name must be specified for u to use exec "
		     "authentication plugin");
	expect_error(
		s,
		PLUGIN_HEAD "    exec: {command: aws, apiVersion: "
			    "client.authentication.k8s.io/v1beta1}\n"
			    "    auth-provider: {name: oidc}\n",
		NULL, VC_EINVALID,
		"user \"u\" in %s: authProvider cannot be provided in combination with an exec "
		"plugin for u");
	expect_error(s, PLUGIN_HEAD "    exec: [aws]\n", NULL, VC_EPARSE,
		     "user \"u\" in %s: \"exec\" must be a mapping");
	expect_error(s,
		     PLUGIN_HEAD "    exec: {command: [aws], apiVersion: "
				 "client.authentication.k8s.io/v1beta1}\n",
		     NULL, VC_EPARSE,
		     "exec plugin of user \"u\" in %s: \"command\" must be a string");
	expect_error(s,
		     PLUGIN_HEAD "    exec: {command: aws, apiVersion: "
				 "client.authentication.k8s.io/v1beta1, args: a}\n",
		     NULL, VC_EPARSE,
		     "exec plugin of user \"u\" in %s: \"args\" must be a list of strings");
	expect_error(s,
		     PLUGIN_HEAD "    exec: {command: aws, apiVersion: "
				 "client.authentication.k8s.io/v1beta1, args: [a, [b]]}\n",
		     NULL, VC_EPARSE,
		     "exec plugin of user \"u\" in %s: \"args\" must be a list of strings");
	expect_error(s,
		     PLUGIN_HEAD "    exec: {command: aws, apiVersion: "
				 "client.authentication.k8s.io/v1beta1, env: {A: b}}\n",
		     NULL, VC_EPARSE,
		     "exec plugin of user \"u\" in %s: \"env\" must be a list of name and value");
	expect_error(s,
		     PLUGIN_HEAD "    exec: {command: aws, apiVersion: "
				 "client.authentication.k8s.io/v1beta1, env: [A]}\n",
		     NULL, VC_EPARSE,
		     "exec plugin of user \"u\" in %s: \"env\" must be a list of name and value");
	expect_error(s,
		     PLUGIN_HEAD
		     "    exec: {command: aws, apiVersion: "
		     "client.authentication.k8s.io/v1beta1, provideClusterInfo: 'true'}\n",
		     NULL, VC_EPARSE,
		     "exec plugin of user \"u\" in %s: \"provideClusterInfo\" must be a boolean");
	expect_error(s,
		     PLUGIN_HEAD "    exec: {command: aws, apiVersion: "
				 "client.authentication.k8s.io/v1beta1, installHint: [x]}\n",
		     NULL, VC_EPARSE,
		     "exec plugin of user \"u\" in %s: \"installHint\" must be a string");
	expect_error(s,
		     "current-context: x\n"
		     "contexts: [{name: x, context: {cluster: c, user: u}}]\n"
		     "clusters: [{name: c, cluster: {server: 'https://h', extensions: {a: b}}}]\n"
		     "users: [{name: u, user: {exec: {command: aws, apiVersion: "
		     "client.authentication.k8s.io/v1beta1}}}]\n",
		     NULL, VC_EPARSE, "cluster \"c\" in %s: \"extensions\" must be a list");
}

/* JWT segments: {"alg":"none"}; {"exp":1893456000,"sub":"ann"}; {"sub":"ann"}. */
#define JWT_HEAD "eyJhbGciOiJub25lIn0"
#define JWT_EXP	 "eyJleHAiOjE4OTM0NTYwMDAsInN1YiI6ImFubiJ9"
#define JWT_NEXP "eyJzdWIiOiJhbm4ifQ"
#define OIDC(tok)                                                                       \
	PLUGIN_HEAD                                                                     \
	"    auth-provider:\n"                                                          \
	"      name: oidc\n"                                                            \
	"      config: {idp-issuer-url: 'https://idp', client-id: k8s, id-token: '" tok \
	"', refresh-token: r}\n"

static void test_auth_provider(void **state)
{
	struct scratch *s = *state;
	const char *path = put(s, "kubeconfig", OIDC(JWT_HEAD "." JWT_EXP ".sig"));
	struct vc_kube_config cfg;
	struct vc_error err;

	assert_int_equal(vc_kubeconfig_load(path, NULL, NULL, &cfg, &err), 0);
	assert_string_equal(cfg.token, JWT_HEAD "." JWT_EXP ".sig");
	assert_int_equal(cfg.token_expiry_ns, INT64_C(1893456000) * VC_NSEC_PER_SEC);
	assert_null(cfg.exec);
	vc_kube_config_release(&cfg);
	/* The user's own token wins: the provider is not looked at. */
	path = put(s, "kubeconfig", PLUGIN_HEAD "    token: t\n    auth-provider: {name: gcp}\n");
	assert_int_equal(vc_kubeconfig_load(path, NULL, NULL, &cfg, &err), 0);
	assert_string_equal(cfg.token, "t");
	assert_int_equal(cfg.token_expiry_ns, 0);
	vc_kube_config_release(&cfg);

	expect_error(s, PLUGIN_HEAD "    auth-provider: {name: gcp}\n", NULL, VC_EINVALID,
		     "user \"u\" in %s: The gcp auth plugin has been removed.\nPlease use the "
		     "\"gke-gcloud-auth-plugin\" kubectl/client-go credential plugin instead.\nSee "
		     "https://cloud.google.com/blog/products/containers-kubernetes/"
		     "kubectl-auth-changes-in-gke for further details");
	expect_error(s, PLUGIN_HEAD "    auth-provider: {name: azure, config: {apiserver-id: x}}\n",
		     NULL, VC_EINVALID,
		     "user \"u\" in %s: The azure auth plugin has been removed.\nPlease use the "
		     "https://github.com/Azure/kubelogin kubectl/client-go credential plugin "
		     "instead.\nSee https://kubernetes.io/docs/reference/access-authn-authz/"
		     "authentication/#client-go-credential-plugins for further details");
	expect_error(s, PLUGIN_HEAD "    auth-provider: {name: openstack}\n", NULL, VC_EINVALID,
		     "user \"u\" in %s: no Auth Provider found for name \"openstack\"");
	expect_error(s, PLUGIN_HEAD "    auth-provider: oidc\n", NULL, VC_EPARSE,
		     "user \"u\" in %s: \"auth-provider\" must be a mapping");
	expect_error(s, PLUGIN_HEAD "    auth-provider: {name: oidc, config: [a]}\n", NULL,
		     VC_EPARSE, "auth-provider of user \"u\" in %s: \"config\" must be a mapping");
	expect_error(s, PLUGIN_HEAD "    auth-provider: {name: oidc, config: {client-id: k}}\n",
		     NULL, VC_EINVALID, "user \"u\" in %s: Must provide idp-issuer-url");
	expect_error(s,
		     PLUGIN_HEAD "    auth-provider: {name: oidc, config: {idp-issuer-url: i}}\n",
		     NULL, VC_EINVALID, "user \"u\" in %s: Must provide client-id");
	expect_error(s,
		     PLUGIN_HEAD "    auth-provider: {name: oidc, config: {idp-issuer-url: i, "
				 "client-id: k, refresh-token: r}}\n",
		     NULL, VC_EINVALID,
		     "user \"u\" in %s: the oidc auth-provider has no id-token, and Caldera does "
		     "not get one with the refresh-token: log in again (kubectl oidc-login) or use "
		     "an exec credential plugin such as kubelogin");
	expect_error(s, OIDC("opaque-token"), NULL, VC_EINVALID,
		     "user \"u\" in %s: oidc id-token: ID Token is not a valid JWT");
	expect_error(s, OIDC("a.b.c.d"), NULL, VC_EINVALID,
		     "user \"u\" in %s: oidc id-token: ID Token is not a valid JWT");
	expect_error(s, OIDC(JWT_HEAD ".e30=.sig"), NULL, VC_EPARSE,
		     "user \"u\" in %s: oidc id-token: illegal base64 data at input byte 3");
	expect_error(
		s, OIDC(JWT_HEAD ".bm90IGpzb24.sig"), NULL, VC_EPARSE,
		"user \"u\" in %s: oidc id-token: parsing claims: '[' or '{' expected near 'not'");
	expect_error(s, OIDC(JWT_HEAD "." JWT_NEXP ".sig"), NULL, VC_EINVALID,
		     "user \"u\" in %s: oidc id-token: the ID Token has no \"exp\" claim");
}

/* Every allocation of loading an exec user and copying it failing in turn. */
static void test_exec_allocation_failures(void **state)
{
	struct scratch *s = *state;
	const char *path = put(s, "kubeconfig", exec_config);
	struct vc_kube_config cfg, copy;
	struct vc_error err;
	long n, failures;
	int rc;

	vc_alloc_install_json();
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = vc_kubeconfig_load(path, NULL, NULL, &cfg, &err);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (!failures) {
			assert_int_equal(rc, 0);
			break;
		}
		assert_true(rc == VC_ENOMEM || rc == VC_EPARSE);
		assert_null(cfg.exec);
	}
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = vc_kube_config_copy(&copy, &cfg, &err);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (!failures)
			break;
		assert_int_equal(rc, VC_ENOMEM);
		assert_null(copy.exec);
	}
	assert_int_equal(rc, 0);
	assert_string_equal(copy.exec->env[1], "EMPTY=");
	vc_kube_config_release(&copy);
	vc_kube_config_release(&cfg);
	path = put(s, "kubeconfig", OIDC(JWT_HEAD "." JWT_EXP ".sig"));
	for (n = 0;; n++) {
		vc_alloc_fail_after(n);
		rc = vc_kubeconfig_load(path, NULL, NULL, &cfg, &err);
		failures = vc_alloc_failures();
		vc_alloc_fail_reset();
		if (!failures) {
			assert_int_equal(rc, 0);
			vc_kube_config_release(&cfg);
			break;
		}
		assert_true(rc == VC_ENOMEM || rc == VC_EPARSE);
		assert_null(cfg.token);
	}
}

static void quiet(void *ctx, int level, const char *line)
{
	(void)ctx;
	(void)level;
	(void)line;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_full_kubeconfig, setup, teardown),
		cmocka_unit_test_setup_teardown(test_relative_kubeconfig_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_base64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kubeconfig_env_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_kubeconfig_in_home, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_cluster, setup, teardown),
		cmocka_unit_test_setup_teardown(test_from_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_allocation_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_plugin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_plugin_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auth_provider, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_allocation_failures, setup, teardown),
	};

	/* The fallbacks log warnings: keep them out of the test output. */
	vc_log_set_sink(quiet, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
