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
(call_expression function: (field_expression argument: (_) @call.recv field: (field_identifier) @call))
(call_expression function: (qualified_identifier) @call.path)
(call_expression function: (template_function name: (identifier) @call))

; names declared with a class: a call on one is typed "T.m" (declaredTypes);
; a template's type parameters are none
(field_declaration
  type: (_) @annot.type
  declarator: [(field_identifier) @annot.name
               (pointer_declarator declarator: (field_identifier) @annot.name)
               (reference_declarator (field_identifier) @annot.name)])
(declaration
  type: (_) @annot.type
  declarator: [(identifier) @annot.name
               (init_declarator declarator: [(identifier) @annot.name
                                             (pointer_declarator declarator: (identifier) @annot.name)
                                             (reference_declarator (identifier) @annot.name)])
               (pointer_declarator declarator: (identifier) @annot.name)
               (reference_declarator (identifier) @annot.name)])
(parameter_declaration
  type: (_) @annot.type
  declarator: [(identifier) @annot.name
               (pointer_declarator declarator: (identifier) @annot.name)
               (reference_declarator (identifier) @annot.name)])
(for_range_loop
  type: (_) @annot.type
  declarator: [(identifier) @annot.name (reference_declarator (identifier) @annot.name)])
(type_parameter_declaration (type_identifier) @annot.tparam)
