package aws

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
)

func testBootstrap(custom *string) bootstrap {
	maxPods, high := int32(58), int32(85)
	return bootstrap{
		clusterName: "prod", endpoint: "https://ABC.eks.amazonaws.com", ca: "Q0E=", cidr: "10.100.0.0/16", dns: "10.100.0.10",
		labels: map[string]string{"tenon.dev/nodepool": "system", "tenon.dev/capacity-type": "on-demand"},
		taints: []v1.Taint{{Key: "CriticalAddonsOnly", Value: "true", Effect: corev1.TaintEffectNoSchedule}},
		kubelet: &v1.KubeletConfiguration{MaxPods: &maxPods, ImageGCHighThresholdPercent: &high,
			SystemReserved: map[string]string{"cpu": "100m"}, EvictionSoft: map[string]string{"memory.available": "5%"},
			EvictionSoftGracePeriod: map[string]v1.Duration{"memory.available": "1m"}},
		custom: custom,
	}
}

// parts reads a MIME multipart document as a mail client (and cloud-init)
// would.
func parts(t *testing.T, doc string) map[string][]string {
	t.Helper()
	head, body, _ := strings.Cut(doc, "\n\n")
	var ct string
	for _, line := range strings.Split(head, "\n") {
		if v, ok := strings.CutPrefix(line, "Content-Type: "); ok {
			ct = v
		}
	}
	_, params, err := mime.ParseMediaType(ct)
	if err != nil {
		t.Fatalf("content type %q: %v", ct, err)
	}
	r := multipart.NewReader(strings.NewReader(body), params["boundary"])
	out := map[string][]string{}
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("reading parts: %v\n%s", err, doc)
		}
		b, _ := io.ReadAll(p)
		out[p.Header.Get("Content-Type")] = append(out[p.Header.Get("Content-Type")], string(b))
	}
}

