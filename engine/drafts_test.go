package engine_test

import (
	"errors"
	"testing"

	"outreachd/outreach"
)

// queued runs a conversation up to a needs-human item for handle and returns the item's id, its
// chat and the draft it holds.
func (w *world) queued(handle, text string) (item, chat, draft string) {
	w.t.Helper()
	_, pid := w.messaged(handle)
	evs := w.reply(handle, text)
	nh := only(evs, outreach.EventNeedsHuman)
	if len(nh) != 1 {
		w.t.Fatalf("want one needs_human: %v", kinds(evs))
	}
	if err := w.st.Pool().QueryRow(w.ctx, `SELECT id, chat_id, coalesce(draft_id, '') FROM needs_human
		WHERE prospect_id = $1 AND resolved_at IS NULL`, pid).Scan(&item, &chat, &draft); err != nil {
		w.t.Fatal(err)
	}
	return item, chat, draft
}

// lastSimMessage is the newest message the LinkedIn simulator holds in a chat.
func (w *world) lastSimMessage(chat string) (text string, fromMe bool) {
	w.t.Helper()
	var provider string
	if err := w.st.Pool().QueryRow(w.ctx, `SELECT provider_chat_id FROM chats WHERE id = $1`, chat).Scan(&provider); err != nil {
		w.t.Fatal(err)
	}
	ms, err := w.sim.Messages(w.ctx, provider)
	if err != nil || len(ms) == 0 {
		w.t.Fatalf("simulator messages of %s: %v (%d)", provider, err, len(ms))
	}
	m := ms[len(ms)-1]
	return m.Text, m.FromMe
}

func TestApproveDraft(t *testing.T) {
	t.Parallel()
	t.Run("as drafted", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, monday, worldOpt{})
		item, chat, draft := w.queued("ada", "Could you send me an email with the details?")
		if draft == "" {
			t.Fatal("the item holds no draft")
		}
		var aiDraft string
		if err := w.st.Pool().QueryRow(w.ctx, `SELECT ai_draft FROM needs_human WHERE id = $1`, item).Scan(&aiDraft); err != nil {
			t.Fatal(err)
		}
		n := len(w.events())
		out, err := w.eng.ApproveDraft(w.ctx, outreach.DraftDecision{OrgID: w.org, ItemID: item, Actor: "user:usr_test"})
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != outreach.DraftSent || out.DraftID != draft || out.ChatID != chat || out.Text != aiDraft {
			t.Fatalf("outcome %+v, want sent draft %s %q", out, draft, aiDraft)
		}
		if text, fromMe := w.lastSimMessage(chat); !fromMe || text != aiDraft {
			t.Fatalf("LinkedIn's last message %q from_me=%v, want the draft", text, fromMe)
		}
		wantKinds(t, w.since(n), "message_sent")
		if w.count(`SELECT count(*) FROM needs_human WHERE id = $1 AND resolution = 'approved'
			AND resolved_by = 'user:usr_test' AND resolved_at IS NOT NULL`, item) != 1 {
			t.Fatal("item not closed as approved")
		}
		_, err = w.eng.ApproveDraft(w.ctx, outreach.DraftDecision{OrgID: w.org, ItemID: item})
		if !errors.Is(err, outreach.ErrConflict) {
			t.Fatalf("second approval: %v, want a conflict", err)
		}
		if _, err := w.eng.DismissDraft(w.ctx, outreach.DraftDecision{OrgID: w.org, ItemID: item}); !errors.Is(err, outreach.ErrConflict) {
			t.Fatalf("dismiss after approval: %v, want a conflict", err)
		}
		wantKinds(t, w.since(n), "message_sent")
	})
	t.Run("edited text is the person's", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, monday, worldOpt{})
		item, chat, _ := w.queued("bea", "Quick question: am I talking to a bot?")
		mine := "  Hi Bea, it's Sam here in person. Happy to talk on Thursday.  "
		out, err := w.eng.ApproveDraft(w.ctx, outreach.DraftDecision{OrgID: w.org, ItemID: item, Text: &mine})
		if err != nil || out.Status != outreach.DraftSent {
			t.Fatalf("approve: %+v %v", out, err)
		}
		if text, _ := w.lastSimMessage(chat); text != "Hi Bea, it's Sam here in person. Happy to talk on Thursday." {
			t.Fatalf("sent %q, want the edited text trimmed", text)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, monday, worldOpt{})
		item, _, _ := w.queued("cyd", "Could you send me an email with the details?")
		other, err := w.st.CreateOrg(w.ctx, "Other "+t.Name(), nil)
		if err != nil {
			t.Fatal(err)
		}
		blank := " \n "
		long := string(make([]rune, outreach.MaxReplyText+1))
		cases := []struct {
			name string
			d    outreach.DraftDecision
			want error
		}{
			{"another organization", outreach.DraftDecision{OrgID: other.ID, ItemID: item}, outreach.ErrNotFound},
			{"unknown item", outreach.DraftDecision{OrgID: w.org, ItemID: "nhu_unknown"}, outreach.ErrNotFound},
			{"blank text", outreach.DraftDecision{OrgID: w.org, ItemID: item, Text: &blank}, outreach.ErrInvalid},
			{"text too long", outreach.DraftDecision{OrgID: w.org, ItemID: item, Text: &long}, outreach.ErrInvalid},
		}
		n := len(w.events())
		for _, c := range cases {
			if _, err := w.eng.ApproveDraft(w.ctx, c.d); !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", c.name, err, c.want)
			}
		}
		if _, err := w.eng.DismissDraft(w.ctx, outreach.DraftDecision{OrgID: other.ID, ItemID: item}); !errors.Is(err, outreach.ErrNotFound) {
			t.Errorf("dismiss from another organization: %v", err)
		}
		wantKinds(t, w.since(n))
		if w.count(`SELECT count(*) FROM needs_human WHERE id = $1 AND resolved_at IS NULL`, item) != 1 {
			t.Fatal("a refused decision closed the item")
		}
	})
	t.Run("dismiss sends nothing", func(t *testing.T) {
		t.Parallel()
		w := newWorld(t, monday, worldOpt{})
		item, _, draft := w.queued("dee", "Could you send me an email with the details?")
		n := len(w.events())
		out, err := w.eng.DismissDraft(w.ctx, outreach.DraftDecision{OrgID: w.org, ItemID: item, Actor: "key:key_x"})
		if err != nil || out.Status != outreach.DraftDismissed || out.DraftID != draft {
			t.Fatalf("dismiss: %+v %v", out, err)
		}
		w.pass()
		wantKinds(t, w.since(n))
		if w.count(`SELECT count(*) FROM reply_drafts WHERE id = $1 AND status = 'dismissed'`, draft) != 1 ||
			w.count(`SELECT count(*) FROM needs_human WHERE id = $1 AND resolution = 'dismissed'`, item) != 1 {
			t.Fatal("draft or item not dismissed")
		}
	})
}
