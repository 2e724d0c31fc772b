package faultproxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/goodput-lab/goodput/control/deadline"
	"github.com/goodput-lab/goodput/control/identity"
)

// BenchmarkProxy measures what the proxy adds to a call on loopback: "direct" calls the
// upstream, "proxy" the same through a Proxy with no fault (identity and deadline headers
// read, a slot taken and given back, the call forwarded by httputil.ReverseProxy),
// "proxy-lean" through a Proxy whose forwarder is the hand-written leanForwarder, "lean"
// through leanForwarder alone, with no fault logic; "logic" is the proxy's own work on a call
// without the network. Each reports
// µs/req, one call at a time (latency), and the /parallel variants calls from GOMAXPROCS
// goroutines (throughput).
func BenchmarkProxy(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	p, err := New(Config{Upstream: u})
	if err != nil {
		b.Fatal(err)
	}
	defer p.CloseIdleConnections()
	proxy := httptest.NewServer(p)
	defer proxy.Close()
	lt := &http.Transport{MaxIdleConnsPerHost: 1024}
	defer lt.CloseIdleConnections()
	lean := httptest.NewServer(leanForwarder(lt, u))
	defer lean.Close()
	pl, _ := New(Config{Upstream: u})
	pl.forward = leanForwarder(lt, u)
	proxyLean := httptest.NewServer(pl)
	defer proxyLean.Close()

	for _, tc := range []struct{ name, url string }{{"direct", up.URL}, {"proxy", proxy.URL}, {"proxy-lean", proxyLean.URL}, {"lean", lean.URL}} {
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1024}}
		call := func(i int) {
			req, _ := http.NewRequestWithContext(context.Background(), "GET", tc.url+"/x", nil)
			identity.Inject(req.Header, identity.First(identity.Key("k"+strconv.Itoa(i))))
			now := time.Now()
			deadline.Inject(req.Header, now.Add(time.Second), now)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		b.Run(tc.name, func(b *testing.B) {
			i := 0
			start := time.Now()
			for b.Loop() {
				call(i)
				i++
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/float64(i), "µs/req")
		})
		b.Run(tc.name+"/parallel", func(b *testing.B) {
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for i := 0; pb.Next(); i++ {
					call(i)
				}
			})
			b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "µs/req")
		})
		client.CloseIdleConnections()
	}

	// The fault logic alone, without the network: a call through a Proxy whose forwarder
	// answers at once, under a fault that draws a delay of zero cost (a ceiling to take,
	// an error rate to draw).
	b.Run("logic", func(b *testing.B) {
		p, _ := New(Config{Upstream: u, Schedule: Schedule{Base: Fault{Concurrency: 100, ErrorRate: 0.0001}}})
		p.forward = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
		req := httptest.NewRequest("GET", "/x", nil)
		identity.Inject(req.Header, identity.First("k"))
		now := time.Now()
		deadline.Inject(req.Header, now.Add(time.Hour), now)
		w := httptest.NewRecorder()
		start, n := time.Now(), 0
		for b.Loop() {
			p.ServeHTTP(w, req)
			n++
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/float64(n), "µs/req")
	})
}

// leanForwarder is the least a forwarder does: copy the request to the upstream, copy the
// answer back. It exists to measure httputil.ReverseProxy against.
func leanForwarder(tr http.RoundTripper, up *url.URL) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out := r.Clone(r.Context())
		out.URL.Scheme, out.URL.Host, out.Host, out.RequestURI = up.Scheme, up.Host, "", ""
		out.Header.Del("Connection")
		resp, err := tr.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	})
}
