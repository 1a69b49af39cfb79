package gitops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"k8s.io/apimachinery/pkg/runtime"
)

// Change is what one Writer.Apply commits: objects to write (typed tenon.dev objects or
// *unstructured.Unstructured) and objects to delete. It is declarative, so it can be re-applied
// on a newer head when another writer pushed first.
type Change struct {
	Apply  []runtime.Object
	Delete []Ref
}

// Result says what an Apply did.
type Result struct {
	// Commit is the branch head after the Apply: the new commit, or the head it found when the
	// change was already in Git.
	Commit string
	// Committed is false when Git already held the change, so nothing was pushed.
	Committed bool
	// Attempts counts the pushes tried (more than one when another writer pushed first).
	Attempts int
	// Message is the commit message.
	Message string
}

// Writer commits Changes to the branch.
type Writer struct {
	repo *Repository
}

// NewWriter returns a Writer over repo.
func NewWriter(repo *Repository) *Writer { return &Writer{repo: repo} }

// Apply commits the change on the branch head and pushes it. If another writer moved the branch
// meanwhile it fetches, re-applies the change on the new head and pushes again, up to
// Options.MaxAttempts pushes; it never force-pushes. Objects are checked as the Reader checks
// them before anything is written. An empty repository or a missing branch gets a first commit.
func (w *Writer) Apply(ctx context.Context, change Change) (Result, error) {
	files, refs, err := w.render(change)
	if err != nil {
		return Result{}, err
	}
	r := w.repo
	r.mu.Lock()
	defer r.mu.Unlock()
	head, err := r.fetch(ctx)
	if err != nil {
		return Result{}, err
	}
	var res Result
	for {
		commit, msg, err := w.commitOn(head, files, refs)
		if err != nil {
			return res, err
		}
		if commit.IsZero() {
			res.Commit = head.String()
			return res, nil
		}
		res.Attempts++
		res.Message = msg
		pushErr := r.push(ctx, head, commit)
		if pushErr == nil {
			res.Commit, res.Committed = commit.String(), true
			return res, nil
		}
		if IsAuthError(pushErr) {
			return res, pushErr
		}
		// Did another writer move the branch? Then re-apply on its head.
		newHead, err := r.fetch(ctx)
		if err != nil {
			return res, fmt.Errorf("%w; then fetching to retry: %w", pushErr, err)
		}
		if newHead == head {
			return res, pushErr
		}
		if res.Attempts >= r.opts.MaxAttempts {
			return res, fmt.Errorf("pushing to %s (branch %s): other writers moved the branch %d times in a row; giving up without force-pushing: %w", r.opts.URL, r.opts.Branch, res.Attempts, pushErr)
		}
		head = newHead
	}
}

// render encodes the change's files, keyed by path relative to Options.Path (nil content
// deletes), and names the objects for the commit message.
func (w *Writer) render(change Change) (map[string][]byte, map[string]string, error) {
	files := map[string][]byte{}
	refs := map[string]string{} // file -> "NodePool general" for the message
	var errs []error
	for _, obj := range change.Apply {
		ref, data, err := encodeObject(obj)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f := ObjectFile(ref)
		if _, dup := files[f]; dup {
			errs = append(errs, fmt.Errorf("%s is in the change twice", ref))
			continue
		}
		files[f], refs[f] = data, ref.String()
	}
	for _, ref := range change.Delete {
		f := ObjectFile(ref)
		if _, dup := files[f]; dup {
			errs = append(errs, fmt.Errorf("%s is both written and deleted by the change", ref))
			continue
		}
		files[f], refs[f] = nil, ref.String()
	}
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("not writing to git: %w", errors.Join(errs...))
	}
	return files, refs, nil
}

// commitOn stores a commit applying files on head (zero: an orphan first commit) and returns
// it, or the zero hash when head already holds the files. The caller holds r.mu.
func (w *Writer) commitOn(head plumbing.Hash, files map[string][]byte, refs map[string]string) (plumbing.Hash, string, error) {
	r := w.repo
	var base *object.Tree
	var parents []plumbing.Hash
	if !head.IsZero() {
		c, err := r.repo.CommitObject(head)
		if err != nil {
			return plumbing.ZeroHash, "", fmt.Errorf("reading head commit %s: %w", head, err)
		}
		if base, err = c.Tree(); err != nil {
			return plumbing.ZeroHash, "", fmt.Errorf("reading the tree of %s: %w", head, err)
		}
		parents = []plumbing.Hash{head}
	}
	edits, applied, deleted, err := w.edits(base, files, refs)
	if err != nil {
		return plumbing.ZeroHash, "", err
	}
	if len(applied)+len(deleted) == 0 {
		return plumbing.ZeroHash, "", nil
	}
	tree, _, err := editTree(r.st, base, edits)
	if err != nil {
		return plumbing.ZeroHash, "", fmt.Errorf("building the commit: %w", err)
	}
	msg := commitMessage(applied, deleted)
	sig := object.Signature{Name: r.opts.AuthorName, Email: r.opts.AuthorEmail, When: r.opts.Now()}
	commit := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree, ParentHashes: parents}
	obj := r.st.NewEncodedObject()
	if err := commit.Encode(obj); err != nil {
		return plumbing.ZeroHash, "", fmt.Errorf("encoding the commit: %w", err)
	}
	h, err := r.st.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, "", fmt.Errorf("storing the commit: %w", err)
	}
	return h, msg, nil
}

