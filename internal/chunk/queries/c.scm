; C: function definitions (name and parameters are read from the declarator,
; through pointer declarators); structs, unions and enums with a body are
; class-like. "typedef struct {...} name_t" takes the typedef name; a
; typedef around a named struct is a wrapper (spec).
(function_definition declarator: (_) @declarator) @function

(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @class
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @class
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @class
(type_definition
  type: [(struct_specifier !name body: (_)) (union_specifier !name body: (_)) (enum_specifier !name body: (_))] @class
  declarator: (type_identifier) @name)

(translation_unit (preproc_include) @skip)
(preproc_include path: (_) @import)

(call_expression function: (identifier) @call)
(call_expression function: (field_expression field: (field_identifier) @call))
