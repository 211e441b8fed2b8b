// Package slack is the chat-channel event destination: it renders an outreach.Event as a Block
// Kit message a person reads at a glance and posts it through an incoming webhook or a bot
// token. It makes one attempt per Send; retries, timeouts, the SSRF-safe dialer, redirect
// policy and dedupe belong to the delivery hub, which owns the *http.Client passed in.
package slack

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slack-go/slack"

	"outreachd/adapters/webhook"
	"outreachd/outreach"
)

// ErrRejected marks an answer from Slack that refused the message: a non-2xx status from a
// webhook or the Web API, or "ok": false from chat.postMessage. Without it the attempt got
// no answer at all (Result.StatusCode is 0).
var ErrRejected = errors.New("message rejected")

// ErrTarget marks a destination that names neither a webhook URL nor a bot token and channel.
var ErrTarget = errors.New("slack destination needs a webhook URL, or a bot token and a channel")

const (
	// maxExcerpt is how much of an answer Result keeps for the attempt log.
	maxExcerpt = 2 << 10
	// maxRead bounds what is read of an answer; Slack's are a few KB, and slack-go must still be
	// able to parse the whole of a chat.postMessage answer.
	maxRead = 1 << 20
)

// Config configures a Sender.
type Config struct {
	// APIURL is the Web API root that "chat.postMessage" is appended to; slack.APIURL by
	// default, a local server in tests.
	APIURL string
	// UserAgent is sent with every request (every delivery carries one);
	// webhook.DefaultUserAgent by default, as on HTTPS destinations.
	UserAgent string
}

func (c *Config) setDefaults() {
	c.APIURL = cmp.Or(c.APIURL, slack.APIURL)
	c.UserAgent = cmp.Or(c.UserAgent, webhook.DefaultUserAgent)
	if !strings.HasSuffix(c.APIURL, "/") {
		c.APIURL += "/"
	}
}

// Validate reports a configuration New would refuse.
func (c Config) Validate() error {
	if c.APIURL == "" {
		return nil
	}
	u, err := url.Parse(c.APIURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("slack sender: API URL %q is not an http(s) URL", c.APIURL)
	}
	return nil
}

// Target is one Slack destination: either WebhookURL, or BotToken with Channel.
type Target struct {
	WebhookURL string
	BotToken   string
	Channel    string
}

// Result is what the attempt log keeps of one Send.
type Result struct {
	StatusCode int           // 0 when no answer came
	Body       string        // the answer's first 2 KB
	Duration   time.Duration // from the request to the end of the answer
	RetryAfter time.Duration // Slack's Retry-After on a 429 or 503, else 0
}

// Sender posts events to Slack. It is safe for concurrent use.
type Sender struct {
	client *http.Client
	cfg    Config
}

// New builds a Sender over httpClient, which carries the hub's timeout, dialer and redirect
// policy; every request goes through it.
func New(httpClient *http.Client, cfg Config) (*Sender, error) {
	if httpClient == nil {
		return nil, errors.New("slack sender: an http client is required")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	return &Sender{client: httpClient, cfg: cfg}, nil
}

// Send makes one attempt to post ev to dest. A Slack refusal wraps ErrRejected and still returns
// the status and answer in Result, so the hub can show them next to the destination.
func (s *Sender) Send(ctx context.Context, dest Target, ev outreach.Event) (Result, error) {
	text, blocks := Render(ev)
	rec := &recorder{next: s.client.Transport, userAgent: s.cfg.UserAgent}
	if rec.next == nil {
		rec.next = http.DefaultTransport
	}
	// A shallow copy keeps the hub's Timeout, CheckRedirect and Jar; only the transport is
	// wrapped, to see the status and body that slack-go otherwise discards.
	client := *s.client
	client.Transport = rec

	start := time.Now()
	var via string
	var err error
	switch {
	case dest.WebhookURL != "" && dest.BotToken == "":
		via = "webhook"
		noUnfurl := false
		err = slack.PostWebhookCustomHTTPContext(ctx, dest.WebhookURL, &client, &slack.WebhookMessage{
			Text:        text,
			Blocks:      &slack.Blocks{BlockSet: blocks},
			UnfurlLinks: &noUnfurl,
			UnfurlMedia: &noUnfurl,
		})
		err = redactURL(err)
	case dest.WebhookURL == "" && dest.BotToken != "" && dest.Channel != "":
		via = "chat.postMessage"
		api := slack.New(dest.BotToken, slack.OptionHTTPClient(&client), slack.OptionAPIURL(s.cfg.APIURL))
		// Unfurling is off so a LinkedIn profile link does not double the height of every card.
		_, _, err = api.PostMessageContext(ctx, dest.Channel,
			slack.MsgOptionText(text, false),
			slack.MsgOptionBlocks(blocks...),
			slack.MsgOptionDisableLinkUnfurl(),
			slack.MsgOptionDisableMediaUnfurl(),
		)
	default:
		return Result{}, ErrTarget
	}
	res := Result{
		StatusCode: rec.status,
		Body:       excerpt(rec.body),
		Duration:   time.Since(start),
		RetryAfter: rec.retryAfter,
	}
	if err == nil {
		return res, nil
	}
	// slack-go counts only 200 as success; outreachd counts any 2xx.
	var sce slack.StatusCodeError
	if errors.As(err, &sce) && sce.Code >= 200 && sce.Code < 300 {
		return res, nil
	}
	if rec.status == 0 {
		return res, fmt.Errorf("slack %s: %w", via, err)
	}
	if short := strings.TrimSpace(res.Body); short != "" && len(short) <= 100 && !strings.ContainsAny(short, "\n{<") {
		// Webhooks answer a bare code ("no_service", "invalid_blocks") that slack-go drops.
		return res, fmt.Errorf("slack %s: %w: %w (%s)", via, ErrRejected, err, short)
	}
	return res, fmt.Errorf("slack %s: %w: %w", via, ErrRejected, err)
}

// redactURL replaces a transport error by one whose URL has no path: a webhook URL is a
// credential, and the error ends up in logs and in the attempt log. The error is rebuilt
// because slack-go's wrapping has already copied the URL into its message.
func redactURL(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	shown := "(webhook URL)"
	if u, perr := url.Parse(ue.URL); perr == nil {
		shown = u.Scheme + "://" + u.Host + "/…"
	}
	return &url.Error{Op: ue.Op, URL: shown, Err: ue.Err}
}

// recorder sees every answer of one Send. It reads the body eagerly (up to maxRead) and hands
// slack-go a copy, because slack-go closes error answers unread.
type recorder struct {
	next       http.RoundTripper
	userAgent  string
	status     int
	body       []byte
	retryAfter time.Duration
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("User-Agent") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("User-Agent", r.userAgent)
	}
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	r.status = resp.StatusCode
	r.retryAfter = 0
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		// Seconds (what Slack sends) or an HTTP date, read as on HTTPS destinations.
		r.retryAfter = webhook.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRead))
	_ = resp.Body.Close()
	r.body = body
	if err != nil {
		return nil, fmt.Errorf("read answer: %w", err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// excerpt keeps the first maxExcerpt bytes of b without splitting a UTF-8 character.
func excerpt(b []byte) string {
	if len(b) > maxExcerpt {
		b = b[:maxExcerpt]
		// Drop at most the three bytes of a character cut in half; invalid bytes elsewhere are
		// replaced below rather than trimmed.
		for i := 0; i < utf8.UTFMax-1 && len(b) > 0; i++ {
			if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size != 1 {
				break
			}
			b = b[:len(b)-1]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
