package unipile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"outreachd/outreach"
)

// What Unipile's news means for the engine, whether a webhook brought it or the periodic
// reconciliation found it: the same fact gets the same report and the same dedupe key from
// both, so it is recorded once.

// message is a message in one of the seat's chats, as either source tells it.
type message struct {
	AccountID, ChatID, MessageID, Text string
	At                                 time.Time
	// FromSeat: the seat's owner wrote it (through outreachd or by hand).
	FromSeat bool
	// Member, Name and ProfileURL are the other member's: the sender of a reply, the
	// recipient of the seat's own message.
	Member, Name, ProfileURL string
}

// messageReport is a reply (message_received) or the seat's own message (seat_messaged); ok is
// false for a message without text (an attachment alone), which the engine cannot read.
func messageReport(m message) (outreach.LinkedInReport, bool) {
	if strings.TrimSpace(m.Text) == "" {
		return outreach.LinkedInReport{}, false
	}
	kind := outreach.ReportMessageReceived
	if m.FromSeat {
		kind = outreach.ReportSeatMessaged
	}
	return outreach.LinkedInReport{Kind: kind, AccountID: m.AccountID, ProfileKey: profileKey(m.ProfileURL, m.Member),
		ProviderID: m.Member, AttendeeName: m.Name, ChatID: m.ChatID, MessageID: m.MessageID, Text: m.Text, At: m.At,
		DedupeKey: "message:" + m.AccountID + ":" + m.MessageID}, true
}

// acceptReport is a member who accepted the seat's invitation.
func acceptReport(accountID, member, handle, name string, at time.Time) outreach.LinkedInReport {
	return outreach.LinkedInReport{Kind: outreach.ReportInviteAccepted, AccountID: accountID,
		ProfileKey: profileKey(handle, member), ProviderID: member, AttendeeName: name, At: at,
		DedupeKey: "accepted:" + accountID + ":" + member}
}

// statusNews is what an account status means for its seat: a status that stops it is a
// disconnection, one that says it works again a reconnection (the engine changes nothing for a
// seat that was not down); a status in between (connecting, just created) tells nothing ("").
func statusNews(status string) outreach.LinkedInReportKind {
	switch status {
	case "CREDENTIALS", "ERROR", "STOPPED", "DELETED", "PERMISSIONS":
		return outreach.ReportAccountDisconnected
	case "OK", "RECONNECTED", "SYNC_SUCCESS":
		return outreach.ReportAccountReconnected
	}
	return ""
}

// statusReport is the report of an account status that tells something (statusNews), under
// the dedupe key statusKey made.
func statusReport(accountID, status string, at time.Time, key string) (outreach.LinkedInReport, bool) {
	kind := statusNews(status)
	if kind == "" {
		return outreach.LinkedInReport{}, false
	}
	return outreach.LinkedInReport{Kind: kind, AccountID: accountID, At: at, DedupeKey: key}, true
}

// statusKey names one occurrence of an account status: statusNewsKey's prefix, the status, and
// what separates the occurrence from a later one.
func statusKey(accountID, status, occurrence string) string {
	return statusNewsKey(accountID, status) + status + ":" + occurrence
}

// statusNewsKey begins the key of every status of an account that tells the same news.
func statusNewsKey(accountID, status string) string {
	news := string(statusNews(status))
	if news == "" {
		news = "none"
	}
	return "status:" + accountID + ":" + news + ":"
}

// statusBucketSize is the window within which the same status of one account, with no other
// news of it in between, is one event. Unipile's account status carries no id or time of its
// own; its retries of one webhook come within minutes, and telling the same status twice
// changes nothing for the engine anyway.
const statusBucketSize = 10 * time.Minute

func statusBucket(at time.Time) string {
	return fmt.Sprint(at.Truncate(statusBucketSize).Unix())
}

// profileKey is the lead key a member is known by: their handle's, from a profile address or a
// bare handle, else their member id's.
func profileKey(urlOrHandle, member string) string {
	if urlOrHandle != "" {
		if prof, err := outreach.NormalizeProfile(urlOrHandle); err == nil {
			return prof.Key
		}
	}
	if member != "" {
		return "id:" + member
	}
	return ""
}

// handleOf is the folded handle a profile address or handle names; "" for a member id's.
func handleOf(urlOrHandle string) string {
	if urlOrHandle == "" {
		return ""
	}
	prof, err := outreach.NormalizeProfile(urlOrHandle)
	if err != nil {
		return ""
	}
	return prof.PublicIdentifier
}

// bodyKey names a webhook by its whole body, for a kind that carries no id of its own.
func bodyKey(prefix string, body []byte) string {
	sum := sha256.Sum256(body)
	return prefix + ":" + hex.EncodeToString(sum[:16])
}
