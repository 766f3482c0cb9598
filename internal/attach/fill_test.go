package attach_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/attach"
	"github.com/sweatpants-go/sweatpants/llm"
)

// pngOf is a PNG picture of w by h pixels: noisy, so that it compresses
// no better than a photograph, or in flat bands.
func pngOf(t testing.TB, w, h int, noisy bool) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	seed := uint32(w*31 + h)
	for i := 0; i < len(img.Pix); i += 4 {
		if noisy {
			seed = seed*1664525 + 1013904223 // a linear congruential generator: the same picture each run
			img.Pix[i], img.Pix[i+1], img.Pix[i+2] = byte(seed>>24), byte(seed>>16), byte(seed>>8)
		} else {
			img.Pix[i], img.Pix[i+1], img.Pix[i+2] = byte(i/4/w), 120, 200
		}
		img.Pix[i+3] = 255
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bomb is a small PNG whose header claims w by h pixels.
func bomb(t testing.TB, w, h uint32) []byte {
	data := pngOf(t, 8, 8, false)
	ihdr := data[8+8 : 8+8+13] // after the signature and the chunk's length and type
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	binary.BigEndian.PutUint32(data[8+8+13:], crc32.ChecksumIEEE(data[8+4:8+8+13]))
	return data
}

// cache is an attach.Cache in memory that counts what it was asked.
type cache struct {
	mu         sync.Mutex
	kept       map[string][]byte
	hits, puts int
}

func (c *cache) Derived(_ context.Context, id, name string) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	data, ok := c.kept[id+"/"+name]
	if ok {
		c.hits++
	}
	return data, ok, nil
}

func (c *cache) KeepDerived(_ context.Context, id, name string, data []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kept == nil {
		c.kept = map[string][]byte{}
	}
	c.kept[id+"/"+name] = data
	c.puts++
	return nil
}

// decoded reads the picture given to the model.
func decoded(t *testing.T, img llm.Image) image.Config {
	t.Helper()
	cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatalf("the picture given does not read: %v", err)
	}
	if "image/"+format != img.Type {
		t.Errorf("picture of format %s given as %s", format, img.Type)
	}
	return cfg
}

func TestScaledSizeIsWhatTheProviderTakes(t *testing.T) {
	for _, c := range []struct {
		name         string
		w, h         int
		wantW, wantH int
	}{
		{"a photograph, landscape", 4000, 3000, 1024, 768},
		{"a photograph, portrait", 3000, 4000, 768, 1024},
		{"a panorama: the long side bounds it", 8000, 1000, 2048, 256},
		{"a square", 3000, 3000, 768, 768},
		{"small enough already", 640, 480, 640, 480},
		{"never enlarged", 10, 20, 10, 20},
		{"no size", 0, 0, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, h := attach.ScaledSize(c.w, c.h)
			if w != c.wantW || h != c.wantH {
				t.Errorf("ScaledSize(%d, %d) = %d, %d; want %d, %d", c.w, c.h, w, h, c.wantW, c.wantH)
			}
		})
	}
}

func TestFillGivesPicturesScaledForTheCallAlone(t *testing.T) {
	fs := newFiles(t)
	fs.add("big", "a.png", "image/png", string(pngOf(t, 2100, 10, false)))
	small := pngOf(t, 100, 50, false)
	fs.add("small", "b.png", "image/png", string(small))
	recorded := []llm.Message{
		{Role: llm.System, Content: "Be brief."},
		{Role: llm.User, Content: "Look", Images: []llm.Image{{Type: "image/png", File: "big"}, {Type: "image/png", File: "small"}}},
	}
	req := llm.Request{Messages: recorded}
	if err := attach.NewPictures(0).Fill(context.Background(), &req, fs.Open, nil); err != nil {
		t.Fatal(err)
	}
	got := req.Messages[1].Images
	if len(got) != 2 {
		t.Fatalf("%d pictures given, want 2", len(got))
	}
	if cfg := decoded(t, got[0]); cfg.Width != 2048 || cfg.Height != 10 || got[0].Type != "image/jpeg" {
		t.Errorf("the large picture given as %s of %dx%d, want a JPEG of 2048x10", got[0].Type, cfg.Width, cfg.Height)
	}
	if got[0].Width != 2048 || got[0].Height != 10 {
		t.Errorf("the large picture counted as %dx%d, want 2048x10", got[0].Width, got[0].Height)
	}
	if !bytes.Equal(got[1].Data, small) {
		t.Error("a small PNG within the size was not given as it is")
	}
	if recorded[1].Images[0].Data != nil || recorded[1].Images[1].Data != nil {
		t.Error("Fill wrote the bytes into the messages it was given, which a record shares")
	}
}

func TestFillScalesAPictureOnceAndReadsItFromTheCache(t *testing.T) {
	fs := newFiles(t)
	fs.add("big", "a.png", "image/png", string(pngOf(t, 2100, 10, false)))
	c := &cache{}
	p := attach.NewPictures(0)
	var first []byte
	for call := range 3 {
		req := llm.Request{Messages: []llm.Message{{Role: llm.User, Images: []llm.Image{{Type: "image/png", File: "big"}}}}}
		fs.opened = nil
		if err := p.Fill(context.Background(), &req, fs.Open, c); err != nil {
			t.Fatal(err)
		}
		data := req.Messages[0].Images[0].Data
		if call == 0 {
			first = data
			continue
		}
		if !bytes.Equal(data, first) {
			t.Errorf("call %d was given other bytes than the first", call)
		}
		if len(fs.opened) > 1 {
			t.Errorf("call %d opened the original %d times: it was decoded again", call, len(fs.opened))
		}
	}
	if c.puts != 1 || c.hits != 2 {
		t.Errorf("cache: %d kept, %d read; want 1 kept, 2 read", c.puts, c.hits)
	}
}

