import {
  Badge,
  Box,
  Checkbox,
  Field,
  Flex,
  Grid,
  SingleSelect,
  SingleSelectOption,
  Typography,
} from '@strapi/design-system';
import type {
  ChunkRule,
  ContentTypeSettings,
  EditableSettings,
  FragmentType,
} from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';
import { CHUNK_LABELS, CHUNK_RULES, FRAGMENT_TYPES, FRAGMENT_TYPE_LABELS } from '../utils/labels';
import { USAGE_KINDS } from '../../../shared/constants';
import {
  defaultContentTypeSettings,
  numberOrUnset,
  type FieldErrors,
} from '../utils/settings-form';
import { LicenseSelect } from './LicenseSelect';
import { NumberField } from './fields/NumberField';
import { TextField } from './fields/TextField';
import { ToggleField } from './fields/ToggleField';
import { UsageSelect } from './UsageSelect';

interface ContentTypeSettingsCardProps {
  uid: string;
  displayName: string;
  value: ContentTypeSettings | undefined;
  defaults: EditableSettings['defaults'];
  licenses: { uri: string; label: string }[];
  onChange: (value: ContentTypeSettings) => void;
  errors: FieldErrors;
  disabled: boolean;
}

/** One content type's policy: indexed or not, its permalink pattern, fragment types, embedding hint, licence and usage. */
export function ContentTypeSettingsCard({
  uid,
  displayName,
  value,
  defaults,
  licenses,
  onChange,
  errors,
  disabled,
}: ContentTypeSettingsCardProps) {
  const t = useTranslate();
  const name = (field: string) => `contentTypes.${uid}.${field}`;
  const error = (field: string) => errors[name(field)];
  const settings = value ?? defaultContentTypeSettings(uid, defaults);
  const set = (patch: Partial<ContentTypeSettings>) => onChange({ ...settings, ...patch });
  const enabled = value?.enabled === true;

  const toggleGranularity = (type: FragmentType, checked: boolean) => {
    const next = checked
      ? [...settings.granularity, type]
      : settings.granularity.filter((item) => item !== type);
    // Keep the contract's order (section, table, figure, faq, dataset).
    set({ granularity: FRAGMENT_TYPES.filter((item) => next.includes(item)) });
  };

  return (
    <Box
      padding={4}
      hasRadius
      borderColor="neutral200"
      background={enabled ? 'neutral0' : 'neutral100'}
    >
      <Flex direction="column" alignItems="stretch" gap={4}>
        <Flex justifyContent="space-between" alignItems="flex-start" gap={4} wrap="wrap">
          <Flex direction="column" alignItems="flex-start" gap={1}>
            <Flex gap={2} alignItems="center">
              <Typography variant="omega" fontWeight="bold" tag="h3">
                {displayName}
              </Typography>
              <Badge variant={enabled ? 'success' : 'neutral'} size="S">
                {enabled ? t('settings.types.indexed') : t('settings.types.notIndexed')}
              </Badge>
            </Flex>
            <Typography variant="pi" textColor="neutral600">
              {uid}
            </Typography>
          </Flex>
          <Box minWidth="220px">
            <ToggleField
              name={name('enabled')}
              label={t('settings.types.enabled', { type: displayName })}
              checked={enabled}
              onChange={(checked) => onChange({ ...settings, enabled: checked })}
              error={error('enabled')}
              disabled={disabled}
            />
          </Box>
        </Flex>
        {enabled ? (
          <Grid.Root gap={4}>
            <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
              <TextField
                name={name('pathPattern')}
                label={t('settings.types.pathPattern')}
                hint={t('settings.types.pathPatternHint')}
                value={settings.pathPattern}
                onChange={(pathPattern) => set({ pathPattern })}
                error={error('pathPattern')}
                disabled={disabled}
                required
              />
            </Grid.Item>
            <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
              <Field.Root
                name={name('granularity')}
                error={error('granularity')}
                hint={t('settings.types.granularityHint')}
              >
                <Field.Label>{t('settings.types.granularity')}</Field.Label>
                <Flex gap={4} wrap="wrap" paddingTop={1}>
                  {FRAGMENT_TYPES.map((type) => (
                    <Checkbox
                      key={type}
                      name={`${name('granularity')}.${type}`}
                      checked={settings.granularity.includes(type)}
                      onCheckedChange={(checked) => toggleGranularity(type, checked === true)}
                      disabled={disabled}
                    >
                      {t(FRAGMENT_TYPE_LABELS[type])}
                    </Checkbox>
                  ))}
                </Flex>
                <Field.Error />
                <Field.Hint />
              </Field.Root>
            </Grid.Item>
            <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
              <Field.Root name={name('chunk')} error={error('chunk')}>
                <Field.Label>{t('settings.chunk')}</Field.Label>
                <SingleSelect
                  value={settings.chunk}
                  onChange={(chunk) => set({ chunk: String(chunk) as ChunkRule })}
                  disabled={disabled}
                >
                  {CHUNK_RULES.map((rule) => (
                    <SingleSelectOption key={rule} value={rule}>
                      {t(CHUNK_LABELS[rule])}
                    </SingleSelectOption>
                  ))}
                </SingleSelect>
                <Field.Error />
              </Field.Root>
            </Grid.Item>
            <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
              <NumberField
                name={name('maxTokens')}
                label={t('settings.maxTokens')}
                value={settings.maxTokens}
                onChange={(maxTokens) => set({ maxTokens: numberOrUnset(maxTokens) })}
                error={error('maxTokens')}
                disabled={disabled}
              />
            </Grid.Item>
            <Grid.Item col={12} direction="column" alignItems="stretch">
              <LicenseSelect
                name={name('license')}
                label={t('settings.types.license')}
                value={settings.license}
                onChange={(license) => set({ license })}
                licenses={licenses}
                inherited={defaults.license ? { value: defaults.license, source: 'site' } : null}
                error={error('license')}
                disabled={disabled}
              />
            </Grid.Item>
            {USAGE_KINDS.map((kind) => (
              <Grid.Item key={kind} col={3} s={6} xs={12} direction="column" alignItems="stretch">
                <UsageSelect
                  name={`${name('usage')}.${kind}`}
                  kind={kind}
                  value={settings.usage?.[kind]}
                  onChange={(usage) => set({ usage: { ...settings.usage, [kind]: usage } })}
                  inherited={{ value: defaults.usage[kind], source: 'site' }}
                  error={error(`usage.${kind}`)}
                  disabled={disabled}
                />
              </Grid.Item>
            ))}
          </Grid.Root>
        ) : null}
      </Flex>
    </Box>
  );
}
