#include "vc_daemon.h"

#include <signal.h>

#include "vc_alloc.h"

int vc_daemon_parse_flags(const struct vc_flag *flags, size_t n, void *cfg, int argc, char **argv,
			  const char *prog, int *first_arg)
{
	struct vc_error err;
	int rc;

	vc_error_clear(&err);
	rc = vc_flags_parse(flags, n, cfg, argc, argv, first_arg, &err);
	if (rc == VC_FLAGS_HELP) {
		vc_flags_usage(flags, n, prog, stdout);
		return 0;
	}
	if (rc) {
		fprintf(stderr, "%s: %s\n", prog, err.text);
		return 2;
	}
	return -1;
}

int vc_daemon_kube_new(const char *kubeconfig, const char *master, double qps, int burst,
		       const char *user_agent, struct vc_kube_config *kc, struct vc_kube **out,
		       struct vc_error *err)
{
	int rc = vc_kube_config_from_flags(kubeconfig, master, kc, err);

	if (rc)
		return rc;
	kc->qps = qps;
	kc->burst = burst;
	if (user_agent) {
		kc->user_agent = vc_strdup(user_agent);
		if (!kc->user_agent)
			return VC_ENOMEM;
	}
	return vc_kube_new(kc, out, err);
}

void vc_daemon_catch_stop(void (*on_stop)(int sig))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
