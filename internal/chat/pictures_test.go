package chat_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"sync"
	"testing"

	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/internal/chat"
	"github.com/sweatpants-go/sweatpants/internal/files"
	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/pageview"
	"github.com/sweatpants-go/sweatpants/internal/registry"
	"github.com/sweatpants-go/sweatpants/internal/store/storetest"
	"github.com/sweatpants-go/sweatpants/internal/tree"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/turn"
)

// pictureSeer is a model that notes the pictures each call is given.
type pictureSeer struct {
	mu    sync.Mutex
	calls [][]llm.Image
}

func (m *pictureSeer) Name() string { return "seer" }

func (m *pictureSeer) Complete(_ context.Context, req llm.Request, _ func(string)) (llm.Response, error) {
	var seen []llm.Image
	for _, msg := range req.Messages {
		seen = append(seen, msg.Images...)
	}
	m.mu.Lock()
	m.calls = append(m.calls, seen)
	m.mu.Unlock()
	return llm.Response{Content: "Seen."}, nil
}

// A picture is given to the model at the size the provider takes, made
// once: the next turn's call is given the same bytes, read from what the
// store kept, and the store keeps them once for the file.
func TestAPictureIsScaledOnceForEveryLaterCall(t *testing.T) {
	db := storetest.Open(t)
	fs := files.New(db, files.Options{})
	looker := agents.Assistant{Name: "looker", Description: "Shows the model the conversation.",
		Turn: func(ctx context.Context, _ string) (string, error) {
			msgs, err := turn.History(ctx)
			if err != nil {
				return "", err
			}
			resp, err := turn.Sample(ctx, llm.Request{Messages: msgs})
			return resp.Content, err
		}}
	model := &pictureSeer{}
	svc := chat.New(chat.Config{Store: db, Files: fs, Assistants: registry.New(looker), Model: model})
	t.Cleanup(svc.Close)
	ctx := t.Context()

	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 2100, 30))); err != nil {
		t.Fatal(err)
	}
	f, err := fs.Put(ctx, "me", "wide.png", "", &buf, files.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	conv, err := svc.Create(ctx, "me", "looker")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SendMessage(ctx, "me", conv.ID, inbound.Message{Text: "look", Attachments: []tree.Attachment{files.Attachment(f)}}); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv.ID, "the first reply", func(v pageview.View) bool { return len(v.Items) == 2 && lastItem(v).Text == "Seen." })
	if err := svc.Send(ctx, "me", conv.ID, "and now?"); err != nil {
		t.Fatal(err)
	}
	waitView(t, svc, "me", conv.ID, "the second reply", func(v pageview.View) bool { return len(v.Items) == 4 && lastItem(v).Text == "Seen." })

	model.mu.Lock()
	defer model.mu.Unlock()
	if len(model.calls) != 2 || len(model.calls[0]) != 1 || len(model.calls[1]) != 1 {
		t.Fatalf("calls given pictures %v, want one picture in each of two calls", model.calls)
	}
	first, second := model.calls[0][0], model.calls[1][0]
	cfg, _, err := image.DecodeConfig(bytes.NewReader(first.Data))
	if err != nil || cfg.Width != 2048 || cfg.Height != 29 {
		t.Errorf("the picture was given at %dx%d (%v), want 2048x29", cfg.Width, cfg.Height, err)
	}
	if !bytes.Equal(first.Data, second.Data) {
		t.Error("the second call was given other bytes than the first")
	}
	kept, ok, err := fs.Derived(ctx, "me", f.ID, "model-picture-2048x768")
	if err != nil || !ok || !bytes.Equal(kept, first.Data) {
		t.Errorf("the store keeps %d bytes (%v, %v) of the scaled picture, want what the model was given", len(kept), ok, err)
	}
	if first.Type != "image/jpeg" {
		t.Errorf("an opaque picture given as %s, want image/jpeg", first.Type)
	}
}
