package demo

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/sweatpants-go/sweatpants/elicit"
	"github.com/sweatpants-go/sweatpants/internal/bytesize"
	"github.com/sweatpants-go/sweatpants/turn"
)

// fileQuestion is what the showcase takes when it asks for a file: text
// it can read, or a picture.
var fileQuestion = elicit.FileInput{
	Accept:  []string{"text/csv", "text/plain", "text/markdown", "application/json", ".md", "image/*"},
	MaxSize: 5 << 20,
	Reason:  "to tell you what is in it",
}

// showFile asks for a file and says what is in it, read with
// turn.OpenFile: its lines, a spreadsheet's columns, a picture's size;
// and how the upload went, as the browser reported it.
func showFile(ctx context.Context, _ noInput) (string, error) {
	var (
		mu     sync.Mutex // progress arrives on the reporting request's goroutine
		stages []string
	)
	res, err := turn.AskWithProgress(ctx, elicit.AskFile, "Which file shall I look at?", fileQuestion,
		func(p elicit.Progress) {
			mu.Lock()
			defer mu.Unlock()
			if len(stages) == 0 || stages[len(stages)-1] != p.Stage {
				stages = append(stages, p.Stage)
			}
		})
	if err != nil {
		return "", err
	}
	if res.Action != elicit.Accept {
		return outcome(res.Action, "I looked at no file."), nil
	}
	f := res.Content
	what, err := describeFile(ctx, f)
	if err != nil {
		return "", err
	}
	mu.Lock()
	defer mu.Unlock()
	steps := ""
	if len(stages) > 0 {
		steps = " The upload went: " + strings.Join(stages, " → ") + "."
	}
	return fmt.Sprintf("You gave me %s (%s, %s): %s.%s", f.Name, f.Type, bytesize.Words(f.Size), what, steps), nil
}

// describeFile says what is in f: a picture is a picture; text is so many
// lines, and a spreadsheet's first row names its columns.
func describeFile(ctx context.Context, f elicit.File) (string, error) {
	if strings.HasPrefix(f.Type, "image/") {
		return "a picture", nil
	}
	rc, err := turn.OpenFile(ctx, f.ID)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	br := bufio.NewReader(rc)
	if strings.HasPrefix(f.Type, "text/csv") {
		header, err := csv.NewReader(br).Read()
		if err != nil && err != io.EOF {
			return "a spreadsheet I could not read (" + err.Error() + ")", nil
		}
		return fmt.Sprintf("a spreadsheet whose columns are %s", strings.Join(header, ", ")), nil
	}
	lines := 0
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			continue // a long line, counted once at its end
		}
		if err == io.EOF {
			if len(line) > 0 {
				lines++ // the last line, without a line end
			}
			break
		}
		if err != nil {
			return "", err
		}
		lines++
	}
	return fmt.Sprintf("%d lines of text", lines), nil
}
