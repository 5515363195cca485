#include "vc_flags.h"

#include "vc_alloc.h"
#include "vc_log.h"
#include "vc_str.h"
#include "vc_time.h"

/* klog's flags, accepted after the binary's own table. */
static const struct vc_flag klog_flags[] = {
	{ "v", VC_FLAG_IGNORED, NULL, 0, 0, 0, "log verbosity, as klog's -v" },
	{ "logtostderr", VC_FLAG_IGNORED_BOOL, NULL, 0, 0, 0, "accepted for klog compatibility" },
	{ "alsologtostderr", VC_FLAG_IGNORED_BOOL, NULL, 0, 0, 0,
	  "accepted for klog compatibility" },
	{ "log_dir", VC_FLAG_IGNORED, NULL, 0, 0, 0, "accepted for klog compatibility" },
	{ "log_file", VC_FLAG_IGNORED, NULL, 0, 0, 0, "accepted for klog compatibility" },
	{ "stderrthreshold", VC_FLAG_IGNORED, NULL, 0, 0, 0, "accepted for klog compatibility" },
	{ "vmodule", VC_FLAG_NOEFFECT, NULL, 0, 0, 0, "klog's; no effect" },
	{ "add_dir_header", VC_FLAG_NOEFFECT_BOOL, NULL, 0, 0, 0, "klog's; no effect" },
	{ "skip_headers", VC_FLAG_NOEFFECT_BOOL, NULL, 0, 0, 0, "klog's; no effect" },
	{ "one_output", VC_FLAG_NOEFFECT_BOOL, NULL, 0, 0, 0, "klog's; no effect" },
	{ "log_file_max_size", VC_FLAG_NOEFFECT, NULL, 0, 0, 0, "klog's; no effect" },
	{ "skip_log_headers", VC_FLAG_NOEFFECT_BOOL, NULL, 0, 0, 0, "klog's; no effect" },
	{ "log_backtrace_at", VC_FLAG_NOEFFECT, NULL, 0, 0, 0, "klog's; no effect" },
};

/* A flag accepted for compatibility: it has no field in the config struct. */
static bool flag_is_ignored(enum vc_flag_type t)
{
	return t == VC_FLAG_IGNORED || t == VC_FLAG_IGNORED_BOOL || t == VC_FLAG_NOEFFECT ||
	       t == VC_FLAG_NOEFFECT_BOOL;
}

static const struct vc_flag *flag_lookup(const struct vc_flag *flags, size_t n, const char *name,
					 size_t len)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strlen(flags[i].name) == len && !memcmp(flags[i].name, name, len))
			return &flags[i];
	}
	return NULL;
}

static const struct vc_flag *flag_find(const struct vc_flag *flags, size_t n, const char *name,
				       size_t len)
{
	const struct vc_flag *f = flag_lookup(flags, n, name, len);

	return f ? f : flag_lookup(klog_flags, VC_ARRAY_SIZE(klog_flags), name, len);
}

/* klog's -v: the verbosity of the log, whatever the binary's table does with it. */
static int klog_verbosity(const char *value, struct vc_error *err)
{
	int v;

	if (vc_parse_int(value, 0, 10, &v))
		return vc_error_set(err, VC_EINVAL,
				    "invalid argument \"%s\" for \"--v\" flag: must be an integer "
				    "between 0 and 10",
				    value);
	vc_log_set_verbosity(v);
	return 0;
}

static bool flag_takes_value(const struct vc_flag *f)
{
	return f->type != VC_FLAG_BOOL && f->type != VC_FLAG_IGNORED_BOOL &&
	       f->type != VC_FLAG_NOEFFECT_BOOL;
}

static bool out_of_range(const struct vc_flag *f, double v)
{
	return f->min != f->max && (v < f->min || v > f->max);
}

