import { Field, NumberInput } from '@strapi/design-system';

interface NumberFieldProps {
  name: string;
  label: string;
  value: number | undefined;
  onChange: (value: number | undefined) => void;
  error?: string;
  hint?: string;
  step?: number;
  disabled?: boolean;
  required?: boolean;
}

/** A labelled number input with its error and hint. */
export function NumberField({
  name,
  label,
  value,
  onChange,
  error,
  hint,
  step = 1,
  disabled,
  required,
}: NumberFieldProps) {
  return (
    <Field.Root name={name} error={error} hint={hint} required={required}>
      <Field.Label>{label}</Field.Label>
      <NumberInput step={step} value={value} onValueChange={onChange} disabled={disabled} />
      <Field.Error />
      <Field.Hint />
    </Field.Root>
  );
}
