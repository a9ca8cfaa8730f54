import { Flex, Typography } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import type { ReadinessCheck } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';
import { ReadinessCheckItem } from './ReadinessCheckItem';

/** The seed's pre-deployment checklist, as the plugin checks it on the current snapshot. */
export function ReadinessChecklist({
  checks,
  checkedAt,
  computing,
  snapshot,
}: {
  checks: ReadinessCheck[];
  checkedAt?: string;
  /** The current snapshot's checklist is still being computed: `checks` are of `snapshot`, or none. */
  computing?: boolean;
  snapshot?: string;
}) {
  const t = useTranslate();
  const { formatDate } = useIntl();
  const passing = checks.filter((check) => check.ok).length;
  return (
    <Flex direction="column" alignItems="stretch" gap={3}>
      {computing ? (
        <Typography variant="omega" textColor="neutral800" role="status">
          {t('readiness.computing')}
          {checks.length > 0 && snapshot ? ` ${t('readiness.shownOf', { snapshot })}` : ''}
        </Typography>
      ) : null}
      {computing && checks.length === 0 ? null : (
        <Typography variant="pi" textColor="neutral600">
          {t('readiness.passing', { passing, total: checks.length })}
          {checkedAt
            ? ` · ${t('readiness.checkedAt', { when: formatDate(checkedAt, { dateStyle: 'short', timeStyle: 'short' }) })}`
            : ''}
        </Typography>
      )}
      <Flex tag="ul" direction="column" alignItems="stretch" gap={2}>
        {checks.map((check) => (
          <ReadinessCheckItem key={check.id} check={check} />
        ))}
      </Flex>
    </Flex>
  );
}
