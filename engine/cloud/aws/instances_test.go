package aws

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

func TestParseProviderID(t *testing.T) {
	cases := []struct {
		in, zone, id string
		ok           bool
	}{
		{"aws:///us-east-1a/i-0123", "us-east-1a", "i-0123", true},
		{"aws:///us-east-1a/", "", "", false},
		{"kwok://x", "", "", false},
		{"aws:///us-east-1a/i-1/extra", "", "", false},
		{"aws://us-east-1a/i-1", "", "", false},
	}
	for _, tc := range cases {
		zone, id, err := ParseProviderID(tc.in)
		if (err == nil) != tc.ok || zone != tc.zone || id != tc.id {
			t.Errorf("ParseProviderID(%q) = %q, %q, %v", tc.in, zone, id, err)
		}
	}
}

func TestGetListDelete(t *testing.T) {
	e := newEnv(t)
	a, err := e.p.Create(t.Context(), claim("a", spotOrOnDemand))
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.p.Create(t.Context(), claim("b", onDemandOnly))
	if err != nil {
		t.Fatal(err)
	}
	// An instance of another cluster is never seen.
	e.fake.AddInstance(ec2types.Instance{InstanceId: aws.String("i-other"), State: &ec2types.InstanceState{Name: ec2types.InstanceStateNameRunning},
		Placement: &ec2types.Placement{AvailabilityZone: aws.String("us-east-1a")}, Tags: []ec2types.Tag{{Key: aws.String(TagCluster), Value: aws.String("staging")}}})

	got, err := e.p.Get(t.Context(), a.Status.ProviderID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "a" || got.Status.InstanceType != a.Status.InstanceType || got.Status.CapacityType != "spot" ||
		got.Labels[scheduling.LabelNodePool] != "general" || got.Status.Allocatable.Cpu().IsZero() {
		t.Errorf("Get = %+v %+v", got.ObjectMeta, got.Status)
	}
	list, err := e.p.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range list {
		names = append(names, c.Name)
	}
	if !slices.Equal(names, []string{"a", "b"}) {
		t.Errorf("List = %v, want [a b]", names)
	}
	in := e.fake.Calls("DescribeInstances")
	last := in[len(in)-1].Input.(*ec2.DescribeInstancesInput)
	if !hasFilter(last.Filters, "tag:"+TagCluster, testCluster) {
		t.Errorf("List filters = %+v, want tag:%s=%s", last.Filters, TagCluster, testCluster)
	}

	if err := e.p.Delete(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	if err := e.p.Delete(t.Context(), b); !cloud.IsNotFound(err) {
		t.Errorf("second Delete = %v, want NotFound", err)
	}
	if _, err := e.p.Get(t.Context(), b.Status.ProviderID); !cloud.IsNotFound(err) {
		t.Errorf("Get of a terminated instance = %v, want NotFound", err)
	}
	if _, err := e.p.Get(t.Context(), "aws:///us-east-1a/i-nope"); !cloud.IsNotFound(err) {
		t.Errorf("Get of an unknown instance = %v, want NotFound", err)
	}
	if _, err := e.p.Get(t.Context(), "aws:///us-east-1a/i-other"); !cloud.IsNotFound(err) {
		t.Errorf("Get of another cluster's instance = %v, want NotFound", err)
	}
	// Delete of a claim whose status was never written finds the instance
	// by its claim tag.
	if err := e.p.Delete(t.Context(), claim("a")); err != nil {
		t.Errorf("Delete by claim name: %v", err)
	}
	if err := e.p.Delete(t.Context(), claim("never")); !cloud.IsNotFound(err) {
		t.Errorf("Delete of a claim without instance = %v, want NotFound", err)
	}
}

func hasFilter(filters []ec2types.Filter, name, value string) bool {
	return slices.ContainsFunc(filters, func(f ec2types.Filter) bool {
		return aws.ToString(f.Name) == name && slices.Contains(f.Values, value)
	})
}

func TestIsDrifted(t *testing.T) {
	cases := []struct {
		name   string
		change func(e *env)
		want   cloud.DriftReason
	}{
		{name: "unchanged", change: func(*env) {}},
		{name: "new AMI", want: cloud.DriftImage, change: func(e *env) {
			e.fake.Parameters["/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"] = "ami-next"
		}},
		{name: "subnet no longer selected", want: cloud.DriftSubnet, change: func(e *env) {
			e.classes.put(nodeClass("default", func(s *v1.AWSNodeClassSpec) { s.SubnetSelectorTerms = []v1.SubnetSelectorTerm{{ID: "subnet-b"}} }))
		}},
		{name: "security groups changed", want: cloud.DriftSecurityGroup, change: func(e *env) {
			e.classes.put(nodeClass("default", func(s *v1.AWSNodeClassSpec) {
				s.SecurityGroupSelectorTerms = []v1.SecurityGroupSelectorTerm{{ID: "sg-node"}, {ID: "sg-other"}}
			}))
		}},
		{name: "class not ready gives no verdict", change: func(e *env) {
			e.classes.put(nodeClass("default", func(s *v1.AWSNodeClassSpec) { s.SubnetSelectorTerms = []v1.SubnetSelectorTerm{{ID: "subnet-zzz"}} }))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			c, err := e.p.Create(t.Context(), claim("d", spotOrOnDemand, amd64, req(scheduling.LabelInstanceType, "In", "m5.large"),
				req(scheduling.LabelTopologyZone, "In", "us-east-1c")))
			if err != nil {
				t.Fatal(err)
			}
			tc.change(e)
			e.p.Invalidate("default")
			got, err := e.p.IsDrifted(t.Context(), c)
			if err != nil || got != tc.want {
				t.Errorf("IsDrifted = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestCollectOrphans(t *testing.T) {
	e := newEnv(t)
	tracked, err := e.p.Create(t.Context(), claim("tracked", spotOrOnDemand))
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := e.p.Create(t.Context(), claim("orphan", spotOrOnDemand))
	if err != nil {
		t.Fatal(err)
	}
	e.fake.AddInstance(ec2types.Instance{InstanceId: aws.String("i-untagged"), State: &ec2types.InstanceState{Name: ec2types.InstanceStateNameRunning},
		LaunchTime: aws.Time(e.clock.Now()), Placement: &ec2types.Placement{AvailabilityZone: aws.String("us-east-1a")},
		Tags: []ec2types.Tag{{Key: aws.String(TagCluster), Value: aws.String(testCluster)}}})
	known := func(name string) bool { return name == "tracked" }
	// Within the grace period nothing is collected.
	e.clock.Step(time.Minute)
	got, err := e.p.CollectOrphans(t.Context(), known, 5*time.Minute)
	if err != nil || len(got) != 0 {
		t.Fatalf("CollectOrphans within grace = %v, %v; want nothing", got, err)
	}
	e.clock.Step(5 * time.Minute)
	got, err = e.p.CollectOrphans(t.Context(), known, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, orphanID, _ := ParseProviderID(orphan.Status.ProviderID)
	if want := []string{orphanID, "i-untagged"}; !slices.Equal(got, want) {
		t.Errorf("CollectOrphans = %v, want %v", got, want)
	}
	if _, err := e.p.Get(t.Context(), tracked.Status.ProviderID); err != nil {
		t.Errorf("tracked instance: %v", err)
	}
	if _, err := e.p.Get(t.Context(), orphan.Status.ProviderID); !cloud.IsNotFound(err) {
		t.Errorf("orphan after collection: %v, want NotFound", err)
	}
}

func TestTagRegistered(t *testing.T) {
	e := newEnv(t)
	c, err := e.p.Create(t.Context(), claim("tagme", spotOrOnDemand))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.p.TagRegistered(t.Context(), c.Status.ProviderID, "ip-10-0-1-1.ec2.internal"); err != nil {
		t.Fatal(err)
	}
	inst := e.fake.Instances()[0]
	if tagValue(inst.Tags, TagNode) != "ip-10-0-1-1.ec2.internal" || tagValue(inst.Tags, TagName) != "ip-10-0-1-1.ec2.internal" || tagValue(inst.Tags, TagNodeClaim) != "tagme" {
		t.Errorf("tags = %v", tagMap(inst.Tags))
	}
	if err := e.p.TagRegistered(t.Context(), "aws:///us-east-1a/i-gone", "x"); !cloud.IsNotFound(err) {
		t.Errorf("TagRegistered of a missing instance = %v, want NotFound", err)
	}
	if err := e.p.TagRegistered(t.Context(), "bogus", "x"); err == nil || !strings.Contains(err.Error(), "aws:///") {
		t.Errorf("TagRegistered of a bad provider ID = %v", err)
	}
}

func TestLaunchTemplatesAreSharedAndCollected(t *testing.T) {
	e := newEnv(t)
	only := req(scheduling.LabelInstanceType, "In", "m5.large")
	for _, name := range []string{"one", "two"} {
		if _, err := e.p.Create(t.Context(), claim(name, onDemandOnly, only)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(e.fake.LaunchTemplates()); n != 1 || len(e.fake.Calls("CreateLaunchTemplate")) != 1 {
		t.Fatalf("launch templates = %d after two claims of one pool, want 1", n)
	}
	// Other taints make another template.
	tainted := claim("three", onDemandOnly, only)
	tainted.Spec.Taints = []v1.Taint{{Key: "gpu", Effect: "NoSchedule"}}
	if _, err := e.p.Create(t.Context(), tainted); err != nil {
		t.Fatal(err)
	}
	if n := len(e.fake.LaunchTemplates()); n != 2 {
		t.Fatalf("launch templates = %d, want 2", n)
	}
	createCalls := e.fake.Calls("CreateLaunchTemplate")
	ltTags := tagMap(createCalls[0].Input.(*ec2.CreateLaunchTemplateInput).TagSpecifications[0].Tags)
	if ltTags[TagCluster] != testCluster {
		t.Errorf("launch template tags = %v", ltTags)
	}
	// Nothing is collected while in use.
	if got, err := e.p.CollectLaunchTemplates(t.Context()); err != nil || len(got) != 0 {
		t.Fatalf("CollectLaunchTemplates = %v, %v; want nothing", got, err)
	}
	e.clock.Step(DefaultLaunchTemplateTTL + time.Second)
	if _, err := e.p.Create(t.Context(), claim("four", onDemandOnly, only)); err != nil {
		t.Fatal(err)
	}
	got, err := e.p.CollectLaunchTemplates(t.Context())
	if err != nil || len(got) != 1 || len(e.fake.LaunchTemplates()) != 1 {
		t.Fatalf("CollectLaunchTemplates = %v, %v, left %d; want the tainted template only", got, err, len(e.fake.LaunchTemplates()))
	}
	// A collected template is made again when needed.
	if _, err := e.p.Create(t.Context(), claim("five", onDemandOnly, only, req("x", "In", "y"))); err != nil {
		t.Fatal(err)
	}
	tainted.Name = "six"
	if _, err := e.p.Create(t.Context(), tainted); err != nil {
		t.Fatal(err)
	}
	if n := len(e.fake.LaunchTemplates()); n != 3 {
		t.Errorf("launch templates = %d, want 3", n)
	}
}
