import * as React from 'react';
import { Box, Button, Field, Flex, IconButton, TextInput, Typography } from '@strapi/design-system';
import { Plus, Trash } from '@strapi/icons';
import type { EvidenceLink } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';

interface EvidenceEditorProps {
  /** Form name prefix, e.g. `sitemapAi.evidence` → `sitemapAi.evidence.0.url`. */
  name: string;
  value: EvidenceLink[];
  onChange: (value: EvidenceLink[]) => void;
  /** Translated problems keyed `<index>.rel` / `<index>.url` / `<index>.title`. */
  errors: Record<string, string>;
  disabled?: boolean;
}

/** Primary sources backing the content: one row per link (relation, URL, optional title). */
export function EvidenceEditor({ name, value, onChange, errors, disabled }: EvidenceEditorProps) {
  const t = useTranslate();
  const update = (index: number, patch: Partial<EvidenceLink>) => {
    onChange(value.map((link, i) => (i === index ? { ...link, ...patch } : link)));
  };
  const problem = (key: string) => errors[key];

  return (
    <Flex direction="column" alignItems="stretch" gap={2}>
      <Typography variant="sigma" textColor="neutral600" tag="h3">
        {t('evidence.title')}
      </Typography>
      {value.length === 0 ? (
        <Typography variant="pi" textColor="neutral600">
          {t('evidence.empty')}
        </Typography>
      ) : null}
      {value.map((link, index) => (
        <Box key={index} padding={3} hasRadius borderColor="neutral200" background="neutral100">
          <Flex direction="column" alignItems="stretch" gap={2}>
            <Flex justifyContent="space-between" alignItems="center">
              <Typography variant="pi" fontWeight="bold">
                {t('evidence.row', { number: index + 1 })}
              </Typography>
              <IconButton
                label={t('evidence.remove', { number: index + 1 })}
                variant="ghost"
                onClick={() => onChange(value.filter((_, i) => i !== index))}
                disabled={disabled}
              >
                <Trash />
              </IconButton>
            </Flex>
            <Field.Root
              name={`${name}.${index}.rel`}
              error={problem(`${index}.rel`)}
              hint={t('evidence.relHint')}
            >
              <Field.Label>{t('evidence.rel')}</Field.Label>
              <TextInput
                value={link.rel}
                onChange={(event: React.ChangeEvent<HTMLInputElement>) =>
                  update(index, { rel: event.target.value })
                }
                disabled={disabled}
              />
              <Field.Error />
              <Field.Hint />
            </Field.Root>
            <Field.Root name={`${name}.${index}.url`} error={problem(`${index}.url`)}>
              <Field.Label>{t('evidence.url')}</Field.Label>
              <TextInput
                type="url"
                placeholder="https://"
                value={link.url}
                onChange={(event: React.ChangeEvent<HTMLInputElement>) =>
                  update(index, { url: event.target.value.trim() })
                }
                disabled={disabled}
              />
              <Field.Error />
            </Field.Root>
            <Field.Root name={`${name}.${index}.title`} error={problem(`${index}.title`)}>
              <Field.Label>{t('evidence.linkTitle')}</Field.Label>
              <TextInput
                value={link.title ?? ''}
                onChange={(event: React.ChangeEvent<HTMLInputElement>) =>
                  update(index, {
                    title: event.target.value === '' ? undefined : event.target.value,
                  })
                }
                disabled={disabled}
              />
              <Field.Error />
            </Field.Root>
          </Flex>
        </Box>
      ))}
      <Box>
        <Button
          variant="secondary"
          size="S"
          startIcon={<Plus />}
          onClick={() => onChange([...value, { rel: 'source', url: '' }])}
          disabled={disabled}
          name={`${name}.add`}
        >
          {t('evidence.add')}
        </Button>
      </Box>
    </Flex>
  );
}
