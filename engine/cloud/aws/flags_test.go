package aws

import (
	"flag"
	"io"
	"testing"
)

func TestAddFlags(t *testing.T) {
	var o Options
	fs := flag.NewFlagSet("tenon agent", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	AddFlags(fs, &o)
	err := fs.Parse([]string{"--cluster-endpoint=https://x.eks.amazonaws.com", "--cluster-ca=Q0E=", "--cluster-cidr=172.20.0.0/16",
		"--cluster-dns=172.20.0.10", "--kubernetes-version=1.33"})
	if err != nil {
		t.Fatal(err)
	}
	want := Options{ClusterEndpoint: "https://x.eks.amazonaws.com", ClusterCA: "Q0E=", ClusterCIDR: "172.20.0.0/16", ClusterDNS: "172.20.0.10", KubernetesVersion: "1.33"}
	if o.ClusterEndpoint != want.ClusterEndpoint || o.ClusterCA != want.ClusterCA || o.ClusterCIDR != want.ClusterCIDR ||
		o.ClusterDNS != want.ClusterDNS || o.KubernetesVersion != want.KubernetesVersion {
		t.Errorf("options = %+v", o)
	}
}
