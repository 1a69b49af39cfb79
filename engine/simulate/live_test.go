package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// liveFixture is a cluster as the agent's view admits it: a pool that consolidates at once,
// node "kept" holding a do-not-disrupt pod (with an env secret, kubectl's last-applied
// annotation and an annotation that tries to start a YAML document of its own), node "idle"
// with nothing on it, node "byhand" that Tenon did not launch, and three pending pods: one that
// fits on idle, one that needs a new node and one no node can hold.
const liveFixture = `apiVersion: tenon.dev/v1
kind: NodeClass
metadata: {name: default}
spec: {kwok: {}}
---
apiVersion: tenon.dev/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {name: default}
      requirements:
        - {key: tenon.dev/capacity-type, operator: In, values: [on-demand]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 0s
    budgets: [{nodes: "100%"}]
---
apiVersion: v1
kind: Node
metadata:
  name: kept
  labels: {tenon.dev/nodepool: default, node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a, tenon.dev/capacity-type: on-demand, kubernetes.io/arch: amd64, kubernetes.io/os: linux}
---
apiVersion: v1
kind: Node
metadata:
  name: idle
  labels: {tenon.dev/nodepool: default, node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1b, tenon.dev/capacity-type: on-demand, kubernetes.io/arch: amd64, kubernetes.io/os: linux}
---
apiVersion: v1
kind: Node
metadata:
  name: byhand
  labels: {kubernetes.io/arch: amd64, kubernetes.io/os: linux}
status:
  allocatable: {cpu: 100m, memory: 1Gi, pods: "10"}
---
apiVersion: v1
kind: Pod
metadata:
  name: guarded
  namespace: default
  annotations:
    tenon.dev/do-not-disrupt: "true"
    kubectl.kubernetes.io/last-applied-configuration: '{"env":"LASTAPPLIEDSECRET"}'
    note: "x\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: injected}"
spec:
  nodeName: kept
  containers:
    - name: c
      command: [run, --password=COMMANDSECRET]
      env: [{name: TOKEN, value: ENVSECRET}]
      resources: {requests: {cpu: 500m, memory: 512Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: fits, namespace: default}
spec:
  containers: [{name: c, resources: {requests: {cpu: 500m, memory: 512Mi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec:
  containers: [{name: c, resources: {requests: {cpu: "6", memory: 8Gi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: huge, namespace: default}
spec:
  containers: [{name: c, resources: {requests: {cpu: "5000", memory: 1Gi}}}]
`

var liveNow = time.Date(2026, 11, 27, 16, 0, 0, 0, time.UTC)

// fakeCluster returns a ClusterReader serving liveFixture, and records the options it got.
func fakeCluster(t *testing.T, got *LiveOptions) ClusterReader {
	t.Helper()
	s, err := Parse(File{Name: "fixture.yaml", Data: []byte(liveFixture)})
	if err != nil {
		t.Fatal(err)
	}
	return func(_ context.Context, o LiveOptions) (*LiveCluster, error) {
		if got != nil {
			*got = o
		}
		return &LiveCluster{Objects: s.Objects, Region: "us-east-1", Zones: []string{"us-east-1a", "us-east-1b", "us-east-1c"}, Now: liveNow,
			Cluster: "dev", Waiting: []string{"default/new"}, LeftOut: map[string]string{"NodePool/broken": "invalid: spec.weight"}}, nil
	}
}

