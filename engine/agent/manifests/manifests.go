// Package manifests builds the Kubernetes objects that install Tenon's agent in a cluster: its
// Namespace, the tenon.dev CRDs, a ServiceAccount, least-privilege RBAC (see Permissions), the
// Deployment, its PodDisruptionBudget and the metrics Service,
// and a ValidatingAdmissionPolicy that limits what the agent may change on a pod. They are typed values built from
// Options, so the tenon_agent Terraform resource, `tenon manifests` (Command), the golden file
// examples/local/agent.yaml and `make demo` share one source of truth; the Helm chart
// charts/tenon is tested to render the same objects. The package is pure: it builds values and
// talks to no API server.
//
// To install the agent, apply the objects in order, for example with server-side apply:
//
//	objs, err := manifests.Objects(manifests.Options{Cloud: manifests.CloudAWS, ClusterName: "prod"})
//	us, err := manifests.Unstructured(objs) // without status and null timestamps
//	for _, u := range us { /* apply u; after the CRDs, wait until they are Established */ }
//
// Permissions lists every verb the agent is granted and why.
package manifests

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/tenonhq/terraform-provider-tenon/engine/api/crds"
)

// Name is the name of the agent's ServiceAccount, Deployment, PDB and namespaced Role and
// RoleBinding, and the prefix of its cluster-wide RBAC objects.
const Name = "tenon"

// ContainerName is the name of the agent's container in the Deployment.
const ContainerName = "agent"

// Labels returns the labels on every object this package builds, which also select the
// agent's pods (a new map each call).
func Labels() map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      "tenon",
		"app.kubernetes.io/component": "agent",
	}
}

// PoolLabel marks nodes the agent launched; the agent never runs on them, so that removing a
// pool's nodes never removes the agent that manages them.
const PoolLabel = "tenon.dev/nodepool"

// Objects returns the objects that install the agent, in the order to apply them: Namespace,
// CRDs, ServiceAccount, ClusterRole, ClusterRoleBinding, the ValidatingAdmissionPolicy that
// limits the agent's pod patches and its binding, Role, RoleBinding, Deployment,
// PodDisruptionBudget, the metrics Service and, when asked, its ServiceMonitor. Every object carries its apiVersion and kind. Empty options take their
// defaults (Options.Defaulted); invalid ones return an error naming each field at fault.
func Objects(opts Options) ([]client.Object, error) {
	o := opts.Defaulted()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	crdObjects, err := CRDs()
	if err != nil {
		return nil, err
	}
	objs := []client.Object{namespace(o)}
	for _, crd := range crdObjects {
		objs = append(objs, crd)
	}
	objs = append(objs,
		serviceAccount(o),
		clusterRole(o),
		clusterRoleBinding(o),
		podPatchPolicy(o),
		podPatchPolicyBinding(o),
		role(o),
		roleBinding(o),
		deployment(o),
		podDisruptionBudget(o),
		metricsService(o),
	)
	if o.ServiceMonitor != nil {
		objs = append(objs, serviceMonitor(o))
	}
	return objs, nil
}

// CRDs returns the tenon.dev CustomResourceDefinitions of engine/api/crds, sorted by name.
func CRDs() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, name := range crds.Names() {
		data, err := crds.Get(name)
		if err != nil {
			return nil, err
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(data, crd); err != nil {
			return nil, fmt.Errorf("parsing embedded CRD %s: %w", name, err)
		}
		out = append(out, crd)
	}
	slices.SortFunc(out, func(a, b *apiextensionsv1.CustomResourceDefinition) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// AgentArgs returns the agent container's arguments for opts, the subcommand first: what the
// Deployment runs, and what `make demo` runs as a local process.
func AgentArgs(opts Options) ([]string, error) {
	o := opts.Defaulted()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return agentArgs(o), nil
}

func agentArgs(o Options) []string {
	s := o.Settings
	args := []string{
		"agent",
		"--cloud=" + o.Cloud,
		"--cluster-name=" + o.ClusterName,
		"--metrics-addr=:" + strconv.Itoa(MetricsPort),
		"--health-addr=:" + strconv.Itoa(HealthPort),
		"--leader-elect=true",
		"--leader-elect-namespace=" + o.Namespace,
		"--batch-idle=" + s.BatchIdle.String(),
		"--batch-max=" + s.BatchMax.String(),
		"--log-level=" + s.LogLevel,
		"--log-format=" + s.LogFormat,
	}
	if s.Region != "" {
		args = append(args, "--region="+s.Region)
	}
	if len(s.Zones) > 0 {
		args = append(args, "--zones="+strings.Join(s.Zones, ","))
	}
	if s.InterruptionQueue != "" {
		args = append(args, "--interruption-queue="+s.InterruptionQueue)
	}
	if s.KWOKLaunchDelay != 0 {
		args = append(args, "--kwok-launch-delay="+s.KWOKLaunchDelay.String())
	}
	if s.PodDeletionCost {
		args = append(args, "--pod-deletion-cost")
	}
	if g := o.PolicyGit; g != nil {
		args = append(args, "--policy-git-url="+g.URL)
		if g.Branch != "" {
			args = append(args, "--policy-git-branch="+g.Branch)
		}
		if g.Path != "" {
			args = append(args, "--policy-git-path="+g.Path)
		}
		if g.Interval != 0 {
			args = append(args, "--policy-git-interval="+g.Interval.String())
		}
		if g.Secret != "" {
			args = append(args, "--policy-git-secret="+g.Secret)
		}
		if g.InsecureHTTP {
			args = append(args, "--policy-git-insecure-http")
		}
	}
	return append(args, o.Args...)
}

func meta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: Labels()}
}

func namespace(o Options) *corev1.Namespace {
	return &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: meta(o.Namespace, ""),
	}
}

func serviceAccount(o Options) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: meta(Name, o.Namespace),
	}
	if len(o.ServiceAccountAnnotations) > 0 {
		sa.Annotations = o.ServiceAccountAnnotations
	}
	return sa
}

// ClusterRoleName is the name of the agent's ClusterRole and ClusterRoleBinding, which carry
// the namespace so that two installations in different namespaces do not collide.
func ClusterRoleName(namespace string) string {
	return Name + ":" + namespace
}

func clusterRole(o Options) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
		ObjectMeta: meta(ClusterRoleName(o.Namespace), ""),
		Rules:      rules(o, false),
	}
}

func subjects(o Options) []rbacv1.Subject {
	return []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: Name, Namespace: o.Namespace}}
}

func clusterRoleBinding(o Options) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
		ObjectMeta: meta(ClusterRoleName(o.Namespace), ""),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ClusterRoleName(o.Namespace)},
		Subjects:   subjects(o),
	}
}

func role(o Options) *rbacv1.Role {
	return &rbacv1.Role{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role"},
		ObjectMeta: meta(Name, o.Namespace),
		Rules:      rules(o, true),
	}
}

func roleBinding(o Options) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding"},
		ObjectMeta: meta(Name, o.Namespace),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: Name},
		Subjects:   subjects(o),
	}
}

func podDisruptionBudget(o Options) *policyv1.PodDisruptionBudget {
	maxUnavailable := intstr.FromInt32(1)
	return &policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: meta(Name, o.Namespace),
		Spec: policyv1.PodDisruptionBudgetSpec{
			MaxUnavailable: &maxUnavailable,
			Selector:       &metav1.LabelSelector{MatchLabels: Labels()},
		},
	}
}
