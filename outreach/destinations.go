package outreach

// Destination kinds: where an organization's events go (the CHECK of 010_delivery.sql). An
// https destination is an endpoint signed with HMAC; a slack destination is an incoming
// webhook or a bot token and channel.
const (
	DestinationHTTPS = "https"
	DestinationSlack = "slack"
)
