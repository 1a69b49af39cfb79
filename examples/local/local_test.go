// Package local_test checks the local example (examples/local), which `make demo` applies: the
// tenon.dev objects pass engine/api's Go validation (what Terraform reports at plan time), the
// whole folder is accepted by a real kube-apiserver with the CRDs installed, and `tenon
// simulate` can place the inflate Deployment on its pools.
package local_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
	"github.com/tenonhq/terraform-provider-tenon/hack/demo/kube"
)

// suite is etcd and kube-apiserver, started by the first test that needs them.
var suite = controlplane.NewSuite(controlplane.Options{})

func TestMain(m *testing.M) {
	os.Exit(suite.Main(m))
}

// policyFiles are the example's objects besides the agent's manifests, in the order make demo
// applies them.
var policyFiles = []string{"nodeclass.yaml", "nodepool.yaml", "provisioner.yaml", "inflate.yaml"}

func read(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestExamplesPassGoValidation decodes each object strictly into its Go type and runs the
// validation engine/api shares with the provider, after the CRD defaults.
func TestExamplesPassGoValidation(t *testing.T) {
	var class v1.NodeClass
	if err := yaml.UnmarshalStrict(read(t, "nodeclass.yaml"), &class); err != nil {
		t.Fatalf("nodeclass.yaml: %v", err)
	}
	class.SetDefaults()
	if errs := class.Validate(); len(errs) > 0 {
		t.Errorf("nodeclass.yaml: %v", errs.ToAggregate())
	}
	if class.Name != "kwok" || class.Spec.KWOK == nil {
		t.Errorf("nodeclass.yaml holds NodeClass %q with kwok %v, want the kwok NodeClass named kwok", class.Name, class.Spec.KWOK)
	}

	var pool v1.NodePool
	if err := yaml.UnmarshalStrict(read(t, "nodepool.yaml"), &pool); err != nil {
		t.Fatalf("nodepool.yaml: %v", err)
	}
	pool.SetDefaults()
	if errs := pool.Validate(); len(errs) > 0 {
		t.Errorf("nodepool.yaml: %v", errs.ToAggregate())
	}
	if d := pool.Spec.Disruption; d == nil || d.ConsolidationPolicy != v1.ConsolidationPolicyWhenEmptyOrUnderutilized {
		t.Errorf("nodepool.yaml: disruption %+v, want WhenEmptyOrUnderutilized", d)
	}
	if pool.Spec.Limits.Cpu().IsZero() {
		t.Error("nodepool.yaml has no cpu limit")
	}
	if ref := pool.Spec.Template.Spec.NodeClassRef; ref == nil || ref.Name != class.Name {
		t.Errorf("nodepool.yaml references NodeClass %v, want %s", ref, class.Name)
	}

	var prov v1alpha5.Provisioner
	if err := yaml.UnmarshalStrict(read(t, "provisioner.yaml"), &prov); err != nil {
		t.Fatalf("provisioner.yaml: %v", err)
	}
	prov.SetDefaults()
	if errs := prov.Validate(); len(errs) > 0 {
		t.Errorf("provisioner.yaml: %v", errs.ToAggregate())
	}
	if ttl := prov.Spec.TTLSecondsAfterEmpty; ttl == nil || *ttl != 30 {
		t.Errorf("provisioner.yaml: ttlSecondsAfterEmpty %v, want 30", ttl)
	}
	converted, _, err := v1alpha5.ToNodePool(&prov)
	if err != nil {
		t.Fatalf("provisioner.yaml does not convert to a NodePool: %v", err)
	}
	if errs := converted.Validate(); len(errs) > 0 {
		t.Errorf("provisioner.yaml converted to a NodePool: %v", errs.ToAggregate())
	}

	var inflate appsv1.Deployment
	if err := yaml.UnmarshalStrict(read(t, "inflate.yaml"), &inflate); err != nil {
		t.Fatalf("inflate.yaml: %v", err)
	}
	if inflate.Spec.Replicas == nil || *inflate.Spec.Replicas != 0 {
		t.Errorf("inflate.yaml: replicas %v, want 0 (make demo scales it)", inflate.Spec.Replicas)
	}
	if cpu := inflate.Spec.Template.Spec.Containers[0].Resources.Requests.Cpu().String(); cpu != "1" {
		t.Errorf("inflate.yaml: cpu request %s, want 1", cpu)
	}
}

// TestSimulatePlacesTheInflatePods runs the engine offline on the example with inflate at ten
// replicas: every pod is placed, the on-demand pool stays within its 8-CPU limit.
func TestSimulatePlacesTheInflatePods(t *testing.T) {
	var files []simulate.File
	for _, name := range policyFiles {
		data := read(t, name)
		if name == "inflate.yaml" {
			data = []byte(strings.Replace(string(data), "replicas: 0", "replicas: 10", 1))
		}
		files = append(files, simulate.File{Name: name, Data: data})
	}
	scenario, err := simulate.Parse(files...)
	if err != nil {
		t.Fatalf("tenon simulate rejects the example: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	report, err := scenario.Simulate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Unschedulable) > 0 {
		t.Fatalf("%d pods cannot be placed: %+v", len(report.Unschedulable), report.Unschedulable)
	}
	if len(report.Nodes) == 0 {
		t.Fatal("no nodes to launch for ten pending pods")
	}
	var onDemandCPU int64
	for _, n := range report.Nodes {
		if n.NodePool != "on-demand" {
			continue
		}
		it, ok := scenario.Catalog.Get(n.InstanceType)
		if !ok {
			t.Fatalf("node %s has instance type %s, which the catalog lacks", n.Name, n.InstanceType)
		}
		onDemandCPU += it.Capacity.Cpu().Value()
	}
	if onDemandCPU > 8 {
		t.Errorf("the on-demand pool gets %d CPUs of nodes, above its limit of 8", onDemandCPU)
	}
	t.Logf("tenon simulate: %d nodes, $%.4f/h for %d pods", report.Summary.NewNodes, report.Summary.CostPerHour, report.Summary.Placed)
}

// TestAPIServerAcceptsTheExamples applies every file of the folder, the agent's manifests
// (agent.yaml, which installs the CRDs) first, to a real kube-apiserver.
func TestAPIServerAcceptsTheExamples(t *testing.T) {
	cp := suite.Require(t)
	c, _, err := kube.NewClient(cp.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	files := append([]string{"agent.yaml"}, policyFiles...)
	all, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(files) {
		t.Fatalf("the folder holds %v; this test and make demo apply %v: add the new file to policyFiles", all, files)
	}
	objs, err := kube.ReadFiles(files...)
	if err != nil {
		t.Fatal(err)
	}
	if err := kube.Apply(ctx, c, objs); err != nil {
		t.Fatalf("the API server rejects the example: %v", err)
	}
	if objs[0].GetName() != manifests.DefaultNamespace {
		t.Errorf("agent.yaml starts with %s %s, want the %s Namespace", objs[0].GetKind(), objs[0].GetName(), manifests.DefaultNamespace)
	}
}
