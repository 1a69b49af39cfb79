package simulate

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// writeText prints a report for a person: what was simulated, the nodes to
// launch grouped by pool, type, zone and capacity type, the existing nodes
// that receive pods, the cost against its lower bound, the solve time and
// the pods that cannot be placed, with why.
func writeText(w io.Writer, s *Scenario, rep *Report, intro string) {
	p := &printer{w: w}
	if intro != "" {
		p.line("%s", strings.TrimSpace(intro))
		p.line("")
	}
	p.line("Scenario %s: %d pending pods from %s, %s, %s, region %s (%s).",
		s.Name, rep.Summary.Pods, plural(s.Workloads, "workload"), plural(len(s.Objects.NodePools)+len(s.Objects.Provisioners), "pool"),
		describeExisting(s), s.Region, strings.Join(s.Zones, ", "))
	if n := len(s.Objects.DaemonSets); n > 0 {
		p.line("%s: each new node has room for the daemon pods that would run on it.", plural(n, "DaemonSet"))
	}
	p.line("")
	writeOverlays(p, rep.Overlays)

	var launch, existing []ReportNode
	for _, n := range rep.Nodes {
		if n.Existing {
			existing = append(existing, n)
		} else {
			launch = append(launch, n)
		}
	}
	if len(launch) == 0 {
		p.line("Nodes to launch: none.")
	} else {
		p.line("Nodes to launch (%d):", len(launch))
		p.table(launchTable(launch))
	}
	if len(existing) > 0 {
		p.line("")
		p.line("Existing nodes receiving pods (%d):", len(existing))
		rows := [][]string{{"NAME", "POOL", "INSTANCE TYPE", "ZONE", "CAPACITY", "PODS", "CPU", "MEMORY"}}
		for _, n := range existing {
			name := n.Name
			if n.InFlight {
				name += " (in flight)"
			}
			rows = append(rows, []string{name, orDash(n.NodePool), orDash(n.InstanceType), orDash(n.Zone), orDash(n.CapacityType),
				fmt.Sprint(len(n.Pods)), percent(n.CPUUtilization), percent(n.MemoryUtilization)})
		}
		p.table(rows)
	}
	writeBuffers(p, rep)

	p.line("")
	sum := rep.Summary
	p.line("Cost:         $%.4f/h for %s", sum.CostPerHour, plural(sum.NewNodes, "new node"))
	switch {
	case sum.NewNodes == 0:
		p.line("Lower bound:  $%.4f/h", sum.LowerBoundPerHour)
	case sum.LowerBoundPerHour > 0:
		ratio := sum.CostPerHour / sum.LowerBoundPerHour
		p.line("Lower bound:  $%.4f/h; the cost is %.3f× the bound, so at most %.1f%% above the cheapest possible", sum.LowerBoundPerHour, ratio, (ratio-1)*100)
	default:
		p.line("Lower bound:  none reported")
	}
	p.line("Solve time:   %s", solveTime(sum))
	p.line("")
	if len(rep.Unschedulable) == 0 {
		p.line("Every pod was placed.")
		return
	}
	p.line("Pods that cannot be placed (%d):", len(rep.Unschedulable))
	rows := [][]string{{"POD", "REASON"}}
	for _, u := range rep.Unschedulable {
		rows = append(rows, []string{u.Pod, u.Reason})
	}
	p.table(rows)
}

