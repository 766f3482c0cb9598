package mcpclient_test

func conformanceClient(scenario, url string) int { return 2 }
