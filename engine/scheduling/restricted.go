package scheduling

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// restrictedLabelDomains are reserved by the kubelet, Kubernetes, Tenon or
// Karpenter; only well-known labels may be set under them.
func restrictedLabelDomains() []string {
	return []string{"kubernetes.io", "k8s.io", "tenon.dev", "karpenter.sh"}
}

// labelDomainExceptions are sub-domains of the restricted ones that users may
// still set, because the kubelet allows them (node.kubernetes.io,
// node-restriction.kubernetes.io) or other tools own them (kops.k8s.io).
func labelDomainExceptions() []string {
	return []string{corev1.LabelNamespaceSuffixNode, corev1.LabelNamespaceNodeRestriction, "kops.k8s.io"}
}

// IsRestrictedLabel returns an error when a user may not set key as a label or
// requirement in a pool template, and nil when they may. Allowed: custom
// domains, the exception domains (node.kubernetes.io,
// node-restriction.kubernetes.io, kops.k8s.io) and the well-known labels other
// than tenon.dev/nodepool and kubernetes.io/hostname, which Tenon and the
// kubelet set. The error names the key and what to use instead.
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
	for _, exception := range labelDomainExceptions() {
		if inDomain(domain, exception) {
			return nil
		}
	}
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