func runLive(t *testing.T, read ClusterReader, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := command{engine: packingSolver{}, now: fakeClock(), cluster: read, zeroTimings: true}
	code := c.run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestLiveAnswerIsTheSavedFilesAnswer: what tenon simulate --kubeconfig prints equals what
// tenon simulate -f prints on the file --save wrote, for packing and for consolidation.
func TestLiveAnswerIsTheSavedFilesAnswer(t *testing.T) {
	var opts LiveOptions
	read := fakeCluster(t, &opts)
	for _, mode := range [][]string{nil, {"--consolidate"}} {
		t.Run(strings.Join(append([]string{"packing"}, mode...), " "), func(t *testing.T) {
			saved := filepath.Join(t.TempDir(), "cluster.yaml")
			args := append([]string{"--kubeconfig", "kc", "--context", "dev", "--region", "us-east-1", "--zones", "us-east-1a, us-east-1b", "--save", saved, "-o", "json"}, mode...)
			code, live, stderr := runLive(t, read, args...)
			if code != ExitOK {
				t.Fatalf("live: exit %d: %s", code, stderr)
			}
			if opts.Kubeconfig != "kc" || opts.Context != "dev" || opts.Region != "us-east-1" || strings.Join(opts.Zones, ",") != "us-east-1a,us-east-1b" {
				t.Errorf("the reader got %+v", opts)
			}
			if !strings.Contains(stderr, "the agent leaves out NodePool/broken") || !strings.Contains(stderr, "default/new") {
				t.Errorf("stderr does not warn of the left-out pool and the waiting pod:\n%s", stderr)
			}
			code, replay, stderr := runLive(t, nil, append([]string{"-f", saved, "-o", "json"}, mode...)...)
			if code != ExitOK {
				t.Fatalf("replay: exit %d: %s", code, stderr)
			}
			if live != replay {
				t.Errorf("the live answer differs from the saved file's:\nlive:\n%s\nreplay:\n%s", live, replay)
			}
			if !strings.Contains(live, `"scenario": "dev"`) {
				t.Errorf("the report does not name the context:\n%s", live)
			}
		})
	}
}

// TestSavedFileHoldsNoSecretsAndNoInjection: the saved file is marshalled: the annotation that
// tries to open a Secret document stays a string, and env, command and last-applied values
// are left out.
func TestSavedFileHoldsNoSecretsAndNoInjection(t *testing.T) {
	saved := filepath.Join(t.TempDir(), "cluster.yaml")
	if code, _, stderr := runLive(t, fakeCluster(t, nil), "--kubeconfig", "kc", "--save", saved); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"ENVSECRET", "COMMANDSECRET", "LASTAPPLIEDSECRET", "last-applied-configuration", "managedFields"} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the saved file holds %q:\n%s", secret, data)
		}
	}
	s, err := Load(saved)
	if err != nil {
		t.Fatalf("the saved file does not load: %v", err)
	}
	if n := len(s.Objects.Pods); n != 4 {
		t.Errorf("the saved file holds %d pods, want 4 (an annotation must not add documents)", n)
	}
	for _, p := range s.Objects.Pods {
		if p.Name == "guarded" && !strings.Contains(p.Annotations["note"], "kind: Secret") {
			t.Errorf("the annotation lost its value: %q", p.Annotations["note"])
		}
	}
	if !s.Now.Equal(liveNow) {
		t.Errorf("spec.now = %v, want %v", s.Now, liveNow)
	}
	if info, err := os.Stat(saved); err == nil && info.Mode().Perm() != 0o600 {
		t.Errorf("the saved file's mode is %v, want 0600", info.Mode().Perm())
	}
}

func TestLiveFlagErrors(t *testing.T) {
	path := writeScenario(t, header+pool+deployment("1"))
	usageErr := func(context.Context, LiveOptions) (*LiveCluster, error) {
		return nil, &UsageError{Err: errors.New(`--context "x": no such context`)}
	}
	downErr := func(context.Context, LiveOptions) (*LiveCluster, error) {
		return nil, errors.New("reading the cluster at https://127.0.0.1:1: connection refused")
	}
	tests := []struct {
		name string
		read ClusterReader
		args []string
		code int
		want string
	}{
		{"--save needs a cluster", fakeCluster(t, nil), []string{"-f", path, "--save", "x.yaml"}, ExitBadInput, "--save writes a running cluster's snapshot: pass --kubeconfig"},
		{"--region needs a cluster", fakeCluster(t, nil), []string{"-f", path, "--region", "us-west-2"}, ExitBadInput, "--region and --zones price a running cluster"},
		{"-f and --kubeconfig exclude each other", fakeCluster(t, nil), []string{"-f", path, "--kubeconfig", "kc"}, ExitBadInput, "exclude each other"},
		{"a bad kubeconfig or context is usage", usageErr, []string{"--context", "x"}, ExitBadInput, `--context "x": no such context`},
		{"an unreachable server is a failure", downErr, []string{"--kubeconfig", "kc"}, ExitCheckFails, "connection refused"},
		{"a build without a reader says so", nil, []string{"--kubeconfig", "kc"}, ExitBadInput, "cannot read clusters"},
		{"an unwritable --save names the flag", fakeCluster(t, nil), []string{"--kubeconfig", "kc", "--save", filepath.Join(t.TempDir(), "no", "dir.yaml")}, ExitBadInput, "--save"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runLive(t, tt.read, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d; stderr does not contain %q:\n%s", code, tt.code, tt.want, stderr)
			}
		})
	}
}

