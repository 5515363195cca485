/*
 * vc_flags.h - one static flags table per binary (redis' static_configs[], curl's aliases[]).
 *
 * The table drives parsing, range checks, --help and the dump of effective settings at start-up.
 * Syntax follows Go's pflag, which Volcano's binaries use, so existing manifests carry over:
 * `--name=value`, `--name value`, a single dash works too, a bare boolean flag means true,
 * `--flag=false` turns it off, and `--` ends the flags. klog's flags (`-v`, `--logtostderr`,
 * `--alsologtostderr`, `--log_dir`, `--log_file`, `--stderrthreshold`) are always accepted, so
 * Volcano's Deployments start unchanged: `-v=N` sets the log verbosity, the others are ignored.
 * klog's rarer flags (`--vmodule`, `--add_dir_header`, `--skip_headers`, `--one_output`,
 * `--log_file_max_size`, `--skip_log_headers`, `--log_backtrace_at`) are accepted with a warning.
 *
 * A flag of Volcano's that Caldera does not implement is a VC_FLAG_NOEFFECT(_BOOL) row: accepted,
 * its value checked as far as its kind goes (a boolean must be one), and one warning line
 * `flag --X has no effect in Caldera` logged the first time it is given. Unknown flags still fail.
 */
#ifndef VC_FLAGS_H
#define VC_FLAGS_H

#include "vc_prelude.h"

#include "vc_err.h"

enum vc_flag_type {
	VC_FLAG_BOOL,	       /* bool */
	VC_FLAG_INT,	       /* int */
	VC_FLAG_DOUBLE,	       /* double */
	VC_FLAG_STRING,	       /* const char *: points into argv or at the default literal */
	VC_FLAG_DURATION,      /* int64_t nanoseconds, Go duration syntax ("30s", "1m30s") */
	VC_FLAG_IGNORED,       /* accepted for compatibility, value discarded (takes a value) */
	VC_FLAG_IGNORED_BOOL,  /* accepted for compatibility, no value needed */
	VC_FLAG_LIST,	       /* struct vc_flag_list: every occurrence appended */
	VC_FLAG_NOEFFECT,      /* Volcano's flag, not implemented: accepted with a warning */
	VC_FLAG_NOEFFECT_BOOL, /* the same for a boolean flag (no value needed) */
};

/* The values of a repeatable flag, in command-line order (pointing into argv or defaults). */
#define VC_FLAG_LIST_MAX 32
struct vc_flag_list {
	const char *items[VC_FLAG_LIST_MAX];
	int n;
};

struct vc_flag {
	const char *name; /* without dashes */
	enum vc_flag_type type;
	const char *def; /* default in command-line syntax; NULL means zero / NULL */
	/* Inclusive range for INT, DOUBLE and DURATION (in seconds); unchecked when equal. */
	double min, max;
	size_t offset; /* offsetof(config struct, field) */
	const char *help;
};

/* Returned by vc_flags_parse when --help or -h was given. */
#define VC_FLAGS_HELP 1

/*
 * Set every field in cfg to its default, then apply argv[1..]. On success returns 0 (or
 * VC_FLAGS_HELP) and stores in *first_arg the index of the first argument that is not a flag
 * (argc when there is none). On a bad flag returns VC_EINVAL with pflag's wording in err:
 * `unknown flag: --x`, `flag needs an argument: --x`,
 * `invalid argument "y" for "--x" flag: <reason>`. A table may define its own `v` flag; klog's
 * `v` then still sets the log verbosity too.
 */
int vc_flags_parse(const struct vc_flag *flags, size_t n, void *cfg, int argc, char **argv,
		   int *first_arg, struct vc_error *err);

/*
 * The arguments argv[first..argc) left after vc_flags_parse. Volcano's binaries (pflag) ignore
 * positional arguments, and Volcano's Deployments pass one (`2>&1`, meant for a shell that is not
 * there): each is logged as a warning ("ignoring an argument") and skipped. A flag after an
 * argument is refused: returns VC_EINVAL with `flags must come before arguments: X` in err.
 * Returns the number of arguments ignored.
 */
int vc_flags_positional(int argc, char **argv, int first, struct vc_error *err);

/* Write `Usage: prog [flags]` and one line per flag with its type, help and default. */
void vc_flags_usage(const struct vc_flag *flags, size_t n, const char *prog, FILE *out);

/*
 * Split every value of a repeatable, comma-separated flag (`--x=a,b --x=c`) at the commas, in
 * order, skipping empty pieces: store[i] is a vc_malloc'd copy of piece i (the caller frees each)
 * and out[i] the same pointer as const. At most max pieces: VC_E2BIG when there are more,
 * VC_ENOMEM when a copy fails; either way *n counts the pieces stored so far.
 */
int vc_flag_list_split(const struct vc_flag_list *l, char **store, const char **out, size_t max,
		       size_t *n) VC_WARN_UNUSED;

/* Log the effective value of every flag at V(1) (Volcano logs its loaded configuration). */
void vc_flags_dump(const struct vc_flag *flags, size_t n, const void *cfg);

#endif /* VC_FLAGS_H */
