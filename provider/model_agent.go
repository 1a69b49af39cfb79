package provider

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
)

// agentModel is tenon_agent's schema as Go values.
type agentModel struct {
	ID                        types.String              `tfsdk:"id"`
	Namespace                 types.String              `tfsdk:"namespace"`
	Image                     types.String              `tfsdk:"image"`
	ImagePullPolicy           types.String              `tfsdk:"image_pull_policy"`
	Replicas                  types.Int64               `tfsdk:"replicas"`
	Cloud                     types.String              `tfsdk:"cloud"`
	ClusterName               types.String              `tfsdk:"cluster_name"`
	ServiceAccountAnnotations map[string]types.String   `tfsdk:"service_account_annotations"`
	Settings                  *agentSettingsModel       `tfsdk:"settings"`
	Args                      []types.String            `tfsdk:"args"`
	ServiceMonitor            *agentServiceMonitorModel `tfsdk:"service_monitor"`
	WaitForRollout            types.Bool                `tfsdk:"wait_for_rollout"`
	ForceDestroy              types.Bool                `tfsdk:"force_destroy"`
	Timeouts                  *agentTimeoutsModel       `tfsdk:"timeouts"`
	AvailableReplicas         types.Int64               `tfsdk:"available_replicas"`
}

type agentSettingsModel struct {
	BatchIdle         types.String   `tfsdk:"batch_idle"`
	BatchMax          types.String   `tfsdk:"batch_max"`
	LogLevel          types.String   `tfsdk:"log_level"`
	LogFormat         types.String   `tfsdk:"log_format"`
	InterruptionQueue types.String   `tfsdk:"interruption_queue"`
	Region            types.String   `tfsdk:"region"`
	Zones             []types.String `tfsdk:"zones"`
	KWOKLaunchDelay   types.String   `tfsdk:"kwok_launch_delay"`
	PodDeletionCost   types.Bool     `tfsdk:"pod_deletion_cost"`
}

type agentServiceMonitorModel struct {
	Labels map[string]types.String `tfsdk:"labels"`
}

type agentTimeoutsModel struct {
	Create types.String `tfsdk:"create"`
	Update types.String `tfsdk:"update"`
}

// defaultRolloutTimeout bounds the wait for the Deployment when timeouts are not set.
const defaultRolloutTimeout = 10 * time.Minute

// defaultAgentSettings is the settings of an agent without a settings block.
func defaultAgentSettings() types.Object {
	return types.ObjectValueMust(agentSettingsType.AttrTypes, map[string]attr.Value{
		"batch_idle": types.StringValue(manifests.DefaultBatchIdle.String()), "batch_max": types.StringValue(manifests.DefaultBatchMax.String()),
		"log_level": types.StringValue(manifests.DefaultLogLevel), "log_format": types.StringValue(manifests.DefaultLogFormat),
		"interruption_queue": types.StringNull(), "region": types.StringNull(), "zones": types.ListNull(types.StringType),
		"kwok_launch_delay": types.StringNull(), "pod_deletion_cost": types.BoolValue(false),
	})
}

// agentProblem maps the start of a manifests.Options.Validate problem to its attribute.
var agentProblems = []struct {
	prefix string
	path   path.Path
}{
	{"image pull policy", path.Root("image_pull_policy")},
	{"image", path.Root("image")},
	{"namespace", path.Root("namespace")},
	{"replicas", path.Root("replicas")},
	{"cloud", path.Root("cloud")},
	{"cluster name", path.Root("cluster_name")},
	{"service account annotation", path.Root("service_account_annotations")},
	{"settings batch idle", path.Root("settings").AtName("batch_idle")},
	{"settings batch max", path.Root("settings").AtName("batch_max")},
	{"settings log level", path.Root("settings").AtName("log_level")},
	{"settings log format", path.Root("settings").AtName("log_format")},
	{"settings interruption queue", path.Root("settings").AtName("interruption_queue")},
	{"settings kwok launch delay", path.Root("settings").AtName("kwok_launch_delay")},
	{"settings zones", path.Root("settings").AtName("zones")},
	{"args", path.Root("args")},
	{"service monitor label", path.Root("service_monitor").AtName("labels")},
}

