package v1alpha5_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/crdtest"
	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5"
	"github.com/tenonhq/terraform-provider-tenon/engine/api/v1alpha5/v1alpha5test"
)

// v1CRDs compiles the v1 NodePool and NodeClass CRDs once, to check that conversions produce
// objects the API server accepts.
var v1CRDs = sync.OnceValues(func() ([2]*crdtest.Validator, error) {
	var out [2]*crdtest.Validator
	for i, name := range []string{"nodepools", "nodeclasses"} {
		data, err := os.ReadFile("../crds/tenon.dev_" + name + ".yaml")
		if err != nil {
			return out, err
		}
		if out[i], err = crdtest.NewValidator(data, v1.Version); err != nil {
			return out, err
		}
	}
	return out, nil
})

// checkV1Valid asserts that the NodePool and NodeClass pass v1's Go validation and the v1 CRDs.
func checkV1Valid(t *testing.T, np *v1.NodePool, nc *v1.NodeClass) {
	t.Helper()
	crds, err := v1CRDs()
	if err != nil {
		t.Fatalf("loading the v1 CRDs: %v", err)
	}
	if errs := np.Validate(); len(errs) > 0 {
		t.Errorf("NodePool fails v1 validation: %v", errs)
	}
	if errs := crds[0].Validate(toMap(t, np), nil); len(errs) > 0 {
		t.Errorf("NodePool fails the v1 CRD: %v", errs)
	}
	if nc == nil {
		return
	}
	if errs := nc.Validate(); len(errs) > 0 {
		t.Errorf("NodeClass fails v1 validation: %v", errs)
	}
	if errs := crds[1].Validate(toMap(t, nc), nil); len(errs) > 0 {
		t.Errorf("NodeClass fails the v1 CRD: %v", errs)
	}
}

