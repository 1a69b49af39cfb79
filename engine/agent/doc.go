// Package agent is `tenon agent`, the in-cluster runtime (DESIGN §7): it
// watches pending pods, nodes and the tenon.dev policy objects through
// controller-runtime informers, turns them into a state.Snapshot with
// state.Build, lets engine/packing decide, and acts through a
// cloud.CloudProvider.
//
// Controllers, each in its own file:
//   - provisioning (provisioner.go): batches unschedulable pods (1 s idle,
//     10 s max), solves, and persists NodeClaims before any cloud call;
//   - nodeclaim lifecycle (lifecycle.go): launch with fallback, register the
//     Node by provider ID, initialize it, time out, and garbage-collect
//     instances without claims and claims without instances (gc.go);
//   - termination (termination.go): taint, evict in order through the
//     Eviction API honouring PDBs, delete the instance and the Node, drop the
//     finalizer;
//   - disruption (disruption.go): empty nodes past their pool's
//     consolidateAfter (ttlSecondsAfterEmpty) within the pool's budgets;
//   - pool status (status.go): resources and node counts on NodePools and
//     Provisioners, Ready on NodeClasses.
//
// Everything but the probes and metrics runs only on the elected leader.
package agent
