package simulate

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// The checks here are the part of the API server's validation that the
// engine's answer depends on; they keep a typo from turning into a
// plausible but wrong plan.

var (
	whenUnsatisfiable = sets.New(string(corev1.DoNotSchedule), string(corev1.ScheduleAnyway))
	tolerationOps     = sets.New("", string(corev1.TolerationOpEqual), string(corev1.TolerationOpExists))
	taintEffects      = sets.New("", string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute))
	protocols         = sets.New("", string(corev1.ProtocolTCP), string(corev1.ProtocolUDP), string(corev1.ProtocolSCTP))
)

// validateMeta checks names, namespace, labels and annotations.
func validateMeta(meta *metav1.ObjectMeta, namespaced bool) field.ErrorList {
	return apivalidation.ValidateObjectMeta(meta, namespaced, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
}

// validateTemplate checks a workload's selector and pod template: the
// selector must be set (when required) and select the template's labels.
func validateTemplate(path *field.Path, selector *metav1.LabelSelector, tmpl *corev1.PodTemplateSpec, selectorRequired bool) field.ErrorList {
	var errs field.ErrorList
	selPath := path.Child("selector")
	switch {
	case selector == nil && selectorRequired:
		errs = append(errs, field.Required(selPath, "a workload needs a selector matching its template's labels"))
	case selector != nil:
		errs = append(errs, metav1validation.ValidateLabelSelector(selector, metav1validation.LabelSelectorValidationOptions{}, selPath)...)
		if len(errs) == 0 {
			sel, err := metav1.LabelSelectorAsSelector(selector)
			if err != nil {
				errs = append(errs, field.Invalid(selPath, selector, err.Error()))
			} else if sel.Empty() || !sel.Matches(labels.Set(tmpl.Labels)) {
				errs = append(errs, field.Invalid(path.Child("template", "metadata", "labels"), tmpl.Labels, "selector does not match template labels"))
			}
		}
	}
	tpath := path.Child("template")
	errs = append(errs, metav1validation.ValidateLabels(tmpl.Labels, tpath.Child("metadata", "labels"))...)
	errs = append(errs, apivalidation.ValidateAnnotations(tmpl.Annotations, tpath.Child("metadata", "annotations"))...)
	return append(errs, validatePodSpec(tpath.Child("spec"), &tmpl.Spec)...)
}

// validatePodSpec checks containers, resources, ports, scheduling
// constraints and tolerations.
func validatePodSpec(path *field.Path, spec *corev1.PodSpec) field.ErrorList {
	var errs field.ErrorList
	if len(spec.Containers) == 0 {
		errs = append(errs, field.Required(path.Child("containers"), "a pod needs at least one container"))
	}
	names := sets.New[string]()
	check := func(child string, cs []corev1.Container) {
		for i := range cs {
			errs = append(errs, validateContainer(path.Child(child).Index(i), &cs[i], names)...)
		}
	}
	check("initContainers", spec.InitContainers)
	check("containers", spec.Containers)
	errs = append(errs, validateResourceList(path.Child("overhead"), spec.Overhead)...)
	if spec.Resources != nil {
		errs = append(errs, validateResourceList(path.Child("resources", "requests"), spec.Resources.Requests)...)
		errs = append(errs, validateResourceList(path.Child("resources", "limits"), spec.Resources.Limits)...)
	}
	errs = append(errs, metav1validation.ValidateLabels(spec.NodeSelector, path.Child("nodeSelector"))...)
	for i, t := range spec.Tolerations {
		p := path.Child("tolerations").Index(i)
		if !tolerationOps.Has(string(t.Operator)) {
			errs = append(errs, field.NotSupported(p.Child("operator"), t.Operator, []string{string(corev1.TolerationOpEqual), string(corev1.TolerationOpExists)}))
		}
		if !taintEffects.Has(string(t.Effect)) {
			errs = append(errs, field.NotSupported(p.Child("effect"), t.Effect, []string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}))
		}
		if t.Operator == corev1.TolerationOpExists && t.Value != "" {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, "must be empty when operator is Exists"))
		}
	}
	for i, c := range spec.TopologySpreadConstraints {
		p := path.Child("topologySpreadConstraints").Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(p.Child("maxSkew"), c.MaxSkew, "must be greater than zero"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(p.Child("topologyKey"), "a spread constraint needs a topology key such as topology.kubernetes.io/zone"))
		}
		if !whenUnsatisfiable.Has(string(c.WhenUnsatisfiable)) {
			errs = append(errs, field.NotSupported(p.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, sets.List(whenUnsatisfiable)))
		}
		if c.MinDomains != nil && *c.MinDomains <= 0 {
			errs = append(errs, field.Invalid(p.Child("minDomains"), *c.MinDomains, "must be greater than zero"))
		}
		errs = append(errs, validateSelector(p.Child("labelSelector"), c.LabelSelector)...)
	}
	return append(errs, validateAffinity(path.Child("affinity"), spec.Affinity)...)
}

