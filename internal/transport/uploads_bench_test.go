package transport

import (
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/sweatpants-go/sweatpants/internal/files"
)

// uploadSize is the file BenchmarkUpload10MB sends.
const uploadSize = 10 << 20

// csvFile is a CSV file of size bytes, made as it is read so that the
// client holds none of it: rows numbered from the first, which names run
// (so that each run's file is new to the store, not a duplicate of the
// last one's).
type csvFile struct {
	run, left int
	row       int
	line      []byte
	at        int
}

func (c *csvFile) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && c.left > 0 {
		if c.at == len(c.line) {
			c.line = strconv.AppendInt(c.line[:0], int64(c.run), 10)
			c.line = append(c.line, ',')
			c.line = strconv.AppendInt(c.line, int64(c.row), 10)
			c.line = append(c.line, ",widget,3.50,in stock\n"...)
			c.row, c.at = c.row+1, 0
		}
		k := min(len(p)-n, len(c.line)-c.at, c.left)
		copy(p[n:], c.line[c.at:c.at+k])
		n, c.at, c.left = n+k, c.at+k, c.left-k
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// heapPeak samples the heap in use until stopped, and keeps the most seen.
type heapPeak struct {
	stop chan struct{}
	done sync.WaitGroup
	peak uint64
}

func watchHeap(every time.Duration) *heapPeak {
	h := &heapPeak{stop: make(chan struct{})}
	h.done.Add(1)
	go func() {
		defer h.done.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			h.peak = max(h.peak, m.HeapInuse)
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
	return h
}

// Stop ends the sampling and returns the peak.
func (h *heapPeak) Stop() uint64 {
	close(h.stop)
	h.done.Wait()
	return h.peak
}

// BenchmarkUpload10MB measures an upload of a 10 MB file to POST /files:
// the real handler over real HTTP on loopback, a real SQLite file. The
// client streams the form from a pipe as it makes it, so the memory
// measured is the server's: peak-heap-MB is the most the heap in use
// (runtime.MemStats.HeapInuse, sampled every millisecond) rose above the
// idle heap, after a collection, before each upload; MB/s is the
// throughput. The target is 2 MB above idle: the file streamed through,
// never held whole.
func BenchmarkUpload10MB(b *testing.B) {
	app := newFilesApp(b, files.Limits{MaxFile: 16 << 20, MaxMessage: 32 << 20})
	client := &http.Client{}
	b.SetBytes(uploadSize)
	var worst uint64
	run := 0
	for b.Loop() {
		b.StopTimer()
		run++
		pr, pw := io.Pipe()
		w := multipart.NewWriter(pw)
		go func() {
			fw, err := w.CreateFormFile("file", fmt.Sprintf("stock-%d.csv", run))
			if err == nil {
				_, err = io.Copy(fw, &csvFile{run: run, left: uploadSize})
			}
			if err == nil {
				err = w.Close()
			}
			pw.CloseWithError(err)
		}()
		req, _ := http.NewRequest(http.MethodPost, app.srv.URL+"/files", pr)
		req.Header.Set("Content-Type", w.FormDataContentType())
		runtime.GC()
		var idle runtime.MemStats
		runtime.ReadMemStats(&idle)
		heap := watchHeap(time.Millisecond)
		b.StartTimer()

		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()

		b.StopTimer()
		peak := heap.Stop()
		var got []uploaded
		if res.StatusCode != http.StatusOK || json.Unmarshal(body, &got) != nil || len(got) != 1 || got[0].Size != uploadSize {
			b.Fatalf("POST /files = %d %s, want the file recorded", res.StatusCode, body)
		}
		if peak > idle.HeapInuse {
			worst = max(worst, peak-idle.HeapInuse)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(worst)/(1<<20), "peak-heap-MB")
}
