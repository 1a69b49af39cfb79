package consolidation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tenonhq/terraform-provider-tenon/engine/buffer"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// method is one way of choosing nodes to disrupt. Plan runs them in a fixed
// order (repair, a static pool's surplus, emptiness, expiration, drift, consolidation); each sees the
// cluster as the commands before it leave it.
type method interface {
	// reason is the reason of the commands the method makes.
	reason() Reason
	// run adds the method's commands to the plan and records why it left
	// the nodes it looked at alone.
	run(p *planner) error
}

// methods is the fixed order.
func methods() []method {
	return []method{repair{}, overprovisioned{}, emptiness{}, expiration{}, drift{}, consolidation{}}
}

// Plan decides which nodes to remove or replace at now, and why every
// other node stays. It is deterministic for a given Snapshot, clock and
// options, and bounded by opts (never by wall-clock time); ctx only
// cancels it. The Snapshot is not changed.
func Plan(ctx context.Context, snap *state.Snapshot, now time.Time, opts Options) (*Result, error) {
	if snap == nil {
		return nil, errors.New("planning consolidation: nil snapshot")
	}
	// The capacity buffers' placeholders are bound to the room they hold,
	// so no method removes it: a node holding them is not empty, and a
	// plan removing it must place them elsewhere (engine/buffer).
	bound, _, err := buffer.Bind(ctx, snap)
	if err != nil {
		return nil, fmt.Errorf("planning consolidation: %w", err)
	}
	// Every simulation of this plan and of the plans its walk follows
	// packs against the same pools, and those of one step against the
	// same pods: packing compiles them once (packing.Cache). Simulations
	// compare costs only, never the packing's lower bound.
	if !opts.uncached {
		opts.Packing = append(slices.Clip(opts.Packing), packing.WithCache(packing.NewCache()), packing.WithoutLowerBound())
	}
	res, err := planOnce(ctx, bound, now, opts, nil, nil)
	if err == nil && opts.Lookahead > 0 && consolidates(res) {
		res, err = walk(ctx, bound, now, opts, res)
	} else if err == nil {
		res.Leaving = slices.Clone(res.removed)
	}
	if err != nil {
		return nil, err
	}
	if bound != snap {
		res.dropPlaceholders()
	}
	return res, nil
}

// dropPlaceholders takes the capacity buffers' placeholders out of what
// the plan evicts: they exist only in the plan (the room they hold is
// kept by the placements the plan made for them), so nothing evicts or
// binds them. Replacements still list them, to show the room they keep.
func (r *Result) dropPlaceholders() {
	r.PodsEvicted = 0
	for i := range r.Commands {
		c := &r.Commands[i]
		c.Moves = slices.DeleteFunc(c.Moves, func(m Move) bool { return buffer.IsPlaceholder(m.Pod) })
		r.PodsEvicted += len(c.Moves)
	}
	r.evicted = slices.DeleteFunc(r.evicted, buffer.IsPlaceholder)
	if r.result == nil {
		return
	}
	flat := *r.result
	flat.Placements = slices.DeleteFunc(slices.Clone(flat.Placements), func(pl packing.Placement) bool { return buffer.IsPlaceholder(pl.Pod) })
	flat.Unschedulable = slices.DeleteFunc(slices.Clone(flat.Unschedulable), func(u packing.Unschedulable) bool { return buffer.IsPlaceholder(u.Pod) })
	flat.Claims = slices.Clone(flat.Claims)
	for i, cl := range flat.Claims {
		c := *cl
		c.Pods = slices.DeleteFunc(slices.Clone(c.Pods), buffer.IsPlaceholder)
		flat.Claims[i] = &c
	}
	r.result = &flat
}

// planOnce runs the methods once; nodes in avoid receive no pods, and the
// consolidation search ranks the nodes in lead first (see walk).
func planOnce(ctx context.Context, snap *state.Snapshot, now time.Time, opts Options, avoid, lead map[string]bool) (*Result, error) {
	p := newPlanner(ctx, snap, now, opts)
	p.avoid, p.lead = avoid, lead
	for _, m := range methods() {
		if opts.Reasons != nil && !slices.Contains(opts.Reasons, m.reason()) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("planning consolidation: %w", err)
		}
		if err := m.run(p); err != nil {
			return nil, fmt.Errorf("planning consolidation (%s): %w", m.reason(), err)
		}
	}
	return p.finish(), nil
}