func roundTrip(t *testing.T, p *v1alpha5.Provisioner) (*v1.NodePool, *v1.NodeClass) {
	t.Helper()
	np, nc, err := v1alpha5.ToNodePool(p)
	if err != nil {
		t.Fatalf("ToNodePool: %v", err)
	}
	back, err := v1alpha5.FromNodePool(np, nc)
	if err != nil {
		t.Fatalf("FromNodePool: %v", err)
	}
	if !reflect.DeepEqual(p, back) {
		t.Fatalf("round trip changed the Provisioner:\nbefore: %s\nafter:  %s", mustJSON(t, p), mustJSON(t, back))
	}
	return np, nc
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestAcceptance is issue 2's acceptance: the Provisioner users copy from Karpenter tutorials is
// accepted by the CRD and by Go, and converts to a NodePool and NodeClass and back unchanged.
func TestAcceptance(t *testing.T) {
	data := v1alpha5test.Base
	errs, err := provisionerCRD(t).ValidateYAML(data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Fatalf("the CRD rejects the acceptance object: %v", errs)
	}
	p := decodeProvisioner(t, data)
	if errs := p.Validate(); len(errs) > 0 {
		t.Fatalf("Validate rejects the acceptance object: %v", errs)
	}
	np, nc := roundTrip(t, p)
	checkV1Valid(t, np, nc)

	want := `{"kind":"NodePool","apiVersion":"tenon.dev/v1","metadata":{"name":"pet2cattle-workers"},` +
		`"spec":{"template":{"metadata":{"labels":{"nodelabel":"example"}},"spec":{"requirements":[` +
		`{"key":"node.kubernetes.io/instance-type","operator":"In","values":["m5a.large","m5a.xlarge","m5a.2xlarge"]},` +
		`{"key":"topology.kubernetes.io/zone","operator":"In","values":["eu-west-1a","eu-west-1b","eu-west-1c"]},` +
		`{"key":"kubernetes.io/arch","operator":"In","values":["arm64","amd64"]},` +
		`{"key":"tenon.dev/capacity-type","operator":"In","values":["spot","on-demand"]}],` +
		`"nodeClassRef":{"group":"tenon.dev","kind":"NodeClass","name":"pet2cattle-workers"},"expireAfter":"2592000s"}},` +
		`"disruption":{"consolidationPolicy":"WhenEmpty","consolidateAfter":"30s"},"limits":{"cpu":"1k"}}}`
	if got := mustJSON(t, np); got != want {
		t.Errorf("NodePool:\n got  %s\n want %s", got, want)
	}
	wantClass := `{"kind":"NodeClass","apiVersion":"tenon.dev/v1","metadata":{"name":"pet2cattle-workers"},` +
		`"spec":{"aws":{"securityGroupSelectorTerms":[{"tags":{"Name":"eks_pet2cattle-worker"}}],` +
		`"instanceProfile":"eks_pet2cattle_worker-instance-profile","tags":{"exampleTag":"TagValue"}}}}`
	if got := mustJSON(t, nc); got != wantClass {
		t.Errorf("NodeClass:\n got  %s\n want %s", got, wantClass)
	}
}

// TestRoundTripRandom converts many generated Provisioners to v1 and back and requires each to
// come back exactly, and its NodePool and NodeClass to be valid v1 objects.
func TestRoundTripRandom(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 0x7e404))
	crd := provisionerCRD(t)
	n := 500
	if testing.Short() {
		n = 50
	}
	for i := range n {
		p := canonical(t, randomProvisioner(r, i))
		if errs := p.Validate(); len(errs) > 0 {
			t.Fatalf("generated an invalid Provisioner (a generator bug): %v\n%s", errs, mustJSON(t, p))
		}
		np, nc := roundTrip(t, p)
		if i%10 == 0 { // the API server's validation is slower; a sample is enough
			if errs := crd.Validate(toMap(t, p), nil); len(errs) > 0 {
				t.Fatalf("the CRD rejects a generated Provisioner: %v\n%s", errs, mustJSON(t, p))
			}
			checkV1Valid(t, np, nc)
		} else {
			if errs := np.Validate(); len(errs) > 0 {
				t.Fatalf("NodePool fails v1 validation: %v\n%s", errs, mustJSON(t, p))
			}
			if nc != nil {
				if errs := nc.Validate(); len(errs) > 0 {
					t.Fatalf("NodeClass fails v1 validation: %v\n%s", errs, mustJSON(t, p))
				}
			}
		}
	}
}

// canonical returns p as a decoder would produce it from its JSON, the form stored objects have.
func canonical(t *testing.T, p *v1alpha5.Provisioner) *v1alpha5.Provisioner {
	t.Helper()
	var out v1alpha5.Provisioner
	if err := json.Unmarshal([]byte(mustJSON(t, p)), &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

func randomProvisioner(r *rand.Rand, i int) *v1alpha5.Provisioner {
	p := &v1alpha5.Provisioner{
		TypeMeta:   metav1.TypeMeta{APIVersion: "tenon.dev/v1alpha5", Kind: "Provisioner"},
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pool-%d", i)},
	}
	if r.IntN(3) == 0 {
		p.Labels = map[string]string{"team": pick(r, "a", "b")}
	}
	if r.IntN(3) == 0 {
		p.Annotations = map[string]string{"example.com/note": "x"}
	}
	s := &p.Spec
	s.Labels = randomMap(r, []string{"nodelabel", "example.com/team", "kubernetes.io/arch", "node.kubernetes.io/lifecycle", "tenon.dev/capacity-type"},
		func() v1alpha5.LabelValue { return v1alpha5.LabelValue(pick(r, "", "a", "b-1", "c.d_e")) })
	s.Annotations = randomMap(r, []string{"example.com/a", "b"}, func() string { return pick(r, "", "x", "some text") })
	s.Taints = randomTaints(r, "example.com/t")
	s.StartupTaints = randomTaints(r, "example.com/startup")
	s.Requirements = randomRequirements(r)
	if r.IntN(3) == 0 {
		s.KubeletConfiguration = randomKubelet(r)
	}
	if r.IntN(2) == 0 {
		s.Provider = randomProvider(r)
	} else {
		s.ProviderRef = &v1alpha5.ProviderRef{
			APIVersion: pick(r, "", "tenon.dev/v1"), Kind: pick(r, "", "NodeClass"), Name: pick(r, "default", "class.a"),
		}
	}
	setDisruption(r, s)
	if r.IntN(2) == 0 {
		s.TTLSecondsUntilExpired = ptr(pick(r, int64(0), 1, 2592000, math.MaxInt64, r.Int64N(1e9)))
	}
	switch r.IntN(3) {
	case 0:
		s.Limits = &v1alpha5.Limits{}
	case 1:
		s.Limits = &v1alpha5.Limits{Resources: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(pick(r, "1000", "1", "500m")), corev1.ResourceMemory: resource.MustParse("1000Gi"),
		}}
	}
	if r.IntN(2) == 0 {
		s.Weight = ptr(int32(1 + r.IntN(100)))
	}
	if r.IntN(2) == 0 {
		when := metav1.NewTime(time.Unix(1.7e9+r.Int64N(1e8), 0))
		p.Status = v1alpha5.ProvisionerStatus{
			LastScaleTime: &when,
			Conditions:    []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Ready", LastTransitionTime: when}},
			Resources:     corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("12")},
		}
	}
	return p
}

