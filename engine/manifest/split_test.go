package manifest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// described lists each document as "Position Kind name: raw".
func described(docs []*Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = fmt.Sprintf("%s %s: %s", d.Position(), d.Describe(), d.Raw)
	}
	return out
}

func TestSplit(t *testing.T) {
	cases := []struct {
		name    string
		in      string
		want    []string
		wantErr string
	}{
		{name: "one document", in: "kind: A\n", want: []string{`document 1 A (document 1): {"kind":"A"}`}},
		{
			name: "separators with comments, empty and comment-only documents skipped",
			in:   "# header\n---\nkind: A\n--- # second\n# only a comment\n---\nkind: B\nmetadata: {name: b}\n---\n",
			want: []string{`document 1 A (document 1): {"kind":"A"}`, `document 2 B b: {"kind":"B","metadata":{"name":"b"}}`},
		},
		{name: "--- inside a value is not a separator", in: "kind: |\n  ---x\n", want: []string{`document 1 ---x` + "\n" + ` (document 1): {"kind":"---x\n"}`}},
		{
			name:    "a bad document names its line in the file and counts only non-empty documents",
			in:      "---\n# nothing\n---\na: 1\n---\nb: 1\nb: 2\n",
			wantErr: `f: document 2: malformed YAML: unmarshal errors:` + "\n" + `  line 7: key "b" already set in map`,
		},
		{name: "a syntax error names its line", in: "kind: A\n---\nkind: [\n", wantErr: "f: document 2: malformed YAML: line 3: did not find expected node content"},
		{
			name: "a v1 List stands for its items, numbered in its document",
			in:   "kind: A\n---\napiVersion: v1\nkind: List\nitems:\n- {kind: B, metadata: {name: b, namespace: ns}}\n- {kind: C}\n",
			want: []string{`document 1 A (document 1): {"kind":"A"}`, `document 2, item 1 B ns/b: {"kind":"B","metadata":{"name":"b","namespace":"ns"}}`, `document 2, item 2 C (document 2, item 2): {"kind":"C"}`},
		},
		{name: "a List of another apiVersion is a kind like any other", in: "apiVersion: x/v1\nkind: List\n", want: []string{`document 1 List (document 1): {"apiVersion":"x/v1","kind":"List"}`}},
		{name: "a list item must be an object", in: "apiVersion: v1\nkind: List\nitems: [a]\n", wantErr: "f: document 1, item 1: a list item must be an object with apiVersion, kind and metadata"},
		{name: "a document must be an object", in: "just text\n", wantErr: "f: document 1: a document must be an object with apiVersion, kind and metadata"},
		{name: "a head field of the wrong type is named", in: "kind: A\nmetadata: {name: [x]}\n", wantErr: "f: A (document 1): metadata.name: Invalid value: expected a string, got array"},
		{
			name: "a JSON stream with comments, an array standing for its items",
			in:   "# generated\n{\"kind\": \"A\"}\n[{\"kind\": \"B\"}, {\"kind\": \"C\", \"metadata\": {\"name\": \"c\"}}]\n",
			want: []string{`document 1 A (document 1): {"kind": "A"}`, `document 2, item 1 B (document 2, item 1): {"kind": "B"}`, `document 2, item 2 C c: {"kind": "C", "metadata": {"name": "c"}}`},
		},
		{name: "malformed JSON names its line", in: "# c\n{\"kind\": \"A\"}\n{\"apiVersion\": \"v1\",\n \"kind\": \"B\" \"metadata\": {}}\n", wantErr: "f: document 2: malformed JSON: line 4: invalid character"},
		{name: "YAML flow style is YAML", in: "{kind: A}\n", want: []string{`document 1 A (document 1): {"kind":"A"}`}},
		{name: "nothing but comments", in: "# nothing\n", want: nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := Split(File{Name: "f", Data: []byte(tc.in)})
			if tc.wantErr != "" {
				var e *Error
				if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v (%T), want an *Error starting %q", err, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := described(docs); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("documents:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
