package transport

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/web/static"
)

// routes lists every route of the app.
func (s *Server) routes(datastar []byte, mods modules) {
	e := s.echo
	e.GET("/healthz", s.health)
	e.GET("/readyz", s.ready)
	if datastar != nil {
		e.GET("/static/datastar.js", echo.WrapHandler(static.Datastar{JS: datastar}.Handler(http.NotFoundHandler())))
	}
	e.GET("/static/*", echo.WrapHandler(http.StripPrefix("/static/", staticHandler(http.FS(static.Files)))))
	e.GET("/app/:name", mods.serve)

	// No group with middleware here: echo gives such a group a catch-all
	// route, which would answer a wrong method 404 instead of 405. Each
	// route takes its own middleware instead: a body read is bounded
	// (limitBody), and a command on a conversation says on its pages how
	// it went (command).
	cmd := []echo.MiddlewareFunc{s.limitBody, s.command}
	e.GET("/", s.home)
	e.GET("/new", s.newConversationPage)
	e.POST("/c", s.createConversation, s.limitBody)
	e.GET("/c/:id", s.conversationPage)
	e.GET("/c/:id/stream", s.stream)
	e.GET("/c/:id/events", s.events)
	e.GET("/c/:id/ws", s.webSocket)
	e.POST("/agui", s.aguiRun, s.limitBody)
	e.POST("/c/:id/messages", s.sendMessage, cmd...)
	e.POST("/c/:id/elicits/:eid", s.answerElicit, cmd...)
	e.POST("/c/:id/elicits/:eid/progress", s.elicitProgress, cmd...)
	e.POST("/c/:id/methods", s.implementsMethods, cmd...)
	e.POST("/c/:id/stop", s.stopTurn, cmd...)
	e.POST("/c/:id/messages/:node/edit", s.editMessage, cmd...)
	e.POST("/c/:id/replies/:node/retry", s.retryReply, cmd...)
	e.POST("/c/:id/replies/:node/feedback", s.giveFeedback, cmd...)
	e.GET("/c/:id/feedback.json", s.feedbackExport)
	e.POST("/c/:id/nodes/:node/switch", s.switchBranch, cmd...)
	e.POST("/c/:id/nodes/:node/aside", s.askAside, cmd...)
	e.POST("/c/:id/nodes/:node/continue", s.continueHere, cmd...)
	e.POST("/c/:id/to-flow", s.backToFlow, cmd...)
	e.POST("/c/:id/elicits/:eid/change", s.changeAnswer, cmd...)
	e.GET("/c/:id/tree", s.inspectorPage)
	e.GET("/c/:id/tree/stream", s.inspectorStream)
	e.POST("/c/:id/reflog/:entry/recover", s.recoverEntry, cmd...)
	e.POST("/c/:id/gc", s.collect, cmd...)
	if s.schedules != nil {
		e.POST("/c/:id/schedules/:sid/cancel", s.cancelSchedule, cmd...)
	}
	if s.calls != nil {
		e.GET("/c/:id/debug", s.debugPage)
		e.GET("/c/:id/debug/stream", s.debugStream)
		e.GET("/debug", s.debugPage)
		e.GET("/debug/stream", s.debugStream)
		e.GET("/tools", s.toolsPage)
		e.GET("/tools.jsonl", s.toolsExport)
	}
	e.GET("/settings/permissions", s.permissionsPage)
	e.POST("/settings/permissions/:id/revoke", s.revokeAlways, s.limitBody)
	if s.mcpTokens != nil && s.signin.Accounts != nil {
		e.GET("/settings/tokens", s.mcpTokensPage)
		e.POST("/settings/tokens", s.makeMCPToken, s.limitBody)
		e.POST("/settings/tokens/:token/revoke", s.revokeMCPToken, s.limitBody)
	}
	if s.join != nil {
		e.GET("/join", s.joinPage)
		e.POST("/join", s.joinSession, s.limitBody)
	}
	if s.files != nil {
		// Not behind limitBody: an upload bounds its body by the limits
		// on files. The file's parameter is not :id, which the access log
		// takes for a conversation's.
		e.POST("/files", s.upload)
		e.GET("/files/:file", s.download)
	}
	if s.shares != nil {
		// A link's token is :token, never :id: the access log writes the
		// route's pattern and an :id as a conversation's, never a token.
		e.GET("/c/:id/shares", s.sharesPage)
		e.POST("/c/:id/shares", s.createShare, s.limitBody)
		e.POST("/c/:id/shares/:share/revoke", s.revokeShare, s.limitBody)
		e.GET("/c/:id/export.json", s.exportBranch)
		e.GET("/s/:token", s.sharedPage)
	}
	if s.signin.Looks != nil {
		e.GET("/operator/looks", s.operatorLooks)
		e.GET("/operator/looks.jsonl", s.operatorLooksExport)
	}
	if s.signin.Accounts != nil {
		// An operator's alone: 404 for anyone else (operatorOnly).
		s.operatorRoute(http.MethodGet, "/operator", s.operatorPage)
		s.operatorRoute(http.MethodPost, "/operator/accounts/:account/disable", s.disableAccount, s.limitBody)
		s.operatorRoute(http.MethodPost, "/operator/accounts/:account/enable", s.enableAccount, s.limitBody)
	}
	e.GET("/settings/servers", s.serversPage)
	e.GET("/conversations", s.searchConversations)
	e.POST("/c/:id/rename", s.renameConversation, s.limitBody)
	e.POST("/c/:id/delete", s.deleteConversation, s.limitBody)
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
