; Shared by javascript.scm and typescript.scm: imports and calls.
(program (import_statement) @skip)
(import_statement source: (string) @import)
(export_statement source: (string) @import)
(call_expression
  function: (identifier) @_req
  arguments: (arguments . (string) @import)
  (#eq? @_req "require"))

((call_expression function: (identifier) @call) (#not-eq? @call "require"))
(call_expression function: (member_expression object: (_) @call.recv property: (property_identifier) @call))