// launchTable groups new nodes by pool, type, zone and capacity type.
func launchTable(nodes []ReportNode) [][]string {
	type group struct {
		pool, typ, zone, capacity string
		price                     float64
		count, pods               int
		cpu, mem                  float64
	}
	byKey := map[string]*group{}
	var groups []*group
	for _, n := range nodes {
		key := strings.Join([]string{n.NodePool, n.InstanceType, n.Zone, n.CapacityType}, "\x00")
		g, ok := byKey[key]
		if !ok {
			g = &group{pool: n.NodePool, typ: n.InstanceType, zone: n.Zone, capacity: n.CapacityType, price: n.PricePerHour}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.count++
		g.pods += len(n.Pods)
		g.cpu += n.CPUUtilization
		g.mem += n.MemoryUtilization
	}
	slices.SortFunc(groups, func(a, b *group) int {
		return cmp.Or(strings.Compare(a.pool, b.pool), strings.Compare(a.typ, b.typ), strings.Compare(a.zone, b.zone), strings.Compare(a.capacity, b.capacity))
	})
	rows := [][]string{{"POOL", "INSTANCE TYPE", "ZONE", "CAPACITY", "NODES", "$/H EACH", "$/H", "PODS", "CPU", "MEMORY"}}
	var count, pods int
	var total float64
	for _, g := range groups {
		rows = append(rows, []string{g.pool, g.typ, g.zone, g.capacity, fmt.Sprint(g.count), fmt.Sprintf("%.4f", g.price),
			fmt.Sprintf("%.4f", g.price*float64(g.count)), fmt.Sprint(g.pods), percent(g.cpu / float64(g.count)), percent(g.mem / float64(g.count))})
		count += g.count
		pods += g.pods
		total += g.price * float64(g.count)
	}
	return append(rows, []string{"total", "", "", "", fmt.Sprint(count), "", fmt.Sprintf("%.4f", total), fmt.Sprint(pods), "", ""})
}

func solveTime(sum Summary) string {
	d := time.Duration(sum.SolveSeconds * float64(time.Second)).Round(10 * time.Microsecond)
	if len(sum.SolveRuns) <= 1 {
		return fmt.Sprintf("%v (building the snapshot and solving, in process)", d)
	}
	runs := make([]string, len(sum.SolveRuns))
	for i, r := range sum.SolveRuns {
		runs[i] = time.Duration(r * float64(time.Second)).Round(10 * time.Microsecond).String()
	}
	return fmt.Sprintf("%v, the median of %d runs after a warm-up (%s)", d, len(runs), strings.Join(runs, ", "))
}

// describeExisting counts the scenario's nodes and in-flight claims.
func describeExisting(s *Scenario) string {
	inFlight := 0
	for _, c := range s.Objects.NodeClaims {
		if c.Status.NodeName == "" {
			inFlight++
		}
	}
	out := plural(len(s.Objects.Nodes), "existing node")
	if inFlight > 0 {
		out += fmt.Sprintf(" and %s in flight", plural(inFlight, "claim"))
	}
	return out
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func percent(x float64) string { return fmt.Sprintf("%.0f%%", x*100) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printer writes lines and aligned tables.
type printer struct{ w io.Writer }

func (p *printer) line(format string, args ...any) {
	fmt.Fprintf(p.w, format+"\n", args...)
}

// table prints rows indented by two spaces, columns separated by two
// spaces; columns whose cells (after the header) are all numbers,
// percentages or blank are right-aligned.
func (p *printer) table(rows [][]string) {
	if len(rows) == 0 {
		return
	}
	cols := len(rows[0])
	width := make([]int, cols)
	numeric := make([]bool, cols)
	for c := range cols {
		numeric[c] = true
	}
	for r, row := range rows {
		for c, cell := range row {
			width[c] = max(width[c], len(cell))
			if r > 0 && cell != "" && !isNumeric(cell) {
				numeric[c] = false
			}
		}
	}
	for _, row := range rows {
		var sb strings.Builder
		sb.WriteString("  ")
		for c, cell := range row {
			if c > 0 {
				sb.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[c]-len(cell))
			switch {
			case numeric[c]:
				sb.WriteString(pad + cell)
			case c == len(row)-1:
				sb.WriteString(cell)
			default:
				sb.WriteString(cell + pad)
			}
		}
		fmt.Fprintln(p.w, strings.TrimRight(sb.String(), " "))
	}
}

func isNumeric(s string) bool {
	s = strings.TrimSuffix(s, "%")
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return true
}
