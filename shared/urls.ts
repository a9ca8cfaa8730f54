/** URL helpers of the manifest (docs/protocol.md §1 permalinks, §8 no internal URLs). */

export function isHttpUrl(value: string): boolean {
  // An absolute URL has a scheme and its colon: a relative path (`/uploads/a.png`, most media
  // and links in a body) is answered without the parser's exception.
  if (!value.includes(':')) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Any absolute URI (a licence page, `urn:…`): what a licence may be (docs/protocol.md §2). */
export function isAbsoluteUri(value: string): boolean {
  try {
    return new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
}

/** A site-relative path (`/uploads/x.png`) made absolute against `base`; absolute URLs pass through. */
export function absoluteUrl(base: string, value: string): string {
  if (isHttpUrl(value)) return value;
  // Protocol-relative (`//cdn.example.org/a.png`, common in HTML bodies): another host, the base's scheme.
  if (value.startsWith('//')) {
    const withScheme = `${base.startsWith('http:') ? 'http:' : 'https:'}${value}`;
    if (isHttpUrl(withScheme)) return withScheme;
  }
  const trimmedBase = base.replace(/\/+$/, '');
  return `${trimmedBase}/${value.replace(/^\/+/, '')}`;
}

/** Placeholders `{name}` of a path pattern. */
export function patternPlaceholders(pattern: string): string[] {
  return [...pattern.matchAll(/\{([a-zA-Z][a-zA-Z0-9_]*)\}/g)].map((m) => m[1]!);
}

/**
 * Fill a path pattern (`/{locale}/articles/{slug}`) with an entry's values,
 * each URL-encoded. A missing value leaves `null`: the entry has no page URL.
 */
export function fillPathPattern(
  pattern: string,
  values: Readonly<Record<string, string>>,
): string | null {
  let missing = false;
  const path = pattern.replace(/\{([a-zA-Z][a-zA-Z0-9_]*)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined || value === '') {
      missing = true;
      return '';
    }
    return encodeURIComponent(value);
  });
  return missing ? null : path;
}

/** Does `url` point into the site itself (not a primary source elsewhere)? */
export function isSameSite(url: string, siteUrl: string): boolean {
  try {
    return new URL(url).host === hostOf(siteUrl);
  } catch {
    return false;
  }
}

/** The host of the site URL last asked about (one site per build: parsed once, not per link). */
let lastSite: { url: string; host: string } | undefined;
function hostOf(siteUrl: string): string {
  if (lastSite?.url !== siteUrl) lastSite = { url: siteUrl, host: new URL(siteUrl).host };
  return lastSite.host;
}
