package agent

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/consolidation"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

func TestParseFlags(t *testing.T) {
	cases := []struct {
		name    string
		args    []string
		wantErr string
		check   func(t *testing.T, o Options)
	}{
		{name: "defaults", args: []string{"--cluster-name=dev"}, check: func(t *testing.T, o Options) {
			if o.Cloud != CloudKWOK || o.MetricsAddr != ":8080" || o.BatchIdle != time.Second || o.BatchMax != 10*time.Second || o.LogFormat != "json" {
				t.Errorf("defaults = %+v", o)
			}
		}},
		{name: "every flag", args: []string{"--cloud=aws", "--cluster-name=prod", "--kubeconfig=/k", "--metrics-addr=:9090", "--health-addr=:9091",
			"--leader-elect", "--batch-idle=2s", "--batch-max=20s", "--log-level=debug", "--log-format=text", "--kwok-launch-delay=3s",
			"--region=us-east-1", "--zones=us-east-1a, us-east-1b", "--cluster-cidr=172.20.0.0/16"}, check: func(t *testing.T, o Options) {
			if o.ClusterCIDR != "172.20.0.0/16" {
				t.Errorf("ClusterCIDR = %q", o.ClusterCIDR)
			}
			if o.Cloud != CloudAWS || o.ClusterName != "prod" || o.Kubeconfig != "/k" || !o.LeaderElect || o.BatchMax != 20*time.Second ||
				o.KWOKLaunchDelay != 3*time.Second || len(o.Zones) != 2 || o.Zones[1] != "us-east-1b" || o.LogFormat != "text" {
				t.Errorf("parsed %+v", o)
			}
		}},
		{name: "no cluster name", args: nil, wantErr: "--cluster-name is required"},
		{name: "unknown cloud", args: []string{"--cluster-name=x", "--cloud=gcp"}, wantErr: `--cloud "gcp": use kwok or aws`},
		{name: "batch max below idle", args: []string{"--cluster-name=x", "--batch-idle=5s", "--batch-max=1s"}, wantErr: "--batch-max 1s: must be at least --batch-idle"},
		{name: "bad log format", args: []string{"--cluster-name=x", "--log-format=xml"}, wantErr: `--log-format "xml"`},
		{name: "bad log level", args: []string{"--cluster-name=x", "--log-level=loud"}, wantErr: `--log-level "loud"`},
		{name: "negative delay", args: []string{"--cluster-name=x", "--kwok-launch-delay=-1s"}, wantErr: "must not be negative"},
		{name: "bad cluster CIDR", args: []string{"--cluster-name=x", "--cloud=aws", "--cluster-cidr=10.100.0.0"}, wantErr: `--cluster-cidr "10.100.0.0" is not a CIDR`},
		{name: "stray argument", args: []string{"--cluster-name=x", "run"}, wantErr: `unexpected argument "run"`},
		{name: "unknown flag", args: []string{"--cluster-name=x", "--nope"}, wantErr: "flag provided but not defined"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseFlags(tc.args, &bytes.Buffer{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, o)
		})
	}
}

func TestCommandExitCodes(t *testing.T) {
	var stderr bytes.Buffer
	if code := Command(context.Background(), []string{"--cloud=gcp", "--cluster-name=x"}, nil, &stderr); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "use kwok or aws") {
		t.Errorf("stderr %q does not say what to use", stderr.String())
	}
	stderr.Reset()
	if code := Command(context.Background(), []string{"--cloud=aws", "--cluster-name=x", "--kubeconfig=/does/not/exist"}, nil, &stderr); code != 1 {
		t.Errorf("unreadable kubeconfig: exit %d, want 1", code)
	}
}

func TestDurationString(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0s", 5 * time.Second: "5s", 90 * time.Second: "1m30s", 720 * time.Hour: "720h", time.Hour + 2*time.Second: "1h2s",
	} {
		if got := durationString(d); got != want {
			t.Errorf("durationString(%s) = %q, want %q", d, got, want)
		}
	}
}

