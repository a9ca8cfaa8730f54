import * as React from 'react';
import { Field, Flex, Tag, TextInput } from '@strapi/design-system';
import { Cross } from '@strapi/icons';
import { useTranslate } from '../hooks/useTranslate';
import { METADATA_LIST_MAX } from '../../../shared/metadata-schema';
import { splitTags, type MetadataProblem } from '../utils/metadata';

interface TagsInputProps {
  /** Form name of the text input, e.g. `sitemapAi.topics`. */
  name: string;
  label: string;
  hint?: string;
  value: string[];
  onChange: (value: string[]) => void;
  /** Problem of one typed tag, or null when it is fine. */
  validate?: (tag: string) => MetadataProblem | null;
  /** Problem of the stored list (from the panel's validation). */
  error?: string;
  disabled?: boolean;
}

/** A list of short labels: typed, then added with Enter or a comma (or when the input loses focus); removed by their ✕. */
export function TagsInput({
  name,
  label,
  hint,
  value,
  onChange,
  validate,
  error,
  disabled,
}: TagsInputProps) {
  const t = useTranslate();
  const [draft, setDraft] = React.useState('');
  const [problem, setProblem] = React.useState<MetadataProblem | null>(null);

  const commit = (text: string): boolean => {
    const tags = splitTags(text, value);
    const invalid = validate ? tags.map(validate).find((result) => result !== null) : undefined;
    if (invalid) {
      setProblem(invalid);
      return false;
    }
    if (value.length + tags.length > METADATA_LIST_MAX) {
      setProblem('validation.tooMany');
      return false;
    }
    setProblem(null);
    if (tags.length > 0) onChange([...value, ...tags]);
    setDraft('');
    return true;
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' || event.key === ',') {
      // Enter must not submit the Content Manager's form.
      event.preventDefault();
      commit(draft);
    } else if (event.key === 'Backspace' && draft === '' && value.length > 0) {
      onChange(value.slice(0, -1));
    }
  };

  const shownError = problem ? t(problem) : error;
  return (
    <Field.Root name={name} hint={hint} error={shownError}>
      <Field.Label>{label}</Field.Label>
      <TextInput
        value={draft}
        onChange={(event: React.ChangeEvent<HTMLInputElement>) => {
          setProblem(null);
          setDraft(event.target.value);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => {
          if (draft.trim() !== '') commit(draft);
        }}
        disabled={disabled}
      />
      <Field.Error />
      <Field.Hint />
      {value.length > 0 ? (
        <Flex gap={1} wrap="wrap" paddingTop={1}>
          {value.map((tag) => (
            <Tag
              key={tag}
              icon={<Cross aria-hidden />}
              label={t('tags.remove', { tag })}
              disabled={disabled}
              onClick={() => onChange(value.filter((item) => item !== tag))}
            >
              {tag}
            </Tag>
          ))}
        </Flex>
      ) : null}
    </Field.Root>
  );
}
