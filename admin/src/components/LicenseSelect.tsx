import * as React from 'react';
import { Field, Flex, SingleSelect, SingleSelectOption, TextInput } from '@strapi/design-system';
import type { PolicySource } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';
import { SOURCE_LABELS } from '../utils/labels';

const INHERIT = 'inherit';
const CUSTOM = 'custom';

interface LicenseSelectProps {
  /** Form name of the select, e.g. `sitemapAi.license`; the custom URI input is `<name>.custom`. */
  name: string;
  label: string;
  value: string | undefined;
  onChange: (value: string | undefined) => void;
  licenses: { uri: string; label: string }[];
  /** What applies when nothing is set; without `allowInherit` a licence must be chosen. */
  inherited?: { value: string; source: PolicySource } | null;
  allowInherit?: boolean;
  disabled?: boolean;
  /** Translated problem of the current value. */
  error?: string;
  hint?: string;
}

/** A configured licence, "inherit", or a custom licence URI typed by hand. */
export function LicenseSelect({
  name,
  label,
  value,
  onChange,
  licenses,
  inherited,
  allowInherit = true,
  disabled,
  error,
  hint,
}: LicenseSelectProps) {
  const t = useTranslate();
  const isConfigured = value !== undefined && licenses.some((license) => license.uri === value);
  // "Custom" stays chosen while the editor has not typed a URI yet.
  const [customChosen, setCustomChosen] = React.useState(false);
  const custom = (value !== undefined && !isConfigured) || customChosen;
  const selected = custom ? CUSTOM : (value ?? (allowInherit ? INHERIT : undefined));

  const labelOf = (uri: string) => licenses.find((license) => license.uri === uri)?.label ?? uri;
  const inheritLabel = inherited
    ? t('license.inheritFrom', {
        value: labelOf(inherited.value),
        source: t(SOURCE_LABELS[inherited.source]),
      })
    : t('license.inherit');

  const choose = (next: string | number) => {
    const choice = String(next);
    if (choice === CUSTOM) {
      setCustomChosen(true);
      return;
    }
    setCustomChosen(false);
    onChange(choice === INHERIT ? undefined : choice);
  };

  return (
    <Flex direction="column" alignItems="stretch" gap={2}>
      <Field.Root name={name} hint={custom ? undefined : hint} error={custom ? undefined : error}>
        <Field.Label>{label}</Field.Label>
        <SingleSelect
          value={selected}
          onChange={choose}
          disabled={disabled}
          placeholder={t('license.choose')}
        >
          {allowInherit ? (
            <SingleSelectOption value={INHERIT}>{inheritLabel}</SingleSelectOption>
          ) : null}
          {licenses.map((license) => (
            <SingleSelectOption key={license.uri} value={license.uri}>
              {license.label}
            </SingleSelectOption>
          ))}
          <SingleSelectOption value={CUSTOM}>{t('license.custom')}</SingleSelectOption>
        </SingleSelect>
        <Field.Error />
        <Field.Hint />
      </Field.Root>
      {custom ? (
        <Field.Root name={`${name}.custom`} error={error} hint={hint}>
          <Field.Label>{t('license.customUri')}</Field.Label>
          <TextInput
            type="url"
            placeholder="https://example.com/license"
            value={isConfigured ? '' : (value ?? '')}
            onChange={(event: React.ChangeEvent<HTMLInputElement>) => {
              const typed = event.target.value.trim();
              setCustomChosen(true);
              onChange(typed === '' ? undefined : typed);
            }}
            disabled={disabled}
          />
          <Field.Error />
          <Field.Hint />
        </Field.Root>
      ) : null}
    </Flex>
  );
}
