package awsfake

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// listing is a Describe call over one of the Fake's lists.
type listing[T any] struct {
	// items is the list, read under the lock.
	items *[]T
	// keep says whether an item matches the request's IDs, names and filters.
	keep func(T) bool
	// ids are the IDs the request names: each must be an item's (id reads
	// it), else the call fails with notFound's error, as EC2's do.
	ids      []string
	id       func(T) string
	notFound func(id string) error
}

// describe serves a Describe call: it records the call and applies its
// faults, then, under the lock, checks the named IDs and returns the items
// the request keeps, in order.
func describe[T any](ctx context.Context, f *Fake, op string, in any, l listing[T]) ([]T, error) {
	if err := f.begin(ctx, op, in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range l.ids {
		if !slices.ContainsFunc(*l.items, func(item T) bool { return l.id(item) == id }) {
			return nil, l.notFound(id)
		}
	}
	var out []T
	for _, item := range *l.items {
		if l.keep(item) {
			out = append(out, item)
		}
	}
	return out, nil
}

// named reports whether value is among names, or names is empty: a request
// that names nothing asks for everything.
func named[S ~string](names []S, value S) bool {
	return len(names) == 0 || slices.Contains(names, value)
}

// DescribeSubnets returns the subnets matching the IDs and filters.
func (f *Fake) DescribeSubnets(ctx context.Context, in *ec2.DescribeSubnetsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error) {
	subnets, err := describe(ctx, f, "DescribeSubnets", in, listing[ec2types.Subnet]{
		items: &f.Subnets,
		keep: func(s ec2types.Subnet) bool {
			return named(in.SubnetIds, aws.ToString(s.SubnetId)) && matches(in.Filters, subnetAttrs(s))
		},
		ids: in.SubnetIds,
		id:  func(s ec2types.Subnet) string { return aws.ToString(s.SubnetId) },
		notFound: func(id string) error {
			return apiError("InvalidSubnetID.NotFound", "The subnet ID '"+id+"' does not exist")
		},
	})
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeSubnetsOutput{Subnets: subnets}, nil
}

// DescribeSecurityGroups returns the groups matching the IDs, names and
// filters.
func (f *Fake) DescribeSecurityGroups(ctx context.Context, in *ec2.DescribeSecurityGroupsInput, _ ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error) {
	groups, err := describe(ctx, f, "DescribeSecurityGroups", in, listing[ec2types.SecurityGroup]{
		items: &f.SecurityGroups,
		keep: func(g ec2types.SecurityGroup) bool {
			return named(in.GroupIds, aws.ToString(g.GroupId)) && named(in.GroupNames, aws.ToString(g.GroupName)) && matches(in.Filters, groupAttrs(g))
		},
		ids: in.GroupIds,
		id:  func(g ec2types.SecurityGroup) string { return aws.ToString(g.GroupId) },
		notFound: func(id string) error {
			return apiError("InvalidGroup.NotFound", "The security group '"+id+"' does not exist")
		},
	})
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeSecurityGroupsOutput{SecurityGroups: groups}, nil
}

// DescribeImages returns the images matching the IDs, owners and filters.
func (f *Fake) DescribeImages(ctx context.Context, in *ec2.DescribeImagesInput, _ ...func(*ec2.Options)) (*ec2.DescribeImagesOutput, error) {
	images, err := describe(ctx, f, "DescribeImages", in, listing[ec2types.Image]{
		items: &f.Images,
		keep: func(im ec2types.Image) bool {
			owner := []string{aws.ToString(im.OwnerId), aws.ToString(im.ImageOwnerAlias), "self"}
			return named(in.ImageIds, aws.ToString(im.ImageId)) &&
				(len(in.Owners) == 0 || slices.ContainsFunc(in.Owners, func(o string) bool { return slices.Contains(owner, o) })) &&
				matches(in.Filters, imageAttrs(im))
		},
	})
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeImagesOutput{Images: images}, nil
}

// DescribeInstanceTypes returns the instance types (all, or those named).
func (f *Fake) DescribeInstanceTypes(ctx context.Context, in *ec2.DescribeInstanceTypesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstanceTypesOutput, error) {
	types, err := describe(ctx, f, "DescribeInstanceTypes", in, listing[ec2types.InstanceTypeInfo]{
		items: &f.InstanceTypes,
		keep:  func(it ec2types.InstanceTypeInfo) bool { return named(in.InstanceTypes, it.InstanceType) },
	})
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeInstanceTypesOutput{InstanceTypes: types}, nil
}

// DescribeInstanceTypeOfferings returns the offerings matching the filters.
func (f *Fake) DescribeInstanceTypeOfferings(ctx context.Context, in *ec2.DescribeInstanceTypeOfferingsInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstanceTypeOfferingsOutput, error) {
	offerings, err := describe(ctx, f, "DescribeInstanceTypeOfferings", in, listing[ec2types.InstanceTypeOffering]{
		items: &f.Offerings,
		keep: func(o ec2types.InstanceTypeOffering) bool {
			return (in.LocationType == "" || in.LocationType == o.LocationType) && matches(in.Filters, offeringAttrs(o))
		},
	})
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeInstanceTypeOfferingsOutput{InstanceTypeOfferings: offerings}, nil
}

// DescribeSpotPriceHistory returns the spot prices (all, or of the types
// named).
func (f *Fake) DescribeSpotPriceHistory(ctx context.Context, in *ec2.DescribeSpotPriceHistoryInput, _ ...func(*ec2.Options)) (*ec2.DescribeSpotPriceHistoryOutput, error) {
	prices, err := describe(ctx, f, "DescribeSpotPriceHistory", in, listing[ec2types.SpotPrice]{
		items: &f.SpotPrices,
		keep:  func(p ec2types.SpotPrice) bool { return named(in.InstanceTypes, p.InstanceType) },
	})
	if err != nil {
		return nil, err
	}
	return &ec2.DescribeSpotPriceHistoryOutput{SpotPriceHistory: prices}, nil
}

// CreateLaunchTemplate stores a template; a second one with the same name
// fails with InvalidLaunchTemplateName.AlreadyExistsException, as in EC2.
func (f *Fake) CreateLaunchTemplate(ctx context.Context, in *ec2.CreateLaunchTemplateInput, _ ...func(*ec2.Options)) (*ec2.CreateLaunchTemplateOutput, error) {
	if err := f.begin(ctx, "CreateLaunchTemplate", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	name := aws.ToString(in.LaunchTemplateName)
	if _, ok := f.templates[name]; ok {
		return nil, apiError("InvalidLaunchTemplateName.AlreadyExistsException", "Launch template name already in use.")
	}
	lt := ec2types.LaunchTemplate{
		LaunchTemplateId:     aws.String(f.nextID("lt")),
		LaunchTemplateName:   aws.String(name),
		CreateTime:           aws.Time(f.now()),
		DefaultVersionNumber: aws.Int64(1),
		LatestVersionNumber:  aws.Int64(1),
	}
	for _, ts := range in.TagSpecifications {
		if ts.ResourceType == ec2types.ResourceTypeLaunchTemplate {
			lt.Tags = append(lt.Tags, ts.Tags...)
		}
	}
	f.templates[name] = lt
	if in.LaunchTemplateData != nil {
		f.templateData[name] = *in.LaunchTemplateData
	}
	return &ec2.CreateLaunchTemplateOutput{LaunchTemplate: &lt}, nil
}

// DescribeLaunchTemplates returns the templates matching the names and
// filters; an unknown name fails as in EC2.
func (f *Fake) DescribeLaunchTemplates(ctx context.Context, in *ec2.DescribeLaunchTemplatesInput, _ ...func(*ec2.Options)) (*ec2.DescribeLaunchTemplatesOutput, error) {
	if err := f.begin(ctx, "DescribeLaunchTemplates", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := &ec2.DescribeLaunchTemplatesOutput{}
	for _, name := range in.LaunchTemplateNames {
		if _, ok := f.templates[name]; !ok {
			return nil, apiError("InvalidLaunchTemplateName.NotFoundException", "At least one of the launch templates specified in the request does not exist.")
		}
	}
	names := make([]string, 0, len(f.templates))
	for name := range f.templates {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		lt := f.templates[name]
		if (len(in.LaunchTemplateNames) == 0 || slices.Contains(in.LaunchTemplateNames, name)) && matches(in.Filters, templateAttrs(lt)) {
			out.LaunchTemplates = append(out.LaunchTemplates, lt)
		}
	}
	return out, nil
}

// DeleteLaunchTemplate removes a template by name or ID.
func (f *Fake) DeleteLaunchTemplate(ctx context.Context, in *ec2.DeleteLaunchTemplateInput, _ ...func(*ec2.Options)) (*ec2.DeleteLaunchTemplateOutput, error) {
	if err := f.begin(ctx, "DeleteLaunchTemplate", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for name, lt := range f.templates {
		if name == aws.ToString(in.LaunchTemplateName) || aws.ToString(lt.LaunchTemplateId) == aws.ToString(in.LaunchTemplateId) {
			delete(f.templates, name)
			delete(f.templateData, name)
			return &ec2.DeleteLaunchTemplateOutput{LaunchTemplate: &lt}, nil
		}
	}
	return nil, apiError("InvalidLaunchTemplateName.NotFoundException", "The specified launch template does not exist.")
}

// DescribeInstances returns the instances matching the IDs and filters, in
// one reservation; an unknown ID fails with InvalidInstanceID.NotFound.
func (f *Fake) DescribeInstances(ctx context.Context, in *ec2.DescribeInstancesInput, _ ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error) {
	if err := f.begin(ctx, "DescribeInstances", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range in.InstanceIds {
		if _, ok := f.instances[id]; !ok {
			return nil, apiError("InvalidInstanceID.NotFound", "The instance ID '"+id+"' does not exist")
		}
	}
	res := ec2types.Reservation{ReservationId: aws.String("r-fake")}
	for _, id := range f.order {
		in2 := f.instances[id]
		if (len(in.InstanceIds) == 0 || slices.Contains(in.InstanceIds, id)) && matches(in.Filters, instanceAttrs(in2)) {
			res.Instances = append(res.Instances, *in2)
		}
	}
	out := &ec2.DescribeInstancesOutput{}
	if len(res.Instances) > 0 {
		out.Reservations = []ec2types.Reservation{res}
	}
	return out, nil
}

// TerminateInstances moves the instances to terminated; an unknown ID fails
// the whole call with InvalidInstanceID.NotFound, as in EC2.
func (f *Fake) TerminateInstances(ctx context.Context, in *ec2.TerminateInstancesInput, _ ...func(*ec2.Options)) (*ec2.TerminateInstancesOutput, error) {
	if err := f.begin(ctx, "TerminateInstances", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range in.InstanceIds {
		if _, ok := f.instances[id]; !ok {
			return nil, apiError("InvalidInstanceID.NotFound", "The instance ID '"+id+"' does not exist")
		}
	}
	out := &ec2.TerminateInstancesOutput{}
	for _, id := range in.InstanceIds {
		inst := f.instances[id]
		prev := *inst.State
		inst.State = &ec2types.InstanceState{Code: aws.Int32(48), Name: ec2types.InstanceStateNameTerminated}
		out.TerminatingInstances = append(out.TerminatingInstances, ec2types.InstanceStateChange{
			InstanceId: aws.String(id), PreviousState: &prev, CurrentState: inst.State,
		})
	}
	return out, nil
}

// CreateTags adds or replaces tags on instances.
func (f *Fake) CreateTags(ctx context.Context, in *ec2.CreateTagsInput, _ ...func(*ec2.Options)) (*ec2.CreateTagsOutput, error) {
	if err := f.begin(ctx, "CreateTags", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range in.Resources {
		inst, ok := f.instances[id]
		if !ok {
			return nil, apiError("InvalidID", "The ID '"+id+"' is not valid")
		}
		for _, t := range in.Tags {
			inst.Tags = slices.DeleteFunc(inst.Tags, func(old ec2types.Tag) bool { return aws.ToString(old.Key) == aws.ToString(t.Key) })
			inst.Tags = append(inst.Tags, t)
		}
	}
	return &ec2.CreateTagsOutput{}, nil
}

// fleetResult is what an instant fleet returned, kept per client token.
type fleetResult struct {
	out *ec2.CreateFleetOutput
}

// CreateFleet emulates an instant fleet of TotalTargetCapacity 1: it tries
// the overrides cheapest first (by OnDemandPrices or SpotPrices; on a tie, in
// request order), reports InsufficientInstanceCapacity for each offering
// marked with InsufficientCapacity, and launches the first other one. A
// repeated client token returns the first answer without launching again.
func (f *Fake) CreateFleet(ctx context.Context, in *ec2.CreateFleetInput, _ ...func(*ec2.Options)) (*ec2.CreateFleetOutput, error) {
	if err := f.begin(ctx, "CreateFleet", in); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	token := aws.ToString(in.ClientToken)
	if r, ok := f.fleetTokens[token]; ok && token != "" {
		return r.out, nil
	}
	if in.Type != ec2types.FleetTypeInstant {
		return nil, apiError("InvalidParameterValue", "the fake supports only instant fleets")
	}
	capacityType := "on-demand"
	lifecycle := ec2types.InstanceLifecycleOnDemand
	if in.TargetCapacitySpecification != nil && in.TargetCapacitySpecification.DefaultTargetCapacityType == ec2types.DefaultTargetCapacityTypeCapacityBlock {
		capacityType = "capacity-block"
	}
	if in.TargetCapacitySpecification != nil && in.TargetCapacitySpecification.DefaultTargetCapacityType == ec2types.DefaultTargetCapacityTypeSpot {
		capacityType, lifecycle = "spot", ec2types.InstanceLifecycleSpot
	}
	type candidate struct {
		lt    ec2types.FleetLaunchTemplateConfigRequest
		ov    ec2types.FleetLaunchTemplateOverridesRequest
		zone  string
		price float64
	}
	var cands []candidate
	for _, cfg := range in.LaunchTemplateConfigs {
		name := aws.ToString(cfg.LaunchTemplateSpecification.LaunchTemplateName)
		if _, ok := f.templates[name]; !ok {
			return nil, apiError("InvalidLaunchTemplateName.NotFoundException", "The specified launch template, with template name "+name+", does not exist.")
		}
		for _, ov := range cfg.Overrides {
			zone := f.subnetZone(aws.ToString(ov.SubnetId))
			cands = append(cands, candidate{lt: cfg, ov: ov, zone: zone, price: f.price(string(ov.InstanceType), zone, capacityType)})
		}
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		switch {
		case a.price < b.price:
			return -1
		case a.price > b.price:
			return 1
		}
		return 0
	})
	out := &ec2.CreateFleetOutput{FleetId: aws.String(f.nextID("fleet"))}
	for _, c := range cands {
		resp := &ec2types.LaunchTemplateAndOverridesResponse{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecification{
				LaunchTemplateName: c.lt.LaunchTemplateSpecification.LaunchTemplateName,
				Version:            c.lt.LaunchTemplateSpecification.Version,
			},
			Overrides: &ec2types.FleetLaunchTemplateOverrides{
				InstanceType: c.ov.InstanceType, SubnetId: c.ov.SubnetId, AvailabilityZone: aws.String(c.zone),
			},
		}
		reservation := f.reservationTarget(c.lt)
		if reservation != "" {
			if code, msg := f.reserve(reservation, string(c.ov.InstanceType), c.zone); code != "" {
				out.Errors = append(out.Errors, ec2types.CreateFleetError{
					ErrorCode: aws.String(code), ErrorMessage: aws.String(msg), LaunchTemplateAndOverrides: resp, Lifecycle: lifecycle,
				})
				continue
			}
		}
		if reservation == "" && f.ice[Offering{InstanceType: string(c.ov.InstanceType), Zone: c.zone, CapacityType: capacityType}] {
			out.Errors = append(out.Errors, ec2types.CreateFleetError{
				ErrorCode:                  aws.String("InsufficientInstanceCapacity"),
				ErrorMessage:               aws.String("We currently do not have sufficient " + string(c.ov.InstanceType) + " capacity in the Availability Zone you requested (" + c.zone + ")."),
				LaunchTemplateAndOverrides: resp,
				Lifecycle:                  lifecycle,
			})
			continue
		}
		id := f.launch(c.lt, c.ov, c.zone, lifecycle, in.TagSpecifications)
		if reservation != "" {
			f.instances[id].CapacityReservationId = aws.String(reservation)
		}
		out.Instances = append(out.Instances, ec2types.CreateFleetInstance{
			InstanceIds: []string{id}, InstanceType: c.ov.InstanceType, LaunchTemplateAndOverrides: resp,
			Lifecycle: lifecycle, SubnetId: c.ov.SubnetId, AvailabilityZone: aws.String(c.zone),
		})
		break
	}
	if token != "" {
		f.fleetTokens[token] = fleetResult{out: out}
	}
	if err := f.lost("CreateFleet"); err != nil {
		return nil, err
	}
	return out, nil
}

// launch creates one running instance from a template and override.
func (f *Fake) launch(cfg ec2types.FleetLaunchTemplateConfigRequest, ov ec2types.FleetLaunchTemplateOverridesRequest, zone string, lifecycle ec2types.InstanceLifecycle, specs []ec2types.TagSpecification) string {
	data := f.templateData[aws.ToString(cfg.LaunchTemplateSpecification.LaunchTemplateName)]
	id := f.nextID("i")
	inst := &ec2types.Instance{
		InstanceId:   aws.String(id),
		InstanceType: ov.InstanceType,
		ImageId:      data.ImageId,
		SubnetId:     ov.SubnetId,
		Placement:    &ec2types.Placement{AvailabilityZone: aws.String(zone)},
		State:        &ec2types.InstanceState{Code: aws.Int32(16), Name: ec2types.InstanceStateNameRunning},
		LaunchTime:   aws.Time(f.now()),
		PrivateDnsName: aws.String("ip-10-0-" + strconv.Itoa(f.seq%256) + "-" + strconv.Itoa(f.seq/256%256) + "." +
			strings.TrimRight(zone, "abcdefghijklmnopqrstuvwxyz") + ".compute.internal"),
	}
	if lifecycle == ec2types.InstanceLifecycleSpot {
		inst.InstanceLifecycle = ec2types.InstanceLifecycleTypeSpot
	}
	for _, sg := range data.SecurityGroupIds {
		inst.SecurityGroups = append(inst.SecurityGroups, ec2types.GroupIdentifier{GroupId: aws.String(sg)})
	}
	for _, ts := range specs {
		if ts.ResourceType == ec2types.ResourceTypeInstance {
			inst.Tags = append(inst.Tags, ts.Tags...)
		}
	}
	f.instances[id] = inst
	f.order = append(f.order, id)
	f.launchedCount++
	return id
}

func (f *Fake) subnetZone(id string) string {
	for _, s := range f.Subnets {
		if aws.ToString(s.SubnetId) == id {
			return aws.ToString(s.AvailabilityZone)
		}
	}
	return ""
}

// price is the fake's own price of an offering, +Inf-like when unknown so
// priced offerings go first.
func (f *Fake) price(instanceType, zone, capacityType string) float64 {
	const unknown = 1e9
	if capacityType == "on-demand" {
		if p, ok := f.OnDemandPrices[instanceType]; ok {
			return p
		}
		return unknown
	}
	for _, sp := range f.SpotPrices {
		if string(sp.InstanceType) == instanceType && aws.ToString(sp.AvailabilityZone) == zone {
			if p, err := strconv.ParseFloat(aws.ToString(sp.SpotPrice), 64); err == nil {
				return p
			}
		}
	}
	return unknown
}
