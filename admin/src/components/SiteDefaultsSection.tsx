import { Field, Grid, SingleSelect, SingleSelectOption } from '@strapi/design-system';
import type { ChunkRule, EditableSettings } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';
import { CHUNK_LABELS, CHUNK_RULES } from '../utils/labels';
import { USAGE_KINDS } from '../../../shared/constants';
import { numberOrUnset, type FieldErrors } from '../utils/settings-form';
import { LicenseSelect } from './LicenseSelect';
import { NumberField } from './fields/NumberField';
import { TextField } from './fields/TextField';
import { SectionCard } from './SectionCard';
import { UsageSelect } from './UsageSelect';

interface SiteDefaultsSectionProps {
  settings: EditableSettings;
  licenses: { uri: string; label: string }[];
  onChange: (settings: EditableSettings) => void;
  errors: FieldErrors;
  disabled: boolean;
}

/** Site URL and the site-wide defaults every content type and entry inherits (docs/protocol.md §2 policy cascade). */
export function SiteDefaultsSection({
  settings,
  licenses,
  onChange,
  errors,
  disabled,
}: SiteDefaultsSectionProps) {
  const t = useTranslate();
  const { defaults } = settings;
  const setDefaults = (next: Partial<EditableSettings['defaults']>) =>
    onChange({ ...settings, defaults: { ...defaults, ...next } });

  return (
    <SectionCard title={t('settings.site.title')} description={t('settings.site.description')}>
      <Grid.Root gap={4}>
        <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
          <TextField
            name="siteUrl"
            type="url"
            label={t('settings.site.url')}
            hint={t('settings.site.urlHint')}
            value={settings.siteUrl}
            onChange={(siteUrl) => onChange({ ...settings, siteUrl })}
            error={errors.siteUrl}
            disabled={disabled}
            required
          />
        </Grid.Item>
        <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
          <LicenseSelect
            name="defaults.license"
            label={t('settings.site.license')}
            value={defaults.license === '' ? undefined : defaults.license}
            onChange={(license) => setDefaults({ license: license ?? '' })}
            licenses={licenses}
            allowInherit={false}
            error={errors['defaults.license']}
            disabled={disabled}
          />
        </Grid.Item>
        {USAGE_KINDS.map((kind) => (
          <Grid.Item key={kind} col={3} s={6} xs={12} direction="column" alignItems="stretch">
            <UsageSelect
              name={`defaults.usage.${kind}`}
              kind={kind}
              value={defaults.usage[kind]}
              onChange={(value) =>
                value && setDefaults({ usage: { ...defaults.usage, [kind]: value } })
              }
              allowInherit={false}
              error={errors[`defaults.usage.${kind}`]}
              disabled={disabled}
            />
          </Grid.Item>
        ))}
        <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
          <Field.Root
            name="defaults.embedding.chunk"
            error={errors['defaults.embedding.chunk']}
            hint={t('settings.chunkHint')}
          >
            <Field.Label>{t('settings.chunk')}</Field.Label>
            <SingleSelect
              value={defaults.embedding.chunk}
              onChange={(chunk) =>
                setDefaults({
                  embedding: { ...defaults.embedding, chunk: String(chunk) as ChunkRule },
                })
              }
              disabled={disabled}
            >
              {CHUNK_RULES.map((rule) => (
                <SingleSelectOption key={rule} value={rule}>
                  {t(CHUNK_LABELS[rule])}
                </SingleSelectOption>
              ))}
            </SingleSelect>
            <Field.Error />
            <Field.Hint />
          </Field.Root>
        </Grid.Item>
        <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
          <NumberField
            name="defaults.embedding.maxTokens"
            label={t('settings.maxTokens')}
            value={defaults.embedding.maxTokens}
            onChange={(maxTokens) =>
              setDefaults({
                embedding: { ...defaults.embedding, maxTokens: numberOrUnset(maxTokens) },
              })
            }
            error={errors['defaults.embedding.maxTokens']}
            disabled={disabled}
          />
        </Grid.Item>
      </Grid.Root>
    </SectionCard>
  );
}
