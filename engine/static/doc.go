// Package static keeps static NodePools (spec.replicas) at their size: how
// many nodes each is short of its replicas, and the claims that launch them.
//
// A static pool keeps exactly replicas nodes, whatever the pending pods, as
// Karpenter v1.15's static NodePools (feature gate StaticCapacity) do:
//
//   - Each missing node is launched as the cheapest offering the pool's
//     requirements allow (Karpenter leaves that choice to the cloud
//     provider's launch, which takes the cheapest); exotic types (GPU,
//     accelerator, metal) only when the pool names them or nothing else is
//     allowed. Where offerings tie on price (on-demand is priced alike in
//     every zone) the zone with the fewest of the pool's nodes comes first,
//     so replicas spread over the zones at no cost, where Karpenter's
//     launches pile into one.
//   - A node counts while it is not being deleted, in-flight claims
//     included, so a launch is never repeated; limits.nodes caps the pool.
//   - Packing never opens a node in a static pool for pending pods (pods
//     may land on its nodes), consolidation leaves its nodes alone, drift
//     replaces them with a node launched as here, and a pool above its
//     replicas sheds its emptiest nodes through consolidation's
//     Overprovisioned commands, within budgets and PodDisruptionBudgets
//     (Karpenter deletes the surplus NodeClaims at once, budgets aside).
//
// The package is a pure function of a state.Snapshot: the agent, tenon
// simulate and consolidation call it alike.
package static
