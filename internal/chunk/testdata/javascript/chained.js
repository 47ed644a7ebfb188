'use strict';

var proto = module.exports = {};

// Return the value of header field name, case-insensitively.
proto.get =
proto.header = function header(name) {
  var lc = name.toLowerCase();
  return this.headers[lc];
};

proto.del = proto.remove = (name) => {
  delete this.headers[name.toLowerCase()];
};

// a named function handed to a call stays in the text around it
defineGetter(proto, 'secure', function secure() {
  return this.protocol === 'https';
});

function defineGetter(obj, name, getter) {
  Object.defineProperty(obj, name, { configurable: true, enumerable: true, get: getter });
}
