package manifest

import (
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	docs, err := Split(File{Name: "f", Data: []byte("kind: A\nmetadata: {name: a}\n---\nkind: B\n---\nmetadata: {name: c}\n---\napiVersion: v1\nkind: List\nitems: [{kind: D, metadata: {name: d, namespace: ns}}]\n")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.Describe()+" | "+d.Locate())
	}
	want := []string{
		"A a | A a (document 1)",
		"B (document 2) | B (document 2)",
		"document 3 | document 3",
		"D ns/d | D ns/d (document 4, item 1)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Describe | Locate:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
