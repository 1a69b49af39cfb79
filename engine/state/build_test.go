package state_test

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// Builders: small objects with overrides, as Karpenter's test package does.

func nodePool(name string, mutate ...func(*v1.NodePool)) *v1.NodePool {
	np := &v1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.NodePoolSpec{Template: v1.NodeClaimTemplate{Spec: v1.NodeClaimTemplateSpec{
			NodeClassRef: &v1.NodeClassReference{Name: "default"},
			Requirements: []v1.NodeSelectorRequirementWithMinValues{
				{Key: scheduling.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}},
			},
		}}},
	}
	for _, m := range mutate {
		m(np)
	}
	return np
}

func nodeClass(name string) *v1.NodeClass {
	return &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeClassSpec{KWOK: &v1.KWOKNodeClassSpec{}}}
}

func provisioner(name string, mutate ...func(*v1alpha5.Provisioner)) *v1alpha5.Provisioner {
	p := &v1alpha5.Provisioner{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha5.ProvisionerSpec{ProviderRef: &v1alpha5.ProviderRef{Name: "default"}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func pod(name string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{container("1", "1Gi")}},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func testCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	c, err := catalog.New()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// catalogTypes gives every pool with a node class the catalog's types.
func catalogTypes(c *catalog.Catalog) state.Option {
	return state.WithInstanceTypes(func(_ *v1.NodePool, class *v1.NodeClass) ([]*catalog.InstanceType, error) {
		if class == nil {
			return nil, errors.New("node class not found")
		}
		return c.InstanceTypes(), nil
	})
}

func TestBuildPools(t *testing.T) {
	cat := testCatalog(t)
	thirty := int64(30)
	tests := []struct {
		name  string
		objs  state.Objects
		check func(t *testing.T, pools []*state.Pool)
	}{
		{
			name: "a NodePool gets its labels, requirements, taints and defaults",
			objs: state.Objects{
				NodeClasses: []*v1.NodeClass{nodeClass("default")},
				NodePools: []*v1.NodePool{nodePool("general", func(np *v1.NodePool) {
					np.Spec.Template.Labels = map[string]string{"team": "a"}
					np.Spec.Template.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule}}
					np.Spec.Template.Spec.StartupTaints = []v1.Taint{{Key: "cni", Effect: corev1.TaintEffectNoSchedule}}
					np.Spec.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")}
				})},
			},
			check: func(t *testing.T, pools []*state.Pool) {
				p := pools[0]
				if p.Name != "general" || p.Kind != state.PoolKindNodePool || p.NodeClass != "default" || p.Class == nil || p.Class.Spec.KWOK == nil {
					t.Errorf("pool = %s %s class %s", p.Kind, p.Name, p.NodeClass)
				}
				if p.Labels["team"] != "a" || p.Labels[scheduling.LabelNodePool] != "general" {
					t.Errorf("labels = %v", p.Labels)
				}
				for key, value := range map[string]string{scheduling.LabelNodePool: "general", "team": "a", scheduling.LabelCapacityType: "on-demand"} {
					if !p.Requirements.Get(key).Has(value) || p.Requirements.Get(key).Len() != 1 {
						t.Errorf("requirement %s = %v, want In [%s]", key, p.Requirements.Get(key), value)
					}
				}
				if len(p.Taints) != 1 || p.Taints[0].Key != "dedicated" || len(p.StartupTaints) != 1 {
					t.Errorf("taints = %v, startup %v", p.Taints, p.StartupTaints)
				}
				if p.Limits.Cpu().Value() != 100 {
					t.Errorf("limits = %v", p.Limits)
				}
				if p.ExpireAfter == nil || *p.ExpireAfter != 720*time.Hour {
					t.Errorf("expireAfter = %v, want the 720h default", p.ExpireAfter)
				}
				d := p.Disruption
				if d.ConsolidationPolicy != "WhenEmptyOrUnderutilized" || d.ConsolidateAfter == nil || *d.ConsolidateAfter != 0 ||
					len(d.Budgets) != 1 || d.Budgets[0].Nodes != "10%" {
					t.Errorf("disruption = %+v, want the defaults", d)
				}
				if len(p.InstanceTypes) != len(cat.InstanceTypes()) {
					t.Errorf("instance types = %d, want the catalog's %d", len(p.InstanceTypes), len(cat.InstanceTypes()))
				}
				if len(p.TemplateHash) != 16 {
					t.Errorf("template hash = %q", p.TemplateHash)
				}
			},
		},
		{
			name: "a Provisioner is normalised like the NodePool it converts to",
			objs: state.Objects{
				NodeClasses: []*v1.NodeClass{nodeClass("default")},
				Provisioners: []*v1alpha5.Provisioner{provisioner("legacy", func(p *v1alpha5.Provisioner) {
					p.Spec.TTLSecondsAfterEmpty = &thirty
					p.Spec.Requirements = []v1alpha5.NodeSelectorRequirement{
						{Key: scheduling.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"spot", "on-demand"}},
					}
				})},
			},
			check: func(t *testing.T, pools []*state.Pool) {
				p := pools[0]
				if p.Kind != state.PoolKindProvisioner || p.Name != "legacy" {
					t.Errorf("pool = %s %s", p.Kind, p.Name)
				}
				if p.Disruption.ConsolidationPolicy != "WhenEmpty" || p.Disruption.ConsolidateAfter == nil || *p.Disruption.ConsolidateAfter != 30*time.Second {
					t.Errorf("disruption = %+v, want WhenEmpty after 30s", p.Disruption)
				}
				if p.ExpireAfter != nil {
					t.Errorf("expireAfter = %v, want never", *p.ExpireAfter)
				}
				if got := p.Requirements.Get(scheduling.LabelCapacityType).Values(); !reflect.DeepEqual(got, []string{"on-demand", "spot"}) {
					t.Errorf("capacity types = %v", got)
				}
			},
		},
		{
			name: "a Provisioner with an inline provider gets the NodeClass it converts to",
			objs: state.Objects{
				Provisioners: []*v1alpha5.Provisioner{provisioner("inline", func(p *v1alpha5.Provisioner) {
					p.Spec.ProviderRef = nil
					p.Spec.Provider = &v1alpha5.Provider{InstanceProfile: "nodes"}
				})},
			},
			check: func(t *testing.T, pools []*state.Pool) {
				p := pools[0]
				if p.NodeClass != "inline" || len(p.InstanceTypes) == 0 || p.TemplateHash == "" {
					t.Errorf("pool %s: class %q, %d instance types, hash %q", p.Name, p.NodeClass, len(p.InstanceTypes), p.TemplateHash)
				}
				if p.Class == nil || p.Class.Spec.AWS == nil || p.Class.Spec.AWS.InstanceProfile != "nodes" || p.Class.Spec.AWS.AMIFamily != v1.AMIFamilyAL2023 {
					t.Errorf("class = %+v, want the converted, defaulted aws class", p.Class)
				}
			},
		},
		{
			name: "pools are ordered by weight, then name",
			objs: state.Objects{
				NodeClasses: []*v1.NodeClass{nodeClass("default")},
				NodePools: []*v1.NodePool{
					nodePool("b"), nodePool("a"),
					nodePool("heavy", func(np *v1.NodePool) { w := int32(50); np.Spec.Weight = &w }),
				},
				Provisioners: []*v1alpha5.Provisioner{provisioner("c", func(p *v1alpha5.Provisioner) { w := int32(10); p.Spec.Weight = &w })},
			},
			check: func(t *testing.T, pools []*state.Pool) {
				var names []string
				for _, p := range pools {
					names = append(names, p.Name)
				}
				if want := []string{"heavy", "c", "a", "b"}; !reflect.DeepEqual(names, want) {
					t.Errorf("order = %v, want %v", names, want)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			snap, err := state.Build(tt.objs, catalogTypes(cat))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, snap.Pools)
		})
	}
}

