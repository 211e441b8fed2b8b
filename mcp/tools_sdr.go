package mcp

func (s *Server) sdrTools() []*toolDef { return nil }
