package mcpbridge

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// HTTPGuardOptions configures [HTTPGuard]. The zero value checks origins only.
type HTTPGuardOptions struct {
	// Token, if not empty, is required on every request as "Authorization: Bearer
	// <Token>"; a request without it, or with another token, gets 401 with
	// "WWW-Authenticate: Bearer". Empty means no token is required.
	Token string
	// BindHost is the host the server listens on (HOST of HOST:PORT): an Origin
	// whose host is BindHost is allowed, as are loopback ones (localhost, 127.0.0.0/8,
	// ::1). Empty, or an unspecified address (0.0.0.0, ::), adds nothing.
	BindHost string
	// AllowedOrigins are further origins allowed, each scheme://host[:port] (compared
	// without regard to case); "*" allows every origin. Nil means none.
	AllowedOrigins []string
}

// HTTPGuard wraps an MCP HTTP handler with the checks a server reachable from a
// browser needs. A request with an Origin header whose origin is not allowed (see
// [HTTPGuardOptions]) gets 403: a web page the user visits cannot drive the server,
// even through DNS rebinding, whatever address it listens on. A request without
// Origin (not from a browser) passes that check. Then, with a token, a request
// must carry it (compared in constant time) or gets 401. opts may be nil.
func HTTPGuard(next http.Handler, opts *HTTPGuardOptions) http.Handler {
	var o HTTPGuardOptions
	if opts != nil {
		o = *opts
	}
	allowed := map[string]bool{}
	anyOrigin := false
	for _, a := range o.AllowedOrigins {
		if a == "*" {
			anyOrigin = true
		}
		allowed[strings.ToLower(strings.TrimSuffix(a, "/"))] = true
	}
	bind := strings.ToLower(strings.Trim(o.BindHost, "[]"))
	if ip := net.ParseIP(bind); ip != nil && ip.IsUnspecified() {
		bind = ""
	}
	var want [sha256.Size]byte
	if o.Token != "" {
		want = sha256.Sum256([]byte(o.Token))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origins, ok := r.Header["Origin"]; ok && !anyOrigin {
			for _, origin := range origins {
				if !originAllowed(origin, bind, allowed) {
					http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed", origin), http.StatusForbidden)
					return
				}
			}
		}
		if o.Token != "" {
			token, ok := bearer(r.Header.Get("Authorization"))
			got := sha256.Sum256([]byte(token))
			// Hashing first makes the comparison's time independent of the lengths too.
			if subtle.ConstantTimeCompare(got[:], want[:]) != 1 || !ok {
				w.Header().Set("WWW-Authenticate", "Bearer")
				http.Error(w, "Unauthorized: a valid bearer token is required", http.StatusUnauthorized)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// bearer returns the token of an "Authorization: Bearer <token>" header value.
func bearer(h string) (string, bool) {
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// originAllowed reports whether an Origin header value is allowed: listed, or with a
// loopback host or the bind host.
func originAllowed(origin, bind string, allowed map[string]bool) bool {
	if allowed[strings.ToLower(strings.TrimSuffix(origin, "/"))] {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // "null", a file: page, garbage
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || (bind != "" && host == bind) {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
