import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Core } from '@strapi/strapi';
import supertest from 'supertest';

const require = createRequire(__filename);
export const ROOT = path.resolve(__dirname, '..', '..');
export const PLAYGROUND = path.join(ROOT, 'playground');

export const DB_CLIENTS = ['sqlite', 'postgres', 'mysql'] as const;
export type DbClient = (typeof DB_CLIENTS)[number];

/** Databases the integration suite runs on: SITEMAP_AI_TEST_DBS=sqlite,postgres,mysql (default all three). */
export function testDatabases(): DbClient[] {
  const raw = process.env.SITEMAP_AI_TEST_DBS ?? DB_CLIENTS.join(',');
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s): s is DbClient => (DB_CLIENTS as readonly string[]).includes(s));
}

interface Database {
  env: Record<string, string>;
  drop(): Promise<void>;
}

async function createDatabase(client: DbClient): Promise<Database> {
  const name = `sai_${process.pid}_${randomBytes(4).toString('hex')}`;
  if (client === 'sqlite') {
    const file = path.join(os.tmpdir(), `${name}.db`);
    return {
      env: { DATABASE_CLIENT: 'sqlite', DATABASE_FILENAME: file },
      async drop() {
        for (const suffix of ['', '-wal', '-shm', '-journal'])
          rmSync(file + suffix, { force: true });
      },
    };
  }
  if (client === 'postgres') {
    const { Client } = require('pg') as typeof import('pg');
    const admin = new Client({
      host: '127.0.0.1',
      port: 5432,
      user: 'postgres',
      database: 'postgres',
    });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    return {
      env: {
        DATABASE_CLIENT: 'postgres',
        DATABASE_NAME: name,
        DATABASE_USERNAME: 'postgres',
        DATABASE_PORT: '5432',
      },
      async drop() {
        const c = new Client({
          host: '127.0.0.1',
          port: 5432,
          user: 'postgres',
          database: 'postgres',
        });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  const mysql = require('mysql2/promise') as typeof import('mysql2/promise');
  const connection = await mysql.createConnection({
    host: '127.0.0.1',
    port: 3306,
    user: 'root',
    password: '',
  });
  await connection.query(
    `CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
  );
  await connection.end();
  return {
    env: {
      DATABASE_CLIENT: 'mysql',
      DATABASE_NAME: name,
      DATABASE_USERNAME: 'root',
      DATABASE_PORT: '3306',
    },
    async drop() {
      const c = await mysql.createConnection({
        host: '127.0.0.1',
        port: 3306,
        user: 'root',
        password: '',
      });
      await c.query(`DROP DATABASE IF EXISTS ${name}`);
      await c.end();
    },
  };
}

export interface TestApp {
  strapi: Core.Strapi;
  http: ReturnType<typeof supertest>;
  client: DbClient;
  /** Boot the same database again (a restart); the old instance must have been stopped. */
  close(options?: { keepDatabase?: boolean }): Promise<void>;
  database: Database;
}

const DEFAULT_ENV: Record<string, string> = {
  LOG_LEVEL: 'error',
  NODE_ENV: 'test',
  ADMIN_RATE_LIMIT: 'false',
  // Suites crawl every page and every fragment's content; the limiter has its own test.
  SITEMAP_AI_RATE_LIMIT_MAX: '1000000',
  // Suites rebuild explicitly; the schedule has its own tests.
  SITEMAP_AI_SCHEDULE: 'false',
};

/**
 * Boot the playground Strapi on a fresh database (seeded on first boot by the
 * playground itself) and mount its HTTP server for supertest.
 */
export async function bootPlayground(
  client: DbClient,
  options: { env?: Record<string, string>; database?: Database; adminPanel?: boolean } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createDatabase(client));
  const env = { ...DEFAULT_ENV, ...database.env, ...options.env };
  const saved: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(env)) {
    saved[key] = process.env[key];
    process.env[key] = value;
  }
  const { createStrapi } = require('@strapi/strapi') as typeof import('@strapi/strapi');
  let strapi: Core.Strapi;
  try {
    strapi = await createStrapi({
      appDir: PLAYGROUND,
      distDir: PLAYGROUND,
      autoReload: false,
      serveAdminPanel: options.adminPanel === true,
    }).load();
  } catch (error) {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    if (!options.database) await database.drop();
    throw error;
  }
  strapi.server.mount();
  const restoreEnv = () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  return {
    strapi,
    http: supertest(strapi.server.httpServer),
    client,
    database,
    async close({ keepDatabase = false } = {}) {
      await strapi.destroy();
      restoreEnv();
      if (!keepDatabase) await database.drop();
    },
  };
}