func TestEvictionOrder(t *testing.T) {
	yes := true
	critical := int32(2_000_001_000)
	cases := []struct {
		name  string
		pod   *corev1.Pod
		group int
		evict bool
	}{
		{"ordinary", &corev1.Pod{}, 0, true},
		{"critical by class", &corev1.Pod{Spec: corev1.PodSpec{PriorityClassName: "system-node-critical"}}, 1, true},
		{"critical by priority", &corev1.Pod{Spec: corev1.PodSpec{Priority: &critical}}, 1, true},
		{"daemonset", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: []metav1.OwnerReference{{Kind: "DaemonSet", Name: "d", Controller: &yes}}}}, 2, true},
		{"finished", &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}, 0, false},
		{"mirror", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "x"}}}, 0, false},
		{"tolerates the disruption taint", &corev1.Pod{Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: v1.TaintKeyDisrupted, Operator: corev1.TolerationOpExists}}}}, 0, false},
		{"wildcard toleration still evicted", &corev1.Pod{Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}}, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := needsEviction(tc.pod); got != tc.evict {
				t.Errorf("needsEviction = %v, want %v", got, tc.evict)
			}
			if tc.evict {
				if got := evictionGroup(tc.pod); got != tc.group {
					t.Errorf("evictionGroup = %d, want %d", got, tc.group)
				}
			}
		})
	}
}

func TestNodeClaimFor(t *testing.T) {
	grace := 10 * time.Minute
	pool := &state.Pool{
		Name:                   "general",
		NodeClass:              "default",
		Labels:                 map[string]string{v1.LabelNodePool: "general", "team": "a"},
		Taints:                 []corev1.Taint{{Key: "dedicated", Value: "a", Effect: corev1.TaintEffectNoSchedule}},
		StartupTaints:          []corev1.Taint{{Key: "example.com/not-ready", Effect: corev1.TaintEffectNoSchedule}},
		TemplateHash:           "abc",
		TerminationGracePeriod: &grace,
	}
	claim := &packing.Claim{
		Name: "general-1",
		Pool: "general",
		Requirements: scheduling.NewRequirements(
			scheduling.In(v1.LabelNodePool, "general"),
			scheduling.In(scheduling.LabelArch, "amd64"),
			scheduling.In(scheduling.LabelHostname, "general-1"),
			scheduling.In(scheduling.LabelTopologyZone, "us-east-1a"),
		),
		Options: []packing.InstanceOption{
			{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "spot", PricePerHour: 0.03},
			{InstanceType: "m5a.large", Zone: "us-east-1a", CapacityType: "spot", PricePerHour: 0.031},
			{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "on-demand", PricePerHour: 0.096},
		},
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1500m")},
	}
	nc, err := nodeClaimFor(claim, pool)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(nc.Name, "general-") || nc.Name == "general-1" {
		t.Errorf("name %q: want the pool name and a random suffix", nc.Name)
	}
	reqs := map[string][]string{}
	for _, r := range nc.Spec.Requirements {
		reqs[r.Key] = r.Values
	}
	if got := strings.Join(reqs[scheduling.LabelInstanceType], ","); got != "m5.large,m5a.large" {
		t.Errorf("instance types %q, want the options' types cheapest first", got)
	}
	if got := strings.Join(reqs[scheduling.LabelCapacityType], ","); got != "spot,on-demand" {
		t.Errorf("capacity types %q", got)
	}
	if _, ok := reqs[scheduling.LabelHostname]; ok {
		t.Error("the claim requires a hostname")
	}
	if nc.Labels["team"] != "a" || nc.Annotations[v1.AnnotationNodePoolHash] != "abc" || nc.Spec.NodeClassRef.Name != "default" {
		t.Errorf("metadata %+v / %+v", nc.ObjectMeta, nc.Spec.NodeClassRef)
	}
	if len(nc.Spec.Taints) != 1 || len(nc.Spec.StartupTaints) != 1 || nc.Spec.ExpireAfter != v1.NeverDuration ||
		nc.Spec.TerminationGracePeriod == nil || *nc.Spec.TerminationGracePeriod != "10m" {
		t.Errorf("spec %+v", nc.Spec)
	}
	if len(nc.Finalizers) != 1 || nc.Finalizers[0] != v1.TerminationFinalizer {
		t.Errorf("finalizers %v", nc.Finalizers)
	}
}

