package transport

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/calls"
	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// The audit of tool calls: a page of the session's tool calls across its
// conversations, and the same list as JSON lines to download.

// The most tool calls the page shows, and the export holds.
const (
	toolsPageLimit   = 200
	toolsExportLimit = 100_000
)

// toolFilter reads the audit's filter from the query: tool, decision and
// outcome.
func toolFilter(c echo.Context) calls.ToolFilter {
	return calls.ToolFilter{Tool: c.QueryParam("tool"), Decision: c.QueryParam("decision"), Outcome: c.QueryParam("outcome")}
}

// toolsPage answers GET /tools (?tool=, ?decision=, ?outcome=): the tool
// calls of the session's conversations, newest first, each with who
// decided it and how it went. 400 for a decision or an outcome there is
// not.
func (s *Server) toolsPage(c echo.Context) error {
	l, err := s.calls.ToolCalls(c.Request().Context(), sessionOf(c), toolFilter(c), toolsPageLimit)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, templates.ToolsPage(l, toolsPageLimit))
}

// auditLine is one tool call of the export, as a line of JSON: when it
// began, where, which tool with which arguments (or the digest that
// stands for them), what was decided and by whom, how long it ran and how
// it went.
type auditLine struct {
	Time         time.Time       `json:"time"`
	Conversation string          `json:"conversation"`
	Node         int64           `json:"node"`
	Agent        string          `json:"agent"`
	Tool         string          `json:"tool"`
	Args         json.RawMessage `json:"args,omitempty"`
	Digest       string          `json:"digest,omitempty"`
	Decision     string          `json:"decision,omitempty"`
	DecidedBy    string          `json:"decided_by,omitempty"`
	Rule         string          `json:"rule,omitempty"`
	Approval     string          `json:"approval,omitempty"`
	Duration     int64           `json:"duration_us"`
	Outcome      string          `json:"outcome"`
	Error        string          `json:"error,omitempty"`
}

// toolsExport answers GET /tools.jsonl, with the query of /tools: the same
// calls, newest first, one JSON object a line, as a file to download.
func (s *Server) toolsExport(c echo.Context) error {
	l, err := s.calls.ToolCalls(c.Request().Context(), sessionOf(c), toolFilter(c), toolsExportLimit)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "application/jsonl; charset=utf-8")
	h.Set(echo.HeaderContentDisposition, `attachment; filename="tool-calls.jsonl"`)
	c.Response().WriteHeader(http.StatusOK)
	enc := json.NewEncoder(c.Response())
	for _, call := range l.Calls {
		r := call.Record
		line := auditLine{Time: call.At.UTC(), Conversation: call.Conversation.ID, Node: call.Node, Agent: r.Agent, Tool: r.Tool,
			Digest: r.Digest, Decision: r.Decision, DecidedBy: r.DecidedBy, Rule: r.Rule, Approval: r.Approval,
			Duration: r.Duration, Outcome: call.Outcome(), Error: r.Error}
		if r.Digest == "" && json.Valid(r.Input) {
			line.Args = r.Input
		}
		if err := enc.Encode(line); err != nil {
			return err // the browser went away
		}
	}
	return nil
}
