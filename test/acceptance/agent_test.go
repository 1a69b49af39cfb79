package acceptance_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
)

var (
	deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

func agentConfig(c *cluster, image, logLevel string, force bool) string {
	return c.providerBlock() + fmt.Sprintf(`
resource "tenon_agent" "test" {
  cloud        = "kwok"
  cluster_name = "acceptance"
  image        = %q
  replicas     = 1
  settings     = { log_level = %q }
  service_account_annotations = { "example.com/owner" = "platform" }
  force_destroy = %t
  timeouts      = { create = "3m", update = "3m" }
}
`, image, logLevel, force)
}

// TestAgent: tenon_agent installs the agent (its Deployment rolls out on a KWOK node, where no
// image is pulled), imports, upgrades in place, and restores a hand-edited Deployment; the
// agent it installed, run in process with the Deployment's own arguments, launches a KWOK node
// for a pending pod; destroy then refuses to remove the CRDs while that node exists, and
// removes everything with force_destroy.
func TestAgent(t *testing.T) {
	c := requireCluster(t)
	ctx := context.Background()
	client, err := kubernetes.NewForConfig(c.rest)
	if err != nil {
		t.Fatal(err)
	}
	createNode(t, client, kwokNode("acc-kwok-0"))
	res := "tenon_agent.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providers,
		CheckDestroy: resource.ComposeTestCheckFunc(
			checkGoneNamespaced(ctx, c, deployments, "tenon-system", "tenon"),
			checkGone(ctx, c, crdResource, "nodepools.tenon.dev", "nodeclasses.tenon.dev", "provisioners.tenon.dev", "nodeclaims.tenon.dev"),
		),
		Steps: []resource.TestStep{
			{
				Config: agentConfig(c, "registry.invalid/tenon:v1", "debug", false),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("available_replicas"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("namespace"), knownvalue.StringExact("tenon-system")),
				},
				Check: resource.ComposeTestCheckFunc(
					checkLiveNamespaced(ctx, c, deployments, "tenon-system", "tenon", func(u *unstructured.Unstructured) error {
						if err := expectManager(u); err != nil {
							return err
						}
						return expectArg(u, "--log-level=debug")
					}),
					checkLive(ctx, c, crdResource, "nodepools.tenon.dev", expectManager),
				),
			},
			{ResourceName: res, ImportState: true, ImportStateId: "tenon-system", ImportStateVerify: true, ImportStateVerifyIgnore: []string{"timeouts"}},
			{
				Config: agentConfig(c, "registry.invalid/tenon:v2", "info", false),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				}},
				Check: checkLiveNamespaced(ctx, c, deployments, "tenon-system", "tenon", func(u *unstructured.Unstructured) error {
					if err := expectArg(u, "--log-level=info"); err != nil {
						return err
					}
					return expectImage(u, "registry.invalid/tenon:v2")
				}),
			},
			{
				PreConfig: func() {
					_, err := c.dynamic.Resource(deployments).Namespace("tenon-system").Patch(ctx, "tenon", types.StrategicMergePatchType,
						[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"registry.invalid/tenon:hacked"}]}}}}`),
						metav1.PatchOptions{FieldManager: "kubectl-set"})
					if err != nil {
						t.Fatalf("editing the agent's image: %v", err)
					}
				},
				Config: agentConfig(c, "registry.invalid/tenon:v2", "info", false),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
					plancheck.ExpectKnownValue(res, tfjsonpath.New("image"), knownvalue.StringExact("registry.invalid/tenon:v2")),
				}},
				Check: checkLiveNamespaced(ctx, c, deployments, "tenon-system", "tenon", func(u *unstructured.Unstructured) error {
					return expectImage(u, "registry.invalid/tenon:v2")
				}),
			},
			{
				// The agent works: run what the installed Deployment's container would (its image
				// cannot be pulled here) and watch it launch a KWOK node for a pending pod.
				PreConfig: func() {
					runInstalledAgent(t, c)
					launchForPendingPod(t, c, client)
				},
				Config: agentConfig(c, "registry.invalid/tenon:v2", "info", false),
			},
			{
				// A node the agent launched exists: destroy refuses and says why.
				Config:      agentConfig(c, "registry.invalid/tenon:v2", "info", false),
				Destroy:     true,
				ExpectError: regexp.MustCompile(`Tenon Still Manages Nodes[\s\S]*force_destroy`),
			},
			{
				Config: agentConfig(c, "registry.invalid/tenon:v2", "info", true),
				Check: checkLive(ctx, c, crdResource, "nodepools.tenon.dev", func(*unstructured.Unstructured) error {
					return nil // the refused destroy removed nothing
				}),
			},
		},
	})
}

func createNode(t *testing.T, client kubernetes.Interface, n *corev1.Node) {
	t.Helper()
	ctx := context.Background()
	if _, err := client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("creating node %s: %v", n.Name, err)
	}
	t.Cleanup(func() { _ = client.CoreV1().Nodes().Delete(context.Background(), n.Name, metav1.DeleteOptions{}) })
}

// kwokNode is a Node KWOK keeps Ready and whose pods it reports Running.
func kwokNode(name string) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: apiresource.MustParse("4"), corev1.ResourceMemory: apiresource.MustParse("16Gi"), corev1.ResourcePods: apiresource.MustParse("110"),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{controlplane.KWOKNodeAnnotation: "fake"},
			Labels:      map[string]string{"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
}

func agentContainer(u *unstructured.Unstructured) (map[string]any, error) {
	containers, _, err := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
	if err != nil {
		return nil, err
	}
	for _, c := range containers {
		if m, ok := c.(map[string]any); ok && m["name"] == "agent" {
			return m, nil
		}
	}
	return nil, fmt.Errorf("deployment %s has no agent container", u.GetName())
}

func expectArg(u *unstructured.Unstructured, arg string) error {
	c, err := agentContainer(u)
	if err != nil {
		return err
	}
	args, _, _ := unstructured.NestedStringSlice(c, "args")
	if !slices.Contains(args, arg) {
		return fmt.Errorf("agent args %v lack %s", args, arg)
	}
	return nil
}

func expectImage(u *unstructured.Unstructured, image string) error {
	c, err := agentContainer(u)
	if err != nil {
		return err
	}
	if c["image"] != image {
		return fmt.Errorf("agent image %v, want %s", c["image"], image)
	}
	return nil
}

// runInstalledAgent runs `tenon agent` in process with the arguments of the installed
// Deployment's container (local listen addresses, the admin kubeconfig), until the test ends.
func runInstalledAgent(t *testing.T, c *cluster) {
	t.Helper()
	u, err := c.dynamic.Resource(deployments).Namespace("tenon-system").Get(context.Background(), "tenon", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the agent's Deployment: %v", err)
	}
	container, err := agentContainer(u)
	if err != nil {
		t.Fatal(err)
	}
	live, _, _ := unstructured.NestedStringSlice(container, "args")
	if len(live) == 0 || live[0] != "agent" {
		t.Fatalf("the agent container's args %v do not start with the agent subcommand", live)
	}
	var args []string
	for _, a := range live[1:] {
		switch {
		case strings.HasPrefix(a, "--metrics-addr="):
			a = "--metrics-addr=127.0.0.1:0"
		case strings.HasPrefix(a, "--health-addr="):
			a = "--health-addr=127.0.0.1:0"
		}
		args = append(args, a)
	}
	args = append(args, "--kubeconfig="+c.kubeconfig)
	logPath := filepath.Join(t.TempDir(), "agent.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// What `tenon agent` (engine/agent.Command) does, but for klog.SetLogger: klog's logger is
	// process-global, and this process runs client-go for the test too.
	opts, err := agent.ParseFlags(args, io.Discard)
	if err != nil {
		t.Fatalf("the installed Deployment's arguments do not parse as agent flags: %v", err)
	}
	restConfig, err := agent.RestConfig(opts.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- agent.Run(ctx, restConfig, opts, agent.NewLogger(logFile, opts.LogLevel, opts.LogFormat))
	}()
	t.Logf("running the agent in process: tenon agent %s (log %s)", strings.Join(args, " "), logPath)
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the agent stopped with an error: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("the agent did not stop within 30s of its context ending")
		}
		_ = logFile.Close()
		if t.Failed() {
			data, _ := os.ReadFile(logPath)
			t.Logf("agent log:\n%s", tailLines(string(data), 40))
		}
	})
}

func tailLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// launchForPendingPod creates a kwok NodeClass, a NodePool and a pod that only that pool's
// nodes can run, and waits until the agent has launched a node and the pod runs on it.
func launchForPendingPod(t *testing.T, c *cluster, client kubernetes.Interface) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	objects := []struct {
		gvr schema.GroupVersionResource
		obj map[string]any
	}{
		{nodeClasses, map[string]any{"apiVersion": "tenon.dev/v1", "kind": "NodeClass", "metadata": map[string]any{"name": "acc-agent"},
			"spec": map[string]any{"kwok": map[string]any{}}}},
		{nodePools, map[string]any{"apiVersion": "tenon.dev/v1", "kind": "NodePool", "metadata": map[string]any{"name": "acc-agent"},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
				"nodeClassRef": map[string]any{"name": "acc-agent"},
				"requirements": []any{map[string]any{"key": "tenon.dev/capacity-type", "operator": "In", "values": []any{"on-demand"}}},
			}}}}},
	}
	for _, o := range objects {
		if _, err := c.dynamic.Resource(o.gvr).Create(ctx, &unstructured.Unstructured{Object: o.obj}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s: %v", o.gvr.Resource, err)
		}
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "inflate", Namespace: "default"},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"tenon.dev/nodepool": "acc-agent"},
			Containers: []corev1.Container{{Name: "inflate", Image: "registry.invalid/pause:1",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: apiresource.MustParse("1")}}}},
		},
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the pending pod: %v", err)
	}
	t.Cleanup(func() {
		bg := context.Background()
		_ = client.CoreV1().Pods("default").Delete(bg, "inflate", metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
		nodes, _ := client.CoreV1().Nodes().List(bg, metav1.ListOptions{LabelSelector: "tenon.dev/nodepool"})
		for _, n := range nodes.Items {
			_ = client.CoreV1().Nodes().Delete(bg, n.Name, metav1.DeleteOptions{})
		}
	})
	start := time.Now()
	for {
		p, err := client.CoreV1().Pods("default").Get(ctx, "inflate", metav1.GetOptions{})
		if err == nil && p.Status.Phase == corev1.PodRunning && p.Spec.NodeName != "" {
			node, err := client.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
			if err == nil && node.Labels["tenon.dev/nodepool"] == "acc-agent" {
				t.Logf("the agent launched node %s (%s) and the pod runs on it after %s", node.Name,
					node.Labels["node.kubernetes.io/instance-type"], time.Since(start).Round(time.Second))
				return
			}
		}
		select {
		case <-ctx.Done():
			state := "not found"
			if p != nil {
				state = fmt.Sprintf("phase %s on node %q", p.Status.Phase, p.Spec.NodeName)
			}
			t.Fatalf("the agent launched no node for the pending pod within 3m: pod %s", state)
		case <-time.After(time.Second):
		}
	}
}
