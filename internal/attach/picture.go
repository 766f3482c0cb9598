package attach

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	_ "image/gif" // the picture types files takes (files.Inline)
	"image/jpeg"
	"image/png"
	"io"
	"math"

	_ "golang.org/x/image/webp" // the fourth: OpenAI takes it
)

// Pictures as a model is sent them. A provider scales a picture to its
// own size before it reads it (OpenAI's detail: within 2048 by 2048, then
// the shortest side to 768), so sending a 15 MB photograph whole, in
// every call of every later turn, costs memory and bandwidth for pixels
// the provider throws away. A picture is scaled once to that size,
// kept beside its file (Cache) and read from there by later calls.

// The size a picture is sent at, at most: OpenAI's in detail.
const (
	MaxLongSide  = 2048
	MaxShortSide = 768
)

// MaxPixels is the largest picture that is decoded, in pixels: a
// picture's header says its size before any of it is decoded, and a
// larger one is left out rather than decoded (a few kilobytes can claim a
// picture of a hundred thousand pixels a side, which decoded would take
// gigabytes). 40 million pixels is a photograph of 8000 by 5000.
const MaxPixels = 40_000_000

// keepAsIs is the most bytes of a picture already within the size that is
// sent as it is, rather than encoded again.
const keepAsIs = 2 << 20

// derivedName names the scaled copy of a picture in a Cache: what was
// made and with which settings, so that other settings make another.
var derivedName = fmt.Sprintf("model-picture-%dx%d", MaxLongSide, MaxShortSide)

// ScaledSize is the size a picture of width by height pixels is sent at:
// within MaxLongSide on its longest side and MaxShortSide on its shortest,
// its proportions kept, never enlarged.
func ScaledSize(width, height int) (int, int) {
	if width <= 0 || height <= 0 {
		return 0, 0
	}
	long, short := float64(max(width, height)), float64(min(width, height))
	f := math.Min(1, MaxLongSide/long)
	f = math.Min(f, MaxShortSide/short)
	return max(1, int(math.Round(float64(width)*f))), max(1, int(math.Round(float64(height)*f)))
}

// Cache keeps what is made of a file for a model, by file id and a name
// saying what was made: the chat gives one that keeps it in the store
// beside the file (files.Store.Derived), for every node and turn.
type Cache interface {
	// Derived returns what was kept under name for file id; ok is false
	// when nothing was.
	Derived(ctx context.Context, id, name string) (data []byte, ok bool, err error)
	// KeepDerived keeps data under name for file id.
	KeepDerived(ctx context.Context, id, name string, data []byte) error
}

// unreadable is a picture that is not given to a model, and why, in words
// that finish "The image x is left out: ".
type unreadable struct{ why string }

func (u *unreadable) Error() string { return u.why }

// pictureSize reads the size of picture id from its header alone, and
// returns the size it is sent at.
func pictureSize(ctx context.Context, open Opener, id string) (width, height int, err error) {
	cfg, err := decodeConfig(ctx, open, id)
	if err != nil {
		return 0, 0, err
	}
	w, h := ScaledSize(cfg.Width, cfg.Height)
	return w, h, nil
}

// decodeConfig reads picture id's header: its size and format. A picture
// that is not one of the types decoded, or claims more than MaxPixels, is
// *unreadable.
func decodeConfig(ctx context.Context, open Opener, id string) (image.Config, error) {
	rc, err := open(ctx, id)
	if err != nil {
		return image.Config{}, fmt.Errorf("open image %s: %w", id, err)
	}
	defer rc.Close()
	cfg, _, err := image.DecodeConfig(bufio.NewReader(rc))
	if err != nil {
		return image.Config{}, &unreadable{"it could not be read as a picture"}
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return image.Config{}, &unreadable{fmt.Sprintf("it is %d by %d pixels, more than the %d million a picture may have to be read",
			cfg.Width, cfg.Height, MaxPixels/1_000_000)}
	}
	return cfg, nil
}

