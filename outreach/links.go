package outreach

import "net/url"

// Links in event payloads (needs_human.inbox_url, account.reconnect_url, report.share_url) point
// at keyed JSON resources of the API on the service's PUBLIC_URL, so each one resolves; the
// engine and the API build them with these functions only.

// ConversationURL is inbox_url: GET /api/v1/conversations/{chat_id}.
func ConversationURL(publicURL, chatID string) string {
	return publicURL + "/api/v1/conversations/" + chatID
}

// AccountURL is reconnect_url: GET /api/v1/accounts/{account_id}, the seat's status.
func AccountURL(publicURL, accountID string) string {
	return publicURL + "/api/v1/accounts/" + accountID
}

// ReportURL is share_url: GET /api/v1/reports/{type}/{first day}, the report's counters.
func ReportURL(publicURL, reportType, firstDay string) string {
	return publicURL + "/api/v1/reports/" + reportType + "/" + firstDay
}

// IsOrigin reports whether s is an http(s) origin, as PUBLIC_URL must be: a scheme and a host,
// no query and no fragment.
func IsOrigin(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.RawQuery == "" && u.Fragment == ""
}
