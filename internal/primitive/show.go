package primitive

import (
	"github.com/sweatpants-go/sweatpants/figure"
	"github.com/sweatpants-go/sweatpants/middleware"
)

// ShowAPI shows the user a figure — a table or a chart — in the chat, in
// place, as its own item (turn.Show). Its core records the figure in a
// turn, so that the conversation keeps it and a resumed turn does not show
// it twice.
var ShowAPI = middleware.NewAPI[figure.Figure, struct{}]("show")
