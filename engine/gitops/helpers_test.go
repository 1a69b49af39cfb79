package gitops

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
)

// nodePool builds a valid NodePool allowing the given capacity types.
func nodePool(name string, capacityTypes ...string) *v1.NodePool {
	return &v1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.NodePoolSpec{
			Template: v1.NodeClaimTemplate{Spec: v1.NodeClaimTemplateSpec{
				NodeClassRef: &v1.NodeClassReference{Name: "default"},
				Requirements: []v1.NodeSelectorRequirementWithMinValues{{
					Key: "tenon.dev/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: capacityTypes,
				}},
			}},
		},
	}
}

func nodeClass(name string) *v1.NodeClass {
	return &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeClassSpec{KWOK: &v1.KWOKNodeClassSpec{}}}
}

func provisioner(name string) *v1alpha5.Provisioner {
	return &v1alpha5.Provisioner{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha5.ProvisionerSpec{ProviderRef: &v1alpha5.ProviderRef{Name: "default"}},
	}
}

func objects(objs ...runtime.Object) []runtime.Object { return objs }

func open(t *testing.T, opts Options) *Repository {
	t.Helper()
	r, err := Open(opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return r
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func apply(t *testing.T, w *Writer, change Change) Result {
	t.Helper()
	res, err := w.Apply(testContext(t), change)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return res
}

func read(t *testing.T, r *Reader) *Snapshot {
	t.Helper()
	snap, err := r.Read(testContext(t))
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return snap
}

// refs lists a snapshot's objects.
func refs(s *Snapshot) []Ref {
	out := make([]Ref, 0, len(s.Objects))
	for _, o := range s.Objects {
		out = append(out, o.Ref())
	}
	return out
}
