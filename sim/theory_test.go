package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// station is an M/M/c queue built directly on the engine: Poisson arrivals, c servers,
// exponential service, unbounded FIFO. It measures the mean wait in queue, the mean time in
// system and the time-average number in system, for comparison with queueing theory.
type station struct {
	c           int
	arrivalMean time.Duration
	serviceMean time.Duration
	arrivals    *rand.Rand
	service     *rand.Rand

	busy    int
	queue   []time.Duration // arrival times of waiting customers
	warmup  time.Duration
	served  int
	waitSum float64 // seconds
	sojSum  float64 // seconds, time in system

	// time-average of the number in system, after warm-up
	lastChange time.Duration
	inSystem   int
	area       float64 // customer-seconds
}

const (
	kindArrive int32 = iota
	kindDepart
)

func (q *station) Handle(s *Sim, e Event) {
	now := s.Elapsed()
	q.account(now)
	switch e.Kind {
	case kindArrive:
		q.inSystem++
		s.Schedule(Exponential(q.arrivals, q.arrivalMean), q, kindArrive, 0)
		if q.busy < q.c {
			q.busy++
			q.record(now, now)
			s.Schedule(Exponential(q.service, q.serviceMean), q, kindDepart, int64(now))
		} else {
			q.queue = append(q.queue, now)
		}
	case kindDepart:
		q.inSystem--
		if arrived := time.Duration(e.ID); arrived >= q.warmup {
			q.sojSum += (now - arrived).Seconds()
		}
		if len(q.queue) > 0 {
			arrived := q.queue[0]
			q.queue = q.queue[1:]
			q.record(arrived, now)
			s.Schedule(Exponential(q.service, q.serviceMean), q, kindDepart, int64(arrived))
		} else {
			q.busy--
		}
	}
}

// record notes a service start for a customer that arrived at arrived.
func (q *station) record(arrived, start time.Duration) {
	if arrived < q.warmup {
		return
	}
	q.served++
	q.waitSum += (start - arrived).Seconds()
}

func (q *station) account(now time.Duration) {
	if now > q.warmup {
		from := max(q.lastChange, q.warmup)
		q.area += float64(q.inSystem) * (now - from).Seconds()
	}
	q.lastChange = now
}

// erlangC is the probability that an arrival waits in an M/M/c queue with offered load a = λ/μ.
func erlangC(c int, a float64) float64 {
	// Computed with the Erlang B recursion for numerical stability.
	b := 1.0
	for k := 1; k <= c; k++ {
		b = a * b / (float64(k) + a*b)
	}
	rho := a / float64(c)
	return b / (1 - rho + rho*b)
}

func runStation(t *testing.T, seed uint64, c int, lambda, mu float64, horizon time.Duration) *station {
	t.Helper()
	streams := NewStreams(seed)
	q := &station{
		c:           c,
		arrivalMean: time.Duration(float64(time.Second) / lambda),
		serviceMean: time.Duration(float64(time.Second) / mu),
		arrivals:    streams.Stream("arrivals"),
		service:     streams.Stream("service"),
		warmup:      horizon / 10,
	}
	s := New(time.Time{})
	s.Schedule(0, q, kindArrive, 0)
	s.Run(horizon)
	q.account(horizon)
	return q
}

// TestMM1MeanWait compares the simulated mean wait in queue with Wq = ρ/(μ−λ).
func TestMM1MeanWait(t *testing.T) {
	for _, rho := range []float64{0.5, 0.8} {
		lambda, mu := rho*100, 100.0
		q := runStation(t, 11, 1, lambda, mu, 2000*time.Second)
		got := q.waitSum / float64(q.served)
		want := rho / (mu - lambda)
		// Tolerance: at ρ=0.8 the wait's autocorrelation makes the standard error a few percent
		// over ~180,000 customers; 8% keeps the test meaningful and stable for this seed family.
		t.Logf("M/M/1 ρ=%.1f: mean wait %.5fs, theory %.5fs (%d customers)", rho, got, want, q.served)
		if math.Abs(got-want)/want > 0.08 {
			t.Errorf("M/M/1 ρ=%.1f: mean wait %.5fs, theory %.5fs (%d customers)", rho, got, want, q.served)
		}
	}
}

// TestMMcMeanWait compares with Erlang C: Wq = C(c, a) / (cμ − λ).
func TestMMcMeanWait(t *testing.T) {
	for _, tc := range []struct {
		c   int
		rho float64
	}{{4, 0.75}, {16, 0.9}} {
		mu := 50.0
		lambda := tc.rho * float64(tc.c) * mu
		q := runStation(t, 12, tc.c, lambda, mu, 1000*time.Second)
		got := q.waitSum / float64(q.served)
		want := erlangC(tc.c, lambda/mu) / (float64(tc.c)*mu - lambda)
		t.Logf("M/M/%d ρ=%.2f: mean wait %.5fs, Erlang C %.5fs (%d customers)", tc.c, tc.rho, got, want, q.served)
		if math.Abs(got-want)/want > 0.10 {
			t.Errorf("M/M/%d ρ=%.2f: mean wait %.5fs, Erlang C %.5fs (%d customers)", tc.c, tc.rho, got, want, q.served)
		}
	}
}

// TestLittlesLaw checks L = λW on the simulated queue: the time-average number in system
// equals the arrival rate times the mean time in system.
func TestLittlesLaw(t *testing.T) {
	lambda, mu := 180.0, 50.0 // M/M/4 at ρ = 0.9
	q := runStation(t, 13, 4, lambda, mu, 1000*time.Second)
	span := (1000*time.Second - q.warmup).Seconds()
	L := q.area / span
	W := q.sojSum / float64(q.served)
	t.Logf("Little: L = %.3f, λW = %.3f", L, lambda*W)
	if math.Abs(L-lambda*W)/L > 0.05 {
		t.Errorf("Little's law: L = %.3f, λW = %.3f", L, lambda*W)
	}
}

func TestErlangC(t *testing.T) {
	// Known values: C(1, ρ) = ρ; C(2, 1) = 1/3.
	if got := erlangC(1, 0.7); math.Abs(got-0.7) > 1e-12 {
		t.Fatalf("C(1, .7) = %v", got)
	}
	if got := erlangC(2, 1); math.Abs(got-1.0/3) > 1e-12 {
		t.Fatalf("C(2, 1) = %v", got)
	}
}
