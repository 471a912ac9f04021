// Import parsing: one parser per format, `parseImport` choosing by name, and the worker-pool task that runs it
// (libs/host/tasks.ts serves it): a large or hostile file costs a worker thread and a deadline, never a service's
// event loop.
import type { ImportFormat, ImportParseResult } from "@trove/contracts";
// The module alone, not the package index: a worker thread does not need the API schemas.
import { importFormats } from "@trove/contracts/portability.ts";
import { ImportFileError } from "./errors.ts";
import { parseInstapaperCsv } from "./instapaper.ts";
import { parseKarakeepJson } from "./karakeep.ts";
import { resolveLimits, type ImportLimits } from "./limits.ts";
import type { ImportParseTaskInput } from "./task-input.ts";
import { parseNetscapeHtml } from "./netscape.ts";
import { parseOmnivoreZip } from "./omnivore.ts";
import { parsePocketCsv } from "./pocket.ts";
import { parseReadwiseCsv } from "./readwise.ts";
import { parseTroveJson } from "./trove-json.ts";
import { parseTroveMarkdownZip } from "./trove-markdown.ts";
import { parseWallabagJson } from "./wallabag.ts";

export type ImportParser = (bytes: Uint8Array, limits?: ImportLimits) => ImportParseResult;

export const importParsers: Readonly<Record<ImportFormat, ImportParser>> = {
  netscape_html: parseNetscapeHtml,
  pocket_csv: parsePocketCsv,
  omnivore_zip: parseOmnivoreZip,
  instapaper_csv: parseInstapaperCsv,
  readwise_csv: parseReadwiseCsv,
  wallabag_json: parseWallabagJson,
  karakeep_json: parseKarakeepJson,
  trove_json: parseTroveJson,
  trove_markdown_zip: parseTroveMarkdownZip,
};

/**
 * The file's entries and per-entry errors. Throws ImportFileError (`zip_bomb`, `corrupt_file`,
 * `unsupported_format`) when the file as a whole cannot be imported.
 */
export function parseImport(bytes: Uint8Array, format: ImportFormat, limits?: Partial<ImportLimits>): ImportParseResult {
  if (!(importFormats as readonly string[]).includes(format)) {
    throw new ImportFileError("unsupported_format", `unknown import format "${String(format)}"`);
  }
  return importParsers[format](bytes, resolveLimits(limits));
}

export { importParseTaskName, type ImportParseTaskInput } from "./task-input.ts";

/** The worker task; an ImportFileError reaches the caller as a TaskFailedError whose data carries its `code`. */
export function importParseTask(input: ImportParseTaskInput): ImportParseResult {
  return parseImport(input.bytes, input.format, input.limits);
}

export { detectFormat } from "./detect.ts";
export { ImportFileError, type ImportFileErrorCode } from "./errors.ts";
export { defaultImportLimits, resolveLimits, type ImportLimits } from "./limits.ts";
export { favouriteTag } from "./collect.ts";
export { troveMarkdownMarkers } from "./trove-markdown.ts";
export {
  parseInstapaperCsv,
  parseKarakeepJson,
  parseNetscapeHtml,
  parseOmnivoreZip,
  parsePocketCsv,
  parseReadwiseCsv,
  parseTroveJson,
  parseTroveMarkdownZip,
  parseWallabagJson,
};
