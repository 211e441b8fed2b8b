-- The LinkedIn simulator's world, kept between processes: the journal of every call that changed
-- it (replayed at start-up; the simulator is deterministic, so the replay rebuilds the same
-- seats, invitations, conversations, pending events and reports) and the simulated clock where
-- the last serving process left it, so a sped-up clock does not jump back on restart.
CREATE TABLE sim_calls (
    id     bigserial PRIMARY KEY,
    world  text NOT NULL,
    at     timestamptz NOT NULL,
    op     text NOT NULL,
    args   jsonb NOT NULL
);
CREATE INDEX sim_calls_world ON sim_calls (world, id);

CREATE TABLE sim_worlds (
    world       text PRIMARY KEY,
    clock_at    timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
