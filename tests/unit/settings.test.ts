import { describe, expect, it } from 'vitest';
import { parsePluginConfig } from '../../server/src/core/config';
import {
  applyEditableSettings,
  editableFromConfig,
  effectiveConfig,
  maskSecrets,
  rebaseSettings,
  settingsChanges,
  unmaskSecrets,
  withLaterSections,
} from '../../server/src/core/settings';
import { SECRET_MASK } from '../../shared/settings-schema';

const SECRET = 'whsec_file_config_0123456789';

const file = () =>
  parsePluginConfig({
    siteUrl: 'https://example.com/',
    defaults: { license: 'https://example.com/license#tdm', usage: { infer: 'allow' } },
    contentTypes: {
      'api::article.article': {
        pathPattern: '/articles/{slug}',
        license: 'https://creativecommons.org/licenses/by/4.0/',
        schema: ['Article'],
      },
      'api::guide.guide': {
        pathPattern: '/guides/{slug}',
        htmlFields: ['bodyHtml'],
        chunk: 'by_h3',
        maxTokens: 600,
      },
    },
    webhooks: {
      subscribers: [
        { url: 'https://hooks.example.org/a', secret: SECRET, events: ['manifest.updated'] },
      ],
      maxAttempts: 3,
    },
    accessLog: { enabled: false, retentionDays: 14 },
    discovery: {
      title: 'Example Research',
      details: 'Long-form research notes.',
      agents: ['GPTBot', 'ClaudeBot', 'PerplexityBot'],
      optionalTypes: ['api::guide.guide'],
      sitemapUrlsPerFile: 1000,
    },
  });

describe('the site owner’s Settings on top of the file config', () => {
  it('Given a file config, When shown as Settings, Then every default is spelled out', () => {
    const settings = editableFromConfig(file());
    expect(settings.siteUrl).toBe('https://example.com');
    expect(settings.defaults).toEqual({
      license: 'https://example.com/license#tdm',
      usage: { train: 'deny', infer: 'allow', cache: 'allow', redistribute: 'deny' },
      embedding: { chunk: 'by_h2', maxTokens: 800 },
    });
    expect(settings.contentTypes['api::article.article']).toEqual({
      enabled: true,
      pathPattern: '/articles/{slug}',
      granularity: ['section', 'table', 'figure', 'faq', 'dataset'],
      chunk: 'by_h2',
      maxTokens: 800,
      license: 'https://creativecommons.org/licenses/by/4.0/',
    });
    expect(settings.contentTypes['api::guide.guide']).toMatchObject({
      chunk: 'by_h3',
      maxTokens: 600,
    });
    expect(settings.schedule).toEqual({ enabled: true, cron: '*/15 * * * *' });
    expect(settings.rateLimit).toEqual({ enabled: true, max: 600, windowSeconds: 60 });
    expect(settings.accessLogRetentionDays).toBe(14);
    expect(settings.webhooks.subscribers).toEqual([
      { url: 'https://hooks.example.org/a', secret: SECRET },
    ]);
  });

  it('Given the Settings of a config, When put back on it, Then the effective config shows the same Settings', () => {
    const config = file();
    const result = effectiveConfig(config, editableFromConfig(config));
    expect(result.ok).toBe(true);
    if (result.ok) expect(editableFromConfig(result.config)).toEqual(editableFromConfig(config));
  });

  it('Given changed Settings, When applied, Then they win key by key and what Settings do not edit keeps its file value', () => {
    const config = file();
    const settings = editableFromConfig(config);
    settings.defaults.usage.train = 'allow';
    delete settings.contentTypes['api::article.article']!.license;
    settings.contentTypes['api::guide.guide']!.enabled = false;
    settings.contentTypes['api::memo.memo'] = {
      enabled: true,
      pathPattern: '/memos/{documentId}',
      granularity: ['section'],
      chunk: 'whole',
      maxTokens: 300,
    };
    settings.webhooks.subscribers.push({
      url: 'https://hooks.example.org/b',
      secret: 'whsec_settings_abcdef012345',
    });
    settings.accessLogRetentionDays = 90;
    const result = effectiveConfig(config, settings);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const effective = result.config;
    expect(effective.defaults.usage.train).toBe('allow');
    expect(effective.contentTypes['api::article.article']!.license).toBeUndefined();
    expect(effective.contentTypes['api::article.article']!.schema).toEqual(['Article']);
    expect(effective.contentTypes['api::guide.guide']).toMatchObject({
      enabled: false,
      htmlFields: ['bodyHtml'],
    });
    expect(effective.contentTypes['api::memo.memo']).toMatchObject({
      enabled: true,
      chunk: 'whole',
      maxTokens: 300,
      htmlFields: [],
      schema: [],
    });
    expect(effective.webhooks.maxAttempts).toBe(3);
    expect(effective.webhooks.subscribers.map((s) => s.url)).toEqual([
      'https://hooks.example.org/a',
      'https://hooks.example.org/b',
    ]);
    expect(effective.accessLog).toEqual({ enabled: false, retentionDays: 90 });
    // The input is not changed.
    expect(config.defaults.usage.train).toBeUndefined();
    expect(applyEditableSettings(config, settings)).not.toBe(config);
  });

  it('Given a type the Settings do not mention, When applied, Then it keeps its file config', () => {
    const config = file();
    const settings = editableFromConfig(config);
    delete settings.contentTypes['api::guide.guide'];
    const result = effectiveConfig(config, settings);
    expect(result.ok && result.config.contentTypes['api::guide.guide']).toEqual(
      config.contentTypes['api::guide.guide'],
    );
  });

  it('Given a value only the config schema refuses, When applied, Then the error is reported at the Settings field', () => {
    const settings = editableFromConfig(file());
    settings.accessLogRetentionDays = 999;
    const result = effectiveConfig(file(), settings);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.map((e) => e.path)).toEqual([['accessLogRetentionDays']]);
  });
});

