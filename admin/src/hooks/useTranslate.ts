import * as React from 'react';
import { useIntl } from 'react-intl';
import en from '../translations/en.json';
import { getTranslation } from '../utils/getTranslation';

export type MessageKey = keyof typeof en;
export type MessageValues = Record<string, string | number | boolean | null | undefined | Date>;
export type Translate = (key: MessageKey, values?: MessageValues) => string;

/**
 * formatMessage for this plugin's messages: ids `sitemap-ai.<key>`, typed
 * against en.json (a missing key is a type error), English as the default.
 */
export function useTranslate(): Translate {
  const { formatMessage } = useIntl();
  return React.useCallback<Translate>(
    (key, values) => formatMessage({ id: getTranslation(key), defaultMessage: en[key] }, values),
    [formatMessage],
  );
}
