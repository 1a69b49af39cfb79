package acceptance_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

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
// image is pulled), imports, upgrades in place, restores a hand-edited Deployment, refuses to
// remove the CRDs while a node the agent launched exists, and removes everything with
// force_destroy.
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
				// A node the agent launched still exists: destroy refuses and says why.
				PreConfig: func() {
					n := kwokNode("acc-tenon-node")
					n.Annotations = nil
					n.Labels["tenon.dev/nodepool"] = "general"
					createNode(t, client, n)
				},
				Config:      agentConfig(c, "registry.invalid/tenon:v2", "info", false),
				Destroy:     true,
				ExpectError: regexp.MustCompile(`Tenon Still Manages Nodes[\s\S]*acc-tenon-node[\s\S]*force_destroy`),
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
