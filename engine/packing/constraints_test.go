package packing_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing/check"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/state/statetest"
)

// solveChecked solves and fails on any check.Result violation or a lower bound
// above the cost.
func solveChecked(t *testing.T, snap *state.Snapshot, ps []*state.Pod) *packing.Result {
	t.Helper()
	r := mustSolve(t, snap, ps)
	for _, v := range check.Result(snap, ps, r) {
		t.Errorf("violation: %s", v)
	}
	if r.LowerBoundPerHour > r.CostPerHour+1e-9 {
		t.Errorf("lower bound %.4f above cost %.4f", r.LowerBoundPerHour, r.CostPerHour)
	}
	return r
}

func nodeOf(r *packing.Result, pod string) string {
	for _, p := range r.Placements {
		if p.Pod == "default/"+pod {
			return p.Node
		}
	}
	return ""
}

func claimOf(r *packing.Result, name string) *packing.Claim {
	for _, c := range r.Claims {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func reasonOf(r *packing.Result, pod string) string {
	for _, u := range r.Unschedulable {
		if u.Pod == "default/"+pod {
			return u.Reason
		}
	}
	return ""
}

// constraintCase is one scenario: the pods named in placed must be placed
// (check, when set, inspects the result), those in refused must be
// unschedulable with a reason containing the text given.
type constraintCase struct {
	name    string
	snap    *state.Snapshot
	pods    []*state.Pod
	placed  []string
	refused map[string]string
	check   func(t *testing.T, r *packing.Result)
}

func runCases(t *testing.T, cases []constraintCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := solveChecked(t, tc.snap, tc.pods)
			for _, p := range tc.placed {
				if nodeOf(r, p) == "" {
					t.Errorf("pod %s not placed: %s", p, reasonOf(r, p))
				}
			}
			for p, want := range tc.refused {
				got := reasonOf(r, p)
				if got == "" {
					t.Errorf("pod %s placed on %s, want refused", p, nodeOf(r, p))
				} else if !strings.Contains(got, want) {
					t.Errorf("pod %s reason %q, want it to contain %q", p, got, want)
				}
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}

func one(ps ...*state.Pod) []*state.Pod { return ps }

func TestResources(t *testing.T) {
	gpu := statetest.Pool("gpu", statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceType, "g5.xlarge", "g5.2xlarge")))
	runCases(t, []constraintCase{
		{name: "gpu fits", snap: statetest.Snapshot(statetest.Pools(gpu), nil, nil), pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithRequest(catalog.ResourceNVIDIAGPU, "1"))), placed: []string{"a"}},
		{name: "too many gpus", snap: statetest.Snapshot(statetest.Pools(gpu), nil, nil), pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithRequest(catalog.ResourceNVIDIAGPU, "4"))),
			refused: map[string]string{"a": `no instance type allowed by nodepool "gpu" has 4 nvidia.com/gpu; the largest allowed, g5.2xlarge, has 1`}},
		{name: "ephemeral storage", snap: statetest.Snapshot(statetest.Pools(statetest.Pool("default")), nil, nil), pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithRequest(corev1.ResourceEphemeralStorage, "100Gi"))),
			refused: map[string]string{"a": "ephemeral-storage"}},
	})
}

func TestDaemonSetOverhead(t *testing.T) {
	small := statetest.Pool("default", statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceType, "m5.large", "m5.xlarge")))
	ds := statetest.DaemonSet("agent", "1", "1Gi")
	elsewhere := statetest.DaemonSet("gpu-agent", "1", "1Gi")
	elsewhere.Pod.NodeSelector = map[string]string{"accelerator": "nvidia"}
	runCases(t, []constraintCase{
		{name: "overhead pushes to the larger type", snap: statetest.Snapshot(statetest.Pools(small), nil, nil, ds), pods: one(statetest.Pod("a", "1", "1Gi")), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				if got := r.Claims[0].Chosen().InstanceType; got != "m5.xlarge" {
					t.Errorf("type %s, want m5.xlarge (m5.large cannot hold the pod plus the daemonset)", got)
				}
			}},
		{name: "daemonset that does not schedule there adds nothing", snap: statetest.Snapshot(statetest.Pools(small), nil, nil, elsewhere), pods: one(statetest.Pod("a", "1", "1Gi")), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				if got := r.Claims[0].Chosen().InstanceType; got != "m5.large" {
					t.Errorf("type %s, want m5.large", got)
				}
			}},
		{name: "refused when the overhead leaves no room", snap: statetest.Snapshot(statetest.Pools(small), nil, nil, ds), pods: one(statetest.Pod("a", "3500m", "1Gi")),
			refused: map[string]string{"a": "has 3500m cpu"}},
	})
}

