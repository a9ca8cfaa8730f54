import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AGENT_FAMILIES,
  classifyUserAgent,
  isAutomatedAgent,
  type AgentFamily,
} from '../../server/src/core/agents';

/** Real User-Agent headers, as the crawlers' operators document them and as they appear in access logs. */
const GOLDEN: [string, AgentFamily][] = [
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    'GPTBot',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
    'ChatGPT-User',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
    'OAI-SearchBot',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    'ClaudeBot',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
    'Claude-User',
  ],
  ['anthropic-ai', 'anthropic-ai'],
  [
    'Mozilla/5.0 (compatible; anthropic-ai/1.0; +http://www.anthropic.com/bot.html)',
    'anthropic-ai',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
    'PerplexityBot',
  ],
  ['Google-Extended', 'Google-Extended'],
  ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'Googlebot'],
  [
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Googlebot',
  ],
  ['Googlebot-Image/1.0', 'Googlebot'],
  ['CCBot/2.0 (https://commoncrawl.org/faq/)', 'CCBot'],
  [
    'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
    'Bytespider',
  ],
  ['Applebot-Extended', 'Applebot-Extended'],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36',
    'Amazonbot',
  ],
  [
    'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
    'meta-externalagent',
  ],
  ['cohere-ai', 'cohere-ai'],
  [
    'Mozilla/5.0 (X11; U; Linux i686; en-US; rv:1.9.1.2) Gecko/20090729 Firefox/3.5.2 (.NET CLR 3.5.30729; Diffbot/0.1; +http://www.diffbot.com)',
    'Diffbot',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; YouBot (+http://www.you.com))',
    'YouBot',
  ],

  // Other automated clients.
  ['Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 'other-bot'],
  ['Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)', 'other-bot'],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
    'other-bot',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
    'other-bot',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-SearchBot/1.0; +Claude-SearchBot@anthropic.com)',
    'other-bot',
  ],
  [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36',
    'other-bot',
  ],
  ['curl/8.5.0', 'other-bot'],
  ['Wget/1.21.4', 'other-bot'],
  ['python-requests/2.31.0', 'other-bot'],
  ['Go-http-client/1.1', 'other-bot'],
  ['node', 'other-bot'],
  [
    'sitemap-ai-validate/0.1.0 (+https://www.npmjs.com/package/strapi-plugin-sitemap-ai)',
    'other-bot',
  ],
  // A product token inside a longer word is not that product.
  ['NotGPTBot/1.0', 'other-bot'],

  // Browsers.
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'browser',
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0',
    'browser',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
    'browser',
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
    'browser',
  ],
];

describe('classifyUserAgent', () => {
  it.each(GOLDEN)('Given the User-Agent %j, Then the agent family is %s', (ua, family) => {
    expect(classifyUserAgent(ua)).toBe(family);
  });

  it('Given no User-Agent, or a blank one, Then the family is unknown', () => {
    for (const header of [undefined, null, '', '   ', []])
      expect(classifyUserAgent(header as never)).toBe('unknown');
  });

  it('Given a repeated header, Then the first value is read', () => {
    expect(classifyUserAgent(['CCBot/2.0', 'GPTBot/1.2'])).toBe('CCBot');
  });

  it('Given the product token in any letter case, Then the family is the same', () => {
    expect(classifyUserAgent('gptbot/1.2')).toBe('GPTBot');
    expect(classifyUserAgent('CLAUDEBOT/1.0')).toBe('ClaudeBot');
  });

  it('Given a huge header, Then only its first 512 characters are read, quickly', () => {
    const started = performance.now();
    expect(classifyUserAgent(`${'x'.repeat(1_000_000)} GPTBot/1.2`)).toBe('other-bot');
    expect(classifyUserAgent(`GPTBot/1.2 ${'('.repeat(1_000_000)}`)).toBe('GPTBot');
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('Given any string, Then the answer is one of the families (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (ua) => {
        const family = classifyUserAgent(ua);
        expect(AGENT_FAMILIES).toContain(family);
        expect(classifyUserAgent(ua)).toBe(family);
      }),
    );
  });

  it('Given a named family, Then it counts as an automated agent; browsers and unknown do not', () => {
    expect(isAutomatedAgent('GPTBot')).toBe(true);
    expect(isAutomatedAgent('other-bot')).toBe(true);
    expect(isAutomatedAgent('browser')).toBe(false);
    expect(isAutomatedAgent('unknown')).toBe(false);
  });
});
