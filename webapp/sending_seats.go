package webapp

import (
	"fmt"
	"strings"

	"outreachd/storage"
)

// The seats a campaign sends from, as the engine picks them, said the same way on the launch
// preview and on a launched campaign's page. An outbound campaign that lists seats shares its
// people among those that still exist (each new person to the one with the fewest of them so
// far, connected seats first), an inbound one writes from its first; one that lists none sends
// from the organization's oldest seat.

// connectSeatHint says where a seat is connected.
const connectSeatHint = "Connect one on the LinkedIn accounts page, with Connect LinkedIn account."

// sendingSeats are the seats a campaign sends from.
type sendingSeats struct {
	Seats  []storage.LinkedInAccount // in the campaign's order; the oldest seat alone when none is listed
	Listed bool                      // the campaign lists its seats
	Gone   int                       // seats the campaign lists that no longer exist
}

func sendingSeatsOf(seats []storage.LinkedInAccount, listed []string) sendingSeats {
	if len(listed) == 0 {
		if pick := oldestSeat(seats); pick != nil {
			return sendingSeats{Seats: []storage.LinkedInAccount{*pick}}
		}
		return sendingSeats{}
	}
	out := sendingSeats{Listed: true}
	for _, id := range listed {
		found := false
		for _, s := range seats {
			if s.ID == id {
				out.Seats, found = append(out.Seats, s), true
				break
			}
		}
		if !found {
			out.Gone++
		}
	}
	return out
}

// oldestSeat is the seat a campaign that lists none sends from: the organization's oldest,
// a connected one before a disconnected one; nil when the organization has none.
func oldestSeat(seats []storage.LinkedInAccount) *storage.LinkedInAccount {
	var pick *storage.LinkedInAccount
	for i := range seats { // oldest first
		if pick == nil || (pick.Status == "disconnected" && seats[i].Status != "disconnected") {
			pick = &seats[i]
		}
	}
	return pick
}

// missing says why there is no seat to send from; "" when there is one.
func (s sendingSeats) missing() string {
	switch {
	case len(s.Seats) > 0:
		return ""
	case s.Listed && s.Gone == 1:
		return "the seat this campaign lists no longer exists"
	case s.Listed:
		return "none of the seats this campaign lists exists any more"
	}
	return "no LinkedIn account is connected to this organization yet"
}

// connected counts the seats LinkedIn lets send now.
func (s sendingSeats) connected() int {
	n := 0
	for _, seat := range s.Seats {
		if seat.Status == "connected" {
			n++
		}
	}
	return n
}

// seatsView is the seats as a page says them: a line per seat, and a note on how they share.
type seatsView struct {
	Lines []string
	Note  string
}

// view says the seats; inbound campaigns write to connections, who are the connections of the
// first seat listed (or of the seat a person is already in touch with), so they are not shared.
func (s sendingSeats) view(inbound bool) seatsView {
	if m := s.missing(); m != "" {
		return seatsView{Lines: []string{m}}
	}
	var v seatsView
	for _, seat := range s.Seats {
		v.Lines = append(v.Lines, seat.Name+" ("+seatStatus(seat)+")")
	}
	if !s.Listed {
		v.Lines[0] += ", the organization's oldest seat"
	}
	var note []string
	switch {
	case len(s.Seats) > 1 && inbound:
		note = append(note, "An inbound campaign writes to connections: from the seat a person is already in touch with, else from the first of these seats.")
	case len(s.Seats) > 1:
		note = append(note, "The campaign's people are shared among these seats: each new person goes to the one with the fewest of them so far, and stays with the seat that first reached them.")
	}
	if s.Gone > 0 {
		note = append(note, s.goneWords()+".")
	}
	v.Note = strings.Join(note, " ")
	return v
}

func (s sendingSeats) goneWords() string {
	if s.Gone == 1 {
		return "1 more seat this campaign lists no longer exists"
	}
	return fmt.Sprintf("%d more seats this campaign lists no longer exist", s.Gone)
}

// warnings say what will not go out as the person may expect: a seat LinkedIn does not let
// send, a listed seat that is gone. None of them stops a launch.
func (s sendingSeats) warnings() []string {
	if len(s.Seats) == 0 {
		return nil
	}
	if len(s.Seats) == 1 {
		var out []string
		if s.Seats[0].Status != "connected" {
			out = append(out, "The seat is "+seatStatus(s.Seats[0])+"; nothing goes out from it until LinkedIn lets it again.")
		}
		if s.Gone > 0 {
			out = append(out, s.goneWords()+"; the campaign sends from "+s.Seats[0].Name+" alone.")
		}
		return out
	}
	var out []string
	others := "new people go to the campaign's connected seats."
	if s.connected() == 0 {
		others = "none of the campaign's seats is connected, so nothing goes out until one is."
	}
	for _, seat := range s.Seats {
		if seat.Status != "connected" {
			out = append(out, seat.Name+" is "+seatStatus(seat)+". The people it already reached wait for it; "+others)
		}
	}
	if s.Gone > 0 {
		out = append(out, s.goneWords()+"; the campaign sends from the others.")
	}
	return out
}

func seatStatus(a storage.LinkedInAccount) string {
	switch a.Status {
	case "rate_limited":
		if a.CooldownUntil != nil {
			return "rate limited by LinkedIn until " + a.CooldownUntil.UTC().Format("2006-01-02 15:04 UTC")
		}
		return "rate limited by LinkedIn"
	case "disconnected":
		return "disconnected: nothing is sent from it until it is reconnected"
	}
	return a.Status
}
