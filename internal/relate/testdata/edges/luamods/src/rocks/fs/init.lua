-- File system helpers, loaded by require("rocks.fs").
local M = {}

function M.exists(path)
   local f = io.open(path, "r")
   if f then f:close() return true end
   return false
end

function M.read_all(path)
   if not M.exists(path) then
      error("no such file: " .. path)
   end
   local f = assert(io.open(path, "r"))
   local data = f:read("*a")
   f:close()
   return data
end

return M
