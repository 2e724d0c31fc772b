package scenario

import "time"

// Instance faults and the autoscaler: what happens to a service's instances, as opposed to
// its inputs (see Fault.Crash, Fault.Stall and Service.Autoscale).

// Autoscale metrics.
const (
	AutoscaleUtilisation = "utilisation" // busy workers ÷ workers of the route-ready instances
	AutoscaleCPU         = "cpu"         // workers running stage work (not waiting for a dependency) ÷ workers
)

// InstanceFault picks the instances of Fault.Service a crash or a stall hits: Count of
// them, or a Share of those whose process is up when the fault begins (rounded up, at
// least one). They are the lowest-numbered such instances (the initial ones in order,
// then those added later in the order they were requested), so that every arm and every
// replay hits the same ones.
type InstanceFault struct {
	// Count is the number of instances, e.g. 2.
	Count int `yaml:"count,omitempty" json:"count,omitempty,omitzero"`
	// Share is the share of the service's running instances, e.g. 25%.
	Share Fraction `yaml:"share,omitempty" json:"share,omitempty,omitzero"`
}

// Autoscale is a service's autoscaler, a rule evaluated at every tick: when the metric's
// mean over Window differs from Target, it asks for the instance count that would bring it
// to Target (ceil(route-ready × mean ÷ target), as Kubernetes' HPA does), at most StepUp
// more or StepDown fewer at a time, within Min and Max, and waits Cooldown after each
// request (a failed one too) before the next. It scales down only when every instance it
// counts is route-ready (none starting), and then takes the idlest instances out first
// (fewest attempts queued or in service; the newest among equals): they leave routing at
// once, finish what they hold, and are gone. The instances it adds go through the same
// stages as a scale fault's: requested, scheduled after Delays.Scheduled, process-ready
// after Delays.ProcessReady, then route-ready and warm as the service's cold period and the
// policy's readiness gate say.
//
// Example:
//
//	autoscale: {metric: utilisation, target: 70%, window: 1m, step_up: 4, step_down: 2,
//	  min: 6, max: 40, cooldown: 2m, delays: {scheduled: 20s, process_ready: 30s},
//	  control_plane: {queue_age_above: 2s, fails: true}}
type Autoscale struct {
	// Metric is what the rule holds at Target: utilisation (busy workers, those waiting
	// for a dependency too, over the workers of the route-ready instances) or cpu (the
	// workers running stage work, not waiting for a dependency call or a connection, over
	// the same). Sampled at every tick.
	Metric string `yaml:"metric" json:"metric" jsonschema:"enum=utilisation,enum=cpu"`
	// Target is the metric's target, e.g. 70%.
	Target Fraction `yaml:"target" json:"target"`
	// Window is the span the metric is averaged over before a decision, e.g. 1m; at
	// least one tick. No decision is taken before the first window is full.
	Window Duration `yaml:"window" json:"window"`
	// StepUp is the most instances one request adds, at least 1.
	StepUp int `yaml:"step_up" json:"step_up"`
	// StepDown is the most instances one request removes; zero means it never scales
	// down.
	StepDown int `yaml:"step_down,omitempty" json:"step_down,omitempty,omitzero"`
	// Min is the fewest instances it keeps (zero: the service's instances).
	Min int `yaml:"min,omitempty" json:"min,omitempty,omitzero"`
	// Max is the most instances it asks for, at least Min and the service's instances.
	Max int `yaml:"max" json:"max"`
	// Cooldown is the wait after a request before the next decision, e.g. 2m. Zero means
	// none: a decision at every tick.
	Cooldown Duration `yaml:"cooldown,omitempty" json:"cooldown,omitempty,omitzero"`
	// Delays are the platform's times from a request to the stages of an added instance.
	Delays AutoscaleDelays `yaml:"delays,omitempty" json:"delays,omitempty,omitzero"`
	// ControlPlane makes the scale requests fail or slow while the service is overloaded.
	// Zero means a control plane that always answers.
	ControlPlane ControlPlane `yaml:"control_plane,omitempty" json:"control_plane,omitempty,omitzero"`
}

// AutoscaleDelays are the times an added instance takes through its first stages.
type AutoscaleDelays struct {
	// Scheduled is the time from the request to a place to run (pod bound), e.g. 20s.
	Scheduled Duration `yaml:"scheduled,omitempty" json:"scheduled,omitempty,omitzero"`
	// ProcessReady is the time from scheduled to the process passing its readiness probe
	// (image pull and start), e.g. 30s. Zero means the service's cold.startup.
	ProcessReady Duration `yaml:"process_ready,omitempty" json:"process_ready,omitempty,omitzero"`
}

// ControlPlane is a control plane the overload hits too: while the service's oldest queued
// attempt is older than QueueAgeAbove, a scale request fails (Fails: nothing is added or
// removed, and the autoscaler waits its cooldown) or is slowed (SlowBy is added to the
// time before its instances are scheduled). Either is recorded in events.jsonl.
type ControlPlane struct {
	// QueueAgeAbove is the condition: the age of the oldest attempt queued at any of the
	// service's instances above it, e.g. 2s.
	QueueAgeAbove Duration `yaml:"queue_age_above" json:"queue_age_above"`
	// Fails makes a request made while the condition holds fail.
	Fails bool `yaml:"fails,omitempty" json:"fails,omitempty,omitzero"`
	// SlowBy delays a request made while the condition holds, e.g. 1m.
	SlowBy Duration `yaml:"slow_by,omitempty" json:"slow_by,omitempty,omitzero"`
}

