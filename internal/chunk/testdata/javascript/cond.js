'use strict';

// Picks the scheduler for the platform.
const schedule = typeof setImmediate === 'function'
  ? (fn) => setImmediate(fn)
  : function (fn) {
      return setTimeout(fn, 0);
    };

const noop = isDev ? null : () => {};

module.exports = { schedule, noop };
