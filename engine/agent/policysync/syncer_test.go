package policysync

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/gitops"
	"github.com/tenonhq/terraform-provider-tenon/engine/gitops/gitopstest"
)

func nodePool(name, class string, capacityTypes ...string) *v1.NodePool {
	return &v1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.NodePoolSpec{Template: v1.NodeClaimTemplate{Spec: v1.NodeClaimTemplateSpec{
			NodeClassRef: &v1.NodeClassReference{Name: class},
			Requirements: []v1.NodeSelectorRequirementWithMinValues{{
				Key: "tenon.dev/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: capacityTypes,
			}},
		}}},
	}
}

func nodeClass(name string) *v1.NodeClass {
	return &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: v1.NodeClassSpec{KWOK: &v1.KWOKNodeClassSpec{}}}
}

// fixture is a git server with one repository, a Writer on it, and a Syncer of it.
type fixture struct {
	t      *testing.T
	srv    *gitopstest.Server
	c      client.Client
	ns     string
	writer *gitops.Writer
	clock  time.Time
}

func newFixture(t *testing.T, ns string) *fixture {
	t.Helper()
	c := kubeClient(t)
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	f := &fixture{t: t, srv: srv, c: c, ns: namespace(t, c, ns), clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	repo, err := gitops.Open(gitops.Options{URL: srv.GitURL("policy"), Path: "tenon", Now: func() time.Time { return f.clock }})
	if err != nil {
		t.Fatal(err)
	}
	f.writer = gitops.NewWriter(repo)
	return f
}

// commit writes a change an hour after the previous one.
func (f *fixture) commit(change gitops.Change) string {
	f.t.Helper()
	f.clock = f.clock.Add(time.Hour)
	res, err := f.writer.Apply(testContext(f.t), change)
	if err != nil {
		f.t.Fatalf("writing to git: %v", err)
	}
	return res.Commit
}

func (f *fixture) syncer(opts Options) *Syncer {
	f.t.Helper()
	if opts.Git.URL == "" {
		opts.Git = gitops.Options{URL: f.srv.GitURL("policy"), Path: "tenon"}
	}
	opts.Namespace = f.ns
	opts.Logger = testr.New(f.t)
	s, err := New(f.c, opts)
	if err != nil {
		f.t.Fatalf("New: %v", err)
	}
	return s
}

func (f *fixture) nodePool(name string) *v1.NodePool {
	f.t.Helper()
	var np v1.NodePool
	if err := f.c.Get(testContext(f.t), client.ObjectKey{Name: name}, &np); err != nil {
		f.t.Fatalf("getting NodePool %s: %v", name, err)
	}
	return &np
}

func (f *fixture) absent(obj client.Object, name string) {
	f.t.Helper()
	err := f.c.Get(testContext(f.t), client.ObjectKey{Name: name}, obj)
	if !apierrors.IsNotFound(err) {
		f.t.Errorf("%T %s: got err %v, want NotFound", obj, name, err)
	}
}

func capacityTypes(np *v1.NodePool) []string {
	return np.Spec.Template.Spec.Requirements[0].Values
}

func objs(o ...runtime.Object) []runtime.Object { return o }

// TestApplyAndPrune: objects from Git are applied with the tenon-gitops field manager and the
// sync label; objects removed from Git are pruned; objects the Syncer never applied are left
// alone; the status ConfigMap and events report each sync.
func TestApplyAndPrune(t *testing.T) {
	f := newFixture(t, "sync-prune")
	manual := nodePool("prune-manual", "prune-class", "spot")
	if err := f.c.Create(testContext(t), manual); err != nil {
		t.Fatal(err)
	}
	c1 := f.commit(gitops.Change{Apply: objs(nodeClass("prune-class"), nodePool("prune-a", "prune-class", "spot"), nodePool("prune-b", "prune-class", "on-demand"))})
	s := f.syncer(Options{Name: "prune-sync"})
	st, err := s.SyncOnce(testContext(t))
	if err != nil {
		t.Fatalf("SyncOnce: %v", err)
	}
	if st.Commit != c1 || st.Error != "" {
		t.Errorf("status = %+v, want commit %s and no error", st, c1)
	}
	a := f.nodePool("prune-a")
	if a.Labels[SyncLabel] != "prune-sync" || a.Annotations[SourceAnnotation] != "tenon/nodepool/prune-a.yaml" {
		t.Errorf("prune-a labels %v annotations %v", a.Labels, a.Annotations)
	}
	managers := map[string]bool{}
	for _, mf := range a.ManagedFields {
		managers[mf.Manager] = mf.Operation == metav1.ManagedFieldsOperationApply
	}
	if !managers[FieldManager] {
		t.Errorf("prune-a managed fields %v lack an Apply by %s", managers, FieldManager)
	}
	if got := f.nodePool("prune-b"); !reflect.DeepEqual(capacityTypes(got), []string{"on-demand"}) {
		t.Errorf("prune-b requirements %v", got.Spec.Template.Spec.Requirements)
	}

	c2 := f.commit(gitops.Change{Delete: []gitops.Ref{{Kind: "NodePool", Name: "prune-b"}}})
	st, err = s.SyncOnce(testContext(t))
	if err != nil {
		t.Fatalf("SyncOnce after delete: %v", err)
	}
	f.absent(&v1.NodePool{}, "prune-b")
	f.nodePool("prune-a")
	f.nodePool("prune-manual") // never applied by the Syncer: not pruned
	if !reflect.DeepEqual(st.Pruned, []string{"NodePool/prune-b"}) {
		t.Errorf("Pruned = %v", st.Pruned)
	}
	data := statusData(t, f.c, f.ns, "prune-sync")
	if data[KeyCommit] != c2 || data[KeyError] != "" || data[KeyObjects] != "NodeClass/prune-class\nNodePool/prune-a" || data[KeySyncedAt] == "" {
		t.Errorf("status ConfigMap = %v", data)
	}
	if got := events(t, f.c, f.ns, ReasonSynced); len(got) != 2 || !strings.Contains(got[0].Note+got[1].Note, "pruned NodePool/prune-b") {
		t.Errorf("%s events = %v, want two, one naming the pruned pool", ReasonSynced, got)
	}
	// A sync of the same commit changes nothing and records no new event.
	if _, err := s.SyncOnce(testContext(t)); err != nil {
		t.Fatal(err)
	}
	if got := events(t, f.c, f.ns, ReasonSynced); len(got) != 2 {
		t.Errorf("a sync without change recorded an event: %d events", len(got))
	}
}

// TestBadCommit: a commit with an invalid object and a foreign kind applies nothing, not even
// its valid changes; the status and a Warning event name file, object and field; the next good
// commit applies.
func TestBadCommit(t *testing.T) {
	f := newFixture(t, "sync-bad")
	good := f.commit(gitops.Change{Apply: objs(nodeClass("bad-class"), nodePool("bad-a", "bad-class", "spot"))})
	s := f.syncer(Options{Name: "bad-sync"})
	if _, err := s.SyncOnce(testContext(t)); err != nil {
		t.Fatal(err)
	}
	bad := f.srv.Commit("policy", "main", "bad edit", map[string]string{
		// A valid change that must not be applied either.
		"tenon/nodepool/bad-a.yaml":   "apiVersion: tenon.dev/v1\nkind: NodePool\nmetadata: {name: bad-a}\nspec:\n  template:\n    spec:\n      nodeClassRef: {name: bad-class}\n      requirements: [{key: tenon.dev/capacity-type, operator: In, values: [on-demand]}]\n",
		"tenon/nodepool/bad-new.yaml": "apiVersion: tenon.dev/v1\nkind: NodePool\nmetadata: {name: bad-new}\nspec:\n  template:\n    spec:\n      nodeClassRef: {name: bad-class}\n      requirements: [{key: tenon.dev/capacity-type, operator: Gt, values: [spot]}]\n",
		"tenon/kustomization.yaml":    "resources: [nodeclass/bad-class.yaml, nodepool/bad-a.yaml, nodepool/bad-new.yaml, cm.yaml]\n",
		"tenon/cm.yaml":               "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: sneaky}\n",
	})
	st, err := s.SyncOnce(testContext(t))
	var ce *gitops.CommitError
	if !errors.As(err, &ce) {
		t.Fatalf("SyncOnce error = %v, want a *gitops.CommitError", err)
	}
	for _, want := range []string{
		"tenon/nodepool/bad-new.yaml: NodePool bad-new: spec.template.spec.requirements[0].values",
		"tenon/cm.yaml: ConfigMap sneaky: apiVersion: only tenon.dev kinds",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if st.Commit != good || st.AttemptedCommit != bad || st.Failures != 1 {
		t.Errorf("status = %+v, want commit %s kept, attempted %s, one failure", st, good, bad)
	}
	if got := capacityTypes(f.nodePool("bad-a")); !reflect.DeepEqual(got, []string{"spot"}) {
		t.Errorf("bad-a requirements changed to %v by a rejected commit", got)
	}
	f.absent(&v1.NodePool{}, "bad-new")
	if err := f.c.Get(testContext(t), client.ObjectKey{Namespace: "default", Name: "sneaky"}, &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("ConfigMap default/sneaky: got err %v, want NotFound", err)
	}
	data := statusData(t, f.c, f.ns, "bad-sync")
	if data[KeyCommit] != good || !strings.Contains(data[KeyError], "bad-new.yaml") || data[KeyAttemptedCommit] != bad {
		t.Errorf("status ConfigMap = %v", data)
	}
	if got := events(t, f.c, f.ns, ReasonSyncFailed); len(got) != 1 || !strings.Contains(got[0].Note, "bad-new.yaml") || got[0].Type != corev1.EventTypeWarning {
		t.Errorf("%s events = %v", ReasonSyncFailed, got)
	}
	if d := s.nextDelay(err); d != s.opts.Interval {
		t.Errorf("a rejected commit retries after %s, want the interval %s (only a new commit can fix it)", d, s.opts.Interval)
	}

	fixed := f.srv.Commit("policy", "main", "fix", map[string]string{
		"tenon/nodepool/bad-new.yaml": "apiVersion: tenon.dev/v1\nkind: NodePool\nmetadata: {name: bad-new}\nspec:\n  template:\n    spec:\n      nodeClassRef: {name: bad-class}\n",
		"tenon/cm.yaml":               "",
		"tenon/kustomization.yaml":    "resources: [nodeclass/bad-class.yaml, nodepool/bad-a.yaml, nodepool/bad-new.yaml]\n",
	})
	st, err = s.SyncOnce(testContext(t))
	if err != nil || st.Commit != fixed || st.Failures != 0 {
		t.Fatalf("after the fix: status %+v, err %v", st, err)
	}
	if got := capacityTypes(f.nodePool("bad-a")); !reflect.DeepEqual(got, []string{"on-demand"}) {
		t.Errorf("bad-a requirements %v after the fix", got)
	}
	f.nodePool("bad-new")
}

// TestAuthFailureRetried: wrong credentials in the auth Secret fail with a clear error and are
// retried with backoff; fixing the Secret is picked up without a restart.
func TestAuthFailureRetried(t *testing.T) {
	f := newFixture(t, "sync-auth")
	commit := f.commit(gitops.Change{Apply: objs(nodeClass("auth-class"))})
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "git-auth"},
		Data:       map[string][]byte{SecretUsername: []byte(gitopstest.User), SecretPassword: []byte("wrong")},
	}
	if err := f.c.Create(testContext(t), secret); err != nil {
		t.Fatal(err)
	}
	s := f.syncer(Options{
		Name:       "auth-sync",
		Git:        gitops.Options{URL: f.srv.HTTPURL("policy"), Path: "tenon", AllowInsecureHTTP: true},
		AuthSecret: &types.NamespacedName{Namespace: f.ns, Name: "git-auth"},
		Interval:   time.Hour, RetryBase: 100 * time.Millisecond, MaxBackoff: 400 * time.Millisecond,
	})
	ctx, cancel := context.WithCancel(testContext(t))
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	waitFor(t, "three failed attempts", func() bool { return s.Status().Failures >= 3 })
	st := s.Status()
	if !strings.Contains(st.Error, "authenticating to "+f.srv.HTTPURL("policy")) || !strings.Contains(st.Error, "check auth") || strings.Contains(st.Error, "wrong") {
		t.Errorf("status error %q should name the URL, say what to check and hide the password", st.Error)
	}
	if got := events(t, f.c, f.ns, ReasonSyncFailed); len(got) != 1 {
		t.Errorf("%d %s events for one repeated error, want 1", len(got), ReasonSyncFailed)
	}
	secret.Data[SecretPassword] = []byte(gitopstest.Password)
	if err := f.c.Update(testContext(t), secret); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a sync with the fixed Secret", func() bool { return s.Status().Commit == commit })
	if st := s.Status(); st.Error != "" || st.Failures != 0 {
		t.Errorf("status after recovery = %+v", st)
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBackoff: after failures the syncs come sooner than the interval,
// RetryBase doubling per consecutive failure up to MaxBackoff; a rejected
// commit waits for the interval (only a new commit fixes it) but counts;
// a success forgets the failures.
func TestBackoff(t *testing.T) {
	s, err := New(nil, Options{Namespace: "ns", Git: gitops.Options{URL: "https://example.com/policy.git"},
		Interval: 30 * time.Second, RetryBase: 5 * time.Second, MaxBackoff: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	auth := &gitops.AuthError{URL: "u", Err: errors.New("denied")}
	rejected := &gitops.CommitError{Commit: "abc", Errs: []error{errors.New("invalid")}}
	steps := []struct {
		err  error
		want time.Duration
	}{
		{nil, 30 * time.Second},
		{auth, 5 * time.Second}, {auth, 10 * time.Second}, {auth, 20 * time.Second}, {auth, 40 * time.Second},
		{auth, time.Minute}, {auth, time.Minute},
		{nil, 30 * time.Second},
		{rejected, 30 * time.Second}, {auth, 10 * time.Second},
		{nil, 30 * time.Second}, {auth, 5 * time.Second},
	}
	for i, step := range steps {
		if got := s.nextDelay(step.err); got != step.want {
			t.Errorf("step %d (%v): %s, want %s", i, step.err, got, step.want)
		}
	}
}

// TestForcePushedOlderCommit: a branch moved back to an older commit is applied as the truth
// (objects of newer commits pruned, specs rolled back) and reported as rewound.
func TestForcePushedOlderCommit(t *testing.T) {
	f := newFixture(t, "sync-force")
	old := f.commit(gitops.Change{Apply: objs(nodeClass("force-class"), nodePool("force-a", "force-class", "spot"))})
	s := f.syncer(Options{Name: "force-sync"})
	if _, err := s.SyncOnce(testContext(t)); err != nil {
		t.Fatal(err)
	}
	f.commit(gitops.Change{Apply: objs(nodePool("force-a", "force-class", "on-demand"), nodePool("force-newer", "force-class", "spot"))})
	if _, err := s.SyncOnce(testContext(t)); err != nil {
		t.Fatal(err)
	}
	f.nodePool("force-newer")
	f.srv.ForceBranch("policy", "main", old)
	st, err := s.SyncOnce(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if st.Commit != old {
		t.Errorf("synced %s, want the force-pushed %s", st.Commit, old)
	}
	if got := capacityTypes(f.nodePool("force-a")); !reflect.DeepEqual(got, []string{"spot"}) {
		t.Errorf("force-a requirements %v, want the old commit's [spot]", got)
	}
	f.absent(&v1.NodePool{}, "force-newer")
	got := events(t, f.c, f.ns, ReasonRewound)
	if len(got) != 1 || got[0].Type != corev1.EventTypeWarning || !strings.Contains(got[0].Note, "moved back") {
		t.Errorf("%s events = %v", ReasonRewound, got)
	}
}

// TestAPIServerRejectsCommit: a commit the Go validation accepts but the API server refuses
// (here switching a NodeClass from kwok to aws, which a CEL transition rule forbids) is caught
// by the dry run: nothing of it is applied, not even its valid NodePool change.
func TestAPIServerRejectsCommit(t *testing.T) {
	f := newFixture(t, "sync-dryrun")
	good := f.commit(gitops.Change{Apply: objs(nodeClass("dry-class"), nodePool("dry-a", "dry-class", "spot"))})
	s := f.syncer(Options{Name: "dry-sync"})
	if _, err := s.SyncOnce(testContext(t)); err != nil {
		t.Fatal(err)
	}
	bad := f.srv.Commit("policy", "main", "switch cloud", map[string]string{
		"tenon/nodepool/dry-a.yaml":      "apiVersion: tenon.dev/v1\nkind: NodePool\nmetadata: {name: dry-a}\nspec:\n  template:\n    spec:\n      nodeClassRef: {name: dry-class}\n      requirements: [{key: tenon.dev/capacity-type, operator: In, values: [on-demand]}]\n",
		"tenon/nodeclass/dry-class.yaml": "apiVersion: tenon.dev/v1\nkind: NodeClass\nmetadata: {name: dry-class}\nspec:\n  aws:\n    role: NodeRole\n    subnetSelectorTerms: [{tags: {team: a}}]\n    securityGroupSelectorTerms: [{tags: {team: a}}]\n",
	})
	st, err := s.SyncOnce(testContext(t))
	var ce *gitops.CommitError
	if !errors.As(err, &ce) || ce.Commit != bad || !strings.Contains(err.Error(), "tenon/nodeclass/dry-class.yaml: NodeClass dry-class:") {
		t.Fatalf("SyncOnce error = %v, want a *gitops.CommitError for commit %s naming the NodeClass", err, bad)
	}
	if st.Commit != good {
		t.Errorf("status commit %s, want the last good %s", st.Commit, good)
	}
	if got := capacityTypes(f.nodePool("dry-a")); !reflect.DeepEqual(got, []string{"spot"}) {
		t.Errorf("dry-a requirements %v: the rejected commit's valid change was applied", got)
	}
	var nc v1.NodeClass
	if err := f.c.Get(testContext(t), client.ObjectKey{Name: "dry-class"}, &nc); err != nil || nc.Spec.KWOK == nil || nc.Spec.AWS != nil {
		t.Errorf("dry-class = %+v, %v; want the kwok class unchanged", nc.Spec, err)
	}
}
