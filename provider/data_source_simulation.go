package provider

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/simulate"
	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

// HoursPerMonth turns hourly prices into monthly ones (365 × 24 / 12), as AWS's calculator does.
const HoursPerMonth = 730

var (
	_ datasource.DataSourceWithConfigure        = (*simulationDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig   = (*simulationDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*simulationDataSource)(nil)
)

// simulationDataSource is tenon_simulation: workloads and pools in, the nodes engine/simulate
// (the engine of `tenon simulate` and of the agent) would launch out, with their cost.
type simulationDataSource struct {
	target delivery.Target
}

// NewSimulationDataSource returns the tenon_simulation data source.
func NewSimulationDataSource() datasource.DataSource { return &simulationDataSource{} }

type simulationModel struct {
	Region            types.String         `tfsdk:"region"`
	Zones             []types.String       `tfsdk:"zones"`
	Workloads         []workloadModel      `tfsdk:"workloads"`
	NodePools         []types.String       `tfsdk:"node_pools"`
	Provisioners      []types.String       `tfsdk:"provisioners"`
	Manifests         []types.String       `tfsdk:"manifests"`
	Nodes             []simulatedNodeModel `tfsdk:"nodes"`
	Unschedulable     []unschedulableModel `tfsdk:"unschedulable"`
	CostPerHour       types.Float64        `tfsdk:"cost_per_hour"`
	CostPerMonth      types.Float64        `tfsdk:"cost_per_month"`
	LowerBoundPerHour types.Float64        `tfsdk:"lower_bound_per_hour"`
	BufferCostPerHour types.Float64        `tfsdk:"buffer_cost_per_hour"`
	Pods              types.Int64          `tfsdk:"pods"`
	Placed            types.Int64          `tfsdk:"placed"`
}

type workloadModel struct {
	Name           types.String            `tfsdk:"name"`
	Namespace      types.String            `tfsdk:"namespace"`
	Replicas       types.Int64             `tfsdk:"replicas"`
	Requests       map[string]types.String `tfsdk:"requests"`
	NodeSelector   map[string]types.String `tfsdk:"node_selector"`
	Tolerations    []tolerationModel       `tfsdk:"tolerations"`
	TopologySpread []spreadModel           `tfsdk:"topology_spread"`
}

type tolerationModel struct {
	Key      types.String `tfsdk:"key"`
	Operator types.String `tfsdk:"operator"`
	Value    types.String `tfsdk:"value"`
	Effect   types.String `tfsdk:"effect"`
}

type spreadModel struct {
	TopologyKey       types.String `tfsdk:"topology_key"`
	MaxSkew           types.Int64  `tfsdk:"max_skew"`
	WhenUnsatisfiable types.String `tfsdk:"when_unsatisfiable"`
}

type simulatedNodeModel struct {
	Name              types.String   `tfsdk:"name"`
	NodePool          types.String   `tfsdk:"node_pool"`
	InstanceType      types.String   `tfsdk:"instance_type"`
	Zone              types.String   `tfsdk:"zone"`
	CapacityType      types.String   `tfsdk:"capacity_type"`
	PricePerHour      types.Float64  `tfsdk:"price_per_hour"`
	Pods              []types.String `tfsdk:"pods"`
	CPUUtilization    types.Float64  `tfsdk:"cpu_utilization"`
	MemoryUtilization types.Float64  `tfsdk:"memory_utilization"`
}

type unschedulableModel struct {
	Pod    types.String `tfsdk:"pod"`
	Reason types.String `tfsdk:"reason"`
}

func (d *simulationDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_simulation"
}

func (d *simulationDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.target = targetFromProviderData(req.ProviderData, &resp.Diagnostics)
}

func (d *simulationDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	nonEmpty := []validator.List{listvalidator.SizeAtLeast(1)}
	computedStr := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	computedFloat := func(desc string) schema.Float64Attribute {
		return schema.Float64Attribute{Computed: true, MarkdownDescription: desc}
	}
	strMapAttr := func(desc string) schema.MapAttribute {
		return schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "What a capacity policy costs before it is applied: the pending pods of `workloads` are packed by the " +
			"engine the agent runs (the same as `tenon simulate`, on the embedded EC2 catalog) onto new nodes of the given pools. " +
			"Pools come from the cluster by name (`node_pools`, `provisioners`, with their NodeClasses) or inline as Kubernetes " +
			"YAML or JSON (`manifests`, such as `yamlencode({...})` or `file(\"policy.yaml\")`); no cloud account is needed.",
		Attributes: map[string]schema.Attribute{
			"region": schema.StringAttribute{Optional: true, MarkdownDescription: "AWS region whose prices apply. Defaults to `us-east-1`."},
			"zones": schema.ListAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmpty,
				MarkdownDescription: "Availability zones offerings are made in. Defaults to the region's a, b and c zones."},
			"workloads": schema.ListNestedAttribute{Required: true, Validators: nonEmpty,
				MarkdownDescription: "Workloads whose pods are pending: each is a Deployment of `replicas` identical pods.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":      schema.StringAttribute{Required: true, MarkdownDescription: "Name; pods are `<namespace>/<name>-0`, `-1`, …"},
					"namespace": schema.StringAttribute{Optional: true, MarkdownDescription: "Namespace. Defaults to `default`."},
					"replicas":  schema.Int64Attribute{Optional: true, MarkdownDescription: "Number of pods. Defaults to 1."},
					"requests": schema.MapAttribute{Required: true, ElementType: types.StringType,
						MarkdownDescription: "Resource requests of each pod, such as `{ cpu = \"500m\", memory = \"1Gi\" }`."},
					"node_selector": strMapAttr("Node labels each pod requires, such as `{ \"kubernetes.io/arch\" = \"arm64\" }`."),
					"tolerations": schema.ListNestedAttribute{Optional: true, MarkdownDescription: "Taints each pod tolerates.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"key":      schema.StringAttribute{Optional: true, MarkdownDescription: "Taint key; empty with `Exists` tolerates everything."},
							"operator": schema.StringAttribute{Optional: true, MarkdownDescription: codeList(tolerationOperators, map[corev1.TolerationOperator]string{corev1.TolerationOpEqual: "the default"}) + "."},
							"value":    schema.StringAttribute{Optional: true, MarkdownDescription: "Taint value, with `Equal`."},
							"effect":   schema.StringAttribute{Optional: true, MarkdownDescription: codeList(taintEffects, nil) + "; empty means all."},
						}}},
					"topology_spread": schema.ListNestedAttribute{Optional: true, MarkdownDescription: "Spread the workload's pods over a topology.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"topology_key": schema.StringAttribute{Required: true, MarkdownDescription: "Node label to spread over, such as `topology.kubernetes.io/zone`."},
							"max_skew":     schema.Int64Attribute{Optional: true, MarkdownDescription: "Most the pod counts of two domains may differ. Defaults to 1."},
							"when_unsatisfiable": schema.StringAttribute{Optional: true,
								MarkdownDescription: codeList(unsatisfiableValues, map[corev1.UnsatisfiableConstraintAction]string{corev1.DoNotSchedule: "the default"}) + "."},
						}}},
				}}},
			"node_pools": schema.ListAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmpty,
				MarkdownDescription: "Names of NodePools to read from the cluster, such as `[tenon_nodepool.general.name]`, with the NodeClasses they reference."},
			"provisioners": schema.ListAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmpty,
				MarkdownDescription: "Names of Provisioners to read from the cluster, with the NodeClasses they reference."},
			"manifests": schema.ListAttribute{Optional: true, ElementType: types.StringType, Validators: nonEmpty,
				MarkdownDescription: "Inline pools: YAML or JSON documents (NodePools, Provisioners, NodeClasses, and any other kind `tenon simulate -f` reads), " +
					"several per string separated by `---`."},
			"nodes": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The nodes to launch, with the pods each would run.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":               computedStr("Name of the simulated node."),
					"node_pool":          computedStr("Pool that launches it."),
					"instance_type":      computedStr("Instance type, the cheapest of the node's options."),
					"zone":               computedStr("Availability zone."),
					"capacity_type":      computedStr(codeList([]string{scheduling.CapacityTypeSpot, scheduling.CapacityTypeOnDemand}, nil) + "."),
					"price_per_hour":     computedFloat("USD per hour."),
					"pods":               schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Pods placed on it (`namespace/name`)."},
					"cpu_utilization":    computedFloat("Requested share of its allocatable CPU, 0 to 1."),
					"memory_utilization": computedFloat("Requested share of its allocatable memory, 0 to 1."),
				}}},
			"unschedulable": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Pods no pool can place, with the reason.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"pod":    computedStr("The pod (`namespace/name`)."),
					"reason": computedStr("Why it cannot be placed, and what would fix it."),
				}}},
			"cost_per_hour":        computedFloat("Price of the new nodes, USD per hour."),
			"cost_per_month":       computedFloat(fmt.Sprintf("Price of the new nodes, USD per month (%d hours).", HoursPerMonth)),
			"lower_bound_per_hour": computedFloat("A proven lower bound on `cost_per_hour`: no valid set of nodes is cheaper."),
			"buffer_cost_per_hour": computedFloat("The part of `cost_per_hour` the pools' capacity buffers (`tenon_nodepool.buffer`) add: the nodes launched for their placeholder pods alone, which `nodes` lists with pods named `tenon:buffer/<pool>-<n>`. 0 without buffers."),
			"pods":                 schema.Int64Attribute{Computed: true, MarkdownDescription: "Pending pods simulated."},
			"placed":               schema.Int64Attribute{Computed: true, MarkdownDescription: "Pods placed."},
		},
	}
}

