import type { Core } from '@strapi/strapi';
import type { ManifestItem } from '../../shared/contracts/manifest';
import { createBlobRepository } from '../../server/src/repositories/blob-repository';

/**
 * The data of one row of the plugin's item versions or fragment states, as stored (by its key in
 * the stored texts), and a way to store other data in its place: for tests that damage a row the
 * way a defect or someone with database access would.
 */
export async function storedData(
  strapi: Core.Strapi,
  uid: string,
  rowId: number,
): Promise<{ data: ManifestItem; replace(data: ManifestItem): Promise<void> }> {
  const blobs = createBlobRepository({ strapi });
  const query = strapi.db.query(uid as never);
  const row = (await query.findOne({ where: { id: rowId } })) as { data_ref: string };
  const text = (await blobs.texts([row.data_ref])).get(row.data_ref);
  if (text === undefined) throw new Error(`row ${rowId} of ${uid} has no stored data`);
  return {
    data: JSON.parse(text) as ManifestItem,
    async replace(data) {
      const [key] = await blobs.put([JSON.stringify(data)]);
      await query.update({ where: { id: rowId }, data: { data_ref: key } });
    },
  };
}
