package loadgen

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadAnswer(t *testing.T) {
	const next = "HTTP/1.1 204 No Content\r\n\r\n" // read after each case's answer: the body must be consumed exactly
	for _, tc := range []struct {
		name, in string
		head     bool
		want     answer
		err      bool
	}{
		{"length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok", false, answer{status: 200}, false},
		{"no reason phrase", "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", false, answer{status: 200}, false},
		{"reason header", "HTTP/1.1 429 Too Many Requests\r\ngoodput-reject-reason:  limit \r\nContent-Length: 0\r\n\r\n", false, answer{status: 429, reason: "limit"}, false},
		{"chunked with trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n3;x=y\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n", false, answer{status: 200}, false},
		{"head", "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", true, answer{status: 200}, false},
		{"no content", "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", false, answer{status: 204}, false},
		{"interim", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx", false, answer{status: 201}, false},
		{"close", "HTTP/1.1 503 Service Unavailable\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n", false, answer{status: 503, close: true}, false},
		{"http/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false, answer{status: 200, close: true}, false},
		{"http/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n", false, answer{status: 200}, false},
		{"bare LF", "HTTP/1.1 200 OK\nContent-Length: 1\n\nx", false, answer{status: 200}, false},
		{"not http", "SSH-2.0-OpenSSH\r\n\r\n", false, answer{}, true},
		{"bad status", "HTTP/1.1 2x0 OK\r\n\r\n", false, answer{}, true},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false, answer{}, true},
		{"two lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", false, answer{}, true},
		{"no colon", "HTTP/1.1 200 OK\r\nContent-Length 1\r\n\r\n", false, answer{}, true},
		{"long line", "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 5000) + "\r\n\r\n", false, answer{}, true},
		{"many headers", "HTTP/1.1 200 OK\r\n" + strings.Repeat("X: y\r\n", 200) + "\r\n", false, answer{}, true},
		{"short body", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nok", false, answer{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tc.in+next), 4096)
			got, err := readAnswer(br, tc.head)
			if tc.err {
				if err == nil {
					t.Fatalf("readAnswer = %+v; want an error", got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("readAnswer = %+v, %v; want %+v", got, err, tc.want)
			}
			if after, err := readAnswer(br, false); err != nil || after.status != 204 {
				t.Errorf("the next answer: %+v, %v; want the 204 after the body", after, err)
			}
		})
	}
	// An answer delimited by the end of the connection.
	br := bufio.NewReader(strings.NewReader("HTTP/1.1 200 OK\r\n\r\nall of this"))
	if got, err := readAnswer(br, false); err != nil || got != (answer{status: 200, close: true}) {
		t.Errorf("close-delimited: %+v, %v", got, err)
	}
	if _, err := readAnswer(bufio.NewReader(strings.NewReader("")), false); !errors.Is(err, io.EOF) {
		t.Errorf("empty connection: %v; want io.EOF (a stale keep-alive)", err)
	}
}

// FuzzReadAnswer checks that no input makes readAnswer panic or read past the input.
func FuzzReadAnswer(f *testing.F) {
	f.Add("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false)
	f.Add("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", false)
	f.Add("HTTP/1.0 100 Continue\r\n\r\nHTTP/1.0 429 x\r\nGoodput-Reject-Reason: limit\r\n\r\n", true)
	f.Fuzz(func(t *testing.T, in string, head bool) {
		_, _ = readAnswer(bufio.NewReaderSize(strings.NewReader(in), 4096), head)
	})
}
