package provider

import (
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
	"github.com/tenonhq/terraform-provider-tenon/hack/testenv"
)

func agentHCL(body string) string {
	return "resource \"tenon_agent\" \"test\" {\n" + body + "\n}\n"
}

func TestAgentValidationAtPlan(t *testing.T) {
	ok := "  cloud        = \"kwok\"\n  cluster_name = \"local\"\n"
	cases := []validationCase{
		{"cloud", agentHCL("  cloud = \"gcp\"\n  cluster_name = \"local\""), "cloud"},
		{"cluster name", agentHCL("  cloud = \"kwok\"\n  cluster_name = \"Local Cluster\""), "cluster_name"},
		{"namespace", agentHCL(ok + "  namespace = \"Tenon\""), "namespace"},
		{"replicas", agentHCL(ok + "  replicas = 0"), "replicas"},
		{"pull policy", agentHCL(ok + "  image_pull_policy = \"Sometimes\""), "image_pull_policy"},
		{"log level", agentHCL(ok + "  settings = { log_level = \"loud\" }"), "settings.log_level"},
		{"batch idle", agentHCL(ok + "  settings = { batch_idle = \"soon\" }"), "settings.batch_idle"},
		{"batch idle above max", agentHCL(ok + "  settings = { batch_idle = \"20s\", batch_max = \"10s\" }"), "settings.batch_idle"},
		{"interruption queue on kwok", agentHCL(ok + "  settings = { interruption_queue = \"q\" }"), "settings.interruption_queue"},
		{"args", agentHCL(ok + "  args = [\"--fine\", \"verbose\"]"), "args[1]"},
		{"zones", agentHCL(ok + "  settings = { zones = [\"a,b\"] }"), "settings.zones[0]"},
		{"annotation", agentHCL(ok + "  service_account_annotations = { \"not a key\" = \"x\" }"), `service_account_annotations["not a key"]`},
		{"service monitor label", agentHCL(ok + "  service_monitor = { labels = { release = \"a b\" } }"), `service_monitor.labels["release"]`},
	}
	runValidationCases(t, "Invalid Agent", cases)
}

