#!/bin/sh
# /gen-admission-secret.sh of the vc-webhook-manager image (scripts/image.sh): what Volcano's
# admission init Job runs (`./gen-admission-secret.sh --service SVC --namespace NS --secret NAME`
# in the image's working directory /), with the same flags and outcome: a CA and a serving
# certificate for the Service, stored in the Secret NAME of NS under the keys tls.key, tls.crt
# and ca.crt. Like Volcano's (`kubectl create secret`), it fails when the Secret exists.
#
# Volcano's script uses openssl and kubectl; this one `vc-webhook --generate-certs` (the same
# files, more SANs: docs/webhook.md "Certificates") and curl with the pod's ServiceAccount
# (KUBERNETES_SERVICE_HOST/PORT, /var/run/secrets/kubernetes.io/serviceaccount). The shell and
# the few tools are busybox's. The keys are written under TMPDIR (default /tmp) and removed.
set -e

usage() {
	cat <<EOF
Generate a certificate suitable for use with an admission controller service, signed by a new
CA; the server key and certificate and the CA certificate are stored in a Secret.
usage: ${0} [OPTIONS]
The following flags are required.
       --service          Service name of webhook.
       --namespace        Namespace where webhook service and secret reside.
       --secret           Secret name for CA certificate and server certificate/key pair.
EOF
	exit 0
}

SERVICE=
SECRET=
NAMESPACE=
while [ $# -gt 0 ]; do
	case ${1} in
	--service)
		SERVICE="$2"
		shift
		;;
	--secret)
		SECRET="$2"
		shift
		;;
	--namespace)
		NAMESPACE="$2"
		shift
		;;
	*)
		usage
		;;
	esac
	shift
done

if [ -z "${SERVICE}" ]; then
	echo "'--service' must be specified"
	exit 1
fi
if [ -z "${SECRET}" ]; then
	echo "'--secret' must be specified"
	exit 1
fi
[ -n "${NAMESPACE}" ] || NAMESPACE=default

SA=${SA_DIR:-/var/run/secrets/kubernetes.io/serviceaccount}
HOST=${KUBERNETES_SERVICE_HOST:-}
PORT=${KUBERNETES_SERVICE_PORT:-}
if [ -z "$HOST" ] || [ -z "$PORT" ] || ! [ -r "$SA/token" ]; then
	echo "no in-cluster configuration: KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT and $SA/token are needed"
	exit 1
fi
case $HOST in *:*) HOST="[$HOST]" ;; esac

CERTDIR=$(mktemp -d "${TMPDIR:-/tmp}/admission.XXXXXX")
trap 'rm -rf "$CERTDIR"' EXIT
echo "creating certs in dir ${CERTDIR} "
vc-webhook --generate-certs "$CERTDIR" --webhook-service-name "$SERVICE" --webhook-namespace "$NAMESPACE"

# The Secret, as `kubectl create secret generic` makes it (the names and the key are safe in
# JSON: they are DNS names, and base64 needs no escaping).
{
	printf '{"apiVersion":"v1","kind":"Secret","type":"Opaque",'
	printf '"metadata":{"name":"%s","namespace":"%s"},"data":{' "$SECRET" "$NAMESPACE"
	printf '"tls.key":"%s",' "$(base64 -w 0 "$CERTDIR/tls.key")"
	printf '"tls.crt":"%s",' "$(base64 -w 0 "$CERTDIR/tls.crt")"
	printf '"ca.crt":"%s"}}' "$(base64 -w 0 "$CERTDIR/ca.crt")"
} >"$CERTDIR/secret.json"
CA=
[ ! -r "$SA/ca.crt" ] || CA="--cacert $SA/ca.crt"
# shellcheck disable=SC2086 # CA is two words or none
code=$(curl -sS $CA -o "$CERTDIR/answer" -w '%{http_code}' -X POST \
	-H "Authorization: Bearer $(cat "$SA/token")" -H 'Content-Type: application/json' \
	--data-binary "@$CERTDIR/secret.json" \
	"https://$HOST:$PORT/api/v1/namespaces/$NAMESPACE/secrets") || {
	echo "error: cannot reach the API server at https://$HOST:$PORT"
	exit 1
}
if [ "$code" != 201 ]; then
	echo "error: creating secret/${SECRET} in ${NAMESPACE}: HTTP $code: $(cat "$CERTDIR/answer")"
	exit 1
fi
echo "secret/${SECRET} created"
