import type { Core } from '@strapi/strapi';
import { ACTIONS, actionUid, type Action } from '../core/actions';
import type { Handler } from './handlers';

/** Admin routes (docs/protocol.md §4 admin-side): admin JWT and a plugin permission each. */
const guarded = (
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  handler: Handler,
  action: Action,
) => ({
  method,
  path,
  handler,
  config: {
    policies: [
      'admin::isAuthenticatedAdmin',
      { name: 'admin::hasPermissions', config: { actions: [actionUid(action)] } },
    ],
    middlewares: ['plugin::sitemap-ai.errors'],
  },
});

export default {
  type: 'admin' as const,
  routes: [
    guarded('POST', '/rebuild', 'admin.rebuild', ACTIONS.rebuild),
    guarded('GET', '/snapshots', 'admin.snapshots', ACTIONS.readDashboard),
    guarded('GET', '/webhooks/deliveries', 'admin.deliveries', ACTIONS.readDashboard),
    guarded('GET', '/dashboard', 'dashboard.show', ACTIONS.readDashboard),
    guarded('GET', '/geo', 'dashboard.geo', ACTIONS.readDashboard),
    guarded('GET', '/agents/keys', 'agent-keys.list', ACTIONS.readSettings),
    guarded('POST', '/agents/keys', 'agent-keys.issue', ACTIONS.updateSettings),
    guarded('POST', '/agents/keys/:id/revoke', 'agent-keys.revoke', ACTIONS.updateSettings),
    guarded('GET', '/geo.csv', 'dashboard.geoCsv', ACTIONS.readDashboard),
    guarded('GET', '/settings', 'settings.find', ACTIONS.readSettings),
    guarded('PUT', '/settings', 'settings.update', ACTIONS.updateSettings),
    guarded('POST', '/webhooks/test', 'settings.testWebhook', ACTIONS.updateSettings),
    guarded('POST', '/discovery/preview', 'settings.previewDiscovery', ACTIONS.updateSettings),
    guarded('GET', '/content-types', 'entries.types', ACTIONS.editFields),
    guarded('GET', '/entries/:uid/:documentId', 'entries.panel', ACTIONS.editFields),
  ],
} satisfies Core.RouterInput;