// TestAgentUnknownAtPlan: values known only after apply (the cluster name and an argument
// from an EKS module) are not reported at plan time.
func TestAgentUnknownAtPlan(t *testing.T) {
	testenv.RequireTofu(t, testenv.CLITest)
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: factories(newMemoryTarget()),
		Steps: []tfresource.TestStep{{
			Config: `
resource "terraform_data" "eks" {
  input = "prod"
}

resource "tenon_agent" "test" {
  cloud        = "aws"
  cluster_name = terraform_data.eks.output
  args         = ["--cluster-endpoint=https://x", terraform_data.eks.output]
  service_account_annotations = { "eks.amazonaws.com/role-arn" = terraform_data.eks.output }
}
`,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}

func TestSplitAgentProblems(t *testing.T) {
	got := splitAgentProblems(`invalid agent options: cluster name: required; it names the cluster in cloud tags and logs; replicas 0: must be at least 1; settings log level "x": must be one of debug, info`)
	want := []string{"cluster name: required; it names the cluster in cloud tags and logs", "replicas 0: must be at least 1", `settings log level "x": must be one of debug, info`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestAgentRoundTrip: what the model installs (manifests' Deployment and ServiceAccount) reads
// back as the same model, so a plan after apply is empty and import sees every setting.
func TestAgentRoundTrip(t *testing.T) {
	s := types.StringValue
	for _, tc := range []struct {
		name  string
		model agentModel
	}{
		{"aws with every setting", agentModel{
			Namespace: s("tenon"), Image: s("example.com/tenon:v1"), ImagePullPolicy: s("IfNotPresent"), Replicas: types.Int64Value(3),
			Cloud: s("aws"), ClusterName: s("prod"),
			ServiceAccountAnnotations: map[string]types.String{"eks.amazonaws.com/role-arn": s("arn:aws:iam::1:role/tenon")},
			Settings: &agentSettingsModel{BatchIdle: s("2s"), BatchMax: s("20s"), LogLevel: s("debug"), LogFormat: s("text"),
				InterruptionQueue: s("tenon-prod"), Region: s("eu-west-1"), Zones: []types.String{s("eu-west-1a"), s("eu-west-1b")}, KWOKLaunchDelay: types.StringNull(),
				PodDeletionCost: types.BoolValue(true)},
			Args:           []types.String{s("--disruption-interval=30s")},
			ServiceMonitor: &agentServiceMonitorModel{Labels: map[string]types.String{"release": s("kube-prometheus-stack")}},
			WaitForRollout: types.BoolValue(true), ForceDestroy: types.BoolValue(false),
		}},
		{"kwok defaults", agentModel{
			Namespace: s(manifests.DefaultNamespace), Image: s(manifests.DefaultImage), ImagePullPolicy: types.StringNull(), Replicas: types.Int64Value(2),
			Cloud: s("kwok"), ClusterName: s("local"),
			Settings: &agentSettingsModel{BatchIdle: s("1s"), BatchMax: s("10s"), LogLevel: s("info"), LogFormat: s("json"),
				InterruptionQueue: types.StringNull(), Region: types.StringNull(), KWOKLaunchDelay: s("5s"), PodDeletionCost: types.BoolValue(false)},
			WaitForRollout: types.BoolValue(false), ForceDestroy: types.BoolValue(true),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts, problems := tc.model.toOptions()
			if len(problems) > 0 {
				t.Fatal(problems)
			}
			objs, err := manifests.Objects(opts)
			if err != nil {
				t.Fatal(err)
			}
			var d *appsv1.Deployment
			var sa *corev1.ServiceAccount
			for _, o := range objs {
				switch o := o.(type) {
				case *appsv1.Deployment:
					d = o
				case *corev1.ServiceAccount:
					sa = o
				}
			}
			want := tc.model
			want.ID = want.Namespace
			want.AvailableReplicas = types.Int64Value(0)
			got := agentFromLive(d, sa, &tc.model)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("round trip changed the model (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRolledOut(t *testing.T) {
	two := int32(2)
	available := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue}
	for _, tc := range []struct {
		name   string
		status appsv1.DeploymentStatus
		gen    int64
		want   bool
	}{
		{"all available", appsv1.DeploymentStatus{ObservedGeneration: 2, UpdatedReplicas: 2, AvailableReplicas: 2, Conditions: []appsv1.DeploymentCondition{available}}, 2, true},
		{"old generation observed", appsv1.DeploymentStatus{ObservedGeneration: 1, UpdatedReplicas: 2, AvailableReplicas: 2, Conditions: []appsv1.DeploymentCondition{available}}, 2, false},
		{"one available", appsv1.DeploymentStatus{ObservedGeneration: 2, UpdatedReplicas: 2, AvailableReplicas: 1, Conditions: []appsv1.DeploymentCondition{available}}, 2, false},
		{"no condition", appsv1.DeploymentStatus{ObservedGeneration: 2, UpdatedReplicas: 2, AvailableReplicas: 2}, 2, false},
	} {
		d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &two}, Status: tc.status}
		d.Generation = tc.gen
		if got := rolledOut(d); got != tc.want {
			t.Errorf("%s: rolledOut = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestAgentServiceMonitor: the service_monitor block adds the ServiceMonitor manifests builds,
// with its labels; without it there is none; a bad label points at its key.
func TestAgentServiceMonitor(t *testing.T) {
	base := agentModel{Cloud: types.StringValue("kwok"), ClusterName: types.StringValue("local")}
	count := func(m agentModel) (int, map[string]string) {
		opts, problems := m.toOptions()
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		objs, err := manifests.Objects(opts)
		if err != nil {
			t.Fatal(err)
		}
		n, labels := 0, map[string]string(nil)
		for _, o := range objs {
			if o.GetObjectKind().GroupVersionKind().Kind == manifests.ServiceMonitorKind {
				n, labels = n+1, o.GetLabels()
			}
		}
		return n, labels
	}
	if n, _ := count(base); n != 0 {
		t.Errorf("without service_monitor: %d ServiceMonitors, want none", n)
	}
	with := base
	with.ServiceMonitor = &agentServiceMonitorModel{Labels: map[string]types.String{"release": types.StringValue("prom")}}
	if n, labels := count(with); n != 1 || labels["release"] != "prom" || labels["app.kubernetes.io/name"] != "tenon" {
		t.Errorf("with service_monitor: %d ServiceMonitors labelled %v, want one with release=prom and the agent's labels", n, labels)
	}
	p, ok := agentProblemPath(`service monitor label "release" value "a b": a valid label must be ...`)
	if want := path.Root("service_monitor").AtName("labels").AtMapKey("release"); !ok || !p.Equal(want) {
		t.Errorf("problem path = %s, want %s", p, want)
	}
}
