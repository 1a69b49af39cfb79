package manifest

import (
	"bytes"
	"encoding/json"
)

// unpack returns the documents d stands for: the items of a List
// (apiVersion v1, kind List, as kubectl get -o yaml writes several objects)
// or of a top-level array, else d itself with its Head read. Items keep d's
// number and count from 1 in Item; a List inside a List is not unpacked.
func unpack(d *Document) ([]*Document, error) {
	if isArray(d.Raw) {
		var items []json.RawMessage
		if err := json.Unmarshal(d.Raw, &items); err != nil {
			return nil, d.Errorf("", "malformed JSON: %v", err)
		}
		return listItems(d, items)
	}
	if err := readHead(d, "a document"); err != nil {
		return nil, err
	}
	if d.Head.APIVersion != "v1" || d.Head.Kind != "List" {
		return []*Document{d}, nil
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(d.Raw, &list); err != nil {
		return nil, d.Errorf("items", "Invalid value: %s", decodeDetail(err))
	}
	return listItems(d, list.Items)
}

// listItems makes a document of each item of the list d.
func listItems(d *Document, items []json.RawMessage) ([]*Document, error) {
	out := make([]*Document, 0, len(items))
	for i, raw := range items {
		it := &Document{File: d.File, Number: d.Number, Item: i + 1, Raw: raw}
		if err := readHead(it, "a list item"); err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}

// readHead reads d's apiVersion, kind, name and namespace; what is "a
// document" or "a list item" in the message when d is not an object.
func readHead(d *Document, what string) *Error {
	if !isObject(d.Raw) {
		return d.Errorf("", "%s must be an object with apiVersion, kind and metadata", what)
	}
	if err := json.Unmarshal(d.Raw, &d.Head); err != nil {
		path, detail := locate(typeOfHead, d.Raw, nil, err)
		return d.Errorf(path.String(), "%s", detail)
	}
	return nil
}

func isObject(raw []byte) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}

func isArray(raw []byte) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '['
}
