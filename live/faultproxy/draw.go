package faultproxy

import (
	"time"

	"github.com/goodput-lab/goodput/control/identity"
	"github.com/goodput-lab/goodput/internal/draw"
)

// Draw purposes: each decision about a call has its own draw, so changing one rate does not
// move the others.
const (
	purpService = iota
	purpError
	purpHang
	numPurposes
)

var purposeNames = [numPurposes]string{"faultproxy/service", "faultproxy/error", "faultproxy/hang"}

// Draws makes the per-call random decisions of one proxy. Every draw is a hash of the seed,
// the purpose (service time, error, hang), the logical request's key and the attempt
// number, as the replay model draws (its doc, "Common random numbers"): two runs with the
// same seed give the same call the same delay and the same fate whatever the order calls
// arrive in. Use NewDraws; a Draws is immutable and safe for concurrent use.
type Draws struct {
	keys [numPurposes]uint64
}

// NewDraws returns the draws for seed.
func NewDraws(seed uint64) Draws {
	var d Draws
	for i, name := range purposeNames {
		d.keys[i] = draw.Key(seed, name)
	}
	return d
}

// Decision is what the proxy does to one call: hang it, or spend Delay and then answer an
// injected error or forward it.
type Decision struct {
	Hang  bool
	Delay time.Duration
	Error bool
}

// Decide draws the decision for attempt r of a logical request under f.
func (d Draws) Decide(r identity.Request, f Fault) Decision {
	return d.decide(draw.Hash(string(r.Key)), uint64(uint32(r.Attempt)), f)
}

// decideSeq draws for the n-th call without an identity: a domain of its own, so that no
// sequence number draws what a key does.
func (d Draws) decideSeq(n uint64, f Fault) Decision {
	return d.decide(seqDomain, n|1<<63, f)
}

// seqDomain stands for the key of calls without an identity.
var seqDomain = draw.Hash("faultproxy/sequence")

func (d Draws) decide(key, attempt uint64, f Fault) Decision {
	var dec Decision
	if f.HangRate > 0 && d.u(purpHang, key, attempt) < float64(f.HangRate) {
		dec.Hang = true
		return dec
	}
	if !f.ServiceTime.IsZero() {
		dec.Delay = f.ServiceTime.Quantile(d.u(purpService, key, attempt))
	}
	if f.ErrorRate > 0 {
		dec.Error = d.u(purpError, key, attempt) < float64(f.ErrorRate)
	}
	return dec
}

// u is a uniform number in (0, 1) for one purpose, key and attempt.
func (d Draws) u(p int, key, attempt uint64) float64 {
	return draw.Uniform(d.keys[p], key, attempt)
}
