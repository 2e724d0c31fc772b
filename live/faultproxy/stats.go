package faultproxy

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Stats are the proxy's counters since it was made, as GET /_goodput/stats returns them.
// Every call counts in Requests and then in one of Malformed, Rejected, WorkStarted or
// (its caller left before it got a slot) Cancelled; a started call is then Hung, answered
// an injected error (Errors), Forwarded, or cut short by its caller (Cancelled, which so
// counts hung calls too).
type Stats struct {
	// Requests is every call received on the data path.
	Requests uint64 `json:"requests"`
	// Malformed calls carried an unreadable deadline or identity header or body
	// (answered 400), or a body over MaxBody (413).
	Malformed uint64 `json:"malformed"`
	// Rejected calls were over the concurrency ceiling under beyond: reject.
	Rejected uint64 `json:"rejected"`
	// WorkStarted calls got a slot: the dependency's work on them began.
	WorkStarted uint64 `json:"work_started"`
	// StartedAfterDeadline calls began work after the absolute deadline their
	// Goodput-Deadline header carried (wall clock): work nobody could use.
	StartedAfterDeadline uint64 `json:"started_after_deadline"`
	// StartedAfterCancel calls began work after their caller had gone (its context
	// had ended): the slot came at the same moment as the cancellation.
	StartedAfterCancel uint64 `json:"started_after_cancel"`
	// Hung calls were never answered, by the hang rate.
	Hung uint64 `json:"hung"`
	// Errors are calls answered with an injected error.
	Errors uint64 `json:"errors"`
	// Forwarded calls were passed on to the upstream.
	Forwarded uint64 `json:"forwarded"`
	// UpstreamFailed forwarded calls got no answer from the upstream (answered 502).
	UpstreamFailed uint64 `json:"upstream_failed"`
	// Cancelled calls' callers gave up (their context ended) before the answer: while
	// waiting for a slot, during the added service time, hung, or at the upstream.
	Cancelled uint64 `json:"cancelled"`
	// InService is the calls holding a slot now, Waiting those queued for one.
	InService int `json:"in_service"`
	Waiting   int `json:"waiting"`
}

// counters are the atomic counts behind Stats.
type counters struct {
	requests, malformed, rejected, started, afterDeadline, afterCancel,
	hung, errors, forwarded, upstreamFailed, cancelled atomic.Uint64
}

// metricDescs describe the counters for Prometheus, in the order of counterValues.
var metricDescs = []*prometheus.Desc{
	prometheus.NewDesc("goodput_proxy_requests_total", "Calls received on the data path.", nil, nil),
	prometheus.NewDesc("goodput_proxy_malformed_total", "Calls with an unreadable deadline or identity header or body (400, 413).", nil, nil),
	prometheus.NewDesc("goodput_proxy_rejected_total", "Calls rejected over the concurrency ceiling.", nil, nil),
	prometheus.NewDesc("goodput_proxy_work_started_total", "Calls whose work began (they got a slot).", nil, nil),
	prometheus.NewDesc("goodput_proxy_work_started_after_deadline_total", "Calls whose work began after the deadline they carried.", nil, nil),
	prometheus.NewDesc("goodput_proxy_work_started_after_cancel_total", "Calls whose work began after their caller had gone.", nil, nil),
	prometheus.NewDesc("goodput_proxy_hung_total", "Calls never answered, by the hang rate.", nil, nil),
	prometheus.NewDesc("goodput_proxy_errors_injected_total", "Calls answered with an injected error.", nil, nil),
	prometheus.NewDesc("goodput_proxy_forwarded_total", "Calls passed on to the upstream.", nil, nil),
	prometheus.NewDesc("goodput_proxy_upstream_failed_total", "Forwarded calls the upstream did not answer (502).", nil, nil),
	prometheus.NewDesc("goodput_proxy_cancelled_total", "Calls whose caller gave up before the answer.", nil, nil),
}

var (
	inServiceDesc = prometheus.NewDesc("goodput_proxy_in_service", "Calls holding a concurrency slot.", nil, nil)
	waitingDesc   = prometheus.NewDesc("goodput_proxy_waiting", "Calls waiting for a concurrency slot.", nil, nil)
)

func (c *counters) values() []uint64 {
	return []uint64{c.requests.Load(), c.malformed.Load(), c.rejected.Load(), c.started.Load(),
		c.afterDeadline.Load(), c.afterCancel.Load(), c.hung.Load(), c.errors.Load(),
		c.forwarded.Load(), c.upstreamFailed.Load(), c.cancelled.Load()}
}

// collector is the proxy as a prometheus.Collector.
type collector struct{ p *Proxy }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range metricDescs {
		ch <- d
	}
	ch <- inServiceDesc
	ch <- waitingDesc
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	for i, v := range c.p.n.values() {
		ch <- prometheus.MustNewConstMetric(metricDescs[i], prometheus.CounterValue, float64(v))
	}
	busy, waiting := c.p.lim.counts()
	ch <- prometheus.MustNewConstMetric(inServiceDesc, prometheus.GaugeValue, float64(busy))
	ch <- prometheus.MustNewConstMetric(waitingDesc, prometheus.GaugeValue, float64(waiting))
}
