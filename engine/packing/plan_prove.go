package packing

// provenEmpty reports whether no configuration of type j at duals pi,
// over the items of order, can be worth more than the type's price, by
// the Lagrangian bound of the knapsack's linear relaxation: for any
// prices λ ≥ 0 of the type's resources, a configuration x (whole or not,
// each item at most cap_i times) is worth
//
//	Σ π_i·x_i ≤ λ·alloc + Σ_i cap_i·max(0, π_i − λ·req_i),
//
// where cap_i is how many of item i fit an empty node and are left to
// plan. λ is the optimal dual of the relaxation without the caps (a few
// pivots of lp.Packing on one row per resource); the bound holds for any
// λ the simplex returns, optimal or not, so it never proves empty a search
// that would find something. When it holds, knapsack's search (which
// takes only configurations worth more than the price) would end with
// none, whatever its steps, and is skipped: the plan is the same, and
// the steps it would have spent stay in planEffort.totalSteps for later
// searches (on the shared workloads that budget is never used up).
func (plan *planner) provenEmpty(pi []float64, j int, order []int32) bool {
	t := &plan.types[j]
	n := len(order)
	rows := plan.lpRows[:0]
	for d := range plan.ndims {
		if t.alloc[d] <= 0 {
			continue
		}
		k := len(rows)
		if k == cap(rows) {
			rows = append(rows[:cap(rows)], nil)
		} else {
			rows = rows[:k+1]
		}
		if cap(rows[k]) < n {
			rows[k] = make([]float64, n)
		}
		row := rows[k][:n]
		used := false
		for c, i := range order {
			row[c] = float64(plan.items[i].req[d]) / float64(t.alloc[d])
			used = used || row[c] > 0
		}
		if !used {
			rows = rows[:k]
			continue
		}
		rows[k] = row
	}
	plan.lpRows = rows
	obj := plan.relaxed.Reset(rows, n)
	for c, i := range order {
		obj[c] = pi[i]
	}
	plan.relaxed.Solve()
	ub := 0.0
	for r := range rows {
		ub += plan.relaxed.Dual(r)
	}
	for c, i := range order {
		reduced := pi[i]
		for r := range rows {
			reduced -= plan.relaxed.Dual(r) * rows[r][c]
		}
		if reduced > 0 {
			ub += reduced * float64(plan.items[i].req.Times(&t.alloc, plan.cap(i)))
		}
	}
	return ub <= t.price
}
