package aws

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// liveStates are the instance states List and the orphan collector see;
// shutting-down and terminated instances are gone.
var liveStates = []string{"pending", "running", "stopping", "stopped"}

// ParseProviderID splits aws:///<zone>/<instance-id> into zone and ID.
func ParseProviderID(id string) (zone, instance string, err error) {
	rest, ok := strings.CutPrefix(id, "aws:///")
	zone, instance, ok2 := strings.Cut(rest, "/")
	if !ok || !ok2 || !strings.HasPrefix(instance, "i-") || strings.Contains(instance, "/") {
		return "", "", fmt.Errorf("provider ID %q is not aws:///<zone>/<instance-id>", id)
	}
	return zone, instance, nil
}

func (p *Provider) clusterFilter() ec2types.Filter {
	return ec2types.Filter{Name: aws.String("tag:" + TagCluster), Values: []string{p.opts.ClusterName}}
}

func (p *Provider) liveFilter() ec2types.Filter {
	return ec2types.Filter{Name: aws.String("instance-state-name"), Values: liveStates}
}

// describe returns the cluster's instance with the given ID, or a
// *cloud.NotFoundError when it does not exist, is not the cluster's, or is
// shutting down or terminated.
func (p *Provider) describe(ctx context.Context, pid, id string) (*ec2types.Instance, error) {
	out, err := p.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{id}, Filters: []ec2types.Filter{p.clusterFilter()}})
	if isCode(err, "InvalidInstanceID.NotFound") {
		return nil, &cloud.NotFoundError{ProviderID: pid, Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("describing instance %s: %w", id, err)
	}
	for _, res := range out.Reservations {
		for i := range res.Instances {
			inst := &res.Instances[i]
			if aws.ToString(inst.InstanceId) == id && !gone(inst) {
				return inst, nil
			}
		}
	}
	return nil, &cloud.NotFoundError{ProviderID: pid}
}

func gone(inst *ec2types.Instance) bool {
	return inst.State != nil && (inst.State.Name == ec2types.InstanceStateNameTerminated || inst.State.Name == ec2types.InstanceStateNameShuttingDown)
}

// instances lists the cluster's live instances matching extra filters.
func (p *Provider) instances(ctx context.Context, extra ...ec2types.Filter) ([]ec2types.Instance, error) {
	in := &ec2.DescribeInstancesInput{Filters: append([]ec2types.Filter{p.clusterFilter(), p.liveFilter()}, extra...)}
	var out []ec2types.Instance
	pages := ec2.NewDescribeInstancesPaginator(p.ec2, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing the cluster's instances: %w", err)
		}
		for _, res := range page.Reservations {
			out = append(out, res.Instances...)
		}
	}
	return out, nil
}

// claimInstance returns the live instance tagged with the claim's name, or
// nil.
func (p *Provider) claimInstance(ctx context.Context, claim string) (*ec2types.Instance, error) {
	insts, err := p.instances(ctx, ec2types.Filter{Name: aws.String("tag:" + TagNodeClaim), Values: []string{claim}})
	if err != nil || len(insts) == 0 {
		return nil, err
	}
	return &insts[0], nil
}

// Get returns the instance with providerID as a claim.
func (p *Provider) Get(ctx context.Context, pid string) (*v1.NodeClaim, error) {
	_, id, err := ParseProviderID(pid)
	if err != nil {
		return nil, err
	}
	inst, err := p.describe(ctx, pid, id)
	if err != nil {
		return nil, err
	}
	return p.withInstance(nil, inst), nil
}

// List returns every live instance tagged with the cluster, as claims named
// after their tenon.dev/nodeclaim tag.
func (p *Provider) List(ctx context.Context) ([]*v1.NodeClaim, error) {
	insts, err := p.instances(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*v1.NodeClaim, 0, len(insts))
	for i := range insts {
		out = append(out, p.withInstance(nil, &insts[i]))
	}
	return out, nil
}