func TestBuildRejects(t *testing.T) {
	cat := testCatalog(t)
	zero := int32(0)
	tests := []struct {
		name string
		objs state.Objects
		want []string
	}{
		{
			name: "an invalid NodePool, naming it and the field",
			objs: state.Objects{NodePools: []*v1.NodePool{nodePool("bad", func(np *v1.NodePool) { np.Spec.Weight = &zero })}},
			want: []string{"NodePool bad: spec.weight"},
		},
		{
			name: "an invalid requirement operator",
			objs: state.Objects{NodePools: []*v1.NodePool{nodePool("bad", func(np *v1.NodePool) {
				np.Spec.Template.Spec.Requirements[0].Operator = "Maybe"
			})}},
			want: []string{"NodePool bad: spec.template.spec.requirements[0].operator"},
		},
		{
			name: "an invalid Provisioner",
			objs: state.Objects{Provisioners: []*v1alpha5.Provisioner{provisioner("p", func(p *v1alpha5.Provisioner) { p.Spec.Weight = &zero })}},
			want: []string{"Provisioner p: spec.weight"},
		},
		{
			name: "a NodePool and a Provisioner with one name",
			objs: state.Objects{
				NodeClasses:  []*v1.NodeClass{nodeClass("default")},
				NodePools:    []*v1.NodePool{nodePool("same")},
				Provisioners: []*v1alpha5.Provisioner{provisioner("same")},
			},
			want: []string{"Provisioner same: metadata.name", "NodePool is also called"},
		},
		{
			name: "a pool whose node class is missing",
			objs: state.Objects{NodePools: []*v1.NodePool{nodePool("lost")}},
			want: []string{"NodePool lost: spec.template.spec.nodeClassRef.name: node class not found"},
		},
		{
			name: "two pods with one name",
			objs: state.Objects{NodeClasses: []*v1.NodeClass{nodeClass("default")}, Pods: []*corev1.Pod{pod("x"), pod("x")}},
			want: []string{"Pod default/x: metadata.name"},
		},
		{
			name: "every invalid object, not only the first",
			objs: state.Objects{NodePools: []*v1.NodePool{
				nodePool("one", func(np *v1.NodePool) { np.Spec.Weight = &zero }),
				nodePool("two", func(np *v1.NodePool) { np.Spec.Weight = &zero }),
			}},
			want: []string{"NodePool one: spec.weight", "NodePool two: spec.weight"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := state.Build(tt.objs, catalogTypes(cat))
			if err == nil {
				t.Fatal("Build succeeded, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			var oe *state.ObjectError
			if !errors.As(err, &oe) {
				t.Errorf("error %T is not an ObjectError", err)
			}
		})
	}
}

func TestTemplateHash(t *testing.T) {
	base := nodePool("p").Spec.Template
	withTaint := nodePool("p", func(np *v1.NodePool) {
		np.Spec.Template.Spec.Taints = []v1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
	}).Spec.Template
	labelsAB := nodePool("p", func(np *v1.NodePool) { np.Spec.Template.Labels = map[string]string{"a": "1", "b": "2"} }).Spec.Template
	labelsBA := nodePool("p", func(np *v1.NodePool) { np.Spec.Template.Labels = map[string]string{"b": "2", "a": "1"} }).Spec.Template
	aws := &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: v1.NodeClassSpec{AWS: &v1.AWSNodeClassSpec{Role: "r"}}}
	hash := func(tmpl v1.NodeClaimTemplate, class *v1.NodeClass) string {
		h, err := state.TemplateHash(&tmpl, class)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"the same template hashes the same", hash(base, nodeClass("default")), hash(base, nodeClass("default")), true},
		{"a taint changes the hash", hash(base, nodeClass("default")), hash(withTaint, nodeClass("default")), false},
		{"the node class spec changes the hash", hash(base, nodeClass("default")), hash(base, aws), false},
		{"map order does not matter", hash(labelsAB, nil), hash(labelsBA, nil), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if (tt.a == tt.b) != tt.same {
				t.Errorf("hashes %s and %s: same = %v, want %v", tt.a, tt.b, tt.a == tt.b, tt.same)
			}
		})
	}
}

