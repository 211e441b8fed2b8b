-- Files of leads imported in the application. The upload reads the whole file and keeps its
-- rows here; a worker pushes them 100 at a time, each push in its own transaction with the
-- import's progress (so a crash repeats no push and loses none), and deletes the rows it pushed.
-- What was refused stays, one row per refused line of the file, for the person to read.
CREATE TABLE lead_imports (
    id           text PRIMARY KEY,
    org_id       text NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
    campaign_id  text NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
    user_id      text REFERENCES app_users(id) ON DELETE SET NULL,
    file_name    text NOT NULL,
    status       text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
    received     integer NOT NULL,
    processed    integer NOT NULL DEFAULT 0,
    accepted     integer NOT NULL DEFAULT 0,
    rejected     integer NOT NULL DEFAULT 0,
    duplicates   integer NOT NULL DEFAULT 0,
    unreadable   integer NOT NULL DEFAULT 0,
    notes        text[] NOT NULL DEFAULT '{}',
    error        text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz
);
CREATE INDEX lead_imports_campaign ON lead_imports (campaign_id, created_at DESC);
CREATE INDEX lead_imports_running ON lead_imports (updated_at) WHERE status = 'running';

-- The rows still to push: the lead as read (outreach.LeadInput) and the cell that named it.
CREATE TABLE lead_import_rows (
    import_id  text NOT NULL REFERENCES lead_imports(id) ON DELETE CASCADE,
    row_no     integer NOT NULL,
    named      text NOT NULL,
    lead       jsonb NOT NULL,
    PRIMARY KEY (import_id, row_no)
);

-- The rows refused: unreadable, or refused by the rules of a push (reason as a push names it).
CREATE TABLE lead_import_problems (
    import_id  text NOT NULL REFERENCES lead_imports(id) ON DELETE CASCADE,
    row_no     integer NOT NULL,
    named      text NOT NULL,
    reason     text NOT NULL,
    message    text NOT NULL,
    PRIMARY KEY (import_id, row_no)
);
