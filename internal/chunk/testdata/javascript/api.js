'use strict';
const express = require('express');
const path = require('path');
import { formatUser } from './format.js';

/**
 * Builds the router.
 */
export function createRouter(db, { prefix = '/api' } = {}) {
  const router = express.Router();
  router.get(prefix + '/users', async (req, res) => {
    res.json(await db.users.findAll());
  });
  return router;
}

export const slugify = (s) => s.toLowerCase().replace(/\s+/g, '-');

const double = x => x * 2;

class UserController extends BaseController {
  constructor(service) {
    super();
    this.service = service;
  }

  async show(req, res) {
    const user = await this.service.findById(req.params.id);
    res.send(formatUser(user));
  }

  static create() { return new UserController(new Service()); }
}

module.exports = { createRouter, UserController };
app.listen(3000, () => {
  console.log('listening');
  console.log('ready');
});

/**
 * Send a response body (CommonJS style, as express writes it).
 */
res.send = function send(body) {
  this.set('Content-Length', body.length);
  return this.end(body);
};

Layer.prototype.match = function match(path) {
  return this.regexp.test(path);
};

module.exports.helper = (x) => x * 2;