func validateContainer(path *field.Path, c *corev1.Container, names sets.Set[string]) field.ErrorList {
	var errs field.ErrorList
	switch {
	case c.Name == "":
		errs = append(errs, field.Required(path.Child("name"), ""))
	case names.Has(c.Name):
		errs = append(errs, field.Duplicate(path.Child("name"), c.Name))
	default:
		for _, msg := range validation.IsDNS1123Label(c.Name) {
			errs = append(errs, field.Invalid(path.Child("name"), c.Name, msg))
		}
	}
	names.Insert(c.Name)
	reqs, limits := c.Resources.Requests, c.Resources.Limits
	errs = append(errs, validateResourceList(path.Child("resources", "requests"), reqs)...)
	errs = append(errs, validateResourceList(path.Child("resources", "limits"), limits)...)
	for _, name := range slices.Sorted(maps.Keys(toStringKeys(reqs))) {
		limit, ok := limits[corev1.ResourceName(name)]
		if req := reqs[corev1.ResourceName(name)]; ok && req.Cmp(limit) > 0 {
			errs = append(errs, field.Invalid(path.Child("resources", "requests").Child(name), req.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", name, limit.String())))
		}
	}
	for i, port := range c.Ports {
		p := path.Child("ports").Index(i)
		if port.HostPort < 0 || port.HostPort > 65535 {
			errs = append(errs, field.Invalid(p.Child("hostPort"), port.HostPort, "must be between 1 and 65535, or 0 for none"))
		}
		if !protocols.Has(string(port.Protocol)) {
			errs = append(errs, field.NotSupported(p.Child("protocol"), port.Protocol, []string{"SCTP", "TCP", "UDP"}))
		}
	}
	return errs
}

// validateResourceList checks that each amount is neither negative nor
// above what the engine computes with (scheduling.MaxRequest).
func validateResourceList(path *field.Path, list corev1.ResourceList) field.ErrorList {
	return scheduling.ValidateRequests(path, list)
}

// validateNodeStatus checks a node's capacity and allocatable.
func validateNodeStatus(path *field.Path, status *corev1.NodeStatus) field.ErrorList {
	errs := validateResourceList(path.Child("capacity"), status.Capacity)
	return append(errs, validateResourceList(path.Child("allocatable"), status.Allocatable)...)
}

func toStringKeys(list corev1.ResourceList) map[string]struct{} {
	out := make(map[string]struct{}, len(list))
	for k := range list {
		out[string(k)] = struct{}{}
	}
	return out
}

func validateSelector(path *field.Path, sel *metav1.LabelSelector) field.ErrorList {
	if sel == nil {
		return nil
	}
	return metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, path)
}

func validateAffinity(path *field.Path, a *corev1.Affinity) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	term := func(tp *field.Path, t *corev1.PodAffinityTerm) {
		if t.TopologyKey == "" {
			errs = append(errs, field.Required(tp.Child("topologyKey"), "a pod affinity term needs a topology key such as kubernetes.io/hostname"))
		}
		errs = append(errs, validateSelector(tp.Child("labelSelector"), t.LabelSelector)...)
		errs = append(errs, validateSelector(tp.Child("namespaceSelector"), t.NamespaceSelector)...)
	}
	terms := func(p *field.Path, ts []corev1.PodAffinityTerm) {
		for i := range ts {
			term(p.Index(i), &ts[i])
		}
	}
	weighted := func(p *field.Path, ts []corev1.WeightedPodAffinityTerm) {
		for i := range ts {
			if w := ts[i].Weight; w < 1 || w > 100 {
				errs = append(errs, field.Invalid(p.Index(i).Child("weight"), w, "must be between 1 and 100"))
			}
			term(p.Index(i).Child("podAffinityTerm"), &ts[i].PodAffinityTerm)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		p := path.Child("podAffinity")
		terms(p.Child("requiredDuringSchedulingIgnoredDuringExecution"), pa.RequiredDuringSchedulingIgnoredDuringExecution)
		weighted(p.Child("preferredDuringSchedulingIgnoredDuringExecution"), pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		p := path.Child("podAntiAffinity")
		terms(p.Child("requiredDuringSchedulingIgnoredDuringExecution"), pa.RequiredDuringSchedulingIgnoredDuringExecution)
		weighted(p.Child("preferredDuringSchedulingIgnoredDuringExecution"), pa.PreferredDuringSchedulingIgnoredDuringExecution)
	}
	return append(errs, validateNodeAffinity(path.Child("nodeAffinity"), a.NodeAffinity)...)
}

// validatePDBSpec checks that a budget sets exactly one of minAvailable and
// maxUnavailable.
func validatePDBSpec(path *field.Path, spec *policyv1.PodDisruptionBudgetSpec) field.ErrorList {
	var errs field.ErrorList
	if spec.MinAvailable != nil && spec.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(path, "", "minAvailable and maxUnavailable cannot both be set"))
	}
	return append(errs, validateSelector(path.Child("selector"), spec.Selector)...)
}
