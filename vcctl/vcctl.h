/*
 * vcctl.h - Volcano's command line (vcctl, also run as the kubectl plugin `kubectl vc`).
 *
 * The verbs, flags, messages and table layouts are those of Volcano HEAD's pkg/cli (job run,
 * list, view, suspend, resume, delete; queue create, delete, operate, list, get; pod list;
 * version), and `job explain`, Caldera's own. Flags use
 * pflag's syntax, shorthands included (`-N name`, `-Nname`, `-N=name`, `--name=name`), and each
 * command has its own flag table, as with cobra, so `-n` is --namespace for jobs but --name for
 * queues. Positional arguments are accepted and ignored (cobra's default for leaf commands).
 *
 * Everything a command does goes through a struct vc_kube (tests pass one built with
 * vc_kube_new_with_ops) and writes to the FILE streams it is given (tests use open_memstream),
 * so every part but main() is testable without a server.
 *
 * Differences from Volcano, on purpose: errors go to stderr (Volcano prints them on stdout) and
 * the exit status is 1 (Volcano: 255 for command errors); bad input (a missing --name, a bad
 * --requests) is reported before the API client is configured; `job view` prints the Job's real
 * apiVersion and kind (Volcano's typed client clears them and prints empty values); `queue list`
 * ignores PodGroups of queues that do not exist (Volcano dereferences a nil pointer).
 */
#ifndef VCCTL_H
#define VCCTL_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"
#include "vc_kube.h"

#define VCCTL_VERSION "0.1.0"

enum vcctl_cmd {
	VCCTL_NONE = 0, /* a group word alone (`vcctl job`): print the group's help */
	VCCTL_JOB_RUN,
	VCCTL_JOB_LIST,
	VCCTL_JOB_VIEW,
	VCCTL_JOB_SUSPEND,
	VCCTL_JOB_RESUME,
	VCCTL_JOB_DELETE,
	VCCTL_JOB_EXPLAIN, /* Caldera's own: why a job is not running */
	VCCTL_QUEUE_CREATE,
	VCCTL_QUEUE_DELETE,
	VCCTL_QUEUE_OPERATE,
	VCCTL_QUEUE_LIST,
	VCCTL_QUEUE_GET,
	VCCTL_POD_LIST,
	VCCTL_VERSION_CMD,
};

/* The parsed command line. Strings point into argv or at default literals. */
struct vcctl_opts {
	enum vcctl_cmd cmd;
	const char *prog;  /* "vcctl", or "kubectl vc" when run as kubectl-vc */
	const char *group; /* "job", "queue", "pod", "version" or NULL (the root) */
	const char *verb;  /* "run", "list", ... or NULL */
	const char *master;
	const char *kubeconfig;
	const char *name;
	const char *namespace;
	const char *image;
	const char *requests;
	const char *limits;
	const char *scheduler;
	const char *filename;
	const char *selector;
	const char *state;
	const char *action;
	const char *queue;   /* job list -q, pod list -q */
	const char *job;     /* pod list -j */
	const char *command; /* vsub -c: the container's command, split as a shell would */
	const char *alias;   /* "vsub", "vjobs", ...: run under one of Volcano's v* names */
	int min;
	int replicas;
	int weight;
	bool all_namespaces;
};

/* Returned by vcctl_parse when help was asked for (-h, --help, or a group word alone). */
#define VCCTL_HELP 1

/*
 * Parse argv (argv[0] is the program; its basename "kubectl-vc" makes prog "kubectl vc", and
 * Volcano's single-command binaries vsub, vjobs, vqueues, vcancel, vsuspend and vresume run
 * job run, job view (list without -n), queue get (list without -n), job delete, job suspend and
 * job resume with their own flags, -N the namespace and -n the name) into o:
 * the group and verb words first, then the verb's flags with their Volcano defaults. Returns 0,
 * VCCTL_HELP, or VC_EINVAL with cobra's or pflag's wording in err: `unknown command "x" for
 * "vcctl job"`, `unknown flag: --x`, `unknown shorthand flag: 'x' in -x`, `flag needs an
 * argument: 'N' in -N`, `flag needs an argument: --name`, `invalid argument "x" for "--replicas"
 * flag: ...`. VC_ENOMEM when memory runs out. o->group and o->verb are set as far as parsing got,
 * so the caller can print the right help.
 */
int vcctl_parse(int argc, char **argv, struct vcctl_opts *o, struct vc_error *err);

/* Write the help of o's command (or group, or the root) in cobra's layout. */
void vcctl_usage(const struct vcctl_opts *o, FILE *out);

/*
 * Volcano's PopulateResourceListV1: "cpu=1000m,memory=100Mi" -> a new JSON object of canonical
 * quantities ({"cpu":"1","memory":"100Mi"}). "" gives *out = NULL and 0. Errors (VC_EINVAL):
 * `invalid argument syntax x, expected <resource>=<value>`, or the quantity's own message
 * (VC_EPARSE, VC_ERANGE). VC_ENOMEM.
 */
int vcctl_parse_resources(const char *spec, json_t **out, struct vc_error *err);

/*
 * The Job `job run` creates from its flags (Volcano's constructLaunchJobFlagsJob): one task of
 * o->replicas pods, container and template named o->name, label job.volcano.sh=<name>,
 * restartPolicy Never, imagePullPolicy IfNotPresent. *out is a new reference. Errors as
 * vcctl_parse_resources for o->requests and o->limits; VC_ENOMEM.
 */
int vcctl_job_from_flags(const struct vcctl_opts *o, json_t **out, struct vc_error *err);

/* The longest vsub -c word. */
#define VCCTL_COMMAND_MAX 65536

