/*
 * sched_conf.c - Volcano's scheduler configuration file (docs/volcano/scheduler.md §1.3).
 */
#include "sched_conf.h"

#include <math.h>
#include <stdarg.h>

#include "sched_registry.h"
#include "vc_alloc.h"
#include "vc_str.h"
#include "vc_yaml.h"

static const char *const flag_keys[SCHED_PLUGIN_FLAG_COUNT] = {
	[SCHED_ENABLE_JOB_ORDER] = "enableJobOrder",
	[SCHED_ENABLE_JOB_READY] = "enableJobReady",
	[SCHED_ENABLE_JOB_PIPELINED] = "enableJobPipelined",
	[SCHED_ENABLE_TASK_ORDER] = "enableTaskOrder",
	[SCHED_ENABLE_PREEMPTABLE] = "enablePreemptable",
	[SCHED_ENABLE_RECLAIMABLE] = "enableReclaimable",
	[SCHED_ENABLE_PREEMPTIVE] = "enablePreemptive",
	[SCHED_ENABLE_QUEUE_ORDER] = "enableQueueOrder",
	[SCHED_ENABLE_PREDICATE] = "enablePredicate",
	[SCHED_ENABLE_BEST_NODE] = "enableBestNode",
	[SCHED_ENABLE_NODE_ORDER] = "enableNodeOrder",
	[SCHED_ENABLE_JOB_ENQUEUED] = "enableJobEnqueued",
	[SCHED_ENABLE_JOB_STARVING] = "enableJobStarving",
	[SCHED_ENABLE_OVERUSED] = "enabledOverused",
	[SCHED_ENABLE_ALLOCATABLE] = "enabledAllocatable",
	[SCHED_ENABLE_VICTIM] = "enabledVictim",
};

/* Volcano's other PluginOption switches: accepted (booleans); only the hierarchy one is read. */
static const char *const other_flags[] = {
	"enableHierarchy",	"enabledHierarchy",	"enableTargetJob",     "enabledTargetJob",
	"enableReservedNodes",	"enabledReservedNodes", "enableSubJobReady",   "enableSubJobOrder",
	"enableHyperNodeOrder", "enableClusterOrder",	"enabledClusterOrder", "enableJobValid",
};

/*
 * The plugin arguments this scheduler's plugins read; a name ending in '.' is a prefix
 * (binpack.resources.<resource>). Any other argument is skipped with a note.
 */
static const struct {
	const char *plugin;
	const char *keys[8];
} plugin_args[] = {
	{ "capacity", { "ancestorReclaimLevel" } },
	{ "binpack",
	  { "binpack.weight", "binpack.cpu", "binpack.memory", "binpack.resources",
	    "binpack.resources." } },
	{ "nodeorder",
	  { "leastrequested.weight", "mostrequested.weight", "balancedresource.weight",
	    "nodeaffinity.weight", "tainttoleration.weight", "podaffinity.weight",
	    "podtopologyspread.weight" } },
	{ "overcommit", { "overcommit-factor" } },
	{ "task-topology", { "task-topology.weight" } },
};

const char *sched_plugin_flag_key(enum sched_plugin_flag f)
{
	if ((unsigned)f >= SCHED_PLUGIN_FLAG_COUNT)
		return "";
	return flag_keys[f];
}

static void plugin_conf_release(struct sched_plugin_conf *p)
{
	vc_free(p->name);
	json_decref(p->arguments);
	p->name = NULL;
	p->arguments = NULL;
}

void sched_conf_release(struct sched_conf *c)
{
	size_t i, k;

	if (!c)
		return;
	for (i = 0; i < c->nactions; i++)
		vc_free(c->actions[i]);
	vc_free(c->actions);
	for (i = 0; i < c->ntiers; i++) {
		for (k = 0; k < c->tiers[i].nplugins; k++)
			plugin_conf_release(&c->tiers[i].plugins[k]);
		vc_free(c->tiers[i].plugins);
	}
	vc_free(c->tiers);
	json_decref(c->configurations);
	for (i = 0; i < c->nskipped; i++)
		vc_free(c->skipped[i]);
	vc_free(c->skipped);
	memset(c, 0, sizeof(*c));
}