func TestNodeSelectorAndAffinity(t *testing.T) {
	def := statetest.Snapshot(statetest.Pools(statetest.Pool("default")), nil, nil)
	runCases(t, []constraintCase{
		{name: "zone selector", snap: def, pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithNodeSelector(scheduling.LabelTopologyZone, "us-east-1b"))), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				if z := r.Claims[0].Chosen().Zone; z != "us-east-1b" {
					t.Errorf("zone %s", z)
				}
			}},
		{name: "zone not in pool", snap: def, pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithNodeSelector(scheduling.LabelTopologyZone, "us-west-2a"))),
			refused: map[string]string{"a": `pod requires zone us-west-2a; nodepool "default" allows only us-east-1a, us-east-1b, us-east-1c`}},
		{name: "required family", snap: def, pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithRequiredNodeAffinity(scheduling.LabelInstanceFamily, corev1.NodeSelectorOpIn, "r6a"))), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				if typ := r.Claims[0].Chosen().InstanceType; !strings.HasPrefix(typ, "r6a.") {
					t.Errorf("type %s", typ)
				}
			}},
		{name: "arch not allowed", snap: def, pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithNodeSelector(scheduling.LabelArch, scheduling.ArchARM64))),
			refused: map[string]string{"a": "kubernetes.io/arch"}},
		{name: "custom label the pool lacks", snap: def, pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithNodeSelector("team", "x"))),
			refused: map[string]string{"a": "team"}},
		{name: "preferred zone honoured", snap: def, pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithPreferredNodeAffinity(10, scheduling.LabelTopologyZone, "us-east-1c"))), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				if z := r.Claims[0].Chosen().Zone; z != "us-east-1c" {
					t.Errorf("zone %s", z)
				}
			}},
		{name: "impossible preference relaxed", snap: def, pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithPreferredNodeAffinity(10, scheduling.LabelTopologyZone, "us-west-2a"))), placed: []string{"a"}},
		{name: "only the heaviest preference is enforced", snap: def,
			pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithPreferredNodeAffinity(10, scheduling.LabelTopologyZone, "us-east-1c"), statetest.WithPreferredNodeAffinity(1, scheduling.LabelInstanceFamily, "no-such-family"))), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				if z := r.Claims[0].Chosen().Zone; z != "us-east-1c" {
					t.Errorf("zone %s: the heavier preference should have been kept", z)
				}
			}},
	})
}

func TestTaints(t *testing.T) {
	gpu := statetest.Pool("gpu", statetest.WithTaint("dedicated", "gpu", corev1.TaintEffectNoSchedule))
	startup := statetest.Pool("default")
	startup.StartupTaints = []corev1.Taint{{Key: "cni", Value: "starting", Effect: corev1.TaintEffectNoSchedule}}
	startup.Taints = startup.StartupTaints
	soft := statetest.Pool("soft", statetest.WithTaint("spot", "maybe", corev1.TaintEffectPreferNoSchedule))
	runCases(t, []constraintCase{
		{name: "tolerated", snap: statetest.Snapshot(statetest.Pools(gpu), nil, nil), pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithToleration("dedicated", "gpu", corev1.TaintEffectNoSchedule))), placed: []string{"a"}},
		{name: "not tolerated", snap: statetest.Snapshot(statetest.Pools(gpu), nil, nil), pods: one(statetest.Pod("a", "1", "1Gi")),
			refused: map[string]string{"a": `taint dedicated=gpu:NoSchedule of nodepool "gpu" is not tolerated`}},
		{name: "startup taints ignored", snap: statetest.Snapshot(statetest.Pools(startup), nil, nil), pods: one(statetest.Pod("a", "1", "1Gi")), placed: []string{"a"}},
		{name: "PreferNoSchedule avoided, then used", snap: statetest.Snapshot(statetest.Pools(soft), nil, nil), pods: one(statetest.Pod("a", "1", "1Gi")), placed: []string{"a"}},
	})
}

