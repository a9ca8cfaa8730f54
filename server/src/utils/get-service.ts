import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../../shared/constants';
import type { AccessLogService } from '../services/access-log';
import type { AgentsService } from '../services/agents';
import type { ConfigService } from '../services/config';
import type { DashboardService } from '../services/dashboard';
import type { DiscoveryService } from '../services/discovery';
import type { EntryPanelService } from '../services/entry-panel';
import type { EventsService } from '../services/events';
import type { GeoService } from '../services/geo';
import type { InstancesService } from '../services/instances';
import type { ManifestService } from '../services/manifest';
import type { MetadataGuardService } from '../services/metadata-guard';
import type { PolicyService } from '../services/policy';
import type { RateLimitService } from '../services/rate-limit';
import type { ReadinessService } from '../services/readiness';
import type { Scheduler } from '../services/scheduler';
import type { SettingsService } from '../services/settings';
import type { SnapshotBuilder } from '../services/snapshot-builder';
import type { Tracker } from '../services/tracker';
import type { WebhookService } from '../services/webhooks';

/**
 * The plugin's services by name, each with its type: the map `getService` is typed by. Written
 * out rather than derived from the services index (`typeof services`), so that no type depends on
 * the index that imports every service; the index is checked against this map instead.
 */
export interface ServiceTypeMap {
  config: ConfigService;
  settings: SettingsService;
  'snapshot-builder': SnapshotBuilder;
  manifest: ManifestService;
  tracker: Tracker;
  events: EventsService;
  scheduler: Scheduler;
  webhooks: WebhookService;
  'access-log': AccessLogService;
  readiness: ReadinessService;
  dashboard: DashboardService;
  'entry-panel': EntryPanelService;
  instances: InstancesService;
  'rate-limit': RateLimitService;
  policy: PolicyService;
  discovery: DiscoveryService;
  agents: AgentsService;
  geo: GeoService;
  'metadata-guard': MetadataGuardService;
}

export type ServiceName = keyof ServiceTypeMap;
export type ServiceOf<N extends ServiceName> = ServiceTypeMap[N];

/** What the services index must hold: for each name, a factory of that service. */
export type ServiceFactories = {
  [N in ServiceName]: (deps: { strapi: Core.Strapi }) => ServiceTypeMap[N];
};

/** The plugin's services, typed by name. */
export function getService<N extends ServiceName>(strapi: Core.Strapi, name: N): ServiceOf<N> {
  return strapi.plugin(PLUGIN_ID).service(name) as ServiceOf<N>;
}
