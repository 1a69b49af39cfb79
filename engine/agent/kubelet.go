package agent

import (
	"fmt"

	v1 "github.com/tenonhq/terraform-provider-tenon/engine/api/v1"
	"github.com/tenonhq/terraform-provider-tenon/engine/catalog"
	"github.com/tenonhq/terraform-provider-tenon/engine/state"
)

// sizeForKubelet returns types as nodes with the pool's kubelet settings
// see them — a Provisioner's kubeletConfiguration (the annotation its
// NodePool carries) or the NodeClass's aws.kubelet — with the same
// state.KubeletFor and state.WithKubelet `tenon simulate` uses, so the agent
// launches what simulate predicts. The e2e tests compare the two.
func sizeForKubelet(types []*catalog.InstanceType, pool *v1.NodePool, class *v1.NodeClass) ([]*catalog.InstanceType, error) {
	k, err := state.KubeletFor(pool, class)
	if err != nil {
		return nil, fmt.Errorf("nodepool %s: %w", pool.Name, err)
	}
	return state.WithKubelet(types, k)
}
