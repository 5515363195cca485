#!/usr/bin/env bash
# make fuzz / make fuzz-long: run each libFuzzer target for SECONDS on a scratch copy of its seed
# corpus (so the committed seeds stay small), stop at the first crash, and keep crash inputs in
# build/fuzz/. One line per target goes to build/fuzz/summary.txt (target, seconds, executions,
# peak RSS, result), the figures docs/hacking.md's fuzz section records.
set -euo pipefail
seconds=$1
shift
status=0
summary=build/fuzz/summary.txt
mkdir -p build/fuzz
for bin in "$@"; do
	name=$(basename "$bin")
	target=${name#fuzz_}
	work=build/fuzz/work/$target
	rm -rf "$work" && mkdir -p "$work/corpus" "$work/artifacts"
	if [ -d "tests/fuzz/corpus/$target" ]; then
		cp -r "tests/fuzz/corpus/$target/." "$work/corpus/"
	fi
	echo "fuzz: $name for ${seconds}s"
	# stdin from /dev/null: a fuzzed file name (a kubeconfig's tokenFile: /dev/stdin) must not
	# wait for a terminal.
	if "$bin" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
		"$work/corpus" </dev/null >"$work/log" 2>&1; then
		result=ok
		grep -E 'stat::number_of_executed_units|stat::peak_rss_mb' "$work/log" | sed 's/^/  /'
	else
		result="FAILED ($work/artifacts/)"
		echo "fuzz: $name FAILED; log: $work/log, inputs: $work/artifacts/" >&2
		grep -v '^ts=' "$work/log" | tail -n 30 >&2
		status=1
	fi
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/log")
	printf '%s %s %ss execs=%s peak_rss_mb=%s %s\n' "$(date -u +%FT%TZ)" "$target" "$seconds" \
		"${execs:-?}" "${rss:-?}" "$result" >>"$summary"
done
exit $status