/* Note an entry skipped (printf-style); VC_ENOMEM (with err set) when out of memory. */
static int VC_PRINTF(3, 4) skip(struct sched_conf *c, struct vc_error *err, const char *fmt, ...)
{
	char **grown, *line;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	line = n < 0 ? NULL : vc_malloc((size_t)n + 1);
	if (!line)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	va_start(ap, fmt);
	vsnprintf(line, (size_t)n + 1, fmt, ap);
	va_end(ap);
	grown = vc_realloc(c->skipped, (c->nskipped + 1) * sizeof(char *));
	if (!grown) {
		vc_free(line);
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	c->skipped = grown;
	c->skipped[c->nskipped++] = line;
	return 0;
}

/* Split "enqueue, allocate" into trimmed names; empty items are skipped. */
static int parse_actions(const char *s, struct sched_conf *c, struct vc_error *err)
{
	const char *p = s;

	while (*p) {
		const char *start, *end;
		char *name, **grown;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		start = p;
		while (*p && *p != ',')
			p++;
		end = p;
		if (*p == ',')
			p++;
		while (end > start &&
		       (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
			end--;
		if (end == start)
			continue;
		name = vc_strndup(start, (size_t)(end - start));
		if (!name)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		if (!sched_action_find(name)) {
			int rc = skip(c, err, "unknown action '%s'", name);

			vc_free(name);
			if (rc < 0)
				return rc;
			continue;
		}
		grown = vc_realloc(c->actions, (c->nactions + 1) * sizeof(char *));
		if (!grown) {
			vc_free(name);
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		}
		c->actions = grown;
		c->actions[c->nactions++] = name;
	}
	return 0;
}

static bool is_other_flag(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(other_flags) / sizeof(other_flags[0]); i++)
		if (strcmp(key, other_flags[i]) == 0)
			return true;
	return false;
}

/* Whether the plugin reads the argument key (plugin_args). */
static bool known_arg(const char *plugin, const char *key)
{
	size_t i, k;

	for (i = 0; i < VC_ARRAY_SIZE(plugin_args); i++) {
		if (strcmp(plugin_args[i].plugin, plugin) != 0)
			continue;
		for (k = 0; k < VC_ARRAY_SIZE(plugin_args[i].keys) && plugin_args[i].keys[k]; k++) {
			const char *want = plugin_args[i].keys[k];
			size_t n = strlen(want);

			if (want[n - 1] == '.' ? strncmp(key, want, n) == 0 && key[n]
					       : strcmp(key, want) == 0)
				return true;
		}
	}
	return false;
}

/* Note every argument of p that its plugin does not read. */
static int skip_unknown_args(struct sched_conf *c, const struct sched_plugin_conf *p,
			     struct vc_error *err)
{
	const char *key;
	json_t *v;
	int rc;

	json_object_foreach (p->arguments, key, v) {
		if (known_arg(p->name, key))
			continue;
		rc = skip(c, err, "plugin '%s': argument '%s' is not used", p->name, key);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Returns 0, 1 when the plugin is skipped (unknown), or an error. */
static int parse_plugin(struct sched_conf *c, const json_t *obj, size_t tier,
			struct sched_plugin_conf *p, struct vc_error *err)
{
	const char *key, *name;
	json_t *v;
	size_t f;

	for (f = 0; f < SCHED_PLUGIN_FLAG_COUNT; f++)
		p->enabled[f] = true;
	if (!json_is_object(obj))
		return vc_error_set(err, VC_EINVALID, "tiers[%zu]: a plugin must be a mapping",
				    tier);
	name = json_string_value(json_object_get(obj, "name"));
	if (!name || !name[0])
		return vc_error_set(err, VC_EINVALID, "tiers[%zu]: a plugin without a name", tier);
	if (!sched_plugin_find(name)) {
		int rc = skip(c, err, "unknown plugin '%s'", name);

		return rc < 0 ? rc : 1;
	}
	p->name = vc_strdup(name);
	if (!p->name)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	json_object_foreach ((json_t *)obj, key, v) {
		bool known = false;

		if (strcmp(key, "name") == 0)
			continue;
		if (strcmp(key, "arguments") == 0) {
			if (json_is_null(v))
				continue;
			if (!json_is_object(v))
				return vc_error_set(err, VC_EINVALID,
						    "plugin '%s': arguments must be a mapping",
						    name);
			p->arguments = json_deep_copy(v);
			if (!p->arguments)
				return vc_error_set(err, VC_ENOMEM, "out of memory");
			continue;
		}
		for (f = 0; f < SCHED_PLUGIN_FLAG_COUNT; f++) {
			if (strcmp(key, flag_keys[f]) != 0)
				continue;
			known = true;
			if (!json_is_boolean(v))
				return vc_error_set(err, VC_EINVALID,
						    "plugin '%s': %s must be a boolean", name, key);
			p->enabled[f] = json_is_true(v);
		}
		if (known)
			continue;
		if (is_other_flag(key)) {
			if (!json_is_boolean(v))
				return vc_error_set(err, VC_EINVALID,
						    "plugin '%s': %s must be a boolean", name, key);
			if (strcmp(key, "enableHierarchy") == 0 ||
			    strcmp(key, "enabledHierarchy") == 0)
				p->hierarchy = json_is_true(v);
			continue;
		}
		{
			int rc = skip(c, err, "plugin '%s': unknown key '%s'", name, key);

			if (rc < 0)
				return rc;
		}
	}
	if (!p->arguments) {
		p->arguments = json_object();
		if (!p->arguments)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	return skip_unknown_args(c, p, err);
}

static int parse_tiers(const json_t *tiers, struct sched_conf *c, struct vc_error *err)
{
	size_t i, k;

	if (!tiers || json_is_null(tiers))
		return 0;
	if (!json_is_array(tiers))
		return vc_error_set(err, VC_EINVALID, "tiers must be a list");
	if (json_array_size(tiers) == 0)
		return 0;
	c->tiers = vc_calloc(json_array_size(tiers), sizeof(*c->tiers));
	if (!c->tiers)
		return vc_error_set(err, VC_ENOMEM, "out of memory");
	for (i = 0; i < json_array_size(tiers); i++) {
		const json_t *tier = json_array_get(tiers, i), *plugins;
		struct sched_tier *t = &c->tiers[c->ntiers++];
		const char *key;
		json_t *v;

		if (!json_is_object(tier))
			return vc_error_set(err, VC_EINVALID, "tiers[%zu] must be a mapping", i);
		json_object_foreach ((json_t *)tier, key, v) {
			int rc;

			if (strcmp(key, "plugins") == 0)
				continue;
			rc = skip(c, err, "tiers[%zu]: unknown key '%s'", i, key);
			if (rc < 0)
				return rc;
		}
		plugins = json_object_get(tier, "plugins");
		if (!json_is_array(plugins) || json_array_size(plugins) == 0)
			return vc_error_set(err, VC_EINVALID, "tiers[%zu] has no plugins", i);
		t->plugins = vc_calloc(json_array_size(plugins), sizeof(*t->plugins));
		if (!t->plugins)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
		for (k = 0; k < json_array_size(plugins); k++) {
			struct sched_plugin_conf *p = &t->plugins[t->nplugins];
			int rc = parse_plugin(c, json_array_get(plugins, k), i, p, err);

			if (rc == 1) {
				plugin_conf_release(p);
				continue;
			}
			t->nplugins++;
			if (rc < 0)
				return rc;
		}
		/* Every plugin of the tier was skipped: so is the tier. */
		if (!t->nplugins) {
			vc_free(t->plugins);
			t->plugins = NULL;
			c->ntiers--;
		}
	}
	return 0;
}

static int parse_configurations(const json_t *list, struct sched_conf *c, struct vc_error *err)
{
	size_t i;

	if (!list || json_is_null(list))
		return 0;
	if (!json_is_array(list))
		return vc_error_set(err, VC_EINVALID, "configurations must be a list");
	for (i = 0; i < json_array_size(list); i++) {
		const json_t *item = json_array_get(list, i), *args;
		const char *name = json_string_value(json_object_get(item, "name"));
		json_t *copy;

		if (!json_is_object(item) || !name || !name[0])
			return vc_error_set(err, VC_EINVALID, "configurations[%zu] needs a name",
					    i);
		args = json_object_get(item, "arguments");
		if (args && !json_is_null(args) && !json_is_object(args))
			return vc_error_set(err, VC_EINVALID,
					    "configurations[%zu]: arguments must be a mapping", i);
		copy = json_is_object(args) ? json_deep_copy(args) : json_object();
		if (!copy || json_object_set_new(c->configurations, name, copy) < 0)
			return vc_error_set(err, VC_ENOMEM, "out of memory");
	}
	return 0;
}

int sched_conf_parse(const char *data, size_t len, struct sched_conf *out, struct vc_error *err)
{
	json_t *doc = NULL, *v;
	const char *key;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = vc_yaml_load_one(data, len, &doc, err);
	if (rc < 0) {
		/* An empty file is the same as no file: Volcano's default. */
		if (rc == VC_EPARSE && err && strstr(err->text, "found 0") != NULL)
			return sched_conf_default(out);
		return rc;
	}
	if (!json_is_object(doc)) {
		rc = vc_error_set(err, VC_EINVALID, "scheduler configuration must be a mapping");
		goto fail;
	}
	json_object_foreach (doc, key, v) {
		if (strcmp(key, "actions") != 0 && strcmp(key, "tiers") != 0 &&
		    strcmp(key, "configurations") != 0 && strcmp(key, "metrics") != 0) {
			rc = skip(out, err, "unknown key '%s' in scheduler configuration", key);
			if (rc < 0)
				goto fail;
		}
	}
	out->configurations = json_object();
	if (!out->configurations) {
		rc = vc_error_set(err, VC_ENOMEM, "out of memory");
		goto fail;
	}
	v = json_object_get(doc, "actions");
	if (v && !json_is_null(v)) {
		if (!json_is_string(v)) {
			rc = vc_error_set(err, VC_EINVALID, "actions must be a string");
			goto fail;
		}
		rc = parse_actions(json_string_value(v), out, err);
		if (rc < 0)
			goto fail;
	}
	rc = parse_tiers(json_object_get(doc, "tiers"), out, err);
	if (rc < 0)
		goto fail;
	rc = parse_configurations(json_object_get(doc, "configurations"), out, err);
	if (rc < 0)
		goto fail;
	json_decref(doc);
	return 0;
fail:
	json_decref(doc);
	sched_conf_release(out);
	return rc;
}

static const char default_conf[] =
	"actions: \"" SCHED_CONF_DEFAULT_ACTIONS "\"\n" SCHED_CONF_DEFAULT_TIERS_YAML;

int sched_conf_default(struct sched_conf *out)
{
	struct vc_error err;
	int rc = sched_conf_parse(default_conf, sizeof(default_conf) - 1, out, &err);

	/* The text is fixed: the only possible failure is memory. */
	return rc < 0 ? VC_ENOMEM : 0;
}

const struct sched_plugin_conf *sched_conf_plugin(const struct sched_conf *c, const char *name)
{
	size_t i, k;

	for (i = 0; i < c->ntiers; i++)
		for (k = 0; k < c->tiers[i].nplugins; k++)
			if (strcmp(c->tiers[i].plugins[k].name, name) == 0)
				return &c->tiers[i].plugins[k];
	return NULL;
}

bool sched_conf_has_action(const struct sched_conf *c, const char *action)
{
	size_t i;

	for (i = 0; i < c->nactions; i++)
		if (strcmp(c->actions[i], action) == 0)
			return true;
	return false;
}

static const json_t *arg(const struct sched_plugin_conf *p, const char *key)
{
	return p && p->arguments ? json_object_get(p->arguments, key) : NULL;
}

static bool arg_number(const json_t *v, double *out)
{
	if (json_is_integer(v)) {
		*out = (double)json_integer_value(v);
		return true;
	}
	if (json_is_real(v)) {
		*out = json_real_value(v);
		return true;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		int64_t i;

		while (*s == ' ')
			s++;
		if (vc_parse_int64(s, &i) == 0) {
			*out = (double)i;
			return true;
		}
		return vc_parse_double(s, out) == 0;
	}
	return false;
}

int64_t sched_arg_int(const struct sched_plugin_conf *p, const char *key, int64_t def)
{
	const json_t *v = arg(p, key);
	double d;

	if (json_is_integer(v))
		return json_integer_value(v);
	if (!arg_number(v, &d) || !isfinite(d) || d < -9.2e18 || d > 9.2e18)
		return def;
	return (int64_t)d;
}

double sched_arg_float(const struct sched_plugin_conf *p, const char *key, double def)
{
	double d;

	if (!arg_number(arg(p, key), &d))
		return def;
	return d;
}

bool sched_arg_bool(const struct sched_plugin_conf *p, const char *key, bool def)
{
	const json_t *v = arg(p, key);
	bool b;

	if (json_is_boolean(v))
		return json_is_true(v);
	if (json_is_string(v) && vc_parse_bool(json_string_value(v), &b) == 0)
		return b;
	return def;
}

const char *sched_arg_string(const struct sched_plugin_conf *p, const char *key, const char *def)
{
	const char *s = json_string_value(arg(p, key));

	return s ? s : def;
}
