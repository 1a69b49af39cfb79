package apivalidation

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// Limits of the schema, the same in every version.
const (
	maxLabelKey    = 316 // a DNS subdomain of 253, '/', and a name of 63
	maxLabelValue  = 63
	maxMapEntries  = 100 // labels and annotations
	maxNodeClassNm = 253
)

// labelKeyErrors returns the syntax and restricted-domain problems of a label key, in the
// order of the CEL rules. What is allowed is what scheduling.IsRestrictedLabel allows (less
// tenon.dev/nodepool, which each version reports with its own message): the well-known labels
// but kubernetes.io/hostname, and every domain but karpenter.sh and tenon.dev (kubernetes.io and
// k8s.io included, as in Karpenter v1). The markers list the well-known labels
// literally; the twin tests keep the two in step.
func labelKeyErrors(key string) []string {
	var msgs []string
	if !isQualifiedName(key) {
		msgs = append(msgs, msgKeySyntax)
	}
	if key == scheduling.LabelHostname {
		msgs = append(msgs, msgHostname)
	}
	if karpenterDomainRE.MatchString(key) {
		msgs = append(msgs, msgDomainKarpenter)
	}
	if _, ok := scheduling.FromKarpenterLabel(key); ok && strings.HasPrefix(key, "karpenter.k8s.aws/") {
		msgs = append(msgs, msgKarpenterAWS)
	}
	if !scheduling.IsWellKnownLabel(key) && tenonDomainRE.MatchString(key) {
		msgs = append(msgs, msgDomainTenon)
	}
	return msgs
}

// requirementKeyErrors returns the problems of a requirement's key, in the order of the CEL
// rules: those of labelKeyErrors, less Karpenter's aliases of the well-known labels
// (karpenter.sh/capacity-type, karpenter.k8s.aws/instance-*), which a requirement may use and
// the scheduler reads as Tenon's (scheduling.IsRestrictedRequirement).
func requirementKeyErrors(key string) []string {
	var msgs []string
	if !isQualifiedName(key) {
		msgs = append(msgs, msgKeySyntax)
	}
	if key == scheduling.LabelHostname {
		msgs = append(msgs, msgHostname)
	}
	if karpenterDomainRE.MatchString(key) && key != scheduling.KarpenterAlias(scheduling.LabelCapacityType) {
		msgs = append(msgs, msgDomainKarpenterReq)
	}
	if !scheduling.IsWellKnownLabel(key) && tenonDomainRE.MatchString(key) {
		msgs = append(msgs, msgDomainTenon)
	}
	return msgs
}

// isQualifiedName reports whether k is a label key (an optional DNS subdomain and '/', then a
// name of up to 63 characters).
func isQualifiedName(k string) bool {
	return len(k) <= maxLabelKey && qualifiedNameRE.MatchString(k) && qualifiedNameLengthRE.MatchString(k)
}

// labelValue checks a label value as the schema does: at most 63 characters (too long, as the
// API server reports it, with the message saying what a value may be), of label syntax.
func labelValue(path *field.Path, v string) field.ErrorList {
	switch {
	case len(v) > maxLabelValue:
		err := field.TooLong(path, v, maxLabelValue)
		err.Detail = msgValueSyntax
		return field.ErrorList{err}
	case !labelValueRE.MatchString(v):
		return field.ErrorList{field.Invalid(path, v, msgValueSyntax)}
	}
	return nil
}

// Labels checks node labels: key syntax, the restricted domains, tenon.dev/nodepool (which the
// agent sets; msgNodePool says so) and the values.
func Labels[V ~string](path *field.Path, labels map[string]V, msgNodePool string) field.ErrorList {
	var errs field.ErrorList
	if len(labels) > maxMapEntries {
		errs = append(errs, field.TooMany(path, len(labels), maxMapEntries))
	}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		p := path.Key(k)
		for _, msg := range labelKeyErrors(k) {
			errs = append(errs, field.Invalid(p, k, msg))
		}
		if k == scheduling.LabelNodePool {
			errs = append(errs, field.Invalid(p, k, msgNodePool))
		}
		errs = append(errs, labelValue(p, string(labels[k]))...)
	}
	return errs
}

// Annotations checks the keys of node annotations.
func Annotations(path *field.Path, annotations map[string]string) field.ErrorList {
	var errs field.ErrorList
	if len(annotations) > maxMapEntries {
		errs = append(errs, field.TooMany(path, len(annotations), maxMapEntries))
	}
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		if !isQualifiedName(k) {
			errs = append(errs, field.Invalid(path.Key(k), k, msgKeySyntax))
		}
	}
	return errs
}
