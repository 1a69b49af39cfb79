package state

import (
	"strings"
	"testing"
	"time"
)

// TestActiveBudget: the one evaluation of disruption budgets — counts and
// whole percentages rounded up, the API's default of 10%, the most
// restrictive budget in force winning, reasons and cron windows.
func TestActiveBudget(t *testing.T) {
	hour := time.Hour
	now := time.Date(2026, 1, 5, 10, 30, 0, 0, time.UTC) // a Monday
	cases := []struct {
		name      string
		budgets   []Budget
		nodes     int
		want      int
		unlimited bool
	}{
		{name: "default 10% rounds up", nodes: 5, want: 1},
		{name: "default of 20 nodes", nodes: 20, want: 2},
		{name: "count", budgets: []Budget{{Nodes: "3"}}, nodes: 10, want: 3},
		{name: "percentage without floating-point rounding", budgets: []Budget{{Nodes: "7%"}}, nodes: 100, want: 7},
		{name: "100%", budgets: []Budget{{Nodes: "100%"}}, nodes: 9, want: 9},
		{name: "most restrictive wins", budgets: []Budget{{Nodes: "50%"}, {Nodes: "2"}}, nodes: 10, want: 2},
		{name: "zero blocks", budgets: []Budget{{Nodes: "0"}}, nodes: 10, want: 0},
		{name: "other reason ignored", budgets: []Budget{{Nodes: "0", Reasons: []string{"Drifted"}}, {Nodes: "4"}}, nodes: 10, want: 4},
		{name: "no budget covers the reason", budgets: []Budget{{Nodes: "0", Reasons: []string{"Drifted"}}}, nodes: 10, unlimited: true},
		{name: "window open", budgets: []Budget{{Nodes: "0", Schedule: "0 10 * * *", Duration: &hour}, {Nodes: "5"}}, nodes: 10, want: 0},
		{name: "window closed", budgets: []Budget{{Nodes: "0", Schedule: "0 12 * * *", Duration: &hour}, {Nodes: "5"}}, nodes: 10, want: 5},
		{name: "descriptor", budgets: []Budget{{Nodes: "1", Schedule: "@hourly", Duration: &hour}}, nodes: 10, want: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Disruption{Budgets: tc.budgets}.ActiveBudget("Empty", tc.nodes, now)
			if err != nil {
				t.Fatal(err)
			}
			if got.Unlimited != tc.unlimited || (!tc.unlimited && got.Allowed != tc.want) {
				t.Errorf("ActiveBudget = %+v, want allowed %d (unlimited %v)", got, tc.want, tc.unlimited)
			}
		})
	}
}

// TestActiveBudgetRejectsWhatValidationRejects: what the API's validation
// refuses cannot be evaluated either; the error says what to write.
func TestActiveBudgetRejectsWhatValidationRejects(t *testing.T) {
	now := time.Date(2026, 1, 5, 10, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		budget Budget
		want   string
	}{
		{"fractional percentage", Budget{Nodes: "10.5%"}, "a percentage from 0% to 100%"},
		{"over 100%", Budget{Nodes: "150%"}, "a percentage from 0% to 100%"},
		{"words", Budget{Nodes: "ten"}, "a count such as 5"},
		{"schedule without duration", Budget{Nodes: "1", Schedule: "0 9 * * *"}, "schedule needs a duration"},
		{"bad schedule", Budget{Nodes: "1", Schedule: "0 25 * * *"}, "cron syntax"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Disruption{Budgets: []Budget{tc.budget}}.ActiveBudget("Empty", 10, now)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one saying %q", err, tc.want)
			}
		})
	}
}
