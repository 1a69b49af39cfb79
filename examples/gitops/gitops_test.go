// Package gitops_test checks the GitOps example (examples/gitops): the Terraform configuration,
// the ArgoCD Application and the Flux Kustomization name the same repository, branch and path;
// and the pull mode works with exactly the RBAC the agent's manifests plus pull-mode-rbac.yaml
// grant, against a real kube-apiserver and git server.
package gitops_test

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/policysync"
	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/gitops"
	"github.com/tenonhq/terraform-provider-tenon/engine/gitops/gitopstest"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
)

var suite = controlplane.NewSuite(controlplane.Options{})

func TestMain(m *testing.M) {
	os.Exit(suite.Main(m))
}

func read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// tfDefault returns the default of a Terraform variable in main.tf.
func tfDefault(t *testing.T, tf, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)variable "` + name + `" \{.*?default\s*=\s*"([^"]*)"`).FindStringSubmatch(tf)
	if m == nil {
		t.Fatalf("main.tf: variable %s has no string default", name)
	}
	return m[1]
}

// TestExamplesAgree: ArgoCD and Flux read the repository, branch and path Terraform writes.
func TestExamplesAgree(t *testing.T) {
	tf := read(t, "main.tf")
	url, branch, path := tfDefault(t, tf, "git_url"), tfDefault(t, tf, "git_branch"), tfDefault(t, tf, "git_path")
	objs, err := kube.ReadFiles("argocd-application.yaml", "flux-kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	get := func(kind string, fields ...string) string {
		for _, o := range objs {
			if o.GetKind() == kind {
				v, _, _ := unstructuredString(o.Object, fields...)
				return v
			}
		}
		t.Fatalf("no %s", kind)
		return ""
	}
	for _, c := range []struct{ what, got, want string }{
		{"ArgoCD repoURL", get("Application", "spec", "source", "repoURL"), url},
		{"ArgoCD targetRevision", get("Application", "spec", "source", "targetRevision"), branch},
		{"ArgoCD path", get("Application", "spec", "source", "path"), path},
		{"Flux url", get("GitRepository", "spec", "url"), url},
		{"Flux branch", get("GitRepository", "spec", "ref", "branch"), branch},
		{"Flux path", strings.TrimPrefix(get("Kustomization", "spec", "path"), "./"), path},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q as main.tf writes", c.what, c.got, c.want)
		}
	}
}

func unstructuredString(obj map[string]any, fields ...string) (string, bool, error) {
	cur := any(obj)
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		cur = m[f]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

// TestPullModeRBAC runs the pull mode as the agent's ServiceAccount with the agent's RBAC
// (examples/local/agent.yaml) plus pull-mode-rbac.yaml: apply, prune, status and events work.
func TestPullModeRBAC(t *testing.T) {
	cp := suite.Require(t)
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	admin, cfg, err := kube.NewClient(cp.Kubeconfig, v1.AddToScheme, v1alpha5.AddToScheme)
	if err != nil {
		t.Fatal(err)
	}
	agentObjs, err := kube.ReadFiles("../local/agent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := kube.Apply(ctx, admin, agentObjs); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "tenon-system", Name: "tenon-policy-git"},
		Data:       map[string][]byte{policysync.SecretUsername: []byte(gitopstest.User), policysync.SecretPassword: []byte(gitopstest.Password)},
	}
	if err := admin.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}

	repo, err := gitops.Open(gitops.Options{URL: srv.GitURL("policy"), Path: "clusters/prod/tenon"})
	if err != nil {
		t.Fatal(err)
	}
	w := gitops.NewWriter(repo)
	class := &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "rbac-class"}, Spec: v1.NodeClassSpec{KWOK: &v1.KWOKNodeClassSpec{}}}
	pool := &v1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "rbac-pool"}, Spec: v1.NodePoolSpec{Template: v1.NodeClaimTemplate{
		Spec: v1.NodeClaimTemplateSpec{NodeClassRef: &v1.NodeClassReference{Name: "rbac-class"}}}}}
	if _, err := w.Apply(ctx, gitops.Change{Apply: []runtime.Object{class, pool}}); err != nil {
		t.Fatal(err)
	}

	asAgent := rest.CopyConfig(cfg)
	asAgent.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:tenon-system:tenon"}
	c, err := client.New(asAgent, client.Options{Scheme: admin.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := policysync.New(c, policysync.Options{
		Git:        gitops.Options{URL: srv.HTTPURL("policy"), Path: "clusters/prod/tenon", AllowInsecureHTTP: true}, // the loopback test server speaks http://,
		AuthSecret: &types.NamespacedName{Namespace: "tenon-system", Name: "tenon-policy-git"},
		Namespace:  "tenon-system",
	})
	if err != nil {
		t.Fatal(err)
	}
	// The agent's own RBAC does not cover the pull mode: the Syncer is refused.
	if _, err := s.SyncOnce(ctx); !apierrors.IsForbidden(err) {
		t.Fatalf("SyncOnce with the agent's RBAC only: %v, want Forbidden", err)
	}
	pullObjs, err := kube.ReadFiles("pull-mode-rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := kube.Apply(ctx, admin, pullObjs); err != nil {
		t.Fatal(err)
	}
	// RBAC changes reach the authorizer's cache within moments.
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := s.SyncOnce(ctx)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("SyncOnce as the agent with pull-mode-rbac.yaml: %v (status %+v)", err, st)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := admin.Get(ctx, client.ObjectKey{Name: "rbac-pool"}, &v1.NodePool{}); err != nil {
		t.Fatalf("rbac-pool not applied: %v", err)
	}
	if _, err := w.Apply(ctx, gitops.Change{Delete: []gitops.Ref{{Kind: "NodePool", Name: "rbac-pool"}}}); err != nil {
		t.Fatal(err)
	}
	st, err := s.SyncOnce(ctx)
	if err != nil || len(st.Pruned) != 1 {
		t.Fatalf("SyncOnce after delete: %v, pruned %v", err, st.Pruned)
	}
	var cm corev1.ConfigMap
	if err := admin.Get(ctx, client.ObjectKey{Namespace: "tenon-system", Name: policysync.DefaultName}, &cm); err != nil || cm.Data[policysync.KeyCommit] != st.Commit {
		t.Errorf("status ConfigMap %v, %v", cm.Data, err)
	}
}
