package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tenonhq/terraform-provider-tenon/engine/agent/manifests"
	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

var _ tenonResource = (*agentResource)(nil)

// agentResource is tenon_agent: the agent's Namespace, CRDs, ServiceAccount, RBAC, Deployment
// and PodDisruptionBudget, as engine/agent/manifests builds them. Unlike the object resources
// it stands for several objects and waits for the rollout, so it shares only the target and
// the plan-to-state shape (applyPlan) with them.
type agentResource struct {
	targetResource
}

// NewAgentResource returns the tenon_agent resource.
func NewAgentResource() resource.Resource { return &agentResource{targetResource{typeName: "_agent"}} }

func (r *agentResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Installs, upgrades and removes Tenon's agent: its Namespace, the `tenon.dev` CRDs, a ServiceAccount " +
			"(with annotations for IAM roles for service accounts), least-privilege RBAC, the Deployment (leader election, " +
			"probes, metrics) and a PodDisruptionBudget, built by `engine/agent/manifests` (the same objects as " +
			"`examples/local/agent.yaml`). Apply waits until the Deployment is available. Destroy refuses to remove the CRDs " +
			"while nodes the agent launched still exist, unless `force_destroy` is set.\n\n" +
			"Where the image cannot be pulled (a local KWOK cluster, air-gapped tests), KWOK still reports the agent's pod " +
			"Running, and the agent itself runs outside the cluster with the Deployment's own arguments plus `--kubeconfig` " +
			"(`tenon agent --cloud=kwok --cluster-name=... --kubeconfig=...`), as `make demo` and the acceptance test do.",
		Attributes: map[string]schema.Attribute{
			"id": idAttribute(),
			"namespace": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(manifests.DefaultNamespace),
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "Namespace of the agent. Defaults to `" + manifests.DefaultNamespace + "`; changing it reinstalls the agent."},
			"image": defaultedString(manifests.DefaultImage, "Container image of the agent. Defaults to the agent of the provider's own version, `"+
				manifests.ImageRepository+":v<provider version>`; a development build of the provider names its own version, which no release publishes."),
			"image_pull_policy": schema.StringAttribute{Optional: true,
				MarkdownDescription: codeList(pullPolicies, nil) + "; absent lets Kubernetes choose."},
			"replicas": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(manifests.DefaultReplicas),
				MarkdownDescription: "Replicas of the Deployment: one leader, the others on stand-by. Defaults to 2 (they need two nodes)."},
			"cloud":                       schema.StringAttribute{Required: true, MarkdownDescription: "Where nodes are launched: " + codeList(manifests.Clouds, nil) + "."},
			"cluster_name":                schema.StringAttribute{Required: true, MarkdownDescription: "Name of the cluster in cloud tags and logs."},
			"service_account_annotations": optStringMap("Annotations of the agent's ServiceAccount, such as `eks.amazonaws.com/role-arn` for IRSA."),
			"settings": schema.SingleNestedAttribute{Optional: true, Computed: true, Default: objectdefault.StaticValue(defaultAgentSettings()),
				MarkdownDescription: "The agent's behaviour flags.",
				Attributes:          agentSettingsAttributes()},
			"args": schema.ListAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyList(),
				MarkdownDescription: "Extra flags of `tenon agent` for what `settings` does not cover, such as `--cluster-cidr=172.20.0.0/16` (aws); `tenon agent --help` lists them. A flag the agent does not know stops it, so the pods crash-loop."},
			"service_monitor": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "Add a Prometheus Operator ServiceMonitor (`monitoring.coreos.com/v1`) that scrapes the agent's metrics Service `" +
					manifests.MetricsServiceName + "`; the cluster needs the Operator's CRDs. Absent means none. Removing the block removes the ServiceMonitor.",
				Attributes: map[string]schema.Attribute{
					"labels": optStringMap("Labels of the ServiceMonitor besides the agent's own, such as `release = \"kube-prometheus-stack\"` for a Prometheus that selects ServiceMonitors by it."),
				}},
			"wait_for_rollout": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Wait after apply until the Deployment is available (all replicas updated and ready). Defaults to true."},
			"force_destroy": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Remove the CRDs (and with them every NodePool, NodeClass and NodeClaim) even while nodes the agent launched still exist. Those nodes are then no longer managed: remove them yourself."},
			"timeouts": schema.SingleNestedAttribute{Optional: true, MarkdownDescription: "How long apply waits for the rollout.",
				Attributes: map[string]schema.Attribute{
					"create": schema.StringAttribute{Optional: true, MarkdownDescription: "Such as `10m` (the default)."},
					"update": schema.StringAttribute{Optional: true, MarkdownDescription: "Such as `10m` (the default)."},
				}},
			"available_replicas": schema.Int64Attribute{Computed: true, MarkdownDescription: "Available replicas of the agent's Deployment when last read."},
		},
	}
}

// pullPolicies are the image pull policies of a container.
var pullPolicies = []corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}

// defaultedString is an optional string with a default.
func defaultedString(def, d string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(def), MarkdownDescription: d}
}

