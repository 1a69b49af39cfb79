package agent

import (
	"github.com/prometheus/client_golang/prometheus"
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
	evictions            *prometheus.CounterVec
	interruptionReceived *prometheus.CounterVec
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
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenon_pod_evictions_total", Help: "Eviction requests while draining nodes, by result.",
		}, []string{"result"}),
		interruptionReceived: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tenon_interruption_received_total", Help: "Interruption events from the cloud, by kind.",
		}, []string{"kind"}),
	}
	for _, c := range []prometheus.Collector{
		m.nodeClaimsCreated, m.nodesCreated, m.nodesTerminated, m.launchFailures, m.podStartup,
		m.schedulingDuration, m.queueDepth, m.unschedulablePods, m.disruptionDecisions, m.poolUsage,
		m.poolLimit, m.poolNodes, m.clusterCostPerHour, m.evictions, m.interruptionReceived,
	} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
