// Package buffer plans NodePools' capacity buffers (spec.buffer): spare room kept free for pods
// that have not arrived yet, so a burst schedules without waiting for a node to launch.
//
// A buffer is a number of placeholder pods of one shape (Pods), always planned after the real
// pods:
//   - Solve packs the pending pods exactly as packing.Solve would, then packs the placeholders
//     on what is left (the free room of existing nodes and in-flight claims, the room left on the
//     claims just planned, then new claims). Real pods never give way to a placeholder, and the
//     buffer's price is what its own claims add: the plan without the buffer is the first solve.
//   - Bind puts placeholders on the free room of existing nodes and in-flight claims, as bound
//     pods, for engine/consolidation: a node holding placeholders is not empty, and removing it
//     must find their room elsewhere, so consolidation never shrinks the buffer (it may still
//     replace nodes with cheaper ones that keep the room).
//
// Placeholders never exist in the API server (state.Pod.Placeholder). The agent's real pods take
// their room at once, since it is free on the nodes, and the next plan finds the buffer short and
// launches for it: the buffer refills behind each burst.
//
// How Tenon differs from Karpenter v1.15's CapacityBuffer (pkg/controllers/capacitybuffer):
//   - pods and percent together give the smaller, as the upstream API documents; Karpenter's
//     computeReplicas takes the larger;
//   - the buffer is sized from the snapshot each plan (percent of the pool's requests), not from
//     a controller's status refreshed every 30 s, and consolidation's emptiness sees the
//     placeholders Bind places in the same plan, where Karpenter's trusts the previous
//     provisioning pass's counts per node;
//   - it is priced: `tenon simulate` and the tenon_simulation data source report what each
//     buffer costs before it is applied;
//   - real pods are solved first and never moved by the buffer; Karpenter solves placeholders
//     and real pods in one pass, where a placeholder at lowest priority may still shape it.
package buffer
