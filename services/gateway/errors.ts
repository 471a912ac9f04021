// The one place where failures become HTTP responses: stable codes, JSON bodies, never a stack.
import { AppError } from "@trove/errors";

const routeHelp = "See GET /api/docs (or /api/openapi.json) for every route this API offers.";

export function routeNotFound(method: string, path: string): AppError {
  return new AppError("not_found", `no route ${method} ${path}`, { resolution: routeHelp });
}

interface ValidationIssue {
  path?: string;
  message?: string;
  summary?: string;
}

/** Turns Elysia's validation error into 400 validation_failed with one message per field. */
export function validationFailed(where: string, issues: ValidationIssue[]): AppError {
  const fields: Record<string, string> = {};
  for (const issue of issues) {
    const key = (issue.path ?? "").replace(/^\//, "").replaceAll("/", ".") || where;
    fields[key] ??= issue.summary ?? issue.message ?? "invalid value";
  }
  const names = Object.keys(fields);
  return new AppError("validation_failed", `invalid ${where}: ${names.map((n) => `${n} (${fields[n]})`).join(", ")}`, { fields });
}
