package demoapp

import (
	"context"
	"fmt"
	"time"

	"github.com/sweatpants-go/sweatpants/app"
	"github.com/sweatpants-go/sweatpants/examples/demo"
	"github.com/sweatpants-go/sweatpants/examples/flights/flightsdb"
	"github.com/sweatpants-go/sweatpants/plugin"
)

// catalogue is the flight catalogue as a plugin: its tables in the
// command's database (the demo's own: an application that is not the
// demo has none), stocked with the seed's flights, and the catalogue in
// every turn's scope, where the flight agent searches and books. It is
// written against package plugin alone, as any plugin of an author's own.
type catalogue struct {
	flights *flightsdb.Catalogue
}

func (c *catalogue) Name() string { return "catalogue" }

func (c *catalogue) Parts() plugin.Parts {
	return plugin.Parts{Start: c.start, Scope: c.scope}
}

// start makes the catalogue's tables if they are not there (flightsdb
// migrates them under its own name, "flights", as databases made before
// the plugin recorded them) and stocks them, except for check, which only
// reads: the catalogue a waiting turn booked from is there.
func (c *catalogue) start(ctx context.Context, env plugin.Env) error {
	cat, err := flightsdb.Open(ctx, env.DB, nil)
	if err != nil {
		return err
	}
	if env.Command != app.CheckCommand {
		if err := cat.Seed(ctx, time.Now()); err != nil {
			return fmt.Errorf("stock the flight catalogue: %w", err)
		}
	}
	c.flights = cat
	return nil
}

func (c *catalogue) scope(ctx context.Context) context.Context {
	return demo.Catalogue.With(ctx, c.flights)
}
