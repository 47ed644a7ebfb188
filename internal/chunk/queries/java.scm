; Java: classes, interfaces, enums, records, annotation types; methods and
; constructors. Annotations live in the declaration's modifiers.
(class_declaration name: (identifier) @name) @class
(interface_declaration name: (identifier) @name) @class
(enum_declaration name: (identifier) @name) @class
(record_declaration name: (identifier) @name) @class
(annotation_type_declaration name: (identifier) @name) @class

(method_declaration name: (identifier) @name parameters: (formal_parameters) @params) @function
(constructor_declaration name: (identifier) @name parameters: (formal_parameters) @params) @function
(compact_constructor_declaration name: (identifier) @name) @function

(superclass (_) @extends)
(super_interfaces (type_list (_) @implements))
(extends_interfaces (type_list (_) @extends))

(package_declaration) @skip
(import_declaration) @skip
(import_declaration) @import

; the receiver decides what a call on another object may reach (build.go)
(method_invocation !object name: (identifier) @call)
(method_invocation object: _ @call.recv name: (identifier) @call)

; "new Foo(...)" calls the constructor of Foo
(object_creation_expression type: (type_identifier) @call)
(object_creation_expression type: (generic_type (type_identifier) @call))

; names declared with a class: a call on one is typed "T.m" (declaredTypes)
(field_declaration type: (_) @annot.type declarator: (variable_declarator name: (identifier) @annot.name))
(local_variable_declaration type: (_) @annot.type declarator: (variable_declarator name: (identifier) @annot.name))
(formal_parameter type: (_) @annot.type name: (identifier) @annot.name)
(enhanced_for_statement type: (_) @annot.type name: (identifier) @annot.name)
(resource type: (_) @annot.type name: (identifier) @annot.name)
; a local or resource declared "var" has the class its initialiser creates
; or casts to: var x = new Foo(...), var x = (Foo) o (JLS 14.4.1)
(local_variable_declaration
  type: (type_identifier) @_var
  declarator: (variable_declarator
    name: (identifier) @annot.name
    value: [(object_creation_expression type: (_) @annot.type)
            (cast_expression type: (_) @annot.type)])
  (#eq? @_var "var"))
(resource
  type: (type_identifier) @_var
  name: (identifier) @annot.name
  value: (object_creation_expression type: (_) @annot.type)
  (#eq? @_var "var"))