/* Parse value into the field of f; reason receives a short explanation on failure. */
static int flag_set(const struct vc_flag *f, void *cfg, const char *value, struct vc_error *err)
{
	char *field = (char *)cfg + f->offset;
	struct vc_error sub;
	int64_t ns;
	double d;
	bool b;
	int iv, rc = 0;

	vc_error_clear(&sub);
	switch (f->type) {
	case VC_FLAG_BOOL:
		rc = vc_parse_bool(value, &b);
		if (rc)
			vc_error_set(&sub, rc, "strconv.ParseBool: parsing \"%s\": invalid syntax",
				     value);
		else
			memcpy(field, &b, sizeof(b));
		break;
	case VC_FLAG_INT:
		rc = vc_parse_int(value, INT_MIN, INT_MAX, &iv);
		if (rc)
			vc_error_set(&sub, rc, "strconv.ParseInt: parsing \"%s\": %s", value,
				     rc == VC_ERANGE ? "value out of range" : "invalid syntax");
		else if (out_of_range(f, iv))
			rc = vc_error_set(&sub, VC_ERANGE, "must be between %g and %g", f->min,
					  f->max);
		else
			memcpy(field, &iv, sizeof(iv));
		break;
	case VC_FLAG_DOUBLE:
		rc = vc_parse_double(value, &d);
		if (rc)
			vc_error_set(&sub, rc, "strconv.ParseFloat: parsing \"%s\": invalid syntax",
				     value);
		else if (out_of_range(f, d))
			rc = vc_error_set(&sub, VC_ERANGE, "must be between %g and %g", f->min,
					  f->max);
		else
			memcpy(field, &d, sizeof(d));
		break;
	case VC_FLAG_STRING:
		memcpy(field, &value, sizeof(value));
		break;
	case VC_FLAG_DURATION:
		rc = vc_duration_parse(value, &ns, &sub);
		if (!rc && out_of_range(f, (double)ns / 1e9))
			rc = vc_error_set(&sub, VC_ERANGE, "must be between %gs and %gs", f->min,
					  f->max);
		if (!rc)
			memcpy(field, &ns, sizeof(ns));
		break;
	case VC_FLAG_LIST: {
		struct vc_flag_list *l = (struct vc_flag_list *)(void *)field;

		if (l->n >= VC_FLAG_LIST_MAX)
			rc = vc_error_set(&sub, VC_ERANGE, "more than %d values", VC_FLAG_LIST_MAX);
		else
			l->items[l->n++] = value;
		break;
	}
	case VC_FLAG_IGNORED:
	case VC_FLAG_IGNORED_BOOL:
	case VC_FLAG_NOEFFECT:
	case VC_FLAG_NOEFFECT_BOOL:
		break;
	}
	if (rc)
		return vc_error_set(err, VC_EINVAL, "invalid argument \"%s\" for \"--%s\" flag: %s",
				    value, f->name, sub.text);
	return 0;
}

/* The size of the config field a flag of type t writes. */
static size_t flag_size(enum vc_flag_type t)
{
	switch (t) {
	case VC_FLAG_BOOL:
		return sizeof(bool);
	case VC_FLAG_INT:
		return sizeof(int);
	case VC_FLAG_DOUBLE:
		return sizeof(double);
	case VC_FLAG_STRING:
		return sizeof(const char *);
	case VC_FLAG_DURATION:
		return sizeof(int64_t);
	case VC_FLAG_LIST:
		return sizeof(struct vc_flag_list);
	case VC_FLAG_IGNORED:
	case VC_FLAG_IGNORED_BOOL:
	case VC_FLAG_NOEFFECT:
	case VC_FLAG_NOEFFECT_BOOL:
		break;
	}
	return 0;
}

