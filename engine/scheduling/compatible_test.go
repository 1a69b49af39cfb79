package scheduling_test

import (
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

func TestCompatible(t *testing.T) {
	zone := scheduling.LabelTopologyZone
	pool := scheduling.NewRequirements(
		scheduling.In(zone, "us-east-1a", "us-east-1b"),
		scheduling.In(scheduling.LabelCapacityType, "spot", "on-demand"),
		scheduling.In("example.com/team", "ml"),
		scheduling.DoesNotExist("example.com/gpu"),
		scheduling.NotIn("example.com/tier", "gold"),
	)
	tests := []struct {
		name    string
		pod     scheduling.Requirements
		opts    []scheduling.CompatibleOption
		wantErr string
	}{
		{"no requirements", nil, nil, ""},
		{"zone overlaps", scheduling.NewRequirements(scheduling.In(zone, "us-east-1b", "us-east-1c")), nil, ""},
		{"zone disjoint", scheduling.NewRequirements(scheduling.In(zone, "us-west-2a")), nil,
			"key topology.kubernetes.io/zone: requires In [us-west-2a], allowed In [us-east-1a us-east-1b]"},
		{"custom label matches", scheduling.RequirementsFromLabels(map[string]string{"example.com/team": "ml"}), nil, ""},
		{"custom label differs", scheduling.RequirementsFromLabels(map[string]string{"example.com/team": "web"}), nil,
			"key example.com/team: requires In [web], allowed In [ml]"},
		{"undefined custom label", scheduling.RequirementsFromLabels(map[string]string{"example.com/owner": "x"}), nil,
			"key example.com/owner: requires In [x], but the label is not defined; add it to the pool's labels or requirements, or drop it from the pod"},
		{"undefined custom label with a typo", scheduling.RequirementsFromLabels(map[string]string{"example.com/teams": "ml"}), nil,
			"key example.com/teams: requires In [ml], but the label is not defined; add it to the pool's labels or requirements, or drop it from the pod (did you mean example.com/team?)"},
		{"undefined Karpenter label", scheduling.RequirementsFromLabels(map[string]string{"karpenter.sh/provisioner-name": "default"}), nil,
			"key karpenter.sh/provisioner-name: requires In [default], but the label is not defined; add it to the pool's labels or requirements, or drop it from the pod (this is Karpenter's label; Tenon's is tenon.dev/nodepool)"},
		{"Karpenter alias read as Tenon's label", scheduling.RequirementsFromLabels(map[string]string{"karpenter.sh/capacity-type": "spot"}), nil, ""},
		{"Karpenter alias disjoint", scheduling.RequirementsFromLabels(map[string]string{"karpenter.sh/capacity-type": "reserved"}), nil,
			"key tenon.dev/capacity-type: requires In [reserved], allowed In [on-demand spot]"},
		{"undefined key with NotIn", scheduling.NewRequirements(scheduling.NotIn("example.com/owner", "x")), nil, ""},
		{"undefined key with DoesNotExist", scheduling.NewRequirements(scheduling.DoesNotExist("example.com/owner")), nil, ""},
		{"undefined key with Exists", scheduling.NewRequirements(scheduling.Exists("example.com/owner")), nil,
			"key example.com/owner: requires Exists, but the label is not defined; add it to the pool's labels or requirements, or drop it from the pod"},
		{"undefined key with Gt", scheduling.NewRequirements(scheduling.Gt("example.com/owner", 1).Intersection(scheduling.NotIn("example.com/owner", "3"))), nil,
			"key example.com/owner: requires Gt 1 NotIn [3], but the label is not defined; add it to the pool's labels or requirements, or drop it from the pod"},
		{"undefined well-known label", scheduling.RequirementsFromLabels(map[string]string{scheduling.LabelArch: "arm64"}), nil,
			"key kubernetes.io/arch: requires In [arm64], but the label is not defined; add it to the pool's labels or requirements, or drop it from the pod"},
		{"undefined well-known label allowed", scheduling.RequirementsFromLabels(map[string]string{scheduling.LabelArch: "arm64"}),
			[]scheduling.CompatibleOption{scheduling.WithAllowUndefinedWellKnownLabels()}, ""},
		{"hostname is never allowed undefined", scheduling.RequirementsFromLabels(map[string]string{scheduling.LabelHostname: "node-1"}),
			[]scheduling.CompatibleOption{scheduling.WithAllowUndefinedWellKnownLabels()},
			"key kubernetes.io/hostname: requires In [node-1], but the label is not defined; add it to the pool's labels or requirements, or drop it from the pod"},
		{"custom allow-list", scheduling.RequirementsFromLabels(map[string]string{"example.com/owner": "x"}),
			[]scheduling.CompatibleOption{scheduling.WithAllowUndefined(func(k string) bool { return k == "example.com/owner" })}, ""},
		{"absent label satisfies NotIn against DoesNotExist", scheduling.NewRequirements(scheduling.NotIn("example.com/gpu", "a100")), nil, ""},
		{"DoesNotExist against DoesNotExist", scheduling.NewRequirements(scheduling.DoesNotExist("example.com/gpu")), nil, ""},
		{"DoesNotExist against NotIn", scheduling.NewRequirements(scheduling.DoesNotExist("example.com/tier")), nil, ""},
		{"Exists against DoesNotExist", scheduling.NewRequirements(scheduling.Exists("example.com/gpu")), nil,
			"key example.com/gpu: requires Exists, allowed DoesNotExist"},
		{"every failure, sorted", scheduling.RequirementsFromLabels(map[string]string{zone: "us-west-2a", "example.com/team": "web"}), nil,
			"key example.com/team: requires In [web], allowed In [ml]\nkey topology.kubernetes.io/zone: requires In [us-west-2a], allowed In [us-east-1a us-east-1b]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := pool.Compatible(tt.pod, tt.opts...)
			if got := pool.Allows(tt.pod, tt.opts...); got != (err == nil) {
				t.Errorf("Allows = %v, Compatible = %v: they must agree", got, err)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Fatalf("error = %v\nwant    %s", err, tt.wantErr)
			}
		})
	}
}

func TestIntersectsIgnoresUndefinedKeys(t *testing.T) {
	node := scheduling.NewRequirements(scheduling.In(scheduling.LabelArch, "amd64"), scheduling.In("example.com/team", "ml"))
	tests := []struct {
		name    string
		other   scheduling.Requirements
		wantErr string
	}{
		{"only undefined keys", scheduling.NewRequirements(scheduling.In("example.com/owner", "x"), scheduling.Exists(scheduling.LabelOS)), ""},
		{"common key overlaps", scheduling.NewRequirements(scheduling.NotIn(scheduling.LabelArch, "arm64")), ""},
		{"common key disjoint", scheduling.NewRequirements(scheduling.In(scheduling.LabelArch, "arm64"), scheduling.In("example.com/other", "y")),
			"key kubernetes.io/arch: requires In [arm64], allowed In [amd64]"},
		{"bounds disjoint", scheduling.NewRequirements(scheduling.Gt(scheduling.LabelArch, 3)),
			"key kubernetes.io/arch: requires Gt 3, allowed In [amd64]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := node.Intersects(tt.other)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
				t.Fatalf("error = %v\nwant    %s", err, tt.wantErr)
			}
		})
	}
}
