package consolidation

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
	"github.com/tenonhq/terraform-provider-tenon/engine/static"
)

// Static pools (NodePool spec.replicas, engine/static) keep a fixed number
// of nodes. Consolidation leaves their nodes alone (emptiness and
// underutilization skip them with staticKept), drift replaces them with a
// node launched as engine/static launches one (replace first, as
// Karpenter's StaticDrift), and a pool above its replicas sheds the surplus
// here.

// ReasonOverprovisioned removes the nodes a static pool has above its
// replicas. Its commands are limited by the pool's budgets that name no
// reason.
const ReasonOverprovisioned Reason = "Overprovisioned"

// staticKept is why consolidation leaves a static pool's node alone.
func staticKept(pool *state.Pool) string {
	return fmt.Sprintf("nodepool %s is static (replicas %d): consolidation leaves its nodes alone", pool.Name, *pool.Replicas)
}

// overprovisioned removes, from each static pool with more nodes than its
// replicas, the surplus: empty nodes first, then those whose pods are
// cheapest to move (fewest pods, lowest priority), within the pool's
// budgets, PodDisruptionBudgets and do-not-disrupt. Karpenter deletes the
// surplus NodeClaims at once whatever the budgets; here a scale-down is a
// disruption like any other. Nodes still launching count toward the
// replicas but are not removed, nor is a node removed in their stead: once
// up, they are empty and go first. Pods
// that fit nowhere are evicted anyway (the pool was asked to shrink) and
// wait as pending pods.
type overprovisioned struct{}

func (overprovisioned) reason() Reason { return ReasonOverprovisioned }

func (overprovisioned) run(p *planner) error {
	var chosen []*nodeInfo
	for _, pool := range p.orig.Pools {
		if !pool.Static() {
			continue
		}
		// Nodes still launching count toward the replicas but cannot be
		// removed yet; once up they are empty and go first, so a surplus
		// they make up waits for them rather than taking a busy node now.
		surplus := static.Count(p.work, pool.Name) - int(*pool.Replicas) - launching(p.work, pool.Name)
		if surplus <= 0 {
			continue
		}
		picked, err := p.surplus(pool, surplus)
		if err != nil {
			return err
		}
		chosen = append(chosen, picked...)
	}
	if len(chosen) == 0 {
		return nil
	}
	r, _, err := p.simulate(chosen)
	if err != nil {
		return err
	}
	cmds := p.split(chosen, r, ReasonOverprovisioned)
	for _, c := range cmds {
		c.Detail = fmt.Sprintf("scale down nodepool %s to its replicas; %s", c.nodes[0].pool.Name, c.Detail)
	}
	return p.commit(cmds)
}

// surplus picks up to n nodes of static pool to remove, in order, taking
// each from the pool's budget; the others it looked at are kept with why.
func (p *planner) surplus(pool *state.Pool, n int) ([]*nodeInfo, error) {
	var cands []*nodeInfo
	for _, ni := range p.nodes() {
		if ni.pool != pool {
			continue
		}
		if why := managed(ni); why != "" {
			p.keep(ni.node.Name, why)
			continue
		}
		cands = append(cands, ni)
	}
	slices.SortStableFunc(cands, func(a, b *nodeInfo) int {
		return cmp.Or(cmp.Compare(len(a.pods), len(b.pods)), cmp.Compare(a.maxPriority, b.maxPriority),
			cmp.Compare(a.value, b.value), strings.Compare(a.node.Name, b.node.Name))
	})
	var out []*nodeInfo
	for _, ni := range cands {
		if len(out) == n {
			break
		}
		over := fmt.Sprintf("nodepool %s has more nodes than its replicas (%d)", pool.Name, *pool.Replicas)
		if why := voluntaryBlocker(ni, p.now); why != "" {
			p.hold(ni.node.Name, over+", but "+why, ReasonOverprovisioned, HeldByDoNotDisrupt)
			continue
		}
		why, err := p.budgets.take(pool, ReasonOverprovisioned)
		if err != nil {
			return nil, err
		}
		if why != "" {
			p.hold(ni.node.Name, over+", but "+why, ReasonOverprovisioned, HeldByBudget)
			continue
		}
		if why := p.pdbs.blocks(ni.pods); why != "" {
			p.budgets.give(pool)
			p.keep(ni.node.Name, over+", but "+why)
			continue
		}
		out = append(out, ni)
	}
	return out, nil
}

// driftStatic commits the replacement of n, a drifted node of a static pool
// whose budget was taken, or keeps it with why.
func (p *planner) driftStatic(n *nodeInfo, detail string) error {
	c, why, err := p.staticDrift(n)
	if err != nil {
		return err
	}
	if why != "" {
		p.budgets.give(n.pool)
		p.keep(n.node.Name, detail+", but "+why)
		return nil
	}
	c.Detail = detail + "; " + c.Detail
	return p.commit([]*command{c})
}

