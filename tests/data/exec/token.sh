#!/bin/sh
# A fake exec credential plugin that prints a token (see README.md beside it).
n=
if [ -n "${EXEC_COUNT_FILE:-}" ]; then
	n=$(cat "$EXEC_COUNT_FILE" 2>/dev/null || echo 0)
	n=$((n + 1))
	echo "$n" >"$EXEC_COUNT_FILE"
fi
[ -n "${EXEC_INFO_FILE:-}" ] && printf '%s' "${KUBERNETES_EXEC_INFO:-}" >"$EXEC_INFO_FILE"
[ -n "${EXEC_ARGS_FILE:-}" ] && printf '%s\n' "$@" >"$EXEC_ARGS_FILE"
echo "token.sh: run ${n:-1}" >&2
token=${EXEC_TOKEN:-token}${n:+-$n}
exp=
[ -n "${EXEC_EXPIRY:-}" ] && exp=",\"expirationTimestamp\":\"$EXEC_EXPIRY\""
printf '{"kind":"ExecCredential","apiVersion":"%s","status":{"token":"%s"%s}}\n' \
	"${EXEC_API_VERSION:-client.authentication.k8s.io/v1}" "$token" "$exp"