// planner is one Plan's state.
type planner struct {
	ctx  context.Context
	now  time.Time
	opts Options
	orig *state.Snapshot
	// work is the cluster after the commands so far.
	work  *state.Snapshot
	pools map[string]*state.Pool
	// info describes work's nodes, by name.
	info    map[string]*nodeInfo
	budgets *budgets
	pdbs    *pdbs
	values  *valuer
	// claims bounds what new nodes cost (see triage).
	claims *claimBound
	// kept is the first reason recorded for each node left alone; soft
	// the budget or PDB that refused it a place in the search, which a
	// later admission clears and any kept reason overrides.
	kept, soft map[string]string
	// held classifies the kept reasons a method's rule gave (Kept.Held).
	held    map[string]Kept
	removed map[string]bool
	fresh   map[string]bool
	// avoid are nodes the plan's end state removes (see walk): no pod
	// moves to them.
	avoid map[string]bool
	// lead are nodes the consolidation search ranks before every other
	// candidate (see walk).
	lead     map[string]bool
	commands []*command
	// launches maps each replacement to the command launching it.
	launches map[string]*command
	// flat is every command as one packing result against orig less the
	// removed nodes.
	flat        packing.Result
	evaluations int
	simulated   int
	// marked are the drained copies of nodes simulate made (see
	// markedForDeletion), sim the nodes it starts from (see simNodes).
	marked map[*state.Node]*state.Node
	sim    *simNodes
	// roomIdx is the free room of work's nodes (see rooms).
	roomIdx *roomIndex
	// balanced are the totals of the Balanced pools (balanced.go).
	balanced map[string]balanceTotals
}

// command is a Command with what applying and validating it needs.
type command struct {
	Command
	nodes  []*nodeInfo
	pods   []*state.Pod
	claims []*packing.Claim
	// dest maps each evicted pod to its node ("" when none).
	dest map[string]string
	// reasons are the unplaceable pods' reasons (expired nodes only).
	reasons map[string]string
}

func newPlanner(ctx context.Context, snap *state.Snapshot, now time.Time, opts Options) *planner {
	p := &planner{
		ctx: ctx, now: now, opts: opts, orig: snap, work: snap,
		pools: map[string]*state.Pool{}, kept: map[string]string{}, soft: map[string]string{}, held: map[string]Kept{}, removed: map[string]bool{}, fresh: map[string]bool{}, launches: map[string]*command{}, marked: map[*state.Node]*state.Node{},
		budgets: newBudgets(snap, now), pdbs: newPDBs(snap),
	}
	for _, pool := range snap.Pools {
		p.pools[pool.Name] = pool
	}
	p.values = newValuer(snap)
	p.claims = newClaimBound(snap)
	p.index()
	p.balanced = p.balancedTotals()
	return p
}

// index rebuilds info for the working snapshot.
func (p *planner) index() {
	p.info = make(map[string]*nodeInfo, len(p.work.Nodes))
	for _, n := range p.work.Nodes {
		p.info[n.Name] = &nodeInfo{node: n, pool: p.pools[n.Pool], price: n.PricePerHour, fresh: p.fresh[n.Name]}
	}
	for _, pod := range p.work.Pods {
		ni := p.info[pod.NodeName]
		if ni == nil || !pod.Workload() {
			continue
		}
		if len(ni.pods) == 0 || pod.Priority > ni.maxPriority {
			ni.maxPriority = pod.Priority
		}
		ni.pods = append(ni.pods, pod)
		ni.value += p.values.pod(pod, ni.pool)
	}
}

// nodes returns the working snapshot's nodes that were in the original
// snapshot and are not removed, by name.
func (p *planner) nodes() []*nodeInfo {
	out := make([]*nodeInfo, 0, len(p.orig.Nodes))
	for _, n := range p.orig.Nodes {
		if p.removed[n.Name] {
			continue
		}
		if ni := p.info[n.Name]; ni != nil {
			out = append(out, ni)
		}
	}
	return out
}

// keep records why a node is left alone, unless a reason is already known.
func (p *planner) keep(name, reason string) {
	if _, ok := p.kept[name]; !ok {
		p.kept[name] = reason
	}
}

// hold is keep for a node method chose and rule held back.
func (p *planner) hold(name, reason string, method Reason, rule Hold) {
	if _, ok := p.kept[name]; !ok {
		p.kept[name] = reason
		p.held[name] = Kept{Held: rule, Method: method}
	}
}

