import { describe, expect, it } from 'vitest';
import { create } from 'xmlbuilder2';
import { XML_NAMESPACE } from '../../shared/constants';
import {
  buildEntryItems,
  finalizeDraft,
  servedItem,
  storedItem,
  readStoredItem,
  nextState,
} from '../../server/src/core/items';
import type { ManifestItem } from '../../server/src/core/types';
import { manifestPageToXml, type XmlPage } from '../../server/src/core/xml';
import { ARTICLE_TYPE, SITE, geoEntry } from './fixtures/entries';

const NAME = '[A-Za-z_][A-Za-z0-9_.-]*';
const ATTRIBUTE_VALUE = '"(?:[^"<&]|&(?:amp|lt|gt|quot|apos|#\\d+|#x[0-9a-fA-F]+);)*"';
const TAG = new RegExp(`^<(/?)(${NAME})((?:\\s+${NAME}=${ATTRIBUTE_VALUE})*)\\s*(/?)>`);
const TEXT = /^(?:[^<&]|&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)+/;
// eslint-disable-next-line no-control-regex -- the characters XML 1.0 forbids
const NOT_XML_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/**
 * A strict well-formedness check (xmlbuilder2's own parser is lenient): one
 * root, balanced tags, only declared entities, no characters XML 1.0 forbids.
 */
function assertWellFormed(xml: string): void {
  expect(xml).not.toMatch(NOT_XML_CHAR);
  let rest = xml.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>/, '');
  const stack: string[] = [];
  let roots = 0;
  while (rest.length > 0) {
    const tag = TAG.exec(rest);
    if (tag) {
      const [whole, closing, name, , selfClosing] = tag;
      if (closing) {
        expect(stack.pop(), `closing </${name}>`).toBe(name);
      } else {
        if (stack.length === 0) roots += 1;
        if (!selfClosing) stack.push(name!);
      }
      rest = rest.slice(whole.length);
      continue;
    }
    const text = TEXT.exec(rest);
    if (!text) throw new Error(`not well-formed near: ${rest.slice(0, 60)}`);
    if (stack.length === 0) expect(text[0].trim()).toBe('');
    rest = rest.slice(text[0].length);
  }
  expect(stack).toEqual([]);
  expect(roots).toBe(1);
}

function servedItems(): ManifestItem[] {
  const entry = geoEntry({
    datasets: [
      {
        field: 'data',
        title: 'Adoption survey 2025',
        fileUrl: '/uploads/adoption.csv',
        columns: [{ name: 'share', unit: '%' }],
      },
    ],
  });
  return buildEntryItems(entry, { ...ARTICLE_TYPE, stopSequences: ['\n## '] }, SITE)!
    .map(finalizeDraft)
    .map((draft) => {
      const { state } = nextState(undefined, draft, '2025-11-01T00:00:00.000Z');
      return servedItem(
        readStoredItem(storedItem(draft, state), state.checksum),
        state.history,
        undefined,
        new Date('2025-11-01T00:00:00.000Z'),
      );
    });
}

function pageOf(
  items: readonly ManifestItem[],
  token: string | null = 'eyJ2IjoxfQ.c2lnbmF0dXJl',
): XmlPage {
  return {
    snapshot: { id: '17', created_at: '2025-11-01T00:00:00.000Z' },
    items,
    next_page_token: token,
  };
}

function elements(xml: string, name: string) {
  return create(xml)
    .root()
    .filter((n) => n.node.nodeName === name, false, true);
}

