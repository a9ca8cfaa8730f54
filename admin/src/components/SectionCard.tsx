import * as React from 'react';
import { Box, Flex, Typography } from '@strapi/design-system';

interface SectionCardProps {
  title: string;
  description?: string;
  children: React.ReactNode;
}

/** A white card with a heading, as Strapi's own settings pages group their fields. */
export function SectionCard({ title, description, children }: SectionCardProps) {
  return (
    <Box
      background="neutral0"
      hasRadius
      shadow="filterShadow"
      paddingTop={6}
      paddingBottom={6}
      paddingLeft={7}
      paddingRight={7}
    >
      <Flex direction="column" alignItems="stretch" gap={4}>
        <Flex direction="column" alignItems="stretch" gap={1}>
          <Typography variant="delta" tag="h2">
            {title}
          </Typography>
          {description ? (
            <Typography variant="pi" textColor="neutral600">
              {description}
            </Typography>
          ) : null}
        </Flex>
        {children}
      </Flex>
    </Box>
  );
}
