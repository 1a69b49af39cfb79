package awsfake

import (
	"context"
	"html"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
)

// The EC2 query protocol: a form-encoded request naming its operation in
// Action, answered by an XML <ActionResponse> shaped like the API
// reference's examples.

// ec2Handler serves one EC2 operation: it reads the request's form into the
// SDK input, calls the Fake and renders the content of the response element.
type ec2Handler func(w *Server, ctx context.Context, form url.Values) (string, error)

// ec2Handlers are the EC2 operations the server serves, by Action.
var ec2Handlers = map[string]ec2Handler{
	"DescribeSubnets":               (*Server).describeSubnets,
	"DescribeSecurityGroups":        (*Server).describeSecurityGroups,
	"DescribeImages":                (*Server).describeImages,
	"DescribeInstanceTypes":         (*Server).describeInstanceTypes,
	"DescribeInstanceTypeOfferings": (*Server).describeInstanceTypeOfferings,
	"DescribeSpotPriceHistory":      (*Server).describeSpotPriceHistory,
	"DescribeLaunchTemplates":       (*Server).describeLaunchTemplates,
	"CreateLaunchTemplate":          (*Server).createLaunchTemplate,
	"DeleteLaunchTemplate":          (*Server).deleteLaunchTemplate,
	"CreateFleet":                   (*Server).createFleet,
	"DescribeInstances":             (*Server).describeInstances,
	"TerminateInstances":            (*Server).terminateInstances,
	"CreateTags":                    (*Server).createTags,
	"DescribeCapacityReservations":  (*Server).describeCapacityReservations,
}

// ec2Op serves one EC2 query request from the fake; an operation it does not
// serve fails with InvalidAction, as EC2 answers an unknown one.
func (w *Server) ec2Op(ctx context.Context, op string, form url.Values) (string, error) {
	handle, ok := ec2Handlers[op]
	if !ok {
		return "", &smithy.GenericAPIError{Code: "InvalidAction", Message: "The action " + op + " is not valid for this web service."}
	}
	content, err := handle(w, ctx, form)
	if err != nil {
		return "", err
	}
	return response(op, content), nil
}

func (w *Server) describeSubnets(ctx context.Context, form url.Values) (string, error) {
	out, err := w.fake.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: FormList(form, "SubnetId"), Filters: FormFilters(form)})
	if err != nil {
		return "", err
	}
	return xset("subnetSet", out.Subnets, func(s ec2types.Subnet) []string {
		return []string{x("subnetId", aws.ToString(s.SubnetId)), x("state", "available"), x("vpcId", aws.ToString(s.VpcId)),
			x("cidrBlock", "10.0.1.0/24"), x("availableIpAddressCount", strconv.Itoa(int(aws.ToInt32(s.AvailableIpAddressCount)))),
			x("availabilityZone", aws.ToString(s.AvailabilityZone)), x("availabilityZoneId", aws.ToString(s.AvailabilityZoneId)), xtags(s.Tags)}
	}), nil
}

func (w *Server) describeSecurityGroups(ctx context.Context, form url.Values) (string, error) {
	out, err := w.fake.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: FormList(form, "GroupId"), GroupNames: FormList(form, "GroupName"), Filters: FormFilters(form)})
	if err != nil {
		return "", err
	}
	return xset("securityGroupInfo", out.SecurityGroups, func(g ec2types.SecurityGroup) []string {
		return []string{x("ownerId", "123456789012"), x("groupId", aws.ToString(g.GroupId)), x("groupName", esc(aws.ToString(g.GroupName))),
			x("groupDescription", "nodes"), x("vpcId", aws.ToString(g.VpcId)), xtags(g.Tags)}
	}), nil
}

