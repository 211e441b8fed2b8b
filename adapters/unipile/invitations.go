package unipile

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"
	"unicode/utf16"
)

// MaxNoteLength is the longest invitation note Unipile accepts. Its schema measures length
// the JavaScript way, in UTF-16 code units, which is never less than the count of characters.
const MaxNoteLength = 300

// NoteLength is a note's length as Unipile counts it against MaxNoteLength.
func NoteLength(note string) int { return len(utf16.Encode([]rune(note))) }

// Invite sends a connection invitation from the seat to a member, with an optional note, and
// returns the invitation's id (keep it: withdrawing needs it). providerID is the member id
// from GetProfile, not the public slug.
//
// A note longer than MaxNoteLength is refused before sending (ErrInvalidRequest).
func (c *Client) Invite(ctx context.Context, accountID, providerID, note string) (string, error) {
	if err := required("invite", "account id", accountID, "provider id", providerID); err != nil {
		return "", err
	}
	if n := NoteLength(note); n > MaxNoteLength {
		return "", fmt.Errorf("unipile: invite: %w: the note is %d characters long, over %d", ErrInvalidRequest, n, MaxNoteLength)
	}
	body := map[string]string{"account_id": accountID, "provider_id": providerID}
	if note != "" {
		body["message"] = note
	}
	a := idAnswer{field: "invitation_id"}
	err := c.do(ctx, call{method: http.MethodPost, path: "/users/invite", json: body, object: "UserInvitationSent"}, &a)
	return a.id, err
}

// SentInvitation is an invitation the seat sent that is still pending.
type SentInvitation struct {
	ID string `json:"id"`
	// InvitedUserID is the invited member's id, InvitedUserPublicID their public slug.
	InvitedUserID          string    `json:"invited_user_id"`
	InvitedUserPublicID    string    `json:"invited_user_public_id"`
	InvitedUser            string    `json:"invited_user"` // their name
	InvitedUserDescription string    `json:"invited_user_description"`
	Date                   string    `json:"date"` // as LinkedIn words it ("Sent today")
	ParsedDatetime         Timestamp `json:"parsed_datetime"`
	InvitationText         string    `json:"invitation_text"` // the note; "" without one
}

// ListSentInvitations lists one page of the seat's pending invitations (at most 100 a page).
func (c *Client) ListSentInvitations(ctx context.Context, accountID string, opts ListOptions) (Page[SentInvitation], error) {
	if err := required("list sent invitations", "account id", accountID); err != nil {
		return Page[SentInvitation]{}, err
	}
	q := opts.query(url.Values{"account_id": {accountID}})
	return list[SentInvitation](ctx, c, call{method: http.MethodGet, path: "/users/invite/sent", query: q, object: "InvitationList"})
}

// CancelInvitation withdraws a pending invitation by the id Invite returned. LinkedIn will
// not let the seat invite that member again for weeks.
func (c *Client) CancelInvitation(ctx context.Context, accountID, invitationID string) error {
	if err := required("cancel invitation", "account id", accountID, "invitation id", invitationID); err != nil {
		return err
	}
	return c.do(ctx, call{
		method: http.MethodDelete, path: pathOf("users", "invite", "sent", invitationID),
		query: url.Values{"account_id": {accountID}}, object: "InvitationCanceled",
	}, &struct{}{})
}

// Relation is one of the seat's 1st-degree connections.
type Relation struct {
	MemberID         string `json:"member_id"` // the member id, as a profile's provider_id
	MemberURN        string `json:"member_urn"`
	ConnectionURN    string `json:"connection_urn"`
	PublicIdentifier string `json:"public_identifier"`
	PublicProfileURL string `json:"public_profile_url"`
	FirstName        string `json:"first_name"`
	LastName         string `json:"last_name"`
	Headline         string `json:"headline"`
	PictureURL       string `json:"profile_picture_url"`
	// CreatedAtMillis is when the connection was made, in milliseconds since the epoch.
	CreatedAtMillis int64 `json:"created_at"`
}

// CreatedAt is when the connection was made.
func (r Relation) CreatedAt() time.Time { return time.UnixMilli(r.CreatedAtMillis).UTC() }

// ListRelations lists one page of the seat's connections, in Unipile's order (at most 1000 a
// page); a sync must read them all, as the order is not documented.
func (c *Client) ListRelations(ctx context.Context, accountID string, opts ListOptions) (Page[Relation], error) {
	if err := required("list relations", "account id", accountID); err != nil {
		return Page[Relation]{}, err
	}
	q := opts.query(url.Values{"account_id": {accountID}})
	return list[Relation](ctx, c, call{method: http.MethodGet, path: "/users/relations", query: q, object: "UserRelationsList"})
}
