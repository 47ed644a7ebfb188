package serve

import "net/http"

// ContentSecurityPolicy is the Content-Security-Policy of every answer of
// the server: the page loads its script, stylesheets and images from the
// server itself only (web/ holds no inline script or style, and the graph's
// SVG styles with attributes), talks to no other origin, posts its forms
// here, and may not be framed by any page (frame-ancestors 'none', so
// /status cannot be clickjacked into "remove"). JSON and SVG answers carry
// it too: an SVG opened on its own runs no script.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// setSecurityHeaders sets the headers every answer carries, errors and
// 503s included: the CSP above; X-Frame-Options DENY (frame-ancestors for
// browsers that predate it); nosniff, so a file view or JSON answer is
// never run as a script or page of another type; no Referer leaves the
// page (its URLs name projects, files and queries); and no other origin
// may open a window onto the page or embed its answers.
func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}
