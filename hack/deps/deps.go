//go:build tenondeps

// Package deps pins the modules that the agent, AWS, GitOps and acceptance-test
// packages are being built on, so go mod tidy keeps them while those packages land.
// Delete an import here once a real package imports it.
package deps

import (
	_ "github.com/aws/aws-sdk-go-v2/config"
	_ "github.com/aws/aws-sdk-go-v2/service/ec2"
	_ "github.com/aws/aws-sdk-go-v2/service/pricing"
	_ "github.com/aws/aws-sdk-go-v2/service/sqs"
	_ "github.com/aws/aws-sdk-go-v2/service/ssm"
	_ "github.com/go-git/go-git/v5"
	_ "github.com/go-git/go-git/v5/plumbing/transport/http"
	_ "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	_ "github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	_ "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "sigs.k8s.io/controller-runtime"
	_ "sigs.k8s.io/controller-runtime/pkg/client"
)
