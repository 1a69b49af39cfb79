package aws

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// capacityErrorCodes are the CreateFleet error codes that mean "no capacity
// for this offering now": the offering is marked unavailable and the claim
// retries with the others.
var capacityErrorCodes = []string{
	"InsufficientInstanceCapacity", "InsufficientCapacity", "UnfulfillableCapacity",
	"MaxSpotInstanceCountExceeded", "InsufficientFreeAddressesInSubnet", "Unsupported", "VcpuLimitExceeded",
}

// option is one way to launch a claim: an instance type in a zone's subnet
// with a capacity type, at a price, with one of the class's AMIs.
type option struct {
	it           *catalog.InstanceType
	zone, subnet string
	capacityType string
	price        float64
	ami          int
	// reservation is set on reserved options: the capacity reservation
	// the option launches into.
	reservation *catalog.Reservation
}

func (o option) offering() cloud.Offering {
	off := cloud.Offering{InstanceType: o.it.Name, Zone: o.zone, CapacityType: o.capacityType}
	if o.reservation != nil {
		off.ReservationID = o.reservation.ID
	}
	return off
}

// Create launches one instance for claim with an instant EC2 Fleet: into a
// capacity reservation of the NodeClass with room when the claim allows
// reserved (one reservation per request, with a launch template targeting
// it), else up to 60 of the cheapest allowed instance-type × subnet
// options, spot (price-capacity-optimized) when the claim allows spot and
// some is available, else on-demand (lowest-price); when every reservation
// is used up or every spot option lacks capacity, it falls back to the next
// capacity type the claim allows at once. Offerings that report insufficient capacity are skipped for
// UnavailableFor; when none is left the error is an
// *cloud.InsufficientCapacityError.
//
// Create is idempotent per claim: an instance already tagged with the
// claim's name is returned instead of launching another, and the fleet's
// client token is derived from the claim and the request, so the SDK's
// retries (and a restarted agent making the same request) never launch
// twice.
func (p *Provider) Create(ctx context.Context, claim *v1.NodeClaim) (*v1.NodeClaim, error) {
	if claim == nil || claim.Spec.NodeClassRef == nil || claim.Spec.NodeClassRef.Name == "" {
		return nil, errors.New("creating an instance: the nodeclaim has no nodeClassRef; this is always a bug in the agent")
	}
	nc, r, err := p.resolveByName(ctx, claim.Spec.NodeClassRef.Name)
	if err != nil {
		return nil, fmt.Errorf("launching nodeclaim %s: %w", claim.Name, err)
	}
	existing, err := p.claimInstance(ctx, claim.Name)
	if err != nil {
		return nil, fmt.Errorf("launching nodeclaim %s: %w", claim.Name, err)
	}
	if existing != nil {
		p.log.Info("nodeclaim already has an instance", "nodeclaim", claim.Name, "instance", aws.ToString(existing.InstanceId))
		return p.withInstance(claim, existing), nil
	}
	reqs, err := claimRequirements(claim)
	if err != nil {
		return nil, fmt.Errorf("launching nodeclaim %s: %w", claim.Name, err)
	}
	types, err := p.instanceTypesFor(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("launching nodeclaim %s: %w", claim.Name, err)
	}
	options := p.launchOptions(claim, reqs, types, r)
	var tried []cloud.Offering
	for _, ct := range []string{scheduling.CapacityTypeReserved, scheduling.CapacityTypeSpot, scheduling.CapacityTypeOnDemand} {
		opts := cheapest(options, ct)
		if len(opts) == 0 {
			continue
		}
		launch := p.launch
		if ct == scheduling.CapacityTypeReserved {
			launch = p.launchReserved
		}
		launched, ice, err := launch(ctx, claim, nc, r, reqs, ct, opts)
		tried = append(tried, ice...)
		if err != nil {
			return nil, fmt.Errorf("launching nodeclaim %s: %w", claim.Name, err)
		}
		if launched != nil {
			return launched, nil
		}
		p.log.Info("no capacity; trying the next capacity type", "nodeclaim", claim.Name, "capacityType", ct, "offerings", len(ice))
	}
	return nil, &cloud.InsufficientCapacityError{Claim: claim.Name, Offerings: tried}
}

