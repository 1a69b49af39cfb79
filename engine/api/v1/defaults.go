package v1

// Defaults, the same as the CRDs' (the defaulting twin test compares them).
const (
	// DefaultExpireAfter is the expireAfter of pools and claims that do not set one.
	DefaultExpireAfter NillableDuration = "720h"
	// DefaultConsolidateAfter is the consolidateAfter of a pool without a disruption block.
	DefaultConsolidateAfter NillableDuration = "0s"
	// DefaultBudgetNodes is the nodes of a budget that does not set them, and of the one budget a
	// pool without budgets gets.
	DefaultBudgetNodes = "10%"
)

// SetDefaults fills the fields the API server would default, exactly as the CRD does.
func (in *NodePool) SetDefaults() {
	in.Spec.Template.Spec.setDefaults()
	if in.Spec.Disruption == nil {
		in.Spec.Disruption = &Disruption{ConsolidateAfter: DefaultConsolidateAfter}
	}
	d := in.Spec.Disruption
	if d.ConsolidationPolicy == "" {
		d.ConsolidationPolicy = ConsolidationPolicyWhenEmptyOrUnderutilized
	}
	if len(d.Budgets) == 0 {
		d.Budgets = []Budget{{Nodes: DefaultBudgetNodes}}
	}
	for i := range d.Budgets {
		if d.Budgets[i].Nodes == "" {
			d.Budgets[i].Nodes = DefaultBudgetNodes
		}
	}
}

func (in *NodeClaimTemplateSpec) setDefaults() {
	in.NodeClassRef.setDefaults()
	if in.ExpireAfter == "" {
		in.ExpireAfter = DefaultExpireAfter
	}
}

func (in *NodeClassReference) setDefaults() {
	if in == nil {
		return
	}
	if in.Group == "" {
		in.Group = Group
	}
	if in.Kind == "" {
		in.Kind = NodeClassKind
	}
}

// SetDefaults fills the fields the API server would default, exactly as the CRD does.
func (in *NodeClaim) SetDefaults() {
	in.Spec.NodeClassRef.setDefaults()
	if in.Spec.ExpireAfter == "" {
		in.Spec.ExpireAfter = DefaultExpireAfter
	}
}

// SetDefaults fills the fields the API server would default, exactly as the CRD does.
func (in *NodeClass) SetDefaults() {
	aws := in.Spec.AWS
	if aws == nil {
		return
	}
	if aws.AMIFamily == "" {
		aws.AMIFamily = AMIFamilyAL2023
	}
	if aws.MetadataOptions == nil {
		aws.MetadataOptions = &MetadataOptions{}
	}
	m := aws.MetadataOptions
	if m.HTTPEndpoint == nil {
		m.HTTPEndpoint = ptr("enabled")
	}
	if m.HTTPProtocolIPv6 == nil {
		m.HTTPProtocolIPv6 = ptr("disabled")
	}
	if m.HTTPPutResponseHopLimit == nil {
		m.HTTPPutResponseHopLimit = ptr[int64](1)
	}
	if m.HTTPTokens == nil {
		m.HTTPTokens = ptr("required")
	}
}

func ptr[T any](v T) *T { return &v }
