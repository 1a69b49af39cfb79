package aws

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/aws/awsfake"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

var (
	spotOrOnDemand = req(scheduling.LabelCapacityType, corev1.NodeSelectorOpIn, "spot", "on-demand")
	onDemandOnly   = req(scheduling.LabelCapacityType, corev1.NodeSelectorOpIn, "on-demand")
	amd64          = req(scheduling.LabelArch, corev1.NodeSelectorOpIn, "amd64")
)

func fleetInputs(f *awsfake.Fake) []*ec2.CreateFleetInput {
	var out []*ec2.CreateFleetInput
	for _, c := range f.Calls("CreateFleet") {
		out = append(out, c.Input.(*ec2.CreateFleetInput))
	}
	return out
}

type override struct{ typ, subnet string }

func overrides(in *ec2.CreateFleetInput) []override {
	var out []override
	for _, cfg := range in.LaunchTemplateConfigs {
		for _, ov := range cfg.Overrides {
			out = append(out, override{string(ov.InstanceType), aws.ToString(ov.SubnetId)})
		}
	}
	return out
}

func tagMap(tags []ec2types.Tag) map[string]string {
	m := map[string]string{}
	for _, t := range tags {
		m[aws.ToString(t.Key)] = aws.ToString(t.Value)
	}
	return m
}

func TestCreateSpotFleet(t *testing.T) {
	e := newEnv(t)
	e.classes.put(nodeClass("default", func(s *v1.AWSNodeClassSpec) { s.Tags = v1.Tags{"team": "web", "Name": "web-node"} }))
	c := claim("general-abc", spotOrOnDemand, amd64, req(scheduling.LabelInstanceType, corev1.NodeSelectorOpIn, "m5.large", "c5.large", "m6g.large"))
	c.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule}}
	got, err := e.p.Create(t.Context(), c)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	fleets := fleetInputs(e.fake)
	if len(fleets) != 1 {
		t.Fatalf("CreateFleet calls = %d, want 1", len(fleets))
	}
	in := fleets[0]
	if in.Type != ec2types.FleetTypeInstant || aws.ToInt32(in.TargetCapacitySpecification.TotalTargetCapacity) != 1 ||
		in.TargetCapacitySpecification.DefaultTargetCapacityType != ec2types.DefaultTargetCapacityTypeSpot {
		t.Errorf("fleet type %s capacity %+v, want instant, 1, spot", in.Type, in.TargetCapacitySpecification)
	}
	if in.SpotOptions == nil || in.SpotOptions.AllocationStrategy != ec2types.SpotAllocationStrategyPriceCapacityOptimized || in.OnDemandOptions != nil {
		t.Errorf("spot options %+v on-demand options %+v, want price-capacity-optimized only", in.SpotOptions, in.OnDemandOptions)
	}
	// c5.large and m5.large (amd64 only) in three zones, cheapest first; zone
	// a uses subnet-a2, which has more free addresses.
	c5, m5 := spotPrice(e.fake, "c5.large"), spotPrice(e.fake, "m5.large")
	first, second := "c5.large", "m5.large"
	if m5 < c5 {
		first, second = second, first
	}
	want := []override{{first, "subnet-c"}, {first, "subnet-b"}, {first, "subnet-a2"}, {second, "subnet-c"}, {second, "subnet-b"}, {second, "subnet-a2"}}
	if got := overrides(in); !slices.Equal(got, want) {
		t.Errorf("overrides = %v, want %v", got, want)
	}
	if tok := aws.ToString(in.ClientToken); !strings.HasPrefix(tok, "tenon-") || len(tok) > 64 {
		t.Errorf("client token %q, want tenon-<hash> of at most 64 characters", tok)
	}
	var instTags map[string]string
	for _, ts := range in.TagSpecifications {
		if ts.ResourceType == ec2types.ResourceTypeInstance {
			instTags = tagMap(ts.Tags)
		}
	}
	wantTags := map[string]string{TagCluster: testCluster, TagNodePool: "general", TagNodeClaim: "general-abc", "Name": "web-node", "team": "web", "kubernetes.io/cluster/prod": "owned"}
	if fmt.Sprint(instTags) != fmt.Sprint(wantTags) {
		t.Errorf("instance tags = %v, want %v", instTags, wantTags)
	}
	// The status names the launched offering (the fake launches the cheapest).
	if got.Status.InstanceType != first || got.Status.Zone != "us-east-1c" || got.Status.CapacityType != "spot" ||
		got.Status.ImageID != "ami-al2023-amd64" || !strings.HasPrefix(got.Status.ProviderID, "aws:///us-east-1c/i-") {
		t.Errorf("status = %+v", got.Status)
	}
	if got.Status.Allocatable.Cpu().IsZero() || got.Labels[scheduling.LabelInstanceType] != first {
		t.Errorf("allocatable %v labels %v, want the type's", got.Status.Allocatable, got.Labels)
	}
	if c.Status.ProviderID != "" {
		t.Error("Create changed its argument")
	}
	// The launch template bootstraps the node with the pool's labels and taints.
	lts := e.fake.LaunchTemplates()
	if len(lts) != 1 {
		t.Fatalf("launch templates = %d, want 1", len(lts))
	}
	for name, data := range lts {
		if !strings.HasPrefix(name, "tenon/prod/") || aws.ToString(data.ImageId) != "ami-al2023-amd64" ||
			aws.ToString(data.IamInstanceProfile.Name) != defaultProfile || !slices.Equal(data.SecurityGroupIds, []string{"sg-node"}) {
			t.Errorf("launch template %s = %+v", name, data)
		}
		ud, _ := base64.StdEncoding.DecodeString(aws.ToString(data.UserData))
		for _, want := range []string{"--node-labels=example.com/team=web,karpenter.sh/capacity-type=spot,karpenter.sh/nodepool=general,tenon.dev/capacity-type=spot,tenon.dev/nodepool=general", "--register-with-taints=dedicated=web:NoSchedule", "apiServerEndpoint: https://ABC"} {
			if !strings.Contains(string(ud), want) {
				t.Errorf("user data lacks %q:\n%s", want, ud)
			}
		}
		if data.MetadataOptions.HttpTokens != ec2types.LaunchTemplateHttpTokensStateRequired || aws.ToInt32(data.MetadataOptions.HttpPutResponseHopLimit) != 1 {
			t.Errorf("metadata options = %+v, want IMDSv2 with hop limit 1", data.MetadataOptions)
		}
	}
}