// claimRequirements parses the claim's requirements.
func claimRequirements(claim *v1.NodeClaim) (scheduling.Requirements, error) {
	specs := make([]scheduling.RequirementSpec, 0, len(claim.Spec.Requirements))
	for _, r := range claim.Spec.Requirements {
		spec := scheduling.RequirementSpec{Key: r.Key, Operator: string(r.Operator), Values: r.Values}
		if r.MinValues != nil {
			n := int(*r.MinValues)
			spec.MinValues = &n
		}
		specs = append(specs, spec)
	}
	reqs, err := scheduling.RequirementsFromSpecs(specs...)
	if err != nil {
		return nil, fmt.Errorf("parsing requirements: %w", err)
	}
	return reqs, nil
}

// launchOptions lists every allowed, available option whose type fits the
// claim's requests.
func (p *Provider) launchOptions(claim *v1.NodeClaim, reqs scheduling.Requirements, types []*catalog.InstanceType, r *resolved) []option {
	amis := amiRequirements(r.status.AMIs)
	zone, capacityType := reqs.Get(scheduling.LabelTopologyZone), reqs.Get(scheduling.LabelCapacityType)
	var out []option
	for _, it := range types {
		if !it.Requirements.Overlaps(reqs) || !fits(it, claim) {
			continue
		}
		ami := amiFor(it.Requirements, amis)
		if ami < 0 {
			continue
		}
		for _, o := range it.Offerings {
			if !o.Available || !zone.Has(o.Zone) || !capacityType.Has(o.CapacityType) {
				continue
			}
			opt := option{it: it, zone: o.Zone, subnet: r.subnetFor[o.Zone], capacityType: o.CapacityType, price: o.PricePerHour, ami: ami, reservation: o.Reservation}
			if opt.subnet == "" || p.isUnavailable(opt.offering()) {
				continue
			}
			out = append(out, opt)
		}
	}
	return out
}

// fits reports whether the type's allocatable resources hold the claim's
// requests.
func fits(it *catalog.InstanceType, claim *v1.NodeClaim) bool {
	for name, want := range claim.Spec.Resources.Requests {
		have, ok := it.Allocatable[name]
		if !ok || have.Cmp(want) < 0 {
			if want.IsZero() {
				continue
			}
			return false
		}
	}
	return true
}

