package walk

import (
	"path"
	"strings"
	"sync"
)

// ReasonSecret: a file whose name looks like it holds a secret
// (SecretName); it is withheld from the index and from read, grep and
// glob unless Options.AllowSecrets is set.
const ReasonSecret Reason = "withheld: secret-looking name"

// SecretPatterns are the file names withheld by default, matched against
// the lower-cased base name with path.Match: environment files, private
// keys and certificates with their keys, key stores, and the credential
// files of package managers, clouds and tools. Public keys (*.pub) match
// id_rsa* too: they sit next to the private ones and are not code.
var SecretPatterns = []string{
	".env", ".env.*", "*.env",
	"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.bks", "*.kdbx", "*.ppk",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	"credentials", "credentials.json", "credentials.y*ml", "credentials.xml", "client_secret*.json",
	"secrets.y*ml", "secrets.json", "secrets.toml", "secret.y*ml",
	".npmrc", ".yarnrc.yml", ".pypirc", ".netrc", "_netrc", ".pgpass", ".git-credentials", ".htpasswd",
	".dockercfg", "*.tfvars", "terraform.tfstate", "terraform.tfstate.*",
	// direnv's exports, s3cmd's and boto's keys, MySQL's client password,
	// Cloudflare wrangler's local secrets, a Vault token
	".envrc", ".s3cfg", ".boto", ".my.cnf", ".dev.vars", ".vault-token",
	// a cloud service account's key file, a cluster's kubeconfig, an
	// editor's backup of an environment file
	"service-account*.json", "service_account*.json", "kubeconfig", "kubeconfig.y*ml", "kubeconfig.json", ".env~",
}

// SecretPaths are the credential files whose base name says nothing
// ("config"), withheld by default by their path's last segments, matched
// lower-cased: a repository's own configuration (a remote's URL may carry
// a token, https://user:TOKEN@host/...), a cluster's kubeconfig, the
// registry logins of docker and the GitHub CLI's token.
var SecretPaths = []string{".git/config", ".kube/config", ".docker/config.json", "gh/hosts.yml"}

// secretPathName reports whether a base name is the last segment of one
// of SecretPaths ("config"): only such a file's path is worth building to
// ask SecretName.
func secretPathName(name string) bool {
	for _, sp := range SecretPaths {
		if strings.EqualFold(path.Base(sp), name) {
			return true
		}
	}
	return false
}

// SecretName reports whether the base name of p (either separator) matches
// SecretPatterns, or p ends in one of SecretPaths, case-insensitively.
// Every listing, freshness check and index run asks it of every file, so
// it decides most names without
// path.Match: a name matches a "*.ext" pattern by its suffix, and one of
// the other patterns only when it starts with a byte one of them starts
// with (secretIndex).
func SecretName(p string) bool {
	p = strings.ToLower(strings.ReplaceAll(p, "\\", "/"))
	name := path.Base(p)
	if secretPathName(name) {
		for _, sp := range SecretPaths {
			if p == sp || strings.HasSuffix(p, "/"+sp) {
				return true
			}
		}
	}
	x := secretIndex()
	for _, ext := range x.exts {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	if name == "" || !x.first[name[0]] {
		return false
	}
	for _, pat := range x.rest {
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// secretPatternIndex is SecretPatterns taken apart for SecretName: exts
// are the suffixes of the "*.ext" patterns (".pem"; "*" matches the empty
// prefix too, so ".env" matches "*.env"), rest the other patterns, and
// first the bytes those start with (all 256 when one starts with a
// wildcard or a class).
type secretPatternIndex struct {
	exts  []string
	rest  []string
	first [256]bool
}

// secretIndex returns SecretPatterns' index, built once.
var secretIndex = sync.OnceValue(func() *secretPatternIndex {
	x := &secretPatternIndex{}
	for _, pat := range SecretPatterns {
		if ext, ok := strings.CutPrefix(pat, "*"); ok && strings.HasPrefix(ext, ".") && !strings.ContainsAny(ext, "*?[\\") {
			x.exts = append(x.exts, ext)
			continue
		}
		x.rest = append(x.rest, pat)
		if pat == "" || strings.ContainsRune("*?[\\", rune(pat[0])) {
			for i := range x.first {
				x.first[i] = true
			}
		} else {
			x.first[pat[0]] = true
		}
	}
	return x
})
