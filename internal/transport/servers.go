package transport

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/sweatpants-go/sweatpants/internal/web/templates"
)

// serversPage answers GET /settings/servers: the outside MCP servers the
// assistants may use, each with its state and its tools, to read.
func (s *Server) serversPage(c echo.Context) error {
	var servers []templates.MCPServer
	if s.mcpServers != nil {
		servers = s.mcpServers()
	}
	return render(c, http.StatusOK, templates.ServersPage(servers))
}
