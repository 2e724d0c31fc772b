package packet_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/goodput-lab/goodput/packet"
	"github.com/goodput-lab/goodput/report"
)

// TestReadRedrawsCommittedReports draws report.html from every committed packet read back:
// the page must be the committed one, byte for byte.
func TestReadRedrawsCommittedReports(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "examples", "*", "packet"))
	more, _ := filepath.Glob(filepath.Join("..", "examples", "*", "*", "packet"))
	dirs = append(dirs, more...)
	if len(dirs) == 0 {
		t.Fatal("no packet directory under examples/")
	}
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, "report.html"))
			if err != nil {
				t.Skipf("no committed report.html: %v", err)
			}
			p, err := packet.Read(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := report.HTML(&got, p); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("report.html drawn from the read packet differs from the committed one (%d bytes, committed %d); after a change to the page, redraw it with goodput report %s", got.Len(), len(want), dir)
			}
		})
	}
}
