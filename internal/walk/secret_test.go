package walk

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestSecretName: the deny-list matches secret-looking names, any case and
// any directory, and leaves code and ordinary configuration alone.
func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		".env": true, ".env.local": true, ".env.json": true, "prod.env": true, "a/b/.ENV": true,
		"server.pem": true, "tls/Server.KEY": true, "cert.p12": true, "cert.pfx": true, "app.jks": true, "release.keystore": true,
		"id_rsa": true, "id_rsa.pub": true, "id_ed25519": true, "credentials.json": true, "credentials": true,
		"secrets.yaml": true, "secrets.yml": true, ".npmrc": true, ".pypirc": true, ".netrc": true, ".pgpass": true,
		"prod.tfvars": true, "terraform.tfstate": true, `c:\x\.env`: true,
		".envrc": true, ".s3cfg": true, ".boto": true, ".my.cnf": true, ".dev.vars": true, ".vault-token": true,
		"service-account.json": true, "service_account-prod.json": true, "kubeconfig": true, "kubeconfig.yaml": true, ".env~": true,
		"service_account.go": false, "kubeconfig.go": false, "kube_config.py": false,
		"envrc.go": false, "my.cnf.go": false, "boto.py": false,
		"main.go": false, "environment.go": false, "env.go": false, "keys.go": false, "key.go": false, "package.json": false,
		"config.yaml": false, "secret.go": false, "secrets.go": false, "credentials.go": false, ".gitignore": false, "keyboard.ts": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestWalkWithholdsSecrets: a walk reports secret-looking files as skips
// (not as files), also with AllFiles; an ignored one stays unreported;
// AllowSecrets lists them.
func TestWalkWithholdsSecrets(t *testing.T) {
	root := t.TempDir()
	for _, n := range []string{"main.go", ".env", "conf/credentials.json", "certs/tls.key", "ignored/secrets.yaml", ".gitignore"} {
		p := filepath.Join(root, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		body := "x\n"
		if n == ".gitignore" {
			body = "ignored/\n"
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, all := range []bool{false, true} {
		files, skips, err := Collect(context.Background(), root, Options{AllFiles: all})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if SecretName(f.Path) {
				t.Errorf("AllFiles=%v: %s listed", all, f.Path)
			}
		}
		withheld := map[string]bool{}
		for _, s := range skips {
			if s.Reason == ReasonSecret {
				withheld[s.Path] = true
			}
		}
		if len(withheld) != 3 || !withheld[".env"] || !withheld["conf/credentials.json"] || !withheld["certs/tls.key"] {
			t.Errorf("AllFiles=%v: withheld %v, want .env, conf/credentials.json, certs/tls.key", all, withheld)
		}
	}
	files, _, err := Collect(context.Background(), root, Options{AllFiles: true, AllowSecrets: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range files {
		got[f.Path] = true
	}
	if !got[".env"] || !got["conf/credentials.json"] || !got["certs/tls.key"] || got["ignored/secrets.yaml"] {
		t.Errorf("AllowSecrets lists %v", got)
	}
}

// secretNameByMatch is SecretName as the plain loop over SecretPatterns
// with path.Match: what its index must agree with.
func secretNameByMatch(p string) bool {
	name := strings.ToLower(path.Base(strings.ReplaceAll(p, "\\", "/")))
	for _, pat := range SecretPatterns {
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// TestSecretNameIndexEqualsMatch: SecretName's index decides every name
// as path.Match over SecretPatterns does: the base names of a real tree
// (GOROOT), each pattern's own text, and each pattern with its wildcards
// filled in, in upper and lower case.
func TestSecretNameIndexEqualsMatch(t *testing.T) {
	names := map[string]bool{"": true, ".": true, "a": true, "*": true}
	for _, pat := range SecretPatterns {
		for _, fill := range []string{"", "x", "prod.", ".local"} {
			n := strings.NewReplacer("*", fill, "?", "a").Replace(pat)
			names[n], names[strings.ToUpper(n)], names[n+".go"], names["x"+n] = true, true, true, true
		}
	}
	root := filepath.Join(runtime.GOROOT(), "src")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			names[d.Name()] = true
		}
		return nil
	})
	if len(names) < 5000 {
		t.Fatalf("only %d names to compare (GOROOT/src not read?)", len(names))
	}
	for n := range names {
		if got, want := SecretName(n), secretNameByMatch(n); got != want {
			t.Errorf("SecretName(%q) = %v, path.Match says %v", n, got, want)
		}
	}
}

// BenchmarkSecretName: the indexed SecretName against the plain loop, over
// the base names of GOROOT/src/runtime.
func BenchmarkSecretName(b *testing.B) {
	ents, err := os.ReadDir(filepath.Join(runtime.GOROOT(), "src", "runtime"))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		fn   func(string) bool
	}{{"index", SecretName}, {"match", secretNameByMatch}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, e := range ents {
					c.fn(e.Name())
				}
			}
		})
	}
}

// A credential file named only "config" is withheld by its path: a
// repository's .git/config (a remote URL may carry a token), a
// kubeconfig in .kube/, docker's and the GitHub CLI's logins; another
// config file is not.
func TestSecretPaths(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		".git/config": true, "sub/.git/config": true, `a\.kube\config`: true, ".docker/config.json": true,
		"home/.config/gh/hosts.yml": true, ".GIT/CONFIG": true,
		"config": false, "src/config": false, "git/config": false, "app/config.json": false, "hosts.yml": false,
	} {
		if got := SecretName(p); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", p, got, want)
		}
	}
}