func TestAL2023UserData(t *testing.T) {
	script := "#!/bin/bash\necho hello\n"
	ud, err := userData(v1.AMIFamilyAL2023, testBootstrap(&script))
	if err != nil {
		t.Fatal(err)
	}
	ps := parts(t, ud)
	if len(ps["text/x-shellscript"]) != 1 || ps["text/x-shellscript"][0] != strings.TrimRight(script, "\n")+"\n" {
		t.Errorf("shell script part = %q", ps["text/x-shellscript"])
	}
	configs := ps["application/node.eks.aws"]
	if len(configs) != 1 {
		t.Fatalf("NodeConfig parts = %d\n%s", len(configs), ud)
	}
	var nc struct {
		Kind string `json:"kind"`
		Spec struct {
			Cluster struct {
				Name, APIServerEndpoint, CertificateAuthority, CIDR string
			} `json:"cluster"`
			Kubelet struct {
				Config map[string]any `json:"config"`
				Flags  []string       `json:"flags"`
			} `json:"kubelet"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal([]byte(configs[0]), &nc); err != nil {
		t.Fatal(err)
	}
	c := nc.Spec.Cluster
	if nc.Kind != "NodeConfig" || c.Name != "prod" || c.APIServerEndpoint != "https://ABC.eks.amazonaws.com" || c.CertificateAuthority != "Q0E=" || c.CIDR != "10.100.0.0/16" {
		t.Errorf("cluster = %+v", nc)
	}
	cfg := nc.Spec.Kubelet.Config
	if cfg["maxPods"] != float64(58) || cfg["imageGCHighThresholdPercent"] != float64(85) || cfg["systemReserved"].(map[string]any)["cpu"] != "100m" ||
		cfg["evictionSoftGracePeriod"].(map[string]any)["memory.available"] != "1m" {
		t.Errorf("kubelet config = %v", cfg)
	}
	wantFlags := []string{"--node-labels=tenon.dev/capacity-type=on-demand,tenon.dev/nodepool=system", "--register-with-taints=CriticalAddonsOnly=true:NoSchedule"}
	if strings.Join(nc.Spec.Kubelet.Flags, " ") != strings.Join(wantFlags, " ") {
		t.Errorf("flags = %v, want %v", nc.Spec.Kubelet.Flags, wantFlags)
	}
}

func TestAL2023UserDataMergesMIME(t *testing.T) {
	own := "MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"BOUNDARY\"\n\n--BOUNDARY\nContent-Type: application/node.eks.aws\n\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  instance:\n    localStorage:\n      strategy: RAID0\n\n--BOUNDARY\nContent-Type: text/x-shellscript\n\n#!/bin/bash\ntrue\n--BOUNDARY--\n"
	ud, err := userData(v1.AMIFamilyAL2023, testBootstrap(&own))
	if err != nil {
		t.Fatal(err)
	}
	ps := parts(t, ud)
	if len(ps["application/node.eks.aws"]) != 2 || !strings.Contains(ps["application/node.eks.aws"][0], "RAID0") || len(ps["text/x-shellscript"]) != 1 {
		t.Errorf("parts = %v", ps)
	}
	bad := "MIME-Version: 1.0\nContent-Type: text/plain\n\nx"
	if _, err := userData(v1.AMIFamilyAL2023, testBootstrap(&bad)); err == nil || !strings.Contains(err.Error(), "boundary") {
		t.Errorf("a MIME document without boundary: %v", err)
	}
}

func TestBottlerocketUserData(t *testing.T) {
	own := "[settings.host-containers.admin]\nenabled = true\n"
	ud, err := userData(v1.AMIFamilyBottlerocket, testBootstrap(&own))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"[settings.host-containers.admin]\nenabled = true\n",
		"[settings.kubernetes]\ncluster-name = \"prod\"\napi-server = \"https://ABC.eks.amazonaws.com\"\ncluster-certificate = \"Q0E=\"\ncluster-dns-ip = \"10.100.0.10\"\nmax-pods = 58\n",
		"[settings.kubernetes.node-labels]\n\"tenon.dev/capacity-type\" = \"on-demand\"\n\"tenon.dev/nodepool\" = \"system\"\n",
		"[settings.kubernetes.node-taints]\n\"CriticalAddonsOnly\" = [\"true:NoSchedule\"]\n",
		"[settings.kubernetes.system-reserved]\n\"cpu\" = \"100m\"\n",
		"[settings.kubernetes.eviction-soft-grace-period]\n\"memory.available\" = \"1m\"\n",
	} {
		if !strings.Contains(ud, want) {
			t.Errorf("TOML lacks %q:\n%s", want, ud)
		}
	}
	conflict := "[settings.kubernetes]\nmax-pods = 3\n"
	if _, err := userData(v1.AMIFamilyBottlerocket, testBootstrap(&conflict)); err == nil || !strings.Contains(err.Error(), "[settings.kubernetes]") {
		t.Errorf("conflicting TOML: %v", err)
	}
}

func TestCustomUserDataIsUsedAsIs(t *testing.T) {
	own := "#!/bin/bash\n/etc/eks/bootstrap.sh prod\n"
	if ud, err := userData(v1.AMIFamilyCustom, testBootstrap(&own)); err != nil || ud != own {
		t.Errorf("custom user data = %q, %v", ud, err)
	}
	if ud, err := userData(v1.AMIFamilyCustom, testBootstrap(nil)); err != nil || ud != "" {
		t.Errorf("no custom user data = %q, %v", ud, err)
	}
}

func TestTenthAddress(t *testing.T) {
	for cidr, want := range map[string]string{"10.100.0.0/16": "10.100.0.10", "172.20.0.0/16": "172.20.0.10", "fd00::/108": "fd00::a", "bad": ""} {
		if got := tenthAddress(cidr); got != want {
			t.Errorf("tenthAddress(%s) = %q, want %q", cidr, got, want)
		}
	}
}

func TestNodeLabelsLeaveOutWhatTheKubeletMayNotSet(t *testing.T) {
	c := claim("x", req("node.kubernetes.io/exclude-from-external-load-balancers", "In", "true"), req("kubernetes.io/role", "In", "x"),
		req("topology.kubernetes.io/zone", "In", "us-east-1a"), req("tenon.dev/instance-family", "In", "m5"))
	reqs, err := claimRequirements(c)
	if err != nil {
		t.Fatal(err)
	}
	got := nodeLabels(c, reqs, "spot")
	want := map[string]string{"tenon.dev/nodepool": "general", "example.com/team": "web", "tenon.dev/capacity-type": "spot", "node.kubernetes.io/exclude-from-external-load-balancers": "true",
		"karpenter.sh/nodepool": "general", "karpenter.sh/capacity-type": "spot"}
	if len(got) != len(want) {
		t.Errorf("labels = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("labels[%s] = %q, want %q", k, got[k], v)
		}
	}
}

// hostileStrings hold what strconv.Quote escapes in ways TOML does not know
// (\a, \v, \x1b), line breaks, quotes and non-ASCII text.
var hostileStrings = []string{"bell\a", "tab\tvt\v", "esc\x1b[31m", "nl\n[settings.evil]\nx = 1", "quote\"back\\slash", "del\x7f", "ünïcödé \u2028 line sep", "nul\x00"}

// TestBottlerocketTOMLEscapes: every string Tenon writes into Bottlerocket's
// settings is a TOML basic string that reads back as itself.
func TestBottlerocketTOMLEscapes(t *testing.T) {
	for _, s := range hostileStrings {
		b := testBootstrap(nil)
		b.clusterName = s
		b.labels = map[string]string{s: s}
		b.kubelet.SystemReserved = map[string]string{s: s}
		ud, err := userData(v1.AMIFamilyBottlerocket, b)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		var doc struct {
			Settings struct {
				Kubernetes struct {
					ClusterName    string            `toml:"cluster-name"`
					NodeLabels     map[string]string `toml:"node-labels"`
					SystemReserved map[string]string `toml:"system-reserved"`
				} `toml:"kubernetes"`
			} `toml:"settings"`
		}
		if _, err := toml.Decode(ud, &doc); err != nil {
			t.Fatalf("%q: the settings do not parse as TOML: %v\n%s", s, err, ud)
		}
		k := doc.Settings.Kubernetes
		if k.ClusterName != s || k.NodeLabels[s] != s || k.SystemReserved[s] != s {
			t.Errorf("%q read back as %q, labels %q, reserved %q", s, k.ClusterName, k.NodeLabels, k.SystemReserved)
		}
	}
}

// TestBottlerocketUserDataCannotRedefineTenonSettings: the NodeClass's TOML
// may not set what Tenon writes in any spelling: a table, dotted keys, an
// inline table. Before, only [table] lines were looked for.
func TestBottlerocketUserDataCannotRedefineTenonSettings(t *testing.T) {
	for name, own := range map[string]string{
		"table":              "[settings.kubernetes]\nmax-pods = 3\n",
		"sub-table":          "[settings.kubernetes.node-labels]\nevil = \"x\"\n",
		"dotted keys":        "settings.kubernetes.cluster-name = \"other\"\n",
		"dotted in settings": "[settings]\nkubernetes.api-server = \"https://evil\"\n",
		"inline table":       "settings = { kubernetes = { max-pods = 3 } }\n",
		"not TOML":           "[settings\n",
	} {
		t.Run(name, func(t *testing.T) {
			if ud, err := userData(v1.AMIFamilyBottlerocket, testBootstrap(&own)); err == nil {
				t.Errorf("accepted:\n%s", ud)
			}
		})
	}
	ok := "[settings.kubernetes.credential-providers.ecr-credential-provider]\nenabled = true\n"
	if _, err := userData(v1.AMIFamilyBottlerocket, testBootstrap(&ok)); err != nil {
		t.Errorf("a sub-table Tenon does not write: %v", err)
	}
}

// TestBottlerocketClusterDNSMustBeAnIP: clusterDNS reaches the settings
// only as an IP address.
func TestBottlerocketClusterDNSMustBeAnIP(t *testing.T) {
	b := testBootstrap(nil)
	b.kubelet.ClusterDNS = []string{"10.0.0.10\"\n[settings.host-containers.admin]\nenabled = true\n#"}
	if ud, err := userData(v1.AMIFamilyBottlerocket, b); err == nil {
		t.Errorf("accepted:\n%s", ud)
	}
}

// TestAL2023ScriptHoldingTheBoundary: a script line equal to Tenon's MIME
// boundary must not end the script's part: the boundary changes instead.
func TestAL2023ScriptHoldingTheBoundary(t *testing.T) {
	script := "#!/bin/bash\necho start\n--//tenon//\nContent-Type: text/x-shellscript\n\necho injected\n--//tenon-1//\necho end\n"
	ud, err := userData(v1.AMIFamilyAL2023, testBootstrap(&script))
	if err != nil {
		t.Fatal(err)
	}
	ps := parts(t, ud)
	if got := ps["text/x-shellscript"]; len(got) != 1 || got[0] != script {
		t.Errorf("script parts = %q, want the script whole", got)
	}
	if len(ps["application/node.eks.aws"]) != 1 {
		t.Errorf("NodeConfig parts = %d, want 1", len(ps["application/node.eks.aws"]))
	}
}
