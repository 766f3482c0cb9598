package primitive

import (
	"context"

	"github.com/sweatpants-go/sweatpants/figure"
)

// ShowAPI shows the user a figure — a table or a chart — in the chat, in
// place, as its own item. Its core records the figure in a turn, so that
// the conversation keeps it and a resumed turn does not show it twice.
var ShowAPI = NewAPI[figure.Figure, struct{}]("show")

// Show shows f to the user: the page draws a chart and lays out a table,
// the terminal prints them as text. A figure that fails f.Check is not
// shown; the error (a *figure.Error) says what is wrong with it.
func Show(ctx context.Context, f figure.Figure) error {
	if err := f.Check(); err != nil {
		return err
	}
	_, err := ShowAPI.Call(ctx, f)
	return err
}
