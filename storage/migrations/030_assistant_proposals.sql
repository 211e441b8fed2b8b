-- Proposals of the assistant (MCP) server: a tool that would change something stores what it
-- would do here and changes nothing; confirm_proposal claims the row (confirmed_at) and carries
-- it out once. proposed_by is who asked: "key:<key id>" or "oauth:<client>:<user>".
CREATE TABLE assistant_proposals (
    id            text PRIMARY KEY,
    org_id        text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    proposed_by   text NOT NULL,
    tool          text NOT NULL,
    arguments     jsonb NOT NULL,
    summary       text NOT NULL,
    irreversible  boolean NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz NOT NULL,
    confirmed_at  timestamptz,
    confirmed_by  text,
    -- outcome of carrying it out: the tool's answer (JSON) or the error a person reads.
    result        jsonb,
    error         text
);

-- The janitor deletes proposals a while after they expired (ProposalRetention).
CREATE INDEX assistant_proposals_expires ON assistant_proposals (expires_at);