// TestKubeletSizingMatchesSimulate: the agent sizes instance types by a
// Provisioner's kubeletConfiguration exactly as tenon simulate does.
func TestKubeletSizingMatchesSimulate(t *testing.T) {
	scenario := `
apiVersion: tenon.dev/v1
kind: NodeClass
metadata: {name: default}
spec: {kwok: {}}
---
apiVersion: tenon.dev/v1alpha5
kind: Provisioner
metadata: {name: small}
spec:
  providerRef: {name: default}
  kubeletConfiguration:
    maxPods: 20
    systemReserved: {cpu: 100m, memory: 200Mi}
`
	s, err := simulate.Parse(simulate.File{Name: "s.yaml", Data: []byte(scenario)})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	np, nc, err := v1alpha5.ToNodePool(s.Objects.Provisioners[0])
	if err != nil {
		t.Fatal(err)
	}
	if nc == nil {
		nc = s.Objects.NodeClasses[0]
	}
	got, err := sizeForKubelet(s.InstanceTypes(), np, nc)
	if err != nil {
		t.Fatal(err)
	}
	want := snap.Pools[0].InstanceTypes
	if len(got) != len(want) {
		t.Fatalf("%d types, simulate has %d", len(got), len(want))
	}
	for i := range got {
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods} {
			g, w := got[i].Allocatable[name], want[i].Allocatable[name]
			if g.Cmp(w) != 0 {
				t.Fatalf("%s allocatable %s = %s, simulate says %s", got[i].Name, name, g.String(), w.String())
			}
		}
	}
	if p := got[0].Allocatable[corev1.ResourcePods]; p.Value() != 20 {
		t.Errorf("maxPods not applied: %s", p.String())
	}
}

// TestStillValid: a consolidation command's nodes may go only when their
// pods fit on what is left without launching anything.
// validityNode is a Ready m5.large-labelled node of pool p with cpu
// allocatable; validityPod a pod of cpu bound to nodeName; validityBase
// the pool and class they belong to.
func validityNode(name, cpu string) string {
	return `
apiVersion: v1
kind: Node
metadata:
  name: ` + name + `
  labels: {tenon.dev/nodepool: p, kubernetes.io/arch: amd64, kubernetes.io/os: linux, node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/zone: us-east-1a, tenon.dev/capacity-type: on-demand}
status:
  allocatable: {cpu: "` + cpu + `", memory: 8Gi, pods: "30"}
`
}

func validityPod(name, nodeName, cpu string) string {
	return `
apiVersion: v1
kind: Pod
metadata: {name: ` + name + `, namespace: default}
spec:
  nodeName: ` + nodeName + `
  containers: [{name: c, image: x, resources: {requests: {cpu: "` + cpu + `"}}}]
`
}

const validityBase = `
apiVersion: tenon.dev/v1
kind: NodeClass
metadata: {name: default}
spec: {kwok: {}}
---
apiVersion: tenon.dev/v1
kind: NodePool
metadata: {name: p}
spec:
  template:
    spec:
      nodeClassRef: {name: default}
`

// validitySnapshot parses docs after validityBase.
func validitySnapshot(t *testing.T, docs []string) *state.Snapshot {
	t.Helper()
	s, err := simulate.Parse(simulate.File{Name: "s.yaml", Data: []byte(validityBase + "---" + strings.Join(docs, "---"))})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestStillValid(t *testing.T) {
	node, pod := validityNode, validityPod
	cases := []struct {
		name  string
		docs  []string
		valid bool
	}{
		{"fits on the other node", []string{node("a", "2"), node("b", "2"), pod("pod-x", "a", "500m"), pod("pod-y", "b", "500m")}, true},
		{"would need a new node", []string{node("a", "2"), node("b", "2"), pod("pod-x", "a", "1500m"), pod("pod-y", "b", "1500m")}, false},
		{"empty node", []string{node("a", "2"), node("b", "2"), pod("pod-y", "b", "1500m")}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap := validitySnapshot(t, tc.docs)
			why := stillValid(context.Background(), snap, []string{"a"}, 30*time.Second)
			if (why == "") != tc.valid {
				t.Errorf("stillValid = %q, want valid %v", why, tc.valid)
			}
		})
	}
}

