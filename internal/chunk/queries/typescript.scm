; TypeScript and TSX: as JavaScript plus interfaces, enums, abstract
; classes and signatures (overload signatures fold into the implementation
; that follows them, see foldOverloads); type aliases are text chunks. export_statement and ambient_declaration
; (declare ...) are wrappers (spec).
(function_declaration name: (identifier) @name parameters: (formal_parameters) @params) @function
(generator_function_declaration name: (identifier) @name parameters: (formal_parameters) @params) @function
(function_signature name: (identifier) @name parameters: (formal_parameters) @params) @function
(class_declaration name: (type_identifier) @name) @class
(abstract_class_declaration name: (type_identifier) @name) @class
(interface_declaration name: (type_identifier) @name) @class
; a type alias is a declaration kept whole as text, named after the alias
(type_alias_declaration name: (type_identifier) @name) @text
(enum_declaration name: (identifier) @name) @class
(method_definition name: (_) @name parameters: (formal_parameters) @params) @function
(abstract_method_signature name: (_) @name parameters: (formal_parameters) @params) @function
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function parameters: (formal_parameters) @params)
            (arrow_function parameter: (identifier) @params)
            (function_expression parameters: (formal_parameters) @params)
            (generator_function parameters: (formal_parameters) @params)])) @function
(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function parameters: (formal_parameters) @params)
            (arrow_function parameter: (identifier) @params)
            (function_expression parameters: (formal_parameters) @params)
            (generator_function parameters: (formal_parameters) @params)])) @function
(public_field_definition
  name: (property_identifier) @name
  value: [(arrow_function parameters: (formal_parameters) @params)
          (arrow_function parameter: (identifier) @params)
          (function_expression parameters: (formal_parameters) @params)]) @function

(extends_clause value: (_) @extends)
(implements_clause (_) @implements)
(extends_type_clause type: (_) @extends)

; include ecmascript_imports

; include ecmascript_commonjs

; "new ZodError(...)" calls the constructor of ZodError
(new_expression constructor: (identifier) @call)

; include ecmascript_bound
