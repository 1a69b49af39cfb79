package v1alpha5_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// twinError is one expected error: its type, its path in Go and in the API server (the same
// unless a CEL rule on a map or list can only point at the whole of it), and for CEL rules the
// message both must give.
type twinError struct {
	typ     field.ErrorType
	goPath  string
	crdPath string
	msg     string
}

const (
	invalid      = field.ErrorTypeInvalid
	required     = field.ErrorTypeRequired
	notSupported = field.ErrorTypeNotSupported
	tooLong      = field.ErrorTypeTooLong
	tooMany      = field.ErrorTypeTooMany
)

// celBlocked is the API server's error when schema errors keep the CEL rules from running.
var celBlocked = twinError{typ: invalid, goPath: "-", crdPath: "<nil>", msg: "some validation rules were not checked"}

// Messages of the CEL rules, repeated here so a changed marker or Go constant fails a test.
const (
	mKeySyntax     = "key must be a label key such as example.com/team: an optional DNS subdomain and '/', then up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	mValueSyntax   = "value must be up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
	mKubernetes    = "label domain kubernetes.io is restricted; use kubernetes.io/arch, kubernetes.io/os, topology.kubernetes.io/zone or region, a node.kubernetes.io label, or a key in your own domain"
	mK8s           = "label domain k8s.io is restricted; use a key in your own domain"
	mKarpenter     = "label domain karpenter.sh is restricted; use the tenon.dev equivalent, such as tenon.dev/capacity-type for karpenter.sh/capacity-type"
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
	mKubeResKeys   = "kubeReserved keys must be cpu, memory, ephemeral-storage or pid"
	mKubeResValues = "kubeReserved values must be non-negative quantities such as 100m or 1Gi"
	mHardKeys      = "evictionHard keys must be memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree or pid.available"
	mHardValues    = "evictionHard values must be a percentage such as 10% or a quantity such as 100Mi"
	mSoftKeys      = "evictionSoft keys must be memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree or pid.available"
	mSoftValues    = "evictionSoft values must be a percentage such as 10% or a quantity such as 100Mi"
	mGPKeys        = "evictionSoftGracePeriod keys must be memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree or pid.available"
)

type twinCase struct {
	name  string
	patch string // a JSON merge patch, in YAML, on the acceptance object
	want  []twinError
}

// cel is an error from a CEL rule: Go points at goPath, the API server at crdPath.
func cel(goPath, crdPath, msg string) twinError {
	return twinError{typ: invalid, goPath: goPath, crdPath: crdPath, msg: msg}
}

func schema(typ field.ErrorType, path string) twinError {
	return twinError{typ: typ, goPath: path, crdPath: path}
}

