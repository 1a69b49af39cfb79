package cloud

import (
	"errors"
	"fmt"
	"testing"
)

func TestTypedErrors(t *testing.T) {
	base := errors.New("boom")
	cases := []struct {
		name                  string
		err                   error
		notFound, ice, ncNotR bool
		msg                   string
	}{
		{
			name: "not found", err: &NotFoundError{ProviderID: "kwok://a"},
			notFound: true, msg: "instance kwok://a not found",
		},
		{
			name: "wrapped not found", err: fmt.Errorf("deleting: %w", &NotFoundError{ProviderID: "aws:///us-east-1a/i-1", Err: base}),
			notFound: true, msg: "deleting: instance aws:///us-east-1a/i-1 not found: boom",
		},
		{
			name: "insufficient capacity",
			err: &InsufficientCapacityError{Claim: "default-x", Offerings: []Offering{
				{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: "spot"},
				{InstanceType: "m5.xlarge", Zone: "us-east-1b", CapacityType: "spot"},
			}},
			ice: true, msg: `insufficient capacity for nodeclaim "default-x" in m5.large/us-east-1a/spot, m5.xlarge/us-east-1b/spot`,
		},
		{
			name: "node class not ready", err: fmt.Errorf("launch: %w", &NodeClassNotReadyError{NodeClass: "default", Reason: "no subnets"}),
			ncNotR: true, msg: `launch: nodeclass "default" is not ready: no subnets`,
		},
		{name: "other", err: base, msg: "boom"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsNotFound(tc.err); got != tc.notFound {
				t.Errorf("IsNotFound = %v, want %v", got, tc.notFound)
			}
			if got := IsInsufficientCapacity(tc.err); got != tc.ice {
				t.Errorf("IsInsufficientCapacity = %v, want %v", got, tc.ice)
			}
			if got := IsNodeClassNotReady(tc.err); got != tc.ncNotR {
				t.Errorf("IsNodeClassNotReady = %v, want %v", got, tc.ncNotR)
			}
			if got := tc.err.Error(); got != tc.msg {
				t.Errorf("Error() = %q, want %q", got, tc.msg)
			}
		})
	}
}