func (d *simulationDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{datasourcevalidator.AtLeastOneOf(
		path.MatchRoot("node_pools"), path.MatchRoot("provisioners"), path.MatchRoot("manifests"))}
}

var simulationPaths = newPathMapper(nil, "requests", "node_selector")

func (d *simulationDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var m simulationModel
	if diags := req.Config.Get(ctx, &m); diags.HasError() {
		return
	}
	addFieldErrors(ctx, &resp.Diagnostics, req.Config, simulationPaths, "Workload", validateWorkloads(m.Workloads))
}

// The values validateWorkloads accepts, which the schema's descriptions list too.
var (
	tolerationOperators = []corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}
	taintEffects        = v1.TaintEffects()
	unsatisfiableValues = []corev1.UnsatisfiableConstraintAction{corev1.DoNotSchedule, corev1.ScheduleAnyway}
)

// validateWorkloads checks what the generated Deployments would otherwise fail on, at the
// workloads' attribute paths.
func validateWorkloads(ws []workloadModel) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, w := range ws {
		p := field.NewPath("workloads").Index(i)
		if !w.Name.IsUnknown() {
			for _, msg := range validation.IsDNS1123Subdomain(w.Name.ValueString()) {
				errs = append(errs, field.Invalid(p.Child("name"), w.Name.ValueString(), msg))
			}
			key := w.Namespace.ValueString() + "/" + w.Name.ValueString()
			if seen[key] {
				errs = append(errs, field.Duplicate(p.Child("name"), w.Name.ValueString()))
			}
			seen[key] = true
		}
		if !w.Namespace.IsNull() && !w.Namespace.IsUnknown() {
			for _, msg := range validation.IsDNS1123Label(w.Namespace.ValueString()) {
				errs = append(errs, field.Invalid(p.Child("namespace"), w.Namespace.ValueString(), msg))
			}
		}
		// Range-checked here, before deployment() turns them into int32: a
		// larger value would wrap (2^32 replicas would become none).
		if r := w.Replicas; !r.IsNull() && !r.IsUnknown() && (r.ValueInt64() < 0 || r.ValueInt64() > simulate.MaxPods) {
			errs = append(errs, field.Invalid(p.Child("replicas"), r.ValueInt64(), fmt.Sprintf("replicas must be between 0 and %d, the most pods a simulation holds", simulate.MaxPods)))
		}
		errs = append(errs, quantityErrors(p.Child("requests"), w.Requests)...)
		errs = append(errs, scheduling.ValidateRequests(p.Child("requests"), resourceList(w.Requests))...)
		for j, t := range w.Tolerations {
			errs = append(errs, oneOf(p.Child("tolerations").Index(j).Child("operator"), t.Operator, tolerationOperators)...)
			errs = append(errs, oneOf(p.Child("tolerations").Index(j).Child("effect"), t.Effect, taintEffects)...)
		}
		for j, s := range w.TopologySpread {
			sp := p.Child("topologySpread").Index(j)
			errs = append(errs, oneOf(sp.Child("whenUnsatisfiable"), s.WhenUnsatisfiable, unsatisfiableValues)...)
			if !s.MaxSkew.IsNull() && !s.MaxSkew.IsUnknown() && (s.MaxSkew.ValueInt64() < 1 || s.MaxSkew.ValueInt64() > math.MaxInt32) {
				errs = append(errs, field.Invalid(sp.Child("maxSkew"), s.MaxSkew.ValueInt64(), fmt.Sprintf("maxSkew must be between 1 and %d", math.MaxInt32)))
			}
		}
	}
	return errs
}

