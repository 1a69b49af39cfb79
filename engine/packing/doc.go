// Package packing is the fast loop's brain: Solve places a batch of pending
// pods on existing nodes and in-flight claims first, then on new claims whose
// instance types are chosen for the whole batch by cost, and says why any pod
// cannot be placed. It also reports a proven lower bound on the cost of the
// new nodes; engine/packing/check validates any Result against its
// Snapshot, independently of the solver.
//
// How Solve works:
//
//   - Compile once: resources become a fixed vector; identical pods become
//     one class; each pool's allowed types get their allocatable less the
//     daemonsets that would run there, and their offerings by price.
//   - Pins: zone and capacity-type spread, zonal affinity and zonal
//     anti-affinity are settled up front by water-filling each group over
//     its domains, so what remains per node (resources, hostname
//     (anti-)affinity and spread, host ports, taints) is checked while
//     packing. Spread and pod affinity on any other node label (arch, a
//     pool's label, a custom key of its requirements) are pinned before
//     that (labelpins.go): each pod gets a value of the key, required by
//     a sub-class's node terms. nodeAffinityPolicy and nodeTaintsPolicy
//     decide which nodes' and pools' domains a spread counts; terminating
//     pods count for (anti-)affinity only. Pods that a failed neighbour would leave unbalanced are taken
//     back at the end (repair.go), so every result keeps the hard rules.
//   - Existing nodes and in-flight claims are filled first, hardest pods
//     first, then by size.
//   - New claims are opened pool by pool (weight order) node by node: the
//     hardest remaining bucket seeds a claim in a zone (its pin, the most
//     pinned demand, else where daemonsets running in some zones only
//     leave the best value per dollar), whose type is the one whose
//     simulated fill packs the most value per dollar, value being what the
//     pods cost at least anywhere (dual prices of the lower-bound LPs: a
//     quick ascent, or in batches of 2,000 pods or more, for the first of
//     the two strategies, the assignment LP's column generation, carried
//     on from one valuation to the next, on the types the pods may get); the
//     fill then takes the pods that best use what room is left, and the
//     pattern is repeated while the pods last. Members of a large
//     hostname anti-affinity clique get the node whose price less the value
//     of the pods riding along is least. Each claim is finally shrunk to the
//     cheapest offering that holds it, with a price-ordered option list.
//   - Batches with a hostname anti-affinity clique of ten or more are
//     packed from a plan first (plan.go; by one strategy of two below 50
//     members, by both from 50), and so are batches of 100 pods or more
//     without one (by the second strategy): column generation on the configuration LP
//     (whole pods per node, a slot per clique) finds node patterns for the
//     whole batch, whole columns are fixed in passes, and each planned
//     node is opened in the zone where most of its pattern fills with real
//     pods under the per-node rules; the greedy fill takes the rest.
//   - A local-improvement pass (improve.go) then merges a claim into
//     another or empties it into others' spare room when that costs less,
//     moving only pods whose rules are all per zone, within a pool and
//     zone (across zones for pods no rule counts). Its last move
//     (regroup.go) re-packs the pods of the cheapest claims together
//     (across zones for pods no rule counts): five
//     t3a.micro holding a 512Mi pod each become one t3a.medium, which no
//     move of one claim at a time finds; at every step each re-pack also
//     prices putting all the pods it has left on the one cheapest node
//     that holds them, or on one more node and that one. Then relocate
//     (relocate.go) moves a few pods of a claim onto others' spare room
//     when the claim then shrinks to a cheaper type (pods with hostname
//     anti-affinity or spread too, onto claims that keep those rules). Work is counted,
//     not timed, so results stay deterministic.
//   - Two fill strategies (two plan efforts with a clique of 50 or more)
//     run concurrently, a core each, and the cheapest result wins
//     (WithStrategy picks one for callers short of CPU).
//   - A batch of fewer than 100 pods that buys new claims is solved again
//     on sub-pools (narrow.go): the type its answer spends most on is
//     left out of its pool, then the answer's own types less that one are
//     tried alone, and so on from any cheaper answer, within 8 extra
//     solves. Such a batch also values its pods on the types that hold
//     one of them only (holdingSome in fill.go). A pool that allows more
//     types can never need to cost more than a sub-pool of it, but the
//     greedy path can; of 1,000 random pool/sub-pool pairs, 26 cost more
//     on the pool before narrowing, 10 now (TestMonotoneCost).
//     WithStrategy skips the search of sub-pools.
//   - A batch of 100 to 9,999 pods that buys new claims is filled once
//     more with the fill limited to the instance families its answer
//     buys, every size of them, and the improve pass free to retype on
//     the whole pool; the cheaper answer is kept (families.go). Types no
//     answer buys then stop steering the fill, so a pool and a sub-pool
//     of it (c/m/r) that buy the same families fill the second time on
//     the same types. WithStrategy skips it too.
//   - Preferences (preferred affinities, ScheduleAnyway, PreferNoSchedule)
//     are honoured as if required (of preferred node affinity, the
//     heaviest term), and dropped one at a time, in Karpenter's order, only
//     for pods that could not be placed otherwise. They bind only their own
//     pods and never narrow the domains a spread counts. Where a pod's
//     zonal anti-affinity and the pods it repels cannot all run, the pod
//     ahead in kube-scheduler's queue (priority, creation time) wins.
//     Among existing nodes a pod with several preferred node affinity
//     terms takes those matching the most weight first.
//   - Existing nodes are tried initialized first, as Karpenter does; the
//     taints a starting or NotReady node sheds when it is ready are
//     ignored (state.Node.SchedulingTaints).
//
// The lower bound is the optimum of an assignment LP: each node of a type
// carries a fractional load of pods, every pod's whole request on a type it
// fits, and the load obeys rounding rows that whole pods obey and
// fractions need not; the exotic types (exotic.go) that no pod on a new
// claim may get are left out. On types that hold at most 17 pods a second
// LP takes whole pods only (a t3a.micro beside a clique member holds a
// 250Mi pod or none, never 0.6 of one), which closed most of the diverse
// mixes' gap (diverse-5k 1.081 → 1.043 of the bound, the packing the
// same). Column generation solves both (internal/bound, whose
// package comment tells the rest). Topology adds resources of the bound's
// own (bound_input.go): a hostname anti-affinity clique one slot per node
// that each member takes, a zonal spread as many slots per node as one
// zone can hold of its group, and the zones the spread must fill count
// as nodes.
//
// Where things are:
//
//   - solve.go: Solve, the strategies and the placement rounds;
//     bound_input.go: what the lower bound reads of a result.
//   - Compiling: solver.go (nodes, group counts, classes), class.go,
//     pools.go (pools and their types and offerings), daemonset.go,
//     dims.go (resource names to vector indices).
//   - Rules: compat.go (which pools and nodes a class may use), pins.go
//     (zone and capacity-type pins), labelpins.go (pins on other labels), place.go (the per-node rules and
//     placing), repair.go (the safety nets).
//   - New claims: fill.go (pool by pool, claim by claim), fill_decide.go
//     (a claim's zone and type), fill_node.go (filling one node, or
//     simulating it), plan.go and plan_knapsack.go (the configuration-LP
//     plan).
//   - improve.go, refill.go, regroup.go, relocate.go: the improvement
//     pass; narrow.go: the search of sub-pools for small batches;
//     families.go: the second fill of large ones.
//   - claims.go: final offerings and the Result's claims; reasons.go: why
//     a pod is unschedulable.
//   - internal/resources: the resource vector; internal/lp: the simplex
//     kernels; internal/bound: the lower bound and the pods' values.
//   - The scheduling rules the packer shares with engine/packing/check and
//     consolidation (node selection, pod selectors, a new node's labels and
//     taints, host ports, which offerings a pool may buy) are in
//     engine/scheduling and engine/state.
//
// The package is pure: values in, values out, deterministic for a given input
// and bounded by the caller's context.
package packing
