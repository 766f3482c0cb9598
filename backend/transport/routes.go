package transport

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/web/static"
)

// routes lists every route of the app.
func (s *Server) routes() {
	e := s.echo
	e.GET("/healthz", s.health)
	e.GET("/static/*", echo.WrapHandler(http.StripPrefix("/static/", staticHandler(http.FS(static.Files)))))

	// No group with middleware here: echo gives such a group a catch-all
	// route, which would answer a wrong method 404 instead of 405.
	app := e
	app.GET("/", s.home)
	app.GET("/new", s.newConversationPage)
	app.POST("/c", s.createConversation)
	app.GET("/c/:id", s.conversationPage)
	app.GET("/c/:id/stream", s.stream)
	app.POST("/c/:id/messages", s.sendMessage)
	app.POST("/c/:id/elicits/:eid", s.answerElicit)
	app.POST("/c/:id/elicits/:eid/progress", s.elicitProgress)
	app.POST("/c/:id/stop", s.stopTurn)
	app.POST("/c/:id/messages/:node/edit", s.editMessage)
	app.POST("/c/:id/replies/:node/retry", s.retryReply)
	app.POST("/c/:id/nodes/:node/switch", s.switchBranch)
	app.POST("/c/:id/elicits/:eid/change", s.changeAnswer)
	app.GET("/c/:id/tree", s.inspectorPage)
	app.GET("/c/:id/tree/stream", s.inspectorStream)
	app.POST("/c/:id/reflog/:entry/recover", s.recover)
	app.POST("/c/:id/gc", s.collect)
}

func staticHandler(fsys http.FileSystem) http.Handler {
	h := http.FileServer(fsys)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		h.ServeHTTP(w, r)
	})
}

// health answers GET /healthz: 200 once the server serves.
func (s *Server) health(c echo.Context) error {
	return c.String(http.StatusOK, "ok")
}
