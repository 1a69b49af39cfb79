package simulate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestKubeletFromScenario reads kubelet settings from a NodeClass and from
// a Provisioner that uses providerRef.
func TestKubeletFromScenario(t *testing.T) {
	class := "---\napiVersion: tenon.dev/v1\nkind: NodeClass\nmetadata: {name: aws}\nspec: {aws: {role: nodes, kubelet: {maxPods: 20}}}\n"
	tests := []struct {
		name string
		data string
		pool string
		pods int64
	}{
		{"a NodeClass's aws.kubelet", header + class + `---
apiVersion: tenon.dev/v1
kind: NodePool
metadata: {name: p}
spec: {template: {spec: {nodeClassRef: {name: aws}}}}
`, "p", 20},
		{"a Provisioner's own kubeletConfiguration wins", header + class + `---
apiVersion: tenon.dev/v1alpha5
kind: Provisioner
metadata: {name: p}
spec: {providerRef: {name: aws}, kubeletConfiguration: {maxPods: 12}}
`, "p", 12},
		{"no settings", header + pool, "default", 29},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(File{Name: "k.yaml", Data: []byte(tt.data)})
			if err != nil {
				t.Fatal(err)
			}
			snap, err := s.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range snap.Pools {
				if p.Name != tt.pool {
					continue
				}
				for _, it := range p.InstanceTypes {
					if it.Name == "m5.large" {
						if got := it.Allocatable[corev1.ResourcePods]; got.Cmp(*resource.NewQuantity(tt.pods, resource.DecimalSI)) != 0 {
							t.Errorf("m5.large pods = %s, want %d", got.String(), tt.pods)
						}
						return
					}
				}
			}
			t.Fatalf("no m5.large in pool %s", tt.pool)
		})
	}
}
