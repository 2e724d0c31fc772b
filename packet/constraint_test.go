package packet

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSeriesConstraintColumn: arms that name binding constraints write them in the column
// constraint right after the fixed columns, empty for a tick without a sample, and read
// them back; arms that name none (a live run, an older packet) have no such column and
// read back too.
func TestSeriesConstraintColumn(t *testing.T) {
	p := syntheticPacket()
	_, series, _ := render(t, p)
	header := strings.Split(strings.SplitN(string(series), "\n", 2)[0], ",")
	if i := slices.Index(header, constraintColumn); i != len(seriesColumns) {
		t.Fatalf("the constraint column is column %d of %v; want it right after the %d fixed columns", i, header, len(seriesColumns))
	}
	named := 0
	for _, a := range p.Arms {
		for _, r := range a.Series {
			if r.Sampled && r.Constraint != "" {
				named++
			}
		}
	}
	if named == 0 {
		t.Fatal("the synthetic packet names no binding constraint")
	}
	if !bytes.Contains(series, []byte(",pool:service->risk,")) {
		t.Error("series.csv does not hold the slowdown's pool:service->risk")
	}
	got := readBack(t, p)
	for i, a := range p.Arms {
		for j, r := range a.Series {
			if c := got.Arms[i].Series[j].Constraint; c != r.Constraint {
				t.Fatalf("%s tick %d: read constraint %q, wrote %q", a.Name, j, c, r.Constraint)
			}
		}
	}

	// Without a name anywhere, the column is left out.
	for i := range p.Arms {
		for j := range p.Arms[i].Series {
			p.Arms[i].Series[j].Constraint = ""
		}
	}
	_, series, _ = render(t, p)
	if h := strings.SplitN(string(series), "\n", 2)[0]; strings.Contains(h, constraintColumn) {
		t.Errorf("arms that name no constraint have the column: %s", h)
	}
	readBack(t, p)
}

// TestSeriesConstraintUnsampled: a tick without a sample has no constraint.
func TestSeriesConstraintUnsampled(t *testing.T) {
	js, series, events := render(t, syntheticPacket())
	ls := strings.SplitAfter(string(series), "\n")
	header := strings.Split(strings.TrimSuffix(ls[0], "\n"), ",")
	cells := strings.Split(strings.TrimSuffix(ls[1], "\n"), ",")
	for j := colQueueAgeMax; j < len(cells); j++ {
		if !strings.HasPrefix(header[j], "attempts_") { // the layers' counters stay
			cells[j] = ""
		}
	}
	cells[colFirstPerLayer] = "none"
	ls[1] = strings.Join(cells, ",") + "\n"
	_, err := decodeBytes(js, []byte(strings.Join(ls, "")), events)
	if err == nil || !strings.Contains(err.Error(), `:2: constraint "none": expected an empty cell`) {
		t.Errorf("error %v; want the constraint of an unsampled tick reported", err)
	}
}

// readBack writes p to a directory and reads it back.
func readBack(t *testing.T, p *Packet) *Packet {
	t.Helper()
	dir := t.TempDir()
	if err := p.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	got, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, SeriesFile)); err != nil {
		t.Fatal(err)
	}
	return got
}
