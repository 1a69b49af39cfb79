package awsfake

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/smithy-go"
)

func TestWildcard(t *testing.T) {
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*c", "abbbc", true}, {"a*c", "abcd", false},
		{"a?c", "abc", true}, {"a?c", "ac", false}, {"custom-*", "custom-2026", true}, {"x", "y", false},
	}
	for _, tc := range cases {
		if got := wildcard(tc.pattern, tc.s); got != tc.want {
			t.Errorf("wildcard(%q, %q) = %v", tc.pattern, tc.s, got)
		}
	}
}

func TestFiltersAndCreateFleet(t *testing.T) {
	f := World("prod")
	ctx := context.Background()
	out, err := f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{
		{Name: aws.String("tag-key"), Values: []string{"kubernetes.io/cluster/prod"}},
		{Name: aws.String("availability-zone"), Values: []string{"us-east-1a", "us-east-1b"}},
	}})
	if err != nil || len(out.Subnets) != 3 {
		t.Fatalf("DescribeSubnets = %d subnets, %v; want subnet-a, subnet-a2, subnet-b", len(out.Subnets), err)
	}
	if _, err := f.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-nope"}}); err == nil {
		t.Error("an unknown subnet ID did not fail")
	}
	if _, err := f.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String("lt"),
		LaunchTemplateData: &ec2types.RequestLaunchTemplateData{ImageId: aws.String("ami-1")}}); err != nil {
		t.Fatal(err)
	}
	in := &ec2.CreateFleetInput{
		Type: ec2types.FleetTypeInstant, ClientToken: aws.String("tok"),
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{DefaultTargetCapacityType: ec2types.DefaultTargetCapacityTypeOnDemand},
		LaunchTemplateConfigs: []ec2types.FleetLaunchTemplateConfigRequest{{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateName: aws.String("lt")},
			Overrides: []ec2types.FleetLaunchTemplateOverridesRequest{
				{InstanceType: "m5.xlarge", SubnetId: aws.String("subnet-b")},
				{InstanceType: "m5.large", SubnetId: aws.String("subnet-b")},
			},
		}},
	}
	f.InsufficientCapacity(Offering{InstanceType: "m5.large", Zone: "us-east-1b", CapacityType: "on-demand"}, true)
	first, err := f.CreateFleet(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Instances) != 1 || first.Instances[0].InstanceType != "m5.xlarge" || len(first.Errors) != 1 {
		t.Fatalf("fleet = %+v, want the cheaper m5.large refused and m5.xlarge launched", first)
	}
	again, err := f.CreateFleet(ctx, in)
	if err != nil || again.Instances[0].InstanceIds[0] != first.Instances[0].InstanceIds[0] || f.Launched() != 1 {
		t.Errorf("the same client token launched again: %d instances", f.Launched())
	}
	f.Reset()
	if len(f.Calls()) != 0 || f.Launched() != 0 || len(f.Subnets) == 0 {
		t.Errorf("Reset kept calls or instances, or dropped the discovery data")
	}
}

func TestFakeInstanceProfiles(t *testing.T) {
	ctx := t.Context()
	f := New()
	name := aws.String("tenon_prod_x")
	code := func(err error) string {
		var apiErr smithy.APIError
		if errors.As(err, &apiErr) {
			return apiErr.ErrorCode()
		}
		return fmt.Sprint(err)
	}
	if _, err := f.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: name}); code(err) != "NoSuchEntity" {
		t.Errorf("get missing: %v", err)
	}
	if _, err := f.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: name}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: name}); code(err) != "EntityAlreadyExists" {
		t.Errorf("create twice: %v", err)
	}
	if _, err := f.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String("a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String("b")}); code(err) != "LimitExceeded" {
		t.Errorf("a second role: %v", err)
	}
	if _, err := f.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: name}); code(err) != "DeleteConflict" {
		t.Errorf("delete with a role: %v", err)
	}
	if _, err := f.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String("b")}); code(err) != "NoSuchEntity" {
		t.Errorf("remove a role not there: %v", err)
	}
	if _, err := f.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: name, RoleName: aws.String("a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: name}); err != nil {
		t.Fatal(err)
	}
	if len(f.InstanceProfiles()) != 0 || len(f.Calls("CreateInstanceProfile")) != 2 {
		t.Errorf("profiles %v, calls %v", f.InstanceProfiles(), f.Calls())
	}
}