static int flags_set_defaults(const struct vc_flag *flags, size_t n, void *cfg,
			      struct vc_error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		const struct vc_flag *f = &flags[i];
		char *field = (char *)cfg + f->offset;

		if (flag_is_ignored(f->type))
			continue;
		memset(field, 0, flag_size(f->type));
		if (f->def) {
			rc = flag_set(f, cfg, f->def, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

#define NOEFFECT_WARNED_MAX 64

/* One warning per flag of no effect, the first time it is given. */
static void warn_no_effect(const struct vc_flag *f, const struct vc_flag **warned, size_t *n)
{
	char msg[128];
	size_t i;

	for (i = 0; i < *n; i++)
		if (warned[i] == f)
			return;
	if (*n < NOEFFECT_WARNED_MAX)
		warned[(*n)++] = f;
	snprintf(msg, sizeof(msg), "flag --%s has no effect in Caldera", f->name);
	VC_WARN(msg, "");
}

int vc_flags_parse(const struct vc_flag *flags, size_t n, void *cfg, int argc, char **argv,
		   int *first_arg, struct vc_error *err)
{
	const struct vc_flag *warned[NOEFFECT_WARNED_MAX];
	size_t nwarned = 0;
	int i, rc;

	rc = flags_set_defaults(flags, n, cfg, err);
	if (rc)
		return rc;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *name, *eq, *value;
		const struct vc_flag *f;
		size_t len;

		if (arg[0] != '-' || !arg[1])
			break;
		if (!strcmp(arg, "--")) {
			i++;
			break;
		}
		name = arg + (arg[1] == '-' ? 2 : 1);
		eq = strchr(name, '=');
		len = eq ? (size_t)(eq - name) : strlen(name);
		if ((len == 4 && !memcmp(name, "help", 4)) || (len == 1 && name[0] == 'h'))
			return VC_FLAGS_HELP;
		f = flag_find(flags, n, name, len);
		if (!f)
			return vc_error_set(err, VC_EINVAL, "unknown flag: --%.*s", (int)len, name);
		if (eq) {
			value = eq + 1;
		} else if (!flag_takes_value(f)) {
			value = "true";
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			return vc_error_set(err, VC_EINVAL, "flag needs an argument: --%s",
					    f->name);
		}
		if ((f->type == VC_FLAG_IGNORED_BOOL || f->type == VC_FLAG_NOEFFECT_BOOL) && eq) {
			bool ignored;

			if (vc_parse_bool(value, &ignored))
				return vc_error_set(
					err, VC_EINVAL,
					"invalid argument \"%s\" for \"--%s\" flag: "
					"strconv.ParseBool: parsing \"%s\": invalid syntax",
					value, f->name, value);
		}
		if (f->type == VC_FLAG_NOEFFECT || f->type == VC_FLAG_NOEFFECT_BOOL)
			warn_no_effect(f, warned, &nwarned);
		rc = flag_set(f, cfg, value, err);
		if (!rc && !strcmp(f->name, "v"))
			rc = klog_verbosity(value, err);
		if (rc)
			return rc;
	}
	if (first_arg)
		*first_arg = i;
	return 0;
}

static const char *flag_type_name(enum vc_flag_type t)
{
	switch (t) {
	case VC_FLAG_INT:
		return "int";
	case VC_FLAG_DOUBLE:
		return "float";
	case VC_FLAG_STRING:
	case VC_FLAG_IGNORED:
	case VC_FLAG_NOEFFECT:
		return "string";
	case VC_FLAG_LIST:
		return "strings";
	case VC_FLAG_DURATION:
		return "duration";
	case VC_FLAG_BOOL:
	case VC_FLAG_IGNORED_BOOL:
	case VC_FLAG_NOEFFECT_BOOL:
		break;
	}
	return "";
}

static void usage_lines(const struct vc_flag *flags, size_t n, FILE *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct vc_flag *f = &flags[i];
		char left[64];

		snprintf(left, sizeof(left), "--%s %s", f->name, flag_type_name(f->type));
		fprintf(out, "  %-34s %s", left, f->help);
		if (f->def && f->def[0] && f->type != VC_FLAG_BOOL)
			fprintf(out, " (default %s%s%s)", f->type == VC_FLAG_STRING ? "\"" : "",
				f->def, f->type == VC_FLAG_STRING ? "\"" : "");
		else if (f->def && f->type == VC_FLAG_BOOL && !strcmp(f->def, "true"))
			fprintf(out, " (default true)");
		fputc('\n', out);
	}
}

void vc_flags_usage(const struct vc_flag *flags, size_t n, const char *prog, FILE *out)
{
	fprintf(out, "Usage: %s [flags]\n\nFlags:\n", prog);
	usage_lines(flags, n, out);
	fprintf(out, "\nklog flags:\n");
	usage_lines(klog_flags, VC_ARRAY_SIZE(klog_flags), out);
}

void vc_flags_dump(const struct vc_flag *flags, size_t n, const void *cfg)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct vc_flag *f = &flags[i];
		const char *field = (const char *)cfg + f->offset;
		char dur[64];
		const char *s;
		int64_t ns;
		double d;
		bool b;
		int iv;

		switch (f->type) {
		case VC_FLAG_BOOL:
			memcpy(&b, field, sizeof(b));
			VC_LOG(VC_LOG_V(1), "flag", "name=%s value=%s", f->name,
			       b ? "true" : "false");
			break;
		case VC_FLAG_INT:
			memcpy(&iv, field, sizeof(iv));
			VC_LOG(VC_LOG_V(1), "flag", "name=%s value=%d", f->name, iv);
			break;
		case VC_FLAG_DOUBLE:
			memcpy(&d, field, sizeof(d));
			VC_LOG(VC_LOG_V(1), "flag", "name=%s value=%g", f->name, d);
			break;
		case VC_FLAG_STRING:
			memcpy(&s, field, sizeof(s));
			VC_LOG(VC_LOG_V(1), "flag", "name=%s value=\"%s\"", f->name, s ? s : "");
			break;
		case VC_FLAG_DURATION:
			memcpy(&ns, field, sizeof(ns));
			if (vc_duration_format(ns, dur, sizeof(dur)) < 0)
				dur[0] = '\0';
			VC_LOG(VC_LOG_V(1), "flag", "name=%s value=%s", f->name, dur);
			break;
		case VC_FLAG_LIST: {
			const struct vc_flag_list *l = (const void *)field;
			int k;

			for (k = 0; k < l->n; k++)
				VC_LOG(VC_LOG_V(1), "flag", "name=%s value=\"%s\"", f->name,
				       l->items[k]);
			break;
		}
		case VC_FLAG_IGNORED:
		case VC_FLAG_IGNORED_BOOL:
		case VC_FLAG_NOEFFECT:
		case VC_FLAG_NOEFFECT_BOOL:
			break;
		}
	}
}

int vc_flags_positional(int argc, char **argv, int first, struct vc_error *err)
{
	int i;

	for (i = first; i < argc; i++) {
		if (argv[i][0] == '-')
			return vc_error_set(err, VC_EINVAL, "flags must come before arguments: %s",
					    argv[i]);
	}
	for (i = first; i < argc; i++)
		VC_WARN("ignoring an argument", "arg=\"%s\"", argv[i]);
	return argc > first ? argc - first : 0;
}

int vc_flag_list_split(const struct vc_flag_list *l, char **store, const char **out, size_t max,
		       size_t *n)
{
	int i;

	*n = 0;
	for (i = 0; i < l->n; i++) {
		const char *s = l->items[i];

		while (*s) {
			const char *end = strchr(s, ',');
			size_t len = end ? (size_t)(end - s) : strlen(s);

			if (len) {
				if (*n >= max)
					return VC_E2BIG;
				store[*n] = vc_strndup(s, len);
				if (!store[*n])
					return VC_ENOMEM;
				out[*n] = store[*n];
				(*n)++;
			}
			s += len + (end ? 1 : 0);
		}
	}
	return 0;
}
