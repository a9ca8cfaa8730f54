import { describe, expect, it } from 'vitest';
import { FRAGMENT_TYPES } from '../../admin/src/utils/labels';
import {
  defaultContentTypeSettings,
  errorBelow,
  fieldKey,
  numberOrUnset,
  toFieldErrors,
  validDiscovery,
  validateSettingsForm,
} from '../../admin/src/utils/settings-form';
import type { EditableSettings } from '../../shared/contracts/admin';
import { SECRET_MASK, settingsFieldError, validateSettings } from '../../shared/settings-schema';

/*
 * The Settings page checks the draft with the server's own schema before it
 * saves, and shows both its own and the server's field errors next to the
 * fields (admin/src/utils/settings-form.ts). The components look errors up by
 * dotted keys such as `contentTypes.<uid>.pathPattern` and `schedule.cron`.
 */

const ARTICLE = 'api::article.article';

const valid = (): EditableSettings => ({
  siteUrl: 'https://example.com',
  defaults: {
    license: 'https://example.com/license#tdm',
    usage: { train: 'deny', infer: 'allow-with-citation', cache: 'allow', redistribute: 'deny' },
    embedding: { chunk: 'by_h2', maxTokens: 800 },
  },
  contentTypes: {
    [ARTICLE]: {
      enabled: true,
      pathPattern: '/{locale}/articles/{slug}',
      granularity: ['section', 'table', 'figure', 'faq', 'dataset'],
      chunk: 'by_h2',
      maxTokens: 800,
    },
  },
  schedule: { enabled: true, cron: '*/15 * * * *' },
  webhooks: { subscribers: [{ url: 'https://hooks.example.org/sitemap', secret: SECRET_MASK }] },
  rateLimit: { enabled: true, max: 600, windowSeconds: 60 },
  accessLogRetentionDays: 30,
  discovery: {
    title: 'Example Research',
    summary: 'Articles and datasets of Example Research.',
    agents: ['GPTBot', 'ClaudeBot', 'PerplexityBot'],
    serveAtRoot: false,
  },
});

describe('fieldKey', () => {
  it('Given a path of segments with an index and a content-type UID, When it is keyed, Then the segments are joined with dots', () => {
    expect(fieldKey(['webhooks', 'subscribers', 0, 'url'])).toBe('webhooks.subscribers.0.url');
    expect(fieldKey(['contentTypes', ARTICLE, 'pathPattern'])).toBe(
      `contentTypes.${ARTICLE}.pathPattern`,
    );
    expect(fieldKey([])).toBe('');
  });
});

describe('validateSettingsForm', () => {
  it('Given the settings a site owner has saved before, When the form is validated, Then there are no errors', () => {
    expect(validateSettingsForm(valid())).toEqual({});
  });

  it('Given a path pattern without a leading slash, When the form is validated, Then the error sits at the key the content-type card reads, without the field name', () => {
    const settings = valid();
    settings.contentTypes[ARTICLE]!.pathPattern = 'articles/{slug}';
    expect(validateSettingsForm(settings)).toEqual({
      [`contentTypes.${ARTICLE}.pathPattern`]: 'must start with "/"',
    });
  });

  it('Given several invalid fields, When the form is validated, Then each is reported at its own key', () => {
    const settings = valid();
    settings.siteUrl = 'example.com';
    settings.schedule.cron = 'every 15 minutes';
    settings.rateLimit.max = 0;
    settings.webhooks.subscribers = [
      { url: 'https://hooks.example.org/sitemap', secret: 'whsec_0123456789abcdef' },
      { url: 'https://hooks.example.org/sitemap', secret: 'whsec_fedcba9876543210' },
    ];
    const errors = validateSettingsForm(settings);
    expect(Object.keys(errors).sort()).toEqual([
      'rateLimit.max',
      'schedule.cron',
      'siteUrl',
      'webhooks.subscribers.1.url',
    ]);
    expect(errors.siteUrl).toBe('must be an absolute http(s) URL');
    expect(errors['webhooks.subscribers.1.url']).toBe('must appear only once');
    expect(errors['rateLimit.max']).toMatch(/^must be a whole number from 1 to/);
    expect(errors['schedule.cron']).toMatch(/^must be a cron expression/);
  });

  it('Given a number input the owner emptied (kept unset by numberOrUnset), When the form is validated, Then that field is required', () => {
    const settings = valid();
    settings.rateLimit = { ...settings.rateLimit, windowSeconds: numberOrUnset(undefined) };
    settings.accessLogRetentionDays = numberOrUnset(undefined);
    expect(validateSettingsForm(settings)).toEqual({
      'rateLimit.windowSeconds': 'is required',
      accessLogRetentionDays: 'is required',
    });
  });

  it('Given a number the owner typed, When it passes numberOrUnset, Then it is kept as it is', () => {
    expect(numberOrUnset(90)).toBe(90);
    expect(numberOrUnset(0)).toBe(0);
  });
});

