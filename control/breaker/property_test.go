package breaker

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"
)

// model is a naive breaker: it keeps every result of the generation in a
// list and counts the window by filtering it, where Breaker keeps a ring of
// bucket counters. TestAgainstModel checks that the two agree.
type model struct {
	cfg             Config
	width           time.Duration
	epoch           time.Time
	started         bool
	last            time.Duration
	state           State
	gen             uint64
	since           time.Duration
	forced          forcing
	probes, probeOK int
	results         []result
	trips           int // failed probes since the last close
}

type result struct {
	bucket int64
	ok     bool
}

func newModel(cfg Config) *model {
	cfg = cfg.withDefaults()
	return &model{cfg: cfg, width: cfg.Window / time.Duration(cfg.Buckets), gen: 1}
}

func (m *model) advance(now time.Time) {
	if !m.started {
		m.started, m.epoch = true, now
	}
	m.last = max(m.last, now.Sub(m.epoch))
	switch {
	case m.state == Open && m.forced == notForced && m.last-m.since >= m.openFor():
		m.become(HalfOpen)
	case m.state == HalfOpen && m.probes >= m.cfg.HalfOpenProbes && m.last-m.since >= m.cfg.MaxOpenFor:
		m.become(HalfOpen)
	}
}

// openFor is OpenFor × 2^(trips−1), at most MaxOpenFor: the open period
// after a trip from closed (trips 1) and each failed probe since.
func (m *model) openFor() time.Duration {
	d := m.cfg.OpenFor
	for range m.trips - 1 {
		if d >= m.cfg.MaxOpenFor/2 {
			return m.cfg.MaxOpenFor
		}
		d *= 2
	}
	return min(d, m.cfg.MaxOpenFor)
}

func (m *model) become(s State) {
	switch {
	case s == Open && m.forced == notForced:
		m.trips++
	case s == Closed:
		m.trips = 0
	}
	m.state, m.gen, m.since = s, m.gen+1, m.last
	m.probes, m.probeOK, m.results = 0, 0, nil
}

// window counts the results whose bucket is one of the newest Buckets.
func (m *model) window() (ok, fail int) {
	head := int64(m.last / m.width)
	for _, r := range m.results {
		if r.bucket > head-int64(m.cfg.Buckets) {
			if r.ok {
				ok++
			} else {
				fail++
			}
		}
	}
	return ok, fail
}

func (m *model) allow(now time.Time) (uint64, error) {
	m.advance(now)
	switch m.state {
	case Closed:
		return m.gen, nil
	case HalfOpen:
		if m.probes < m.cfg.HalfOpenProbes {
			m.probes++
			return m.gen, nil
		}
		return 0, ErrProbeLimit
	}
	return 0, ErrOpen
}

func (m *model) record(now time.Time, gen uint64, o Outcome) {
	m.advance(now)
	if gen != m.gen {
		return
	}
	if o == Ignored {
		if m.state == HalfOpen {
			m.probes--
		}
		return
	}
	ok := o == Success
	switch m.state {
	case Closed:
		m.results = append(m.results, result{int64(m.last / m.width), ok})
		s, f := m.window()
		if !ok && m.forced == notForced && s+f >= m.cfg.MinVolume && float64(f) >= m.cfg.Threshold*float64(s+f) {
			m.become(Open)
		}
	case HalfOpen:
		if !ok {
			m.become(Open)
		} else if m.probeOK++; m.probeOK >= m.cfg.HalfOpenProbes {
			m.become(Closed)
		}
	}
}

func TestAgainstModel(t *testing.T) {
	configs := []Config{
		ai2,
		{Window: 10 * time.Second, Buckets: 5, MinVolume: 5, Threshold: 0.5, OpenFor: 3 * time.Second, HalfOpenProbes: 2},
		{Window: time.Second, Buckets: 1, MinVolume: 1, Threshold: 1, OpenFor: time.Second, HalfOpenProbes: 1},
		{Window: 7 * time.Second, Buckets: 3, MinVolume: 3, Threshold: 0.1, OpenFor: 500 * time.Millisecond, HalfOpenProbes: 4},
	}
	seen := map[State]int{}
	for ci, cfg := range configs {
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, uint64(ci)))
			b := mustNew(t, cfg)
			m := newModel(cfg)
			now := t0
			var pending []Ticket
			errRate := []float64{0.05, 0.3, 0.8}[r.IntN(3)]
			for i := range 2000 {
				switch k := r.IntN(100); {
				case k < 60:
					now = now.Add(time.Duration(r.IntN(300)) * time.Millisecond)
				case k < 62:
					now = now.Add(time.Duration(r.IntN(40)) * time.Second)
				case k < 63:
					now = now.Add(-time.Duration(r.IntN(5)) * time.Second) // back in time
				}
				if r.IntN(100) == 0 {
					errRate = []float64{0.05, 0.3, 0.8}[r.IntN(3)]
				}
				switch k := r.IntN(1000); {
				case k < 3:
					b.ForceOpen(now)
					m.advance(now)
					m.forced = forcedOpen
					m.become(Open)
				case k < 6:
					b.ForceClosed(now)
					m.advance(now)
					m.forced = forcedClosed
					m.become(Closed)
				case k < 12:
					b.Reset(now)
					m.advance(now)
					m.forced = notForced
					m.become(Closed)
				case k < 500 || len(pending) == 0:
					tk, err := b.Allow(now)
					gen, merr := m.allow(now)
					if !errors.Is(err, merr) || (err == nil && tk.Generation() != gen) {
						t.Fatalf("cfg %d seed %d op %d: Allow = %v gen %d, model %v gen %d", ci, seed, i, err, tk.Generation(), merr, gen)
					}
					if err == nil {
						pending = append(pending, tk)
					}
				default:
					// Record a pending ticket, usually the oldest (a slow call
					// may come back generations later).
					j := 0
					if r.IntN(4) == 0 {
						j = r.IntN(len(pending))
					}
					tk := pending[j]
					pending = append(pending[:j], pending[j+1:]...)
					o := Success
					if r.Float64() < errRate {
						o = Failure
					}
					if r.IntN(5) == 0 {
						o = Ignored
					}
					b.Record(now, tk, o)
					m.record(now, tk.Generation(), o)
				}
				st := b.Stats()
				s, f := m.window()
				if st.State != m.state || st.Generation != m.gen || st.Successes != s || st.Failures != f ||
					st.Probes != m.probes || st.ProbeSuccesses != m.probeOK || st.Forced != (m.forced != notForced) {
					t.Fatalf("cfg %d seed %d op %d: stats %+v, model state %v gen %d window %d/%d probes %d/%d",
						ci, seed, i, st, m.state, m.gen, s, f, m.probes, m.probeOK)
				}
				seen[st.State]++
			}
		}
	}
	for _, s := range []State{Closed, Open, HalfOpen} {
		if seen[s] == 0 {
			t.Errorf("the generator never reached %v: %v", s, seen)
		}
	}
}
