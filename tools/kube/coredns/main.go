// CoreDNS with only the plugins the node's Corefile (tools/kube/manifests/coredns.yaml) uses. The
// module's own main links every plugin and with them the AWS, Azure, Google Cloud and etcd clients,
// which more than double its cold build; CoreDNS documents this way of choosing plugins at build time.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

func init() {
	// The order CoreDNS chains them in (core/dnsserver/zdirectives.go), restricted to these plugins.
	dnsserver.Directives = []string{"reload", "ready", "health", "errors", "cache", "kubernetes", "loop"}
}

func main() {
	coremain.Run()
}
