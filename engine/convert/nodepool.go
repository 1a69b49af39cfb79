package convert

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// movedKubelet is a v1beta1 NodePool's template.spec.kubelet, which Tenon
// (like Karpenter v1) keeps on the NodeClass. Convert moves it there.
type movedKubelet struct {
	kubelet   *v1.KubeletConfiguration
	nodeClass string
	path      *field.Path
	c         *conversion
}

// convertNodePool converts a karpenter.sh/v1 or v1beta1 NodePool into a
// tenon.dev/v1 NodePool. For v1beta1 it also returns the kubelet settings
// to move to the referenced NodeClass.
func convertNodePool(c *conversion, root *node, version string) (*v1.NodePool, *movedKubelet) {
	np := &v1.NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodePoolKind},
		ObjectMeta: objectMeta(c, root),
	}
	root.skip("status", "written by Karpenter; the agent writes its own")
	spec := root.child("spec")
	root.finish()
	if spec == nil {
		c.fail(root.at("spec"), "missing: a NodePool needs a spec")
		return np, nil
	}
	var moved *movedKubelet
	if tmpl := spec.child("template"); tmpl != nil {
		moved = convertTemplate(c, tmpl, &np.Spec.Template, version)
	} else {
		c.fail(spec.at("template"), "missing: a NodePool needs a template with a nodeClassRef")
	}
	if d := spec.child("disruption"); d != nil {
		np.Spec.Disruption = convertDisruption(c, d, &np.Spec.Template.Spec, version)
	}
	if limits := spec.quantities("limits"); limits != nil {
		np.Spec.Limits = toResourceList(limits)
	}
	np.Spec.Weight = spec.int32p("weight")
	// A static NodePool (Karpenter v1.15, feature gate StaticCapacity): the
	// same field, the same meaning (engine/static).
	np.Spec.Replicas = spec.integer("replicas")
	spec.finish()
	return np, moved
}

// enableRepair turns node repair on for a converted NodePool (Karpenter's
// NodeRepair feature gate, Options.NodeRepair). A pool without a
// disruption block gets the one Karpenter and Tenon default to.
func enableRepair(np *v1.NodePool) {
	if np.Spec.Disruption == nil {
		np.Spec.Disruption = &v1.Disruption{ConsolidateAfter: v1.DefaultConsolidateAfter}
	}
	np.Spec.Disruption.Repair = &v1.Repair{Enabled: true}
}

func toResourceList(q map[string]resource.Quantity) corev1.ResourceList {
	out := make(corev1.ResourceList, len(q))
	for k, v := range q {
		out[corev1.ResourceName(k)] = v
	}
	return out
}

func convertTemplate(c *conversion, tmpl *node, out *v1.NodeClaimTemplate, version string) *movedKubelet {
	if meta := tmpl.child("metadata"); meta != nil {
		out.Labels = meta.labels("labels")
		out.Annotations = meta.nodeAnnotations("annotations")
		meta.finish()
	}
	spec := tmpl.child("spec")
	tmpl.finish()
	if spec == nil {
		c.fail(tmpl.at("spec"), "missing: a NodePool template needs a spec with a nodeClassRef")
		return nil
	}
	ts := &out.Spec
	tenonReqs := field.NewPath("spec", "template", "spec", "requirements")
	for i, r := range spec.requirements("requirements", true) {
		c.from(tenonReqs.Index(i), r.path)
		ts.Requirements = append(ts.Requirements, v1.NodeSelectorRequirementWithMinValues{
			Key: r.key, Operator: corev1.NodeSelectorOperator(r.operator), Values: r.values, MinValues: r.minValues,
		})
	}
	ts.Taints = taintsV1(spec.taints("taints"))
	ts.StartupTaints = taintsV1(spec.taints("startupTaints"))
	ts.NodeClassRef = nodeClassRef(c, spec, version)
	var moved *movedKubelet
	if version == "v1" {
		ts.ExpireAfter = v1.NillableDuration(normalizeDuration(spec.str("expireAfter"), durationSMH))
		if tgp := spec.str("terminationGracePeriod"); tgp != "" {
			d := v1.Duration(normalizeDuration(tgp, durationSMH))
			ts.TerminationGracePeriod = &d
		}
	} else if k := kubelet(spec.child("kubelet"), false); k != nil {
		moved = &movedKubelet{kubelet: k, path: spec.at("kubelet"), c: c}
		if ts.NodeClassRef != nil {
			moved.nodeClass = ts.NodeClassRef.Name
		}
	}
	spec.drop("resources", "template resources are not used for scheduling, by Karpenter either; Tenon sizes nodes from the instance type")
	spec.finish()
	return moved
}

