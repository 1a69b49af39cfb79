package manifests_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
)

// suite is etcd and kube-apiserver (with RBAC), started by the first test that needs them.
var suite = controlplane.NewSuite(controlplane.Options{})

func TestMain(m *testing.M) {
	os.Exit(suite.Main(m))
}

func cluster(t *testing.T) (client.Client, *rest.Config) {
	t.Helper()
	cp := suite.Require(t)
	c, cfg, err := kube.NewClient(cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return c, cfg
}

// apply server-side applies the objects opts build, for real.
func apply(t *testing.T, ctx context.Context, c client.Client, opts manifests.Options) {
	t.Helper()
	objs, err := manifests.Objects(opts)
	if err != nil {
		t.Fatal(err)
	}
	us, err := manifests.Unstructured(objs)
	if err != nil {
		t.Fatal(err)
	}
	if err := kube.Apply(ctx, c, us); err != nil {
		t.Fatalf("the API server rejected the manifests: %v", err)
	}
}

// TestAPIServerAcceptsTheManifests applies the objects of both clouds to a real API server
// (server-side apply rejects unknown fields, so a misspelt one fails), twice to show the apply
// is idempotent, and checks the Deployment and PDB come back as built.
func TestAPIServerAcceptsTheManifests(t *testing.T) {
	c, _ := cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cases := []manifests.Options{
		{Cloud: manifests.CloudKWOK, ClusterName: "local"},
		{Cloud: manifests.CloudAWS, ClusterName: "prod", Namespace: "tenon-aws", Replicas: 3,
			ServiceAccountAnnotations: map[string]string{"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/tenon"},
			Settings:                  manifests.Settings{InterruptionQueue: "prod-tenon", Region: "us-east-1", Zones: []string{"us-east-1a"}}},
	}
	for _, opts := range cases {
		t.Run(opts.Cloud, func(t *testing.T) {
			apply(t, ctx, c, opts)
			apply(t, ctx, c, opts) // a second apply changes nothing and conflicts with nothing
			ns := opts.Defaulted().Namespace
			dep, pdb := objectsIn(t, ctx, c, ns)
			if got := *dep.Spec.Replicas; got != opts.Defaulted().Replicas {
				t.Errorf("stored deployment has %d replicas, want %d", got, opts.Defaulted().Replicas)
			}
			if got := dep.Spec.Template.Spec.Containers[0].SecurityContext; got == nil || !*got.ReadOnlyRootFilesystem {
				t.Errorf("stored container security context %v lost readOnlyRootFilesystem", got)
			}
			if pdb.Spec.MaxUnavailable.IntValue() != 1 {
				t.Errorf("stored PDB maxUnavailable %v", pdb.Spec.MaxUnavailable)
			}
		})
	}
}

func objectsIn(t *testing.T, ctx context.Context, c client.Client, ns string) (*appsv1.Deployment, *policyv1.PodDisruptionBudget) {
	t.Helper()
	dep := &appsv1.Deployment{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: manifests.Name}, dep); err != nil {
		t.Fatalf("reading the deployment: %v", err)
	}
	pdb := &policyv1.PodDisruptionBudget{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: manifests.Name}, pdb); err != nil {
		t.Fatalf("reading the PDB: %v", err)
	}
	return dep, pdb
}

// access is one request the agent's ServiceAccount makes, or must not be able to make.
type access struct {
	group, resource, subresource, verb, namespace, name string
}

func (a access) String() string {
	res := a.resource
	if a.subresource != "" {
		res += "/" + a.subresource
	}
	where := "cluster-wide"
	if a.namespace != "" {
		where = "in " + a.namespace
	}
	if a.name != "" {
		res += " " + a.name
	}
	return fmt.Sprintf("%s %s.%s %s", a.verb, res, a.group, where)
}