describe('toFieldErrors: the server’s field errors of a refused save', () => {
  it('Given the server’s errors that name their field, When they are keyed, Then the field name is removed from each message', () => {
    const errors = [
      settingsFieldError(
        ['contentTypes', ARTICLE, 'pathPattern'],
        'must contain at least one placeholder such as {slug} or {documentId}',
      ),
      settingsFieldError(
        ['webhooks', 'subscribers', '0', 'secret'],
        'has no stored secret to keep',
      ),
      settingsFieldError(
        ['schedule', 'cron'],
        'is not a valid cron expression: 61 is not a minute',
      ),
    ];
    expect(
      errors[0]!.message.startsWith('contentTypes["api::article.article"].pathPattern: '),
    ).toBe(true);
    expect(toFieldErrors(errors)).toEqual({
      [`contentTypes.${ARTICLE}.pathPattern`]:
        'must contain at least one placeholder such as {slug} or {documentId}',
      'webhooks.subscribers.0.secret': 'has no stored secret to keep',
      'schedule.cron': 'is not a valid cron expression: 61 is not a minute',
    });
  });

  it('Given a message that does not start with its field name, When it is keyed, Then it is kept whole', () => {
    expect(
      toFieldErrors([{ path: ['siteUrl'], message: 'The site URL is not reachable' }]),
    ).toEqual({ siteUrl: 'The site URL is not reachable' });
    // Another field's name in front is not this field's: kept.
    expect(toFieldErrors([{ path: ['siteUrl'], message: 'schedule.cron: is required' }])).toEqual({
      siteUrl: 'schedule.cron: is required',
    });
  });

  it('Given two errors for the same field, When they are keyed, Then the first one is shown', () => {
    const errors = [
      settingsFieldError(['schedule', 'cron'], 'is required'),
      settingsFieldError(['schedule', 'cron'], 'must be a cron expression'),
    ];
    expect(toFieldErrors(errors)).toEqual({ 'schedule.cron': 'is required' });
  });

  it('Given the shared schema’s own result, When its errors are keyed, Then they equal what validateSettingsForm gives', () => {
    const settings = valid();
    settings.defaults.license = 'not a uri';
    const result = validateSettings(settings);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(toFieldErrors(result.errors)).toEqual(validateSettingsForm(settings));
    expect(Object.keys(validateSettingsForm(settings))).toEqual(['defaults.license']);
  });

  it('Given no errors, When they are keyed, Then there are none', () => {
    expect(toFieldErrors([])).toEqual({});
  });
});

describe('defaultContentTypeSettings: a content type enabled for the first time', () => {
  it('Given the article type and the site defaults, When it is enabled, Then it gets every fragment type, a path from its name and the site’s embedding hint', () => {
    const defaults = {
      ...valid().defaults,
      embedding: { chunk: 'by_h3' as const, maxTokens: 1200 },
    };
    expect(defaultContentTypeSettings(ARTICLE, defaults)).toEqual({
      enabled: true,
      pathPattern: '/article/{slug}',
      granularity: ['section', 'table', 'figure', 'faq', 'dataset'],
      chunk: 'by_h3',
      maxTokens: 1200,
    });
  });

  it('Given a plugin content type, When it is enabled, Then its defaults pass the shared validation', () => {
    const settings = valid();
    settings.contentTypes['plugin::docs.guide-page'] = defaultContentTypeSettings(
      'plugin::docs.guide-page',
      settings.defaults,
    );
    expect(settings.contentTypes['plugin::docs.guide-page']!.pathPattern).toBe(
      '/guide-page/{slug}',
    );
    expect(validateSettingsForm(settings)).toEqual({});
  });

  it('Given the defaults, When the granularity is later edited, Then the shared FRAGMENT_TYPES list is not changed', () => {
    const settings = defaultContentTypeSettings(ARTICLE, valid().defaults);
    settings.granularity.pop();
    expect(FRAGMENT_TYPES).toEqual(['section', 'table', 'figure', 'faq', 'dataset']);
  });
});

describe('the Discovery section of the form', () => {
  it('Given a duplicated crawler, When the form is validated, Then the crawler list shows the error', () => {
    const settings = valid();
    settings.discovery.agents = ['GPTBot', 'GPTBot'];
    const errors = validateSettingsForm(settings);
    expect(errors).toEqual({ 'discovery.agents': 'must not name a crawler twice' });
    expect(errorBelow(errors, 'discovery.agents')).toBe('must not name a crawler twice');
  });

  it('Given a server error at one crawler of the list, When looked up for the list, Then it is found below it', () => {
    const errors = toFieldErrors([
      settingsFieldError(['discovery', 'agents', '1'], 'must be one of GPTBot, ClaudeBot'),
    ]);
    expect(errors).toEqual({ 'discovery.agents.1': 'must be one of GPTBot, ClaudeBot' });
    expect(errorBelow(errors, 'discovery.agents')).toBe('must be one of GPTBot, ClaudeBot');
    expect(errorBelow(errors, 'discovery.agent')).toBeUndefined();
    expect(errorBelow({}, 'discovery.agents')).toBeUndefined();
  });

  it('Given valid and invalid Discovery values, When checked for the preview, Then only valid ones are previewed', () => {
    expect(validDiscovery(valid().discovery)).toBe(true);
    expect(validDiscovery({ ...valid().discovery, agents: null, title: '' })).toBe(true);
    expect(validDiscovery({ ...valid().discovery, title: 'T'.repeat(201) })).toBe(false);
    expect(validDiscovery({ ...valid().discovery, agents: ['not a token'] })).toBe(false);
  });
});
