// API versions by date. A deprecated version keeps working and announces its sunset in headers.
import { apiVersion } from "@trove/contracts";

interface VersionInfo {
  deprecatedAt?: Date;
  sunsetAt?: Date;
  migrationUrl?: string;
}

export const versions: Record<string, VersionInfo> = {
  [apiVersion]: {},
};

export const supportedVersions = Object.keys(versions);

/** Response headers for a requested version, or undefined when the version is unknown. */
export function versionHeaders(requested: string | null): Record<string, string> | undefined {
  const version = requested ?? apiVersion;
  const info = versions[version];
  if (!info) return undefined;
  const headers: Record<string, string> = { "Service-API-Version": version };
  if (info.deprecatedAt) headers.Deprecation = `@${Math.floor(info.deprecatedAt.getTime() / 1000)}`;
  if (info.sunsetAt) headers.Sunset = info.sunsetAt.toUTCString();
  if (info.migrationUrl) headers.Link = `<${info.migrationUrl}>; rel="deprecation"; type="text/html"`;
  return headers;
}
