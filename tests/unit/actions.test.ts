import { describe, expect, it } from 'vitest';
import { ACTIONS, actionUid } from '../../server/src/core/actions';
import { PLUGIN_ID } from '../../shared/constants';

describe('RBAC actions', () => {
  it('Given each plugin action, When its uid is made, Then it is plugin::sitemap-ai.<action>, as Strapi registers it', () => {
    expect(Object.values(ACTIONS).map(actionUid)).toEqual([
      'plugin::sitemap-ai.settings.read',
      'plugin::sitemap-ai.settings.update',
      'plugin::sitemap-ai.fields.edit',
      'plugin::sitemap-ai.rebuild',
      'plugin::sitemap-ai.dashboard.read',
    ]);
    for (const action of Object.values(ACTIONS))
      expect(actionUid(action)).toBe(`plugin::${PLUGIN_ID}.${action}`);
  });

  it('Given the action list, When compared, Then every action is distinct and uses only uid characters', () => {
    const actions = Object.values(ACTIONS);
    expect(new Set(actions).size).toBe(actions.length);
    for (const action of actions) expect(action).toMatch(/^[a-z]+(\.[a-z]+)?$/);
  });
});
