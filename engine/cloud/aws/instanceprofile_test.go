package aws

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	"github.com/aws/smithy-go"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/cloud/aws/awsfake"
)

var _ IAMAPI = (*awsfake.Fake)(nil)

func TestManagedInstanceProfileName(t *testing.T) {
	valid := regexp.MustCompile(`^[\w+=,.@-]{1,128}$`)
	long := strings.Repeat("c", 100) // the longest EKS cluster name
	for _, tc := range []struct{ cluster, region, class string }{
		{"prod", "us-east-1", "default"},
		{"prod", "us-east-1", "gpu"},
		{"prod", "eu-west-1", "default"},
		{long, "ap-southeast-2", "a-very-long-nodeclass-name-" + long},
	} {
		name := ManagedInstanceProfileName(tc.cluster, tc.region, tc.class)
		if !valid.MatchString(name) {
			t.Errorf("%v: %q is not a valid IAM instance profile name", tc, name)
		}
		if name != ManagedInstanceProfileName(tc.cluster, tc.region, tc.class) {
			t.Errorf("%v: the name is not deterministic", tc)
		}
	}
	if ManagedInstanceProfileName("prod", "us-east-1", "default") == ManagedInstanceProfileName("prod", "us-east-1", "gpu") ||
		ManagedInstanceProfileName("prod", "us-east-1", "default") == ManagedInstanceProfileName("prod", "eu-west-1", "default") {
		t.Error("different NodeClasses or regions share a profile name")
	}
	if got := ManagedInstanceProfileName("prod", "us-east-1", "default"); got != defaultProfile {
		t.Errorf("name = %q, want %q (changing the scheme orphans existing profiles)", got, defaultProfile)
	}
}

func roles(p iamtypes.InstanceProfile) []string {
	var out []string
	for _, r := range p.Roles {
		out = append(out, awssdk.ToString(r.RoleName))
	}
	return out
}

func iamTagMap(tags []iamtypes.Tag) map[string]string {
	out := map[string]string{}
	for _, t := range tags {
		out[awssdk.ToString(t.Key)] = awssdk.ToString(t.Value)
	}
	return out
}

