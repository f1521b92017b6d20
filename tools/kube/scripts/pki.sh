# Certificates for the local cluster, made with openssl: one CA, the API server's serving certificate,
# one client certificate in system:masters for the components and the user, and the service-account key.
# shellcheck shell=bash

make_pki() {
  local pki=$1
  mkdir -p "$pki"
  (
    cd "$pki"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=thumbforge-kube-ca 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj /CN=kube-apiserver 2>/dev/null
    printf 'subjectAltName=IP:%s,IP:%s,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local\nextendedKeyUsage=serverAuth\n' \
      "$NODE_IP" "${SERVICE_CIDR%.0/24}.1" >apiserver.ext
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile apiserver.ext -out apiserver.crt 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj "/O=system:masters/CN=thumbforge-admin" 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' >admin.ext
    openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile admin.ext -out admin.crt 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    rm -f ./*.csr ./*.ext ca.srl
  ) || die "making certificates with openssl failed"
}

# write_kubeconfig <file> <server>
write_kubeconfig() {
  local pki=$state_dir/pki
  cat >"$1" <<YAML
apiVersion: v1
kind: Config
clusters:
  - name: thumbforge
    cluster: { server: "$2", certificate-authority: "$pki/ca.crt" }
users:
  - name: admin
    user: { client-certificate: "$pki/admin.crt", client-key: "$pki/admin.key" }
contexts:
  - name: thumbforge
    context: { cluster: thumbforge, user: admin, namespace: default }
current-context: thumbforge
YAML
}
