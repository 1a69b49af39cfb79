package convert

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
)

// convertProvisioner converts a karpenter.sh/v1alpha5 Provisioner into a
// tenon.dev/v1alpha5 Provisioner, which has the same shape.
func convertProvisioner(c *conversion, root *node, opts Options) *v1alpha5.Provisioner {
	p := &v1alpha5.Provisioner{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1alpha5.SchemeGroupVersion.String(), Kind: v1alpha5.ProvisionerKind},
		ObjectMeta: objectMeta(c, root),
	}
	root.skip("status", "written by Karpenter; the agent writes its own")
	spec := root.child("spec")
	root.finish()
	if spec == nil {
		c.fail(root.at("spec"), "missing: a Provisioner needs a spec")
		return p
	}
	s := &p.Spec
	s.Annotations = spec.nodeAnnotations("annotations")
	if labels := spec.labels("labels"); labels != nil {
		s.Labels = make(map[string]v1alpha5.LabelValue, len(labels))
		for k, v := range labels {
			s.Labels[k] = v1alpha5.LabelValue(v)
		}
	}
	s.Taints = taintsV1alpha5(spec.taints("taints"))
	s.StartupTaints = taintsV1alpha5(spec.taints("startupTaints"))
	tenonReqs := field.NewPath("spec", "requirements")
	for i, r := range spec.requirements("requirements", false) {
		c.from(tenonReqs.Index(i), r.path)
		s.Requirements = append(s.Requirements, v1alpha5.NodeSelectorRequirement{Key: r.key, Operator: corev1.NodeSelectorOperator(r.operator), Values: r.values})
	}
	s.KubeletConfiguration = kubelet(spec.child("kubeletConfiguration"), true)
	s.Provider = inlineProvider(spec.child("provider"), opts)
	if ref := spec.child("providerRef"); ref != nil {
		s.ProviderRef = providerRef(c, ref)
	}
	s.TTLSecondsAfterEmpty = spec.integer("ttlSecondsAfterEmpty")
	s.TTLSecondsUntilExpired = spec.integer("ttlSecondsUntilExpired")
	if limits := spec.child("limits"); limits != nil {
		s.Limits = &v1alpha5.Limits{Resources: nil}
		if q := limits.quantities("resources"); q != nil {
			s.Limits.Resources = toResourceList(q)
		}
		limits.finish()
	}
	s.Weight = spec.int32p("weight")
	if cons := spec.child("consolidation"); cons != nil {
		s.Consolidation = &v1alpha5.Consolidation{Enabled: cons.boolPtr("enabled")}
		cons.finish()
	}
	spec.finish()
	return p
}

func taintsV1alpha5(in []taint) []v1alpha5.Taint {
	if in == nil {
		return nil
	}
	out := make([]v1alpha5.Taint, len(in))
	for i, t := range in {
		out[i] = v1alpha5.Taint{Key: t.key, Value: t.value, Effect: corev1.TaintEffect(t.effect)}
	}
	return out
}

// providerRef converts a reference to an AWSNodeTemplate into one to the
// NodeClass of the same name (apiVersion and kind left to their defaults).
func providerRef(c *conversion, ref *node) *v1alpha5.ProviderRef {
	defer ref.finish()
	apiVersion, kind := ref.str("apiVersion"), ref.str("kind")
	if (apiVersion != "" && apiVersion != karpenterAWS+"/v1alpha1") || (kind != "" && kind != "AWSNodeTemplate") {
		c.fail(ref.path, "references a %s of %s; tenon convert maps references to karpenter.k8s.aws/v1alpha1 AWSNodeTemplates, which become NodeClasses", orNone(kind), orNone(apiVersion))
	}
	return &v1alpha5.ProviderRef{Name: ref.str("name")}
}

// inlineFields lists what Tenon's inline provider holds, for messages.
const inlineFields = "amiFamily, amiSelector, instanceProfile, subnetSelector, securityGroupSelector and tags"

// inlineProvider converts a v1alpha5 Provisioner's inline AWS provider.
// Tenon's inline provider holds tag selectors only; selecting by ID and the
// other settings need a NodeClass and providerRef.
func inlineProvider(p *node, opts Options) *v1alpha5.Provider {
	if p == nil {
		return nil
	}
	p.skip("apiVersion", "the inline provider's type marker")
	p.skip("kind", "the inline provider's type marker")
	if _, set := p.m["amiFamily"]; !set {
		p.c.unmap(p.at("amiFamily"), "absent: Karpenter v1alpha5 defaulted it to AL2, Tenon defaults to AL2023; set amiFamily if your user data expects AL2")
	}
	out := &v1alpha5.Provider{
		AMIFamily:             amiFamily(p, "amiFamily"),
		AMISelector:           tagSelector(p, "amiSelector"),
		InstanceProfile:       p.str("instanceProfile"),
		SubnetSelector:        tagSelector(p, "subnetSelector"),
		SecurityGroupSelector: tagSelector(p, "securityGroupSelector"),
		Tags:                  p.strMap("tags"),
	}
	if out.InstanceProfile == "" {
		out.InstanceProfile = opts.DefaultInstanceProfile
	}
	for _, k := range []string{"launchTemplate", "metadataOptions", "blockDeviceMappings", "userData", "detailedMonitoring", "context"} {
		p.drop(k, fmt.Sprintf("Tenon's inline provider holds %s only; move %s to an AWSNodeTemplate (converted to a NodeClass) and use providerRef", inlineFields, k))
	}
	p.finish()
	return out
}

// tagSelector reads an inline tag selector, reporting the aws-ids and aws::
// keys Tenon's inline provider cannot hold.
func tagSelector(p *node, key string) v1.SelectorTags {
	sel := p.strMap(key)
	if sel == nil {
		return nil
	}
	out := v1.SelectorTags{}
	for _, k := range sortedKeys(sel) {
		if k == "aws-ids" || len(k) > 5 && k[:5] == "aws::" {
			p.c.unmap(p.at(key).Key(k), fmt.Sprintf("selecting by ID, name or owner needs a NodeClass: move the provider to an AWSNodeTemplate (converted to a NodeClass with %sTerms) and use providerRef", key))
			continue
		}
		out[k] = sel[k]
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