describe('webhook secrets in Settings', () => {
  it('Given settings with secrets, When masked, Then no secret is left and an empty one stays empty', () => {
    const settings = editableFromConfig(file());
    settings.webhooks.subscribers.push({ url: 'https://hooks.example.org/b', secret: '' });
    expect(maskSecrets(settings).webhooks.subscribers).toEqual([
      { url: 'https://hooks.example.org/a', secret: SECRET_MASK },
      { url: 'https://hooks.example.org/b', secret: '' },
    ]);
    expect(JSON.stringify(maskSecrets(settings))).not.toContain(SECRET);
  });

  it('Given a masked secret, When unmasked, Then the stored secret of that URL comes back; a new secret is kept as sent', () => {
    const settings = maskSecrets(editableFromConfig(file()));
    settings.webhooks.subscribers.push({
      url: 'https://hooks.example.org/b',
      secret: 'whsec_new_secret_0123456',
    });
    const result = unmaskSecrets(settings, file().webhooks.subscribers);
    expect(result).toEqual({
      ok: true,
      settings: {
        ...settings,
        webhooks: {
          subscribers: [
            { url: 'https://hooks.example.org/a', secret: SECRET },
            { url: 'https://hooks.example.org/b', secret: 'whsec_new_secret_0123456' },
          ],
        },
      },
    });
  });

  it('Given a masked secret for a URL that has none stored, When unmasked, Then that field is an error', () => {
    const settings = maskSecrets(editableFromConfig(file()));
    settings.webhooks.subscribers[0]!.url = 'https://hooks.example.org/moved';
    const result = unmaskSecrets(settings, file().webhooks.subscribers);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors).toEqual([
        {
          path: ['webhooks', 'subscribers', '0', 'secret'],
          message:
            'webhooks.subscribers[0].secret: no secret is stored for this URL yet: enter one',
        },
      ]);
    }
  });
});

