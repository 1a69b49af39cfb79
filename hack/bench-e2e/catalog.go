package main

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
)

// Karpenter's AWS label keys for what Tenon calls tenon.dev/instance-category and
// tenon.dev/instance-generation; the instance-types file carries them on every offering so
// that Karpenter's NodePool can name them.
const (
	labelCategory   = "karpenter.k8s.aws/instance-category"
	labelGeneration = "karpenter.k8s.aws/instance-generation"
)

// karpenterType is one entry of the KWOK provider's instance-types file
// (INSTANCE_TYPES_FILE_PATH; sigs.k8s.io/karpenter/kwok/cloudprovider's InstanceTypeOptions).
type karpenterType struct {
	Name             string              `json:"name"`
	Offerings        []karpenterOffering `json:"offerings"`
	Architecture     string              `json:"architecture"`
	OperatingSystems []string            `json:"operatingSystems"`
	Resources        corev1.ResourceList `json:"resources"`
}

type karpenterOffering struct {
	Price        float64                          `json:"Price"`
	Available    bool                             `json:"Available"`
	Requirements []corev1.NodeSelectorRequirement `json:"Requirements"`
}

// karpenterOverhead is what the KWOK provider subtracts from every type's resources as
// kube-reserved (newInstanceType): the file adds it back, so that Karpenter's allocatable is
// Tenon's.
var karpenterOverhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("10Mi")}

// karpenterInstanceTypes writes Tenon's embedded catalog, restricted to what the shared policy
// allows (the types and offerings Tenon's NodePool may buy), as the KWOK provider's
// instance-types file: same names, allocatable, pods and prices.
func karpenterInstanceTypes() ([]byte, error) {
	pool, err := policyPool()
	if err != nil {
		return nil, err
	}
	allowed := pool.Offerings()
	var out []karpenterType
	for _, it := range pool.InstanceTypes {
		if !pool.Launchable(it) {
			continue
		}
		kt := karpenterType{Name: it.Name, Architecture: it.Requirements.Get(scheduling.LabelArch).Values()[0], OperatingSystems: []string{"linux"},
			Resources: corev1.ResourceList{}}
		for name, q := range it.Allocatable {
			switch name {
			case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods:
				q = q.DeepCopy()
				if o, ok := karpenterOverhead[name]; ok {
					q.Add(o)
				}
				kt.Resources[name] = q
			}
		}
		labels := it.Requirements.Labels()
		for _, o := range it.Offerings {
			if !allowed.Allows(o) {
				continue
			}
			kt.Offerings = append(kt.Offerings, karpenterOffering{Price: o.PricePerHour, Available: true, Requirements: []corev1.NodeSelectorRequirement{
				{Key: "karpenter.sh/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: []string{o.CapacityType}},
				{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{o.Zone}},
				{Key: labelCategory, Operator: corev1.NodeSelectorOpIn, Values: []string{labels[scheduling.LabelInstanceCategory]}},
				{Key: labelGeneration, Operator: corev1.NodeSelectorOpIn, Values: []string{labels[scheduling.LabelInstanceGeneration]}},
			}})
		}
		if len(kt.Offerings) > 0 {
			out = append(out, kt)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the shared policy allows no instance type of the catalog")
	}
	return json.MarshalIndent(out, "", " ")
}

// policyPool is Tenon's NodePool of the shared policy, with the embedded catalog's types.
func policyPool() (*state.Pool, error) {
	objs, err := kube.ReadData("tenon-policy.yaml", []byte(tenonPolicy("30s")))
	if err != nil {
		return nil, err
	}
	var in state.Objects
	for _, u := range objs {
		data, err := u.MarshalJSON()
		if err != nil {
			return nil, err
		}
		switch u.GetKind() {
		case v1.NodePoolKind:
			np := &v1.NodePool{}
			if err := yaml.Unmarshal(data, np); err != nil {
				return nil, err
			}
			in.NodePools = append(in.NodePools, np)
		case v1.NodeClassKind:
			nc := &v1.NodeClass{}
			if err := yaml.Unmarshal(data, nc); err != nil {
				return nil, err
			}
			in.NodeClasses = append(in.NodeClasses, nc)
		}
	}
	cat, err := catalog.New()
	if err != nil {
		return nil, err
	}
	snap, err := state.Build(in, state.WithInstanceTypes(func(*v1.NodePool, *v1.NodeClass) ([]*catalog.InstanceType, error) {
		return cat.InstanceTypes(), nil
	}))
	if err != nil {
		return nil, err
	}
	if len(snap.Pools) != 1 {
		return nil, fmt.Errorf("the shared policy has %d pools, want 1", len(snap.Pools))
	}
	return snap.Pools[0], nil
}

// pricer prices nodes from the embedded catalog, whichever engine launched them.
type pricer struct{ cat *catalog.Catalog }

func newPricer() (*pricer, error) {
	cat, err := catalog.New()
	if err != nil {
		return nil, err
	}
	return &pricer{cat: cat}, nil
}

// price is the price of a node with these labels (Tenon's or Karpenter's keys), 0 when unknown.
func (p *pricer) price(labels map[string]string) float64 {
	it, ok := p.cat.Get(labels[corev1.LabelInstanceTypeStable])
	if !ok {
		return 0
	}
	ct := labels[scheduling.LabelCapacityType]
	if ct == "" {
		ct = labels["karpenter.sh/capacity-type"]
	}
	for _, o := range it.Offerings {
		if o.Zone == labels[corev1.LabelTopologyZone] && o.CapacityType == ct {
			return o.PricePerHour
		}
	}
	return 0
}
