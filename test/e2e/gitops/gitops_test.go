// Package gitops_test is the end-to-end test of both GitOps delivery styles together: the
// provider (served in process, driven by the real OpenTofu CLI) commits a NodeClass and a
// NodePool to a real git server; `tenon agent` (in process, KWOK cloud) pulls that path with
// --policy-git-url, applies it, and launches KWOK nodes for pending pods; `tofu destroy` is a
// commit that the agent prunes.
package gitops_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent"
	"github.com/tenonhq/terraform-provider-tenon/engine/agent/policysync"
	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/gitops/gitopstest"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
	"github.com/tenonhq/terraform-provider-tenon/provider"
)

// suite is the whole stack: the agent's nodes need KWOK, its pods the scheduler.
var suite = controlplane.NewSuite(controlplane.Options{ControllerManager: true, Scheduler: true, KWOK: true})

func TestMain(m *testing.M) {
	os.Exit(suite.Main(m))
}

var providers = map[string]func() (tfprotov6.ProviderServer, error){
	"tenon": providerserver.NewProtocol6WithError(provider.New("e2e")()),
}

func eventually(ctx context.Context, what string, ok func() (bool, error)) error {
	var last error
	for {
		done, err := ok()
		if done {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out waiting for %s: %w", what, errors.Join(ctx.Err(), last))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// TestProviderToGitToAgent: tofu apply commits the policy, the agent's pull mode applies it and
// launches nodes for pending pods, tofu destroy commits the removal and the agent prunes it.
func TestProviderToGitToAgent(t *testing.T) {
	cp := suite.Require(t)
	// This test is about the provider, so it runs whenever the tools exist.
	t.Setenv("TF_ACC", "1")
	testenv.RequireTofu(t, testenv.AcceptanceTest)
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	const path = "clusters/e2e/tenon"

	scheme, err := agent.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	if err := kube.InstallCRDs(ctx, c); err != nil {
		t.Fatal(err)
	}

	// The agent, with pull mode on, in process.
	opts := agent.DefaultOptions()
	opts.ClusterName, opts.Cloud = "gitops-e2e", agent.CloudKWOK
	opts.MetricsAddr, opts.HealthAddr = "0", "0"
	opts.LeaderElectNamespace = "kube-system"
	opts.PolicyGit = agent.PolicyGitOptions{URL: srv.GitURL("policy"), Branch: "main", Path: path, Interval: time.Second}
	agentCtx, stopAgent := context.WithCancel(ctx)
	agentDone := make(chan error, 1)
	go func() { agentDone <- agent.Run(agentCtx, cfg, opts, testr.New(t)) }()
	defer func() {
		stopAgent()
		select {
		case err := <-agentDone:
			if err != nil {
				t.Errorf("agent: %v", err)
			}
		case <-time.After(time.Minute):
			t.Errorf("agent did not stop within a minute")
		}
	}()

	config := fmt.Sprintf(`
provider "tenon" {
  git {
    url         = %q
    path        = %q
    author_name = "Terraform"
  }
}

resource "tenon_node_class" "kwok" {
  name = "e2e-kwok"
  kwok = {}
}

resource "tenon_nodepool" "general" {
  name = "e2e-general"
  template = {
    node_class   = tenon_node_class.kwok.name
    requirements = [{ key = "tenon.dev/capacity-type", operator = "In", values = ["on-demand"] }]
  }
}
`, srv.GitURL("policy"), path)

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providers,
		CheckDestroy: func(*terraform.State) error {
			wctx, wcancel := context.WithTimeout(ctx, time.Minute)
			defer wcancel()
			return eventually(wctx, "the agent to prune NodePool e2e-general and NodeClass e2e-kwok", func() (bool, error) {
				poolErr := c.Get(wctx, client.ObjectKey{Name: "e2e-general"}, &v1.NodePool{})
				classErr := c.Get(wctx, client.ObjectKey{Name: "e2e-kwok"}, &v1.NodeClass{})
				return apierrors.IsNotFound(poolErr) && apierrors.IsNotFound(classErr), errors.Join(poolErr, classErr)
			})
		},
		Steps: []resource.TestStep{{
			Config: config,
			Check: func(*terraform.State) error {
				if err := waitApplied(ctx, c); err != nil {
					return err
				}
				return runPods(ctx, c)
			},
		}},
	})
	// The status ConfigMap reports the branch head (the destroy's last commit), without error.
	head := srv.Head("policy", "main")
	var cm corev1.ConfigMap
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if err := eventually(wctx, "the status ConfigMap to report commit "+head, func() (bool, error) {
		err := c.Get(wctx, client.ObjectKey{Namespace: "kube-system", Name: policysync.DefaultName}, &cm)
		return err == nil && cm.Data[policysync.KeyCommit] == head && cm.Data[policysync.KeyError] == "", err
	}); err != nil {
		t.Errorf("%v; status ConfigMap %v", err, cm.Data)
	}
}

// waitApplied waits for the agent's pull mode to apply the NodePool terraform committed.
func waitApplied(ctx context.Context, c client.Client) error {
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	return eventually(wctx, "the agent to apply NodePool e2e-general from git", func() (bool, error) {
		var np v1.NodePool
		err := c.Get(wctx, client.ObjectKey{Name: "e2e-general"}, &np)
		return err == nil && np.Labels[policysync.SyncLabel] == policysync.DefaultName, err
	})
}

// runPods creates two pending pods and waits until they run on nodes of the pool, then removes
// them.
func runPods(ctx context.Context, c client.Client) error {
	replicas := int32(2)
	labels := map[string]string{"app": "gitops-e2e"}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "gitops-e2e"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{"tenon.dev/nodepool": "e2e-general"},
					Containers: []corev1.Container{{
						Name: "pause", Image: "registry.k8s.io/pause:3.10",
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: kresource.MustParse("1")}},
					}},
				},
			},
		},
	}
	if err := c.Create(ctx, dep); err != nil {
		return fmt.Errorf("creating the workload: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	err := eventually(wctx, "two pods running on nodes of pool e2e-general", func() (bool, error) {
		var pods corev1.PodList
		if err := c.List(wctx, &pods, client.InNamespace("default"), client.MatchingLabels(labels)); err != nil {
			return false, err
		}
		running := 0
		for _, p := range pods.Items {
			if p.Status.Phase != corev1.PodRunning || p.Spec.NodeName == "" {
				continue
			}
			var node corev1.Node
			if err := c.Get(wctx, client.ObjectKey{Name: p.Spec.NodeName}, &node); err != nil {
				return false, err
			}
			if node.Labels["tenon.dev/nodepool"] == "e2e-general" {
				running++
			}
		}
		return running == 2, fmt.Errorf("%d of 2 pods running on the pool's nodes", running)
	})
	if delErr := c.Delete(ctx, dep, client.PropagationPolicy(metav1.DeletePropagationBackground)); delErr != nil {
		err = errors.Join(err, delErr)
	}
	return err
}
