package simulate

import (
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// ReportOverlay is what became of one NodeOverlay of the scenario.
type ReportOverlay struct {
	Name string `json:"name"`
	// Outcome is Applied, Conflict or NoMatch, the reason the agent gives the overlay's Ready
	// condition.
	Outcome string `json:"outcome"`
	// Message says which instance types of which pools it changed, or why none.
	Message string `json:"message"`
}

// reportOverlays lists the snapshot's overlays, sorted by name; nil when there are none.
func reportOverlays(snap *state.Snapshot) []ReportOverlay {
	if len(snap.Overlays) == 0 {
		return nil
	}
	out := make([]ReportOverlay, len(snap.Overlays))
	for i, o := range snap.Overlays {
		out[i] = ReportOverlay{Name: o.Name, Outcome: string(o.Outcome), Message: o.Message}
	}
	return out
}

// writeOverlays prints the overlays a report applied, when there are any.
func writeOverlays(p *printer, overlays []ReportOverlay) {
	if len(overlays) == 0 {
		return
	}
	p.line("NodeOverlays (%d), applied to the pools' instance types before packing:", len(overlays))
	rows := [][]string{{"NAME", "RESULT", "DETAIL"}}
	for _, o := range overlays {
		rows = append(rows, []string{o.Name, o.Outcome, o.Message})
	}
	p.table(rows)
	p.line("")
}
