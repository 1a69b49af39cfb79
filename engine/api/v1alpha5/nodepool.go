package v1alpha5

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// Annotations on the NodePool that keep what a NodePool has no field for, so FromNodePool
// restores the Provisioner exactly. FromNodePool removes them again.
const (
	// AnnotationConsolidation holds spec.consolidation as JSON when it is set but not
	// {enabled: true} (which the disruption block says on its own).
	AnnotationConsolidation = Group + "/v1alpha5-consolidation"
	// AnnotationLimits holds spec.limits as JSON when it is set without resources.
	AnnotationLimits = Group + "/v1alpha5-limits"
	// AnnotationKubeletConfiguration holds spec.kubeletConfiguration as JSON when the
	// provisioner uses providerRef: the kubelet settings of a v1 pool live on its NodeClass,
	// which a provisioner that references one does not own.
	AnnotationKubeletConfiguration = Group + "/v1alpha5-kubelet-configuration"
	// AnnotationLastScaleTime holds status.lastScaleTime (RFC 3339).
	AnnotationLastScaleTime = Group + "/v1alpha5-last-scale-time"
)

var provisionerAnnotations = []string{AnnotationConsolidation, AnnotationLimits, AnnotationKubeletConfiguration, AnnotationLastScaleTime}

// ToNodePool returns the NodePool a Provisioner is, and, when its provider is inline, the
// NodeClass named after it that holds the provider (nil with providerRef). The mapping:
//
//   - labels and annotations → template.metadata; requirements, taints, startupTaints →
//     template.spec; weight and limits.resources → the same; providerRef → nodeClassRef
//     (apiVersion tenon.dev/v1 → group tenon.dev; empty stays empty, for the default)
//   - ttlSecondsUntilExpired N → expireAfter "Ns"; absent → "Never"
//   - ttlSecondsAfterEmpty N → disruption {WhenEmpty, consolidateAfter "Ns"};
//     consolidation.enabled → {WhenEmptyOrUnderutilized, "0s"}; neither → {WhenEmpty, "Never"};
//     consolidation's minSavingsPerHour, minSavingsPercent, minSavingsPerPod → disruption's
//   - provider → NodeClass aws: amiFamily, instanceProfile, tags, and each selector map as one
//     selector term with those tags; kubeletConfiguration → aws.kubelet
//   - status resources and conditions → NodePool status
//
// What has no field in v1 goes into the annotations above. The Provisioner should be valid:
// ToNodePool refuses only what it cannot map at all.
func ToNodePool(p *Provisioner) (*v1.NodePool, *v1.NodeClass, error) {
	spec := &p.Spec
	switch {
	case spec.Provider == nil && spec.ProviderRef == nil:
		return nil, nil, fmt.Errorf("mapping provisioner %s to a nodepool: %s", p.Name, msgProviderRequired)
	case spec.Provider != nil && spec.ProviderRef != nil:
		return nil, nil, fmt.Errorf("mapping provisioner %s to a nodepool: %s", p.Name, msgProviderExclusive)
	}
	disruption, err := disruptionToV1(spec)
	if err != nil {
		return nil, nil, fmt.Errorf("mapping provisioner %s to a nodepool: %w", p.Name, err)
	}
	annotations := map[string]string{}
	if c := spec.Consolidation; c != nil && (c.Enabled == nil || !*c.Enabled) {
		// Only enabled: the thresholds have fields of their own in the pool's disruption.
		annotations[AnnotationConsolidation] = mustJSON(&Consolidation{Enabled: c.Enabled})
	}
	if spec.Limits != nil && spec.Limits.Resources == nil {
		annotations[AnnotationLimits] = mustJSON(spec.Limits)
	}
	if spec.ProviderRef != nil && spec.KubeletConfiguration != nil {
		annotations[AnnotationKubeletConfiguration] = mustJSON(spec.KubeletConfiguration)
	}
	if t := p.Status.LastScaleTime; t != nil {
		annotations[AnnotationLastScaleTime] = t.UTC().Format(time.RFC3339Nano)
	}

	np := &v1.NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodePoolKind},
		ObjectMeta: *p.ObjectMeta.DeepCopy(),
		Spec: v1.NodePoolSpec{
			Template: v1.NodeClaimTemplate{
				TemplateObjectMeta: v1.TemplateObjectMeta{
					Labels:      castMap[string, LabelValue, string](spec.Labels),
					Annotations: maps.Clone(spec.Annotations),
				},
				Spec: v1.NodeClaimTemplateSpec{
					Requirements:  requirementsToV1(spec.Requirements),
					Taints:        taintsToV1(spec.Taints),
					StartupTaints: taintsToV1(spec.StartupTaints),
					NodeClassRef:  nodeClassRef(p),
					ExpireAfter:   secondsToDuration(spec.TTLSecondsUntilExpired),
				},
			},
			Disruption: disruption,
			Weight:     copyPtr(spec.Weight),
		},
		Status: v1.NodePoolStatus{
			Resources:  p.Status.Resources.DeepCopy(),
			Conditions: slices.Clone(p.Status.Conditions),
		},
	}
	if spec.Limits != nil {
		np.Spec.Limits = spec.Limits.Resources.DeepCopy()
	}
	if len(annotations) > 0 {
		if np.Annotations == nil {
			np.Annotations = map[string]string{}
		}
		maps.Copy(np.Annotations, annotations)
	}
	if spec.Provider == nil {
		return np, nil, nil
	}
	nc := &v1.NodeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodeClassKind},
		ObjectMeta: metav1.ObjectMeta{Name: p.Name},
		Spec:       v1.NodeClassSpec{AWS: providerToV1(spec.Provider, spec.KubeletConfiguration)},
	}
	return np, nc, nil
}