func TestBuildNodes(t *testing.T) {
	cat := testCatalog(t)
	m5, _ := cat.Get("m5.large")
	objs := state.Objects{
		NodeClasses: []*v1.NodeClass{nodeClass("default")},
		NodePools:   []*v1.NodePool{nodePool("default")},
		Nodes: []*corev1.Node{
			{
				ObjectMeta: metav1.ObjectMeta{Name: "registered", Labels: map[string]string{
					scheduling.LabelNodePool: "default", scheduling.LabelInstanceType: "m5.large",
					scheduling.LabelTopologyZone: "us-east-1a", scheduling.LabelCapacityType: "on-demand",
				}},
				Spec: corev1.NodeSpec{ProviderID: "kwok://claim-a"},
			},
			{
				ObjectMeta: metav1.ObjectMeta{Name: "karpenter-node", Labels: map[string]string{
					"karpenter.sh/capacity-type": "spot", "failure-domain.beta.kubernetes.io/zone": "us-east-1b",
					"beta.kubernetes.io/instance-type": "m5.large", "kubernetes.io/hostname": "host-1",
				}},
				Spec: corev1.NodeSpec{Unschedulable: true},
				Status: corev1.NodeStatus{
					Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
					Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}},
				},
			},
		},
		NodeClaims: []*v1.NodeClaim{
			{
				ObjectMeta: metav1.ObjectMeta{Name: "claim-a", Labels: map[string]string{v1.LabelNodePool: "default"},
					Annotations: map[string]string{v1.AnnotationNodePoolHash: "abc"}},
				Spec:   v1.NodeClaimSpec{NodeClassRef: &v1.NodeClassReference{Name: "default"}},
				Status: v1.NodeClaimStatus{ProviderID: "kwok://claim-a", InstanceType: "m5.large"},
			},
			{
				ObjectMeta: metav1.ObjectMeta{Name: "claim-b", Labels: map[string]string{v1.LabelNodePool: "default"}},
				Spec: v1.NodeClaimSpec{
					NodeClassRef: &v1.NodeClassReference{Name: "default"},
					Taints:       []v1.Taint{{Key: "dedicated", Effect: corev1.TaintEffectNoSchedule}},
					Requirements: []v1.NodeSelectorRequirementWithMinValues{
						{Key: scheduling.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"m5.xlarge", "m5.large"}},
						{Key: scheduling.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1c"}},
						{Key: scheduling.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}},
					},
				},
			},
		},
	}
	snap, err := state.Build(objs, catalogTypes(cat))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*state.Node{}
	var names []string
	for _, n := range snap.Nodes {
		byName[n.Name] = n
		names = append(names, n.Name)
	}
	if want := []string{"claim-b", "karpenter-node", "registered"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("nodes = %v, want %v (claim-a has registered)", names, want)
	}
	tests := []struct {
		name  string
		node  string
		check func(n *state.Node) bool
	}{
		{"a registered node links its claim and hash", "registered", func(n *state.Node) bool {
			return n.Claim == "claim-a" && n.TemplateHash == "abc" && !n.InFlight && n.Pool == "default"
		}},
		{"a node without allocatable gets its type's", "registered", func(n *state.Node) bool {
			return n.Allocatable.Cpu().Cmp(*m5.Allocatable.Cpu()) == 0
		}},
		{"a node is priced from its offering", "registered", func(n *state.Node) bool {
			for _, o := range m5.Offerings {
				if o.Zone == "us-east-1a" && o.CapacityType == "on-demand" {
					return n.PricePerHour == o.PricePerHour && n.PricePerHour > 0
				}
			}
			return false
		}},
		{"hostname defaults to the node name", "registered", func(n *state.Node) bool {
			return n.Labels[scheduling.LabelHostname] == "registered"
		}},
		{"a file node without conditions is initialized", "registered", func(n *state.Node) bool { return n.Initialized }},
		{"deprecated and Karpenter labels map to Tenon's", "karpenter-node", func(n *state.Node) bool {
			return n.Zone == "us-east-1b" && n.CapacityType == "spot" && n.InstanceType == "m5.large" && n.Labels[scheduling.LabelHostname] == "host-1"
		}},
		{"reported allocatable wins", "karpenter-node", func(n *state.Node) bool { return n.Allocatable.Cpu().Value() == 1 }},
		{"not-ready and cordoned", "karpenter-node", func(n *state.Node) bool { return !n.Initialized && n.NotReady && n.Unschedulable }},
		{"a file node without conditions is not NotReady", "registered", func(n *state.Node) bool { return !n.NotReady }},
		{"an in-flight claim is not NotReady", "claim-b", func(n *state.Node) bool { return !n.NotReady }},
		{"a claim without a node is in flight", "claim-b", func(n *state.Node) bool {
			return n.InFlight && n.Claim == "claim-b" && n.Pool == "default"
		}},
		{"an in-flight claim takes its first instance type, zone and capacity type", "claim-b", func(n *state.Node) bool {
			return n.InstanceType == "m5.xlarge" && n.Zone == "us-east-1c" && n.CapacityType == "on-demand" &&
				n.Labels[scheduling.LabelInstanceType] == "m5.xlarge" && n.Labels[scheduling.LabelTopologyZone] == "us-east-1c" &&
				n.Labels[scheduling.LabelHostname] == "claim-b" && n.Labels[scheduling.LabelArch] == "amd64"
		}},
		{"an in-flight claim has its type's allocatable and its taints", "claim-b", func(n *state.Node) bool {
			xl, _ := cat.Get("m5.xlarge")
			return n.Allocatable.Memory().Cmp(*xl.Allocatable.Memory()) == 0 && len(n.Taints) == 1 && n.PricePerHour > 0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if n := byName[tt.node]; !tt.check(n) {
				t.Errorf("node %s: %+v", tt.node, *n)
			}
		})
	}
}

