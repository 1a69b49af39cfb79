package manifests_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent"
	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/crds"
)

var update = flag.Bool("update", false, "rewrite examples/local/agent.yaml from the code")

// localOptions are the options of the golden file examples/local/agent.yaml.
func localOptions() manifests.Options {
	return manifests.Options{Cloud: manifests.CloudKWOK, ClusterName: "local"}
}

func objects(t *testing.T, opts manifests.Options) []client.Object {
	t.Helper()
	objs, err := manifests.Objects(opts)
	if err != nil {
		t.Fatalf("Objects: %v", err)
	}
	return objs
}

func find[T client.Object](t *testing.T, objs []client.Object) T {
	t.Helper()
	for _, o := range objs {
		if v, ok := o.(T); ok {
			return v
		}
	}
	var zero T
	t.Fatalf("no %T among the objects", zero)
	return zero
}

func TestObjectsOrderAndKinds(t *testing.T) {
	objs := objects(t, localOptions())
	var kinds []string
	for _, o := range objs {
		gvk := o.GetObjectKind().GroupVersionKind()
		if gvk.Kind == "" || gvk.Version == "" {
			t.Errorf("%T %s has no apiVersion/kind", o, o.GetName())
		}
		kinds = append(kinds, gvk.Kind)
	}
	want := []string{"Namespace"}
	for range crds.Names() {
		want = append(want, "CustomResourceDefinition")
	}
	want = append(want, "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding",
		"Role", "RoleBinding", "Deployment", "PodDisruptionBudget", "Service")
	if !slices.Equal(kinds, want) {
		t.Fatalf("kinds in order:\n got %v\nwant %v", kinds, want)
	}
	for _, o := range objs {
		_, namespaced := map[string]bool{"ServiceAccount": true, "Role": true, "RoleBinding": true, "Deployment": true, "PodDisruptionBudget": true, "Service": true}[o.GetObjectKind().GroupVersionKind().Kind]
		if namespaced && o.GetNamespace() != manifests.DefaultNamespace {
			t.Errorf("%s %s is in namespace %q, want %q", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), o.GetNamespace(), manifests.DefaultNamespace)
		}
		if !namespaced && o.GetNamespace() != "" {
			t.Errorf("cluster-scoped %s %s has namespace %q", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), o.GetNamespace())
		}
	}
}

