package scheduling

import (
	"fmt"
	"strings"
)

// restrictedLabelDomains are reserved by Tenon and Karpenter; only their
// well-known labels may be set under them. As in Karpenter v1 (which
// reserves only its own group, karpenter.sh), the kubernetes.io and k8s.io
// domains are open: a pool may require or set kubernetes.io/team or
// storage.k8s.io/x, and the agent puts such labels on the Node after it
// registers, since a kubelet may not set them on itself.
func restrictedLabelDomains() []string {
	return []string{"tenon.dev", "karpenter.sh"}
}

// IsRestrictedLabel returns an error when a user may not set key as a label or
// requirement in a pool template, and nil when they may. Allowed: every domain
// but tenon.dev and karpenter.sh (kubernetes.io and k8s.io included, as in
// Karpenter v1), and the well-known labels other than tenon.dev/nodepool and
// kubernetes.io/hostname, which Tenon and the kubelet set. The error names the
// key and what to use instead.
func IsRestrictedLabel(key string) error {
	switch key {
	case LabelNodePool:
		return fmt.Errorf("label %s is restricted: Tenon sets it to the pool's name; remove it", key)
	case LabelHostname:
		return fmt.Errorf("label %s is restricted: the kubelet sets it to the node's name; remove it", key)
	}
	if IsWellKnownLabel(key) {
		return nil
	}
	if tenon, ok := FromKarpenterLabel(key); ok {
		return fmt.Errorf("label %s is Karpenter's; use %s instead", key, tenon)
	}
	domain := labelDomain(key)
	for _, restricted := range restrictedLabelDomains() {
		if inDomain(domain, restricted) {
			return fmt.Errorf("label %s is restricted: domain %s is reserved; use a well-known label (%s) or move it to your own domain, e.g. example.com/%s",
				key, restricted, strings.Join(settableWellKnownLabels(), ", "), labelName(key))
		}
	}
	return nil
}

func settableWellKnownLabels() []string {
	var out []string
	for _, key := range wellKnownLabels() {
		if key != LabelNodePool && key != LabelHostname {
			out = append(out, key)
		}
	}
	return out
}

// labelDomain returns the prefix of key before "/", or "" without one.
func labelDomain(key string) string {
	if domain, _, ok := strings.Cut(key, "/"); ok {
		return domain
	}
	return ""
}

// labelName returns the part of key after "/", or key without one.
func labelName(key string) string {
	if _, name, ok := strings.Cut(key, "/"); ok {
		return name
	}
	return key
}

// inDomain reports whether domain is parent or one of its sub-domains
// (so "a.kubernetes.io" is in kubernetes.io but "evilkubernetes.io" is not).
func inDomain(domain, parent string) bool {
	return domain == parent || strings.HasSuffix(domain, "."+parent)
}

// IsRestrictedRequirement returns an error when a user may not write a
// requirement on key in a pool template, and nil when they may: what
// IsRestrictedLabel allows, and the Karpenter aliases of the well-known
// labels (karpenter.sh/capacity-type, karpenter.k8s.aws/instance-*), which
// a pool reads as the Tenon label (NormalizeLabelKey) and which a pool
// converted by hand from Karpenter's may keep. A pool may still not set
// them as labels (its nodes get them from the Tenon labels), nor require
// karpenter.sh/nodepool, which like tenon.dev/nodepool is the pool's name.
func IsRestrictedRequirement(key string) error {
	if tenon, ok := karpenterAlias(key); ok && tenon != LabelNodePool {
		return nil
	}
	return IsRestrictedLabel(key)
}
