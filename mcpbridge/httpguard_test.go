package mcpbridge

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHTTPGuard pins the guard's answers: a foreign Origin is refused with 403
// before anything else, a missing or wrong bearer token gets 401 with
// WWW-Authenticate: Bearer, and the right token (with no Origin, a loopback one, the
// bind host's or a listed one) reaches the handler.
func TestHTTPGuard(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "served") })
	h := HTTPGuard(ok, &HTTPGuardOptions{Token: "s3cret", BindHost: "10.0.0.5", AllowedOrigins: []string{"https://App.example.com/"}})
	for _, tc := range []struct {
		name          string
		origin, auth  string
		status        int
		body, wwwAuth string
	}{
		{"no token", "", "", 401, "Unauthorized: a valid bearer token is required\n", "Bearer"},
		{"wrong token", "", "Bearer s3cre", 401, "Unauthorized: a valid bearer token is required\n", "Bearer"},
		{"longer token", "", "Bearer s3cret2", 401, "Unauthorized: a valid bearer token is required\n", "Bearer"},
		{"other scheme", "", "Basic s3cret", 401, "Unauthorized: a valid bearer token is required\n", "Bearer"},
		{"empty bearer", "", "Bearer ", 401, "Unauthorized: a valid bearer token is required\n", "Bearer"},
		{"right token", "", "Bearer s3cret", 200, "served", ""},
		{"scheme case", "", "bearer s3cret", 200, "served", ""},
		{"foreign origin", "https://evil.example", "Bearer s3cret", 403, "Forbidden: origin \"https://evil.example\" is not allowed\n", ""},
		{"foreign origin first", "http://evil.example:8080", "", 403, "Forbidden: origin \"http://evil.example:8080\" is not allowed\n", ""},
		{"rebinding name", "http://attacker.localhost.evil", "Bearer s3cret", 403, "Forbidden: origin \"http://attacker.localhost.evil\" is not allowed\n", ""},
		{"null origin", "null", "Bearer s3cret", 403, "Forbidden: origin \"null\" is not allowed\n", ""},
		{"file origin", "file://", "Bearer s3cret", 403, "Forbidden: origin \"file://\" is not allowed\n", ""},
		{"localhost", "http://localhost:3000", "Bearer s3cret", 200, "served", ""},
		{"loopback v4", "http://127.0.0.2", "Bearer s3cret", 200, "served", ""},
		{"loopback v6", "http://[::1]:9", "Bearer s3cret", 200, "served", ""},
		{"bind host", "https://10.0.0.5:8443", "Bearer s3cret", 200, "served", ""},
		{"listed", "https://app.example.com", "Bearer s3cret", 200, "served", ""},
		{"listed other port", "https://app.example.com:444", "Bearer s3cret", 403, "Forbidden: origin \"https://app.example.com:444\" is not allowed\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/", strings.NewReader("{}"))
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status || rec.Body.String() != tc.body || rec.Header().Get("WWW-Authenticate") != tc.wwwAuth {
				t.Errorf("got %d %q (WWW-Authenticate %q), want %d %q (%q)", rec.Code, rec.Body, rec.Header().Get("WWW-Authenticate"), tc.status, tc.body, tc.wwwAuth)
			}
		})
	}
}

// TestHTTPGuardDefaults: without options, any request without Origin passes, a
// loopback Origin passes, others are refused; an unspecified bind host allows no
// extra host; "*" allows every origin.
func TestHTTPGuardDefaults(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	for _, tc := range []struct {
		name   string
		opts   *HTTPGuardOptions
		origin string
		status int
	}{
		{"nil, no origin", nil, "", 200},
		{"nil, loopback", nil, "http://127.0.0.1:5173", 200},
		{"nil, foreign", nil, "http://example.com", 403},
		{"unspecified bind", &HTTPGuardOptions{BindHost: "0.0.0.0"}, "http://0.0.0.0", 403},
		{"unspecified v6 bind", &HTTPGuardOptions{BindHost: "[::]"}, "http://[::]", 403},
		{"any", &HTTPGuardOptions{AllowedOrigins: []string{"*"}}, "http://example.com", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/", nil)
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			rec := httptest.NewRecorder()
			HTTPGuard(ok, tc.opts).ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Errorf("status %d, want %d", rec.Code, tc.status)
			}
		})
	}
}