// cheapest returns the options of one capacity type, cheapest first (then
// by type and zone, for a stable request), at most MaxOverrides.
func cheapest(options []option, capacityType string) []option {
	var out []option
	for _, o := range options {
		if o.capacityType == capacityType {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(a, b option) int {
		return cmp.Or(cmp.Compare(a.price, b.price), strings.Compare(a.it.Name, b.it.Name), strings.Compare(a.zone, b.zone))
	})
	return out[:min(len(out), MaxOverrides)]
}

// launch makes one CreateFleet request over opts (one capacity type). It
// returns the launched claim, or the offerings that lacked capacity (now
// marked unavailable), or an error.
func (p *Provider) launch(ctx context.Context, claim *v1.NodeClaim, nc *v1.NodeClass, r *resolved, reqs scheduling.Requirements, ct string, opts []option) (*v1.NodeClaim, []cloud.Offering, error) {
	pool := poolName(claim, reqs)
	labels := nodeLabels(claim, reqs, ct)
	res := opts[0].reservation
	if res != nil {
		setReservationLabels(labels, res.ID, res.Type)
	}
	taints := append(slices.Clone(claim.Spec.Taints), claim.Spec.StartupTaints...)
	byAMI := map[int][]option{}
	var amiOrder []int
	for _, o := range opts {
		if _, ok := byAMI[o.ami]; !ok {
			amiOrder = append(amiOrder, o.ami)
		}
		byAMI[o.ami] = append(byAMI[o.ami], o)
	}
	in := &ec2.CreateFleetInput{
		Type:                        ec2types.FleetTypeInstant,
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{TotalTargetCapacity: aws.Int32(1)},
		TagSpecifications: []ec2types.TagSpecification{
			{ResourceType: ec2types.ResourceTypeInstance, Tags: ec2Tags(p.instanceTags(nc.Spec.AWS.Tags, pool, claim.Name))},
			{ResourceType: ec2types.ResourceTypeFleet, Tags: ec2Tags(map[string]string{TagCluster: p.opts.ClusterName, TagNodePool: pool, TagNodeClaim: claim.Name})},
		},
	}
	if ct == scheduling.CapacityTypeSpot {
		// A spot launch creates a spot instance request too: the IAM policy's
		// request-tag condition covers it like the instance, so it carries the
		// instance's tags (docs/guides/aws-iam.md, TestIAMGuideMatchesTheCode).
		in.TagSpecifications = append(in.TagSpecifications, ec2types.TagSpecification{
			ResourceType: ec2types.ResourceTypeSpotInstancesRequest, Tags: ec2Tags(p.instanceTags(nc.Spec.AWS.Tags, pool, claim.Name)),
		})
		in.TargetCapacitySpecification.DefaultTargetCapacityType = ec2types.DefaultTargetCapacityTypeSpot
		in.SpotOptions = &ec2types.SpotOptionsRequest{AllocationStrategy: ec2types.SpotAllocationStrategyPriceCapacityOptimized}
	} else {
		in.TargetCapacitySpecification.DefaultTargetCapacityType = ec2types.DefaultTargetCapacityTypeOnDemand
		in.OnDemandOptions = &ec2types.OnDemandOptionsRequest{AllocationStrategy: ec2types.FleetOnDemandAllocationStrategyLowestPrice}
		if res != nil && res.Type == v1.CapacityReservationTypeCapacityBlock {
			in.TargetCapacitySpecification.DefaultTargetCapacityType = ec2types.DefaultTargetCapacityTypeCapacityBlock
		}
	}
	for _, ami := range amiOrder {
		name, data, err := p.launchTemplate(templateSpec{class: nc, r: r, ami: r.status.AMIs[ami], labels: labels, taints: taints, pool: pool, reservation: res})
		if err != nil {
			return nil, nil, &cloud.NodeClassNotReadyError{NodeClass: nc.Name, Reason: err.Error()}
		}
		if err := p.ensureLaunchTemplate(ctx, name, data, pool); err != nil {
			return nil, nil, err
		}
		cfg := ec2types.FleetLaunchTemplateConfigRequest{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateName: aws.String(name), Version: aws.String("$Latest")},
		}
		for _, o := range byAMI[ami] {
			cfg.Overrides = append(cfg.Overrides, ec2types.FleetLaunchTemplateOverridesRequest{
				InstanceType: ec2types.InstanceType(o.it.Name), SubnetId: aws.String(o.subnet), AvailabilityZone: aws.String(o.zone),
			})
		}
		in.LaunchTemplateConfigs = append(in.LaunchTemplateConfigs, cfg)
	}
	token, err := p.clientToken(claim, in)
	if err != nil {
		return nil, nil, err
	}
	in.ClientToken = aws.String(token)
	out, err := p.ec2.CreateFleet(ctx, in)
	if err != nil {
		if isCode(err, capacityErrorCodes...) || (res != nil && isCode(err, capacityReservationErrorCodes...)) {
			ice := offeringsOf(opts)
			p.markUnavailable(ice...)
			return nil, ice, nil
		}
		return nil, nil, fmt.Errorf("creating fleet: %w", err)
	}
	ice, other := p.fleetErrors(out.Errors, ct, r, res)
	p.markUnavailable(ice...)
	for _, inst := range out.Instances {
		if len(inst.InstanceIds) == 0 {
			continue
		}
		chosen, ok := findOption(opts, string(inst.InstanceType), aws.ToString(inst.SubnetId), inst.LaunchTemplateAndOverrides)
		if !ok {
			return nil, ice, fmt.Errorf("fleet launched %s %s, which was not requested; this is always a bug in the provider", inst.InstanceType, inst.InstanceIds[0])
		}
		launched := p.launchedClaim(claim, inst.InstanceIds[0], chosen, r.status.AMIs[chosen.ami].ID)
		if res != nil {
			p.reservationLaunched(res.ID)
		}
		p.log.Info("launched instance", "nodeclaim", claim.Name, "instance", inst.InstanceIds[0], "instanceType", chosen.it.Name,
			"zone", chosen.zone, "capacityType", ct, "price", chosen.price, "clientToken", token, "insufficientCapacity", len(ice))
		return launched, ice, nil
	}
	if len(other) > 0 {
		return nil, ice, fmt.Errorf("creating fleet: %s", strings.Join(other, "; "))
	}
	return nil, ice, nil
}

