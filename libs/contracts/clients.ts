// Connected clients: API keys for other programs, created and revoked with a personal key.
export const clientOperations = {} as const;
