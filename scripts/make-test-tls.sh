#!/bin/sh
# Regenerates the test TLS fixtures in test/fixtures/tls: a test CA (trusted by the test runs
# through NODE_EXTRA_CA_CERTS, set in .mocharc.cjs), a receiver certificate it signed for the local
# names and loopback addresses, and a self-signed certificate no one trusts. Test-only keys: never
# use them anywhere else. Valid for 100 years, so the fixtures do not expire under the tests.
set -eu
cd "$(dirname "$0")/../test/fixtures/tls"
ec="-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
openssl req -x509 $ec -keyout ca.key -out ca.pem -days 36500 -subj "/CN=SubBridge Test CA" \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
openssl req $ec -keyout receiver.key -out receiver.csr -subj "/CN=localhost"
printf "subjectAltName=DNS:localhost,DNS:receiver.test,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n" > receiver.ext
openssl x509 -req -in receiver.csr -CA ca.pem -CAkey ca.key -set_serial 2 -out receiver.pem -days 36500 -extfile receiver.ext
openssl req -x509 $ec -keyout untrusted.key -out untrusted.pem -days 36500 -subj "/CN=localhost" \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1"
rm -f receiver.csr receiver.ext