func TestHostPorts(t *testing.T) {
	def := statetest.Pool("default")
	node := statetest.Node(def, "n1", "m5.4xlarge", "us-east-1a")
	bound := statetest.Pod("web-old", "100m", "100Mi", statetest.WithHostPort(80))
	bound.NodeName = "n1"
	inflight := statetest.Node(def, "claim-1", "m5.4xlarge", "us-east-1a")
	inflight.InFlight, inflight.Initialized = true, false
	runCases(t, []constraintCase{
		{name: "same port on different nodes", snap: statetest.Snapshot(statetest.Pools(def), nil, nil), pods: []*state.Pod{statetest.Pod("a", "1", "1Gi", statetest.WithHostPort(80)), statetest.Pod("b", "1", "1Gi", statetest.WithHostPort(80))}, placed: []string{"a", "b"},
			check: func(t *testing.T, r *packing.Result) {
				if nodeOf(r, "a") == nodeOf(r, "b") {
					t.Errorf("both on %s", nodeOf(r, "a"))
				}
			}},
		{name: "existing node's port taken", snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{node}, []*state.Pod{bound}), pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithHostPort(80)), statetest.Pod("b", "1", "1Gi")), placed: []string{"a", "b"},
			check: func(t *testing.T, r *packing.Result) {
				if nodeOf(r, "a") == "n1" || nodeOf(r, "b") != "n1" {
					t.Errorf("a on %s, b on %s", nodeOf(r, "a"), nodeOf(r, "b"))
				}
			}},
		{name: "a daemonset's port taken on every new node", snap: statetest.Snapshot(statetest.Pools(def), nil, nil, statetest.DaemonSet("ds", "100m", "100Mi", statetest.WithHostPort(80))),
			pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithHostPort(80)), statetest.Pod("b", "1", "1Gi", statetest.WithHostPort(81))), placed: []string{"b"},
			refused: map[string]string{"a": `host ports are taken by daemonset default/ds`}},
		{name: "a daemonset's port taken on an in-flight claim", snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{inflight}, nil, statetest.DaemonSet("ds", "100m", "100Mi", statetest.WithHostPort(80), statetest.WithNodeSelector("node.kubernetes.io/instance-type", "m5.4xlarge"))),
			pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithHostPort(80))), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				if nodeOf(r, "a") == "claim-1" {
					t.Error("a placed on the in-flight claim, where the daemonset takes its port")
				}
			}},
		{name: "port refused when the pool is capped", snap: statetest.Snapshot(statetest.Pools(statetest.Pool("default", statetest.WithLimit(corev1.ResourceCPU, "3"))), nil, nil),
			pods: []*state.Pod{statetest.Pod("a", "1", "1Gi", statetest.WithHostPort(80)), statetest.Pod("b", "1", "1Gi", statetest.WithHostPort(80))}, placed: []string{"a"},
			refused: map[string]string{"b": `nodepool "default" limit cpu=3 reached`}},
	})
}

