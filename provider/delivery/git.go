package delivery

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/gitops"
)

// GitConfig says where the git target commits: its fields mirror the provider's git {} block.
type GitConfig struct {
	URL, Branch, Path       string
	AuthorName, AuthorEmail string
	Auth                    gitops.Auth
	// CacheDir keeps the repository's shallow copy between runs; empty keeps it in memory.
	CacheDir string
	// AllowInsecureHTTP lets credentials go to an http:// URL (gitops.Options).
	AllowInsecureHTTP bool
}

// Git is the GitOps target: every Apply and Delete is a commit pushed to a branch (one YAML
// file per object, <kind>/<name>.yaml, and a kustomization.yaml kept in step, for ArgoCD or
// Flux to apply, or the agent's pull mode), and Get reads the file back from the branch head,
// so a hand edit in Git shows up as drift. A push that loses a race with another writer (a
// second workspace, a person) is re-applied on the new head; nothing is ever force-pushed.
type Git struct {
	cfg    GitConfig
	reader *gitops.Reader
	writer *gitops.Writer
}

var _ Target = (*Git)(nil)

// NewGit checks cfg and returns the target. It does not touch the network.
func NewGit(cfg GitConfig) (*Git, error) {
	repo, err := gitops.Open(gitops.Options{
		URL: cfg.URL, Branch: cfg.Branch, Path: cfg.Path, Auth: cfg.Auth, CacheDir: cfg.CacheDir,
		AuthorName: cfg.AuthorName, AuthorEmail: cfg.AuthorEmail, AllowInsecureHTTP: cfg.AllowInsecureHTTP,
	})
	if err != nil {
		return nil, err
	}
	eff := repo.Options()
	cfg.Branch, cfg.Path = eff.Branch, eff.Path
	return &Git{cfg: cfg, reader: gitops.NewReader(repo), writer: gitops.NewWriter(repo)}, nil
}

// defaulter is an API object that fills the defaults its CRD would.
type defaulter interface{ SetDefaults() }

// Apply commits obj, with its CRD defaults filled in (no API server will fill them before
// ArgoCD or Flux shows the object) and without status, and fills obj with what was committed.
func (g *Git) Apply(ctx context.Context, obj Object) error {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	stored, ok := obj.DeepCopyObject().(Object)
	if !ok {
		return fmt.Errorf("%s %q: %T is not an API object; this is always a bug in the provider, please report it", kind, obj.GetName(), obj)
	}
	if d, ok := stored.(defaulter); ok {
		d.SetDefaults()
	}
	u, err := committed(stored)
	if err != nil {
		return err
	}
	res, err := g.writer.Apply(ctx, gitops.Change{Apply: []runtime.Object{u}})
	if err != nil {
		return fmt.Errorf("committing %s %q to %s: %w", kind, obj.GetName(), g.Describe(), err)
	}
	logCommit(ctx, kind, obj.GetName(), res)
	return fill(u, obj)
}

// committed is the form of obj that goes into Git: no status, no server-set metadata.
func committed(obj Object) (*unstructured.Unstructured, error) {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %s %q: %w", obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), err)
	}
	u := &unstructured.Unstructured{Object: content}
	unstructured.RemoveNestedField(u.Object, "status")
	for _, f := range []string{"creationTimestamp", "resourceVersion", "managedFields", "uid", "generation"} {
		unstructured.RemoveNestedField(u.Object, "metadata", f)
	}
	if wave, ok := syncWaves[u.GetKind()]; ok {
		annotations := u.GetAnnotations()
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[ArgoCDSyncWave] = wave
		u.SetAnnotations(annotations)
	}
	return u, nil
}

// ArgoCDSyncWave is the annotation that orders an Argo CD sync: lower waves are applied, and
// must be healthy, before higher ones.
const ArgoCDSyncWave = "argocd.argoproj.io/sync-wave"

// syncWaves puts NodeClasses one wave before the pools that reference them (NodePools and
// Provisioners stay in the default wave 0), so Argo CD applies a NodeClass and waits for it to be
// Ready before it applies the pools that would otherwise report NodeClassReady=False meanwhile.
// Flux, which has no waves, ignores the annotation.
var syncWaves = map[string]string{v1.NodeClassKind: "-1"}

// fill replaces obj's content with u's.
func fill(u *unstructured.Unstructured, obj Object) error {
	reflect.ValueOf(obj).Elem().SetZero()
	return decode(u, obj)
}

