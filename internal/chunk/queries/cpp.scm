; C++: as C plus classes; "Type::method" definitions outside the class take
; Type as owner; template_declaration is a wrapper (spec).
(function_definition declarator: (_) @declarator) @function

(class_specifier name: [(type_identifier) (qualified_identifier) (template_type)] @name body: (field_declaration_list)) @class
(struct_specifier name: [(type_identifier) (qualified_identifier) (template_type)] @name body: (field_declaration_list)) @class
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @class
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @class
(type_definition
  type: [(struct_specifier !name body: (_)) (union_specifier !name body: (_)) (enum_specifier !name body: (_))] @class
  declarator: (type_identifier) @name)

(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @extends)

(translation_unit (preproc_include) @skip)
(preproc_include path: (_) @import)

(call_expression function: (identifier) @call)
(call_expression function: (field_expression field: (field_identifier) @call))
(call_expression function: (qualified_identifier) @call.path)
(call_expression function: (template_function name: (identifier) @call))