// setDisruption picks one of the valid combinations of ttlSecondsAfterEmpty and consolidation.
func setDisruption(r *rand.Rand, s *v1alpha5.ProvisionerSpec) {
	ttl := ptr(pick(r, int64(0), 30, 3600, math.MaxInt64))
	switch r.IntN(6) {
	case 0: // neither
	case 1:
		s.TTLSecondsAfterEmpty = ttl
	case 2:
		s.Consolidation = &v1alpha5.Consolidation{Enabled: ptr(true)}
	case 3:
		s.Consolidation = &v1alpha5.Consolidation{Enabled: ptr(false)}
	case 4:
		s.Consolidation = &v1alpha5.Consolidation{Enabled: ptr(false)}
		s.TTLSecondsAfterEmpty = ttl
	case 5:
		s.Consolidation = &v1alpha5.Consolidation{}
		if r.IntN(2) == 0 {
			s.TTLSecondsAfterEmpty = ttl
		}
	}
	// The savings thresholds go with any of them.
	if r.IntN(2) == 0 {
		if s.Consolidation == nil {
			s.Consolidation = &v1alpha5.Consolidation{}
		}
		s.Consolidation.MinSavingsPerHour = pick(r, nil, ptr("0"), ptr("0.25"))
		s.Consolidation.MinSavingsPercent = pick(r, nil, ptr(int32(0)), ptr(int32(35)))
		s.Consolidation.MinSavingsPerPod = pick(r, nil, ptr("0.001"))
	}
}

func randomTaints(r *rand.Rand, prefix string) []v1alpha5.Taint {
	var out []v1alpha5.Taint
	for j := range r.IntN(3) {
		out = append(out, v1alpha5.Taint{
			Key: fmt.Sprintf("%s%d", prefix, j), Value: pick(r, "", "v"),
			Effect: pick(r, corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute),
		})
	}
	return out
}

func randomRequirements(r *rand.Rand) []v1alpha5.NodeSelectorRequirement {
	var out []v1alpha5.NodeSelectorRequirement
	for range r.IntN(5) {
		switch r.IntN(5) {
		case 0:
			out = append(out, v1alpha5.NodeSelectorRequirement{Key: "node.kubernetes.io/instance-type", Operator: corev1.NodeSelectorOpIn, Values: []string{"m5.large", "c6g.xlarge"}})
		case 1:
			out = append(out, v1alpha5.NodeSelectorRequirement{Key: "tenon.dev/capacity-type", Operator: corev1.NodeSelectorOpNotIn, Values: []string{"spot"}})
		case 2:
			out = append(out, v1alpha5.NodeSelectorRequirement{Key: "example.com/gpu", Operator: pick(r, corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist)})
		case 3:
			out = append(out, v1alpha5.NodeSelectorRequirement{Key: "tenon.dev/instance-cpu", Operator: pick(r, corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt), Values: []string{fmt.Sprint(r.IntN(64))}})
		case 4:
			out = append(out, v1alpha5.NodeSelectorRequirement{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"eu-west-1a"}})
		}
	}
	return out
}

