package aws

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
	if slices.Contains(RequiredActions(), "ec2:RunInstance") || len(RequiredActions()) != 26 {
		t.Errorf("RequiredActions = %d actions %v", len(RequiredActions()), RequiredActions())
	}
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
			case "iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile":
				if !slices.Equal(s.condition("StringEquals", "aws:ResourceTag/tenon.dev/cluster"), []string{"${CLUSTER_NAME}"}) {
					t.Errorf("%s (%s) is not limited by aws:ResourceTag/tenon.dev/cluster", a, s.Sid)
				}
			case "iam:PassRole":
				if !slices.Equal(s.Resource, []string{"${NODE_ROLE_ARN}"}) || !slices.Equal(s.condition("StringEquals", "iam:PassedToService"), []string{"ec2.amazonaws.com"}) {
					t.Errorf("iam:PassRole resource %v condition %v, want only the node role, only to EC2", s.Resource, s.Condition)
				}
			}
			if strings.HasSuffix(a, "InstanceProfile") && !slices.Equal(s.Resource, []string{"arn:aws:iam::${ACCOUNT_ID}:instance-profile/tenon_${CLUSTER_NAME}_*"}) {
				t.Errorf("%s is not limited to the profiles the agent names (tenon_<cluster>_*): %v", a, s.Resource)
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
