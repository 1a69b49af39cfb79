package manifests

import (
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReadOnlyClusterRoleName is the name of the ClusterRole `tenon simulate --kubeconfig` and
// `tenon explain` need.
const ReadOnlyClusterRoleName = "tenon-readonly"

// ReadOnlyPermissions are what `tenon simulate --kubeconfig` and `tenon explain` read: the
// lists the agent's view is built from (engine/agent's viewBuilder), get and list only. A test
// in engine/agent checks that the view reads exactly these kinds; test/integration/readonly
// checks with SubjectAccessReviews on a real API server that the role grants them and nothing
// else, and runs both commands under an identity bound to it.
var ReadOnlyPermissions = []Permission{
	{Group: "", Resource: "pods", Verbs: readVerbs, Why: "pending and bound pods"},
	{Group: "", Resource: "nodes", Verbs: readVerbs, Why: "the nodes"},
	{Group: "apps", Resource: "daemonsets", Verbs: readVerbs, Why: "daemonset overhead on every node"},
	{Group: "policy", Resource: "poddisruptionbudgets", Verbs: readVerbs, Why: "the disruption budgets consolidation honours"},
	{Group: "tenon.dev", Resource: "nodepools", Verbs: readVerbs, Why: "the policy"},
	{Group: "tenon.dev", Resource: "nodeclasses", Verbs: readVerbs, Why: "how nodes are launched, and whether they can be"},
	{Group: "tenon.dev", Resource: "nodeclaims", Verbs: readVerbs, Why: "the nodes launching and their consolidation clocks"},
	{Group: "tenon.dev", Resource: "provisioners", Verbs: readVerbs, Why: "the v1alpha5 policy"},
	{Group: "tenon.dev", Resource: "nodeoverlays", Verbs: readVerbs, Why: "the price and resource overlays on instance types"},
}

var readVerbs = []string{"get", "list"}

// ReadOnlyClusterRole is the ClusterRole of ReadOnlyPermissions: bind it to the person or
// ServiceAccount that runs `tenon simulate --kubeconfig` or `tenon explain`. It writes nothing
// and reads no Secret or ConfigMap.
func ReadOnlyClusterRole() *rbacv1.ClusterRole {
	r := &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: metav1.ObjectMeta{Name: ReadOnlyClusterRoleName, Labels: map[string]string{"app.kubernetes.io/name": Name}},
	}
	byGroup := map[string]int{}
	for _, p := range ReadOnlyPermissions {
		i, ok := byGroup[p.Group]
		if !ok {
			byGroup[p.Group] = len(r.Rules)
			r.Rules = append(r.Rules, rbacv1.PolicyRule{APIGroups: []string{p.Group}, Verbs: readVerbs})
			i = len(r.Rules) - 1
		}
		r.Rules[i].Resources = append(r.Rules[i].Resources, p.Resource)
	}
	return r
}
