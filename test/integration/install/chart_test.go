// Package install_test checks the two ways to install the agent without Terraform agree: the
// Helm chart charts/tenon, linted and rendered by helm (built into bin/ by `make testbin`),
// renders the same objects as `tenon manifests` (manifests.Objects, which the tenon_agent
// resource applies too) for the same settings, and both apply with a server-side dry-run to a
// real API server.
package install_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
	"github.com/tenonhq/terraform-provider-tenon/hack/controlplane"
)

// chartDir is the chart under test.
var chartDir = filepath.Join("..", "..", "..", "charts", "tenon")

// kubeVersion is the Kubernetes version helm renders for: the control plane's minor, since a
// helm built from the module proxy without release ldflags assumes 1.20, older than the
// chart's kubeVersion.
const kubeVersion = "v1.35.0"

// installCase is one set of settings, as tenon manifests options and as the chart's values.
type installCase struct {
	name   string
	opts   manifests.Options
	values []string // helm --set and --set-string arguments, in order
}

func installCases() []installCase {
	return []installCase{
		{
			name:   "kwok with the defaults",
			opts:   manifests.Options{Cloud: "kwok", ClusterName: "dev"},
			values: []string{"--set", "cloud=kwok,clusterName=dev"},
		},
		{
			name: "aws with every setting",
			opts: manifests.Options{Cloud: "aws", ClusterName: "prod", Namespace: "karp", Image: "example.com/tenon:v9.9.9",
				ImagePullPolicy: "IfNotPresent", Replicas: 3,
				ServiceAccountAnnotations: map[string]string{"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/tenon"},
				Settings: manifests.Settings{BatchIdle: 2e9, BatchMax: 20e9, LogLevel: "debug", LogFormat: "text",
					InterruptionQueue: "tenon-prod", Region: "eu-west-1", Zones: []string{"eu-west-1a", "eu-west-1b"}},
				Args: []string{"--cluster-cidr=172.20.0.0/16", "--cluster-endpoint=https://api.example.com"}},
			values: []string{"--namespace", "karp", "--set", "cloud=aws,clusterName=prod,image.repository=example.com/tenon,image.tag=v9.9.9",
				"--set", "image.pullPolicy=IfNotPresent,replicas=3",
				"--set-string", `serviceAccount.annotations.eks\.amazonaws\.com/role-arn=arn:aws:iam::123456789012:role/tenon`,
				"--set", "settings.batchIdle=2s,settings.batchMax=20s,settings.logLevel=debug,settings.logFormat=text",
				"--set", "settings.interruptionQueue=tenon-prod,settings.region=eu-west-1,settings.zones={eu-west-1a,eu-west-1b}",
				"--set", "extraArgs={--cluster-cidr=172.20.0.0/16,--cluster-endpoint=https://api.example.com}"},
		},
		{
			name: "kwok in pull mode",
			opts: manifests.Options{Cloud: "kwok", ClusterName: "lab", Namespace: "tenon-lab",
				Settings:  manifests.Settings{KWOKLaunchDelay: 5e9, PodDeletionCost: true},
				PolicyGit: &manifests.PolicyGit{URL: "https://git.example.com/policy.git", Branch: "main", Path: "clusters/lab", Interval: 6e10, Secret: "policy-git"}},
			values: []string{"--namespace", "tenon-lab", "--set", "cloud=kwok,clusterName=lab,settings.kwokLaunchDelay=5s,settings.podDeletionCost=true",
				"--set", "policyGit.url=https://git.example.com/policy.git,policyGit.branch=main,policyGit.path=clusters/lab",
				"--set", "policyGit.interval=1m0s,policyGit.secret=policy-git"},
		},
		{
			name:   "kwok with a ServiceMonitor",
			opts:   manifests.Options{Cloud: "kwok", ClusterName: "dev", ServiceMonitor: &manifests.ServiceMonitor{}},
			values: []string{"--set", "cloud=kwok,clusterName=dev,serviceMonitor.enabled=true"},
		},
		{
			name: "aws with a labelled ServiceMonitor",
			opts: manifests.Options{Cloud: "aws", ClusterName: "prod",
				ServiceMonitor: &manifests.ServiceMonitor{Labels: map[string]string{"release": "kube-prometheus-stack", "team": "platform"}}},
			values: []string{"--set", "cloud=aws,clusterName=prod,serviceMonitor.enabled=true",
				"--set", "serviceMonitor.labels.release=kube-prometheus-stack,serviceMonitor.labels.team=platform"},
		},
	}
}

// helm runs the helm of `make testbin`, failing the test on error.
func helm(t *testing.T, args ...string) string {
	t.Helper()
	out, err := helmRun(t, args...)
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func helmRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	bin := filepath.Join(controlplane.BinDir(), "helm")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("helm is missing (%v): run `make testbin`", err)
	}
	cmd := exec.Command(bin, args...)
	// helm keeps no state for lint and template; point its folders at the test's.
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+home, "HELM_CONFIG_HOME="+home, "HELM_DATA_HOME="+home)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// renderChart lints the chart with the case's values and renders it with its CRDs.
func renderChart(t *testing.T, c installCase) []*unstructured.Unstructured {
	t.Helper()
	lintArgs := append([]string{"lint", "--strict", "--kube-version", kubeVersion, chartDir}, c.values...)
	helm(t, lintArgs...)
	args := append([]string{"template", "tenon", chartDir, "--include-crds", "--kube-version", kubeVersion}, c.values...)
	if !hasFlag(c.values, "--namespace") {
		args = append(args, "--namespace", manifests.DefaultNamespace)
	}
	return decodeYAML(t, helm(t, args...))
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag {
			return true
		}
	}
	return false
}

