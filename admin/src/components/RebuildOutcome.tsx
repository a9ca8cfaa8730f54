import { Box, Flex, Loader, Typography } from '@strapi/design-system';
import { CheckCircle, Information } from '@strapi/icons';
import type { RebuildState } from '../hooks/useRebuild';
import { useTranslate } from '../hooks/useTranslate';
import { formatChanges, formatDuration } from '../utils/format';
import { RequestErrorState } from './RequestErrorState';

/** Progress and outcome of "Rebuild now": a loader while it runs, then the new snapshot, "nothing changed", or why not. */
export function RebuildOutcome({ state }: { state: RebuildState }) {
  const t = useTranslate();
  if (state.status === 'idle') return null;
  if (state.status === 'running') {
    return (
      <Box
        padding={4}
        hasRadius
        background="primary100"
        borderColor="primary200"
        role="status"
        aria-live="polite"
      >
        <Flex gap={3} alignItems="center">
          <Loader small>{t('rebuild.running')}</Loader>
          <Typography textColor="primary700">{t('rebuild.running')}</Typography>
        </Flex>
      </Box>
    );
  }
  if (state.status === 'error')
    return <RequestErrorState title={t('rebuild.failed')} error={state.error} />;

  const { snapshot, skipped, locked, failures } = state.answer;
  const message = locked
    ? t('rebuild.locked')
    : skipped
      ? t('rebuild.nothingChanged', { id: snapshot?.id ?? '—' })
      : snapshot
        ? t('rebuild.built', {
            id: snapshot.id,
            items: snapshot.item_count,
            changes: formatChanges(snapshot.changes),
            duration: formatDuration(snapshot.duration_ms),
          })
        : t('rebuild.noSnapshot');
  const changed = !locked && !skipped && snapshot !== null;
  return (
    <Box
      padding={4}
      hasRadius
      background={changed ? 'success100' : 'neutral0'}
      borderColor={changed ? 'success200' : 'neutral200'}
      role="status"
      aria-live="polite"
    >
      <Flex direction="column" alignItems="stretch" gap={2}>
        <Flex gap={2} alignItems="center">
          {changed ? (
            <CheckCircle fill="success600" aria-hidden />
          ) : (
            <Information fill="neutral600" aria-hidden />
          )}
          <Typography fontWeight="bold" textColor={changed ? 'success700' : 'neutral800'}>
            {message}
          </Typography>
        </Flex>
        {failures.length > 0 ? (
          <Flex direction="column" alignItems="stretch" gap={1}>
            <Typography variant="pi" textColor="danger700">
              {t('rebuild.failures', { count: failures.length })}
            </Typography>
            <ul style={{ listStyle: 'disc', paddingLeft: 20 }}>
              {failures.map((failure) => (
                <li key={`${failure.uid}:${failure.documentId}`}>
                  <Typography variant="pi">
                    {failure.uid} {failure.documentId}: {failure.message}
                  </Typography>
                </li>
              ))}
            </ul>
          </Flex>
        ) : null}
      </Flex>
    </Box>
  );
}
