package input_test

import (
	"fmt"

	"github.com/slotd/slotd/actors/model/input"
)

// A request body is parsed once, read member by member, and closed with
// Done; every problem ends up in errs, in the order found.
func ExampleParseObject() {
	body := []byte(`{"customer": {"email": "not-an-address", "firstName": ""}, "notes": null, "colour": "red"}`)

	var errs input.Errors
	o, ok := input.ParseObject(body, &errs)
	if ok {
		c, _ := o.Object("customer", input.Required)
		c.Email("email", input.Required)
		c.String("firstName", input.Required, 200)
		c.Done()
		o.NullableString("notes", 2000)
		o.UUID("serviceId", input.Required)
		o.Done()
	}
	for _, f := range errs.List() {
		fmt.Printf("%s %s: %s\n", f.Path, f.Reason, f.Message)
	}
	// Output:
	// customer.email invalid_email: Must be a valid e-mail address.
	// customer.firstName required: Must not be empty.
	// serviceId required: Is required.
	// colour unknown_field: Is not an accepted field.
}
