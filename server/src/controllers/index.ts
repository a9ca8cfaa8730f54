import { createAdminController } from './admin';
import { createAgentKeysController } from './agent-keys';
import { createDashboardController } from './dashboard';
import { createDiscoveryController } from './discovery';
import { createEntriesController } from './entries';
import { createManifestController } from './manifest';
import { createSettingsController } from './settings';

export default {
  manifest: createManifestController,
  admin: createAdminController,
  dashboard: createDashboardController,
  settings: createSettingsController,
  entries: createEntriesController,
  discovery: createDiscoveryController,
  'agent-keys': createAgentKeysController,
};
