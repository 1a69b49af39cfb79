package aws

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/go-logr/logr"

	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/aws/awsfake"
)

// wireServer is awsfake.Server stopped at the end of the test.
type wireServer = awsfake.Server

func newWireServer(t *testing.T, f *awsfake.Fake) *wireServer {
	t.Helper()
	w := awsfake.NewServer(f)
	t.Cleanup(w.Close)
	return w
}

// newWireProvider builds a provider whose SDK clients all talk to w.
func newWireProvider(t *testing.T, w *wireServer, cs *classes, clock *fakeClock) *Provider {
	t.Helper()
	p, err := New(t.Context(), Options{
		Config: w.Config(), ClusterName: testCluster, InterruptionQueue: "tenon-prod", NodeClass: cs.lookup,
		ClusterEndpoint: "https://ABC.gr7.us-east-1.eks.amazonaws.com", ClusterCA: "Q0E=", KubernetesVersion: awsfake.KubernetesVersion,
		Logger: logr.Discard(), Now: clock.Now, RefreshInterval: -1, Catalog: testCatalog(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func itoa(i int) string { return strconv.Itoa(i) }

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
