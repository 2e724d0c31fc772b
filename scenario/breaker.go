package scenario

import (
	"fmt"
	"time"

	"github.com/goodput-lab/goodput/control/breaker"
)

// BreakerPolicy is a circuit breaker in the services' clients of one dependency
// (control/breaker, run unchanged by the model). Every calling service instance has its
// own breaker for the dependency, as each pod of a real service has its own client: an
// instance whose breaker is open fails its calls fast while another's may still be closed.
// A call first asks its instance's breaker; a refused call fails at once with reason
// breaker-open, takes no connection and no server, is not retried, and its stage fails as
// a failed call does (an optional stage is skipped). A failed call is not retried while the
// breaker is open. What each call saw is classified by the library's default classifier:
// an error answer and a timeout of the dependency's own (fixed) timeout count as
// failures; an explicit overload rejection, a timeout derived from the caller's deadline
// (dependency_timeout: derived) and a call its caller cancelled are ignored. A crashed
// instance comes back with a new, closed breaker. Every zero field takes the library's
// default (breaker.Config).
//
// Example:
//
//	breakers:
//	  - {dependency: payment-provider, threshold: 25%, window: 30s, min_volume: 20,
//	     open_for: 5s, max_open_for: 30s, probes: 3}
type BreakerPolicy struct {
	// Dependency is the dependency whose calls the breaker guards.
	Dependency string `yaml:"dependency" json:"dependency"`
	// Threshold is the share of failures among the window's results at or above which
	// the breaker opens, in (0%, 100%], e.g. 25%. Omitted means 50%.
	Threshold *Fraction `yaml:"threshold,omitempty" json:"threshold,omitempty,omitzero"`
	// Window is the sliding window the failure share is measured over, e.g. 30s. Zero
	// means 10s.
	Window Duration `yaml:"window,omitempty" json:"window,omitempty,omitzero"`
	// Buckets is how many buckets the window slides by, 1 to 3600. Zero means 10.
	Buckets int `yaml:"buckets,omitempty" json:"buckets,omitempty,omitzero"`
	// MinVolume is the fewest results the window must hold before the breaker may open.
	// Zero means 20.
	MinVolume int `yaml:"min_volume,omitempty" json:"min_volume,omitempty,omitzero"`
	// OpenFor is how long the breaker stays open after it trips before it lets probes
	// through (half-open), e.g. 5s; each failed probe doubles it up to MaxOpenFor. Zero
	// means 500ms.
	OpenFor Duration `yaml:"open_for,omitempty" json:"open_for,omitempty,omitzero"`
	// MaxOpenFor caps the open period, at least OpenFor, e.g. 30s. Zero means four times
	// OpenFor.
	MaxOpenFor Duration `yaml:"max_open_for,omitempty" json:"max_open_for,omitempty,omitzero"`
	// Probes is how many calls a half-open breaker lets through at once; that many
	// successes close it, one failure opens it again. Zero means 3.
	Probes int `yaml:"probes,omitempty" json:"probes,omitempty,omitzero"`
}

// maxBreakerBuckets bounds a breaker's buckets, and so the memory of a breaker per
// instance.
const maxBreakerBuckets = 3600

// Config is the breaker's configuration for control/breaker, zero fields left zero for
// the library's defaults.
func (b BreakerPolicy) Config() breaker.Config {
	c := breaker.Config{
		Window:         b.Window.Std(),
		Buckets:        b.Buckets,
		MinVolume:      b.MinVolume,
		OpenFor:        b.OpenFor.Std(),
		MaxOpenFor:     b.MaxOpenFor.Std(),
		HalfOpenProbes: b.Probes,
	}
	if b.Threshold != nil {
		c.Threshold = float64(*b.Threshold)
	}
	return c
}

// breakers checks an arm's breakers at path p (its policy's breakers).
func (v *validator) breakers(p string, bs []BreakerPolicy, n topoNames) {
	seen := map[string]bool{}
	for i, b := range bs {
		bp := fmt.Sprintf("%s[%d]", p, i)
		before := len(v.errs)
		switch _, ok := n.deps[b.Dependency]; {
		case b.Dependency == "":
			v.addf(bp+".dependency", "dependency is empty; expected the dependency whose calls the breaker guards, one of %s", quoteList(dependencyNames(v.s.Topology)))
		case !ok:
			v.addf(bp+".dependency", "dependency %q is not a dependency; expected one of %s", b.Dependency, quoteList(dependencyNames(v.s.Topology)))
		case seen[b.Dependency]:
			v.addf(bp+".dependency", "dependency %q has a breaker already; expected one breaker per dependency", b.Dependency)
		}
		seen[b.Dependency] = true
		if t := b.Threshold; t != nil && !(*t > 0 && *t <= 1) {
			v.addf(bp+".threshold", "threshold is %s; expected a share of failures above 0%% and at most 100%%, e.g. 25%%", *t)
		}
		nonNegative := func(field string, d Duration) bool {
			if d < 0 {
				v.addf(bp+"."+field, "%s is %s; expected a positive duration (or omit it for the default)", field, d)
				return false
			}
			return true
		}
		okWindow := nonNegative("window", b.Window)
		okOpen := nonNegative("open_for", b.OpenFor)
		okMax := nonNegative("max_open_for", b.MaxOpenFor)
		if b.Buckets < 0 || b.Buckets > maxBreakerBuckets {
			v.addf(bp+".buckets", "buckets is %d; expected 1 to %d (or omit it for %d)", b.Buckets, maxBreakerBuckets, breaker.DefaultBuckets)
		} else if okWindow {
			c := b.Config()
			w, k := c.Window, c.Buckets
			if w == 0 {
				w = breaker.DefaultWindow
			}
			if k == 0 {
				k = breaker.DefaultBuckets
			}
			if w < time.Duration(k)*time.Millisecond {
				v.addf(bp+".window", "window %s is shorter than %d buckets of a millisecond; expected a longer window or fewer buckets", Duration(w), k)
			}
		}
		if b.MinVolume < 0 {
			v.addf(bp+".min_volume", "min_volume is %d; expected 1 or more (or omit it for %d)", b.MinVolume, breaker.DefaultMinVolume)
		}
		if b.Probes < 0 {
			v.addf(bp+".probes", "probes is %d; expected 1 or more (or omit it for %d)", b.Probes, breaker.DefaultHalfOpenProbes)
		}
		if okOpen && okMax && b.MaxOpenFor > 0 {
			open := b.OpenFor
			if open == 0 {
				open = Duration(breaker.DefaultOpenFor)
			}
			if b.MaxOpenFor < open {
				v.addf(bp+".max_open_for", "max_open_for %s is shorter than open_for %s; expected at least open_for (equal for a fixed open period)", b.MaxOpenFor, open)
			}
		}
		if err := b.Config().Validate(); err != nil && len(v.errs) == before {
			v.addf(bp, "%v", err) // what the checks above did not catch
		}
	}
}