// withInstance returns claim (or a new claim named by the instance's tags)
// with the instance's status.
func (p *Provider) withInstance(claim *v1.NodeClaim, inst *ec2types.Instance) *v1.NodeClaim {
	var out *v1.NodeClaim
	if claim != nil {
		out = claim.DeepCopy()
	} else {
		out = &v1.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: tagValue(inst.Tags, TagNodeClaim)}}
		if inst.LaunchTime != nil {
			out.CreationTimestamp = metav1.NewTime(*inst.LaunchTime)
		}
	}
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	zone := ""
	if inst.Placement != nil {
		zone = aws.ToString(inst.Placement.AvailabilityZone)
	}
	ct := scheduling.CapacityTypeOnDemand
	if inst.InstanceLifecycle == ec2types.InstanceLifecycleTypeSpot {
		ct = scheduling.CapacityTypeSpot
	}
	if id := aws.ToString(inst.CapacityReservationId); id != "" {
		ct = scheduling.CapacityTypeReserved
		setReservationLabels(out.Labels, id, p.reservationType(id))
	}
	if pool := tagValue(inst.Tags, TagNodePool); pool != "" {
		out.Labels[scheduling.LabelNodePool] = pool
	}
	out.Labels[scheduling.LabelInstanceType] = string(inst.InstanceType)
	out.Labels[scheduling.LabelTopologyZone] = zone
	out.Labels[scheduling.LabelCapacityType] = ct
	out.Status.ProviderID = providerID(zone, aws.ToString(inst.InstanceId))
	out.Status.InstanceType = string(inst.InstanceType)
	out.Status.Zone = zone
	out.Status.CapacityType = ct
	out.Status.ImageID = aws.ToString(inst.ImageId)
	if it, ok := p.specs.Get(string(inst.InstanceType)); ok {
		out.Status.Capacity = it.Capacity.DeepCopy()
		out.Status.Allocatable = it.Allocatable.DeepCopy()
	}
	return out
}

// Delete terminates the claim's instance. It returns a *cloud.NotFoundError
// when the instance is already gone.
func (p *Provider) Delete(ctx context.Context, claim *v1.NodeClaim) error {
	pid := claim.Status.ProviderID
	var id string
	if pid == "" {
		inst, err := p.claimInstance(ctx, claim.Name)
		if err != nil {
			return fmt.Errorf("deleting nodeclaim %s: %w", claim.Name, err)
		}
		if inst == nil {
			return &cloud.NotFoundError{ProviderID: "nodeclaim/" + claim.Name}
		}
		id = aws.ToString(inst.InstanceId)
		pid = providerID(aws.ToString(inst.Placement.AvailabilityZone), id)
	} else {
		var err error
		if _, id, err = ParseProviderID(pid); err != nil {
			return fmt.Errorf("deleting nodeclaim %s: %w", claim.Name, err)
		}
		if _, err := p.describe(ctx, pid, id); err != nil {
			return err
		}
	}
	if err := p.terminate(ctx, id); err != nil {
		if isCode(err, "InvalidInstanceID.NotFound") {
			return &cloud.NotFoundError{ProviderID: pid, Err: err}
		}
		return fmt.Errorf("deleting nodeclaim %s: %w", claim.Name, err)
	}
	p.log.Info("terminated instance", "nodeclaim", claim.Name, "instance", id)
	return nil
}

func (p *Provider) terminate(ctx context.Context, ids ...string) error {
	_, err := p.ec2.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: ids})
	if err != nil {
		return fmt.Errorf("terminating %s: %w", strings.Join(ids, ", "), err)
	}
	return nil
}

