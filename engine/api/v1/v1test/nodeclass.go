package v1test

import "strings"

// NodeClassBase is the valid NodeClass every case of NodeClassTwins patches.
const NodeClassBase = `
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

// NodeClassTwins are the NodeClass validation cases: each is valid, or rejected by the Go validation
// and the CRD at Path (by a CEL rule of ours when CEL is set, with Fix in its message).
var NodeClassTwins = []Twin{
	// Valid objects.
	{Name: "minimal aws"},
	{Name: "kwok", Patch: `{spec: {aws: null, kwok: {}}}`},
	{Name: "instance profile instead of role", Patch: `{spec: {aws: {role: null, instanceProfile: eks_pet2cattle_worker-instance-profile}}}`},
	{Name: "everything set", Patch: `
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
	{Name: "custom AMIs", Patch: `{spec: {aws: {amiFamily: Custom, amiSelectorTerms: [{id: ami-0123456789abcdef0}]}}}`},
	{Name: "update within aws", Old: `{spec: {aws: {tags: {a: b}}}}`, Patch: `{spec: {aws: {tags: {a: c}}}}`},

	// The cloud block.
	{Name: "no cloud block", Patch: `{spec: {aws: null}}`,
		Path: "spec", Fix: "set one cloud block: aws for EC2 or kwok for simulated nodes", CEL: true},
	{Name: "two cloud blocks", Patch: `{spec: {kwok: {}}}`,
		Path: "spec.kwok", Fix: "aws and kwok are exclusive; keep one cloud block", CEL: true},
	{Name: "aws to kwok", Old: `{spec: {aws: null, kwok: {}}}`,
		Path: "spec", Fix: "the cloud block cannot change between aws and kwok; create a new NodeClass instead", CEL: true},

	// Identity.
	{Name: "neither role nor instance profile", Patch: `{spec: {aws: {role: null}}}`,
		Path: aws, Fix: "set role (the agent manages an instance profile for it) or instanceProfile (an existing profile)", CEL: true},
	{Name: "role and instance profile", Patch: `{spec: {aws: {instanceProfile: nodes}}}`,
		Path: aws + ".instanceProfile", Fix: "role and instanceProfile are exclusive; keep one", CEL: true},
	{Name: "role too long", Patch: `{spec: {aws: {role: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}}}`,
		Path: aws + ".role", Fix: "may not be more than 64 bytes"},

	// AMIs.
	{Name: "unknown AMI family", Patch: `{spec: {aws: {amiFamily: AL2}}}`,
		Path: aws + ".amiFamily", Fix: `supported values: "AL2023", "Bottlerocket", "Custom"`},
	{Name: "custom without selector terms", Patch: `{spec: {aws: {amiFamily: Custom}}}`,
		Path: aws + ".amiSelectorTerms", Fix: "amiFamily Custom requires amiSelectorTerms; add terms selecting your AMIs, or use amiFamily AL2023 or Bottlerocket", CEL: true},
	{Name: "empty AMI selector terms", Patch: `{spec: {aws: {amiSelectorTerms: []}}}`,
		Path: aws + ".amiSelectorTerms", Fix: "add at least one term, or remove the field"},
	{Name: "empty AMI selector term", Patch: `{spec: {aws: {amiSelectorTerms: [{}]}}}`,
		Path: aws + ".amiSelectorTerms[0]", Fix: "an AMI selector term needs tags, id, name or ssmParameter; add one", CEL: true},
	{Name: "owner alone", Patch: `{spec: {aws: {amiSelectorTerms: [{owner: self}]}}}`,
		Path: aws + ".amiSelectorTerms[0]", Fix: "an AMI selector term needs tags, id, name or ssmParameter", CEL: true},
	{Name: "AMI id with a name", Patch: `{spec: {aws: {amiSelectorTerms: [{id: ami-0123, name: x}]}}}`,
		Path: aws + ".amiSelectorTerms[0].id", Fix: "id selects one AMI on its own; remove tags, name, owner and ssmParameter", CEL: true},
	{Name: "SSM parameter with an owner", Patch: `{spec: {aws: {amiSelectorTerms: [{ssmParameter: /a/b, owner: self}]}}}`,
		Path: aws + ".amiSelectorTerms[0].ssmParameter", Fix: "ssmParameter selects one AMI on its own; remove tags, name and owner", CEL: true},
	{Name: "AMI id syntax", Patch: `{spec: {aws: {amiSelectorTerms: [{id: ami_0123}]}}}`,
		Path: aws + ".amiSelectorTerms[0].id", Fix: "id must be an AMI ID such as ami-0123456789abcdef0", CEL: true},
	{Name: "AMI tag empty", Patch: `{spec: {aws: {amiSelectorTerms: [{tags: {team: ""}}]}}}`,
		Path: aws + ".amiSelectorTerms[0].tags[team]", Fix: "tag keys and values must not be empty; use '*' to match any value", CEL: true},

	// Subnets.
	{Name: "empty subnet selector term", Patch: `{spec: {aws: {subnetSelectorTerms: [{}]}}}`,
		Path: aws + ".subnetSelectorTerms[0]", Fix: "a subnet selector term needs tags or id; add one", CEL: true},
	{Name: "subnet id with tags", Patch: `{spec: {aws: {subnetSelectorTerms: [{id: subnet-1, tags: {a: b}}]}}}`,
		Path: aws + ".subnetSelectorTerms[0].id", Fix: "id selects one subnet on its own; use tags or id in a term, not both", CEL: true},
	{Name: "subnet id syntax", Patch: `{spec: {aws: {subnetSelectorTerms: [{id: sn-1}]}}}`,
		Path: aws + ".subnetSelectorTerms[0].id", Fix: "id must be a subnet ID such as subnet-0123456789abcdef0", CEL: true},
	{Name: "subnet tags empty", Patch: `{spec: {aws: {subnetSelectorTerms: [{tags: {}}]}}}`,
		Path: aws + ".subnetSelectorTerms[0].tags", Fix: "add at least one tag, or remove tags"},
	{Name: "subnet tag value empty", Patch: `{spec: {aws: {subnetSelectorTerms: [{tags: {Name: ""}}]}}}`,
		Path: aws + ".subnetSelectorTerms[0].tags[Name]", Fix: "tag keys and values must not be empty", CEL: true},
	{Name: "empty subnet selector terms", Patch: `{spec: {aws: {subnetSelectorTerms: []}}}`,
		Path: aws + ".subnetSelectorTerms", Fix: "add at least one term"},

	// Security groups.
	{Name: "empty security group term", Patch: `{spec: {aws: {securityGroupSelectorTerms: [{}]}}}`,
		Path: aws + ".securityGroupSelectorTerms[0]", Fix: "a security group selector term needs exactly one of tags, id or name", CEL: true},
	{Name: "security group name with tags", Patch: `{spec: {aws: {securityGroupSelectorTerms: [{name: a, tags: {a: b}}]}}}`,
		Path: aws + ".securityGroupSelectorTerms[0]", Fix: "put each in its own term (terms are ORed)", CEL: true},
	{Name: "security group tag empty", Patch: `{spec: {aws: {securityGroupSelectorTerms: [{tags: {"": x}}]}}}`,
		Path: aws + ".securityGroupSelectorTerms[0].tags[]", Fix: "tag keys and values must not be empty", CEL: true},
	{Name: "security group id syntax", Patch: `{spec: {aws: {securityGroupSelectorTerms: [{id: group-1}]}}}`,
		Path: aws + ".securityGroupSelectorTerms[0].id", Fix: "id must be a security group ID such as sg-0123456789abcdef0", CEL: true},

	// Capacity reservations.
	{Name: "capacity reservations by id, tags, owner and criteria", Patch: `{spec: {aws: {capacityReservationSelectorTerms: [{id: cr-0123abc}, {tags: {team: ml}, ownerID: "123456789012", instanceMatchCriteria: targeted}, {instanceMatchCriteria: open}]}}}`},
	{Name: "empty capacity reservation term", Patch: `{spec: {aws: {capacityReservationSelectorTerms: [{}]}}}`,
		Path: aws + ".capacityReservationSelectorTerms[0]", Fix: "a capacity reservation selector term needs id, tags or instanceMatchCriteria; add one", CEL: true},
	{Name: "owner alone selects nothing", Patch: `{spec: {aws: {capacityReservationSelectorTerms: [{ownerID: "123456789012"}]}}}`,
		Path: aws + ".capacityReservationSelectorTerms[0]", Fix: "needs id, tags or instanceMatchCriteria", CEL: true},
	{Name: "capacity reservation id with tags", Patch: `{spec: {aws: {capacityReservationSelectorTerms: [{id: cr-1, tags: {a: b}}]}}}`,
		Path: aws + ".capacityReservationSelectorTerms[0].id", Fix: "id selects one capacity reservation on its own; remove tags, ownerID and instanceMatchCriteria from this term", CEL: true},
	{Name: "capacity reservation id syntax", Patch: `{spec: {aws: {capacityReservationSelectorTerms: [{id: odcr-1}]}}}`,
		Path: aws + ".capacityReservationSelectorTerms[0].id", Fix: "id must be a capacity reservation ID such as cr-0123456789abcdef0", CEL: true},
	{Name: "capacity reservation owner syntax", Patch: `{spec: {aws: {capacityReservationSelectorTerms: [{tags: {a: b}, ownerID: "12345"}]}}}`,
		Path: aws + ".capacityReservationSelectorTerms[0].ownerID", Fix: "ownerID must be a 12-digit AWS account ID such as 123456789012", CEL: true},
	{Name: "capacity reservation match criteria", Patch: `{spec: {aws: {capacityReservationSelectorTerms: [{instanceMatchCriteria: any}]}}}`,
		Path: aws + ".capacityReservationSelectorTerms[0].instanceMatchCriteria", Fix: `supported values: "open", "targeted"`},
	{Name: "capacity reservation tag empty", Patch: `{spec: {aws: {capacityReservationSelectorTerms: [{tags: {team: ""}}]}}}`,
		Path: aws + ".capacityReservationSelectorTerms[0].tags[team]", Fix: "tag keys and values must not be empty", CEL: true},
	{Name: "empty capacity reservation terms", Patch: `{spec: {aws: {capacityReservationSelectorTerms: []}}}`,
		Path: aws + ".capacityReservationSelectorTerms", Fix: "add at least one term"},

	// Tags.
	{Name: "kubernetes.io/cluster tag", Patch: `{spec: {aws: {tags: {kubernetes.io/cluster/prod: owned}}}}`,
		Path: aws + ".tags[kubernetes.io/cluster/prod]", Fix: "tag keys starting with kubernetes.io/cluster/ are set by the agent; remove the tag", CEL: true},
	{Name: "tenon.dev/cluster tag", Patch: `{spec: {aws: {tags: {tenon.dev/cluster: prod}}}}`,
		Path: aws + ".tags[tenon.dev/cluster]", Fix: "tags tenon.dev/cluster, tenon.dev/nodepool and tenon.dev/nodeclaim are set by the agent; remove the tag", CEL: true},
	{Name: "tenon.dev/nodepool tag", Patch: `{spec: {aws: {tags: {tenon.dev/nodepool: a}}}}`,
		Path: aws + ".tags[tenon.dev/nodepool]", Fix: "are set by the agent; remove the tag", CEL: true},
	{Name: "tenon.dev/nodeclaim tag", Patch: `{spec: {aws: {tags: {tenon.dev/nodeclaim: a}}}}`,
		Path: aws + ".tags[tenon.dev/nodeclaim]", Fix: "are set by the agent; remove the tag", CEL: true},
	{Name: "tag value too long", Patch: `{spec: {aws: {tags: {team: ` + strings.Repeat("a", 257) + `}}}}`,
		Path: aws + ".tags[team]", Fix: "tag values must be at most 256 characters", CEL: true},
	{Name: "empty tag key", Patch: `{spec: {aws: {tags: {"": a}}}}`,
		Path: aws + ".tags[]", Fix: "tag keys must be 1 to 128 characters", CEL: true},

	// Block devices.
	{Name: "two root volumes", Patch: `{spec: {aws: {blockDeviceMappings: [{deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 20Gi}}, {deviceName: /dev/xvdb, rootVolume: true, ebs: {volumeSize: 20Gi}}]}}}`,
		Path: aws + ".blockDeviceMappings[1].rootVolume", Fix: "only one block device mapping can be the root volume; set rootVolume on one of them", CEL: true},
	{Name: "ebs without size or snapshot", Patch: `{spec: {aws: {blockDeviceMappings: [{deviceName: /dev/xvda, ebs: {volumeType: gp3}}]}}}`,
		Path: aws + ".blockDeviceMappings[0].ebs", Fix: "ebs needs volumeSize (such as 100Gi) or snapshotID; add one", CEL: true},
	{Name: "no device name", Patch: `{spec: {aws: {blockDeviceMappings: [{ebs: {volumeSize: 20Gi}}]}}}`,
		Path: aws + ".blockDeviceMappings[0].deviceName", Fix: "set deviceName, such as /dev/xvda"},
	{Name: "volume type", Patch: `{spec: {aws: {blockDeviceMappings: [{deviceName: /dev/xvda, ebs: {volumeSize: 20Gi, volumeType: gp4}}]}}}`,
		Path: aws + ".blockDeviceMappings[0].ebs.volumeType", Fix: `supported values: "standard"`},

	// Metadata options.
	{Name: "http tokens", Patch: `{spec: {aws: {metadataOptions: {httpTokens: sometimes}}}}`,
		Path: aws + ".metadataOptions.httpTokens", Fix: `supported values: "required", "optional"`},
	{Name: "hop limit", Patch: `{spec: {aws: {metadataOptions: {httpPutResponseHopLimit: 65}}}}`,
		Path: aws + ".metadataOptions.httpPutResponseHopLimit", Fix: "httpPutResponseHopLimit must be between 1 and 64"},

	// Kubelet.
	{Name: "cluster DNS not an address", Patch: `{spec: {aws: {kubelet: {clusterDNS: ["10.100.0.10\n[settings]"]}}}}`,
		Path: kubelet + ".clusterDNS[0]", Fix: "clusterDNS entries must be IP addresses, such as 10.100.0.10", CEL: true},
	{Name: "system reserved key", Patch: `{spec: {aws: {kubelet: {systemReserved: {nvidia.com/gpu: "1"}}}}}`,
		Path: kubelet + ".systemReserved[nvidia.com/gpu]", Fix: "systemReserved keys must be cpu, memory, ephemeral-storage or pid", CEL: true},
	{Name: "system reserved negative", Patch: `{spec: {aws: {kubelet: {systemReserved: {cpu: -100m}}}}}`,
		Path: kubelet + ".systemReserved[cpu]", Fix: "systemReserved values must be non-negative quantities such as 100m or 1Gi", CEL: true},
	{Name: "kube reserved not a quantity", Patch: `{spec: {aws: {kubelet: {kubeReserved: {memory: lots}}}}}`,
		Path: kubelet + ".kubeReserved[memory]", Fix: "kubeReserved values must be non-negative quantities", CEL: true},
	{Name: "eviction signal", Patch: `{spec: {aws: {kubelet: {evictionHard: {memory.free: 1Gi}}}}}`,
		Path: kubelet + ".evictionHard[memory.free]", Fix: "evictionHard keys must be memory.available, nodefs.available", CEL: true},
	{Name: "kube reserved key", Patch: `{spec: {aws: {kubelet: {kubeReserved: {gpu: "1"}}}}}`,
		Path: kubelet + ".kubeReserved[gpu]", Fix: "kubeReserved keys must be cpu, memory, ephemeral-storage or pid", CEL: true},
	{Name: "soft eviction signal", Patch: `{spec: {aws: {kubelet: {evictionSoft: {disk.available: 1Gi}, evictionSoftGracePeriod: {disk.available: 1m}}}}}`,
		Path: kubelet + ".evictionSoft[disk.available]", Fix: "evictionSoft keys must be memory.available", CEL: true},
	{Name: "soft eviction value", Patch: `{spec: {aws: {kubelet: {evictionSoft: {memory.available: half}, evictionSoftGracePeriod: {memory.available: 1m}}}}}`,
		Path: kubelet + ".evictionSoft[memory.available]", Fix: "evictionSoft values must be a percentage such as 10% or a quantity", CEL: true},
	{Name: "grace period signal", Patch: `{spec: {aws: {kubelet: {evictionSoft: {disk.available: 1Gi}, evictionSoftGracePeriod: {disk.available: 1m}}}}}`,
		Path: kubelet + ".evictionSoftGracePeriod[disk.available]", Fix: "evictionSoftGracePeriod keys must be memory.available", CEL: true},
	{Name: "eviction over 100%", Patch: `{spec: {aws: {kubelet: {evictionHard: {memory.available: 101%}}}}}`,
		Path: kubelet + ".evictionHard[memory.available]", Fix: "evictionHard values must be a percentage such as 10% or a quantity such as 100Mi", CEL: true},
	{Name: "soft eviction without grace period", Patch: `{spec: {aws: {kubelet: {evictionSoft: {memory.available: 1Gi}}}}}`,
		Path: kubelet + ".evictionSoftGracePeriod", Fix: "every evictionSoft signal needs an evictionSoftGracePeriod entry; add one for each signal", CEL: true},
	{Name: "grace period without soft eviction", Patch: `{spec: {aws: {kubelet: {evictionSoftGracePeriod: {memory.available: 1m}}}}}`,
		Path: kubelet + ".evictionSoft", Fix: "every evictionSoftGracePeriod signal needs an evictionSoft threshold", CEL: true},
	{Name: "grace period syntax", Patch: `{spec: {aws: {kubelet: {evictionSoft: {memory.available: 1Gi}, evictionSoftGracePeriod: {memory.available: 1 minute}}}}}`,
		Path: kubelet + ".evictionSoftGracePeriod[memory.available]", Fix: "evictionSoftGracePeriod values must be durations such as 30s", CEL: true},
	{Name: "image GC thresholds", Patch: `{spec: {aws: {kubelet: {imageGCHighThresholdPercent: 50, imageGCLowThresholdPercent: 60}}}}`,
		Path: kubelet + ".imageGCLowThresholdPercent", Fix: "imageGCLowThresholdPercent must be lower than imageGCHighThresholdPercent", CEL: true},
	{Name: "max pods 0", Patch: `{spec: {aws: {kubelet: {maxPods: 0}}}}`,
		Path: kubelet + ".maxPods", Fix: "maxPods must be between 1 and 1000"},
	{Name: "four DNS servers", Patch: `{spec: {aws: {kubelet: {clusterDNS: [10.0.0.1, 10.0.0.2, 10.0.0.3, 10.0.0.4]}}}}`,
		Path: kubelet + ".clusterDNS", Fix: "must have at most 3 items"},
}
