package walk

import (
	"path"
	"strings"
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
}

// SecretName reports whether the base name of p (either separator) matches
// SecretPatterns, case-insensitively.
func SecretName(p string) bool {
	name := strings.ToLower(path.Base(strings.ReplaceAll(p, "\\", "/")))
	for _, pat := range SecretPatterns {
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	return false
}