// staticDrift replaces a drifted node of a static pool: the command
// launches one node as engine/static would and moves the node's pods where
// packing puts them (on the replacement or elsewhere). Without room under
// limits.nodes for the replacement, the node is removed alone, and the
// agent launches its successor once it is gone (Karpenter's terminate-first
// at the node limit). It returns the command, or why the node stays.
func (p *planner) staticDrift(n *nodeInfo) (*command, string, error) {
	pool := n.pool
	var repl *packing.Claim
	if static.Count(p.work, pool.Name) > int(*pool.Replicas) {
		return nil, "its pool has more nodes than its replicas; the surplus goes first", nil
	}
	if roomForOneMore(p.work, pool) {
		zones := map[string]int{}
		taken := map[string]bool{}
		for _, o := range p.orig.Nodes {
			taken[o.Name] = true
		}
		for name := range p.launches {
			taken[name] = true
		}
		for _, w := range p.work.Nodes {
			taken[w.Name] = true
			if w.Pool == pool.Name && !w.MarkedForDeletion && w.Name != n.node.Name {
				zones[w.Zone]++
			}
		}
		cl, err := static.NewClaim(pool, freeName(pool.Name, taken), zones)
		if err != nil {
			return nil, err.Error(), nil
		}
		repl = cl
	}
	r, err := p.simulateWith(n, repl)
	if err != nil {
		return nil, "", err
	}
	for _, u := range r.Unschedulable {
		if podNode(n, u.Pod) != "" {
			return nil, fmt.Sprintf("pod %s fits nowhere else: %s", u.Pod, u.Reason), nil
		}
	}
	if repl != nil {
		for _, pl := range r.Placements {
			if pl.Node == repl.Name {
				repl.Pods = append(repl.Pods, pl.Pod)
			}
		}
		slices.Sort(repl.Pods)
		r.Claims = append(r.Claims, repl)
	}
	c := p.split([]*nodeInfo{n}, r, ReasonDrifted)[0]
	if repl != nil && !slices.Contains(c.claims, repl) {
		c.claims = append(c.claims, repl)
		o := repl.Chosen()
		c.Replacements = append(c.Replacements, Replacement{Name: repl.Name, NodePool: repl.Pool, InstanceType: o.InstanceType,
			Zone: o.Zone, CapacityType: o.CapacityType, PricePerHour: o.PricePerHour, Options: len(repl.Options), Pods: []string{}})
		c.CostAfterPerHour += o.PricePerHour
		c.Detail = describe(c)
	}
	return c, "", nil
}

// simulateWith is simulate of removing n with the replacement repl (when
// not nil) launched: the pods go to the other nodes or to repl, which
// packing would never open itself in a static pool.
func (p *planner) simulateWith(n *nodeInfo, repl *packing.Claim) (*packing.Result, error) {
	if repl == nil {
		r, _, err := p.simulate([]*nodeInfo{n})
		return r, err
	}
	node, err := materialize(n.pool, repl, p.now)
	if err != nil {
		return nil, err
	}
	saved := p.work
	w := *p.work
	w.Nodes = append(slices.Clone(p.work.Nodes), node)
	slices.SortFunc(w.Nodes, func(a, b *state.Node) int { return strings.Compare(a.Name, b.Name) })
	p.work = &w
	r, _, err := p.simulate([]*nodeInfo{n})
	p.work = saved
	if err != nil {
		return nil, err
	}
	// Packing sees the replacement as an existing node; the plan launches it.
	return r, nil
}

// launching counts pool's nodes that are still launching (in-flight claims,
// nodes not initialized), those being deleted aside.
func launching(snap *state.Snapshot, pool string) int {
	n := 0
	for _, node := range snap.Nodes {
		if node.Pool == pool && !node.MarkedForDeletion && (node.InFlight || !node.Initialized) {
			n++
		}
	}
	return n
}

// roomForOneMore reports whether pool's limits.nodes (if any) allows one
// node more than it has, nodes being deleted included.
func roomForOneMore(snap *state.Snapshot, pool *state.Pool) bool {
	limit, ok := pool.Limits[state.ResourceNodes]
	if !ok {
		return true
	}
	all := int64(0)
	for _, n := range snap.Nodes {
		if n.Pool == pool.Name {
			all++
		}
	}
	return all+1 <= limit.Value()
}

// freeName returns "<pool>-<n>" for the lowest n not in taken.
func freeName(pool string, taken map[string]bool) string {
	for i := 1; ; i++ {
		if name := fmt.Sprintf("%s-%d", pool, i); !taken[name] {
			return name
		}
	}
}
