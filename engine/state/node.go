package state

import (
	"maps"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// nodes converts the nodes and the in-flight claims (claims with no node
// yet), sorted by name.
func nodes(in []*corev1.Node, claims []*v1.NodeClaim, types map[string]*catalog.InstanceType) ([]*Node, error) {
	claimOf := map[string]*v1.NodeClaim{}
	claimOfProvider := map[string]*v1.NodeClaim{}
	for _, c := range claims {
		if c.Status.NodeName != "" {
			claimOf[c.Status.NodeName] = c
		}
		if c.Status.ProviderID != "" {
			claimOfProvider[c.Status.ProviderID] = c
		}
	}
	out := make([]*Node, 0, len(in)+len(claims))
	seen := map[string]bool{}
	matched := map[string]bool{}
	var errs []*ObjectError
	for _, n := range in {
		if seen[n.Name] {
			errs = append(errs, objectErrorf("Node", "", n.Name, "metadata.name", "another node has the same name"))
			continue
		}
		seen[n.Name] = true
		claim := claimOf[n.Name]
		if claim == nil && n.Spec.ProviderID != "" {
			claim = claimOfProvider[n.Spec.ProviderID]
		}
		if claim != nil {
			matched[claim.Name] = true
		}
		out = append(out, ConvertNode(n, claim, types))
	}
	for _, c := range claims {
		if matched[c.Name] || c.Status.NodeName != "" {
			continue
		}
		if seen[c.Name] {
			errs = append(errs, objectErrorf(v1.NodeClaimKind, "", c.Name, "metadata.name", "a node has the same name as this in-flight claim"))
			continue
		}
		seen[c.Name] = true
		out = append(out, ConvertInFlightClaim(c, types))
	}
	if err := joinObjectErrors(errs); err != nil {
		return nil, err
	}
	byKey(out, func(n *Node) string { return n.Name })
	return out, nil
}

// ConvertNode reduces a node (and the claim it registered for, if any) to
// what the engine needs. Deprecated and Karpenter label keys are also
// copied under Tenon's keys, kubernetes.io/hostname defaults to the node's
// name, and a node that reports no allocatable gets its instance type's.
func ConvertNode(n *corev1.Node, claim *v1.NodeClaim, types map[string]*catalog.InstanceType) *Node {
	labels := normalizedLabels(n.Labels)
	if _, ok := labels[scheduling.LabelHostname]; !ok {
		labels[scheduling.LabelHostname] = n.Name
	}
	node := &Node{
		Name:              n.Name,
		Pool:              labels[scheduling.LabelNodePool],
		InstanceType:      labels[scheduling.LabelInstanceType],
		Zone:              labels[scheduling.LabelTopologyZone],
		CapacityType:      labels[scheduling.LabelCapacityType],
		Labels:            labels,
		Annotations:       maps.Clone(n.Annotations),
		Taints:            append([]corev1.Taint(nil), n.Spec.Taints...),
		Allocatable:       scheduling.ClampRequests(n.Status.Allocatable.DeepCopy()),
		Initialized:       nodeInitialized(n),
		NotReady:          nodeNotReady(n),
		Unschedulable:     n.Spec.Unschedulable,
		MarkedForDeletion: n.DeletionTimestamp != nil || hasTaint(n.Spec.Taints, v1.TaintKeyDisrupted) || (claim != nil && claim.DeletionTimestamp != nil),
		CreatedAt:         n.CreationTimestamp.Time,
		Conditions:        nodeConditions(n),
	}
	it := types[node.InstanceType]
	if len(node.Allocatable) == 0 && it != nil {
		node.Allocatable = it.Allocatable.DeepCopy()
	}
	node.PricePerHour = offeringPrice(it, node.Zone, node.CapacityType)
	if claim != nil {
		node.Claim = claim.Name
		node.TemplateHash = claim.Annotations[v1.AnnotationNodePoolHash]
		node.LastPodEventTime = claim.Status.LastPodEventTime.Time
		if node.Pool == "" {
			node.Pool = claim.Labels[v1.LabelNodePool]
		}
	}
	return node
}

// ConvertInFlightClaim turns a claim whose node has not registered into an
// in-flight node: labelled from the claim's requirements, its chosen
// instance type (or the first, cheapest, it allows), zone and capacity
// type, with that type's allocatable when the claim reports none.
func ConvertInFlightClaim(c *v1.NodeClaim, types map[string]*catalog.InstanceType) *Node {
	reqs, err := requirementsFromAPI(c.Spec.Requirements)
	if err != nil {
		// Validate rejects such claims before Build gets here.
		reqs = scheduling.Requirements{}
	}
	pick := func(status, key string) string {
		if status != "" {
			return status
		}
		if vals := reqs.Get(key).Values(); len(vals) > 0 && reqs.Has(key) {
			return firstInOrder(c.Spec.Requirements, key, vals)
		}
		return ""
	}
	node := &Node{
		Name:              c.Name,
		Pool:              c.Labels[v1.LabelNodePool],
		InstanceType:      pick(c.Status.InstanceType, scheduling.LabelInstanceType),
		Zone:              pick(c.Status.Zone, scheduling.LabelTopologyZone),
		CapacityType:      pick(c.Status.CapacityType, scheduling.LabelCapacityType),
		Annotations:       maps.Clone(c.Annotations),
		Taints:            append(coreTaints(c.Spec.Taints), coreTaints(c.Spec.StartupTaints)...),
		Allocatable:       scheduling.ClampRequests(c.Status.Allocatable.DeepCopy()),
		Claim:             c.Name,
		InFlight:          true,
		MarkedForDeletion: c.DeletionTimestamp != nil,
		CreatedAt:         c.CreationTimestamp.Time,
		TemplateHash:      c.Annotations[v1.AnnotationNodePoolHash],
		LastPodEventTime:  c.Status.LastPodEventTime.Time,
	}
	if node.Pool == "" {
		node.Pool = reqs.Labels()[scheduling.LabelNodePool]
	}
	labels := map[string]string{}
	it := types[node.InstanceType]
	if it != nil {
		maps.Copy(labels, it.Requirements.Labels())
		if len(node.Allocatable) == 0 {
			node.Allocatable = it.Allocatable.DeepCopy()
		}
	}
	maps.Copy(labels, reqs.Labels())
	maps.Copy(labels, normalizedLabels(c.Labels))
	for key, value := range map[string]string{
		scheduling.LabelInstanceType: node.InstanceType,
		scheduling.LabelTopologyZone: node.Zone,
		scheduling.LabelCapacityType: node.CapacityType,
		scheduling.LabelNodePool:     node.Pool,
		scheduling.LabelHostname:     c.Name,
	} {
		if value != "" {
			labels[key] = value
		}
	}
	node.Labels = labels
	node.PricePerHour = offeringPrice(it, node.Zone, node.CapacityType)
	return node
}

// firstInOrder returns the first of allowed in the order the claim's In
// requirement on key lists them (the agent lists instance types cheapest
// first), falling back to the smallest.
func firstInOrder(reqs []v1.NodeSelectorRequirementWithMinValues, key string, allowed []string) string {
	for _, r := range reqs {
		if scheduling.NormalizeLabelKey(r.Key) != key || r.Operator != corev1.NodeSelectorOpIn {
			continue
		}
		for _, v := range r.Values {
			for _, a := range allowed {
				if a == v {
					return v
				}
			}
		}
	}
	return allowed[0]
}

// normalizedLabels copies labels, adding each deprecated Kubernetes key's
// and each Karpenter key's value under the key Tenon uses when that is
// absent.
func normalizedLabels(in map[string]string) map[string]string {
	out := make(map[string]string, len(in)+2)
	maps.Copy(out, in)
	for k, v := range in {
		key := scheduling.NormalizeLabelKey(k)
		if tenon, ok := scheduling.FromKarpenterLabel(k); ok {
			key = tenon
		}
		if _, ok := out[key]; !ok {
			out[key] = v
		}
	}
	return out
}

// nodeInitialized reports whether a node is ready for pods: Tenon labelled
// it initialized, or it reports Ready, or it reports no conditions at all
// (a node written in a scenario file).
func nodeInitialized(n *corev1.Node) bool {
	if n.Labels[v1.LabelNodeInitialized] == "true" {
		return true
	}
	if len(n.Status.Conditions) == 0 {
		return true
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// nodeNotReady reports whether the node has a Ready condition that is not
// True.
func nodeNotReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status != corev1.ConditionTrue
		}
	}
	return false
}

func hasTaint(taints []corev1.Taint, key string) bool {
	for _, t := range taints {
		if t.Key == key {
			return true
		}
	}
	return false
}

// offeringPrice returns the price of it's offering in zone and capacity
// type, or 0 when unknown.
func offeringPrice(it *catalog.InstanceType, zone, capacityType string) float64 {
	if it == nil {
		return 0
	}
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capacityType {
			return o.PricePerHour
		}
	}
	return 0
}
