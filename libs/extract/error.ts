// The one error extraction throws: everything else degrades to a poorer but valid result.

export type ExtractErrorReason = "unsupported_content_type" | "empty";

export class ExtractError extends Error {
  readonly reason: ExtractErrorReason;

  constructor(reason: ExtractErrorReason, message: string) {
    super(message);
    this.name = "ExtractError";
    this.reason = reason;
  }
}
