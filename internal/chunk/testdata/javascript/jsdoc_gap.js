/**
 * Copyright (c) the authors. Licensed under the MIT license.
 */

function first() {
  return 1;
}

/**
 * Set the status code of the reply.
 *
 * @param {number} code
 * @public
 */

reply.status = function status(code) {
  this.statusCode = code;
  return this;
};

/* a plain block comment a blank line above is not a doc comment */

function plain() {
  return 2;
}

/** Two blank lines part this one from its function. */


function far() {
  return 3;
}

/**
 * @fileoverview Helpers of the reply (a block about the file, not a doc of what follows).
 */

function helper() {
  return 4;
}