// fromManifests is what `tenon manifests` prints for the case: every object but the Namespace,
// which Helm leaves to `helm install --create-namespace`.
func fromManifests(t *testing.T, c installCase) []*unstructured.Unstructured {
	t.Helper()
	objs, err := manifests.Objects(c.opts)
	if err != nil {
		t.Fatal(err)
	}
	us, err := manifests.Unstructured(objs)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, u := range us {
		if u.GetKind() != "Namespace" {
			out = append(out, u)
		}
	}
	return out
}

func decodeYAML(t *testing.T, s string) []*unstructured.Unstructured {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(s), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatalf("decoding helm's output: %v", err)
		}
		if len(m) > 0 {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
}

// key names an object by kind, namespace and name.
func key(u *unstructured.Unstructured) string {
	return u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
}

// semantic is an object as the API server reads it: JSON values, without the empty maps, lists
// and nulls that one renderer writes and the other leaves out.
func semantic(t *testing.T, u *unstructured.Unstructured) any {
	t.Helper()
	data, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return prune(v)
}

func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e = prune(e); e == nil {
				delete(x, k)
			} else {
				x[k] = e
			}
		}
		if len(x) == 0 {
			return nil
		}
	case []any:
		for i, e := range x {
			x[i] = prune(e)
		}
		if len(x) == 0 {
			return nil
		}
	}
	return v
}

// TestChartRendersWhatManifestsPrints: helm lint passes and helm template renders the objects
// tenon manifests prints for the same settings, field for field.
func TestChartRendersWhatManifestsPrints(t *testing.T) {
	for _, c := range installCases() {
		t.Run(c.name, func(t *testing.T) {
			want := map[string]any{}
			for _, u := range fromManifests(t, c) {
				want[key(u)] = semantic(t, u)
			}
			got := map[string]any{}
			for _, u := range renderChart(t, c) {
				if _, dup := got[key(u)]; dup {
					t.Errorf("the chart renders %s twice", key(u))
				}
				got[key(u)] = semantic(t, u)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("helm template differs from tenon manifests (-manifests +chart):\n%s", diff)
			}
		})
	}
}

// TestChartRefusesWhatManifestsRefuses: the settings tenon manifests rejects fail the chart too.
func TestChartRefusesWhatManifestsRefuses(t *testing.T) {
	for _, tt := range []struct{ name, set, want string }{
		{"no cloud", "clusterName=dev", "cloud"},
		{"another cloud", "cloud=gcp,clusterName=dev", "cloud"},
		{"no cluster name", "cloud=kwok", "clusterName"},
		{"an interruption queue on kwok", "cloud=kwok,clusterName=dev,settings.interruptionQueue=q", "interruptionQueue"},
		{"a launch delay on aws", "cloud=aws,clusterName=dev,settings.kwokLaunchDelay=5s", "kwokLaunchDelay"},
		{"a bad log level", "cloud=kwok,clusterName=dev,settings.logLevel=loud", "logLevel"},
		{"an extra argument that is no flag", "cloud=kwok,clusterName=dev,extraArgs={oops}", "extraArgs"},
		{"an unknown value", "cloud=kwok,clusterName=dev,replica=3", "replica"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := helmRun(t, "template", "tenon", chartDir, "--kube-version", kubeVersion, "--set", tt.set)
			if err == nil || !strings.Contains(out, tt.want) {
				t.Errorf("helm template --set %s: err %v, output %q; want a failure naming %s", tt.set, err, out, tt.want)
			}
		})
	}
}

// TestChartCRDsAreTheGeneratedOnes: charts/tenon/crds holds engine/api/crds as they are (make
// generate copies them), so Helm installs the CRDs the binary embeds.
func TestChartCRDsAreTheGeneratedOnes(t *testing.T) {
	generated, err := filepath.Glob(filepath.Join("..", "..", "..", "engine", "api", "crds", "*.yaml"))
	if err != nil || len(generated) == 0 {
		t.Fatalf("no generated CRDs: %v", err)
	}
	inChart, _ := filepath.Glob(filepath.Join(chartDir, "crds", "*.yaml"))
	if len(inChart) != len(generated) {
		t.Errorf("charts/tenon/crds holds %d files, engine/api/crds %d: run `make generate`", len(inChart), len(generated))
	}
	for _, g := range generated {
		want, _ := os.ReadFile(g)
		got, err := os.ReadFile(filepath.Join(chartDir, "crds", filepath.Base(g)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("charts/tenon/crds/%s differs from %s: run `make generate`", filepath.Base(g), g)
		}
	}
}
