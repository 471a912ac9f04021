-- Each connection waits 10 ms between a response and its next request: 50 connections then offer about
-- half the distributed item read's peak rate, so the latency measured is service time, not saturation queueing.
function delay()
  return 10
end
