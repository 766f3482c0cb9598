module example.com/notesplugin

go 1.26.8

require github.com/sweatpants-go/sweatpants v0.0.0

replace github.com/sweatpants-go/sweatpants => ../../..