func randomKubelet(r *rand.Rand) *v1.KubeletConfiguration {
	k := &v1.KubeletConfiguration{}
	if r.IntN(2) == 0 {
		k.ClusterDNS = []string{"10.100.0.10"}
	}
	if r.IntN(2) == 0 {
		k.MaxPods = ptr(int32(1 + r.IntN(1000)))
	}
	if r.IntN(2) == 0 {
		k.PodsPerCore = ptr(int32(r.IntN(20)))
	}
	k.SystemReserved = randomMap(r, []string{"cpu", "memory"}, func() string { return pick(r, "100m", "1Gi") })
	k.KubeReserved = randomMap(r, []string{"ephemeral-storage", "pid"}, func() string { return pick(r, "1Gi", "100") })
	k.EvictionHard = randomMap(r, []string{"memory.available", "nodefs.available"}, func() string { return pick(r, "5%", "100Mi") })
	if r.IntN(2) == 0 {
		k.EvictionSoft = map[string]string{"memory.available": "10%"}
		k.EvictionSoftGracePeriod = map[string]v1.Duration{"memory.available": pick[v1.Duration](r, "1m30s", "90s")}
	}
	if r.IntN(2) == 0 {
		k.EvictionMaxPodGracePeriod = ptr(int32(r.IntN(300)))
	}
	if r.IntN(2) == 0 {
		k.ImageGCHighThresholdPercent = ptr(int32(51 + r.IntN(50)))
		k.ImageGCLowThresholdPercent = ptr(int32(r.IntN(51)))
	}
	if r.IntN(2) == 0 {
		k.CPUCFSQuota = ptr(r.IntN(2) == 0)
	}
	return k
}

func randomProvider(r *rand.Rand) *v1alpha5.Provider {
	p := &v1alpha5.Provider{
		InstanceProfile: pick(r, "KarpenterNodeInstanceProfile", "eks_worker-profile"),
		AMIFamily:       pick(r, "", "AL2023", "Bottlerocket"),
	}
	if r.IntN(4) == 0 {
		p.AMIFamily = "Custom"
		p.AMISelector = map[string]string{"team": "*"}
	}
	p.SubnetSelector = randomMap(r, []string{"kubernetes.io/cluster/prod", "Name"}, func() string { return pick(r, "*", "private") })
	p.SecurityGroupSelector = randomMap(r, []string{"Name", "tier"}, func() string { return "eks" })
	p.Tags = randomMap(r, []string{"exampleTag", "team", "tenon.dev/owner"}, func() string { return pick(r, "", "TagValue") })
	return p
}

// randomMap returns nil or a map with some of keys; never an empty map, which a decoder
// would not produce for an omitempty field.
func randomMap[V any](r *rand.Rand, keys []string, value func() V) map[string]V {
	var m map[string]V
	for _, k := range keys {
		if r.IntN(2) == 0 {
			if m == nil {
				m = map[string]V{}
			}
			m[k] = value()
		}
	}
	return m
}

func pick[T any](r *rand.Rand, options ...T) T { return options[r.IntN(len(options))] }

func ptr[T any](v T) *T { return &v }

