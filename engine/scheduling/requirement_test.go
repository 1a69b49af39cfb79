package scheduling_test

import (
	"math"
	"slices"
	"testing"

	"github.com/tenonhq/terraform-provider-tenon/engine/scheduling"
)

const key = "example.com/k"

// operands has one requirement per operator, chosen so every pair overlaps
// in an interesting way.
func operands() map[string]scheduling.Requirement {
	return map[string]scheduling.Requirement{
		"In":           scheduling.In(key, "1", "5", "a"),
		"NotIn":        scheduling.NotIn(key, "5", "b"),
		"Exists":       scheduling.Exists(key),
		"DoesNotExist": scheduling.DoesNotExist(key),
		"Gt":           scheduling.Gt(key, 3),
		"Lt":           scheduling.Lt(key, 5),
		"Gte":          scheduling.Gte(key, 5),
		"Lte":          scheduling.Lte(key, 3),
	}
}

func TestIntersectionOfEveryOperatorPair(t *testing.T) {
	ops := operands()
	tests := []struct{ a, b, want string }{
		{"In", "In", "In [1 5 a]"},
		{"In", "NotIn", "In [1 a]"},
		{"In", "Exists", "In [1 5 a]"},
		{"In", "DoesNotExist", "DoesNotExist"},
		{"In", "Gt", "In [5]"},
		{"In", "Lt", "In [1]"},
		{"In", "Gte", "In [5]"},
		{"In", "Lte", "In [1]"},
		{"NotIn", "NotIn", "NotIn [5 b]"},
		{"NotIn", "Exists", "NotIn [5 b]"},
		{"NotIn", "DoesNotExist", "DoesNotExist"},
		{"NotIn", "Gt", "Gt 3 NotIn [5]"},
		{"NotIn", "Lt", "Lt 5"},
		{"NotIn", "Gte", "Gt 4 NotIn [5]"},
		{"NotIn", "Lte", "Lt 4"},
		{"Exists", "Exists", "Exists"},
		{"Exists", "DoesNotExist", "DoesNotExist"},
		{"Exists", "Gt", "Gt 3"},
		{"Exists", "Lt", "Lt 5"},
		{"Exists", "Gte", "Gt 4"},
		{"Exists", "Lte", "Lt 4"},
		{"DoesNotExist", "DoesNotExist", "DoesNotExist"},
		{"DoesNotExist", "Gt", "DoesNotExist"},
		{"DoesNotExist", "Lt", "DoesNotExist"},
		{"DoesNotExist", "Gte", "DoesNotExist"},
		{"DoesNotExist", "Lte", "DoesNotExist"},
		{"Gt", "Gt", "Gt 3"},
		{"Gt", "Lt", "Gt 3 Lt 5"},
		{"Gt", "Gte", "Gt 4"},
		{"Gt", "Lte", "DoesNotExist"},
		{"Lt", "Lt", "Lt 5"},
		{"Lt", "Gte", "DoesNotExist"},
		{"Lt", "Lte", "Lt 4"},
		{"Gte", "Gte", "Gt 4"},
		{"Gte", "Lte", "DoesNotExist"},
		{"Lte", "Lte", "Lt 4"},
	}
	seen := map[[2]string]bool{}
	for _, tt := range tests {
		seen[[2]string{tt.a, tt.b}], seen[[2]string{tt.b, tt.a}] = true, true
		t.Run(tt.a+"∩"+tt.b, func(t *testing.T) {
			a, b := ops[tt.a], ops[tt.b]
			for _, got := range []scheduling.Requirement{a.Intersection(b), b.Intersection(a)} {
				if want := key + " " + tt.want; got.String() != want {
					t.Errorf("got %q, want %q", got.String(), want)
				}
				for _, v := range probes() {
					if got.Has(v) != (a.Has(v) && b.Has(v)) {
						t.Errorf("Has(%q) = %v, want %v", v, got.Has(v), !got.Has(v))
					}
				}
			}
		})
	}
	for a := range ops {
		for b := range ops {
			if !seen[[2]string{a, b}] {
				t.Errorf("no test for %s∩%s", a, b)
			}
		}
	}
}