describe('saved Settings when config/plugins changes later', () => {
  const ARTICLE = 'api::article.article';

  it('Given Settings saved over a file config, When the file changes a value, Then that value comes from the file and the saved choices stay', () => {
    const savedOver = editableFromConfig(file());
    const saved = structuredClone(savedOver);
    saved.defaults.usage.cache = 'deny';
    saved.contentTypes[ARTICLE]!.maxTokens = 500;
    const newFile = structuredClone(savedOver);
    newFile.contentTypes[ARTICLE]!.pathPattern = '/blog/{slug}';

    const { settings, fromFile } = rebaseSettings(saved, savedOver, newFile);

    expect(settings.contentTypes[ARTICLE]!.pathPattern).toBe('/blog/{slug}');
    expect(settings.defaults.usage.cache).toBe('deny');
    expect(settings.contentTypes[ARTICLE]!.maxTokens).toBe(500);
    expect(fromFile).toEqual(['contentTypes["api::article.article"].pathPattern']);
  });

  it('Given the file changed a value the owner had also changed, When rebased, Then the later file change wins', () => {
    const savedOver = editableFromConfig(file());
    const saved = structuredClone(savedOver);
    saved.defaults.usage.train = 'allow';
    const newFile = structuredClone(savedOver);
    newFile.defaults.usage.train = 'allow-with-citation';

    const { settings, fromFile } = rebaseSettings(saved, savedOver, newFile);

    expect(settings.defaults.usage.train).toBe('allow-with-citation');
    expect(fromFile).toEqual(['defaults.usage.train']);
  });

  it('Given the file adds a licence and removes a type, When rebased, Then both follow the file', () => {
    const savedOver = editableFromConfig(file());
    const saved = structuredClone(savedOver);
    const newFile = structuredClone(savedOver);
    newFile.contentTypes['api::guide.guide']!.license = 'https://example.com/guides-license';
    delete newFile.contentTypes[ARTICLE];

    const { settings, fromFile } = rebaseSettings(saved, savedOver, newFile);

    expect(settings.contentTypes['api::guide.guide']!.license).toBe(
      'https://example.com/guides-license',
    );
    expect(settings.contentTypes[ARTICLE]).toBeUndefined();
    expect(fromFile).toEqual([
      'contentTypes["api::article.article"]',
      'contentTypes["api::guide.guide"].license',
    ]);
  });

  it('Given an unchanged file, When rebased, Then the saved Settings come back as they are', () => {
    const savedOver = editableFromConfig(file());
    const saved = structuredClone(savedOver);
    saved.schedule.enabled = false;
    saved.webhooks.subscribers = [];

    const { settings, fromFile } = rebaseSettings(saved, savedOver, structuredClone(savedOver));

    expect(settings).toEqual(saved);
    expect(fromFile).toEqual([]);
  });

  it('Given two editable settings, When compared, Then the fields that differ are named as the form names them', () => {
    const before = editableFromConfig(file());
    const after = structuredClone(before);
    after.contentTypes[ARTICLE]!.granularity = ['section'];
    after.siteUrl = 'https://www.example.com';

    expect(settingsChanges(before, after)).toEqual([
      'contentTypes["api::article.article"].granularity',
      'siteUrl',
    ]);
    expect(settingsChanges(before, structuredClone(before))).toEqual([]);
  });
});

