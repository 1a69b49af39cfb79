// Package consolidation is the slow loop's brain: Plan decides which nodes
// to remove or replace to cut cost without churning pods, and says why it
// keeps every other node. It is a pure engine (values in, values out): a
// state.Snapshot and a clock in, a Result out, deterministic for a given
// input and bounded by its options, never by wall-clock time.
//
// # Methods
//
// Five methods, one type each behind the method interface, run in this
// order; each sees the cluster as the commands before it leave it, and a
// node that receives pods or is launched in the plan is not disrupted by
// the same plan:
//
//   - overprovisioned: the nodes a static pool (replicas, engine/static)
//     has above its replicas, emptiest first, within the budgets that name
//     no reason, PDBs and do-not-disrupt (static.go). The other methods
//     but drift and expiration leave static pools' nodes alone; drift
//     replaces one with a node launched as engine/static launches one;
//   - emptiness: nodes with no workload pods (daemonset pods do not count)
//     once their pool's consolidateAfter (a Provisioner's
//     ttlSecondsAfterEmpty) has passed since the node's last pod event;
//   - expiration: nodes older than expireAfter (ttlSecondsUntilExpired).
//     Forceful: budgets, consolidateAfter and PDBs do not hold it back,
//     only tenon.dev/do-not-disrupt (as the API documents);
//   - drift: nodes whose pool template or node class hash changed since
//     launch, whose labels the pool's requirements no longer allow, or
//     that lack a label or taint of the pool; replaced whatever the price;
//   - consolidation (WhenEmptyOrUnderutilized, Balanced): delete nodes whose
//     pods fit elsewhere, replace a node with a strictly cheaper one, or
//     merge several nodes into fewer, cheaper ones; a Balanced pool also
//     weighs each move's share of its cost against its share of its
//     disruption (balanced.go).
//
// # The search
//
// Consolidation searches the whole cluster at once rather than node by
// node. Candidates are ranked by the value of their pods per dollar of
// node (a pod's value is what it costs at least anywhere: the larger of
// its cpu and memory at the cheapest allowed price per unit), so the first
// give the most money back per pod evicted. Admitted in that order while
// budgets allow (and no PDB forbids), a prefix of them is removed
// together: its pods are packed by engine/packing on the remaining nodes
// first and on new claims after. The prefix maximises the saving less what
// each removed node's pool asks (its minSavingsPercent of the node's price
// and its minSavingsPerPod per pod evicted), so every node added must pay
// for its disruption. A cost model (pods' value against the
// room left on the other nodes) picks the first size, one packing result
// calibrates it, and a step search refines it. Ranked by value per
// dollar, the prefix spends the free room of the nodes kept on whatever is
// cheapest to empty, often cheap nodes holding one small pod, so one more
// set is simulated (thriftySet): the prefix's merges, then deletions most
// saving per pod evicted first, each only if its pods fit by first fit in
// the free room left, until it saves what the prefix saves; and one more
// (fullerSet): the prefix less the nodes its merges empty into new claims
// that, filled up, cost no more per unit of value than those claims,
// fullest first, so they stay and take pods in the claims' place. Each set
// is settled before they are compared: split into commands, the commands
// the safety rules refuse left out and the rest simulated again (a set
// that gains most on paper may hold a merge the rules refuse). The set
// that gains most, settled, replaces the prefix. Then the remaining
// candidates are tried (local search, screen.go): triaged without
// simulating (first fit into the other nodes' free room, less the room of
// daemonsets that run on a node but have no pod there yet; a bound on any
// replacement: per resource, and the cheapest type that holds a pod that
// must move to a new node, both on what a new node offers pods beside the
// daemonsets every node of its pool runs, claimbound.go), likely deletions
// first, each alone
// while the simulations left allow, else in windows of consecutive
// candidates sized so every one is reached within the caps (one packing
// run per window, its commands checked one by one; the prefix search
// leaves it an eighth of the caps). Nodes whose pods land
// on a shared new claim form one merge command. Every packing run counts
// against MaxEvaluations and MaxWork.
//
// # Walking to the end state
//
// Planned one step at a time, consolidation chains: a plan moves the pods
// of small nodes onto a large, half-empty node, and a later plan replaces
// that node, evicting the same pods again. So when a plan consolidates,
// Plan follows it in simulation (up to Options.Lookahead plans, each
// applied, the clock moving past consolidateAfter between them) to the
// node set it ends at. If the plan moves pods onto nodes that end
// removes, Plan plans the step again with those nodes receiving no pods
// and ranked first by the consolidation search (so the step merges them
// itself, with the nodes whose pods it sent there), follows that step the
// same way, and takes it when its end evicts no more pods and costs less
// once each pod evicted on the way is priced at minSavingsPerPod (the
// pools' largest); if not, it tries once more with every node the end
// removes receiving no pods, taken on the price alone: fewer evictions
// win at equal cost, and a cheaper end wins only when it saves more than
// its extra evictions are worth.
// Budgets pace the walk; they do not choose where it ends. A later
// command of one plan may move pods onto an earlier command's
// replacement, which is then launched for those pods too.
//
// # Safety rules
//
// Replacements must be strictly cheaper (never the same type at the same
// price) and save what their nodes' pools ask (the NodePool's
// disruption.minSavingsPerHour, minSavingsPercent and minSavingsPerPod;
// Options' MinSavings* where a pool leaves one out). A command spanning
// pools must save the largest minSavingsPerHour among them, each node's
// pool's percentage of that node's price, and, when it launches
// replacements, each evicted pod's node's pool's amount per pod; pods annotated tenon.dev/do-not-disrupt
// "true" (or a duration such as "30m", counted from the pod's start) pin
// their node, as does the node annotation; a node is disrupted voluntarily
// only if every PDB selecting its pods allows at least one disruption now
// (the drain's Eviction API then paces the pods out within the budget, so
// evictions are not summed: see pdbs); pods without a controller block
// voluntary disruption unless the NodePool is annotated
// tenon.dev/disrupt-bare-pods: "true";
// commands evicting higher-priority pods come last; budgets allow a count
// or a whole percentage (rounded up) of the pool's nodes, only inside their
// cron window (UTC) and for their reasons, the most restrictive active
// budget winning (state.Disruption.ActiveBudget, the one evaluation of
// budgets), and nodes already being deleted count against them; a node
// pending pods are expected on (state.Node.Nominated, set by the agent) is
// left alone; a spot node
// is replaced by spot only when at least MinSpotTypes (15) cheaper spot
// types are allowed. Every reason a node is kept is worded for a person:
// "do-not-disrupt pod default/web-7", "PDB default/api allows 0
// disruptions", "consolidateAfter 5m not elapsed (node stable for 2m10s)",
// "budget of nodepool default allows 0 now (schedule "0 9 * * mon-fri",
// 8h)", "no cheaper placement: ...", "saving $0.004/h below threshold ...".
//
// Apply turns a plan into the cluster after it (for `tenon simulate
// --until-stable`), and Validate checks it with engine/packing/check. The
// agent runs the same Plan: emptiness alone every second (Options.Reasons),
// so an empty node goes promptly, and the whole plan every ten seconds; the
// rules that held back a node emptiness chose are named in Kept.Held for
// its metrics.
//
// # Figures
//
// On generated clusters packed by engine/packing (4xlarge nodes, about 20
// pods each) with half the pods then deleted at random, `make bench`
// (BenchmarkPlan, BenchmarkUntilStable, BenchmarkNoChurn) measured on the
// shared 2-core machine: see the README's consolidation section.
package consolidation
