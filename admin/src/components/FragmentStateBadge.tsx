import { Badge } from '@strapi/design-system';
import type { FragmentPreview } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';
import { FRAGMENT_STATE_LABELS } from '../utils/labels';

const VARIANTS = { new: 'success', changed: 'warning', unchanged: 'neutral' } as const;

/** new / changed / unchanged versus the published manifest. */
export function FragmentStateBadge({ state }: { state: FragmentPreview['state'] }) {
  const t = useTranslate();
  return (
    <Badge variant={VARIANTS[state]} size="S">
      {t(FRAGMENT_STATE_LABELS[state])}
    </Badge>
  );
}
