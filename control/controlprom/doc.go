// Package controlprom exposes a [controlhttp.Metrics] to Prometheus, so
// that Prometheus stays out of the control packages: a service that does
// not scrape does not link prometheus/client_golang, as package controlotel
// keeps OpenTelemetry out.
//
// Make one [Collector] with [NewCollector] over the Metrics shared by the
// middleware and the transports, register it on a registry of your own and
// serve that registry:
//
//	metrics := new(controlhttp.Metrics)
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(controlprom.NewCollector(metrics))
//	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// It registers nothing on the global registry. The families are
// [controlhttp.Families]; to add labels such as the service name, register
// through prometheus.WrapRegistererWith.
package controlprom
