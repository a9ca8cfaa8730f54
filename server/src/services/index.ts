import { createAccessLogService } from './access-log';
import { createAgentsService } from './agents';
import { createConfigService } from './config';
import { createDashboardService } from './dashboard';
import { createDiscoveryService } from './discovery';
import { createEntryPanelService } from './entry-panel';
import { createEventsService } from './events';
import { createGeoService } from './geo';
import { createInstancesService } from './instances';
import { createManifestService } from './manifest';
import { createMetadataGuardService } from './metadata-guard';
import { createPolicyService } from './policy';
import { createRateLimitService } from './rate-limit';
import { createReadinessService } from './readiness';
import { createScheduler } from './scheduler';
import { createSettingsService } from './settings';
import { createSnapshotBuilder } from './snapshot-builder';
import { createTracker } from './tracker';
import { createWebhookService } from './webhooks';
import type { ServiceFactories } from '../utils/get-service';

/** The plugin's services; each name's type is declared in `ServiceTypeMap` (utils/get-service.ts). */
export default {
  config: createConfigService,
  settings: createSettingsService,
  'snapshot-builder': createSnapshotBuilder,
  manifest: createManifestService,
  tracker: createTracker,
  events: createEventsService,
  scheduler: createScheduler,
  webhooks: createWebhookService,
  'access-log': createAccessLogService,
  readiness: createReadinessService,
  dashboard: createDashboardService,
  'entry-panel': createEntryPanelService,
  instances: createInstancesService,
  'rate-limit': createRateLimitService,
  policy: createPolicyService,
  discovery: createDiscoveryService,
  agents: createAgentsService,
  geo: createGeoService,
  'metadata-guard': createMetadataGuardService,
} satisfies ServiceFactories;
