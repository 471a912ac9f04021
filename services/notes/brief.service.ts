// The context brief: an index of a repository's recent notes, ranked by path affinity then recency. (Stub.)
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";

export class BriefService {
  async brief(_caller: Caller, _q: { project: string; path?: string; limit?: number }): Promise<never> {
    throw new AppError("internal_error", "the context brief is not built yet");
  }
}
