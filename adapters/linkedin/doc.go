// Package linkedin is the service's way to LinkedIn: a Simulator that behaves like the real
// network for tests, local runs and demos, speaking the LinkedIn provider port in package
// outreach's words (ProfileRef, ProviderAccount, Chat, LinkedInReport and the provider errors).
// Its consumers declare the interfaces they need in those words (the engine's LinkedIn and
// Operator ports, the API's inbox reader), and the Simulator implements them directly.
//
// It must not know about campaigns, the service's storage or webhooks: the engine decides what
// to send and records what happened; this package only carries actions out and reports events.
// It imports only outreach (and pgx for the simulator's own journal, sim_world_pg.go).
package linkedin