// simulate packs the workload pods of nodes as if the nodes were gone:
// on the other nodes of the working snapshot first, then on new claims.
func (p *planner) simulate(nodes []*nodeInfo) (*packing.Result, []*state.Pod, error) {
	gone := make(map[string]bool, len(nodes))
	var pods []*state.Pod
	for _, n := range nodes {
		gone[n.node.Name] = true
		pods = append(pods, n.pods...)
	}
	// The nodes to remove stay in the snapshot marked for deletion, as do
	// the nodes earlier commands removed: packing then places nothing on
	// them and names no claim after them.
	snap := *p.work
	base := p.simNodes()
	snap.Nodes = slices.Clone(base.nodes)
	for name := range gone {
		if i, ok := base.at[name]; ok {
			snap.Nodes[i] = p.markedForDeletion(snap.Nodes[i])
		}
	}
	p.evaluations++
	p.simulated += p.cost(len(pods))
	if len(pods) == 0 {
		return &packing.Result{}, nil, nil
	}
	r, err := packing.Solve(p.ctx, &snap, pods, p.opts.Packing...)
	if err != nil {
		return nil, nil, err
	}
	return r, pods, nil
}

// simNodes are the nodes every simulation against the working snapshot
// starts from, sorted by name: its nodes, those the plan's end removes
// (avoid) drained, and the nodes earlier commands removed, drained; at
// says where each name is. Rebuilt when a commit changed the snapshot.
type simNodes struct {
	work  *state.Snapshot
	nodes []*state.Node
	at    map[string]int
}

func (p *planner) simNodes() *simNodes {
	if p.sim != nil && p.sim.work == p.work {
		return p.sim
	}
	sn := &simNodes{work: p.work, nodes: make([]*state.Node, 0, len(p.work.Nodes)+len(p.removed))}
	for _, n := range p.work.Nodes {
		if p.avoid[n.Name] {
			n = p.markedForDeletion(n)
		}
		sn.nodes = append(sn.nodes, n)
	}
	for _, n := range p.orig.Nodes {
		if p.removed[n.Name] {
			sn.nodes = append(sn.nodes, p.markedForDeletion(n))
		}
	}
	slices.SortFunc(sn.nodes, func(a, b *state.Node) int { return strings.Compare(a.Name, b.Name) })
	sn.at = make(map[string]int, len(sn.nodes))
	for i, n := range sn.nodes {
		sn.at[n.Name] = i
	}
	p.sim = sn
	return sn
}

// markedForDeletion returns a copy of n being drained, the same copy for
// the same node every time: packing's cache knows a node it compiled by
// its address (packing.Cache).
func (p *planner) markedForDeletion(n *state.Node) *state.Node {
	if c, ok := p.marked[n]; ok {
		return c
	}
	c := *n
	c.MarkedForDeletion = true
	p.marked[n] = &c
	return &c
}

// cost is the work of simulating the removal of nodes holding pods: packing
// compiles every pod of the snapshot, then places the evicted ones. (With
// the plan's packing.Cache it compiles them once per working snapshot; the
// count stays, so MaxWork bounds the search as before.)
func (p *planner) cost(pods int) int { return len(p.work.Pods) + pods }

// budgetLeft reports whether the search may still simulate removing nodes
// holding pods.
func (p *planner) budgetLeft(pods int) bool {
	return p.evaluations < p.opts.MaxEvaluations && p.simulated+p.cost(pods) <= p.opts.MaxWork
}

// prefixBudgetLeft is budgetLeft for the prefix search, which leaves an
// eighth of both caps (two simulations at least) to the local search so
// that it can reach every remaining candidate (see localSearch).
func (p *planner) prefixBudgetLeft(pods int) bool {
	evals := p.opts.MaxEvaluations - max(p.opts.MaxEvaluations/8, 2)
	return p.evaluations < evals && p.simulated+p.cost(pods) <= p.opts.MaxWork-p.opts.MaxWork/8
}