var twinCases = []twinCase{
	// The object as it is, and variants that must stay valid.
	{name: "acceptance object"},
	{name: "consolidation instead of ttlSecondsAfterEmpty", patch: `{spec: {ttlSecondsAfterEmpty: null, consolidation: {enabled: true}}}`},
	{name: "ttlSecondsAfterEmpty with consolidation disabled", patch: `{spec: {consolidation: {enabled: false}}}`},
	{name: "providerRef instead of provider", patch: `{spec: {provider: null, providerRef: {name: default}}}`},
	{name: "providerRef in full", patch: `{spec: {provider: null, providerRef: {apiVersion: tenon.dev/v1, kind: NodeClass, name: my.class-1}}}`},
	{name: "well-known and open labels", patch: `{spec: {labels: {kubernetes.io/arch: arm64, topology.kubernetes.io/zone: a, node.kubernetes.io/x: "", node-restriction.kubernetes.io/y: z, tenon.dev/capacity-type: spot, example.com/team: a_b.c-d}}}`},
	{name: "requirement operators", patch: `{spec: {requirements: [
		{key: example.com/a, operator: NotIn, values: [x]}, {key: example.com/b, operator: Exists},
		{key: example.com/c, operator: DoesNotExist}, {key: tenon.dev/instance-cpu, operator: Gt, values: ["4"]},
		{key: tenon.dev/instance-memory, operator: Lt, values: ["0"]}]}}`},
	{name: "taints and startup taints", patch: `{spec: {
		taints: [{key: example.com/a, effect: NoSchedule}, {key: example.com/a, value: b, effect: NoExecute}],
		startupTaints: [{key: example.com/a, effect: PreferNoSchedule}]}}`},
	{name: "kubelet configuration", patch: `{spec: {kubeletConfiguration: {clusterDNS: [10.0.0.10], maxPods: 110, podsPerCore: 0,
		systemReserved: {cpu: 100m, memory: 100Mi}, kubeReserved: {ephemeral-storage: 1Gi, pid: "100"},
		evictionHard: {memory.available: 5%, nodefs.available: 100Mi}, evictionSoft: {memory.available: 10.5%},
		evictionSoftGracePeriod: {memory.available: 1m30s}, evictionMaxPodGracePeriod: 60,
		imageGCHighThresholdPercent: 85, imageGCLowThresholdPercent: 80, cpuCFSQuota: true}}}`},
	{name: "provider in full", patch: `{spec: {provider: {amiFamily: Custom, amiSelector: {team: "*"}, subnetSelector: {kubernetes.io/cluster/prod: "*"},
		tags: {tenon.dev/team: x, Name: node}}}}`},
	{name: "weight bounds", patch: `{spec: {weight: 100}}`},

	// Spec-level CEL rules.
	{name: "ttlSecondsAfterEmpty with consolidation", patch: `{spec: {consolidation: {enabled: true}}}`,
		want: []twinError{cel("spec.ttlSecondsAfterEmpty", "", mTTLExclusive)}},
	{name: "neither provider nor providerRef", patch: `{spec: {provider: null}}`,
		want: []twinError{cel("spec", "", mProviderReq)}},
	{name: "provider and providerRef", patch: `{spec: {providerRef: {name: default}}}`,
		want: []twinError{cel("spec.providerRef", "", mProviderXor)}},
	{name: "startup taint repeats a taint", patch: `{spec: {taints: [{key: a, effect: NoSchedule}], startupTaints: [{key: b, effect: NoSchedule}, {key: a, effect: NoSchedule}]}}`,
		want: []twinError{cel("spec.startupTaints[1]", "spec.startupTaints", mStartupTaint)}},

	// Labels and annotations.
	{name: "annotation key", patch: `{spec: {annotations: {"bad key": x}}}`,
		want: []twinError{cel("spec.annotations[bad key]", "spec.annotations", mKeySyntax)}},
	{name: "label key syntax", patch: `{spec: {labels: {-bad: x}}}`,
		want: []twinError{cel("spec.labels[-bad]", "spec.labels", mKeySyntax)}},
	{name: "label value syntax", patch: `{spec: {labels: {good: -bad}}}`,
		want: []twinError{{typ: invalid, goPath: "spec.labels[good]", crdPath: "spec.labels.good"}}},
	{name: "label value length", patch: `{spec: {labels: {good: ` + strings.Repeat("a", 64) + `}}}`,
		want: []twinError{{typ: tooLong, goPath: "spec.labels[good]", crdPath: "spec.labels.good"}, celBlocked}},
	{name: "label domain kubernetes.io", patch: `{spec: {labels: {kubernetes.io/hostname: x}}}`,
		want: []twinError{cel("spec.labels[kubernetes.io/hostname]", "spec.labels", mKubernetes)}},
	{name: "label subdomain of kubernetes.io", patch: `{spec: {labels: {beta.kubernetes.io/arch: x}}}`,
		want: []twinError{cel("spec.labels[beta.kubernetes.io/arch]", "spec.labels", mKubernetes)}},
	{name: "label domain k8s.io", patch: `{spec: {labels: {k8s.io/x: y}}}`,
		want: []twinError{cel("spec.labels[k8s.io/x]", "spec.labels", mK8s)}},
	{name: "label domain karpenter.sh", patch: `{spec: {labels: {karpenter.sh/capacity-type: spot}}}`,
		want: []twinError{cel("spec.labels[karpenter.sh/capacity-type]", "spec.labels", mKarpenter)}},
	{name: "label domain tenon.dev", patch: `{spec: {labels: {tenon.dev/team: x}}}`,
		want: []twinError{cel("spec.labels[tenon.dev/team]", "spec.labels", mTenon)}},
	{name: "label tenon.dev/nodepool", patch: `{spec: {labels: {tenon.dev/nodepool: x}}}`,
		want: []twinError{cel("spec.labels[tenon.dev/nodepool]", "spec.labels", mNodePoolLabel)}},

	// Taints.
	{name: "taint key syntax", patch: `{spec: {taints: [{key: "a b", effect: NoSchedule}]}}`,
		want: []twinError{cel("spec.taints[0].key", "", mKeySyntax)}},
	{name: "taint value syntax", patch: `{spec: {taints: [{key: a, value: "-b", effect: NoSchedule}]}}`,
		want: []twinError{cel("spec.taints[0].value", "", mValueSyntax)}},
	{name: "taint key required", patch: `{spec: {taints: [{effect: NoSchedule}]}}`,
		want: []twinError{schema(required, "spec.taints[0].key"), celBlocked}},
	{name: "taint effect required", patch: `{spec: {taints: [{key: a}]}}`,
		want: []twinError{schema(required, "spec.taints[0].effect"), celBlocked}},
	{name: "taint effect", patch: `{spec: {taints: [{key: a, effect: NoWay}]}}`,
		want: []twinError{schema(notSupported, "spec.taints[0].effect"), celBlocked}},
	{name: "taints repeat", patch: `{spec: {taints: [{key: a, effect: NoSchedule}, {key: a, value: b, effect: NoSchedule}]}}`,
		want: []twinError{cel("spec.taints[1]", "spec.taints", mTaintsRepeat)}},
	{name: "startup taints repeat", patch: `{spec: {startupTaints: [{key: a, effect: NoSchedule}, {key: a, effect: NoSchedule}]}}`,
		want: []twinError{cel("spec.startupTaints[1]", "spec.startupTaints", mStartupRepeat)}},

	// Requirements.
	{name: "In without values", patch: `{spec: {requirements: [{key: a, operator: In}]}}`,
		want: []twinError{cel("spec.requirements[0].values", "", mIn)}},
	{name: "NotIn without values", patch: `{spec: {requirements: [{key: a, operator: NotIn}]}}`,
		want: []twinError{cel("spec.requirements[0].values", "", mNotIn)}},
	{name: "Exists with values", patch: `{spec: {requirements: [{key: a, operator: Exists, values: [x]}]}}`,
		want: []twinError{cel("spec.requirements[0].values", "", mExists)}},
	{name: "DoesNotExist with values", patch: `{spec: {requirements: [{key: a, operator: DoesNotExist, values: [x]}]}}`,
		want: []twinError{cel("spec.requirements[0].values", "", mExists)}},
	{name: "Gt with two values", patch: `{spec: {requirements: [{key: a, operator: Gt, values: ["1", "2"]}]}}`,
		want: []twinError{cel("spec.requirements[0].values", "", mInteger)}},
	{name: "Lt with a word", patch: `{spec: {requirements: [{key: a, operator: Lt, values: [four]}]}}`,
		want: []twinError{cel("spec.requirements[0].values", "", mInteger)}},
	{name: "Gt without values", patch: `{spec: {requirements: [{key: a, operator: Gt}]}}`,
		want: []twinError{cel("spec.requirements[0].values", "", mInteger)}},
	{name: "Gt with a negative number", patch: `{spec: {requirements: [{key: a, operator: Gt, values: ["-1"]}]}}`,
		want: []twinError{cel("spec.requirements[0].values", "", mInteger), schema(invalid, "spec.requirements[0].values[0]")}},
	{name: "unsupported operator", patch: `{spec: {requirements: [{key: a, operator: Gte, values: ["1"]}]}}`,
		want: []twinError{schema(notSupported, "spec.requirements[0].operator"), celBlocked}},
	{name: "operator required", patch: `{spec: {requirements: [{key: a}]}}`,
		want: []twinError{schema(required, "spec.requirements[0].operator"), celBlocked}},
	{name: "key required", patch: `{spec: {requirements: [{operator: Exists}]}}`,
		want: []twinError{schema(required, "spec.requirements[0].key"), celBlocked}},
	{name: "requirement value syntax", patch: `{spec: {requirements: [{key: a, operator: In, values: [ok, "not ok"]}]}}`,
		want: []twinError{schema(invalid, "spec.requirements[0].values[1]")}},
	{name: "requirement key syntax", patch: `{spec: {requirements: [{key: "a/b/c", operator: Exists}]}}`,
		want: []twinError{cel("spec.requirements[0].key", "", mKeySyntax)}},
	{name: "requirement key kubernetes.io", patch: `{spec: {requirements: [{key: kubernetes.io/hostname, operator: Exists}]}}`,
		want: []twinError{cel("spec.requirements[0].key", "", mKubernetes)}},
	{name: "requirement key k8s.io", patch: `{spec: {requirements: [{key: sub.k8s.io/x, operator: Exists}]}}`,
		want: []twinError{cel("spec.requirements[0].key", "", mK8s)}},
	{name: "requirement key karpenter.sh", patch: `{spec: {requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]}}`,
		want: []twinError{cel("spec.requirements[0].key", "", mKarpenter)}},
	{name: "requirement key tenon.dev", patch: `{spec: {requirements: [{key: tenon.dev/provisioner-name, operator: Exists}]}}`,
		want: []twinError{cel("spec.requirements[0].key", "", mTenon)}},
	{name: "requirement key tenon.dev/nodepool", patch: `{spec: {requirements: [{key: tenon.dev/nodepool, operator: Exists}]}}`,
		want: []twinError{cel("spec.requirements[0].key", "", mNodePoolReq)}},
	{name: "third requirement", patch: `{spec: {requirements: [{key: a, operator: Exists}, {key: b, operator: Exists}, {key: c, operator: In}]}}`,
		want: []twinError{cel("spec.requirements[2].values", "", mIn)}},

	// Numbers.
	{name: "weight too low", patch: `{spec: {weight: 0}}`, want: []twinError{schema(invalid, "spec.weight")}},
	{name: "weight too high", patch: `{spec: {weight: 101}}`, want: []twinError{schema(invalid, "spec.weight")}},
	{name: "negative ttlSecondsAfterEmpty", patch: `{spec: {ttlSecondsAfterEmpty: -1}}`, want: []twinError{schema(invalid, "spec.ttlSecondsAfterEmpty")}},
	{name: "negative ttlSecondsUntilExpired", patch: `{spec: {ttlSecondsUntilExpired: -1}}`, want: []twinError{schema(invalid, "spec.ttlSecondsUntilExpired")}},

	// Kubelet configuration.
	{name: "evictionSoft without grace period", patch: `{spec: {kubeletConfiguration: {evictionSoft: {memory.available: 5%}}}}`,
		want: []twinError{cel("spec.kubeletConfiguration.evictionSoftGracePeriod", "", mSoftNeedsGP)}},
	{name: "grace period without evictionSoft", patch: `{spec: {kubeletConfiguration: {evictionSoftGracePeriod: {memory.available: 1m}}}}`,
		want: []twinError{cel("spec.kubeletConfiguration.evictionSoft", "", mGPNeedsSoft)}},
	{name: "image GC thresholds", patch: `{spec: {kubeletConfiguration: {imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 50}}}`,
		want: []twinError{cel("spec.kubeletConfiguration.imageGCLowThresholdPercent", "", mImageGC)}},
	{name: "image GC percentage", patch: `{spec: {kubeletConfiguration: {imageGCHighThresholdPercent: 101}}}`,
		want: []twinError{schema(invalid, "spec.kubeletConfiguration.imageGCHighThresholdPercent")}},
	{name: "maxPods", patch: `{spec: {kubeletConfiguration: {maxPods: 0}}}`,
		want: []twinError{schema(invalid, "spec.kubeletConfiguration.maxPods")}},
	{name: "clusterDNS", patch: `{spec: {kubeletConfiguration: {clusterDNS: [a, b, c, d]}}}`,
		want: []twinError{schema(tooMany, "spec.kubeletConfiguration.clusterDNS"), celBlocked}},
	{name: "systemReserved key", patch: `{spec: {kubeletConfiguration: {systemReserved: {gpu: "1"}}}}`,
		want: []twinError{cel("spec.kubeletConfiguration.systemReserved[gpu]", "spec.kubeletConfiguration.systemReserved", mSysResKeys)}},
	{name: "systemReserved value", patch: `{spec: {kubeletConfiguration: {systemReserved: {cpu: -1}}}}`,
		want: []twinError{cel("spec.kubeletConfiguration.systemReserved[cpu]", "spec.kubeletConfiguration.systemReserved", mSysResValues)}},
	{name: "kubeReserved key", patch: `{spec: {kubeletConfiguration: {kubeReserved: {pods: "1"}}}}`,
		want: []twinError{cel("spec.kubeletConfiguration.kubeReserved[pods]", "spec.kubeletConfiguration.kubeReserved", mKubeResKeys)}},
	{name: "kubeReserved value", patch: `{spec: {kubeletConfiguration: {kubeReserved: {memory: lots}}}}`,
		want: []twinError{cel("spec.kubeletConfiguration.kubeReserved[memory]", "spec.kubeletConfiguration.kubeReserved", mKubeResValues)}},
	{name: "evictionHard key", patch: `{spec: {kubeletConfiguration: {evictionHard: {memory: 5%}}}}`,
		want: []twinError{cel("spec.kubeletConfiguration.evictionHard[memory]", "spec.kubeletConfiguration.evictionHard", mHardKeys)}},
	{name: "evictionHard value", patch: `{spec: {kubeletConfiguration: {evictionHard: {memory.available: 101%}}}}`,
		want: []twinError{cel("spec.kubeletConfiguration.evictionHard[memory.available]", "spec.kubeletConfiguration.evictionHard", mHardValues)}},
	{name: "evictionSoft key", patch: `{spec: {kubeletConfiguration: {evictionSoft: {disk: 5%}, evictionSoftGracePeriod: {disk: 1m}}}}`,
		want: []twinError{
			cel("spec.kubeletConfiguration.evictionSoft[disk]", "spec.kubeletConfiguration.evictionSoft", mSoftKeys),
			cel("spec.kubeletConfiguration.evictionSoftGracePeriod[disk]", "spec.kubeletConfiguration.evictionSoftGracePeriod", mGPKeys)}},
	{name: "evictionSoft value", patch: `{spec: {kubeletConfiguration: {evictionSoft: {memory.available: "-1Gi"}, evictionSoftGracePeriod: {memory.available: 1m}}}}`,
		want: []twinError{cel("spec.kubeletConfiguration.evictionSoft[memory.available]", "spec.kubeletConfiguration.evictionSoft", mSoftValues)}},
	{name: "grace period value", patch: `{spec: {kubeletConfiguration: {evictionSoft: {memory.available: 5%}, evictionSoftGracePeriod: {memory.available: 1d}}}}`,
		want: []twinError{{typ: invalid, goPath: "spec.kubeletConfiguration.evictionSoftGracePeriod[memory.available]", crdPath: "spec.kubeletConfiguration.evictionSoftGracePeriod.memory.available"}}},

	// providerRef.
	{name: "providerRef name syntax", patch: `{spec: {provider: null, providerRef: {name: My_Class}}}`,
		want: []twinError{cel("spec.providerRef.name", "", mNodeClassName)}},
	{name: "providerRef name required", patch: `{spec: {provider: null, providerRef: {kind: NodeClass}}}`,
		want: []twinError{schema(required, "spec.providerRef.name"), celBlocked}},
	{name: "providerRef Karpenter kind", patch: `{spec: {provider: null, providerRef: {apiVersion: karpenter.k8s.aws/v1alpha1, kind: AWSNodeTemplate, name: default}}}`,
		want: []twinError{schema(notSupported, "spec.providerRef.apiVersion"), schema(notSupported, "spec.providerRef.kind"), celBlocked}},

	// provider.
	{name: "instanceProfile required", patch: `{spec: {provider: {instanceProfile: null}}}`,
		want: []twinError{schema(required, "spec.provider.instanceProfile"), celBlocked}},
	{name: "instanceProfile length", patch: `{spec: {provider: {instanceProfile: ` + strings.Repeat("p", 129) + `}}}`,
		want: []twinError{schema(tooLong, "spec.provider.instanceProfile"), celBlocked}},
	{name: "amiFamily", patch: `{spec: {provider: {amiFamily: AL2}}}`,
		want: []twinError{schema(notSupported, "spec.provider.amiFamily"), celBlocked}},
	{name: "Custom amiFamily without amiSelector", patch: `{spec: {provider: {amiFamily: Custom}}}`,
		want: []twinError{cel("spec.provider.amiSelector", "", mCustomAMI)}},
	{name: "amiSelector empty value", patch: `{spec: {provider: {amiSelector: {team: ""}}}}`,
		want: []twinError{cel("spec.provider.amiSelector[team]", "spec.provider.amiSelector", mSelectorEmpty)}},
	{name: "amiSelector by ID", patch: `{spec: {provider: {amiSelector: {"aws::ids": ami-1}}}}`,
		want: []twinError{cel("spec.provider.amiSelector[aws::ids]", "spec.provider.amiSelector", mAMIByID)}},
	{name: "subnetSelector empty key", patch: `{spec: {provider: {subnetSelector: {"": x}}}}`,
		want: []twinError{cel("spec.provider.subnetSelector[]", "spec.provider.subnetSelector", mSelectorEmpty)}},
	{name: "subnetSelector by ID", patch: `{spec: {provider: {subnetSelector: {aws-ids: "subnet-1,subnet-2"}}}}`,
		want: []twinError{cel("spec.provider.subnetSelector[aws-ids]", "spec.provider.subnetSelector", mSubnetByID)}},
	{name: "securityGroupSelector empty value", patch: `{spec: {provider: {securityGroupSelector: {Name: ""}}}}`,
		want: []twinError{cel("spec.provider.securityGroupSelector[Name]", "spec.provider.securityGroupSelector", mSelectorEmpty)}},
	{name: "securityGroupSelector by ID", patch: `{spec: {provider: {securityGroupSelector: {aws-ids: sg-1}}}}`,
		want: []twinError{cel("spec.provider.securityGroupSelector[aws-ids]", "spec.provider.securityGroupSelector", mSGByID)}},
	{name: "tag key length", patch: `{spec: {provider: {tags: {` + strings.Repeat("k", 129) + `: v}}}}`,
		want: []twinError{cel("spec.provider.tags["+strings.Repeat("k", 129)+"]", "spec.provider.tags", mTagKey)}},
	{name: "tag value length", patch: `{spec: {provider: {tags: {k: ` + strings.Repeat("v", 257) + `}}}}`,
		want: []twinError{cel("spec.provider.tags[k]", "spec.provider.tags", mTagValue)}},
	{name: "cluster tag", patch: `{spec: {provider: {tags: {kubernetes.io/cluster/prod: owned}}}}`,
		want: []twinError{cel("spec.provider.tags[kubernetes.io/cluster/prod]", "spec.provider.tags", mTagCluster)}},
	{name: "agent tag", patch: `{spec: {provider: {tags: {tenon.dev/nodepool: x}}}}`,
		want: []twinError{cel("spec.provider.tags[tenon.dev/nodepool]", "spec.provider.tags", mTagReserved)}},

	// metadata.
	{name: "metadata name", patch: `{metadata: {name: Pet2Cattle}}`,
		want: []twinError{schema(invalid, "metadata.name")}},
}

