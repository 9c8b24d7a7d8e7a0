-- wrk script for issue 43's flood: every request shows a bearer token never seen before
-- (a per-thread prefix and a counter, so threads never repeat each other). With FIXED set in
-- the environment, every request shows that one token instead (the control run).
local fixed = os.getenv("FIXED")
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("prefix", string.format("t%d", threads))
end

local n = 0

function request()
  local token = fixed
  if not token then
    n = n + 1
    token = string.format("made-up-%s-%x-%x", prefix, n, math.random(0, 0x7fffffff))
  end
  return wrk.format("GET", "/api/v1/players/1", { ["Authorization"] = "Bearer " .. token })
end