// launchReserved tries the claim's reserved options one reservation at a
// time, cheapest first: a fleet request targets one reservation through its
// launch template. A reservation without room is marked full (and its
// offering unavailable), and the next is tried.
func (p *Provider) launchReserved(ctx context.Context, claim *v1.NodeClaim, nc *v1.NodeClass, r *resolved, reqs scheduling.Requirements, ct string, opts []option) (*v1.NodeClaim, []cloud.Offering, error) {
	var order []string
	byID := map[string][]option{}
	for _, o := range opts {
		if _, ok := byID[o.reservation.ID]; !ok {
			order = append(order, o.reservation.ID)
		}
		byID[o.reservation.ID] = append(byID[o.reservation.ID], o)
	}
	var tried []cloud.Offering
	for _, id := range order {
		launched, ice, err := p.launch(ctx, claim, nc, r, reqs, ct, byID[id])
		tried = append(tried, ice...)
		if err != nil || launched != nil {
			return launched, tried, err
		}
		p.reservationFull(id)
		p.log.Info("capacity reservation has no room; trying the next", "nodeclaim", claim.Name, "reservation", id)
	}
	return nil, tried, nil
}

// fleetErrors splits a fleet's errors into offerings without capacity and
// other messages.
func (p *Provider) fleetErrors(errs []ec2types.CreateFleetError, ct string, r *resolved, res *catalog.Reservation) ([]cloud.Offering, []string) {
	var ice []cloud.Offering
	var other []string
	for _, e := range errs {
		code := aws.ToString(e.ErrorCode)
		var ov *ec2types.FleetLaunchTemplateOverrides
		if e.LaunchTemplateAndOverrides != nil {
			ov = e.LaunchTemplateAndOverrides.Overrides
		}
		full := slices.Contains(capacityErrorCodes, code) || (res != nil && slices.Contains(capacityReservationErrorCodes, code))
		if full && ov != nil {
			zone := aws.ToString(ov.AvailabilityZone)
			if zone == "" {
				zone = subnetZone(r, aws.ToString(ov.SubnetId))
			}
			off := cloud.Offering{InstanceType: string(ov.InstanceType), Zone: zone, CapacityType: ct}
			if res != nil {
				off.ReservationID = res.ID
			}
			ice = append(ice, off)
			continue
		}
		other = append(other, code+": "+aws.ToString(e.ErrorMessage))
	}
	return ice, slices.Compact(other)
}

func subnetZone(r *resolved, subnet string) string {
	for _, s := range r.status.Subnets {
		if s.ID == subnet {
			return s.Zone
		}
	}
	return ""
}

func offeringsOf(opts []option) []cloud.Offering {
	out := make([]cloud.Offering, len(opts))
	for i, o := range opts {
		out[i] = o.offering()
	}
	return out
}

func findOption(opts []option, instanceType, subnet string, lto *ec2types.LaunchTemplateAndOverridesResponse) (option, bool) {
	if subnet == "" && lto != nil && lto.Overrides != nil {
		subnet = aws.ToString(lto.Overrides.SubnetId)
	}
	for _, o := range opts {
		if o.it.Name == instanceType && (subnet == "" || o.subnet == subnet) {
			return o, true
		}
	}
	return option{}, false
}

