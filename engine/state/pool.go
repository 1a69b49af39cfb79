package state

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// ResourceNodes is the limit on the number of a pool's nodes (limits.nodes,
// as in Karpenter): each node counts one.
const ResourceNodes corev1.ResourceName = "nodes"

// Kinds of pool a Pool can come from.
const (
	PoolKindNodePool    = v1.NodePoolKind
	PoolKindProvisioner = v1alpha5.ProvisionerKind
)

// poolSource is a NodePool to normalise and what it came from, so errors
// name the object the user wrote.
type poolSource struct {
	kind string
	pool *v1.NodePool
	// class is the NodeClass an inline Provisioner provider converts to.
	class *v1.NodeClass
	// classField is where the pool names its node class.
	classField string
}

// pools validates the pool objects and node classes and normalises every
// NodePool and Provisioner into a Pool, sorted by weight (highest first),
// then name.
func (b *builder) pools(objs Objects) ([]*Pool, error) {
	var errs []*ObjectError
	classes := map[string]*v1.NodeClass{}
	for _, nc := range objs.NodeClasses {
		errs = append(errs, fieldErrors(v1.NodeClassKind, "", nc.Name, nc.Validate())...)
		c := nc.DeepCopy()
		c.SetDefaults()
		classes[nc.Name] = c
	}
	for _, claim := range objs.NodeClaims {
		errs = append(errs, fieldErrors(v1.NodeClaimKind, "", claim.Name, claim.Validate())...)
	}
	var sources []poolSource
	for _, np := range objs.NodePools {
		errs = append(errs, fieldErrors(v1.NodePoolKind, "", np.Name, np.Validate())...)
		sources = append(sources, poolSource{kind: PoolKindNodePool, pool: np, classField: "spec.template.spec.nodeClassRef.name"})
	}
	for _, p := range objs.Provisioners {
		if fe := p.Validate(); len(fe) > 0 {
			errs = append(errs, fieldErrors(v1alpha5.ProvisionerKind, "", p.Name, fe)...)
			continue
		}
		np, nc, err := v1alpha5.ToNodePool(p)
		if err != nil {
			errs = append(errs, objectErrorf(v1alpha5.ProvisionerKind, "", p.Name, "", "%v", err))
			continue
		}
		src := poolSource{kind: PoolKindProvisioner, pool: np, class: nc, classField: "spec.providerRef.name"}
		if nc != nil {
			src.classField = "spec.provider"
		}
		sources = append(sources, src)
	}
	if err := joinObjectErrors(errs); err != nil {
		return nil, err
	}
	seen := map[string]string{}
	var pools []*Pool
	for _, src := range sources {
		if kind, dup := seen[src.pool.Name]; dup {
			errs = append(errs, objectErrorf(src.kind, "", src.pool.Name, "metadata.name",
				"a %s is also called %q; pools share one name space, rename one", kind, src.pool.Name))
			continue
		}
		seen[src.pool.Name] = src.kind
		pool, err := b.pool(src, classes)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pools = append(pools, pool)
	}
	if err := joinObjectErrors(errs); err != nil {
		return nil, err
	}
	sortPools(pools)
	return pools, nil
}

// sortPools orders pools as the packer tries them: highest weight first,
// then by name.
func sortPools(pools []*Pool) {
	slices.SortFunc(pools, func(a, b *Pool) int {
		if a.Weight != b.Weight {
			return cmp.Compare(b.Weight, a.Weight)
		}
		return strings.Compare(a.Name, b.Name)
	})
}

func (b *builder) pool(src poolSource, classes map[string]*v1.NodeClass) (*Pool, *ObjectError) {
	np := src.pool.DeepCopy()
	np.SetDefaults()
	tmpl := &np.Spec.Template
	class := src.class
	if class == nil && tmpl.Spec.NodeClassRef != nil {
		class = classes[tmpl.Spec.NodeClassRef.Name]
	} else if class != nil {
		class = class.DeepCopy()
		class.SetDefaults()
	}
	fail := func(path, format string, args ...any) *ObjectError {
		return objectErrorf(src.kind, "", np.Name, path, format, args...)
	}

	labels := maps.Clone(tmpl.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[scheduling.LabelNodePool] = np.Name
	reqs, err := requirementsFromAPI(tmpl.Spec.Requirements)
	if err != nil {
		return nil, fail("spec.template.spec.requirements", "%v", err)
	}
	reqs.Add(requirementsFromLabelMap(labels)...)

	pool := &Pool{
		Name:          np.Name,
		Kind:          src.kind,
		Labels:        labels,
		Annotations:   maps.Clone(tmpl.Annotations),
		Requirements:  reqs,
		Taints:        coreTaints(tmpl.Spec.Taints),
		StartupTaints: coreTaints(tmpl.Spec.StartupTaints),
		Limits:        scheduling.ClampLimits(np.Spec.Limits.DeepCopy()),
		// Provisioners have no such switch: their pools keep bare pods.
		DisruptBarePods:            src.kind == PoolKindNodePool && np.Annotations[AnnotationDisruptBarePods] == "true",
		IgnoreKarpenterAnnotations: !np.Spec.Disruption.HonorsKarpenterAnnotations(),
		Repair:                     repairOf(np.Spec.Disruption),
	}
	if pool.Disruption, err = disruption(np.Spec.Disruption); err != nil {
		return nil, fail("spec.disruption", "%v", err)
	}
	if np.Spec.Weight != nil {
		pool.Weight = *np.Spec.Weight
	}
	if np.Spec.Buffer != nil {
		pool.Buffer = np.Spec.Buffer.DeepCopy()
	}
	if np.Spec.Replicas != nil {
		r := *np.Spec.Replicas
		pool.Replicas = &r
	}
	if class != nil {
		pool.NodeClass = class.Name
		pool.Class = class
	}
	if d, ok := tmpl.Spec.ExpireAfter.Duration(); ok {
		pool.ExpireAfter = &d
	}
	if tmpl.Spec.TerminationGracePeriod != nil {
		if d, ok := tmpl.Spec.TerminationGracePeriod.Duration(); ok {
			pool.TerminationGracePeriod = &d
		}
	}
	if pool.TemplateHash, err = TemplateHash(tmpl, class); err != nil {
		return nil, fail("spec.template", "%v", err)
	}
	if b.opts.instanceTypes != nil {
		types, err := b.opts.instanceTypes(np, class)
		if err != nil {
			return nil, fail(src.classField, "%v", err)
		}
		pool.InstanceTypes = types
	}
	return pool, nil
}

// TemplateHash returns a stable hash of a pool's node template (metadata
// and spec) and its node class's spec, with defaults applied by the caller:
// nodes launched from a template whose hash has since changed have drifted.
// Map keys are serialised sorted, so the hash does not depend on map order.
func TemplateHash(tmpl *v1.NodeClaimTemplate, class *v1.NodeClass) (string, error) {
	in := struct {
		Template  *v1.NodeClaimTemplate `json:"template"`
		NodeClass *v1.NodeClassSpec     `json:"nodeClass,omitempty"`
	}{Template: tmpl}
	if class != nil {
		in.NodeClass = &class.Spec
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return "", fmt.Errorf("hashing the node template: %w", err)
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8]), nil
}

