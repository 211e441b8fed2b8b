package unipilefake

import (
	"slices"
	"time"
)

// The wire shapes, from the object declarations of Unipile's SDK.

func isoMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func bit(b bool) int {
	if b {
		return 1
	}
	return 0
}

func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func renderAccount(a *account) map[string]any {
	features := []string{}
	var contract any
	if a.Premium {
		features = append(features, "premium")
	}
	if a.SalesNavigator {
		features = append(features, "sales_navigator")
	}
	if len(features) > 0 {
		contract = "contract-" + a.ID
	}
	return map[string]any{
		"object": "Account", "type": "LINKEDIN", "id": a.ID, "name": a.Name,
		"created_at": isoMillis(a.createdAt), "groups": []string{},
		"sources": []map[string]any{{"id": a.ID + "_MESSAGING", "status": a.status}},
		"connection_params": map[string]any{"im": map[string]any{
			"id": a.Owner.ProviderID, "username": a.Owner.name(),
			"premiumContractId": contract, "premiumFeatures": features,
		}},
	}
}

// renderProfile is a member as the seat a sees them; sections are the linkedin_sections
// asked for (work experience only with "experience" or "*").
func renderProfile(st *state, a *account, p *Person, sections []string) map[string]any {
	distance := "SECOND_DEGREE"
	related := st.isRelation(a.ID, p.ProviderID)
	if related {
		distance = "FIRST_DEGREE"
	}
	out := map[string]any{
		"object": "UserProfile", "provider": "LINKEDIN", "provider_id": p.ProviderID,
		"public_identifier": p.PublicIdentifier, "first_name": p.FirstName, "last_name": p.LastName,
		"headline": p.Headline, "location": p.Location, "websites": []string{},
		"public_profile_url": p.profileURL(), "is_premium": p.Premium, "is_relationship": related,
		"is_self": p.ProviderID == a.Owner.ProviderID, "network_distance": distance,
		"connections_count": 500, "follower_count": 600,
	}
	if in := st.pendingInvitation(a.ID, p.ProviderID); in != nil {
		out["invitation"] = map[string]any{"type": "SENT", "status": "PENDING"}
	}
	if p.Company != "" && (slices.Contains(sections, "experience") || slices.Contains(sections, "*")) {
		exp := map[string]any{"position": p.Position, "company": p.Company, "current": true, "start": "1/1/2020", "end": nil}
		if p.CompanyID != "" {
			exp["company_id"] = p.CompanyID
		}
		out["work_experience"] = []map[string]any{exp}
	}
	return out
}

func renderOwnProfile(a *account) map[string]any {
	o := a.Owner
	var salesNav any
	if a.SalesNavigator {
		salesNav = map[string]any{"owner_seat_id": "seat-" + a.ID, "contract_id": "contract-" + a.ID}
	}
	return map[string]any{
		"object": "AccountOwnerProfile", "provider": "LINKEDIN", "provider_id": o.ProviderID,
		"entity_urn": "urn:li:fsd_profile:" + o.ProviderID, "object_urn": "urn:li:member:1",
		"first_name": o.FirstName, "last_name": o.LastName, "profile_picture_url": nil,
		"public_identifier": o.PublicIdentifier, "public_profile_url": o.profileURL(),
		"headline": o.Headline, "location": o.Location, "email": o.PublicIdentifier + "@example.com",
		"premium": a.Premium || a.SalesNavigator, "open_profile": false, "recruiter": nil, "sales_navigator": salesNav,
	}
}

func renderCompany(c *Company) map[string]any {
	out := map[string]any{
		"object": "CompanyProfile", "id": c.ID, "name": c.Name, "description": c.Description,
		"entity_urn": "urn:li:fsd_company:" + c.ID, "public_identifier": c.PublicIdentifier,
		"profile_url":     "https://www.linkedin.com/company/" + c.PublicIdentifier + "/",
		"followers_count": 1000, "is_following": false, "is_employee": false,
		"messaging": map[string]any{"is_enabled": false}, "default_locale": "en_US",
		"organization_type": "PRIVATELY_HELD", "employee_count": c.EmployeeCount,
		"locations": []map[string]any{},
	}
	if c.Website != "" {
		out["website"] = c.Website
	}
	if c.Industry != "" {
		out["industry"] = []string{c.Industry}
	}
	if c.Country != "" || c.City != "" {
		out["locations"] = []map[string]any{{"is_headquarter": true, "country": c.Country, "city": c.City, "street": []string{}}}
	}
	return out
}

