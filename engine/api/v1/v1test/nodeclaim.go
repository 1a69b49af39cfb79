package v1test

// NodeClaimBase is the valid NodeClaim every case of NodeClaimTwins patches.
const NodeClaimBase = `
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

// NodeClaimTwins are the NodeClaim validation cases: each is valid, or rejected by the Go validation
// and the CRD at Path (by a CEL rule of ours when CEL is set, with Fix in its message).
var NodeClaimTwins = []Twin{
	{Name: "minimal"},
	{Name: "with taints, lifetime and status", Patch: `
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
	{Name: "update of labels and status only", Old: `{metadata: {labels: {a: b}}}`, Patch: `{status: {nodeName: n1}}`},

	{Name: "spec changed", Old: `{spec: {resources: {requests: {cpu: "1"}}}}`,
		Path: "spec", Fix: "spec is immutable; delete the NodeClaim and let the agent make a new one", CEL: true},
	{Name: "unknown capacity type", Patch: `{spec: {requirements: [{key: tenon.dev/capacity-type, operator: In, values: [reserved, dedicated]}]}}`,
		Path: "spec.requirements[0].values", Fix: "capacity types are on-demand, spot and reserved", CEL: true},
	{Name: "In without values", Patch: `{spec: {requirements: [{key: tenon.dev/nodepool, operator: In}]}}`,
		Path: "spec.requirements[0].values", Fix: "operator In requires at least one value; add values or use Exists", CEL: true},
	{Name: "minValues above the values", Patch: `{spec: {requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large], minValues: 2}]}}`,
		Path: "spec.requirements[0].minValues", Fix: "lower minValues or add values", CEL: true},
	{Name: "restricted key", Patch: `{spec: {requirements: [{key: kubernetes.io/hostname, operator: In, values: [a]}]}}`,
		Path: "spec.requirements[0].key", Fix: "label kubernetes.io/hostname is restricted: the kubelet sets it to the node's name", CEL: true},
	{Name: "NotIn without values", Patch: `{spec: {requirements: [{key: team, operator: NotIn}]}}`,
		Path: "spec.requirements[0].values", Fix: "operator NotIn requires at least one value", CEL: true},
	{Name: "Exists with values", Patch: `{spec: {requirements: [{key: team, operator: Exists, values: [a]}]}}`,
		Path: "spec.requirements[0].values", Fix: "operators Exists and DoesNotExist take no values", CEL: true},
	{Name: "Gt with a word", Patch: `{spec: {requirements: [{key: tenon.dev/instance-cpu, operator: Gt, values: [x]}]}}`,
		Path: "spec.requirements[0].values", Fix: "set values to a single number", CEL: true},
	{Name: "key syntax", Patch: `{spec: {requirements: [{key: "a b", operator: Exists}]}}`,
		Path: "spec.requirements[0].key", Fix: "key must be a label key", CEL: true},
	{Name: "k8s.io and kubernetes.io keys", Patch: `{spec: {requirements: [{key: k8s.io/a, operator: Exists}, {key: kubernetes.io/test, operator: In, values: [a]}]}}`},
	{Name: "karpenter.sh key", Patch: `{spec: {requirements: [{key: karpenter.sh/nodepool, operator: Exists}]}}`,
		Path: "spec.requirements[0].key", Fix: "label domain karpenter.sh is restricted", CEL: true},
	{Name: "Karpenter AWS key", Patch: `{spec: {requirements: [{key: karpenter.k8s.aws/instance-size, operator: Exists}]}}`},
	{Name: "karpenter.sh/capacity-type key", Patch: `{spec: {requirements: [{key: karpenter.sh/capacity-type, operator: Exists}]}}`},
	{Name: "tenon.dev key", Patch: `{spec: {requirements: [{key: tenon.dev/other, operator: Exists}]}}`,
		Path: "spec.requirements[0].key", Fix: "label domain tenon.dev is restricted", CEL: true},
	{Name: "taint key syntax", Patch: `{spec: {taints: [{key: "a b", effect: NoSchedule}]}}`,
		Path: "spec.taints[0].key", Fix: "key must be a label key", CEL: true},
	{Name: "taint value syntax", Patch: `{spec: {taints: [{key: a, value: "b c", effect: NoSchedule}]}}`,
		Path: "spec.taints[0].value", Fix: "value must be up to 63 letters", CEL: true},
	{Name: "startup taint key syntax", Patch: `{spec: {startupTaints: [{key: "a b", effect: NoSchedule}]}}`,
		Path: "spec.startupTaints[0].key", Fix: "key must be a label key", CEL: true},
	{Name: "startup taint value syntax", Patch: `{spec: {startupTaints: [{key: a, value: "b c", effect: NoSchedule}]}}`,
		Path: "spec.startupTaints[0].value", Fix: "value must be up to 63 letters", CEL: true},
	{Name: "repeated startup taint", Patch: `{spec: {startupTaints: [{key: a, effect: NoSchedule}, {key: a, effect: NoSchedule}]}}`,
		Path: "spec.startupTaints[1]", Fix: "startupTaints repeat a key and effect", CEL: true},
	{Name: "nodeClassRef name syntax", Patch: `{spec: {nodeClassRef: {name: Default}}}`,
		Path: "spec.nodeClassRef.name", Fix: "name must be a NodeClass name", CEL: true},
	{Name: "nodeClassRef group changed", Old: `{spec: {nodeClassRef: {group: karpenter.k8s.aws}}}`,
		Path: "spec.nodeClassRef.group", Fix: "nodeClassRef.group is immutable", CEL: true},
	{Name: "nodeClassRef kind changed", Old: `{spec: {nodeClassRef: {kind: EC2NodeClass}}}`,
		Path: "spec.nodeClassRef.kind", Fix: "nodeClassRef.kind is immutable", CEL: true},
	{Name: "repeated taint", Patch: `{spec: {taints: [{key: a, effect: NoSchedule}, {key: a, effect: NoSchedule}]}}`,
		Path: "spec.taints[1]", Fix: "taints repeat a key and effect; remove the duplicate", CEL: true},
	{Name: "startup taint repeats a taint", Patch: `{spec: {taints: [{key: a, effect: NoSchedule}], startupTaints: [{key: a, effect: NoSchedule}]}}`,
		Path: "spec.startupTaints[0]", Fix: "keep it in taints or startupTaints, not both", CEL: true},
	{Name: "no nodeClassRef", Patch: `{spec: {nodeClassRef: null}}`,
		Path: "spec.nodeClassRef", Fix: "set nodeClassRef.name"},
	{Name: "expireAfter syntax", Patch: `{spec: {expireAfter: 1w}}`,
		Path: "spec.expireAfter", Fix: "expireAfter must be a duration such as 720h", CEL: true},
	{Name: "terminationGracePeriod syntax", Patch: `{spec: {terminationGracePeriod: forever}}`,
		Path: "spec.terminationGracePeriod", Fix: "terminationGracePeriod must be a duration", CEL: true},
}