// TestRBACAllowsTheAgentsVerbsAndNothingElse asks the API server's authorizer, through
// SubjectAccessReviews for the agent's ServiceAccount, about every verb of the permission table
// and about requests outside it, for both clouds and in pull mode; then makes real requests
// impersonating the ServiceAccount.
func TestRBACAllowsTheAgentsVerbsAndNothingElse(t *testing.T) {
	c, cfg := cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	clients, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pull := &manifests.PolicyGit{URL: "https://git.example.com/acme/policy.git", Secret: "policy-git"}
	cases := []struct {
		name string
		opts manifests.Options
	}{
		{"aws", manifests.Options{Cloud: manifests.CloudAWS, ClusterName: "c", Namespace: "rbac-aws"}},
		{"kwok", manifests.Options{Cloud: manifests.CloudKWOK, ClusterName: "c", Namespace: "rbac-kwok"}},
		{"kwok-pull-mode", manifests.Options{Cloud: manifests.CloudKWOK, ClusterName: "c", Namespace: "rbac-pull", PolicyGit: pull}},
		{"aws-pod-deletion-cost", manifests.Options{Cloud: manifests.CloudAWS, ClusterName: "c", Namespace: "rbac-dcost",
			Settings: manifests.Settings{PodDeletionCost: true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts, cloud := tc.opts, tc.opts.Cloud
			apply(t, ctx, c, opts)
			ns := opts.Namespace
			user := "system:serviceaccount:" + ns + ":" + manifests.Name
			groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}

			var allowed []access
			for _, p := range opts.Permissions() {
				res, sub, _ := strings.Cut(p.Resource, "/")
				for _, v := range p.Verbs {
					a := access{group: p.Group, resource: res, subresource: sub, verb: v}
					if len(p.ResourceNames) > 0 {
						a.name = p.ResourceNames[0]
					}
					switch {
					case p.Namespaced:
						a.namespace = ns
					case p.Group == "" && (res == "pods" || res == "events") || p.Group == "events.k8s.io" || p.Group == "policy" || p.Group == "apps":
						a.namespace = "default" // namespaced resources the agent reaches in every namespace
					}
					allowed = append(allowed, a)
				}
			}
			denied := []access{
				{resource: "secrets", verb: "list", namespace: "default"},
				{resource: "secrets", verb: "get", namespace: ns},
				{resource: "configmaps", verb: "list", namespace: "default"},
				{resource: "pods", verb: "update", namespace: "default"},
				{resource: "nodes", verb: "update"},
				{group: "tenon.dev", resource: "nodeclaims", subresource: "status", verb: "patch"},
				{resource: "pods", verb: "create", namespace: "default"},
				{resource: "pods", subresource: "status", verb: "update", namespace: "default"},
				{resource: "nodes", subresource: "status", verb: "patch"},
				{resource: "namespaces", verb: "delete"},
				{group: "apps", resource: "deployments", verb: "list", namespace: "default"},
				{group: "apps", resource: "daemonsets", verb: "delete", namespace: "default"},
				{group: "policy", resource: "poddisruptionbudgets", verb: "update", namespace: "default"},
				{group: "tenon.dev", resource: "nodepools", verb: "update"},
				{group: "coordination.k8s.io", resource: "leases", verb: "update", namespace: "default"},
				{group: "coordination.k8s.io", resource: "leases", verb: "delete", namespace: ns},
				{group: "rbac.authorization.k8s.io", resource: "clusterroles", verb: "escalate"},
				{group: "apiextensions.k8s.io", resource: "customresourcedefinitions", verb: "update"},
			}
			if cloud != manifests.CloudKWOK {
				denied = append(denied, access{resource: "nodes", verb: "create"})
			}
			if opts.PolicyGit == nil {
				denied = append(denied,
					access{group: "tenon.dev", resource: "nodepools", verb: "patch"},
					access{group: "tenon.dev", resource: "nodeclasses", verb: "delete"},
					access{resource: "configmaps", verb: "create", namespace: ns},
					access{resource: "configmaps", verb: "get", namespace: ns, name: manifests.PolicyStatusConfigMap})
			} else {
				denied = append(denied,
					access{resource: "configmaps", verb: "get", namespace: ns, name: "someone-elses"},
					access{resource: "configmaps", verb: "patch", namespace: "default", name: manifests.PolicyStatusConfigMap},
					access{resource: "secrets", verb: "get", namespace: ns, name: "other-secret"},
					access{resource: "secrets", verb: "list", namespace: ns},
					access{group: "tenon.dev", resource: "nodeclaims", verb: "deletecollection"})
			}
			check := func(a access, want bool) {
				sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
					User: user, Groups: groups,
					ResourceAttributes: &authorizationv1.ResourceAttributes{
						Group: a.group, Resource: a.resource, Subresource: a.subresource, Verb: a.verb, Namespace: a.namespace, Name: a.name,
					},
				}}
				got, err := clients.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
				if err != nil {
					t.Fatalf("subject access review for %s: %v", a, err)
				}
				if got.Status.Allowed != want {
					t.Errorf("%s as %s: allowed=%v, want %v (%s)", a, user, got.Status.Allowed, want, got.Status.Reason)
				}
			}
			for _, a := range allowed {
				check(a, true)
			}
			for _, a := range denied {
				check(a, false)
			}

			// The same through real requests as the ServiceAccount.
			imp := rest.CopyConfig(cfg)
			imp.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
			as, err := kubernetes.NewForConfig(imp)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := as.CoreV1().Pods("").List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
				t.Errorf("listing pods as the agent: %v", err)
			}
			if _, err := as.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
				t.Errorf("listing nodes as the agent: %v", err)
			}
			if _, err := as.CoreV1().Secrets("").List(ctx, metav1.ListOptions{Limit: 1}); !apierrors.IsForbidden(err) {
				t.Errorf("listing secrets as the agent: got %v, want Forbidden", err)
			}
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "rbac-probe-" + tc.name}}
			_, err = as.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if cloud == manifests.CloudKWOK && err != nil {
				t.Errorf("creating a node (dry run) as the kwok agent: %v", err)
			}
			if cloud != manifests.CloudKWOK && !apierrors.IsForbidden(err) {
				t.Errorf("creating a node (dry run) as the %s agent: got %v, want Forbidden", cloud, err)
			}
		})
	}
}