// clientToken derives the fleet's idempotency token from the cluster, the
// claim and the request itself: a retry of the same request (by the SDK, or
// by a restarted agent that sees the same options) reuses it, so EC2 returns
// the first answer instead of launching again; a request over other options
// (after insufficient capacity) gets a new one, as EC2 requires.
func (p *Provider) clientToken(claim *v1.NodeClaim, in *ec2.CreateFleetInput) (string, error) {
	req, err := json.Marshal(struct {
		Configs []ec2types.FleetLaunchTemplateConfigRequest
		Target  *ec2types.TargetCapacitySpecificationRequest
	}{in.LaunchTemplateConfigs, in.TargetCapacitySpecification})
	if err != nil {
		return "", fmt.Errorf("deriving the client token: %w", err)
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(p.opts.ClusterName), []byte(claim.Name), []byte(claim.UID), req} {
		h.Write(part)
		h.Write([]byte{0})
	}
	return "tenon-" + hex.EncodeToString(h.Sum(nil))[:48], nil
}

// poolName is the claim's pool, from its label or requirement.
func poolName(claim *v1.NodeClaim, reqs scheduling.Requirements) string {
	if pool := claim.Labels[scheduling.LabelNodePool]; pool != "" {
		return pool
	}
	if pool, ok := reqs.Get(scheduling.LabelNodePool).Any(); ok {
		return pool
	}
	return ""
}

// nodeLabels are the labels the kubelet registers the node with: the pool's
// own labels (pinned by the claim's requirements or set on the claim), the
// pool name and the capacity type, and the Karpenter aliases of the last two. Labels that depend on the instance type
// are set by the agent at registration; labels in the kubernetes.io and
// k8s.io domains, which the kubelet may not set, are left out.
func nodeLabels(claim *v1.NodeClaim, reqs scheduling.Requirements, ct string) map[string]string {
	labels := map[string]string{}
	add := func(k, v string) {
		if k == scheduling.LabelNodePool || (!scheduling.IsWellKnownLabel(k) && kubeletMaySet(k)) {
			labels[k] = v
		}
	}
	for k, v := range reqs.Labels() {
		add(k, v)
	}
	for k, v := range claim.Labels {
		add(k, v)
	}
	labels[scheduling.LabelCapacityType] = ct
	// Karpenter's spellings of the pool and capacity type, which the
	// kubelet may set (the agent adds the instance ones at registration).
	maps.Copy(labels, scheduling.KarpenterAliases(labels))
	return labels
}

// kubeletMaySet reports whether the NodeRestriction admission plugin lets a
// kubelet set label k on itself.
func kubeletMaySet(k string) bool {
	domain, _, ok := strings.Cut(k, "/")
	if !ok {
		return true
	}
	restricted := domain == "kubernetes.io" || strings.HasSuffix(domain, ".kubernetes.io") || domain == "k8s.io" || strings.HasSuffix(domain, ".k8s.io")
	if !restricted {
		return true
	}
	return strings.HasPrefix(k, "kubelet.kubernetes.io/") || strings.HasPrefix(k, "node.kubernetes.io/")
}

// launchedClaim is claim with the status of its new instance.
func (p *Provider) launchedClaim(claim *v1.NodeClaim, id string, o option, image string) *v1.NodeClaim {
	out := claim.DeepCopy()
	out.Status.ProviderID = providerID(o.zone, id)
	out.Status.InstanceType = o.it.Name
	out.Status.Zone = o.zone
	out.Status.CapacityType = o.capacityType
	out.Status.ImageID = image
	out.Status.Capacity = o.it.Capacity.DeepCopy()
	out.Status.Allocatable = o.it.Allocatable.DeepCopy()
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	for k, v := range o.it.Requirements.Labels() {
		out.Labels[k] = v
	}
	out.Labels[scheduling.LabelTopologyZone] = o.zone
	out.Labels[scheduling.LabelCapacityType] = o.capacityType
	if o.reservation != nil {
		setReservationLabels(out.Labels, o.reservation.ID, o.reservation.Type)
	}
	return out
}

// providerID is the Kubernetes provider ID of an EC2 instance.
func providerID(zone, id string) string { return "aws:///" + zone + "/" + id }