// IsDrifted reports whether the claim's instance runs an AMI, or sits in a
// subnet or security groups, that its NodeClass no longer resolves to. A
// NodeClass that cannot be resolved now gives no evidence of drift.
func (p *Provider) IsDrifted(ctx context.Context, claim *v1.NodeClaim) (cloud.DriftReason, error) {
	if claim.Spec.NodeClassRef == nil {
		return "", nil
	}
	_, id, err := ParseProviderID(claim.Status.ProviderID)
	if err != nil {
		return "", fmt.Errorf("drift of nodeclaim %s: %w", claim.Name, err)
	}
	_, r, err := p.resolveByName(ctx, claim.Spec.NodeClassRef.Name)
	if cloud.IsNodeClassNotReady(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("drift of nodeclaim %s: %w", claim.Name, err)
	}
	inst, err := p.describe(ctx, claim.Status.ProviderID, id)
	if err != nil {
		return "", fmt.Errorf("drift of nodeclaim %s: %w", claim.Name, err)
	}
	if reason := p.capacityBlockDrift(aws.ToString(inst.CapacityReservationId)); reason != "" {
		return reason, nil
	}
	if !slices.ContainsFunc(r.status.AMIs, func(a v1.AMI) bool { return a.ID == aws.ToString(inst.ImageId) }) {
		return cloud.DriftImage, nil
	}
	if !slices.ContainsFunc(r.status.Subnets, func(s v1.Subnet) bool { return s.ID == aws.ToString(inst.SubnetId) }) {
		return cloud.DriftSubnet, nil
	}
	var have, want []string
	for _, g := range inst.SecurityGroups {
		have = append(have, aws.ToString(g.GroupId))
	}
	for _, g := range r.status.SecurityGroups {
		want = append(want, g.ID)
	}
	slices.Sort(have)
	slices.Sort(want)
	if !slices.Equal(have, want) {
		return cloud.DriftSecurityGroup, nil
	}
	return "", nil
}

// CollectOrphans terminates the cluster's live instances that no claim
// tracks (known reports whether a NodeClaim of that name exists; instances
// without a claim tag are untracked too) once they are older than grace,
// which covers the window between a launch and its claim's status update.
// It returns the IDs terminated. The agent calls it periodically; together
// with Create's idempotency it guarantees that a crash or a lost CreateFleet
// response never leaks an instance.
func (p *Provider) CollectOrphans(ctx context.Context, known func(claim string) bool, grace time.Duration) ([]string, error) {
	insts, err := p.instances(ctx)
	if err != nil {
		return nil, fmt.Errorf("collecting orphans: %w", err)
	}
	cutoff := p.now().Add(-grace)
	var orphans []string
	for _, inst := range insts {
		claim := tagValue(inst.Tags, TagNodeClaim)
		if (claim != "" && known(claim)) || inst.LaunchTime == nil || inst.LaunchTime.After(cutoff) {
			continue
		}
		orphans = append(orphans, aws.ToString(inst.InstanceId))
	}
	if len(orphans) == 0 {
		return nil, nil
	}
	if err := p.terminate(ctx, orphans...); err != nil {
		return nil, fmt.Errorf("collecting orphans: %w", err)
	}
	p.log.Warn("terminated instances no nodeclaim tracks", "instances", orphans, "grace", grace)
	return orphans, nil
}

// TagRegistered tags the instance behind providerID with the node name it
// registered as (tenon.dev/node and Name), so the EC2 console shows nodes by
// name. The agent calls it once per node after registration.
func (p *Provider) TagRegistered(ctx context.Context, pid, nodeName string) error {
	_, id, err := ParseProviderID(pid)
	if err != nil {
		return err
	}
	_, err = p.ec2.CreateTags(ctx, &ec2.CreateTagsInput{
		Resources: []string{id},
		Tags:      ec2Tags(map[string]string{TagNode: nodeName, TagName: nodeName}),
	})
	if isCode(err, "InvalidInstanceID.NotFound", "InvalidID") {
		return &cloud.NotFoundError{ProviderID: pid, Err: err}
	}
	if err != nil {
		return fmt.Errorf("tagging instance %s with node %s: %w", id, nodeName, err)
	}
	return nil
}

// RepairPolicies are Ready False or Unknown for 30 minutes and the
// conditions the EKS node monitoring agent sets (state.AWSRepairPolicies),
// as Karpenter's AWS provider lists them.
func (p *Provider) RepairPolicies() []state.RepairPolicy { return state.AWSRepairPolicies() }
