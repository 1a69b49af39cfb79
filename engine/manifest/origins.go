package manifest

import "fmt"

// Origins records the document each object came from, across the files read
// together, so that a second definition of an object is refused and later
// messages about an object can name its file. The zero value is ready.
type Origins struct {
	byObject map[string]*Document
}

// Add records d as its object's definition. An object defined before is an
// *Error naming where.
func (o *Origins) Add(d *Document) error {
	key := ObjectName(d.Head.Kind, d.Head.Metadata.Namespace, d.Head.Metadata.Name)
	if first, dup := o.byObject[key]; dup {
		return d.Errorf("metadata.name", "Duplicate value: %q: also defined in %s (%s); keep one", d.Head.Metadata.Name, first.File, first.Position())
	}
	if o.byObject == nil {
		o.byObject = map[string]*Document{}
	}
	o.byObject[key] = d
	return nil
}

// Errorf returns an *Error about a recorded object, found by kind, namespace
// and name, at the field path; files names the input when the object was
// not recorded (such as a pod expanded from a Deployment).
func (o *Origins) Errorf(files, kind, namespace, name, path, format string, args ...any) *Error {
	file := files
	if d, ok := o.byObject[ObjectName(kind, namespace, name)]; ok {
		file = d.File
	}
	return &Error{File: file, Object: ObjectName(kind, namespace, name), Field: path, Detail: fmt.Sprintf(format, args...)}
}
