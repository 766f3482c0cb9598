package elicit

// Registered is a kind a registry of kinds can hold: any *Kind. The
// server holds the application's kinds (app.Config.Kinds) with the
// built-in ones, and checks every answer by the rules of its request's
// kind.
type Registered interface {
	// KindName is the kind's name, which its requests carry.
	KindName() string
	// Verify checks resp against req as Request.Check does, then, for
	// accepted content, against the kind's rule (Kind.Check).
	Verify(req Request, resp Response) error
}

// BuiltinKinds lists the built-in kinds besides forms, which the server
// holds whatever an application adds.
func BuiltinKinds() []Registered {
	return []Registered{Confirm, Choose, LocateDevice, ReadClipboard, WriteClipboard, AskFile, Approve, Wait}
}

// verify checks resp against req, then accepted content against rule.
func verify(req Request, resp Response, rule contentCheck) error {
	if err := req.Check(resp); err != nil {
		return err
	}
	if resp.Action == Accept && rule != nil {
		if errs := rule(req.Input, resp.Content); len(errs) > 0 {
			return errs
		}
	}
	return nil
}
