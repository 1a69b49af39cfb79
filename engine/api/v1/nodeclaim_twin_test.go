package v1_test

import (
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

const nodeClaimBase = `
apiVersion: tenon.dev/v1
kind: NodeClaim
metadata:
  name: general-x7k2p
  labels: {tenon.dev/nodepool: general}
spec:
  nodeClassRef: {name: default}
  requirements:
  - {key: tenon.dev/nodepool, operator: In, values: [general]}
  - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5a.large, m6i.large], minValues: 2}
  resources: {requests: {cpu: 1500m, memory: 3Gi, pods: "3"}}
`

func TestNodeClaimTwins(t *testing.T) {
	checkEveryRuleHit(t, "tenon.dev_nodeclaims.yaml", runTwins[v1.NodeClaim](t, "tenon.dev_nodeclaims.yaml", nodeClaimBase, nodeClaimTwins))
}

var nodeClaimTwins = []twin{
	{name: "minimal"},
	{name: "with taints, lifetime and status", patch: `
spec:
  taints: [{key: example.com/dedicated, value: gpu, effect: NoSchedule}]
  startupTaints: [{key: node.cilium.io/agent-not-ready, effect: NoExecute}]
  expireAfter: Never
  terminationGracePeriod: 48h
status:
  nodeName: ip-10-0-1-2.eu-west-1.compute.internal
  providerID: aws:///eu-west-1a/i-0123456789abcdef0
  imageID: ami-0123456789abcdef0
  instanceType: m5.large
  zone: eu-west-1a
  capacityType: spot
  capacity: {cpu: "2", memory: 8Gi, pods: "29"}
  allocatable: {cpu: 1930m, memory: 7Gi, pods: "29"}
  lastPodEventTime: "2026-01-02T03:04:05Z"
  conditions:
  - {type: Launched, status: "True", reason: Launched, message: "", lastTransitionTime: "2026-01-02T03:00:00Z"}
`},
	{name: "update of labels and status only", old: `{metadata: {labels: {a: b}}}`, patch: `{status: {nodeName: n1}}`},

	{name: "spec changed", old: `{spec: {resources: {requests: {cpu: "1"}}}}`,
		path: "spec", fix: "spec is immutable; delete the NodeClaim and let the agent make a new one", cel: true},
	{name: "In without values", patch: `{spec: {requirements: [{key: tenon.dev/nodepool, operator: In}]}}`,
		path: "spec.requirements[0].values", fix: "operator In requires at least one value; add values or use Exists", cel: true},
	{name: "minValues above the values", patch: `{spec: {requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large], minValues: 2}]}}`,
		path: "spec.requirements[0].minValues", fix: "lower minValues or add values", cel: true},
	{name: "restricted key", patch: `{spec: {requirements: [{key: kubernetes.io/hostname, operator: In, values: [a]}]}}`,
		path: "spec.requirements[0].key", fix: "label domain kubernetes.io is restricted", cel: true},
	{name: "NotIn without values", patch: `{spec: {requirements: [{key: team, operator: NotIn}]}}`,
		path: "spec.requirements[0].values", fix: "operator NotIn requires at least one value", cel: true},
	{name: "Exists with values", patch: `{spec: {requirements: [{key: team, operator: Exists, values: [a]}]}}`,
		path: "spec.requirements[0].values", fix: "operators Exists and DoesNotExist take no values", cel: true},
	{name: "Gt with a word", patch: `{spec: {requirements: [{key: tenon.dev/instance-cpu, operator: Gt, values: [x]}]}}`,
		path: "spec.requirements[0].values", fix: "set values to a single number", cel: true},
	{name: "key syntax", patch: `{spec: {requirements: [{key: "a b", operator: Exists}]}}`,
		path: "spec.requirements[0].key", fix: "key must be a label key", cel: true},
	{name: "k8s.io key", patch: `{spec: {requirements: [{key: k8s.io/a, operator: Exists}]}}`,
		path: "spec.requirements[0].key", fix: "label domain k8s.io is restricted", cel: true},
	{name: "karpenter.sh key", patch: `{spec: {requirements: [{key: karpenter.sh/nodepool, operator: Exists}]}}`,
		path: "spec.requirements[0].key", fix: "label domain karpenter.sh is restricted", cel: true},
	{name: "Karpenter AWS key", patch: `{spec: {requirements: [{key: karpenter.k8s.aws/instance-size, operator: Exists}]}}`,
		path: "spec.requirements[0].key", fix: "Karpenter's instance labels are restricted", cel: true},
	{name: "tenon.dev key", patch: `{spec: {requirements: [{key: tenon.dev/other, operator: Exists}]}}`,
		path: "spec.requirements[0].key", fix: "label domain tenon.dev is restricted", cel: true},
	{name: "taint key syntax", patch: `{spec: {taints: [{key: "a b", effect: NoSchedule}]}}`,
		path: "spec.taints[0].key", fix: "key must be a label key", cel: true},
	{name: "taint value syntax", patch: `{spec: {taints: [{key: a, value: "b c", effect: NoSchedule}]}}`,
		path: "spec.taints[0].value", fix: "value must be up to 63 letters", cel: true},
	{name: "startup taint key syntax", patch: `{spec: {startupTaints: [{key: "a b", effect: NoSchedule}]}}`,
		path: "spec.startupTaints[0].key", fix: "key must be a label key", cel: true},
	{name: "startup taint value syntax", patch: `{spec: {startupTaints: [{key: a, value: "b c", effect: NoSchedule}]}}`,
		path: "spec.startupTaints[0].value", fix: "value must be up to 63 letters", cel: true},
	{name: "repeated startup taint", patch: `{spec: {startupTaints: [{key: a, effect: NoSchedule}, {key: a, effect: NoSchedule}]}}`,
		path: "spec.startupTaints[1]", fix: "startupTaints repeat a key and effect", cel: true},
	{name: "nodeClassRef name syntax", patch: `{spec: {nodeClassRef: {name: Default}}}`,
		path: "spec.nodeClassRef.name", fix: "name must be a NodeClass name", cel: true},
	{name: "nodeClassRef group changed", old: `{spec: {nodeClassRef: {group: karpenter.k8s.aws}}}`,
		path: "spec.nodeClassRef.group", fix: "nodeClassRef.group is immutable", cel: true},
	{name: "nodeClassRef kind changed", old: `{spec: {nodeClassRef: {kind: EC2NodeClass}}}`,
		path: "spec.nodeClassRef.kind", fix: "nodeClassRef.kind is immutable", cel: true},
	{name: "repeated taint", patch: `{spec: {taints: [{key: a, effect: NoSchedule}, {key: a, effect: NoSchedule}]}}`,
		path: "spec.taints[1]", fix: "taints repeat a key and effect; remove the duplicate", cel: true},
	{name: "startup taint repeats a taint", patch: `{spec: {taints: [{key: a, effect: NoSchedule}], startupTaints: [{key: a, effect: NoSchedule}]}}`,
		path: "spec.startupTaints[0]", fix: "keep it in taints or startupTaints, not both", cel: true},
	{name: "no nodeClassRef", patch: `{spec: {nodeClassRef: null}}`,
		path: "spec.nodeClassRef", fix: "set nodeClassRef.name"},
	{name: "expireAfter syntax", patch: `{spec: {expireAfter: 1w}}`,
		path: "spec.expireAfter", fix: "expireAfter must be a duration such as 720h", cel: true},
	{name: "terminationGracePeriod syntax", patch: `{spec: {terminationGracePeriod: forever}}`,
		path: "spec.terminationGracePeriod", fix: "terminationGracePeriod must be a duration", cel: true},
}
