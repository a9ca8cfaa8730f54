import { PLUGIN_ID } from './pluginId';

interface PermissionCheck {
  action: string;
  subject: null;
}

const check = (action: string): PermissionCheck[] => [
  { action: `plugin::${PLUGIN_ID}.${action}`, subject: null },
];

/**
 * RBAC actions of the plugin (server/src/core/actions.ts) as the admin checks
 * them with useRBAC and Page.Protect. useRBAC names them by their last part:
 * settings.read → canRead, settings.update → canUpdate, fields.edit → canEdit,
 * rebuild → canRebuild, dashboard.read → canRead.
 */
export const PERMISSIONS = {
  readSettings: check('settings.read'),
  updateSettings: check('settings.update'),
  editFields: check('fields.edit'),
  rebuild: check('rebuild'),
  readDashboard: check('dashboard.read'),
};
