package manifests

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// Permission is one resource the agent uses, the verbs it needs on it, and why.
type Permission struct {
	// Group is the API group; "" is the core group.
	Group string
	// Resource is the plural resource name, with a subresource after a slash (pods/eviction).
	Resource string
	// Verbs are exactly the verbs the agent's code calls.
	Verbs []string
	// Why says which part of the agent needs them.
	Why string
	// Cloud, when set, limits the permission to agents of that cloud.
	Cloud string
	// Namespaced puts the permission in a Role in the agent's namespace instead of the
	// ClusterRole.
	Namespaced bool
	// PolicyGit limits the permission to agents in pull mode (Options.PolicyGit).
	PolicyGit bool
	// ResourceNames, when set, limit the permission to those objects.
	ResourceNames []string
}

// Permissions is the agent's least privilege: exactly the verbs its code calls (engine/agent
// and engine/cloud/kwok, read as of this table), each with the reason. The ClusterRole and the
// Role are built from this table and nothing else; the integration test checks each verb with a
// SubjectAccessReview as the agent's ServiceAccount and that verbs outside the table are denied,
// and `make demo` runs the agent impersonating that ServiceAccount, so a verb the code needs
// and the table lacks fails the demo.
//
// The agent reads through controller-runtime's cache (list and watch); the kwok provider reads
// and writes Nodes directly (get, list, create, delete). get on pods, NodeClaims and the policy
// objects is for single reads outside the cache (the manager's API reader).
//
//	core pods                        get list watch     provisioning watches unschedulable pods; termination and
//	                                                    disruption list the pods on a node to drain it
//	core pods                        delete             termination deletes the pods still on a node once the
//	                                                    pool's terminationGracePeriod is over
//	core pods/eviction               create             termination evicts through the Eviction API, so PDBs hold
//	core pods/status                 patch              provisioning writes the node each pod was nominated to in
//	                                                    status.nominatedNodeName, for kube-scheduler
//	core nodes                       get list watch     the Snapshot; registration matches nodes to claims by provider ID
//	core nodes                       patch              taint tenon.dev/disrupted, finalizer tenon.dev/termination,
//	                                                    startup-taint and label changes
//	core nodes                       delete             termination removes the Node once the instance is gone
//	core nodes                       create             kwok only: the KWOK cloud provider launches a node by creating it
//	core events                      create patch       leader election's events (the legacy recorder; patch
//	                                                    aggregates repeats)
//	events.k8s.io events             create patch       the agent's events on pods, nodes, claims and pools
//	apps daemonsets                  list watch         daemonset overhead on every candidate node
//	apps replicasets statefulsets    list watch         provisioning sizes a batch for the pods they are still
//	batch jobs                                          creating (--anticipate-pods)
//	policy poddisruptionbudgets      list watch         the disruption budget of pods evicted or consolidated
//	tenon.dev nodeclaims             get list watch create update patch delete
//	                                                    the agent owns claims: created before the cloud call,
//	                                                    finalizer and condition changes, deleted to terminate
//	tenon.dev nodeclaims/status      update             Launched, Registered, Initialized, Consolidatable, Drifted, Expired
//	tenon.dev nodepools              get list watch     the policy
//	tenon.dev nodepools/status       update             status.resources, node counts, conditions
//	tenon.dev provisioners           get list watch     the v1alpha5 policy, normalised like NodePools
//	tenon.dev provisioners/status    update             as for nodepools
//	tenon.dev nodeclasses            get list watch     how nodes are launched
//	tenon.dev nodeclasses/status     update             readiness (and, for aws, resolved subnets, security groups, AMIs)
//	tenon.dev nodeoverlays           get list watch     price and extended-resource overlays on instance types
//	tenon.dev nodeoverlays/status    update             Ready (Applied, Conflict, NoMatch, Invalid), pools changed
//	coordination.k8s.io leases       get create update  (Role, agent namespace) leader election on one Lease
//
// Pull mode (Options.PolicyGit, engine/agent/policysync) adds, and only then:
//
//	tenon.dev nodeclasses, nodepools, provisioners, nodeoverlays  create patch delete
//	                                                    server-side apply of the Git path's objects (create
//	                                                    when new), pruning of those that left Git
//	core configmaps                  create             (Role) the status ConfigMap, the first time
//	core configmaps                  get patch          (Role, that ConfigMap only) reading and applying it
//	core secrets                     get                (Role, the --policy-git-secret Secret only) Git credentials
//
//	core pods                        patch              provisioning adds to each pod it nominates to a node that
//	                                                    starts with the tenon.dev/awaiting-pods taint the
//	                                                    toleration of that node's taint alone; --pod-deletion-cost
//	                                                    writes controller.kubernetes.io/pod-deletion-cost and
//	                                                    tenon.dev/pod-deletion-cost on ReplicaSet pods
//
// patch on pods is a powerful permission: RBAC cannot limit a patch to some fields, so it would
// let the agent change any field a patch may change on any pod (its image, say). The manifests
// therefore ship a ValidatingAdmissionPolicy (PodPatchPolicy) that refuses every change the
// agent's ServiceAccount makes to a pod but those two.
//
// Nothing else: no other Secrets or ConfigMaps, no pod writes but deletion and those two
// patches, no cluster-wide Leases.
var Permissions = []Permission{
	{Group: "", Resource: "pods", Verbs: []string{"get", "list", "watch"},
		Why: "provisioning watches unschedulable pods; termination and disruption list a node's pods to drain it"},
	{Group: "", Resource: "pods", Verbs: []string{"delete"},
		Why: "termination deletes the pods still on a node once the pool's terminationGracePeriod is over"},
	{Group: "", Resource: "pods/status", Verbs: []string{"patch"},
		Why: "provisioning writes the node each pod was nominated to in status.nominatedNodeName, which kube-scheduler tries first"},
	{Group: "", Resource: "pods/eviction", Verbs: []string{"create"},
		Why: "termination evicts pods through the Eviction API so that PodDisruptionBudgets hold"},
	{Group: "", Resource: "nodes", Verbs: []string{"get", "list", "watch", "patch", "delete"},
		Why: "the Snapshot and registration read nodes; lifecycle and termination patch taints, labels and the tenon.dev/termination finalizer, and delete them"},
	{Group: "", Resource: "nodes", Verbs: []string{"create"}, Cloud: CloudKWOK,
		Why: "the KWOK cloud provider launches a node by creating the Node object"},
	{Group: "", Resource: "events", Verbs: []string{"create", "patch"},
		Why: "leader election records its events through the legacy core recorder (patch aggregates repeats)"},
	{Group: "events.k8s.io", Resource: "events", Verbs: []string{"create", "patch"},
		Why: "the agent's events on pods, nodes, claims and pools, through controller-runtime's events/v1 recorder"},
	{Group: "apps", Resource: "daemonsets", Verbs: []string{"list", "watch"},
		Why: "daemonset overhead is counted on every candidate node"},
	{Group: "apps", Resource: "replicasets", Verbs: []string{"list", "watch"},
		Why: "provisioning sizes a batch's nodes for the pods ReplicaSets are still creating (--anticipate-pods)"},
	{Group: "apps", Resource: "statefulsets", Verbs: []string{"list", "watch"},
		Why: "provisioning sizes a batch's nodes for the pods StatefulSets are still creating (--anticipate-pods)"},
	{Group: "batch", Resource: "jobs", Verbs: []string{"list", "watch"},
		Why: "provisioning sizes a batch's nodes for the pods Jobs are still creating (--anticipate-pods)"},
	{Group: "policy", Resource: "poddisruptionbudgets", Verbs: []string{"list", "watch"},
		Why: "disruption and termination respect PodDisruptionBudgets"},
	{Group: "tenon.dev", Resource: "nodeclaims", Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"},
		Why: "the agent owns NodeClaims: it persists one before each cloud call, updates finalizers and conditions, and deletes it to terminate the node"},
	{Group: "tenon.dev", Resource: "nodeclaims/status", Verbs: []string{"update"},
		Why: "the lifecycle conditions Launched, Registered, Initialized and the disruption conditions"},
	{Group: "tenon.dev", Resource: "nodepools", Verbs: []string{"get", "list", "watch"},
		Why: "NodePools are the policy the agent follows"},
	{Group: "tenon.dev", Resource: "nodepools/status", Verbs: []string{"update"},
		Why: "pool status: resources in use, node counts, conditions"},
	{Group: "tenon.dev", Resource: "provisioners", Verbs: []string{"get", "list", "watch"},
		Why: "Provisioners (v1alpha5) are policy too, normalised like NodePools"},
	{Group: "tenon.dev", Resource: "provisioners/status", Verbs: []string{"update"},
		Why: "pool status, as for NodePools"},
	{Group: "tenon.dev", Resource: "nodeclasses", Verbs: []string{"get", "list", "watch"},
		Why: "NodeClasses say how nodes are launched"},
	{Group: "tenon.dev", Resource: "nodeclasses/status", Verbs: []string{"update"},
		Why: "readiness, and for aws what the cloud resolved (subnets, security groups, AMIs)"},
	{Group: "tenon.dev", Resource: "nodeoverlays", Verbs: []string{"get", "list", "watch"},
		Why: "NodeOverlays adjust the price and extended resources of instance types before packing and consolidation"},
	{Group: "tenon.dev", Resource: "nodeoverlays/status", Verbs: []string{"update"},
		Why: "overlay status: whether it is applied, in conflict or selects nothing, and the pools it changes"},
	{Group: "coordination.k8s.io", Resource: "leases", Verbs: []string{"get", "create", "update"}, Namespaced: true,
		Why: "leader election holds one Lease in the agent's namespace"},
	{Group: "tenon.dev", Resource: "nodeclasses", Verbs: []string{"create", "patch", "delete"}, PolicyGit: true,
		Why: "pull mode applies the Git path's NodeClasses (create when new) and prunes those that left Git"},
	{Group: "tenon.dev", Resource: "nodepools", Verbs: []string{"create", "patch", "delete"}, PolicyGit: true,
		Why: "pull mode applies and prunes NodePools"},
	{Group: "tenon.dev", Resource: "provisioners", Verbs: []string{"create", "patch", "delete"}, PolicyGit: true,
		Why: "pull mode applies and prunes Provisioners"},
	{Group: "tenon.dev", Resource: "nodeoverlays", Verbs: []string{"create", "patch", "delete"}, PolicyGit: true,
		Why: "pull mode applies and prunes NodeOverlays"},
	{Group: "", Resource: "pods", Verbs: []string{"patch"},
		Why: "provisioning adds the toleration of its new node's awaiting-pods taint to each pod planned there, so the pod binds as the node registers; --pod-deletion-cost writes the pod deletion cost; the ValidatingAdmissionPolicy of the manifests refuses any other change"},
	{Group: "", Resource: "configmaps", Verbs: []string{"create"}, Namespaced: true, PolicyGit: true,
		Why: "pull mode creates its status ConfigMap the first time (create cannot be limited to a name)"},
	{Group: "", Resource: "configmaps", Verbs: []string{"get", "patch"}, Namespaced: true, PolicyGit: true, ResourceNames: []string{PolicyStatusConfigMap},
		Why: "pull mode reads and applies its status ConfigMap, and no other"},
}