// scalePicture returns picture id as a model is sent it: as it is when it
// is within the size sent, small and of a type every provider takes;
// otherwise decoded (its size checked first), scaled within
// ScaledSize and encoded again, as JPEG, or PNG when it has
// transparency, and turned upright as a photograph's Exif says. An
// animated GIF gives its first frame.
func scalePicture(ctx context.Context, open Opener, id string) ([]byte, error) {
	cfg, err := decodeConfig(ctx, open, id)
	if err != nil {
		return nil, err
	}
	rc, err := open(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("open image %s: %w", id, err)
	}
	defer rc.Close()
	w, h := ScaledSize(cfg.Width, cfg.Height)
	if w == cfg.Width && h == cfg.Height {
		head := make([]byte, keepAsIs+1)
		n, err := io.ReadFull(rc, head)
		if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
			return nil, fmt.Errorf("read image %s: %w", id, err)
		}
		if n <= keepAsIs && takenAsIs(head[:n]) {
			return head[:n], nil
		}
		rc.Close()
		if rc, err = open(ctx, id); err != nil {
			return nil, fmt.Errorf("open image %s: %w", id, err)
		}
		defer rc.Close()
	}
	br := bufio.NewReaderSize(rc, exifHead)
	head, _ := br.Peek(exifHead) // what there is of it: a short file is all head
	src, _, err := image.Decode(br)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &unreadable{"it could not be read as a picture"}
	}
	return encodeScaled(src, w, h, jpegOrientation(head))
}

// takenAsIs reports whether a picture's bytes are of a type every
// provider takes as they are. A GIF is not: it may be animated, which
// OpenAI refuses.
func takenAsIs(data []byte) bool {
	switch pictureType(data) {
	case "image/png", "image/jpeg", "image/webp":
		return true
	}
	return false
}

// pictureType is the type of the picture data holds, by its first bytes:
// the four types pictures are given as, or "" for none of them. (Package
// attach links no HTTP, so it reads the signatures itself.)
func pictureType(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// encodeScaled scales src to w by h, turns it upright as Exif orientation
// o says, and encodes it: as JPEG, or as PNG when it has transparency.
func encodeScaled(src image.Image, w, h, o int) ([]byte, error) {
	dst := orient(scaleDown(src, w, h), o)
	var buf bytes.Buffer
	var err error
	if dst.Opaque() {
		err = jpeg.Encode(&buf, dst, &jpeg.Options{Quality: 85})
	} else {
		err = png.Encode(&buf, dst)
	}
	if err != nil {
		return nil, fmt.Errorf("encode scaled picture: %w", err)
	}
	return buf.Bytes(), nil
}

// scaleDown returns src at w by h pixels, no larger than it is: each pixel
// the average of the source pixels it covers (a box filter, which leaves
// fine detail neither aliased nor ringing). It reads src a row at a time
// into one row of premultiplied colour, so that besides the picture it
// makes, it holds a row of the source and a row of sums, whatever the
// source's size: a filter that keeps a whole pass of the picture would
// take more memory than the decoded picture itself.
func scaleDown(src image.Image, w, h int) *image.RGBA {
	sb := src.Bounds()
	sw, sh := sb.Dx(), sb.Dy()
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	row := image.NewRGBA(image.Rect(0, 0, sw, 1))
	sums := make([]uint64, 4*w)
	cols := make([]uint64, w) // source pixels that fall in each column
	colOf := make([]int, sw)
	for x := range sw {
		colOf[x] = x * w / sw
		cols[colOf[x]]++
	}
	rows := uint64(0)
	for y := range sh {
		draw.Draw(row, row.Rect, src, image.Pt(sb.Min.X, sb.Min.Y+y), draw.Src)
		for x := range sw {
			p, s := row.Pix[4*x:4*x+4:4*x+4], sums[4*colOf[x]:4*colOf[x]+4:4*colOf[x]+4]
			s[0] += uint64(p[0])
			s[1] += uint64(p[1])
			s[2] += uint64(p[2])
			s[3] += uint64(p[3])
		}
		rows++
		dy := y * h / sh
		if y+1 < sh && (y+1)*h/sh == dy {
			continue
		}
		out := dst.Pix[dy*dst.Stride:]
		for dx := range w {
			n := cols[dx] * rows
			for c := range 4 {
				out[4*dx+c] = uint8((sums[4*dx+c] + n/2) / max(n, 1))
			}
		}
		clear(sums)
		rows = 0
	}
	return dst
}