describe('the Discovery section of Settings', () => {
  it('Given a file config, When shown as Settings, Then an unset summary is empty and its crawlers are listed', () => {
    expect(editableFromConfig(file()).discovery).toEqual({
      title: 'Example Research',
      summary: '',
      agents: ['GPTBot', 'ClaudeBot', 'PerplexityBot'],
      serveAtRoot: false,
    });
    const bare = parsePluginConfig({
      siteUrl: 'https://example.com',
      defaults: { license: 'https://example.com/license#tdm' },
    });
    expect(editableFromConfig(bare).discovery).toEqual({
      title: '',
      summary: '',
      agents: null,
      serveAtRoot: false,
    });
  });

  it('Given new discovery values, When applied, Then they win and what Settings do not edit keeps its file value', () => {
    const config = file();
    const settings = editableFromConfig(config);
    settings.discovery = {
      title: '  Example Research Library ',
      summary: 'Peer-reviewed articles and open datasets.',
      agents: ['ClaudeBot', 'OAI-SearchBot'],
      serveAtRoot: true,
    };
    const result = effectiveConfig(config, settings);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.discovery).toEqual({
      serveAtRoot: true,
      title: 'Example Research Library',
      summary: 'Peer-reviewed articles and open datasets.',
      details: 'Long-form research notes.',
      agents: ['ClaudeBot', 'OAI-SearchBot'],
      optionalTypes: ['api::guide.guide'],
      sitemapUrlsPerFile: 1000,
    });
    expect(config.discovery.title).toBe('Example Research');
  });

  it('Given an emptied title and every crawler (null), When applied, Then the file values are unset so the documents use their defaults', () => {
    const config = file();
    const settings = editableFromConfig(config);
    settings.discovery = { title: '   ', summary: '', agents: null, serveAtRoot: false };
    const result = effectiveConfig(config, settings);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config.discovery.title).toBeUndefined();
    expect(result.config.discovery.summary).toBeUndefined();
    expect(result.config.discovery.agents).toBeUndefined();
    expect(editableFromConfig(result.config).discovery).toEqual({
      title: '',
      summary: '',
      agents: null,
      serveAtRoot: false,
    });
  });

  it('Given a crawler the plugin does not know, When applied, Then the error is reported at that Settings field', () => {
    const settings = editableFromConfig(file());
    settings.discovery.agents = ['GPTBot', 'NotARealBot'];
    const result = effectiveConfig(file(), settings);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.path)).toEqual([['discovery', 'agents', '1']]);
    expect(result.errors[0]!.message).toMatch(/^discovery\.agents\[1\]: must be one of GPTBot, /);
  });

  it('Given a change of discovery values only, When compared, Then only discovery fields are named', () => {
    const before = editableFromConfig(file());
    const after = structuredClone(before);
    after.discovery.agents = null;
    after.discovery.summary = 'New summary.';
    expect(settingsChanges(before, after)).toEqual(['discovery.agents', 'discovery.summary']);
  });

  it('Given the file changes its crawler list, When rebased, Then the list follows the file and the owner’s title stays', () => {
    const savedOver = editableFromConfig(file());
    const newFile = structuredClone(savedOver);
    newFile.discovery.agents = null;

    const chosen = structuredClone(savedOver);
    chosen.discovery.title = 'Owner title';
    const rebased = rebaseSettings(chosen, savedOver, newFile);
    expect(rebased.settings.discovery).toEqual({ ...chosen.discovery, agents: null });
    expect(rebased.fromFile).toEqual(['discovery.agents']);
  });

  it('Given Settings stored before the Discovery section existed, When completed, Then it comes from the file and nothing else changes', () => {
    const file_ = editableFromConfig(file());
    const { discovery: _discovery, ...old } = structuredClone(file_);
    old.rateLimit.max = 42;
    const completed = withLaterSections(old, file_) as typeof file_;
    expect(completed.discovery).toEqual(file_.discovery);
    expect(completed.discovery).not.toBe(file_.discovery);
    expect(completed.rateLimit.max).toBe(42);
    expect(old).not.toHaveProperty('discovery');
    // Present sections are kept as stored, and what is not an object is left to validation.
    const owned = { ...file_, discovery: { ...file_.discovery, title: 'Mine' } };
    expect(withLaterSections(owned, file_)).toBe(owned);
    expect(withLaterSections(null, file_)).toBeNull();
    expect(withLaterSections(['x'], file_)).toEqual(['x']);
  });
});
