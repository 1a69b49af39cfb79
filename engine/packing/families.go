package packing

import (
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Families: a batch of planMinPods pods or more is too large for narrow's
// search of sub-pools (a solve takes tens of milliseconds to a second), so
// below secondFillMaxPods pods Solve packs it once more with the fill
// limited to the instance families the first answer buys, every size of
// them the pool allows, and the improve pass free to retype claims on the
// whole pool (options.fillBans, as refit does). The cheaper answer is kept when it places the same pods
// on new claims, with the first answer's lower bound.
//
// Why: the fill values pods by an LP over every type of the pool, so
// types an answer never buys still steer which claims it opens, and a
// wider pool could cost more than a sub-pool of it for types neither
// buys. A pool limited as Karpenter's getting-started NodePool is
// (categories c, m and r, generation above 2) and the whole catalog mostly
// buy the same families for a batch: both then fill a second time on the
// same types. On memory-heavy batches like w5 (other seeds and sizes) the
// whole catalog cost 1.4-1.8 % more than c/m/r without it, and the second
// fill also cuts diverse-5k from 1.027 to 1.015 × the bound and
// spot batches like w1-spot and w4-spot by 1-3 % (hack/benchtable, on the
// shared workloads and generated ones of their kinds; CHANGELOG). It costs
// a second solve, less the compiling the two share through a Cache:
// 1.3-2.3 × the time of the batch.
//
// Batches of secondFillMaxPods pods or more skip it: there a fill takes
// half a second or more of the agent's reaction to a burst, and the
// second would take as long again (diverse-20k: 0.47 -> 0.78 s a solve,
// and no cheaper answer).

// secondFillMaxPods is the smallest batch that skips the second fill.
const secondFillMaxPods = 10_000

// familyBans bans from the fill every type of snap's pools whose family no
// claim of r buys in that pool. A type without a family label is a family
// of its own.
func familyBans(snap *state.Snapshot, r *Result) map[ban]bool {
	out := map[ban]bool{}
	for _, p := range snap.Pools {
		fam := make(map[string]string, len(p.InstanceTypes))
		for _, it := range p.InstanceTypes {
			fam[it.Name] = family(it)
		}
		bought := map[string]bool{}
		for _, c := range r.Claims {
			if c.Pool == p.Name {
				bought[fam[c.Chosen().InstanceType]] = true
			}
		}
		for name, f := range fam {
			if !bought[f] {
				out[ban{p.Name, name}] = true
			}
		}
	}
	return out
}

// family is the instance family of it (tenon.dev/instance-family), or its
// name when it has none.
func family(it *catalog.InstanceType) string {
	if f, ok := it.Requirements.Get(scheduling.LabelInstanceFamily).Any(); ok && f != "" {
		return f
	}
	return it.Name
}
