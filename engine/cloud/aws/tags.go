package aws

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/smithy-go"
)

// isCode reports whether err is an AWS API error with one of codes.
func isCode(err error, codes ...string) bool {
	var apiErr smithy.APIError
	return err != nil && errors.As(err, &apiErr) && slices.Contains(codes, apiErr.ErrorCode())
}

// badTags says why NodeClass tags cannot be used, or "". The CRD rejects the
// same keys; this guards NodeClasses written before that rule or by hand.
func badTags(tags map[string]string) string {
	var bad []string
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		if k == TagCluster || k == TagNodePool || k == TagNodeClaim || k == TagNode ||
			strings.HasPrefix(k, "kubernetes.io/cluster/") || strings.HasPrefix(strings.ToLower(k), "aws:") {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return "tags " + strings.Join(bad, ", ") + " are set by the agent or reserved by AWS; remove them from the NodeClass's aws.tags"
}

// ec2Tags turns a map into sorted EC2 tags.
func ec2Tags(m map[string]string) []ec2types.Tag {
	out := make([]ec2types.Tag, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, ec2types.Tag{Key: aws.String(k), Value: aws.String(m[k])})
	}
	return out
}

// tagValue returns the value of key in tags, or "".
func tagValue(tags []ec2types.Tag, key string) string {
	for _, t := range tags {
		if aws.ToString(t.Key) == key {
			return aws.ToString(t.Value)
		}
	}
	return ""
}

// instanceTags are the tags of a claim's instance and volumes: the
// NodeClass's tags (Name among them, if set), then the agent's own.
func (p *Provider) instanceTags(classTags map[string]string, pool, claim string) map[string]string {
	tags := map[string]string{TagName: claim}
	maps.Copy(tags, classTags)
	tags[TagCluster] = p.opts.ClusterName
	tags[TagNodePool] = pool
	tags[TagNodeClaim] = claim
	tags["kubernetes.io/cluster/"+p.opts.ClusterName] = "owned"
	return tags
}
