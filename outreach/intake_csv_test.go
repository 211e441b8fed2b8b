package outreach_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"outreachd/outreach"
)

// rowOf finds the row numbered n.
func rowOf(t *testing.T, f outreach.CSVFile, n int) outreach.CSVRow {
	t.Helper()
	for _, r := range f.Rows {
		if r.Row == n {
			return r
		}
	}
	t.Fatalf("no row %d in %+v", n, f.Rows)
	return outreach.CSVRow{}
}

func TestReadLeadCSV(t *testing.T) {
	t.Parallel()
	t.Run("a CRM export: BOM, semicolons, quoted line breaks, extra columns", func(t *testing.T) {
		data := "\xEF\xBB\xBFFirst Name;Last Name;Company Name;Job Title;LinkedIn URL;Lead Score;Notes\r\n" +
			"Ada;Lovelace;\"Engines; Analytical\";CTO;https://www.linkedin.com/in/ada;42;\"met at\r\nthe fair\"\r\n" +
			";;;;;;\r\n" +
			"\r\n" +
			"Grace;Hopper;Navy;Admiral;linkedin.com/in/grace;7;\r\n"
		f, err := outreach.ReadLeadCSV([]byte(data), 100)
		if err != nil {
			t.Fatal(err)
		}
		if f.Separator != ';' || len(f.Rows) != 2 || f.Columns[4].Field != "profile" || f.Columns[5].Field != "" {
			t.Fatalf("file: %+v", f)
		}
		ada := rowOf(t, f, 2).Lead
		if ada == nil || ada.FirstName != "Ada" || ada.Company != "Engines; Analytical" || ada.Title != "CTO" ||
			ada.Data["Lead Score"] != "42" || ada.Data["Notes"] != "met at\nthe fair" {
			t.Fatalf("Ada: %+v", ada)
		}
		// Row 3 is blank (separators only) and row 4 an empty line: Grace is row 5, as a
		// spreadsheet numbers it, though her row starts on line 6 (Ada's notes span two lines).
		if g := rowOf(t, f, 5); g.Lead == nil || g.Lead.LastName != "Hopper" || g.Named != "linkedin.com/in/grace" {
			t.Fatalf("Grace: %+v", g)
		}
	})
	t.Run("hostile cells stay text", func(t *testing.T) {
		data := "linkedin_url,name,company,title\n" +
			"https://www.linkedin.com/in/eve,<script>alert(1)</script>,\"=HYPERLINK(\"\"http://x\"\")\",@SUM(A1)\n" +
			"https://www.linkedin.com/in/mal,+1 555,-2+3,\"=1+1\"\n"
		f, err := outreach.ReadLeadCSV([]byte(data), 100)
		if err != nil {
			t.Fatal(err)
		}
		eve, mal := rowOf(t, f, 2).Lead, rowOf(t, f, 3).Lead
		if eve.Name != "<script>alert(1)</script>" || eve.Company != `=HYPERLINK("http://x")` || eve.Title != "@SUM(A1)" {
			t.Fatalf("eve: %+v", eve)
		}
		if mal.Name != "+1 555" || mal.Company != "-2+3" || mal.Title != "=1+1" {
			t.Fatalf("mal: %+v", mal)
		}
	})
	t.Run("unreadable rows are named, the others read", func(t *testing.T) {
		data := "Name,Profile URL,Company\n" +
			"Ada,https://www.linkedin.com/in/ada,Acme\n" +
			"Nul,https://www.linkedin.com/in/nul,Ac\x00me\n" +
			"Latin,https://www.linkedin.com/in/latin,Soci\xe9t\xe9\n" +
			"Nobody,,Acme\n" +
			"Long," + "https://www.linkedin.com/in/long," + strings.Repeat("x", 501) + "\n" +
			"Quote,https://www.linkedin.com/in/q,Ac\"me\n" +
			"Last,https://www.linkedin.com/in/last,Acme,extra cell\n"
		f, err := outreach.ReadLeadCSV([]byte(data), 100)
		if err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			row         int
			named, says string
		}{
			{3, "https://www.linkedin.com/in/nul", `the cell in column "Company" holds a NUL character`},
			{4, "https://www.linkedin.com/in/latin", `the cell in column "Company" holds bytes that are not UTF-8 text; save the file as "CSV UTF-8"`},
			{5, "Nobody", "row has no LinkedIn profile"},
			{6, "https://www.linkedin.com/in/long", "company is 501 characters long, at most 500 are allowed"},
			{7, "https://www.linkedin.com/in/q", `a quote (") inside a cell that does not start with one, on line 7`},
		}
		for _, c := range cases {
			r := rowOf(t, f, c.row)
			if r.Lead != nil || !strings.Contains(r.Unreadable, c.says) || r.Named != c.named {
				t.Errorf("row %d: %+v, want unreadable saying %q named %q", c.row, r, c.says, c.named)
			}
		}
		if rowOf(t, f, 2).Lead == nil || rowOf(t, f, 8).Lead == nil || f.LongRows != 1 {
			t.Fatalf("the readable rows: %+v (long rows %d)", f.Rows, f.LongRows)
		}
	})
	t.Run("whole-file problems", func(t *testing.T) {
		many := "linkedin_url\n" + strings.Repeat("https://www.linkedin.com/in/x\n", 11)
		cases := []struct{ name, data, says string }{
			{"empty", " \n", "the file is empty"},
			{"UTF-16", "\xFF\xFEl\x00i\x00", "UTF-16"},
			{"no profile column", "name,company\nAda,Acme\n", "no column names the LinkedIn profile"},
			{"header not UTF-8", "linkedin_url,Soci\xe9t\xe9\nx,y\n", "the header row holds bytes that are not UTF-8 text"},
			{"header only", "linkedin_url,name\n", "no rows of leads"},
			{"too many rows", many, "more than 10 rows of leads"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, err := outreach.ReadLeadCSV([]byte(c.data), 10)
				if err == nil || !strings.Contains(err.Error(), c.says) {
					t.Fatalf("error %v, want one saying %q", err, c.says)
				}
			})
		}
	})
	t.Run("commas and tabs", func(t *testing.T) {
		for _, sep := range []string{",", "\t"} {
			data := strings.ReplaceAll("linkedin_url|first_name|last_name\nhttps://www.linkedin.com/in/ada|Ada|Lovelace\n", "|", sep)
			f, err := outreach.ReadLeadCSV([]byte(data), 10)
			if err != nil || f.Separator != rune(sep[0]) || rowOf(t, f, 2).Lead.LastName != "Lovelace" {
				t.Fatalf("separator %q: %+v %v", sep, f, err)
			}
		}
	})
}

