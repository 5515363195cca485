/*
 * sched_conf.h - Volcano's scheduler configuration file (docs/volcano/scheduler.md §1.3).
 *
 *   actions: "enqueue, allocate, backfill"
 *   tiers:
 *   - plugins:
 *     - name: priority
 *     - name: gang
 *       enablePreemptable: false
 *   - plugins:
 *     - name: binpack
 *       arguments:
 *         binpack.weight: 10
 *   configurations:
 *   - name: allocate
 *     arguments: {predicateErrorCacheEnable: true}
 *
 * Every enable* option defaults to true when omitted (Volcano's rule).
 *
 * Like Volcano's, the configuration fails soft: what this scheduler does not know - an action,
 * a plugin, a key of a plugin or of the file, a plugin argument no plugin here reads (Volcano's
 * deviceshare, network-topology-aware, ...) - is skipped, and each skipped entry is
 * named in sched_conf.skipped for the caller to report. Only a file that cannot be read as a
 * configuration at all (malformed YAML, a value of the wrong type) is an error.
 */
#ifndef SCHED_CONF_H
#define SCHED_CONF_H

#include "vc_prelude.h"

#include <jansson.h>

#include "vc_err.h"

/* The plugin options of Volcano's PluginOption, each true unless the file says false. */
enum sched_plugin_flag {
	SCHED_ENABLE_JOB_ORDER = 0,
	SCHED_ENABLE_JOB_READY,
	SCHED_ENABLE_JOB_PIPELINED,
	SCHED_ENABLE_TASK_ORDER,
	SCHED_ENABLE_PREEMPTABLE,
	SCHED_ENABLE_RECLAIMABLE,
	SCHED_ENABLE_PREEMPTIVE,
	SCHED_ENABLE_QUEUE_ORDER,
	SCHED_ENABLE_PREDICATE,
	SCHED_ENABLE_BEST_NODE,
	SCHED_ENABLE_NODE_ORDER,
	SCHED_ENABLE_JOB_ENQUEUED,
	SCHED_ENABLE_JOB_STARVING,
	SCHED_ENABLE_OVERUSED,
	SCHED_ENABLE_ALLOCATABLE,
	SCHED_ENABLE_VICTIM,
	SCHED_PLUGIN_FLAG_COUNT,
};

/* The YAML key of a flag ("enableJobOrder", …, "enabledOverused", "enabledAllocatable", …). */
const char *sched_plugin_flag_key(enum sched_plugin_flag f);

struct sched_plugin_conf {
	char *name; /* owned */
	bool enabled[SCHED_PLUGIN_FLAG_COUNT];
	/* enableHierarchy (or enabledHierarchy): unlike the enable* flags, false unless set. */
	bool hierarchy;
	json_t *arguments; /* owned object (empty when absent); values as YAML typed them */
};

struct sched_tier {
	struct sched_plugin_conf *plugins; /* owned */
	size_t nplugins;
};

struct sched_conf {
	char **actions; /* owned, in order */
	size_t nactions;
	struct sched_tier *tiers; /* owned */
	size_t ntiers;
	json_t *configurations; /* owned object: action name -> arguments object */
	/* What was skipped, one owned line each: "unknown action 'x'", "unknown plugin 'y'",
	 * "plugin 'z': unknown key 'k'", "plugin 'z': argument 'a' is not used", ... */
	char **skipped;
	size_t nskipped;
};

/*
 * Parse a configuration file's bytes. Unknown top-level keys, actions, plugins, plugin keys and
 * plugin arguments are skipped and listed in out->skipped (a tier whose plugins were all skipped
 * is dropped). A tier without plugins, a non-boolean enable* value, a value of the wrong type and
 * malformed YAML (VC_EPARSE with line/column) are errors (VC_EINVALID with the place named).
 * On failure *out is empty.
 */
int sched_conf_parse(const char *data, size_t len, struct sched_conf *out,
		     struct vc_error *err) VC_WARN_UNUSED;

/*
 * Volcano's built-in default as YAML: the action list, and the tiers block, which ends with the
 * second tier's plugin list so that a configuration may append plugins to that tier.
 */
#define SCHED_CONF_DEFAULT_ACTIONS "enqueue, allocate, backfill"
#define SCHED_CONF_DEFAULT_TIERS_YAML \
	"tiers:\n"                    \
	"- plugins:\n"                \
	"  - name: priority\n"        \
	"  - name: gang\n"            \
	"  - name: conformance\n"     \
	"- plugins:\n"                \
	"  - name: overcommit\n"      \
	"  - name: drf\n"             \
	"  - name: predicates\n"      \
	"  - name: proportion\n"      \
	"  - name: nodeorder\n"

/* Volcano's built-in default (no file): actions "enqueue, allocate, backfill"; tiers
 * [priority, gang, conformance], [overcommit, drf, predicates, proportion, nodeorder]. */
int sched_conf_default(struct sched_conf *out) VC_WARN_UNUSED;

/* The plugin's configuration in any tier, or NULL when the plugin is not configured. */
const struct sched_plugin_conf *sched_conf_plugin(const struct sched_conf *c, const char *name);

/* Whether the action is in the action list. */
bool sched_conf_has_action(const struct sched_conf *c, const char *action);

/*
 * Typed argument readers with Volcano's leniency: a number may be written as an int, a float or
 * a numeric string. They return def when the key is absent or unreadable.
 */
int64_t sched_arg_int(const struct sched_plugin_conf *p, const char *key, int64_t def);
double sched_arg_float(const struct sched_plugin_conf *p, const char *key, double def);
bool sched_arg_bool(const struct sched_plugin_conf *p, const char *key, bool def);
/* A string (borrowed) or def. */
const char *sched_arg_string(const struct sched_plugin_conf *p, const char *key, const char *def);

void sched_conf_release(struct sched_conf *c);

#endif /* SCHED_CONF_H */
