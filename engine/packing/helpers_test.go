package packing

import (
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

var testCatalog = sync.OnceValue(func() *catalog.Catalog {
	c, err := catalog.New()
	if err != nil {
		panic(err)
	}
	return c
})

type poolOpt func(*state.Pool)

// pool builds a pool named name allowing amd64 on-demand in three zones.
func pool(name string, opts ...poolOpt) *state.Pool {
	p := &state.Pool{
		Name:   name,
		Kind:   "NodePool",
		Labels: map[string]string{scheduling.LabelNodePool: name},
		Requirements: scheduling.NewRequirements(
			scheduling.In(scheduling.LabelNodePool, name),
			scheduling.In(scheduling.LabelArch, scheduling.ArchAMD64),
			scheduling.In(scheduling.LabelCapacityType, scheduling.CapacityTypeOnDemand),
			scheduling.In(scheduling.LabelTopologyZone, "us-east-1a", "us-east-1b", "us-east-1c"),
		),
		InstanceTypes: testCatalog().InstanceTypes(),
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func withReq(r scheduling.Requirement) poolOpt {
	return func(p *state.Pool) { p.Requirements[r.Key] = r }
}

func withSpot() poolOpt {
	return withReq(scheduling.In(scheduling.LabelCapacityType, scheduling.CapacityTypeOnDemand, scheduling.CapacityTypeSpot))
}

func withTaint(key, value string, effect corev1.TaintEffect) poolOpt {
	return func(p *state.Pool) { p.Taints = append(p.Taints, corev1.Taint{Key: key, Value: value, Effect: effect}) }
}

func withLimit(name corev1.ResourceName, q string) poolOpt {
	return func(p *state.Pool) {
		if p.Limits == nil {
			p.Limits = corev1.ResourceList{}
		}
		p.Limits[name] = resource.MustParse(q)
	}
}

func withWeight(w int32) poolOpt { return func(p *state.Pool) { p.Weight = w } }

func withLabel(k, v string) poolOpt {
	return func(p *state.Pool) {
		p.Labels[k] = v
		p.Requirements[k] = scheduling.In(k, v)
	}
}

type podOpt func(*state.Pod)

// pod builds a pending pod in namespace default.
func pod(name, cpu, mem string, opts ...podOpt) *state.Pod {
	p := &state.Pod{
		Namespace: "default",
		Name:      name,
		Labels:    map[string]string{},
		Requests: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(cpu),
			corev1.ResourceMemory: resource.MustParse(mem),
		},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func pods(n int, prefix, cpu, mem string, opts ...podOpt) []*state.Pod {
	out := make([]*state.Pod, n)
	for i := range out {
		out[i] = pod(fmt.Sprintf("%s-%d", prefix, i), cpu, mem, opts...)
	}
	return out
}

func label(k, v string) podOpt { return func(p *state.Pod) { p.Labels[k] = v } }

func request(name corev1.ResourceName, q string) podOpt {
	return func(p *state.Pod) { p.Requests[name] = resource.MustParse(q) }
}

func nodeSelector(k, v string) podOpt {
	return func(p *state.Pod) {
		if p.NodeSelector == nil {
			p.NodeSelector = map[string]string{}
		}
		p.NodeSelector[k] = v
	}
}

func affinity(p *state.Pod) *corev1.Affinity {
	if p.Affinity == nil {
		p.Affinity = &corev1.Affinity{}
	}
	return p.Affinity
}

func requireNode(key string, op corev1.NodeSelectorOperator, values ...string) podOpt {
	return func(p *state.Pod) {
		a := affinity(p)
		if a.NodeAffinity == nil {
			a.NodeAffinity = &corev1.NodeAffinity{}
		}
		a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}},
		}}}
	}
}

func preferNode(weight int32, key string, values ...string) podOpt {
	return func(p *state.Pod) {
		a := affinity(p)
		if a.NodeAffinity == nil {
			a.NodeAffinity = &corev1.NodeAffinity{}
		}
		a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, corev1.PreferredSchedulingTerm{
			Weight:     weight,
			Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOpIn, Values: values}}},
		})
	}
}

func term(key string, sel map[string]string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: sel}}
}

func antiAffinity(key string, sel map[string]string) podOpt {
	return func(p *state.Pod) {
		a := affinity(p)
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term(key, sel))
	}
}

func preferAntiAffinity(key string, sel map[string]string) podOpt {
	return func(p *state.Pod) {
		a := affinity(p)
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, corev1.WeightedPodAffinityTerm{Weight: 1, PodAffinityTerm: term(key, sel)})
	}
}

func podAffinity(key string, sel map[string]string) podOpt {
	return func(p *state.Pod) {
		a := affinity(p)
		if a.PodAffinity == nil {
			a.PodAffinity = &corev1.PodAffinity{}
		}
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term(key, sel))
	}
}

func spreadOn(key string, maxSkew int32, when corev1.UnsatisfiableConstraintAction, sel map[string]string) podOpt {
	return func(p *state.Pod) {
		p.TopologySpread = append(p.TopologySpread, corev1.TopologySpreadConstraint{
			MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when, LabelSelector: &metav1.LabelSelector{MatchLabels: sel},
		})
	}
}

func tolerate(key, value string, effect corev1.TaintEffect) podOpt {
	return func(p *state.Pod) {
		p.Tolerations = append(p.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: effect})
	}
}

func hostPort(port int32) podOpt {
	return func(p *state.Pod) {
		p.HostPorts = append(p.HostPorts, state.HostPort{Protocol: corev1.ProtocolTCP, Port: port})
	}
}

// existingNode builds a registered node of pool p with type t in zone.
func existingNode(name string, p *state.Pool, typ, zone string) *state.Node {
	it, ok := testCatalog().Get(typ)
	if !ok {
		panic("unknown type " + typ)
	}
	labels := nodeLabels(p, it, zone, scheduling.CapacityTypeOnDemand, name)
	return &state.Node{
		Name: name, Pool: p.Name, InstanceType: typ, Zone: zone, CapacityType: scheduling.CapacityTypeOnDemand,
		Labels: labels, Allocatable: it.Allocatable, Initialized: true,
	}
}

// snapshot builds a Snapshot of pools, nodes and bound pods.
func snapshot(pools []*state.Pool, nodes []*state.Node, bound []*state.Pod, daemons ...*state.DaemonSet) *state.Snapshot {
	return &state.Snapshot{Pools: pools, Nodes: nodes, Pods: bound, DaemonSets: daemons}
}

func daemonSet(name, cpu, mem string) *state.DaemonSet {
	return &state.DaemonSet{Namespace: "default", Name: name, Pod: pod(name, cpu, mem)}
}

func mustSolve(t testing.TB, snap *state.Snapshot, ps []*state.Pod) *Result {
	t.Helper()
	r, err := Solve(t.Context(), snap, ps)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	return r
}

func itoa(i int) string { return fmt.Sprint(i) }

func poolsOf(ps ...*state.Pool) []*state.Pool { return ps }
