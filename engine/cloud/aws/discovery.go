package aws

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// resolved is what a NodeClass resolved to at one time.
type resolved struct {
	// key hashes the spec it was resolved from; a changed spec misses the
	// cache.
	key        string
	generation int64
	class      *v1.NodeClass
	status     v1.NodeClassStatus
	// subnetFor is the subnet launches use in each zone: the one with the
	// most free addresses.
	subnetFor map[string]string
	// notReady is why the class cannot launch, or "".
	notReady string
	// managedProfile is true when the class names a role and
	// status.InstanceProfile is the profile the provider manages for it
	// (the condition's reason says so).
	managedProfile bool
}

// Invalidate drops what NodeClass name resolved to, so the next use
// resolves it again. The agent calls it when a NodeClass changes; a changed
// spec is also noticed on its own (the cache is keyed by the spec).
func (p *Provider) Invalidate(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.classes, name)
}

// NodeClassStatus resolves NodeClass name and returns the status the agent
// writes on it: the subnets, security groups, AMIs and instance profile
// found, and the Ready condition (with SubnetsReady, SecurityGroupsReady,
// AMIsReady, InstanceProfileReady) saying what is missing. A NodeClass that
// is not ready is not an error here; AWS failures are.
func (p *Provider) NodeClassStatus(ctx context.Context, name string) (v1.NodeClassStatus, error) {
	nc, err := p.opts.NodeClass(ctx, name)
	if err != nil {
		return v1.NodeClassStatus{}, fmt.Errorf("looking up nodeclass %q: %w", name, err)
	}
	if nc == nil {
		return v1.NodeClassStatus{}, fmt.Errorf("nodeclass %q does not exist", name)
	}
	r, err := p.resolve(ctx, nc)
	if err != nil {
		return v1.NodeClassStatus{}, err
	}
	st := *r.status.DeepCopy()
	if len(st.CapacityReservations) > 0 {
		// The counts as the provider sees them now (described again every
		// ReservationsTTL, launches counted at once), not as discovery last
		// saw them.
		st.CapacityReservations = p.reservationStatus(ctx, r)
	}
	return st, nil
}

// rediscover resolves NodeClass name again and replaces the cached
// resolution once done (launches meanwhile use the old one). A class that no
// longer exists is dropped.
func (p *Provider) rediscover(ctx context.Context, name string) error {
	nc, err := p.opts.NodeClass(ctx, name)
	if err != nil {
		return fmt.Errorf("looking up nodeclass %q: %w", name, err)
	}
	if nc == nil {
		// Also when the class had moved from role to instanceProfile: the
		// profile it had may still exist (DeleteInstanceProfile checks).
		if err := p.DeleteInstanceProfile(ctx, name); err != nil {
			return err
		}
		p.Invalidate(name)
		return nil
	}
	key, err := specKey(nc)
	if err != nil {
		return err
	}
	r, err := p.discover(ctx, nc)
	if err != nil {
		return fmt.Errorf("resolving nodeclass %q: %w", name, err)
	}
	r.key = key
	p.mu.Lock()
	p.classes[name] = r
	p.mu.Unlock()
	return nil
}

// resolveByName looks the class up and resolves it; it fails with a
// *cloud.NodeClassNotReadyError when the class cannot launch.
func (p *Provider) resolveByName(ctx context.Context, name string) (*v1.NodeClass, *resolved, error) {
	nc, err := p.opts.NodeClass(ctx, name)
	if err != nil {
		return nil, nil, fmt.Errorf("looking up nodeclass %q: %w", name, err)
	}
	if nc == nil {
		return nil, nil, &cloud.NodeClassNotReadyError{NodeClass: name, Reason: "the NodeClass does not exist; create it or fix the pool's nodeClassRef"}
	}
	r, err := p.resolve(ctx, nc)
	if err != nil {
		return nil, nil, err
	}
	if r.notReady != "" {
		return nc, r, &cloud.NodeClassNotReadyError{NodeClass: name, Reason: r.notReady}
	}
	return nc, r, nil
}

// resolve returns the cached resolution of nc when its spec is unchanged
// and the cache was not invalidated, or resolves it now.
func (p *Provider) resolve(ctx context.Context, nc *v1.NodeClass) (*resolved, error) {
	key, err := specKey(nc)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	r, ok := p.classes[nc.Name]
	p.mu.Unlock()
	if ok && r.key == key {
		return r, nil
	}
	r, err = p.discover(ctx, nc)
	if err != nil {
		return nil, fmt.Errorf("resolving nodeclass %q: %w", nc.Name, err)
	}
	r.key = key
	p.mu.Lock()
	p.classes[nc.Name] = r
	p.mu.Unlock()
	p.log.Info("resolved nodeclass", "nodeclass", nc.Name, "subnets", len(r.status.Subnets),
		"securityGroups", len(r.status.SecurityGroups), "amis", len(r.status.AMIs), "ready", r.notReady == "", "reason", r.notReady)
	return r, nil
}

