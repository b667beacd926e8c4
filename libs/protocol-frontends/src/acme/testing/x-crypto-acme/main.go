// A driver of golang.org/x/crypto/acme (Debian's golang-golang-x-crypto-dev, unmodified): the
// ACME client library cert-manager's own client is forked from. It runs one account's whole life
// against a directory: register (with external account binding when given), order, http-01 on
// its own listener, finalize, download, key rollover, revocation signed by the new key, and
// deactivation. Each step prints one line, `step <name>`; any error ends it with exit status 1.
// Built by acme-more-clients.int-spec.ts (GOPATH mode: GO111MODULE=off).
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/acme"
)

func main() {
	directory := flag.String("directory", "", "the ACME directory URL")
	caFile := flag.String("ca", "", "PEM file of the CA the server's TLS certificate chains to")
	http01 := flag.String("http01", "127.0.0.1:80", "address the http-01 responder listens on")
	names := flag.String("names", "", "comma-separated DNS names to order")
	eabKid := flag.String("eab-kid", "", "external account binding key id")
	eabKey := flag.String("eab-key", "", "external account binding HMAC key, base64url")
	out := flag.String("out", "", "file the certificate chain (PEM) is written to")
	notAfter := flag.String("not-after", "", "the notAfter the order asks for (RFC 3339), if any")
	flag.Parse()
	var options []acme.OrderOption
	if *notAfter != "" {
		t, err := time.Parse(time.RFC3339, *notAfter)
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(2)
		}
		options = append(options, acme.WithOrderNotAfter(t))
	}
	if err := run(*directory, *caFile, *http01, strings.Split(*names, ","), *eabKid, *eabKey, *out, options); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func step(name string) { fmt.Println("step", name) }

func run(directory, caFile, http01 string, names []string, eabKid, eabKey, out string, options []acme.OrderOption) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	roots := x509.NewCertPool()
	caPem, err := os.ReadFile(caFile)
	if err != nil {
		return err
	}
	roots.AppendCertsFromPEM(caPem)
	accountKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	client := &acme.Client{
		Key:          accountKey,
		DirectoryURL: directory,
		HTTPClient:   &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}},
	}

	account := &acme.Account{Contact: []string{"mailto:ops@example.com"}}
	if eabKid != "" {
		mac, err := base64.RawURLEncoding.DecodeString(eabKey)
		if err != nil {
			return err
		}
		account.ExternalAccountBinding = &acme.ExternalAccountBinding{KID: eabKid, Key: mac}
	}
	if _, err := client.Register(ctx, account, acme.AcceptTOS); err != nil {
		return fmt.Errorf("register: %w", err)
	}
	step("registered")

	var responses sync.Map
	responder := &http.Server{Addr: http01, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if body, ok := responses.Load(r.URL.Path); ok {
			w.Write([]byte(body.(string)))
			return
		}
		http.NotFound(w, r)
	})}
	go responder.ListenAndServe()
	defer responder.Close()

	order, err := client.AuthorizeOrder(ctx, acme.DomainIDs(names...), options...)
	if err != nil {
		return fmt.Errorf("order: %w", err)
	}
	for _, url := range order.AuthzURLs {
		authz, err := client.GetAuthorization(ctx, url)
		if err != nil {
			return fmt.Errorf("authorization: %w", err)
		}
		if authz.Status == acme.StatusValid {
			continue
		}
		var challenge *acme.Challenge
		for _, c := range authz.Challenges {
			if c.Type == "http-01" {
				challenge = c
			}
		}
		if challenge == nil {
			return fmt.Errorf("no http-01 challenge for %s", authz.Identifier.Value)
		}
		response, err := client.HTTP01ChallengeResponse(challenge.Token)
		if err != nil {
			return err
		}
		responses.Store(client.HTTP01ChallengePath(challenge.Token), response)
		if _, err := client.Accept(ctx, challenge); err != nil {
			return fmt.Errorf("accept: %w", err)
		}
		if _, err := client.WaitAuthorization(ctx, url); err != nil {
			return fmt.Errorf("wait authorization: %w", err)
		}
	}
	if order, err = client.WaitOrder(ctx, order.URI); err != nil {
		return fmt.Errorf("wait order: %w", err)
	}
	step("ready")

	certificateKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	csr, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{
		Subject:  pkix.Name{CommonName: names[0]},
		DNSNames: names,
	}, certificateKey)
	if err != nil {
		return err
	}
	chain, _, err := client.CreateOrderCert(ctx, order.FinalizeURL, csr, true)
	if err != nil {
		return fmt.Errorf("finalize: %w", err)
	}
	var pemChain []byte
	for _, der := range chain {
		pemChain = append(pemChain, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	if err := os.WriteFile(out, pemChain, 0o600); err != nil {
		return err
	}
	step("issued")

	newKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err := client.AccountKeyRollover(ctx, newKey); err != nil {
		return fmt.Errorf("key rollover: %w", err)
	}
	step("rolled-over")

	// Signed by the account, now holding the new key.
	if err := client.RevokeCert(ctx, nil, chain[0], acme.CRLReasonKeyCompromise); err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	step("revoked")

	if err := client.DeactivateReg(ctx); err != nil {
		return fmt.Errorf("deactivate: %w", err)
	}
	step("deactivated")
	if _, err := client.AuthorizeOrder(ctx, acme.DomainIDs(names...)); err == nil {
		return fmt.Errorf("a deactivated account could still order")
	} else if e, ok := err.(*acme.Error); !ok || e.StatusCode != http.StatusUnauthorized {
		return fmt.Errorf("a deactivated account's order: want 401 unauthorized, got %v", err)
	}
	step("refused-after-deactivation")
	return nil
}
