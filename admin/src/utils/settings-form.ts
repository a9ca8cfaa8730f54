import type {
  ContentTypeSettings,
  DiscoverySettings,
  EditableSettings,
} from '../../../shared/contracts/admin';
import {
  settingsFieldName,
  validateDiscoverySettings,
  validateSettings,
} from '../../../shared/settings-schema';
import { FRAGMENT_TYPES } from './labels';
import type { FieldError } from './request-error';

/** Field errors of the Settings form keyed by their path segments joined with dots. */
export type FieldErrors = Record<string, string>;

export const fieldKey = (path: readonly (string | number)[]): string => path.map(String).join('.');

/** The message without the field name the shared schema puts in front of it (the field shows next to it). */
function bareMessage(path: readonly string[], message: string): string {
  const prefix = `${settingsFieldName(path)}: `;
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

export function toFieldErrors(errors: readonly FieldError[]): FieldErrors {
  const result: FieldErrors = {};
  for (const error of errors) {
    const key = fieldKey(error.path);
    if (result[key] === undefined) result[key] = bareMessage(error.path, error.message);
  }
  return result;
}

/** Client-side validation with the very schema the server uses (shared/settings-schema.ts). */
export function validateSettingsForm(settings: EditableSettings): FieldErrors {
  const result = validateSettings(settings);
  return result.ok ? {} : toFieldErrors(result.errors);
}

/** The error of a field or of anything below it (`discovery.agents` or `discovery.agents.1`). */
export function errorBelow(errors: FieldErrors, key: string): string | undefined {
  if (errors[key] !== undefined) return errors[key];
  const below = Object.keys(errors).find((other) => other.startsWith(`${key}.`));
  return below === undefined ? undefined : errors[below];
}

/** Whether the Discovery section passes the server's rules (then it can be previewed). */
export const validDiscovery = (discovery: DiscoverySettings): boolean =>
  validateDiscoverySettings(discovery).ok;

/** Settings of a content type that is enabled for the first time: every fragment type, the site's embedding hint. */
export function defaultContentTypeSettings(
  uid: string,
  defaults: EditableSettings['defaults'],
): ContentTypeSettings {
  const name = uid.split('.').pop() ?? 'entry';
  return {
    enabled: true,
    pathPattern: `/${name}/{slug}`,
    granularity: [...FRAGMENT_TYPES],
    chunk: defaults.embedding.chunk,
    maxTokens: defaults.embedding.maxTokens,
  };
}

/**
 * A number input that was emptied: kept unset in the draft (the type says
 * number), so validation reports "is required" next to the field.
 */
export const numberOrUnset = (value: number | undefined): number => value as number;
