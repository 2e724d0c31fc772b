package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http/httputil"
	"strconv"

	"github.com/goodput-lab/goodput/control/controlhttp"
)

// Limits on an answer's head, so that a target cannot grow the generator's memory.
const (
	maxHeaderLines = 128
	maxInterim     = 8 // 1xx answers before the final one
)

var errMalformed = errors.New("malformed answer")

// answer is what the generator keeps of an HTTP answer.
type answer struct {
	status int
	reason string // the Goodput-Reject-Reason header
	close  bool   // the server closes the connection after it
}

// readAnswer reads one HTTP/1.x answer from br to the end of its body, which it discards.
// It reads the status, the reason header and what the connection's reuse needs
// (Content-Length, Transfer-Encoding: chunked, Connection), without the allocations of
// a parsed header; head says the request was a HEAD (no body follows). A line longer
// than br's buffer is an error.
func readAnswer(br *bufio.Reader, head bool) (answer, error) {
	for range maxInterim {
		a, length, chunked, err := readHead(br)
		if err != nil {
			return a, err
		}
		if a.status >= 100 && a.status < 200 && a.status != 101 {
			continue // an interim answer (100 Continue, 103 Early Hints): the final one follows
		}
		switch {
		case head || a.status == 204 || a.status == 304 || a.status == 101:
		case chunked:
			if _, err := io.Copy(io.Discard, httputil.NewChunkedReader(br)); err != nil {
				return a, err
			}
			if err := skipTrailer(br); err != nil {
				return a, err
			}
		case length >= 0:
			if _, err := br.Discard(int(length)); err != nil {
				return a, err
			}
		default: // delimited by the end of the connection
			if _, err := io.Copy(io.Discard, br); err != nil {
				return a, err
			}
			a.close = true
		}
		return a, nil
	}
	return answer{}, fmt.Errorf("%w: more than %d interim answers", errMalformed, maxInterim)
}

// readHead reads a status line and header fields. length is -1 when absent.
func readHead(br *bufio.Reader) (a answer, length int64, chunked bool, err error) {
	line, err := readLine(br)
	if err != nil {
		return a, 0, false, err
	}
	// HTTP/1.1 200 OK
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' || (len(line) > 12 && line[12] != ' ') {
		return a, 0, false, fmt.Errorf("%w: status line %q", errMalformed, trim(line))
	}
	http10 := line[7] == '0'
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return a, 0, false, fmt.Errorf("%w: status line %q", errMalformed, trim(line))
		}
		a.status = a.status*10 + int(c-'0')
	}
	a.close = http10
	length = -1
	for n := 0; ; n++ {
		if n == maxHeaderLines {
			return a, 0, false, fmt.Errorf("%w: more than %d header lines", errMalformed, maxHeaderLines)
		}
		line, err := readLine(br)
		if err != nil {
			return a, 0, false, err
		}
		if len(line) == 0 {
			return a, length, chunked, nil
		}
		k, v, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return a, 0, false, fmt.Errorf("%w: header line %q", errMalformed, trim(line))
		}
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			l, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil || l < 0 || (length >= 0 && l != length) {
				return a, 0, false, fmt.Errorf("%w: Content-Length %q", errMalformed, trim(v))
			}
			length = l
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.HasSuffix(bytes.ToLower(v), []byte("chunked"))
		case bytes.EqualFold(k, []byte("Connection")):
			for tok := range bytes.SplitSeq(v, []byte(",")) {
				switch tok = bytes.TrimSpace(tok); {
				case bytes.EqualFold(tok, []byte("close")):
					a.close = true
				case bytes.EqualFold(tok, []byte("keep-alive")) && http10:
					a.close = false
				}
			}
		case bytes.EqualFold(k, []byte(controlhttp.ReasonHeader)):
			a.reason = string(v[:min(len(v), maxReasonLen)])
		}
	}
}

// readLine reads one line without its CR LF; the slice is valid until the next read.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return nil, fmt.Errorf("%w: a line longer than %d bytes", errMalformed, br.Size())
	}
	if err != nil {
		return nil, err
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, nil
}

// skipTrailer reads the trailer fields after a chunked body, to the empty line.
func skipTrailer(br *bufio.Reader) error {
	for range maxHeaderLines {
		line, err := readLine(br)
		if err != nil || len(line) == 0 {
			return err
		}
	}
	return fmt.Errorf("%w: more than %d trailer lines", errMalformed, maxHeaderLines)
}

func trim(b []byte) string { return string(b[:min(len(b), 64)]) }
