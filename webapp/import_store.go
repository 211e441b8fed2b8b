package webapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"outreachd/outreach"
	"outreachd/storage"
)

// ImportsDB is what the imports need of storage: the pool of their reads, and the business
// transaction in which a chunk of a file is pushed with the import's progress.
type ImportsDB interface {
	Pool() *pgxpool.Pool
	InTx(ctx context.Context, fn func(*storage.Tx) error) error
}

// Imports keeps the files of leads imported in the application (lead_imports, lead_import_rows,
// lead_import_problems, migration 047): the upload keeps their rows, and PushNextImportChunk
// pushes them through the rules of a push (storage.PushLeadsInTx), a chunk of ImportChunk rows
// per transaction, recording the progress in the same transaction.
type Imports struct {
	db   ImportsDB
	pool *pgxpool.Pool
}

// NewImports builds the imports' records on db.
func NewImports(db ImportsDB) *Imports { return &Imports{db: db, pool: db.Pool()} }

// ImportChunk is how many rows of a file one push takes: the most a push takes through the API.
const ImportChunk = 100

// Import statuses.
const (
	ImportRunning = "running"
	ImportDone    = "done"
	ImportFailed  = "failed"
)

// ReasonUnreadable is the reason of a row of a file that could not be read as a lead.
const ReasonUnreadable = "unreadable"

// LeadImport is one file of leads being imported, or imported.
type LeadImport struct {
	ID, OrgID, CampaignID string
	UserID                *string // who imported it; nil once that person was deleted
	UserEmail             *string
	FileName              string
	Status                string
	// Received counts the file's rows with content; Processed those decided so far.
	Received, Processed                        int
	Accepted, Rejected, Duplicates, Unreadable int
	// Notes are said of the whole file (columns not kept in full, cells past the header).
	Notes                []string
	Error                *string // why a failed import stopped
	CreatedAt, UpdatedAt time.Time
	FinishedAt           *time.Time
}

// ImportRow is a row of a file to push.
type ImportRow struct {
	Row   int // its number in the file, as a spreadsheet numbers it
	Named string
	Lead  outreach.LeadInput
}

// ImportProblem is a row of a file that was refused: Reason is ReasonUnreadable or a push's
// rejection reason, Message says why in the words of the push.
type ImportProblem struct {
	Row                    int
	Named, Reason, Message string
}

// NewLeadImport is a file as the upload read it: the rows to push and the rows already refused.
type NewLeadImport struct {
	OrgID, CampaignID, UserID, FileName string
	Rows                                []ImportRow
	Problems                            []ImportProblem
	Notes                               []string
}

const leadImportColumns = `i.id, i.org_id, i.campaign_id, i.user_id, u.email, i.file_name, i.status, i.received,
	i.processed, i.accepted, i.rejected, i.duplicates, i.unreadable, i.notes, i.error, i.created_at, i.updated_at,
	i.finished_at`

func scanLeadImport(row pgx.Row) (LeadImport, error) {
	var li LeadImport
	err := row.Scan(&li.ID, &li.OrgID, &li.CampaignID, &li.UserID, &li.UserEmail, &li.FileName, &li.Status,
		&li.Received, &li.Processed, &li.Accepted, &li.Rejected, &li.Duplicates, &li.Unreadable, &li.Notes,
		&li.Error, &li.CreatedAt, &li.UpdatedAt, &li.FinishedAt)
	return li, err
}

