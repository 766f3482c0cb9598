package term

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/kindset"
	"github.com/sweatpants-go/sweatpants/terminal"
)

// typedCase is a question asked at the terminal: the request, and whether
// its prompter checks everything the request does, so that the server never
// refuses what it answers (a location's bounds and a choice's own answer
// are left to the server, which refuses with a message and asks again).
type typedCase struct {
	name    string
	req     elicit.Request
	checked bool
}

func typedCases(t *testing.T) []typedCase {
	noOther := request(t, elicit.Choose, elicit.ChoiceInput{Options: []string{"red", "green"}})
	noOther.Actions = []elicit.Action{elicit.Accept, elicit.Cancel}
	return []typedCase{
		{"form", request(t, elicit.Form[profile](), struct{}{}), true},
		{"confirm", request(t, elicit.Confirm, elicit.ConfirmInput{Yes: "Delete them", No: "Keep them"}), true},
		{"choice", request(t, elicit.Choose, elicit.ChoiceInput{Options: []string{"red", "green", "blue"}, Else: "Another colour"}), false},
		{"choice without other", noOther, true},
		{"location", request(t, elicit.LocateDevice, elicit.LocationInput{Accuracy: "high"}), false},
		{"clipboard read", request(t, elicit.ReadClipboard, elicit.ClipboardReadInput{Purpose: "to fill in"}), true},
		{"clipboard write", request(t, elicit.WriteClipboard, elicit.ClipboardWriteInput{Text: "SWEAT-1"}), true},
		{"json", request(t, elicit.NewKind[struct{}, []string]("test-list", "A list"), struct{}{}), false},
		{"file where none are kept", request(t, elicit.AskFile, elicit.FileInput{Accept: []string{".csv"}}), false},
	}
}

// FuzzTypedAnswers types any lines at every built-in prompter: each line
// is taken as an answer the request allows, or asked again after a message
// saying why; the prompter ends with an answer, or when the input does,
// never with an error of its own.
func FuzzTypedAnswers(f *testing.F) {
	for _, seed := range []string{
		"", "\n", "\r\n", "\x00", "y", "n", "Y\r", "keep them", "maybe\ny",
		"/d", "/c", "/r", "/o", "/o  ", "/o later, maybe", "/o\x00", "/?", "/h\n/c", "/x\n/d", "/d now", "//", "/",
		"1", "0", "4\n\nteal", "9\n1", "-1", "99999999999999999999", "Blue", "red,green",
		"52.37,4.89", "52.37", "NaN,0", "0,NaN", "Inf,-Inf", "1e400,0", "91,181", " 52.37 , 4.89 ", "0x1p-2,1_0", ",",
		"Ann\n30\n\n\n\nn", "Bo\n41\n1.8\n3\n1, music\nyes", "\nCy\n200\nold\n5\n9\nNaN\n\n2\n-\nmaybe\ny",
		"Di\n1\nInf\n7\nvegan\n1,2,9\n,,\n2\nn", "Eve\n1e2\n2.0\n-0\n\n\n\n\ty",
		"Zoë 🚀\u202e\n130\n2.8\nVEGAN\nart,art\non", strings.Repeat("x", 200) + "\n1",
		`["a","b"]`, "[1", `{"a":` + strings.Repeat("[", 300), "null", "\ufeff[]",
		strings.Repeat("é", 600) + "\n" + strings.Repeat("/o ", 100),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, typed string) {
		for _, c := range typedCases(t) {
			out := &strings.Builder{}
			sc, asked, since := bufio.NewScanner(strings.NewReader(typed)), "", 0
			q := terminal.NewQuestion(c.req, lineFunc(func(label string) (string, error) {
				if label == asked && strings.TrimSpace(out.String()[since:]) == "" {
					t.Fatalf("%s: %q asked again without a word why, typing %q:\n%s", c.name, label, typed, out)
				}
				defer func() { asked, since = label, out.Len() }()
				fmt.Fprint(out, label)
				if !sc.Scan() {
					return "", cmp.Or(sc.Err(), io.EOF)
				}
				fmt.Fprintln(out, sc.Text())
				return sc.Text(), nil
			}), out)
			resp, err := terminal.Answer(Builtin().For(c.req), q)
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrTooLong) {
					t.Fatalf("%s: typing %q failed the prompter: %v", c.name, typed, err)
				}
				continue // the input ended before an answer
			}
			answeredWell(t, c, resp, typed)
		}
	})
}

// answeredWell checks an answer a prompter returned: an action the request
// allows, words for other, and content the server takes where the prompter
// checks it.
func answeredWell(t *testing.T, c typedCase, resp elicit.Response, typed string) {
	t.Helper()
	if !c.req.Allows(resp.Action) {
		t.Fatalf("%s: typing %q answered %q, which the request does not allow", c.name, typed, resp.Action)
	}
	switch resp.Action {
	case elicit.Other:
		if strings.TrimSpace(resp.Text) == "" {
			t.Fatalf("%s: typing %q answered other with no words", c.name, typed)
		}
	case elicit.Accept:
		if !json.Valid(resp.Content) {
			t.Fatalf("%s: typing %q answered %q, which is not JSON", c.name, typed, resp.Content)
		}
		if err := kindset.New(elicit.BuiltinKinds()...).Check(c.req, resp); c.checked && err != nil {
			t.Fatalf("%s: typing %q answered %s, which the server refuses: %v", c.name, typed, resp.Content, err)
		}
	}
}

// lineFunc reads a question's lines by calling itself, as the chat
// command's terminal reads them.
type lineFunc func(label string) (string, error)

func (f lineFunc) ReadLine(label string) (string, error) { return f(label) }

// Read is never called: the question reads through ReadLine.
func (f lineFunc) Read([]byte) (int, error) { return 0, io.EOF }
