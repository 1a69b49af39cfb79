// Command etcd is etcd's own server, built from the Go module proxy at the
// version tools/testbin/go.mod pins, for the local control plane of tests and
// `make dev-cluster`.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
