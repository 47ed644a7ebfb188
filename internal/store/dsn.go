package store

// Store locations: which strings name a PostgreSQL database, and the one
// form of a location that may be printed or served (Redact).

import (
	"errors"
	"net/url"
	"strings"
)

// masked is what Redact writes in place of a credential.
const masked = "xxxxx"

// secretKeys are the connection parameters that carry a credential or
// point at one: libpq's password, sslpassword (the passphrase of the
// client key) and passfile (the path of a password file, masked too: it
// tells where the passwords are kept).
var secretKeys = map[string]bool{"password": true, "sslpassword": true, "passfile": true}

// libpqKeywords are the connection keywords of libpq (PostgreSQL 17,
// "Parameter Key Words"); a string whose first word is "KEYWORD=" with
// one of them is a keyword/value connection string.
var libpqKeywords = map[string]bool{
	"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true, "password": true,
	"passfile": true, "require_auth": true, "channel_binding": true, "connect_timeout": true,
	"client_encoding": true, "options": true, "application_name": true, "fallback_application_name": true,
	"keepalives": true, "keepalives_idle": true, "keepalives_interval": true, "keepalives_count": true,
	"tcp_user_timeout": true, "replication": true, "gssencmode": true, "sslmode": true, "requiressl": true,
	"sslnegotiation": true, "sslcompression": true, "sslcert": true, "sslkey": true, "sslpassword": true,
	"sslcertmode": true, "sslrootcert": true, "sslcrl": true, "sslcrldir": true, "sslsni": true,
	"requirepeer": true, "ssl_min_protocol_version": true, "ssl_max_protocol_version": true,
	"krbsrvname": true, "gsslib": true, "gssdelegation": true, "service": true,
	"target_session_attrs": true, "load_balance_hosts": true,
}

// IsPostgres reports whether target names a PostgreSQL database rather
// than an SQLite file: a postgres:// or postgresql:// URL, or a libpq
// keyword/value string ("host=db user=crt dbname=code", recognised by a
// first word KEYWORD= with a keyword of libpq), which pgx accepts alike.
// Such a string is never taken as a file name.
func IsPostgres(target string) bool {
	return strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://") || isKeywordDSN(target)
}

// isKeywordDSN reports whether target starts, after blanks, with
// "KEYWORD=" (blanks allowed around '=') for a libpq keyword.
func isKeywordDSN(target string) bool {
	s := strings.TrimLeft(target, " \t\n\r\f\v")
	i := strings.IndexAny(s, "= \t\n\r\f\v")
	if i <= 0 || !libpqKeywords[s[:i]] {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(s[i:], " \t\n\r\f\v"), "=")
}

// Redact returns target fit for a message, a page or an API answer: a
// PostgreSQL location with every credential it can carry replaced by
// "xxxxx" (the userinfo password of a URL; the password, sslpassword and
// passfile parameters of a URL's query or of a keyword/value string);
// an SQLite path as it is. A location it cannot parse is replaced whole.
// Every place that prints or serves a store location goes through it
// (Store.Path holds its result).
func Redact(target string) string {
	switch {
	case strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://"):
		return redactURL(target)
	case isKeywordDSN(target):
		return redactKeywords(target)
	}
	return target
}

// redactURL masks the userinfo password and the secret query parameters
// of a PostgreSQL URL, keeping the rest of it as written.
func redactURL(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return "postgres://(unparsable URL)"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), masked)
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			k, _, _ := strings.Cut(p, "=")
			if key, err := url.QueryUnescape(k); err != nil || secretKeys[strings.ToLower(key)] {
				parts[i] = k + "=" + masked
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// redactKeywords rewrites a keyword/value string as "k=v k=v", secret
// values masked; an unparsable one is replaced whole.
func redactKeywords(target string) string {
	kvs, err := parseKeywords(target)
	if err != nil {
		return "(unparsable PostgreSQL connection string)"
	}
	var b strings.Builder
	for i, kv := range kvs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(kv.key + "=")
		if secretKeys[kv.key] {
			b.WriteString(masked)
		} else {
			b.WriteString(kv.raw)
		}
	}
	return b.String()
}

// keyword is one "key=value" of a keyword/value string: raw is the value
// as written (quotes and escapes kept), value its meaning.
type keyword struct{ key, raw, value string }

// errBadKeywords: a keyword/value string libpq would not parse.
var errBadKeywords = errors.New("malformed connection string")

// parseKeywords splits a libpq keyword/value string by libpq's rules
// (conninfo_parse): blanks separate pairs and may surround '='; a value is
// single-quoted (with \' and \\) or runs to the next blank, a backslash
// taking the next byte as it is.
func parseKeywords(s string) ([]keyword, error) {
	blank := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' }
	var out []keyword
	i := 0
	for {
		for i < len(s) && blank(s[i]) {
			i++
		}
		if i == len(s) {
			return out, nil
		}
		k := i
		for i < len(s) && s[i] != '=' && !blank(s[i]) {
			i++
		}
		key := s[k:i]
		for i < len(s) && blank(s[i]) {
			i++
		}
		if key == "" || i == len(s) || s[i] != '=' {
			return nil, errBadKeywords
		}
		i++
		for i < len(s) && blank(s[i]) {
			i++
		}
		v := i
		var val strings.Builder
		if i < len(s) && s[i] == '\'' {
			i++
			closed := false
			for i < len(s) {
				c := s[i]
				if c == '\\' && i+1 < len(s) {
					val.WriteByte(s[i+1])
					i += 2
					continue
				}
				i++
				if c == '\'' {
					closed = true
					break
				}
				val.WriteByte(c)
			}
			if !closed {
				return nil, errBadKeywords
			}
		} else {
			for i < len(s) && !blank(s[i]) {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
				i++
			}
		}
		out = append(out, keyword{key: key, raw: s[v:i], value: val.String()})
	}
}

// secrets returns the credentials written in target (a PostgreSQL
// location): the values of the secret parameters, raw and decoded, and a
// URL's userinfo password; empty values are left out.
func secrets(target string) []string {
	var out []string
	add := func(vs ...string) {
		for _, v := range vs {
			if v != "" && v != masked {
				out = append(out, v)
			}
		}
	}
	if isKeywordDSN(target) {
		kvs, _ := parseKeywords(target)
		for _, kv := range kvs {
			if secretKeys[kv.key] {
				add(kv.raw, kv.value)
			}
		}
		return out
	}
	if u, err := url.Parse(target); err == nil {
		if p, ok := u.User.Password(); ok {
			add(p, url.UserPassword("", p).String()[1:])
		}
		for _, part := range strings.Split(u.RawQuery, "&") {
			k, v, _ := strings.Cut(part, "=")
			key, _ := url.QueryUnescape(k)
			if secretKeys[strings.ToLower(key)] {
				dv, _ := url.QueryUnescape(v)
				add(v, dv)
			}
		}
	}
	return out
}

// maskSecrets returns msg with every credential of target in it replaced
// by "xxxxx": for messages of the driver, which may quote the location.
func maskSecrets(msg, target string) string {
	for _, s := range secrets(target) {
		msg = strings.ReplaceAll(msg, s, masked)
	}
	return msg
}

// secretFree is an error of opening target whose message has target's
// credentials masked; errors.Is and As still see the error it wraps.
type secretFree struct {
	err    error
	target string
}

func (e secretFree) Error() string { return maskSecrets(e.err.Error(), e.target) }
func (e secretFree) Unwrap() error { return e.err }
