package consolidation

import (
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// pdbs knows, for every PodDisruptionBudget, how many disruptions it allows
// now, and answers whether a command may disrupt a set of pods.
//
// The rule (Karpenter's): a voluntary command (emptiness has no pods to
// evict; expiration is forceful) may run only if every budget selecting
// one of its pods allows at least one disruption now. It does not count
// the command's evictions against the budget, and the plan does not sum
// them over its commands. That is safe because the agent never removes a
// pod behind the budget's back:
//
//   - engine/agent's termination evicts every pod through the Eviction API,
//     which answers 429 while the budget is used up (it checks and
//     decrements status.disruptionsAllowed with optimistic concurrency on
//     the PDB, so concurrent evictions cannot both spend the last one);
//     the drain retries, so the pods of a budget leave as their
//     replacements become Ready, a few at a time, and the budget holds
//     however many of them the command's nodes carry;
//   - the agent runs one consolidation command per tick and plans the next
//     on a fresh Snapshot (the PDBs' status included), so commands are
//     sequential; the nodes of one multi-node command are deleted together
//     and drained concurrently, but their evictions meet at the same
//     Eviction API, so they too are serialized per budget. No eviction
//     happens in parallel outside it, so nowhere does summing protect a
//     budget; summing would only make every node holding more of a
//     budget's pods than it allows at one instant (any node with two pods
//     of a maxUnavailable: 1 Deployment) impossible to consolidate.
//
// A budget allowing 0 still blocks: its drain would wait on something the
// agent cannot change (minAvailable equal to the replicas, or a pod
// already unhealthy), holding a tainted node and its replacements. The one
// way past a budget is the pool's terminationGracePeriod: once it has
// passed since the claim's deletion, the drain deletes the remaining pods,
// as the API documents; a short grace period with a tight budget and many
// pods can therefore exceed the budget, by the user's choice.
type pdbs struct {
	list []*state.PDB
	// allowed is what each budget allows now.
	allowed []int
	// of caches the budgets selecting each pod, by pod key.
	of map[string][]int
}

func newPDBs(snap *state.Snapshot) *pdbs {
	t := &pdbs{list: snap.PDBs, allowed: make([]int, len(snap.PDBs)), of: map[string][]int{}}
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
		t.allowed[i] = allowedDisruptions(b, expected, healthy)
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

// blocks says which budget forbids disrupting pods now ("PDB ns/name
// allows 0 disruptions"), or "" when every budget selecting one of them
// allows at least one (see pdbs for why that is enough).
func (t *pdbs) blocks(pods []*state.Pod) string {
	for _, p := range pods {
		for _, i := range t.of[p.Key()] {
			if t.allowed[i] < 1 {
				b := t.list[i]
				return fmt.Sprintf("PDB %s/%s allows 0 disruptions", b.Namespace, b.Name)
			}
		}
	}
	return ""
}
