package state_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// BenchmarkBuild converts 20,000 pending pods expanded from 800 templates,
// the shape of the diverse-20k workload: the converter's share of a solve.
func BenchmarkBuild(b *testing.B) {
	objs := state.Objects{
		NodeClasses: []*v1.NodeClass{nodeClass("default")},
		NodePools:   []*v1.NodePool{nodePool("default")},
	}
	for t := range 800 {
		tmpl := pod(fmt.Sprintf("app-%d", t))
		for i := range 25 {
			objs.Pods = append(objs.Pods, &corev1.Pod{ObjectMeta: *tmpl.ObjectMeta.DeepCopy(), Spec: tmpl.Spec})
			objs.Pods[len(objs.Pods)-1].Name = fmt.Sprintf("app-%d-%d", t, i)
			objs.Pods[len(objs.Pods)-1].Labels = tmpl.Labels
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := state.Build(objs); err != nil {
			b.Fatal(err)
		}
	}
}
