package awsfake

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
)

// attrs returns a resource's values for an EC2 filter name, or nil.
type attrs func(name string) []string

// matches reports whether every filter matches: the resource has a value
// for the filter's name matching one of its values (EC2 semantics: filters
// are ANDed, values ORed, * and ? are wildcards).
func matches(filters []ec2types.Filter, get attrs) bool {
	for _, flt := range filters {
		have := get(aws.ToString(flt.Name))
		ok := false
		for _, want := range flt.Values {
			for _, h := range have {
				if wildcard(want, h) {
					ok = true
				}
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// tagAttrs serves tag:<key> and tag-key filters from tags.
func tagAttrs(tags []ec2types.Tag, name string) ([]string, bool) {
	if key, ok := strings.CutPrefix(name, "tag:"); ok {
		for _, t := range tags {
			if aws.ToString(t.Key) == key {
				return []string{aws.ToString(t.Value)}, true
			}
		}
		return nil, true
	}
	if name == "tag-key" {
		var keys []string
		for _, t := range tags {
			keys = append(keys, aws.ToString(t.Key))
		}
		return keys, true
	}
	return nil, false
}

// wildcard matches s against pattern with * (any run) and ? (one rune).
func wildcard(pattern, s string) bool {
	if pattern == "" {
		return s == ""
	}
	switch pattern[0] {
	case '*':
		for i := 0; i <= len(s); i++ {
			if wildcard(pattern[1:], s[i:]) {
				return true
			}
		}
		return false
	case '?':
		return s != "" && wildcard(pattern[1:], s[1:])
	default:
		return s != "" && s[0] == pattern[0] && wildcard(pattern[1:], s[1:])
	}
}

func subnetAttrs(s ec2types.Subnet) attrs {
	return func(name string) []string {
		if v, ok := tagAttrs(s.Tags, name); ok {
			return v
		}
		switch name {
		case "subnet-id":
			return []string{aws.ToString(s.SubnetId)}
		case "availability-zone":
			return []string{aws.ToString(s.AvailabilityZone)}
		case "vpc-id":
			return []string{aws.ToString(s.VpcId)}
		}
		return nil
	}
}

func groupAttrs(g ec2types.SecurityGroup) attrs {
	return func(name string) []string {
		if v, ok := tagAttrs(g.Tags, name); ok {
			return v
		}
		switch name {
		case "group-id":
			return []string{aws.ToString(g.GroupId)}
		case "group-name":
			return []string{aws.ToString(g.GroupName)}
		case "vpc-id":
			return []string{aws.ToString(g.VpcId)}
		}
		return nil
	}
}

func imageAttrs(im ec2types.Image) attrs {
	return func(name string) []string {
		if v, ok := tagAttrs(im.Tags, name); ok {
			return v
		}
		switch name {
		case "image-id":
			return []string{aws.ToString(im.ImageId)}
		case "name":
			return []string{aws.ToString(im.Name)}
		case "state":
			return []string{string(im.State)}
		case "architecture":
			return []string{string(im.Architecture)}
		}
		return nil
	}
}

func instanceAttrs(in *ec2types.Instance) attrs {
	return func(name string) []string {
		if v, ok := tagAttrs(in.Tags, name); ok {
			return v
		}
		switch name {
		case "instance-id":
			return []string{aws.ToString(in.InstanceId)}
		case "instance-state-name":
			if in.State != nil {
				return []string{string(in.State.Name)}
			}
		case "availability-zone":
			if in.Placement != nil {
				return []string{aws.ToString(in.Placement.AvailabilityZone)}
			}
		}
		return nil
	}
}

func templateAttrs(lt ec2types.LaunchTemplate) attrs {
	return func(name string) []string {
		if v, ok := tagAttrs(lt.Tags, name); ok {
			return v
		}
		if name == "launch-template-name" {
			return []string{aws.ToString(lt.LaunchTemplateName)}
		}
		return nil
	}
}

func offeringAttrs(o ec2types.InstanceTypeOffering) attrs {
	return func(name string) []string {
		switch name {
		case "location":
			return []string{aws.ToString(o.Location)}
		case "instance-type":
			return []string{string(o.InstanceType)}
		}
		return nil
	}
}
