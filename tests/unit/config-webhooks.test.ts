import { describe, expect, it } from 'vitest';
import { parsePluginConfig, type PluginConfigInput } from '../../server/src/core/config';
import { ConfigError } from '../../server/src/core/errors';

const BASE: PluginConfigInput = {
  siteUrl: 'https://example.com',
  defaults: { license: 'https://example.com/license#tdm' },
};

const SUBSCRIBER = {
  url: 'https://hooks.example.org/sitemap-ai',
  secret: 'whsec_0123456789abcdef',
};

function configError(raw: unknown): ConfigError {
  try {
    parsePluginConfig(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('config — webhooks (docs/protocol.md §8 events)', () => {
  it('Given no webhooks key, When parsed, Then there are no subscribers and the retry defaults apply', () => {
    expect(parsePluginConfig(BASE).webhooks).toEqual({
      subscribers: [],
      maxAttempts: 8,
      baseDelaySeconds: 30,
      maxDelaySeconds: 3600,
      timeoutMs: 10_000,
      deliveryLogRetentionDays: 30,
    });
  });

  it('Given a subscriber without events, When parsed, Then it receives manifest.updated; other values are kept', () => {
    const config = parsePluginConfig({
      ...BASE,
      webhooks: {
        subscribers: [SUBSCRIBER],
        maxAttempts: 3,
        baseDelaySeconds: 5,
        maxDelaySeconds: 60,
        timeoutMs: 2000,
      },
    });
    expect(config.webhooks).toEqual({
      subscribers: [{ ...SUBSCRIBER, events: ['manifest.updated'] }],
      maxAttempts: 3,
      baseDelaySeconds: 5,
      maxDelaySeconds: 60,
      timeoutMs: 2000,
      deliveryLogRetentionDays: 30,
    });
  });

  it.each([
    [
      'a relative url',
      { subscribers: [{ ...SUBSCRIBER, url: '/hooks' }] },
      'webhooks.subscribers[0].url',
      /http\(s\) URL/,
    ],
    [
      'an ftp url',
      { subscribers: [{ ...SUBSCRIBER, url: 'ftp://example.org/x' }] },
      'webhooks.subscribers[0].url',
      /http\(s\) URL/,
    ],
    [
      'a short secret',
      { subscribers: [{ ...SUBSCRIBER, secret: 'short' }] },
      'webhooks.subscribers[0].secret',
      /at least 16/,
    ],
    [
      'a missing secret',
      { subscribers: [{ url: SUBSCRIBER.url }] },
      'webhooks.subscribers[0].secret',
      /.+/,
    ],
    [
      'an unknown event',
      { subscribers: [{ ...SUBSCRIBER, events: ['entry.created'] }] },
      'webhooks.subscribers[0].events[0]',
      /.+/,
    ],
    [
      'an unknown subscriber key',
      { subscribers: [{ ...SUBSCRIBER, headers: {} }] },
      'webhooks.subscribers[0].headers',
      /unknown key/,
    ],
    [
      'the same url twice',
      { subscribers: [SUBSCRIBER, { ...SUBSCRIBER, secret: 'whsec_fedcba9876543210' }] },
      'webhooks.subscribers',
      /only once/,
    ],
    ['maxAttempts 0', { maxAttempts: 0 }, 'webhooks.maxAttempts', /.+/],
    ['maxAttempts 51', { maxAttempts: 51 }, 'webhooks.maxAttempts', /.+/],
    ['a fractional maxAttempts', { maxAttempts: 2.5 }, 'webhooks.maxAttempts', /.+/],
    ['baseDelaySeconds 0', { baseDelaySeconds: 0 }, 'webhooks.baseDelaySeconds', /.+/],
    ['baseDelaySeconds 3601', { baseDelaySeconds: 3601 }, 'webhooks.baseDelaySeconds', /.+/],
    [
      'a cap below the base delay',
      { baseDelaySeconds: 120, maxDelaySeconds: 60 },
      'webhooks.maxDelaySeconds',
      /baseDelaySeconds/,
    ],
    ['an unknown key', { retries: 3 }, 'webhooks.retries', /unknown key/],
  ])('Given %s, When parsed, Then a ConfigError names the key', (_name, webhooks, key, message) => {
    const error = configError({ ...BASE, webhooks });
    expect(error.key).toBe(key);
    expect(error.message).toMatch(message);
  });
});

describe('config — indexNow (docs/protocol.md §8 events)', () => {
  it('Given no indexNow key, When parsed, Then IndexNow is off with the public endpoint', () => {
    expect(parsePluginConfig(BASE).indexNow).toEqual({
      enabled: false,
      endpoint: 'https://api.indexnow.org/indexnow',
    });
  });

  it('Given IndexNow enabled with a key and key location, When parsed, Then they are kept', () => {
    const indexNow = {
      enabled: true,
      endpoint: 'https://www.bing.com/indexnow',
      key: 'a1b2-c3d4-e5f6',
      keyLocation: 'https://example.com/keys/a1b2-c3d4-e5f6.txt',
    };
    expect(parsePluginConfig({ ...BASE, indexNow }).indexNow).toEqual(indexNow);
  });

  it('Given IndexNow disabled without a key, When parsed, Then it is accepted', () => {
    expect(parsePluginConfig({ ...BASE, indexNow: { enabled: false } }).indexNow.enabled).toBe(
      false,
    );
  });

  it('Given IndexNow enabled without a key, When parsed, Then the error names indexNow.key', () => {
    const error = configError({ ...BASE, indexNow: { enabled: true } });
    expect(error.key).toBe('indexNow.key');
    expect(error.message).toMatch(/indexNow\.key/);
    expect(error.message).toMatch(/required when indexNow\.enabled/);
  });

  it.each([
    ['a 7-character key', { enabled: true, key: 'abc1234' }, 'indexNow.key'],
    ['a 129-character key', { enabled: true, key: 'a'.repeat(129) }, 'indexNow.key'],
    ['a key with a slash', { enabled: true, key: 'abcd/1234' }, 'indexNow.key'],
    ['a key with a space', { enabled: true, key: 'abcd 1234' }, 'indexNow.key'],
    ['a relative endpoint', { endpoint: '/indexnow' }, 'indexNow.endpoint'],
    ['a non-http key location', { keyLocation: 'file:///etc/passwd' }, 'indexNow.keyLocation'],
    ['an unknown key', { host: 'example.com' }, 'indexNow.host'],
  ])('Given %s, When parsed, Then a ConfigError names the key', (_name, indexNow, key) => {
    expect(configError({ ...BASE, indexNow }).key).toBe(key);
  });

  it('Given an 8- and a 128-character key, When parsed, Then both are accepted', () => {
    expect(
      parsePluginConfig({ ...BASE, indexNow: { enabled: true, key: 'abcd1234' } }).indexNow.key,
    ).toBe('abcd1234');
    const long = 'A-'.repeat(64);
    expect(
      parsePluginConfig({ ...BASE, indexNow: { enabled: true, key: long } }).indexNow.key,
    ).toBe(long);
  });
});
