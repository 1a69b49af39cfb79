// Package statetest builds state values for tests: pools, nodes, pods,
// daemonsets and snapshots with the defaults most tests want, changed by
// functional options (statetest.Pod("web", "1", "1Gi",
// statetest.WithLabel("app", "web"))), as Karpenter's test.NodePool does.
// The packer's, the result checker's and consolidation's tests share it.
package statetest