// CreateLeadImport keeps a file's rows for pushing, in one transaction: a campaign that cannot
// take leads is refused as a push refuses it (not found, or outreach.ErrCampaignClosed), in the
// push's own words.
func (m *Imports) CreateLeadImport(ctx context.Context, in NewLeadImport) (LeadImport, error) {
	id := outreach.NewID("imp")
	unreadable := 0
	for _, p := range in.Problems {
		if p.Reason == ReasonUnreadable {
			unreadable++
		}
	}
	if in.Notes == nil {
		in.Notes = []string{}
	}
	var user *string // nil: nobody signed in took the file in (a fixture)
	if in.UserID != "" {
		user = &in.UserID
	}
	err := m.db.InTx(ctx, func(tx *storage.Tx) error {
		if err := storage.LockOpenCampaign(ctx, tx, in.OrgID, in.CampaignID); err != nil {
			return err
		}
		refused := len(in.Problems)
		status := ImportRunning
		if len(in.Rows) == 0 {
			status = ImportDone
		}
		if _, err := tx.Exec(ctx, `INSERT INTO lead_imports (id, org_id, campaign_id, user_id, file_name, status,
			received, processed, rejected, unreadable, notes, finished_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $6 = 'done' THEN now() END)`,
			id, in.OrgID, in.CampaignID, user, in.FileName, status, refused+len(in.Rows), refused,
			refused-unreadable, unreadable, in.Notes); err != nil {
			return err
		}
		rows := make([][]any, len(in.Rows))
		for i, r := range in.Rows {
			lead, err := json.Marshal(r.Lead)
			if err != nil {
				return err
			}
			rows[i] = []any{id, r.Row, r.Named, lead}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"lead_import_rows"}, []string{"import_id", "row_no", "named", "lead"},
			pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		return insertImportProblems(ctx, tx, id, in.Problems)
	})
	if campaignRefused(err) {
		return LeadImport{}, err
	}
	if err != nil {
		return LeadImport{}, fmt.Errorf("create lead import: %w", err)
	}
	return m.GetLeadImport(ctx, in.OrgID, id)
}

func insertImportProblems(ctx context.Context, tx *storage.Tx, importID string, problems []ImportProblem) error {
	if len(problems) == 0 {
		return nil
	}
	rows := make([][]any, len(problems))
	for i, p := range problems {
		rows[i] = []any{importID, p.Row, p.Named, p.Reason, p.Message}
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"lead_import_problems"},
		[]string{"import_id", "row_no", "named", "reason", "message"}, pgx.CopyFromRows(rows))
	return err
}

// GetLeadImport reads one import of the organization; another organization's is ErrNotFound.
func (m *Imports) GetLeadImport(ctx context.Context, orgID, id string) (LeadImport, error) {
	li, err := scanLeadImport(m.pool.QueryRow(ctx, `SELECT `+leadImportColumns+` FROM lead_imports i
		LEFT JOIN app_users u ON u.id = i.user_id WHERE i.id = $1 AND i.org_id = $2`, id, orgID))
	return li, storage.NotFound(err, "import "+id)
}

// ListLeadImports lists a campaign's newest imports (at most limit).
func (m *Imports) ListLeadImports(ctx context.Context, orgID, campaignID string, limit int) ([]LeadImport, error) {
	rows, err := m.pool.Query(ctx, `SELECT `+leadImportColumns+` FROM lead_imports i
		LEFT JOIN app_users u ON u.id = i.user_id WHERE i.campaign_id = $1 AND i.org_id = $2
		ORDER BY i.created_at DESC, i.id DESC LIMIT $3`, campaignID, orgID, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (LeadImport, error) { return scanLeadImport(r) })
}

// LeadImportProblems is one page of an import's refused rows, in file order, and their number.
func (m *Imports) LeadImportProblems(ctx context.Context, orgID, importID string, limit, offset int) ([]ImportProblem, int, error) {
	var total int
	if err := m.pool.QueryRow(ctx, `SELECT count(*) FROM lead_import_problems p JOIN lead_imports i ON i.id = p.import_id
		WHERE p.import_id = $1 AND i.org_id = $2`, importID, orgID).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := m.pool.Query(ctx, `SELECT p.row_no, p.named, p.reason, p.message FROM lead_import_problems p
		JOIN lead_imports i ON i.id = p.import_id WHERE p.import_id = $1 AND i.org_id = $2
		ORDER BY p.row_no LIMIT $3 OFFSET $4`, importID, orgID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[ImportProblem])
	return out, total, err
}

