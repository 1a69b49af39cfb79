package acceptance_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/tenonhq/terraform-provider-tenon/engine/gitops/gitopstest"
	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
)

// gitRepo is a git server with one repository, for the provider's git delivery target.
type gitRepo struct {
	srv  *gitopstest.Server
	name string
	path string
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	testenv.RequireTofu(t, testenv.AcceptanceTest)
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	return &gitRepo{srv: srv, name: "policy", path: "clusters/acc/tenon"}
}

func (g *gitRepo) providerBlock() string {
	return fmt.Sprintf(`provider "tenon" {
  git {
    url          = %q
    path         = %q
    author_name  = "Terraform"
    author_email = "terraform@example.com"
    # The test server speaks plain http://.
    allow_insecure_http = true
    auth {
      username = %q
      password = %q
    }
  }
}
`, g.srv.HTTPURL(g.name), g.path, gitopstest.User, gitopstest.Password)
}

// file returns a file of the branch head, or "" when it is not there.
func (g *gitRepo) file(name string) string {
	out := g.srv.Git(g.name, "ls-tree", "-r", "--name-only", "main")
	if !strings.Contains(out, g.path+"/"+name) {
		return ""
	}
	return g.srv.Git(g.name, "show", "main:"+g.path+"/"+name)
}

func (g *gitRepo) checkFile(name string, wants ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		content := g.file(name)
		if content == "" {
			return fmt.Errorf("%s is not in the branch head", name)
		}
		for _, w := range wants {
			if !strings.Contains(content, w) {
				return fmt.Errorf("%s lacks %q:\n%s", name, w, content)
			}
		}
		return nil
	}
}

func gitNodePoolConfig(g *gitRepo, name string, weight int) string {
	return g.providerBlock() + fmt.Sprintf(`
resource "tenon_nodepool" "test" {
  name = %q
  template = {
    requirements = [{ key = "tenon.dev/capacity-type", operator = "In", values = ["spot", "on-demand"] }]
    node_class   = "default"
  }
  weight = %d
}
`, name, weight)
}

// TestGitDelivery: with the git {} block every change is a commit: create, import, update,
// a hand edit in Git shown as drift and restored, destroy.
func TestGitDelivery(t *testing.T) {
	g := newGitRepo(t)
	res := "tenon_nodepool.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providers,
		CheckDestroy: func(*terraform.State) error {
			if g.file("nodepool/git-pool.yaml") != "" {
				return fmt.Errorf("nodepool/git-pool.yaml is still in Git after destroy")
			}
			if k := g.file("kustomization.yaml"); strings.Contains(k, "git-pool") {
				return fmt.Errorf("kustomization.yaml still lists the pool:\n%s", k)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: gitNodePoolConfig(g, "git-pool", 10),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("id"), knownvalue.StringExact("git-pool")),
					statecheck.ExpectKnownValue(res, tfjsonpath.New("template").AtMapKey("expire_after"), knownvalue.StringExact("720h")),
				},
				Check: resource.ComposeTestCheckFunc(
					g.checkFile("nodepool/git-pool.yaml", "# Managed by Tenon", "kind: NodePool", "weight: 10"),
					g.checkFile("kustomization.yaml", "- nodepool/git-pool.yaml"),
					func(*terraform.State) error {
						if log := g.srv.Git(g.name, "log", "-1", "--format=%an|%s"); strings.TrimSpace(log) != "Terraform|tenon: apply NodePool git-pool" {
							return fmt.Errorf("last commit %q", log)
						}
						return nil
					},
				),
			},
			{
				ResourceName:      res,
				ImportState:       true,
				ImportStateId:     "git-pool",
				ImportStateVerify: true,
			},
			{
				Config: gitNodePoolConfig(g, "git-pool", 20),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				}},
				Check: g.checkFile("nodepool/git-pool.yaml", "weight: 20"),
			},
			{
				// Drift: someone edits the file in Git; the plan shows it, apply restores it.
				PreConfig: func() {
					g.srv.Commit(g.name, "main", "hand edit", map[string]string{
						g.path + "/nodepool/git-pool.yaml": "apiVersion: tenon.dev/v1\nkind: NodePool\nmetadata: {name: git-pool}\nspec:\n  weight: 55\n  template:\n    spec:\n      nodeClassRef: {name: default}\n      requirements: [{key: tenon.dev/capacity-type, operator: In, values: [spot, on-demand]}]\n",
					})
				},
				Config: gitNodePoolConfig(g, "git-pool", 20),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
				}},
				Check: g.checkFile("nodepool/git-pool.yaml", "# Managed by Tenon", "weight: 20"),
			},
		},
	})
}

