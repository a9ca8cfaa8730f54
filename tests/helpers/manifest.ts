import { createHash } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type supertest from 'supertest';
import type { ManifestItem, ManifestPage } from '../../shared/contracts/manifest';

export const API = '/api/sitemap-ai';

/** Read every page of the manifest from its first page, following next_page_token. */
export async function crawl(
  http: ReturnType<typeof supertest>,
  query: Record<string, string> = {},
): Promise<{ pages: ManifestPage[]; items: ManifestItem[] }> {
  const pages: ManifestPage[] = [];
  let token: string | null = null;
  do {
    const res = await http
      .get(`${API}/manifest`)
      .query({ ...query, ...(token ? { page_token: token } : {}) });
    if (res.status !== 200)
      throw new Error(`manifest page answered ${res.status}: ${JSON.stringify(res.body)}`);
    const page = res.body as ManifestPage;
    pages.push(page);
    token = page.next_page_token;
    if (pages.length > 10_000) throw new Error('manifest traversal does not end');
  } while (token);
  return { pages, items: pages.flatMap((p) => p.items) };
}

export function sha256(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** A validator of manifest pages built from the schema the plugin serves. */
export function pageValidator(schema: object) {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv.compile(schema);
}

/** Path of a content_url, to request it from the booted app. */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}