// agentSettingsAttributes are the agent's flags; each defaults as manifests does.
func agentSettingsAttributes() map[string]schema.Attribute {
	optStr := func(d string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: d}
	}
	return map[string]schema.Attribute{
		"batch_idle": defaultedString(manifests.DefaultBatchIdle.String(), "A batch of pending pods ends after this long without a new one. Defaults to `"+manifests.DefaultBatchIdle.String()+"`."),
		"batch_max":  defaultedString(manifests.DefaultBatchMax.String(), "A batch ends this long after its first pod at the latest. Defaults to `"+manifests.DefaultBatchMax.String()+"`."),
		"log_level": defaultedString(manifests.DefaultLogLevel,
			codeList(manifests.LogLevels, map[string]string{manifests.DefaultLogLevel: "the default"})+"."),
		"log_format": defaultedString(manifests.DefaultLogFormat,
			codeList(manifests.LogFormats, map[string]string{manifests.DefaultLogFormat: "the default"})+"."),
		"interruption_queue": optStr("SQS queue of spot interruption and instance state events (aws only)."),
		"region":             optStr("Cloud region; absent lets the agent decide."),
		"zones": schema.ListAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmptyList(),
			MarkdownDescription: "Zones nodes may be launched in; absent means all of the region."},
		"kwok_launch_delay": optStr("Simulated boot time of KWOK nodes, such as `5s` (kwok only)."),
		"pod_deletion_cost": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
			MarkdownDescription: "Write `controller.kubernetes.io/pod-deletion-cost` on ReplicaSet pods, so that a scale-down deletes first the replicas " +
				"on the nodes consolidation would remove (those its plan removes, then those a scale-down can empty). Values a user set are " +
				"never changed, and a ReplicaSet with one is left alone. Defaults to `false`, as in Karpenter. (The agent may patch pods in any case, " +
				"limited by the ValidatingAdmissionPolicy installed with it to this annotation and the `tenon.dev/awaiting-pods` toleration.)"},
	}
}

// agentSettingsType is the settings attribute's object type, derived from its schema.
var agentSettingsType = attributesType(agentSettingsAttributes())

// ValidateConfig runs manifests' own validation of the options at plan time.
func (r *agentResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m agentModel
	if d := req.Config.Get(ctx, &m); d.HasError() {
		return
	}
	opts, problems := m.toOptions()
	if err := opts.Defaulted().Validate(); err != nil {
		problems = append(problems, splitAgentProblems(err.Error())...)
	}
	if t := m.Timeouts; t != nil {
		for name, v := range map[string]types.String{"create": t.Create, "update": t.Update} {
			if _, err := time.ParseDuration(v.ValueString()); !v.IsNull() && !v.IsUnknown() && err != nil {
				resp.Diagnostics.AddAttributeError(path.Root("timeouts").AtName(name), "Invalid Agent Timeout", "timeouts."+name+": must be a duration such as 10m")
			}
		}
	}
	for _, problem := range problems {
		p, ok := agentProblemPath(problem)
		if !ok || underUnknown(ctx, req.Config, p) {
			if !ok {
				resp.Diagnostics.AddError("Invalid Agent", problem)
			}
			continue
		}
		resp.Diagnostics.AddAttributeError(p, "Invalid Agent", p.String()+": "+problem)
	}
}

func (r *agentResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	applyPlan(ctx, req.Plan, &resp.State, &resp.Diagnostics, func(ctx context.Context, plan *agentModel, diags *diag.Diagnostics) bool {
		return r.install(ctx, plan, plan.rolloutTimeout(false), diags)
	})
}

func (r *agentResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var prior agentModel
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	applyPlan(ctx, req.Plan, &resp.State, &resp.Diagnostics, func(ctx context.Context, plan *agentModel, diags *diag.Diagnostics) bool {
		if !r.install(ctx, plan, plan.rolloutTimeout(true), diags) {
			return false
		}
		if prior.ServiceMonitor != nil && plan.ServiceMonitor == nil {
			// The block was removed: install no longer builds the ServiceMonitor, so remove it.
			if err := r.target.Delete(ctx, manifests.ServiceMonitorObject(str(plan.Namespace))); err != nil {
				diags.AddError("Cannot Remove the ServiceMonitor", err.Error())
				return false
			}
		}
		return true
	})
}

// install applies every object in order, then waits for the rollout when asked.
func (r *agentResource) install(ctx context.Context, plan *agentModel, timeout time.Duration, diags *diag.Diagnostics) bool {
	if !requireTarget(r.target, diags) {
		return false
	}
	opts, _ := plan.toOptions()
	objs, err := manifests.Objects(opts)
	if err != nil {
		diags.AddError("Invalid Agent", err.Error())
		return false
	}
	for _, obj := range objs {
		if err := r.target.Apply(ctx, obj); err != nil {
			diags.AddError("Cannot Install the Agent", err.Error())
			return false
		}
	}
	plan.ID = types.StringValue(opts.Defaulted().Namespace)
	plan.AvailableReplicas = types.Int64Value(0)
	if !plan.WaitForRollout.ValueBool() {
		if d, err := r.deployment(ctx, plan.Namespace.ValueString()); err == nil {
			plan.AvailableReplicas = types.Int64Value(int64(d.Status.AvailableReplicas))
		}
		return true
	}
	d, err := r.waitForRollout(ctx, plan.Namespace.ValueString(), timeout)
	if err != nil {
		diags.AddError("Agent Not Available", err.Error())
		return false
	}
	plan.AvailableReplicas = types.Int64Value(int64(d.Status.AvailableReplicas))
	return true
}

