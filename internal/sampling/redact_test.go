package sampling_test

import (
	"context"
	"testing"

	"github.com/sweatpants-go/sweatpants/internal/sampling"
	"github.com/sweatpants-go/sweatpants/llm"
	"github.com/sweatpants-go/sweatpants/middleware"
	"github.com/sweatpants-go/sweatpants/turn"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		// E-mail addresses.
		{"an address", "Write to jane.doe+trips@example.co.uk today.", "Write to [email] today."},
		{"an address with digits", "it is j4155552671@mail.example.com", "it is [email]"},
		{"an address at the end of a sentence", "Mail bob@example.org.", "Mail [email]."},
		{"a handle is not an address", "ping @jane on the channel", "ping @jane on the channel"},
		{"a local address is not one", "log in as root@localhost", "log in as root@localhost"},

		// Phone numbers.
		{"international", "Call +44 20 7946 0958 now", "Call [phone] now"},
		{"international with a trunk zero", "or +44 (0)20 7946 0958.", "or [phone]."},
		{"international, unspaced", "WhatsApp +4930123456789", "WhatsApp [phone]"},
		{"international with an area code in brackets", "+1 (415) 555-2671", "[phone]"},
		{"North American with brackets", "office: (415) 555-2671", "office: [phone]"},
		{"North American with dashes", "415-555-2671 or 415.555.2671", "[phone] or [phone]"},
		{"North American with a country code", "dial 1 415 555 2671", "dial [phone]"},
		{"British national", "ring 020 7946 0958 or 07700 900123", "ring [phone] or [phone]"},
		{"German national", "Tel. 030/12345678", "Tel. [phone]"},
		{"French national", "au 01 23 45 67 89 !", "au [phone] !"},
		{"a bare run after a phone word", "my mobile is 4155552671.", "my mobile is [phone]."},
		{"French, international", "+33 1 23 45 67 89", "[phone]"},
		{"a count after a number is not part of it", "call 415 555 2671 2 times", "call [phone] 2 times"},

		// Payment cards.
		{"a card in groups of four", "card 4111 1111 1111 1111 please", "card [card] please"},
		{"a card with dashes", "5500-0000-0000-0004", "[card]"},
		{"a card unspaced", "amex 378282246310005", "amex [card]"},
		{"a card followed by its expiry year", "4111 1111 1111 1111 2027", "[card] 2027"},
		{"a long number failing Luhn is not a card", "order 4111 1111 1111 1112", "order 4111 1111 1111 1112"},
		{"twenty digits are not a card", "ref 41111111111111111111", "ref 41111111111111111111"},

		// What must survive.
		{"dates", "from 2024-05-12 to 12/05/2024, or 12.05.2024", "from 2024-05-12 to 12/05/2024, or 12.05.2024"},
		{"a date and a time", "on 01-05-2024 10:30", "on 01-05-2024 10:30"},
		{"prices", "It costs $1,234.56, €1.234.567,89 or 1 250 000 kr.", "It costs $1,234.56, €1.234.567,89 or 1 250 000 kr."},
		{"flight numbers", "flights LH 1234, BA0117 and UA 901", "flights LH 1234, BA0117 and UA 901"},
		{"years", "in 1999, 2000 and 2001; 1990-2024", "in 1999, 2000 and 2001; 1990-2024"},
		{"a list of years", "seasons 2019 2020 2021 2022", "seasons 2019 2020 2021 2022"},
		{"an ISBN", "ISBN 978-3-16-148410-0", "ISBN 978-3-16-148410-0"},
		{"a postcode and a street number", "10115 Berlin, Invalidenstraße 117", "10115 Berlin, Invalidenstraße 117"},
		{"a decimal", "pi is 3.14159265358979323846", "pi is 3.14159265358979323846"},
		{"a small signed number", "up +12.5% on +1 234 567", "up +12.5% on +1 234 567"},
		{"a call at a time", "call at 10:30 on 2024-05-12", "call at 10:30 on 2024-05-12"},
		{"an order number", "order no. 123456789", "order no. 123456789"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sampling.Redact(tc.in); got != tc.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

// Redaction runs on every message the model is sent, tool results
// included, and on side questions of inner scopes, without changing the
// caller's request.
func TestRedactPIIThroughThePipeline(t *testing.T) {
	m := replying("ok")
	ctx := sampling.RedactPII(m.provide(t.Context()))
	req := llm.Request{Messages: []llm.Message{
		{Role: llm.System, Content: "The user is jane@example.com."},
		{Role: llm.User, Content: "Book it on card 4111-1111-1111-1111, call me on +44 20 7946 0958."},
		{Role: llm.Assistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "lookup", Arguments: `{"q":"jane"}`}}},
		{Role: llm.Tool, ToolCallID: "c1", Content: `{"phone":"(415) 555-2671","flight":"LH 1234"}`},
	}}
	if _, err := turn.Sample(ctx, req); err != nil {
		t.Fatal(err)
	}
	got := m.requests[0].Messages
	want := []string{
		"The user is [email].",
		"Book it on card [card], call me on [phone].",
		"",
		`{"phone":"[phone]","flight":"LH 1234"}`,
	}
	for i, w := range want {
		if got[i].Content != w {
			t.Errorf("message %d: got %q, want %q", i, got[i].Content, w)
		}
	}
	if got[2].ToolCalls[0].Arguments != `{"q":"jane"}` || got[3].ToolCallID != "c1" {
		t.Errorf("tool calls changed: %+v", got[2:])
	}
	if req.Messages[1].Content != "Book it on card 4111-1111-1111-1111, call me on +44 20 7946 0958." {
		t.Errorf("the caller's request was changed: %q", req.Messages[1].Content)
	}

	// An inner scope's side question, with its own input middleware.
	inner := middleware.SampleInput.Around(ctx, func(next middleware.Handler[middleware.Prompt, middleware.Prompt]) middleware.Handler[middleware.Prompt, middleware.Prompt] {
		return func(ctx context.Context, p middleware.Prompt) (middleware.Prompt, error) {
			p.Request.Messages = append(p.Request.Messages, llm.Message{Role: llm.System, Content: "Answer briefly."})
			return next(ctx, p)
		}
	}, middleware.Max)
	if _, err := turn.Sample(inner, asked("Is bob@example.org on 020 7946 0958 free?")); err != nil {
		t.Fatal(err)
	}
	if got, want := m.requests[1].Messages[0].Content, "Is [email] on [phone] free?"; got != want {
		t.Errorf("side question: got %q, want %q", got, want)
	}
}
