import { createManifestService } from './manifest';
import { createSettingsService } from './settings';
import { createSnapshotBuilder } from './snapshot-builder';

export default {
  settings: createSettingsService,
  'snapshot-builder': createSnapshotBuilder,
  manifest: createManifestService,
};
