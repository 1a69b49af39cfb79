package aws

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// guidePath is docs/guides/aws-iam.md from this package.
var guidePath = filepath.Join("..", "..", "..", "docs", "guides", "aws-iam.md")

// examplePolicyPath is the copy examples/eks renders with templatefile.
var examplePolicyPath = filepath.Join("..", "..", "..", "examples", "eks", "agent-policy.json.tftpl")

// stringOrList is IAM's "one string or a list" JSON.
type stringOrList []string

func (s *stringOrList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = []string{one}
		return nil
	}
	var many []string
	err := json.Unmarshal(b, &many)
	*s = many
	return err
}

type statement struct {
	Sid       string                                `json:"Sid"`
	Effect    string                                `json:"Effect"`
	Action    stringOrList                          `json:"Action"`
	Resource  stringOrList                          `json:"Resource"`
	Condition map[string]map[string]json.RawMessage `json:"Condition"`
}

type policy struct {
	Version   string      `json:"Version"`
	Statement []statement `json:"Statement"`
}

// guidePolicy returns the guide's ```json block, raw and parsed.
func guidePolicy(t *testing.T) (string, policy) {
	t.Helper()
	doc, err := os.ReadFile(guidePath)
	if err != nil {
		t.Fatalf("reading the IAM guide: %v", err)
	}
	_, rest, ok := strings.Cut(string(doc), "```json\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatalf("%s has no ```json block", guidePath)
	}
	var p policy
	if err := json.Unmarshal([]byte(block), &p); err != nil {
		t.Fatalf("the guide's policy is not JSON: %v", err)
	}
	return block, p
}

func (s statement) condition(op, key string) []string {
	raw, ok := s.Condition[op][key]
	if !ok {
		return nil
	}
	var v stringOrList
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil
	}
	return v
}

func TestIAMGuideMatchesTheCode(t *testing.T) {
	_, p := guidePolicy(t)
	if p.Version != "2012-10-17" {
		t.Errorf("policy version = %q", p.Version)
	}
	var actions []string
	for _, s := range p.Statement {
		if s.Effect != "Allow" {
			t.Errorf("statement %s has effect %s; the policy only allows", s.Sid, s.Effect)
		}
		actions = append(actions, s.Action...)
	}
	slices.Sort(actions)
	actions = slices.Compact(actions)
	if want := RequiredActions(); !slices.Equal(actions, want) {
		t.Errorf("the guide's actions differ from the code's:\n guide %v\n code  %v", actions, want)
	}
	// Sanity of the derivation itself: a call the provider makes is there,
	// and nothing it never calls.
	for _, a := range []string{"ec2:CreateFleet", "sqs:ReceiveMessage", "ssm:GetParameter", "pricing:GetProducts", "ec2:RunInstances", "iam:CreateInstanceProfile", "iam:TagInstanceProfile"} {
		if !slices.Contains(RequiredActions(), a) {
			t.Errorf("RequiredActions lacks %s", a)
		}
	}
	if slices.Contains(RequiredActions(), "ec2:RunInstance") || len(RequiredActions()) != 27 {
		t.Errorf("RequiredActions = %d actions %v", len(RequiredActions()), RequiredActions())
	}
	checkInstanceProfileScope(t, p)
	checkLaunchTags(t, p)
}

func TestIAMGuideScopesDestructiveActionsByClusterTag(t *testing.T) {
	_, p := guidePolicy(t)
	for _, s := range p.Statement {
		for _, a := range s.Action {
			switch a {
			case "ec2:TerminateInstances", "ec2:DeleteLaunchTemplate":
				if got := s.condition("StringEquals", "aws:ResourceTag/tenon.dev/cluster"); !slices.Equal(got, []string{"${CLUSTER_NAME}"}) {
					t.Errorf("%s (%s) is not limited by aws:ResourceTag/tenon.dev/cluster", a, s.Sid)
				}
			case "ec2:CreateTags":
				onExisting := slices.Equal(s.condition("StringEquals", "aws:ResourceTag/tenon.dev/cluster"), []string{"${CLUSTER_NAME}"})
				onCreate := slices.Equal(s.condition("StringEquals", "aws:RequestTag/tenon.dev/cluster"), []string{"${CLUSTER_NAME}"}) &&
					len(s.condition("StringEquals", "ec2:CreateAction")) > 0
				if !onExisting && !onCreate {
					t.Errorf("ec2:CreateTags (%s) is neither limited to cluster-tagged resources nor to tag-on-create", s.Sid)
				}
			case "ec2:CreateLaunchTemplate":
				if !slices.Equal(s.condition("StringEquals", "aws:RequestTag/tenon.dev/cluster"), []string{"${CLUSTER_NAME}"}) {
					t.Errorf("ec2:CreateLaunchTemplate (%s) does not require the cluster tag", s.Sid)
				}
			case "iam:CreateInstanceProfile", "iam:TagInstanceProfile":
				if !slices.Equal(s.condition("StringEquals", "aws:RequestTag/tenon.dev/cluster"), []string{"${CLUSTER_NAME}"}) {
					t.Errorf("%s (%s) does not require the cluster tag on the new profile", a, s.Sid)
				}
			case "iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile", "iam:GetInstanceProfile":
				if !slices.Equal(s.condition("StringEquals", "aws:ResourceTag/tenon.dev/cluster"), []string{"${CLUSTER_NAME}"}) {
					t.Errorf("%s (%s) is not limited by aws:ResourceTag/tenon.dev/cluster", a, s.Sid)
				}
			case "iam:PassRole":
				if !slices.Equal(s.Resource, []string{"${NODE_ROLE_ARN}"}) || !slices.Equal(s.condition("StringEquals", "iam:PassedToService"), []string{"ec2.amazonaws.com"}) {
					t.Errorf("iam:PassRole resource %v condition %v, want only the node role, only to EC2", s.Resource, s.Condition)
				}
			}
			if strings.HasSuffix(a, "InstanceProfile") && !slices.Equal(s.Resource, []string{profileARNPattern()}) {
				t.Errorf("%s is not limited to the profiles the agent names (%s): %v", a, profileARNPattern(), s.Resource)
			}
			if strings.HasPrefix(a, "sqs:") && !slices.Equal(s.Resource, []string{"arn:aws:sqs:${REGION}:${ACCOUNT_ID}:${QUEUE_NAME}"}) {
				t.Errorf("%s is not limited to the interruption queue: %v", a, s.Resource)
			}
		}
	}
}

func TestExamplePolicyIsTheGuidePolicy(t *testing.T) {
	block, _ := guidePolicy(t)
	example, err := os.ReadFile(examplePolicyPath)
	if err != nil {
		t.Fatalf("reading the example policy: %v", err)
	}
	if string(example) != block {
		t.Errorf("%s differs from the policy in %s; copy the guide's JSON block into it", examplePolicyPath, guidePath)
	}
}

// globMatch matches s against an IAM resource pattern: * is any run of
// characters, ? exactly one.
func globMatch(pattern, s string) bool {
	if pattern == "" {
		return s == ""
	}
	switch pattern[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if globMatch(pattern[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return s != "" && globMatch(pattern[1:], s[1:])
	}
	return s != "" && s[0] == pattern[0] && globMatch(pattern[1:], s[1:])
}

// profileARNPattern is the instance-profile resource the guide must give:
// the code's own name with ${CLUSTER_NAME} for the cluster and one ? per
// character of the hash, so the suffix's length is pinned.
func profileARNPattern() string {
	name := ManagedInstanceProfileName("${CLUSTER_NAME}", "us-east-1", "default")
	prefix := "tenon_${CLUSTER_NAME}_"
	return "arn:aws:iam::${ACCOUNT_ID}:instance-profile/" + prefix + strings.Repeat("?", len(name)-len(prefix))
}

// checkInstanceProfileScope checks that the instance-profile statements
// match this cluster's profiles and no other cluster's, whatever their
// names share, and that each is conditioned on the cluster tag.
func checkInstanceProfileScope(t *testing.T, p policy) {
	t.Helper()
	arn := func(name string) string { return "arn:aws:iam::123456789012:instance-profile/" + name }
	for _, s := range p.Statement {
		if !slices.ContainsFunc(s.Action, func(a string) bool { return strings.HasSuffix(a, "InstanceProfile") }) {
			continue
		}
		if len(s.condition("StringEquals", "aws:ResourceTag/tenon.dev/cluster")) == 0 && len(s.condition("StringEquals", "aws:RequestTag/tenon.dev/cluster")) == 0 {
			t.Errorf("%s (%v) has no tenon.dev/cluster tag condition", s.Sid, s.Action)
		}
		for _, r := range s.Resource {
			r = strings.NewReplacer("${ACCOUNT_ID}", "123456789012", "${CLUSTER_NAME}", "prod").Replace(r)
			for _, nc := range []string{"default", "gpu", "a-very-long-nodeclass-name"} {
				if own := arn(ManagedInstanceProfileName("prod", "eu-west-1", nc)); !globMatch(r, own) {
					t.Errorf("%s: %s does not match cluster prod's profile %s", s.Sid, r, own)
				}
				for _, other := range []string{"prod_eu", "prod-eu", "prod_", "prod_x_y"} {
					if theirs := arn(ManagedInstanceProfileName(other, "eu-west-1", nc)); globMatch(r, theirs) {
						t.Errorf("%s: %s, cluster prod's pattern, matches cluster %s's profile %s", s.Sid, r, other, theirs)
					}
				}
			}
		}
	}
}

// createdTags launches a spot node through the fake and returns, per EC2
// resource type the launch creates (named as in ARNs: instance,
// spot-instances-request, ...), the tags it asks AWS to put on it.
func createdTags(t *testing.T) map[string]map[string]string {
	t.Helper()
	e := newEnv(t)
	spot := req(scheduling.LabelCapacityType, corev1.NodeSelectorOpIn, scheduling.CapacityTypeSpot)
	if _, err := e.p.Create(t.Context(), claim("iam-tags", spot)); err != nil {
		t.Fatalf("Create: %v", err)
	}
	out := map[string]map[string]string{}
	add := func(rt ec2types.ResourceType, tags []ec2types.Tag) { out[string(rt)] = tagMap(tags) }
	for _, in := range fleetInputs(e.fake) {
		for _, ts := range in.TagSpecifications {
			add(ts.ResourceType, ts.Tags)
		}
	}
	for _, c := range e.fake.Calls("CreateLaunchTemplate") {
		in := c.Input.(*ec2.CreateLaunchTemplateInput)
		for _, ts := range in.TagSpecifications {
			add(ts.ResourceType, ts.Tags)
		}
		for _, ts := range in.LaunchTemplateData.TagSpecifications {
			add(ts.ResourceType, ts.Tags)
		}
	}
	return out
}

// checkLaunchTags checks that a spot launch tags every resource type the
// guide's create statements demand request tags on, with those tags: a
// type left untagged (the spot instance request, before) fails the launch
// with UnauthorizedOperation.
func checkLaunchTags(t *testing.T, p policy) {
	t.Helper()
	tags := createdTags(t)
	values := strings.NewReplacer("${CLUSTER_NAME}", testCluster)
	for _, s := range p.Statement {
		if !slices.Contains(s.Action, "ec2:CreateFleet") {
			continue
		}
		for key := range s.Condition["StringEquals"] {
			tagKey, ok := strings.CutPrefix(key, "aws:RequestTag/")
			if !ok {
				continue
			}
			want := values.Replace(strings.Join(s.condition("StringEquals", key), ","))
			for _, r := range s.Resource {
				rt := strings.TrimSuffix(r[strings.LastIndex(r, ":")+1:], "/*")
				if got, tagged := tags[rt]; !tagged || got[tagKey] != want {
					t.Errorf("%s demands %s=%s on %s, but a spot launch tags it %v", s.Sid, tagKey, want, rt, got)
				}
			}
		}
	}
}
