package scheduling_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

func TestWellKnownLabels(t *testing.T) {
	set := scheduling.WellKnownLabels()
	for _, key := range []string{
		scheduling.LabelNodePool, scheduling.LabelCapacityType, scheduling.LabelInstanceCategory, scheduling.LabelInstanceFamily,
		scheduling.LabelInstanceGeneration, scheduling.LabelInstanceSize, scheduling.LabelInstanceCPU, scheduling.LabelInstanceMemory,
		scheduling.LabelInstanceGPUCount, scheduling.LabelInstanceGPUName, scheduling.LabelInstanceGPUManufacturer,
		scheduling.LabelInstanceGPUMemory, scheduling.LabelInstanceHypervisor, scheduling.LabelInstanceCPUManufacturer,
		scheduling.LabelInstanceNetworkBandwidth, scheduling.LabelInstanceEBSBandwidth, scheduling.LabelInstanceLocalNVMe,
		scheduling.LabelInstanceEncryptionInTransit, scheduling.LabelInstanceAcceleratorCount, scheduling.LabelInstanceAcceleratorName,
		scheduling.LabelInstanceAcceleratorManufacturer,
		"node.kubernetes.io/instance-type", "topology.kubernetes.io/zone", "topology.kubernetes.io/region",
		"kubernetes.io/arch", "kubernetes.io/os", "kubernetes.io/hostname",
	} {
		if !set.Has(key) || !scheduling.IsWellKnownLabel(key) {
			t.Errorf("%s is not well known", key)
		}
	}
	if set.Len() != 27 {
		t.Errorf("WellKnownLabels has %d keys, want 27", set.Len())
	}
	set.Insert("example.com/x")
	if scheduling.WellKnownLabels().Has("example.com/x") || scheduling.IsWellKnownLabel("example.com/x") {
		t.Error("changing the returned set changed the package's well-known labels")
	}
}

func TestIsRestrictedLabel(t *testing.T) {
	tests := []struct {
		key     string
		wantErr string // a prefix of the error; "" means allowed
	}{
		{"example.com/team", ""},
		{"team", ""},
		{"kubernetes.io/arch", ""},
		{"topology.kubernetes.io/zone", ""},
		{"tenon.dev/capacity-type", ""},
		{"tenon.dev/instance-family", ""},
		{"node.kubernetes.io/instance-type", ""},
		{"node.kubernetes.io/custom", ""},
		{"foo.node.kubernetes.io/custom", ""},
		{"node-restriction.kubernetes.io/team", ""},
		{"kops.k8s.io/instancegroup", ""},
		{"evilkubernetes.io/x", ""},
		{"tenon.dev/nodepool", "label tenon.dev/nodepool is restricted: Tenon sets it to the pool's name; remove it"},
		{"kubernetes.io/hostname", "label kubernetes.io/hostname is restricted: the kubelet sets it to the node's name; remove it"},
		// Karpenter v1 reserves only its own group: kubernetes.io and
		// k8s.io keys are the user's to set (issue 17 item 11).
		{"kubernetes.io/custom", ""},
		{"subdomain.kubernetes.io/test", ""},
		{"topology.kubernetes.io/rack", ""},
		{"k8s.io/x", ""},
		{"storage.k8s.io/x", ""},
		{"beta.kubernetes.io/arch", ""},
		{"tenon.dev/custom", "label tenon.dev/custom is restricted: domain tenon.dev is reserved; use a well-known label (tenon.dev/capacity-type,"},
		{"x.tenon.dev/custom", "label x.tenon.dev/custom is restricted: domain tenon.dev is reserved"},
		{"tenon.dev/team", "label tenon.dev/team is restricted: domain tenon.dev is reserved"},
		{"karpenter.sh/custom", "label karpenter.sh/custom is restricted: domain karpenter.sh is reserved"},
		{"karpenter.sh/capacity-type", "label karpenter.sh/capacity-type is Karpenter's; use tenon.dev/capacity-type instead"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			err := scheduling.IsRestrictedLabel(tt.key)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.wantErr)):
				t.Fatalf("error = %v, want prefix %q", err, tt.wantErr)
			}
		})
	}
	err := scheduling.IsRestrictedLabel("tenon.dev/custom")
	if !strings.HasSuffix(err.Error(), "or move it to your own domain, e.g. example.com/custom") {
		t.Errorf("error does not say what to do: %v", err)
	}
}

