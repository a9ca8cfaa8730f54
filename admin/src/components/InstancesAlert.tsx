import { Alert } from '@strapi/design-system';
import type { InstanceSummary } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';

/**
 * A warning when another Strapi instance on this database runs with another config/plugins:
 * only the instance that built the published snapshot builds until they agree (README:
 * "Several instances").
 */
export function InstancesAlert({
  instances,
}: {
  instances: readonly InstanceSummary[] | undefined;
}) {
  const t = useTranslate();
  const others = (instances ?? []).filter((i) => !i.self && !i.agrees);
  if (others.length === 0) return null;
  return (
    <Alert variant="danger" closeLabel={t('instances.close')} title={t('instances.title')}>
      {t('instances.disagree', { count: others.length, total: (instances ?? []).length })}
    </Alert>
  );
}