// TestPlannedMovesFit: a command whose replacements run stays valid when
// each pod still fits where the plan moves it, whatever packing would do.
func TestPlannedMovesFit(t *testing.T) {
	node, pod := validityNode, validityPod
	daemonSet := `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`
	dsPod := func(name, nodeName string) string {
		return `
apiVersion: v1
kind: Pod
metadata:
  name: ` + name + `
  namespace: kube-system
  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds, controller: true}]
spec:
  nodeName: ` + nodeName + `
  containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
`
	}
	cmd := consolidation.Command{Nodes: []string{"a"}, Replacements: []consolidation.Replacement{{Name: "r-0"}},
		Moves: []consolidation.Move{{Pod: "default/pod-x", From: "a", To: "b"}, {Pod: "default/pod-y", From: "a", To: "r-0"}}}
	cases := []struct {
		name string
		docs []string
		fits bool
	}{
		{"both fit", []string{node("a", "4"), node("b", "2"), node("claim-r0", "2"), pod("pod-x", "a", "1"), pod("pod-y", "a", "2")}, true},
		{"b filled meanwhile", []string{node("a", "4"), node("b", "2"), node("claim-r0", "2"), pod("pod-x", "a", "1"), pod("pod-y", "a", "2"), pod("pod-z", "b", "1500m")}, false},
		{"a pod came to a since the plan", []string{node("a", "4"), node("b", "2"), node("claim-r0", "2"), pod("pod-x", "a", "1"), pod("pod-y", "a", "2"), pod("pod-w", "a", "100m")}, false},
		{"the daemonset's pod is still to come on b", []string{daemonSet, node("a", "4"), node("b", "1500m"), node("claim-r0", "4"), pod("pod-x", "a", "1"), pod("pod-y", "a", "2"),
			dsPod("agent-r0", "claim-r0")}, false},
		{"the daemonset's pods are there", []string{daemonSet, node("a", "4"), node("b", "1500m"), node("claim-r0", "4"), pod("pod-x", "a", "1"), pod("pod-y", "a", "2"),
			dsPod("agent-b", "b"), dsPod("agent-r0", "claim-r0")}, false},
		{"the daemonset's pods are there, room for the moves", []string{daemonSet, node("a", "4"), node("b", "2"), node("claim-r0", "3"), pod("pod-x", "a", "1"), pod("pod-y", "a", "2"),
			dsPod("agent-b", "b"), dsPod("agent-r0", "claim-r0")}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			snap := validitySnapshot(t, tc.docs)
			if got := plannedMovesFit(snap, cmd, []string{"claim-r0"}); got != tc.fits {
				t.Errorf("plannedMovesFit = %v, want %v", got, tc.fits)
			}
		})
	}
}

// TestMetricsRegisterTwice: a second agent in the same process reuses the
// collectors the first registered.
func TestMetricsRegisterTwice(t *testing.T) {
	reg := prometheus.NewRegistry()
	first, err := newMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	second, err := newMetrics(reg)
	if err != nil {
		t.Fatalf("second registration: %v", err)
	}
	if first.queueDepth != second.queueDepth || first.nodesTerminated != second.nodesTerminated {
		t.Error("the second agent's collectors are not the first's")
	}
}

// TestTimingsValidate: the production timings are valid; a timing that is
// not positive, or pairs out of order, are named.
func TestTimingsValidate(t *testing.T) {
	if err := DefaultTimings().validate(); err != nil {
		t.Fatalf("DefaultTimings: %v", err)
	}
	bad := DefaultTimings()
	bad.DisruptionInterval = 0
	bad.EvictionBackoffMax = bad.EvictionBackoffMin / 2
	bad.RenewDeadline = bad.LeaseDuration
	err := bad.validate()
	for _, want := range []string{"timing DisruptionInterval is 0s", "EvictionBackoffMax 500ms is below EvictionBackoffMin 1s", "RetryPeriod (2s) < RenewDeadline (10s) < LeaseDuration (10s)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	opts := DefaultOptions()
	opts.ClusterName = "x"
	opts.Timings.SolveTimeout = -time.Second
	if err := opts.Validate(); err == nil || !strings.Contains(err.Error(), "SolveTimeout") {
		t.Errorf("Options.Validate = %v, want the timing named", err)
	}
}
