package manifests

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// MetricsServiceName is the Service in front of the agent's metrics port, for Prometheus
// scrape configurations and ServiceMonitors. Every replica serves metrics, the stand-bys too.
const MetricsServiceName = Name + "-metrics"

func metricsService(o Options) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: meta(MetricsServiceName, o.Namespace),
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeClusterIP,
			Selector: Labels(),
			Ports: []corev1.ServicePort{{
				Name:       "metrics",
				Port:       MetricsPort,
				TargetPort: intstr.FromString("metrics"),
				Protocol:   corev1.ProtocolTCP,
			}},
		},
	}
}

// ServiceMonitor is an optional Prometheus Operator ServiceMonitor (monitoring.coreos.com/v1)
// that scrapes the metrics Service. The cluster must have the Prometheus Operator's CRDs.
type ServiceMonitor struct {
	// Labels go on the ServiceMonitor besides the agent's own, so a Prometheus whose
	// serviceMonitorSelector asks for them (kube-prometheus-stack: release=<its release>)
	// picks it up.
	Labels map[string]string
}

// ServiceMonitorAPIVersion and ServiceMonitorKind are the Prometheus Operator's ServiceMonitor.
const (
	ServiceMonitorAPIVersion = "monitoring.coreos.com/v1"
	ServiceMonitorKind       = "ServiceMonitor"
)

// serviceMonitor scrapes every pod behind the metrics Service at /metrics on its metrics port.
// It is unstructured: the Operator's Go types are not worth a dependency for one object.
func serviceMonitor(o Options) *unstructured.Unstructured {
	labels := map[string]any{}
	for k, v := range o.ServiceMonitor.Labels {
		labels[k] = v
	}
	match := map[string]any{}
	for k, v := range Labels() {
		labels[k] = v
		match[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": ServiceMonitorAPIVersion,
		"kind":       ServiceMonitorKind,
		"metadata":   map[string]any{"name": MetricsServiceName, "namespace": o.Namespace, "labels": labels},
		"spec": map[string]any{
			"selector":  map[string]any{"matchLabels": match},
			"endpoints": []any{map[string]any{"port": "metrics", "path": "/metrics"}},
		},
	}}
}

// ServiceMonitorObject identifies the ServiceMonitor of an agent in namespace, for deleting it.
func ServiceMonitorObject(namespace string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(ServiceMonitorAPIVersion)
	u.SetKind(ServiceMonitorKind)
	u.SetNamespace(namespace)
	u.SetName(MetricsServiceName)
	return u
}