func disruptionToV1(spec *ProvisionerSpec) (*v1.Disruption, error) {
	c := spec.Consolidation
	consolidate := c != nil && c.Enabled != nil && *c.Enabled
	var d *v1.Disruption
	switch {
	case consolidate && spec.TTLSecondsAfterEmpty != nil:
		return nil, fmt.Errorf("%s", msgTTLAfterEmptyWithConsolidation)
	case consolidate:
		d = &v1.Disruption{ConsolidationPolicy: v1.ConsolidationPolicyWhenEmptyOrUnderutilized, ConsolidateAfter: "0s"}
	default:
		d = &v1.Disruption{ConsolidationPolicy: v1.ConsolidationPolicyWhenEmpty, ConsolidateAfter: secondsToDuration(spec.TTLSecondsAfterEmpty)}
	}
	if c != nil {
		d.MinSavingsPerHour, d.MinSavingsPercent, d.MinSavingsPerPod = copyPtr(c.MinSavingsPerHour), copyPtr(c.MinSavingsPercent), copyPtr(c.MinSavingsPerPod)
	}
	return d, nil
}

func nodeClassRef(p *Provisioner) *v1.NodeClassReference {
	ref := p.Spec.ProviderRef
	if ref == nil {
		return &v1.NodeClassReference{Group: v1.Group, Kind: v1.NodeClassKind, Name: p.Name}
	}
	out := &v1.NodeClassReference{Kind: ref.Kind, Name: ref.Name}
	if ref.APIVersion != "" {
		out.Group = v1.Group // the only apiVersion a providerRef may have is tenon.dev/v1
	}
	return out
}

func providerToV1(p *Provider, kubelet *v1.KubeletConfiguration) *v1.AWSNodeClassSpec {
	out := &v1.AWSNodeClassSpec{
		AMIFamily:       p.AMIFamily,
		InstanceProfile: p.InstanceProfile,
		Tags:            maps.Clone(p.Tags),
		Kubelet:         kubelet.DeepCopy(),
	}
	if p.AMISelector != nil {
		out.AMISelectorTerms = []v1.AMISelectorTerm{{Tags: maps.Clone(p.AMISelector)}}
	}
	if p.SubnetSelector != nil {
		out.SubnetSelectorTerms = []v1.SubnetSelectorTerm{{Tags: maps.Clone(p.SubnetSelector)}}
	}
	if p.SecurityGroupSelector != nil {
		out.SecurityGroupSelectorTerms = []v1.SecurityGroupSelectorTerm{{Tags: maps.Clone(p.SecurityGroupSelector)}}
	}
	return out
}

func requirementsToV1(reqs []NodeSelectorRequirement) []v1.NodeSelectorRequirementWithMinValues {
	if reqs == nil {
		return nil
	}
	out := make([]v1.NodeSelectorRequirementWithMinValues, len(reqs))
	for i, r := range reqs {
		out[i] = v1.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: r.Operator, Values: slices.Clone(r.Values)}
	}
	return out
}

func taintsToV1(taints []Taint) []v1.Taint {
	if taints == nil {
		return nil
	}
	out := make([]v1.Taint, len(taints))
	for i, t := range taints {
		out[i] = v1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}
	}
	return out
}

