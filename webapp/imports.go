package webapp

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/gorilla/mux"

	"outreachd/outreach"
	"outreachd/storage"
)

// Import leads: a CSV file posted on a campaign's page is read whole (outreach.ReadLeadCSV: the
// header matched as the intake URL matches names), screened by the rules of a push that need no
// database across the whole file (a profile that is not LinkedIn's, the same person twice), and
// kept as an import record; the import worker (RunImports) then pushes its rows 100 at a time
// through the push's own code, and the import's page shows the progress, reloading itself, and
// then what was refused, row by row.

func (a *App) importRoutes(sub *mux.Router) {
	sub.HandleFunc("/campaigns/{id}/imports", a.page(a.importLeads)).Methods(http.MethodPost)
	sub.HandleFunc("/campaigns/{id}/imports/{imp}", a.page(a.importPage)).Methods(http.MethodGet)
}

// importForm is the Import leads section of a campaign's page.
type importForm struct {
	Closed   bool // the campaign takes no leads
	Error    string
	MaxRows  int
	MaxBytes int64
	MaxMB    int64
	Columns  []columnNames
}

// columnNames are the header names a lead field is read from.
type columnNames struct {
	Field string
	Names string
}

func (a *App) importForm(c storage.Campaign, err error) importForm {
	f := importForm{Closed: c.Status.Closed(), MaxRows: a.cfg.MaxImportRows, MaxBytes: a.cfg.MaxImportBytes,
		MaxMB: a.cfg.MaxImportBytes >> 20}
	if err != nil {
		f.Error = err.Error()
	}
	names := outreach.IntakeFieldNames()
	for _, field := range outreach.IntakeFields {
		f.Columns = append(f.Columns, columnNames{Field: field, Names: strings.Join(names[field], ", ")})
	}
	return f
}

// errFileTooBig is an upload over the size limit (413).
var errFileTooBig = errors.New("file too big")

func (a *App) importLeads(w http.ResponseWriter, r *http.Request, u User) {
	c, ok := a.campaignOf(w, r, u)
	if !ok {
		return
	}
	refuse := func(status int, err error) {
		a.showCampaign(w, r, u, c, campaignExtras{Status: status, ImportErr: err})
	}
	if c.Status.Closed() {
		refuse(http.StatusConflict, fmt.Errorf("campaign %s is %s and cannot take new leads: %w", c.ID, c.Status, outreach.ErrCampaignClosed))
		return
	}
	// The form's own fields and multipart framing take a few kilobytes besides the file.
	r.Body = http.MaxBytesReader(w, r.Body, a.cfg.MaxImportBytes+64<<10)
	name, data, err := readUpload(r, "file", a.cfg.MaxImportBytes)
	switch {
	case errors.Is(err, errFileTooBig):
		refuse(http.StatusRequestEntityTooLarge, fmt.Errorf("the file is larger than %d MB; split it and import each part", a.cfg.MaxImportBytes>>20))
		return
	case err != nil:
		refuse(http.StatusBadRequest, err)
		return
	}
	file, err := outreach.ReadLeadCSV(data, a.cfg.MaxImportRows)
	if err != nil {
		refuse(http.StatusBadRequest, fmt.Errorf("%s: %w", name, err))
		return
	}
	in := takeIn(file)
	in.OrgID, in.CampaignID, in.UserID, in.FileName = u.OrgID, c.ID, u.ID, name
	imp, err := a.imports.CreateLeadImport(r.Context(), in)
	if errors.Is(err, outreach.ErrCampaignClosed) {
		refuse(http.StatusConflict, err)
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	a.log.Info("webapp: leads import", "campaign", c.ID, "import", imp.ID, "rows", imp.Received, "actor", "user:"+u.ID)
	a.wakeImports()
	http.Redirect(w, r, "/app/campaigns/"+c.ID+"/imports/"+imp.ID, http.StatusSeeOther)
}

// readUpload reads the file of field from a multipart form, at most max bytes, and its name as
// the browser gave it (without any folder, made storable, at most 200 characters).
func readUpload(r *http.Request, field string, max int64) (string, []byte, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return "", nil, outreach.Invalidf("the file must be sent from the Import leads form (a multipart upload)")
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return "", nil, outreach.Invalidf("choose a CSV file to import")
		}
		if err != nil {
			return "", nil, uploadProblem(err)
		}
		if part.FormName() != field {
			continue
		}
		name := fileName(part)
		data, err := io.ReadAll(io.LimitReader(part, max+1))
		if err != nil {
			return "", nil, uploadProblem(err)
		}
		if int64(len(data)) > max {
			return "", nil, errFileTooBig
		}
		if name == "" && len(data) == 0 {
			return "", nil, outreach.Invalidf("choose a CSV file to import")
		}
		return name, data, nil
	}
}

