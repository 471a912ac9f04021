// GET /api/notes/export: every note as a Markdown file with YAML frontmatter, in one ZIP. (Stub.)
import type { Caller, RawReply } from "@trove/contracts";
import { AppError } from "@trove/errors";

export class ExportService {
  async export(_caller: Caller): Promise<RawReply> {
    throw new AppError("internal_error", "the notes export is not built yet");
  }
}
