import { Box, Flex, Typography } from '@strapi/design-system';
import { CheckCircle, WarningCircle } from '@strapi/icons';

interface MetricCardProps {
  label: string;
  value: string;
  /** e.g. "target ≥ 90 %"; with `ok`, shown green or red. */
  target?: string;
  ok?: boolean;
}

/** One figure of the dashboard, with its target when it has one. */
export function MetricCard({ label, value, target, ok }: MetricCardProps) {
  return (
    <Box padding={5} hasRadius background="neutral0" shadow="tableShadow" height="100%">
      <Flex direction="column" alignItems="flex-start" gap={2}>
        <Typography variant="sigma" textColor="neutral600">
          {label}
        </Typography>
        <Typography variant="beta" tag="p">
          {value}
        </Typography>
        {target ? (
          <Flex gap={1} alignItems="center">
            {ok === undefined ? null : ok ? (
              <CheckCircle fill="success600" aria-hidden />
            ) : (
              <WarningCircle fill="danger600" aria-hidden />
            )}
            <Typography
              variant="pi"
              textColor={ok === undefined ? 'neutral600' : ok ? 'success700' : 'danger700'}
            >
              {target}
            </Typography>
          </Flex>
        ) : null}
      </Flex>
    </Box>
  );
}