// PolicyStatusConfigMap is the ConfigMap in the agent's namespace where pull mode records the
// last synced commit (engine/agent/policysync's default name).
const PolicyStatusConfigMap = "tenon-policy-sync"

// Permissions returns the permissions the agent o describes needs: PermissionsFor its cloud,
// plus pull mode's when o.PolicyGit is set, with read access to its credentials Secret alone.
func (o Options) Permissions() []Permission {
	var out []Permission
	for _, p := range Permissions {
		if (p.Cloud == "" || p.Cloud == o.Cloud) && (!p.PolicyGit || o.PolicyGit != nil) {
			out = append(out, p)
		}
	}
	if o.PolicyGit != nil && o.PolicyGit.Secret != "" {
		out = append(out, Permission{Group: "", Resource: "secrets", Verbs: []string{"get"}, Namespaced: true, PolicyGit: true,
			ResourceNames: []string{o.PolicyGit.Secret}, Why: "pull mode reads the Git credentials from this Secret, and no other"})
	}
	return out
}

// PermissionsFor returns the permissions an agent of cloud needs without pull mode.
func PermissionsFor(cloud string) []Permission {
	return Options{Cloud: cloud}.Permissions()
}

// rules turns the permissions of o into policy rules: one rule per group, resource and
// resource names with the union of its verbs, in the table's order, namespaced or
// cluster-wide as asked.
func rules(o Options, namespaced bool) []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	index := map[[3]string]int{}
	for _, p := range o.Permissions() {
		if p.Namespaced != namespaced {
			continue
		}
		key := [3]string{p.Group, p.Resource, strings.Join(p.ResourceNames, ",")}
		i, ok := index[key]
		if !ok {
			index[key] = len(out)
			out = append(out, rbacv1.PolicyRule{APIGroups: []string{p.Group}, Resources: []string{p.Resource}, ResourceNames: slices.Clone(p.ResourceNames)})
			i = len(out) - 1
		}
		for _, v := range p.Verbs {
			if !slices.Contains(out[i].Verbs, v) {
				out[i].Verbs = append(out[i].Verbs, v)
			}
		}
	}
	return out
}
