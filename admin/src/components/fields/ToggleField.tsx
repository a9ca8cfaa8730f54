import * as React from 'react';
import { Field, Toggle } from '@strapi/design-system';
import { useTranslate } from '../../hooks/useTranslate';

interface ToggleFieldProps {
  /** Set on Field.Root: it overrides the Toggle's own `name`. */
  name: string;
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  error?: string;
  hint?: string;
  disabled?: boolean;
}

/** A labelled on/off toggle. */
export function ToggleField({
  name,
  label,
  checked,
  onChange,
  error,
  hint,
  disabled,
}: ToggleFieldProps) {
  const t = useTranslate();
  return (
    <Field.Root name={name} error={error} hint={hint}>
      <Field.Label>{label}</Field.Label>
      <Toggle
        onLabel={t('toggle.on')}
        offLabel={t('toggle.off')}
        checked={checked}
        onChange={(event: React.ChangeEvent<HTMLInputElement>) => onChange(event.target.checked)}
        disabled={disabled}
      />
      <Field.Error />
      <Field.Hint />
    </Field.Root>
  );
}
