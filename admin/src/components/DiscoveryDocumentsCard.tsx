import { Box, Flex, Link, Typography } from '@strapi/design-system';
import type { DiscoveryDocumentLink } from '../../../shared/contracts/admin';
import { useTranslate } from '../hooks/useTranslate';

/** Links to the public discovery documents (llms.txt, robots.txt, RSL, …), each with its address. */
export function DiscoveryDocumentsCard({ documents }: { documents: DiscoveryDocumentLink[] }) {
  const t = useTranslate();
  return (
    <Box tag="ul" aria-label={t('discovery.title')}>
      <Flex direction="column" alignItems="stretch" gap={2}>
        {documents.map((document) => (
          <Flex key={document.name} tag="li" gap={3} alignItems="baseline" wrap="wrap">
            <Link
              href={document.url}
              isExternal
              aria-label={t('discovery.link', { name: document.name })}
            >
              {document.name}
            </Link>
            <Typography variant="pi" textColor="neutral600" style={{ fontFamily: 'monospace' }}>
              {document.url}
            </Typography>
          </Flex>
        ))}
      </Flex>
    </Box>
  );
}