/*
 * vsub -c: split s into words as google/shlex does (blanks separate words; '...' keeps its text;
 * "..." and a backslash escape the next character; a '#' starting a word comments out the rest)
 * into *out, a new JSON array of strings (NULL when s is empty). VC_EINVAL with shlex's message
 * ("EOF found when expecting closing quote", "EOF found after escape character"); VC_ENOMEM.
 */
int vcctl_split_command(const char *s, json_t **out, struct vc_error *err);

/*
 * A bus.volcano.sh/v1alpha1 Command for action on the object target (borrowed; its
 * metadata.name and metadata.uid are used) of kind api_version/kind, as Volcano's
 * CreateJobCommand/CreateQueueCommand build it: generateName "<name>-<lowercased action>-",
 * namespace ns (NULL: none), a controller ownerReference to the target and the same reference as
 * `target`. *out is a new reference. VC_EINVAL when target has no name or uid; VC_ENOMEM.
 */
int vcctl_command_new(const json_t *target, const char *api_version, const char *kind,
		      const char *ns, const char *action, json_t **out, struct vc_error *err);

/*
 * The `job list` table for the JobList list (borrowed), filtered by o->queue, o->scheduler and
 * o->selector (a substring of the name), with a Namespace column when o->all_namespaces.
 * As in Volcano HEAD, the filters come first: the name and namespace columns are as wide as the
 * jobs shown need, and "No resources found" is printed when no job is left. Creation dates are
 * in the local time zone, as Go prints them. Returns 0 or VC_ENOMEM.
 */
int vcctl_print_jobs(const json_t *list, const struct vcctl_opts *o, FILE *out);

/* The `job view` description of job (borrowed). Returns 0 or VC_ENOMEM. */
int vcctl_print_job(const json_t *job, FILE *out);

/*
 * The Events part of `job view`: the events of the EventList events (borrowed, may be NULL)
 * whose name starts with "<job_name>.", with ages relative to now_ns.
 */
void vcctl_print_events(const json_t *events, const char *job_name, int64_t now_ns, FILE *out);

/*
 * The `queue list` table: each Queue of the QueueList queues with its spec.parent and the
 * PodGroup counts by phase (Inqueue, Pending, Running, Unknown, Completed) of the PodGroupList
 * podgroups (may be NULL), in Volcano HEAD's layout (the columns of `queue get`).
 */
void vcctl_print_queues(const json_t *queues, const json_t *podgroups, FILE *out);

/* The `queue get` table for one Queue, with its Parent column. */
void vcctl_print_queue(const json_t *queue, const json_t *podgroups, FILE *out);

/*
 * The `pod list` table of the PodList pods (borrowed), in Volcano HEAD's layout: Name, Ready,
 * Status, Restart, Age, each column as wide as its longest value plus 8. Status and Restart
 * follow kubectl's pod printer (waiting/terminated reasons, Init:x/y, Terminating, restarts
 * with the age of the last one); ages are relative to now_ns.
 */
void vcctl_print_pods(const json_t *pods, int64_t now_ns, FILE *out);

/* Volcano's TranslateTimestampSince: the age of the time ts at now_ns, "<unknown>" when ts
 * is missing or not a time. */
void vcctl_since(const json_t *ts, int64_t now_ns, char *buf, size_t len);

/*
 * Check o's input that needs no server, with Volcano's messages: a missing name ("job name
 * cannot be left blank", "job name is mandatory to suspend a particular job", "queue name must
 * be specified", ...), bad --requests/--limits, a bad queue --action or update weight, a -f file
 * that is not YAML. Returns 0 or VC_EINVAL (or the quantity's code).
 */
int vcctl_check(const struct vcctl_opts *o, struct vc_error *err);

/*
 * Run the parsed command o with client kube, writing results to out (vcctl_check first). Errors
 * carry the server's message unchanged (`jobs.batch.volcano.sh "x" not found`) or Volcano's own
 * texts.
 */
int vcctl_exec(const struct vcctl_opts *o, struct vc_kube *kube, FILE *out, struct vc_error *err);

/* The two halves of vcctl_check and vcctl_exec (job.c and queue.c). */
int vcctl_job_check(const struct vcctl_opts *o, struct vc_error *err);
int vcctl_job_exec(const struct vcctl_opts *o, struct vc_kube *kube, FILE *out,
		   struct vc_error *err);
int vcctl_queue_check(const struct vcctl_opts *o, struct vc_error *err);
int vcctl_queue_exec(const struct vcctl_opts *o, struct vc_kube *kube, FILE *out,
		     struct vc_error *err);
int vcctl_pod_exec(const struct vcctl_opts *o, struct vc_kube *kube, FILE *out,
		   struct vc_error *err);

/*
 * job explain against the server: read the Job o->name in o->namespace, its Queue, PodGroup,
 * pods and the namespace's events, then vc_explain (common/vc_explain.h). A missing Job is an
 * explanation, not an error; other API errors are returned with the server's message.
 */
int vcctl_job_explain(const struct vcctl_opts *o, struct vc_kube *kube, FILE *out,
		      struct vc_error *err);

/*
 * The whole program: parse, configure a client from --kubeconfig/--master ($KUBECONFIG,
 * ~/.kube/config, then the in-cluster configuration) unless kube is given (tests), run, and
 * report errors on errout as "Failed to <verb> <group>: <message>" (usage errors as
 * "Error: <message>"). Returns the exit status: 0, or 1.
 */
int vcctl_main(int argc, char **argv, struct vc_kube *kube, FILE *out, FILE *errout);

#endif /* VCCTL_H */
