// Package agent is `tenon agent`, the in-cluster runtime (DESIGN §7): it
// watches pending pods, nodes and the tenon.dev policy objects through
// controller-runtime informers, turns them into a state.Snapshot with
// state.Build, lets engine/packing and engine/consolidation decide, and
// acts through a cloud.CloudProvider.
//
// Each controller is a type holding the dependencies it uses (client,
// cloud, clock, event recorder, metrics, logger, Timings) with a Register
// method that adds it to the manager; setup wires them (agent.go):
//   - provisioner (provisioner.go, batcher.go, nodeclaim.go, reserve.go, anticipate.go, slots.go, hint.go):
//     batches unschedulable pods (--batch-idle, --batch-max), solves,
//     persists NodeClaims before any cloud call, and nominates the pods to
//     them. A pod nominated to a claim in flight (or to a node that has
//     not had NominationWindow to take it) is placed already: the next
//     batch counts it on that claim, while the claim has room, instead of
//     buying another node for it. With --anticipate-pods the batch is
//     sized for the pods controllers are still creating (anticipate.go),
//     and slots (slots.go) keep the room planned for them; each pod's
//     nominated node is written to its status.nominatedNodeName (hint.go);
//   - lifecycle (lifecycle.go): launch with fallback, register the Node by
//     provider ID, initialize it, time out;
//   - termination (termination.go, evictions.go): taint, evict in order
//     through the Eviction API honouring PDBs (a refused eviction backs off
//     per pod on client-go's exponential rate limiter), delete the instance
//     and the Node, drop the finalizer; release deleted Nodes;
//   - garbageCollector (gc.go): terminate instances without claims, delete
//     claims without instances;
//   - disruption (disruption.go, consolidate.go, conditions.go):
//     engine/consolidation's Plan on two ticks — emptiness alone every
//     DisruptionInterval (1 s), so an empty node goes within a second of
//     its consolidateAfter; the whole plan every ConsolidationInterval
//     (10 s), running its first command that is not emptiness (launch the
//     replacements, wait, re-validate, delete). Budgets, consolidateAfter and
//     do-not-disrupt are the plan's rules, the same `tenon simulate
//     --consolidate` applies; the agent adds to the Snapshot what only it
//     knows: the pod-event clock each claim carries (claimConditions keeps
//     the Empty, Consolidatable, Expired and Drifted conditions and
//     status.lastPodEventTime current, so the clock survives restarts), and
//     the nodes pending pods are expected on (nominations, and a solve of
//     the pending pods), and the held nodes (holds.go: a command's nodes
//     while it runs, its replacements for ReplacementHold after launch); no
//     command is planned while nodes an earlier one deleted still drain;
//   - interruption (interruption.go): cloud events → delete the claim,
//     which drains the node;
//   - poolStatus (status.go): resources and node counts on NodePools and
//     Provisioners, Ready on NodeClasses.
//
// The state controllers share is small and passed in: the viewBuilder
// (cluster.go) that reads the informer cache into a Snapshot, the
// nominations (nominations.go), and the disrupter (disrupter.go) through
// which every removal goes. Time comes from an injected clock
// (k8s.io/utils/clock; Run creates the real one) and every duration from
// Options.Timings; every wait ends with its context.
//
// Everything but the probes and metrics runs only on the elected leader.
package agent
