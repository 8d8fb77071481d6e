"""MCP servers: their configuration, connections, tools as items, calls and status.

A regular package (not a namespace one), so packaging and the import contracts see it."""