// PushNextImportChunk pushes the next chunk of the import that has waited longest, in one
// transaction with its progress; it reports whether there was one. Imports are claimed with
// SKIP LOCKED, so several processes share the work and one import is pushed by one at a time.
// A campaign that can no longer take leads (completed or archived meanwhile) ends the import as
// failed, with the push's words.
func (m *Imports) PushNextImportChunk(ctx context.Context) (bool, error) {
	var claimed string
	var stop error
	err := m.db.InTx(ctx, func(tx *storage.Tx) error {
		var orgID, campaignID string
		err := tx.QueryRow(ctx, `SELECT id, org_id, campaign_id FROM lead_imports WHERE status = 'running'
			ORDER BY updated_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`).Scan(&claimed, &orgID, &campaignID)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		err = pushImportChunk(ctx, tx, claimed, orgID, campaignID)
		if campaignRefused(err) {
			stop = err
		}
		return err
	})
	if stop != nil {
		return true, m.failLeadImport(ctx, claimed, stop.Error())
	}
	if err != nil {
		if claimed != "" {
			// Put it behind the others, so an import that keeps failing does not hold them up.
			_, _ = m.pool.Exec(context.WithoutCancel(ctx), `UPDATE lead_imports SET updated_at = now() WHERE id = $1`, claimed)
		}
		return false, fmt.Errorf("push a chunk of import %s: %w", claimed, err)
	}
	return claimed != "", nil
}

// pushImportChunk pushes up to ImportChunk rows of the import and records what the push did.
func pushImportChunk(ctx context.Context, tx *storage.Tx, importID, orgID, campaignID string) error {
	rows, err := tx.Query(ctx, `SELECT row_no, named, lead FROM lead_import_rows WHERE import_id = $1
		ORDER BY row_no LIMIT $2`, importID, ImportChunk)
	if err != nil {
		return err
	}
	chunk, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ImportRow, error) {
		var ir ImportRow
		var raw []byte
		if err := r.Scan(&ir.Row, &ir.Named, &raw); err != nil {
			return ir, err
		}
		return ir, json.Unmarshal(raw, &ir.Lead)
	})
	if err != nil {
		return err
	}
	var res storage.PushResult
	named := make(map[int]string, len(chunk))
	nums := make([]int, len(chunk))
	if len(chunk) > 0 {
		req := storage.PushRequest{OrgID: orgID, CampaignID: campaignID, BatchID: importID, DefaultSource: outreach.SourceCSV}
		for i, r := range chunk {
			req.Leads = append(req.Leads, storage.PushLead{Index: r.Row, Input: r.Lead})
			named[r.Row], nums[i] = r.Named, r.Row
		}
		if res, err = storage.PushLeadsInTx(ctx, tx, req); err != nil {
			return err
		}
	}
	problems := make([]ImportProblem, len(res.Rejected))
	for i, rj := range res.Rejected {
		problems[i] = ImportProblem{Row: rj.Index, Named: named[rj.Index], Reason: rj.Reason, Message: rj.Message}
	}
	if err := insertImportProblems(ctx, tx, importID, problems); err != nil {
		return err
	}
	last := 0
	if len(nums) > 0 {
		last = nums[len(nums)-1]
	}
	// The statement sees the rows as they were before its DELETE: rows after the chunk's last
	// are the ones left.
	_, err = tx.Exec(ctx, `WITH gone AS (DELETE FROM lead_import_rows WHERE import_id = $1 AND row_no = ANY($2)),
		more AS (SELECT EXISTS (SELECT 1 FROM lead_import_rows WHERE import_id = $1 AND row_no > $7) AS left)
		UPDATE lead_imports SET processed = processed + $3, accepted = accepted + $4, rejected = rejected + $5,
			duplicates = duplicates + $6, updated_at = now(),
			status = CASE WHEN more.left THEN 'running' ELSE 'done' END,
			finished_at = CASE WHEN more.left THEN NULL ELSE now() END
		FROM more WHERE id = $1`, importID, nums, len(chunk), len(res.Accepted), len(res.Rejected), res.Duplicates, last)
	return err
}

// failLeadImport ends a running import that cannot go on, with why.
func (m *Imports) failLeadImport(ctx context.Context, id, why string) error {
	return m.db.InTx(ctx, func(tx *storage.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE lead_imports SET status = 'failed', error = $2, updated_at = now(),
			finished_at = now() WHERE id = $1 AND status = 'running'`, id, why); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM lead_import_rows WHERE import_id = $1`, id)
		return err
	})
}

// campaignRefused reports a campaign that cannot take the file's leads (gone, or completed or
// archived), a refusal the person reads in the push's own words.
func campaignRefused(err error) bool {
	return errors.Is(err, outreach.ErrCampaignClosed) || errors.Is(err, outreach.ErrNotFound)
}
