/*
 * vc_flags.h - one static flags table per binary (redis' static_configs[], curl's aliases[]).
 *
 * The table drives parsing, range checks, --help and the dump of effective settings at start-up.
 * Syntax follows Go's pflag, which Volcano's binaries use, so existing manifests carry over:
 * `--name=value`, `--name value`, a single dash works too, a bare boolean flag means true,
 * `--flag=false` turns it off, and `--` ends the flags. klog's flags (`-v`, `--logtostderr`, …)
 * are accepted through VC_FLAGS_KLOG so Volcano's Deployments start unchanged.
 */
#ifndef VC_FLAGS_H
#define VC_FLAGS_H

#include "vc_prelude.h"

#include "vc_err.h"

enum vc_flag_type {
	VC_FLAG_BOOL,	  /* bool */
	VC_FLAG_INT,	  /* int */
	VC_FLAG_DOUBLE,	  /* double */
	VC_FLAG_STRING,	  /* const char *: points into argv or at the default literal */
	VC_FLAG_DURATION, /* int64_t nanoseconds, Go duration syntax ("30s", "1m30s") */
	VC_FLAG_IGNORED,  /* accepted for compatibility, value discarded (takes a value) */
	VC_FLAG_IGNORED_BOOL, /* accepted for compatibility, no value needed */
};

struct vc_flag {
	const char *name; /* without dashes */
	enum vc_flag_type type;
	const char *def; /* default in command-line syntax; NULL means zero / NULL */
	double min, max; /* inclusive range for INT, DOUBLE, DURATION (seconds); unchecked if equal */
	size_t offset;	 /* offsetof(config struct, field) */
	const char *help;
};

/* klog's flags; `v` sets the log verbosity directly. Put this at the end of a table. */
#define VC_FLAGS_KLOG                                                                              \
	{ "v", VC_FLAG_INT, "0", 0, 10, 0, "log verbosity (klog's -v)" },                          \
		{ "logtostderr", VC_FLAG_IGNORED_BOOL, NULL, 0, 0, 0, "accepted for klog compatibility" }, \
		{ "alsologtostderr", VC_FLAG_IGNORED_BOOL, NULL, 0, 0, 0,                          \
		  "accepted for klog compatibility" },                                             \
		{ "log_dir", VC_FLAG_IGNORED, NULL, 0, 0, 0, "accepted for klog compatibility" },  \
		{ "log_file", VC_FLAG_IGNORED, NULL, 0, 0, 0, "accepted for klog compatibility" }, \
	{                                                                                          \
		"stderrthreshold", VC_FLAG_IGNORED, NULL, 0, 0, 0, "accepted for klog compatibility" \
	}

/* Returned by vc_flags_parse when --help or -h was given. */
#define VC_FLAGS_HELP 1

/*
 * Set every field in cfg to its default, then apply argv[1..]. On success returns 0 (or
 * VC_FLAGS_HELP) and stores in *first_arg the index of the first argument that is not a flag
 * (argc when there is none). On a bad flag returns VC_EINVAL with pflag's wording in err:
 * `unknown flag: --x`, `flag needs an argument: --x`,
 * `invalid argument "y" for "--x" flag: <reason>`. The `v` flag of VC_FLAGS_KLOG also calls
 * vc_log_set_verbosity.
 */
int vc_flags_parse(const struct vc_flag *flags, size_t n, void *cfg, int argc, char **argv,
		   int *first_arg, struct vc_error *err);

/* Write `Usage: prog [flags]` and one line per flag with its type, help and default. */
void vc_flags_usage(const struct vc_flag *flags, size_t n, const char *prog, FILE *out);

/* Log the effective value of every flag at V(1) (Volcano logs its loaded configuration). */
void vc_flags_dump(const struct vc_flag *flags, size_t n, const void *cfg);

#endif /* VC_FLAGS_H */
