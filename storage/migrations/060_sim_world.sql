-- The LinkedIn simulator's worlds, kept between processes. A world is one incarnation of the
-- simulated network under a seed (base 'simulator/seed-<n>'); deleting its row starts the next
-- process on a new world with a new name, so the engine's poll cursor and report rows, keyed by
-- the world's name, never mix two worlds' report sequences. clock_at is the simulated clock where
-- the last serving process left it, so a sped-up clock does not jump back on restart.
CREATE TABLE sim_worlds (
    world       text PRIMARY KEY,
    base        text NOT NULL,
    clock_at    timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sim_worlds_base ON sim_worlds (base, created_at DESC);

-- The journal of every call that changed a world, replayed at start-up (the simulator is
-- deterministic, so the replay rebuilds the same seats, invitations, conversations, pending
-- events and reports).
CREATE TABLE sim_calls (
    id     bigserial PRIMARY KEY,
    world  text NOT NULL REFERENCES sim_worlds(world) ON DELETE CASCADE,
    at     timestamptz NOT NULL,
    op     text NOT NULL,
    args   jsonb NOT NULL
);
CREATE INDEX sim_calls_world ON sim_calls (world, id);
