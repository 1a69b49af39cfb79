package delivery

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestResourceOf(t *testing.T) {
	for kind, want := range map[string]string{
		"NodePool": "nodepools", "NodeClass": "nodeclasses", "NodeOverlay": "nodeoverlays",
		"Provisioner": "provisioners", "Policy": "policies", "ConfigMap": "configmaps",
	} {
		if got := resourceOf(schema.GroupVersionKind{Group: "tenon.dev", Version: "v1", Kind: kind}).Resource; got != want {
			t.Errorf("%s: %s, want %s", kind, got, want)
		}
	}
}