// oneOf reports a known value that is not one of allowed.
func oneOf[S ~string](p *field.Path, v types.String, allowed []S) field.ErrorList {
	if v.IsNull() || v.IsUnknown() || slices.Contains(allowed, S(v.ValueString())) {
		return nil
	}
	return field.ErrorList{field.NotSupported(p, v.ValueString(), allowed)}
}

func (d *simulationDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m simulationModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	files, err := d.scenarioFiles(ctx, &m)
	if err != nil {
		resp.Diagnostics.AddError("Cannot Build the Simulation", err.Error())
		return
	}
	scenario, err := simulate.Parse(files...)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Simulation Input", "engine/simulate rejected the input (the files are the data source's "+
			"workloads, pools read from the cluster and manifests[i]):\n"+err.Error())
		return
	}
	report, err := scenario.Simulate(ctx)
	if err != nil {
		resp.Diagnostics.AddError("Simulation Failed", err.Error())
		return
	}
	setReport(&m, report)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// scenarioFiles is the simulation's input as `tenon simulate -f` files: a Scenario header,
// the workloads as Deployments, the pools (and their NodeClasses) read from the target, and
// the manifests as given.
func (d *simulationDataSource) scenarioFiles(ctx context.Context, m *simulationModel) ([]simulate.File, error) {
	header := simulate.ScenarioHeader{
		TypeMeta:   metav1.TypeMeta{APIVersion: simulate.ScenarioAPIVersion, Kind: simulate.ScenarioKind},
		ObjectMeta: metav1.ObjectMeta{Name: "terraform"},
		Spec:       simulate.ScenarioSpec{Region: m.Region.ValueString(), Zones: strList(m.Zones), Catalog: simulate.CatalogEmbedded},
	}
	docs := []any{header}
	for _, w := range m.Workloads {
		docs = append(docs, w.deployment())
	}
	cluster, err := d.clusterObjects(ctx, m)
	if err != nil {
		return nil, err
	}
	docs = append(docs, cluster...)
	generated, err := yamlDocuments(docs)
	if err != nil {
		return nil, err
	}
	files := []simulate.File{{Name: "workloads", Data: generated}}
	for i, manifest := range m.Manifests {
		files = append(files, simulate.File{Name: fmt.Sprintf("manifests[%d]", i), Data: []byte(manifest.ValueString())})
	}
	return files, nil
}