func TestOptionsDefaultsAndOverrides(t *testing.T) {
	cases := []struct {
		name  string
		opts  manifests.Options
		check func(t *testing.T, objs []client.Object)
	}{
		{
			name: "defaults",
			opts: localOptions(),
			check: func(t *testing.T, objs []client.Object) {
				d := find[*appsv1.Deployment](t, objs)
				if got := *d.Spec.Replicas; got != manifests.DefaultReplicas {
					t.Errorf("replicas %d, want %d", got, manifests.DefaultReplicas)
				}
				c := d.Spec.Template.Spec.Containers[0]
				if c.Image != manifests.DefaultImage {
					t.Errorf("image %q, want %q", c.Image, manifests.DefaultImage)
				}
				wantArgs := []string{"agent", "--cloud=kwok", "--cluster-name=local", "--metrics-addr=:8080", "--health-addr=:8081",
					"--leader-elect=true", "--leader-elect-namespace=tenon-system", "--batch-idle=1s", "--batch-max=10s", "--log-level=info", "--log-format=json"}
				if !slices.Equal(c.Args, wantArgs) {
					t.Errorf("args\n got %q\nwant %q", c.Args, wantArgs)
				}
				if got := c.Resources.Requests.Cpu().String(); got != "250m" {
					t.Errorf("cpu request %s, want 250m", got)
				}
				if sa := find[*corev1.ServiceAccount](t, objs); len(sa.Annotations) != 0 {
					t.Errorf("service account annotations %v, want none", sa.Annotations)
				}
			},
		},
		{
			name: "aws with IRSA, settings and extra args",
			opts: manifests.Options{
				Namespace: "autoscaling", Image: "example.com/tenon:v1.2.3", Replicas: 3, Cloud: manifests.CloudAWS, ClusterName: "prod",
				ImagePullPolicy:           corev1.PullIfNotPresent,
				ServiceAccountAnnotations: map[string]string{"eks.amazonaws.com/role-arn": "arn:aws:iam::123456789012:role/tenon"},
				Settings: manifests.Settings{BatchIdle: 2 * time.Second, BatchMax: 20 * time.Second, LogLevel: "debug", LogFormat: "text",
					InterruptionQueue: "prod-tenon", Region: "eu-west-1", Zones: []string{"eu-west-1a", "eu-west-1b"}},
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}},
				Args:      []string{"--extra=1"},
			},
			check: func(t *testing.T, objs []client.Object) {
				d := find[*appsv1.Deployment](t, objs)
				if d.Namespace != "autoscaling" || *d.Spec.Replicas != 3 {
					t.Errorf("deployment %s/%s with %d replicas, want autoscaling/tenon with 3", d.Namespace, d.Name, *d.Spec.Replicas)
				}
				c := d.Spec.Template.Spec.Containers[0]
				if c.Image != "example.com/tenon:v1.2.3" || c.ImagePullPolicy != corev1.PullIfNotPresent {
					t.Errorf("image %q pull %q", c.Image, c.ImagePullPolicy)
				}
				wantArgs := []string{"agent", "--cloud=aws", "--cluster-name=prod", "--metrics-addr=:8080", "--health-addr=:8081",
					"--leader-elect=true", "--leader-elect-namespace=autoscaling", "--batch-idle=2s", "--batch-max=20s", "--log-level=debug", "--log-format=text",
					"--region=eu-west-1", "--zones=eu-west-1a,eu-west-1b", "--interruption-queue=prod-tenon", "--extra=1"}
				if !slices.Equal(c.Args, wantArgs) {
					t.Errorf("args\n got %q\nwant %q", c.Args, wantArgs)
				}
				if got := c.Resources.Requests.Cpu().String(); got != "1" || c.Resources.Limits != nil {
					t.Errorf("resources %v, want exactly the given ones", c.Resources)
				}
				sa := find[*corev1.ServiceAccount](t, objs)
				if sa.Annotations["eks.amazonaws.com/role-arn"] != "arn:aws:iam::123456789012:role/tenon" {
					t.Errorf("service account annotations %v", sa.Annotations)
				}
				crb := find[*rbacv1.ClusterRoleBinding](t, objs)
				if crb.Name != "tenon:autoscaling" || crb.Subjects[0].Namespace != "autoscaling" {
					t.Errorf("cluster role binding %s binds %v", crb.Name, crb.Subjects)
				}
				for _, o := range objs {
					if ns, ok := o.(*corev1.Namespace); ok && ns.Name != "autoscaling" {
						t.Errorf("namespace %s, want autoscaling", ns.Name)
					}
				}
			},
		},
		{
			name: "kwok launch delay",
			opts: manifests.Options{Cloud: manifests.CloudKWOK, ClusterName: "local", Settings: manifests.Settings{KWOKLaunchDelay: 3 * time.Second}},
			check: func(t *testing.T, objs []client.Object) {
				args := find[*appsv1.Deployment](t, objs).Spec.Template.Spec.Containers[0].Args
				if !slices.Contains(args, "--kwok-launch-delay=3s") {
					t.Errorf("args %q lack --kwok-launch-delay=3s", args)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, objects(t, tc.opts))
		})
	}
}

func TestDefaultedDoesNotShareCallerSlicesOrMaps(t *testing.T) {
	ann := map[string]string{"a.example.com/x": "1"}
	opts := manifests.Options{Cloud: manifests.CloudAWS, ClusterName: "c", ServiceAccountAnnotations: ann}
	sa := find[*corev1.ServiceAccount](t, objects(t, opts))
	sa.Annotations["b.example.com/y"] = "2"
	if len(ann) != 1 {
		t.Fatalf("changing a built object changed the caller's map: %v", ann)
	}
}

