package engine

import "outreachd/storage"

func outreachProspect(name string, company *string) storage.Prospect {
	p := storage.Prospect{Name: name}
	p.Company = company
	return p
}
