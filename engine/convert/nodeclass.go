package convert

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

// Karpenter AMI families Tenon has no bootstrap for.
var unsupportedAMIFamilies = map[string]string{
	"AL2":         "Amazon Linux 2 reached end of support for EKS; Tenon bootstraps AL2023, Bottlerocket or Custom and uses AL2023, its default; check any user data written for AL2",
	"Ubuntu":      "Tenon has no Ubuntu bootstrap; use amiFamily Custom with amiSelectorTerms and your own user data, or AL2023",
	"Windows2019": "Tenon launches Linux nodes only",
	"Windows2022": "Tenon launches Linux nodes only",
}

// amiFamily maps an AMI family, reporting the ones Tenon does not have.
func amiFamily(n *node, key string) string {
	fam := n.str(key)
	if why, unsupported := unsupportedAMIFamilies[fam]; unsupported {
		n.c.unmap(n.at(key), fmt.Sprintf("amiFamily %s: %s", fam, why))
		return ""
	}
	return fam
}

// convertEC2NodeClass converts a karpenter.k8s.aws/v1 or v1beta1
// EC2NodeClass into a NodeClass with an aws block.
func convertEC2NodeClass(c *conversion, root *node, version string) *v1.NodeClass {
	nc := newNodeClass(objectMeta(c, root))
	spec := root.child("spec")
	if spec == nil {
		c.fail(root.at("spec"), "missing: an EC2NodeClass needs a spec")
		return nc
	}
	aws := nc.Spec.AWS
	c.from(field.NewPath("spec", "aws"), spec.path)
	aws.AMIFamily = amiFamily(spec, "amiFamily")
	aws.AMISelectorTerms = amiSelectorTerms(spec, aws, version)
	for _, t := range spec.items("subnetSelectorTerms") {
		aws.SubnetSelectorTerms = append(aws.SubnetSelectorTerms, v1.SubnetSelectorTerm{Tags: t.strMap("tags"), ID: t.str("id")})
		t.finish()
	}
	for _, t := range spec.items("securityGroupSelectorTerms") {
		aws.SecurityGroupSelectorTerms = append(aws.SecurityGroupSelectorTerms, v1.SecurityGroupSelectorTerm{Tags: t.strMap("tags"), ID: t.str("id"), Name: t.str("name")})
		t.finish()
	}
	for _, t := range spec.items("capacityReservationSelectorTerms") {
		aws.CapacityReservationSelectorTerms = append(aws.CapacityReservationSelectorTerms, v1.CapacityReservationSelectorTerm{
			ID: t.str("id"), Tags: t.strMap("tags"), OwnerID: t.str("ownerID"), InstanceMatchCriteria: t.str("instanceMatchCriteria")})
		t.finish()
	}
	aws.Role = spec.str("role")
	aws.InstanceProfile = spec.str("instanceProfile")
	aws.Tags = spec.strMap("tags")
	aws.BlockDeviceMappings = blockDeviceMappings(spec, "blockDeviceMappings", true)
	aws.MetadataOptions = metadataOptions(spec.child("metadataOptions"))
	aws.UserData = spec.strPtr("userData")
	if version == "v1" {
		aws.Kubelet = kubelet(spec.child("kubelet"), false)
	}
	dropAWSExtras(spec)
	spec.finish()
	root.skip("status", "written by Karpenter; the agent resolves its own")
	root.finish()
	return nc
}

// dropAWSExtras reports the EC2NodeClass and AWSNodeTemplate fields Tenon has
// no field for.
func dropAWSExtras(spec *node) {
	spec.drop("instanceStorePolicy", "Tenon does not assemble instance-store volumes (RAID0); mount them with user data")
	spec.drop("detailedMonitoring", "Tenon launches instances with basic CloudWatch monitoring")
	spec.drop("associatePublicIPAddress", "Tenon uses the subnet's public-IP setting; choose private or public subnets with subnetSelectorTerms")
	spec.drop("context", "EC2 Fleet context is not supported")
	spec.drop("launchTemplate", "Tenon builds its own launch templates; move the template's settings (AMI, disks, metadata options, user data) into the NodeClass")
}

func newNodeClass(meta metav1.ObjectMeta) *v1.NodeClass {
	return &v1.NodeClass{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1.SchemeGroupVersion.String(), Kind: v1.NodeClassKind},
		ObjectMeta: meta,
		Spec:       v1.NodeClassSpec{AWS: &v1.AWSNodeClassSpec{}},
	}
}

