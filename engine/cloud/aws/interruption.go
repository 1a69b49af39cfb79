package aws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// EventBridge detail types the interruption source understands.
const (
	detailSpotInterruption = "EC2 Spot Instance Interruption Warning"
	detailRebalance        = "EC2 Instance Rebalance Recommendation"
	detailStateChange      = "EC2 Instance State-change Notification"
	detailHealth           = "AWS Health Event"
)

// spotWarning is how long a spot instance lives after its interruption
// warning.
const spotWarning = 2 * time.Minute

// InterruptionSource returns the SQS interruption source, or nil when the
// provider was built without an InterruptionQueue.
func (p *Provider) InterruptionSource() cloud.InterruptionSource {
	if p.opts.InterruptionQueue == "" {
		return nil
	}
	return &interruptions{p: p, queue: p.opts.InterruptionQueue, wait: 20, pending: map[string]int{}}
}

// interruptions reads EventBridge events from an SQS queue. One message
// may name several instances (a Health event); it is deleted when Done was
// called for each of its interruptions.
type interruptions struct {
	p     *Provider
	queue string
	wait  int32 // long-poll seconds

	mu      sync.Mutex
	url     string
	pending map[string]int // receipt handle -> interruptions not yet Done
}

var _ cloud.InterruptionSource = (*interruptions)(nil)

// event is the EventBridge envelope.
type event struct {
	Version    string          `json:"version"`
	ID         string          `json:"id"`
	DetailType string          `json:"detail-type"`
	Source     string          `json:"source"`
	Time       time.Time       `json:"time"`
	Region     string          `json:"region"`
	Resources  []string        `json:"resources"`
	Detail     json.RawMessage `json:"detail"`
}

type ec2Detail struct {
	InstanceID     string `json:"instance-id"`
	InstanceAction string `json:"instance-action"`
	State          string `json:"state"`
}

type healthDetail struct {
	Service           string `json:"service"`
	EventTypeCode     string `json:"eventTypeCode"`
	EventTypeCategory string `json:"eventTypeCategory"`
	StartTime         string `json:"startTime"`
	AffectedEntities  []struct {
		EntityValue string `json:"entityValue"`
	} `json:"affectedEntities"`
}

// queueURL resolves the queue name once.
func (s *interruptions) queueURL(ctx context.Context) (string, error) {
	s.mu.Lock()
	url := s.url
	s.mu.Unlock()
	if url != "" {
		return url, nil
	}
	out, err := s.p.sqs.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(s.queue)})
	if err != nil {
		return "", fmt.Errorf("finding interruption queue %s: %w", s.queue, err)
	}
	s.mu.Lock()
	s.url = aws.ToString(out.QueueUrl)
	s.mu.Unlock()
	return aws.ToString(out.QueueUrl), nil
}

// Receive long-polls the queue (up to 20 s) and returns the interruptions
// of the cluster's instances. Malformed messages are logged and deleted;
// messages about instances of other clusters, or already gone, and state
// changes other than stopping/stopped/shutting-down/terminated are deleted
// as handled.
func (s *interruptions) Receive(ctx context.Context) ([]cloud.Interruption, error) {
	url, err := s.queueURL(ctx)
	if err != nil {
		return nil, err
	}
	out, err := s.p.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: s.wait,
	})
	if err != nil {
		return nil, fmt.Errorf("receiving from interruption queue %s: %w", s.queue, err)
	}
	type parsed struct {
		msg sqstypes.Message
		evs []cloud.Interruption
		ids []string
	}
	var msgs []parsed
	var ids []string
	for _, m := range out.Messages {
		evs, instanceIDs, err := parseEvent(aws.ToString(m.Body))
		if err != nil {
			s.p.log.Error("deleting a malformed interruption message", "messageID", aws.ToString(m.MessageId), "error", err)
			s.delete(ctx, url, aws.ToString(m.ReceiptHandle))
			continue
		}
		for i := range evs {
			evs[i].Handle = aws.ToString(m.ReceiptHandle)
		}
		msgs = append(msgs, parsed{msg: m, evs: evs, ids: instanceIDs})
		ids = append(ids, instanceIDs...)
	}
	zones, err := s.zones(ctx, ids)
	if err != nil {
		return nil, err
	}
	var result []cloud.Interruption
	for _, m := range msgs {
		var mine []cloud.Interruption
		for i, ev := range m.evs {
			zone, ok := zones[m.ids[i]]
			if !ok {
				continue
			}
			ev.ProviderID = providerID(zone, m.ids[i])
			mine = append(mine, ev)
		}
		if len(mine) == 0 {
			s.delete(ctx, url, aws.ToString(m.msg.ReceiptHandle))
			continue
		}
		s.mu.Lock()
		s.pending[aws.ToString(m.msg.ReceiptHandle)] = len(mine)
		s.mu.Unlock()
		result = append(result, mine...)
	}
	return result, nil
}

