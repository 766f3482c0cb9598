package templates

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// A shared page shows a reply as the conversation page does, its markdown
// drawn and anything else it holds escaped; a message stays as typed.
func TestASharedReplyIsDrawnAsMarkdownAndEscaped(t *testing.T) {
	v := SharedBranch{Title: "Trips", At: time.Date(2030, 1, 2, 3, 4, 0, 0, time.UTC), Items: []SharedItem{
		{ID: 1, Kind: "message", Text: "**not bold** <b>typed</b>"},
		{ID: 2, Kind: "reply", Text: "**Bergen** it is <script>alert(1)</script>"},
	}}
	var buf bytes.Buffer
	if err := SharedPage(v).Render(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if !strings.Contains(page, "<strong>Bergen</strong>") {
		t.Errorf("the reply's markdown is not drawn:\n%s", page)
	}
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<b>typed</b>") {
		t.Errorf("markup from the conversation reached the page unescaped:\n%s", page)
	}
	if !strings.Contains(page, "**not bold** &lt;b&gt;typed&lt;/b&gt;") {
		t.Errorf("the message is not shown as typed:\n%s", page)
	}
}
