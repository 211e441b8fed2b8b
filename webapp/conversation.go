package webapp

import (
	"errors"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// One conversation of the Inbox: its messages read live from LinkedIn, oldest first, the person
// beside them, a reply the person signed in writes (sent at once through the engine's approved-
// draft path, which checks stop, block and opt-out again), and Stop and Block, which are
// POST /inbox/stop and POST /inbox/block (the same storage calls, recorded as the person's).

type conversationData struct {
	C        storage.InboxChat
	Name     string
	Person   *outreach.Person
	Profile  string // the LinkedIn profile link, built only from a real handle; "" when none is known
	Messages []outreach.ChatMessage
	Down     bool   // LinkedIn did not answer for the messages
	Reply    string // the text of a refused reply, kept in the field
}

// replyFlashes are the outcomes of a reply, by the engine's status.
var replyFlashes = map[string]string{
	outreach.DraftSent:      "Sent on LinkedIn.",
	outreach.DraftScheduled: "LinkedIn is busy for this seat right now; your reply goes out automatically as soon as it is back.",
	outreach.DraftDismissed: "Nothing was sent: the person is stopped, blocked or opted out, or LinkedIn refused the message.",
}

var conversationFlashes = map[string]string{
	"stopped":         "Stopped: nothing more is sent to them automatically and their campaign sequences are paused where they are. Resume them under Do not contact.",
	"stopped-replies": "Stopped: no reply is drafted or sent to them automatically any more. No campaign sequence of theirs was running, so none was paused. Resume them under Do not contact.",
	"blocked":         "Blocked: they are on the do-not-contact list, their campaign sequences have ended and nothing is sent to them. Unblock them under Do not contact.",
}

func (a *App) chatOf(w http.ResponseWriter, r *http.Request, u User) (storage.InboxChat, bool) {
	c, err := a.store.GetInboxChat(r.Context(), u.OrgID, mux.Vars(r)["id"])
	if err != nil {
		a.fail(w, r, err)
		return c, false
	}
	return c, true
}

func (a *App) conversationPage(w http.ResponseWriter, r *http.Request, u User) {
	c, ok := a.chatOf(w, r, u)
	if !ok {
		return
	}
	q := r.URL.Query()
	flash := conversationFlashes[q.Get("done")]
	if f, ok := replyFlashes[q.Get("sent")]; ok {
		flash = f
		switch {
		case q.Get("sent") != outreach.DraftDismissed:
		case c.Blocked:
			flash = "Nothing was sent: this person is blocked. Unblock them under Do not contact to write to them again."
		case c.Stopped:
			flash = "Nothing was sent: this person is stopped. Resume them under Do not contact to write to them again."
		}
	}
	a.showConversation(w, r, u, c, http.StatusOK, flash, "", "")
}

func (a *App) showConversation(w http.ResponseWriter, r *http.Request, u User, c storage.InboxChat, status int, flash, problem, reply string) {
	if a.deps.Inbox == nil {
		a.renderError(w, r, http.StatusServiceUnavailable, "The live LinkedIn inbox is not available in this process.")
		return
	}
	ctx := r.Context()
	d := conversationData{C: c, Name: c.AttendeeName, Reply: reply}
	msgs, err := a.deps.Inbox.Messages(ctx, c.ProviderChatID)
	if err != nil {
		a.log.Warn("webapp: conversation read failed", "org", u.OrgID, "chat", c.ID, "err", err)
		d.Down, status = true, http.StatusBadGateway
	}
	d.Messages = msgs
	people, err := a.store.InboxPeople(ctx, u.OrgID, []outreach.InboxChat{{AccountID: c.AccountID,
		Chat: outreach.Chat{ID: c.ProviderChatID, ProfileKey: c.Key, AttendeeProviderID: c.AttendeeProviderID}}})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	d.Person = people[0]
	if d.Person != nil && d.Person.LinkedInURL != nil {
		d.Profile = *d.Person.LinkedInURL
	} else if h, ok := strings.CutPrefix(c.Key, "in:"); ok {
		if p, err := outreach.NormalizeProfile(h); err == nil {
			d.Profile = p.URL
		}
	}
	if d.Name == "" {
		d.Name = "This person"
	}
	a.render(w, r, status, "conversation", view{Title: d.Name + " · Inbox", Nav: "inbox", Flash: flash, Error: problem, D: d})
}

func (a *App) sendReply(w http.ResponseWriter, r *http.Request, u User) {
	c, ok := a.chatOf(w, r, u)
	if !ok {
		return
	}
	if a.deps.Replies == nil {
		a.renderError(w, r, http.StatusServiceUnavailable, "Replies cannot be sent from this process.")
		return
	}
	text := strings.ReplaceAll(r.PostFormValue("reply"), "\r\n", "\n")
	out, err := a.deps.Replies.SendReply(r.Context(), outreach.ReplyRequest{OrgID: u.OrgID, ChatID: c.ID, Text: text, Actor: "user:" + u.ID})
	if errors.Is(err, outreach.ErrInvalid) {
		a.showConversation(w, r, u, c, http.StatusBadRequest, "", err.Error(), text)
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.log.Info("webapp: reply sent from the inbox", "chat", c.ID, "status", out.Status, "user", u.ID)
	http.Redirect(w, r, "/app/inbox/"+c.ID+"?sent="+out.Status, http.StatusSeeOther)
}

// personOf is the organization's conversation of the URL and its person as stop and block name
// people; false (answered) when there is no such conversation or it names nobody the service
// could stop.
func (a *App) personOf(w http.ResponseWriter, r *http.Request, u User) (storage.InboxChat, storage.PersonRef, bool) {
	c, ok := a.chatOf(w, r, u)
	if !ok {
		return c, storage.PersonRef{}, false
	}
	if c.Key == "" {
		a.fail(w, r, outreach.Invalidf("this conversation's person has no LinkedIn profile or member id the service knows; nothing can be stopped or blocked"))
		return c, storage.PersonRef{}, false
	}
	return c, c.PersonRef(), true
}

func (a *App) stopFromInbox(w http.ResponseWriter, r *http.Request, u User) {
	c, ref, ok := a.personOf(w, r, u)
	if !ok {
		return
	}
	res, err := a.store.StopPeople(r.Context(), u.OrgID, []storage.PersonRef{ref}, "user:"+u.ID, a.domainNow())
	if err != nil {
		a.fail(w, r, err)
		return
	}
	done := "stopped"
	if res[0].CampaignsPaused == 0 {
		done = "stopped-replies" // their sequences had ended (a reply ends one) or never started
	}
	a.log.Info("webapp: person stopped", "chat", c.ID, "user", u.ID)
	http.Redirect(w, r, "/app/inbox/"+c.ID+"?done="+done, http.StatusSeeOther)
}

type blockData struct {
	C      storage.InboxChat
	Name   string
	Reason string
}

// blockFromInbox asks for an optional reason and says what a block does first; with confirm=yes
// it blocks.
func (a *App) blockFromInbox(w http.ResponseWriter, r *http.Request, u User) {
	c, ref, ok := a.personOf(w, r, u)
	if !ok {
		return
	}
	reason := strings.TrimSpace(r.PostFormValue("reason"))
	name := c.AttendeeName
	if name == "" {
		name = ref.Value
	}
	if r.PostFormValue("confirm") != "yes" {
		a.render(w, r, http.StatusOK, "block", view{Title: "Block " + name, Nav: "inbox", D: blockData{C: c, Name: name, Reason: reason}})
		return
	}
	if err := outreach.CheckBlockReason(reason); err != nil {
		a.render(w, r, http.StatusBadRequest, "block", view{Title: "Block " + name, Nav: "inbox", Error: err.Error(),
			D: blockData{C: c, Name: name, Reason: reason}})
		return
	}
	var why *string
	if reason != "" {
		why = &reason
	}
	if _, err := a.store.BlockPeople(r.Context(), u.OrgID, []storage.PersonRef{ref}, why, "user:"+u.ID, a.domainNow()); err != nil {
		a.fail(w, r, err)
		return
	}
	a.log.Info("webapp: person blocked", "chat", c.ID, "user", u.ID)
	http.Redirect(w, r, "/app/inbox/"+c.ID+"?done=blocked", http.StatusSeeOther)
}