func spotPrice(f *awsfake.Fake, name string) string {
	for _, sp := range f.SpotPrices {
		if string(sp.InstanceType) == name {
			return aws.ToString(sp.SpotPrice)
		}
	}
	return ""
}

func TestCreateOnDemandFleet(t *testing.T) {
	e := newEnv(t)
	got, err := e.p.Create(t.Context(), claim("od", onDemandOnly, req(scheduling.LabelInstanceType, corev1.NodeSelectorOpIn, "m5.large")))
	if err != nil {
		t.Fatal(err)
	}
	in := fleetInputs(e.fake)[0]
	if in.TargetCapacitySpecification.DefaultTargetCapacityType != ec2types.DefaultTargetCapacityTypeOnDemand ||
		in.OnDemandOptions == nil || in.OnDemandOptions.AllocationStrategy != ec2types.FleetOnDemandAllocationStrategyLowestPrice || in.SpotOptions != nil {
		t.Errorf("fleet = %+v %+v %+v, want on-demand lowest-price", in.TargetCapacitySpecification, in.OnDemandOptions, in.SpotOptions)
	}
	if got.Status.CapacityType != "on-demand" {
		t.Errorf("capacity type = %s", got.Status.CapacityType)
	}
}

func TestCreateGroupsOverridesByAMI(t *testing.T) {
	e := newEnv(t)
	_, err := e.p.Create(t.Context(), claim("mixed", onDemandOnly, req(scheduling.LabelInstanceType, corev1.NodeSelectorOpIn, "m5.large", "m6g.large", "g4dn.xlarge")))
	if err != nil {
		t.Fatal(err)
	}
	in := fleetInputs(e.fake)[0]
	images := map[string][]string{}
	lts := e.fake.LaunchTemplates()
	for _, cfg := range in.LaunchTemplateConfigs {
		ami := aws.ToString(lts[aws.ToString(cfg.LaunchTemplateSpecification.LaunchTemplateName)].ImageId)
		for _, ov := range cfg.Overrides {
			images[ami] = append(images[ami], string(ov.InstanceType))
		}
	}
	want := map[string][]string{
		"ami-al2023-amd64":  {"m5.large", "m5.large", "m5.large"},
		"ami-al2023-arm64":  {"m6g.large", "m6g.large", "m6g.large"},
		"ami-al2023-nvidia": {"g4dn.xlarge", "g4dn.xlarge"},
	}
	for ami, types := range want {
		if !slices.Equal(images[ami], types) {
			t.Errorf("%s serves %v, want %v", ami, images[ami], types)
		}
	}
}

