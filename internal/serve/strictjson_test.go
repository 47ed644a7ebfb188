package serve

import (
	"strings"
	"testing"
)

// TestStrictWriteBodies: the write endpoints refuse, with a 400 that
// names the problem, a body with data after the object, a key of another
// case than the field's, an unknown key, a key given twice and two keys
// differing only in case; nothing is removed; a plain body, an empty one
// with ?root= and whitespace after the object are taken.
func TestStrictWriteBodies(t *testing.T) {
	t.Parallel()
	f := newFixture(t, Options{Token: "s3cret"})
	for _, tc := range []struct{ body, want string }{
		{`{"root":"list"}garbage`, "after the JSON object"},
		{`{"root":"list"}{"root":"list"}`, "after the JSON object"},
		{`{"ROOT":"list"}`, `unknown field \"ROOT\"`},
		{`{"Root":"list"}`, `unknown field \"Root\"`},
		{`{"root":"list","force":true}`, `unknown field \"force\"`},
		{`{"root":"nope","root":"list"}`, `\"root\" is given twice`},
		{`{"root":"list","rOOt":"nope"}`, "differ only in case"},
		{`["list"]`, "want a JSON object"},
	} {
		for _, path := range []string{"/api/remove", "/api/cancel", "/api/index"} {
			code, out := f.do(t, "POST", path, "s3cret", tc.body)
			if code != 400 || !strings.Contains(out, tc.want) {
				t.Errorf("POST %s %s: %d %s, want 400 %q", path, tc.body, code, out, tc.want)
			}
		}
	}
	var st statusJSON
	f.getJSON(t, "/api/status", &st)
	if len(st.Projects) != 2 {
		t.Fatalf("projects after refused bodies: %+v", st.Projects)
	}
	for _, tc := range []struct{ path, body string }{
		{"/api/cancel", `{"root":"list"}`},
		{"/api/cancel", " {\"root\": \"list\"} \n"},
		{"/api/cancel?root=list", ""},
	} {
		if code, out := f.do(t, "POST", tc.path, "s3cret", tc.body); code != 200 {
			t.Errorf("POST %s %q: %d %s", tc.path, tc.body, code, out)
		}
	}
}