// agentProblemPath returns the attribute a problem is about, and whether one matched. Problems
// about one element (args[1], settings zones[0], service account annotation "key") point at it,
// so that an element unknown at plan time is not reported.
func agentProblemPath(problem string) (path.Path, bool) {
	for _, p := range agentProblems {
		rest, found := strings.CutPrefix(problem, p.prefix)
		if !found || rest == "" || !strings.ContainsRune(" [:", rune(rest[0])) {
			continue
		}
		if i, ok := bracketIndex(rest); ok {
			return p.path.AtListIndex(i), true
		}
		if key, ok := quotedKey(rest); ok && (p.prefix == "service account annotation" || p.prefix == "service monitor label") {
			return p.path.AtMapKey(key), true
		}
		return p.path, true
	}
	return path.Empty(), false
}

// bracketIndex reads a leading "[3]".
func bracketIndex(s string) (int, bool) {
	if !strings.HasPrefix(s, "[") {
		return 0, false
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return 0, false
	}
	var i int
	if _, err := fmt.Sscanf(s[1:end], "%d", &i); err != nil {
		return 0, false
	}
	return i, true
}

// quotedKey reads a leading ` "key"`.
func quotedKey(s string) (string, bool) {
	var key string
	if _, err := fmt.Sscanf(strings.TrimPrefix(s, " "), "%q", &key); err != nil {
		return "", false
	}
	return key, true
}

// splitAgentProblems splits the error of manifests.Options.Validate ("invalid agent options:
// a; b; c") into its problems. A problem's own text may hold "; " too, so only a "; "
// followed by a known field starts a new one.
func splitAgentProblems(msg string) []string {
	msg = strings.TrimPrefix(msg, "invalid agent options: ")
	parts := strings.Split(msg, "; ")
	var out []string
	for _, part := range parts {
		if _, ok := agentProblemPath(part); ok || len(out) == 0 {
			out = append(out, part)
			continue
		}
		out[len(out)-1] += "; " + part
	}
	return out
}

// parseDuration reads a settings duration; an empty one is the default (zero).
func parseDuration(v types.String, name string, errs *[]string) time.Duration {
	if v.IsNull() || v.IsUnknown() || v.ValueString() == "" {
		return 0
	}
	d, err := time.ParseDuration(v.ValueString())
	if err != nil {
		*errs = append(*errs, fmt.Sprintf("settings %s %q: must be a duration such as 1s or 500ms", name, v.ValueString()))
	}
	return d
}

// toOptions builds the manifests options the model describes; problems are reported like
// manifests' own, so they map to attributes the same way.
func (m *agentModel) toOptions() (manifests.Options, []string) {
	var problems []string
	o := manifests.Options{
		Namespace:                 str(m.Namespace),
		Image:                     str(m.Image),
		ImagePullPolicy:           corev1.PullPolicy(str(m.ImagePullPolicy)),
		Cloud:                     str(m.Cloud),
		ClusterName:               str(m.ClusterName),
		ServiceAccountAnnotations: strMap[string](m.ServiceAccountAnnotations),
		Args:                      strList(m.Args),
	}
	if sm := m.ServiceMonitor; sm != nil {
		o.ServiceMonitor = &manifests.ServiceMonitor{Labels: strMap[string](sm.Labels)}
	}
	if !m.Replicas.IsNull() && !m.Replicas.IsUnknown() {
		o.Replicas = int32(m.Replicas.ValueInt64())
		if o.Replicas == 0 {
			problems = append(problems, "replicas 0: must be at least 1 (2 or more keep a stand-by agent)")
		}
	}
	if s := m.Settings; s != nil {
		o.Settings = manifests.Settings{
			BatchIdle:         parseDuration(s.BatchIdle, "batch idle", &problems),
			BatchMax:          parseDuration(s.BatchMax, "batch max", &problems),
			LogLevel:          str(s.LogLevel),
			LogFormat:         str(s.LogFormat),
			InterruptionQueue: str(s.InterruptionQueue),
			Region:            str(s.Region),
			Zones:             strList(s.Zones),
			KWOKLaunchDelay:   parseDuration(s.KWOKLaunchDelay, "kwok launch delay", &problems),
			PodDeletionCost:   s.PodDeletionCost.ValueBool(),
		}
	}
	return o, problems
}

func (m *agentModel) rolloutTimeout(update bool) time.Duration {
	if m.Timeouts == nil {
		return defaultRolloutTimeout
	}
	v := m.Timeouts.Create
	if update {
		v = m.Timeouts.Update
	}
	if d, err := time.ParseDuration(v.ValueString()); err == nil && d > 0 {
		return d
	}
	return defaultRolloutTimeout
}

// generatedFlags are the agent flags manifests always sets and no attribute holds.
var generatedFlags = map[string]bool{"metrics-addr": true, "health-addr": true, "leader-elect": true, "leader-elect-namespace": true}