func TestFromKarpenterLabel(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"karpenter.sh/capacity-type", "tenon.dev/capacity-type", true},
		{"karpenter.sh/nodepool", "tenon.dev/nodepool", true},
		{"karpenter.sh/provisioner-name", "tenon.dev/nodepool", true},
		{"karpenter.k8s.aws/instance-family", "tenon.dev/instance-family", true},
		{"karpenter.k8s.aws/instance-category", "tenon.dev/instance-category", true},
		{"karpenter.k8s.aws/instance-cpu", "tenon.dev/instance-cpu", true},
		{"karpenter.k8s.aws/instance-memory", "tenon.dev/instance-memory", true},
		{"karpenter.k8s.aws/instance-gpu-name", "tenon.dev/instance-gpu-name", true},
		{"karpenter.k8s.aws/instance-local-nvme", "tenon.dev/instance-local-nvme", true},
		{"karpenter.k8s.aws/instance-encryption-in-transit-supported", "tenon.dev/instance-encryption-in-transit", true},
		{"karpenter.k8s.aws/instance-capability-flex", "", false},
		{"karpenter.k8s.aws/ec2nodeclass", "", false},
		{"karpenter.sh/initialized", "", false},
		{"kubernetes.io/arch", "", false},
		{"example.com/instance-family", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := scheduling.FromKarpenterLabel(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("FromKarpenterLabel(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestKarpenterAliases(t *testing.T) {
	for _, tt := range []struct{ tenon, alias string }{
		{scheduling.LabelCapacityType, "karpenter.sh/capacity-type"},
		{scheduling.LabelNodePool, "karpenter.sh/nodepool"},
		{scheduling.LabelInstanceFamily, "karpenter.k8s.aws/instance-family"},
		{scheduling.LabelInstanceCategory, "karpenter.k8s.aws/instance-category"},
		{scheduling.LabelInstanceGeneration, "karpenter.k8s.aws/instance-generation"},
		{scheduling.LabelInstanceSize, "karpenter.k8s.aws/instance-size"},
		{scheduling.LabelInstanceCPU, "karpenter.k8s.aws/instance-cpu"},
		{scheduling.LabelInstanceMemory, "karpenter.k8s.aws/instance-memory"},
		{scheduling.LabelInstanceGPUName, "karpenter.k8s.aws/instance-gpu-name"},
		{scheduling.LabelInstanceEncryptionInTransit, "karpenter.k8s.aws/instance-encryption-in-transit-supported"},
		{scheduling.LabelArch, ""},
		{scheduling.LabelInstanceType, ""},
		{"tenon.dev/instance-custom", ""},
		{"example.com/team", ""},
	} {
		if got := scheduling.KarpenterAlias(tt.tenon); got != tt.alias {
			t.Errorf("KarpenterAlias(%q) = %q, want %q", tt.tenon, got, tt.alias)
		}
		if tt.alias == "" {
			continue
		}
		// Every alias reads back as the Tenon label, in pods' and pools'
		// requirements alike.
		if got := scheduling.NormalizeLabelKey(tt.alias); got != tt.tenon {
			t.Errorf("NormalizeLabelKey(%q) = %q, want %q", tt.alias, got, tt.tenon)
		}
		if !scheduling.IsKarpenterAlias(tt.alias) {
			t.Errorf("IsKarpenterAlias(%q) = false", tt.alias)
		}
	}
	// Every well-known instance label has an alias that reads back.
	for key := range scheduling.WellKnownLabels() {
		if alias := scheduling.KarpenterAlias(key); alias != "" && scheduling.NormalizeLabelKey(alias) != key {
			t.Errorf("alias %s of %s reads as %s", alias, key, scheduling.NormalizeLabelKey(alias))
		}
	}
	// v1alpha5's pool label is no alias: old Karpenter owns nodes carrying it.
	if scheduling.IsKarpenterAlias("karpenter.sh/provisioner-name") || scheduling.NormalizeLabelKey("karpenter.sh/provisioner-name") != "karpenter.sh/provisioner-name" {
		t.Error("karpenter.sh/provisioner-name is treated as an alias")
	}
	got := scheduling.KarpenterAliases(map[string]string{
		scheduling.LabelCapacityType: "spot", scheduling.LabelInstanceFamily: "m5", scheduling.LabelArch: "amd64",
		scheduling.LabelNodePool: "general", "karpenter.sh/nodepool": "kept",
	})
	want := map[string]string{"karpenter.sh/capacity-type": "spot", "karpenter.k8s.aws/instance-family": "m5"}
	if !maps.Equal(got, want) {
		t.Errorf("KarpenterAliases = %v, want %v", got, want)
	}
}

func TestIsRestrictedRequirement(t *testing.T) {
	for _, tt := range []struct {
		key        string
		requirable bool // as a pool requirement
		settable   bool // as a pool label
	}{
		{"karpenter.sh/capacity-type", true, false},
		{"karpenter.k8s.aws/instance-family", true, false},
		{"karpenter.k8s.aws/instance-encryption-in-transit-supported", true, false},
		{"karpenter.sh/nodepool", false, false},         // the pool's name, as tenon.dev/nodepool
		{"karpenter.sh/provisioner-name", false, false}, // no alias
		{"karpenter.sh/initialized", false, false},
		{"tenon.dev/capacity-type", true, true},
		{"tenon.dev/nodepool", false, false},
		{"example.com/team", true, true},
	} {
		if got := scheduling.IsRestrictedRequirement(tt.key) == nil; got != tt.requirable {
			t.Errorf("IsRestrictedRequirement(%q) allows: %v, want %v", tt.key, got, tt.requirable)
		}
		if got := scheduling.IsRestrictedLabel(tt.key) == nil; got != tt.settable {
			t.Errorf("IsRestrictedLabel(%q) allows: %v, want %v", tt.key, got, tt.settable)
		}
	}
}