func TestValidateNamesTheFieldAndTheFix(t *testing.T) {
	cases := []struct {
		name string
		opts manifests.Options
		want []string
	}{
		{"no cloud", manifests.Options{ClusterName: "c"}, []string{`cloud "": must be one of aws, kwok`}},
		{"unknown cloud", manifests.Options{Cloud: "gcp", ClusterName: "c"}, []string{`cloud "gcp"`}},
		{"no cluster name", manifests.Options{Cloud: "aws"}, []string{"cluster name: required"}},
		{"bad cluster name", manifests.Options{Cloud: "aws", ClusterName: "Prod_1"}, []string{`cluster name "Prod_1"`}},
		{"bad namespace", manifests.Options{Cloud: "aws", ClusterName: "c", Namespace: "Tenon"}, []string{`namespace "Tenon"`}},
		{"negative replicas", manifests.Options{Cloud: "aws", ClusterName: "c", Replicas: -1}, []string{"replicas -1: must be at least 1"}},
		{"image with space", manifests.Options{Cloud: "aws", ClusterName: "c", Image: "a b"}, []string{`image "a b"`}},
		{"pull policy", manifests.Options{Cloud: "aws", ClusterName: "c", ImagePullPolicy: "Sometimes"}, []string{`image pull policy "Sometimes"`}},
		{"batch idle above max", manifests.Options{Cloud: "aws", ClusterName: "c", Settings: manifests.Settings{BatchIdle: time.Minute, BatchMax: time.Second}},
			[]string{"batch idle 1m0s: must not exceed batch max 1s"}},
		{"negative batch", manifests.Options{Cloud: "aws", ClusterName: "c", Settings: manifests.Settings{BatchIdle: -time.Second}},
			[]string{"batch idle -1s: must be positive"}},
		{"log level", manifests.Options{Cloud: "aws", ClusterName: "c", Settings: manifests.Settings{LogLevel: "trace"}}, []string{`log level "trace": must be one of debug, info, warn, error`}},
		{"log format", manifests.Options{Cloud: "aws", ClusterName: "c", Settings: manifests.Settings{LogFormat: "xml"}}, []string{`log format "xml": must be one of json, text`}},
		{"interruption queue on kwok", manifests.Options{Cloud: "kwok", ClusterName: "c", Settings: manifests.Settings{InterruptionQueue: "q"}},
			[]string{"only the aws cloud reads an interruption queue"}},
		{"launch delay on aws", manifests.Options{Cloud: "aws", ClusterName: "c", Settings: manifests.Settings{KWOKLaunchDelay: time.Second}},
			[]string{"only the kwok cloud simulates boot time"}},
		{"bad zone", manifests.Options{Cloud: "aws", ClusterName: "c", Settings: manifests.Settings{Zones: []string{"a,b"}}}, []string{`zones[0] "a,b"`}},
		{"annotation key", manifests.Options{Cloud: "aws", ClusterName: "c", ServiceAccountAnnotations: map[string]string{"not a key": "v"}},
			[]string{`service account annotation "not a key"`}},
		{"annotation value", manifests.Options{Cloud: "aws", ClusterName: "c", ServiceAccountAnnotations: map[string]string{"eks.amazonaws.com/role-arn": ""}},
			[]string{"the value is empty"}},
		{"positional arg", manifests.Options{Cloud: "aws", ClusterName: "c", Args: []string{"simulate"}}, []string{`args[0] "simulate": must be a flag`}},
		{"pull mode without url", manifests.Options{Cloud: "aws", ClusterName: "c", PolicyGit: &manifests.PolicyGit{Path: "x"}}, []string{`policy git url "": required in pull mode`}},
		{"pull mode interval", manifests.Options{Cloud: "aws", ClusterName: "c", PolicyGit: &manifests.PolicyGit{URL: "https://example.com/p.git", Interval: time.Millisecond}},
			[]string{"policy git interval 1ms: use 1s or more"}},
		{"pull mode secret", manifests.Options{Cloud: "aws", ClusterName: "c", PolicyGit: &manifests.PolicyGit{URL: "https://example.com/p.git", Secret: "Git_Creds"}},
			[]string{`policy git secret "Git_Creds"`}},
		{"service monitor label key", manifests.Options{Cloud: "aws", ClusterName: "c", ServiceMonitor: &manifests.ServiceMonitor{Labels: map[string]string{"no good": "x"}}},
			[]string{`service monitor label "no good"`}},
		{"service monitor label value", manifests.Options{Cloud: "aws", ClusterName: "c", ServiceMonitor: &manifests.ServiceMonitor{Labels: map[string]string{"release": "a b"}}},
			[]string{`service monitor label "release" value "a b"`}},
		{"every problem at once", manifests.Options{Cloud: "x", Namespace: "X"}, []string{`cloud "x"`, "cluster name: required", `namespace "X"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manifests.Objects(tc.opts)
			if err == nil {
				t.Fatal("Objects accepted invalid options")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if _, err := manifests.AgentArgs(tc.opts); err == nil {
				t.Error("AgentArgs accepted invalid options")
			}
		})
	}
}

// TestRBACIsLeastPrivilege checks the rules against the Permissions table and the properties
// least privilege needs: no wildcards, no Secrets, Leases only in the agent's namespace, and
// creating Nodes only for the kwok cloud.
func TestRBACIsLeastPrivilege(t *testing.T) {
	for _, cloud := range manifests.Clouds {
		t.Run(cloud, func(t *testing.T) {
			objs := objects(t, manifests.Options{Cloud: cloud, ClusterName: "c"})
			cr := find[*rbacv1.ClusterRole](t, objs)
			r := find[*rbacv1.Role](t, objs)
			allowed := func(rules []rbacv1.PolicyRule, group, res, verb string) bool {
				for _, rule := range rules {
					if slices.Contains(rule.APIGroups, group) && slices.Contains(rule.Resources, res) && slices.Contains(rule.Verbs, verb) {
						return true
					}
				}
				return false
			}
			for _, rules := range [][]rbacv1.PolicyRule{cr.Rules, r.Rules} {
				for _, rule := range rules {
					for _, list := range [][]string{rule.APIGroups, rule.Resources, rule.Verbs} {
						if slices.Contains(list, "*") {
							t.Errorf("rule %v has a wildcard", rule)
						}
					}
					if slices.Contains(rule.Resources, "secrets") || slices.Contains(rule.Resources, "configmaps") {
						t.Errorf("rule %v grants secrets or configmaps", rule)
					}
					if len(rule.ResourceNames) > 0 || len(rule.NonResourceURLs) > 0 {
						t.Errorf("rule %v has resource names or URLs the table does not say", rule)
					}
				}
			}
			// Every verb of the table, and nothing more, is granted.
			var granted, listed int
			for _, rule := range cr.Rules {
				granted += len(rule.Verbs)
			}
			for _, rule := range r.Rules {
				granted += len(rule.Verbs)
			}
			for _, p := range manifests.PermissionsFor(cloud) {
				rules := cr.Rules
				if p.Namespaced {
					rules = r.Rules
				}
				for _, v := range p.Verbs {
					listed++
					if !allowed(rules, p.Group, p.Resource, v) {
						t.Errorf("%s %s %s is in the table but not granted", p.Group, p.Resource, v)
					}
				}
				if p.Why == "" {
					t.Errorf("%s %s has no reason", p.Group, p.Resource)
				}
			}
			if granted != listed {
				t.Errorf("the rules grant %d verbs, the table lists %d", granted, listed)
			}
			if allowed(cr.Rules, "coordination.k8s.io", "leases", "get") {
				t.Error("the ClusterRole grants leases; they belong in the namespaced Role")
			}
			if !allowed(r.Rules, "coordination.k8s.io", "leases", "update") {
				t.Error("the Role does not grant leases update, which leader election needs")
			}
			if got, want := allowed(cr.Rules, "", "nodes", "create"), cloud == manifests.CloudKWOK; got != want {
				t.Errorf("nodes create granted = %v, want %v for cloud %s", got, want, cloud)
			}
		})
	}
}

func TestDeploymentIsHardenedAndHighlyAvailable(t *testing.T) {
	objs := objects(t, localOptions())
	d := find[*appsv1.Deployment](t, objs)
	spec := d.Spec.Template.Spec
	if spec.ServiceAccountName != manifests.Name || spec.PriorityClassName != "system-cluster-critical" {
		t.Errorf("service account %q, priority class %q", spec.ServiceAccountName, spec.PriorityClassName)
	}
	if !selects(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
		t.Errorf("selector %v does not select the template's labels %v", d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
	}
	anti := spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(anti) != 1 || anti[0].TopologyKey != corev1.LabelHostname || !selects(anti[0].LabelSelector.MatchLabels, d.Spec.Template.Labels) {
		t.Errorf("pod anti-affinity %v, want one required term on %s selecting the agent", anti, corev1.LabelHostname)
	}
	node := spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(node) != 1 || node[0].MatchExpressions[0].Key != manifests.PoolLabel || node[0].MatchExpressions[0].Operator != corev1.NodeSelectorOpDoesNotExist {
		t.Errorf("node affinity %v, want %s DoesNotExist (never on a node the agent launched)", node, manifests.PoolLabel)
	}
	if tsc := spec.TopologySpreadConstraints; len(tsc) != 1 || tsc[0].TopologyKey != corev1.LabelTopologyZone {
		t.Errorf("topology spread %v, want one over zones", tsc)
	}
	if psc := spec.SecurityContext; psc == nil || !*psc.RunAsNonRoot || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod security context %v", psc)
	}
	c := spec.Containers[0]
	sc := c.SecurityContext
	if !*sc.RunAsNonRoot || !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation || *sc.Privileged || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container security context %+v", sc)
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["metrics"] != manifests.MetricsPort || ports["health"] != manifests.HealthPort {
		t.Errorf("ports %v", ports)
	}
	if c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe.HTTPGet.Path != "/readyz" ||
		c.LivenessProbe.HTTPGet.Port.StrVal != "health" || c.ReadinessProbe.HTTPGet.Port.StrVal != "health" {
		t.Errorf("probes %v %v, want /healthz and /readyz on the health port", c.LivenessProbe.HTTPGet, c.ReadinessProbe.HTTPGet)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
		t.Errorf("resources %v: want cpu and memory requests", c.Resources)
	}
	pdb := find[*policyv1.PodDisruptionBudget](t, objs)
	if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 || !selects(pdb.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
		t.Errorf("PDB %v, want maxUnavailable 1 selecting the agent", pdb.Spec)
	}
}

func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// TestGoldenAgentYAML keeps examples/local/agent.yaml equal to what the code builds; run
// `go test ./engine/agent/manifests -run Golden -update` after changing the code.
func TestGoldenAgentYAML(t *testing.T) {
	got, err := manifests.YAML(objects(t, localOptions()))
	if err != nil {
		t.Fatal(err)
	}
	header := []byte("# Generated by `go test ./engine/agent/manifests -run Golden -update` from engine/agent/manifests\n" +
		"# (cloud kwok, cluster name local, every other option at its default); do not edit.\n" +
		"# `make demo` runs the agent container's binary and arguments as a local process instead of\n" +
		"# applying the Deployment: the image is not pulled on a local cluster.\n")
	got = append(header, got...)
	path := filepath.Join("..", "..", "..", "examples", "local", "agent.yaml")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run `go test ./engine/agent/manifests -run Golden -update`", path)
	}
}

func TestYAMLIsStableAndRoundTrips(t *testing.T) {
	objs := objects(t, localOptions())
	a, err := manifests.YAML(objs)
	if err != nil {
		t.Fatal(err)
	}
	b, err := manifests.YAML(objects(t, localOptions()))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("two renderings of the same options differ")
	}
	if bytes.Contains(a, []byte("creationTimestamp: null")) || regexp.MustCompile(`(?m)^status:`).Match(a) {
		t.Error("the YAML carries creationTimestamp: null or a status")
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(a), 4096)
	var n int
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); err != nil {
			break
		}
		if u.Object == nil {
			continue
		}
		if u.GetKind() != objs[n].GetObjectKind().GroupVersionKind().Kind || u.GetName() != objs[n].GetName() {
			t.Errorf("document %d is %s %s, want %s %s", n, u.GetKind(), u.GetName(), objs[n].GetObjectKind().GroupVersionKind().Kind, objs[n].GetName())
		}
		n++
	}
	if n != len(objs) {
		t.Fatalf("decoded %d documents, want %d", n, len(objs))
	}
}

// TestAgentAcceptsTheGeneratedArguments parses the container's arguments with the agent's own
// flag parser, so a flag renamed or removed in engine/agent fails here rather than in a
// crash-looping Deployment, and checks each setting arrives where it should.
func TestAgentAcceptsTheGeneratedArguments(t *testing.T) {
	cases := []manifests.Options{
		localOptions(),
		{Cloud: manifests.CloudKWOK, ClusterName: "dev", Namespace: "autoscaling",
			Settings: manifests.Settings{BatchIdle: 2 * time.Second, BatchMax: 30 * time.Second, LogLevel: "debug", LogFormat: "text",
				Region: "us-east-1", Zones: []string{"us-east-1a", "us-east-1b"}, KWOKLaunchDelay: 3 * time.Second}},
		{Cloud: manifests.CloudAWS, ClusterName: "prod", Settings: manifests.Settings{LogLevel: "warn", InterruptionQueue: "prod-tenon"}},
		{Cloud: manifests.CloudAWS, ClusterName: "ranked", Settings: manifests.Settings{PodDeletionCost: true}},
		{Cloud: manifests.CloudKWOK, ClusterName: "gitops", PolicyGit: &manifests.PolicyGit{
			URL: "https://git.example.com/acme/policy.git", Branch: "prod", Path: "clusters/gitops", Interval: time.Minute, Secret: "policy-git"}},
		{Cloud: manifests.CloudKWOK, ClusterName: "gitops-http", PolicyGit: &manifests.PolicyGit{
			URL: "http://git.internal/acme/policy.git", Branch: "main", Interval: 30 * time.Second, Secret: "policy-git", InsecureHTTP: true}},
	}
	for _, opts := range cases {
		t.Run(opts.Cloud+"/"+opts.ClusterName, func(t *testing.T) {
			args, err := manifests.AgentArgs(opts)
			if err != nil {
				t.Fatal(err)
			}
			if args[0] != "agent" {
				t.Fatalf("the arguments start with %q, want the subcommand agent", args[0])
			}
			var stderr bytes.Buffer
			got, err := agent.ParseFlags(args[1:], &stderr)
			if err != nil {
				t.Fatalf("tenon agent rejects %q: %v\n%s", args, err, stderr.String())
			}
			o := opts.Defaulted()
			s := o.Settings
			if got.Cloud != o.Cloud || got.ClusterName != o.ClusterName || !got.LeaderElect || got.LeaderElectNamespace != o.Namespace ||
				got.BatchIdle != s.BatchIdle || got.BatchMax != s.BatchMax || got.LogLevel != s.LogLevel || got.LogFormat != s.LogFormat ||
				got.Region != s.Region || !slices.Equal(got.Zones, s.Zones) || got.KWOKLaunchDelay != s.KWOKLaunchDelay {
				t.Errorf("the agent parsed %+v from %q", got, args)
			}
			if got.PodDeletionCost != s.PodDeletionCost {
				t.Errorf("pod deletion cost %v, want %v", got.PodDeletionCost, s.PodDeletionCost)
			}
			if got.InterruptionQueue != s.InterruptionQueue {
				t.Errorf("interruption queue %q, want %q", got.InterruptionQueue, s.InterruptionQueue)
			}
			if g := o.PolicyGit; g != nil {
				p := got.PolicyGit
				if p.URL != g.URL || p.Branch != g.Branch || p.Path != g.Path || p.Interval != g.Interval || p.Secret != g.Secret || p.InsecureHTTP != g.InsecureHTTP {
					t.Errorf("pull mode %+v, want %+v", p, *g)
				}
			} else if got.PolicyGit.URL != "" {
				t.Errorf("pull mode on (%+v) without PolicyGit", got.PolicyGit)
			}
			if got.MetricsAddr != ":8080" || got.HealthAddr != ":8081" {
				t.Errorf("metrics %q, health %q: want the container ports :8080 and :8081", got.MetricsAddr, got.HealthAddr)
			}
		})
	}
}

// TestPullModeAddsOnlyItsPermissions: pull mode grants writes to the policy objects, its status
// ConfigMap by name and its credentials Secret by name; without it, none of these.
func TestPullModeAddsOnlyItsPermissions(t *testing.T) {
	has := func(rules []rbacv1.PolicyRule, group, res, verb string, names ...string) bool {
		for _, r := range rules {
			if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, res) && slices.Contains(r.Verbs, verb) && slices.Equal(r.ResourceNames, names) {
				return true
			}
		}
		return false
	}
	off := objects(t, localOptions())
	pull := localOptions()
	pull.PolicyGit = &manifests.PolicyGit{URL: "https://git.example.com/acme/policy.git", Secret: "policy-git"}
	on := objects(t, pull)
	checks := []struct {
		namespaced       bool
		group, res, verb string
		names            []string
	}{
		{false, "tenon.dev", "nodepools", "patch", nil},
		{false, "tenon.dev", "nodeclasses", "create", nil},
		{false, "tenon.dev", "provisioners", "delete", nil},
		{true, "", "configmaps", "create", nil},
		{true, "", "configmaps", "patch", []string{manifests.PolicyStatusConfigMap}},
		{true, "", "configmaps", "get", []string{manifests.PolicyStatusConfigMap}},
		{true, "", "secrets", "get", []string{"policy-git"}},
	}
	for _, c := range checks {
		rulesOf := func(objs []client.Object) []rbacv1.PolicyRule {
			if c.namespaced {
				return find[*rbacv1.Role](t, objs).Rules
			}
			return find[*rbacv1.ClusterRole](t, objs).Rules
		}
		if !has(rulesOf(on), c.group, c.res, c.verb, c.names...) {
			t.Errorf("pull mode lacks %s %s %s %v", c.group, c.res, c.verb, c.names)
		}
		if has(rulesOf(off), c.group, c.res, c.verb, c.names...) {
			t.Errorf("without pull mode the agent may %s %s %s %v", c.verb, c.group, c.res, c.names)
		}
	}
	for _, r := range find[*rbacv1.Role](t, on).Rules {
		if slices.Contains(r.Resources, "secrets") && !slices.Equal(r.ResourceNames, []string{"policy-git"}) {
			t.Errorf("a rule grants secrets beyond policy-git: %+v", r)
		}
	}
	args := find[*appsv1.Deployment](t, on).Spec.Template.Spec.Containers[0].Args
	if !slices.Contains(args, "--policy-git-url=https://git.example.com/acme/policy.git") || !slices.Contains(args, "--policy-git-secret=policy-git") {
		t.Errorf("args %q lack the pull-mode flags", args)
	}
}

// TestPatchOnPodsComesWithItsPolicy: the agent may patch pods (the awaiting-pods toleration,
// the pod deletion cost), always alongside the ValidatingAdmissionPolicy that limits those patches,
// bound with Deny to the agent's ServiceAccount in its namespace; the pod deletion cost adds no
// permission and passes --pod-deletion-cost.
func TestPatchOnPodsComesWithItsPolicy(t *testing.T) {
	verbs := func(objs []client.Object) (out []string) {
		for _, r := range find[*rbacv1.ClusterRole](t, objs).Rules {
			if slices.Contains(r.APIGroups, "") && slices.Contains(r.Resources, "pods") {
				out = append(out, r.Verbs...)
			}
		}
		slices.Sort(out)
		return out
	}
	opts := localOptions()
	opts.Namespace = "tenon-x"
	off := objects(t, opts)
	opts.Settings.PodDeletionCost = true
	on := objects(t, opts)
	for _, objs := range [][]client.Object{off, on} {
		if got := verbs(objs); !slices.Equal(got, []string{"delete", "get", "list", "patch", "watch"}) {
			t.Errorf("pods verbs %v", got)
		}
		policy := find[*admissionregistrationv1.ValidatingAdmissionPolicy](t, objs)
		binding := find[*admissionregistrationv1.ValidatingAdmissionPolicyBinding](t, objs)
		if policy.Name != manifests.PodPatchPolicyName("tenon-x") || binding.Spec.PolicyName != policy.Name {
			t.Errorf("policy %q bound as %q", policy.Name, binding.Spec.PolicyName)
		}
		if !slices.Equal(binding.Spec.ValidationActions, []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}) {
			t.Errorf("binding actions %v, want Deny", binding.Spec.ValidationActions)
		}
		if m := policy.Spec.MatchConditions; len(m) != 1 || !strings.Contains(m[0].Expression, "'system:serviceaccount:tenon-x:"+manifests.Name+"'") {
			t.Errorf("policy match conditions %v do not select the agent's ServiceAccount", m)
		}
	}
	if args := find[*appsv1.Deployment](t, on).Spec.Template.Spec.Containers[0].Args; !slices.Contains(args, "--pod-deletion-cost") {
		t.Errorf("args %q lack --pod-deletion-cost", args)
	}
	if args := find[*appsv1.Deployment](t, off).Spec.Template.Spec.Containers[0].Args; slices.Contains(args, "--pod-deletion-cost") {
		t.Errorf("args %q have --pod-deletion-cost with it off", args)
	}
}

// TestPullModeKeepsCredentialsOutOfTheDeployment: a repository URL holding
// credentials used to be written into the Deployment's arguments, which
// anyone who may read Deployments sees; it is refused, without printing it.
func TestPullModeKeepsCredentialsOutOfTheDeployment(t *testing.T) {
	o := manifests.Options{Cloud: "aws", ClusterName: "c", PolicyGit: &manifests.PolicyGit{URL: "https://x-access-token:s3cret@github.com/acme/policy.git"}}
	err := o.Defaulted().Validate()
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "holds credentials") {
		t.Errorf("Validate = %v, want the URL refused without its secret", err)
	}
	if _, err := manifests.AgentArgs(o); err == nil {
		t.Error("AgentArgs wrote a URL with credentials into the arguments")
	}
}

// TestPullModeHasAWritableTmp: with a read-only root filesystem, pull mode's
// SSH transport could not write its known_hosts file; an emptyDir at /tmp
// (the system's temporary folder) takes it.
func TestPullModeHasAWritableTmp(t *testing.T) {
	o := manifests.Options{Cloud: "kwok", ClusterName: "c", PolicyGit: &manifests.PolicyGit{URL: "git@github.com:acme/policy.git", Secret: "git"}}
	objs, err := manifests.Objects(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, obj := range objs {
		dep, ok := obj.(*appsv1.Deployment)
		if !ok {
			continue
		}
		spec := dep.Spec.Template.Spec
		mounted := slices.ContainsFunc(spec.Containers[0].VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/tmp" && !m.ReadOnly })
		empty := slices.ContainsFunc(spec.Volumes, func(v corev1.Volume) bool { return v.EmptyDir != nil })
		if !mounted || !empty || !*spec.Containers[0].SecurityContext.ReadOnlyRootFilesystem {
			t.Errorf("pull mode: /tmp mounted %v from an emptyDir %v under a read-only root", mounted, empty)
		}
		return
	}
	t.Fatal("no Deployment")
}