// TestValidationTwins runs every case through the CRD (as the API server validates it) and
// through Validate, and checks both report the expected errors: same types, paths as
// expected, and for CEL rules the same message, which says how to fix the problem.
func TestValidationTwins(t *testing.T) {
	crd := provisionerCRD(t)
	base := yamlToMap(t, readYAML(t, "testdata/pet2cattle-workers.yaml"))
	for _, tc := range twinCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			obj := base
			if tc.patch != "" {
				obj = mergePatch(base, yamlToMap(t, []byte(tc.patch)))
			}
			p := decodeProvisioner(t, mapToYAML(t, obj))
			goErrs := p.Validate()
			crdErrs := crd.Validate(toMap(t, p), nil)

			var wantGo, wantCRD []twinError
			for _, w := range tc.want {
				if w.goPath != "-" {
					wantGo = append(wantGo, w)
				}
				c := w
				if c.crdPath == "" {
					c.crdPath = c.goPath
				}
				wantCRD = append(wantCRD, c)
			}
			checkErrors(t, "Go", goErrs, wantGo, func(w twinError) string { return w.goPath })
			checkErrors(t, "CRD", crdErrs, wantCRD, func(w twinError) string { return w.crdPath })
			for _, e := range goErrs {
				if e.Detail == "" && e.Type != notSupported && e.Type != tooLong && e.Type != tooMany {
					t.Errorf("Go error %v has no detail saying how to fix it", e)
				}
			}
		})
	}
}

