package state

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// kubeReservedMiBPerPod is the memory Karpenter's (and the catalog's)
// default kube-reserved sets aside per pod slot: 11 MiB × maxPods + 255 MiB.
const kubeReservedMiBPerPod = 11

// KubeletFor returns the kubelet settings a pool's nodes get: a
// Provisioner's own kubeletConfiguration (kept on the NodePool it converts
// to when it uses providerRef), else its NodeClass's aws.kubelet.
func KubeletFor(pool *v1.NodePool, class *v1.NodeClass) (*v1.KubeletConfiguration, error) {
	if raw, ok := pool.Annotations[v1alpha5.AnnotationKubeletConfiguration]; ok {
		k := &v1.KubeletConfiguration{}
		if err := json.Unmarshal([]byte(raw), k); err != nil {
			return nil, fmt.Errorf("reading the kubelet configuration: %w", err)
		}
		return k, nil
	}
	if class != nil && class.Spec.AWS != nil {
		return class.Spec.AWS.Kubelet, nil
	}
	return nil, nil
}

// WithKubelet returns the instance types as nodes with these kubelet
// settings see them (the agent launches and tenon simulate predicts with the
// same sizes), as Karpenter computes it: maxPods replaces the
// ENI-based pod limit and podsPerCore caps it at that many per vCPU (the
// default kube-reserved memory moving with the pod count), and
// systemReserved comes off cpu, memory and ephemeral-storage. Types are
// copied only when something changes. kubeReserved and eviction overrides
// are not modelled: the catalog's defaults stand.
func WithKubelet(types []*catalog.InstanceType, k *v1.KubeletConfiguration) ([]*catalog.InstanceType, error) {
	if k == nil || (k.MaxPods == nil && (k.PodsPerCore == nil || *k.PodsPerCore == 0) && len(k.SystemReserved) == 0) {
		return types, nil
	}
	reserved := corev1.ResourceList{}
	for name, v := range k.SystemReserved {
		if name == "pid" {
			continue
		}
		q, err := scheduling.ParseQuantity(v)
		if err != nil {
			return nil, fmt.Errorf("systemReserved %s: %w", name, err)
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
