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
(namespace_use_clause [(qualified_name) (name)] @import)
(require_expression (string (string_content) @import))
(require_expression (binary_expression right: (string (string_content) @import)))
(require_once_expression (string (string_content) @import))
(require_once_expression (binary_expression right: (string (string_content) @import)))
(include_expression (string (string_content) @import))
(include_expression (binary_expression right: (string (string_content) @import)))
(include_once_expression (string (string_content) @import))
(include_once_expression (binary_expression right: (string (string_content) @import)))

(function_call_expression function: [(name) (qualified_name)] @call)
(member_call_expression name: (name) @call)
(nullsafe_member_call_expression name: (name) @call)
(scoped_call_expression name: (name) @call)

; "new Invoice(...)" calls the constructor of Invoice
(object_creation_expression (name) @call)