func TestLimitsAndWeights(t *testing.T) {
	capped := statetest.Pool("default", statetest.WithLimit(corev1.ResourceCPU, "16"))
	heavy := statetest.Pool("heavy", statetest.WithWeight(10), statetest.WithLimit(corev1.ResourceCPU, "8"), statetest.WithTemplateLabel("tier", "heavy"))
	light := statetest.Pool("light", statetest.WithTemplateLabel("tier", "light"))
	inflight := statetest.Node(capped, "claim-1", "m5.2xlarge", "us-east-1a")
	inflight.InFlight, inflight.Initialized = true, false
	runCases(t, []constraintCase{
		{name: "limit reached", snap: statetest.Snapshot(statetest.Pools(capped), nil, nil), pods: statetest.Pods(6, "big", "7", "1Gi"),
			placed: []string{"big-0", "big-1"}, refused: map[string]string{"big-5": `nodepool "default" limit cpu=16 reached`}},
		{name: "nodes limit", snap: statetest.Snapshot(statetest.Pools(statetest.Pool("default", statetest.WithLimit(state.ResourceNodes, "2"))), nil, nil),
			pods:   statetest.Pods(3, "big", "7", "1Gi", statetest.WithAntiAffinity("kubernetes.io/hostname", map[string]string{"app": "big"}), statetest.WithLabel("app", "big")),
			placed: []string{"big-0", "big-1"}, refused: map[string]string{"big-2": `nodepool "default" limit nodes=2 reached (2 in use)`}},
		{name: "nodes limit counts in-flight claims", snap: statetest.Snapshot(statetest.Pools(statetest.Pool("default", statetest.WithLimit(state.ResourceNodes, "1"))), []*state.Node{inflight}, nil),
			pods: statetest.Pods(2, "p", "7", "1Gi"), placed: []string{"p-0"}, refused: map[string]string{"p-1": `limit nodes=1 reached`}},
		{name: "in-flight claims count and take pods", snap: statetest.Snapshot(statetest.Pools(capped), []*state.Node{inflight}, nil), pods: statetest.Pods(3, "p", "3", "1Gi"),
			placed: []string{"p-0", "p-1", "p-2"},
			check: func(t *testing.T, r *packing.Result) {
				if nodeOf(r, "p-0") != "claim-1" {
					t.Errorf("p-0 on %s, want the in-flight claim", nodeOf(r, "p-0"))
				}
			}},
		{name: "higher weight first, then fall back", snap: statetest.Snapshot(statetest.Pools(heavy, light), nil, nil), pods: statetest.Pods(4, "p", "3", "1Gi"), placed: []string{"p-0", "p-1", "p-2", "p-3"},
			check: func(t *testing.T, r *packing.Result) {
				pools := map[string]int{}
				for _, c := range r.Claims {
					pools[c.Pool]++
				}
				if pools["heavy"] == 0 || pools["light"] == 0 {
					t.Errorf("claims per pool %v, want both", pools)
				}
			}},
		{name: "no nodepool matches lists each", snap: statetest.Snapshot(statetest.Pools(statetest.Pool("a", statetest.WithTaint("k", "v", corev1.TaintEffectNoSchedule)), statetest.Pool("b", statetest.WithLimit(corev1.ResourceCPU, "1"))), nil, nil),
			pods: one(statetest.Pod("x", "2", "1Gi")), refused: map[string]string{"x": `no nodepool matches: taint k=v:NoSchedule of nodepool "a" is not tolerated`}},
	})
}

func TestExistingNodesFirst(t *testing.T) {
	def := statetest.Pool("default")
	n := statetest.Node(def, "n1", "m5.2xlarge", "us-east-1a")
	cordoned := statetest.Node(def, "n2", "m5.2xlarge", "us-east-1a")
	cordoned.Unschedulable = true
	taken := statetest.Node(def, "default-1", "m5.large", "us-east-1a")
	taken.Unschedulable = true
	runCases(t, []constraintCase{
		{name: "fills existing node", snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{n}, nil), pods: statetest.Pods(3, "p", "1", "1Gi"), placed: []string{"p-0", "p-1", "p-2"},
			check: func(t *testing.T, r *packing.Result) {
				if len(r.Claims) != 0 {
					t.Errorf("%d claims, want none", len(r.Claims))
				}
			}},
		{name: "claim names skip existing names", snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{taken}, nil), pods: statetest.Pods(1, "p", "1", "1Gi"), placed: []string{"p-0"},
			check: func(t *testing.T, r *packing.Result) {
				if len(r.Claims) != 1 || r.Claims[0].Name != "default-2" {
					t.Errorf("claims %v, want one named default-2", r.Claims)
				}
			}},
		{name: "skips cordoned node", snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{cordoned}, nil), pods: statetest.Pods(1, "p", "1", "1Gi"), placed: []string{"p-0"},
			check: func(t *testing.T, r *packing.Result) {
				if nodeOf(r, "p-0") == "n2" {
					t.Error("placed on a cordoned node")
				}
			}},
	})
}

func TestMinValuesAndPrices(t *testing.T) {
	mv := statetest.Pool("default", statetest.WithRequirement(scheduling.Exists(scheduling.LabelInstanceFamily).WithMinValues(5)))
	unpriced := statetest.Pool("default", statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceType, unpricedType(t))))
	runCases(t, []constraintCase{
		{name: "minValues keeps families", snap: statetest.Snapshot(statetest.Pools(mv), nil, nil), pods: one(statetest.Pod("a", "1", "1Gi")), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				seen := map[string]bool{}
				for _, o := range r.Claims[0].Options {
					seen[strings.Split(o.InstanceType, ".")[0]] = true
				}
				if len(seen) < 5 {
					t.Errorf("%d families in options", len(seen))
				}
			}},
		{name: "pods packed apart when together they break minValues", snap: statetest.Snapshot(statetest.Pools(statetest.Pool("default", statetest.WithRequirement(scheduling.In(scheduling.LabelInstanceType, "m5.large", "m5.xlarge").WithMinValues(2)))), nil, nil),
			pods: statetest.Pods(2, "p", "1.2", "1Gi"), placed: []string{"p-0", "p-1"},
			check: func(t *testing.T, r *packing.Result) {
				if nodeOf(r, "p-0") == nodeOf(r, "p-1") {
					t.Errorf("both on %s, whose only option is m5.xlarge", nodeOf(r, "p-0"))
				}
				for _, c := range r.Claims {
					if len(c.Options) < 2 {
						t.Errorf("claim %s has options %v, want both types", c.Name, c.Options)
					}
				}
			}},
		{name: "type without a price is never chosen", snap: statetest.Snapshot(statetest.Pools(unpriced), nil, nil), pods: one(statetest.Pod("a", "100m", "100Mi")),
			refused: map[string]string{"a": "no instance type with a price"}},
	})
}