// amiSelectorTerms converts EC2NodeClass AMI selector terms. A v1 alias
// (al2023@latest, bottlerocket@latest) becomes the AMI family.
func amiSelectorTerms(spec *node, aws *v1.AWSNodeClassSpec, version string) []v1.AMISelectorTerm {
	var out []v1.AMISelectorTerm
	for _, t := range spec.items("amiSelectorTerms") {
		if version == "v1" {
			if alias := t.str("alias"); alias != "" {
				aliasFamily(t, alias, aws)
				t.finish()
				continue
			}
		}
		out = append(out, v1.AMISelectorTerm{Tags: t.strMap("tags"), ID: t.str("id"), Name: t.str("name"), Owner: t.str("owner"), SSMParameter: t.str("ssmParameter")})
		t.finish()
	}
	return out
}

// aliasFamily maps a v1 AMI alias (family@version) to the AMI family.
func aliasFamily(t *node, alias string, aws *v1.AWSNodeClassSpec) {
	family, version, _ := strings.Cut(alias, "@")
	families := map[string]string{"al2023": v1.AMIFamilyAL2023, "bottlerocket": v1.AMIFamilyBottlerocket}
	tenon, ok := families[family]
	if !ok {
		t.c.unmap(t.at("alias"), fmt.Sprintf("alias %s: Tenon has AMI families AL2023 and Bottlerocket (and Custom with your own selector terms)", alias))
		return
	}
	aws.AMIFamily = tenon
	if version != "latest" {
		t.c.unmap(t.at("alias"), fmt.Sprintf("alias %s pins an AMI version; Tenon uses the family's latest EKS-optimized AMI, or pin one with an amiSelectorTerms id or ssmParameter", alias))
	}
}

// blockDeviceMappings converts block device mappings; rootVolume exists
// from v1beta1 on.
func blockDeviceMappings(spec *node, key string, withRoot bool) []v1.BlockDeviceMapping {
	var out []v1.BlockDeviceMapping
	for _, m := range spec.items(key) {
		bdm := v1.BlockDeviceMapping{DeviceName: m.str("deviceName")}
		if withRoot {
			if root := m.boolPtr("rootVolume"); root != nil {
				bdm.RootVolume = *root
			}
		}
		if ebs := m.child("ebs"); ebs != nil {
			bdm.EBS = &v1.BlockDevice{
				DeleteOnTermination: ebs.boolPtr("deleteOnTermination"),
				Encrypted:           ebs.boolPtr("encrypted"),
				IOPS:                ebs.integer("iops"),
				KMSKeyID:            ebs.strPtr("kmsKeyID"),
				SnapshotID:          ebs.strPtr("snapshotID"),
				Throughput:          ebs.integer("throughput"),
				VolumeSize:          ebs.quantity("volumeSize"),
				VolumeType:          ebs.strPtr("volumeType"),
			}
			ebs.drop("volumeInitializationRate", "Tenon does not set EBS volume initialization rates")
			ebs.finish()
		}
		m.finish()
		out = append(out, bdm)
	}
	return out
}

// metadataOptions converts instance metadata options.
func metadataOptions(m *node) *v1.MetadataOptions {
	if m == nil {
		return nil
	}
	out := &v1.MetadataOptions{
		HTTPEndpoint:            m.strPtr("httpEndpoint"),
		HTTPProtocolIPv6:        m.strPtr("httpProtocolIPv6"),
		HTTPPutResponseHopLimit: m.integer("httpPutResponseHopLimit"),
		HTTPTokens:              m.strPtr("httpTokens"),
	}
	m.finish()
	return out
}

// kubelet converts kubelet settings; v1alpha5 also had containerRuntime.
func kubelet(k *node, v1alpha5 bool) *v1.KubeletConfiguration {
	if k == nil {
		return nil
	}
	out := &v1.KubeletConfiguration{
		ClusterDNS:                  k.strings("clusterDNS"),
		MaxPods:                     k.int32p("maxPods"),
		PodsPerCore:                 k.int32p("podsPerCore"),
		SystemReserved:              k.strMap("systemReserved"),
		KubeReserved:                k.strMap("kubeReserved"),
		EvictionHard:                k.strMap("evictionHard"),
		EvictionSoft:                k.strMap("evictionSoft"),
		EvictionMaxPodGracePeriod:   k.int32p("evictionMaxPodGracePeriod"),
		ImageGCHighThresholdPercent: k.int32p("imageGCHighThresholdPercent"),
		ImageGCLowThresholdPercent:  k.int32p("imageGCLowThresholdPercent"),
		CPUCFSQuota:                 k.boolPtr("cpuCFSQuota"),
	}
	if grace := k.strMap("evictionSoftGracePeriod"); grace != nil {
		out.EvictionSoftGracePeriod = make(map[string]v1.Duration, len(grace))
		for sig, d := range grace {
			out.EvictionSoftGracePeriod[sig] = v1.Duration(normalizeDuration(d, durationSMH))
		}
	}
	if v1alpha5 {
		k.drop("containerRuntime", "Tenon's AMI families all run containerd; the setting has no effect")
	}
	k.finish()
	return out
}

