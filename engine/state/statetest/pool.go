package statetest

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Zones are the zones Pool allows.
var Zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// Catalog is the embedded catalog, loaded once.
var Catalog = sync.OnceValue(func() *catalog.Catalog {
	c, err := catalog.New()
	if err != nil {
		panic(err)
	}
	return c
})

// PoolOption changes a pool Pool builds.
type PoolOption func(*state.Pool)

// Pool builds a NodePool named name allowing amd64 on-demand nodes in
// Zones, offered every instance type of the catalog.
func Pool(name string, opts ...PoolOption) *state.Pool {
	p := &state.Pool{
		Name:   name,
		Kind:   state.PoolKindNodePool,
		Labels: map[string]string{scheduling.LabelNodePool: name},
		Requirements: scheduling.NewRequirements(
			scheduling.In(scheduling.LabelNodePool, name),
			scheduling.In(scheduling.LabelArch, scheduling.ArchAMD64),
			scheduling.In(scheduling.LabelCapacityType, scheduling.CapacityTypeOnDemand),
			scheduling.In(scheduling.LabelTopologyZone, Zones...),
		),
		InstanceTypes: Catalog().InstanceTypes(),
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

// WithRequirement replaces the pool's requirement on r's key by r.
func WithRequirement(r scheduling.Requirement) PoolOption {
	return func(p *state.Pool) { p.Requirements[r.Key] = r }
}

// WithSpot allows spot besides on-demand.
func WithSpot() PoolOption {
	return WithRequirement(scheduling.In(scheduling.LabelCapacityType, scheduling.CapacityTypeOnDemand, scheduling.CapacityTypeSpot))
}

// WithTaint adds a taint to the pool's nodes.
func WithTaint(key, value string, effect corev1.TaintEffect) PoolOption {
	return func(p *state.Pool) { p.Taints = append(p.Taints, corev1.Taint{Key: key, Value: value, Effect: effect}) }
}

// WithLimit caps the pool's total capacity of one resource.
func WithLimit(name corev1.ResourceName, quantity string) PoolOption {
	return func(p *state.Pool) {
		if p.Limits == nil {
			p.Limits = corev1.ResourceList{}
		}
		p.Limits[name] = resource.MustParse(quantity)
	}
}

// WithWeight sets the pool's weight.
func WithWeight(w int32) PoolOption { return func(p *state.Pool) { p.Weight = w } }

// WithTemplateLabel puts a label on the pool's nodes (and requires it).
func WithTemplateLabel(key, value string) PoolOption {
	return func(p *state.Pool) {
		p.Labels[key] = value
		p.Requirements[key] = scheduling.In(key, value)
	}
}

// WithConsolidation makes the pool consolidate underutilized nodes at
// once (WhenEmptyOrUnderutilized, consolidateAfter 0) within a 100% budget.
func WithConsolidation() PoolOption {
	return func(p *state.Pool) {
		zero := time.Duration(0)
		p.Disruption = state.Disruption{
			ConsolidationPolicy: "WhenEmptyOrUnderutilized", ConsolidateAfter: &zero,
			Budgets: []state.Budget{{Nodes: "100%"}},
		}
	}
}

// WithBudgets replaces the pool's disruption budgets.
func WithBudgets(b ...state.Budget) PoolOption {
	return func(p *state.Pool) { p.Disruption.Budgets = b }
}

// WithConsolidateAfter sets how long a node must be stable before it is
// consolidated.
func WithConsolidateAfter(d time.Duration) PoolOption {
	return func(p *state.Pool) { p.Disruption.ConsolidateAfter = &d }
}

// WithTemplateHash sets the hash of the template the pool launches nodes
// from.
func WithTemplateHash(hash string) PoolOption {
	return func(p *state.Pool) { p.TemplateHash = hash }
}
