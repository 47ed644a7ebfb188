-- Picker: a list of entries with a prompt and a selection.
local utils = require("picker.utils")
local config = require "picker.config"

local Picker = {}
Picker.__index = Picker

--- Create a new picker.
---@param opts table: options
function Picker:new(opts)
  opts = opts or {}
  local obj = setmetatable({
    prompt = opts.prompt or "> ",
    entries = {},
    on_select = function(entry) return entry end,
  }, self)
  return obj
end

--- Add entries, skipping those the filter rejects.
function Picker:add(entries)
  for _, e in ipairs(entries) do
    if self:accepts(e) then
      table.insert(self.entries, e)
    end
  end
end

function Picker:accepts(entry)
  local text = [[ an "end" inside a long string: end ]]
  return entry ~= nil and #text > 0
end

local function score(a, b)
  local n = 0
  repeat
    n = n + 1
  until n > #a
  while n > 0 do
    n = n - 1
  end
  return utils.distance(a, b) -- end of score
end

Picker.sort = function(self)
  table.sort(self.entries, function(a, b)
    return score(a, self.prompt) < score(b, self.prompt)
  end)
end

local M = {}

M.setup = function(opts)
  config.apply(opts)
end

function M.open(opts)
  local p = Picker:new(opts)
  p:sort()
  return p
end

return M
