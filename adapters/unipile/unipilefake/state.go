package unipilefake

import (
	"crypto/rand"
	"fmt"
	"strings"
	"time"
)

// Person is a LinkedIn member of the fake network.
type Person struct {
	// ProviderID is the member id ("ACoAA…"); generated when empty.
	ProviderID       string
	PublicIdentifier string // the slug of linkedin.com/in/<slug>
	FirstName        string
	LastName         string
	Headline         string
	Location         string
	// The current position, shown as work experience.
	Position  string
	Company   string
	CompanyID string
	Premium   bool
}

func (p Person) name() string { return strings.TrimSpace(p.FirstName + " " + p.LastName) }

func (p Person) profileURL() string {
	return "https://www.linkedin.com/in/" + p.PublicIdentifier + "/"
}

// Company is a LinkedIn company page.
type Company struct {
	ID               string // generated when empty
	PublicIdentifier string
	Name             string
	Description      string
	Website          string
	Industry         string
	EmployeeCount    int
	Country, City    string
}

// Seat is a connected LinkedIn account.
type Seat struct {
	ID    string // generated when empty
	Name  string
	Owner Person // the member signed in; the owner's ProviderID is generated when empty
	// Premium and SalesNavigator are the seat's paid LinkedIn products.
	Premium, SalesNavigator bool
}

type account struct {
	Seat
	status     string // a source status: OK, CREDENTIALS, …
	restricted bool
	createdAt  time.Time
}

type invitation struct {
	id, accountID, providerID, note string
	sentAt                          time.Time
	state                           string // pending, accepted, withdrawn
	closedAt                        time.Time
}

type relation struct {
	accountID, providerID string
	createdAt             time.Time
}

type chat struct {
	id, providerID, accountID, attendee string // attendee: the other member's provider id
	messages                            []*message
}

type message struct {
	id, providerID, chatID, sender, text string // sender: a member's provider id
	fromSeat                             bool
	origin                               string // originAPI, originNote, originHand or originReply
	at                                   time.Time
}

type webhook struct {
	id, name, source, requestURL, format string
	headers                              [][2]string
	events, accountIDs                   []string
	enabled                              bool
}

type hostedLink struct {
	token, url, typ, notifyURL, name, reconnect string
	expires                                     time.Time
	used                                        bool
}

// state is the fake LinkedIn; every access holds Fake.mu.
type state struct {
	seq         int
	accounts    []*account
	people      map[string]*Person // by provider id
	slugs       map[string]string  // lowercased public identifier → provider id
	companies   []*Company
	invitations []*invitation
	relations   []*relation
	chats       []*chat
	webhooks    []*webhook
	links       []*hostedLink
}

func newState() state {
	return state{people: map[string]*Person{}, slugs: map[string]string{}}
}

// randomID is an id like Unipile's: 22 characters of base64url.
func randomID() string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	b := make([]byte, 22)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// memberID is a made-up LinkedIn member id in the "ACoAA…" shape.
func memberID() string {
	return "ACoAA" + strings.NewReplacer("-", "x", "_", "y").Replace(randomID()+randomID()[:12])
}

// AddPerson puts a member in the network and returns it with its ids filled.
func (f *Fake) AddPerson(p Person) (Person, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.addPerson(p)
}

func (st *state) addPerson(p Person) (Person, error) {
	if p.ProviderID == "" {
		p.ProviderID = memberID()
	}
	if p.PublicIdentifier == "" {
		p.PublicIdentifier = strings.ToLower(p.FirstName + "-" + p.LastName + "-" + p.ProviderID[len(p.ProviderID)-6:])
	}
	slug := strings.ToLower(p.PublicIdentifier)
	if _, dup := st.people[p.ProviderID]; dup {
		return Person{}, fmt.Errorf("unipilefake: member %s already exists", p.ProviderID)
	}
	if _, dup := st.slugs[slug]; dup {
		return Person{}, fmt.Errorf("unipilefake: public identifier %s already taken", p.PublicIdentifier)
	}
	st.people[p.ProviderID] = &p
	st.slugs[slug] = p.ProviderID
	return p, nil
}

// AddSeat connects an account and returns it with its ids filled; its status is OK.
func (f *Fake) AddSeat(s Seat) (Seat, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st.addSeat(s, f.now())
}

func (st *state) addSeat(s Seat, now time.Time) (Seat, error) {
	if s.ID == "" {
		s.ID = randomID()
	}
	if st.account(s.ID) != nil {
		return Seat{}, fmt.Errorf("unipilefake: account %s already exists", s.ID)
	}
	owner, err := st.addPerson(s.Owner)
	if err != nil {
		return Seat{}, err
	}
	s.Owner = owner
	st.accounts = append(st.accounts, &account{Seat: s, status: "OK", createdAt: now})
	return s, nil
}

// AddCompany puts a company page in the network and returns it with its id filled.
func (f *Fake) AddCompany(c Company) Company {
	f.mu.Lock()
	defer f.mu.Unlock()
	if c.ID == "" {
		f.st.seq++
		c.ID = fmt.Sprint(1000000 + f.st.seq)
	}
	f.st.companies = append(f.st.companies, &c)
	return c
}

func (st *state) account(id string) *account {
	for _, a := range st.accounts {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// person finds a member by provider id or public identifier.
func (st *state) person(identifier string) *Person {
	if p := st.people[identifier]; p != nil {
		return p
	}
	return st.people[st.slugs[strings.ToLower(identifier)]]
}

func (st *state) isRelation(accountID, providerID string) bool {
	return st.relationOf(accountID, providerID) != nil
}

func (st *state) relationOf(accountID, providerID string) *relation {
	for _, r := range st.relations {
		if r.accountID == accountID && r.providerID == providerID {
			return r
		}
	}
	return nil
}

// pendingInvitation is the seat's pending invitation to a member, or nil.
func (st *state) pendingInvitation(accountID, providerID string) *invitation {
	for _, in := range st.invitations {
		if in.accountID == accountID && in.providerID == providerID && in.state == "pending" {
			return in
		}
	}
	return nil
}

// chatWith is the seat's 1:1 chat with a member, or nil.
func (st *state) chatWith(accountID, providerID string) *chat {
	for _, c := range st.chats {
		if c.accountID == accountID && c.attendee == providerID {
			return c
		}
	}
	return nil
}

func (st *state) chat(id string) *chat {
	for _, c := range st.chats {
		if c.id == id {
			return c
		}
	}
	return nil
}

// addMessage appends a message to a chat (opening the chat when needed) and returns it.
func (st *state) addMessage(accountID, providerID, sender, text string, fromSeat bool, at time.Time) (*chat, *message) {
	c := st.chatWith(accountID, providerID)
	if c == nil {
		c = &chat{id: randomID(), providerID: "2-" + randomID(), accountID: accountID, attendee: providerID}
		st.chats = append(st.chats, c)
	}
	m := &message{id: randomID(), providerID: "2-" + randomID(), chatID: c.id, sender: sender, text: text, fromSeat: fromSeat, at: at}
	c.messages = append(c.messages, m)
	return c, m
}

func (c *chat) lastAt() time.Time {
	if len(c.messages) == 0 {
		return time.Time{}
	}
	return c.messages[len(c.messages)-1].at
}

// unread counts the member's messages after the seat's last one.
func (c *chat) unread() int {
	n := 0
	for _, m := range c.messages {
		if m.fromSeat {
			n = 0
		} else {
			n++
		}
	}
	return n
}
