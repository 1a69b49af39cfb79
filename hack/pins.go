//go:build pins

// Package hack pins modules that the packages being written in this change
// import, so `go mod tidy` keeps them while the work is in flight.
package hack

import (
	_ "github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	_ "github.com/robfig/cron/v3"
	_ "k8s.io/api/core/v1"
	_ "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	_ "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	_ "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	_ "k8s.io/apimachinery/pkg/util/validation/field"
	_ "k8s.io/utils/ptr"
	_ "sigs.k8s.io/controller-runtime/pkg/scheme"
	_ "sigs.k8s.io/yaml"
	_ "github.com/hashicorp/terraform-plugin-go/tfprotov6"
)