// TestGitDeliveryConcurrentWorkspaces: two workspaces applying to one repository at the same
// time lose neither's objects.
func TestGitDeliveryConcurrentWorkspaces(t *testing.T) {
	g := newGitRepo(t)
	var wg sync.WaitGroup
	for _, ws := range []string{"ws-a", "ws-b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			config := g.providerBlock()
			for i := range 3 {
				config += fmt.Sprintf(`
resource "tenon_nodepool" "p%d" {
  name     = "%s-%d"
  template = { node_class = "default" }
}
`, i, ws, i)
			}
			t.Run(ws, func(t *testing.T) {
				resource.Test(t, resource.TestCase{
					ProtoV6ProviderFactories: providers,
					Steps: []resource.TestStep{{
						Config: config,
						Check: func(*terraform.State) error {
							for i := range 3 {
								if g.file(fmt.Sprintf("nodepool/%s-%d.yaml", ws, i)) == "" {
									return fmt.Errorf("nodepool/%s-%d.yaml lost", ws, i)
								}
							}
							return nil
						},
					}},
				})
			})
		}()
	}
	wg.Wait()
	if k := g.file("kustomization.yaml"); strings.Contains(k, "ws-") {
		t.Errorf("kustomization.yaml lists pools after both workspaces were destroyed:\n%s", k)
	}
}

// TestGitDeliveryWithLiveStatus: with a kubernetes block beside git, objects still go to Git
// only, and their computed status is read from the cluster once something applied them there.
func TestGitDeliveryWithLiveStatus(t *testing.T) {
	c := requireCluster(t)
	g := newGitRepo(t)
	ctx := context.Background()
	res := "tenon_nodepool.test"
	config := strings.Replace(gitNodePoolConfig(g, "git-status-pool", 10), "  git {",
		fmt.Sprintf("  kubernetes {\n    config_path = %q\n  }\n  git {", c.kubeconfig), 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providers,
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: resource.ComposeTestCheckFunc(
					g.checkFile("nodepool/git-status-pool.yaml", "weight: 10"),
					func(*terraform.State) error {
						// Written to Git only: nothing reached the cluster.
						_, err := c.dynamic.Resource(nodePools).Get(ctx, "git-status-pool", metav1.GetOptions{})
						if !apierrors.IsNotFound(err) {
							return fmt.Errorf("git-status-pool in the cluster: %w, want NotFound", err)
						}
						return nil
					},
				),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("status").AtMapKey("nodes"), knownvalue.Int64Exact(0)),
				},
			},
			{
				// ArgoCD (here: the test) applies the file and the agent reports two nodes.
				PreConfig: func() {
					u := &unstructured.Unstructured{}
					if err := yaml.Unmarshal([]byte(g.file("nodepool/git-status-pool.yaml")), &u.Object); err != nil {
						t.Fatal(err)
					}
					created, err := c.dynamic.Resource(nodePools).Create(ctx, u, metav1.CreateOptions{})
					if err != nil {
						t.Fatalf("creating the pool as ArgoCD would: %v", err)
					}
					if err := unstructured.SetNestedField(created.Object, int64(2), "status", "nodes"); err != nil {
						t.Fatal(err)
					}
					if _, err := c.dynamic.Resource(nodePools).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
						t.Fatalf("setting the pool's status: %v", err)
					}
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(res, tfjsonpath.New("status").AtMapKey("nodes"), knownvalue.Int64Exact(2)),
				},
			},
		},
	})
	// Destroy removed the file from Git; the cluster's copy is ArgoCD's to prune, not Terraform's.
	if g.file("nodepool/git-status-pool.yaml") != "" {
		t.Errorf("nodepool/git-status-pool.yaml is still in Git after destroy")
	}
	if err := c.dynamic.Resource(nodePools).Delete(ctx, "git-status-pool", metav1.DeleteOptions{}); err != nil {
		t.Errorf("cleaning up the cluster's copy: %v", err)
	}
}
