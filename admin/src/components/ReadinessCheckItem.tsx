import * as React from 'react';
import { Box, Flex, Link, TextButton, Typography } from '@strapi/design-system';
import { CheckCircle, CrossCircle } from '@strapi/icons';
import { Link as RouterLink } from 'react-router-dom';
import type { ReadinessCheck } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';
import { READINESS_LABELS } from '../utils/labels';

const COLLAPSED_FAILURES = 5;

/** One check of the readiness checklist (README › Observability): ok or failing, its summary, and each failing item linked to its edit view. */
export function ReadinessCheckItem({ check }: { check: ReadinessCheck }) {
  const t = useTranslate();
  const label = READINESS_LABELS[check.id] ? t(READINESS_LABELS[check.id]) : check.id;
  const [expanded, setExpanded] = React.useState(false);
  const shown = expanded ? check.failures : check.failures.slice(0, COLLAPSED_FAILURES);
  const hidden = check.failures.length - shown.length;
  const more = check.failureCount - check.failures.length;
  return (
    <Box
      tag="li"
      padding={4}
      hasRadius
      borderColor={check.ok ? 'neutral200' : 'danger200'}
      background={check.ok ? 'neutral0' : 'danger100'}
    >
      <Flex direction="column" alignItems="stretch" gap={2}>
        <Flex gap={2} alignItems="center">
          {check.ok ? (
            <CheckCircle fill="success600" aria-hidden />
          ) : (
            <CrossCircle fill="danger600" aria-hidden />
          )}
          <Typography fontWeight="bold">{label}</Typography>
          <Typography variant="pi" textColor={check.ok ? 'success700' : 'danger700'}>
            {check.ok ? t('readiness.ok') : t('readiness.failing', { count: check.failureCount })}
          </Typography>
        </Flex>
        <Typography variant="pi" textColor="neutral600">
          {check.summary}
        </Typography>
        {(check.problems ?? []).map((problem) => (
          <Typography key={problem} variant="pi" textColor="danger700">
            {problem}
          </Typography>
        ))}
        {check.failures.length > 0 ? (
          <ul style={{ listStyle: 'disc', paddingLeft: 20 }}>
            {shown.map((failure) => (
              <li key={`${failure.itemId}:${failure.detail}`}>
                <Typography variant="pi">
                  <Link tag={RouterLink} to={failure.editPath}>
                    {failure.title || failure.itemId}
                  </Link>{' '}
                  <Typography variant="pi" textColor="neutral600">
                    {failure.locale ? `(${failure.locale}) ` : ''}— {failure.detail}
                  </Typography>
                </Typography>
              </li>
            ))}
          </ul>
        ) : null}
        {hidden > 0 || expanded ? (
          <Box>
            <TextButton onClick={() => setExpanded(!expanded)}>
              {expanded
                ? t('readiness.showFewer')
                : t('readiness.showAll', { count: check.failures.length })}
            </TextButton>
          </Box>
        ) : null}
        {more > 0 && (expanded || hidden === 0) ? (
          <Typography variant="pi" textColor="neutral600">
            {t('readiness.more', { count: more })}
          </Typography>
        ) : null}
      </Flex>
    </Box>
  );
}
