/*
 * sched_registry.h - the scheduler's tables of actions (docs/volcano/scheduler.md §3) and plugins
 * (docs/volcano/scheduler.md §4), by the names a configuration uses. The configuration parser
 * (sched_conf.c) checks names against them and the session (sched_session.c) runs what they hold;
 * adding an action or a plugin is defining its struct in its own file (action_<name>.c,
 * plugin_<name>.c) and one line in the table of sched_registry.c.
 */
#ifndef SCHED_REGISTRY_H
#define SCHED_REGISTRY_H

#include "vc_prelude.h"

struct sched_session;
struct sched_plugin_conf;
struct sched_callbacks;
struct vc_error;

struct sched_action {
	const char *name; /* as in the configuration's actions: "enqueue", "allocate", … */
	/* Run the action over the open session. Returns 0 or VC_ENOMEM. */
	int (*execute)(struct sched_session *ssn);
};

struct sched_plugin {
	const char *name; /* as in the configuration: "gang", "task-topology", … */
	/*
	 * Register: fill cb (zeroed by the caller) and *state. conf is the plugin's entry in the
	 * configuration (arguments, enable flags). Returns 0, VC_ENOMEM or VC_EINVAL (with err).
	 */
	int (*on_session_open)(struct sched_session *ssn, const struct sched_plugin_conf *conf,
			       struct sched_callbacks *cb, void **state, struct vc_error *err);
	/* Optional: called at close before the session writes its results; frees state. */
	void (*on_session_close)(struct sched_session *ssn, void *state);
};

/* The action called name, or NULL when this scheduler has none by that name. */
const struct sched_action *sched_action_find(const char *name);

/* The plugin called name, or NULL when this scheduler has none by that name. */
const struct sched_plugin *sched_plugin_find(const char *name);

/* The built-in actions (action_<name>.c). */
extern const struct sched_action sched_action_enqueue;
extern const struct sched_action sched_action_allocate;
extern const struct sched_action sched_action_backfill;
extern const struct sched_action sched_action_preempt;
extern const struct sched_action sched_action_reclaim;

/* The built-in plugins (plugin_<name>.c; task-topology in plugin_tasktopology_ssn.c). */
extern const struct sched_plugin sched_plugin_priority;
extern const struct sched_plugin sched_plugin_gang;
extern const struct sched_plugin sched_plugin_conformance;
extern const struct sched_plugin sched_plugin_overcommit;
extern const struct sched_plugin sched_plugin_drf;
extern const struct sched_plugin sched_plugin_predicates;
extern const struct sched_plugin sched_plugin_proportion;
extern const struct sched_plugin sched_plugin_nodeorder;
extern const struct sched_plugin sched_plugin_binpack;
extern const struct sched_plugin sched_plugin_tasktopology;
extern const struct sched_plugin sched_plugin_capacity;

#endif /* SCHED_REGISTRY_H */
