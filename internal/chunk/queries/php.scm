; PHP: classes, interfaces, traits, enums; functions and methods.
(class_declaration name: (name) @name) @class
(interface_declaration name: (name) @name) @class
(trait_declaration name: (name) @name) @class
(enum_declaration name: (name) @name) @class
(function_definition name: (name) @name parameters: (formal_parameters) @params) @function
(method_declaration name: (name) @name parameters: (formal_parameters) @params) @function

(base_clause [(name) (qualified_name)] @extends)
(class_interface_clause [(name) (qualified_name)] @implements)

(program (namespace_use_declaration) @skip)
(program (namespace_definition !body) @skip)
(namespace_use_clause [(qualified_name) (name)] @import !alias)
(namespace_use_clause [(qualified_name) (name)] @import alias: (name) @import.alias)
(require_expression (string (string_content) @import))
(require_expression (binary_expression right: (string (string_content) @import)))
(require_once_expression (string (string_content) @import))
(require_once_expression (binary_expression right: (string (string_content) @import)))
(include_expression (string (string_content) @import))
(include_expression (binary_expression right: (string (string_content) @import)))
(include_once_expression (string (string_content) @import))
(include_once_expression (binary_expression right: (string (string_content) @import)))

(function_call_expression function: [(name) (qualified_name)] @call)
; the receiver decides: $this->m() is the class's own method, $x->m() a
; call on a value (typed by $x's declaration when it has one),
; parent::m() the base class's, self::m() and static::m() the class's,
; Foo::m() Foo's
(member_call_expression object: (_) @call.recv name: (name) @call)
(nullsafe_member_call_expression object: (_) @call.recv name: (name) @call)
(scoped_call_expression scope: (_) @call.recv name: (name) @call)

; names declared with a class: a call on one is typed "T.m" (declaredTypes)
(simple_parameter type: (_) @annot.type name: (variable_name) @annot.name)
(property_promotion_parameter type: (_) @annot.type name: (variable_name) @annot.name)
(property_declaration type: (_) @annot.type (property_element (variable_name) @annot.name))

; "new Invoice(...)" calls the constructor of Invoice
(object_creation_expression (name) @call)
