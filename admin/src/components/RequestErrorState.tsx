import { Box, Button, Flex, Typography } from '@strapi/design-system';
import { ArrowClockwise, WarningCircle } from '@strapi/icons';
import { useTranslate } from '../hooks/useTranslate';
import type { RequestError } from '../utils/request-error';

interface RequestErrorStateProps {
  /** What could not be loaded, e.g. "Could not load the fragments". */
  title: string;
  error: RequestError;
  onRetry?: () => void;
}

/** The error state of a request: what failed, why (status and the server's message), and a retry. */
export function RequestErrorState({ title, error, onRetry }: RequestErrorStateProps) {
  const t = useTranslate();
  const reason =
    error.status === 404
      ? t('error.notAvailable')
      : error.status === 403
        ? t('error.forbidden')
        : error.status === null
          ? t('error.network', { message: error.message })
          : t('error.server', { status: error.status, message: error.message });
  return (
    <Box padding={3} hasRadius background="danger100" borderColor="danger200" role="alert">
      <Flex direction="column" alignItems="flex-start" gap={2}>
        <Flex gap={2} alignItems="center">
          <WarningCircle fill="danger600" aria-hidden />
          <Typography fontWeight="bold" textColor="danger700">
            {title}
          </Typography>
        </Flex>
        <Typography variant="pi" textColor="danger700">
          {reason}
        </Typography>
        {onRetry ? (
          <Button variant="tertiary" size="S" startIcon={<ArrowClockwise />} onClick={onRetry}>
            {t('error.retry')}
          </Button>
        ) : null}
      </Flex>
    </Box>
  );
}
