package main

import (
	"os"
	"path/filepath"
	"testing"
)

const before = `spec:
  versions:
  - name: v1
    labels:
      additionalProperties:
        type: string
      description: Labels.
  - name: v2
    labels:
      additionalProperties:
        maxLength: 63
        type: string
`

const after = `spec:
  versions:
  - name: v1
    labels:
      additionalProperties:
        maxLength: 63
        pattern: ^[a-z]+$
        type: string
      description: Labels.
  - name: v2
    labels:
      additionalProperties:
        maxLength: 63
        pattern: ^[a-z]+$
        type: string
`

func TestApplyInsertsMissingKeysInOrderAndIsIdempotent(t *testing.T) {
	file := filepath.Join(t.TempDir(), "crd.yaml")
	if err := os.WriteFile(file, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	p := patch{
		file: file,
		path: []string{"spec", "versions", "*", "labels", "additionalProperties"},
		add:  []keyValue{{"maxLength", "63"}, {"pattern", "^[a-z]+$"}},
	}
	for range 2 {
		if err := apply(p); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != after {
			t.Fatalf("got:\n%s\nwant:\n%s", got, after)
		}
	}
}

func TestApplyFailsWhenThePathIsGone(t *testing.T) {
	file := filepath.Join(t.TempDir(), "crd.yaml")
	if err := os.WriteFile(file, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := apply(patch{file: file, path: []string{"spec", "nope"}, add: []keyValue{{"maxLength", "1"}}}); err == nil {
		t.Fatal("apply succeeded on a path that does not exist; a controller-gen change would go unnoticed")
	}
}