// TestPodPatchPolicyLimitsTheAgentsPodPatches: patch on pods lets the agent's ServiceAccount
// change a pod, and the manifests' ValidatingAdmissionPolicy refuses every change but the two
// the agent makes (a toleration of the awaiting-pods taint, the pod deletion cost), with a
// message that says so; other users are not limited by it.
func TestPodPatchPolicyLimitsTheAgentsPodPatches(t *testing.T) {
	c, cfg := cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := manifests.Options{Cloud: manifests.CloudKWOK, ClusterName: "c", Namespace: "vap-agent"}
	apply(t, ctx, c, opts)
	admin, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	imp := rest.CopyConfig(cfg)
	imp.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:vap-agent:" + manifests.Name,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:vap-agent", "system:authenticated"}}
	agent, err := kubernetes.NewForConfig(imp)
	if err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "vap-probe", Namespace: "vap-agent", Labels: map[string]string{"app": "web"},
			Annotations: map[string]string{"team": "a"}},
		Spec: corev1.PodSpec{ServiceAccountName: manifests.Name, AutomountServiceAccountToken: new(false), Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/app:1"}},
			Tolerations: []corev1.Toleration{{Key: "example.com/gpu", Operator: corev1.TolerationOpExists}}},
	}
	if _, err := admin.CoreV1().Pods("vap-agent").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The API server compiles and registers a new policy within a second or so: wait until
	// it refuses the first change it must refuse.
	image := `[{"op":"replace","path":"/spec/containers/0/image","value":"registry.example.com/evil:1"}]`
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := agent.CoreV1().Pods("vap-agent").Patch(ctx, "vap-probe", types.JSONPatchType, []byte(image), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the agent changed a pod's image for 30 s after the policy was applied")
		}
		time.Sleep(200 * time.Millisecond)
	}
	awaiting := `{"key":"` + v1.TaintKeyAwaitingPods + `","operator":"Equal","value":"default-abcde","effect":"NoSchedule"}`
	for _, tc := range []struct {
		name, patch string
		typ         types.PatchType
		allowed     bool
		message     string
	}{
		{name: "awaiting toleration", typ: types.JSONPatchType, allowed: true,
			patch: `[{"op":"add","path":"/spec/tolerations/-","value":` + awaiting + `}]`},
		{name: "pod deletion cost", typ: types.MergePatchType, allowed: true,
			patch: `{"metadata":{"annotations":{"controller.kubernetes.io/pod-deletion-cost":"-5","tenon.dev/pod-deletion-cost":"-5"}}}`},
		{name: "image", typ: types.JSONPatchType, patch: image, message: "may not change a pod's containers"},
		{name: "label", typ: types.MergePatchType, patch: `{"metadata":{"labels":{"app":"db"}}}`, message: "may not change a pod's labels"},
		{name: "another toleration", typ: types.JSONPatchType, message: "may only add tolerations of " + v1.TaintKeyAwaitingPods,
			patch: `[{"op":"add","path":"/spec/tolerations/-","value":{"key":"node.kubernetes.io/unschedulable","operator":"Exists"}}]`},
		{name: "another annotation", typ: types.MergePatchType, patch: `{"metadata":{"annotations":{"team":"b"}}}`,
			message: "may only change the pod deletion cost"},
		{name: "an annotation removed", typ: types.MergePatchType, patch: `{"metadata":{"annotations":{"team":null}}}`,
			message: "may only remove the pod deletion cost"},
		{name: "finalizer", typ: types.MergePatchType, patch: `{"metadata":{"finalizers":["example.com/hold"]}}`,
			message: "may not change a pod's finalizers"},
		{name: "deadline", typ: types.MergePatchType, patch: `{"spec":{"activeDeadlineSeconds":5}}`,
			message: "may not change a pod's activeDeadlineSeconds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := agent.CoreV1().Pods("vap-agent").Patch(ctx, "vap-probe", tc.typ, []byte(tc.patch), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
			if tc.allowed && err != nil {
				t.Errorf("the agent's %s patch was refused: %v", tc.name, err)
			}
			if !tc.allowed && (err == nil || !strings.Contains(err.Error(), tc.message)) {
				t.Errorf("the agent's %s patch: got %v, want a refusal saying %q", tc.name, err, tc.message)
			}
		})
	}
	if _, err := admin.CoreV1().Pods("vap-agent").Patch(ctx, "vap-probe", types.JSONPatchType, []byte(image), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("the policy limits other users too: %v", err)
	}
}
