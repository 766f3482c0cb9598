package transport

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAPageListsANewConversationOfItsAccountLive: an open conversation
// page of an account is sent the list again when another browser of the
// account starts a conversation, and never one of another account's.
func TestAPageListsANewConversationOfItsAccountLive(t *testing.T) {
	a, p := newSigninApp(t, nil)
	ann := a.browser(t)
	ann.signIn(p, p.user1())
	first := ann.start("chat", "hello from the first browser")

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.srv.URL+"/c/"+first+"/stream", nil)
	res, err := ann.c.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("the page's stream: %v %v", res, err)
	}
	defer res.Body.Close()
	lines := make(chan string)
	go func() {
		defer close(lines)
		rd := bufio.NewReader(res.Body)
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			select {
			case lines <- line:
			case <-ctx.Done():
				return
			}
		}
	}()
	// The stream follows the session from before its answer's headers.
	bob := a.browser(t)
	bob.signIn(p, user2)
	bobs := bob.start("chat", "bob's own")
	other := a.browser(t)
	other.signIn(p, p.user1())
	second := other.start("chat", "hello from the second browser")
	for line := range lines {
		if strings.Contains(line, bobs) {
			t.Fatalf("ann's page was sent bob's conversation %s", bobs)
		}
		if strings.Contains(line, `id="conv-list"`) && strings.Contains(line, second) {
			if !strings.Contains(line, first) {
				t.Errorf("the list sent lacks the page's own conversation")
			}
			return
		}
	}
	t.Fatalf("ann's page was not sent the list with %s: %v", second, ctx.Err())
}
