import * as React from 'react';
import { Field, Flex, Grid, Textarea, Typography } from '@strapi/design-system';
import type { AiCrawler, DiscoverySettings } from '../../../shared/contracts/admin';
import { DISCOVERY_TEXT_BOUNDS } from '../../../shared/settings-schema';
import { useDiscoveryPreview } from '../hooks/useDiscoveryPreview';
import { useTranslate } from '../hooks/useTranslate';
import { errorBelow, validDiscovery, type FieldErrors } from '../utils/settings-form';
import { CrawlerChecklist } from './CrawlerChecklist';
import { DocumentPreview } from './DocumentPreview';
import { RequestErrorState } from './RequestErrorState';
import { TextField } from './fields/TextField';
import { ToggleField } from './fields/ToggleField';
import { SectionCard } from './SectionCard';

interface DiscoverySectionProps {
  value: DiscoverySettings;
  crawlers: AiCrawler[];
  onChange: (value: DiscoverySettings) => void;
  errors: FieldErrors;
  disabled: boolean;
  /** The preview needs settings.update; without it the section is read-only and not previewed. */
  canPreview: boolean;
}

/** The public file name of each previewed document. */
const PREVIEW_NAMES = {
  robots: 'robots.txt',
  llms: 'llms.txt',
  rsl: 'rsl.xml',
  tdmrep: 'tdmrep.json',
} as const;

/**
 * The discovery documents (docs/protocol.md §9): the llms.txt title and summary, the AI crawlers
 * robots.txt names, serving at the site root, and a live preview of robots.txt and llms.txt with
 * the unsaved values (and of rsl.xml and tdmrep.json, which follow the policy).
 */
export function DiscoverySection({
  value,
  crawlers,
  onChange,
  errors,
  disabled,
  canPreview,
}: DiscoverySectionProps) {
  const t = useTranslate();
  const set = (next: Partial<DiscoverySettings>) => onChange({ ...value, ...next });
  const previewable = canPreview && validDiscovery(value);
  const preview = useDiscoveryPreview(previewable ? value : null);

  return (
    <SectionCard
      title={t('settings.discovery.title')}
      description={t('settings.discovery.description')}
    >
      <Grid.Root gap={4}>
        <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
          <TextField
            name="discovery.title"
            label={t('settings.discovery.llmsTitle')}
            hint={t('settings.discovery.llmsTitleHint')}
            value={value.title}
            onChange={(title) => set({ title })}
            error={errors['discovery.title']}
            disabled={disabled}
          />
        </Grid.Item>
        <Grid.Item col={6} s={12} direction="column" alignItems="stretch">
          <ToggleField
            name="discovery.serveAtRoot"
            label={t('settings.discovery.serveAtRoot')}
            hint={t('settings.discovery.serveAtRootHint')}
            checked={value.serveAtRoot}
            onChange={(serveAtRoot) => set({ serveAtRoot })}
            error={errors['discovery.serveAtRoot']}
            disabled={disabled}
          />
        </Grid.Item>
        <Grid.Item col={12} direction="column" alignItems="stretch">
          <Field.Root
            name="discovery.summary"
            error={errors['discovery.summary']}
            hint={t('settings.discovery.summaryHint', { max: DISCOVERY_TEXT_BOUNDS.summary })}
          >
            <Field.Label>{t('settings.discovery.summary')}</Field.Label>
            <Textarea
              value={value.summary}
              onChange={(event: React.ChangeEvent<HTMLTextAreaElement>) =>
                set({ summary: event.target.value })
              }
              disabled={disabled}
            />
            <Field.Error />
            <Field.Hint />
          </Field.Root>
        </Grid.Item>
        <Grid.Item col={12} direction="column" alignItems="stretch">
          <Flex direction="column" alignItems="stretch" gap={1}>
            <Typography variant="pi" fontWeight="bold" tag="h3">
              {t('settings.discovery.agents')}
            </Typography>
            <Typography variant="pi" textColor="neutral600">
              {t('settings.discovery.agentsHint')}
            </Typography>
          </Flex>
        </Grid.Item>
        <Grid.Item col={12} direction="column" alignItems="stretch">
          <CrawlerChecklist
            name="discovery.agents"
            crawlers={crawlers}
            value={value.agents}
            onChange={(agents) => set({ agents })}
            error={errorBelow(errors, 'discovery.agents')}
            disabled={disabled}
          />
        </Grid.Item>
      </Grid.Root>

      <Flex direction="column" alignItems="stretch" gap={3}>
        <Flex direction="column" alignItems="stretch" gap={1}>
          <Typography variant="omega" fontWeight="bold" tag="h3">
            {t('settings.discovery.preview.title')}
          </Typography>
          <Typography variant="pi" textColor="neutral600" role="status">
            {!canPreview
              ? t('settings.discovery.preview.forbidden')
              : !previewable
                ? t('settings.discovery.preview.invalid')
                : preview.status === 'loading'
                  ? t('settings.discovery.preview.loading')
                  : t('settings.discovery.preview.description')}
          </Typography>
        </Flex>
        {preview.status === 'error' && preview.error.status === 503 ? (
          <Typography variant="pi" textColor="warning700" role="alert">
            {t('settings.discovery.preview.noSnapshot')}
          </Typography>
        ) : preview.status === 'error' ? (
          <RequestErrorState title={t('settings.discovery.preview.failed')} error={preview.error} />
        ) : null}
        {canPreview ? (
          <Grid.Root gap={4}>
            {(['robots', 'llms', 'rsl', 'tdmrep'] as const).map((doc) => {
              const shown =
                preview.status === 'done' || preview.status === 'loading'
                  ? preview.preview?.[doc]
                  : undefined;
              const name = PREVIEW_NAMES[doc];
              return (
                <Grid.Item key={doc} col={6} s={12} direction="column" alignItems="stretch">
                  <DocumentPreview
                    title={name}
                    label={t('settings.discovery.preview.of', { name })}
                    text={shown}
                    placeholder={t('settings.discovery.preview.empty')}
                    stale={preview.status === 'loading' && shown !== undefined}
                  />
                </Grid.Item>
              );
            })}
          </Grid.Root>
        ) : null}
      </Flex>
    </SectionCard>
  );
}
