package controlprom

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/goodput-lab/goodput/control/controlhttp"
)

// Collector is a [prometheus.Collector] over one [controlhttp.Metrics]:
// each scrape reads the Metrics' counters and the levels of its controls
// with [controlhttp.Metrics.Visit], at the wall clock's instant. Build it
// with [NewCollector]; it is safe for concurrent use.
type Collector struct {
	m     *controlhttp.Metrics
	kinds []prometheus.ValueType
	descs []*prometheus.Desc
}

var _ prometheus.Collector = (*Collector)(nil)

// NewCollector returns a Collector over m. A nil m collects nothing.
func NewCollector(m *controlhttp.Metrics) *Collector {
	fams := controlhttp.Families()
	c := &Collector{m: m, kinds: make([]prometheus.ValueType, len(fams)), descs: make([]*prometheus.Desc, len(fams))}
	for i, f := range fams {
		c.descs[i] = prometheus.NewDesc(f.Name, f.Help, f.Labels, nil)
		c.kinds[i] = prometheus.CounterValue
		if f.Kind == controlhttp.Gauge {
			c.kinds[i] = prometheus.GaugeValue
		}
	}
	return c
}

// Describe sends the descriptor of every family. It implements
// [prometheus.Collector].
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect sends the current value of every counter and gauge. It
// implements [prometheus.Collector]; a registry calls it on each scrape. A
// label value Prometheus cannot take (a shed feature's name that is not
// UTF-8) makes that sample an invalid metric, which the registry reports as
// an error of the scrape. The gauges are read at the scrape's instant, on the
// wall clock: a collector runs in a live service, never in the simulator,
// which reads its controls through the packet instead.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.m.Visit(time.Now(), func(s controlhttp.Sample) {
		d := c.descs[s.Family]
		m, err := prometheus.NewConstMetric(d, c.kinds[s.Family], s.Value, s.Labels...)
		if err != nil {
			m = prometheus.NewInvalidMetric(d, err)
		}
		ch <- m
	})
}
