import type { TestApp } from './strapi';

const PASSWORD = 'Test-Admin-2026';

/** Register the first (super) admin through the real endpoint and return its JWT. */
export async function superAdminToken(app: TestApp, email = 'owner@example.com'): Promise<string> {
  const res = await app.http
    .post('/admin/register-admin')
    .send({ firstname: 'Site', lastname: 'Owner', email, password: PASSWORD });
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`register-admin answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data.token as string;
}

/** Log an existing admin in through the real endpoint (after a restart) and return its JWT. */
export async function loginToken(app: TestApp, email = 'owner@example.com'): Promise<string> {
  const res = await app.http.post('/admin/login').send({ email, password: PASSWORD });
  if (res.status !== 200)
    throw new Error(`login answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data.token as string;
}

/** One of the admin roles by its code (e.g. strapi-editor); throws when there is none. */
async function roleOf(app: TestApp, roleCode: string): Promise<{ id: number }> {
  const role = (await app.strapi.service('admin::role').findOne({ code: roleCode })) as {
    id: number;
  } | null;
  if (!role) throw new Error(`no admin role ${roleCode}`);
  return role;
}

/** Create an admin user with one of Strapi's roles (e.g. strapi-editor), log in, return the JWT. */
export async function roleToken(app: TestApp, roleCode: string, email: string): Promise<string> {
  const role = await roleOf(app, roleCode);
  await app.strapi.service('admin::user').create({
    email,
    firstname: 'Ed',
    lastname: 'Itor',
    password: PASSWORD,
    isActive: true,
    roles: [role.id],
  });
  return loginToken(app, email);
}

/**
 * Let a role's Content Manager permissions on `uid` cover these locales (what a
 * site owner sets in Settings → Roles; Strapi's Editor and Author roles start
 * without any locale, so they cannot save a localized entry).
 */
export async function grantLocales(
  app: TestApp,
  roleCode: string,
  uid: string,
  locales: string[],
): Promise<void> {
  const role = await roleOf(app, roleCode);
  const query = app.strapi.db.query('admin::permission' as never);
  const permissions = (await query.findMany({ where: { role: role.id, subject: uid } })) as {
    id: number;
    properties?: Record<string, unknown>;
  }[];
  for (const permission of permissions) {
    await query.update({
      where: { id: permission.id },
      data: { properties: { ...(permission.properties ?? {}), locales } },
    });
  }
}

/** Give a role one of the plugin's actions (what a site owner ticks in Settings → Roles). */
export async function grantPluginAction(
  app: TestApp,
  roleCode: string,
  action: string,
): Promise<void> {
  const role = await roleOf(app, roleCode);
  await app.strapi
    .service('admin::role')
    .addPermissions(role.id, [
      { action: `plugin::sitemap-ai.${action}`, subject: null, properties: {}, conditions: [] },
    ]);
}

/** Take one of the plugin's actions from a role again, so a test that granted it leaves the role as it found it. */
export async function revokePluginAction(
  app: TestApp,
  roleCode: string,
  action: string,
): Promise<void> {
  const role = await roleOf(app, roleCode);
  await app.strapi.db
    .query('admin::permission' as never)
    .deleteMany({ where: { role: role.id, action: `plugin::sitemap-ai.${action}` } });
}

/** Give a role a Content Manager action on a content type in some locales (e.g. publish). */
export async function grantContentAction(
  app: TestApp,
  roleCode: string,
  action: string,
  uid: string,
  locales: string[],
): Promise<void> {
  const role = await roleOf(app, roleCode);
  await app.strapi.service('admin::role').addPermissions(role.id, [
    {
      action: `plugin::content-manager.explorer.${action}`,
      subject: uid,
      properties: { locales },
      conditions: [],
    },
  ]);
}
