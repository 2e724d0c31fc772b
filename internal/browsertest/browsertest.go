// Package browsertest drives headless Chromium for the tests of goodput's rendered pages
// (postmortems, replay reports): [Start] finds the browser (or skips the test), serves the
// pages on loopback and records every request the browser makes; [Browser.Load] opens a
// page at a viewport width and CSS media type; [CompactPNG] shrinks a screenshot for
// committing.
//
// .ci/run installs Debian's chromium; elsewhere the tests that use it skip.
package browsertest

import (
	"bytes"
	"cmp"
	"context"
	"image"
	"image/color"
	"image/png"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Path returns the Chromium binary to drive: $GOODPUT_CHROMIUM, or the first of the usual
// names found; "" if none is.
func Path() string {
	if p := os.Getenv("GOODPUT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Page is a page to serve: at /NAME.html, with the given HTML.
type Page struct {
	Name string
	HTML []byte
}

// Browser is one headless Chromium with the pages of a test served to it.
type Browser struct {
	ctx context.Context
	srv *httptest.Server

	mu        sync.Mutex
	requested []string
}

// Start serves pages on loopback and starts a browser for the test; both stop when the
// test ends. It skips the test in -short mode and when no Chromium is found. The browser
// is bounded to timeout from its start: a hung browser must not hang the test.
func Start(t *testing.T, timeout time.Duration, pages ...Page) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	bin := Path()
	if bin == "" {
		t.Skip("no Chromium binary found (looked for /usr/bin/chromium, chromium, chromium-browser, google-chrome; set GOODPUT_CHROMIUM); .ci/run installs Debian's chromium")
	}
	mux := http.NewServeMux()
	for _, p := range pages {
		mux.HandleFunc("/"+p.Name+".html", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(p.HTML)
		})
	}
	b := &Browser{srv: httptest.NewServer(mux)}
	t.Cleanup(b.srv.Close)

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			b.mu.Lock()
			b.requested = append(b.requested, e.Request.URL)
			b.mu.Unlock()
		}
	}))
	t.Cleanup(cancel)
	// Start the browser with the test's context (a timeout on this first run would bound
	// the browser's whole life), then bound the rest.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	ctx, cancelRun := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelRun)
	b.ctx = ctx
	return b
}

// Context is the browser's context, for chromedp.Run.
func (b *Browser) Context() context.Context { return b.ctx }

// URL is the address of page name.
func (b *Browser) URL(name string) string { return b.srv.URL + "/" + name + ".html" }

// Load opens page name at a viewport of width × 900 px, with the CSS media type media
// ("print" applies the print stylesheet, "" the screen's). It forgets the requests made
// before.
func (b *Browser) Load(name string, width int64, media string) error {
	b.mu.Lock()
	b.requested = b.requested[:0]
	b.mu.Unlock()
	return chromedp.Do(b.ctx, emulateMedia(media), chromedp.EmulateViewport(width, 900), chromedp.Navigate(b.URL(name)))
}

// Foreign returns the requests made since the last Load for anything but page name itself
// (data: URLs aside): a self-contained page makes none.
func (b *Browser) Foreign(name string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, u := range b.requested {
		if u != b.URL(name) && !strings.HasPrefix(u, "data:") {
			out = append(out, u)
		}
	}
	return out
}

// emulateMedia sets the CSS media type ("print", or "" for the default screen).
func emulateMedia(media string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: media})
		return chromedp.Void{}, err
	}
}

// Artifacts returns the directory to keep screenshots in: $GOODPUT_ARTIFACTS (created if
// needed) or a temporary directory of the test's.
func Artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("GOODPUT_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// CompactPNG re-encodes a screenshot with a palette of its 256 most frequent colours
// (each pixel mapped to the nearest), which keeps text and charts crisp at about a third
// of the size: the README's screenshots are committed.
func CompactPNG(data []byte) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	rgba := func(x, y int) color.RGBA {
		r, g, bl, a := img.At(x, y).RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), uint8(a >> 8)}
	}
	counts := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			counts[rgba(x, y)]++
		}
	}
	key := func(c color.RGBA) uint32 { return uint32(c.R)<<24 | uint32(c.G)<<16 | uint32(c.B)<<8 | uint32(c.A) }
	cols := slices.Collect(maps.Keys(counts))
	slices.SortFunc(cols, func(p, q color.RGBA) int {
		return cmp.Or(cmp.Compare(counts[q], counts[p]), cmp.Compare(key(p), key(q)))
	})
	pal := make(color.Palette, min(len(cols), 256))
	for i := range pal {
		pal[i] = cols[i]
	}
	out := image.NewPaletted(b, pal)
	index := map[color.RGBA]uint8{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := rgba(x, y)
			i, ok := index[c]
			if !ok {
				i = uint8(pal.Index(c))
				index[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
