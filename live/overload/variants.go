package overload

import (
	"io"
	"net/http"
	"time"

	"github.com/goodput-lab/goodput/control/controlhttp"
)

// Reasons a checkout writes in [controlhttp.ReasonHeader] when its call failed.
const (
	ReasonDependency = "dependency"         // the dependency answered a status other than 2xx
	ReasonTimeout    = "dependency-timeout" // the call timed out or its caller left
)

// Answer writes the checkout's answer for its one dependency call: 200 when the call
// answered 2xx, else 502 (a status) or 504 (a timeout or a transport error) with a reason.
// It reads and closes resp's body.
func Answer(w http.ResponseWriter, resp *http.Response, err error) {
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			Refuse(w, http.StatusBadGateway, ReasonDependency)
			return
		}
	}
	if err != nil {
		Refuse(w, http.StatusGatewayTimeout, ReasonTimeout)
		return
	}
	w.Write([]byte("ok\n"))
}

// Refuse answers status with reason in [controlhttp.ReasonHeader] and as the body.
func Refuse(w http.ResponseWriter, status int, reason string) {
	w.Header().Set(controlhttp.ReasonHeader, reason)
	http.Error(w, reason, status)
}

// Naive is the checkout without controls: each call with a fixed 350 ms timeout, one
// immediate retry after any failure, no deadline or identity sent on, and the call
// independent of the caller (it goes on after the caller has left).
func Naive(dependency string, base http.RoundTripper) (http.Handler, error) {
	client := &http.Client{Transport: base, Timeout: 350 * time.Millisecond}
	call := func() (*http.Response, error) {
		req, err := http.NewRequest(http.MethodPost, dependency+"/score", nil)
		if err != nil {
			return nil, err
		}
		return client.Do(req)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := call()
		if err != nil || resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			resp, err = call()
		}
		Answer(w, resp, err)
	}), nil
}

// Goodput is the checkout with goodput's controls: README.md's "Controls in a Go service"
// wiring itself (newCheckout in wiring.go, which TestWiringIsReadme keeps identical to the
// README), calling the dependency's /score through base, the connections every variant
// shares.
func Goodput(dependency string, base http.RoundTripper) (http.Handler, error) {
	return newCheckout(dependency+"/score", base)
}
