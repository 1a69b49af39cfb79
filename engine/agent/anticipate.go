package agent

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// MaxAnticipatedPods bounds how many pods one batch plans for that
// controllers have still to create, so a ReplicaSet scaled to a huge
// count (or a hostile one) cannot make a solve slow: past it, the rest are
// planned when they exist.
const MaxAnticipatedPods = 5000

// anticipatedSuffix names the pods a batch plans for that do not exist
// yet: "<owner>-tenon-anticipated-<n>". The suffix cannot collide with a
// controller's generated names (a ReplicaSet's pods are "<rs>-<5 chars>").
const anticipatedSuffix = "-tenon-anticipated-"

// A burst arrives over tens of seconds: the ReplicaSet controller creates
// a Deployment's pods in growing batches, and kube-scheduler marks them
// unschedulable one by one. Packing each batch of the burst on its own
// buys right-sized nodes the next batch cannot use, so a burst of N pods
// ends dearer than the N pods packed at once (issue 18: up to 37 % live).
// The controllers say what is coming: a ReplicaSet, StatefulSet or Job
// whose desired count exceeds its pods will create the rest from its pod
// template. anticipatePods adds those pods (and the pods kube-scheduler
// has not tried yet) to the batch, the batch launches the whole plan, and
// slots (slots.go) keep the room planned for each controller's pods until
// they come, so the burst ends where packing it at once ends. Pods that
// never come (a quota, a webhook) leave room that consolidation reclaims
// as for any empty or underused node; a ReplicaSet reporting
// ReplicaFailure is not anticipated.

// ownerLists are the controllers whose pods are anticipated.
type ownerLists struct {
	replicaSets  appsv1.ReplicaSetList
	statefulSets appsv1.StatefulSetList
	jobs         batchv1.JobList
}

// anticipatePods lists the pod controllers and returns the pods they have
// still to create (at most limit, largest shortfall first), plus every
// pending pod kube-scheduler has not marked unschedulable yet, ready to be
// added to a view's objects; now is their creation time (after every
// existing pod, as kube-scheduler will queue them).
func anticipatePods(ctx context.Context, c client.Reader, pods []corev1.Pod, now time.Time, limit int) ([]*corev1.Pod, error) {
	var l ownerLists
	for _, list := range []client.ObjectList{&l.replicaSets, &l.statefulSets, &l.jobs} {
		if err := c.List(ctx, list); err != nil {
			return nil, fmt.Errorf("listing %s: %w", listKind(list), err)
		}
	}
	var out []*corev1.Pod
	for i := range pods {
		if p := &pods[i]; untried(p) {
			out = append(out, p)
		}
	}
	live := livePodsByOwner(pods)
	for _, o := range shortfalls(&l, live) {
		for n := 0; n < o.missing && len(out) < limit; n++ {
			out = append(out, o.pod(n, now))
		}
	}
	return out, nil
}

// untried reports whether pod waits for kube-scheduler's first attempt:
// pending, unbound, not terminating, and with no PodScheduled condition.
func untried(pod *corev1.Pod) bool {
	if pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodPending {
		return false
	}
	return !slices.ContainsFunc(pod.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.PodScheduled })
}

// livePodsByOwner counts, by controller UID, the pods a controller counts
// toward its desired count: not terminating, not finished. It keeps one
// of them to copy the priority admission resolved.
func livePodsByOwner(pods []corev1.Pod) map[types.UID]*liveOwned {
	out := map[types.UID]*liveOwned{}
	for i := range pods {
		p := &pods[i]
		ref := metav1.GetControllerOf(p)
		if ref == nil || p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		o := out[ref.UID]
		if o == nil {
			o = &liveOwned{sample: p}
			out[ref.UID] = o
		}
		o.count++
	}
	return out
}

type liveOwned struct {
	count  int
	sample *corev1.Pod
}

// shortfall is one controller's pods still to come.
type shortfall struct {
	namespace, name string
	ref             metav1.OwnerReference
	template        *corev1.PodTemplateSpec
	missing         int
	priority        *int32
}