func checkErrors(t *testing.T, side string, got field.ErrorList, want []twinError, path func(twinError) string) {
	t.Helper()
	key := func(typ field.ErrorType, p string) string { return fmt.Sprintf("%s %s", typ, p) }
	var gotKeys, wantKeys []string
	for _, e := range got {
		gotKeys = append(gotKeys, key(e.Type, e.Field))
	}
	for _, w := range want {
		wantKeys = append(wantKeys, key(w.typ, path(w)))
	}
	slices.Sort(gotKeys)
	slices.Sort(wantKeys)
	if !slices.Equal(gotKeys, wantKeys) {
		t.Fatalf("%s errors:\n got  %q\n want %q\n%v", side, gotKeys, wantKeys, got.ToAggregate())
	}
	for _, w := range want {
		if w.msg == "" {
			continue
		}
		i := slices.IndexFunc(got, func(e *field.Error) bool { return e.Type == w.typ && e.Field == path(w) })
		if !strings.Contains(got[i].Detail, w.msg) {
			t.Errorf("%s error at %s: detail %q, want it to contain %q", side, path(w), got[i].Detail, w.msg)
		}
	}
}

// TestEveryCELRuleHasATwinCase fails when the CRD gains a CEL rule no twin case exercises.
func TestEveryCELRuleHasATwinCase(t *testing.T) {
	crd := yamlToMap(t, readYAML(t, "../crds/tenon.dev_provisioners.yaml"))
	tested := map[string]bool{}
	for _, tc := range twinCases {
		for _, w := range tc.want {
			tested[w.msg] = true
		}
	}
	var rules int
	var walk func(any)
	walk = func(node any) {
		switch n := node.(type) {
		case map[string]any:
			if list, ok := n["x-kubernetes-validations"].([]any); ok {
				for _, r := range list {
					rule := r.(map[string]any)
					rules++
					if msg, _ := rule["message"].(string); !tested[msg] {
						t.Errorf("no twin case expects the message of rule %q (%q)", rule["rule"], msg)
					}
				}
			}
			for _, v := range n {
				walk(v)
			}
		case []any:
			for _, v := range n {
				walk(v)
			}
		}
	}
	walk(crd)
	if rules < 40 {
		t.Errorf("found only %d CEL rules in the CRD; is the walk broken?", rules)
	}
}