// FuzzReadLeadCSV: any bytes are read without a panic, and what is read can be stored: every
// row is a lead or unreadable, numbered in order, with text PostgreSQL takes.
func FuzzReadLeadCSV(f *testing.F) {
	f.Add([]byte("linkedin_url,name\nhttps://www.linkedin.com/in/ada,Ada\n"))
	f.Add([]byte("\xEF\xBB\xBFProfile;Name\r\n\"a;b\";\"multi\nline\"\r\n\r\n;;\r\nx;\"open\n"))
	f.Add([]byte("linkedin,company\n\"x\"y,\x00\nz,\xff\n"))
	f.Add([]byte("url\tname\n\t\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := outreach.ReadLeadCSV(data, 50)
		if err != nil {
			return
		}
		if len(file.Rows) == 0 || len(file.Rows) > 50 {
			t.Fatalf("%d rows", len(file.Rows))
		}
		storable := func(s string) bool { return utf8.ValidString(s) && !strings.ContainsRune(s, 0) }
		last := 1
		for _, r := range file.Rows {
			if r.Row <= last || r.Index != r.Row {
				t.Fatalf("row %d (index %d) after row %d", r.Row, r.Index, last)
			}
			last = r.Row
			if (r.Lead == nil) == (r.Unreadable == "") {
				t.Fatalf("row %d is both or neither read and unreadable: %+v", r.Row, r)
			}
			if !storable(r.Named) || !storable(r.Unreadable) || utf8.RuneCountInString(r.Named) > 200 {
				t.Fatalf("row %d: unstorable text %q %q", r.Row, r.Named, r.Unreadable)
			}
			if r.Lead != nil {
				if err := r.Lead.Check(); err != nil {
					t.Fatalf("row %d: a read lead fails its check: %v", r.Row, err)
				}
				for _, s := range []string{r.Lead.LinkedInURL, r.Lead.Name, r.Lead.FirstName, r.Lead.Company} {
					if !storable(s) {
						t.Fatalf("row %d: unstorable %q", r.Row, s)
					}
				}
			}
		}
		if bytes.Contains(data, []byte{0}) && len(file.Rows) > 0 {
			for _, r := range file.Rows {
				if r.Lead != nil && strings.ContainsRune(r.Lead.LinkedInURL+r.Lead.Name, 0) {
					t.Fatal("a NUL reached a lead")
				}
			}
		}
	})
}
