package gitops

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// editTree stores a tree that is base with files changed: each key is a path relative to the
// tree, its value the new content, or nil to delete the file. base may be nil (an empty tree).
// Folders left empty disappear, as in Git. It returns the new tree's hash and whether it is
// empty.
func editTree(s storer.EncodedObjectStorer, base *object.Tree, files map[string][]byte) (plumbing.Hash, bool, error) {
	entries := map[string]object.TreeEntry{}
	if base != nil {
		for _, e := range base.Entries {
			entries[e.Name] = e
		}
	}
	// Group the edits by their first path component.
	direct := map[string][]byte{}
	nested := map[string]map[string][]byte{}
	for p, content := range files {
		head, rest, isDir := strings.Cut(p, "/")
		if !isDir {
			direct[head] = content
			continue
		}
		if nested[head] == nil {
			nested[head] = map[string][]byte{}
		}
		nested[head][rest] = content
	}
	for name, content := range direct {
		if content == nil {
			if e, ok := entries[name]; ok && e.Mode != filemode.Dir {
				delete(entries, name)
			}
			continue
		}
		h, err := storeBlob(s, content)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		entries[name] = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h}
	}
	for name, sub := range nested {
		var subBase *object.Tree
		if e, ok := entries[name]; ok {
			if e.Mode != filemode.Dir {
				return plumbing.ZeroHash, false, fmt.Errorf("%s is a file in the repository, not a folder; move it away", name)
			}
			t, err := object.GetTree(s, e.Hash)
			if err != nil {
				return plumbing.ZeroHash, false, fmt.Errorf("reading folder %s: %w", name, err)
			}
			subBase = t
		}
		h, empty, err := editTree(s, subBase, sub)
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("%s/%w", name, err)
		}
		if empty {
			delete(entries, name)
			continue
		}
		entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
	}
	tree := &object.Tree{}
	for _, e := range entries {
		tree.Entries = append(tree.Entries, e)
	}
	// Git orders entries by name, comparing a folder as if its name ended in "/".
	sort.Slice(tree.Entries, func(i, j int) bool {
		return sortName(tree.Entries[i]) < sortName(tree.Entries[j])
	})
	obj := s.NewEncodedObject()
	if err := tree.Encode(obj); err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("encoding tree: %w", err)
	}
	h, err := s.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("storing tree: %w", err)
	}
	return h, len(tree.Entries) == 0, nil
}

func sortName(e object.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

func storeBlob(s storer.EncodedObjectStorer, content []byte) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(content)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("storing file: %w", err)
	}
	if _, err := w.Write(content); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("storing file: %w", err)
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("storing file: %w", err)
	}
	return s.SetEncodedObject(obj)
}