// FromNodePool returns the Provisioner a NodePool is. nc is the NodeClass that holds the
// provisioner's inline provider (the one ToNodePool made, named after the pool), or nil when
// the provisioner references its NodeClass with providerRef. It inverts ToNodePool exactly,
// and also reads pools written by hand or defaulted by the API server; what a Provisioner
// cannot express (budgets, minValues, Gte and Lte, terminationGracePeriod, consolidateAfter
// other than 0s when underutilized nodes are consolidated, NodeClass settings the inline
// provider lacks) is an error naming the field.
func FromNodePool(np *v1.NodePool, nc *v1.NodeClass) (*Provisioner, error) {
	var errs field.ErrorList
	tmpl := &np.Spec.Template
	p := &Provisioner{
		TypeMeta:   metav1.TypeMeta{APIVersion: SchemeGroupVersion.String(), Kind: ProvisionerKind},
		ObjectMeta: *np.ObjectMeta.DeepCopy(),
		Spec: ProvisionerSpec{
			Annotations:   maps.Clone(tmpl.Annotations),
			Labels:        castMap[string, string, LabelValue](tmpl.Labels),
			Taints:        taintsFromV1(tmpl.Spec.Taints),
			StartupTaints: taintsFromV1(tmpl.Spec.StartupTaints),
			Weight:        copyPtr(np.Spec.Weight),
		},
		Status: ProvisionerStatus{
			Resources:  np.Status.Resources.DeepCopy(),
			Conditions: slices.Clone(np.Status.Conditions),
		},
	}
	for _, k := range provisionerAnnotations {
		delete(p.Annotations, k)
	}
	if len(p.Annotations) == 0 {
		p.Annotations = nil
	}
	annotations := np.Annotations
	specPath := field.NewPath("spec", "template", "spec")

	var err error
	if p.Spec.Requirements, err = requirementsFromV1(tmpl.Spec.Requirements); err != nil {
		errs = append(errs, field.Forbidden(specPath.Child("requirements"), err.Error()))
	}
	if tmpl.Spec.TerminationGracePeriod != nil {
		errs = append(errs, field.Forbidden(specPath.Child("terminationGracePeriod"), "a Provisioner has no terminationGracePeriod"))
	}
	if p.Spec.TTLSecondsUntilExpired, err = durationToSeconds(orDefault(tmpl.Spec.ExpireAfter, v1.DefaultExpireAfter)); err != nil {
		errs = append(errs, field.Invalid(specPath.Child("expireAfter"), tmpl.Spec.ExpireAfter, err.Error()))
	}
	errs = append(errs, disruptionFromV1(np, &p.Spec)...)
	if np.Spec.Limits != nil {
		p.Spec.Limits = &Limits{Resources: np.Spec.Limits.DeepCopy()}
	} else if raw, ok := annotations[AnnotationLimits]; ok {
		errs = append(errs, fromJSON(raw, AnnotationLimits, &p.Spec.Limits)...)
	}
	if raw, ok := annotations[AnnotationLastScaleTime]; ok {
		t, err := time.Parse(time.RFC3339Nano, raw)
		if err != nil {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "annotations").Key(AnnotationLastScaleTime), raw, err.Error()))
		} else {
			// Local, as metav1.Time decodes it, so a decoded Provisioner round-trips exactly.
			p.Status.LastScaleTime = &metav1.Time{Time: t.Local()}
		}
	}
	errs = append(errs, providerFromV1(np, nc, &p.Spec)...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("mapping nodepool %s to a provisioner: %w", np.Name, errs.ToAggregate())
	}
	return p, nil
}

