package outreach

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A file of leads is the export of a CRM or a spreadsheet: UTF-8 text (with or without a byte
// order mark), its cells separated by commas, semicolons (spreadsheets set to a language that
// writes decimal commas) or tabs, quoted cells holding separators, quotes and line breaks, and a
// header row whose names are matched as the intake URL matches field names. Each row becomes the
// same LeadInput a push takes; a row that cannot be read is reported with its number, never
// dropped silently. Cells are kept as written: a cell starting with =, +, - or @ is text, never
// a formula, and nothing here is HTML.

// CSVRow is one row of a file of leads.
type CSVRow struct {
	// Row is the row's number as a spreadsheet shows it: the header is row 1, and a blank line
	// counts as a row.
	Row int
	// Named is the cell that names the person (their profile, else their name, else their
	// email), cut to 200 characters, for telling a refused row apart; "" when there is none.
	Named string
	// IntakeRow holds the lead (checked with LeadInput.Check) or why the row is unreadable; its
	// Index is Row.
	IntakeRow
}

// CSVColumn is one column of the header: its name as written and the lead field it fills ("" for
// an extra column, kept in the lead's data).
type CSVColumn struct {
	Name  string
	Field string
}

// CSVFile is a file of leads as read: its separator, its columns and its rows with content (rows
// whose every cell is blank are left out).
type CSVFile struct {
	Separator rune
	Columns   []CSVColumn
	Rows      []CSVRow
	// LongRows counts the rows with more cells than the header has names; the extra cells are
	// not kept.
	LongRows int
}

const maxNamedLen = 200

// ReadLeadCSV reads a file of leads of at most maxRows rows with content. The error (ErrInvalid)
// says why the whole file cannot be read: not UTF-8 text, no header row, no column naming the
// LinkedIn profile, or more than maxRows rows. A row that cannot be read
// (a cell with a NUL or bytes that are not UTF-8, a broken quote, no profile, a field over its
// limit) is in Rows with its reason.
func ReadLeadCSV(data []byte, maxRows int) (CSVFile, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return CSVFile{}, invalidf("the file is UTF-16 text; save it as \"CSV UTF-8\" and import that")
	}
	data = bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	if len(bytes.TrimSpace(data)) == 0 {
		return CSVFile{}, invalidf("the file is empty")
	}
	sep := csvSeparator(data)
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma, r.FieldsPerRecord = sep, -1
	header, err := r.Read()
	if err != nil {
		return CSVFile{}, invalidf("the header row cannot be read: %s", csvProblem(err))
	}
	f := CSVFile{Separator: sep, Columns: make([]CSVColumn, len(header))}
	profile := false
	for i, name := range header {
		if bad := cellProblem(name); bad != "" {
			return CSVFile{}, invalidf("the header row %s; save the file as \"CSV UTF-8\"", bad)
		}
		name = strings.TrimSpace(name)
		field, _ := CanonicalIntakeField(name)
		f.Columns[i] = CSVColumn{Name: name, Field: field}
		profile = profile || field == "profile"
	}
	if !profile {
		return CSVFile{}, invalidf("no column names the LinkedIn profile: the header row needs a column such as linkedin_url, LinkedIn, Profile URL or URL")
	}
	row, lastLine := 1, 1
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		start, end := recordLines(r, rec, err)
		row += start - lastLine // a blank line is a row of a spreadsheet too
		lastLine = end
		if err != nil {
			f.Rows = append(f.Rows, CSVRow{Row: row, Named: f.named(rec), IntakeRow: IntakeRow{Index: row,
				Unreadable: "the row cannot be read: " + csvProblem(err)}})
		} else if !blankRecord(rec) {
			f.Rows = append(f.Rows, f.readRow(row, rec))
		} else {
			continue
		}
		if len(f.Rows) > maxRows {
			return CSVFile{}, invalidf("the file has more than %d rows of leads; split it and import each part", maxRows)
		}
	}
	if len(f.Rows) == 0 {
		return CSVFile{}, invalidf("the file has a header row but no rows of leads")
	}
	return f, nil
}

// csvSeparator picks the separator that splits the header row into the most cells (a comma when
// none does better).
func csvSeparator(data []byte) rune {
	best, most := ',', 0
	for _, sep := range []rune{',', ';', '\t'} {
		r := csv.NewReader(bytes.NewReader(data))
		r.Comma, r.FieldsPerRecord = sep, -1
		if rec, err := r.Read(); err == nil && len(rec) > most {
			best, most = sep, len(rec)
		}
	}
	return best
}

// recordLines are the lines the record just read starts and ends on.
func recordLines(r *csv.Reader, rec []string, err error) (start, end int) {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.StartLine, pe.Line
	}
	start, _ = r.FieldPos(0)
	end = start
	for _, cell := range rec {
		end += strings.Count(cell, "\n")
	}
	return start, end
}

func csvProblem(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		switch {
		case errors.Is(pe.Err, csv.ErrBareQuote):
			return fmt.Sprintf("a quote (\") inside a cell that does not start with one, on line %d", pe.Line)
		case errors.Is(pe.Err, csv.ErrQuote):
			return fmt.Sprintf("a quoted cell is not closed properly (line %d)", pe.Line)
		}
		return pe.Err.Error()
	}
	return err.Error()
}

func blankRecord(rec []string) bool {
	for _, c := range rec {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// cellProblem says what makes a cell unstorable ("holds a NUL character"), or "".
func cellProblem(cell string) string {
	switch {
	case strings.IndexByte(cell, 0) >= 0:
		return "holds a NUL character"
	case !utf8.ValidString(cell):
		return "holds bytes that are not UTF-8 text"
	}
	return ""
}

// readRow reads the cells of one row under the header.
func (f *CSVFile) readRow(row int, rec []string) CSVRow {
	out := CSVRow{Row: row, Named: f.named(rec), IntakeRow: IntakeRow{Index: row}}
	if len(rec) > len(f.Columns) {
		f.LongRows++
		rec = rec[:len(f.Columns)]
	}
	pairs := make([]LeadField, 0, len(rec))
	for i, cell := range rec {
		if bad := cellProblem(cell); bad != "" {
			out.Unreadable = fmt.Sprintf("the cell in column %s %s; save the file as \"CSV UTF-8\"",
				strconv.Quote(clip(f.Columns[i].Name, 60)), bad)
			return out
		}
		val, _ := json.Marshal(cell) // a valid UTF-8 string always encodes
		pairs = append(pairs, LeadField{Key: f.Columns[i].Name, Value: val})
	}
	out.IntakeRow = IntakeRowFromFields(row, pairs)
	if out.Lead != nil {
		if err := out.Lead.Check(); err != nil {
			out.Lead, out.Unreadable = nil, err.Error()
		}
	}
	return out
}

// named is the first non-blank of the row's profile, name, first and last name, email cells,
// made storable and cut to maxNamedLen characters.
func (f *CSVFile) named(rec []string) string {
	cell := func(field string) string {
		for i, c := range f.Columns {
			if c.Field == field && i < len(rec) && strings.TrimSpace(rec[i]) != "" {
				return strings.TrimSpace(rec[i])
			}
		}
		return ""
	}
	n := cell("profile")
	if n == "" {
		n = cell("name")
	}
	if n == "" {
		n = strings.TrimSpace(cell("first_name") + " " + cell("last_name"))
	}
	if n == "" {
		n = cell("email")
	}
	n = strings.ReplaceAll(strings.ToValidUTF8(n, "\uFFFD"), "\x00", "")
	return clipRunes(n, maxNamedLen)
}