func renderInvitation(st *state, in *invitation) map[string]any {
	p := st.people[in.providerID]
	return map[string]any{
		"object": "InvitationSent", "id": in.id, "invited_user": p.name(),
		"invited_user_id": p.ProviderID, "invited_user_public_id": p.PublicIdentifier,
		"invited_user_description": orNull(p.Headline), "date": "Sent today",
		"parsed_datetime": isoMillis(in.sentAt), "invitation_text": orNull(in.note),
	}
}

func renderRelation(st *state, r *relation) map[string]any {
	p := st.people[r.providerID]
	return map[string]any{
		"object": "UserRelation", "first_name": p.FirstName, "last_name": p.LastName,
		"headline": p.Headline, "public_identifier": p.PublicIdentifier,
		"public_profile_url": p.profileURL(), "created_at": r.createdAt.UnixMilli(),
		"member_id": p.ProviderID, "member_urn": "urn:li:member:" + p.ProviderID,
		"connection_urn": "urn:li:fsd_connection:" + p.ProviderID,
	}
}

func renderChat(c *chat) map[string]any {
	var ts any
	if at := c.lastAt(); !at.IsZero() {
		ts = isoMillis(at)
	}
	return map[string]any{
		"object": "Chat", "id": c.id, "account_id": c.accountID, "account_type": "LINKEDIN",
		"provider_id": c.providerID, "attendee_provider_id": c.attendee, "name": nil, "type": 0,
		"timestamp": ts, "unread_count": c.unread(), "archived": 0, "muted_until": nil, "read_only": 0,
		"folder": []string{"INBOX", "INBOX_LINKEDIN_CLASSIC"},
	}
}

func renderMessage(c *chat, m *message) map[string]any {
	return map[string]any{
		"object": "Message", "id": m.id, "account_id": c.accountID, "chat_id": c.id,
		"chat_provider_id": c.providerID, "provider_id": m.providerID, "sender_id": m.sender,
		"sender_attendee_id": attendeeID(c.accountID, m.sender), "text": m.text,
		"attachments": []any{}, "timestamp": isoMillis(m.at), "is_sender": bit(m.fromSeat),
		"quoted": nil, "reactions": []any{}, "seen": 0, "seen_by": map[string]any{}, "hidden": 0,
		"deleted": 0, "edited": 0, "is_event": 0, "delivered": 1, "behavior": nil, "original": "{}",
	}
}

func renderAttendee(accountID string, p *Person, self bool) map[string]any {
	return map[string]any{
		"object": "ChatAttendee", "id": attendeeID(accountID, p.ProviderID), "account_id": accountID,
		"provider_id": p.ProviderID, "name": p.name(), "is_self": bit(self), "hidden": 0,
		"profile_url": p.profileURL(),
		"specifics":   map[string]any{"provider": "LINKEDIN", "member_urn": "urn:li:member:" + p.ProviderID},
	}
}

// attendeeID is Unipile's id for a member in a seat's chats: stable per seat and member.
func attendeeID(accountID, providerID string) string {
	return "att-" + accountID + "-" + providerID
}

func renderWebhook(h *webhook) map[string]any {
	headers := []map[string]string{}
	for _, kv := range h.headers {
		headers = append(headers, map[string]string{"key": kv[0], "value": kv[1]})
	}
	accounts := []map[string]string{}
	for _, id := range h.accountIDs {
		accounts = append(accounts, map[string]string{"id": id, "type": "LINKEDIN"})
	}
	out := map[string]any{
		"object": "Webhook", "id": h.id, "account_ids": accounts, "enabled": h.enabled,
		"request_url": h.requestURL, "format": h.format, "headers": headers, "data": []any{}, "type": "AUTO",
	}
	if h.name != "" {
		out["name"] = h.name
	}
	if len(h.events) > 0 {
		out["events"] = h.events
	}
	return out
}