func TestBuildPods(t *testing.T) {
	controller := true
	prio := int32(1000)
	objs := state.Objects{
		Pods: []*corev1.Pod{
			pod("web-1", func(p *corev1.Pod) {
				p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-abc", Controller: &controller}}
				p.Spec.Priority = &prio
				p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 8080}, {ContainerPort: 53, HostPort: 53, Protocol: corev1.ProtocolUDP}}
			}),
			pod("bound", func(p *corev1.Pod) { p.Spec.NodeName = "n1" }),
			pod("done", func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }),
			pod("ds-pod", func(p *corev1.Pod) {
				p.Spec.NodeName = "n1"
				p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "agent", Controller: &controller}}
			}),
			pod("a-first", func(p *corev1.Pod) { p.Namespace = "aaa" }),
		},
		DaemonSets: []*appsv1.DaemonSet{{
			ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "kube-system"},
			Spec: appsv1.DaemonSetSpec{Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "agent"}},
				Spec: corev1.PodSpec{
					Containers:  []corev1.Container{container("100m", "128Mi")},
					Tolerations: []corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: new(int64)}},
				},
			}},
		}},
		PDBs: []*policyv1.PodDisruptionBudget{
			{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: policyv1.PodDisruptionBudgetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web-1"}}, MinAvailable: &intstr.IntOrString{IntVal: 1},
			}},
			{ObjectMeta: metav1.ObjectMeta{Name: "none", Namespace: "default", Generation: 2}, Status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 2, DisruptionsAllowed: 3}},
		},
	}
	snap, err := state.Build(objs)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	byKey := map[string]*state.Pod{}
	for _, p := range snap.Pods {
		keys = append(keys, p.Key())
		byKey[p.Key()] = p
	}
	if want := []string{"aaa/a-first", "default/bound", "default/ds-pod", "default/web-1"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("pods = %v, want %v (sorted, finished pods dropped)", keys, want)
	}
	var pending []string
	for _, p := range snap.PendingPods() {
		pending = append(pending, p.Key())
	}
	if want := []string{"aaa/a-first", "default/web-1"}; !reflect.DeepEqual(pending, want) {
		t.Errorf("pending = %v, want %v", pending, want)
	}
	tests := []struct {
		name  string
		check func() bool
	}{
		{"owner and priority", func() bool {
			p := byKey["default/web-1"]
			return p.Owner == state.Owner{Kind: "ReplicaSet", Name: "web-abc"} && p.Priority == 1000 && !p.DaemonSet
		}},
		{"host ports, sorted, TCP by default", func() bool {
			return reflect.DeepEqual(byKey["default/web-1"].HostPorts, []state.HostPort{{Protocol: corev1.ProtocolUDP, Port: 53}, {Protocol: corev1.ProtocolTCP, Port: 8080}})
		}},
		{"requests include the pod slot", func() bool {
			return byKey["default/web-1"].Requests.Pods().Value() == 1 && byKey["default/web-1"].Requests.Cpu().Value() == 1
		}},
		{"a daemonset's pod is marked", func() bool { return byKey["default/ds-pod"].DaemonSet }},
		{"a daemonset gets the controller's tolerations, keeping its own", func() bool {
			ds := snap.DaemonSets[0]
			tols := ds.Pod.Tolerations
			return ds.Name == "agent" && ds.Pod.DaemonSet && len(tols) == 6 && tols[0].TolerationSeconds != nil &&
				scheduling.Taints{{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}}.ToleratesPod(tols) == nil
		}},
		{"a PDB selects by labels and is computed from pods", func() bool {
			p := snap.PDBs[1]
			return p.Name == "web" && p.Selector.Matches(labels.Set{"app": "web-1"}) && !p.Selector.Matches(labels.Set{"app": "x"}) &&
				p.DisruptionsAllowed == -1 && p.MinAvailable.IntValue() == 1
		}},
		{"a PDB without a selector selects nothing and keeps its observed status", func() bool {
			p := snap.PDBs[0]
			return p.Name == "none" && p.Selector.Empty() == false && !p.Selector.Matches(labels.Set{}) && p.DisruptionsAllowed == 3
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.check() {
				t.Error("check failed")
			}
		})
	}
}