// edits compares files with base and returns the tree edits (paths from the repository root)
// with kustomization.yaml updated, and the objects whose files actually change.
func (w *Writer) edits(base *object.Tree, files map[string][]byte, refs map[string]string) (map[string][]byte, []string, []string, error) {
	root := w.repo.opts.Path
	current := func(rel string) ([]byte, bool, error) {
		if base == nil {
			return nil, false, nil
		}
		f, err := base.File(path.Join(root, rel))
		if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) || errors.Is(err, plumbing.ErrObjectNotFound) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("reading %s: %w", path.Join(root, rel), err)
		}
		data, err := fileContents(f)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", path.Join(root, rel), err)
		}
		return data, true, nil
	}
	edits := map[string][]byte{}
	var applied, deleted, written, removed []string
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		old, exists, err := current(f)
		if err != nil {
			return nil, nil, nil, err
		}
		switch content := files[f]; {
		case content == nil && exists:
			edits[path.Join(root, f)] = nil
			deleted, removed = append(deleted, refs[f]), append(removed, f)
		case content == nil:
			removed = append(removed, f)
		case !exists || !bytes.Equal(old, content):
			edits[path.Join(root, f)] = content
			applied, written = append(applied, refs[f]), append(written, f)
		default:
			written = append(written, f)
		}
	}
	kfile, kdata, kexists, err := w.findKustomization(current)
	if err != nil {
		return nil, nil, nil, err
	}
	k := newKustomization()
	if kexists {
		if k, err = parseKustomization(path.Join(root, kfile), kdata); err != nil {
			return nil, nil, nil, err
		}
	}
	k.update(written, removed)
	encoded, err := k.encode()
	if err != nil {
		return nil, nil, nil, err
	}
	if !bytes.Equal(encoded, kdata) {
		edits[path.Join(root, kfile)] = encoded
		if len(applied)+len(deleted) == 0 {
			// Only the kustomization was out of step: still worth a commit.
			applied = append(applied, "kustomization")
		}
	}
	return edits, applied, deleted, nil
}

// findKustomization returns the name of the folder's kustomization file (kustomization.yaml
// unless another accepted name exists) and its content.
func (w *Writer) findKustomization(current func(string) ([]byte, bool, error)) (string, []byte, bool, error) {
	for _, name := range kustomizationNames {
		data, ok, err := current(name)
		if err != nil {
			return "", nil, false, err
		}
		if ok {
			return name, data, true, nil
		}
	}
	return kustomizationNames[0], nil, false, nil
}

// commitMessage names the objects written and deleted.
func commitMessage(applied, deleted []string) string {
	var parts []string
	if len(applied) > 0 {
		parts = append(parts, "apply "+strings.Join(applied, ", "))
	}
	if len(deleted) > 0 {
		parts = append(parts, "delete "+strings.Join(deleted, ", "))
	}
	return "tenon: " + strings.Join(parts, "; ") + "\n"
}

// push sends commit as the branch, requiring the remote branch to still be at head (or absent
// when head is zero), never forcing. The caller holds r.mu.
func (r *Repository) push(ctx context.Context, head, commit plumbing.Hash) error {
	ctx, cancel := withDefaultTimeout(ctx)
	defer cancel()
	if r.beforePush != nil {
		r.beforePush()
	}
	if err := r.st.SetReference(plumbing.NewHashReference(r.branchRef(), commit)); err != nil {
		return fmt.Errorf("setting local branch: %w", err)
	}
	opts := &git.PushOptions{
		RemoteName: remoteName,
		RefSpecs:   []config.RefSpec{config.RefSpec(r.branchRef() + ":" + r.branchRef())},
		Auth:       r.auth,
	}
	if !head.IsZero() {
		opts.RequireRemoteRefs = []config.RefSpec{config.RefSpec(head.String() + ":" + r.branchRef().String())}
	}
	err := r.repo.PushContext(ctx, opts)
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return r.wrapRemoteErr("pushing to", err)
	}
	if err := r.st.SetReference(plumbing.NewHashReference(r.remoteRef(), commit)); err != nil {
		return fmt.Errorf("recording the pushed commit: %w", err)
	}
	return nil
}
