package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/loadstate"
)

func TestNorthstarLoadState(t *testing.T) {
	c, err := LoadStateConfig(LoadStateNorthstar)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("NorthstarLoadState().Validate() = %v", err)
	}
	// The figures the seed fixes.
	if c.Gates.QueueAge.Warn != 250*time.Millisecond || c.Gates.QueueAge.Hard != time.Second {
		t.Errorf("queue-age gates %v/%v, want 250ms/1s", c.Gates.QueueAge.Warn, c.Gates.QueueAge.Hard)
	}
	if c.Gates.Amplification.Warn != 1.08 {
		t.Errorf("amplification warning %v, want 1.08", c.Gates.Amplification.Warn)
	}
	if c.Policies.Protected.RetryRatio != 0.02 {
		t.Errorf("Protected retry ratio %v, want 0.02", c.Policies.Protected.RetryRatio)
	}
	// The Protected hold and the ramp fit inside the seed's twelve-minute
	// return-to-Normal objective.
	total := c.Hold.Protected
	for _, st := range c.Ramp {
		total += st.Hold
	}
	if total > 12*time.Minute || c.Hold.Recovering > total-c.Hold.Protected {
		t.Errorf("restoration to Normal takes at least %v, want ≤ 12m", total)
	}
	if _, err := LoadStateConfig("acme"); err == nil || !strings.Contains(err.Error(), `unknown load-state preset "acme"`) {
		t.Errorf("LoadStateConfig(acme) = %v, want an unknown-preset error", err)
	}
}

func TestNorthstarShedPlan(t *testing.T) {
	tbl, err := NorthstarShedPlan().Compile()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		state loadstate.State
		want  string
	}{
		{loadstate.Normal, ""},
		{loadstate.Pressured, "analytics,background"},
		{loadstate.Protected, "analytics,background,recommendations,receipt-enrichment,fraud-enrichment"},
		{loadstate.Recovering, "analytics,background,recommendations,receipt-enrichment,fraud-enrichment"},
	} {
		if got := strings.Join(tbl.Names(tbl.Set(c.state)), ","); got != c.want {
			t.Errorf("%v sheds %q, want %q", c.state, got, c.want)
		}
	}
	for _, req := range []string{FeatureInventoryReservation, FeaturePaymentIdempotency, FeatureOrderCommit, FeatureRiskCheck} {
		if _, ok := tbl.Feature(req); ok {
			t.Errorf("required work %q is in the shed table", req)
		}
	}
	// Each call returns a fresh plan.
	p := NorthstarShedPlan()
	p.States[loadstate.Pressured] = nil
	if len(NorthstarShedPlan().States[loadstate.Pressured]) != 2 {
		t.Error("changing one NorthstarShedPlan changed the next")
	}
}

func TestNorthstarReadiness(t *testing.T) {
	c := NorthstarReadiness()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Route.CanaryRate != 350 || c.Nominal != 420 {
		t.Errorf("canary %v/s, nominal %v/s; want the seed's 350 and 420", c.Route.CanaryRate, c.Nominal)
	}
}
