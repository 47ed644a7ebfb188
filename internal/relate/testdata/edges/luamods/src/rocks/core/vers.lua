-- Version strings and their comparison.
local vers = {}

function vers.parse_version(s)
   local parts = {}
   for p in s:gmatch("%d+") do
      table.insert(parts, tonumber(p))
   end
   return parts
end

function vers.compare_versions(a, b)
   local va, vb = vers.parse_version(a), vers.parse_version(b)
   for i = 1, math.max(#va, #vb) do
      if (va[i] or 0) ~= (vb[i] or 0) then
         return (va[i] or 0) > (vb[i] or 0)
      end
   end
   return false
end

-- a module function named like a basic one: a bare type(x) is not it
function vers.type(s)
   return "semver"
end

return vers