// Get reads the object from the branch head, its CRD defaults filled in as an API server
// would, or returns ErrNotFound when the branch, the path or the object's file is not there.
// A commit with an invalid object anywhere under the path is an error naming file, object and
// field: Terraform should not plan against a policy the agent would refuse.
func (g *Git) Get(ctx context.Context, obj Object) error {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	snap, err := g.reader.Read(ctx)
	switch {
	case errors.Is(err, gitops.ErrBranchNotFound) || errors.Is(err, gitops.ErrPathNotFound):
		return fmt.Errorf("%s %q in %s: %w (%w)", kind, obj.GetName(), g.Describe(), ErrNotFound, err)
	case err != nil:
		return fmt.Errorf("reading %s %q from %s: %w", kind, obj.GetName(), g.Describe(), err)
	}
	o, ok := snap.Get(gitops.Ref{Kind: kind, Name: obj.GetName()})
	if !ok {
		return fmt.Errorf("%s %q in %s at commit %.12s: %w", kind, obj.GetName(), g.Describe(), snap.Commit, ErrNotFound)
	}
	if got := o.Object.GetAPIVersion(); got != obj.GetObjectKind().GroupVersionKind().GroupVersion().String() {
		return fmt.Errorf("%s %q in %s (%s) has apiVersion %s; the provider manages %s",
			kind, obj.GetName(), g.Describe(), o.File, got, obj.GetObjectKind().GroupVersionKind().GroupVersion())
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if err := fill(o.Object, obj); err != nil {
		return err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	if d, ok := obj.(defaulter); ok {
		d.SetDefaults()
	}
	return nil
}

// Delete commits the removal of the object's file; an object already gone commits nothing.
func (g *Git) Delete(ctx context.Context, obj Object) error {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	res, err := g.writer.Apply(ctx, gitops.Change{Delete: []gitops.Ref{{Kind: kind, Name: obj.GetName()}}})
	if err != nil {
		return fmt.Errorf("committing the deletion of %s %q to %s: %w", kind, obj.GetName(), g.Describe(), err)
	}
	logCommit(ctx, kind, obj.GetName(), res)
	return nil
}

// logCommit tells TF_LOG which commit now holds the object, or that Git already held it.
func logCommit(ctx context.Context, kind, name string, res gitops.Result) {
	fields := map[string]any{"kind": kind, "name": name, "commit": res.Commit, "pushes": res.Attempts}
	if !res.Committed {
		tflog.Debug(ctx, "tenon: git already held the change, nothing pushed", fields)
		return
	}
	fields["message"] = res.Message
	tflog.Info(ctx, "tenon: git commit pushed", fields)
}

// Describe names the repository, branch and path.
func (g *Git) Describe() string {
	p := g.cfg.Path
	if p == "" {
		p = "/"
	}
	return fmt.Sprintf("git repository %s (branch %s, path %s)", g.cfg.URL, g.cfg.Branch, p)
}

// GitWithStatus is the git target with a cluster beside it: objects go to Git as with Git, and
// Apply and Get add the status the cluster reports for the object, once ArgoCD, Flux or the
// agent's pull mode has applied it. Before that (the object is not in the cluster yet) status
// stays empty; a cluster that cannot be read is an error.
type GitWithStatus struct {
	*Git
	// Live is where status is read from: the kubernetes target.
	Live Target
}

var _ Target = (*GitWithStatus)(nil)

// Apply commits obj and fills in its live status.
func (g *GitWithStatus) Apply(ctx context.Context, obj Object) error {
	if err := g.Git.Apply(ctx, obj); err != nil {
		return err
	}
	return g.addStatus(ctx, obj)
}

// Get reads obj from Git and fills in its live status.
func (g *GitWithStatus) Get(ctx context.Context, obj Object) error {
	if err := g.Git.Get(ctx, obj); err != nil {
		return err
	}
	return g.addStatus(ctx, obj)
}

// Describe names the repository and the cluster.
func (g *GitWithStatus) Describe() string {
	return g.Git.Describe() + ", with status from " + g.Live.Describe()
}

// addStatus copies the status of the live object into obj; the spec stays Git's.
func (g *GitWithStatus) addStatus(ctx context.Context, obj Object) error {
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	live, ok := obj.DeepCopyObject().(Object)
	if !ok {
		return fmt.Errorf("%s %q: %T is not an API object; this is always a bug in the provider, please report it", kind, obj.GetName(), obj)
	}
	switch err := g.Live.Get(ctx, live); {
	case IsNotFound(err):
		return nil // not applied to the cluster yet
	case err != nil:
		return fmt.Errorf("reading the status of %s %q: %w", kind, obj.GetName(), err)
	}
	liveContent, err := runtime.DefaultUnstructuredConverter.ToUnstructured(live)
	if err != nil {
		return fmt.Errorf("encoding the live %s %q: %w", kind, obj.GetName(), err)
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return fmt.Errorf("encoding %s %q: %w", kind, obj.GetName(), err)
	}
	delete(content, "status")
	if st, ok := liveContent["status"]; ok {
		content["status"] = st
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if err := fill(&unstructured.Unstructured{Object: content}, obj); err != nil {
		return err
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return nil
}
