package scenario

import "math"

// Load-dependent behaviour: service time and error rate that grow with the load (a
// LoadFactor), a heap whose garbage collection cuts an instance's capacity as it fills
// (GC), and a dependency's ceiling behaviour and hung calls (Dependency.Beyond,
// Dependency.HangRate). Every one is off unless declared.

// Load measures: what a LoadFactor's x is.
const (
	LoadOfConcurrency = "concurrency" // the others in service when the work starts
	LoadOfUtilisation = "utilisation" // that, divided by the capacity
)

// Load factor forms: the shape of m(x).
const (
	LoadLinear      = "linear"      // m = 1 + a·x
	LoadPolynomial  = "polynomial"  // m = 1 + a·x^k
	LoadExponential = "exponential" // m = 1 + a·(e^(b·x) − 1)
)

// MaxLoadFactor is the largest multiplier a LoadFactor gives: a larger m(x) is taken as
// this one, so that a steep form keeps every time finite.
const MaxLoadFactor = 1000

// Beyond a dependency's concurrency: what a call that finds every server busy gets.
const (
	BeyondWait   = "wait"   // it waits in the dependency's FIFO queue (the default)
	BeyondReject = "reject" // it is answered at once with an explicit overload
)

// LoadFactors makes a service's work or a dependency's service time and error rate grow
// with the load, each by its own multiplier. For a dependency, x counts the calls in
// service at the dependency, from every caller, when the call starts, the call itself not
// included (utilisation: that over its concurrency); for a service, the busy workers of
// the instance when the stage starts, the attempt itself not included (utilisation: that
// over its workers). The multiplier is taken when a call or a stage starts: work in
// progress is not re-timed as the load changes.
//
//	load_factor:
//	  service_time: {of: utilisation, form: polynomial, a: 4, k: 3}
//	  error_rate: {of: concurrency, form: linear, a: 0.05}
type LoadFactors struct {
	// ServiceTime multiplies the drawn service time (a service: the stage work, under
	// its work-factor faults and cold factor). Omitted: the load does not change it.
	ServiceTime *LoadFactor `yaml:"service_time,omitempty" json:"service_time,omitempty,omitzero"`
	// ErrorRate multiplies the dependency's error rate (as its faults have it), capped at
	// 100%; a dependency without errors stays without. Dependencies only: a service has
	// no error rate.
	ErrorRate *LoadFactor `yaml:"error_rate,omitempty" json:"error_rate,omitempty,omitzero"`
}

// LoadFactor is a multiplier m(x) ≥ 1 of the load x: linear 1 + a·x, polynomial
// 1 + a·x^k, or exponential 1 + a·(e^(b·x) − 1), capped at 1000 (MaxLoadFactor). So
// {of: utilisation, form: polynomial, a: 4, k: 3} leaves an idle dependency's time as
// declared, makes it 1.5× at half load and 5× at full load.
type LoadFactor struct {
	// Of is the load: concurrency (a count of calls or workers) or utilisation (that
	// count over the capacity; a dependency needs a concurrency for it).
	Of string `yaml:"of" json:"of" jsonschema:"enum=concurrency,enum=utilisation"`
	// Form is linear, polynomial or exponential.
	Form string `yaml:"form" json:"form" jsonschema:"enum=linear,enum=polynomial,enum=exponential"`
	// A is the form's coefficient, zero or more.
	A float64 `yaml:"a" json:"a"`
	// K is the polynomial's exponent, above 0 and at most 10 (polynomial only).
	K float64 `yaml:"k,omitempty" json:"k,omitempty,omitzero"`
	// B is the exponential's rate, above 0 (exponential only).
	B float64 `yaml:"b,omitempty" json:"b,omitempty,omitzero"`
}

// At is m(x): the multiplier at load x (x ≥ 0), at least 1 and at most MaxLoadFactor.
func (f LoadFactor) At(x float64) float64 {
	var m float64
	switch f.Form {
	case LoadLinear:
		m = 1 + f.A*x
	case LoadPolynomial:
		m = 1 + f.A*math.Pow(x, f.K)
	case LoadExponential:
		m = 1 + f.A*math.Expm1(f.B*x)
	default:
		return 1
	}
	if !(m >= 1) { // NaN too
		return 1
	}
	return min(m, MaxLoadFactor)
}