func (w *Server) describeImages(ctx context.Context, form url.Values) (string, error) {
	out, err := w.fake.DescribeImages(ctx, &ec2.DescribeImagesInput{ImageIds: FormList(form, "ImageId"), Owners: FormList(form, "Owner"), Filters: FormFilters(form)})
	if err != nil {
		return "", err
	}
	return xset("imagesSet", out.Images, func(im ec2types.Image) []string {
		return []string{x("imageId", aws.ToString(im.ImageId)), x("imageLocation", "123456789012/"+esc(aws.ToString(im.Name))),
			x("imageState", string(im.State)), x("imageOwnerId", aws.ToString(im.OwnerId)), x("creationDate", aws.ToString(im.CreationDate)),
			x("isPublic", "false"), x("architecture", string(im.Architecture)), x("imageType", "machine"), x("name", esc(aws.ToString(im.Name))),
			x("rootDeviceType", "ebs"), x("virtualizationType", "hvm"), xtags(im.Tags)}
	}), nil
}

func (w *Server) describeInstanceTypes(ctx context.Context, form url.Values) (string, error) {
	var names []ec2types.InstanceType
	for _, n := range FormList(form, "InstanceType") {
		names = append(names, ec2types.InstanceType(n))
	}
	out, err := w.fake.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{InstanceTypes: names})
	if err != nil {
		return "", err
	}
	return xset("instanceTypeSet", out.InstanceTypes, func(it ec2types.InstanceTypeInfo) []string {
		return []string{x("instanceType", string(it.InstanceType)), x("currentGeneration", "true")}
	}), nil
}

func (w *Server) describeInstanceTypeOfferings(ctx context.Context, form url.Values) (string, error) {
	out, err := w.fake.DescribeInstanceTypeOfferings(ctx, &ec2.DescribeInstanceTypeOfferingsInput{LocationType: ec2types.LocationType(form.Get("LocationType")), Filters: FormFilters(form)})
	if err != nil {
		return "", err
	}
	return xset("instanceTypeOfferingSet", out.InstanceTypeOfferings, func(o ec2types.InstanceTypeOffering) []string {
		return []string{x("instanceType", string(o.InstanceType)), x("locationType", string(o.LocationType)), x("location", aws.ToString(o.Location))}
	}), nil
}

func (w *Server) describeSpotPriceHistory(ctx context.Context, form url.Values) (string, error) {
	out, err := w.fake.DescribeSpotPriceHistory(ctx, &ec2.DescribeSpotPriceHistoryInput{ProductDescriptions: FormList(form, "ProductDescription")})
	if err != nil {
		return "", err
	}
	return xset("spotPriceHistorySet", out.SpotPriceHistory, func(sp ec2types.SpotPrice) []string {
		return []string{x("instanceType", string(sp.InstanceType)), x("productDescription", "Linux/UNIX"), x("spotPrice", aws.ToString(sp.SpotPrice)),
			x("timestamp", aws.ToTime(sp.Timestamp).UTC().Format(time.RFC3339)), x("availabilityZone", aws.ToString(sp.AvailabilityZone))}
	}), nil
}

func (w *Server) describeLaunchTemplates(ctx context.Context, form url.Values) (string, error) {
	out, err := w.fake.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{LaunchTemplateNames: FormList(form, "LaunchTemplateName"), Filters: FormFilters(form)})
	if err != nil {
		return "", err
	}
	return xset("launchTemplates", out.LaunchTemplates, func(lt ec2types.LaunchTemplate) []string { return []string{xtemplate(lt)} }), nil
}

func (w *Server) createLaunchTemplate(ctx context.Context, form url.Values) (string, error) {
	out, err := w.fake.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{
		LaunchTemplateName: aws.String(form.Get("LaunchTemplateName")),
		LaunchTemplateData: &ec2types.RequestLaunchTemplateData{
			ImageId: aws.String(form.Get("LaunchTemplateData.ImageId")), SecurityGroupIds: FormList(form, "LaunchTemplateData.SecurityGroupId"),
			UserData:                         aws.String(form.Get("LaunchTemplateData.UserData")),
			CapacityReservationSpecification: formReservationSpec(form),
		},
		TagSpecifications: FormTagSpecifications(form, "TagSpecification"),
	})
	if err != nil {
		return "", err
	}
	return x("launchTemplate", xtemplate(*out.LaunchTemplate)), nil
}

