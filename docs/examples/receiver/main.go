// Command receiver is a webhook receiver for trying outreachd's event destinations locally
// (the README's webhook quick start). It prints every request it gets, checks both signatures
// when it knows the destination's secret, answers 401 when they do not match, ignores a
// webhook-id it has already seen, and keeps the last body in a file so it can be checked with
// other tools (openssl, say).
//
//	go run ./docs/examples/receiver -secret my-local-secret
//
// It is an example, not a production receiver: it keeps seen ids in memory only.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"sync"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "address to listen on")
	secret := flag.String("secret", os.Getenv("WEBHOOK_SECRET"), "the destination's signing secret (default $WEBHOOK_SECRET); empty skips the checks")
	save := flag.String("save", "/tmp/outreachd-event.json", "file that keeps the last body received (empty: none)")
	flag.Parse()
	r := &receiver{secret: *secret, save: *save, out: os.Stdout, seen: map[string]bool{}, now: time.Now}
	log.Printf("listening on http://%s (any path); last body goes to %s", *addr, *save)
	if *secret == "" {
		log.Printf("no -secret given: signatures are shown but not checked")
	}
	log.Fatal(http.ListenAndServe(*addr, r))
}

type receiver struct {
	secret, save string
	out          io.Writer
	now          func() time.Time
	mu           sync.Mutex
	seen         map[string]bool
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || r.Method != http.MethodPost {
		http.Error(w, "POST a JSON body", http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	fmt.Fprintf(rc.out, "\n%s %s %s\n", rc.now().UTC().Format(time.RFC3339), r.Method, r.URL.Path)
	for _, h := range []string{"X-Service-Event", "webhook-id", "webhook-timestamp", "X-Service-Signature", "webhook-signature"} {
		fmt.Fprintf(rc.out, "  %-20s %s\n", h+":", r.Header.Get(h))
	}
	if rc.save != "" {
		if err := os.WriteFile(rc.save, body, 0o600); err != nil {
			fmt.Fprintf(rc.out, "  (could not save the body: %v)\n", err)
		}
	}
	shown := body
	var pretty bytes.Buffer
	if json.Indent(&pretty, body, "  ", "  ") == nil {
		shown = pretty.Bytes()
	}
	fmt.Fprintf(rc.out, "  %s\n", shown)
	if rc.secret != "" {
		// Signatures cover the exact bytes received, never a re-encoding of the JSON.
		errHex, errStd := verifyServiceSignature(rc.secret, r.Header, body), verifyStandardWebhook(rc.secret, r.Header, body, rc.now())
		fmt.Fprintf(rc.out, "  X-Service-Signature: %s\n  webhook-signature:   %s\n", verdict(errHex), verdict(errStd))
		if errHex != nil || errStd != nil {
			http.Error(w, "signature does not match", http.StatusUnauthorized)
			return
		}
	}
	// Retries and resends carry the same webhook-id: act on it once, answer 2xx every time.
	if id := r.Header.Get("webhook-id"); id != "" {
		if rc.seen[id] {
			fmt.Fprintf(rc.out, "  duplicate webhook-id %s: already handled\n", id)
		}
		rc.seen[id] = true
	}
	w.WriteHeader(http.StatusNoContent)
}

func verdict(err error) string {
	if err != nil {
		return "INVALID (" + err.Error() + ")"
	}
	return "valid"
}
