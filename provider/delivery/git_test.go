package delivery_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/gitops/gitopstest"
	"github.com/tenonhq/terraform-provider-tenon/provider/delivery"
)

func gitNodePool(name string, capacityTypes ...string) *v1.NodePool {
	np := &v1.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1.NodePoolSpec{Template: v1.NodeClaimTemplate{Spec: v1.NodeClaimTemplateSpec{
			NodeClassRef: &v1.NodeClassReference{Name: "default"},
			Requirements: []v1.NodeSelectorRequirementWithMinValues{{Key: "tenon.dev/capacity-type", Operator: corev1.NodeSelectorOpIn, Values: capacityTypes}},
		}}},
	}
	np.APIVersion, np.Kind = v1.SchemeGroupVersion.String(), v1.NodePoolKind
	return np
}

func emptyNodePool(name string) *v1.NodePool {
	np := &v1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	np.APIVersion, np.Kind = v1.SchemeGroupVersion.String(), v1.NodePoolKind
	return np
}

// TestGitTarget: Apply commits the object with its defaults and no status, Get reads it back
// (and a hand edit), missing branch or object is ErrNotFound, Delete removes the file.
func TestGitTarget(t *testing.T) {
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	target, err := delivery.NewGit(delivery.GitConfig{URL: srv.GitURL("policy"), Path: "clusters/dev", AuthorName: "TF", AuthorEmail: "tf@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "git repository " + srv.GitURL("policy") + " (branch main, path clusters/dev)"; target.Describe() != want {
		t.Errorf("Describe = %q, want %q", target.Describe(), want)
	}
	if err := target.Get(ctx, emptyNodePool("general")); !delivery.IsNotFound(err) {
		t.Fatalf("Get on an empty repository = %v, want ErrNotFound", err)
	}

	np := gitNodePool("general", "spot")
	np.Status.Nodes = 3
	var logs bytes.Buffer
	if err := target.Apply(tflogtest.RootLogger(ctx, &logs), np); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	head := strings.TrimSpace(srv.Git("policy", "rev-parse", "main"))
	if entries, err := tflogtest.MultilineJSONDecode(&logs); err != nil || len(entries) != 1 ||
		entries[0]["@message"] != "tenon: git commit pushed" || entries[0]["commit"] != head || entries[0]["name"] != "general" {
		t.Errorf("TF_LOG must name the commit that now holds the object (%s), got %v (%v)", head, entries, err)
	}
	if np.Spec.Disruption == nil || np.Spec.Disruption.ConsolidationPolicy != v1.ConsolidationPolicyWhenEmptyOrUnderutilized || np.Status.Nodes != 0 {
		t.Errorf("Apply left %+v / status %+v, want defaults filled and status empty", np.Spec.Disruption, np.Status)
	}
	file := srv.Git("policy", "show", "main:clusters/dev/nodepool/general.yaml")
	if !strings.Contains(file, "consolidationPolicy: WhenEmptyOrUnderutilized") || strings.Contains(file, "status") {
		t.Errorf("committed file lacks defaults or holds status:\n%s", file)
	}
	if log := srv.Git("policy", "log", "-1", "--format=%an|%s"); strings.TrimSpace(log) != "TF|tenon: apply NodePool general" {
		t.Errorf("commit = %q", log)
	}

	got := emptyNodePool("general")
	if err := target.Get(ctx, got); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.Kind != v1.NodePoolKind || got.Spec.Template.Spec.Requirements[0].Values[0] != "spot" || got.Spec.Template.Spec.ExpireAfter != v1.DefaultExpireAfter {
		t.Errorf("Get = %+v", got)
	}
	if err := target.Get(ctx, emptyNodePool("other")); !delivery.IsNotFound(err) {
		t.Errorf("Get of a missing object = %v, want ErrNotFound", err)
	}

	// A hand edit in Git is what Get returns: Terraform sees it as drift.
	srv.Commit("policy", "main", "hand edit", map[string]string{
		"clusters/dev/nodepool/general.yaml": "apiVersion: tenon.dev/v1\nkind: NodePool\nmetadata: {name: general}\nspec:\n  weight: 7\n  template:\n    spec:\n      nodeClassRef: {name: default}\n",
	})
	got = emptyNodePool("general")
	if err := target.Get(ctx, got); err != nil {
		t.Fatalf("Get after hand edit: %v", err)
	}
	if got.Spec.Weight == nil || *got.Spec.Weight != 7 || len(got.Spec.Template.Spec.Requirements) != 0 {
		t.Errorf("Get after hand edit = %+v", got.Spec)
	}

	if err := target.Delete(ctx, emptyNodePool("general")); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if err := target.Get(ctx, emptyNodePool("general")); !delivery.IsNotFound(err) {
		t.Errorf("Get after Delete = %v, want ErrNotFound", err)
	}
	if err := target.Delete(ctx, emptyNodePool("general")); err != nil {
		t.Errorf("Delete of a deleted object: %v", err)
	}
}

// liveTarget is a cluster holding one NodePool with a status, for GitWithStatus.
type liveTarget struct {
	pool *v1.NodePool // nil: nothing applied yet
	err  error
}

func (l *liveTarget) Apply(context.Context, delivery.Object) error {
	return errors.New("the git target must not write to the cluster")
}
func (l *liveTarget) Delete(context.Context, delivery.Object) error {
	return errors.New("the git target must not write to the cluster")
}
func (l *liveTarget) Describe() string { return "a test cluster" }
func (l *liveTarget) Get(_ context.Context, obj delivery.Object) error {
	if l.err != nil {
		return l.err
	}
	if l.pool == nil || l.pool.Name != obj.GetName() {
		return fmt.Errorf("%s: %w", obj.GetName(), delivery.ErrNotFound)
	}
	l.pool.DeepCopyInto(obj.(*v1.NodePool))
	return nil
}

// TestGitWithStatus: spec comes from Git, status from the cluster once the object is there.
func TestGitWithStatus(t *testing.T) {
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	git, err := delivery.NewGit(delivery.GitConfig{URL: srv.GitURL("policy")})
	if err != nil {
		t.Fatal(err)
	}
	live := &liveTarget{}
	target := &delivery.GitWithStatus{Git: git, Live: live}
	np := gitNodePool("general", "spot")
	if err := target.Apply(ctx, np); err != nil {
		t.Fatalf("Apply before the cluster has it: %v", err)
	}
	if np.Status.Nodes != 0 {
		t.Errorf("status %+v before the cluster has the object", np.Status)
	}
	// The cluster has an older spec and a status: the spec stays Git's, the status is the cluster's.
	live.pool = gitNodePool("general", "on-demand")
	live.pool.Status.Nodes = 3
	got := emptyNodePool("general")
	if err := target.Get(ctx, got); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.Status.Nodes != 3 || got.Spec.Template.Spec.Requirements[0].Values[0] != "spot" || got.Kind != v1.NodePoolKind {
		t.Errorf("Get = spec %v status %+v kind %q; want Git's spec and the cluster's status", got.Spec.Template.Spec.Requirements, got.Status, got.Kind)
	}
	live.err = errors.New("connection refused")
	if err := target.Get(ctx, emptyNodePool("general")); err == nil || !strings.Contains(err.Error(), "reading the status of NodePool \"general\"") {
		t.Errorf("Get with the cluster down = %v", err)
	}
	if !strings.Contains(target.Describe(), "with status from a test cluster") {
		t.Errorf("Describe = %q", target.Describe())
	}
}

// TestGitSyncWaves: a committed NodeClass is one Argo CD sync wave before the pools that
// reference it; a NodePool stays in the default wave.
func TestGitSyncWaves(t *testing.T) {
	srv := gitopstest.Start(t)
	srv.NewRepo("policy")
	target, err := delivery.NewGit(delivery.GitConfig{URL: srv.GitURL("policy"), AuthorName: "TF", AuthorEmail: "tf@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	nc := &v1.NodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Spec: v1.NodeClassSpec{KWOK: &v1.KWOKNodeClassSpec{}}}
	nc.APIVersion, nc.Kind = v1.SchemeGroupVersion.String(), v1.NodeClassKind
	if err := target.Apply(t.Context(), nc); err != nil {
		t.Fatal(err)
	}
	if err := target.Apply(t.Context(), gitNodePool("general", "spot")); err != nil {
		t.Fatal(err)
	}
	if file := srv.Git("policy", "show", "main:nodeclass/default.yaml"); !strings.Contains(file, `argocd.argoproj.io/sync-wave: "-1"`) {
		t.Errorf("the NodeClass must sync one wave before the pools:\n%s", file)
	}
	if file := srv.Git("policy", "show", "main:nodepool/general.yaml"); strings.Contains(file, "sync-wave") {
		t.Errorf("a NodePool stays in the default wave:\n%s", file)
	}
}
