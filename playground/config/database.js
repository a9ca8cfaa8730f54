'use strict';

const path = require('path');

/**
 * SQLite by default; PostgreSQL and MySQL/MariaDB through DATABASE_CLIENT.
 * A relative DATABASE_FILENAME is resolved against the current working directory.
 */
module.exports = ({ env }) => {
  const client = env('DATABASE_CLIENT', 'sqlite');

  const connections = {
    sqlite: {
      connection: {
        filename: path.resolve(
          process.cwd(),
          env('DATABASE_FILENAME', path.join(__dirname, '..', '.tmp', 'data.db')),
        ),
      },
      useNullAsDefault: true,
    },
    postgres: {
      connection: {
        host: env('DATABASE_HOST', '127.0.0.1'),
        port: env.int('DATABASE_PORT', 5432),
        database: env('DATABASE_NAME', 'test'),
        user: env('DATABASE_USERNAME', 'postgres'),
        password: env('DATABASE_PASSWORD', ''),
        schema: env('DATABASE_SCHEMA', 'public'),
        ssl: env.bool('DATABASE_SSL', false),
      },
      pool: { min: 0, max: env.int('DATABASE_POOL_MAX', 10) },
    },
    mysql: {
      connection: {
        host: env('DATABASE_HOST', '127.0.0.1'),
        port: env.int('DATABASE_PORT', 3306),
        database: env('DATABASE_NAME', 'test'),
        user: env('DATABASE_USERNAME', 'root'),
        password: env('DATABASE_PASSWORD', ''),
        ssl: env.bool('DATABASE_SSL', false),
      },
      pool: { min: 0, max: env.int('DATABASE_POOL_MAX', 10) },
    },
  };

  if (!connections[client]) {
    throw new Error(
      `DATABASE_CLIENT must be one of ${Object.keys(connections).join(', ')}; got "${client}"`,
    );
  }

  return {
    connection: {
      client,
      ...connections[client],
      acquireConnectionTimeout: env.int('DATABASE_CONNECTION_TIMEOUT', 60000),
    },
  };
};
