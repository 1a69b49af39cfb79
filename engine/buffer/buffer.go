package buffer

import (
	"fmt"
	"math"
	"math/big"

	corev1 "k8s.io/api/core/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Namespace is the namespace of every placeholder pod. It is not a valid Kubernetes namespace
// (it has a colon), so a placeholder's key never collides with a real pod's.
const Namespace = "tenon:buffer"

// LabelPool names, on a placeholder pod, the pool whose buffer it holds.
const LabelPool = v1.Group + "/capacity-buffer"

// OwnerKind is the controller kind of placeholder pods: they have one (the pool's buffer), so
// they never count as bare pods that block disruption.
const OwnerKind = "CapacityBuffer"

// Priority is the placeholders' pod priority: below every real pod's.
const Priority int32 = math.MinInt32

// IsPlaceholder reports whether a pod key names a placeholder pod.
func IsPlaceholder(key string) bool {
	return len(key) > len(Namespace) && key[:len(Namespace)] == Namespace && key[len(Namespace)] == '/'
}

// Size is how many placeholder pods pool's buffer asks for, given the pods of snap: Pods, or
// Percent of what the workload pods bound to the pool's nodes request (each resource the
// buffer's pods request, the largest count of them), rounded up, capped by Pods when both are
// set and at v1.MaxBufferPods always. 0 for a pool with no buffer.
func Size(snap *state.Snapshot, pool *state.Pool) int {
	b := pool.Buffer
	if b == nil {
		return 0
	}
	if b.Percent == nil {
		return int(max(0, ptrValue(b.Pods)))
	}
	n := percentSize(snap, pool.Name, *b.Percent, b.Resources)
	if b.Pods != nil {
		n = min(n, int(max(0, *b.Pods)))
	}
	return n
}

// percentSize is how many placeholders of shape hold percent of what the workload pods on the
// pool's nodes request.
func percentSize(snap *state.Snapshot, pool string, percent int32, shape corev1.ResourceList) int {
	onPool := map[string]bool{}
	for _, n := range snap.Nodes {
		if n.Pool == pool && !n.MarkedForDeletion {
			onPool[n.Name] = true
		}
	}
	used := map[corev1.ResourceName]int64{}
	for _, p := range snap.Pods {
		if !p.Workload() || p.Placeholder || !onPool[p.NodeName] {
			continue
		}
		for name := range shape {
			if q, ok := p.Requests[name]; ok {
				used[name] += q.MilliValue()
			}
		}
	}
	n := 0
	for name, q := range shape {
		per := q.MilliValue()
		if per <= 0 || used[name] == 0 {
			continue
		}
		// ceil(used × percent / 100 / per), in integers so 20% of 5 cpu in 1-cpu pods is 1.
		num := new(big.Int).Mul(big.NewInt(used[name]), big.NewInt(int64(percent)))
		den := big.NewInt(100 * per)
		count := new(big.Int).Div(new(big.Int).Add(num, new(big.Int).Sub(den, big.NewInt(1))), den)
		if count.IsInt64() {
			n = max(n, int(min(count.Int64(), v1.MaxBufferPods)))
		}
	}
	return n
}

func ptrValue(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// Pods returns the placeholder pods of every pool's buffer, pending, in pool order, each named
// "<pool>-<n>" from 1 in Namespace. The percentages are taken from the pods of snap.
func Pods(snap *state.Snapshot) []*state.Pod {
	var out []*state.Pod
	for _, pool := range snap.Pools {
		n := Size(snap, pool)
		for i := 1; i <= n; i++ {
			out = append(out, placeholder(pool, i))
		}
	}
	return out
}

// placeholder is the i-th placeholder pod of pool's buffer: the buffer's requests, bound to the
// pool by node selector and to the buffer's requirements by node affinity, tolerating the pool's
// taints as the pods it makes room for must.
func placeholder(pool *state.Pool, i int) *state.Pod {
	b := pool.Buffer
	name := fmt.Sprintf("%s-%d", pool.Name, i)
	p := &state.Pod{
		Namespace:    Namespace,
		Name:         name,
		UID:          Namespace + "/" + name,
		Labels:       map[string]string{LabelPool: pool.Name},
		Requests:     b.Resources.DeepCopy(),
		NodeSelector: map[string]string{scheduling.LabelNodePool: pool.Name},
		Priority:     Priority,
		Owner:        state.Owner{Kind: OwnerKind, Name: pool.Name},
		Placeholder:  true,
	}
	for _, t := range pool.Taints {
		p.Tolerations = append(p.Tolerations, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect})
	}
	if len(b.Requirements) > 0 {
		term := corev1.NodeSelectorTerm{}
		for _, r := range b.Requirements {
			term.MatchExpressions = append(term.MatchExpressions, corev1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: r.Values})
		}
		p.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}},
		}}
	}
	return p
}
