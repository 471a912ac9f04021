// Webhook management (the delivery service).
export const webhookOperations = {} as const;
