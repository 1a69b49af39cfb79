package scheduling

import "strings"

// Karpenter's label domains, for translating its objects into Tenon's.
const (
	karpenterCoreDomain = "karpenter.sh/"
	karpenterAWSDomain  = "karpenter.k8s.aws/"
)

// FromKarpenterLabel returns the Tenon label for a Karpenter label key and
// true, or "" and false when key is not a Karpenter label with a Tenon
// equivalent (including every non-Karpenter key):
//
//	karpenter.sh/capacity-type            -> tenon.dev/capacity-type
//	karpenter.sh/nodepool                 -> tenon.dev/nodepool
//	karpenter.sh/provisioner-name         -> tenon.dev/nodepool
//	karpenter.k8s.aws/instance-X          -> tenon.dev/instance-X (X well known)
//	karpenter.k8s.aws/instance-encryption-in-transit-supported
//	                                      -> tenon.dev/instance-encryption-in-transit
func FromKarpenterLabel(key string) (string, bool) {
	switch key {
	case karpenterCoreDomain + "capacity-type":
		return LabelCapacityType, true
	case karpenterCoreDomain + "nodepool", karpenterCoreDomain + "provisioner-name":
		return LabelNodePool, true
	case karpenterAWSDomain + "instance-encryption-in-transit-supported":
		return LabelInstanceEncryptionInTransit, true
	}
	name, ok := strings.CutPrefix(key, karpenterAWSDomain)
	if !ok || !strings.HasPrefix(name, "instance-") {
		return "", false
	}
	if tenon := "tenon.dev/" + name; IsWellKnownLabel(tenon) {
		return tenon, true
	}
	return "", false
}

// karpenterProvisionerName is v1alpha5 Karpenter's pool label. Tenon's
// nodes do not carry it: Karpenter before v0.28 treats every node so
// labelled as its own (it would expire or empty them), so it is not an alias.
const karpenterProvisionerName = karpenterCoreDomain + "provisioner-name"

// karpenterAlias returns the Tenon label that the Karpenter label key
// aliases on Tenon's nodes, as FromKarpenterLabel without
// karpenter.sh/provisioner-name.
func karpenterAlias(key string) (string, bool) {
	if key == karpenterProvisionerName {
		return "", false
	}
	return FromKarpenterLabel(key)
}

// IsKarpenterAlias reports whether key is a Karpenter label that Tenon's
// nodes carry beside the Tenon label it aliases (KarpenterAliases), and
// that NormalizeLabelKey reads as that label.
func IsKarpenterAlias(key string) bool {
	_, ok := karpenterAlias(key)
	return ok
}

// KarpenterAlias returns the Karpenter label that aliases a Tenon label on
// Tenon's nodes, or "" when none does: tenon.dev/capacity-type and
// tenon.dev/nodepool have karpenter.sh/capacity-type and
// karpenter.sh/nodepool, each well-known tenon.dev/instance-X has
// karpenter.k8s.aws/instance-X (instance-encryption-in-transit has
// karpenter.k8s.aws/instance-encryption-in-transit-supported).
func KarpenterAlias(key string) string {
	switch key {
	case LabelCapacityType:
		return karpenterCoreDomain + "capacity-type"
	case LabelNodePool:
		return karpenterCoreDomain + "nodepool"
	case LabelInstanceEncryptionInTransit:
		return karpenterAWSDomain + "instance-encryption-in-transit-supported"
	}
	name, ok := strings.CutPrefix(key, "tenon.dev/")
	if !ok || !strings.HasPrefix(name, "instance-") || !IsWellKnownLabel(key) {
		return ""
	}
	return karpenterAWSDomain + name
}

// KarpenterAliases returns the Karpenter aliases of the Tenon labels in
// labels, with their values (nil when there are none), so that workloads
// written for Karpenter (nodeSelector karpenter.sh/capacity-type: spot)
// schedule on Tenon's nodes unchanged. A value labels already holds under
// an alias key is kept.
func KarpenterAliases(labels map[string]string) map[string]string {
	var out map[string]string
	for k, v := range labels {
		alias := KarpenterAlias(k)
		if alias == "" {
			continue
		}
		if _, set := labels[alias]; set {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[alias] = v
	}
	return out
}
