package convert

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serverMetadata are the metadata fields the API server sets; an object
// exported with kubectl get -o yaml carries them.
var serverMetadata = []string{
	"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
	"deletionGracePeriodSeconds", "managedFields", "selfLink",
}

// bookkeepingAnnotation reports whether an object annotation is kubectl's,
// Helm's or Karpenter's own record keeping rather than part of the policy.
func bookkeepingAnnotation(key string) bool {
	switch key {
	case "kubectl.kubernetes.io/last-applied-configuration",
		"meta.helm.sh/release-name", "meta.helm.sh/release-namespace",
		"karpenter.sh/nodepool-hash", "karpenter.sh/nodepool-hash-version",
		"karpenter.sh/provisioner-hash",
		"karpenter.k8s.aws/ec2nodeclass-hash", "karpenter.k8s.aws/ec2nodeclass-hash-version",
		"karpenter.k8s.aws/awsnodetemplate-hash":
		return true
	}
	return false
}

// bookkeepingLabel reports whether an object label is Helm's record keeping.
func bookkeepingLabel(key, value string) bool {
	return key == "helm.sh/chart" || key == "app.kubernetes.io/managed-by" && value == "Helm"
}

// objectMeta converts the object's metadata: the name, and the object's own
// labels and annotations without kubectl's, Helm's and Karpenter's record
// keeping. The object's labels and annotations describe the object, not its
// nodes; they are not translated.
func objectMeta(c *conversion, root *node) metav1.ObjectMeta {
	meta := root.child("metadata")
	if meta == nil {
		c.fail(root.at("metadata"), "missing: every object needs metadata.name")
		return metav1.ObjectMeta{}
	}
	out := metav1.ObjectMeta{Name: meta.str("name")}
	if out.Name == "" {
		c.fail(meta.at("name"), "missing: set the object's name")
	}
	meta.skip("namespace", "the kind is cluster-scoped")
	for _, f := range serverMetadata {
		meta.skip(f, "set by the API server")
	}
	meta.skip("finalizers", "set by Karpenter")
	meta.drop("generateName", "Tenon objects are named; metadata.name is used")
	meta.drop("ownerReferences", "owner references point at objects of the old installation; add them again if you need them")
	labels := meta.strMap("labels")
	for _, k := range sortedKeys(labels) {
		v := labels[k]
		if bookkeepingLabel(k, v) {
			c.ignore(meta.at("labels").Key(k), "Helm's record keeping")
			continue
		}
		if out.Labels == nil {
			out.Labels = map[string]string{}
		}
		out.Labels[k] = v
	}
	annotations := meta.strMap("annotations")
	for _, k := range sortedKeys(annotations) {
		v := annotations[k]
		switch {
		case bookkeepingAnnotation(k):
			c.ignore(meta.at("annotations").Key(k), "record keeping of kubectl, Helm or Karpenter")
		case strings.HasPrefix(k, "compatibility.karpenter.sh/"):
			c.unmap(meta.at("annotations").Key(k), "Karpenter kept v1beta1 settings here when it converted the object to v1; move them to the matching Tenon field (for v1beta1-kubelet-conversion, the NodeClass's aws.kubelet)")
		default:
			if out.Annotations == nil {
				out.Annotations = map[string]string{}
			}
			out.Annotations[k] = v
		}
	}
	meta.finish()
	return out
}
