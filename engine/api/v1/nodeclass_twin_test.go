package v1_test

import (
	"strings"
	"testing"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

const nodeClassBase = `
apiVersion: tenon.dev/v1
kind: NodeClass
metadata: {name: default}
spec:
  aws:
    role: KarpenterNodeRole-prod
`

const (
	aws     = "spec.aws"
	kubelet = "spec.aws.kubelet"
)

func TestNodeClassTwins(t *testing.T) {
	checkEveryRuleHit(t, "tenon.dev_nodeclasses.yaml", runTwins[v1.NodeClass](t, "tenon.dev_nodeclasses.yaml", nodeClassBase, nodeClassTwins))
}

var nodeClassTwins = []twin{
	// Valid objects.
	{name: "minimal aws"},
	{name: "kwok", patch: `{spec: {aws: null, kwok: {}}}`},
	{name: "instance profile instead of role", patch: `{spec: {aws: {role: null, instanceProfile: eks_pet2cattle_worker-instance-profile}}}`},
	{name: "everything set", patch: `
spec:
  aws:
    amiFamily: Bottlerocket
    amiSelectorTerms:
    - {name: "bottlerocket-aws-k8s-1.33-*", owner: amazon}
    - {tags: {team: platform}, owner: self}
    - {id: ami-0123456789abcdef0}
    - {ssmParameter: /aws/service/bottlerocket/aws-k8s-1.33/x86_64/latest/image_id}
    subnetSelectorTerms:
    - {tags: {tenon.dev/discovery: prod, Name: "*"}}
    - {id: subnet-0123456789abcdef0}
    securityGroupSelectorTerms:
    - {tags: {tenon.dev/discovery: prod}}
    - {id: sg-0123456789abcdef0}
    - {name: eks-cluster-sg-prod}
    tags: {team: platform, Name: tenon-node, kubernetes.io/role: worker}
    blockDeviceMappings:
    - {deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 100Gi, volumeType: gp3, iops: 3000, throughput: 125, encrypted: true, deleteOnTermination: true}}
    - {deviceName: /dev/xvdb, ebs: {snapshotID: snap-0123456789abcdef0, kmsKeyID: alias/ebs}}
    metadataOptions: {httpEndpoint: enabled, httpProtocolIPv6: enabled, httpPutResponseHopLimit: 2, httpTokens: optional}
    userData: |
      [settings.kubernetes]
      max-pods = 110
    kubelet:
      clusterDNS: [10.100.0.10]
      maxPods: 110
      podsPerCore: 10
      systemReserved: {cpu: 100m, memory: 100Mi, ephemeral-storage: 1Gi, pid: "1000"}
      kubeReserved: {cpu: 200m, memory: 1Gi}
      evictionHard: {memory.available: 5%, nodefs.available: "10.5%", pid.available: 100%}
      evictionSoft: {memory.available: 500Mi, imagefs.available: 15%}
      evictionSoftGracePeriod: {memory.available: 1m30s, imagefs.available: 2m}
      evictionMaxPodGracePeriod: 60
      imageGCHighThresholdPercent: 85
      imageGCLowThresholdPercent: 80
      cpuCFSQuota: true
`},
	{name: "custom AMIs", patch: `{spec: {aws: {amiFamily: Custom, amiSelectorTerms: [{id: ami-0123456789abcdef0}]}}}`},
	{name: "update within aws", old: `{spec: {aws: {tags: {a: b}}}}`, patch: `{spec: {aws: {tags: {a: c}}}}`},

	// The cloud block.
	{name: "no cloud block", patch: `{spec: {aws: null}}`,
		path: "spec", fix: "set one cloud block: aws for EC2 or kwok for simulated nodes", cel: true},
	{name: "two cloud blocks", patch: `{spec: {kwok: {}}}`,
		path: "spec.kwok", fix: "aws and kwok are exclusive; keep one cloud block", cel: true},
	{name: "aws to kwok", old: `{spec: {aws: null, kwok: {}}}`,
		path: "spec", fix: "the cloud block cannot change between aws and kwok; create a new NodeClass instead", cel: true},

	// Identity.
	{name: "neither role nor instance profile", patch: `{spec: {aws: {role: null}}}`,
		path: aws, fix: "set role (the agent manages an instance profile for it) or instanceProfile (an existing profile)", cel: true},
	{name: "role and instance profile", patch: `{spec: {aws: {instanceProfile: nodes}}}`,
		path: aws + ".instanceProfile", fix: "role and instanceProfile are exclusive; keep one", cel: true},
	{name: "role too long", patch: `{spec: {aws: {role: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}}}`,
		path: aws + ".role", fix: "may not be more than 64 bytes"},

	// AMIs.
	{name: "unknown AMI family", patch: `{spec: {aws: {amiFamily: AL2}}}`,
		path: aws + ".amiFamily", fix: `supported values: "AL2023", "Bottlerocket", "Custom"`},
	{name: "custom without selector terms", patch: `{spec: {aws: {amiFamily: Custom}}}`,
		path: aws + ".amiSelectorTerms", fix: "amiFamily Custom requires amiSelectorTerms; add terms selecting your AMIs, or use amiFamily AL2023 or Bottlerocket", cel: true},
	{name: "empty AMI selector terms", patch: `{spec: {aws: {amiSelectorTerms: []}}}`,
		path: aws + ".amiSelectorTerms", fix: "add at least one term, or remove the field"},
	{name: "empty AMI selector term", patch: `{spec: {aws: {amiSelectorTerms: [{}]}}}`,
		path: aws + ".amiSelectorTerms[0]", fix: "an AMI selector term needs tags, id, name or ssmParameter; add one", cel: true},
	{name: "owner alone", patch: `{spec: {aws: {amiSelectorTerms: [{owner: self}]}}}`,
		path: aws + ".amiSelectorTerms[0]", fix: "an AMI selector term needs tags, id, name or ssmParameter", cel: true},
	{name: "AMI id with a name", patch: `{spec: {aws: {amiSelectorTerms: [{id: ami-0123, name: x}]}}}`,
		path: aws + ".amiSelectorTerms[0].id", fix: "id selects one AMI on its own; remove tags, name, owner and ssmParameter", cel: true},
	{name: "SSM parameter with an owner", patch: `{spec: {aws: {amiSelectorTerms: [{ssmParameter: /a/b, owner: self}]}}}`,
		path: aws + ".amiSelectorTerms[0].ssmParameter", fix: "ssmParameter selects one AMI on its own; remove tags, name and owner", cel: true},
	{name: "AMI id syntax", patch: `{spec: {aws: {amiSelectorTerms: [{id: ami_0123}]}}}`,
		path: aws + ".amiSelectorTerms[0].id", fix: "id must be an AMI ID such as ami-0123456789abcdef0", cel: true},
	{name: "AMI tag empty", patch: `{spec: {aws: {amiSelectorTerms: [{tags: {team: ""}}]}}}`,
		path: aws + ".amiSelectorTerms[0].tags[team]", fix: "tag keys and values must not be empty; use '*' to match any value", cel: true},

	// Subnets.
	{name: "empty subnet selector term", patch: `{spec: {aws: {subnetSelectorTerms: [{}]}}}`,
		path: aws + ".subnetSelectorTerms[0]", fix: "a subnet selector term needs tags or id; add one", cel: true},
	{name: "subnet id with tags", patch: `{spec: {aws: {subnetSelectorTerms: [{id: subnet-1, tags: {a: b}}]}}}`,
		path: aws + ".subnetSelectorTerms[0].id", fix: "id selects one subnet on its own; use tags or id in a term, not both", cel: true},
	{name: "subnet id syntax", patch: `{spec: {aws: {subnetSelectorTerms: [{id: sn-1}]}}}`,
		path: aws + ".subnetSelectorTerms[0].id", fix: "id must be a subnet ID such as subnet-0123456789abcdef0", cel: true},
	{name: "subnet tags empty", patch: `{spec: {aws: {subnetSelectorTerms: [{tags: {}}]}}}`,
		path: aws + ".subnetSelectorTerms[0].tags", fix: "add at least one tag, or remove tags"},
	{name: "subnet tag value empty", patch: `{spec: {aws: {subnetSelectorTerms: [{tags: {Name: ""}}]}}}`,
		path: aws + ".subnetSelectorTerms[0].tags[Name]", fix: "tag keys and values must not be empty", cel: true},
	{name: "empty subnet selector terms", patch: `{spec: {aws: {subnetSelectorTerms: []}}}`,
		path: aws + ".subnetSelectorTerms", fix: "add at least one term"},

	// Security groups.
	{name: "empty security group term", patch: `{spec: {aws: {securityGroupSelectorTerms: [{}]}}}`,
		path: aws + ".securityGroupSelectorTerms[0]", fix: "a security group selector term needs exactly one of tags, id or name", cel: true},
	{name: "security group name with tags", patch: `{spec: {aws: {securityGroupSelectorTerms: [{name: a, tags: {a: b}}]}}}`,
		path: aws + ".securityGroupSelectorTerms[0]", fix: "put each in its own term (terms are ORed)", cel: true},
	{name: "security group tag empty", patch: `{spec: {aws: {securityGroupSelectorTerms: [{tags: {"": x}}]}}}`,
		path: aws + ".securityGroupSelectorTerms[0].tags[]", fix: "tag keys and values must not be empty", cel: true},
	{name: "security group id syntax", patch: `{spec: {aws: {securityGroupSelectorTerms: [{id: group-1}]}}}`,
		path: aws + ".securityGroupSelectorTerms[0].id", fix: "id must be a security group ID such as sg-0123456789abcdef0", cel: true},

	// Tags.
	{name: "kubernetes.io/cluster tag", patch: `{spec: {aws: {tags: {kubernetes.io/cluster/prod: owned}}}}`,
		path: aws + ".tags[kubernetes.io/cluster/prod]", fix: "tag keys starting with kubernetes.io/cluster/ are set by the agent; remove the tag", cel: true},
	{name: "tenon.dev/cluster tag", patch: `{spec: {aws: {tags: {tenon.dev/cluster: prod}}}}`,
		path: aws + ".tags[tenon.dev/cluster]", fix: "tags tenon.dev/cluster, tenon.dev/nodepool and tenon.dev/nodeclaim are set by the agent; remove the tag", cel: true},
	{name: "tenon.dev/nodepool tag", patch: `{spec: {aws: {tags: {tenon.dev/nodepool: a}}}}`,
		path: aws + ".tags[tenon.dev/nodepool]", fix: "are set by the agent; remove the tag", cel: true},
	{name: "tenon.dev/nodeclaim tag", patch: `{spec: {aws: {tags: {tenon.dev/nodeclaim: a}}}}`,
		path: aws + ".tags[tenon.dev/nodeclaim]", fix: "are set by the agent; remove the tag", cel: true},
	{name: "tag value too long", patch: `{spec: {aws: {tags: {team: ` + strings.Repeat("a", 257) + `}}}}`,
		path: aws + ".tags[team]", fix: "tag values must be at most 256 characters", cel: true},
	{name: "empty tag key", patch: `{spec: {aws: {tags: {"": a}}}}`,
		path: aws + ".tags[]", fix: "tag keys must be 1 to 128 characters", cel: true},

	// Block devices.
	{name: "two root volumes", patch: `{spec: {aws: {blockDeviceMappings: [{deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 20Gi}}, {deviceName: /dev/xvdb, rootVolume: true, ebs: {volumeSize: 20Gi}}]}}}`,
		path: aws + ".blockDeviceMappings[1].rootVolume", fix: "only one block device mapping can be the root volume; set rootVolume on one of them", cel: true},
	{name: "ebs without size or snapshot", patch: `{spec: {aws: {blockDeviceMappings: [{deviceName: /dev/xvda, ebs: {volumeType: gp3}}]}}}`,
		path: aws + ".blockDeviceMappings[0].ebs", fix: "ebs needs volumeSize (such as 100Gi) or snapshotID; add one", cel: true},
	{name: "no device name", patch: `{spec: {aws: {blockDeviceMappings: [{ebs: {volumeSize: 20Gi}}]}}}`,
		path: aws + ".blockDeviceMappings[0].deviceName", fix: "set deviceName, such as /dev/xvda"},
	{name: "volume type", patch: `{spec: {aws: {blockDeviceMappings: [{deviceName: /dev/xvda, ebs: {volumeSize: 20Gi, volumeType: gp4}}]}}}`,
		path: aws + ".blockDeviceMappings[0].ebs.volumeType", fix: `supported values: "standard"`},

	// Metadata options.
	{name: "http tokens", patch: `{spec: {aws: {metadataOptions: {httpTokens: sometimes}}}}`,
		path: aws + ".metadataOptions.httpTokens", fix: `supported values: "required", "optional"`},
	{name: "hop limit", patch: `{spec: {aws: {metadataOptions: {httpPutResponseHopLimit: 65}}}}`,
		path: aws + ".metadataOptions.httpPutResponseHopLimit", fix: "httpPutResponseHopLimit must be between 1 and 64"},

	// Kubelet.
	{name: "system reserved key", patch: `{spec: {aws: {kubelet: {systemReserved: {nvidia.com/gpu: "1"}}}}}`,
		path: kubelet + ".systemReserved[nvidia.com/gpu]", fix: "systemReserved keys must be cpu, memory, ephemeral-storage or pid", cel: true},
	{name: "system reserved negative", patch: `{spec: {aws: {kubelet: {systemReserved: {cpu: -100m}}}}}`,
		path: kubelet + ".systemReserved[cpu]", fix: "systemReserved values must be non-negative quantities such as 100m or 1Gi", cel: true},
	{name: "kube reserved not a quantity", patch: `{spec: {aws: {kubelet: {kubeReserved: {memory: lots}}}}}`,
		path: kubelet + ".kubeReserved[memory]", fix: "kubeReserved values must be non-negative quantities", cel: true},
	{name: "eviction signal", patch: `{spec: {aws: {kubelet: {evictionHard: {memory.free: 1Gi}}}}}`,
		path: kubelet + ".evictionHard[memory.free]", fix: "evictionHard keys must be memory.available, nodefs.available", cel: true},
	{name: "kube reserved key", patch: `{spec: {aws: {kubelet: {kubeReserved: {gpu: "1"}}}}}`,
		path: kubelet + ".kubeReserved[gpu]", fix: "kubeReserved keys must be cpu, memory, ephemeral-storage or pid", cel: true},
	{name: "soft eviction signal", patch: `{spec: {aws: {kubelet: {evictionSoft: {disk.available: 1Gi}, evictionSoftGracePeriod: {disk.available: 1m}}}}}`,
		path: kubelet + ".evictionSoft[disk.available]", fix: "evictionSoft keys must be memory.available", cel: true},
	{name: "soft eviction value", patch: `{spec: {aws: {kubelet: {evictionSoft: {memory.available: half}, evictionSoftGracePeriod: {memory.available: 1m}}}}}`,
		path: kubelet + ".evictionSoft[memory.available]", fix: "evictionSoft values must be a percentage such as 10% or a quantity", cel: true},
	{name: "grace period signal", patch: `{spec: {aws: {kubelet: {evictionSoft: {disk.available: 1Gi}, evictionSoftGracePeriod: {disk.available: 1m}}}}}`,
		path: kubelet + ".evictionSoftGracePeriod[disk.available]", fix: "evictionSoftGracePeriod keys must be memory.available", cel: true},
	{name: "eviction over 100%", patch: `{spec: {aws: {kubelet: {evictionHard: {memory.available: 101%}}}}}`,
		path: kubelet + ".evictionHard[memory.available]", fix: "evictionHard values must be a percentage such as 10% or a quantity such as 100Mi", cel: true},
	{name: "soft eviction without grace period", patch: `{spec: {aws: {kubelet: {evictionSoft: {memory.available: 1Gi}}}}}`,
		path: kubelet + ".evictionSoftGracePeriod", fix: "every evictionSoft signal needs an evictionSoftGracePeriod entry; add one for each signal", cel: true},
	{name: "grace period without soft eviction", patch: `{spec: {aws: {kubelet: {evictionSoftGracePeriod: {memory.available: 1m}}}}}`,
		path: kubelet + ".evictionSoft", fix: "every evictionSoftGracePeriod signal needs an evictionSoft threshold", cel: true},
	{name: "grace period syntax", patch: `{spec: {aws: {kubelet: {evictionSoft: {memory.available: 1Gi}, evictionSoftGracePeriod: {memory.available: 1 minute}}}}}`,
		path: kubelet + ".evictionSoftGracePeriod[memory.available]", fix: "evictionSoftGracePeriod values must be durations such as 30s", cel: true},
	{name: "image GC thresholds", patch: `{spec: {aws: {kubelet: {imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60}}}}`,
		path: kubelet + ".imageGCLowThresholdPercent", fix: "imageGCLowThresholdPercent must be lower than imageGCHighThresholdPercent", cel: true},
	{name: "max pods 0", patch: `{spec: {aws: {kubelet: {maxPods: 0}}}}`,
		path: kubelet + ".maxPods", fix: "maxPods must be between 1 and 1000"},
	{name: "four DNS servers", patch: `{spec: {aws: {kubelet: {clusterDNS: [10.0.0.1, 10.0.0.2, 10.0.0.3, 10.0.0.4]}}}}`,
		path: kubelet + ".clusterDNS", fix: "must have at most 3 items"},
}