// TestCRDOnly covers what the Go types cannot express, so only clients writing YAML or JSON
// meet it: empty selectors, misspelt fields, wrong types.
func TestCRDOnly(t *testing.T) {
	crd := provisionerCRD(t)
	base := yamlToMap(t, readYAML(t, "testdata/pet2cattle-workers.yaml"))
	tests := []struct {
		name, patch string
		want        []string // "type path"
	}{
		{"empty subnetSelector", `{spec: {provider: {subnetSelector: {}}}}`,
			[]string{"Invalid value spec.provider.subnetSelector"}},
		{"empty instanceProfile", `{spec: {provider: {instanceProfile: ""}}}`,
			[]string{"Invalid value spec.provider.instanceProfile"}},
		{"misspelt field", `{spec: {ttlSecondAfterEmpty: 30}}`,
			[]string{"Not found spec.ttlSecondAfterEmpty"}},
		{"Karpenter's untyped provider field", `{spec: {provider: {launchTemplate: lt}}}`,
			[]string{"Not found spec.provider.launchTemplate"}},
		{"string weight", `{spec: {weight: "10"}}`,
			[]string{"Invalid value <nil>", "Invalid value spec.weight"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := mergePatch(base, yamlToMap(t, []byte(tc.patch)))
			errs, err := crd.ValidateYAML(mapToYAML(t, obj), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range errs {
				got = append(got, fmt.Sprintf("%s %s", e.Type, e.Field))
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q\n%v", got, tc.want, errs.ToAggregate())
			}
		})
	}
}
