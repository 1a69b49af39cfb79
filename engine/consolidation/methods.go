package consolidation

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// emptiness removes nodes with no workload pods (daemonset pods do not
// count) once their pool's consolidateAfter (a Provisioner's
// ttlSecondsAfterEmpty) has passed since their last pod event, within the
// pool's budgets for Empty. One command per pool.
type emptiness struct{}

func (emptiness) reason() Reason { return ReasonEmpty }

func (emptiness) run(p *planner) error {
	var empty []*nodeInfo
	for _, n := range p.nodes() {
		if len(n.pods) > 0 {
			continue
		}
		if why := managed(n); why == awaitsPods {
			p.hold(n.node.Name, "empty, but "+why, ReasonEmpty, HeldByPendingPods)
			continue
		} else if why != "" {
			p.keep(n.node.Name, why)
			continue
		}
		if n.pool.Static() {
			p.keep(n.node.Name, "empty, but "+staticKept(n.pool))
			continue
		}
		if why := waiting(n, p.now); why != "" {
			p.keep(n.node.Name, "empty, but "+why)
			continue
		}
		// With no workload pods, only the node's annotations block.
		if why := cmp.Or(voluntaryBlocker(n, p.now), nodeDoNotConsolidate(n)); why != "" {
			p.hold(n.node.Name, "empty, but "+why, ReasonEmpty, HeldByDoNotDisrupt)
			continue
		}
		empty = append(empty, n)
	}
	// The most expensive go first when a budget cannot take them all.
	slices.SortStableFunc(empty, func(a, b *nodeInfo) int {
		return cmp.Or(cmp.Compare(b.price, a.price), strings.Compare(a.node.Name, b.node.Name))
	})
	byPool := map[string]*command{}
	var cmds []*command
	for _, n := range empty {
		why, err := p.budgets.take(n.pool, ReasonEmpty)
		if err != nil {
			return err
		}
		if why != "" {
			p.hold(n.node.Name, "empty, but "+why, ReasonEmpty, HeldByBudget)
			continue
		}
		c := byPool[n.pool.Name]
		if c == nil {
			c = &command{Command: Command{Reason: ReasonEmpty}, dest: map[string]string{}}
			byPool[n.pool.Name] = c
			cmds = append(cmds, c)
		}
		c.nodes = append(c.nodes, n)
		c.Nodes = append(c.Nodes, n.node.Name)
		c.CostBeforePerHour += n.price
	}
	for _, c := range cmds {
		slices.Sort(c.Nodes)
		c.Moves = []Move{}
		c.Detail = describe(c)
	}
	return p.commit(cmds)
}

// expiration replaces nodes older than their pool's expireAfter (a
// Provisioner's ttlSecondsUntilExpired). It is forceful: budgets,
// consolidateAfter and PodDisruptionBudgets do not hold it back (the drain
// honours PDBs until the pool's terminationGracePeriod), and pods no node
// can take are evicted anyway and wait as pending pods. It still honours
// tenon.dev/do-not-disrupt, as the API promises.
type expiration struct{}

func (expiration) reason() Reason { return ReasonExpired }

func (expiration) run(p *planner) error {
	var list []*nodeInfo
	why := map[string]string{}
	for _, n := range p.nodes() {
		if managed(n) != "" {
			continue
		}
		ok, detail := expired(n, p.now)
		if !ok {
			continue
		}
		if key := nodeDoNotDisrupt(n); key != "" {
			p.keep(n.node.Name, detail+", but node annotated "+key)
			continue
		}
		if b := firstPin(n, p); b != "" {
			p.keep(n.node.Name, detail+", but "+b)
			continue
		}
		if _, err := p.budgets.take(n.pool, ReasonExpired); err != nil {
			return err
		}
		list = append(list, n)
		why[n.node.Name] = detail
	}
	if len(list) == 0 {
		return nil
	}
	r, _, err := p.simulate(list)
	if err != nil {
		return err
	}
	cmds := p.split(list, r, ReasonExpired)
	for _, c := range cmds {
		var details []string
		for _, n := range c.Nodes {
			details = append(details, n+" "+why[n])
		}
		c.Detail = strings.Join(details, "; ") + "; " + c.Detail
	}
	return p.commit(cmds)
}

