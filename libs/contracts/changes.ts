// The change stream: GET /api/items/changes (see events.ts for the event types).
export const changesOperations = {} as const;
