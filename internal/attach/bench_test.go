package attach_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/attach"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
)

// BenchmarkPicturesOverThreeTurns is a conversation that sends two 15 MB
// photographs a turn for three turns, each turn's model call given every
// picture so far: what the call is given (sent-MB) and what its pictures
// cost to prepare (alloc-MB: reading their sizes, scaling the new ones,
// reading the older ones' scaled copies), turn by turn. Both stay about
// the same from turn to turn, where giving the originals grew them by
// 30 MB of bytes (40 MB as base64) a turn.
func BenchmarkPicturesOverThreeTurns(b *testing.B) {
	photo := string(pngOf(b, 2240, 2240, true)) // noise: 15 MB as PNG
	b.Logf("each picture is %s", attach.Size(int64(len(photo))))
	b.ResetTimer()
	for range b.N {
		fs := newFiles(b)
		c := &cache{}
		p := attach.NewPictures(0)
		var msgs []llm.Message
		var alloc [3]float64
		for turn := range 3 {
			var atts []tree.Attachment
			for i := range 2 {
				id := fmt.Sprintf("t%dp%d", turn, i)
				atts = append(atts, fs.add(id, id+".png", "image/png", photo))
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			m, err := attach.Message(context.Background(), llm.Message{Role: llm.User, Content: "And these?"}, atts, fs.Open, attach.DefaultBudget)
			if err != nil {
				b.Fatal(err)
			}
			msgs = append(msgs, m)
			req := llm.Request{Messages: msgs}
			if err := p.Fill(context.Background(), &req, fs.Open, c); err != nil {
				b.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			sent := 0
			for _, m := range req.Messages {
				for _, img := range m.Images {
					sent += len(img.Data)
				}
			}
			alloc[turn] = float64(after.TotalAlloc-before.TotalAlloc) / 1e6
			b.ReportMetric(float64(sent)/1e6, fmt.Sprintf("sent-MB/turn%d", turn+1))
			b.ReportMetric(alloc[turn], fmt.Sprintf("alloc-MB/turn%d", turn+1))
			if limit := 6 * 1e6; float64(sent) > limit {
				b.Errorf("turn %d sends %.1f MB of pictures, over %.0f MB", turn+1, float64(sent)/1e6, limit/1e6)
			}
		}
		if alloc[2] > 1.5*alloc[0] {
			b.Errorf("turn 3 allocated %.0f MB for its pictures, turn 1 %.0f MB: the cost grows with the conversation", alloc[2], alloc[0])
		}
	}
}