// convertAWSNodeTemplate converts a karpenter.k8s.aws/v1alpha1
// AWSNodeTemplate into a NodeClass with an aws block.
func convertAWSNodeTemplate(c *conversion, root *node, opts Options) *v1.NodeClass {
	nc := newNodeClass(objectMeta(c, root))
	spec := root.child("spec")
	if spec == nil {
		c.fail(root.at("spec"), "missing: an AWSNodeTemplate needs a spec")
		return nc
	}
	aws := nc.Spec.AWS
	c.from(field.NewPath("spec", "aws"), spec.path)
	if _, set := spec.m["amiFamily"]; !set {
		c.unmap(spec.at("amiFamily"), "absent: Karpenter v1alpha5 defaulted it to AL2, Tenon defaults to AL2023; set amiFamily if your user data expects AL2")
	}
	aws.AMIFamily = amiFamily(spec, "amiFamily")
	aws.AMISelectorTerms = legacyAMISelector(spec)
	aws.SubnetSelectorTerms = legacySelector(spec, "subnetSelector", func(tags map[string]string, id string) v1.SubnetSelectorTerm {
		return v1.SubnetSelectorTerm{Tags: tags, ID: id}
	})
	aws.SecurityGroupSelectorTerms = legacySelector(spec, "securityGroupSelector", func(tags map[string]string, id string) v1.SecurityGroupSelectorTerm {
		return v1.SecurityGroupSelectorTerm{Tags: tags, ID: id}
	})
	aws.InstanceProfile = spec.str("instanceProfile")
	if aws.InstanceProfile == "" && opts.DefaultInstanceProfile != "" {
		aws.InstanceProfile = opts.DefaultInstanceProfile
	}
	aws.Tags = spec.strMap("tags")
	aws.BlockDeviceMappings = blockDeviceMappings(spec, "blockDeviceMappings", false)
	aws.MetadataOptions = metadataOptions(spec.child("metadataOptions"))
	aws.UserData = spec.strPtr("userData")
	dropAWSExtras(spec)
	spec.finish()
	root.skip("status", "written by Karpenter; the agent resolves its own")
	root.finish()
	return nc
}

// splitIDs splits Karpenter's comma-separated aws-ids value.
func splitIDs(v string) []string {
	var out []string
	for _, id := range strings.Split(v, ",") {
		if id = strings.TrimSpace(id); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// legacySelector converts a v1alpha1 tag selector (all keys ANDed, aws-ids
// for IDs) into selector terms: one term per ID, or one term of tags.
func legacySelector[T any](spec *node, key string, term func(tags map[string]string, id string) T) []T {
	sel := spec.strMap(key)
	if sel == nil {
		return nil
	}
	ids, hasIDs := sel["aws-ids"]
	if !hasIDs {
		return []T{term(sel, "")}
	}
	var out []T
	for _, id := range splitIDs(ids) {
		out = append(out, term(nil, id))
	}
	for _, k := range sortedKeys(sel) {
		if k != "aws-ids" {
			spec.c.unmap(spec.at(key).Key(k), "aws-ids selects by ID on its own in Tenon; this key narrowed the IDs further, which a selector term cannot express")
		}
	}
	return out
}

// legacyAMISelector converts a v1alpha1 amiSelector: aws-ids or aws::ids
// become id terms; aws::name and aws::owners become name and owner (one term
// per owner) ANDed with the remaining tags.
func legacyAMISelector(spec *node) []v1.AMISelectorTerm {
	sel := spec.strMap("amiSelector")
	if sel == nil {
		return nil
	}
	for _, k := range []string{"aws-ids", "aws::ids"} {
		ids, ok := sel[k]
		if !ok {
			continue
		}
		var out []v1.AMISelectorTerm
		for _, id := range splitIDs(ids) {
			out = append(out, v1.AMISelectorTerm{ID: id})
		}
		for _, other := range sortedKeys(sel) {
			if other != k {
				spec.c.unmap(spec.at("amiSelector").Key(other), k+" selects AMIs by ID on its own in Tenon; this key narrowed the IDs further, which a selector term cannot express")
			}
		}
		return out
	}
	tags := map[string]string{}
	for _, k := range sortedKeys(sel) {
		v := sel[k]
		if k != "aws::name" && k != "aws::owners" {
			tags[k] = v
		}
	}
	if len(tags) == 0 {
		tags = nil
	}
	owners := splitIDs(sel["aws::owners"])
	if len(owners) == 0 {
		owners = []string{""}
	}
	out := make([]v1.AMISelectorTerm, 0, len(owners))
	for _, owner := range owners {
		out = append(out, v1.AMISelectorTerm{Tags: tags, Name: sel["aws::name"], Owner: owner})
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