// zones maps the cluster's live instances among ids to their zones.
func (s *interruptions) zones(ctx context.Context, ids []string) (map[string]string, error) {
	out := map[string]string{}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(ids) == 0 {
		return out, nil
	}
	pages := ec2.NewDescribeInstancesPaginator(s.p.ec2, &ec2.DescribeInstancesInput{
		Filters: []ec2types.Filter{s.p.clusterFilter(), {Name: aws.String("instance-id"), Values: ids}},
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("describing interrupted instances: %w", err)
		}
		for _, res := range page.Reservations {
			for _, inst := range res.Instances {
				if inst.Placement != nil && !gone(&inst) {
					out[aws.ToString(inst.InstanceId)] = aws.ToString(inst.Placement.AvailabilityZone)
				}
			}
		}
	}
	return out, nil
}

// Done deletes the event's message once every interruption it carried is
// done.
func (s *interruptions) Done(ctx context.Context, ev cloud.Interruption) error {
	s.mu.Lock()
	n, ok := s.pending[ev.Handle]
	if ok && n > 1 {
		s.pending[ev.Handle] = n - 1
		s.mu.Unlock()
		return nil
	}
	delete(s.pending, ev.Handle)
	s.mu.Unlock()
	url, err := s.queueURL(ctx)
	if err != nil {
		return err
	}
	if _, err := s.p.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String(ev.Handle)}); err != nil {
		return fmt.Errorf("deleting interruption message of %s: %w", ev.ProviderID, err)
	}
	return nil
}

func (s *interruptions) delete(ctx context.Context, url, handle string) {
	if _, err := s.p.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String(handle)}); err != nil {
		s.p.log.Warn("deleting an interruption message failed; it will be received again", "error", err)
	}
}

// parseEvent turns an EventBridge message into interruptions (without
// provider IDs yet) and the instance ID of each. An event of a kind the
// agent ignores yields none; a message that is not an EventBridge event of
// a known kind is an error.
func parseEvent(body string) ([]cloud.Interruption, []string, error) {
	var ev event
	if err := json.Unmarshal([]byte(body), &ev); err != nil {
		return nil, nil, fmt.Errorf("not JSON: %w", err)
	}
	if ev.DetailType == "" || len(ev.Detail) == 0 {
		return nil, nil, errors.New("not an EventBridge event (no detail-type or detail)")
	}
	switch ev.DetailType {
	case detailSpotInterruption, detailRebalance, detailStateChange:
		var d ec2Detail
		if err := json.Unmarshal(ev.Detail, &d); err != nil || !strings.HasPrefix(d.InstanceID, "i-") {
			return nil, nil, fmt.Errorf("%s without an instance-id", ev.DetailType)
		}
		in := cloud.Interruption{Time: ev.Time}
		switch ev.DetailType {
		case detailSpotInterruption:
			in.Kind, in.Deadline, in.Detail = cloud.SpotInterruption, ev.Time.Add(spotWarning), "spot interruption: "+d.InstanceAction
		case detailRebalance:
			in.Kind, in.Detail = cloud.RebalanceRecommendation, "rebalance recommendation"
		default:
			switch d.State {
			case "stopping", "stopped", "shutting-down", "terminated":
			default:
				return nil, nil, nil
			}
			in.Kind, in.Detail = cloud.StateChange, d.State
		}
		return []cloud.Interruption{in}, []string{d.InstanceID}, nil
	case detailHealth:
		var d healthDetail
		if err := json.Unmarshal(ev.Detail, &d); err != nil {
			return nil, nil, fmt.Errorf("AWS Health event: %w", err)
		}
		if d.Service != "EC2" || d.EventTypeCategory != "scheduledChange" {
			return nil, nil, nil
		}
		var evs []cloud.Interruption
		var ids []string
		for _, e := range d.AffectedEntities {
			if !strings.HasPrefix(e.EntityValue, "i-") {
				continue
			}
			in := cloud.Interruption{Kind: cloud.ScheduledChange, Time: ev.Time, Detail: "scheduled change: " + d.EventTypeCode}
			if t, err := time.Parse(time.RFC1123, d.StartTime); err == nil {
				in.Deadline = t
			}
			evs = append(evs, in)
			ids = append(ids, e.EntityValue)
		}
		return evs, ids, nil
	}
	return nil, nil, fmt.Errorf("unknown detail-type %q", ev.DetailType)
}
