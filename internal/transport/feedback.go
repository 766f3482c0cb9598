package transport

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/inbound"
	"github.com/sweatpants-go/sweatpants/internal/tree"
)

// giveFeedback answers POST /c/:id/replies/:node/feedback with the form
// fields "rating" (up, down or none) and "comment" (optional): what the
// user thinks of that reply, recorded beside it (204). With "close" set,
// as the comment box sends it, the answer closes the box.
func (s *Server) giveFeedback(c echo.Context) error {
	node, err := nodeParam(c)
	if err != nil {
		return err
	}
	form, err := readForm(c.Request())
	if err != nil {
		return err
	}
	f := inbound.Feedback{Rating: tree.Rating(form.Get("rating")), Comment: form.Get("comment")}
	if _, err := s.chat.GiveFeedback(c.Request().Context(), sessionOf(c), c.Param("id"), node, f); err != nil {
		return err
	}
	if form.Get("close") == "" {
		return c.NoContent(http.StatusNoContent)
	}
	return newSSE(c).MarshalAndPatchSignals(map[string]any{"_feedback": 0})
}

// feedbackExport answers GET /c/:id/feedback.json: the feedback that
// counts on each rated reply of the session's own conversation, as JSON.
func (s *Server) feedbackExport(c echo.Context) error {
	given, err := s.chat.FeedbackOf(c.Request().Context(), sessionOf(c), c.Param("id"))
	if err != nil {
		return err
	}
	if given == nil {
		given = []tree.Given{}
	}
	return c.JSON(http.StatusOK, map[string]any{"conversation": c.Param("id"), "feedback": given})
}
