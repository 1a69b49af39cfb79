package gitops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"sigs.k8s.io/yaml"

	"github.com/tenonhq/terraform-provider-tenon/engine/manifest"
)

// Errors a Read returns for a repository without the policy, wrapped with detail.
var (
	// ErrBranchNotFound: the remote has no such branch, or no commits at all.
	ErrBranchNotFound = errors.New("branch not found")
	// ErrPathNotFound: the commit has no folder at Options.Path.
	ErrPathNotFound = errors.New("path not found")
)

// kustomizationNames are the file names kustomize recognises, in its order of preference.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// Snapshot is the policy at one commit.
type Snapshot struct {
	// Commit is the commit's hash.
	Commit string
	// CommitTime is when it was committed.
	CommitTime time.Time
	// Objects are the objects under the path, in the order kustomization.yaml lists them (or
	// by file name without one).
	Objects []Object
}

// Get returns the object of that kind and name.
func (s *Snapshot) Get(ref Ref) (Object, bool) {
	for _, o := range s.Objects {
		if o.Ref() == ref {
			return o, true
		}
	}
	return Object{}, false
}

// Reader reads the policy from the branch head.
type Reader struct {
	repo *Repository
}

// NewReader returns a Reader over repo.
func NewReader(repo *Repository) *Reader { return &Reader{repo: repo} }

// Read fetches the branch and reads and validates every object under the path. A commit with
// any invalid document, any kind other than tenon.dev's, or the same object twice returns a
// *CommitError listing every problem; none of its objects is returned.
func (r *Reader) Read(ctx context.Context) (*Snapshot, error) {
	r.repo.mu.Lock()
	defer r.repo.mu.Unlock()
	head, err := r.repo.fetch(ctx)
	if err != nil {
		return nil, err
	}
	if head.IsZero() {
		return nil, fmt.Errorf("%w: %s has no branch %s; push a first commit or check branch", ErrBranchNotFound, r.repo.opts.URL, r.repo.opts.Branch)
	}
	return r.repo.readCommit(head)
}