// nodeClassRef converts a reference to an EC2NodeClass (v1: group, kind,
// name; v1beta1: apiVersion, kind, name) into a reference to the NodeClass
// of the same name.
func nodeClassRef(c *conversion, spec *node, version string) *v1.NodeClassReference {
	ref := spec.child("nodeClassRef")
	if ref == nil {
		c.fail(spec.at("nodeClassRef"), "missing: set the EC2NodeClass the nodes are launched with")
		return nil
	}
	defer ref.finish()
	group := ref.str("group")
	if version == "v1beta1" {
		apiVersion := ref.str("apiVersion")
		group = apiVersion
		if i := strings.IndexByte(apiVersion, '/'); i >= 0 {
			group = apiVersion[:i]
		}
	}
	kind := ref.str("kind")
	if (group != "" && group != karpenterAWS) || (kind != "" && kind != "EC2NodeClass") {
		c.fail(ref.path, "references a %s of %s; tenon convert maps references to karpenter.k8s.aws EC2NodeClasses, which become NodeClasses (write the NodeClass by hand for other clouds)", orNone(kind), orNone(group))
	}
	out := &v1.NodeClassReference{Name: ref.str("name")}
	c.from(field.NewPath("spec", "template", "spec", "nodeClassRef"), ref.path)
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// convertDisruption converts the disruption block. v1beta1's
// WhenUnderutilized is v1's WhenEmptyOrUnderutilized, with consolidateAfter
// 0s as Karpenter's own conversion sets it; v1beta1's expireAfter moves to
// the template.
func convertDisruption(c *conversion, d *node, ts *v1.NodeClaimTemplateSpec, version string) *v1.Disruption {
	out := &v1.Disruption{}
	policy := d.str("consolidationPolicy")
	if version == "v1beta1" && policy == "WhenUnderutilized" {
		policy = string(v1.ConsolidationPolicyWhenEmptyOrUnderutilized)
	}
	out.ConsolidationPolicy = v1.ConsolidationPolicy(policy)
	out.ConsolidateAfter = v1.NillableDuration(normalizeDuration(d.str("consolidateAfter"), durationSMH))
	if version == "v1beta1" {
		if out.ConsolidateAfter == "" && (policy == "" || out.ConsolidationPolicy == v1.ConsolidationPolicyWhenEmptyOrUnderutilized) {
			out.ConsolidateAfter = "0s"
		}
		if exp := d.str("expireAfter"); exp != "" {
			ts.ExpireAfter = v1.NillableDuration(normalizeDuration(exp, durationSMH))
			c.from(field.NewPath("spec", "template", "spec", "expireAfter"), d.at("expireAfter"))
		}
	}
	for i, b := range d.items("budgets") {
		budget := v1.Budget{Nodes: b.str("nodes"), Schedule: b.strPtr("schedule")}
		if dur := b.str("duration"); dur != "" {
			v := v1.Duration(normalizeDuration(dur, durationHM))
			budget.Duration = &v
		}
		if version == "v1" {
			for _, r := range b.strings("reasons") {
				budget.Reasons = append(budget.Reasons, v1.DisruptionReason(r))
			}
		}
		b.finish()
		c.from(field.NewPath("spec", "disruption", "budgets").Index(i), b.path)
		out.Budgets = append(out.Budgets, budget)
	}
	d.finish()
	return out
}

// applyMovedKubelet puts the kubelet settings of v1beta1 NodePools on the
// NodeClasses they reference, when those are part of the input and no two
// pools disagree; otherwise it reports them as unmapped.
func applyMovedKubelet(moves []*movedKubelet, classes map[string]*v1.NodeClass) {
	byClass := map[string][]*movedKubelet{}
	for _, m := range moves {
		byClass[m.nodeClass] = append(byClass[m.nodeClass], m)
	}
	for _, name := range sortedKeys(byClass) {
		group := byClass[name]
		nc := classes[name]
		if nc == nil || nc.Spec.AWS == nil {
			for _, m := range group {
				m.c.unmap(m.path, fmt.Sprintf("Tenon keeps kubelet settings on the NodeClass (aws.kubelet), and EC2NodeClass %s is not in the input; convert it together with this NodePool, or set its kubelet block by hand", name))
			}
			continue
		}
		first := group[0]
		agree := true
		for _, m := range group[1:] {
			agree = agree && equalJSON(m.kubelet, first.kubelet)
		}
		if !agree || (nc.Spec.AWS.Kubelet != nil && !equalJSON(nc.Spec.AWS.Kubelet, first.kubelet)) {
			for _, m := range group {
				m.c.unmap(m.path, fmt.Sprintf("NodePools sharing NodeClass %s set different kubelet settings, and Tenon keeps one kubelet block per NodeClass; split the class or reconcile the settings", name))
			}
			continue
		}
		nc.Spec.AWS.Kubelet = first.kubelet
		for _, m := range group {
			m.c.ignore(m.path, fmt.Sprintf("moved to NodeClass %s's aws.kubelet, where Tenon keeps kubelet settings", name))
		}
	}
}