// split turns one simulation of removing nodes into commands: nodes whose
// pods share a new claim belong to one command (a merge); the others are
// commands of their own (a deletion, or a replacement).
func (p *planner) split(nodes []*nodeInfo, r *packing.Result, reason Reason) []*command {
	idx := map[string]int{}
	for i, n := range nodes {
		idx[n.node.Name] = i
	}
	parent := make([]int, len(nodes))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	dest := map[string]string{}
	for _, pl := range r.Placements {
		dest[pl.Pod] = pl.Node
	}
	unsched := map[string]string{}
	for _, u := range r.Unschedulable {
		unsched[u.Pod] = u.Reason
	}
	claimByName := map[string]*packing.Claim{}
	for _, c := range r.Claims {
		claimByName[c.Name] = c
	}
	owner := map[string]int{}
	for i, n := range nodes {
		for _, pod := range n.pods {
			to := dest[pod.Key()]
			if claimByName[to] == nil {
				continue
			}
			if o, ok := owner[to]; ok {
				parent[find(i)] = find(o)
			} else {
				owner[to] = i
			}
		}
	}
	groups := map[int]*command{}
	var out []*command
	for i, n := range nodes {
		root := find(i)
		c := groups[root]
		if c == nil {
			c = &command{Command: Command{Reason: reason}, dest: map[string]string{}, reasons: map[string]string{}}
			groups[root] = c
			out = append(out, c)
		}
		c.nodes = append(c.nodes, n)
		c.Nodes = append(c.Nodes, n.node.Name)
		c.CostBeforePerHour += n.price
		for _, pod := range n.pods {
			c.pods = append(c.pods, pod)
			to := dest[pod.Key()]
			c.dest[pod.Key()] = to
			if to == "" {
				c.reasons[pod.Key()] = unsched[pod.Key()]
			}
			c.Moves = append(c.Moves, Move{Pod: pod.Key(), From: n.node.Name, To: to, Priority: pod.Priority})
		}
	}
	for _, c := range out {
		seen := map[string]bool{}
		for _, m := range c.Moves {
			if cl := claimByName[m.To]; cl != nil && !seen[cl.Name] {
				seen[cl.Name] = true
				c.claims = append(c.claims, cl)
			}
		}
		slices.SortFunc(c.claims, func(a, b *packing.Claim) int { return strings.Compare(a.Name, b.Name) })
		for _, cl := range c.claims {
			o := cl.Chosen()
			c.Replacements = append(c.Replacements, Replacement{
				Name: cl.Name, NodePool: cl.Pool, InstanceType: o.InstanceType, Zone: o.Zone, CapacityType: o.CapacityType,
				PricePerHour: o.PricePerHour, Options: len(cl.Options), Pods: slices.Clone(cl.Pods),
				Labels: committedLabels(cl),
			})
			c.CostAfterPerHour += o.PricePerHour
		}
		slices.Sort(c.Nodes)
		slices.SortFunc(c.Moves, func(a, b Move) int {
			return cmp.Or(cmp.Compare(a.Priority, b.Priority), strings.Compare(a.Pod, b.Pod))
		})
		c.Detail = describe(c)
	}
	return out
}

// committedLabels returns the value the claim pins for each key that is not
// a well-known label (its zone, type and capacity type are the
// replacement's own fields), or nil: on a key its pool leaves open, such as
// example.com/team In [a, b], the replacement must launch with the value its
// pods were planned for.
func committedLabels(cl *packing.Claim) map[string]string {
	var out map[string]string
	for key := range cl.Requirements {
		if scheduling.IsWellKnownLabel(key) {
			continue
		}
		if v, ok := cl.Requirements.Label(key); ok {
			if out == nil {
				out = map[string]string{}
			}
			out[key] = v
		}
	}
	return out
}

// describe words what a command does.
func describe(c *command) string {
	nodes := "the node"
	if len(c.Nodes) > 1 {
		nodes = fmt.Sprintf("%d nodes", len(c.Nodes))
	}
	switch {
	case len(c.Moves) == 0:
		return "delete " + nodes + ": no workload pods"
	case len(c.Replacements) == 0:
		return "delete " + nodes + ": the pods fit on other nodes"
	}
	var types []string
	for _, r := range c.Replacements {
		types = append(types, r.InstanceType)
	}
	verb := "replace " + nodes + " with"
	if len(c.Nodes) > 1 {
		verb = "merge " + nodes + " into"
	}
	noun := "node"
	if len(c.Replacements) > 1 {
		noun = "nodes"
	}
	return fmt.Sprintf("%s %d %s (%s), $%s/h instead of $%s/h", verb, len(c.Replacements), noun,
		strings.Join(types, ", "), money(c.CostAfterPerHour), money(c.CostBeforePerHour))
}

// commit adds commands to the plan and applies them to the working
// snapshot.
func (p *planner) commit(cmds []*command) error {
	if len(cmds) == 0 {
		return nil
	}
	gone := map[string]bool{}
	moves := map[string]string{}
	var claims []*packing.Claim
	for _, c := range cmds {
		p.commands = append(p.commands, c)
		for _, n := range c.Nodes {
			gone[n] = true
			p.removed[n] = true
		}
		for _, pod := range c.pods {
			to := c.dest[pod.Key()]
			moves[pod.Key()] = to
			if owner := p.launches[to]; owner != nil {
				owner.receive(to, pod.Key())
			}
			if to != "" {
				p.fresh[to] = true
				p.flat.Placements = append(p.flat.Placements, packing.Placement{Pod: pod.Key(), Node: to})
			} else {
				p.flat.Unschedulable = append(p.flat.Unschedulable, packing.Unschedulable{Pod: pod.Key(), Reason: c.reasons[pod.Key()]})
			}
		}
		for _, cl := range c.claims {
			p.launches[cl.Name] = c
			p.fresh[cl.Name] = true
			claims = append(claims, cl)
			p.flat.Claims = append(p.flat.Claims, cl)
			p.flat.CostPerHour += cl.Chosen().PricePerHour
		}
	}
	next, err := applyChanges(p.work, gone, moves, claims, p.now)
	if err != nil {
		return err
	}
	p.work = next
	p.index()
	return nil
}