// agentFromLive is the model of an installed agent, read back from its Deployment's container
// (image, replicas, and the flags the settings became) and ServiceAccount. prior (the state)
// supplies what the cluster does not hold (wait_for_rollout, force_destroy, timeouts) and the
// spelling of durations that did not change.
func agentFromLive(d *appsv1.Deployment, sa *corev1.ServiceAccount, prior *agentModel) agentModel {
	m := *prior
	// On import the state holds only the namespace: take every annotation. Afterwards only the
	// configured keys are compared, so annotations other controllers add are no drift.
	importing := prior.Cloud.IsNull()
	m.ID, m.Namespace = types.StringValue(d.Namespace), types.StringValue(d.Namespace)
	m.Replicas = types.Int64Value(int64(ptrOr(d.Spec.Replicas, 1)))
	m.AvailableReplicas = types.Int64Value(int64(d.Status.AvailableReplicas))
	if m.WaitForRollout.IsNull() {
		m.WaitForRollout = types.BoolValue(true)
	}
	if m.ForceDestroy.IsNull() {
		m.ForceDestroy = types.BoolValue(false)
	}
	var container *corev1.Container
	for i := range d.Spec.Template.Spec.Containers {
		if d.Spec.Template.Spec.Containers[i].Name == manifests.ContainerName {
			container = &d.Spec.Template.Spec.Containers[i]
		}
	}
	if container == nil {
		return m
	}
	m.Image = types.StringValue(container.Image)
	if !prior.ImagePullPolicy.IsNull() {
		// The API server defaults the policy; only one the user set is compared.
		m.ImagePullPolicy = types.StringValue(string(container.ImagePullPolicy))
	}
	priorSettings := prior.Settings
	if priorSettings == nil {
		priorSettings = &agentSettingsModel{}
	}
	s := &agentSettingsModel{
		BatchIdle: types.StringNull(), BatchMax: types.StringNull(), LogLevel: types.StringNull(), LogFormat: types.StringNull(),
		InterruptionQueue: types.StringNull(), Region: types.StringNull(), KWOKLaunchDelay: types.StringNull(),
		PodDeletionCost: types.BoolValue(false),
	}
	m.Cloud, m.ClusterName, m.Args = types.StringNull(), types.StringNull(), nil
	for _, arg := range container.Args {
		name, value, ok := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		switch {
		case arg == "agent" || generatedFlags[name]:
		case name == "pod-deletion-cost" && (!ok || value == "true" || value == "false"):
			s.PodDeletionCost = types.BoolValue(!ok || value == "true")
		case !ok || !strings.HasPrefix(arg, "-"):
			m.Args = append(m.Args, types.StringValue(arg))
		case name == "cloud":
			m.Cloud = types.StringValue(value)
		case name == "cluster-name":
			m.ClusterName = types.StringValue(value)
		case name == "batch-idle":
			s.BatchIdle = keepDuration(value, priorSettings.BatchIdle)
		case name == "batch-max":
			s.BatchMax = keepDuration(value, priorSettings.BatchMax)
		case name == "log-level":
			s.LogLevel = types.StringValue(value)
		case name == "log-format":
			s.LogFormat = types.StringValue(value)
		case name == "interruption-queue":
			s.InterruptionQueue = types.StringValue(value)
		case name == "region":
			s.Region = types.StringValue(value)
		case name == "zones":
			s.Zones = tfStrList(strings.Split(value, ","))
		case name == "kwok-launch-delay":
			s.KWOKLaunchDelay = keepDuration(value, priorSettings.KWOKLaunchDelay)
		default:
			m.Args = append(m.Args, types.StringValue(arg))
		}
	}
	m.Settings = s
	m.ServiceAccountAnnotations = nil
	for k := range sa.Annotations {
		_, configured := prior.ServiceAccountAnnotations[k]
		if v := sa.Annotations[k]; configured || importing {
			if m.ServiceAccountAnnotations == nil {
				m.ServiceAccountAnnotations = map[string]types.String{}
			}
			m.ServiceAccountAnnotations[k] = types.StringValue(v)
		}
	}
	return m
}

// keepDuration returns the live duration, in prior's spelling when they are equal.
func keepDuration(live string, prior types.String) types.String {
	l, err1 := time.ParseDuration(live)
	p, err2 := time.ParseDuration(prior.ValueString())
	if err1 == nil && err2 == nil && l == p {
		return prior
	}
	return types.StringValue(live)
}
