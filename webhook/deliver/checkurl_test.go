package deliver

import (
	"errors"
	"testing"
)

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url      string
		secure   string // error from CheckURL(url, false), "" for none
		insecure string // error from CheckURL(url, true)
	}{
		{"https://hooks.example.com/slotd", "", ""},
		{"https://hooks.example.com", "", ""},
		{"https://hooks.example.com:443/slotd?token=abc", "", ""},
		{"HTTPS://Hooks.Example.com/x", "", ""},
		{"https://[2001:db8::1]/x", "", ""},
		{"https://[2001:db8::1]:443/x", "", ""},
		{"https://10.0.0.1/x", "", ""}, // refused when dialled, not here
		{"https://hooks.example.com:8443/x", "port must be 443", ""},
		{"https://hooks.example.com:80/x", "port must be 443", ""},
		{"https://hooks.example.com:0443/x", "port must be 443", "port must be a number from 1 to 65535"},
		{"https://hooks.example.com:/x", "port is empty", "port is empty"},
		{"http://hooks.example.com/x", "scheme must be https", ""},
		{"http://127.0.0.1:8080/x", "scheme must be https", ""},
		{"http://localhost:65535/x", "scheme must be https", ""},
		{"http://localhost:65536/x", "scheme must be https", "port must be a number from 1 to 65535"},
		{"http://localhost:0/x", "scheme must be https", "port must be a number from 1 to 65535"},
		{"ftp://hooks.example.com/x", "scheme must be https", "scheme must be https or http"},
		{"hooks.example.com/x", "must be an absolute URL", "must be an absolute URL"},
		{"/slotd", "must be an absolute URL", "must be an absolute URL"},
		{"", "must be an absolute URL", "must be an absolute URL"},
		{"https:hooks.example.com", "must be an absolute URL", "must be an absolute URL"},
		{"https:///x", "must name a host", "must name a host"},
		{"https://:443/x", "must name a host", "must name a host"},
		{"https://user:pw@hooks.example.com/x", "must not contain user credentials", "must not contain user credentials"},
		{"https://user@hooks.example.com/x", "must not contain user credentials", "must not contain user credentials"},
		{"https://hooks example.com/x", "not a valid URL", "not a valid URL"},
		{"https://[::1/x", "not a valid URL", "not a valid URL"},
		{"https://hooks.example.com:x/", "not a valid URL", "not a valid URL"},
		{"https://hooks.example.com/\x00", "not a valid URL", "not a valid URL"},
	}
	for _, tt := range tests {
		for _, c := range []struct {
			allowInsecure bool
			want          string
		}{{false, tt.secure}, {true, tt.insecure}} {
			err := CheckURL(tt.url, c.allowInsecure)
			if c.want == "" {
				if err != nil {
					t.Errorf("CheckURL(%q, %v) = %v, want nil", tt.url, c.allowInsecure, err)
				}
				continue
			}
			if !errors.Is(err, ErrInvalidURL) || err.Error() != "invalid webhook URL: "+c.want {
				t.Errorf("CheckURL(%q, %v) = %v, want %q", tt.url, c.allowInsecure, err, c.want)
			}
		}
	}
}