// TestFromNodePool checks the pools FromNodePool reads beyond its own output: pools the API
// server defaulted, and pools using what a Provisioner cannot express.
func TestFromNodePool(t *testing.T) {
	p := decodeProvisioner(t, v1alpha5test.Base)
	np, nc, err := v1alpha5.ToNodePool(p)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("defaulted by the API server", func(t *testing.T) {
		np, nc := np.DeepCopy(), nc.DeepCopy()
		np.SetDefaults()
		nc.SetDefaults()
		got, err := v1alpha5.FromNodePool(np, nc)
		if err != nil {
			t.Fatal(err)
		}
		want := p.DeepCopy()
		want.Spec.Provider.AMIFamily = v1.AMIFamilyAL2023 // the NodeClass default, spelt out
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got  %s\nwant %s", mustJSON(t, got), mustJSON(t, want))
		}
	})
	t.Run("no disruption block consolidates", func(t *testing.T) {
		np := np.DeepCopy()
		np.Spec.Disruption = nil
		got, err := v1alpha5.FromNodePool(np, nc)
		if err != nil {
			t.Fatal(err)
		}
		if got.Spec.TTLSecondsAfterEmpty != nil || got.Spec.Consolidation == nil || !*got.Spec.Consolidation.Enabled {
			t.Errorf("got ttlSecondsAfterEmpty %v and consolidation %s, want consolidation enabled",
				got.Spec.TTLSecondsAfterEmpty, mustJSON(t, got.Spec.Consolidation))
		}
	})
	t.Run("expireAfter in hours", func(t *testing.T) {
		np := np.DeepCopy()
		np.Spec.Template.Spec.ExpireAfter = "720h"
		got, err := v1alpha5.FromNodePool(np, nc)
		if err != nil {
			t.Fatal(err)
		}
		if got := *got.Spec.TTLSecondsUntilExpired; got != 2592000 {
			t.Errorf("ttlSecondsUntilExpired = %d, want 2592000", got)
		}
	})

	inexpressible := []struct {
		name, want string
		edit       func(np *v1.NodePool, nc *v1.NodeClass)
	}{
		{"budgets", "spec.disruption.budgets", func(np *v1.NodePool, _ *v1.NodeClass) {
			np.Spec.Disruption.Budgets = []v1.Budget{{Nodes: "1"}}
		}},
		{"minValues", "spec.template.spec.requirements", func(np *v1.NodePool, _ *v1.NodeClass) {
			np.Spec.Template.Spec.Requirements[0].MinValues = ptr(int32(2))
		}},
		{"Gte", "spec.template.spec.requirements", func(np *v1.NodePool, _ *v1.NodeClass) {
			np.Spec.Template.Spec.Requirements = []v1.NodeSelectorRequirementWithMinValues{{Key: "tenon.dev/instance-cpu", Operator: v1.NodeSelectorOpGte, Values: []string{"4"}}}
		}},
		{"terminationGracePeriod", "spec.template.spec.terminationGracePeriod", func(np *v1.NodePool, _ *v1.NodeClass) {
			np.Spec.Template.Spec.TerminationGracePeriod = ptr(v1.Duration("1h"))
		}},
		{"delayed consolidation", "spec.disruption.consolidateAfter", func(np *v1.NodePool, _ *v1.NodeClass) {
			np.Spec.Disruption = &v1.Disruption{ConsolidationPolicy: v1.ConsolidationPolicyWhenEmptyOrUnderutilized, ConsolidateAfter: "5m"}
		}},
		{"sub-second TTL", "spec.disruption.consolidateAfter", func(np *v1.NodePool, _ *v1.NodeClass) {
			np.Spec.Disruption.ConsolidateAfter = "1500ms"
		}},
		{"role", "nodeclass.spec.aws.role", func(_ *v1.NodePool, nc *v1.NodeClass) {
			nc.Spec.AWS.Role = "KarpenterNodeRole"
		}},
		{"subnet IDs", "nodeclass.spec.aws.subnetSelectorTerms", func(_ *v1.NodePool, nc *v1.NodeClass) {
			nc.Spec.AWS.SubnetSelectorTerms = []v1.SubnetSelectorTerm{{ID: "subnet-1"}}
		}},
		{"two security group terms", "nodeclass.spec.aws.securityGroupSelectorTerms", func(_ *v1.NodePool, nc *v1.NodeClass) {
			nc.Spec.AWS.SecurityGroupSelectorTerms = append(nc.Spec.AWS.SecurityGroupSelectorTerms, v1.SecurityGroupSelectorTerm{Name: "x"})
		}},
		{"kwok", "nodeclass.spec.aws", func(_ *v1.NodePool, nc *v1.NodeClass) {
			nc.Spec = v1.NodeClassSpec{KWOK: &v1.KWOKNodeClassSpec{}}
		}},
		{"another NodeClass", "spec.template.spec.nodeClassRef.name", func(_ *v1.NodePool, nc *v1.NodeClass) {
			nc.Name = "other"
		}},
	}
	for _, tc := range inexpressible {
		t.Run(tc.name, func(t *testing.T) {
			np, nc := np.DeepCopy(), nc.DeepCopy()
			tc.edit(np, nc)
			_, err := v1alpha5.FromNodePool(np, nc)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("FromNodePool error = %v, want one naming %s", err, tc.want)
			}
		})
	}
}

