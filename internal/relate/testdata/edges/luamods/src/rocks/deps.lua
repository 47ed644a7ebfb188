-- Dependencies: which installed version satisfies a constraint.
local deps = {}
local v = require("rocks.core.vers")
local fs = require "rocks.fs"

local function newest(versions)
   local best
   for _, cand in ipairs(versions) do
      if not best or v.compare_versions(cand, best) then
         best = cand
      end
   end
   return best
end

function deps.pick(versions, manifest_path)
   if fs.exists(manifest_path) then
      print(fs.read_all(manifest_path))
   end
   local parsed = v.parse_version(newest(versions))
   return parsed, setmetatable({}, {})
end

-- file-level aliases: a call of one is a call of what it stands for
local type = type
local concat, newer = table.concat, v.compare_versions

function deps.describe(versions)
   if type(versions) ~= "table" or not newer(versions[1], versions[2]) then
      return ""
   end
   return concat(versions, ", ")
end

return deps
