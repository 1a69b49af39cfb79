package agent

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// annotationReplacementOf records on a replacement NodeClaim the nodes the
// disruption command that launched it removes. For Timings.ReplacementHold
// after its creation such a node is held (state.Node.Held): consolidating
// it while the pods it was launched for are still arriving would start a
// chain of replace-then-replace-again. The annotation survives restarts.
const annotationReplacementOf = v1.Group + "/replacement-of"

// inFlight is the set of nodes a disruption command is acting on right
// now (launching its replacements, re-validating, deleting), which no
// other command may take: the emptiness tick runs beside the consolidation
// tick. Once a node's claim is deleted, the Snapshot says so itself
// (MarkedForDeletion).
type inFlight struct {
	mu    sync.Mutex
	nodes map[string]string
	// targets are the existing nodes a command's pods move to, which
	// emptiness must not take while they wait for those pods: from the
	// command's start until the nodes it removes are gone (their pods
	// evicted and rescheduled), at most Timings.ReplacementHold.
	targets map[string]target
}

// target is why a node is held as the destination of a command's pods.
type target struct {
	of    []string
	why   string
	since time.Time
}

// addTargets holds the nodes to, where the pods of the command removing
// of (described by detail) go, from now.
func (f *inFlight) addTargets(to, of []string, detail string, now time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.targets == nil {
		f.targets = map[string]target{}
	}
	for _, n := range to {
		f.targets[n] = target{of: slices.Clone(of), why: detail, since: now}
	}
}

// dropTargets releases the destinations of the command removing of (it
// was abandoned: no pod moves).
func (f *inFlight) dropTargets(of []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for n, t := range f.targets {
		if slices.Equal(t.of, of) {
			delete(f.targets, n)
		}
	}
}

// targetHold says why node is held as a destination at now, or "": while
// a node its command removes is still in names, for less than hold. It
// forgets the holds that ended.
func (f *inFlight) targetHold(node string, names map[string]bool, now time.Time, hold time.Duration) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.targets[node]
	if !ok {
		return ""
	}
	if now.Sub(t.since) >= hold || !slices.ContainsFunc(t.of, func(o string) bool { return names[o] }) {
		delete(f.targets, node)
		return ""
	}
	return fmt.Sprintf("the pods of %s move to it (%s)", strings.Join(t.of, ", "), t.why)
}

// add holds nodes for the command described by detail.
func (f *inFlight) add(nodes []string, detail string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.nodes == nil {
		f.nodes = map[string]string{}
	}
	for _, n := range nodes {
		f.nodes[n] = detail
	}
}

// done releases nodes.
func (f *inFlight) done(nodes []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range nodes {
		delete(f.nodes, n)
	}
}

// get says which command holds node, or "".
func (f *inFlight) get(node string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.nodes[node]
}

// markHeld sets state.Node.Held on the nodes of v no voluntary disruption
// may take at now: those of a command in flight, the existing nodes its
// pods move to until the nodes it removes are gone (else emptiness takes
// such a node, still empty, from under the command: its pods would then
// need a new node, and the command is abandoned), and the replacements
// launched less than hold ago, unless a replacement is empty with the
// nodes it replaces gone (no pod is on its way to it: emptiness may take
// it, evicting nothing).
func markHeld(v *clusterView, inflight *inFlight, now time.Time, hold time.Duration) {
	pods, names := map[string]int{}, map[string]bool{}
	for _, p := range v.snap.Pods {
		if p.NodeName != "" && p.Workload() {
			pods[p.NodeName]++
		}
	}
	for _, n := range v.snap.Nodes {
		names[n.Name] = true
	}
	for _, n := range v.snap.Nodes {
		if cmd := inflight.get(n.Name); cmd != "" {
			n.Held = "a disruption command is in flight on it (" + cmd + ")"
			continue
		}
		if why := inflight.targetHold(n.Name, names, now, hold); why != "" {
			n.Held = why
			continue
		}
		claim := v.claimOfNode(n.Name)
		if claim == nil || claim.DeletionTimestamp != nil {
			continue
		}
		of, ok := claim.Annotations[annotationReplacementOf]
		if !ok || pods[n.Name] == 0 && !slices.ContainsFunc(strings.Split(of, ","), func(o string) bool { return names[o] }) {
			continue
		}
		if age := now.Sub(claim.CreationTimestamp.Time); age < hold {
			n.Held = fmt.Sprintf("a replacement for %s launched %s ago; not disrupted voluntarily until %s after its launch",
				of, age.Truncate(time.Second), hold)
		}
	}
}

// draining names a node being deleted that still holds workload pods,
// whose deletion began less than wait before now, or "". Consolidation
// plans nothing while one drains: the plan would count the draining pods
// where they are, and the next command would pack other pods into the
// free space they are about to take, so that its replacements are taken
// before its own pods move (and it is abandoned, or its pods go pending
// and buy new nodes). Past wait (a drain a PodDisruptionBudget holds up)
// it plans anyway.
func draining(v *clusterView, now time.Time, wait time.Duration) string {
	pods := map[string]int{}
	for _, p := range v.snap.Pods {
		if p.NodeName != "" && p.Workload() {
			pods[p.NodeName]++
		}
	}
	var out []string
	for _, n := range v.snap.Nodes {
		if !n.MarkedForDeletion || pods[n.Name] == 0 {
			continue
		}
		if since := deletionStart(v, n); !since.IsZero() && now.Sub(since) < wait {
			out = append(out, fmt.Sprintf("%s (%d pods)", n.Name, pods[n.Name]))
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// deletionStart is when n's deletion began: its claim's or its own
// deletion timestamp; zero when only the disruption taint says so (not a
// deletion draining() waits for).
func deletionStart(v *clusterView, n *state.Node) time.Time {
	if c := v.claimOfNode(n.Name); c != nil && c.DeletionTimestamp != nil {
		return c.DeletionTimestamp.Time
	}
	for _, o := range v.objects.Nodes {
		if o.Name == n.Name && o.DeletionTimestamp != nil {
			return o.DeletionTimestamp.Time
		}
	}
	return time.Time{}
}
