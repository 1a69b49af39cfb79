package agent

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// nodeClaimFor turns a packing claim into a NodeClaim of pool: the pool's
// labels, taints, lifetimes and node class, and requirements that allow
// exactly the options the packer priced (instance types cheapest first).
func nodeClaimFor(c *packing.Claim, pool *state.Pool) (*v1.NodeClaim, error) {
	name := strings.ToLower(pool.Name + "-" + utilrand.String(5))
	var types, zones, capacityTypes []string
	for _, o := range c.Options {
		types = appendUnique(types, o.InstanceType)
		zones = appendUnique(zones, o.Zone)
		capacityTypes = appendUnique(capacityTypes, o.CapacityType)
	}
	var reqs []v1.NodeSelectorRequirementWithMinValues
	for _, spec := range c.Requirements.Specs() {
		var minValues *int32
		if spec.MinValues != nil {
			n := int32(*spec.MinValues)
			minValues = &n
		}
		switch spec.Key {
		case scheduling.LabelHostname:
			continue
		case scheduling.LabelInstanceType, scheduling.LabelTopologyZone, scheduling.LabelCapacityType:
			// Replaced below by the options; keep minValues on types.
			if spec.Key == scheduling.LabelInstanceType && minValues != nil {
				reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: spec.Key, Operator: corev1.NodeSelectorOpIn, Values: types, MinValues: minValues})
			}
			continue
		}
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{
			Key: spec.Key, Operator: corev1.NodeSelectorOperator(spec.Operator), Values: spec.Values, MinValues: minValues,
		})
	}
	if !slices.ContainsFunc(reqs, func(r v1.NodeSelectorRequirementWithMinValues) bool { return r.Key == scheduling.LabelInstanceType }) {
		reqs = append(reqs, v1.NodeSelectorRequirementWithMinValues{Key: scheduling.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: types})
	}
	reqs = append(reqs,
		v1.NodeSelectorRequirementWithMinValues{Key: scheduling.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: zones},
		v1.NodeSelectorRequirementWithMinValues{Key: scheduling.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: capacityTypes},
	)
	claim := &v1.NodeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodeClaimKind},
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      maps.Clone(pool.Labels),
			Annotations: map[string]string{v1.AnnotationNodePoolHash: pool.TemplateHash},
			Finalizers:  []string{v1.TerminationFinalizer},
		},
		Spec: v1.NodeClaimSpec{
			Taints:        apiTaints(pool.Taints),
			StartupTaints: apiTaints(pool.StartupTaints),
			Requirements:  reqs,
			Resources:     v1.ResourceRequirements{Requests: c.Requests.DeepCopy()},
			NodeClassRef:  &v1.NodeClassReference{Group: v1.Group, Kind: v1.NodeClassKind, Name: pool.NodeClass},
			ExpireAfter:   v1.NeverDuration,
		},
	}
	if claim.Labels == nil {
		claim.Labels = map[string]string{}
	}
	claim.Labels[v1.LabelNodePool] = pool.Name
	if pool.ExpireAfter != nil {
		claim.Spec.ExpireAfter = v1.NillableDuration(durationString(*pool.ExpireAfter))
	}
	if pool.TerminationGracePeriod != nil {
		d := v1.Duration(durationString(*pool.TerminationGracePeriod))
		claim.Spec.TerminationGracePeriod = &d
	}
	if errs := claim.Validate(); len(errs) > 0 {
		return nil, fmt.Errorf("the nodeclaim for pool %s would be invalid (this is always a bug in the agent): %w", pool.Name, errs.ToAggregate())
	}
	return claim, nil
}

// durationString writes d with the units s, m and h only, as the API
// accepts (whole seconds).
func durationString(d time.Duration) string {
	d = d.Round(time.Second)
	h := d / time.Hour
	m := (d % time.Hour) / time.Minute
	s := (d % time.Minute) / time.Second
	var sb strings.Builder
	if h > 0 {
		fmt.Fprintf(&sb, "%dh", h)
	}
	if m > 0 {
		fmt.Fprintf(&sb, "%dm", m)
	}
	if s > 0 || sb.Len() == 0 {
		fmt.Fprintf(&sb, "%ds", s)
	}
	return sb.String()
}

func apiTaints(in []corev1.Taint) []v1.Taint {
	if len(in) == 0 {
		return nil
	}
	out := make([]v1.Taint, len(in))
	for i, t := range in {
		out[i] = v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}
	}
	return out
}

func appendUnique(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}
