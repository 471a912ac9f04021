// A note's context: its manifest and outline with bounded summaries of the items it links. (Stub.)
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";

export class ContextService {
  async context(_caller: Caller, _noteId: string, _q: Record<string, unknown>): Promise<never> {
    throw new AppError("internal_error", "note context is not built yet");
  }
}
