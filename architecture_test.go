package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// codeSpan is a `quoted` span of Markdown.
var codeSpan = regexp.MustCompile("`([^`]+)`")

// TestArchitecturePageIsTrue keeps docs/architecture.md true with the tree: every file or folder
// it names exists, and every package directly under engine/ (and provider/, hack/) is named, so
// a new package or a moved file fails here until the page says where it went.
func TestArchitecturePageIsTrue(t *testing.T) {
	data, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	for _, m := range codeSpan.FindAllStringSubmatch(page, -1) {
		for _, ref := range strings.Split(m[1], ", ") {
			if !looksLikePath(ref) {
				continue
			}
			if _, err := os.Stat(ref); err != nil {
				t.Errorf("docs/architecture.md names %s, which does not exist: update the page", ref)
			}
		}
	}
	for _, root := range []string{"engine", "hack"} {
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			dir := filepath.ToSlash(filepath.Join(root, e.Name()))
			if !e.IsDir() || e.Name() == "internal" || !hasGo(t, dir) && !hasGoBelow(t, dir) {
				continue
			}
			if !strings.Contains(page, "`"+dir) {
				t.Errorf("package %s is not on docs/architecture.md: add it to the table of packages", dir)
			}
		}
	}
}

// looksLikePath reports whether a code span names a file or folder of the repository.
func looksLikePath(s string) bool {
	if strings.ContainsAny(s, " *<>()") {
		return false
	}
	for _, prefix := range []string{"engine/", "provider/", "hack/", "test/", "docs/", "examples/"} {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return s == "main.go" || s == ".golangci.yml"
}

func hasGo(t *testing.T, dir string) bool {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	return len(matches) > 0
}

func hasGoBelow(t *testing.T, dir string) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
			found = true
			return filepath.SkipAll
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
