// Package simulate runs Tenon's engine on files: it reads scenario files
// (multi-document Kubernetes YAML or JSON, as in ../shared/workloads) with
// engine/manifest, validates the kinds scenarioKinds lists, turns them into
// a state.Snapshot with the converter the agent uses, solves the pending
// pods with engine/packing and reports the nodes it would launch, their cost
// and why any pod cannot be placed. A scenario with existing nodes and pods
// bound to them is planned by engine/consolidation instead
// (consolidate.go): the nodes to remove or replace, why the others stay,
// and, with --until-stable, the cluster once nothing changes. It backs the
// `tenon simulate` subcommand and the tenon_simulation data source.
//
// It reads files and writes reports; it never talks to a cluster or a cloud.
package simulate
