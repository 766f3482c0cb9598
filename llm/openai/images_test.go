package openai_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/llm/llmtest"
)

// TestImagesOnTheWire: a message with images is sent as parts, its text
// and each image as a data URL of its type and bytes.
func TestImagesOnTheWire(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("A cat."))
	msg := user("What is in these?")
	msg.Images = []llm.Image{
		{Type: "image/png", File: "f1", Data: []byte("\x89PNG\r\n")},
		{Type: "image/jpeg", File: "f2", Data: []byte{0xff, 0xd8, 0xff}},
	}
	req := llm.Request{Messages: []llm.Message{system("Be brief."), msg}}
	if _, err := newOpenAI(srv).Complete(context.Background(), req, nil); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := []llmtest.Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "What is in these?", Images: []string{"data:image/png;base64,iVBORw0K", "data:image/jpeg;base64,/9j/"}},
	}
	if got := srv.Requests()[0].Messages; !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// TestAMessageWithoutImagesIsSentAsBefore: a message without images keeps
// its content a string, so a recorded request is sent byte for byte as it
// was before images existed.
func TestAMessageWithoutImagesIsSentAsBefore(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("Hi."))
	req := llm.Request{Messages: []llm.Message{system("Be brief."), user("Hello")}}
	if _, err := newOpenAI(srv).Complete(context.Background(), req, nil); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := `{"model":"gpt-test","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hello"}],"stream":false}`
	if got := strings.TrimSpace(string(srv.Requests()[0].Body)); got != want {
		t.Errorf("body = %s\nwant   %s", got, want)
	}
}

// TestAnImageNotReadIsRefused: an image whose bytes were never read would
// go as an empty picture; the call is refused before it is sent.
func TestAnImageNotReadIsRefused(t *testing.T) {
	srv := llmtest.NewServer(t)
	msg := user("Look")
	msg.Images = []llm.Image{{Type: "image/png", File: "f1"}}
	_, err := newOpenAI(srv).Complete(context.Background(), llm.Request{Messages: []llm.Message{msg}}, nil)
	if err == nil || !strings.Contains(err.Error(), "the image f1 was not read before the call") {
		t.Errorf("err = %v, want the image named as not read", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}