func TestInstanceProfileForRole(t *testing.T) {
	e := newEnv(t)
	status, err := e.p.NodeClassStatus(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	profiles := e.fake.InstanceProfiles()
	p, ok := profiles[defaultProfile]
	if !ok || len(profiles) != 1 {
		t.Fatalf("profiles = %v, want %s", profiles, defaultProfile)
	}
	if !slices.Equal(roles(p), []string{"node-role"}) {
		t.Errorf("roles = %v, want [node-role]", roles(p))
	}
	if tags := iamTagMap(p.Tags); tags[TagCluster] != testCluster || tags[TagNodeClass] != "default" || len(tags) != 2 {
		t.Errorf("tags = %v", tags)
	}
	if status.InstanceProfile != defaultProfile {
		t.Errorf("status.instanceProfile = %q", status.InstanceProfile)
	}
	if c := findCondition(status.Conditions, v1.ConditionInstanceProfileReady); c == nil || c.Reason != "InstanceProfileManaged" {
		t.Errorf("InstanceProfileReady = %+v", c)
	}

	// An agent restart finds the profile and changes nothing.
	e.fake.Reset()
	e.fake.AddInstanceProfile(p)
	e.p.Invalidate("default")
	if _, err := e.p.NodeClassStatus(t.Context(), "default"); err != nil {
		t.Fatal(err)
	}
	if calls := e.fake.Calls("CreateInstanceProfile", "AddRoleToInstanceProfile", "RemoveRoleFromInstanceProfile"); len(calls) != 0 {
		t.Errorf("a second resolution changed the profile: %v", calls)
	}

	// A changed role replaces the former one.
	e.classes.put(nodeClass("default", func(s *v1.AWSNodeClassSpec) { s.Role = "arn:aws:iam::111122223333:role/nodes/other-role" }))
	if _, err := e.p.NodeClassStatus(t.Context(), "default"); err != nil {
		t.Fatal(err)
	}
	if got := roles(e.fake.InstanceProfiles()[defaultProfile]); !slices.Equal(got, []string{"other-role"}) {
		t.Errorf("roles after the role changed = %v, want [other-role]", got)
	}

	// The NodeClass is deleted: the next refresh removes the role and the profile.
	e.classes.remove("default")
	if err := e.p.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if profiles := e.fake.InstanceProfiles(); len(profiles) != 0 {
		t.Errorf("profiles after the NodeClass was deleted = %v", profiles)
	}
	if err := e.p.DeleteInstanceProfile(t.Context(), "default"); err != nil {
		t.Errorf("deleting a profile that is gone: %v", err)
	}
	if _, err := e.p.NodeClassStatus(t.Context(), "default"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("status of a deleted NodeClass: err = %v", err)
	}
}

func TestInstanceProfileOfAClassThatMovedToInstanceProfileIsDeletedWithIt(t *testing.T) {
	e := newEnv(t)
	if _, err := e.p.NodeClassStatus(t.Context(), "default"); err != nil {
		t.Fatal(err)
	}
	e.classes.put(nodeClass("default", func(s *v1.AWSNodeClassSpec) { s.Role, s.InstanceProfile = "", "existing-profile" }))
	if _, err := e.p.NodeClassStatus(t.Context(), "default"); err != nil {
		t.Fatal(err)
	}
	e.classes.remove("default")
	if err := e.p.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if profiles := e.fake.InstanceProfiles(); len(profiles) != 0 {
		t.Errorf("profiles left = %v", profiles)
	}
}

func TestInstanceProfileOfAnotherClusterIsNotDeleted(t *testing.T) {
	e := newEnv(t)
	e.fake.AddInstanceProfile(iamtypes.InstanceProfile{
		InstanceProfileName: awssdk.String(defaultProfile), Path: awssdk.String("/"),
		Tags: []iamtypes.Tag{{Key: awssdk.String(TagCluster), Value: awssdk.String("other")}},
	})
	if err := e.p.DeleteInstanceProfile(t.Context(), "default"); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.fake.InstanceProfiles()[defaultProfile]; !ok || len(e.fake.Calls("DeleteInstanceProfile")) != 0 {
		t.Error("a profile without this cluster's tag was deleted")
	}
}

func TestInstanceProfileNamedInTheSpecIsUsedAsIs(t *testing.T) {
	e := newEnv(t)
	e.classes.put(nodeClass("default", func(s *v1.AWSNodeClassSpec) { s.Role, s.InstanceProfile = "", "existing-profile" }))
	status, err := e.p.NodeClassStatus(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	if status.InstanceProfile != "existing-profile" || len(e.fake.Calls("GetInstanceProfile", "CreateInstanceProfile")) != 0 {
		t.Errorf("instance profile %q, IAM calls %v", status.InstanceProfile, e.fake.Calls("GetInstanceProfile", "CreateInstanceProfile"))
	}
}

func TestInstanceProfileIAMErrors(t *testing.T) {
	for _, op := range []string{"GetInstanceProfile", "CreateInstanceProfile", "AddRoleToInstanceProfile"} {
		t.Run(op, func(t *testing.T) {
			e := newEnv(t)
			denied := errors.New("AccessDenied: not authorized to perform iam:" + op)
			e.fake.NextError(op, denied)
			if _, err := e.p.NodeClassStatus(t.Context(), "default"); !errors.Is(err, denied) {
				t.Fatalf("err = %v, want the IAM error", err)
			}
			// The failure is not cached: the next resolution completes the profile.
			if _, err := e.p.NodeClassStatus(t.Context(), "default"); err != nil {
				t.Fatal(err)
			}
			if got := roles(e.fake.InstanceProfiles()[defaultProfile]); !slices.Equal(got, []string{"node-role"}) {
				t.Errorf("roles = %v", got)
			}
		})
	}
}

// TestWireInstanceProfile runs the real IAM client (AWS query protocol, XML
// responses and errors) against awsfake.Server: the requests carry the
// profile name, tags and role, NoSuchEntity is recognised, a restarted
// provider parses the existing profile and leaves it alone, and deleting the
// NodeClass removes the role and the profile.
func TestWireInstanceProfile(t *testing.T) {
	e := newWireEnv(t)
	if _, err := e.p.NodeClassStatus(t.Context(), "default"); err != nil {
		t.Fatal(err)
	}
	get := e.w.Requests("GetInstanceProfile")
	if len(get) != 1 {
		t.Fatalf("GetInstanceProfile requests = %d", len(get))
	}
	wantForm(t, get[0], map[string]string{"Version": "2010-05-08", "InstanceProfileName": defaultProfile})
	create := e.w.Requests("CreateInstanceProfile")
	if len(create) != 1 {
		t.Fatalf("CreateInstanceProfile requests = %d (was NoSuchEntity recognised?)", len(create))
	}
	wantForm(t, create[0], map[string]string{
		"InstanceProfileName": defaultProfile,
		"Tags.member.1.Key":   TagCluster, "Tags.member.1.Value": testCluster,
		"Tags.member.2.Key": TagNodeClass, "Tags.member.2.Value": "default",
	})
	add := e.w.Requests("AddRoleToInstanceProfile")
	if len(add) != 1 {
		t.Fatalf("AddRoleToInstanceProfile requests = %d", len(add))
	}
	wantForm(t, add[0], map[string]string{"InstanceProfileName": defaultProfile, "RoleName": "node-role"})

	// A restarted provider reads the profile (roles and tags parsed from the
	// XML) and changes nothing.
	p2 := e.restart(t)
	if status, err := p2.NodeClassStatus(t.Context(), "default"); err != nil || status.InstanceProfile != defaultProfile {
		t.Fatalf("restarted: profile %q, err %v", status.InstanceProfile, err)
	}
	if n := len(e.w.Requests("CreateInstanceProfile")) + len(e.w.Requests("AddRoleToInstanceProfile")) + len(e.w.Requests("RemoveRoleFromInstanceProfile")); n != 2 {
		t.Errorf("the restarted provider changed the profile: %d change requests in all, want the first 2", n)
	}

	// The NodeClass is deleted: Refresh removes the role, then the profile.
	e.cs.remove("default")
	if err := p2.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	remove, del := e.w.Requests("RemoveRoleFromInstanceProfile"), e.w.Requests("DeleteInstanceProfile")
	if len(remove) != 1 || len(del) != 1 {
		t.Fatalf("RemoveRoleFromInstanceProfile %d, DeleteInstanceProfile %d requests, want 1 and 1", len(remove), len(del))
	}
	wantForm(t, remove[0], map[string]string{"InstanceProfileName": defaultProfile, "RoleName": "node-role"})
	wantForm(t, del[0], map[string]string{"InstanceProfileName": defaultProfile})
	// The fake refuses (DeleteConflict) to delete a profile holding a role,
	// so an empty fake also proves the order.
	if len(e.fake.InstanceProfiles()) != 0 {
		t.Errorf("profiles left: %v", e.fake.InstanceProfiles())
	}
}

// TestInstanceProfileReadDeniedByTheGuidePolicy: the guide's policy lets the
// agent read only profiles tagged with its cluster, so IAM answers
// AccessDenied, not NoSuchEntity, for a profile that does not exist yet (the
// agent creates it) and for another cluster's (the agent refuses it and
// never deletes it).
func TestInstanceProfileReadDeniedByTheGuidePolicy(t *testing.T) {
	denied := func() error {
		return &smithy.GenericAPIError{Code: "AccessDenied", Message: "not authorized to perform iam:GetInstanceProfile"}
	}
	e := newEnv(t)
	e.fake.NextError("GetInstanceProfile", denied())
	if _, err := e.p.NodeClassStatus(t.Context(), "default"); err != nil {
		t.Fatalf("a profile not yet created: %v", err)
	}
	if _, ok := e.fake.InstanceProfiles()[defaultProfile]; !ok {
		t.Error("the profile was not created")
	}

	e = newEnv(t)
	e.fake.AddInstanceProfile(iamtypes.InstanceProfile{
		InstanceProfileName: awssdk.String(defaultProfile), Path: awssdk.String("/"),
		Tags: []iamtypes.Tag{{Key: awssdk.String(TagCluster), Value: awssdk.String("other")}},
	})
	e.fake.NextError("GetInstanceProfile", denied())
	if _, err := e.p.NodeClassStatus(t.Context(), "default"); err == nil || !strings.Contains(err.Error(), "lacks the tag tenon.dev/cluster=prod") {
		t.Errorf("another cluster's profile: err = %v, want it refused", err)
	}
	e.fake.NextError("GetInstanceProfile", denied())
	if err := e.p.DeleteInstanceProfile(t.Context(), "default"); err != nil || len(e.fake.Calls("DeleteInstanceProfile")) != 0 {
		t.Errorf("deleting a profile the agent may not read: %v, calls %v", err, e.fake.Calls("DeleteInstanceProfile"))
	}
}
