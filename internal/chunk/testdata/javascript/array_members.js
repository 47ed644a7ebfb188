// Functions held in arrays under an object's keys.
'use strict';

const pipeline = {
  // normalise the body before it is sent
  before: [function before(body, headers) {
    if (typeof body === 'string') {
      headers.set('content-type', 'text/plain');
      return body.trim();
    }
    return JSON.stringify(body);
  }],

  after: [(reply) => {
    return reply.status < 400 ? reply.body : null;
  }],

  // two steps: neither is the key's one function
  steps: [
    function first(x) { return x + 1; },
    function second(x) { return x * 2; },
  ],

  timeout: 0,
};

module.exports = {
  retry: [async function retry(fn, times) {
    for (let i = 0; i < times; i++) {
      try {
        return await fn();
      } catch (err) {
        if (i === times - 1) throw err;
      }
    }
  }],
};

// options passed to a call: callbacks, not definitions
register('job', {
  run: [function run(ctx) {
    return ctx.done();
  }],
});
