package manifest

import "testing"

func TestOrigins(t *testing.T) {
	split := func(name, data string) []*Document {
		docs, err := Split(File{Name: name, Data: []byte(data)})
		if err != nil {
			t.Fatal(err)
		}
		return docs
	}
	var o Origins
	first := split("a.yaml", "kind: Pod\nmetadata: {name: p, namespace: default}\n---\nkind: Node\nmetadata: {name: p}\n")
	for _, d := range first {
		if err := o.Add(d); err != nil {
			t.Fatalf("Add(%s) = %v", d.Describe(), err)
		}
	}
	again := split("b.yaml", "kind: Node\nmetadata: {name: q}\n---\nkind: Pod\nmetadata: {name: p, namespace: default}\n")
	if err := o.Add(again[0]); err != nil {
		t.Fatalf("Add(Node q) = %v", err)
	}
	want := `b.yaml: Pod default/p: metadata.name: Duplicate value: "p": also defined in a.yaml (document 1); keep one`
	if err := o.Add(again[1]); err == nil || err.Error() != want {
		t.Errorf("Add(second Pod p) = %v, want %s", err, want)
	}
	if got := o.Errorf("a.yaml, b.yaml", "Node", "", "q", "spec", "%s", "bad").Error(); got != "b.yaml: Node q: spec: bad" {
		t.Errorf("Errorf of a recorded object = %s", got)
	}
	if got := o.Errorf("a.yaml, b.yaml", "Pod", "default", "web-0", "", "bad").Error(); got != "a.yaml, b.yaml: Pod default/web-0: bad" {
		t.Errorf("Errorf of an object not recorded = %s", got)
	}
}
