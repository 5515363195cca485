/*
 * vc_daemon.h - the start-up steps that vc-controller, vc-webhook and vc-nodesim share: parsing
 * their flags, building their API client from --kubeconfig, --master, --kube-api-qps and
 * --kube-api-burst, and catching the signals that stop them.
 */
#ifndef VC_DAEMON_H
#define VC_DAEMON_H

#include "vc_prelude.h"

#include "vc_flags.h"
#include "vc_kube.h"

/*
 * vc_flags_parse() for a program's main(): --help writes the usage (as prog) to stdout, a bad
 * flag writes "prog: <pflag's wording>" to stderr. Returns -1 when main() goes on (*first_arg
 * set as vc_flags_parse sets it), otherwise the exit status: 0 after --help, 2 after a bad flag.
 */
int vc_daemon_parse_flags(const struct vc_flag *flags, size_t n, void *cfg, int argc, char **argv,
			  const char *prog, int *first_arg);

/*
 * The daemon's API client: vc_kube_config_from_flags(kubeconfig, master) into *kc, with qps,
 * burst and a copy of user_agent (NULL: the client's default), then vc_kube_new(kc, out). *kc
 * stays the caller's to release (vc_kube_config_release), on failure too. Errors as those two;
 * VC_ENOMEM, with err left as it was, when the user agent cannot be copied.
 */
int vc_daemon_kube_new(const char *kubeconfig, const char *master, double qps, int burst,
		       const char *user_agent, struct vc_kube_config *kc, struct vc_kube **out,
		       struct vc_error *err);

/* Have SIGINT and SIGTERM call on_stop (a handler that only records the signal). */
void vc_daemon_catch_stop(void (*on_stop)(int sig));

#endif /* VC_DAEMON_H */