func (w *Server) deleteLaunchTemplate(ctx context.Context, form url.Values) (string, error) {
	out, err := w.fake.DeleteLaunchTemplate(ctx, &ec2.DeleteLaunchTemplateInput{LaunchTemplateName: aws.String(form.Get("LaunchTemplateName"))})
	if err != nil {
		return "", err
	}
	return x("launchTemplate", xtemplate(*out.LaunchTemplate)), nil
}

func (w *Server) createFleet(ctx context.Context, form url.Values) (string, error) {
	out, err := w.fake.CreateFleet(ctx, formCreateFleet(form))
	if err != nil {
		return "", err
	}
	errs := xset("errorSet", out.Errors, func(e ec2types.CreateFleetError) []string {
		return []string{xlaunchTemplateAndOverrides(e.LaunchTemplateAndOverrides), x("lifecycle", string(e.Lifecycle)),
			x("errorCode", aws.ToString(e.ErrorCode)), x("errorMessage", esc(aws.ToString(e.ErrorMessage)))}
	})
	insts := xset("fleetInstanceSet", out.Instances, func(in ec2types.CreateFleetInstance) []string {
		return []string{xlaunchTemplateAndOverrides(in.LaunchTemplateAndOverrides), x("lifecycle", string(in.Lifecycle)),
			xset("instanceIds", in.InstanceIds, func(id string) []string { return []string{id} }), x("instanceType", string(in.InstanceType)), x("platform", "linux")}
	})
	return x("fleetId", aws.ToString(out.FleetId)) + errs + insts, nil
}

// formCreateFleet reads a CreateFleet request: its launch template configs
// (LaunchTemplateConfigs.N) with their overrides (.Overrides.M).
func formCreateFleet(form url.Values) *ec2.CreateFleetInput {
	in := &ec2.CreateFleetInput{
		ClientToken: aws.String(form.Get("ClientToken")),
		Type:        ec2types.FleetType(form.Get("Type")),
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{
			DefaultTargetCapacityType: ec2types.DefaultTargetCapacityType(form.Get("TargetCapacitySpecification.DefaultTargetCapacityType")),
		},
		TagSpecifications: FormTagSpecifications(form, "TagSpecification"),
	}
	for i := 1; form.Has("LaunchTemplateConfigs." + strconv.Itoa(i) + ".LaunchTemplateSpecification.LaunchTemplateName"); i++ {
		p := "LaunchTemplateConfigs." + strconv.Itoa(i)
		cfg := ec2types.FleetLaunchTemplateConfigRequest{LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{
			LaunchTemplateName: aws.String(form.Get(p + ".LaunchTemplateSpecification.LaunchTemplateName")), Version: aws.String(form.Get(p + ".LaunchTemplateSpecification.Version")),
		}}
		for j := 1; form.Has(p + ".Overrides." + strconv.Itoa(j) + ".InstanceType"); j++ {
			q := p + ".Overrides." + strconv.Itoa(j)
			cfg.Overrides = append(cfg.Overrides, ec2types.FleetLaunchTemplateOverridesRequest{
				InstanceType: ec2types.InstanceType(form.Get(q + ".InstanceType")), SubnetId: aws.String(form.Get(q + ".SubnetId")), AvailabilityZone: aws.String(form.Get(q + ".AvailabilityZone")),
			})
		}
		in.LaunchTemplateConfigs = append(in.LaunchTemplateConfigs, cfg)
	}
	return in
}

func (w *Server) describeInstances(ctx context.Context, form url.Values) (string, error) {
	out, err := w.fake.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: FormList(form, "InstanceId"), Filters: FormFilters(form)})
	if err != nil {
		return "", err
	}
	return xset("reservationSet", out.Reservations, func(res ec2types.Reservation) []string {
		return []string{x("reservationId", "r-1234567890abcdef0"), x("ownerId", "123456789012"), x("groupSet"), xset("instancesSet", res.Instances, xinstance)}
	}), nil
}

func (w *Server) terminateInstances(ctx context.Context, form url.Values) (string, error) {
	out, err := w.fake.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: FormList(form, "InstanceId")})
	if err != nil {
		return "", err
	}
	return xset("instancesSet", out.TerminatingInstances, func(c ec2types.InstanceStateChange) []string {
		return []string{x("instanceId", aws.ToString(c.InstanceId)), x("currentState", xstate(c.CurrentState)), x("previousState", xstate(c.PreviousState))}
	}), nil
}

