// Package readonly_test checks the read-only ClusterRole of `tenon simulate --kubeconfig` and
// `tenon explain` on a real kube-apiserver: SubjectAccessReviews for a ServiceAccount bound to
// it allow get and list on each kind the agent's view reads and nothing else, and both commands
// work under that identity, through a kubeconfig holding the ServiceAccount's token alone.
package readonly_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent"
	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
)

// suite is etcd and kube-apiserver (with RBAC), started by the first test that needs them.
var suite = controlplane.NewSuite(controlplane.Options{})

func TestMain(m *testing.M) {
	os.Exit(suite.Main(m))
}

const (
	ns     = "readers"
	reader = "tenon-reader"
)

// TestReadOnlyRole binds a ServiceAccount to manifests.ReadOnlyClusterRole, asks the
// authorizer about every verb, then runs tenon simulate --kubeconfig (with --save and the
// replay) and tenon explain as that ServiceAccount.
func TestReadOnlyRole(t *testing.T) {
	cp := suite.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, cfg, err := kube.NewClient(cp.Kubeconfig, v1.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	if err := kube.InstallCRDs(ctx, c); err != nil {
		t.Fatal(err)
	}
	clients, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	bindReader(t, ctx, c)
	checkAccess(t, ctx, clients)
	seedCluster(t, ctx, c, clients)
	kubeconfig, token := readerKubeconfig(t, ctx, cfg, clients)
	runCommands(t, kubeconfig, token)
}

func bindReader(t *testing.T, ctx context.Context, c client.Client) {
	t.Helper()
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: reader, Namespace: ns}},
		manifests.ReadOnlyClusterRole(),
		&rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: reader},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: manifests.ReadOnlyClusterRoleName},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: reader, Namespace: ns}},
		},
	}
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
}

// checkAccess: get and list on each kind of the role, in any namespace; no write, no watch,
// no Secret, no ConfigMap, no other kind.
func checkAccess(t *testing.T, ctx context.Context, clients *kubernetes.Clientset) {
	t.Helper()
	user := "system:serviceaccount:" + ns + ":" + reader
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
	check := func(group, res, sub, verb, namespace string, want bool) {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: groups,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Group: group, Resource: res, Subresource: sub, Verb: verb, Namespace: namespace},
		}}
		got, err := clients.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("subject access review: %v", err)
		}
		if got.Status.Allowed != want {
			t.Errorf("%s %s/%s.%s in %q: allowed=%v, want %v (%s)", verb, res, sub, group, namespace, got.Status.Allowed, want, got.Status.Reason)
		}
	}
	// The authorizer learns of the new binding through its informer: wait (bounded) for it.
	deadline := time.Now().Add(30 * time.Second)
	for !allowed(t, ctx, clients, user, groups, "", "pods", "list") {
		if time.Now().After(deadline) {
			t.Fatalf("%s still cannot list pods 30s after the binding was created", user)
		}
		time.Sleep(200 * time.Millisecond)
	}
	writes := []string{"create", "update", "patch", "delete", "deletecollection", "watch"}
	for _, p := range manifests.ReadOnlyPermissions {
		namespace := ""
		if p.Group != "tenon.dev" && p.Resource != "nodes" {
			namespace = "default"
		}
		for _, v := range []string{"get", "list"} {
			check(p.Group, p.Resource, "", v, namespace, true)
			check(p.Group, p.Resource, "", v, "", true) // across namespaces
		}
		for _, v := range writes {
			check(p.Group, p.Resource, "", v, namespace, false)
			check(p.Group, p.Resource, "status", v, namespace, false)
		}
	}
	for _, other := range [][3]string{{"", "secrets", "default"}, {"", "configmaps", "default"}, {"apps", "deployments", "default"},
		{"", "serviceaccounts", ns}, {"rbac.authorization.k8s.io", "clusterroles", ""}, {"coordination.k8s.io", "leases", "default"}} {
		for _, v := range append([]string{"get", "list"}, writes...) {
			check(other[0], other[1], "", v, other[2], false)
		}
	}
	check("", "pods", "eviction", "create", "default", false)
	check("", "serviceaccounts", "token", "create", ns, false)
}

// allowed asks the authorizer whether user may verb resource across namespaces.
func allowed(t *testing.T, ctx context.Context, clients *kubernetes.Clientset, user string, groups []string, group, res, verb string) bool {
	t.Helper()
	sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user, Groups: groups, ResourceAttributes: &authorizationv1.ResourceAttributes{Group: group, Resource: res, Verb: verb},
	}}
	got, err := clients.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("subject access review: %v", err)
	}
	return got.Status.Allowed
}

