package agent

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
)

// kubeReservedMiBPerPod is the memory the default kube-reserved sets aside
// per pod slot (11 MiB × maxPods + 255 MiB), as in the catalog.
const kubeReservedMiBPerPod = 11

// sizeForKubelet returns types as nodes with the pool's kubelet settings
// see them — a Provisioner's kubeletConfiguration (the annotation its
// NodePool carries) or the NodeClass's aws.kubelet — exactly as `tenon
// simulate` sizes them (engine/simulate/kubelet.go), so the agent launches
// what simulate predicts: maxPods and podsPerCore set the pod count (the
// default kube-reserved memory moving with it) and systemReserved comes off
// allocatable. The e2e tests compare the two.
func sizeForKubelet(types []*catalog.InstanceType, pool *v1.NodePool, class *v1.NodeClass) ([]*catalog.InstanceType, error) {
	var k *v1.KubeletConfiguration
	if raw, ok := pool.Annotations[v1alpha5.AnnotationKubeletConfiguration]; ok {
		k = &v1.KubeletConfiguration{}
		if err := json.Unmarshal([]byte(raw), k); err != nil {
			return nil, fmt.Errorf("reading the kubelet configuration annotation %s: %w", v1alpha5.AnnotationKubeletConfiguration, err)
		}
	} else if class != nil && class.Spec.AWS != nil {
		k = class.Spec.AWS.Kubelet
	}
	if k == nil || (k.MaxPods == nil && (k.PodsPerCore == nil || *k.PodsPerCore == 0) && len(k.SystemReserved) == 0) {
		return types, nil
	}
	reserved := corev1.ResourceList{}
	for _, name := range slices.Sorted(maps.Keys(k.SystemReserved)) {
		if name == "pid" {
			continue
		}
		q, err := resource.ParseQuantity(k.SystemReserved[name])
		if err != nil {
			return nil, fmt.Errorf("kubelet systemReserved %s: %w", name, err)
		}
		reserved[corev1.ResourceName(name)] = q
	}
	out := make([]*catalog.InstanceType, len(types))
	for i, it := range types {
		c := *it
		c.Capacity = it.Capacity.DeepCopy()
		c.Allocatable = it.Allocatable.DeepCopy()
		before := it.Capacity.Pods().Value()
		pods := before
		if k.MaxPods != nil {
			pods = int64(*k.MaxPods)
		}
		if k.PodsPerCore != nil && *k.PodsPerCore > 0 {
			pods = min(pods, int64(*k.PodsPerCore)*it.Capacity.Cpu().Value())
		}
		c.Capacity[corev1.ResourcePods] = *resource.NewQuantity(pods, resource.DecimalSI)
		c.Allocatable[corev1.ResourcePods] = *resource.NewQuantity(pods, resource.DecimalSI)
		memory := c.Allocatable[corev1.ResourceMemory]
		memory.Add(*resource.NewQuantity((before-pods)*kubeReservedMiBPerPod<<20, resource.BinarySI))
		c.Allocatable[corev1.ResourceMemory] = memory
		for name, q := range reserved {
			a := c.Allocatable[name]
			a.Sub(q)
			c.Allocatable[name] = a
		}
		for name, a := range c.Allocatable {
			if a.Sign() < 0 {
				c.Allocatable[name] = resource.Quantity{}
			}
		}
		out[i] = &c
	}
	return out, nil
}