// TestPodsAreSortedByKey checks the order against the keys as strings,
// with namespaces that are prefixes of each other and characters on both
// sides of '/'.
func TestPodsAreSortedByKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	namespaces := []string{"a", "a-x", "a.b", "a0", "ab", "b", "default"}
	names := []string{"p", "p-1", "p.1", "p0", "q"}
	var objs state.Objects
	for _, ns := range namespaces {
		for _, name := range names {
			objs.Pods = append(objs.Pods, pod(name, func(p *corev1.Pod) { p.Namespace = ns }))
		}
	}
	rng.Shuffle(len(objs.Pods), func(i, j int) { objs.Pods[i], objs.Pods[j] = objs.Pods[j], objs.Pods[i] })
	snap, err := state.Build(objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Pods) != len(namespaces)*len(names) {
		t.Fatalf("%d pods, want %d", len(snap.Pods), len(namespaces)*len(names))
	}
	for i := 1; i < len(snap.Pods); i++ {
		if a, b := snap.Pods[i-1].Key(), snap.Pods[i].Key(); a >= b {
			t.Errorf("pod %d %q is not before %q", i-1, a, b)
		}
	}
}

// TestBuildIsDeterministic shuffles the input and expects the same
// Snapshot.
func TestBuildIsDeterministic(t *testing.T) {
	cat := testCatalog(t)
	objs := state.Objects{
		NodeClasses: []*v1.NodeClass{nodeClass("default")},
		NodePools:   []*v1.NodePool{nodePool("a"), nodePool("b"), nodePool("c")},
	}
	for i := range 50 {
		objs.Pods = append(objs.Pods, pod("p"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26))))
	}
	want, err := state.Build(objs, catalogTypes(cat))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 5 {
		t.Run("shuffle", func(t *testing.T) {
			shuffled := objs
			shuffled.Pods = append([]*corev1.Pod(nil), objs.Pods...)
			shuffled.NodePools = append([]*v1.NodePool(nil), objs.NodePools...)
			rng.Shuffle(len(shuffled.Pods), func(i, j int) { shuffled.Pods[i], shuffled.Pods[j] = shuffled.Pods[j], shuffled.Pods[i] })
			rng.Shuffle(len(shuffled.NodePools), func(i, j int) {
				shuffled.NodePools[i], shuffled.NodePools[j] = shuffled.NodePools[j], shuffled.NodePools[i]
			})
			got, err := state.Build(shuffled, catalogTypes(cat))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("shuffle %d: snapshot differs", i)
			}
		})
	}
}
