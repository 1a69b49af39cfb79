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