// clusterObjects reads the named pools and the NodeClasses they reference.
func (d *simulationDataSource) clusterObjects(ctx context.Context, m *simulationModel) ([]any, error) {
	if len(m.NodePools) == 0 && len(m.Provisioners) == 0 {
		return nil, nil
	}
	if d.target == nil {
		return nil, errors.New("node_pools and provisioners are read from the cluster, but the provider has no delivery target; this is always a bug in the provider, please report it")
	}
	var out []any
	classes := map[string]bool{}
	for _, name := range m.NodePools {
		np := nodePoolRef(name.ValueString())
		if err := d.target.Get(ctx, np); err != nil {
			return nil, fmt.Errorf("node_pools: %w", err)
		}
		out = append(out, stripped(np))
		if ref := np.Spec.Template.Spec.NodeClassRef; ref != nil {
			classes[ref.Name] = true
		}
	}
	for _, name := range m.Provisioners {
		p := provisionerRef(name.ValueString())
		if err := d.target.Get(ctx, p); err != nil {
			return nil, fmt.Errorf("provisioners: %w", err)
		}
		out = append(out, stripped(p))
		if ref := p.Spec.ProviderRef; ref != nil {
			classes[ref.Name] = true
		}
	}
	inline := inlineNodeClasses(m.Manifests)
	for name := range classes {
		if inline[name] {
			continue // the manifests' NodeClass of that name is the one simulated
		}
		nc := nodeClassRef(name)
		if err := d.target.Get(ctx, nc); err != nil {
			return nil, fmt.Errorf("reading the NodeClass %q a pool references: %w", name, err)
		}
		out = append(out, stripped(nc))
	}
	return out, nil
}

// inlineNodeClasses names the NodeClasses the manifests define. Manifests that do not parse
// define none here; the simulation reports their errors.
func inlineNodeClasses(manifests []types.String) map[string]bool {
	names := map[string]bool{}
	if len(manifests) == 0 {
		return names
	}
	files := make([]simulate.File, len(manifests))
	for i, m := range manifests {
		files[i] = simulate.File{Name: fmt.Sprintf("manifests[%d]", i), Data: []byte(m.ValueString())}
	}
	s, err := simulate.Parse(files...)
	if err != nil {
		return names
	}
	for _, nc := range s.Objects.NodeClasses {
		names[nc.Name] = true
	}
	return names
}

