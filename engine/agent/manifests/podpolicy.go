package manifests

import (
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// The agent patches pods for two things only: the toleration of the awaiting-pods taint of
// the node a pod is planned on, and the pod deletion cost (rbac.go). RBAC grants patch on
// whole pods, so the manifests also install a ValidatingAdmissionPolicy, bound to the agent's
// ServiceAccount alone, that refuses any other change the agent makes to a pod: its containers,
// init containers, labels, owners, finalizers, scheduling gates, deadlines, tolerations other
// than tenon.dev/awaiting-pods ones, and annotations other than the deletion cost stay as they
// were. A compromised or buggy agent can then hold a pod's placement, never change what runs.
// ValidatingAdmissionPolicy is GA since Kubernetes 1.30.

// PodPatchPolicyName is the name of the ValidatingAdmissionPolicy and its binding for the agent
// installed in namespace: cluster-wide objects, so the namespace is part of the name.
func PodPatchPolicyName(namespace string) string {
	return Name + "-pod-patches." + namespace
}

// podPatchValidations are the policy's rules, one per thing the agent may not change, each
// with the message the API server returns when it refuses the patch.
func podPatchValidations() []admissionregistrationv1.Validation {
	same := func(path string) string {
		return fmt.Sprintf("has(object.%[1]s) == has(oldObject.%[1]s) && (!has(object.%[1]s) || object.%[1]s == oldObject.%[1]s)", path)
	}
	var out []admissionregistrationv1.Validation
	for _, f := range []struct{ path, what string }{
		{"spec.containers", "containers"},
		{"spec.initContainers", "init containers"},
		{"spec.activeDeadlineSeconds", "activeDeadlineSeconds"},
		{"spec.terminationGracePeriodSeconds", "terminationGracePeriodSeconds"},
		{"spec.schedulingGates", "scheduling gates"},
		{"metadata.labels", "labels"},
		{"metadata.ownerReferences", "owner references"},
		{"metadata.finalizers", "finalizers"},
	} {
		out = append(out, admissionregistrationv1.Validation{
			Expression: same(f.path),
			Message:    "Tenon's agent may not change a pod's " + f.what + "; it only adds tolerations of " + v1.TaintKeyAwaitingPods + " and writes the pod deletion cost",
		})
	}
	key := v1.TaintKeyAwaitingPods
	others := func(obj string) string {
		return fmt.Sprintf("%s.spec.tolerations.filter(t, !has(t.key) || t.key != '%s')", obj, key)
	}
	out = append(out, admissionregistrationv1.Validation{
		Expression: fmt.Sprintf("!has(object.spec.tolerations) || (has(oldObject.spec.tolerations) ? %s == %s : %s.size() == 0)",
			others("object"), others("oldObject"), others("object")),
		Message: "Tenon's agent may only add tolerations of " + key + " to a pod",
	})
	free := "['" + strings.Join([]string{v1.AnnotationPodDeletionCost, v1.AnnotationPodDeletionCostOwned}, "', '") + "']"
	out = append(out,
		admissionregistrationv1.Validation{
			Expression: fmt.Sprintf("!has(object.metadata.annotations) || object.metadata.annotations.all(k, k in %s || "+
				"(has(oldObject.metadata.annotations) && k in oldObject.metadata.annotations && oldObject.metadata.annotations[k] == object.metadata.annotations[k]))", free),
			Message: "Tenon's agent may only change the pod deletion cost among a pod's annotations",
		},
		admissionregistrationv1.Validation{
			Expression: fmt.Sprintf("!has(oldObject.metadata.annotations) || oldObject.metadata.annotations.all(k, k in %s || "+
				"(has(object.metadata.annotations) && k in object.metadata.annotations))", free),
			Message: "Tenon's agent may only remove the pod deletion cost among a pod's annotations",
		})
	return out
}

func podPatchPolicy(o Options) *admissionregistrationv1.ValidatingAdmissionPolicy {
	fail := admissionregistrationv1.Fail
	return &admissionregistrationv1.ValidatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicy"},
		ObjectMeta: meta(PodPatchPolicyName(o.Namespace), ""),
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{
						Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
						Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
					},
				}},
			},
			MatchConditions: []admissionregistrationv1.MatchCondition{{
				Name:       "tenon-agent",
				Expression: fmt.Sprintf("request.userInfo.username == 'system:serviceaccount:%s:%s'", o.Namespace, Name),
			}},
			Validations: podPatchValidations(),
		},
	}
}

func podPatchPolicyBinding(o Options) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingAdmissionPolicyBinding"},
		ObjectMeta: meta(PodPatchPolicyName(o.Namespace), ""),
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        PodPatchPolicyName(o.Namespace),
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
}
