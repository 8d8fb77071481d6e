"""The symbol map of a workspace: definitions (classes, functions, methods, constants), the
names each file references and the string literals it holds, parsed with tree-sitter grammars
(`tree-sitter-language-pack`), cached on disk under `.swetui/`, ranked like a repository map,
and searched by just-in-time retrieval (`lookup`)."""