func disruptionFromV1(np *v1.NodePool, spec *ProvisionerSpec) field.ErrorList {
	path := field.NewPath("spec", "disruption")
	d := np.Spec.Disruption
	if d == nil {
		d = &v1.Disruption{ConsolidateAfter: v1.DefaultConsolidateAfter}
	}
	var errs field.ErrorList
	if len(d.Budgets) > 0 && !equality.Semantic.DeepEqual(d.Budgets, []v1.Budget{{Nodes: v1.DefaultBudgetNodes}}) {
		errs = append(errs, field.Forbidden(path.Child("budgets"), "a Provisioner has no disruption budgets; remove them or keep the NodePool"))
	}
	raw, hasConsolidation := np.Annotations[AnnotationConsolidation]
	if hasConsolidation {
		errs = append(errs, fromJSON(raw, AnnotationConsolidation, &spec.Consolidation)...)
	}
	policy := d.ConsolidationPolicy
	if policy == "" {
		policy = v1.ConsolidationPolicyWhenEmptyOrUnderutilized
	}
	switch {
	case policy == v1.ConsolidationPolicyWhenEmpty:
		ttl, err := durationToSeconds(d.ConsolidateAfter)
		if err != nil {
			errs = append(errs, field.Invalid(path.Child("consolidateAfter"), d.ConsolidateAfter, err.Error()))
		}
		spec.TTLSecondsAfterEmpty = ttl
	case d.ConsolidateAfter.IsNever():
		// Consolidation off: a Provisioner with neither ttlSecondsAfterEmpty nor consolidation.
	case d.ConsolidateAfter == "0s":
		if hasConsolidation {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "annotations").Key(AnnotationConsolidation), raw,
				"the pool consolidates underutilized nodes, but the annotation says consolidation is not enabled; remove the annotation"))
		}
		enabled := true
		spec.Consolidation = &Consolidation{Enabled: &enabled}
	default:
		errs = append(errs, field.Forbidden(path.Child("consolidateAfter"),
			fmt.Sprintf("a Provisioner consolidates underutilized nodes at once; it cannot wait %s", d.ConsolidateAfter)))
	}
	if d.MinSavingsPerHour != nil || d.MinSavingsPercent != nil || d.MinSavingsPerPod != nil {
		if spec.Consolidation == nil {
			spec.Consolidation = &Consolidation{}
		}
		spec.Consolidation.MinSavingsPerHour, spec.Consolidation.MinSavingsPercent, spec.Consolidation.MinSavingsPerPod =
			copyPtr(d.MinSavingsPerHour), copyPtr(d.MinSavingsPercent), copyPtr(d.MinSavingsPerPod)
	}
	return errs
}

func providerFromV1(np *v1.NodePool, nc *v1.NodeClass, spec *ProvisionerSpec) field.ErrorList {
	ref := np.Spec.Template.Spec.NodeClassRef
	refPath := field.NewPath("spec", "template", "spec", "nodeClassRef")
	if ref == nil {
		return field.ErrorList{field.Required(refPath, "a Provisioner needs a NodeClass")}
	}
	if nc == nil {
		spec.ProviderRef = &ProviderRef{Kind: ref.Kind, Name: ref.Name}
		if ref.Group != "" {
			spec.ProviderRef.APIVersion = ref.Group + "/" + v1.Version
		}
		if raw, ok := np.Annotations[AnnotationKubeletConfiguration]; ok {
			return fromJSON(raw, AnnotationKubeletConfiguration, &spec.KubeletConfiguration)
		}
		return nil
	}
	if nc.Name != ref.Name {
		return field.ErrorList{field.Invalid(refPath.Child("name"), ref.Name,
			fmt.Sprintf("the inline provider's NodeClass is %s; pass the NodeClass the pool references, or nil for providerRef", nc.Name))}
	}
	aws := nc.Spec.AWS
	path := field.NewPath("nodeclass", "spec", "aws")
	if aws == nil {
		return field.ErrorList{field.Required(path, "a Provisioner's inline provider is AWS; a kwok NodeClass needs providerRef")}
	}
	var errs field.ErrorList
	forbid := func(name string, set bool) {
		if set {
			errs = append(errs, field.Forbidden(path.Child(name), "a Provisioner's inline provider has no "+name+"; use providerRef to keep the NodeClass"))
		}
	}
	forbid("role", aws.Role != "")
	forbid("blockDeviceMappings", aws.BlockDeviceMappings != nil)
	forbid("metadataOptions", aws.MetadataOptions != nil && !isDefaultMetadataOptions(aws.MetadataOptions))
	forbid("userData", aws.UserData != nil)
	p := &Provider{AMIFamily: aws.AMIFamily, InstanceProfile: aws.InstanceProfile, Tags: maps.Clone(aws.Tags)}
	var err error
	if p.AMISelector, err = selectorFromV1(aws.AMISelectorTerms, func(t v1.AMISelectorTerm) (map[string]string, bool) {
		return t.Tags, t.ID == "" && t.Name == "" && t.Owner == "" && t.SSMParameter == ""
	}); err != nil {
		errs = append(errs, field.Forbidden(path.Child("amiSelectorTerms"), err.Error()))
	}
	if p.SubnetSelector, err = selectorFromV1(aws.SubnetSelectorTerms, func(t v1.SubnetSelectorTerm) (map[string]string, bool) {
		return t.Tags, t.ID == ""
	}); err != nil {
		errs = append(errs, field.Forbidden(path.Child("subnetSelectorTerms"), err.Error()))
	}
	if p.SecurityGroupSelector, err = selectorFromV1(aws.SecurityGroupSelectorTerms, func(t v1.SecurityGroupSelectorTerm) (map[string]string, bool) {
		return t.Tags, t.ID == "" && t.Name == ""
	}); err != nil {
		errs = append(errs, field.Forbidden(path.Child("securityGroupSelectorTerms"), err.Error()))
	}
	spec.Provider = p
	spec.KubeletConfiguration = aws.Kubelet.DeepCopy()
	return errs
}

