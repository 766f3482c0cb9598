package transport

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"
)

// implementsMethods takes the methods a page's modules implement (package
// protocol), which the page posts as it loads: {"methods": ["name", ...]}.
// It is the page's doing, not the user's, so it leaves the notice as it
// was.
func (s *Server) implementsMethods(c echo.Context) error {
	leaveNotice(c)
	var in struct {
		Methods []string `json:"methods"`
	}
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return badBody(err)
	}
	if err := s.chat.Implements(c.Request().Context(), sessionOf(c), c.Param("id"), in.Methods); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
