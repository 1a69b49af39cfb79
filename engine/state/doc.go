// Package state describes a cluster as plain values: the Snapshot that the
// packing and consolidation engines decide on. The agent builds one from its
// informers, `tenon simulate` from scenario files and the Terraform provider
// from a plan, all through the one converter in this package, Build, so the
// engine sees the same shape wherever it runs.
//
// A Snapshot holds no clients and no pointers into caches: everything is a
// copy, safe to read from several goroutines and to keep. It is read-only:
// pods whose specs share memory in the input (a workload's replicas) share
// their converted labels, requests and constraints, so writing to one pod's
// maps would change its siblings.
//
// The scheduling rules that read these values live here once (scheduling.go)
// for the packer, its result checker and consolidation alike: the labels and
// taints of a pool's new nodes, an existing node's taints and its capacity
// toward pool limits, whether a daemonset runs on a node, host port clashes,
// and which offerings a pool may buy.
//
// Every resource amount in a Snapshot (pod requests, node allocatable, pool
// limits) is within scheduling.MaxRequest or scheduling.MaxLimit: Build
// lowers larger ones to the bound, so the engine's int64 arithmetic cannot
// overflow whatever the API server accepted. The offline commands and the
// provider refuse such amounts before Build, with an error naming the field
// (scheduling.ValidateRequests, the tenon.dev kinds' Validate).
package state
