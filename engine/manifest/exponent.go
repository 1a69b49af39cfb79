package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

// ExponentMessage says why a number past scheduling.MaxExponent is
// refused.
var ExponentMessage = fmt.Sprintf("has an exponent past ±%d: no amount is that large or that small; write it plainly, such as 16Gi or 500m", scheduling.MaxExponent)

// checkExponents returns the path of the first number or string in raw
// (a JSON document) that ExponentTooLarge refuses, or "".
func checkExponents(raw []byte) (string, string) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return "", "" // the strict decoding says what is wrong
	}
	return findExponent(v, nil)
}

func findExponent(v any, path *field.Path) (string, string) {
	switch t := v.(type) {
	case json.Number:
		if scheduling.ExponentTooLarge(string(t)) {
			return pathString(path), string(t)
		}
	case string:
		if scheduling.ExponentTooLarge(t) {
			return pathString(path), t
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if p, s := findExponent(t[k], childPath(path, k)); s != "" {
				return p, s
			}
		}
	case []any:
		for i, item := range t {
			if q, s := findExponent(item, path.Index(i)); s != "" {
				return q, s
			}
		}
	}
	return "", ""
}
