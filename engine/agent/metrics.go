package agent

import (
	"errors"
	"runtime"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tenonhq/terraform-provider-tenon/internal/version"
)

// metrics are the agent's Prometheus series, all named tenon_*, mirroring
// Karpenter's set. They are registered on controller-runtime's registry,
// which --metrics-addr serves at /metrics.
type metrics struct {
	nodeClaimsCreated    *prometheus.CounterVec
	nodesCreated         *prometheus.CounterVec
	nodesTerminated      *prometheus.CounterVec
	launchFailures       *prometheus.CounterVec
	podStartup           prometheus.Histogram
	schedulingDuration   prometheus.Histogram
	queueDepth           prometheus.Gauge
	unschedulablePods    prometheus.Gauge
	disruptionDecisions  *prometheus.CounterVec
	poolUsage            *prometheus.GaugeVec
	poolLimit            *prometheus.GaugeVec
	poolNodes            *prometheus.GaugeVec
	clusterCostPerHour   prometheus.Gauge
	poolCostPerHour      *prometheus.GaugeVec
	buildInfo            *prometheus.GaugeVec
	evictions            *prometheus.CounterVec
	interruptionReceived *prometheus.CounterVec
	unhealthyNodes       *prometheus.GaugeVec
	nodeRepairs          *prometheus.CounterVec
	deletionCostWrites   *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		nodeClaimsCreated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenon_nodeclaims_created_total", Help: "NodeClaims the agent created, by pool.",
		}, []string{"nodepool"}),
		nodesCreated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenon_nodes_created_total", Help: "Nodes that registered for a NodeClaim, by pool.",
		}, []string{"nodepool"}),
		nodesTerminated: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenon_nodes_terminated_total", Help: "Nodes (or unregistered claims) the agent terminated, by pool and reason.",
		}, []string{"nodepool", "reason"}),
		launchFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenon_nodeclaims_launch_failures_total", Help: "Failed cloud launches, by reason.",
		}, []string{"reason"}),
		podStartup: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "tenon_pods_startup_duration_seconds", Help: "Time from a pod's creation to Running, for pods the agent provisioned for.",
			Buckets: prometheus.ExponentialBuckets(0.5, 2, 12),
		}),
		schedulingDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "tenon_scheduling_duration_seconds", Help: "Time to build the snapshot and solve one batch of pending pods.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}),
		queueDepth: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tenon_provisioner_queue_depth", Help: "Unschedulable pods in the last batch.",
		}),
		unschedulablePods: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tenon_pods_unschedulable", Help: "Pods the last batch could not place, with a reason in their events.",
		}),
		disruptionDecisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenon_disruption_decisions_total", Help: "Disruption decisions, by reason and decision.",
		}, []string{"reason", "decision"}),
		poolUsage: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tenon_nodepool_usage", Help: "Capacity of a pool's nodes and in-flight claims, by resource.",
		}, []string{"nodepool", "resource"}),
		poolLimit: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tenon_nodepool_limit", Help: "A pool's limit, by resource.",
		}, []string{"nodepool", "resource"}),
		poolNodes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tenon_nodepool_nodes", Help: "Nodes and in-flight claims of a pool.",
		}, []string{"nodepool"}),
		clusterCostPerHour: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tenon_cluster_cost_per_hour", Help: "Catalog price per hour of every node the agent manages, in USD.",
		}),
		poolCostPerHour: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tenon_nodepool_cost_per_hour", Help: "Price per hour of a pool's nodes and in-flight claims, by capacity type, in USD.",
		}, []string{"nodepool", "capacity_type"}),
		buildInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tenon_build_info", Help: "Always 1; its labels name the agent's version, commit and Go version.",
		}, []string{"version", "revision", "goversion"}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenon_pod_evictions_total", Help: "Eviction requests while draining nodes, by result.",
		}, []string{"result"}),
		interruptionReceived: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenon_interruption_received_total", Help: "Interruption events from the cloud, by kind.",
		}, []string{"kind"}),
		unhealthyNodes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "tenon_nodepool_unhealthy_nodes", Help: "Nodes of a pool with an unhealthy condition (one the cloud's repair policies list), by pool and the condition first eligible for repair, whether or not the pool repairs them.",
		}, []string{"nodepool", "condition"}),
		nodeRepairs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenon_node_repairs_total", Help: "Unhealthy nodes node repair deleted (after launching their replacements), by pool and the unhealthy condition.",
		}, []string{"nodepool", "condition"}),
		deletionCostWrites: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenon_pod_deletion_cost_writes_total", Help: "Pod deletion cost writes (--pod-deletion-cost), by action (set, clear, disown) and result (written, skipped: the pod changed or is gone, error).",
		}, []string{"action", "result"}),
	}
	// An agent started again in the same process (tests, a restart after
	// a lost leadership) keeps counting on the collectors it registered.
	err := errors.Join(
		register(reg, &m.nodeClaimsCreated), register(reg, &m.nodesCreated), register(reg, &m.nodesTerminated),
		register(reg, &m.launchFailures), register(reg, &m.podStartup), register(reg, &m.schedulingDuration),
		register(reg, &m.queueDepth), register(reg, &m.unschedulablePods), register(reg, &m.disruptionDecisions),
		register(reg, &m.poolUsage), register(reg, &m.poolLimit), register(reg, &m.poolNodes),
		register(reg, &m.clusterCostPerHour), register(reg, &m.poolCostPerHour), register(reg, &m.buildInfo), register(reg, &m.evictions), register(reg, &m.interruptionReceived),
		register(reg, &m.unhealthyNodes), register(reg, &m.nodeRepairs), register(reg, &m.deletionCostWrites),
	)
	if err != nil {
		return nil, err
	}
	m.buildInfo.WithLabelValues(version.Version(), version.Commit(), runtime.Version()).Set(1)
	return m, nil
}

// register registers *c on reg, or replaces *c with the collector of the
// same description registered before.
func register[T prometheus.Collector](reg prometheus.Registerer, c *T) error {
	err := reg.Register(*c)
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(T); ok {
			*c = existing
			return nil
		}
	}
	return err
}
