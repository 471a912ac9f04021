-- Each connection waits THINK_MS (default 10) milliseconds between a response and its next request, so that the
-- connections offer less than the peak rate and the latency measured is service time, not saturation queueing.
-- bench/http.ts sets THINK_MS so that 50 connections offer about half of the rate just measured at saturation.
local think = tonumber(os.getenv("THINK_MS") or "10")
function delay()
  return think
end
