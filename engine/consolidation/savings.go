package consolidation

import (
	"fmt"
	"strconv"

	"github.com/tenonhq/terraform-provider-tenon/engine/buffer"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// savings are the consolidation savings thresholds of one pool: its
// disruption block's minSavingsPerHour, minSavingsPercent and
// minSavingsPerPod, or Options' where the pool leaves one out.
type savings struct {
	// perHour is the least a command must save, in $/h.
	perHour float64
	// percent is the least share of the removed price a command must save.
	percent float64
	// perPod is the least saving per evicted pod, in $/h, of a command
	// that launches replacements.
	perPod float64
}

// savingsOf returns the thresholds of a pool; nil (a node Tenon does not
// manage) gets Options'.
func (p *planner) savingsOf(pool *state.Pool) savings {
	s := savings{perHour: p.opts.MinSavingsPerHour, percent: p.opts.MinSavingsPercent, perPod: p.opts.MinSavingsPerPod}
	if pool == nil {
		return s
	}
	d := pool.Disruption
	if d.MinSavingsPerHour != nil {
		s.perHour = *d.MinSavingsPerHour
	}
	if d.MinSavingsPercent != nil {
		s.percent = *d.MinSavingsPercent
	}
	if d.MinSavingsPerPod != nil {
		s.perPod = *d.MinSavingsPerPod
	}
	return s
}

// ask is what a node asks of a command that removes it beyond covering
// its own price: its pool's percentage of its price, and its pool's
// amount per pod it evicts. The prefix search charges both to every
// candidate so each pays for its own disruption.
func (p *planner) ask(n *nodeInfo) float64 {
	s := p.savingsOf(n.pool)
	real := 0
	for _, pod := range n.pods {
		if !pod.Placeholder {
			real++
		}
	}
	return s.percent/100*n.price + s.perPod*float64(real)
}

// commandSavings is what a command must save, each node of it asking its
// own pool's thresholds (so a command spanning pools is held to each
// pool's rule for that pool's nodes):
//   - perHour, the largest minSavingsPerHour among the pools of the nodes
//     it removes;
//   - percentOf, the sum over those nodes of their pool's
//     minSavingsPercent of their price;
//   - perPod, the sum over the pods it evicts of their node's pool's
//     minSavingsPerPod (one pod's worth when it evicts none).
type commandSavings struct {
	perHour, percentOf, perPod float64
	// uniform is set when every node's pool asks the same, so messages
	// can quote the one percentage and amount per pod.
	uniform bool
	first   savings
}

func (p *planner) commandSavings(c *command) commandSavings {
	var out commandSavings
	byName := map[string]savings{}
	out.uniform = true
	for i, n := range c.nodes {
		s := p.savingsOf(n.pool)
		byName[n.node.Name] = s
		if i == 0 {
			out.first = s
		} else if s != out.first {
			out.uniform = false
		}
		out.perHour = max(out.perHour, s.perHour)
		out.percentOf += s.percent / 100 * n.price
	}
	if len(c.nodes) == 0 {
		out.first = p.savingsOf(nil)
		out.perHour = out.first.perHour
	}
	real := 0
	for _, m := range c.Moves {
		// Moving a capacity buffer's placeholder evicts nothing.
		if !buffer.IsPlaceholder(m.Pod) {
			out.perPod += byName[m.From].perPod
			real++
		}
	}
	if real == 0 {
		for _, s := range byName {
			out.perPod = max(out.perPod, s.perPod)
		}
	}
	return out
}

// belowThreshold says why a command's saving falls short of what its
// nodes' pools ask, or "".
func (p *planner) belowThreshold(c *command, saving float64) string {
	need := p.commandSavings(c)
	before := c.CostBeforePerHour
	if saving < need.perHour-1e-12 || saving < need.percentOf-1e-12 {
		if need.uniform {
			return fmt.Sprintf("saving $%s/h below threshold ($%s/h and %s%% of $%s/h)", money(saving), money(need.perHour),
				strconv.FormatFloat(need.first.percent, 'f', -1, 64), money(before))
		}
		return fmt.Sprintf("saving $%s/h below threshold ($%s/h and $%s/h, each node's pool's minSavingsPercent of its price, of $%s/h)",
			money(saving), money(need.perHour), money(need.percentOf), money(before))
	}
	// A deletion frees a whole node; only replacing pays per pod.
	if len(c.claims) > 0 && saving < need.perPod-1e-12 {
		if need.uniform {
			return fmt.Sprintf("saving $%s/h for %d pods evicted is below the threshold of $%s/h per pod", money(saving), len(c.Moves), money(need.first.perPod))
		}
		return fmt.Sprintf("saving $%s/h for %d pods evicted is below the $%s/h their nodes' pools ask (minSavingsPerPod per pod)", money(saving), len(c.Moves), money(need.perPod))
	}
	return ""
}