// stripped keeps what a scenario needs of a live object: kind, name, labels, spec.
func stripped(obj delivery.Object) delivery.Object {
	out := obj.DeepCopyObject().(delivery.Object)
	out.SetManagedFields(nil)
	out.SetResourceVersion("")
	out.SetUID("")
	out.SetGeneration(0)
	out.SetCreationTimestamp(metav1.Time{})
	switch o := out.(type) {
	case *v1.NodePool:
		o.Status = v1.NodePoolStatus{}
	case *v1.NodeClass:
		o.Status = v1.NodeClassStatus{}
	case *v1alpha5.Provisioner:
		o.Status = v1alpha5.ProvisionerStatus{}
	}
	return out
}

func yamlDocuments(docs []any) ([]byte, error) {
	var sb strings.Builder
	for _, doc := range docs {
		data, err := yaml.Marshal(doc)
		if err != nil {
			return nil, fmt.Errorf("encoding the simulation input: %w", err)
		}
		sb.WriteString("---\n")
		sb.Write(data)
	}
	return []byte(sb.String()), nil
}

// deployment is the workload as the Deployment `tenon simulate` would read from a file.
func (w workloadModel) deployment() *appsv1.Deployment {
	name := w.Name.ValueString()
	ns := w.Namespace.ValueString()
	if ns == "" {
		ns = "default"
	}
	replicas := int32(1)
	if !w.Replicas.IsNull() {
		replicas = int32(w.Replicas.ValueInt64())
	}
	labels := map[string]string{"app": name}
	pod := corev1.PodSpec{
		Containers:   []corev1.Container{{Name: "app", Image: "simulated", Resources: corev1.ResourceRequirements{Requests: resourceList(w.Requests)}}},
		NodeSelector: strMap[string](w.NodeSelector),
	}
	for _, t := range w.Tolerations {
		pod.Tolerations = append(pod.Tolerations, corev1.Toleration{Key: str(t.Key), Operator: corev1.TolerationOperator(str(t.Operator)),
			Value: str(t.Value), Effect: corev1.TaintEffect(str(t.Effect))})
	}
	for _, s := range w.TopologySpread {
		skew := int32(1)
		if !s.MaxSkew.IsNull() {
			skew = int32(s.MaxSkew.ValueInt64())
		}
		when := corev1.DoNotSchedule
		if !s.WhenUnsatisfiable.IsNull() {
			when = corev1.UnsatisfiableConstraintAction(s.WhenUnsatisfiable.ValueString())
		}
		pod.TopologySpreadConstraints = append(pod.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: skew, TopologyKey: str(s.TopologyKey), WhenUnsatisfiable: when,
			LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
		})
	}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod},
		},
	}
}

// setReport fills the computed attributes from the report of engine/simulate.
func setReport(m *simulationModel, r *simulate.Report) {
	m.Nodes = []simulatedNodeModel{}
	for _, n := range r.Nodes {
		if n.Existing {
			continue
		}
		m.Nodes = append(m.Nodes, simulatedNodeModel{
			Name: types.StringValue(n.Name), NodePool: types.StringValue(n.NodePool), InstanceType: types.StringValue(n.InstanceType),
			Zone: types.StringValue(n.Zone), CapacityType: types.StringValue(n.CapacityType), PricePerHour: types.Float64Value(n.PricePerHour),
			Pods: tfStrList(n.Pods), CPUUtilization: types.Float64Value(n.CPUUtilization), MemoryUtilization: types.Float64Value(n.MemoryUtilization),
		})
		if m.Nodes[len(m.Nodes)-1].Pods == nil {
			m.Nodes[len(m.Nodes)-1].Pods = []types.String{}
		}
	}
	m.Unschedulable = []unschedulableModel{}
	for _, u := range r.Unschedulable {
		m.Unschedulable = append(m.Unschedulable, unschedulableModel{Pod: types.StringValue(u.Pod), Reason: types.StringValue(u.Reason)})
	}
	m.CostPerHour = types.Float64Value(r.Summary.CostPerHour)
	m.CostPerMonth = types.Float64Value(r.Summary.CostPerHour * HoursPerMonth)
	m.LowerBoundPerHour = types.Float64Value(r.Summary.LowerBoundPerHour)
	m.BufferCostPerHour = types.Float64Value(r.Summary.BufferCostPerHour)
	m.Pods = types.Int64Value(int64(r.Summary.Pods))
	m.Placed = types.Int64Value(int64(r.Summary.Placed))
}
