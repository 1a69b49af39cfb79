package manifests_test

import (
	"bytes"
	"context"
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
)

func runManifests(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = manifests.Command(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestCommandPrintsWhatObjectsBuilds: every flag lands in the same objects the tenon_agent
// resource applies for the same settings.
func TestCommandPrintsWhatObjectsBuilds(t *testing.T) {
	code, stdout, stderr := runManifests(t, "--cloud", "aws", "--cluster-name", "prod", "--namespace", "karp",
		"--image", "example.com/tenon:v9.9.9", "--image-pull-policy", "IfNotPresent", "--replicas", "3",
		"--service-account-annotation", "eks.amazonaws.com/role-arn=arn:aws:iam::1:role/t", "--batch-idle", "2s", "--batch-max", "20s",
		"--log-level", "debug", "--log-format", "text", "--interruption-queue", "q", "--region", "eu-west-1",
		"--zones", "eu-west-1a,eu-west-1b", "--zones", "eu-west-1c", "--policy-git-url", "https://example.com/p.git",
		"--policy-git-branch", "main", "--policy-git-path", "prod", "--policy-git-interval", "1m", "--policy-git-secret", "git",
		"--arg", "--cluster-cidr=172.20.0.0/16")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, err := manifests.YAML(objects(t, manifests.Options{Cloud: "aws", ClusterName: "prod", Namespace: "karp",
		Image: "example.com/tenon:v9.9.9", ImagePullPolicy: "IfNotPresent", Replicas: 3,
		ServiceAccountAnnotations: map[string]string{"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/t"},
		Settings: manifests.Settings{BatchIdle: 2e9, BatchMax: 20e9, LogLevel: "debug", LogFormat: "text", InterruptionQueue: "q",
			Region: "eu-west-1", Zones: []string{"eu-west-1a", "eu-west-1b", "eu-west-1c"}},
		PolicyGit: &manifests.PolicyGit{URL: "https://example.com/p.git", Branch: "main", Path: "prod", Interval: 6e10, Secret: "git"},
		Args:      []string{"--cluster-cidr=172.20.0.0/16"}}))
	if err != nil {
		t.Fatal(err)
	}
	if body := stdout[strings.Index(stdout, "\n")+1:]; body != string(want) {
		t.Errorf("tenon manifests printed other objects than manifests.Objects builds for the same settings")
	}
	if stderr != "" {
		t.Errorf("with --image, nothing on stderr; got %q", stderr)
	}
}

func TestCommandDefaultImageIsTheBinarysVersion(t *testing.T) {
	code, stdout, stderr := runManifests(t, "--cloud", "kwok", "--cluster-name", "dev")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "image: "+manifests.DefaultImage+"\n") || strings.Contains(stdout, ":latest") {
		t.Errorf("the Deployment should run %s", manifests.DefaultImage)
	}
	// go test builds a development version: the command says which tag it uses.
	if !strings.Contains(stderr, "development build") || !strings.Contains(stderr, manifests.DefaultImage) {
		t.Errorf("stderr %q should say the development build's image tag", stderr)
	}
}

func TestCommandCRDs(t *testing.T) {
	for _, tt := range []struct {
		crds                string
		wantCRD, wantDeploy bool
	}{{"include", true, true}, {"skip", false, true}, {"only", true, false}} {
		_, stdout, _ := runManifests(t, "--cloud", "kwok", "--cluster-name", "dev", "--crds", tt.crds)
		if got := strings.Contains(stdout, "kind: CustomResourceDefinition"); got != tt.wantCRD {
			t.Errorf("--crds %s: CRDs printed %v, want %v", tt.crds, got, tt.wantCRD)
		}
		if got := strings.Contains(stdout, "kind: Deployment"); got != tt.wantDeploy {
			t.Errorf("--crds %s: Deployment printed %v, want %v", tt.crds, got, tt.wantDeploy)
		}
	}
}

func TestCommandBadInput(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--cluster-name", "dev"}, `cloud ""`},
		{[]string{"--cloud", "gcp", "--cluster-name", "dev"}, `cloud "gcp"`},
		{[]string{"--cloud", "kwok"}, "cluster name: required"},
		{[]string{"--cloud", "kwok", "--cluster-name", "dev", "--replicas", "two"}, "-replicas"},
		{[]string{"--cloud", "kwok", "--cluster-name", "dev", "--service-account-annotation", "novalue"}, "key=value"},
		{[]string{"--cloud", "kwok", "--cluster-name", "dev", "--interruption-queue", "q"}, "only the aws cloud"},
		{[]string{"--cloud", "kwok", "--cluster-name", "dev", "--crds", "maybe"}, "-crds"},
		{[]string{"--cloud", "kwok", "--cluster-name", "dev", "extra"}, `unexpected argument "extra"`},
		{[]string{"--cloud", "kwok", "--cluster-name", "dev", "--arg", "not-a-flag"}, "must be a flag"},
		{[]string{"--cloud", "kwok", "--cluster-name", "dev", "--service-monitor-label", "release"}, "key=value"},
		{[]string{"--cloud", "kwok", "--cluster-name", "dev", "--service-monitor-label", "release=a b"}, `service monitor label "release" value "a b"`},
	} {
		code, _, stderr := runManifests(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

func TestCommandHelpExitsZero(t *testing.T) {
	code, _, stderr := runManifests(t, "--help")
	if code != 0 || !strings.Contains(stderr, "Usage: tenon manifests") {
		t.Errorf("--help: exit %d, usage %q", code, stderr)
	}
}

func TestMetricsServiceSelectsTheAgentsMetricsPort(t *testing.T) {
	svc := find[*corev1.Service](t, objects(t, localOptions()))
	if svc.Name != manifests.MetricsServiceName || !maps.Equal(svc.Spec.Selector, manifests.Labels()) {
		t.Errorf("Service %s selects %v, want %s selecting %v", svc.Name, svc.Spec.Selector, manifests.MetricsServiceName, manifests.Labels())
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != manifests.MetricsPort || svc.Spec.Ports[0].TargetPort.StrVal != "metrics" {
		t.Errorf("ports %+v, want %d to the container's metrics port", svc.Spec.Ports, manifests.MetricsPort)
	}
}

// TestReadOnlyRoleFlag: --read-only-role prints the read-only ClusterRole alone, get and list
// on each kind, and refuses the install's flags.
func TestReadOnlyRoleFlag(t *testing.T) {
	code, stdout, stderr := runManifests(t, "--read-only-role")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, err := manifests.YAML([]client.Object{manifests.ReadOnlyClusterRole()})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(stdout, string(want)) || strings.Count(stdout, "kind: ") != 1 {
		t.Errorf("stdout is not the role alone:\n%s", stdout)
	}
	for _, verb := range []string{"create", "update", "patch", "delete", "watch", "secrets", "configmaps"} {
		if strings.Contains(stdout, "- "+verb+"\n") {
			t.Errorf("the read-only role names %q:\n%s", verb, stdout)
		}
	}
	code, _, stderr = runManifests(t, "--read-only-role", "--cloud", "kwok")
	if code != 2 || !strings.Contains(stderr, "--read-only-role takes no other flag (got --cloud)") {
		t.Errorf("with --cloud: exit %d: %s", code, stderr)
	}
}

// TestServiceMonitor: off by default; --service-monitor adds a ServiceMonitor last that selects
// the metrics Service by its labels and scrapes its metrics port, carrying the labels asked for
// without losing the agent's own.
func TestServiceMonitor(t *testing.T) {
	_, stdout, _ := runManifests(t, "--cloud", "kwok", "--cluster-name", "dev", "--image", "x/y:z")
	if strings.Contains(stdout, manifests.ServiceMonitorKind) {
		t.Errorf("a ServiceMonitor without --service-monitor")
	}
	for _, args := range [][]string{{"--service-monitor"}, {"--service-monitor-label", "release=prom", "--service-monitor-label", "app.kubernetes.io/name=other"}} {
		code, stdout, stderr := runManifests(t, append([]string{"--cloud", "kwok", "--cluster-name", "dev", "--image", "x/y:z", "--crds", "skip"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		docs := strings.Split(stdout, "\n---\n")
		last := docs[len(docs)-1]
		for _, want := range []string{"apiVersion: monitoring.coreos.com/v1", "kind: ServiceMonitor", "name: " + manifests.MetricsServiceName,
			"namespace: tenon-system", "app.kubernetes.io/name: tenon", "port: metrics", "path: /metrics", "matchLabels:"} {
			if !strings.Contains(last, want) {
				t.Errorf("%v: the last object lacks %q:\n%s", args, want, last)
			}
		}
		if strings.Contains(last, "other") {
			t.Errorf("%v: a label overrode the agent's own:\n%s", args, last)
		}
		if len(args) > 1 && !strings.Contains(last, "release: prom") {
			t.Errorf("%v: the label release=prom is missing:\n%s", args, last)
		}
	}
}