func uploadProblem(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return errFileTooBig
	}
	return outreach.Invalidf("the upload could not be read; try again")
}

func fileName(p *multipart.Part) string {
	n := path.Base(strings.ReplaceAll(p.FileName(), "\\", "/"))
	n = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(n, ""))
	if n == "." || n == "/" || n == "" {
		n = "upload.csv"
	}
	if len([]rune(n)) > 200 {
		n = string([]rune(n)[:200])
	}
	return n
}

// takeIn turns a file as read into an import: unreadable rows and rows the push would refuse
// without asking the database (not a LinkedIn profile, the same person as an earlier row) are
// refused now, across the whole file; the others wait for the worker.
func takeIn(file outreach.CSVFile) NewLeadImport {
	var in NewLeadImport
	screen := outreach.NewPushScreenOf(outreach.SourceCSV, func(row int) string { return fmt.Sprintf("row %d of the file", row) })
	warned := map[string]bool{}
	var warnings []string
	for _, row := range file.Rows {
		if row.Lead == nil {
			in.Problems = append(in.Problems, ImportProblem{Row: row.Row, Named: row.Named, Reason: ReasonUnreadable, Message: row.Unreadable})
			continue
		}
		for _, w := range row.Warnings {
			if !warned[w] && len(warnings) < 10 {
				warned[w] = true
				warnings = append(warnings, w)
			}
		}
		if _, ans, ok := screen.Screen(row.Row, *row.Lead); !ok {
			in.Problems = append(in.Problems, ImportProblem{Row: row.Row, Named: row.Named, Reason: ans.Rejected.Reason, Message: ans.Rejected.Message})
			continue
		}
		in.Rows = append(in.Rows, ImportRow{Row: row.Row, Named: row.Named, Lead: *row.Lead})
	}
	in.Notes = append([]string{columnsInWords(file)}, warnings...)
	if file.LongRows > 0 {
		in.Notes = append(in.Notes, fmt.Sprintf("%d rows have more cells than the header has names; the cells past the last named column were not kept.", file.LongRows))
	}
	return in
}

// columnsInWords says how the header was read.
func columnsInWords(file outreach.CSVFile) string {
	var read, extra []string
	for _, c := range file.Columns {
		switch {
		case c.Name == "":
		case c.Field != "":
			read = append(read, strconv.Quote(c.Name)+" → "+c.Field)
		default:
			extra = append(extra, strconv.Quote(c.Name))
		}
	}
	out := "Columns read: " + strings.Join(read, ", ") + "."
	if len(extra) > 0 {
		out += " Kept in each lead's data: " + strings.Join(extra, ", ") + "."
	}
	return out
}

// importView is an import's page.
type importView struct {
	C        storage.Campaign
	I        LeadImport
	Percent  int
	Problems []ImportProblem
	Total    int
	Page     int
	Pages    int
}

const problemsPerPage = 100

func (a *App) importPage(w http.ResponseWriter, r *http.Request, u User) {
	c, ok := a.campaignOf(w, r, u)
	if !ok {
		return
	}
	id := mux.Vars(r)["imp"]
	if !outreach.ValidID("imp", id) {
		a.fail(w, r, outreach.NotFound("import %s", id))
		return
	}
	imp, err := a.imports.GetLeadImport(r.Context(), u.OrgID, id)
	if err == nil && imp.CampaignID != c.ID {
		err = outreach.NotFound("import %s", id)
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	v := importView{C: c, I: imp}
	if v.Page, err = pageParam(r.URL.Query(), 1000); err != nil {
		a.fail(w, r, err)
		return
	}
	if imp.Received > 0 {
		v.Percent = imp.Processed * 100 / imp.Received
	}
	if v.Problems, v.Total, err = a.imports.LeadImportProblems(r.Context(), u.OrgID, imp.ID, problemsPerPage, (v.Page-1)*problemsPerPage); err != nil {
		a.fail(w, r, err)
		return
	}
	v.Pages = pageCount(v.Total, problemsPerPage)
	vw := view{Title: "Import of " + imp.FileName, Nav: "campaigns", D: v}
	if imp.Status == ImportRunning {
		vw.Refresh = 2
	}
	a.render(w, r, http.StatusOK, "import", vw)
}

// reasonLabels name the reasons a row of a file was refused.
var reasonLabels = map[string]string{
	ReasonUnreadable:                  "unreadable",
	outreach.RejectInvalidLinkedInURL: "not a LinkedIn profile",
	outreach.RejectDuplicateInRequest: "twice in the file",
	outreach.RejectBlacklisted:        "do not contact",
	outreach.RejectInAnotherCampaign:  "in another campaign",
	outreach.RejectHardFilter:         "excluded by the filters",
}
