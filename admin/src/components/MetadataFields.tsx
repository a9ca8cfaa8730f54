import * as React from 'react';
import { Checkbox, Field, Flex, NumberInput, Textarea, Typography } from '@strapi/design-system';
import type {
  MetadataOverride,
  PolicySource,
  Usage,
  UsageKind,
} from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';
import { USAGE_KINDS } from '../../../shared/constants';
import { errorAt, errorsBelow, tagProblem, validateOverride } from '../utils/metadata';
import { EvidenceEditor } from './EvidenceEditor';
import { LicenseSelect } from './LicenseSelect';
import { TagsInput } from './TagsInput';
import { UsageSelect } from './UsageSelect';

/** What applies where the override sets nothing (the next level up in the cascade). */
export interface InheritedPolicy {
  license: { value: string; source: PolicySource } | null;
  usage: Partial<Record<UsageKind, { value: Usage[UsageKind]; source: PolicySource }>>;
}

interface MetadataFieldsProps {
  /** Form name prefix: `sitemapAi` or `sitemapAi.fragments.<fragment id>`. */
  name: string;
  value: MetadataOverride;
  onChange: (value: MetadataOverride) => void;
  inherited: InheritedPolicy;
  licenses: { uri: string; label: string }[];
  /** Fragment overrides can also leave the fragment out of the manifest. */
  withExclude?: boolean;
  /** What the server refused on the last save, keyed below `name` (`evidence.1.url`). */
  serverErrors?: Record<string, string>;
  disabled?: boolean;
}

/**
 * The fields an editor may set on an entry or on one fragment (README › In the admin):
 * licence, usage, evidence, topics, entity ids, stability pin, citation.
 */
export function MetadataFields({
  name,
  value,
  onChange,
  inherited,
  licenses,
  withExclude,
  serverErrors = {},
  disabled,
}: MetadataFieldsProps) {
  const t = useTranslate();
  const problems = React.useMemo(() => validateOverride(value), [value]);
  const set = <K extends keyof MetadataOverride>(key: K, next: MetadataOverride[K]) =>
    onChange({ ...value, [key]: next });
  // A problem found here wins (it is current); otherwise what the server said on the last save.
  const error = (key: keyof typeof problems | string): string | undefined =>
    problems[key] ? t(problems[key]) : errorAt(serverErrors, key);
  const evidenceErrors = {
    ...errorsBelow(serverErrors, 'evidence'),
    ...Object.fromEntries(
      Object.entries(problems)
        .filter(([key]) => key.startsWith('evidence.'))
        .map(([key, problem]) => [key.slice('evidence.'.length), t(problem)]),
    ),
  };

  return (
    <Flex direction="column" alignItems="stretch" gap={4}>
      {withExclude ? (
        <Checkbox
          name={`${name}.exclude`}
          checked={value.exclude === true}
          onCheckedChange={(checked) => set('exclude', checked === true ? true : undefined)}
          disabled={disabled}
        >
          {t('fields.exclude')}
        </Checkbox>
      ) : null}

      <LicenseSelect
        name={`${name}.license`}
        label={t('fields.license')}
        value={value.license}
        onChange={(next) => set('license', next)}
        licenses={licenses}
        inherited={inherited.license}
        disabled={disabled}
        error={error('license')}
      />

      <Flex direction="column" alignItems="stretch" gap={2}>
        <Typography variant="sigma" textColor="neutral600" tag="h3">
          {t('fields.usage')}
        </Typography>
        {USAGE_KINDS.map((kind) => (
          <UsageSelect
            key={kind}
            name={`${name}.usage.${kind}`}
            kind={kind}
            value={value.usage?.[kind]}
            onChange={(next) => set('usage', { ...value.usage, [kind]: next })}
            inherited={inherited.usage[kind] ?? null}
            error={error(`usage.${kind}`)}
            disabled={disabled}
          />
        ))}
      </Flex>

      <EvidenceEditor
        name={`${name}.evidence`}
        value={value.evidence ?? []}
        onChange={(next) => set('evidence', next)}
        errors={evidenceErrors}
        disabled={disabled}
      />

      <TagsInput
        name={`${name}.topics`}
        label={t('fields.topics')}
        hint={t('fields.topicsHint')}
        value={value.topics ?? []}
        onChange={(next) => set('topics', next)}
        validate={(tag) => tagProblem('topics', tag)}
        error={error('topics')}
        disabled={disabled}
      />

      <TagsInput
        name={`${name}.entity_ids`}
        label={t('fields.entityIds')}
        hint={t('fields.entityIdsHint')}
        value={value.entity_ids ?? []}
        onChange={(next) => set('entity_ids', next)}
        validate={(tag) => tagProblem('entity_ids', tag)}
        error={error('entity_ids')}
        disabled={disabled}
      />

      <Field.Root
        name={`${name}.stability_pin`}
        hint={t('fields.stabilityHint')}
        error={error('stability_pin')}
      >
        <Field.Label>{t('fields.stability')}</Field.Label>
        <NumberInput
          step={0.05}
          value={value.stability_pin}
          onValueChange={(next) => set('stability_pin', next)}
          disabled={disabled}
        />
        <Field.Error />
        <Field.Hint />
      </Field.Root>

      <Field.Root
        name={`${name}.citation.apa`}
        hint={t('fields.citationHint')}
        error={error('citation.apa')}
      >
        <Field.Label>{t('fields.citationApa')}</Field.Label>
        <Textarea
          value={value.citation?.apa ?? ''}
          onChange={(event: React.ChangeEvent<HTMLTextAreaElement>) =>
            set('citation', { ...value.citation, apa: event.target.value || undefined })
          }
          disabled={disabled}
        />
        <Field.Error />
        <Field.Hint />
      </Field.Root>
      <Field.Root name={`${name}.citation.bibtex`} error={error('citation.bibtex')}>
        <Field.Label>{t('fields.citationBibtex')}</Field.Label>
        <Textarea
          value={value.citation?.bibtex ?? ''}
          onChange={(event: React.ChangeEvent<HTMLTextAreaElement>) =>
            set('citation', { ...value.citation, bibtex: event.target.value || undefined })
          }
          disabled={disabled}
        />
        <Field.Error />
      </Field.Root>
    </Flex>
  );
}
