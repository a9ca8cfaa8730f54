import { Grid } from '@strapi/design-system';
import type { EditableSettings } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';
import { numberOrUnset, type FieldErrors } from '../utils/settings-form';
import { NumberField } from './fields/NumberField';
import { TextField } from './fields/TextField';
import { ToggleField } from './fields/ToggleField';
import { SectionCard } from './SectionCard';

interface OperationsSectionProps {
  settings: EditableSettings;
  onChange: (settings: EditableSettings) => void;
  errors: FieldErrors;
  disabled: boolean;
}

/** Rebuild schedule, public rate limit and access-log retention. */
export function OperationsSection({
  settings,
  onChange,
  errors,
  disabled,
}: OperationsSectionProps) {
  const t = useTranslate();
  const { schedule, rateLimit } = settings;
  return (
    <SectionCard
      title={t('settings.operations.title')}
      description={t('settings.operations.description')}
    >
      <Grid.Root gap={4}>
        <Grid.Item col={4} s={12} direction="column" alignItems="stretch">
          <ToggleField
            name="schedule.enabled"
            label={t('settings.schedule.enabled')}
            checked={schedule.enabled}
            onChange={(enabled) => onChange({ ...settings, schedule: { ...schedule, enabled } })}
            error={errors['schedule.enabled']}
            disabled={disabled}
          />
        </Grid.Item>
        <Grid.Item col={8} s={12} direction="column" alignItems="stretch">
          <TextField
            name="schedule.cron"
            label={t('settings.schedule.cron')}
            hint={t('settings.schedule.cronHint')}
            value={schedule.cron}
            onChange={(cron) => onChange({ ...settings, schedule: { ...schedule, cron } })}
            error={errors['schedule.cron']}
            disabled={disabled}
            required
          />
        </Grid.Item>
        <Grid.Item col={4} s={12} direction="column" alignItems="stretch">
          <ToggleField
            name="rateLimit.enabled"
            label={t('settings.rateLimit.enabled')}
            checked={rateLimit.enabled}
            onChange={(enabled) => onChange({ ...settings, rateLimit: { ...rateLimit, enabled } })}
            error={errors['rateLimit.enabled']}
            disabled={disabled}
          />
        </Grid.Item>
        <Grid.Item col={4} s={12} direction="column" alignItems="stretch">
          <NumberField
            name="rateLimit.max"
            label={t('settings.rateLimit.max')}
            value={rateLimit.max}
            onChange={(max) =>
              onChange({ ...settings, rateLimit: { ...rateLimit, max: numberOrUnset(max) } })
            }
            error={errors['rateLimit.max']}
            disabled={disabled}
          />
        </Grid.Item>
        <Grid.Item col={4} s={12} direction="column" alignItems="stretch">
          <NumberField
            name="rateLimit.windowSeconds"
            label={t('settings.rateLimit.window')}
            value={rateLimit.windowSeconds}
            onChange={(windowSeconds) =>
              onChange({
                ...settings,
                rateLimit: { ...rateLimit, windowSeconds: numberOrUnset(windowSeconds) },
              })
            }
            error={errors['rateLimit.windowSeconds']}
            disabled={disabled}
          />
        </Grid.Item>
        <Grid.Item col={4} s={12} direction="column" alignItems="stretch">
          <NumberField
            name="accessLogRetentionDays"
            label={t('settings.accessLog.retention')}
            hint={t('settings.accessLog.retentionHint')}
            value={settings.accessLogRetentionDays}
            onChange={(days) =>
              onChange({ ...settings, accessLogRetentionDays: numberOrUnset(days) })
            }
            error={errors.accessLogRetentionDays}
            disabled={disabled}
          />
        </Grid.Item>
      </Grid.Root>
    </SectionCard>
  );
}
