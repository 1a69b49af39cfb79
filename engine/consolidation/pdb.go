package consolidation

import (
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// pdbs tracks, for every PodDisruptionBudget, how many of its pods the plan
// may still evict. Evictions are summed over the whole plan, so a command
// (and the plan) never evicts more of a budget's pods than it allows.
type pdbs struct {
	list []*state.PDB
	// total is what each budget allows; left what the plan has not used.
	total, left []int
	// of caches the budgets selecting each pod, by pod key.
	of map[string][]int
}

func newPDBs(snap *state.Snapshot) *pdbs {
	t := &pdbs{list: snap.PDBs, total: make([]int, len(snap.PDBs)), left: make([]int, len(snap.PDBs)), of: map[string][]int{}}
	nodes := map[string]bool{}
	for _, n := range snap.Nodes {
		if !n.MarkedForDeletion {
			nodes[n.Name] = true
		}
	}
	for i, b := range snap.PDBs {
		expected, healthy := 0, 0
		for _, p := range snap.Pods {
			if p.Namespace != b.Namespace || p.DaemonSet || !b.Selector.Matches(labels.Set(p.Labels)) {
				continue
			}
			t.of[p.Key()] = append(t.of[p.Key()], i)
			expected++
			if p.NodeName != "" && nodes[p.NodeName] {
				healthy++
			}
		}
		t.total[i] = allowedDisruptions(b, expected, healthy)
		t.left[i] = t.total[i]
	}
	return t
}

// allowedDisruptions is the status figure when the disruption controller
// reported one, else computed as it does: healthy − minAvailable, or
// maxUnavailable − unhealthy; percentages of the expected pods, rounded up.
// A budget with neither field allows none.
func allowedDisruptions(b *state.PDB, expected, healthy int) int {
	if b.DisruptionsAllowed >= 0 {
		return int(b.DisruptionsAllowed)
	}
	scaled := func(v *intstr.IntOrString) int {
		n, err := intstr.GetScaledValueFromIntOrPercent(v, expected, true)
		if err != nil {
			return math.MaxInt32
		}
		return n
	}
	allowed := 0
	switch {
	case b.MinAvailable != nil:
		allowed = healthy - scaled(b.MinAvailable)
	case b.MaxUnavailable != nil:
		allowed = scaled(b.MaxUnavailable) - (expected - healthy)
	}
	return max(allowed, 0)
}

// take reserves evictions for pods, or says which budget forbids them and
// reserves nothing.
func (t *pdbs) take(pods []*state.Pod) string {
	need := map[int]int{}
	for _, p := range pods {
		for _, i := range t.of[p.Key()] {
			need[i]++
		}
	}
	for i := range t.list {
		if n := need[i]; n > t.left[i] {
			b := t.list[i]
			total := t.total[i]
			if total == 0 {
				return fmt.Sprintf("PDB %s/%s allows 0 disruptions", b.Namespace, b.Name)
			}
			return fmt.Sprintf("PDB %s/%s allows %d disruptions, %d left after this plan's other evictions, the node would evict %d", b.Namespace, b.Name, total, t.left[i], n)
		}
	}
	for i, n := range need {
		t.left[i] -= n
	}
	return ""
}

// give returns what take reserved for pods.
func (t *pdbs) give(pods []*state.Pod) {
	for _, p := range pods {
		for _, i := range t.of[p.Key()] {
			t.left[i]++
		}
	}
}
