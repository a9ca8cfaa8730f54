import { Box, Flex, Typography } from '@strapi/design-system';

interface DocumentPreviewProps {
  /** The document's file name, e.g. `robots.txt`. */
  title: string;
  /** Accessible name of the text box. */
  label: string;
  text: string | undefined;
  /** Shown instead of the text when there is none yet. */
  placeholder: string;
  /** An older text is shown while a newer one is on its way. */
  stale?: boolean;
}

/** A generated document, read-only and monospace, as a crawler would read it. */
export function DocumentPreview({ title, label, text, placeholder, stale }: DocumentPreviewProps) {
  return (
    <Flex direction="column" alignItems="stretch" gap={2}>
      <Typography variant="sigma" textColor="neutral600" tag="h3">
        {title}
      </Typography>
      <Box
        padding={3}
        hasRadius
        background="neutral100"
        borderColor="neutral200"
        style={{ maxHeight: 360, overflow: 'auto', opacity: stale ? 0.6 : 1 }}
      >
        <Typography
          variant="pi"
          tag="pre"
          aria-label={label}
          aria-busy={stale ? true : undefined}
          textColor={text === undefined ? 'neutral600' : 'neutral800'}
          style={{
            whiteSpace: 'pre-wrap',
            wordBreak: 'break-word',
            margin: 0,
            fontFamily: 'monospace',
          }}
        >
          {text ?? placeholder}
        </Typography>
      </Box>
    </Flex>
  );
}
