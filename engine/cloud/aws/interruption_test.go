package aws

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/tenonhq/terraform-provider-tenon/engine/cloud"
)

// Event bodies shaped like the EventBridge examples in the EC2 and AWS
// Health user guides.
func spotEvent(id string) string {
	return `{"version":"0","id":"1e5527d7-bb36-4607-3370-4164db56a40e","detail-type":"EC2 Spot Instance Interruption Warning","source":"aws.ec2",
"account":"123456789012","time":"2026-11-22T12:00:00Z","region":"us-east-1","resources":["arn:aws:ec2:us-east-1a:instance/` + id + `"],
"detail":{"instance-id":"` + id + `","instance-action":"terminate"}}`
}

func rebalanceEvent(id string) string {
	return `{"version":"0","id":"2","detail-type":"EC2 Instance Rebalance Recommendation","source":"aws.ec2","account":"123456789012",
"time":"2026-11-22T12:00:00Z","region":"us-east-1","resources":["arn:aws:ec2:us-east-1:123456789012:instance/` + id + `"],"detail":{"instance-id":"` + id + `"}}`
}

func stateEvent(id, state string) string {
	return `{"version":"0","id":"3","detail-type":"EC2 Instance State-change Notification","source":"aws.ec2","account":"123456789012",
"time":"2026-11-22T12:00:00Z","region":"us-east-1","resources":["arn:aws:ec2:us-east-1:123456789012:instance/` + id + `"],"detail":{"instance-id":"` + id + `","state":"` + state + `"}}`
}

func healthEvent(ids ...string) string {
	var entities []string
	for _, id := range ids {
		entities = append(entities, `{"entityValue":"`+id+`"}`)
	}
	return `{"version":"0","id":"4","detail-type":"AWS Health Event","source":"aws.health","account":"123456789012","time":"2026-11-22T12:00:00Z",
"region":"us-east-1","resources":[],"detail":{"eventArn":"arn:aws:health:us-east-1::event/EC2/AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED/x","service":"EC2",
"eventTypeCode":"AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED","eventTypeCategory":"scheduledChange","startTime":"Sat, 28 Nov 2026 10:00:00 GMT",
"affectedEntities":[` + strings.Join(entities, ",") + `]}}`
}

func TestInterruptions(t *testing.T) {
	e := newEnv(t)
	var pids, iids []string
	for _, name := range []string{"n1", "n2", "n3", "n4"} {
		c, err := e.p.Create(t.Context(), claim(name, spotOrOnDemand))
		if err != nil {
			t.Fatal(err)
		}
		_, id, _ := ParseProviderID(c.Status.ProviderID)
		pids, iids = append(pids, c.Status.ProviderID), append(iids, id)
	}
	e.fake.AddInstance(ec2types.Instance{InstanceId: aws.String("i-staging"), State: &ec2types.InstanceState{Name: ec2types.InstanceStateNameRunning},
		Placement: &ec2types.Placement{AvailabilityZone: aws.String("us-east-1a")}, Tags: []ec2types.Tag{{Key: aws.String(TagCluster), Value: aws.String("staging")}}})
	for _, body := range []string{
		spotEvent(iids[0]),
		rebalanceEvent(iids[1]),
		stateEvent(iids[2], "stopping"),
		healthEvent(iids[3], iids[0]),
		"not json",                                     // poison
		`{"detail-type":"Something Else","detail":{}}`, // unknown kind: poison
		stateEvent(iids[2], "running"),                 // ignored kind
		spotEvent("i-staging"),                         // another cluster's instance
	} {
		e.fake.Enqueue(body)
	}
	src := e.p.InterruptionSource()
	got, err := src.Receive(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	type ev struct {
		kind cloud.InterruptionKind
		pid  string
	}
	var evs []ev
	for _, in := range got {
		evs = append(evs, ev{in.Kind, in.ProviderID})
	}
	want := []ev{
		{cloud.SpotInterruption, pids[0]}, {cloud.RebalanceRecommendation, pids[1]}, {cloud.StateChange, pids[2]},
		{cloud.ScheduledChange, pids[3]}, {cloud.ScheduledChange, pids[0]},
	}
	if !slices.Equal(evs, want) {
		t.Fatalf("interruptions = %v, want %v", evs, want)
	}
	if got[0].Deadline != got[0].Time.Add(2*time.Minute) || got[3].Deadline.IsZero() || got[2].Detail != "stopping" {
		t.Errorf("deadlines/details = %+v", got)
	}
	// Poison, ignored and foreign messages are gone; handled ones stay until Done.
	if n := e.fake.QueueLength(); n != 4 {
		t.Fatalf("queue length = %d, want the 4 messages not yet done", n)
	}
	rec := e.fake.Calls("ReceiveMessage")[0].Input.(*sqs.ReceiveMessageInput)
	if aws.ToString(rec.QueueUrl) != "https://sqs.us-east-1.amazonaws.com/123456789012/tenon-prod" || rec.WaitTimeSeconds != 20 || rec.MaxNumberOfMessages != 10 {
		t.Errorf("ReceiveMessage = %+v", rec)
	}
	for _, in := range got[:3] {
		if err := src.Done(t.Context(), in); err != nil {
			t.Fatal(err)
		}
	}
	// The Health message carries two instances: deleted after both are done.
	if err := src.Done(t.Context(), got[3]); err != nil {
		t.Fatal(err)
	}
	if n := e.fake.QueueLength(); n != 1 {
		t.Fatalf("queue length = %d, want the Health message still there", n)
	}
	// An agent that crashes before Done sees it again.
	e.fake.Redeliver()
	again, err := src.Receive(t.Context())
	if err != nil || len(again) != 2 {
		t.Fatalf("redelivered = %v, %v; want the Health event's 2 interruptions", again, err)
	}
	for _, in := range again {
		if err := src.Done(t.Context(), in); err != nil {
			t.Fatal(err)
		}
	}
	if n := e.fake.QueueLength(); n != 0 {
		t.Errorf("queue length = %d, want 0", n)
	}
	if n := len(e.fake.Calls("GetQueueUrl")); n != 1 {
		t.Errorf("GetQueueUrl calls = %d, want 1 (cached)", n)
	}
}

func TestNoInterruptionSourceWithoutQueue(t *testing.T) {
	e := newEnv(t, func(o *Options) { o.InterruptionQueue = "" })
	if e.p.InterruptionSource() != nil {
		t.Error("InterruptionSource without a queue is not nil")
	}
}