// TestToNodePoolAnnotations pins what goes into annotations, since other tools read them.
func TestToNodePoolAnnotations(t *testing.T) {
	p := decodeProvisioner(t, []byte(`
apiVersion: tenon.dev/v1alpha5
kind: Provisioner
metadata: {name: ref, annotations: {example.com/keep: "yes"}}
spec:
  consolidation: {enabled: false}
  limits: {}
  providerRef: {name: default}
  kubeletConfiguration: {maxPods: 20}
status:
  lastScaleTime: "2025-01-02T03:04:05Z"
`))
	np, nc, err := v1alpha5.ToNodePool(p)
	if err != nil {
		t.Fatal(err)
	}
	if nc != nil {
		t.Errorf("providerRef made a NodeClass: %s", mustJSON(t, nc))
	}
	want := map[string]string{
		"example.com/keep":                      "yes",
		v1alpha5.AnnotationConsolidation:        `{"enabled":false}`,
		v1alpha5.AnnotationLimits:               `{}`,
		v1alpha5.AnnotationKubeletConfiguration: `{"maxPods":20}`,
		v1alpha5.AnnotationLastScaleTime:        "2025-01-02T03:04:05Z",
	}
	if !reflect.DeepEqual(np.Annotations, want) {
		t.Errorf("annotations:\n got  %v\n want %v", np.Annotations, want)
	}
	if got := np.Spec.Template.Spec.NodeClassRef; *got != (v1.NodeClassReference{Name: "default"}) {
		t.Errorf("nodeClassRef = %+v, want only the name (group and kind left to the defaults)", *got)
	}
	if d := np.Spec.Disruption; d.ConsolidationPolicy != v1.ConsolidationPolicyWhenEmpty || d.ConsolidateAfter != v1.NeverDuration {
		t.Errorf("disruption = %+v, want WhenEmpty after Never", *d)
	}
	if np.Spec.Template.Spec.ExpireAfter != v1.NeverDuration {
		t.Errorf("expireAfter = %q, want Never", np.Spec.Template.Spec.ExpireAfter)
	}
	roundTrip(t, p)
	checkV1Valid(t, np, nil)
}

// TestSetDefaultsTwin checks that SetDefaults fills what the CRD's defaults fill.
func TestSetDefaultsTwin(t *testing.T) {
	crd := provisionerCRD(t)
	for _, doc := range []string{
		`{metadata: {name: a}, spec: {providerRef: {name: default}}}`,
		`{metadata: {name: a}, spec: {providerRef: {name: default, kind: NodeClass}}}`,
		`{metadata: {name: a}, spec: {provider: {instanceProfile: p}}}`,
	} {
		p := decodeProvisioner(t, []byte(doc))
		obj := toMap(t, p)
		crd.Default(obj)
		p.SetDefaults()
		if got, want := mustJSON(t, p), mustJSON(t, obj); got != want {
			t.Errorf("SetDefaults:\n got  %s\n CRD  %s", got, want)
		}
		if errs := p.Validate(); len(errs) > 0 {
			t.Errorf("defaulted object invalid: %v", errs)
		}
	}
}
