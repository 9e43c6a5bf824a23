package deliver

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// ErrInvalidURL is wrapped by every error CheckURL returns.
var ErrInvalidURL = errors.New("invalid webhook URL")

// CheckURL applies the registration-time rule for an endpoint URL (api-v1
// §2.6): absolute, https, port 443 (explicit ":443" or none), a host, and
// no user:password@. With allowInsecure (--webhooks-allow-insecure) http is
// accepted too, on any port.
//
// CheckURL looks at the text only. Where the host leads is judged at every
// attempt, on the resolved address, by the Client's guard: a URL naming a
// private address passes CheckURL and is refused when it is dialled.
func CheckURL(raw string, allowInsecure bool) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return invalid("not a valid URL")
	case !u.IsAbs() || u.Opaque != "":
		return invalid("must be an absolute URL")
	case u.Scheme != "https" && !(allowInsecure && u.Scheme == "http"):
		if allowInsecure {
			return invalid("scheme must be https or http")
		}
		return invalid("scheme must be https")
	case u.User != nil:
		return invalid("must not contain user credentials")
	case u.Hostname() == "":
		return invalid("must name a host")
	}
	return checkPort(u, allowInsecure)
}

func checkPort(u *url.URL, allowInsecure bool) error {
	port := u.Port()
	switch {
	case port == "" && strings.HasSuffix(u.Host, ":"):
		return invalid("port is empty")
	case port == "":
		return nil
	case !allowInsecure:
		if port != "443" {
			return invalid("port must be 443")
		}
		return nil
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
		return invalid("port must be a number from 1 to 65535")
	}
	return nil
}

func invalid(why string) error { return fmt.Errorf("%w: %s", ErrInvalidURL, why) }