func (w *Server) createTags(ctx context.Context, form url.Values) (string, error) {
	if _, err := w.fake.CreateTags(ctx, &ec2.CreateTagsInput{Resources: FormList(form, "ResourceId"), Tags: formTags(form, "Tag")}); err != nil {
		return "", err
	}
	return x("return", "true"), nil
}

// --- reading the request's form ---

// FormList reads an EC2 query list: prefix.1, prefix.2, ...
func FormList(form url.Values, prefix string) []string {
	var out []string
	for i := 1; form.Has(prefix + "." + strconv.Itoa(i)); i++ {
		out = append(out, form.Get(prefix+"."+strconv.Itoa(i)))
	}
	return out
}

// FormFilters reads an EC2 request's Filter.N.Name and Filter.N.Value.M.
func FormFilters(form url.Values) []ec2types.Filter {
	var out []ec2types.Filter
	for i := 1; form.Has("Filter." + strconv.Itoa(i) + ".Name"); i++ {
		p := "Filter." + strconv.Itoa(i)
		out = append(out, ec2types.Filter{Name: aws.String(form.Get(p + ".Name")), Values: FormList(form, p+".Value")})
	}
	return out
}

func formTags(form url.Values, prefix string) []ec2types.Tag {
	var out []ec2types.Tag
	for i := 1; form.Has(prefix + "." + strconv.Itoa(i) + ".Key"); i++ {
		p := prefix + "." + strconv.Itoa(i)
		out = append(out, ec2types.Tag{Key: aws.String(form.Get(p + ".Key")), Value: aws.String(form.Get(p + ".Value"))})
	}
	return out
}

// FormTagSpecifications reads prefix.N.ResourceType and prefix.N.Tag.M.
func FormTagSpecifications(form url.Values, prefix string) []ec2types.TagSpecification {
	var out []ec2types.TagSpecification
	for i := 1; form.Has(prefix + "." + strconv.Itoa(i) + ".ResourceType"); i++ {
		p := prefix + "." + strconv.Itoa(i)
		out = append(out, ec2types.TagSpecification{ResourceType: ec2types.ResourceType(form.Get(p + ".ResourceType")), Tags: formTags(form, p+".Tag")})
	}
	return out
}

// --- rendering the response ---

// x renders <tag>content</tag>; text content is escaped by the caller (esc).
func x(tag string, content ...string) string {
	return "<" + tag + ">" + strings.Join(content, "") + "</" + tag + ">"
}

func esc(s string) string { return html.EscapeString(s) }

// xset renders an EC2 list: <tag> holding one <item> per element of list,
// whose content item renders.
func xset[T any](tag string, list []T, item func(T) []string) string {
	items := make([]string, 0, len(list))
	for _, v := range list {
		items = append(items, x("item", item(v)...))
	}
	return x(tag, items...)
}

func xtags(tags []ec2types.Tag) string {
	return xset("tagSet", tags, func(tg ec2types.Tag) []string {
		return []string{x("key", esc(aws.ToString(tg.Key))), x("value", esc(aws.ToString(tg.Value)))}
	})
}

func response(op string, content ...string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<` + op + `Response xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">` +
		x("requestId", "59dbff89-35bd-4eac-99ed-be587EXAMPLE") + strings.Join(content, "") + `</` + op + `Response>`
}

func xtemplate(lt ec2types.LaunchTemplate) string {
	return x("launchTemplateId", aws.ToString(lt.LaunchTemplateId)) + x("launchTemplateName", esc(aws.ToString(lt.LaunchTemplateName))) +
		x("createTime", aws.ToTime(lt.CreateTime).UTC().Format(time.RFC3339)) + x("createdBy", "arn:aws:iam::123456789012:role/tenon") +
		x("defaultVersionNumber", "1") + x("latestVersionNumber", "1") + xtags(lt.Tags)
}

