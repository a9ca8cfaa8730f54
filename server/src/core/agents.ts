/**
 * Agent families of README › Observability ("ingest per agent family"), read from a
 * User-Agent header. Pure; no regular expression can backtrack on a hostile
 * header, and only its first USER_AGENT_MAX_CHARS characters are read.
 */

/** Named AI / search crawlers, then the three catch-alls. */
export const AGENT_FAMILIES = [
  'GPTBot',
  'ChatGPT-User',
  'OAI-SearchBot',
  'ClaudeBot',
  'Claude-User',
  'anthropic-ai',
  'PerplexityBot',
  'Google-Extended',
  'Googlebot',
  'CCBot',
  'Bytespider',
  'Applebot-Extended',
  'Amazonbot',
  'meta-externalagent',
  'cohere-ai',
  'Diffbot',
  'YouBot',
  'other-bot',
  'browser',
  'unknown',
] as const;
export type AgentFamily = (typeof AGENT_FAMILIES)[number];

/** Longer headers are cut here before they are read. */
export const USER_AGENT_MAX_CHARS = 512;

/**
 * Product tokens of the named families, most specific first: `ChatGPT-User`
 * before `GPTBot`, `Google-Extended` before `Googlebot`, `Applebot-Extended`
 * before the generic bot rule (plain `Applebot` is Apple's search crawler:
 * `other-bot`).
 */
const NAMED_TOKENS: readonly (readonly [string, AgentFamily])[] = [
  ['chatgpt-user', 'ChatGPT-User'],
  ['oai-searchbot', 'OAI-SearchBot'],
  ['gptbot', 'GPTBot'],
  ['claude-user', 'Claude-User'],
  ['claudebot', 'ClaudeBot'],
  ['anthropic-ai', 'anthropic-ai'],
  ['perplexitybot', 'PerplexityBot'],
  ['google-extended', 'Google-Extended'],
  ['googlebot', 'Googlebot'],
  ['ccbot', 'CCBot'],
  ['bytespider', 'Bytespider'],
  ['applebot-extended', 'Applebot-Extended'],
  ['amazonbot', 'Amazonbot'],
  ['meta-externalagent', 'meta-externalagent'],
  ['cohere-ai', 'cohere-ai'],
  ['diffbot', 'Diffbot'],
  ['youbot', 'YouBot'],
];

/** Substrings that mark an automated client that is not one of the named families. */
const BOT_MARKERS = [
  'bot',
  'crawl',
  'spider',
  'slurp',
  'scraper',
  'fetcher',
  'archiver',
  'headless',
  'curl/',
  'wget/',
  'python-',
  'python/',
  'aiohttp',
  'httpx',
  'go-http-client',
  'okhttp',
  'java/',
  'libwww',
  'node-fetch',
  'undici',
  'axios',
  'scrapy',
  'postman',
  'lighthouse',
  // A contact URL is how crawlers and fetchers sign their requests (`+https://openai.com/bot`); browsers never do.
  'http://',
  'https://',
];

/** Engines of real browsers, as they appear after `Mozilla/5.0 (…)`. */
const BROWSER_MARKERS = [
  'chrome/',
  'firefox/',
  'safari/',
  'edg/',
  'opr/',
  'gecko/',
  'applewebkit/',
];

const isWordChar = (code: number) => (code >= 48 && code <= 57) || (code >= 97 && code <= 122);

/** Does `ua` (lowercase) contain `token` as a whole product token (not inside a longer word)? */
function hasToken(ua: string, token: string): boolean {
  let from = 0;
  for (;;) {
    const at = ua.indexOf(token, from);
    if (at === -1) return false;
    const before = at === 0 ? -1 : ua.charCodeAt(at - 1);
    const after = at + token.length >= ua.length ? -1 : ua.charCodeAt(at + token.length);
    if (!isWordChar(before) && !isWordChar(after)) return true;
    from = at + 1;
  }
}

/**
 * The agent family of a User-Agent header: a named AI or search crawler,
 * `other-bot` for any other automated client, `browser` for a web browser,
 * `unknown` when the header is missing or blank.
 */
export function classifyUserAgent(
  header: string | readonly string[] | null | undefined,
): AgentFamily {
  const raw = Array.isArray(header) ? header[0] : header;
  if (typeof raw !== 'string') return 'unknown';
  const ua = raw.slice(0, USER_AGENT_MAX_CHARS).trim().toLowerCase();
  if (ua === '') return 'unknown';
  for (const [token, family] of NAMED_TOKENS) if (hasToken(ua, token)) return family;
  if (BOT_MARKERS.some((marker) => ua.includes(marker))) return 'other-bot';
  if (ua.startsWith('mozilla/') && BROWSER_MARKERS.some((marker) => ua.includes(marker)))
    return 'browser';
  // Anything else that names itself is a program, not a person's browser.
  return 'other-bot';
}

/** AI and search crawlers (every family but browser and unknown). */
export function isAutomatedAgent(family: AgentFamily): boolean {
  return family !== 'browser' && family !== 'unknown';
}
