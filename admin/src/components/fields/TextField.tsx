import * as React from 'react';
import { Field, TextInput } from '@strapi/design-system';

interface TextFieldProps {
  name: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: string;
  placeholder?: string;
  type?: 'text' | 'url' | 'password';
  disabled?: boolean;
  required?: boolean;
  endAction?: React.ReactNode;
}

/** A labelled text input with its error and hint. */
export function TextField({
  name,
  label,
  value,
  onChange,
  error,
  hint,
  placeholder,
  type = 'text',
  disabled,
  required,
  endAction,
}: TextFieldProps) {
  return (
    <Field.Root name={name} error={error} hint={hint} required={required}>
      <Field.Label>{label}</Field.Label>
      <TextInput
        type={type}
        value={value}
        placeholder={placeholder}
        onChange={(event: React.ChangeEvent<HTMLInputElement>) => onChange(event.target.value)}
        disabled={disabled}
        endAction={endAction}
      />
      <Field.Error />
      <Field.Hint />
    </Field.Root>
  );
}
