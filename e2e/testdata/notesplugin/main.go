// Command notesplugin is an application that uses a plugin written apart
// (package notes): its assistant, keeper, counts the notes with the
// plugin's tool. With NOTES_CLASH_ROUTE set it also uses a plugin that
// wants that route, which the program refuses before it serves.
// e2e/plugin_test.go builds and runs it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"

	"example.com/notesplugin/notes"
	"github.com/sweatpants-go/sweatpants/agents"
	"github.com/sweatpants-go/sweatpants/app"
	"github.com/sweatpants-go/sweatpants/plugin"
)

func main() {
	keeper := agents.Assistant{Name: "keeper", Description: "Counts your notes.",
		Turn: func(ctx context.Context, message string) (string, error) {
			tools, err := plugin.Tools("notes").Tools(ctx)
			if err != nil {
				return "", err
			}
			for _, t := range tools {
				if t.Info().Name != "count_notes" {
					continue
				}
				out, err := agents.CallJSON(ctx, t, json.RawMessage(`{}`))
				if err != nil {
					return "", err
				}
				var got struct{ Count int }
				if err := json.Unmarshal(out, &got); err != nil {
					return "", err
				}
				return fmt.Sprintf("You have %d notes.", got.Count), nil
			}
			return "", errors.New("the notes plugin offers no count_notes")
		}}
	plugins := []plugin.Plugin{notes.New()}
	if path := os.Getenv("NOTES_CLASH_ROUTE"); path != "" {
		plugins = append(plugins, plugin.New("clash", plugin.Parts{
			Routes: []plugin.Route{{Method: http.MethodGet, Path: path, Handler: http.NotFoundHandler()}},
		}))
	}
	app.Main(app.Config{Name: "notesplugin", Assistants: []agents.Assistant{keeper}, Plugins: plugins})
}
