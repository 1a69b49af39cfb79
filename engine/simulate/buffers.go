package simulate

import (
	"fmt"

	"github.com/tenonhq/terraform-provider-tenon/engine/buffer"
	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
)

// ReportBuffer is what became of one NodePool's capacity buffer
// (spec.buffer): how many placeholder pods it asked for, where their room
// is, and what the nodes launched for it alone cost.
type ReportBuffer struct {
	NodePool string `json:"nodePool"`
	// Pods is how many placeholder pods the buffer asks for.
	Pods int `json:"pods"`
	// Existing counts placeholders on the free room of existing nodes, New
	// those on nodes the plan launches; Unplaced those no node can take,
	// with the first one's Reason.
	Existing int    `json:"existing"`
	New      int    `json:"new"`
	Unplaced int    `json:"unplaced"`
	Reason   string `json:"reason,omitempty"`
	// CostPerHour is the price of the nodes launched for the buffer alone:
	// what it adds to the plan's cost.
	CostPerHour float64 `json:"costPerHour"`
}

// placeholdersUnplaced counts the placeholders r could not place: the
// count Placed subtracts for placeholders is of those placed.
func placeholdersUnplaced(r *packing.Result) int {
	n := 0
	for _, u := range r.Unschedulable {
		if buffer.IsPlaceholder(u.Pod) {
			n++
		}
	}
	return n
}

// addBuffers reports each pool's buffer and what it costs. The
// placeholders count in the nodes they are placed on, not among the
// pending pods.
func addBuffers(rep *Report, r *buffer.Result) {
	for _, b := range r.Buffers {
		rep.Buffers = append(rep.Buffers, ReportBuffer{
			NodePool: b.Pool, Pods: b.Pods, Existing: b.Existing, New: b.New, Unplaced: b.Unplaced, Reason: b.Reason,
			CostPerHour: round(b.CostPerHour),
		})
		rep.Summary.BufferCostPerHour += b.CostPerHour
	}
	rep.Summary.BufferCostPerHour = round(rep.Summary.BufferCostPerHour)
	// A buffer's placeholders are never unschedulable pods of the scenario.
	kept := rep.Unschedulable[:0]
	for _, u := range rep.Unschedulable {
		if !buffer.IsPlaceholder(u.Pod) {
			kept = append(kept, u)
		}
	}
	rep.Unschedulable = kept
	rep.Summary.Unschedulable = len(kept)
}

// writeBuffers prints the capacity buffers: room asked, where it is, and
// what it costs.
func writeBuffers(p *printer, rep *Report) {
	if len(rep.Buffers) == 0 {
		return
	}
	p.line("")
	p.line("Capacity buffers (%d), placed after the pending pods; their placeholder pods (%s/...) are listed on the nodes above:", len(rep.Buffers), buffer.Namespace)
	rows := [][]string{{"POOL", "PODS", "ON EXISTING", "ON NEW", "UNPLACED", "COST"}}
	for _, b := range rep.Buffers {
		unplaced := fmt.Sprint(b.Unplaced)
		if b.Unplaced > 0 {
			unplaced += ": " + b.Reason
		}
		rows = append(rows, []string{b.NodePool, fmt.Sprint(b.Pods), fmt.Sprint(b.Existing), fmt.Sprint(b.New), unplaced, fmt.Sprintf("$%.4f/h", b.CostPerHour)})
	}
	p.table(rows)
	p.line("The buffers add $%.4f/h of the cost.", rep.Summary.BufferCostPerHour)
}
