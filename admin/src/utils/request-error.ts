import { isFetchError } from '@strapi/strapi/admin';

/** One invalid field as the server names it in `error.details.errors` (`path` as segments, e.g. `['contentTypes', 'api::article.article', 'pathPattern']`). */
export interface FieldError {
  path: string[];
  message: string;
}

/** What the UI needs to know about a failed admin request. */
export interface RequestError {
  /** HTTP status; null when no answer came (network error). */
  status: number | null;
  /** Strapi's error name (`NotFoundError`, `ValidationError`, …); null when the answer had no error body. */
  name: string | null;
  message: string;
  fieldErrors: FieldError[];
}

function toPath(path: unknown): string[] {
  if (Array.isArray(path)) return path.map(String);
  // A dotted string (older Strapi validation errors); content-type UIDs hold dots, so prefer segments.
  return typeof path === 'string' && path !== '' ? path.split('.') : [];
}

function fieldErrorsOf(details: unknown): FieldError[] {
  if (typeof details !== 'object' || details === null) return [];
  const errors = (details as { errors?: unknown }).errors;
  if (!Array.isArray(errors)) return [];
  return errors.flatMap((item): FieldError[] => {
    if (typeof item !== 'object' || item === null) return [];
    const { path, message } = item as { path?: unknown; message?: unknown };
    return [
      { path: toPath(path), message: typeof message === 'string' ? message : String(message) },
    ];
  });
}

/** Normalises whatever useFetchClient threw: Strapi's `{ error: { status, message, details } }` or a network failure. */
export function toRequestError(error: unknown): RequestError {
  if (isFetchError(error)) {
    const body = error.response?.data?.error as
      { name?: string; message?: string; details?: unknown } | undefined;
    return {
      status: error.status ?? null,
      name: typeof body?.name === 'string' ? body.name : null,
      message: body?.message ?? error.message,
      fieldErrors: fieldErrorsOf(body?.details),
    };
  }
  if (error instanceof Error)
    return { status: null, name: null, message: error.message, fieldErrors: [] };
  return { status: null, name: null, message: String(error), fieldErrors: [] };
}

/** True for the AbortError that useFetchClient raises when its component unmounts. */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
