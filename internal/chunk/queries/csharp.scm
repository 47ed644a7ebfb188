; C#: classes, interfaces, structs, enums, records; methods and
; constructors. Attributes live inside the declaration. Base types are
; "super" and split into extends/implements by the spec.
(class_declaration name: (identifier) @name) @class
(interface_declaration name: (identifier) @name) @class
(struct_declaration name: (identifier) @name) @class
(enum_declaration name: (identifier) @name) @class
(record_declaration name: (identifier) @name) @class

(method_declaration name: (identifier) @name parameters: (parameter_list) @params) @function
(constructor_declaration name: (identifier) @name parameters: (parameter_list) @params) @function

(base_list (_) @super)

(compilation_unit (using_directive) @skip)
(using_directive name: (_) [(identifier) (qualified_name)] @import)
(using_directive !name [(identifier) (qualified_name)] @import)

(invocation_expression function: (identifier) @call)
; the receiver decides what a call on another object may reach (build.go)
(invocation_expression function: (member_access_expression expression: _ @call.recv name: (identifier) @call))
(invocation_expression function: (member_access_expression expression: _ @call.recv name: (generic_name (identifier) @call)))
(invocation_expression function: (generic_name (identifier) @call))

; "new Foo(...)" calls the constructor of Foo
(object_creation_expression type: (identifier) @call)

; names declared with a class: a call on one is typed "T.m" (declaredTypes);
; a variable_declaration is a field's, a local's or a using statement's
(variable_declaration type: (_) @annot.type (variable_declarator name: (identifier) @annot.name))
(parameter type: (_) @annot.type name: (identifier) @annot.name)
(foreach_statement type: (_) @annot.type left: (identifier) @annot.name)
(property_declaration type: (_) @annot.type name: (identifier) @annot.name)
; a name declared "var" has the class its initialiser creates or converts
; to: var x = new Foo(...), var x = (Foo)o, var x = o as Foo (ECMA-334
; 13.6.2: an implicitly typed local has its initialiser's type)
(variable_declaration
  type: (implicit_type)
  (variable_declarator
    name: (identifier) @annot.name
    [(object_creation_expression type: (_) @annot.type)
     (cast_expression type: (_) @annot.type)
     (as_expression right: (_) @annot.type)]))
