package attach_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/backend/apperr"
	"github.com/sweatpants-go/sweatpants/backend/attach"
	"github.com/sweatpants-go/sweatpants/backend/llm"
)

func TestFillReadsImagesForTheCallAlone(t *testing.T) {
	fs := newFiles(t)
	fs.add("i1", "a.png", "image/png", "PNGDATA")
	fs.add("i2", "b.jpg", "image/jpeg", "JPEGDATA")
	recorded := []llm.Message{
		{Role: llm.System, Content: "Be brief."},
		{Role: llm.User, Content: "Look", Images: []llm.Image{{Type: "image/png", File: "i1"}, {Type: "image/jpeg", File: "i2"}}},
	}
	req := llm.Request{Messages: recorded}
	if err := attach.Fill(context.Background(), &req, fs.Open, 100); err != nil {
		t.Fatal(err)
	}
	got := req.Messages[1].Images
	if string(got[0].Data) != "PNGDATA" || string(got[1].Data) != "JPEGDATA" {
		t.Errorf("data = %q, %q; want the files' bytes", got[0].Data, got[1].Data)
	}
	if recorded[1].Images[0].Data != nil || recorded[1].Images[1].Data != nil {
		t.Error("Fill wrote the bytes into the messages it was given, which a record shares")
	}
}

func TestFillRefusesAnImageOverTheLimit(t *testing.T) {
	fs := newFiles(t)
	fs.add("big", "big.png", "image/png", strings.Repeat("x", 2049))
	req := llm.Request{Messages: []llm.Message{{Role: llm.User, Images: []llm.Image{{Type: "image/png", File: "big"}}}}}
	err := attach.Fill(context.Background(), &req, fs.Open, 2048)
	if apperr.CodeOf(err) != apperr.TooLarge {
		t.Fatalf("err = %v, want a TooLarge error", err)
	}
	if want := "An attached image is larger than 2.0 KB, the most a model is sent; attach a smaller one."; apperr.MessageOf(err) != want {
		t.Errorf("message = %q, want %q", apperr.MessageOf(err), want)
	}
}