// instanceFault checks a crash or stall fault's pick (at p).
func (v *validator) instanceFault(p string, f InstanceFault) {
	switch {
	case f.Count != 0 && f.Share != 0:
		v.addf(p, "count and share are both set; expected one of them")
	case f.Count == 0 && f.Share == 0:
		v.addf(p, "no instances picked; expected count (e.g. 2) or share (e.g. 25%%)")
	case f.Count < 0 || f.Count > 100_000:
		v.addf(p+".count", "count is %d; expected 1 to 100000 instances", f.Count)
	case f.Share < 0 || f.Share > 1:
		v.addf(p+".share", "share is %s; expected a share above 0 and at most 100%%", f.Share)
	}
}

// autoscale checks a service's autoscaler (at p); instances is the service's.
func (v *validator) autoscale(p string, as *Autoscale, instances int) {
	if as == nil {
		return
	}
	if as.Metric != AutoscaleUtilisation && as.Metric != AutoscaleCPU {
		v.addf(p+".metric", "unknown metric %q; expected utilisation or cpu", as.Metric)
	}
	if !(as.Target > 0 && as.Target <= 1) {
		v.addf(p+".target", "target is %s; expected a share above 0 and at most 100%%, e.g. 70%%", as.Target)
	}
	tick := v.s.Clock.Tick.Std()
	if tick <= 0 {
		tick = time.Second
	}
	switch {
	case as.Window.Std() < tick:
		v.addf(p+".window", "window is %s; expected at least one tick (%s), e.g. 1m", as.Window, Duration(tick))
	case as.Window.Std()/tick > 100_000:
		v.addf(p+".window", "window is %s, more than 100000 ticks; expected a shorter window, e.g. 1m", as.Window)
	}
	if as.StepUp < 1 || as.StepUp > 100_000 {
		v.addf(p+".step_up", "step_up is %d; expected 1 to 100000 instances", as.StepUp)
	}
	if as.StepDown < 0 || as.StepDown > 100_000 {
		v.addf(p+".step_down", "step_down is %d; expected zero (never scale down) to 100000 instances", as.StepDown)
	}
	lo := as.Min
	if lo == 0 {
		lo = instances
	}
	switch {
	case as.Min < 0:
		v.addf(p+".min", "min is %d; expected zero (the service's instances) or more", as.Min)
	case as.Min > instances:
		v.addf(p+".min", "min is %d, above the service's %d instances at the start; expected at most %d", as.Min, instances, instances)
	}
	switch {
	case as.Max > 100_000:
		v.addf(p+".max", "max is %d; expected at most 100000 instances", as.Max)
	case as.Max < max(lo, instances):
		v.addf(p+".max", "max is %d; expected at least min and the service's instances (%d)", as.Max, max(lo, instances))
	}
	if as.Cooldown < 0 {
		v.addf(p+".cooldown", "cooldown is %s; expected zero (none) or more", as.Cooldown)
	}
	if as.Delays.Scheduled < 0 {
		v.addf(p+".delays.scheduled", "scheduled is %s; expected zero or more", as.Delays.Scheduled)
	}
	if as.Delays.ProcessReady < 0 {
		v.addf(p+".delays.process_ready", "process_ready is %s; expected zero (cold.startup) or more", as.Delays.ProcessReady)
	}
	cp := as.ControlPlane
	if cp == (ControlPlane{}) {
		return
	}
	cpp := p + ".control_plane"
	if cp.QueueAgeAbove <= 0 {
		v.addf(cpp+".queue_age_above", "queue_age_above is %s; expected a positive queue age, e.g. 2s", cp.QueueAgeAbove)
	}
	switch {
	case cp.SlowBy < 0:
		v.addf(cpp+".slow_by", "slow_by is %s; expected a positive delay, e.g. 1m", cp.SlowBy)
	case cp.Fails && cp.SlowBy > 0:
		v.addf(cpp, "fails and slow_by are both set; expected one of them")
	case !cp.Fails && cp.SlowBy == 0:
		v.addf(cpp, "the control plane neither fails nor slows; expected fails: true or slow_by, e.g. 1m")
	}
}

// faultInstances checks a crash or stall fault (at p); kinds counts the fault's kinds.
func (v *validator) faultInstances(p string, f Fault, n topoNames, kinds *int) {
	for _, k := range []struct {
		name string
		pick *InstanceFault
	}{{"crash", f.Crash}, {"stall", f.Stall}} {
		if k.pick == nil {
			continue
		}
		*kinds++
		if _, ok := n.services[f.Service]; !ok {
			v.addf(p+".service", "service %q is not declared; expected one of %s", f.Service, quoteList(serviceNames(v.s.Topology)))
		}
		v.instanceFault(p+"."+k.name, *k.pick)
	}
}
