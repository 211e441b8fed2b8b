// Package unipile is a typed client of Unipile's API v1, the hosted LinkedIn API outreachd
// reaches LinkedIn through: accounts (seats) and hosted sign-in links, profiles and company
// pages, invitations and relations, chats and messages, webhook registrations, and the parser
// of the webhooks Unipile sends.
//
// It speaks HTTP and nothing else: it must not know about campaigns, storage or the engine's
// ports, must not retry, and must not log (a message's text is a lead's data). Every failure
// comes back classified (ClassOf, MaybePerformed, RetryAfter) so that the provider built on it
// decides what a failure means for a seat or a person. Shapes, paths and object names follow
// Unipile's reference and its official Node SDK; docs/linkedin.md lists the calls.
package unipile

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Config says where Unipile is and how to talk to it.
type Config struct {
	// DSN is the address Unipile gives a tenant: "api8.unipile.com:13851", reached over
	// HTTPS, or a full URL with its scheme ("http://127.0.0.1:4010"), used as given.
	DSN string
	// APIKey is sent as the X-API-KEY header of every call.
	APIKey string
	// Timeout bounds one call from dial to the end of the answer (30 s by default).
	Timeout time.Duration
	// MaxResponseBytes caps the answer read from Unipile (8 MiB by default); a longer answer
	// is an error, never a truncated document.
	MaxResponseBytes int64
	// MaxErrorBodyBytes is how much of a failed answer an Error keeps (2 KiB by default).
	MaxErrorBodyBytes int
}

const (
	defaultTimeout           = 30 * time.Second
	defaultMaxResponseBytes  = 8 << 20
	defaultMaxErrorBodyBytes = 2 << 10
	apiPrefix                = "/api/v1"
)

func (c *Config) setDefaults() {
	c.Timeout = cmp.Or(c.Timeout, defaultTimeout)
	c.MaxResponseBytes = cmp.Or(c.MaxResponseBytes, defaultMaxResponseBytes)
	c.MaxErrorBodyBytes = cmp.Or(c.MaxErrorBodyBytes, defaultMaxErrorBodyBytes)
}

// Validate reports a configuration NewClient would refuse; zero durations and sizes mean the
// defaults.
func (c Config) Validate() error {
	if strings.TrimSpace(c.DSN) == "" {
		return errors.New("unipile: the DSN is required")
	}
	if _, err := baseURL(c.DSN); err != nil {
		return err
	}
	if strings.TrimSpace(c.APIKey) == "" {
		return errors.New("unipile: the API key is required")
	}
	if c.Timeout < 0 {
		return fmt.Errorf("unipile: timeout %s must not be negative", c.Timeout)
	}
	if c.MaxResponseBytes < 0 || c.MaxErrorBodyBytes < 0 {
		return errors.New("unipile: size limits must not be negative")
	}
	return nil
}

// baseURL turns a DSN into the scheme and authority (and any path prefix) every call starts
// with, without a trailing slash.
func baseURL(dsn string) (string, error) {
	raw := strings.TrimSpace(dsn)
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("unipile: DSN %q is not an address: %w", dsn, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", fmt.Errorf("unipile: DSN %q: scheme must be https or http", dsn)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("unipile: DSN %q must be a host[:port] or a URL without credentials, query or fragment", dsn)
	}
	return strings.TrimRight(u.Scheme+"://"+u.Host+u.EscapedPath(), "/"), nil
}

// Client calls Unipile's API v1. It is safe for concurrent use.
type Client struct {
	cfg  Config
	base string // scheme://host[:port][/prefix], no trailing slash
	http *http.Client
}

// NewClient builds a client for cfg.
func NewClient(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.setDefaults()
	base, _ := baseURL(cfg.DSN)
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.ResponseHeaderTimeout = cfg.Timeout
	transport.MaxIdleConnsPerHost = 16
	return &Client{
		cfg:  cfg,
		base: base,
		// No redirects: a redirected POST could be replayed elsewhere, and Unipile's API
		// does not redirect.
		http: &http.Client{
			Timeout:   cfg.Timeout,
			Transport: transport,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse
			},
		},
	}, nil
}

// BaseURL is the address calls go to, before /api/v1: what a hosted sign-in link's api_url is.
func (c *Client) BaseURL() string { return c.base }
