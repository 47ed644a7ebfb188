; Ruby: classes and modules are class-like; def and def self.x are methods.
(class name: [(constant) (scope_resolution)] @name) @class
(module name: [(constant) (scope_resolution)] @name) @class
(method name: (_) @name parameters: (method_parameters)? @params) @function
(singleton_method name: (_) @name parameters: (method_parameters)? @params) @function

(superclass (_) @extends)
(call
  method: (identifier) @_inc
  arguments: (argument_list [(constant) (scope_resolution)] @implements)
  (#any-of? @_inc "include" "prepend"))

(program
  (call method: (identifier) @_r (#any-of? @_r "require" "require_relative")) @skip)
(call
  method: (identifier) @_req
  arguments: (argument_list (string (string_content) @import))
  (#any-of? @_req "require" "require_relative"))

; a call with no receiver calls a method of self (or a Kernel function);
; one with a receiver calls a method of that value, whose type is unknown
; unless the receiver is self or a constant (build.go)
((call !receiver method: (identifier) @call)
  (#not-any-of? @call "require" "require_relative" "include" "prepend" "extend"))
(call receiver: (_) @call.recv method: (identifier) @call)
