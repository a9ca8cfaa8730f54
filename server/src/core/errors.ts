/**
 * One error class per failure of the pure core. Controllers map them to HTTP
 * statuses: the caller's mistakes are 4xx, never 5xx (docs/protocol.md §4, §7).
 */

export class SitemapAiError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = new.target.name;
    this.status = status;
  }
}

/** A query parameter, path parameter or body value that is not acceptable. */
export class InvalidParameterError extends SitemapAiError {
  readonly parameter: string;
  constructor(parameter: string, message: string) {
    super(`Invalid "${parameter}": ${message}`, 400);
    this.parameter = parameter;
  }
}

/** A page token that was not issued by this site, was altered, or is malformed. */
export class InvalidPageTokenError extends SitemapAiError {
  constructor(message: string) {
    super(
      `Invalid "page_token": ${message}. Use the next_page_token of the previous page unchanged, or omit page_token to start from the first page.`,
      400,
    );
  }
}

/** A page token or `since` that points at a snapshot which has been garbage-collected. */
export class SnapshotGoneError extends SitemapAiError {
  readonly snapshot: number;
  constructor(snapshot: number) {
    super(
      `Snapshot ${snapshot} is no longer retained. Restart the traversal without page_token to read the current snapshot.`,
      410,
    );
    this.snapshot = snapshot;
  }
}

/** A delta `since` older than the retained history: the agent must re-read the full manifest. */
export class DeltaTooOldError extends SitemapAiError {
  /** `manifestPath`: where the full manifest is served (`<api prefix>/sitemap-ai/manifest`). */
  constructor(since: string, oldest: number, manifestPath: string) {
    super(
      `"since" ${since} is older than the retained history (the oldest snapshot kept is ${oldest}). Read the full manifest from ${manifestPath}, then ask for the delta since its snapshot id.`,
      410,
    );
  }
}

/** No item with that id (or alias) in the current snapshot. */
export class ItemNotFoundError extends SitemapAiError {
  constructor(id: string) {
    super(`No manifest item with id "${id}" in the current snapshot.`, 404);
  }
}

/** A discovery document that does not exist (a sitemap part past the last, or root serving off). */
export class DocumentNotFoundError extends SitemapAiError {
  constructor(name: string) {
    super(`No discovery document "${name}".`, 404);
  }
}

/** The site serves this only to verified AI agents (config `agents.requireVerifiedFor`). */
export class VerificationRequiredError extends SitemapAiError {
  constructor(what: string) {
    super(
      `This site serves ${what} only to verified AI agents: sign requests with Web Bot Auth from a key directory the site trusts, or call from your operator's published addresses. The manifest stays open.`,
      403,
    );
  }
}

/** An agent API key that is unknown or revoked. */
export class InvalidAgentKeyError extends SitemapAiError {
  constructor() {
    super(
      'This agent API key is not valid or has been revoked. Ask the site owner for a new one, or send no key.',
      401,
    );
  }
}

/** The manifest has not been built yet. */
export class NoSnapshotError extends SitemapAiError {
  constructor() {
    super('The manifest has not been built yet. Try again shortly.', 503);
  }
}

/** Rich text that cannot be fragmented (wrong shape or too large). */
export class InvalidRichTextError extends SitemapAiError {
  constructor(field: string, message: string) {
    super(`Rich text "${field}" cannot be fragmented: ${message}`, 422);
  }
}

/** The plugin configuration is invalid; the message names the key. */
export class ConfigError extends SitemapAiError {
  readonly key: string;
  constructor(key: string, message: string) {
    super(`sitemap-ai config "${key}": ${message}`, 500);
    this.key = key;
  }
}

/** The message of whatever was thrown (an Error's message, anything else as a string), for a log line. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
