#!/usr/bin/env bash
# Makes the certificate fixtures of EasyNetworkPinningTests (committed; run again only to
# replace them, then commit the new files). Needs OpenSSL 3. Two chains, root -> intermediate
# -> leaf for api.example.com: one with RSA 2048 keys, one with EC P-256 keys; a version 1
# certificate; a spare key
# (a backup pin that is in no chain); and pins.txt, each certificate's and key's pin as
# OpenSSL computes it (base64 of the SHA-256 of the DER SubjectPublicKeyInfo), which the
# tests compare with the module's own DER walker. Private keys are not kept.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

key() { # key NAME ALGORITHM
    case "$2" in
        rsa) openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/$1.key" 2>/dev/null ;;
        ec) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/$1.key" ;;
    esac
}
ca_ext="basicConstraints=critical,CA:TRUE
keyUsage=critical,keyCertSign,cRLSign"
leaf_ext="basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:api.example.com"

for kind in rsa ec; do
    key "$kind-root" "$kind"
    key "$kind-intermediate" "$kind"
    key "$kind-leaf" "$kind"
    openssl req -x509 -new -key "$work/$kind-root.key" -subj "/CN=EasyNetwork Test Root ($kind)" \
        -days 36500 -sha256 -addext "$(echo "$ca_ext" | head -1)" -addext "$(echo "$ca_ext" | tail -1)" \
        -outform DER -out "$kind-root.der"
    openssl req -new -key "$work/$kind-intermediate.key" -subj "/CN=EasyNetwork Test Intermediate ($kind)" -out "$work/i.csr"
    echo "$ca_ext" > "$work/ca.ext"
    openssl x509 -req -in "$work/i.csr" -CA "$kind-root.der" -CAform DER -CAkey "$work/$kind-root.key" \
        -set_serial 2 -days 36500 -sha256 -extfile "$work/ca.ext" -outform DER -out "$kind-intermediate.der" 2>/dev/null
    openssl req -new -key "$work/$kind-leaf.key" -subj "/CN=api.example.com" -out "$work/l.csr"
    echo "$leaf_ext" > "$work/leaf.ext"
    openssl x509 -req -in "$work/l.csr" -CA "$kind-intermediate.der" -CAform DER -CAkey "$work/$kind-intermediate.key" \
        -set_serial 3 -days 36500 -sha256 -extfile "$work/leaf.ext" -outform DER -out "$kind-leaf.der" 2>/dev/null
done
# A version 1 certificate (no extensions, so no [0] version field), self-signed.
key v1 rsa
openssl req -new -key "$work/v1.key" -subj "/CN=legacy.example.com" -out "$work/v1.csr"
openssl x509 -req -in "$work/v1.csr" -signkey "$work/v1.key" -days 36500 -sha256 -outform DER -out rsa-v1.der 2>/dev/null
key spare ec
openssl pkey -in "$work/spare.key" -pubout -outform DER -out spare-key.spki.der

# The pins, exactly as the DocC article tells SDK authors to compute them.
: > pins.txt
for cert in rsa-root rsa-intermediate rsa-leaf ec-root ec-intermediate ec-leaf rsa-v1; do
    pin=$(openssl x509 -in "$cert.der" -inform DER -pubkey -noout \
        | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | openssl base64)
    echo "$cert $pin" >> pins.txt
done
echo "spare-key $(openssl dgst -sha256 -binary spare-key.spki.der | openssl base64)" >> pins.txt
# The chains verify with OpenSSL itself.
for kind in rsa ec; do
    openssl verify -CAfile <(openssl x509 -inform DER -in "$kind-root.der") \
        -untrusted <(openssl x509 -inform DER -in "$kind-intermediate.der") \
        <(openssl x509 -inform DER -in "$kind-leaf.der") >/dev/null
done
cat pins.txt
