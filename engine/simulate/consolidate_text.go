package simulate

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// maxMovesShown caps the nodes, replacements and pods listed per command
// in text output; JSON lists them all.
const maxMovesShown = 12

// writeConsolidationText prints a consolidation report for a person: the
// cluster, each command (what it removes and launches, the pods it moves
// and where), the nodes kept with why, and cost against the lower bound.
func writeConsolidationText(w io.Writer, s *Scenario, rep *ConsolidationReport, intro string) {
	p := &printer{w: w}
	if intro != "" {
		p.line("%s", strings.TrimSpace(intro))
		p.line("")
	}
	sum := rep.Summary
	p.line("Scenario %s: consolidation of %s holding %d pods, %s, region %s (%s), at %s.",
		s.Name, plural(sum.NodesBefore, "existing node"), sum.Pods, plural(len(s.Objects.NodePools)+len(s.Objects.Provisioners), "pool"),
		s.Region, strings.Join(s.Zones, ", "), sum.Now)
	p.line("")
	writeOverlays(p, rep.Overlays)
	if len(rep.Commands) == 0 {
		p.line("Commands: none; nothing is worth disrupting.")
	} else {
		p.line("Commands (%d), in order; each launches its replacements before it evicts:", len(rep.Commands))
		for i, c := range rep.Commands {
			round := ""
			if sum.Rounds > 1 {
				round = fmt.Sprintf(" (round %d)", c.Round)
			}
			p.line("  %d. %s%s: %s", i+1, c.Reason, round, c.Detail)
			p.line("     remove %s ($%.4f/h)", listSome(c.Nodes, maxMovesShown), c.CostBeforePerHour)
			for j, r := range c.Replacements {
				if j == maxMovesShown {
					p.line("     ... and %d more replacements", len(c.Replacements)-j)
					break
				}
				p.line("     launch %s: %s in %s, %s, $%.4f/h (%d options)", r.Name, r.InstanceType, r.Zone, r.CapacityType, r.PricePerHour, r.Options)
			}
			for j, m := range c.Moves {
				if j == maxMovesShown {
					p.line("     ... and %d more pods", len(c.Moves)-j)
					break
				}
				to := m.To
				if to == "" {
					to = "(pending: no node can take it)"
				}
				p.line("     move %s from %s to %s", m.Pod, m.From, to)
			}
		}
	}
	p.line("")
	if len(rep.Kept) == 0 {
		p.line("Nodes kept: none.")
	} else {
		p.line("Nodes kept (%d):", len(rep.Kept))
		rows := [][]string{{"NODE", "WHY"}}
		for _, k := range rep.Kept {
			rows = append(rows, []string{k.Node, k.Reason})
		}
		p.table(rows)
	}
	writeScaleDownOrder(p, rep.ScaleDownOrder)
	p.line("")
	p.line("Nodes after (%d):", len(rep.Nodes))
	rows := [][]string{{"NAME", "POOL", "INSTANCE TYPE", "ZONE", "CAPACITY", "$/H", "PODS", "CPU", "MEMORY"}}
	for _, n := range rep.Nodes {
		name := n.Name
		if !n.Existing {
			name += " (new)"
		}
		rows = append(rows, []string{name, orDash(n.NodePool), orDash(n.InstanceType), orDash(n.Zone), orDash(n.CapacityType),
			fmt.Sprintf("%.4f", n.PricePerHour), fmt.Sprint(len(n.Pods)), percent(n.CPUUtilization), percent(n.MemoryUtilization)})
	}
	p.table(rows)
	p.line("")
	saved := sum.CostBeforePerHour - sum.CostAfterPerHour
	pct := 0.0
	if sum.CostBeforePerHour > 0 {
		pct = saved / sum.CostBeforePerHour * 100
	}
	p.line("Cost:         $%.4f/h before, $%.4f/h after (saves $%.4f/h, %.1f%%)", sum.CostBeforePerHour, sum.CostAfterPerHour, saved, pct)
	if sum.LowerBoundPerHour > 0 {
		p.line("Lower bound:  $%.4f/h for the %d pods; the cost after is %.3f× the bound", sum.LowerBoundPerHour, sum.Pods, sum.CostAfterPerHour/sum.LowerBoundPerHour)
	} else {
		p.line("Lower bound:  $0/h (no workload pods)")
	}
	ratio := ""
	if sum.MinimumEvictions > 0 {
		ratio = fmt.Sprintf(", %.2f× the %d pods the removed nodes held", float64(sum.PodsEvicted)/float64(sum.MinimumEvictions), sum.MinimumEvictions)
	}
	p.line("Evictions:    %d%s", sum.PodsEvicted, ratio)
	stable := ""
	switch {
	case sum.Stable && sum.Rounds > 1:
		stable = ", the last one changing nothing: stable"
	case sum.Stable:
		stable = ": nothing to change, stable"
	case sum.Rounds == 1:
		stable = " (--until-stable applies plans until nothing changes)"
	default:
		stable = ", stopped by --max-rounds before the cluster was stable"
	}
	p.line("Rounds:       %d%s", sum.Rounds, stable)
	p.line("Plan time:    %v (in process, all rounds)", time.Duration(sum.PlanSeconds*float64(time.Second)).Round(10*time.Microsecond))
}

// writeScaleDownOrder prints the scale-down order (--scale-down-order), if any.
func writeScaleDownOrder(p *printer, order []ReportRankedNode) {
	if order == nil {
		return
	}
	p.line("")
	p.line("Scale-down order (tenon agent --pod-deletion-cost): a ReplicaSet scale-down deletes its pods on the first nodes first:")
	rows := [][]string{{"NODE", "TIER", "REPLICASET PODS", "OTHER PODS", "$/H"}}
	for _, n := range order {
		rows = append(rows, []string{n.Node, n.Tier, fmt.Sprint(n.ReplicaSetPods), fmt.Sprint(n.OtherPods), fmt.Sprintf("%.4f", n.PricePerHour)})
	}
	p.table(rows)
}

// listSome joins up to n names and counts the rest.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
