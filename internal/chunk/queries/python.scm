; Python: classes and functions; decorated_definition is a wrapper (spec).
(class_definition name: (identifier) @name) @class
(function_definition name: (identifier) @name parameters: (parameters) @params) @function

(class_definition superclasses: (argument_list [(identifier) (attribute)] @extends))

(module (import_statement) @skip)
(module (import_from_statement) @skip)
(module (future_import_statement) @skip)
(import_statement name: [(dotted_name) @import (aliased_import name: (dotted_name) @import)])
(import_from_statement module_name: (dotted_name) @import)
(import_from_statement module_name: (relative_import) @import
  name: [(dotted_name) @import.name (aliased_import name: (dotted_name) @import.name)])
; a name a from-import binds (a module, a class): mod.f() and Cls.m() are
; calls through it, not calls on a value
(import_from_statement name: [(dotted_name) @bound.name (aliased_import alias: (identifier) @bound.name)])

(call function: (identifier) @call)
(call function: (attribute object: (_) @call.recv attribute: (identifier) @call))

; annotations of a parameter or a local (entry: StatsEntry), for the calls
; on that name (pyTypes)
(typed_parameter (identifier) @annot.name type: (type) @annot.type)
(typed_default_parameter name: (identifier) @annot.name type: (type) @annot.type)
(assignment left: (identifier) @annot.name type: (type) @annot.type)
