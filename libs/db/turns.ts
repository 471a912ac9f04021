// Long chains of database work in the embedded deployment: PGlite runs each statement on this thread and answers
// through promise jobs, so a loop of awaited statements never lets the event loop reach timers or sockets until
// it ends (an import of 10,000 entries held every HTTP request for minutes). Such loops await `nextTurn()` between
// steps, which lets whatever waits run first.
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