// requirementsFromAPI parses API requirements, deprecated label keys
// normalised, minValues kept.
func requirementsFromAPI(in []v1.NodeSelectorRequirementWithMinValues) (scheduling.Requirements, error) {
	specs := make([]scheduling.RequirementSpec, len(in))
	for i, r := range in {
		specs[i] = scheduling.RequirementSpec{
			Key:      scheduling.NormalizeLabelKey(r.Key),
			Operator: string(r.Operator),
			Values:   r.Values,
		}
		if r.MinValues != nil {
			n := int(*r.MinValues)
			specs[i].MinValues = &n
		}
	}
	reqs, err := scheduling.RequirementsFromSpecs(specs...)
	if err != nil {
		return nil, err
	}
	if reqs == nil {
		reqs = scheduling.Requirements{}
	}
	return reqs, nil
}

// requirementsFromLabelMap returns one In requirement per label, sorted by
// key.
func requirementsFromLabelMap(labels map[string]string) []scheduling.Requirement {
	reqs := scheduling.RequirementsFromLabels(labels)
	out := make([]scheduling.Requirement, 0, len(reqs))
	for _, k := range reqs.Keys() {
		out = append(out, reqs[k])
	}
	return out
}

func coreTaints(in []v1.Taint) []corev1.Taint {
	if len(in) == 0 {
		return nil
	}
	out := make([]corev1.Taint, len(in))
	for i, t := range in {
		out[i] = t.ToCore()
	}
	return out
}

// disruption converts a defaulted, validated disruption block.
func disruption(d *v1.Disruption) (Disruption, error) {
	if d == nil {
		return Disruption{}, nil
	}
	out := Disruption{ConsolidationPolicy: string(d.ConsolidationPolicy)}
	if v, ok := d.ConsolidateAfter.Duration(); ok {
		out.ConsolidateAfter = &v
	}
	for _, b := range d.Budgets {
		budget := Budget{Nodes: b.Nodes}
		if b.Schedule != nil {
			budget.Schedule = *b.Schedule
		}
		if b.Duration != nil {
			if v, ok := b.Duration.Duration(); ok {
				budget.Duration = &v
			}
		}
		for _, r := range b.Reasons {
			budget.Reasons = append(budget.Reasons, string(r))
		}
		out.Budgets = append(out.Budgets, budget)
	}
	var err error
	if out.MinSavingsPerHour, err = usdPerHour(d.MinSavingsPerHour); err != nil {
		return out, fmt.Errorf("minSavingsPerHour: %w", err)
	}
	if out.MinSavingsPerPod, err = usdPerHour(d.MinSavingsPerPod); err != nil {
		return out, fmt.Errorf("minSavingsPerPod: %w", err)
	}
	if d.MinSavingsPercent != nil {
		v := float64(*d.MinSavingsPercent)
		out.MinSavingsPercent = &v
	}
	return out, nil
}

// usdPerHour parses an optional amount in USD per hour; nil stays nil.
func usdPerHour(s *string) (*float64, error) {
	if s == nil {
		return nil, nil
	}
	v, err := v1.ParseUSDPerHour(*s)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// fieldErrors converts API validation errors into ObjectErrors.
func fieldErrors(kind, namespace, name string, errs field.ErrorList) []*ObjectError {
	out := make([]*ObjectError, 0, len(errs))
	for _, e := range errs {
		out = append(out, &ObjectError{Kind: kind, Namespace: namespace, Name: name, Field: e.Field, Detail: e.ErrorBody()})
	}
	return out
}

// instanceTypeIndex maps every pool's instance types by name, for pricing
// nodes and sizing claims. Pools sharing a catalog share the types.
func instanceTypeIndex(pools []*Pool) map[string]*catalog.InstanceType {
	index := map[string]*catalog.InstanceType{}
	for _, p := range pools {
		for _, it := range p.InstanceTypes {
			if _, ok := index[it.Name]; !ok {
				index[it.Name] = it
			}
		}
	}
	return index
}
