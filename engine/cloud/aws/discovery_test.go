package aws

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

func ids[T any](items []T, id func(T) string) []string {
	var out []string
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

func TestDiscovery(t *testing.T) {
	cases := []struct {
		name     string
		spec     func(*v1.AWSNodeClassSpec)
		opts     func(*Options)
		subnets  []string
		groups   []string
		amis     []string
		profile  string
		notReady string // substring of the Ready condition's message; "" means ready
	}{
		{
			name:    "default selectors find the cluster's tagged subnets and groups and the AL2023 parameters",
			subnets: []string{"subnet-a", "subnet-a2", "subnet-b", "subnet-c"}, groups: []string{"sg-node"},
			amis: []string{"ami-al2023-amd64", "ami-al2023-arm64", "ami-al2023-nvidia"}, profile: defaultProfile,
		},
		{
			name: "Bottlerocket parameters, instance profile, ID and name terms",
			spec: func(s *v1.AWSNodeClassSpec) {
				s.AMIFamily, s.Role, s.InstanceProfile = v1.AMIFamilyBottlerocket, "", "node-profile"
				s.SubnetSelectorTerms = []v1.SubnetSelectorTerm{{ID: "subnet-b"}, {ID: "subnet-c"}}
				s.SecurityGroupSelectorTerms = []v1.SecurityGroupSelectorTerm{{Name: "other"}}
			},
			subnets: []string{"subnet-b", "subnet-c"}, groups: []string{"sg-other"},
			amis: []string{"ami-br-amd64", "ami-br-arm64", "ami-br-nvidia"}, profile: "node-profile",
		},
		{
			name: "amiSelectorTerms by tag keep the newest image per architecture",
			spec: func(s *v1.AWSNodeClassSpec) {
				s.AMIFamily = v1.AMIFamilyCustom
				s.AMISelectorTerms = []v1.AMISelectorTerm{{Tags: v1.SelectorTags{"team": "platform"}}}
				s.SubnetSelectorTerms = []v1.SubnetSelectorTerm{{Tags: v1.SelectorTags{"tenon.dev/discovery": "prod"}}}
				s.SecurityGroupSelectorTerms = []v1.SecurityGroupSelectorTerm{{Tags: v1.SelectorTags{"tenon.dev/discovery": "*"}}}
			},
			subnets: []string{"subnet-a", "subnet-a2", "subnet-b", "subnet-c"}, groups: []string{"sg-node"},
			amis: []string{"ami-custom-new", "ami-custom-arm"}, profile: defaultProfile,
		},
		{
			name: "no subnet matches",
			spec: func(s *v1.AWSNodeClassSpec) {
				s.SubnetSelectorTerms = []v1.SubnetSelectorTerm{{Tags: v1.SelectorTags{"nope": "x"}}}
			},
			groups:   []string{"sg-node"},
			amis:     []string{"ami-al2023-amd64", "ami-al2023-arm64", "ami-al2023-nvidia"},
			profile:  defaultProfile,
			notReady: "no subnet matches subnetSelectorTerms",
		},
		{
			name: "an unknown security group ID",
			spec: func(s *v1.AWSNodeClassSpec) {
				s.SecurityGroupSelectorTerms = []v1.SecurityGroupSelectorTerm{{ID: "sg-gone"}}
			},
			subnets:  []string{"subnet-a", "subnet-a2", "subnet-b", "subnet-c"},
			amis:     []string{"ami-al2023-amd64", "ami-al2023-arm64", "ami-al2023-nvidia"},
			profile:  defaultProfile,
			notReady: "no security group matches securityGroupSelectorTerms",
		},
		{
			name:     "no Kubernetes version for the family parameters",
			opts:     func(o *Options) { o.KubernetesVersion = "" },
			subnets:  []string{"subnet-a", "subnet-a2", "subnet-b", "subnet-c"},
			groups:   []string{"sg-node"},
			profile:  defaultProfile,
			notReady: "no Kubernetes version",
		},
		{
			name:     "restricted tags",
			spec:     func(s *v1.AWSNodeClassSpec) { s.Tags = v1.Tags{"tenon.dev/cluster": "x", "team": "a"} },
			subnets:  []string{"subnet-a", "subnet-a2", "subnet-b", "subnet-c"},
			groups:   []string{"sg-node"},
			amis:     []string{"ami-al2023-amd64", "ami-al2023-arm64", "ami-al2023-nvidia"},
			profile:  defaultProfile,
			notReady: "tags tenon.dev/cluster are set by the agent",
		},
		{
			name: "Bottlerocket user data redefining a table the agent writes",
			spec: func(s *v1.AWSNodeClassSpec) {
				s.AMIFamily = v1.AMIFamilyBottlerocket
				s.UserData = ptr("[settings.kubernetes]\nmax-pods = 3\n")
			},
			subnets:  []string{"subnet-a", "subnet-a2", "subnet-b", "subnet-c"},
			groups:   []string{"sg-node"},
			amis:     []string{"ami-br-amd64", "ami-br-arm64", "ami-br-nvidia"},
			profile:  defaultProfile,
			notReady: "userData defines [settings.kubernetes]",
		},
		{
			name:     "no cluster endpoint for the bootstrap",
			opts:     func(o *Options) { o.ClusterEndpoint = "" },
			subnets:  []string{"subnet-a", "subnet-a2", "subnet-b", "subnet-c"},
			groups:   []string{"sg-node"},
			amis:     []string{"ami-al2023-amd64", "ami-al2023-arm64", "ami-al2023-nvidia"},
			profile:  defaultProfile,
			notReady: "no cluster endpoint or CA",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var opts []func(*Options)
			if tc.opts != nil {
				opts = append(opts, tc.opts)
			}
			e := newEnv(t, opts...)
			if tc.spec != nil {
				e.classes.put(nodeClass("default", tc.spec))
			}
			status, err := e.p.NodeClassStatus(t.Context(), "default")
			if err != nil {
				t.Fatalf("NodeClassStatus: %v", err)
			}
			if got := ids(status.Subnets, func(s v1.Subnet) string { return s.ID }); !slices.Equal(got, tc.subnets) {
				t.Errorf("subnets = %v, want %v", got, tc.subnets)
			}
			if got := ids(status.SecurityGroups, func(s v1.SecurityGroup) string { return s.ID }); !slices.Equal(got, tc.groups) {
				t.Errorf("security groups = %v, want %v", got, tc.groups)
			}
			if got := ids(status.AMIs, func(a v1.AMI) string { return a.ID }); !slices.Equal(got, tc.amis) {
				t.Errorf("AMIs = %v, want %v", got, tc.amis)
			}
			if status.InstanceProfile != tc.profile {
				t.Errorf("instance profile = %q, want %q", status.InstanceProfile, tc.profile)
			}
			ready := findCondition(status.Conditions, v1.ConditionReady)
			if ready == nil {
				t.Fatalf("no Ready condition in %+v", status.Conditions)
			}
			_, _, createErr := e.p.resolveByName(t.Context(), "default")
			if tc.notReady == "" {
				if ready.Status != metav1.ConditionTrue || createErr != nil {
					t.Errorf("Ready = %s (%s), resolve error %v; want ready", ready.Status, ready.Message, createErr)
				}
				return
			}
			if ready.Status != metav1.ConditionFalse || !strings.Contains(ready.Message, tc.notReady) {
				t.Errorf("Ready = %s %q, want False containing %q", ready.Status, ready.Message, tc.notReady)
			}
			var nr *cloud.NodeClassNotReadyError
			if !errors.As(createErr, &nr) || !strings.Contains(nr.Reason, tc.notReady) {
				t.Errorf("resolve error = %v, want NodeClassNotReadyError containing %q", createErr, tc.notReady)
			}
		})
	}
}