// seedCluster makes a cluster to read: a kwok NodeClass and NodePool, and a pod kube-scheduler
// marked unschedulable (there is no scheduler here; the test writes its condition).
func seedCluster(t *testing.T, ctx context.Context, c client.Client, clients *kubernetes.Clientset) {
	t.Helper()
	class := &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: v1.NodeClassSpec{KWOK: &v1.KWOKNodeClassSpec{}}}
	pool := &v1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: v1.NodePoolSpec{Template: v1.NodeClaimTemplate{Spec: v1.NodeClaimTemplateSpec{
		NodeClassRef: &v1.NodeClassReference{Name: "default"},
	}}}}
	// No controller manager runs here to create the namespace's default ServiceAccount, which
	// admission wants for a pod.
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "default"}}
	for _, o := range []client.Object{class, pool, sa} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatalf("creating %s: %v", o.GetName(), err)
		}
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "app", Image: "app", Env: []corev1.EnvVar{{Name: "PASSWORD", Value: "ENVSECRET"}},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("4Gi")}},
	}}}}
	created, err := clients.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: "0/0 nodes are available"}}
	if _, err := clients.CoreV1().Pods("default").UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// readerKubeconfig writes a kubeconfig whose only credential is a token of the ServiceAccount,
// and returns its path and the token.
func readerKubeconfig(t *testing.T, ctx context.Context, cfg *rest.Config, clients *kubernetes.Clientset) (string, string) {
	t.Helper()
	expiry := int64(600)
	tr, err := clients.CoreV1().ServiceAccounts(ns).CreateToken(ctx, reader, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("requesting a token for %s: %v", reader, err)
	}
	ca := cfg.CAData
	if len(ca) == 0 && cfg.CAFile != "" {
		if ca, err = os.ReadFile(cfg.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["local"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: ca}
	kc.AuthInfos[reader] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	kc.Contexts["reader"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: reader}
	kc.CurrentContext = "reader"
	path := filepath.Join(t.TempDir(), "reader.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path, tr.Status.Token
}

// runCommands runs tenon simulate --kubeconfig --save, its replay and tenon explain as the
// reader: the live answer equals the replay's, the pod gets a new node, and no credential or
// environment value reaches the file or the output.
func runCommands(t *testing.T, kubeconfig, token string) {
	t.Helper()
	saved := filepath.Join(t.TempDir(), "cluster.yaml")
	live := run(t, simulate.CommandWith(agent.ReadCluster), "tenon simulate", "--kubeconfig", kubeconfig, "--save", saved, "-o", "json")
	var rep simulate.Report
	if err := json.Unmarshal([]byte(live), &rep); err != nil {
		t.Fatalf("%v: %s", err, live)
	}
	if rep.Summary.NewNodes != 1 || len(rep.Nodes) != 1 || !strings.Contains(strings.Join(rep.Nodes[0].Pods, ","), "default/web") {
		t.Errorf("tenon simulate --kubeconfig as the reader: want one new node for default/web, got %s", live)
	}
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{token, "ENVSECRET"} {
		if bytes.Contains(data, []byte(secret)) || strings.Contains(live, secret) {
			t.Errorf("the saved file or the output holds a secret")
		}
	}
	replay := run(t, simulate.Command, "tenon simulate -f", "-f", saved, "-o", "json")
	if stripTimes(t, live) != stripTimes(t, replay) {
		t.Errorf("the live answer differs from the saved file's:\nlive: %s\nreplay: %s", live, replay)
	}
	out := run(t, simulate.ExplainCommand(agent.ReadCluster), "tenon explain", "pod", "default/web", "--kubeconfig", kubeconfig, "-o", "json")
	var e simulate.Explanation
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if e.Verdict != simulate.VerdictNewNode || e.Node == nil || e.Node.InstanceType != rep.Nodes[0].InstanceType {
		t.Errorf("tenon explain pod default/web as the reader: %s; simulate launches %s", out, rep.Nodes[0].InstanceType)
	}
}

func run(t *testing.T, cmd func(context.Context, []string, io.Writer, io.Writer) int, name string, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := cmd(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("%s: exit %d: %s", name, code, stderr.String())
	}
	return stdout.String()
}

// stripTimes drops the solve timings, which differ between two runs.
func stripTimes(t *testing.T, report string) string {
	t.Helper()
	var rep simulate.Report
	if err := json.Unmarshal([]byte(report), &rep); err != nil {
		t.Fatal(err)
	}
	rep.Summary.SolveRuns, rep.Summary.SolveSeconds = nil, 0
	out, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
