// Package awse2e holds the end-to-end test of `tenon agent --cloud aws`: the
// agent binary runs against the local control plane with its AWS SDK
// clients pointed (AWS_ENDPOINT_URL) at awsfake.Server, provisions a node for
// a pending pod through CreateFleet, and registers the Node the test creates
// with the launched instance's provider ID. The package has only tests.
package awse2e
