#!/bin/sh
# A fake exec credential plugin that prints a client certificate and key (see README.md beside it).
n=
if [ -n "${EXEC_COUNT_FILE:-}" ]; then
	n=$(cat "$EXEC_COUNT_FILE" 2>/dev/null || echo 0)
	n=$((n + 1))
	echo "$n" >"$EXEC_COUNT_FILE"
fi
cert=$EXEC_CERT_FILE
key=$EXEC_KEY_FILE
if [ -n "$n" ] && [ -f "$EXEC_CERT_FILE.$n" ]; then
	cert=$EXEC_CERT_FILE.$n
	key=$EXEC_KEY_FILE.$n
fi
# PEM as a JSON string: newlines become \n.
json() { awk 'BEGIN { ORS = "" } { print $0 "\\n" }' "$1"; }
printf '{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"clientCertificateData":"%s","clientKeyData":"%s"}}\n' \
	"$(json "$cert")" "$(json "$key")"