func unpricedType(t *testing.T) string {
	for _, it := range statetest.Catalog().InstanceTypes() {
		if len(it.Offerings) == 0 {
			return it.Name
		}
	}
	t.Skip("every type has a price")
	return ""
}

// TestTopologyKeyOnNodes checks kube-scheduler's rule that a pod whose
// DoNotSchedule spread or required pod affinity names a key goes only on
// nodes carrying that label.
func TestTopologyKeyOnNodes(t *testing.T) {
	def := statetest.Pool("default")
	labelled := statetest.Pool("labelled", statetest.WithTemplateLabel("rack", "r1"))
	bare := statetest.Node(def, "bare", "m5.4xlarge", "us-east-1a")
	spread := statetest.WithSpread("rack", 1, corev1.DoNotSchedule, map[string]string{"app": "a"})
	runCases(t, []constraintCase{
		{name: "unknown key leaves the pod Pending", snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{bare}, nil),
			pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithLabel("app", "a"), spread)), refused: map[string]string{"a": "topology key rack is unknown"}},
		{name: "a pool labelling the key takes it", snap: statetest.Snapshot(statetest.Pools(def, labelled), []*state.Node{bare}, nil),
			pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithLabel("app", "a"), spread)), placed: []string{"a"},
			check: func(t *testing.T, r *packing.Result) {
				if len(r.Claims) != 1 || r.Claims[0].Pool != "labelled" {
					t.Errorf("a on %s, want a new node of pool labelled", nodeOf(r, "a"))
				}
			}},
		{name: "ScheduleAnyway does not need the key", snap: statetest.Snapshot(statetest.Pools(def), []*state.Node{bare}, nil),
			pods: one(statetest.Pod("a", "1", "1Gi", statetest.WithLabel("app", "a"), statetest.WithSpread("rack", 1, corev1.ScheduleAnyway, map[string]string{"app": "a"}))), placed: []string{"a"}},
	})
}

// TestOpenRequirements checks that a new node commits to one value of a
// key its pool leaves open (In [a, b]): pods requiring different values
// never share it, and its labels and requirements carry the value.
func TestOpenRequirements(t *testing.T) {
	open := statetest.Pool("default", statetest.WithRequirement(scheduling.In("tier", "a", "b")))
	a := statetest.Pod("a", "1", "1Gi", statetest.WithRequiredNodeAffinity("tier", corev1.NodeSelectorOpIn, "a"))
	b := statetest.Pod("b", "1", "1Gi", statetest.WithRequiredNodeAffinity("tier", corev1.NodeSelectorOpIn, "b"))
	free := statetest.Pod("free", "1", "1Gi")
	runCases(t, []constraintCase{
		{name: "different values apart", snap: statetest.Snapshot(statetest.Pools(open), nil, nil), pods: one(a, b, free), placed: []string{"a", "b", "free"},
			check: func(t *testing.T, r *packing.Result) {
				if nodeOf(r, "a") == nodeOf(r, "b") {
					t.Fatalf("a and b share %s", nodeOf(r, "a"))
				}
				for _, c := range r.Claims {
					v := c.Labels["tier"]
					if v != "a" && v != "b" {
						t.Errorf("claim %s has tier=%q, want a or b", c.Name, v)
					}
					if got, _ := c.Requirements.Label("tier"); got != v {
						t.Errorf("claim %s requires tier %s, labelled %q", c.Name, c.Requirements.Get("tier"), v)
					}
					for _, p := range c.Pods {
						if want := map[string]string{"default/a": "a", "default/b": "b"}[p]; want != "" && want != v {
							t.Errorf("%s on a node with tier=%q", p, v)
						}
					}
				}
			}},
	})
}