// shortfalls returns every controller that wants more pods than it has,
// largest shortfall first (then by namespace and name, for a stable
// order).
func shortfalls(l *ownerLists, live map[types.UID]*liveOwned) []shortfall {
	var out []shortfall
	add := func(obj client.Object, kind schemaKind, template *corev1.PodTemplateSpec, desired int) {
		have := live[obj.GetUID()]
		n := desired
		var priority *int32
		if have != nil {
			n -= have.count
			priority = have.sample.Spec.Priority
		}
		if n <= 0 || obj.GetDeletionTimestamp() != nil {
			return
		}
		yes := true
		out = append(out, shortfall{namespace: obj.GetNamespace(), name: obj.GetName(), template: template, missing: n, priority: priority,
			ref: metav1.OwnerReference{APIVersion: kind.apiVersion, Kind: kind.kind, Name: obj.GetName(), UID: obj.GetUID(), Controller: &yes}})
	}
	for i := range l.replicaSets.Items {
		rs := &l.replicaSets.Items[i]
		if rs.Spec.Replicas != nil && !replicaFailure(rs.Status.Conditions) {
			add(rs, schemaKind{"apps/v1", "ReplicaSet"}, &rs.Spec.Template, int(*rs.Spec.Replicas))
		}
	}
	for i := range l.statefulSets.Items {
		ss := &l.statefulSets.Items[i]
		if ss.Spec.Replicas != nil {
			add(ss, schemaKind{"apps/v1", "StatefulSet"}, &ss.Spec.Template, int(*ss.Spec.Replicas))
		}
	}
	for i := range l.jobs.Items {
		job := &l.jobs.Items[i]
		if desired, ok := jobWants(job); ok {
			add(job, schemaKind{"batch/v1", "Job"}, &job.Spec.Template, desired)
		}
	}
	slices.SortFunc(out, func(a, b shortfall) int {
		if a.missing != b.missing {
			return b.missing - a.missing
		}
		if a.namespace != b.namespace {
			return cmp.Compare(a.namespace, b.namespace)
		}
		return cmp.Compare(a.name, b.name)
	})
	return out
}

type schemaKind struct{ apiVersion, kind string }

// replicaFailure reports a ReplicaSet whose controller fails to create
// pods (a ResourceQuota, an admission webhook): they are not coming.
func replicaFailure(conds []appsv1.ReplicaSetCondition) bool {
	return slices.ContainsFunc(conds, func(c appsv1.ReplicaSetCondition) bool {
		return c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue
	})
}

// jobWants is how many pods a running Job wants at once: its parallelism,
// no more than the completions left (for a Job with completions), and
// false for a suspended, finished or failed Job.
func jobWants(job *batchv1.Job) (int, bool) {
	if job.Spec.Suspend != nil && *job.Spec.Suspend {
		return 0, false
	}
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed || c.Type == batchv1.JobFailureTarget || c.Type == batchv1.JobSuccessCriteriaMet) && c.Status == corev1.ConditionTrue {
			return 0, false
		}
	}
	want := 1
	if job.Spec.Parallelism != nil {
		want = int(*job.Spec.Parallelism)
	}
	if job.Spec.Completions != nil {
		left := int(*job.Spec.Completions) - int(job.Status.Succeeded)
		want = min(want, left)
	}
	return want, want > 0
}

// pod is the n-th pod s has still to create, from its template.
func (s shortfall) pod(n int, now time.Time) *corev1.Pod {
	t := s.template.DeepCopy()
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: s.namespace, Name: fmt.Sprintf("%s%s%d", s.name, anticipatedSuffix, n),
			Labels: t.Labels, Annotations: t.Annotations,
			OwnerReferences:   []metav1.OwnerReference{s.ref},
			CreationTimestamp: metav1.NewTime(now),
		},
		Spec: withPriority(t.Spec, s.priority),
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}},
	}
}

func withPriority(spec corev1.PodSpec, priority *int32) corev1.PodSpec {
	if spec.Priority == nil && priority != nil {
		p := *priority
		spec.Priority = &p
	}
	return spec
}

// foreseenOwner names the controller of pod whose pods a batch anticipates
// (a ReplicaSet, StatefulSet or Job), or "" (batcher.TriggerFor).
func foreseenOwner(pod *corev1.Pod) string {
	ref := metav1.GetControllerOf(pod)
	if ref == nil {
		return ""
	}
	switch ref.Kind {
	case "ReplicaSet", "StatefulSet", "Job":
		return string(ref.UID)
	}
	return ""
}