// readCommit reads the path at commit hash. The caller holds r.mu.
func (r *Repository) readCommit(hash plumbing.Hash) (*Snapshot, error) {
	commit, err := r.repo.CommitObject(hash)
	if err != nil {
		return nil, fmt.Errorf("reading commit %s: %w", hash, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("reading the tree of commit %s: %w", hash, err)
	}
	snap := &Snapshot{Commit: hash.String(), CommitTime: commit.Committer.When}
	if r.opts.Path != "" {
		if _, err := tree.Tree(r.opts.Path); err != nil {
			return nil, fmt.Errorf("%w: commit %s has no folder %q on branch %s; check path", ErrPathNotFound, short(hash.String()), r.opts.Path, r.opts.Branch)
		}
	}
	w := &walker{tree: tree, seen: map[string]bool{}}
	w.dir(r.opts.Path, nil)
	var origins manifest.Origins
	for _, f := range w.files {
		objs, errs := decodeFile(f, w.contents[f])
		w.errs = append(w.errs, errs...)
		for _, o := range objs {
			if err := origins.Add(o.doc); err != nil {
				w.errs = append(w.errs, err)
				continue
			}
			snap.Objects = append(snap.Objects, o.obj)
		}
	}
	if len(w.errs) > 0 {
		return nil, &CommitError{Commit: hash.String(), Errs: w.errs}
	}
	return snap, nil
}

// walker collects the files a folder's kustomization.yaml lists, or every manifest under it.
type walker struct {
	tree     *object.Tree
	seen     map[string]bool
	files    []string
	contents map[string][]byte
	errs     []error
}

// dir reads a folder: through its kustomization if it has one, else every manifest under it.
// stack holds the kustomization files leading here, to report cycles.
func (w *walker) dir(dir string, stack []string) {
	kfile, k, err := w.kustomization(dir)
	if err != nil {
		w.errs = append(w.errs, err)
		return
	}
	if kfile == "" {
		w.allManifests(dir)
		return
	}
	if contains(stack, kfile) {
		w.errs = append(w.errs, &manifest.Error{File: kfile, Field: "resources", Detail: "cycle: " + strings.Join(append(stack, kfile), " -> ")})
		return
	}
	stack = append(stack, kfile)
	for i, res := range k.Resources {
		field := fmt.Sprintf("resources[%d]", i)
		if strings.Contains(res, "://") || strings.HasPrefix(res, "github.com/") || path.IsAbs(res) {
			w.errs = append(w.errs, &manifest.Error{File: kfile, Field: field, Detail: fmt.Sprintf("%q: Tenon reads files of this repository only; list a relative file or folder", res)})
			continue
		}
		p := path.Join(dir, res)
		if p == ".." || strings.HasPrefix(p, "../") {
			w.errs = append(w.errs, &manifest.Error{File: kfile, Field: field, Detail: fmt.Sprintf("%q leaves the repository", res)})
			continue
		}
		if p == "." {
			p = ""
		}
		if f, err := w.tree.File(p); err == nil {
			w.add(f)
			continue
		}
		if _, err := w.subtree(p); err == nil {
			sub, _, _ := w.kustomization(p)
			if sub == "" {
				w.errs = append(w.errs, &manifest.Error{File: kfile, Field: field, Detail: fmt.Sprintf("folder %q has no kustomization.yaml; kustomize needs one there, or list its files", res)})
				continue
			}
			w.dir(p, stack)
			continue
		}
		w.errs = append(w.errs, &manifest.Error{File: kfile, Field: field, Detail: fmt.Sprintf("%q does not exist in the commit; add it or remove it from resources", res)})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (w *walker) subtree(dir string) (*object.Tree, error) {
	if dir == "" {
		return w.tree, nil
	}
	return w.tree.Tree(dir)
}

// kustomizationFile is the part of kustomization.yaml Tenon understands. Fields that would
// change the objects (patches, namePrefix, generators, ...) are refused, not ignored, so what
// Tenon applies never differs from what kustomize would build.
type kustomizationFile struct {
	APIVersion string         `json:"apiVersion,omitempty"`
	Kind       string         `json:"kind,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	Resources  []string       `json:"resources,omitempty"`
}

// kustomization returns the folder's kustomization file and content, or "" without one.
func (w *walker) kustomization(dir string) (string, *kustomizationFile, error) {
	for _, name := range kustomizationNames {
		p := path.Join(dir, name)
		f, err := w.tree.File(p)
		if err != nil {
			continue
		}
		data, err := fileContents(f)
		if err != nil {
			return "", nil, &manifest.Error{File: p, Detail: err.Error()}
		}
		var k kustomizationFile
		if err := yaml.UnmarshalStrict(data, &k); err != nil {
			return "", nil, &manifest.Error{File: p, Detail: fmt.Sprintf("%v; Tenon reads apiVersion, kind, metadata and resources of a kustomization, and refuses transformers it does not apply (patches, namePrefix, labels, generators, ...)", err)}
		}
		return p, &k, nil
	}
	return "", nil, nil
}

// allManifests adds every .yaml, .yml and .json file under dir, by path, skipping hidden files
// and folders.
func (w *walker) allManifests(dir string) {
	t, err := w.subtree(dir)
	if err != nil {
		w.errs = append(w.errs, &manifest.Error{File: dir, Detail: err.Error()})
		return
	}
	var files []*object.File
	err = t.Files().ForEach(func(f *object.File) error {
		if f.Mode == filemode.Submodule || hidden(f.Name) {
			return nil
		}
		switch path.Ext(f.Name) {
		case ".yaml", ".yml", ".json":
			f.Name = path.Join(dir, f.Name)
			files = append(files, f)
		}
		return nil
	})
	if err != nil {
		w.errs = append(w.errs, &manifest.Error{File: dir, Detail: fmt.Sprintf("listing files: %v", err)})
		return
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	for _, f := range files {
		w.add(f)
	}
}

func hidden(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if strings.HasPrefix(part, ".") {
			return true
		}
	}
	return false
}

// add reads a file once.
func (w *walker) add(f *object.File) {
	if w.seen[f.Name] {
		return
	}
	w.seen[f.Name] = true
	data, err := fileContents(f)
	if err != nil {
		w.errs = append(w.errs, &manifest.Error{File: f.Name, Detail: err.Error()})
		return
	}
	if w.contents == nil {
		w.contents = map[string][]byte{}
	}
	w.files = append(w.files, f.Name)
	w.contents[f.Name] = data
}

// maxFileSize bounds one manifest; policy files are a few kilobytes.
const maxFileSize = 4 << 20

func fileContents(f *object.File) ([]byte, error) {
	if f.Size > maxFileSize {
		return nil, fmt.Errorf("%d bytes is more than the %d a manifest may have", f.Size, maxFileSize)
	}
	r, err := f.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading: %w", err)
	}
	defer r.Close() //nolint:errcheck // a read-only blob reader
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading: %w", err)
	}
	return data, nil
}
