package scheduling

import (
	"testing"
	"time"
)

// TestParseQuantityRefusesHugeExponents: resource.ParseQuantity took
// minutes on 1e-99999999 (rounding to nano units), and comparing
// 1e99999999 with a bound did not end; both are refused at once.
func TestParseQuantityRefusesHugeExponents(t *testing.T) {
	for _, s := range []string{"1e-99999999", "1e99999999", "5E+31", "1e-31"} {
		start := time.Now()
		if _, err := ParseQuantity(s); err == nil {
			t.Errorf("ParseQuantity(%q) succeeded", s)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("ParseQuantity(%q) took %v", s, d)
		}
	}
	for _, s := range []string{"1e30", "1e-9", "16Gi", "500m", "1.5"} {
		if _, err := ParseQuantity(s); err != nil {
			t.Errorf("ParseQuantity(%q) = %v", s, err)
		}
	}
}