func runExplain(t *testing.T, read ClusterReader, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := command{engine: packingSolver{}, now: fakeClock(), cluster: read}
	code := c.explain(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestExplain(t *testing.T) {
	read := fakeCluster(t, nil)
	tests := []struct {
		args    []string
		verdict string
		reason  string
	}{
		{[]string{"pod", "default/fits"}, VerdictExistingNode, "fits on existing node idle"},
		{[]string{"pod", "default/big"}, VerdictNewNode, "the agent launches a on-demand"},
		{[]string{"pod", "default/huge"}, VerdictUnschedulable, "cpu"},
		{[]string{"pod", "default/guarded"}, VerdictBound, "bound to node kept"},
		{[]string{"pod", "default/new"}, VerdictWaiting, "kube-scheduler has not marked it unschedulable"},
		{[]string{"node", "kept"}, VerdictKept, "do-not-disrupt"},
		{[]string{"node", "byhand"}, VerdictUnmanaged, "Tenon did not launch it"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, out, stderr := runExplain(t, read, append(tt.args, "-o", "json")...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var e Explanation
			if err := json.Unmarshal([]byte(out), &e); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if e.Verdict != tt.verdict || !strings.Contains(e.Reason, tt.reason) {
				t.Errorf("verdict %q (%s), want %q with %q", e.Verdict, e.Reason, tt.verdict, tt.reason)
			}
			if e.Cluster != "dev" || e.Now != "2026-11-27T16:00:00Z" {
				t.Errorf("cluster %q at %q, want dev at the read's time", e.Cluster, e.Now)
			}
			code, text, _ := runExplain(t, read, tt.args...)
			if code != ExitOK || !strings.Contains(text, tt.verdict) || !strings.Contains(text, "Why: ") {
				t.Errorf("text answer (exit %d):\n%s", code, text)
			}
		})
	}
}

// TestExplainIdleNodeAroundPendingPods: with a pending pod about to land on it, the empty node
// is kept, as the agent keeps it; the plan of the same cluster without pending pods removes it.
func TestExplainIdleNodeAroundPendingPods(t *testing.T) {
	code, out, stderr := runExplain(t, fakeCluster(t, nil), "node", "idle", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var e Explanation
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	if e.Verdict != VerdictKept {
		t.Errorf("idle: verdict %q (%s), want kept: a pending pod lands on it", e.Verdict, e.Reason)
	}
	s, err := Parse(File{Name: "fixture.yaml", Data: []byte(liveFixture)})
	if err != nil {
		t.Fatal(err)
	}
	var bound []*corev1.Pod
	for _, p := range s.Objects.Pods {
		if p.Spec.NodeName != "" {
			bound = append(bound, p)
		}
	}
	s.Objects.Pods = bound
	quiet := func(context.Context, LiveOptions) (*LiveCluster, error) {
		return &LiveCluster{Objects: s.Objects, Region: "us-east-1", Zones: s.Zones, Now: liveNow, Cluster: "dev"}, nil
	}
	if code, out, stderr = runExplain(t, quiet, "node", "idle", "-o", "json"); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	if e.Verdict != VerdictRemove || e.Command == nil || !strings.Contains(e.Reason, "Empty") {
		t.Errorf("idle without pending pods: verdict %q (%s), want remove as Empty", e.Verdict, e.Reason)
	}
}

func TestExplainUsage(t *testing.T) {
	read := fakeCluster(t, nil)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, ExitBadInput, "say what to explain"},
		{[]string{"service", "x"}, ExitBadInput, `unknown kind "service"`},
		{[]string{"pod"}, ExitBadInput, "explain pod needs the pod as NAMESPACE/NAME"},
		{[]string{"pod", "web-0"}, ExitBadInput, `explain pod "web-0": want NAMESPACE/NAME`},
		{[]string{"pod", "a/b/c"}, ExitBadInput, "want NAMESPACE/NAME"},
		{[]string{"node"}, ExitBadInput, "explain node needs the node's NAME"},
		{[]string{"node", "a", "b"}, ExitBadInput, `unexpected argument "b"`},
		{[]string{"node", "gone"}, ExitBadInput, `node gone: not in cluster "dev"`},
		{[]string{"pod", "default/gone"}, ExitBadInput, `pod default/gone: not in cluster "dev"`},
		{[]string{"node", "x", "-o", "yaml"}, ExitBadInput, "invalid value \"yaml\" for flag -o"},
		{[]string{"-h"}, ExitOK, "Usage: tenon explain pod NAMESPACE/NAME"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := runExplain(t, read, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d; stderr does not contain %q:\n%s", code, tt.code, tt.want, stderr)
			}
		})
	}
}
