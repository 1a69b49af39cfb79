package buffer

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tenonhq/terraform-provider-tenon/engine/packing"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Bind returns a copy of snap with every pool's placeholders bound to the free room of its
// existing nodes and in-flight claims where they fit, as engine/consolidation must keep them: a
// node holding placeholders is not empty, and a plan that removes it must find their room on
// other nodes or a replacement. Placeholders that fit nowhere yet are left out (the room does not
// exist; provisioning launches it), as are the pending pods' needs: Bind plans the buffer on the
// room free now. It returns the number bound. snap is returned as is when no pool has a buffer.
func Bind(ctx context.Context, snap *state.Snapshot) (*state.Snapshot, int, error) {
	if !hasBuffer(snap) {
		return snap, 0, nil
	}
	holders := Pods(snap)
	if len(holders) == 0 {
		return snap, 0, nil
	}
	probe := *snap
	probe.Pods = append(slices.Clone(snap.Pods), holders...)
	sortPods(probe.Pods)
	r, err := packing.Solve(ctx, &probe, holders)
	if err != nil {
		return nil, 0, fmt.Errorf("placing the capacity buffers' %d placeholder pods: %w", len(holders), err)
	}
	existing := map[string]bool{}
	for _, n := range snap.Nodes {
		existing[n.Name] = true
	}
	to := map[string]string{}
	for _, pl := range r.Placements {
		if existing[pl.Node] {
			to[pl.Pod] = pl.Node
		}
	}
	out := *snap
	out.Pods = slices.Clone(snap.Pods)
	for _, h := range holders {
		if node, ok := to[h.Key()]; ok {
			h.NodeName = node
			out.Pods = append(out.Pods, h)
		}
	}
	sortPods(out.Pods)
	return &out, len(to), nil
}

func sortPods(pods []*state.Pod) {
	slices.SortFunc(pods, func(a, b *state.Pod) int { return strings.Compare(a.Key(), b.Key()) })
}