func (r *agentResource) deployment(ctx context.Context, namespace string) (*appsv1.Deployment, error) {
	d := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: manifests.Name, Namespace: namespace}}
	return d, r.target.Get(ctx, d)
}

// rolloutPoll is how often the Deployment is read while waiting.
const rolloutPoll = time.Second

// waitForRollout waits until the Deployment's current generation is rolled out and available.
func (r *agentResource) waitForRollout(ctx context.Context, namespace string, timeout time.Duration) (*appsv1.Deployment, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		d, err := r.deployment(ctx, namespace)
		if err != nil && ctx.Err() == nil {
			return nil, err
		}
		if err == nil && rolledOut(d) {
			return d, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the agent Deployment %s/%s is not available after %s (%s); check `kubectl -n %s describe deployment %s` "+
				"(can the nodes pull the image?), or set wait_for_rollout = false", namespace, manifests.Name, timeout, describeRollout(d), namespace, manifests.Name)
		case <-time.After(rolloutPoll):
		}
	}
}

func rolledOut(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	if d.Status.ObservedGeneration < d.Generation || d.Status.UpdatedReplicas < want || d.Status.AvailableReplicas < want {
		return false
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func describeRollout(d *appsv1.Deployment) string {
	if d == nil {
		return "not found"
	}
	parts := []string{fmt.Sprintf("%d of %d replicas available", d.Status.AvailableReplicas, ptrOr(d.Spec.Replicas, 1))}
	for _, c := range d.Status.Conditions {
		parts = append(parts, fmt.Sprintf("%s=%s %s", c.Type, c.Status, c.Message))
	}
	return strings.Join(parts, "; ")
}

func ptrOr(p *int32, def int32) int32 {
	if p == nil {
		return def
	}
	return *p
}

func (r *agentResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state agentModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireTarget(r.target, &resp.Diagnostics) {
		return
	}
	d, err := r.deployment(ctx, state.ID.ValueString())
	if delivery.IsNotFound(err) {
		resp.State.RemoveResource(ctx)
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot Read the Agent", err.Error())
		return
	}
	sa := &corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: metav1.ObjectMeta{Name: manifests.Name, Namespace: d.Namespace}}
	if err := r.target.Get(ctx, sa); err != nil && !delivery.IsNotFound(err) {
		resp.Diagnostics.AddError("Cannot Read the Agent", err.Error())
		return
	}
	m := agentFromLive(d, sa, &state)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *agentResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state agentModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() || !requireTarget(r.target, &resp.Diagnostics) {
		return
	}
	if lister, ok := r.target.(delivery.Lister); ok && !state.ForceDestroy.ValueBool() {
		nodes, err := lister.ListNames(ctx, corev1.SchemeGroupVersion.WithKind("Node"), manifests.PoolLabel)
		if err != nil {
			resp.Diagnostics.AddError("Cannot Remove the Agent", err.Error())
			return
		}
		if len(nodes) > 0 {
			resp.Diagnostics.AddError("Tenon Still Manages Nodes",
				fmt.Sprintf("%d node(s) launched by the agent still exist (%s). Removing the agent and its CRDs would leave them running "+
					"and unmanaged. Delete the node pools first (the agent drains and removes their nodes), then destroy the agent; or set "+
					"force_destroy = true to remove it anyway and remove those nodes yourself.", len(nodes), strings.Join(firstN(nodes, 5), ", ")))
			return
		}
	}
	opts, _ := state.toOptions()
	objs, err := manifests.Objects(opts)
	if err != nil {
		resp.Diagnostics.AddError("Cannot Remove the Agent", err.Error())
		return
	}
	for i := len(objs) - 1; i >= 0; i-- {
		if err := r.target.Delete(ctx, objs[i]); err != nil {
			resp.Diagnostics.AddError("Cannot Remove the Agent", err.Error())
			return
		}
	}
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], "...")
	}
	return s
}

// ImportState adopts an installed agent by its namespace: terraform import tenon_agent.this tenon-system.
func (r *agentResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if problems := validation.IsDNS1123Label(req.ID); len(problems) > 0 {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("The import ID %q is not a namespace (%s). "+
			"Import the agent by the namespace it runs in, such as `terraform import tenon_agent.this %s`.",
			req.ID, strings.Join(problems, "; "), manifests.DefaultNamespace))
		return
	}
	setImported(ctx, resp, map[string]any{"id": req.ID, "namespace": req.ID, "wait_for_rollout": true, "force_destroy": false})
}
