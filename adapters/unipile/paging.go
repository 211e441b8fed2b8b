package unipile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strconv"
	"time"
)

// Page is one page of a list. Cursor is "" on the last page (Unipile's null); otherwise it is
// passed back, as is, to get the next page.
type Page[T any] struct {
	Items  []T
	Cursor string
}

// ListOptions pages a list. A zero Limit lets Unipile choose its page size.
type ListOptions struct {
	Limit  int
	Cursor string
}

func (o ListOptions) query(q url.Values) url.Values {
	if q == nil {
		q = url.Values{}
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Cursor != "" {
		q.Set("cursor", o.Cursor)
	}
	return q
}

// listAnswer is every list answer's envelope: {object, items, cursor}.
type listAnswer[T any] struct {
	Items  []T    `json:"items"`
	Cursor string `json:"cursor"` // null on the last page decodes to ""
}

// list fetches one page of a list whose envelope declares object.
func list[T any](ctx context.Context, c *Client, cl call) (Page[T], error) {
	var a listAnswer[T]
	if err := c.do(ctx, cl, &a); err != nil {
		return Page[T]{}, err
	}
	return Page[T]{Items: a.Items, Cursor: a.Cursor}, nil
}

// ErrTooManyPages is a list that did not end within the pages its caller allowed, or whose
// cursor came back unchanged (which would page forever).
var ErrTooManyPages = errors.New("unipile: list did not end within the allowed pages")

// All yields every item of a list, fetching page after page with fetch (given the cursor, ""
// first) until the cursor is null, at most maxPages pages. A failure is yielded once, with a
// zero item, and ends the sequence; so does going past maxPages (ErrTooManyPages).
func All[T any](ctx context.Context, maxPages int, fetch func(ctx context.Context, cursor string) (Page[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		cursor := ""
		seen := map[string]bool{}
		for page := 0; ; page++ {
			if page >= maxPages {
				yield(zero, fmt.Errorf("%w (%d)", ErrTooManyPages, maxPages))
				return
			}
			p, err := fetch(ctx, cursor)
			if err != nil {
				yield(zero, err)
				return
			}
			for _, it := range p.Items {
				if !yield(it, nil) {
					return
				}
			}
			if p.Cursor == "" {
				return
			}
			if seen[p.Cursor] {
				yield(zero, fmt.Errorf("%w: cursor repeated", ErrTooManyPages))
				return
			}
			seen[p.Cursor] = true
			cursor = p.Cursor
		}
	}
}

// Collect is All gathered into a slice.
func Collect[T any](ctx context.Context, maxPages int, fetch func(ctx context.Context, cursor string) (Page[T], error)) ([]T, error) {
	var out []T
	for it, err := range All(ctx, maxPages, fetch) {
		if err != nil {
			return out, err
		}
		out = append(out, it)
	}
	return out, nil
}

// Timestamp is an instant as Unipile writes it: ISO 8601 in UTC, usually with milliseconds
// ("2025-12-31T23:59:59.999Z"). JSON null, "" and a string that is not ISO 8601 leave it zero
// (unknown): the reference declares most of these fields as plain strings, and one odd date
// must not make a whole list unreadable. Anything but a string or null is an error.
type Timestamp struct{ time.Time }

// UnmarshalJSON reads an ISO 8601 string or null.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp: %w", err)
	}
	t.Time = time.Time{}
	if s != nil {
		if v, err := time.Parse(time.RFC3339Nano, *s); err == nil {
			t.Time = v
		}
	}
	return nil
}

// MarshalJSON writes the instant the way Unipile expects one in a request.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(FormatTime(t.Time))
}

// FormatTime writes an instant as Unipile's parameters want it: UTC with exactly three
// fractional digits (expiresOn, after, before).
func FormatTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// Flag is one of Unipile's yes/no fields, which it writes as 0 or 1 (is_sender, seen,
// is_self); true and false are read too, and null is false.
type Flag bool

// UnmarshalJSON reads 0, 1, true, false or null.
func (f *Flag) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "1", "true":
		*f = true
	case "0", "false", "null":
		*f = false
	default:
		return fmt.Errorf("flag: %s is neither 0, 1, true nor false", b)
	}
	return nil
}

// sentInvitations walks a seat's pending invitations, page by page (at most MaxPages).
func (p *Provider) sentInvitations(ctx context.Context, accountID string) iter.Seq2[SentInvitation, error] {
	return All(ctx, p.cfg.MaxPages, func(ctx context.Context, cursor string) (Page[SentInvitation], error) {
		return p.c.ListSentInvitations(ctx, accountID, ListOptions{Limit: 100, Cursor: cursor})
	})
}

// relations walks a seat's relations, newest first, page by page (at most MaxPages).
func (p *Provider) relations(ctx context.Context, accountID string) iter.Seq2[Relation, error] {
	return All(ctx, p.cfg.MaxPages, func(ctx context.Context, cursor string) (Page[Relation], error) {
		return p.c.ListRelations(ctx, accountID, ListOptions{Limit: 1000, Cursor: cursor})
	})
}