func TestFillLeavesOutAPictureTooLargeToDecode(t *testing.T) {
	fs := newFiles(t)
	fs.add("bomb", "huge.png", "image/png", string(bomb(t, 100_000, 100_000)))
	fs.add("junk", "junk.png", "image/png", "\x89PNG\r\n\x1a\n not a picture")
	req := llm.Request{Messages: []llm.Message{{Role: llm.User, Content: "Look",
		Images: []llm.Image{{Type: "image/png", File: "bomb", Name: "huge.png"}, {Type: "image/png", File: "junk", Name: "junk.png"}}}}}
	if err := attach.NewPictures(0).Fill(context.Background(), &req, fs.Open, nil); err != nil {
		t.Fatal(err)
	}
	m := req.Messages[0]
	if len(m.Images) != 0 {
		t.Errorf("%d pictures given, want none", len(m.Images))
	}
	for _, want := range []string{
		"(The image huge.png is left out: it is 100000 by 100000 pixels, more than the 40 million a picture may have to be read.)",
		"(The image junk.png is left out: it could not be read as a picture.)",
	} {
		if !strings.Contains(m.Content, want) {
			t.Errorf("content %q does not say %q", m.Content, want)
		}
	}
}

func TestFillKeepsPicturesWithinTheBudgetNewestFirst(t *testing.T) {
	fs := newFiles(t)
	pic := string(pngOf(t, 512, 512, false)) // 255 tokens as sent
	var msgs []llm.Message
	for i, name := range []string{"one.png", "two.png", "three.png"} {
		fs.add(name, name, "image/png", pic)
		msgs = append(msgs, llm.Message{Role: llm.User, Content: "turn " + string(rune('1'+i)),
			Images: []llm.Image{{Type: "image/png", File: name, Name: name}}})
	}
	req := llm.Request{Messages: msgs}
	if err := attach.NewPictures(2*255).Fill(context.Background(), &req, fs.Open, nil); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{0, 1, 1} {
		if got := len(req.Messages[i].Images); got != want {
			t.Errorf("message %d given %d pictures, want %d", i, got, want)
		}
	}
	if want := "turn 1\n\n(The image one.png is left out: the context has no room for more pictures.)"; req.Messages[0].Content != want {
		t.Errorf("the oldest message reads %q, want %q", req.Messages[0].Content, want)
	}
	if req.Messages[2].Content != "turn 3" {
		t.Errorf("the newest message reads %q, want it as it was", req.Messages[2].Content)
	}
}

// withOrientation is data, a JPEG, with Exif saying to turn it as o says.
func withOrientation(data []byte, o uint16) []byte {
	tiff := []byte{'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, byte(o >> 8), byte(o), 0, 0, 0, 0, 0, 0, 0, 0}
	seg := append([]byte("Exif\x00\x00"), tiff...)
	app1 := append([]byte{0xFF, 0xE1, byte((len(seg) + 2) >> 8), byte(len(seg) + 2)}, seg...)
	return append(append(slices.Clone(data[:2]), app1...), data[2:]...)
}

// A photograph a camera stored on its side, with Exif saying to turn it,
// reaches the model upright: encoded again, it keeps no Exif to say so.
func TestFillTurnsAPhotographUpright(t *testing.T) {
	// Stored 2100 by 10, red on the left and blue on the right; upright,
	// turned a quarter clockwise, it is 10 by 2100 with red at the top.
	img := image.NewRGBA(image.Rect(0, 0, 2100, 10))
	for y := range 10 {
		for x := range 2100 {
			c := color.RGBA{R: 255, A: 255}
			if x >= 1050 {
				c = color.RGBA{B: 255, A: 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	fs := newFiles(t)
	fs.add("photo", "photo.jpg", "image/jpeg", string(withOrientation(buf.Bytes(), 6)))
	req := llm.Request{Messages: []llm.Message{{Role: llm.User, Images: []llm.Image{{Type: "image/jpeg", File: "photo"}}}}}
	if err := attach.NewPictures(0).Fill(context.Background(), &req, fs.Open, nil); err != nil {
		t.Fatal(err)
	}
	got, err := jpeg.Decode(bytes.NewReader(req.Messages[0].Images[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	if b := got.Bounds(); b.Dx() != 10 || b.Dy() != 2048 {
		t.Fatalf("given %dx%d, want 10x2048: upright", b.Dx(), b.Dy())
	}
	top, bottom := got.At(5, 100).(color.YCbCr), got.At(5, 1948).(color.YCbCr)
	if r, _, b := color.YCbCrToRGB(top.Y, top.Cb, top.Cr); r < 200 || b > 80 {
		t.Errorf("the top is %d red, %d blue; want red", r, b)
	}
	if r, _, b := color.YCbCrToRGB(bottom.Y, bottom.Cb, bottom.Cr); b < 200 || r > 80 {
		t.Errorf("the bottom is %d red, %d blue; want blue", r, b)
	}
}