// receive adds pod, which a later command of the plan moves, to the pods
// of c's replacement claim: the replacement is launched for them all.
func (c *command) receive(claim, pod string) {
	for _, cl := range c.claims {
		if cl.Name == claim && !slices.Contains(cl.Pods, pod) {
			cl.Pods = append(cl.Pods, pod)
			slices.Sort(cl.Pods)
		}
	}
	for i := range c.Replacements {
		if r := &c.Replacements[i]; r.Name == claim && !slices.Contains(r.Pods, pod) {
			r.Pods = append(r.Pods, pod)
			slices.Sort(r.Pods)
		}
	}
}

// finish orders the commands and lists the kept nodes.
func (p *planner) finish() *Result {
	res := &Result{Commands: []Command{}, Kept: []Kept{}, now: p.now, Evaluations: p.evaluations}
	rank := map[Reason]int{}
	for i, m := range methods() {
		rank[m.reason()] = i
	}
	// Methods in their order; within one, commands evicting higher
	// priority pods last, then those saving the most per pod first.
	cmds := slices.Clone(p.commands)
	slices.SortStableFunc(cmds, func(a, b *command) int {
		return cmp.Or(cmp.Compare(rank[a.Reason], rank[b.Reason]), cmp.Compare(maxPriority(a), maxPriority(b)),
			cmp.Compare(perPod(b), perPod(a)), strings.Compare(a.Nodes[0], b.Nodes[0]))
	})
	for _, c := range cmds {
		if c.Replacements == nil {
			c.Replacements = []Replacement{}
		}
		if c.Moves == nil {
			c.Moves = []Move{}
		}
		res.Commands = append(res.Commands, c.Command)
		res.PodsEvicted += len(c.Moves)
		res.removed = append(res.removed, c.Nodes...)
		for _, m := range c.Moves {
			res.evicted = append(res.evicted, m.Pod)
		}
	}
	for _, n := range p.orig.Nodes {
		res.CostBeforePerHour += n.PricePerHour
		if p.removed[n.Name] {
			continue
		}
		reason, ok := p.kept[n.Name]
		if !ok {
			reason, ok = p.soft[n.Name]
		}
		if !ok {
			reason = "no cheaper placement"
		}
		res.Kept = append(res.Kept, Kept{Node: n.Name, Reason: reason, Held: p.held[n.Name].Held, Method: p.held[n.Name].Method})
	}
	res.CostAfterPerHour = res.CostBeforePerHour
	for i := range res.Commands {
		c := &res.Commands[i]
		res.CostAfterPerHour += c.CostAfterPerHour - c.CostBeforePerHour
		c.CostBeforePerHour, c.CostAfterPerHour = round6(c.CostBeforePerHour), round6(c.CostAfterPerHour)
	}
	res.CostBeforePerHour, res.CostAfterPerHour = round6(res.CostBeforePerHour), round6(res.CostAfterPerHour)
	flat := p.flat
	slices.SortFunc(flat.Placements, func(a, b packing.Placement) int { return strings.Compare(a.Pod, b.Pod) })
	slices.SortFunc(flat.Unschedulable, func(a, b packing.Unschedulable) int { return strings.Compare(a.Pod, b.Pod) })
	slices.SortFunc(flat.Claims, func(a, b *packing.Claim) int { return strings.Compare(a.Name, b.Name) })
	res.result = &flat
	slices.Sort(res.removed)
	slices.Sort(res.evicted)
	return res
}

// round6 keeps prices readable and stable in JSON: 6 decimal places.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func maxPriority(c *command) int32 {
	var m int32
	for i, mv := range c.Moves {
		if i == 0 || mv.Priority > m {
			m = mv.Priority
		}
	}
	return m
}

// perPod is what a command saves per pod evicted; an empty node's whole
// price.
func perPod(c *command) float64 {
	return (c.CostBeforePerHour - c.CostAfterPerHour) / float64(max(len(c.Moves), 1))
}
