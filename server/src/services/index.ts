import { createEventsService } from './events';
import { createManifestService } from './manifest';
import { createScheduler } from './scheduler';
import { createSettingsService } from './settings';
import { createSnapshotBuilder } from './snapshot-builder';
import { createTracker } from './tracker';
import { createWebhookService } from './webhooks';

export default {
  settings: createSettingsService,
  'snapshot-builder': createSnapshotBuilder,
  manifest: createManifestService,
  tracker: createTracker,
  events: createEventsService,
  scheduler: createScheduler,
  webhooks: createWebhookService,
};
