; Go: functions, methods (owner = receiver type), type declarations,
; top-level var/const blocks kept whole as text.
(function_declaration
  name: (identifier) @name
  parameters: (parameter_list) @params) @function

(method_declaration
  receiver: (parameter_list (parameter_declaration type: (_) @owner))
  name: (field_identifier) @name
  parameters: (parameter_list) @params) @function

(type_declaration (type_spec name: (type_identifier) @name) @class)
(type_declaration (type_alias name: (type_identifier) @name) @class)

(source_file (const_declaration (const_spec name: (identifier) @name)) @text)
(source_file (var_declaration (var_spec name: (identifier) @name)) @text)
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name))) @text)

(package_clause) @skip
(import_declaration) @skip

(import_spec name: (package_identifier) @import.alias path: (_) @import)
(import_spec !name path: (_) @import)

(call_expression function: (identifier) @call)
(call_expression function: (selector_expression operand: (_) @call.recv field: (field_identifier) @call))