func specKey(nc *v1.NodeClass) (string, error) {
	b, err := json.Marshal(nc.Spec)
	if err != nil {
		return "", fmt.Errorf("hashing nodeclass %q: %w", nc.Name, err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// discover asks AWS what the class's selectors select.
func (p *Provider) discover(ctx context.Context, nc *v1.NodeClass) (*resolved, error) {
	r := &resolved{class: nc.DeepCopy(), generation: nc.Generation, subnetFor: map[string]string{}}
	spec := nc.Spec.AWS
	if spec == nil {
		r.notReady = "the NodeClass has no aws block; the aws cloud launches only aws NodeClasses"
		r.status.Conditions = []metav1.Condition{p.condition(nc, v1.ConditionReady, false, "NoAWSBlock", r.notReady)}
		return r, nil
	}
	subnets, err := p.discoverSubnets(ctx, spec.SubnetSelectorTerms)
	if err != nil {
		return nil, err
	}
	groups, err := p.discoverSecurityGroups(ctx, spec.SecurityGroupSelectorTerms)
	if err != nil {
		return nil, err
	}
	amis, amiReason, err := p.discoverAMIs(ctx, spec)
	if err != nil {
		return nil, err
	}
	for _, s := range subnets {
		r.status.Subnets = append(r.status.Subnets, v1.Subnet{ID: aws.ToString(s.SubnetId), Zone: aws.ToString(s.AvailabilityZone), ZoneID: aws.ToString(s.AvailabilityZoneId)})
		zone := aws.ToString(s.AvailabilityZone)
		if cur, ok := r.subnetFor[zone]; !ok || freeIPs(subnets, aws.ToString(s.SubnetId)) > freeIPs(subnets, cur) {
			r.subnetFor[zone] = aws.ToString(s.SubnetId)
		}
	}
	for _, g := range groups {
		r.status.SecurityGroups = append(r.status.SecurityGroups, v1.SecurityGroup{ID: aws.ToString(g.GroupId), Name: aws.ToString(g.GroupName)})
	}
	r.status.AMIs = amis
	if len(spec.CapacityReservationSelectorTerms) > 0 {
		if r.status.CapacityReservations, err = p.discoverReservations(ctx, spec.CapacityReservationSelectorTerms); err != nil {
			return nil, err
		}
		p.mu.Lock()
		p.reservations[nc.Name] = &reservationView{at: p.now(), list: r.status.CapacityReservations, launched: map[string]int{}}
		p.mu.Unlock()
	}
	if spec.InstanceProfile != "" {
		r.status.InstanceProfile = spec.InstanceProfile
	} else {
		if r.status.InstanceProfile, err = p.ensureInstanceProfile(ctx, nc, spec.Role); err != nil {
			return nil, err
		}
		r.managedProfile = true
	}

	var missing []string
	subnetsOK, groupsOK, amisOK := len(subnets) > 0, len(groups) > 0, len(amis) > 0
	conds := []metav1.Condition{
		p.condition(nc, v1.ConditionSubnetsReady, subnetsOK, reason(subnetsOK, "SubnetsFound", "NoSubnets"),
			pick(subnetsOK, fmt.Sprintf("%d subnets", len(subnets)), "no subnet matches "+describeSubnetTerms(spec.SubnetSelectorTerms, p.opts.ClusterName)+"; tag your subnets or fix subnetSelectorTerms")),
		p.condition(nc, v1.ConditionSecurityGroupsReady, groupsOK, reason(groupsOK, "SecurityGroupsFound", "NoSecurityGroups"),
			pick(groupsOK, fmt.Sprintf("%d security groups", len(groups)), "no security group matches "+describeGroupTerms(spec.SecurityGroupSelectorTerms, p.opts.ClusterName)+"; tag your security groups or fix securityGroupSelectorTerms")),
		p.condition(nc, v1.ConditionAMIsReady, amisOK, reason(amisOK, "AMIsFound", "NoAMIs"),
			pick(amisOK, fmt.Sprintf("%d AMIs", len(amis)), amiReason)),
		p.condition(nc, v1.ConditionInstanceProfileReady, true, reason(r.managedProfile, "InstanceProfileManaged", "InstanceProfileNamed"), profileMessage(spec, r.status.InstanceProfile)),
	}
	for _, c := range conds {
		if c.Status != metav1.ConditionTrue {
			missing = append(missing, c.Message)
		}
	}
	if reason := badTags(spec.Tags); reason != "" {
		missing = append(missing, reason)
	}
	if reason := p.bootstrapMissing(spec); reason != "" {
		missing = append(missing, reason)
	}
	if _, err := userData(family(spec), bootstrap{kubelet: spec.Kubelet, custom: spec.UserData}); err != nil {
		missing = append(missing, err.Error())
	}
	r.notReady = strings.Join(missing, "; ")
	ready := r.notReady == ""
	conds = append(conds, p.condition(nc, v1.ConditionReady, ready, reason(ready, "Ready", "NotReady"), pick(ready, "nodes can be launched", r.notReady)))
	r.status.Conditions = conds
	return r, nil
}

// bootstrapMissing says which provider option a family's bootstrap needs
// and lacks, or "".
func (p *Provider) bootstrapMissing(spec *v1.AWSNodeClassSpec) string {
	if family(spec) == v1.AMIFamilyCustom {
		return ""
	}
	if p.opts.ClusterEndpoint == "" || p.opts.ClusterCA == "" {
		return "the aws cloud has no cluster endpoint or CA (Options.ClusterEndpoint, ClusterCA), which " + family(spec) + " user data needs; start tenon agent with --cluster-endpoint and a kubeconfig carrying the CA, or use amiFamily Custom with your own userData"
	}
	return ""
}

func (p *Provider) condition(nc *v1.NodeClass, typ string, ok bool, reason, msg string) metav1.Condition {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: nc.Generation, LastTransitionTime: metav1.NewTime(p.now())}
}

func reason(ok bool, yes, no string) string { return pick(ok, yes, no) }

func pick[T any](ok bool, yes, no T) T {
	if ok {
		return yes
	}
	return no
}

func freeIPs(subnets []ec2types.Subnet, id string) int32 {
	for _, s := range subnets {
		if aws.ToString(s.SubnetId) == id {
			return aws.ToInt32(s.AvailableIpAddressCount)
		}
	}
	return -1
}

// family is the spec's AMI family, AL2023 when unset.
func family(spec *v1.AWSNodeClassSpec) string {
	if spec.AMIFamily == "" {
		return v1.AMIFamilyAL2023
	}
	return spec.AMIFamily
}

// profileMessage says which instance profile launches use: the one the spec
// names (not checked: a missing profile shows as a launch error), or the one
// the provider manages for the spec's role.
func profileMessage(spec *v1.AWSNodeClassSpec, profile string) string {
	if spec.InstanceProfile != "" {
		return "instance profile " + spec.InstanceProfile
	}
	return "instance profile " + profile + " managed by the agent, holding role " + roleName(spec.Role)
}

// tagFilters turns selector tags into EC2 filters: tag:<key>=<value>, or
// tag-key=<key> for "*".
func tagFilters(tags map[string]string) []ec2types.Filter {
	var out []ec2types.Filter
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if v := tags[k]; v == "*" {
			out = append(out, ec2types.Filter{Name: aws.String("tag-key"), Values: []string{k}})
		} else {
			out = append(out, ec2types.Filter{Name: aws.String("tag:" + k), Values: []string{v}})
		}
	}
	return out
}

func (p *Provider) clusterTagTerm() v1.SelectorTags {
	return v1.SelectorTags{"kubernetes.io/cluster/" + p.opts.ClusterName: "*"}
}

func (p *Provider) discoverSubnets(ctx context.Context, terms []v1.SubnetSelectorTerm) ([]ec2types.Subnet, error) {
	if len(terms) == 0 {
		terms = []v1.SubnetSelectorTerm{{Tags: p.clusterTagTerm()}}
	}
	seen := map[string]bool{}
	var out []ec2types.Subnet
	for i, term := range terms {
		in := &ec2.DescribeSubnetsInput{}
		if term.ID != "" {
			in.SubnetIds = []string{term.ID}
		} else {
			in.Filters = tagFilters(term.Tags)
		}
		pages := ec2.NewDescribeSubnetsPaginator(p.ec2, in)
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if isCode(err, "InvalidSubnetID.NotFound") {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("describing subnets of subnetSelectorTerms[%d]: %w", i, err)
			}
			for _, s := range page.Subnets {
				if id := aws.ToString(s.SubnetId); !seen[id] {
					seen[id] = true
					out = append(out, s)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b ec2types.Subnet) int { return cmp.Compare(aws.ToString(a.SubnetId), aws.ToString(b.SubnetId)) })
	return out, nil
}

func (p *Provider) discoverSecurityGroups(ctx context.Context, terms []v1.SecurityGroupSelectorTerm) ([]ec2types.SecurityGroup, error) {
	if len(terms) == 0 {
		terms = []v1.SecurityGroupSelectorTerm{{Tags: p.clusterTagTerm()}}
	}
	seen := map[string]bool{}
	var out []ec2types.SecurityGroup
	for i, term := range terms {
		in := &ec2.DescribeSecurityGroupsInput{}
		switch {
		case term.ID != "":
			in.GroupIds = []string{term.ID}
		case term.Name != "":
			in.Filters = []ec2types.Filter{{Name: aws.String("group-name"), Values: []string{term.Name}}}
		default:
			in.Filters = tagFilters(term.Tags)
		}
		pages := ec2.NewDescribeSecurityGroupsPaginator(p.ec2, in)
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if isCode(err, "InvalidGroup.NotFound", "InvalidGroupId.Malformed") {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("describing security groups of securityGroupSelectorTerms[%d]: %w", i, err)
			}
			for _, g := range page.SecurityGroups {
				if id := aws.ToString(g.GroupId); !seen[id] {
					seen[id] = true
					out = append(out, g)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b ec2types.SecurityGroup) int {
		return cmp.Compare(aws.ToString(a.GroupId), aws.ToString(b.GroupId))
	})
	return out, nil
}

// familyAMI is one public SSM parameter of an AMI family and the nodes its
// AMI serves.
type familyAMI struct {
	parameter    string
	requirements []corev1.NodeSelectorRequirement
}

func archReq(arch string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: scheduling.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{arch}}
}

var (
	noGPU  = corev1.NodeSelectorRequirement{Key: scheduling.LabelInstanceGPUCount, Operator: corev1.NodeSelectorOpLt, Values: []string{"1"}}
	anyGPU = corev1.NodeSelectorRequirement{Key: scheduling.LabelInstanceGPUCount, Operator: corev1.NodeSelectorOpGt, Values: []string{"0"}}
)

// familyAMIs lists the public SSM parameters of a family's EKS-optimized
// AMIs for a Kubernetes version: x86_64 and arm64 without GPUs, and the
// NVIDIA variant for x86_64 GPU types.
func familyAMIs(fam, version string) []familyAMI {
	switch fam {
	case v1.AMIFamilyAL2023:
		base := "/aws/service/eks/optimized-ami/" + version + "/amazon-linux-2023/"
		return []familyAMI{
			{base + "x86_64/standard/recommended/image_id", []corev1.NodeSelectorRequirement{archReq("amd64"), noGPU}},
			{base + "arm64/standard/recommended/image_id", []corev1.NodeSelectorRequirement{archReq("arm64"), noGPU}},
			{base + "x86_64/nvidia/recommended/image_id", []corev1.NodeSelectorRequirement{archReq("amd64"), anyGPU}},
		}
	case v1.AMIFamilyBottlerocket:
		base := "/aws/service/bottlerocket/aws-k8s-" + version
		return []familyAMI{
			{base + "/x86_64/latest/image_id", []corev1.NodeSelectorRequirement{archReq("amd64"), noGPU}},
			{base + "/arm64/latest/image_id", []corev1.NodeSelectorRequirement{archReq("arm64"), noGPU}},
			{base + "-nvidia/x86_64/latest/image_id", []corev1.NodeSelectorRequirement{archReq("amd64"), anyGPU}},
		}
	}
	return nil
}

// discoverAMIs resolves amiSelectorTerms, or the family's SSM parameters.
// It returns the AMIs and, when there are none, why.
func (p *Provider) discoverAMIs(ctx context.Context, spec *v1.AWSNodeClassSpec) ([]v1.AMI, string, error) {
	if len(spec.AMISelectorTerms) > 0 {
		return p.discoverSelectedAMIs(ctx, spec.AMISelectorTerms)
	}
	fam := family(spec)
	if p.opts.KubernetesVersion == "" {
		return nil, "the aws cloud has no Kubernetes version (Options.KubernetesVersion, which tenon agent reads from the API server), and it names the " + fam + " AMI parameters; set amiSelectorTerms to choose AMIs without it", nil
	}
	var amis []v1.AMI
	var missing []string
	for _, fa := range familyAMIs(fam, p.opts.KubernetesVersion) {
		id, err := p.parameter(ctx, fa.parameter)
		if isCode(err, "ParameterNotFound") {
			missing = append(missing, fa.parameter)
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("reading the %s AMI parameter: %w", fam, err)
		}
		amis = append(amis, v1.AMI{ID: id, Name: fa.parameter, Requirements: fa.requirements})
	}
	if len(amis) == 0 {
		return nil, "no " + fam + " AMI for Kubernetes " + p.opts.KubernetesVersion + " (SSM parameters " + strings.Join(missing, ", ") + " not found); check the cluster's Kubernetes version or set amiSelectorTerms", nil
	}
	return amis, "", nil
}

func (p *Provider) parameter(ctx context.Context, name string) (string, error) {
	out, err := p.ssm.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(name)})
	if err != nil {
		return "", fmt.Errorf("getting SSM parameter %s: %w", name, err)
	}
	if out.Parameter == nil || aws.ToString(out.Parameter.Value) == "" {
		return "", fmt.Errorf("SSM parameter %s is empty", name)
	}
	return aws.ToString(out.Parameter.Value), nil
}

