package manifest

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// File is one manifest file: its name, as messages give it, and contents.
type File struct {
	// Name is what messages call the file: its path, "<stdin>", or a data
	// source's manifests[0].
	Name string
	// Data is the file's content: multi-document YAML or JSON.
	Data []byte
}

// Document is one object of a manifest file, as JSON, with what names it in
// messages.
type Document struct {
	// File is the name of the file it came from.
	File string
	// Number counts the file's documents from 1, leaving out empty ones
	// (comments only).
	Number int
	// Item counts the items of a List or top-level array from 1; it is 0
	// for a document that is not an item.
	Item int
	// Raw is the object as JSON.
	Raw []byte
	// Head is what every object has, read before its kind is known.
	Head Head
}

// Head is the part of every object read before its kind is known.
type Head struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
}

// ObjectName names an object in messages: "Deployment default/web", or
// "NodePool general" for a cluster-scoped one.
func ObjectName(kind, namespace, name string) string {
	if namespace != "" {
		name = namespace + "/" + name
	}
	return kind + " " + name
}

// Position is the document's place in its file: "document 3", or
// "document 3, item 2" for an item of a List.
func (d *Document) Position() string {
	if d.Item > 0 {
		return fmt.Sprintf("document %d, item %d", d.Number, d.Item)
	}
	return fmt.Sprintf("document %d", d.Number)
}

// Describe names the document in messages: by kind, namespace and name
// ("Deployment default/web"), by kind and place when it has no name
// ("NodePool (document 2)"), by place alone when it has no kind.
func (d *Document) Describe() string {
	switch {
	case d.Head.Kind == "":
		return d.Position()
	case d.Head.Metadata.Name == "":
		return fmt.Sprintf("%s (%s)", d.Head.Kind, d.Position())
	}
	return ObjectName(d.Head.Kind, d.Head.Metadata.Namespace, d.Head.Metadata.Name)
}

// Locate is Describe with the document's place always given, for messages
// that compare two documents which may share a name: "NodePool a
// (document 2)".
func (d *Document) Locate() string {
	if d.Head.Kind == "" || d.Head.Metadata.Name == "" {
		return d.Describe()
	}
	return fmt.Sprintf("%s (%s)", d.Describe(), d.Position())
}

// Errorf returns an *Error about the document at the field path (empty for
// the whole object).
func (d *Document) Errorf(path, format string, args ...any) *Error {
	return &Error{File: d.File, Object: d.Describe(), Field: path, Detail: fmt.Sprintf(format, args...)}
}

// FieldErrors turns validation errors, such as an engine/api Validate
// result, into *Errors about the document.
func (d *Document) FieldErrors(errs field.ErrorList) []error {
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		out = append(out, &Error{File: d.File, Object: d.Describe(), Field: e.Field, Detail: e.ErrorBody()})
	}
	return out
}
