import { Field, SingleSelect, SingleSelectOption } from '@strapi/design-system';
import type { PolicySource, UsageKind, UsageValue } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';
import { SOURCE_LABELS, USAGE_KIND_LABELS, USAGE_VALUE_LABELS } from '../utils/labels';
import { USAGE_VALUES } from '../../../shared/constants';

const INHERIT = 'inherit';

interface UsageSelectProps {
  /** The form name, e.g. `sitemapAi.usage.train`. */
  name: string;
  kind: UsageKind;
  value: UsageValue | undefined;
  onChange: (value: UsageValue | undefined) => void;
  /** What applies when nothing is set here; without it there is no "inherit" choice (site defaults). */
  inherited?: { value: UsageValue | undefined; source: PolicySource | undefined } | null;
  allowInherit?: boolean;
  disabled?: boolean;
  error?: string;
}

/** allow / deny / allow-with-citation for one usage kind, with "inherit (<value> from <source>)" when it may be left unset. */
export function UsageSelect({
  name,
  kind,
  value,
  onChange,
  inherited,
  allowInherit = true,
  disabled,
  error,
}: UsageSelectProps) {
  const t = useTranslate();
  const inheritLabel =
    inherited?.value !== undefined && inherited.source !== undefined
      ? t('usage.inheritFrom', {
          value: t(USAGE_VALUE_LABELS[inherited.value]),
          source: t(SOURCE_LABELS[inherited.source]),
        })
      : t('usage.inherit');
  return (
    <Field.Root name={name} error={error}>
      <Field.Label>{t(USAGE_KIND_LABELS[kind])}</Field.Label>
      <SingleSelect
        value={value ?? (allowInherit ? INHERIT : undefined)}
        onChange={(next) => onChange(next === INHERIT ? undefined : (String(next) as UsageValue))}
        disabled={disabled}
        placeholder={t('usage.choose')}
      >
        {allowInherit ? (
          <SingleSelectOption value={INHERIT}>{inheritLabel}</SingleSelectOption>
        ) : null}
        {USAGE_VALUES.map((option) => (
          <SingleSelectOption key={option} value={option}>
            {t(USAGE_VALUE_LABELS[option])}
          </SingleSelectOption>
        ))}
      </SingleSelect>
      <Field.Error />
    </Field.Root>
  );
}
