package webapp

import (

	"github.com/gorilla/mux"
)

func (a *App) needsHumanRoutes(sub *mux.Router) {}

// Drafts is replaced once the engine's decisions are merged.
type Drafts interface{}
