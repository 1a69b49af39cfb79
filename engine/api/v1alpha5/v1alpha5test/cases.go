// Package v1alpha5test holds the validation cases of the tenon.dev/v1alpha5 Provisioner as
// data, so the Go validation, the in-process CRD evaluation and the integration tests against a
// real kube-apiserver all check the same table.
package v1alpha5test

import (
	_ "embed"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Base is the acceptance object every case patches: a Karpenter v1alpha5 Provisioner as
// published, with apiVersion tenon.dev/v1alpha5.
//
//go:embed pet2cattle-workers.yaml
var Base []byte

// Error is one expected error: its type, its path in Go and in the API server (the same
// unless a CEL rule on a map or list can only point at the whole of it; GoPath "-" for an
// error only the API server gives), and for CEL rules the message both must give.
type Error struct {
	Type    field.ErrorType
	GoPath  string
	CRDPath string
	Msg     string
}

const (
	invalid      = field.ErrorTypeInvalid
	required     = field.ErrorTypeRequired
	notSupported = field.ErrorTypeNotSupported
	tooLong      = field.ErrorTypeTooLong
	tooMany      = field.ErrorTypeTooMany
)

// celBlocked is the API server's error when schema errors keep the CEL rules from running.
var celBlocked = Error{Type: invalid, GoPath: "-", CRDPath: "<nil>", Msg: "some validation rules were not checked"}

// Messages of the CEL rules, repeated here so a changed marker or Go constant fails a test.
const (
	mKeySyntax     = "key must be a label key such as example.com/team: an optional DNS subdomain and '/', then up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	mValueSyntax   = "value must be up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	mHostname      = "label kubernetes.io/hostname is restricted: the kubelet sets it to the node's name; remove it"
	mKarpenterAWS  = "Karpenter's instance labels are restricted; use the tenon.dev equivalent, such as tenon.dev/instance-family for karpenter.k8s.aws/instance-family"
	mKarpenter     = "label domain karpenter.sh is restricted; use the tenon.dev equivalent, such as tenon.dev/capacity-type for karpenter.sh/capacity-type"
	mKarpenterReq  = "label domain karpenter.sh is restricted in requirements but for karpenter.sh/capacity-type, an alias of tenon.dev/capacity-type; the pool's name needs no requirement, and other keys need a tenon.dev well-known label or your own domain"
	mTenon         = "label domain tenon.dev is restricted; use a well-known label such as tenon.dev/capacity-type or tenon.dev/instance-family, or a key in your own domain"
	mNodePoolLabel = "label tenon.dev/nodepool is set by the agent to the provisioner's name; remove it"
	mNodePoolReq   = "label tenon.dev/nodepool is set by the agent to the provisioner's name; remove the requirement"
	mIn            = "operator In requires at least one value; add values or use Exists"
	mNotIn         = "operator NotIn requires at least one value; add values or use DoesNotExist"
	mExists        = "operators Exists and DoesNotExist take no values; remove values or use In or NotIn"
	mInteger       = "operators Gt and Lt take exactly one value, a non-negative integer such as '4'; set values to a single number"
	mTaintsRepeat  = "taints repeat a key and effect; remove the duplicate"
	mStartupRepeat = "startupTaints repeat a key and effect; remove the duplicate"
	mStartupTaint  = "a startup taint repeats a taint's key and effect; keep it in taints or startupTaints, not both"
	mTTLExclusive  = "ttlSecondsAfterEmpty and consolidation.enabled are exclusive, as consolidation removes empty nodes itself; remove ttlSecondsAfterEmpty or set consolidation.enabled to false"
	mProviderReq   = "set provider (inline AWS settings) or providerRef (the name of a NodeClass)"
	mProviderXor   = "provider and providerRef are exclusive; keep provider for inline AWS settings or providerRef to use a NodeClass"
	mNodeClassName = "name must be a NodeClass name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"
	mCustomAMI     = "amiFamily Custom requires amiSelector; add tags selecting your AMIs, or use amiFamily AL2023 or Bottlerocket"
	mSelectorEmpty = "tag keys and values must not be empty; use '*' to match any value"
	mAMIByID       = "aws-ids and aws:: keys select AMIs by ID, name or owner, which an inline provider cannot express; use a NodeClass with amiSelectorTerms and providerRef"
	mSubnetByID    = "aws-ids and aws:: keys select subnets by ID, which an inline provider cannot express; use a NodeClass with subnetSelectorTerms and providerRef"
	mSGByID        = "aws-ids and aws:: keys select security groups by ID or name, which an inline provider cannot express; use a NodeClass with securityGroupSelectorTerms and providerRef"
	mTagKey        = "tag keys must be 1 to 128 characters"
	mTagValue      = "tag values must be at most 256 characters"
	mTagCluster    = "tag keys starting with kubernetes.io/cluster/ are set by the agent; remove the tag"
	mTagReserved   = "tags tenon.dev/cluster, tenon.dev/nodepool and tenon.dev/nodeclaim are set by the agent; remove the tag"
	mSoftNeedsGP   = "every evictionSoft signal needs an evictionSoftGracePeriod entry; add one for each signal"
	mGPNeedsSoft   = "every evictionSoftGracePeriod signal needs an evictionSoft threshold; add the threshold or remove the grace period"
	mImageGC       = "imageGCLowThresholdPercent must be lower than imageGCHighThresholdPercent"
	mSysResKeys    = "systemReserved keys must be cpu, memory, ephemeral-storage or pid"
	mSysResValues  = "systemReserved values must be non-negative quantities such as 100m or 1Gi"
	mClusterDNS    = "clusterDNS entries must be IP addresses, such as 10.100.0.10"
	mKubeResKeys   = "kubeReserved keys must be cpu, memory, ephemeral-storage or pid"
	mKubeResValues = "kubeReserved values must be non-negative quantities such as 100m or 1Gi"
	mHardKeys      = "evictionHard keys must be memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree or pid.available"
	mHardValues    = "evictionHard values must be a percentage such as 10% or a quantity such as 100Mi"
	mSoftKeys      = "evictionSoft keys must be memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree or pid.available"
	mSoftValues    = "evictionSoft values must be a percentage such as 10% or a quantity such as 100Mi"
	mGPKeys        = "evictionSoftGracePeriod keys must be memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree or pid.available"
	mGPValues      = "evictionSoftGracePeriod values must be durations such as 30s or 1m30s (units s, m, h)"
)

// Case is one input: Base with Patch merged in, and the errors it must get (none: valid).
type Case struct {
	Name  string
	Patch string // a JSON merge patch, in YAML, on the acceptance object
	Want  []Error
}

// cel is an error from a CEL rule: Go points at goPath, the API server at crdPath.
func cel(goPath, crdPath, msg string) Error {
	return Error{Type: invalid, GoPath: goPath, CRDPath: crdPath, Msg: msg}
}

func schema(typ field.ErrorType, path string) Error {
	return Error{Type: typ, GoPath: path, CRDPath: path}
}

// Cases are the Provisioner validation cases, run against the Go validation, the CRD in process
// and a real API server.
var Cases = []Case{
	// The object as it is, and variants that must stay valid.
	{Name: "acceptance object"},
	{Name: "consolidation instead of ttlSecondsAfterEmpty", Patch: `{spec: {ttlSecondsAfterEmpty: null, consolidation: {enabled: true}}}`},
	{Name: "ttlSecondsAfterEmpty with consolidation disabled", Patch: `{spec: {consolidation: {enabled: false}}}`},
	{Name: "providerRef instead of provider", Patch: `{spec: {provider: null, providerRef: {name: default}}}`},
	{Name: "providerRef in full", Patch: `{spec: {provider: null, providerRef: {apiVersion: tenon.dev/v1, kind: NodeClass, name: my.class-1}}}`},
	{Name: "well-known and open labels", Patch: `{spec: {labels: {kubernetes.io/arch: arm64, topology.kubernetes.io/zone: a, node.kubernetes.io/x: "", node-restriction.kubernetes.io/y: z, tenon.dev/capacity-type: spot, example.com/team: a_b.c-d}}}`},
	{Name: "requirement operators", Patch: `{spec: {requirements: [
		{key: example.com/a, operator: NotIn, values: [x]}, {key: example.com/b, operator: Exists},
		{key: example.com/c, operator: DoesNotExist}, {key: tenon.dev/instance-cpu, operator: Gt, values: ["4"]},
		{key: tenon.dev/instance-memory, operator: Lt, values: ["0"]}]}}`},
	{Name: "taints and startup taints", Patch: `{spec: {
		taints: [{key: example.com/a, effect: NoSchedule}, {key: example.com/a, value: b, effect: NoExecute}],
		startupTaints: [{key: example.com/a, effect: PreferNoSchedule}]}}`},
	{Name: "kubelet configuration", Patch: `{spec: {kubeletConfiguration: {clusterDNS: [10.0.0.10], maxPods: 110, podsPerCore: 0,
		systemReserved: {cpu: 100m, memory: 100Mi}, kubeReserved: {ephemeral-storage: 1Gi, pid: "100"},
		evictionHard: {memory.available: 5%, nodefs.available: 100Mi}, evictionSoft: {memory.available: 10.5%},
		evictionSoftGracePeriod: {memory.available: 1m30s}, evictionMaxPodGracePeriod: 60,
		imageGCHighThresholdPercent: 85, imageGCLowThresholdPercent: 80, cpuCFSQuota: true}}}`},
	{Name: "provider in full", Patch: `{spec: {provider: {amiFamily: Custom, amiSelector: {team: "*"}, subnetSelector: {kubernetes.io/cluster/prod: "*"},
		tags: {tenon.dev/team: x, Name: node}}}}`},
	{Name: "weight bounds", Patch: `{spec: {weight: 100}}`},
	{Name: "consolidation savings thresholds", Patch: `{spec: {ttlSecondsAfterEmpty: null, consolidation: {enabled: true, minSavingsPerHour: "0.05", minSavingsPercent: 25, minSavingsPerPod: "0"}}}`},

	// Spec-level CEL rules.
	{Name: "ttlSecondsAfterEmpty with consolidation", Patch: `{spec: {consolidation: {enabled: true}}}`,
		Want: []Error{cel("spec.ttlSecondsAfterEmpty", "", mTTLExclusive)}},
	{Name: "neither provider nor providerRef", Patch: `{spec: {provider: null}}`,
		Want: []Error{cel("spec", "", mProviderReq)}},
	{Name: "provider and providerRef", Patch: `{spec: {providerRef: {name: default}}}`,
		Want: []Error{cel("spec.providerRef", "", mProviderXor)}},
	{Name: "startup taint repeats a taint", Patch: `{spec: {taints: [{key: a, effect: NoSchedule}], startupTaints: [{key: b, effect: NoSchedule}, {key: a, effect: NoSchedule}]}}`,
		Want: []Error{cel("spec.startupTaints[1]", "spec.startupTaints", mStartupTaint)}},

	// Labels and annotations.
	{Name: "annotation key", Patch: `{spec: {annotations: {"bad key": x}}}`,
		Want: []Error{cel("spec.annotations[bad key]", "spec.annotations", mKeySyntax)}},
	{Name: "label key syntax", Patch: `{spec: {labels: {-bad: x}}}`,
		Want: []Error{cel("spec.labels[-bad]", "spec.labels", mKeySyntax)}},
	{Name: "label value syntax", Patch: `{spec: {labels: {good: -bad}}}`,
		Want: []Error{{Type: invalid, GoPath: "spec.labels[good]", CRDPath: "spec.labels.good"}}},
	{Name: "label value length", Patch: `{spec: {labels: {good: ` + strings.Repeat("a", 64) + `}}}`,
		Want: []Error{{Type: tooLong, GoPath: "spec.labels[good]", CRDPath: "spec.labels.good"}, celBlocked}},
	{Name: "label kubernetes.io/hostname", Patch: `{spec: {labels: {kubernetes.io/hostname: x}}}`,
		Want: []Error{cel("spec.labels[kubernetes.io/hostname]", "spec.labels", mHostname)}},
	// Karpenter v1 reserves only its own group: kubernetes.io and k8s.io
	// keys are accepted (issue 17 item 11).
	{Name: "labels in the kubernetes.io and k8s.io domains", Patch: `{spec: {labels: {kubernetes.io/team: x, sub.kubernetes.io/a: b, k8s.io/x: y}}}`},
	{Name: "label domain karpenter.sh", Patch: `{spec: {labels: {karpenter.sh/capacity-type: spot}}}`,
		Want: []Error{cel("spec.labels[karpenter.sh/capacity-type]", "spec.labels", mKarpenter)}},
	{Name: "label Karpenter AWS instance label", Patch: `{spec: {labels: {karpenter.k8s.aws/instance-family: m5}}}`,
		Want: []Error{cel("spec.labels[karpenter.k8s.aws/instance-family]", "spec.labels", mKarpenterAWS)}},
	{Name: "label domain tenon.dev", Patch: `{spec: {labels: {tenon.dev/team: x}}}`,
		Want: []Error{cel("spec.labels[tenon.dev/team]", "spec.labels", mTenon)}},
	{Name: "label tenon.dev/nodepool", Patch: `{spec: {labels: {tenon.dev/nodepool: x}}}`,
		Want: []Error{cel("spec.labels[tenon.dev/nodepool]", "spec.labels", mNodePoolLabel)}},

	// Taints.
	{Name: "taint key syntax", Patch: `{spec: {taints: [{key: "a b", effect: NoSchedule}]}}`,
		Want: []Error{cel("spec.taints[0].key", "", mKeySyntax)}},
	{Name: "taint value syntax", Patch: `{spec: {taints: [{key: a, value: "-b", effect: NoSchedule}]}}`,
		Want: []Error{cel("spec.taints[0].value", "", mValueSyntax)}},
	{Name: "taint key required", Patch: `{spec: {taints: [{effect: NoSchedule}]}}`,
		Want: []Error{schema(required, "spec.taints[0].key"), celBlocked}},
	{Name: "taint effect required", Patch: `{spec: {taints: [{key: a}]}}`,
		Want: []Error{schema(required, "spec.taints[0].effect"), celBlocked}},
	{Name: "taint effect", Patch: `{spec: {taints: [{key: a, effect: NoWay}]}}`,
		Want: []Error{schema(notSupported, "spec.taints[0].effect"), celBlocked}},
	{Name: "taints repeat", Patch: `{spec: {taints: [{key: a, effect: NoSchedule}, {key: a, value: b, effect: NoSchedule}]}}`,
		Want: []Error{cel("spec.taints[1]", "spec.taints", mTaintsRepeat)}},
	{Name: "startup taints repeat", Patch: `{spec: {startupTaints: [{key: a, effect: NoSchedule}, {key: a, effect: NoSchedule}]}}`,
		Want: []Error{cel("spec.startupTaints[1]", "spec.startupTaints", mStartupRepeat)}},

	// Requirements.
	{Name: "reserved capacity", Patch: `{spec: {requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [reserved, on-demand]}]}}`},
	{Name: "unknown capacity type", Patch: `{spec: {requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [ondemand]}]}}`,
		Want: []Error{cel("spec.requirements[0].values", "", "capacity types are on-demand, spot and reserved (EC2 capacity reservations the NodeClass selects); fix the value")}},
	{Name: "In without values", Patch: `{spec: {requirements: [{key: a, operator: In}]}}`,
		Want: []Error{cel("spec.requirements[0].values", "", mIn)}},
	{Name: "NotIn without values", Patch: `{spec: {requirements: [{key: a, operator: NotIn}]}}`,
		Want: []Error{cel("spec.requirements[0].values", "", mNotIn)}},
	{Name: "Exists with values", Patch: `{spec: {requirements: [{key: a, operator: Exists, values: [x]}]}}`,
		Want: []Error{cel("spec.requirements[0].values", "", mExists)}},
	{Name: "DoesNotExist with values", Patch: `{spec: {requirements: [{key: a, operator: DoesNotExist, values: [x]}]}}`,
		Want: []Error{cel("spec.requirements[0].values", "", mExists)}},
	{Name: "Gt with two values", Patch: `{spec: {requirements: [{key: a, operator: Gt, values: ["1", "2"]}]}}`,
		Want: []Error{cel("spec.requirements[0].values", "", mInteger)}},
	{Name: "Lt with a word", Patch: `{spec: {requirements: [{key: a, operator: Lt, values: [four]}]}}`,
		Want: []Error{cel("spec.requirements[0].values", "", mInteger)}},
	{Name: "Gt without values", Patch: `{spec: {requirements: [{key: a, operator: Gt}]}}`,
		Want: []Error{cel("spec.requirements[0].values", "", mInteger)}},
	{Name: "Gt with a negative number", Patch: `{spec: {requirements: [{key: a, operator: Gt, values: ["-1"]}]}}`,
		Want: []Error{cel("spec.requirements[0].values", "", mInteger), schema(invalid, "spec.requirements[0].values[0]")}},
	{Name: "unsupported operator", Patch: `{spec: {requirements: [{key: a, operator: Gte, values: ["1"]}]}}`,
		Want: []Error{schema(notSupported, "spec.requirements[0].operator"), celBlocked}},
	{Name: "operator required", Patch: `{spec: {requirements: [{key: a}]}}`,
		Want: []Error{schema(required, "spec.requirements[0].operator"), celBlocked}},
	{Name: "key required", Patch: `{spec: {requirements: [{operator: Exists}]}}`,
		Want: []Error{schema(required, "spec.requirements[0].key"), celBlocked}},
	{Name: "requirement value syntax", Patch: `{spec: {requirements: [{key: a, operator: In, values: [ok, "not ok"]}]}}`,
		Want: []Error{schema(invalid, "spec.requirements[0].values[1]")}},
	{Name: "requirement key syntax", Patch: `{spec: {requirements: [{key: "a/b/c", operator: Exists}]}}`,
		Want: []Error{cel("spec.requirements[0].key", "", mKeySyntax)}},
	{Name: "requirement key kubernetes.io/hostname", Patch: `{spec: {requirements: [{key: kubernetes.io/hostname, operator: Exists}]}}`,
		Want: []Error{cel("spec.requirements[0].key", "", mHostname)}},
	{Name: "requirement keys in the kubernetes.io and k8s.io domains", Patch: `{spec: {requirements: [{key: sub.k8s.io/x, operator: Exists}, {key: kubernetes.io/test, operator: In, values: [a]}]}}`},
	// Karpenter's aliases of the well-known labels may be required (read as Tenon's).
	{Name: "requirement key karpenter.sh/capacity-type", Patch: `{spec: {requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]}}`},
	{Name: "requirement key karpenter.sh", Patch: `{spec: {requirements: [{key: karpenter.sh/nodepool, operator: In, values: [default]}]}}`,
		Want: []Error{cel("spec.requirements[0].key", "", mKarpenterReq)}},
	{Name: "requirement key Karpenter AWS instance label", Patch: `{spec: {requirements: [{key: karpenter.k8s.aws/instance-size, operator: Exists}]}}`},
	{Name: "requirement key tenon.dev", Patch: `{spec: {requirements: [{key: tenon.dev/provisioner-name, operator: Exists}]}}`,
		Want: []Error{cel("spec.requirements[0].key", "", mTenon)}},
	{Name: "requirement key tenon.dev/nodepool", Patch: `{spec: {requirements: [{key: tenon.dev/nodepool, operator: Exists}]}}`,
		Want: []Error{cel("spec.requirements[0].key", "", mNodePoolReq)}},
	{Name: "third requirement", Patch: `{spec: {requirements: [{key: a, operator: Exists}, {key: b, operator: Exists}, {key: c, operator: In}]}}`,
		Want: []Error{cel("spec.requirements[2].values", "", mIn)}},

	// Numbers.
	{Name: "weight too low", Patch: `{spec: {weight: 0}}`, Want: []Error{schema(invalid, "spec.weight")}},
	{Name: "weight too high", Patch: `{spec: {weight: 101}}`, Want: []Error{schema(invalid, "spec.weight")}},
	{Name: "minSavingsPercent too high", Patch: `{spec: {consolidation: {minSavingsPercent: 101}}}`,
		Want: []Error{schema(invalid, "spec.consolidation.minSavingsPercent")}},
	{Name: "minSavingsPerHour negative", Patch: `{spec: {consolidation: {minSavingsPerHour: "-1"}}}`,
		Want: []Error{cel("spec.consolidation.minSavingsPerHour", "", "minSavingsPerHour must be a decimal amount in USD per hour, 0 or more, such as 0.01 or 0.5 (up to 6 decimals)")}},
	{Name: "minSavingsPerPod in words", Patch: `{spec: {consolidation: {minSavingsPerPod: "a cent"}}}`,
		Want: []Error{cel("spec.consolidation.minSavingsPerPod", "", "minSavingsPerPod must be a decimal amount in USD per hour, 0 or more, such as 0.003 (up to 6 decimals)")}},
	{Name: "negative ttlSecondsAfterEmpty", Patch: `{spec: {ttlSecondsAfterEmpty: -1}}`, Want: []Error{schema(invalid, "spec.ttlSecondsAfterEmpty")}},
	{Name: "negative ttlSecondsUntilExpired", Patch: `{spec: {ttlSecondsUntilExpired: -1}}`, Want: []Error{schema(invalid, "spec.ttlSecondsUntilExpired")}},

	// Kubelet configuration.
	{Name: "evictionSoft without grace period", Patch: `{spec: {kubeletConfiguration: {evictionSoft: {memory.available: 5%}}}}`,
		Want: []Error{cel("spec.kubeletConfiguration.evictionSoftGracePeriod", "", mSoftNeedsGP)}},
	{Name: "grace period without evictionSoft", Patch: `{spec: {kubeletConfiguration: {evictionSoftGracePeriod: {memory.available: 1m}}}}`,
		Want: []Error{cel("spec.kubeletConfiguration.evictionSoft", "", mGPNeedsSoft)}},
	{Name: "image GC thresholds", Patch: `{spec: {kubeletConfiguration: {imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 50}}}`,
		Want: []Error{cel("spec.kubeletConfiguration.imageGCLowThresholdPercent", "", mImageGC)}},
	{Name: "image GC percentage", Patch: `{spec: {kubeletConfiguration: {imageGCHighThresholdPercent: 101}}}`,
		Want: []Error{schema(invalid, "spec.kubeletConfiguration.imageGCHighThresholdPercent")}},
	{Name: "maxPods", Patch: `{spec: {kubeletConfiguration: {maxPods: 0}}}`,
		Want: []Error{schema(invalid, "spec.kubeletConfiguration.maxPods")}},
	{Name: "clusterDNS", Patch: `{spec: {kubeletConfiguration: {clusterDNS: [10.0.0.1, 10.0.0.2, 10.0.0.3, 10.0.0.4]}}}`,
		Want: []Error{schema(tooMany, "spec.kubeletConfiguration.clusterDNS"), celBlocked}},
	{Name: "clusterDNS not an address", Patch: `{spec: {kubeletConfiguration: {clusterDNS: [10.0.0.1, "10.0.0.10\n[settings]"]}}}`,
		Want: []Error{cel("spec.kubeletConfiguration.clusterDNS[1]", "spec.kubeletConfiguration.clusterDNS", mClusterDNS)}},
	{Name: "systemReserved key", Patch: `{spec: {kubeletConfiguration: {systemReserved: {gpu: "1"}}}}`,
		Want: []Error{cel("spec.kubeletConfiguration.systemReserved[gpu]", "spec.kubeletConfiguration.systemReserved", mSysResKeys)}},
	{Name: "systemReserved value", Patch: `{spec: {kubeletConfiguration: {systemReserved: {cpu: -1}}}}`,
		Want: []Error{cel("spec.kubeletConfiguration.systemReserved[cpu]", "spec.kubeletConfiguration.systemReserved", mSysResValues)}},
	{Name: "kubeReserved key", Patch: `{spec: {kubeletConfiguration: {kubeReserved: {pods: "1"}}}}`,
		Want: []Error{cel("spec.kubeletConfiguration.kubeReserved[pods]", "spec.kubeletConfiguration.kubeReserved", mKubeResKeys)}},
	{Name: "kubeReserved value", Patch: `{spec: {kubeletConfiguration: {kubeReserved: {memory: lots}}}}`,
		Want: []Error{cel("spec.kubeletConfiguration.kubeReserved[memory]", "spec.kubeletConfiguration.kubeReserved", mKubeResValues)}},
	{Name: "evictionHard key", Patch: `{spec: {kubeletConfiguration: {evictionHard: {memory: 5%}}}}`,
		Want: []Error{cel("spec.kubeletConfiguration.evictionHard[memory]", "spec.kubeletConfiguration.evictionHard", mHardKeys)}},
	{Name: "evictionHard value", Patch: `{spec: {kubeletConfiguration: {evictionHard: {memory.available: 101%}}}}`,
		Want: []Error{cel("spec.kubeletConfiguration.evictionHard[memory.available]", "spec.kubeletConfiguration.evictionHard", mHardValues)}},
	{Name: "evictionSoft key", Patch: `{spec: {kubeletConfiguration: {evictionSoft: {disk: 5%}, evictionSoftGracePeriod: {disk: 1m}}}}`,
		Want: []Error{
			cel("spec.kubeletConfiguration.evictionSoft[disk]", "spec.kubeletConfiguration.evictionSoft", mSoftKeys),
			cel("spec.kubeletConfiguration.evictionSoftGracePeriod[disk]", "spec.kubeletConfiguration.evictionSoftGracePeriod", mGPKeys)}},
	{Name: "evictionSoft value", Patch: `{spec: {kubeletConfiguration: {evictionSoft: {memory.available: "-1Gi"}, evictionSoftGracePeriod: {memory.available: 1m}}}}`,
		Want: []Error{cel("spec.kubeletConfiguration.evictionSoft[memory.available]", "spec.kubeletConfiguration.evictionSoft", mSoftValues)}},
	{Name: "grace period value", Patch: `{spec: {kubeletConfiguration: {evictionSoft: {memory.available: 5%}, evictionSoftGracePeriod: {memory.available: 1d}}}}`,
		Want: []Error{cel("spec.kubeletConfiguration.evictionSoftGracePeriod[memory.available]", "spec.kubeletConfiguration.evictionSoftGracePeriod", mGPValues)}},

	// providerRef.
	{Name: "providerRef name syntax", Patch: `{spec: {provider: null, providerRef: {name: My_Class}}}`,
		Want: []Error{cel("spec.providerRef.name", "", mNodeClassName)}},
	{Name: "providerRef name required", Patch: `{spec: {provider: null, providerRef: {kind: NodeClass}}}`,
		Want: []Error{schema(required, "spec.providerRef.name"), celBlocked}},
	{Name: "providerRef Karpenter kind", Patch: `{spec: {provider: null, providerRef: {apiVersion: karpenter.k8s.aws/v1alpha1, kind: AWSNodeTemplate, name: default}}}`,
		Want: []Error{schema(notSupported, "spec.providerRef.apiVersion"), schema(notSupported, "spec.providerRef.kind"), celBlocked}},

	// provider.
	{Name: "instanceProfile required", Patch: `{spec: {provider: {instanceProfile: null}}}`,
		Want: []Error{schema(required, "spec.provider.instanceProfile"), celBlocked}},
	{Name: "instanceProfile length", Patch: `{spec: {provider: {instanceProfile: ` + strings.Repeat("p", 129) + `}}}`,
		Want: []Error{schema(tooLong, "spec.provider.instanceProfile"), celBlocked}},
	{Name: "amiFamily", Patch: `{spec: {provider: {amiFamily: AL2}}}`,
		Want: []Error{schema(notSupported, "spec.provider.amiFamily"), celBlocked}},
	{Name: "Custom amiFamily without amiSelector", Patch: `{spec: {provider: {amiFamily: Custom}}}`,
		Want: []Error{cel("spec.provider.amiSelector", "", mCustomAMI)}},
	{Name: "amiSelector empty value", Patch: `{spec: {provider: {amiSelector: {team: ""}}}}`,
		Want: []Error{cel("spec.provider.amiSelector[team]", "spec.provider.amiSelector", mSelectorEmpty)}},
	{Name: "amiSelector by ID", Patch: `{spec: {provider: {amiSelector: {"aws::ids": ami-1}}}}`,
		Want: []Error{cel("spec.provider.amiSelector[aws::ids]", "spec.provider.amiSelector", mAMIByID)}},
	{Name: "subnetSelector empty key", Patch: `{spec: {provider: {subnetSelector: {"": x}}}}`,
		Want: []Error{cel("spec.provider.subnetSelector[]", "spec.provider.subnetSelector", mSelectorEmpty)}},
	{Name: "subnetSelector by ID", Patch: `{spec: {provider: {subnetSelector: {aws-ids: "subnet-1,subnet-2"}}}}`,
		Want: []Error{cel("spec.provider.subnetSelector[aws-ids]", "spec.provider.subnetSelector", mSubnetByID)}},
	{Name: "securityGroupSelector empty value", Patch: `{spec: {provider: {securityGroupSelector: {Name: ""}}}}`,
		Want: []Error{cel("spec.provider.securityGroupSelector[Name]", "spec.provider.securityGroupSelector", mSelectorEmpty)}},
	{Name: "securityGroupSelector by ID", Patch: `{spec: {provider: {securityGroupSelector: {aws-ids: sg-1}}}}`,
		Want: []Error{cel("spec.provider.securityGroupSelector[aws-ids]", "spec.provider.securityGroupSelector", mSGByID)}},
	{Name: "tag key length", Patch: `{spec: {provider: {tags: {` + strings.Repeat("k", 129) + `: v}}}}`,
		Want: []Error{cel("spec.provider.tags["+strings.Repeat("k", 129)+"]", "spec.provider.tags", mTagKey)}},
	{Name: "tag value length", Patch: `{spec: {provider: {tags: {k: ` + strings.Repeat("v", 257) + `}}}}`,
		Want: []Error{cel("spec.provider.tags[k]", "spec.provider.tags", mTagValue)}},
	{Name: "cluster tag", Patch: `{spec: {provider: {tags: {kubernetes.io/cluster/prod: owned}}}}`,
		Want: []Error{cel("spec.provider.tags[kubernetes.io/cluster/prod]", "spec.provider.tags", mTagCluster)}},
	{Name: "agent tag", Patch: `{spec: {provider: {tags: {tenon.dev/nodepool: x}}}}`,
		Want: []Error{cel("spec.provider.tags[tenon.dev/nodepool]", "spec.provider.tags", mTagReserved)}},

	// metadata.
	{Name: "metadata name", Patch: `{metadata: {name: Pet2Cattle}}`,
		Want: []Error{schema(invalid, "metadata.name")}},
}
