/** RBAC actions of the plugin (README › In the admin permissions); uids become `plugin::sitemap-ai.<uid>`. */
export const ACTIONS = {
  readSettings: 'settings.read',
  updateSettings: 'settings.update',
  editFields: 'fields.edit',
  rebuild: 'rebuild',
  readDashboard: 'dashboard.read',
} as const;

export type Action = (typeof ACTIONS)[keyof typeof ACTIONS];

export const actionUid = (action: Action): string => `plugin::sitemap-ai.${action}`;