// discoverSelectedAMIs resolves amiSelectorTerms and keeps the newest image
// per architecture, as nodes of one architecture run one image.
func (p *Provider) discoverSelectedAMIs(ctx context.Context, terms []v1.AMISelectorTerm) ([]v1.AMI, string, error) {
	var images []ec2types.Image
	for i, term := range terms {
		in := &ec2.DescribeImagesInput{Filters: []ec2types.Filter{{Name: aws.String("state"), Values: []string{"available"}}}}
		switch {
		case term.ID != "":
			in.ImageIds = []string{term.ID}
		case term.SSMParameter != "":
			id, err := p.parameter(ctx, term.SSMParameter)
			if isCode(err, "ParameterNotFound") {
				continue
			}
			if err != nil {
				return nil, "", fmt.Errorf("amiSelectorTerms[%d]: %w", i, err)
			}
			in.ImageIds = []string{id}
		default:
			in.Filters = append(in.Filters, tagFilters(term.Tags)...)
			if term.Name != "" {
				in.Filters = append(in.Filters, ec2types.Filter{Name: aws.String("name"), Values: []string{term.Name}})
			}
			in.Owners = []string{"self", "amazon"}
			if term.Owner != "" {
				in.Owners = []string{term.Owner}
			}
		}
		pages := ec2.NewDescribeImagesPaginator(p.ec2, in)
		for pages.HasMorePages() {
			page, err := pages.NextPage(ctx)
			if isCode(err, "InvalidAMIID.NotFound", "InvalidAMIID.Malformed") {
				break
			}
			if err != nil {
				return nil, "", fmt.Errorf("describing images of amiSelectorTerms[%d]: %w", i, err)
			}
			images = append(images, page.Images...)
		}
	}
	newest := map[string]ec2types.Image{}
	for _, im := range images {
		arch := kubeArch(im.Architecture)
		if arch == "" {
			continue
		}
		if cur, ok := newest[arch]; !ok || aws.ToString(im.CreationDate) > aws.ToString(cur.CreationDate) ||
			(aws.ToString(im.CreationDate) == aws.ToString(cur.CreationDate) && aws.ToString(im.ImageId) < aws.ToString(cur.ImageId)) {
			newest[arch] = im
		}
	}
	var amis []v1.AMI
	for _, arch := range slices.Sorted(maps.Keys(newest)) {
		im := newest[arch]
		amis = append(amis, v1.AMI{ID: aws.ToString(im.ImageId), Name: aws.ToString(im.Name), Requirements: []corev1.NodeSelectorRequirement{archReq(arch)}})
	}
	if len(amis) == 0 {
		return nil, "no available x86_64 or arm64 image matches amiSelectorTerms; check the IDs, names, owners, tags or SSM parameters", nil
	}
	return amis, "", nil
}

// kubeArch maps an EC2 architecture to kubernetes.io/arch.
func kubeArch(a ec2types.ArchitectureValues) string {
	switch a {
	case ec2types.ArchitectureValuesX8664:
		return "amd64"
	case ec2types.ArchitectureValuesArm64:
		return "arm64"
	}
	return ""
}

func describeSubnetTerms(terms []v1.SubnetSelectorTerm, cluster string) string {
	if len(terms) == 0 {
		return "the default selector (tag kubernetes.io/cluster/" + cluster + ")"
	}
	return "subnetSelectorTerms"
}

func describeGroupTerms(terms []v1.SecurityGroupSelectorTerm, cluster string) string {
	if len(terms) == 0 {
		return "the default selector (tag kubernetes.io/cluster/" + cluster + ")"
	}
	return "securityGroupSelectorTerms"
}