func ec2TypesImage(id string) ec2types.Image {
	return ec2types.Image{ImageId: aws.String(id), Name: aws.String("al2023"), Architecture: ec2types.ArchitectureValuesX8664,
		State: ec2types.ImageStateAvailable, CreationDate: aws.String("2026-10-01T00:00:00.000Z")}
}

func findCondition(conds []metav1.Condition, typ string) *metav1.Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

func TestDiscoveryPicksTheSubnetWithMostFreeAddressesPerZone(t *testing.T) {
	e := newEnv(t)
	_, r, err := e.p.resolveByName(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"us-east-1a": "subnet-a2", "us-east-1b": "subnet-b", "us-east-1c": "subnet-c"}
	for zone, subnet := range want {
		if r.subnetFor[zone] != subnet {
			t.Errorf("subnet for %s = %q, want %q", zone, r.subnetFor[zone], subnet)
		}
	}
}

func TestDiscoveryIsCachedAndInvalidated(t *testing.T) {
	e := newEnv(t)
	resolveCalls := func() int { return len(e.fake.Calls("DescribeSubnets")) }
	for range 3 {
		if _, _, err := e.p.resolveByName(t.Context(), "default"); err != nil {
			t.Fatal(err)
		}
	}
	if n := resolveCalls(); n != 1 {
		t.Fatalf("DescribeSubnets calls after 3 resolves = %d, want 1 (cached)", n)
	}
	// A changed spec misses the cache without Invalidate.
	e.classes.put(nodeClass("default", func(s *v1.AWSNodeClassSpec) { s.SubnetSelectorTerms = []v1.SubnetSelectorTerm{{ID: "subnet-b"}} }))
	_, r, err := e.p.resolveByName(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	if n := resolveCalls(); n != 2 || len(r.status.Subnets) != 1 {
		t.Fatalf("after a spec change: %d DescribeSubnets calls, subnets %v; want 2 calls and [subnet-b]", n, r.status.Subnets)
	}
	// A change in AWS is seen after Invalidate (the agent's NodeClass
	// event, or the refresh timer).
	e.fake.Parameters["/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"] = "ami-new"
	e.p.Invalidate("default")
	_, r, err = e.p.resolveByName(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	if r.status.AMIs[0].ID != "ami-new" {
		t.Errorf("AMI after Invalidate = %s, want ami-new", r.status.AMIs[0].ID)
	}
	// Refresh re-resolves what it has seen.
	e.fake.Parameters["/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"] = "ami-newer"
	if err := e.p.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, r, _ = e.p.resolveByName(t.Context(), "default")
	if r.status.AMIs[0].ID != "ami-newer" {
		t.Errorf("AMI after Refresh = %s, want ami-newer", r.status.AMIs[0].ID)
	}
}

func TestDiscoveryAWSErrorsAreNotNotReady(t *testing.T) {
	e := newEnv(t)
	e.fake.NextError("DescribeSubnets", &smithy.GenericAPIError{Code: "UnauthorizedOperation", Message: "not allowed"})
	_, _, err := e.p.resolveByName(t.Context(), "default")
	if err == nil || cloud.IsNodeClassNotReady(err) || !strings.Contains(err.Error(), "UnauthorizedOperation") {
		t.Fatalf("error = %v, want the AWS error, not NodeClassNotReady", err)
	}
	// The failure is not cached.
	if _, _, err := e.p.resolveByName(t.Context(), "default"); err != nil {
		t.Fatalf("second resolve: %v", err)
	}
}

func TestMissingNodeClassIsNotReady(t *testing.T) {
	e := newEnv(t)
	_, _, err := e.p.resolveByName(t.Context(), "nope")
	if !cloud.IsNodeClassNotReady(err) {
		t.Fatalf("error = %v, want NodeClassNotReady", err)
	}
}

func TestNewChecksOptions(t *testing.T) {
	_, err := New(t.Context(), Options{KubernetesVersion: "133", ClusterEndpoint: "http://x", ClusterCIDR: "x", ClusterDNS: "y"})
	for _, want := range []string{"ClusterName", "region", "NodeClass lookup", "KubernetesVersion", "ClusterEndpoint", "ClusterCIDR", "ClusterDNS"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New error %v does not mention %s", err, want)
		}
	}
}

// the DescribeImages input of an SSM term names the parameter's image.
func TestSSMTermDescribesTheImage(t *testing.T) {
	e := newEnv(t)
	e.fake.Images = append(e.fake.Images, ec2TypesImage("ami-al2023-amd64"))
	e.classes.put(nodeClass("default", func(s *v1.AWSNodeClassSpec) {
		s.AMISelectorTerms = []v1.AMISelectorTerm{{SSMParameter: "/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"}}
	}))
	if _, _, err := e.p.resolveByName(t.Context(), "default"); err != nil {
		t.Fatal(err)
	}
	calls := e.fake.Calls("DescribeImages")
	if len(calls) != 1 || !slices.Equal(calls[0].Input.(*ec2.DescribeImagesInput).ImageIds, []string{"ami-al2023-amd64"}) {
		t.Fatalf("DescribeImages calls = %+v", calls)
	}
}

func ptr[T any](v T) *T { return &v }

func TestBackgroundRefresh(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.RefreshInterval = 20 * time.Millisecond })
	if _, _, err := e.p.resolveByName(t.Context(), "default"); err != nil {
		t.Fatal(err)
	}
	e.fake.Parameters["/aws/service/eks/optimized-ami/1.33/amazon-linux-2023/x86_64/standard/recommended/image_id"] = "ami-refreshed"
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		e.p.mu.Lock()
		ami := e.p.classes["default"].status.AMIs[0].ID
		e.p.mu.Unlock()
		if ami == "ami-refreshed" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the background loop did not pick up the new AMI within 5s")
}
