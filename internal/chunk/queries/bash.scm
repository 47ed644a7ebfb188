; Bash: function definitions; "source f" / ". f" are imports; only calls to
; functions defined in the same file are kept (spec).
(function_definition name: (word) @name) @function

(command
  name: (command_name (word) @_src)
  argument: (_) @import
  (#any-of? @_src "source" "."))

(command name: (command_name (word) @call))
