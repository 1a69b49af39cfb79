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

// fieldAttrs serves a resource's filters: tag:<key> and tag-key from tags,
// every other filter name from fields (a name it lacks matches nothing).
func fieldAttrs(tags []ec2types.Tag, fields map[string]string) attrs {
	return func(name string) []string {
		if v, ok := tagAttrs(tags, name); ok {
			return v
		}
		if v, ok := fields[name]; ok {
			return []string{v}
		}
		return nil
	}
}

func subnetAttrs(s ec2types.Subnet) attrs {
	return fieldAttrs(s.Tags, map[string]string{
		"subnet-id":         aws.ToString(s.SubnetId),
		"availability-zone": aws.ToString(s.AvailabilityZone),
		"vpc-id":            aws.ToString(s.VpcId),
	})
}

func groupAttrs(g ec2types.SecurityGroup) attrs {
	return fieldAttrs(g.Tags, map[string]string{
		"group-id":   aws.ToString(g.GroupId),
		"group-name": aws.ToString(g.GroupName),
		"vpc-id":     aws.ToString(g.VpcId),
	})
}

func imageAttrs(im ec2types.Image) attrs {
	return fieldAttrs(im.Tags, map[string]string{
		"image-id":     aws.ToString(im.ImageId),
		"name":         aws.ToString(im.Name),
		"state":        string(im.State),
		"architecture": string(im.Architecture),
	})
}

func instanceAttrs(in *ec2types.Instance) attrs {
	fields := map[string]string{"instance-id": aws.ToString(in.InstanceId)}
	if in.State != nil {
		fields["instance-state-name"] = string(in.State.Name)
	}
	if in.Placement != nil {
		fields["availability-zone"] = aws.ToString(in.Placement.AvailabilityZone)
	}
	return fieldAttrs(in.Tags, fields)
}

func templateAttrs(lt ec2types.LaunchTemplate) attrs {
	return fieldAttrs(lt.Tags, map[string]string{"launch-template-name": aws.ToString(lt.LaunchTemplateName)})
}

// offeringAttrs serves an offering's filters; offerings have no tags, so a
// tag filter matches none.
func offeringAttrs(o ec2types.InstanceTypeOffering) attrs {
	return fieldAttrs(nil, map[string]string{
		"location":      aws.ToString(o.Location),
		"instance-type": string(o.InstanceType),
	})
}
