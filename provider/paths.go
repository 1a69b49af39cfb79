package provider

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// pathRule maps an API field path prefix (as field.Path prints it, without indices) to the
// attribute path that holds it in a resource's schema. Below the prefix, names are the API's
// in snake_case.
type pathRule struct {
	api string
	tf  path.Path
	// whole maps everything under api to tf itself, for an API struct that is one attribute
	// (nodeClassRef -> node_class).
	whole bool
}

// pathMapper turns the paths of engine/api validation errors into attribute paths, so that
// the one Go validation reports on the attribute the user wrote.
type pathMapper struct {
	rules []pathRule
	// maps are the snake_case names of map attributes: a bracketed segment after them is a
	// key, even when it looks like a number.
	maps map[string]bool
}

func newPathMapper(rules []pathRule, maps ...string) pathMapper {
	sorted := append([]pathRule(nil), rules...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i].api) > len(sorted[j].api) })
	m := pathMapper{rules: sorted, maps: map[string]bool{}}
	for _, name := range maps {
		m.maps[name] = true
	}
	return m
}

// toTF maps an API field path such as spec.template.spec.requirements[0].minValues.
func (m pathMapper) toTF(apiPath string) path.Path {
	for _, r := range m.rules {
		if apiPath == r.api {
			return r.tf
		}
		if strings.HasPrefix(apiPath, r.api+".") || strings.HasPrefix(apiPath, r.api+"[") {
			if r.whole {
				return r.tf
			}
			return m.appendSteps(r.tf, apiPath[len(r.api):], lastName(r.tf))
		}
	}
	return m.appendSteps(path.Empty(), apiPath, "")
}

func lastName(p path.Path) string {
	steps := p.Steps()
	if len(steps) == 0 {
		return ""
	}
	if n, ok := steps[len(steps)-1].(path.PathStepAttributeName); ok {
		return string(n)
	}
	return ""
}

// appendSteps parses ".name[0].other[key]" onto p.
func (m pathMapper) appendSteps(p path.Path, rest, last string) path.Path {
	for len(rest) > 0 {
		switch rest[0] {
		case '.':
			rest = rest[1:]
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return p
			}
			seg := rest[1:end]
			rest = rest[end+1:]
			if i, err := strconv.Atoi(seg); err == nil && !m.maps[last] {
				p = p.AtListIndex(i)
			} else {
				p = p.AtMapKey(seg)
			}
		default:
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			last = snake(rest[:end])
			p = p.AtName(last)
			rest = rest[end:]
		}
	}
	return p
}

// snakeExceptions are the API names the general rule below would split wrongly.
var snakeExceptions = map[string]string{
	"httpProtocolIPv6": "http_protocol_ipv6",
}

// snake turns an API field name into the attribute name: minValues -> min_values,
// kmsKeyID -> kms_key_id, clusterDNS -> cluster_dns.
func snake(s string) string {
	if v, ok := snakeExceptions[s]; ok {
		return v
	}
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (unicode.IsUpper(r[i-1]) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// addFieldErrors reports engine/api validation errors on their attributes. Errors on (or
// under) a value that is unknown at plan time are dropped: the value is checked once known.
func addFieldErrors(ctx context.Context, diags *diag.Diagnostics, config tfsdk.Config, m pathMapper, kind string, errs field.ErrorList) {
	for _, e := range errs {
		p := m.toTF(e.Field)
		if underUnknown(ctx, config, p) {
			continue
		}
		// OpenTofu and Terraform point at the attribute's line when they can; the path in
		// the detail names it when they cannot (inside nested attributes).
		detail := p.String() + ": " + e.ErrorBody()
		if len(p.Steps()) == 0 {
			diags.AddError("Invalid "+kind, detail)
			continue
		}
		diags.AddAttributeError(p, "Invalid "+kind, detail)
	}
}

// underUnknown reports whether the value at p, or one it is part of, or one inside it, is
// unknown: then an error there may be about a placeholder, and the check waits for apply.
func underUnknown(ctx context.Context, config tfsdk.Config, p path.Path) bool {
	var v attr.Value
	if d := config.GetAttribute(ctx, p, &v); !d.HasError() && v != nil {
		if tv, err := v.ToTerraformValue(ctx); err == nil && !tv.IsFullyKnown() {
			return true
		}
	}
	for {
		if d := config.GetAttribute(ctx, p, &v); !d.HasError() && v != nil && v.IsUnknown() {
			return true
		}
		if len(p.Steps()) == 0 {
			return false
		}
		p = p.ParentPath()
	}
}
