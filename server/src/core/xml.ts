import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import { SPEC_VERSION, XML_NAMESPACE } from '../../../shared/constants';
import type { ManifestItem } from './types';

/** Element name of one member of each list field. */
const LIST_MEMBER: Record<string, string> = {
  topics: 'topic',
  entity_ids: 'entity_id',
  related: 'ref',
  schema: 'type',
  evidence: 'source',
  changelog: 'entry',
  columns: 'column',
  units: 'unit',
  bounding_boxes: 'box',
  stop_sequences: 'stop_sequence',
  items: 'item',
};

function append(parent: XMLBuilder, name: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    const list = parent.ele(name);
    const member = LIST_MEMBER[name] ?? 'value';
    for (const entry of value) append(list, member, entry);
    return;
  }
  if (typeof value === 'object') {
    const element = parent.ele(name);
    for (const [key, child] of Object.entries(value as Record<string, unknown>))
      append(element, key, child);
    return;
  }
  parent.ele(name).txt(xmlText(String(value)));
}

/** Characters XML 1.0 cannot carry (C0 controls but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF) are dropped. */
function xmlText(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex -- matching the control characters XML forbids is the point
    /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '',
  );
}

export interface XmlPage {
  snapshot: { id: string; created_at: string };
  items: readonly ManifestItem[];
  next_page_token: string | null;
}

/** The XML form of a manifest page (docs/protocol.md §4 `manifest.xml`), one element per JSON field. */
export function manifestPageToXml(page: XmlPage): string {
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(XML_NAMESPACE, 'manifest', {
    spec: SPEC_VERSION,
  });
  root.ele('snapshot', { id: page.snapshot.id, created_at: page.snapshot.created_at });
  const items = root.ele('items');
  for (const item of page.items) append(items, 'item', item);
  if (page.next_page_token) root.ele('next_page_token').txt(page.next_page_token);
  return root.end({ prettyPrint: true });
}