func TestCreateIsIdempotentPerClaim(t *testing.T) {
	e := newEnv(t)
	c := claim("once", spotOrOnDemand)
	first, err := e.p.Create(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	// A restarted agent (a new provider) creating the same claim again.
	e2 := newEnv(t, func(o *Options) { o.EC2, o.SSM, o.Pricing, o.SQS = e.fake, e.fake, e.fake, e.fake })
	again, err := e2.p.Create(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if e.fake.Launched() != 1 || len(fleetInputs(e.fake)) != 1 || again.Status.ProviderID != first.Status.ProviderID {
		t.Errorf("launched %d with %d fleets, provider IDs %s and %s; want one instance", e.fake.Launched(), len(fleetInputs(e.fake)), first.Status.ProviderID, again.Status.ProviderID)
	}
}

func TestClientTokenIsStableAcrossRestarts(t *testing.T) {
	e := newEnv(t)
	c := claim("tok", spotOrOnDemand)
	// The fleet fails (nothing launched); a restarted agent retries the
	// same claim over the same options.
	e.fake.NextError("CreateFleet", &smithy.GenericAPIError{Code: "InternalError", Message: "We encountered an internal error.", Fault: smithy.FaultServer})
	if _, err := e.p.Create(t.Context(), c); err == nil {
		t.Fatal("Create succeeded through an InternalError")
	}
	e2 := newEnv(t, func(o *Options) { o.EC2, o.SSM, o.Pricing, o.SQS = e.fake, e.fake, e.fake, e.fake })
	if _, err := e2.p.Create(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	fleets := fleetInputs(e.fake)
	if len(fleets) != 2 || aws.ToString(fleets[0].ClientToken) != aws.ToString(fleets[1].ClientToken) {
		t.Fatalf("tokens of %d fleets differ; want the same token after a restart", len(fleets))
	}
	// Another claim gets another token.
	if _, err := e2.p.Create(t.Context(), claim("tok2", spotOrOnDemand)); err != nil {
		t.Fatal(err)
	}
	if fleets = fleetInputs(e.fake); aws.ToString(fleets[2].ClientToken) == aws.ToString(fleets[1].ClientToken) {
		t.Error("two claims share a client token")
	}
}

func TestLostFleetResponseLaunchesOnce(t *testing.T) {
	e := newEnv(t)
	c := claim("lost", spotOrOnDemand)
	e.fake.LoseNextResponse("CreateFleet")
	if _, err := e.p.Create(t.Context(), c); err == nil {
		t.Fatal("Create succeeded through a lost response")
	}
	// The retry (same provider, or a restarted one) finds the instance by
	// its claim tag instead of launching another.
	e2 := newEnv(t, func(o *Options) { o.EC2, o.SSM, o.Pricing, o.SQS = e.fake, e.fake, e.fake, e.fake })
	got, err := e2.p.Create(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	if e.fake.Launched() != 1 || got.Status.ProviderID == "" {
		t.Fatalf("launched %d, status %+v; want the one instance", e.fake.Launched(), got.Status)
	}
}

func TestCreateICEFallsBackToTheNextOffering(t *testing.T) {
	e := newEnv(t)
	only := req(scheduling.LabelInstanceType, corev1.NodeSelectorOpIn, "m5.large")
	// The cheapest spot offering of m5.large is zone c.
	cheapest := awsfake.Offering{InstanceType: "m5.large", Zone: "us-east-1c", CapacityType: "spot"}
	e.fake.InsufficientCapacity(cheapest, true)
	got, err := e.p.Create(t.Context(), claim("ice", spotOrOnDemand, only))
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Zone != "us-east-1b" || got.Status.CapacityType != "spot" {
		t.Errorf("launched in %s %s, want the next cheapest, us-east-1b spot", got.Status.Zone, got.Status.CapacityType)
	}
	// The offering is now skipped: the next claim's fleet leaves it out, and
	// InstanceTypes reports it unavailable, for three minutes.
	if _, err := e.p.Create(t.Context(), claim("ice2", spotOrOnDemand, only)); err != nil {
		t.Fatal(err)
	}
	if ovs := overrides(fleetInputs(e.fake)[1]); slices.Contains(ovs, override{"m5.large", "subnet-c"}) {
		t.Errorf("second fleet still asks for the offering without capacity: %v", ovs)
	}
	if available(t, e, cheapest) {
		t.Error("InstanceTypes reports the offering without capacity as available")
	}
	e.clock.Step(DefaultUnavailableFor)
	if !available(t, e, cheapest) {
		t.Error("offering still unavailable after 3 minutes")
	}
}

func available(t *testing.T, e *env, o awsfake.Offering) bool {
	t.Helper()
	types, err := e.p.InstanceTypes(t.Context(), &state.Pool{Name: "general", NodeClass: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range types {
		if it.Name != o.InstanceType {
			continue
		}
		for _, off := range it.Offerings {
			if off.Zone == o.Zone && off.CapacityType == o.CapacityType {
				return off.Available
			}
		}
	}
	t.Fatalf("no offering %v", o)
	return false
}

func TestCreateSpotFallsBackToOnDemand(t *testing.T) {
	e := newEnv(t)
	for _, z := range []string{"us-east-1a", "us-east-1b", "us-east-1c"} {
		e.fake.InsufficientCapacity(awsfake.Offering{InstanceType: "m5.large", Zone: z, CapacityType: "spot"}, true)
	}
	only := req(scheduling.LabelInstanceType, corev1.NodeSelectorOpIn, "m5.large")
	got, err := e.p.Create(t.Context(), claim("fallback", spotOrOnDemand, only))
	if err != nil {
		t.Fatal(err)
	}
	fleets := fleetInputs(e.fake)
	if len(fleets) != 2 || fleets[1].TargetCapacitySpecification.DefaultTargetCapacityType != ec2types.DefaultTargetCapacityTypeOnDemand || got.Status.CapacityType != "on-demand" {
		t.Fatalf("%d fleets, launched %s; want spot then on-demand", len(fleets), got.Status.CapacityType)
	}
	// A spot-only claim gets InsufficientCapacity with every offering tried.
	_, err = e.p.Create(t.Context(), claim("spot-only", req(scheduling.LabelCapacityType, corev1.NodeSelectorOpIn, "spot"), only))
	var ice *cloud.InsufficientCapacityError
	if !errors.As(err, &ice) {
		t.Fatalf("error = %v, want InsufficientCapacityError", err)
	}
	// The offerings are already marked, so no fleet is even tried.
	if len(fleetInputs(e.fake)) != 2 {
		t.Errorf("a fleet was requested for offerings known to have no capacity")
	}
}

func TestCreateErrors(t *testing.T) {
	e := newEnv(t)
	// A fleet error that is not about capacity is returned as is.
	e.fake.NextError("CreateFleet", &smithy.GenericAPIError{Code: "UnauthorizedOperation", Message: "You are not authorized"})
	_, err := e.p.Create(t.Context(), claim("denied", spotOrOnDemand))
	if err == nil || cloud.IsInsufficientCapacity(err) || !strings.Contains(err.Error(), "UnauthorizedOperation") {
		t.Errorf("error = %v, want the UnauthorizedOperation", err)
	}
	// No type fits the requests.
	big := claim("big", spotOrOnDemand)
	big.Spec.Resources.Requests[corev1.ResourceCPU] = resource.MustParse("500")
	if _, err := e.p.Create(t.Context(), big); !cloud.IsInsufficientCapacity(err) {
		t.Errorf("error = %v, want InsufficientCapacity for an unfittable claim", err)
	}
	// A NodeClass that is not ready.
	e.classes.put(nodeClass("default", func(s *v1.AWSNodeClassSpec) { s.SubnetSelectorTerms = []v1.SubnetSelectorTerm{{ID: "subnet-gone"}} }))
	e.fake.Subnets = e.fake.Subnets[:4]
	if _, err := e.p.Create(t.Context(), claim("nr", spotOrOnDemand)); !cloud.IsNodeClassNotReady(err) {
		t.Errorf("error = %v, want NodeClassNotReady", err)
	}
}

func TestCreateCapsOverridesAtSixty(t *testing.T) {
	e := newEnv(t)
	cat, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	// 40 more amd64 types without GPUs, in three zones: 120+ options.
	added := 0
	for _, it := range cat.InstanceTypes() {
		if added == 40 || slices.Contains(awsfake.WorldTypes, it.Name) || !it.Requirements.Get(scheduling.LabelArch).Has("amd64") ||
			!it.Requirements.Get(scheduling.LabelInstanceGPUCount).Has("0") || len(it.Offerings) == 0 {
			continue
		}
		added++
		e.fake.InstanceTypes = append(e.fake.InstanceTypes, ec2types.InstanceTypeInfo{InstanceType: ec2types.InstanceType(it.Name)})
		for _, z := range []string{"us-east-1a", "us-east-1b", "us-east-1c"} {
			e.fake.Offerings = append(e.fake.Offerings, ec2types.InstanceTypeOffering{InstanceType: ec2types.InstanceType(it.Name), Location: aws.String(z), LocationType: ec2types.LocationTypeAvailabilityZone})
		}
		e.fake.OnDemandPrices[it.Name] = it.Offerings[0].PricePerHour
	}
	if _, err := e.p.Create(t.Context(), claim("many", onDemandOnly, amd64, req(scheduling.LabelInstanceGPUCount, corev1.NodeSelectorOpIn, "0"))); err != nil {
		t.Fatal(err)
	}
	ovs := overrides(fleetInputs(e.fake)[0])
	if len(ovs) != MaxOverrides {
		t.Fatalf("overrides = %d, want %d", len(ovs), MaxOverrides)
	}
	// They are the cheapest 60, in price order.
	maxIncluded := 0.0
	for _, ov := range ovs {
		p := e.fake.OnDemandPrices[ov.typ]
		if p < maxIncluded {
			t.Fatalf("overrides not in price order at %v", ov)
		}
		maxIncluded = p
	}
	for name, p := range e.fake.OnDemandPrices {
		if p < maxIncluded && !slices.ContainsFunc(ovs, func(o override) bool { return o.typ == name }) && name != "g4dn.xlarge" && name != "m6g.large" {
			t.Errorf("%s ($%v) is cheaper than an included override ($%v) but left out", name, p, maxIncluded)
		}
	}
}
