import { describe, expect, it, vi } from 'vitest';

/*
 * How the admin reads a failed request (admin/src/utils/request-error.ts).
 * `@strapi/strapi/admin` is the whole admin bundle and does not load in Node:
 * its FetchError is replaced by one built the same way (getFetchClient.mjs):
 * `new FetchError(result.error.message, { data: result })`, then
 * `fetchError.status = response.status`.
 */
const { FetchError } = vi.hoisted(() => {
  class FetchError extends Error {
    response?: { data?: { error?: Record<string, unknown> } };
    status?: number;
    constructor(message: string, response?: { data?: { error?: Record<string, unknown> } }) {
      super(message);
      this.name = 'FetchError';
      this.response = response;
      this.status = response?.data?.error?.status as number | undefined;
    }
  }
  return { FetchError };
});

vi.mock('@strapi/strapi/admin', () => ({
  isFetchError: (error: unknown) => error instanceof FetchError,
}));

import { isAbort, toRequestError } from '../../admin/src/utils/request-error';

/** What getFetchClient throws for a Strapi error answer. */
function answered(status: number, error: Record<string, unknown>): InstanceType<typeof FetchError> {
  const fetchError = new FetchError(String(error.message), {
    data: { error: { status, ...error } },
  });
  fetchError.status = status;
  return fetchError;
}

describe('toRequestError', () => {
  it('Given a 400 answer to PUT /settings with field details, When it is read, Then status, name, message and the fields (as path segments) are kept', () => {
    const error = answered(400, {
      name: 'ValidationError',
      message: 'contentTypes["api::article.article"].pathPattern: must start with "/"',
      details: {
        errors: [
          {
            path: ['contentTypes', 'api::article.article', 'pathPattern'],
            message: 'contentTypes["api::article.article"].pathPattern: must start with "/"',
          },
          {
            path: ['schedule', 'cron'],
            message: 'schedule.cron: is required',
            name: 'ValidationError',
          },
        ],
      },
    });
    expect(toRequestError(error)).toEqual({
      status: 400,
      name: 'ValidationError',
      message: 'contentTypes["api::article.article"].pathPattern: must start with "/"',
      fieldErrors: [
        {
          path: ['contentTypes', 'api::article.article', 'pathPattern'],
          message: 'contentTypes["api::article.article"].pathPattern: must start with "/"',
        },
        { path: ['schedule', 'cron'], message: 'schedule.cron: is required' },
      ],
    });
  });

  it('Given an older Strapi error with a dotted path and an index, When it is read, Then the path is split into segments', () => {
    const error = answered(400, {
      name: 'ValidationError',
      message: 'Invalid',
      details: {
        errors: [{ path: 'webhooks.subscribers.1.url', message: 'must appear only once' }],
      },
    });
    expect(toRequestError(error).fieldErrors).toEqual([
      { path: ['webhooks', 'subscribers', '1', 'url'], message: 'must appear only once' },
    ]);
  });

  it('Given numeric path segments, a missing path and a non-string message, When they are read, Then they become strings and an empty path', () => {
    const error = answered(400, {
      name: 'ValidationError',
      message: 'Invalid',
      details: {
        errors: [
          { path: ['webhooks', 'subscribers', 0, 'secret'], message: 'too short' },
          { message: 42 },
          null,
          'oops',
        ],
      },
    });
    expect(toRequestError(error).fieldErrors).toEqual([
      { path: ['webhooks', 'subscribers', '0', 'secret'], message: 'too short' },
      { path: [], message: '42' },
    ]);
  });

  it('Given a 404 NotFoundError without details, When it is read, Then it has no field errors', () => {
    expect(toRequestError(answered(404, { name: 'NotFoundError', message: 'Not Found' }))).toEqual({
      status: 404,
      name: 'NotFoundError',
      message: 'Not Found',
      fieldErrors: [],
    });
  });

  it('Given a 502 without an error body (getFetchClient: "Unknown Server Error"), When it is read, Then the status and the client’s message remain', () => {
    const error = new FetchError('Unknown Server Error');
    error.status = 502;
    expect(toRequestError(error)).toEqual({
      status: 502,
      name: null,
      message: 'Unknown Server Error',
      fieldErrors: [],
    });
  });

  it('Given a network failure (a TypeError from fetch), When it is read, Then there is no status and the message is the browser’s', () => {
    expect(toRequestError(new TypeError('Failed to fetch'))).toEqual({
      status: null,
      name: null,
      message: 'Failed to fetch',
      fieldErrors: [],
    });
  });

  it('Given something thrown that is not an Error, When it is read, Then its text is the message', () => {
    expect(toRequestError('timeout')).toEqual({
      status: null,
      name: null,
      message: 'timeout',
      fieldErrors: [],
    });
    expect(toRequestError(undefined).message).toBe('undefined');
  });
});

describe('isAbort', () => {
  it('Given the AbortError raised when the panel unmounts during a request, When it is checked, Then it is an abort', () => {
    expect(isAbort(new DOMException('The operation was aborted.', 'AbortError'))).toBe(true);
    const error = new Error('aborted');
    error.name = 'AbortError';
    expect(isAbort(error)).toBe(true);
  });

  it('Given a real failure or a plain object named AbortError, When it is checked, Then it is not an abort', () => {
    expect(
      isAbort(answered(500, { name: 'InternalServerError', message: 'Internal Server Error' })),
    ).toBe(false);
    expect(isAbort(new TypeError('Failed to fetch'))).toBe(false);
    expect(isAbort({ name: 'AbortError' })).toBe(false);
  });
});
