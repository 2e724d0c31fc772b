package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/packet"
)

// withAlerts is the synthetic comparison with three alert rules: one that fires in the
// baseline only and clears, one that flaps in the baseline and is still firing at the end,
// and one that never fires.
func withAlerts() *packet.Packet {
	p := comparison()
	d := func(s float64) *time.Duration { v := time.Duration(s * float64(time.Second)); return &v }
	p.Arms[0].Alerts = []packet.Alert{
		{Name: "queue age", FirstFired: d(4), Cleared: d(7)},
		{Name: "success rate", FirstFired: d(3.5), Flaps: 2},
		{Name: "pool exhausted"},
	}
	p.Arms[1].Alerts = []packet.Alert{{Name: "queue age"}, {Name: "success rate", FirstFired: d(5), Cleared: d(6)}, {Name: "pool exhausted"}}
	return p
}

// TestTableAlertsGolden pins the alert rows: first fired, flaps, last cleared.
func TestTableAlertsGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Table(&b, withAlerts()); err != nil {
		t.Fatal(err)
	}
	golden(t, "table-alerts.txt", b.Bytes())
	for _, want := range []string{sectionAlerts, "queue age: first fired", "success rate: flaps", "firing at the end", "never"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table has no %q", want)
		}
	}
	var plain bytes.Buffer
	if err := Table(&plain, comparison()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), sectionAlerts) {
		t.Error("a packet without alerts has an alerts section")
	}
}

// TestHTMLAlerts: the page's table carries the alert rows.
func TestHTMLAlerts(t *testing.T) {
	page := render(t, withAlerts())
	for _, want := range []string{"Alerts, seconds from the start", "success rate: first fired", "3.5", "firing at the end"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	if strings.Contains(render(t, comparison()), "Alerts, seconds from the start") {
		t.Error("a page without alerts has an alerts section")
	}
}
