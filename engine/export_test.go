package engine

// What the engine's black-box tests (package engine_test) read inside it.

// EngineProspect is a prospect with where it stands in its sequence.
type EngineProspect = engineProspect

var (
	GetEngineProspect = getEngineProspect
	ServingAlive      = servingAlive
	CampaignLaunches  = campaignLaunches
)