func xlaunchTemplateAndOverrides(lto *ec2types.LaunchTemplateAndOverridesResponse) string {
	return x("launchTemplateAndOverrides",
		x("launchTemplateSpecification", x("launchTemplateName", esc(aws.ToString(lto.LaunchTemplateSpecification.LaunchTemplateName))), x("version", esc(aws.ToString(lto.LaunchTemplateSpecification.Version)))),
		x("overrides", x("instanceType", string(lto.Overrides.InstanceType)), x("subnetId", aws.ToString(lto.Overrides.SubnetId)), x("availabilityZone", aws.ToString(lto.Overrides.AvailabilityZone))))
}

func xstate(s *ec2types.InstanceState) string {
	return x("code", strconv.Itoa(int(aws.ToInt32(s.Code)))) + x("name", string(s.Name))
}

// xinstance renders the content of an instancesSet item.
func xinstance(in ec2types.Instance) []string {
	lifecycle := ""
	if in.InstanceLifecycle != "" {
		lifecycle = x("instanceLifecycle", string(in.InstanceLifecycle))
	}
	groups := xset("groupSet", in.SecurityGroups, func(g ec2types.GroupIdentifier) []string {
		return []string{x("groupId", aws.ToString(g.GroupId)), x("groupName", "eks-node")}
	})
	return []string{x("instanceId", aws.ToString(in.InstanceId)), x("imageId", aws.ToString(in.ImageId)), x("instanceState", xstate(in.State)),
		x("privateDnsName", aws.ToString(in.PrivateDnsName)), x("instanceType", string(in.InstanceType)),
		x("launchTime", aws.ToTime(in.LaunchTime).UTC().Format(time.RFC3339)), x("placement", x("availabilityZone", aws.ToString(in.Placement.AvailabilityZone)), x("tenancy", "default")),
		x("subnetId", aws.ToString(in.SubnetId)), x("vpcId", "vpc-1"), groups, lifecycle, xreservation(in.CapacityReservationId), xtags(in.Tags)}
}

// xreservation renders an instance's capacity reservation, "" for none.
func xreservation(id *string) string {
	if id == nil {
		return ""
	}
	return x("capacityReservationId", aws.ToString(id))
}

// formReservationSpec reads a launch template's capacity reservation
// target, nil when it has none.
func formReservationSpec(form url.Values) *ec2types.LaunchTemplateCapacityReservationSpecificationRequest {
	id := form.Get("LaunchTemplateData.CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId")
	if id == "" {
		return nil
	}
	return &ec2types.LaunchTemplateCapacityReservationSpecificationRequest{
		CapacityReservationTarget: &ec2types.CapacityReservationTarget{CapacityReservationId: aws.String(id)},
	}
}

func (w *Server) describeCapacityReservations(ctx context.Context, form url.Values) (string, error) {
	out, err := w.fake.DescribeCapacityReservations(ctx, &ec2.DescribeCapacityReservationsInput{
		CapacityReservationIds: FormList(form, "CapacityReservationId"), Filters: FormFilters(form),
	})
	if err != nil {
		return "", err
	}
	return xset("capacityReservationSet", out.CapacityReservations, func(cr ec2types.CapacityReservation) []string {
		fields := []string{x("capacityReservationId", aws.ToString(cr.CapacityReservationId)), x("ownerId", aws.ToString(cr.OwnerId)),
			x("instanceType", aws.ToString(cr.InstanceType)), x("availabilityZone", aws.ToString(cr.AvailabilityZone)),
			x("availableInstanceCount", strconv.Itoa(int(aws.ToInt32(cr.AvailableInstanceCount)))),
			x("totalInstanceCount", strconv.Itoa(int(aws.ToInt32(cr.TotalInstanceCount)))), x("state", string(cr.State)),
			x("instanceMatchCriteria", string(cr.InstanceMatchCriteria)), x("reservationType", string(cr.ReservationType)), xtags(cr.Tags)}
		if cr.EndDate != nil {
			fields = append(fields, x("endDate", cr.EndDate.UTC().Format(time.RFC3339)))
		}
		return fields
	}), nil
}