// GC is the garbage collection of an instance's heap: the heap holds the attempts the
// instance has (queued or in service, each memory.per_attempt), h of memory.limit full
// (at most 1), and the instance spends the share g = overhead·h^exponent of its time
// collecting, so every stage's work takes 1/(1 − g) as long. An instance with a full
// heap and overhead 50% works at half speed: queue growth costs capacity, which makes
// the queue grow. The share is taken when a stage starts.
//
//	memory: {limit: 2GiB, per_attempt: 8MiB, gc: {overhead: 60%, exponent: 2}}
type GC struct {
	// Overhead is the share of time spent collecting with a full heap, at most 99%.
	// Zero means no garbage-collection cost.
	Overhead Fraction `yaml:"overhead" json:"overhead"`
	// Exponent shapes how the cost grows as the heap fills, above 0 and at most 10.
	// Zero means 1 (in proportion to the occupancy).
	Exponent float64 `yaml:"exponent,omitempty" json:"exponent,omitempty,omitzero"`
}

// loadFactors checks a service's (dep false) or a dependency's load factors; capacity
// says whether the utilisation has a capacity to divide by.
func (v *validator) loadFactors(p string, lf LoadFactors, dep, capacity bool) {
	if lf.ServiceTime != nil {
		v.loadFactor(p+".service_time", *lf.ServiceTime, capacity)
	}
	if lf.ErrorRate != nil {
		if !dep {
			v.addf(p+".error_rate", "a service has no error rate to multiply; expected service_time only (error_rate belongs to a dependency's load_factor)")
		} else {
			v.loadFactor(p+".error_rate", *lf.ErrorRate, capacity)
		}
	}
}

func (v *validator) loadFactor(p string, f LoadFactor, capacity bool) {
	switch f.Of {
	case LoadOfConcurrency:
	case LoadOfUtilisation:
		if !capacity {
			v.addf(p+".of", "utilisation needs a capacity, but the dependency's concurrency is unlimited; expected of: concurrency, or a concurrency on the dependency")
		}
	case "":
		v.addf(p+".of", "of is empty; expected concurrency or utilisation")
	default:
		v.addf(p+".of", "unknown load %q; expected concurrency or utilisation", f.Of)
	}
	if !(f.A >= 0) || math.IsInf(f.A, 0) {
		v.addf(p+".a", "a is %v; expected a coefficient of zero or more, e.g. 0.5", f.A)
	}
	switch f.Form {
	case LoadLinear:
	case LoadPolynomial:
		if !(f.K > 0 && f.K <= 10) {
			v.addf(p+".k", "k is %v; expected the polynomial's exponent above 0 and at most 10, e.g. 2", f.K)
		}
	case LoadExponential:
		if !(f.B > 0) || math.IsInf(f.B, 0) {
			v.addf(p+".b", "b is %v; expected the exponential's rate above 0, e.g. 0.1", f.B)
		}
	case "":
		v.addf(p+".form", "form is empty; expected linear, polynomial or exponential")
	default:
		v.addf(p+".form", "unknown form %q; expected linear, polynomial or exponential", f.Form)
	}
	if f.Form != LoadPolynomial && f.K != 0 {
		v.addf(p+".k", "k is %v, but only a polynomial has an exponent; expected no k for form %s", f.K, f.Form)
	}
	if f.Form != LoadExponential && f.B != 0 {
		v.addf(p+".b", "b is %v, but only an exponential has a rate; expected no b for form %s", f.B, f.Form)
	}
}

// gc checks a service's garbage collection: it needs the heap's limit and the attempts'
// size to have an occupancy.
func (v *validator) gc(p string, m Memory) {
	g := m.GC
	if g == (GC{}) {
		return
	}
	if g.Overhead > 0.99 {
		v.addf(p+".overhead", "overhead is %s; expected at most 99%% of the time spent collecting, e.g. 50%%", g.Overhead)
	}
	if !(g.Exponent >= 0 && g.Exponent <= 10) {
		v.addf(p+".exponent", "exponent is %v; expected above 0 and at most 10 (or omit it for 1), e.g. 2", g.Exponent)
	}
	if m.Limit <= 0 || m.PerAttempt <= 0 {
		v.addf(p, "gc needs a heap that attempts fill; expected memory limit and per_attempt too, e.g. {limit: 2GiB, per_attempt: 8MiB, gc: {overhead: 50%%}}")
	}
}

// dependencyLoad checks a dependency's load-dependent fields: its load factors, its
// behaviour beyond its concurrency and its hang rate.
func (v *validator) dependencyLoad(p string, d Dependency) {
	if d.LoadFactor != nil {
		v.loadFactors(p+".load_factor", *d.LoadFactor, true, d.Concurrency > 0)
	}
	switch d.Beyond {
	case "", BeyondWait:
	case BeyondReject:
		if d.Concurrency <= 0 {
			v.addf(p+".beyond", "beyond: reject needs a ceiling, but concurrency is unlimited; expected a concurrency too, e.g. {concurrency: 64, beyond: reject}")
		}
	default:
		v.addf(p+".beyond", "unknown beyond %q; expected wait (queue at the dependency) or reject (answer overload at once)", d.Beyond)
	}
}