// firstPin returns the first do-not-disrupt pod on the node, worded.
func firstPin(n *nodeInfo, p *planner) string {
	for _, pod := range n.pods {
		if why := podPins(n.pool, pod, p.now); why != "" {
			return why
		}
	}
	return ""
}

// drift replaces nodes that no longer match their pool (see drifted),
// within the pool's budgets for Drifted, unless a PDB of its pods allows 0
// disruptions. The replacement need not be cheaper; the pods must fit
// somewhere.
type drift struct{}

func (drift) reason() Reason { return ReasonDrifted }

func (drift) run(p *planner) error {
	var list []*nodeInfo
	details := map[string]string{}
	for _, n := range p.nodes() {
		if managed(n) != "" {
			continue
		}
		detail := drifted(n)
		if detail == "" {
			continue
		}
		detail = "drifted: " + detail
		if why := voluntaryBlocker(n, p.now); why != "" {
			p.keep(n.node.Name, detail+", but "+why)
			continue
		}
		why, err := p.budgets.take(n.pool, ReasonDrifted)
		if err != nil {
			return err
		}
		if why != "" {
			p.keep(n.node.Name, detail+", but "+why)
			continue
		}
		if why := p.pdbs.blocks(n.pods); why != "" {
			p.budgets.give(n.pool)
			p.keep(n.node.Name, detail+", but "+why)
			continue
		}
		if n.pool.Static() {
			if err := p.driftStatic(p.info[n.node.Name], detail); err != nil {
				return err
			}
			continue
		}
		list = append(list, n)
		details[n.node.Name] = detail
	}
	return p.replaceWhereFits(list, details, ReasonDrifted)
}

// replaceWhereFits plans commands replacing the nodes of list, whose
// budgets are taken, each worded with its details: nodes whose pods fit
// nowhere else stay (their budget given back, the reason kept), and the
// others are simulated again without them, a bounded number of times.
func (p *planner) replaceWhereFits(list []*nodeInfo, details map[string]string, reason Reason) error {
	for range 4 {
		if len(list) == 0 {
			return nil
		}
		r, _, err := p.simulate(list)
		if err != nil {
			return err
		}
		stuck := map[string]string{}
		for _, u := range r.Unschedulable {
			for _, n := range list {
				if n.node.Name == podNode(n, u.Pod) {
					if _, ok := stuck[n.node.Name]; !ok {
						stuck[n.node.Name] = fmt.Sprintf("pod %s fits nowhere else: %s", u.Pod, u.Reason)
					}
				}
			}
		}
		if len(stuck) == 0 {
			cmds := p.split(list, r, reason)
			for _, c := range cmds {
				var ds []string
				for _, n := range c.Nodes {
					ds = append(ds, details[n])
				}
				c.Detail = strings.Join(ds, "; ") + "; " + c.Detail
			}
			return p.commit(cmds)
		}
		list = slices.DeleteFunc(list, func(n *nodeInfo) bool {
			why, ok := stuck[n.node.Name]
			if ok {
				p.budgets.give(n.pool)
				p.keep(n.node.Name, details[n.node.Name]+", but "+why)
			}
			return ok
		})
	}
	for _, n := range list {
		p.budgets.give(n.pool)
		p.keep(n.node.Name, details[n.node.Name]+", but its pods could not be placed together elsewhere")
	}
	return nil
}

// podNode returns the node's name when the pod with key is on it, else "".
func podNode(n *nodeInfo, key string) string {
	for _, pod := range n.pods {
		if pod.Key() == key {
			return n.node.Name
		}
	}
	return ""
}