func TestIntersectionInSecondSet(t *testing.T) {
	got := scheduling.In(key, "1", "5", "a").Intersection(scheduling.In(key, "5", "a", "z"))
	if want := key + " In [5 a]"; got.String() != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func probes() []string {
	return []string{"", "a", "b", "z", "0", "1", "3", "4", "5", "6", "05", "+5", "-1", "1.5", "9223372036854775807", "-9223372036854775808", "99999999999999999999"}
}

func TestHas(t *testing.T) {
	tests := []struct {
		name string
		req  scheduling.Requirement
		yes  []string
		no   []string
	}{
		{"In", scheduling.In(key, "a", "5"), []string{"a", "5"}, []string{"b", "05", ""}},
		{"In nothing", scheduling.In(key), nil, []string{"a", ""}},
		{"NotIn", scheduling.NotIn(key, "a"), []string{"b", "", "5"}, []string{"a"}},
		{"Exists", scheduling.Exists(key), []string{"a", "", "5"}, nil},
		{"DoesNotExist", scheduling.DoesNotExist(key), nil, []string{"a", "", "5"}},
		{"Gt", scheduling.Gt(key, 4), []string{"5", "05", "+5", "9223372036854775807"}, []string{"4", "-5", "a", "", "5.0", "99999999999999999999"}},
		{"Gte", scheduling.Gte(key, 4), []string{"4", "5"}, []string{"3", "a"}},
		{"Lt", scheduling.Lt(key, 4), []string{"3", "-9223372036854775808"}, []string{"4", "a"}},
		{"Lte", scheduling.Lte(key, 4), []string{"4", "-1"}, []string{"5", "a"}},
		{"Gt MaxInt64", scheduling.Gt(key, math.MaxInt64), nil, []string{"9223372036854775807"}},
		{"Lt MinInt64", scheduling.Lt(key, math.MinInt64), nil, []string{"-9223372036854775808"}},
		{"Gte MinInt64", scheduling.Gte(key, math.MinInt64), []string{"-9223372036854775808", "0"}, []string{"a"}},
		{"Lte MaxInt64", scheduling.Lte(key, math.MaxInt64), []string{"9223372036854775807", "0"}, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range tt.yes {
				if !tt.req.Has(v) {
					t.Errorf("%s: Has(%q) = false, want true", tt.req, v)
				}
			}
			for _, v := range tt.no {
				if tt.req.Has(v) {
					t.Errorf("%s: Has(%q) = true, want false", tt.req, v)
				}
			}
		})
	}
}

func TestShape(t *testing.T) {
	tests := []struct {
		name     string
		req      scheduling.Requirement
		operator string
		length   int
		values   []string
		anyValue string
		hasAny   bool
		str      string
	}{
		{"In", scheduling.In(key, "b", "a", "b"), "In", 2, []string{"a", "b"}, "a", true, "In [a b]"},
		{"NotIn", scheduling.NotIn(key, "b", "a"), "NotIn", math.MaxInt, nil, "", false, "NotIn [a b]"},
		{"Exists", scheduling.Exists(key), "Exists", math.MaxInt, nil, "", false, "Exists"},
		{"DoesNotExist", scheduling.DoesNotExist(key), "DoesNotExist", 0, nil, "", false, "DoesNotExist"},
		{"Gt", scheduling.Gt(key, 4), "Exists", math.MaxInt, nil, "5", true, "Gt 4"},
		{"Lt", scheduling.Lt(key, 4), "Exists", math.MaxInt, nil, "3", true, "Lt 4"},
		{"bounded NotIn", scheduling.Gte(key, 4).Intersection(scheduling.NotIn(key, "4", "5")), "Exists", math.MaxInt, nil, "6", true, "Gt 3 NotIn [4 5]"},
		{"all plain integers excluded", scheduling.Gte(key, 4).Intersection(scheduling.Lte(key, 4)).Intersection(scheduling.NotIn(key, "4")), "Exists", math.MaxInt, nil, "", false, "Gt 3 Lt 5 NotIn [4]"},
		{"any integer", scheduling.Lte(key, math.MaxInt64), "Exists", math.MaxInt, nil, "-9223372036854775808", true, "Gte -9223372036854775808"},
		{"minValues", scheduling.In(key, "a", "b").WithMinValues(2), "In", 2, []string{"a", "b"}, "a", true, "In [a b] minValues 2"},
		{"long list", scheduling.In(key, "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"), "In", 12, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}, "a", true, "In [a b c d e f g h i j and 2 more]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.req.Operator(); got != tt.operator {
				t.Errorf("Operator() = %s, want %s", got, tt.operator)
			}
			if got := tt.req.Len(); got != tt.length {
				t.Errorf("Len() = %d, want %d", got, tt.length)
			}
			if got := tt.req.Values(); !slices.Equal(got, tt.values) {
				t.Errorf("Values() = %q, want %q", got, tt.values)
			}
			if got, ok := tt.req.Any(); got != tt.anyValue || ok != tt.hasAny {
				t.Errorf("Any() = %q, %v, want %q, %v", got, ok, tt.anyValue, tt.hasAny)
			}
			if got, want := tt.req.String(), key+" "+tt.str; got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
		})
	}
}

func TestMinValuesTakesTheLarger(t *testing.T) {
	a := scheduling.In(key, "a", "b", "c").WithMinValues(2)
	b := scheduling.Exists(key).WithMinValues(3)
	for _, got := range []scheduling.Requirement{a.Intersection(b), b.Intersection(a)} {
		if got.MinValues == nil || *got.MinValues != 3 {
			t.Fatalf("MinValues = %v, want 3", got.MinValues)
		}
	}
	if got := a.Intersection(scheduling.Exists(key)); got.MinValues == a.MinValues {
		t.Error("Intersection shares MinValues with its input; want a copy")
	}
}

func TestNormalizesDeprecatedKeys(t *testing.T) {
	tests := map[string]string{
		"failure-domain.beta.kubernetes.io/zone":   scheduling.LabelTopologyZone,
		"failure-domain.beta.kubernetes.io/region": scheduling.LabelTopologyRegion,
		"beta.kubernetes.io/instance-type":         scheduling.LabelInstanceType,
		"beta.kubernetes.io/arch":                  scheduling.LabelArch,
		"beta.kubernetes.io/os":                    scheduling.LabelOS,
		"example.com/team":                         "example.com/team",
	}
	for in, want := range tests {
		t.Run(in, func(t *testing.T) {
			if got := scheduling.In(in, "x").Key; got != want {
				t.Errorf("key = %s, want %s", got, want)
			}
		})
	}
}