// selectorFromV1 turns at most one selector term with only tags into a selector map.
func selectorFromV1[T any](terms []T, tagsOnly func(T) (map[string]string, bool)) (map[string]string, error) {
	switch len(terms) {
	case 0:
		return nil, nil
	case 1:
		if tags, ok := tagsOnly(terms[0]); ok {
			return maps.Clone(tags), nil
		}
	}
	return nil, fmt.Errorf("an inline provider selects by one set of tags; use providerRef to keep these terms")
}

// isDefaultMetadataOptions reports the metadata options the API server defaults, which an
// inline provider implies.
func isDefaultMetadataOptions(m *v1.MetadataOptions) bool {
	def := &v1.NodeClass{Spec: v1.NodeClassSpec{AWS: &v1.AWSNodeClassSpec{}}}
	def.SetDefaults()
	return equality.Semantic.DeepEqual(m, def.Spec.AWS.MetadataOptions)
}

func requirementsFromV1(reqs []v1.NodeSelectorRequirementWithMinValues) ([]NodeSelectorRequirement, error) {
	if reqs == nil {
		return nil, nil
	}
	out := make([]NodeSelectorRequirement, len(reqs))
	for i, r := range reqs {
		if r.MinValues != nil {
			return nil, fmt.Errorf("requirement %d (%s) sets minValues, which a Provisioner has not", i, r.Key)
		}
		if !slices.Contains(operators.Supported, r.Operator) {
			return nil, fmt.Errorf("requirement %d (%s) uses operator %s, which a Provisioner has not", i, r.Key, r.Operator)
		}
		out[i] = NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: slices.Clone(r.Values)}
	}
	return out, nil
}

func taintsFromV1(taints []v1.Taint) []Taint {
	if taints == nil {
		return nil
	}
	out := make([]Taint, len(taints))
	for i, t := range taints {
		out[i] = Taint{Key: t.Key, Value: t.Value, Effect: t.Effect}
	}
	return out
}

// secondsToDuration writes a TTL in seconds as a v1 duration; no TTL is Never.
func secondsToDuration(seconds *int64) v1.NillableDuration {
	if seconds == nil {
		return v1.NeverDuration
	}
	return v1.NillableDuration(strconv.FormatInt(*seconds, 10) + "s")
}

var secondsRE = regexp.MustCompile(`^[0-9]+s$`)

// durationToSeconds reads a v1 duration as a TTL in seconds; Never is no TTL. Whole seconds
// ("30s", as ToNodePool writes them) are read exactly, however large.
func durationToSeconds(d v1.NillableDuration) (*int64, error) {
	if d.IsNever() {
		return nil, nil
	}
	if secondsRE.MatchString(string(d)) {
		n, err := strconv.ParseInt(string(d[:len(d)-1]), 10, 64)
		if err == nil {
			return &n, nil
		}
	}
	v, err := time.ParseDuration(string(d))
	if err != nil {
		return nil, fmt.Errorf("not a duration: %w", err)
	}
	if v%time.Second != 0 {
		return nil, fmt.Errorf("%s is not a whole number of seconds, which a Provisioner's TTLs are", d)
	}
	n := int64(v / time.Second)
	return &n, nil
}

func orDefault(d, def v1.NillableDuration) v1.NillableDuration {
	if d == "" {
		return def
	}
	return d
}

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("marshalling %T: %v", v, err)) // plain API structs always marshal
	}
	return string(data)
}

func fromJSON(raw, annotation string, into any) field.ErrorList {
	if err := json.Unmarshal([]byte(raw), into); err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations").Key(annotation), raw, err.Error())}
	}
	return nil
}

// castMap converts a map between string types, keeping nil apart from empty.
func castMap[K comparable, A, B ~string](m map[K]A) map[K]B {
	if m == nil {
		return nil
	}
	out := make(map[K]B, len(m))
	for k, v := range m {
		out[k] = B(v)
	}
	return out
}

func copyPtr[T any](v *T) *T {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}
