package lp

import "math"

// Packing is the packing LP
//
//	max c·a  subject to  R·a ≤ 1,  a ≥ 0
//
// (every row scaled so its right-hand side is 1), solved by a dense primal
// simplex from the all-slack basis. It keeps its tableau between solves,
// so solving many small LPs allocates only while they grow.
type Packing struct {
	// t is rows × (n + rows + 1): structurals, slacks, right-hand side.
	t     [][]float64
	basis []int
	// obj holds the reduced profits c_j − z_j of every column; its last
	// entry is −(the objective).
	obj     []float64
	n, rows int
}

// Reset sets up the LP with rows (each of length n) and returns the
// objective row, zeroed, for the caller to fill with c (n entries, none
// negative) before Solve.
func (p *Packing) Reset(rows [][]float64, n int) []float64 {
	p.n, p.rows = n, len(rows)
	width := n + p.rows + 1
	for len(p.t) < p.rows {
		p.t = append(p.t, nil)
	}
	p.basis = p.basis[:0]
	for r := range p.rows {
		if cap(p.t[r]) < width {
			p.t[r] = make([]float64, width)
		}
		t := p.t[r][:width]
		copy(t, rows[r])
		clear(t[n:])
		t[n+r] = 1
		t[width-1] = 1
		p.t[r] = t
		p.basis = append(p.basis, n+r)
	}
	if cap(p.obj) < width {
		p.obj = make([]float64, width)
	}
	p.obj = p.obj[:width]
	clear(p.obj)
	return p.obj[:n]
}

// Solve pivots (largest reduced profit enters) for at most 50·(rows+n)
// pivots and returns the objective, or +Inf when the LP is unbounded.
func (p *Packing) Solve() float64 {
	width := p.n + p.rows + 1
	obj := p.obj
	for range 50 * (p.rows + p.n) {
		enter := -1
		best := 1e-12
		for j := range width - 1 {
			if obj[j] > best {
				enter, best = j, obj[j]
			}
		}
		if enter < 0 {
			break
		}
		leave := p.leaving(enter, width)
		if leave < 0 {
			return math.Inf(1)
		}
		p.pivot(enter, leave)
	}
	return -obj[width-1]
}

// leaving is the row of the ratio test on column enter, or -1.
func (p *Packing) leaving(enter, width int) int {
	leave := -1
	ratio := math.Inf(1)
	for r := range p.rows {
		if a := p.t[r][enter]; a > 1e-12 {
			if q := p.t[r][width-1] / a; q < ratio-1e-15 {
				leave, ratio = r, q
			}
		}
	}
	return leave
}

// pivot brings column enter into the basis in row leave.
func (p *Packing) pivot(enter, leave int) {
	lr := p.t[leave]
	piv := lr[enter]
	for j := range lr {
		lr[j] /= piv
	}
	for r := range p.rows {
		if r == leave {
			continue
		}
		if f := p.t[r][enter]; f != 0 {
			row := p.t[r][:len(lr)]
			for j, v := range lr {
				row[j] -= f * v
			}
		}
	}
	if f := p.obj[enter]; f != 0 {
		obj := p.obj[:len(lr)]
		for j, v := range lr {
			obj[j] -= f * v
		}
	}
	p.basis[leave] = enter
}

// Dual is row r's dual at the last Solve (its slack's reduced cost, at
// least 0).
func (p *Packing) Dual(r int) float64 { return max(-p.obj[p.n+r], 0) }

// Basic returns the column basic in row r (a structural below n, else a
// slack) and its value at the last Solve.
func (p *Packing) Basic(r int) (int, float64) {
	return p.basis[r], p.t[r][p.n+p.rows]
}