describe('manifestPageToXml', () => {
  it('Given the strict checker, When it reads broken XML, Then it fails (the checker can fail)', () => {
    expect(() => assertWellFormed('<a><b></a>')).toThrow();
    expect(() => assertWellFormed('<a>&bogus;</a>')).toThrow();
    expect(() => assertWellFormed('<a/><b/>')).toThrow();
    expect(() => assertWellFormed('<a>\u000B</a>')).toThrow();
  });

  it('Given a page of real items, When serialised, Then the XML is well-formed and in the sitemap-ai namespace', () => {
    const xml = manifestPageToXml(pageOf(servedItems()));
    assertWellFormed(xml);
    const root = create(xml).root();
    expect(root.node.nodeName).toBe('manifest');
    expect((root.node as unknown as { namespaceURI: string }).namespaceURI).toBe(XML_NAMESPACE);
    expect(xml).toContain(`<manifest xmlns="${XML_NAMESPACE}" spec="sitemap-ai/1">`);
    expect(xml).toContain('<snapshot id="17" created_at="2025-11-01T00:00:00.000Z"/>');
  });

  it('Given items, When serialised, Then there is one item element per item, in order, with its id and checksum', () => {
    const items = servedItems();
    const xml = manifestPageToXml(pageOf(items));
    const ids = elements(xml, 'item').map((n) => n.first().node.textContent);
    expect(ids).toEqual(items.map((i) => i.id));
    expect(elements(xml, 'checksum').map((n) => n.node.textContent)).toEqual(
      items.map((i) => i.checksum),
    );
  });

  it('Given list fields, When serialised, Then members are named topic, entity_id, type, source, column, unit and stop_sequence', () => {
    const xml = manifestPageToXml(pageOf(servedItems().slice(0, 1)));
    expect(xml).toMatch(/<topics>\s*<topic>GEO<\/topic>\s*<topic>LLM<\/topic>\s*<\/topics>/);
    expect(xml).toMatch(/<entity_ids>\s*<entity_id>Q2013<\/entity_id>\s*<\/entity_ids>/);
    expect(xml).toMatch(/<schema>\s*<type>Article<\/type>\s*<\/schema>/);
    expect(xml).toMatch(
      /<evidence>\s*<source>\s*<rel>standard<\/rel>\s*<url>https:\/\/www\.rfc-editor\.org\/rfc\/rfc9309<\/url>/,
    );
    expect(xml).toMatch(
      /<stop_sequences>\s*<stop_sequence>\n## <\/stop_sequence>\s*<\/stop_sequences>/,
    );
    expect(xml).toMatch(/<usage>\s*<train>deny<\/train>\s*<infer>allow-with-citation<\/infer>/);
    const datasetXml = manifestPageToXml(pageOf(servedItems().filter((i) => i.type === 'dataset')));
    expect(datasetXml).toMatch(
      /<columns>\s*<column>\s*<name>share<\/name>\s*<unit>%<\/unit>\s*<\/column>\s*<\/columns>/,
    );
    expect(datasetXml).toMatch(/<units>\s*<unit>%<\/unit>\s*<\/units>/);
    expect(xml).not.toContain('<value>');
  });

  it('Given text with markup characters, When serialised, Then it is escaped and reads back unchanged', () => {
    const [article] = servedItems();
    const title = 'R&D <script>alert("x")</script> ]]> \'quoted\' — ďakujem';
    const xml = manifestPageToXml(pageOf([{ ...article!, title }]));
    assertWellFormed(xml);
    expect(xml).toContain(
      '<title>R&amp;D &lt;script&gt;alert("x")&lt;/script&gt; ]]&gt; \'quoted\' — ďakujem</title>',
    );
    expect(elements(xml, 'title')[0]!.node.textContent).toBe(title);
  });

  it('Given a title pasted from a word processor with control characters, When serialised, Then the XML stays well-formed', () => {
    const [article] = servedItems();
    const xml = manifestPageToXml(
      pageOf([{ ...article!, title: 'Line one\u000Bline two\u0007\u0000 end\uFFFE \uD800' }]),
    );
    assertWellFormed(xml);
    expect(elements(xml, 'title')[0]!.node.textContent).toBe('Line oneline two end ');
  });

  it('Given tab, LF, CR and astral characters, When serialised, Then they are kept', () => {
    const [article] = servedItems();
    const xml = manifestPageToXml(pageOf([{ ...article!, title: 'a\tb\nc 😀 𝔸' }]));
    assertWellFormed(xml);
    expect(elements(xml, 'title')[0]!.node.textContent).toBe('a\tb\nc 😀 𝔸');
  });

  it('Given the last page, When serialised, Then there is no next_page_token element; otherwise there is', () => {
    expect(manifestPageToXml(pageOf([], null))).not.toContain('next_page_token');
    const xml = manifestPageToXml(pageOf([], 'eyJ2IjoxfQ.c2lnbmF0dXJl'));
    assertWellFormed(xml);
    expect(elements(xml, 'next_page_token')[0]!.node.textContent).toBe('eyJ2IjoxfQ.c2lnbmF0dXJl');
  });

  it('Given numbers and absent values, When serialised, Then numbers are text and absent fields have no element', () => {
    const [article] = servedItems();
    const xml = manifestPageToXml(
      pageOf([{ ...article!, stability_score: 0.85, alt_of: undefined }]),
    );
    expect(xml).toContain('<stability_score>0.85</stability_score>');
    expect(xml).not.toContain('<alt_of');
    expect(xml).not.toContain('<parent');
  });
});
